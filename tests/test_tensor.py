"""Chapter 2's given code, on the reference: the Tensor constructor and its dtype rules,
the graph format (Function, Context, Node), grad mode, the seams to later chapters, the
factories and the array namespace. (The tasks themselves are covered by the checks, the
broken variants and the PyTorch oracle.)"""

from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from solutions import ch02_tensor as sp
from solutions.ch02_tensor import grad_mode
from tests.trees import SOLUTIONS, copy_package


@pytest.mark.parametrize(
    ("data", "dtype"),
    [
        (1.5, "float32"),
        ([1.0, 2.0], "float32"),
        ([1, 2], "int64"),
        ([True, False], "bool"),
        (np.arange(3.0), "float64"),
        (np.arange(3, dtype=np.float32), "float32"),
        (np.arange(3, dtype=np.int32), "int32"),
        (np.float64(2.0), "float64"),
    ],
)
def test_dtype_rules_follow_pytorch(data, dtype: str) -> None:
    assert str(sp.Tensor(data).dtype) == dtype


def test_set_default_dtype_changes_python_floats_only() -> None:
    try:
        sp.set_default_dtype(sp.float64)
        assert sp.tensor([1.0]).dtype == np.float64 and sp.zeros(2).dtype == np.float64
        assert sp.tensor(np.ones(2, np.float32)).dtype == np.float32
    finally:
        sp.set_default_dtype(sp.float32)
    with pytest.raises(TypeError, match="floating"):
        sp.set_default_dtype(np.int64)


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda: sp.Tensor([1, 2], requires_grad=True), RuntimeError, "int64"),
        (lambda: sp.Tensor("abc"), TypeError, "str"),
        (lambda: sp.Tensor([[1.0], [2.0, 3.0]]), ValueError, "cannot make a tensor"),
        (lambda: sp.Tensor([1j]), TypeError, "complex"),
        (lambda: sp.ones(2, 3) @ sp.ones(2, 3), RuntimeError, r"\(2, 3\) and \(2, 3\)"),
        (lambda: sp.ones(3) @ sp.ones(()), RuntimeError, "at least 1 dimension"),
        (lambda: sp.ones(6).reshape(4, 2), RuntimeError, r"\(4, 2\).*\(6,\)"),
        (lambda: sp.ones(2) ** "2", TypeError, "number as the exponent"),
        (lambda: sp.ones(2, 3).sum(dim=2), IndexError, "range of \\[-2, 1\\], but got 2"),
        (lambda: sp.ones(2, 3).unsqueeze(5), IndexError, "range of \\[-3, 2\\], but got 5"),
        (lambda: sp.ones(2, 3).squeeze(5), IndexError, "but got 5"),
        (lambda: sp.ones(2, 3).transpose(0, 5), IndexError, "but got 5"),
        (lambda: sp.ones(2, 3) @ sp.ones(3, dtype=sp.float64), RuntimeError, "same dtype"),
        (lambda: sp.arange(3).mean(), RuntimeError, "floating point"),
        (lambda: sp.ones(2, 3).sum(dim=(1, -1)), RuntimeError, "more than once"),
        (lambda: sp.ones(2, 3).permute(0, 0), RuntimeError, "each of the 2 axes"),
        (lambda: sp.ones(0).max(), RuntimeError, "empty"),
        (lambda: sp.ones(2).item(), RuntimeError, "one element"),
        (lambda: sp.ones(2, requires_grad=True).numpy(), RuntimeError, "detach"),
    ],
)
def test_bad_input_gets_an_error_that_names_it(make, error, message: str) -> None:
    with pytest.raises(error, match=message):
        make()


def test_a_tensor_is_data_and_a_graph_node() -> None:
    a = sp.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    assert (a.shape, a.ndim, a.is_leaf, a.grad, a.grad_fn) == ((2, 2), 2, True, None, None)
    b = a * 2
    assert repr(b.grad_fn) == "<MulBackward>" and b.grad_fn.name() == "MulBackward"
    assert b.requires_grad and not b.is_leaf
    with pytest.warns(UserWarning, match="not a leaf Tensor"):  # PyTorch's warning
        assert b.grad is None
    assert "grad_fn=<MulBackward>" in repr(b) and "requires_grad=True" in repr(a)
    assert b.grad_fn.inputs[0] is a and not b.grad_fn.inputs[1].requires_grad
    assert b.detach().grad_fn is None and not b.detach().requires_grad
    assert sp.tensor(3.0).item() == 3.0 and float(sp.tensor([2.5])) == 2.5
    assert sp.tensor([1.0, 2.0]).tolist() == [1.0, 2.0]
    names = {type(op.grad_fn).__name__ for op in [b, a.exp(), a[0], a.T, a.sum()]}
    assert names == {"Node"}


def test_a_python_number_keeps_the_tensors_dtype() -> None:
    x = sp.ones(3)
    for out in [x * 2.5, 2.5 * x, x - 1, 1 - x, x / 3, 3 / x, x + True]:
        assert out.dtype == np.float32
    assert (sp.ones(3, dtype=sp.float64) * 2).dtype == np.float64


def test_numpy_arrays_on_the_left_defer_to_the_tensor() -> None:
    out = np.ones(3) * sp.tensor([1.0, 2.0, 3.0], requires_grad=True)
    assert isinstance(out, sp.Tensor) and out.grad_fn is not None


def test_comparisons_and_sign_are_constants() -> None:
    a = sp.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    for out in [a > 0, a >= 0, a < 0, a <= 0, a == 0, a != 0, a.sign()]:
        assert out.grad_fn is None and not out.requires_grad
    assert (a > 0).tolist() == [False, False, True]
    assert a.sign().tolist() == [-1.0, 0.0, 1.0]
    assert len({a, a}) == 1  # hashable by identity, although == is elementwise


def test_a_custom_function_follows_the_graph_format() -> None:
    class Cube(sp.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a.data**3

        @staticmethod
        def backward(ctx, grad_output):
            (a,) = ctx.saved_tensors
            return grad_output * 3 * a * a

    x = sp.tensor([1.0, 2.0], requires_grad=True)
    y = Cube.apply(x)
    assert repr(y.grad_fn) == "<CubeBackward>" and y.grad_fn.ctx.needs_input_grad == (True,)
    (grad,) = y.grad_fn.backward(sp.ones(2))
    assert grad.tolist() == [3.0, 12.0] and grad.grad_fn is None  # no graph unless asked
    (grad,) = y.grad_fn.backward(sp.ones(2), create_graph=True)
    assert grad.grad_fn is not None
    assert Cube.apply(sp.tensor([1.0])).grad_fn is None  # no input requires grad


def test_node_backward_names_a_wrong_number_of_gradients() -> None:
    class TwoForOne(sp.Function):
        @staticmethod
        def forward(ctx, a):
            return a.data

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output, grad_output

    y = TwoForOne.apply(sp.ones(2, requires_grad=True))
    with pytest.raises(TypeError, match="returned 2 gradient"):
        y.grad_fn.backward(sp.ones(2))


def test_node_backward_names_a_gradient_of_the_wrong_shape() -> None:
    class RowSum(sp.Function):
        @staticmethod
        def forward(ctx, a):
            return a.data.sum(axis=1)

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output.reshape(2, 1)  # forgot to copy it along the summed axis

    y = RowSum.apply(sp.ones(2, 3, requires_grad=True))
    with pytest.raises(RuntimeError, match=r"shape \(2, 1\) for an input of shape \(2, 3\)"):
        y.grad_fn.backward(sp.ones(2))


def test_a_released_node_refuses_a_second_backward() -> None:
    y = sp.ones(2, requires_grad=True).exp()
    y.grad_fn.release()
    with pytest.raises(RuntimeError, match="second time"):
        y.grad_fn.backward(sp.ones(2))


def test_grad_mode_off_records_nothing() -> None:
    x = sp.ones(2, requires_grad=True)
    previous = grad_mode._set_grad_enabled(False)
    try:
        assert not sp.is_grad_enabled()
        y = x * x
    finally:
        grad_mode._set_grad_enabled(previous)
    assert y.grad_fn is None and not y.requires_grad and sp.is_grad_enabled()


@pytest.fixture(scope="module")
def lone(tmp_path_factory: pytest.TempPathFactory):
    """Chapter 2 alone in a tree of its own (as in the checks' composite tree for chapter 2
    before later chapters existed): a seam finds no later chapter there."""
    root = tmp_path_factory.mktemp("lone")
    (root / "lone_tree").mkdir()
    (root / "lone_tree" / "__init__.py").write_text("")
    copy_package(SOLUTIONS / "ch02_tensor", root / "lone_tree" / "ch02_tensor")
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module("lone_tree.ch02_tensor")
    finally:
        sys.path.remove(str(root))
        for name in [n for n in sys.modules if n.split(".")[0] == "lone_tree"]:
            del sys.modules[name]


@pytest.mark.parametrize(
    ("use", "chapter"),
    [
        (lambda sp, x: x.backward(), "chapter 4"),
        (lambda sp, x: sp.autograd.grad(x, [x]), "chapter 4"),
        (lambda sp, x: x.broadcast_to(3, 2), "chapter 3"),
        (lambda sp, x: x.expand(3, 2), "chapter 3"),
        (lambda sp, x: x.sum_to_size(1), "chapter 3"),
        (lambda sp, x: x.cuda(), "chapter 7"),
        (lambda sp, x: x.to("cuda:0"), "chapter 7"),
        (lambda sp, x: sp.zeros(2, device="cuda"), "chapter 7"),
        # a gradient that must be summed down to a broadcast input's shape
        (lambda sp, x: (x * sp.ones(3, 2)).grad_fn.backward(sp.ones(3, 2)), "chapter 3"),
    ],
)
def test_seams_name_the_chapter_that_builds_them(lone, use, chapter: str) -> None:
    x = lone.ones(2, requires_grad=True)
    with pytest.raises(NotImplementedError, match=f"built in {chapter} .*not in this course tree"):
        use(lone, x)


def test_the_forwarding_methods_are_rows_with_signatures_and_docs() -> None:
    """``Tensor``'s methods that only call a later chapter are rows of one table
    (``seams.Later``): each still has its name, signature and docstring for ``help()``."""
    import inspect

    tensor = sp.Tensor
    assert str(inspect.signature(tensor.min)) == "(self, dim=None, keepdim=False)"
    assert str(inspect.signature(sp.ones(2).where)) == "(condition, other)"
    assert str(inspect.signature(tensor.var)).endswith("*, correction=None)")
    assert (
        tensor.expand.__qualname__ == "Tensor.expand" and "-1 keeps a size" in tensor.expand.__doc__
    )
    assert tensor.clip is tensor.clamp and {"expand", "softmax", "backward"} <= set(dir(sp.ones(2)))
    with pytest.raises(TypeError, match="softmax"):
        sp.ones(2).softmax()
    with pytest.raises(TypeError, match=r"Tensor\.min\(\) takes from 1 to 3 positional"):
        sp.ones(2).min(0, False, 1)  # Python's own message, as for a hand-written method


def test_the_cpu_device_works_now() -> None:
    x = sp.ones(2, device="cpu")
    assert x.device == sp.device("cpu") == "cpu" and str(x.device) == "cpu"
    assert x.to("cpu") is x and x.cpu() is x
    assert repr(sp.device("cuda:1")) == "device(type='cuda', index=1)"
    with pytest.raises(ValueError, match="invalid device"):
        sp.device("cuda:x")


def test_retain_grad_marks_non_leaves_only() -> None:
    x = sp.ones(2, requires_grad=True)
    y = x * 2
    x.retain_grad()
    y.retain_grad()
    assert not x.retains_grad and y.retains_grad
    with pytest.raises(RuntimeError, match="requires_grad=False"):
        sp.ones(2).retain_grad()


def test_factories() -> None:
    assert sp.zeros(2, 3).shape == sp.zeros((2, 3)).shape == (2, 3)
    assert sp.arange(4).dtype == np.int64 and sp.arange(0.0, 1.0, 0.25).shape == (4,)
    assert sp.full((2,), 7).tolist() == [7, 7] and sp.full((1,), 0.5).dtype == np.float32
    assert sp.eye(3).data.trace() == 3.0
    sp.manual_seed(1)
    first = sp.randn(3).tolist()
    sp.manual_seed(1)
    assert sp.randn(3).tolist() == first and sp.rand(2, 2).shape == (2, 2)
    x = sp.ones(2, 2, dtype=sp.float64)
    assert sp.zeros_like(x).dtype == np.float64 and sp.ones_like(x).tolist() == [[1, 1], [1, 1]]
    copy, source = sp.tensor(np.zeros(2)), np.zeros(2)
    source[0] = 1
    assert copy.tolist() == [0.0, 0.0] and sp.as_tensor(x) is x
    with pytest.raises(ValueError, match="non-negative"):
        sp.zeros(-1)


def test_scatter_add_counts_every_repeat() -> None:
    target = np.zeros(3)
    sp.scatter_add(target, np.array([0, 0, 2]), np.array([1.0, 2.0, 3.0]))
    assert target.tolist() == [3.0, 0.0, 3.0]
    assert sp.array_module(target) is np


def test_max_and_shapes_helpers() -> None:
    x = sp.tensor([[1.0, 5.0], [7.0, 2.0]])
    values, indices = x.max(dim=1)
    assert values.tolist() == [5.0, 7.0] and indices.tolist() == [1, 0]
    assert x.max().item() == 7.0 and x.argmax().item() == 2
    assert x.unsqueeze(0).shape == (1, 2, 2) and x.unsqueeze(-1).shape == (2, 2, 1)
    assert x.unsqueeze(0).squeeze().shape == (2, 2) and x.squeeze(0).shape == (2, 2)
    assert x.T.tolist() == [[1.0, 7.0], [5.0, 2.0]] and len(x) == 2


def test_mixed_dtypes_are_cast_in_the_graph_and_back() -> None:
    x = sp.ones(3, requires_grad=True)  # float32
    w = sp.tensor([1.0, 2.0, 3.0], dtype=sp.float64, requires_grad=True)
    y = x * w  # float64, as in PyTorch: x is cast, and the cast is a node of the graph
    assert y.dtype == np.float64 and repr(y.grad_fn.inputs[0].grad_fn) == "<CastBackward>"
    grad_x_cast, grad_w = y.grad_fn.backward(sp.ones(3, dtype=sp.float64))
    assert grad_w.dtype == np.float64
    (grad_x,) = y.grad_fn.inputs[0].grad_fn.backward(grad_x_cast)
    assert grad_x.dtype == np.float32 and grad_x.tolist() == [1.0, 2.0, 3.0]
    assert x.double().dtype == np.float64 and x.to(sp.float64).grad_fn is not None
    assert x.float() is x and x.to(sp.float32) is x


def test_each_gradient_comes_back_in_its_inputs_dtype() -> None:
    class Upcast(sp.Function):  # a backward that computes in float64
        @staticmethod
        def forward(ctx, a):
            return a.data * 2

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output.double() * 2

    y = Upcast.apply(sp.ones(2, requires_grad=True))
    (grad,) = y.grad_fn.backward(sp.ones(2))
    assert grad.dtype == np.float32  # as PyTorch's engine does


def test_an_empty_dim_reduces_every_axis_the_courses_rule() -> None:
    # PyTorch does the same today but tracks it as a bug (pytorch/pytorch#29137): for the
    # course it is a rule of its own, which chapter 3's unbroadcast has to respect.
    assert sp.ones(2, 3).sum(dim=()).item() == 6.0 and sp.ones(2, 3).mean(dim=[]).shape == ()
    assert sp.tensor(1.5).max(dim=0).values.item() == 1.5


# -- Python numbers are converted once, to the dtype they end up with ----------------------

_TENTH = 0.1  # not a float32: float32 arithmetic cannot give it back exactly

EXACT_FLOAT64 = {  # name: a float64 result built from Python numbers; its exact value
    "tensor(0.1, dtype=float64)": (lambda: sp.tensor(_TENTH, dtype=sp.float64), [_TENTH]),
    "Tensor(0.1, dtype=float64)": (lambda: sp.Tensor(_TENTH, dtype=sp.float64), [_TENTH]),
    "tensor([[0.1], [0.3]], dtype=float64)": (
        lambda: sp.tensor([[_TENTH], [0.3]], dtype=sp.float64),
        [_TENTH, 0.3],
    ),
    "as_tensor(0.1, dtype=float64)": (lambda: sp.as_tensor(_TENTH, dtype=sp.float64), [_TENTH]),
    "full((2,), 0.1, dtype=float64)": (
        lambda: sp.full((2,), _TENTH, dtype=sp.float64),
        [_TENTH, _TENTH],
    ),
    "arange(0, 0.5, 0.1, dtype=float64)": (
        lambda: sp.arange(0, 0.5, _TENTH, dtype=sp.float64),
        [i * _TENTH for i in range(5)],
    ),
    "float64 + 0.1": (lambda: sp.ones(2, dtype=sp.float64) + _TENTH, [1 + _TENTH] * 2),
    "0.1 - float64": (lambda: _TENTH - sp.ones(1, dtype=sp.float64), [_TENTH - 1]),
    "float64 * 0.1": (lambda: sp.full((1,), 3.0, dtype=sp.float64) * _TENTH, [3.0 * _TENTH]),
    "float64 / 0.1": (lambda: sp.ones(1, dtype=sp.float64) / _TENTH, [1 / _TENTH]),
    "0-d float64 * 0.1": (lambda: sp.tensor(3.0, dtype=sp.float64) * _TENTH, [3.0 * _TENTH]),
    "float64 + [0.1, 0.3]": (
        lambda: sp.zeros(2, dtype=sp.float64) + [_TENTH, 0.3],  # noqa: RUF005 (a Tensor)
        [_TENTH, 0.3],
    ),
}


@pytest.mark.parametrize("name", list(EXACT_FLOAT64))
def test_a_python_float_keeps_its_float64_digits(name: str) -> None:
    make, expected = EXACT_FLOAT64[name]
    out = make()
    assert out.dtype == np.float64, name
    assert out.data.reshape(-1).tolist() == expected, name


def test_under_a_float64_default_python_numbers_are_exact() -> None:
    try:
        sp.set_default_dtype(sp.float64)
        assert sp.tensor(_TENTH).item() == _TENTH and sp.tensor([_TENTH]).tolist() == [_TENTH]
        assert (sp.tensor([3]) * _TENTH).tolist() == [3 * _TENTH]  # int * float: the default
        assert sp.full((1,), _TENTH).item() == _TENTH
        assert sp.arange(0, 0.3, _TENTH).tolist() == [0.0, _TENTH, 2 * _TENTH]
        assert (sp.tensor([_TENTH]) == _TENTH).item()
    finally:
        sp.set_default_dtype(sp.float32)


@given(st.floats(min_value=-1e30, max_value=1e30, allow_nan=False, allow_subnormal=False))
def test_any_python_float_is_rounded_once(number: float) -> None:
    assert sp.tensor(number, dtype=sp.float64).item() == number
    assert sp.tensor([[number]], dtype=sp.float64).item() == number
    assert (sp.zeros(1, dtype=sp.float64) + number).item() == number
    assert sp.tensor(number).item() == float(np.float32(number))  # the nearest float32


def test_a_python_float_is_rounded_once_to_float32() -> None:
    tenth32 = np.float32(_TENTH)  # the float32 nearest to 0.1
    assert sp.tensor(_TENTH).item() == float(tenth32) != _TENTH
    assert sp.tensor([_TENTH, 1]).dtype == np.float32
    assert (sp.ones(1) + _TENTH).item() == float(np.float32(1) + tenth32)
    assert (sp.tensor([3]) * _TENTH).item() == float(np.float32(3) * tenth32)
    assert (sp.tensor([_TENTH]) == _TENTH).item()  # both sides float32, as in PyTorch
    values = sp.arange(0, 10, _TENTH)  # start + i·step in float64, then rounded once
    exact = np.arange(100) * _TENTH
    assert values.dtype == np.float32 and values.data.tolist() == exact.astype(np.float32).tolist()


DATA_DTYPES = {  # Python data without dtype=: PyTorch's dtype for it
    "[np.float64(0.1), 0.2]": lambda np_: [np_.float64(0.1), 0.2],
    "[np.float32(0.1), 1]": lambda np_: [np_.float32(0.1), 1],
    "[np.int32(1), 2]": lambda np_: [np_.int32(1), 2],
    "[True, 2]": lambda np_: [True, 2],
    "[1, 2.5]": lambda np_: [1, 2.5],
    "[[1], [2.0]]": lambda np_: [[1], [2.0]],
    "[]": lambda np_: [],
    "(True, False)": lambda np_: (True, False),
    "np.float16(1.5)": lambda np_: np_.float16(1.5),
}


@pytest.mark.parametrize("name", list(DATA_DTYPES))
def test_the_dtype_of_python_data_is_pytorchs(name: str) -> None:
    torch = pytest.importorskip("torch")
    data = DATA_DTYPES[name](np)
    ours, theirs = sp.tensor(data), torch.tensor(data)
    assert str(ours.dtype) == str(theirs.dtype).removeprefix("torch."), name
    assert ours.data.tolist() == theirs.numpy().tolist(), name


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_python_numbers_give_pytorchs_values(dtype: str) -> None:
    torch = pytest.importorskip("torch")
    ours, theirs = getattr(sp, dtype), getattr(torch, dtype)
    pairs = [
        (sp.tensor(_TENTH, dtype=ours), torch.tensor(_TENTH, dtype=theirs)),
        (sp.tensor([_TENTH, 0.7], dtype=ours), torch.tensor([_TENTH, 0.7], dtype=theirs)),
        (sp.full((2,), _TENTH, dtype=ours), torch.full((2,), _TENTH, dtype=theirs)),
        (sp.ones(2, dtype=ours) * _TENTH, torch.ones(2, dtype=theirs) * _TENTH),
        (_TENTH / sp.ones(2, dtype=ours), _TENTH / torch.ones(2, dtype=theirs)),
        (sp.tensor([1, 3]).to(ours) + _TENTH, torch.tensor([1, 3]).to(theirs) + _TENTH),
    ]
    for mine, reference in pairs:
        assert mine.dtype == ours and mine.data.tolist() == reference.numpy().tolist()
    # arange: PyTorch's vectorised kernel may round differently in the last place
    mine = sp.arange(0, 10, _TENTH, dtype=ours).data
    np.testing.assert_array_max_ulp(mine, torch.arange(0, 10, _TENTH, dtype=theirs).numpy(), 1)


def test_view_is_reshape_and_repr_is_pytorchs() -> None:
    assert sp.Tensor.view is sp.Tensor.reshape
    torch = pytest.importorskip("torch")
    for data, dtype, grad in [([1.5, 2.0], "float64", False), ([1.0, 2.0], "float32", True)]:
        ours = sp.tensor(data, dtype=getattr(sp, dtype), requires_grad=grad)
        theirs = torch.tensor(data, dtype=getattr(torch, dtype), requires_grad=grad)
        assert repr(ours) == repr(theirs).replace("torch.", ""), data

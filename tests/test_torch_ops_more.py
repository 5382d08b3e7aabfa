"""PyTorch as an oracle for chapter 7's scatter, diagonals, stacking/splitting, more
pointwise math and value checks (``ops/scatter.py``, ``diagonal.py``, ``stacking.py``,
``hyperbolic.py``, ``values.py``): values, dtypes and the gradient of every input in
float64 to 1e-10, as functions and as methods; scatter's and diagonal's backward to second
order; PyTorch's errors for misuse. Skipped, visibly, without PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

from solutions import ch07_device as sp

torch = pytest.importorskip("torch")

TOL = 1e-10


def _arrays(seed: int, shapes: list) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.uniform(-2, 2, s) for s in shapes]


def _compare(out, want) -> None:
    assert isinstance(out, sp.Tensor)
    assert out.shape == tuple(want.shape)
    assert str(out.dtype) == str(want.dtype).removeprefix("torch.")
    np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), rtol=TOL, atol=TOL)


def _check(fn, shapes: list, seed: int = 0, arrays: list | None = None) -> None:
    """``fn(module, *leaves)`` with module ``sp`` and ``torch``: equal values (a tensor or a
    tuple of them) and equal gradients of every leaf for random upstream gradients."""
    arrays = _arrays(seed, shapes) if arrays is None else arrays
    ours = [sp.tensor(a, dtype=sp.float64, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    out, want = fn(sp, *ours), fn(torch, *theirs)
    outs, wants = (out, want) if isinstance(want, tuple) else ((out,), (want,))
    assert isinstance(outs, tuple) and len(outs) == len(wants)
    rng = np.random.default_rng(seed + 1)
    total_ours, total_theirs = 0, 0
    for o, w in zip(outs, wants):
        _compare(o, w)
        g = rng.uniform(-1, 1, tuple(w.shape))
        total_ours = total_ours + (o * sp.tensor(g, dtype=sp.float64)).sum()
        total_theirs = total_theirs + (w * torch.tensor(g, dtype=torch.float64)).sum()
    total_ours.backward()
    total_theirs.backward()
    for x, t in zip(ours, theirs):
        expected = np.zeros(t.shape) if t.grad is None else t.grad.numpy()
        got = np.zeros(x.shape) if x.grad is None else x.grad.numpy()
        np.testing.assert_allclose(got, expected, rtol=TOL, atol=TOL)


def _index(m, array) -> object:
    return m.tensor(np.asarray(array, dtype=np.int64))


IDX = [[0, 1, 2, 0], [2, 0, 0, 1]]  # repeats along dim 0: scatter_add adds them up
PERM = [[0, 1, 2], [2, 0, 1], [1, 2, 0]]  # a permutation per column: no position twice

OPS = {
    # scatter, scatter_add
    "scatter src": (lambda m, x, s: x.scatter(0, _index(m, PERM), s), [(3, 3), (3, 3)]),
    "scatter dim 1": (
        lambda m, x, s: m.scatter(x, 1, _index(m, [[2, 0], [1, 3], [0, 2]]), s),
        [(3, 4), (3, 2)],
    ),
    "scatter index smaller": (
        lambda m, x, s: x.scatter(1, _index(m, [[1], [0]]), s),
        [(3, 3), (2, 1)],
    ),
    "scatter value": (lambda m, x: x.scatter(0, _index(m, PERM[:2]), 2.5), [(3, 3)]),
    "scatter value kw": (lambda m, x: m.scatter(x, -1, _index(m, [[0], [2]]), value=-1), [(2, 3)]),
    "scatter 3d": (
        lambda m, x, s: x.scatter(2, _index(m, np.argsort(np.arange(24).reshape(2, 3, 4) % 5)), s),
        [(2, 3, 4), (2, 3, 4)],
    ),
    "scatter 0-d": (lambda m, x, s: x.scatter(0, _index(m, 0), s), [(), ()]),
    "scatter 1-d index 0-d": (lambda m, x, s: x.scatter(0, _index(m, 2), s), [(4,), ()]),
    "scatter_add": (lambda m, x, s: x.scatter_add(0, _index(m, IDX), s), [(3, 4), (2, 4)]),
    "scatter_add dim 1": (  # (sp.scatter_add is task 7.6's array-level one: the method here)
        lambda m, x, s: x.scatter_add(1, _index(m, [[0, 0, 1], [2, 2, 2]]), s),
        [(2, 3), (2, 3)],
    ),
    "scatter_add 3d": (
        lambda m, x, s: x.scatter_add(1, _index(m, np.zeros((2, 5, 2))), s),
        [(2, 3, 4), (2, 5, 2)],
    ),
    "scatter into result": (
        lambda m, x, s: (x * x).scatter(1, _index(m, [[1, 0], [0, 1]]), s.exp()),
        [(2, 2), (2, 2)],
    ),
    # diagonals
    "diagonal": (lambda m, x: m.diagonal(x), [(3, 4)]),
    "diagonal offset": (lambda m, x: x.diagonal(1), [(3, 4)]),
    "diagonal below": (lambda m, x: x.diagonal(-2), [(4, 3)]),
    "diagonal empty": (lambda m, x: x.diagonal(5), [(3, 4)]),
    "diagonal dims": (lambda m, x: x.diagonal(offset=1, dim1=2, dim2=0), [(3, 2, 4)]),
    "diagonal negative dims": (lambda m, x: m.diagonal(x, -1, -1, -3), [(4, 2, 3)]),
    "diag 1-d": (lambda m, x: m.diag(x), [(3,)]),
    "diag 1-d offset": (lambda m, x: x.diag(2), [(3,)]),
    "diag 1-d below": (lambda m, x: m.diag(x, diagonal=-1), [(2,)]),
    "diag 2-d": (lambda m, x: m.diag(x, 1), [(3, 5)]),
    "diag 2-d below": (lambda m, x: x.diag(-1), [(4, 2)]),
    "diag_embed": (lambda m, x: m.diag_embed(x), [(2, 3)]),
    "diag_embed dims": (lambda m, x: m.diag_embed(x, 1, 0, 2), [(2, 3)]),
    "diag_embed method": (lambda m, x: x.diag_embed(-1, dim1=-1, dim2=0), [(3, 2)]),
    "diagflat": (lambda m, x: m.diagflat(x, -1), [(2, 2)]),
    # splitting
    "tensor_split sections": (lambda m, x: m.tensor_split(x, 3), [(7, 2)]),
    "tensor_split more sections": (lambda m, x: x.tensor_split(5, dim=1), [(2, 3)]),
    "tensor_split indices": (lambda m, x: m.tensor_split(x, [1, 4], dim=1), [(2, 6)]),
    "tensor_split odd indices": (lambda m, x: x.tensor_split((3, 1, 9), -1), [(2, 5)]),
    "tensor_split tensor": (lambda m, x: m.tensor_split(x, _index(m, [2])), [(4,)]),
    "tensor_split 0-d tensor": (lambda m, x: x.tensor_split(_index(m, 2)), [(5, 1)]),
    "hsplit": (lambda m, x: m.hsplit(x, 2), [(3, 4)]),
    "hsplit 1-d": (lambda m, x: x.hsplit([1, 3]), [(5,)]),
    "vsplit": (lambda m, x: m.vsplit(x, [2]), [(3, 4)]),
    "vsplit method": (lambda m, x: x.vsplit(2), [(4, 2, 2)]),
    "dsplit": (lambda m, x: m.dsplit(x, 2), [(2, 3, 4)]),
    "dsplit method": (lambda m, x: x.dsplit([1, 2]), [(2, 1, 3)]),
    # stacking
    "hstack 1-d": (lambda m, a, b: m.hstack([a, b]), [(2,), (3,)]),
    "hstack 2-d": (lambda m, a, b: m.hstack((a, b)), [(2, 1), (2, 3)]),
    "hstack 0-d": (lambda m, a, b: m.hstack([a, b]), [(), (2,)]),
    "vstack 1-d": (lambda m, a, b: m.vstack([a, b]), [(3,), (3,)]),
    "vstack mixed": (lambda m, a, b: m.vstack([a, b]), [(3,), (2, 3)]),
    "row_stack": (lambda m, a, b: m.row_stack([a, b]), [(2, 2), (1, 2)]),
    "dstack 1-d": (lambda m, a, b: m.dstack([a, b]), [(3,), (3,)]),
    "dstack 2-d": (lambda m, a, b: m.dstack([a, b]), [(2, 3), (2, 3)]),
    "dstack 3-d": (lambda m, a, b: m.dstack([a, b]), [(2, 3, 1), (2, 3, 2)]),
    "column_stack": (lambda m, a, b, c: m.column_stack([a, b, c]), [(3,), (3, 2), (3,)]),
    "column_stack 0-d": (lambda m, a, b: m.column_stack([a, b]), [(), ()]),
    "atleast_1d": (lambda m, a: m.atleast_1d(a), [()]),
    "atleast_2d": (lambda m, a, b: m.atleast_2d(a, b), [(3,), ()]),
    "atleast_3d": (lambda m, a, b, c: m.atleast_3d((a, b, c)), [(3,), (2, 3), ()]),
    # flip by keyword
    "flip dims=": (lambda m, x: x.flip(dims=(0, 2)), [(2, 3, 4)]),
    "flip dims= list": (lambda m, x: x.flip(dims=[-1]), [(2, 3)]),
    "flip positional": (lambda m, x: x.flip(0, 1), [(2, 3)]),
    "flip fn dims=": (lambda m, x: m.flip(x, dims=(1,)), [(2, 3)]),
}

# pointwise: (name, how the input is made from a uniform(-2, 2) array: into the domain)
POINTWISE = {
    "sinh": lambda x: x,
    "cosh": lambda x: x,
    "asin": lambda x: x / 2.5,
    "arcsin": lambda x: x / 2.5,
    "acos": lambda x: x / 2.5,
    "arccos": lambda x: x / 2.5,
    "atan": lambda x: x * 3,
    "arctan": lambda x: x,
    "asinh": lambda x: x * 3,
    "arcsinh": lambda x: x,
    "acosh": lambda x: np.abs(x) + 1.1,
    "arccosh": lambda x: np.abs(x) + 1.01,
    "atanh": lambda x: x / 2.5,
    "arctanh": lambda x: x / 2.5,
    "log1p": lambda x: np.abs(x) - 0.9,
    "expm1": lambda x: x,
}


@pytest.mark.parametrize("name", list(OPS))
def test_against_pytorch(name):
    fn, shapes = OPS[name]
    _check(fn, shapes)


@pytest.mark.parametrize("name", list(POINTWISE))
@pytest.mark.parametrize("form", ["function", "method"])
def test_pointwise_against_pytorch(name, form):
    array = POINTWISE[name](_arrays(3, [(3, 4)])[0])
    if form == "function":
        _check(lambda m, x: getattr(m, name)(x), [], arrays=[array])
    else:
        _check(lambda m, x: getattr(x, name)(), [], arrays=[array])


def _second(m, fn, shape):
    """The gradient of (∂L/∂x · w) with respect to the upstream gradient u: checks that the
    backward is itself differentiable and right."""
    x = m.tensor(_arrays(5, [shape])[0], dtype=m.float64, requires_grad=True)
    out = fn(m, x)
    u = m.tensor(_arrays(6, [tuple(out.shape)])[0], dtype=m.float64, requires_grad=True)
    (gx,) = m.autograd.grad(out, x, u, create_graph=True)
    w = m.tensor(_arrays(7, [shape])[0], dtype=m.float64)
    (gu,) = m.autograd.grad((gx * w).sum(), u)
    return gu.detach().numpy()


@pytest.mark.parametrize(
    "fn, shape",
    [
        (lambda m, x: x.scatter(0, _index(m, PERM), x * 2), (3, 3)),
        (lambda m, x: x.scatter_add(1, _index(m, [[0, 0], [1, 0], [2, 2]]), x[:, :2]), (3, 3)),
        (lambda m, x: x.scatter(1, _index(m, [[1], [0], [1]]), 0.5), (3, 2)),
        (lambda m, x: x.diagonal(1, 0, 2), (3, 2, 4)),
        (lambda m, x: m.diag(x, -1), (3,)),
        (lambda m, x: x.sinh() * x.atan(), (4,)),
        (lambda m, x: (x / 3).asin().expm1(), (4,)),
    ],
)
def test_second_order(fn, shape):
    np.testing.assert_allclose(_second(sp, fn, shape), _second(torch, fn, shape), rtol=TOL)


def test_pointwise_second_derivative():
    """d²/da² of each pointwise function, through create_graph."""
    for name, make in POINTWISE.items():
        a = make(_arrays(9, [(5,)])[0])

        def second(m, a=a, name=name):
            x = m.tensor(a, dtype=m.float64, requires_grad=True)
            (g,) = m.autograd.grad(getattr(m, name)(x).sum(), x, create_graph=True)
            (gg,) = m.autograd.grad(g.sum(), x)
            return gg.detach().numpy()

        np.testing.assert_allclose(second(sp), second(torch), rtol=1e-9, err_msg=name)


@pytest.mark.parametrize(
    "name, values",
    [
        ("asin", [-1.0, 1.0, 1.5]),
        ("acos", [-1.0, 1.0, -3.0]),
        ("atanh", [-1.0, 1.0, 2.0]),
        ("acosh", [1.0, 0.5, -1.0]),
        ("log1p", [-1.0, -2.0, 0.0]),
        ("expm1", [800.0, -800.0, 0.0]),
        ("cosh", [800.0, -800.0, 0.0]),
    ],
)
def test_pointwise_edges(name, values):
    """PyTorch's values and gradients at the domain's edges and outside it (inf, nan)."""
    ours = sp.tensor(values, dtype=sp.float64, requires_grad=True)
    theirs = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    out, want = getattr(sp, name)(ours), getattr(torch, name)(theirs)
    np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), rtol=TOL)
    out.backward(sp.ones(3, dtype=sp.float64))  # (a sum of inf and nan would warn)
    want.backward(torch.ones(3, dtype=torch.float64))
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=TOL)


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_pointwise_dtypes(dtype):
    values = [0, 1, 1] if dtype == "bool" else [0, 1, 3]
    for name in ("sinh", "atan", "log1p", "expm1", "asinh"):
        out = getattr(sp, name)(sp.tensor(np.array(values, dtype=dtype)))
        want = getattr(torch, name)(torch.tensor(np.array(values, dtype=dtype)))
        assert str(out.dtype) == str(want.dtype).removeprefix("torch.")
        np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-6)


# -- scatter's forms and refusals -----------------------------------------------------------


@pytest.mark.filterwarnings("ignore:The reduce argument of torch.scatter")
def test_scatter_reduce():
    """reduce='add'/'multiply' (repeats combine), of a tensor src and of a value; no
    gradient, as in PyTorch (its backward refuses)."""
    index = [[0, 0, 1], [2, 2, 2]]
    for reduce in ("add", "multiply"):
        base = np.arange(1.0, 10.0).reshape(3, 3)
        src = np.array([[2.0, 3.0, 4.0], [5.0, 6.0, 7.0]])
        out = sp.tensor(base).scatter(1, _index(sp, index), sp.tensor(src), reduce=reduce)
        want = torch.tensor(base).scatter(1, _index(torch, index), torch.tensor(src), reduce=reduce)
        np.testing.assert_array_equal(out.numpy(), want.numpy())
        out = sp.tensor(base).scatter(0, _index(sp, index), 1.5, reduce=reduce)
        want = torch.tensor(base).scatter(0, _index(torch, index), 1.5, reduce=reduce)
        np.testing.assert_array_equal(out.numpy(), want.numpy())
    x = sp.ones(2, 2, requires_grad=True)
    y = x.scatter(0, _index(sp, [[0, 1]]), sp.ones(1, 2), reduce="add")
    with pytest.raises(RuntimeError, match="not implemented"):
        y.sum().backward()
    with pytest.raises(RuntimeError, match="add or multiply"):
        sp.ones(2).scatter(0, _index(sp, [0]), 1.0, reduce="mean")


def test_scatter_dtypes():
    """A value takes input's dtype (2.7 into int64 is 2); int32 indices work."""
    for m in (sp, torch):
        out = m.zeros(3, dtype=m.int64).scatter(0, m.tensor([0]), 2.7)
        assert out.tolist() == [2, 0, 0]
        out = m.zeros(3, dtype=m.float32).scatter_add(
            0, m.tensor([1, 1], dtype=m.int32), m.ones(2, dtype=m.float32)
        )
        assert out.tolist() == [0.0, 2.0, 0.0] and str(out.dtype).endswith("float32")


SCATTER_ERRORS = [
    lambda m: m.zeros(3, 3).scatter(0, m.tensor([[0, 5]]), m.ones(1, 2)),
    lambda m: m.zeros(3, 3).scatter(0, m.tensor([[0, -1]]), 1.0),
    lambda m: m.zeros(3, 3).scatter(0, m.tensor([[0, 1]]), m.ones(1, 2, dtype=m.float64)),
    lambda m: m.zeros(3, 3).scatter(0, m.tensor([0, 1]), m.ones(1, 2)),
    lambda m: m.zeros(3, 3).scatter(0, m.zeros(4, 4, dtype=m.int64), m.ones(4, 4)),
    lambda m: m.zeros(3, 3).scatter(1, m.zeros(2, 2, dtype=m.int64), m.ones(1, 1)),
    lambda m: m.zeros(3, 3).scatter(0, m.tensor([[0.0, 1.0]]), m.ones(1, 2)),
    lambda m: m.zeros(3, 3).scatter_add(0, m.tensor([[0, 1]]), 1.0),
    lambda m: m.zeros(3, 3).scatter_add(0, m.tensor([[0, 3]]), m.ones(1, 2)),
    lambda m: m.zeros(3, 3).scatter(2, m.tensor([[0, 1]]), m.ones(1, 2)),
]


@pytest.mark.parametrize("case", range(len(SCATTER_ERRORS)))
def test_scatter_errors(case):
    with pytest.raises(Exception) as want:
        SCATTER_ERRORS[case](torch)
    with pytest.raises(want.type):
        SCATTER_ERRORS[case](sp)


def test_scatter_src_larger_than_index_gradient():
    """Only index's corner of src is read; PyTorch's backward then refuses src's gradient
    (its shape would be index's), and so does ours; input's gradient needs no src."""
    for m in (sp, torch):
        x = m.zeros(3, 3, dtype=m.float64, requires_grad=True)
        src = m.ones(3, 3, dtype=m.float64, requires_grad=True)
        y = x.scatter(0, m.tensor([[0, 1], [2, 0]]), src)
        assert y.tolist() == [[1, 1, 0], [0, 1, 0], [1, 0, 0]]
        with pytest.raises(RuntimeError, match="invalid gradient"):
            y.sum().backward()
        x = m.zeros(3, 3, dtype=m.float64, requires_grad=True)
        x.scatter(0, m.tensor([[0, 1], [2, 0]]), src.detach()).sum().backward()
        assert x.grad.tolist() == [[0, 0, 1], [1, 0, 1], [0, 1, 1]]


# -- the other refusals ---------------------------------------------------------------------

ERRORS = [
    lambda m: m.diagonal(m.ones(3)),
    lambda m: m.diagonal(m.ones(3, 3), 0, 1, 1),
    lambda m: m.diagonal(m.ones(3, 3), 0, 0, 2),
    lambda m: m.diag(m.ones(2, 2, 2)),
    lambda m: m.diag(m.tensor(1.0)),
    lambda m: m.diag_embed(m.ones(2), 0, 0, 0),
    lambda m: m.tensor_split(m.tensor(1.0), 2),
    lambda m: m.tensor_split(m.ones(4), 0),
    lambda m: m.tensor_split(m.ones(4), 2.0),
    lambda m: m.hsplit(m.ones(3, 3), 2),
    lambda m: m.hsplit(m.tensor(1.0), 1),
    lambda m: m.vsplit(m.ones(3), 1),
    lambda m: m.vsplit(m.ones(3, 2), 2),
    lambda m: m.dsplit(m.ones(3, 2), 1),
    lambda m: m.dsplit(m.ones(3, 2, 3), 2),
    lambda m: m.hstack(m.ones(3)),
    lambda m: m.hstack([]),
    lambda m: m.vstack([m.ones(2), m.ones(3)]),
    lambda m: m.ones(3).flip(dims=0),
    lambda m: m.ones(3).flip(0, 0),
    lambda m: m.ones(6).reshape(-3, 2),
    lambda m: m.ones(6).reshape(2, -2),
    lambda m: m.ones(6).view(-1, -5),
    lambda m: m.isclose(m.ones(2), m.ones(2, dtype=m.float64)),
    lambda m: m.isclose(m.ones(2), 1.0),
    lambda m: m.isclose(m.ones(2), m.ones(2), rtol=-1),
    lambda m: m.isclose(m.ones(2), m.ones(2), atol=-1),
    lambda m: m.isclose(m.ones(2, dtype=m.int64), m.ones(2, dtype=m.int32)),
    lambda m: m.allclose(m.ones(2), m.ones(3)),
    lambda m: m.unique(m.ones(2, 2), dim=2),
    lambda m: m.unique(m.tensor(3), dim=0),
    lambda m: m.unique(m.ones(2, 2), axis=0),  # a Python-level function: no NumPy names
    lambda m: m.ones(2, 2).unique(axis=0),
    lambda m: m.ones(3) << 1,
    lambda m: m.tensor([1, 2]) << 1.5,
    lambda m: m.tensor([1.0]) >> m.tensor([1]),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors_as_pytorch(case):
    """Each misuse is an error of PyTorch's type here too."""
    with pytest.raises(Exception) as want:
        ERRORS[case](torch)
    with pytest.raises(want.type):
        ERRORS[case](sp)


def test_reshape_negative_size_message():
    with pytest.raises(RuntimeError, match=r"invalid shape dimension -3 at index 0 of shape"):
        sp.ones(6).reshape(-3, 2)


# -- value checks, unique, shifts, type_as ----------------------------------------------------

NAN, INF = float("nan"), float("inf")
CLOSE = [
    ([1.0, 2.0, 3.0], [1.0 + 1e-9, 2.0001, 3.00002], {}),
    ([1.0, NAN, INF, -INF, INF], [1.0, NAN, INF, -INF, -INF], {}),
    ([1.0, NAN, INF], [1.0, NAN, 1e30], {"equal_nan": True}),
    ([0.0, 1e-9, 1.0], [1e-10, 0.0, 1.1], {"rtol": 0.1, "atol": 0.0}),
    ([0.0, 1e-9, 1.0], [1e-10, 0.0, 1.2], {"rtol": 0.0, "atol": 0.15}),
    ([[1.0], [2.0]], [1.0, 2.0, 2.0 + 1e-6], {}),
]


@pytest.mark.parametrize("a, b, kwargs", CLOSE)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_isclose_allclose(a, b, kwargs, dtype):
    def make(m, v):
        return m.tensor(np.array(v, dtype=dtype))

    want = torch.isclose(make(torch, a), make(torch, b), **kwargs)
    out = sp.isclose(make(sp, a), make(sp, b), **kwargs)
    assert out.dtype == sp.bool and out.tolist() == want.tolist()
    assert make(sp, a).isclose(make(sp, b), **kwargs).tolist() == want.tolist()
    got = sp.allclose(make(sp, a), make(sp, b), **kwargs)
    assert type(got) is bool and got == torch.allclose(make(torch, a), make(torch, b), **kwargs)
    assert make(sp, a).allclose(make(sp, b), **kwargs) == got


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_isclose_integers(dtype):
    a, b = np.array([1, 5, 0, 9], dtype=dtype), np.array([1, 6, 0, 7], dtype=dtype)
    for kwargs in ({}, {"atol": 1}, {"rtol": 0.2, "atol": 0}):
        want = torch.isclose(torch.tensor(a), torch.tensor(b), **kwargs)
        assert sp.isclose(sp.tensor(a), sp.tensor(b), **kwargs).tolist() == want.tolist()


UNIQUE = [
    ([3, 1, 2, 3, 1, 5], None),
    ([[2.0, 1.0], [1.0, NAN], [NAN, 2.0]], None),
    ([[1, 2], [1, 2], [0, 5], [1, 2]], 0),
    ([[1, 2, 1], [3, 0, 3]], 1),
    ([[[1, 1], [2, 2]], [[1, 1], [0, 2]]], -1),
    ([], None),
    (7, None),
]


@pytest.mark.parametrize("values, dim", UNIQUE)
def test_unique(values, dim):
    for inverse in (False, True):
        for counts in (False, True):
            kwargs = {"return_inverse": inverse, "return_counts": counts, "dim": dim}
            want = torch.unique(torch.tensor(values), **kwargs)
            out = sp.unique(sp.tensor(values), **kwargs)
            method = sp.tensor(values).unique(**kwargs)
            wants = want if isinstance(want, tuple) else (want,)
            outs = out if isinstance(out, tuple) else (out,)
            methods = method if isinstance(method, tuple) else (method,)
            assert len(outs) == len(wants) == len(methods)
            for o, mo, w in zip(outs, methods, wants):
                assert o.shape == tuple(w.shape) and str(o.dtype) == str(w.dtype)[6:]
                np.testing.assert_array_equal(o.numpy(), w.numpy())
                np.testing.assert_array_equal(mo.numpy(), w.numpy())


def _typed(m, values, dtype):
    return m.tensor(np.array(values, dtype=dtype))


SHIFTS = [
    (lambda m: m.tensor([1, 2, -8], dtype=m.int32) << 2),
    (lambda m: m.tensor([1, 2, -8], dtype=m.int32) >> 1),
    (lambda m: m.tensor([1, 2, -8]) << m.tensor([0, 3, 60])),
    (lambda m: m.tensor([1, 2, -8]) >> m.tensor([0, 63, 64])),
    (lambda m: m.tensor([1, -2]) >> 70),
    (lambda m: m.tensor([1, -2]) << 64),
    (lambda m: _typed(m, [1, 200], "uint8") << 1),
    (lambda m: _typed(m, [1, 200], "uint8") >> 9),
    (lambda m: _typed(m, [1, 200], "uint8") << _typed(m, [1, 2], "uint8")),
    (lambda m: m.tensor([True, False]) << 1),
    (lambda m: 1 << m.tensor([0, 3, 5])),
    (lambda m: 256 >> m.tensor([0, 3, 5], dtype=m.int32)),
    (lambda m: m.bitwise_left_shift(_typed(m, [[1], [2]], "int16"), m.tensor([1, 14]))),
    (lambda m: m.bitwise_right_shift(_typed(m, [-100, 100], "int8"), 3)),
    (lambda m: m.tensor([3, 4]).bitwise_left_shift(1)),
    (lambda m: m.tensor([3, 4]).bitwise_right_shift(m.tensor([1, 2]))),
]


@pytest.mark.parametrize("case", range(len(SHIFTS)))
def test_shifts(case):
    out, want = SHIFTS[case](sp), SHIFTS[case](torch)
    assert out.shape == tuple(want.shape) and str(out.dtype) == str(want.dtype)[6:]
    np.testing.assert_array_equal(out.numpy(), want.numpy())


def test_not_equal_type_as_is_cuda():
    a = [1.0, 2.0, 3.0]
    for m in (sp, torch):
        assert m.not_equal(m.tensor(a), 2.0).tolist() == [True, False, True]
        assert m.tensor(a).not_equal(m.tensor([1.0, 0.0, 3.0])).tolist() == [False, True, False]
        out = m.tensor([1.7, -2.2]).type_as(m.tensor([1], dtype=m.int32))
        assert out.tolist() == [1, -2] and str(out.dtype).endswith("int32")
        x = m.tensor([1, 2])
        out = x.type_as(m.tensor([1.0], dtype=m.float64))
        assert str(out.dtype).endswith("float64")
        assert x.type_as(m.tensor([5])) is x
        assert m.ones(2).is_cuda is False
    x = sp.tensor([1.0, 2.0], dtype=sp.float64, requires_grad=True)
    x.type_as(sp.ones(1, dtype=sp.float32)).sum().backward()  # a recorded cast
    assert x.grad.tolist() == [1.0, 1.0] and x.grad.dtype == sp.float64

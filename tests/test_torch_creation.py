"""PyTorch as an oracle for the factories, the random draws' signatures, dtypes and errors,
and the small Tensor methods (issue 27, item 2): ``linspace``, ``empty``/``empty_like``,
``full_like`` and ``dtype=``/``device=``/``requires_grad=`` on the ``*_like`` factories;
``randint``, ``normal``, ``multinomial``, ``randperm`` (their values cannot be PyTorch's:
another generator; ``tests/test_creation.py`` checks their statistics); ``nelement``,
``type``, ``t``, ``mT``, ``clone``, ``view_as``, ``expand_as``, unary ``+``, ``__index__``,
the comparisons by name and ``equal``. Values and the gradient of every input agree in
float64 to 1e-10. Skipped, visibly, without PyTorch."""

from __future__ import annotations

import math

import numpy as np
import pytest

from solutions import ch07_device as sp

torch = pytest.importorskip("torch")

TOL = 1e-10

DTYPES = [
    (sp.float32, torch.float32),
    (sp.float64, torch.float64),
    (sp.float16, torch.float16),
    (sp.int32, torch.int32),
    (sp.int64, torch.int64),
    (sp.bool_, torch.bool),
]
OURS = {str(t).removeprefix("torch."): s for s, t in DTYPES}


def _same_dtype(ours, theirs) -> None:
    assert str(ours.dtype) == str(theirs.dtype).removeprefix("torch.")


def _dt(m, name: str):
    """The dtype called ``name`` in module ``m`` (``sp`` or ``torch``)."""
    return getattr(torch, name) if m is torch else np.dtype(name)


def _raises_alike(ours, theirs) -> type:
    """Both calls raise, the same type of exception; returns it."""
    with pytest.raises(Exception) as want:
        theirs()
    with pytest.raises(want.type):
        ours()
    return want.type


def _check(fn, shapes: list, seed: int = 0) -> None:
    """``fn(module, *leaves)`` with ``sp`` and ``torch``: equal values, dtype, and gradient of
    every leaf (float64) for one random upstream gradient."""
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(-2, 2, s) for s in shapes]
    ours = [sp.tensor(a, dtype=sp.float64, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    out, want = fn(sp, *ours), fn(torch, *theirs)
    assert out.shape == tuple(want.shape)
    np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), rtol=TOL, atol=TOL)
    _same_dtype(out, want)
    g = rng.uniform(-1, 1, tuple(want.shape))
    out.backward(sp.tensor(g, dtype=sp.float64))
    want.backward(torch.tensor(g, dtype=torch.float64))
    for x, t in zip(ours, theirs):
        expected = np.zeros(t.shape) if t.grad is None else t.grad.numpy()
        got = np.zeros(x.shape) if x.grad is None else x.grad.numpy()
        np.testing.assert_allclose(got, expected, rtol=TOL, atol=TOL)


# -- linspace ---------------------------------------------------------------------------------

LINSPACE = [
    (0, 1, 5),
    (0.0, 1.0, 2),
    (-3, 7, 11),
    (2, 3, 1),
    (2, 3, 0),
    (5, -5, 7),
    (-math.pi, math.pi, 2000),
    (0.1, 0.7, 13),
    (1e-3, 1e3, 50),
    (-65.06801564685406, -97.26326294469688, 47),
]


@pytest.mark.parametrize("start, end, steps", LINSPACE)
@pytest.mark.parametrize("dtype", [None, "float64", "float32"])
def test_linspace_agrees_with_pytorch(start, end, steps, dtype) -> None:
    kw = {} if dtype is None else {"dtype": OURS[dtype]}
    tkw = {} if dtype is None else {"dtype": getattr(torch, dtype)}
    ours, theirs = sp.linspace(start, end, steps, **kw), torch.linspace(start, end, steps, **tkw)
    assert ours.shape == tuple(theirs.shape)
    _same_dtype(ours, theirs)
    # PyTorch's vectorised loop rounds some middle values by an ulp or two differently
    rtol = TOL if dtype == "float64" else 4 * np.finfo(np.float32).eps
    scale = max(abs(start), abs(end), 1.0)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=0, atol=rtol * scale)
    if steps:  # both ends exact
        assert ours.numpy()[0] == theirs.numpy()[0] and ours.numpy()[-1] == theirs.numpy()[-1]


@pytest.mark.parametrize(
    "start, end, steps", [(0, 10, 5), (0, 10, 11), (-3, 7, 6), (0.5, 9.7, 4), (10, 0, 3)]
)
@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_integer_linspace_agrees_with_pytorch(start, end, steps, dtype) -> None:
    ours = sp.linspace(start, end, steps, dtype=OURS[dtype])
    theirs = torch.linspace(start, end, steps, dtype=getattr(torch, dtype))
    _same_dtype(ours, theirs)
    assert ours.tolist() == theirs.tolist()


def test_linspace_arguments_as_pytorchs() -> None:
    ours = sp.linspace(sp.tensor(0.0), sp.tensor(2.0), 3, requires_grad=True)
    theirs = torch.linspace(torch.tensor(0.0), torch.tensor(2.0), 3, requires_grad=True)
    assert ours.requires_grad and theirs.requires_grad and ours.is_leaf
    assert ours.tolist() == theirs.tolist()
    sp.set_default_dtype(sp.float64)
    try:
        assert sp.linspace(0, 1, 3).dtype == sp.float64
    finally:
        sp.set_default_dtype(sp.float32)
    _raises_alike(lambda: sp.linspace(0, 1, -1), lambda: torch.linspace(0, 1, -1))
    _raises_alike(lambda: sp.linspace(0, 1, 2.0), lambda: torch.linspace(0, 1, 2.0))
    _raises_alike(
        lambda: sp.linspace(0, 1, 3, dtype=sp.bool_),
        lambda: torch.linspace(0, 1, 3, dtype=torch.bool),
    )


# -- empty, full_like and the *_like factories ----------------------------------------------


def test_empty_has_pytorchs_shape_and_dtype() -> None:
    for args, kw, tkw in [
        ((2, 3), {}, {}),
        (((4,),), {"dtype": sp.int64}, {"dtype": torch.int64}),
        ((0, 2), {"dtype": sp.float64}, {"dtype": torch.float64}),
    ]:
        ours, theirs = sp.empty(*args, **kw), torch.empty(*args, **tkw)
        assert ours.shape == tuple(theirs.shape)
        _same_dtype(ours, theirs)
        assert np.all(ours.numpy() == 0)  # ours are zeros (PyTorch's: whatever was there)
    assert sp.empty(2, requires_grad=True).requires_grad


LIKE = ["zeros_like", "ones_like", "empty_like", "rand_like", "randn_like"]


@pytest.mark.parametrize("name", LIKE)
@pytest.mark.parametrize("source", ["float32", "float64", "int64"])
@pytest.mark.parametrize("dtype", [None, "float64", "float16", "int32"])
def test_like_factories_take_dtype_as_pytorchs(name, source, dtype) -> None:
    x, tx = sp.zeros(2, 3, dtype=OURS[source]), torch.zeros(2, 3, dtype=getattr(torch, source))
    kw = {} if dtype is None else {"dtype": OURS[dtype]}
    tkw = {} if dtype is None else {"dtype": getattr(torch, dtype)}
    try:
        theirs = getattr(torch, name)(tx, **tkw)
    except Exception as error:  # rand_like of an integer dtype: PyTorch refuses
        with pytest.raises(type(error)):
            getattr(sp, name)(x, **kw)
        return
    ours = getattr(sp, name)(x, **kw)
    assert ours.shape == tuple(theirs.shape)
    _same_dtype(ours, theirs)
    assert ours.device == sp.device("cpu") and not ours.requires_grad
    if name in ("zeros_like", "ones_like"):
        assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("name", LIKE)
def test_like_factories_take_requires_grad_and_device(name) -> None:
    x = sp.ones(3, dtype=sp.float64)
    ours = getattr(sp, name)(x, requires_grad=True, device="cpu")
    theirs = getattr(torch, name)(torch.ones(3, dtype=torch.float64), requires_grad=True)
    assert ours.requires_grad and theirs.requires_grad and ours.is_leaf
    _same_dtype(ours, theirs)
    _raises_alike(
        lambda: getattr(sp, name)(sp.ones(3), dtype=sp.int64, requires_grad=True),
        lambda: getattr(torch, name)(torch.ones(3), dtype=torch.int64, requires_grad=True),
    )


@pytest.mark.parametrize(
    "source, fill, dtype",
    [
        ("float32", 2.7, None),
        ("int64", 2.7, None),
        ("int64", -3, None),
        ("float32", 2.7, "float64"),
        ("float64", 5, "int32"),
        ("bool", 1, None),
        ("float32", True, None),
    ],
)
def test_full_like_agrees_with_pytorch(source, fill, dtype) -> None:
    x, tx = sp.zeros(2, 2, dtype=OURS[source]), torch.zeros(2, 2, dtype=getattr(torch, source))
    kw = {} if dtype is None else {"dtype": OURS[dtype]}
    tkw = {} if dtype is None else {"dtype": getattr(torch, dtype)}
    ours, theirs = sp.full_like(x, fill, **kw), torch.full_like(tx, fill, **tkw)
    _same_dtype(ours, theirs)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


# -- random draws: signatures, dtypes, shapes, errors ----------------------------------------


@pytest.mark.parametrize(
    "args, kw",
    [
        ((5, (2, 3)), {}),
        ((3, 10, (4,)), {}),
        ((-3, -1, [2, 2]), {}),
        ((), {"high": 5, "size": (3,)}),
        ((2,), {"high": 4, "size": (3,)}),
        ((), {"low": 1, "high": 4, "size": (2, 1)}),
        ((5, (2,)), {"dtype": "float32"}),
        ((5, (0,)), {}),
        ((0, 2**40, (3,)), {}),
    ],
)
def test_randint_has_pytorchs_dtype_and_shape(args, kw) -> None:
    tkw = dict(kw)
    if "dtype" in kw:
        kw, tkw = {**kw, "dtype": OURS[kw["dtype"]]}, {**kw, "dtype": getattr(torch, kw["dtype"])}
    ours, theirs = sp.randint(*args, **kw), torch.randint(*args, **tkw)
    assert ours.shape == tuple(theirs.shape)
    _same_dtype(ours, theirs)
    low = kw.get("low", args[0] if len(args) == 3 else 0)
    high = kw.get("high", args[1] if len(args) == 3 else args[0] if args else None)
    values = ours.numpy()
    assert np.all((values >= low) & (values < high)) and np.all(values == np.floor(values))


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.randint(5, 5, (2,)),
        lambda m: m.randint(5, 2, (2,)),
        lambda m: m.randint(5, 2),
        lambda m: m.randint(5.5, (2,)),
        lambda m: m.randint(0, 300, (2,), dtype=_dt(m, "uint8")),
        lambda m: m.randint(5, (2,), dtype=_dt(m, "bool")),
        lambda m: m.randint(5, (2,), requires_grad=True),
    ],
)
def test_randint_raises_where_pytorch_does(call) -> None:
    _raises_alike(lambda: call(sp), lambda: call(torch))


def test_randint_of_a_floating_dtype_can_require_grad_as_in_pytorch() -> None:
    ours = sp.randint(0, 5, (2,), dtype=sp.float32, requires_grad=True)
    theirs = torch.randint(0, 5, (2,), dtype=torch.float32, requires_grad=True)
    assert ours.requires_grad and theirs.requires_grad
    _same_dtype(ours, theirs)


@pytest.mark.parametrize(
    "make",
    [
        lambda m, T: m.normal(0.0, 1.0, (2, 3)),
        lambda m, T: m.normal(2.0, 3.0, (4,), dtype=T["float64"]),
        lambda m, T: m.normal(mean=0.0, std=1.0, size=(2,)),
        lambda m, T: m.normal(m.zeros(3), 1.0),
        lambda m, T: m.normal(0.0, m.ones(2, 3, dtype=T["float64"])),
        lambda m, T: m.normal(m.zeros(3, dtype=T["float64"]), m.ones(3)),
        lambda m, T: m.normal(m.zeros(3), m.ones(2, 3)),
        lambda m, T: m.normal(m.zeros(2, 1), m.ones(3)),
    ],
)
def test_normal_has_pytorchs_dtype_and_shape(make) -> None:
    T = {"float64": torch.float64}
    ours, theirs = make(sp, {"float64": sp.float64}), make(torch, T)
    assert ours.shape == tuple(theirs.shape)
    _same_dtype(ours, theirs)


def test_normals_gradient_is_pytorchs_zero() -> None:
    """A draw is not differentiated: the gradients of mean and std are 0 (not nan, not
    None), as in PyTorch."""
    got, want = [], []
    for m, out in ((sp, got), (torch, want)):
        dt = m.float64
        mean = m.tensor([0.5, -1.0, 2.0], dtype=dt, requires_grad=True)
        std = m.tensor([1.0, 0.0, 3.0], dtype=dt, requires_grad=True)
        y = m.normal(mean, std)
        assert y.requires_grad
        (y * m.tensor([1.0, 2.0, 3.0], dtype=dt)).sum().backward()
        out += [mean.grad.numpy().copy(), std.grad.numpy().copy()]
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    y = sp.normal(sp.tensor([1.0, 2.0]), sp.tensor([0.0, 0.0]))  # std 0: the means exactly
    assert y.tolist() == [1.0, 2.0]


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.normal(0.0, 1.0),
        lambda m: m.normal(0.0, -1.0, (2,)),
        lambda m: m.normal(m.zeros(3), -1.0),
        lambda m: m.normal(m.zeros(3), m.tensor([1.0, -1.0, 1.0])),
        lambda m: m.normal(m.tensor([1, 2]), 1.0),
        lambda m: m.normal(m.zeros(3), m.ones(4)),
    ],
)
def test_normal_raises_where_pytorch_does(call) -> None:
    _raises_alike(lambda: call(sp), lambda: call(torch))


@pytest.mark.parametrize(
    "weights, n, replacement",
    [
        ([1.0, 2.0, 3.0], 2, False),
        ([1.0, 2.0, 3.0], 3, False),
        ([1.0, 2.0], 5, True),
        ([[1.0, 2.0], [3.0, 4.0]], 3, True),
        ([[1.0, 0.0, 2.0], [0.0, 0.0, 4.0]], 2, False),
        (np.ones((0, 3)), 1, True),
    ],
)
def test_multinomial_has_pytorchs_dtype_and_shape(weights, n, replacement) -> None:
    for dtype in ("float32", "float64"):
        ours = sp.multinomial(sp.tensor(np.asarray(weights), dtype=OURS[dtype]), n, replacement)
        theirs = torch.multinomial(
            torch.tensor(np.asarray(weights), dtype=getattr(torch, dtype)), n, replacement
        )
        assert ours.shape == tuple(theirs.shape)
        _same_dtype(ours, theirs)
        method = sp.tensor(np.asarray(weights)).multinomial(n, replacement=replacement)
        assert method.shape == ours.shape and method.dtype == ours.dtype


def test_multinomial_where_the_answer_is_certain_agrees_with_pytorch() -> None:
    for replacement in (False, True):
        n = 3 if replacement else 1
        for m in (sp, torch):
            w = m.tensor([[0.0, 0.0, 5.0, 0.0], [7.0, 0.0, 0.0, 0.0]])
            assert m.multinomial(w, n, replacement).tolist() == [[2] * n, [0] * n]
    # without replacement, more samples than positive weights: the positive ones first
    for m in (sp, torch):
        assert sorted(m.multinomial(m.tensor([1.0, 0.0, 3.0, 0.0]), 2).tolist()) == [0, 2]
        assert m.multinomial(m.tensor([1.0, 0.0]), 2).tolist() == [0, 1]


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.multinomial(m.tensor([0.0, 0.0]), 1),
        lambda m: m.multinomial(m.tensor([[1.0, 1.0], [0.0, 0.0]]), 1),
        lambda m: m.multinomial(m.tensor([1.0, 1.0]), 3),
        lambda m: m.multinomial(m.tensor([1.0, -1.0]), 1),
        lambda m: m.multinomial(m.tensor([1.0, float("nan")]), 1),
        lambda m: m.multinomial(m.tensor([1.0, float("inf")]), 1, True),
        lambda m: m.multinomial(m.tensor([1.0, 2.0]), 0),
        lambda m: m.multinomial(m.tensor([1.0, 2.0]), -1, True),
        lambda m: m.multinomial(m.tensor(1.0), 1),
        lambda m: m.multinomial(m.ones(2, 2, 2), 1),
        lambda m: m.multinomial(m.tensor([1, 2]), 1),
        lambda m: m.tensor([0.0, 0.0]).multinomial(1),
    ],
)
def test_multinomial_raises_where_pytorch_does(call) -> None:
    assert _raises_alike(lambda: call(sp), lambda: call(torch)) is RuntimeError


def test_randperm_has_pytorchs_dtype() -> None:
    for kw, tkw in [({}, {}), ({"dtype": sp.int32}, {"dtype": torch.int32})]:
        ours, theirs = sp.randperm(6, **kw), torch.randperm(6, **tkw)
        _same_dtype(ours, theirs)
        assert sorted(ours.tolist()) == sorted(theirs.tolist()) == list(range(6))
    _raises_alike(lambda: sp.randperm(-1), lambda: torch.randperm(-1))


@pytest.mark.parametrize("name", ["randn", "rand"])
def test_randn_and_rand_take_generator_and_dtype_as_pytorchs(name) -> None:
    ours = getattr(sp, name)(2, 3, generator=sp.Generator().manual_seed(0), dtype=sp.float64)
    theirs = getattr(torch, name)(
        2, 3, generator=torch.Generator().manual_seed(0), dtype=torch.float64
    )
    assert ours.shape == tuple(theirs.shape)
    _same_dtype(ours, theirs)
    _raises_alike(
        lambda: getattr(sp, name)(2, dtype=sp.int64),
        lambda: getattr(torch, name)(2, dtype=torch.int64),
    )


# -- the small Tensor methods ----------------------------------------------------------------

METHODS = {
    "t 2-d": (lambda m, x: x.t(), [(2, 3)]),
    "t 1-d": (lambda m, x: x.t(), [(4,)]),
    "t 0-d": (lambda m, x: x.t() * 3, [()]),
    "torch.t": (lambda m, x: m.t(x), [(3, 2)]),
    "mT": (lambda m, x: x.mT, [(2, 3, 4)]),
    "mT 2-d": (lambda m, x: x.mT * x.mT, [(3, 4)]),
    "clone": (lambda m, x: x.clone() * x, [(2, 3)]),
    "torch.clone": (lambda m, x: m.clone(x).exp(), [(3,)]),
    "view_as": (lambda m, x, y: x.view_as(y) * y, [(2, 3), (6,)]),
    "expand_as": (lambda m, x, y: x.expand_as(y) * y, [(1, 3), (4, 3)]),
    "expand_as new axes": (lambda m, x, y: x.expand_as(y) + y, [(3,), (2, 4, 3)]),
    "unary +": (lambda m, x: +x * 2, [(2, 2)]),
    "type cast": (lambda m, x: x.type(m.float32).type(m.float64) * x, [(3,)]),
    "type string": (lambda m, x: x.type("torch.FloatTensor").double() + x, [(2,)]),
}


@pytest.mark.parametrize("name", METHODS)
def test_small_methods_agree_with_pytorch(name) -> None:
    fn, shapes = METHODS[name]
    _check(fn, shapes)


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.ones(2, 3, 4).t(),
        lambda m: m.ones(3).mT,
        lambda m: m.ones(2, 3).view_as(m.ones(5)),
        lambda m: m.ones(2, 3).expand_as(m.ones(4, 3)),
        lambda m: +m.tensor([True, False]),
        lambda m: m.ones(2).type("Float"),
        lambda m: m.ones(2).type(float),
    ],
)
def test_small_methods_raise_where_pytorch_does(call) -> None:
    _raises_alike(lambda: call(sp), lambda: call(torch))


def test_nelement_and_unary_plus_as_pytorchs() -> None:
    for m in (sp, torch):
        x = m.ones(2, 3, 4)
        assert x.nelement() == x.numel() == 24 and m.ones(()).nelement() == 1
        assert +x is x  # PyTorch's + returns the tensor itself


@pytest.mark.parametrize("dtype", [s for s, _ in DTYPES] + [np.dtype(np.uint8), np.dtype(np.int8)])
def test_type_names_are_pytorchs(dtype) -> None:
    theirs = torch.from_numpy(np.zeros(2, dtype=dtype))
    ours = sp.tensor(np.zeros(2, dtype=dtype))
    assert ours.type() == theirs.type()
    again = sp.zeros(2, dtype=sp.float64).type(ours.type())  # the name casts back to it
    assert again.dtype == ours.dtype and again.type() == theirs.type()
    assert ours.type(dtype) is ours and theirs.type(theirs.dtype) is theirs  # nothing to do


@pytest.mark.parametrize(
    "data, dtype",
    [(2, "int64"), ([1], "int64"), ([[2]], "int32"), (True, "bool"), (1, "uint8")],
)
def test_a_one_element_integer_tensor_is_an_index_as_in_pytorch(data, dtype) -> None:
    classes = ["zero", "one", "two", "three"]
    ours = sp.tensor(np.asarray(data, dtype=dtype))
    theirs = torch.tensor(np.asarray(data, dtype=dtype))
    assert classes[ours] == classes[theirs]
    assert range(10)[ours] == range(10)[theirs]
    logits = sp.tensor([[0.1, 2.0, 0.3]])
    assert classes[logits[0].argmax(0)] == "one"  # the Quickstart's idiom


@pytest.mark.parametrize("data", [1.0, [1, 2], [], [[1.0]]])
def test_other_tensors_are_not_an_index_as_in_pytorch(data) -> None:
    classes = ["zero", "one", "two"]
    dtype = "float32" if isinstance(data, float) or data == [[1.0]] else "int64"
    x = np.asarray(data, dtype=dtype)
    _raises_alike(lambda: classes[sp.tensor(x)], lambda: classes[torch.tensor(x)])


COMPARISONS = ["eq", "ne", "lt", "le", "gt", "ge"]


@pytest.mark.parametrize("name", COMPARISONS)
@pytest.mark.parametrize(
    "a, b",
    [
        ([1.0, 2.0, 3.0], [3.0, 2.0, 1.0]),
        ([[1, 2, 3]], [[2], [1]]),
        ([1.5, 2.0, 2.5], 2),
        ([1, 2, 3], 2.5),
        ([True, False], [False, False]),
        ([1, 2, 3], [1.0, 2.5, 3.0]),
    ],
)
def test_comparisons_by_name_agree_with_pytorch(name, a, b) -> None:
    def run(m):
        x = m.tensor(a)
        y = m.tensor(b) if isinstance(b, list) else b
        return getattr(m, name)(x, y), getattr(x, name)(y)

    for ours, theirs in zip(run(sp), run(torch)):
        _same_dtype(ours, theirs)
        assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("name", COMPARISONS)
def test_comparisons_raise_where_pytorch_does(name) -> None:
    _raises_alike(
        lambda: getattr(sp, name)(sp.ones(2), sp.ones(3)),
        lambda: getattr(torch, name)(torch.ones(2), torch.ones(3)),
    )
    _raises_alike(
        lambda: getattr(sp, name)(1, sp.ones(2)), lambda: getattr(torch, name)(1, torch.ones(2))
    )


@pytest.mark.parametrize(
    "a, b",
    [
        ([1.0, 2.0], [1.0, 2.0]),
        ([1.0, 2.0], [1.0, 2.5]),
        ([1.0, 2.0], [1.0, 2.0, 3.0]),
        ([[1.0, 2.0]], [1.0, 2.0]),
        ([1, 2], [1.0, 2.0]),
        ([1.0, float("nan")], [1.0, float("nan")]),
        ([], []),
    ],
)
def test_equal_agrees_with_pytorch(a, b) -> None:
    want = torch.equal(torch.tensor(a), torch.tensor(b))
    got = sp.equal(sp.tensor(a), sp.tensor(b))
    assert got is want
    assert sp.tensor(a).equal(sp.tensor(b)) is torch.tensor(a).equal(torch.tensor(b))


def test_equal_raises_where_pytorch_does() -> None:
    _raises_alike(lambda: sp.equal(sp.ones(2), 1), lambda: torch.equal(torch.ones(2), 1))

"""Chapter 7's scatter, diagonals, stacking/splitting, more pointwise math and value checks
without PyTorch: values and gradients against NumPy written here, error types, result
dtypes, and every op on the simulated device giving the CPU's values and gradients.
(Against PyTorch: tests/test_torch_ops_more.py.)"""

from __future__ import annotations

import numpy as np
import pytest

from solutions import ch07_device as sp


def _leaf(array) -> sp.Tensor:
    return sp.tensor(np.asarray(array, dtype=np.float64), requires_grad=True)


# -- scatter, scatter_add against NumPy loops -------------------------------------------------


def test_scatter_against_loops() -> None:
    rng = np.random.default_rng(0)
    base, src = rng.normal(size=(4, 3)), rng.normal(size=(3, 3))
    index = np.array([[3, 0, 1], [1, 2, 0], [0, 1, 3]])  # along dim 0, no position twice
    want = base.copy()
    for i in range(3):
        for j in range(3):
            want[index[i, j], j] = src[i, j]
    x, s = _leaf(base), _leaf(src)
    out = x.scatter(0, sp.tensor(index), s)
    np.testing.assert_array_equal(out.detach().numpy(), want)
    g = rng.normal(size=(4, 3))
    out.backward(sp.tensor(g))
    written = np.zeros((4, 3), dtype=bool)
    for i in range(3):
        for j in range(3):
            written[index[i, j], j] = True
    np.testing.assert_array_equal(x.grad.numpy(), np.where(written, 0.0, g))
    np.testing.assert_array_equal(s.grad.numpy(), np.take_along_axis(g, index, 0))


def test_scatter_add_against_loops() -> None:
    rng = np.random.default_rng(1)
    base, src = rng.normal(size=(2, 5)), rng.normal(size=(2, 4))
    index = np.array([[0, 0, 4, 0], [1, 3, 3, 3]])  # repeats along dim 1 add up
    want = base.copy()
    for i in range(2):
        for j in range(4):
            want[i, index[i, j]] += src[i, j]
    x, s = _leaf(base), _leaf(src)
    out = sp.ops.scatter_add(x, 1, sp.tensor(index), s)
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-15)
    g = rng.normal(size=(2, 5))
    out.backward(sp.tensor(g))
    np.testing.assert_array_equal(x.grad.numpy(), g)
    np.testing.assert_array_equal(s.grad.numpy(), np.take_along_axis(g, index, 1))


def test_scatter_value_and_dtypes() -> None:
    x = sp.zeros(2, 3, dtype=sp.int64)
    out = x.scatter(1, sp.tensor([[2], [0]]), 7.9)
    assert out.dtype == sp.int64 and out.tolist() == [[0, 0, 7], [7, 0, 0]]
    assert x.tolist() == [[0, 0, 0], [0, 0, 0]]  # out of place
    out = sp.scatter(sp.ones(3, dtype=sp.float32), 0, sp.tensor([1]), value=-1)
    assert out.dtype == sp.float32 and out.tolist() == [1.0, -1.0, 1.0]
    out = sp.ones(2, 2).scatter(0, sp.tensor([[1, 1]]), 3.0, reduce="multiply")
    assert out.tolist() == [[1.0, 1.0], [3.0, 3.0]]
    out = sp.ones(2, 2).scatter(1, sp.tensor([[0, 0]]), sp.tensor([[2.0, 5.0]]), reduce="add")
    assert out.tolist() == [[8.0, 1.0], [1.0, 1.0]]


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: sp.zeros(3).scatter(0, sp.tensor([3]), 1.0), RuntimeError),
        (lambda: sp.zeros(3).scatter(0, sp.tensor([0.0]), 1.0), RuntimeError),
        (
            lambda: sp.zeros(3).scatter(0, sp.tensor([0]), sp.ones(1, dtype=sp.float64)),
            RuntimeError,
        ),
        (lambda: sp.zeros(3, 3).scatter(0, sp.tensor([0]), sp.ones(1)), RuntimeError),
        (lambda: sp.zeros(3).scatter(0, sp.tensor([0])), TypeError),
        (lambda: sp.zeros(3).scatter(0, sp.tensor([0]), "a"), TypeError),
        (lambda: sp.zeros(3).scatter(0, sp.tensor([0]), 1.0, reduce="max"), RuntimeError),
        (lambda: sp.zeros(3).scatter_add(0, sp.tensor([0]), 1.0), TypeError),
        (lambda: sp.zeros(3).scatter_add(1, sp.tensor([0]), sp.ones(1)), IndexError),
        (
            lambda: sp.zeros(2, 2).scatter_add(0, sp.tensor([[0, 0, 0]]), sp.ones(1, 3)),
            RuntimeError,
        ),
    ],
)
def test_scatter_errors(call, error) -> None:
    with pytest.raises(error):
        call()


# -- diagonals ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shape, offset, dim1, dim2",
    [
        ((3, 4), 0, 0, 1),
        ((3, 4), 2, 0, 1),
        ((4, 3), -1, 0, 1),
        ((2, 3, 4), 1, 2, 0),
        ((3, 3), 7, 0, 1),
    ],
)
def test_diagonal_against_numpy(shape, offset, dim1, dim2) -> None:
    a = np.random.default_rng(2).normal(size=shape)
    x = _leaf(a)
    out = x.diagonal(offset, dim1, dim2)
    want = np.diagonal(a, offset, dim1, dim2)
    np.testing.assert_array_equal(out.detach().numpy(), want)
    g = np.random.default_rng(3).normal(size=want.shape)
    out.backward(sp.tensor(g))
    # the gradient: g on that diagonal of zeros (NumPy's diagonal is a view into it)
    expected = np.zeros(shape)
    view = np.diagonal(expected, offset, dim1, dim2)
    view.setflags(write=True)
    view[...] = g
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_diag_against_numpy() -> None:
    v = np.array([1.0, -2.0, 3.0])
    for k in (0, 1, -2):
        x = _leaf(v)
        out = sp.diag(x, k)
        np.testing.assert_array_equal(out.detach().numpy(), np.diag(v, k))
        g = np.arange(out.numel(), dtype=np.float64).reshape(out.shape)
        out.backward(sp.tensor(g))
        np.testing.assert_array_equal(x.grad.numpy(), np.diag(g, k))
    m = np.arange(12.0).reshape(3, 4)
    for k in (0, 1, -1):
        np.testing.assert_array_equal(sp.tensor(m).diag(k).numpy(), np.diag(m, k))
    np.testing.assert_array_equal(
        sp.diagflat(sp.tensor([[1, 2], [3, 4]])).numpy(), np.diagflat([1, 2, 3, 4])
    )
    assert sp.diag(sp.tensor([1, 2])).dtype == sp.int64


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: sp.diag(sp.ones(2, 2, 2)), RuntimeError),
        (lambda: sp.diag(sp.tensor(1.0)), RuntimeError),
        (lambda: sp.diagonal(sp.ones(3)), IndexError),
        (lambda: sp.diagonal(sp.ones(3, 3), 0, 1, -1), RuntimeError),
        (lambda: sp.diagonal(sp.ones(3, 3), 1.0), TypeError),
        (lambda: sp.diag([1, 2]), TypeError),
    ],
)
def test_diagonal_errors(call, error) -> None:
    with pytest.raises(error):
        call()


# -- splitting and stacking -----------------------------------------------------------------


def test_splits_against_numpy() -> None:
    a = np.arange(2 * 6 * 4, dtype=np.float64).reshape(2, 6, 4)
    x = sp.tensor(a)
    for got, want in [
        (sp.tensor_split(x, 4, dim=1), np.array_split(a, 4, axis=1)),
        (x.tensor_split([1, 5], dim=1), np.split(a, [1, 5], axis=1)),
        (sp.hsplit(x, 3), np.hsplit(a, 3)),
        (x.vsplit([1]), np.vsplit(a, [1])),
        (sp.dsplit(x, [1, 3]), np.dsplit(a, [1, 3])),
    ]:
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.numpy(), w)


def test_stacks_against_numpy() -> None:
    a, b = np.arange(3.0), np.arange(3.0, 6.0)
    m = np.arange(6.0).reshape(3, 2)
    for got, want in [
        (sp.hstack([sp.tensor(a), sp.tensor(b)]), np.hstack([a, b])),
        (sp.vstack([sp.tensor(a), sp.tensor(b)]), np.vstack([a, b])),
        (sp.row_stack([sp.tensor(a), sp.tensor(b)]), np.vstack([a, b])),
        (sp.dstack([sp.tensor(a), sp.tensor(b)]), np.dstack([a, b])),
        (sp.dstack([sp.tensor(m), sp.tensor(m)]), np.dstack([m, m])),
        (sp.column_stack([sp.tensor(a), sp.tensor(m)]), np.column_stack([a, m])),
        (sp.hstack([sp.tensor(m), sp.tensor(m)]), np.hstack([m, m])),
    ]:
        assert got.shape == want.shape
        np.testing.assert_array_equal(got.numpy(), want)


def test_split_pieces_gradient() -> None:
    """Each piece's gradient goes back to its place; an unused piece gives zeros."""
    x = _leaf(np.arange(7.0))
    first, _, third = sp.tensor_split(x, 3)
    (first * 2 + 0).sum().backward(retain_graph=True)
    (third * 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2, 2, 2, 0, 0, 3, 3])
    y, z = _leaf([1.0, 2.0]), _leaf([[3.0], [4.0]])
    (sp.vstack([y, z.reshape(1, 2)]) * sp.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    assert y.grad.tolist() == [1.0, 2.0] and z.grad.tolist() == [[3.0], [4.0]]


# -- the pointwise functions against NumPy --------------------------------------------------

DERIVATIVES = {
    "sinh": (np.sinh, np.cosh),
    "cosh": (np.cosh, np.sinh),
    "asin": (np.arcsin, lambda a: 1 / np.sqrt(1 - a * a)),
    "acos": (np.arccos, lambda a: -1 / np.sqrt(1 - a * a)),
    "atan": (np.arctan, lambda a: 1 / (1 + a * a)),
    "asinh": (np.arcsinh, lambda a: 1 / np.sqrt(1 + a * a)),
    "acosh": (np.arccosh, lambda a: 1 / np.sqrt(a * a - 1)),
    "atanh": (np.arctanh, lambda a: 1 / (1 - a * a)),
    "log1p": (np.log1p, lambda a: 1 / (1 + a)),
    "expm1": (np.expm1, np.exp),
}
ALIASES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh"}
ALIASES.update(arccosh="acosh", arctanh="atanh")


@pytest.mark.parametrize("name", list(DERIVATIVES) + list(ALIASES))
def test_pointwise_against_numpy(name) -> None:
    f, df = DERIVATIVES[ALIASES.get(name, name)]
    a = np.array([0.1, -0.35, 0.8])
    if name in ("acosh", "arccosh"):
        a = a + 1.5
    for out_of in (lambda x: getattr(sp, name)(x), lambda x: getattr(x, name)()):
        x = _leaf(a)
        out = out_of(x)
        np.testing.assert_allclose(out.detach().numpy(), f(a), rtol=1e-14)
        out.backward(sp.ones(3, dtype=sp.float64))
        np.testing.assert_allclose(x.grad.numpy(), df(a), rtol=1e-14)


def test_pointwise_dtypes() -> None:
    assert sp.sinh(sp.tensor([1, 2])).dtype == sp.float32  # integers: the default dtype
    assert sp.log1p(sp.tensor([True])).dtype == sp.float32
    assert sp.atan(sp.tensor([1.0], dtype=sp.float64)).dtype == sp.float64
    assert sp.expm1(sp.tensor([1.0], dtype=sp.float16)).dtype == sp.float16
    with pytest.raises(TypeError):
        sp.sinh([1.0])


# -- value checks, unique, shifts, small methods ----------------------------------------------


def test_isclose_allclose_against_numpy() -> None:
    a = np.array([1.0, 2.0, np.nan, np.inf, 0.0, 1e-9])
    b = np.array([1.0 + 1e-7, 2.1, np.nan, np.inf, 1e-9, 0.0])
    for kwargs in ({}, {"equal_nan": True}, {"rtol": 0.1, "atol": 0.0}):
        want = np.isclose(a, b, **kwargs)
        assert sp.isclose(sp.tensor(a), sp.tensor(b), **kwargs).tolist() == want.tolist()
        assert sp.allclose(sp.tensor(a), sp.tensor(b), **kwargs) is bool(want.all())
    assert sp.allclose(sp.tensor([1.0, 2.0]), sp.tensor([1.0, 2.0 + 1e-9])) is True
    with pytest.raises(RuntimeError, match="did not match"):
        sp.isclose(sp.ones(2), sp.ones(2, dtype=sp.float64))
    with pytest.raises(RuntimeError, match="must match the size"):
        sp.allclose(sp.ones(2), sp.ones(3))


def test_unique_against_numpy() -> None:
    a = np.array([[4, 1, 4], [2, 1, 9]])
    values, inverse, counts = np.unique(a, return_inverse=True, return_counts=True)
    out = sp.unique(sp.tensor(a), return_inverse=True, return_counts=True)
    assert out[0].tolist() == values.tolist()
    assert out[1].tolist() == inverse.reshape(a.shape).tolist() and out[1].dtype == sp.int64
    assert out[2].tolist() == counts.tolist() and out[2].dtype == sp.int64
    rows = np.array([[1, 2], [0, 5], [1, 2]])
    got, where = sp.tensor(rows).unique(dim=0, return_inverse=True)
    assert got.tolist() == [[0, 5], [1, 2]] and where.tolist() == [1, 0, 1]
    assert sp.unique(sp.tensor([2.0, np.nan, np.nan])).numpy().tolist()[0] == 2.0
    assert sp.unique(sp.tensor([2.0, np.nan, np.nan])).shape == (3,)  # each nan distinct


def test_shifts_against_numpy() -> None:
    a = np.array([1, 5, -12], dtype=np.int32)
    assert (sp.tensor(a) << 3).tolist() == (a << 3).tolist()
    assert (sp.tensor(a) >> 2).tolist() == (a >> 2).tolist()
    assert (sp.tensor(a) >> 2).dtype == sp.int32
    assert (1 << sp.tensor([0, 4])).tolist() == [1, 16]
    assert (sp.tensor([5, -5]) >> 64).tolist() == [0, -1]  # past the width: the sign
    assert (sp.tensor([5, -5]) << -1).tolist() == [0, 0]  # a negative shift: 0
    with pytest.raises(NotImplementedError):
        sp.ones(2) << 1


def test_small_methods() -> None:
    x = sp.tensor([1, 2, 3])
    assert x.not_equal(2).tolist() == [True, False, True]
    assert sp.not_equal(x, sp.tensor([1, 0, 3])).tolist() == [False, True, False]
    assert x.type_as(sp.ones(1, dtype=sp.float64)).dtype == sp.float64
    assert x.is_cuda is False and x.to("sim").is_cuda is False
    assert x.type_as(sp.ones(1).to("sim")).device.type == "sim"
    y = sp.arange(6).reshape(2, 3)
    assert y.flip(dims=(1,)).tolist() == y.flip(1).tolist() == [[2, 1, 0], [5, 4, 3]]
    assert y.flip((0, 1)).tolist() == y.flip(dims=[0, 1]).tolist() == [[5, 4, 3], [2, 1, 0]]
    with pytest.raises(TypeError):
        y.flip(0, dims=(1,))
    with pytest.raises(TypeError):
        y.flip(dim=0)
    with pytest.raises(RuntimeError, match="invalid shape dimension -2"):
        y.reshape(3, -2)
    assert y.reshape(-1, 2).shape == (3, 2)


# -- the simulated device -------------------------------------------------------------------


def test_the_ops_on_the_simulated_device_give_the_cpus_values() -> None:
    rng = np.random.default_rng(4)
    data, other = rng.uniform(-0.9, 0.9, (3, 4)), rng.uniform(-2, 2, (3, 4))
    ints = rng.integers(-5, 6, (3, 4))

    def run(device):
        x = sp.tensor(data, dtype=sp.float64).to(device).requires_grad_()
        y = sp.tensor(other, dtype=sp.float64).to(device).requires_grad_()
        n = sp.tensor(ints).to(device)
        index = sp.tensor([[2, 0, 1, 0], [0, 1, 2, 2]]).to(device)
        outs = [
            x.scatter(0, index, y[:2]),
            x.scatter(1, index[:, :2], 0.5),
            x.scatter_add(0, index, y[1:]),
            x.detach().scatter(0, index, y[:2].detach(), reduce="add"),
            x.diagonal(1),
            sp.diagonal(y, -1),
            sp.diag(x[0], 1),
            sp.diag_embed(y[:2]),
            *sp.tensor_split(x, 3, dim=1),
            *sp.hsplit(y, [1]),
            sp.hstack([x, y]),
            sp.vstack([x[0], y]),
            sp.dstack([x, y]),
            sp.column_stack([x[:, 0], y]),
            x.sinh(),
            sp.cosh(y),
            x.asin(),
            sp.acos(x),
            y.atan(),
            sp.asinh(y),
            sp.acosh(y.abs() + 1.5),
            x.atanh(),
            x.log1p(),
            y.expm1(),
            x.flip(dims=(0,)),
        ]
        total = sum((o * o).sum() for o in outs if o.requires_grad)
        total.backward()
        assert x.grad.device.type == device and y.grad.device.type == device
        constants = [
            sp.isclose(x, x + 1e-9),
            n << 2,
            n >> 1,
            *sp.unique(n, return_inverse=True, return_counts=True),
            sp.not_equal(n, 0),
        ]
        for c in outs + constants:
            assert c.device.type == device
        assert sp.allclose(x, x * 1.0)
        values = [o.detach().cpu().numpy() for o in outs + constants]
        return values + [t.grad.cpu().numpy() for t in (x, y)]

    for got, want in zip(run("sim"), run("cpu")):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)

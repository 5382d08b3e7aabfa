"""PyTorch as an oracle for chapter 7's pointwise math, logic and running reductions
(``ops/pointwise.py``, ``ops/logic.py``, ``ops/reductions.py``), chapter 5's ``leaky_relu``,
``silu`` and ``softplus``, and ``std``'s gradient where the deviation is 0 (issue 27): in
float64, values and the gradient of every input to 1e-10, on random inputs and at the edges
(zeros, ties, a zero base, the softplus threshold, several zeros in a product). The sweep
of the ops whose backward divides by something that can be 0 is here too: each such point
against PyTorch. Skipped, visibly, without PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

from solutions import ch07_device as sp

torch = pytest.importorskip("torch")

TOL = 1e-10


def _check(fn, arrays: list, grad: bool = True, seed: int = 1) -> None:
    """``fn(module, *leaves)`` with ``sp`` and ``torch`` on the same float64 ``arrays``: equal
    values, dtypes and shapes and, for ``grad``, equal gradients of every leaf for one random
    upstream gradient (nan where PyTorch's is nan, inf where it is inf)."""
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    ours = [sp.tensor(a, dtype=sp.float64, requires_grad=grad) for a in arrays]
    theirs = [torch.tensor(a, dtype=torch.float64, requires_grad=grad) for a in arrays]
    with np.errstate(all="ignore"):
        out = fn(sp, *ours)
        want = fn(torch, *theirs)
        assert out.shape == tuple(want.shape)
        assert str(out.dtype) == str(want.dtype).removeprefix("torch.")
        np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), rtol=TOL, atol=TOL)
        if not grad:
            return
        g = np.random.default_rng(seed).uniform(0.5, 1.5, tuple(want.shape))
        out.backward(sp.tensor(g, dtype=sp.float64))
        want.backward(torch.tensor(g, dtype=torch.float64))
    for x, t in zip(ours, theirs):
        expected = np.zeros(t.shape) if t.grad is None else t.grad.numpy()
        got = np.zeros(x.shape) if x.grad is None else x.grad.numpy()
        np.testing.assert_allclose(got, expected, rtol=TOL, atol=TOL)


def _uniform(seed: int, *shapes, low: float = -2.0, high: float = 2.0) -> list:
    rng = np.random.default_rng(seed)
    return [rng.uniform(low, high, s) for s in shapes]


F = {"sp": sp.nn.functional, "torch": torch.nn.functional}


def _F(m):
    return F["sp" if m is sp else "torch"]


# every case: (fn, arrays); random arrays from a seed, edge values written out
OPS = {
    "sin": (lambda m, x: m.sin(x), _uniform(0, (3, 4))),
    "cos": (lambda m, x: m.cos(x), _uniform(1, (3, 4))),
    "tan": (lambda m, x: m.tan(x), _uniform(2, (5,), low=-1.2, high=1.2)),
    "sin method": (lambda m, x: x.sin(), _uniform(3, (2, 3))),
    "cos method": (lambda m, x: x.cos(), _uniform(4, (2, 3))),
    "tan method": (lambda m, x: x.tan(), _uniform(5, (2, 3), low=-1, high=1)),
    "log10": (lambda m, x: m.log10(x), _uniform(6, (3, 4), low=0.1, high=5)),
    "log2": (lambda m, x: m.log2(x), _uniform(7, (3, 4), low=0.1, high=5)),
    "log10 method at 0 and below": (lambda m, x: x.log10(), [[0.0, -1.0, 1.0, 100.0]]),
    "log2 method at 0 and below": (lambda m, x: x.log2(), [[0.0, -1.0, 1.0, 8.0]]),
    # powers: a tensor exponent, a number base, a number exponent through pow()
    "pow tensor": (lambda m, a, b: m.pow(a, b), _uniform(8, (3, 4), (3, 4), low=0.2, high=2)),
    "pow method tensor": (lambda m, a, b: a.pow(b), _uniform(9, (2, 3), (2, 3), low=0.2)),
    "** tensor": (lambda m, a, b: a**b, _uniform(10, (3, 4), (3, 4), low=0.2)),
    "** broadcast": (lambda m, a, b: a**b, _uniform(11, (3, 1), (4,), low=0.2)),
    "pow method number": (lambda m, a: a.pow(3), _uniform(12, (3, 4))),
    "pow method fraction": (lambda m, a: a.pow(0.5), _uniform(13, (3, 4), low=0.1)),
    "pow number": (lambda m, a: m.pow(a, 2.0), _uniform(14, (5,))),
    "pow at a zero base": (
        lambda m, a, b: a**b,
        [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0], [0.0, 1.0, 2.0, 0.5, -1.0, -0.5, 0.0]],
    ),
    "pow of a negative base": (
        lambda m, a, b: a**b,
        [[-2.0, -2.0, -1.5, -0.5], [2.0, 3.0, 0.0, 1.0]],
    ),
    "number ** tensor": (lambda m, x: 10**x, _uniform(15, (3, 4))),
    "float ** tensor": (lambda m, x: 2.5**x, _uniform(16, (3, 4))),
    "0 ** tensor": (lambda m, x: 0**x, [[0.0, 1.0, 2.0, -1.0, 0.5]]),
    "0.0 ** tensor": (lambda m, x: 0.0**x, [[0.0, 1.0, -0.5]]),
    "pow number base": (lambda m, x: m.pow(3.0, x), _uniform(17, (2, 2))),
    # remainder, fmod, floor_divide
    "remainder": (lambda m, a, b: m.remainder(a, b), _uniform(18, (3, 4), (3, 4), low=-5, high=5)),
    "% tensor": (lambda m, a, b: a % b, [[5.5, -5.5, 5.5, -5.5, 3.0], [2.0, 2.0, -2.0, -2.0, 1.5]]),
    "% number": (lambda m, a: a % 1.5, _uniform(19, (3, 4), low=-5, high=5)),
    "number % tensor (values)": (lambda m, b: 7.0 % b.detach() + b, [[2.0, -3.0, 1.5, -2.5]]),
    "% broadcast": (lambda m, a, b: a % b, _uniform(20, (3, 1), (4,), low=-4, high=4)),
    "fmod": (lambda m, a, b: m.fmod(a, b), [[5.5, -5.5, 5.5, -5.5], [2.0, 2.0, -2.0, -2.0]]),
    "fmod method number": (lambda m, a: a.fmod(-1.5), _uniform(21, (3, 4), low=-5, high=5)),
    "remainder method": (lambda m, a, b: a.remainder(b), _uniform(22, (4,), (4,), low=-3, high=3)),
    # maximum, minimum: ties split the gradient half and half
    "maximum": (lambda m, a, b: m.maximum(a, b), _uniform(23, (3, 4), (3, 4))),
    "minimum": (lambda m, a, b: m.minimum(a, b), _uniform(24, (3, 4), (3, 4))),
    "maximum ties": (lambda m, a, b: m.maximum(a, b), [[1.0, 2.0, 3.0, 0.0], [1.0, 0.0, 5.0, 0.0]]),
    "minimum ties": (lambda m, a, b: a.minimum(b), [[1.0, 2.0, 3.0, 0.0], [1.0, 0.0, 5.0, 0.0]]),
    "maximum broadcast": (lambda m, a, b: a.maximum(b), _uniform(25, (3, 1), (1, 4))),
    "maximum ties broadcast": (
        lambda m, a, b: m.maximum(a, b),
        [[[0.0], [1.0]], [0.0, 1.0, 2.0]],
    ),
    # activations (chapter 5)
    "leaky_relu": (lambda m, x: _F(m).leaky_relu(x), [[-2.0, -0.5, 0.0, 0.5, 2.0]]),
    "leaky_relu slope": (lambda m, x: _F(m).leaky_relu(x, 0.2), _uniform(26, (3, 4))),
    "LeakyReLU": (lambda m, x: m.nn.LeakyReLU(negative_slope=0.1)(x), [[-1.0, 0.0, 1.0]]),
    "silu": (lambda m, x: _F(m).silu(x), [[-30.0, -2.0, 0.0, 1.0, 30.0]]),
    "SiLU": (lambda m, x: m.nn.SiLU()(x), _uniform(27, (3, 4), low=-5, high=5)),
    "softplus": (lambda m, x: _F(m).softplus(x), [[-50.0, -2.0, 0.0, 2.0, 19.9, 20.0, 20.1, 50.0]]),
    "softplus beta threshold": (
        lambda m, x: _F(m).softplus(x, beta=2.0, threshold=1.0),
        [[-1.0, 0.0, 0.4, 0.5, 0.6, 3.0]],
    ),
    "Softplus": (
        lambda m, x: m.nn.Softplus(beta=0.5, threshold=5)(x),
        _uniform(28, (4, 5), low=-20, high=20),
    ),
    # running sums and products
    "cumsum": (lambda m, x: m.cumsum(x, 1), _uniform(29, (3, 4, 2))),
    "cumsum method": (lambda m, x: x.cumsum(-1), _uniform(30, (3, 4))),
    "cumsum dim 0": (lambda m, x: x.cumsum(dim=0), _uniform(31, (5,))),
    "cumsum 0-d": (lambda m, x: x.cumsum(0), [2.5]),
    "prod": (lambda m, x: m.prod(x), _uniform(32, (3, 4), low=0.5, high=1.5)),
    "prod dim": (lambda m, x: x.prod(1), _uniform(33, (3, 4, 2))),
    "prod dim keepdim": (lambda m, x: x.prod(-1, keepdim=True), _uniform(34, (3, 4))),
    "prod one zero": (lambda m, x: x.prod(), [[2.0, 0.0, 3.0, -1.5]]),
    "prod two zeros": (lambda m, x: x.prod(), [[2.0, 0.0, 3.0, 0.0]]),
    "prod dim zeros": (
        lambda m, x: x.prod(1),
        [[[0.0, 2.0, 3.0], [1.0, 0.0, 0.0], [2.0, 3.0, 4.0], [0.0, 0.0, 0.0]]],
    ),
    "prod dim 0 zeros": (lambda m, x: x.prod(0), [[[0.0, 2.0], [3.0, 0.0], [5.0, 0.0]]]),
    "prod 0-d": (lambda m, x: x.prod(), [3.0]),
    # std where the deviation is 0 (the silent wrong result), and its neighbours
    "std ones": (lambda m, x: x.std(), [np.ones(4)]),
    "std const rows": (lambda m, x: x.std(1), [[[1.0, 1.0, 1.0], [1.0, 2.0, 4.0]]]),
    "std keepdim const column": (lambda m, x: x.std(0, keepdim=True), [[[1.0, 2.0], [1.0, 3.0]]]),
    "std correction 0 one element": (lambda m, x: x.std(correction=0), [[3.0]]),
    "std unbiased False const": (
        lambda m, x: m.std(x, 0, unbiased=False),
        [[[2.0, 1.0], [2.0, 5.0]]],
    ),
    "std tuple dims const": (lambda m, x: x.std((0, 1)), [np.full((2, 3), 7.0)]),
    "std random": (lambda m, x: x.std(-1), _uniform(35, (3, 5))),
    "var const": (lambda m, x: x.var(), [np.ones(4)]),
    # the sweep: each op whose backward divides by something that can be 0, at that point
    "sweep sqrt at 0": (lambda m, x: x.sqrt(), [[0.0, 4.0]]),
    "sweep log at 0": (lambda m, x: x.log(), [[0.0, 4.0]]),
    "sweep ** 0.5 at 0": (lambda m, x: x**0.5, [[0.0, 4.0]]),
    "sweep ** 1.5 at 0": (lambda m, x: x**1.5, [[0.0, 4.0]]),
    "sweep ** -1 at 0": (lambda m, x: x**-1, [[0.0, 4.0]]),
    "sweep ** 1 at 0": (lambda m, x: x**1, [[0.0, 4.0]]),
    "sweep / 0": (lambda m, a, b: a / b, [[1.0, 0.0, 2.0], [0.0, 0.0, 2.0]]),
    "sweep ‖x‖ at 0": (lambda m, x: (x * x).sum().sqrt(), [[0.0, 0.0]]),
    "sweep softmax -inf": (lambda m, x: m.softmax(x, 0), [[-np.inf, 1.0, 2.0]]),
    "sweep log_softmax -inf": (lambda m, x: m.log_softmax(x, 0), [[-np.inf, 1.0, 2.0]]),
    "sweep log_softmax 1000": (lambda m, x: m.log_softmax(x, 0), [[1000.0, 0.0]]),
    "sweep cross_entropy extreme": (
        lambda m, x: _F(m).cross_entropy(x.reshape(1, 3), m.tensor([0])),
        [[-1000.0, 1000.0, 0.0]],
    ),
    "sweep bce_with_logits extreme": (
        lambda m, x: _F(m).binary_cross_entropy_with_logits(x, m.tensor([1.0, 0.0, 1.0]).double()),
        [[1000.0, -1000.0, 0.0]],
    ),
    "sweep LayerNorm const": (lambda m, x: m.nn.LayerNorm(3).double()(x), [[[2.0, 2.0, 2.0]]]),
    "sweep BatchNorm1d const": (
        lambda m, x: m.nn.BatchNorm1d(2).double()(x),
        [[[1.0, 2.0], [1.0, 2.0], [1.0, 2.0]]],
    ),
    "sweep gelu": (lambda m, x: _F(m).gelu(x), [[0.0, -30.0, 30.0]]),
    "sweep max ties": (lambda m, x: x.max(), [[1.0, 1.0, 0.0]]),
    "sweep min ties": (lambda m, x: x.min(), [[0.0, 1.0, 0.0]]),
    "sweep clamp at the bounds": (lambda m, x: x.clamp(0.0, 1.0), [[0.0, 1.0, 2.0, -1.0]]),
    "sweep dropout p=1": (lambda m, x: _F(m).dropout(x, p=1.0, training=True), [[1.0, 2.0]]),
}


@pytest.mark.parametrize("name", list(OPS))
def test_op_agrees_with_pytorch(name: str) -> None:
    fn, arrays = OPS[name]
    _check(fn, arrays)


def test_std_of_ones_has_pytorchs_zero_gradient_not_nan() -> None:
    x = sp.ones(4, requires_grad=True)
    x.std().backward()
    t = torch.ones(4, requires_grad=True)
    t.std().backward()
    assert x.grad.tolist() == t.grad.tolist() == [0.0] * 4


# -- no gradient: integers, bools, logic, floor_divide --------------------------------------

INTS = np.array([[5, -5, 7, 0], [-3, 3, 2, -8]])
OTHERS = np.array([[3, 3, -3, 2], [-2, 2, 5, 3]])
BOOLS = np.array([[True, False, True, False], [True, True, False, False]])
BOOLS2 = np.array([[True, True, False, False], [False, True, False, True]])


def _same(ours, theirs) -> None:
    assert isinstance(ours, sp.Tensor), type(ours)
    assert ours.shape == tuple(theirs.shape)
    assert str(ours.dtype) == str(theirs.dtype).removeprefix("torch."), (ours.dtype, theirs.dtype)
    if ours.dtype.kind == "f":  # float32 results of integer inputs: to float32's rounding
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
    else:
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


VALUES = {
    "int %": (lambda m, a, b: a % b, (INTS, OTHERS)),
    "int % number": (lambda m, a, b: a % 3, (INTS, OTHERS)),
    "number % int": (lambda m, a, b: 7 % b, (INTS, OTHERS)),
    "int //": (lambda m, a, b: a // b, (INTS, OTHERS)),
    "int // number": (lambda m, a, b: a // -3, (INTS, OTHERS)),
    "number // int": (lambda m, a, b: 7 // b, (INTS, OTHERS)),
    "int // float": (lambda m, a, b: a // 2.5, (INTS, OTHERS)),
    "float // 0": (lambda m, a, b: a.double() // 0.0, (INTS, OTHERS)),
    "float % 0": (lambda m, a, b: a.double() % 0.0, (INTS, OTHERS)),
    "floor_divide": (lambda m, a, b: m.floor_divide(a.double(), b), (INTS, OTHERS)),
    "int fmod": (lambda m, a, b: m.fmod(a, b), (INTS, OTHERS)),
    "int pow int": (lambda m, a, b: a.pow(b.abs()), (INTS, OTHERS)),
    "int ** float tensor": (lambda m, a, b: a.abs() ** b.double(), (INTS, OTHERS)),
    "number ** int": (lambda m, a, b: 2 ** b.abs(), (INTS, OTHERS)),
    "float ** int": (lambda m, a, b: 2.5 ** b.abs(), (INTS, OTHERS)),
    "int maximum": (lambda m, a, b: m.maximum(a, b), (INTS, OTHERS)),
    "int minimum": (lambda m, a, b: m.minimum(a, b), (INTS, OTHERS)),
    "int sin": (lambda m, a, b: m.sin(a), (INTS, OTHERS)),
    "int log2": (lambda m, a, b: m.log2(a.abs() + 1), (INTS, OTHERS)),
    "int cumsum": (lambda m, a, b: a.cumsum(1), (INTS, OTHERS)),
    "int32 cumsum": (lambda m, a, b: a.int().cumsum(0), (INTS, OTHERS)),
    "bool cumsum": (lambda m, a, b: (a > 0).cumsum(1), (INTS, OTHERS)),
    "cumsum dtype": (lambda m, a, b: a.cumsum(1, dtype=m.float64), (INTS, OTHERS)),
    "int prod": (lambda m, a, b: a.prod(), (INTS, OTHERS)),
    "int prod dim": (lambda m, a, b: a.prod(0), (INTS, OTHERS)),
    "bool prod": (lambda m, a, b: (a > 0).prod(1, keepdim=True), (INTS, OTHERS)),
    "int &": (lambda m, a, b: a & b, (INTS, OTHERS)),
    "int |": (lambda m, a, b: a | b, (INTS, OTHERS)),
    "int ^": (lambda m, a, b: a ^ b, (INTS, OTHERS)),
    "int ~": (lambda m, a, b: ~a, (INTS, OTHERS)),
    "int & number": (lambda m, a, b: a & 6, (INTS, OTHERS)),
    "number | int": (lambda m, a, b: 6 | a, (INTS, OTHERS)),
    "bool &": (lambda m, a, b: a & b, (BOOLS, BOOLS2)),
    "bool |": (lambda m, a, b: a | b, (BOOLS, BOOLS2)),
    "bool ^": (lambda m, a, b: a ^ b, (BOOLS, BOOLS2)),
    "bool ~": (lambda m, a, b: ~a, (BOOLS, BOOLS2)),
    "bool ^ True": (lambda m, a, b: a ^ True, (BOOLS, BOOLS2)),
    "bool & int": (lambda m, a, b: a & b.long(), (BOOLS, BOOLS2)),
    "comparisons &": (lambda m, a, b: (a > 0) & (b < 3), (INTS, OTHERS)),
    "bitwise_and": (lambda m, a, b: m.bitwise_and(a, b), (INTS, OTHERS)),
    "bitwise_not": (lambda m, a, b: m.bitwise_not(a), (INTS, OTHERS)),
    "logical_and": (lambda m, a, b: m.logical_and(a, b), (INTS, OTHERS)),
    "logical_or float": (lambda m, a, b: m.logical_or(a.double(), b * 0), (INTS, OTHERS)),
    "logical_xor": (lambda m, a, b: a.logical_xor(b), (BOOLS, BOOLS2)),
    "logical_not": (lambda m, a, b: m.logical_not(a), (INTS, OTHERS)),
    "logical_not method": (lambda m, a, b: a.logical_not(), (BOOLS, BOOLS2)),
    "all": (lambda m, a, b: m.all(a), (BOOLS, BOOLS2)),
    "any": (lambda m, a, b: a.any(), (BOOLS, BOOLS2)),
    "all dim": (lambda m, a, b: a.all(1), (BOOLS, BOOLS2)),
    "any dim keepdim": (lambda m, a, b: m.any(a, 0, keepdim=True), (BOOLS, BOOLS2)),
    "all int": (lambda m, a, b: a.all(), (INTS, OTHERS)),
    "any float dim": (lambda m, a, b: (a * 0.5).any(-1), (INTS, OTHERS)),
    "all keepdim": (
        lambda m, a, b: a.all(keepdim=True) if m is sp else a.all().reshape(1, 1),
        (BOOLS, BOOLS2),
    ),
    "all tuple dims": (lambda m, a, b: a.all(dim=(0, 1)), (BOOLS, BOOLS2)),
    "any 0-d": (lambda m, a, b: a[0, 0].any(), (INTS, OTHERS)),
    "all uint8": (
        lambda m, a, b: a.to(np.uint8 if m is sp else torch.uint8).all(1),
        (BOOLS, BOOLS2),
    ),
    "nonzero": (lambda m, a, b: m.nonzero(a), (INTS, OTHERS)),
    "nonzero method bool": (lambda m, a, b: a.nonzero(), (BOOLS, BOOLS2)),
    "nonzero 0-d": (lambda m, a, b: a[0, 0].nonzero(), (INTS, OTHERS)),
    "nonzero 0-d zero": (lambda m, a, b: a[0, 3].nonzero(), (INTS, OTHERS)),
}


@pytest.mark.parametrize("name", list(VALUES))
def test_values_and_dtypes_agree_with_pytorch(name: str) -> None:
    fn, arrays = VALUES[name]
    _same(fn(sp, *[sp.tensor(a) for a in arrays]), fn(torch, *[torch.tensor(a) for a in arrays]))


@pytest.mark.parametrize(
    "fn",
    [
        lambda m, a: m.where(a),
        lambda m, a: m.where(a > 0),
        lambda m, a: m.nonzero(a, as_tuple=True),
        lambda m, a: a[0, 0].nonzero(as_tuple=True),
        lambda m, a: a.reshape(2, 2, 2).nonzero(as_tuple=True),
    ],
)
def test_nonzero_as_tuple_and_one_argument_where_agree(fn) -> None:
    ours, theirs = fn(sp, sp.tensor(INTS)), fn(torch, torch.tensor(INTS))
    assert isinstance(ours, tuple) and len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        _same(o, t)


def test_one_argument_where_indexes_as_in_pytorch() -> None:
    a = np.arange(12.0).reshape(3, 4) - 5
    ours, theirs = sp.tensor(a), torch.tensor(a)
    _same(ours[sp.where(ours > 0)], theirs[torch.where(theirs > 0)])


def test_floor_divide_has_no_derivative_as_in_pytorch() -> None:
    a = torch.tensor([5.5, -5.5], requires_grad=True)
    b = torch.tensor([2.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="floor_divide") as theirs:
        (a // b).sum().backward()
    x = sp.tensor([5.5, -5.5], requires_grad=True)
    y = sp.tensor([2.0, 2.0], requires_grad=True)
    z = x // y
    assert z.requires_grad == (a // b).requires_grad
    with pytest.raises(RuntimeError, match="floor_divide") as ours:
        z.sum().backward()
    assert str(ours.value) == str(theirs.value).splitlines()[0]


def test_number_remainder_tensor_has_no_derivative_as_in_pytorch() -> None:
    t = torch.tensor([2.0, -3.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="remainder") as theirs:
        (7.0 % t).sum().backward()
    x = sp.tensor([2.0, -3.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="remainder") as ours:
        (7.0 % x).sum().backward()
    assert str(ours.value) == str(theirs.value).splitlines()[0]


def test_module_reprs_agree() -> None:
    for make in [
        lambda m: m.nn.LeakyReLU(),
        lambda m: m.nn.LeakyReLU(0.2),
        lambda m: m.nn.SiLU(),
        lambda m: m.nn.Softplus(),
        lambda m: m.nn.Softplus(beta=2.0, threshold=10.0),
    ]:
        assert repr(make(sp)) == repr(make(torch))


def test_tensor_exponent_gradient_is_differentiable_as_pytorchs() -> None:
    """Second order through a ** b (create_graph): PowTensor's backward is Tensor ops."""
    a, b = _uniform(40, (4,), (4,), low=0.3, high=2)
    x, y = (sp.tensor(v, dtype=sp.float64, requires_grad=True) for v in (a, b))
    s, t = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (a, b))
    gx, gy = sp.autograd.grad((x**y).sum(), (x, y), create_graph=True)
    gs, gt = torch.autograd.grad((s**t).sum(), (s, t), create_graph=True)
    (gx * gy).sum().backward()
    (gs * gt).sum().backward()
    for ours, theirs in [(gx, gs), (gy, gt), (x.grad, s.grad), (y.grad, t.grad)]:
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=TOL)

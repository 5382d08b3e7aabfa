"""Chapter 7's pointwise math, logic and running reductions without PyTorch (issue 27):
misuse raises PyTorch's error type with a message naming the problem, result dtypes follow
PyTorch's rules, gradients at the edges match independent NumPy, chapter 2's ``**`` keeps
its number-exponent behaviour (a tensor exponent crosses the seam to chapter 7), and every
op on the simulated device gives the CPU's values and gradients. (Values against PyTorch:
``test_torch_pointwise.py``.)"""

from __future__ import annotations

import importlib
import math
import sys

import numpy as np
import pytest

from solutions import ch07_device as sp
from solutions.ch02_tensor import arithmetic
from tests.trees import SOLUTIONS, copy_package


def _leaf(values, dtype=None) -> sp.Tensor:
    return sp.tensor(values, dtype=dtype or sp.float64, requires_grad=True)


# -- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda: sp.tensor([2, 3]) ** sp.tensor([-1, 2]), RuntimeError, "negative integer powers"),
        (lambda: sp.tensor([5, 6]) % sp.tensor([0, 2]), RuntimeError, "ZeroDivisionError"),
        (lambda: sp.tensor([5, 6]) // sp.tensor([2, 0]), RuntimeError, "ZeroDivisionError"),
        (lambda: sp.fmod(sp.tensor([5]), 0), RuntimeError, "ZeroDivisionError"),
        (lambda: sp.ones(2) & sp.ones(2), NotImplementedError, "bitwise_and.*Float"),
        (lambda: sp.ones(2, dtype=sp.float64) | 1, NotImplementedError, "bitwise_or.*Double"),
        (lambda: sp.tensor([1, 2]) ^ 1.5, NotImplementedError, "bitwise_xor"),
        (lambda: ~sp.ones(2), TypeError, "integer and Boolean"),
        (lambda: sp.maximum(sp.ones(2), 1.0), TypeError, "two Tensors"),
        (lambda: sp.minimum(2, sp.ones(2)), TypeError, "two Tensors"),
        (lambda: sp.maximum(sp.ones(2), sp.ones(3)), RuntimeError, "do not broadcast"),
        (lambda: sp.ones(2) ** sp.ones(3), RuntimeError, "do not broadcast"),
        (lambda: sp.remainder(sp.ones(2, 3), sp.ones(2)), RuntimeError, "do not broadcast"),
        (lambda: sp.ones(2).pow("2"), TypeError, "number or a Tensor"),
        (lambda: sp.pow(2, 3), TypeError, "a Tensor"),
        (lambda: sp.ones(2) % "a", TypeError, "str"),
        (lambda: sp.ones(2, 3).cumsum(2), IndexError, "but got 2"),
        (lambda: sp.ones(2, 3).prod(-3), IndexError, "but got -3"),
        (lambda: sp.ones(2, 3).prod((0, 1)), TypeError, "one axis"),
        (lambda: sp.ones(2, 3).all(2), IndexError, "but got 2"),
        (lambda: sp.ones(2, 3).any((0, 0)), RuntimeError, "more than once"),
        (lambda: sp.where(sp.ones(2) > 0, sp.ones(2)), TypeError, "condition alone"),
        (lambda: sp.nonzero([1, 0]), TypeError, "list"),
        (lambda: sp.ones(2, 2).prod(), None, None),  # (no error: the control)
    ],
)
def test_misuse_gets_pytorchs_error_type_naming_the_problem(make, error, message) -> None:
    if error is None:
        make()
        return
    with pytest.raises(error, match=message):
        make()


def test_backwards_pytorch_does_not_define_raise_at_backward_time() -> None:
    x, y = _leaf([5.5, -5.5]), _leaf([2.0, 2.0])
    z = x // y
    assert z.requires_grad
    with pytest.raises(RuntimeError, match="floor_divide is not implemented"):
        z.sum().backward()
    with pytest.raises(RuntimeError, match="remainder is not implemented"):
        (7.0 % y).sum().backward()
    (x % 2.0).sum().backward()  # tensor % number has one
    assert x.grad.tolist() == [1.0, 1.0]


def test_prods_gradient_is_first_order_only_and_says_so() -> None:
    x = _leaf([1.0, 2.0, 3.0])
    (g,) = sp.autograd.grad(x.prod(), [x])
    assert g.tolist() == [6.0, 3.0, 2.0]
    with pytest.raises(NotImplementedError, match="first order"):
        sp.autograd.grad(x.prod(), [x], create_graph=True)


# -- dtypes ---------------------------------------------------------------------------------

INTS = sp.tensor([5, -5, 7])  # int64
B = sp.tensor([True, False, True])


@pytest.mark.parametrize(
    ("make", "dtype"),
    [
        (lambda: INTS.sin(), "float32"),
        (lambda: sp.log2(B), "float32"),
        (lambda: sp.cos(sp.ones(2, dtype=sp.float64)), "float64"),
        (lambda: INTS % 3, "int64"),
        (lambda: INTS % 2.5, "float32"),
        (lambda: INTS // 2, "int64"),
        (lambda: 7 // INTS, "int64"),
        (lambda: INTS.int() // 2, "int32"),
        (lambda: INTS ** sp.tensor([1, 2, 0]), "int64"),
        (lambda: INTS ** sp.tensor([1.0, 2.0, 0.5]), "float32"),
        (lambda: 2 ** INTS.abs(), "int64"),
        (lambda: 2.5**INTS, "float32"),
        (lambda: 10 ** sp.ones(2), "float32"),
        (lambda: sp.ones(2, dtype=sp.float64) ** sp.ones(2), "float64"),
        (lambda: sp.maximum(INTS, sp.ones(3)), "float32"),
        (lambda: INTS & B, "int64"),
        (lambda: B & B, "bool"),
        (lambda: B ^ True, "bool"),
        (lambda: ~INTS, "int64"),
        (lambda: sp.logical_and(INTS, sp.ones(3)), "bool"),
        (lambda: sp.logical_not(sp.ones(3)), "bool"),
        (lambda: INTS.all(), "bool"),
        (lambda: sp.ones(3).any(0), "bool"),
        (lambda: INTS.nonzero(), "int64"),
        (lambda: B.cumsum(0), "int64"),
        (lambda: INTS.int().cumsum(0), "int64"),
        (lambda: INTS.cumsum(0, dtype=sp.float64), "float64"),
        (lambda: INTS.int().prod(), "int64"),
        (lambda: B.prod(0), "int64"),
        (lambda: sp.ones(2).prod(), "float32"),
    ],
)
def test_result_dtypes_are_pytorchs(make, dtype: str) -> None:
    assert str(make().dtype) == dtype


# -- values and gradients at the edges, against NumPy written here --------------------------


def test_std_of_a_constant_has_gradient_zero_not_nan() -> None:
    x = _leaf(np.ones(4))
    x.std().backward()
    assert x.grad.tolist() == [0.0] * 4
    rows = _leaf([[2.0, 2.0, 2.0], [1.0, 2.0, 4.0]])
    rows.std(1).sum().backward()
    d = np.array([1.0, 2.0, 4.0]) - 7 / 3
    expected = d / (2 * np.sqrt((d * d).sum() / 2)) * (2 / 2)  # ∂√v/∂x = (x − mean)/((n−1)·std)
    np.testing.assert_allclose(rows.grad.numpy()[0], 0.0)
    np.testing.assert_allclose(rows.grad.numpy()[1], expected, rtol=1e-12)


def test_powers_gradients_at_a_zero_base_match_the_formulas() -> None:
    b_values = [0.0, 1.0, 2.0, 0.5, -1.0]
    a, b = _leaf([0.0] * 5), _leaf(b_values)
    with np.errstate(all="ignore"):
        (a**b).sum().backward()
    # ∂/∂a = b·aᵇ⁻¹ (0 where b = 0); ∂/∂b = aᵇ ln a (0 where a = 0 and b ≥ 0)
    assert a.grad.tolist() == [0.0, 1.0, 0.0, math.inf, -math.inf]
    assert b.grad.tolist() == [0.0, 0.0, 0.0, 0.0, -math.inf]


def test_number_base_power_gradient_is_the_log_of_the_base() -> None:
    x = _leaf([0.0, 1.0, -2.0])
    (10**x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 10.0 ** np.array([0, 1, -2]) * np.log(10))


def test_maximum_and_minimum_split_a_tie() -> None:
    a, b = _leaf([1.0, 3.0, 2.0]), _leaf([1.0, 2.0, 5.0])
    (sp.maximum(a, b) * sp.tensor([1.0, 2.0, 4.0], dtype=sp.float64)).sum().backward()
    assert a.grad.tolist() == [0.5, 2.0, 0.0] and b.grad.tolist() == [0.5, 0.0, 4.0]
    a.grad = b.grad = None
    sp.minimum(a, b).sum().backward()
    assert a.grad.tolist() == [0.5, 0.0, 1.0] and b.grad.tolist() == [0.5, 1.0, 0.0]


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([2.0, 3.0, 4.0], [12.0, 8.0, 6.0]),
        ([2.0, 0.0, 4.0], [0.0, 8.0, 0.0]),  # one zero: it alone gets the others' product
        ([0.0, 3.0, 0.0], [0.0, 0.0, 0.0]),  # two zeros: nothing
    ],
)
def test_prods_gradient_is_the_product_of_the_others(values, expected) -> None:
    x = _leaf(values)
    x.prod().backward()
    assert x.grad.tolist() == expected
    m = _leaf([values, [1.0, 2.0, 3.0]])
    m.prod(1).sum().backward()
    assert m.grad.tolist() == [expected, [6.0, 3.0, 2.0]]


def test_cumsums_gradient_is_the_reversed_running_sum() -> None:
    x = _leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    g = np.array([[1.0, 10.0, 100.0], [2.0, 20.0, 200.0]])
    y = x.cumsum(1)
    assert y.tolist() == np.cumsum(x.detach().numpy(), 1).tolist()
    y.backward(sp.tensor(g, dtype=sp.float64))
    assert x.grad.tolist() == np.cumsum(g[:, ::-1], 1)[:, ::-1].tolist()


def test_remainder_follows_pythons_sign_and_fmod_cs() -> None:
    a = [5.5, -5.5, 5.5, -5.5, 3.0]
    b = [2.0, 2.0, -2.0, -2.0, 1.5]
    assert sp.tensor(a).remainder(sp.tensor(b)).tolist() == [x % y for x, y in zip(a, b)]
    assert sp.fmod(sp.tensor(a), sp.tensor(b)).tolist() == [math.fmod(x, y) for x, y in zip(a, b)]
    assert (sp.tensor(a) // sp.tensor(b)).tolist() == [x // y for x, y in zip(a, b)]
    ints = [7, -7, 7, -7]
    divisors = [3, 3, -3, -3]
    assert (sp.tensor(ints) % sp.tensor(divisors)).tolist() == [7 % 3, -7 % 3, 7 % -3, -7 % -3]
    assert (sp.tensor(ints) // sp.tensor(divisors)).tolist() == [2, -3, -3, 2]


def test_activations_at_the_kinks() -> None:
    F = sp.nn.functional
    x = _leaf([-2.0, 0.0, 3.0])
    F.leaky_relu(x, 0.1).sum().backward()
    assert x.grad.tolist() == [0.1, 0.1, 1.0]  # the slope at 0, as PyTorch
    x = _leaf([-1.0, 0.0, 10.0, 10.5])
    y = F.softplus(x, beta=2.0, threshold=20.0)
    y.sum().backward()
    np.testing.assert_allclose(y.detach().numpy()[:2], np.log1p(np.exp([-2.0, 0.0])) / 2)
    assert y.detach().numpy()[3] == 10.5  # βx > threshold: x itself
    s = 1 / (1 + np.exp(-2 * np.array([-1.0, 0.0, 10.0])))
    np.testing.assert_allclose(x.grad.numpy(), [*s, 1.0], rtol=1e-12)
    assert isinstance(
        sp.nn.Sequential(sp.nn.SiLU(), sp.nn.LeakyReLU(), sp.nn.Softplus()), sp.nn.Module
    )


def test_nonzero_and_one_argument_where() -> None:
    m = sp.tensor([[0, 3], [4, 0]])
    assert m.nonzero().tolist() == [[0, 1], [1, 0]]
    rows, cols = sp.where(m)
    assert (rows.tolist(), cols.tolist()) == ([0, 1], [1, 0])
    assert m[sp.where(m > 3)].tolist() == [4]
    assert sp.tensor(5).nonzero().shape == (1, 0) and sp.tensor(0).nonzero().shape == (0, 0)
    assert [t.tolist() for t in sp.tensor(5).nonzero(as_tuple=True)] == [[0]]


def test_all_and_any_over_dims() -> None:
    b = sp.tensor([[True, False], [True, True]])
    assert (b.all().item(), b.any().item()) == (False, True)
    assert b.all(0).tolist() == [True, False] and b.all(1).tolist() == [False, True]
    assert b.any(1, keepdim=True).shape == (2, 1) and b.all(keepdim=True).shape == (1, 1)
    assert sp.all(b, (0, 1)).item() is False


# -- chapter 2's ** keeps its number exponents ----------------------------------------------


def test_a_number_exponent_is_still_chapter_2s_pow_and_a_tensor_one_is_not() -> None:
    x = _leaf([1.0, 2.0])
    assert type(x**2).__name__ == "Tensor" and (x**2).grad_fn.function is arithmetic.Pow
    assert x.pow(3).grad_fn.function is arithmetic.Pow
    assert (x ** sp.tensor(2.0)).grad_fn.function is not arithmetic.Pow
    with pytest.raises(TypeError, match="number as the exponent"):
        x ** "2"


def test_in_a_tree_with_chapter_2_alone_a_tensor_exponent_names_chapter_7(tmp_path) -> None:
    """Chapter 2 by itself: ``x ** 2`` is its own Pow, ``x ** tensor`` and the new methods
    say which chapter builds them."""
    (tmp_path / "lone_h2").mkdir()
    (tmp_path / "lone_h2" / "__init__.py").write_text("")
    copy_package(SOLUTIONS / "ch02_tensor", tmp_path / "lone_h2" / "ch02_tensor")
    sys.path.insert(0, str(tmp_path))
    try:
        lone = importlib.import_module("lone_h2.ch02_tensor")
        x = lone.tensor([1.0, 2.0], requires_grad=True)
        assert (x**2).tolist() == [1.0, 4.0]
        for use in (lambda: x ** lone.tensor(2.0), lambda: 2**x, lambda: x % 2, lambda: x.sin()):
            with pytest.raises(NotImplementedError, match="chapter 7"):
                use()
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n.split(".")[0] == "lone_h2"]:
            del sys.modules[name]


# -- the simulated device -------------------------------------------------------------------


def test_the_ops_on_the_simulated_device_give_the_cpus_values() -> None:
    rng = np.random.default_rng(3)
    data, other = rng.uniform(0.2, 2, (3, 4)), rng.uniform(-2, 2, (3, 4))
    data[0, 0] = other[0, 0] = 1.0  # a tie for maximum
    ints = rng.integers(-5, 6, (3, 4))

    def run(device):
        x = sp.tensor(data, dtype=sp.float64).to(device).requires_grad_()
        y = sp.tensor(other, dtype=sp.float64).to(device).requires_grad_()
        z = sp.tensor([[0.0, 2.0, 3.0, 0.0], [1.0, 0.0, 2.0, 3.0], [1.0, 2.0, 3.0, 4.0]])
        z = z.double().to(device).requires_grad_()
        n = sp.tensor(ints).to(device)
        F = sp.nn.functional
        outs = [
            x.sin(),
            sp.cos(y),
            sp.tan(y * 0.5),
            x.log10(),
            sp.log2(x),
            x**y,
            10**y,
            x.pow(2.5),
            y % 0.7,
            sp.fmod(y, x),
            sp.maximum(x, y),
            sp.minimum(x, y),
            F.leaky_relu(y),
            F.silu(y),
            F.softplus(y, beta=3, threshold=2),
            y.cumsum(1),
            z.prod(1),
            z.prod(),
            x.std(1),
            (y * 0).std(0),
        ]
        total = sum((o * o).sum() for o in outs)
        total.backward()
        assert x.grad.device.type == device
        constants = [
            n % 3,
            n // 2,
            n & 6,
            n | 1,
            n ^ 3,
            ~n,
            (n > 0) & (n < 3),
            ~(n > 0),
            sp.logical_xor(n, y),
            n.all(1),
            n.any(0, keepdim=True),
            n.nonzero(),
            *sp.where(n > 2),
            n.cumsum(0),
            n.prod(1),
        ]
        for c in constants:
            assert c.device.type == device
        values = [o.detach().cpu().numpy() for o in outs + constants]
        return values + [t.grad.cpu().numpy() for t in (x, y, z)]

    for got, want in zip(run("sim"), run("cpu")):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)

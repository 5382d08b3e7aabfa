"""Chapter 4's exercises on the reference (course version 1.1): 4.7 ``newton_step`` against
Newton steps worked out here in NumPy from closed-form gradients and Hessians, with the
notebook's claims (a quadratic in one step; on Rosenbrock's valley one step moves away, then
the error is squared step by step); 4.8 ``jit.trace`` (the given tape, and the replay: values
and gradients against NumPy, fn run once, shapes refused, the branch the trace saw). A
PyTorch part, where torch is installed, compares with ``torch.autograd.functional.hessian``
with ``torch.linalg.solve``, and with ``torch.jit.trace``."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

from solutions import ch04_backward as sp
from solutions.ch02_tensor.function import Function

F64 = sp.float64


def _rosenbrock(v):
    return (1 - v[0]) ** 2 + 100 * (v[1] - v[0] * v[0]) ** 2


def _rosenbrock_step(x: np.ndarray) -> np.ndarray:
    """One Newton step on Rosenbrock's function, from its gradient and Hessian by hand."""
    x0, x1 = x
    g = np.array([-2 * (1 - x0) - 400 * x0 * (x1 - x0**2), 200 * (x1 - x0**2)])
    H = np.array([[2 - 400 * x1 + 1200 * x0**2, -400 * x0], [-400 * x0, 200.0]])
    return x - np.linalg.solve(H, g)


# -- 4.7 newton_step ---------------------------------------------------------------------------


def test_a_quadratic_lands_on_its_minimum_in_one_step_and_x_is_left_alone() -> None:
    rng = np.random.default_rng(0)
    M = rng.normal(size=(4, 4))
    A_np, b_np = M @ M.T + 4 * np.eye(4), rng.normal(size=4)
    A, b = sp.tensor(A_np, dtype=F64), sp.tensor(b_np, dtype=F64)
    x = sp.tensor(rng.normal(size=4), dtype=F64)
    before = x.data.copy()
    new = sp.newton_step(lambda v: 0.5 * (v @ (A @ v)) - b @ v, x)
    np.testing.assert_allclose(new.data, np.linalg.solve(A_np, b_np), rtol=1e-10)
    assert new is not x and np.array_equal(x.data, before)
    assert new.shape == x.shape and new.dtype == x.dtype and not new.requires_grad


@pytest.mark.parametrize("start", [[-1.2, 1.0], [0.5, 0.9], [2.0, -1.5]])
def test_a_step_on_rosenbrock_is_the_closed_form_newton_step(start: list) -> None:
    new = sp.newton_step(_rosenbrock, sp.tensor(start, dtype=F64))
    np.testing.assert_allclose(new.data, _rosenbrock_step(np.array(start)), rtol=1e-10)


def test_other_shapes_and_dtypes() -> None:
    # 0-d: x⁴ − 3x² + x at 2: x − f'/f'' = 2 − 21/42
    new = sp.newton_step(lambda t: t**4 - 3.0 * t**2 + t, sp.tensor(2.0, dtype=F64))
    assert new.shape == () and np.isclose(new.item(), 2 - 21 / 42)
    # (2, 2): Σ x⁴/4 + x₀₀x₁₁, flattened row by row
    xv = np.array([[0.5, -1.0], [1.5, 0.8]])
    new = sp.newton_step(
        lambda t: (t**4).sum() * 0.25 + t[0, 0] * t[1, 1], sp.tensor(xv, dtype=F64)
    )
    flat = xv.reshape(4)
    g = flat**3 + np.array([flat[3], 0, 0, flat[0]])
    H = np.diag(3 * flat**2)
    H[0, 3] = H[3, 0] = 1
    np.testing.assert_allclose(new.data, (flat - np.linalg.solve(H, g)).reshape(2, 2), rtol=1e-10)
    # float32 stays float32
    A = sp.tensor([[2.0, 0.5], [0.5, 1.0]])
    new = sp.newton_step(lambda v: 0.5 * (v @ (A @ v)), sp.tensor([1.0, -2.0]))
    assert new.dtype == sp.float32 and np.allclose(new.data, 0, atol=1e-6)


def test_a_non_scalar_f_and_a_singular_hessian_are_refused_by_name() -> None:
    with pytest.raises(RuntimeError, match="scalar"):
        sp.newton_step(lambda v: v * v, sp.tensor([1.0, 2.0], dtype=F64))
    with pytest.raises(RuntimeError, match="singular"):  # H = 0
        sp.newton_step(lambda v: v * 3.0, sp.tensor(0.5, dtype=F64))
    for a in ([1.0, 1.0, 1.0], [0.21, 0.46, 0.09]):  # rank 1: exactly, and up to rounding
        at = sp.tensor(a, dtype=F64)
        H = sp.autograd.functional.hessian(
            lambda v, at=at: (at * v).sum() * (at * v).sum(), sp.tensor([0.5, -1, 2], dtype=F64)
        ).data
        with pytest.raises(RuntimeError, match="singular"):
            sp.newton_step(
                lambda v, at=at: (at * v).sum() * (at * v).sum(),
                sp.tensor([0.5, -1.0, 2.0], dtype=F64),
            )
        assert np.linalg.matrix_rank(H) == 1
    # the second a is the case a plain solve misses: NumPy returns huge numbers
    assert np.abs(np.linalg.solve(H, np.ones(3))).max() > 1e12


def test_the_notebooks_rosenbrock_claims() -> None:
    """§10: from (−1.2, 1) the second step moves away, the error is below 1e-10 after 7
    steps, and each error from the fourth step on is at most a constant times the square of
    the one before; gradient descent at 1.9/λ_max is still above 0.1 after 3,000 steps."""
    minimum = np.ones(2)
    x = sp.tensor([-1.2, 1.0], dtype=F64)
    errors = [np.linalg.norm(x.data - minimum)]
    for _ in range(8):
        x = sp.newton_step(_rosenbrock, x)
        errors.append(np.linalg.norm(x.data - minimum))
    assert errors[2] > errors[1] and errors[7] < 1e-10
    for before, after in itertools.pairwise(errors[4:8]):
        assert after <= 10 * before**2
    F = sp.autograd.functional
    largest = np.linalg.eigvalsh(F.hessian(_rosenbrock, sp.tensor([-1.2, 1.0], dtype=F64)).data)
    lr = 1.9 / largest.max()
    x = sp.tensor([-1.2, 1.0], dtype=F64)
    for _ in range(3000):
        x = x - lr * F.vjp(_rosenbrock, x)[1]
    assert np.linalg.norm(x.data - minimum) > 0.1


# -- 4.8 jit.trace -----------------------------------------------------------------------------


def _grow(t):
    while t.item() < 100:
        t = t * 2
    return t * t


def test_the_tape_holds_the_operations_and_apply_is_put_back() -> None:
    original = vars(Function)["apply"]
    traced = sp.jit.trace(_grow, sp.tensor(60.0))
    assert [op.function.__name__ for op in traced.tape] == ["Mul", "Mul"]
    assert traced.tape[1].args[0] is traced.tape[1].args[1] is traced.tape[0].output
    assert vars(Function)["apply"] is original

    def failing(t):
        raise ValueError("inside the trace")

    with pytest.raises(ValueError, match="inside the trace"):
        sp.jit.trace(failing, sp.tensor(1.0))
    assert vars(Function)["apply"] is original


def test_the_replay_follows_the_branch_it_saw_and_never_calls_fn() -> None:
    calls = []

    def counted(t):
        calls.append(t.item())
        return _grow(t)

    traced = sp.jit.trace(counted, sp.tensor(60.0))
    for start in [60.0, 3.0, 0.1]:
        t0 = sp.tensor(start, requires_grad=True)
        out = traced(t0)
        (g,) = sp.autograd.grad(out, t0)
        assert np.isclose(out.item(), 4 * start**2) and np.isclose(g.item(), 8 * start)
    assert calls == [60.0]


def test_values_and_gradients_against_numpy_with_a_weight_and_two_outputs() -> None:
    rng = np.random.default_rng(1)
    W_np = rng.normal(size=(2, 3))
    W = sp.tensor(W_np, dtype=F64, requires_grad=True)

    def fn(x, y):
        return (W @ x).tanh(), (x * y).sum(0)

    traced = sp.jit.trace(fn, (sp.tensor(np.ones((3, 2)), dtype=F64),) * 2)
    xv, yv = rng.normal(size=(3, 2)), rng.normal(size=(3, 2))
    x, y = (
        sp.tensor(xv, dtype=F64, requires_grad=True),
        sp.tensor(yv, dtype=F64, requires_grad=True),
    )
    first, second = traced(x, y)
    t = np.tanh(W_np @ xv)
    np.testing.assert_allclose(first.data, t, rtol=1e-12)
    np.testing.assert_allclose(second.data, (xv * yv).sum(0), rtol=1e-12)
    (first.sum() + second.sum()).backward()
    np.testing.assert_allclose(x.grad.data, W_np.T @ (1 - t * t) + yv, rtol=1e-12)
    np.testing.assert_allclose(y.grad.data, xv, rtol=1e-12)
    np.testing.assert_allclose(W.grad.data, (1 - t * t) @ xv.T, rtol=1e-12)


def test_other_shapes_and_counts_are_refused_naming_the_shapes() -> None:
    traced = sp.jit.trace(lambda x: x * x * 0.5 + x * 3.0, sp.tensor([1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError, match=r"\(3,\).*\(1,\)"):
        traced(sp.tensor([1.0]))  # broadcasting would have run it
    with pytest.raises(RuntimeError, match=r"\(3,\)"):
        traced(sp.tensor([1.0, 2.0, 3.0]), sp.tensor([1.0, 2.0, 3.0]))


# -- PyTorch as the oracle ---------------------------------------------------------------------


def test_newton_step_agrees_with_torch() -> None:
    torch = pytest.importorskip("torch")

    def rosenbrock_torch(v):
        return (1 - v[0]) ** 2 + 100 * (v[1] - v[0] * v[0]) ** 2

    for start in ([-1.2, 1.0], [0.3, -0.7]):
        xt = torch.tensor(start, dtype=torch.float64)
        g = torch.autograd.functional.vjp(rosenbrock_torch, xt)[1]
        H = torch.autograd.functional.hessian(rosenbrock_torch, xt)
        expected = (xt - torch.linalg.solve(H, g)).numpy()
        got = sp.newton_step(_rosenbrock, sp.tensor(start, dtype=F64)).data
        np.testing.assert_allclose(got, expected, rtol=1e-12)
    with pytest.raises(RuntimeError, match="singular"):  # torch's solve refuses it too
        torch.linalg.solve(
            torch.ones(2, 2, dtype=torch.float64), torch.ones(2, dtype=torch.float64)
        )


def test_the_replay_agrees_with_torch_jit_trace() -> None:
    torch = pytest.importorskip("torch")

    def fn(x):
        return (x.reshape(3, 2).transpose(0, 1) * 1.5).tanh().sum(1)

    example, new = np.linspace(-1, 1, 6), np.array([0.3, -2.0, 1.1, 0.0, 0.7, -0.4])
    ours = sp.jit.trace(fn, sp.tensor(example, dtype=F64))
    with warnings.catch_warnings():  # newer PyTorch deprecates jit.trace for torch.compile
        warnings.simplefilter("ignore", DeprecationWarning)
        theirs = torch.jit.trace(fn, torch.tensor(example))
    x = sp.tensor(new, dtype=F64, requires_grad=True)
    xt = torch.tensor(new, requires_grad=True)
    out, out_t = ours(x), theirs(xt)
    np.testing.assert_allclose(out.data, out_t.detach().numpy(), rtol=1e-12)
    out.sum().backward()
    out_t.sum().backward()
    np.testing.assert_allclose(x.grad.data, xt.grad.numpy(), rtol=1e-12)

"""Chapter 5's exercise on the reference (course version 1.1): 5.13 ``fit_linear`` against
gradient descent written out here in NumPy (the losses before each step, the final weight
and bias), least squares by ``numpy.linalg.lstsq``, and the contract (one loss per step as
a Python float, a Linear in x's dtype, its parameters leaf Parameters that require grad).
The check's own parts are held to what they claim: each known mistake's descent is told
apart from the right one, and the converging cases do converge. A PyTorch part, where torch
is installed, runs the same loop in PyTorch from the same starting weights."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from autograder.checks.ch05_nn import exercises
from solutions import ch05_nn as sp


def _data(n: int, inputs: int, outputs: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, inputs))
    y = x @ rng.uniform(-2, 2, size=(outputs, inputs)).T + rng.uniform(-1, 1, size=outputs)
    return x, y + 0.1 * rng.normal(size=(n, outputs))


def _start(inputs: int, outputs: int, seed: int, dtype=sp.float64) -> tuple:
    """The weight and bias the Linear made first after ``manual_seed(seed)`` holds."""
    sp.manual_seed(seed)
    start = sp.nn.Linear(inputs, outputs, dtype=dtype)
    return np.array(start.weight.data), np.array(start.bias.data)


def _by_hand(x, y, w, b, epochs: int, lr: float) -> tuple[list[float], np.ndarray, np.ndarray]:
    """Gradient descent on the mean of (x wᵀ + b − y)², its gradient written out."""
    losses = []
    for _ in range(epochs):
        r = x @ w.T + b - y
        losses.append(float(np.mean(r**2)))
        w = w - lr * (2 / r.size) * r.T @ x
        b = b - lr * (2 / r.size) * r.sum(axis=0)
    return losses, w, b


def _fit(x, y, epochs: int, lr: float, seed: int, dtype=sp.float64):
    sp.manual_seed(seed)
    return sp.fit_linear(sp.tensor(x, dtype=dtype), sp.tensor(y, dtype=dtype), epochs, lr)


@pytest.mark.parametrize(("n", "inputs", "outputs"), [(6, 1, 1), (12, 2, 3), (30, 4, 2)])
def test_the_descent_is_gradient_descent_on_the_mean_squared_error(
    n: int, inputs: int, outputs: int
) -> None:
    x, y = _data(n, inputs, outputs, seed=n)
    w0, b0 = _start(inputs, outputs, seed=7)
    model, losses = _fit(x, y, 8, 0.1, seed=7)
    want, w, b = _by_hand(x, y, w0, b0, 8, 0.1)
    assert len(losses) == 8 and all(type(v) is float for v in losses)
    assert losses[0] == pytest.approx(float(np.mean((x @ w0.T + b0 - y) ** 2)), rel=1e-12)
    np.testing.assert_allclose(losses, want, rtol=1e-10)
    np.testing.assert_allclose(model.weight.data, w, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(model.bias.data, b, rtol=1e-10, atol=1e-13)


def test_the_losses_fall_and_the_fit_lands_on_least_squares() -> None:
    x, y = _data(40, 3, 2, seed=1)
    model, losses = _fit(x, y, 300, 0.3, seed=2)
    # falling at every step, until the float64 rounding of the floor
    assert all(b <= a * (1 + 1e-12) for a, b in itertools.pairwise(losses))
    assert losses[1] < losses[0]
    solution = np.linalg.lstsq(np.hstack([x, np.ones((40, 1))]), y, rcond=None)[0]
    np.testing.assert_allclose(model.weight.data, solution[:-1].T, atol=1e-9)
    np.testing.assert_allclose(model.bias.data, solution[-1], atol=1e-9)
    floor = float(np.mean((np.hstack([x, np.ones((40, 1))]) @ solution - y) ** 2))
    assert losses[-1] == pytest.approx(floor, rel=1e-9)


def test_the_model_is_a_linear_of_x_dtype_whose_parameters_stay_leaves() -> None:
    x, y = _data(10, 2, 1, seed=3)
    for dtype in (sp.float32, sp.float64):
        model, _ = _fit(x, y, 3, 0.1, seed=4, dtype=dtype)
        assert isinstance(model, sp.nn.Linear)
        assert (model.in_features, model.out_features) == (2, 1)
        for p in (model.weight, model.bias):
            assert isinstance(p, sp.nn.Parameter) and p.grad_fn is None and p.requires_grad
            assert p.dtype == dtype
        assert list(dict(model.named_parameters())) == ["weight", "bias"]


def test_no_epochs_leave_the_start() -> None:
    x, y = _data(5, 1, 1, seed=5)
    w0, b0 = _start(1, 1, seed=6)
    model, losses = _fit(x, y, 0, 0.1, seed=6)
    assert losses == []
    np.testing.assert_array_equal(model.weight.data, w0)
    np.testing.assert_array_equal(model.bias.data, b0)


# -- the check's parts -------------------------------------------------------------------------


def test_the_checks_descent_is_the_one_written_here_and_each_mistake_differs() -> None:
    x, y = _data(8, 2, 2, seed=8)
    w0, b0 = _start(2, 2, seed=9)
    right = exercises.descend(x, y, w0, b0, 4, 0.1)
    losses, w, _ = _by_hand(x, y, w0, b0, 4, 0.1)
    np.testing.assert_allclose(right["losses"], losses, rtol=1e-12)
    np.testing.assert_allclose(right["weight"], w, rtol=1e-12)
    for mistake in exercises.MISTAKES:
        wrong = exercises.descend(x, y, w0, b0, 4, 0.1, mistake)
        assert not np.allclose(wrong["losses"], losses, rtol=1e-6), mistake
    # the loss recorded after the step: the right losses, shifted by one
    after = exercises.descend(x, y, w0, b0, 4, 0.1, "after")["losses"]
    np.testing.assert_allclose(after[:-1], losses[1:], rtol=1e-12)
    # the parameters never moved: every loss is the first, the weights are the start
    frozen = exercises.descend(x, y, w0, b0, 4, 0.1, "frozen")
    assert frozen["losses"] == [losses[0]] * 4
    np.testing.assert_array_equal(frozen["weight"], w0)
    np.testing.assert_array_equal(frozen["bias"], b0)


def test_the_public_labels_name_the_seed_and_the_hidden_ones_no_drawn_value() -> None:
    """A public case can be made again from its label (its manual_seed is shown); a hidden
    one's label is the same for every seed."""
    from autograder.hidden.ch05_nn import CHECKS as HIDDEN

    for check in exercises.EXERCISES:
        for case in check.make_cases(0):
            assert f"sp.manual_seed({case.inputs['seed']})" in case.label, case.label
    for check in HIDDEN:
        if check.task == "5.13":
            labels = [case.label for case in check.make_cases(0)]
            assert labels == [case.label for case in check.make_cases(12345)]
            assert all("sp.manual_seed(a drawn seed)" in label for label in labels)


def test_the_check_names_a_mistake_from_a_record_that_made_it() -> None:
    """A record sent as a program that forgot to clear the gradients would send it (its
    losses and weights from the parent's own descent with that mistake): the verdict names
    the mistake; the right record passes."""
    check = next(c for c in exercises.EXERCISES if c.name.startswith("fit_linear: gradient"))
    case = check.make_cases(0)[1]
    x, y = case.inputs["x"], case.inputs["y"]
    w0, b0 = _start(x.shape[1], y.shape[1], seed=case.inputs["seed"])
    epochs, lr = case.inputs["epochs"], case.inputs["lr"]

    def record(mistake: str = "") -> dict:
        run = exercises.descend(x, y, w0, b0, epochs, lr, mistake)
        flags = {"parameter": True, "leaf": True, "requires_grad": True}
        return {
            "start_weight": w0,
            "start_bias": b0,
            "error": None,
            "message": "",
            "chained": None,
            "returned": "tuple",
            "model": "Linear",
            "kinds": ["float"] * epochs,
            "losses": run["losses"],
            "weight": run["weight"],
            "bias": run["bias"],
            "flags": {"weight": flags, "bias": flags},
        }

    assert check.verdict(case, record()) is None
    for mistake, words in exercises.MISTAKES.items():
        problem = check.verdict(case, record(mistake))
        assert problem and words in problem, (mistake, problem)
    leaf = {
        **record(),
        "flags": {
            "weight": {"parameter": True, "leaf": False, "requires_grad": True},
            "bias": {"parameter": True, "leaf": True, "requires_grad": True},
        },
    }
    assert "model.weight is no longer a leaf" in check.verdict(case, leaf)


def test_the_converging_cases_converge_from_any_start() -> None:
    """The cases marked ``converges`` (the public one and the hidden one) reach lstsq's
    solution from both corners of U(−k, k) (the case builder asserts it; it must not raise)."""
    from autograder.hidden.ch05_nn import CHECKS as HIDDEN

    for check in [*exercises.EXERCISES, *HIDDEN]:
        if check.task == "5.13":
            cases = check.make_cases(3)
            assert cases


# -- PyTorch as the oracle ---------------------------------------------------------------------


def test_the_same_loop_in_pytorch_gives_the_same_losses_and_weights() -> None:
    torch = pytest.importorskip("torch")
    x, y = _data(16, 3, 2, seed=11)
    w0, b0 = _start(3, 2, seed=12)
    model, losses = _fit(x, y, 20, 0.15, seed=12)

    layer = torch.nn.Linear(3, 2, dtype=torch.float64)
    with torch.no_grad():
        layer.weight.copy_(torch.from_numpy(w0))
        layer.bias.copy_(torch.from_numpy(b0))
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    want = []
    for _ in range(20):
        loss = torch.nn.functional.mse_loss(layer(xt), yt)
        loss.backward()
        with torch.no_grad():
            for p in layer.parameters():
                p -= 0.15 * p.grad
                p.grad = None
        want.append(loss.item())
    np.testing.assert_allclose(losses, want, rtol=1e-10)
    np.testing.assert_allclose(model.weight.data, layer.weight.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(model.bias.data, layer.bias.detach().numpy(), rtol=1e-10)

"""Programs of chapter 4's exercises (course version 1.1): 4.7 ``newton_step`` and 4.8
``jit.trace``'s replay. Runs in the child, next to the code under test: it builds the
functions by name (the parent knows their closed forms: ``exercises.py``), calls the
student's code and sends values back. Nothing here computes an expectation.
Standard library, NumPy, the kit and chapter 4's programs only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypedDict

import numpy as np

from ...harness.kit import array, attempt
from ..ch04_backward.programs import set_grad_mode, telling_apart

# -- 4.7 newton_step ---------------------------------------------------------------------------


def objective(sp, function: str, dtype: str, params: dict) -> Callable[[Any], Any]:
    """The function ``function`` of one Tensor x (closed forms in ``exercises.py``)."""
    t = {k: sp.tensor(np.asarray(v), dtype=getattr(sp, dtype)) for k, v in params.items()}
    if function == "quadratic":  # ½xᵀAx − bᵀx
        return lambda x: (x @ (t["A"] @ x)) * 0.5 - t["b"] @ x
    if function == "rosenbrock":  # (1 − x₀)² + 100 (x₁ − x₀²)²
        return lambda x: (1.0 - x[0]) ** 2 + 100.0 * (x[1] - x[0] * x[0]) ** 2
    if function == "quartic":  # x⁴ − 3x² + x, x 0-d
        return lambda x: x**4 - 3.0 * x**2 + x
    if function == "grid":  # x of shape (2, 2): Σ x⁴/4 + Σ C x + x₀₀ x₁₁
        return lambda x: (x**4).sum() * 0.25 + (t["C"] * x).sum() + x[0, 0] * x[1, 1]
    if function == "squares":  # x * x, not a scalar
        return lambda x: x * x
    if function == "sum_squared":  # (Σ a x)², a Hessian of rank 1
        return lambda x: (t["a"] * x).sum() * (t["a"] * x).sum()
    if function == "linear":  # 3x, x 0-d: a Hessian of 0
        return lambda x: x * 3.0
    raise ValueError(function)


class Stepped(TypedDict, total=False):
    error: str | None  # what newton_step raised (None: it returned)
    message: str
    x_new: Any  # the step's values
    shape: list
    dtype: str
    requires_grad: Any
    same_object: bool  # the result is x itself
    x_after: Any  # x's values after the call (the parent compares them with what it sent)


@telling_apart
def newton(sp, function: str, x: Any, dtype: str, params: dict) -> Stepped:
    """``sp.newton_step(f, x)`` once, for the function ``function``."""
    f = objective(sp, function, dtype, params)
    xt = sp.tensor(np.asarray(x), dtype=getattr(sp, dtype))
    done = attempt(lambda: sp.newton_step(f, xt))
    result: Stepped = {"error": done["error"], "message": done["message"]}
    found = done["value"]
    if done["error"] is None:
        result["x_new"] = array(found, keep=True)
        result["shape"] = list(getattr(found, "shape", ()) or ())
        result["dtype"] = str(getattr(found, "dtype", type(found).__name__))
        result["requires_grad"] = getattr(found, "requires_grad", None)
        result["same_object"] = found is xt
    result["x_after"] = array(xt)
    return result


# -- 4.8 jit.trace -----------------------------------------------------------------------------


def traced_function(sp, function: str, params: dict) -> Callable[..., Any]:
    """The function ``function`` (closed forms in ``exercises.py``); a weight W requires
    grad (a parameter the function closes over)."""
    W = sp.tensor(np.asarray(params.get("W", 0.0)), dtype=sp.float64, requires_grad=True)
    c = float(params.get("c", 0.0))
    functions: dict[str, Callable[..., Any]] = {
        "poly": lambda x: x * x * 0.5 + x * 3.0 - 1.0,
        "layer": lambda x: (W @ x).tanh(),
        "pair": lambda x, y: (x * y, (x + y).sum(0)),
        "shapes": lambda x: x.reshape(3, 2).transpose(0, 1) * c,
        "branch": lambda x: x * 2.0 if x.sum().item() > 0 else x * x,
    }
    fn = functions[function]
    fn.weight = W  # type: ignore[attr-defined]
    return fn


class Replayed(TypedDict, total=False):
    calls: int  # how many times fn ran: once for the trace, never for a replay
    error: str | None  # what a replay raised (None: every replay returned)
    message: str
    outputs: list  # per replay, the outputs' values (a list even for one output)
    attached: list  # per replay, whether each output requires grad
    grads: list  # per replay, each input's gradient (then W's, for "layer"), or None


def _outputs(found: Any) -> list:
    return list(found) if isinstance(found, (tuple, list)) else [found]


def _gradients(sp, outputs: list, seeds: list, leaves: list) -> list:
    """What backward from ``outputs`` with ``seeds`` delivers to each of ``leaves`` (by
    identity; None when nothing reached it): ``backward_pass`` with seeds made here (no
    task 4.4) and a capturing ``deliver`` (no task 4.3)."""
    found: dict[int, Any] = {}

    def capture(v: Any, grad: Any) -> None:
        for leaf in leaves:
            if v is leaf:
                found[id(leaf)] = grad

    roots, given = [], []
    for out, seed in zip(outputs, seeds):
        if getattr(out, "requires_grad", False):
            roots.append(out if out.grad_fn is None else out.grad_fn)
            given.append(sp.tensor(np.asarray(seed), dtype=out.dtype))
    if roots:
        set_mode = set_grad_mode(sp)
        previous = set_mode(False)
        try:
            sp.backward_pass(roots, given, False, False, capture)
        finally:
            set_mode(previous)
    return [array(found[id(leaf)]) if id(leaf) in found else None for leaf in leaves]


@telling_apart
def _watched(sp, traced: Any, new: list) -> Any:
    """``traced(*new)``, noting a Tensor compared with == in the chapter's code: where the
    call raised at such a line, ``{"compared": …}`` (``programs.telling_apart``)."""
    return traced(*new)


def _compared(done: dict) -> Any:
    """The ``{"compared": …}`` record a watched call returned, if it did."""
    value = done["value"]
    return value if isinstance(value, dict) and "compared" in value else None


@telling_apart
def replayed(
    sp, function: str, example: list, inputs: list, params: dict, seeds: Any = None
) -> Replayed:
    """``traced = sp.jit.trace(fn, example)``, then ``traced(*new)`` for each list of new
    inputs (which require grad), counting fn's calls; with ``seeds``, the gradients that
    backward from each replay's outputs delivers to the new inputs (and to W)."""
    fn = traced_function(sp, function, params)
    calls = [0]

    def counted(*args: Any) -> Any:
        calls[0] += 1
        return fn(*args)

    examples = tuple(sp.tensor(np.asarray(v), dtype=sp.float64) for v in example)
    traced = sp.jit.trace(counted, examples)
    result: Replayed = {"outputs": [], "attached": [], "grads": []}
    for i, values in enumerate(inputs):
        new = [sp.tensor(np.asarray(v), dtype=sp.float64, requires_grad=True) for v in values]
        done = attempt(lambda new=new: _watched(sp, traced=traced, new=new))
        if _compared(done):
            return _compared(done)
        if done["error"] is not None:
            result.update(error=done["error"], message=done["message"])
            break
        outs = _outputs(done["value"])
        result["outputs"].append([array(o, keep=True) for o in outs])
        result["attached"].append([getattr(o, "requires_grad", None) is True for o in outs])
        if seeds is not None:
            leaves = new + ([fn.weight] if function == "layer" else [])
            result["grads"].append(_gradients(sp, outs, seeds[i], leaves))
    result["calls"] = calls[0]
    return result


@telling_apart
def mismatch(sp, function: str, example: list, wrong: list, params: dict) -> dict:
    """``sp.jit.trace(fn, example)``, then the traced function called with ``wrong`` (other
    shapes, or another number of inputs): what it raised."""
    fn = traced_function(sp, function, params)
    examples = tuple(sp.tensor(np.asarray(v), dtype=sp.float64) for v in example)
    traced = sp.jit.trace(fn, examples)
    new = [sp.tensor(np.asarray(v), dtype=sp.float64) for v in wrong]
    done = attempt(lambda: _watched(sp, traced=traced, new=new))
    if _compared(done):
        return _compared(done)
    found = done["value"]
    shapes = [list(getattr(o, "shape", ())) for o in _outputs(found)] if found is not None else []
    return {"error": done["error"], "message": done["message"], "shapes": shapes}

"""The program of chapter 5's exercise (course version 1.1): 5.13 ``fit_linear``. Runs in
the child, next to the code under test: it makes the data Tensors, reads the starting
weights the fit will draw, calls the student's ``fit_linear`` and sends back what it
returned. Nothing here computes an expectation (the parent's NumPy does: ``exercises.py``).
Standard library, NumPy and the kit only."""

from __future__ import annotations

from typing import Any, TypedDict

import numpy as np

from ...harness.kit import array, attempt, tensor


class Fitted(TypedDict, total=False):
    start_weight: Any  # the Linear the same seed makes first: where the descent starts
    start_bias: Any
    error: str | None  # what fit_linear raised (None: it returned)
    message: str
    returned: str  # the type of what it returned ("tuple" when a pair)
    model: str  # the type of the returned model
    kinds: list  # the type of each item of the returned losses ("float", "Tensor", …)
    losses: Any  # the losses as numbers (None where an item is not a number)
    weight: Any  # the returned model's weight and bias, after the fit
    bias: Any
    flags: dict  # per parameter: a Parameter? a leaf (no grad_fn)? requires grad?


def _number(value: Any) -> Any:
    """``value`` as a float where it is a Python or NumPy number, else None."""
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return float(value)
    return None


def _flags(sp, p: Any) -> dict:
    return {
        "parameter": isinstance(p, sp.nn.Parameter),
        "leaf": getattr(p, "grad_fn", "missing") is None,
        "requires_grad": bool(getattr(p, "requires_grad", False)),
    }


def fit_linear(sp, x: Any, y: Any, epochs: int, lr: float, seed: int) -> Fitted:
    """``sp.manual_seed(seed)``, then ``fit_linear(x, y, epochs, lr)``; the start is the
    weight and bias of ``nn.Linear(in, out)`` made after the same seed, in x's dtype."""
    X, Y = tensor(sp, x), tensor(sp, y)
    sp.manual_seed(seed)
    start = sp.nn.Linear(X.shape[1], Y.shape[1], dtype=X.dtype)
    record: Fitted = {"start_weight": array(start.weight), "start_bias": array(start.bias)}
    sp.manual_seed(seed)
    result = attempt(lambda: sp.fit_linear(X, Y, epochs, lr))
    record["error"], record["message"] = result["error"], result["message"]
    if result["error"]:
        return record
    value = result["value"]
    record["returned"] = type(value).__name__
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        return record
    model, losses = value
    record["model"] = type(model).__name__
    if not isinstance(model, sp.nn.Linear):
        return record
    items = list(losses) if isinstance(losses, (list, tuple)) else [losses]
    record["kinds"] = [type(item).__name__ for item in items]
    if not isinstance(losses, (list, tuple)) or any(_number(v) is None for v in items):
        return record
    record["losses"] = [_number(v) for v in items]
    record["weight"], record["bias"] = array(model.weight), array(model.bias)
    record["flags"] = {"weight": _flags(sp, model.weight), "bias": _flags(sp, model.bias)}
    return record

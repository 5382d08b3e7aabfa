"""Gradient clipping: ``clip_grad_norm_`` and ``clip_grad_value_``. Task 6.10.

After ``backward`` and before ``step``, when one bad batch (or a recurrent net's long
product of Jacobians) gives a gradient far larger than usual, one step would throw the
parameters far away. Clipping bounds the step:

    by norm:   n = ‖(g₁, g₂, …)‖_q   over all the gradients together (q = ``norm_type``:
               (Σ |g|^q)^(1/q), or max |g| for q = ∞)
               every g ← g · min(1, c / (n + 10⁻⁶))        c = ``max_norm``
    by value:  every element of every g clamped to [−c, c]

Clipping by norm keeps the gradient's direction and only shortens it; clipping by value
changes the direction. The total norm is that of the gradients concatenated, which is the
norm of the vector of per-tensor norms (‖(‖g₁‖, ‖g₂‖, …)‖_q). Each ``p.grad`` is replaced
by a new tensor (never written into: one gradient tensor may belong to several leaves).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ....ch02_tensor.backend import array_module
from ....ch02_tensor.tensor import Tensor


def _with_grads(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    """The parameters (one tensor, or an iterable of them) that have a gradient."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p for p in parameters if p.grad is not None]


def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float | str = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scale every gradient by ``min(1, max_norm / (total_norm + 1e-6))``; return the total
    norm (a 0-d tensor of the gradients' dtype; ``tensor(0.)`` when no parameter has a
    gradient). A total norm that is inf or nan is a RuntimeError with
    ``error_if_nonfinite``; otherwise the gradients are scaled by what it gives, as in
    PyTorch. Norms of order q ≥ 1 and ∞ only (a ValueError otherwise); ``foreach`` is
    accepted and changes nothing (PyTorch's choice of kernel).

    PyTorch scales each ``.grad`` in place; here each becomes a new tensor, since one
    gradient tensor may be the ``.grad`` of several leaves (chapter 4)."""
    params = _with_grads(parameters)
    norm_type = float(norm_type)
    if not (norm_type >= 1):
        raise ValueError(f"norm_type must be at least 1 or inf, got {norm_type}")
    if not params:
        return Tensor(0.0)
    raise NotImplementedError(
        "Task 6.10: gradient clipping: by norm and by value — see §9 of the notebook"
    )


def clip_grad_value_(
    parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None
) -> None:
    """Clamp every element of every gradient to [−clip_value, clip_value] (each ``.grad`` a
    new tensor; ``foreach`` changes nothing)."""
    params = _with_grads(parameters)
    raise NotImplementedError(
        "Task 6.10: gradient clipping: by norm and by value — see §9 of the notebook"
    )

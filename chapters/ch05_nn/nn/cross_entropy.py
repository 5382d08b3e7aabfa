"""``cross_entropy``: log_softmax and the negative log-likelihood as one operation. Task 5.7.

For one row of logits z (C classes) and its class t, with p = softmax(z) and label smoothing
ε (the target distribution q puts 1 − ε on t and spreads ε evenly: q_c = (1 − ε)[c = t] + ε/C):

    loss = − Σ_c q_c log p_c = (1 − ε)(− log p_t) + ε · mean_c(− log p_c)
    ∂loss/∂z_c = p_c − q_c

Rows whose target is ``ignore_index`` contribute nothing, and the mean (``reduction="mean"``)
divides by the number of rows that count, not by N. ``log p`` comes from the max-shifted
log-sum-exp (task 5.6's idea), so logits of ±1e4 give finite losses and gradients.

The given ``cross_entropy`` checks the arguments and brings any layout PyTorch accepts
((C,), (N, C), (N, C, d1, …) with the classes on axis 1) to rows of shape (M, C) and targets
of shape (M,), which is all ``CrossEntropy`` sees.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ch02_tensor.backend import array_module
from ...ch02_tensor.function import Context, Function
from ...ch02_tensor.tensor import Tensor
from .softmax import _softmax_of

REDUCTIONS = ("mean", "sum", "none")


class CrossEntropy(Function):
    """loss of logits ``z`` (M, C) for class indices ``target`` (an int array (M,)). Forward
    leaves what ``_softmax_of(ctx)`` reads (z saved, ``ctx.dim = 1``, ``ctx.out`` = softmax
    as an array) and whatever else its backward needs. The loss and the gradient have z's
    dtype."""

    @staticmethod
    def forward(
        ctx: Context,
        z: Tensor,
        target: Any,
        ignore_index: int,
        label_smoothing: float,
        reduction: str,
    ) -> Any:
        raise NotImplementedError(
            "Task 5.7: cross_entropy: ignore_index, label smoothing — see §5 of the notebook"
        )

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple:
        raise NotImplementedError(
            "Task 5.7: cross_entropy: ignore_index, label smoothing — see §5 of the notebook"
        )


def cross_entropy(
    input: Tensor,
    target: Any,
    weight: Any = None,
    ignore_index: int = -100,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """Cross-entropy of logits ``input`` against class indices ``target``: shapes (C,) and
    (), (N, C) and (N,), or (N, C, d1, …) and (N, d1, …)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"cross_entropy's input is a Tensor of logits, not {type(input).__name__}")
    if weight is not None:
        raise NotImplementedError("cross_entropy: class weights (weight=) are not in the course")
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction!r} is not a valid value for reduction {REDUCTIONS}")
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0, got {label_smoothing}")
    t = target.data if isinstance(target, Tensor) else np.asarray(target)
    if input.dtype.kind != "f":
        raise TypeError(f"cross_entropy takes floating logits, not {input.dtype}")
    if t.dtype.kind not in "iu":
        kind = "probabilities" if t.shape == input.shape else f"{t.dtype} values"
        raise TypeError(
            f"cross_entropy's target is class indices (an integer tensor, e.g. int64), not "
            f"{kind}; class probabilities as targets are not in the course"
        )
    if input.ndim == 0:
        raise ValueError("cross_entropy needs logits with a class axis, not a 0-d tensor")
    expected = (input.shape[0], *input.shape[2:]) if input.ndim > 1 else ()
    if t.shape != expected:
        raise ValueError(
            f"cross_entropy: logits of shape {input.shape} (classes on axis "
            f"{0 if input.ndim == 1 else 1}) need a target of shape {expected}, got {t.shape}"
        )
    if input.ndim == 1:  # one example: (C,) and ()
        rows, t_rows, kept = input.reshape(1, input.shape[0]), t.reshape(1), ()
    elif input.ndim == 2:  # rows already: no reshape to record
        rows, t_rows, kept = input, t, t.shape
    else:  # (N, C, d1, …): the classes to the last axis, then one row per position
        classes_last = (0, *range(2, input.ndim), 1)
        rows = input.permute(*classes_last).reshape(-1, input.shape[1])
        t_rows, kept = t.reshape(-1), t.shape
    classes = input.shape[0] if input.ndim == 1 else input.shape[1]
    bad = (t_rows != ignore_index) & ((t_rows < 0) | (t_rows >= classes))
    if bad.any():
        raise IndexError(
            f"Target {int(t_rows[bad][0])} is out of bounds: the classes are 0 … {classes - 1}"
            f" (ignore_index={ignore_index})"
        )
    loss = CrossEntropy.apply(rows, t_rows, ignore_index, float(label_smoothing), reduction)
    if reduction == "none":
        return loss.reshape(*kept) if kept else loss.reshape(())
    return loss

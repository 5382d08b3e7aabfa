"""The softmax attention uses: a row with nothing to look at gives zeros. Task 9.1 (§3).

Attention hides the positions a query may not see by setting their scores to −∞ before the
softmax, so that exp(−∞) = 0 gives them no weight. A row whose every score is −∞ (a query
that may see nothing: a padded position, a mask that hides everything) has no weights to
share out: the ordinary softmax computes exp(−∞ − (−∞)) = exp(nan) and returns a row of
nan, which then spreads through every later sum. PyTorch's
``F.scaled_dot_product_attention`` returns zeros there instead (its "safe softmax"), and so
does this one:

    m   = max_j x_j, taken as 0 where it is −∞ (the row is all −∞)
    e_j = exp(x_j − m)                      (0 at every −∞)
    s   = Σ_j e_j
    out = e / s where s > 0, and 0 where s = 0

Backward (y = out, g = ∂L/∂out, sums along the last axis): the softmax's,
``∂L/∂x_i = y_i (g_i − Σ_j g_j y_j)``, which is 0 along a row of zeros, as it should be
(nothing in such a row moved the output). While a graph of the backward is being recorded
(``create_graph``), y is this Function applied again to the saved input, so second
derivatives flow through it.
"""

from __future__ import annotations

from typing import Any

from ..ch02_tensor.backend import array_module
from ..ch02_tensor.function import Context, Function
from ..ch02_tensor.grad_mode import is_grad_enabled
from ..ch02_tensor.tensor import Tensor


class SafeSoftmax(Function):
    """out = exp(x − m) / Σ exp(x − m) along the last axis, 0 where the row is all −∞;
    ctx: x saved, ``out`` (the array ``_probabilities`` reads)."""

    @staticmethod
    def forward(ctx: Context, x: Tensor) -> Any:
        raise NotImplementedError(
            "Task 9.1: safe_softmax: a fully masked row gives zeros — see §3 of the notebook"
        )

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        raise NotImplementedError(
            "Task 9.1: safe_softmax: a fully masked row gives zeros — see §3 of the notebook"
        )


def _probabilities(ctx: Context) -> Tensor:
    """y for a backward: the saved array, or, under ``create_graph``, a recorded
    ``SafeSoftmax`` of the saved input (given)."""
    if is_grad_enabled():
        (x,) = ctx.saved_tensors
        return SafeSoftmax.apply(x)
    return Tensor._from_array(ctx.out)


def safe_softmax(input: Tensor) -> Tensor:
    """Softmax along the last axis, with zeros (not nan) along a row that is all −∞."""
    if not isinstance(input, Tensor):
        raise TypeError(f"safe_softmax takes a Tensor, not {type(input).__name__}")
    return SafeSoftmax.apply(input)

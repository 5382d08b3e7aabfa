"""Losses: ``MSELoss``, ``L1Loss``, ``SmoothL1Loss``, ``HuberLoss``, ``CrossEntropyLoss``,
``NLLLoss``, ``BCELoss`` and ``BCEWithLogitsLoss`` (given code around task 5.7's
``CrossEntropy``).

Each loss module only stores its options and calls its function. ``reduction`` is
``"mean"`` (the default), ``"sum"`` or ``"none"`` (one loss per element).

Binary cross-entropy takes logits for the same reason cross-entropy does: with p = σ(x),
−[y log p + (1 − y) log(1 − p)] loses everything once σ(x) rounds to 0 or 1, while

    loss = max(x, 0) − x·y + log(1 + exp(−|x|))      ∂loss/∂x = σ(x) − y,  ∂loss/∂y = −x

is finite for every x. Its options, as PyTorch's: ``weight`` (broadcast to the input's shape)
multiplies each element's loss, and ``pos_weight`` p (broadcast along the last axis, one per
class) weighs the positive term, for classes whose positives are rare:

    loss = w · [(1 − y) x + (1 + (p − 1) y) · softplus(−x)]
    ∂loss/∂x = w · [(1 + (p − 1) y) σ(x) − p y]        ∂loss/∂y = w · [−x + (p − 1) softplus(−x)]

(p = 1 is the line above). ``binary_cross_entropy`` takes probabilities instead, its logs
clamped at −100 and its gradient's denominator at 1e-12, as PyTorch's: an input that is
exactly 0 or 1 gives 100 per element, not inf.

The distance losses of d = input − target, elementwise (β, δ > 0 their thresholds)::

    l1_loss         |d|                                        ∂/∂d = sign(d)   (0 at d = 0)
    smooth_l1_loss  d²/(2β) where |d| < β, else |d| − β/2       ∂/∂d = d/β inside, sign(d) out
    huber_loss      d²/2    where |d| < δ, else δ(|d| − δ/2)    ∂/∂d = d inside, δ sign(d) out

Huber is smooth L1 scaled by δ (smooth_l1 with β = 0 is l1): quadratic near the target, so
small errors give small gradients; linear far away, so an outlier's gradient stays bounded.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ...ch02_tensor.backend import array_module
from ...ch02_tensor.function import Context, Function
from ...ch02_tensor.tensor import Tensor
from .cross_entropy import REDUCTIONS, _no_grad_for, cross_entropy, nll_loss
from .module import Module


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction!r} is not a valid value for reduction {REDUCTIONS}")


def _same_shape(input: Tensor, target: Tensor, name: str) -> None:
    if input.shape != target.shape:
        warnings.warn(
            f"{name}: Using a target size ({target.shape}) that is different to the input "
            f"size ({input.shape}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.",
            UserWarning,
            stacklevel=3,
        )


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """(input − target)², reduced."""
    _same_shape(input, target, "mse_loss")
    diff = input - target
    return _reduce(diff * diff, reduction)


class BCEWithLogits(Function):
    """loss = max(x, 0) − x·y + log(1 + exp(−|x|)), elementwise; times ``weight`` and with
    ``pos_weight`` (arrays, or None) as in the module's docstring."""

    @staticmethod
    def forward(
        ctx: Context, x: Tensor, y: Tensor, weight: Any = None, pos_weight: Any = None
    ) -> Any:
        xp = array_module(x.data)
        ctx.save_for_backward(x, y)
        ctx.weight, ctx.pos_weight = weight, pos_weight
        if pos_weight is None:
            loss = xp.maximum(x.data, 0) - x.data * y.data + xp.log1p(xp.exp(-xp.abs(x.data)))
        else:
            softplus = xp.log1p(xp.exp(-xp.abs(x.data))) + xp.maximum(-x.data, 0)  # of −x
            loss = (1 - y.data) * x.data + (1 + (pos_weight - 1) * y.data) * softplus
        return loss if weight is None else loss * weight

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple:
        x, y = ctx.saved_tensors
        p, w = ctx.pos_weight, ctx.weight
        if p is None:
            dx = grad_output * (x.sigmoid() - y)
            dy = grad_output * -x if ctx.needs_input_grad[1] else None
        else:
            p = Tensor._from_array(p)
            py = p * y
            dx = grad_output * ((py + 1 - y) * x.sigmoid() - py)
            dy = None
            if ctx.needs_input_grad[1]:
                xp = array_module(x.data)
                softplus = (-x).relu() + Tensor._from_array(xp.log1p(xp.exp(-xp.abs(x.data))))
                dy = grad_output * (-x + (p - 1) * softplus)
        if w is not None:
            w = Tensor._from_array(w)
            dx = dx * w
            dy = None if dy is None else dy * w
        return dx, dy


def _broadcast_weight(weight: Any, like: Tensor, name: str, argument: str) -> Any:
    """A weight Tensor (or None) as an array of ``like``'s dtype broadcast to its shape."""
    if weight is None:
        return None
    if not isinstance(weight, Tensor):
        raise TypeError(
            f"{name}(): argument '{argument}' must be Tensor, not {type(weight).__name__}"
        )
    _no_grad_for(weight, argument, name)
    xp = array_module(like.data)
    try:
        shape = np.broadcast_shapes(weight.shape, like.shape)
    except ValueError:
        shape = None
    if shape != like.shape:
        raise RuntimeError(
            f"{name}: the {argument} of shape {weight.shape} does not broadcast to the input's "
            f"shape {like.shape}"
        )
    return xp.broadcast_to(weight.data.astype(like.dtype), like.shape)


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """Binary cross-entropy of logits ``input`` against targets in [0, 1] of its shape;
    ``weight`` per element (broadcast), ``pos_weight`` per class (the last axis)."""
    if isinstance(weight, str):  # the course's earlier order: (input, target, reduction)
        weight, reduction = None, weight
    if not isinstance(target, Tensor) or target.shape != input.shape:
        shape = target.shape if isinstance(target, Tensor) else type(target).__name__
        raise ValueError(f"Target size ({shape}) must be the same as input size ({input.shape})")
    name = "binary_cross_entropy_with_logits"
    w = _broadcast_weight(weight, input, name, "weight")
    p = _broadcast_weight(pos_weight, input, name, "pos_weight")
    if w is None and p is None:
        return _reduce(BCEWithLogits.apply(input, target.to(input.dtype)), reduction)
    return _reduce(BCEWithLogits.apply(input, target.to(input.dtype), w, p), reduction)


_EPSILON = float(np.float32(1e-12))  # PyTorch's floor, a float32 constant: 9.99999996e-13


class BCE(Function):
    """loss = −w [y log x + (1 − y) log(1 − x)], each log clamped at −100 (PyTorch's);
    ∂loss/∂x = w (x − y) / max(x (1 − x), 1e-12), ∂loss/∂y = w (log(1 − x) − log x)."""

    @staticmethod
    def forward(ctx: Context, x: Tensor, y: Tensor, weight: Any = None) -> Any:
        xp = array_module(x.data)
        ctx.save_for_backward(x, y)
        ctx.weight = weight
        with np.errstate(divide="ignore"):
            log_x = xp.maximum(xp.log(x.data), -100)
            log_1mx = xp.maximum(xp.log(1 - x.data), -100)
        loss = -(y.data * log_x + (1 - y.data) * log_1mx)
        return loss if weight is None else loss * weight

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple:
        x, y = ctx.saved_tensors
        xp = array_module(x.data)
        w = 1 if ctx.weight is None else Tensor._from_array(ctx.weight)
        denominator = Tensor._from_array(xp.maximum((1 - x.data) * x.data, _EPSILON))
        dx = grad_output * w * (x - y) / denominator
        dy = None
        if ctx.needs_input_grad[1]:
            with np.errstate(divide="ignore"):
                logit = xp.log(x.data) - xp.log(1 - x.data)
            dy = grad_output * w * Tensor._from_array(-logit)
        return dx, dy


def binary_cross_entropy(
    input: Tensor, target: Tensor, weight: Tensor | None = None, reduction: str = "mean"
) -> Tensor:
    """Binary cross-entropy of probabilities ``input`` (in [0, 1]) against targets of its
    shape; ``weight`` per element (broadcast). Prefer the logits form: it never rounds."""
    if not isinstance(target, Tensor) or target.shape != input.shape:
        shape = target.shape if isinstance(target, Tensor) else type(target).__name__
        raise ValueError(
            f"Using a target size ({shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )
    values = input.data
    if values.size and not bool(((values >= 0) & (values <= 1)).all()):
        raise RuntimeError("all elements of input should be between 0 and 1")
    w = _broadcast_weight(weight, input, "binary_cross_entropy", "weight")
    return _reduce(BCE.apply(input, target.to(input.dtype), w), reduction)


class OfDifference(Function):
    """The distance losses of d = input − target, elementwise: ``kind`` is "l1",
    "smooth_l1" (threshold β) or "huber" (threshold δ); the formulas are the module's."""

    @staticmethod
    def forward(ctx: Context, d: Tensor, kind: str, k: float) -> Any:
        xp = array_module(d.data)
        ctx.save_for_backward(d)
        ctx.kind, ctx.k = kind, k
        a = xp.abs(d.data)
        if kind == "l1" or k == 0:
            return a
        if kind == "smooth_l1":
            return xp.where(a < k, 0.5 * d.data * d.data / k, a - 0.5 * k)
        return xp.where(a < k, 0.5 * d.data * d.data, k * (a - 0.5 * k))

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple:
        (d,) = ctx.saved_tensors
        xp = array_module(d.data)
        k = ctx.k
        if ctx.kind == "l1" or k == 0:
            slope = xp.sign(d.data)
        elif ctx.kind == "smooth_l1":
            slope = xp.where(d.data < -k, -1.0, xp.where(d.data > k, 1.0, d.data / k))
        else:
            slope = xp.where(d.data < -k, -k, xp.where(d.data > k, k, d.data))
        return (grad_output * Tensor._from_array(slope.astype(d.dtype)),)


def _of_difference(
    input: Tensor, target: Tensor, reduction: str, name: str, kind: str, k: float
) -> Tensor:
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction!r} is not a valid value for reduction {REDUCTIONS}")
    _same_shape(input, target, name)
    return _reduce(OfDifference.apply(input - target, kind, float(k)), reduction)


def l1_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """|input − target|, reduced."""
    return _of_difference(input, target, reduction, "l1_loss", "l1", 0.0)


def smooth_l1_loss(
    input: Tensor, target: Tensor, reduction: str = "mean", beta: float = 1.0
) -> Tensor:
    """Quadratic below ``beta``, |d| − β/2 above it, reduced."""
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return _of_difference(input, target, reduction, "smooth_l1_loss", "smooth_l1", beta)


def huber_loss(
    input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0
) -> Tensor:
    """Quadratic below ``delta``, δ(|d| − δ/2) above it, reduced."""
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    return _of_difference(input, target, reduction, "huber_loss", "huber", delta)


class _Loss(Module):
    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        if reduction not in REDUCTIONS:
            raise ValueError(f"{reduction!r} is not a valid value for reduction {REDUCTIONS}")
        self.reduction = reduction


class _WeightedLoss(_Loss):
    """A loss with a ``weight`` Tensor: a buffer, as in PyTorch (saved in ``state_dict`` and
    moved by ``to``; None is neither)."""

    def __init__(self, weight: Tensor | None = None, reduction: str = "mean") -> None:
        super().__init__(reduction)
        if weight is not None and not isinstance(weight, Tensor):
            raise TypeError(f"a loss's weight is a Tensor, not {type(weight).__name__}")
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return mse_loss(input, target, self.reduction)


class L1Loss(_Loss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return l1_loss(input, target, self.reduction)


class SmoothL1Loss(_Loss):
    """``SmoothL1Loss(reduction="mean", beta=1.0)``."""

    def __init__(self, reduction: str = "mean", beta: float = 1.0) -> None:
        super().__init__(reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return smooth_l1_loss(input, target, self.reduction, self.beta)


class HuberLoss(_Loss):
    """``HuberLoss(reduction="mean", delta=1.0)``."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return huber_loss(input, target, self.reduction, self.delta)


class BCELoss(_WeightedLoss):
    """``BCELoss(weight=None, reduction="mean")``: ``loss(probabilities, targets)``."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return binary_cross_entropy(input, target, self.weight, self.reduction)


class BCEWithLogitsLoss(_WeightedLoss):
    """``BCEWithLogitsLoss(weight=None, reduction="mean", pos_weight=None)``."""

    def __init__(
        self,
        weight: Tensor | None = None,
        reduction: str = "mean",
        pos_weight: Tensor | None = None,
    ) -> None:
        if isinstance(weight, str):  # the course's earlier order: BCEWithLogitsLoss("sum")
            weight, reduction = None, weight
        super().__init__(weight, reduction)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return binary_cross_entropy_with_logits(
            input, target, self.weight, self.reduction, pos_weight=self.pos_weight
        )


class NLLLoss(_WeightedLoss):
    """``NLLLoss(weight=None, ignore_index=-100, reduction="mean")``:
    ``loss(log_probabilities, class_indices)``."""

    def __init__(
        self, weight: Tensor | None = None, ignore_index: int = -100, reduction: str = "mean"
    ) -> None:
        super().__init__(weight, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return nll_loss(
            input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction
        )


class CrossEntropyLoss(_WeightedLoss):
    """``CrossEntropyLoss(weight=None, ignore_index=-100, reduction="mean",
    label_smoothing=0.0)``: ``loss(logits, class_indices)``."""

    def __init__(
        self,
        weight: Any = None,
        ignore_index: int = -100,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(weight, reduction)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return cross_entropy(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )

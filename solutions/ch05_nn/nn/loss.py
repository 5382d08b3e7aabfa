"""Losses: ``MSELoss``, ``CrossEntropyLoss`` and ``BCEWithLogitsLoss`` (given code around
task 5.7's ``CrossEntropy``).

Each loss module only stores its options and calls its function. ``reduction`` is
``"mean"`` (the default), ``"sum"`` or ``"none"`` (one loss per element).

Binary cross-entropy takes logits for the same reason cross-entropy does: with p = σ(x),
−[y log p + (1 − y) log(1 − p)] loses everything once σ(x) rounds to 0 or 1, while

    loss = max(x, 0) − x·y + log(1 + exp(−|x|))      ∂loss/∂x = σ(x) − y,  ∂loss/∂y = −x

is finite for every x.
"""

from __future__ import annotations

import warnings
from typing import Any

from ...ch02_tensor.backend import array_module
from ...ch02_tensor.function import Context, Function
from ...ch02_tensor.tensor import Tensor
from .cross_entropy import REDUCTIONS, cross_entropy
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
    """loss = max(x, 0) − x·y + log(1 + exp(−|x|)), elementwise."""

    @staticmethod
    def forward(ctx: Context, x: Tensor, y: Tensor) -> Any:
        xp = array_module(x.data)
        ctx.save_for_backward(x, y)
        return xp.maximum(x.data, 0) - x.data * y.data + xp.log1p(xp.exp(-xp.abs(x.data)))

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple:
        x, y = ctx.saved_tensors
        dy = grad_output * -x if ctx.needs_input_grad[1] else None
        return grad_output * (x.sigmoid() - y), dy


def binary_cross_entropy_with_logits(
    input: Tensor, target: Tensor, reduction: str = "mean"
) -> Tensor:
    """Binary cross-entropy of logits ``input`` against targets in [0, 1] of its shape."""
    if not isinstance(target, Tensor) or target.shape != input.shape:
        shape = target.shape if isinstance(target, Tensor) else type(target).__name__
        raise ValueError(f"Target size ({shape}) must be the same as input size ({input.shape})")
    return _reduce(BCEWithLogits.apply(input, target.to(input.dtype)), reduction)


class _Loss(Module):
    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        if reduction not in REDUCTIONS:
            raise ValueError(f"{reduction!r} is not a valid value for reduction {REDUCTIONS}")
        self.reduction = reduction


class MSELoss(_Loss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return mse_loss(input, target, self.reduction)


class BCEWithLogitsLoss(_Loss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return binary_cross_entropy_with_logits(input, target, self.reduction)


class CrossEntropyLoss(_Loss):
    """``CrossEntropyLoss(ignore_index=-100, reduction="mean", label_smoothing=0.0)``:
    ``loss(logits, class_indices)``."""

    def __init__(
        self,
        weight: Any = None,
        ignore_index: int = -100,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(reduction)
        if weight is not None:
            raise NotImplementedError("CrossEntropyLoss: class weights are not in the course")
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return cross_entropy(
            input,
            target,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )

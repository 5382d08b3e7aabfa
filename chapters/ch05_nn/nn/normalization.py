"""Normalisation layers: ``BatchNorm1d`` (task 5.10) and ``LayerNorm`` (given).

Both standardise and then rescale, per feature, with learned γ (``weight``, ones) and β
(``bias``, zeros):

    y = (x − μ) / √(σ² + ε) · γ + β

They differ in what μ and σ² are averaged over. LayerNorm: each example's own features (the
last axes), the same in training and evaluation. BatchNorm: each feature over the *batch*
(axis 0, and axis 2 for (N, C, L) inputs), which a single test example does not have; so
while training it also keeps running averages, as buffers, and uses them in ``eval()``:

    running_mean ← (1 − momentum) · running_mean + momentum · μ_batch
    running_var  ← (1 − momentum) · running_var  + momentum · σ²_batch · n / (n − 1)

(normalising uses the biased σ², the running average the unbiased one, as PyTorch does;
``momentum=None`` averages all batches equally). BatchNorm's backward is the engine's,
through the recorded operations; the running averages are updated outside the graph.
LayerNorm with its weight and bias is one Function (``LayerNormFunction``, its backward
written out below), because a Transformer calls it twice per block and nine recorded
operations cost more than the arithmetic.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...ch02_tensor.backend import array_module
from ...ch02_tensor.dtypes import get_default_dtype
from ...ch02_tensor.function import Context, Function
from ...ch02_tensor.tensor import Tensor
from .module import Module
from .parameter import Parameter


class BatchNorm1d(Module):
    """``BatchNorm1d(num_features, eps=1e-5, momentum=0.1, affine=True,
    track_running_stats=True, device=None, dtype=None)`` for inputs (N, C) or (N, C, L)."""

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        dtype = np.dtype(dtype or get_default_dtype())
        if affine:
            self.weight = Parameter(np.ones(num_features, dtype))
            self.bias = Parameter(np.zeros(num_features, dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", Tensor(np.zeros(num_features, dtype)))
            self.register_buffer("running_var", Tensor(np.ones(num_features, dtype)))
            self.register_buffer("num_batches_tracked", Tensor(np.array(0, np.int64)))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)
        if device is not None:
            self.to(device)

    def forward(self, x: Tensor) -> Tensor:
        if x.ndim not in (2, 3) or x.shape[1] != self.num_features:
            raise ValueError(
                f"BatchNorm1d({self.num_features}) takes inputs of shape (N, "
                f"{self.num_features}) or (N, {self.num_features}, L), got {x.shape}"
            )
        axes = (0,) if x.ndim == 2 else (0, 2)
        n = x.numel() // self.num_features  # values averaged per feature
        if self.training and n <= 1:
            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size {x.shape}"
            )
        shape = (1, self.num_features) + (1,) * (x.ndim - 2)  # a feature's value per axis
        raise NotImplementedError(
            "Task 5.10: BatchNorm1d: batch statistics and running averages — see §8 of the notebook"
        )

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, track_running_stats={self.track_running_stats}"
        )


class LayerNorm(Module):
    """``LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
    device=None, dtype=None)``:
    standardise over the last ``len(normalized_shape)`` axes of each example."""

    def __init__(
        self,
        normalized_shape: int | Sequence[int],
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if isinstance(normalized_shape, (int, np.integer)):
            normalized_shape = (int(normalized_shape),)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine, self.has_bias = eps, elementwise_affine, bias
        dtype = np.dtype(dtype or get_default_dtype())
        if elementwise_affine:
            self.weight = Parameter(np.ones(self.normalized_shape, dtype))
            if bias:
                self.bias = Parameter(np.zeros(self.normalized_shape, dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if device is not None:
            self.to(device)

    def forward(self, x: Tensor) -> Tensor:
        k = len(self.normalized_shape)
        if tuple(x.shape[x.ndim - k :]) != self.normalized_shape or x.ndim < k:
            raise ValueError(
                f"LayerNorm({self.normalized_shape}) needs inputs whose last axes are "
                f"{self.normalized_shape}, got {x.shape}"
            )
        if self.weight is not None and self.bias is not None:
            return LayerNormFunction.apply(x, self.weight, self.bias, k, self.eps)
        y = _standardised(x, k, self.eps)
        if self.weight is not None:
            y = y * self.weight
        if self.bias is not None:
            y = y + self.bias
        return y

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, "
            f"elementwise_affine={self.elementwise_affine}, bias={self.has_bias}"
        )


def _standardised(x: Tensor, k: int, eps: float) -> Tensor:
    """x̂ = (x − μ) / √(σ² + ε) over the last k axes, as recorded operations."""
    centred, r = _centred_and_rstd(x, k, eps)
    return centred * r


def _centred_and_rstd(x: Tensor, k: int, eps: float) -> tuple[Tensor, Tensor]:
    """(x − μ, 1 / √(σ² + ε)) over the last k axes, as recorded operations."""
    axes = tuple(range(x.ndim - k, x.ndim))
    centred = x - x.mean(dim=axes, keepdim=True)
    return centred, 1 / ((centred * centred).mean(dim=axes, keepdim=True) + eps).sqrt()


class LayerNormFunction(Function):
    """y = x̂ · γ + β, x̂ = (x − μ) / √(σ² + ε) over the last k axes: one recorded operation
    instead of nine (a Transformer normalises twice per block).

    Backward, with ĝ = g · γ, r = 1 / √(σ² + ε) and means over the normalised axes:

        ∂L/∂x = r · (ĝ − mean(ĝ) − x̂ · mean(ĝ · x̂))
        ∂L/∂γ = Σ g · x̂,   ∂L/∂β = Σ g   (sums over the leading axes)

    written in Tensor operations on the saved x, so that under ``create_graph`` it is
    recorded and second derivatives flow."""

    @staticmethod
    def forward(ctx: Context, x: Tensor, weight: Tensor, bias: Tensor, k: int, eps: float):
        a = x.data
        axes = tuple(range(a.ndim - k, a.ndim))
        centred = a - a.mean(axis=axes, keepdims=True)
        xhat = centred / array_module(a).sqrt(
            (centred * centred).mean(axis=axes, keepdims=True) + eps
        )
        ctx.save_for_backward(x, weight)
        ctx.k, ctx.eps = k, eps
        return xhat * weight.data + bias.data

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor):
        x, weight = ctx.saved_tensors
        k, g = ctx.k, grad_output
        axes = tuple(range(x.ndim - k, x.ndim))
        lead = tuple(range(x.ndim - k))
        centred, r = _centred_and_rstd(x, k, ctx.eps)
        xhat = centred * r
        grads = [None, None, None]
        if ctx.needs_input_grad[0]:
            gh = g * weight
            mean_gh = gh.mean(dim=axes, keepdim=True)
            grads[0] = r * (gh - mean_gh - xhat * (gh * xhat).mean(dim=axes, keepdim=True))
        if ctx.needs_input_grad[1]:
            grads[1] = (g * xhat).sum(dim=lead) if lead else g * xhat
        if ctx.needs_input_grad[2]:
            grads[2] = g.sum(dim=lead) if lead else g
        return tuple(grads)

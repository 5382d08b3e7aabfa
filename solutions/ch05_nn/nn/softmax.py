"""``softmax`` and ``log_softmax``, computed so that no logit is too large. Task 5.6.

    softmax(x)_i     = exp(x_i) / Σ_j exp(x_j)
    log_softmax(x)_i = x_i − log Σ_j exp(x_j)

Both are unchanged when a constant is subtracted from every x_j, and subtracting m = max_j x_j
is what makes them computable: every exp(x_j − m) is at most 1 (no overflow at x = 1e4) and
one of them is exactly 1 (the sum is at least 1: no log 0 at x = −1e4).

Backward (y = softmax(x), g = ∂L/∂out, sums along ``dim``):

    softmax:      ∂L/∂x_i = y_i (g_i − Σ_j g_j y_j)
    log_softmax:  ∂L/∂x_i = g_i − y_i Σ_j g_j

Both forwards leave the same three things on ``ctx`` for their backward (and task 5.7's
``CrossEntropy`` leaves them too): ``ctx.save_for_backward(x)``, ``ctx.dim`` (the axis) and
``ctx.out``, softmax(x) as an array. The given ``_softmax_of(ctx)`` turns them into y: the
saved array as a constant, or, with ``create_graph`` (grad mode on during backward),
``Softmax`` of the saved input as a recorded operation, so second derivatives flow through
it too.
"""

from __future__ import annotations

from typing import Any

from ...ch02_tensor.backend import array_module
from ...ch02_tensor.function import Context, Function
from ...ch02_tensor.grad_mode import is_grad_enabled
from ...ch02_tensor.tensor import Tensor


class Softmax(Function):
    """out = exp(x − max) / Σ exp(x − max) along ``dim``; ctx: x saved, ``dim``, ``out``
    (softmax(x), the array ``_softmax_of`` reads)."""

    @staticmethod
    def forward(ctx: Context, x: Tensor, dim: int) -> Any:
        ### BEGIN SOLUTION 5.6
        xp = array_module(x.data)
        e = xp.exp(x.data - x.data.max(axis=dim, keepdims=True))
        out = e / e.sum(axis=dim, keepdims=True)
        ctx.save_for_backward(x)
        ctx.dim, ctx.out = dim, out
        return out
        ### END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        ### BEGIN SOLUTION 5.6
        y = _softmax_of(ctx)
        return y * (grad_output - (grad_output * y).sum(dim=ctx.dim, keepdim=True))
        ### END SOLUTION


class LogSoftmax(Function):
    """out = (x − max) − log Σ exp(x − max) along ``dim``; ctx: x saved, ``dim``, ``out``
    (softmax(x) = exp(out), the array ``_softmax_of`` reads)."""

    @staticmethod
    def forward(ctx: Context, x: Tensor, dim: int) -> Any:
        ### BEGIN SOLUTION 5.6
        xp = array_module(x.data)
        shifted = x.data - x.data.max(axis=dim, keepdims=True)
        out = shifted - xp.log(xp.exp(shifted).sum(axis=dim, keepdims=True))
        ctx.save_for_backward(x)
        ctx.dim, ctx.out = dim, xp.exp(out)  # keep softmax(x) for backward
        return out
        ### END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        ### BEGIN SOLUTION 5.6
        y = _softmax_of(ctx)
        return grad_output - y * grad_output.sum(dim=ctx.dim, keepdim=True)
        ### END SOLUTION


def _softmax_of(ctx: Context) -> Tensor:
    """softmax(x) for a backward: the saved array (a constant), or, while a graph of the
    backward is being recorded (``create_graph``), ``Softmax`` of the saved input."""
    if is_grad_enabled():
        (x,) = ctx.saved_tensors
        return Softmax.apply(x, ctx.dim)
    return Tensor._from_array(ctx.out)


def _dim(x: Tensor, dim: int | None, name: str) -> int:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name} takes a Tensor, not {type(x).__name__}")
    if dim is None:
        raise TypeError(f"{name}() needs dim= (the axis the probabilities sum along)")
    if not -max(x.ndim, 1) <= dim < max(x.ndim, 1):
        raise IndexError(f"{name}: dim {dim} is out of range for a tensor of shape {x.shape}")
    return dim % x.ndim if x.ndim else 0


def softmax(input: Tensor, dim: int | None = None) -> Tensor:
    """Probabilities along ``dim``: positive, summing to 1."""
    return Softmax.apply(input, _dim(input, dim, "softmax"))


def log_softmax(input: Tensor, dim: int | None = None) -> Tensor:
    """log(softmax(input)), computed without ever forming a 0 or an inf."""
    return LogSoftmax.apply(input, _dim(input, dim, "log_softmax"))

"""Pointwise functions: exp, log, sqrt (task 2.4) and tanh, sigmoid, relu, abs (task 2.5), §5.

Each out[i] depends on a[i] alone, so ∂L/∂a = grad_output · f'(a), elementwise. Where
f' is written with f (exp' = exp, tanh' = 1 − tanh²), the backward recomputes f from the
saved input with Tensor operations rather than keeping the output: the output's node would
point back to itself, and recomputing keeps the backward differentiable (chapter 4).
"""

from __future__ import annotations

from .backend import array_module
from .function import Context, Function


class Exp(Function):
    """out = eᵃ             ∂out/∂a = eᵃ"""

    @staticmethod
    def forward(ctx: Context, a):
        ctx.save_for_backward(a)
        return array_module(a.data).exp(a.data)

    @staticmethod
    def backward(ctx: Context, grad_output):
        (a,) = ctx.saved_tensors
        ### BEGIN SOLUTION 2.4
        return grad_output * a.exp()
        ### END SOLUTION


class Log(Function):
    """out = ln a           ∂out/∂a = 1/a"""

    @staticmethod
    def forward(ctx: Context, a):
        ctx.save_for_backward(a)
        return array_module(a.data).log(a.data)

    @staticmethod
    def backward(ctx: Context, grad_output):
        (a,) = ctx.saved_tensors
        ### BEGIN SOLUTION 2.4
        return grad_output / a
        ### END SOLUTION


class Sqrt(Function):
    """out = √a             ∂out/∂a = 1 / (2√a)"""

    @staticmethod
    def forward(ctx: Context, a):
        ctx.save_for_backward(a)
        return array_module(a.data).sqrt(a.data)

    @staticmethod
    def backward(ctx: Context, grad_output):
        (a,) = ctx.saved_tensors
        ### BEGIN SOLUTION 2.4
        return grad_output / (2 * a.sqrt())
        ### END SOLUTION


class Tanh(Function):
    """out = tanh a         ∂out/∂a = 1 − tanh²a"""

    @staticmethod
    def forward(ctx: Context, a):
        ctx.save_for_backward(a)
        return array_module(a.data).tanh(a.data)

    @staticmethod
    def backward(ctx: Context, grad_output):
        (a,) = ctx.saved_tensors
        ### BEGIN SOLUTION 2.5
        t = a.tanh()
        return grad_output * (1 - t * t)
        ### END SOLUTION


class Sigmoid(Function):
    """out = σ(a) = 1 / (1 + e⁻ᵃ)        ∂out/∂a = σ(a)(1 − σ(a))"""

    @staticmethod
    def forward(ctx: Context, a):
        ctx.save_for_backward(a)
        xp = array_module(a.data)
        e = xp.exp(-xp.abs(a.data))  # e^-|a| ≤ 1: never overflows, for either sign of a
        return xp.where(a.data >= 0, 1 / (1 + e), e / (1 + e))

    @staticmethod
    def backward(ctx: Context, grad_output):
        (a,) = ctx.saved_tensors
        ### BEGIN SOLUTION 2.5
        s = a.sigmoid()
        return grad_output * s * (1 - s)
        ### END SOLUTION


class ReLU(Function):
    """out = max(a, 0)      ∂out/∂a = 1 where a > 0, else 0 (0 at the kink, as PyTorch)"""

    @staticmethod
    def forward(ctx: Context, a):
        ctx.save_for_backward(a)
        return array_module(a.data).maximum(a.data, 0)

    @staticmethod
    def backward(ctx: Context, grad_output):
        (a,) = ctx.saved_tensors
        ### BEGIN SOLUTION 2.5
        return grad_output * (a > 0)
        ### END SOLUTION


class Abs(Function):
    """out = |a|            ∂out/∂a = sign(a) (0 at the kink, as PyTorch)"""

    @staticmethod
    def forward(ctx: Context, a):
        ctx.save_for_backward(a)
        return array_module(a.data).abs(a.data)

    @staticmethod
    def backward(ctx: Context, grad_output):
        (a,) = ctx.saved_tensors
        ### BEGIN SOLUTION 2.5
        return grad_output * a.sign()
        ### END SOLUTION

"""Arithmetic: + − × ÷, negation and powers. Tasks 2.1–2.3 (§3–§4 of the notebook).

Each backward receives ``grad_output`` = ∂L/∂out (a Tensor of out's shape) and returns
∂L/∂input for each input: a vector-Jacobian product, computed with Tensor operations
(so that chapter 4 can differentiate a backward again). For elementwise ops the Jacobian is
diagonal, and its product with ``grad_output`` is an elementwise product.

In this chapter both operands of an elementwise op have the same shape (a Python number
is a constant and gets no gradient); chapter 3 lifts that restriction.
"""

from __future__ import annotations

from .function import Context, Function


class Add(Function):
    """out = a + b          ∂out/∂a = 1,  ∂out/∂b = 1"""

    @staticmethod
    def forward(ctx: Context, a, b):
        return a.data + b.data

    @staticmethod
    def backward(ctx: Context, grad_output):
        ### BEGIN SOLUTION 2.1
        return grad_output, grad_output
        ### END SOLUTION


class Sub(Function):
    """out = a − b          ∂out/∂a = 1,  ∂out/∂b = −1"""

    @staticmethod
    def forward(ctx: Context, a, b):
        return a.data - b.data

    @staticmethod
    def backward(ctx: Context, grad_output):
        ### BEGIN SOLUTION 2.1
        if not ctx.needs_input_grad[1]:  # b is a constant (x - 1): skip its gradient
            return grad_output, None
        return grad_output, -grad_output
        ### END SOLUTION


class Neg(Function):
    """out = −a             ∂out/∂a = −1"""

    @staticmethod
    def forward(ctx: Context, a):
        return -a.data

    @staticmethod
    def backward(ctx: Context, grad_output):
        ### BEGIN SOLUTION 2.1
        return -grad_output
        ### END SOLUTION


class Mul(Function):
    """out = a · b          ∂out/∂a = b,  ∂out/∂b = a"""

    @staticmethod
    def forward(ctx: Context, a, b):
        needs_a, needs_b = ctx.needs_input_grad  # a is read for ∂L/∂b only, and b for ∂L/∂a
        kept_a = a if needs_b else ctx.shape_only(a)
        ctx.save_for_backward(kept_a, b if needs_a else ctx.shape_only(b))
        return a.data * b.data

    @staticmethod
    def backward(ctx: Context, grad_output):
        a, b = ctx.saved_tensors
        ### BEGIN SOLUTION 2.2
        needs_a, needs_b = ctx.needs_input_grad
        if not needs_b:  # b is a constant (x * 2, x * mask): skip its gradient
            return grad_output * b, None
        if not needs_a:  # a is a constant (2 * x)
            return None, grad_output * a
        return grad_output * b, grad_output * a
        ### END SOLUTION


class Div(Function):
    """out = a / b          ∂out/∂a = 1/b,  ∂out/∂b = −a/b²"""

    @staticmethod
    def forward(ctx: Context, a, b):
        needs_b = ctx.needs_input_grad[1]  # a is read for ∂L/∂b only
        ctx.save_for_backward(a if needs_b else ctx.shape_only(a), b)
        return a.data / b.data

    @staticmethod
    def backward(ctx: Context, grad_output):
        a, b = ctx.saved_tensors
        ### BEGIN SOLUTION 2.2
        if not ctx.needs_input_grad[1]:  # b is a constant (x / 2): skip its gradient
            return grad_output / b, None
        return grad_output / b, -grad_output * a / (b * b)
        ### END SOLUTION


class Pow(Function):
    """out = aⁿ (n a number)    ∂out/∂a = n·aⁿ⁻¹"""

    @staticmethod
    def forward(ctx: Context, a, exponent: float):
        ctx.save_for_backward(a)
        ctx.exponent = exponent
        return a.data**exponent

    @staticmethod
    def backward(ctx: Context, grad_output):
        (a,) = ctx.saved_tensors
        n = ctx.exponent
        ### BEGIN SOLUTION 2.3
        if n == 0:  # a⁰ = 1 is constant; n·aⁿ⁻¹ would be 0·∞ = nan at a = 0
            return grad_output * 0
        return grad_output * n * a ** (n - 1)
        ### END SOLUTION

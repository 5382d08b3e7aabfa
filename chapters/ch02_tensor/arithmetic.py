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
        raise NotImplementedError("Task 2.1: Add, Sub and Neg backward — see §3 of the notebook")


class Sub(Function):
    """out = a − b          ∂out/∂a = 1,  ∂out/∂b = −1"""

    @staticmethod
    def forward(ctx: Context, a, b):
        return a.data - b.data

    @staticmethod
    def backward(ctx: Context, grad_output):
        raise NotImplementedError("Task 2.1: Add, Sub and Neg backward — see §3 of the notebook")


class Neg(Function):
    """out = −a             ∂out/∂a = −1"""

    @staticmethod
    def forward(ctx: Context, a):
        return -a.data

    @staticmethod
    def backward(ctx: Context, grad_output):
        raise NotImplementedError("Task 2.1: Add, Sub and Neg backward — see §3 of the notebook")


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
        raise NotImplementedError("Task 2.2: Mul and Div backward — see §4 of the notebook")


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
        raise NotImplementedError("Task 2.2: Mul and Div backward — see §4 of the notebook")


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
        raise NotImplementedError(
            "Task 2.3: Pow backward (number exponent) — see §4 of the notebook"
        )

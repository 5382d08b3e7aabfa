"""Pointwise math under PyTorch's names (given code, §7): ``sin``, ``cos``, ``tan``,
``log10``, ``log2``, ``sinh``, ``cosh``, the
inverse functions ``asin``, ``acos``, ``atan``, ``asinh``, ``acosh``, ``atanh`` (and their
NumPy-style aliases ``arcsin`` … ``arctanh``), ``log1p`` and ``expm1``.

One Function, ``Unary``, holds them: a row per function of the table below gives the
forward (the array module's function of that name, so they run on any device) and the
derivative as Tensor operations of the input ``a`` (chapter 4 can differentiate them
again). The derivatives are PyTorch's formulas, so its values at the
edges (±1 for asin/acos/atanh, 1 for acosh: ±inf; outside the domain: nan) come out too.

    sin    ∂/∂a = cos a             log10  ∂/∂a = 1/(a ln 10)
    cos    ∂/∂a = −sin a            log2   ∂/∂a = 1/(a ln 2)
    tan    ∂/∂a = 1 + tan² a
    sinh   ∂/∂a = cosh a            asinh  ∂/∂a = 1/√(a² + 1)
    cosh   ∂/∂a = sinh a            acosh  ∂/∂a = 1/√(a² − 1)
    asin   ∂/∂a = 1/√(1 − a²)       atanh  ∂/∂a = 1/(1 − a²)
    acos   ∂/∂a = −1/√(1 − a²)      log1p  ∂/∂a = 1/(1 + a)
    atan   ∂/∂a = 1/(1 + a²)        expm1  ∂/∂a = eᵃ = expm1 a + 1
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ...ch02_tensor import Tensor
from ...ch02_tensor.backend import array_module
from ...ch02_tensor.function import Context, Function
from ...ch02_tensor.tensor import _floating

# name: (the array module's function, the derivative as Tensor operations of the input a)
DERIVATIVES: dict[str, tuple[str, Callable[[Tensor], Tensor]]] = {
    "sin": ("sin", lambda a: unary("cos", a)),
    "cos": ("cos", lambda a: -unary("sin", a)),
    "tan": ("tan", lambda a: 1 + unary("tan", a) * unary("tan", a)),
    "log10": ("log10", lambda a: 1 / (a * math.log(10))),
    "log2": ("log2", lambda a: 1 / (a * math.log(2))),
    "sinh": ("sinh", lambda a: unary("cosh", a)),
    "cosh": ("cosh", lambda a: unary("sinh", a)),
    "asin": ("arcsin", lambda a: 1 / (1 - a * a).sqrt()),
    "acos": ("arccos", lambda a: -1 / (1 - a * a).sqrt()),
    "atan": ("arctan", lambda a: 1 / (1 + a * a)),
    "asinh": ("arcsinh", lambda a: 1 / (a * a + 1).sqrt()),
    "acosh": ("arccosh", lambda a: 1 / (a * a - 1).sqrt()),
    "atanh": ("arctanh", lambda a: 1 / (1 - a * a)),
    "log1p": ("log1p", lambda a: 1 / (a + 1)),
    "expm1": ("expm1", lambda a: unary("expm1", a) + 1),
}


class Unary(Function):
    """out = f(a), f one of DERIVATIVES' rows       ∂L/∂a = ∂L/∂out · f′(a)"""

    @staticmethod
    def forward(ctx: Context, a, name: str):
        ctx.name = name
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out = getattr(array_module(a.data), DERIVATIVES[name][0])(a.data)
        ctx.save_for_backward(a)
        return out

    @staticmethod
    def backward(ctx: Context, grad_output):
        (a,) = ctx.saved_tensors
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return grad_output * DERIVATIVES[ctx.name][1](a)


def unary(name: str, input: Tensor) -> Tensor:
    """``Unary`` of ``input`` (integers and bools first become the default floating dtype,
    as in PyTorch)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(input).__name__}")
    return Unary.apply(_floating(input), name)


def sinh(input: Tensor) -> Tensor:
    return unary("sinh", input)


def cosh(input: Tensor) -> Tensor:
    return unary("cosh", input)


def asin(input: Tensor) -> Tensor:
    return unary("asin", input)


def acos(input: Tensor) -> Tensor:
    return unary("acos", input)


def atan(input: Tensor) -> Tensor:
    return unary("atan", input)


def asinh(input: Tensor) -> Tensor:
    return unary("asinh", input)


def acosh(input: Tensor) -> Tensor:
    return unary("acosh", input)


def atanh(input: Tensor) -> Tensor:
    return unary("atanh", input)


def log1p(input: Tensor) -> Tensor:
    return unary("log1p", input)


def expm1(input: Tensor) -> Tensor:
    return unary("expm1", input)


arcsin, arccos, arctan = asin, acos, atan  # PyTorch's NumPy-style aliases
arcsinh, arccosh, arctanh = asinh, acosh, atanh


def sin(input: Tensor) -> Tensor:
    return unary("sin", input)


def cos(input: Tensor) -> Tensor:
    return unary("cos", input)


def tan(input: Tensor) -> Tensor:
    return unary("tan", input)


def log10(input: Tensor) -> Tensor:
    return unary("log10", input)


def log2(input: Tensor) -> Tensor:
    return unary("log2", input)

"""Pointwise math of two operands a PyTorch script reaches for (given code, §7; ``sin`` …
``log2`` are rows of ``hyperbolic.py``'s one unary Function): powers with a tensor exponent
(``pow``, ``a ** b``, ``10 ** x``);
``remainder`` (``%``), ``fmod``, ``floor_divide`` (``//``); ``maximum``, ``minimum``.

Each is a Function with forward, backward and the math side by side; arrays go through
``xp = array_module(...)``, so they run on any device; the backwards are Tensor operations
(chapter 4 can differentiate them again). The gradients are PyTorch's, at its edges too:
a power's at a zero base, a maximum's at a tie (split half and half).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ...ch02_tensor import Tensor
from ...ch02_tensor.backend import array_module
from ...ch02_tensor.dtypes import is_floating
from ...ch02_tensor.function import Context, Function
from ...ch02_tensor.tensor import _lift, _operands
from .everyday import Where, _scalar

# -- pow with a tensor exponent -------------------------------------------------------------


class PowTensor(Function):
    """out = aᵇ, b a tensor (a number exponent is chapter 2's ``Pow``, task 2.3)

    ∂out/∂a = b·aᵇ⁻¹, 0 where b = 0           ∂out/∂b = aᵇ·ln a, 0 where a = 0 and b ≥ 0

    (PyTorch's values at a zero base: a⁰ = 1 is constant in a, and 0ᵇ for b ≥ 0 does not
    move with b on the side where it is defined; elsewhere ln a of a ≤ 0 gives what it
    gives, −inf or nan, as in PyTorch.)"""

    @staticmethod
    def forward(ctx: Context, a, b):
        ctx.save_for_backward(a, b)
        xp = array_module(a.data)
        if not is_floating(a.dtype) and bool((b.data < 0).any()):
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return xp.power(a.data, b.data)

    @staticmethod
    def backward(ctx: Context, grad_output):
        a, b = ctx.saved_tensors
        needs_a, needs_b = ctx.needs_input_grad
        zero = _scalar(0, grad_output)
        grad_a = grad_b = None
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if needs_a:
                grad_a = Where.apply(b == 0, zero, grad_output * b * PowTensor.apply(a, b - 1))
            if needs_b:
                edge = Tensor._from_array((a.data == 0) & (b.data >= 0))
                grad_b = Where.apply(edge, zero, grad_output * PowTensor.apply(a, b) * a.log())
        return grad_a, grad_b


def pow(input: Any, exponent: Any) -> Tensor:
    """``input`` to the power ``exponent`` (PyTorch's ``torch.pow``): a number exponent is
    chapter 2's ``x ** n``; a tensor exponent (or a number base, ``10 ** x``) is
    ``PowTensor``, whose gradient reaches both. The operands broadcast and promote as in
    ``a * b``. Integers to a negative integer power are an error here, as in PyTorch for a
    number exponent; with a tensor exponent PyTorch computes them (1, −1 or 0), this does
    not (NumPy refuses them)."""
    if not isinstance(exponent, Tensor):
        if not isinstance(input, Tensor):
            raise TypeError("pow() needs a Tensor as the base or the exponent")
        if not isinstance(exponent, numbers.Real):
            raise TypeError(f"pow() takes a number or a Tensor exponent, not {type(exponent)}")
        return input**exponent
    base = input if isinstance(input, Tensor) else _number(input, exponent, "pow")
    a, b = _operands(base, exponent)
    return PowTensor.apply(a, b)


def _number(value: Any, like: Tensor, name: str) -> Tensor:
    """A Python number that meets the tensor ``like``, as a constant (``_lift``'s dtypes)."""
    if isinstance(value, Tensor) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}() takes Tensors or numbers, not {type(value).__name__}")
    return _lift(value, like)


# -- remainder, fmod, floor_divide ----------------------------------------------------------


class Remainder(Function):
    """out = a − ⌊a/b⌋·b (the sign of b, as Python's %)
    ∂out/∂a = 1        ∂out/∂b = −⌊a/b⌋
    (``number % tensor``: PyTorch defines no derivative; its backward is PyTorch's error)"""

    @staticmethod
    def forward(ctx: Context, a, b, number: bool = False):
        ctx.save_for_backward(a, b)
        ctx.number = number
        return _divide(a, b, "remainder")

    @staticmethod
    def backward(ctx: Context, grad_output):
        a, b = ctx.saved_tensors
        if ctx.number:
            raise RuntimeError("derivative for aten::remainder is not implemented")
        quotient = Tensor._from_array(_divide(a, b, "floor"))
        return grad_output, -grad_output * quotient


class Fmod(Function):
    """out = a − trunc(a/b)·b (the sign of a, as C's fmod)
    ∂out/∂a = 1        ∂out/∂b = −trunc(a/b)"""

    @staticmethod
    def forward(ctx: Context, a, b):
        ctx.save_for_backward(a, b)
        return _divide(a, b, "fmod")

    @staticmethod
    def backward(ctx: Context, grad_output):
        a, b = ctx.saved_tensors
        with np.errstate(divide="ignore", invalid="ignore"):
            quotient = array_module(a.data).trunc(a.data / b.data)
        return grad_output, -grad_output * Tensor._from_array(quotient.astype(a.dtype))


class FloorDivide(Function):
    """out = ⌊a/b⌋: a step function. PyTorch defines no derivative for it: its backward is
    the error PyTorch raises, at backward time (the result requires grad, as there)."""

    @staticmethod
    def forward(ctx: Context, a, b):
        return _divide(a, b, "floor")

    @staticmethod
    def backward(ctx: Context, grad_output):
        raise RuntimeError("derivative for aten::floor_divide is not implemented")


def _divide(a: Tensor, b: Tensor, kind: str) -> Any:
    """The arrays' floor quotient, remainder or fmod; an integer division by zero is
    PyTorch's error; a float one gives inf or nan, as there."""
    xp = array_module(a.data)
    if not is_floating(a.dtype) and bool((b.data == 0).any()):
        raise RuntimeError("ZeroDivisionError")
    fn = {"floor": xp.floor_divide, "remainder": xp.remainder, "fmod": xp.fmod}[kind]
    with np.errstate(divide="ignore", invalid="ignore"):
        return fn(a.data, b.data)


def _binary(input: Any, other: Any, name: str) -> tuple[Tensor, Tensor]:
    """Both operands as Tensors of one dtype (a number takes its side's dtype as in ``a * 2``;
    shapes broadcast)."""
    if not isinstance(input, Tensor):
        if not isinstance(other, Tensor):
            raise TypeError(f"{name}() needs a Tensor among its operands")
        input = _number(input, other, name)
    elif not isinstance(other, Tensor):
        other = _number(other, input, name)
    return _operands(input, other)


def remainder(input: Any, other: Any) -> Tensor:
    """Python's ``%`` elementwise (the result has the sign of ``other``), PyTorch's
    ``torch.remainder``; ``x % y`` and ``7 % x``."""
    number = not isinstance(input, Tensor)  # PyTorch's remainder(Scalar, Tensor)
    return Remainder.apply(*_binary(input, other, "remainder"), number)


def fmod(input: Any, other: Any) -> Tensor:
    """C's ``fmod`` elementwise (the result has the sign of ``input``)."""
    return Fmod.apply(*_binary(input, other, "fmod"))


def floor_divide(input: Any, other: Any) -> Tensor:
    """⌊input / other⌋ elementwise, ``//`` (integers stay integers, as in PyTorch)."""
    return FloorDivide.apply(*_binary(input, other, "floor_divide"))


# -- maximum, minimum -----------------------------------------------------------------------


class Maximum(Function):
    """out = max(a, b) elementwise (min(a, b) when not ``largest``; nan if either is nan)
    ∂out/∂a = 1 where a > b, ½ where a = b, 0 where a < b; ∂out/∂b the mirror image"""

    @staticmethod
    def forward(ctx: Context, a, b, largest: bool):
        ctx.save_for_backward(a, b)
        ctx.largest = largest
        xp = array_module(a.data)
        return (xp.maximum if largest else xp.minimum)(a.data, b.data)

    @staticmethod
    def backward(ctx: Context, grad_output):
        a, b = ctx.saved_tensors
        # PyTorch's rule: the full gradient, halved at a tie, 0 where the other one won (so
        # at a nan both get it all)
        tie = Tensor._from_array(a.data == b.data)
        a_lost = Tensor._from_array(a.data < b.data if ctx.largest else a.data > b.data)
        b_lost = Tensor._from_array(a.data > b.data if ctx.largest else a.data < b.data)
        zero, half = _scalar(0, grad_output), grad_output * 0.5
        shared = Where.apply(tie, half, grad_output)
        return Where.apply(a_lost, zero, shared), Where.apply(b_lost, zero, shared)


def maximum(input: Tensor, other: Tensor) -> Tensor:
    """The larger of the two, elementwise (shapes broadcast); at a tie each gets half the
    gradient, as in PyTorch."""
    _two_tensors(input, other, "maximum")
    return Maximum.apply(*_operands(input, other), True)


def minimum(input: Tensor, other: Tensor) -> Tensor:
    """The smaller of the two, elementwise (shapes broadcast); a tie splits the gradient."""
    _two_tensors(input, other, "minimum")
    return Maximum.apply(*_operands(input, other), False)


def _two_tensors(input: Any, other: Any, name: str) -> None:
    for x in (input, other):
        if not isinstance(x, Tensor):
            raise TypeError(
                f"{name}() takes two Tensors, not {type(x).__name__} (for a number: "
                f"clamp(min=...) / clamp(max=...))"
            )

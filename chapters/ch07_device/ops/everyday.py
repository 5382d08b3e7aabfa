"""The everyday operations of a PyTorch script that teach nothing new (given code, §7):
``where``, ``clamp``/``clip``, ``min``/``argmin``, ``flatten``, ``var``/``std`` (``std``'s
gradient is PyTorch's where the deviation is 0: ``StdSqrt``).

Each is a Function (forward, backward and the math side by side) or a few Tensor
operations that record their own graph; every array call is ``xp = array_module(...)``, so
they run on any device.
"""

from __future__ import annotations

import math
import warnings
from collections import namedtuple
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...ch02_tensor import Tensor
from ...ch02_tensor.backend import array_module
from ...ch02_tensor.casting import promote
from ...ch02_tensor.dtypes import get_default_dtype, is_floating
from ...ch02_tensor.function import Context, Function
from ...ch02_tensor.reductions import Max, _axes
from ...ch02_tensor.shapes import dim_index
from ...ch02_tensor.tensor import _lift

min_result = namedtuple("min_result", ["values", "indices"])  # what min(dim=...) returns


# -- where ----------------------------------------------------------------------------------


class Where(Function):
    """out = a where cond, else b       ∂L/∂a = ∂L/∂out where cond (0 elsewhere), ∂L/∂b the
    rest; shapes broadcast, and Node's seam sums each gradient back to its input's shape"""

    @staticmethod
    def forward(ctx: Context, cond, a, b):
        ctx.save_for_backward(cond)
        return array_module(a.data).where(cond.data, a.data, b.data)

    @staticmethod
    def backward(ctx: Context, grad_output):
        (cond,) = ctx.saved_tensors
        zero = _scalar(0, grad_output)
        # where again (not g * mask): an inf or nan in g stays out of the other input
        return None, Where.apply(cond, grad_output, zero), Where.apply(cond, zero, grad_output)


def where(condition: Tensor, input: Any = None, other: Any = None) -> Tensor:
    """``input`` where ``condition`` is true, else ``other`` (PyTorch's ``torch.where``);
    ``input`` and ``other`` may be numbers, and the three shapes broadcast. With the
    condition alone, ``where(condition)`` is ``nonzero(condition, as_tuple=True)``: the
    indices of its true (nonzero) elements, one tensor per axis."""
    if not isinstance(condition, Tensor):
        raise TypeError(f"where() takes a Tensor as the condition, not {type(condition).__name__}")
    if input is None and other is None:
        from .logic import nonzero  # (logic.py imports this module)

        return nonzero(condition, as_tuple=True)
    if input is None or other is None:
        raise TypeError("where() takes the condition alone, or the condition, input and other")
    if condition.dtype != np.bool_:
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{condition.dtype}"
        )
    a, b = _pair(input, other, condition)
    try:
        np.broadcast_shapes(condition.shape, a.shape, b.shape)
    except ValueError:
        raise RuntimeError(
            f"where(): the shapes of condition {condition.shape}, input {a.shape} and other "
            f"{b.shape} do not broadcast"
        ) from None
    return Where.apply(condition, a, b)


def _pair(input: Any, other: Any, like: Tensor) -> tuple[Tensor, Tensor]:
    """``input`` and ``other`` as Tensors of one dtype (a number takes the other's dtype, as
    in ``x * 2``; two numbers: PyTorch's dtype of Python data)."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        dtype = _number_dtype(input, other)
        return _scalar(input, like, dtype), _scalar(other, like, dtype)
    if not isinstance(input, Tensor):
        input = _lift(input, other)
    if not isinstance(other, Tensor):
        other = _lift(other, input)
    if input.dtype != other.dtype:
        input, other = promote(input, other)
    return input, other


def _number_dtype(*values: Any) -> np.dtype:
    if any(isinstance(v, float) for v in values):
        return get_default_dtype()
    if all(isinstance(v, bool) for v in values):
        return np.dtype(np.bool_)
    return np.dtype(np.int64)


def _scalar(value: Any, like: Tensor, dtype: Any = None) -> Tensor:
    """A 0-d constant on ``like``'s device (of ``like``'s dtype unless given)."""
    xp = array_module(like.data)
    return Tensor._from_array(xp.asarray(value, dtype=like.dtype if dtype is None else dtype))


# -- clamp ----------------------------------------------------------------------------------


class Clamp(Function):
    """out = min(max(a, low), high)        ∂out/∂a = 1 where low ≤ a ≤ high, else 0"""

    @staticmethod
    def forward(ctx: Context, a, low: Any, high: Any):
        xp = array_module(a.data)
        inside = xp.ones(a.shape, dtype=bool)
        if low is not None:
            inside &= a.data >= low
        if high is not None:
            inside &= a.data <= high
        ctx.inside = inside
        return xp.clip(a.data, low, high)

    @staticmethod
    def backward(ctx: Context, grad_output):
        inside = Tensor._from_array(ctx.inside)
        return Where.apply(inside, grad_output, _scalar(0, grad_output))


def clamp(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """``input`` limited to [min, max] (PyTorch's ``torch.clamp``): numbers or Tensors
    (which broadcast); the gradient is 0 where a bound was taken. When min > max, every
    element is max, as in PyTorch (and NumPy's ``clip``)."""
    low, high = min, max
    if low is None and high is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(low, Tensor) or isinstance(high, Tensor):
        out = input
        if low is not None:
            out = where(out < low, low, out)
        if high is not None:
            out = where(out > high, high, out)
        return out
    if any(isinstance(b, float) for b in (low, high)) and not is_floating(input.dtype):
        input = input.to(get_default_dtype())  # an int tensor clamped by a float: floats
    return Clamp.apply(input, low, high)


clip = clamp  # NumPy's name, also PyTorch's


# -- min, argmin ----------------------------------------------------------------------------


def min(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:
    """The smallest element (``dim=None``), or ``(values, indices)`` along ``dim``.

    min x = −max(−x): chapter 2's ``Max`` on the negated input, so the gradient is Max's
    (a full min shares it among ties; min(dim) sends it to the index argmin returns).
    Integers and bools, which carry no gradient, take NumPy's min of their data (negating
    a bool or an unsigned integer does not reverse its order)."""
    if isinstance(dim, Tensor):
        raise TypeError("min(input, other) of two tensors is torch.minimum: not in the course")
    if dim is not None and not isinstance(dim, (int, np.integer)):
        raise TypeError(f"min(dim) takes one axis (an int), not {dim!r}")
    if is_floating(input.dtype):
        values = -Max.apply(-input, dim, keepdim)
    else:
        if input.data.size == 0:
            raise RuntimeError(f"min of an empty tensor (shape {input.shape}) is not defined")
        axes = () if dim is None else _axes(dim, input.ndim)
        xp, axis = array_module(input.data), axes[0] if axes else None
        values = Tensor._from_array(
            xp.min(input.data, axis=axis, keepdims=keepdim and axis is not None)
        )
    if dim is None:
        return values
    return min_result(values, argmin(input, dim, keepdim))


def argmin(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """Index of the smallest element (of the flattened tensor when ``dim`` is None)."""
    xp = array_module(input.data)
    if dim is None or input.ndim == 0:
        if dim is not None:
            dim_index(dim, 0)
        index = xp.asarray(xp.argmin(input.data), dtype=np.int64)
        return Tensor._from_array(index.reshape((1,) * input.ndim) if keepdim else index)
    return Tensor._from_array(
        xp.argmin(input.data, axis=dim_index(dim, input.ndim), keepdims=keepdim).astype(np.int64)
    )


# -- flatten --------------------------------------------------------------------------------


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Axes ``start_dim`` to ``end_dim`` (both included) merged into one (a reshape); a 0-d
    tensor becomes 1-d, as in PyTorch."""
    if input.ndim == 0:
        dim_index(start_dim, 0), dim_index(end_dim, 0)
        return input.reshape(1)
    start, end = dim_index(start_dim, input.ndim), dim_index(end_dim, input.ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    merged = math.prod(input.shape[start : end + 1])
    return input.reshape((*input.shape[:start], merged, *input.shape[end + 1 :]))


# -- var, std -------------------------------------------------------------------------------


def var(
    input: Tensor,
    dim: int | Sequence[int] | None = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: float | None = None,
) -> Tensor:
    """The variance over ``dim``: Σ (x − mean)² / (n − correction), correction 1 (Bessel's,
    ``unbiased=True``, the default) or 0 (``unbiased=False``). Tensor operations, so the
    graph records it (∂/∂xᵢ = 2 (xᵢ − mean) / (n − correction))."""
    if isinstance(dim, bool):  # var(True): PyTorch's var(unbiased)
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise RuntimeError("var(): pass unbiased or correction, not both")
    if not is_floating(input.dtype):
        raise RuntimeError(
            f"std and var only support floating point and complex dtypes, not {input.dtype}"
        )
    c = correction if correction is not None else (0 if unbiased is False else 1)
    axes = _axes(dim, input.ndim)
    n = math.prod(input.shape[a] for a in axes)
    d = input - input.mean(dim=axes, keepdim=True) if axes else input - input
    total = (d * d).sum(dim=axes, keepdim=keepdim) if axes else (d * d).sum()
    dof = n - c
    if dof <= 0:
        warnings.warn("var(): degrees of freedom is <= 0", UserWarning, stacklevel=2)
        with np.errstate(invalid="ignore"):  # 0/0 = nan, and x/0 = inf, as PyTorch gives
            return total * math.inf
    return total / dof


def std(
    input: Tensor,
    dim: int | Sequence[int] | None = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: float | None = None,
) -> Tensor:
    """The standard deviation: the square root of ``var`` (same arguments), whose gradient
    is 0 where the deviation is 0 (``StdSqrt``), as in PyTorch."""
    return StdSqrt.apply(var(input, dim, unbiased, keepdim, correction=correction))


class StdSqrt(Function):
    """out = √v, v a variance          ∂out/∂v = 1 / (2√v), and 0 where √v = 0

    PyTorch's std_backward masks the points where the result is 0: there every deviation
    xᵢ − mean is 0, so var's gradient 2(xᵢ − mean)/(n − c) is 0 and the chain's product is
    0 · ∞. Plain ``sqrt`` would give nan there (``ones(4).std()``'s gradient)."""

    @staticmethod
    def forward(ctx: Context, v):
        ctx.save_for_backward(v)
        return array_module(v.data).sqrt(v.data)

    @staticmethod
    def backward(ctx: Context, grad_output):
        (v,) = ctx.saved_tensors
        root = StdSqrt.apply(v)
        zero = Tensor._from_array(root.data == 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            return Where.apply(zero, _scalar(0, grad_output), grad_output / (2 * root))

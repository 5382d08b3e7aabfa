"""Running sums and products (given code, §7): ``cumsum(dim)`` and ``prod`` (of every
element, or along ``dim``).

    cumsum:  outᵢ = Σ_{j≤i} aⱼ           ∂L/∂aⱼ = Σ_{i≥j} gᵢ  (the reversed running sum)
    prod:    out = Πⱼ aⱼ                  ∂out/∂aⱼ = Π_{k≠j} aₖ

The product's gradient is the product of the others, computed without dividing by aⱼ (the
running products from each side): exact when one element is 0 (it alone gets a gradient)
or several are (none gets one), as in PyTorch. Integers and bools sum and multiply as int64,
as in PyTorch.
"""

from __future__ import annotations

import numpy as np

from ...ch02_tensor import Tensor
from ...ch02_tensor.backend import array_module
from ...ch02_tensor.dtypes import is_floating
from ...ch02_tensor.function import Context, Function
from ...ch02_tensor.grad_mode import is_grad_enabled
from ...ch02_tensor.reductions import _kept_shape
from ...ch02_tensor.shapes import dim_index


class Cumsum(Function):
    """out = running sum along ``dim`` (``reverse``: from the end)
    ∂L/∂a = the running sum of g the other way"""

    @staticmethod
    def forward(ctx: Context, a, dim: int, reverse: bool = False):
        ctx.dim, ctx.reverse = dim, reverse
        xp = array_module(a.data)
        if not reverse:
            return xp.cumsum(a.data, axis=dim)
        return xp.flip(xp.cumsum(xp.flip(a.data, axis=dim), axis=dim), axis=dim)

    @staticmethod
    def backward(ctx: Context, grad_output):
        return Cumsum.apply(grad_output, ctx.dim, not ctx.reverse)


def cumsum(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """The running sum along ``dim`` (same shape); integers and bools as int64 unless
    ``dtype`` says otherwise (cast first, as in PyTorch)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"cumsum() takes a Tensor, not {type(input).__name__}")
    x = _accumulator(input, dtype)
    if x.ndim == 0:
        dim_index(dim, 1)
        return Cumsum.apply(x.reshape(1), 0).reshape(())
    return Cumsum.apply(x, dim_index(dim, x.ndim))


class Prod(Function):
    """out = Πⱼ aⱼ along ``dim`` (every element when None)
    ∂out/∂aⱼ = Π_{k≠j} aₖ, without a division (exact at zeros)"""

    @staticmethod
    def forward(ctx: Context, a, dim: int | None, keepdim: bool):
        ctx.save_for_backward(a)
        ctx.dim, ctx.keepdim = dim, keepdim
        xp = array_module(a.data)
        if dim is None:
            return xp.prod(a.data)
        return xp.prod(a.data, axis=dim, keepdims=keepdim)

    @staticmethod
    def backward(ctx: Context, grad_output):
        (a,) = ctx.saved_tensors
        if is_grad_enabled():  # create_graph=True: the others' product is a constant here
            raise NotImplementedError(
                "prod's backward is first order only here: its gradient's gradient "
                "(create_graph=True) is not built"
            )
        xp = array_module(a.data)
        dim = ctx.dim
        data = a.data.reshape(-1) if dim is None else a.data
        axis = 0 if dim is None else dim
        others = _others(xp, data, axis).reshape(a.shape)
        g = grad_output
        if dim is not None and not ctx.keepdim:
            g = g.reshape(_kept_shape(a.shape, (dim,)))
        return g * Tensor._from_array(others)


def _others(xp, data, axis: int):
    """Π_{k≠j} aₖ along ``axis`` for every j: the running product of those before j times
    that of those after j (no division, so a zero is exact)."""
    n = data.shape[axis]
    if n == 0:
        return data

    def part(start, stop):  # data[..., start:stop] along axis
        return (slice(None),) * axis + (slice(start, stop),)

    ones = xp.ones_like(data[part(0, 1)])
    before = xp.concatenate([ones, xp.cumprod(data[part(0, n - 1)], axis=axis)], axis=axis)
    flipped = xp.flip(data, axis=axis)
    after = xp.concatenate([ones, xp.cumprod(flipped[part(0, n - 1)], axis=axis)], axis=axis)
    return before * xp.flip(after, axis=axis)


def prod(input: Tensor, dim: int | None = None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The product of every element (``dim=None``: 0-d) or along ``dim`` (one axis, as in
    PyTorch); integers and bools as int64 unless ``dtype`` says otherwise."""
    if not isinstance(input, Tensor):
        raise TypeError(f"prod() takes a Tensor, not {type(input).__name__}")
    if dim is not None and not isinstance(dim, (int, np.integer)):
        raise TypeError(f"prod(dim) takes one axis (an int), not {dim!r}")
    x = _accumulator(input, dtype)
    if dim is None:
        return Prod.apply(x, None, False)
    if x.ndim == 0:
        dim_index(dim, 1)
        return Prod.apply(x.reshape(1), 0, keepdim).reshape(())
    return Prod.apply(x, dim_index(dim, x.ndim), keepdim)


def _accumulator(input: Tensor, dtype) -> Tensor:
    """``input`` in the dtype a running sum or product keeps: ``dtype`` if given, int64 for
    integers and bools, else its own."""
    if dtype is not None:
        return input.to(dtype)
    if not is_floating(input.dtype):
        return input.to(np.dtype(np.int64))
    return input

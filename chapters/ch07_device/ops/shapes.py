"""Shape operations a script reaches for that teach nothing new (given code, §7): ``tril``/
``triu``, ``flip``, ``repeat``, ``split``/``chunk``, ``masked_fill`` and ``one_hot``.

Each is a Function (forward, backward and the math side by side) or a few Tensor operations
that record their own graph; every array call is ``xp = array_module(...)``, so they run on
any device. PyTorch's names, arguments, dtypes and errors.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...ch02_tensor import Tensor
from ...ch02_tensor.backend import array_module
from ...ch02_tensor.function import Context, Function
from ...ch02_tensor.shapes import dim_index
from .everyday import where

# -- tril, triu -----------------------------------------------------------------------------


class Triangle(Function):
    """out = a on and below (tril) or on and above (triu) the ``diagonal``-th diagonal of the
    last two axes, 0 elsewhere        ∂L/∂a = the same triangle of ∂L/∂out"""

    @staticmethod
    def forward(ctx: Context, a, diagonal: int, upper: bool):
        ctx.diagonal, ctx.upper = diagonal, upper
        xp = array_module(a.data)
        return (xp.triu if upper else xp.tril)(a.data, k=diagonal)

    @staticmethod
    def backward(ctx: Context, grad_output):
        return Triangle.apply(grad_output, ctx.diagonal, ctx.upper)


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle of the last two axes (``diagonal`` > 0: that many diagonals above
    the main one too; < 0: fewer), zeros elsewhere: PyTorch's ``torch.tril``."""
    return _triangle(input, diagonal, upper=False)


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle of the last two axes (``diagonal`` as for ``tril``)."""
    return _triangle(input, diagonal, upper=True)


def _triangle(input: Tensor, diagonal: int, upper: bool) -> Tensor:
    name = "triu" if upper else "tril"
    if input.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    if not isinstance(diagonal, (int, np.integer)) or isinstance(diagonal, bool):
        raise TypeError(f"{name}(): argument 'diagonal' must be int, not {type(diagonal).__name__}")
    return Triangle.apply(input, int(diagonal), upper)


# -- flip -----------------------------------------------------------------------------------


class Flip(Function):
    """out = a reversed along ``dims``        ∂L/∂a = ∂L/∂out reversed along them again"""

    @staticmethod
    def forward(ctx: Context, a, dims: tuple[int, ...]):
        ctx.dims = dims
        if not dims:
            return a.data.copy()
        return array_module(a.data).flip(a.data, axis=dims)

    @staticmethod
    def backward(ctx: Context, grad_output):
        return Flip.apply(grad_output, ctx.dims)


def flip(input: Tensor, dims: Sequence[int]) -> Tensor:
    """``input`` reversed along each axis of ``dims`` (a tuple or list): ``torch.flip``."""
    if not isinstance(dims, (tuple, list)):
        raise TypeError(f"flip(): argument 'dims' must be tuple of ints, not {type(dims).__name__}")
    axes = tuple(dim_index(d, input.ndim) for d in dims)
    if len(set(axes)) != len(axes):
        twice = next(a for a in axes if axes.count(a) > 1)
        raise RuntimeError(f"dim {twice} appears multiple times in the list of dims")
    return Flip.apply(input, axes)


# -- repeat ---------------------------------------------------------------------------------


class Repeat(Function):
    """out = a tiled ``sizes[i]`` times along axis i (a first gets leading axes of size 1
    up to len(sizes))        ∂L/∂a = the sum of ∂L/∂out over the copies"""

    @staticmethod
    def forward(ctx: Context, a, sizes: tuple[int, ...]):
        ctx.shape = a.shape
        ctx.padded = (1,) * (len(sizes) - a.ndim) + a.shape
        ctx.sizes = sizes
        return array_module(a.data).tile(a.data.reshape(ctx.padded), sizes)

    @staticmethod
    def backward(ctx: Context, grad_output):
        # out's axis i is (copy, position) = (sizes[i], padded[i]): split each axis in two
        # and sum over the copies (Tensor operations, so the backward is recorded too)
        pairs = tuple(n for pair in zip(ctx.sizes, ctx.padded) for n in pair)
        copies = tuple(range(0, 2 * len(ctx.sizes), 2))
        return grad_output.reshape(pairs).sum(dim=copies).reshape(ctx.shape)


def repeat(input: Tensor, sizes: Sequence[int]) -> Tensor:
    """``input`` copied ``sizes[i]`` times along axis i (``Tensor.repeat(*sizes)``; PyTorch
    has no module-level ``repeat``). ``sizes`` may be longer than ``input.ndim``: leading
    axes are added."""
    sizes = tuple(int(s) for s in sizes)
    if len(sizes) < input.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            "of tensor"
        )
    if any(s < 0 for s in sizes):
        padded = (1,) * (len(sizes) - input.ndim) + input.shape
        shape = [s * n for s, n in zip(sizes, padded)]
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: {shape}")
    return Repeat.apply(input, sizes)


# -- split, chunk ---------------------------------------------------------------------------


def split(
    tensor: Tensor, split_size_or_sections: int | Sequence[int], dim: int = 0
) -> tuple[Tensor, ...]:
    """``tensor`` cut along ``dim`` into pieces of ``split_size_or_sections`` (an int: that
    size, the last one smaller if need be) or of the sizes it lists (which must add up to
    the axis). Each piece is an indexing of ``tensor`` (a recorded operation), so each one's
    gradient goes back to its place, and a piece left unused contributes zeros."""
    if tensor.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = dim_index(dim, tensor.ndim)
    n = tensor.shape[dim]
    if isinstance(split_size_or_sections, (int, np.integer)):
        size = int(split_size_or_sections)
        if size < 0 or (size == 0 and n != 0):
            raise RuntimeError(
                f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}"
                if size == 0
                else f"split expects split_size be non-negative, but got split_size={size}"
            )
        sizes = [size] * (n // size) + ([n % size] if n % size else []) if size else [0]
    else:
        sizes = [int(s) for s in split_size_or_sections]
        if any(s < 0 for s in sizes) or sum(sizes) != n:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's "
                f"size at dimension {dim}), but got split_sizes={sizes}"
            )
    pieces, start = [], 0
    for size in sizes:
        index = (slice(None),) * dim + (slice(start, start + size),)
        pieces.append(tensor[index])
        start += size
    return tuple(pieces)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """``input`` cut along ``dim`` into ``chunks`` pieces of ⌈n / chunks⌉ (the last one
    smaller; fewer pieces when they run out first), as in PyTorch."""
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = input.shape[dim_index(dim, input.ndim)]
    if n == 0:
        return split(input, [0] * chunks, dim)
    return split(input, -(-n // chunks), dim)


# -- masked_fill ----------------------------------------------------------------------------


def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    """``input`` with ``value`` where ``mask`` (boolean, broadcasting) is true: PyTorch's
    ``masked_fill``. ``value`` is a number or a 0-d tensor (whose gradient is the sum of
    ∂L/∂out where the mask is true), converted to ``input``'s dtype.

        out = where(mask, value, input)    ∂L/∂input = ∂L/∂out where not mask, 0 elsewhere
    """
    if not isinstance(mask, Tensor):
        raise TypeError(f"masked_fill(): argument 'mask' must be Tensor, not {type(mask).__name__}")
    if mask.dtype != np.bool_:
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype {mask.dtype}"
        )
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.ndim} dimension(s)."
            )
        value = value.to(input.device, input.dtype)
    elif isinstance(value, numbers.Number):
        xp = array_module(input.data)
        value = Tensor._from_array(xp.asarray(value).astype(input.dtype))
    else:
        raise TypeError(
            f"masked_fill(): argument 'value' must be Number or Tensor, not {type(value).__name__}"
        )
    return where(mask, value, input)


# -- one_hot --------------------------------------------------------------------------------


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """Class indices (int64) as one-hot rows: shape ``(*tensor.shape, num_classes)``, int64,
    a 1 at each index (``F.one_hot``; ``num_classes=-1``: the largest index + 1). No
    gradient: it is made of integers."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"one_hot(): argument 'input' must be Tensor, not {type(tensor).__name__}")
    if tensor.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    xp, data = array_module(tensor.data), tensor.data
    if num_classes == -1:
        if data.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(xp.max(data)) + 1  # a read-back, as in PyTorch
    elif num_classes < -1:
        raise RuntimeError("num_classes should be positive")
    # bounds checked for host arrays only (a device's would be a read-back at every call)
    if isinstance(data, np.ndarray) and data.size:
        if int(data.min()) < 0:
            raise RuntimeError("Class values must be non-negative.")
        if int(data.max()) >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    classes = xp.arange(num_classes, dtype=np.int64)
    return Tensor._from_array((data[..., None] == classes).astype(np.int64))

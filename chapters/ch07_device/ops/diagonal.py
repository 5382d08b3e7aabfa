"""Diagonals (given code, §7): ``diagonal``, ``diag``, ``diag_embed``, ``diagflat``.

    diagonal(a, offset, dim1, dim2)[..., i] = a[..., i, i + offset]    (offset ≥ 0; below the
                                              main diagonal, a[..., i − offset, i])

the two axes ``dim1``, ``dim2`` removed and the diagonal put last (PyTorch's and NumPy's
layout). Its gradient puts ∂L/∂out back on that diagonal of zeros: that is ``diag_embed``,
``DiagonalEmbed`` below, whose gradient is ``diagonal`` again; ``diag`` of a 1-D tensor is
one too (a matrix with the vector on its ``diagonal``-th diagonal), and ``diag`` of a 2-D
one is its ``diagonal``. Out of place (PyTorch's ``diagonal`` is a view: writing into it is
issue 28's). Arrays go through ``array_module``, so they run on any device.
"""

from __future__ import annotations

from ...ch02_tensor import Tensor
from ...ch02_tensor.backend import array_module
from ...ch02_tensor.function import Context, Function
from ...ch02_tensor.shapes import dim_index


class Diagonal(Function):
    """out = the offset-th diagonal of a's axes dim1, dim2, put last
    ∂L/∂a = zeros with ∂L/∂out on that diagonal (DiagonalEmbed)"""

    @staticmethod
    def forward(ctx: Context, a, offset: int, dim1: int, dim2: int):
        ctx.shape, ctx.offset, ctx.dim1, ctx.dim2 = a.shape, offset, dim1, dim2
        xp = array_module(a.data)
        return xp.diagonal(a.data, offset, dim1, dim2).copy()

    @staticmethod
    def backward(ctx: Context, grad_output):
        return DiagonalEmbed.apply(grad_output, ctx.shape, ctx.offset, ctx.dim1, ctx.dim2)


class DiagonalEmbed(Function):
    """out = zeros(shape) with g's last axis on the offset-th diagonal of axes dim1, dim2
    (g's other axes fill out's other axes, in order)
    ∂L/∂g = diagonal(∂L/∂out, offset, dim1, dim2)"""

    @staticmethod
    def forward(ctx: Context, g, shape: tuple[int, ...], offset: int, dim1: int, dim2: int):
        ctx.offset, ctx.dim1, ctx.dim2 = offset, dim1, dim2
        xp = array_module(g.data)
        rest = [n for axis, n in enumerate(shape) if axis not in (dim1, dim2)]
        out = xp.zeros((*rest, shape[dim1], shape[dim2]), dtype=g.dtype)
        i = xp.arange(g.shape[-1])
        rows, cols = (i, i + offset) if offset >= 0 else (i - offset, i)
        out[..., rows, cols] = g.data
        return xp.ascontiguousarray(xp.moveaxis(out, (-2, -1), (dim1, dim2)))

    @staticmethod
    def backward(ctx: Context, grad_output):
        return Diagonal.apply(grad_output, ctx.offset, ctx.dim1, ctx.dim2)


def _axes(name: str, ndim: int, dim1: int, dim2: int) -> tuple[int, int]:
    dim1, dim2 = dim_index(dim1, ndim), dim_index(dim2, ndim)
    if dim1 == dim2:
        raise RuntimeError(f"{name} dimensions cannot be identical {dim1}, {dim2}")
    return dim1, dim2


def _int(name: str, argument: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name}(): argument '{argument}' must be int, not {type(value).__name__}")
    return value


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The ``offset``-th diagonal of ``input``'s axes ``dim1`` and ``dim2`` (above the main
    one for ``offset`` > 0, below for < 0), as the last axis of the result, whose other
    axes are ``input``'s others: PyTorch's ``torch.diagonal``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"diagonal(): argument 'input' must be Tensor, not {type(input).__name__}")
    offset = _int("diagonal", "offset", offset)
    if input.ndim < 2:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-max(input.ndim, 1)}, "
            f"{max(input.ndim, 1) - 1}], but got {dim2 if input.ndim == 1 else dim1})"
        )
    dim1, dim2 = _axes("diagonal", input.ndim, dim1, dim2)
    return Diagonal.apply(input, offset, dim1, dim2)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Zeros with ``input``'s last axis on the ``offset``-th diagonal of the new axes
    ``dim1``, ``dim2`` (of the result), ``input``'s other axes filling the others:
    PyTorch's ``torch.diag_embed``."""
    if not isinstance(input, Tensor):
        raise TypeError(
            f"diag_embed(): argument 'input' must be Tensor, not {type(input).__name__}"
        )
    offset = _int("diag_embed", "offset", offset)
    ndim = input.ndim + 1
    dim1, dim2 = _axes("diagonal", ndim, dim1, dim2)
    n = (input.shape[-1] if input.ndim else 1) + abs(offset)
    rest = list(input.shape[:-1])
    shape = []
    for axis in range(ndim):
        shape.append(n if axis in (dim1, dim2) else rest.pop(0))
    return DiagonalEmbed.apply(
        input.reshape(-1) if input.ndim == 0 else input, tuple(shape), offset, dim1, dim2
    )


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """A 1-D tensor as a square matrix with it on the ``diagonal``-th diagonal (zeros
    elsewhere), or a 2-D tensor's ``diagonal``-th diagonal as a 1-D tensor: ``torch.diag``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"diag(): argument 'input' must be Tensor, not {type(input).__name__}")
    offset = _int("diag", "diagonal", diagonal)
    if input.ndim == 1:
        return diag_embed(input, offset)
    if input.ndim == 2:
        return Diagonal.apply(input, offset, 0, 1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """``input`` flattened, as a square matrix with it on the ``offset``-th diagonal:
    ``torch.diagflat``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"diagflat(): argument 'input' must be Tensor, not {type(input).__name__}")
    return diag_embed(input.reshape(-1), _int("diagflat", "offset", offset))

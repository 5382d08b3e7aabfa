"""Reductions: ``sum`` and ``mean`` (task 2.7) and ``max`` (task 2.8), over ``dim`` (§7).

``dim`` is None (every axis), an axis or a tuple of axes; ``keepdim=True`` keeps each
reduced axis with size 1. Every input element that went into an output element receives
that element's gradient: for a sum, each one in full; for a mean, a 1/n share; for a max,
only the element that won (PyTorch's rule: ``max(dim)`` sends it to the index it returns,
a full ``max()`` splits it evenly among ties).
"""

from __future__ import annotations

from collections.abc import Sequence

from .backend import array_module
from .factories import as_tensor, ones_like
from .function import Context, Function
from .shapes import dim_index


def _axes(dim: int | Sequence[int] | None, ndim: int) -> tuple[int, ...]:
    """``dim`` as a sorted tuple of non-negative axes: all of them for None, and for an empty
    tuple too. That is the course's rule: PyTorch does the same today but tracks it as a bug
    (pytorch/pytorch#29137), and NumPy sums no axis for ``axis=()``."""
    dims = (dim,) if isinstance(dim, int) else tuple(dim or range(ndim))
    axes = []
    for d in dims:
        axis = dim_index(d, ndim)
        if axis in axes:
            raise RuntimeError(f"dim {d} appears more than once in dim={dim!r}")
        axes.append(axis)
    return tuple(sorted(axes)) if ndim else ()


def _kept_shape(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    """``shape`` with the reduced axes kept as size 1 (what keepdim=True gives)."""
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


class Sum(Function):
    """out = Σᵢ aᵢ over the axes         ∂out/∂aᵢ = 1"""

    @staticmethod
    def forward(ctx: Context, a, dim=None, keepdim: bool = False):
        ctx.save_for_backward(ctx.shape_only(a))  # backward reads a's shape only
        ctx.axes, ctx.keepdim = _axes(dim, a.ndim), keepdim
        return array_module(a.data).sum(a.data, axis=ctx.axes, keepdims=keepdim)

    @staticmethod
    def backward(ctx: Context, grad_output):
        (a,) = ctx.saved_tensors
        raise NotImplementedError(
            "Task 2.7: Sum and Mean backward (dim, keepdim) — see §7 of the notebook"
        )


class Mean(Function):
    """out = (1/n) Σᵢ aᵢ over the axes    ∂out/∂aᵢ = 1/n"""

    @staticmethod
    def forward(ctx: Context, a, dim=None, keepdim: bool = False):
        ctx.save_for_backward(ctx.shape_only(a))  # backward reads a's shape only
        ctx.axes, ctx.keepdim = _axes(dim, a.ndim), keepdim
        return array_module(a.data).mean(a.data, axis=ctx.axes, keepdims=keepdim)

    @staticmethod
    def backward(ctx: Context, grad_output):
        (a,) = ctx.saved_tensors
        raise NotImplementedError(
            "Task 2.7: Sum and Mean backward (dim, keepdim) — see §7 of the notebook"
        )


class Max(Function):
    """out = max over the axis           ∂out/∂aᵢ = 1 for the winner, 0 for the others"""

    @staticmethod
    def forward(ctx: Context, a, dim: int | None = None, keepdim: bool = False):
        if dim is not None and not isinstance(dim, int):
            raise TypeError(f"max(dim) takes one axis (an int), not {dim!r}")
        if a.data.size == 0:
            raise RuntimeError(f"max of an empty tensor (shape {a.shape}) is not defined")
        axes = () if dim is None else _axes(dim, a.ndim)  # checks dim; () when a is 0-d
        ctx.save_for_backward(a)
        # None: a full max (a 0-d tensor is its own maximum along dim 0 or -1)
        ctx.dim, ctx.keepdim = (axes[0] if axes else None), keepdim
        xp = array_module(a.data)
        if ctx.dim is None:
            return xp.max(a.data)
        ctx.indices = xp.argmax(a.data, axis=ctx.dim, keepdims=True)
        return xp.max(a.data, axis=ctx.dim, keepdims=keepdim)

    @staticmethod
    def backward(ctx: Context, grad_output):
        (a,) = ctx.saved_tensors
        raise NotImplementedError("Task 2.8: Max backward — see §7 of the notebook")

"""Indexing, ``a[index]``: task 2.10 (§8 of the notebook).

Indexing picks elements; its gradient puts each upstream gradient back where its element
came from, into zeros of a's shape. An element picked twice (``a[[0, 0]]``) receives both
gradients, so the backward is a scatter-ADD (``backend.scatter_add``), not an assignment.
The backward is itself an operation (``ScatterAdd``, whose gradient is indexing again), so
chapter 4 can differentiate it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import tensor as _tensor
from .backend import array_module, scatter_add
from .function import Context, Function


def plain_index(index: Any) -> Any:
    """An index with any Tensors in it replaced by their arrays (and a range by its list,
    which every device's arrays take)."""
    if isinstance(index, tuple):
        return tuple(plain_index(i) for i in index)
    if isinstance(index, range):
        return list(index)
    return index.data if isinstance(index, _tensor.Tensor) else index


# -- PyTorch's reading of a mixed index (given code) ------------------------------------------
#
# NumPy and PyTorch read an index alike but for one case: an integer next to an advanced
# index (a list, an integer or boolean array). NumPy counts the integer as one more advanced
# index; PyTorch applies it first, as basic indexing (it selects), and only then the advanced
# ones. With a of shape (2, 3, 4), a[0, :, [1, 2]] is (2, 3) in NumPy (the advanced indices
# are separated by the slice, so their axis goes first) and (3, 2) in PyTorch (a[0] is
# (3, 4), then [:, [1, 2]]). ``steps`` turns such an index into two NumPy indices applied one
# after the other, the integers first: each reads the same in NumPy and PyTorch, so forward
# and backward (the scatter-add of each step) follow PyTorch's layout.


def steps(index: Any) -> tuple:
    """``index`` as the NumPy indices that, applied in turn, give PyTorch's ``a[index]``:
    ``(index,)`` whenever NumPy reads it as PyTorch does; otherwise ``(first, second)``, the
    integers (with the slices and None) first and the advanced indices second."""
    parts = index if isinstance(index, tuple) else (index,)
    integer = advanced = False
    for p in parts:  # one pass, cheap for the common parts (a slice, an int, None)
        kind = type(p)
        if kind is slice or p is None or p is Ellipsis:
            continue
        if kind is int or _is_integer(p):
            integer = True
        elif _is_advanced(p):
            advanced = True
    if not (integer and advanced):
        return (index,)
    first: list = []
    second: list = []
    for p in parts:
        if _is_integer(p):
            first.append(p)  # selects: its axis is gone before the advanced indices see it
        elif p is Ellipsis:
            first.append(p)
            second.append(p)
        elif p is None or isinstance(p, slice):
            first.append(p)
            second.append(slice(None))  # the axis it made or cut, kept whole
        elif _is_bool_scalar(p):
            second.append(p)  # takes no axis of its own: a new one of size 1 (or 0)
        else:
            first.extend([slice(None)] * _axes_taken(p))
            second.append(p)
    if not any(p is Ellipsis for p in first):
        first.append(Ellipsis)  # the first step a view, even when it selects one element
    if not any(_is_advanced(p) and not _is_bool_scalar(p) for p in second):
        # True alone among the advanced indices is None (a new axis of size 1), in NumPy
        # and PyTorch alike: said so, the step is basic indexing on every device
        second = [None if p is True or p is np.True_ else p for p in second]
    return tuple(first), tuple(second)


def getitem(a: Any, index: Any) -> Any:
    """``a[index]`` in PyTorch's layout: one ``Index`` per step of ``steps(index)``."""
    if not isinstance(index, tuple):  # one part alone reads the same in NumPy and PyTorch
        return Index.apply(a, plain_index(index))
    out = a
    for step in steps(index):
        out = Index.apply(out, plain_index(step))
    return out


def _array(p: Any) -> Any:
    return p.data if isinstance(p, _tensor.Tensor) else p


def _is_integer(p: Any) -> bool:
    """A Python or NumPy integer, or a 0-d integer array or Tensor (PyTorch reads it as one)."""
    if isinstance(p, (bool, np.bool_)):
        return False
    if isinstance(p, (int, np.integer)):
        return True
    p = _array(p)
    return getattr(p, "ndim", None) == 0 and p.dtype.kind in "iu"


def _is_bool_scalar(p: Any) -> bool:
    if isinstance(p, (bool, np.bool_)):
        return True
    p = _array(p)
    return getattr(p, "ndim", None) == 0 and p.dtype.kind == "b"


def _is_advanced(p: Any) -> bool:
    """A list (or range), an array or a Tensor (of integers or booleans), or a boolean
    scalar, which NumPy also counts as an advanced index."""
    if isinstance(p, (list, tuple, range)) or _is_bool_scalar(p):
        return True
    p = _array(p)
    return getattr(p, "ndim", 0) > 0


def _axes_taken(p: Any) -> int:
    """How many axes of the indexed array an advanced index uses: a boolean mask its own
    number of axes, an integer index one."""
    if isinstance(p, (list, tuple, range)):
        p = np.asarray(p)
    p = _array(p)
    return p.ndim if p.dtype.kind == "b" else 1


class Index(Function):
    """out = a[index]       ∂L/∂a = zeros of a's shape, with ∂L/∂out added at index"""

    @staticmethod
    def forward(ctx: Context, a, index: Any):
        ctx.shape, ctx.index = a.shape, index
        return a.data[index]

    @staticmethod
    def backward(ctx: Context, grad_output):
        raise NotImplementedError(
            "Task 2.10: Indexing backward (scatter-add) — see §8 of the notebook"
        )


class ScatterAdd(Function):
    """out = zeros(shape) with g added at index (repeats add up)      ∂L/∂g = ∂L/∂out[index]"""

    @staticmethod
    def forward(ctx: Context, g, shape: tuple[int, ...], index: Any):
        ctx.index = index
        raise NotImplementedError(
            "Task 2.10: Indexing backward (scatter-add) — see §8 of the notebook"
        )

    @staticmethod
    def backward(ctx: Context, grad_output):
        return grad_output[ctx.index]

"""Indexing, ``a[index]``: task 2.10 (§8 of the notebook).

Indexing picks elements; its gradient puts each upstream gradient back where its element
came from, into zeros of a's shape. An element picked twice (``a[[0, 0]]``) receives both
gradients, so the backward is a scatter-ADD (``backend.scatter_add``), not an assignment.
The backward is itself an operation (``ScatterAdd``, whose gradient is indexing again), so
chapter 4 can differentiate it.
"""

from __future__ import annotations

from typing import Any

from . import tensor as _tensor
from .backend import array_module, scatter_add
from .function import Context, Function


def plain_index(index: Any) -> Any:
    """An index with any Tensors in it replaced by their arrays."""
    if isinstance(index, tuple):
        return tuple(plain_index(i) for i in index)
    return index.data if isinstance(index, _tensor.Tensor) else index


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

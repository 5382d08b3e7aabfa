"""``broadcast_to`` and ``sum_to_size``: two Functions, each the other's gradient.
Task 3.2 (§5 of the notebook).

``broadcast_to`` copies (it stretches size-1 axes and adds leading ones); ``sum_to_size``
adds up (it is ``unbroadcast`` as an operation of its own). Copying and summing are
transposes of each other, so each one's vector-Jacobian product is the other:

    out = broadcast_to(a, S)     ∂L/∂a = sum_to_size(∂L/∂out, a.shape)
    out = sum_to_size(a, s)      ∂L/∂a = broadcast_to(∂L/∂out, a.shape)

Both backward passes are again ops on Tensors, so a backward of a backward works too
(chapter 4). The forward passes are given; ``broadcast_to`` returns a read-only view, as
NumPy's does: it copies nothing, and writing into it is an error.
"""

from __future__ import annotations

from .. import ch02_tensor as _ch02
from ..ch02_tensor import Context, Function
from .rules import check_broadcast
from .unbroadcast import unbroadcast


class BroadcastTo(Function):
    """out = a stretched to ``shape``         ∂L/∂a = sum_to_size(∂L/∂out, a.shape)"""

    @staticmethod
    def forward(ctx: Context, a, shape: tuple[int, ...]):
        check_broadcast(a.shape, shape, "broadcast_to")
        ctx.shape = a.shape
        return _ch02.array_module(a.data).broadcast_to(a.data, shape)

    @staticmethod
    def backward(ctx: Context, grad_output):
        raise NotImplementedError(
            "Task 3.2: BroadcastTo and SumToSize backward — see §5 of the notebook"
        )


class SumToSize(Function):
    """out = a summed down to ``shape``       ∂L/∂a = broadcast_to(∂L/∂out, a.shape)"""

    @staticmethod
    def forward(ctx: Context, a, shape: tuple[int, ...]):
        check_broadcast(shape, a.shape, "sum_to_size")
        ctx.shape = a.shape
        return unbroadcast(a.detach(), shape).data  # task 3.1 on the values (no graph)

    @staticmethod
    def backward(ctx: Context, grad_output):
        raise NotImplementedError(
            "Task 3.2: BroadcastTo and SumToSize backward — see §5 of the notebook"
        )


def broadcast_to(x, shape):
    """``x`` broadcast to ``shape`` (``Tensor.broadcast_to``): NumPy's rule, no -1."""
    return BroadcastTo.apply(x, tuple(shape))


def sum_to_size(x, shape):
    """``x`` summed down to ``shape``, which must broadcast to ``x.shape``
    (``Tensor.sum_to_size``)."""
    return SumToSize.apply(x, tuple(shape))

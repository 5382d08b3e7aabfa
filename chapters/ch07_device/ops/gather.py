"""``gather(input, dim, index)``: task 7.7 (§7 of the notebook).

    out[i][j][k] = input[index[i][j][k]][j][k]      (dim = 0; likewise for the other axes)

``out`` has ``index``'s shape: along ``dim`` each element is picked by ``index``, on every
other axis it stays where it is. That is NumPy's ``take_along_axis``. (PyTorch allows
``index`` to be smaller than ``input`` on the other axes: the given ``gather`` cuts ``input``
to ``index``'s sizes there first, so ``Gather`` meets equal sizes.)

The gradient puts each ∂L/∂out element back where its value came from: into zeros of
``input``'s shape, at (``index`` along ``dim``, the element's own position on the other
axes). One input element picked twice receives both gradients, so the backward is a
scatter-ADD (repeats add up), not an assignment. It is an operation of its own,
``GatherGradient``, whose gradient is a gather again, so chapter 4 can differentiate it.

Every array call goes through ``array_module``, and the scatter-add through the backend's
``scatter_add`` (chapter 2's seam: ``numpy.add.at`` for host arrays, task 7.6 for a
device's), so gather runs on any device.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ch02_tensor import Tensor
from ...ch02_tensor.backend import array_module, scatter_add
from ...ch02_tensor.function import Context, Function
from ...ch02_tensor.shapes import dim_index


def positions(index: Any, dim: int) -> tuple:
    """Where each element of ``index`` sends its value back to, as an advanced index into
    ``input``: ``index`` itself along ``dim``, and on every other axis an arange of that
    axis (shaped to broadcast against ``index``), on ``index``'s device."""
    raise NotImplementedError(
        "Task 7.7: gather, and its gradient: a scatter-add — see §7 of the notebook"
    )


class Gather(Function):
    """out = input picked along dim by index          ∂L/∂input = ∂L/∂out scatter-added back"""

    @staticmethod
    def forward(ctx: Context, a, dim: int, index):
        ctx.shape, ctx.dim, ctx.index = a.shape, dim, index.data
        raise NotImplementedError(
            "Task 7.7: gather, and its gradient: a scatter-add — see §7 of the notebook"
        )

    @staticmethod
    def backward(ctx: Context, grad_output):
        raise NotImplementedError(
            "Task 7.7: gather, and its gradient: a scatter-add — see §7 of the notebook"
        )


class GatherGradient(Function):
    """out = zeros(shape) with g added where gather took each element from (repeats add up)
    ∂L/∂g = gather(∂L/∂out, dim, index)"""

    @staticmethod
    def forward(ctx: Context, g, shape: tuple[int, ...], dim: int, index: Any):
        ctx.dim, ctx.index = dim, index
        raise NotImplementedError(
            "Task 7.7: gather, and its gradient: a scatter-add — see §7 of the notebook"
        )

    @staticmethod
    def backward(ctx: Context, grad_output):
        return Gather.apply(grad_output, ctx.dim, Tensor._from_array(ctx.index))


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    """``input``'s elements picked along ``dim`` by ``index`` (integers, ``input``'s number of
    axes, no larger than ``input`` on the other axes): PyTorch's ``torch.gather``."""
    _check(input, dim, index)
    if input.ndim == 0 or index.ndim == 0:  # 0-d and 1-d mix in PyTorch: gather in 1-d
        return gather(input.reshape(-1), 0, index.reshape(-1)).reshape(index.shape)
    dim = dim_index(dim, input.ndim)
    if any(n < m for d, (n, m) in enumerate(zip(index.shape, input.shape)) if d != dim):
        # PyTorch lets index be smaller than input on the other axes: cut input to it first
        # (indexing, a recorded operation), so Gather meets equal sizes there
        input = input[
            tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(index.shape))
        ]
    return Gather.apply(input, dim, index)


def _check(input: Any, dim: int, index: Any) -> None:
    """PyTorch's errors for what gather cannot do (given code)."""
    if not isinstance(input, Tensor) or not isinstance(index, Tensor):
        raise TypeError(
            "gather(input, dim, index) takes Tensors as input and index, not "
            f"{type(input).__name__} and {type(index).__name__}"
        )
    if index.dtype.kind not in "iu" or index.dtype.itemsize < 4:
        raise RuntimeError(f"gather(): Expected dtype int32/int64 for index, not {index.dtype}")
    dim = dim_index(dim, input.ndim)
    if index.ndim != input.ndim and not (index.ndim <= 1 and input.ndim <= 1):
        raise RuntimeError(
            "Index tensor must have the same number of dimensions as input tensor "
            f"(index has {index.ndim}, input {input.ndim})"
        )
    for axis, (n, m) in enumerate(zip(index.shape, input.shape)):
        if axis != dim and n > m:
            raise RuntimeError(
                f"Size does not match at dimension {axis}: expected index {index.shape} to be "
                f"no larger than self {input.shape} apart from dimension {dim}"
            )
    # bounds are checked for host arrays only: on a device the check would be a read-back
    # (a synchronisation) at every call. PyTorch checks inside its CUDA kernel; CuPy's
    # take_along_axis does not check, it wraps: a bad index on a device gives a wrong value
    # silently (the course repository's maintainers' guide: chapter 7's differences from PyTorch)
    if isinstance(index.data, np.ndarray) and index.data.size:
        size = input.shape[dim] if input.ndim else 1
        low, high = int(index.data.min()), int(index.data.max())
        if low < 0 or high >= size:
            bad = low if low < 0 else high
            raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")

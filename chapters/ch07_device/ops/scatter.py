"""``scatter`` and ``scatter_add``, out of place (given code, §7): gather's other direction.

    scatter:      out = input, then out[index[i][j]][j] = src[i][j]      (dim = 0)
    scatter_add:  out = input, then out[index[i][j]][j] += src[i][j]     (repeats add up)

Only ``index``'s positions are read from ``src`` (``src`` may be larger); ``index`` has
``input``'s number of axes and is no larger than it apart from ``dim``. The positions
written are task 7.7's ``positions(index, dim)``, and the adding is the backend's
``scatter_add`` (chapter 2's seam: ``numpy.add.at``, task 7.6 on a device), so they run on
any device. The gradients are PyTorch's:

    scatter:      ∂L/∂input = ∂L/∂out with 0 where written    ∂L/∂src = gather(∂L/∂out)
    scatter_add:  ∂L/∂input = ∂L/∂out                          ∂L/∂src = gather(∂L/∂out)

(where one position is written twice by ``scatter``, which value stays is not defined, in
PyTorch as here.) The in-place ``scatter_``/``scatter_add_`` are issue 28's.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ...ch02_tensor import Tensor
from ...ch02_tensor.backend import array_module
from ...ch02_tensor.backend import scatter_add as add_at
from ...ch02_tensor.function import Context, Function
from ...ch02_tensor.shapes import dim_index
from .gather import gather, positions


def _cut(array: Any, shape: tuple[int, ...]) -> Any:
    """``array``'s leading corner of ``shape`` (the part of ``src`` that ``index`` reads)."""
    if tuple(array.shape) == tuple(shape):
        return array
    return array[tuple(slice(0, n) for n in shape)]


class Scatter(Function):
    """out = a with src (a tensor, or a number when src is None) written at index along
    dim (``reduce``: 'add' or 'multiply' into the old value instead)
    ∂L/∂a = ∂L/∂out, 0 where written         ∂L/∂src = gather(∂L/∂out, dim, index)"""

    @staticmethod
    def forward(ctx: Context, a, dim: int, index, src, value: Any, reduce: str | None):
        index = index.data
        ctx.dim, ctx.index, ctx.reduce = dim, index, reduce
        ctx.src_shape = None if src is None else src.shape
        xp = array_module(a.data)
        out = a.data.copy()
        where = positions(index, dim)
        if src is None:
            values = xp.asarray(value, dtype=a.dtype)
            values = xp.broadcast_to(values, index.shape)
        else:
            values = _cut(src.data, index.shape)
        if reduce is None:
            out[where] = values
        elif reduce == "add":
            add_at(out, where, xp.ascontiguousarray(values))
        elif hasattr(xp, "multiply") and hasattr(xp.multiply, "at"):
            xp.multiply.at(out, where, values)
        else:
            raise NotImplementedError(
                "scatter(reduce='multiply') is given for host arrays only (NumPy's "
                "multiply.at): move the tensor to the cpu first"
            )
        return out

    @staticmethod
    def backward(ctx: Context, grad_output):
        if ctx.reduce is not None:
            raise RuntimeError("derivative for aten::scatter is not implemented")
        index = Tensor._from_array(ctx.index)
        grad_a = grad_src = None
        if ctx.needs_input_grad[0]:
            grad_a = Scatter.apply(grad_output, ctx.dim, index, None, 0, None)
        if ctx.src_shape is not None and ctx.needs_input_grad[2]:
            if tuple(ctx.src_shape) != tuple(ctx.index.shape):
                raise RuntimeError(  # PyTorch's too: its gradient has index's shape
                    "Function ScatterBackward0 returned an invalid gradient at index 1 - got "
                    f"{list(ctx.index.shape)} but expected shape compatible with "
                    f"{list(ctx.src_shape)}"
                )
            grad_src = gather(grad_output, ctx.dim, index)
        return (grad_a, None) if ctx.src_shape is None else (grad_a, None, grad_src)


class ScatterAdd(Function):
    """out = a, with src added at index along dim (repeats add up)
    ∂L/∂a = ∂L/∂out                          ∂L/∂src = gather(∂L/∂out, dim, index)"""

    @staticmethod
    def forward(ctx: Context, a, dim: int, index, src):
        index = index.data
        ctx.dim, ctx.index, ctx.src_shape = dim, index, src.shape
        xp = array_module(a.data)
        out = a.data.copy()
        add_at(out, positions(index, dim), xp.ascontiguousarray(_cut(src.data, index.shape)))
        return out

    @staticmethod
    def backward(ctx: Context, grad_output):
        grad_src = None
        if ctx.needs_input_grad[2]:
            if tuple(ctx.src_shape) != tuple(ctx.index.shape):
                raise RuntimeError(
                    "Function ScatterAddBackward0 returned an invalid gradient at index 1 - got "
                    f"{list(ctx.index.shape)} but expected shape compatible with "
                    f"{list(ctx.src_shape)}"
                )
            grad_src = gather(grad_output, ctx.dim, Tensor._from_array(ctx.index))
        return grad_output, None, grad_src


def scatter(
    input: Tensor,
    dim: int,
    index: Tensor,
    src: Any = None,
    *,
    value: Any = None,
    reduce: str | None = None,
) -> Tensor:
    """A copy of ``input`` with ``src``'s elements (or the number ``value``) written at
    ``index`` along ``dim``: PyTorch's ``torch.scatter`` (out of place). ``reduce='add'``
    or ``'multiply'`` combines them with what is there instead (no gradient, as in
    PyTorch)."""
    if src is None and value is None:
        raise TypeError("scatter() missing 1 required positional argument: 'src' (or 'value')")
    if src is not None and value is not None:
        raise TypeError("scatter() takes 'src' or 'value', not both")
    if src is not None and not isinstance(src, Tensor):
        src, value = None, src  # scatter(dim, index, 2.0): the value overload
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    if src is None:
        if not isinstance(value, numbers.Number):
            raise TypeError(
                f"scatter(): argument 'value' must be Number, not {type(value).__name__}"
            )
        dim = _check("scatter", input, dim, index, None)
        if input.ndim == 0 or index.ndim == 0:  # 0-d and 1-d mix in PyTorch: 1-d
            flat = scatter(input.reshape(-1), 0, index.reshape(-1), value=value, reduce=reduce)
            return flat.reshape(input.shape)
        return Scatter.apply(input, dim, index, None, value, reduce)
    if src.dtype != input.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    dim = _check("scatter", input, dim, index, src)
    if input.ndim == 0 or index.ndim == 0 or src.ndim == 0:
        flat = scatter(input.reshape(-1), 0, index.reshape(-1), src.reshape(-1), reduce=reduce)
        return flat.reshape(input.shape)
    return Scatter.apply(input, dim, index, src, None, reduce)


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """A copy of ``input`` with ``src``'s elements added at ``index`` along ``dim`` (an
    element that ``index`` names twice gets both): PyTorch's ``torch.scatter_add``."""
    if not isinstance(src, Tensor):
        raise TypeError(
            f"scatter_add(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}"
        )
    if src.dtype != input.dtype:
        raise RuntimeError("scatter_add(): Expected self.dtype to be equal to src.dtype")
    dim = _check("scatter_add", input, dim, index, src)
    if input.ndim == 0 or index.ndim == 0 or src.ndim == 0:
        flat = scatter_add(input.reshape(-1), 0, index.reshape(-1), src.reshape(-1))
        return flat.reshape(input.shape)
    return ScatterAdd.apply(input, dim, index, src)


def _check(name: str, input: Any, dim: int, index: Any, src: Any) -> int:
    """PyTorch's errors for what scatter cannot do; ``dim`` as an axis number."""
    if not isinstance(input, Tensor) or not isinstance(index, Tensor):
        raise TypeError(
            f"{name}(input, dim, index, src) takes Tensors as input and index, not "
            f"{type(input).__name__} and {type(index).__name__}"
        )
    if index.dtype.kind not in "iu" or index.dtype.itemsize < 4:
        raise RuntimeError(f"{name}(): Expected dtype int64 for index")
    dim = dim_index(dim, max(input.ndim, 1))
    if index.ndim != input.ndim and not (index.ndim <= 1 and input.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if src is not None and src.ndim != index.ndim and not (src.ndim <= 1 and index.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    shape = tuple(index.shape) or (1,)
    self_shape = tuple(input.shape) or (1,)
    src_shape = None if src is None else (tuple(src.shape) or (1,))
    for axis, n in enumerate(shape):
        if (axis != dim and n > self_shape[axis]) or (src_shape and n > src_shape[axis]):
            raise RuntimeError(
                f"Expected index {list(index.shape)} to be no larger than self "
                f"{list(input.shape)} apart from dimension {dim}"
                + ("" if src is None else f" and to be no larger size than src {list(src.shape)}")
            )
    # bounds are checked for host arrays only (a device's check would be a read-back at
    # every call), as gather does
    if isinstance(index.data, np.ndarray) and index.data.size:
        size = self_shape[dim]
        low, high = int(index.data.min()), int(index.data.max())
        if low < 0 or high >= size:
            bad = low if low < 0 else high
            raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
    return dim

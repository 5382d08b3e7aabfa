"""Item assignment, ``x[index] = value`` (given code, §7), with PyTorch's rules for in-place
operations (chapter 2's ``inplace.py``).

makemore counts bigrams with ``N[ix1, ix2] += 1`` on an integer tensor: Python reads that
as ``N[ix1, ix2] = N[ix1, ix2] + 1``, so the assignment is all it needs. The index reads as
it does for ``x[index]`` (PyTorch's layout, chapter 2's ``indexing.steps``), and ``value``
is a number or a tensor that broadcasts to ``x[index]``, converted to ``x``'s dtype (as
PyTorch's ``copy_`` does; a list or an array index wants the same dtype, as its
``index_put_`` does).

Three cases, the rules of every in-place operation:

1. Nothing to record (grad mode off, or neither ``x`` nor ``value`` requires grad): the
   values are written into ``x``'s own array (every view of ``x`` sees them) and ``x``'s
   version counter moves. A leaf that requires grad may be changed so under ``no_grad()``
   (an initialisation), and so may any tensor.
2. ``x`` is a leaf that requires grad, in grad mode: refused, with PyTorch's error.
3. Otherwise (``x`` is in a recorded graph, or ``value`` requires grad): recorded, as
   PyTorch records it. ``IndexPut`` is the out-of-place twin (a copy of ``x`` with ``value``
   written at ``index``), and ``in_place`` makes ``x`` its output::

       out = x with value at index     ∂L/∂x = ∂L/∂out with zeros at index
                                       ∂L/∂value = ∂L/∂out[index], summed to value's shape

   An index that repeats a position (``x[[0, 0]] = v``) keeps the last write, as PyTorch's
   ``index_put_`` does; each of ``v``'s elements still receives the gradient at the position
   it was written to (PyTorch's gradient: ``∂L/∂out[index]``). Refused, as every recorded
   in-place operation of the course, on a tensor that shares its memory with a view (PyTorch
   rewrites the views' graphs; the course does not).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ...ch02_tensor import Tensor
from ...ch02_tensor.function import Context, Function
from ...ch02_tensor.grad_mode import is_grad_enabled
from ...ch02_tensor.indexing import Index, _is_advanced, _is_integer, plain_index, steps
from ...ch02_tensor.inplace import in_place
from ...ch02_tensor.version import bump, has_views

NAME = "x[index] = value"


def setitem(tensor: Tensor, index: Any, value: Any) -> None:
    """``tensor[index] = value``, in place, on ``tensor``'s device."""
    parts = _parts(index)
    if not _records(tensor, value):  # rule 1: the tensor's own memory, changed
        _write(tensor.data, parts, _value(tensor, parts[-1], value), tensor, value)
        bump(tensor)  # an in-place change: the version counter moves (ch02's version.py)
        return
    if has_views(tensor):
        raise RuntimeError(
            "x[index] = value on a tensor in a recorded graph that shares its memory with a "
            "view (a reshape, a transpose, an index, a detach): the course records in-place "
            "operations only on tensors without views. Assign into a copy (x = x.clone(); "
            "x[index] = value), or build a new tensor (torch.where(mask, value, x), "
            "x.masked_fill(mask, value), torch.cat / torch.stack)"
        )
    if isinstance(value, Tensor):
        _value(tensor, parts[-1], value)  # PyTorch's dtype rule for an advanced index
        value = value.to(tensor.device, tensor.dtype)  # recorded, as copy_ records its cast
    else:
        _value(tensor, parts[-1], value)  # a number, or the TypeError
    in_place(tensor, lambda t: IndexPut.apply(t, value, parts), NAME)  # rule 3 (or rule 2)


def _parts(index: Any) -> tuple:
    """``index`` as the NumPy indices that, applied in turn, reach PyTorch's ``x[index]``:
    every step but the last is basic indexing (a view), its 0-d index arrays read back as
    ints (a device's array library might take one as an array index, whose result would
    be a copy)."""
    parts = steps(index)
    first = [tuple(int(p) if _is_integer(p) else p for p in plain_index(s)) for s in parts[:-1]]
    return (*first, plain_index(parts[-1]))


def _records(tensor: Tensor, value: Any) -> bool:
    """Whether the assignment is recorded (rule 3), or refused (rule 2, PyTorch's error)."""
    if not is_grad_enabled():
        return False
    if tensor.requires_grad and tensor.grad_fn is None:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation "
            "(x[index] = value): change its values under `with torch.no_grad():` (as an "
            "initialisation does), or build a new tensor (torch.where, masked_fill)"
        )
    return tensor.requires_grad or (isinstance(value, Tensor) and value.requires_grad)


def _write(array: Any, parts: tuple, data: Any, tensor: Tensor, value: Any) -> None:
    """``array[parts] = data`` (each step but the last a view), PyTorch's errors."""
    target = array
    for step in parts[:-1]:
        target = target[step]
    last = parts[-1]
    try:
        target[last] = data
    except ValueError as error:
        if not isinstance(value, Tensor):  # a number the dtype cannot hold (nan in an int)
            raise RuntimeError(f"cannot assign {value!r} to a {tensor.dtype} tensor") from None
        shape = tuple(target[last].shape)
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(value.shape)} cannot be broadcast "
            f"to indexing result of shape {list(shape)}"
        ) from error
    except OverflowError:
        raise RuntimeError(
            f"value cannot be converted to type {tensor.dtype} without overflow"
        ) from None


class IndexPut(Function):
    """out = x with value written at index (the last write where index repeats a position)

    ∂L/∂x = ∂L/∂out with zeros at index       ∂L/∂value = ∂L/∂out[index] (summed to value's
    shape by the engine's seam). Both are Tensor operations, so the graph of a backward
    with ``create_graph=True`` records them."""

    @staticmethod
    def forward(ctx: Context, x: Tensor, value: Any, parts: tuple):
        ctx.parts, ctx.has_value = parts, isinstance(value, Tensor)
        out = x.data.copy()
        data = value.data if isinstance(value, Tensor) else value
        _write(out, parts, data, x, value)
        return out

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor):
        parts, needs = ctx.parts, ctx.needs_input_grad
        grad_x = IndexPut.apply(grad_output, 0, parts) if needs[0] else None
        if not ctx.has_value:
            return grad_x
        grad_value = None
        if needs[1]:
            grad_value = grad_output
            for step in parts:
                grad_value = Index.apply(grad_value, step)
        return grad_x, grad_value


def _value(tensor: Tensor, index: Any, value: Any) -> Any:
    """``value`` as what the array assignment takes: a number, or an array on ``tensor``'s
    device and of its dtype."""
    if isinstance(value, Tensor):
        if value.device != tensor.device:
            value = value.to(tensor.device)  # a copy across devices, as PyTorch's copy_ makes
        if value.dtype != tensor.dtype:
            mask_fill = value.ndim == 0 and _one_mask(index)
            if _has_advanced(index) and not mask_fill:
                raise RuntimeError(
                    "Index put requires the source and destination dtypes match, got "
                    f"{tensor.dtype} for the destination and {value.dtype} for the source."
                )
            return value.data.astype(tensor.dtype)
        return value.data
    if isinstance(value, (numbers.Number, np.generic)) and not isinstance(value, complex):
        return value
    raise TypeError(f"can't assign a {type(value).__name__} to a tensor (a number or a Tensor)")


def _has_advanced(index: Any) -> bool:
    parts = index if isinstance(index, tuple) else (index,)
    return any(_is_advanced(p) for p in parts)


def _one_mask(index: Any) -> bool:
    """A boolean mask alone (PyTorch then fills, converting a 0-d value)."""
    parts = index if isinstance(index, tuple) else (index,)
    return len(parts) == 1 and getattr(parts[0], "dtype", None) == np.bool_

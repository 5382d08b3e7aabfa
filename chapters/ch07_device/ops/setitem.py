"""Item assignment, ``x[index] = value`` (given code, §7), on a tensor that records nothing.

makemore counts bigrams with ``N[ix1, ix2] += 1`` on an integer tensor: Python reads that
as ``N[ix1, ix2] = N[ix1, ix2] + 1``, so the assignment is all it needs. The index reads as
it does for ``x[index]`` (PyTorch's layout, chapter 2's ``indexing.steps``), and ``value``
is a number or a tensor that broadcasts to ``x[index]``, converted to ``x``'s dtype (as
PyTorch's ``copy_`` does; a list or an array index wants the same dtype, as its
``index_put_`` does).

Changing a tensor in place that the graph knows about is another matter (PyTorch keeps a
version counter per tensor to catch a changed value that a backward still needs): that is
the next step of the course, and until then it is refused with a RuntimeError that says
what to write instead. Allowed, as in PyTorch: a tensor that records nothing, and a leaf
that requires grad changed under ``no_grad()`` (an initialisation). Not caught yet: a
graph recorded *before* such a change, which saved the leaf, uses the new values in its
backward (PyTorch raises there).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ...ch02_tensor import Tensor
from ...ch02_tensor.grad_mode import is_grad_enabled
from ...ch02_tensor.indexing import _is_advanced, _is_integer, plain_index, steps
from ...ch02_tensor.version import bump

INSTEAD = (
    "build a new tensor instead (torch.where(mask, value, x), x.masked_fill(mask, value), "
    "torch.cat / torch.stack), or change the values under `with torch.no_grad():`"
)


def setitem(tensor: Tensor, index: Any, value: Any) -> None:
    """``tensor[index] = value``, in place, on ``tensor``'s device."""
    _check_records(tensor, value)
    parts = steps(index)
    target = tensor.data
    for step in parts[:-1]:
        # basic indexing: a view into tensor's memory (a 0-d index array read back as an
        # int first, as PyTorch does: a device's array library might take it as an array
        # index, whose result would be a copy)
        step = tuple(int(p) if _is_integer(p) else p for p in plain_index(step))
        target = target[step]
    last = plain_index(parts[-1])
    data = _value(tensor, last, value)
    try:
        target[last] = data
        bump(tensor)  # an in-place change: the version counter moves (ch02's version.py)
    except ValueError as error:
        if not isinstance(value, Tensor):  # a number the dtype cannot hold (nan in an int)
            raise RuntimeError(f"cannot assign {value!r} to a {tensor.dtype} tensor") from None
        shape = tuple(target[last].shape)
        got = tuple(value.shape) if isinstance(value, Tensor) else ()
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(got)} cannot be broadcast to "
            f"indexing result of shape {list(shape)}"
        ) from error
    except OverflowError:
        raise RuntimeError(
            f"value cannot be converted to type {tensor.dtype} without overflow"
        ) from None


def _check_records(tensor: Tensor, value: Any) -> None:
    """Refuse an assignment the graph would have to know about (not supported yet); under
    ``no_grad()`` any tensor may be changed (its version counter moves)."""
    if not is_grad_enabled():
        return
    if tensor.grad_fn is not None:
        raise RuntimeError(
            f"x[index] = value on a tensor an operation recorded (its grad_fn is "
            f"{tensor.grad_fn.name()}) is an in-place change of the graph, which is not "
            f"supported yet: {INSTEAD}"
        )
    if tensor.requires_grad:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation "
            "(x[index] = value): change its values under `with torch.no_grad():` (as an "
            "initialisation does), or build a new tensor (torch.where, masked_fill)"
        )
    if isinstance(value, Tensor) and value.requires_grad:
        raise RuntimeError(
            "x[index] = value with a value that requires grad would record an in-place "
            f"operation, which is not supported yet: {INSTEAD}; or assign value.detach()"
        )


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

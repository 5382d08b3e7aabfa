"""Logic on tensors (given code, §7): ``&``, ``|``, ``^``, ``~`` (logical on bool tensors,
bitwise on integer ones, as PyTorch's ``bitwise_*``), ``logical_and/or/xor/not`` (any
dtype: nonzero is true), ``all``/``any`` and ``nonzero``.

Their results are bools or integers: constants, through which no gradient flows (as in
PyTorch), so each is an array operation wrapped as a Tensor, on the input's device
(``xp = array_module(...)``).
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...ch02_tensor import Tensor
from ...ch02_tensor.backend import array_module
from ...ch02_tensor.dtypes import is_floating
from ...ch02_tensor.reductions import _axes
from .pointwise import _binary

_DTYPE_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double"}


def _bitwise(name: str, input: Any, other: Any) -> Tensor:
    a, b = _binary(input, other, f"bitwise_{name}")
    if is_floating(a.dtype):
        raise NotImplementedError(
            f"\"bitwise_{name}_cpu\" not implemented for '{_DTYPE_NAMES.get(str(a.dtype))}': "
            "& | ^ take bool or integer tensors (logical_and & co. take any)"
        )
    xp = array_module(a.data)
    fn = {"and": xp.bitwise_and, "or": xp.bitwise_or, "xor": xp.bitwise_xor}[name]
    return Tensor._from_array(fn(a.data, b.data))


def bitwise_and(input: Any, other: Any) -> Tensor:
    """``input & other``: logical and of bools, bitwise and of integers."""
    return _bitwise("and", input, other)


def bitwise_or(input: Any, other: Any) -> Tensor:
    """``input | other``."""
    return _bitwise("or", input, other)


def bitwise_xor(input: Any, other: Any) -> Tensor:
    """``input ^ other``."""
    return _bitwise("xor", input, other)


def bitwise_not(input: Tensor) -> Tensor:
    """``~input``: logical not of bools, bitwise not (−x − 1) of integers."""
    if is_floating(input.dtype):
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
        )
    return Tensor._from_array(array_module(input.data).invert(input.data))


def _logical(name: str, input: Any, other: Any) -> Tensor:
    a, b = _binary(input, other, f"logical_{name}")
    xp = array_module(a.data)
    fn = {"and": xp.logical_and, "or": xp.logical_or, "xor": xp.logical_xor}[name]
    return Tensor._from_array(fn(a.data, b.data))


def logical_and(input: Tensor, other: Any) -> Tensor:
    """True where both are nonzero (any dtypes; the result is bool)."""
    return _logical("and", input, other)


def logical_or(input: Tensor, other: Any) -> Tensor:
    """True where either is nonzero."""
    return _logical("or", input, other)


def logical_xor(input: Tensor, other: Any) -> Tensor:
    """True where exactly one is nonzero."""
    return _logical("xor", input, other)


def logical_not(input: Tensor) -> Tensor:
    """True where ``input`` is zero."""
    return Tensor._from_array(array_module(input.data).logical_not(input.data))


def _test(name: str, input: Tensor, dim: Any, keepdim: bool) -> Tensor:
    """``all``/``any`` over ``dim`` (an int, a tuple, or None: every element). The result is
    bool (uint8 for a uint8 input, as in PyTorch)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}() takes a Tensor, not {type(input).__name__}")
    xp = array_module(input.data)
    axes = _axes(dim, input.ndim) if dim is not None else None
    fn = xp.all if name == "all" else xp.any
    if axes is None:
        out = fn(input.data)
        out = out.reshape((1,) * input.ndim) if keepdim else out
    else:
        out = fn(input.data, axis=axes, keepdims=keepdim) if axes else input.data != 0
    out = xp.asarray(out)
    return Tensor._from_array(out.astype(np.uint8) if input.dtype == np.uint8 else out)


def all(input: Tensor, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
    """True if every element (along ``dim``) is nonzero."""
    return _test("all", input, dim, keepdim)


def any(input: Tensor, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
    """True if some element (along ``dim``) is nonzero."""
    return _test("any", input, dim, keepdim)


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:
    """The indices of the nonzero elements: an int64 tensor of shape (count, ndim), one row
    per element in row-major order; ``as_tuple=True``: one 1-d tensor per axis (a 0-d
    input counts as 1-d), what ``x[...]`` takes and what ``where(cond)`` returns."""
    if not isinstance(input, Tensor):
        raise TypeError(f"nonzero() takes a Tensor, not {type(input).__name__}")
    xp = array_module(input.data)
    data = input.data.reshape(1) if input.ndim == 0 and as_tuple else input.data
    if data.ndim == 0:  # PyTorch: a 0-d input gives shape (1, 0) or (0, 0)
        count = int(builtins.bool(data != 0))
        return Tensor._from_array(xp.zeros((count, 0), dtype=np.int64))
    index = xp.nonzero(data)
    if as_tuple:
        return tuple(Tensor._from_array(i.astype(np.int64)) for i in index)
    return Tensor._from_array(xp.stack(index, axis=1).astype(np.int64))

"""Making tensors: ``tensor``, ``zeros``, ``ones``, ``full``, ``arange``, ``eye``,
``randn``, ``rand`` and the ``*_like`` forms, with PyTorch's signatures and defaults
(floating results get the default dtype, float32). A Python number is converted once, to
the dtype asked for: ``tensor(0.1, dtype=float64)`` is exactly 0.1. Given code."""

from __future__ import annotations

from typing import Any

import numpy as np

from .backend import array_module
from .dtypes import get_default_dtype

_random = {"generator": np.random.default_rng()}


def manual_seed(seed: int) -> None:
    """Seed the generator behind ``randn`` and ``rand``, for repeatable runs."""
    _random["generator"] = np.random.default_rng(seed)


def _size(size: tuple) -> tuple[int, ...]:
    """``zeros(2, 3)`` and ``zeros((2, 3))``: the size (2, 3), checked."""
    size = _tensor._shape_args(size)
    if not all(isinstance(n, (int, np.integer)) and n >= 0 for n in size):
        raise ValueError(f"a size is non-negative integers, not {size}")
    return tuple(int(n) for n in size)


def _make(array: np.ndarray, requires_grad: bool, device: Any) -> _tensor.Tensor:
    return _tensor.Tensor(array, requires_grad=requires_grad, device=device)


def tensor(
    data: Any, dtype: Any = None, requires_grad: bool = False, device: Any = None
) -> _tensor.Tensor:
    """A new tensor holding a copy of ``data`` (numbers, nested lists, an array, a Tensor)."""
    if isinstance(data, _tensor.Tensor):
        data = data.data.copy()
    elif isinstance(data, np.ndarray):
        data = data.copy()
    return _tensor.Tensor(data, requires_grad=requires_grad, dtype=dtype, device=device)


def as_tensor(data: Any, dtype: Any = None) -> _tensor.Tensor:
    """``data`` as a tensor, sharing its memory when it already is an array of ``dtype``."""
    if isinstance(data, _tensor.Tensor):
        return data if dtype is None or data.dtype == dtype else _tensor.Tensor(data, dtype=dtype)
    return _tensor.Tensor(data, dtype=dtype)


def zeros(*size: int, dtype: Any = None, requires_grad: bool = False, device: Any = None):
    return _make(np.zeros(_size(size), dtype or get_default_dtype()), requires_grad, device)


def ones(*size: int, dtype: Any = None, requires_grad: bool = False, device: Any = None):
    return _make(np.ones(_size(size), dtype or get_default_dtype()), requires_grad, device)


def full(
    size: Any,
    fill_value: float,
    *,
    dtype: Any = None,
    requires_grad: bool = False,
    device: Any = None,
):
    if dtype is None:
        floating = isinstance(fill_value, float)
        dtype = get_default_dtype() if floating else np.asarray(fill_value).dtype
    return _make(np.full(_size((size,)), fill_value, dtype), requires_grad, device)


def eye(
    n: int,
    m: int | None = None,
    *,
    dtype: Any = None,
    requires_grad: bool = False,
    device: Any = None,
):
    return _make(np.eye(n, m, dtype=dtype or get_default_dtype()), requires_grad, device)


def arange(
    start: float,
    end: float | None = None,
    step: float = 1,
    *,
    dtype: Any = None,
    requires_grad: bool = False,
    device: Any = None,
):
    """``start, start + step, …`` below ``end`` (``arange(n)`` is ``0 … n-1``): int64 when
    every argument is an integer, the default floating dtype otherwise. Floating values are
    computed as PyTorch does, ``start + i · step`` in float64, then rounded once to
    ``dtype`` (NumPy would add up a float32 step in float32)."""
    if end is None:
        start, end = 0, start
    if dtype is None:
        ints = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        dtype = np.int64 if ints else get_default_dtype()
    if np.dtype(dtype).kind != "f":
        return _make(np.arange(start, end, step, dtype=dtype), requires_grad, device)
    count = np.arange(start, end, step, dtype=np.float64).size
    values = start + np.arange(count, dtype=np.float64) * step
    return _make(values.astype(dtype), requires_grad, device)


def randn(*size: int, dtype: Any = None, requires_grad: bool = False, device: Any = None):
    """Samples of the standard normal distribution."""
    data = _random["generator"].standard_normal(_size(size))
    return _make(data.astype(dtype or get_default_dtype()), requires_grad, device)


def rand(*size: int, dtype: Any = None, requires_grad: bool = False, device: Any = None):
    """Samples of the uniform distribution on [0, 1)."""
    data = _random["generator"].random(_size(size))
    return _make(data.astype(dtype or get_default_dtype()), requires_grad, device)


def _like(fill: Any, x: _tensor.Tensor, dtype: Any, requires_grad: bool) -> _tensor.Tensor:
    data = array_module(x.data).full(x.shape, fill, dtype=dtype or x.dtype)
    return _tensor.Tensor(data, requires_grad=requires_grad)


def zeros_like(x: _tensor.Tensor, *, dtype: Any = None, requires_grad: bool = False):
    """Zeros of ``x``'s shape, dtype and device."""
    return _like(0, x, dtype, requires_grad)


def ones_like(x: _tensor.Tensor, *, dtype: Any = None, requires_grad: bool = False):
    """Ones of ``x``'s shape, dtype and device."""
    return _like(1, x, dtype, requires_grad)


def randn_like(x: _tensor.Tensor, *, dtype: Any = None, requires_grad: bool = False):
    return randn(*x.shape, dtype=dtype or x.dtype, requires_grad=requires_grad).to(x.device)


from . import tensor as _tensor  # noqa: E402  (last: tensor.py imports this module)

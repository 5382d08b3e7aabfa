"""Making tensors: ``tensor``, ``zeros``, ``ones``, ``empty``, ``full``, ``arange``,
``linspace``, ``eye``, ``randn``, ``rand`` and the ``*_like`` forms, with PyTorch's
signatures and defaults (floating results get the default dtype, float32). A Python number
is converted once, to the dtype asked for: ``tensor(0.1, dtype=float64)`` is exactly 0.1.
``empty`` gives zeros (PyTorch leaves the memory as it finds it: never read it before
writing). ``generator=`` (``randn``, ``rand``, ``*_like``) takes chapter 5's ``Generator``,
reached through a seam. Given code."""

from __future__ import annotations

from typing import Any

import numpy as np

from .backend import array_module
from .dtypes import get_default_dtype, is_floating
from .seams import later

_random = {"generator": np.random.default_rng()}


def manual_seed(seed: int) -> None:
    """Seed the generator behind ``randn`` and ``rand``, for repeatable runs."""
    _random["generator"] = np.random.default_rng(seed)


def _rng(generator: Any) -> np.random.Generator:
    """The NumPy generator to draw from: the global one (``manual_seed``'s), or that of the
    ``Generator`` given (chapter 5's, reached through a seam)."""
    if generator is None:
        return _random["generator"]
    return later(5, "ch05_nn", "generator", "generator=").rng_of(generator)


def _floating_dtype(dtype: Any, what: str) -> np.dtype:
    """``dtype`` (the default dtype when None) for a draw that only floats can hold."""
    dtype = get_default_dtype() if dtype is None else np.dtype(dtype)
    if not is_floating(dtype):
        raise NotImplementedError(f'"{what}" not implemented for {dtype} (a floating dtype only)')
    return dtype


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


def randn(
    *size: int,
    generator: Any = None,
    dtype: Any = None,
    requires_grad: bool = False,
    device: Any = None,
):
    """Samples of the standard normal distribution."""
    dtype = _floating_dtype(dtype, "normal")
    data = _rng(generator).standard_normal(_size(size))
    return _make(data.astype(dtype), requires_grad, device)


def rand(
    *size: int,
    generator: Any = None,
    dtype: Any = None,
    requires_grad: bool = False,
    device: Any = None,
):
    """Samples of the uniform distribution on [0, 1)."""
    dtype = _floating_dtype(dtype, "uniform")
    data = _rng(generator).random(_size(size))
    return _make(data.astype(dtype), requires_grad, device)


def empty(*size: int, dtype: Any = None, requires_grad: bool = False, device: Any = None):
    """A tensor of ``size`` whose values are not to be read before they are written: zeros
    here (PyTorch's are whatever the memory held)."""
    return zeros(*size, dtype=dtype, requires_grad=requires_grad, device=device)


def linspace(
    start: Any,
    end: Any,
    steps: int,
    *,
    dtype: Any = None,
    requires_grad: bool = False,
    device: Any = None,
):
    """``steps`` values evenly spaced from ``start`` to ``end``, both included (the default
    floating dtype unless ``dtype``). Computed as PyTorch's formula says, in the result's
    dtype (for an integer one: the ends truncated, then float64, then truncated): step =
    (end − start) / (steps − 1), the first half ``start + i · step`` and the second half
    ``end − (steps − 1 − i) · step``, so both ends are exact. (PyTorch's vectorised loop
    rounds some middle values differently, by an ulp or two: within float rounding.)"""
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)):
        raise TypeError(f"linspace(): argument 'steps' must be int, not {type(steps).__name__}")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start, end = (v.item() if isinstance(v, _tensor.Tensor) else v for v in (start, end))
    dtype = get_default_dtype() if dtype is None else np.dtype(dtype)
    if dtype.kind == "b":
        raise NotImplementedError('"linspace" not implemented for bool')
    work = dtype if is_floating(dtype) else np.dtype(np.float64)
    if not is_floating(dtype):  # the ends as integers first: linspace(0.5, 9.7, 3, dtype=int64)
        start, end = int(start), int(end)
    a, b, steps = work.type(start), work.type(end), int(steps)
    if steps == 1:
        values = np.full(1, a, dtype=work)
    else:
        i = np.arange(steps, dtype=work)
        step = (b - a) / work.type(max(steps - 1, 1))
        half = steps // 2
        values = np.where(i < half, a + step * i, b - step * (steps - 1 - i)).astype(work)
    return _make(values.astype(dtype), requires_grad, device)


# the ``*_like`` forms: ``input``'s shape, and its dtype and device unless told otherwise


def _like(fill: Any, x: _tensor.Tensor, dtype: Any, requires_grad: bool, device: Any):
    if not isinstance(x, _tensor.Tensor):
        raise TypeError(f"a *_like factory takes a Tensor, not {type(x).__name__}")
    dtype = x.dtype if dtype is None else np.dtype(dtype)
    if device is None or _tensor._device(device) == x.device:
        data = array_module(x.data).full(x.shape, fill, dtype=dtype)  # made where x is
        return _tensor.Tensor(data, requires_grad=requires_grad)
    return _make(np.full(x.shape, fill, dtype=dtype), requires_grad, device)


def zeros_like(
    input: _tensor.Tensor, *, dtype: Any = None, requires_grad: bool = False, device: Any = None
):
    """Zeros of ``input``'s shape, dtype and device."""
    return _like(0, input, dtype, requires_grad, device)


def ones_like(
    input: _tensor.Tensor, *, dtype: Any = None, requires_grad: bool = False, device: Any = None
):
    """Ones of ``input``'s shape, dtype and device."""
    return _like(1, input, dtype, requires_grad, device)


def empty_like(
    input: _tensor.Tensor, *, dtype: Any = None, requires_grad: bool = False, device: Any = None
):
    """``empty`` of ``input``'s shape, dtype and device (zeros here)."""
    return _like(0, input, dtype, requires_grad, device)


def full_like(
    input: _tensor.Tensor,
    fill_value: Any,
    *,
    dtype: Any = None,
    requires_grad: bool = False,
    device: Any = None,
):
    """``fill_value`` everywhere, of ``input``'s shape, dtype and device (the value converted
    to that dtype: ``full_like(int_tensor, 2.7)`` holds 2, as in PyTorch)."""
    return _like(fill_value, input, dtype, requires_grad, device)


def _random_like(draw: Any, x: Any, generator: Any, dtype: Any, requires_grad: Any, device: Any):
    if not isinstance(x, _tensor.Tensor):
        raise TypeError(f"a *_like factory takes a Tensor, not {type(x).__name__}")
    target = x.device if device is None else device
    return draw(
        *x.shape,
        generator=generator,
        dtype=x.dtype if dtype is None else dtype,
        requires_grad=requires_grad,
        device=target,
    )


def randn_like(
    input: _tensor.Tensor,
    *,
    generator: Any = None,
    dtype: Any = None,
    requires_grad: bool = False,
    device: Any = None,
):
    """``randn`` of ``input``'s shape, dtype and device."""
    return _random_like(randn, input, generator, dtype, requires_grad, device)


def rand_like(
    input: _tensor.Tensor,
    *,
    generator: Any = None,
    dtype: Any = None,
    requires_grad: bool = False,
    device: Any = None,
):
    """``rand`` of ``input``'s shape, dtype and device."""
    return _random_like(rand, input, generator, dtype, requires_grad, device)


from . import tensor as _tensor  # noqa: E402  (last: tensor.py imports this module)

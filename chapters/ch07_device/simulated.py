"""The simulated device: a second kind of memory, for a laptop without a GPU.

A GPU's arrays live in the GPU's own memory. NumPy cannot read them, and CuPy refuses to
let that go unnoticed: ``numpy.asarray(gpu_array)`` raises, and the only ways back to the
host are explicit (``.get()``, ``cupy.asnumpy``). Copies between host and device are the
cost to avoid, so it matters where they happen.

This module gives a laptop the same discipline. A ``SimArray`` keeps its numbers in a NumPy
array it never hands out; ``simnumpy`` is its array namespace (``cupy`` to a ``cupy.ndarray``
what ``simnumpy`` is to a ``SimArray``), and every copy between host and the simulated
device is counted (``counting()``):

- host → device: ``simnumpy.asarray(host_data)`` (also a Python number or list, and a NumPy
  array used as an index), the only way in;
- device → host: ``.get()``, ``.item()``, ``float()``, ``int()``, ``bool()``, ``.tolist()``;
- refused, as CuPy refuses them: ``numpy.asarray(sim_array)`` (TypeError, CuPy's message), a
  NumPy array as the other operand of an operator or of a ``simnumpy`` function, a list as
  an operand, a NumPy array assigned into a ``SimArray``;
- refused here where CuPy would dispatch: NumPy's ufuncs and the NumPy functions that
  would convert their argument (``numpy.exp(x)``, ``numpy.add.at(x, …)``,
  ``numpy.zeros_like(x)``). CuPy runs some of those through ``__array_ufunc__`` /
  ``__array_function__`` and fails on others; refusing them keeps code honest: what runs
  here uses ``xp = array_module(x)`` and so runs on CuPy. (NumPy functions that only call
  the array's own method, such as ``numpy.sum(x)``, work, as they do on CuPy.)
- a little stricter than CuPy in places where CuPy copies quietly: a NumPy array or a
  tuple assigned into a ``SimArray``, a list mixing device arrays and numbers.

Given code: the device is the course's tool, not a task.
"""

from __future__ import annotations

import types
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..ch02_tensor.tensor import Tensor

IMPLICIT = (
    "Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct a "
    "NumPy array explicitly."
)  # CuPy's words


@dataclass
class Transfers:
    """Copies between the host and the simulated device, and their bytes."""

    to_device: int = 0
    to_host: int = 0
    bytes_to_device: int = 0
    bytes_to_host: int = 0

    def __sub__(self, other: Transfers) -> Transfers:
        return Transfers(*(a - b for a, b in zip(self._values(), other._values())))

    def _values(self) -> tuple[int, int, int, int]:
        return (self.to_device, self.to_host, self.bytes_to_device, self.bytes_to_host)


_total = Transfers()  # since the process started


def transfers() -> Transfers:
    """The copies so far (a snapshot)."""
    return Transfers(*_total._values())


@contextmanager
def counting() -> Iterator[Transfers]:
    """``with counting() as t: ...`` — afterwards ``t`` holds the copies made inside."""
    start, seen = transfers(), Transfers()
    try:
        yield seen
    finally:
        delta = transfers() - start
        seen.to_device, seen.to_host = delta.to_device, delta.to_host
        seen.bytes_to_device, seen.bytes_to_host = delta.bytes_to_device, delta.bytes_to_host


def _in(array: np.ndarray) -> np.ndarray:
    _total.to_device += 1
    _total.bytes_to_device += array.nbytes
    return array


def _out(array: np.ndarray) -> np.ndarray:
    _total.to_host += 1
    _total.bytes_to_host += array.nbytes
    return array


def _refuse(value: Any) -> None:
    raise TypeError(
        f"Unsupported type {type(value)}: a {type(value).__name__} lives in host memory and "
        "this array on the simulated device; move one of them first "
        "(simnumpy.asarray(host_array), or device_array.get())"
    )


def _operand(value: Any) -> Any:
    """An operator's other operand, unwrapped: a SimArray's array or a scalar."""
    if isinstance(value, SimArray):
        return value._a
    if isinstance(value, (bool, int, float, complex, np.generic)):
        return value
    if isinstance(value, (np.ndarray, list, tuple)):
        _refuse(value)
    return NotImplemented


def _index(index: Any) -> Any:
    """An index, unwrapped; a NumPy array in it is copied to the device first (counted)."""
    if isinstance(index, tuple):
        return tuple(_index(i) for i in index)
    if isinstance(index, SimArray):
        return index._a
    if isinstance(index, np.ndarray):
        return _in(index)
    if isinstance(index, list):
        return _in(np.asarray(index))
    return index


def _wrap(result: Any) -> Any:
    """NumPy's result as the device's: arrays (and NumPy scalars, as 0-d arrays) stay on it."""
    if isinstance(result, np.ndarray):
        return SimArray(result)
    if isinstance(result, np.generic):
        return SimArray(np.asarray(result))
    if isinstance(result, tuple):
        return tuple(_wrap(r) for r in result)
    if isinstance(result, list):
        return [_wrap(r) for r in result]
    return result


class SimArray:
    """An array in the simulated device's memory. Make one with ``simnumpy.asarray``."""

    __slots__ = ("__weakref__", "_a")
    __array_ufunc__ = None  # numpy.exp(x), ndarray + x: refused (NumPy defers to us)

    def __init__(self, array: np.ndarray) -> None:
        self._a = array

    # -- what it is (no copy: shape and dtype are known to the host) --------------------

    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    nbytes = property(lambda self: self._a.nbytes)
    itemsize = property(lambda self: self._a.itemsize)
    strides = property(lambda self: self._a.strides)
    T = property(lambda self: SimArray(self._a.T))
    device = property(lambda self: "sim:0")

    def __len__(self) -> int:
        return len(self._a)

    def __iter__(self) -> Iterator[SimArray]:
        return (SimArray(np.asarray(row)) for row in self._a)

    def __repr__(self) -> str:
        return f"SimArray(shape={self.shape}, dtype={self.dtype})"

    # -- the ways back to the host, each one counted -------------------------------------

    def get(self) -> np.ndarray:
        """A NumPy copy in host memory (CuPy's ``get``)."""
        return _out(self._a.copy())

    def item(self) -> Any:
        return _out(self._a).item()

    def tolist(self) -> Any:
        return _out(self._a).tolist()

    def __float__(self) -> float:
        return float(_out(self._a))

    def __int__(self) -> int:
        return int(_out(self._a))

    def __index__(self) -> int:
        return _out(self._a).__index__()

    def __bool__(self) -> bool:
        return bool(_out(self._a))

    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise TypeError(IMPLICIT)

    # -- indexing ------------------------------------------------------------------------

    def __getitem__(self, index: Any) -> SimArray:
        return _wrap(self._a[_index(index)])

    def __setitem__(self, index: Any, value: Any) -> None:
        if isinstance(value, (np.ndarray, list, tuple)):
            _refuse(value)
        self._a[_index(index)] = value._a if isinstance(value, SimArray) else value

    def __copy__(self) -> SimArray:
        return SimArray(self._a.copy())  # a copy on the device: nothing crosses

    def __deepcopy__(self, memo: dict) -> SimArray:
        return SimArray(self._a.copy())

    def __format__(self, spec: str) -> str:
        return format(self.item(), spec) if spec else repr(self)  # a number read back

    def __reduce__(self) -> Any:
        raise TypeError("a SimArray cannot be pickled: move it to the host first (.get())")


def _method(name: str) -> Any:
    def method(self: SimArray, *args: Any, **kwargs: Any) -> Any:
        args = tuple(_argument(a) for a in args)
        kwargs = {k: _argument(v) for k, v in kwargs.items()}
        return _wrap(getattr(self._a, name)(*args, **kwargs))

    method.__name__ = name
    return method


for _name in (
    "astype copy reshape transpose swapaxes ravel flatten squeeze sum mean prod max min "
    "argmax argmin var std any all cumsum clip fill take repeat dot nonzero view conj "
    "round"
).split():
    setattr(SimArray, _name, _method(_name))


def _binary(name: str) -> Any:
    def operator(self: SimArray, other: Any) -> Any:
        other = _operand(other)
        if other is NotImplemented:
            return NotImplemented
        return _wrap(getattr(self._a, name)(other))

    operator.__name__ = name
    return operator


def _inplace(name: str) -> Any:
    def operator(self: SimArray, other: Any) -> SimArray:
        if isinstance(other, Tensor):  # p.data += t: the tensor's array (ch02 array_protocol)
            other = other.data
        other = _operand(other)
        if other is NotImplemented:
            return NotImplemented
        getattr(self._a, name)(other)  # the same memory, changed
        return self

    operator.__name__ = name
    return operator


for _op in "add sub mul truediv floordiv mod pow matmul and or xor lt le gt ge eq ne".split():
    setattr(SimArray, f"__{_op}__", _binary(f"__{_op}__"))
    if _op not in ("lt", "le", "gt", "ge", "eq", "ne"):
        setattr(SimArray, f"__r{_op}__", _binary(f"__r{_op}__"))
        setattr(SimArray, f"__i{_op}__", _inplace(f"__i{_op}__"))
for _op in ("neg", "pos", "abs", "invert"):
    setattr(
        SimArray,
        f"__{_op}__",
        (lambda n: lambda self: _wrap(getattr(self._a, n)()))(f"__{_op}__"),  # 0-d stays
    )
SimArray.__hash__ = None  # type: ignore[assignment]  # == is elementwise


# -- the namespace --------------------------------------------------------------------------


def _argument(value: Any) -> Any:
    """A namespace function's argument, unwrapped: a device array, or a list or tuple of
    them (as for ``stack``, or an index tuple). A NumPy array is refused, as CuPy refuses it,
    and so is a list of non-integer numbers used as data (``maximum(x, [0.5, 1.0])``): host
    data comes in through ``asarray`` only. Integers, None, slices and ``...`` (shapes, axes,
    split points, index tuples) pass as they are."""
    if isinstance(value, SimArray):
        return value._a
    if isinstance(value, np.ndarray):
        _refuse(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_element(v, value) for v in value)
    return value


def _element(value: Any, whole: Any) -> Any:
    """An element of a list or tuple argument (see ``_argument``), unwrapped or refused."""
    if isinstance(value, SimArray):
        return value._a
    if isinstance(value, (list, tuple)):
        return type(value)(_element(v, whole) for v in value)
    if value is None or value is Ellipsis or isinstance(value, slice):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return value
    _refuse(whole)


_ENTRIES = ("asarray", "array", "asanyarray", "ascontiguousarray")  # host data comes in here


def _entry(fn: Any) -> Any:
    def entry(data: Any, *args: Any, **kwargs: Any) -> SimArray:
        if isinstance(data, SimArray):
            return _wrap(fn(data._a, *args, **kwargs))
        return SimArray(_in(np.array(fn(data, *args, **kwargs), copy=True)))

    return entry


def _function(fn: Any) -> Any:
    def function(*args: Any, **kwargs: Any) -> Any:
        args = tuple(_argument(a) for a in args)
        kwargs = {k: _argument(v) for k, v in kwargs.items()}
        return _wrap(fn(*args, **kwargs))

    function.__name__ = getattr(fn, "__name__", "function")
    return function


def kernel(fn: Any) -> Any:
    """``fn``, a NumPy function, run as one of the simulated device's kernels: it takes and
    gives device arrays, and nothing crosses to the host (a GPU runs its own code on its own
    memory). For what NumPy has and the namespace cannot reach, such as an ``erf``."""
    return _function(fn)


class _Ufunc:
    """A NumPy ufunc over device arrays: called, or through ``reduce`` / ``at`` / …"""

    def __init__(self, ufunc: np.ufunc) -> None:
        self._ufunc = ufunc

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _function(self._ufunc)(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._ufunc, name)
        return _function(attr) if callable(attr) else attr


class _Grid:
    """``ogrid`` / ``mgrid``: NumPy's index grids, made on the device."""

    def __init__(self, grid: Any) -> None:
        self._grid = grid

    def __getitem__(self, key: Any) -> Any:
        return _wrap(self._grid[key])


class Namespace(types.ModuleType):
    """``simnumpy``: NumPy's functions, taking and giving ``SimArray``s."""

    def __init__(self, name: str, base: types.ModuleType) -> None:
        super().__init__(name)
        self._base = base

    def __getattr__(self, name: str) -> Any:
        if name == "ndarray":
            return SimArray
        attr = getattr(self._base, name)
        if isinstance(attr, types.ModuleType):
            value: Any = Namespace(f"{self.__name__}.{name}", attr)
        elif isinstance(attr, np.ufunc):
            value = _Ufunc(attr)
        elif name in ("ogrid", "mgrid"):
            value = _Grid(attr)
        elif isinstance(attr, type) or not callable(attr):
            value = attr  # dtypes, constants, finfo…
        elif name in _ENTRIES:
            value = _entry(attr)
        else:
            value = _function(attr)
        setattr(self, name, value)  # looked up once
        return value


simnumpy = Namespace("simnumpy", np)

"""Data types, with PyTorch's defaults: floating data is float32 unless told otherwise.

float32 halves the memory and doubles the speed of float64, and training does not need
more; the checks use float64, because a central difference in float32 is too coarse to tell
a right gradient from a wrong one (§9 of the notebook). ``set_default_dtype`` changes what
Python floats become; NumPy arrays keep their own floating dtype.

A Python float stays a float64 (exact) until the dtype it is to have is known, and is then
rounded once: ``tensor(0.1, dtype=float64)`` holds exactly the float64 0.1, as in PyTorch.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

float16 = np.dtype(np.float16)
float32 = np.dtype(np.float32)
float64 = np.dtype(np.float64)
int32 = np.dtype(np.int32)
int64 = np.dtype(np.int64)
bool_ = np.dtype(np.bool_)

_default = {"dtype": float32}
_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2}  # bool < integer < floating


def get_default_dtype() -> np.dtype:
    """The dtype that Python floats (and float factories like ``zeros``) get."""
    return _default["dtype"]


def set_default_dtype(dtype: Any) -> None:
    """Make ``dtype`` (float16, float32 or float64) the default floating dtype."""
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise TypeError(f"the default dtype must be a floating dtype, not {dtype}")
    _default["dtype"] = dtype


def is_floating(dtype: Any) -> bool:
    return np.dtype(dtype).kind == "f"


def category(dtype: Any) -> int:
    """0 for bool, 1 for integers, 2 for floating dtypes (PyTorch's promotion order)."""
    return _CATEGORY[np.dtype(dtype).kind]


def promote_types(*dtypes: Any) -> np.dtype:
    """PyTorch's promotion of dtypes: the highest category wins (floating > integer > bool),
    and within it the widest dtype. ``float32`` with ``int64`` gives float32 (NumPy: float64)."""
    categories = [category(d) for d in dtypes]
    top = max(categories)
    return np.result_type(*[d for d, c in zip(dtypes, categories) if c == top])


def data_dtype(data: Any) -> np.dtype:
    """The dtype PyTorch gives a tensor made from Python data without ``dtype=``: a Python
    float counts as the default dtype, an int as int64, a bool as bool, a NumPy number as its
    own dtype; the elements of nested sequences are promoted (``promote_types``), and an
    empty sequence gets the default dtype. So ``[1, 2.5]`` is float32 and
    ``[np.float64(0.1), 0.2]`` float64."""
    found: set[np.dtype] = set()
    _element_dtypes(data, found)
    if not found:
        return get_default_dtype()
    odd = [d for d in found if d.kind not in _CATEGORY]
    return odd[0] if odd else promote_types(*found)  # odd: complex, str… (refused later)


def _element_dtypes(data: Any, found: set[np.dtype]) -> None:
    """Add the dtypes of ``data``'s elements to ``found``: one look per type of element at each
    level of nesting (``set(map(type, …))``), so a long list of floats costs little."""
    if not _is_sequence(data):
        found.add(_own_dtype(data))
        return
    for kind in set(map(type, data)):
        if kind in (bool, int, float):
            found.add(_own_dtype(kind()))
        else:  # nested lists, arrays, NumPy numbers, anything odd: one element at a time
            for item in data:
                if type(item) is kind:
                    _element_dtypes(item, found)


def _is_sequence(data: Any) -> bool:
    return isinstance(data, Sequence) and not isinstance(data, str)


def _own_dtype(value: Any) -> np.dtype:
    """The dtype of one element (a Python or NumPy number, or an array)."""
    if isinstance(value, bool):
        return bool_
    if hasattr(value, "dtype") and hasattr(value, "shape"):  # NumPy numbers and arrays
        return np.dtype(value.dtype)
    if isinstance(value, numbers.Integral):
        return int64
    if isinstance(value, numbers.Real):
        return get_default_dtype()
    return np.asarray(value).dtype  # complex, str…: refused by the caller


# PyTorch's legacy type names, for ``Tensor.type()``
LEGACY_NAMES = {
    np.dtype(np.float32): "FloatTensor",
    np.dtype(np.float64): "DoubleTensor",
    np.dtype(np.float16): "HalfTensor",
    np.dtype(np.uint8): "ByteTensor",
    np.dtype(np.int8): "CharTensor",
    np.dtype(np.int16): "ShortTensor",
    np.dtype(np.int32): "IntTensor",
    np.dtype(np.int64): "LongTensor",
    np.dtype(np.bool_): "BoolTensor",
}

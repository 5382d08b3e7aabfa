"""Data types, with PyTorch's defaults: floating data is float32 unless told otherwise.

float32 halves the memory and doubles the speed of float64, and training does not need
more; the checks use float64, because a central difference in float32 is too coarse to tell
a right gradient from a wrong one (§9 of the notebook). ``set_default_dtype`` changes what
Python floats become; NumPy arrays keep their own floating dtype.
"""

from __future__ import annotations

from typing import Any

import numpy as np

float16 = np.dtype(np.float16)
float32 = np.dtype(np.float32)
float64 = np.dtype(np.float64)
int32 = np.dtype(np.int32)
int64 = np.dtype(np.int64)
bool_ = np.dtype(np.bool_)

_default = {"dtype": float32}


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

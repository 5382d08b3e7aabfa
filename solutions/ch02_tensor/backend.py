"""The array namespace: every array operation in the framework goes through here.

Chapter 2 keeps its data in NumPy arrays. Chapter 7 adds other devices (CuPy on a GPU, a
simulated device) whose arrays are not NumPy's; code written as

    xp = array_module(x)        # numpy for a NumPy array, cupy for a CuPy array, ...
    y = xp.exp(x)

then runs unchanged on them. This file is given code (no task) and one of the seams of the
chapter: an array that is not NumPy's is handed to chapter 7's ``array_module``.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from .seams import later


def array_module(array: Any) -> ModuleType:
    """The module whose functions work on ``array``: ``numpy`` for NumPy arrays and Python
    numbers, chapter 7's answer for anything else."""
    if isinstance(array, (np.ndarray, np.generic, int, float, bool)):
        return np
    return later(7, "ch07_device", "array_module", "support for other arrays")(array)


def scatter_add(target: Any, index: Any, values: Any) -> None:
    """``target[index] += values`` where repeated positions in ``index`` all count, in place.

    Plain ``target[index] += values`` is wrong for the gradient of indexing: with
    ``index = [0, 0]`` it adds once, not twice. ``numpy.add.at`` adds every occurrence
    (CuPy's counterpart is ``cupyx.scatter_add``, which chapter 7 supplies).
    """
    if isinstance(target, np.ndarray):
        np.add.at(target, index, values)
    else:
        later(7, "ch07_device", "scatter_add", "support for other arrays")(target, index, values)

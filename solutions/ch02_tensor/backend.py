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
        if _basic(index):  # slices and ints name each position once: ``+=`` is exact, and
            target[index] += values  # far faster than ``add.at``'s element-by-element walk
        else:
            np.add.at(target, index, values)
    else:
        later(7, "ch07_device", "scatter_add", "support for other arrays")(target, index, values)


def _basic(index: Any) -> bool:
    """Whether ``index`` is a basic one (ints, slices, None, ...), which never repeats a
    position; an array or a list may."""
    parts = index if isinstance(index, tuple) else (index,)
    return all(
        p is None
        or p is Ellipsis
        or (isinstance(p, (slice, int, np.integer)) and not isinstance(p, bool))
        for p in parts
    )

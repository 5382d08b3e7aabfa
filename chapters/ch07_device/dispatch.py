"""Which device holds an array, and its array namespace (task 7.2, §4; task 7.6, §5).

Chapter 2 wrote every operation as ``xp = array_module(x); xp.exp(x)``, and answered
``array_module`` for NumPy arrays itself. Any other array comes here (the seam in
``ch02_tensor/backend.py``): the registered backend that owns it answers (the host is a
backend too, so ``sp.array_module`` answers for every array). The same goes for
``scatter_add``, the one operation whose spelling differs between NumPy and CuPy.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from ..ch02_tensor import device
from .backends import BACKENDS, Backend


def backend_of(array: Any) -> Backend:
    """The registered backend whose array ``array`` is, or a TypeError naming its type."""
    raise NotImplementedError(
        "Task 7.2: array_module and device_of: whose array? — see §4 of the notebook"
    )


def array_module(array: Any) -> ModuleType:
    """The namespace whose functions work on ``array``: ``numpy`` for the host's arrays,
    ``cupy`` for CuPy's, ``simnumpy`` for the simulated device's."""
    raise NotImplementedError(
        "Task 7.2: array_module and device_of: whose array? — see §4 of the notebook"
    )


def device_of(array: Any) -> device:
    """The device holding ``array``, with its index: ``device("cuda", 0)``, ``device("sim",
    0)``, and ``device("cpu")`` (no index) for the host's arrays."""
    raise NotImplementedError(
        "Task 7.2: array_module and device_of: whose array? — see §4 of the notebook"
    )


def scatter_add(target: Any, index: Any, values: Any) -> None:
    """``target[index] += values`` on a device, in place, where repeated positions in
    ``index`` all count (NumPy's ``add.at``; CuPy's ``cupyx.scatter_add``). ``index`` and
    ``values`` must be on ``target``'s device: NumPy ones are copied there first (the one
    place besides ``move_array`` where data crosses, because chapter 2's indexing hands
    host indices to its backward)."""
    raise NotImplementedError("Task 7.6: scatter_add on a device — see §5 of the notebook")


def erf(array: Any) -> Any:
    """erf of a device's array, by that device's own function (chapter 5's exact GELU reaches
    this through a seam; NumPy and its namespace have no erf)."""
    return backend_of(array).erf(array)


def _on(xp: ModuleType, index: Any) -> Any:
    """An index with its NumPy arrays copied to ``xp``'s device (ints and slices as they are)."""
    if isinstance(index, tuple):
        return tuple(_on(xp, i) for i in index)
    if isinstance(index, (np.ndarray, list)):
        return xp.asarray(index)
    return index

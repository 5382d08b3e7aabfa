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
    ### BEGIN SOLUTION 7.2
    for backend in BACKENDS.values():
        if backend.owns(array):
            return backend
    raise TypeError(
        f"no device holds arrays of type {type(array).__name__}: a tensor's data is a NumPy "
        "array or the array of a registered device (cuda, sim)"
    )
    ### END SOLUTION


def array_module(array: Any) -> ModuleType:
    """The namespace whose functions work on ``array``: ``numpy`` for the host's arrays,
    ``cupy`` for CuPy's, ``simnumpy`` for the simulated device's."""
    ### BEGIN SOLUTION 7.2
    return backend_of(array).namespace()
    ### END SOLUTION


def device_of(array: Any) -> device:
    """The device holding ``array``, with its index: ``device("cuda", 0)``, ``device("sim",
    0)``, and ``device("cpu")`` (no index) for the host's arrays."""
    ### BEGIN SOLUTION 7.2
    backend = backend_of(array)
    return device(backend.type, backend.index_of(array))
    ### END SOLUTION


def scatter_add(target: Any, index: Any, values: Any) -> None:
    """``target[index] += values`` on a device, in place, where repeated positions in
    ``index`` all count (NumPy's ``add.at``; CuPy's ``cupyx.scatter_add``). ``index`` and
    ``values`` must be on ``target``'s device: NumPy ones are copied there first (the one
    place besides ``move_array`` where data crosses, because chapter 2's indexing hands
    host indices to its backward)."""
    ### BEGIN SOLUTION 7.6
    backend = backend_of(target)
    xp = backend.namespace()
    index = _on(xp, index)
    if backend.owns(values) or np.isscalar(values):
        backend.scatter_add(target, index, values)
    else:
        backend.scatter_add(target, index, xp.asarray(values))
    ### END SOLUTION


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

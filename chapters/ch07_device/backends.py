"""The device registry: one ``Backend`` per kind of device besides the CPU.

A backend says everything the framework needs to know about a device type: the array
namespace (``xp``) whose functions work on its arrays, whether it is available and how many
devices it has, and how arrays cross between host memory and its memory. Three are
registered: ``cpu`` (NumPy, the host), ``cuda`` (CuPy, on an NVIDIA GPU) and ``sim`` (the
simulated device of ``simulated.py``). Another (Apple's ``mps``, say) would be one more
``register_backend``.

Nothing here imports CuPy: its backend reaches CuPy only when asked, and the probe that
decides whether CuPy can run at all is ``cuda.is_available`` (task 7.1). Given code.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType, SimpleNamespace
from typing import Any

import numpy as np

from ..ch05_nn.nn.activation import _erf as host_erf  # math.erf per element
from . import simulated


@dataclass(frozen=True)
class Backend:
    """A kind of device. ``owns(array)``: is this one of its arrays? ``namespace()``: its
    ``xp``; ``to_device(host_array, index)`` and ``to_host(array)``: the two copies;
    ``index_of(array)``: which of its devices holds ``array``; ``scatter_add``: repeated
    positions add up (NumPy's ``add.at``); ``erf``: the one function of chapter 5 (exact
    GELU) that NumPy lacks, so each backend says where its own is."""

    type: str
    owns: Callable[[Any], bool]
    namespace: Callable[[], ModuleType]
    is_available: Callable[[], bool]
    device_count: Callable[[], int]
    to_device: Callable[[Any, int], Any]
    to_host: Callable[[Any], np.ndarray]
    index_of: Callable[[Any], int]
    scatter_add: Callable[[Any, Any, Any], None]
    synchronize: Callable[[], None]
    erf: Callable[[Any], Any]


BACKENDS: dict[str, Backend] = {}


def register_backend(backend: Backend) -> None:
    """Make ``backend.type`` a device type: ``device(backend.type)`` then names it."""
    BACKENDS[backend.type] = backend


def backend_for(device_type: str) -> Backend:
    """The backend of a device type, or a ValueError listing the known types."""
    try:
        return BACKENDS[device_type]
    except KeyError:
        known = ", ".join(BACKENDS)
        raise ValueError(
            f"unknown device type {device_type!r}: this course knows {known}"
        ) from None


# -- the host -------------------------------------------------------------------------------


register_backend(
    Backend(
        type="cpu",
        owns=lambda array: isinstance(array, (np.ndarray, np.generic)),
        namespace=lambda: np,
        is_available=lambda: True,
        device_count=lambda: 1,
        to_device=lambda array, index: array,
        to_host=lambda array: array,
        index_of=lambda array: None,
        scatter_add=np.add.at,
        synchronize=lambda: None,
        erf=host_erf,
    )
)

# -- the simulated device -------------------------------------------------------------------

register_backend(
    Backend(
        type="sim",
        owns=lambda array: isinstance(array, simulated.SimArray),
        namespace=lambda: simulated.simnumpy,
        is_available=lambda: True,
        device_count=lambda: 1,
        to_device=lambda array, index: simulated.simnumpy.asarray(array),
        to_host=lambda array: array.get(),
        index_of=lambda array: 0,
        scatter_add=lambda target, index, values: simulated.simnumpy.add.at(target, index, values),
        synchronize=lambda: None,
        erf=simulated.kernel(host_erf),  # the host's erf, run "on the device"
    )
)


# -- CuPy -----------------------------------------------------------------------------------


def _cupy() -> ModuleType:
    import cupy  # only ever imported here, and only when a CUDA array is wanted

    return cupy


def _cupy_owns(array: Any) -> bool:
    cupy = sys.modules.get("cupy")  # a CuPy array exists only once CuPy was imported
    return cupy is not None and isinstance(array, cupy.ndarray)


def _cupy_to_device(array: Any, index: int) -> Any:
    cupy = _cupy()
    with cupy.cuda.Device(index):
        return cupy.asarray(array)


def _cupy_scatter_add(target: Any, index: Any, values: Any) -> None:
    import cupyx

    cupyx.scatter_add(target, index, values)


def _cupy_erf(array: Any) -> Any:
    from cupyx.scipy.special import erf

    return erf(array)


def _cupy_available() -> bool:
    from .cuda import is_available  # task 7.1's probe

    return is_available()


def _cupy_count() -> int:
    from .cuda import device_count

    return device_count()


register_backend(
    Backend(
        type="cuda",
        owns=_cupy_owns,
        namespace=_cupy,
        is_available=_cupy_available,
        device_count=_cupy_count,
        to_device=_cupy_to_device,
        to_host=lambda array: array.get(),
        index_of=lambda array: array.device.id,
        scatter_add=_cupy_scatter_add,
        synchronize=lambda: _cupy().cuda.Device().synchronize(),
        erf=_cupy_erf,
    )
)


# -- Apple's GPU: PyTorch's ``torch.backends.mps`` ----------------------------------------------


def _mps_is_available() -> bool:
    """Whether an ``mps`` device can be used: only once a backend for it is registered (none
    is, in this course)."""
    return "mps" in BACKENDS and BACKENDS["mps"].is_available()


def _mps_is_built() -> bool:
    return "mps" in BACKENDS


# ``sp.backends.mps.is_available()``: False here, so the tutorials' device-picking idiom
# (``"cuda" if … else "mps" if sp.backends.mps.is_available() else "cpu"``) runs
mps = SimpleNamespace(is_available=_mps_is_available, is_built=_mps_is_built)

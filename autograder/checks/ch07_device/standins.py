"""Chapter 7's stand-ins (see ``autograder/harness/standin.py``): the autograder's own
version of a task, installed into the code under test for a rerun of a check that needs it
(every check that meets a sim tensor asks 7.2 whose array it is; 7.4's checks move arrays
with 7.3's ``move_array``: always earlier tasks).

Each is enough for the checks that lean on it and deliberately short of its own task, so
pasted into that task it fails (the course repository's ``test_contracts.py``):

- 7.2 knows NumPy's arrays, the simulated device's and the checks' own toy device's by
  their types: a backend registered otherwise is not found, and a NumPy scalar is no host
  array.
- 7.3 moves between the host, the simulated device and the checks' toy device only: a
  device that is not there is no RuntimeError in one sentence naming it, and an array
  already in place is copied.
Runs in the child: standard library and NumPy only."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from ...harness.standin import Patch, everywhere


def _module(sp: ModuleType, name: str) -> ModuleType:
    return importlib.import_module(f"{sp.__name__}.{name}")


def _toy() -> type:
    """The checks' own toy device's array type (``programs.ToyArray``)."""
    return importlib.import_module(f"{__package__}.programs").ToyArray


def _whose(sp: ModuleType) -> list[Patch]:
    dispatch, backends = _module(sp, "dispatch"), _module(sp, "backends").BACKENDS
    sim, toy = sp.simulated.SimArray, _toy()

    def backend_of(array: Any) -> Any:
        if isinstance(array, np.ndarray):
            return backends["cpu"]
        if isinstance(array, sim):
            return backends["sim"]
        if isinstance(array, toy):  # the checks' own toy device, by its type
            return backends["toy"]
        raise TypeError("stand-in 7.2: NumPy, sim and the checks' toy arrays only")

    def array_module(array: Any) -> ModuleType:
        return backend_of(array).namespace()

    def device_of(array: Any) -> Any:
        if isinstance(array, toy):
            return sp.device("toy", array.index)
        return sp.device("cpu") if isinstance(array, np.ndarray) else sp.device("sim", 0)

    return [
        *everywhere(sp, dispatch.backend_of, backend_of),
        *everywhere(sp, dispatch.array_module, array_module),
        *everywhere(sp, dispatch.device_of, device_of),
    ]


def _move(sp: ModuleType) -> list[Patch]:
    transfer = _module(sp, "transfer")
    simnumpy, toy = sp.simulated.simnumpy, _toy()

    def move_array(array: Any, target: Any) -> Any:
        where = transfer.resolve(target)
        on_host = array.get() if isinstance(array, (sp.simulated.SimArray, toy)) else array
        if where.type == "cpu":
            return on_host
        if str(where) == "sim:0":
            return simnumpy.asarray(on_host)
        if where.type == "toy":  # the checks' own toy device, by its type
            return toy(on_host, where.index)
        raise RuntimeError("stand-in 7.3: cpu, sim and the checks' toy device only")

    return everywhere(sp, transfer.move_array, move_array)


STANDINS: dict[str, Callable[[ModuleType], list[Patch]]] = {"7.2": _whose, "7.3": _move}

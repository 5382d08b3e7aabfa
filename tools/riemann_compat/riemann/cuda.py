"""``riemann.cuda``: the framework's ``cuda`` module, with Riemann's names for the device
class (``Device``), the CuPy module (``cp``, None without a usable GPU) and its flag
(``CUPY_AVAILABLE``). The last two are asked of ``cuda.is_available()`` when first read,
not at import: on the student tree, an unfinished task 7.1 then fails the files that read
them, not every file."""

import importlib as _importlib
from typing import Any as _Any

from ._map import absent as _absent
from ._map import framework as _framework
from ._map import reexport as _reexport

_sp = _framework()
_reexport(globals(), _sp.cuda)

Device = _sp.device
get_default_device = _sp.get_default_device
set_default_device = _sp.set_default_device

_missing = _absent(__name__)


def __getattr__(name: str) -> _Any:
    if name == "CUPY_AVAILABLE":
        return _sp.cuda.is_available()
    if name == "cp":
        return _importlib.import_module("cupy") if _sp.cuda.is_available() else None
    return _missing(name)

"""``riemann.cuda``: the framework's ``cuda`` module, with Riemann's names for the device
class (``Device``), the CuPy module (``cp``, None without a usable GPU) and its flag."""

import importlib as _importlib

from ._map import absent as _absent
from ._map import framework as _framework
from ._map import reexport as _reexport

_sp = _framework()
_reexport(globals(), _sp.cuda)

Device = _sp.device
get_default_device = _sp.get_default_device
set_default_device = _sp.set_default_device
CUPY_AVAILABLE = _sp.cuda.is_available()
cp = _importlib.import_module("cupy") if CUPY_AVAILABLE else None

__getattr__ = _absent(__name__)

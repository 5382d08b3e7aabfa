"""``riemann.nn.functional``: the framework's ``nn.functional``."""

from .._map import absent as _absent
from .._map import framework as _framework
from .._map import reexport as _reexport

_reexport(globals(), _framework().nn.functional)

__getattr__ = _absent(__name__)

"""``riemann.nn.init``: the framework's ``nn.init``."""

from .._map import absent as _absent
from .._map import framework as _framework
from .._map import reexport as _reexport

_reexport(globals(), _framework().nn.init)

__getattr__ = _absent(__name__)

"""``riemann.nn``: the framework's ``nn``."""

from .._map import absent as _absent
from .._map import framework as _framework
from .._map import reexport as _reexport
from . import functional as functional
from . import init as init

_reexport(globals(), _framework().nn)

__getattr__ = _absent(__name__)

"""``riemann.utils``: the framework's ``utils``."""

from .._map import absent as _absent
from .._map import framework as _framework
from .._map import reexport as _reexport
from . import data as data

_reexport(globals(), _framework().utils)

__getattr__ = _absent(__name__)

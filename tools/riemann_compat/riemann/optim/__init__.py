"""``riemann.optim``: the framework's ``optim``."""

from .._map import absent as _absent
from .._map import framework as _framework
from .._map import reexport as _reexport
from . import lr_scheduler as lr_scheduler

_reexport(globals(), _framework().optim)

__getattr__ = _absent(__name__)

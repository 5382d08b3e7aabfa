"""``riemann.optim.lr_scheduler``: the framework's ``optim.lr_scheduler``."""

from .._map import absent as _absent
from .._map import framework as _framework
from .._map import reexport as _reexport

_reexport(globals(), _framework().optim.lr_scheduler)

__getattr__ = _absent(__name__)

"""``riemann.utils.data``: the framework's ``utils.data`` (Dataset, DataLoader, …)."""

from .._map import absent as _absent
from .._map import framework as _framework
from .._map import reexport as _reexport

_reexport(globals(), _framework().utils.data)

__getattr__ = _absent(__name__)

"""``riemann.dtype``: the dtypes (NumPy's dtype objects, as in the framework)."""

from ._map import absent as _absent
from ._map import framework as _framework
from ._map import reexport as _reexport

_reexport(globals(), _framework())

__getattr__ = _absent(__name__)

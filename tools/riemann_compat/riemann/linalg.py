"""``riemann.linalg``: the framework's ``linalg`` where it has one (linear algebra beyond
matmul is out of the course's scope; this module is there so that imports resolve)."""

from ._map import absent as _absent
from ._map import framework as _framework
from ._map import reexport as _reexport

_reexport(globals(), getattr(_framework(), "linalg", None))

__getattr__ = _absent(__name__)

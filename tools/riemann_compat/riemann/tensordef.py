"""``riemann.tensordef``: Riemann's home of the tensor and its functions; here, the
framework's top level."""

from ._map import absent as _absent
from ._map import framework as _framework
from ._map import reexport as _reexport

_sp = _framework()
TN = _sp.Tensor
_reexport(globals(), _sp)

__getattr__ = _absent(__name__)

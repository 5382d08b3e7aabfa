"""``riemann.autograd.grad`` (Riemann's module of ``grad`` and ``Function``): the
framework's ``autograd``."""

from .._map import absent as _absent
from .._map import framework as _framework
from .._map import reexport as _reexport

_reexport(globals(), _framework().autograd)

__getattr__ = _absent(__name__)

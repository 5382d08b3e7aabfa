"""``riemann.autograd.functional``: the framework's ``autograd.functional`` (jacobian,
hessian, jvp, vjp, …)."""

from .._map import absent as _absent
from .._map import framework as _framework
from .._map import reexport as _reexport

_reexport(globals(), _framework().autograd.functional)

__getattr__ = _absent(__name__)

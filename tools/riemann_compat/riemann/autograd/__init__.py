"""``riemann.autograd``: the framework's ``autograd`` (``grad``, ``Function``,
``functional``)."""

from .._map import absent as _absent
from .._map import framework as _framework
from .._map import reexport as _reexport
from . import functional as functional
from . import grad as _grad_module  # noqa: F401  (riemann.autograd.grad, the module)

_reexport(globals(), _framework().autograd)

# the function, over the submodule's name, as Riemann's package exports it
grad = _framework().autograd.grad

__getattr__ = _absent(__name__)

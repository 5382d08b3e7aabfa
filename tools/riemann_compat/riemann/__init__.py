"""``riemann``: the last chapter's package under Riemann's names (re-exports and renames only)."""

# Riemann's submodules (each a re-export of the framework's own) are imported first: a
# name already bound is not re-exported over (``riemann.nn`` is the module here, not the
# framework's)
from . import autograd as autograd
from . import cuda as cuda
from . import dtype as dtype
from . import linalg as linalg
from . import nn as nn
from . import optim as optim
from . import tensordef as tensordef
from . import utils as utils
from . import vision as vision
from ._map import absent as _absent
from ._map import framework as _framework
from ._map import reexport as _reexport

_sp = _framework()

# Riemann's renames of PyTorch's names
TN = _sp.Tensor  # Riemann's tensor class
Parameter = _sp.nn.Parameter  # Riemann's top-level name for nn.Parameter

_reexport(globals(), _sp)

__getattr__ = _absent(__name__)

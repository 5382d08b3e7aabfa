"""``riemann.vision``: Riemann's counterpart of torchvision, not of torch; the framework has
none of it (the course ships its own datasets). Every name here is a placeholder that fails
when used, so that a file importing it still runs its other tests."""

from .._map import absent as _absent
from . import datasets as datasets
from . import transforms as transforms

__getattr__ = _absent(__name__)

"""``riemann.vision.datasets``: torchvision's, not torch's; placeholders only."""

from .._map import absent as _absent

__getattr__ = _absent(__name__)

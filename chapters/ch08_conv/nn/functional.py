"""``nn.functional``: chapter 5's functions, plus the convolution and pooling ones."""

from ...ch05_nn.nn.functional import *  # noqa: F403
from ...ch05_nn.nn.functional import __all__ as _below
from ..conv import conv2d
from ..pooling import avg_pool2d, max_pool2d
from ..unfold import fold, unfold

__all__ = [*_below, "avg_pool2d", "conv2d", "fold", "max_pool2d", "unfold"]

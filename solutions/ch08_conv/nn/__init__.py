"""``nn``: chapter 6's ``nn`` plus this chapter's layers (PyTorch's names).

conv.py       Conv2d                                                task 8.3
pooling.py    MaxPool2d (task 8.4), AvgPool2d (task 8.5)
unfold.py     Unfold, Fold                                          tasks 8.1, 8.2
batchnorm.py  BatchNorm2d: chapter 5's BatchNorm1d over (N, H, W)    (given)
functional    chapter 5's functions, plus conv2d, max_pool2d, avg_pool2d, unfold, fold

(``Flatten``, for the step from feature maps to a ``Linear``, is chapter 5's.)
"""

import importlib as _importlib

from ...ch06_optim.nn import *  # noqa: F403  (chapters 5 and 6's nn)
from ...ch06_optim.nn import __all__ as _below
from ...ch06_optim.nn import init, utils
from ..batchnorm import BatchNorm2d
from ..conv import Conv2d
from ..pooling import AvgPool2d, MaxPool2d
from ..unfold import Fold, Unfold

# this package's own functional (the star import above bound chapter 5's to the name, and
# ``from . import functional`` would hand that back)
functional = _importlib.import_module(f"{__name__}.functional")

__all__ = [
    *_below,
    "AvgPool2d",
    "BatchNorm2d",
    "Conv2d",
    "Fold",
    "MaxPool2d",
    "Unfold",
    "functional",
    "init",
    "utils",
]

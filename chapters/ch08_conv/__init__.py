"""Chapter 8 — convolution: im2col and its adjoint, pooling, a CNN.

``from chapters import ch08_conv as sp`` gives the framework as it stands (chapters 2–7)
plus convolution: ``sp.nn.Conv2d``, ``sp.nn.MaxPool2d``, ``sp.nn.AvgPool2d``,
``sp.nn.BatchNorm2d``, ``sp.nn.Unfold``/``Fold`` and ``sp.nn.functional``'s ``conv2d``,
``max_pool2d``, ``avg_pool2d``, ``unfold``, ``fold`` (also ``sp.conv2d``,
``sp.max_pool2d``, ``sp.avg_pool2d``, as ``torch.conv2d``). Files, in the order the notebook
teaches them:

    loop.py        conv2d_loop: the sliding dot product, slowly            (given)
    sizes.py       output_size: how many windows fit                      task 8.1
    unfold.py      windows: every window as a strided view                 task 8.1
    unfold.py      col2im and the two backwards: fold, the adjoint         task 8.2
    conv.py        Convolution: W · unfold(x) + b, and its gradients       task 8.3
    pooling.py     MaxPool: the gradient to the argmax                     task 8.4
    pooling.py     AvgPool: the gradient shared by the window              task 8.5
    batchnorm.py   BatchNorm2d: chapter 5's over (N, H, W)                 (given)
"""

import importlib as _importlib

from .. import ch07_device as _below
from ..ch07_device import *  # noqa: F403  (the framework so far)
from ..ch07_device import bool as bool  # PyTorch's dtype names, kept out of __all__
from ..ch07_device import float as float
from ..ch07_device import int as int
from .conv import conv2d
from .loop import conv2d_loop
from .pooling import avg_pool2d, max_pool2d

# this chapter's nn (the star import bound chapter 6's to the name, and ``from . import nn``
# would hand that back)
nn = _importlib.import_module(f"{__name__}.nn")

__all__ = [*_below.__all__, "avg_pool2d", "conv2d", "conv2d_loop", "max_pool2d"]
__all__ = [name for name in __all__ if name != "nn"] + ["nn"]

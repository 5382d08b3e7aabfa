"""``nn``: chapter 5's modules, layers and losses, plus ``nn.utils`` (gradient clipping,
task 6.10). ``functional`` and ``init`` are chapter 5's, under the same names."""

from ...ch05_nn.nn import *  # noqa: F403  (chapter 5's nn)
from ...ch05_nn.nn import __all__ as _below

del functional, init  # noqa: F821  (chapter 5's: replaced by this package's modules of the same names)
from . import functional, init, utils  # noqa: E402, F401

__all__ = [*_below, "utils"]

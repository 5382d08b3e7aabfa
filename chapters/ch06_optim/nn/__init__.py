"""``nn``: chapter 5's modules, layers and losses, plus ``nn.utils`` (gradient clipping,
task 6.10). ``functional`` and ``init`` are chapter 5's, under the same names."""

from importlib import import_module

from ...ch05_nn.nn import *  # noqa: F403  (chapter 5's nn)
from ...ch05_nn.nn import __all__ as _below

# The * above bound chapter 5's modules; these names are this package's (which re-export them).
functional = import_module(".functional", __name__)
init = import_module(".init", __name__)
utils = import_module(".utils", __name__)

__all__ = [*_below, "utils"]

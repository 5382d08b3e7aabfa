"""``nn``: chapter 5's ``nn`` (modules, layers, losses, ``functional``, ``init``) plus this
chapter's ``nn.utils`` (gradient clipping, task 6.10).

``functional`` and ``init`` are chapter 5's modules themselves (the ``*`` binds them), also
for ``import <tree>.ch06_optim.nn.functional as F``: they are entered in ``sys.modules``
under this package's names too, as ``os.path`` is, so no file here re-exports them."""

import sys as _sys

from ...ch05_nn.nn import *  # noqa: F403  (chapter 5's nn)
from ...ch05_nn.nn import __all__ as _below
from ...ch05_nn.nn import functional, init
from . import utils

_sys.modules[f"{__name__}.functional"] = functional
_sys.modules[f"{__name__}.init"] = init

__all__ = [*_below, "utils"]

"""``nn.functional``: chapter 5's, under this chapter's name (``import ...nn.functional as F``)."""

from ...ch05_nn.nn.functional import *  # noqa: F403
from ...ch05_nn.nn.functional import __all__ as __all__

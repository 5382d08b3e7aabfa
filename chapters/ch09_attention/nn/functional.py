"""``nn.functional``: chapter 8's functions, plus ``scaled_dot_product_attention``."""

from ...ch08_conv.nn.functional import *  # noqa: F403
from ...ch08_conv.nn.functional import __all__ as _below
from ..attention import scaled_dot_product_attention

__all__ = [*_below, "scaled_dot_product_attention"]

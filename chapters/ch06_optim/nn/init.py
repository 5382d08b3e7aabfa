"""``nn.init``: chapter 5's, under this chapter's name."""

from ...ch05_nn.nn.init import *  # noqa: F403

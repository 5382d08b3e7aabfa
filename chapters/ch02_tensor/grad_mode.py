"""Grad mode: whether ``Function.apply`` records the graph. On by default.

Chapter 4 builds ``no_grad()``, ``enable_grad()`` and ``set_grad_enabled(b)`` on these two
functions; ``Node.backward`` uses them too, so that a local backward records a graph only
when asked to (``create_graph=True``, chapter 4). The flag is per thread, as in PyTorch.
"""

from __future__ import annotations

import threading


class _GradMode(threading.local):
    enabled = True


_mode = _GradMode()


def is_grad_enabled() -> bool:
    """True when new operations record how they were computed (the default)."""
    return _mode.enabled


def _set_grad_enabled(enabled: bool) -> bool:
    """Turn recording on or off for this thread; returns the previous setting."""
    previous, _mode.enabled = _mode.enabled, bool(enabled)
    return previous

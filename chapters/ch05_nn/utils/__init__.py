"""``utils``: ``utils.data`` (datasets and the DataLoader) and ``utils.checkpoint``."""

from . import checkpoint, data

__all__ = ["checkpoint", "data"]

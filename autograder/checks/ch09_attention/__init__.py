"""Public checks for chapter 9 — attention and a character-level Transformer (being
written: issue 31)."""

from __future__ import annotations

SINCE = "1.3"

CHECKS: list = []

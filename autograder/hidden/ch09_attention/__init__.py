"""Hidden checks for chapter 9 — attention (being written: issue 31)."""

from __future__ import annotations

CHECKS: list = []

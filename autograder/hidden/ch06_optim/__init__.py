"""Hidden checks for chapter 6 (placeholder)."""

from . import training

CHECKS: list = [*training.CHECKS]

"""Hidden checks for chapter 6 (placeholder)."""

CHECKS: list = []

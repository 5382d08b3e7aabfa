"""Hidden checks of chapter 7's operations (tasks 7.7 and 7.8): being written."""

CHECKS: list = []

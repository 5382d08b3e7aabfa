"""Shared test settings.

Hypothesis runs derandomized and without an example database, so every run (a student's,
CI's) draws the same examples and a failure reproduces exactly.
"""

from hypothesis import settings

settings.register_profile(
    "sparrow", derandomize=True, database=None, deadline=None, max_examples=60
)
settings.load_profile("sparrow")

"""The language a learner reads reports and hints in: ``SPARROW_LANG`` ("en", the default,
or "zh"), not ``LANG``, which is the locale (and which make passes to every recipe)."""

from __future__ import annotations

import os

LANGUAGES = ("en", "zh")


def language() -> str:
    """``SPARROW_LANG`` where it names a language of the course, else English."""
    wanted = os.environ.get("SPARROW_LANG", "en").strip().lower()
    return wanted if wanted in LANGUAGES else "en"

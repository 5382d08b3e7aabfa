"""The learner's language (``SPARROW_LANG``): ``harness/language.py`` holds it, since the
grading child, which gets the harness only, speaks it too (check programs' words)."""

from .harness.language import LANGUAGES, WIDE, Label, Text, language, say, tr

__all__ = ["LANGUAGES", "WIDE", "Label", "Text", "language", "say", "tr"]

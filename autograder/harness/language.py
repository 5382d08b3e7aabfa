"""The language a learner reads reports and hints in: ``SPARROW_LANG`` ("en", the default,
or "zh"), not ``LANG``, which is the locale (and which make passes to every recipe).

Every text a student reads is written in both languages where it is written:
- a text stored in a declaration (a mistake's words, a case's label) is a ``Text``, the
  dict ``{"en": …, "zh": …}``, said (``say``) where it is shown;
- a message a function writes when it runs (a verdict's f-string) is ``tr(en, zh)``, which
  picks one then.
The grading child reads it too (``runner.child_env`` passes it on): a check program's words
are ``tr(...)`` from ``harness.kit``. Numbers, code and identifiers are the same in both; the
framework's own exceptions that copy PyTorch's wording stay English (learners search them).
This module imports nothing but the standard library (the child has the harness only)."""

from __future__ import annotations

import os
from collections.abc import Mapping

LANGUAGES = ("en", "zh")

WIDE = "\u2e80-\u9fff\u3000-\u303f\uff00-\uffef"  # CJK characters and punctuation (a regex class)

# a message a student reads: English, or the same message in several languages
Text = str | Mapping[str, str]


class Label(dict):
    """A ``Text`` that can be hashed, as a str label can: a case's label written at import
    (``Rows.of``), which tests gather in sets, or a text that keys a table. Never changed
    once made."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items())))


def language() -> str:
    """``SPARROW_LANG`` where it names a language of the course, else English."""
    wanted = os.environ.get("SPARROW_LANG", "en").strip().lower()
    return wanted if wanted in LANGUAGES else "en"


def say(text: Text, lang: str | None = None) -> str:
    """``text`` in ``lang`` (default: ``language()``), else in English."""
    if isinstance(text, str):
        return text
    return text.get(lang or language()) or text.get("en") or next(iter(text.values()), "")


def tr(en: str, zh: str) -> str:
    """The message in the learner's language, chosen now: ``zh`` under ``SPARROW_LANG=zh``,
    else ``en``. For text a function writes when it runs; a stored text is a ``Text``."""
    return zh if language() == "zh" else en

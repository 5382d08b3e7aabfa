"""Task tables, one module per chapter: the one list that the stub generator, the checks
and the reports all read (id, title, points, notebook section, hints).

A task's help comes in stages (``autograder.hints``). A failing check's report is the first:
what went wrong, in the student's terms, on the smallest case, and ``see`` (the tool that
shows it: ``trace_backward``, the transfer counter, a plot). The rest come one at a time,
only when asked (``make hint TASK=4.2``, ``hint("4.2")``): ``idea`` (the idea, in words: no
code), then ``hint`` (the recipe), then the notebook's section."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..language import language

TRANSLATED = ("title", "hint", "idea", "see")  # a task's words a learner reads in a report
CATALOGS = Path(__file__).resolve().parent / "zh"  # zh/ch01.json: chapter 1's tasks in Chinese


@cache
def catalog(chapter: int) -> dict:
    """Chapter ``chapter``'s tasks in Chinese (``zh/chNN.json``): by task id, each field of
    ``TRANSLATED`` and ``en_sha``, the hash of the English it was translated from."""
    try:
        return json.loads((CATALOGS / f"ch{chapter:02d}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


@dataclass(frozen=True)
class Task:
    """One unit of student work: a marked region (or several) in the reference."""

    id: str  # "1.3": chapter 1, task 3
    title: str  # short, as shown in reports and stub messages
    points: int
    section: str  # where the notebook teaches it, e.g. "§3"
    hint: str  # the recipe: the last hint before the notebook's section, shown on request
    since: str = "1.0"  # the course version the task arrived in (``autograder.versions``)
    idea: str = ""  # the first hint on request: the idea, in words, with no code
    see: str = ""  # the tool that shows what went wrong (in the report, with the diagnosis)

    @property
    def hints(self) -> tuple[str, ...]:
        """The hints on request before the notebook's section (``autograder.hints`` adds it,
        by its heading): the idea, then the recipe, in the report's language."""
        return tuple(h for h in (self.text("idea"), self.text("hint")) if h)

    @property
    def en_sha(self) -> str:
        """The hash a translation records of this task's English words (``TRANSLATED``)."""
        words = json.dumps([getattr(self, field) for field in TRANSLATED], ensure_ascii=False)
        return hashlib.sha256(words.encode("utf-8")).hexdigest()[:16]

    def translation(self) -> dict:
        """This task's entry in its chapter's Chinese catalog, {} where there is none."""
        return catalog(int(self.id.split(".")[0])).get("tasks", {}).get(self.id, {})

    def text(self, field: str, lang: str | None = None) -> str:
        """``field`` of ``TRANSLATED`` in ``lang`` (default: ``SPARROW_LANG``); English where
        the translation is missing or older than the English (``en_sha``)."""
        english = getattr(self, field)
        if (lang or language()) != "zh" or not english:
            return english
        entry = self.translation()
        current = entry.get("en_sha") == self.en_sha
        return str(entry.get(field) or "") if current and entry.get(field) else english

    @property
    def stub_message(self) -> str:
        """What the generated stub raises until the student writes the task."""
        return f"Task {self.id}: {self.title} — see {self.section} of the notebook"

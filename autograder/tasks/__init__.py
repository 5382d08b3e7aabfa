"""Task tables, one module per chapter: the one list that the stub generator, the checks
and the reports all read (id, title, points, notebook section, hint)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Task:
    """One unit of student work: a marked region (or several) in the reference."""

    id: str  # "1.3": chapter 1, task 3
    title: str  # short, as shown in reports and stub messages
    points: int
    section: str  # where the notebook teaches it, e.g. "§3"
    hint: str  # the first thing to look at when its checks fail
    since: str = "1.0"  # the course version the task arrived in (``autograder.versions``)

    @property
    def stub_message(self) -> str:
        """What the generated stub raises until the student writes the task."""
        return f"Task {self.id}: {self.title} — see {self.section} of the notebook"

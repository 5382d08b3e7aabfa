"""Task tables, one module per chapter: the one list that the stub generator, the checks
and the reports all read (id, title, points, notebook section, hints).

A task's help comes in stages (``autograder.hints``). A failing check's report is the first:
what went wrong, in the student's terms, on the smallest case, and ``see`` (the tool that
shows it: ``trace_backward``, the transfer counter, a plot). The rest come one at a time,
only when asked (``make hint TASK=4.2``, ``hint("4.2")``): ``idea`` (the idea, in words: no
code), then ``hint`` (the recipe), then the notebook's section."""

from __future__ import annotations

from dataclasses import dataclass


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
        by its heading): the idea, then the recipe."""
        return tuple(h for h in (self.idea, self.hint) if h)

    @property
    def stub_message(self) -> str:
        """What the generated stub raises until the student writes the task."""
        return f"Task {self.id}: {self.title} — see {self.section} of the notebook"

"""The check cell of a notebook: ``check("1.3")`` shows the same report as ``make chapter-1``;
``hint("1.3")`` shows the task's next hint, as ``make hint TASK=1.3`` does.

It runs the same runner in a fresh child process, so what is checked is the code in your
files as they are saved now, not what this kernel imported earlier. It checks the tree the
notebook imports: ``chapters/``, or in the course repository the reference when
``SPARROW_IMPL`` names it.
A task that does not pass raises ``TaskNotPassed`` (an AssertionError) after the report, so
"Run all" stops where the work is unfinished.
"""

from __future__ import annotations

from . import hints
from .course import chapter as find_chapter
from .course import task as find_task
from .report import chapter_report
from .student import check as check_student
from .student import tree_version


class TaskNotPassed(AssertionError):
    """Raised by a check cell whose tasks do not all pass (the report says why)."""

    def _render_traceback_(self) -> list[str]:
        """IPython shows this one line instead of a traceback through the autograder."""
        return [f"{type(self).__name__}: {self}"]


def check(what: str | int) -> None:
    """Check one task (``"1.3"``) or a whole chapter (``1``), print the report, and raise
    TaskNotPassed unless everything checked passes."""
    __tracebackhide__ = True  # IPython and pytest show the report, not these frames
    if isinstance(what, str) and "." in what:
        ch, task = find_task(what)
        result = check_student(ch, task_ids=[task.id])
    else:
        result = check_student(find_chapter(what))
    print(chapter_report(result, tree_version().started))
    if not result.passed:
        failing = ", ".join(t.task.id for t in result.tasks if not t.passed)
        raise TaskNotPassed(f"not passed yet: task {failing} (the report above says why)")


def hint(task_id: str, level: int | None = None) -> None:
    """Print the next hint of ``task_id`` (one stage more each call), or hint ``level``."""
    print(hints.hint(task_id, level))

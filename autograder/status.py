"""What can happen to a check, a task and a submission: one enum, shared by the runner (what
happened to the child), the verdicts (what the data means), the instructor grader and the
reports (how each is shown).

``Status`` is a ``str`` enum, so a status compares equal to its text ("timed out") and
prints as it; code names the member, never the text."""

from __future__ import annotations

from enum import Enum


class Status(str, Enum):
    # what the runner saw happen to a check's child
    RAN = "ran"  # the program returned one result per case; the verdict decides
    TIMED_OUT = "timed out"  # over its CPU budget (or the wall-clock backstop)
    CRASHED = "crashed"  # the process died (a signal, os._exit, out of memory)
    FLOODED = "flooded"  # more data than the grader reads
    FORGED = "forged"  # messages out of protocol: code under test wrote to the channel
    IMPORT_ERROR = "import error"  # the code under test does not import
    # what the verdicts conclude
    PASSED = "passed"
    FAILED = "failed"
    NOT_STARTED = "not started"  # the task's stub is still there
    STARTED = "started"  # some of a task's functions written, the rest still stubs
    BLOCKED = "blocked"  # another task's failing code is the cause (see ``blocked_by``)
    # what the instructor grader says of a submission (or IMPORT_ERROR)
    GRADED = "graded"
    NOT_GRADED = "not graded"  # the grader could not grade it (a worker died, …): regrade it

    def __str__(self) -> str:
        return self.value

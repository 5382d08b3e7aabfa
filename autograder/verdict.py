"""Verdicts: the parent turns what the child returned into passed / failed, per check and
per task. Nothing here runs code under test; it reads plain data."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .harness.api import Blocked, Case, Check
from .runner import CheckRun
from .tasks import Task

# statuses, in the order a report explains them
PASSED, FAILED, NOT_STARTED, BLOCKED = "passed", "failed", "not started", "blocked"
IMPORT_ERROR = "import error"  # set by the runner, like "timed out", "crashed", "flooded"


@dataclass
class CheckVerdict:
    check: Check
    status: str  # passed, failed, not started, blocked, or the runner's "timed out", …
    case: Case | None = None  # the smallest failing case
    case_number: int = 0  # 1-based, of `cases`
    cases: int = 0
    message: str = ""  # expected vs received, the exception, or what happened to the child
    where: str = ""  # file and line in the code under test, when an exception was raised
    blocked_by: str = ""  # task id
    printed: str = ""  # what the code under test printed during the check
    raised: str | None = None  # the exception's type name, when the failing case raised
    hidden: bool = False  # a hidden check: every text here is the parent's own

    @property
    def passed(self) -> bool:
        return self.status == PASSED


@dataclass
class TaskVerdict:
    task: Task
    checks: list[CheckVerdict] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return bool(self.checks) and all(c.passed for c in self.checks)

    @property
    def points(self) -> float:
        """Full points when every check passes; a share per passing check otherwise."""
        if not self.checks:
            return 0.0
        return round(self.task.points * sum(c.passed for c in self.checks) / len(self.checks), 2)

    @property
    def status(self) -> str:
        if self.passed:
            return PASSED
        failing = [c for c in self.checks if not c.passed]
        real = [c for c in failing if c.status not in (NOT_STARTED, BLOCKED)]
        if real:
            return real[0].status
        if any(c.status == NOT_STARTED for c in failing):
            return NOT_STARTED  # its own code is not written yet
        return f"blocked by task {failing[0].blocked_by}"

    @property
    def first_problem(self) -> CheckVerdict | None:
        """The failing check a report shows: a real failure before a blocked one."""
        failing = [c for c in self.checks if not c.passed]
        failing.sort(key=lambda c: c.status in (NOT_STARTED, BLOCKED))
        return failing[0] if failing else None


def _exception_message(info: dict) -> str:
    text = f"raised {info.get('type', 'an exception')}"
    if info.get("message"):
        text += f": {info['message']}"
    return text


def _known_task(task_id: object) -> bool:
    """Whether ``task_id`` names a task of the course (a stub's message names one; code
    under test could raise a look-alike carrying any text)."""
    from .course import CHAPTERS

    return isinstance(task_id, str) and any(t.id == task_id for ch in CHAPTERS for t in ch.tasks)


def _chapter_of(task_id: str) -> int:
    head = task_id.split(".", 1)[0]
    return int(head) if head.isdigit() else 0


def judge(
    check: Check, cases: Sequence[Case], run: CheckRun, *, hidden: bool = False
) -> CheckVerdict:
    """The verdict on one check: the first case whose data the check's verdict rejects. A
    hidden check's verdict carries only text this process writes (``hide``)."""
    verdict = _judge(check, cases, run)
    return hide(verdict) if hidden else verdict


# what a hidden check may say about each outcome: nothing the child wrote
_HIDDEN_TEXT = {
    FAILED: "the result differs from what this hidden check expects",
    "timed out": "stopped: over its CPU budget",
    "crashed": "the process running your code died during this hidden check",
    "flooded": "the process running your code sent more data than the grader reads",
    IMPORT_ERROR: "your code does not import",
}


def _builtin_exception(name: str) -> bool:
    import builtins

    kind = getattr(builtins, name, None)
    return isinstance(kind, type) and issubclass(kind, BaseException)


def hide(verdict: CheckVerdict) -> CheckVerdict:
    """The verdict with every piece of text that came from the child replaced by the
    parent's own: the outcome, and an exception's type when it is a built-in one."""
    verdict.hidden, verdict.printed, verdict.where = True, "", ""
    if verdict.passed or verdict.status == NOT_STARTED:
        verdict.message = ""
    elif verdict.status == BLOCKED:
        verdict.message = f"blocked by task {verdict.blocked_by}"
    elif verdict.raised is not None:
        kind = verdict.raised if _builtin_exception(verdict.raised) else "an exception"
        verdict.message = f"raised {kind}"
    else:
        verdict.message = _HIDDEN_TEXT.get(verdict.status, "failed")
    return verdict


def _judge(check: Check, cases: Sequence[Case], run: CheckRun) -> CheckVerdict:
    verdict = CheckVerdict(check, PASSED, cases=len(cases), printed=run.printed)
    if run.status != "ran":
        verdict.status = run.status
        error = run.error or {}
        verdict.message = run.detail or _exception_message(error)
        verdict.where = error.get("where", "")
        return verdict
    if len(run.results) != len(cases):
        verdict.status, verdict.message = FAILED, "the child returned the wrong number of results"
        return verdict
    for number, (case, result) in enumerate(zip(cases, run.results), start=1):
        if "raised" in result:
            info = result["raised"]
            verdict.raised = str(info.get("type", ""))
            stub = info.get("not_started")
            stub = stub if _known_task(stub) else None  # only a real task's stub counts
            problem, where = _exception_message(info), info.get("where", "")
            if stub == check.task:
                status, blocked_by = NOT_STARTED, ""
            elif stub and _chapter_of(stub) > _chapter_of(check.task):
                # a later chapter's stub: this task's own code went where it need not go
                status, blocked_by = FAILED, ""
                problem += f" (task {stub} belongs to a later chapter: this task does not need it)"
            elif stub:
                status, blocked_by = BLOCKED, stub
            else:
                status, blocked_by = FAILED, ""
        else:
            try:
                problem = check.verdict(case, result.get("value"))
            except Exception as exc:  # data the comparison cannot take (an odd dtype, say)
                problem = (
                    f"the grader could not compare what your code returned with the expected "
                    f"value ({type(exc).__name__}): return the kind of value the task asks for"
                )
            if problem is None:
                continue
            status, blocked_by, where = FAILED, "", ""
            if isinstance(problem, Blocked):
                status, blocked_by = BLOCKED, problem.task
        verdict.status, verdict.blocked_by = status, blocked_by
        verdict.case, verdict.case_number = case, number
        verdict.message, verdict.where = problem, where
        return verdict
    return verdict


def apply_requirements(tasks: list[TaskVerdict]) -> None:
    """A check that fails (or times out, or crashes) while a task it ``requires`` fails too
    is reported as blocked by that task: the bug is probably there, not here. Its share of
    the points is not earned either way."""
    failing = {t.task.id for t in tasks if not t.passed}
    for task in tasks:
        for c in task.checks:
            if c.status in (FAILED, "timed out", "crashed") and not c.blocked_by:
                culprit = next((r for r in c.check.requires if r in failing), None)
                if culprit:
                    c.status, c.blocked_by = BLOCKED, culprit

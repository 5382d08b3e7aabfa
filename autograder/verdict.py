"""Verdicts: the parent turns what the child returned into passed / failed, per check and
per task. Nothing here runs code under test; it reads plain data."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

from . import frames
from .harness.api import Blocked, Case, Check
from .harness.language import Text, say, tr
from .runner import CheckRun
from .status import Status
from .tasks import Task


class Blame(str, Enum):
    """How a BLOCKED verdict knows that another task (``blocked_by``) is the cause."""

    STUB = "stub"  # the check ran that task's code and met its stub
    VERDICT = "verdict"  # the check's verdict found it (``Blocked``: chapter 3 meeting ch02)
    STANDIN = "stand-in"  # with the autograder's own version of it the check passes
    REQUIRES = "requires"  # the check requires that failing task, and no stand-in exists


# what a check's own task cannot be blamed for: its stub, or another task's failing code
WAITING = (Status.NOT_STARTED, Status.BLOCKED)


@dataclass
class CheckVerdict:
    check: Check
    status: Status  # passed, failed, not started, blocked, or the runner's timed out, …
    case: Case | None = None  # the smallest failing case
    case_number: int = 0  # 1-based, of `cases`
    cases: int = 0
    message: str = ""  # expected vs received, the exception, or what happened to the child
    where: str = ""  # file and line in the code under test, when an exception was raised
    blocked_by: str = ""  # the task id whose failing code is the cause (status BLOCKED)
    printed: str = ""  # what the code under test printed during the check
    raised: str | None = None  # the exception's type name, when the failing case raised
    hidden: bool = False  # a hidden check: every text here is the parent's own
    # the failing tasks the autograder's own stand-ins replaced in a rerun (``blame.py``):
    # failing still, its own task is the cause; passing (BLOCKED), ``causes`` says which
    # of them: each one whose own code alone fails it again
    standins: tuple[str, ...] = ()
    causes: tuple[str, ...] = ()  # empty where only all of them together make it pass
    # a check that passed with the student's failing required tasks and fails with the
    # stand-ins: its code leans on their bugs (two bugs that cancel out)
    leans_on_bugs: bool = False
    blame: Blame | None = None  # how ``blocked_by`` was found
    stub_in: str = ""  # NOT_STARTED: the task function whose stub it met (``Value.exp``)

    @property
    def passed(self) -> bool:
        return self.status == Status.PASSED


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
    def status(self) -> Status:
        """PASSED; a check's own failure (FAILED, TIMED_OUT, …) before anything else; then
        STARTED (some checks pass, the rest meet a stub), NOT_STARTED, BLOCKED."""
        if self.passed:
            return Status.PASSED
        failing = [c for c in self.checks if not c.passed]
        real = [c for c in failing if c.status not in WAITING]
        if real:
            return real[0].status
        if any(c.status == Status.NOT_STARTED for c in failing):
            # its own code is not (all) written yet
            return Status.STARTED if any(c.passed for c in self.checks) else Status.NOT_STARTED
        return Status.BLOCKED

    @property
    def blocked_by(self) -> str:
        """The task whose failing code blocks this one ("" unless ``status`` is BLOCKED)."""
        if self.status != Status.BLOCKED:
            return ""
        return next((c.blocked_by for c in self.checks if c.status == Status.BLOCKED), "")

    @property
    def not_started(self) -> list[CheckVerdict]:
        return [c for c in self.checks if c.status == Status.NOT_STARTED]

    @property
    def functions(self) -> tuple[str, ...]:
        """The task's functions (``frames.functions_of_tasks``; empty where unknown)."""
        return frames.functions_of_tasks().get(self.task.id, ())

    @property
    def unwritten(self) -> list[str]:
        """The task's functions a check met as a stub, in the task's order: a function no
        check reached may be a stub too, but one listed here is."""
        met = {c.stub_in for c in self.not_started}
        return [f for f in self.functions if f in met]

    @property
    def unwritten_by_file(self) -> list[str]:
        """``unwritten`` grouped by file, each "file: function, …" with the file's path in
        its chapter's package (``nn/module.py: Module._named_members, Module.train``)."""
        unwritten = set(self.unwritten)
        groups = []
        for rel, names in frames.files_of_task(self.task.id).items():
            mine = [name for name in names if name in unwritten]
            if mine:
                groups.append(f"{rel.partition('/')[2]}: {', '.join(mine)}")
        return groups

    @property
    def label(self) -> str:
        """The status as a report's task line writes it: "blocked by task 2.5", "started:
        3 of 4 functions written" (or "1 of 4 checks pass", where the stubs met are not
        known), "failed", … in the learner's language."""
        status = self.status
        if status == Status.BLOCKED:
            return _blocked_by(self.blocked_by)
        if status == Status.STARTED:
            functions, unwritten = self.functions, self.unwritten
            if unwritten and len(unwritten) < len(functions):
                written, count = len(functions) - len(unwritten), len(functions)
                return tr(
                    f"started: {written} of {count} functions written",
                    f"已开始：写了 {count} 个函数中的 {written} 个",
                )
            done, count = sum(c.passed for c in self.checks), len(self.checks)
            return tr(
                f"started: {done} of {count} checks pass", f"已开始：{count} 项检查中通过 {done} 项"
            )
        return say(STATUS_WORDS.get(status, str(status)))

    @property
    def first_problem(self) -> CheckVerdict | None:
        """The failing check a report shows: a real failure before a blocked one."""
        failing = [c for c in self.checks if not c.passed]
        failing.sort(key=lambda c: c.status in WAITING)
        return failing[0] if failing else None


# a status as a report writes it, in each language
STATUS_WORDS: dict[Status, Text] = {
    Status.NOT_STARTED: {"en": "not started", "zh": "未开始"},
    Status.PASSED: {"en": "passed", "zh": "通过"},
    Status.FAILED: {"en": "failed", "zh": "未通过"},
    Status.TIMED_OUT: {"en": "timed out", "zh": "超时"},
    Status.CRASHED: {"en": "crashed", "zh": "崩溃"},
    Status.FLOODED: {"en": "flooded", "zh": "输出过多"},
    Status.FORGED: {"en": "forged", "zh": "伪造了输出"},
    Status.IMPORT_ERROR: {"en": "import error", "zh": "导入错误"},
    Status.STARTED: {"en": "started", "zh": "已开始"},
    Status.BLOCKED: {"en": "blocked", "zh": "被阻塞"},
}


def _blocked_by(task_id: str) -> str:
    return tr(f"blocked by task {task_id}", f"被任务 {task_id} 阻塞")


def _exception_message(info: dict) -> str:
    kind = info.get("type") or tr("an exception", "一个异常")
    text = tr(f"raised {kind}", f"引发了 {kind}")
    if info.get("message"):
        text += f": {info['message']}"
    return text


def known_task(task_id: object) -> bool:
    """Whether ``task_id`` names a task of the course (a stub's message names one; code
    under test could raise a look-alike carrying any text)."""
    from .course import CHAPTERS

    return isinstance(task_id, str) and any(t.id == task_id for ch in CHAPTERS for t in ch.tasks)


def chapter_of(task_id: str) -> int:
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
_HIDDEN_TEXT: dict[Status, Text] = {
    Status.FAILED: {
        "en": "the result differs from what this hidden check expects",
        "zh": "结果与这项隐藏检查的期望不同",
    },
    Status.TIMED_OUT: {"en": "stopped: over its CPU budget", "zh": "已停止：超出了 CPU 时间预算"},
    Status.CRASHED: {
        "en": "the process running your code died during this hidden check",
        "zh": "运行你的代码的进程在这项隐藏检查中途退出了",
    },
    Status.FLOODED: {
        "en": "the process running your code sent more data than the grader reads",
        "zh": "运行你的代码的进程发来的数据超过了评分程序读取的上限",
    },
    Status.FORGED: {
        "en": "the process running your code wrote messages of its own to the grader",
        "zh": "运行你的代码的进程给评分程序写入了它自己编造的消息",
    },
    Status.IMPORT_ERROR: {"en": "your code does not import", "zh": "你的代码无法导入"},
}


def _builtin_exception(name: str) -> bool:
    import builtins

    kind = getattr(builtins, name, None)
    return isinstance(kind, type) and issubclass(kind, BaseException)


def hide(verdict: CheckVerdict) -> CheckVerdict:
    """The verdict with every piece of text that came from the child replaced by the
    parent's own: the outcome, and an exception's type when it is a built-in one."""
    verdict.hidden, verdict.printed, verdict.where = True, "", ""
    if verdict.passed or verdict.status == Status.NOT_STARTED:
        verdict.message = ""
    elif verdict.status == Status.BLOCKED:
        verdict.message = _blocked_by(verdict.blocked_by)
    elif verdict.raised is not None:
        kind = verdict.raised if _builtin_exception(verdict.raised) else None
        verdict.message = _exception_message({"type": kind})
    else:
        verdict.message = say(_HIDDEN_TEXT.get(verdict.status, STATUS_WORDS[Status.FAILED]))
    return verdict


def _judge(check: Check, cases: Sequence[Case], run: CheckRun) -> CheckVerdict:
    verdict = CheckVerdict(check, Status.PASSED, cases=len(cases), printed=run.printed)
    if run.status != Status.RAN:
        verdict.status = run.status
        error = run.error or {}
        verdict.message = run.detail or _exception_message(error)
        verdict.where = frames.where(error)
        return verdict
    if len(run.results) != len(cases):
        verdict.status = Status.FAILED
        verdict.message = tr(
            "the child returned the wrong number of results",
            "运行你的代码的子进程返回的结果数目不对",
        )
        return verdict
    for number, (case, result) in enumerate(zip(cases, run.results), start=1):
        if "raised" in result:
            info = result["raised"]
            verdict.raised = str(info.get("type", ""))
            stub = info.get("not_started")
            stub = stub if known_task(stub) else None  # only a real task's stub counts
            problem, where = _exception_message(info), frames.where(info)
            if stub == check.task:
                status, blocked_by = Status.NOT_STARTED, ""
                verdict.stub_in = frames.task_function(info)
            elif stub and chapter_of(stub) > chapter_of(check.task):
                # a later chapter's stub: this task's own code went where it need not go
                status, blocked_by = Status.FAILED, ""
                problem += tr(
                    f" (task {stub} belongs to a later chapter: this task does not need it)",
                    f"（任务 {stub} 属于后面的章节：这个任务用不到它）",
                )
            elif stub:
                status, blocked_by, verdict.blame = Status.BLOCKED, stub, Blame.STUB
            else:
                status, blocked_by = Status.FAILED, ""
        else:
            try:
                problem = check.verdict(case, result.get("value"))
            except Exception as exc:  # data the comparison cannot take (an odd dtype, say)
                problem = tr(
                    f"the grader could not compare what your code returned with the expected "
                    f"value ({type(exc).__name__}): return the kind of value the task asks for",
                    f"评分程序无法把你的代码返回的值与期望值比较（{type(exc).__name__}）："
                    "请返回任务要求的那种值",
                )
            if problem is None:
                continue
            status, blocked_by, where = Status.FAILED, "", ""
            if isinstance(problem, Blocked) and known_task(problem.task):
                status, blocked_by, verdict.blame = Status.BLOCKED, problem.task, Blame.VERDICT
        verdict.status, verdict.blocked_by = status, blocked_by
        verdict.case, verdict.case_number = case, number
        verdict.message, verdict.where = str(problem), where
        return verdict
    return verdict


# a check whose required task fails cannot tell whose bug it met: these outcomes are
# re-examined (``blame.py``) or, where no stand-in exists, blamed on the required task
SUSPECT = (Status.FAILED, Status.TIMED_OUT, Status.CRASHED)


def apply_requirements(tasks: list[TaskVerdict]) -> None:
    """A check that fails (or times out, or crashes) while a task it ``requires`` fails too,
    and that no stand-in rerun has judged, is reported as blocked by that task: the bug is
    probably there. Its share of the points is not earned either way."""
    failing = {t.task.id for t in tasks if not t.passed}
    for task in tasks:
        for c in task.checks:
            if c.status in SUSPECT and not c.blocked_by and not c.standins:
                culprit = next((r for r in c.check.requires if r in failing), None)
                if culprit:
                    c.status, c.blocked_by, c.blame = Status.BLOCKED, culprit, Blame.REQUIRES

"""The text reports a learner reads: one chapter in detail, or the whole course map."""

from __future__ import annotations

import re
import sys
import textwrap
import unicodedata
from collections.abc import Iterable, Sequence

from . import report_zh, versions
from .checking import ChapterResult
from .course import CHAPTERS, Chapter
from .language import WIDE, language
from .status import Status
from .verdict import Blame, CheckVerdict, TaskVerdict, chapter_of

WIDTH = 92


def _tr(template: str, **fields: object) -> str:
    """``template`` in the report's language (``report_zh`` under ``SPARROW_LANG=zh``; a
    template it lacks stays English), filled with ``fields`` as they are."""
    if language() == "zh":
        template = report_zh.TEMPLATES.get(template, template)
    return template.format(**fields) if fields else template


def _can_print(text: str) -> bool:
    try:
        text.encode(sys.stdout.encoding or "ascii")
        return True
    except (UnicodeEncodeError, LookupError):
        return False


FANCY = _can_print("✓✗·…↳⧗█░—§")
MARKS = (
    {Status.PASSED: "✓", Status.NOT_STARTED: "·", Status.STARTED: "…", Status.BLOCKED: "↳"}
    if FANCY
    else {Status.PASSED: "ok", Status.NOT_STARTED: "--", Status.STARTED: "..", Status.BLOCKED: "->"}
)
MARKS[Status.TIMED_OUT] = "⧗" if FANCY else "!!"
FAIL_MARK = "✗" if FANCY else "XX"


def _plain(text: str) -> str:
    return text if FANCY else text.encode("ascii", "replace").decode()


def _mark(status: Status) -> str:
    return MARKS.get(status, FAIL_MARK)


def _points(value: float) -> str:
    return f"{value:g}"


def _columns(text: str) -> int:
    """How many columns ``text`` takes: a wide (Chinese) character two, the rest one."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _ljust(text: str, width: int) -> str:
    """``text`` padded to ``width`` columns."""
    return text + " " * max(0, width - _columns(text))


_NO_LINE_START = "，。、：；！？）」』”"  # Chinese punctuation never begins a line
_NO_LINE_END = "（「『“"  # nor does an opening bracket end one

_TOKEN = re.compile(rf"[{WIDE}]|[^\s{WIDE}]+\s*|\s+")  # one wide character, or a word


def wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` columns: at spaces, as ``textwrap`` does, and
    between any two Chinese characters (which have no spaces between them)."""
    if _columns(text) == len(text):
        return textwrap.wrap(text, width, break_long_words=False) or [""]
    lines, line = [], ""
    for token in _TOKEN.findall(text):
        fits = _columns(line + token.rstrip()) <= width or token[0] in _NO_LINE_START
        if line.strip() and not fits:
            carried = line[-1] if line[-1] in _NO_LINE_END else ""  # "（" goes with its words
            lines.append(line[: len(line) - len(carried)].rstrip())
            line, token = carried, token.lstrip()
        line += token
    return [*lines, line.rstrip()] if line.strip() else lines or [""]


def task_line(t: TaskVerdict, label: str | None = None, mark: str | None = None) -> str:
    """A task's line: mark, id, title, points and (unless it passed) its status, or
    ``label`` and ``mark`` where given."""
    status = ("" if t.passed else t.label) if label is None else label
    left = f"  {mark or _mark(t.status):>2} {t.task.id:<5}{t.task.text('title')}"
    right = f"{_points(t.points):>5} / {t.task.points:<3} {status}"
    return (_ljust(left, WIDTH - 32) + right).rstrip()


def _indent(label: str, text: str) -> list[str]:
    lines = wrap(text, WIDTH - 16)
    out = []
    for i, line in enumerate(lines):
        out.append(f"      {_ljust(_tr(label) if i == 0 and label else '', 11)}{line}")
    return out


def task_details(t: TaskVerdict) -> list[str]:
    problem = t.first_problem
    if problem is None:
        return []
    title = _tr(
        "Task {id} — {title}: {label}", id=t.task.id, title=t.task.text("title"), label=t.label
    )
    lines = [f"  {_mark(t.status)} {title}"]
    if t.status == Status.NOT_STARTED:
        lines += _indent("start at:", _tr("{section} of the notebook", section=t.task.section))
        return lines
    if t.status == Status.STARTED:
        done = [c.check.shown() for c in t.checks if c.passed]
        lines += _indent("passing:", _names(done))
        # the functions met as stubs, with their files (a written one is never listed),
        # else the checks
        to_write = t.unwritten_by_file or [_names(c.check.shown() for c in t.not_started)]
        lines += _indent("to write:", "; ".join(to_write))
        lines += _indent("continue:", _tr("{section} of the notebook", section=t.task.section))
        return lines
    lines += _indent(
        "check:",
        f"{problem.check.shown()}"
        + (
            _tr(" (case {number} of {count})", number=problem.case_number, count=problem.cases)
            if problem.case
            else ""
        ),
    )
    if problem.case is not None:
        lines += _indent("case:", problem.case.shown())
    for i, line in enumerate(problem.message.splitlines() or [""]):
        lines += _indent("problem:" if i == 0 else "", line)
    for i, line in enumerate(problem.where.splitlines()):
        lines += _indent("raised at:" if i == 0 else "", line)
    if problem.printed:
        shown = problem.printed.splitlines()[-8:]
        for i, line in enumerate(shown):
            lines.append(f"      {'printed:' if i == 0 else '':<11}{line[: WIDTH - 17]}")
    others = [c.check.shown() for c in t.checks if not c.passed and c is not problem]
    if others:
        lines += _indent(
            "also:",
            _tr(
                "other checks of this task that fail, perhaps for the same reason: {names}",
                names=_names(others),
            ),
        )
    if problem.status == Status.BLOCKED:
        lines += _indent("blocked:", _blocked_text(t, problem))
        return lines
    if problem.standins:
        tasks = _tasks_text(problem.standins)
        verb = "fails" if len(problem.standins) == 1 else "fail"
        if language() == "zh":
            text = _yours_zh(tasks, t.task.id, problem.leans_on_bugs)
        elif problem.leans_on_bugs:
            text = (
                f"this check passes with your {tasks}, which {verb}; with the autograder's "
                f"own version of {tasks} in place it fails, as shown: task {t.task.id} leans "
                f"on that bug (two bugs cancel out), so fix both"
            )
        else:
            text = (
                f"{tasks} {verb} too, so this check ran again with the autograder's own "
                f"version of {tasks} in place; it still fails, as shown: the bug is in task "
                f"{t.task.id}"
            )
        lines += _indent("yours:", text)
    if t.task.see:
        lines += _indent("see it:", t.task.text("see"))
    lines += _indent(
        "more:",
        _tr(
            '`make hint TASK={id}` (or hint("{id}") in the notebook) gives a hint, one more each '
            "time you ask; {section} of the notebook teaches it",
            id=t.task.id,
            section=t.task.section,
        ),
    )
    return lines


def _names(names: Iterable[str]) -> str:
    """Checks' names as a list: "a, b" (in Chinese "a；b": a name may hold commas)."""
    return ("；" if language() == "zh" else ", ").join(names)


def _yours_zh(tasks: str, task_id: str, leans_on_bugs: bool) -> str:
    """The "yours:" line in Chinese: what the rerun with the autograder's own tasks showed."""
    if leans_on_bugs:
        return (
            f"这项检查用你的{tasks} 时能通过，而{tasks} 本身没有通过；换成评分器自带的{tasks} 后"
            f"它失败了（见上）：任务 {task_id} 依赖那个 bug（两个 bug 相互抵消），两个都要修"
        )
    return (
        f"{tasks} 也没有通过，所以这项检查换上评分器自带的{tasks} 又运行了一次；它仍然失败"
        f"（见上）：bug 在任务 {task_id} 里"
    )


def _tasks_text(ids: Sequence[str]) -> str:
    """ "task 2.5", "tasks 3.1 and 3.2", "tasks 1.2, 1.6 and 1.7" (in Chinese: 任务 2.5, …)."""
    if language() == "zh":
        return "任务 " + (ids[0] if len(ids) == 1 else f"{'、'.join(ids[:-1])} 和 {ids[-1]}")
    if len(ids) == 1:
        return f"task {ids[0]}"
    return f"tasks {', '.join(ids[:-1])} and {ids[-1]}"


def _blocked_text(t: TaskVerdict, problem: CheckVerdict) -> str:
    """Why a check is blocked, and what to fix: the other task, in words a student can act
    on (a task of another chapter whose own checks may pass: the case above is the one)."""
    other = problem.blocked_by
    if chapter_of(other) != chapter_of(t.task.id):
        elsewhere = (
            "the problem above is in chapter-{chapter} code this check runs: fix task {other} "
            "for the case above (`make chapter-{chapter}` may still pass: its own cases may not "
            "include this one), then check task {id} again"
        )
        return _tr(elsewhere, chapter=chapter_of(other), other=other, id=t.task.id)
    if problem.blame == Blame.STUB:
        stub = "this check ran task {other}'s code and met its stub: write task {other} first"
        return _tr(stub, other=other)
    if problem.blame != Blame.STANDIN:
        return _tr(
            "this check requires task {other}, which fails; fix task {other} first", other=other
        )
    return _standin_text(problem.standins, problem.causes)


def _standin_text(standins: Sequence[str], causes: Sequence[str]) -> str:
    """What a rerun with the autograder's own versions of the failing ``standins`` proved:
    the check passes with them; with the student's own code of each of ``causes`` back (every
    other stand-in still in place) it fails again."""
    mine = _tasks_text(standins)
    if language() == "zh":
        return _standin_zh(mine, len(standins), causes)
    if len(standins) == 1:
        return (
            f"{mine} fails too; with the autograder's own version of {mine} in place of yours "
            f"this check passes: fix {mine} first"
        )
    proved = f"{mine} fail too; with the autograder's own versions of them this check passes"
    if not causes:
        return (
            f"{proved}, and with any one of yours back it still passes: the tasks fail it "
            f"only together; fix {mine} first"
        )
    back = " or ".join(f"your task {c}" for c in causes)
    return f"{proved}, and with {back} back in it fails again: fix task {causes[0]} first"


def _standin_zh(mine: str, count: int, causes: Sequence[str]) -> str:
    """``_standin_text`` in Chinese."""
    if count == 1:
        return f"{mine} 也没有通过；换成评分器自带的{mine} 后，这项检查通过了：先修好{mine}"
    proved = f"{mine} 也没有通过；换成评分器自带的版本后，这项检查通过了"
    if not causes:
        return f"{proved}，换回你的任何一个也仍然通过：这几个任务同时出错才让它失败；先修好{mine}"
    back = " 或 ".join(f"你的任务 {c}" for c in causes)
    return f"{proved}；换回{back} 后它又失败了：先修好任务 {causes[0]}"


def import_details(t: TaskVerdict, chapter: Chapter) -> list[str]:
    """One block for a chapter whose code does not import: no check could run."""
    problem = t.first_problem
    lines = [
        f"  {FAIL_MARK} "
        + _tr(
            "Your chapter {number} code does not import, so no check could run",
            number=chapter.number,
        )
    ]
    lines += _indent("problem:", problem.message)
    if problem.where:
        lines += _indent("raised at:", problem.where)
    lines += _indent(
        "see more:",
        _tr(
            'python -c "import chapters.{package}" shows the whole traceback',
            package=chapter.package,
        ),
    )
    return lines


def chapter_report(result: ChapterResult, version: str | None = None) -> str:
    """One chapter in detail. With ``version`` (the course version the student's tree
    started at), a task newer than it is "new in vX" and the score is the one at ``version``
    (``_versioned_report``); without anything newer, the report is the same as without."""
    if version is not None and newer_than(result, version):
        return _versioned_report(result, version)
    ch = result.chapter
    done = sum(t.passed for t in result.tasks)
    head = _tr("Chapter {number} — {title}", number=ch.number, title=_tr(ch.title))
    lines = [_ljust(head, WIDTH - 32) + _tr("checked: {source}", source=result.source), ""]
    lines += [task_line(t) for t in result.tasks]
    summary = _tr(
        "{done} of {count} tasks passed · {points} / {max} points",
        done=done,
        count=len(result.tasks),
        points=_points(result.points),
        max=result.max_points,
    )
    lines += ["", f"  {summary}"]
    broken = [t for t in result.tasks if t.status == Status.IMPORT_ERROR]
    if broken:
        lines += ["", *import_details(broken[0], result.chapter)]
    failing = [
        t
        for t in result.tasks
        if not t.passed and t.status not in (Status.NOT_STARTED, Status.IMPORT_ERROR)
    ]
    for t in failing:
        lines += ["", *task_details(t)]
    waiting = [t for t in result.tasks if t.status in (Status.STARTED, Status.NOT_STARTED)]
    if waiting:
        lines += _next_up(waiting)
    elif result.passed and len(result.tasks) < len(ch.tasks):
        ids = ", ".join(t.task.id for t in result.tasks)
        passes = "Task {ids} passes. `make chapter-{number}` checks the whole chapter."
        lines += ["", "  " + _tr(passes, ids=ids, number=ch.number)]
    elif result.passed:
        lines += ["", "  " + _tr("Chapter {number} is complete. Well done!", number=ch.number)]
    return _plain("\n".join(lines))


# -- a tree behind the course: new tasks and newer checks ----------------------------------


def newer_than(result: ChapterResult, version: str) -> bool:
    """Whether a task or a check of ``result`` is newer than course version ``version``."""
    return any(
        versions.newer(t.task.since, version)
        or any(versions.newer(c.check.since, version) for c in t.checks)
        for t in result.tasks
    )


def _next_up(waiting: Sequence[TaskVerdict]) -> list[str]:
    """The report's closing lines while tasks are left: which are not started, and the next."""
    first = waiting[0].task
    not_started = [t.task.id for t in waiting if t.status == Status.NOT_STARTED]
    lines = ["", "  " + _tr("Not started: {ids}.", ids=", ".join(not_started))]
    lines = lines if not_started else [""]
    following = "Next up: task {id} — {title}, {section} of the notebook."
    title = first.text("title")
    return [*lines, "  " + _tr(following, id=first.id, title=title, section=first.section)]


def at_version(t: TaskVerdict, version: str) -> TaskVerdict:
    """``t`` judged by the checks course version ``version`` had (a check tightened since
    is left out: its old form is gone); a task left with no check keeps them all."""
    kept = [c for c in t.checks if versions.at_most(c.check.since, version)]
    return TaskVerdict(t.task, kept) if kept else t


def _new_label(t: TaskVerdict) -> str:
    new = _tr("new in v{version}", version=versions.normal(t.task.since))
    return new if t.status == Status.NOT_STARTED else f"{new}: {t.label}"


def _newest(checks: Sequence[CheckVerdict]) -> str:
    return max((c.check.since for c in checks), key=versions.parse)


def _versioned_report(result: ChapterResult, version: str) -> str:
    """The chapter of a tree that started at ``version``, older than some of the chapter's
    tasks or checks: its own tasks scored by the checks of ``version`` (its score there
    stays what it was), each newer task "new in vX", never "not started", and a newer
    check that fails said to be newer."""
    ch, v = result.chapter, versions.normal(version)
    new = [t for t in result.tasks if versions.newer(t.task.since, version)]
    fresh = {t.task.id for t in new}
    own = [(t, at_version(t, version)) for t in result.tasks if t.task.id not in fresh]
    head = _tr("Chapter {number} — {title}", number=ch.number, title=_tr(ch.title))
    lines = [_ljust(head, WIDTH - 32) + _tr("checked: {source}", source=result.source), ""]
    for t in result.tasks:
        if t.task.id in fresh:
            lines.append(task_line(t, None if t.passed else _new_label(t)))
            continue
        mine = at_version(t, version)
        if mine.passed and not t.passed:
            failing = [c for c in t.checks if not c.passed]
            newest = versions.normal(_newest(failing))
            text = _tr("passes v{v}, fails a v{newest} check", v=v, newest=newest)
            lines.append(task_line(mine, text, _mark(t.status)))
        else:
            lines.append(task_line(mine))
    done = sum(m.passed for _, m in own)
    points = round(sum(m.points for _, m in own), 2)
    lines.append("")
    if own:
        mine = "{done} of {count} tasks of your version (v{v}) passed · {points} / {max} points"
        total = sum(m.task.points for _, m in own)
        lines.append(
            "  " + _tr(mine, done=done, count=len(own), v=v, points=_points(points), max=total)
        )
    if new:
        new_points = round(sum(t.points for t in new), 2)
        since = ", ".join(
            _tr("{id} in v{version}", id=t.task.id, version=versions.normal(t.task.since))
            for t in new
        )
        lines.append(
            "  "
            + _tr(
                "New since v{v}: {done} of {count} tasks passed · {points} / {max} points "
                "({since})",
                v=v,
                done=sum(t.passed for t in new),
                count=len(new),
                points=_points(new_points),
                max=sum(t.task.points for t in new),
                since=since,
            )
        )
    broken = [t for t in result.tasks if t.status == Status.IMPORT_ERROR]
    if broken:
        lines += ["", *import_details(broken[0], result.chapter)]
    for t, mine in own:
        if not mine.passed and mine.status not in (Status.NOT_STARTED, Status.IMPORT_ERROR):
            lines += ["", *task_details(mine)]
        elif mine.passed and not t.passed:
            details = task_details(t)
            newest = versions.normal(_newest([c for c in t.checks if not c.passed]))
            note = _indent(
                "newer:",
                _tr(
                    "this check is of v{newest}, newer than your v{v}: your points at v{v} "
                    "stay, and an instructor grading v{newest} counts it",
                    newest=newest,
                    v=v,
                ),
            )
            lines += ["", *details[:1], *note, *details[1:]]
    for t in new:
        if not t.passed and t.status not in (Status.NOT_STARTED, Status.IMPORT_ERROR):
            lines += ["", *task_details(t)]
    waiting = [m for _, m in own if m.status in (Status.STARTED, Status.NOT_STARTED)]
    untouched = [t for t in new if t.status == Status.NOT_STARTED]
    if waiting:
        lines += _next_up(waiting)
    elif result.passed and len(result.tasks) < len(ch.tasks):
        ids = ", ".join(t.task.id for t in result.tasks)
        whole = "Task {ids} passes. `make chapter-{number}` checks the whole chapter."
        lines += ["", "  " + _tr(whole, ids=ids, number=ch.number)]
    elif own and all(m.passed for _, m in own) and len(result.tasks) == len(ch.tasks):
        complete = "Chapter {number} is complete at your version, v{v}."
        lines += ["", "  " + _tr(complete, number=ch.number, v=v)]
        if untouched:
            first = untouched[0].task
            new_task = "New in v{version}: task {id} — {title}, {section} of the notebook."
            fields = dict(id=first.id, title=first.text("title"), section=first.section)
            lines.append("  " + _tr(new_task, version=versions.normal(first.since), **fields))
    elif result.passed:
        lines += ["", "  " + _tr("Chapter {number} is complete. Well done!", number=ch.number)]
    return _plain("\n".join(lines))


def _bar(fraction: float, width: int = 20) -> str:
    full = round(fraction * width)
    return ("█" * full + "░" * (width - full)) if FANCY else ("#" * full + "." * (width - full))


def progress_report(
    results: Sequence[ChapterResult], source: str, version: str | None = None
) -> str:
    """The course map with a score per chapter; with ``version`` (the version the tree
    started at), a chapter with newer tasks or checks is scored at ``version`` and its new
    tasks are counted apart."""
    by_number = {r.chapter.number: r for r in results}
    lines = [_tr("Sparrow — the course map (checking {source})", source=source), ""]
    next_up, new_up = None, None
    column = max(48, *(_columns(f"  {ch.number}  {_tr(ch.title)}") + 2 for ch in CHAPTERS))
    for ch in CHAPTERS:
        r = by_number.get(ch.number)
        title = f"  {ch.number}  {_tr(ch.title)}"
        if r is None:
            lines.append(_ljust(title, column) + _tr("not checked" if ch.ready else "coming"))
            continue
        tasks, new = r.tasks, []
        if version is not None and newer_than(r, version):
            new = [t for t in r.tasks if versions.newer(t.task.since, version)]
            fresh = {t.task.id for t in new}
            tasks = [at_version(t, version) for t in r.tasks if t.task.id not in fresh]
        done = sum(t.passed for t in tasks)
        points = round(sum(t.points for t in tasks), 2)
        score = "{done}/{count} tasks · {points}/{max} points"
        total = sum(t.task.points for t in tasks)
        line = _ljust(title, column) + f"{_bar(done / max(1, len(tasks)))}  "
        line += _tr(score, done=done, count=len(tasks), points=_points(points), max=total)
        if new:
            left = [t for t in new if not t.passed]
            news = dict(done=len(new) - len(left), count=len(new))
            line += _tr(" · new: {done}/{count} done", **news) if left else _tr(" · new: done")
        lines.append(line)
        if next_up is None and not all(t.passed for t in tasks):
            next_up = next(t.task for t in tasks if not t.passed)
        if new_up is None:
            new_up = next((t.task for t in new if not t.passed), None)
    lines.append("")
    if next_up:
        following = (
            "Next: task {id} — {title}, {section} of the notebook; `make chapter-{number}` "
            "shows the details."
        )
        fields = dict(id=next_up.id, title=next_up.text("title"), section=next_up.section)
        lines.append("  " + _tr(following, number=next_up.id.split(".")[0], **fields))
    elif new_up:
        complete = "Every chapter checked is complete at your version, v{v}."
        new_task = (
            "New in v{version}: task {id} — {title}, {section} of the notebook; "
            "`make chapter-{number}` shows the details."
        )
        fields = dict(id=new_up.id, title=new_up.text("title"), section=new_up.section)
        lines += [
            "  " + _tr(complete, v=versions.normal(version)),
            "  "
            + _tr(
                new_task,
                version=versions.normal(new_up.since),
                number=new_up.id.split(".")[0],
                **fields,
            ),
        ]
    else:
        lines.append("  " + _tr("Every chapter written so far is complete."))
    return _plain("\n".join(lines))

"""Blame the task that has the bug: a check that fails while a task it needs fails too runs
again with the autograder's own stand-ins for those tasks (``harness/standin.py``).

Passing then, the other task is the cause: the check is "blocked by" it. Failing still, the
check's own task is: the report shows that failure, found with the stand-ins in place. Only
a failing check is rerun (student mode stays fast), and a rerun never earns points: a check
that failed once is not passed by a second run."""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass, replace

from .course import Chapter
from .harness.api import Case, Check
from .runner import PlannedCheck
from .status import Status
from .verdict import SUSPECT, CheckVerdict, TaskVerdict


def standins_module(chapter: Chapter) -> str | None:
    """``autograder.checks.<chapter>.standins``, where the chapter has one."""
    name = f"autograder.checks.{chapter.package}.standins"
    try:
        return name if importlib.util.find_spec(name) else None
    except ModuleNotFoundError:
        return None


def _standins(chapter: Chapter) -> set[str]:
    """The tasks of ``chapter`` the autograder has a stand-in for."""
    module = standins_module(chapter)
    return set(importlib.import_module(module).STANDINS) if module else set()


def suspects(verdict: CheckVerdict, failing: set[str]) -> list[str]:
    """The other tasks a failing check may be failing because of: the failing tasks it
    ``requires`` (in that order), and the task whose stub it met."""
    if verdict.status not in (*SUSPECT, Status.BLOCKED):
        return []
    tasks = [t for t in verdict.check.requires if t in failing and t != verdict.check.task]
    if verdict.status == Status.BLOCKED and verdict.blocked_by not in tasks:
        tasks.append(verdict.blocked_by)
    return tasks


@dataclass
class Rerun:
    """One failing check, planned again with stand-ins for ``tasks``."""

    plan: PlannedCheck
    original: CheckVerdict
    cases: list[Case]
    tasks: tuple[str, ...]
    hidden: bool


def plan_reruns(
    chapter: Chapter,
    tasks: Sequence[TaskVerdict],
    planned: Sequence[tuple[PlannedCheck, Check, list[Case]]],
    verdicts: dict[int, CheckVerdict],
    hidden: set[int],
) -> list[Rerun]:
    """The reruns a chapter's verdicts call for: each check that fails while a task it needs
    fails, when every such task of the chapter has a stand-in (else it keeps today's rule:
    blocked by the first failing required task)."""
    module = standins_module(chapter)
    covered = _standins(chapter)
    failing = {t.task.id for t in tasks if not t.passed}
    unwritten = {t.task.id for t in tasks if t.status == Status.NOT_STARTED}
    reruns = []
    for plan, check, cases in planned:
        verdict = verdicts[id(check)]
        if check.task in unwritten:  # its own stub stops a rerun too: keep student mode fast
            continue
        wanted = suspects(verdict, failing)
        if not wanted or not module or not set(wanted) <= covered:
            continue
        rows = [{"program": plan.program, "tasks": wanted, "inputs": dict(c.inputs)} for c in cases]
        rerun = PlannedCheck(f"{plan.id} (stand-ins {', '.join(wanted)})", f"{module}:rerun", rows)
        reruns.append(Rerun(rerun, verdict, cases, tuple(wanted), id(check) in hidden))
    return reruns


def programs_of_reruns(reruns: Sequence[Rerun]) -> list[PlannedCheck]:
    """Checks with no case for the original programs of ``reruns``: the child imports (and
    watches) those modules before the code under test, as in the first run."""
    programs = sorted({row["program"] for r in reruns for row in r.plan.cases})
    return [PlannedCheck(f"import {p}", p, []) for p in programs]


def settle(rerun: Rerun, again: CheckVerdict) -> CheckVerdict:
    """The verdict to report, from the original one and the rerun's (``again``): blocked
    (by the first stood-in task) when the rerun passes, else the rerun's own failure. Either
    way ``standins`` records the tasks the rerun replaced."""
    original = rerun.original
    if again.passed:  # the stand-ins made it pass: the first of their tasks is the cause
        blocked_by = rerun.tasks[0]
        return replace(original, status=Status.BLOCKED, blocked_by=blocked_by, standins=rerun.tasks)
    if again.status == Status.BLOCKED and again.blocked_by in rerun.tasks:
        return again  # that task's stub message, still: told as before, blocked by it
    return replace(again, standins=rerun.tasks)

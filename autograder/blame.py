"""Blame the task that has the bug: a check that fails while a task it needs fails too runs
again with the autograder's own stand-ins for those tasks (``harness/standin.py``).

Passing then, the other task is the cause: the check is "blocked by" it. Failing still, the
check's own task is: the report shows that failure, found with the stand-ins in place. With
two or more stand-ins, the same child also runs the check once per stood-in task with that
task's stand-in left out: a task whose own code makes the check fail again is a cause (the
first such one is blamed); where no single one does, the tasks are the cause together. Only
a failing check is rerun (student mode stays fast), and a rerun never earns points: a check
that failed once is not passed by a second run."""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from types import ModuleType

from .course import Chapter
from .harness.api import Case, Check
from .runner import PlannedCheck
from .status import Status
from .verdict import SUSPECT, Blame, CheckVerdict, TaskVerdict

RERUN = "autograder.harness.standin:rerun"  # the program every rerun runs


def standins_module(chapter: Chapter) -> ModuleType | None:
    """``autograder.checks.<chapter>.standins``, imported, where the chapter has one (its
    ``STANDINS``: the tasks it has a stand-in for). ``checking`` imports it under its import
    lock, with the check modules."""
    name = f"autograder.checks.{chapter.package}.standins"
    try:
        found = importlib.util.find_spec(name)
    except ModuleNotFoundError:
        return None
    return importlib.import_module(name) if found else None


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
    """One failing check, planned again with stand-ins for ``tasks`` (``plan``) and, with two
    or more of them, once per task with every stand-in but that task's (``without[task]``)."""

    plan: PlannedCheck
    original: CheckVerdict
    cases: list[Case]
    tasks: tuple[str, ...]
    without: dict[str, PlannedCheck] = field(default_factory=dict)

    @property
    def plans(self) -> list[PlannedCheck]:
        return [self.plan, *self.without.values()]


def _plan(
    plan: PlannedCheck, module: str, cases: Sequence[Case], tasks: Sequence[str]
) -> PlannedCheck:
    """``plan``'s program on ``cases`` through the harness's ``rerun``, with the stand-ins
    for ``tasks`` from the chapter's stand-ins ``module``."""
    row = {"standins": module, "program": plan.program, "tasks": list(tasks)}
    rows = [{**row, "inputs": dict(c.inputs)} for c in cases]
    named = ", ".join(tasks) or "none"
    return PlannedCheck(f"{plan.id} (stand-ins {named})", RERUN, rows)


def plan_reruns(
    tasks: Sequence[TaskVerdict],
    planned: Sequence[tuple[PlannedCheck, Check, list[Case]]],
    verdicts: dict[int, CheckVerdict],
    standins: ModuleType | None,
) -> list[Rerun]:
    """The reruns a chapter's verdicts call for: each check that fails while a task it needs
    fails, when every such task of the chapter has a stand-in (else it keeps today's rule:
    blocked by the first failing required task); and each check that passes while a task it
    needs is written and wrong, which may pass only because two bugs cancel out (a
    ``topological_order`` returned root first, walked forwards by ``backward``). ``standins``:
    the chapter's ``standins_module``."""
    if standins is None:  # no stand-in: no rerun
        return []
    module, covered = standins.__name__, set(standins.STANDINS)
    failing = {t.task.id for t in tasks if not t.passed}
    wrong = {t.task.id for t in tasks if t.status in SUSPECT}  # written, and wrong
    unwritten = {t.task.id for t in tasks if t.status == Status.NOT_STARTED}
    reruns = []
    for plan, check, cases in planned:
        verdict = verdicts[id(check)]
        if check.task in unwritten:  # its own stub stops a rerun too: keep student mode fast
            continue
        if verdict.passed:  # passing on a wrong required task: not leaning on its bug?
            wanted = [t for t in check.requires if t in wrong and t != check.task]
            without = {}
        else:
            wanted = suspects(verdict, failing)
            others = wanted if len(wanted) > 1 else []  # which is the cause: each one left out
            without = {t: _plan(plan, module, cases, [w for w in wanted if w != t]) for t in others}
        if not wanted or not set(wanted) <= covered:
            continue
        all_in = _plan(plan, module, cases, wanted)
        reruns.append(Rerun(all_in, verdict, cases, tuple(wanted), without))
    return reruns


def programs_of_reruns(reruns: Sequence[Rerun]) -> list[PlannedCheck]:
    """Checks with no case for the original programs of ``reruns`` and their stand-ins: the
    child imports (and watches) those modules before the code under test, as in the first
    run."""
    rows = [row for r in reruns for p in r.plans for row in p.cases]
    programs = sorted(
        {row["program"] for row in rows} | {f"{r['standins']}:STANDINS" for r in rows}
    )
    return [PlannedCheck(f"import {p}", p, []) for p in programs]


def causes(rerun: Rerun, without: dict[str, CheckVerdict]) -> tuple[str, ...]:
    """The stood-in tasks that cause a failure the stand-ins of ``rerun.tasks`` cure: each
    task whose own code, every other stand-in in place, makes the check fail again
    (``without[task]`` did not pass). With one stand-in, that one; empty where no single
    task's code does: only all of them together are the cause."""
    if len(rerun.tasks) == 1:
        return rerun.tasks
    return tuple(t for t in rerun.tasks if t in without and not without[t].passed)


def settle(rerun: Rerun, again: CheckVerdict, without: dict[str, CheckVerdict]) -> CheckVerdict:
    """The verdict to report, from the original one and the reruns' (``again`` with every
    stand-in, ``without[task]`` with every one but that task's): blocked when ``again``
    passes (by the first of ``causes``, or of the stood-in tasks where only all of them
    together are the cause), else the rerun's own failure. Either
    way ``standins`` records the tasks the rerun replaced."""
    original = rerun.original
    if original.passed:  # it passed with the student's wrong tasks: does it without them?
        if again.passed:
            return original
        return replace(again, standins=rerun.tasks, leans_on_bugs=True)
    if again.passed:  # the stand-ins made it pass: a stood-in task is the cause
        found = causes(rerun, without)
        return replace(
            original,
            status=Status.BLOCKED,
            blocked_by=(found or rerun.tasks)[0],
            standins=rerun.tasks,
            causes=found,
            blame=Blame.STANDIN,
        )
    if again.status == Status.BLOCKED and again.blocked_by in rerun.tasks:
        return again  # that task's stub message, still: told as before, blocked by it
    return replace(again, standins=rerun.tasks)

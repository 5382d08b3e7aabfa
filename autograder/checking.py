"""Check one chapter: build the composite tree, plan the cases, run them, judge the data,
and rerun with stand-ins a failing check whose required task fails too (``blame.py``).

Both modes use this. Student mode (``student.py``) checks the learner's own tree; instructor
mode (``grading.py``) checks each submission under a confinement. The parent computes cases
and verdicts; the child only runs programs.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import tempfile
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import blame, versions
from .course import Chapter
from .harness.api import Case, Check
from .runner import CheckRun, Limits, PlannedCheck, build_tree, run_checks
from .sandbox import NONE, Confinement
from .verdict import CheckVerdict, TaskVerdict, apply_requirements, hide, judge

PUBLIC_SEED = 0
_IMPORTING = threading.Lock()


def public_checks(chapter: Chapter) -> list[str]:
    """The module of a chapter's public checks, if it is written."""
    module = f"autograder.checks.{chapter.package}"
    return [module] if importlib.util.find_spec(module) else []


def program_reference(check: Check) -> tuple[str, Path]:
    """``module:function`` of a check's program, and the file of that module: the only
    file of the check that the child receives."""
    fn = check.program
    module = sys.modules.get(fn.__module__)
    if module is None or getattr(module, fn.__name__, None) is not fn:
        raise ValueError(
            f"check {check.task} {check.name!r}: its program must be a top-level function of a "
            f"check-programs module (got {fn.__qualname__} in {fn.__module__})"
        )
    return f"{fn.__module__}:{fn.__name__}", Path(module.__file__)


@dataclass
class ChapterResult:
    chapter: Chapter
    tasks: list[TaskVerdict]
    seed: int
    limits: Limits
    source: str  # what was checked, in words
    confinement: Confinement = NONE
    device: str | None = None  # the device the programs' tensors were on (None: the CPU)
    seen: list[str] = field(default_factory=list)  # what an instructor should review

    @property
    def points(self) -> float:
        return round(sum(t.points for t in self.tasks), 2)

    @property
    def max_points(self) -> int:
        return sum(t.task.points for t in self.tasks)

    @property
    def passed(self) -> bool:
        return all(t.passed for t in self.tasks)


def check_chapter(
    chapter: Chapter,
    packages: Mapping[str, Path],
    *,
    check_modules: Sequence[str] | None = None,
    task_ids: Sequence[str] | None = None,
    seed: int = PUBLIC_SEED,
    limits: Limits = Limits(),
    source: str = "",
    hidden_modules: Sequence[str] = (),
    confinement: Confinement = NONE,
    device: str | None = None,
    version: str | None = None,
) -> ChapterResult:
    """Run ``chapter``'s checks against a tree made of ``packages`` (package name → folder
    holding that package's ``.py`` files). With ``task_ids``, only those tasks are reported,
    but the tasks their checks require run too, so "blocked by" is still told apart. The
    checks of ``hidden_modules`` run too; their verdicts carry only the parent's text.
    With ``device`` ("sim", "cuda"), the programs' tensors are made there (chapter 7's
    ``set_default_device``, so ``packages`` must hold a working ``ch07_device``); a device
    that cannot be set up raises ``DeviceSetupError``, before any verdict. With ``version``
    (a course version, ``versions.py``), only the tasks and checks it had count."""
    modules = public_checks(chapter) if check_modules is None else check_modules
    with _IMPORTING:  # grading threads may import the same check module at once
        checks = [c for m in modules for c in importlib.import_module(m).CHECKS]
        hidden = [c for m in hidden_modules for c in importlib.import_module(m).CHECKS]
        # the stand-ins reruns use, or None; none on a device: they compute in NumPy, on the
        # host (a failing check there is blocked by the failing task it requires, as in a
        # chapter without stand-ins; the CPU run says whose bug it is)
        standins = None if device else blame.standins_module(chapter)
    hidden_ids = {id(c) for c in hidden}
    checks += hidden
    if version is not None:  # the course as it was at ``version``
        checks = [c for c in checks if versions.at_most(c.since, version)]
    wanted = [
        t.id
        for t in chapter.tasks
        if (task_ids is None or t.id in task_ids)
        and (version is None or versions.at_most(t.since, version))
    ]
    needed = set(wanted)
    for check in checks:
        if check.task in wanted:
            needed.update(check.requires)
    planned: list[tuple[PlannedCheck, Check, list[Case]]] = []
    programs: dict[str, Path] = {}
    for number, check in enumerate(checks):
        if check.task in needed:
            reference, path = program_reference(check)
            programs[reference.split(":")[0]] = path
            cases = check.make_cases(seed)
            plan = PlannedCheck(
                f"{number}:{check.task}/{check.name}", reference, [c.inputs for c in cases]
            )
            planned.append((plan, check, cases))
    if standins:  # for reruns (``blame``): copied, imported only by a rerun's child
        programs[standins.__name__] = Path(standins.__file__)
    target = f"chapters.{chapter.package}"
    verdicts = {t.id: TaskVerdict(t) for t in chapter.tasks if t.id in needed}
    with tempfile.TemporaryDirectory(prefix="sparrow-check-") as tmp:
        Path(tmp).chmod(0o711)  # a child that runs as another user passes, never lists
        tree = Path(tmp) / "tree"
        build_tree(tree, packages, programs)
        confinement.prepare(tree)
        runs = run_checks(tree, target, [p for p, _, _ in planned], limits, confinement, device)
        _device_set_up(device, runs.values())
        judged: dict[int, CheckVerdict] = {}
        for plan, check, cases in planned:
            secret = id(check) in hidden_ids
            judged[id(check)] = judge(check, cases, runs[plan.id], hidden=secret)
            verdicts[check.task].checks.append(judged[id(check)])
        reruns = blame.plan_reruns(list(verdicts.values()), planned, judged, standins)
        again: dict[str, CheckRun] | None = None
        if reruns:
            plans = blame.programs_of_reruns(reruns) + [p for r in reruns for p in r.plans]
            again = run_checks(tree, target, plans, limits, confinement, device)
            _device_set_up(device, again.values())
            for r in reruns:
                check = r.original.check
                without = {
                    task: judge(check, r.cases, again[plan.id]) for task, plan in r.without.items()
                }
                settled = blame.settle(r, judge(check, r.cases, again[r.plan.id]), without)
                # a hidden check's rerun keeps the parent's text only, for its status
                settled = hide(settled) if r.original.hidden else settled
                own = verdicts[r.original.check.task].checks
                own[next(i for i, c in enumerate(own) if c is r.original)] = settled
    apply_requirements(list(verdicts.values()))
    tasks = [verdicts[task_id] for task_id in wanted]
    seen = list(dict.fromkeys(w for r in [*runs.values(), *(again or {}).values()] for w in r.seen))
    return ChapterResult(chapter, tasks, seed, limits, source, confinement, device, seen)


class DeviceSetupError(RuntimeError):
    """Checks on a device could not start: the device layer (chapter 7) does not work in the
    tree, or the device is not there. The message is one sentence."""


def _device_set_up(device: str | None, runs: Iterable[CheckRun]) -> None:
    """Raise ``DeviceSetupError`` when a child could not put tensors on ``device``."""
    error = next((r.error for r in runs if r.error and r.error.get("device")), None)
    if device is None or error is None:
        return
    if error.get("not_started"):
        raise DeviceSetupError(
            f"checking on the device {device!r} needs chapter 7's device layer (tasks "
            f"7.2–7.5), and task {error['not_started']} is not done yet: check chapter 7 "
            "first (`make chapter-7`), or check without a device"
        )
    if error.get("type") == "ModuleNotFoundError" and "ch07_device" in error.get("message", ""):
        raise DeviceSetupError(
            f"checking on the device {device!r} needs chapter 7 (ch07_device), and the tree "
            "checked has none"
        )
    where = f" ({error['where']})" if error.get("where") else ""
    raise DeviceSetupError(
        f"checking on the device {device!r} could not start: putting a tensor there raised "
        f"{error.get('type')}: {error.get('message')}{where}"
    )

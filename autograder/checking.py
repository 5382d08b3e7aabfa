"""Check one chapter: build the composite tree, plan the cases, run them, judge the data.

Both modes use this. Student mode (``student.py``) checks the learner's own tree; instructor
mode will check each submission in a sandbox. The parent computes cases and verdicts; the
child only runs programs.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from .course import Chapter
from .harness.api import Case, Check
from .runner import Limits, PlannedCheck, build_tree, run_checks, temporary_tree
from .verdict import TaskVerdict, apply_requirements, judge

AUTOGRADER = Path(__file__).resolve().parent
PUBLIC_SEED = 0


def public_checks(chapter: Chapter) -> dict[str, Path]:
    """The public check file of a chapter, by module name (empty if none is written)."""
    path = AUTOGRADER / "checks" / f"{chapter.package}.py"
    return {f"autograder.checks.{chapter.package}": path} if path.is_file() else {}


_LOADING = threading.Lock()


def load_checks(module: str, path: Path) -> ModuleType:
    """Import a check file under ``module`` in this (trusted) process, also from a folder
    outside the repository, so its ``from ..harness.api import …`` resolves here as it does
    in the child."""
    with _LOADING:
        return _load(module, path)


def _load(module: str, path: Path) -> ModuleType:
    if module in sys.modules:
        return sys.modules[module]
    try:
        found = importlib.import_module(module)
        if Path(found.__file__).resolve() == path.resolve():
            return found
    except ImportError:
        pass
    parent = module.rsplit(".", 1)[0]
    if parent not in sys.modules:
        package = ModuleType(parent)
        package.__path__ = [str(path.parent)]
        sys.modules[parent] = package
    spec = importlib.util.spec_from_file_location(module, path)
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[module] = loaded
    spec.loader.exec_module(loaded)
    return loaded


@dataclass
class ChapterResult:
    chapter: Chapter
    tasks: list[TaskVerdict]
    seed: int
    limits: Limits
    source: str  # what was checked, in words
    seconds: float = 0.0

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
    check_files: Mapping[str, Path] | None = None,
    task_ids: Sequence[str] | None = None,
    seed: int = PUBLIC_SEED,
    limits: Limits = Limits(),
    source: str = "",
) -> ChapterResult:
    """Run ``chapter``'s checks against a tree made of ``packages`` (package name → folder
    holding that package's ``.py`` files)."""
    started = time.monotonic()
    files = dict(public_checks(chapter) if check_files is None else check_files)
    tasks = [t for t in chapter.tasks if task_ids is None or t.id in task_ids]
    wanted = {t.id for t in tasks}
    planned: list[tuple[PlannedCheck, Check, list[Case]]] = []
    for module, path in files.items():
        for index, check in enumerate(load_checks(module, path).CHECKS):
            if check.task in wanted:
                cases = check.make_cases(seed)
                plan = PlannedCheck(f"{module}:{index}", module, index, [c.inputs for c in cases])
                planned.append((plan, check, cases))
    with temporary_tree() as tmp:
        tree = Path(tmp)
        build_tree(tree, packages, files)
        runs = run_checks(tree, f"chapters.{chapter.package}", [p for p, _, _ in planned], limits)
    verdicts = {t.id: TaskVerdict(t) for t in tasks}
    for plan, check, cases in planned:
        verdicts[check.task].checks.append(judge(check, cases, runs[plan.id]))
    result = list(verdicts.values())
    apply_requirements(result)
    return ChapterResult(chapter, result, seed, limits, source, time.monotonic() - started)

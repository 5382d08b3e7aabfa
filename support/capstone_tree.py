"""Which tree ``make capstone`` trains on: the student's own ``chapters/`` once they are complete.

The rule, in order:

1. ``SPARROW_IMPL`` set (``chapters`` or ``solutions``): that tree, as asked, unchecked.
2. ``chapters/`` when it is complete: every task of chapters 2–6 passes its public checks
   in student mode (what ``make progress`` runs: ``autograder.student.check``, a second or
   so per chapter), since the capstone needs the whole stack, Tensor to Adam. The tasks are
   those of the course version the tree started at: exercises a later version added do not
   hold a tree back, as its score is the one at its own version.
3. Otherwise the reference ``solutions/``, saying which tasks of ``chapters/`` are left.
4. Otherwise (a student release ships without ``solutions/``) nothing: a message naming
   what is left, and ``choose_tree`` returns None.

Whichever it is, one line starting ``tree:`` says which folder the framework came from.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
CHAPTERS_NEEDED = (2, 3, 4, 5, 6)
PACKAGE = "ch06_optim"  # the framework as it stands after chapter 6


def _default_check(chapter: Any, impl: str, repo: Path) -> Any:
    from autograder import student

    return student.check(chapter, impl=impl, repo=repo)


def unfinished(
    repo: Path = REPO,
    check: Callable[[Any, str, Path], Any] = _default_check,
    needs: Sequence[str] = (),
) -> dict[int, str]:
    """Chapter number → what is left of it in ``repo/chapters`` (the tasks whose public
    checks do not pass, or why the chapter could not be checked); empty when complete.
    ``needs``: tasks this run calls whatever version the tree started at (the schedule
    ``--scheduler warmup_cosine`` is task 6.12's)."""
    from autograder import student, versions
    from autograder.course import chapter

    try:  # a task newer than the version the tree started at does not hold it back
        started = student.tree_version("chapters", repo).started
    except Exception:  # no chapters/ at all: each chapter below says so
        started = versions.COURSE_VERSION

    def ours(task: Any) -> bool:
        return task.id in needs or versions.at_most(task.since, started)

    left: dict[int, str] = {}
    for number in CHAPTERS_NEEDED:
        ch = chapter(number)
        if not (repo / "chapters" / ch.package).is_dir():
            left[number] = f"no chapters/{ch.package} folder"
            continue
        try:
            result = check(ch, "chapters", repo)
        except Exception as exc:  # a broken tree must not stop the choice
            left[number] = f"could not be checked ({type(exc).__name__}: {exc})"
            continue
        mine = [t for t in result.tasks if ours(t.task)]
        failing = [t.task.id for t in mine if not t.passed]
        if failing:
            left[number] = f"tasks {_shorten(failing)} not passing ({len(failing)} of {len(mine)})"
    return left


def _shorten(ids: list[str], most: int = 6) -> str:
    return ", ".join(ids) if len(ids) <= most else ", ".join(ids[:most]) + ", …"


def _import(tree: str) -> ModuleType:
    """``<tree>.ch06_optim`` (``chapters.*`` is the reference under ``SPARROW_IMPL=solutions``,
    but only for a process that started with it set: hence ``solutions`` by its own name)."""
    return importlib.import_module(f"{tree}.{PACKAGE}")


def _where(module: ModuleType) -> str:
    folder = Path(module.__file__ or "").resolve().parent.parent
    try:
        return f"{folder.relative_to(REPO)}/"
    except ValueError:
        return f"{folder}/"


def choose_tree(
    environ: Mapping[str, str] = os.environ,
    repo: Path = REPO,
    out: Callable[[str], Any] = print,
    check: Callable[[Any, str, Path], Any] = _default_check,
    needs: Sequence[str] = (),
) -> ModuleType | None:
    """The framework module to train on (see the module's docstring), after printing the
    ``tree:`` line; None, after printing what is left, when there is none to use."""
    asked = environ.get("SPARROW_IMPL", "").strip()
    if asked:
        if asked not in ("chapters", "solutions"):
            out(f"error: SPARROW_IMPL must be 'chapters' or 'solutions', not {asked!r}")
            return None
        if not (repo / asked / PACKAGE).is_dir():
            out(
                f"error: SPARROW_IMPL={asked} asks for {asked}/{PACKAGE}, which is not in "
                f"{repo} (a student release ships without solutions/)"
            )
            return None
        sp = _import(asked)
        out(f"tree: {_where(sp)} (SPARROW_IMPL={asked})")
        return sp

    left = unfinished(repo, check, needs)
    if not left:
        sp = _import("chapters")
        out(f"tree: {_where(sp)} (your own code: chapters 2-6 pass their public checks)")
        return sp
    todo = "\n".join(f"  chapter {n}: {what}" for n, what in left.items())
    if (repo / "solutions" / PACKAGE).is_dir():
        sp = _import("solutions")
        out(
            f"tree: {_where(sp)} (the reference: your chapters/ are not complete yet)\n"
            f"{todo}\n"
            "  `make capstone` trains on your own chapters once every task of chapters 2-6 "
            "passes (`make progress`)."
        )
        return sp
    out(
        "tree: none. The capstone trains on your own chapters 2-6 once every task passes "
        f"its public checks, and these are left:\n{todo}\n"
        "  (`make progress` shows them all; SPARROW_IMPL=chapters runs it anyway.)"
    )
    return None

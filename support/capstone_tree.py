"""Which tree ``make capstone`` trains on: the student's own ``chapters/`` once they are complete.

The rule, in order:

1. ``SPARROW_IMPL`` set (``chapters`` or ``solutions``): that tree, as asked, unchecked.
2. ``chapters/`` when it is complete: every task of chapters 2–6 passes its public checks
   in student mode (what ``make progress`` runs: ``autograder.student.check``, a second or
   so per chapter), since the capstone needs the whole stack, Tensor to Adam. The tasks are
   those of the course version the tree started at: exercises a later version added do not
   hold a tree back, as its score is the one at its own version. The CNN (``--model cnn``)
   needs chapters 2–8 (``ch08_conv`` is the framework with convolution), and every task of
   chapter 8 whatever version the tree started at (a tree started before chapter 8 has it
   as stubs after ``make update``, and the CNN calls all of them); chapters 2–7's tasks
   count as for the MLP. The GPT (``--model gpt``) needs chapters 2–9 in the same way,
   every task of chapter 9 (``ch09_attention``) and warmup_cosine (task 6.12) whatever the
   version.
3. Otherwise the reference implementation, in the course repository, saying which tasks of
   ``chapters/`` are left.
4. Otherwise (a student release ships without the reference) nothing: a message naming
   what is left, and ``choose_tree`` returns None.

Whichever it is, one line starting ``tree:`` says which folder the framework came from.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
CHAPTERS_NEEDED = (2, 3, 4, 5, 6)
PACKAGE = "ch06_optim"  # the framework as it stands after chapter 6


@dataclass(frozen=True)
class Stack:
    """What a capstone model trains on: the chapters that must pass, the package that is
    the framework after the last of them, and a chapter all of whose tasks count whatever
    version the tree started at (None: none)."""

    chapters: tuple[int, ...]
    package: str
    every_task_of: int | None = None

    @property
    def span(self) -> str:
        return f"{self.chapters[0]}-{self.chapters[-1]}"


STACKS = {
    "mlp": Stack(CHAPTERS_NEEDED, PACKAGE),
    "cnn": Stack((2, 3, 4, 5, 6, 7, 8), "ch08_conv", every_task_of=8),
    "gpt": Stack((2, 3, 4, 5, 6, 7, 8, 9), "ch09_attention", every_task_of=9),
}


def stack_needs(stack: Stack) -> tuple[str, ...]:
    """The ids of the tasks ``stack`` needs whatever version the tree started at."""
    if stack.every_task_of is None:
        return ()
    from autograder.course import chapter

    return tuple(t.id for t in chapter(stack.every_task_of).tasks)


def _default_check(chapter: Any, impl: str, repo: Path) -> Any:
    from autograder import student

    return student.check(chapter, impl=impl, repo=repo)


def unfinished(
    repo: Path = REPO,
    check: Callable[[Any, str, Path], Any] = _default_check,
    needs: Sequence[str] = (),
    chapters: Sequence[int] = CHAPTERS_NEEDED,
) -> dict[int, str]:
    """Chapter number → what is left of it in ``repo/chapters`` (the tasks whose public
    checks do not pass, or why the chapter could not be checked); empty when complete.
    ``needs``: tasks this run calls whatever version the tree started at (the schedule
    ``--scheduler warmup_cosine`` is task 6.12's; the CNN, every task of chapter 8);
    ``chapters``: the chapters checked (``Stack.chapters``)."""
    from autograder import student, versions
    from autograder.course import chapter

    try:  # a task newer than the version the tree started at does not hold it back
        started = student.tree_version("chapters", repo).started
    except Exception:  # no chapters/ at all: each chapter below says so
        started = versions.COURSE_VERSION

    def ours(task: Any) -> bool:
        return task.id in needs or versions.at_most(task.since, started)

    left: dict[int, str] = {}
    for number in chapters:
        ch = chapter(number)
        if not (repo / "chapters" / ch.package).is_dir():
            left[number] = f"no chapters/{ch.package} folder (`make update` adds it)"
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


def _import(tree: str, package: str = PACKAGE) -> ModuleType:
    """``<tree>.<package>`` (in the course repository ``chapters.*`` is the reference when
    SPARROW_IMPL names it, but only for a process that started with it set: hence the
    reference by its own name)."""
    return importlib.import_module(f"{tree}.{package}")


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
    model: str = "mlp",
) -> ModuleType | None:
    """The framework module to train ``model`` on (see the module's docstring; ``STACKS``),
    after printing the ``tree:`` line; None, after printing what is left, when there is
    none to use."""
    stack = STACKS[model]
    package, span = stack.package, stack.span
    asked = environ.get("SPARROW_IMPL", "").strip()
    if asked:
        if asked not in ("chapters", "solutions"):
            out(f"error: SPARROW_IMPL must be 'chapters' or 'solutions', not {asked!r}")
            return None
        if not (repo / asked / package).is_dir():
            why = (
                "a student release ships without the reference implementation"
                if asked == "solutions"
                else "`make update` brings the chapters added since your tree started"
            )
            out(
                f"error: SPARROW_IMPL={asked} asks for {asked}/{package}, which is not in "
                f"{repo} ({why})"
            )
            return None
        sp = _import(asked, package)
        out(f"tree: {_where(sp)} (SPARROW_IMPL={asked})")
        return sp

    left = unfinished(repo, check, (*needs, *stack_needs(stack)), stack.chapters)
    if not left:
        sp = _import("chapters", package)
        out(f"tree: {_where(sp)} (your own code: chapters {span} pass their public checks)")
        return sp
    todo = "\n".join(f"  chapter {n}: {what}" for n, what in left.items())
    command = "make capstone" + f" MODEL={model}" * (model != "mlp")
    if (repo / "solutions" / package).is_dir():
        sp = _import("solutions", package)
        out(
            f"tree: {_where(sp)} (the reference: your chapters/ are not complete yet)\n"
            f"{todo}\n"
            f"  `{command}` trains on your own chapters once every task of chapters {span} "
            "passes (`make progress`)."
        )
        return sp
    out(
        f"tree: none. The capstone trains on your own chapters {span} once every task passes "
        f"its public checks, and these are left:\n{todo}\n"
        "  (`make progress` shows them all; SPARROW_IMPL=chapters runs it anyway.)"
    )
    return None

"""Every chapter's variant sets, as data: plausible student bugs and unusual but correct
rewrites, each an edit of the reference (``tests/trees.py``): ``edits(file, (old, new), …)``,
a few lines each, where the variant changes a few lines; ``("region", body)`` or
``rewrite(file, task, body, …)`` only where it rewrites most of a task's region (another
algorithm, not the reference re-pasted). A region's ``### BEGIN/END SOLUTION`` lines stay,
as in a student's file. ``tests/test_variants.py`` judges every set the same way; a new
chapter adds a module here and nothing else.

A module ``chNN_<kind>.py`` defines ``SET``: a ``VariantSet``. "broken" sets run on the
public checks; "held out" sets (bugs written without seeing the checks) run the bugs on the
public checks, the former holes on their task's hidden checks alone, and the rewrites on
both."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Sequence
from dataclasses import dataclass

# (name, file, edit, the task it breaks or rewrites)
Variant = tuple[str, str, tuple[str, str], str]


@dataclass(frozen=True)
class VariantSet:
    """One chapter's set: ``broken`` variants (each must fail its own task and no other),
    ``correct`` rewrites (each must score every point), ``says`` (a variant's name and words
    its report must hold: the mistake named; every broken variant has one), ``blocks`` (a
    variant's name and a later task whose checks run the broken code: that task shows
    "blocked by" the broken one), ``holes``
    (held-out bugs only the hidden checks catch), and the least sizes the set must keep
    (``least``: broken, correct)."""

    chapter: int
    kind: str  # "broken" or "held out"
    broken: Sequence[Variant]
    correct: Sequence[Variant] = ()
    says: Sequence[tuple[str, str]] = ()
    blocks: Sequence[tuple[str, str]] = ()
    holes: Sequence[str] = ()
    least: tuple[int, int] = (0, 0)
    tasks: Sequence[str] = ()  # the tasks the broken variants cover (default: every task)
    rewrites_cover: bool = False  # the correct rewrites reach every task too

    @property
    def id(self) -> str:
        return f"ch{self.chapter:02d}-{self.kind.replace(' ', '-')}"


def all_sets() -> list[VariantSet]:
    """Every set, in chapter order (broken before held out)."""
    sets = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("ch"):
            sets.append(importlib.import_module(f"{__name__}.{info.name}").SET)
    return sorted(sets, key=lambda s: (s.chapter, s.kind))

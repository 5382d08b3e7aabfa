"""Stand-ins, in the child: run a check program with the autograder's own version of some
tasks installed into the code under test, then put the code under test back.

A check that needs another task (``Check.requires``) cannot tell by itself whose bug it met
when both fail. The parent runs it again with stand-ins for the failing tasks
(``autograder/blame.py``): if it passes now, the other task is the cause ("blocked by"); if
it still fails, its own task is. Each chapter's ``checks/<chapter>/standins.py`` says what a
stand-in installs: ``STANDINS[task](sp)`` returns ``(owner, name, value)`` patches. Stand-ins
ship in the student release, so none gives a task away: an op's is numerical (the
autograder's float64 derivatives) or plain NumPy, never its Tensor-op backward; 1.7's reads
an order recorded as the Values were made, no graph algorithm. Chapter 3's *sum to a shape*
(a NumPy ``Function``) would pass 3.1; its algorithm is the notebook's §3 and is public in
``harness.gradcheck.sum_to`` already."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

Patch = tuple[Any, str, Any]  # (a class or module of the code under test, attribute, value)
_MISSING = object()


def modules_of(sp: ModuleType) -> list[ModuleType]:
    """The loaded modules of the code under test (``chapters.*``): where stand-ins go."""
    top = sp.__name__.split(".")[0]
    return [m for name, m in list(sys.modules.items()) if name.split(".")[0] == top and m]


def everywhere(sp: ModuleType, original: Any, value: Any) -> list[Patch]:
    """Patches that replace the function ``original`` by ``value`` in every module of the
    code under test that holds it (``from .graph import topological_order`` makes a second
    name for it)."""
    return [
        (m, name, value)
        for m in modules_of(sp)
        for name, held in list(vars(m).items())
        if held is original
    ]


def run_with(
    sp: ModuleType,
    standins: Mapping[str, Callable[[ModuleType], list[Patch]]],
    program: str,
    tasks: Sequence[str],
    inputs: Mapping[str, Any],
) -> Any:
    """``program`` (``module:function``) on one case's ``inputs``, with the stand-ins of
    ``tasks`` installed for the call and the code under test restored after it."""
    module, _, name = program.partition(":")
    run = getattr(importlib.import_module(module), name)
    patches = [patch for task in tasks for patch in standins[task](sp)]
    saved = [(owner, attr, vars(owner).get(attr, _MISSING)) for owner, attr, _ in patches]
    try:
        for owner, attr, value in patches:
            setattr(owner, attr, value)
        return run(sp, **inputs)
    finally:
        for owner, attr, value in reversed(saved):
            if value is _MISSING:
                delattr(owner, attr)
            else:
                setattr(owner, attr, value)


def rerun(
    sp: ModuleType, standins: str, program: str, tasks: Sequence[str], inputs: Mapping[str, Any]
) -> Any:
    """The rerun program (``blame.py`` plans it): ``program`` on ``inputs`` with the
    stand-ins of ``tasks`` from the chapter's module ``standins`` (its ``STANDINS``)."""
    table = importlib.import_module(standins).STANDINS
    return run_with(sp, table, program, tasks, inputs)

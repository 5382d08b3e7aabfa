"""What every chapter's checks promise, one test per promise, parametrized over every
chapter (a new chapter is held to them by registering it in ``autograder/course.py``):
every task has a hint; every task a check requires has a stand-in, which fails its
own task and is enough for the checks that lean on it; a check requires only earlier tasks.
"""

from __future__ import annotations

import importlib

import pytest

from autograder.course import CHAPTERS

# checks that may require a later task of their chapter, and why
LATER_ALLOWED = {
    2: "a second-derivative check of op 2.k runs the other ops' backward (blocked by them)",
}
# stand-ins that do their task exactly when installed, and what keeps them from being a
# solution pasted into the task (the others fail their own task's checks: tested below)
EXACT_STAND_INS = {
    # numerical derivatives from the autograder's gradcheck: a pasted copy that imports the
    # harness would pass (issue 26's threat model: student code importing the grader)
    "1.2": "gradcheck.partials",
    "1.3": "gradcheck.partials",
    "1.4": "gradcheck.partials",
    "1.6": "gradcheck.partials",
    "1.7": "a record of the Values made, which a pasted copy has not (tests/test_blame.py)",
    "3.2": "plain NumPy recorded as the chapter's Function kind: pasted, it may pass (issue 26)",
    "4.1": "a record of the vertices made, which a pasted copy has not (variants/ch04_broken)",
    "4.2": "a record of the vertices made, which a pasted copy has not",
}


def _chapter_params() -> list:
    return [pytest.param(c, id=f"ch{c.number:02d}") for c in CHAPTERS]


def _modules(c) -> tuple:
    public = importlib.import_module(f"autograder.checks.{c.package}")
    hidden = importlib.import_module(f"autograder.hidden.{c.package}")
    standins = importlib.import_module(f"autograder.checks.{c.package}.standins")
    return public.CHECKS, hidden.CHECKS, standins


def _number(task: str) -> tuple[int, ...]:
    return tuple(int(part) for part in task.split("."))


@pytest.mark.parametrize("c", _chapter_params())
def test_every_task_has_a_hint(c) -> None:
    """(That the reference scores 100 and fresh stubs 0, with a check per task:
    tests/test_student_mode.py; a section and a check cell per task: tests/test_notebooks.py.)"""
    for task in c.tasks:
        assert task.hint.strip(), f"task {task.id} has no hint"


@pytest.mark.parametrize("c", _chapter_params())
def test_every_required_task_has_a_stand_in(c) -> None:
    public, hidden, standins = _modules(c)
    required = {task for check in [*public, *hidden] for task in check.requires}
    assert required <= set(standins.STANDINS), required - set(standins.STANDINS)


@pytest.mark.parametrize("c", _chapter_params())
def test_a_check_requires_only_earlier_tasks(c) -> None:
    """Every check of task N.k (public and hidden) requires only chapter-N tasks before N.k
    in the notebook: a student whose N.1 and N.2 are right sees N.2 pass before writing N.3,
    and the notebook's Run All, which stops at a failing or blocked check cell, reaches the
    next section (``LATER_ALLOWED`` names the exceptions and why)."""
    public, hidden, _ = _modules(c)
    for check in [*public, *hidden]:
        assert all(t.startswith(f"{c.number}.") for t in check.requires), check.name
        later = [t for t in check.requires if _number(t) >= _number(check.task)]
        if c.number in LATER_ALLOWED and check.name.startswith("second derivatives"):
            continue
        assert not later, (check.task, check.name, later)


def _problems(c, check, tasks: list[str]) -> list[str]:
    """The check's public cases on the reference with the stand-ins of ``tasks``."""
    from autograder.harness import wire
    from autograder.harness.standin import rerun

    sp = importlib.import_module(f"solutions.{c.package}")
    standins = f"autograder.checks.{c.package}.standins"
    program = f"{check.program.__module__}:{check.program.__name__}"
    problems = []
    for case in check.make_cases(0):
        inputs = wire.loads(wire.dumps(dict(case.inputs)))
        try:
            data = wire.loads(wire.dumps(rerun(sp, standins, program, tasks, inputs)))
        except Exception as error:  # a stand-in that is no solution may raise
            problems.append(f"{case.label}: raised {type(error).__name__}: {error}")
            continue
        problem = check.verdict(case, data)
        if problem:
            problems.append(f"{case.label}: {problem}")
    return problems


def _stand_ins() -> list:
    return [
        pytest.param(c, task, id=f"ch{c.number:02d}:{task}")
        for c in CHAPTERS
        for task in sorted(_modules(c)[2].STANDINS, key=_number)
        if task not in EXACT_STAND_INS
    ]


@pytest.mark.parametrize(("c", "task"), _stand_ins())
def test_each_stand_in_fails_its_own_task(c, task: str) -> None:
    """In place of its task (on the reference), a stand-in fails one of that task's checks:
    pasted there, it would not solve it."""
    own = [check for check in _modules(c)[0] if check.task == task]
    assert own and any(_problems(c, check, [task]) for check in own)


@pytest.mark.parametrize("c", _chapter_params())
def test_the_stand_ins_are_enough_for_the_checks_that_need_them(c) -> None:
    """With the stand-ins of every task a check (public or hidden) requires in place of the
    reference's, the check passes: a rerun blames the right task."""
    public, hidden, _ = _modules(c)
    for check in [*public, *hidden]:
        if check.requires:
            assert not _problems(c, check, list(check.requires)), check.name

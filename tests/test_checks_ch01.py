"""What only chapter 1's checks do (every chapter's contracts: tests/test_contracts.py; its
variants: tests/variants/ch01_broken.py, judged by tests/test_variants.py): a named mistake
is named by the first failing check of its own task, not only somewhere in the report."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.variants.ch01_broken import SET, VARIANTS

TASK = {name: task for name, _, _, task in VARIANTS}


@pytest.mark.parametrize(("name", "says"), SET.says, ids=[name for name, _ in SET.says])
def test_the_first_failing_check_of_the_task_names_the_mistake(
    outcomes: Callable, name: str, says: str
) -> None:
    """The diagnosis, not only the numbers: the words are in the message of the broken
    task's first failing check."""
    (own,) = [t for t in outcomes(SET)[name].tasks if t.task.id == TASK[name]]
    problem = own.first_problem
    assert says in problem.message, (problem.case.label, problem.message)

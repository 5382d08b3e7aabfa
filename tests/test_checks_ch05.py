"""What only chapter 5's checks do (every chapter's contracts: tests/test_contracts.py; its
variants: tests/variants/ch05_broken.py and ch05_held_out.py, judged by
tests/test_variants.py): a broken ``__setattr__`` blocks state_dict, the 5.1 stand-in pasted
into its task fails it, and the held-out rewrites cover every task."""

from __future__ import annotations

import inspect
import textwrap
from pathlib import Path

from autograder import report
from autograder.status import Status
from tests.trees import SOLUTIONS, copy_package, replace_region, run_chapter
from tests.variants.ch05_broken import PACKAGE
from tests.variants.ch05_broken import SET as BROKEN


def test_a_broken_setattr_blocks_state_dict_rather_than_failing_it(outcomes) -> None:
    """5.5's checks build modules: with a __setattr__ that registers nothing they fail, and
    pass again with the 5.1 stand-in, so they show as "blocked by task 5.1"."""
    result = outcomes(BROKEN)["__setattr__ registers nothing"]
    (state,) = [t for t in result.tasks if t.task.id == "5.5"]
    assert state.status == Status.BLOCKED and state.blocked_by == "5.1", report.chapter_report(
        result
    )


def test_the_setattr_stand_in_is_no_solution_of_task_5_1(tmp_path: Path) -> None:
    """The 5.1 stand-in ships in the release: pasted into ``__setattr__``, it fails 5.1."""
    from autograder.checks.ch05_nn import standins

    source = textwrap.dedent(inspect.getsource(standins._setattr))
    start = source.rindex("\n", 0, source.index("tables = self.__dict__")) + 1
    end = source.index("    return [(module")
    body = textwrap.dedent(source[start:end]).replace("parameter)", "Parameter)")
    body = body.replace("isinstance(value, module)", "isinstance(value, Module)")
    package = copy_package(SOLUTIONS / PACKAGE, tmp_path / PACKAGE)
    replace_region(package / "nn/module.py", "5.1", body)
    result = run_chapter(5, package, tasks=["5.1"])
    assert result.tasks[0].status == Status.FAILED, report.chapter_report(result)

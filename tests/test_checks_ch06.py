"""What only chapter 6's checks do (every chapter's contracts: tests/test_contracts.py; its
variants: tests/variants/ch06_broken.py and ch06_held_out.py, judged by
tests/test_variants.py): broken param groups block the update rules, an Adam that skips the
decay hook blocks AdamW, the 6.1 stand-in pasted into its task fails it, the stand-ins are
enough for the hidden checks too, the held-out rewrites cover every task, and arrays that
look alike in a report name their largest difference."""

from __future__ import annotations

import inspect
import textwrap
from pathlib import Path

from autograder import report
from autograder.status import Status
from tests.trees import SOLUTIONS, copy_package, replace_region, run_chapter
from tests.variants.ch06_broken import OPT, PACKAGE
from tests.variants.ch06_broken import SET as BROKEN


def test_broken_param_groups_block_the_update_rules_rather_than_failing_them(outcomes) -> None:
    """6.2's checks build an SGD: with add_param_group overwriting each group's options they
    fail, and pass again with the 6.1 stand-in, so they show as "blocked by task 6.1"."""
    result = outcomes(BROKEN)["add_param_group overwrites a group's options with the defaults"]
    (sgd,) = [t for t in result.tasks if t.task.id == "6.2"]
    assert sgd.status == Status.BLOCKED and sgd.blocked_by == "6.1", report.chapter_report(result)


def test_an_adam_that_skips_the_hook_blocks_adamw(outcomes) -> None:
    """AdamW's trajectories run Adam.step: with the decay added inline they fail, and pass
    with the 6.5 stand-in (which calls self._weight_decay): "blocked by task 6.5"."""
    result = outcomes(BROKEN)["Adam adds the decay itself, not through _weight_decay"]
    (adamw,) = [t for t in result.tasks if t.task.id == "6.6"]
    assert adamw.status == Status.BLOCKED and adamw.blocked_by == "6.5", report.chapter_report(
        result
    )


def test_the_param_group_stand_in_is_no_solution_of_task_6_1(tmp_path: Path) -> None:
    """The 6.1 stand-in ships in the release: pasted into add_param_group, it fails 6.1."""
    from autograder.checks.ch06_optim import standins

    source = textwrap.dedent(inspect.getsource(standins._groups))
    start = source.index("        params = param_group")
    end = source.index("    def zero_grad")
    body = textwrap.dedent(source[start:end]).replace("tensor_type", "Tensor")
    package = copy_package(SOLUTIONS / PACKAGE, tmp_path / PACKAGE)
    replace_region(package / OPT, "6.1", body)
    result = run_chapter(6, package, tasks=["6.1"])
    assert result.tasks[0].status == Status.FAILED, report.chapter_report(result)


def test_arrays_that_look_alike_give_the_largest_difference() -> None:
    """A mismatch too small to see in the printout (rounded, or inside a "...") names its
    largest difference and where; a visible one does not."""
    import numpy as np

    from autograder.harness.api import compare

    small = compare(
        np.array([-0.433, 0.639999, 0.418]), np.array([-0.433, 0.64, 0.418]), rtol=1e-7, atol=1e-10
    )
    assert small and small.endswith("(largest difference 1e-06 at [1])"), small
    hidden = np.arange(30.0)
    hidden[15] += 1.0
    inside = compare(hidden, np.arange(30.0), rtol=1e-7, atol=0.0)
    assert inside and inside.endswith("(largest difference 1 at [15])"), inside
    plain = compare(np.array([1.0, 3.0]), np.array([1.0, 2.0]), rtol=1e-7, atol=0.0)
    assert plain and "largest difference" not in plain, plain

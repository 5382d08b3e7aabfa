"""What only chapter 2's checks do (every chapter's contracts: tests/test_contracts.py; its
variants: tests/variants/ch02_broken.py, judged by tests/test_variants.py): given code that
rounds through float32 fails every op check that meets it, and a second-order failure names
its op alone."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from autograder import report
from tests.trees import broken_package, run_chapter
from tests.variants.ch02_broken import SET

# Given code that rounds data through float32 (the Tensor constructor, or the lifting of a
# Python number): no task owns it, and the checks' inputs must prove their precision, so
# every op check that meets it fails, saying where.
GIVEN_CODE_IN_FLOAT32 = [
    (
        "arrays pass through float32",
        (
            "        array = np.asarray(data)\n",
            "        array = np.asarray(data).astype(np.float32).astype(data.dtype)\n",
        ),
        "bit for bit",
    ),
    (
        "a Python number passes through float32",
        ("xp.asarray(value, dtype=", "xp.asarray(np.float32(value), dtype="),
        "out: expected",
    ),
]


@pytest.mark.parametrize(
    ("name", "edit", "naming"), GIVEN_CODE_IN_FLOAT32, ids=[v[0] for v in GIVEN_CODE_IN_FLOAT32]
)
def test_given_code_in_float32_fails_the_checks_that_meet_it(
    tmp_path: Path, name: str, edit: tuple, naming: str
) -> None:
    package = broken_package(2, tmp_path, "tensor.py", edit, "2.1")
    result = run_chapter(2, package, tasks=["2.1", "2.2"])
    for verdict in result.tasks:
        assert verdict.status == "failed", report.chapter_report(result)
        assert naming in verdict.first_problem.message, report.chapter_report(result)


def test_a_second_order_failure_names_its_op_alone(outcomes: Callable) -> None:
    """One second-order check per op: a wrong Transpose.backward fails the transpose checks
    of 2.9, and the report's "also: other checks of this task that fail" line does not list
    reshape, view, permute and T with it."""
    result = outcomes(SET)["transpose back with .T, which reverses every axis"]
    (shapes,) = [t for t in result.tasks if t.task.id == "2.9"]
    failing = [c.check.name for c in shapes.checks if not c.passed]
    assert "second derivatives: a.transpose(dim0, dim1)" in failing, failing
    assert all("transpose" in name for name in failing), report.chapter_report(result)

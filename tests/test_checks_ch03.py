"""What only chapter 3's checks do (every chapter's contracts: tests/test_contracts.py; its
variants: tests/variants/ch03_broken.py, judged by tests/test_variants.py): a chapter-2 bug
met by chapter 3's op checks blocks the task, naming chapter 2's."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder import report
from autograder.checking import check_chapter
from autograder.course import chapter
from tests.trees import SOLUTIONS, broken_package, composite

# A chapter-2 bug met by chapter 3's op checks (student mode runs the whole stack): the
# task is blocked by chapter 2's, not failed.
MATMUL_WITHOUT_BATCHED_VECTORS = """
g = grad_output
if a.ndim == 1 and b.ndim == 1:
    return g * b, g * a
if a.ndim == 1:
    return b @ g, a.unsqueeze(1) @ g.unsqueeze(0)
if b.ndim == 1:
    return g.unsqueeze(1) @ b.unsqueeze(0), a.transpose(-1, -2) @ g
return g @ b.transpose(-1, -2), a.transpose(-1, -2) @ g
"""


@pytest.mark.parametrize(
    ("file", "edit", "task"),
    [
        (
            "arithmetic.py",
            ("return grad_output * b, grad_output * a", "return grad_output * a, grad_output * b"),
            "2.2",
        ),
        ("matmul.py", ("region", MATMUL_WITHOUT_BATCHED_VECTORS), "2.6"),
        (
            "arithmetic.py",
            (
                "return grad_output * b, grad_output * a",
                "return (grad_output * b).reshape(a.shape), grad_output * a",
            ),
            "2.2",
        ),
    ],
)
def test_a_chapter_2_bug_blocks_task_3_1(tmp_path: Path, file: str, edit: tuple, task: str):
    """Chapter 3 names the chapter-2 task, the problem and the part it is in (here the local
    backward), and says each thing once: the case and "make chapter-2 may still pass" are
    the report's own lines. Chapter 2's own checks catch the bug too (a 1-D operand against
    a batch is one of chapter 2's cases), so ``make chapter-2`` does not send the student
    back: no loop."""
    chapter2 = broken_package(2, tmp_path, file, edit, task)
    packages = {**composite(3, SOLUTIONS / "ch03_broadcast"), "ch02_tensor": chapter2}
    result = check_chapter(chapter(3), packages, task_ids=["3.1"])
    (verdict,) = result.tasks
    assert verdict.status == "blocked" and verdict.blocked_by == task, report.chapter_report(result)
    assert verdict.points < verdict.task.points
    problem = verdict.first_problem
    message, text = problem.message, " ".join(report.chapter_report(result).split())
    assert f".backward (chapter 2, task {task})" in message, message
    assert "forward or" not in message and "chapter-2" not in message, message
    operands = problem.case.label.split("; then")[0]  # "a * b with a of shape …"
    assert operands not in message and text.count(operands) == 1, text
    assert text.count("may still pass") == 1, text
    own = check_chapter(chapter(2), composite(2, chapter2), task_ids=[task])
    assert own.tasks[0].status == "failed", report.chapter_report(own)

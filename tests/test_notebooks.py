"""Notebooks: committed without outputs, and every task they teach has its section and its
check cell. (make test executes them against the reference with nbval.)"""

from __future__ import annotations

import json
import re

import pytest

from autograder.course import CHAPTERS
from tests.trees import SOLUTIONS

READY = [ch for ch in CHAPTERS if ch.ready]


def _notebook(package: str) -> dict:
    path = SOLUTIONS / package / f"{package}.ipynb"
    assert path.is_file(), f"chapter {package} has no notebook at {path}"
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("ch", READY, ids=lambda ch: ch.package)
def test_notebook_has_no_volatile_output(ch) -> None:
    nb = _notebook(ch.package)
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None
    assert set(nb["metadata"]) <= {"kernelspec", "language_info"}


@pytest.mark.parametrize("ch", READY, ids=lambda ch: ch.package)
def test_every_task_has_its_section_and_check_cell(ch) -> None:
    nb = _notebook(ch.package)
    headings = {
        m[1]
        for cell in nb["cells"]
        if cell["cell_type"] == "markdown"
        for m in re.finditer(r"^#+ (§\d+)\b", "".join(cell["source"]), re.M)
    }
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    for task in ch.tasks:
        assert task.section in headings, f"task {task.id}: no heading {task.section}"
        assert f'check("{task.id}")' in code, f"task {task.id} has no check cell"
        # issue 29: the check cell says how to ask for a hint, which the notebook imports
        assert f'hint("{task.id}")' in code, f"task {task.id}'s check cell offers no hint"
    assert "from autograder.notebook import check, hint" in code


@pytest.mark.parametrize("ch", READY, ids=lambda ch: ch.package)
def test_notebook_holds_no_exercise_cells(ch) -> None:
    """All student work is in .py files: no cell asks the reader to fill something in."""
    nb = _notebook(ch.package)
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            text = "".join(cell["source"])
            assert "NotImplementedError" not in text and "YOUR CODE" not in text.upper()

"""Read ahead (issue 32): the release's notebooks carry the reference's figures and printed
values, each cell's opened by the "what yours should look like" marker, and never a check
cell's report, a hint, a traceback or a line of task code.

The checks below find check cells, report text and task lines themselves (written out
again), so they do not trust ``tools.read_ahead``'s own reading of them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from autograder import stubgen
from tools import read_ahead

REPO = Path(__file__).resolve().parent.parent
SOLUTIONS = REPO / "solutions"
MARK_START = "*What yours should look like*"
# What a check cell's report prints (autograder/report.py), or a hint's heading.
REPORT_WORDS = ("✓", "passed", "not started", "Task 1.")
CHECK_CALL = re.compile(r"^\s*(check|hint)\(", re.M)


def _task_lines() -> set[str]:
    """Every stripped line of 12 characters or more, with a letter, inside a task region of
    solutions/**/*.py (a looser rule than the module's, so it catches at least as much),
    less the lines the release ships anyway: outside every region, or in support/."""
    inside, outside = set(), set()
    for path in sorted(SOLUTIONS.rglob("*.py")):
        region = False
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip().startswith("### BEGIN SOLUTION"):
                region = True
            elif line.strip().startswith("### END SOLUTION"):
                region = False
            else:
                (inside if region else outside).add(line.strip())
    for path in sorted((REPO / "support").rglob("*.py")):
        outside.update(line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return {x for x in inside - outside if len(x) >= 12 and re.search("[A-Za-z]", x)}


TASK_LINES = _task_lines()


def _text(value) -> str:
    return value if isinstance(value, str) else "".join(value)


def _output_text(output: dict) -> str:
    if output["output_type"] == "stream":
        return _text(output["text"])
    data = output.get("data", {})
    return "\n".join(_text(v) for k, v in data.items() if k != "image/png")


def _release_notebook(package: str) -> bytes:
    generated = stubgen.generate(SOLUTIONS, target="release")
    return generated[f"{package}/{package}.ipynb"]


def assert_read_ahead(nb: dict, where: str) -> int:
    """The release notebook ``nb`` carries what it should and nothing it must not; returns
    how many figures it carries."""
    figures = 0
    for number, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        at = f"{where} cell {number}"
        source, outputs = _text(cell["source"]), cell["outputs"]
        assert cell["execution_count"] is None, at
        assert "execution" not in cell.get("metadata", {}), at
        if CHECK_CALL.search(source):
            assert outputs == [], f"{at}: a check cell carries outputs"
            continue
        if not outputs:
            continue
        first = outputs[0]
        assert first["output_type"] == "display_data", at
        assert _text(first["data"]["text/markdown"]).startswith(MARK_START), at
        for output in outputs[1:]:
            assert output["output_type"] in ("stream", "display_data", "execute_result"), at
            assert output.get("name", "stdout") == "stdout", f"{at}: stderr carried"
            assert output.get("execution_count") is None, at
            text = _output_text(output)
            assert MARK_START not in text, f"{at}: the marker twice"
            for word in REPORT_WORDS:
                assert word not in text, f"{at}: report text {word!r} carried"
            leaked = [line for line in TASK_LINES if line in text]
            assert not leaked, f"{at}: task code carried: {leaked[:3]}"
            figures += "image/png" in output.get("data", {})
    return figures


@pytest.fixture(scope="module")
def chapter_one() -> dict:
    """Chapter 1's release notebook, read ahead (one kernel, about 15 s)."""
    name = "ch01_value/ch01_value.ipynb"
    original = _release_notebook("ch01_value")
    filled = read_ahead.fill({name: original}, repo=REPO)
    assert list(filled) == [name]
    return {
        "original": json.loads(original),
        "filled": json.loads(filled[name]),
        "bytes": filled[name],
    }


def test_chapter_one_carries_figures_and_values_marked(chapter_one) -> None:
    nb = chapter_one["filled"]
    figures = assert_read_ahead(nb, "ch01")
    assert figures >= 5, f"chapter 1 draws at least 5 figures; {figures} carried"
    printed = [
        _text(o["text"])
        for c in nb["cells"]
        if c["cell_type"] == "code"
        for o in c["outputs"]
        if o["output_type"] == "stream"
    ]
    assert any("24.7041" in text for text in printed)  # the micrograd example prints it


def test_chapter_one_keeps_everything_but_outputs(chapter_one) -> None:
    original, filled = chapter_one["original"], chapter_one["filled"]
    assert filled["metadata"] == original["metadata"]
    assert len(filled["cells"]) == len(original["cells"])
    for before, after in zip(original["cells"], filled["cells"], strict=True):
        assert before["source"] == after["source"]
        assert before["cell_type"] == after["cell_type"]
    text = json.dumps(filled, indent=1, ensure_ascii=False) + "\n"
    assert chapter_one["bytes"] == text.encode(), "not serialised as the notebooks are"


TASK_LINE = "out = Value(self.data * other.data, (self, other), '*')"


def _cell(source: str, outputs: list[dict]) -> dict:
    return {
        "cell_type": "code",
        "execution_count": 3,
        "metadata": {"execution": {"x": 1}},
        "outputs": outputs,
        "source": source,
    }


def _stream(text: str, name: str = "stdout") -> dict:
    return {"output_type": "stream", "name": name, "text": text}


def _carried(cell: dict, lines: set[str]) -> list[dict]:
    nb = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    out = read_ahead.carry(nb, json.loads(json.dumps(nb)), lines)["cells"][0]
    assert out["execution_count"] is None and "execution" not in out["metadata"]
    return out["outputs"]


def test_carry_drops_an_output_that_holds_a_planted_task_line() -> None:
    lines = {TASK_LINE}
    shown = [_stream(f"    {TASK_LINE}\n"), _stream("a value\n")]
    outputs = _carried(_cell("print(inspect.getsource(f))", shown), lines)
    assert [o.get("text") for o in outputs[1:]] == [["a value\n"]]
    html = {
        "output_type": "display_data",
        "metadata": {},
        "data": {"text/html": f"<pre>{TASK_LINE}</pre>", "text/plain": "x"},
    }
    assert _carried(_cell("display(x)", [html]), lines) == []


def test_carry_drops_check_hint_error_and_stderr() -> None:
    report = [_stream("✓ Task 1.3 passed\n")]
    for source in (
        'check("1.3")',
        'from autograder import notebook\nnotebook.hint("1.3")',
        "%time check(1)",
        '%%time\ncheck("1.3")',
        'if True:\n    hint("1.3", 2)',
    ):
        assert _carried(_cell(source, report), set()) == [], source
    error = {"output_type": "error", "ename": "E", "evalue": "", "traceback": []}
    assert _carried(_cell("f()", [_stream("half\n"), error]), set()) == []
    assert _carried(_cell("warn()", [_stream("careful\n", "stderr")]), set()) == []
    result = {
        "output_type": "execute_result",
        "execution_count": 7,
        "metadata": {},
        "data": {"text/plain": "42", "application/json": {"a": 1}},
    }
    outputs = _carried(_cell("6 * 7", [result]), set())
    assert outputs[0]["data"]["text/markdown"][0].startswith(MARK_START)
    assert outputs[1]["execution_count"] is None
    assert set(outputs[1]["data"]) == {"text/plain"}


def test_task_lines_are_distinctive_and_found() -> None:
    lines = read_ahead.task_lines(REPO)
    assert len(lines) > 100 and lines <= TASK_LINES
    assert all(len(line) >= 12 for line in lines)
    # keywords only, given code in a stub, a line of support/: nothing the release hides
    for shown in ("return None, None", "raise TypeError(", "loss.backward()"):
        assert shown not in lines
    assert not any(line.startswith("### ") for line in lines)


@pytest.mark.slow
def test_release_read_ahead(tmp_path) -> None:
    """A whole release built read ahead: every chapter's notebook carries figures, none a
    check result or task code; and the release's texts tell the truth (where that test's
    helper exists)."""
    from tools import release

    out = tmp_path / "release"
    release.release(out, read_ahead=True)
    notebooks = sorted((out / "chapters").glob("ch*/ch*.ipynb"))  # translations included
    assert len([p for p in notebooks if not p.name.endswith(".zh.ipynb")]) == 9
    for path in notebooks:
        nb = json.loads(path.read_text(encoding="utf-8"))
        assert assert_read_ahead(nb, path.name) >= 1, f"{path.name} carries no figure"
    texts = pytest.importorskip("tests.release_texts", reason="tests/release_texts.py is absent")
    assert texts.untruths(out) == []


def _tiny_repo(root: Path, cells: list[str]) -> dict[str, bytes]:
    """A repository of one task line and one notebook of ``cells``, under ``root``."""
    (root / "solutions").mkdir()
    (root / "solutions" / "task.py").write_text(
        f"def f(self, other):\n    ### BEGIN SOLUTION 1.1\n    {TASK_LINE}\n    ### END SOLUTION\n"
    )
    (root / "support").mkdir()
    (root / "chapters" / "demo").mkdir(parents=True)
    nb = {
        "cells": [_cell(source, []) for source in cells],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 4,  # no cell ids needed
    }
    return {"demo/demo.ipynb": json.dumps(nb).encode()}


def test_fill_runs_in_the_chapter_folder_on_the_reference(tmp_path) -> None:
    cells = [
        "import os\nprint(os.environ['SPARROW_IMPL'], os.environ['OPENBLAS_NUM_THREADS'])\n"
        "print(os.path.basename(os.getcwd()))",
        f"print({TASK_LINE!r})",
        "import sys\nprint('to stderr', file=sys.stderr)",
        "print('half')\n1 / 0",
        "6 * 7",
    ]
    notes: list[str] = []
    filled = read_ahead.fill(_tiny_repo(tmp_path, cells), repo=tmp_path, timeout=60, notes=notes)
    nb = json.loads(filled["demo/demo.ipynb"])
    shown = [[_output_text(o) for o in c["outputs"][1:]] for c in nb["cells"]]
    assert shown == [["solutions 1\ndemo\n"], [], [], [], ["42"]]
    assert notes == [  # what an instructor is told: the task code shown, the cell that raised
        "demo/demo.ipynb: cell 1: an output holding task code",
        "demo/demo.ipynb: cell 3: raised ZeroDivisionError: division by zero",
    ]


def test_fill_says_which_notebook_did_not_finish(tmp_path) -> None:
    notebooks = _tiny_repo(tmp_path, ["import time\ntime.sleep(30)"])
    with pytest.raises(read_ahead.ReadAheadError, match=r"demo/demo\.ipynb did not run"):
        read_ahead.fill(notebooks, repo=tmp_path, timeout=2)


def test_command_refuses_a_chapter_the_course_lacks(tmp_path, capsys) -> None:
    assert read_ahead.main(["--chapter", "99", "--out", str(tmp_path)]) == 2
    assert "no such chapter" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_the_chinese_notebook_carries_the_same_outputs(chapter_one) -> None:
    """A translated notebook (issue 33) gets its English twin's read-ahead, code cell by code
    cell, and keeps its own prose."""
    from autograder import translations

    zh_name = "ch01_value/ch01_value.zh.ipynb"
    zh = stubgen.generate(SOLUTIONS, target="release")[zh_name]
    nb = json.loads(translations.with_outputs(zh, chapter_one["bytes"]))
    english = chapter_one["filled"]["cells"]
    assert [c["id"] for c in nb["cells"]] == [c["id"] for c in english]
    for mine, theirs in zip(nb["cells"], english, strict=True):
        if mine["cell_type"] == "code":
            assert mine["outputs"] == theirs["outputs"] and mine["source"] == theirs["source"]
    assert assert_read_ahead(nb, zh_name) >= 5  # chapter 1's figures, in Chinese too
    prose = [_text(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]
    assert all(re.search(r"[\u4e00-\u9fff]", text) for text in prose)

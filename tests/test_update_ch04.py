"""Chapter 4's change to chapter 2's given code reaches a student through ``make update``.

Commit efaaf34 changed ``function.py`` (Node's ``hooks``/``retained``), ``tensor.py``
(``.grad`` as a property that warns, ``register_hook``, ``retain_grad``, ``requires_grad_``)
and ``autograd.py`` (``allow_unused``, ``functional``) in chapter 2. A student who finished
chapter 2 before it, and edited given code of ``tensor.py`` too, updates to today's course
(``tools.stubs.write``, what ``make update`` runs): every task they wrote stays byte for
byte, the untouched given files are the new ones, their own edit of ``tensor.py`` is kept
beside the new given code, and their chapter 2 then runs chapter 4's engine (hooks,
``retain_grad``, the warning), with the reference's chapters 1, 3 and 4 around it.

The course before the change comes from git (``efaaf34^``); without the history (a
release, a shallow clone) the test skips, saying so.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from autograder import stubgen
from tests.trees import REPO, SOLUTIONS, student_env
from tools import merge, stubs, update

BEFORE = "efaaf34^"
CHANGED = ("function.py", "tensor.py", "autograd.py")
MINE = "\n\ndef my_helper() -> str:  # the student's own given-code addition\n    return 'mine'\n"


def _old_course(root: Path) -> None:
    """``root/solutions`` as it was before the chapter-4 change (skip without history)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed: the course before efaaf34 comes from its history")
    listed = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", BEFORE, "solutions"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    if listed.returncode != 0 or not listed.stdout.strip():
        pytest.skip(f"no git history for {BEFORE} here (a release or a shallow clone)")
    for rel in listed.stdout.splitlines():
        shown = subprocess.run(["git", "show", f"{BEFORE}:{rel}"], cwd=REPO, capture_output=True)
        assert shown.returncode == 0, shown.stderr
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(shown.stdout)


def _solved(text: str) -> str:
    """A reference file as a student who wrote every task has it (the markers gone)."""
    marker = re.compile(r"^\s*### (BEGIN|END) SOLUTION")
    return "\n".join(line for line in text.splitlines() if not marker.match(line)) + "\n"


@pytest.fixture
def updated(tmp_path: Path) -> tuple[Path, dict[str, dict[str, str]], list[str]]:
    """The student's repository after the update: (root, their task functions per chapter-2
    file before it, the update's report)."""
    _old_course(tmp_path)
    stubs.write(tmp_path)
    ch02 = tmp_path / "chapters" / "ch02_tensor"
    old_solutions = tmp_path / "solutions" / "ch02_tensor"
    written: dict[str, dict[str, str]] = {}
    for path in sorted(old_solutions.glob("*.py")):
        text = path.read_text()
        if "### BEGIN SOLUTION" not in text:
            continue
        mine = _solved(text)
        (ch02 / path.name).write_text(mine)
        stub = stubgen.generate(tmp_path / "solutions")[f"ch02_tensor/{path.name}"].decode()
        written[path.name] = {
            name: merge.function_text(mine, name) for name in merge.task_functions(stub)
        }
    tensor = ch02 / "tensor.py"
    tensor.write_text(tensor.read_text() + MINE)
    assert not set(CHANGED) & set(written), "the changed files hold no task (yet)"
    shutil.rmtree(tmp_path / "solutions")
    shutil.copytree(SOLUTIONS, tmp_path / "solutions", ignore=shutil.ignore_patterns("__pycache__"))
    report = stubs.write(tmp_path)
    return tmp_path, written, report


def test_the_update_keeps_every_written_task_and_brings_the_new_given_code(updated) -> None:
    root, written, report = updated
    ch02 = root / "chapters" / "ch02_tensor"
    new = stubgen.generate(SOLUTIONS)
    assert written, "chapter 2 has task files"
    for name, functions in written.items():
        after = (ch02 / name).read_text()
        for function, text in functions.items():
            assert merge.function_text(after, function) == text, f"{name}: {function}"
    for name in ("function.py", "autograd.py"):  # unedited: the new given code
        assert (ch02 / name).read_bytes() == new[f"ch02_tensor/{name}"], name
    tensor = (ch02 / "tensor.py").read_text()
    assert tensor.endswith(MINE)
    assert tensor[: -len(MINE)] == new["ch02_tensor/tensor.py"].decode()
    assert update.NOT_MERGED not in report and update.CHECK not in report, report
    assert update.exit_code(report) == 0
    merged = next(r for r in report if "chapters/ch02_tensor/tensor.py" in r)
    assert "merged" in merged


PROGRAM = """
import warnings
import numpy as np
from tree import ch04_backward as sp

x = sp.tensor(np.array([0.5, -1.0]), requires_grad=True)
h = x.tanh()
h.retain_grad()
h.register_hook(lambda g: g * 2.0)
(h * h).sum().backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    assert (x * 3.0).grad is None
assert [w.category for w in caught] == [UserWarning]
t = np.tanh(x.data)
np.testing.assert_allclose(h.grad.data, 2 * 2 * t, rtol=1e-12)
np.testing.assert_allclose(x.grad.data, 2 * 2 * t * (1 - t**2), rtol=1e-12)
(g,) = sp.autograd.grad((x * x).sum(), [x, sp.tensor([1.0], requires_grad=True)],
                        allow_unused=True)[:1]
np.testing.assert_allclose(g.data, 2 * x.data, rtol=1e-12)
from tree.ch02_tensor.tensor import my_helper
print("ok", my_helper())
"""


def test_the_updated_chapter_2_runs_chapter_4s_engine(updated, tmp_path_factory) -> None:
    """The student's merged chapter 2, with the reference's other chapters, in one tree."""
    root, _, _ = updated
    tree = tmp_path_factory.mktemp("tree") / "tree"
    shutil.copytree(SOLUTIONS, tree, ignore=shutil.ignore_patterns("__pycache__", "*.ipynb"))
    shutil.rmtree(tree / "ch02_tensor")
    shutil.copytree(root / "chapters" / "ch02_tensor", tree / "ch02_tensor")
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(PROGRAM)],
        cwd=tree.parent,
        env={**student_env(), "PYTHONPATH": str(tree.parent)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok mine"

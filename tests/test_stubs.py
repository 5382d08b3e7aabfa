"""The stub generator: solutions/ → chapters/, never losing a student's work; and reset."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import course, stubgen
from autograder.course import CHAPTERS, Chapter
from tests.trees import REPO, SOLUTIONS, scratch_repo
from tools import reset, stubs, update

REGION = re.compile(r"### BEGIN SOLUTION (\S+)\n(.*?)### END SOLUTION", re.S)


def fake_message(task_id: str) -> str:
    return f"Task {task_id}: do it"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "def f():\n    '''doc'''\n    ### BEGIN SOLUTION 1.1\n    return 1\n"
            "    ### END SOLUTION\n",
            "def f():\n    '''doc'''\n    raise NotImplementedError(\"Task 1.1: do it\")\n",
        ),
        (
            "x = 1\nclass A:\n    def g(self):\n        y = 2\n        ### BEGIN SOLUTION 2.3\n"
            "        return y\n\n        # more\n        ### END SOLUTION\n",
            "x = 1\nclass A:\n    def g(self):\n        y = 2\n"
            '        raise NotImplementedError("Task 2.3: do it")\n',
        ),
        ("no markers at all\n", "no markers at all\n"),
    ],
)
def test_regions_become_stubs(source: str, expected: str) -> None:
    assert stubgen.stub_source(source, message=fake_message) == expected


def test_long_messages_wrap_to_the_line_limit() -> None:
    source = "        ### BEGIN SOLUTION 1.1\n        pass\n        ### END SOLUTION\n"
    out = stubgen.stub_source(source, message=lambda t: "x" * 70)
    assert all(len(line) <= stubgen.LINE_LIMIT for line in out.splitlines())
    assert out.splitlines()[0] == "        raise NotImplementedError("


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("### BEGIN SOLUTION 1.1\n", "never closed"),
        ("### END SOLUTION\n", "without a BEGIN"),
        ("### BEGIN SOLUTION\n### END SOLUTION\n", "needs a task id"),
        ("### BEGIN SOLUTION 1.1\n### BEGIN SOLUTION 1.2\n", "inside the region"),
        ("#### BEGIN  SOLUTION 1.1\n", "malformed"),
    ],
)
def test_bad_markers_are_named(source: str, problem: str) -> None:
    with pytest.raises(stubgen.StubError, match=problem):
        stubgen.stub_source(source, "x.py", message=fake_message)


def test_unknown_task_id_is_an_error() -> None:
    with pytest.raises(stubgen.StubError, match=r"no task '1\.99'"):
        stubgen.stub_source("### BEGIN SOLUTION 1.99\n### END SOLUTION\n")


def test_every_task_has_a_region_and_every_region_a_task() -> None:
    from autograder.course import CHAPTERS

    found = {m[1] for p in SOLUTIONS.rglob("*.py") for m in REGION.finditer(p.read_text())}
    tasks = {t.id for ch in CHAPTERS for t in ch.tasks}
    assert found == tasks


def test_no_solution_text_leaks_into_generated_stubs() -> None:
    generated = stubgen.generate(SOLUTIONS)
    for rel, data in generated.items():
        text = data.decode(errors="replace")
        assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text, rel
        if not rel.endswith(".py"):
            continue
        reference = (SOLUTIONS / rel).read_text()
        given = REGION.sub("", reference)
        for match in REGION.finditer(reference):
            for line in match[2].splitlines():
                line = line.strip()
                if len(line) >= 12 and line not in given:
                    assert line not in text, f"{rel}: solution line leaked: {line}"


def test_chapters_is_what_the_generator_writes() -> None:
    """The drift check. A learner's edits make it skip (visibly); in CI it is strict."""
    chapters = REPO / "chapters"
    problems = stubs.drift(chapters, stubgen.generate(SOLUTIONS))
    if problems and stubs.edited_files(chapters) and not os.environ.get("CI"):
        pytest.skip("skipped: chapters/ holds student work")
    assert problems == [], "chapters/ drifted from solutions/: run `make stubs`"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A scratch repository with solutions/ and a freshly generated chapters/."""
    return scratch_repo(tmp_path)


def test_write_is_idempotent_and_records_a_manifest(repo: Path) -> None:
    assert stubs.write(repo) == ["chapters/ is up to date"]
    assert stubs.drift(repo / "chapters", stubgen.generate(repo / "solutions")) == []
    assert stubs.edited_files(repo / "chapters") == []


def test_an_edited_file_whose_stub_changed_is_merged_never_overwritten(repo: Path) -> None:
    """The merge itself is tests/test_update.py's; here: a clash is said, and backed up, and
    the student's own added lines survive even a rewrite of every given line."""
    mine = repo / "chapters" / "ch01_value" / "numerical.py"
    text = mine.read_text()
    assert text.count("\nfrom collections.abc import Callable\n") == 1
    text = text.replace("abc import Callable\n", "abc import Callable, Iterable  # mine\n")
    mine.write_text(text + "\n# my work\n")
    (repo / "solutions" / "ch01_value" / "numerical.py").write_text("# changed upstream\n")
    report = stubs.write(repo)
    assert report[0] == "merged chapters/ch01_value/numerical.py: given code updated"
    assert report[1].startswith("your version of 1 file(s) is kept in .sparrow/backups/")
    clash = report[report.index(update.NOT_MERGED) + 1]
    assert "(`from collections.abc import Callable, Iterable  # mine`) changed given" in clash
    assert report[-1].startswith("  the backup of your files from before this update: ")
    assert mine.read_text() == "# changed upstream\n\n# my work\n"
    backups = list((repo / ".sparrow" / "backups").rglob("numerical.py"))
    assert len(backups) == 1 and backups[0].read_text().endswith("# my work\n")


def test_edited_files_the_generator_would_not_change_are_left_alone(repo: Path) -> None:
    mine = repo / "chapters" / "ch01_value" / "numerical.py"
    mine.write_text("# my finished work\n")
    assert stubs.write(repo) == ["kept your work in 1 file"]
    assert stubs.write(repo, force=True) == ["kept your work in 1 file"]
    assert mine.read_text() == "# my finished work\n"
    assert stubs.edited_files(repo / "chapters") == ["ch01_value/numerical.py"]


def test_force_replaces_only_the_conflicting_files(repo: Path) -> None:
    mine = repo / "chapters" / "ch01_value"
    (mine / "numerical.py").write_text("# my 1.1\n")
    (mine / "graph.py").write_text("# my 1.7\n")
    (repo / "solutions" / "ch01_value" / "numerical.py").write_text("# changed upstream\n")
    stubs.write(repo, force=True)
    assert (mine / "numerical.py").read_text() == "# changed upstream\n"
    assert (mine / "graph.py").read_text() == "# my 1.7\n"


def test_a_changed_notebook_replaces_the_students_copy_after_a_backup(repo: Path) -> None:
    notebook = repo / "chapters" / "ch01_value" / "ch01_value.ipynb"
    notebook.write_text(notebook.read_text().replace('"outputs": []', '"outputs": [1]', 1))
    source = repo / "solutions" / "ch01_value" / "ch01_value.ipynb"
    text = source.read_text()
    assert text.count("# Chapter 1 — ") == 1
    source.write_text(text.replace("# Chapter 1 — ", "# Chapter 1 (revised) — "))
    report = stubs.write(repo)
    replaced = "ch01_value.ipynb by its new version (your copy, with its outputs and any notes, "
    assert [line for line in report if replaced in line], report
    assert any(line.startswith("your version of 1 file(s) is kept in .sparrow/") for line in report)
    assert (
        notebook.read_bytes() == stubgen.generate(repo / "solutions")["ch01_value/ch01_value.ipynb"]
    )
    assert "# Chapter 1 (revised) — " in notebook.read_text()


def test_files_a_student_added_are_left_alone(repo: Path) -> None:
    extra = repo / "chapters" / "ch01_value" / "my_helpers.py"
    extra.write_text("# mine\n")
    stubs.write(repo)
    assert extra.read_text() == "# mine\n"


def _reset(task_id: str, repo: Path) -> list[str]:
    return reset.reset(task_id, reset.stubs_for(task_id, repo), repo)


def test_reset_puts_one_task_back(repo: Path) -> None:
    value = repo / "chapters" / "ch01_value" / "value.py"
    shutil.copyfile(repo / "solutions" / "ch01_value" / "value.py", value)  # all tasks done
    report = _reset("1.3", repo)
    assert "Value.__mul__" in report[0] and ".sparrow/backups/" in report[0]
    text = value.read_text()
    assert 'raise NotImplementedError(\n            "Task 1.3:' in text
    assert "self.grad += other.data * out.grad" not in text  # the 1.3 solution is gone
    assert "self.grad += out.grad" in text  # 1.2 is still the student's
    backup = next((repo / ".sparrow" / "backups").rglob("value.py"))
    assert "self.grad += other.data * out.grad" in backup.read_text()
    assert _reset("1.3", repo) == ["task 1.3 in chapters/ch01_value/value.py is already its stub"]


def test_reset_of_a_task_spanning_functions(repo: Path) -> None:
    value = repo / "chapters" / "ch01_value" / "value.py"
    shutil.copyfile(repo / "solutions" / "ch01_value" / "value.py", value)
    _reset("1.6", repo)
    assert value.read_text().count('"Task 1.6:') == 3  # tanh, sigmoid, relu


def test_reset_refuses_a_file_that_does_not_parse(repo: Path) -> None:
    value = repo / "chapters" / "ch01_value" / "value.py"
    value.write_text("def broken(:\n")
    with pytest.raises(reset.ResetError, match="syntax error at line 1"):
        _reset("1.3", repo)
    assert value.read_text() == "def broken(:\n"


# every chapter of the course is written; a later one would have no task table yet
UNWRITTEN = Chapter(len(CHAPTERS) + 1, f"ch{len(CHAPTERS) + 1:02d}_later", "a later chapter")


@pytest.mark.parametrize(
    ("task", "message"), [("1.42", "no task"), (f"{UNWRITTEN.number}.1", "not written yet")]
)
def test_reset_of_an_unknown_task(task: str, message: str, monkeypatch) -> None:
    monkeypatch.setattr(course, "CHAPTERS", [*CHAPTERS, UNWRITTEN])
    with pytest.raises((KeyError, ValueError), match=message):
        reset.stubs_for(task)


def test_command_line_check_exit_codes(repo: Path) -> None:
    assert stubs.check(repo) == 0
    (repo / "chapters" / "ch01_value" / "graph.py").write_text("# student work\n")
    assert stubs.check(repo) == 3
    (repo / "chapters" / "ch01_value" / "graph.py").unlink()  # how to start a file over
    assert stubs.write(repo) == ["wrote chapters/ch01_value/graph.py"]
    assert stubs.check(repo) == 0
    (repo / "solutions" / "ch01_value" / "graph.py").write_text("# new upstream\n")
    assert stubs.check(repo) == 1


def test_make_reset_wraps_the_module() -> None:
    """One command line for a reset, in the repository and in a release: tools.reset."""
    assert "$(PY) -m tools.reset $(TASK)" in (REPO / "Makefile").read_text()
    out = subprocess.run(
        [sys.executable, "-m", "tools.reset", "9.9"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2 and "error:" in out.stderr and "9" in out.stderr

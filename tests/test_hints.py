"""Hints on request (``autograder/hints.py``, ``make hint``, ``hint()`` in a notebook): one
stage more each time, the idea before the recipe before the notebook, a record that is
written whole and survives being unreadable; and every task's hints are held to issue 29's
rules (the idea in words, with none of the reference's code)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import hints
from autograder.course import CHAPTERS, chapter
from tests.trees import REPO, shows_code

TASKS = [t for ch in CHAPTERS if ch.ready for t in ch.tasks]


def _fake_repo(tmp_path: Path) -> Path:
    """A repository with chapter 4's notebook in chapters/, and no .sparrow/ yet."""
    package = chapter(4).package
    (tmp_path / "chapters" / package).mkdir(parents=True)
    notebook = REPO / "solutions" / package / f"{package}.ipynb"
    (tmp_path / "chapters" / package / notebook.name).write_bytes(notebook.read_bytes())
    return tmp_path


def test_each_request_shows_one_stage_more_and_the_last_stays(tmp_path: Path) -> None:
    repo = _fake_repo(tmp_path)
    task = chapter(4).task("4.2")
    stages = (*task.hints, "the notebook's section")
    shown = [hints.hint("4.2", repo=repo) for _ in range(len(stages) + 1)]
    for i, text in enumerate(shown[: len(stages)], start=1):
        assert f"hint {i} of {len(stages)}" in text
    assert " ".join(task.idea.split()) in " ".join(shown[0].split())
    assert " ".join(task.hint.split()) in " ".join(shown[1].split())
    assert "§4 The ready stack" in shown[-2] and "that was the last hint" in shown[-2]
    assert shown[-1] == shown[-2]
    assert json.loads(hints.record_path(repo).read_text()) == {"4.2": len(stages)}


def test_a_level_shows_a_stage_again_without_moving_on(tmp_path: Path) -> None:
    repo = _fake_repo(tmp_path)
    first = hints.hint("4.2", repo=repo)
    assert hints.hint("4.2", 1, repo=repo) == first
    assert "hint 2 of" in hints.hint("4.2", repo=repo)  # the level did not advance the record
    with pytest.raises(ValueError, match=r"task 4\.2 has hints 1 to"):
        hints.hint("4.2", 9, repo=repo)
    assert "hint 1 of" in hints.hint("4.2", reset=True, repo=repo)
    hints.hint("4.2", repo=repo)
    hints.hint("4.2", 2, reset=True, repo=repo)  # a reset with a level is kept too
    assert "hint 1 of" in hints.hint("4.2", repo=repo)


def test_an_unknown_task_is_named() -> None:
    with pytest.raises((KeyError, ValueError), match="9"):
        hints.hint("9.9")


@pytest.mark.parametrize("content", ["{not json", '["a list"]', '{"4.2": "two"}', ""])
def test_an_unreadable_record_starts_over_and_is_replaced_whole(
    tmp_path: Path, content: str
) -> None:
    repo = _fake_repo(tmp_path)
    path = hints.record_path(repo)
    path.parent.mkdir()
    path.write_text(content)
    assert "hint 1 of" in hints.hint("4.2", repo=repo)
    assert json.loads(path.read_text()) == {"4.2": 1}
    assert [p.name for p in path.parent.iterdir()] == ["hints.json"]  # no temporary left


def test_the_command_line_and_its_errors(tmp_path: Path) -> None:
    run = [sys.executable, "-m", "autograder", "hint"]
    ok = subprocess.run([*run, "1.2", "--level", "1"], capture_output=True, text=True, cwd=REPO)
    assert ok.returncode == 0 and "Task 1.2" in ok.stdout and "hint 1 of" in ok.stdout
    bad = subprocess.run([*run, "1.2", "--level", "0"], capture_output=True, text=True, cwd=REPO)
    assert bad.returncode == 2 and "hints 1 to" in bad.stderr


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_every_task_has_an_idea_in_words_before_its_recipe(task) -> None:
    """Issue 29: the first hint asked for is the idea, not the code: it holds no line of the
    reference's code for the task, and it is not the recipe again."""
    assert task.idea, f"task {task.id} has no idea stage"
    assert task.idea != task.hint
    shown = shows_code(task.idea, int(task.id.split(".")[0]), task.id)
    assert not shown, shown

"""GitHub Classroom's autograding workflow (``tools/classroom.py``, shipped by the release as
``.github/workflows/classroom.yml``): its shape is the one Classroom reads, and its own
commands, run in a built release the way the command grader runs them, award each task
what ``python -m autograder check N`` (``make chapter-N``) reports, all or nothing.

The command grader (classroom-resources/autograding-command-grader@v1, src/main.js) runs a
step's command with ``/bin/sh -c`` and an environment of only ``PATH``, ``HOME`` and
``FORCE_COLOR`` (and two .NET settings), and awards ``max-score`` when it exits 0, else 0.
The runs below do the same, with ``python`` on ``PATH`` meaning this interpreter.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.course import CHAPTERS, chapter
from tools import classroom, release

yaml = pytest.importorskip("yaml")

REPO = Path(__file__).resolve().parent.parent
GRADER = "classroom-resources/autograding-command-grader@v1"
REPORTER = "classroom-resources/autograding-grading-reporter@v1"
# GitHub's own rule for ids ("IDs may only contain alphanumeric characters, '_', and '-'. IDs
# must start with a letter or '_' and must be less than 100 characters"), and the
# reporter's pattern for its runner list (src/main.js: letters and digits, comma-separated)
GITHUB_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,98}")
RUNNER = re.compile(r"[A-Za-z0-9]+")
NAME_LIMIT = 100  # ours: GitHub cuts long step names in its log view
TASK_LINE = re.compile(r"^\s+\S+\s+(\d+\.\d+)\s.*\s(\d+(?:\.\d+)?) / (\d+)\b")
TOTAL_LINE = re.compile(r"tasks passed \S ([\d.]+) / (\d+) points")


def _job(text: str) -> dict:
    data = yaml.safe_load(text)
    assert list(data["jobs"]) == ["run-autograding-tests"]
    return data["jobs"]["run-autograding-tests"]


def _task_steps(text: str) -> list[dict]:
    return [s for s in _job(text)["steps"] if s.get("uses") == GRADER]


# -- the workflow's shape ------------------------------------------------------------------


@pytest.mark.parametrize("number", [ch.number for ch in CHAPTERS])
def test_every_chapter_has_one_step_per_task_worth_its_points(number):
    ch = chapter(number)
    text = classroom.workflow(number)
    data = yaml.safe_load(text)
    assert data["name"] == "Autograding Tests"  # Classroom reads this name only
    assert data["on"] == ["push", "workflow_dispatch", "repository_dispatch"]
    assert data["permissions"] == {"checks": "write", "actions": "read", "contents": "read"}
    steps = _task_steps(text)
    assert [s["with"]["command"] for s in steps] == [
        f"python -m autograder check {number} --task {t.id}" for t in ch.tasks
    ]
    assert [s["with"]["max-score"] for s in steps] == [t.points for t in ch.tasks]
    assert sum(s["with"]["max-score"] for s in steps) == sum(t.points for t in ch.tasks) > 0
    for step, task in zip(steps, ch.tasks, strict=True):
        assert step["name"] == step["with"]["test-name"] == f"Task {task.id}: {task.title}"
        assert len(step["name"]) < NAME_LIMIT
        assert isinstance(step["with"]["timeout"], int) and step["with"]["timeout"] >= 5


@pytest.mark.parametrize("number", [ch.number for ch in CHAPTERS])
def test_the_reporter_reads_every_step(number):
    steps = _job(classroom.workflow(number))["steps"]
    ids = [s["id"] for s in steps if s.get("uses") == GRADER]
    assert len(set(ids)) == len(ids)
    assert all(GITHUB_ID.fullmatch(i) and RUNNER.fullmatch(i) for i in ids)
    (reporter,) = [s for s in steps if s.get("uses") == REPORTER]
    assert reporter is steps[-1]
    assert reporter["with"]["runners"].split(",") == ids
    assert reporter["env"] == {
        f"{i.upper()}_RESULTS": f"${{{{steps.{i}.outputs.result}}}}" for i in ids
    }
    assert all(
        re.fullmatch(r"[A-Z_][A-Z0-9_]*", k) and not k.startswith("GITHUB_")
        for k in reporter["env"]
    )


def test_setup_installs_only_what_the_checks_need_at_the_course_pins():
    steps = _job(classroom.workflow(1))["steps"]
    assert steps[0]["uses"].startswith("actions/checkout@")
    assert steps[1]["uses"].startswith("actions/setup-python@")
    assert steps[1]["with"]["python-version"] == "3.11"
    words = re.findall(r"'([^']*)'", steps[2]["run"])
    pins = [
        line.strip()
        for line in (REPO / "requirements.txt").read_text(encoding="utf-8").splitlines()
        if re.match(r"(numpy|matplotlib|tqdm)\b", line)
    ]
    assert words == pins and len(pins) >= 3
    assert steps[2]["run"].startswith("python -m pip install ")


def test_the_text_is_deterministic_and_quotes_what_yaml_would_misread():
    here = [classroom.workflow(ch.number) for ch in CHAPTERS]
    code = (
        "import sys; from autograder.course import CHAPTERS; from tools import classroom; "
        "sys.stdout.write('\\0'.join(classroom.workflow(c.number) for c in CHAPTERS))"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}  # another process, other set orders
    there = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True
    )
    assert there.stdout.split("\0") == here
    text = classroom.workflow(1)
    assert '\n"on":\n' in text  # bare `on:` is the boolean true to YAML 1.1 readers
    assert text.endswith("\n") and "\t" not in text


# -- a built release, its commands run -----------------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("classroom") / "release"
    release.release(out, read_ahead=False, classroom=1)
    return out


def test_the_release_carries_every_chapter_and_chapter_1_active(built):
    for ch in CHAPTERS:
        path = built / ".github" / "classroom" / f"ch{ch.number:02d}.yml"
        assert path.read_text(encoding="utf-8") == classroom.workflow(ch.number)
    active = built / ".github" / "workflows" / "classroom.yml"
    assert active.read_bytes() == (built / ".github" / "classroom" / "ch01.yml").read_bytes()


@pytest.fixture(scope="module")
def python_dir(tmp_path_factory) -> Path:
    """A folder whose ``python`` is this interpreter (a script, not a link: a link to a
    virtual environment's python loses the environment)."""
    folder = tmp_path_factory.mktemp("bin")
    script = folder / "python"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    script.chmod(0o755)
    return folder


def _sh(command: str, cwd: Path, python_dir: Path) -> subprocess.CompletedProcess:
    """``command`` as the command grader runs it: ``/bin/sh -c``, its short environment."""
    home = cwd.parent / "home"
    home.mkdir(exist_ok=True)
    env = {"PATH": f"{python_dir}:/usr/bin:/bin", "HOME": str(home), "FORCE_COLOR": "true"}
    return subprocess.run(
        ["/bin/sh", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


def _classroom_points(tree: Path, number: int, python_dir: Path) -> dict[str, int]:
    """Each task's points as Classroom awards them: the step's max-score if its command exits
    0, else 0 (task ids read from the step's command)."""
    text = (tree / ".github" / "classroom" / f"ch{number:02d}.yml").read_text(encoding="utf-8")
    points = {}
    for step in _task_steps(text):
        run = _sh(step["with"]["command"], tree, python_dir)
        assert run.returncode in (0, 1), run.stdout + run.stderr  # 2: the command is wrong
        task_id = step["with"]["command"].rsplit(" ", 1)[1]
        points[task_id] = step["with"]["max-score"] if run.returncode == 0 else 0
    return points


def _report_points(tree: Path, number: int, python_dir: Path) -> tuple[dict, float, int]:
    """``python -m autograder check N``'s report, read: (task id → (points, max)), the
    total and the maximum it prints."""
    run = _sh(f"python -m autograder check {number}", tree, python_dir)
    assert run.returncode in (0, 1), run.stdout + run.stderr
    tasks = {}
    for line in run.stdout.splitlines():
        match = TASK_LINE.match(line)
        if match:
            tasks[match.group(1)] = (float(match.group(2)), int(match.group(3)))
    total = TOTAL_LINE.search(run.stdout)
    assert total, run.stdout
    return tasks, float(total.group(1)), int(total.group(2))


def _work_copy(built: Path, tmp_path: Path) -> Path:
    tree = tmp_path / "repo"
    shutil.copytree(built, tree)
    return tree


def _reference(tree: Path, rel: str) -> Path:
    """Chapter code from the reference, put in the student's place."""
    target = tree / "chapters" / rel
    shutil.copyfile(REPO / "solutions" / rel, target)
    return target


def test_a_passing_and_a_failing_task_exit_0_and_1(built, tmp_path, python_dir):
    tree = _work_copy(built, tmp_path)
    _reference(tree, "ch01_value/numerical.py")  # task 1.1
    assert _sh("python -m autograder check 1 --task 1.1", tree, python_dir).returncode == 0
    assert _sh("python -m autograder check 1 --task 1.2", tree, python_dir).returncode == 1


@pytest.mark.slow
def test_chapter_1_partly_done_scores_as_make_chapter_1(built, tmp_path, python_dir):
    tree = _work_copy(built, tmp_path)
    _reference(tree, "ch01_value/numerical.py")  # 1.1
    _reference(tree, "ch01_value/value.py")  # 1.2–1.6 and 1.8, which calls 1.7 (a stub)
    ours = _classroom_points(tree, 1, python_dir)
    theirs, total, maximum = _report_points(tree, 1, python_dir)
    assert ours == {task: int(points) for task, (points, _) in theirs.items()}
    assert sum(ours.values()) == total == 70
    assert maximum == sum(t.points for t in chapter(1).tasks) == 100
    assert ours["1.1"] == 10 and ours["1.7"] == 0 and ours["1.8"] == 0  # not started, blocked


@pytest.mark.slow
def test_a_task_with_partial_credit_gets_none_on_classroom(built, tmp_path, python_dir):
    tree = _work_copy(built, tmp_path)
    _reference(tree, "ch01_value/numerical.py")
    value = _reference(tree, "ch01_value/value.py")
    text = value.read_text(encoding="utf-8")
    right = "self.grad += (1 / self.data) * out.grad"  # log's local derivative (task 1.5)
    assert text.count(right) == 1
    value.write_text(text.replace(right, "self.grad += (2 / self.data) * out.grad"), "utf-8")
    ours = _classroom_points(tree, 1, python_dir)
    theirs, total, _ = _report_points(tree, 1, python_dir)
    assert 0 < theirs["1.5"][0] < theirs["1.5"][1]  # exp's check passes, log's fails
    assert ours["1.5"] == 0
    for task, (points, maximum) in theirs.items():
        assert ours[task] == (maximum if points == maximum else 0)
    assert sum(ours.values()) == total - theirs["1.5"][0]


@pytest.mark.slow
def test_chapter_9_untouched_scores_nothing(built, tmp_path, python_dir):
    tree = _work_copy(built, tmp_path)
    ours = _classroom_points(tree, 9, python_dir)
    theirs, total, maximum = _report_points(tree, 9, python_dir)
    assert set(ours) == set(theirs) == {t.id for t in chapter(9).tasks}
    assert set(ours.values()) == {0} and total == 0
    assert maximum == sum(t.points for t in chapter(9).tasks)

"""Student mode end to end: the reference scores everything, untouched stubs score nothing
(and say "not started"), and the checks work in a tree without solutions/."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import notebook, report, versions
from autograder.course import CHAPTERS, chapter
from tests.trees import REPO, SOLUTIONS, run_chapter, statuses, write_stubs

READY = [ch for ch in CHAPTERS if ch.ready]
UNWRITTEN = CHAPTERS[-1]  # made "not written yet" in a copy by removing its task table


@pytest.fixture(scope="module", params=READY, ids=lambda ch: ch.package)
def reference_result(request):
    return run_chapter(request.param.number, SOLUTIONS / request.param.package)


def test_reference_scores_every_point(reference_result) -> None:
    assert reference_result.passed, report.chapter_report(reference_result)
    assert reference_result.points == reference_result.max_points
    # a chapter is 100 points at the course version it arrived in (1.0 for chapters 1-7,
    # 1.2 for chapter 8); tasks that arrived later add their own
    arrived = min((t.task.since for t in reference_result.tasks), key=versions.parse)
    first = [t.task.points for t in reference_result.tasks if t.task.since == arrived]
    assert sum(first) == 100
    assert reference_result.max_points == sum(t.task.points for t in reference_result.tasks)
    assert all(len(t.checks) >= 1 for t in reference_result.tasks)


@pytest.fixture(scope="module", params=READY, ids=lambda ch: ch.package)
def stub_result(request, tmp_path_factory: pytest.TempPathFactory):
    tree = write_stubs(tmp_path_factory.mktemp("stubs"))
    return run_chapter(request.param.number, tree / request.param.package)


def test_fresh_stubs_score_zero_without_crashing(stub_result) -> None:
    number, tasks = stub_result.chapter.number, stub_result.chapter.tasks
    assert stub_result.points == 0
    assert set(statuses(stub_result).values()) == {"not started"}
    text = report.chapter_report(stub_result)
    assert f"0 of {len(tasks)} tasks passed" in text and "Traceback" not in text
    assert f"Next up: task {number}.1" in text


def test_every_check_of_a_stub_stops_at_its_own_marker(stub_result) -> None:
    for task in stub_result.tasks:
        for check in task.checks:
            assert check.status in ("not started", "blocked"), (check.check.name, check.message)


def test_report_of_a_failure_shows_case_expected_received_hint() -> None:
    from autograder.verdict import judge

    reference_result = run_chapter(1, SOLUTIONS / "ch01_value", tasks=["1.2"])
    task = reference_result.tasks[0]  # 1.2
    check = task.checks[0].check
    cases = check.make_cases(0)
    from autograder.runner import CheckRun

    wrong = [{"value": {"type_name": "Value", "out_data": 0.0}} for _ in cases]
    task.checks[0] = judge(check, cases, CheckRun("ran", results=wrong))
    text = "\n".join(report.task_details(task))
    assert "case 1 of" in text and cases[0].shown() in text
    assert "out.data: expected -1, received 0" in text
    assert "more:" in text and "make hint TASK=1.2" in text and "§3 of the notebook" in text
    recipe = " ".join(chapter(1).task("1.2").hint.split())
    assert recipe not in " ".join(text.split())  # the recipe is shown only on request


def _release_like(tmp: Path) -> Path:
    """What a learner without solutions/ has: stubs, the autograder, no reference."""
    shutil.copytree(
        REPO / "autograder", tmp / "autograder", ignore=shutil.ignore_patterns("__pycache__")
    )
    write_stubs(tmp / "chapters")
    # a release records the course version its stubs are at, as the generator does
    (tmp / "chapters" / versions.VERSION_FILE).write_text(versions.current().text())
    return tmp


def _run(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k != "SPARROW_IMPL"} | env
    return subprocess.run(
        [sys.executable, "-m", "autograder", *args],
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_checks_work_without_solutions(tmp_path: Path) -> None:
    tree = _release_like(tmp_path)
    out = _run(["check", "1"], tree)
    assert out.returncode == 1, out.stderr
    assert "0 of 8 tasks passed" in out.stdout and "not started" in out.stdout
    shutil.rmtree(tree / "chapters" / "ch01_value")
    shutil.copytree(SOLUTIONS / "ch01_value", tree / "chapters" / "ch01_value")
    out = _run(["check", "1"], tree)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "8 of 8 tasks passed" in out.stdout
    out = _run(["check", "1", "--impl", "solutions"], tree)
    assert out.returncode == 2 and "no" in out.stderr and "solutions" in out.stderr


def test_switch_selects_the_reference(tmp_path: Path) -> None:
    out = _run(["check", "1", "--task", "1.1"], REPO, SPARROW_IMPL="solutions")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "checked: solutions/ch01_value" in out.stdout
    assert "Task 1.1 passes" in out.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["check", str(len(CHAPTERS) + 1)], f"there is no chapter '{len(CHAPTERS) + 1}'"),
        (["check", str(UNWRITTEN.number)], "not written yet"),
        (["check", "1", "--task", "1.99"], "no task '1.99'"),
    ],
)
def test_command_line_errors_are_clear(args: list[str], message: str, tmp_path: Path) -> None:
    tree = _release_like(tmp_path)
    (tree / "autograder" / "tasks" / f"{UNWRITTEN.package}.py").unlink()
    out = _run(args, tree)
    assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr


def test_progress_shows_the_course_map(tmp_path: Path) -> None:
    out = _run(["progress"], _release_like(tmp_path))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    for ch in CHAPTERS:
        state = f"0/{len(ch.tasks)} tasks" if ch.ready else "coming"
        assert any(ch.title in line and state in line for line in lines), (ch.title, lines)
    assert "Next: task 1.1" in out.stdout


def test_notebook_check_cell(monkeypatch: pytest.MonkeyPatch, capsys, tmp_path: Path) -> None:
    monkeypatch.setenv("SPARROW_IMPL", "solutions")
    notebook.check("1.1")
    assert "Task 1.1 passes" in capsys.readouterr().out
    stubs = write_stubs(tmp_path) / "ch01_value"
    monkeypatch.setattr(
        notebook, "check_student", lambda ch, task_ids=None: run_chapter(1, stubs, tasks=task_ids)
    )
    with pytest.raises(notebook.TaskNotPassed, match=r"task 1\.2"):
        notebook.check("1.2")
    assert "not started" in capsys.readouterr().out


def test_chapter_lookup() -> None:
    assert chapter("01").package == chapter("ch01_value").package == "ch01_value"
    with pytest.raises(ValueError, match=f"chapters are 1–{len(CHAPTERS)}"):
        chapter("0")


def test_every_task_title_fits_the_reports_task_line() -> None:
    """A task line is the mark, the id and the title, padded to the column where the points
    start (``report.task_line``): a longer title pushes its points out of that column."""
    for ch in CHAPTERS:
        for task in ch.tasks:
            left = f"  {'✓':>2} {task.id:<5}{task.title}"
            assert len(left) <= report.WIDTH - 32, (task.id, task.title)

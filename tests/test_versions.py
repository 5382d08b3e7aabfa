"""Course versions (autograder/versions.py): a student tree records the version it is at;
a newer course's tasks show as "new in vX" (never "not started"), the tree keeps its score
at its own version, ``make update`` keeps the work and lists what is new, and a grade pinned
to a version counts that version's tasks and checks alone.

The tests make the next course version of their own (NEXT, after today's NOW; below, 1.0
and 1.1 stand for them): a scratch repository whose chapter 1 gains task 1.9 (a region in
solutions/, a row in the task table) and two checks of version NEXT, one of task 1.9 and
one that tightens task 1.3 beyond what its code of version NOW does."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

from autograder import checking, grading, report, student, versions
from autograder.checking import public_checks
from autograder.course import CHAPTERS, chapter
from autograder.harness.api import Case, Check
from autograder.runner import Limits
from autograder.status import Status
from autograder.stubgen import MARKER, generate
from autograder.tasks import Task
from tests.trees import REPO, scratch_repo
from tools import stubs, update

CH01 = chapter(1)
NOW = versions.COURSE_VERSION  # the course as it is; the tests make the next version of it
MAJOR, MINOR = (*versions.parse(NOW), 0)[:2]
NEXT = f"{MAJOR}.{MINOR + 1}"
NEW = Task("1.9", "value_sum", 5, "§9", "Add the Values one by one, from Value(0.0).", NEXT)
NEW_REGION = '''

def value_sum(values: list[Value]) -> Value:
    """Task 1.9 — the sum of a list of Values, as one Value."""
    ### BEGIN SOLUTION 1.9
    total = Value(0.0)
    for v in values:
        total = total + v
    return total
    ### END SOLUTION
'''
PROGRAMS = '''"""Programs of the checks that the next course version adds (a test's)."""

import importlib


def value_sum(sp, xs):
    module = importlib.import_module(sp.__name__ + ".value")
    return module.value_sum([sp.Value(x) for x in xs]).data


def mul(sp, a, b):
    return (sp.Value(a) * sp.Value(b)).data
'''


def write_stubs(dest: Path, solutions: Path) -> Path:
    for rel, data in generate(solutions).items():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_bytes(data)
    return dest


def _finished(text: str) -> str:
    """A reference file as a student who finished it has it: the marker lines gone."""
    return "".join(line for line in text.splitlines(True) if not MARKER.search(line))


@pytest.fixture
def course_11(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch repository at course 1.0 whose student finished chapters 1–7 (every task
    file written as the reference), then the course at 1.1: task 1.9 and its region in
    solutions/, a check of it and a tightened check of task 1.3, both of version 1.1."""
    repo = scratch_repo(tmp_path / "repo")
    assert versions.read(repo / "chapters") == versions.TreeVersion(NOW, NOW)
    for ch in CHAPTERS:
        for path in sorted((repo / "solutions" / ch.package).rglob("*.py")):
            rel = path.relative_to(repo / "solutions")
            mine = repo / "chapters" / rel
            if mine.read_text() != path.read_text():
                mine.write_text(_finished(path.read_text()))
    # the course moves to 1.1
    monkeypatch.setattr(versions, "COURSE_VERSION", NEXT)
    monkeypatch.setitem(CH01.__dict__, "tasks", [*CH01.tasks, NEW])
    value = repo / "solutions" / "ch01_value" / "value.py"
    value.write_text(value.read_text() + NEW_REGION)
    folder = tmp_path / "programs"
    folder.mkdir()
    (folder / "sparrow_v11_programs.py").write_text(PROGRAMS)
    spec = importlib.util.spec_from_file_location(
        "sparrow_v11_programs", folder / "sparrow_v11_programs.py"
    )
    programs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(programs)
    monkeypatch.setitem(sys.modules, "sparrow_v11_programs", programs)
    checks = types.ModuleType("sparrow_v11_checks")
    checks.CHECKS = [
        Check(
            "1.9",
            "the sum of Values",
            lambda rng: [Case("value_sum([1, 2, 3.5])", {"xs": [1.0, 2.0, 3.5]}, 6.5)],
            programs.value_sum,
            since=NEXT,
        ),
        Check(  # a rule of 1.1 that the 1.0 code does not meet
            "1.3",
            f"a * b, the rule of {NEXT}",
            lambda rng: [Case("Value(2.0) * Value(3.0)", {"a": 2.0, "b": 3.0}, 7.0)],
            programs.mul,
            since=NEXT,
        ),
    ]
    monkeypatch.setitem(sys.modules, "sparrow_v11_checks", checks)
    ones = public_checks(CH01)
    for module in (checking, grading):
        monkeypatch.setattr(
            module, "public_checks", lambda ch: [*public_checks(ch), "sparrow_v11_checks"]
        )
    assert checking.public_checks(CH01) == [*ones, "sparrow_v11_checks"]
    return repo


def test_versions_compare_as_numbers_and_a_tree_without_a_record_is_at_1_0(
    tmp_path: Path,
) -> None:
    assert versions.parse("1.10") > versions.parse("1.9") and versions.parse("v2") == (2,)
    assert versions.at_most("1.0", "1") and versions.newer("1.1", "1.0")
    assert versions.normal("v2") == "2.0"
    with pytest.raises(ValueError, match=r"looks like 1\.0"):
        versions.parse("one")
    assert versions.read(tmp_path) == versions.TreeVersion("1.0", "1.0")
    (tmp_path / versions.VERSION_FILE).write_text("1.2\nstarted 1.0\n")
    assert versions.read(tmp_path) == versions.TreeVersion("1.2", "1.0")
    assert versions.TreeVersion("1.2", "1.0").text() == "1.2\nstarted 1.0\n"
    assert versions.current().text() == f"{versions.COURSE_VERSION}\n"
    with pytest.raises(ValueError, match=r"no version 9\.0 yet"):
        versions.check_pin("9.0")
    # the repository's own tree is at today's version, written by the generator
    assert (REPO / "chapters" / versions.VERSION_FILE).read_text() == versions.current().text()


def test_every_task_and_check_has_a_version_the_course_has_had() -> None:
    """A pin to a task's own version must still grade it: each task keeps a public check
    of its own version (tighten a check by adding one of the new version beside it)."""
    course = versions.parse(versions.COURSE_VERSION)
    for ch in CHAPTERS:
        public = versions.checks_of(public_checks(ch))  # what student mode runs
        checks = public + versions.checks_of(grading.hidden_checks(ch))
        for t in ch.tasks:
            assert versions.parse(versions.BASE_VERSION) <= versions.parse(t.since) <= course
            own = [c for c in public if c.task == t.id and versions.at_most(c.since, t.since)]
            assert own, f"task {t.id} has no check of its own version {t.since}"
        for c in checks:
            assert versions.parse(c.since) <= course, (c.task, c.name, c.since)


def test_a_finished_tree_updated_to_a_newer_course(course_11: Path) -> None:
    """The issue's test: chapters 1–7 finished at today's version, then the update to the
    next."""
    repo, chapters = course_11, course_11 / "chapters"
    before = {rel: (chapters / rel).read_bytes() for rel in update.tree_files(chapters)}
    # make update (the repository's: make stubs)
    lines = stubs.write(repo)
    assert f"course version {NOW} → {NEXT} (chapters/.sparrow-version)" in lines
    assert f"  new in v{NEXT}: task 1.9 — value_sum (§9 of the notebook)" in lines
    merged = next(line for line in lines if line.startswith("merged chapters/ch01_value/value.py"))
    assert "new: value_sum (task 1.9)" in merged and update.NOT_MERGED not in lines
    assert versions.read(chapters) == versions.TreeVersion(NEXT, NOW)
    # the work is kept: every file but value.py as it was, value.py's tasks too
    after = {rel: (chapters / rel).read_bytes() for rel in update.tree_files(chapters)}
    changed = {rel for rel in before if before[rel] != after.get(rel)}
    assert changed == {"ch01_value/value.py", ".manifest.json", versions.VERSION_FILE}
    value = after["ch01_value/value.py"].decode()
    old = before["ch01_value/value.py"].decode()
    assert value.startswith(old.rstrip("\n")) and '"Task 1.9: value_sum' in value
    # a second update finds nothing new and keeps the start
    again = stubs.write(repo)
    assert not [line for line in again if "course version" in line or "new in" in line], again
    assert versions.read(chapters) == versions.TreeVersion(NEXT, NOW)

    # make chapter-1: scored at 1.0 (100), task 1.9 new in v1.1, the tightened check named
    tree = student.tree_version(repo=repo)
    assert tree.started == NOW
    result = student.check(CH01, repo=repo, limits=Limits(cpu_per_check=10.0))
    by_id = {t.task.id: t for t in result.tasks}
    assert by_id["1.9"].status == Status.NOT_STARTED and not result.passed
    text = report.chapter_report(result, tree.started)
    line_19 = next(line for line in text.splitlines() if " 1.9 " in line)
    assert line_19.endswith(f"0 / 5   new in v{NEXT}"), line_19
    assert "not started" not in text.lower()
    assert f"8 of 8 tasks of your version (v{NOW}) passed · 100 / 100 points" in text
    assert f"New since v{NOW}: 0 of 1 tasks passed · 0 / 5 points (1.9 in v{NEXT})" in text
    line_13 = next(line for line in text.splitlines() if " 1.3 " in line)
    assert line_13.endswith(f"10 / 10  passes v{NOW}, fails a v{NEXT} check"), line_13
    assert f"a * b, the rule of {NEXT}" in text and f"this check is of v{NEXT}" in text
    assert f"Chapter 1 is complete at your version, v{NOW}." in text
    assert f"New in v{NEXT}: task 1.9 — value_sum, §9 of the notebook." in text
    # at the tree's own version nothing is newer: the report is the usual one
    assert report.chapter_report(result, NEXT) == report.chapter_report(result)
    assert "Not started: 1.9." in report.chapter_report(result)
    progress = report.progress_report([result], "chapters/", tree.started)
    assert re.search(r"8/8 tasks · 100/100 points · new: 0/1 done", progress), progress
    assert f"Every chapter checked is complete at your version, v{NOW}." in progress
    assert (
        f"  New in v{NEXT}: task 1.9 — value_sum, §9 of the notebook; `make chapter-1`" in progress
    )
    # the same two reports in Chinese (issue 33): none of the English frame is left
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SPARROW_LANG", "zh")
        zh_chapter = report.chapter_report(result, tree.started)
        zh_progress = report.progress_report([result], "chapters/", tree.started)
    assert f"你的版本（v{NOW}）的 8 个任务中通过 8 个 · 100 / 100 分" in zh_chapter, zh_chapter
    assert f"按 v{NOW} 通过，但没通过一项 v{NEXT} 的检查" in zh_chapter
    assert f"第 1 章在你的版本 v{NOW} 上已全部完成。" in zh_chapter
    assert f"v{NEXT} 新增：任务 1.9" in zh_progress and "8/8 个任务 · 100/100 分" in zh_progress
    english = re.compile(r"tasks|points|New |new in|passes v|Chapter \d|complete|Next")
    for text in (zh_chapter, zh_progress):
        assert not english.search(text), english.search(text)

    # make grade pinned to 1.0: the tasks and checks of 1.0 alone, full marks
    stubs_11 = write_stubs(repo / "stubs", repo / "solutions")
    course = grading.CourseTrees(repo / "solutions", stubs_11)
    assert '"Task 1.9: value_sum' in (course.stubs / "ch01_value" / "value.py").read_text()
    pinned = grading.Options(chapter=1, course=course, version=NOW)
    graded = grading.grade_submission(chapters, pinned, repo / "work-pinned", "ada")
    assert graded.status == Status.GRADED, graded.feedback
    assert (graded.points, graded.max_points) == (100, 100)
    assert [t.id for t in graded.tasks] == [t.id for t in CH01.tasks[:8]]
    assert f"course version {NOW} (pinned)" in graded.feedback
    notes = grading.version_notes(pinned)
    assert notes == [
        f"left out, newer than v{NOW}: task 1.9 (v{NEXT}), "
        f'check 1.3 "a * b, the rule of {NEXT}" (v{NEXT})'
    ]
    assert grading.version_notes(grading.Options(chapter=1, course=course))[0].startswith(
        f"applied, newer than v{versions.BASE_VERSION}: task 1.9 (v{NEXT})"
    )


def test_an_untouched_tree_starts_over_at_the_new_version(course_11: Path) -> None:
    """A tree with nothing of the student's in it (the repository's own chapters/) is at the
    new version, with no start of its own; the drift check wants exactly that."""
    fresh = course_11.parent / "fresh"
    shutil.copytree(course_11 / "solutions", fresh / "solutions")
    lines = stubs.write(fresh)  # generated at 1.1: task 1.9 a stub
    assert not [line for line in lines if "course version" in line or "new in" in line], lines
    assert (fresh / "chapters" / versions.VERSION_FILE).read_text() == f"{NEXT}\n"
    assert stubs.drift(fresh / "chapters", generate(fresh / "solutions")) == []
    # the generator's 1.0 tree, updated: untouched, it starts over at 1.1 (the course's text)
    assert stubs.write(course_11) and versions.read(course_11 / "chapters").started == NOW
    old = course_11.parent / "old"
    (old / "chapters").mkdir(parents=True)
    shutil.copytree(course_11 / "solutions", old / "solutions")
    (old / "chapters" / versions.VERSION_FILE).write_text(f"{NOW}\n")
    stubs.write(old)
    assert (old / "chapters" / versions.VERSION_FILE).read_text() == f"{NEXT}\n"


def test_a_pull_that_replaces_the_record_keeps_the_start(tmp_path: Path) -> None:
    """In a clone, ``git pull`` of committed work takes the course's new
    chapters/.sparrow-version; the copy under the ignored .sparrow/ keeps the start, from the
    first check on."""
    repo = tmp_path / "clone"
    (repo / "chapters").mkdir(parents=True)
    (repo / "chapters" / versions.VERSION_FILE).write_text(f"{NOW}\n")
    assert student.tree_version("chapters", repo).started == NOW  # the copy is kept now
    assert (repo / versions.START_COPY).read_text() == f"{NOW}\n"
    (repo / "chapters" / versions.VERSION_FILE).write_text(f"{NEXT}\n")  # what the pull brings
    assert student.tree_version("chapters", repo) == versions.TreeVersion(NEXT, NOW)
    fresh = tmp_path / "fresh"  # a clone made at 1.1 starts there
    (fresh / "chapters").mkdir(parents=True)
    (fresh / "chapters" / versions.VERSION_FILE).write_text(f"{NEXT}\n")
    assert student.tree_version("chapters", fresh).started == NEXT


def test_a_release_records_its_version_and_an_update_reads_the_new_tasks(tmp_path: Path) -> None:
    assert update.release_tasks(REPO) == update.course_tasks()
    assert update.release_tasks(tmp_path) == []  # no course there: nothing listed
    old = versions.TreeVersion("1.0", "1.0")
    tasks = [("1.9", "value_sum", "§9", "1.1"), ("2.12", "later", "§12", "1.2")]
    record, lines = update.version_record(old, "1.1", True, tasks)
    assert record == versions.TreeVersion("1.1", "1.0")
    assert lines == [
        "course version 1.0 → 1.1 (chapters/.sparrow-version)",
        "  new in v1.1: task 1.9 — value_sum (§9 of the notebook)",
    ]
    assert update.version_record(old, "1.1", False, tasks)[0] == versions.TreeVersion("1.1", "1.1")
    assert update.version_record(old, "1.0", True, tasks) == (old, [])


def test_make_grade_passes_the_pin() -> None:
    make = subprocess.run(
        ["make", "-n", "grade", "CHAPTER=1", "SUBMISSIONS=x", "COURSE_VERSION=1.0", "PYTHON=py"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    if make.returncode == 127 or "not found" in make.stderr:
        pytest.skip("make is not installed")
    assert "--course-version 1.0" in make.stdout, make.stdout + make.stderr

"""Instructor mode: ingestion, composite trees, hidden-check text, seeds, the outputs, the
command line, and Gradescope's zip run against a simulated /autograder layout.

Hostile submissions have their own file (tests/test_hostile.py)."""

from __future__ import annotations

import csv
import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from autograder import grading, outputs, sandbox
from autograder.course import CHAPTERS, chapter
from autograder.harness.api import Case, Check
from autograder.ingest import IngestLimits, Rejected, ingest, submissions_in
from autograder.runner import CheckRun, Limits
from autograder.status import Status
from autograder.verdict import judge
from tests.trees import REPO, SOLUTIONS, patch, run_autograder

CH01 = "ch01_value"
MUL = '        out = Value(self.data * other.data, (self, other), "*")\n'


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> grading.CourseTrees:
    return grading.repository_course(tmp_path_factory.mktemp("course"))


def student(root: Path, name: str, source: Path, *, depth: str = "chapters") -> Path:
    """A submission folder ``root/name`` holding ``source`` as ``<depth>/ch01_value``."""
    folder = root / name / depth / CH01
    shutil.copytree(source, folder, ignore=shutil.ignore_patterns("__pycache__", "*.ipynb"))
    return root / name


def zipped(folder: Path, dest: Path) -> Path:
    with zipfile.ZipFile(dest, "w") as archive:
        for path in sorted(folder.rglob("*.py")):
            archive.write(path, path.relative_to(folder.parent).as_posix())
    return dest


def grade(source: Path, course: grading.CourseTrees, tmp: Path, **options) -> grading.Graded:
    opts = grading.Options(chapter=options.pop("number", 1), course=course, **options)
    return grading.grade_submission(source, opts, tmp / f"work-{source.name}")


def points(graded: grading.Graded) -> dict[str, float]:
    return {t.id: t.points for t in graded.tasks}


# -- ingestion -----------------------------------------------------------------------------


def test_ingest_copies_only_python_files_and_skips_links(tmp_path: Path) -> None:
    sub = student(tmp_path, "ada", SOLUTIONS / CH01, depth="deep/er/chapters")
    (sub / "notes.txt").write_text("not code")
    (sub / "deep" / "link.py").symlink_to(SOLUTIONS / CH01 / "value.py")
    copy = ingest(sub, tmp_path / "copy")
    assert set(copy.packages) == {CH01}
    assert copy.packages[CH01].relative_to(copy.root).as_posix() == "deep/er/chapters/ch01_value"
    assert not list(copy.root.rglob("*.txt"))
    assert not any(p.is_symlink() for p in copy.root.rglob("*"))
    assert any("symbolic link deep/link.py" in note for note in copy.notes)


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("../evil.py", "unsafe path"),
        ("/etc/evil.py", "unsafe path"),
        ("chapters/../../evil.py", "unsafe path"),
        ("C:/evil.py", "unsafe path"),
    ],
)
def test_zip_slip_is_refused_before_anything_is_written(
    tmp_path: Path, name: str, reason: str
) -> None:
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(bad, "w") as archive:
        archive.writestr("chapters/ch01_value/value.py", "x = 1\n")
        archive.writestr(name, "import os\n")
    with pytest.raises(Rejected, match=reason):
        ingest(bad, tmp_path / "copy")
    assert not (tmp_path / "evil.py").exists()


def test_zip_bomb_and_too_many_files_are_refused(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("chapters/ch01_value/value.py", b"#" * (4 * 2**20))  # 4 KiB packed
    assert bomb.stat().st_size < 64 * 1024
    with pytest.raises(Rejected, match="larger than"):
        ingest(bomb, tmp_path / "a")
    many = tmp_path / "many.zip"
    with zipfile.ZipFile(many, "w") as archive:
        for i in range(30):
            archive.writestr(f"chapters/ch01_value/f{i}.py", "")
    with pytest.raises(Rejected, match=r"more than 20 \.py files"):
        ingest(many, tmp_path / "b", IngestLimits(max_files=20))


def test_zip_link_entries_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "links.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("chapters/ch01_value/value.py", "x = 1\n")
        link = zipfile.ZipInfo("chapters/ch01_value/graph.py")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, str(SOLUTIONS / CH01 / "graph.py"))
    copy = ingest(path, tmp_path / "copy")
    assert not (copy.packages[CH01] / "graph.py").exists()
    assert any("symbolic link" in n for n in copy.notes)


def test_names_a_submission_chose_print_safely(tmp_path: Path) -> None:
    sub = student(tmp_path, "odd", SOLUTIONS / CH01)
    odd = os.fsencode(sub / "chapters" / CH01) + b"/\xff\x1b[2J.py"
    os.symlink(b"/etc/passwd", odd)
    copy = ingest(sub, tmp_path / "copy")
    (note,) = [n for n in copy.notes if "symbolic link" in n]
    assert "\x1b" not in note and note.isprintable() and note.isascii()
    outputs.write_atomic(tmp_path / "out.txt", "\udcff text a report could hold")
    assert (tmp_path / "out.txt").read_text() == "\\udcff text a report could hold"


def test_a_batch_lists_folders_and_zips_and_refuses_a_missing_folder(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "a.zip").write_bytes(b"")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / "readme.txt").write_text("")
    assert [p.name for p in submissions_in(tmp_path)] == ["a.zip", "b"]
    with pytest.raises(FileNotFoundError, match="no folder"):
        submissions_in(tmp_path / "nope")


# -- composite trees and grades ------------------------------------------------------------


def test_correct_partial_stub_and_empty_submissions(course, tmp_path: Path) -> None:
    correct = grade(student(tmp_path, "correct", SOLUTIONS / CH01), course, tmp_path)
    assert correct.status == "graded" and correct.points == correct.max_points == 100

    broken = student(tmp_path, "broken", SOLUTIONS / CH01)
    patch(broken / "chapters" / CH01 / "value.py", MUL, MUL.replace("*", "+", 1))
    partial = grade(broken, course, tmp_path)
    assert points(partial)["1.3"] == 0 and points(partial)["1.2"] == 10
    assert 0 < partial.points < 100
    assert "Task 1.3" in partial.feedback and "make hint TASK=1.3" in partial.feedback

    stubs = grade(student(tmp_path, "stubs", course.stubs / CH01), course, tmp_path)
    assert stubs.points == 0 and all(t.status == "not started" for t in stubs.tasks)

    (tmp_path / "empty").mkdir()
    empty = grade(tmp_path / "empty", course, tmp_path)
    assert empty.status == "not graded" and "no chapters/ch01_value/" in empty.reason


def test_given_files_are_the_courses_own(course, tmp_path: Path) -> None:
    """A changed given file (nn.py holds no task) neither breaks nor helps a grade; a
    missing task file is graded as its stub."""
    sub = student(tmp_path, "given", SOLUTIONS / CH01)
    (sub / "chapters" / CH01 / "nn.py").write_text("raise ImportError('sabotage')\n")
    (sub / "chapters" / CH01 / "numerical.py").unlink()
    graded = grade(sub, course, tmp_path)
    assert "nn.py" not in grading.task_files(course.stubs / CH01)
    assert {"value.py", "graph.py", "numerical.py"} <= grading.task_files(course.stubs / CH01)
    assert "differ from the course's copy were graded as the course's own: nn.py" in graded.reason
    assert "missing from your submission (graded as stubs): numerical.py" in graded.reason
    assert graded.status == "graded"
    assert points(graded)["1.1"] == 0 and graded.points == 90


def test_line_ends_of_a_given_file_are_not_a_change(course, tmp_path: Path) -> None:
    """A Windows checkout (CRLF) or an editor that trims line ends changes no given file:
    a correct submission is told nothing about it."""
    sub = student(tmp_path, "crlf", SOLUTIONS / CH01)
    for path in (sub / "chapters" / CH01).glob("*.py"):
        text = path.read_bytes().replace(b"\n", b"  \r\n")
        path.write_bytes(text)
    graded = grade(sub, course, tmp_path)
    assert graded.points == 100 and graded.reason == "", graded.feedback
    assert "About your submission" not in graded.feedback


def test_a_zip_made_by_macos_finder_is_a_plain_submission(course, tmp_path: Path) -> None:
    """Finder's Compress adds ``__MACOSX/…/._value.py`` resource forks: not a second copy
    of the chapter to tell the student about."""
    archive = tmp_path / "mac.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in sorted((SOLUTIONS / CH01).glob("*.py")):
            zf.writestr(f"sparrow/chapters/{CH01}/{path.name}", path.read_bytes())
            fork = b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        "
            zf.writestr(f"__MACOSX/sparrow/chapters/{CH01}/._{path.name}", fork)
    graded = grade(archive, course, tmp_path)
    assert graded.points == 100 and graded.reason == "", graded.feedback


def test_isolated_grading_uses_the_reference_below_and_integrated_the_students(
    course, tmp_path: Path
) -> None:
    sub = tmp_path / "ch2"
    shutil.copytree(SOLUTIONS / "ch02_tensor", sub / "chapters" / "ch02_tensor")
    isolated = grade(sub, course, tmp_path, number=2)
    assert isolated.points == 100 and not isolated.reason
    integrated = grade(sub, course, tmp_path / "i", number=2, integrated=True)
    assert "chapter 1 is missing: graded as its stubs" in integrated.reason
    assert integrated.points == 100  # chapter 2's checks never need chapter 1


# -- hidden checks -------------------------------------------------------------------------


def test_hidden_verdicts_carry_only_the_parents_text() -> None:
    secret = "SECRET-FROM-THE-CHILD"
    check = Check("1.3", "a * b (hidden)", lambda rng: [], lambda sp: None)
    case = Case("a product of two negative numbers", {}, 6.0)
    ran = [
        CheckRun(Status.RAN, [{"value": secret}], printed=secret),
        CheckRun(
            Status.RAN, [{"raised": {"type": "ValueError", "message": secret, "where": secret}}]
        ),
        CheckRun(Status.RAN, [{"raised": {"type": secret, "message": secret}}]),
        CheckRun(Status.CRASHED, detail=f"its last output:\n{secret}"),
        CheckRun(Status.IMPORT_ERROR, error={"type": "SyntaxError", "message": secret}),
        CheckRun(
            Status.RAN, [{"raised": {"type": "NotImplementedError", "not_started": "1.98765"}}]
        ),
    ]
    messages = []
    for run in ran:
        public, hidden = judge(check, [case], run), judge(check, [case], run, hidden=True)
        if "not_started" not in str(run.results):
            assert secret in public.message + public.where + public.printed  # shown if public
        text = hidden.message + hidden.where + hidden.printed + hidden.blocked_by
        assert secret not in text and "98765" not in text and hidden.hidden
        messages.append(hidden.message)
    assert messages[1] == "raised ValueError"
    assert messages[2] == "raised an exception"  # a type name the child made up is not shown
    assert messages[5] == "raised NotImplementedError"  # a made-up task id blocks nothing


def test_a_comparison_that_cannot_take_the_data_fails_that_check_only() -> None:
    check = Check("2.1", "a + b", lambda rng: [], lambda sp: None)
    case = Case("a + b", {}, {"requires_grad": True})
    run = CheckRun(Status.RAN, [{"value": {"requires_grad": np.array([True, True])}}])
    verdict = judge(check, [case], run)
    assert verdict.status == "failed" and "could not compare" in verdict.message


def test_every_file_with_a_task_region_is_a_task_file(course) -> None:
    """What the grader takes from a submission is what the stub generator made a task of."""
    for package in ("ch01_value", "ch02_tensor", "ch03_broadcast", "ch04_backward"):
        marked = {
            p.relative_to(SOLUTIONS / package).as_posix()
            for p in (SOLUTIONS / package).rglob("*.py")
            if "### BEGIN SOLUTION" in p.read_text()
        }
        assert marked and grading.task_files(course.stubs / package) == marked


def test_the_secret_seed_changes_hidden_and_public_cases_and_is_never_printed(
    course, tmp_path: Path
) -> None:
    for ch in (chapter(1), chapter(2), chapter(3)):
        modules = grading.hidden_checks(ch)
        assert modules, f"chapter {ch.number} has no hidden checks"
    import autograder.hidden.ch01_value as hidden

    check = hidden.CHECKS[0]
    assert check.make_cases(0) != check.make_cases(987654321) or all(
        not c.inputs for c in check.make_cases(0)
    )
    graded = grade(student(tmp_path, "seeded", SOLUTIONS / CH01), course, tmp_path, seed=987654321)
    assert graded.points == 100
    assert "987654321" not in graded.feedback and "secret seed" in graded.feedback
    options = grading.Options(chapter=1, course=course, seed=987654321)
    import hashlib

    fingerprint = hashlib.sha256(b"987654321").hexdigest()[:8]
    student_facing = graded.feedback + json.dumps(outputs.results_json(graded, options))
    assert fingerprint not in student_facing  # a short seed's fingerprint can be searched
    assert fingerprint in outputs.csv_row(graded, options)["seed"]  # the instructor's CSV
    with pytest.raises(ValueError, match="non-negative"):
        grading.check_seed(-5)


def test_an_instructors_extra_checks_are_graded_like_hidden_ones(course, tmp_path: Path) -> None:
    extra = tmp_path / "mine" / CH01
    extra.mkdir(parents=True)
    (extra / "programs.py").write_text(
        "def triple(sp, a):\n    x = sp.Value(a)\n    return (x + x + x).data\n"
    )
    (extra / "__init__.py").write_text(
        "from autograder.harness.api import Case, Check\n"
        "from . import programs\n\n"
        "def _cases(rng):\n"
        "    a = float(rng.uniform(-3, 3))\n"
        "    return [Case('x + x + x for some x', {'a': a}, 3 * a)]\n\n"
        "CHECKS = [Check('1.2', 'x + x + x (instructor)', _cases, programs.triple)]\n"
    )
    sub = student(tmp_path, "extra", SOLUTIONS / CH01)
    patch(sub / "chapters" / CH01 / "value.py", "self.data + other.data", "self.data + 1.0")
    graded = grade(sub, course, tmp_path, extra_checks=tmp_path / "mine")
    task = next(t for t in graded.tasks if t.id == "1.2")
    assert task.points == 0
    with_extra = grading.suite_version(tmp_path / "mine")
    assert with_extra != grading.suite_version()


# -- a batch, its outputs, regrading one ---------------------------------------------------


@pytest.fixture(scope="module")
def batch(course, tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("batch")
    subs = root / "subs"
    student(subs, "correct", SOLUTIONS / CH01)
    zipped(student(root / "src", "zipped", SOLUTIONS / CH01) / "chapters", subs / "zipped.zip")
    student(subs, "stubs", course.stubs / CH01)
    broken = student(subs, "broken", SOLUTIONS / CH01)
    patch(broken / "chapters" / CH01 / "value.py", MUL, MUL.replace("*", "+", 1))
    options = grading.Options(chapter=1, course=course, limits=Limits(cpu_per_check=5))
    graded = grading.grade_all(submissions_in(subs), options, jobs=2)
    out = root / "out"
    outputs.write_batch(out, graded, chapter(1), options, 2, merge=False)
    return subs, out, options, graded


def test_the_batch_scores_and_outputs(batch) -> None:
    _, out, _, graded = batch
    scores = {g.name: g.points for g in graded}
    assert scores["correct"] == scores["zipped"] == 100 and scores["stubs"] == 0
    assert 0 < scores["broken"] < 100
    with open(out / "grades.csv", newline="") as file:
        rows = list(csv.DictReader(file))
    assert [r["submission"] for r in rows] == ["broken", "correct", "stubs", "zipped"]
    assert rows[0]["task 1.3"] == "0" and rows[0]["task 1.2"] == "10"
    assert {r["status"] for r in rows} == {"graded"}
    assert rows[0]["seed"] == "public (0)" and rows[0]["check suite"] and rows[0]["confinement"]
    result = json.loads((out / "gradescope" / "broken.json").read_text())
    assert result["score"] == scores["broken"] and result["max_score"] == 100
    test = next(t for t in result["tests"] if t["number"] == "1.3")
    assert test["status"] == "failed" and test["score"] == 0
    assert "make hint TASK=1.3" in test["output"]
    assert {"name", "score", "max_score", "status", "output", "visibility"} <= set(test)
    feedback = (out / "feedback" / "stubs.txt").read_text()
    assert "not started" in feedback and "seed: public (0)" in feedback
    assert "check suite" in feedback and "CPU seconds per check" in feedback
    assert "confinement:" in feedback
    summary = (out / "summary.txt").read_text()
    assert "4 submissions" in summary and "most failed" in summary and "confinement:" in summary
    assert summary.index("1.3 ") < summary.index("1.1 ")  # 1.3 failed more often than 1.1


def test_grading_is_deterministic_and_one_submission_can_be_regraded_alone(batch) -> None:
    subs, out, options, graded = batch
    before = (out / "grades.csv").read_text()
    (again,) = grading.grade_all([subs / "broken"], options, jobs=1)
    first = next(g for g in graded if g.name == "broken")
    assert [(t.id, t.points, t.output) for t in again.tasks] == [
        (t.id, t.points, t.output) for t in first.tasks
    ]
    outputs.write_batch(out, [again], chapter(1), options, 1, merge=True)
    assert (out / "grades.csv").read_text() == before


def test_the_command_line_grades_a_batch_and_regrades_one(
    batch, tmp_path: Path, grade_args: list[str]
) -> None:
    subs, *_ = batch
    out = tmp_path / "grades"
    command = [sys.executable, "-m", "autograder", "grade", "1", str(subs), "--out", str(out)]
    command += grade_args  # `auto` refuses a fallback that keeps your own user
    done = subprocess.run(
        [*command, "--jobs", "2"], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "[4/4]" in done.stdout and "distribution:" in done.stdout
    assert (out / "grades.csv").is_file() and len(list((out / "feedback").iterdir())) == 4
    # no seed given: a fresh secret one, kept for the instructor alone, outside feedback/
    kept = out / "seed.txt"
    assert "a fresh secret seed, kept in" in done.stderr and kept.is_file()
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600 and int(kept.read_text()) != 0
    assert "secret (fingerprint" in (out / "summary.txt").read_text()
    drawn = kept.read_text()
    one = subprocess.run(
        [*command, "--only", "stubs"], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert one.returncode == 0 and "[1/1] stubs" in one.stdout
    assert f"from {kept}" in one.stderr and kept.read_text() == drawn  # the regrade reuses it
    assert "4 submissions" in (out / "summary.txt").read_text()
    bad = subprocess.run(
        [*command[:5], str(tmp_path / "nowhere")], cwd=REPO, capture_output=True, text=True
    )
    assert bad.returncode == 2 and "no folder" in bad.stderr


def test_only_picks_a_submission_by_its_name_in_the_batch(
    tmp_path: Path, grade_args: list[str]
) -> None:
    subs = tmp_path / "subs"
    student(subs, "ada", SOLUTIONS / CH01)
    zipped(student(tmp_path / "src", "ada", SOLUTIONS / CH01) / "chapters", subs / "ada.zip")
    assert grading.unique_names(submissions_in(subs)) == ["ada", "ada-2"]  # ada/, ada.zip
    command = [sys.executable, "-m", "autograder", "grade", "1", str(subs), "--only", "ada-2"]
    command += ["--out", str(tmp_path / "out"), "--cpu-limit", "5", *grade_args]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "[1/1] ada-2" in done.stdout, done.stdout + done.stderr
    wrong = subprocess.run(
        [*command[:6], "--only", "eve"], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert wrong.returncode == 2 and "ada, ada-2" in wrong.stderr


# -- confinement ---------------------------------------------------------------------------


def test_the_confinement_is_named_in_every_grade(course, tmp_path: Path) -> None:
    graded = grade(
        student(tmp_path, "fb", SOLUTIONS / CH01), course, tmp_path, confinement="fallback"
    )
    assert graded.points == 100 and graded.confinement.startswith("fallback")
    if os.geteuid() == 0:  # dropped to 65534, or says why it could not
        assert graded.confinement.endswith("runs as uid 65534") or "impossible" in (
            graded.confinement
        )


# What a correct submission's outputs must never carry: any outcome but passing, and the
# grader's words for what went wrong or what it had to clean up after.
NEVER_FOR_CORRECT = sorted(
    {s.value for s in Status if s not in (Status.PASSED, Status.RAN)}
    | {
        "ended",
        "left running",
        "About your submission",
        "discarded",
        "changed the grader",
        "flagged",  # for review: what the grader saw the code do (issue 26)
        "printed:",
        "make hint",
        "raised",
        "Not graded",
        "please report",
        "expected",
        "warning",
    }
)


def _never_said(text: str, where: str) -> None:
    said = [phrase for phrase in NEVER_FOR_CORRECT if phrase.lower() in text.lower()]
    assert not said, f"{where} says {said}:\n{text}"


@pytest.mark.slow  # every chapter graded twice (the slow suite and .ci/run's bwrap rerun run it)
@pytest.mark.parametrize("kind", ["bubblewrap", "fallback"])
def test_the_reference_is_told_nothing_it_should_not_be(
    course, tmp_path: Path, kind: str, request: pytest.FixtureRequest
) -> None:
    """Each ready chapter's reference, graded in a worker under each confinement this
    machine has: full marks, and its feedback, CSV row, results.json and summary say
    nothing but that (under bubblewrap, the sandbox's own processes are not the code's)."""
    if kind == "bubblewrap":
        request.getfixturevalue("bubblewrap")  # skips, saying why, where it cannot start
    for ch in (c for c in CHAPTERS if c.ready):
        subs = tmp_path / ch.package
        shutil.copytree(SOLUTIONS / ch.package, subs / "ref" / "chapters" / ch.package)
        options = grading.Options(chapter=ch.number, course=course, confinement=kind)
        (graded,) = grading.grade_all([subs / "ref"], options, jobs=1)
        assert graded.confinement.startswith(kind)
        assert graded.status == "graded" and graded.points == graded.max_points
        assert graded.max_points == sum(t.points for t in ch.tasks)  # 100 at 1.0, more later
        assert graded.reason == "" and {t.status for t in graded.tasks} == {Status.PASSED}
        out = tmp_path / "out" / ch.package
        outputs.write_batch(out, [graded], ch, options, 1, merge=False)
        body = graded.feedback.split("\n\n", 1)[1]  # below the header (suite, limits, …)
        _never_said(body, f"chapter {ch.number}'s feedback ({kind})")
        assert body.rstrip().endswith(f"Chapter {ch.number} is complete. Well done!")
        with open(out / "grades.csv", newline="") as file:
            (row,) = csv.DictReader(file)
        assert row["status"] == "graded" and row["reason"] == ""
        assert float(row["total"]) == graded.max_points
        assert row["review"] == "" and graded.review == ""  # nothing flagged for review
        results = json.loads((out / "gradescope" / "ref.json").read_text())
        assert results["score"] == results["max_score"] == graded.max_points
        for test in results["tests"]:
            assert test["status"] == "passed" and test["score"] == test["max_score"]
            _never_said(test["output"], f"results.json, task {test['number']} ({kind})")
        summary = (out / "summary.txt").read_text()
        assert "status: graded 1" in summary and "not graded" not in summary
        assert "flagged" not in summary


STRAYS = """
import os, shutil, subprocess, sys, time
from autograder import sandbox
bwrap = os.path.join(sys.argv[1], "bwrap")  # a process named like the sandbox's own
shutil.copy("/bin/sleep", bwrap)
subprocess.Popen(["/bin/sleep", "30"])  # left running
subprocess.Popen([bwrap, "30"])
subprocess.Popen(["/bin/true"])  # ends at once: a zombie, never waited for
time.sleep(0.5)
print(sandbox.end_strays(own=sys.argv[2] or None), sandbox.children(os.getpid()))
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize(("own", "counted"), [("bwrap", 1), ("", 2)])
def test_the_stray_count_leaves_out_zombies_and_the_sandboxs_own(
    tmp_path: Path, own: str, counted: int
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", STRAYS, str(tmp_path), own],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.split(maxsplit=1) == [str(counted), "[]\n"], done.stdout + done.stderr


def test_bubblewrap_hides_the_repository(bubblewrap: sandbox.Confinement) -> None:
    conf = bubblewrap
    probe = f"import os; print(os.path.exists({str(REPO / 'solutions')!r}), os.getuid())"
    tree = Path(sandbox.tempfile.mkdtemp())
    try:
        done = subprocess.run(
            conf.command(tree, [sandbox.interpreter(), "-I", "-S", "-c", probe]),
            capture_output=True,
            text=True,
            timeout=60,
            **conf.popen_options(),
        )
    finally:
        shutil.rmtree(tree)
    assert done.stdout.split() == ["False", "65534"], done.stderr


# -- Gradescope ----------------------------------------------------------------------------


def test_gradescope_zip_runs_against_a_simulated_autograder_layout(
    tmp_path: Path, auto_refusal: str
) -> None:
    """The zip's run_autograder (``--confinement auto``) in the layout Gradescope makes,
    with this interpreter as the venv setup.sh makes. On a machine where ``auto`` cannot
    confine (no bubblewrap, no drop to uid 65534) it refuses, as Gradescope would."""
    from tools import gradescope

    archive = gradescope.build(2, tmp_path / "ag.zip", seed=424242)
    with zipfile.ZipFile(archive) as zf:
        names = zf.namelist()
        root = tmp_path / "autograder"
        zf.extractall(root / "source")
    assert {"setup.sh", "run_autograder", "requirements-grader.txt", "seed.txt"} <= set(names)
    assert any(n.startswith("autograder/hidden/ch02_tensor/") for n in names)
    assert any(n.startswith("course/reference/ch01_value/") for n in names)
    assert not any(n.startswith("course/reference/ch02_tensor") for n in names)
    shutil.copytree(SOLUTIONS / "ch02_tensor", root / "submission" / "ch02_tensor")
    done = run_autograder(root)
    if auto_refusal:
        assert done.returncode == 2 and "no bubblewrap sandbox could start" in done.stderr
        assert not (root / "results" / "results.json").exists()
        pytest.skip(f"run_autograder refuses here, rightly: {auto_refusal}")
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == results["max_score"] == 100
    assert len(results["tests"]) == len(chapter(2).tasks)
    assert "424242" not in json.dumps(results) and "secret seed" in results["output"]
    assert stat.S_IMODE((root / "source").stat().st_mode) & 0o077 == 0

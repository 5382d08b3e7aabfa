"""The student release (tools/release.py): nothing instructor-only ships, its stubs are the
generator's, and its own `make chapter-1` and `make reset` work without solutions/."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from autograder import stubgen
from autograder.course import chapter
from tests.trees import REPO, SOLUTIONS, run_in
from tools import release, stubs, update

MARKER = re.compile(rb"###\s*(BEGIN|END)\s+SOLUTION")  # written out again, not imported
NEVER = [
    "solutions",
    "tests",
    "autograder/hidden",
    "autograder/stubgen.py",
    "tools/stubs.py",
    "tools/release.py",
]
STUDENT_TARGETS = [
    "setup",
    "chapter-%",
    "progress",
    "capstone",
    "lab",
    "hint",
    "reset",
    "update",
    "submit",
]
CHAPTER_1 = chapter(1)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("release") / "sparrow-student"
    release.release(out)
    return out


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def test_nothing_instructor_only_ships(built: Path) -> None:
    assert [rel for rel in NEVER if (built / rel).exists()] == []
    names = {part for p in built.rglob("*") for part in p.relative_to(built).parts}
    assert not names & {"hidden", "__pycache__", ".pytest_cache"}
    assert [p for p in _files(built) if p.suffix in (".pyc", ".pyo")] == []


def test_no_solution_marker_in_any_file(built: Path) -> None:
    leaks = [p.relative_to(built) for p in _files(built) if MARKER.search(p.read_bytes())]
    assert leaks == []
    assert release.audit(built) == []


def test_stubs_are_exactly_what_the_generator_writes(built: Path) -> None:
    """The release's tree: its own notebooks and a chapters/__init__.py without the switch."""
    generated = stubgen.generate(SOLUTIONS, target="release")
    generated["__init__.py"] = (REPO / "tools" / "release_files" / "chapters_init.py").read_bytes()
    assert stubs.drift(built / "chapters", generated) == []
    assert generated["__init__.py"] != stubgen.generate(SOLUTIONS)["__init__.py"]
    pristine = json.loads((built / release.PRISTINE).read_text(encoding="utf-8"))
    assert pristine == {rel: data.decode() for rel, data in generated.items() if rel[-3:] == ".py"}


def test_the_student_files_ship(built: Path) -> None:
    for rel in ["README.md", ".gitignore", "requirements.txt", "environment.yml", "tools/setup.py"]:
        assert (built / rel).is_file(), rel
    for line in (REPO / "datasets" / "MANIFEST.sha256").read_text().splitlines():
        name = line.split()[1]
        assert (built / "datasets" / name).read_bytes() == (REPO / "datasets" / name).read_bytes()
    makefile = (built / "Makefile").read_text()
    targets = re.findall(r"^([\w%-]+):", makefile, re.M)
    assert sorted(set(targets) - {"help", "env"}) == sorted(STUDENT_TARGETS)
    assert "tools.stubs" not in makefile and "pytest" not in makefile


def test_the_releases_own_check_runs_on_its_untouched_stubs(built: Path) -> None:
    where = run_in(built, sys.executable, "-c", "import autograder.student as s; print(s.REPO)")
    assert Path(where.stdout.strip()) == built.resolve()  # the release's autograder, not ours
    out = run_in(built, sys.executable, "-m", "autograder", "check", "1", timeout=120)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "Traceback" not in out.stdout + out.stderr
    lines = [line for line in out.stdout.splitlines() if re.match(r"\s+\S+ 1\.\d+ ", line)]
    assert len(lines) == len(CHAPTER_1.tasks)
    assert all(line.endswith("not started") for line in lines), out.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_chapter_1_in_the_release(built: Path) -> None:
    out = run_in(
        built, "make", "-C", str(built), "chapter-1", f"PYTHON={sys.executable}", timeout=120
    )
    assert out.returncode != 0  # the chapter is not done
    assert out.stdout.count("not started") == len(CHAPTER_1.tasks)
    assert "Traceback" not in out.stdout + out.stderr


def test_make_reset_works_without_solutions(built: Path, tmp_path: Path) -> None:
    student = tmp_path / "student"
    shutil.copytree(built, student)
    value = student / "chapters" / "ch01_value" / "value.py"
    shutil.copyfile(SOLUTIONS / "ch01_value" / "value.py", value)  # every task done
    out = run_in(student, sys.executable, "-m", "tools.reset", "1.3")
    assert out.returncode == 0, out.stderr
    assert "Value.__mul__" in out.stdout
    text = value.read_text()
    assert '"Task 1.3:' in text and "self.grad += other.data * out.grad" not in text
    assert "self.grad += out.grad" in text  # 1.2 is still the student's
    assert list((student / ".sparrow" / "backups").rglob("value.py"))


NEW_GIVEN = "\n\ndef _added_in_the_new_release() -> int:\n    return 42\n"


def _newer_release(built: Path, dest: Path) -> Path:
    """A copy of ``built`` as the next release would be: value.py's given code grows a
    function, task 1.3's stub is revised, and the autograder gains a file."""
    shutil.copytree(built, dest)
    rel = "ch01_value/value.py"
    stub = (dest / "chapters" / rel).read_text()
    assert stub.count('"""Task 1.3 —') == 1
    stub = stub.replace('"""Task 1.3 —', '"""Task 1.3 (revised) —') + NEW_GIVEN
    (dest / "chapters" / rel).write_text(stub)
    manifest = json.loads((dest / "chapters" / update.MANIFEST).read_text())
    manifest[rel] = update.sha(stub.encode())
    (dest / "chapters" / update.MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    pristine = json.loads((dest / release.PRISTINE).read_text())
    pristine[rel] = stub
    (dest / release.PRISTINE).write_text(json.dumps(pristine, indent=1) + "\n")
    (dest / "autograder" / "new_in_this_release.py").write_text('"""new."""\n')
    return dest


@pytest.mark.parametrize("how", ["make update", "--into"])
def test_make_update_takes_a_newer_release_and_keeps_the_students_work(
    built: Path, tmp_path: Path, how: str
) -> None:
    """Also for a folder whose release predates make update: run from the new release."""
    student = tmp_path / "student"
    shutil.copytree(built, student)
    value = student / "chapters" / "ch01_value" / "value.py"
    mine = value.read_text()
    stub_12 = re.compile(r'raise NotImplementedError\(\s*"Task 1\.2:[^"]*"\s*\)')
    assert len(stub_12.findall(mine)) == 1
    mine = stub_12.sub("return Value(0.0)  # my 1.2", mine)
    value.write_text(mine)
    newer = _newer_release(built, tmp_path / "newer")
    command, where = [sys.executable, "-m", "tools.update", "--from", str(newer)], student
    if how == "--into":
        for name in ("update.py", "merge.py"):
            (student / "tools" / name).unlink()
        command, where = [*command[:3], "--from", ".", "--into", str(student)], newer
    elif shutil.which("make"):
        command = ["make", "-s", "-C", str(student), "update", f"FROM={newer}"]
        command.append(f"PYTHON={sys.executable}")
    out = run_in(where, *command, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "merged chapters/ch01_value/value.py: given code updated" in out.stdout
    assert "your tasks kept: Value.__add__ (task 1.2)" in out.stdout
    assert "now the new stub: Value.__mul__ (task 1.3)" in out.stdout
    text = value.read_text()
    assert text.endswith(NEW_GIVEN) and "# my 1.2" in text and "(revised)" in text
    assert (student / "autograder" / "new_in_this_release.py").is_file()
    assert (student / "tools" / "update.py").is_file()
    assert json.loads((student / release.PRISTINE).read_text()) == json.loads(
        (newer / release.PRISTINE).read_text()
    )
    assert (student / "chapters" / update.MANIFEST).read_bytes() == (
        newer / "chapters" / update.MANIFEST
    ).read_bytes()
    backups = list((student / ".sparrow" / "backups").rglob("value.py"))
    assert len(backups) == 1 and backups[0].read_text() == mine
    # make reset now puts task 1.2 back to the new release's stub
    out = run_in(student, sys.executable, "-m", "tools.reset", "1.2")
    assert out.returncode == 0, out.stderr
    assert value.read_text() == (newer / "chapters" / "ch01_value" / "value.py").read_text()


def test_the_audit_finds_what_must_not_ship(built: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(built, copy)
    (copy / "autograder" / "hidden").mkdir()
    (copy / "autograder" / "hidden" / "ch01.py").write_text("CHECKS = []\n")
    (copy / "support" / "leak.py").write_text("# ### BEGIN SOLUTION 1.1\n")
    problems = "\n".join(release.audit(copy))
    assert "autograder/hidden is instructor-only" in problems
    assert "support/leak.py holds a solution marker" in problems
    assert release._skipped(Path("autograder/hidden/ch01_value/__init__.py"))


def test_a_previous_release_is_replaced_anything_else_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    with pytest.raises(release.ReleaseError, match="not a previous release"):
        release.release(out)
    assert (out / "notes.txt").read_text() == "mine\n"
    release.release(out, force=True)
    assert not (out / "notes.txt").exists()
    (out / "chapters" / "stale.txt").write_text("old\n")
    release.release(out)  # a previous release: replaced without --force
    assert not (out / "chapters" / "stale.txt").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no temporary folder left
    with pytest.raises(release.ReleaseError, match="dist/ or build/"):
        release.release(REPO / "chapters", force=True)
    with pytest.raises(release.ReleaseError, match="repository itself"):
        release.release(REPO.parent, force=True)


def test_the_instructor_grader_in_a_release_says_what_it_lacks(built: Path, tmp_path: Path) -> None:
    """`python -m autograder grade` ships (the CLI is one), but grading needs the reference."""
    (tmp_path / "ada").mkdir()
    out = run_in(
        built, sys.executable, "-m", "autograder", "grade", "1", str(tmp_path), timeout=120
    )
    assert out.returncode != 0
    assert "Traceback" not in out.stdout + out.stderr
    assert "grading needs the reference" in out.stderr


def test_a_chapter_the_course_lacks_is_refused_before_the_notebooks_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tools import read_ahead

    monkeypatch.setattr(read_ahead, "fill", lambda *a, **k: pytest.fail("ran the notebooks"))
    with pytest.raises(release.ReleaseError, match="--classroom 99: the course has chapters"):
        release.release(tmp_path / "out", classroom=99, read_ahead=True)
    assert not (tmp_path / "out").exists()

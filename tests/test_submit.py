"""The zip a student hands in (tools/submit.py): exactly the chapters' .py files, checked
and compiled first, never a symbolic link."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder.course import CHAPTERS
from tests.trees import REPO, SOLUTIONS, write_stubs
from tools import submit


@pytest.fixture
def student(tmp_path: Path) -> Path:
    """A student's copy of the course: fresh stubs, task 1.1 solved, some clutter."""
    root = tmp_path / "student"
    write_stubs(root / "chapters")
    shutil.copyfile(
        SOLUTIONS / "ch01_value" / "numerical.py", root / "chapters/ch01_value/numerical.py"
    )
    for clutter in ["__pycache__/value.cpython-311.pyc", ".ipynb_checkpoints/value-checkpoint.py"]:
        path = root / "chapters" / "ch01_value" / clutter
        path.parent.mkdir()
        path.write_bytes(b"clutter")
    return root


def _py_files(root: Path, *packages: str) -> list[str]:
    return sorted(
        p.relative_to(root).as_posix()
        for package in packages
        for p in (root / "chapters" / package).glob("*.py")
    )


def test_the_zip_holds_exactly_the_chapters_py_files(student: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tools.submit", "1", "--root", str(student)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 of 8 tasks pass; zip written to" in out.stdout
    with zipfile.ZipFile(student / "submissions" / "sparrow-ch01.zip") as archive:
        infos = archive.infolist()
        assert [i.filename for i in infos] == _py_files(student, "ch01_value")
        assert {i.date_time for i in infos} == {submit.ZIP_TIME}
        for info in infos:
            assert archive.read(info) == (student / info.filename).read_bytes()


def test_chapters_1_to_n_that_exist_and_nothing_above(student: Path) -> None:
    folders = submit.chapter_folders(student, 2)
    files = submit.collect(student, [folder for _, folder in folders])
    assert list(files) == _py_files(student, "ch01_value", "ch02_tensor")
    shutil.rmtree(student / "chapters" / "ch01_value")
    assert [ch.number for ch, _ in submit.chapter_folders(student, 2)] == [2]


def test_the_zip_is_reproducible(student: Path) -> None:
    files = submit.collect(student, [student / "chapters" / "ch01_value"])
    first = submit.zip_bytes(files)
    for path in (student / "chapters").rglob("*.py"):
        os.utime(path, (1e9, 1e9))
    again = submit.zip_bytes(submit.collect(student, [student / "chapters" / "ch01_value"]))
    assert first == again


def test_a_symbolic_link_is_refused(student: Path, capsys: pytest.CaptureFixture) -> None:
    link = student / "chapters" / "ch01_value" / "helpers.py"
    try:
        link.symlink_to(SOLUTIONS / "ch01_value" / "value.py")
    except OSError:
        pytest.skip("this system cannot make symbolic links")
    assert submit.main(["1", "--root", str(student)]) == 2
    assert "chapters/ch01_value/helpers.py is a symbolic link" in capsys.readouterr().err
    assert not (student / "submissions").exists()


@pytest.mark.parametrize("chapter", ["1", str(len(CHAPTERS) + 1)])
def test_a_missing_chapter_is_an_error(
    student: Path, chapter: str, capsys: pytest.CaptureFixture
) -> None:
    shutil.rmtree(student / "chapters" / "ch01_value")
    assert submit.main([chapter, "--root", str(student)]) == 2
    err = capsys.readouterr().err
    missing = f"there is no chapter '{len(CHAPTERS) + 1}'"
    assert "there is no chapters/ch01_value folder" in err or missing in err
    assert not (student / "submissions").exists()


def test_a_file_that_does_not_compile_is_named_and_the_zip_still_written(
    student: Path, capsys: pytest.CaptureFixture
) -> None:
    graph = student / "chapters" / "ch01_value" / "graph.py"
    lines = graph.read_text().splitlines()
    graph.write_text("\n".join([*lines, "def broken(:", ""]))
    out = student / "hand-in.zip"
    assert submit.main(["1", "--root", str(student), "--out", str(out)]) == 1
    printed = capsys.readouterr().out
    assert f"chapters/ch01_value/graph.py, line {len(lines) + 1}:" in printed
    assert "def broken(:" in printed and "does not compile" in printed
    with zipfile.ZipFile(out) as archive:
        assert "chapters/ch01_value/graph.py" in archive.namelist()

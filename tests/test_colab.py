"""The Colab set-up cell (autograder/notebook_gen.py, tools/colab.py): first in every notebook,
inert off Colab, and, on a simulated Colab without a network, a working course.

The simulation (slow): the course is served from a local git repository made from a built
release; a fresh virtual environment without system site-packages plays Colab's runtime
(IPython and a stand-in ``google.colab`` whose ``drive.mount`` makes a folder); pip installs
only from the wheelhouse `.ci/run` fills (`pip download -r requirements.txt`), so the test
skips, visibly, where there is none. The real Colab path has not been run from here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import notebook_gen, stubgen
from autograder.course import CHAPTERS
from tests.trees import REPO, SOLUTIONS
from tools import colab, release

WHEELHOUSE = Path(os.environ.get("SPARROW_WHEELHOUSE", REPO / "build" / "wheelhouse"))
URL = "https://example.org/class/sparrow.git"


def _code_cells(data: bytes) -> list[str]:
    cells = json.loads(data)["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


@pytest.mark.parametrize("target", notebook_gen.TARGETS)
def test_every_notebook_opens_with_the_colab_cell(target: str) -> None:
    generated = stubgen.generate(SOLUTIONS, target=target, url=URL if target == "release" else "")
    notebooks = {rel: data for rel, data in generated.items() if rel.endswith(".ipynb")}
    english = sorted(rel.split("/")[0] for rel in notebooks if not rel.endswith(".zh.ipynb"))
    assert english == [ch.package for ch in CHAPTERS]  # and their translations, where written
    for rel, data in notebooks.items():
        first = _code_cells(data)[0]
        package = rel.split("/")[0]
        assert "google.colab" in first and f"setup(course, {package!r}," in first
        expected_url = URL if target == "release" else ""
        assert f"COURSE_URL = {expected_url!r}" in first, rel
        assert json.loads(data)["cells"][0]["cell_type"] == "markdown"  # the title stays first


def test_each_tree_leaves_out_the_others_cells(tmp_path: Path) -> None:
    nb = {
        "cells": [
            {"cell_type": "markdown", "id": "a", "metadata": {}, "source": ["# title"]},
            {"cell_type": "markdown", "id": "b", "metadata": {"tags": ["repository-only"]},
             "source": ["run it against the reference"]},
            {"cell_type": "markdown", "id": "c", "metadata": {"tags": ["release-only"]},
             "source": ["finish chapters 2-6 first"]},
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }  # fmt: skip
    data = json.dumps(nb).encode()
    repo = json.loads(notebook_gen.notebook_for(data, "ch01_value", target="repository"))
    rel = json.loads(notebook_gen.notebook_for(data, "ch01_value", target="release", url=URL))
    assert [c["id"] for c in repo["cells"]] == ["a", "b", notebook_gen.COLAB_CELL_ID]
    assert [c["id"] for c in rel["cells"]] == ["a", "c", notebook_gen.COLAB_CELL_ID]


@pytest.mark.parametrize("url", ['https://x.org/a".git', "a\nb", "c:\\course"])
def test_a_url_that_would_break_the_cell_is_refused(url: str, tmp_path: Path) -> None:
    with pytest.raises(release.ReleaseError, match="course URL"):
        release.release(tmp_path / "out", url=url)


def test_the_cell_does_nothing_off_colab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    namespace: dict = {}
    cell = notebook_gen.colab_cell("ch01_value", URL)
    exec("".join(cell["source"]), namespace)  # the cell's own text
    assert list(tmp_path.iterdir()) == [] and Path.cwd() == tmp_path
    assert "setup" not in namespace  # it imported nothing of the course


def test_only_missing_runtime_packages_are_installed(tmp_path: Path) -> None:
    requirements = tmp_path / "requirements.txt"
    requirements.write_text(
        "# comment\nnumpy==2.4.6; python_version >= '3.11'\nnumpy==2.2.6; python_version < '3.11'\n"
        "surely-not-installed-pkg==1.0  # pinned\nnbval==0.11.0\n"
    )
    runtime = {"numpy": "numpy", "surely-not-installed-pkg": "surely_not_installed_pkg"}
    assert colab.missing_requirements(requirements, runtime) == ["surely-not-installed-pkg==1.0"]


def test_the_student_is_told_where_their_work_lives(tmp_path: Path) -> None:
    folder = tmp_path / "sparrow" / "chapters" / "ch01_value"
    on_drive = colab.where_work_lives(folder, on_drive=True)
    local = colab.where_work_lives(folder, on_drive=False)
    assert str(folder) in on_drive and "Google Drive" in on_drive and "download()" not in on_drive
    assert "wipes" in local and "download()" in local and "KEEP_ON_DRIVE = True" in local


# -- a simulated Colab, offline --------------------------------------------------------------

FAKE_COLAB = {
    "google/__init__.py": "",
    "google/colab/__init__.py": '"""A stand-in for Colab\'s package (tests/test_colab.py)."""\n',
    "google/colab/drive.py": (
        "from pathlib import Path\n\n\ndef mount(where):\n"
        "    (Path(where) / 'MyDrive').mkdir(parents=True, exist_ok=True)\n"
        "    print('Mounted at', where)\n"
    ),
    "google/colab/files.py": "def download(path):\n    print('download', path)\n",
}


def _run(*args: str | Path, cwd: Path, env: dict | None = None, timeout: float = 300):
    out = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert out.returncode == 0, f"{args}\n{out.stdout}\n{out.stderr}"
    return out


@pytest.mark.slow
def test_on_a_simulated_colab_the_cell_sets_the_course_up_and_a_check_runs(
    tmp_path: Path,
) -> None:
    if not any(WHEELHOUSE.glob("numpy-*.whl")):
        pytest.skip(f"no wheelhouse at {WHEELHOUSE} (.ci/run fills it: pip download -r "
                    "requirements.txt -d build/wheelhouse)")  # fmt: skip
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    served = tmp_path / "served"  # the course's "address": a git repository of the release
    release.release(served, url=str(served))
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org"]
    _run("git", "init", "-q", cwd=served)
    _run("git", "add", "-A", cwd=served)
    _run(*git, "commit", "-q", "-m", "release", cwd=served)

    runtime = tmp_path / "runtime"  # Colab's Python: IPython and google.colab, nothing more
    _run(sys.executable, "-m", "venv", runtime, cwd=tmp_path)
    python = runtime / "bin" / "python"
    env = {
        "PATH": f"{runtime / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(tmp_path / "home"),
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(WHEELHOUSE),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "MPLBACKEND": "Agg",
        "SPARROW_COLAB_HOME": str(tmp_path / "content"),  # Colab's /content
    }
    _run(python, "-m", "pip", "install", "-q", "ipython", cwd=tmp_path, env=env)
    site = _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                cwd=tmp_path, env=env).stdout.strip()  # fmt: skip
    for rel, text in FAKE_COLAB.items():
        (Path(site) / rel).parent.mkdir(parents=True, exist_ok=True)
        (Path(site) / rel).write_text(text)
    absent = subprocess.run([python, "-c", "import numpy"], capture_output=True, env=env)
    assert absent.returncode != 0  # Colab's stand-in starts without the course's packages

    cells = _code_cells((served / "chapters" / "ch01_value" / "ch01_value.ipynb").read_bytes())
    assert cells[0].startswith("# On Google Colab") and str(served) in cells[0]
    reference = SOLUTIONS / "ch01_value" / "numerical.py"
    script = "\n\n".join(
        [
            "import google.colab  # Colab's kernel has it imported before any cell runs",
            cells[0],  # the set-up cell, as the release wrote it
            cells[1],  # the notebook's imports
            f"import shutil; shutil.copyfile({str(reference)!r}, 'numerical.py')  # task 1.1",
            'check("1.1")',
            'print("=== again, off Drive ===")',  # the cell's advice, followed: run it again
            cells[0].replace("KEEP_ON_DRIVE = True", "KEEP_ON_DRIVE = False"),
            'print("=== again, on Drive ===")',
            cells[0],
        ]
    )
    (tmp_path / "session.ipy").write_text(script)
    content = tmp_path / "content"  # Colab's working folder
    content.mkdir()
    out = _run(runtime / "bin" / "ipython", "--quick", "--no-banner", tmp_path / "session.ipy",
               cwd=content, env=env, timeout=600)  # fmt: skip
    text, rest = (out.stdout + out.stderr).split("=== again, off Drive ===")
    off_drive, on_drive = rest.split("=== again, on Drive ===")
    course = content / "drive" / "MyDrive" / "sparrow"  # KEEP_ON_DRIVE is the default
    assert (course / "chapters" / "ch01_value" / "value.py").is_file()
    assert (course / ".git").is_dir()  # a clone of the served course
    assert "installing numpy, " in text and "Sparrow is ready in" in text, text
    assert f"Your work: the .py files in {course / 'chapters' / 'ch01_value'}" in text
    assert "They are on your Google Drive" in text and "Restart session" not in text
    # again off Drive: a second clone in Colab's folder, said to be on the runtime's disk,
    # and the session told to restart (it imported the Drive copy); nothing nested anywhere
    local = content / "sparrow"
    assert (local / ".git").is_dir(), off_drive
    assert f"Your work: the .py files in {local / 'chapters' / 'ch01_value'}" in off_drive
    assert "this runtime's own disk" in off_drive and "Restart session" in off_drive
    assert f"Your work: the .py files in {course / 'chapters' / 'ch01_value'}" in on_drive
    assert "They are on your Google Drive" in on_drive
    assert sorted(p.parent for p in content.rglob(".git")) == sorted([local, course])
    assert "Traceback" not in text and "TaskNotPassed" not in text, text
    assert re.search(r"✓ 1\.1 ", text), text  # the check cell passed, on the clone's file
    _run(python, "-c", "import numpy, matplotlib, tqdm", cwd=tmp_path, env=env)  # installed

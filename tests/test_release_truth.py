"""The student release tells the truth (issue 32): no text in it points to what it does not
ship, and its ``chapters`` package refuses the repository's switch to the reference.

``tests/release_texts.untruths`` reads every text of a built release (notebook outputs
included); a planted tree shows that it finds each pattern, so the first test cannot pass by
finding nothing."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.release_texts import untruths
from tests.trees import REPO, student_env
from tools import release


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("release") / "sparrow-student"
    release.release(out, read_ahead=False)
    return out


def test_no_text_of_the_release_points_to_what_it_lacks(built: Path) -> None:
    assert untruths(built) == []


# A release Makefile of its own, so the planted test does not follow the real one's targets.
PLANTED_MAKEFILE = """\
PY := python
.PHONY: setup capstone
setup:
\t@$(PY) -m tools.setup
chapter-%: setup
\t@$(PY) -m autograder check $*
capstone: setup
\t@$(PY) -m support.capstone $(if $(MODEL),--model $(MODEL))
"""
# Each planted line, and what untruths() must say of it.
PLANTED = {
    "see solutions/ch01_value/value.py": "solutions/",
    "run it with SPARROW_IMPL=solutions": "SPARROW_IMPL=solutions",
    "the held-out checks in autograder/hidden/ch01_value": "hidden checks",
    "import autograder.hidden.ch02_tensor": "hidden checks",
    "``solutions.ch06_optim`` for the reference": "reference's packages",
    "then `make bench PART=gpt`": "make bench",
    "run make test first": "make test",
    "make stubs FORCE=1 rewrites it": "make stubs",
    "make capstone SCHEDULE=cosine": "does not read SCHEDULE",
    "python -m tools.stubs": "tools.stubs",
    "written by tools/release.py": "tools/release.py",
    "python -m autograder.nowhere": "autograder.nowhere",
    "the guide, docs/instructors.md": "docs/",
    "(``tests/test_tutorials.py`` runs it)": "tests/",
    "the same pin is in requirements-oracles.txt": "requirements-oracles.txt",
}
# Lines that are true in the planted release: nothing may be reported for them.
TRUE_LINES = [
    "make chapter-3 checks chapter 3; make sure it passes",
    "make capstone MODEL=cnn",
    "make capstone SPARROW_IMPL=chapters",  # an environment variable the release reads
    "python -m tools.setup, tools/setup.py, python -m autograder check 1",
    "your chapters/ and the course's solutions",
    "my_docs/ and latests/ are not the repository's folders",
]


def _plant(root: Path) -> None:
    (root / "tools").mkdir(parents=True)
    for folder in ("chapters", "autograder", "support", "datasets"):  # as a release has
        (root / folder).mkdir()
    (root / "tools" / "__init__.py").write_text("")
    (root / "tools" / "setup.py").write_text('import os\nos.environ.get("SPARROW_IMPL")\n')
    (root / "Makefile").write_text(PLANTED_MAKEFILE)
    (root / "README.md").write_text("\n".join([*TRUE_LINES, *PLANTED]) + "\n")
    (root / "data.npz").write_bytes(b"solutions/ SPARROW_IMPL=solutions \xff\xfe")
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["Intro\n", "run make test\n"]},
        {
            "cell_type": "code",
            "metadata": {},
            "execution_count": 1,
            "source": ["print(1)"],
            "outputs": [
                {"output_type": "stream", "name": "stdout", "text": ["ok\n", "solutions/x\n"]},
                {
                    "output_type": "execute_result",
                    "execution_count": 1,
                    "metadata": {},
                    "data": {
                        "text/plain": ["'autograder/hidden'"],
                        "image/png": "c29sdXRpb25zLw==",
                    },
                },
                {
                    "output_type": "error",
                    "ename": "ImportError",
                    "evalue": "no SPARROW_IMPL=solutions here",
                    "traceback": ["line one", "see solutions/a.py"],
                },
            ],
        },
    ]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (root / "ch.ipynb").write_text(json.dumps(notebook, indent=1))


def test_untruths_finds_each_planted_pattern_and_nothing_true(tmp_path: Path) -> None:
    _plant(tmp_path)
    found = untruths(tmp_path)
    readme = [line for line in found if line.startswith("README.md:")]
    first = len(TRUE_LINES) + 1
    for number, (line, what) in enumerate(PLANTED.items(), first):
        said = [f for f in readme if f.startswith(f"README.md:{number}: ")]
        assert len(said) == 1 and what in said[0], (line, said)
    assert not [f for f in readme if int(f.split(":")[1]) < first], readme
    notebook = sorted(f.split(": ")[0] for f in found if f.startswith("ch.ipynb"))
    assert notebook == [
        "ch.ipynb:cell 1:2",  # the markdown's `make test`
        "ch.ipynb:cell 2 output 1:2",  # a stream
        "ch.ipynb:cell 2 output 2:1",  # text/plain data (the PNG is not read)
        "ch.ipynb:cell 2 output 3:2",  # an error's value
        "ch.ipynb:cell 2 output 3:4",  # its traceback
    ]
    assert not [f for f in found if f.startswith("data.npz")]  # binary: not read


def _import_chapters(root: Path, impl: str | None) -> subprocess.CompletedProcess[str]:
    env = student_env()
    if impl is not None:
        env["SPARROW_IMPL"] = impl
    code = "import chapters, chapters.ch01_value as sp; print(sp.__file__)"
    return subprocess.run(
        [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, timeout=60
    )


def test_the_releases_chapters_refuse_the_reference_switch(built: Path) -> None:
    text = (built / "chapters" / "__init__.py").read_text(encoding="utf-8")
    assert "SPARROW_IMPL" in text and "solutions/" not in text
    out = _import_chapters(built, "solutions")
    assert out.returncode != 0 and "ImportError" in out.stderr, out.stderr
    assert "only your own chapters" in out.stderr, out.stderr
    assert "reference" in out.stderr, out.stderr


@pytest.mark.parametrize("impl", ["Solutions", "reference", "chapter"])
def test_an_unknown_switch_value_is_an_import_error(built: Path, impl: str) -> None:
    out = _import_chapters(built, impl)
    assert out.returncode != 0 and "ImportError" in out.stderr, out.stderr
    assert repr(impl) in out.stderr, out.stderr


@pytest.mark.parametrize("impl", [None, "chapters", " chapters ", ""])
def test_unset_or_chapters_imports_the_students_own_files(built: Path, impl: str | None) -> None:
    out = _import_chapters(built, impl)
    assert out.returncode == 0, out.stderr
    where = Path(out.stdout.strip())
    assert where == (built / "chapters" / "ch01_value" / "__init__.py").resolve()


def test_the_release_init_is_the_template(built: Path) -> None:
    template = REPO / "tools" / "release_files" / "chapters_init.py"
    assert (built / "chapters" / "__init__.py").read_bytes() == template.read_bytes()


def test_the_template_alone_refuses_the_switch(tmp_path: Path) -> None:
    """The template's behaviour without a built release (its own package, one chapter)."""
    package = tmp_path / "chapters"
    (package / "ch01_value").mkdir(parents=True)
    shutil.copyfile(REPO / "tools" / "release_files" / "chapters_init.py", package / "__init__.py")
    (package / "ch01_value" / "__init__.py").write_text("")
    assert _import_chapters(tmp_path, "solutions").returncode != 0
    assert _import_chapters(tmp_path, None).returncode == 0

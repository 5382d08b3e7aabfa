"""Helpers the repository's tests share: temporary copies of the trees, patched variants,
and running the checks on them."""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from autograder.checking import ChapterResult, check_chapter
from autograder.course import CHAPTERS, chapter
from autograder.runner import Limits
from autograder.status import Status
from autograder.stubgen import generate
from tools import stubs

REPO = Path(__file__).resolve().parent.parent
SOLUTIONS = REPO / "solutions"


def student_env() -> dict[str, str]:
    """This environment, less anything that could import the repository's own code."""
    drop = {"PYTHONPATH", "PYTHONSAFEPATH", "SPARROW_IMPL"}
    return {key: value for key, value in os.environ.items() if key not in drop}


def run_in(
    root: Path, *argv: str, timeout: float | None = None
) -> subprocess.CompletedProcess[str]:
    """``argv`` run in ``root`` as a student would (``student_env()``), output captured."""
    return subprocess.run(
        list(argv), cwd=root, env=student_env(), capture_output=True, text=True, timeout=timeout
    )


def run_autograder(root: Path) -> subprocess.CompletedProcess[str]:
    """A Gradescope zip's ``run_autograder``, unpacked under ``root`` as Gradescope lays it
    out (``source/``, ``submission/``), with this interpreter standing for the venv that
    setup.sh makes (a link to a venv's interpreter would leave the venv)."""
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "PYTHON": sys.executable}
    return subprocess.run(
        ["bash", str(root / "source" / "run_autograder")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def scratch_repo(tmp: Path) -> Path:
    """A scratch repository in ``tmp``: a copy of solutions/ and a freshly generated
    chapters/ (``tools.stubs``)."""
    shutil.copytree(SOLUTIONS, tmp / "solutions", ignore=shutil.ignore_patterns("__pycache__"))
    stubs.write(tmp)
    return tmp


def copy_package(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__", "*.ipynb"))
    return dest


def write_stubs(dest: Path) -> Path:
    """A fresh, pristine ``chapters/`` as the generator writes it."""
    for rel, data in generate(SOLUTIONS).items():
        path = dest / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return dest


def patch(path: Path, old: str, new: str) -> None:
    """Replace ``old`` (which must occur exactly once) by ``new`` in ``path``."""
    text = path.read_text()
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {path.name}"
    path.write_text(text.replace(old, new))


def with_bodies(text: str, task: str, *bodies: str | None) -> str:
    """``text`` with the bodies of its first regions of ``task`` replaced (one body each, in
    order; None leaves a region alone). The ``### BEGIN/END SOLUTION`` lines stay, as they do
    in a student's file."""
    start, marker = 0, f"### BEGIN SOLUTION {task}\n"
    for body in bodies:
        start = text.index(marker, start)
        end = text.index("### END SOLUTION", start)
        if body is not None:
            indent = text[text.rindex("\n", 0, start) + 1 : start]
            lines = "".join(
                f"{indent}{line}\n" if line else "\n" for line in body.strip("\n").split("\n")
            )
            text = text[: start + len(marker)] + lines + indent + text[end:]
            end = text.index("### END SOLUTION", start)
        start = end
    return text


def replace_region(path: Path, task_id: str, body: str) -> None:
    """Replace the body of the first ``### BEGIN SOLUTION task_id`` region in ``path`` (a
    task with several regions in one file: the first in the file)."""
    text = path.read_text()
    assert f"### BEGIN SOLUTION {task_id}\n" in text, f"no region {task_id} in {path.name}"
    path.write_text(with_bodies(text, task_id, body))


@functools.cache
def edits(package: str, file: str, *pairs: tuple[str, str]) -> tuple[str, str]:
    """Several one-place edits of the reference's ``file`` as one edit: (its text, the text
    with each ``old`` replaced by ``new``; each must occur once)."""
    text = (SOLUTIONS / package / file).read_text()
    new = text
    for old, replacement in pairs:
        assert new.count(old) == 1, old
        new = new.replace(old, replacement)
    return text, new


def rewrite(
    package: str, file: str, task: str, *bodies: str | None, pairs: list | tuple = ()
) -> tuple[str, str]:
    """The reference's ``file`` with its first regions of ``task`` rewritten
    (``with_bodies``) and each ``(old, new)`` of ``pairs`` replaced (once), as one edit."""
    text = (SOLUTIONS / package / file).read_text()
    new = with_bodies(text, task, *bodies)
    for old, replacement in pairs:
        assert new.count(old) == 1, old
        new = new.replace(old, replacement)
    return text, new


def _stub_tree() -> Path:
    """Pristine stubs of every chapter, written once per test session."""
    root = Path(tempfile.mkdtemp(prefix="sparrow-stubs-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    return write_stubs(root)


def composite(number: int, package_dir: Path) -> dict[str, Path]:
    """ARCHITECTURE's composite tree for grading chapter ``number`` in isolation: the
    reference below it, ``package_dir`` as chapter ``number``, generated stubs above it."""
    packages = {}
    for ch in CHAPTERS:
        if ch.number < number and (SOLUTIONS / ch.package).is_dir():
            packages[ch.package] = SOLUTIONS / ch.package
        elif ch.number > number and (_stub_tree() / ch.package).is_dir():
            packages[ch.package] = _stub_tree() / ch.package
    packages[chapter(number).package] = package_dir
    return packages


def run_chapter(
    number: int, package_dir: Path, *, tasks: list[str] | None = None, cpu: float = 10.0
) -> ChapterResult:
    """Check chapter ``number`` with ``package_dir`` as its code, in its composite tree."""
    return check_chapter(
        chapter(number),
        composite(number, package_dir),
        task_ids=tasks,
        limits=Limits(cpu_per_check=cpu),
    )


def statuses(result: ChapterResult) -> dict[str, Status]:
    """Each task's status (the task that blocks a blocked one: ``TaskVerdict.blocked_by``)."""
    return {t.task.id: t.status for t in result.tasks}


# -- broken variants: plausible student bugs, each applied to a copy of the reference -------
#
# A variant is (name, file, edit, task): an edit is (old, new) for a one-place change, or
# ("region", body) to rewrite the whole region of the task it breaks.


def reference_code(number: int, task: str, least: int = 12) -> list[str]:
    """The lines of the reference's regions of ``task`` that are code a report must not show
    (issue 29: the first stage of help diagnoses, it does not hand out the answer): each line
    without its trailing comment and its spaces (``shows_code`` compares texts without
    spaces too), of ``least`` characters or more, that is not a comment."""
    package = SOLUTIONS / chapter(number).package
    marker = f"### BEGIN SOLUTION {task}"
    found = []
    for path in sorted(package.rglob("*.py")):
        inside = False
        for line in path.read_text().splitlines():
            code = line.split("  #")[0].strip()
            if line.strip() == marker:
                inside = True
            elif inside and line.strip() == "### END SOLUTION":
                inside = False
            elif inside and len(code) >= least and not code.startswith("#"):
                found.append("".join(code.split()))
    return found


def shows_code(text: str, number: int, task: str) -> list[str]:
    """The lines of the reference's code for ``task`` that ``text`` holds, spaces ignored."""
    flat = "".join(text.split())
    return [line for line in reference_code(number, task) if line in flat]


def broken_package(number: int, dest: Path, file: str, edit: tuple[str, str], task: str) -> Path:
    """A copy of chapter ``number``'s reference in ``dest`` with one edit applied."""
    package = chapter(number).package
    copy = copy_package(SOLUTIONS / package, dest / package)
    if edit[0] == "region":
        replace_region(copy / file, task, edit[1])
    else:
        patch(copy / file, *edit)
    return copy


def _two_at_a_time(root: Path, jobs: list, grade: Any) -> dict[str, ChapterResult]:
    """``{key: grade(folder, job)}`` for each job (``job[0]`` its key), two at a time (each
    check runs in its own process). Folders are made here, not in the worker threads."""
    folders = []
    for i in range(len(jobs)):
        folders.append(root / str(i))
        folders[-1].mkdir()

    def one(args: tuple[Path, tuple]) -> tuple[str, ChapterResult]:
        folder, job = args
        return job[0], grade(folder, job)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(one, zip(folders, jobs)))


def check_variants(number: int, variants: list[tuple], root: Path) -> dict[str, ChapterResult]:
    """Every variant checked once on the public checks."""

    def grade(folder: Path, variant: tuple) -> ChapterResult:
        _, file, edit, task = variant
        return run_chapter(number, broken_package(number, folder, file, edit, task))

    return _two_at_a_time(root, variants, grade)


def check_held_out(
    number: int, hidden: str, variants: list, correct: list, holes: list, root: Path
) -> dict[str, ChapterResult]:
    """A held-out set as the grader would check it: each broken variant on the public
    checks; each former hole also on its own task's hidden checks (module ``hidden``)
    alone, under "hidden: name"; each correct variant on the public and hidden checks
    together."""
    by_name = {v[0]: v for v in variants}
    jobs = [(v[0], v, "public") for v in variants] + [(v[0], v, "both") for v in correct]
    jobs += [(f"hidden: {name}", by_name[name], "hidden") for name in holes]

    def grade(folder: Path, job: tuple) -> ChapterResult:
        _, (_, file, edit, task), checks = job
        return check_chapter(
            chapter(number),
            composite(number, broken_package(number, folder, file, edit, task)),
            check_modules=[] if checks == "hidden" else None,
            task_ids=[task] if checks == "hidden" else None,
            hidden_modules=[] if checks == "public" else [hidden],
            limits=Limits(cpu_per_check=10.0),
        )

    return _two_at_a_time(root, jobs, grade)


def assert_fails_its_task_only(result: ChapterResult, task: str) -> None:
    """The broken task fails; every other task passes with full points, or is "blocked by"
    the broken task where its check cannot avoid running the broken code."""
    status = statuses(result)
    assert status[task] not in (Status.PASSED, Status.NOT_STARTED), status
    for t in result.tasks:
        if t.task.id == task:
            continue
        assert t.status == Status.PASSED or t.blocked_by == task, (t.task.id, t.label)
        if t.status == Status.PASSED:
            assert t.points == t.task.points

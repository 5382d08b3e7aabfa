"""Helpers the repository's tests share: temporary copies of the trees, patched variants,
and running the checks on them."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from autograder.checking import ChapterResult, check_chapter
from autograder.course import chapter
from autograder.runner import Limits
from tools.stubs import generate

REPO = Path(__file__).resolve().parent.parent
SOLUTIONS = REPO / "solutions"


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


def replace_region(path: Path, task_id: str, body: str) -> None:
    """Replace the body of every ``### BEGIN SOLUTION task_id`` region in ``path``."""
    text = path.read_text()
    pattern = re.compile(
        rf"^(?P<indent>[ \t]*)### BEGIN SOLUTION {re.escape(task_id)}\n"
        r".*?^[ \t]*### END SOLUTION\n",
        re.M | re.S,
    )
    match = pattern.search(text)
    assert match, f"no region {task_id} in {path.name}"
    indent = match["indent"]
    lines = "".join(f"{indent}{line}\n" if line else "\n" for line in body.strip("\n").split("\n"))
    path.write_text(text[: match.start()] + lines + text[match.end() :])


def run_chapter(
    number: int, package_dir: Path, *, tasks: list[str] | None = None, cpu: float = 10.0
) -> ChapterResult:
    ch = chapter(number)
    return check_chapter(
        ch, {ch.package: package_dir}, task_ids=tasks, limits=Limits(cpu_per_check=cpu)
    )


def statuses(result: ChapterResult) -> dict[str, str]:
    return {t.task.id: t.status for t in result.tasks}

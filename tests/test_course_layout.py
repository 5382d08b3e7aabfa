"""A chapter lives in a few places, and a chapter registered in one must be in all of them
(docs/maintainers.md, "Adding a chapter"): its row in ``autograder/course.py`` and task
table in ``autograder/tasks/``, its ``solutions/`` package and notebook, the generated
``chapters/`` package, its check table (``autograder/checks/``, with programs and
stand-ins), its hidden rows (``autograder/hidden/``), its variant sets (``tests/variants/``)
and its row in the README's chapter table. Nothing in those places names a chapter the
course does not register."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from autograder.course import CHAPTERS
from tests.variants import all_sets

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {c.package for c in CHAPTERS if c.ready}


def _chapters_in(folder: Path, suffix: str = "") -> set[str]:
    return {p.name.removesuffix(suffix) for p in folder.glob(f"ch[0-9][0-9]_*{suffix}")}


@pytest.mark.parametrize("c", [pytest.param(c, id=c.package) for c in CHAPTERS if c.ready])
def test_a_registered_chapter_is_in_every_place(c) -> None:
    places = {
        "solutions package": ROOT / "solutions" / c.package / "__init__.py",
        "notebook": ROOT / "solutions" / c.package / f"{c.package}.ipynb",
        "chapters package (make stubs)": ROOT / "chapters" / c.package / "__init__.py",
        "task table": ROOT / "autograder" / "tasks" / f"{c.package}.py",
        "check table": ROOT / "autograder" / "checks" / c.package / "__init__.py",
        "programs": ROOT / "autograder" / "checks" / c.package / "programs.py",
        "stand-ins": ROOT / "autograder" / "checks" / c.package / "standins.py",
        "hidden rows": ROOT / "autograder" / "hidden" / c.package / "__init__.py",
    }
    missing = [what for what, path in places.items() if not path.exists()]
    assert not missing, f"chapter {c.number} ({c.package}) has no {', '.join(missing)}"
    assert any(s.chapter == c.number and s.kind == "broken" for s in all_sets()), (
        f"chapter {c.number} has no broken variant set: tests/variants/ch{c.number:02d}_broken.py"
    )
    readme = (ROOT / "README.md").read_text()
    assert re.search(rf"^\| {c.number} `{c.package}` \|", readme, re.M), "no README row"


def test_no_place_names_a_chapter_the_course_does_not_register() -> None:
    found = {
        "solutions/": _chapters_in(ROOT / "solutions"),
        "chapters/": _chapters_in(ROOT / "chapters"),
        "autograder/tasks/": _chapters_in(ROOT / "autograder" / "tasks", ".py"),
        "autograder/checks/": _chapters_in(ROOT / "autograder" / "checks"),
        "autograder/hidden/": _chapters_in(ROOT / "autograder" / "hidden"),
    }
    for where, packages in found.items():
        assert packages <= PACKAGES, f"{where} holds {sorted(packages - PACKAGES)}, unregistered"
    numbers = {c.number for c in CHAPTERS if c.ready}
    stray = sorted(s.id for s in all_sets() if s.chapter not in numbers)
    assert not stray, f"tests/variants/ has sets of unregistered chapters: {stray}"

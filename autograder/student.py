"""Student mode: check the learner's own tree (their whole stack, public checks).

Which tree: ``chapters/`` (your work), or, in the course repository, the reference when
``SPARROW_IMPL`` (the same switch the notebooks follow) or ``--impl`` names it. Scores here
can differ from an instructor's, who grades each chapter in isolation and with hidden checks.

Every check runs, the newest included; the report (``report.py``) scores the tree at the
course version it started at (``tree_version``) and shows newer tasks as "new in v1.1".
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from . import versions
from .checking import ChapterResult, check_chapter
from .course import CHAPTERS, Chapter
from .language import tr
from .runner import Limits

REPO = Path(__file__).resolve().parent.parent
IMPLEMENTATIONS = ("chapters", "solutions")


class SetupError(Exception):
    """Something a learner must fix before checks can run; the message says what."""


def _restore(repo: Path) -> str:
    """How to get the starter code back: the repository generates it, a release ships it."""
    if (repo / "solutions").is_dir():
        return tr(
            "generate the starter code again (the repository's stubs target)",
            "重新生成初始代码（仓库的 stubs 目标）",
        )
    return tr(
        "copy it from a fresh copy of the course release (your other chapters stay as they are)",
        "从一份新的课程发布版里把它复制过来（你的其他章节保持不变）",
    )


def tree_root(impl: str | None = None, repo: Path = REPO) -> Path:
    impl = impl or os.environ.get("SPARROW_IMPL", "").strip() or "chapters"
    if impl not in IMPLEMENTATIONS:
        raise SetupError(f"SPARROW_IMPL / --impl must be 'chapters' or 'solutions', not {impl!r}")
    root = repo / impl
    if not root.is_dir():
        if impl == "solutions":
            raise SetupError(
                f"there is no {root}: the reference implementation is only in the course "
                "repository; this release has your own chapters"
            )
        raise SetupError(f"there is no {root}: {_restore(repo)}")
    return root


def default_impl(repo: Path = REPO) -> str:
    """The tree a benchmark measures unless told: ``$SPARROW_IMPL``, else the reference
    where the course repository has it, else your chapters (a release)."""
    named = os.environ.get("SPARROW_IMPL", "").strip()
    return named or ("solutions" if (repo / "solutions").is_dir() else "chapters")


def tree_version(impl: str | None = None, repo: Path = REPO) -> versions.TreeVersion:
    """The course version of the tree checked (``chapters/.sparrow-version``; none: 1.0),
    its start the earlier of the record's and the copy kept in ``.sparrow/`` (a ``git pull``
    replaces the record); the reference is always at the course's own version."""
    root = tree_root(impl, repo)
    if root.name == "solutions":
        return versions.current()
    return versions.remembered(repo, versions.read(root))


def check(
    chapter: Chapter,
    *,
    impl: str | None = None,
    task_ids: Sequence[str] | None = None,
    limits: Limits = Limits(),
    repo: Path = REPO,
    device: str | None = None,
) -> ChapterResult:
    root = tree_root(impl, repo)
    if not (root / chapter.package).is_dir():
        raise SetupError(f"there is no {root / chapter.package} folder: {_restore(repo)}")
    if not chapter.ready:
        raise SetupError(f"chapter {chapter.number} ({chapter.title}) is not written yet")
    if device and chapter.number in (1, 7):
        raise SetupError(
            "--device runs the checks of chapters 2–6 and 8 on a device (chapter 1 has no "
            "tensors; chapter 7's checks choose their devices themselves)"
        )
    packages = {ch.package: root / ch.package for ch in CHAPTERS if (root / ch.package).is_dir()}
    on = tr(f", on the device {device}", f"，在设备 {device} 上") if device else ""
    source = f"{root.name}/{chapter.package}{on}"
    return check_chapter(
        chapter, packages, task_ids=task_ids, limits=limits, source=source, device=device
    )

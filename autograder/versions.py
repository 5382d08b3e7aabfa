"""Course versions: which tasks and checks a version of the course had, and which version a
student's tree is at.

Every task (``Task.since``) and every check (``Check.since``) carries the course version it
arrived in (a check: or was last tightened in). ``COURSE_VERSION`` is this course's own.

A student's tree records its version in ``chapters/.sparrow-version`` (``VERSION_FILE``),
written by the stub generator (a clone), shipped in a release and rewritten by
``make update``. Its first line is the version whose stubs and given code the tree holds;
a second line ``started 1.0`` keeps the version the student started at, through updates
(absent: the same as the first). A tree without the file counts as ``BASE_VERSION``.

Student mode shows a task newer than the version the tree started at as "new in v1.1" and
scores the tree on the tasks and checks of its own version (``report.py``); ``python -m autograder
grade --course-version 1.0`` grades with the tasks and checks of 1.0 alone (``checking.py``).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .course import Chapter
from .harness.api import Check
from .tasks import Task

COURSE_VERSION = "1.3"  # this course's version: raise it when a task or check arrives
BASE_VERSION = "1.0"  # the first versioned course; a tree with no record is at it
VERSION_FILE = ".sparrow-version"  # in chapters/
_VERSION = re.compile(r"v?(\d+(?:\.\d+)*)")
_STARTED = "started "


def parse(version: str) -> tuple[int, ...]:
    """``"1.10"`` → ``(1, 10)``: versions compare as numbers (1.10 is newer than 1.9);
    trailing zeros do not count (1 = 1.0). A leading "v" is allowed."""
    match = _VERSION.fullmatch(str(version).strip())
    if not match:
        raise ValueError(f"a course version looks like 1.0 or 1.2, not {version!r}")
    parts = [int(p) for p in match[1].split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def normal(version: str) -> str:
    """The version as reports write it: ``"v1.1"`` → ``"1.1"``, ``"2"`` → ``"2.0"``."""
    parts = list(parse(version))
    return ".".join(str(p) for p in parts + [0] * (2 - len(parts)))


def at_most(since: str, version: str) -> bool:
    """Whether something that arrived in ``since`` is part of course version ``version``."""
    return parse(since) <= parse(version)


def newer(since: str, version: str) -> bool:
    return not at_most(since, version)


def check_pin(version: str) -> str:
    """``version`` as a pin for grading, or a clear error: a version this course has had."""
    if parse(version) > parse(COURSE_VERSION):
        raise ValueError(
            f"the course is at version {COURSE_VERSION}; it has no version {version} yet"
        )
    if parse(version) < parse(BASE_VERSION):
        raise ValueError(f"the course's versions start at {BASE_VERSION}, not {version}")
    return normal(version)


def tasks_at(chapter: Chapter, version: str) -> list[Task]:
    """The chapter's task table as it was at ``version``."""
    return [t for t in chapter.tasks if at_most(t.since, version)]


def chapter_at(chapter: Chapter, version: str | None) -> Chapter:
    """The chapter as course version ``version`` had it: the same chapter whose ``tasks``
    (and so ``points``) are that version's; ``chapter`` itself for None."""
    if version is None:
        return chapter
    old = Chapter(chapter.number, chapter.package, chapter.title)
    old.__dict__["tasks"] = tasks_at(chapter, version)  # ``tasks`` is a cached_property
    return old


def checks_of(modules: Iterable[str]) -> list[Check]:
    """Every check of these check modules (``CHECKS``)."""
    return [c for m in modules for c in importlib.import_module(m).CHECKS]


def left_out(chapter: Chapter, checks: Sequence[Check], version: str) -> list[str]:
    """The tasks and checks newer than ``version``, in words, each with its version:
    ``task 1.8 (v1.1)``, ``check 1.3 "mul by a Value" (v1.1)``. The checks of a task
    that is itself newer are not listed apart."""
    tasks = [t for t in chapter.tasks if newer(t.since, version)]
    new_ids = {t.id for t in tasks}
    out = [f"task {t.id} (v{normal(t.since)})" for t in tasks]
    out += [
        f'check {c.task} "{c.name}" (v{normal(c.since)})'
        for c in checks
        if newer(c.since, version) and c.task not in new_ids
    ]
    return out


# -- a tree's record ----------------------------------------------------------------------


@dataclass(frozen=True)
class TreeVersion:
    """What ``chapters/.sparrow-version`` says: the version of the tree's stubs and given
    code, and the version the student started at (the one their scores are kept at)."""

    version: str = BASE_VERSION
    started: str = BASE_VERSION

    def text(self) -> str:
        lines = [self.version]
        if parse(self.started) != parse(self.version):
            lines.append(_STARTED + self.started)
        return "\n".join(lines) + "\n"

    def updated(self, version: str, *, keep_start: bool) -> TreeVersion:
        """The record after an update to ``version``: the start kept where the tree holds
        the student's work (``keep_start``), else the new version."""
        return TreeVersion(normal(version), self.started if keep_start else normal(version))


def read(chapters: Path) -> TreeVersion:
    """The record of the tree ``chapters``; ``BASE_VERSION`` where there is none (a tree
    older than versions), or where it cannot be read."""
    try:
        lines = (chapters / VERSION_FILE).read_text(encoding="utf-8").split("\n")
        version = normal(lines[0])
        started = next(
            (normal(line[len(_STARTED) :]) for line in lines[1:] if line.startswith(_STARTED)),
            version,
        )
    except (OSError, ValueError, UnicodeDecodeError):
        return TreeVersion()
    return TreeVersion(version, started)


# A copy of the start beside chapters/, in the folder git ignores: a clone's ``git pull`` of
# committed work replaces chapters/.sparrow-version with the course's (the start lost).
START_COPY = Path(".sparrow") / "started-version"


def remember(repo: Path, started: str) -> None:
    """Keep ``started`` in ``repo/.sparrow`` (a temporary file and a rename; a folder that
    cannot be written keeps nothing: the record in chapters/ still holds it)."""
    path = repo / START_COPY
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(normal(started) + "\n", encoding="utf-8")
        tmp.replace(path)
    except OSError:
        pass


def remembered(repo: Path, tree: TreeVersion) -> TreeVersion:
    """``tree`` (``repo/chapters``' record) with the earlier of its start and the copy in
    ``repo/.sparrow``; the first read keeps a copy of the tree's own start."""
    try:
        kept = normal((repo / START_COPY).read_text(encoding="utf-8").strip())
    except (OSError, ValueError, UnicodeDecodeError):
        remember(repo, tree.started)
        return tree
    return TreeVersion(tree.version, min(tree.started, kept, key=parse))


def current() -> TreeVersion:
    """The record of a tree fresh at this course's version."""
    return TreeVersion(COURSE_VERSION, COURSE_VERSION)

"""Ingestion: copy a submission into the grader's private area before anything runs.

A submission is a folder or a zip holding chapter folders of ``.py`` files
(``chapters/ch01_value/value.py``, found at any depth). Nothing of it is executed or
interpreted here (no ``git``, no imports): its ``.py`` files are copied as bytes, and

- symbolic links are never followed nor kept (a folder's links and a zip's link entries are
  skipped, and the feedback says so);
- zip names that are absolute, hold ``..`` or a drive are refused (zip-slip);
- sizes are bounded while reading, not from the zip's own headers (zip bombs): per file,
  in all, and the number of entries;
- other files (notebooks, caches, data) are left out.
"""

from __future__ import annotations

import os
import re
import stat
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .course import CHAPTERS


class Rejected(Exception):
    """The submission cannot be graded at all; the message says why."""


@dataclass(frozen=True)
class IngestLimits:
    max_files: int = 2000  # entries looked at (files and folders)
    max_file_bytes: int = 1 * 2**20  # one .py file
    max_total_bytes: int = 16 * 2**20  # every .py file together
    max_depth: int = 32  # folders deep


@dataclass
class Submission:
    """A submission's private copy: ``packages`` maps each chapter package found to its
    folder in the copy; ``notes`` are what ingestion left out, for the feedback."""

    name: str
    source: Path
    root: Path
    packages: dict[str, Path] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
PACKAGES = {ch.package for ch in CHAPTERS}


def submission_name(path: Path) -> str:
    """A file-system-safe name for a submission: its folder's or zip's name."""
    stem = path.name[:-4] if path.name.lower().endswith(".zip") else path.name
    return _SAFE.sub("_", stem).strip("._") or "submission"


class _Budget:
    def __init__(self, limits: IngestLimits) -> None:
        self.limits, self.files, self.bytes = limits, 0, 0

    def entry(self) -> None:
        self.files += 1
        if self.files > self.limits.max_files:
            raise Rejected(f"more than {self.limits.max_files} files and folders")

    def read(self, stream, name: str) -> bytes:
        """At most the per-file and total limits from ``stream``, or Rejected."""
        limit = self.limits.max_file_bytes
        data = stream.read(limit + 1)
        if len(data) > limit:
            raise Rejected(f"{name} is larger than {limit // 1024} KiB")
        self.bytes += len(data)
        if self.bytes > self.limits.max_total_bytes:
            raise Rejected(f"the .py files add up to more than {self.limits.max_total_bytes} bytes")
        return data


def _safe_parts(name: str) -> tuple[str, ...] | None:
    """The parts of a zip entry's name, or None when it is absolute or climbs (``..``)."""
    name = name.replace("\\", "/")
    path = PurePosixPath(name)
    if name.startswith("/") or path.is_absolute() or re.match(r"^[A-Za-z]:", name):
        return None
    parts = tuple(p for p in path.parts if p not in ("", "."))
    if any(p == ".." for p in parts):
        return None
    return parts


def _write(dest: Path, parts: tuple[str, ...], data: bytes) -> None:
    target = dest.joinpath(*parts)
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "xb") as out:  # never through a link, never over a file
        out.write(data)


def _from_zip(source: Path, dest: Path, limits: IngestLimits, notes: list[str]) -> None:
    budget = _Budget(limits)
    try:
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError) as exc:
        raise Rejected(f"{source.name} is not a readable zip file ({exc})") from None
    with archive:
        for info in archive.infolist():
            budget.entry()
            parts = _safe_parts(info.filename)
            if parts is None:
                raise Rejected(
                    f"the zip holds an unsafe path: {info.filename!r} (absolute or '..')"
                )
            if len(parts) > limits.max_depth:
                raise Rejected(f"{info.filename!r} is more than {limits.max_depth} folders deep")
            if stat.S_ISLNK(info.external_attr >> 16):
                notes.append(f"skipped the symbolic link {info.filename}")
                continue
            if info.is_dir() or not parts or not parts[-1].endswith(".py"):
                continue
            try:
                with archive.open(info) as stream:
                    data = budget.read(stream, info.filename)
            except (zipfile.BadZipFile, OSError, RuntimeError, EOFError) as exc:
                raise Rejected(f"cannot read {info.filename!r} from the zip ({exc})") from None
            try:
                _write(dest, parts, data)
            except FileExistsError:
                notes.append(f"skipped a second copy of {info.filename}")


def _from_folder(source: Path, dest: Path, limits: IngestLimits, notes: list[str]) -> None:
    budget = _Budget(limits)
    todo: list[tuple[Path, tuple[str, ...]]] = [(source, ())]
    while todo:
        folder, parts = todo.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            notes.append(f"could not read the folder {'/'.join(parts) or '.'} ({exc.strerror})")
            continue
        for entry in entries:
            budget.entry()
            rel = (*parts, entry.name)
            if entry.is_symlink():
                notes.append(f"skipped the symbolic link {'/'.join(rel)}")
            elif entry.is_dir(follow_symlinks=False):
                if entry.name in (".git", "__pycache__", ".ipynb_checkpoints"):
                    continue
                if len(rel) > limits.max_depth:
                    raise Rejected(f"{'/'.join(rel)} is more than {limits.max_depth} folders deep")
                todo.append((Path(entry.path), rel))
            elif entry.is_file(follow_symlinks=False) and entry.name.endswith(".py"):
                flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                try:
                    fd = os.open(entry.path, flags)
                except OSError as exc:
                    notes.append(f"could not read {'/'.join(rel)} ({exc.strerror})")
                    continue
                with os.fdopen(fd, "rb") as stream:
                    if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
                        continue
                    _write(dest, rel, budget.read(stream, "/".join(rel)))


def _chapter_folders(root: Path, notes: list[str]) -> dict[str, Path]:
    """Each chapter package's folder in the copy: a folder named like a package
    (``ch01_value``) at any depth, preferring one inside a ``chapters`` folder, then the
    shallowest."""
    found: dict[str, list[Path]] = {}
    for folder in sorted(p for p in root.rglob("*") if p.is_dir()):
        if folder.name in PACKAGES and any(folder.glob("*.py")):
            found.setdefault(folder.name, []).append(folder)
    chosen = {}
    for package, folders in found.items():
        folders.sort(key=lambda f: (f.parent.name != "chapters", len(f.parts), str(f)))
        chosen[package] = folders[0]
        if len(folders) > 1:
            others = ", ".join(str(f.relative_to(root)) for f in folders[1:])
            notes.append(
                f"found {package} more than once; graded {folders[0].relative_to(root)}, "
                f"ignored {others}"
            )
    return chosen


def ingest(source: Path, dest: Path, limits: IngestLimits = IngestLimits()) -> Submission:
    """Copy the ``.py`` files of ``source`` (a folder or a zip) into ``dest`` (which must
    not exist) and find its chapter folders. Raises Rejected when nothing can be graded."""
    submission = Submission(submission_name(source), source, dest)
    dest.mkdir(parents=True)
    if source.is_symlink():
        raise Rejected(f"{source.name} is a symbolic link")
    if source.is_file() and source.name.lower().endswith(".zip"):
        _from_zip(source, dest, limits, submission.notes)
    elif source.is_dir():
        _from_folder(source, dest, limits, submission.notes)
    else:
        raise Rejected(f"{source.name} is neither a folder nor a .zip file")
    submission.packages = _chapter_folders(dest, submission.notes)
    return submission


def submissions_in(folder: Path) -> list[Path]:
    """The submissions of a batch: each folder or ``.zip`` directly inside ``folder``
    (hidden names skipped), in name order."""
    if not folder.is_dir():
        raise FileNotFoundError(f"there is no folder {folder}")
    return sorted(
        p
        for p in folder.iterdir()
        if (not p.name.startswith(".") and (p.is_dir() or p.name.lower().endswith(".zip")))
        or p.is_symlink()
    )

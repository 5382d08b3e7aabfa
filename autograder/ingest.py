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
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .course import CHAPTERS


class Rejected(Exception):
    """The submission cannot be graded at all; the message says why."""


@dataclass(frozen=True)
class IngestLimits:
    max_files: int = 2000  # .py files in chapter folders
    max_entries: int = 200_000  # entries of a zip, or folders walked
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
# and every folder named .*; __MACOSX: the resource forks macOS's Compress adds to a zip
SKIPPED = {"__pycache__", "site-packages", "node_modules", "__MACOSX"}


def printable(name: str) -> str:
    """A name a submission chose, safe to print in any report: no control characters, no
    undecodable bytes."""
    text = name.encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace")
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)


def _wanted(parts: tuple[str, ...]) -> bool:
    """Whether a file is read at all: a ``.py`` file inside a chapter folder, under no
    skipped folder (a whole course zipped with its .venv stays small this way)."""
    folders = parts[:-1]
    if any(p.startswith(".") or p in SKIPPED for p in folders):
        return False
    return parts[-1].endswith(".py") and any(p in PACKAGES for p in folders)


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
            raise Rejected(f"more than {self.limits.max_files} .py files in chapter folders")

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
        raise Rejected(f"{printable(source.name)} is not a readable zip file ({exc})") from None
    with archive:
        infos = archive.infolist()
        if len(infos) > limits.max_entries:
            raise Rejected(f"the zip holds more than {limits.max_entries} entries")
        for info in infos:
            parts = _safe_parts(info.filename)
            if parts is None:
                name = printable(info.filename)
                raise Rejected(f"the zip holds an unsafe path (absolute or '..'): {name!r}")
            if len(parts) > limits.max_depth:
                raise Rejected(f"{printable(info.filename)!r} is more than {limits.max_depth} deep")
            if info.is_dir() or not parts or not _wanted(parts):
                continue
            if stat.S_ISLNK(info.external_attr >> 16):
                notes.append(f"skipped the symbolic link {printable(info.filename)}")
                continue
            budget.entry()
            try:
                with archive.open(info) as stream:
                    data = budget.read(stream, printable(info.filename))
                _write(dest, parts, data)
            except FileExistsError:
                notes.append(f"skipped a second copy of {printable(info.filename)}")
            except (zipfile.BadZipFile, OSError, RuntimeError, EOFError, zlib.error) as exc:
                raise Rejected(
                    f"cannot read {printable(info.filename)!r} from the zip ({type(exc).__name__})"
                ) from None


def _from_folder(source: Path, dest: Path, limits: IngestLimits, notes: list[str]) -> None:
    budget, walked = _Budget(limits), 0
    todo: list[tuple[Path, tuple[str, ...]]] = [(source, ())]
    while todo:
        folder, parts = todo.pop()
        walked += 1
        if walked > limits.max_entries:
            raise Rejected(f"more than {limits.max_entries} folders")
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            notes.append(
                f"could not read the folder {printable('/'.join(parts) or '.')} ({exc.strerror})"
            )
            continue
        for entry in entries:
            rel = (*parts, entry.name)
            if entry.is_symlink():
                notes.append(f"skipped the symbolic link {printable('/'.join(rel))}")
            elif entry.is_dir(follow_symlinks=False):
                if not (entry.name.startswith(".") or entry.name in SKIPPED):
                    if len(rel) > limits.max_depth:
                        raise Rejected(
                            f"{printable('/'.join(rel))} is more than {limits.max_depth} deep"
                        )
                    todo.append((Path(entry.path), rel))
            elif _wanted(rel) and entry.is_file(follow_symlinks=False):
                budget.entry()
                try:
                    fd = os.open(entry.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
                    with os.fdopen(fd, "rb") as stream:
                        if stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
                            _write(dest, rel, budget.read(stream, printable("/".join(rel))))
                except OSError as exc:
                    notes.append(f"could not read {printable('/'.join(rel))} ({exc.strerror})")


def _chapter_folders(root: Path, notes: list[str]) -> dict[str, Path]:
    """Each chapter package's folder in the copy: a folder named like a package
    (``ch01_value``) at any depth, holding a ``.py`` file at any depth (chapter 5's task
    files are all in subpackages: ``ch05_nn/nn/module.py``), preferring one inside a
    ``chapters`` folder, then the shallowest."""
    found: dict[str, list[Path]] = {}
    for folder in sorted(p for p in root.rglob("*") if p.is_dir()):
        if folder.name in PACKAGES and any(folder.rglob("*.py")):
            found.setdefault(folder.name, []).append(folder)
    chosen = {}
    for package, folders in found.items():
        # one with no .py file of its own around another of its name (a hand-in unzipped
        # into a folder of that name and zipped again): the inner one is the chapter
        folders = [
            f
            for f in folders
            if any(f.glob("*.py")) or not any(o != f and o.is_relative_to(f) for o in folders)
        ]
        folders.sort(key=lambda f: (f.parent.name != "chapters", len(f.parts), str(f)))
        chosen[package] = folders[0]
        if len(folders) > 1:
            others = ", ".join(printable(str(f.relative_to(root))) for f in folders[1:])
            notes.append(
                f"found {package} more than once; graded "
                f"{printable(str(folders[0].relative_to(root)))}, ignored {others}"
            )
    return chosen


def ingest(source: Path, dest: Path, limits: IngestLimits = IngestLimits()) -> Submission:
    """Copy the ``.py`` files of ``source`` (a folder or a zip) into ``dest`` (which must
    not exist) and find its chapter folders. Raises Rejected when nothing can be graded."""
    submission = Submission(submission_name(source), source, dest)
    dest.mkdir(parents=True)
    if source.is_symlink():
        raise Rejected(f"{printable(source.name)} is a symbolic link")
    if source.is_file() and source.name.lower().endswith(".zip"):
        _from_zip(source, dest, limits, submission.notes)
    elif source.is_dir():
        _from_folder(source, dest, limits, submission.notes)
    else:
        raise Rejected(f"{printable(source.name)} is neither a folder nor a .zip file")
    submission.packages = _chapter_folders(dest, submission.notes)
    return submission


def ingest_safely(source: Path, dest: Path, limits: IngestLimits = IngestLimits()) -> Submission:
    """``ingest``, with anything the file system says about the submission (a name too
    long, a file where a folder should be) as Rejected too."""
    try:
        return ingest(source, dest, limits)
    except (OSError, UnicodeError, ValueError) as exc:
        raise Rejected(
            f"cannot copy it ({type(exc).__name__}: {printable(str(exc))[:200]})"
        ) from None


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

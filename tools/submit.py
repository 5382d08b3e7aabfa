"""The zip you hand in: ``make submit CHAPTER=N`` (``python -m tools.submit N``).

It holds the ``.py`` files of your chapters 1…N (``chapters/ch01_value/value.py``, …), so
your instructor can grade chapter N alone or on top of your own earlier chapters, and
nothing else: no notebooks, no caches. Before writing it, every file is compiled (not run)
and chapter N is checked as ``make chapter-N`` checks it. Failing tasks do not stop the zip
(hand in what you have); a file that does not compile is named with its line, and the zip
is still written, but the chapter holding that file cannot be graded until it compiles.

    python -m tools.submit 3                        # writes submissions/sparrow-ch03.zip
    python -m tools.submit 3 --out ~/hand-in.zip    # somewhere else

Exit status: 0 the zip is written; 1 the zip is written but a file does not compile;
2 nothing is written (no such chapter folder, or a symbolic link among your files).
The zip is the same, byte for byte, for the same files: entries are sorted and dated
1980-01-01.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import warnings
import zipfile
from pathlib import Path

from autograder import report, student
from autograder.course import CHAPTERS, Chapter, chapter
from tools.reset import atomic_write

REPO = Path(__file__).resolve().parent.parent
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # the earliest date a zip can hold: no clock in the bytes


class SubmitError(Exception):
    """Nothing can be handed in until this is fixed; the message says what."""


def _refuse_link(path: Path, root: Path) -> None:
    if path.is_symlink():
        raise SubmitError(
            f"{path.relative_to(root).as_posix()} is a symbolic link; a submission holds "
            "only real files. Replace the link by a copy of the file (or remove it)."
        )


def chapter_folders(root: Path, number: int) -> list[tuple[Chapter, Path]]:
    """Your chapter folders 1…``number`` that exist; chapter ``number`` must."""
    _refuse_link(root / "chapters", root)
    folders = []
    for ch in CHAPTERS:
        folder = root / "chapters" / ch.package
        if ch.number > number:
            break
        _refuse_link(folder, root)
        if folder.is_dir():
            folders.append((ch, folder))
        elif ch.number == number:
            raise SubmitError(
                f"there is no chapters/{ch.package} folder in {root}: nothing to hand in "
                f"for chapter {number}"
            )
    return folders


def collect(root: Path, folders: list[Path]) -> dict[str, bytes]:
    """Every ``.py`` file under ``folders``, by its path relative to ``root`` (forward
    slashes); caches and hidden folders are skipped, a symbolic link anywhere is refused."""
    files = {}
    for folder in folders:
        for where, dirs, names in os.walk(folder):
            here = Path(where)
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
            for name in [*dirs, *names]:
                _refuse_link(here / name, root)
            for name in names:
                if name.endswith(".py"):
                    path = here / name
                    files[path.relative_to(root).as_posix()] = path.read_bytes()
    return dict(sorted(files.items()))


def compile_errors(files: dict[str, bytes]) -> list[str]:
    """One line (or two, with the code) per file that does not compile; nothing is run."""
    problems = []
    for rel, source in files.items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # SyntaxWarnings are not our business here
                compile(source, rel, "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as exc:
            line = getattr(exc, "lineno", None)
            where = f"{rel}, line {line}" if line else rel
            problems.append(f"{where}: {getattr(exc, 'msg', None) or exc}")
            text = (getattr(exc, "text", None) or "").strip()
            if text:
                problems.append(f"    {text}")
    return problems


def zip_bytes(files: dict[str, bytes]) -> bytes:
    """A reproducible zip of ``files``: sorted entries, fixed dates and permissions."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for rel in sorted(files):
            info = zipfile.ZipInfo(rel, date_time=ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # Unix, whatever the machine: same bytes everywhere
            info.external_attr = 0o100644 << 16
            archive.writestr(info, files[rel])
    return buffer.getvalue()


def _shown(path: Path) -> str:
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def _local_check(ch: Chapter, root: Path) -> str:
    """Chapter ``ch`` checked as ``make chapter-N`` would, printed; returns the summary."""
    try:
        result = student.check(ch, impl="chapters", repo=root)
    except student.SetupError as exc:
        print(f"no local check: {exc}")
        return "not checked"
    print(report.chapter_report(result, student.tree_version("chapters", root).started))
    print()
    passed = sum(t.passed for t in result.tasks)
    return f"{passed} of {len(result.tasks)} tasks pass"


def submit(number: int | str, root: Path = REPO, out: Path | None = None) -> int:
    """Check, then write the zip; returns the exit status (see the module docstring)."""
    ch = chapter(number)
    folders = chapter_folders(root, ch.number)
    files = collect(root, [folder for _, folder in folders])
    if not files:
        raise SubmitError(f"chapters/{ch.package} holds no .py file")
    problems = compile_errors(files)
    if problems:
        print("These files do not compile; the chapter holding one cannot be imported:")
        print("\n".join(f"  {line}" for line in problems), end="\n\n")
    summary = _local_check(ch, root)
    out = out or root / "submissions" / f"sparrow-ch{ch.number:02d}.zip"
    atomic_write(out, zip_bytes(files))
    which = ", ".join(str(c.number) for c, _ in folders)
    print(
        f"{summary}; zip written to {_shown(out)} "
        f"({len(files)} files of chapter{'s' if len(folders) > 1 else ''} {which})"
    )
    if problems:
        print(
            "It holds code that does not compile (listed above): fix it and run "
            f"`make submit CHAPTER={ch.number}` again before you hand the zip in."
        )
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.submit", description=__doc__.split("\n")[0]
    )
    parser.add_argument("chapter", help="the chapter you hand in, e.g. 1")
    parser.add_argument("--out", type=Path, help="where to write the zip")
    parser.add_argument(
        "--root",
        type=Path,
        default=REPO,
        help="your copy of the course (the folder holding chapters/); default: this one",
    )
    args = parser.parse_args(argv)
    try:
        return submit(args.chapter, args.root.resolve(), args.out)
    except (SubmitError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

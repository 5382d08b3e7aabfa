"""The stub generator: ``solutions/`` (the one hand-written copy) → ``chapters/`` (what
students edit).

Each task region of the reference,

    ### BEGIN SOLUTION 1.3
    ...
    ### END SOLUTION

becomes ``raise NotImplementedError("Task 1.3: <title> — see <section> of the notebook")``,
with the title and section from the chapter's task table; every other file is copied as it
is. ``chapters/.manifest.json`` records a hash of every generated file, so the generator can
tell a file it wrote from a file a student edited: it never overwrites an edited file
unless ``--force`` is given, and then it first keeps a copy under ``.sparrow/backups/``.
Notebooks are the exception: they hold no student work, so a changed notebook replaces the
student's copy (with its outputs) after the same backup.

    python -m tools.stubs              # regenerate chapters/ (make stubs)
    python -m tools.stubs --check      # exit 1 if chapters/ drifted, 3 if it holds student work
    python -m tools.stubs --force      # replace edited files whose stubs changed (backed up)
    python -m tools.stubs reset 1.3    # put task 1.3 back to its stub (make reset TASK=1.3)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

from tools import reset as restore
from tools.reset import atomic_write as _atomic_write
from tools.reset import backup

REPO = Path(__file__).resolve().parent.parent
MANIFEST = ".manifest.json"
SKIP_DIRS = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache"}
SKIP_SUFFIXES = {".pyc", ".pyo"}
BEGIN = re.compile(r"^(?P<indent>[ \t]*)### BEGIN SOLUTION(?:[ \t]+(?P<task>\S+))?[ \t]*$")
END = re.compile(r"^[ \t]*### END SOLUTION[ \t]*$")
MARKER = re.compile(r"###\s*(BEGIN|END)\s+SOLUTION")
LINE_LIMIT = 100


class StubError(Exception):
    """A problem the person running the generator must fix; the message says what."""


def _task_message(task_id: str) -> str:
    from autograder.course import task

    try:
        return task(task_id)[1].stub_message
    except (KeyError, ValueError) as exc:
        raise StubError(str(exc.args[0])) from None


def _raise_line(indent: str, message: str) -> list[str]:
    literal = json.dumps(message, ensure_ascii=False)
    one = f"{indent}raise NotImplementedError({literal})"
    if len(one) <= LINE_LIMIT:
        return [one]
    return [f"{indent}raise NotImplementedError(", f"{indent}    {literal}", f"{indent})"]


def stub_source(
    text: str, where: str = "<source>", message: Callable[[str], str] = _task_message
) -> str:
    """``text`` with every task region replaced by its stub (see the module docstring)."""
    out: list[str] = []
    region: tuple[int, str] | None = None  # (line number, task id) of the open BEGIN
    for number, line in enumerate(text.splitlines(), start=1):
        begin, end = BEGIN.match(line), END.match(line)
        if begin:
            if region:
                raise StubError(
                    f"{where}:{number}: BEGIN SOLUTION inside the region opened at line {region[0]}"
                )
            if not begin["task"]:
                raise StubError(
                    f"{where}:{number}: BEGIN SOLUTION needs a task id, e.g. "
                    "'### BEGIN SOLUTION 1.3'"
                )
            region = (number, begin["task"])
            out.extend(_raise_line(begin["indent"], message(begin["task"])))
        elif end:
            if not region:
                raise StubError(f"{where}:{number}: END SOLUTION without a BEGIN SOLUTION")
            region = None
        elif MARKER.search(line):
            raise StubError(f"{where}:{number}: malformed solution marker: {line.strip()!r}")
        elif not region:
            out.append(line)
    if region:
        raise StubError(f"{where}:{region[0]}: BEGIN SOLUTION {region[1]} is never closed")
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def _files(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file()
        and not SKIP_DIRS.intersection(p.relative_to(root).parts)
        and p.suffix not in SKIP_SUFFIXES
    )


def generate(solutions: Path) -> dict[str, bytes]:
    """Every file of ``chapters/`` as the generator writes it, by path relative to it."""
    out = {}
    for path in _files(solutions):
        rel = path.relative_to(solutions).as_posix()
        if path.suffix == ".py":
            out[rel] = stub_source(path.read_text(encoding="utf-8"), f"solutions/{rel}").encode()
        else:
            out[rel] = path.read_bytes()
    return out


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_manifest(chapters: Path) -> dict[str, str]:
    try:
        return json.loads((chapters / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def edited_files(chapters: Path) -> list[str]:
    """Files of ``chapters/`` that differ from what the generator last wrote there: a
    student's work. A missing manifest means everything there is the student's."""
    manifest = read_manifest(chapters)
    edited = []
    for path in _files(chapters):
        rel = path.relative_to(chapters).as_posix()
        if rel != MANIFEST and manifest.get(rel) != _sha(path.read_bytes()):
            edited.append(rel)
    return edited


def manifest(generated: dict[str, bytes]) -> bytes:
    """The text of ``chapters/.manifest.json`` for these generated files."""
    hashes = {rel: _sha(data) for rel, data in sorted(generated.items())}
    return (json.dumps(hashes, indent=1) + "\n").encode()


def drift(chapters: Path, generated: dict[str, bytes]) -> list[str]:
    """How ``chapters/`` differs from ``generated`` (files missing, extra or different)."""
    present = {p.relative_to(chapters).as_posix() for p in _files(chapters)} - {MANIFEST}
    problems = [f"missing: {rel}" for rel in sorted(generated.keys() - present)]
    problems += [f"not generated: {rel}" for rel in sorted(present - generated.keys())]
    problems += [
        f"differs: {rel}"
        for rel in sorted(present & generated.keys())
        if (chapters / rel).read_bytes() != generated[rel]
    ]
    manifest = {rel: _sha(data) for rel, data in generated.items()}
    if read_manifest(chapters) != manifest:
        problems.append(f"differs: {MANIFEST}")
    return problems


def write(repo: Path = REPO, *, force: bool = False) -> list[str]:
    """Regenerate ``repo/chapters`` from ``repo/solutions``; returns what it did, line by line.

    A file the student edited is kept while its generated version has not changed. When it
    has (a conflict), the student's copy is backed up and replaced if it is a notebook
    (notebooks hold no student work, only outputs) or if ``force`` is given; any other
    conflict raises StubError, and nothing is written.
    """
    chapters = repo / "chapters"
    generated = generate(repo / "solutions")
    last = read_manifest(chapters)  # what the generator wrote last time
    existing = {p.relative_to(chapters).as_posix() for p in _files(chapters)} - {MANIFEST}
    edited = set(edited_files(chapters))
    stale = (existing & last.keys()) - generated.keys()  # generated once, no longer
    changes, kept = set(), []
    for rel, data in generated.items():
        if rel in existing and (chapters / rel).read_bytes() == data:
            continue
        if rel in edited and last.get(rel) == _sha(data):
            kept.append(rel)  # the student's version of a file that upstream left alone
            continue
        changes.add(rel)
    conflicts = sorted((changes | stale) & edited)
    blocking = [rel for rel in conflicts if not rel.endswith(".ipynb")]
    if blocking and not force:
        raise StubError(
            "the generated version of these files changed, and they hold your own edits:\n  "
            + "\n  ".join(f"chapters/{rel}" for rel in blocking)
            + "\nNothing was written. `make stubs FORCE=1` (python -m tools.stubs --force) "
            "replaces just these files and keeps a backup of your versions."
        )
    report = []
    if conflicts:
        where = backup([chapters / rel for rel in conflicts], repo)
        report.append(
            f"backed up your version of {_files_count(conflicts)} to {where.relative_to(repo)}"
        )
    for rel in sorted(changes):
        _atomic_write(chapters / rel, generated[rel])
        report.append(f"wrote chapters/{rel}")
    for rel in sorted(stale):
        (chapters / rel).unlink()
        report.append(f"removed chapters/{rel} (no longer generated)")
    _atomic_write(chapters / MANIFEST, manifest(generated))
    if kept:
        report.append(f"kept your work in {_files_count(kept)}")
    return report or ["chapters/ is up to date"]


def _files_count(files: list[str]) -> str:
    return f"{len(files)} file" + ("s" if len(files) != 1 else "")


# -- reset: one task back to its stub (tools/reset.py does the work) -----------------------


def reset(task_id: str, repo: Path = REPO) -> list[str]:
    """Put every function holding task ``task_id`` back to its stub in ``repo/chapters``,
    keeping a backup of each file it changes (``tools.reset.reset`` on these stubs)."""
    _task_message(task_id)  # a clear error for an unknown id
    solutions = repo / "solutions"
    opener = re.compile(rf"^\s*### BEGIN SOLUTION {re.escape(task_id)}\s*$", re.M)
    stubs = {}
    for source in _files(solutions):
        if source.suffix == ".py" and opener.search(text := source.read_text(encoding="utf-8")):
            rel = source.relative_to(solutions).as_posix()
            stubs[rel] = stub_source(text, f"solutions/{rel}")
    if not stubs:
        raise StubError(f"no region of task {task_id} was found under solutions/")
    try:
        return restore.reset(task_id, stubs, repo)
    except restore.ResetError as exc:
        raise StubError(str(exc)) from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.stubs", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--force", action="store_true", help="overwrite files with student edits (a backup is kept)"
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="only compare: exit 1 on drift, 3 when chapters/ holds student work",
    )
    parser.add_argument(
        "reset",
        nargs="*",
        metavar="reset TASK",
        help="put one task back to its stub, e.g. `reset 1.3`",
    )
    args = parser.parse_args(argv)
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    try:
        if args.reset:
            if args.reset[0] != "reset" or len(args.reset) != 2:
                parser.error("usage: python -m tools.stubs reset TASK (e.g. reset 1.3)")
            print("\n".join(reset(args.reset[1])))
            return 0
        if args.check:
            return check()
        print("\n".join(write(force=args.force)))
        return 0
    except StubError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def check(repo: Path = REPO) -> int:
    chapters = repo / "chapters"
    if not (repo / "solutions").is_dir():
        print("skipped: there is no solutions/ to compare with (a student release)")
        return 0
    problems = drift(chapters, generate(repo / "solutions"))
    if not problems:
        print("chapters/ is exactly what the generator writes")
        return 0
    if edited_files(chapters):
        print("skipped: chapters/ holds student work")
        return 3
    print("chapters/ drifted from solutions/ (run `make stubs`):\n  " + "\n  ".join(problems))
    return 1


if __name__ == "__main__":
    sys.exit(main())

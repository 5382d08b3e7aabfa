"""The stub generator: ``solutions/`` (the one hand-written copy) → ``chapters/`` (what
students edit).

The text of each stub comes from ``autograder.stubgen`` (each task region becomes its
``raise NotImplementedError("Task 1.3: …")``; every other file is copied as it is), which
the grader uses too. This module writes it: ``chapters/.manifest.json`` records a hash of
every generated file, so the generator can tell a file it wrote from a file a student
edited (``chapters/.sparrow-version`` records the course version the tree is at), and an
edited file whose stub changed is merged, never overwritten: the new given code, with every
task the student wrote kept byte for byte (``tools.update``, which also serves ``make
update``; a copy of the student's file is kept under ``.sparrow/backups/`` first). A changed
notebook replaces the student's copy after the same backup, which keeps their outputs and
any notes they wrote in it.

    python -m tools.stubs              # regenerate chapters/ (make stubs, make update)
    python -m tools.stubs --check      # exit 1 if chapters/ drifted, 3 if it holds student work
    python -m tools.stubs --force      # start edited files whose stubs changed over (backed up)

Putting one task back to its stub is ``python -m tools.reset 1.3`` (``make reset TASK=1.3``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograder import versions
from autograder.stubgen import StubError, generate
from autograder.stubgen import files as _files
from tools import update
from tools.update import MANIFEST, RECORDS, VERSION, read_json, sha

REPO = Path(__file__).resolve().parent.parent


def edited_files(chapters: Path) -> list[str]:
    """Files of ``chapters/`` that differ from what the generator last wrote there: a
    student's work. A missing manifest means everything there is the student's."""
    manifest = read_json(chapters / MANIFEST)
    edited = []
    for path in _files(chapters):
        rel = path.relative_to(chapters).as_posix()
        if rel not in RECORDS and manifest.get(rel) != sha(path.read_bytes()):
            edited.append(rel)
    return edited


def drift(chapters: Path, generated: dict[str, bytes]) -> list[str]:
    """How ``chapters/`` differs from ``generated`` (files missing, extra or different), its
    records included: the manifest, and the version file at this course's version."""
    present = {p.relative_to(chapters).as_posix() for p in _files(chapters)} - RECORDS
    problems = [f"missing: {rel}" for rel in sorted(generated.keys() - present)]
    problems += [f"not generated: {rel}" for rel in sorted(present - generated.keys())]
    problems += [
        f"differs: {rel}"
        for rel in sorted(present & generated.keys())
        if (chapters / rel).read_bytes() != generated[rel]
    ]
    hashes = {rel: sha(data) for rel, data in generated.items()}
    if read_json(chapters / MANIFEST) != hashes:
        problems.append(f"differs: {MANIFEST}")
    version = chapters / VERSION
    if not version.is_file():
        problems.append(f"missing: {VERSION}")
    elif version.read_bytes() != versions.current().text().encode():
        problems.append(f"differs: {VERSION} (the course is at {versions.COURSE_VERSION})")
    return problems


def write(repo: Path = REPO, *, force: bool = False) -> list[str]:
    """Regenerate ``repo/chapters`` from ``repo/solutions``; returns what it did, line by line.

    An edited file whose stub did not change is kept. One whose stub changed is merged
    (``tools.update``): given code new, the student's tasks kept, after a backup; with
    ``force`` it is replaced by its new stub instead (after the same backup). A solution
    marker problem raises StubError before anything is written.
    """
    return update.update(repo, generate(repo / "solutions"), force=force)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.stubs", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="start edited files whose stubs changed over from the new stubs (backed up)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="only compare: exit 1 on drift, 3 when chapters/ holds student work",
    )
    args = parser.parse_args(argv)
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    try:
        if args.check:
            return check()
        report = write(force=args.force)
    except StubError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print("\n".join(report))
    return update.exit_code(report)


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

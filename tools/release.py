"""The student release: ``make release`` (``python -m tools.release [--out DIR] [--force]
[--url URL] [--classroom N] [--no-read-ahead]``).

Writes the course as a student gets it, by default to ``dist/sparrow-student/``:

- ``chapters/``: fresh stubs from the generator (``autograder.stubgen.generate``, the
  release's tree: its notebooks' own wording, a Colab first cell that clones ``--url``), the
  manifest and the course version (``.sparrow-version``) included, and the same stubs in
  ``tools/pristine-stubs.json`` for ``make reset`` and ``make update`` (the stubs the
  student's files start from); a ``chapters/__init__.py`` without the repository's switch
  to the reference;
- the notebooks read ahead: each carries the reference's figures and printed values,
  marked "what yours should look like" (``tools.read_ahead``: the notebooks run against the
  reference; ``--no-read-ahead`` leaves them without outputs);
- ``.github/classroom/chNN.yml``: a GitHub Classroom autograding workflow for each chapter
  (``tools.classroom``), and ``--classroom N`` makes chapter N's the active one,
  ``.github/workflows/classroom.yml``;
- the public autograder (``autograder/`` less every folder named ``hidden``), ``support/``,
  ``datasets/``, and the tools the student targets run (set-up, reset, update, submit);
- the student ``Makefile``, ``README.md`` and ``.gitignore`` from ``tools/release_files/``;
- the environment files (requirements, ``environment.yml``) and ``pyproject.toml``.

Never ``solutions/``, ``tests/``, hidden checks, the stub generator, caches or a solution
marker: the finished folder is audited for all of these before it replaces anything. It is
built in a temporary folder beside ``--out`` and renamed into place; a folder that is
neither empty nor a previous release (which holds ``.sparrow-release``) is replaced only
with ``--force``. Inside the repository a release may only go under ``dist/`` or ``build/``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from autograder import course, stubgen, translations, versions
from tools import update

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "dist" / "sparrow-student"
TEMPLATES = REPO / "tools" / "release_files"
STAMP = ".sparrow-release"  # marks a folder as a release, which a new one may replace
PRISTINE = "tools/pristine-stubs.json"  # the stubs as released, for tools/reset.py

# Copied as they are (folders recursively, less what _skipped() names).
SHIPPED = (
    "autograder",
    "support",
    "datasets",
    "tools/__init__.py",
    "tools/setup.py",  # make setup
    "tools/reset.py",  # make reset
    "tools/merge.py",  # make update: one file
    "tools/update.py",  # make update FROM=new-release
    "tools/submit.py",  # make submit
    "tools/colab.py",  # each notebook's Colab cell
    "requirements.txt",
    "requirements-gpu.txt",
    "environment.yml",
    "pyproject.toml",
)
OPTIONAL = ("LICENSE",)  # shipped where the repository has one
TEMPLATED = {
    "Makefile": "Makefile",
    "README.md": "README.md",
    "README.zh.md": "README.zh.md",
    ".gitignore": "gitignore",
}
CHAPTERS_INIT = "chapters_init.py"  # chapters/__init__.py without the switch to a reference
PRIVATE_DIRS = {"hidden"}  # hidden checks: never in a student's hands
CACHE_DIRS = {"__pycache__"}
# Instructor-only paths that must never be in a release, whatever SHIPPED says.
NEVER = (
    "solutions",
    "tests",
    "autograder/hidden",
    "autograder/stubgen.py",  # the generator's core: instructor tooling, it names the markers
    "autograder/notebook_gen.py",  # the generator's notebooks
    "autograder/translations.py",  # the generator's translated notebooks
    "tools/stubs.py",
    "tools/release.py",
)
MARKER = re.compile(stubgen.MARKER.pattern.encode())


class ReleaseError(Exception):
    """The release cannot be written; the message says why."""


def _skipped(rel: Path) -> bool:
    """Whether a path (relative to the repository) stays out of a release."""
    return (
        any(part in PRIVATE_DIRS | CACHE_DIRS or part.startswith(".") for part in rel.parts)
        or rel.suffix in stubgen.SKIP_SUFFIXES
        or rel.as_posix() in NEVER
    )


def _copy(rel: str, dest: Path) -> None:
    source = REPO / rel
    paths = [source] if source.is_file() else sorted(source.rglob("*"))
    for path in paths:
        path_rel = path.relative_to(REPO)
        if path.is_file() and not _skipped(path_rel):
            target = dest / path_rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _version() -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(REPO), "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def build(
    dest: Path,
    *,
    url: str = "",
    classroom: int | None = None,
    read_ahead: bool = False,
    notes: list[str] | None = None,
) -> None:
    """Write the release's files into the (empty) folder ``dest``: Colab cells that clone
    ``url``, chapter ``classroom``'s workflow active, the notebooks read ahead or not (what
    the read-ahead left out, and why, added to ``notes``)."""
    numbers = [ch.number for ch in course.CHAPTERS]
    if classroom is not None and classroom not in numbers:  # before minutes of notebooks
        raise ReleaseError(f"--classroom {classroom}: the course has chapters {numbers}")
    try:
        generated = stubgen.generate(REPO / "solutions", target="release", url=url)
    except ValueError as exc:
        raise ReleaseError(str(exc)) from None
    if not generated:
        raise ReleaseError(f"{REPO / 'solutions'} holds nothing to generate stubs from")
    generated["__init__.py"] = (TEMPLATES / CHAPTERS_INIT).read_bytes()
    if read_ahead:
        from tools import read_ahead as reading  # runs the notebooks: the repository only

        notebooks = {
            rel: data
            for rel, data in generated.items()
            if rel.endswith(".ipynb") and not rel.endswith(".zh.ipynb")
        }
        try:
            generated.update(reading.fill(notebooks, repo=REPO, notes=notes))
        except reading.ReadAheadError as exc:
            raise ReleaseError(str(exc)) from None
        for rel in [r for r in generated if r.endswith(".zh.ipynb")]:  # the same code cells
            english = generated[rel.replace(".zh.ipynb", ".ipynb")]
            generated[rel] = translations.with_outputs(generated[rel], english)
    for rel, data in generated.items():
        _write(dest / "chapters" / rel, data)
    _write(dest / "chapters" / update.MANIFEST, update.manifest_text(generated))
    _write(dest / "chapters" / update.VERSION, versions.current().text().encode())
    pristine = {rel: data.decode() for rel, data in generated.items() if rel.endswith(".py")}
    text = json.dumps(pristine, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    _write(dest / PRISTINE, text.encode())
    for rel in SHIPPED:
        if not (REPO / rel).exists():
            raise ReleaseError(f"{rel} is missing from the repository")
        _copy(rel, dest)
    for rel in OPTIONAL:
        if (REPO / rel).exists():
            _copy(rel, dest)
    for name, template in TEMPLATED.items():
        shutil.copyfile(TEMPLATES / template, dest / name)
    _write_workflows(dest, classroom)
    stamp = f"Sparrow student release, course version {versions.COURSE_VERSION}, built from "
    _write(dest / STAMP, f"{stamp}{_version()}\n".encode())
    _write(dest / update.SHIPPED, update.shipped_record(dest))  # for the next make update


def _write_workflows(dest: Path, classroom: int | None) -> None:
    """Every chapter's Classroom workflow under ``.github/classroom/``; chapter
    ``classroom``'s also as the active workflow (none by default: a self-learner's copy
    on GitHub then runs no Actions on every push)."""
    from tools import classroom as workflows

    numbers = [ch.number for ch in course.CHAPTERS]
    for number in numbers:
        _write(dest / f".github/classroom/ch{number:02d}.yml", workflows.workflow(number).encode())
    if classroom is not None:
        text = workflows.workflow(classroom).encode()
        _write(dest / ".github/workflows/classroom.yml", text)


def audit(root: Path) -> list[str]:
    """What a student release must not hold, found in ``root``: instructor-only paths,
    caches and compiled files, hidden-check folders, solution markers in any file."""
    problems = [f"{rel} is instructor-only" for rel in NEVER if (root / rel).exists()]
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            problems.append(f"{rel} is a symbolic link")
        elif path.is_dir() and path.name in PRIVATE_DIRS | CACHE_DIRS:
            problems.append(f"{rel}/ must not ship")
        elif path.suffix in stubgen.SKIP_SUFFIXES:
            problems.append(f"{rel} is a compiled file")
        elif path.is_file() and MARKER.search(path.read_bytes()):
            problems.append(f"{rel} holds a solution marker")
    return problems


def _check_destination(out: Path, force: bool) -> None:
    if out == REPO or out in REPO.parents:
        raise ReleaseError(f"{out} holds the repository itself")
    if out.is_relative_to(REPO) and out.relative_to(REPO).parts[0] not in ("dist", "build"):
        raise ReleaseError("inside the repository a release goes under dist/ or build/")
    if out.exists() and not out.is_dir():
        raise ReleaseError(f"{out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / STAMP).is_file() and not force:
        raise ReleaseError(
            f"{out} is not empty and is not a previous release; choose another --out, "
            "or replace it with --force"
        )


def release(
    out: Path = DEFAULT_OUT,
    *,
    force: bool = False,
    url: str = "",
    classroom: int | None = None,
    read_ahead: bool = False,
    notes: list[str] | None = None,
) -> int:
    """Build (``build``'s options), audit and move the release into ``out``; returns how
    many files it holds."""
    out = out.resolve()
    _check_destination(out, force)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.new-"))
    try:
        build(tmp, url=url, classroom=classroom, read_ahead=read_ahead, notes=notes)
        problems = audit(tmp)
        if problems:
            raise ReleaseError("the release would leak:\n  " + "\n  ".join(problems))
        tmp.chmod(0o755)
        if out.exists():  # a previous release (or --force): moved aside, then deleted
            old = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.old-"))
            os.replace(out, old / out.name)
            try:
                os.replace(tmp, out)
            except OSError:
                os.replace(old / out.name, out)  # put the previous release back
                raise
            shutil.rmtree(old)
        else:
            os.replace(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return sum(1 for p in out.rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.release", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="where to write it (default: %(default)s)"
    )
    parser.add_argument(
        "--force", action="store_true", help="replace a folder that is not a previous release"
    )
    parser.add_argument(
        "--url",
        default="",
        help="the course's git address, which each notebook's Colab cell clones (default: "
        "none; the cell then says so on Colab)",
    )
    parser.add_argument(
        "--classroom",
        type=int,
        metavar="N",
        help="make chapter N's GitHub Classroom workflow the active one",
    )
    parser.add_argument(
        "--no-read-ahead",
        action="store_true",
        help="leave the notebooks without the reference's outputs (faster)",
    )
    args = parser.parse_args(argv)
    notes: list[str] = []
    try:
        count = release(
            args.out,
            force=args.force,
            url=args.url,
            classroom=args.classroom,
            read_ahead=not args.no_read_ahead,
            notes=notes,
        )
    except (ReleaseError, stubgen.StubError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for note in notes:  # a notebook cell that raised against the reference is a bug
        print(f"read ahead, left out: {note}")
    print(f"wrote the student release to {args.out} ({count} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

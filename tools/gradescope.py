"""The Gradescope autograder zip: ``make gradescope CHAPTER=N``
(``python -m tools.gradescope N [--out FILE] [--seed-file F | --seed N|public]
[--extra-checks DIR]``).

The zip (default ``dist/gradescope-chNN.zip``) holds what Gradescope's container needs:

    setup.sh            installs Python's pip and the grader's pinned NumPy (and bubblewrap,
                        which confines where the container allows user namespaces)
    run_autograder      grades /autograder/submission; writes /autograder/results/results.json
    requirements-grader.txt
    autograder/         the grader: public and hidden checks, harness, runner, sandbox
    course/reference/   the reference chapters below N (the isolated composite tree)
    course/stubs/       generated stubs of every chapter (chapter N's given files come here)
    seed.txt            the secret seed: given, else the one kept next to the zip
                        (``gradescope-chNN.seed.txt``, mode 0600), else a fresh one kept
                        there (``autograder/seeds.py``); absent only with --seed public
    expectations/       the expectations of training runs for that seed that the stored
                        ones lack (computed here from solutions/: autograder/expectations.py)
    extra_checks/       only with --extra-checks: the instructor's own checks
    course-version.txt  only with --course-version: the course version graded (its tasks
                        and checks alone)

It holds no reference for chapter N or above. ``run_autograder`` first makes the source
folder unreadable to other users, so a child that runs as nobody (the fallback's drop; in
Gradescope's containers bubblewrap usually cannot start) sees neither the reference, the
hidden checks nor the seed. ``AUTOGRADER_ROOT`` replaces ``/autograder`` (for tests).
"""

from __future__ import annotations

import argparse
import io
import stat
import sys
import tempfile
import zipfile
from pathlib import Path

from autograder import expectations, seeds, versions
from autograder.checking import PUBLIC_SEED, public_checks
from autograder.course import CHAPTERS, Chapter, chapter
from autograder.grading import extra_checks as extra_modules
from autograder.grading import hidden_checks
from autograder.stubgen import generate

REPO = Path(__file__).resolve().parent.parent
REFERENCE = REPO / "solutions"  # where a secret seed's expectations are computed from
EPOCH = (2020, 1, 1, 0, 0, 0)

SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when the autograder image is built. The grader gets a
# venv of its own (images with Python 3.12+ refuse system-wide pip installs, PEP 668).
set -euo pipefail
apt-get update -qq
apt-get install -y -qq python3 python3-venv bubblewrap >/dev/null
python3 -m venv /autograder/venv
/autograder/venv/bin/python -m pip install --disable-pip-version-check -q \\
    -r /autograder/source/requirements-grader.txt
"""

RUN = """#!/usr/bin/env bash
# Gradescope runs this for each submission; results go to $ROOT/results/results.json.
set -euo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
SOURCE="$ROOT/source"
PY="${{PYTHON:-$ROOT/venv/bin/python}}"
[ -x "$PY" ] || PY=python3
chmod -R go-rwx "$SOURCE"   # the reference, hidden checks and seed: the grader's eyes only
mkdir -p "$ROOT/results"
cd "$SOURCE"
ARGS=(--confinement auto)
if [ -f seed.txt ]; then ARGS+=(--seed-file seed.txt); else ARGS+=(--seed public); fi
[ -d extra_checks ] && ARGS+=(--extra-checks extra_checks)
[ -d expectations ] && ARGS+=(--expectations expectations)
[ -f course-version.txt ] && ARGS+=(--course-version "$(cat course-version.txt)")
"$PY" -m autograder grade {chapter} "$ROOT/submission" --single \\
    --course course --out "$ROOT/grades" --cpu-limit {cpu} \\
    --gradescope-results "$ROOT/results/results.json" "${{ARGS[@]}}"
"""


def _add(archive: zipfile.ZipFile, name: str, data: bytes, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, EPOCH)
    mode = 0o755 if executable else 0o644
    info.external_attr = (stat.S_IFREG | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def _add_tree(archive: zipfile.ZipFile, src: Path, prefix: str) -> None:
    for path in sorted(src.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            _add(archive, f"{prefix}/{path.relative_to(src).as_posix()}", path.read_bytes())


def grader_requirements() -> str:
    """The NumPy pins of requirements.txt: all the grader itself needs."""
    lines = (REPO / "requirements.txt").read_text().splitlines()
    pins = [line for line in lines if line.startswith("numpy==")]
    return "# The grader's only dependency, pinned as in requirements.txt.\n" + "\n".join(pins)


def _expectations(ch: Chapter, seed: int, extra: Path | None) -> tuple[str, bytes] | None:
    """The file of expectations the zip's seed needs beyond the stored ones (the reference
    of chapter N never ships, so they are computed here), or None."""
    modules = public_checks(ch) + hidden_checks(ch) + extra_modules(ch, extra)
    with tempfile.TemporaryDirectory() as cache:
        try:
            path = expectations.prepare(ch, seed, modules, REFERENCE, Path(cache))
        except expectations.MissingExpectation:
            if (REFERENCE / ch.package).is_dir():
                raise
            raise expectations.MissingExpectation(
                f"the reference of chapter {ch.number} ({REFERENCE / ch.package}) is needed "
                "to compute the expectations of this seed's training runs, and it is not here: "
                "build the zip in the course's repository, where solutions/ is"
            ) from None
        return None if path is None else (path.name, path.read_bytes())


def build(
    number: int,
    out: Path,
    *,
    seed: int = PUBLIC_SEED,
    extra_checks: Path | None = None,
    cpu: float = 10.0,
    version: str | None = None,
) -> Path:
    """The zip for chapter ``number`` at ``out``, graded with ``seed`` (the public seed puts
    no seed.txt in it)."""
    ch = chapter(number)
    version = versions.check_pin(version) if version else None
    if not ch.ready:
        raise ValueError(f"chapter {ch.number} ({ch.title}) is not written yet")
    if extra_checks is not None and not extra_checks.is_dir():
        raise FileNotFoundError(f"there is no folder {extra_checks}")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        _add(archive, "setup.sh", SETUP.encode(), executable=True)
        run = RUN.format(chapter=ch.number, cpu=f"{cpu:g}")
        _add(archive, "run_autograder", run.encode(), executable=True)
        _add(archive, "requirements-grader.txt", grader_requirements().encode() + b"\n")
        _add_tree(archive, REPO / "autograder", "autograder")
        for other in CHAPTERS:
            if other.number < ch.number and other.ready:
                _add_tree(
                    archive, REPO / "solutions" / other.package, f"course/reference/{other.package}"
                )
        for rel, data in sorted(generate(REPO / "solutions").items()):
            if rel.endswith(".py"):
                _add(archive, f"course/stubs/{rel}", data)
        if seed != PUBLIC_SEED:
            _add(archive, "seed.txt", f"{seed}\n".encode())
        if extra_checks is not None:
            _add_tree(archive, extra_checks, "extra_checks")
        if version is not None:
            _add(archive, "course-version.txt", f"{version}\n".encode())
        prepared = _expectations(ch, seed, extra_checks)
        if prepared is not None:
            _add(archive, f"expectations/{prepared[0]}", prepared[1])
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    partial.write_bytes(buffer.getvalue())
    partial.replace(out)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.gradescope", description=__doc__)
    parser.add_argument("chapter", help="chapter number, e.g. 1")
    parser.add_argument("--out", type=Path, help="the zip (default dist/gradescope-chNN.zip)")
    parser.add_argument("--seed-file", type=Path, help="a file holding the secret seed")
    parser.add_argument(
        "--seed",
        help="an integer, or 'public' (default: the seed kept next to the zip, else a fresh "
        "secret one kept there)",
    )
    parser.add_argument("--extra-checks", type=Path, help="a folder of your own checks")
    parser.add_argument("--cpu-limit", type=float, default=10.0, help="CPU seconds per check")
    parser.add_argument(
        "--course-version", help="grade with this course version's tasks and checks, e.g. 1.0"
    )
    args = parser.parse_args(argv)
    try:
        number = chapter(args.chapter).number
        out = args.out or REPO / "dist" / f"gradescope-ch{number:02d}.zip"
        kept = out.with_name(out.name.removesuffix(".zip") + ".seed.txt")
        seed, said = seeds.batch_seed(seeds.given(args.seed, args.seed_file), kept)
        for line in said:
            print(line, file=sys.stderr)
        build(
            number,
            out,
            seed=seed,
            extra_checks=args.extra_checks,
            cpu=args.cpu_limit,
            version=args.course_version,
        )
    except (ValueError, FileNotFoundError, expectations.MissingExpectation) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {out}: upload it as the autograder of the chapter {number} assignment")
    return 0


if __name__ == "__main__":
    sys.exit(main())

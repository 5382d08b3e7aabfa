"""Expectations only the reference can compute (a training run's losses and parameters),
stored as data for the public seed and recomputed from the reference for a secret one.

A case builder asks ``expected(program, inputs)``: what the reference returns for
``program(sp, **inputs)``, ``sp`` the reference's chapter, through the same runner and wire
a submission's data takes. The answer is found by a fingerprint of the program's name and
the inputs (``fingerprint``), in

1. the stored files of the program's chapter, ``autograder/checks/<package>/expectations.json``
   (public checks: the student release ships it) and the hidden checks' own (course repository
   only), written by ``python -m autograder.expectations`` (``write_stored``)
   for the public seed, so student mode never needs the reference;
2. the table ``use()`` installed: a secret seed's, made by ``prepare`` in the grader's own
   process (the reference's runs go through an unconfined child of it that runs nothing a
   student wrote) and cached in a file named by a hash of the seed, the runs and their
   programs, holding a hash of the reference it came from (written whole, then renamed:
   never half-written). The Gradescope zip carries its seed's file, made when it is built.

An expectation found in neither raises ``MissingExpectation``: a setup error, never a
student's failure. ``collecting()`` makes ``expected`` note what it lacks and return a
placeholder instead; that is how ``prepare`` and ``write_stored`` learn which runs
the case lists of a seed need.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
import re
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .checking import PUBLIC_SEED
from .course import CHAPTERS, Chapter
from .harness import wire
from .harness.api import compare
from .runner import Limits, PlannedCheck, build_tree, run_checks
from .status import Status

HERE = Path(__file__).resolve().parent
FILE = "expectations.json"
FORMAT = 1
# the reference's runs: trusted code, a generous budget (a slow machine must not fail them)
LIMITS = Limits(cpu_per_check=120.0)
_PACKAGE = re.compile(r"ch\d\d_\w+")
_LOCK = threading.Lock()
_installed: dict[str, Any] = {}  # fingerprint -> value, from use()
_stored: dict[Path, tuple[tuple[int, int], dict[str, Any]]] = {}  # path -> (stat, table)
_prepared: dict[tuple, Path | None] = {}  # prepare's answers in this process
# this thread's modes, so that another thread's grading is never caught in them:
# .collecting (a stack of {fingerprint: Request}), .ignoring (while > 0, look-ups skip the
# stored and installed tables)
_mode = threading.local()


class MissingExpectation(RuntimeError):
    """A case needs an expectation that is neither stored nor prepared."""


@dataclass(frozen=True)
class Request:
    """A run the reference must make: ``program`` (``module:function``) on ``inputs``."""

    program: str
    inputs: dict
    package: str  # the chapter package, e.g. ch06_optim


@dataclass(frozen=True)
class Placeholder:
    """What ``expected`` returns while collecting, for a run not computed yet."""

    key: str


def program_name(program: Callable[..., Any]) -> str:
    return f"{program.__module__}:{program.__name__}"


def chapter_package(name: str) -> str:
    """The chapter package a program belongs to: the first ``chNN_…`` part of its module."""
    part = next((p for p in name.split(":")[0].split(".") if _PACKAGE.fullmatch(p)), None)
    if part is None:
        raise ValueError(f"{name}: a program with stored expectations lives in a chapter package")
    return part


def fingerprint(program: str, inputs: dict) -> str:
    """sha256 of the program's name and the inputs as the wire writes them (keys sorted)."""
    text = json.dumps(
        [program, json.loads(wire.dumps(inputs))], sort_keys=True, separators=(",", ":")
    )
    return hashlib.sha256(text.encode()).hexdigest()


def stored_paths(package: str) -> list[Path]:
    return [HERE / "checks" / package / FILE, HERE / "hidden" / package / FILE]


def load(path: Path) -> dict[str, Any]:
    """A stored or cached file's table: fingerprint -> value (arrays as the wire has them;
    nothing is unpickled). Missing file: empty."""
    try:
        status = path.stat()
    except FileNotFoundError:
        return {}
    stamp = (status.st_mtime_ns, status.st_size)
    with _LOCK:
        if path in _stored and _stored[path][0] == stamp:
            return _stored[path][1]
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("format") != FORMAT:
        raise MissingExpectation(f"{path} has format {data.get('format')}, not {FORMAT}")
    table = {key: wire.loads(json.dumps(entry["value"])) for key, entry in data["runs"].items()}
    with _LOCK:
        _stored[path] = (stamp, table)
    return table


def expected(program: Callable[..., Any], inputs: dict) -> Any:
    """What the reference's ``program(sp, **inputs)`` returns (module docstring)."""
    name = program_name(program)
    key = fingerprint(name, inputs)
    package = chapter_package(name)
    if not getattr(_mode, "ignoring", 0):
        for path in stored_paths(package):
            table = load(path)
            if key in table:
                return table[key]
        if key in _installed:
            return _installed[key]
    collecting = getattr(_mode, "collecting", None)
    if collecting:
        collecting[-1][key] = Request(name, dict(inputs), package)
        return Placeholder(key)
    if not (HERE.parent / "solutions").is_dir():  # a student's release: no maintainer here
        raise MissingExpectation(
            f"the checks' stored expectations (for a case of {name}) are missing or out of "
            "date: take the course's latest release (make update)"
        )
    raise MissingExpectation(
        f"no expectation for a case of {name}: the stored ones are for the public seed "
        "(run `python -m autograder.expectations` after changing a check or the reference); "
        "a secret seed's are computed by the grade command from the reference "
        "(python -m autograder grade)"
    )


@contextlib.contextmanager
def collecting() -> Iterator[dict[str, Request]]:
    """While inside, ``expected`` records each run it lacks (in the yielded dict)."""
    found: dict[str, Request] = {}
    if not hasattr(_mode, "collecting"):
        _mode.collecting = []
    _mode.collecting.append(found)
    try:
        yield found
    finally:
        _mode.collecting.remove(found)


def use(path: Path | None) -> None:
    """Install a prepared file's table (None: nothing) for this process's ``expected``."""
    if path is not None:
        table = load(path)
        with _LOCK:
            _installed.update(table)


# -- computing them ------------------------------------------------------------------------


def requests(modules: Sequence[str], seed: int) -> dict[str, dict[str, Request]]:
    """Per check module, the runs its case lists for ``seed`` need and nothing has yet."""
    out: dict[str, dict[str, Request]] = {}
    for module in modules:
        with collecting() as found:
            for check in importlib.import_module(module).CHECKS:
                check.make_cases(seed)
        out[module] = found
    return out


def chapter_of(package: str) -> Chapter:
    return next(ch for ch in CHAPTERS if ch.package == package)


def compute(found: dict[str, Request], reference: Path) -> dict[str, Any]:
    """Run each request on the reference (``reference/<package>`` for every chapter there),
    in one unconfined child per chapter: trusted code only. fingerprint -> value."""
    values: dict[str, Any] = {}
    for package in sorted({r.package for r in found.values()}):
        mine = {k: r for k, r in found.items() if r.package == package}
        if not (reference / package).is_dir():
            raise MissingExpectation(
                f"these expectations must be computed from the reference, and "
                f"{reference / package} is not there (a Gradescope zip carries them for the "
                "seed it was built with: build it with --seed-file)"
            )
        number = chapter_of(package).number
        packages = {
            ch.package: reference / ch.package
            for ch in CHAPTERS
            if ch.number <= number and (reference / ch.package).is_dir()
        }
        keys = list(mine)
        programs = sorted({mine[k].program for k in keys})
        plans = [
            PlannedCheck(f"{i}:{p}", p, [mine[k].inputs for k in keys if mine[k].program == p])
            for i, p in enumerate(programs)
        ]
        files = {p.split(":")[0]: Path(sys.modules[p.split(":")[0]].__file__) for p in programs}
        with tempfile.TemporaryDirectory(prefix="sparrow-expect-") as tmp:
            build_tree(Path(tmp) / "tree", packages, files)
            runs = run_checks(Path(tmp) / "tree", f"chapters.{package}", plans, LIMITS)
        for plan in plans:
            run = runs[plan.id]
            if run.status != Status.RAN:
                raise RuntimeError(f"the reference's run of {plan.program}: {run.status} {run}")
            for key, outcome in zip(
                [k for k in keys if mine[k].program == plan.program], run.results
            ):
                if "value" not in outcome:
                    raise RuntimeError(
                        f"the reference raised in {plan.program}: {outcome.get('raised')}"
                    )
                values[key] = outcome["value"]
    return values


def _write_atomic(
    path: Path, runs: dict[str, dict], mode: int = 0o600, reference: str | None = None
) -> None:
    """Write the file whole under another name, then rename it: never half-written. A
    secret seed's cache stays the owner's alone (0600) and names the reference it was
    computed from (``reference_digest``); the stored files are 0644."""
    data: dict[str, Any] = {"format": FORMAT, "runs": runs}
    if reference is not None:
        data["reference"] = reference
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, partial = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(partial, mode)
        os.replace(partial, path)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise


def entries(found: dict[str, Request], values: dict[str, Any]) -> dict[str, dict]:
    """The file's records: the program, and the value as the wire writes it."""
    return {
        key: {"program": found[key].program, "value": json.loads(wire.dumps(values[key]))}
        for key in sorted(found)
    }


# -- the stored files (python -m autograder.expectations) ------------------------------------


def stored_modules() -> list[tuple[str, Path]]:
    """Every chapter's check modules with the file their expectations go to."""
    out = []
    for ch in CHAPTERS:
        for kind in ("checks", "hidden"):
            if (HERE / kind / ch.package / "__init__.py").is_file():
                out.append((f"autograder.{kind}.{ch.package}", HERE / kind / ch.package / FILE))
    return out


def recompute_stored(reference: Path, seed: int = PUBLIC_SEED) -> dict[Path, dict[str, dict]]:
    """What each stored file should hold: the reference's runs for the public seed's cases
    of its module (a module that needs none: no file)."""
    out: dict[Path, dict[str, dict]] = {}
    for module, path in stored_modules():
        with _without_stored():
            found = requests([module], seed)[module]
        if found:
            out[path] = entries(found, compute(found, reference))
    return out


@contextlib.contextmanager
def _without_stored() -> Iterator[None]:
    """Look-ups that ignore the stored files and installed tables (to recompute them)."""
    _mode.ignoring = getattr(_mode, "ignoring", 0) + 1
    try:
        yield
    finally:
        _mode.ignoring -= 1


def write_stored(reference: Path) -> list[Path]:
    """``python -m autograder.expectations``: (re)write every stored file from the reference,
    except one that already agrees (``differs``: another machine's rounding is no change);
    remove a stored file no check needs any more. Returns the files written."""
    wanted = recompute_stored(reference)
    for _, path in stored_modules():
        if path not in wanted and path.exists():
            path.unlink()
    written = []
    for path, runs in sorted(wanted.items()):
        if not path.is_file() or differs(stored_runs(path), runs):
            _write_atomic(path, runs, 0o644)
            written.append(path)
    return written


# -- a secret seed (the grade command, the Gradescope zip) ---------------------------------


def cache_name(package: str, seed: int, found: dict[str, Request]) -> str:
    """A file name that changes with the seed, the runs asked for and the programs (never
    the seed itself: a hash of it)."""
    digest = hashlib.sha256(str(seed).encode() + b"\0")
    for key in sorted(found):
        digest.update(key.encode())
    for name in sorted({r.program.split(":")[0] for r in found.values()}):
        digest.update(Path(sys.modules[name].__file__).read_bytes())
    return f"{package}-{digest.hexdigest()[:16]}.json"


def reference_digest(package: str, reference: Path) -> str | None:
    """A hash of the reference's chapters up to ``package``'s, or None where that chapter's
    reference is not there (a Gradescope zip: it carries the expectations instead)."""
    if not (reference / package).is_dir():
        return None
    digest, number = hashlib.sha256(), chapter_of(package).number
    for ch in CHAPTERS:
        folder = reference / ch.package
        if ch.number <= number and folder.is_dir():
            for path in sorted(folder.rglob("*.py")):
                digest.update(path.relative_to(reference).as_posix().encode() + b"\0")
                digest.update(path.read_bytes())
    return digest.hexdigest()


def prepare(
    chapter: Chapter,
    seed: int,
    modules: Sequence[str],
    reference: Path,
    cache: Path,
) -> Path | None:
    """The expectations ``modules``' cases need for ``seed`` that nothing stores, in a file
    under ``cache``: reused when it holds them all and was computed from this reference
    (or no reference is here to tell), else computed from ``reference`` and written.
    None when every case's expectation is stored (the public seed). Remembered for the
    process (a grading worker asks once per submission)."""
    memo = (chapter.package, seed, tuple(modules), str(reference), str(cache))
    if memo in _prepared and (_prepared[memo] is None or _prepared[memo].is_file()):
        return _prepared[memo]
    found: dict[str, Request] = {}
    for runs in requests(modules, seed).values():
        found.update(runs)
    path = cache / cache_name(chapter.package, seed, found) if found else None
    digest = reference_digest(chapter.package, reference) if found else None
    if path is not None and not _current(path, found, digest):
        others = sorted(cache.glob(f"{chapter.package}-*.json")) if cache.is_dir() else []
        if digest is None and others:  # a Gradescope zip whose seed.txt was replaced
            raise MissingExpectation(
                f"{cache}/ holds another seed's runs than this one's (seed.txt), and the "
                f"reference of chapter {chapter.number} that would compute them is not here: "
                f"rebuild the zip with `make gradescope CHAPTER={chapter.number} "
                "GRADESCOPE_ARGS=--seed-file seed.txt` from this seed.txt"
            )
        _write_atomic(path, entries(found, compute(found, reference)), reference=digest)
    _prepared[memo] = path
    return path


def _current(path: Path, found: dict[str, Request], digest: str | None) -> bool:
    """Whether a cache file holds every run asked for, computed from this reference (or no
    reference is here to tell: a Gradescope zip's own file)."""
    if not path.is_file() or not set(found) <= set(load(path)):
        return False
    return digest is None or json.loads(path.read_text(encoding="utf-8")).get("reference") == digest


def main(argv: list[str] | None = None) -> int:
    """python -m autograder.expectations [--check]: the stored files, (re)written or checked."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m autograder.expectations")
    parser.add_argument(
        "--check", action="store_true", help="only report whether the stored files are current"
    )
    args = parser.parse_args(argv)
    reference = HERE.parent / "solutions"
    if not reference.is_dir():  # e.g. a student's release: the stored files come with it
        print(
            f"error: the expectations are computed from the reference, and {reference} is not "
            "here (a student's release ships them: take the course's latest one, make update)",
            file=sys.stderr,
        )
        return 2
    try:
        if args.check:
            wanted = recompute_stored(reference)
            stale = [p for p, r in wanted.items() if not p.is_file() or differs(stored_runs(p), r)]
            stale += [p for _, p in stored_modules() if p.exists() and p not in wanted]
            for path in stale:
                rel = path.relative_to(HERE.parent)
                print(f"stale: {rel} (run python -m autograder.expectations)")
            return 1 if stale else 0
        written = write_stored(reference)
    except MissingExpectation as exc:  # a chapter of the reference is not there
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path.relative_to(HERE.parent)} ({len(stored_runs(path))} run(s))")
    if not written:
        print("the stored expectations are current")
    return 0


def stored_runs(path: Path) -> dict[str, dict]:
    """A file's records as written (fingerprint -> {program, value})."""
    return json.loads(path.read_text(encoding="utf-8"))["runs"]


# a recomputation agrees with a stored value to 1e-10 relative: another CPU's BLAS kernel
# may sum a product in another order (~1e-16, grown over a few training steps), which is
# no change; the checks' verdicts allow 1e-7, so anything that could move one is caught
SAME_RTOL, SAME_ATOL = 1e-10, 1e-13


def differs(stored: dict[str, dict], recomputed: dict[str, dict]) -> str | None:
    """None when two files' records agree (the same runs, values within ``SAME_RTOL``),
    else the first difference in words."""
    if set(stored) != set(recomputed):
        gone, new = len(set(stored) - set(recomputed)), len(set(recomputed) - set(stored))
        return f"{gone} stored run(s) no case asks for, {new} run(s) not stored"
    for key in sorted(stored):
        a, b = (wire.loads(json.dumps(r[key]["value"])) for r in (stored, recomputed))
        problem = compare(a, b, rtol=SAME_RTOL, atol=SAME_ATOL, path=stored[key]["program"])
        if problem:
            return problem
    return None


if __name__ == "__main__":  # run as a script: use the module the checks import, not a copy
    from autograder import expectations

    sys.exit(expectations.main())

"""The tutorials' bands (``make tutorial-bands``; ``python -m tools.tutorial_bands``), issue 27.

Every script in ``support/tutorials/`` is written for PyTorch: one line ``import torch``, a
function ``main(seed=0) -> dict[str, float]`` that seeds with ``torch.manual_seed(seed)``
and returns its numbers by name, and two module constants: ``EXACT`` (the names of the
numbers that do not depend on random draws: shapes, counts, gradients of fixed inputs) and
``IN_PLACE`` (None, or why the script waits on in-place semantics, issue 28).

This tool runs each script with PyTorch for the seeds 0..N-1 (``--seeds``, default 8, at
least 8) and writes ``support/tutorials/bands.json``, per script:

- ``exact``: the EXACT numbers of PyTorch's seed-0 run (the swapped run must agree to
  ``EXACT_RTOL`` relative);
- ``bands``: for every other number ``[lo, hi]``, the seeds' minimum and maximum widened on
  each side by ``margin(lo, hi)`` = max(the spread hi - lo, ``FLOOR`` · max(1, |lo|, |hi|)).

Why that margin: the swapped run (``tests/test_tutorials.py``, seed 0 on Sparrow, whose
random draws are not PyTorch's) is one more draw from the same distribution. A ninth draw
falls outside the range of eight with probability 2/9; for a normal the range of eight
averages 2.8 standard deviations, so widening by the whole spread puts the edges about 4σ
from the middle (about 2.9σ when the eight happen to bunch, at the tenth percentile of the
range), which keeps false alarms across the few dozen banded numbers rare, while a real fault
(a wrong gradient, a skipped step, a wrong reduction) moves a number by many spreads. The
floor, 1e-3 relative, covers numbers that hardly vary with the seed (a converged fit), where
the two frameworks differ only by float32 rounding.

Each script runs in a child process (one per script, all seeds in it), from its text with
the one ``import torch`` line replaced by the import that is asked for, so the same runner
serves the test (``import solutions.ch07_device as torch``) and this tool (``import torch``).
``--check`` writes nothing: it recomputes and says whether the stored file is current.
``--only NAME`` recomputes one script's entry (the others are kept).
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
TUTORIALS = REPO / "support" / "tutorials"
BANDS = TUTORIALS / "bands.json"
TORCH_LINE = "import torch"
SPARROW_LINE = "import solutions.ch07_device as torch"
MIN_SEEDS = 8
FLOOR = 1e-3  # relative: what float32 rounding between two frameworks may move a number
EXACT_RTOL = 1e-6
EXACT_ATOL = 1e-12  # so that an exact 0 compares (relative tolerance alone would need 0.0)
TIMEOUT = 600  # seconds for one script's child process


def scripts() -> list[Path]:
    """The tutorial scripts, by name (every ``*.py`` in ``support/tutorials/`` but
    ``__init__.py``)."""
    return sorted(p for p in TUTORIALS.glob("*.py") if p.name != "__init__.py")


def constants(path: Path) -> tuple[set[str], str | None]:
    """A script's ``EXACT`` and ``IN_PLACE``, read from its text (nothing is run)."""
    found: dict[str, Any] = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id in ("EXACT", "IN_PLACE"):
                    found[target.id] = ast.literal_eval(node.value)
    missing = {"EXACT", "IN_PLACE"} - set(found)
    if missing:
        raise ValueError(f"{path.name}: no module constant {', '.join(sorted(missing))}")
    exact = found["EXACT"]
    if isinstance(exact, dict):  # EXACT = {} is an empty dict to Python
        if exact:
            raise ValueError(f"{path.name}: EXACT must be a set of names")
        exact = set()
    in_place = found["IN_PLACE"]
    if in_place is not None and not (isinstance(in_place, str) and in_place):
        raise ValueError(f"{path.name}: IN_PLACE must be None or a reason (a string)")
    return set(exact), in_place


def swapped_source(path: Path, line: str) -> str:
    """The script's text with its one ``import torch`` line replaced by ``line``."""
    lines = path.read_text().split("\n")
    at = [i for i, text in enumerate(lines) if text == TORCH_LINE]
    if len(at) != 1:
        raise ValueError(f"{path.name}: should have one line {TORCH_LINE!r}, found {len(at)}")
    lines[at[0]] = line
    return "\n".join(lines)


_CHILD = """\
import json, sys
path, out, seeds = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
namespace = {"__name__": "tutorial", "__file__": path}
exec(compile(sys.stdin.read(), path, "exec"), namespace)
runs = []
for seed in seeds:
    numbers = namespace["main"](seed=seed)
    runs.append({name: float(value) for name, value in numbers.items()})
with open(out, "w") as f:
    json.dump(runs, f)
"""


def run(
    path: Path, line: str, seeds: Sequence[int], timeout: float = TIMEOUT
) -> list[dict[str, float]]:
    """``main(seed)``'s numbers for each seed, the script run from its text with the import
    line ``line``, in a child process (its printing goes to this process's stderr stream
    only when it fails: the error names the script and carries the child's stderr)."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "numbers.json"
        env = os.environ | {
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
            "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"),
            "SPARROW_IMPL": os.environ.get("SPARROW_IMPL", "solutions"),
        }
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, str(path), str(out), json.dumps(list(seeds))],
            input=swapped_source(path, line),
            capture_output=True,
            text=True,
            cwd=REPO,
            env=env,
            timeout=timeout,
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"{path.name} with {line!r} failed (exit {done.returncode}):\n{done.stderr}"
            )
        return json.loads(out.read_text())


def margin(lo: float, hi: float) -> float:
    """How far a band reaches beyond the seeds' [lo, hi] on each side."""
    return max(hi - lo, FLOOR * max(1.0, abs(lo), abs(hi)))


def entry(path: Path, runs: list[dict[str, float]]) -> dict[str, Any]:
    """One script's record: the EXACT numbers of the first run (seed 0) and a band for each
    other number."""
    exact, _ = constants(path)
    names = list(runs[0])
    for seed, numbers in enumerate(runs):
        if list(numbers) != names:
            raise ValueError(f"{path.name}: seed {seed} returned other names than seed 0")
    unknown = exact - set(names)
    if unknown:
        raise ValueError(f"{path.name}: EXACT names {sorted(unknown)} are not returned by main")
    bands = {}
    for name in names:
        if name in exact:
            continue
        values = [numbers[name] for numbers in runs]
        if not all(math.isfinite(v) for v in values):
            raise ValueError(f"{path.name}: {name} is not finite for some seed: {values}")
        lo, hi = min(values), max(values)
        m = margin(lo, hi)
        bands[name] = [lo - m, hi + m]
    return {
        "seeds": len(runs),
        "exact": {name: runs[0][name] for name in names if name in exact},
        "bands": bands,
    }


def compute(paths: Sequence[Path], n_seeds: int, verbose: bool = True) -> dict[str, Any]:
    """The records of ``paths``, each run with PyTorch for seeds 0..n_seeds-1."""
    records = {}
    for path in paths:
        if verbose:
            print(f"{path.name}: {n_seeds} seeds with PyTorch ...", flush=True)
        records[path.stem] = entry(path, run(path, TORCH_LINE, range(n_seeds)))
    return records


def dumps(records: dict[str, Any]) -> str:
    return json.dumps(dict(sorted(records.items())), indent=1, sort_keys=True) + "\n"


def stored() -> dict[str, Any]:
    """What ``bands.json`` holds now ({} when there is none)."""
    return json.loads(BANDS.read_text()) if BANDS.exists() else {}


def _main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.tutorial_bands", description=__doc__)
    parser.add_argument("--seeds", type=int, default=MIN_SEEDS, help="seeds 0..N-1 (N >= 8)")
    parser.add_argument("--only", action="append", help="one script by name (repeatable)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if stale")
    args = parser.parse_args(argv)
    if args.seeds < MIN_SEEDS:
        parser.error(f"--seeds must be at least {MIN_SEEDS}")
    try:
        import torch  # noqa: F401
    except ImportError:
        print("PyTorch is not installed: the bands come from PyTorch's own runs", file=sys.stderr)
        return 2
    paths = scripts()
    if args.only:
        wanted = set(args.only)
        unknown = wanted - {p.stem for p in paths}
        if unknown:
            parser.error(f"no tutorial named {', '.join(sorted(unknown))}")
        paths = [p for p in paths if p.stem in wanted]
    records = stored() if args.only else {}
    records.update(compute(paths, args.seeds))
    if args.check:
        if dumps(records) == (BANDS.read_text() if BANDS.exists() else ""):
            print(f"{BANDS.relative_to(REPO)} is current")
            return 0
        print(f"{BANDS.relative_to(REPO)} is stale: run make tutorial-bands", file=sys.stderr)
        return 1
    BANDS.write_text(dumps(records))
    print(f"wrote {BANDS.relative_to(REPO)} ({len(records)} scripts)")
    return 0


if __name__ == "__main__":
    sys.exit(_main())

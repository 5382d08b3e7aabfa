"""Benchmarks (``python -m autograder.bench [grading | framework | device | conv | gpt]``; the
course repository's ``bench`` target).

Every part by default; ``grading``, ``framework``, ``device``, ``conv`` or ``gpt`` runs one,
with that part's options (``python -m autograder.bench framework --help``). The framework
part, Sparrow's speed against PyTorch and a hand-written NumPy backprop, is
``bench_framework.py``; the device part, the CPU against a GPU (or, without one, the
simulated device, said so), is ``bench_device.py``; the convolution part, chapter 8's Conv2d
against a NumPy im2col floor and PyTorch, and the CNN capstone's epoch against PyTorch's, is
``bench_conv.py``; the Transformer part, chapter 9's GPT training step against PyTorch's,
tiled attention against the plain one at a long context, and generation with and without
the key/value cache, is ``bench_gpt.py``.

Grading throughput for chapter 1: generates a class of submissions (correct, partly
correct, stubs only), then measures

- one submission graded alone, confined, against the baseline of the same checks run as
  student mode does (no sandbox, no worker process): the price of the sandbox;
- the whole class with ``--jobs 2``, against the goal (40 submissions in under 120 s on
  2 cores).

    python -m autograder.bench grading [--submissions 40] [--jobs 2]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from . import bench_conv, bench_device, bench_framework, bench_gpt
from .checking import check_chapter
from .course import CHAPTERS, chapter
from .grading import REPO, Options, grade_all, repository_course

GOAL_SECONDS = 120.0  # for 40 submissions with --jobs 2


def make_class(dest: Path, count: int, stubs: Path) -> list[Path]:
    """``count`` submissions of chapter 1: every third the reference, every third stubs,
    the rest the reference with one task put back to its stub."""
    solutions = REPO / "solutions" / "ch01_value"
    stub_value = (stubs / "ch01_value" / "value.py").read_text()
    sources = []
    for i in range(count):
        folder = dest / f"student{i:03d}" / "chapters" / "ch01_value"
        kind = i % 3
        shutil.copytree(stubs / "ch01_value" if kind == 1 else solutions, folder)
        if kind == 2:  # partly done: value.py's tasks left as stubs
            (folder / "value.py").write_text(stub_value)
        sources.append(dest / f"student{i:03d}")
    return sources


def main(argv: list[str] | None = None) -> int:
    """Every part (no argument), or the one named first with its own options."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "framework":
        return bench_framework.main(argv[1:])
    if argv and argv[0] == "device":
        return bench_device.main(argv[1:])
    if argv and argv[0] == "conv":
        return bench_conv.main(argv[1:])
    if argv and argv[0] == "gpt":
        return bench_gpt.main(argv[1:])
    if argv and argv[0] == "grading":
        return grading(argv[1:])
    status = grading(argv)
    print()
    status = status or bench_framework.main([])
    print()
    status = status or bench_device.main([])
    print(flush=True)
    status = status or bench_conv.main([])
    print(flush=True)
    return status or bench_gpt.main([])


def grading(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.bench grading", description=__doc__)
    parser.add_argument("--submissions", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    ch = chapter(1)
    with tempfile.TemporaryDirectory(prefix="sparrow-bench-") as tmp:
        root = Path(tmp)
        course = repository_course(root)
        sources = make_class(root / "class", args.submissions, course.stubs)
        options = Options(chapter=1, course=course)

        start = time.perf_counter()
        packages = {c.package: course.stubs / c.package for c in CHAPTERS if c.ready}
        packages["ch01_value"] = REPO / "solutions" / "ch01_value"
        check_chapter(ch, packages)
        baseline = time.perf_counter() - start

        start = time.perf_counter()
        (one,) = grade_all([sources[0]], options, jobs=1)
        alone = time.perf_counter() - start

        start = time.perf_counter()
        graded = grade_all(sources, options, jobs=args.jobs)
        batch = time.perf_counter() - start
    scores = sorted({g.points for g in graded})
    goal = GOAL_SECONDS * args.submissions / 40
    print(f"Grading throughput, chapter 1 — confinement: {one.confinement}")
    print(f"{'':<56}{'seconds':>9}{'baseline':>10}{'ratio':>8}")
    print(
        f"{'one submission, fresh worker (baseline: student mode)':<56}"
        f"{alone:>9.2f}{baseline:>10.2f}{alone / baseline:>8.2f}"
    )
    print(
        f"{f'{args.submissions} submissions, --jobs {args.jobs} (goal = baseline)':<56}"
        f"{batch:>9.1f}{goal:>10.1f}{batch / goal:>8.2f}"
    )
    print(f"{'seconds per submission in the batch':<56}{batch / args.submissions:>9.2f}")
    print(f"scores seen: {', '.join(f'{s:g}' for s in scores)} (of {one.max_points})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

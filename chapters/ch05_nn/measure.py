"""Measuring the trade of activation checkpointing (given code, §11; no task here).

The notebook's figure and the course's tests call these same functions, so what the figure
shows is what the tests assert (the course repository's test_checkpoint_trade.py).

    tanh_mlp(depth)                          ``depth`` blocks Linear(width, width) → Tanh
    run_in_segments(model, x, segments)      forward and backward, the blocks cut into
                                             ``segments`` checkpointed pieces (1: none)
    activation_peak(model, x, segments)      bytes: the most memory one pass holds at any
                                             moment apart from the weights and the gradients
                                             in ``.grad`` at that moment
    layer_forwards(model, x, segments)       how many times a Linear ran forward in one pass
    timings(depths, repeats)                 seconds of each pass, every repeat, the ways
                                             taking turns
    segment_timings(depth, counts, repeats)  the same for one depth cut into each of counts
                                             segments: the cost of a segment itself

``python -m chapters.ch05_nn.measure`` prints the timings as JSON; the notebook runs it in a
process of its own with NumPy's BLAS on one thread (as the course's benchmarks do) and reads the
processor time of that one thread. On a machine busy with other work, BLAS threads that wait
for each other make a 128 × 128 product take anywhere from 0.05 ms to several, and other
programs taking turns add their time to the clock on the wall: either buries the differences
the figure is about.

What ``activation_peak`` counts. ``tracemalloc`` sees every array NumPy allocates (and every
Python object). The weights exist before the pass starts, so they are below its baseline.
The gradients are made during the pass and kept in ``.grad`` after it: the same bytes for
every way of running, since every parameter gets one gradient. They are taken out moment by
moment: a hook on every parameter (and on ``x``) reads the peak since the last reading, takes
away the bytes then held in ``.grad``, and starts a new reading. What is left is what the pass
keeps for backward — the activations saved by each operation, the graph's nodes, the segment
inputs a checkpoint keeps — plus the gradient on its way down through the layers.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import math
import time
import tracemalloc
from collections.abc import Callable, Sequence
from typing import Any

from .. import ch04_backward as base
from . import nn
from .utils.checkpoint import checkpoint

WAYS = ("no checkpoint", "2 segments", "√depth segments")


def segments_for(way: str, depth: int) -> int:
    """How many segments each of ``WAYS`` cuts a network of ``depth`` blocks into."""
    if way not in WAYS:
        raise ValueError(f"segments_for: unknown way {way!r}; the ways are {', '.join(WAYS)}")
    return {"no checkpoint": 1, "2 segments": 2}.get(way) or max(1, round(math.sqrt(depth)))


def tanh_mlp(depth: int, width: int = 128, seed: int = 0) -> nn.Sequential:
    """``depth`` blocks ``Sequential(Linear(width, width), Tanh())`` in a Sequential, drawn
    after ``manual_seed(seed)``."""
    base.manual_seed(seed)
    return nn.Sequential(*[nn.Sequential(nn.Linear(width, width), nn.Tanh()) for _ in range(depth)])


def run_in_segments(model: nn.Sequential, x: Any, segments: int = 1) -> None:
    """One forward and backward of ``model`` (its children in order) on ``x``, the children
    cut into ``segments`` pieces of (nearly) equal length, each run through ``checkpoint``;
    ``segments=1`` runs the model plainly. The loss is ``out.sum()``. Gradients add up in
    ``.grad`` as usual: clear them first (``model.zero_grad()``)."""
    if segments == 1:
        out = model(x)
    else:
        blocks = list(model)
        cuts = [round(k * len(blocks) / segments) for k in range(segments + 1)]
        out = x
        for start, stop in itertools.pairwise(cuts):
            out = checkpoint(nn.Sequential(*blocks[start:stop]), out)
    out.sum().backward()


def activation_peak(model: nn.Sequential, x: Any, segments: int = 1) -> int:
    """Bytes: the most memory in use at any moment of ``run_in_segments(model, x,
    segments)``, above what was in use before it (the weights, ``x``), less the bytes held in
    ``.grad`` at that moment (see the module's docstring). Clears the gradients of the
    model's parameters and of ``x`` first."""
    leaves = list(model.parameters()) + ([x] if x.requires_grad else [])
    model.zero_grad()
    x.grad = None
    gc.collect()  # the garbage of an earlier pass would be freed during this one

    def held() -> int:
        return sum(t.grad.data.nbytes for t in leaves if t.grad is not None)

    readings: list[int] = []

    def read(_: Any = None) -> None:
        readings.append(tracemalloc.get_traced_memory()[1] - start - held())
        tracemalloc.reset_peak()

    handles = [t.register_hook(read) for t in leaves]  # before each gradient is kept
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        start = tracemalloc.get_traced_memory()[0]
        run_in_segments(model, x, segments)
        read()  # the end: every gradient held
    finally:
        if started:
            tracemalloc.stop()
        for handle in handles:
            handle.remove()
    return max(readings)


def layer_forwards(model: nn.Sequential, x: Any, segments: int = 1) -> int:
    """How many times a ``Linear`` of ``model`` ran forward during one ``run_in_segments``
    (a forward hook on each counts its calls; the recomputation of a segment is a call too)."""
    calls = 0

    def count(module: Any, args: Any, output: Any) -> None:
        nonlocal calls
        calls += 1

    handles = [m.register_forward_hook(count) for m in model.modules() if isinstance(m, nn.Linear)]
    try:
        model.zero_grad()
        run_in_segments(model, x, segments)
    finally:
        for handle in handles:
            handle.remove()
    return calls


def timings(
    depths: Sequence[int],
    repeats: int = 9,
    width: int = 128,
    batch: int = 128,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, list[list[float]]]:
    """Seconds of one ``run_in_segments`` (with ``zero_grad`` before it), every one of
    ``repeats`` runs, for each of ``WAYS`` and each depth: ``{way: [[s, ...] per depth]}``.
    The ways take turns within each repeat, so that a busy moment of the machine falls on
    all of them alike. ``clock``: ``time.perf_counter`` (the time that passed) or
    ``time.thread_time`` (the processor time of this thread: the same where NumPy's BLAS
    runs on this thread alone, and blind to other programs taking turns on the machine)."""
    result: dict[str, list[list[float]]] = {way: [] for way in WAYS}
    x = base.randn(batch, width, requires_grad=True)
    for depth in depths:
        model = tanh_mlp(depth, width)
        runs: dict[str, list[float]] = {way: [] for way in WAYS}
        for _ in range(repeats):
            for way in WAYS:
                model.zero_grad()
                started = clock()
                run_in_segments(model, x, segments_for(way, depth))
                runs[way].append(clock() - started)
        for way in WAYS:
            result[way].append(runs[way])
    return result


def segment_timings(
    depth: int,
    counts: Sequence[int],
    repeats: int = 9,
    width: int = 128,
    batch: int = 128,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[int, list[float]]:
    """Seconds of one ``run_in_segments`` of a ``depth``-block network cut into each of
    ``counts`` segments, every one of ``repeats`` runs, the counts taking turns:
    ``{count: [s, ...]}``. From 2 segments on every layer runs forward twice, whatever the
    count: what is left between them is the cost of a segment itself (1: the plain pass).
    ``clock`` as for ``timings``."""
    x = base.randn(batch, width, requires_grad=True)
    model = tanh_mlp(depth, width)
    runs: dict[int, list[float]] = {count: [] for count in counts}
    for _ in range(repeats):
        for count in counts:
            model.zero_grad()
            started = clock()
            run_in_segments(model, x, count)
            runs[count].append(clock() - started)
    return runs


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m chapters.ch05_nn.measure --depths 8 16 32 --segments 2 4 8 16 32
    --repeats 9``: ``{"ways": timings(depths), "segments": segment_timings(the last depth,
    segments)}`` as JSON on standard output, timed with ``time.thread_time``: run it with
    ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1``, so that all the work is
    this thread's (the notebook does)."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--depths", type=int, nargs="+", default=[8, 16, 32])
    parser.add_argument("--segments", type=int, nargs="*", default=[])
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args(argv)
    clock = time.thread_time
    result: dict[str, Any] = {"ways": timings(args.depths, args.repeats, clock=clock)}
    if args.segments:
        result["segments"] = segment_timings(
            args.depths[-1], args.segments, args.repeats, clock=clock
        )
    print(json.dumps(result))


if __name__ == "__main__":
    main()

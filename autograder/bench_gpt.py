"""Transformer speed (``python -m autograder.bench gpt``; the last part of the benchmarks).

Chapter 9's GPT (``sp.GPT`` from ``$SPARROW_IMPL`` or ``--impl``, else the reference), side
by side in one run with PyTorch on the CPU (``support.gpt_torch.TorchGPT``, the same
structure and parameter names, the weights copied from Sparrow's):

(a) one training step of the capstone model (``support.capstone_gpt``: ``GPT_CONFIG``, its
    first batch of ``BATCH_SIZE`` sequences of the corpus, ``support.text_data``), from
    Sparrow's weights after ``--warm-steps`` (30) training steps on other batches
    (``warm_up``: at initialisation GELU's inputs are all near 0, where an erf is cheapest;
    in training a quarter to a half are not), copied into PyTorch's model: zero_grad,
    forward, ``cross_entropy`` over every position, backward, ``clip_grad_norm_(…, 1.0)`` and
    an ``AdamW`` step. Both agree on the loss of two steps from the same weights before
    anything is timed; the steps are timed in turns (``support.device_bench.measure_together``:
    a busy spell of the machine falls on both), the best of at least ``--repeat``. Then where
    a step goes: its phases (forward with the loss, backward, clip and step; each the best of
    ``--repeat``, in turns), Sparrow's step per ``Function`` (``OpClock``: the ``--top``
    forwards and backwards by time in the fastest of 5 steps), and the step's matrix
    products alone (every forward product and the two products of its backward, on arrays
    made beforehand: NumPy's BLAS against PyTorch's), the part of a step no framework's
    Python can remove.
(b) attention at a long context, no graph (``no_grad``): ``tiled_attention`` (task 9.8, tiles
    of ``--tile``) against the plain ``F.scaled_dot_product_attention``, causal, one head of
    width 64, float32, at ``--lengths`` (2048 and 4096): seconds (the best of ``--repeat``,
    in turns) and peak memory (tracemalloc's peak over one call: every array NumPy allocates
    during it, the output included; the inputs, made before, are not counted), beside the
    size of one (T, T) float32 matrix. The two agree (1e-4 of the largest) first.
(c) generation (``sp.generate``, ``--new-tokens`` tokens after a short prompt, temperature
    1, seeded, the model (a) trained) with and without the key/value cache (task 9.7):
    tokens per second, the best of ``--rounds``, in turns, and the speed-up. The cached
    logits equal the full recompute's first (1e-4).

Every library on ``--threads`` threads (1 by default, as ``bench_framework``: the BLAS
variables are set for a fresh interpreter that does the measuring, and
``torch.set_num_threads``). At least 15 timings and 5 generations by default: on a shared
machine the load comes in bursts of seconds, as long as a few of these steps. Goal (issue
31): the training step ≤ 1.5× PyTorch's.

    python -m autograder.bench gpt [--threads 1] [--repeat 15] [--rounds 5] [--warm-steps 30]
                                   [--lengths 2048 4096] [--tile 128] [--new-tokens 200]
                                   [--top 12] [--no-step]
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

from . import student
from .bench_framework import REPO, THREAD_VARIABLES, has_torch

STEP_GOAL = 1.5  # × PyTorch, one training step of the capstone model
HEAD = 64  # the width of the one head of (b)
LENGTHS = (2048, 4096)
TILE = 128
NEW_TOKENS = 200
PROMPT = "The "
WARM_STEPS = 30  # training steps before the measured step: activations with training's spread
HERE = "--measure-here"  # the flag of the interpreter that measures (threads already set)


# -- the model and its batch --------------------------------------------------------------------


def capstone_setup() -> tuple[dict[str, Any], int, Any]:
    """(GPT_CONFIG, BATCH_SIZE, the encoded corpus) of ``make capstone MODEL=gpt``."""
    from support import capstone_gpt, text_data

    return dict(capstone_gpt.GPT_CONFIG), capstone_gpt.BATCH_SIZE, text_data.corpus()


def text_batch(corpus: Any, batch: int, block: int, seed: int = 0) -> tuple[np.ndarray, ...]:
    """(inputs, targets), int64 (batch, block): the first batch the capstone's seeded stream
    draws from the training text."""
    from support import text_data

    return next(text_data.batches(corpus.train, 1, batch, block, seed))


def batch_data(vocab: int, batch: int, block: int, seed: int = 0) -> tuple[np.ndarray, ...]:
    """(inputs, targets), int64 (batch, block) each: random token ids, the targets the inputs
    shifted by one (a language model's batch, for a model without its corpus)."""
    ids = np.random.default_rng(seed).integers(0, vocab, (batch, block + 1))
    return ids[:, :-1], ids[:, 1:]


def make_models(sp: Any, torch: Any, config: dict, vocab: int) -> tuple[Any, Any]:
    """Sparrow's GPT after ``manual_seed(0)`` and (``torch`` given) its PyTorch twin with the
    same weights (float32 both); the twin is None without PyTorch."""
    sp.manual_seed(0)
    model = sp.GPT(vocab, **config)
    return model, None if torch is None else twin_of(torch, model, config, vocab)


def twin_of(torch: Any, model: Any, config: dict, vocab: int) -> Any:
    """``support.gpt_torch.TorchGPT`` with ``model``'s weights, copied."""
    from support.gpt_torch import TorchGPT, copy_weights

    twin = TorchGPT(vocab, **config)
    copy_weights(model, twin)
    return twin


def warm_up(sp: Any, model: Any, corpus: Any, batch: int, steps: int, lr: float = 3e-3) -> Any:
    """``model`` after ``steps`` AdamW steps (clip 1.0) on the corpus's seeded batches (seed
    1, not the measured batch's 0), returned: its activations then have the spread they have
    in training. At initialisation every input of GELU's erf is below 0.84 in size; after 25
    steps of the capstone 17–48% of them are above, and an erf may take a dearer path there
    (fdlibm's does)."""
    from support import text_data

    if steps:
        block = model.block_size
        batches = text_data.batches(corpus.train, steps, batch, block, seed=1)
        x, y = next(batches)
        step = TrainingStep(sp, model, x, y, lr=lr)
        step()
        for x, y in batches:
            step.x, step.y = sp.tensor(x), sp.tensor(y.reshape(-1))
            step()
    return model


class TrainingStep:
    """One training step of ``model`` on a fixed batch, written once for both frameworks
    (``lib`` is Sparrow or torch): ``AdamW(lr, weight_decay=0.1)`` over every parameter.
    ``phases()`` runs one step and returns its seconds as (forward with the loss, backward,
    clip and step); calling it runs a step and returns the loss."""

    def __init__(self, lib: Any, model: Any, x: np.ndarray, y: np.ndarray, lr: float = 1e-3):
        self.lib, self.model = lib, model
        self.x, self.y = lib.tensor(x), lib.tensor(y.reshape(-1))
        self.optimizer = lib.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.1)

    def forward(self) -> Any:
        self.optimizer.zero_grad()
        logits = self.model(self.x)
        return self.lib.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), self.y)

    def update(self) -> None:
        self.lib.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()

    def __call__(self) -> float:
        loss = self.forward()
        loss.backward()
        self.update()
        return float(loss.item())

    def phases(self) -> tuple[float, float, float]:
        start = time.perf_counter()
        loss = self.forward()
        middle = time.perf_counter()
        loss.backward()
        end = time.perf_counter()
        self.update()
        return middle - start, end - middle, time.perf_counter() - end


def agree_on_steps(steps: dict[str, Callable[[], float]], count: int = 2) -> list[float]:
    """Each step's loss, ``count`` steps from the same weights: the same (float32: 1e-4
    relative) at every step, else the timings compare different work. Returns the first's."""
    losses = {name: [step() for _ in range(count)] for name, step in steps.items()}
    first = next(iter(losses))
    for name, found in losses.items():
        for i, (mine, ref) in enumerate(zip(found, losses[first]), start=1):
            if abs(mine - ref) > 1e-4 * abs(ref):
                raise AssertionError(f"step {i}: {name}'s loss {mine}, {first}'s {ref}")
    return losses[first]


def best_phases(steps: dict[str, TrainingStep], repeat: int) -> dict[str, tuple[float, ...]]:
    """Each step's least seconds of each phase over ``repeat`` steps (each phase its own
    best), the steps taking turns."""
    runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name in steps}
    for _ in range(repeat):
        for name, step in steps.items():
            gc.collect()
            runs[name].append(step.phases())
    return {name: tuple(min(r[i] for r in found) for i in range(3)) for name, found in runs.items()}


class OpClock:
    """Where a Sparrow step's time goes, per ``Function``: while ``with``-ed, every
    ``Function.apply`` outside a backward is clocked as its Function's forward (exclusive of
    the applies it makes itself), and every ``Node.backward`` as its Function's backward
    (inclusive: the operations a local backward runs are its cost). ``seconds[(name,
    "forward" | "backward")]`` and ``calls[...]`` add up over the steps run."""

    def __init__(self, sp: Any) -> None:
        self.sp = sp
        self.seconds: dict[tuple[str, str], float] = {}
        self.calls: dict[tuple[str, str], int] = {}
        self._inner: list[float] = []
        self._in_backward = 0

    def _add(self, key: tuple[str, str], seconds: float) -> None:
        self.seconds[key] = self.seconds.get(key, 0.0) + seconds
        self.calls[key] = self.calls.get(key, 0) + 1

    def __enter__(self) -> OpClock:
        function, node = self.sp.Function, self.sp.Node
        self._apply, self._backward = function.__dict__["apply"], node.backward
        apply, backward = self._apply.__func__, self._backward

        def clocked_apply(cls: Any, *args: Any, **kwargs: Any) -> Any:
            if self._in_backward:
                return apply(cls, *args, **kwargs)
            self._inner.append(0.0)
            start = time.perf_counter()
            try:
                return apply(cls, *args, **kwargs)
            finally:
                spent = time.perf_counter() - start
                inner = self._inner.pop()
                if self._inner:
                    self._inner[-1] += spent
                self._add((cls.__name__, "forward"), spent - inner)

        def clocked_backward(node: Any, *args: Any, **kwargs: Any) -> Any:
            self._in_backward += 1
            start = time.perf_counter()
            try:
                return backward(node, *args, **kwargs)
            finally:
                self._in_backward -= 1
                self._add((node.function.__name__, "backward"), time.perf_counter() - start)

        function.apply, node.backward = classmethod(clocked_apply), clocked_backward
        return self

    def __exit__(self, *exc: object) -> None:
        self.sp.Function.apply, self.sp.Node.backward = self._apply, self._backward


def op_profile(sp: Any, step: Callable[[], Any], steps: int = 3) -> tuple[dict, dict, float]:
    """(seconds, calls, total seconds) of the least disturbed of ``steps`` calls of
    ``step``, each clocked by an ``OpClock`` of its own: the one with the least total (other
    work on the machine only ever adds), so its shares add up to its total."""
    runs = []
    for _ in range(steps):
        gc.collect()
        with OpClock(sp) as clock:
            start = time.perf_counter()
            step()
            runs.append((time.perf_counter() - start, clock))
    total, clock = min(runs, key=lambda run: run[0])
    return clock.seconds, clock.calls, total


# -- the step's matrix products ----------------------------------------------------------------


def gemm_shapes(
    config: dict, vocab: int, batch: int
) -> list[tuple[tuple[int, ...], int, int, int]]:
    """The forward matrix products of one step, as (lead, m, k, n): (lead…, m, k) @ (k, n),
    or batched (lead…, k, n) for attention. Per block: the packed in-projection, the scores
    q kᵀ and weights · v of every head, the out-projection, the MLP's two Linears; then the
    head."""
    t, e, h = config["block_size"], config["n_embd"], config["n_head"]
    rows, d = batch * t, e // h
    block = [
        ((), rows, e, 3 * e),
        ((batch, h), t, d, t),
        ((batch, h), t, t, d),
        ((), rows, e, e),
        ((), rows, e, 4 * e),
        ((), rows, 4 * e, e),
    ]
    return block * config["n_layer"] + [((), rows, e, vocab)]


def gemm_step(lib: Any, shapes: list, seed: int = 0) -> Callable[[], None]:
    """Every product of ``shapes`` and its backward's two (∂A = G Bᵀ, ∂B = Aᵀ G; for a
    Linear's weight Aᵀ G sums over the rows), on float32 arrays made here (``lib``: numpy or
    torch)."""
    rng = np.random.default_rng(seed)
    tensor = np.asarray if lib is np else lib.from_numpy
    operands = []
    for lead, m, k, n in shapes:
        a = rng.standard_normal((*lead, m, k), dtype=np.float32)
        b = rng.standard_normal((*lead, k, n) if lead else (k, n), dtype=np.float32)
        g = rng.standard_normal((*lead, m, n), dtype=np.float32)
        operands.append(tuple(tensor(z) for z in (a, b, g)))

    def step() -> None:
        for a, b, g in operands:
            a @ b
            g @ b.swapaxes(-1, -2)
            a.swapaxes(-1, -2) @ g

    return step


# -- (b) attention at a long context ------------------------------------------------------------


def attention_inputs(sp: Any, length: int, width: int = HEAD, seed: int = 0) -> tuple:
    """q, k, v: (1, length, width) float32 tensors of standard normals (one head)."""
    rng = np.random.default_rng(seed)
    return tuple(
        sp.tensor(rng.standard_normal((1, length, width), dtype=np.float32)) for _ in range(3)
    )


def attention_calls(sp: Any, q: Any, k: Any, v: Any, tile: int) -> dict[str, Callable]:
    """The plain and the tiled causal attention of q, k, v, neither recording a graph."""

    def plain() -> Any:
        with sp.no_grad():
            return sp.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)

    def tiled() -> Any:
        return sp.tiled_attention(q, k, v, is_causal=True, tile_size=tile)

    return {"plain": plain, "tiled": tiled}


def agree_on_outputs(calls: dict[str, Callable[[], Any]], what: str) -> None:
    """Every call gives the same array (float32: 1e-4 of the largest)."""
    found = {name: np.asarray(call().data) for name, call in calls.items()}
    first = next(iter(found))
    ref = found[first]
    scale = float(np.abs(ref).max()) or 1.0
    for name, out in found.items():
        if out.shape != ref.shape or float(np.abs(out - ref).max()) > 1e-4 * scale:
            raise AssertionError(f"{what}: {name}'s output differs from {first}'s")


def peak_memory(call: Callable[[], Any]) -> int:
    """tracemalloc's peak (bytes) over one ``call()``: what NumPy allocates during it, the
    result included (the arrays made before it are not traced)."""
    gc.collect()
    tracemalloc.start()
    try:
        result = call()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del result
    return peak


def long_context(sp: Any, lengths: list[int], tile: int, repeat: int) -> list[dict[str, Any]]:
    """For each length: seconds (best of ``repeat``, in turns) and peak bytes of the plain
    and the tiled attention, and the bytes of one (T, T) float32 matrix."""
    from support import device_bench

    rows = []
    for length in lengths:
        calls = attention_calls(sp, *attention_inputs(sp, length), tile)
        agree_on_outputs(calls, f"T = {length}")
        memory = {name: peak_memory(call) for name, call in calls.items()}
        timed = device_bench.measure_together(
            {name: (call, lambda: None) for name, call in calls.items()}, repeat=repeat
        )
        rows.append(
            {
                "length": length,
                "seconds": {name: t.best for name, t in timed.items()},
                "peak": memory,
                "matrix": length * length * 4,
            }
        )
    return rows


# -- (c) generation -----------------------------------------------------------------------------


def cache_agrees(sp: Any, model: Any, idx: Any, tolerance: float = 1e-4) -> float:
    """The largest difference between the logits of ``idx`` (1, T) fed one token at a time
    through the key/value caches and the full recompute's (float32: ``tolerance`` of the
    largest logit, else an AssertionError)."""
    model.eval()
    with sp.no_grad():
        full = np.asarray(model(idx).data)
        caches = model.new_caches()
        steps = [np.asarray(model(idx[:, i : i + 1], caches).data) for i in range(idx.shape[1])]
    cached = np.concatenate(steps, axis=1)
    difference = float(np.abs(cached - full).max())
    if difference > tolerance * float(np.abs(full).max()):
        raise AssertionError(f"the cached logits differ from the full recompute's by {difference}")
    return difference


def generation_calls(sp: Any, model: Any, prompt: Any, new_tokens: int) -> dict[str, Callable]:
    """``generate`` with and without the cache, each from a generator seeded alike."""

    def run(use_cache: bool) -> Callable[[], Any]:
        def call() -> Any:
            generator = sp.Generator().manual_seed(0)
            return sp.generate(model, prompt, new_tokens, use_cache=use_cache, generator=generator)

        return call

    return {"with the cache": run(True), "without": run(False)}


def tokens_per_second(calls: dict[str, Callable], new_tokens: int, rounds: int) -> dict:
    """Each call's new tokens per second: its best of ``rounds`` runs, the calls in turns."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            gc.collect()
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return {name: new_tokens / min(t) for name, t in times.items()}


# -- the report ---------------------------------------------------------------------------------


def works(sp: Any) -> bool:
    """Whether ``sp``'s GPT trains a step and its tiled attention runs (False: a stub raised
    NotImplementedError)."""
    try:
        model = sp.GPT(5, 4, n_layer=1, n_head=2, n_embd=8)
        step = TrainingStep(sp, model, *batch_data(5, 2, 4))
        step()
        sp.tiled_attention(*attention_inputs(sp, 4, 2), tile_size=2)
        sp.generate(model, sp.tensor([[0]]), 2)
    except NotImplementedError:
        return False
    return True


def step_report(
    sp: Any, torch: Any, args: argparse.Namespace, model: Any, setup: tuple
) -> float | None:
    """(a): prints the step's times and where they go for ``model`` (``warm_up``'s); returns
    Sparrow ÷ PyTorch (None without PyTorch)."""
    from support import device_bench

    config, batch, corpus = setup
    vocab = len(corpus.vocab)
    x, y = text_batch(corpus, batch, config["block_size"])
    twin = None if torch is None else twin_of(torch, model, config, vocab)
    steps = {"Sparrow": TrainingStep(sp, model, x, y)}
    if twin is not None:
        steps["PyTorch"] = TrainingStep(torch, twin, x, y)
    losses = agree_on_steps(steps)
    shape = ", ".join(f"{k}={v}" for k, v in config.items())
    print(
        f"\n(a) one training step of the capstone GPT ({shape}; vocabulary {vocab}; batch "
        f"{batch} × {config['block_size']}; cross_entropy, backward, clip 1.0, AdamW), ms, "
        f"both from Sparrow's weights after {args.warm_steps} steps of training (warm_up)"
    )
    print(f"  both agree on two steps' losses ({losses[0]:.4f}, {losses[1]:.4f}) first")
    calls = {name: (step, lambda: None) for name, step in steps.items()}
    timed = device_bench.measure_together(calls, repeat=args.repeat)
    best = {name: t.best for name, t in timed.items()}
    print(f"  {'':<28}" + "".join(f"{name:>12}" for name in best))
    print(f"  {f'step (best of ≥ {args.repeat}, in turns)':<28}", end="")
    print("".join(f"{s * 1e3:>12.1f}" for s in best.values()))
    phases = best_phases(steps, args.repeat)
    for i, what in enumerate(("forward + loss", "backward", "clip + AdamW step")):
        print(f"  {f'  {what}':<28}" + "".join(f"{p[i] * 1e3:>12.1f}" for p in phases.values()))
    shapes = gemm_shapes(config, vocab, batch)
    gemms = {"NumPy": gemm_step(np, shapes)}
    if torch is not None:
        gemms["PyTorch"] = gemm_step(torch, shapes)
    timed = device_bench.measure_together(
        {name: (g, lambda: None) for name, g in gemms.items()}, repeat=args.repeat
    )
    print(
        f"  {'  its matrix products alone':<28}"
        + "".join(f"{t.best * 1e3:>12.1f}" for t in timed.values())
        + f"   ({3 * len(shapes)} products, NumPy's BLAS in Sparrow's column)"
    )
    print_profile(sp, steps["Sparrow"], args.top)
    if twin is None:
        return None
    ratio = best["Sparrow"] / best["PyTorch"]
    floor = timed["NumPy"].best / best["PyTorch"]
    print(
        f"  Sparrow ÷ PyTorch: {ratio:.2f}×; NumPy's products alone ÷ PyTorch's step: {floor:.2f}×"
    )
    return ratio


def print_profile(sp: Any, step: TrainingStep, top: int) -> None:
    """The ``top`` Functions of a Sparrow step by time (``op_profile``: the fastest of 5
    clocked steps), the rest summed, and what no Function's clock saw (the engine's
    bookkeeping and gradient sums, clip, AdamW)."""
    seconds, calls, total = op_profile(sp, step, steps=5)
    ranked = sorted(seconds.items(), key=lambda item: -item[1])
    print(
        f"  where Sparrow's step goes, per Function (the fastest of 5 clocked steps: "
        f"{total * 1e3:.1f} ms with the clocks), ms"
    )
    for key, spent in ranked[:top]:
        name, phase = key
        share = f"{spent / total:.0%}"
        print(f"    {name:<24}{phase:<10}{spent * 1e3:>8.1f}{share:>6}{calls[key]:>6} calls")
    rest = sum(spent for _, spent in ranked[top:])
    print(f"    {f'{len(ranked) - top} others':<34}{rest * 1e3:>8.1f}{rest / total:>6.0%}")
    outside = max(total - sum(seconds.values()), 0.0)
    print(f"    {'outside any Function':<34}{outside * 1e3:>8.1f}{outside / total:>6.0%}")


def attention_report(sp: Any, args: argparse.Namespace) -> None:
    """(b): the plain and the tiled attention side by side."""
    mib = 2**20
    print(
        f"\n(b) causal attention, one head of width {HEAD}, float32, no graph: plain "
        f"F.scaled_dot_product_attention against tiled_attention (tile {args.tile})"
    )
    print(
        f"  {'T':>6}{'plain ms':>11}{'tiled ms':>11}{'ratio':>8}{'plain MiB':>12}"
        f"{'tiled MiB':>12}{'ratio':>8}{'(T, T) MiB':>12}"
    )
    for row in long_context(sp, args.lengths, args.tile, args.repeat):
        s, m = row["seconds"], row["peak"]
        print(
            f"  {row['length']:>6}{s['plain'] * 1e3:>11.1f}{s['tiled'] * 1e3:>11.1f}"
            f"{s['tiled'] / s['plain']:>7.2f}×{m['plain'] / mib:>12.1f}{m['tiled'] / mib:>12.2f}"
            f"{m['tiled'] / m['plain']:>7.3f}×{row['matrix'] / mib:>12.1f}"
        )
    print(
        "  peak: tracemalloc's over one call (every array allocated during it, the output "
        "included; q, k, v not)"
    )


def generation_report(sp: Any, args: argparse.Namespace, model: Any, setup: tuple) -> float:
    """(c): tokens per second with and without the cache, ``model`` as (a) left it; returns
    the speed-up."""
    config, _, corpus = setup
    prompt = sp.tensor(corpus.vocab.encode(PROMPT)[None])
    sample = sp.tensor(text_batch(corpus, 1, config["block_size"])[0])
    difference = cache_agrees(sp, model, sample)
    calls = generation_calls(sp, model, prompt, args.new_tokens)
    rate = tokens_per_second(calls, args.new_tokens, args.rounds)
    speedup = rate["with the cache"] / rate["without"]
    print(
        f"\n(c) generation: {args.new_tokens} new tokens after {PROMPT!r}, the capstone GPT "
        f"(a)'s, temperature 1, best of {args.rounds}, in turns"
    )
    print(f"  cached logits = the full recompute's over {config['block_size']} positions (largest")
    print(f"  difference {difference:.1e}); the cache starts again from half a block when full")
    print("  " + "   ".join(f"{name}: {r:.0f} tokens/s" for name, r in rate.items()))
    print(f"  the cache's speed-up: {speedup:.2f}×")
    return speedup


def report(args: argparse.Namespace) -> None:
    sp = importlib.import_module(f"{args.impl}.ch09_attention")
    if not works(sp):
        print(f"Transformer speed: not measured ({args.impl}/ch09_attention, or a chapter below")
        print("  it, raises NotImplementedError: its tasks are not all done)")
        return
    torch = importlib.import_module("torch") if has_torch() else None
    if torch is not None:
        torch.set_num_threads(args.threads)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"Transformer speed — Sparrow from {args.impl}/, {args.threads} thread(s) for every "
        f"library ({', '.join(THREAD_VARIABLES)}"
        + (f"; torch.set_num_threads({args.threads})" if torch else "")
        + f"), load {load:.2f}, {time.strftime('%Y-%m-%d %H:%M %Z')}"
    )
    if torch is None:
        print("PyTorch is not installed: its columns are not measured.")
    setup = capstone_setup()
    config, batch, corpus = setup
    model, _ = make_models(sp, None, config, len(corpus.vocab))
    warm_up(sp, model, corpus, batch, args.warm_steps)
    ratio = step_report(sp, torch, args, model, setup) if args.step else None
    attention_report(sp, args)
    generation_report(sp, args, model, setup)
    print("\nGoal (issue 31):")
    if ratio is None:
        print(f"  GPT training step ≤ {STEP_GOAL}× PyTorch: not measured")
    else:
        verdict = "met" if ratio <= STEP_GOAL else "MISSED"
        print(f"  GPT training step ≤ {STEP_GOAL}× PyTorch: {ratio:.2f}×  {verdict}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m autograder.bench gpt",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--threads", type=int, default=1, help="for every library")
    parser.add_argument("--repeat", type=int, default=15, help="at least this many timings")
    parser.add_argument("--rounds", type=int, default=5, help="generations each; the best counts")
    parser.add_argument("--lengths", type=int, nargs="+", default=list(LENGTHS))
    parser.add_argument("--tile", type=int, default=TILE)
    parser.add_argument("--new-tokens", type=int, default=NEW_TOKENS)
    parser.add_argument("--no-step", dest="step", action="store_false", help="(b) and (c) only")
    parser.add_argument("--top", type=int, default=12, help="Functions in the step's profile")
    parser.add_argument(
        "--warm-steps", type=int, default=WARM_STEPS, help="training steps before (a) and (c)"
    )
    impl = student.default_impl()
    parser.add_argument("--impl", default=impl, choices=("solutions", "chapters"))
    parser.add_argument(HERE, action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure_here:
        report(args)
        return 0
    # NumPy's BLAS reads its thread count when it loads: measure in a fresh interpreter
    argv = list(sys.argv[1:] if argv is None else argv)
    env = {**os.environ, **{name: str(args.threads) for name in THREAD_VARIABLES}}
    command = [sys.executable, "-m", "autograder.bench_gpt", *argv, HERE]
    sys.stdout.flush()  # what was printed before comes first
    return subprocess.run(command, env=env, cwd=REPO, check=False).returncode


if __name__ == "__main__":
    raise SystemExit(main())

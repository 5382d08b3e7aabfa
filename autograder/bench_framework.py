"""Framework speed (``make bench``; ``python -m autograder.bench framework``).

Sparrow's autograd (chapter 4, from ``$SPARROW_IMPL``, else the reference ``solutions/``)
side by side, in one run, with PyTorch on the CPU (when installed) and with a hand-written
NumPy backprop (the floor: the same arithmetic and no graph), every library on the same
number of threads: ``--threads N`` (``$OMP_NUM_THREADS`` & co. for NumPy's BLAS,
``torch.set_num_threads`` for PyTorch), 1 by default — the ratios measure the frameworks,
not their threading, and one thread keeps them steady on a small machine that is busy with
other work (on 2 busy cores, PyTorch's spinning OpenMP threads made its MLP step 7× slower).

- chain: ``y = y * 1.0001; y = y + c`` repeated, 100,000 tiny ops (float32, 16 elements),
  then ``y.sum().backward()``: microseconds per node, forward and backward;
- MLP: one training step of an MLP 784-128-10, batch 64, float32: forward, a log-softmax,
  the mean negative log-likelihood, backward, an SGD update. Sparrow's is written with
  chapter 4's tensor ops (matmul, relu, exp/sum/log, mean); PyTorch's as a user writes it
  (``F.cross_entropy``); the floor's backward by hand. All three agree on the loss.

Goals (issue 12): chain ≤ 1.5× PyTorch per node; MLP step ≤ 1.0× PyTorch and ≤ 1.3× the
NumPy floor. Each figure is the best of ``--repeats`` timings (the one least disturbed by
other work on the machine), each measured in a fresh process (see ``run_child``).

    python -m autograder.bench framework [--nodes 100000] [--steps 100] [--threads N]
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.util
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent

CHAIN_GOAL = 1.5  # × PyTorch, per node
MLP_GOAL_TORCH = 1.0  # × PyTorch, per step
MLP_GOAL_NUMPY = 1.3  # × the NumPy floor, per step
SIZE, HIDDEN, CLASSES, BATCH, LR = 784, 128, 10, 64, 0.01
SCALE, SHIFT, WIDTH = 1.0001, 1e-4, 16  # the chain's tiny ops, on WIDTH elements


THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def best(fn: Callable[[], Any], repeats: int) -> float:
    """The least seconds of ``repeats`` calls of ``fn``. The garbage collector runs as it
    does for a user (its time counts), from a clean start each time."""
    times = []
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


class GCClock:
    """Seconds spent in the garbage collector while ``with``-ed (``gc.callbacks``)."""

    def __init__(self) -> None:
        self.seconds, self._start = 0.0, 0.0

    def _tick(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._start

    def __enter__(self) -> GCClock:
        gc.callbacks.append(self._tick)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._tick)


# -- the chain: per-node cost of forward and backward -------------------------------------


def chain_sparrow(sp: Any, nodes: int) -> tuple[float, float]:
    """Seconds for the forward and the backward of a chain of ``nodes`` tiny ops."""
    x = sp.tensor(np.ones(WIDTH, np.float32), requires_grad=True)
    return time_chain_of(x, sp.tensor(np.full(WIDTH, SHIFT, np.float32)), nodes)


def chain_torch(torch: Any, nodes: int) -> tuple[float, float]:
    x = torch.ones(WIDTH, dtype=torch.float32, requires_grad=True)
    return time_chain_of(x, torch.full((WIDTH,), SHIFT, dtype=torch.float32), nodes)


def time_chain_of(x: Any, c: Any, nodes: int) -> tuple[float, float]:
    """The chain, written once for both frameworks: ``y = y * SCALE + c`` (two ops) per
    step, summed, then backward; seconds for the forward and for the backward."""
    start = time.perf_counter()
    y = x
    for _ in range(nodes // 2):
        y = y * SCALE
        y = y + c
    loss = y.sum()
    middle = time.perf_counter()
    loss.backward()
    return middle - start, time.perf_counter() - middle


def chain_numpy(nodes: int) -> tuple[float, float]:
    """The floor: the same forward on arrays, and its backward by hand (no graph)."""
    x = np.ones(WIDTH, np.float32)
    c = np.full(WIDTH, SHIFT, np.float32)
    scale = np.float32(SCALE)
    start = time.perf_counter()
    y = x
    for _ in range(nodes // 2):
        y = y * scale
        y = y + c
    loss = y.sum()
    middle = time.perf_counter()
    g = np.ones_like(y) * np.float32(1.0)  # ∂loss/∂y
    for _ in range(nodes // 2):
        g = g  # ∂(y + c)/∂y = 1: the gradient passes on
        g = g * scale  # ∂(y·s)/∂y = s
    assert loss.dtype == g.dtype
    return middle - start, time.perf_counter() - middle


def time_chain(run: Callable[[int], tuple[float, float]], nodes: int, repeats: int) -> dict:
    """Seconds per node: the best forward, the best backward (each the least of ``repeats``)
    and the garbage collector's share of the best forward + backward."""
    runs = []
    for _ in range(repeats):
        gc.collect()
        with GCClock() as clock:
            f, b = run(nodes)
        runs.append((f, b, clock.seconds))
    count = 2 * (nodes // 2) + 1
    return {
        "forward": min(r[0] for r in runs) / count,
        "backward": min(r[1] for r in runs) / count,
        "gc": min(runs, key=lambda r: r[0] + r[1])[2] / count,
    }


# -- the MLP step -------------------------------------------------------------------------


def mlp_data(seed: int = 0) -> dict[str, np.ndarray]:
    """Weights (PyTorch's default init scale), one batch and its labels, float32."""
    rng = np.random.default_rng(seed)
    bound1, bound2 = 1 / np.sqrt(SIZE), 1 / np.sqrt(HIDDEN)
    return {
        "w1": rng.uniform(-bound1, bound1, (SIZE, HIDDEN)).astype(np.float32),
        "b1": rng.uniform(-bound1, bound1, HIDDEN).astype(np.float32),
        "w2": rng.uniform(-bound2, bound2, (HIDDEN, CLASSES)).astype(np.float32),
        "b2": rng.uniform(-bound2, bound2, CLASSES).astype(np.float32),
        "x": rng.standard_normal((BATCH, SIZE)).astype(np.float32),
        "y": rng.integers(0, CLASSES, BATCH),
    }


def mlp_sparrow(sp: Any, data: dict[str, np.ndarray]) -> Callable[[], float]:
    """One step as a Sparrow user writes it today (chapter 4's ops); returns the loss."""
    params = [sp.tensor(data[k], requires_grad=True) for k in ("w1", "b1", "w2", "b2")]
    x = sp.tensor(data["x"])
    onehot = sp.tensor(np.eye(CLASSES, dtype=np.float32)[data["y"]])

    def step() -> float:
        w1, b1, w2, b2 = params
        h = (x @ w1 + b1).relu()
        z = h @ w2 + b2  # small logits at this init: exp needs no shift by the row max
        log_p = z - z.exp().sum(dim=1, keepdim=True).log()  # log-softmax
        loss = -(log_p * onehot).sum(dim=1).mean()
        loss.backward()
        for p in params:
            p.data -= LR * p.grad.data
            p.grad = None
        return loss.item()

    return step


def count_calls(sp: Any, step: Callable[[], float]) -> dict[str, int]:
    """How many operations (``Function.apply``, casts included) and local backwards
    (``Node.backward``) one Sparrow step makes: the Python each step pays for."""
    counts = {"operations": 0, "local backwards": 0}
    apply, backward = sp.Function.__dict__["apply"], sp.Node.backward

    def counted_apply(cls: Any, *args: Any, **kwargs: Any) -> Any:
        counts["operations"] += 1
        return apply.__func__(cls, *args, **kwargs)

    def counted_backward(node: Any, *args: Any, **kwargs: Any) -> Any:
        counts["local backwards"] += 1
        return backward(node, *args, **kwargs)

    sp.Function.apply, sp.Node.backward = classmethod(counted_apply), counted_backward
    try:
        step()
    finally:
        sp.Function.apply, sp.Node.backward = apply, backward
    return counts


def mlp_torch(torch: Any, data: dict[str, np.ndarray]) -> Callable[[], float]:
    """The same step as a PyTorch user writes it."""
    functional = importlib.import_module("torch.nn.functional")
    params = [torch.tensor(data[k], requires_grad=True) for k in ("w1", "b1", "w2", "b2")]
    x, y = torch.tensor(data["x"]), torch.tensor(data["y"])

    def step() -> float:
        w1, b1, w2, b2 = params
        z = torch.relu(x @ w1 + b1) @ w2 + b2
        loss = functional.cross_entropy(z, y)
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= LR * p.grad
                p.grad = None
        return loss.item()

    return step


def mlp_numpy(data: dict[str, np.ndarray]) -> Callable[[], float]:
    """The floor: the same step with its backward written by hand."""
    params = [data[k].copy() for k in ("w1", "b1", "w2", "b2")]
    x, y = data["x"], data["y"]
    rows = np.arange(BATCH)

    def step() -> float:
        w1, b1, w2, b2 = params
        a = x @ w1 + b1
        h = np.maximum(a, 0)
        z = h @ w2 + b2
        e = np.exp(z)
        total = e.sum(axis=1, keepdims=True)
        loss = -(z[rows, y] - np.log(total[:, 0])).mean()
        dz = e / total  # softmax − onehot, over the batch
        dz[rows, y] -= 1
        dz /= BATCH
        dh = dz @ w2.T
        da = dh * (a > 0)
        grads = (x.T @ da, da.sum(axis=0), h.T @ dz, dz.sum(axis=0))
        for p, g in zip(params, grads):
            p -= LR * g
        return float(loss)

    return step


# -- the report: each measurement in a fresh interpreter -----------------------------------
#
# PyTorch's OpenMP threads and NumPy's OpenBLAS threads each spin for a while after their
# work; in one process they take each other's cores, and either can look several times
# slower than it is. Each (workload, framework) pair is therefore timed in its own process,
# with the same thread count for every library.

FRAMEWORKS = ("Sparrow", "PyTorch", "NumPy")


def measure(workload: str, framework: str, args: argparse.Namespace) -> dict[str, float]:
    """Run in the child: time one workload on one framework (``--measure``)."""
    if framework == "PyTorch":
        torch = importlib.import_module("torch")
        torch.set_num_threads(args.threads)
    if workload == "chain":
        run = {
            "Sparrow": lambda n: chain_sparrow(load_sparrow(args.impl), n),
            "PyTorch": lambda n: chain_torch(torch, n),
            "NumPy": chain_numpy,
        }[framework]
        return time_chain(run, args.nodes, args.repeats)
    data = mlp_data()
    step = {
        "Sparrow": lambda: mlp_sparrow(load_sparrow(args.impl), data),
        "PyTorch": lambda: mlp_torch(torch, data),
        "NumPy": lambda: mlp_numpy(data),
    }[framework]()
    losses = [step(), step()]  # the second loss tests the first step's gradients

    def many() -> None:
        for _ in range(args.steps):
            step()

    result = {"step": best(many, args.repeats) / args.steps, "losses": losses}
    if framework == "Sparrow":
        result["calls"] = count_calls(load_sparrow(args.impl), step)
    return result


def load_sparrow(impl: str) -> Any:
    """Chapter 4's framework from ``impl`` (``solutions`` or ``chapters``)."""
    return importlib.import_module(f"{impl}.ch04_backward")


def has_torch() -> bool:
    return importlib.util.find_spec("torch") is not None


def run_child(workload: str, framework: str, args: argparse.Namespace) -> dict[str, float]:
    """``measure`` in a fresh interpreter, with every library on ``args.threads`` threads."""
    command = [sys.executable, "-m", "autograder.bench_framework", "--measure", workload]
    command += ["--framework", framework, "--impl", args.impl, "--threads", str(args.threads)]
    command += ["--nodes", str(args.nodes), "--steps", str(args.steps)]
    command += ["--repeats", str(args.repeats)]
    env = dict(os.environ)
    for name in THREAD_VARIABLES:
        env[name] = str(args.threads)
    done = subprocess.run(command, env=env, cwd=REPO, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


def agree_on_losses(losses: dict[str, list[float]], tolerance: float = 1e-4) -> None:
    """The frameworks' losses, step by step, agree (each starts from the same weights, so
    the second loss agrees only if the first step's gradients did): else the timings compare
    different work."""
    for i, values in enumerate(zip(*losses.values())):
        if max(values) - min(values) > tolerance * max(1.0, abs(values[0])):
            found = dict(zip(losses, values))
            raise AssertionError(f"the MLP steps disagree on loss {i + 1}: {found}")


def report(args: argparse.Namespace) -> None:
    """Measure everything, then print the two tables and the goals."""
    frameworks = [f for f in FRAMEWORKS if f != "PyTorch" or has_torch()]
    refs = [f for f in frameworks if f != "Sparrow"]
    chains = {f: run_child("chain", f, args) for f in frameworks}
    steps = {f: run_child("mlp", f, args) for f in frameworks}
    agree_on_losses({f: steps[f]["losses"] for f in frameworks})

    note = f"{args.threads} thread(s) for every library ({', '.join(THREAD_VARIABLES)}"
    note += f"; torch.set_num_threads({args.threads}))" if "PyTorch" in refs else ")"
    print(f"Framework speed — Sparrow from {args.impl}/, {note}, best of {args.repeats}")
    header = "".join(f"{'× ' + f:>11}" for f in refs)

    def row(name: str, value: float, against: dict[str, float]) -> None:
        ratios = "".join(f"{value / against[f]:>11.2f}" for f in refs)
        print(f"  {name:<30}{value * 1e6:>10.2f}{ratios}")

    total = {f: c["forward"] + c["backward"] for f, c in chains.items()}
    print(f"\n(a) a chain of {args.nodes:,} tiny ops, µs per node{'':<4}{header}")
    for f in frameworks:
        row(f"{f}, forward + backward", total[f], total)
    for part in ("forward", "backward"):
        row(f"Sparrow, {part}", chains["Sparrow"][part], {f: chains[f][part] for f in refs})
    print(f"  {'(Sparrow, garbage collection)':<30}{chains['Sparrow']['gc'] * 1e6:>10.2f}")
    step = {f: s["step"] for f, s in steps.items()}
    print(f"\n(b) MLP {SIZE}-{HIDDEN}-{CLASSES}, batch {BATCH}: one step, µs{'':<2}{header}")
    for f in frameworks:
        row(f"{f}, one step", step[f], step)
    calls = ", ".join(f"{n} {what}" for what, n in steps["Sparrow"]["calls"].items())
    print(f"  (Sparrow, per step: {calls})")

    print("\nGoals (issue 12):")
    goals = [("chain", total, "PyTorch", CHAIN_GOAL), ("MLP step", step, "PyTorch", MLP_GOAL_TORCH)]
    goals.append(("MLP step", step, "NumPy", MLP_GOAL_NUMPY))
    for name, times, ref, goal in goals:
        if ref not in times:
            print(f"  {name} ≤ {goal}× {ref}: not measured ({ref} is not installed)")
            continue
        ratio = times["Sparrow"] / times[ref]
        verdict = "met" if ratio <= goal else "MISSED"
        print(f"  {name} ≤ {goal}× {ref}: {ratio:.2f}×  {verdict}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m autograder.bench framework",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--nodes", type=int, default=100_000, help="chain length")
    parser.add_argument("--steps", type=int, default=100, help="MLP steps per timing")
    parser.add_argument("--repeats", type=int, default=5, help="timings; the best counts")
    parser.add_argument("--threads", type=int, default=1, help="for every library")
    impl = os.environ.get("SPARROW_IMPL", "").strip() or "solutions"
    parser.add_argument("--impl", default=impl, choices=("solutions", "chapters"))
    parser.add_argument("--measure", choices=("chain", "mlp"), help=argparse.SUPPRESS)
    parser.add_argument("--framework", choices=FRAMEWORKS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure:
        print(json.dumps(measure(args.measure, args.framework, args)))
    else:
        report(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

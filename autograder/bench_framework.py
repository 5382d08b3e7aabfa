"""Framework speed (``python -m autograder.bench framework``; a part of the benchmarks).

Sparrow's autograd (chapter 4, from ``$SPARROW_IMPL`` or ``--impl``, else the reference)
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
- nn step: the same step, weights and loss written with chapter 5's modules
  (``nn.Sequential`` of ``nn.Linear`` and ``nn.ReLU``, ``F.cross_entropy`` as one operation,
  SGD by hand over ``model.parameters()``), against ``torch.nn`` and the floor with its
  weights in Linear's (out, in) layout. All three agree on the loss.
- DataLoader: one shuffled epoch of chapter 5's ``DataLoader`` over a ``TensorDataset`` of
  issue 15's capstone data (4,000 items of 784 float32 pixels and an int64 label, batch 64),
  against ``torch.utils.data.DataLoader`` and a floor that gathers each batch with one fancy
  index. All three give every item once.
- capstone epoch (issue 15): one epoch of chapter 6's capstone, the nn step's model and
  weights trained by ``optim.Adam`` (lr 1e-3) with ``F.cross_entropy`` on MNIST-5k's 4,000
  training images (``--items``), flattened float32 pixels (the data's dtype, and PyTorch's
  and Sparrow's default), shuffled by a ``DataLoader``, batch 64: 63 steps of zero_grad,
  forward, loss, backward and ``optimizer.step()``. PyTorch's loop is the same lines with
  ``torch.nn``, ``torch.optim.Adam`` and ``torch.utils.data``; the floor's forward and
  backward are by hand, its Adam in place. All three shuffle alike (``NumPyOrder``) and agree
  on every step's loss; as many clocked epochs split each step into data (the loader),
  forward (zero_grad, the model and the loss), backward and step: where the time goes.

Goals (issues 12 and 15): chain ≤ 1.5× PyTorch per node; MLP step ≤ 1.0× PyTorch and ≤ 1.3×
the NumPy floor, which the nn step and the capstone's epoch are held to as well. Each figure
is the best of ``--repeats`` timings (the one least disturbed by other work on the machine),
each measured in a fresh process (see ``run_child``); the capstone's, the best of
``--rounds`` epochs, the three frameworks taking turns (see ``capstone``).

    python -m autograder.bench framework [--nodes 100000] [--steps 100] [--threads N]
                                         [--repeats 5] [--items 4000] [--rounds 20]
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.util
import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from autograder import student

REPO = Path(__file__).resolve().parent.parent

CHAIN_GOAL = 1.5  # × PyTorch, per node
MLP_GOAL_TORCH = 1.0  # × PyTorch, per step
MLP_GOAL_NUMPY = 1.3  # × the NumPy floor, per step
SIZE, HIDDEN, CLASSES, BATCH, LR = 784, 128, 10, 64, 0.01
EPOCH_ITEMS = 4000  # issue 15's capstone: MNIST-5k's training split
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


def mlp_numpy(data: dict[str, np.ndarray], nn_layout: bool = False) -> Callable[[], float]:
    """The floor: the same step with its backward written by hand. ``nn_layout``: the weights
    stored as ``nn.Linear`` stores them, (out, in), and used as ``x @ Wᵀ``."""
    params = [data[k].copy() for k in ("w1", "b1", "w2", "b2")]
    if nn_layout:
        params[0], params[2] = params[0].T.copy(), params[2].T.copy()
    x, y = data["x"], data["y"]
    rows = np.arange(BATCH)

    def step() -> float:
        w1, b1, w2, b2 = params
        if nn_layout:
            a = x @ w1.T + b1
            h = np.maximum(a, 0)
            z = h @ w2.T + b2
        else:
            a = x @ w1 + b1
            h = np.maximum(a, 0)
            z = h @ w2 + b2
        e = np.exp(z)
        total = e.sum(axis=1, keepdims=True)
        loss = -(z[rows, y] - np.log(total[:, 0])).mean()
        dz = e / total  # softmax − onehot, over the batch
        dz[rows, y] -= 1
        dz /= BATCH
        dh = dz @ w2 if nn_layout else dz @ w2.T
        da = dh * (a > 0)
        if nn_layout:
            grads = (da.T @ x, da.sum(axis=0), dz.T @ h, dz.sum(axis=0))
        else:
            grads = (x.T @ da, da.sum(axis=0), h.T @ dz, dz.sum(axis=0))
        for p, g in zip(params, grads):
            p -= LR * g
        return float(loss)

    return step


# -- the MLP step with chapter 5's modules -------------------------------------------------


def nn_sparrow(sp: Any, data: dict[str, np.ndarray]) -> Callable[[], float]:
    """The same step as a Sparrow user writes it in chapter 5: ``nn.Sequential`` of
    ``nn.Linear`` and ``nn.ReLU``, ``F.cross_entropy`` (one operation), and SGD by hand
    over ``model.parameters()``; the weights are the MLP step's, in Linear's (out, in)."""
    nn = sp.nn
    model = nn.Sequential(nn.Linear(SIZE, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, CLASSES))
    set_weights([p.data for p in model.parameters()], data)
    x, y = sp.tensor(data["x"]), sp.tensor(data["y"])
    cross_entropy = nn.functional.cross_entropy

    def step() -> float:
        loss = cross_entropy(model(x), y)
        loss.backward()
        for p in model.parameters():
            p.data -= LR * p.grad.data
            p.grad = None
        return loss.item()

    return step


def nn_torch(torch: Any, data: dict[str, np.ndarray]) -> Callable[[], float]:
    """The same model, loss and update in ``torch.nn``."""
    nn = importlib.import_module("torch.nn")
    model = nn.Sequential(nn.Linear(SIZE, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, CLASSES))
    with torch.no_grad():
        set_weights([p.detach().numpy() for p in model.parameters()], data)
    x, y = torch.tensor(data["x"]), torch.tensor(data["y"])
    cross_entropy = nn.functional.cross_entropy

    def step() -> float:
        loss = cross_entropy(model(x), y)
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p -= LR * p.grad
                p.grad = None
        return loss.item()

    return step


def set_weights(arrays: list[np.ndarray], data: dict[str, np.ndarray]) -> None:
    """Write the MLP step's weights, in place, into a Linear-Linear model's four arrays
    (weight (out, in), bias, weight, bias)."""
    for array, key in zip(arrays, ("w1", "b1", "w2", "b2"), strict=True):
        array[...] = data[key].T if key.startswith("w") else data[key]


# -- one epoch of a DataLoader --------------------------------------------------------------
#
# Issue 15's capstone: MNIST-5k's 4,000 training images (784 float32 pixels, an int64 label),
# batch 64, shuffled. Each epoch's checksum (batches, items, the sums of the labels and of the
# pixels) shows every item came exactly once, in batches of the right size.


def loader_data(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "x": rng.random((EPOCH_ITEMS, SIZE), dtype=np.float32),
        "y": rng.integers(0, CLASSES, EPOCH_ITEMS),
    }


def loader_sparrow(sp: Any, data: dict[str, np.ndarray]) -> Callable[[], list[float]]:
    """``utils.data.DataLoader`` over a ``TensorDataset``, shuffled by a seeded Generator."""
    tensors = sp.utils.data.TensorDataset(sp.tensor(data["x"]), sp.tensor(data["y"]))
    generator = sp.Generator().manual_seed(0)
    loader = sp.utils.data.DataLoader(tensors, BATCH, shuffle=True, generator=generator)
    return lambda: checksum((x.data, y.data) for x, y in loader)


def loader_torch(torch: Any, data: dict[str, np.ndarray]) -> Callable[[], list[float]]:
    """``torch.utils.data.DataLoader`` over a ``TensorDataset`` (no worker processes)."""
    utils = importlib.import_module("torch.utils.data")
    tensors = utils.TensorDataset(torch.tensor(data["x"]), torch.tensor(data["y"]))
    generator = torch.Generator().manual_seed(0)
    loader = utils.DataLoader(tensors, BATCH, shuffle=True, generator=generator)
    return lambda: checksum((x.numpy(), y.numpy()) for x, y in loader)


def loader_numpy(data: dict[str, np.ndarray]) -> Callable[[], list[float]]:
    """The floor: a permutation, and each batch gathered by fancy indexing."""
    x, y = data["x"], data["y"]
    rng = np.random.default_rng(0)

    def epoch() -> list[float]:
        order = rng.permutation(len(x))
        chunks = (order[start : start + BATCH] for start in range(0, len(x), BATCH))
        return checksum((x[chunk], y[chunk]) for chunk in chunks)

    return epoch


def checksum(batches: Any) -> list[float]:
    """[batches, items, Σ labels, Σ pixels] of an epoch; every batch but the last is full."""
    count, items, labels, pixels, short = 0, 0, 0, 0.0, 0
    for x, y in batches:
        assert x.shape == (len(y), SIZE) and x.dtype == np.float32 and y.dtype == np.int64
        short += len(y) < BATCH
        assert short == 0 or len(y) == EPOCH_ITEMS % BATCH, "a short batch before the last"
        count, items = count + 1, items + len(y)
        labels, pixels = labels + int(y.sum()), pixels + float(x.sum(dtype=np.float64))
    return [count, items, labels, pixels]


# -- one epoch of the capstone ------------------------------------------------------------
#
# Issue 15's capstone, one epoch of it: the nn step's MLP (its weights), trained by Adam
# (lr 1e-3) on MNIST-5k's 4,000 training images, flattened float32 pixels in [0, 1] (the
# dtype the data comes in, PyTorch's default and Sparrow's), batch 64, shuffled: 63 steps of
# zero_grad, forward, cross-entropy, backward and the optimizer's step. The three share one
# batch order (NumPy's default_rng(SEED) permutations: Sparrow's Generator draws from it, and
# PyTorch's DataLoader is handed it as a sampler), so their losses agree step by step.

ADAM_LR, BETAS, EPS = 1e-3, (0.9, 0.999), 1e-8
SEED = 0
PHASES = ("data", "forward", "backward", "step")  # where each step's time goes


def capstone_data(items: int = EPOCH_ITEMS) -> dict[str, np.ndarray]:
    """The MLP step's weights, and MNIST-5k's first ``items`` training images, flattened."""
    mnist = importlib.import_module("support.datasets").load("mnist5k")
    images = mnist["x_train"][:items]
    return {**mlp_data(), "x": images.reshape(len(images), -1), "y": mnist["y_train"][:items]}


class Ticks:
    """Seconds per phase of a training loop: ``tick(phase)`` charges the time since the
    last tick to ``phase``."""

    def __init__(self) -> None:
        self.seconds, self._last = dict.fromkeys(PHASES, 0.0), time.perf_counter()

    def __call__(self, phase: str) -> None:
        now = time.perf_counter()
        self.seconds[phase] += now - self._last
        self._last = now


def no_tick(phase: str) -> None:
    """The timed epochs: no phase clock."""


def train_epoch(loader: Any, model: Any, loss_fn: Any, optimizer: Any, tick: Any) -> list:
    """One epoch as a user writes it, the same lines for Sparrow and PyTorch; the losses."""
    losses = []
    for x, y in loader:
        tick("data")
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        tick("forward")
        loss.backward()
        tick("backward")
        optimizer.step()
        losses.append(loss.item())
        tick("step")
    return losses


def epoch_sparrow(sp: Any, data: dict[str, np.ndarray]) -> Callable[[Any], list[float]]:
    """Chapter 6's capstone: ``nn.Sequential``, ``optim.Adam``, ``F.cross_entropy`` and a
    shuffling ``DataLoader`` (its Generator seeded with SEED)."""
    nn = sp.nn
    model = nn.Sequential(nn.Linear(SIZE, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, CLASSES))
    set_weights([p.data for p in model.parameters()], data)
    optimizer = sp.optim.Adam(model.parameters(), lr=ADAM_LR, betas=BETAS, eps=EPS)
    tensors = sp.utils.data.TensorDataset(sp.tensor(data["x"]), sp.tensor(data["y"]))
    generator = sp.Generator().manual_seed(SEED)
    loader = sp.utils.data.DataLoader(tensors, BATCH, shuffle=True, generator=generator)
    cross_entropy = nn.functional.cross_entropy
    return lambda tick: train_epoch(loader, model, cross_entropy, optimizer, tick)


class NumPyOrder:
    """PyTorch's ``Sampler`` protocol: each epoch, ``default_rng(SEED)``'s next permutation
    (``RandomSampler`` yields ``torch.randperm``'s, at the same cost)."""

    def __init__(self, items: int) -> None:
        self.items, self.rng = items, np.random.default_rng(SEED)

    def permutation(self) -> np.ndarray:
        return self.rng.permutation(self.items)

    def __iter__(self) -> Any:
        return iter(self.permutation().tolist())

    def __len__(self) -> int:
        return self.items


def epoch_torch(torch: Any, data: dict[str, np.ndarray]) -> Callable[[Any], list[float]]:
    """The same in PyTorch: ``torch.nn``, ``torch.optim.Adam`` (its default, single-tensor
    implementation on the CPU), ``torch.utils.data.DataLoader`` (no worker processes)."""
    nn = importlib.import_module("torch.nn")
    utils = importlib.import_module("torch.utils.data")
    model = nn.Sequential(nn.Linear(SIZE, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, CLASSES))
    with torch.no_grad():
        set_weights([p.detach().numpy() for p in model.parameters()], data)
    optimizer = torch.optim.Adam(model.parameters(), lr=ADAM_LR, betas=BETAS, eps=EPS)
    tensors = utils.TensorDataset(torch.tensor(data["x"]), torch.tensor(data["y"]))
    loader = utils.DataLoader(tensors, BATCH, sampler=NumPyOrder(len(data["x"])))
    cross_entropy = nn.functional.cross_entropy
    return lambda tick: train_epoch(loader, model, cross_entropy, optimizer, tick)


def epoch_numpy(data: dict[str, np.ndarray]) -> Callable[[Any], list[float]]:
    """The floor: the nn step's forward and backward by hand (weights in Linear's layout),
    each batch gathered by one fancy index, and Adam in place (one scratch array per
    parameter, no other temporary): what a careful NumPy programmer writes."""
    params = [np.empty(data[k].T.shape, np.float32) for k in ("w1", "b1", "w2", "b2")]
    set_weights(params, data)
    moments = [np.zeros_like(p) for p in params], [np.zeros_like(p) for p in params]
    scratch = [np.empty_like(p) for p in params]
    x_all, y_all = data["x"], data["y"]
    order = NumPyOrder(len(x_all))
    (beta1, beta2), t = BETAS, 0

    def epoch(tick: Any) -> list[float]:
        nonlocal t
        w1, b1, w2, b2 = params
        losses = []
        indices = order.permutation()
        for start in range(0, len(x_all), BATCH):
            chunk = indices[start : start + BATCH]
            x, y = x_all[chunk], y_all[chunk]
            rows = np.arange(len(y))
            tick("data")
            a = x @ w1.T
            a += b1
            h = np.maximum(a, 0)
            z = h @ w2.T
            z += b2
            z -= z.max(axis=1, keepdims=True)  # log-softmax, shifted by the row max
            e = np.exp(z)
            total = e.sum(axis=1, keepdims=True)
            loss = np.log(total[:, 0]).mean() - z[rows, y].mean()
            tick("forward")
            dz = e
            dz /= total  # ∂loss/∂z = (softmax − onehot) / N
            dz[rows, y] -= 1
            dz /= len(y)
            dh = dz @ w2
            dh *= a > 0
            grads = (dh.T @ x, dh.sum(axis=0), dz.T @ h, dz.sum(axis=0))
            tick("backward")
            t += 1
            # (Python floats: a NumPy float64 scalar would make each in-place update
            # compute in float64 and cast back)
            step_size, root = ADAM_LR / (1 - beta1**t), math.sqrt(1 - beta2**t)
            for p, g, m, v, s in zip(params, grads, *moments, scratch):
                np.subtract(g, m, out=s)  # m ← m + (1 − β₁)(g − m)
                s *= 1 - beta1
                m += s
                v *= beta2  # v ← β₂ v + (1 − β₂) g²
                np.multiply(g, g, out=s)
                s *= 1 - beta2
                v += s
                np.sqrt(v, out=s)  # p ← p − η/(1 − β₁ᵗ) · m / (√v / √(1 − β₂ᵗ) + ε)
                s /= root
                s += EPS
                np.divide(m, s, out=s)
                s *= step_size
                p -= s
            losses.append(float(loss))
            tick("step")
        return losses

    return epoch


def run_epoch(epoch: Callable[[Any], list[float]], command: str, steps: int) -> Any:
    """One more epoch (training goes on): ``"epoch"``, its seconds; ``"phases"``, clocked,
    the seconds per step of each phase."""
    gc.collect()
    if command == "epoch":
        start = time.perf_counter()
        epoch(no_tick)
        return time.perf_counter() - start
    ticks = Ticks()
    epoch(ticks)
    return {phase: seconds / steps for phase, seconds in ticks.seconds.items()}


def serve_capstone(args: argparse.Namespace) -> None:
    """The child's side of ``capstone``: one framework's first epoch, its losses printed as a
    JSON line; then, for each line read (``"epoch"`` or ``"phases"``), ``run_epoch``'s answer
    as a JSON line, until stdin closes."""
    data = capstone_data(args.items)
    if args.framework == "PyTorch":
        torch = importlib.import_module("torch")
        torch.set_num_threads(args.threads)
        epoch = epoch_torch(torch, data)
    elif args.framework == "Sparrow":
        epoch = epoch_sparrow(load_sparrow(args.impl, optim=True), data)
    else:
        epoch = epoch_numpy(data)
    losses = epoch(no_tick)
    print(json.dumps({"losses": losses}), flush=True)
    for line in sys.stdin:
        print(json.dumps(run_epoch(epoch, line.strip(), len(losses))), flush=True)


# -- the report: each measurement in a fresh interpreter -----------------------------------
#
# PyTorch's OpenMP threads and NumPy's OpenBLAS threads each spin for a while after their
# work; in one process they take each other's cores, and either can look several times
# slower than it is. Each (workload, framework) pair is therefore timed in its own process,
# with the same thread count for every library.

FRAMEWORKS = ("Sparrow", "PyTorch", "NumPy")
WORKLOADS = ("chain", "mlp", "nn", "loader", "epoch")


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
    if workload == "loader":
        data = loader_data()
        epoch = {
            "Sparrow": lambda: loader_sparrow(load_sparrow(args.impl, nn=True), data),
            "PyTorch": lambda: loader_torch(torch, data),
            "NumPy": lambda: loader_numpy(data),
        }[framework]()
        return {"epoch": best(epoch, args.repeats), "checksum": epoch()}
    data = mlp_data()
    nn = workload == "nn"
    step = {
        "Sparrow": lambda: (nn_sparrow if nn else mlp_sparrow)(load_sparrow(args.impl, nn), data),
        "PyTorch": lambda: (nn_torch if nn else mlp_torch)(torch, data),
        "NumPy": lambda: mlp_numpy(data, nn_layout=nn),
    }[framework]()
    losses = [step(), step()]  # the second loss tests the first step's gradients

    def many() -> None:
        for _ in range(args.steps):
            step()

    result = {"step": best(many, args.repeats) / args.steps, "losses": losses}
    if framework == "Sparrow":
        result["calls"] = count_calls(load_sparrow(args.impl, nn), step)
    return result


def load_sparrow(impl: str, nn: bool = False, optim: bool = False) -> Any:
    """Chapter 4's framework (chapter 5's with ``nn``, chapter 6's with ``optim``) from
    ``impl`` (``solutions`` or ``chapters``)."""
    package = "ch06_optim" if optim else "ch05_nn" if nn else "ch04_backward"
    return importlib.import_module(f"{impl}.{package}")


def has_torch() -> bool:
    return importlib.util.find_spec("torch") is not None


def child_command(workload: str, framework: str, args: argparse.Namespace) -> list[str]:
    command = [sys.executable, "-m", "autograder.bench_framework", "--measure", workload]
    command += ["--framework", framework, "--impl", args.impl, "--threads", str(args.threads)]
    command += ["--nodes", str(args.nodes), "--steps", str(args.steps)]
    return [*command, "--repeats", str(args.repeats), "--items", str(args.items)]


def child_env(args: argparse.Namespace) -> dict[str, str]:
    """The environment with every library on ``args.threads`` threads."""
    return {**os.environ, **{name: str(args.threads) for name in THREAD_VARIABLES}}


def run_child(workload: str, framework: str, args: argparse.Namespace) -> dict[str, float]:
    """``measure`` in a fresh interpreter, with every library on ``args.threads`` threads."""
    command, env = child_command(workload, framework, args), child_env(args)
    done = subprocess.run(command, env=env, cwd=REPO, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


class Child:
    """A measuring interpreter that stays up (``serve_capstone``): ``ask(line)`` sends one
    line and reads the JSON line it answers (``ask()`` reads the first, unasked)."""

    def __init__(self, workload: str, framework: str, args: argparse.Namespace) -> None:
        self.command = child_command(workload, framework, args)
        pipe = subprocess.PIPE
        self.process = subprocess.Popen(
            self.command,
            env=child_env(args),
            cwd=REPO,
            stdin=pipe,
            stdout=pipe,
            stderr=pipe,
            text=True,
        )

    def ask(self, line: str | None = None) -> Any:
        if line is not None:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:  # it ended: say why
            self.process.wait()
            error = self.process.stderr.read()
            self.close()
            raise RuntimeError(f"{' '.join(self.command)} failed:\n{error}")
        return json.loads(answer)

    def close(self) -> None:
        """Close its stdin (it ends), wait for it, close its other pipes."""
        self.process.stdin.close()
        self.process.wait()
        self.process.stdout.close()
        self.process.stderr.close()


def agree_on_losses(losses: dict[str, list[float]], tolerance: float = 1e-4) -> None:
    """The frameworks' losses, step by step, agree (each starts from the same weights, so
    the second loss agrees only if the first step's gradients did): else the timings compare
    different work."""
    for i, values in enumerate(zip(*losses.values())):
        if max(values) - min(values) > tolerance * max(1.0, abs(values[0])):
            found = dict(zip(losses, values))
            raise AssertionError(f"the MLP steps disagree on loss {i + 1}: {found}")


def agree_on_epochs(checksums: dict[str, list[float]]) -> None:
    """The DataLoaders' epochs agree: the same number of batches and items, the same sum of
    labels, and of pixels (to float rounding: the order differs)."""
    first = next(iter(checksums.values()))
    for found in checksums.values():
        exact = found[:3] == first[:3]
        if not exact or abs(found[3] - first[3]) > 1e-6 * abs(first[3]):
            raise AssertionError(f"the epochs disagree: {checksums} (batches, items, Σy, Σx)")


def chapter_five(frameworks: list[str], args: argparse.Namespace) -> tuple[dict, dict]:
    """The nn steps and the DataLoader epochs, agreeing; ({}, {}) when Sparrow's chapter 5
    is not done yet (a student's ``chapters/`` with chapter 4 finished)."""
    try:
        nn_steps = {f: run_child("nn", f, args) for f in frameworks}
    except RuntimeError as error:
        if "NotImplementedError" in str(error):
            return {}, {}
        raise
    agree_on_losses({f: nn_steps[f]["losses"] for f in frameworks})
    epochs = {f: run_child("loader", f, args) for f in frameworks}
    agree_on_epochs({f: epochs[f]["checksum"] for f in frameworks})
    return nn_steps, epochs


def capstone(frameworks: list[str], args: argparse.Namespace) -> dict:
    """The capstone's epochs, timed interleaved: one interpreter per framework stays up, and
    each of ``args.rounds`` rounds asks every framework in turn for one epoch (then, as many
    rounds, for a clocked one), so a change in the machine's load reaches all three alike.
    Each framework's best epoch, its least time per phase, and its first epoch's losses,
    which must agree step by step. {} when Sparrow's chapter 6 is not done yet.

    The processes wait, idle, for their turn; with ``--threads`` above 1, PyTorch's OpenMP
    threads may spin for a while after an epoch, into the next framework's."""
    children: dict[str, Child] = {}
    try:
        try:
            for f in frameworks:
                children[f] = Child("epoch", f, args)
            losses = {f: child.ask()["losses"] for f, child in children.items()}
        except RuntimeError as error:
            if "NotImplementedError" in str(error):
                return {}
            raise
        agree_on_losses(losses)
        rounds = {  # every "epoch" round, then every "phases" round
            command: [
                {f: child.ask(command) for f, child in children.items()} for _ in range(args.rounds)
            ]
            for command in ("epoch", "phases")
        }
    finally:
        for child in children.values():
            child.close()
    epochs, clocked = rounds["epoch"], rounds["phases"]
    return {
        f: {
            "epoch": min(r[f] for r in epochs),
            "phases": {p: min(r[f][p] for r in clocked) for p in PHASES},
            "losses": losses[f],
        }
        for f in frameworks
    }


def report(args: argparse.Namespace) -> None:
    """Measure everything, then print the four tables and the goals."""
    frameworks = [f for f in FRAMEWORKS if f != "PyTorch" or has_torch()]
    refs = [f for f in frameworks if f != "Sparrow"]
    chains = {f: run_child("chain", f, args) for f in frameworks}
    steps = {f: run_child("mlp", f, args) for f in frameworks}
    agree_on_losses({f: steps[f]["losses"] for f in frameworks})
    nn_steps, epochs = chapter_five(frameworks, args)
    capstone_epochs = capstone(frameworks, args)

    note = f"{args.threads} thread(s) for every library ({', '.join(THREAD_VARIABLES)}"
    note += f"; torch.set_num_threads({args.threads}))" if "PyTorch" in refs else ")"
    print(f"Framework speed — Sparrow from {args.impl}/, {note}, best of {args.repeats}")
    header = "".join(f"{'× ' + f:>11}" for f in refs)

    def row(name: str, value: float, against: dict[str, float], unit: float = 1e6) -> None:
        ratios = "".join(f"{value / against[f]:>11.2f}" for f in refs)
        print(f"  {name:<30}{value * unit:>10.2f}{ratios}")

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

    nn_step = {f: s["step"] for f, s in nn_steps.items()}
    if nn_steps:
        print(f"\n(c) the same step with chapter 5's nn, µs{'':<5}{header}")
        for f in frameworks:
            row(f"{f}, one step", nn_step[f], nn_step)
        calls = ", ".join(f"{n} {what}" for what, n in nn_steps["Sparrow"]["calls"].items())
        print(f"  (Sparrow, per step: {calls})")
        epoch = {f: e["epoch"] for f, e in epochs.items()}
        print(f"\n(d) DataLoader, {EPOCH_ITEMS:,} items, batch {BATCH}: one epoch, µs{header}")
        for f in frameworks:
            row(f"{f}, one epoch", epoch[f], epoch)
        print(f"  ({epoch['Sparrow'] / EPOCH_ITEMS * 1e6:.1f} µs per item in Sparrow)")
    else:
        print(f"\n(c), (d) chapter 5's nn step and DataLoader: not measured ({args.impl}/ch05_nn")
        print("  raises NotImplementedError: its tasks are not all done)")

    whole = {f: e["epoch"] for f, e in capstone_epochs.items()}
    if capstone_epochs:
        count = len(capstone_epochs["Sparrow"]["losses"])
        print(f"\n(e) the capstone: one epoch of Adam, {args.items:,} MNIST-5k images, ", end="")
        title = f"  {count} steps, best of {args.rounds} rounds, ms"
        print(f"batch {BATCH},\n{title:<42}{header}")
        for f in frameworks:
            row(f"{f}, one epoch", whole[f], whole, unit=1e3)
        print(f"  {'per step, µs':<16}{''.join(f'{p:>10}' for p in PHASES)}")
        for f in frameworks:
            split = capstone_epochs[f]["phases"]
            print(f"  {f:<16}{''.join(f'{split[p] * 1e6:>10.0f}' for p in PHASES)}")
    else:
        print(f"\n(e) the capstone's epoch: not measured ({args.impl}/ch06_optim raises")
        print("  NotImplementedError: its tasks are not all done)")

    print("\nGoals (issue 12; chapter 5's nn step and issue 15's capstone epoch held to the MLP")
    print("step's):")
    goals = [("chain", total, "PyTorch", CHAIN_GOAL), ("MLP step", step, "PyTorch", MLP_GOAL_TORCH)]
    goals.append(("MLP step", step, "NumPy", MLP_GOAL_NUMPY))
    if nn_steps:
        goals.append(("nn MLP step", nn_step, "PyTorch", MLP_GOAL_TORCH))
        goals.append(("nn MLP step", nn_step, "NumPy", MLP_GOAL_NUMPY))
    if capstone_epochs:
        goals.append(("capstone epoch", whole, "PyTorch", MLP_GOAL_TORCH))
        goals.append(("capstone epoch", whole, "NumPy", MLP_GOAL_NUMPY))
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
    parser.add_argument(
        "--items", type=int, default=EPOCH_ITEMS, help="MNIST-5k images in the capstone's epoch"
    )
    parser.add_argument(
        "--rounds", type=int, default=20, help="the capstone's interleaved epochs; the best counts"
    )
    impl = student.default_impl()
    parser.add_argument("--impl", default=impl, choices=("solutions", "chapters"))
    parser.add_argument("--measure", choices=WORKLOADS, help=argparse.SUPPRESS)
    parser.add_argument("--framework", choices=FRAMEWORKS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure == "epoch":
        serve_capstone(args)
    elif args.measure:
        print(json.dumps(measure(args.measure, args.framework, args)))
    else:
        report(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

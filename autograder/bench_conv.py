"""Convolution speed (``python -m autograder.bench conv``; a part of the benchmarks).

Chapter 8's ``Conv2d`` (``F.conv2d``: im2col, one batched matmul, col2im; from
``$SPARROW_IMPL`` or ``--impl``, else the reference), forward + backward (∂x, ∂W, ∂b for a
fixed ∂out), side by side in one run with

- the NumPy floor: the same algorithm by hand, no framework: pad, ``as_strided`` windows,
  the reshape copy to cols (N, C·kh·kw, L), one matmul W · cols (N products of (O, C·kh·kw)
  by (C·kh·kw, L)); backward ∂W = Σₙ g · colsᵀ and ∂cols = Wᵀ · g by matmuls, then a col2im
  loop over the kernel's offsets;
- PyTorch on the CPU (``F.conv2d`` and ``backward``), when installed: its float32
  convolution is oneDNN's (direct convolution on blocked layouts, no im2col copy);
- a better layout, measured as an experiment (the floor with cols (C·kh·kw, N·L): one big
  GEMM for each of the three products instead of N small ones, then a transpose back);
- the floor's three matrix products alone (cols made beforehand): the part of its time
  that is BLAS, the rest being the im2col copy, col2im and the bias;

at three sizes: LeNet's two convolutions at the capstone's batch (64 × 1 × 28 × 28, 5 × 5,
6 kernels, padding 2; 64 × 6 × 14 × 14, 5 × 5, 16 kernels) and a 3 × 3, 64 → 64 channel
layer on 32 × 32 images, batch 32, padding 1. All agree on the output and the three
gradients before anything is timed. Each figure is the best of at least ``--repeat``
timings taken round-robin (``support.device_bench.measure_together``: a busy spell of the
machine falls on all of them alike). Then the peak memory of unfold at the larger size
(tracemalloc's peak over one ``im2col``, which sees NumPy's allocations, against the input's
bytes), and one training epoch of the CNN capstone (``support.capstone.make_cnn``, Adam lr
1e-3, batch 64, each framework's DataLoader over MNIST-5k's 4,000 standardised images)
against PyTorch's and a NumPy floor's (``FloorLeNet``: the same network and Adam by hand,
convolutions and pools by Sparrow's algorithm; it agrees with Sparrow's losses step by
step), taking turns, best of ``--rounds``, and where a step's time goes:
each of the network's layers, forward + backward at batch 64 on the activations it sees
(the first convolution without ∂x, as in training), Sparrow against PyTorch.

Every library on ``--threads`` threads (1 by default, as ``bench_framework``: the BLAS
variables are set for a fresh interpreter that does the measuring, and
``torch.set_num_threads``). Goals (issue 30): the layer ≤ 1.3× the NumPy floor, the epoch
≤ 1.5× PyTorch.

    python -m autograder.bench conv [--threads 1] [--repeat 7] [--rounds 10] [--no-epoch]
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
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import student
from .bench_framework import REPO, THREAD_VARIABLES, has_torch

LAYER_GOAL = 1.3  # × the NumPy floor, forward + backward
EPOCH_GOAL = 1.5  # × PyTorch, one epoch of the CNN capstone
HERE = "--measure-here"  # the flag of the interpreter that measures (threads already set)


@dataclass(frozen=True)
class Layer:
    """One convolution: input (n, c, h, w), o kernels k × k, padding p, stride 1."""

    name: str
    n: int
    c: int
    h: int
    o: int
    k: int
    p: int

    @property
    def out(self) -> int:
        return self.h + 2 * self.p - self.k + 1

    @property
    def flops(self) -> float:
        """Multiply-adds × 2 of the three products: forward, ∂x's and ∂W's."""
        return 3 * 2 * self.n * self.o * self.c * self.k * self.k * self.out * self.out


LAYERS = (
    Layer("LeNet conv1: 64×1×28×28, 5×5→6, pad 2", 64, 1, 28, 6, 5, 2),
    Layer("LeNet conv2: 64×6×14×14, 5×5→16", 64, 6, 14, 16, 5, 0),
    Layer("3×3, 64→64, 32×32, batch 32, pad 1", 32, 64, 32, 64, 3, 1),
)


def layer_data(layer: Layer, seed: int = 0) -> dict[str, np.ndarray]:
    """x, W, b and a fixed ∂out, float32, PyTorch's init scale."""
    rng = np.random.default_rng(seed)
    bound = 1 / np.sqrt(layer.c * layer.k * layer.k)
    f32 = np.float32
    return {
        "x": rng.standard_normal((layer.n, layer.c, layer.h, layer.h)).astype(f32),
        "w": rng.uniform(-bound, bound, (layer.o, layer.c, layer.k, layer.k)).astype(f32),
        "b": rng.uniform(-bound, bound, layer.o).astype(f32),
        "g": rng.standard_normal((layer.n, layer.o, layer.out, layer.out)).astype(f32),
    }


# -- the NumPy floor: im2col by hand --------------------------------------------------------


def padded_windows(x: np.ndarray, k: int, p: int) -> np.ndarray:
    """(N, C, k, k, oh, ow): every window of x padded by p, a view (stride 1)."""
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p))) if p else x
    n, c, h, w = xp.shape
    sn, sc, sh, sw = xp.strides
    shape = (n, c, k, k, h - k + 1, w - k + 1)
    return np.lib.stride_tricks.as_strided(xp, shape, (sn, sc, sh, sw, sh, sw), writeable=False)


def col2im_loop(patches: np.ndarray, h: int, w: int, p: int) -> np.ndarray:
    """``patches`` (A, B, k, k, oh, ow) added back into (A, B, h + 2p, w + 2p), one kernel
    offset at a time; the middle (h, w) returned."""
    a, b, k, _, oh, ow = patches.shape
    out = np.zeros((a, b, h + 2 * p, w + 2 * p), patches.dtype)
    for i in range(k):
        for j in range(k):
            out[:, :, i : i + oh, j : j + ow] += patches[:, :, i, j]
    return out[:, :, p : p + h, p : p + w]


def floor_step(d: dict[str, np.ndarray], k: int, p: int) -> Callable[[], tuple]:
    """Forward + backward as Sparrow's Convolution does it, on arrays: cols (N, C·k·k, L),
    N products with W (O, C·k·k) (matmul's batch axis), ∂W summed over n, col2im."""
    x, w, b, g = d["x"], d["w"], d["b"], d["g"]
    o = w.shape[0]
    kernels = w.reshape(o, -1)

    def step() -> tuple:
        view = padded_windows(x, k, p)
        n, c, _, _, oh, ow = view.shape
        cols = view.reshape(n, c * k * k, oh * ow)  # the one copy
        out = (kernels @ cols).reshape(n, o, oh, ow) + b.reshape(1, o, 1, 1)
        gl = g.reshape(n, o, oh * ow)
        grad_w = (gl @ cols.transpose(0, 2, 1)).sum(0).reshape(w.shape)
        grad_cols = kernels.T @ gl  # (N, C·k·k, L)
        grad_x = col2im_loop(grad_cols.reshape(n, c, k, k, oh, ow), *x.shape[2:], p)
        return out, grad_x, grad_w, g.sum((0, 2, 3))

    return step


def wide_step(d: dict[str, np.ndarray], k: int, p: int) -> Callable[[], tuple]:
    """The experiment: cols as (C·k·k, N·L), so each product is one GEMM (W · cols,
    g · colsᵀ, Wᵀ · g with g as (O, N·L)); the output transposed back to (N, O, oh, ow) and
    ∂x folded from (C, k, k, N, oh, ow)."""
    x, w, b, g = d["x"], d["w"], d["b"], d["g"]
    o = w.shape[0]
    kernels = w.reshape(o, -1)

    def step() -> tuple:
        view = padded_windows(x, k, p)  # (N, C, k, k, oh, ow)
        n, c, _, _, oh, ow = view.shape
        cols = view.transpose(1, 2, 3, 0, 4, 5).reshape(c * k * k, n * oh * ow)  # the copy
        out = (kernels @ cols + b[:, None]).reshape(o, n, oh, ow).transpose(1, 0, 2, 3)
        out = np.ascontiguousarray(out)
        gw = g.transpose(1, 0, 2, 3).reshape(o, n * oh * ow)  # a copy
        grad_w = (gw @ cols.T).reshape(w.shape)
        grad_cols = (kernels.T @ gw).reshape(c, k, k, n, oh, ow)
        folded = col2im_loop(grad_cols.transpose(0, 3, 1, 2, 4, 5), *x.shape[2:], p)
        return out, np.ascontiguousarray(folded.transpose(1, 0, 2, 3)), grad_w, g.sum((0, 2, 3))

    return step


def gemm_step(d: dict[str, np.ndarray], k: int, p: int) -> Callable[[], None]:
    """The floor's three matrix products alone (cols made beforehand, no col2im): what of
    the floor's time is BLAS, and what is the copies around it."""
    x, w, g = d["x"], d["w"], d["g"]
    o = w.shape[0]
    kernels = w.reshape(o, -1)
    view = padded_windows(x, k, p)
    n, c, _, _, oh, ow = view.shape
    cols = view.reshape(n, c * k * k, oh * ow)
    gl = g.reshape(n, o, oh * ow)

    def step() -> None:
        kernels @ cols
        gl @ cols.transpose(0, 2, 1)
        kernels.T @ gl

    return step


# -- Sparrow and PyTorch ----------------------------------------------------------------------


def sparrow_step(sp: Any, d: dict[str, np.ndarray], p: int) -> Callable[[], tuple]:
    """``F.conv2d`` forward, then ``backward(∂out)``; the output and the three gradients."""
    x, w, b = (sp.tensor(d[key], requires_grad=True) for key in ("x", "w", "b"))
    g = sp.tensor(d["g"])

    def step() -> tuple:
        x.grad = w.grad = b.grad = None
        out = sp.nn.functional.conv2d(x, w, b, padding=p)
        out.backward(g)
        return out, x.grad, w.grad, b.grad

    return step


def torch_step(torch: Any, d: dict[str, np.ndarray], p: int) -> Callable[[], tuple]:
    x, w, b = (torch.tensor(d[key], requires_grad=True) for key in ("x", "w", "b"))
    g = torch.from_numpy(d["g"])

    def step() -> tuple:
        x.grad = w.grad = b.grad = None
        out = torch.nn.functional.conv2d(x, w, b, padding=p)
        out.backward(g)
        return out.detach(), x.grad, w.grad, b.grad

    return step


def to_numpy(value: Any) -> np.ndarray:
    """An array, a Sparrow tensor (its ``.data``) or a PyTorch tensor, as a NumPy array."""
    if isinstance(value, np.ndarray):
        return value
    if type(value).__module__.startswith("torch"):
        return value.detach().numpy()
    return np.asarray(value.data)


def arrays(results: tuple) -> list[np.ndarray]:
    return [to_numpy(r) for r in results]


def agree(steps: dict[str, Callable[[], tuple]], layer: Layer) -> None:
    """Every step gives the same output and gradients (float32: 1e-3 of the largest): else
    the timings compare different work."""
    found = {name: arrays(step()) for name, step in steps.items()}
    first = next(iter(found))
    for name, results in found.items():
        for what, mine, ref in zip(("out", "∂x", "∂W", "∂b"), results, found[first], strict=True):
            scale = float(np.abs(ref).max()) or 1.0
            if mine.shape != ref.shape or float(np.abs(mine - ref).max()) > 1e-3 * scale:
                raise AssertionError(f"{layer.name}: {name}'s {what} differs from {first}'s")


def unfold_memory(layer: Layer) -> dict[str, float]:
    """Bytes of unfold at ``layer``: the input's, cols' (computed: C·k·k·L·N·4) and
    tracemalloc's peak over one ``padded_windows(...).reshape`` (the padded copy and cols)."""
    x = layer_data(layer)["x"]
    gc.collect()
    tracemalloc.start()
    view = padded_windows(x, layer.k, layer.p)
    n, c, k, _, oh, ow = view.shape
    cols = view.reshape(n, c * k * k, oh * ow)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"input": x.nbytes, "cols": cols.nbytes, "peak": peak}


# -- the CNN capstone's epoch -------------------------------------------------------------------


def epoch_sparrow(sp: Any, data: dict[str, np.ndarray]) -> Callable[[], float]:
    """One epoch of ``make capstone MODEL=cnn``'s loop; returns its last loss."""
    from support import capstone

    sp.manual_seed(0)
    model = capstone.make_cnn(sp)
    dataset = sp.utils.data.TensorDataset(sp.tensor(data["x_train"]), sp.tensor(data["y_train"]))
    loader = sp.utils.data.DataLoader(dataset, batch_size=64, shuffle=True)
    return train_epoch(sp, model, loader)


def epoch_torch(torch: Any, data: dict[str, np.ndarray]) -> Callable[[], float]:
    from support import capstone

    torch.manual_seed(0)
    model = capstone.make_cnn(torch)
    dataset = torch.utils.data.TensorDataset(
        torch.from_numpy(data["x_train"]), torch.from_numpy(data["y_train"])
    )
    loader = torch.utils.data.DataLoader(dataset, batch_size=64, shuffle=True)
    return train_epoch(torch, model, loader)


def train_epoch(sp: Any, model: Any, loader: Any) -> Callable[[], float]:
    optimizer = sp.optim.Adam(model.parameters(), lr=1e-3)

    def epoch() -> float:
        for x, y in loader:
            optimizer.zero_grad()
            loss = sp.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
        return float(loss.item())

    return epoch


# -- the floor's epoch: LeNet by hand ----------------------------------------------------------


def conv_forward(x: np.ndarray, w: np.ndarray, b: np.ndarray, p: int) -> tuple:
    """The floor's convolution (stride 1): the output and the cols kept for ∂W."""
    n, o, k = x.shape[0], w.shape[0], w.shape[-1]
    view = padded_windows(x, k, p)
    oh, ow = view.shape[-2:]
    cols = view.reshape(n, -1, oh * ow)
    return (w.reshape(o, -1) @ cols).reshape(n, o, oh, ow) + b.reshape(1, o, 1, 1), cols


def conv_backward(g: np.ndarray, cols: np.ndarray, w: np.ndarray, x_shape: tuple, p: int):
    """∂W, ∂b and (when ``x_shape`` is given) ∂x of ``conv_forward`` for ∂out = g."""
    n, o, oh, ow = g.shape
    gl = g.reshape(n, o, oh * ow)
    grad_w = (gl @ cols.transpose(0, 2, 1)).sum(0).reshape(w.shape)
    if x_shape is None:
        return grad_w, g.sum((0, 2, 3)), None
    k, c = w.shape[-1], w.shape[1]
    patches = (w.reshape(o, -1).T @ gl).reshape(n, c, k, k, oh, ow)
    return grad_w, g.sum((0, 2, 3)), col2im_loop(patches, *x_shape[2:], p)


def pool_forward(x: np.ndarray) -> tuple:
    """2 × 2 max-pooling, stride 2, as Sparrow's: the windows' view, the reshape copy, the
    maximum over the window axis and a one-hot of each window's first maximum (one pass per
    slot)."""
    n, c, h, w = x.shape
    sn, sc, sh, sw = x.strides
    shape, strides = (n, c, 2, 2, h // 2, w // 2), (sn, sc, sh, sw, 2 * sh, 2 * sw)
    view = np.lib.stride_tricks.as_strided(x, shape, strides, writeable=False)
    flat = view.reshape(n, c, 4, h // 2, w // 2)
    out = flat.max(axis=2)
    won = flat == out[:, :, None]
    seen = np.zeros(out.shape, bool)
    for slot in range(4):
        won[:, :, slot] &= ~seen
        seen |= won[:, :, slot]
    return out, won


def pool_backward(g: np.ndarray, won: np.ndarray, x_shape: tuple) -> np.ndarray:
    """∂x of ``pool_forward``: ∂out into each window's winning slot, folded back (stride 2)."""
    oh, ow = g.shape[-2:]
    slots = won * g[:, :, None]
    out = np.zeros(x_shape, g.dtype)
    for s in range(4):
        i, j = divmod(s, 2)
        out[:, :, i : i + 2 * oh : 2, j : j + 2 * ow : 2] += slots[:, :, s]
    return out


class FloorLeNet:
    """The CNN capstone's training step with no framework: ``make_cnn``'s layers forward
    and backward by hand on NumPy arrays (the convolutions and pools by Sparrow's algorithm:
    im2col, a batched matmul, col2im; the maximum and a first-maximum one-hot, then a fold),
    cross-entropy, and PyTorch's Adam (lr 1e-3) in place. ``params``: the ten arrays in
    ``parameters()`` order and layout."""

    def __init__(self, params: list[np.ndarray], lr: float = 1e-3) -> None:
        self.params = [np.array(p, np.float32) for p in params]
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]
        self.lr, self.t = lr, 0

    def step(self, x: np.ndarray, y: np.ndarray) -> float:
        w1, b1, w2, b2, w3, b3, w4, b4, w5, b5 = self.params
        n = len(x)
        c1, cols1 = conv_forward(x, w1, b1, 2)
        p1, win1 = pool_forward(np.maximum(c1, 0))
        c2, cols2 = conv_forward(p1, w2, b2, 0)
        p2, win2 = pool_forward(np.maximum(c2, 0))
        f = p2.reshape(n, -1)
        h3 = f @ w3.T + b3
        r3 = np.maximum(h3, 0)
        h4 = r3 @ w4.T + b4
        r4 = np.maximum(h4, 0)
        z = r4 @ w5.T + b5
        z = z - z.max(axis=1, keepdims=True)
        log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        rows = np.arange(n)
        loss = -float(log_p[rows, y].mean())
        dz = np.exp(log_p)  # ∂loss/∂z = (softmax − onehot) / n
        dz[rows, y] -= 1
        dz /= n
        dh4 = (dz @ w5) * (h4 > 0)
        dh3 = (dh4 @ w4) * (h3 > 0)
        df = (dh3 @ w3).reshape(p2.shape)
        dc2 = pool_backward(df, win2, c2.shape) * (c2 > 0)
        g2, gb2, dp1 = conv_backward(dc2, cols2, w2, p1.shape, 0)
        dc1 = pool_backward(dp1, win1, c1.shape) * (c1 > 0)
        g1, gb1, _ = conv_backward(dc1, cols1, w1, None, 2)
        grads = [g1, gb1, g2, gb2, dh3.T @ f, dh3.sum(0), dh4.T @ r3, dh4.sum(0)]
        self.adam([*grads, dz.T @ r4, dz.sum(0)])
        return loss

    def adam(self, grads: list[np.ndarray], b1: float = 0.9, b2: float = 0.999) -> None:
        """PyTorch's Adam, in place: m, v, and p −= lr·m̂ / (√v̂ + ε)."""
        self.t += 1
        c1, c2 = 1 - b1**self.t, 1 - b2**self.t
        for p, g, m, v in zip(self.params, grads, self.m, self.v, strict=True):
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            p -= (self.lr / c1) * m / (np.sqrt(v / c2) + 1e-8)


def epoch_numpy(sp: Any, data: dict[str, np.ndarray]) -> Callable[[], float]:
    """One epoch of ``FloorLeNet`` from Sparrow's initial weights, shuffled by NumPy."""
    from support import capstone

    sp.manual_seed(0)
    net = FloorLeNet([np.array(p.data) for p in capstone.make_cnn(sp).parameters()])
    x, y, rng = data["x_train"], data["y_train"], np.random.default_rng(0)

    def epoch() -> float:
        order = rng.permutation(len(y))
        for start in range(0, len(order), 64):
            idx = order[start : start + 64]
            loss = net.step(x[idx], y[idx])
        return loss

    return epoch


def agree_with_the_floor(sp: Any, data: dict[str, np.ndarray], steps: int = 3) -> None:
    """Sparrow and ``FloorLeNet`` from the same weights on the same batches: the same loss
    at every step (float32: 1e-4 relative), else the epochs compare different work."""
    from support import capstone

    sp.manual_seed(0)
    model = capstone.make_cnn(sp)
    net = FloorLeNet([np.array(p.data) for p in model.parameters()])
    optimizer = sp.optim.Adam(model.parameters(), lr=1e-3)
    for i in range(steps):
        x, y = data["x_train"][64 * i : 64 * (i + 1)], data["y_train"][64 * i : 64 * (i + 1)]
        optimizer.zero_grad()
        loss = sp.nn.functional.cross_entropy(model(sp.tensor(x)), sp.tensor(y))
        loss.backward()
        optimizer.step()
        ours, floor = float(loss.item()), net.step(x, y)
        if abs(ours - floor) > 1e-4 * abs(floor):
            raise AssertionError(f"step {i + 1}: Sparrow's loss {ours}, the floor's {floor}")


def layer_steps(sp: Any, torch: Any, x: np.ndarray) -> dict[tuple[int, str, str], Callable]:
    """Each layer of the CNN, forward + backward (a ∂out of ones) on the activation it sees
    for the batch ``x``, in Sparrow and (when given) PyTorch, the same weights."""
    from support import capstone

    sp.manual_seed(0)
    ours = list(capstone.make_cnn(sp))
    theirs = list(capstone.make_cnn(torch)) if torch is not None else []
    if torch is not None:
        with torch.no_grad():
            for a, b in zip(ours, theirs, strict=True):
                for p, q in zip(b.parameters(), a.parameters(), strict=True):
                    p.copy_(torch.from_numpy(np.array(q.data)))
    activations, h = [x], sp.tensor(x)
    for layer in ours:
        h = layer(h)
        activations.append(np.array(h.data))
    steps = {}
    for i, layer in enumerate(ours):
        a, ones = activations[i], np.ones_like(activations[i + 1])
        name = type(layer).__name__
        steps[i, name, "Sparrow"] = one_layer(sp, layer, a, ones, i > 0)
        if torch is not None:
            steps[i, name, "PyTorch"] = one_layer(torch, theirs[i], a, ones, i > 0)
    return steps


def one_layer(
    lib: Any, layer: Any, a: np.ndarray, ones: np.ndarray, grad_input: bool
) -> Callable[[], None]:
    """``layer`` forward on ``a`` and backward from ``ones`` (``lib``: Sparrow or torch)."""
    x, g = lib.tensor(a, requires_grad=grad_input), lib.tensor(ones)

    def step() -> None:
        layer.zero_grad()
        x.grad = None
        out = layer(x)
        if out.requires_grad:
            out.backward(g)

    return step


def time_epochs(epochs: dict[str, Callable[[], float]], rounds: int) -> dict[str, float]:
    """Each framework's best of ``rounds`` epochs, the frameworks taking turns."""
    times: dict[str, list[float]] = {name: [] for name in epochs}
    for _ in range(rounds):
        for name, epoch in epochs.items():
            gc.collect()
            start = time.perf_counter()
            epoch()
            times[name].append(time.perf_counter() - start)
    return {name: min(t) for name, t in times.items()}


# -- the report -------------------------------------------------------------------------------


def works(sp: Any) -> bool:
    """Whether ``sp``'s CNN trains a step (False: a stub raised NotImplementedError)."""
    from support import capstone

    x = sp.tensor(np.zeros((2, 1, 28, 28), np.float32))
    try:
        loss = sp.nn.functional.cross_entropy(capstone.make_cnn(sp)(x), sp.tensor([0, 1]))
        loss.backward()
    except NotImplementedError:
        return False
    return True


def report(args: argparse.Namespace) -> None:
    from support import capstone, device_bench

    sp = importlib.import_module(f"{args.impl}.ch08_conv")
    if not works(sp):
        print(f"Convolution speed: not measured ({args.impl}/ch08_conv, or a chapter below it,")
        print("  raises NotImplementedError: its tasks are not all done)")
        return
    torch = importlib.import_module("torch") if has_torch() else None
    if torch is not None:
        torch.set_num_threads(args.threads)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"Convolution speed — Sparrow from {args.impl}/, {args.threads} thread(s) for every "
        f"library ({', '.join(THREAD_VARIABLES)}"
        + (f"; torch.set_num_threads({args.threads})" if torch else "")
        + f"), load {load:.2f}, {time.strftime('%Y-%m-%d %H:%M %Z')}"
    )
    if torch is None:
        print("PyTorch is not installed: its columns are not measured.")
    print(f"\n(a) Conv2d forward + backward, float32, ms (best of ≥ {args.repeat}), GFLOP/s")
    names = ["Sparrow", "NumPy floor", "GEMMs alone", "wide layout"]
    names += ["PyTorch"] * (torch is not None)
    print(f"  {'':<42}" + "".join(f"{n:>13}" for n in names))
    ratios = {}
    for layer in LAYERS:
        d = layer_data(layer)
        steps = {
            "Sparrow": sparrow_step(sp, d, layer.p),
            "NumPy floor": floor_step(d, layer.k, layer.p),
            "wide layout": wide_step(d, layer.k, layer.p),
        }
        if torch is not None:
            steps["PyTorch"] = torch_step(torch, d, layer.p)
        agree(steps, layer)
        steps["GEMMs alone"] = gemm_step(d, layer.k, layer.p)  # not the same work: not agreed
        calls = {name: (step, lambda: None) for name, step in steps.items()}
        timed = device_bench.measure_together(calls, repeat=args.repeat)
        best = {name: t.best for name, t in timed.items()}
        print(f"  {layer.name:<42}" + "".join(f"{best[n] * 1e3:>13.2f}" for n in names))
        print(
            f"  {'  GFLOP/s':<42}" + "".join(f"{layer.flops / best[n] / 1e9:>13.1f}" for n in names)
        )
        floor = best["NumPy floor"]
        wide = best["wide layout"]
        line = f"Sparrow {best['Sparrow'] / floor:.2f}× the floor, wide {wide / floor:.2f}×"
        if torch is not None:
            torch_best = best["PyTorch"]
            line += (
                f"; ÷ PyTorch: Sparrow {best['Sparrow'] / torch_best:.2f}×, floor "
                f"{floor / torch_best:.2f}×, wide {wide / torch_best:.2f}×"
            )
        print(f"    {line}")
        ratios[layer.name] = best["Sparrow"] / floor

    big = LAYERS[-1]
    memory = unfold_memory(big)
    mib = 2**20
    print(f"\n(b) unfold's memory at {big.name}:")
    print(
        f"  input {memory['input'] / mib:.1f} MiB; cols (N, C·k·k, L) "
        f"{memory['cols'] / mib:.1f} MiB "
        f"= {memory['cols'] / memory['input']:.2f}× the input (computed from the arrays); "
        f"tracemalloc's peak over one unfold {memory['peak'] / mib:.1f} MiB "
        f"(the padded copy and cols)"
    )

    epoch_ratio = None
    if args.epoch:
        data = capstone.mnist5k_images()
        agree_with_the_floor(sp, data)
        epochs = {"Sparrow": epoch_sparrow(sp, data), "NumPy floor": epoch_numpy(sp, data)}
        if torch is not None:
            epochs["PyTorch"] = epoch_torch(torch, data)
        for epoch in epochs.values():  # a warm-up epoch each
            epoch()
        best = time_epochs(epochs, args.rounds)
        print(
            f"\n(c) the CNN capstone, one epoch (4,000 images, batch 64, Adam), s, best of "
            f"{args.rounds}, taking turns"
        )
        print("  " + "   ".join(f"{name} {seconds:.3f}" for name, seconds in best.items()))
        floor_ratio = best["Sparrow"] / best["NumPy floor"]
        print(f"  Sparrow ÷ the NumPy floor: {floor_ratio:.2f}×", end="")
        if torch is not None:
            print(f"; the floor ÷ PyTorch: {best['NumPy floor'] / best['PyTorch']:.2f}×", end="")
        print()
        if torch is not None:
            epoch_ratio = best["Sparrow"] / best["PyTorch"]
            print(f"  Sparrow ÷ PyTorch: {epoch_ratio:.2f}×")
        steps = layer_steps(sp, torch, data["x_train"][:64])
        calls = {key: (step, lambda: None) for key, step in steps.items()}
        timed = device_bench.measure_together(calls, repeat=args.repeat)
        print("  where a step goes: each layer forward + backward at batch 64, ms")
        totals = dict.fromkeys(("Sparrow", "PyTorch"), 0.0)
        for (i, name, lib), t in timed.items():
            totals[lib] += t.best
            if lib == "Sparrow":
                other = timed.get((i, name, "PyTorch"))
                theirs = f"   PyTorch {other.best * 1e3:7.3f}" if other else ""
                print(f"    {i:>2} {name:<10} Sparrow {t.best * 1e3:7.3f}{theirs}")
        print("    all layers  " + "   ".join(f"{k} {v * 1e3:.2f}" for k, v in totals.items() if v))

    print("\nGoals (issue 30):")
    for name, ratio in ratios.items():
        verdict = "met" if ratio <= LAYER_GOAL else "MISSED"
        print(f"  {name}: Sparrow ≤ {LAYER_GOAL}× the NumPy floor: {ratio:.2f}×  {verdict}")
    if epoch_ratio is None:
        print(f"  CNN epoch ≤ {EPOCH_GOAL}× PyTorch: not measured")
    else:
        verdict = "met" if epoch_ratio <= EPOCH_GOAL else "MISSED"
        print(f"  CNN epoch ≤ {EPOCH_GOAL}× PyTorch: {epoch_ratio:.2f}×  {verdict}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m autograder.bench conv",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--threads", type=int, default=1, help="for every library")
    parser.add_argument("--repeat", type=int, default=7, help="at least this many timings")
    parser.add_argument("--rounds", type=int, default=10, help="epochs each; the best counts")
    parser.add_argument("--no-epoch", dest="epoch", action="store_false", help="layers only")
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
    command = [sys.executable, "-m", "autograder.bench_conv", *argv, HERE]
    sys.stdout.flush()  # what was printed before comes first
    return subprocess.run(command, env=env, cwd=REPO, check=False).returncode


if __name__ == "__main__":
    raise SystemExit(main())

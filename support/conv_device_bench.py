"""Chapter 8 on a device (``python -m autograder.bench device``, its conv rows).

Two calls, timed on the CPU and on the device in turns by ``device_bench.measure_together``
(each the best of at least ``repeat`` timings, a GPU synchronised before the clock is read):

- ``F.conv2d`` forward and backward of one layer, float32, its input and weights already on
  the device: ``LAYER``, the convolution benchmark's 3×3, 64 → 64 channel layer on 32×32
  images, batch 32, padding 1 (any of ``bench_conv.LAYERS``);
- one training step of the CNN capstone's LeNet (``support.capstone.make_cnn``) at batch 64,
  ``cross_entropy`` and Adam, its batch already on the device.

On the simulated device the figures are NumPy's plus the simulation's overhead, not a GPU's
(``device_bench.SIM_NOTE``).
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any

import numpy as np

from autograder import bench_conv
from support import capstone, device_bench

LAYER = bench_conv.LAYERS[-1]  # the 3×3, 64 → 64 layer of ``python -m autograder.bench conv``
STEP_BATCH = 64


def _layer_setup(sp: ModuleType, device: str, layer: bench_conv.Layer) -> tuple[Any, ...]:
    """(x, weight, bias, grad_out, padding) of ``layer`` on ``device`` (``layer_data``)."""
    data = bench_conv.layer_data(layer)
    x, w, b = (sp.tensor(data[k]).to(device).requires_grad_() for k in ("x", "w", "b"))
    return x, w, b, sp.tensor(data["g"]).to(device), layer.p


def _layer(sp: ModuleType, x: Any, w: Any, b: Any, g: Any, padding: int) -> None:
    x.grad = w.grad = b.grad = None
    sp.nn.functional.conv2d(x, w, b, padding=padding).backward(g)


def _step_setup(sp: ModuleType, device: str, batch: int) -> tuple[Any, ...]:
    """(model, optimizer, x, y): the capstone's LeNet after ``manual_seed(0)``, Adam, one
    fixed batch of images (N, 1, 28, 28) on ``device``."""
    sp.manual_seed(0)
    model = capstone.make_cnn(sp).to(device)
    optimizer = sp.optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(0)
    x = sp.tensor(rng.standard_normal((batch, 1, 28, 28)).astype(np.float32)).to(device)
    y = sp.tensor(rng.integers(0, 10, batch)).to(device)
    return model, optimizer, x, y


def conv_comparison(
    sp: ModuleType,
    device: str,
    repeat: int = device_bench.REPEAT,
    *,
    layer: bench_conv.Layer = LAYER,
    batch: int = STEP_BATCH,
) -> dict[str, tuple[device_bench.Timing, device_bench.Timing]]:
    """``{row: (cpu Timing, device Timing)}`` for the conv layer and the LeNet step; ``sp``
    is chapter 8's framework (``ch08_conv``)."""
    rows = {
        f"conv2d fwd+bwd {layer.n}×{layer.c}×{layer.h}², {layer.k}×{layer.k}": (
            _layer,
            lambda d: _layer_setup(sp, d, layer),
        ),
        f"LeNet training step, batch {batch}": (
            device_bench._step,  # the MLP step's four lines, on the CNN
            lambda d: _step_setup(sp, d, batch),
        ),
    }
    out = {}
    for name, (call, setup) in rows.items():
        calls = {
            d: (functools.partial(call, sp, *setup(d)), device_bench._synchronizer(d, sp))
            for d in ("cpu", device)
        }
        timed = device_bench.measure_together(calls, repeat=repeat, warmup=2)
        out[name] = (timed["cpu"], timed[device])
    return out


def format_conv(
    rows: dict[str, tuple[device_bench.Timing, device_bench.Timing]], device: str
) -> str:
    """The rows as a table: milliseconds (best, the worst in brackets) and the speed-up."""
    dev = device.split(":")[0]
    lines = [f"{'chapter 8, float32':<34}{'cpu ms':>18}{dev + ' ms':>18}{'speed-up':>30}"]
    for name, (cpu, d) in rows.items():
        lines.append(
            f"{name:<34}{device_bench._ms(cpu):>18}{device_bench._ms(d):>18}"
            f"{cpu.best / d.best:>29.2f}×"
        )
    return "\n".join(lines)

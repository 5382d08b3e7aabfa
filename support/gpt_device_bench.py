"""Chapter 9 on a device (``python -m autograder.bench device``, its Transformer row).

One training step of the GPT capstone's model (``support.capstone_gpt``: ``GPT_CONFIG``,
``BATCH_SIZE`` sequences of ``block_size`` tokens), timed on the CPU and on the device in
turns by ``device_bench.measure_together`` (the best of at least ``repeat`` timings, a GPU
synchronised before the clock is read): zero_grad, forward, ``cross_entropy`` over every
position, backward, ``clip_grad_norm_(…, 1.0)`` and an ``AdamW`` step, the model after
``manual_seed(0)`` and one fixed batch of random token ids already on the device, so a
step's time is the framework's and the device's, not the loader's or a copy's. The step is
``bench_gpt.TrainingStep``, the one ``python -m autograder.bench gpt`` times against PyTorch; unlike
that bench, the model here is freshly initialised (no ``warm_up``), where GELU's inputs are
all near 0, so the CPU column is a little faster than that bench's Sparrow
figure: both columns are flattered alike, and the ratio is what the row is for.

On the simulated device the figures are NumPy's plus the simulation's overhead, not a GPU's
(``device_bench.SIM_NOTE``).
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any

from autograder import bench_gpt
from support import capstone_gpt, device_bench

VOCAB = 77  # the capstone corpus's characters (a step's time hardly depends on it)


def _step_setup(
    sp: ModuleType, device: str, config: dict, batch: int, vocab: int
) -> tuple[bench_gpt.TrainingStep]:
    """The training step of ``sp.GPT(vocab, **config)`` after ``manual_seed(0)``, its model
    and a fixed batch of ``batch`` random sequences on ``device``."""
    sp.manual_seed(0)
    model = sp.GPT(vocab, **config).to(device)
    x, y = bench_gpt.batch_data(vocab, batch, config["block_size"])
    step = bench_gpt.TrainingStep(sp, model, x, y)
    step.x, step.y = step.x.to(device), step.y.to(device)
    return (step,)


def _step(sp: ModuleType, step: bench_gpt.TrainingStep) -> None:
    loss = step.forward()
    loss.backward()
    step.update()


def gpt_comparison(
    sp: ModuleType,
    device: str,
    repeat: int = device_bench.REPEAT,
    *,
    config: dict | None = None,
    batch: int | None = None,
    vocab: int = VOCAB,
) -> dict[str, tuple[device_bench.Timing, device_bench.Timing]]:
    """``{row: (cpu Timing, device Timing)}`` for the GPT's training step (the capstone's
    ``GPT_CONFIG`` and ``BATCH_SIZE`` unless given); ``sp`` is chapter 9's framework
    (``ch09_attention``)."""
    config = dict(capstone_gpt.GPT_CONFIG if config is None else config)
    batch = capstone_gpt.BATCH_SIZE if batch is None else batch
    shape = f"{config['n_layer']}×{config['n_embd']}, batch {batch}×{config['block_size']}"
    calls: dict[str, Any] = {
        d: (
            functools.partial(_step, sp, *_step_setup(sp, d, config, batch, vocab)),
            device_bench._synchronizer(d, sp),
        )
        for d in ("cpu", device)
    }
    timed = device_bench.measure_together(calls, repeat=repeat, warmup=2)
    return {f"GPT training step, {shape}": (timed["cpu"], timed[device])}


def format_gpt(
    rows: dict[str, tuple[device_bench.Timing, device_bench.Timing]], device: str
) -> str:
    """The rows as a table: milliseconds (best, the worst in brackets) and the speed-up."""
    dev = device.split(":")[0]
    lines = [f"{'chapter 9, float32':<40}{'cpu ms':>20}{dev + ' ms':>20}{'speed-up':>20}"]
    for name, (cpu, d) in rows.items():
        lines.append(
            f"{name:<40}{device_bench._ms(cpu):>20}{device_bench._ms(d):>20}"
            f"{cpu.best / d.best:>19.2f}×"
        )
    return "\n".join(lines)

"""CPU against a device: matmuls and the capstone's training step, timed (chapter 7).

Functions for a notebook and for ``python -m autograder.bench device``; every one returns
plain numbers (seconds), so a plot or a table is the caller's choice.

    matmul_times(device, sizes, repeat)        {n: seconds of one (n, n) @ (n, n), float32}
    step_times(device, batch_sizes, repeat)    {batch: seconds of one training step}
    training_losses(device, steps, ...)        the losses of a few steps (float64 by default)
    compare(device, sizes, batch_sizes, repeat)    CPU and ``device`` side by side
    format_comparison(comparison)              that, as a text table with the ratios

The training step is the capstone's (``support.capstone``): ``Linear(784, 128) → ReLU →
Linear(128, 10)``, ``cross_entropy``, ``Adam(lr=1e-3)``; zero_grad, forward, loss, backward,
step. Its batch is already on the device (fixed random pixels in [0, 1) and labels), so a
step's time is the framework's and the device's, not the loader's or a copy's.

A GPU runs its kernels asynchronously: the clock is read only after
``sp.cuda.synchronize()``, else it would time the launches, not the work. Each figure is the
best of ``repeat`` timings, after a warm-up call (CuPy compiles a kernel on its first use).

On ``"sim"`` the figures are NumPy's plus the simulated device's wrapper overhead — the
simulated device is not a GPU, and every label and printout here says so (``SIM_NOTE``).
"""

from __future__ import annotations

import functools
import importlib
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

SIM_NOTE = "simulated device: not a GPU"
MATMUL_SIZES = (256, 1024, 2048, 4096)
STEP_BATCHES = (64, 4096)
SIZES = (784, 128, 10)  # the capstone's MLP (support.capstone.SIZES)
STEP_GOAL = 10.0  # issue 16: a GPU's training step at batch 4096 ≥ 10× the CPU's


def framework(sp: ModuleType | None = None) -> ModuleType:
    """``sp`` itself, else chapter 7's package (``chapters.ch07_device``, which
    ``SPARROW_IMPL=solutions`` turns into the reference)."""
    return sp if sp is not None else importlib.import_module("chapters.ch07_device")


def default_device(sp: ModuleType | None = None) -> str:
    """``"cuda"`` when a GPU can be used, else ``"sim"`` (the simulated device)."""
    return "cuda" if framework(sp).cuda.is_available() else "sim"


def diagnose() -> list[tuple[str, str | None]]:
    """What a usable GPU needs, step by step, each with the error it raised (None: it
    worked), up to the first that fails: CuPy imports, a device is counted, a kernel runs
    (CuPy compiles it with NVRTC), a matmul runs (cuBLAS), ``cupyx.scatter_add`` runs.
    Unlike ``cuda.is_available()`` (silent, only True or False), this says why."""
    steps: list[tuple[str, str | None]] = []
    state: dict[str, Any] = {}

    def cupy_imports() -> None:
        state["cupy"] = importlib.import_module("cupy")

    def device_counted() -> None:
        count = state["cupy"].cuda.runtime.getDeviceCount()
        if count < 1:
            raise RuntimeError("CUDA counts no device")

    def kernel_runs() -> None:
        cupy = state["cupy"]
        if int((cupy.arange(3) * 2).sum()) != 6:
            raise RuntimeError("a tiny kernel gave a wrong answer")

    def matmul_runs() -> None:
        cupy = state["cupy"]
        a = cupy.ones((64, 64), dtype=cupy.float32)
        if float((a @ a)[0, 0]) != 64.0:
            raise RuntimeError("a matmul gave a wrong answer")

    def scatter_add_runs() -> None:
        cupy, cupyx = state["cupy"], importlib.import_module("cupyx")
        target = cupy.zeros(3)
        cupyx.scatter_add(target, cupy.asarray([0, 0, 2]), 1.0)
        if target.get().tolist() != [2.0, 0.0, 1.0]:
            raise RuntimeError("cupyx.scatter_add gave a wrong answer")

    for name, step in [
        ("CuPy imports", cupy_imports),
        ("CUDA counts a device", device_counted),
        ("a kernel runs (NVRTC)", kernel_runs),
        ("a matmul runs (cuBLAS)", matmul_runs),
        ("cupyx.scatter_add runs", scatter_add_runs),
    ]:
        try:
            step()
        except Exception as exc:  # whatever it is, the point is to say what it was
            steps.append((name, f"{type(exc).__module__}.{type(exc).__qualname__}: {exc}"))
            break
        steps.append((name, None))
    return steps


def why_no_gpu() -> str | None:
    """None when ``diagnose()`` passes every step, else one line: the step that failed and
    its error (``CuPy is not installed`` when it is not)."""
    name, error = diagnose()[-1]
    if error is None:
        return None
    if name == "CuPy imports" and "No module named 'cupy'" in error:
        return "CuPy is not installed (pip install -r requirements-gpu.txt)"
    return f"{name}: no — {error}"


def is_simulated(device: Any) -> bool:
    return str(device).split(":")[0] == "sim"


def gpu_name(sp: ModuleType | None = None) -> str | None:
    """The name of GPU 0 (from CuPy), or None when no GPU can be used."""
    if not framework(sp).cuda.is_available():
        return None
    import cupy

    name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def label(device: Any, sp: ModuleType | None = None) -> str:
    """``device`` as a printout names it: the GPU's model for ``"cuda"``, the CPU's thread
    count for ``"cpu"``, and ``SIM_NOTE`` for ``"sim"``."""
    kind = str(device).split(":")[0]
    if kind == "sim":
        return f"sim — {SIM_NOTE} (NumPy plus its wrapper's overhead)"
    if kind == "cuda":
        return f"cuda ({gpu_name(sp) or 'no usable GPU'})"
    threads = os.environ.get("OMP_NUM_THREADS")
    return f"cpu (NumPy, {f'{threads} threads' if threads else f'{os.cpu_count()} cores'})"


def _synchronizer(device: Any, sp: ModuleType) -> Callable[[], None]:
    if str(device).split(":")[0] == "cuda":
        return sp.cuda.synchronize
    return lambda: None


def _best(fn: Callable[[], Any], sync: Callable[[], None], repeat: int, warmup: int) -> float:
    """The least seconds of ``repeat`` calls of ``fn``, each ended by ``sync`` before the
    clock is read, after ``warmup`` calls that are not timed."""
    for _ in range(warmup):
        fn()
    sync()
    times = []
    for _ in range(max(1, repeat)):
        start = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - start)
    return min(times)


def matmul_times(
    device: Any = "cpu",
    sizes: Iterable[int] = MATMUL_SIZES,
    repeat: int = 5,
    *,
    sp: ModuleType | None = None,
    warmup: int = 1,
) -> dict[int, float]:
    """``{n: seconds}`` for one float32 ``(n, n) @ (n, n)`` on ``device`` (operands already
    there, no gradient recorded), the best of ``repeat``."""
    sp = framework(sp)
    sync = _synchronizer(device, sp)
    rng = np.random.default_rng(0)
    out = {}
    for n in sizes:
        a = sp.tensor(rng.standard_normal((n, n), dtype=np.float32)).to(device)
        b = sp.tensor(rng.standard_normal((n, n), dtype=np.float32)).to(device)
        with sp.no_grad():
            out[int(n)] = _best(lambda a=a, b=b: a @ b, sync, repeat, warmup)
        del a, b
    return out


def gflops(n: int, seconds: float) -> float:
    """Billions of floating-point operations per second of an (n, n) @ (n, n) (2n³)."""
    return 2.0 * n**3 / seconds / 1e9


def _step_setup(
    sp: ModuleType, device: Any, batch_size: int, seed: int
) -> tuple[Any, Any, Any, Any]:
    """(model, optimizer, x, y) on ``device``: the capstone's MLP drawn after
    ``manual_seed(seed)``, Adam, and one fixed batch of the default dtype."""
    sp.manual_seed(seed)
    nn = sp.nn
    model = nn.Sequential(nn.Linear(SIZES[0], SIZES[1]), nn.ReLU(), nn.Linear(SIZES[1], SIZES[2]))
    model = model.to(device)
    optimizer = sp.optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(seed)
    x = sp.tensor(rng.random((batch_size, SIZES[0])).astype(sp.get_default_dtype()))
    y = sp.tensor(rng.integers(0, SIZES[2], batch_size))
    return model, optimizer, x.to(device), y.to(device)


def _step(sp: ModuleType, model: Any, optimizer: Any, x: Any, y: Any) -> Any:
    optimizer.zero_grad()
    loss = sp.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss


def step_times(
    device: Any = "cpu",
    batch_sizes: Iterable[int] = STEP_BATCHES,
    repeat: int = 5,
    *,
    sp: ModuleType | None = None,
    warmup: int = 2,
) -> dict[int, float]:
    """``{batch: seconds}`` for one step of the capstone's training (float32, Adam) on
    ``device``, its batch already there, the best of ``repeat``."""
    sp = framework(sp)
    sync = _synchronizer(device, sp)
    out = {}
    for batch in batch_sizes:
        step = functools.partial(_step, sp, *_step_setup(sp, device, int(batch), seed=0))
        out[int(batch)] = _best(step, sync, repeat, warmup)
    return out


def training_losses(
    device: Any = "cpu",
    steps: int = 5,
    *,
    batch_size: int = 64,
    dtype: Any = "float64",
    seed: int = 0,
    sp: ModuleType | None = None,
) -> list[float]:
    """The losses of ``steps`` training steps of the capstone's MLP on ``device``, in
    ``dtype``, from the same weights and batch on every device (so CPU and GPU compare),
    read back to the host only after the last step."""
    sp = framework(sp)
    previous = sp.get_default_dtype()
    sp.set_default_dtype(dtype)
    try:
        model, optimizer, x, y = _step_setup(sp, device, batch_size, seed)
        losses = [_step(sp, model, optimizer, x, y).detach() for _ in range(steps)]
    finally:
        sp.set_default_dtype(previous)
    return [float(loss.item()) for loss in losses]


@dataclass
class Comparison:
    """CPU against ``device``: ``matmul[n]`` and ``step[batch]`` are (cpu seconds, device
    seconds); ``note`` is ``SIM_NOTE`` on the simulated device, else ''."""

    device: str
    label: str
    cpu_label: str
    note: str
    repeat: int
    matmul: dict[int, tuple[float, float]] = field(default_factory=dict)
    step: dict[int, tuple[float, float]] = field(default_factory=dict)

    def speedup(self, batch: int) -> float:
        """How many times faster than the CPU ``device`` ran a step at ``batch``."""
        cpu, dev = self.step[batch]
        return cpu / dev


def compare(
    device: Any = None,
    sizes: Iterable[int] = MATMUL_SIZES,
    batch_sizes: Iterable[int] = STEP_BATCHES,
    repeat: int = 5,
    *,
    sp: ModuleType | None = None,
) -> Comparison:
    """The CPU and ``device`` (default: ``"cuda"`` when a GPU can be used, else ``"sim"``)
    on the same matmuls and training steps."""
    sp = framework(sp)
    device = str(device or default_device(sp))
    sizes, batch_sizes = list(sizes), list(batch_sizes)
    cpu_mm = matmul_times("cpu", sizes, repeat, sp=sp)
    dev_mm = matmul_times(device, sizes, repeat, sp=sp)
    cpu_st = step_times("cpu", batch_sizes, repeat, sp=sp)
    dev_st = step_times(device, batch_sizes, repeat, sp=sp)
    return Comparison(
        device=device,
        label=label(device, sp),
        cpu_label=label("cpu", sp),
        note=SIM_NOTE if is_simulated(device) else "",
        repeat=repeat,
        matmul={n: (cpu_mm[n], dev_mm[n]) for n in sizes},
        step={b: (cpu_st[b], dev_st[b]) for b in batch_sizes},
    )


def format_comparison(c: Comparison) -> str:
    """The comparison as a text table: seconds, GFLOP/s, and the speed-up (CPU time /
    device time; above 1 the device is faster)."""
    dev = c.device.split(":")[0]
    lines = [
        f"CPU vs {c.device}" + (f"  [{c.note}]" if c.note else ""),
        f"  cpu:  {c.cpu_label}",
        f"  {dev}:  {c.label}",
        f"  each figure the best of {c.repeat}; a GPU synchronised before the clock is read",
        "",
        f"{'matmul float32 (n, n) @ (n, n)':<34}{'cpu ms':>10}{dev + ' ms':>10}"
        f"{'cpu GF/s':>10}{dev + ' GF/s':>10}{'speed-up':>10}",
    ]
    for n, (cpu, d) in c.matmul.items():
        lines.append(
            f"{f'n = {n}':<34}{cpu * 1e3:>10.3f}{d * 1e3:>10.3f}"
            f"{gflops(n, cpu):>10.1f}{gflops(n, d):>10.1f}{cpu / d:>9.2f}×"
        )
    lines += ["", f"{'training step (784-128-10, Adam)':<34}{'cpu ms':>10}{dev + ' ms':>10}"]
    lines[-1] += f"{'':>20}{'speed-up':>10}"
    for b, (cpu, d) in c.step.items():
        lines.append(
            f"{f'batch {b}':<34}{cpu * 1e3:>10.3f}{d * 1e3:>10.3f}{'':>20}{cpu / d:>9.2f}×"
        )
    if c.note:
        lines += ["", f"{c.note}: these ratios measure only the simulated device's overhead"]
    elif max(c.step, default=0) >= 4096:
        batch = max(c.step)
        verdict = "met" if c.speedup(batch) >= STEP_GOAL else "NOT met"
        lines += [
            "",
            f"goal: training step at batch {batch} ≥ {STEP_GOAL:g}× the CPU — {verdict} "
            f"({c.speedup(batch):.1f}×)",
        ]
    return "\n".join(lines)

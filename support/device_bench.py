"""CPU against a device: matmuls, the capstone's training step and chapter 7's training
loops, timed (chapter 7).

Functions for a notebook and for ``python -m autograder.bench device``; every one returns
plain numbers: seconds, or a ``Timing`` (the seconds of every timing, with its best, median
and worst), so a plot or a table is the caller's choice.

    measure(fn, sync) / measure_together(calls)        a Timing / one per call, in turns
    matmul_comparison(devices, sizes)          {device: {n: Timing of one (n, n) @ (n, n)}}
    step_comparison(devices, batch_sizes)      {device: {batch: Timing of a training step}}
    loop_comparison(devices, loops)            {device: {loop: Timing per step of §6's loops}}
    matmul_timings / step_timings / loop_timings (device, …)     the same for one device
    matmul_times / step_times (device, …)      {n or batch: best seconds}
    queued_and_done(device, n)                 a matmul timed before and after synchronize
    loop_setup(device, data_on_device) / train_epoch(model, opt, loader, device)
                                               §6's loops (the notebook calls them)
    training_losses(device, steps, ...)        the losses of a few steps (float64 by default)
    compare(device, sizes, batch_sizes, repeat)    CPU and ``device`` side by side
    format_comparison(comparison)              that, as a text table with the ratios

The training step is the capstone's (``support.capstone``): ``Linear(784, 128) → ReLU →
Linear(128, 10)``, ``cross_entropy``, ``Adam(lr=1e-3)``; zero_grad, forward, loss, backward,
step. Its batch is already on the device (fixed random pixels in [0, 1) and labels), so a
step's time is the framework's and the device's, not the loader's or a copy's.

A GPU runs its kernels asynchronously: the clock is read only after
``sp.cuda.synchronize()``, else it would time the launches, not the work. Each figure is the
best of at least ``repeat`` (7) timings, after a warm-up call (CuPy compiles a kernel on its
first use); a call too fast for one clock read is repeated within each timing; the devices
compared are timed in turns, so a busy spell of the machine falls on both (``measure``).

On ``"sim"`` the figures are NumPy's plus the simulated device's wrapper overhead — the
simulated device is not a GPU, and every label and printout here says so (``SIM_NOTE``).
"""

from __future__ import annotations

import functools
import importlib
import os
import time
from collections.abc import Callable, Hashable, Iterable, Mapping
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
    the course repository's SPARROW_IMPL switch can turn into the reference)."""
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


REPEAT = 7  # the fewest timings behind a figure: its best, and the spread of the rest
MIN_TIMING = 2e-3  # seconds one timing should last: a tiny call is repeated inside it
MIN_TOTAL = 0.1  # seconds all timings of one figure should last: more timings when fast
MAX_REPEAT = 50


@dataclass(frozen=True)
class Timing:
    """Seconds per call of one measured function: ``times`` holds one figure per timing,
    each the clock over ``number`` back-to-back calls (then synchronised) divided by
    ``number``. ``best`` is what a table reports: noise (other programs, the clock, a
    cache) only ever adds time. ``median`` and ``worst`` show the spread."""

    times: tuple[float, ...]
    number: int = 1

    @property
    def best(self) -> float:
        return min(self.times)

    @property
    def median(self) -> float:
        return float(np.median(self.times))

    @property
    def worst(self) -> float:
        return max(self.times)

    @property
    def repeat(self) -> int:
        return len(self.times)

    def __float__(self) -> float:
        return self.best


def measure_together(
    calls: Mapping[Hashable, tuple[Callable[[], Any], Callable[[], None]]],
    *,
    repeat: int = REPEAT,
    warmup: int = 1,
    min_timing: float = MIN_TIMING,
    min_total: float = MIN_TOTAL,
    max_repeat: int = MAX_REPEAT,
) -> dict[Hashable, Timing]:
    """Time each ``key: (fn, sync)`` of ``calls`` under the same conditions. Each is warmed
    up (``warmup`` untimed calls: CuPy compiles a kernel on its first use, a cache fills)
    and gets its calls per timing, doubled until one timing lasts ``min_timing`` seconds (a
    call of microseconds is below what one clock read separates from noise). Then the
    timings go round-robin, one of each function in turn, at least ``repeat`` rounds and
    more (up to ``max_repeat``) until even the fastest function's timings last ``min_total``:
    a busy spell of the machine falls on all of them alike, not on whichever ran then.
    Each timing ends with ``sync()`` before the clock is read: a GPU queues its work, and
    the time it takes shows only when the host waits for it."""

    def timing(fn: Callable[[], Any], sync: Callable[[], None], number: int) -> float:
        start = time.perf_counter()
        for _ in range(number):
            fn()
        sync()
        return time.perf_counter() - start

    numbers, times = {}, {}
    for key, (fn, sync) in calls.items():
        for _ in range(warmup):
            fn()
        sync()
        number = 1
        first = timing(fn, sync, number)
        while first < min_timing and number < 1 << 20:
            number *= 2
            first = timing(fn, sync, number)
        numbers[key], times[key] = number, [first]
    wanted = max((int(np.ceil(min_total / max(t[0], 1e-9))) for t in times.values()), default=1)
    rounds = min(max(repeat, wanted), max(repeat, max_repeat))
    for _ in range(rounds - 1):
        for key, (fn, sync) in calls.items():
            times[key].append(timing(fn, sync, numbers[key]))
    return {key: Timing(tuple(t / numbers[key] for t in times[key]), numbers[key]) for key in calls}


def measure(
    fn: Callable[[], Any],
    sync: Callable[[], None] = lambda: None,
    *,
    repeat: int = REPEAT,
    warmup: int = 1,
    min_timing: float = MIN_TIMING,
    min_total: float = MIN_TOTAL,
    max_repeat: int = MAX_REPEAT,
) -> Timing:
    """``measure_together`` of one function: its ``Timing``."""
    return measure_together(
        {0: (fn, sync)},
        repeat=repeat,
        warmup=warmup,
        min_timing=min_timing,
        min_total=min_total,
        max_repeat=max_repeat,
    )[0]


def _devices(devices: Any) -> list[str]:
    """One device or several, as a list of names."""
    return [str(devices)] if isinstance(devices, str) else [str(d) for d in devices]


def matmul_comparison(
    devices: Any = ("cpu",),
    sizes: Iterable[int] = MATMUL_SIZES,
    repeat: int = REPEAT,
    *,
    sp: ModuleType | None = None,
    warmup: int = 1,
) -> dict[str, dict[int, Timing]]:
    """``{device: {n: Timing}}`` of one float32 ``a @ b`` of two ``(n, n)`` tensors on each
    of ``devices``: the framework's matmul (NumPy's, CuPy's, or the simulated device's,
    plus the few microseconds of the framework around it), operands already there, no
    gradient recorded. The devices are timed together at each size (``measure_together``:
    at least ``repeat`` rounds)."""
    sp = framework(sp)
    devices = _devices(devices)
    rng = np.random.default_rng(0)
    out: dict[str, dict[int, Timing]] = {d: {} for d in devices}
    for n in sizes:
        a = rng.standard_normal((n, n), dtype=np.float32)
        b = rng.standard_normal((n, n), dtype=np.float32)
        calls = {}
        for d in devices:
            x, y = sp.tensor(a).to(d), sp.tensor(b).to(d)
            calls[d] = (lambda x=x, y=y: x @ y, _synchronizer(d, sp))
        with sp.no_grad():
            timed = measure_together(calls, repeat=repeat, warmup=warmup)
        for d in devices:
            out[d][int(n)] = timed[d]
        del calls
    return out


def matmul_timings(
    device: Any = "cpu",
    sizes: Iterable[int] = MATMUL_SIZES,
    repeat: int = REPEAT,
    *,
    sp: ModuleType | None = None,
    warmup: int = 1,
) -> dict[int, Timing]:
    """``{n: Timing}``: ``matmul_comparison`` of one device."""
    return matmul_comparison([device], sizes, repeat, sp=sp, warmup=warmup)[str(device)]


def matmul_times(
    device: Any = "cpu",
    sizes: Iterable[int] = MATMUL_SIZES,
    repeat: int = REPEAT,
    *,
    sp: ModuleType | None = None,
    warmup: int = 1,
) -> dict[int, float]:
    """``{n: seconds}``: the best of ``matmul_timings``."""
    timed = matmul_timings(device, sizes, repeat, sp=sp, warmup=warmup)
    return {n: t.best for n, t in timed.items()}


def queued_and_done(
    device: Any, n: int, repeat: int = REPEAT, *, sp: ModuleType | None = None
) -> tuple[Timing, Timing]:
    """One float32 ``(n, n) @ (n, n)`` on ``device``, timed twice over: the clock read right
    after the call returns (on a GPU: the launch, the work only queued) and after
    ``synchronize()`` (the work done). Each a ``Timing`` of ``repeat`` single calls, after a
    warm-up; the device is synchronised before each clock starts."""
    sp = framework(sp)
    sync = _synchronizer(device, sp)
    rng = np.random.default_rng(0)
    a = sp.tensor(rng.standard_normal((n, n), dtype=np.float32)).to(device)
    b = sp.tensor(rng.standard_normal((n, n), dtype=np.float32)).to(device)
    queued, done = [], []
    with sp.no_grad():
        a @ b  # warm-up
        sync()
        for _ in range(max(1, repeat)):
            start = time.perf_counter()
            a @ b
            queued.append(time.perf_counter() - start)
            sync()
            done.append(time.perf_counter() - start)
    return Timing(tuple(queued)), Timing(tuple(done))


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


def step_comparison(
    devices: Any = ("cpu",),
    batch_sizes: Iterable[int] = STEP_BATCHES,
    repeat: int = REPEAT,
    *,
    sp: ModuleType | None = None,
    warmup: int = 2,
) -> dict[str, dict[int, Timing]]:
    """``{device: {batch: Timing}}`` of one step of the capstone's training (float32, Adam)
    on each of ``devices``, its batch already there; the devices timed together at each
    batch size (``measure_together``: at least ``repeat`` rounds)."""
    sp = framework(sp)
    devices = _devices(devices)
    out: dict[str, dict[int, Timing]] = {d: {} for d in devices}
    for batch in batch_sizes:
        calls = {
            d: (
                functools.partial(_step, sp, *_step_setup(sp, d, int(batch), seed=0)),
                _synchronizer(d, sp),
            )
            for d in devices
        }
        timed = measure_together(calls, repeat=repeat, warmup=warmup)
        for d in devices:
            out[d][int(batch)] = timed[d]
    return out


def step_timings(
    device: Any = "cpu",
    batch_sizes: Iterable[int] = STEP_BATCHES,
    repeat: int = REPEAT,
    *,
    sp: ModuleType | None = None,
    warmup: int = 2,
) -> dict[int, Timing]:
    """``{batch: Timing}``: ``step_comparison`` of one device."""
    return step_comparison([device], batch_sizes, repeat, sp=sp, warmup=warmup)[str(device)]


def step_times(
    device: Any = "cpu",
    batch_sizes: Iterable[int] = STEP_BATCHES,
    repeat: int = REPEAT,
    *,
    sp: ModuleType | None = None,
    warmup: int = 2,
) -> dict[int, float]:
    """``{batch: seconds}``: the best of ``step_timings``."""
    return {
        b: t.best
        for b, t in step_timings(device, batch_sizes, repeat, sp=sp, warmup=warmup).items()
    }


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


LOOP_IMAGES = 1024  # §6's loops: the first 1,024 MNIST-5k training images, batches of 64
LOOP_BATCH = 64
LOOPS = {  # name: (the data set on the device, the loss read back by .item() every step)
    "each batch moved": (False, False),
    "data set on the device": (True, False),
    "on the device, .item() every step": (True, True),
}


def loop_setup(
    device: Any,
    data_on_device: bool,
    *,
    images: int = LOOP_IMAGES,
    batch_size: int = LOOP_BATCH,
    sp: ModuleType | None = None,
) -> tuple[Any, Any, Any]:
    """(model, optimizer, loader) for chapter 7's §6 loops: the capstone's model after
    ``manual_seed(0)`` and Adam on ``device``, and a ``DataLoader`` (``batch_size``, not
    shuffled) over the first ``images`` MNIST-5k training images and labels, made on the
    device (``data_on_device``) or on the host."""
    from support import capstone

    sp = framework(sp)
    data = capstone.mnist5k()
    sp.manual_seed(0)
    model = capstone.make_model(sp).to(device)
    opt = sp.optim.Adam(model.parameters(), lr=1e-3)
    where = device if data_on_device else "cpu"
    dataset = sp.utils.data.TensorDataset(
        sp.tensor(data["x_train"][:images], device=where),
        sp.tensor(data["y_train"][:images], device=where),
    )
    return model, opt, sp.utils.data.DataLoader(dataset, batch_size=batch_size)


def train_epoch(
    model: Any,
    opt: Any,
    loader: Any,
    device: Any,
    read_loss: bool = False,
    *,
    sp: ModuleType | None = None,
) -> Any:
    """One epoch of the usual PyTorch loop on ``device``; returns the sum of the losses:
    a Python float read back by ``.item()`` at every step (``read_loss``), else a tensor
    left on the device."""
    sp = framework(sp)
    total = 0.0
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)  # a copy unless already there
        opt.zero_grad()
        loss = sp.nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        if read_loss:
            total += loss.item()  # a copy back, every step
        else:
            total = loss.detach() + total  # stays on the device
    return total


def loop_comparison(
    devices: Any = ("cpu",),
    loops: Iterable[str] = tuple(LOOPS),
    repeat: int = REPEAT,
    *,
    sp: ModuleType | None = None,
) -> dict[str, dict[str, Timing]]:
    """``{device: {loop: Timing}}``: seconds per training step of each of ``LOOPS`` on each
    of ``devices``, an epoch (16 steps) per call, synchronised before the clock is read,
    after a warm-up epoch; every loop on every device timed together (``measure_together``:
    at least ``repeat`` rounds of one epoch each)."""
    sp = framework(sp)
    devices = _devices(devices)
    calls, steps = {}, {}
    for d in devices:
        for name in loops:
            on_device, read_loss = LOOPS[name]
            model, opt, loader = loop_setup(d, on_device, sp=sp)
            epoch = functools.partial(train_epoch, model, opt, loader, d, read_loss, sp=sp)
            calls[d, name], steps[d, name] = (epoch, _synchronizer(d, sp)), len(loader)
    timed = measure_together(calls, repeat=repeat, min_timing=0.0)
    out: dict[str, dict[str, Timing]] = {d: {} for d in devices}
    for (d, name), t in timed.items():
        out[d][name] = Timing(tuple(x / steps[d, name] for x in t.times), t.number)
    return out


def loop_timings(
    device: Any,
    loops: Iterable[str] = tuple(LOOPS),
    repeat: int = REPEAT,
    *,
    sp: ModuleType | None = None,
) -> dict[str, Timing]:
    """``{loop: Timing}``: ``loop_comparison`` of one device."""
    return loop_comparison([device], loops, repeat, sp=sp)[str(device)]


@dataclass
class Comparison:
    """CPU against ``device``: ``matmul[n]``, ``step[batch]`` and ``loops[name]`` are
    (cpu Timing, device Timing); ``sync`` is the device's (queued, done) ``Timing`` of one
    matmul of ``sync_size`` (``queued_and_done``); ``note`` is ``SIM_NOTE`` on the
    simulated device, else ''."""

    device: str
    label: str
    cpu_label: str
    note: str
    repeat: int
    matmul: dict[int, tuple[Timing, Timing]] = field(default_factory=dict)
    step: dict[int, tuple[Timing, Timing]] = field(default_factory=dict)
    loops: dict[str, tuple[Timing, Timing]] = field(default_factory=dict)
    sync: tuple[Timing, Timing] | None = None
    sync_size: int = 0

    def speedup(self, batch: int) -> float:
        """How many times faster than the CPU ``device`` ran a step at ``batch`` (best
        against best)."""
        cpu, dev = self.step[batch]
        return cpu.best / dev.best


def compare(
    device: Any = None,
    sizes: Iterable[int] = MATMUL_SIZES,
    batch_sizes: Iterable[int] = STEP_BATCHES,
    repeat: int = REPEAT,
    *,
    loops: Iterable[str] = tuple(LOOPS),
    sync_size: int | None = None,
    sp: ModuleType | None = None,
) -> Comparison:
    """The CPU and ``device`` (default: ``"cuda"`` when a GPU can be used, else ``"sim"``)
    on the same matmuls, training steps and §6 training loops, and the device's matmul of
    ``sync_size`` (default: the largest of ``sizes`` up to 1024) timed before and after
    ``synchronize()`` — what chapter 7's notebook shows, measured the same way."""
    sp = framework(sp)
    device = str(device or default_device(sp))
    sizes, batch_sizes, loops = list(sizes), list(batch_sizes), list(loops)
    both = ["cpu", device]
    mm = matmul_comparison(both, sizes, repeat, sp=sp)
    st = step_comparison(both, batch_sizes, repeat, sp=sp)
    lp = loop_comparison(both, loops, repeat, sp=sp)
    cpu_mm, dev_mm, cpu_st, dev_st, cpu_lp, dev_lp = (
        mm["cpu"],
        mm[device],
        st["cpu"],
        st[device],
        lp["cpu"],
        lp[device],
    )
    if sync_size is None:
        sync_size = max([n for n in sizes if n <= 1024] or [min(sizes, default=256)])
    return Comparison(
        device=device,
        label=label(device, sp),
        cpu_label=label("cpu", sp),
        note=SIM_NOTE if is_simulated(device) else "",
        repeat=repeat,
        matmul={n: (cpu_mm[n], dev_mm[n]) for n in sizes},
        step={b: (cpu_st[b], dev_st[b]) for b in batch_sizes},
        loops={name: (cpu_lp[name], dev_lp[name]) for name in loops},
        sync=queued_and_done(device, sync_size, repeat, sp=sp),
        sync_size=sync_size,
    )


def _ms(t: Timing) -> str:
    """A timing in milliseconds as a table shows it: the best, then the worst in brackets."""
    return f"{t.best * 1e3:.3f} ({t.worst * 1e3:.3g})"


def format_comparison(c: Comparison) -> str:
    """The comparison as a text table: milliseconds (the best of the timings, the worst in
    brackets), GFLOP/s of the best, and the speed-up (best CPU time / best device time;
    above 1 the device is faster)."""
    dev = c.device.split(":")[0]
    repeats = [t.repeat for pair in [*c.matmul.values(), *c.step.values()] for t in pair]
    lines = [
        f"CPU vs {c.device}" + (f"  [{c.note}]" if c.note else ""),
        f"  cpu:  {c.cpu_label}",
        f"  {dev}:  {c.label}",
        f"  each figure the best of ≥ {min(repeats, default=c.repeat)} timings (the worst in "
        "brackets), after a warm-up;",
        "  a fast call repeated within a timing; the CPU and the device timed in turns; a GPU "
        "synchronised before the clock is read",
        "",
        f"{'matmul float32 (n, n) @ (n, n)':<34}{'cpu ms':>18}{dev + ' ms':>18}"
        f"{'cpu GF/s':>10}{dev + ' GF/s':>10}{'speed-up':>10}",
    ]
    for n, (cpu, d) in c.matmul.items():
        lines.append(
            f"{f'n = {n}':<34}{_ms(cpu):>18}{_ms(d):>18}"
            f"{gflops(n, cpu.best):>10.1f}{gflops(n, d.best):>10.1f}{cpu.best / d.best:>9.2f}×"
        )
    lines += ["", f"{'training step (784-128-10, Adam)':<34}{'cpu ms':>18}{dev + ' ms':>18}"]
    lines[-1] += f"{'':>20}{'speed-up':>10}"
    for b, (cpu, d) in c.step.items():
        lines.append(
            f"{f'batch {b}':<34}{_ms(cpu):>18}{_ms(d):>18}{'':>20}{cpu.best / d.best:>9.2f}×"
        )
    if c.loops:
        lines += ["", f"{'training loop, ms per step (§6)':<34}{'cpu ms':>18}{dev + ' ms':>18}"]
        for name, (cpu, d) in c.loops.items():
            lines.append(f"{name:<34}{_ms(cpu):>18}{_ms(d):>18}")
    if c.sync is not None:
        queued, done = c.sync
        lines += [
            "",
            f"{dev}: one ({c.sync_size}, {c.sync_size}) matmul, {_ms(queued)} ms when the call "
            f"returns, {_ms(done)} ms after synchronize()",
        ]
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

"""support/device_bench.py without a clock: how ``measure`` chooses its calls per timing
and its timings (a fake clock, so nothing here is timed), and chapter 7's §6 training loops
counted on the simulated device with the very functions the notebook calls — the copies
the notebook's text and figure claim, computed here from the batch's shape."""

from __future__ import annotations

import numpy as np
import pytest

from solutions import ch07_device as sp
from support import device_bench
from support.device_bench import Timing, measure


class FakeClock:
    """``time.perf_counter`` that advances only when the measured function runs."""

    def __init__(self, per_call: float) -> None:
        self.now, self.per_call, self.calls = 0.0, per_call, 0

    def __call__(self) -> float:
        return self.now

    def work(self) -> None:
        self.calls += 1
        self.now += self.per_call


def test_timing_reports_its_best_median_and_worst() -> None:
    t = Timing((3.0, 1.0, 2.0, 9.0, 2.5), number=4)
    assert (t.best, t.median, t.worst, t.repeat) == (1.0, 2.5, 9.0, 5)
    assert float(t) == 1.0


def test_measure_repeats_a_fast_call_within_each_timing_and_takes_more_timings(
    monkeypatch,
) -> None:
    clock = FakeClock(per_call=1e-4)  # 0.1 ms a call: 20 calls to fill 2 ms
    monkeypatch.setattr(device_bench.time, "perf_counter", clock)
    synced = []
    t = measure(clock.work, lambda: synced.append(clock.calls), warmup=3)
    # calls per timing doubled 1, 2, 4, …: 32 is the first whose timing lasts ≥ 2 ms
    assert t.number == 32
    # at least 7 timings, and as many as 0.1 s needs at 3.2 ms each: ⌈0.1 / 0.0032⌉ = 32
    assert t.repeat == int(np.ceil(device_bench.MIN_TOTAL / (32 * 1e-4))) == 32
    assert np.allclose(t.times, 1e-4)  # seconds per call, not per timing
    assert clock.calls == 3 + (1 + 2 + 4 + 8 + 16) + 32 * 32
    assert len(synced) == 1 + 5 + 32  # after the warm-up, then after every timing


def test_measure_of_a_slow_call_times_each_call_alone_at_least_seven_times(monkeypatch) -> None:
    clock = FakeClock(per_call=0.05)
    monkeypatch.setattr(device_bench.time, "perf_counter", clock)
    t = measure(clock.work, repeat=7, warmup=1)
    assert (t.number, t.repeat) == (1, 7) and clock.calls == 1 + 7
    with_more = measure(clock.work, repeat=10)
    assert with_more.repeat == 10


def test_queued_and_done_times_single_calls_on_the_simulated_device() -> None:
    queued, done = device_bench.queued_and_done("sim", 32, repeat=7, sp=sp)
    assert queued.repeat == done.repeat == 7 and queued.number == done.number == 1
    # the simulated device is synchronous: the clock after synchronize() reads later still
    assert all(q <= d for q, d in zip(queued.times, done.times))


def _epoch_copies(on_device: bool, read_loss: bool):
    model, opt, loader = device_bench.loop_setup("sim", on_device, sp=sp)
    with sp.simulated.counting() as copies:
        total = device_bench.train_epoch(model, opt, loader, "sim", read_loss, sp=sp)
    return copies, total, len(loader)


def test_the_loops_of_chapter_7_copy_what_the_notebook_says() -> None:
    moved, _, steps = _epoch_copies(on_device=False, read_loss=False)
    resident, kept, _ = _epoch_copies(on_device=True, read_loss=False)
    read, _, _ = _epoch_copies(on_device=True, read_loss=True)
    assert steps == device_bench.LOOP_IMAGES // device_bench.LOOP_BATCH == 16
    batch = device_bench.LOOP_BATCH
    pixels = batch * 784 * np.dtype(np.float32).itemsize  # one batch of images
    labels = batch * np.dtype(np.int64).itemsize
    # each batch moved: its pixels and labels go in at every step …
    rest = moved.bytes_to_device - steps * (pixels + labels)
    # … the data set on the device: only the loader's index of each batch (drawn on the
    # host, once for the images and once for the labels), and the same odd scalars
    assert resident.bytes_to_device - steps * 2 * labels == rest
    assert 0 <= rest < steps * 8  # the odd scalar: a few bytes a step at most
    # cross_entropy's two read-backs per step, in both loops: its bounds check and its count
    assert moved.to_host == resident.to_host == 2 * steps
    # .item() at every step: one copy back more per step; the sum kept on the device: one
    assert read.to_host == resident.to_host + steps
    with sp.simulated.counting() as once:
        kept.item()
    assert (once.to_host, once.to_device) == (1, 0)


def test_the_loops_are_timed_per_step_at_least_seven_epochs() -> None:
    timings = device_bench.loop_timings("sim", ["data set on the device"], repeat=7, sp=sp)
    (timing,) = timings.values()
    assert timing.repeat >= 7 and timing.number == 1 and timing.best > 0


@pytest.mark.parametrize("repeat", [7])
def test_the_comparison_table_reports_best_and_worst_and_the_speed_up(repeat) -> None:
    cpu, dev = Timing((2e-3,) * repeat), Timing((1e-3, 4e-3) + (2e-3,) * (repeat - 2))
    c = device_bench.Comparison(
        device="cuda:0",
        label="cuda (a GPU)",
        cpu_label="cpu",
        note="",
        repeat=repeat,
        matmul={256: (cpu, dev)},
        step={4096: (Timing((0.5,) * repeat), Timing((0.04,) * repeat))},
        loops={"each batch moved": (cpu, dev)},
        sync=(Timing((1e-5,) * repeat), dev),
        sync_size=256,
    )
    assert c.speedup(4096) == pytest.approx(12.5)
    text = device_bench.format_comparison(c)
    assert "best of ≥ 7 timings" in text and "training step (784-128-10, Adam)" in text
    assert "1.000 (4)" in text  # the device's best, its worst in brackets
    assert "goal: training step at batch 4096 ≥ 10× the CPU — met (12.5×)" in text
    assert "each batch moved" in text and "after synchronize()" in text


def test_measure_together_takes_the_timings_in_turns(monkeypatch) -> None:
    clock = FakeClock(per_call=5e-2)  # slow: one call per timing, 7 rounds fill 0.1 s
    monkeypatch.setattr(device_bench.time, "perf_counter", clock)
    order: list[str] = []

    def call(name: str):
        def fn() -> None:
            order.append(name)
            clock.work()

        return fn

    timed = device_bench.measure_together(
        {"cpu": (call("cpu"), lambda: None), "sim": (call("sim"), lambda: None)},
        repeat=7,
        warmup=1,
    )
    assert timed["cpu"].repeat == timed["sim"].repeat == 7
    # each warmed up and timed once alone, then six rounds, one timing of each in turn
    assert order == ["cpu", "cpu", "sim", "sim"] + ["cpu", "sim"] * 6


def test_the_conv_rows_time_chapter_8_on_both_devices() -> None:
    """``python -m autograder.bench device``'s chapter 8 rows (small sizes here): a conv
    layer and a LeNet step, each timed on the CPU and on the device, in the table with its
    speed-up. Nothing about the times is asserted, only what was timed."""
    from autograder.bench_conv import Layer
    from solutions import ch08_conv
    from support import conv_device_bench

    layer = Layer("small", 2, 3, 8, 4, 5, 2)  # n, c, h, o, k, p: a 5×5 kernel, padding 2
    rows = conv_device_bench.conv_comparison(ch08_conv, "sim", 2, layer=layer, batch=4)
    assert list(rows) == ["conv2d fwd+bwd 2×3×8², 5×5", "LeNet training step, batch 4"]
    for cpu, device in rows.values():
        assert len(cpu.times) >= 2 and len(device.times) >= 2
    table = conv_device_bench.format_conv(rows, "sim").splitlines()
    assert len(table) == 3 and table[1].startswith("conv2d") and table[2].endswith("×")

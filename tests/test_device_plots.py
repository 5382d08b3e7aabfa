"""Chapter 7's pictures (support/device_plots.py) without a display: the copies per training
step, and the CPU-against-a-device benchmark, which names the simulated device as "not a
GPU" wherever it appears. Small synthetic numbers only; nothing here imports a chapter."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from support.device_bench import Timing
from support.device_plots import SIM_LABEL, device_label, plot_benchmark, plot_transfers
from tests.headless import headless_figures, matplotlib, plt, renders  # noqa: F401 (an autouse fixture)


def _texts(fig) -> str:
    """Every title, axis label and legend entry of the figure, as one string."""
    parts = [fig._suptitle.get_text() if fig._suptitle else ""]
    for ax in fig.axes:
        parts += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
        legend = ax.get_legend()
        if legend is not None:
            parts += [t.get_text() for t in legend.get_texts()]
    return "\n".join(parts)


def test_device_labels_never_call_the_simulated_device_a_gpu() -> None:
    assert device_label("cpu") == "CPU (NumPy)"
    assert (
        device_label("sim") == device_label("sim:0") == SIM_LABEL == "simulated device (not a GPU)"
    )
    assert device_label("cuda:0") == "GPU (CuPy)"
    assert device_label("cuda", gpu_name="NVIDIA H200") == "NVIDIA H200 (CuPy)"
    assert device_label(SimpleNamespace(type="sim", index=0)) == SIM_LABEL  # a device object


SIZES, BATCHES = [64, 128, 256], [64, 4096]


def test_benchmark_draws_one_line_per_device_and_bars_with_the_speed_up() -> None:
    matmul = {"cpu": [1e-4, 8e-4, 6e-3], "cuda:0": [2e-5, 3e-5, 6e-5]}
    steps = {"cpu": [2e-3, 0.1], "cuda:0": [1e-3, 0.005]}
    fig = plot_benchmark(SIZES, matmul, BATCHES, steps, gpu_name="NVIDIA H200")
    left, right = fig.axes
    assert left.get_xscale() == "log" and left.get_yscale() == "log"
    lines = {line.get_label(): line for line in left.get_lines()}
    assert set(lines) == {"CPU (NumPy)", "NVIDIA H200 (CuPy)"}
    assert np.allclose(lines["NVIDIA H200 (CuPy)"].get_ydata(), matmul["cuda:0"])
    assert list(lines["CPU (NumPy)"].get_xdata()) == SIZES
    heights = [p.get_height() for p in right.patches]
    assert np.allclose(heights, [2.0, 100.0, 1.0, 5.0])  # milliseconds, cpu's bars first
    speed_ups = [t.get_text() for t in right.texts]
    assert speed_ups == ["2×", "20×"]  # over the CPU, on the device's bars only
    assert [t.get_text() for t in right.get_xticklabels()] == ["batch 64", "batch 4096"]
    assert "simulated" not in _texts(fig) and "NVIDIA H200" in fig._suptitle.get_text()
    renders(fig)


def test_benchmark_of_the_simulated_device_says_it_is_not_a_gpu() -> None:
    fig = plot_benchmark(
        SIZES,
        {"cpu": [1e-4, 8e-4, 6e-3], "sim": [1e-4, 9e-4, 7e-3]},
        BATCHES,
        {"cpu": [2e-3, 0.1], "sim": [3e-3, 0.1]},
    )
    title = fig._suptitle.get_text()
    assert "simulated device (not a GPU)" in title and "say nothing about a GPU" in title
    for ax in fig.axes:
        assert SIM_LABEL in [t.get_text() for t in ax.get_legend().get_texts()]
        assert "GPU (CuPy)" not in _texts(fig)
    renders(fig)


def test_benchmark_without_the_cpu_draws_no_speed_up_and_refuses_mismatched_times() -> None:
    fig = plot_benchmark(SIZES, {}, BATCHES, {"sim": [3e-3, 0.1]})
    assert len(fig.axes[1].texts) == 0 and SIM_LABEL in fig._suptitle.get_text()
    with pytest.raises(ValueError, match="matmul of 'cpu' has 2 times, not 3"):
        plot_benchmark(SIZES, {"cpu": [1.0, 2.0]}, BATCHES, {})
    with pytest.raises(ValueError, match="step of 'sim' has 1 times, not 2"):
        plot_benchmark(SIZES, {}, BATCHES, {"sim": [1.0]})
    with pytest.raises(ValueError, match="no times"):
        plot_benchmark(SIZES, {}, BATCHES, {})


def test_transfers_per_step_from_counters_or_dicts() -> None:
    moved = SimpleNamespace(to_device=30, to_host=20, bytes_to_device=2_000_000, bytes_to_host=90)
    resident = {"to_device": 30, "to_host": 20, "bytes_to_device": 10_000, "bytes_to_host": 90}
    fig = plot_transfers({"moved": moved, "resident": resident}, steps=10)
    left, right = fig.axes
    assert [p.get_height() for p in left.patches] == [3.0, 3.0, 2.0, 2.0]
    assert [p.get_height() for p in right.patches] == [200_000.0, 1_000.0, 9.0, 9.0]
    assert [t.get_text() for t in right.texts] == ["200 kB", "1 kB", "9 B", "9 B"]
    assert [t.get_text() for t in left.get_xticklabels()] == ["moved", "resident"]
    assert SIM_LABEL in fig._suptitle.get_text()
    assert [t.get_text() for t in left.get_legend().get_texts()] == [
        "host → device",
        "device → host",
    ]
    renders(fig)


def test_transfers_refuse_runs_without_counts() -> None:
    with pytest.raises(ValueError, match="run 'a' has no bytes_to_host"):
        plot_transfers({"a": {"to_device": 1, "to_host": 1, "bytes_to_device": 4}})
    with pytest.raises(ValueError, match="no runs"):
        plot_transfers({})
    with pytest.raises(ValueError, match="steps must be ≥ 1"):
        plot_transfers(
            {
                "a": SimpleNamespace(
                    **dict.fromkeys(["to_device", "to_host", "bytes_to_device", "bytes_to_host"], 0)
                )
            },
            steps=0,
        )


def test_benchmark_takes_device_bench_dicts_in_the_order_of_the_sizes() -> None:
    matmul = {"cpu": {256: 3e-3, 64: 1e-4, 128: 8e-4}, "sim": [1e-4, 9e-4, 7e-3]}
    fig = plot_benchmark(SIZES, matmul, BATCHES, {"cpu": {4096: 0.1, 64: 2e-3}})
    cpu = fig.axes[0].get_lines()[0]
    assert np.allclose(cpu.get_ydata(), [1e-4, 8e-4, 3e-3])
    assert np.allclose([p.get_height() for p in fig.axes[1].patches], [2.0, 100.0])
    with pytest.raises(ValueError, match=r"matmul of 'cpu' has no time for \[256\]"):
        plot_benchmark(SIZES, {"cpu": {64: 1.0, 128: 1.0}}, BATCHES, {})


def test_benchmark_of_timings_draws_the_best_with_a_whisker_up_to_the_worst() -> None:
    def timing(*ms: float) -> Timing:
        return Timing(tuple(t / 1e3 for t in ms))

    matmul = {
        "cpu": {64: timing(0.1, 0.3, 0.2, 0.1, 0.5, 0.1, 0.1), 128: timing(*[0.8] * 7)},
        "sim": {64: timing(0.2, 0.2, 0.4, 0.2, 0.2, 0.2, 0.2), 128: timing(*[0.9] * 8)},
    }
    steps = {"cpu": {64: timing(2, 3, 2, 2, 2, 9, 2)}, "sim": {64: timing(4, 4, 5, 4, 4, 4, 4)}}
    fig = plot_benchmark([64, 128], matmul, [64], steps)
    left, right = fig.axes
    lines = {line.get_label(): line for line in left.get_lines()}
    assert np.allclose(lines["CPU (NumPy)"].get_ydata(), [1e-4, 8e-4])  # the best
    (cpu_whiskers, sim_whiskers) = [c for c in left.collections if c.get_segments()]
    # only the first size has a spread; its whisker runs from the best up to the worst
    ((cpu_x, cpu_low), (cpu_x2, cpu_high)) = cpu_whiskers.get_segments()[0].tolist()
    ((sim_x, sim_low), (_, sim_high)) = sim_whiskers.get_segments()[0].tolist()
    assert len(cpu_whiskers.get_segments()) == len(sim_whiskers.get_segments()) == 1
    assert (cpu_low, cpu_high, sim_low, sim_high) == pytest.approx((1e-4, 5e-4, 2e-4, 4e-4))
    # beside their size, on either side of it, so neither hides the other
    assert cpu_x == cpu_x2 and cpu_x < 64 < sim_x and sim_x / 64 == pytest.approx(64 / cpu_x)
    assert np.allclose([p.get_height() for p in right.patches], [2.0, 4.0])  # best, in ms
    tops = [seg[1][1] for c in right.collections for seg in c.get_segments()]
    assert np.allclose(sorted(tops), [5.0, 9.0])  # the bars' whiskers end at the worst
    assert [t.get_text() for t in right.texts] == ["0.5×"]  # best against best
    assert "best of ≥ 7 timings" in fig._suptitle.get_text()
    renders(fig)

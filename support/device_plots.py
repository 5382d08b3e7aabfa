"""Chapter 7's pictures: what crosses between host and device in a training loop, and the
CPU against a device, timed.

    device_label(device, gpu_name=None)     how a device is named in a picture: the
                                            simulated device always as "simulated device
                                            (not a GPU)"
    plot_transfers(runs)                    copies and bytes per training step, host →
                                            device and back, one pair of bars per loop
    plot_benchmark(sizes, matmul, batch_sizes, steps, gpu_name=None)
                                            seconds per matmul against its size, and
                                            milliseconds per training step at each batch
                                            size, one line or bar per device, with the
                                            speed-up over the CPU; each the best of its
                                            timings, a whisker up to the worst

A picture whose numbers come from the simulated device says so in its title and legend:
the simulated device runs NumPy on the host, so its times say nothing about a GPU.

Each returns the matplotlib Figure and never calls ``plt.show()``. Support never imports
the chapters: times are plain numbers or ``device_bench.Timing``s (anything with ``best``,
``worst`` and ``repeat``), and a run's copies are anything with the four
counts of ``simulated.Transfers`` (``to_device``, ``to_host``, ``bytes_to_device``,
``bytes_to_host``) as attributes or keys.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SIM_LABEL = "simulated device (not a GPU)"
COLOURS = {"cpu": "#6b7280", "cuda": "#059669", "sim": "#d97706"}
_COUNTS = ("to_device", "to_host", "bytes_to_device", "bytes_to_host")


def _type(device: Any) -> str:
    """A device's type from its name or a device object: "cuda:0" → "cuda"."""
    return str(getattr(device, "type", device)).split(":", 1)[0]


def device_label(device: Any, gpu_name: str | None = None) -> str:
    """How a picture names ``device`` (a name like "cuda:0", or a device object): the host
    is "CPU (NumPy)", a GPU "GPU (CuPy)" or "<gpu_name> (CuPy)", and the simulated device
    always "simulated device (not a GPU)"."""
    kind = _type(device)
    if kind == "cpu":
        return "CPU (NumPy)"
    if kind == "sim":
        return SIM_LABEL
    if kind == "cuda":
        return f"{gpu_name or 'GPU'} (CuPy)"
    return str(device)


def _shows_sim(devices: Sequence[Any]) -> bool:
    return any(_type(d) == "sim" for d in devices)


def _counts(name: str, run: Any) -> dict[str, float]:
    get = run.get if isinstance(run, Mapping) else lambda key: getattr(run, key, None)
    counts = {key: get(key) for key in _COUNTS}
    missing = [key for key, value in counts.items() if value is None]
    if missing:
        raise ValueError(f"plot_transfers: run {name!r} has no {', '.join(missing)}")
    return {key: float(value) for key, value in counts.items()}


def _bytes(n: float) -> str:
    """A byte count for a label: "9 B", "1.03 kB", "201 kB", "3.2 MB"."""
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.3g} B"


def plot_transfers(runs: Mapping[str, Any], *, steps: int = 1) -> Figure:
    """For each ``name: copies`` (a loop's copies between host and simulated device over
    ``steps`` training steps), two bars per panel: host → device and device → host, as
    copies per step (left) and bytes per step (right, log scale: a batch is kilobytes, a
    flag a byte). The title says the copies were counted on the simulated device.
    Returns the Figure."""
    import matplotlib.pyplot as plt

    if not runs:
        raise ValueError("plot_transfers: no runs to draw")
    if steps < 1:
        raise ValueError(f"plot_transfers: steps must be ≥ 1, got {steps}")
    rows = {name: _counts(name, run) for name, run in runs.items()}
    names = list(rows)
    x = np.arange(len(names))
    fig, (left, right) = plt.subplots(1, 2, figsize=(11.0, 3.8))
    top = {}
    for ax, keys, ylabel, text in (
        (left, ("to_device", "to_host"), "copies per step", lambda v: f"{v:.3g}"),
        (right, ("bytes_to_device", "bytes_to_host"), "bytes per step", _bytes),
    ):
        for k, (key, colour, label) in enumerate(
            zip(keys, ("#2563eb", "#dc2626"), ("host → device", "device → host"))
        ):
            values = np.array([rows[name][key] / steps for name in names])
            bars = ax.bar(x + (k - 0.5) * 0.38, values, width=0.38, color=colour, label=label)
            ax.bar_label(bars, labels=[text(v) for v in values], fontsize="small")
            top[ax] = max(top.get(ax, 0.0), float(values.max()))
        ax.set_xticks(x, names)
        ax.set_ylabel(ylabel)
        ax.grid(True, axis="y", alpha=0.3)
    left.set_ylim(0, 1.15 * max(top[left], 1.0))
    right.set_yscale("symlog", linthresh=1.0)
    right.set_ylim(0, 10 * max(top[right], 1.0))  # room for the labels on a log scale
    left.legend(fontsize="small")
    fig.suptitle(f"copies between host and {SIM_LABEL}, counted per training step")
    fig.tight_layout()
    return fig


def _figure(value: Any) -> tuple[float, float, int]:
    """(best, worst, timings) of one figure: a number (one timing), or a timing with
    ``best``, ``worst`` and ``repeat`` (``device_bench.Timing``)."""
    if hasattr(value, "best"):
        return float(value.best), float(value.worst), int(getattr(value, "repeat", 1))
    return float(value), float(value), 1


def _seconds(
    what: str, device: Any, values: Any, keys: Sequence[int]
) -> tuple[np.ndarray, np.ndarray, int]:
    """One device's (best, worst) seconds in the order of ``keys``, and the fewest timings
    behind one of them: ``values`` a sequence, or ``{size: seconds}`` (as
    ``support.device_bench`` gives them), each a number or a ``Timing``."""
    if isinstance(values, Mapping):
        missing = [k for k in keys if k not in values]
        if missing:
            raise ValueError(f"plot_benchmark: {what} of {device!r} has no time for {missing}")
        values = [values[k] for k in keys]
    if hasattr(values, "best") or np.ndim(values) == 0:
        values = [values]
    figures = [_figure(v) for v in values]
    if len(figures) != len(keys):
        raise ValueError(
            f"plot_benchmark: {what} of {device!r} has {len(figures)} times, not {len(keys)}"
        )
    best = np.array([f[0] for f in figures], dtype=np.float64)
    worst = np.array([f[1] for f in figures], dtype=np.float64)
    return best, worst, min(f[2] for f in figures)


def plot_benchmark(
    sizes: Sequence[int],
    matmul: Mapping[Any, Any],
    batch_sizes: Sequence[int],
    steps: Mapping[Any, Any],
    *,
    gpu_name: str | None = None,
) -> Figure:
    """The CPU against a device, timed. Left: seconds per ``n × n`` matmul for each ``n``
    in ``sizes``, one line per device in ``matmul`` (``device: seconds`` in the order of
    ``sizes``, or ``device: {n: seconds}`` as ``device_bench.matmul_timings`` gives them),
    log-log. Right: milliseconds per training step at each of ``batch_sizes``, one bar per
    device in ``steps``, each device's bar labelled with its speed-up over "cpu" (when
    "cpu" is timed). A figure is a number or a ``device_bench.Timing``: the line or bar is
    its best, and a whisker reaches up to its worst, so the spread of the timings shows;
    the speed-up is best against best. Devices are named by ``device_label``; with the
    simulated device among them the title says "simulated device (not a GPU)". Returns the
    Figure."""
    import matplotlib.pyplot as plt

    if not matmul and not steps:
        raise ValueError("plot_benchmark: no times to draw")
    devices = list(dict.fromkeys([*matmul, *steps]))
    fig, (left, right) = plt.subplots(1, 2, figsize=(11.5, 4.4))
    repeats = []

    n = np.asarray(sizes, dtype=np.float64)
    for k, (device, seconds) in enumerate(matmul.items()):
        best, worst, repeat = _seconds("matmul", device, seconds, list(sizes))
        repeats.append(repeat)
        colour = COLOURS.get(_type(device))
        left.plot(n, best, "o-", color=colour, label=device_label(device, gpu_name))
        spread = worst > best
        if spread.any():  # the whiskers: from the best up to the worst timing, each device's
            # a little to the side (a tenth of a doubling apart), so none hides another's
            at = n[spread] * 2.0 ** (0.1 * (k - (len(matmul) - 1) / 2))
            left.vlines(at, best[spread], worst[spread], color=colour, linewidth=1.2)
            left.plot(at, worst[spread], "_", color=colour, markersize=8)
    left.set_xscale("log", base=2)
    left.set_xticks(list(sizes), [str(s) for s in sizes])
    left.minorticks_off()
    left.set_yscale("log")
    left.set_xlabel("n (an n × n matrix times an n × n matrix, float32)")
    left.set_ylabel("seconds per matmul")
    left.set_title("matmul")
    left.grid(True, which="both", alpha=0.3)
    if matmul:
        left.legend(fontsize="small")

    x = np.arange(len(batch_sizes))
    width = 0.8 / max(len(steps), 1)
    host = next((d for d in steps if _type(d) == "cpu"), None)
    base = None if host is None else _seconds("step", host, steps[host], list(batch_sizes))[0]
    tallest = 0.0
    for k, (device, seconds) in enumerate(steps.items()):
        best, worst, repeat = _seconds("step", device, seconds, list(batch_sizes))
        repeats.append(repeat)
        colour = COLOURS.get(_type(device))
        offset = (k - (len(steps) - 1) / 2) * width
        bars = right.bar(
            x + offset,
            1e3 * best,
            width,
            color=colour,
            yerr=[np.zeros_like(best), 1e3 * (worst - best)],
            capsize=3,
            ecolor="#1f2937",
            label=device_label(device, gpu_name),
        )
        tallest = max(tallest, 1e3 * float(worst.max()))
        if base is not None and device != host:
            right.bar_label(
                bars, labels=[f"{b / r:.2g}×" for b, r in zip(base, best)], fontsize="small"
            )
    right.set_xticks(x, [f"batch {b}" for b in batch_sizes])
    right.set_yscale("log")
    if tallest > 0:
        right.set_ylim(top=3 * tallest)  # room for the speed-ups and the legend
    right.set_ylabel("milliseconds per training step")
    right.set_title(
        "the capstone's training step" + (" (speed-up over the CPU)" if base is not None else "")
    )
    right.grid(True, axis="y", which="both", alpha=0.3)
    if steps:
        right.legend(fontsize="small")

    others = [device_label(d, gpu_name) for d in devices if _type(d) != "cpu"]
    title = "CPU against " + (", ".join(others) if others else "nothing else")
    fewest = min(repeats)
    if fewest > 1:
        title += f": each point or bar the best of ≥ {fewest} timings, its whisker up to the worst"
    if _shows_sim(devices):
        title += "\n(the simulated device is NumPy on the host: its times say nothing about a GPU)"
    fig.suptitle(title, fontsize="medium")
    fig.tight_layout()
    return fig

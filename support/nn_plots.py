"""Chapter 5's pictures: a fitted line, what each layer of a deep network sees, and the
trade that activation checkpointing makes.

    plot_regression_fit(x, y, lines)        the data (x, y) and the lines y = w·x + b
    plot_layer_histograms(values)           per initialisation, one histogram per layer
                                            of the magnitudes a hook collected, on a log
                                            axis, each layer on a line of its own
    plot_layer_scale(scales)                one number per layer (a standard deviation),
                                            one curve per initialisation, log scale
    plot_checkpoint_trade(depths, peak_mb, seconds, forwards)
                                            memory, time (the fastest of the repeats and
                                            their spread) and the layer forwards run against
                                            depth, one curve per way of running (plain,
                                            checkpointed)

Each returns the matplotlib Axes or Figure and never calls ``plt.show()``. Support never
imports the chapters: the values are NumPy arrays (``tensor.data``) and plain numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .plots import _CLASS_COLOURS, _new_axes

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_STYLES = ("o-", "s--", "^-.", "d:", "v-")


def plot_regression_fit(
    x: Any, y: Any, lines: Mapping[str, tuple[float, float]], ax: Any = None
) -> Any:
    """The points (x_i, y_i) and, for each ``label: (w, b)``, the line y = w·x + b across
    the range of x. Returns the Axes."""
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    y = np.asarray(y, dtype=np.float64).reshape(-1)
    if x.shape != y.shape:
        raise ValueError(
            f"plot_regression_fit: x and y need one value per point, got {x.size} and {y.size}"
        )
    if ax is None:
        ax = _new_axes((5.0, 3.6))
    ax.scatter(x, y, s=12, color="#9ca3af", label="data")
    ends = np.array([x.min(), x.max()]) if x.size else np.array([0.0, 1.0])
    for (label, (w, b)), style in zip(lines.items(), ("-", "--", ":", "-.")):
        ax.plot(ends, float(w) * ends + float(b), style, linewidth=2.0, label=label)
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return ax


def _layers(values: Mapping[str, Sequence[Any]], function: str) -> dict[str, list[np.ndarray]]:
    """``values`` with every layer's values a flat float64 array; refuses an empty one."""
    if not values:
        raise ValueError(f"{function}: no rows to draw (pass {{name: [one array per layer]}})")
    rows = {}
    for name, layers in values.items():
        arrays = [np.asarray(v, dtype=np.float64).reshape(-1) for v in layers]
        if not arrays or any(a.size == 0 for a in arrays):
            raise ValueError(f"{function}: row {name!r} has no layers or an empty layer")
        rows[name] = arrays
    return rows


def plot_layer_histograms(
    values: Mapping[str, Sequence[Any]], *, bins: int = 60, title: str | None = None
) -> Figure:
    """One panel per row of ``values`` (an initialisation, say), and in it one histogram per
    layer, layer 1 at the bottom, each on a line of its own: nothing is drawn over anything
    else. A histogram counts the **magnitudes** |value| in bins of equal width on a log
    scale, the same bins in every panel, from the smallest nonzero magnitude of all to the
    largest (so no value falls outside), and shows the fraction of that layer's values in
    each bin: a signal that shrinks by 10 per layer moves one decade left per line. Within a
    panel every layer has the same height scale (the tallest bar of the panel fills its
    line). Values exactly 0 have no place on a log axis: a layer that has some says how many
    at its left. ``plot_layer_scale`` gives the spreads as numbers. Returns the Figure."""
    import matplotlib.pyplot as plt

    rows = _layers(values, "plot_layer_histograms")
    magnitudes = {name: [np.abs(a) for a in layers] for name, layers in rows.items()}
    nonzero = [m[m > 0] for layers in magnitudes.values() for m in layers]
    nonzero = [m for m in nonzero if m.size] or [np.ones(1)]
    lo = float(min(m.min() for m in nonzero))
    hi = float(max(m.max() for m in nonzero))
    if hi <= lo:  # one magnitude everywhere: a decade around it
        lo, hi = lo / np.sqrt(10.0), hi * np.sqrt(10.0)
    edges = np.logspace(np.log10(lo), np.log10(hi), bins + 1)
    edges[0], edges[-1] = lo, hi  # exactly: the smallest and largest fall inside
    depth = max(len(layers) for layers in rows.values())
    colours = plt.get_cmap("viridis_r")(np.linspace(0.3, 1.0, depth))
    fig, axes = plt.subplots(
        1,
        len(rows),
        figsize=(4.0 * len(rows) + 0.4, 0.34 * depth + 1.4),
        squeeze=False,
        sharex=True,
        sharey=True,
        layout="constrained",
    )
    for ax, (name, layers) in zip(axes[0], magnitudes.items()):
        fractions = [np.histogram(m[m > 0], bins=edges)[0] / m.size for m in layers]
        tallest = max(float(f.max()) for f in fractions) or 1.0
        for k, (m, f) in enumerate(zip(layers, fractions), start=1):
            ax.stairs(
                k + 0.9 * f / tallest,
                edges,
                baseline=k,
                fill=True,
                color=colours[k - 1],
                alpha=0.85,
                label=f"layer {k}",
            )
            ax.axhline(k, color="#d1d5db", linewidth=0.5, zorder=0)
            zeros = int(np.count_nonzero(m == 0))
            if zeros:
                ax.annotate(
                    f"{zeros / m.size:.0%} are 0",
                    (0.01, k + 0.45),
                    xycoords=("axes fraction", "data"),
                    fontsize=7,
                    va="center",
                )
        ax.set_title(name)
        ax.set_xscale("log")
        ax.set_xlabel("|value|, log scale")
        ax.grid(True, axis="x", alpha=0.3)
    axes[0][0].set_xlim(lo, hi)
    axes[0][0].set_ylim(0.8, depth + 1.1)
    axes[0][0].set_yticks(np.arange(1, depth + 1))
    axes[0][0].set_ylabel("layer (each line: the fraction of its values per bin)")
    if title:
        fig.suptitle(title)
    return fig


def plot_layer_scale(
    scales: Mapping[str, Sequence[float]], ax: Any = None, *, ylabel: str = "standard deviation"
) -> Any:
    """``scales[name][k]`` at layer k + 1, one curve per name, on a log scale (a value of 0
    is left out: it has no place there). Returns the Axes."""
    if ax is None:
        ax = _new_axes((5.5, 3.4))
    for (name, values), style in zip(scales.items(), _STYLES * 4):
        v = np.asarray(values, dtype=np.float64).reshape(-1)
        layer = np.arange(1, v.size + 1)
        shown = v > 0
        ax.semilogy(layer[shown], v[shown], style, markersize=4, label=name)
    ax.set_xlabel("layer")
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return ax


def _fastest_and_median(values: Sequence[Any]) -> tuple[np.ndarray, np.ndarray, int]:
    """Per depth, the fastest and the median of its repeats (a single number is both), and
    the fewest repeats any depth had."""
    runs = [np.atleast_1d(np.asarray(v, dtype=np.float64)).reshape(-1) for v in values]
    if any(r.size == 0 for r in runs):
        raise ValueError("plot_checkpoint_trade: a depth has no timings")
    return (
        np.array([r.min() for r in runs]),
        np.array([np.median(r) for r in runs]),
        min(r.size for r in runs),
    )


def plot_checkpoint_trade(
    depths: Sequence[int],
    peak_mb: Mapping[str, Sequence[float]],
    seconds: Mapping[str, Sequence[Any]],
    forwards: Mapping[str, Sequence[int]] | None = None,
    *,
    memory_label: str = "peak memory (MB)",
    time_label: str = "forward + backward (ms)",
) -> Figure:
    """Panels against the depth of the network: the memory (MB) of a forward and backward
    pass (``memory_label`` says which), its time, and, given ``forwards``, how many layer
    forwards it ran (the work, free of the noise in a time). One curve per way of running
    it; the same names in every mapping, one value per depth.

    ``seconds[name][k]`` is one time or the times of every repeat at depth k: then the
    marker is the fastest and a bar runs from it up to the median, the spread of the
    repeats (the panel's title says how many). Times are drawn in milliseconds. Returns the
    Figure."""
    import matplotlib.pyplot as plt

    depths = np.asarray(depths)
    panels = {memory_label: peak_mb, time_label: seconds}
    if forwards is not None:
        panels["layer forwards run"] = forwards
    for label, runs in panels.items():
        if runs.keys() != peak_mb.keys():
            raise ValueError(
                f"plot_checkpoint_trade: every mapping must name the same runs, got "
                f"{sorted(peak_mb)} and {sorted(runs)} ({label})"
            )
        for name, values in runs.items():
            if len(values) != depths.size:
                raise ValueError(
                    f"plot_checkpoint_trade: run {name!r} needs one value per depth "
                    f"({depths.size}) in {label}, got {len(values)}"
                )
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 3.6), squeeze=False)
    colours = [_CLASS_COLOURS[0], _CLASS_COLOURS[1], "#059669", "#7c3aed", "#d97706"]
    # a small sideways shift per run, so that equal values do not hide one another
    shift = (depths.max() - depths.min() or 1) * 0.02
    for ax, (label, runs) in zip(axes[0], panels.items()):
        for k, ((name, values), style, colour) in enumerate(
            zip(runs.items(), _STYLES * 4, colours * 4)
        ):
            x = depths + (k - (len(runs) - 1) / 2) * shift
            if runs is seconds:
                fastest, median, repeats = _fastest_and_median(values)
                ax.errorbar(
                    x,
                    fastest * 1e3,
                    yerr=[np.zeros_like(fastest), (median - fastest) * 1e3],
                    fmt=style,
                    color=colour,
                    capsize=3,
                    label=name,
                )
                if repeats > 1:
                    ax.set_title(f"fastest of {repeats} (bar: up to the median)", fontsize=9)
            else:
                ax.plot(x, np.asarray(values, dtype=np.float64), style, color=colour, label=name)
        ax.set_xlabel("depth (layers)")
        ax.set_ylabel(label)
        ax.set_ylim(bottom=0)
        ax.set_xticks(depths)
        ax.grid(True, alpha=0.3)
    axes[0][0].legend(fontsize="small")
    fig.tight_layout()
    return fig

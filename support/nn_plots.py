"""Chapter 5's pictures: a fitted line, what each layer of a deep network sees, and the
trade that activation checkpointing makes.

    plot_regression_fit(x, y, lines)        the data (x, y) and the lines y = w·x + b
    plot_layer_histograms(values)           per initialisation, one histogram per layer
                                            of the values a hook collected
    plot_layer_scale(scales)                one number per layer (a standard deviation),
                                            one curve per initialisation, log scale
    plot_checkpoint_trade(depths, peak_mb, seconds, forwards)
                                            peak memory, time (and the layer forwards run)
                                            against depth, one curve per way of running
                                            (plain, checkpointed)

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
    values: Mapping[str, Sequence[Any]], *, bins: int = 50, title: str | None = None
) -> Figure:
    """One panel per row of ``values`` (an initialisation, say), in which each layer's values
    are drawn as a histogram outline, coloured from light (first layer) to dark (last), as
    the colour bar says. Each panel has its own x range, the 99.9th percentile of |value|
    over its layers: the rows may differ by orders of magnitude, which is the point, and a
    few extreme values would squeeze the rest into one bin. ``plot_layer_scale`` gives the
    spreads as numbers. Returns the Figure."""
    import matplotlib.pyplot as plt
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import BoundaryNorm, ListedColormap

    rows = _layers(values, "plot_layer_histograms")
    depth = max(len(layers) for layers in rows.values())
    cmap = plt.get_cmap("viridis_r")
    colours = cmap(np.linspace(0.15, 1.0, depth))
    fig, axes = plt.subplots(
        1, len(rows), figsize=(4.0 * len(rows) + 0.8, 3.2), squeeze=False, layout="constrained"
    )
    for ax, (name, layers) in zip(axes[0], rows.items()):
        top = float(np.percentile(np.abs(np.concatenate(layers)), 99.9)) or 1.0
        for k, a in enumerate(layers):
            counts, edges = np.histogram(np.clip(a, -top, top), bins=bins, range=(-top, top))
            ax.stairs(counts / a.size, edges, color=colours[k])
        ax.set_title(name)
        ax.set_xlabel("value")
        ax.ticklabel_format(axis="x", style="sci", scilimits=(-2, 3))
    axes[0][0].set_ylabel("fraction of values")
    edges = np.arange(depth + 1) + 0.5
    scale = ScalarMappable(BoundaryNorm(edges, depth), ListedColormap(colours))
    scale.set_array([])
    bar = fig.colorbar(scale, ax=axes[0].tolist(), ticks=np.arange(1, depth + 1), pad=0.01)
    bar.set_label("layer")
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


def plot_checkpoint_trade(
    depths: Sequence[int],
    peak_mb: Mapping[str, Sequence[float]],
    seconds: Mapping[str, Sequence[float]],
    forwards: Mapping[str, Sequence[int]] | None = None,
) -> Figure:
    """Panels against the depth of the network: the peak memory (MB) of a forward and
    backward pass, its time (s), and, given ``forwards``, how many layer forwards it ran
    (the work, free of the noise in a time). One curve per way of running it; the same
    names in every mapping, one value per depth. Returns the Figure."""
    import matplotlib.pyplot as plt

    depths = np.asarray(depths)
    panels = {"peak memory (MB)": peak_mb, "forward + backward (ms)": seconds}
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
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 3.5), squeeze=False)
    colours = [_CLASS_COLOURS[0], _CLASS_COLOURS[1], "#059669", "#7c3aed", "#d97706"]
    for ax, (label, runs) in zip(axes[0], panels.items()):
        scale = 1e3 if label.endswith("(ms)") else 1.0
        for (name, values), style, colour in zip(runs.items(), _STYLES * 4, colours * 4):
            ax.plot(
                depths,
                np.asarray(values, dtype=np.float64) * scale,
                style,
                color=colour,
                label=name,
            )
        ax.set_xlabel("depth (layers)")
        ax.set_ylabel(label)
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
    axes[0][0].legend(fontsize="small")
    fig.tight_layout()
    return fig

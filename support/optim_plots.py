"""Chapter 6's pictures: optimizers on a 2-D loss surface, learning-rate schedules, clipping,
and the capstone trained with each optimizer.

    rosenbrock(x, y)                        (a − x)² + b·(y − x²)²: NumPy arrays, or any
                                            numbers or tensors with + − * and **
    plot_trajectories(f, paths)             contours of f(x, y) and one path per optimizer
    plot_trajectory_panels(f, paths)        the same, one panel per optimizer
    plot_schedules(lrs, momentum)           one panel per schedule: its lr against the step
                                            (and, where given, its momentum or β₁)
    plot_grad_norms(norms, max_norm=, losses=)
                                            the gradient norm per step of each run, log
                                            scale (and its loss per step)
    plot_optimizer_curves(losses, accuracy, steps_per_epoch)
                                            a training loss per step (and its centred
                                            mean) and a test accuracy per epoch, one
                                            curve per optimizer, each its own line style
    centred_mean(values, window)            the mean of the window centred on each step

Each returns the matplotlib Axes or Figure and never calls ``plt.show()``. Support never
imports the chapters: paths, rates and curves are NumPy arrays or lists of plain numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .plots import _new_axes

if TYPE_CHECKING:
    from matplotlib.figure import Figure

COLOURS = ("#2563eb", "#dc2626", "#059669", "#7c3aed", "#d97706", "#0891b2", "#db2777")


def rosenbrock(x: Any, y: Any, a: float = 1.0, b: float = 100.0) -> Any:
    """Rosenbrock's valley, f(x, y) = (a − x)² + b·(y − x²)²: its minimum is 0 at (a, a²),
    at the bottom of a long, curved, flat-floored valley along y = x², whose walls are
    steep (b = 100): the gradient points mostly across the valley, not along it. Written
    with arithmetic only, so it takes NumPy arrays (a grid, for contours) and tensors alike
    (a loss to differentiate)."""
    return (a - x) ** 2 + b * (y - x * x) ** 2


def _path(name: str, points: Any) -> np.ndarray:
    path = np.asarray(points, dtype=np.float64)
    if path.ndim != 2 or path.shape[1] != 2 or len(path) == 0:
        raise ValueError(
            f"plot_trajectories: path {name!r} must be (steps, 2) points (x, y), "
            f"got shape {path.shape}"
        )
    return path


def _surface(
    ax: Any,
    f: Callable[[np.ndarray, np.ndarray], np.ndarray],
    xlim: tuple[float, float],
    ylim: tuple[float, float],
    levels: int,
    resolution: int,
) -> None:
    """Contours of f at ``levels`` log-spaced heights (a valley's floor is orders of
    magnitude below its walls), from a thousandth of the largest value up."""
    gx, gy = np.meshgrid(np.linspace(*xlim, resolution), np.linspace(*ylim, resolution))
    z = np.asarray(f(gx, gy), dtype=np.float64)
    top = max(float(z.max()), 1e-12)
    low = max(float(z.min()), 1e-3 * top)
    ax.contour(
        gx, gy, z, levels=np.geomspace(low, top, levels), cmap="viridis", linewidths=0.8, alpha=0.4
    )
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_xlabel("x")
    ax.set_ylabel("y")


def _draw_path(
    ax: Any, f: Callable, name: str, path: np.ndarray, colour: str, width: float = 1.4
) -> None:
    """The path as a line ``width`` points wide, a circle at its start, a cross at its
    end; the label gives the last value of f."""
    end = float(f(path[-1, 0], path[-1, 1]))
    ax.plot(
        path[:, 0],
        path[:, 1],
        "-",
        color=colour,
        linewidth=width,
        solid_capstyle="round",
        label=f"{name} (f = {end:.2g})",
    )
    ax.plot(*path[0], "o", color=colour, markersize=5)
    ax.plot(*path[-1], "x", color=colour, markersize=9, markeredgewidth=2)


def plot_trajectories(
    f: Callable[[np.ndarray, np.ndarray], np.ndarray],
    paths: Mapping[str, Any],
    ax: Any = None,
    *,
    xlim: tuple[float, float] = (-2.0, 2.0),
    ylim: tuple[float, float] = (-1.0, 3.0),
    minimum: tuple[float, float] | None = (1.0, 1.0),
    levels: int = 15,
    resolution: int = 300,
) -> Any:
    """Contours of ``f`` over ``xlim`` × ``ylim`` at ``levels`` log-spaced heights, and for
    each ``name: points`` (an array of (x, y), one row per step, the start first) the path,
    a circle at its start and a cross at its end, labelled with its last value f(x, y).
    ``minimum`` is starred. All paths on one Axes, which it returns: where paths run
    together none hides another, since each is drawn wider than the ones drawn after it (the
    first the widest, at the bottom), so a shared stretch shows as nested bands."""
    rows = {name: _path(name, points) for name, points in paths.items()}
    if ax is None:
        ax = _new_axes((7.0, 5.6))
    _surface(ax, f, xlim, ylim, levels, resolution)
    for k, ((name, path), colour) in enumerate(zip(rows.items(), COLOURS * 4)):
        _draw_path(ax, f, name, path, colour, width=1.4 + 2.2 * (len(rows) - 1 - k))
    if minimum is not None:
        ax.plot(*minimum, "*", color="black", markersize=12, label="minimum")
    ax.legend(fontsize="small", loc="upper left")
    return ax


def plot_trajectory_panels(
    f: Callable[[np.ndarray, np.ndarray], np.ndarray],
    paths: Mapping[str, Any],
    *,
    columns: int = 3,
    xlim: tuple[float, float] = (-2.0, 2.0),
    ylim: tuple[float, float] = (-1.0, 3.0),
    minimum: tuple[float, float] | None = (1.0, 1.0),
    levels: int = 15,
    resolution: int = 200,
) -> Figure:
    """``plot_trajectories`` with one panel per path (``columns`` wide), for paths that
    would hide each other on one Axes; the panel's title names the optimizer and gives
    its last value of f. Returns the Figure."""
    import matplotlib.pyplot as plt

    rows = {name: _path(name, points) for name, points in paths.items()}
    if not rows:
        raise ValueError("plot_trajectory_panels: no paths to draw")
    n_rows = -(-len(rows) // columns)
    fig, axes = plt.subplots(
        n_rows,
        columns,
        figsize=(3.8 * columns, 3.3 * n_rows),
        squeeze=False,
        sharex=True,
        sharey=True,
    )
    for k, ((name, path), colour) in enumerate(zip(rows.items(), COLOURS * 4)):
        ax = axes[k // columns][k % columns]
        _surface(ax, f, xlim, ylim, levels, resolution)
        _draw_path(ax, f, name, path, colour)
        if minimum is not None:
            ax.plot(*minimum, "*", color="black", markersize=10)
        ax.set_title(ax.get_lines()[0].get_label(), fontsize="medium")
    for k in range(len(rows), n_rows * columns):
        axes[k // columns][k % columns].set_visible(False)
    fig.tight_layout()
    return fig


def plot_schedules(
    lrs: Mapping[str, Sequence[float]],
    momentum: Mapping[str, Sequence[float]] | None = None,
    *,
    columns: int = 3,
) -> Figure:
    """One panel per ``name: rates`` (``rates[t]`` the learning rate used at step t), the
    panels ``columns`` wide. For a name also in ``momentum``, its momentum (or Adam's β₁)
    per step is drawn dashed against a second axis on the right. Returns the Figure."""
    import matplotlib.pyplot as plt

    momentum = dict(momentum or {})
    if not lrs:
        raise ValueError("plot_schedules: no schedules to draw")
    unknown = sorted(set(momentum) - set(lrs))
    if unknown:
        raise ValueError(f"plot_schedules: momentum for unknown schedule(s) {unknown}")
    rows = -(-len(lrs) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(4.0 * columns, 2.8 * rows), squeeze=False)
    for k, ((name, rates), colour) in enumerate(zip(lrs.items(), COLOURS * 4)):
        ax = axes[k // columns][k % columns]
        rates = np.asarray(rates, dtype=np.float64).reshape(-1)
        ax.plot(np.arange(rates.size), rates, color=colour, linewidth=1.6)
        ax.set_title(name)
        ax.set_xlabel("step")
        ax.set_ylabel("learning rate", color=colour)
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        if name in momentum:
            values = np.asarray(momentum[name], dtype=np.float64).reshape(-1)
            if values.size != rates.size:
                raise ValueError(
                    f"plot_schedules: {name!r} has {rates.size} rates but "
                    f"{values.size} momentum values"
                )
            right = ax.twinx()
            right.plot(np.arange(values.size), values, "--", color="#6b7280", linewidth=1.4)
            right.set_ylabel("momentum (β₁)", color="#6b7280")
    for k in range(len(lrs), rows * columns):
        axes[k // columns][k % columns].set_visible(False)
    fig.tight_layout()
    return fig


def plot_grad_norms(
    norms: Mapping[str, Sequence[float]],
    *,
    max_norm: float | None = None,
    losses: Mapping[str, Sequence[float]] | None = None,
) -> Figure:
    """The total gradient norm ‖g‖ of each step, one curve per run, on a log scale, with a
    dashed line at ``max_norm`` (the clipping threshold). A run whose list is shorter than
    the longest stopped early (its numbers overflowed): its last point is marked with a
    cross. Given ``losses`` (the same names), a second panel draws each run's loss per
    step. Returns the Figure."""
    import matplotlib.pyplot as plt

    if not norms:
        raise ValueError("plot_grad_norms: no runs to draw")
    panels = {"gradient norm ‖g‖": norms}
    if losses is not None:
        if losses.keys() != norms.keys():
            raise ValueError(
                f"plot_grad_norms: losses must name the same runs as norms, got "
                f"{sorted(losses)} and {sorted(norms)}"
            )
        panels["loss"] = losses
    longest = max(len(v) for v in norms.values())
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 3.6), squeeze=False)
    for ax, (label, runs) in zip(axes[0], panels.items()):
        for (name, values), colour in zip(runs.items(), COLOURS * 4):
            v = np.asarray(values, dtype=np.float64).reshape(-1)
            shown = np.isfinite(v) & (v > 0)
            steps = np.arange(v.size)
            ax.semilogy(steps[shown], v[shown], color=colour, linewidth=1.4, label=name)
            if len(norms[name]) < longest and shown.any():
                last = steps[shown][-1]
                ax.semilogy(last, v[last], "x", color=colour, markersize=9, markeredgewidth=2)
        if max_norm is not None and runs is norms:
            ax.axhline(
                max_norm,
                linestyle="--",
                color="#6b7280",
                linewidth=1.0,
                label=f"max_norm = {max_norm:g}",
            )
        ax.set_xlabel("step")
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


STYLES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1)), (0, (1, 1)), (0, (8, 2)))
MARKERS = ("o", "s", "^", "D", "v", "P", "X")


def centred_mean(values: Any, window: int) -> np.ndarray:
    """The mean of the ``window`` values centred on each step (``window`` odd): step t
    averages steps t − h … t + h, h = (window − 1) / 2. Near either end the window shrinks
    on both sides alike (the first and last values stand alone), so the mean never lags
    behind the values or runs ahead of them, as a trailing mean does."""
    if window < 1 or window % 2 == 0:
        raise ValueError(f"centred_mean: window must be an odd number ≥ 1, got {window}")
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    sums = np.concatenate([[0.0], np.cumsum(v)])
    t = np.arange(v.size)
    half = np.minimum(np.minimum(t, v.size - 1 - t), (window - 1) // 2)
    return (sums[t + half + 1] - sums[t - half]) / (2 * half + 1)


def plot_optimizer_curves(
    losses: Mapping[str, Sequence[float]],
    accuracy: Mapping[str, Sequence[float]],
    steps_per_epoch: int,
    *,
    window: int | None = None,
) -> Figure:
    """Two panels, one curve per optimizer: on the left the training loss of every step
    (faint) and its centred mean over ``window`` steps (``centred_mean``; by default the
    odd number nearest a quarter of an epoch), against the epoch (step / ``steps_per_epoch``,
    step 1 first); on the right the test accuracy after each epoch. Each optimizer has its
    own colour, line style and marker (the markers shrink from the first run to the last), so
    two runs that draw the same curve are both seen: a dashed line over a solid one, a small
    marker inside a larger one. Both mappings name the same optimizers. Returns the
    Figure."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    if not losses:
        raise ValueError("plot_optimizer_curves: no runs to draw")
    if losses.keys() != accuracy.keys():
        raise ValueError(
            f"plot_optimizer_curves: losses and accuracy must name the same runs, got "
            f"{sorted(losses)} and {sorted(accuracy)}"
        )
    if steps_per_epoch < 1:
        raise ValueError(
            f"plot_optimizer_curves: steps_per_epoch must be ≥ 1, got {steps_per_epoch}"
        )
    window = window or 2 * (steps_per_epoch // 8) + 1
    fig, (left, right) = plt.subplots(1, 2, figsize=(11.0, 4.0))
    styles = zip(COLOURS * 4, STYLES * 5, MARKERS * 5)
    for k, ((name, values), (colour, style, marker)) in enumerate(zip(losses.items(), styles)):
        v = np.asarray(values, dtype=np.float64).reshape(-1)
        epochs = np.arange(1, v.size + 1) / steps_per_epoch
        left.plot(epochs, v, color=colour, linewidth=0.5, alpha=0.2)
        left.plot(
            epochs,
            centred_mean(v, window),
            linestyle=style,
            color=colour,
            linewidth=1.6,
            label=name,
        )
        acc = 100 * np.asarray(accuracy[name], dtype=np.float64).reshape(-1)
        right.plot(
            np.arange(1, acc.size + 1),
            acc,
            linestyle=style,
            marker=marker,
            color=colour,
            linewidth=1.6,
            markersize=4 + 1.5 * (len(losses) - 1 - k),
            markerfacecolor="none" if k % 2 == 0 else colour,
            label=f"{name} ({acc[-1]:.1f}%)",
        )
    left.set_yscale("log")
    left.set_xlabel("epoch")
    left.set_ylabel("training loss")
    left.set_title(f"each step (faint) and the centred mean of {window} steps", fontsize="medium")
    left.grid(True, alpha=0.3)
    left.legend(fontsize="small", handlelength=3)
    right.set_xlabel("epoch")
    right.set_ylabel("test accuracy (%)")
    right.set_title("measured after each epoch", fontsize="medium")
    right.grid(True, alpha=0.3)
    right.legend(fontsize="small", handlelength=3)
    right.xaxis.set_major_locator(MaxNLocator(integer=True))
    fig.tight_layout()
    return fig

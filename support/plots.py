"""Plots the notebooks share: a binary classifier's decision boundary, and training curves."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

_CLASS_COLOURS = ("#2563eb", "#dc2626")  # class 0 blue, class 1 red
_REGION_COLOURS = ("#bfdbfe", "#fecaca")


def _new_axes(figsize: tuple[float, float]) -> Any:
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=figsize)
    return ax


def plot_decision_boundary(
    predict: Callable[[np.ndarray], Any],
    X: np.ndarray,
    y: np.ndarray,
    ax: Any = None,
    *,
    resolution: int = 200,
    margin: float = 0.5,
) -> Any:
    """Shade the plane by the class ``predict`` gives it, and draw the points ``X`` over it.

    ``y`` holds two labels, -1 and +1 or 0 and 1; the legend names them as they are
    (``y = -1``, ``y = +1``). ``predict`` takes an (m, 2) float64 array of points and returns
    m scores; a score > 0 means the larger label (a logit, or a tanh output). It is called
    once, on a ``resolution`` by ``resolution`` grid that covers ``X`` plus ``margin`` on each
    side. The regions are filled from the scores themselves, interpolated between grid
    points, and the boundary (score = 0) is drawn as a line, so it is smooth wherever the
    scores are. Returns the matplotlib Axes.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"plot_decision_boundary: X must have shape (n, 2), got {X.shape}")
    if y.shape != (X.shape[0],):
        raise ValueError(
            f"plot_decision_boundary: y must have shape ({X.shape[0]},) to match X, got {y.shape}"
        )
    if resolution < 2:
        raise ValueError(f"plot_decision_boundary: resolution must be >= 2, got {resolution}")

    low, high = X.min(axis=0) - margin, X.max(axis=0) + margin
    xx, yy = np.meshgrid(
        np.linspace(low[0], high[0], resolution), np.linspace(low[1], high[1], resolution)
    )
    grid = np.column_stack([xx.ravel(), yy.ravel()])
    scores = np.asarray(predict(grid), dtype=np.float64).reshape(-1)
    if scores.shape != (grid.shape[0],):
        raise ValueError(
            f"plot_decision_boundary: predict must return one score per point, "
            f"({grid.shape[0]},) for a ({grid.shape[0]}, 2) input; got shape {scores.shape}"
        )

    if ax is None:
        ax = _new_axes((5.0, 4.0))
    scores = scores.reshape(xx.shape)
    top = max(float(np.abs(scores).max()), 1.0)
    ax.contourf(xx, yy, scores, levels=[-top - 1, 0, top + 1], colors=_REGION_COLOURS, alpha=0.8)
    if scores.min() < 0 < scores.max():
        ax.contour(xx, yy, scores, levels=[0], colors="#1f2937", linewidths=1.0)
    classes = np.unique(y)
    signed = classes.min() < 0
    for k, cls in enumerate(classes):
        mask = y == cls
        ax.scatter(
            X[mask, 0],
            X[mask, 1],
            s=14,
            color=_CLASS_COLOURS[k] if len(classes) <= 2 else None,
            edgecolors="white",
            linewidths=0.4,
            label=f"y = {cls:+g}" if signed else f"y = {cls:g}",
        )
    ax.set_xlim(low[0], high[0])
    ax.set_ylim(low[1], high[1])
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.legend(loc="upper right", fontsize="small")
    return ax


def plot_curve(
    values: Sequence[float],
    ax: Any = None,
    *,
    xlabel: str = "step",
    ylabel: str = "loss",
    first: int = 0,
) -> Any:
    """Plot ``values[i]`` at x = ``first`` + i (a step or an epoch number), with a dot per
    value when there are few of them; return the Axes."""
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    if ax is None:
        ax = _new_axes((5.0, 3.0))
    marker = "o" if len(values) <= 60 else None
    ax.plot(first + np.arange(len(values)), values, linewidth=1.2, marker=marker, markersize=3)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    return ax


def plot_loss(history: Sequence[float], ax: Any = None) -> Any:
    """Plot the loss recorded at each training step (``history[i]`` at step i); return Axes."""
    return plot_curve(history, ax)

"""Chapter 6's pictures (support/optim_plots.py) without a display: the Rosenbrock surface
with optimizer paths, the schedules, the gradient norms with and without clipping, and the
capstone's curves per optimizer. Small synthetic arrays only; nothing here imports a
chapter."""

from __future__ import annotations

import numpy as np
import pytest

from support.optim_plots import (
    centred_mean,
    plot_grad_norms,
    plot_optimizer_curves,
    plot_schedules,
    plot_trajectories,
    plot_trajectory_panels,
    rosenbrock,
)
from tests.headless import headless_figures, matplotlib, plt, renders  # noqa: F401 (an autouse fixture)


def test_rosenbrock_is_zero_only_at_its_minimum_and_takes_arrays_and_numbers() -> None:
    assert rosenbrock(1.0, 1.0) == 0.0
    assert rosenbrock(2.0, 4.0, a=2.0) == 0.0  # the minimum moves to (a, a²)
    assert rosenbrock(-1.5, 2.0) == pytest.approx(2.5**2 + 100 * 0.25**2)
    gx, gy = np.meshgrid(np.linspace(-2, 2, 41), np.linspace(-1, 3, 41))
    z = rosenbrock(gx, gy)
    assert z.shape == gx.shape and z.min() == 0.0
    assert np.unravel_index(z.argmin(), z.shape) == (20, 30)  # y = 1 and x = 1 on the grid


def _paths() -> dict[str, np.ndarray]:
    t = np.linspace(0.0, 1.0, 30)[:, None]
    start, end = np.array([-1.5, 2.0]), np.array([1.0, 1.0])
    return {"straight": start + t * (end - start), "short": np.array([[-1.5, 2.0], [-1.0, 1.0]])}


def test_trajectories_draw_each_path_with_its_last_value_over_contours() -> None:
    paths = _paths()
    ax = plot_trajectories(rosenbrock, paths)
    assert ax.collections  # the contours
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert set(lines) >= {"straight (f = 0)", f"short (f = {rosenbrock(-1.0, 1.0):.2g})"}
    xs, ys = lines["straight (f = 0)"].get_data()
    assert np.allclose(np.c_[xs, ys], paths["straight"])
    assert "minimum" in lines and ax.get_xlim() == (-2.0, 2.0)
    # a path drawn first is wider than the ones drawn over it: a shared stretch stays seen
    widths = [line.get_linewidth() for line in ax.get_lines() if "(f =" in line.get_label()]
    assert len(widths) == 2 and widths[0] > widths[1]
    renders(ax.figure)


def test_trajectory_panels_one_panel_per_path_and_no_empty_panels() -> None:
    fig = plot_trajectory_panels(rosenbrock, _paths(), columns=3)
    shown = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in shown] == ["straight (f = 0)", "short (f = 4)"]
    assert len(fig.axes) == 3 and not fig.axes[2].get_visible()
    renders(fig)


@pytest.mark.parametrize("points", [np.zeros((5, 3)), np.zeros(4), np.zeros((0, 2))])
def test_trajectories_refuse_paths_that_are_not_points(points) -> None:
    with pytest.raises(ValueError, match=r"path 'bad' must be \(steps, 2\)"):
        plot_trajectories(rosenbrock, {"bad": points})


def test_schedules_one_panel_each_and_momentum_on_a_second_axis() -> None:
    steps = np.arange(50)
    lrs = {"step": 0.1 * 0.5 ** (steps // 10), "cosine": 0.05 * (1 + np.cos(np.pi * steps / 50))}
    momentum = {"cosine": 0.85 + 0.1 * steps / 50}
    fig = plot_schedules(lrs, momentum, columns=2)
    titled = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in titled] == ["step", "cosine"]
    assert np.allclose(titled[0].get_lines()[0].get_ydata(), lrs["step"])
    assert len(fig.axes) == 3  # two panels and the momentum's twin axis
    twin = next(ax for ax in fig.axes if not ax.get_title())
    assert np.allclose(twin.get_lines()[0].get_ydata(), momentum["cosine"])
    renders(fig)


def test_schedules_refuse_momentum_that_does_not_match() -> None:
    with pytest.raises(ValueError, match="unknown schedule"):
        plot_schedules({"a": [0.1, 0.1]}, {"b": [0.9, 0.9]})
    with pytest.raises(ValueError, match="2 rates but 3 momentum values"):
        plot_schedules({"a": [0.1, 0.1]}, {"a": [0.9, 0.9, 0.9]})
    with pytest.raises(ValueError, match="no schedules"):
        plot_schedules({})


def test_grad_norms_log_scale_threshold_and_the_run_that_overflowed() -> None:
    norms = {"plain": [40.0, 140.0, 5e3, np.inf], "clipped": [40.0, 30.0, 20.0, 9.0, 5.0, 3.0]}
    losses = {"plain": [2.0, 5.0, 1e3, np.nan], "clipped": [2.0, 1.5, 1.0, 0.5, 0.2, 0.1]}
    fig = plot_grad_norms(norms, max_norm=10.0, losses=losses)
    left, right = fig.axes
    assert left.get_yscale() == "log" and right.get_yscale() == "log"
    curve, cross, curve_clipped, threshold = left.get_lines()
    assert list(curve.get_xdata()) == [0, 1, 2]  # inf is not drawn
    assert list(cross.get_xdata()) == [2] and cross.get_marker() == "x"  # stopped early
    assert len(curve_clipped.get_xdata()) == 6
    assert list(threshold.get_ydata()) == [10.0, 10.0]
    assert [line.get_label() for line in right.get_lines()][::2] == ["plain", "clipped"]
    renders(fig)


def test_grad_norms_refuse_losses_of_other_runs() -> None:
    with pytest.raises(ValueError, match="same runs"):
        plot_grad_norms({"a": [1.0]}, losses={"b": [1.0]})
    assert len(plot_grad_norms({"a": [1.0, 2.0]}).axes) == 1


def _centred_by_hand(values: list[float], window: int) -> list[float]:
    """The centred mean, one step at a time: the window shrinks alike on both sides."""
    out = []
    for t in range(len(values)):
        h = min((window - 1) // 2, t, len(values) - 1 - t)
        out.append(float(np.mean(values[t - h : t + h + 1])))
    return out


def test_centred_mean_averages_both_sides_and_never_lags() -> None:
    values = [5.0, 4.0, 3.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 2.0]
    for window in (1, 3, 5, 7):
        assert np.allclose(centred_mean(values, window), _centred_by_hand(values, window))
    # a spike at the start leaves the mean 3 steps later with window 7, not 7 steps later
    spike = [50.0] + [1.0] * 20
    mean = centred_mean(spike, 7)
    assert mean[0] == 50.0 and mean[3] > 1.0 and np.allclose(mean[4:], 1.0)
    assert np.allclose(centred_mean(spike[::-1], 7), mean[::-1])  # no direction
    for window in (0, 2, 4):
        with pytest.raises(ValueError, match="window must be an odd number"):
            centred_mean(values, window)


def test_optimizer_curves_in_epochs_with_a_centred_mean_and_percent() -> None:
    steps_per_epoch = 4
    losses = {"adam": [4.0, 2.0, 2.0, 0.0, 1.0, 1.0, 1.0, 1.0], "sgd": [1.0] * 8}
    accuracy = {"adam": [0.5, 0.9], "sgd": [0.6, 0.8]}
    fig = plot_optimizer_curves(losses, accuracy, steps_per_epoch, window=3)
    left, right = fig.axes
    raw, mean = left.get_lines()[:2]
    assert np.allclose(raw.get_xdata(), np.arange(1, 9) / 4)  # step 4 ends epoch 1
    assert np.allclose(raw.get_ydata(), losses["adam"])
    assert np.allclose(mean.get_ydata(), [4.0, 8 / 3, 4 / 3, 1.0, 2 / 3, 1.0, 1.0, 1.0])
    assert mean.get_label() == "adam" and "centred mean of 3 steps" in left.get_title()
    adam_accuracy = right.get_lines()[0]
    assert list(adam_accuracy.get_xdata()) == [1, 2]
    assert np.allclose(adam_accuracy.get_ydata(), [50.0, 90.0])
    assert adam_accuracy.get_label() == "adam (90.0%)"
    assert left.get_xlabel() == right.get_xlabel() == "epoch"
    assert left.get_ylabel() and right.get_ylabel()
    renders(fig)


def test_optimizer_curves_that_coincide_are_drawn_so_both_show() -> None:
    same = [2.0, 1.5, 1.0, 0.8, 0.7, 0.6]
    runs = {"adam": same, "adamw": list(same), "sgd": [2.0] * 6, "rmsprop": [1.0] * 6}
    accuracy = {name: [0.8, 0.9] for name in runs}
    fig = plot_optimizer_curves(runs, accuracy, 3)
    left, right = fig.axes
    means = [line for line in left.get_lines() if line.get_label() in runs]
    assert len({str(line.get_linestyle()) for line in means}) == len(runs)
    points = right.get_lines()
    assert len({line.get_marker() for line in points}) == len(runs)
    sizes = [line.get_markersize() for line in points]
    assert sizes == sorted(sizes, reverse=True) and len(set(sizes)) == len(runs)
    # the default window: an odd number of steps, about a quarter of an epoch
    fig = plot_optimizer_curves({"a": [1.0] * 200}, {"a": [0.5]}, 63)
    assert "centred mean of 15 steps" in fig.axes[0].get_title()


def test_optimizer_curves_refuse_runs_that_do_not_match() -> None:
    with pytest.raises(ValueError, match="same runs"):
        plot_optimizer_curves({"a": [1.0]}, {"b": [0.5]}, 1)
    with pytest.raises(ValueError, match="steps_per_epoch must be ≥ 1"):
        plot_optimizer_curves({"a": [1.0]}, {"a": [0.5]}, 0)

"""Chapter 5's pictures (support/nn_plots.py) without a display: the fitted line, the
per-layer histograms and scales of a deep network, and the checkpointing trade. Small
synthetic arrays only; nothing here imports a chapter."""

from __future__ import annotations

import numpy as np
import pytest

from support.nn_plots import (
    plot_checkpoint_trade,
    plot_layer_histograms,
    plot_layer_scale,
    plot_regression_fit,
)
from tests.headless import headless_figures, matplotlib, plt, renders  # noqa: F401 (an autouse fixture)


def test_the_fitted_lines_go_through_their_own_points() -> None:
    x = np.linspace(-1.0, 1.0, 20)
    ax = plot_regression_fit(x, 2 * x - 1, {"start": (0.5, 0.0), "fit": (2.0, -1.0)})
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert set(lines) == {"start", "fit"}
    xs, ys = lines["fit"].get_data()
    assert np.allclose(ys, 2 * np.asarray(xs) - 1) and min(xs) == -1.0 and max(xs) == 1.0
    renders(ax.figure)


def test_the_fit_refuses_x_and_y_of_different_lengths() -> None:
    with pytest.raises(ValueError, match="one value per point, got 3 and 2"):
        plot_regression_fit([1, 2, 3], [1, 2], {})


def test_layer_histograms_one_panel_per_row_one_outline_per_layer() -> None:
    rng = np.random.default_rng(0)
    rows = {
        "wide": [rng.normal(0, 1e3, (50, 4)) for _ in range(3)],  # any shape, flattened
        "narrow": [rng.normal(0, 1e-6 * 10**-k, 200) for k in range(3)],
    }
    fig = plot_layer_histograms(rows, bins=20, title="activations")
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in panels] == ["wide", "narrow"]
    for ax in panels:
        assert len(ax.patches) == 3  # one outline (stairs) per layer
        heights = [p.get_data().values.sum() for p in ax.patches]
        assert np.allclose(heights, 1.0)  # fractions: all values counted, none outside
    # each panel has its own range: the narrow one is not squeezed into the wide one's
    assert panels[1].get_xlim()[1] < 1e-3 < panels[0].get_xlim()[1]
    assert fig.get_suptitle() == "activations"
    renders(fig)


@pytest.mark.parametrize(
    ("values", "message"),
    [({}, "no rows to draw"), ({"a": []}, "row 'a' has no layers"), ({"a": [[]]}, "empty")],
)
def test_layer_histograms_refuse_nothing_to_draw(values, message) -> None:
    with pytest.raises(ValueError, match=message):
        plot_layer_histograms(values)


def test_layer_scale_is_on_a_log_axis_and_leaves_out_zeros() -> None:
    ax = plot_layer_scale({"a": [1.0, 1e-3, 1e-6], "b": [2.0, 0.0, 1.0]})
    assert ax.get_yscale() == "log"
    a, b = ax.get_lines()
    assert list(a.get_xdata()) == [1, 2, 3] and list(b.get_xdata()) == [1, 3]
    renders(ax.figure)


def test_checkpoint_trade_draws_one_curve_per_run_in_each_panel() -> None:
    depths = [8, 16, 32]
    runs = ("plain", "checkpointed")
    peak = {"plain": [2.0, 4.0, 8.0], "checkpointed": [1.5, 2.0, 3.0]}
    seconds = {"plain": [0.01, 0.02, 0.04], "checkpointed": [0.013, 0.026, 0.052]}
    forwards = {"plain": [8, 16, 32], "checkpointed": [16, 32, 64]}
    fig = plot_checkpoint_trade(depths, peak, seconds, forwards)
    assert len(fig.axes) == 3
    for ax in fig.axes:
        assert [line.get_label() for line in ax.get_lines()] == list(runs)
    ms = fig.axes[1].get_lines()[0].get_ydata()
    assert np.allclose(ms, [10.0, 20.0, 40.0])  # seconds drawn as milliseconds
    assert len(plot_checkpoint_trade(depths, peak, seconds).axes) == 2
    renders(fig)


def test_checkpoint_trade_refuses_runs_that_do_not_match() -> None:
    peak = {"plain": [1.0, 2.0]}
    with pytest.raises(ValueError, match="must name the same runs"):
        plot_checkpoint_trade([8, 16], peak, {"other": [0.1, 0.2]})
    with pytest.raises(ValueError, match="one value per depth"):
        plot_checkpoint_trade([8, 16], peak, {"plain": [0.1]})

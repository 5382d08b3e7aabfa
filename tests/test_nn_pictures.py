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


def test_layer_histograms_one_line_per_layer_each_at_its_own_magnitude() -> None:
    """Layer k of a row holds values of magnitude about 10^-k (any sign, any shape): its
    tallest bar is the bin around 10^-k, every layer on its own line, on one log axis."""
    rng = np.random.default_rng(0)
    scales = {"wide": [1e3, 1e2, 1e1], "narrow": [1e-6, 1e-7, 1e-8]}
    rows = {
        name: [s * rng.choice([-1, 1], (50, 4)) * rng.uniform(0.9, 1.1, (50, 4)) for s in row]
        for name, row in scales.items()
    }
    fig = plot_layer_histograms(rows, bins=40, title="activations")
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in panels] == ["wide", "narrow"]
    for ax, row in zip(panels, scales.values()):
        assert ax.get_xscale() == "log"
        assert len(ax.patches) == len(row)  # one histogram per layer
        for k, (patch, scale) in enumerate(zip(ax.patches, row), start=1):
            heights, edges, baseline = patch.get_data()
            assert baseline == k and heights.min() >= k and heights.max() <= k + 1  # its line
            top = np.argmax(heights)
            assert edges[top] <= scale * 1.1 and edges[top + 1] >= scale * 0.9
    # one axis for all: the smallest and the largest magnitude are inside it
    smallest = min(np.abs(a).min() for layers in rows.values() for a in layers)
    largest = max(np.abs(a).max() for layers in rows.values() for a in layers)
    for ax in panels:
        lo, hi = ax.get_xlim()
        assert lo <= smallest and hi >= largest
        assert ax.get_xlabel() and ax.xaxis.get_offset_text().get_text() == ""
    assert panels[0].get_ylabel() and fig.get_suptitle() == "activations"
    renders(fig)


def test_layer_histograms_count_every_value_and_say_how_many_are_zero() -> None:
    """The bars of a layer add up to its nonzero values (as a fraction of all), and the
    zeros, which a log axis cannot show, are written beside it."""
    values = np.array([0.0, 0.0, 0.0, 1.0, 2.0, 4.0, 8.0, 0.5] * 10)  # 3 in 8 are 0
    fig = plot_layer_histograms({"relu": [values, values + 1.0]}, bins=12)
    ax = fig.axes[0]
    for k, (patch, layer) in enumerate(zip(ax.patches, [values, values + 1.0]), start=1):
        heights, edges, _ = patch.get_data()
        nonzero = np.abs(layer[layer != 0])
        fractions = np.histogram(nonzero, bins=edges)[0] / layer.size
        assert np.isclose(fractions.sum(), nonzero.size / layer.size)  # none outside the bins
        drawn = heights - k  # each line scaled to the panel's tallest bar
        assert np.allclose(drawn / drawn.max(), fractions / fractions.max())
    texts = [t.get_text() for t in ax.texts]
    assert texts == ["38% are 0"]  # layer 1 only: layer 2 has none
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
    fig = plot_checkpoint_trade(depths, peak, seconds, forwards, memory_label="kept (MB)")
    assert len(fig.axes) == 3
    memory, time, work = fig.axes
    for ax in (memory, work):
        assert [line.get_label() for line in ax.get_lines()] == list(runs)
    assert memory.get_ylabel() == "kept (MB)"
    assert [c.get_label() for c in time.containers] == list(runs)
    ms = time.containers[0].lines[0].get_ydata()
    assert np.allclose(ms, [10.0, 20.0, 40.0])  # seconds drawn as milliseconds
    # equal values do not hide each other: the runs sit a little apart
    xs = [line.get_xdata() for line in work.get_lines()]
    assert np.all(np.abs(xs[0] - xs[1]) > 0.1)
    assert len(plot_checkpoint_trade(depths, peak, seconds).axes) == 2
    renders(fig)


def test_checkpoint_trade_draws_the_fastest_repeat_and_a_bar_up_to_the_median() -> None:
    depths = [8, 16]
    repeats = {"plain": [[0.003, 0.001, 0.002, 0.009, 0.004], [0.010, 0.012, 0.011]]}
    fig = plot_checkpoint_trade(depths, {"plain": [1.0, 2.0]}, repeats)
    container = fig.axes[1].containers[0]
    assert np.allclose(container.lines[0].get_ydata(), [1.0, 10.0])  # the fastest, in ms
    (bars,) = container.lines[2]
    spans = [segment[:, 1] for segment in bars.get_segments()]
    assert np.allclose(spans, [[1.0, 3.0], [10.0, 11.0]])  # fastest .. median
    assert fig.axes[1].get_title() == "fastest of 3 (bar: up to the median)"
    renders(fig)


def test_checkpoint_trade_refuses_runs_that_do_not_match() -> None:
    peak = {"plain": [1.0, 2.0]}
    with pytest.raises(ValueError, match="must name the same runs"):
        plot_checkpoint_trade([8, 16], peak, {"other": [0.1, 0.2]})
    with pytest.raises(ValueError, match="one value per depth"):
        plot_checkpoint_trade([8, 16], peak, {"plain": [0.1]})

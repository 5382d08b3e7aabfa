"""Chapter 4's given pictures and trace (support/engine_plots.py, ch04 trace.py) without a
display: the graph drawing before and after a backward that freed it, the Hessian field of
a flat function, and the trace table's marks on a broken engine."""

from __future__ import annotations

import numpy as np
import pytest

from solutions import ch04_backward as sp
from solutions.ch04_backward import engine, trace
from support.engine_plots import draw_tensor_graph, plot_hessian_field

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")


def _graph():
    x = sp.tensor(2.0, dtype=sp.float64, requires_grad=True)
    w = sp.tensor(3.0, dtype=sp.float64, requires_grad=True)
    y = x * x
    out = y * w + y
    return out, {"x": x, "w": w, "y": y, "out": out}


def test_the_graph_is_drawn_before_and_after_a_backward_that_freed_it() -> None:
    out, names = _graph()
    before = draw_tensor_graph(out, names)
    out.backward()  # releases the nodes: their non-leaf inputs become Edges
    after = draw_tensor_graph(out, names)
    texts = [t.get_text() for t in after.texts]
    assert any("freed" in t for t in texts) and len(after.patches) == len(before.patches)
    plt.close("all")


def test_the_hessian_field_of_a_flat_function_draws_without_dividing_by_zero() -> None:
    points = np.array([[0.0, 0.0], [1.0, 0.0]])
    ax = plot_hessian_field(lambda X, Y: X + 2 * Y, points, np.zeros((2, 2, 2)))  # linear
    assert ax.figure is not None
    plt.close("all")


def test_the_trace_table_shows_a_count_that_was_too_small(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A correct engine's table has no mark; with counts that forget a second edge (as a
    count of distinct parents does), a vertex receives more than was counted: its counter
    goes below 0 in the table."""
    out, names = _graph()
    steps = trace.trace_backward(out, names)
    assert not any(s.early or s.again for s in steps)
    assert all(n >= 0 for s in steps for n in s.counts.values())
    assert [s.grad.item() for s in steps if s.popped == "x"] == [16.0]  # 2xw + 2x

    real = engine.count_dependencies

    def distinct(roots):  # each vertex counted once, however many edges reach it
        return {v: min(n, 1) for v, n in real(roots).items()}

    monkeypatch.setattr(engine, "count_dependencies", distinct)
    monkeypatch.setattr(trace, "count_dependencies", distinct)
    out, names = _graph()
    steps = trace.trace_backward(out, names)
    assert min(n for s in steps for n in s.counts.values()) < 0
    assert "-1" in trace.format_trace(steps)

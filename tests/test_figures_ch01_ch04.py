"""What the figures and counts of chapters 1–4 claim, computed with the functions the notebooks
call (issue 29): ``x * x`` is drawn as two edges; the waiting engine runs each node of §2's
ladder once; §3's counts add up to the edges; §7's memory relations (a few arrays above the
forward graph while gradients are freed, the whole graph again when they are kept, nearly
nothing left after a pass that frees the graph); and the size of chapter 1's training-step
graph that chapters 1 and 2 quote."""

from __future__ import annotations

import random

import numpy as np
import pytest

from solutions import ch01_value
from solutions import ch04_backward as sp
from solutions.ch02_tensor.function import Node
from solutions.ch04_backward.trace import watch_memory
from support.datasets import make_moons
from support.engine_plots import draw_tensor_graph
from support.graph import draw_graph

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")
from matplotlib.patches import FancyArrowPatch  # noqa: E402

# --------------------------------------------------------------------------------------------
# §1 of chapter 4: a tensor used twice by one operation is two edges, and two arrows
# --------------------------------------------------------------------------------------------


def _arrows(ax) -> list:
    return [p for p in ax.patches if isinstance(p, FancyArrowPatch)]


def _example():
    x = sp.tensor(2.0, requires_grad=True)
    w = sp.tensor(3.0, requires_grad=True)
    y = x * x
    z = y * w
    out = z + y
    return out, {"x": x, "w": w, "y": y, "z": z, "out": out}


def test_the_graph_of_x_times_x_has_an_arrow_per_edge() -> None:
    """One arrow from each operation to its result, and one per input of each operation:
    y = x * x gives x two arrows into y's circle."""
    out, names = _example()
    ops = [names[k].grad_fn for k in ("y", "z", "out")]
    expected = len(ops) + sum(len(node.inputs) for node in ops)  # 3 + (2 + 2 + 2)
    ax = draw_tensor_graph(out, names)
    arrows = _arrows(ax)
    assert len(arrows) == expected == 9
    plt.close("all")


class _Value:
    """A stand-in for chapter 1's Value; ``_prev`` as given (a tuple, or micrograd's set)."""

    def __init__(self, data, children=(), op="", *, as_set=False) -> None:
        self.data, self.grad, self._op = float(data), 0.0, op
        self._prev = set(children) if as_set else tuple(children)


@pytest.mark.parametrize("as_set, drawn", [(False, 2), (True, 1)])
def test_a_value_used_twice_is_two_bowed_arrows_unless_prev_is_a_set(as_set, drawn) -> None:
    a = _Value(3.0)
    square = _Value(9.0, (a, a), "*", as_set=as_set)  # a set cannot hold a twice
    ax = draw_graph(square)
    into_op = _arrows(ax)[1:]  # the first is the op's arrow to its result
    assert len(into_op) == drawn
    styles = {str(p.get_connectionstyle().rad) for p in into_op}
    assert len(styles) == drawn  # two arrows take two different paths: both show
    plt.close("all")


# --------------------------------------------------------------------------------------------
# §2 and §3 of chapter 4: the ladder x_{k+1} = x_k * x_k
# --------------------------------------------------------------------------------------------


def _ladder(n: int):
    leaf = sp.tensor(1.0, dtype=sp.float64, requires_grad=True)
    h = leaf
    for _ in range(n):
        h = h * h
    return leaf, h


@pytest.mark.parametrize("n", [1, 4, 12])
def test_the_waiting_engine_runs_each_node_of_the_ladder_once(n, monkeypatch) -> None:
    """§2's figure: the engine that waits for all contributions calls a node's backward n
    times on a ladder of n nodes (where passing each contribution on at once calls it
    2^n - 1 times), and the gradient is 2^n."""
    calls = []
    original = Node.backward

    def counted(self, *args, **kwargs):
        calls.append(self)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Node, "backward", counted)
    leaf, top = _ladder(n)
    top.backward()
    assert len(calls) == n and len(set(map(id, calls))) == n
    assert leaf.grad.item() == 2.0**n


def test_the_counts_of_the_ladder_are_two_but_at_the_top_and_add_up_to_the_edges() -> None:
    """§3: on a ladder of depth 4 every vertex but the top waits for two contributions, and
    the sum of the counts is the number of edges."""
    leaf, top = _ladder(4)
    counts = sp.count_dependencies([sp.vertex(top)])
    assert sorted(counts.values()) == [0, 2, 2, 2, 2]
    assert counts[sp.vertex(top)] == 0 and counts[leaf] == 2
    edges = sum(len(sp.parents(v)) for v in counts)
    assert edges == 8 == sum(counts.values())  # 4 nodes, x * x: 2 edges each


# --------------------------------------------------------------------------------------------
# §7 of chapter 4: memory during backward (watch_memory, as the notebook calls it)
# --------------------------------------------------------------------------------------------

WIDTH = 20_000
ARRAY = 8 * WIDTH  # bytes of one float64 array of the width


def _rnn_like(layers: int):
    def build():
        rng = np.random.default_rng(0)
        w = sp.tensor(1.0 + 0.5 * rng.normal(size=WIDTH), requires_grad=True)
        h = sp.tensor(rng.normal(size=WIDTH), requires_grad=True)
        for _ in range(layers):
            h = (h * w).tanh()
        return h.sum()

    return build


def test_freeing_keeps_backward_to_a_few_arrays_whatever_the_depth() -> None:
    """With the graph kept (retain_graph=True), the memory above the forward graph stays
    at a few arrays — the gradients between "received" and "popped" — at 40 layers as at
    120."""
    peaks = {}
    for layers in (40, 120):
        forward, samples = watch_memory(_rnn_like(layers), retain_graph=True)
        assert forward > 2 * layers * ARRAY  # two arrays a layer, at least
        peaks[layers] = max(samples)
    assert max(peaks.values()) < 6 * ARRAY
    assert abs(peaks[120] - peaks[40]) < ARRAY


def test_keeping_every_gradient_doubles_the_memory_and_a_freeing_pass_ends_near_nothing() -> None:
    layers = 60
    forward, keeping = watch_memory(_rnn_like(layers), retain_graph=True, keep_grads=True)
    assert 0.9 * forward < keeping[-1] < 1.1 * forward  # a gradient per array of the graph
    forward, freeing = watch_memory(_rnn_like(layers))
    assert max(freeing) < 0.1 * forward and freeing[-1] < -0.9 * forward


# --------------------------------------------------------------------------------------------
# Chapter 1 §10, quoted in chapter 2: the graph of one training step has about 2,000 Values
# --------------------------------------------------------------------------------------------


def _graph_size(root) -> int:
    """Values reachable from root: a walk of its own, not topological_order."""
    seen, todo = set(), [root]
    while todo:
        v = todo.pop()
        if id(v) not in seen:
            seen.add(id(v))
            todo.extend(v._prev)
    return len(seen)


def test_one_training_step_of_chapter_1_builds_about_2000_values() -> None:
    """Chapter 1 prints the size of one step's graph and says "about 2,000"; chapter 2's
    introduction and §10 quote it. A batch of 8 points, the model and loss of chapter 1."""
    sp1 = ch01_value
    X, classes = make_moons(n_samples=40, noise=0.1, seed=0)
    y = (2 * classes - 1).tolist()
    model = sp1.nn.MLP(2, [8, 8, 1], rng=random.Random(3))
    batch = range(8)
    scores = [model([sp1.Value(a), sp1.Value(b)]) for a, b in X[list(batch)].tolist()]
    margins = [(1 - y[i] * s).relu() for i, s in zip(batch, scores)]
    loss = sum(margins) * (1 / len(margins)) + 1e-4 * sum(p * p for p in model.parameters())
    size = _graph_size(loss)
    assert size == len(sp1.topological_order(loss))
    assert 1_800 <= size <= 2_200

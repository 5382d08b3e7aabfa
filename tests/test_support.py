"""Tests of the notebook helpers in ``support/`` (graph drawing, plots, the unbroadcast diagram,
datasets).

The graph tests use a stand-in node class, not the chapters: ``support`` is duck-typed and
never imports chapter code. Dataset tests that corrupt or write files work on a copy of
``datasets/`` under ``tmp_path``; the shipped files are only read.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import sys
import traceback
from pathlib import Path

import numpy as np
import pytest

from support import datasets  # support imports matplotlib only inside its drawing functions
from support.broadcast import (
    KEPT,
    SUMMED_AWAY,
    SUMMED_KEEPDIM,
    plot_unbroadcast,
    unbroadcast_roles,
)
from support.graph import MAX_NODES, draw_graph, trace_graph
from support.plots import plot_curve, plot_decision_boundary, plot_loss

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")  # before pyplot: no windows, no display needed
plt = pytest.importorskip("matplotlib.pyplot")
Circle = pytest.importorskip("matplotlib.patches").Circle
FancyBboxPatch = pytest.importorskip("matplotlib.patches").FancyBboxPatch

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# --------------------------------------------------------------------------------------------
# make_moons
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 7, 100, 201])
def test_make_moons_shapes_dtypes_and_balance(n):
    X, y = datasets.make_moons(n, noise=0.1, seed=3)
    assert X.shape == (n, 2)
    assert X.dtype == np.float64
    assert y.shape == (n,)
    assert y.dtype == np.int64
    assert set(np.unique(y)) <= {0, 1}
    assert np.count_nonzero(y == 0) == n // 2  # sklearn's split: the outer moon gets n // 2
    assert np.count_nonzero(y == 1) == n - n // 2


def test_make_moons_without_noise_lies_on_the_two_half_circles():
    X, y = datasets.make_moons(50, noise=0.0, seed=0)
    outer, inner = X[y == 0], X[y == 1]
    np.testing.assert_allclose(np.hypot(outer[:, 0], outer[:, 1]), 1.0)
    np.testing.assert_allclose(np.hypot(1 - inner[:, 0], 0.5 - inner[:, 1]), 1.0)
    assert outer[:, 1].min() >= -1e-12
    assert inner[:, 1].max() <= 0.5 + 1e-12


def test_make_moons_is_deterministic_and_seeds_differ():
    X1, y1 = datasets.make_moons(100, noise=0.2, seed=7)
    X2, y2 = datasets.make_moons(100, noise=0.2, seed=7)
    X3, y3 = datasets.make_moons(100, noise=0.2, seed=8)
    assert np.array_equal(X1, X2)
    assert np.array_equal(y1, y2)
    assert not np.array_equal(X1, X3)
    assert not np.array_equal(y1, y3)  # the shuffle differs too


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"n_samples": 0}, ValueError, "n_samples must be a positive int"),
        ({"n_samples": -5}, ValueError, "n_samples must be a positive int"),
        ({"n_samples": 10.0}, TypeError, "n_samples must be a positive int"),
        ({"n_samples": True}, TypeError, "n_samples must be a positive int"),
        ({"noise": -0.1}, ValueError, "noise must be a finite number >= 0"),
        ({"noise": float("nan")}, ValueError, "noise must be a finite number >= 0"),
        ({"noise": "0.1"}, TypeError, "noise must be a number >= 0"),
    ],
)
def test_make_moons_rejects_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=re.escape(message)):
        datasets.make_moons(**kwargs)


# --------------------------------------------------------------------------------------------
# Shipped files, load() and write()
# --------------------------------------------------------------------------------------------


@pytest.fixture
def data_copy(tmp_path, monkeypatch):
    """A copy of datasets/ under tmp_path that support.datasets reads and writes instead."""
    copy = tmp_path / "datasets"
    shutil.copytree(REPO_ROOT / "datasets", copy)
    monkeypatch.setattr(datasets, "DATA_DIR", copy)
    return copy


def test_manifest_has_sha256sum_format_and_matches_the_files():
    lines = (REPO_ROOT / "datasets" / "MANIFEST.sha256").read_text(encoding="utf-8").splitlines()
    assert lines, "the manifest lists no files"
    for line in lines:
        match = re.fullmatch(r"([0-9a-f]{64})  (\S+)", line)
        assert match, f"not a sha256sum line: {line!r}"
        path = REPO_ROOT / "datasets" / match.group(2)
        assert hashlib.sha256(path.read_bytes()).hexdigest() == match.group(1), path.name


def test_shipped_moons_equals_make_moons():
    data = datasets.load("moons")
    X, y = datasets.make_moons(200, noise=0.1, seed=0)
    assert sorted(data) == ["X", "y"]
    assert data["X"].dtype == X.dtype
    assert data["y"].dtype == y.dtype
    assert np.array_equal(data["X"], X)
    assert np.array_equal(data["y"], y)


def test_build_reproduces_the_shipped_files_byte_for_byte(tmp_path):
    out = tmp_path / "rebuilt"
    subprocess.run(
        [sys.executable, "-m", "support.datasets", "build", "--data-dir", str(out)],
        cwd=REPO_ROOT,
        check=True,
        capture_output=True,
    )
    shipped = REPO_ROOT / "datasets"
    assert (out / "moons.npz").read_bytes() == (shipped / "moons.npz").read_bytes()
    # `build` writes the generated files only; digits and mnist5k come from support.build_datasets
    moons_line = {"moons.npz": datasets.read_manifest(shipped)["moons.npz"]}
    assert datasets.read_manifest(out) == moons_line


def test_load_refuses_a_corrupted_copy(data_copy):
    path = data_copy / "moons.npz"
    raw = bytearray(path.read_bytes())
    raw[-100] ^= 0xFF  # flip one byte inside the array data
    path.write_bytes(bytes(raw))
    pattern = r"datasets/moons\.npz is corrupt or was changed: expected sha256 [0-9a-f]{64}, got"
    with pytest.raises(datasets.ChecksumError, match=pattern):
        datasets.load("moons")


def test_load_names_the_known_datasets_for_an_unknown_name(data_copy):
    with pytest.raises(ValueError, match=r"unknown dataset 'cifar10'.*known ones are: .*moons"):
        datasets.load("cifar10")  # not "mnist": that one is downloaded on request
    with pytest.raises(ValueError, match="unknown dataset"):
        datasets.load("../datasets/moons")


def test_load_says_when_a_listed_file_is_missing(data_copy):
    (data_copy / "moons.npz").unlink()
    with pytest.raises(FileNotFoundError, match=r"moons\.npz is missing"):
        datasets.load("moons")


def test_load_says_when_the_manifest_is_missing(data_copy):
    (data_copy / "MANIFEST.sha256").unlink()
    with pytest.raises(FileNotFoundError, match=r"MANIFEST\.sha256 is missing"):
        datasets.load("moons")


def test_write_round_trips_and_updates_the_manifest(data_copy):
    a, b = np.arange(6, dtype=np.float32).reshape(2, 3), np.array([1, 0], dtype=np.int64)
    path = datasets.write("tiny", a=a, b=b)
    assert path == data_copy / "tiny.npz"
    loaded = datasets.load("tiny")
    assert loaded["a"].dtype == np.float32
    assert np.array_equal(loaded["a"], a)
    assert np.array_equal(loaded["b"], b)
    assert np.array_equal(datasets.load("moons")["y"], datasets.make_moons(200, 0.1, 0)[1])
    names = [
        line.split("  ")[1]
        for line in (data_copy / "MANIFEST.sha256").read_text().split("\n")
        if line
    ]
    assert names == sorted([*datasets.read_manifest(REPO_ROOT / "datasets"), "tiny.npz"])


def test_write_leaves_no_temporary_files(data_copy):
    before = sorted(p.name for p in data_copy.iterdir())
    datasets.write("moons", **datasets.load("moons"))
    assert sorted(p.name for p in data_copy.iterdir()) == before


def test_write_keeps_the_old_file_when_interrupted(data_copy, monkeypatch):
    old = (data_copy / "moons.npz").read_bytes()
    before = sorted(p.name for p in data_copy.iterdir())

    def failing_replace(src, dst):
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(datasets.os, "replace", failing_replace)
    with pytest.raises(OSError, match="simulated"):
        datasets.write("moons", X=np.zeros((3, 2)), y=np.zeros(3, dtype=np.int64))
    assert (data_copy / "moons.npz").read_bytes() == old
    assert sorted(p.name for p in data_copy.iterdir()) == before


@pytest.mark.parametrize(
    ("name", "arrays", "message"),
    [
        ("bad/name", {"x": np.zeros(1)}, "dataset name must be"),
        ("moons.npz", {"x": np.zeros(1)}, "dataset name must be"),
        ("empty", {}, "needs at least one array"),
        ("objects", {"x": np.array([{}, None], dtype=object)}, "dtype object"),
    ],
)
def test_write_rejects_bad_input(data_copy, name, arrays, message):
    with pytest.raises(ValueError, match=message):
        datasets.write(name, **arrays)


# --------------------------------------------------------------------------------------------
# trace_graph and draw_graph, on a stand-in for ch01's Value
# --------------------------------------------------------------------------------------------


class Node:
    """Just enough of micrograd's Value for the drawing code (``_prev`` is a set, as there)."""

    def __init__(self, data, children=(), op="", label=None):
        self.data, self.grad = float(data), 0.0
        self._prev, self._op = set(children), op
        if label is not None:
            self.label = label


def small_graph():
    """o = tanh(a*b + c), with labels on some nodes: 6 values, 3 ops."""
    a, b, c = Node(2.0, label="a"), Node(-3.0, label="b"), Node(10.0)
    e = Node(-6.0, (a, b), "*", label="e")
    d = Node(4.0, (e, c), "+")
    o = Node(0.9993, (d,), "tanh", label="o")
    return o, [a, b, c, e, d, o]


def chain(n):
    node = Node(0.0)
    for i in range(1, n):
        node = Node(i, (node,), "+")
    return node


def test_trace_graph_is_topological_and_complete():
    root, values = small_graph()
    nodes, edges = trace_graph(root)
    assert {id(n) for n in nodes} == {id(v) for v in values}
    assert len(nodes) == len(values)
    assert nodes[-1] is root
    position = {id(n): i for i, n in enumerate(nodes)}
    assert len(edges) == 5
    for child, parent in edges:
        assert position[id(child)] < position[id(parent)]


def test_trace_graph_order_is_deterministic():
    first = [n.data for n in trace_graph(small_graph()[0])[0]]
    for _ in range(5):
        assert [n.data for n in trace_graph(small_graph()[0])[0]] == first


def test_trace_graph_handles_a_100000_node_chain():
    nodes, edges = trace_graph(chain(100_000))
    assert len(nodes) == 100_000
    assert len(edges) == 99_999
    assert [n.data for n in nodes[:3]] == [0.0, 1.0, 2.0]


def test_draw_graph_draws_one_box_per_value_and_one_circle_per_op():
    root, _ = small_graph()
    root.grad = 1.0
    ax = draw_graph(root)
    assert isinstance(ax, matplotlib.axes.Axes)
    boxes = [p for p in ax.patches if isinstance(p, FancyBboxPatch)]
    circles = [p for p in ax.patches if isinstance(p, Circle)]
    assert len(boxes) == 6
    assert len(circles) == 3
    texts = [t.get_text() for t in ax.texts]
    assert "a | data 2.0000 | grad 0.0000" in texts
    assert "data 10.0000 | grad 0.0000" in texts  # no label: no label part
    assert "o | data 0.9993 | grad 1.0000" in texts
    assert {"*", "+", "tanh"} <= set(texts)
    ax.figure.canvas.draw()  # the whole picture renders


def test_draw_graph_options_and_given_axes():
    root, _ = small_graph()
    _, ax = plt.subplots(figsize=(4, 2))
    assert draw_graph(root, ax, rankdir="TB", show_grad=False) is ax
    assert "a | data 2.0000" in [t.get_text() for t in ax.texts]
    ax.figure.canvas.draw()
    with pytest.raises(ValueError, match="rankdir"):
        draw_graph(root, rankdir="XY")


def test_draw_graph_figure_grows_with_the_graph():
    small = draw_graph(chain(3)).figure.get_size_inches()
    large = draw_graph(chain(12)).figure.get_size_inches()
    assert large[0] > small[0]


def test_draw_graph_draws_a_graph_at_the_size_limit():
    ax = draw_graph(chain(MAX_NODES))
    assert sum(isinstance(p, FancyBboxPatch) for p in ax.patches) == MAX_NODES


def test_draw_graph_refuses_a_big_graph_without_recursing():
    root = chain(2000)
    limit = sys.getrecursionlimit()
    depth = len(traceback.extract_stack())
    sys.setrecursionlimit(depth + 100)  # a recursive traversal of 2,000 nodes would fail here
    try:
        with pytest.raises(ValueError, match="draw_graph draws at most") as info:
            draw_graph(root)
    finally:
        sys.setrecursionlimit(limit)
    assert str(info.value) == "draw_graph draws at most 300 nodes; this graph has 2000"


# --------------------------------------------------------------------------------------------
# plots
# --------------------------------------------------------------------------------------------


def test_plot_decision_boundary_and_loss():
    X, y = datasets.make_moons(60, noise=0.1, seed=1)
    calls = []

    def predict(points):
        calls.append(points.shape)
        return points[:, 1] - 0.25  # class 1 above the line x2 = 0.25

    ax = plot_decision_boundary(predict, X, y, resolution=30)
    assert calls == [(900, 2)]
    assert len(ax.collections) >= 3  # the filled regions and one scatter per class
    ax.figure.canvas.draw()
    with pytest.raises(ValueError, match="one score per point"):
        plot_decision_boundary(lambda p: p, X, y)
    with pytest.raises(ValueError, match=r"X must have shape \(n, 2\)"):
        plot_decision_boundary(predict, X[:, :1], y)

    ax = plot_loss([1.0, 0.5, 0.25])
    assert np.array_equal(ax.lines[0].get_ydata(), [1.0, 0.5, 0.25])


def _contour_lines(ax) -> list:
    from matplotlib.contour import ContourSet

    return [c for c in ax.collections if isinstance(c, ContourSet) and not c.filled]


@pytest.mark.parametrize(("labels", "names"), [((-1, 1), ["y = -1", "y = +1"]), ((0, 1), None)])
def test_the_legend_names_the_labels_as_they_are(labels, names) -> None:
    X, classes = datasets.make_moons(30, noise=0.1, seed=2)
    y = np.where(classes == 1, labels[1], labels[0])
    ax = plot_decision_boundary(lambda p: p[:, 1] - 0.25, X, y, resolution=20)
    shown = [t.get_text() for t in ax.get_legend().get_texts()]
    assert shown == (names or [f"y = {labels[0]}", f"y = {labels[1]}"])
    plt.close(ax.figure)


def test_the_boundary_is_smooth_not_a_staircase() -> None:
    # the score 1 - |p|² is 0 on the unit circle; a boundary drawn from the sign of the score
    # on a grid is off by up to half a grid step, one drawn from the score itself by ~step²
    X = np.array([[-1.2, -1.2], [1.2, 1.2], [0.0, 0.0], [1.0, 0.0]])
    y = np.array([1, 1, -1, -1])
    ax = plot_decision_boundary(lambda p: 1 - (p**2).sum(axis=1), X, y, resolution=60)
    (line,) = _contour_lines(ax)
    vertices = np.concatenate([path.vertices for path in line.get_paths()])
    step = (X.max() - X.min() + 1.0) / 59
    radii = np.hypot(vertices[:, 0], vertices[:, 1])
    assert len(vertices) > 50 and np.abs(radii - 1).max() < step / 10
    plt.close(ax.figure)

    ax = plot_decision_boundary(lambda p: p[:, 0] + 10, X, y, resolution=10)  # one region
    assert _contour_lines(ax) == []
    plt.close(ax.figure)


def test_plot_curve_numbers_its_points_from_first() -> None:
    ax = plot_curve([0.5, 0.7, 0.9], xlabel="epoch", ylabel="accuracy", first=1)
    (line,) = ax.lines
    assert line.get_xdata().tolist() == [1, 2, 3] and line.get_ydata().tolist() == [0.5, 0.7, 0.9]
    assert (ax.get_xlabel(), ax.get_ylabel(), line.get_marker()) == ("epoch", "accuracy", "o")
    plt.close(ax.figure)
    ax = plot_loss(np.linspace(1, 0, 200))
    assert ax.lines[0].get_xdata()[0] == 0 and ax.lines[0].get_marker() in (None, "None", "")
    plt.close(ax.figure)


# --------------------------------------------------------------------------------------------
# broadcast: the unbroadcast diagram of chapter 3
# --------------------------------------------------------------------------------------------

AWAY, KEEPDIM = SUMMED_AWAY, SUMMED_KEEPDIM


@pytest.mark.parametrize(
    ("grad_shape", "shape", "roles"),
    [
        ((2, 3, 4), (3, 1), (AWAY, KEPT, KEEPDIM)),
        ((64, 3), (3,), (AWAY, KEPT)),
        ((8, 1, 6, 5), (6, 1), (AWAY, AWAY, KEPT, KEEPDIM)),
        ((2, 1), (1, 1), (KEEPDIM, KEPT)),  # 1 and 1 are equal: nothing to sum there
        ((3, 0), (3, 1), (KEPT, KEEPDIM)),  # an empty axis is stretched too
        ((5,), (), (AWAY,)),
        ((), (), ()),
    ],
)
def test_unbroadcast_roles(grad_shape, shape, roles):
    assert unbroadcast_roles(grad_shape, shape) == roles


def test_unbroadcast_roles_takes_numpy_sizes_and_refuses_non_sizes():
    assert unbroadcast_roles(tuple(np.array([2, 3])), (np.int64(3),)) == (AWAY, KEPT)
    for bad in [(2.0,), (True,), (-1,)]:
        with pytest.raises(ValueError, match=r"grad_shape must be a tuple of sizes >= 0"):
            unbroadcast_roles(bad, ())


def _role_labels(ax) -> list[str]:
    """The role written under each column, left to right."""
    labels = [t for t in ax.texts if t.get_text().replace("\n", " ") in {AWAY, KEEPDIM, KEPT}]
    return [
        t.get_text().replace("\n", " ") for t in sorted(labels, key=lambda t: t.get_position()[0])
    ]


def test_plot_unbroadcast_names_each_axis_and_the_calls():
    ax = plot_unbroadcast((8, 1, 6, 5), (6, 1))
    assert isinstance(ax, matplotlib.axes.Axes)
    assert _role_labels(ax) == [AWAY, AWAY, KEPT, KEEPDIM]
    texts = [t.get_text() for t in ax.texts]
    assert [f"dim {k}" for k in range(4)] == [t for t in texts if t.startswith("dim ")]
    assert "grad.sum(dim=(0, 1)) → (6, 5)\nthen .sum(dim=(1,), keepdim=True) → (6, 1)" in texts
    assert ax.get_title() == "unbroadcast: (8, 1, 6, 5) → (6, 1)"
    ax.figure.canvas.draw()  # the whole picture renders


def test_plot_unbroadcast_on_given_axes_and_edge_cases():
    _, (left, right) = plt.subplots(1, 2)
    assert plot_unbroadcast((2, 3), (2, 3), ax=left) is left
    assert _role_labels(left) == [KEPT, KEPT]
    assert "nothing to sum: grad is returned as it is" in [t.get_text() for t in left.texts]
    plot_unbroadcast((), (), ax=right)
    assert _role_labels(right) == []
    right.figure.canvas.draw()


@pytest.mark.parametrize(
    ("grad_shape", "shape", "why"),
    [
        ((2, 4), (3,), "at dimension 1, size 3 is neither 1 nor 4"),
        ((3,), (2, 3), "2 dimensions cannot become 1"),
    ],
)
def test_plot_unbroadcast_refuses_shapes_that_do_not_broadcast(grad_shape, shape, why):
    with pytest.raises(ValueError) as info:
        plot_unbroadcast(grad_shape, shape)
    message = str(info.value)
    assert str(grad_shape) in message and str(shape) in message and why in message
    assert not plt.get_fignums()  # refused before drawing anything

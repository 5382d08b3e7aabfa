"""Chapter 9's pictures (support/attention_plots.py) and what the notebook says they show:
the lookup's weights are a softmax that sums to one and the hard lookup is one-hot at the
best key; the score's variance grows like d and the unscaled softmax saturates; the causal
picture is the lower triangle; each head's panel holds its slice of the features; the block
diagram's order is the order the layer runs its submodules; the attention maps are the
model's weights; the cache picture counts the positions each step runs; the online
softmax's running sums end at the plain softmax's; the tiled forward's peak memory grows
like T where the plain one's grows like T². Expected values are NumPy written here (or the
reference run with hooks); the reference (``solutions.ch09_attention``) is what is drawn."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from solutions import ch09_attention as sp
from solutions.ch09_attention.tiled import online_step
from support import attention_plots as ap
from tests.headless import headless_figures, matplotlib, plt, renders  # noqa: F401 (an autouse fixture)

F = sp.nn.functional


def _softmax(x: np.ndarray) -> np.ndarray:
    """exp(x) / Σ exp(x) along the last axis, written out (no max subtracted: small x)."""
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def _cell_texts(ax) -> np.ndarray:
    """The numbers written in an image's cells, as an array of the image's shape."""
    h, w = ax.get_images()[0].get_array().shape
    grid = np.full((h, w), np.nan)
    for text in ax.texts:
        c, r = text.get_position()
        grid[round(r), round(c)] = float(text.get_text().replace("−∞", "-inf"))
    return grid


# §1 ----------------------------------------------------------------------------------------

KEYS = np.array([[2.0, 0.3], [1.4, 1.3], [-0.4, 1.8], [-1.6, 1.0]])
VALUES = np.array([1.0, 2.0, 3.0, 4.0])
QUERY = np.array([0.9, 1.6])


def test_lookup_weights_are_the_softmax_of_the_dot_products() -> None:
    found = ap.soft_lookup(QUERY, KEYS, VALUES)
    scores = np.array([sum(q * k for q, k in zip(QUERY, key)) for key in KEYS])
    weights = _softmax(scores)
    np.testing.assert_allclose(found["scores"], scores, rtol=1e-12)
    np.testing.assert_allclose(found["weights"], weights, rtol=1e-12)
    assert found["weights"].sum() == pytest.approx(1.0, abs=1e-12)
    assert float(found["output"]) == pytest.approx(float(weights @ VALUES), rel=1e-12)
    assert found["hard_weights"].tolist() == [0.0, 1.0, 0.0, 0.0]  # dog: the largest score
    assert float(found["hard_output"]) == 2.0


def test_lookup_picture_draws_the_weights_and_the_hard_lookup() -> None:
    fig = ap.plot_lookup(QUERY, KEYS, VALUES, ["cat", "dog", "car", "bus"])
    scores, weights, hard = fig.axes[1].containers
    found = ap.soft_lookup(QUERY, KEYS, VALUES)
    np.testing.assert_allclose([b.get_height() for b in weights], found["weights"])
    np.testing.assert_allclose([b.get_height() for b in scores], found["scores"])
    assert [b.get_height() for b in hard] == [0.0, 1.0, 0.0, 0.0]
    renders(fig)


def test_larger_scores_tend_to_the_hard_lookup() -> None:
    """The notebook multiplies the query by 1, 3, 10: the weights approach one-hot."""
    best = [ap.soft_lookup(QUERY * f, KEYS, VALUES)["weights"][1] for f in (1, 3, 10)]
    assert best[0] < best[1] < best[2] and best[2] > 0.999


# §2 ----------------------------------------------------------------------------------------


def test_the_score_variance_grows_like_d() -> None:
    dims = [1, 4, 16, 64, 256]
    variance = ap.dot_product_variance(dims, samples=4000)
    np.testing.assert_allclose(variance / np.array(dims), 1.0, atol=0.12)
    assert np.all(np.diff(variance) > 0)


def test_unscaled_softmax_saturates_and_scaled_does_not() -> None:
    dims = [1, 16, 256]
    sat = ap.softmax_saturation(dims, keys=16, samples=300)
    assert sat["entropy_unscaled"][0] == pytest.approx(sat["entropy_scaled"][0])  # d = 1
    assert sat["entropy_unscaled"][2] < 0.3 < 2.0 < sat["entropy_scaled"][2] < math.log(16)
    assert np.all(np.diff(sat["entropy_unscaled"]) < 0)
    assert abs(sat["entropy_scaled"][2] - sat["entropy_scaled"][0]) < 0.2
    assert sat["jacobian_unscaled"][2] < 0.4 * sat["jacobian_scaled"][2]
    renders(ap.plot_scaling(dims, ap.dot_product_variance(dims, samples=500), sat, keys=16))


def test_softmax_jacobian_matches_finite_differences() -> None:
    s = np.array([0.3, -1.2, 2.0, 0.5])
    eps = 1e-6
    numeric = np.stack(
        [(_softmax(s + eps * e) - _softmax(s - eps * e)) / (2 * eps) for e in np.eye(4)], axis=1
    )
    np.testing.assert_allclose(ap.softmax_jacobian(_softmax(s)), numeric, atol=1e-9)


# §4, §5 ------------------------------------------------------------------------------------


def test_the_causal_picture_is_the_lower_triangle() -> None:
    mask = sp.causal_mask(6, 6).numpy()
    bias = np.where(np.tri(6, dtype=bool), 0.0, -np.inf)
    fig = ap.plot_grids({"causal": mask, "float": bias})
    drawn = fig.axes[0].get_images()[0].get_array()
    np.testing.assert_array_equal(np.asarray(drawn), np.tril(np.ones((6, 6))))
    np.testing.assert_array_equal(_cell_texts(fig.axes[0]), np.tril(np.ones((6, 6))))
    hidden = fig.axes[1].get_images()[0].get_array()
    np.testing.assert_array_equal(np.ma.getmaskarray(hidden), ~np.tri(6, dtype=bool))
    np.testing.assert_array_equal(_cell_texts(fig.axes[1]), bias)
    renders(fig)


def test_each_head_panel_holds_its_slice_of_the_features() -> None:
    t, e, h = 4, 6, 3
    x = np.arange(float(t * e)).reshape(t, e)
    heads = sp.split_heads(sp.tensor(x[None]), h)[0].numpy()
    fig = ap.plot_split_heads(x, heads)
    d = e // h
    np.testing.assert_array_equal(_cell_texts(fig.axes[0]), x)
    colour_of_feature = np.asarray(fig.axes[0].get_images()[0].get_array())[0]
    assert colour_of_feature.tolist() == [c // d for c in range(e)]
    for i in range(h):
        np.testing.assert_array_equal(_cell_texts(fig.axes[1 + i]), x[:, i * d : (i + 1) * d])
    renders(fig)


# §6 ----------------------------------------------------------------------------------------


def _run_order(norm_first: bool) -> list[str]:
    """The submodules (and the activation) of a reference layer in the order its forward
    calls them, recorded by forward hooks."""
    layer = sp.nn.TransformerEncoderLayer(8, 2, 16, 0.0, norm_first=norm_first, batch_first=True)
    order: list[str] = []
    for name in ("self_attn", "dropout1", "norm1", "linear1", "dropout", "linear2", "dropout2"):
        getattr(layer, name).register_forward_hook(lambda *a, name=name: order.append(name))
    layer.norm2.register_forward_hook(lambda *a: order.append("norm2"))
    act = layer.activation
    layer.activation = lambda x: (order.append("activation"), act(x))[1]
    layer(sp.randn(1, 3, 8))
    return order


@pytest.mark.parametrize("norm_first", [True, False])
def test_the_block_diagram_is_the_order_the_layer_runs(norm_first: bool) -> None:
    steps = ap.block_steps(norm_first)
    assert [s for s in steps if s != "+ x"] == _run_order(norm_first)
    # the residual additions: after each branch, and (post-norm) before its norm
    adds = [i for i, s in enumerate(steps) if s == "+ x"]
    assert [steps[i - 1] for i in adds] == ["dropout1", "dropout2"]
    assert (steps[-1] == "+ x") is norm_first


def test_the_block_picture_draws_the_steps_bottom_to_top() -> None:
    fig = ap.plot_blocks()
    for ax, norm_first in zip(fig.axes, (True, False)):
        drawn = sorted(
            (t.get_position()[1], t.get_text())
            for t in ax.texts
            if t.get_text() in {*ap.block_steps(norm_first), "⊕"}
        )
        expected = ["⊕" if s == "+ x" else s for s in ap.block_steps(norm_first)]
        assert [text for _, text in drawn] == expected
    renders(fig)


# §7 ----------------------------------------------------------------------------------------


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-5) * w + b


def test_attention_maps_are_the_first_blocks_weights() -> None:
    """Block 0's per-head weights, recomputed in NumPy from the parameters: embeddings,
    norm1, the packed in_proj, scores / √d, the causal mask, a softmax."""
    sp.manual_seed(0)
    model = sp.GPT(7, 8, n_layer=2, n_head=2, n_embd=8, dtype=sp.float64)
    idx = np.array([[3, 1, 4, 1, 5, 2]])
    weights = ap.attention_maps(sp, model, sp.tensor(idx), layer=0)
    p = {name: t.detach().numpy() for name, t in model.state_dict().items()}
    x = p["token_embedding.weight"][idx[0]] + p["position_embedding.weight"][: idx.shape[1]]
    h = _layer_norm(x, p["blocks.0.norm1.weight"], p["blocks.0.norm1.bias"])
    qkv = h @ p["blocks.0.self_attn.in_proj_weight"].T + p["blocks.0.self_attn.in_proj_bias"]
    q, k = qkv[:, :8], qkv[:, 8:16]
    t = idx.shape[1]
    for head in range(2):
        cols = slice(4 * head, 4 * head + 4)
        scores = q[:, cols] @ k[:, cols].T / 2.0  # √4
        scores = np.where(np.tri(t, dtype=bool), scores, -np.inf)
        e = np.exp(scores - scores.max(-1, keepdims=True))
        np.testing.assert_allclose(weights[head], e / e.sum(-1, keepdims=True), atol=1e-12)
    later = ap.attention_maps(sp, model, sp.tensor(idx), layer=1)
    np.testing.assert_allclose(later.sum(-1), 1.0, atol=1e-12)
    assert np.all(np.triu(later, 1) == 0)
    renders(ap.plot_attention_maps(weights, list("abcdef")))


def test_the_loss_and_next_token_pictures_draw_what_they_are_given() -> None:
    fig = ap.plot_loss([1, 2, 3], [3.0, 2.5, 2.4], [0, 3], [3.2, 2.45])
    assert fig.axes[0].lines[1].get_ydata().tolist() == [3.2, 2.45]
    probs = {"a": np.array([0.1, 0.6, 0.3]), "b": np.array([0.2, 0.5, 0.3])}
    fig = ap.plot_next_token(probs, "xyz", top=3)
    heights = [b.get_height() for b in fig.axes[0].containers[0]]
    assert heights == [0.6, 0.3, 0.1]  # the first setting's, likeliest first
    renders(fig)


# §9 ----------------------------------------------------------------------------------------


def test_the_cache_picture_counts_the_positions_each_step_runs() -> None:
    prompt, new = 4, 8
    work = ap.cache_work(prompt, new)
    without, cached = work["without"], work["with"]
    assert [(row == 2).sum() for row in without] == [prompt + s for s in range(new)]
    assert [(row == 2).sum() for row in cached] == [prompt] + [1] * (new - 1)
    assert [(row == 1).sum() for row in cached] == [0] + [prompt + s - 1 for s in range(1, new)]
    for s in range(new):  # the one computed position is the newest one
        assert s == 0 or np.flatnonzero(cached[s] == 2).tolist() == [prompt + s - 1]
    fig = ap.plot_kv_cache(prompt, new)
    assert f"{sum(prompt + s for s in range(new))} position-passes" in fig.axes[0].get_title()
    assert f"{prompt + new - 1} position-passes" in fig.axes[1].get_title()
    renders(fig)


# §10 ---------------------------------------------------------------------------------------


def test_the_running_sums_end_at_the_plain_softmax() -> None:
    rng = np.random.default_rng(3)
    s = rng.standard_normal(24)
    s[14] = 4.0
    v = rng.standard_normal((24, 2))
    trace = ap.online_trace(s, v, tile_size=6, step=online_step)
    assert [t["stop"] for t in trace] == [6, 12, 18, 24]
    assert [t["m"] for t in trace] == [s[:stop].max() for stop in (6, 12, 18, 24)]
    plain = np.exp(s - s.max())
    assert trace[-1]["l"] == pytest.approx(plain.sum(), rel=1e-12)
    np.testing.assert_allclose(trace[-1]["out"], plain @ v / plain.sum(), atol=1e-14)
    for before, after in itertools.pairwise(trace):  # the old sum against the new maximum
        rescaled = before["l"] * math.exp(before["m"] - after["m"])
        assert after["rescaled"] == pytest.approx(rescaled, rel=1e-12)
    fig = ap.plot_online_trace(s, trace)
    np.testing.assert_allclose(fig.axes[1].lines[0].get_ydata(), [t["l"] for t in trace])
    renders(fig)


def test_a_fully_masked_first_tile_leaves_no_nan() -> None:
    s = np.array([-np.inf] * 4 + [0.5, 1.5, -0.5, 0.0])
    v = np.arange(16.0).reshape(8, 2)
    trace = ap.online_trace(s, v, tile_size=4, step=online_step)
    assert trace[0]["m"] == -np.inf and trace[0]["l"] == 0.0
    w = _softmax(s[4:])
    np.testing.assert_allclose(trace[1]["out"], w @ v[4:], atol=1e-14)


def test_peak_and_held_bytes_see_numpy_arrays() -> None:
    n = 1_000_000
    assert 8 * n <= ap.peak_bytes(lambda: np.ones(n).sum()) < 8 * n + 100_000
    assert ap.held_bytes(lambda: np.ones(n).sum()) < 100_000  # nothing kept
    assert 8 * n <= ap.held_bytes(lambda: np.ones(n)) < 8 * n + 100_000


def _plain(q, k, v):
    return lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True)


def _tiled(q, k, v):
    return lambda: sp.tiled_attention(q, k, v, is_causal=True, tile_size=64)


def test_tiled_peak_grows_like_t_and_plain_like_t_squared() -> None:
    """The §10 claim, at T and 4T: the plain forward's peak (its (T, T) scores) grows about
    16-fold, the tiled forward's (the output and one tile) about 4-fold or less; under
    autograd the plain forward keeps O(T²) for the backward."""
    peaks: dict[str, list[int]] = {"plain": [], "tiled": [], "kept": []}
    for t in (128, 512):
        q, k, v = (sp.randn(1, 1, t, 32) for _ in range(3))
        with sp.no_grad():
            peaks["plain"].append(ap.peak_bytes(_plain(q, k, v)))
            peaks["tiled"].append(ap.peak_bytes(_tiled(q, k, v)))
        q.requires_grad_()
        peaks["kept"].append(ap.held_bytes(_plain(q, k, v)))
    growth = {name: b / a for name, (a, b) in peaks.items()}
    assert growth["plain"] > 10 and growth["kept"] > 10
    assert growth["tiled"] < 5
    assert peaks["tiled"][1] < peaks["plain"][1] / 10
    no_graph = {"plain": peaks["plain"], "tiled": peaks["tiled"]}
    renders(ap.plot_memory([128, 512], no_graph, {"kept": peaks["kept"]}))

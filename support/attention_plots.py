"""Chapter 9's pictures: attention as a soft lookup, why the scores are scaled, masks and
weights as grids, heads as slices of the features, the two Transformer blocks, a language
model's loss and attention maps, the key/value cache's work, and the online softmax.

    soft_lookup(query, keys, values)       scores, softmax weights, their weighted mean of
                                           the values, and the hard lookup (one-hot weights)
    plot_lookup(query, keys, values, names)
                                           the keys and the query in the plane, the scores
                                           and the weights as bars, soft and hard answers
    dot_product_variance(dims)             the variance of q·k for q, k ~ N(0, I_d), measured
    softmax_saturation(dims, keys)         the softmax of n random scores q·k_j, unscaled and
                                           scaled by 1/√d: mean entropy and Jacobian norm
    softmax_jacobian(weights)              ∂ softmax / ∂ scores = diag(w) − w wᵀ
    plot_scaling(dims, variance, saturation)
                                           those three measurements against d
    plot_grids(grids, rows, columns)       2-D arrays (masks, weights) as heat maps with their
                                           numbers written in, query rows × key columns
    plot_split_heads(x, heads)             a numbered (T, E) matrix coloured by head beside
                                           split_heads' (h, T, d) slices
    block_steps(norm_first)                PyTorch's submodule names in the order a
                                           TransformerEncoderLayer applies them
    plot_blocks()                          pre-norm and post-norm side by side, the residual
                                           path drawn
    plot_loss(steps, train, val_steps, val)
                                           a language model's training and validation loss
    attention_maps(sp, model, idx, layer)  one layer's per-head attention weights of a GPT
    plot_attention_maps(weights, tokens)   one heat map per head
    plot_next_token(probs, labels)         next-token distributions side by side
    cache_work(prompt, new)                which positions each generation step computes and
                                           which it reads from the cache
    plot_kv_cache(prompt, new)             that, without and with the cache
    online_trace(scores, values, tile, step)
                                           the running (max, sum, weighted sum) after each tile
    plot_online_trace(scores, trace)       the scores by tile and the running max and sum
    peak_bytes(run)                        the peak of what ``run()`` allocated (tracemalloc)
    held_bytes(run)                        what is still allocated while ``run()``'s result
                                           is kept (a graph's saved tensors)
    plot_memory(lengths, no_graph, graph)  both regimes against the context length

Each plot returns the matplotlib Figure and never calls ``plt.show()``. Support never
imports the chapters: pictures take NumPy arrays and plain numbers; ``attention_maps`` takes
the framework module ``sp`` and the model as arguments, ``online_trace`` the step function.
"""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from matplotlib.figure import Figure

HEAD_COLOURS = ("#bfdbfe", "#fed7aa", "#bbf7d0", "#fecaca", "#e9d5ff", "#fef08a", "#a5f3fc")
_BLUE, _RED, _GREY = "#2563eb", "#dc2626", "#9ca3af"


def _softmax(x: np.ndarray) -> np.ndarray:
    """Softmax along the last axis, the largest score subtracted first."""
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _numbers(ax: Any, values: np.ndarray, fontsize: float, fmt: str = "{:.2f}") -> None:
    """Each entry of ``values`` (2-D) written in its cell: integers as integers."""
    for (r, c), v in np.ndenumerate(values):
        text = f"{int(v)}" if float(v).is_integer() else fmt.format(v)
        ax.text(c, r, text, ha="center", va="center", fontsize=fontsize)


# --------------------------------------------------------------------------------------------
# §1 a soft dictionary lookup
# --------------------------------------------------------------------------------------------


def soft_lookup(query: Any, keys: Any, values: Any, scale: float = 1.0) -> dict[str, np.ndarray]:
    """One query (d,) against n keys (n, d) holding n values (n,) or (n, e): ``scores`` =
    keys·query·scale, ``weights`` = softmax(scores), ``output`` = Σ weights · values; and
    the dictionary's hard lookup, ``hard_weights`` one-hot at the best score and
    ``hard_output`` that key's value."""
    q, k = np.asarray(query, np.float64), np.asarray(keys, np.float64)
    v = np.asarray(values, np.float64)
    scores = k @ q * scale
    weights = _softmax(scores)
    hard = np.zeros_like(weights)
    hard[np.argmax(scores)] = 1.0
    return {
        "scores": scores,
        "weights": weights,
        "output": weights @ v,
        "hard_weights": hard,
        "hard_output": hard @ v,
    }


def plot_lookup(query: Any, keys: Any, values: Any, names: Sequence[str]) -> Figure:
    """Left: the 2-D keys as arrows (their darkness is their weight), the query in red, each
    key's name and value. Right: each key's score, softmax weight and hard (one-hot) weight
    as bars, with the soft and hard answers in the title. ``fig.axes[1]``'s containers are
    (scores, weights, hard weights)."""
    import matplotlib.pyplot as plt

    keys, values = np.asarray(keys, np.float64), np.asarray(values, np.float64)
    if keys.shape[1] != 2:
        raise ValueError("plot_lookup draws keys in the plane: they must be (n, 2)")
    found = soft_lookup(query, keys, values)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10.5, 4.2))
    for key, name, value, w in zip(keys, names, values, found["weights"]):
        shade = (1 - w) * 0.8
        left.annotate(
            "",
            xy=key,
            xytext=(0, 0),
            arrowprops=dict(arrowstyle="-|>", color=(shade, shade, 1.0), lw=2),
        )
        label = key + 0.35 * key / np.linalg.norm(key)  # just beyond the arrow's tip
        left.text(*label, f"{name}\nvalue {value:g}", ha="center", va="center", fontsize="small")
    query = np.asarray(query, np.float64)
    left.annotate(
        "", xy=query, xytext=(0, 0), arrowprops=dict(arrowstyle="-|>", color=_RED, lw=2.5)
    )
    left.text(
        *(query + 0.25 * query / np.linalg.norm(query)),
        "query",
        color=_RED,
        ha="center",
        va="center",
    )
    points = np.vstack([keys, query, np.zeros(2)])
    left.set_xlim(points[:, 0].min() - 0.8, points[:, 0].max() + 0.8)
    left.set_ylim(points[:, 1].min() - 0.5, points[:, 1].max() + 0.6)
    left.set_aspect("equal")
    left.axhline(0, color=_GREY, lw=0.5)
    left.axvline(0, color=_GREY, lw=0.5)
    left.set_title("keys (darker: more weight) and the query")
    x = np.arange(len(names))
    right.bar(x - 0.27, found["scores"], 0.27, color=_GREY, label="score q·k")
    bars = right.bar(x, found["weights"], 0.27, color=_BLUE, label="softmax weight")
    right.bar(x + 0.27, found["hard_weights"], 0.27, color="#111827", label="hard lookup")
    right.bar_label(bars, labels=[f"{w:.2f}" for w in found["weights"]], fontsize="small")
    right.axhline(0, color="black", lw=0.5)
    right.set_xticks(x, names)
    right.legend(fontsize="small")
    right.set_title(
        f"soft answer Σ w·v = {float(found['output']):.3g}; hard answer "
        f"{float(found['hard_output']):g}",
        fontsize="medium",
    )
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------------------------
# §2 why 1/√d
# --------------------------------------------------------------------------------------------


def dot_product_variance(dims: Sequence[int], samples: int = 4000, seed: int = 0) -> np.ndarray:
    """The measured variance of q·k for ``samples`` pairs q, k with d independent N(0, 1)
    entries, one number per d in ``dims`` (the theory: exactly d)."""
    rng = np.random.default_rng(seed)
    out = []
    for d in dims:
        q, k = rng.standard_normal((2, samples, d))
        out.append(float(np.var((q * k).sum(axis=1))))
    return np.array(out)


def softmax_jacobian(weights: Any) -> np.ndarray:
    """∂w_i/∂s_j of w = softmax(s), from w alone: diag(w) − w wᵀ (along the last axis)."""
    w = np.asarray(weights, np.float64)
    return np.einsum("...i,ij->...ij", w, np.eye(w.shape[-1])) - w[..., :, None] * w[..., None, :]


def softmax_saturation(
    dims: Sequence[int], keys: int = 16, samples: int = 500, seed: int = 0
) -> dict[str, np.ndarray]:
    """For each d: ``samples`` queries against ``keys`` random keys (all N(0, I_d)); the
    softmax of the scores q·k_j unscaled and divided by √d. Returns, one number per d, the
    mean entropy −Σ w log w of the weights (ln keys when uniform, 0 when one-hot) and the
    mean Frobenius norm of the softmax's Jacobian (how much the weights move when the scores
    do: 0 when saturated), keys ``entropy_unscaled``, ``entropy_scaled``, ``jacobian_unscaled``,
    ``jacobian_scaled``."""
    rng = np.random.default_rng(seed)
    out: dict[str, list[float]] = {
        f"{m}_{s}": [] for m in ("entropy", "jacobian") for s in ("unscaled", "scaled")
    }
    for d in dims:
        q = rng.standard_normal((samples, 1, d))
        k = rng.standard_normal((samples, keys, d))
        scores = (q * k).sum(axis=-1)
        for name, s in (("unscaled", scores), ("scaled", scores / np.sqrt(d))):
            w = _softmax(s)
            entropy = -(w * np.log(np.where(w > 0, w, 1.0))).sum(axis=-1)
            out[f"entropy_{name}"].append(float(entropy.mean()))
            jac = softmax_jacobian(w)
            out[f"jacobian_{name}"].append(float(np.linalg.norm(jac, axis=(-2, -1)).mean()))
    return {name: np.array(v) for name, v in out.items()}


def plot_scaling(
    dims: Sequence[int], variance: Any, saturation: Mapping[str, Any], keys: int = 16
) -> Figure:
    """Three panels against the width d: the variance of q·k (measured, and the line d);
    the weights' mean entropy, unscaled and scaled, below ln(keys); the Jacobian's norm."""
    import matplotlib.pyplot as plt

    dims = np.asarray(dims)
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    axes[0].loglog(dims, variance, "o-", color=_RED, label="q·k, measured")
    axes[0].loglog(dims, np.asarray(variance) / dims, "o-", color=_BLUE, label="q·k / √d")
    axes[0].loglog(dims, dims, ":", color="black", label="d")
    axes[0].set_title("variance of the score")
    for ax, metric, title in (
        (axes[1], "entropy", "entropy of the weights"),
        (axes[2], "jacobian", "‖∂ weights / ∂ scores‖"),
    ):
        ax.semilogx(dims, saturation[f"{metric}_unscaled"], "o-", color=_RED, label="q·k")
        ax.semilogx(dims, saturation[f"{metric}_scaled"], "o-", color=_BLUE, label="q·k / √d")
        ax.set_ylim(bottom=0)
        ax.set_title(title)
    axes[1].axhline(np.log(keys), ls=":", color="black", label=f"uniform: ln {keys}")
    for ax in axes:
        ax.set_xlabel("width d")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------------------------
# §3–§5 masks, weights, heads
# --------------------------------------------------------------------------------------------


def plot_grids(
    grids: Mapping[str, Any],
    rows: Sequence[str] | None = None,
    columns: Sequence[str] | None = None,
    size: float = 0.45,
) -> Figure:
    """Each ``name: array`` (L, S) as a heat map, query i down, key j across, every entry
    written in its cell (a boolean mask as 1 and 0, −∞ as −∞). ``rows`` and ``columns``
    label the queries and keys. Returns the Figure; ``ax.get_images()[0].get_array()`` is
    the array drawn, a masked array whose −∞ entries are masked (drawn grey)."""
    import matplotlib
    import matplotlib.pyplot as plt

    if not grids:
        raise ValueError("plot_grids: nothing to draw")
    arrays = [np.asarray(g, dtype=np.float64) for g in grids.values()]
    L, S = arrays[0].shape
    fig, axes = plt.subplots(
        1, len(arrays), figsize=(len(arrays) * (size * S + 1.0), size * L + 1.2), squeeze=False
    )
    for ax, name, array in zip(axes[0], grids, arrays):
        finite = array[np.isfinite(array)]
        low = float(finite.min()) if finite.size else 0.0
        shown = np.ma.masked_where(np.isneginf(array), array)
        cmap = matplotlib.colormaps["Blues"].with_extremes(bad="#d1d5db")  # −∞: grey
        top = max(float(finite.max()) if finite.size else 0.0, 1e-12)
        ax.imshow(shown, cmap=cmap, vmin=min(low, 0.0), vmax=top)
        for (r, c), v in np.ndenumerate(array):
            text = (
                "−∞" if np.isneginf(v) else (f"{int(v)}" if float(v).is_integer() else f"{v:.2f}")
            )
            dark = np.isfinite(v) and v > 0.6 * top
            ax.text(
                c, r, text, ha="center", va="center", fontsize=7, color="white" if dark else "black"
            )
        ax.set_title(name, fontsize="medium")
        ax.set_xticks(range(S), columns if columns is not None else range(S))
        ax.set_yticks(range(L), rows if rows is not None else range(L))
        ax.set_xlabel("key j")
        ax.set_ylabel("query i")
    fig.tight_layout()
    return fig


def plot_split_heads(x: Any, heads: Any) -> Figure:
    """``x`` (T, E), numbered, each feature column coloured by the head it goes to, beside
    ``heads`` (h, T, d) = split_heads(x), each head's slice in its colour, numbers written
    in. ``fig.axes`` are (x, head 0, …, head h − 1)."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    x, heads = np.asarray(x), np.asarray(heads)
    h, t, d = heads.shape
    if h > len(HEAD_COLOURS):
        raise ValueError(f"plot_split_heads: at most {len(HEAD_COLOURS)} heads")
    cmap = ListedColormap(HEAD_COLOURS[:h])
    fig, axes = plt.subplots(
        1,
        h + 1,
        figsize=(0.42 * (x.shape[1] + h * d) + 1.5 * h + 1, 0.42 * t + 1.4),
        gridspec_kw={"width_ratios": [x.shape[1]] + [d] * h},
    )
    owner = np.broadcast_to(np.arange(x.shape[1]) // d, x.shape)
    axes[0].imshow(owner, cmap=cmap, vmin=-0.5, vmax=h - 0.5)
    _numbers(axes[0], x, fontsize=8)
    axes[0].set_title(f"x: (T, E) = ({t}, {x.shape[1]})")
    axes[0].set_xlabel("feature")
    axes[0].set_ylabel("position")
    for i, ax in enumerate(axes[1:]):
        ax.imshow(np.full((t, d), i), cmap=cmap, vmin=-0.5, vmax=h - 0.5)
        _numbers(ax, heads[i], fontsize=8)
        ax.set_title(f"head {i}: ({t}, {d})")
        ax.set_xlabel("feature")
    for ax in axes:
        ax.set_xticks([])
        ax.set_yticks([])
    fig.suptitle(f"split_heads: (T, E) → (T, h, E/h) → (h, T, E/h), h = {h}")
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------------------------
# §6 the block
# --------------------------------------------------------------------------------------------


def block_steps(norm_first: bool) -> list[str]:
    """The order in which ``nn.TransformerEncoderLayer`` applies its submodules (PyTorch's
    names; "+ x" is a residual addition) with ``norm_first`` or without."""
    attend = ["self_attn", "dropout1"]
    think = ["linear1", "activation", "dropout", "linear2", "dropout2"]
    if norm_first:
        return ["norm1", *attend, "+ x", "norm2", *think, "+ x"]
    return [*attend, "+ x", "norm1", *think, "+ x", "norm2"]


def plot_blocks() -> Figure:
    """Pre-norm and post-norm as two columns of boxes, input at the bottom: the norms in
    grey, attention in blue, the MLP in orange, residual additions as ⊕ fed by the skip
    path (drawn on the left). Each axes' texts are the steps, bottom to top."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch

    colours = {"self_attn": "#bfdbfe", "dropout1": "#bfdbfe"}
    fig, axes = plt.subplots(1, 2, figsize=(8.5, 7.2))
    for ax, norm_first in zip(axes, (True, False)):
        steps = block_steps(norm_first)
        n = len(steps)
        ax.set_xlim(-1.6, 2.2)
        ax.set_ylim(-1.2, n + 0.4)
        ax.axis("off")
        ax.text(0.5, -0.95, "x (input)", ha="center", fontsize="small")
        branch_start = -0.55  # where the current residual branch left the path
        for i, step in enumerate(steps):
            if step.startswith("norm") and i and steps[i - 1] == "+ x":
                branch_start = i + 0.4  # post-norm: the path itself goes through the norm
            if step == "+ x":
                ax.text(0.5, i, "⊕", ha="center", va="center", fontsize=18)
                ax.annotate(
                    "",
                    xy=(0.3, i),
                    xytext=(-1.0, i),
                    arrowprops=dict(arrowstyle="-|>", color=_RED, lw=1.5),
                )
                ax.plot([-1.0, -1.0], [branch_start, i], color=_RED, lw=1.5)
                ax.plot([-1.0, 0.3], [branch_start, branch_start], color=_RED, lw=1.5)
                branch_start = i + 0.4
                continue
            colour = "#e5e7eb" if step.startswith("norm") else colours.get(step, "#fed7aa")
            box = FancyBboxPatch(
                (0.0, i - 0.3),
                1.0,
                0.6,
                boxstyle="round,pad=0.02",
                facecolor=colour,
                edgecolor="black",
                lw=0.8,
            )
            ax.add_patch(box)
            ax.text(0.5, i, step, ha="center", va="center", fontsize="small")
        for i in range(-1, n - 1):
            ax.annotate(
                "",
                xy=(0.5, i + 0.7),
                xytext=(0.5, i + 0.3),
                arrowprops=dict(arrowstyle="-|>", color="black", lw=0.8),
            )
        ax.text(
            -1.1,
            n * 0.5,
            "residual path",
            rotation=90,
            color=_RED,
            ha="right",
            va="center",
            fontsize="small",
        )
        ax.set_title("pre-norm (norm_first=True)" if norm_first else "post-norm (the default)")
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------------------------
# §7–§8 the trained model
# --------------------------------------------------------------------------------------------


def plot_loss(
    steps: Sequence[int], train: Sequence[float], val_steps: Sequence[int], val: Sequence[float]
) -> Figure:
    """The training loss per step (a thin line) and the validation loss at the steps where
    it was measured (dots), the last value in the legend. Returns the Figure."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.6))
    ax.plot(steps, train, color=_BLUE, lw=0.8, alpha=0.8, label="training batch")
    ax.plot(val_steps, val, "o-", color=_RED, label=f"validation (last {val[-1]:.3f})")
    ax.set_xlabel("step")
    ax.set_ylabel("cross-entropy (nats per character)")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    return fig


def attention_maps(sp: Any, model: Any, idx: Any, layer: int) -> np.ndarray:
    """The attention weights (h, T, T) of block ``layer`` of ``model`` (an ``sp.GPT``) for
    the one sequence ``idx`` (1, T): the embeddings run through the blocks before it with
    the causal mask, then that block's ``norm1`` and its ``self_attn`` asked for every
    head's weights (``average_attn_weights=False``). Computed under ``sp.no_grad()``."""
    with sp.no_grad():
        x = model.embed(idx)
        mask = sp.nn.generate_square_subsequent_mask(idx.shape[-1], dtype=x.dtype)
        for i in range(layer):
            x = model.blocks[i](x, src_mask=mask, is_causal=True)
        block = model.blocks[layer]
        h = block.norm1(x) if block.norm_first else x
        _, weights = block.self_attn(
            h, h, h, attn_mask=mask, need_weights=True, average_attn_weights=False
        )
    return weights[0].numpy()


def plot_attention_maps(weights: Any, tokens: Sequence[str], title: str | None = None) -> Figure:
    """One heat map per head of ``weights`` (h, T, T): row i is what the character
    ``tokens[i]`` looks at, column j the character it looks at. Returns the Figure."""
    import matplotlib.pyplot as plt

    weights = np.asarray(weights)
    h, t, _ = weights.shape
    labels = [repr(c)[1:-1] if c != " " else "␣" for c in tokens]
    columns = min(h, 2)
    rows = -(-h // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(4.8 * columns, 4.8 * rows), squeeze=False)
    for ax in axes.flat[h:]:
        ax.remove()
    for i, ax in enumerate(axes.flat[:h]):
        ax.imshow(weights[i], cmap="Blues", vmin=0, vmax=1)
        ax.set_title(f"head {i}")
        ax.set_xticks(range(t), labels, fontsize=8)
        ax.set_yticks(range(t), labels, fontsize=8)
        ax.set_xlabel("looks at")
        ax.set_ylabel("character")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_next_token(probs: Mapping[str, Any], labels: Sequence[str], top: int = 12) -> Figure:
    """For each ``setting: probabilities`` (V,), the ``top`` likeliest characters of the
    first setting, their probability under every setting, as grouped bars."""
    import matplotlib.pyplot as plt

    arrays = {name: np.asarray(p, np.float64) for name, p in probs.items()}
    order = np.argsort(-next(iter(arrays.values())), kind="stable")[:top]
    names = [repr(labels[i])[1:-1] if labels[i] != " " else "␣" for i in order]
    width = 0.8 / len(arrays)
    fig, ax = plt.subplots(figsize=(9, 3.4))
    for n, (name, p) in enumerate(arrays.items()):
        ax.bar(np.arange(top) + (n - (len(arrays) - 1) / 2) * width, p[order], width, label=name)
    ax.set_xticks(range(top), names)
    ax.set_ylabel("probability of the next character")
    ax.legend(fontsize="small")
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------------------------
# §9 the key/value cache
# --------------------------------------------------------------------------------------------


def cache_work(prompt: int, new: int) -> dict[str, np.ndarray]:
    """Per generation step (rows: the prompt's pass, then ``new − 1`` one-token steps) and
    per position (columns), what each step does with that position's keys and values: 2 =
    computed (the model runs on it), 1 = read from the cache, 0 = not there yet. Keys
    ``without`` (every step recomputes every position so far) and ``with``."""
    steps, positions = new, prompt + new - 1
    without = np.zeros((steps, positions), int)
    cached = np.zeros((steps, positions), int)
    for s in range(steps):
        seen = prompt + s
        without[s, :seen] = 2
        cached[s, :seen] = 1
        cached[s, (0 if s == 0 else seen - 1) : seen] = 2
    return {"without": without, "with": cached}


def plot_kv_cache(prompt: int, new: int) -> Figure:
    """``cache_work`` drawn: orange computed, blue read from the cache, white not yet; the
    number of positions computed per step at the right of each row."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    work = cache_work(prompt, new)
    cmap = ListedColormap(["white", "#bfdbfe", "#fb923c"])
    steps, positions = work["with"].shape
    fig, axes = plt.subplots(1, 2, figsize=(2 * (0.38 * positions + 1.6), 0.38 * steps + 1.5))
    for ax, name in zip(axes, ("without", "with")):
        grid = work[name]
        ax.imshow(grid, cmap=cmap, vmin=0, vmax=2)
        for s in range(steps):
            ax.text(positions - 0.2, s, f"{(grid[s] == 2).sum()}", va="center", fontsize=8)
        total = int((grid == 2).sum())
        ax.set_title(f"{name} the cache: {total} position-passes")
        ax.set_xlabel("position")
        ax.set_ylabel("step (0: the prompt)")
        ax.set_xticks(range(positions))
        ax.set_yticks(range(steps))
        ax.tick_params(labelsize=7)
        ax.set_xlim(-0.5, positions + 0.8)
        ax.set_xticks(np.arange(positions + 1) - 0.5, minor=True)
        ax.set_yticks(np.arange(steps + 1) - 0.5, minor=True)
        ax.grid(True, which="minor", color="white", lw=0.8)
        ax.tick_params(which="minor", length=0)
    fig.suptitle("orange: keys and values computed this step; blue: read from the cache")
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------------------------
# §10 the online softmax, and memory
# --------------------------------------------------------------------------------------------


def online_trace(
    scores: Any, values: Any, tile_size: int, step: Callable[[tuple, Any, Any], tuple]
) -> list[dict[str, Any]]:
    """One query's ``scores`` (S,) and the ``values`` (S, e), folded into the running state
    one tile of ``tile_size`` keys at a time by ``step`` (task 9.8's ``online_step``, which
    takes and returns (m, l, acc) with shapes (1, 1), (1, 1), (1, e)). One dict per tile:
    ``stop`` (keys seen so far), ``m``, ``l``, ``out`` = acc / l after that tile (0 while
    l = 0), and
    ``rescaled`` = l_before · exp(m_before − m): the old sum measured against the new
    maximum, before the tile's own terms are added (0 for the first tile)."""
    s = np.asarray(scores, np.float64)
    v = np.asarray(values, np.float64)
    state = (np.full((1, 1), -np.inf), np.zeros((1, 1)), np.zeros((1, v.shape[1])))
    trace = []
    for j in range(0, len(s), tile_size):
        m_before, l_before = float(state[0][0, 0]), float(state[1][0, 0])
        state = step(state, s[None, j : j + tile_size], v[j : j + tile_size])
        m, total, acc = state
        m_now = float(m[0, 0])
        rescaled = 0.0 if m_before == -np.inf else l_before * float(np.exp(m_before - m_now))
        trace.append(
            {
                "stop": min(j + tile_size, len(s)),
                "m": m_now,
                "l": float(total[0, 0]),
                "rescaled": rescaled,
                "out": acc[0] / (total[0, 0] or 1.0),  # 0 while no key was seen
            }
        )
    return trace


def plot_online_trace(scores: Any, trace: Sequence[Mapping[str, Any]]) -> Figure:
    """Top: the scores as bars coloured by tile, and over each tile the running maximum m
    after it. Bottom, at the end of each tile: the old sum rescaled to the new maximum
    (open) and the running sum l after the tile's terms are added (filled), and the plain
    sum Σ exp(s − max s) that l must end at. ``fig.axes[1].lines[0]`` is l per tile,
    ``lines[1]`` the rescaled sums."""
    import matplotlib.pyplot as plt

    s = np.asarray(scores, np.float64)
    stops = [int(t["stop"]) for t in trace]
    starts = [0, *stops[:-1]]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 5.4), sharex=True)
    for i, (start, stop) in enumerate(zip(starts, stops)):
        top.bar(
            range(start, stop),
            s[start:stop],
            color=HEAD_COLOURS[i % len(HEAD_COLOURS)],
            edgecolor="black",
            lw=0.4,
        )
        top.hlines(
            trace[i]["m"],
            start - 0.5,
            stop - 0.5,
            color=_RED,
            lw=2,
            label="running max m after the tile" if i == 0 else None,
        )
    top.set_ylabel("score")
    top.set_title("one query's scores, a tile at a time; red: the running max m after each tile")
    ends = np.array(stops) - 0.5
    bottom.plot(ends, [t["l"] for t in trace], "o-", color=_BLUE, label="l after the tile")
    bottom.plot(
        ends,
        [t["rescaled"] for t in trace],
        "o",
        mfc="white",
        color=_BLUE,
        label="the old l, rescaled by α = exp(m − m′)",
    )
    bottom.vlines(
        ends,
        [t["rescaled"] for t in trace],
        [t["l"] for t in trace],
        color=_BLUE,
        lw=0.8,
        linestyles=":",
    )
    plain = float(np.exp(s - s.max()).sum())
    bottom.axhline(plain, ls=":", color="black", label=f"plain Σ exp(s − max s) = {plain:.3f}")
    bottom.set_xlabel("key position (a dot: the end of a tile)")
    bottom.set_ylabel("sum of exponentials")
    bottom.set_ylim(bottom=0)
    bottom.legend(fontsize="small", loc="lower right")
    bottom.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig


def peak_bytes(run: Callable[[], Any]) -> int:
    """The peak of the memory ``run()`` allocated above what was allocated before it, as
    tracemalloc sees it (NumPy reports its arrays to tracemalloc)."""
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        run()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def held_bytes(run: Callable[[], Any]) -> int:
    """The memory still allocated while ``run()``'s result is kept: for a forward under
    autograd, its output and everything its graph saved for the backward."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        kept = run()
        held = tracemalloc.get_traced_memory()[0] - base
        del kept
        return held
    finally:
        tracemalloc.stop()


def plot_memory(
    lengths: Sequence[int],
    no_graph: Mapping[str, Sequence[float]],
    graph: Mapping[str, Sequence[float]],
) -> Figure:
    """Bytes against the context length T, log-log, in two panels: without a graph (the
    peak of a forward: plain vs tiled) and under autograd (what the forward keeps for the
    backward). Dotted guides of slope 1 (O(T)) and 2 (O(T²)) through each panel's first
    point."""
    import matplotlib.pyplot as plt

    t = np.asarray(lengths, np.float64)
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.9), sharey=True)
    for ax, curves, title in (
        (axes[0], no_graph, "no graph: generation, evaluation (peak)"),
        (axes[1], graph, "under autograd: kept for the backward"),
    ):
        first = min(float(np.asarray(v, np.float64)[0]) for v in curves.values())
        for (name, values), colour in zip(curves.items(), (_RED, _BLUE, "#16a34a")):
            ax.loglog(t, np.asarray(values, np.float64), "o-", color=colour, label=name)
        ax.loglog(t, first * t / t[0], ":", color=_GREY, label="∝ T")
        ax.loglog(t, first * (t / t[0]) ** 2, "--", color=_GREY, label="∝ T²")
        ax.set_title(title, fontsize="medium")
        ax.set_xlabel("context length T")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="small")
    axes[0].set_ylabel("bytes")
    fig.tight_layout()
    return fig

"""Attention in tiles: the online softmax. Task 9.8 (§10).

Plain attention writes down the whole (L, S) matrix of scores, then of weights: for a long
context that matrix, not the model, is what fills the memory. But each output row is a
weighted mean, and a mean can be taken in pieces if the pieces are rescaled as they come.
Walk over the keys a tile at a time, keeping per query a running maximum m, a running sum of
exponentials l and a running weighted sum of values acc:

    m'   = max(m, max_j s_j)             the tile's scores s may raise the maximum
    α    = exp(m − m')                   what the old terms are worth against the new max
    p_j  = exp(s_j − m')
    l'   = α · l + Σ_j p_j
    acc' = α · acc + Σ_j p_j v_j

and at the end ``out = acc / l``. Every old term was exp(s − m); after the rescale it is
exp(s − m'), so the result is exactly the softmax-weighted sum, to rounding (1e-12 in
float64), while only a (tile, tile) block of scores exists at any time: memory O(T) for the
output and the state, instead of O(T²). This is the idea of FlashAttention (Dao et al.,
2022), here on NumPy.

What Sparrow builds: ``tiled_attention`` records no graph, for generation and evaluation
(``no_grad``), and refuses inputs that need gradients. Under autograd the plain attention
keeps its (L, S) weights for the backward, O(T²) again; FlashAttention's backward avoids
that by recomputing each tile from q, k, v and the saved log-sum-exp m + log l, a step this
course leaves as an exercise (the notebook draws both).
"""

from __future__ import annotations

import math
from typing import Any

from ..ch02_tensor.backend import array_module
from ..ch02_tensor.grad_mode import is_grad_enabled
from ..ch02_tensor.tensor import Tensor


def online_step(state: tuple, scores: Any, values: Any) -> tuple:
    """One key tile folded into the running (m, l, acc): ``scores`` (…, Lq, Sk) of this tile
    (−∞ where masked), ``values`` (…, Sk, Ev); m and l are (…, Lq, 1), acc (…, Lq, Ev).
    Returns the new (m, l, acc) (l is ``total`` in the code). A row that has seen only −∞
    so far keeps m = −∞, l = 0."""
    m, total, acc = state
    xp = array_module(scores)
    ### BEGIN SOLUTION 9.8
    m_new = xp.maximum(m, scores.max(axis=-1, keepdims=True))
    safe = xp.where(m_new == -xp.inf, 0, m_new)  # a row with nothing yet: no nan from −∞ − −∞
    alpha = xp.exp(m - safe)
    p = xp.exp(scores - safe)
    return m_new, alpha * total + p.sum(axis=-1, keepdims=True), alpha * acc + p @ values
    ### END SOLUTION


def finish(state: tuple) -> Any:
    """acc / l, and 0 for a row that saw no key (l = 0)."""
    _, total, acc = state
    xp = array_module(acc)
    ### BEGIN SOLUTION 9.8
    return acc / xp.where(total == 0, 1, total)
    ### END SOLUTION


def tiled_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    is_causal: bool = False,
    scale: float | None = None,
    tile_size: int = 128,
) -> Tensor:
    """``scaled_dot_product_attention(query, key, value, is_causal=is_causal, scale=scale)``
    computed over (tile_size, tile_size) blocks, with no graph (given). With ``is_causal``
    the key tiles wholly after a query tile are skipped."""
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(f"tiled_attention: {name} must be a Tensor")
        if is_grad_enabled() and t.requires_grad:
            raise RuntimeError(
                f"tiled_attention records no graph, and {name} requires grad: call it under "
                "sp.no_grad(), or use F.scaled_dot_product_attention to train"
            )
    if tile_size < 1:
        raise ValueError(f"tile_size must be at least 1, got {tile_size}")
    q, k, v = query.data, key.data, value.data
    xp = array_module(q)
    L, S = q.shape[-2], k.shape[-2]
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    lead = q.shape[:-2]
    out = xp.empty((*lead, L, v.shape[-1]), dtype=q.dtype)
    for i in range(0, L, tile_size):
        qt = q[..., i : i + tile_size, :] * scale
        rows = qt.shape[-2]
        state = (
            xp.full((*lead, rows, 1), -xp.inf, dtype=q.dtype),
            xp.zeros((*lead, rows, 1), dtype=q.dtype),
            xp.zeros((*lead, rows, v.shape[-1]), dtype=q.dtype),
        )
        stop = min(S, i + rows) if is_causal else S
        for j in range(0, stop, tile_size):
            scores = qt @ xp.swapaxes(k[..., j : j + tile_size, :], -1, -2)
            if is_causal:  # key j' may be seen by query i' when j' ≤ i'
                seen = xp.arange(j, j + scores.shape[-1]) <= xp.arange(i, i + rows)[:, None]
                scores = xp.where(seen, scores, -xp.inf)
            state = online_step(state, scores, v[..., j : j + tile_size, :])
        out[..., i : i + rows, :] = finish(state)
    return Tensor._from_array(out)

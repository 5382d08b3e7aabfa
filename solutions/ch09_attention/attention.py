"""Scaled dot-product attention: a soft dictionary lookup. Task 9.2 (§2–§4).

Each query asks every key how well they match, and takes the values in proportion:

    scores  = q kᵀ · scale            (…, L, S)    scale = 1/√E by default
    weights = softmax(scores + mask)   each row sums to 1 (or is all 0: task 9.1)
    out     = weights v                (…, L, Ev)

Why 1/√E: with q and k of E independent entries of variance 1, q·k has variance E, so the
scores of a wide head are large, the softmax saturates to one-hot and its gradient vanishes.
Dividing by √E brings the variance back to 1.

The mask says which keys a query may see. ``F.scaled_dot_product_attention`` takes it in two
forms, as PyTorch does: a **boolean** mask (True: the query may look there; False: the
score becomes −∞), or a **float** mask added to the scores (0 to keep, −∞ to hide, anything
between to bias). ``is_causal=True`` is the boolean lower triangle (query i sees keys
j ≤ i), which is what a language model needs: no position may read the future it is asked
to predict. The two are exclusive here, as in PyTorch's reference ("math") backend, which
refuses a mask together with ``is_causal``; PyTorch 2.13's default CPU kernel accepts both and
applies both, so code that relies on that must combine them into one mask for Sparrow.

Backward: every step is a recorded operation (matmul, the mask, task 9.1's softmax), so the
gradients of q, k and v come from chapter 4's engine with nothing written here.
"""

from __future__ import annotations

import math
from typing import Any

from ..ch02_tensor.tensor import Tensor
from ..ch05_nn.nn.dropout import dropout
from ..ch07_device import ones
from .softmax import safe_softmax


def causal_mask(L: int, S: int, diagonal: int = 0, device: Any = None) -> Tensor:
    """The boolean (L, S) mask of a causal model: True where key j may be seen by query i,
    that is where j ≤ i + ``diagonal``. ``diagonal=0`` is PyTorch's ``is_causal`` (aligned
    at the top left); task 9.7 aligns it at the bottom right, ``diagonal = S − L``."""
    ### BEGIN SOLUTION 9.2
    return ones(L, S, dtype=bool, device=device).tril(diagonal)
    ### END SOLUTION


def attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    mask: Tensor | None = None,
    scale: float | None = None,
    dropout_p: float = 0.0,
) -> tuple[Tensor, Tensor]:
    """(out, weights): ``weights = safe_softmax(q kᵀ · scale, masked)``, ``out = dropout(weights)
    v``. ``mask`` is None, a boolean Tensor (True: may look) or a float Tensor (added), either
    broadcasting against the scores (…, L, S); ``scale`` defaults to 1/√E (E = q's last
    axis). The weights returned are those before dropout."""
    ### BEGIN SOLUTION 9.2
    if scale is None:
        scale = 1.0 / math.sqrt(query.shape[-1])
    scores = (query @ key.transpose(-2, -1)) * scale
    if mask is not None:
        if mask.dtype == bool:
            scores = scores.masked_fill(~mask, float("-inf"))
        else:
            scores = scores + mask
    weights = safe_softmax(scores)
    return dropout(weights, dropout_p) @ value, weights
    ### END SOLUTION


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """PyTorch's ``F.scaled_dot_product_attention``: q (…, L, E), k (…, S, E), v (…, S, Ev)
    → (…, L, Ev). ``attn_mask`` boolean (True: take part) or float (added); ``is_causal``:
    the top-left lower triangle; ``dropout_p`` applies whenever it is above 0, as in PyTorch
    (pass ``dropout_p=p if self.training else 0``); ``enable_gqa``: k and v may have fewer
    heads (axis −3) than q, each shared by a group of query heads."""
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(f"scaled_dot_product_attention: {name} must be a Tensor")
        if t.ndim < 2:
            raise RuntimeError(f"scaled_dot_product_attention: {name} needs at least 2 dims")
    if query.shape[-1] != key.shape[-1]:
        raise RuntimeError(
            f"scaled_dot_product_attention: query's last dim ({query.shape[-1]}) and key's "
            f"({key.shape[-1]}) differ"
        )
    if key.shape[-2] != value.shape[-2]:
        raise RuntimeError(
            f"scaled_dot_product_attention: key has {key.shape[-2]} positions, value has "
            f"{value.shape[-2]}"
        )
    if is_causal and attn_mask is not None:
        raise RuntimeError(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
            "is_causal=True"
        )
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    if enable_gqa:
        key, value = _shared_heads(key, query.shape[-3]), _shared_heads(value, query.shape[-3])
    L, S = query.shape[-2], key.shape[-2]
    mask = causal_mask(L, S, device=query.device) if is_causal else attn_mask
    if mask is not None and not isinstance(mask, Tensor):
        raise TypeError("scaled_dot_product_attention: attn_mask must be a Tensor")
    if mask is not None and mask.dtype != bool and mask.dtype != query.dtype:
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {mask.dtype} and query.dtype: {query.dtype} instead."
        )
    return attention(query, key, value, mask, scale, dropout_p)[0]


def _shared_heads(kv: Tensor, heads: int) -> Tensor:
    """k or v with H_kv heads, each repeated for its group of ``heads // H_kv`` query
    heads (grouped-query attention; PyTorch's ``repeat_interleave`` on axis −3)."""
    h_kv = kv.shape[-3]
    if heads % h_kv:
        raise RuntimeError(
            f"scaled_dot_product_attention: {heads} query heads are not a multiple of "
            f"{h_kv} key/value heads"
        )
    lead, (s, e) = kv.shape[:-3], kv.shape[-2:]
    grouped = kv.reshape(*lead, h_kv, 1, s, e).expand(*lead, h_kv, heads // h_kv, s, e)
    return grouped.reshape(*lead, heads, s, e)

"""Chapter 9's broken set (tasks 9.1–9.8): plausible student bugs in the safe softmax, the
masked scaled dot product, the heads, the Transformer block, the embeddings, top-k
sampling, the key/value cache and the online softmax, each an edit of the reference
(judged by tests/test_variants.py): it must fail its own task, with its mistake named."""

from __future__ import annotations

from functools import partial

from tests.trees import edits
from tests.variants import VariantSet

edits = partial(edits, "ch09_attention")
SOFTMAX, ATTENTION, HEADS, ENCODER = "softmax.py", "attention.py", "heads.py", "encoder.py"
GPT, SAMPLING, CACHE, TILED = "gpt.py", "sampling.py", "cache.py", "tiled.py"

SCALE = "        scale = 1.0 / math.sqrt(query.shape[-1])\n"
CAUSAL = "    return ones(L, S, dtype=bool, device=device).tril(diagonal)\n"
SPLIT = "    return x.reshape(*lead, t, num_heads, e // num_heads).transpose(-3, -2)\n"
EMBED = "        return self.token_embedding(idx) + self.position_embedding(positions)\n"
KTH = (
    "        kth = logits.topk(top_k, dim=-1).values[..., -1:]\n"
    '        logits = logits.masked_fill(logits < kth, float("-inf"))\n'
)
STEP = "    return m_new, alpha * total + p.sum(axis=-1, keepdims=True), alpha * acc + p @ values\n"

VARIANTS = [
    # -- 9.1 --------------------------------------------------------------------------------
    (
        "safe_softmax is the plain softmax (nan on a fully masked row)",
        SOFTMAX,
        edits(
            SOFTMAX,
            (
                "        m = xp.where(m == -xp.inf, 0, m)  "
                "# a row of −∞: exp(−∞ − 0) = 0, not nan\n",
                "",
            ),
            (
                "        out = e / xp.where(s == 0, 1, s)  # 0 / 1 = 0 along an empty row\n",
                "        out = e / s\n",
            ),
        ),
        "9.1",
    ),
    (
        "safe_softmax's maximum without keepdims",
        SOFTMAX,
        (
            "        m = x.data.max(axis=-1, keepdims=True)\n",
            "        m = x.data.max(axis=-1)\n",
        ),
        "9.1",
    ),
    (
        "safe_softmax's backward keeps only the diagonal y(1 − y)",
        SOFTMAX,
        (
            "        return y * (grad_output - (grad_output * y).sum(dim=-1, keepdim=True))\n",
            "        return grad_output * y * (1 - y)\n",
        ),
        "9.1",
    ),
    # -- 9.2 --------------------------------------------------------------------------------
    (
        "the mask applied after the softmax",
        ATTENTION,
        edits(
            ATTENTION,
            (
                "    if mask is not None:\n        if mask.dtype == bool:\n",
                "    weights = safe_softmax(scores)\n"
                "    if mask is not None:\n        if mask.dtype == bool:\n",
            ),
            (
                '            scores = scores.masked_fill(~mask, float("-inf"))\n'
                "        else:\n"
                "            scores = scores + mask\n"
                "    weights = safe_softmax(scores)\n",
                "            weights = weights.masked_fill(~mask, 0.0)\n"
                "        else:\n"
                "            weights = weights * mask.exp()\n",
            ),
        ),
        "9.2",
    ),
    (
        "scores scaled by 1/d, not 1/√d",
        ATTENTION,
        (SCALE, "        scale = 1.0 / query.shape[-1]\n"),
        "9.2",
    ),
    (
        "scores multiplied by √d",
        ATTENTION,
        (SCALE, "        scale = math.sqrt(query.shape[-1])\n"),
        "9.2",
    ),
    (
        "the causal triangle transposed",
        ATTENTION,
        (CAUSAL, "    return ones(L, S, dtype=bool, device=device).triu(-diagonal)\n"),
        "9.2",
    ),
    (
        "a bool mask added as numbers",
        ATTENTION,
        (
            "    if mask is not None:\n"
            "        if mask.dtype == bool:\n"
            '            scores = scores.masked_fill(~mask, float("-inf"))\n'
            "        else:\n"
            "            scores = scores + mask\n",
            "    if mask is not None:\n        scores = scores + mask\n",
        ),
        "9.2",
    ),
    # -- 9.3 --------------------------------------------------------------------------------
    (
        "heads split along the positions (a view to (h, T, E/h))",
        HEADS,
        (SPLIT, "    return x.reshape(*lead, num_heads, -1, e // num_heads)\n"),
        "9.3",
    ),
    (
        "merge_heads without the transpose",
        HEADS,
        (
            "    return x.transpose(-3, -2).reshape(*lead, t, h * d)\n",
            "    return x.reshape(*lead, t, h * d)\n",
        ),
        "9.3",
    ),
    # -- 9.4 --------------------------------------------------------------------------------
    (
        "the attention's residual added before the norm (pre-norm)",
        ENCODER,
        (
            "            x = x + self._sa_block(\n"
            "                self.norm1(x), src_mask, src_key_padding_mask, is_causal, kv_cache\n"
            "            )\n",
            "            x = self.norm1(\n"
            "                x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal, "
            "kv_cache)\n"
            "            )\n",
        ),
        "9.4",
    ),
    (
        "pre-norm and post-norm swapped",
        ENCODER,
        (
            "        if self.norm_first:\n            x = x + self._sa_block(",
            "        if not self.norm_first:\n            x = x + self._sa_block(",
        ),
        "9.4",
    ),
    (
        "pre-norm's MLP without its norm",
        ENCODER,
        (
            "            x = x + self._ff_block(self.norm2(x))\n",
            "            x = x + self._ff_block(x)\n",
        ),
        "9.4",
    ),
    # -- 9.5 --------------------------------------------------------------------------------
    (
        "the position embedding broadcast over the wrong axis",
        GPT,
        (
            EMBED,
            "        return self.token_embedding(idx) + "
            "self.position_embedding(positions)[:, None]\n",
        ),
        "9.5",
    ),
    (
        "the token embedding scaled by √E",
        GPT,
        (
            EMBED,
            "        scale = self.token_embedding.embedding_dim**0.5\n"
            "        return self.token_embedding(idx) * scale + "
            "self.position_embedding(positions)\n",
        ),
        "9.5",
    ),
    # -- 9.6 --------------------------------------------------------------------------------
    (
        "the temperature multiplied",
        SAMPLING,
        ("    logits = logits / temperature\n", "    logits = logits * temperature\n"),
        "9.6",
    ),
    (
        "top-k keeps fewer than k (the k-th value hidden too)",
        SAMPLING,
        (
            'logits.masked_fill(logits < kth, float("-inf"))',
            'logits.masked_fill(logits <= kth, float("-inf"))',
        ),
        "9.6",
    ),
    (
        "top-k drops ties at the k-th value (keeps topk's indices only)",
        SAMPLING,
        (
            KTH,
            "        from ..ch07_device import full_like\n\n"
            "        top = logits.topk(top_k, dim=-1)\n"
            '        logits = full_like(logits, float("-inf"))'
            ".scatter(-1, top.indices, top.values)\n",
        ),
        "9.6",
    ),
    # -- 9.7 --------------------------------------------------------------------------------
    (
        "the cache appends keys but not values",
        CACHE,
        (
            "            self.values = cat([self.values, value], dim=-2)\n",
            "            self.values = value\n",
        ),
        "9.7",
    ),
    (
        "the cache concatenates along the heads",
        CACHE,
        edits(
            CACHE,
            ("cat([self.keys, key], dim=-2)", "cat([self.keys, key], dim=1)"),
            ("cat([self.values, value], dim=-2)", "cat([self.values, value], dim=1)"),
        ),
        "9.7",
    ),
    (
        "the cache's mask aligned at the top left",
        CACHE,
        (
            "        return causal_mask(new, s, diagonal=s - new, device=self.keys.device)\n",
            "        return causal_mask(new, s, device=self.keys.device)\n",
        ),
        "9.7",
    ),
    # -- 9.8 --------------------------------------------------------------------------------
    (
        "the online softmax forgets to rescale the running sum",
        TILED,
        (
            STEP,
            "    return m_new, total + p.sum(axis=-1, keepdims=True), alpha * acc + p @ values\n",
        ),
        "9.8",
    ),
    (
        "the online softmax forgets to rescale the weighted values",
        TILED,
        (
            STEP,
            "    return m_new, alpha * total + p.sum(axis=-1, keepdims=True), acc + p @ values\n",
        ),
        "9.8",
    ),
    (
        "finish returns the weighted sum undivided",
        TILED,
        ("    return acc / xp.where(total == 0, 1, total)\n", "    return acc\n"),
        "9.8",
    ),
]


SET = VariantSet(
    9,
    "broken",
    VARIANTS,
    (),
    says=[
        (
            "safe_softmax is the plain softmax (nan on a fully masked row)",
            "a row whose every score is −∞ gave nan",
        ),
        ("the mask applied after the softmax", "the mask was applied after the softmax"),
        ("scores scaled by 1/d, not 1/√d", "the scores were divided by E, not by √E"),
        ("scores multiplied by √d", "the scores were multiplied by √E"),
        ("the causal triangle transposed", "the triangle is transposed"),
        (
            "heads split along the positions (a view to (h, T, E/h))",
            "the heads were made by a reshape to (…, h, T, d) without the transpose",
        ),
        ("merge_heads without the transpose", "the heads were merged by a reshape alone"),
        ("pre-norm and post-norm swapped", "pre-norm and post-norm are swapped"),
        ("the temperature multiplied", "the logits were multiplied by the temperature"),
        (
            "top-k keeps fewer than k (the k-th value hidden too)",
            "fewer than k tokens were kept",
        ),
        (
            "top-k drops ties at the k-th value (keeps topk's indices only)",
            "exactly k tokens were kept, picked by index among ties",
        ),
        ("the cache appends keys but not values", "update returned only the new values"),
        ("the cache concatenates along the heads", "they were concatenated along axis 1"),
        ("the cache's mask aligned at the top left", "the mask is aligned at the top left"),
        (
            "the online softmax forgets to rescale the running sum",
            "the running sum was not rescaled",
        ),
        ("the online softmax forgets to rescale the weighted values", "acc was not rescaled"),
        (
            "safe_softmax's maximum without keepdims",
            "a reduction along the row lost its axis: keepdims=True keeps",
        ),
        (
            "safe_softmax's backward keeps only the diagonal y(1 − y)",
            "the backward used only the diagonal of the Jacobian, y(1 − y)·g",
        ),
        (
            "a bool mask added as numbers",
            "the boolean mask was added as numbers (True = 1, False = 0)",
        ),
        (
            "the attention's residual added before the norm (pre-norm)",
            "the attention's residual went through the norm",
        ),
        ("pre-norm's MLP without its norm", "the feed-forward branch was fed x, not LN₂(x)"),
        (
            "the position embedding broadcast over the wrong axis",
            "the position rows (T, E) were laid along the batch axis",
        ),
        ("the token embedding scaled by √E", "the token embedding was multiplied by √E"),
        ("finish returns the weighted sum undivided", "acc was not divided by l"),
    ],
    least=(14, 0),
)

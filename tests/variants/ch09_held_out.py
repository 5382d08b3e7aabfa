"""Chapter 9's held-out set: plausible student code written from the reference and the task
table alone, without looking at the checks (tests/variants/ch09_broken.py holds the first
set), and unusual but correct rewrites, judged on the public and the hidden checks together
(by tests/test_variants.py). Every correct rewrite keeps to ``array_module`` and the
framework's own Tensors, so it runs on the simulated device as well as on NumPy. Variants
that passed the public checks when they were first judged are noted (``# was a hole:``),
and the hidden checks alone catch them too (``HOLES``)."""

from __future__ import annotations

from functools import partial

from tests import trees
from tests.trees import edits
from tests.variants import VariantSet

PACKAGE = "ch09_attention"
edits = partial(edits, PACKAGE)
rewrite = partial(trees.rewrite, PACKAGE)
SOFTMAX, ATTENTION, HEADS, ENCODER = "softmax.py", "attention.py", "heads.py", "encoder.py"
GPT, SAMPLING, CACHE, TILED = "gpt.py", "sampling.py", "cache.py", "tiled.py"

SCALE = "        scale = 1.0 / math.sqrt(query.shape[-1])\n"
KTH = "        kth = logits.topk(top_k, dim=-1).values[..., -1:]\n"
CACHE_MASK = "        return causal_mask(new, s, diagonal=s - new, device=self.keys.device)\n"
PRE_NORM = (
    "            x = x + self._sa_block(\n"
    "                self.norm1(x), src_mask, src_key_padding_mask, is_causal, kv_cache\n"
    "            )\n"
    "            x = x + self._ff_block(self.norm2(x))\n"
)
ALPHA = "    alpha = xp.exp(m - safe)\n"

# -- plausible bugs -----------------------------------------------------------------------

VARIANTS = [
    # -- 9.1: safe_softmax ---------------------------------------------------------------
    (
        "safe_softmax subtracts the raw maximum (−∞ − −∞ on an empty row)",
        SOFTMAX,
        ("        m = xp.where(m == -xp.inf, 0, m)  # a row of −∞: exp(−∞ − 0) = 0, not nan\n", ""),
        "9.1",
    ),
    (
        "safe_softmax divides by the bare sum (0 / 0 on an empty row)",
        SOFTMAX,
        (
            "        out = e / xp.where(s == 0, 1, s)  # 0 / 1 = 0 along an empty row\n",
            "        out = e / s\n",
        ),
        "9.1",
    ),
    (
        "safe_softmax subtracts nothing (exp overflows on large scores)",
        SOFTMAX,
        ("        e = xp.exp(x.data - m)\n", "        e = xp.exp(x.data)\n"),
        "9.1",
    ),
    # was a hole: a case whose rows lie 1000 apart catches it now
    (
        "safe_softmax subtracts the maximum of the whole array, not of each row",
        SOFTMAX,
        (
            "        m = x.data.max(axis=-1, keepdims=True)\n",
            "        m = x.data.max()\n",
        ),
        "9.1",
    ),
    (
        "safe_softmax's backward without the sum term",
        SOFTMAX,
        (
            "        return y * (grad_output - (grad_output * y).sum(dim=-1, keepdim=True))\n",
            "        return y * grad_output\n",
        ),
        "9.1",
    ),
    (
        "safe_softmax's backward sums over the first axis",
        SOFTMAX,
        (
            "        return y * (grad_output - (grad_output * y).sum(dim=-1, keepdim=True))\n",
            "        return y * (grad_output - (grad_output * y).sum(dim=0, keepdim=True))\n",
        ),
        "9.1",
    ),
    (
        "safe_softmax's backward from the saved array (not recorded)",
        SOFTMAX,
        (
            "        y = _probabilities(ctx)\n",
            "        y = Tensor._from_array(ctx.out)\n",
        ),
        "9.1",
    ),
    # -- 9.2: causal_mask and attention ------------------------------------------------------
    (
        "causal_mask takes the upper triangle",
        ATTENTION,
        (
            "    return ones(L, S, dtype=bool, device=device).tril(diagonal)\n",
            "    return ones(L, S, dtype=bool, device=device).triu(diagonal)\n",
        ),
        "9.2",
    ),
    (
        "causal_mask ignores the diagonal",
        ATTENTION,
        (
            "    return ones(L, S, dtype=bool, device=device).tril(diagonal)\n",
            "    return ones(L, S, dtype=bool, device=device).tril()\n",
        ),
        "9.2",
    ),
    (
        "attention scales by 1/E",
        ATTENTION,
        (SCALE, "        scale = 1.0 / query.shape[-1]\n"),
        "9.2",
    ),
    (
        "attention scales by the value's width",
        ATTENTION,
        (SCALE, "        scale = 1.0 / math.sqrt(value.shape[-1])\n"),
        "9.2",
    ),
    (
        "attention ignores a given scale",
        ATTENTION,
        edits(
            ATTENTION,
            ("    if scale is None:\n" + SCALE, "    scale = 1.0 / math.sqrt(query.shape[-1])\n"),
        ),
        "9.2",
    ),
    (
        "attention hides where a bool mask is True",
        ATTENTION,
        (
            'scores = scores.masked_fill(~mask, float("-inf"))',
            'scores = scores.masked_fill(mask, float("-inf"))',
        ),
        "9.2",
    ),
    (
        "attention multiplies by a float mask",
        ATTENTION,
        ("            scores = scores + mask\n", "            scores = scores * mask\n"),
        "9.2",
    ),
    (
        "attention transposes the key with .T (every axis reversed)",
        ATTENTION,
        (
            "    scores = (query @ key.transpose(-2, -1)) * scale\n",
            "    scores = (query @ key.T) * scale\n",
        ),
        "9.2",
    ),
    # -- 9.3: split_heads and merge_heads ---------------------------------------------------
    (
        "split_heads swaps the last two axes (T, d, h)",
        HEADS,
        (
            "    return x.reshape(*lead, t, num_heads, e // num_heads).transpose(-3, -2)\n",
            "    return x.reshape(*lead, t, num_heads, e // num_heads).transpose(-2, -1)\n",
        ),
        "9.3",
    ),
    (
        "split_heads deals the features out to the heads in turn",
        HEADS,
        (
            "    return x.reshape(*lead, t, num_heads, e // num_heads).transpose(-3, -2)\n",
            "    return x.reshape(*lead, t, e // num_heads, num_heads).transpose(-1, -2)"
            ".transpose(-3, -2)\n",
        ),
        "9.3",
    ),
    (
        "split_heads written for (B, T, E) only",
        HEADS,
        (
            "    *lead, t, e = x.shape\n"
            "    return x.reshape(*lead, t, num_heads, e // num_heads).transpose(-3, -2)\n",
            "    b, t, e = x.shape\n"
            "    return x.reshape(b, t, num_heads, e // num_heads).transpose(1, 2)\n",
        ),
        "9.3",
    ),
    (
        "merge_heads swaps the last two axes",
        HEADS,
        (
            "    return x.transpose(-3, -2).reshape(*lead, t, h * d)\n",
            "    return x.transpose(-2, -1).reshape(*lead, t, h * d)\n",
        ),
        "9.3",
    ),
    # -- 9.4: the block --------------------------------------------------------------------
    (
        "pre-norm carries the normalised x on the residual path",
        ENCODER,
        (
            PRE_NORM,
            "            x = self.norm1(x)\n"
            "            x = x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal, "
            "kv_cache)\n"
            "            x = self.norm2(x)\n"
            "            x = x + self._ff_block(x)\n",
        ),
        "9.4",
    ),
    (
        "pre-norm feeds the MLP through norm1",
        ENCODER,
        (
            "            x = x + self._ff_block(self.norm2(x))\n",
            "            x = x + self._ff_block(self.norm1(x))\n",
        ),
        "9.4",
    ),
    (
        "pre-norm's MLP reads the block's input, not the attention's sum",
        ENCODER,
        (
            PRE_NORM,
            "            h = x + self._sa_block(\n"
            "                self.norm1(x), src_mask, src_key_padding_mask, is_causal, kv_cache\n"
            "            )\n"
            "            x = h + self._ff_block(self.norm2(x))\n",
        ),
        "9.4",
    ),
    (
        "post-norm normalises the branch, not the sum",
        ENCODER,
        (
            "            x = self.norm1(\n"
            "                x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal, "
            "kv_cache)\n"
            "            )\n"
            "            x = self.norm2(x + self._ff_block(x))\n",
            "            x = x + self.norm1(\n"
            "                self._sa_block(x, src_mask, src_key_padding_mask, is_causal, "
            "kv_cache)\n"
            "            )\n"
            "            x = x + self.norm2(self._ff_block(x))\n",
        ),
        "9.4",
    ),
    # was a hole (9.7's GPT check failed instead): 9.4's check with a probe cache catches it
    (
        "the block drops the key/value cache",
        ENCODER,
        (
            "                self.norm1(x), src_mask, src_key_padding_mask, is_causal, kv_cache\n",
            "                self.norm1(x), src_mask, src_key_padding_mask, is_causal, None\n",
        ),
        "9.4",
    ),
    # -- 9.5: embeddings -------------------------------------------------------------------
    (
        "positions start at 0 whatever the start",
        GPT,
        (
            "        positions = arange(start, start + idx.shape[-1], device=idx.device)\n",
            "        positions = arange(idx.shape[-1], device=idx.device)\n",
        ),
        "9.5",
    ),
    (
        "positions stop at T, not start + T",
        GPT,
        (
            "        positions = arange(start, start + idx.shape[-1], device=idx.device)\n",
            "        positions = arange(start, idx.shape[-1], device=idx.device)\n",
        ),
        "9.5",
    ),
    (
        "the position table looked up by the token ids",
        GPT,
        (
            "        return self.token_embedding(idx) + self.position_embedding(positions)\n",
            "        return self.token_embedding(idx) + self.position_embedding(idx)\n",
        ),
        "9.5",
    ),
    # -- 9.6: next_token_probs -------------------------------------------------------------
    (
        "the temperature divides the probabilities",
        SAMPLING,
        edits(
            SAMPLING,
            ("    logits = logits / temperature\n", ""),
            (
                "    return softmax(logits, dim=-1)\n",
                "    return softmax(logits, dim=-1) / temperature\n",
            ),
        ),
        "9.6",
    ),
    (
        "top-k compares with the k-th smallest logit",
        SAMPLING,
        (KTH, "        kth = logits.topk(top_k, dim=-1, largest=False).values[..., -1:]\n"),
        "9.6",
    ),
    (
        "top-k takes the first row's k-th value for every row",
        SAMPLING,
        (KTH, "        kth = logits.topk(top_k, dim=-1).values[0, -1]\n"),
        "9.6",
    ),
    (
        "top-k calls topk even when k is at least the vocabulary",
        SAMPLING,
        (
            "    if top_k is not None and top_k < logits.shape[-1]:\n",
            "    if top_k is not None:\n",
        ),
        "9.6",
    ),
    # -- 9.7: the cache --------------------------------------------------------------------
    (
        "the cache keeps only the newest keys and values",
        CACHE,
        (
            "            self.keys = cat([self.keys, key], dim=-2)\n"
            "            self.values = cat([self.values, value], dim=-2)\n",
            "            self.keys, self.values = key, value\n",
        ),
        "9.7",
    ),
    (
        "the cache puts the new keys and values first",
        CACHE,
        (
            "            self.keys = cat([self.keys, key], dim=-2)\n"
            "            self.values = cat([self.values, value], dim=-2)\n",
            "            self.keys = cat([key, self.keys], dim=-2)\n"
            "            self.values = cat([value, self.values], dim=-2)\n",
        ),
        "9.7",
    ),
    (
        "the cache's mask lets the new queries see every key",
        CACHE,
        (
            CACHE_MASK,
            "        return causal_mask(new, s, diagonal=s, device=self.keys.device)\n",
        ),
        "9.7",
    ),
    (
        "the cache's mask shifts the triangle the wrong way",
        CACHE,
        (
            CACHE_MASK,
            "        return causal_mask(new, s, diagonal=new - s, device=self.keys.device)\n",
        ),
        "9.7",
    ),
    # -- 9.8: the online softmax -----------------------------------------------------------
    (
        "online_step rescales by the unguarded maximum (−∞ − −∞)",
        TILED,
        (ALPHA, "    alpha = xp.exp(m - m_new)\n"),
        "9.8",
    ),
    (
        "online_step measures the tile against the old maximum",
        TILED,
        (
            "    p = xp.exp(scores - safe)\n",
            "    p = xp.exp(scores - xp.where(m == -xp.inf, 0, m))\n",
        ),
        "9.8",
    ),
    (
        "online_step sums the tile without keepdims",
        TILED,
        (
            "alpha * total + p.sum(axis=-1, keepdims=True)",
            "alpha * total + p.sum(axis=-1)",
        ),
        "9.8",
    ),
    (
        "finish divides by the bare sum (0 / 0 for a row that saw no key)",
        TILED,
        ("    return acc / xp.where(total == 0, 1, total)\n", "    return acc / total\n"),
        "9.8",
    ),
]

# -- unusual but correct rewrites ---------------------------------------------------------

SOFTMAX_BY_LOG_SUM_EXP = """
xp = array_module(x.data)
m = x.data.max(axis=-1, keepdims=True)
shift = xp.where(m == -xp.inf, 0, m)
s = xp.exp(x.data - shift).sum(axis=-1, keepdims=True)
lse = shift + xp.log(xp.where(s == 0, 1, s))  # log Σ exp x, 0 for an empty row
out = xp.exp(x.data - lse)  # exp(−∞ − 0) = 0 along an empty row
ctx.save_for_backward(x)
ctx.out = out
return out
"""

SOFTMAX_BACKWARD_EXPANDED = """
y = _probabilities(ctx)
gy = y * grad_output
return gy - y * gy.sum(dim=-1, keepdim=True)
"""

CAUSAL_MASK_BY_ARANGE = """
from ..ch07_device import arange

rows = arange(L, device=device).reshape(L, 1)
cols = arange(S, device=device).reshape(1, S)
return cols <= rows + diagonal
"""

ATTENTION_SCALE_IN_Q = """
from ..ch07_device import where

if scale is None:
    scale = query.shape[-1] ** -0.5
q = query * scale  # scale the queries once, not the (L, S) scores
scores = q @ key.mT
if mask is not None and mask.dtype == bool:
    scores = where(mask, scores, float("-inf"))
elif mask is not None:
    scores = scores + mask
weights = safe_softmax(scores)
out = dropout(weights, dropout_p) @ value
return out, weights
"""

SPLIT_HEADS_BY_PERMUTE = """
*lead, t, e = x.shape
d = e // num_heads
flat = x.reshape(-1, t, num_heads, d).permute(0, 2, 1, 3)  # (B', h, T, d)
return flat.reshape(*lead, num_heads, t, d)
"""

MERGE_HEADS_BY_PERMUTE = """
*lead, h, t, d = x.shape
flat = x.reshape(-1, h, t, d).permute(0, 2, 1, 3)  # (B', T, h, d)
return flat.reshape(*lead, t, h * d)
"""

BLOCK_WITH_EARLY_RETURNS = """
def attend(h):
    return self._sa_block(h, src_mask, src_key_padding_mask, is_causal, kv_cache)

if self.norm_first:
    x = x + attend(self.norm1(x))
    return x + self._ff_block(self.norm2(x))
x = self.norm1(x + attend(x))
return self.norm2(x + self._ff_block(x))
"""

EMBED_BY_INDEXING = """
t = idx.shape[-1]
tokens = self.token_embedding.weight[idx]  # (B, T, E): one row per token id
places = self.position_embedding.weight[start : start + t]  # (T, E)
return tokens + places
"""

TOP_K_BY_SORT = """
from ..ch07_device import where

logits = logits / temperature
if top_k is not None and top_k < logits.shape[-1]:
    ranked = logits.sort(dim=-1, descending=True).values
    threshold = ranked[..., top_k - 1 : top_k]  # the k-th largest, ties included
    logits = where(logits >= threshold, logits, float("-inf"))
return softmax(logits, dim=-1)
"""

CACHE_BY_LISTS = """
if self.keys is None:  # empty (new, or reset): start the lists again
    self._key_parts, self._value_parts = [], []
self._key_parts.append(key)
self._value_parts.append(value)
self.keys = cat(self._key_parts, dim=-2)
self.values = cat(self._value_parts, dim=-2)
return self.keys, self.values
"""

CACHE_MASK_BY_ARANGE = """
from ..ch07_device import arange

s = len(self)
device = self.keys.device
queries = arange(s - new, s, device=device).reshape(new, 1)  # each new query's position
return arange(s, device=device).reshape(1, s) <= queries
"""

ONLINE_STEP_KEY_BY_KEY = """
for j in range(scores.shape[-1]):  # the 2018 online softmax: one key at a time
    s = scores[..., j : j + 1]
    m_new = xp.maximum(m, s)
    safe = xp.where(m_new == -xp.inf, 0, m_new)
    alpha, p = xp.exp(m - safe), xp.exp(s - safe)
    m, total, acc = m_new, alpha * total + p, alpha * acc + p * values[..., j : j + 1, :]
return m, total, acc
"""

FINISH_BY_WHERE = """
seen = total > 0
return xp.where(seen, acc / xp.where(seen, total, 1), 0 * acc)
"""

CORRECT = [
    (
        "safe_softmax by a log-sum-exp",
        SOFTMAX,
        rewrite(SOFTMAX, "9.1", SOFTMAX_BY_LOG_SUM_EXP, SOFTMAX_BACKWARD_EXPANDED),
        "9.1",
    ),
    ("causal_mask by arange comparisons", ATTENTION, ("region", CAUSAL_MASK_BY_ARANGE), "9.2"),
    (
        "attention with the scale folded into q, the mask by where",
        ATTENTION,
        rewrite(ATTENTION, "9.2", None, ATTENTION_SCALE_IN_Q),
        "9.2",
    ),
    (
        "split_heads and merge_heads by a permute of the flattened batch",
        HEADS,
        rewrite(HEADS, "9.3", SPLIT_HEADS_BY_PERMUTE, MERGE_HEADS_BY_PERMUTE),
        "9.3",
    ),
    (
        "the block with a helper and early returns",
        ENCODER,
        ("region", BLOCK_WITH_EARLY_RETURNS),
        "9.4",
    ),
    ("embed by indexing the weight tables", GPT, ("region", EMBED_BY_INDEXING), "9.5"),
    ("top-k by sort and a threshold", SAMPLING, ("region", TOP_K_BY_SORT), "9.6"),
    (
        "the cache keeps lists and concatenates them, its mask by arange",
        CACHE,
        rewrite(CACHE, "9.7", CACHE_BY_LISTS, CACHE_MASK_BY_ARANGE),
        "9.7",
    ),
    (
        "online_step one key at a time, finish by where",
        TILED,
        rewrite(TILED, "9.8", ONLINE_STEP_KEY_BY_KEY, FINISH_BY_WHERE),
        "9.8",
    ),
]

# the variants that passed the public checks when first judged (each noted "was a hole"
# above): the hidden checks must catch them too
HOLES = [
    "safe_softmax subtracts the maximum of the whole array, not of each row",
    "the block drops the key/value cache",
]


SET = VariantSet(
    9,
    "held out",
    VARIANTS,
    CORRECT,
    says=[
        (
            "safe_softmax's backward without the sum term",
            "the gradient is y · g alone",
        ),
        (
            "online_step rescales by the unguarded maximum (−∞ − −∞)",
            "a row that has seen only −∞ so far gave nan",
        ),
        (
            "finish divides by the bare sum (0 / 0 for a row that saw no key)",
            "a row that saw no key (l = 0) gave nan (0 / 0)",
        ),
        (
            "safe_softmax subtracts the raw maximum (−∞ − −∞ on an empty row)",
            "a row whose every score is −∞ gave nan",
        ),
        (
            "safe_softmax subtracts nothing (exp overflows on large scores)",
            "the row's largest value was not subtracted before exp",
        ),
        (
            "safe_softmax's backward from the saved array (not recorded)",
            "the backward's result must be recorded under create_graph",
        ),
        ("causal_mask takes the upper triangle", "the triangle is transposed"),
        ("causal_mask ignores the diagonal", "the diagonal was ignored"),
        ("attention scales by 1/E", "the scores were divided by E, not by √E"),
        (
            "attention scales by the value's width",
            "the scores were divided by √Ev, the values' width",
        ),
        ("attention ignores a given scale", "the scale given was ignored"),
        (
            "attention hides where a bool mask is True",
            "the boolean mask was read the wrong way round",
        ),
        (
            "split_heads swaps the last two axes (T, d, h)",
            "split_heads returned shape (1, 4, 3, 2), expected (…, h, T, E/h)",
        ),
        (
            "split_heads deals the features out to the heads in turn",
            "each head took every h-th feature",
        ),
        (
            "pre-norm carries the normalised x on the residual path",
            "the residual carries the normalised x",
        ),
        ("pre-norm feeds the MLP through norm1", "norm1 was used for both branches"),
        ("positions start at 0 whatever the start", "the positions started at 0, not at start"),
        (
            "the cache keeps only the newest keys and values",
            "update returned only the new keys",
        ),
        (
            "online_step measures the tile against the old maximum",
            "the tile's exponentials were measured against the old maximum",
        ),
        (
            "safe_softmax divides by the bare sum (0 / 0 on an empty row)",
            "a row whose every score is −∞ gave nan",
        ),
        (
            "safe_softmax subtracts the maximum of the whole array, not of each row",
            "the maximum was taken over the whole array, not along each row",
        ),
        (
            "safe_softmax's backward sums over the first axis",
            "Σ g·y was taken along the first axis",
        ),
        ("attention multiplies by a float mask", "the float mask was multiplied with the scores"),
        (
            "attention transposes the key with .T (every axis reversed)",
            ".T reverses every axis of a batched key",
        ),
        (
            "split_heads written for (B, T, E) only",
            "split_heads and merge_heads take any number of leading axes",
        ),
        (
            "merge_heads swaps the last two axes",
            "the last two axes were swapped, not the heads and the positions",
        ),
        (
            "pre-norm's MLP reads the block's input, not the attention's sum",
            "the feed-forward branch read the block's input",
        ),
        (
            "post-norm normalises the branch, not the sum",
            "post-norm normalises the sum, LN₁(x + SA(x)), not the branch",
        ),
        (
            "the block drops the key/value cache",
            "the key/value cache was not passed on to the attention (kv_cache=kv_cache)",
        ),
        ("positions stop at T, not start + T", "the positions ran start … T − 1"),
        (
            "the position table looked up by the token ids",
            "the position table was indexed by the token ids",
        ),
        (
            "the temperature divides the probabilities",
            "the probabilities were divided by the temperature",
        ),
        (
            "top-k compares with the k-th smallest logit",
            "the threshold was the k-th smallest logit",
        ),
        (
            "top-k takes the first row's k-th value for every row",
            "every row was cut at the first row's k-th value",
        ),
        (
            "top-k calls topk even when k is at least the vocabulary",
            "top_k ≥ V keeps every token",
        ),
        (
            "the cache puts the new keys and values first",
            "the new keys were put before the kept ones",
        ),
        (
            "the cache's mask lets the new queries see every key",
            "the new queries saw keys after themselves",
        ),
        (
            "the cache's mask shifts the triangle the wrong way",
            "the triangle was shifted the wrong way (diagonal new − S)",
        ),
        (
            "online_step sums the tile without keepdims",
            "the tile's sum lost its axis (keepdims=True keeps l as (…, Lq, 1))",
        ),
    ],
    holes=HOLES,
    least=(30, 9),
    rewrites_cover=True,
)

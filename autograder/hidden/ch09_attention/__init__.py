"""Hidden checks for chapter 9 — attention and a character-level Transformer (tasks
9.1–9.8).

Rows of chapter 9's public case builders (``checks/ch09_attention/cases``), run by the
public programs and judged by the public verdicts, on other cases than the public ones:
softmax rows with −∞ and ±1e4 together on more leading axes, a second derivative through
a partly masked batch; masks for a single query and a wide diagonal; attention with a
single key, masks broadcasting over the batch only, a float mask with a given scale;
heads on one position and two leading axes; MultiheadAttention with one head and with a
padding mask averaged; blocks of other widths under both norms; embeddings that start at
the last positions; top-k with every logit tied and k = 1 over a batch; caches grown in
uneven steps, a GPT with one head and a prompt of one token; tiles of width one and maxima
that fall, the plain attention over tiles larger than T. Also, as the public rows: a mask
and a cache mask asked for on sim with the default device the CPU, blocks with a padding
mask under both norms, dropout at one half, float32 rows for the softmax, the attention,
the online step and finish. Labels name the kind of case, never the drawn values.
"""

from __future__ import annotations

import numpy as np

from ...checks.ch09_attention import CHECKS as PUBLIC
from ...checks.ch09_attention.cases import (
    attention_case,
    block_cache_case,
    block_case,
    cache_case,
    cache_mask_case,
    causal_mask_case,
    drawn_probs_case,
    dropout_case,
    dropout_half_case,
    embed_case,
    finish_case,
    gpt_cache_case,
    heads_case,
    mha_case,
    online_case,
    probs_case,
    sdpa_case,
    softmax_case,
    tiled_case,
)
from ...harness.api import Case
from ...harness.table import Hidden, Rows, hidden_checks, row

SOFTMAX = Rows(
    [
        row(softmax_case, (2, 2, 5), masked=[(0, 0, 4), (1, 1, 0)], rows=[(1, 0)], large=True),
        row(softmax_case, (4, 1), rows=[(2,)]),
        row(softmax_case, (3, 3), apart=True),
        row(softmax_case, (3, 6), masked=[(0, 5), (2, 0), (2, 1)]),
        row(softmax_case, (2, 2, 4), masked=[(0, 1, 3)], rows=[(1, 0)], dtype="float32"),
    ]
)

SOFTMAX_SECOND = Rows(
    [
        row(softmax_case, (2, 2, 3), masked=[(0, 1, 1)], second=True),
        row(softmax_case, (1, 5), second=True),
    ]
)


def _masks(rng: np.random.Generator) -> list[Case]:
    drawn = [
        (int(rng.integers(1, 7)), int(rng.integers(1, 8)), int(rng.integers(-3, 4)))
        for _ in range(5)
    ]
    return [
        causal_mask_case(rng, [(1, 4, 0), (1, 4, 3), (6, 3, 1), (3, 7, -2)]),
        causal_mask_case(
            rng,
            drawn,
            {"en": "five drawn (L, S, diagonal)", "zh": "随机抽取的五组 (L, S, diagonal)"},
        ),
        causal_mask_case(rng, [(2, 5, 1), (5, 3, -1)], device="sim"),
    ]


ATTENTION = Rows(
    [
        row(attention_case, (2,), 3, 1, 3, 2),
        row(attention_case, (2, 2), 2, 4, 3, 5, kind="bool", mask_shape=(2, 1, 1, 4)),
        row(attention_case, (3,), 4, 4, 2, 3, kind="float", mask_shape=(3, 4, 4), scale=1.3),
        row(attention_case, (1, 3), 4, 2, 5, 2, causal=True),
        row(attention_case, (3,), 2, 3, 4, 2, kind="bool", mask_shape=(3, 2, 3), blind=True),
        row(dropout_case, 3, 2, 3),
        row(attention_case, (1, 2), 2, 3, 3, 2, kind="float", mask_shape=(2, 3), dtype="float32"),
    ]
)

HALF_DROPOUT = Rows([row(dropout_half_case, (3,), 2, 6, 3), row(dropout_half_case, (), 4, 4, 5)])

SDPA = Rows([row(sdpa_case, (2, 2), 4, 2, 3, 3), row(sdpa_case, (1,), 1, 3, 2, 4)])

HEADS = Rows(
    [
        row(heads_case, (2, 2, 3, 6), 3, arange=True),
        row(heads_case, (1, 1, 10), 5),
        row(heads_case, (4, 6), 2),
    ]
)

MHA = Rows(
    [
        row(mha_case, 2, 3, 2, 3, 1),
        row(mha_case, 1, 4, 5, 8, 4, padding=True, average=True),
    ]
)

BLOCKS = Rows(
    [
        row(block_case, 2, 2, 6, 3, 4, norm_first=False, act="gelu"),
        row(block_case, 1, 5, 4, 2, 3, norm_first=True, act="gelu", causal=True),
        row(block_case, 3, 2, 2, 1, 3, norm_first=True, act="relu"),
        row(block_case, 3, 3, 4, 2, 3, norm_first=True, act="relu", causal=True, padding=True),
        row(block_case, 1, 5, 6, 3, 4, norm_first=False, padding=True),
    ]
)

BLOCK_CACHE = Rows(
    [
        row(block_cache_case, 2, 4, 6, 3, 4, norm_first=True, act="relu"),
        row(block_cache_case, 1, 2, 2, 1, 3, norm_first=False),
    ]
)

EMBED = Rows(
    [
        row(embed_case, 2, 1, 3, 5, 3, start=4),
        row(embed_case, 4, 2, 6, 5, 2, start=3, repeat=True),
    ]
)


def _probs(rng: np.random.Generator) -> list[Case]:
    return [
        probs_case(
            [[2.0, 2.0, 2.0, 2.0]], 1.0, 2, {"en": "every logit tied", "zh": "所有 logit 都相等"}
        ),
        probs_case(
            [[0.0, 1.0, 5.0], [4.0, 4.0, -1.0], [1.0, 0.0, 1.0]],
            1.0,
            1,
            {"en": "k = 1, rows", "zh": "k = 1，多行"},
        ),
        drawn_probs_case(rng, (2, 9), 0.6, 4),
        drawn_probs_case(rng, (4, 5), 2.5, None, ties=False),
    ]


CACHE = Rows([row(cache_case, 1, 3, 2, [2, 2, 1, 3]), row(cache_case, 3, 1, 1, [1, 4])])


def _cache_masks(rng: np.random.Generator) -> list[Case]:
    drawn = [int(n) for n in rng.integers(1, 4, 4)]
    return [
        cache_mask_case([1, 1, 1, 1]),
        cache_mask_case(
            drawn, {"en": "four drawn numbers of positions", "zh": "四个随机抽取的位置数"}
        ),
        cache_mask_case([1, 2, 1], device="sim"),
    ]


GPT = Rows(
    [row(gpt_cache_case, 1, 5, 1, 5, 6, 1, 1, 4), row(gpt_cache_case, 3, 4, 2, 6, 4, 2, 4, 8)]
)

ONLINE = Rows(
    [
        row(online_case, (), 3, [1, 1, 1, 1], 2, rising=True),
        row(online_case, (2,), 2, [4, 2], 3, empty_row=True),
        row(online_case, (), 2, [3, 2], 3, rising=True, dtype="float32"),
    ]
)

FINISH = Rows(
    [
        row(finish_case, (1, 2), 4, 1),
        row(finish_case, (), 1, 3),
        row(finish_case, (3,), 2, 2, dtype="float32"),
    ]
)

TILED = Rows(
    [
        row(tiled_case, (1,), 3, 3, 2, 2, 8),
        row(tiled_case, (2, 2), 9, 9, 3, 2, 4, causal=True),
        row(tiled_case, (), 4, 6, 2, 3, 1),
    ]
)

CHECKS = hidden_checks(
    PUBLIC,
    [
        Hidden(
            "safe_softmax: values and the gradient",
            SOFTMAX,
            "safe_softmax (held out)",
            title={"zh": "safe_softmax（隐藏）"},
        ),
        Hidden(
            "safe_softmax: the gradient's gradient",
            SOFTMAX_SECOND,
            "safe_softmax's gradient's gradient (held out)",
            title={"zh": "safe_softmax 的梯度的梯度（隐藏）"},
        ),
        Hidden(
            "causal_mask", _masks, "causal_mask (held out)", title={"zh": "causal_mask（隐藏）"}
        ),
        Hidden(
            "attention: values, weights and gradients",
            ATTENTION,
            "attention (held out)",
            title={"zh": "attention（隐藏）"},
        ),
        Hidden(
            "attention: dropout_p = 0.5 drops the weights",
            HALF_DROPOUT,
            "attention's dropout at one half (held out)",  # en-only: its id
            title={"zh": "attention 的 dropout，p = 0.5（隐藏）"},
        ),
        Hidden(
            "scaled_dot_product_attention: is_causal",
            SDPA,
            "is_causal (held out)",
            title={"zh": "is_causal（隐藏）"},
        ),
        Hidden(
            "split_heads and merge_heads",
            HEADS,
            "split and merge heads (held out)",  # en-only: its id
            title={"zh": "拆分与合并头（隐藏）"},
        ),
        Hidden(
            "MultiheadAttention: PyTorch's layout",
            MHA,
            "MultiheadAttention (held out)",
            title={"zh": "MultiheadAttention（隐藏）"},
        ),
        Hidden(
            "TransformerEncoderLayer: pre-norm and post-norm",
            BLOCKS,
            "TransformerEncoderLayer (held out)",
            title={"zh": "TransformerEncoderLayer（隐藏）"},
        ),
        Hidden(
            "TransformerEncoderLayer: the key/value cache passed on",
            BLOCK_CACHE,
            "TransformerEncoderLayer with a cache (held out)",
            title={"zh": "带缓存的 TransformerEncoderLayer（隐藏）"},
        ),
        Hidden("GPT.embed", EMBED, "GPT.embed (held out)", title={"zh": "GPT.embed（隐藏）"}),
        Hidden(
            "next_token_probs: temperature and top-k",
            _probs,
            "next_token_probs (held out)",
            title={"zh": "next_token_probs（隐藏）"},
        ),
        Hidden(
            "KVCache.update",
            CACHE,
            "KVCache.update (held out)",
            title={"zh": "KVCache.update（隐藏）"},
        ),
        Hidden(
            "KVCache.mask: aligned at the bottom right",
            _cache_masks,
            "KVCache.mask (held out)",
            title={"zh": "KVCache.mask（隐藏）"},
        ),
        Hidden(
            "GPT with the caches: the logits of the full recompute",
            GPT,
            "GPT with the caches (held out)",  # en-only: its id
            title={"zh": "带缓存的 GPT（隐藏）"},
        ),
        Hidden(
            "online_step", ONLINE, "online_step (held out)", title={"zh": "online_step（隐藏）"}
        ),
        Hidden("finish", FINISH, "finish (held out)", title={"zh": "finish（隐藏）"}),
        Hidden(
            "tiled_attention: the plain attention, to 1e-12",
            TILED,
            "tiled_attention (held out)",
            title={"zh": "tiled_attention（隐藏）"},
        ),
    ],
)

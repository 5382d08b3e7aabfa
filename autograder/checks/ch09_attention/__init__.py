"""Public checks for chapter 9 — attention and a character-level Transformer (tasks
9.1–9.8). Every check arrived in course version 1.3.

Every expectation is the parent's own NumPy (``cases.py``: the softmax, the attention, the
heads by index arrays, PyTorch's MultiheadAttention and TransformerEncoderLayer written
out, the GPT, top-k by sorting, the online softmax's state by its definition), and every
gradient the complex step of it (``gradcheck.vjp``; second derivatives ``gradcheck.hvp``),
never the code under test nor the reference:

- 9.1 ``safe_softmax`` values (rows partly and fully −∞, scores near ±1e4), its gradient,
  zero along a row of −∞, and its gradient's gradient (``create_graph=True``); a float32
  row (out and the gradient stay float32, to 1e-5).
- 9.2 ``causal_mask`` for L ≠ S and several diagonals, and on ``device="sim"`` while the
  default device is the CPU; ``attention`` with the default and a given scale, bool and
  float masks broadcasting over batch and heads, E ≠ Ev and L ≠ S, the weights returned
  (before dropout), the q, k, v gradients, a float32 row; dropout_p = 0.5 with v = [I | 1]
  (the weights dropped, not the output: checked without the generator's draws); SDPA's
  ``is_causal``.
- 9.3 ``split_heads``/``merge_heads`` on arange inputs, the round trip, leading axes, the
  gradient; ``nn.MultiheadAttention`` (given code over 9.2 and 9.3) against PyTorch's
  layout written out.
- 9.4 ``TransformerEncoderLayer`` pre-norm and post-norm, gelu and relu, a causal mask, a
  ``src_key_padding_mask``, and the input's gradient.
- 9.5 ``GPT.embed`` for start 0 and start > 0, B ≠ T, the gradients of both tables.
- 9.6 ``next_token_probs``: temperature, top-k with ties at the k-th value, top_k ≥ V, rows.
- 9.7 ``KVCache.update`` and ``mask`` (bottom-right; on the keys' device), and a GPT's
  logits with the caches against the parent's full recompute.
- 9.8 ``online_step`` over tiles whose maxima rise, ``finish`` (each with a float32 row),
  ``tiled_attention`` to 1e-12.

Checks that run another task's code say so (``requires``); ``standins.py`` tells whose bug
a check met.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...harness.api import Case, Check
from ...harness.table import Field, Fields, Mistake, Rows, first, row, rules, where
from . import programs
from .cases import (
    ATTENTION_WORDS,
    BLOCK_SLIPS,
    BLOCK_WORDS,
    CACHE_WORDS,
    DEVICE_WORDS,
    DROPOUT_WORDS,
    EMBED_WORDS,
    FINISH_WORDS,
    FLOAT32_WORDS,
    HEADS_WORDS,
    MASK_WORDS,
    ONLINE_WORDS,
    PADDING_WORDS,
    PROBS_WORDS,
    SOFTMAX_WORDS,
    UNDIVIDED,
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

SINCE = "1.3"
SOFTMAX = ("9.1",)
ATTENTION = ("9.1", "9.2")
HEADS = ("9.1", "9.2", "9.3")
MODEL = ("9.1", "9.2", "9.3", "9.4", "9.5")
VALUES = (1e-9, 1e-10)
GRADS = (1e-8, 1e-9)
FLOAT32 = (1e-5, 1e-6)  # float32 results against the float64 reference of the same inputs


def _float32(case: Case) -> bool:
    """Whether the case's inputs are float32 (its first array among x, q, scores, acc)."""
    for key in ("x", "q", "scores", "acc"):
        if key in case.inputs:
            first_array = case.inputs[key]
            first_array = first_array[0] if isinstance(first_array, list) else first_array
            return np.asarray(first_array).dtype == np.float32
    return False


def _tolerance(tolerances: tuple[float, float]) -> Any:
    """FLOAT32 for a float32 case, else ``tolerances``."""
    return lambda case: FLOAT32 if _float32(case) else tolerances


def _kept_dtype(*keys: str) -> Any:
    """For a float32 case: every array the record holds under ``keys`` (lists too) is
    float32."""

    def verdict(case: Case, got: Any) -> str | None:
        if not _float32(case) or not isinstance(got, dict):
            return None
        for key in keys:
            found = got.get(key)
            for i, a in enumerate(found if isinstance(found, list) else [found]):
                if isinstance(a, np.ndarray) and a.dtype != np.float32:
                    where = f"{key}[{i}]" if isinstance(found, list) else key
                    return f"{where} has dtype {a.dtype} for float32 inputs: {FLOAT32_WORDS}"
        return None

    return verdict


def _backward_failed() -> Any:
    return rules(
        (lambda case, got: got.get("backward_error"), "the backward failed: {got[backward_error]}")
    )


def _returned(what: str) -> Any:
    return rules(
        (lambda case, got: got.get("returned"), f"{what}, received {{got[returned]}}"),
    )


# -- 9.1 safe_softmax --------------------------------------------------------------------------

softmax_verdict = first(
    _kept_dtype("out", "grad"),
    Fields(
        [Field("out", "safe_softmax(x)", tolerance=_tolerance(VALUES))],
        [
            Mistake("out", lambda case: case.expected.nan, SOFTMAX_WORDS["nan"]),
            Mistake("out", lambda case: case.expected.unshifted, SOFTMAX_WORDS["unshifted"]),
            Mistake("out", lambda case: case.expected.whole, SOFTMAX_WORDS["whole"]),
        ],
    ),
    _backward_failed(),
    Fields(
        [Field("grad", "x.grad (∂L/∂x for upstream g)", tolerance=_tolerance(GRADS))],
        [
            Mistake("grad", lambda case: case.expected.grad_nan, SOFTMAX_WORDS["grad nan"]),
            *(
                Mistake("grad", lambda case, n=n: case.expected.grad_wrong[n], SOFTMAX_WORDS[n])
                for n in (
                    "grad diagonal",
                    "grad jacobian diagonal",
                    "grad axis 0",
                    "grad all",
                    "grad sign",
                    "grad no y",
                )
            ),
        ],
    ),
    where(
        lambda case: case.expected.grad_grad is not None,
        first(
            rules(
                (
                    lambda case, got: got.get("second_error"),
                    "the gradient's gradient failed: {got[second_error]} (the backward's "
                    "result must be recorded under create_graph: Tensor operations, not bare "
                    "arrays)",
                )
            ),
            Fields([Field("grad_grad", "∂⟨∂L/∂x, w⟩/∂x (the gradient's gradient)", 1e-6, 1e-8)]),
        ),
    ),
)


# -- 9.2 causal_mask, attention ----------------------------------------------------------------


def _mask_names(case: Case) -> list[str]:
    return ["causal_mask({}, {}, diagonal={})".format(*r) for r in case.inputs["rows"]]


def _on_device(what: str) -> Any:
    """Every mask on the device the case asks for (where it asks)."""
    return rules(
        (
            lambda case, got: (
                case.expected.device
                and next((d for d in got.get("devices") or [] if d != case.expected.device), None)
            ),
            f"{what} returned a mask on {{0}}, expected one on {{want.device}}: {DEVICE_WORDS}",
        )
    )


mask_verdict = first(
    _on_device("causal_mask(L, S, diagonal, device=…)"),
    rules(
        (
            lambda case, got: next((d for d in got.get("dtypes", []) if d != "bool"), None),
            "causal_mask returned dtype {0}: a mask that says where a query may look is bool",
        ),
        keys=["dtypes", "masks"],
    ),
    Fields(
        [Field("masks.*", _mask_names, 0, 0)],
        [
            Mistake("masks.*", lambda case: case.expected.triu, MASK_WORDS["triu"]),
            Mistake("masks.*", lambda case: case.expected.flat, MASK_WORDS["flat"]),
        ],
    ),
)


def _attention_mistakes(field: str, index: int) -> list[Mistake]:
    def wrong(name: str) -> Any:
        return lambda case: case.expected.wrong[name][index]

    return [Mistake(field, wrong(name), words) for name, words in ATTENTION_WORDS.items()]


attention_verdict = first(
    _returned("attention returns the pair (out, weights)"),
    _kept_dtype("out", "weights", "grads"),
    Fields(
        [
            Field(
                "weights",
                "the weights (softmax of the masked, scaled scores)",
                tolerance=_tolerance(VALUES),
            ),
            Field("out", "out (the weights times v)", tolerance=_tolerance(VALUES)),
        ],
        [*_attention_mistakes("weights", 1), *_attention_mistakes("out", 0)],
    ),
    _backward_failed(),
    where(
        lambda case: bool(case.expected.grads),
        Fields(
            [
                Field(
                    "grads.*",
                    ["q.grad", "k.grad", "v.grad"],
                    expected=lambda c: c.expected.grads,
                    tolerance=_tolerance(GRADS),
                )
            ]
        ),
    ),
)


def _half_dropout(case: Case, got: Any) -> str | None:
    """out = dropout(w) @ [I | 1]: out[…, :S] each 0 or w/(1 − p), out[…, S] their sum."""
    w, p = case.expected.weights, case.expected.p
    out = got.get("out")
    if not isinstance(out, np.ndarray) or out.shape != case.expected.shape:
        return (
            f"out: expected shape {case.expected.shape}, received "
            f"{getattr(out, 'shape', type(out).__name__)}"
        )
    head, last = out[..., :-1], out[..., -1]
    close = lambda a, b: np.isclose(a, b, rtol=VALUES[0], atol=VALUES[1])
    if np.allclose(head, w, rtol=VALUES[0], atol=VALUES[1]):
        return f"out[…, :S] equals the weights, none dropped: {DROPOUT_WORDS['ignored']}"
    summed = close(last, head.sum(axis=-1))
    scaled = 1 / (1 - p)
    if not summed.all() and (close(last, 0) | close(last, scaled)).all():
        return f"out[…, S] is not the sum of out[…, :S]: {DROPOUT_WORDS['output']}"
    if not (close(head, 0) | close(head, w * scaled)).all():
        return (
            "out[…, :S] (v = [I | 1]: the dropped weights) holds values that are neither 0 "
            f"nor w/(1 − p) = {scaled:g}·w: out = dropout(weights, p) @ v, each weight kept "
            "and scaled by 1/(1 − p), or dropped"
        )
    if not summed.all():
        return (
            "out[…, S] (v's column of ones) is not the sum of out[…, :S]: out = dropout(weights) "
            "@ v, the same dropped weights for every column of v"
        )
    return None


def _weights_dropped(case: Case, got: Any) -> str | None:
    w, p = case.expected.weights, case.expected.p
    found = got.get("weights")
    if not isinstance(found, np.ndarray) or found.shape != w.shape or np.allclose(found, w):
        return None
    dropped = np.isclose(found, 0) | np.isclose(found, w / (1 - p))
    return f"the weights differ: {ATTENTION_WORDS['dropped weights']}" if dropped.all() else None


half_dropout_verdict = first(
    _returned("attention returns the pair (out, weights)"),
    _weights_dropped,
    Fields([Field("weights", "the weights (before dropout)", *VALUES)], then=_half_dropout),
)

sdpa_verdict = Fields(
    [Field("out", "F.scaled_dot_product_attention(q, k, v, is_causal=True)", *VALUES)],
    [Mistake("out", lambda case: case.expected.wrong["triu"], MASK_WORDS["triu"])],
)


# -- 9.3 heads ---------------------------------------------------------------------------------


def _split_shape(case: Case, got: Any) -> str | None:
    want = case.expected.split.shape
    shape = getattr(got.get("split"), "shape", None)
    if shape is None or shape == want:
        return None
    *lead, h, t, d = want
    words = ""
    if len(shape) == len(want) and shape[-3] == h and shape[-2] != t and shape[-1] != d:
        words = (
            " (the heads were cut out of the positions T: each position's features E are cut "
            "into h slices of E/h, and every head sees every position)"
        )
    elif shape == (*lead, t, h, d):
        words = (
            " (the head axis was not moved in front of the positions: (…, T, h, d) → (…, h, T, d))"
        )
    return f"split_heads returned shape {shape}, expected (…, h, T, E/h) = {want}{words}"


heads_verdict = first(
    _split_shape,
    Fields(
        [
            Field("split", lambda c: f"split_heads(x, {c.inputs['h']})", 0, 0),
            Field("merged", "merge_heads(y) for y of shape (…, h, T, d)", 0, 0),
            Field("back", "merge_heads(split_heads(x, h)) (the round trip gives x back)", 0, 0),
        ],
        [
            Mistake(
                "split",
                lambda c: c.expected.split_wrong["no transpose"],
                HEADS_WORDS["split no transpose"],
            ),
            Mistake(
                "split",
                lambda c: c.expected.split_wrong["interleaved"],
                HEADS_WORDS["split interleaved"],
            ),
            Mistake(
                "merged",
                lambda c: c.expected.merge_wrong["no transpose"],
                HEADS_WORDS["merge no transpose"],
            ),
            Mistake(
                "merged",
                lambda c: c.expected.merge_wrong["interleaved"],
                HEADS_WORDS["merge interleaved"],
            ),
            Mistake(
                "merged",
                lambda c: c.expected.merge_wrong["last two"],
                HEADS_WORDS["merge last two"],
            ),
        ],
    ),
    _backward_failed(),
    Fields([Field("grad", "x.grad through split_heads (∂⟨split_heads(x), g⟩/∂x)", *GRADS)]),
)

mha_verdict = first(
    Fields(
        [
            Field("out", "MultiheadAttention's output", *VALUES),
            Field("weights", "MultiheadAttention's attention weights", *VALUES),
        ],
        [
            Mistake(
                "out",
                lambda c: c.expected.wrong["split no transpose"],
                HEADS_WORDS["split no transpose"],
            )
        ],
    ),
    _backward_failed(),
    Fields(
        [
            Field(
                "grads.*",
                ["query.grad", "key.grad", "value.grad"],
                *GRADS,
                expected=lambda c: c.expected.grads,
            )
        ]
    ),
)


# -- 9.4 the block -----------------------------------------------------------------------------

block_verdict = first(
    Fields(
        [Field("out", "the layer's output", *VALUES)],
        [
            *(
                Mistake("out", lambda c, s=s: c.expected.wrong[s], BLOCK_WORDS[s])
                for s in BLOCK_SLIPS
            ),
            Mistake("out", lambda c: c.expected.wrong["no padding"], PADDING_WORDS),
        ],
    ),
    _backward_failed(),
    where(
        lambda case: case.expected.grad is not None,
        Fields([Field("grad", "src.grad (∂L/∂x through the layer)", *GRADS)]),
    ),
)


block_cache_verdict = first(
    rules(
        (
            lambda case, got: not got.get("updates"),
            "the key/value cache was not passed on to the attention (kv_cache=kv_cache): with "
            "a cache the block would see only the new positions, never the kept ones",
        ),
        keys=["out", "updates"],
    ),
    Fields(
        [
            Field("updates", "the shapes of the keys and values the cache received", 0, 0),
            Field("out", "the layer's output", *VALUES),
        ]
    ),
)


# -- 9.5 embeddings ----------------------------------------------------------------------------


def _embed_shape(case: Case, got: Any) -> str | None:
    """An output of shape (T, B or T, E): the position rows laid along the batch axis."""
    shape, want = getattr(got.get("out"), "shape", None), case.expected.out.shape
    if shape is None or shape == want or len(shape) != 3 or shape[0] != want[1]:
        return None
    return (
        f"embed returned shape {shape}, expected (B, T, E) = {want}: the position rows (T, E) "
        "were laid along the batch axis, (T, 1, E); they broadcast over the batch as (T, E)"
    )


embed_verdict = first(
    _embed_shape,
    Fields(
        [Field("out", lambda c: f"embed(idx, start={c.inputs['start']})", *VALUES)],
        [Mistake("out", lambda c, n=n: c.expected.wrong[n], EMBED_WORDS[n]) for n in EMBED_WORDS],
    ),
    _backward_failed(),
    Fields(
        [
            Field(
                "grads.*",
                ["token_embedding.weight.grad", "position_embedding.weight.grad"],
                *GRADS,
                expected=lambda c: c.expected.grads,
            )
        ]
    ),
)


# -- 9.6 sampling ------------------------------------------------------------------------------

probs_verdict = Fields(
    [Field("probs", "next_token_probs(logits, temperature, top_k)", *VALUES)],
    [Mistake("probs", lambda c, n=n: c.expected.wrong[n], PROBS_WORDS[n]) for n in PROBS_WORDS],
)


# -- 9.7 the cache -----------------------------------------------------------------------------

cache_verdict = first(
    _returned("update returns the pair (keys, values)"),
    Fields(
        [
            Field("keys.*", "the keys update call {i} returned", 0, 0),
            Field("values.*", "the values update call {i} returned", 0, 0),
            Field("lengths", "len(cache) after each update", 0, 0),
        ],
        [
            Mistake("keys.*", lambda c: c.expected.wrong["keys new"], CACHE_WORDS["keys new"]),
            Mistake("keys.*", lambda c: c.expected.wrong["new first"], CACHE_WORDS["new first"]),
            Mistake(
                "values.*", lambda c: c.expected.wrong["values kept"], CACHE_WORDS["values kept"]
            ),
            Mistake(
                "values.*", lambda c: c.expected.wrong["values new"], CACHE_WORDS["values new"]
            ),
        ],
    ),
)


def _axis_words(case: Case, got: Any) -> str | None:
    """A shape of the concatenation along another axis than the positions, named."""
    for key, name in (("keys", "keys"), ("values", "values")):
        for i, (a, want) in enumerate(zip(got.get(key) or [], getattr(case.expected, key))):
            shape = getattr(a, "shape", None)
            if shape is None or shape == want.shape:
                continue
            parts = case.inputs["ks" if key == "keys" else "vs"][: i + 1]
            for axis in (0, 1, -1):
                if np.concatenate(parts, axis=axis).shape == shape:
                    return (
                        f"the {name} update call {i} returned have shape {shape}, expected "
                        f"{want.shape}: they were concatenated along axis {axis}; the "
                        "positions are axis −2 of (B, h, S, d)"
                    )
    return None


cache_mask_verdict = first(
    _on_device("KVCache.mask for keys on another device than the default"),
    Fields(
        [Field("masks.*", "the mask after update {i}", 0, 0)],
        [
            Mistake("masks.*", lambda c: c.expected.top_left, CACHE_WORDS["top-left"]),
            Mistake("masks.*", lambda c: c.expected.everything, CACHE_WORDS["everything"]),
            Mistake("masks.*", lambda c: c.expected.left, CACHE_WORDS["left"]),
        ],
    ),
)

gpt_verdict = Fields(
    [
        Field("full", "the model's logits on the whole sequence, without caches", 1e-8, 1e-9),
        Field("lengths", "len(caches[0]) after each call", 0, 0),
        Field(
            "cached",
            "the logits through the caches (prompt, then one token a call), side by side",
            1e-8,
            1e-9,
        ),
    ]
)


# -- 9.8 tiles ---------------------------------------------------------------------------------


def _online_mistakes(key: str) -> list[Mistake]:
    return [
        Mistake(f"{key}.*", lambda c, s=s: c.expected.wrong[s][key], ONLINE_WORDS[s])
        for s in ONLINE_WORDS
    ]


def _online_shapes(case: Case, got: Any) -> str | None:
    """l of another shape than (…, Lq, 1): the tile's sum lost its axis."""
    for i, (found, want) in enumerate(zip(got.get("l") or [], case.expected.l)):
        shape = getattr(found, "shape", None)
        if shape is not None and shape != want.shape:
            return (
                f"l after tile {i} has shape {shape}, expected {want.shape}: the tile's sum "
                "lost its axis (keepdims=True keeps l as (…, Lq, 1)) and broadcast"
            )
    return None


online_verdict = first(
    _returned("online_step returns the triple (m, l, acc)"),
    _online_shapes,
    _kept_dtype("m", "l", "acc"),
    Fields(
        [
            Field("m.*", "m (the running maximum) after tile {i}", tolerance=_tolerance(VALUES)),
            Field(
                "l.*",
                "l (the running sum of exponentials) after tile {i}",
                tolerance=_tolerance(VALUES),
            ),
            Field(
                "acc.*",
                "acc (the running weighted values) after tile {i}",
                tolerance=_tolerance(VALUES),
            ),
        ],
        [*_online_mistakes("m"), *_online_mistakes("l"), *_online_mistakes("acc")],
    ),
)

finish_verdict = first(
    _kept_dtype("out"),
    Fields(
        [Field("out", "finish((m, l, acc))", tolerance=_tolerance(VALUES))],
        [
            Mistake("out", lambda c: c.expected["nan"], FINISH_WORDS),
            Mistake("out", lambda c: c.expected["undivided"], UNDIVIDED),
        ],
    ),
)
tiled_verdict = Fields([Field("out", "tiled_attention(q, k, v)", 1e-12, 1e-12)])


# -- the cases ---------------------------------------------------------------------------------


def _softmax_rows() -> Rows:
    return Rows(
        [
            row(softmax_case, (3, 5), masked=[(0, 0), (0, 3), (2, 4)]),
            row(softmax_case, (2, 4), masked=[(0, 1)], rows=[(1,)]),
            row(softmax_case, (2, 3, 4), masked=[(0, 1, 2)], rows=[(1, 2)]),
            row(softmax_case, (2, 5), large=True),
            row(softmax_case, (2, 4), apart=True),
            row(softmax_case, (2, 3, 4), large=True, rows=[(0, 1)]),
            row(softmax_case, (3, 5), masked=[(0, 1), (2, 2)], rows=[(1,)], dtype="float32"),
        ]
    )


def _softmax_second_rows() -> Rows:
    return Rows(
        [
            row(softmax_case, (2, 3), second=True),
            row(softmax_case, (3, 4), masked=[(1, 2)], second=True),
        ]
    )


MASK_ROWS = ([(3, 3, 0), (2, 5, 0), (5, 2, 0)], [(3, 5, 2), (4, 4, -1), (2, 4, 1)])
MASK_DEVICE_ROWS = [(3, 4, 0), (4, 4, -1)]  # asked for on "sim", the default the CPU


def _attention_rows() -> Rows:
    return Rows(
        [
            row(attention_case, (1,), 2, 3, 4, 3),
            row(attention_case, (2,), 3, 4, 4, 2, scale=0.3),
            row(attention_case, (1,), 3, 3, 2, 3, causal=True),
            row(attention_case, (2, 2), 3, 4, 4, 3, kind="bool", mask_shape=(3, 4)),
            row(attention_case, (2, 2), 2, 5, 3, 2, kind="bool", mask_shape=(2, 1, 2, 5)),
            row(attention_case, (2, 3), 3, 4, 2, 4, kind="float", mask_shape=(1, 3, 1, 4)),
            row(attention_case, (2,), 4, 3, 3, 5, kind="float", scale=0.7),
            row(attention_case, (2,), 3, 4, 2, 3, kind="bool", blind=True),
            row(attention_case, (), 3, 6, 4, 3),
            row(dropout_case, 2, 3, 4),
            row(attention_case, (2,), 3, 4, 4, 3, kind="bool", dtype="float32"),
        ]
    )


def _half_dropout_rows() -> Rows:
    return Rows([row(dropout_half_case, (1,), 3, 5, 4), row(dropout_half_case, (2, 2), 4, 3, 2)])


def _sdpa_rows() -> Rows:
    return Rows([row(sdpa_case, (1, 2), 3, 3, 4, 2), row(sdpa_case, (2,), 2, 4, 3, 3)])


def _heads_rows() -> Rows:
    return Rows(
        [
            row(heads_case, (1, 4, 6), 2, arange=True),
            row(heads_case, (1, 3, 8), 2, arange=True),
            row(heads_case, (2, 5, 6), 3, arange=True),
            row(heads_case, (3, 8), 4, arange=True),
            row(heads_case, (2, 3, 4, 6), 2),
            row(heads_case, (2, 3, 4), 1),
            row(heads_case, (1, 2, 6), 6),
        ]
    )


def _mha_rows() -> Rows:
    return Rows(
        [
            row(mha_case, 1, 2, 3, 4, 2),
            row(mha_case, 2, 3, 4, 6, 3, padding=True),
            row(mha_case, 2, 2, 3, 4, 2, average=True),
        ]
    )


def _block_rows() -> Rows:
    return Rows(
        [
            row(block_case, 1, 3, 4, 2, 6, norm_first=True),
            row(block_case, 2, 3, 4, 2, 5, norm_first=False, act="relu"),
            row(block_case, 2, 4, 6, 3, 8, norm_first=True, act="relu", causal=True),
            row(block_case, 1, 4, 4, 1, 4, norm_first=False, causal=True),
            row(block_case, 2, 4, 4, 2, 6, norm_first=True, padding=True),
            row(block_case, 2, 4, 6, 3, 5, norm_first=False, act="relu", causal=True, padding=True),
        ]
    )


def _embed_rows() -> Rows:
    return Rows(
        [
            row(embed_case, 1, 3, 5, 6, 4),
            row(embed_case, 2, 3, 5, 6, 4, start=2),
            row(embed_case, 3, 2, 4, 8, 3, start=1, repeat=True),
            row(embed_case, 2, 4, 7, 4, 2),
        ]
    )


def _probs_cases(rng: np.random.Generator) -> list[Case]:
    return [
        probs_case([[1.0, 3.0, 3.0, 2.0]], 1.0, 1, "a tie at the top"),
        probs_case([[0.5, -1.0, 2.0, 0.0]], 0.5, None, "τ < 1 sharpens"),
        probs_case([[0.5, -1.0, 2.0, 0.0]], 2.0, None, "τ > 1 flattens"),
        probs_case([[1.0, 3.0, 2.0, 2.0, 0.0]], 1.0, 2, "a tie at the k-th value"),
        probs_case([[1.0, 4.0, 2.0, 0.5, 3.0]], 0.7, 3, "no ties"),
        probs_case([[2.0, -1.0, 0.5]], 1.5, 3, "top_k = V"),
        probs_case([[2.0, -1.0, 0.5]], 1.0, 10, "top_k > V"),
        probs_case(
            [[1.0, 2.0, 2.0, 0.0, 2.0, -1.0], [3.0, 1.0, 0.0, 1.0, 2.0, 1.0]], 0.8, 3, "a batch"
        ),
        drawn_probs_case(rng, (3, 7), 1.3, 3),
    ]


def _cache_rows() -> Rows:
    return Rows(
        [
            row(cache_case, 1, 1, 2, [1, 1, 1]),
            row(cache_case, 2, 2, 3, [3, 1, 2]),
        ]
    )


def _gpt_rows() -> Rows:
    return Rows(
        [row(gpt_cache_case, 1, 4, 2, 5, 4, 1, 2, 4), row(gpt_cache_case, 2, 6, 3, 7, 8, 2, 2, 8)]
    )


def _online_rows() -> Rows:
    return Rows(
        [
            row(online_case, (), 2, [3], 2),
            row(online_case, (), 2, [2, 3, 2], 3, rising=True),
            row(online_case, (2,), 3, [2, 2], 2, rising=True, empty_row=True),
            row(online_case, (1, 2), 2, [3, 1, 2], 2),
            row(online_case, (2,), 2, [2, 3], 2, rising=True, empty_row=True, dtype="float32"),
        ]
    )


def _finish_rows() -> Rows:
    return Rows(
        [
            row(finish_case, (), 3, 2),
            row(finish_case, (2,), 2, 3),
            row(finish_case, (2,), 3, 2, dtype="float32"),
        ]
    )


def _tiled_rows() -> Rows:
    return Rows(
        [
            row(tiled_case, (1,), 5, 5, 3, 2, 2),
            row(tiled_case, (2,), 7, 7, 4, 3, 3, causal=True),
            row(tiled_case, (1, 2), 5, 7, 3, 4, 3),
            row(tiled_case, (2,), 6, 6, 2, 2, 4, causal=True),
        ]
    )


CHECKS = [
    Check(
        "9.1",
        "safe_softmax: values and the gradient",
        _softmax_rows(),
        programs.safe_softmax,
        softmax_verdict,
        since=SINCE,
    ),
    Check(
        "9.1",
        "safe_softmax: the gradient's gradient",
        _softmax_second_rows(),
        programs.safe_softmax,
        softmax_verdict,
        since=SINCE,
    ),
    Check(
        "9.2",
        "causal_mask",
        Rows.of(
            *(causal_mask_case(None, rows) for rows in MASK_ROWS),
            causal_mask_case(None, MASK_DEVICE_ROWS, device="sim"),
        ),
        programs.causal_masks,
        mask_verdict,
        since=SINCE,
    ),
    Check(
        "9.2",
        "attention: values, weights and gradients",
        _attention_rows(),
        programs.attention,
        attention_verdict,
        SOFTMAX,
        since=SINCE,
    ),
    Check(
        "9.2",
        "attention: dropout_p = 0.5 drops the weights",
        _half_dropout_rows(),
        programs.attention,
        half_dropout_verdict,
        SOFTMAX,
        since=SINCE,
    ),
    Check(
        "9.2",
        "scaled_dot_product_attention: is_causal",
        _sdpa_rows(),
        programs.sdpa,
        sdpa_verdict,
        SOFTMAX,
        since=SINCE,
    ),
    Check(
        "9.3",
        "split_heads and merge_heads",
        _heads_rows(),
        programs.heads,
        heads_verdict,
        since=SINCE,
    ),
    Check(
        "9.3",
        "MultiheadAttention: PyTorch's layout",
        _mha_rows(),
        programs.mha,
        mha_verdict,
        ATTENTION,
        since=SINCE,
    ),
    Check(
        "9.4",
        "TransformerEncoderLayer: pre-norm and post-norm",
        _block_rows(),
        programs.block,
        block_verdict,
        HEADS,
        since=SINCE,
    ),
    Check(
        "9.4",
        "TransformerEncoderLayer: the key/value cache passed on",
        Rows(
            [
                row(block_cache_case, 1, 3, 4, 2, 5, norm_first=True),
                row(block_cache_case, 2, 2, 4, 2, 6, norm_first=False, act="relu"),
            ]
        ),
        programs.block_cache,
        block_cache_verdict,
        HEADS,
        since=SINCE,
    ),
    Check("9.5", "GPT.embed", _embed_rows(), programs.embed, embed_verdict, since=SINCE),
    Check(
        "9.6",
        "next_token_probs: temperature and top-k",
        _probs_cases,
        programs.probs,
        probs_verdict,
        since=SINCE,
    ),
    Check(
        "9.7",
        "KVCache.update",
        _cache_rows(),
        programs.cache,
        first(_axis_words, cache_verdict),
        since=SINCE,
    ),
    Check(
        "9.7",
        "KVCache.mask: aligned at the bottom right",
        Rows.of(
            cache_mask_case([3, 1, 1]),
            cache_mask_case([2, 3]),
            cache_mask_case([2, 1], device="sim"),
        ),
        programs.cache_masks,
        cache_mask_verdict,
        ("9.2",),
        since=SINCE,
    ),
    Check(
        "9.7",
        "GPT with the caches: the logits of the full recompute",
        _gpt_rows(),
        programs.gpt_cache,
        gpt_verdict,
        MODEL,
        since=SINCE,
    ),
    Check("9.8", "online_step", _online_rows(), programs.online, online_verdict, since=SINCE),
    Check("9.8", "finish", _finish_rows(), programs.finish, finish_verdict, since=SINCE),
    Check(
        "9.8",
        "tiled_attention: the plain attention, to 1e-12",
        _tiled_rows(),
        programs.tiled,
        tiled_verdict,
        since=SINCE,
    ),
]

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
from ...harness.table import Field, Fields, Mistake, Rows, first, row, rules, say, tr, where
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
                    return tr(
                        f"{where} has dtype {a.dtype} for float32 inputs: {say(FLOAT32_WORDS)}",
                        f"输入为 float32 时 {where} 的数据类型却是 {a.dtype}：{say(FLOAT32_WORDS)}",
                    )
        return None

    return verdict


def _backward_failed() -> Any:
    return rules(
        (
            lambda case, got: got.get("backward_error"),
            {
                "en": "the backward failed: {got[backward_error]}",
                "zh": "反向传播失败：{got[backward_error]}",
            },
        )
    )


def _returned(what: Any) -> Any:
    """``what`` (a Text: what the function returns), received what the record says."""
    return rules(
        (
            lambda case, got: got.get("returned"),
            {"en": "{what}, received {got[returned]}", "zh": "{what}，实际收到 {got[returned]}"},
        ),
        facts=lambda case, got: {"what": say(what)},
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
        [
            Field(
                "grad",
                {"en": "x.grad (∂L/∂x for upstream g)", "zh": "x.grad（上游梯度为 g 时的 ∂L/∂x）"},
                tolerance=_tolerance(GRADS),
            )
        ],
        [
            Mistake("grad", lambda case: case.expected.grad_nan, SOFTMAX_WORDS["grad nan"]),
            *(
                Mistake("grad", lambda case, n=n: case.expected.grad_wrong[n], SOFTMAX_WORDS[n])
                for n in (
                    "grad diagonal",
                    "grad jacobian diagonal",  # en-only: a slip's key
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
                    {
                        "en": (
                            "the gradient's gradient failed: {got[second_error]} (the backward's "
                            "result must be recorded under create_graph: Tensor operations, not "
                            "bare arrays)"
                        ),
                        "zh": (
                            "梯度的梯度计算失败：{got[second_error]}（在 create_graph 下，反向函数"
                            "的结果必须被记录进计算图：要用 Tensor 运算，而不是裸数组）"
                        ),
                    },
                )
            ),
            Fields(
                [
                    Field(
                        "grad_grad",
                        {
                            "en": "∂⟨∂L/∂x, w⟩/∂x (the gradient's gradient)",
                            "zh": "∂⟨∂L/∂x, w⟩/∂x（梯度的梯度）",
                        },
                        1e-6,
                        1e-8,
                    )
                ]
            ),
        ),
    ),
)


# -- 9.2 causal_mask, attention ----------------------------------------------------------------


def _mask_names(case: Case) -> list[str]:
    return ["causal_mask({}, {}, diagonal={})".format(*r) for r in case.inputs["rows"]]


def _on_device(what: Any) -> Any:
    """Every mask on the device the case asks for (where it asks); ``what`` (a Text) names
    the call."""
    return rules(
        (
            lambda case, got: (
                case.expected.device
                and next((d for d in got.get("devices") or [] if d != case.expected.device), None)
            ),
            {
                "en": "{what} returned a mask on {0}, expected one on {want.device}: {words}",
                "zh": "{what} 返回的掩码在 {0} 上，期望在 {want.device} 上：{words}",
            },
        ),
        facts=lambda case, got: {"what": say(what), "words": say(DEVICE_WORDS)},
    )


mask_verdict = first(
    _on_device("causal_mask(L, S, diagonal, device=…)"),
    rules(
        (
            lambda case, got: next((d for d in got.get("dtypes", []) if d != "bool"), None),
            {
                "en": (
                    "causal_mask returned dtype {0}: a mask that says where a query may look is "
                    "bool"
                ),
                "zh": "causal_mask 返回的数据类型是 {0}：表示查询可以看哪里的掩码应是 bool 类型",
            },
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


RETURNS_PAIR = {
    "en": "attention returns the pair (out, weights)",
    "zh": "attention 应返回二元组 (out, weights)",
}

attention_verdict = first(
    _returned(RETURNS_PAIR),
    _kept_dtype("out", "weights", "grads"),
    Fields(
        [
            Field(
                "weights",
                {
                    "en": "the weights (softmax of the masked, scaled scores)",
                    "zh": "权重（对施加掩码并缩放后的分数做 softmax）",
                },
                tolerance=_tolerance(VALUES),
            ),
            Field(
                "out",
                {"en": "out (the weights times v)", "zh": "out（权重乘以 v）"},
                tolerance=_tolerance(VALUES),
            ),
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
        return tr(
            f"out: expected shape {case.expected.shape}, received "
            f"{getattr(out, 'shape', type(out).__name__)}",
            f"out：期望形状 {case.expected.shape}，实际收到 "
            f"{getattr(out, 'shape', type(out).__name__)}",
        )
    head, last = out[..., :-1], out[..., -1]
    close = lambda a, b: np.isclose(a, b, rtol=VALUES[0], atol=VALUES[1])
    if np.allclose(head, w, rtol=VALUES[0], atol=VALUES[1]):
        return tr(
            f"out[…, :S] equals the weights, none dropped: {say(DROPOUT_WORDS['ignored'])}",
            f"out[…, :S] 等于权重，一个也没有丢弃：{say(DROPOUT_WORDS['ignored'])}",
        )
    summed = close(last, head.sum(axis=-1))
    scaled = 1 / (1 - p)
    if not summed.all() and (close(last, 0) | close(last, scaled)).all():
        return tr(
            f"out[…, S] is not the sum of out[…, :S]: {say(DROPOUT_WORDS['output'])}",
            f"out[…, S] 不是 out[…, :S] 之和：{say(DROPOUT_WORDS['output'])}",
        )
    if not (close(head, 0) | close(head, w * scaled)).all():
        return tr(
            "out[…, :S] (v = [I | 1]: the dropped weights) holds values that are neither 0 "
            f"nor w/(1 − p) = {scaled:g}·w: out = dropout(weights, p) @ v, each weight kept "
            "and scaled by 1/(1 − p), or dropped",
            "out[…, :S]（v = [I | 1]：即 dropout 后的权重）中有既不是 0 也不是 "
            f"w/(1 − p) = {scaled:g}·w 的值：out = dropout(weights, p) @ v，每个权重要么保留"
            "并乘以 1/(1 − p)，要么被丢弃",
        )
    if not summed.all():
        return tr(
            "out[…, S] (v's column of ones) is not the sum of out[…, :S]: out = dropout(weights) "
            "@ v, the same dropped weights for every column of v",
            "out[…, S]（v 中全为 1 的那一列）不是 out[…, :S] 之和：out = dropout(weights) @ v，"
            "v 的每一列都用同一组 dropout 后的权重",
        )
    return None


def _weights_dropped(case: Case, got: Any) -> str | None:
    w, p = case.expected.weights, case.expected.p
    found = got.get("weights")
    if not isinstance(found, np.ndarray) or found.shape != w.shape or np.allclose(found, w):
        return None
    dropped = np.isclose(found, 0) | np.isclose(found, w / (1 - p))
    if not dropped.all():
        return None
    return tr(
        f"the weights differ: {say(ATTENTION_WORDS['dropped weights'])}",
        f"权重不一致：{say(ATTENTION_WORDS['dropped weights'])}",
    )


half_dropout_verdict = first(
    _returned(RETURNS_PAIR),
    _weights_dropped,
    Fields(
        [
            Field(
                "weights",
                {"en": "the weights (before dropout)", "zh": "权重（dropout 之前）"},
                *VALUES,
            )
        ],
        then=_half_dropout,
    ),
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
        words = tr(
            " (the heads were cut out of the positions T: each position's features E are cut "
            "into h slices of E/h, and every head sees every position)",
            "（头是从位置 T 中切出来的：应把每个位置的 E 个特征切成 h 段、每段 E/h 个，"
            "每个头都能看到每个位置）",
        )
    elif shape == (*lead, t, h, d):
        words = tr(
            " (the head axis was not moved in front of the positions: (…, T, h, d) → (…, h, T, d))",
            "（没有把头轴移到位置之前：(…, T, h, d) → (…, h, T, d)）",
        )
    return tr(
        f"split_heads returned shape {shape}, expected (…, h, T, E/h) = {want}{words}",
        f"split_heads 返回的形状为 {shape}，期望 (…, h, T, E/h) = {want}{words}",
    )


heads_verdict = first(
    _split_shape,
    Fields(
        [
            Field("split", lambda c: f"split_heads(x, {c.inputs['h']})", 0, 0),
            Field(
                "merged",
                {
                    "en": "merge_heads(y) for y of shape (…, h, T, d)",
                    "zh": "merge_heads(y)，y 的形状为 (…, h, T, d)",
                },
                0,
                0,
            ),
            Field(
                "back",
                {
                    "en": "merge_heads(split_heads(x, h)) (the round trip gives x back)",
                    "zh": "merge_heads(split_heads(x, h))（往返一次应得回 x）",
                },
                0,
                0,
            ),
        ],
        [
            Mistake(
                "split",
                lambda c: c.expected.split_wrong["no transpose"],
                HEADS_WORDS["split no transpose"],  # en-only: a slip's key
            ),
            Mistake(
                "split",
                lambda c: c.expected.split_wrong["interleaved"],
                HEADS_WORDS["split interleaved"],
            ),
            Mistake(
                "merged",
                lambda c: c.expected.merge_wrong["no transpose"],
                HEADS_WORDS["merge no transpose"],  # en-only: a slip's key
            ),
            Mistake(
                "merged",
                lambda c: c.expected.merge_wrong["interleaved"],
                HEADS_WORDS["merge interleaved"],
            ),
            Mistake(
                "merged",
                lambda c: c.expected.merge_wrong["last two"],
                HEADS_WORDS["merge last two"],  # en-only: a slip's key
            ),
        ],
    ),
    _backward_failed(),
    Fields(
        [
            Field(
                "grad",
                {
                    "en": "x.grad through split_heads (∂⟨split_heads(x), g⟩/∂x)",
                    "zh": "经过 split_heads 的 x.grad（∂⟨split_heads(x), g⟩/∂x）",
                },
                *GRADS,
            )
        ]
    ),
)

mha_verdict = first(
    Fields(
        [
            Field(
                "out",
                {"en": "MultiheadAttention's output", "zh": "MultiheadAttention 的输出"},
                *VALUES,
            ),
            Field(
                "weights",
                {
                    "en": "MultiheadAttention's attention weights",
                    "zh": "MultiheadAttention 的注意力权重",
                },
                *VALUES,
            ),
        ],
        [
            Mistake(
                "out",
                lambda c: c.expected.wrong["split no transpose"],  # en-only: a slip's key
                HEADS_WORDS["split no transpose"],  # en-only: a slip's key
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

LAYER_OUTPUT = {"en": "the layer's output", "zh": "该层的输出"}

block_verdict = first(
    Fields(
        [Field("out", LAYER_OUTPUT, *VALUES)],
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
        Fields(
            [
                Field(
                    "grad",
                    {
                        "en": "src.grad (∂L/∂x through the layer)",
                        "zh": "src.grad（经过该层的 ∂L/∂x）",
                    },
                    *GRADS,
                )
            ]
        ),
    ),
)


block_cache_verdict = first(
    rules(
        (
            lambda case, got: not got.get("updates"),
            {
                "en": (
                    "the key/value cache was not passed on to the attention (kv_cache=kv_cache): "
                    "with a cache the block would see only the new positions, never the kept ones"
                ),
                "zh": (
                    "键/值缓存没有传给注意力（kv_cache=kv_cache）：有缓存时，这个块就只能看到"
                    "新的位置，永远看不到已保存的位置"
                ),
            },
        ),
        keys=["out", "updates"],
    ),
    Fields(
        [
            Field(
                "updates",
                {
                    "en": "the shapes of the keys and values the cache received",
                    "zh": "缓存收到的键和值的形状",
                },
                0,
                0,
            ),
            Field("out", LAYER_OUTPUT, *VALUES),
        ]
    ),
)


# -- 9.5 embeddings ----------------------------------------------------------------------------


def _embed_shape(case: Case, got: Any) -> str | None:
    """An output of shape (T, B or T, E): the position rows laid along the batch axis."""
    shape, want = getattr(got.get("out"), "shape", None), case.expected.out.shape
    if shape is None or shape == want or len(shape) != 3 or shape[0] != want[1]:
        return None
    return tr(
        f"embed returned shape {shape}, expected (B, T, E) = {want}: the position rows (T, E) "
        "were laid along the batch axis, (T, 1, E); they broadcast over the batch as (T, E)",
        f"embed 返回的形状为 {shape}，期望 (B, T, E) = {want}：位置行 (T, E) 被沿批量轴排成了 "
        "(T, 1, E)；它们应以 (T, E) 的形状在批量上广播",
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
    [Field("probs", "next_token_probs(logits, temperature, top_k)", *VALUES)],  # en-only: code
    [Mistake("probs", lambda c, n=n: c.expected.wrong[n], PROBS_WORDS[n]) for n in PROBS_WORDS],
)


# -- 9.7 the cache -----------------------------------------------------------------------------

cache_verdict = first(
    _returned(
        {"en": "update returns the pair (keys, values)", "zh": "update 应返回二元组 (keys, values)"}
    ),
    Fields(
        [
            Field(
                "keys.*",
                {"en": "the keys update call {i} returned", "zh": "第 {i} 次调用 update 返回的键"},
                0,
                0,
            ),
            Field(
                "values.*",
                {
                    "en": "the values update call {i} returned",
                    "zh": "第 {i} 次调用 update 返回的 value（值张量）",
                },
                0,
                0,
            ),
            Field(
                "lengths",
                {"en": "len(cache) after each update", "zh": "每次更新后的 len(cache)"},
                0,
                0,
            ),
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
    for key, name in (
        ("keys", {"en": "keys", "zh": "键"}),
        ("values", {"en": "values", "zh": "值"}),
    ):
        for i, (a, want) in enumerate(zip(got.get(key) or [], getattr(case.expected, key))):
            shape = getattr(a, "shape", None)
            if shape is None or shape == want.shape:
                continue
            parts = case.inputs["ks" if key == "keys" else "vs"][: i + 1]
            for axis in (0, 1, -1):
                if np.concatenate(parts, axis=axis).shape == shape:
                    return tr(
                        f"the {say(name)} update call {i} returned have shape {shape}, expected "
                        f"{want.shape}: they were concatenated along axis {axis}; the "
                        "positions are axis −2 of (B, h, S, d)",
                        f"第 {i} 次调用 update 返回的{say(name)}形状为 {shape}，期望 "
                        f"{want.shape}：它们是沿轴 {axis} 拼接的；位置是 (B, h, S, d) 的轴 −2",
                    )
    return None


cache_mask_verdict = first(
    _on_device(
        {
            "en": "KVCache.mask for keys on another device than the default",
            "zh": "键不在默认设备上时的 KVCache.mask",
        }
    ),
    Fields(
        [
            Field(
                "masks.*",
                {"en": "the mask after update {i}", "zh": "第 {i} 次更新后的掩码"},
                0,
                0,
            )
        ],
        [
            Mistake("masks.*", lambda c: c.expected.top_left, CACHE_WORDS["top-left"]),
            Mistake("masks.*", lambda c: c.expected.everything, CACHE_WORDS["everything"]),
            Mistake("masks.*", lambda c: c.expected.left, CACHE_WORDS["left"]),
        ],
    ),
)

gpt_verdict = Fields(
    [
        Field(
            "full",
            {
                "en": "the model's logits on the whole sequence, without caches",
                "zh": "模型在整个序列上（不用缓存）的 logits",
            },
            1e-8,
            1e-9,
        ),
        Field(
            "lengths",
            {"en": "len(caches[0]) after each call", "zh": "每次调用后的 len(caches[0])"},
            0,
            0,
        ),
        Field(
            "cached",
            {
                "en": "the logits through the caches (prompt, then one token a call), side by side",
                "zh": "经由缓存得到的 logits（先是提示，再每次调用一个词元），依次拼接",
            },
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
            return tr(
                f"l after tile {i} has shape {shape}, expected {want.shape}: the tile's sum "
                "lost its axis (keepdims=True keeps l as (…, Lq, 1)) and broadcast",
                f"处理完块 {i} 后 l 的形状为 {shape}，期望 {want.shape}：块内求和丢掉了那个轴"
                "（keepdims=True 让 l 保持 (…, Lq, 1)），然后发生了广播",
            )
    return None


online_verdict = first(
    _returned(
        {
            "en": "online_step returns the triple (m, l, acc)",
            "zh": "online_step 应返回三元组 (m, l, acc)",
        }
    ),
    _online_shapes,
    _kept_dtype("m", "l", "acc"),
    Fields(
        [
            Field(
                "m.*",
                {
                    "en": "m (the running maximum) after tile {i}",
                    "zh": "处理完块 {i} 后的 m（累计最大值）",
                },
                tolerance=_tolerance(VALUES),
            ),
            Field(
                "l.*",
                {
                    "en": "l (the running sum of exponentials) after tile {i}",
                    "zh": "处理完块 {i} 后的 l（指数的累计和）",
                },
                tolerance=_tolerance(VALUES),
            ),
            Field(
                "acc.*",
                {
                    "en": "acc (the running weighted values) after tile {i}",
                    "zh": "处理完块 {i} 后的 acc（累计的加权值）",
                },
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
        probs_case(
            [[1.0, 3.0, 3.0, 2.0]], 1.0, 1, {"en": "a tie at the top", "zh": "最大值有并列"}
        ),
        probs_case(
            [[0.5, -1.0, 2.0, 0.0]], 0.5, None, {"en": "τ < 1 sharpens", "zh": "τ < 1 使分布更尖锐"}
        ),
        probs_case(
            [[0.5, -1.0, 2.0, 0.0]], 2.0, None, {"en": "τ > 1 flattens", "zh": "τ > 1 使分布更平坦"}
        ),
        probs_case(
            [[1.0, 3.0, 2.0, 2.0, 0.0]],
            1.0,
            2,
            {"en": "a tie at the k-th value", "zh": "第 k 个值有并列"},
        ),
        probs_case([[1.0, 4.0, 2.0, 0.5, 3.0]], 0.7, 3, {"en": "no ties", "zh": "没有并列"}),
        probs_case([[2.0, -1.0, 0.5]], 1.5, 3, "top_k = V"),
        probs_case([[2.0, -1.0, 0.5]], 1.0, 10, "top_k > V"),
        probs_case(
            [[1.0, 2.0, 2.0, 0.0, 2.0, -1.0], [3.0, 1.0, 0.0, 1.0, 2.0, 1.0]],
            0.8,
            3,
            {"en": "a batch", "zh": "一个批量"},
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
        title={"zh": "safe_softmax：值与梯度"},
    ),
    Check(
        "9.1",
        "safe_softmax: the gradient's gradient",
        _softmax_second_rows(),
        programs.safe_softmax,
        softmax_verdict,
        since=SINCE,
        title={"zh": "safe_softmax：梯度的梯度"},
    ),
    Check(
        "9.2",
        "causal_mask",
        Rows(  # built when the cases are made: the labels in the learner's language
            [
                *(row(causal_mask_case, rows) for rows in MASK_ROWS),
                row(causal_mask_case, MASK_DEVICE_ROWS, device="sim"),
            ]
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
        title={"zh": "attention：值、权重与梯度"},
    ),
    Check(
        "9.2",
        "attention: dropout_p = 0.5 drops the weights",
        _half_dropout_rows(),
        programs.attention,
        half_dropout_verdict,
        SOFTMAX,
        since=SINCE,
        title={"zh": "attention：dropout_p = 0.5 丢弃的是权重"},
    ),
    Check(
        "9.2",
        "scaled_dot_product_attention: is_causal",
        _sdpa_rows(),
        programs.sdpa,
        sdpa_verdict,
        SOFTMAX,
        since=SINCE,
        title={"zh": "scaled_dot_product_attention：is_causal"},
    ),
    Check(
        "9.3",
        "split_heads and merge_heads",
        _heads_rows(),
        programs.heads,
        heads_verdict,
        since=SINCE,
        title={"zh": "split_heads 与 merge_heads"},
    ),
    Check(
        "9.3",
        "MultiheadAttention: PyTorch's layout",
        _mha_rows(),
        programs.mha,
        mha_verdict,
        ATTENTION,
        since=SINCE,
        title={"zh": "MultiheadAttention：PyTorch 的参数布局"},
    ),
    Check(
        "9.4",
        "TransformerEncoderLayer: pre-norm and post-norm",
        _block_rows(),
        programs.block,
        block_verdict,
        HEADS,
        since=SINCE,
        title={"zh": "TransformerEncoderLayer：前置归一化与后置归一化"},
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
        title={"zh": "TransformerEncoderLayer：把键/值缓存传下去"},
    ),
    Check("9.5", "GPT.embed", _embed_rows(), programs.embed, embed_verdict, since=SINCE),
    Check(
        "9.6",
        "next_token_probs: temperature and top-k",
        _probs_cases,
        programs.probs,
        probs_verdict,
        since=SINCE,
        title={"zh": "next_token_probs：温度与 top-k"},
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
        Rows(  # built when the cases are made: the labels in the learner's language
            [
                lambda rng: cache_mask_case([3, 1, 1]),
                lambda rng: cache_mask_case([2, 3]),
                lambda rng: cache_mask_case([2, 1], device="sim"),
            ]
        ),
        programs.cache_masks,
        cache_mask_verdict,
        ("9.2",),
        since=SINCE,
        title={"zh": "KVCache.mask：对齐在右下角"},
    ),
    Check(
        "9.7",
        "GPT with the caches: the logits of the full recompute",
        _gpt_rows(),
        programs.gpt_cache,
        gpt_verdict,
        MODEL,
        since=SINCE,
        title={"zh": "带缓存的 GPT：与完整重算的 logits 一致"},
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
        title={"zh": "tiled_attention：与普通注意力一致，误差 1e-12 以内"},
    ),
]

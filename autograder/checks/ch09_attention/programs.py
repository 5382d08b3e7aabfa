"""The check programs of chapter 9: the only part of its checks that runs next to the code
under test (standard library, NumPy and the kit only). Each returns what it saw and decides
nothing.

Functions are looked up on their modules at each call (``softmax.safe_softmax``,
``attention.attention``, ``heads.split_heads``, …), so a stand-in installed for a rerun is
the one called. An error in a backward pass is returned as data (``backward_error``); a
stub's NotImplementedError goes on up (the task is not started)."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from ...harness.kit import array, attempt, fill, tr


def module(sp, name: str) -> Any:
    """The chapter's module ``name`` (``softmax``, ``attention``, ``heads``, …)."""
    return importlib.import_module(f"{sp.__name__}.{name}")


def error(result: dict) -> str:
    return f"{result['error']}: {result['message']}"


def tensor(sp, data: Any, requires_grad: bool = False) -> Any:
    return sp.Tensor(np.array(data), requires_grad=requires_grad)


def placed(sp, values: Any) -> Any:
    """``values`` as an array where the checks' tensors go: the chapter's own Tensor makes
    it, so under ``--device sim`` it is a device array, else NumPy's."""
    return sp.Tensor(np.array(values)).data


@contextmanager
def default_on_cpu(sp) -> Iterator[None]:
    """The default device the CPU for the block, whatever it was (``--device sim`` makes sim
    the default): a result made without ``device=`` then lands on the CPU, where it shows."""
    before = sp.get_default_device()
    sp.set_default_device(None)
    try:
        yield
    finally:
        sp.set_default_device(None if before.type == "cpu" else before)


def on_device(sp, data: Any, where: str) -> Any:
    """A tensor of ``data`` on the device ``where`` ("sim"), put there by the autograder's
    own means (the simulated device's ``asarray``, given code), not by a default."""
    assert where == "sim", where
    return sp.Tensor._from_array(sp.simulated.simnumpy.asarray(np.array(data)))


def device_type(t: Any) -> str:
    """The type of a tensor's device ("cpu", "sim"), or what it is instead."""
    found = getattr(getattr(t, "device", None), "type", None)
    return str(found) if found is not None else f"<{type(t).__name__} without a device>"


def _grads(sp, out: Any, leaves: list, g: Any, create_graph: bool = False) -> dict:
    """The leaves' gradients for upstream g, or the error the backward met."""
    upstream = tensor(sp, g)
    result = attempt(lambda: sp.autograd.grad(out, leaves, upstream, create_graph=create_graph))
    if result["error"]:
        return {"backward_error": error(result)}
    return {"grads": list(result["value"])}


class _Words:
    """Adds ``words`` to the message of an exception of type ``kind`` raised inside the
    block when ``holds(message)``, and lets it go on up (its "raised at" line stays): the
    only words a program writes. ``words`` is {"en": …, "zh": …}, said in the learner's
    language when the exception passes."""

    def __init__(self, kind: type, holds: Any, words: dict) -> None:
        self.kind, self.holds, self.words = kind, holds, words

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, error: Any, trace: Any) -> bool:
        if kind is None or issubclass(kind, NotImplementedError):  # a stub: not started
            return False
        if issubclass(kind, self.kind) and error.args:
            if self.holds(str(error.args[0])):
                words = tr(self.words["en"], self.words["zh"])
                error.args = (f"{error.args[0]}{words}", *error.args[1:])
        return False


KEEPDIMS = {
    "en": (
        " — a reduction along the row lost its axis: keepdims=True keeps the row's maximum or "
        "sum as (…, 1), so that it broadcasts against the row"
    ),
    "zh": (
        " —— 沿行的归约丢掉了那个轴：keepdims=True 让该行的最大值或和保持为 (…, 1)，"
        "这样它才能与该行广播"
    ),
}
TRANSPOSED = {
    "en": (
        " — .T reverses every axis of a batched key: the scores need kᵀ of the last two axes "
        "only (transpose(-2, -1))"
    ),
    "zh": (" —— 对带批量维的键，.T 会反转所有轴：分数只需要最后两个轴的 kᵀ（transpose(-2, -1)）"),
}
LEAD = {
    "en": (
        " — split_heads and merge_heads take any number of leading axes before (T, E) and "
        "(h, T, d), also none"
    ),
    "zh": (
        " —— split_heads 和 merge_heads 要接受 (T, E) 和 (h, T, d) 之前任意多个前导轴，"
        "也包括没有前导轴"
    ),
}
FLOAT64 = {
    "en": (
        " — computed in float64: the result must keep the input's dtype (float32); something "
        "inside made a float64 array from float32 inputs (a NumPy array or constant of the "
        "default dtype), and the next operation met the two"
    ),
    "zh": (
        " —— 按 float64 计算了：结果必须保持输入的数据类型（float32）；内部某处由 float32 输入"
        "产生了 float64 数组（默认数据类型的 NumPy 数组或常量），下一个运算就同时遇到了这两种类型"
    ),
}
FLOAT_MASK = {
    "en": (
        " — a float mask is added to the scores (scores + mask); only a bool mask is inverted "
        "and filled with −∞ (masked_fill), so look at mask.dtype first"
    ),
    "zh": (
        " —— 浮点掩码是加到分数上的（scores + mask）；只有布尔掩码才取反并用 −∞ 填充"
        "（masked_fill），所以先看 mask.dtype"
    ),
}
WHOLE = {
    "en": (
        " — top_k ≥ V keeps every token: topk of more values than the row holds raises, so "
        "the cut is skipped then"
    ),
    "zh": (" —— top_k ≥ V 时保留所有词元：对一行取多于其长度的 topk 会报错，所以这时要跳过截断"),
}


def safe_softmax(sp, x: Any, g: Any, w: Any = None) -> dict:
    """safe_softmax(x), ∂L/∂x for upstream g and, given w, ∂⟨∂L/∂x, w⟩/∂x."""
    a = tensor(sp, x, requires_grad=True)
    with _Words(ValueError, lambda m: "broadcast" in m, KEEPDIMS):
        out = module(sp, "softmax").safe_softmax(a)
    seen: dict[str, Any] = {"out": array(out, keep=True)}
    found = _grads(sp, out, [a], g, create_graph=w is not None)
    if "backward_error" in found:
        return {**seen, **found}
    (grad,) = found["grads"]
    seen["grad"] = array(grad, keep=True)
    if w is not None:
        result = attempt(lambda: sp.autograd.grad((grad * tensor(sp, w)).sum(), [a]))
        if result["error"]:
            seen["second_error"] = error(result)
        else:
            seen["grad_grad"] = array(result["value"][0], keep=True)
    return seen


def causal_masks(sp, rows: list, device: str | None = None) -> dict:
    """causal_mask(L, S, diagonal) for each row: dtypes and values (as ints); with
    ``device``, causal_mask(L, S, diagonal, device=device) with the CPU the default device,
    and each mask's device."""
    make = module(sp, "attention").causal_mask
    if device:
        with default_on_cpu(sp):
            made = [make(*row, device=device) for row in rows]
    else:
        made = [make(*row) for row in rows]
    found = [array(m, keep=True) for m in made]
    seen = {
        "dtypes": [str(getattr(m, "dtype", type(m).__name__)) for m in found],
        "masks": [m.astype(np.int64) if isinstance(m, np.ndarray) else m for m in found],
    }
    if device:
        seen["devices"] = [device_type(m) for m in made]
    return seen


def attention(
    sp, q: Any, k: Any, v: Any, mask: Any, scale: Any, g: Any, dropout_p: float = 0.0
) -> dict:
    """attention(q, k, v, mask, scale, dropout_p): out, weights and, given g, the gradients
    of q, k and v."""
    needs = g is not None
    Q, K, V = (tensor(sp, a, requires_grad=needs) for a in (q, k, v))
    M = None if mask is None else tensor(sp, mask)
    reversed_key = str(tuple(reversed(np.shape(k))))
    float32 = np.asarray(q).dtype == np.float32
    float_mask = mask is not None and np.asarray(mask).dtype != bool
    with (
        _Words(Exception, lambda m: len(np.shape(k)) > 2 and reversed_key in m, TRANSPOSED),
        _Words(Exception, lambda m: float32 and "float64" in m and "float32" in m, FLOAT64),
        _Words(TypeError, lambda m: float_mask and "invert" in m, FLOAT_MASK),
    ):
        result = module(sp, "attention").attention(Q, K, V, M, scale, dropout_p)
    if not isinstance(result, tuple) or len(result) != 2:
        return {"returned": f"<{type(result).__name__}>"}
    out, weights = result
    seen: dict[str, Any] = {"out": array(out, keep=True), "weights": array(weights, keep=True)}
    if needs:
        found = _grads(sp, out, [Q, K, V], g)
        seen.update(
            {"grads": [array(t, keep=True) for t in found["grads"]]} if "grads" in found else found
        )
    return seen


def sdpa(sp, q: Any, k: Any, v: Any) -> dict:
    """F.scaled_dot_product_attention(q, k, v, is_causal=True)."""
    out = sp.nn.functional.scaled_dot_product_attention(
        tensor(sp, q), tensor(sp, k), tensor(sp, v), is_causal=True
    )
    return {"out": array(out, keep=True)}


def heads(sp, x: Any, h: int, y: Any, g: Any) -> dict:
    """split_heads(x, h), merge_heads(y), merge_heads(split_heads(x)) and split's gradient."""
    mod = module(sp, "heads")
    a = tensor(sp, x, requires_grad=True)
    with _Words(ValueError, lambda m: "values to unpack" in m, LEAD):  # en-only: Python's words
        split = mod.split_heads(a, h)
        seen: dict[str, Any] = {"split": array(split, keep=True)}
        seen["merged"] = array(mod.merge_heads(tensor(sp, y)), keep=True)
    seen["back"] = array(mod.merge_heads(mod.split_heads(tensor(sp, x), h)), keep=True)
    found = _grads(sp, split, [a], g)
    if "backward_error" in found:
        return {**seen, **found}
    seen["grad"] = array(found["grads"][0], keep=True)
    return seen


def _load(sp, model: Any, params: dict) -> None:
    """Each parameter's values written in place, by its state_dict name."""
    mine = dict(model.named_parameters())
    for name, value in params.items():
        fill(sp, mine[name].data, np.asarray(value))


def mha(
    sp, params: dict, query: Any, key: Any, value: Any, h: int, padding: Any, average: bool, g: Any
) -> dict:
    """nn.MultiheadAttention(E, h, batch_first=True) with the weights given: out, weights
    and the gradients of query, key and value."""
    e = np.shape(query)[-1]
    layer = sp.nn.MultiheadAttention(e, h, batch_first=True, dtype="float64")
    _load(sp, layer, params)
    Q, K, V = (tensor(sp, a, requires_grad=True) for a in (query, key, value))
    mask = None if padding is None else tensor(sp, np.asarray(padding, dtype=bool))
    out, weights = layer(Q, K, V, key_padding_mask=mask, average_attn_weights=average)
    seen: dict[str, Any] = {"out": array(out, keep=True), "weights": array(weights, keep=True)}
    found = _grads(sp, out, [Q, K, V], g)
    seen.update(
        {"grads": [array(t, keep=True) for t in found["grads"]]} if "grads" in found else found
    )
    return seen


def block(
    sp,
    params: dict,
    x: Any,
    E: int,
    h: int,
    ff: int,
    act: str,
    norm_first: bool,
    causal: bool,
    g: Any,
    padding: Any = None,
) -> dict:
    """TransformerEncoderLayer(E, h, ff, 0.0, act, batch_first=True, norm_first) with the
    weights given, on x; with ``causal`` the float causal src_mask and is_causal=True; with
    ``padding`` (B, T) the bool src_key_padding_mask (True: hidden)."""
    nn = sp.nn
    layer = nn.TransformerEncoderLayer(
        E, h, ff, 0.0, act, batch_first=True, norm_first=norm_first, dtype="float64"
    )
    _load(sp, layer, params)
    X = tensor(sp, x, requires_grad=g is not None)
    t = np.shape(x)[1]
    mask = nn.generate_square_subsequent_mask(t, dtype=X.dtype) if causal else None
    pad = None if padding is None else tensor(sp, np.asarray(padding, dtype=bool))
    out = layer(X, src_mask=mask, src_key_padding_mask=pad, is_causal=causal)
    seen: dict[str, Any] = {"out": array(out, keep=True)}
    if g is not None:
        found = _grads(sp, out, [X], g)
        if "backward_error" in found:
            return {**seen, **found}
        seen["grad"] = array(found["grads"][0], keep=True)
    return seen


class _Probe:
    """A stand-in for a key/value cache that records what it is given: ``update`` keeps the
    shapes of the keys and values it receives and hands them back as they came (the
    attention then sees only the new positions, as without a cache), ``mask`` says no mask.
    Whether the block passed it on is in its record."""

    def __init__(self) -> None:
        self.updates: list = []

    def update(self, key: Any, value: Any) -> tuple:
        self.updates.append([list(key.shape), list(value.shape)])
        return key, value

    def mask(self, new: int) -> None:
        return None

    def __len__(self) -> int:
        return 0


def block_cache(
    sp, params: dict, x: Any, E: int, h: int, ff: int, act: str, norm_first: bool, **_: Any
) -> dict:
    """The layer with the weights given, called on x with ``kv_cache=`` a probe: its output
    and what the probe was given."""
    layer = sp.nn.TransformerEncoderLayer(
        E, h, ff, 0.0, act, batch_first=True, norm_first=norm_first, dtype="float64"
    )
    _load(sp, layer, params)
    probe = _Probe()
    out = layer(tensor(sp, x), kv_cache=probe)
    return {"out": array(out, keep=True), "updates": probe.updates}


def embed(sp, tok: Any, pos: Any, idx: Any, start: int, g: Any, V: int, block: int, E: int) -> dict:
    """GPT(V, block, 1, 1, E).embed(idx, start) with the tables given, and the tables'
    gradients for upstream g."""
    model = sp.GPT(V, block, 1, 1, E, dtype="float64")
    _load(sp, model, {"token_embedding.weight": tok, "position_embedding.weight": pos})
    out = model.embed(sp.Tensor(np.array(idx)), start)
    seen: dict[str, Any] = {"out": array(out, keep=True)}
    leaves = [model.token_embedding.weight, model.position_embedding.weight]
    found = _grads(sp, out, leaves, g)
    if "backward_error" in found:
        return {**seen, **found}
    seen["grads"] = [array(t, keep=True) for t in found["grads"]]
    return seen


def probs(sp, logits: Any, temperature: float, top_k: Any) -> dict:
    """next_token_probs(logits, temperature, top_k)."""
    whole = top_k is not None and top_k >= np.shape(logits)[-1]
    with _Words(Exception, lambda m: whole and ("range" in m or "topk" in m), WHOLE):
        found = module(sp, "sampling").next_token_probs(tensor(sp, logits), temperature, top_k)
    return {"probs": array(found, keep=True)}


def cache(sp, ks: list, vs: list) -> dict:
    """A KVCache updated with each (key, value): what each update returned and len after."""
    c = module(sp, "cache").KVCache()
    keys, vals, lengths = [], [], []
    for k, v in zip(ks, vs):
        got = c.update(tensor(sp, k), tensor(sp, v))
        if not isinstance(got, tuple) or len(got) != 2:
            return {"returned": f"<{type(got).__name__}>"}
        keys.append(array(got[0], keep=True))
        vals.append(array(got[1], keep=True))
        lengths.append(len(c))
    return {"keys": keys, "values": vals, "lengths": lengths}


def cache_masks(sp, steps: list, device: str | None = None) -> dict:
    """KVCache.mask(new) after each update of ``new`` positions (B = h = d = 1); with
    ``device``, the keys and values on it and the CPU the default device, and each mask's
    device."""
    c = module(sp, "cache").KVCache()
    masks, devices = [], []
    for n in steps:
        if device:
            with default_on_cpu(sp):
                zeros = on_device(sp, np.zeros((1, 1, n, 1)), device)
                c.update(zeros, zeros)
                made = c.mask(n)
            devices.append(device_type(made))
        else:
            zeros = tensor(sp, np.zeros((1, 1, n, 1)))
            c.update(zeros, zeros)
            made = c.mask(n)
        m = array(made, keep=True)
        masks.append(m.astype(np.int64) if isinstance(m, np.ndarray) else m)
    return {"masks": masks, "devices": devices} if device else {"masks": masks}


def gpt_cache(sp, params: dict, idx: Any, prompt: int, config: list) -> dict:
    """GPT(*config) with the weights given, in eval mode without grad: the logits of idx at
    once, and through its caches (the prompt, then one token at a time, concatenated)."""
    model = sp.GPT(*config, dtype="float64")
    _load(sp, model, params)
    model.eval()
    ids = np.array(idx)
    with sp.no_grad():
        full = array(model(sp.Tensor(ids)), keep=True)
        caches = model.new_caches()
        parts = [array(model(sp.Tensor(ids[:, :prompt]), caches), keep=True)]
        lengths = [len(caches[0])]
        for t in range(prompt, ids.shape[1]):
            parts.append(array(model(sp.Tensor(ids[:, t : t + 1]), caches), keep=True))
            lengths.append(len(caches[0]))
    return {"full": full, "cached": np.concatenate(parts, axis=1), "lengths": lengths}


def online(sp, scores: list, values: list) -> dict:
    """online_step folded over the tiles from the empty state (in the scores' dtype): each
    step's (m, l, acc)."""
    step = module(sp, "tiled").online_step
    lead, dtype = np.shape(scores[0])[:-1], np.asarray(scores[0]).dtype
    state = (
        placed(sp, np.full((*lead, 1), -np.inf, dtype=dtype)),
        placed(sp, np.zeros((*lead, 1), dtype=dtype)),
        placed(sp, np.zeros((*lead, np.shape(values[0])[-1]), dtype=dtype)),
    )
    seen: dict[str, list] = {"m": [], "l": [], "acc": []}
    for s, v in zip(scores, values):
        state = step(state, placed(sp, s), placed(sp, v))
        if not isinstance(state, tuple) or len(state) != 3:
            return {"returned": f"<{type(state).__name__}>"}
        for name, part in zip(("m", "l", "acc"), state):
            seen[name].append(array(part, keep=True))
    return seen


def finish(sp, m: Any, l: Any, acc: Any) -> dict:  # noqa: E741
    """finish((m, l, acc))."""
    return {
        "out": array(
            module(sp, "tiled").finish((placed(sp, m), placed(sp, l), placed(sp, acc))), keep=True
        )
    }


def tiled(sp, q: Any, k: Any, v: Any, causal: bool, tile: int) -> dict:
    """tiled_attention(q, k, v, is_causal, tile_size=tile)."""
    out = module(sp, "tiled").tiled_attention(
        tensor(sp, q), tensor(sp, k), tensor(sp, v), is_causal=causal, tile_size=tile
    )
    return {"out": array(out, keep=True)}

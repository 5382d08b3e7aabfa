"""Chapter 9's stand-ins (see ``autograder/harness/standin.py``): the autograder's own
version of a task, installed into the code under test for a rerun of a check that needs it
(9.2's attention runs 9.1's softmax; MultiheadAttention runs 9.2 and 9.3; the block runs
MultiheadAttention; the GPT with its caches runs 9.1–9.5).

Each is enough for the checks that lean on it and deliberately short of its own task, so
pasted into that task it fails (the course repository's ``test_contracts.py``):

- 9.1: ``safe_softmax`` is an operation of the chapter's ``Function`` kind on NumPy arrays,
  whose backward returns an unrecorded array: no gradient's gradient (9.1's second check
  fails); everything after 9.1 differentiates through it once.
- 9.2: ``causal_mask`` compares indices in NumPy (then moves to ``device=``); ``attention``
  is a NumPy operation with a NumPy backward (unrecorded), which refuses dropout (9.2's
  dropout cases fail; every later check runs without dropout).
- 9.3: ``split_heads`` and ``merge_heads`` cut and stack slices, for (B, T, E) and
  (B, h, T, d) only, what MultiheadAttention passes (9.3's cases with other leading axes
  fail).
- 9.4: ``TransformerEncoderLayer.forward`` for ``norm_first=True`` only, the GPT's blocks
  (the post-norm cases fail).
- 9.5: ``GPT.embed`` looks both tables up in NumPy and returns an unrecorded result: no
  gradient reaches the tables (9.5's gradient fails); the cache check runs without grad.

Runs in the child: standard library and NumPy only."""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from ...harness.standin import Patch, everywhere, modules_of


def _module(sp: ModuleType, name: str) -> ModuleType:
    return importlib.import_module(f"{sp.__name__}.{name}")


def _function(sp: ModuleType) -> type:
    """The code under test's ``Function`` base class (chapter 2's ``function.py``)."""
    for module in modules_of(sp):
        found = vars(module).get("Function")
        if isinstance(found, type) and hasattr(found, "apply"):
            return found
    raise LookupError("no Function class in the code under test")


def _softmax(x: np.ndarray) -> np.ndarray:
    m = x.max(axis=-1, keepdims=True)
    m = np.where(m == -np.inf, 0.0, m)
    e = np.exp(x - m)
    s = e.sum(axis=-1, keepdims=True)
    return e / np.where(s == 0, 1.0, s)


def _safe_softmax_task(sp: ModuleType) -> list[Patch]:
    tensor = sp.Tensor

    def forward(ctx: Any, x: Any) -> Any:
        ctx.standin_out = _softmax(np.asarray(x.data))
        return ctx.standin_out

    def backward(ctx: Any, grad_output: Any) -> Any:
        y, g = ctx.standin_out, np.asarray(grad_output.data)
        return tensor._from_array(y * (g - (g * y).sum(axis=-1, keepdims=True)))

    body = {"forward": staticmethod(forward), "backward": staticmethod(backward)}
    operation = type("StandInSoftmax", (_function(sp),), body)
    softmax = _module(sp, "softmax")
    return everywhere(sp, softmax.safe_softmax, lambda input: operation.apply(input))


def _scores(q: np.ndarray, k: np.ndarray, mask: Any, scale: float) -> np.ndarray:
    scores = np.matmul(q, np.swapaxes(k, -1, -2)) * scale
    if mask is None:
        return scores
    if mask.dtype == np.bool_:
        return np.where(mask, scores, -np.inf)
    return scores + mask


def _attention_task(sp: ModuleType) -> list[Patch]:
    tensor = sp.Tensor

    def forward(ctx: Any, q: Any, k: Any, v: Any, mask: Any, scale: float) -> Any:
        qd, kd, vd = (np.asarray(t.data) for t in (q, k, v))
        weights = _softmax(_scores(qd, kd, mask, scale))
        ctx.standin = (qd, kd, vd, weights, scale)
        return np.matmul(weights, vd)

    def backward(ctx: Any, grad_output: Any) -> tuple:
        q, k, v, w, scale = ctx.standin
        g = np.asarray(grad_output.data)
        dw = np.matmul(g, np.swapaxes(v, -1, -2))
        ds = w * (dw - (dw * w).sum(axis=-1, keepdims=True)) * scale
        grads = (
            np.matmul(ds, k),
            np.matmul(np.swapaxes(ds, -1, -2), q),
            np.matmul(np.swapaxes(w, -1, -2), g),
        )
        return tuple(
            tensor._from_array(a) if need else None for a, need in zip(grads, ctx.needs_input_grad)
        )

    body = {"forward": staticmethod(forward), "backward": staticmethod(backward)}
    operation = type("StandInAttention", (_function(sp),), body)

    def attention(
        query: Any,
        key: Any,
        value: Any,
        mask: Any = None,
        scale: Any = None,
        dropout_p: float = 0.0,
    ) -> tuple:
        if dropout_p > 0:
            raise RuntimeError("the stand-in for attention takes no dropout")
        scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
        m = None if mask is None else np.asarray(mask.data)
        out = operation.apply(query, key, value, m, scale)
        weights = _softmax(_scores(np.asarray(query.data), np.asarray(key.data), m, scale))
        return out, tensor._from_array(weights)

    def causal_mask(L: int, S: int, diagonal: int = 0, device: Any = None) -> Any:
        made = tensor._from_array(np.arange(S)[None, :] <= np.arange(L)[:, None] + diagonal)
        return made if device is None else made.to(device)

    module = _module(sp, "attention")
    return [
        *everywhere(sp, module.attention, attention),
        *everywhere(sp, module.causal_mask, causal_mask),
    ]


def _heads_task(sp: ModuleType) -> list[Patch]:
    def split_heads(x: Any, num_heads: int) -> Any:
        if x.ndim != 3:
            raise RuntimeError("the stand-in for split_heads takes (B, T, E) only")
        d = x.shape[-1] // num_heads
        return sp.stack([x[:, :, i * d : (i + 1) * d] for i in range(num_heads)], dim=1)

    def merge_heads(x: Any) -> Any:
        if x.ndim != 4:
            raise RuntimeError("the stand-in for merge_heads takes (B, h, T, d) only")
        return sp.cat([x[:, i] for i in range(x.shape[1])], dim=-1)

    heads = _module(sp, "heads")
    return [
        *everywhere(sp, heads.split_heads, split_heads),
        *everywhere(sp, heads.merge_heads, merge_heads),
    ]


def _block_task(sp: ModuleType) -> list[Patch]:
    layer = _module(sp, "encoder").TransformerEncoderLayer

    def forward(
        self: Any,
        src: Any,
        src_mask: Any = None,
        src_key_padding_mask: Any = None,
        is_causal: bool = False,
        *,
        kv_cache: Any = None,
    ) -> Any:
        if not self.norm_first:
            raise RuntimeError("the stand-in for TransformerEncoderLayer is pre-norm only")
        h = self._sa_block(self.norm1(src), src_mask, src_key_padding_mask, is_causal, kv_cache)
        out = src + h
        return out + self._ff_block(self.norm2(out))

    return [(layer, "forward", forward)]


def _embed_task(sp: ModuleType) -> list[Patch]:
    gpt = _module(sp, "gpt").GPT
    tensor = sp.Tensor

    def embed(self: Any, idx: Any, start: int = 0) -> Any:
        ids = np.asarray(idx.data)
        tok = np.asarray(self.token_embedding.weight.data)[ids]
        pos = np.asarray(self.position_embedding.weight.data)[start : start + ids.shape[-1]]
        return tensor._from_array(tok + pos)

    return [(gpt, "embed", embed)]


STANDINS: dict[str, Callable[[ModuleType], list[Patch]]] = {
    "9.1": _safe_softmax_task,
    "9.2": _attention_task,
    "9.3": _heads_task,
    "9.4": _block_task,
    "9.5": _embed_task,
}

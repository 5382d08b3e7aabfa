"""The key/value cache: generation that does not recompute the past. Task 9.7 (§9).

A language model writes one token at a time, and each new token attends to every token
before it. Without a cache, step t runs the whole model over all t tokens again; but a
causal model's keys and values for the old positions never change (no old position may see
the new one), so they can be kept. With a cache, step t runs the model over the one new
token: its query attends to the kept keys and values plus its own, each layer appending
its new key and value to its cache:

    k_all = cat(k_cache, k_new) along T,   v_all = cat(v_cache, v_new) along T

The first call (the prompt, "prefill") puts several tokens in at once; among themselves
they are still causal, but they see every cached key. Query i of the L new ones sits at
position S − L + i of the S keys, so the mask is the lower triangle shifted right,
``causal_mask(L, S, diagonal=S − L)`` (aligned at the bottom right; PyTorch's ``is_causal``
is aligned at the top left, which is only the same when L = S).

The logits with a cache equal the full recompute's (to rounding): the same numbers are
multiplied, only fewer of them again.
"""

from __future__ import annotations

from ..ch02_tensor.tensor import Tensor
from ..ch07_device import cat
from .attention import causal_mask


class KVCache:
    """One attention layer's kept keys and values, (B, h, S, d) each; empty at first.
    ``update(k, v)`` appends the new ones and returns everything kept; ``mask(L)`` is the
    boolean mask for the L newest queries against all S kept keys."""

    def __init__(self) -> None:
        self.keys: Tensor | None = None
        self.values: Tensor | None = None

    def __len__(self) -> int:
        """How many positions are kept (0 when empty)."""
        return 0 if self.keys is None else self.keys.shape[-2]

    def update(self, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor]:
        """Append ``key`` and ``value`` (B, h, L, d) along the position axis; return all the
        keys and values kept so far, (B, h, S, d) each."""
        raise NotImplementedError("Task 9.7: the key/value cache — see §9 of the notebook")

    def mask(self, new: int) -> Tensor:
        """The boolean (new, S) mask for the ``new`` newest queries after ``update``: query
        i may see key j when j ≤ S − new + i."""
        raise NotImplementedError("Task 9.7: the key/value cache — see §9 of the notebook")

    def reset(self) -> None:
        """Forget everything kept (given)."""
        self.keys = self.values = None

"""A character-level GPT: embeddings, pre-norm blocks, a head. Task 9.5 (§7).

    x      = token_embedding[idx] + position_embedding[t]     (B, T, E)     task 9.5
    x      = block_n(… block_1(x))                           causal self-attention + MLP
    logits = lm_head(ln_f(x))                                (B, T, vocab)

A token's embedding says *what* it is; attention by itself does not know *where* it is
(it sums over keys in any order: permuting the sequence permutes the outputs), so a learned
position embedding, one row per position 0 … block_size − 1, is added. Both are looked up
the same way (an index into a table), and the position rows (T, E) broadcast over the batch.
With a key/value cache (task 9.7) the new tokens sit after the kept ones: their positions
start at ``start = len(cache)``, not at 0.

The blocks are ``nn.TransformerEncoderLayer(norm_first=True, activation="gelu",
batch_first=True)`` with a causal mask: a "decoder-only" model is an encoder whose every
position may only look back. The weights start as GPT-2's: N(0, 0.02) for every embedding
and linear weight, zero biases.
"""

from __future__ import annotations

from typing import Any

from ..ch02_tensor.tensor import Tensor
from ..ch05_nn.nn import init
from ..ch05_nn.nn.containers import ModuleList
from ..ch05_nn.nn.layers import Embedding
from ..ch05_nn.nn.linear import Linear
from ..ch05_nn.nn.module import Module
from ..ch05_nn.nn.normalization import LayerNorm
from ..ch07_device import arange
from .cache import KVCache
from .encoder import TransformerEncoderLayer, generate_square_subsequent_mask


class GPT(Module):
    """``GPT(vocab_size, block_size, n_layer=4, n_head=4, n_embd=128, dropout=0.0,
    dtype=None)``: ``forward(idx)`` maps token ids (B, T), T ≤ block_size, to logits
    (B, T, vocab_size)."""

    def __init__(
        self,
        vocab_size: int,
        block_size: int,
        n_layer: int = 4,
        n_head: int = 4,
        n_embd: int = 128,
        dropout: float = 0.0,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.vocab_size, self.block_size = vocab_size, block_size
        self.token_embedding = Embedding(vocab_size, n_embd, dtype=dtype)
        self.position_embedding = Embedding(block_size, n_embd, dtype=dtype)
        self.blocks = ModuleList(
            TransformerEncoderLayer(
                n_embd,
                n_head,
                4 * n_embd,
                dropout,
                activation="gelu",
                batch_first=True,
                norm_first=True,
                dtype=dtype,
            )
            for _ in range(n_layer)
        )
        self.ln_f = LayerNorm(n_embd, dtype=dtype)
        self.lm_head = Linear(n_embd, vocab_size, dtype=dtype)
        for name, p in self.named_parameters():
            if name.endswith("bias"):
                init.zeros_(p)
            elif p.ndim == 2:
                init.normal_(p, 0.0, 0.02)

    def embed(self, idx: Tensor, start: int = 0) -> Tensor:
        """token_embedding(idx) + position_embedding(positions start … start + T − 1),
        (B, T, E) for idx (B, T)."""
        raise NotImplementedError(
            "Task 9.5: token and position embeddings — see §7 of the notebook"
        )

    def forward(self, idx: Tensor, kv_caches: list[KVCache] | None = None) -> Tensor:
        """Logits (B, T, vocab_size). With ``kv_caches`` (one per block, from
        ``new_caches()``), idx holds only the new tokens, after those the caches keep."""
        start = len(kv_caches[0]) if kv_caches else 0
        t = idx.shape[-1]
        if start + t > self.block_size:
            raise ValueError(
                f"GPT: {start + t} positions, but block_size is {self.block_size} (crop the "
                "context, or start a new cache)"
            )
        x = self.embed(idx, start)
        if kv_caches:
            for block, cache in zip(self.blocks, kv_caches):
                x = block(x, kv_cache=cache)
        else:
            mask = generate_square_subsequent_mask(t, device=x.device, dtype=x.dtype)
            for block in self.blocks:
                x = block(x, src_mask=mask, is_causal=True)
        return self.lm_head(self.ln_f(x))

    def new_caches(self) -> list[KVCache]:
        """One empty ``KVCache`` per block."""
        return [KVCache() for _ in self.blocks]

"""``nn.MultiheadAttention``: project, split into heads, attend, merge, project (given).

PyTorch's layout, so a ``state_dict`` loads both ways:

    in_proj_weight  (3E, E)   the query, key and value projections stacked: rows [0, E) are
                              W_q, [E, 2E) W_k, [2E, 3E) W_v
    in_proj_bias    (3E,)     their biases, in the same order
    out_proj        Linear(E, E), applied to the merged heads

    forward(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
            average_attn_weights=True, is_causal=False) → (out, weights or None)

Its masks are the opposite way round from ``F.scaled_dot_product_attention``'s: a boolean
``attn_mask`` (L, S) or (B·h, L, S) or ``key_padding_mask`` (B, S) is True where a query may
**not** look; float masks are added. Both are turned into one float mask here. ``is_causal``
is only a hint that ``attn_mask`` is the causal mask (PyTorch requires the mask with it);
without weights to return or a padding mask, the hint is used as SDPA's ``is_causal``.

Sparrow's one addition: ``kv_cache=`` (a ``KVCache``, task 9.7) for causal self-attention
during generation: the new keys and values are appended to it and the queries see all of
them, causally (no other mask goes with it). Two differences, on purpose: a query whose
every key is masked gets zeros here with weights too, where PyTorch's ``need_weights=True``
path uses a plain softmax and gives nan (its ``need_weights=False`` path gives zeros, as SDPA
does); and in training with ``dropout > 0`` the weights returned are those before dropout
(the attention's probabilities), where PyTorch returns them after (rows that no longer sum
to 1). The output is the same: dropout acts on the weights before they meet the values.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..ch02_tensor.dtypes import get_default_dtype
from ..ch02_tensor.tensor import Tensor
from ..ch05_nn.nn import init
from ..ch05_nn.nn.linear import Linear, linear
from ..ch05_nn.nn.module import Module
from ..ch05_nn.nn.parameter import Parameter
from ..ch07_device import where, zeros
from .attention import attention, causal_mask
from .cache import KVCache
from .heads import merge_heads, split_heads


class MultiheadAttention(Module):
    """``MultiheadAttention(embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
    add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None, dtype=None)``."""

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} "
                f"and num_heads={num_heads} instead"
            )
        if embed_dim % num_heads:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if add_bias_kv or add_zero_attn:
            raise NotImplementedError(
                "MultiheadAttention: add_bias_kv and add_zero_attn are not in the course"
            )
        if (kdim or embed_dim) != embed_dim or (vdim or embed_dim) != embed_dim:
            raise NotImplementedError(
                "MultiheadAttention: kdim and vdim other than embed_dim (separate projection "
                "weights) are not in the course"
            )
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.head_dim, self.batch_first = embed_dim // num_heads, batch_first
        self.kdim = self.vdim = embed_dim
        self._qkv_same_embed_dim = True
        dtype = np.dtype(dtype or get_default_dtype())
        self.in_proj_weight = Parameter(np.empty((3 * embed_dim, embed_dim), dtype))
        if bias:
            self.in_proj_bias = Parameter(np.empty((3 * embed_dim,), dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = Linear(embed_dim, embed_dim, bias=bias, dtype=dtype)
        self._reset_parameters()
        if device is not None:
            self.to(device)

    def _reset_parameters(self) -> None:
        """PyTorch's: Xavier-uniform in_proj_weight, zero biases (out_proj's weight keeps
        Linear's default)."""
        init.xavier_uniform_(self.in_proj_weight)
        if self.in_proj_bias is not None:
            init.zeros_(self.in_proj_bias)
            init.zeros_(self.out_proj.bias)

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Tensor | None = None,
        need_weights: bool = True,
        attn_mask: Tensor | None = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
        *,
        kv_cache: KVCache | None = None,
    ) -> tuple[Tensor, Tensor | None]:
        if is_causal and attn_mask is None and kv_cache is None:
            raise RuntimeError(
                "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
                "module method `generate_square_subsequent_mask` to create this mask."
            )
        batched = query.ndim == 3
        if not batched:  # (L, E): one sequence
            query, key, value = query[None], key[None], value[None]
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask[None]
        elif not self.batch_first:  # (L, B, E) → (B, L, E)
            query, key, value = query.transpose(0, 1), key.transpose(0, 1), value.transpose(0, 1)
        if query.shape[-1] != self.embed_dim:
            raise AssertionError(
                f"was expecting embedding dimension of {self.embed_dim}, but got {query.shape[-1]}"
            )
        b, L = query.shape[0], query.shape[1]
        q, k, v = self._project(query, key, value)
        q, k, v = (split_heads(t, self.num_heads) for t in (q, k, v))
        if kv_cache is not None:
            if attn_mask is not None or key_padding_mask is not None:
                raise ValueError(
                    "MultiheadAttention: kv_cache is for causal self-attention, with its own "
                    "mask; attn_mask and key_padding_mask cannot go with it"
                )
            k, v = kv_cache.update(k, v)
            mask = kv_cache.mask(L)
        elif is_causal and not need_weights and key_padding_mask is None:
            mask = causal_mask(L, k.shape[-2], device=q.device)
        else:
            mask = self._merged_mask(attn_mask, key_padding_mask, b, L, k.shape[-2], q)
        p = self.dropout if self.training else 0.0
        out, weights = attention(q, k, v, mask, 1.0 / math.sqrt(self.head_dim), p)
        out = self.out_proj(merge_heads(out))
        if batched and not self.batch_first:
            out = out.transpose(0, 1)
        elif not batched:
            out = out[0]
        if not need_weights:
            return out, None
        if average_attn_weights:
            weights = weights.mean(dim=1)
        return out, (weights if batched else weights[0])

    def _project(self, query: Tensor, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """q, k, v from the packed in_proj: one (3E, E) matmul for self-attention, three
        slices of it otherwise."""
        w, bias, e = self.in_proj_weight, self.in_proj_bias, self.embed_dim
        if query is key and key is value:
            return linear(query, w, bias).chunk(3, dim=-1)
        parts = [
            linear(x, w[i * e : (i + 1) * e], None if bias is None else bias[i * e : (i + 1) * e])
            for i, x in enumerate((query, key, value))
        ]
        return parts[0], parts[1], parts[2]

    def _merged_mask(
        self, attn_mask: Any, key_padding_mask: Any, b: int, L: int, s: int, like: Tensor
    ) -> Tensor | None:
        """One float mask (B, h, L, S) or (L, S), −∞ where a query may not look: a boolean
        mask's True becomes −∞, a float mask is added as it is."""
        mask = None
        if attn_mask is not None:
            mask = _additive(attn_mask, like)
            if mask.ndim == 3:  # (B·h, L, S)
                mask = mask.reshape(b, self.num_heads, L, s)
            elif mask.shape != (L, s):
                raise RuntimeError(
                    f"The shape of the 2D attn_mask is {tuple(mask.shape)}, but should be {(L, s)}."
                )
        if key_padding_mask is not None:
            if tuple(key_padding_mask.shape) != (b, s):
                raise AssertionError(
                    f"expecting key_padding_mask shape of {(b, s)}, but got "
                    f"{tuple(key_padding_mask.shape)}"
                )
            padding = _additive(key_padding_mask, like).reshape(b, 1, 1, s)
            mask = padding if mask is None else mask + padding
        return mask

    def extra_repr(self) -> str:
        return (
            f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, "
            f"batch_first={self.batch_first}"
        )


def _additive(mask: Any, like: Tensor) -> Tensor:
    """A boolean mask (True: hidden) as 0 / −∞ in ``like``'s dtype; a float mask as it is."""
    if not isinstance(mask, Tensor):
        raise TypeError(f"MultiheadAttention: masks are Tensors, not {type(mask).__name__}")
    if mask.dtype == bool:
        zero = zeros(mask.shape, dtype=like.dtype, device=like.device)
        return where(mask, float("-inf"), zero)
    return mask.to(like.dtype)

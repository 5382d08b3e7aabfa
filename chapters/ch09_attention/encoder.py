"""The Transformer block: attention and an MLP, each around a residual. Task 9.4 (§6).

``nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=2048, dropout=0.1,
activation="relu", layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True)``,
PyTorch's module with PyTorch's submodule names (``self_attn``, ``linear1``, ``linear2``,
``norm1``, ``norm2``, ``dropout``, ``dropout1``, ``dropout2``), so state dicts load both ways.

Pre-norm (``norm_first=True``, GPT-2's and the capstone's):

    x = x + SA(LN₁(x))        SA: self-attention, then dropout
    x = x + FF(LN₂(x))        FF: linear₂(dropout(act(linear₁(x)))), then dropout

Post-norm (``norm_first=False``, the 2017 paper's and PyTorch's default):

    x = LN₁(x + SA(x))
    x = LN₂(x + FF(x))

The residual path is what makes deep stacks trainable: ∂(x + f(x))/∂x = I + ∂f/∂x, so the
gradient reaches the first layer undiminished even when f's is small. Pre-norm keeps that
path clean (nothing but additions from the embedding to the last LayerNorm); post-norm puts
a LayerNorm on it at every layer, which is why it needs a warmup to train at all.

``is_causal`` is PyTorch's hint that ``src_mask`` is the causal mask; it is passed on to
the attention, which requires the mask with it. ``kv_cache=`` is Sparrow's addition
(task 9.7), passed on as well.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from ..ch02_tensor.tensor import Tensor
from ..ch05_nn.nn.activation import gelu
from ..ch05_nn.nn.containers import ModuleList
from ..ch05_nn.nn.dropout import Dropout
from ..ch05_nn.nn.functional import relu
from ..ch05_nn.nn.linear import Linear
from ..ch05_nn.nn.module import Module
from ..ch05_nn.nn.normalization import LayerNorm
from ..ch07_device import full
from .cache import KVCache
from .multihead import MultiheadAttention

_ACTIVATIONS = {"relu": relu, "gelu": gelu}


def _activation(activation: str | Callable[[Tensor], Tensor]) -> Callable[[Tensor], Tensor]:
    """PyTorch's ``activation=`` argument: "relu", "gelu" or a function (given)."""
    if not isinstance(activation, str):
        return activation
    if activation not in _ACTIVATIONS:
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    return _ACTIVATIONS[activation]


class TransformerEncoderLayer(Module):
    """Self-attention and a feed-forward network, each with a residual and a LayerNorm."""

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable[[Tensor], Tensor] = "relu",
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        kw = {"dtype": dtype}
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kw
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1, self.dropout2 = Dropout(dropout), Dropout(dropout)
        self.activation = _activation(activation)
        if device is not None:
            self.to(device)

    def forward(
        self,
        src: Tensor,
        src_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool = False,
        *,
        kv_cache: KVCache | None = None,
    ) -> Tensor:
        """The block on ``src`` (B, T, E) with ``batch_first``, else (T, B, E)."""
        x = src
        raise NotImplementedError(
            "Task 9.4: the Transformer block: pre-norm and post-norm — see §6 of the notebook"
        )

    def _sa_block(
        self, x: Tensor, mask: Any, padding: Any, is_causal: bool, kv_cache: KVCache | None
    ) -> Tensor:
        """Self-attention on x, then dropout (given)."""
        out = self.self_attn(
            x,
            x,
            x,
            attn_mask=mask,
            key_padding_mask=padding,
            need_weights=False,
            is_causal=is_causal,
            kv_cache=kv_cache,
        )[0]
        return self.dropout1(out)

    def _ff_block(self, x: Tensor) -> Tensor:
        """linear₂(dropout(act(linear₁(x)))), then dropout (given)."""
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerEncoder(Module):
    """``TransformerEncoder(encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
    mask_check=True)``: ``num_layers`` deep copies of ``encoder_layer`` (``layers.0``,
    ``layers.1``, …), then ``norm`` if given (given). The last two are PyTorch's switches for
    its fast path (nested tensors for padded batches); they are accepted and change nothing."""

    def __init__(
        self,
        encoder_layer: TransformerEncoderLayer,
        num_layers: int,
        norm: Module | None = None,
        enable_nested_tensor: bool = True,
        mask_check: bool = True,
    ) -> None:
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(
        self,
        src: Tensor,
        mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool | None = None,
    ) -> Tensor:
        x = src
        for layer in self.layers:
            x = layer(
                x,
                src_mask=mask,
                src_key_padding_mask=src_key_padding_mask,
                is_causal=bool(is_causal),
            )
        return x if self.norm is None else self.norm(x)


def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
    """PyTorch's ``nn.Transformer.generate_square_subsequent_mask``: the float (sz, sz) causal
    mask, 0 on and below the diagonal and −∞ above it (given)."""
    return full((sz, sz), float("-inf"), dtype=dtype, device=device).triu(1)

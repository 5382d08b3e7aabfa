"""The encoder–decoder Transformer: ``nn.TransformerDecoderLayer``, ``nn.TransformerDecoder``
and ``nn.Transformer``, PyTorch's modules with PyTorch's names (given code).

The course's GPT is decoder-only: one stack of causal self-attention blocks. The 2017
Transformer, which PyTorch's ``nn.Transformer`` is, translates: an encoder reads the source
(self-attention that sees all of it), a decoder writes the target (causal self-attention on
what it has written so far, then *cross-attention*: its queries look up the encoder's
output, the "memory", as keys and values), each sub-layer inside a residual and a
LayerNorm. Nothing here is new: the pieces are tasks 9.1–9.4's.

    pre-norm (norm_first=True):  x = x + SA(LN₁(x));  x = x + CA(LN₂(x), m);  x = x + FF(LN₃(x))
    post-norm (the default):     x = LN₁(x + SA(x));  x = LN₂(x + CA(x, m));  x = LN₃(x + FF(x))

``nn.Transformer`` ties them together (an encoder and a decoder stack, each ending in a
LayerNorm) and starts every matrix Xavier-uniform, as PyTorch's ``_reset_parameters``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from ..ch02_tensor.tensor import Tensor
from ..ch05_nn.nn import init
from ..ch05_nn.nn.containers import ModuleList
from ..ch05_nn.nn.dropout import Dropout
from ..ch05_nn.nn.linear import Linear
from ..ch05_nn.nn.module import Module
from ..ch05_nn.nn.normalization import LayerNorm
from .encoder import (
    TransformerEncoder,
    TransformerEncoderLayer,
    _activation,
    generate_square_subsequent_mask,
)
from .multihead import MultiheadAttention


class TransformerDecoderLayer(Module):
    """``TransformerDecoderLayer(d_model, nhead, dim_feedforward=2048, dropout=0.1,
    activation="relu", layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
    device=None, dtype=None)``: self-attention, cross-attention on ``memory``, a
    feed-forward network."""

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
        kw = {"bias": bias, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout, batch_first=batch_first, **kw)
        self.multihead_attn = MultiheadAttention(
            d_model, nhead, dropout, batch_first=batch_first, **kw
        )
        self.linear1 = Linear(d_model, dim_feedforward, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, **kw)
        self.norm_first = norm_first
        self.norm1, self.norm2, self.norm3 = (
            LayerNorm(d_model, eps=layer_norm_eps, **kw) for _ in range(3)
        )
        self.dropout1, self.dropout2, self.dropout3 = (Dropout(dropout) for _ in range(3))
        self.activation = _activation(activation)
        if device is not None:
            self.to(device)

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool = False,
        memory_is_causal: bool = False,
    ) -> Tensor:
        x = tgt
        sa = (tgt_mask, tgt_key_padding_mask, tgt_is_causal)
        ca = (memory, memory_mask, memory_key_padding_mask, memory_is_causal)
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), *sa)
            x = x + self._mha_block(self.norm2(x), *ca)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, *sa))
            x = self.norm2(x + self._mha_block(x, *ca))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x: Tensor, mask: Any, padding: Any, is_causal: bool) -> Tensor:
        out = self.self_attn(
            x, x, x, attn_mask=mask, key_padding_mask=padding, need_weights=False,
            is_causal=is_causal,
        )[0]  # fmt: skip
        return self.dropout1(out)

    def _mha_block(
        self, x: Tensor, memory: Tensor, mask: Any, padding: Any, is_causal: bool
    ) -> Tensor:
        out = self.multihead_attn(
            x, memory, memory, attn_mask=mask, key_padding_mask=padding, need_weights=False,
            is_causal=is_causal,
        )[0]  # fmt: skip
        return self.dropout2(out)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoder(Module):
    """``TransformerDecoder(decoder_layer, num_layers, norm=None)``: ``num_layers`` deep copies
    of ``decoder_layer`` (``layers.0``, …), each reading the same ``memory``, then ``norm``."""

    def __init__(
        self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Module | None = None
    ) -> None:
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        x = tgt
        for layer in self.layers:
            x = layer(
                x, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                memory_key_padding_mask, bool(tgt_is_causal), memory_is_causal,
            )  # fmt: skip
        return x if self.norm is None else self.norm(x)


class Transformer(Module):
    """``Transformer(d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
    dim_feedforward=2048, dropout=0.1, activation="relu", custom_encoder=None,
    custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
    device=None, dtype=None)``: ``forward(src, tgt, …)`` = decoder(tgt, encoder(src))."""

    def __init__(
        self,
        d_model: int = 512,
        nhead: int = 8,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable[[Tensor], Tensor] = "relu",
        custom_encoder: Module | None = None,
        custom_decoder: Module | None = None,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps)
        kw = {"batch_first": batch_first, "norm_first": norm_first, "bias": bias, "dtype": dtype}
        norm = {"eps": layer_norm_eps, "bias": bias, "dtype": dtype}
        self.encoder = custom_encoder or TransformerEncoder(
            TransformerEncoderLayer(*args, **kw), num_encoder_layers, LayerNorm(d_model, **norm)
        )
        self.decoder = custom_decoder or TransformerDecoder(
            TransformerDecoderLayer(*args, **kw), num_decoder_layers, LayerNorm(d_model, **norm)
        )
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)
        if device is not None:
            self.to(device)

    def forward(
        self,
        src: Tensor,
        tgt: Tensor,
        src_mask: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        src_is_causal: bool | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        batch = 0 if self.batch_first else 1
        if src.ndim == 3 and src.shape[batch] != tgt.shape[batch]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, src_mask, src_key_padding_mask, src_is_causal)
        return self.decoder(
            tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask,
            tgt_is_causal, memory_is_causal,
        )  # fmt: skip

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
        """The float (sz, sz) causal mask: 0 on and below the diagonal, −∞ above."""
        return generate_square_subsequent_mask(sz, device, dtype)

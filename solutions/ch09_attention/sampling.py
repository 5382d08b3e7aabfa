"""Writing text: temperature, top-k, and the sampling loop. Task 9.6 (§8).

The model gives logits for the next token; sampling turns them into a choice.

    temperature τ:  softmax(logits / τ). τ < 1 sharpens (τ → 0: always the likeliest),
                    τ > 1 flattens (τ → ∞: uniform); τ = 1 is the model's own distribution.
    top-k:          keep the k largest logits, set the rest to −∞ before the softmax, so
                    nothing outside the k likeliest is ever drawn. Ties at the k-th value
                    are all kept (compare with the k-th largest value, as ``torch.topk``
                    followed by ``logits < v[..., -1:]`` does), so more than k may survive;
                    never fewer.

``generate`` (given) draws ``max_new_tokens`` one at a time with ``multinomial``; with
``use_cache`` it runs the prompt once and then one token per step through the key/value
cache (task 9.7). When the cache is full (block_size positions), it starts a new one from
the last block_size // 2 tokens: the model only knows block_size positions, and sliding by
half a block keeps most steps one token long. (Without the cache every step re-reads the
last block_size tokens, nanoGPT's sliding window; the two agree exactly until the context
first fills.)
"""

from __future__ import annotations

from typing import Any

from ..ch02_tensor.tensor import Tensor
from ..ch05_nn.generator import Generator, multinomial
from ..ch05_nn.nn.softmax import softmax
from ..ch07_device import cat, no_grad


def next_token_probs(logits: Tensor, temperature: float = 1.0, top_k: int | None = None) -> Tensor:
    """The distribution to draw the next token from, along the last axis: softmax of
    logits / temperature, with every logit below the k-th largest set to −∞ first."""
    if not temperature > 0:
        raise ValueError(f"temperature must be positive, got {temperature}")
    if top_k is not None and top_k < 1:
        raise ValueError(f"top_k must be at least 1, got {top_k}")
    ### BEGIN SOLUTION 9.6
    logits = logits / temperature
    if top_k is not None and top_k < logits.shape[-1]:
        kth = logits.topk(top_k, dim=-1).values[..., -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    return softmax(logits, dim=-1)
    ### END SOLUTION


def generate(
    model: Any,
    idx: Tensor,
    max_new_tokens: int,
    temperature: float = 1.0,
    top_k: int | None = None,
    use_cache: bool = True,
    generator: Generator | None = None,
) -> Tensor:
    """``idx`` (B, T) followed by ``max_new_tokens`` drawn tokens (B, T + max_new_tokens)."""
    was_training = model.training
    model.eval()
    block = model.block_size
    try:
        with no_grad():
            caches, fed = (model.new_caches() if use_cache else None), idx[:, -block:]
            for _ in range(max_new_tokens):
                if not use_cache:
                    logits = model(idx[:, -block:])
                else:
                    if len(caches[0]) + fed.shape[1] > block:  # full: start again, half a block
                        caches, fed = model.new_caches(), idx[:, -(block // 2) :]
                    logits = model(fed, caches)
                probs = next_token_probs(logits[:, -1], temperature, top_k)
                token = multinomial(probs, 1, generator=generator)
                idx, fed = cat([idx, token], dim=1), token
    finally:
        model.train(was_training)
    return idx

"""Dropout: zero each element with probability p while training, and rescale. Task 5.9.

    train:  out = x · m / (1 − p),   m_i ~ Bernoulli(1 − p), drawn anew on every call
    eval:   out = x

Dividing by 1 − p keeps the expected value: E[out_i] = x_i (1 − p) / (1 − p) = x_i, so the
next layer sees inputs of the same size in training and in evaluation, and nothing has to
change at test time. The backward is the same multiplication: ∂L/∂x = g · m / (1 − p)
(the engine's, from ``*``).
"""

from __future__ import annotations

from ...ch02_tensor.backend import array_module
from ...ch02_tensor.tensor import Tensor
from ..generator import Generator, rng_of
from .module import Module


def dropout(
    input: Tensor, p: float = 0.5, training: bool = True, generator: Generator | None = None
) -> Tensor:
    """``input`` with each element zeroed with probability ``p`` and the rest multiplied by
    1 / (1 − p) when ``training``; ``input`` itself otherwise (or when p = 0), drawing
    nothing. The mask is drawn from ``rng_of(generator)`` (the given generator's stream, else
    the global one), one number per element: any draw of Bernoulli(1 − p) is right
    (``rng.random(shape) >= p``, or ``rng.binomial(1, 1 - p, shape)``)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    ### BEGIN SOLUTION 5.9
    if not training or p == 0:
        return input
    if p == 1:
        return input * 0.0
    xp = array_module(input.data)
    keep = rng_of(generator).random(input.shape) >= p
    mask = xp.asarray(keep * (1.0 / (1.0 - p)), dtype=input.dtype)
    return input * Tensor._from_array(mask)
    ### END SOLUTION


class Dropout(Module):
    """``Dropout(p=0.5)``: ``dropout(x, p, self.training)``."""

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p

    def forward(self, x: Tensor) -> Tensor:
        return dropout(x, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace=False"

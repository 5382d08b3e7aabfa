"""Two small layers (given code): ``Flatten`` and ``Embedding``.

``Flatten(start_dim=1, end_dim=-1)`` joins axes ``start_dim … end_dim`` into one: a batch of
images (N, 28, 28) becomes (N, 784) for a ``Linear``. ``Embedding(n, d)`` is a table of n
learned rows of size d (N(0, 1) at the start); ``embedding(ids)`` picks rows, and its
gradient is chapter 2's scatter-add: a row picked twice gets both gradients.
"""

from __future__ import annotations

import math

import numpy as np

from ...ch02_tensor.dtypes import get_default_dtype
from ...ch02_tensor.tensor import Tensor
from . import init
from .module import Module
from .parameter import Parameter


class Flatten(Module):
    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x: Tensor) -> Tensor:
        ndim = max(x.ndim, 1)
        for d in (self.start_dim, self.end_dim):
            if not -ndim <= d < ndim:
                raise IndexError(
                    f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}],"
                    f" but got {d}): Flatten on an input of shape {x.shape}"
                )
        start, end = self.start_dim % ndim, self.end_dim % ndim
        if start > end:
            raise ValueError(
                f"Flatten(start_dim={self.start_dim}, end_dim={self.end_dim}) on shape "
                f"{x.shape}: start_dim comes after end_dim"
            )
        shape = (*x.shape[:start], math.prod(x.shape[start : end + 1]), *x.shape[end + 1 :])
        return x.reshape(*shape)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Embedding(Module):
    """``Embedding(num_embeddings, embedding_dim)``: ``weight`` has shape (n, d)."""

    def __init__(self, num_embeddings: int, embedding_dim: int) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        shape = (num_embeddings, embedding_dim)
        self.weight = Parameter(np.empty(shape, get_default_dtype()))
        init.normal_(self.weight)

    def forward(self, ids: Tensor) -> Tensor:
        index = ids.data if isinstance(ids, Tensor) else np.asarray(ids)
        if index.dtype.kind not in "iu":
            raise TypeError(f"Embedding takes integer indices, not {index.dtype}")
        if index.size and (index.min() < 0 or index.max() >= self.num_embeddings):
            raise IndexError(
                f"Embedding({self.num_embeddings}, …): index out of range "
                f"(got {int(index.min())} … {int(index.max())})"
            )
        return self.weight[index]

    def extra_repr(self) -> str:
        return f"{self.num_embeddings}, {self.embedding_dim}"

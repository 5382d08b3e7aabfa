"""Two small layers (given code): ``Flatten`` and ``Embedding``.

``Flatten(start_dim=1, end_dim=-1)`` joins axes ``start_dim … end_dim`` into one: a batch of
images (N, 28, 28) becomes (N, 784) for a ``Linear``. ``Embedding(n, d)`` is a table of n
learned rows of size d (N(0, 1) at the start); ``embedding(ids)`` picks rows, and its
gradient is chapter 2's scatter-add: a row picked twice gets both gradients.

``padding_idx`` names a row that stands for "no token" (the filler that brings sequences to
one length): it starts at zeros and its gradient is always zero, so it stays what it is
(PyTorch's rule; its values are still read, whatever they are)::

    out[i] = W[ids[i]]          ∂L/∂W[r] = Σ_{i: ids[i] = r} g[i],  0 for r = padding_idx
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...ch02_tensor.backend import array_module, scatter_add
from ...ch02_tensor.dtypes import get_default_dtype
from ...ch02_tensor.function import Context, Function
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


class EmbeddingFunction(Function):
    """``weight[ids]`` for an integer array ``ids``; backward scatter-adds the rows of the
    gradient into a zero table, leaving the ``padding_idx`` row at zero."""

    @staticmethod
    def forward(ctx: Context, weight: Tensor, ids: Any, padding_idx: int) -> Any:
        ctx.ids, ctx.padding_idx, ctx.shape = ids, padding_idx, weight.shape
        return weight.data[ids]

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple:
        g = grad_output.data
        xp = array_module(g)
        grad = xp.zeros(ctx.shape, dtype=g.dtype)
        scatter_add(grad, ctx.ids.reshape(-1), g.reshape(-1, ctx.shape[1]))
        grad[ctx.padding_idx] = 0
        return (Tensor._from_array(grad),)


def _padding_idx(padding_idx: int | None, rows: int) -> int | None:
    """``padding_idx`` as a row number (negative counts from the end), PyTorch's check."""
    if padding_idx is None:
        return None
    if not -rows <= padding_idx < rows:
        raise AssertionError("Padding_idx must be within num_embeddings")
    return padding_idx % rows


def _indices(ids: Any, rows: int) -> Any:
    index = ids.data if isinstance(ids, Tensor) else np.asarray(ids)
    if index.dtype.kind not in "iu":
        raise TypeError(f"Embedding takes integer indices, not {index.dtype}")
    if index.size and (index.min() < 0 or index.max() >= rows):
        raise IndexError(
            f"Embedding({rows}, …): index out of range (got {int(index.min())} … "
            f"{int(index.max())})"
        )
    return index


def embedding(
    input: Any,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """The rows of ``weight`` (n, d) that ``input``'s integers pick: shape (*input, d).
    ``max_norm``, ``scale_grad_by_freq`` and ``sparse`` are not in the course."""
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError(
            "embedding: max_norm, scale_grad_by_freq and sparse are not in the course"
        )
    if not isinstance(weight, Tensor) or weight.ndim != 2:
        raise ValueError("embedding's weight is a 2-D Tensor (num_embeddings, embedding_dim)")
    rows = weight.shape[0]
    padding_idx = _padding_idx(padding_idx, rows)
    index = _indices(input, rows)
    if padding_idx is None:
        return weight[index]
    return EmbeddingFunction.apply(weight, index, padding_idx)


class Embedding(Module):
    """``Embedding(num_embeddings, embedding_dim, padding_idx=None, device=None,
    dtype=None)``: ``weight`` has shape (n, d), N(0, 1) but for a zero ``padding_idx`` row.
    ``Embedding.from_pretrained(table, freeze=True)`` wraps a table you already have."""

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
        _weight: Tensor | None = None,
        _freeze: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if max_norm is not None or scale_grad_by_freq or sparse:
            raise NotImplementedError(
                "Embedding: max_norm, scale_grad_by_freq and sparse are not in the course"
            )
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx = _padding_idx(padding_idx, num_embeddings)
        shape = (num_embeddings, embedding_dim)
        if _weight is None:
            dtype = np.dtype(dtype or get_default_dtype())
            self.weight = Parameter(np.empty(shape, dtype), requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != shape:
                raise AssertionError(
                    "Shape of weight does not match num_embeddings and embedding_dim"
                )
            self.weight = Parameter(_weight, requires_grad=not _freeze)
        if device is not None:
            self.to(device)

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        if self.padding_idx is not None:
            self.weight.data[self.padding_idx] = 0

    @classmethod
    def from_pretrained(
        cls, embeddings: Tensor, freeze: bool = True, padding_idx: int | None = None
    ) -> Embedding:
        """An Embedding whose table is ``embeddings`` (n, d), frozen unless ``freeze=False``."""
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx=padding_idx, _weight=embeddings, _freeze=freeze)

    def forward(self, ids: Tensor) -> Tensor:
        return embedding(ids, self.weight, self.padding_idx)

    def extra_repr(self) -> str:
        padding = "" if self.padding_idx is None else f", padding_idx={self.padding_idx}"
        return f"{self.num_embeddings}, {self.embedding_dim}{padding}"

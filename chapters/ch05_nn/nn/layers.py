"""Two small layers (given code): ``Flatten`` and ``Embedding``.

``Flatten(start_dim=1, end_dim=-1)`` joins axes ``start_dim … end_dim`` into one: a batch of
images (N, 28, 28) becomes (N, 784) for a ``Linear``. ``Embedding(n, d)`` is a table of n
learned rows of size d (N(0, 1) at the start); ``embedding(ids)`` picks rows, and its
gradient is chapter 2's scatter-add: a row picked twice gets both gradients.

``padding_idx`` names a row that stands for "no token" (the filler that brings sequences to
one length): it starts at zeros and its gradient is always zero, so it stays what it is
(PyTorch's rule; its values are still read, whatever they are)::

    out[i] = W[ids[i]]          ∂L/∂W[r] = Σ_{i: ids[i] = r} g[i],  0 for r = padding_idx

PyTorch's other two options are here too: ``max_norm`` rescales, in place and outside the
graph, every picked row whose norm exceeds it (to max_norm / (norm + 1e-7) times itself)
before the lookup, and ``scale_grad_by_freq`` divides each row's gradient by the number of
times the batch picked it.
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
    gradient into a zero table, leaving the ``padding_idx`` row (if any) at zero, each row
    divided by how often ``ids`` picks it with ``scale_grad_by_freq``."""

    @staticmethod
    def forward(
        ctx: Context, weight: Tensor, ids: Any, padding_idx: int | None, by_freq: bool
    ) -> Any:
        ctx.ids, ctx.padding_idx, ctx.shape, ctx.by_freq = ids, padding_idx, weight.shape, by_freq
        return weight.data[ids]

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple:
        g = grad_output.data
        xp = array_module(g)
        grad = xp.zeros(ctx.shape, dtype=g.dtype)
        ids = ctx.ids.reshape(-1)
        scatter_add(grad, ids, g.reshape(-1, ctx.shape[1]))
        if ctx.by_freq:
            counts = xp.zeros(ctx.shape[0], dtype=g.dtype)
            scatter_add(counts, ids, xp.ones(ids.shape, dtype=g.dtype))
            grad /= xp.maximum(counts, 1).reshape(-1, 1)
        if ctx.padding_idx is not None:
            grad[ctx.padding_idx] = 0
        return (Tensor._from_array(grad),)


def _renorm(weight: Tensor, ids: Any, max_norm: float, norm_type: float) -> None:
    """PyTorch's ``embedding_renorm_``: each row that ``ids`` picks whose p-norm exceeds
    ``max_norm`` is scaled, in place and outside the graph, to ``max_norm / (norm + 1e-7)``
    times itself."""
    xp = array_module(weight.data)
    rows = xp.unique(ids.reshape(-1))
    picked = weight.data[rows]
    norms = (xp.abs(picked) ** norm_type).sum(axis=1) ** (1.0 / norm_type)
    scale = xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    weight.data[rows] = picked * scale.reshape(-1, 1).astype(weight.dtype)


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
    ``max_norm`` first rescales, in place, each picked row whose ``norm_type``-norm exceeds
    it; ``scale_grad_by_freq`` divides each row's gradient by how often it was picked.
    ``sparse`` gradients are not in the course."""
    if sparse:
        raise NotImplementedError("embedding: sparse gradients are not in the course")
    if not isinstance(weight, Tensor) or weight.ndim != 2:
        raise ValueError("embedding's weight is a 2-D Tensor (num_embeddings, embedding_dim)")
    rows = weight.shape[0]
    padding_idx = _padding_idx(padding_idx, rows)
    index = _indices(input, rows)
    if max_norm is not None:
        _renorm(weight, index, max_norm, norm_type)
    if padding_idx is None and not scale_grad_by_freq:
        return weight[index]
    return EmbeddingFunction.apply(weight, index, padding_idx, bool(scale_grad_by_freq))


class Embedding(Module):
    """``Embedding(num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
    norm_type=2.0, scale_grad_by_freq=False, device=None, dtype=None)``: ``weight`` has shape
    (n, d), N(0, 1) but for a zero ``padding_idx`` row.
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
        if sparse:
            raise NotImplementedError("Embedding: sparse gradients are not in the course")
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx = _padding_idx(padding_idx, num_embeddings)
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
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
        cls,
        embeddings: Tensor,
        freeze: bool = True,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
    ) -> Embedding:
        """An Embedding whose table is ``embeddings`` (n, d), frozen unless ``freeze=False``."""
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(
            rows,
            cols,
            padding_idx=padding_idx,
            max_norm=max_norm,
            norm_type=norm_type,
            scale_grad_by_freq=scale_grad_by_freq,
            sparse=sparse,
            _weight=embeddings,
            _freeze=freeze,
        )

    def forward(self, ids: Tensor) -> Tensor:
        return embedding(
            ids,
            self.weight,
            self.padding_idx,
            self.max_norm,
            self.norm_type,
            self.scale_grad_by_freq,
            self.sparse,
        )

    def extra_repr(self) -> str:
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            text += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            text += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            text += ", scale_grad_by_freq=True"
        return text

"""Stacking and splitting along a fixed axis (given code, §7): ``tensor_split``, ``hsplit``,
``vsplit``, ``dsplit``; ``hstack``, ``vstack`` (``row_stack``), ``dstack``,
``column_stack``; ``atleast_1d``/``2d``/``3d``.

Nothing new: each is ``cat`` (task 7.8) or indexing (a recorded operation) after a reshape,
so the gradients are theirs (a piece's gradient goes back to its place; a piece left
unused contributes zeros). PyTorch's names, arguments and errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...ch02_tensor import Tensor
from ...ch02_tensor.shapes import dim_index
from .cat import _tensor_list, cat

# -- tensor_split, hsplit, vsplit, dsplit ----------------------------------------------------


def tensor_split(input: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """``input`` cut along ``dim``: into ``n`` pieces for an int ``n`` (the first
    ``size % n`` one element longer), or at the indices of a list (slice bounds, so an
    index past the end gives an empty piece): PyTorch's ``torch.tensor_split``. A 0-d
    integer tensor counts as ``n``, a 1-d one as the indices."""
    if not isinstance(input, Tensor):
        raise TypeError(
            f"tensor_split(): argument 'input' must be Tensor, not {type(input).__name__}"
        )
    if input.ndim == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    sections = indices_or_sections
    if isinstance(sections, Tensor):
        if sections.dtype.kind not in "iu" or sections.ndim > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                "one-dimensional tensor, but got a tensor with "
                f"{sections.ndim} dims"
                if sections.ndim > 1
                else "tensor_split expected tensor_indices_or_sections to have integral dtype, "
                f"but got {sections.dtype}"
            )
        sections = int(sections.item()) if sections.ndim == 0 else sections.tolist()
    dim = dim_index(dim, input.ndim)
    n = input.shape[dim]
    if isinstance(sections, (int, np.integer)) and not isinstance(sections, bool):
        count = int(sections)
        if count <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {count}")
        size, extra = divmod(n, count)
        bounds, start = [], 0
        for k in range(count):
            start += size + (1 if k < extra else 0)
            bounds.append(start)
        bounds = bounds[:-1]
    elif isinstance(sections, (list, tuple)):
        bounds = [int(i) for i in sections]
    else:
        raise TypeError(
            "tensor_split(): argument 'indices_or_sections' must be int, list of ints or "
            f"Tensor, not {type(sections).__name__}"
        )
    pieces, start = [], 0
    before = (slice(None),) * dim
    for stop in [*bounds, None]:
        pieces.append(input[(*before, slice(start, stop))])
        start = stop
    return tuple(pieces)


def _split_along(name: str, dim: int, least: int, input: Tensor, sections: Any) -> tuple:
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.ndim < least:
        raise RuntimeError(
            f"torch.{name} requires a tensor with at least {least} dimension"
            f"{'s' if least > 1 else ''}, but got a tensor with {input.ndim} dimensions!"
        )
    if isinstance(sections, (int, np.integer)) and not isinstance(sections, bool):
        if sections == 0 or input.shape[dim] % sections:
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                f"dimension {input.shape[dim]} is not divisible by the split_size {sections}!"
            )
    elif not isinstance(sections, (list, tuple)):
        raise TypeError(
            f"{name}(): argument 'indices_or_sections' must be int or list of ints, not "
            f"{type(sections).__name__}"
        )
    return tensor_split(input, sections, dim)


def hsplit(input: Tensor, indices_or_sections: int | Sequence[int]) -> tuple[Tensor, ...]:
    """``tensor_split`` along axis 1 (axis 0 of a 1-d tensor); ``n`` sections must divide
    the axis evenly."""
    dim = 0 if isinstance(input, Tensor) and input.ndim == 1 else 1
    return _split_along("hsplit", dim, 1, input, indices_or_sections)


def vsplit(input: Tensor, indices_or_sections: int | Sequence[int]) -> tuple[Tensor, ...]:
    """``tensor_split`` along axis 0 of a tensor of 2 or more axes (sections: evenly)."""
    return _split_along("vsplit", 0, 2, input, indices_or_sections)


def dsplit(input: Tensor, indices_or_sections: int | Sequence[int]) -> tuple[Tensor, ...]:
    """``tensor_split`` along axis 2 of a tensor of 3 or more axes (sections: evenly)."""
    return _split_along("dsplit", 2, 3, input, indices_or_sections)


# -- atleast_1d/2d/3d -----------------------------------------------------------------------


def _atleast(shape_of: Any, tensors: tuple) -> Any:
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
        many = True
    else:
        many = len(tensors) > 1
    out = tuple(t.reshape(shape_of(t.shape)) for t in tensors)
    return out if many else out[0]


def atleast_1d(*tensors: Tensor) -> Any:
    """Each tensor with at least 1 axis (a 0-d one becomes shape (1,))."""
    return _atleast(lambda s: s if len(s) >= 1 else (1,), tensors)


def atleast_2d(*tensors: Tensor) -> Any:
    """Each tensor with at least 2 axes: (n,) becomes (1, n), a 0-d one (1, 1)."""
    return _atleast(lambda s: s if len(s) >= 2 else (1,) * (2 - len(s)) + s, tensors)


def atleast_3d(*tensors: Tensor) -> Any:
    """Each tensor with at least 3 axes: () → (1, 1, 1), (n,) → (1, n, 1), (m, n) →
    (m, n, 1), as in PyTorch and NumPy."""

    def shape(s: tuple) -> tuple:
        return {0: (1, 1, 1), 1: (1, *s, 1), 2: (*s, 1)}.get(len(s), s)

    return _atleast(shape, tensors)


# -- hstack, vstack, dstack, column_stack ---------------------------------------------------


def _tensors(tensors: Any, name: str) -> list[Tensor]:
    tensors = _tensor_list(tensors, f"{name}()")
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    """The tensors joined along axis 1 (axis 0 when they are 1-d; 0-d ones count as 1-d):
    ``torch.hstack``."""
    tensors = [atleast_1d(t) for t in _tensors(tensors, "hstack")]
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors: Sequence[Tensor]) -> Tensor:
    """The tensors joined along axis 0, 1-d ones (n,) first made rows (1, n):
    ``torch.vstack``."""
    return cat([atleast_2d(t) for t in _tensors(tensors, "vstack")], 0)


row_stack = vstack  # PyTorch's other name for it


def dstack(tensors: Sequence[Tensor]) -> Tensor:
    """The tensors joined along axis 2, each first given 3 axes (``atleast_3d``):
    ``torch.dstack``."""
    return cat([atleast_3d(t) for t in _tensors(tensors, "dstack")], 2)


def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    """The tensors side by side as columns: 0-d and 1-d ones become columns (n, 1), the
    others stay; then joined along axis 1: ``torch.column_stack``."""
    tensors = _tensors(tensors, "column_stack")
    return cat([t.reshape(-1, 1) if t.ndim <= 1 else t for t in tensors], 1)

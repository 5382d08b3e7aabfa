"""Sorting (given code, §7): ``sort``, ``argsort`` and ``topk``, with PyTorch's named pairs
(``.values``, ``.indices``).

The values are ``input`` gathered along ``dim`` at the indices the sort found, so their
gradient is gather's (task 7.7): each ∂L/∂value goes back to the element it came from, and
an element that was not picked (topk) gets 0.

The order is a stable sort's whatever ``stable`` says (PyTorch's order among equal values is
unspecified unless ``stable=True``; a stable one is one of the orders it allows): equal
values keep their order, descending too. NaN counts as larger than every number, as in
PyTorch: last ascending, first descending.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from ...ch02_tensor import Tensor
from ...ch02_tensor.backend import array_module
from ...ch02_tensor.shapes import dim_index
from .gather import gather

sort_result = namedtuple("sort_result", ["values", "indices"])  # what sort returns
topk_result = namedtuple("topk_result", ["values", "indices"])  # what topk returns


def _order(data: Any, axis: int, descending: bool) -> Any:
    """The int64 indices that sort ``data`` along ``axis`` stably (NaN the largest)."""
    xp = array_module(data)
    if not descending:
        return xp.argsort(data, axis=axis, kind="stable").astype(np.int64)
    # descending and stable: sort the reversed array ascending, reverse the result back,
    # and count the positions from the other end (equal values then keep their order)
    n = data.shape[axis]
    flipped = xp.argsort(xp.flip(data, axis=axis), axis=axis, kind="stable")
    return (n - 1 - xp.flip(flipped, axis=axis)).astype(np.int64)


def _axis(input: Tensor, dim: int) -> int:
    return dim_index(dim, input.ndim)


def argsort(
    input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False
) -> Tensor:
    """The int64 indices that sort ``input`` along ``dim`` (``torch.argsort``): no gradient."""
    axis = _axis(input, dim)
    if input.ndim == 0:
        return Tensor._from_array(array_module(input.data).zeros((), dtype=np.int64))
    return Tensor._from_array(_order(input.data, axis, descending))


def sort(
    input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False
) -> sort_result:
    """``(values, indices)``: ``input`` sorted along ``dim``, and where each value came from
    (``torch.sort``). The values' gradient goes back through the indices (a gather)."""
    indices = argsort(input, dim, descending, stable=stable)
    if input.ndim == 0:
        return sort_result(input.reshape(()), indices)
    return sort_result(gather(input, _axis(input, dim), indices), indices)


def topk(
    input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True
) -> topk_result:
    """``(values, indices)`` of the ``k`` largest (``largest=False``: smallest) elements
    along ``dim``, in sorted order (``sorted=False`` allows any order: this one is sorted
    too). Their gradient goes back to the elements picked; the others get 0."""
    axis = _axis(input, dim)
    size = input.shape[axis] if input.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    order = argsort(input, axis, descending=largest)
    if input.ndim == 0:
        return topk_result(input.reshape(()), order)
    indices = order[(slice(None),) * axis + (slice(0, k),)]
    return topk_result(gather(input, axis, indices), indices)

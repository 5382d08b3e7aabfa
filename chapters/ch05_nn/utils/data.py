"""``utils.data``: ``Dataset``, ``TensorDataset`` and ``DataLoader``. Task 5.11.

A dataset is anything with ``len(ds)`` and ``ds[i]`` (one example, e.g. a tuple
``(image, label)``). A ``DataLoader`` turns it into batches for one pass over the data (an
epoch)::

    order  = randperm(n, generator=g) if shuffle else 0, 1, …, n − 1
    chunks = order[0:b], order[b:2b], …        (the last one shorter, or dropped: drop_last)
    batch  = collate([ds[i] for i in chunk])   (tuples of tensors → a list of stacked tensors)

Every item appears exactly once per epoch; each new ``iter(loader)`` draws a new order from
the generator, so epochs differ and two runs seeded alike repeat each other exactly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from ...ch02_tensor.backend import array_module
from ...ch02_tensor.tensor import Tensor
from ..generator import Generator, randperm


class Dataset:
    """Base class of map-style datasets: define ``__getitem__`` and ``__len__``."""

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must define __len__")


class TensorDataset(Dataset):
    """``TensorDataset(*tensors)``: item i is ``(t[i] for t in tensors)``, a tuple."""

    def __init__(self, *tensors: Tensor) -> None:
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        for t in tensors:
            if not isinstance(t, Tensor) or t.ndim == 0:
                raise TypeError("TensorDataset takes Tensors with a first axis (one row per item)")
        if any(t.shape[0] != tensors[0].shape[0] for t in tensors):
            shapes = ", ".join(str(t.shape) for t in tensors)
            raise ValueError(
                f"Size mismatch between tensors: {shapes}; each tensor needs one row per item"
            )
        self.tensors = tensors

    def __getitem__(self, index: int) -> tuple:
        return tuple(_pick(t, index) for t in self.tensors)

    def batch(self, indices: list[int]) -> list:
        """The items at ``indices`` already collated: each tensor's rows picked at once (what
        ``default_collate`` of the items one by one gives, without a Tensor per item)."""
        index = np.asarray(indices, dtype=np.int64)
        return [_pick(t, index) for t in self.tensors]

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


def _pick(t: Tensor, index: Any) -> Tensor:
    """``t[index]``: a recorded indexing when ``t`` requires grad, else the array's rows."""
    if t.requires_grad:
        return t[index]
    return Tensor._from_array(t.data[index.data if isinstance(index, Tensor) else index])


class ItemsDisagree(ValueError):
    """Item ``position`` of a batch cannot be stacked with item 0: it has ``has`` where item
    0 has ``first_has`` (a shape, a number of fields, keys)."""

    def __init__(self, position: int, has: str, first_has: str) -> None:
        self.position, self.has, self.first_has = position, has, first_has
        super().__init__(self.naming(list(range(position + 1)), "of the batch"))

    def naming(self, indices: list[int], where: str) -> str:
        return (
            f"item {indices[self.position]} {where} has {self.has} but item {indices[0]} "
            f"has {self.first_has}"
        )


def default_collate(batch: Sequence[Any]) -> Any:
    """Items → one batch, by structure: Tensors and arrays are stacked on a new first axis;
    Python ints, floats and bools become int64, float64 and bool tensors; tuples and lists
    are collated field by field (a list of batches), dicts key by key; strings stay a list;
    NumPy scalars keep their dtype."""
    first = batch[0]
    if isinstance(first, (Tensor, np.ndarray)) or (
        hasattr(first, "shape") and hasattr(first, "dtype") and not np.isscalar(first)
    ):
        arrays = [b.data if isinstance(b, Tensor) else b for b in batch]
        for i, a in enumerate(arrays):
            if getattr(a, "shape", None) != arrays[0].shape:
                shape = tuple(getattr(a, "shape", ()))
                raise ItemsDisagree(i, f"shape {shape}", f"shape {tuple(arrays[0].shape)}")
        return Tensor._from_array(array_module(arrays[0]).stack(arrays))
    if isinstance(first, np.generic):  # NumPy scalars keep their dtype
        return Tensor(np.array(batch))
    if isinstance(first, bool):
        return Tensor(np.array(batch, dtype=np.bool_))
    if isinstance(first, int):
        return Tensor(np.array(batch, dtype=np.int64))
    if isinstance(first, float):
        return Tensor(np.array(batch, dtype=np.float64))
    if isinstance(first, str):
        return list(batch)
    if isinstance(first, dict):
        keys = list(first)
        for i, item in enumerate(batch):
            if not isinstance(item, dict) or list(item) != keys:
                has = f"keys {list(item)}" if isinstance(item, dict) else type(item).__name__
                raise ItemsDisagree(i, has, f"keys {keys}")
        return {key: default_collate([item[key] for item in batch]) for key in keys}
    if isinstance(first, (tuple, list)):
        for i, item in enumerate(batch):
            if not isinstance(item, (tuple, list)):
                raise ItemsDisagree(i, f"a {type(item).__name__}", "a tuple")
            if len(item) != len(first):
                raise ItemsDisagree(i, f"{len(item)} fields", f"{len(first)} fields")
        return [default_collate(list(field)) for field in zip(*batch)]
    raise TypeError(
        "default_collate: batch must contain tensors, arrays, numbers, strings, dicts or "
        f"lists; found {type(first).__name__}"
    )


class DataLoader:
    """``DataLoader(dataset, batch_size=1, shuffle=False, drop_last=False, generator=None,
    collate_fn=None)``: an iterable over batches of ``dataset``.

    Batches are made where the dataset's tensors are: a ``TensorDataset`` of tensors on a
    device (chapter 7) gives batches on that device. PyTorch's ``num_workers`` and
    ``pin_memory`` are accepted and change nothing (one process; pinned host memory would
    only speed up copies to a GPU)."""

    def __init__(
        self,
        dataset: Any,
        batch_size: int = 1,
        shuffle: bool = False,
        drop_last: bool = False,
        generator: Generator | None = None,
        collate_fn: Callable | None = None,
        num_workers: int = 0,
        pin_memory: bool = False,
    ) -> None:
        if (
            isinstance(batch_size, bool)
            or not isinstance(batch_size, (int, np.integer))
            or (batch_size < 1)
        ):
            raise ValueError(
                f"batch_size should be a positive integer value, but got {batch_size!r}"
            )
        if generator is not None and not isinstance(generator, Generator):
            raise TypeError(f"generator= takes a Generator, not {type(generator).__name__}")
        self.dataset, self.batch_size = dataset, int(batch_size)
        self.shuffle, self.drop_last, self.generator = bool(shuffle), bool(drop_last), generator
        self.collate_fn = collate_fn or default_collate

    def __len__(self) -> int:
        """The number of batches in an epoch."""
        n = len(self.dataset)
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)

    def __iter__(self) -> Iterator[Any]:
        """One epoch: the items in the order ``randperm(len(dataset), generator=self.generator)``
        (shuffle) or 0 … n − 1, in chunks of ``batch_size`` (a last, shorter chunk dropped with
        ``drop_last``), each chunk's items fetched and collated by ``self._fetch(indices)``."""
        raise NotImplementedError(
            "Task 5.11: DataLoader: one epoch of batches — see §9 of the notebook"
        )

    def _fetch(self, indices: list[int]) -> Any:
        """The batch of the dataset's items at ``indices``, collated; the error of items that
        cannot be stacked names them by their index in the dataset. A ``TensorDataset`` with
        the default collate picks the whole batch at once (``TensorDataset.batch``: the same
        tensors, without one Function call per item and field); no indices: an error."""
        if len(indices) == 0:
            raise ValueError(
                "DataLoader was asked to fetch an empty batch (no indices): each batch holds "
                "1 to batch_size items, so the chunks must stop at the end of the dataset"
            )
        if type(self.dataset) is TensorDataset and self.collate_fn is default_collate:
            return self.dataset.batch(indices)
        items = [self.dataset[i] for i in indices]
        try:
            return self.collate_fn(items)
        except ItemsDisagree as error:
            raise ValueError(
                f"the dataset's items disagree: {error.naming(indices, 'of the dataset')}. "
                f"A DataLoader stacks the {len(items)} items of a batch into one tensor, so "
                "they must have the same shape: pad them to one shape, or use batch_size=1"
            ) from None

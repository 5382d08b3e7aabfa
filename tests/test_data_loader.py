"""Chapter 5's ``utils.data`` on the reference: a ``DataLoader`` yields every item exactly
once per epoch (a dropped last batch aside) for any size, batch size, ``drop_last`` and
``shuffle``; a seeded ``Generator`` repeats its shuffles, successive epochs differ; batches
of tensors, tuples, dicts and numbers stack as PyTorch's ``default_collate`` does; items of
different shapes get an error naming their indices in the dataset.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solutions import ch05_nn as sp

data = sp.utils.data


class Indices(data.Dataset):
    """Item i is i itself (a Python int), so a batch says which items it holds."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> int:
        return int(i)


def epoch(loader) -> list[list[int]]:
    return [batch.data.tolist() for batch in loader]


def joined(batches: list[list[int]]) -> list[int]:
    return [i for batch in batches for i in batch]


@settings(max_examples=300)
@given(
    n=st.integers(0, 70),
    batch_size=st.integers(1, 20),
    drop_last=st.booleans(),
    shuffle=st.booleans(),
    seed=st.integers(0, 2**31),
)
def test_every_item_exactly_once_per_epoch(n, batch_size, drop_last, shuffle, seed) -> None:
    g = sp.Generator().manual_seed(seed)
    loader = data.DataLoader(Indices(n), batch_size, shuffle, drop_last, generator=g)
    expected_len = n // batch_size if drop_last else math.ceil(n / batch_size)
    assert len(loader) == expected_len
    for _ in range(2):
        batches = epoch(loader)
        assert len(batches) == expected_len
        sizes = [len(b) for b in batches]
        if drop_last:
            assert all(s == batch_size for s in sizes)
        else:
            assert all(s == batch_size for s in sizes[:-1])
            assert not sizes or 1 <= sizes[-1] <= batch_size
        seen = [i for b in batches for i in b]
        assert len(seen) == len(set(seen))  # nothing repeated
        if drop_last:
            assert len(seen) == n - n % batch_size
        else:
            assert sorted(seen) == list(range(n))  # nothing missed
        if not shuffle:
            assert seen == list(range(len(seen)))


def test_a_seeded_generator_repeats_and_epochs_differ() -> None:
    def loader(seed: int):
        g = sp.Generator().manual_seed(seed)
        return data.DataLoader(Indices(50), 8, shuffle=True, generator=g)

    a, b = loader(3), loader(3)
    first_a, first_b = epoch(a), epoch(b)
    assert first_a == first_b
    sp.manual_seed(99)  # the global generator does not touch a loader's own
    sp.randn(10)
    second_a, second_b = epoch(a), epoch(b)
    assert second_a == second_b
    assert second_a != first_a  # each epoch draws a new order
    assert epoch(loader(4)) != first_a
    assert sorted(joined(first_a)) == list(range(50))
    assert joined(first_a) != list(range(50))  # shuffled


def test_the_order_is_randperm_of_the_generator() -> None:
    order = sp.randperm(20, generator=sp.Generator().manual_seed(1)).tolist()
    g = sp.Generator().manual_seed(1)
    batches = epoch(data.DataLoader(Indices(20), 6, shuffle=True, generator=g))
    assert joined(batches) == order


def test_shuffle_without_a_generator_uses_the_global_one() -> None:
    sp.manual_seed(5)
    first = epoch(data.DataLoader(Indices(30), 7, shuffle=True))
    sp.manual_seed(5)
    assert epoch(data.DataLoader(Indices(30), 7, shuffle=True)) == first


def test_tensor_dataset_batches_are_tuples_of_stacked_tensors() -> None:
    x = sp.tensor(np.arange(30.0).reshape(10, 3))
    y = sp.tensor(np.arange(10))
    ds = data.TensorDataset(x, y)
    assert len(ds) == 10
    xi, yi = ds[4]
    np.testing.assert_array_equal(xi.data, [12.0, 13.0, 14.0])
    assert int(yi.data) == 4
    batches = list(data.DataLoader(ds, batch_size=4))
    assert len(batches) == 3
    bx, by = batches[0]
    assert bx.shape == (4, 3) and by.shape == (4,)
    assert bx.dtype == x.dtype and by.dtype == y.dtype
    np.testing.assert_array_equal(bx.data, x.data[:4])
    np.testing.assert_array_equal(batches[-1][1].data, [8, 9])
    with pytest.raises(ValueError, match=r"Size mismatch between tensors: \(10, 3\), \(9,\)"):
        data.TensorDataset(x, sp.tensor(np.arange(9)))
    with pytest.raises(ValueError, match="at least one"):
        data.TensorDataset()
    with pytest.raises(TypeError, match="first axis"):
        data.TensorDataset(sp.tensor(np.array(1.0)))


class Items(data.Dataset):
    def __init__(self, items: list) -> None:
        self.items = items

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: int):
        return self.items[i]


def test_collate_by_structure() -> None:
    items = [
        {
            "image": np.full((2, 2), i, np.float32),
            "label": i,
            "w": 0.5 * i,
            "ok": i % 2 == 0,
            "name": f"n{i}",
            "pair": (sp.tensor(np.array([i, i])), i),
        }
        for i in range(5)
    ]
    (batch,) = list(data.DataLoader(Items(items), batch_size=5))
    assert list(batch) == ["image", "label", "w", "ok", "name", "pair"]
    assert batch["image"].shape == (5, 2, 2) and batch["image"].dtype == np.float32
    assert batch["label"].dtype == np.int64 and batch["label"].data.tolist() == [0, 1, 2, 3, 4]
    assert batch["w"].dtype == np.float64
    assert batch["ok"].dtype == np.bool_ and batch["ok"].data.tolist() == [
        True,
        False,
        True,
        False,
        True,
    ]
    assert batch["name"] == ["n0", "n1", "n2", "n3", "n4"]
    first, second = batch["pair"]
    assert first.shape == (5, 2) and second.data.tolist() == [0, 1, 2, 3, 4]
    assert isinstance(batch["image"], sp.Tensor)


def test_items_of_different_shapes_are_named_by_dataset_index() -> None:
    images = [np.zeros((3, 3))] * 10
    images[6] = np.zeros((3, 4))
    ds = Items([(sp.tensor(im), 0) for im in images])
    loader = data.DataLoader(ds, batch_size=4)
    batches = iter(loader)
    next(batches)
    with pytest.raises(ValueError) as raised:
        next(batches)
    message = str(raised.value)
    assert "item 6 of the dataset has shape (3, 4) but item 4 has shape (3, 3)" in message
    assert "batch_size=1" in message
    g = sp.Generator().manual_seed(0)
    with pytest.raises(ValueError, match=r"item 6 of the dataset has shape \(3, 4\)"):
        for _ in data.DataLoader(ds, batch_size=10, shuffle=True, generator=g):
            pass
    assert len(list(data.DataLoader(ds, batch_size=1))) == 10


def test_items_of_different_structure_are_named_too() -> None:
    with pytest.raises(ValueError, match="item 2 of the dataset has 3 fields but item 0 has 2"):
        list(data.DataLoader(Items([(1, 2), (3, 4), (5, 6, 7)]), batch_size=3))
    with pytest.raises(ValueError, match=r"item 1 of the dataset has keys \['b'\]"):
        list(data.DataLoader(Items([{"a": 1}, {"b": 2}]), batch_size=2))
    with pytest.raises(TypeError, match="default_collate"):
        list(data.DataLoader(Items([object()]), batch_size=1))


def test_arguments_are_checked_and_collate_fn_is_used() -> None:
    for bad in (0, -1, 2.0, True):
        with pytest.raises(ValueError, match="positive integer"):
            data.DataLoader(Indices(3), batch_size=bad)
    with pytest.raises(TypeError, match="Generator"):
        data.DataLoader(Indices(3), generator=np.random.default_rng(0))
    loader = data.DataLoader(Indices(5), batch_size=2, collate_fn=list)
    assert list(loader) == [[0, 1], [2, 3], [4]]
    with pytest.raises(NotImplementedError):
        len(data.Dataset())


def test_numpy_scalars_keep_their_dtype_and_tensor_indices_pick_rows() -> None:
    collate = sp.utils.data.default_collate
    assert collate([np.float32(1), np.float32(2)]).dtype == np.float32
    assert collate([np.int32(1), np.int32(2)]).dtype == np.int32
    assert collate([1.0, 2.0]).dtype == np.float64  # Python floats: PyTorch's float64
    ds = sp.utils.data.TensorDataset(sp.arange(6).reshape(3, 2))
    assert ds[sp.tensor([0, 2])][0].tolist() == [[0, 1], [4, 5]]

"""PyTorch as the oracle for chapter 7's shape, sorting and masking operations (``ops/
shapes.py``, ``ops/sorting.py``) and for ``keepdims=``/``axis=``: values, dtypes and the
gradient of every input in float64 to 1e-10, as functions and as methods. Skipped, visibly,
without PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

from solutions import ch07_device as sp

torch = pytest.importorskip("torch")

TOL = 1e-10


def _as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def _check(fn, shapes: list, seed: int = 0) -> None:
    """``fn(module, *leaves)`` with ``sp`` and ``torch``: the same outputs (one tensor, a
    named pair or a tuple of pieces), dtypes and values, and the same gradient of every leaf
    for random upstream gradients into every floating output."""
    rng = np.random.default_rng(seed)
    arrays = [rng.permutation(np.prod(s)).reshape(s) / 7.0 - 1 for s in shapes]  # no ties
    ours = [sp.tensor(a, dtype=sp.float64, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    outs, wants = _as_tuple(fn(sp, *ours)), _as_tuple(fn(torch, *theirs))
    assert len(outs) == len(wants)
    loss, want_loss = 0, 0
    for k, (out, want) in enumerate(zip(outs, wants)):
        assert out.shape == tuple(want.shape)
        assert str(out.dtype) == str(want.dtype).removeprefix("torch.")
        np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), rtol=TOL, atol=TOL)
        if want.requires_grad:
            g = np.random.default_rng(seed + 1 + k).uniform(-1, 1, tuple(want.shape))
            loss = loss + (out * sp.tensor(g)).sum()
            want_loss = want_loss + (want * torch.tensor(g)).sum()
    if isinstance(want_loss, int):
        return
    loss.backward()
    want_loss.backward()
    for x, t in zip(ours, theirs):
        expected = np.zeros(t.shape) if t.grad is None else t.grad.numpy()
        got = np.zeros(x.shape) if x.grad is None else x.grad.numpy()
        np.testing.assert_allclose(got, expected, rtol=TOL, atol=TOL)


OPS = {
    "tril": (lambda m, x: m.tril(x), [(3, 4)]),
    "tril diagonal": (lambda m, x: m.tril(x, diagonal=-1), [(2, 4, 3)]),
    "triu": (lambda m, x: m.triu(x, 1), [(4, 4)]),
    "triu method": (lambda m, x: x.triu(diagonal=-2), [(2, 3, 5)]),
    "tril method": (lambda m, x: x.tril(2), [(5, 3)]),
    "flip": (lambda m, x: m.flip(x, (0, 2)), [(2, 3, 4)]),
    "flip method": (lambda m, x: x.flip(-1), [(3, 4)]),
    "flip method list": (lambda m, x: x.flip([0, 1]), [(3, 4)]),
    "repeat": (lambda m, x: x.repeat(2, 3), [(3, 2)]),
    "repeat more axes": (lambda m, x: x.repeat((2, 1, 3)), [(2, 2)]),
    "repeat 0-d": (lambda m, x: x.sum().repeat(3, 2), [(2,)]),
    "split": (lambda m, x: m.split(x, 2), [(5, 3)]),
    "split sections": (lambda m, x: m.split(x, [1, 3, 1], dim=1), [(2, 5)]),
    "split method": (lambda m, x: x.split(3, -1), [(2, 7)]),
    "chunk": (lambda m, x: m.chunk(x, 3), [(7, 2)]),
    "chunk method": (lambda m, x: x.chunk(4, dim=1), [(2, 6)]),
    "unused pieces": (lambda m, x: x.split(2)[1], [(6, 2)]),
    "masked_fill": (lambda m, x: m.masked_fill(x, x > 0, 0.5), [(3, 4)]),
    "masked_fill method": (lambda m, x: x.masked_fill(x < 0, -1.0), [(3, 4)]),
    "masked_fill broadcast mask": (lambda m, x, y: x.masked_fill(y[0] > 0, 2.0), [(3, 4), (1, 4)]),
    "masked_fill -inf then softmax": (
        lambda m, x: x.masked_fill(m.tril(m.ones(4, 4)) == 0, float("-inf")).softmax(-1),
        [(4, 4)],
    ),
    "masked_fill tensor value": (
        lambda m, x, v: x.masked_fill(x > 0, v.sum()),
        [(3, 4), (2,)],
    ),
    "sort": (lambda m, x: m.sort(x), [(3, 5)]),
    "sort descending dim 0": (lambda m, x: m.sort(x, 0, descending=True), [(4, 3)]),
    "sort method": (lambda m, x: x.sort(dim=1, descending=True), [(2, 3, 4)]),
    "sort stable": (lambda m, x: x.sort(stable=True), [(6,)]),
    "argsort": (lambda m, x: m.argsort(x, dim=0), [(4, 3)]),
    "argsort method": (lambda m, x: x.argsort(descending=True), [(3, 4)]),
    "topk": (lambda m, x: m.topk(x, 2), [(3, 5)]),
    "topk smallest": (lambda m, x: m.topk(x, 3, dim=0, largest=False), [(4, 3)]),
    "topk method": (lambda m, x: x.topk(1, dim=-1), [(2, 3, 4)]),
    "topk k = 0": (lambda m, x: x.topk(0), [(3, 4)]),
    # keepdims= and axis=: PyTorch's NumPy names
    "sum keepdims": (lambda m, x: x.sum(1, keepdims=True), [(3, 4)]),
    "sum axis": (lambda m, x: m.sum(x, axis=0, keepdims=True), [(3, 4)]),
    "mean axis": (lambda m, x: x.mean(axis=(0, 2), keepdims=True), [(2, 3, 4)]),
    "max axis": (lambda m, x: m.max(x, axis=1, keepdims=True), [(3, 4)]),
    "min keepdims": (lambda m, x: x.min(0, keepdims=True), [(3, 4)]),
    "argmax axis": (lambda m, x: x.argmax(axis=1, keepdims=True), [(3, 4)]),
    "argmin axis": (lambda m, x: m.argmin(x, axis=0), [(3, 4)]),
    "std keepdims": (lambda m, x: x.std(1, keepdims=True), [(3, 4)]),
    "var axis": (lambda m, x: m.var(x, axis=0), [(3, 4)]),
    "softmax axis": (lambda m, x: x.softmax(axis=-1), [(3, 4)]),
    "log_softmax axis": (lambda m, x: m.log_softmax(x, axis=0), [(3, 4)]),
    "cat axis": (lambda m, x, y: m.cat([x, y], axis=1), [(2, 3), (2, 1)]),
    "stack axis": (lambda m, x, y: m.stack([x, y], axis=-1), [(2, 3), (2, 3)]),
    "squeeze axis": (lambda m, x: x.squeeze(axis=1), [(3, 1, 2)]),
    "unsqueeze axis": (lambda m, x: m.unsqueeze(x, axis=0), [(3, 2)]),
    "gather axis": (
        lambda m, x: x.gather(axis=1, index=m.tensor([[0, 2], [1, 1]])),
        [(2, 3)],
    ),
    "prod keepdims": (lambda m, x: x.prod(axis=1, keepdims=True), [(3, 4)]),
    "cumsum axis": (lambda m, x: x.cumsum(axis=0), [(3, 4)]),
    "sort axis": (lambda m, x: x.sort(axis=0), [(3, 4)]),
    "topk axis": (lambda m, x: m.topk(x, 2, axis=0), [(3, 4)]),
    "chunk axis": (lambda m, x: x.chunk(2, axis=1), [(2, 4)]),
    "prod function axis": (lambda m, x: m.prod(x, axis=0, keepdims=True), [(3, 4)]),
    "cumsum function axis": (lambda m, x: m.cumsum(x, axis=1), [(3, 4)]),
    "std function axis": (lambda m, x: m.std(x, axis=1, keepdims=True), [(3, 4)]),
    "argsort function axis": (lambda m, x: m.argsort(x, axis=0), [(3, 4)]),
    "squeeze function axis": (lambda m, x: m.squeeze(x, axis=0), [(1, 4)]),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_ops_agree_with_pytorch(name: str) -> None:
    fn, shapes = OPS[name]
    _check(fn, shapes)


@pytest.mark.parametrize(
    "call",
    [
        lambda m: (m.ones(3, 3) > 0).all(axis=1, keepdims=True),
        lambda m: (m.ones(3, 3) > 0).any(1, keepdims=True),
        lambda m: m.all(m.eye(3) > 0, axis=0, keepdims=True),
        lambda m: m.any(m.eye(3) > 0, axis=1),
    ],
)
def test_all_and_any_take_numpy_names(call) -> None:
    ours, theirs = call(sp), call(torch)
    assert ours.shape == tuple(theirs.shape) and ours.tolist() == theirs.tolist()


def test_one_hot_agrees_with_pytorch() -> None:
    labels = np.array([[3, 0, 1], [1, 1, 4]])
    for num_classes in (-1, 6):
        ours = sp.nn.functional.one_hot(sp.tensor(labels), num_classes)
        theirs = torch.nn.functional.one_hot(torch.tensor(labels), num_classes)
        assert ours.dtype == np.int64 and theirs.dtype == torch.int64
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_sort_of_ties_and_nan_agrees_with_pytorch_stable() -> None:
    data = [2.0, float("nan"), 1.0, 2.0, -1.0, 1.0, float("nan"), 2.0]
    for descending in (False, True):
        ours = sp.sort(sp.tensor(data), descending=descending, stable=True)
        theirs = torch.sort(torch.tensor(data), descending=descending, stable=True)
        assert ours.indices.tolist() == theirs.indices.tolist()
        np.testing.assert_array_equal(ours.values.numpy(), theirs.values.numpy())
    ints = [3, 1, 3, 0, 1]
    ours = sp.argsort(sp.tensor(ints), descending=True, stable=True)
    assert ours.tolist() == torch.argsort(torch.tensor(ints), descending=True, stable=True).tolist()


def test_sort_gives_the_gradient_to_the_index_it_returns_at_ties() -> None:
    a = [1.0, 3.0, 1.0, 3.0]
    x = sp.tensor(a, requires_grad=True)
    t = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    g = [1.0, 2.0, 3.0, 4.0]
    x.sort(stable=True).values.backward(sp.tensor(g))
    t.sort(stable=True).values.backward(torch.tensor(g, dtype=torch.float64))
    assert x.grad.tolist() == t.grad.tolist()


def test_the_named_pairs_unpack_and_name_as_pytorchs() -> None:
    x = sp.tensor([[1.0, 3.0, 2.0]])
    for result in (x.sort(), x.topk(2)):
        values, indices = result
        assert values is result.values and indices is result.indices
        assert indices.dtype == np.int64

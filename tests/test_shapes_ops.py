"""Chapter 7's shape, sorting and masking operations (``ops/shapes.py``, ``ops/sorting.py``)
and PyTorch's layout of a mixed index, without PyTorch: values from NumPy written here,
the errors and dtypes PyTorch gives, and the simulated device giving the CPU's values and
gradients. ``INDEXES`` is the catalogue of index forms that ``test_torch_indexing.py``
compares with PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

from solutions import ch07_device as sp

F = sp.nn.functional


def _mask(m, values):
    return m.tensor(values)


# every index form, for a tensor of SHAPE (``m`` is sp or torch, so int tensors and masks
# are each framework's own); the id says what is mixed with what
SHAPE = (2, 3, 4)
SHAPE4 = (2, 3, 4, 5)
MASK23 = [[True, False, True], [False, True, True]]
MASK34 = [[True, False, True, False], [False, False, True, True], [True, True, False, False]]
INDEXES = {
    # one kind alone
    "int": (SHAPE, lambda m: 1),
    "negative int": (SHAPE, lambda m: -1),
    "ints": (SHAPE, lambda m: (1, 2)),
    "negative ints": (SHAPE, lambda m: (-1, -2, -3)),
    "slice": (SHAPE, lambda m: slice(1, None)),
    "slices with steps": (SHAPE, lambda m: (slice(None, None, 2), slice(0, 3, 2))),
    "None": (SHAPE, lambda m: None),
    "None between": (SHAPE, lambda m: (slice(None), None, slice(1, 3))),
    "Ellipsis, int": (SHAPE, lambda m: (Ellipsis, 1)),
    "int, Ellipsis": (SHAPE, lambda m: (1, Ellipsis)),
    "list": (SHAPE, lambda m: [1, 0, 1]),
    "lists adjacent": (SHAPE, lambda m: ([0, 1], [2, 0])),
    "lists separated": (SHAPE, lambda m: ([0, 1], slice(None), [1, 2])),
    "int tensor": (SHAPE, lambda m: (slice(None), m.tensor([2, 0, 2]))),
    "int tensor 2-d": (SHAPE, lambda m: (slice(None), m.tensor([[0, 1], [2, 0]]))),
    "repeated indices": (SHAPE, lambda m: (slice(None), slice(None), [3, 3, 0, 3])),
    "bool mask": (SHAPE, lambda m: m.tensor([True, False])),
    "bool mask 2-d": (SHAPE, lambda m: _mask(m, MASK23)),
    "bool mask on later axes": (SHAPE, lambda m: (slice(None), _mask(m, MASK34))),
    "bool list": (SHAPE, lambda m: (slice(None), [True, False, True])),
    # integers mixed with advanced indices: PyTorch selects with the integers first
    "int, slice, list (the issue's case)": (SHAPE, lambda m: (0, slice(None), [1, 2])),
    "slice, int, list": (SHAPE, lambda m: (slice(None), 0, [1, 2])),
    "list, slice, int": (SHAPE, lambda m: ([0, 1], slice(None), 0)),
    "int, list, list": (SHAPE, lambda m: (0, [0, 2], [1, 3])),
    "list, int, list": (SHAPE, lambda m: ([1, 0], 2, [0, 3])),
    "list, int, int": (SHAPE, lambda m: ([0, 1], 1, 2)),
    "int, Ellipsis, list": (SHAPE, lambda m: (1, Ellipsis, [0, 3])),
    "list, Ellipsis, int": (SHAPE, lambda m: ([1, 0], Ellipsis, 2)),
    "negative int, step slice, list": (SHAPE, lambda m: (-1, slice(None, None, 2), [-1, 0])),
    "int, None, list": (SHAPE, lambda m: (0, None, [1, 2])),
    "None, int, list": (SHAPE, lambda m: (None, 0, [1, 2])),
    "slice, int, None, list": (SHAPE, lambda m: (slice(None), 1, None, [0, 3])),
    "list, None, list": (SHAPE, lambda m: ([0, 1], None, [1, 2])),
    "int, slice, 2-d list": (SHAPE, lambda m: (0, slice(1, None), [[1], [2]])),
    "0-d int tensor, slice, list": (SHAPE, lambda m: (m.tensor(1), slice(None), [1, 2])),
    "0-d int tensor, slice, int tensor": (
        SHAPE,
        lambda m: (m.tensor(1), slice(None), m.tensor([1, 2])),
    ),
    "int, slice, bool mask": (SHAPE, lambda m: (1, slice(None), m.tensor([True, False] * 2))),
    "bool mask, slice, int": (SHAPE, lambda m: (m.tensor([True, False]), slice(None), 1)),
    "int, 2-d bool mask": (SHAPE, lambda m: (0, _mask(m, MASK34))),
    "2-d bool mask, int": (SHAPE, lambda m: (_mask(m, MASK23), 1)),
    "int, bool scalar": (SHAPE, lambda m: (0, True)),
    "int, slice, bool scalar": (SHAPE, lambda m: (0, slice(None), True)),
    "slice, 2-d int tensor, int": (SHAPE, lambda m: (slice(None), m.tensor([[0, 1], [2, 0]]), 1)),
    "int, slice, repeated list": (SHAPE, lambda m: (1, slice(None), [0, 0, 3])),
    "int, slice, range": (SHAPE, lambda m: (1, slice(None), range(1, 4))),
    "int, slice, list, int (4-d)": (SHAPE4, lambda m: (0, slice(None), [1, 2], 1)),
    "slice, list, slice, int (4-d)": (SHAPE4, lambda m: (slice(None), [0, 1], slice(None), 0)),
    "list, int, slice, list (4-d)": (SHAPE4, lambda m: ([0, 1], 0, slice(None), [1, 2])),
    "int, int tensor, slice, int tensor (4-d)": (
        SHAPE4,
        lambda m: (1, m.tensor([[2], [0]]), slice(1, 3), m.tensor([4, 0, 1])),
    ),
}


def _array(shape) -> np.ndarray:
    return np.arange(float(np.prod(shape))).reshape(shape)


# -- the layout, against NumPy written out step by step --------------------------------------


@pytest.mark.parametrize(
    "index, numpy_value",
    [
        ((0, slice(None), [1, 2]), lambda a: a[0][:, [1, 2]]),
        ((slice(None), [0, 1], slice(None), 0), lambda a: a[:, :, :, 0][:, [0, 1], :]),
        ((0, None, [1, 2]), lambda a: a[0][None][:, [1, 2]]),
        ((1, Ellipsis, [0, 3]), lambda a: a[1][..., [0, 3]]),
        (([0, 1], 1, 2), lambda a: a[:, 1, 2][[0, 1]]),
    ],
)
def test_an_integer_beside_an_array_index_selects_first(index, numpy_value) -> None:
    a = _array(SHAPE4)
    got = sp.tensor(a)[index]
    want = numpy_value(a)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.numpy(), want)


def test_the_mixed_index_gradient_goes_back_where_the_values_came_from() -> None:
    a = _array(SHAPE)
    x = sp.tensor(a, requires_grad=True)
    g = np.arange(1.0, 7.0).reshape(3, 2)
    x[0, :, [1, 2]].backward(sp.tensor(g))
    want = np.zeros(SHAPE)
    want[0][:, [1, 2]] = g
    np.testing.assert_array_equal(x.grad.numpy(), want)


@pytest.mark.parametrize("name", sorted(INDEXES))
def test_every_index_form_on_the_simulated_device_gives_the_cpus(name: str) -> None:
    shape, index = INDEXES[name]
    a = np.random.default_rng(0).uniform(-1, 1, shape)
    cpu = sp.tensor(a, requires_grad=True)
    want = cpu[index(sp)]
    g = np.random.default_rng(1).uniform(-1, 1, want.shape)
    want.backward(sp.tensor(g))
    sim = sp.tensor(a).to("sim").requires_grad_()
    on_sim = index(sp)
    on_sim = (
        tuple(i.to("sim") if isinstance(i, sp.Tensor) else i for i in on_sim)
        if (isinstance(on_sim, tuple))
        else (on_sim.to("sim") if isinstance(on_sim, sp.Tensor) else on_sim)
    )
    got = sim[on_sim]
    got.backward(sp.tensor(g).to("sim"))
    assert got.device.type == "sim" and got.shape == want.shape
    np.testing.assert_array_equal(got.detach().cpu().numpy(), want.detach().numpy())
    np.testing.assert_array_equal(sim.grad.cpu().numpy(), cpu.grad.numpy())


# -- tril, triu, flip, repeat ----------------------------------------------------------------


def test_tril_and_triu_against_numpy() -> None:
    a = np.arange(24.0).reshape(2, 3, 4)
    for k in (-1, 0, 2):
        np.testing.assert_array_equal(sp.tril(sp.tensor(a), k).numpy(), np.tril(a, k))
        np.testing.assert_array_equal(sp.tensor(a).triu(diagonal=k).numpy(), np.triu(a, k))
    x = sp.ones(3, 3, requires_grad=True)
    x.tril(-1).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.tril(np.ones((3, 3)), -1))
    assert sp.tril(sp.ones(2, 2, dtype=sp.int32)).dtype == np.int32
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        sp.tril(sp.ones(3))


def test_flip_and_repeat_against_numpy() -> None:
    a = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(sp.tensor(a).flip(0, 1).numpy(), a[::-1, ::-1])
    np.testing.assert_array_equal(sp.flip(sp.tensor(a), [1]).numpy(), a[:, ::-1])
    with pytest.raises(TypeError, match="tuple of ints"):
        sp.flip(sp.tensor(a), 0)
    with pytest.raises(RuntimeError, match="appears multiple times"):
        sp.tensor(a).flip(0, -2)
    np.testing.assert_array_equal(sp.tensor(a).repeat(2, 1, 2).numpy(), np.tile(a, (2, 1, 2)))
    x = sp.tensor(a, requires_grad=True)
    x.repeat((3, 2)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 6.0))
    with pytest.raises(RuntimeError, match="can not be smaller"):
        sp.tensor(a).repeat(2)
    assert not hasattr(sp, "__all__") or "repeat" not in sp.__all__  # no torch.repeat


# -- split, chunk --------------------------------------------------------------------------


def test_split_and_chunk_sizes_and_errors() -> None:
    x = sp.tensor(np.arange(10.0))
    assert [p.shape[0] for p in x.split(4)] == [4, 4, 2]
    assert [p.shape[0] for p in sp.split(x, [1, 6, 3])] == [1, 6, 3]
    assert [p.shape[0] for p in x.chunk(4)] == [3, 3, 3, 1]
    assert [p.shape[0] for p in sp.tensor(np.arange(5.0)).chunk(4)] == [2, 2, 1]
    assert isinstance(x.split(5), tuple) and isinstance(x.chunk(2), tuple)
    assert [p.shape for p in sp.zeros(2, 6).chunk(3, dim=-1)] == [(2, 2)] * 3
    with pytest.raises(RuntimeError, match="sum exactly to 10"):
        x.split([3, 3])
    with pytest.raises(RuntimeError, match="split_size can only be 0"):
        x.split(0)
    with pytest.raises(RuntimeError, match="greater than 0"):
        x.chunk(0)


def test_every_piece_passes_its_gradient_back_and_unused_pieces_get_zeros() -> None:
    x = sp.tensor(np.arange(10.0), requires_grad=True)
    a, _unused, c = x.split([2, 5, 3])
    ((a * 2).sum() + (c * 3).sum()).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2, 2, 0, 0, 0, 0, 0, 3, 3, 3])


# -- masked_fill, one_hot ------------------------------------------------------------------


def test_masked_fill_values_dtypes_and_errors() -> None:
    a = np.arange(6.0).reshape(2, 3)
    mask = a % 2 == 0
    got = sp.tensor(a).masked_fill(sp.tensor(mask), -1.0)
    np.testing.assert_array_equal(got.numpy(), np.where(mask, -1.0, a))
    ints = sp.masked_fill(sp.zeros(3, dtype=sp.int64), sp.tensor([True, False, True]), 1.7)
    assert ints.dtype == np.int64 and ints.tolist() == [1, 0, 1]  # converted, as PyTorch
    x = sp.tensor(a, requires_grad=True)
    v = sp.tensor(5.0, dtype=sp.float64, requires_grad=True)
    x.masked_fill(sp.tensor(mask), v).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), (~mask).astype(float))
    assert v.grad.item() == mask.sum()
    with pytest.raises(RuntimeError, match="boolean masks"):
        sp.tensor(a).masked_fill(sp.tensor(mask.astype(float)), 1.0)
    with pytest.raises(RuntimeError, match="0-dimensional value tensor"):
        sp.tensor(a).masked_fill(sp.tensor(mask), sp.ones(1))


def test_one_hot_is_int64_and_checks_its_classes() -> None:
    labels = np.array([[0, 3], [2, 2]])
    got = F.one_hot(sp.tensor(labels))
    assert got.dtype == np.int64 and got.shape == (2, 2, 4)
    np.testing.assert_array_equal(got.numpy(), np.eye(4, dtype=np.int64)[labels])
    assert F.one_hot(sp.tensor([1]), num_classes=3).tolist() == [[0, 1, 0]]
    with pytest.raises(RuntimeError, match="LongTensor"):
        F.one_hot(sp.tensor([1], dtype=sp.int32))
    with pytest.raises(RuntimeError, match="smaller than num_classes"):
        F.one_hot(sp.tensor([3]), 3)
    with pytest.raises(RuntimeError, match="non-negative"):
        F.one_hot(sp.tensor([-1]), 3)
    with pytest.raises(RuntimeError, match="empty tensor"):
        F.one_hot(sp.tensor([], dtype=sp.int64))


# -- sort, argsort, topk -------------------------------------------------------------------


def test_sort_is_stable_both_ways_and_puts_nan_last_ascending() -> None:
    x = sp.tensor([3, 1, 3, 2, 1])
    values, indices = x.sort(descending=True)
    assert values.tolist() == [3, 3, 2, 1, 1] and indices.tolist() == [0, 2, 3, 1, 4]
    assert sp.sort(x).indices.tolist() == [1, 4, 3, 0, 2]
    assert sp.argsort(x, descending=True).dtype == np.int64
    nan = sp.tensor([1.0, float("nan"), 0.0])
    assert sp.sort(nan).indices.tolist() == [2, 0, 1]
    assert sp.sort(nan, descending=True).indices.tolist() == [1, 0, 2]


def test_topk_values_indices_and_gradient() -> None:
    a = np.array([[0.5, 2.0, -1.0, 3.0], [1.0, 0.0, 4.0, -2.0]])
    x = sp.tensor(a, requires_grad=True)
    top = x.topk(2)
    assert top.indices.tolist() == [[3, 1], [2, 0]]
    np.testing.assert_array_equal(top.values.detach().numpy(), [[3.0, 2.0], [4.0, 1.0]])
    top.values.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 1, 0, 1], [1, 0, 1, 0]])
    assert sp.topk(sp.tensor(a), 1, dim=0, largest=False).indices.tolist() == [[0, 1, 0, 1]]
    with pytest.raises(RuntimeError, match="out of range"):
        sp.topk(sp.tensor(a), 5)


# -- keepdims= and axis=, PyTorch's NumPy names -------------------------------------------


def test_keepdims_and_axis_are_accepted_where_pytorch_accepts_them() -> None:
    a = np.random.default_rng(0).uniform(-1, 1, (3, 4))
    x = sp.tensor(a)
    np.testing.assert_allclose(x.sum(1, keepdims=True).numpy(), a.sum(1, keepdims=True))
    np.testing.assert_allclose(sp.mean(x, axis=0, keepdims=True).numpy(), a.mean(0)[None])
    np.testing.assert_allclose(x.max(axis=1, keepdims=True).values.numpy(), a.max(1)[:, None])
    assert x.argmax(axis=1, keepdims=True).tolist() == a.argmax(1)[:, None].tolist()
    assert sp.min(x, 1, keepdims=True).indices.tolist() == a.argmin(1)[:, None].tolist()
    np.testing.assert_allclose(x.var(axis=1).numpy(), a.var(1, ddof=1))
    assert x.sort(axis=0).indices.tolist() == np.argsort(a, axis=0, kind="stable").tolist()
    assert sp.cat([x, x], axis=1).shape == (3, 8)
    with pytest.raises(TypeError, match="both 'dim' and 'axis'"):
        x.sum(dim=1, axis=1)
    with pytest.raises(TypeError):
        sp.split(x, 2, axis=1)  # torch.split is a Python function: no NumPy names
    with pytest.raises(TypeError):
        x.split(2, axis=1)  # and so is Tensor.split


# -- on the simulated device ----------------------------------------------------------------


def test_the_new_ops_run_on_the_simulated_device_as_on_the_cpu() -> None:
    a = np.random.default_rng(2).uniform(-1, 1, (3, 4))
    mask = a > 0

    def run(t, m):
        out = t.tril(1).sum() + t.triu().sum() * 2 + t.flip(0, 1)[0].sum() + t.repeat(2, 1).sum()
        out = out + sum((p * (i + 1)).sum() for i, p in enumerate(t.split([1, 2])))
        out = out + t.chunk(2, 1)[1].sum() + t.masked_fill(m, 0.5).sum()
        out = out + t.sort(1).values[:, 0].sum() + t.topk(2, 0).values.sum()
        out.backward()
        return out, t.argsort(0, descending=True)

    cpu = sp.tensor(a, requires_grad=True)
    want, want_order = run(cpu, sp.tensor(mask))
    sim = sp.tensor(a).to("sim").requires_grad_()
    with sp.simulated.counting() as moved:
        got, order = run(sim, sp.tensor(mask).to("sim"))
    assert moved.to_host == 0, moved
    assert got.device.type == "sim" and order.device.type == "sim"
    assert got.cpu().item() == pytest.approx(want.item(), rel=1e-12)
    np.testing.assert_allclose(sim.grad.cpu().numpy(), cpu.grad.numpy(), rtol=1e-12)
    assert order.cpu().tolist() == want_order.tolist()
    hot = F.one_hot(sp.tensor([2, 0]).to("sim"), 3)
    assert hot.device.type == "sim" and hot.cpu().tolist() == [[0, 0, 1], [1, 0, 0]]

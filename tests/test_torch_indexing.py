"""PyTorch as the oracle for indexing: every index form of ``test_shapes_ops.INDEXES`` (ints,
negative ints, slices with steps, None, Ellipsis, lists, int tensors 1-d and 2-d, bool
masks, and mixtures of them adjacent and separated) gives PyTorch's shape, values and
gradient in float64 to 1e-10, and its gradient's gradient; ``x[index] = value`` writes
where PyTorch writes. Skipped, visibly, without PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

from solutions import ch07_device as sp
from tests.test_shapes_ops import INDEXES

torch = pytest.importorskip("torch")

TOL = 1e-10


def _leaves(shape, seed: int = 0):
    a = np.random.default_rng(seed).uniform(-1, 1, shape)
    ours = sp.tensor(a, dtype=sp.float64, requires_grad=True)
    return a, ours, torch.tensor(a, dtype=torch.float64, requires_grad=True)


@pytest.mark.parametrize("name", sorted(INDEXES))
def test_every_index_form_agrees_with_pytorch(name: str) -> None:
    shape, index = INDEXES[name]
    _, x, t = _leaves(shape)
    out, want = x[index(sp)], t[index(torch)]
    assert out.shape == tuple(want.shape)
    np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), rtol=TOL, atol=TOL)
    g = np.random.default_rng(1).uniform(-1, 1, tuple(want.shape))
    out.backward(sp.tensor(g))
    want.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=TOL, atol=TOL)


@pytest.mark.parametrize(
    "name",
    [
        "int, slice, list (the issue's case)",
        "slice, list, slice, int (4-d)",
        "int, slice, repeated list",
        "int, 2-d bool mask",
    ],
)
def test_the_gradient_of_the_gradient_agrees_with_pytorch(name: str) -> None:
    """The backward (a scatter-add per step) is itself differentiable, in PyTorch's layout."""
    shape, index = INDEXES[name]
    _, x, t = _leaves(shape)
    out, want = x[index(sp)], t[index(torch)]
    g = np.random.default_rng(2).uniform(-1, 1, tuple(want.shape))
    h = np.random.default_rng(3).uniform(-1, 1, shape)
    ours_g = sp.tensor(g, requires_grad=True)
    theirs_g = torch.tensor(g, requires_grad=True)
    (gx,) = sp.autograd.grad(out, [x], ours_g, create_graph=True)
    (tx,) = torch.autograd.grad(want, [t], theirs_g, create_graph=True)
    (gx * sp.tensor(h)).sum().backward()
    (tx * torch.tensor(h)).sum().backward()
    np.testing.assert_allclose(ours_g.grad.numpy(), theirs_g.grad.numpy(), rtol=TOL, atol=TOL)


# -- x[index] = value ------------------------------------------------------------------------

ASSIGNMENTS = {
    "int, number": (lambda m: (1, 2), lambda m, shape: 7.0),
    "slice, tensor that broadcasts": (
        lambda m: (slice(None), slice(1, 3)),
        lambda m, shape: m.tensor([[1.0], [2.0]], dtype=m.float64),
    ),
    "mixed (the issue's layout)": (
        lambda m: (0, slice(None), [1, 2]),
        lambda m, shape: m.arange(6, dtype=m.float64).reshape(3, 2),
    ),
    "separated lists": (
        lambda m: ([0, 1], slice(None), [3, 0]),
        lambda m, shape: m.arange(6, dtype=m.float64).reshape(2, 3),
    ),
    "bool mask, number": (lambda m: m.tensor([[True, False, True], [False, False, True]]), None),
    "int tensor 2-d": (
        lambda m: (1, m.tensor([[0, 2], [1, 1]])),
        lambda m, shape: m.tensor(5.0, dtype=m.float64),
    ),
    "int, bool mask, 0-d tensor": (
        lambda m: (1, slice(None), m.tensor([False, True, True, False])),
        lambda m, shape: m.tensor([-1.0, -2.0], dtype=m.float64),
    ),
    "Ellipsis, None": (lambda m: (Ellipsis, None, 0), lambda m, shape: 3.0),
    "0-d int tensor, slice, list": (lambda m: (m.tensor(1), slice(None), [0, 3]), None),
}


@pytest.mark.parametrize("name", sorted(ASSIGNMENTS))
def test_item_assignment_writes_where_pytorch_writes(name: str) -> None:
    index, value = ASSIGNMENTS[name]
    value = value or (lambda m, shape: -4.0)
    a = np.random.default_rng(4).uniform(-1, 1, (2, 3, 4))
    x, t = sp.tensor(a), torch.tensor(a)
    x[index(sp)] = value(sp, a.shape)
    t[index(torch)] = value(torch, a.shape)
    np.testing.assert_array_equal(x.numpy(), t.numpy())


def test_makemore_bigram_counts_agree_with_pytorch() -> None:
    rng = np.random.default_rng(5)
    pairs = rng.integers(0, 5, (200, 2)).tolist()
    n, nt = sp.zeros((5, 5), dtype=sp.int32), torch.zeros((5, 5), dtype=torch.int32)
    for i, j in pairs:
        n[i, j] += 1
        nt[i, j] += 1
    assert n.dtype == np.int32
    np.testing.assert_array_equal(n.numpy(), nt.numpy())


def test_an_int_tensor_takes_a_float_number_as_pytorch_does() -> None:
    x, t = sp.zeros(3, dtype=sp.int32), torch.zeros(3, dtype=torch.int32)
    x[0], t[0] = 2.7, 2.7
    x[1], t[1] = sp.tensor(-1.9), torch.tensor(-1.9)
    assert x.tolist() == t.tolist()

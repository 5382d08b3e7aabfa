"""PyTorch as an oracle for chapter 7's operations (``solutions/ch07_device/ops/``): every
op, as a function and as a method, agrees with PyTorch in float64 to 1e-10, in values and in
the gradient of every input, over several shapes and dims; ``gather``'s and ``cat``'s
backward agree to second order (the gradient's gradient); a run of the ops on the simulated
device gives the CPU's values. Skipped, visibly, without PyTorch (``pip install -r
requirements-oracles.txt``)."""

from __future__ import annotations

import numpy as np
import pytest

from solutions import ch07_device as sp

torch = pytest.importorskip("torch")

TOL = 1e-10


def _arrays(seed: int, shapes: list) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.uniform(-2, 2, s) for s in shapes]


def _check(fn, shapes: list, seed: int = 0, grad: bool = True) -> None:
    """``fn(module, *leaves)`` with module ``sp`` and ``torch``: equal values and, for
    ``grad``, equal gradients of every leaf for one random upstream gradient."""
    arrays = _arrays(seed, shapes)
    ours = [sp.tensor(a, dtype=sp.float64, requires_grad=grad) for a in arrays]
    theirs = [torch.tensor(a, dtype=torch.float64, requires_grad=grad) for a in arrays]
    out, want = fn(sp, *ours), fn(torch, *theirs)
    if isinstance(want, tuple):  # (values, indices)
        out, want = out[0], want[0]
        assert isinstance(out, sp.Tensor)
    assert out.shape == tuple(want.shape)
    np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), rtol=TOL, atol=TOL)
    assert str(out.dtype) == str(want.dtype).removeprefix("torch.")
    if not grad:
        return
    g = np.random.default_rng(seed + 1).uniform(-1, 1, tuple(want.shape))
    out.backward(sp.tensor(g, dtype=sp.float64))
    want.backward(torch.tensor(g, dtype=torch.float64))
    for x, t in zip(ours, theirs):
        expected = np.zeros(t.shape) if t.grad is None else t.grad.numpy()
        got = np.zeros(x.shape) if x.grad is None else x.grad.numpy()
        np.testing.assert_allclose(got, expected, rtol=TOL, atol=TOL)


OPS = {
    # the module-level forms
    "tanh": (lambda m, x: m.tanh(x), [(3, 4)]),
    "exp": (lambda m, x: m.exp(x), [(2, 3)]),
    "log": (lambda m, x: m.log(m.abs(x) + 0.1), [(2, 3)]),
    "sqrt": (lambda m, x: m.sqrt(m.abs(x) + 0.1), [(5,)]),
    "sigmoid": (lambda m, x: m.sigmoid(x), [(2, 2, 2)]),
    "relu": (lambda m, x: m.relu(x), [(7,)]),
    "sum dim": (lambda m, x: m.sum(x, 1), [(3, 4, 2)]),
    "sum keepdim": (lambda m, x: m.sum(x, (0, 2), keepdim=True), [(3, 4, 2)]),
    "mean": (lambda m, x: m.mean(x, -1), [(3, 4)]),
    "max": (lambda m, x: m.max(x), [(3, 4)]),
    "max dim": (lambda m, x: m.max(x, 1, keepdim=True), [(3, 4)]),
    "matmul": (lambda m, a, b: m.matmul(a, b), [(2, 3, 4), (4, 5)]),
    "mm": (lambda m, a, b: m.mm(a, b), [(3, 4), (4, 2)]),
    "reshape": (lambda m, x: m.reshape(x, (4, -1)), [(2, 3, 4)]),
    "transpose": (lambda m, x: m.transpose(x, 0, 2), [(2, 3, 4)]),
    "permute": (lambda m, x: m.permute(x, (2, 0, 1)), [(2, 3, 4)]),
    "squeeze": (lambda m, x: m.squeeze(x, 1), [(3, 1, 2)]),
    "unsqueeze": (lambda m, x: m.unsqueeze(x, -1), [(3, 2)]),
    "softmax": (lambda m, x: m.softmax(x, 1), [(3, 4)]),
    "log_softmax": (lambda m, x: m.log_softmax(x, 0), [(3, 4)]),
    "softmax method": (lambda m, x: x.softmax(-1), [(2, 3, 4)]),
    "log_softmax method": (lambda m, x: x.log_softmax(1), [(2, 3, 4)]),
    # where
    "where": (lambda m, x, y: m.where(x > 0, x, y), [(3, 4), (3, 4)]),
    "where broadcast": (lambda m, c, x, y: m.where(c > 0, x, y), [(3, 1), (1, 4), (4,)]),
    "where number": (lambda m, x: m.where(x > 0.5, x * x, 0.0), [(2, 5)]),
    "where method": (lambda m, x, y: x.where(y < 0, y), [(2, 3), (2, 3)]),
    # clamp / clip
    "clamp both": (lambda m, x: m.clamp(x, -0.5, 0.7), [(4, 5)]),
    "clamp min": (lambda m, x: m.clamp(x, min=0.2), [(4, 5)]),
    "clamp max": (lambda m, x: x.clamp(max=-0.1), [(4, 5)]),
    "clamp min > max": (lambda m, x: m.clamp(x, 1.0, -1.0), [(6,)]),
    "clip": (lambda m, x: m.clip(x, -1, 1), [(3, 3)]),
    "clamp tensors": (lambda m, x, lo, hi: m.clamp(x, lo - 1, hi + 1), [(3, 4), (4,), (3, 1)]),
    "clamp tensor min": (lambda m, x, lo: x.clamp(min=lo), [(3, 4), (3, 4)]),
    # min / argmin
    "min": (lambda m, x: m.min(x), [(3, 4)]),
    "min dim": (lambda m, x: m.min(x, 0), [(3, 4)]),
    "min dim keepdim": (lambda m, x: x.min(-1, keepdim=True), [(2, 3, 4)]),
    # flatten
    "flatten": (lambda m, x: m.flatten(x), [(2, 3, 4)]),
    "flatten 1": (lambda m, x: m.flatten(x, 1), [(2, 3, 4)]),
    "flatten 0 1": (lambda m, x: x.flatten(0, 1), [(2, 3, 4)]),
    "flatten -2 -1": (lambda m, x: x.flatten(-2, -1), [(2, 3, 4, 2)]),
    # var / std
    "var": (lambda m, x: m.var(x), [(3, 4)]),
    "var dim": (lambda m, x: m.var(x, 1), [(3, 4)]),
    "var dims keepdim": (lambda m, x: x.var((0, 2), keepdim=True), [(3, 4, 2)]),
    "var biased": (lambda m, x: x.var(0, unbiased=False), [(3, 4)]),
    "var correction": (lambda m, x: m.var(x, -1, correction=2), [(3, 5)]),
    "std": (lambda m, x: m.std(x), [(3, 4)]),
    "std dim": (lambda m, x: x.std(1, keepdim=True), [(3, 4, 2)]),
    "std unbiased False": (lambda m, x: x.std(unbiased=False), [(6,)]),
}


@pytest.mark.parametrize("name", list(OPS))
@pytest.mark.parametrize("seed", [0, 1])
def test_ops_agree_with_pytorch(name: str, seed: int) -> None:
    fn, shapes = OPS[name]
    _check(fn, shapes, seed)


def test_full_min_splits_the_gradient_among_ties_as_pytorch() -> None:
    data = np.array([[1.0, 3.0, 1.0], [2.0, 1.0, 5.0]])
    x, t = sp.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    x.min().backward()
    t.min().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=TOL)
    x.grad = None
    t.grad = None
    (x.min(1).values * sp.tensor([2.0, 3.0], dtype=sp.float64)).sum().backward()
    (t.min(1).values * torch.tensor([2.0, 3.0], dtype=torch.float64)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=TOL)


@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 4)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_argmin_and_argmax_agree(shape, keepdim: bool) -> None:
    data = _arrays(3, [shape])[0]
    ours, theirs = sp.tensor(data), torch.tensor(data)
    assert sp.argmin(ours).item() == torch.argmin(theirs).item()
    for dim in range(-len(shape), len(shape)):
        for name in ("argmin", "argmax"):
            got = getattr(sp, name)(ours, dim, keepdim=keepdim)
            want = getattr(torch, name)(theirs, dim, keepdim=keepdim)
            assert got.tolist() == want.tolist() and got.dtype == np.int64


@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 4)])
def test_argmin_and_argmax_of_everything_keep_dims_as_pytorch(shape) -> None:
    data = _arrays(5, [shape])[0]
    ours, theirs = sp.tensor(data), torch.tensor(data)
    for name in ("argmin", "argmax"):
        got, want = getattr(ours, name)(keepdim=True), getattr(theirs, name)(keepdim=True)
        assert got.shape == tuple(want.shape) and got.tolist() == want.tolist()


def test_sum_with_a_dtype_and_squeeze_of_several_dims_agree() -> None:
    data = _arrays(6, [(1, 2, 1, 3)])[0].astype(np.float32)
    ours = sp.tensor(data, requires_grad=True)
    theirs = torch.tensor(data, requires_grad=True)
    for dim in (None, 1, (1, 3)):
        got = ours.sum(dim, dtype=sp.float64) if dim is not None else ours.sum(dtype=sp.float64)
        want = (
            theirs.sum(dim, dtype=torch.float64)
            if dim is not None
            else theirs.sum(dtype=torch.float64)
        )
        assert got.dtype == np.float64
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=TOL)
    got, want = sp.sum(ours, dtype=sp.float64), torch.sum(theirs, dtype=torch.float64)
    got.backward()
    want.backward()
    assert ours.grad.dtype == np.float32
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=TOL)
    for dim in ((0, 2), (0, 1), (-2,), [0]):
        assert ours.squeeze(dim).shape == tuple(theirs.squeeze(tuple(dim)).shape)
        assert sp.squeeze(ours, dim).shape == tuple(torch.squeeze(theirs, tuple(dim)).shape)


def test_casts_agree() -> None:
    data = np.array([[1.7, -2.5, 0.0], [3.99, -0.2, 1e3]])
    ours, theirs = sp.tensor(data), torch.tensor(data)
    for name in ("long", "int", "bool", "half", "float", "double"):
        got, want = getattr(ours, name)(), getattr(theirs, name)()
        assert got.tolist() == want.tolist(), name
        assert str(got.dtype) == str(want.dtype).removeprefix("torch.").replace("half", "float16")
    leaf = sp.tensor(data, requires_grad=True)
    assert not leaf.long().requires_grad and not leaf.to(sp.long).requires_grad
    assert leaf.half().requires_grad  # a floating cast stays in the graph, as in PyTorch


# -- gather -----------------------------------------------------------------------------------

GATHERS = [
    ((5,), 0, (8,)),
    ((3, 4), 0, (5, 4)),
    ((3, 4), 1, (3, 7)),
    ((3, 4), -1, (2, 3)),
    ((2, 3, 4), 0, (4, 3, 4)),
    ((2, 3, 4), 1, (2, 6, 1)),
    ((2, 3, 4), 2, (1, 2, 9)),
    ((2, 1, 3, 2), 3, (2, 1, 3, 5)),
]


def _index(seed: int, shape: tuple, dim: int, index_shape: tuple) -> np.ndarray:
    return np.random.default_rng(seed + 7).integers(0, shape[dim], index_shape)


@pytest.mark.parametrize(("shape", "dim", "index_shape"), GATHERS)
@pytest.mark.parametrize("seed", [0, 1])
def test_gather_agrees_with_pytorch(shape, dim: int, index_shape, seed: int) -> None:
    index = _index(seed, shape, dim, index_shape)
    _check(lambda m, x: m.gather(x, dim, m.tensor(index)), [shape], seed)
    _check(lambda m, x: x.gather(dim, m.tensor(index)), [shape], seed)


@pytest.mark.parametrize(("shape", "dim", "index_shape"), GATHERS[::2])
def test_gathers_gradient_is_differentiable_as_pytorchs(shape, dim: int, index_shape) -> None:
    index = _index(5, shape, dim, index_shape)
    x, g, w = _arrays(5, [shape, index_shape, shape])

    def second(m, leaf, upstream_of):
        a = leaf(x)
        u = upstream_of(g)
        out = m.gather(a, dim, m.tensor(index))
        (ga,) = m.autograd.grad(out, a, u, create_graph=True)
        (gg,) = m.autograd.grad((ga * leaf(w, False)).sum(), u)
        return ga.detach().numpy(), gg.detach().numpy()

    ours = second(sp, _sp_leaf, _sp_leaf)
    theirs = second(torch, _torch_leaf, _torch_leaf)
    for got, want in zip(ours, theirs):
        np.testing.assert_allclose(got, want, rtol=TOL, atol=TOL)


def _sp_leaf(a, grad=True):
    return sp.tensor(a, dtype=sp.float64, requires_grad=grad)


def _torch_leaf(a, grad=True):
    return torch.tensor(a, dtype=torch.float64, requires_grad=grad)


def test_gather_errors_where_pytorch_raises() -> None:
    x = np.ones((2, 3))
    cases = [
        (1, np.full((2, 1), 3)),
        (0, np.zeros((3, 3), dtype=np.int64)[:, :2].reshape(3, 2)[:1, :]),  # fine: smaller
        (1, np.zeros((3, 1), dtype=np.int64)),
        (0, np.zeros(3, dtype=np.int64)),
    ]
    for dim, index in cases:
        try:
            torch.gather(torch.tensor(x), dim, torch.tensor(index))
        except RuntimeError:
            with pytest.raises(RuntimeError):
                sp.gather(sp.tensor(x), dim, sp.tensor(index))
        else:
            sp.gather(sp.tensor(x), dim, sp.tensor(index))


# -- cat / stack --------------------------------------------------------------------------------

CATS = [
    ([(3,), (2,), (4,)], 0),
    ([(2, 3), (2, 1), (2, 4)], 1),
    ([(1, 3), (3, 3)], 0),
    ([(2, 3, 1), (2, 3, 2)], -1),
    ([(2, 1, 4), (2, 3, 4), (2, 2, 4)], 1),
    ([(3, 2)], 0),
    ([(2, 0), (2, 3)], 1),
]
STACKS = [([(3,)] * 3, 0), ([(2, 3)] * 2, 1), ([(2, 3)] * 2, -1), ([(2, 3, 4)] * 3, 3)]


@pytest.mark.parametrize(("shapes", "dim"), CATS)
def test_cat_agrees_with_pytorch(shapes: list, dim: int) -> None:
    _check(lambda m, *xs: m.cat(list(xs), dim), shapes)
    _check(lambda m, *xs: m.cat(xs, dim=dim) * 2, shapes, seed=3)


@pytest.mark.parametrize(("shapes", "dim"), STACKS)
def test_stack_agrees_with_pytorch(shapes: list, dim: int) -> None:
    _check(lambda m, *xs: m.stack(list(xs), dim), shapes)


@pytest.mark.parametrize(
    ("shapes", "dim", "stack"), [(*c, False) for c in CATS[:5]] + [(*STACKS[1], True)]
)
def test_cats_gradient_is_differentiable_as_pytorchs(shapes: list, dim: int, stack: bool) -> None:
    xs = _arrays(9, shapes)
    ws = _arrays(10, shapes)

    def second(m, leaf):
        leaves = [leaf(x) for x in xs]
        out = (m.stack if stack else m.cat)(leaves, dim)
        u = leaf(np.random.default_rng(11).uniform(-1, 1, tuple(out.shape)))
        grads = m.autograd.grad(out, leaves, u, create_graph=True)
        total = sum((g * leaf(w, False)).sum() for g, w in zip(grads, ws))
        (gg,) = m.autograd.grad(total, u)
        return gg.detach().numpy()

    np.testing.assert_allclose(second(sp, _sp_leaf), second(torch, _torch_leaf), rtol=TOL)


def test_cat_promotes_dtypes_as_pytorch() -> None:
    parts = [np.array([1, 2]), np.array([0.5], dtype=np.float32), np.array([True])]
    got = sp.cat([sp.tensor(p) for p in parts])
    want = torch.cat([torch.tensor(p) for p in parts])
    assert got.tolist() == want.tolist() and str(got.dtype) == "float32" == str(want.dtype)[6:]


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.cat([m.ones(2, 3), m.ones(2)]),
        lambda m: m.cat([m.ones(2, 3), m.ones(3, 3)], 1),
        lambda m: m.cat([m.tensor(1.0)]),
        lambda m: m.stack([]),
        lambda m: m.stack([m.ones(2), m.ones(3)]),
    ],
)
def test_cat_and_stack_raise_where_pytorch_does(call) -> None:
    with pytest.raises(RuntimeError):
        call(torch)
    with pytest.raises(RuntimeError):
        call(sp)


def test_cat_of_nothing_is_a_value_error_as_in_pytorch() -> None:
    with pytest.raises(ValueError, match="non-empty"):
        torch.cat([])
    with pytest.raises(ValueError, match="non-empty"):
        sp.cat([])


# -- the simulated device -------------------------------------------------------------------------


def test_the_ops_on_the_simulated_device_give_the_cpus_values() -> None:
    data, other = _arrays(4, [(3, 4), (3, 4)])
    index = np.random.default_rng(4).integers(0, 3, (5, 4))

    def run(device):
        x = sp.tensor(data, dtype=sp.float64).to(device).requires_grad_()
        y = sp.tensor(other, dtype=sp.float64).to(device)
        idx = sp.tensor(index).to(device)
        outs = [
            sp.gather(x, 0, idx),
            sp.cat([x, y], 1),
            sp.stack([x, y, x], 2),
            sp.where(x > y, x, y),
            x.clamp(-0.5, 0.5),
            sp.clamp(x, y - 1, y + 1),
            x.min(1).values,
            x.var(0),
            x.std(),
            sp.flatten(x),
            sp.softmax(x, 1),
            sp.tanh(x).sum(0),
        ]
        total = sum((o * o).sum() for o in outs)
        total.backward()
        assert x.grad.device.type == device
        return [o.detach().cpu().numpy() for o in outs] + [x.grad.cpu().numpy()]

    for got, want in zip(run("sim"), run("cpu")):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    # and the CPU's are PyTorch's
    x = torch.tensor(data, requires_grad=True)
    torch.gather(x, 0, torch.tensor(index)).pow(2).sum().backward()
    ours = sp.tensor(data, dtype=sp.float64).to("sim").requires_grad_()
    (sp.gather(ours, 0, sp.tensor(index).to("sim")) ** 2).sum().backward()
    np.testing.assert_allclose(ours.grad.cpu().numpy(), x.grad.numpy(), rtol=TOL)


def test_comparisons_and_item_agree() -> None:
    a, b = _arrays(6, [(3, 4), (4,)])
    b[1] = a[0, 1]  # one tie
    ours, theirs = (sp.tensor(a), sp.tensor(b)), (torch.tensor(a), torch.tensor(b))
    for op in ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"):
        got = getattr(ours[0], op)(ours[1])
        want = getattr(theirs[0], op)(theirs[1])
        assert got.tolist() == want.tolist() and got.dtype == np.bool_, op
        assert getattr(ours[0], op)(0.5).tolist() == getattr(theirs[0], op)(0.5).tolist()
    assert sp.tensor(a).sum().item() == pytest.approx(torch.tensor(a).sum().item(), rel=1e-15)
    assert type(sp.tensor([3]).item()) is int and type(sp.tensor([True]).item()) is bool

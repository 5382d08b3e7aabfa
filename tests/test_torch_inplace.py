"""PyTorch as the oracle for in-place operations (issue 28): every ``_`` method and in-place
operator against PyTorch's in float64 (values, ``_version`` increments, the object
returned, and the gradient through a differentiable in-place on a non-leaf); the three
idioms learners copy from PyTorch code side by side with PyTorch (the polynomial fit of
PyTorch's autograd tutorial, makemore's ``p.data += -lr * p.grad`` and its update-to-data
ratios); the version counter raising in both or in neither, where the course differs on
purpose said so explicitly. Skipped, visibly, without PyTorch."""

from __future__ import annotations

import math

import numpy as np
import pytest

from solutions import ch07_device as sp

torch = pytest.importorskip("torch")

TOL = 1e-12
MODIFIED = "modified by an inplace operation"


def both(values) -> tuple:
    """``values`` as a float64 sp tensor and a float64 torch tensor."""
    array = np.asarray(values, dtype=np.float64)
    return sp.tensor(array.copy(), dtype=sp.float64), torch.tensor(array.copy())


def same(ours, theirs) -> None:
    theirs = theirs.detach().numpy() if isinstance(theirs, torch.Tensor) else theirs
    ours = ours.detach().cpu().numpy() if isinstance(ours, sp.Tensor) else ours
    np.testing.assert_allclose(ours, theirs, rtol=TOL, atol=TOL)


RNG = np.random.default_rng(28)
POSITIVE = RNG.uniform(0.5, 2.0, (3, 4))
MIXED = RNG.uniform(-2.0, 2.0, (3, 4))
OTHER = RNG.uniform(0.5, 1.5, (3, 4))
ROW = RNG.uniform(-1.0, 1.0, (4,))

# (id, input, fn(module, x, other, row)): fn calls the in-place method on x and returns its
# result; ``other`` is a (3, 4) tensor in [0.5, 1.5], ``row`` a (4,) tensor to broadcast
METHODS = [
    ("add_", MIXED, lambda m, x, o, r: x.add_(o)),
    ("add_ alpha", MIXED, lambda m, x, o, r: x.add_(r, alpha=-2.5)),
    ("add_ number", MIXED, lambda m, x, o, r: x.add_(0.25)),
    ("sub_", MIXED, lambda m, x, o, r: x.sub_(r)),
    ("sub_ alpha", MIXED, lambda m, x, o, r: x.sub_(o, alpha=3)),
    ("mul_", MIXED, lambda m, x, o, r: x.mul_(r)),
    ("mul_ number", MIXED, lambda m, x, o, r: x.mul_(-1.5)),
    ("div_", MIXED, lambda m, x, o, r: x.div_(o)),
    ("div_ floor", MIXED, lambda m, x, o, r: x.div_(o * 0.3, rounding_mode="floor")),
    ("div_ trunc", MIXED, lambda m, x, o, r: x.div_(r, rounding_mode="trunc")),
    ("pow_", POSITIVE, lambda m, x, o, r: x.pow_(2.5)),
    ("pow_ tensor", POSITIVE, lambda m, x, o, r: x.pow_(o)),
    ("abs_", MIXED, lambda m, x, o, r: x.abs_()),
    ("neg_", MIXED, lambda m, x, o, r: x.neg_()),
    ("exp_", MIXED, lambda m, x, o, r: x.exp_()),
    ("log_", POSITIVE, lambda m, x, o, r: x.log_()),
    ("sqrt_", POSITIVE, lambda m, x, o, r: x.sqrt_()),
    ("tanh_", MIXED, lambda m, x, o, r: x.tanh_()),
    ("sigmoid_", MIXED, lambda m, x, o, r: x.sigmoid_()),
    ("relu_", MIXED, lambda m, x, o, r: x.relu_()),
    ("sin_", MIXED, lambda m, x, o, r: x.sin_()),
    ("cos_", MIXED, lambda m, x, o, r: x.cos_()),
    ("log1p_", POSITIVE, lambda m, x, o, r: x.log1p_()),
    ("expm1_", MIXED, lambda m, x, o, r: x.expm1_()),
    ("clamp_", MIXED, lambda m, x, o, r: x.clamp_(-0.5, 1.0)),
    ("clamp_ min", MIXED, lambda m, x, o, r: x.clamp_(min=0.1)),
    ("clamp_ tensor", MIXED, lambda m, x, o, r: x.clamp_(r, o + 1)),
    ("clip_", MIXED, lambda m, x, o, r: x.clip_(-1.0, 0.5)),
    ("clamp_min_", MIXED, lambda m, x, o, r: x.clamp_min_(0.3)),
    ("clamp_max_", MIXED, lambda m, x, o, r: x.clamp_max_(-0.3)),
    ("remainder_", MIXED, lambda m, x, o, r: x.remainder_(0.7)),
    ("remainder_ tensor", MIXED, lambda m, x, o, r: x.remainder_(r)),
    ("fmod_", MIXED, lambda m, x, o, r: x.fmod_(0.7)),
    ("fmod_ tensor", MIXED, lambda m, x, o, r: x.fmod_(r)),
    ("masked_fill_", MIXED, lambda m, x, o, r: x.masked_fill_(x > 0.3, -7.0)),
    ("masked_fill_ row", MIXED, lambda m, x, o, r: x.masked_fill_(r > 0, 2.0)),
    ("fill_", MIXED, lambda m, x, o, r: x.fill_(3.25)),
    ("zero_", MIXED, lambda m, x, o, r: x.zero_()),
    ("copy_", MIXED, lambda m, x, o, r: x.copy_(o)),
    ("copy_ broadcast", MIXED, lambda m, x, o, r: x.copy_(r)),
    ("multiply_", MIXED, lambda m, x, o, r: x.multiply_(o)),
    ("subtract_", MIXED, lambda m, x, o, r: x.subtract_(o)),
    ("divide_", MIXED, lambda m, x, o, r: x.divide_(o)),
    ("true_divide_", MIXED, lambda m, x, o, r: x.true_divide_(o)),
    ("+=", MIXED, lambda m, x, o, r: x.__iadd__(r)),
    ("-=", MIXED, lambda m, x, o, r: x.__isub__(o)),
    ("*=", MIXED, lambda m, x, o, r: x.__imul__(2.5)),
    ("/=", MIXED, lambda m, x, o, r: x.__itruediv__(o)),
    ("**=", POSITIVE, lambda m, x, o, r: x.__ipow__(1.5)),
]
IDS = [m[0] for m in METHODS]


def _run(module, start: np.ndarray, fn):
    x, other, row = (
        module.tensor(np.array(a, dtype=np.float64), dtype=module.float64)
        for a in (start, OTHER, ROW)
    )
    array_before = x.data if module is sp else x.data_ptr()
    out = fn(module, x, other, row)
    assert out is x
    array_after = x.data if module is sp else x.data_ptr()
    if module is sp:
        assert array_after is array_before
    else:
        assert array_after == array_before
    return x, x._version


@pytest.mark.parametrize(("name", "start", "fn"), METHODS, ids=IDS)
def test_values_version_and_object_as_pytorchs(name, start, fn) -> None:
    ours, our_version = _run(sp, start, fn)
    theirs, their_version = _run(torch, start, fn)
    same(ours, theirs)
    assert ours.dtype == np.float64 and our_version == their_version == 1


def test_chained_methods_count_a_version_each() -> None:
    ours, theirs = both(POSITIVE)
    for x in (ours, theirs):
        x.add_(1).mul_(2).sqrt_().clamp_(max=2.0)
        x /= 3
        x -= 0.1
        x[0, 0] = 9.0
    same(ours, theirs)
    assert ours._version == theirs._version == 7


def test_views_share_the_counter_as_pytorchs() -> None:
    ours, theirs = both(MIXED)
    got = []
    for x in (ours, theirs):
        v1, v2, v3, v4 = x.reshape(12), x.t(), x[1], x.detach()
        v1.add_(1)
        v2.mul_(2)
        v3.zero_()
        v4.sub_(0.5)
        got.append([t._version for t in (x, v1, v2, v3, v4)])
    same(ours, theirs)
    assert got[0] == got[1] == [4] * 5


# -- the differentiable in-place on a non-leaf ----------------------------------------------

# floor and trunc division have no gradient (floor_divide's backward raises, as PyTorch's)
CONSTANT = ("div_ floor", "div_ trunc")
DIFFERENTIABLE = [pytest.param(*m, id=m[0]) for m in METHODS if m[0] not in CONSTANT]


@pytest.mark.parametrize(("name", "start", "fn"), DIFFERENTIABLE)
def test_a_recorded_in_place_gives_pytorchs_gradients(name, start, fn) -> None:
    """y = x·1.5 (a non-leaf), y.method(…), L = Σ g·y: ∂L/∂x and ∂L/∂other as PyTorch's."""
    g = RNG.uniform(-1, 1, (3, 4))
    grads = []
    for m in (sp, torch):
        x = m.tensor(np.array(start * 0.9), dtype=m.float64, requires_grad=True)
        other = m.tensor(np.array(OTHER), dtype=m.float64, requires_grad=True)
        row = m.tensor(np.array(ROW), dtype=m.float64)
        y = x * 0.9
        assert fn(m, y, other, row) is y
        (y * m.tensor(g, dtype=m.float64)).sum().backward()
        zero = np.zeros((3, 4))  # a gradient PyTorch leaves None (copy_ overwrites x)
        grads.append(
            [y.detach().numpy()] + [zero if t.grad is None else t.grad.numpy() for t in (x, other)]
        )
    for ours, theirs in zip(*grads):
        same(ours, theirs)


def test_several_in_place_ops_chained_give_pytorchs_gradients() -> None:
    grads = []
    for m in (sp, torch):
        x = m.tensor(np.array(MIXED), dtype=m.float64, requires_grad=True)
        w = m.tensor(np.array(OTHER), dtype=m.float64, requires_grad=True)
        y = x @ w.t()
        y += 1
        y.mul_(w[:, :3])
        y.sub_(x[:, :3], alpha=0.5).pow_(2)
        y /= 3
        y.tanh_()  # last: PyTorch's tanh_ keeps its output
        b = m.zeros(3, 3, dtype=m.float64)
        b += y
        b.clamp_(max=0.8).exp_()
        b.sum().backward()
        grads.append([b.detach().numpy(), x.grad.numpy(), w.grad.numpy()])
    for ours, theirs in zip(*grads):
        same(ours, theirs)


def test_retain_grad_follows_the_tensor_as_pytorchs() -> None:
    got = []
    for m in (sp, torch):
        x = m.tensor(np.array(ROW), dtype=m.float64, requires_grad=True)
        y = x * 2
        y.retain_grad()
        y.mul_(x)
        (y * 3).sum().backward()
        got.append([y.grad.numpy(), x.grad.numpy()])
    for ours, theirs in zip(*got):
        same(ours, theirs)


# -- the three idioms -------------------------------------------------------------------------


def test_the_autograd_tutorials_polynomial_fit() -> None:
    """PyTorch's "Learning PyTorch with examples" (autograd): y = sin(x) fitted by
    a + b·x + c·x² + d·x³, the update ``a -= learning_rate * a.grad`` under no_grad()."""
    starts = [0.3, -0.2, 0.1, 0.05]
    fitted = []
    for m in (sp, torch):
        x = m.linspace(-math.pi, math.pi, 2000, dtype=m.float64)
        y = m.sin(x)
        a, b, c, d = (m.tensor(s, dtype=m.float64, requires_grad=True) for s in starts)
        objects = [a, b, c, d]
        learning_rate = 1e-6
        for _ in range(5):
            y_pred = a + b * x + c * x**2 + d * x**3
            loss = (y_pred - y).pow(2).sum()
            loss.backward()
            with m.no_grad():
                a -= learning_rate * a.grad
                b -= learning_rate * b.grad
                c -= learning_rate * c.grad
                d -= learning_rate * d.grad
                a.grad = None
                b.grad = None
                c.grad = None
                d.grad = None
        assert all(p is q for p, q in zip([a, b, c, d], objects))
        assert all(p.requires_grad and p.is_leaf for p in (a, b, c, d))
        fitted.append([p.item() for p in (a, b, c, d)] + [loss.item()])
    np.testing.assert_allclose(fitted[0], fitted[1], rtol=1e-10)
    assert fitted[0][:4] != starts


def _makemore(m, steps: int, ddof: int | None):
    """makemore part 3's loop, small: an embedding, one tanh layer, cross-entropy; the update
    ``p.data += -lr * p.grad``; the update-to-data ratios, with ``p.data.std()`` (``ddof``
    None) or NumPy's ``std(ddof=…)`` here."""
    rng = np.random.default_rng(3)
    arrays = [rng.normal(size=s) for s in [(7, 3), (6, 5), (5,), (5, 7), (7,)]]
    parameters = [m.tensor(a, dtype=m.float64, requires_grad=True) for a in arrays]
    C, W1, b1, W2, b2 = parameters
    X = m.tensor(rng.integers(0, 7, (10, 2)))
    Y = m.tensor(rng.integers(0, 7, (10,)))
    lr, ud = 0.1, []
    for _ in range(steps):
        emb = C[X]
        h = m.tanh(emb.view(emb.shape[0], -1) @ W1 + b1)
        loss = m.nn.functional.cross_entropy(h @ W2 + b2, Y)
        for p in parameters:
            p.grad = None
        loss.backward()
        for p in parameters:
            p.data += -lr * p.grad
        if m is torch or ddof is None:
            ud.append([((lr * p.grad).std() / p.data.std()).log10().item() for p in parameters])
        else:
            ud.append(
                [((lr * p.grad).std() / p.data.std(ddof=ddof)).log10().item() for p in parameters]
            )
    return [p.detach().numpy() for p in parameters], np.array(ud), [p._version for p in parameters]


def test_makemores_update_through_data() -> None:
    ours, our_ud, our_versions = _makemore(sp, 4, ddof=1)
    theirs, their_ud, their_versions = _makemore(torch, 4, ddof=None)
    for o, t in zip(ours, theirs):
        same(o, t)
    np.testing.assert_allclose(our_ud, their_ud, rtol=1e-10)  # with ddof=1: as PyTorch's
    assert our_versions == their_versions == [0] * 5  # .data writes are not counted


def test_makemores_ratios_differ_with_numpys_std() -> None:
    """``p.data.std()`` here is NumPy's (ddof=0): the update-to-data ratios come out
    log10(√(n/(n-1))) above PyTorch's, n the parameter's number of elements (README's
    differences from PyTorch)."""
    _, ours, _ = _makemore(sp, 2, ddof=None)
    _, theirs, _ = _makemore(torch, 2, ddof=None)
    sizes = np.array([21, 30, 5, 35, 7])
    np.testing.assert_allclose(
        ours - theirs,
        np.broadcast_to(np.log10(np.sqrt(sizes / (sizes - 1))), ours.shape),
        rtol=1e-9,
    )


@pytest.mark.parametrize("op", ["+=", "-=", "*="])
def test_data_in_place_with_a_tensor_as_pytorchs(op: str) -> None:
    results = []
    for m in (sp, torch):
        p = m.tensor(np.array(MIXED), dtype=m.float64, requires_grad=True)
        later = (p * p * p).sum()  # recorded before the write
        (p * p).sum().backward()
        step = -0.1 * p.grad
        if op == "+=":
            p.data += step
        elif op == "-=":
            p.data -= step
        else:
            p.data *= step
        later.backward()  # a .data write: backward runs, reading the new values
        results.append([p.detach().numpy(), p.grad.numpy(), p._version])
    same(results[0][0], results[1][0])
    same(results[0][1], results[1][1])
    assert results[0][2] == results[1][2] == 0


# -- the version counter: raises in both or in neither ---------------------------------------


def _outcome(m, code) -> str:
    try:
        code(m)
    except RuntimeError as exc:
        assert MODIFIED in str(exc), str(exc)
        return "raises"
    return "runs"


def _leaf(m, values=(1.0, 2.0)):
    return m.tensor(np.array(values, dtype=np.float64), dtype=m.float64, requires_grad=True)


def _matmul_w_changed(m):
    a = m.tensor(np.ones((2, 3)), dtype=m.float64, requires_grad=True)
    w = m.tensor(np.full((3, 2), 0.5), dtype=m.float64)
    out = a @ w
    with m.no_grad():
        w.add_(1)
    out.sum().backward()


def _matmul_a_changed_w_needs_grad(m):
    a = m.tensor(np.ones((2, 3)), dtype=m.float64, requires_grad=True)
    w = m.tensor(np.full((3, 2), 0.5), dtype=m.float64, requires_grad=True)
    out = a @ w
    with m.no_grad():
        a.add_(1)
    out.sum().backward()


def _matmul_w_changed_a_needs_no_grad(m):
    a = m.tensor(np.ones((2, 3)), dtype=m.float64)
    w = m.tensor(np.full((3, 2), 0.5), dtype=m.float64, requires_grad=True)
    out = a @ w
    with m.no_grad():
        w.add_(1)
    out.sum().backward()


def _softmax_out_changed(m):
    x = _leaf(m, [[1.0, 2.0, 3.0]])
    p = x.softmax(1)
    with m.no_grad():
        p.add_(1)
    p.sum().backward()


def _softmax_out_changed_recorded(m):
    x = _leaf(m, [[1.0, 2.0, 3.0]])
    p = x.softmax(1)
    p.mul_(2)
    p.sum().backward()


def _pow_input_changed(m):
    x = _leaf(m)
    y = x * 1.0
    z = y**2
    with m.no_grad():
        y.add_(1)
    z.sum().backward()


def _log_input_changed(m):
    x = _leaf(m)
    y = x + 0.0
    z = y.log()
    y.add_(1)
    z.sum().backward()


def _add_input_changed(m):
    x = _leaf(m)
    c = m.tensor([3.0, 4.0], dtype=m.float64)
    y = x + c
    c.add_(1)
    z = y + 1
    y.mul_(2)
    z.sum().backward()


def _data_write(m):
    a = m.tensor(np.ones((2, 3)), dtype=m.float64, requires_grad=True)
    w = m.tensor(np.full((3, 2), 0.5), dtype=m.float64, requires_grad=True)
    out = (a @ w).tanh()
    w.data += 1
    out.sum().backward()


def _views_counter(m):
    a = m.tensor(np.ones((2, 2)), dtype=m.float64, requires_grad=True)
    w = m.tensor(np.ones((2, 2)), dtype=m.float64)
    out = a @ w
    w.t()[0].add_(1)  # a view's change moves the base's counter
    out.sum().backward()


def _stepped_between(m, layers, optimizer) -> None:
    """Two forwards, the first one's backward, a step, then the second one's backward."""
    model = m.nn.Sequential(*layers(m)).double()
    opt = getattr(m.optim, optimizer)(model.parameters(), lr=0.1)
    x = m.tensor(np.ones((5, 3)), dtype=m.float64)
    first, second = model(x).sum(), model(x).sum()
    first.backward()
    opt.step()
    second.backward()


def _two_layers(m):
    _stepped_between(m, lambda m: [m.nn.Linear(3, 4), m.nn.Tanh(), m.nn.Linear(4, 1)], "SGD")


def _one_layer(m):
    _stepped_between(m, lambda m: [m.nn.Linear(3, 2)], "SGD")


def _adam_two_layers(m):
    _stepped_between(m, lambda m: [m.nn.Linear(3, 4), m.nn.ReLU(), m.nn.Linear(4, 1)], "Adam")


def _gelu_input_changed(m):
    """GELU keeps its input (one Function since issue 31), as PyTorch's does."""
    x = _leaf(m)
    y = x * 1.0
    z = m.nn.functional.gelu(y)
    with m.no_grad():
        y.add_(1)
    z.sum().backward()


def _layer_norm_stepped(m):
    """LayerNorm keeps its weight (one Function since issue 31), as PyTorch's does: a step
    between forward and backward raises in both."""
    ln = m.nn.LayerNorm(3)
    x = m.tensor([[1.0, 2.0, 3.0], [3.0, 1.0, 0.0]])
    g = m.tensor([[1.0, -2.0, 3.0], [0.5, 1.0, 2.0]])
    out = (ln(x) * g).sum()
    opt = m.optim.SGD(ln.parameters(), lr=0.1)
    (ln(x) * g).sum().backward()
    opt.step()
    out.backward()


AGREE = [
    ("matmul: w changed", _matmul_w_changed, "raises"),
    ("matmul: a changed, w needs grad", _matmul_a_changed_w_needs_grad, "raises"),
    ("matmul: w changed, a needs no grad", _matmul_w_changed_a_needs_no_grad, "runs"),
    ("softmax: output changed", _softmax_out_changed, "raises"),
    ("softmax: output changed, recorded", _softmax_out_changed_recorded, "raises"),
    ("pow: input changed", _pow_input_changed, "raises"),
    ("log: input changed", _log_input_changed, "raises"),
    ("gelu: input changed", _gelu_input_changed, "raises"),
    ("LayerNorm: weight stepped", _layer_norm_stepped, "raises"),
    ("add: nothing kept", _add_input_changed, "runs"),
    ("a .data write", _data_write, "runs"),
    ("a view's change", _views_counter, "raises"),
    ("SGD step, two layers", _two_layers, "raises"),
    ("SGD step, one layer", _one_layer, "runs"),
    ("Adam step, two layers", _adam_two_layers, "raises"),
]


@pytest.mark.parametrize(("name", "code", "want"), AGREE, ids=[a[0] for a in AGREE])
def test_the_counter_raises_where_pytorchs_does(name, code, want) -> None:
    assert _outcome(torch, code) == want
    assert _outcome(sp, code) == want


def test_one_layer_stepped_gives_pytorchs_gradients() -> None:
    """Between forward and backward, SGD steps the one layer: both run, and the second
    backward's gradients (it reads only the input) agree."""
    rng = np.random.default_rng(5)
    weight, bias, x = rng.normal(size=(2, 3)), rng.normal(size=2), rng.normal(size=(5, 3))
    got = []
    for m in (sp, torch):
        model = m.nn.Linear(3, 2).double()
        with m.no_grad():
            model.weight.copy_(m.tensor(weight, dtype=m.float64))
            model.bias.copy_(m.tensor(bias, dtype=m.float64))
        opt = m.optim.SGD(model.parameters(), lr=0.1)
        xs = m.tensor(x, dtype=m.float64)
        first, second = model(xs).pow(2).sum(), model(xs).sum()
        first.backward()
        opt.step()
        second.backward()
        got.append(
            [model.weight.detach().numpy(), model.weight.grad.numpy(), model.bias.grad.numpy()]
        )
    for ours, theirs in zip(*got):
        same(ours, theirs)


# Where the course differs on purpose: its Exp, Tanh, Sigmoid (and ReLU, Sqrt, LogSoftmax,
# clamp) keep their INPUT for backward, where PyTorch keeps the output (or, for clamp, the
# input, where the course keeps a mask). So changing the output in place afterwards raises in
# PyTorch, and runs here, with the gradient of the values as they were at the forward: the
# gradient PyTorch gives for the out-of-place form (y = y + 1). Documented in the README's
# differences from PyTorch.
DIFFER = [
    ("exp", lambda m, y: y.exp(), "out"),
    ("tanh", lambda m, y: y.tanh(), "out"),
    ("sigmoid", lambda m, y: y.sigmoid(), "out"),
    ("relu", lambda m, y: y.relu(), "out"),
    ("sqrt", lambda m, y: y.sqrt(), "out"),
    ("log_softmax", lambda m, y: y.log_softmax(0), "out"),
    ("clamp", lambda m, y: y.clamp(0.0, 1.5), "in"),
    ("max()", lambda m, y: y.max(), "out"),
    ("prod", lambda m, y: y.prod(), "out"),
    ("std", lambda m, y: y.std(), "in"),
]

# And the other way round: an operation that keeps its input where PyTorch keeps its output
# raises here, and runs in PyTorch, when the input is changed in place (the course refuses
# rather than compute with changed values).
RAISE_HERE = [
    ("exp", lambda m, y: y.exp()),
    ("softmax", lambda m, y: y.softmax(0)),
    ("log_softmax", lambda m, y: y.log_softmax(0)),
    ("max(dim)", lambda m, y: y.max(0).values),
]


@pytest.mark.parametrize(("name", "op"), RAISE_HERE, ids=[d[0] for d in RAISE_HERE])
def test_where_the_course_keeps_the_input_changing_it_raises_here_only(name, op) -> None:
    def in_place(m):
        x = _leaf(m, [0.3, 1.2])
        y = x * 1.0
        z = op(m, y)
        with m.no_grad():
            y.add_(1)
        (z * m.tensor([1.0, -2.0], dtype=m.float64)).sum().backward()

    assert _outcome(torch, in_place) == "runs"
    assert _outcome(sp, in_place) == "raises"


@pytest.mark.parametrize(("name", "op", "changed"), DIFFER, ids=[d[0] for d in DIFFER])
def test_where_the_course_keeps_the_input_it_runs_with_the_right_gradient(
    name, op, changed
) -> None:
    def in_place(m):
        x = _leaf(m, [0.3, 1.2])
        y = x * 1.0
        z = op(m, y)
        if changed == "out":
            z.add_(1)
        else:
            with m.no_grad():
                y.add_(1)
        (z * m.tensor([1.0, -2.0], dtype=m.float64)).sum().backward()
        return x.grad

    assert _outcome(torch, in_place) == "raises"
    ours = in_place(sp)  # runs here
    x = _leaf(torch, [0.3, 1.2])
    z = op(torch, x * 1.0)
    z = z + 1  # the out-of-place form
    (z * torch.tensor([1.0, -2.0], dtype=torch.float64)).sum().backward()
    same(ours, x.grad)


# Functions keep an operand only for a gradient that is needed (``needs_input_grad``), as
# PyTorch does: a change of the other operand runs in both.


def _mul_by_a_constant(m):
    x = _leaf(m)
    y = x * 1.0
    z = y * 2
    with m.no_grad():
        y.add_(1)
    z.sum().backward()


def _mul_by_a_tensor(m):
    x = _leaf(m)
    c = m.tensor([3.0, 4.0], dtype=m.float64)
    y = x * 1.0
    z = y * c
    with m.no_grad():
        y.add_(1)
    z.sum().backward()


def _div_by_a_constant(m):
    x = _leaf(m)
    y = x * 1.0
    z = y / 3
    with m.no_grad():
        y.add_(1)
    z.sum().backward()


def _sum_input_changed(m):
    x = _leaf(m)
    y = x * 1.0
    z = y.sum()
    with m.no_grad():
        y.add_(1)
    z.backward()


OVER = [
    ("mul by a constant", _mul_by_a_constant),
    ("mul by a tensor", _mul_by_a_tensor),
    ("div by a constant", _div_by_a_constant),
    ("sum", _sum_input_changed),
]


@pytest.mark.parametrize(("name", "code"), OVER, ids=[o[0] for o in OVER])
def test_an_operand_nobody_needs_is_not_watched_as_pytorchs(name, code) -> None:
    assert _outcome(torch, code) == "runs"
    assert _outcome(sp, code) == "runs"


# -- one gradient per leaf ---------------------------------------------------------------------


def test_gradient_objects_as_pytorchs() -> None:
    got = []
    for m in (sp, torch):
        a, b = _leaf(m, [1.0, 2.0]), _leaf(m, [3.0, 4.0])
        (a + b).sum().backward()
        distinct = a.grad is not b.grad
        a.grad.zero_()
        (a * b).sum().backward()
        got.append([distinct, a.grad.numpy().copy(), b.grad.numpy().copy()])
    assert got[0][0] and got[1][0]
    same(got[0][1], got[1][1])
    same(got[0][2], got[1][2])


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_create_graph_gradients_as_pytorchs() -> None:
    got = []
    for m in (sp, torch):
        x = _leaf(m, [1.0, -2.0, 0.5])
        (x**3).sum().backward(create_graph=True)
        (x.sin()).sum().backward(create_graph=True)
        first = x.grad.detach().numpy().copy()
        (second,) = m.autograd.grad(x.grad.sum(), x)
        got.append([first, second.detach().numpy()])
    for ours, theirs in zip(*got):
        same(ours, theirs)

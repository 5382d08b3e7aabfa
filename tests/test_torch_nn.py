"""PyTorch as the oracle for chapter 5's ``nn``: equivalent models built the same way in
both frameworks have the same names (``state_dict``, ``named_parameters``, ``named_buffers``,
``named_modules``) and shapes, load each other's weights, and compute the same outputs and
gradients; every loss (each reduction, ``ignore_index``, ``label_smoothing``, the (N, C, d…)
layout, logits of ±1e4), softmax, GELU, LayerNorm and BatchNorm (train, running statistics,
eval) agree to 1e-10 in float64; the default and ``nn.init`` distributions are PyTorch's
(Kolmogorov–Smirnov tests with fixed seeds); and the digits MLP trained from the same
initial weights in the same batch order reaches the same test accuracy.

Skipped, visibly, without PyTorch (``pip install -r requirements-oracles.txt``; CI installs
it). Only the reference (``solutions/``) is compared.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from solutions import ch05_nn as sp

torch = pytest.importorskip("torch")

from tests import digits_mlp  # noqa: E402  (after the skip: it needs nothing from torch)

TOL = 1e-10
RNG = np.random.default_rng(21)


def to_torch(a: np.ndarray, requires_grad: bool = False):
    return torch.tensor(np.array(a), requires_grad=requires_grad)


def to_sp(a: np.ndarray, requires_grad: bool = False):
    return sp.tensor(np.array(a), requires_grad=requires_grad)


def close(ours, theirs, tol: float = TOL) -> None:
    theirs = theirs.detach().numpy() if isinstance(theirs, torch.Tensor) else theirs
    np.testing.assert_allclose(np.asarray(ours.data), theirs, rtol=tol, atol=tol)


# -- equivalent models: names, shapes, weights, outputs ---------------------------------------


def build(nn, zeros, p: float = 0.1):
    """The same model in either framework (``nn`` is ``sp.nn`` or ``torch.nn``)."""

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.norm = nn.LayerNorm(8)
            self.ff = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 8))

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(10, 8)
            self.blocks = nn.ModuleList([Block(), Block()])
            self.tied = nn.Linear(8, 8, bias=False)
            self.tied2 = nn.Linear(8, 8, bias=False)
            self.tied2.weight = self.tied.weight  # a tied weight
            self.head = nn.Sequential(
                nn.Flatten(),
                nn.Linear(32, 6),
                nn.BatchNorm1d(6),
                nn.ReLU(),
                nn.Dropout(p),
                nn.Sequential(nn.Linear(6, 3)),
            )
            self.alias = self.head  # a shared module
            self.scale = nn.Parameter(zeros(3) + 1.0)
            self.register_buffer("steps", zeros(()))
            self.register_buffer("scratch", zeros(4), persistent=False)

        def forward(self, ids):
            h = self.embed(ids)
            for block in self.blocks:
                h = h + block.ff(block.norm(h))
            h = self.tied2(self.tied(h).tanh())
            return self.head(h) * self.scale

    return Net()


def both(p: float = 0.1):
    """The Sparrow and the PyTorch model in float64, Sparrow holding PyTorch's weights."""
    theirs = build(torch.nn, lambda *s: torch.zeros(*s), p).double()
    ours = build(sp.nn, lambda *s: sp.zeros(*s), p).double()
    state = {k: sp.tensor(v.detach().numpy().copy()) for k, v in theirs.state_dict().items()}
    ours.load_state_dict(state)
    return ours, theirs


def names(pairs) -> list[str]:
    return [name for name, _ in pairs]


def test_the_same_names_and_shapes() -> None:
    ours, theirs = both()
    ours_sd, theirs_sd = ours.state_dict(), theirs.state_dict()
    assert list(ours_sd) == list(theirs_sd)
    assert [v.shape for v in ours_sd.values()] == [tuple(v.shape) for v in theirs_sd.values()]
    for dedup in (True, False):
        assert names(ours.named_parameters(remove_duplicate=dedup)) == names(
            theirs.named_parameters(remove_duplicate=dedup)
        )
        assert names(ours.named_modules(remove_duplicate=dedup)) == names(
            theirs.named_modules(remove_duplicate=dedup)
        )
        assert names(ours.named_buffers(remove_duplicate=dedup)) == names(
            theirs.named_buffers(remove_duplicate=dedup)
        )
    assert names(ours.named_children()) == names(theirs.named_children())
    assert names(ours.blocks[1].named_parameters(prefix="b")) == names(
        theirs.blocks[1].named_parameters(prefix="b")
    )
    assert len(list(ours.parameters())) == len(list(theirs.parameters()))


def test_each_loads_the_others_weights() -> None:
    ours, theirs = both()
    fresh = build(torch.nn, lambda *s: torch.zeros(*s)).double()
    fresh.load_state_dict({k: to_torch(v.data) for k, v in ours.state_dict().items()})
    for (k, a), b in zip(fresh.state_dict().items(), theirs.state_dict().values()):
        assert torch.equal(a, b), k


@pytest.mark.parametrize("mode", ["train", "eval"])
def test_the_same_outputs_and_gradients(mode: str) -> None:
    ours, theirs = both(p=0.0)  # no dropout: the random masks are each framework's own
    theirs.head[2].running_mean.data[...] = torch.tensor(RNG.normal(size=6))
    ours.head[2].running_mean.data[...] = theirs.head[2].running_mean.numpy()
    getattr(ours, mode)(), getattr(theirs, mode)()
    ids = RNG.integers(0, 10, size=(5, 4))
    g = RNG.normal(size=(5, 3))
    out_ours = ours(sp.tensor(ids))
    out_theirs = theirs(torch.tensor(ids))
    close(out_ours, out_theirs)
    out_ours.backward(to_sp(g))
    out_theirs.backward(to_torch(g))
    for (name, a), (_, b) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert (a.grad is None) == (b.grad is None), name
        if b.grad is not None:
            close(a.grad, b.grad)
    for a, b in zip(ours.state_dict().values(), theirs.state_dict().values()):
        close(a, b.numpy())


def test_load_state_dict_messages_and_result_match() -> None:
    ours, theirs = sp.nn.Linear(2, 3), torch.nn.Linear(2, 3)
    bad = {"weight": np.zeros((4, 2)), "extra": np.zeros(1)}
    messages = []
    for model, make in ((ours, sp.tensor), (theirs, torch.tensor)):
        with pytest.raises(RuntimeError) as raised:
            model.load_state_dict({k: make(v) for k, v in bad.items()})
        messages.append(str(raised.value).replace("torch.Size([4, 2])", "(4, 2)"))
        messages[-1] = messages[-1].replace("torch.Size([3, 2])", "(3, 2)")
    assert messages[0] == messages[1]
    ok = {"weight": np.zeros((3, 2)), "extra": np.zeros(1)}
    r_ours = ours.load_state_dict({k: sp.tensor(v) for k, v in ok.items()}, strict=False)
    r_theirs = theirs.load_state_dict({k: torch.tensor(v) for k, v in ok.items()}, strict=False)
    assert tuple(r_ours) == tuple(r_theirs) == (["bias"], ["extra"])


def test_repr_of_shared_layers_matches() -> None:
    """The layers whose repr text PyTorch has not changed between versions."""
    for make in (
        lambda nn: nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Tanh())),
        lambda nn: nn.Dropout(0.3),
        lambda nn: nn.Embedding(7, 2),
        lambda nn: nn.Flatten(0, 2),
        lambda nn: nn.GELU("tanh"),
        lambda nn: nn.Softmax(dim=-1),
        lambda nn: nn.Linear(3, 1, bias=False),
    ):
        assert repr(make(sp.nn)) == repr(make(torch.nn))


# -- losses, softmax, activations ---------------------------------------------------------


def compare(fn_ours, fn_theirs, *arrays, tol: float = TOL) -> None:
    """The same values and the same gradients of ⟨g, out⟩ for every float input."""
    ours = [to_sp(a, a.dtype.kind == "f") for a in arrays]
    theirs = [to_torch(a, a.dtype.kind == "f") for a in arrays]
    out_ours, out_theirs = fn_ours(*ours), fn_theirs(*theirs)
    close(out_ours, out_theirs, tol)
    g = RNG.normal(size=out_ours.shape)
    out_ours.backward(to_sp(g))
    out_theirs.backward(to_torch(g))
    for a, b in zip(ours, theirs):
        if b.requires_grad:
            close(a.grad, b.grad, tol)


LAYOUTS = {
    "(N, C)": ((6, 5), (6,)),
    "(N, C, d1, d2)": ((3, 5, 2, 2), (3, 2, 2)),
    "(C,)": ((5,), ()),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("smoothing", [0.0, 0.3])
@pytest.mark.parametrize("ignore_index", [-100, 2])
@pytest.mark.parametrize("scale", [1.0, 1e4])
def test_cross_entropy(layout, reduction, smoothing, ignore_index, scale) -> None:
    shape, t_shape = LAYOUTS[layout]
    z = RNG.normal(size=shape) * scale
    t = RNG.integers(0, 5, size=t_shape)
    kw = dict(reduction=reduction, label_smoothing=smoothing, ignore_index=ignore_index)
    tt, ts = torch.tensor(t), sp.tensor(t)
    compare(
        lambda x: sp.nn.CrossEntropyLoss(**kw)(x, ts),
        lambda x: torch.nn.CrossEntropyLoss(**kw)(x, tt),
        z,
        tol=1e-9 if scale == 1.0 else 1e-6,
    )


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("scale", [1.0, 1e4])
def test_bce_with_logits_and_mse(reduction: str, scale: float) -> None:
    x, y = RNG.normal(size=(4, 3)) * scale, RNG.uniform(size=(4, 3))
    compare(
        lambda a, b: sp.nn.BCEWithLogitsLoss(reduction=reduction)(a, b),
        lambda a, b: torch.nn.BCEWithLogitsLoss(reduction=reduction)(a, b),
        x,
        y,
    )
    compare(
        lambda a, b: sp.nn.MSELoss(reduction=reduction)(a, b),
        lambda a, b: torch.nn.MSELoss(reduction=reduction)(a, b),
        x,
        y,
        tol=1e-10 * scale**2,
    )


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("scale", [1.0, 1e4])
def test_softmax_and_log_softmax(dim: int, scale: float) -> None:
    z = RNG.normal(size=(3, 4, 2)) * scale
    compare(lambda x: sp.nn.Softmax(dim)(x), lambda x: torch.nn.Softmax(dim)(x), z)
    compare(lambda x: sp.nn.LogSoftmax(dim)(x), lambda x: torch.nn.LogSoftmax(dim)(x), z)


def test_second_derivatives_of_log_softmax() -> None:
    z, w, v = (RNG.normal(size=(3, 4)) for _ in range(3))
    results = []
    for lib, make in ((sp, to_sp), (torch, to_torch)):
        x = make(z, True)
        out = (lib.nn.functional.log_softmax(x, dim=1) * make(w)).sum()
        (g,) = lib.autograd.grad(out, x, create_graph=True)
        (hv,) = lib.autograd.grad((g * make(v)).sum(), x)
        results.append(hv)
    close(results[0], results[1])


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu(approximate: str) -> None:
    x = np.concatenate([np.linspace(-8, 8, 41), RNG.normal(size=20)])
    compare(lambda t: sp.nn.GELU(approximate)(t), lambda t: torch.nn.GELU(approximate)(t), x)


def test_layernorm_and_embedding() -> None:
    w, b = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4))
    x, g = RNG.normal(size=(2, 3, 4)) * 3, RNG.normal(size=(2, 3, 4))
    results = []
    for lib, make in ((sp, to_sp), (torch, to_torch)):
        ln = lib.nn.LayerNorm((3, 4)).double()
        ln.weight.data[...] = make(w).data
        ln.bias.data[...] = make(b).data
        t = make(x, True)
        out = ln(t)
        out.backward(make(g))
        results.append((out, t.grad, ln.weight.grad, ln.bias.grad))
    for a, b_ in zip(*results):
        close(a, b_)
    table, ids = RNG.normal(size=(6, 3)), RNG.integers(0, 6, size=(4, 5))
    compare(
        lambda t: sp.nn.functional.linear(t[sp.tensor(ids)], to_sp(np.eye(3))),
        lambda t: torch.nn.functional.embedding(torch.tensor(ids), t),
        table,
    )


@pytest.mark.parametrize("shape", [(8, 4), (5, 4, 3)])
@pytest.mark.parametrize("momentum", [0.1, 0.5, None])
def test_batchnorm_train_then_eval(shape: tuple, momentum) -> None:
    ours = sp.nn.BatchNorm1d(4, momentum=momentum).double()
    theirs = torch.nn.BatchNorm1d(4, momentum=momentum).double()
    weight, bias = RNG.normal(size=4), RNG.normal(size=4)
    for model, make in ((ours, to_sp), (theirs, to_torch)):
        model.weight.data[...] = make(weight).data
        model.bias.data[...] = make(bias).data
    for step in range(4):
        x = RNG.normal(size=shape) * (step + 1) + step
        g = RNG.normal(size=shape)
        xs, xt = to_sp(x, True), to_torch(x, True)
        out_ours, out_theirs = ours(xs), theirs(xt)
        close(out_ours, out_theirs)
        out_ours.backward(to_sp(g))
        out_theirs.backward(to_torch(g))
        close(xs.grad, xt.grad)
        close(ours.weight.grad, theirs.weight.grad)
        close(ours.bias.grad, theirs.bias.grad)
        for key, value in theirs.state_dict().items():
            close(ours.state_dict()[key], value.numpy())
    ours.eval(), theirs.eval()
    x = RNG.normal(size=shape)
    close(ours(to_sp(x)), theirs(to_torch(x)))
    close(ours(to_sp(x[:1])), theirs(to_torch(x[:1])))
    assert int(ours.num_batches_tracked.data) == int(theirs.num_batches_tracked) == 4


# -- initialisation: the same distributions ------------------------------------------------
#
# Kolmogorov–Smirnov at α = 0.001: the largest distance between the empirical CDF and the
# expected one (or the other framework's empirical CDF) is below 1.949/√n (1.949·√((n+m)/nm)
# for two samples) with probability 0.999 when the distributions are the same. The seeds are
# fixed, so each run draws the same numbers and the test is deterministic.

KS = 1.949


def ks_one(samples: np.ndarray, cdf) -> float:
    x = np.sort(samples.ravel())
    n = len(x)
    f = cdf(x)
    return float(max((np.arange(1, n + 1) / n - f).max(), (f - np.arange(n) / n).max()))


def ks_two(a: np.ndarray, b: np.ndarray) -> float:
    a, b = np.sort(a.ravel()), np.sort(b.ravel())
    grid = np.concatenate([a, b])
    fa = np.searchsorted(a, grid, side="right") / len(a)
    fb = np.searchsorted(b, grid, side="right") / len(b)
    return float(np.abs(fa - fb).max())


def uniform_cdf(bound: float):
    return lambda x: np.clip((x + bound) / (2 * bound), 0, 1)


_erf = np.vectorize(math.erf)


def normal_cdf(std: float):
    return lambda x: 0.5 * (1 + _erf(x / (std * math.sqrt(2))))


def same_distribution(ours: np.ndarray, theirs: np.ndarray, cdf) -> None:
    n, m = ours.size, theirs.size
    assert ks_one(ours, cdf) < KS / math.sqrt(n)
    assert ks_one(theirs, cdf) < KS / math.sqrt(m)  # (the formula is PyTorch's: check it)
    assert ks_two(ours, theirs) < KS * math.sqrt((n + m) / (n * m))


def test_linear_default_init_is_pytorchs() -> None:
    sp.manual_seed(0)
    torch.manual_seed(0)
    ours, theirs = sp.nn.Linear(256, 512), torch.nn.Linear(256, 512)
    k = 1 / math.sqrt(256)
    for a, b in ((ours.weight, theirs.weight), (ours.bias, theirs.bias)):
        a, b = np.asarray(a.data, np.float64), b.detach().numpy().astype(np.float64)
        same_distribution(a, b, uniform_cdf(k))
        n = a.size
        assert np.abs(a).max() <= k
        assert abs(a.mean()) < 4 * k / math.sqrt(3 * n)  # 4 standard errors
        # the variance k²/3, within 4 standard errors: Var(x²) = k⁴/5 − k⁴/9 = 4k⁴/45
        assert abs(a.var() - k * k / 3) < 4 * math.sqrt(4 / 45) * k * k / math.sqrt(n)


def test_embedding_default_init_is_standard_normal() -> None:
    sp.manual_seed(1)
    torch.manual_seed(1)
    same_distribution(
        np.asarray(sp.nn.Embedding(1000, 64).weight.data, np.float64),
        torch.nn.Embedding(1000, 64).weight.detach().numpy().astype(np.float64),
        normal_cdf(1.0),
    )


INITS = [
    ("xavier_uniform_", {}),
    ("xavier_uniform_", {"gain": 5 / 3}),
    ("xavier_normal_", {}),
    ("xavier_normal_", {"gain": 2.0}),
    ("kaiming_uniform_", {}),
    ("kaiming_uniform_", {"a": math.sqrt(5)}),
    ("kaiming_uniform_", {"mode": "fan_out", "nonlinearity": "relu"}),
    ("kaiming_normal_", {"nonlinearity": "relu"}),
    ("kaiming_normal_", {"a": 0.2, "mode": "fan_out"}),
    ("kaiming_normal_", {"nonlinearity": "tanh"}),
]


def torch_std(name: str, kwargs: dict, t) -> float:
    """The standard deviation PyTorch's documentation gives, from its own helpers."""
    fan_in, fan_out = torch.nn.init._calculate_fan_in_and_fan_out(t)
    if name.startswith("xavier"):
        return kwargs.get("gain", 1.0) * math.sqrt(2.0 / (fan_in + fan_out))
    gain = torch.nn.init.calculate_gain(
        kwargs.get("nonlinearity", "leaky_relu"), kwargs.get("a", 0)
    )
    return gain / math.sqrt(fan_in if kwargs.get("mode", "fan_in") == "fan_in" else fan_out)


@pytest.mark.parametrize(("name", "kwargs"), INITS, ids=lambda v: str(v))
@pytest.mark.parametrize("shape", [(300, 200), (64, 32, 5)])
def test_init_functions_draw_pytorchs_distributions(name: str, kwargs: dict, shape) -> None:
    ours = sp.tensor(np.empty(shape))
    theirs = torch.empty(shape, dtype=torch.float64)
    sp.manual_seed(2)
    torch.manual_seed(2)
    assert getattr(sp.nn.init, name)(ours, **kwargs) is ours
    getattr(torch.nn.init, name)(theirs, **kwargs)
    std = torch_std(name, kwargs, theirs)
    a, b = np.asarray(ours.data), theirs.numpy()
    if name.endswith("uniform_"):
        bound = math.sqrt(3) * std
        assert np.abs(a).max() <= bound and np.abs(a).max() > 0.999 * bound
        same_distribution(a, b, uniform_cdf(bound))
    else:
        same_distribution(a, b, normal_cdf(std))


def test_gains_and_fans_are_pytorchs() -> None:
    for args in [
        ("linear",),
        ("sigmoid",),
        ("tanh",),
        ("relu",),
        ("selu",),
        ("conv2d",),
        ("leaky_relu",),
        ("leaky_relu", 0.2),
        ("leaky_relu", math.sqrt(5)),
    ]:
        assert sp.nn.init.calculate_gain(*args) == pytest.approx(
            torch.nn.init.calculate_gain(*args), rel=1e-15
        )
    for shape in [(3, 4), (6, 2, 3), (5, 4, 3, 2)]:
        assert sp.nn.init._calculate_fan_in_and_fan_out(
            sp.zeros(*shape)
        ) == torch.nn.init._calculate_fan_in_and_fan_out(torch.zeros(*shape))
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        sp.nn.init.xavier_uniform_(sp.zeros(3))


# -- the digits MLP of "Done means" ---------------------------------------------------------


@pytest.fixture
def one_thread():
    """PyTorch on one thread: its thread pool on matrices this small, on a busy machine,
    is ten times slower (measured: 6.6 s against 0.5 s for the 30 epochs)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def train_torch(weights: list[np.ndarray], orders: list[np.ndarray], dtype=torch.float32):
    """PyTorch's side of ``digits_mlp.train_sparrow``: the same model, loop and data."""
    data = digits_mlp.digits()
    sizes = digits_mlp.SIZES
    model = torch.nn.Sequential(
        torch.nn.Linear(sizes[0], sizes[1]), torch.nn.ReLU(), torch.nn.Linear(sizes[1], sizes[2])
    ).to(dtype)
    with torch.no_grad():
        for p, w in zip(model.parameters(), weights):
            p.copy_(torch.tensor(w, dtype=dtype))
    x, y = torch.tensor(data["x_train"], dtype=dtype), torch.tensor(data["y_train"])
    losses = []
    for order in orders:
        for start in range(0, len(order), digits_mlp.BATCH):
            idx = torch.tensor(order[start : start + digits_mlp.BATCH])
            loss = torch.nn.functional.cross_entropy(model(x[idx]), y[idx])
            model.zero_grad()
            loss.backward()
            with torch.no_grad():
                for p in model.parameters():
                    p -= digits_mlp.LR * p.grad
            losses.append(loss.item())
    with torch.no_grad():
        logits = model(torch.tensor(data["x_test"], dtype=dtype))
    accuracy = float((logits.argmax(dim=1).numpy() == data["y_test"]).mean())
    return model, losses, accuracy


@pytest.mark.slow
def test_digits_mlp_trains_as_pytorchs(one_thread) -> None:
    """64-128-10, SGD lr 0.1, batch 32, 30 epochs, from the same initial weights in the same
    batch order: Sparrow reaches ≥ 95% and PyTorch's accuracy within one point."""
    seed = 0
    weights, orders = digits_mlp.initial_weights(seed), digits_mlp.batch_order(seed)
    ours = digits_mlp.sparrow_accuracy(seed)
    _, _, theirs = train_torch(weights, orders)
    print(f"digits MLP test accuracy: Sparrow {ours:.2%}, PyTorch {theirs:.2%}")
    assert ours >= 0.95
    assert abs(ours - theirs) <= 0.01


def test_digits_mlp_steps_agree_in_float64(one_thread) -> None:
    """Two epochs in float64: every step's loss and the final weights agree to 1e-10, so
    the accuracy test compares the same training, not two that merely both work."""
    weights, orders = digits_mlp.initial_weights(1), digits_mlp.batch_order(1, epochs=2)
    ours, our_losses = digits_mlp.train_sparrow(weights, orders, np.float64)
    theirs, their_losses, _ = train_torch(weights, orders, torch.float64)
    np.testing.assert_allclose(our_losses, their_losses, rtol=1e-10)
    for a, b in zip(ours.parameters(), theirs.parameters()):
        close(a, b, 1e-10)


def _torch_registration(script: list) -> tuple[list, list, list, list]:
    """A registration script (chapter 5's checks' steps) run on a torch Module: per step
    the error's type name (None), then the names in _parameters, _modules, _buffers."""
    m, errors = torch.nn.Module(), []
    for action, name in script:
        value = {
            "param": lambda: torch.nn.Parameter(torch.zeros(1)),
            "module": torch.nn.Module,
            "tensor": lambda: torch.zeros(1),
            "int": lambda: 3,
            "none": lambda: None,
        }.get(action)
        try:
            if action == "buffer":
                m.register_buffer(name, torch.zeros(1))
            else:
                setattr(m, name, value())
            errors.append(None)
        except (TypeError, KeyError) as error:
            errors.append(type(error).__name__)
    return errors, list(m._parameters), list(m._modules), list(m._buffers)


def test_the_registration_checks_expect_what_pytorch_does() -> None:
    """The parent's model of ``Module.__setattr__`` (task 5.1's expected values) against
    PyTorch itself, on every public and hidden registration script."""
    from autograder.checks.ch05_nn import REGISTRATION
    from autograder.checks.ch05_nn.cases import simulate_registration
    from autograder.hidden.ch05_nn import SCRIPTS

    for script in REGISTRATION + SCRIPTS:
        want = simulate_registration(script)
        got = _torch_registration(script)
        assert got == (want.errors, want.parameters, want.modules, want.buffers), script

"""Chapter 5 and 6's later additions (issue 27) without PyTorch: ``get_submodule``,
``get_parameter`` and ``get_buffer`` with PyTorch's messages (copied from PyTorch 2.13);
``ModuleList``'s ``insert``, ``pop``, ``del``, ``extend``, ``+=`` and ``+``;
``Embedding(padding_idx=)``'s zero row and its missing gradient, against a NumPy
scatter-add; the new losses' errors; ``device=``/``dtype=`` on the modules that make
parameters; and the new losses, ``Embedding`` and ``Adadelta`` on the simulated device giving
the CPU's values and gradients."""

from __future__ import annotations

import numpy as np
import pytest

from solutions import ch07_device as sp

nn, F = sp.nn, sp.nn.functional
RNG = np.random.default_rng(5)


def leaf(a, dtype=np.float64, device=None) -> sp.Tensor:
    return sp.tensor(np.asarray(a), dtype=dtype, device=device, requires_grad=True)


def model() -> nn.Module:
    return nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.ModuleList([nn.Linear(3, 1)]))


# -- get_submodule, get_parameter, get_buffer ----------------------------------------------------


def test_get_by_dotted_path() -> None:
    m = model()
    assert m.get_submodule("") is m
    assert m.get_submodule("2.0") is m[2][0]
    assert m.get_parameter("2.0.weight") is m[2][0].weight
    assert m.get_parameter("0.bias") is m[0].bias
    assert m.get_buffer("1.running_var") is m[1].running_var
    assert m.get_buffer("1.num_batches_tracked") is m[1].num_batches_tracked


@pytest.mark.parametrize(
    "method, target, message",
    [  # PyTorch 2.13's messages for the same model
        ("get_submodule", "0.foo", "Linear has no attribute `foo`"),
        ("get_submodule", "5", "Sequential has no attribute `5`"),
        ("get_submodule", "0.weight", "`weight` is not an nn.Module"),
        ("get_parameter", "0.foo", "Linear has no attribute `foo`"),
        ("get_parameter", "0.bias.x", "`bias` is not an nn.Module"),
        ("get_parameter", "1.running_mean", "`running_mean` is not an nn.Parameter"),
        ("get_parameter", "0", "`0` is not an nn.Parameter"),
        ("get_parameter", "1.training", "`training` is not an nn.Parameter"),
        ("get_parameter", "nope", "Sequential has no attribute `nope`"),
        ("get_buffer", "1.weight", "`weight` is not a buffer"),
        ("get_buffer", "1.nope", "BatchNorm1d has no attribute `nope`"),
        ("get_buffer", "0.x.y", "Linear has no attribute `x`"),
    ],
)
def test_get_by_dotted_path_errors(method: str, target: str, message: str) -> None:
    with pytest.raises(AttributeError) as error:
        getattr(model(), method)(target)
    assert str(error.value) == message


# -- ModuleList -------------------------------------------------------------------------------


def names(ml: nn.ModuleList) -> list:
    return [(name, id(child)) for name, child in ml._modules.items()]


def test_module_list_edits_renumber() -> None:
    a, b, c, d = (nn.Linear(1, 1) for _ in range(4))
    ml = nn.ModuleList([a, b])
    ml.insert(1, c)
    assert names(ml) == [("0", id(a)), ("1", id(c)), ("2", id(b))]
    ml.insert(-1, d)  # before the last, as list.insert
    assert [m for m in ml] == [a, c, d, b]
    assert ml.pop(1) is c
    assert names(ml) == [("0", id(a)), ("1", id(d)), ("2", id(b))]
    del ml[0]
    assert names(ml) == [("0", id(d)), ("1", id(b))]
    ml += [a]
    assert list(ml) == [d, b, a]
    assert [name for name, _ in ml.named_parameters()] == [
        "0.weight", "0.bias", "1.weight", "1.bias", "2.weight", "2.bias",
    ]  # fmt: skip
    both = ml + nn.ModuleList([c])
    assert isinstance(both, nn.ModuleList) and list(both) == [d, b, a, c]
    assert list(ml) == [d, b, a]  # + makes a new list
    popped = ml.pop(slice(0, 2))
    assert list(popped) == [d, b] and names(ml) == [("0", id(a))]
    with pytest.raises(IndexError):
        ml.pop(3)


def test_sequential_edits_renumber() -> None:
    a, b, c, d = nn.Linear(2, 2), nn.ReLU(), nn.Tanh(), nn.Linear(2, 2)
    seq = nn.Sequential(a, b)
    assert seq.insert(-1, c) is seq and list(seq) == [a, c, b]
    seq.insert(3, d)
    assert [name for name, _ in seq.named_children()] == ["0", "1", "2", "3"]
    assert seq.pop(1) is c and list(seq) == [a, b, d]
    del seq[-1]
    seq += nn.Sequential(c)
    assert list(seq) == [a, b, c] and list(seq.extend([d])) == [a, b, c, d]
    both = nn.Sequential(a) + nn.Sequential(b, c)
    assert isinstance(both, nn.Sequential) and list(both) == [a, b, c]
    x = sp.tensor([[0.5, -1.0]], dtype=sp.float32)
    np.testing.assert_allclose(both(x).detach().numpy(), c(b(a(x))).detach().numpy())
    with pytest.raises(IndexError, match="Index out of range: 5"):
        seq.insert(5, nn.ReLU())
    with pytest.raises(ValueError) as error:  # PyTorch 2.13's message
        seq + [a]  # noqa: RUF005  (the refusal under test)
    assert str(error.value) == (
        "add operator supports only objects of Sequential class, but <class 'list'> is given."
    )


def test_module_list_extend_needs_an_iterable() -> None:
    with pytest.raises(TypeError) as error:
        nn.ModuleList().extend(nn.Linear(1, 1))
    assert str(error.value) == "ModuleList.extend should be called with an iterable, but got Linear"


# -- Embedding(padding_idx=) -------------------------------------------------------------------


def test_embedding_padding_row_is_zero_and_gets_no_gradient() -> None:
    e = nn.Embedding(6, 3, padding_idx=2, dtype=sp.float64)
    table = e.weight.detach().numpy().copy()
    assert not table[2].any() and np.count_nonzero(table) == 15
    ids = np.array([[2, 0, 2], [5, 0, 1]])
    out = e(sp.tensor(ids))
    np.testing.assert_array_equal(out.detach().numpy(), table[ids])
    g = RNG.normal(size=(2, 3, 3))
    out.backward(sp.tensor(g))
    want = np.zeros((6, 3))
    np.add.at(want, ids.reshape(-1), g.reshape(-1, 3))  # row 0 twice: both gradients
    want[2] = 0
    np.testing.assert_allclose(e.weight.grad.numpy(), want, rtol=0, atol=1e-15)


def test_embedding_padding_row_set_by_hand_is_read_but_not_trained() -> None:
    weight = leaf(RNG.normal(size=(4, 2)))
    out = F.embedding(sp.tensor([3, 1]), weight, padding_idx=-1)
    np.testing.assert_array_equal(out.detach().numpy(), weight.detach().numpy()[[3, 1]])
    out.sum().backward()
    np.testing.assert_array_equal(weight.grad.numpy(), [[0, 0], [1, 1], [0, 0], [0, 0]])


@pytest.mark.parametrize("padding_idx", [4, -5])
def test_embedding_padding_idx_out_of_range(padding_idx: int) -> None:
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(4, 2, padding_idx=padding_idx)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        F.embedding(sp.tensor([0]), leaf(np.zeros((4, 2))), padding_idx=padding_idx)


def test_embedding_options_not_in_the_course() -> None:
    with pytest.raises(NotImplementedError, match="sparse"):
        nn.Embedding(4, 2, sparse=True)
    with pytest.raises(NotImplementedError, match="sparse"):
        F.embedding(sp.tensor([0]), leaf(np.zeros((4, 2))), sparse=True)
    with pytest.raises(AssertionError, match="Shape of weight"):
        nn.Embedding(4, 2, _weight=sp.zeros(3, 2))
    with pytest.raises(IndexError, match="index out of range"):
        F.embedding(sp.tensor([4]), leaf(np.zeros((4, 2))))


# -- the losses' errors ------------------------------------------------------------------------

X = leaf(RNG.normal(size=(4, 3)))
T = sp.tensor([0, 1, 2, 0])


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: F.nll_loss(X, sp.tensor([0, 1, 5, 0])), IndexError, "Target 5 is out of bounds"),
        (lambda: F.nll_loss(X, T, weight=sp.ones(2, dtype=sp.float64)), RuntimeError,
         "weight tensor should be defined either for all 3 classes or no classes but got "
         "weight tensor of shape: [2]"),
        (lambda: F.cross_entropy(X, T, weight=sp.ones(3, 1, dtype=sp.float64)), RuntimeError,
         "weight tensor should be defined either for all 3 classes or no classes but got "
         "weight tensor of shape: [3, 1]"),
        (lambda: F.nll_loss(X, T, weight=sp.ones(3, dtype=sp.float32)), RuntimeError,
         "expected scalar type float64 but found float32"),
        (lambda: F.nll_loss(X, T, weight=[1.0, 2.0, 3.0]), TypeError,
         "argument 'weight' must be Tensor, not list"),
        (lambda: F.cross_entropy(X, T, weight=leaf(np.ones(3))), RuntimeError,
         "not differentiable with respect to argument 'weight'"),
        (lambda: F.nll_loss(X, T, reduction="avg"), ValueError, "'avg' is not a valid value"),
        (lambda: F.nll_loss(X, sp.tensor([0.0, 1, 2, 0])), TypeError, "class indices"),
        (lambda: F.nll_loss(X, sp.tensor([0, 1, 2])), ValueError, "need a target of shape (4,)"),
        (lambda: F.nll_loss(X[0, 0], sp.tensor(0)), ValueError, "not a 0-d tensor"),
        (lambda: F.smooth_l1_loss(X, X, beta=-1.0), RuntimeError,
         "smooth_l1_loss does not support negative values for beta."),
        (lambda: F.huber_loss(X, X, delta=0.0), RuntimeError,
         "huber_loss does not support non-positive values for delta."),
        (lambda: F.l1_loss(X, X, reduction="avg"), ValueError, "'avg' is not a valid value"),
        (lambda: F.binary_cross_entropy(X, X), RuntimeError,
         "all elements of input should be between 0 and 1"),
        (lambda: F.binary_cross_entropy(X.sigmoid(), X[:2].sigmoid()), ValueError,
         "Using a target size ((2, 3)) that is different to the input size ((4, 3))"),
        (lambda: F.binary_cross_entropy_with_logits(X, X, weight=sp.ones(2, dtype=sp.float64)),
         RuntimeError, "does not broadcast to the input's shape (4, 3)"),
        (lambda: F.binary_cross_entropy_with_logits(X, X, pos_weight=leaf(np.ones(3))),
         RuntimeError, "not differentiable with respect to argument 'pos_weight'"),
    ],
)  # fmt: skip
def test_loss_errors(call, error: type, message: str) -> None:
    with pytest.raises(error) as raised:
        call()
    assert message in str(raised.value)


def test_loss_dtypes_follow_the_input() -> None:
    x = sp.tensor(RNG.normal(size=(4, 3)), dtype=sp.float32, requires_grad=True)
    w = sp.tensor([1.0, 2.0, 0.5], dtype=sp.float32)
    for loss in (
        F.nll_loss(x, T, weight=w),
        F.cross_entropy(x, T, weight=w, label_smoothing=0.1),
        F.l1_loss(x, x.detach() * 2),
        F.smooth_l1_loss(x, x.detach() * 2, reduction="none"),
        F.huber_loss(x, x.detach() * 2, reduction="sum"),
        F.binary_cross_entropy(x.sigmoid(), x.detach().sigmoid(), weight=w),
        F.binary_cross_entropy_with_logits(x, x.detach().sigmoid(), pos_weight=w),
    ):
        assert loss.dtype == np.float32
        x.grad = None
        loss.sum().backward()
        assert x.grad.dtype == np.float32


def test_l1_loss_by_hand() -> None:
    """|d| and sign(d) (0 at d = 0), checked with NumPy."""
    a, b = np.array([1.0, -2.0, 3.0, 0.5]), np.array([1.0, 1.0, -1.0, 0.0])
    x = leaf(a)
    loss = F.l1_loss(x, sp.tensor(b))
    assert loss.item() == pytest.approx(np.abs(a - b).mean(), rel=1e-15)
    loss.backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.sign(a - b) / 4)


# -- device= and dtype= ------------------------------------------------------------------------

FACTORIES = [
    lambda **kw: nn.Linear(3, 2, **kw),
    lambda **kw: nn.Embedding(5, 3, padding_idx=0, **kw),
    lambda **kw: nn.BatchNorm1d(4, **kw),
    lambda **kw: nn.LayerNorm(3, **kw),
]


@pytest.mark.parametrize("make", FACTORIES, ids=["Linear", "Embedding", "BatchNorm1d", "LayerNorm"])
def test_modules_made_on_a_device_and_dtype(make) -> None:
    sp.manual_seed(3)
    on_cpu = make(dtype=sp.float64)
    sp.manual_seed(3)
    on_sim = make(device="sim", dtype=sp.float64)
    for (name, a), (other, b) in zip(on_cpu.state_dict().items(), on_sim.state_dict().items()):
        assert name == other
        assert str(b.device) == "sim:0" and str(a.device) == "cpu"
        want_dtype = np.int64 if name.endswith("num_batches_tracked") else np.float64
        assert a.dtype == b.dtype == want_dtype
        np.testing.assert_array_equal(b.cpu().numpy(), a.numpy())
    assert make().state_dict()[next(iter(make().state_dict()))].dtype == np.float32


# -- the simulated device gives the CPU's values -----------------------------------------------


def run_losses(device) -> list:
    x = leaf(RNG_SIM_X, device=device)
    y = sp.tensor(RNG_SIM_Y, dtype=sp.float64, device=device)
    w = sp.tensor([0.5, 2.0, 1.0], dtype=sp.float64, device=device)
    t = sp.tensor([0, 2, -100, 1], device=device)
    losses = [
        F.nll_loss(x.log_softmax(1), t, weight=w),
        F.cross_entropy(x, t, weight=w, label_smoothing=0.2, reduction="sum"),
        F.l1_loss(x, y),
        F.smooth_l1_loss(x, y, beta=0.5, reduction="none"),
        F.huber_loss(x, y, delta=0.7),
        F.binary_cross_entropy(x.sigmoid(), y.sigmoid(), weight=w),
        F.binary_cross_entropy_with_logits(x, y.sigmoid(), weight=w, pos_weight=w),
        F.embedding(t.abs() % 3, x, padding_idx=1),
    ]
    out = []
    for loss in losses:
        x.grad = None
        loss.sum().backward()
        out.append((loss.detach().cpu().numpy(), x.grad.cpu().numpy(), str(loss.device)))
    return out


RNG_SIM_X = RNG.normal(size=(4, 3))
RNG_SIM_Y = RNG.normal(size=(4, 3))


def test_new_losses_on_the_simulated_device() -> None:
    for (a, ga, da), (b, gb, db) in zip(run_losses(None), run_losses("sim"), strict=True):
        assert (da, db) == ("cpu", "sim:0")
        np.testing.assert_allclose(b, a, rtol=1e-14, atol=1e-15)
        np.testing.assert_allclose(gb, ga, rtol=1e-14, atol=1e-15)


def test_adadelta_and_plateau_on_the_simulated_device() -> None:
    results = []
    for device in (None, "sim"):
        p = nn.Parameter(sp.tensor(np.linspace(-1, 1, 5), dtype=sp.float64, device=device))
        opt = sp.optim.Adadelta([p], lr=0.5, weight_decay=0.1)
        plateau = sp.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5)
        for step in range(12):
            p.grad = sp.tensor(np.cos(np.arange(5) + step), dtype=sp.float64, device=device)
            opt.step()
            plateau.step(sp.tensor(1.0, device=device))  # never better: cut every 2 steps
        results.append((p.detach().cpu().numpy(), opt.param_groups[0]["lr"]))
    (a, lr_a), (b, lr_b) = results
    np.testing.assert_allclose(b, a, rtol=1e-14)
    assert lr_a == lr_b == 0.5 * 0.5**5


def test_embedding_max_norm_on_the_simulated_device() -> None:
    results = []
    for device in (None, "sim"):
        table = leaf(RNG_SIM_X * 2, device=device)
        ids = sp.tensor([[0, 3, 3], [2, 0, 3]], device=device)
        out = F.embedding(ids, table, max_norm=1.0, scale_grad_by_freq=True, padding_idx=2)
        out.sum().backward()
        results.append([a.detach().cpu().numpy() for a in (out, table, table.grad)])
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-14)
    norms = np.linalg.norm(results[0][1][[0, 2, 3]], axis=1)
    assert np.all(norms <= 1.0)  # every picked row brought within max_norm
    np.testing.assert_allclose(results[0][2][3], np.full(3, 1.0))  # 3 picks, each 1/3
    np.testing.assert_array_equal(results[0][2][2], np.zeros(3))  # the padding row

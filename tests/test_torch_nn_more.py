"""PyTorch as the oracle for chapter 5's later additions (issue 27): ``nll_loss``, the
distance losses (``l1_loss``, ``smooth_l1_loss``, ``huber_loss``), ``binary_cross_entropy``,
class and element weights (``weight=``, ``pos_weight=``) for the cross-entropies, their
modules, ``Embedding(padding_idx=)`` and ``F.embedding``, and ``device=``/``dtype=`` on the
modules that make parameters. Values and the gradient of every input agree to 1e-10 in
float64, for every reduction, at ties and edges (d = 0, |d| = β, probabilities 0 and 1, all
rows ignored). Skipped, visibly, without PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

from solutions import ch07_device as sp

torch = pytest.importorskip("torch")

TOL = 1e-10
REDUCTIONS = ["mean", "sum", "none"]


def _close(ours, theirs) -> None:
    want = theirs.detach().numpy() if isinstance(theirs, torch.Tensor) else np.asarray(theirs)
    got = ours.detach().numpy() if isinstance(ours, sp.Tensor) else np.asarray(ours)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=TOL, atol=TOL, equal_nan=True)


def _check(fn, arrays: list, consts: tuple = (), grad: tuple | None = None, seed: int = 0):
    """``fn(module, *leaves, *consts)`` with ``sp`` and ``torch``: equal values, dtypes and
    gradients of every leaf (``grad`` says which arrays require one: all by default) for a
    random upstream gradient. ``consts`` are built per framework: ``("i", array)`` an int64
    tensor, ``("f", array)`` a float64 tensor without gradient, anything else as is."""
    grad = (True,) * len(arrays) if grad is None else grad
    ours = [sp.tensor(a, dtype=sp.float64, requires_grad=g) for a, g in zip(arrays, grad)]
    theirs = [torch.tensor(a, dtype=torch.float64, requires_grad=g) for a, g in zip(arrays, grad)]

    def build(m, kind_value):
        if isinstance(kind_value, tuple) and kind_value and kind_value[0] in ("i", "f"):
            kind, value = kind_value
            dtype = m.int64 if kind == "i" else m.float64
            return m.tensor(np.asarray(value), dtype=dtype)
        return kind_value

    out = fn(sp, *ours, *[build(sp, c) for c in consts])
    want = fn(torch, *theirs, *[build(torch, c) for c in consts])
    _close(out, want)
    assert str(out.dtype) == str(want.dtype).removeprefix("torch.")
    g = np.random.default_rng(seed + 1).uniform(-1, 1, tuple(want.shape))
    out.backward(sp.tensor(g, dtype=sp.float64))
    want.backward(torch.tensor(g, dtype=torch.float64))
    for x, t in zip(ours, theirs):
        if not t.requires_grad:
            continue
        expected = np.zeros(t.shape) if t.grad is None else t.grad.numpy()
        got = np.zeros(x.shape) if x.grad is None else x.grad.numpy()
        np.testing.assert_allclose(got, expected, rtol=TOL, atol=TOL, equal_nan=True)


RNG = np.random.default_rng(27)
LOGITS = RNG.normal(size=(6, 4)) * 2
TARGET = np.array([0, 3, -100, 2, 3, 1])
WEIGHT = RNG.uniform(0.2, 2.0, 4)
LOGITS_3D = RNG.normal(size=(2, 4, 3))
TARGET_3D = np.array([[0, 3, 1], [2, -100, 2]])


# -- nll_loss and weighted cross_entropy -------------------------------------------------------


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss(reduction: str, weighted: bool) -> None:
    consts = (("i", TARGET), ("f", WEIGHT) if weighted else None)
    _check(
        lambda m, x, t, w: m.nn.functional.nll_loss(
            m.log_softmax(x, 1), t, weight=w, reduction=reduction
        ),
        [LOGITS],
        consts,
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss_layouts(reduction: str) -> None:
    _check(
        lambda m, x, t, w: m.nn.functional.nll_loss(x, t, weight=w, reduction=reduction),
        [LOGITS_3D],
        (("i", TARGET_3D), ("f", WEIGHT)),
    )
    _check(  # one example: (C,) and ()
        lambda m, x, t: m.nn.functional.nll_loss(x, t, reduction=reduction, ignore_index=1),
        [LOGITS[0]],
        (("i", np.array(2)),),
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.25])
def test_weighted_cross_entropy(reduction: str, smoothing: float) -> None:
    for x, t in ((LOGITS, TARGET), (LOGITS_3D, TARGET_3D)):
        _check(
            lambda m, x, t, w: m.nn.functional.cross_entropy(
                x, t, weight=w, reduction=reduction, label_smoothing=smoothing
            ),
            [x],
            (("i", t), ("f", WEIGHT)),
        )


@pytest.mark.parametrize("smoothing", [0.0, 0.4])
def test_weighted_cross_entropy_edges(smoothing: float) -> None:
    """All rows ignored: nan, and a zero gradient; the targets' weights all 0: nan too."""
    everything_ignored = np.full(6, -100)
    _check(
        lambda m, x, t, w: m.nn.functional.cross_entropy(x, t, weight=w, label_smoothing=smoothing),
        [LOGITS],
        (("i", everything_ignored), ("f", WEIGHT)),
    )
    minus_inf_where_ignored = LOGITS.copy()
    minus_inf_where_ignored[2] = -np.inf  # TARGET[2] is ignored: it adds nothing, not nan
    for reduction in REDUCTIONS:
        _check(
            lambda m, x, t, r=reduction: m.nn.functional.nll_loss(x, t, reduction=r),
            [minus_inf_where_ignored],
            (("i", TARGET),),
        )
    zero_for_the_targets = np.array([0.0, 1.0, 1.0, 1.0])
    _check(
        lambda m, x, t, w: m.nn.functional.nll_loss(m.log_softmax(x, 1), t, weight=w),
        [LOGITS],
        (("i", np.zeros(6, np.int64)), ("f", zero_for_the_targets)),
    )


def test_loss_modules_with_weights() -> None:
    for name, kwargs in [
        ("NLLLoss", {"ignore_index": 3}),
        ("CrossEntropyLoss", {"label_smoothing": 0.1}),
        ("CrossEntropyLoss", {"reduction": "sum"}),
    ]:
        _check(
            lambda m, x, t, w, name=name, kwargs=kwargs: getattr(m.nn, name)(weight=w, **kwargs)(
                x, t
            ),
            [LOGITS],
            (("i", np.where(TARGET < 0, 3, TARGET)), ("f", WEIGHT)),  # 3 ignored
        )
    ours = sp.nn.CrossEntropyLoss(weight=sp.tensor(WEIGHT))
    theirs = torch.nn.CrossEntropyLoss(weight=torch.tensor(WEIGHT))
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight"]
    assert list(sp.nn.NLLLoss().state_dict()) == list(torch.nn.NLLLoss().state_dict()) == []


# -- the distance losses ---------------------------------------------------------------------

# differences at the ties: 0 (l1's kink), ±β = ±0.5 and ±δ = ±1.5 (the joins), and around them
INPUT = np.array([[0.0, 0.5, -0.5, 1.5], [-1.5, 2.0, 0.2, -3.0], [0.7, -0.1, 1.0, -1.0]])
TARGET_F = np.array([[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.7, 0.4, -1.0, 2.0]])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(
    "loss",
    [
        lambda m, r: lambda x, y: m.nn.functional.l1_loss(x, y, reduction=r),
        lambda m, r: lambda x, y: m.nn.functional.smooth_l1_loss(x, y, reduction=r),
        lambda m, r: lambda x, y: m.nn.functional.smooth_l1_loss(x, y, reduction=r, beta=0.5),
        lambda m, r: lambda x, y: m.nn.functional.smooth_l1_loss(x, y, reduction=r, beta=0.0),
        lambda m, r: lambda x, y: m.nn.functional.huber_loss(x, y, reduction=r),
        lambda m, r: lambda x, y: m.nn.functional.huber_loss(x, y, reduction=r, delta=1.5),
        lambda m, r: lambda x, y: m.nn.L1Loss(reduction=r)(x, y),
        lambda m, r: lambda x, y: m.nn.SmoothL1Loss(reduction=r, beta=0.5)(x, y),
        lambda m, r: lambda x, y: m.nn.HuberLoss(reduction=r, delta=1.5)(x, y),
    ],
    ids=[
        "l1",
        "smooth",
        "smooth-beta",
        "smooth-beta0",
        "huber",
        "huber-delta",
        "L1Loss",
        "SmoothL1Loss",
        "HuberLoss",
    ],
)
def test_distance_losses(loss, reduction: str) -> None:
    _check(lambda m, x, y: loss(m, reduction)(x, y), [INPUT, TARGET_F])
    _check(lambda m, x, y: loss(m, reduction)(x, y), [RNG.normal(size=(3, 5)) * 2] * 2, seed=3)


def test_distance_losses_broadcast_with_a_warning() -> None:
    with pytest.warns(UserWarning, match="target size"):
        _check(
            lambda m, x, y: m.nn.functional.huber_loss(x, y),
            [INPUT, TARGET_F[0]],
        )


# -- binary cross-entropy ----------------------------------------------------------------------

PROBS = np.array([[0.0, 1.0, 0.3], [0.5, 0.999, 1e-4]])
LABELS = np.array([[1.0, 0.0, 0.2], [1.0, 1.0, 0.0]])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy(reduction: str) -> None:
    inner = RNG.uniform(0.05, 0.95, (3, 4))
    y = RNG.uniform(0, 1, (3, 4))
    w = RNG.uniform(0.5, 2, (4,))
    _check(
        lambda m, x, y: m.nn.functional.binary_cross_entropy(x, y, reduction=reduction),
        [inner, y],
    )
    _check(
        lambda m, x, y, w: m.nn.functional.binary_cross_entropy(
            x, y, weight=w, reduction=reduction
        ),
        [inner, y],
        (("f", w),),
    )
    _check(
        lambda m, x, y, w: m.nn.BCELoss(weight=w, reduction=reduction)(x, y),
        [inner, y],
        (("f", w),),
    )
    # probabilities of exactly 0 and 1: the logs clamp at -100 (the target's gradient is
    # infinite there in both; only the input's is compared)
    _check(
        lambda m, x, y: m.nn.functional.binary_cross_entropy(x, y, reduction=reduction),
        [PROBS, LABELS],
        grad=(True, False),
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_with_logits_weights(reduction: str) -> None:
    x = np.array([[0.0, 3.0, -2.0, 40.0], [-40.0, 0.5, -0.5, 1e-3]])
    y = RNG.uniform(0, 1, (2, 4))
    w = RNG.uniform(0.5, 2, (2, 1))
    pw = RNG.uniform(0.2, 3, (4,))
    F = "binary_cross_entropy_with_logits"
    for consts, call in [
        (
            (("f", w), None),
            lambda m, a, b, w, p: getattr(m.nn.functional, F)(a, b, weight=w, reduction=reduction),
        ),
        (
            (None, ("f", pw)),
            lambda m, a, b, w, p: getattr(m.nn.functional, F)(
                a, b, reduction=reduction, pos_weight=p
            ),
        ),
        (
            (("f", w), ("f", pw)),
            lambda m, a, b, w, p: m.nn.BCEWithLogitsLoss(
                weight=w, reduction=reduction, pos_weight=p
            )(a, b),
        ),
    ]:
        _check(call, [x, y], consts)
    module = sp.nn.BCEWithLogitsLoss(pos_weight=sp.tensor(pw))
    want = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor(pw))
    assert list(module.state_dict()) == list(want.state_dict()) == ["pos_weight"]


# -- Embedding ---------------------------------------------------------------------------------

IDS = np.array([[0, 2, 2, 4], [4, 1, 0, 2]])


@pytest.mark.parametrize("padding_idx", [None, 2, -1, 0])
def test_embedding_function(padding_idx) -> None:
    table = RNG.normal(size=(5, 3))
    _check(
        lambda m, w, i: m.nn.functional.embedding(i, w, padding_idx=padding_idx),
        [table],
        (("i", IDS),),
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"scale_grad_by_freq": True},
        {"scale_grad_by_freq": True, "padding_idx": 0},
        {"max_norm": 1.5},
        {"max_norm": 2.0, "norm_type": 1.0, "padding_idx": -1, "scale_grad_by_freq": True},
        {"max_norm": 0.8, "norm_type": 3.0},
    ],
)
def test_embedding_max_norm_and_scale_grad_by_freq(kwargs: dict) -> None:
    """max_norm rescales the picked rows of the table in place (both tables end equal) before
    the lookup; scale_grad_by_freq divides each row's gradient by its count."""
    table = RNG.normal(size=(5, 3)) * 1.5
    ours, theirs = sp.tensor(table, requires_grad=True), torch.tensor(table, requires_grad=True)
    out = sp.nn.functional.embedding(sp.tensor(IDS), ours, **kwargs)
    want = torch.nn.functional.embedding(torch.tensor(IDS), theirs, **kwargs)
    _close(out, want)
    _close(ours, theirs)
    if "max_norm" in kwargs:
        assert not np.allclose(ours.detach().numpy(), table)  # some row was rescaled
    g = RNG.normal(size=want.shape)
    out.backward(sp.tensor(g))
    want.backward(torch.tensor(g))
    _close(ours.grad, theirs.grad)
    module = sp.nn.Embedding(5, 3, **kwargs)
    assert repr(module) == repr(torch.nn.Embedding(5, 3, **kwargs))


def test_embedding_module_padding_row() -> None:
    ours = sp.nn.Embedding(5, 3, padding_idx=-2, dtype=sp.float64)
    theirs = torch.nn.Embedding(5, 3, padding_idx=-2, dtype=torch.float64)
    assert ours.padding_idx == theirs.padding_idx == 3
    assert repr(ours) == repr(theirs)
    np.testing.assert_array_equal(ours.weight.detach().numpy()[3], np.zeros(3))
    theirs.weight.data[:] = torch.tensor(ours.weight.detach().numpy())
    ids = np.array([3, 1, 3, 0])
    out, want = ours(sp.tensor(ids)), theirs(torch.tensor(ids))
    _close(out, want)
    g = RNG.normal(size=(4, 3))
    out.backward(sp.tensor(g))
    want.backward(torch.tensor(g))
    _close(ours.weight.grad, theirs.weight.grad)
    assert not ours.weight.grad.detach().numpy()[3].any()


def test_embedding_from_pretrained() -> None:
    table = RNG.normal(size=(4, 2))
    for freeze in (True, False):
        ours = sp.nn.Embedding.from_pretrained(sp.tensor(table), freeze=freeze, padding_idx=1)
        theirs = torch.nn.Embedding.from_pretrained(
            torch.tensor(table), freeze=freeze, padding_idx=1
        )
        assert ours.weight.requires_grad == theirs.weight.requires_grad == (not freeze)
        _close(ours.weight, theirs.weight)  # no zeroing of a given table's padding row
        _close(ours(sp.tensor([1, 3])), theirs(torch.tensor([1, 3])))


# -- device= and dtype= on the modules that make parameters ------------------------------------

MODULES = [
    ("Linear", (3, 2)),
    ("Embedding", (5, 3)),
    ("BatchNorm1d", (4,)),
    ("LayerNorm", ((2, 3),)),
]


@pytest.mark.parametrize("name, args", MODULES, ids=[m[0] for m in MODULES])
def test_factory_kwargs(name: str, args: tuple) -> None:
    """The same names, shapes and dtypes as PyTorch's ``Module(..., device="cpu",
    dtype=float64)`` (integer buffers keep int64)."""
    ours = getattr(sp.nn, name)(*args, device="cpu", dtype=sp.float64)
    theirs = getattr(torch.nn, name)(*args, device="cpu", dtype=torch.float64)
    got = {k: (v.shape, str(v.dtype), str(v.device)) for k, v in ours.state_dict().items()}
    want = {
        k: (tuple(v.shape), str(v.dtype).removeprefix("torch."), str(v.device))
        for k, v in theirs.state_dict().items()
    }
    assert got == want


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_an_ignored_row_with_minus_inf_logits_costs_nothing_with_weights_and_smoothing(
    reduction: str,
) -> None:
    """Padded positions carry −inf logits and ignore_index: with ``weight=`` and label
    smoothing (the given path) their loss is 0, as PyTorch's masked_fill gives, not the nan
    a mask multiplied in would (−inf · 0)."""
    z = np.array([[0.0, 1.0, -np.inf], [0.5, 0.2, 0.1]])
    t, w = np.array([-100, 1]), np.array([1.0, 2.0, 3.0])
    ours, theirs = sp.tensor(z, requires_grad=True), torch.tensor(z, requires_grad=True)
    got = sp.nn.functional.cross_entropy(
        ours, sp.tensor(t), weight=sp.tensor(w), label_smoothing=0.1, reduction=reduction
    )
    want = torch.nn.functional.cross_entropy(
        theirs, torch.tensor(t), weight=torch.tensor(w), label_smoothing=0.1, reduction=reduction
    )
    _close(got, want)
    got.sum().backward()
    want.sum().backward()
    _close(ours.grad, theirs.grad)

"""PyTorch as the oracle for chapter 6: optimizers, schedules, state_dict and clipping.

Fifty steps of every optimizer (each option worth having: momentum, dampening, Nesterov,
weight decay, lr decay, centered, AMSGrad, param groups with options of their own), alone
and under every schedule (OneCycleLR cycling SGD's momentum and Adam's β₁, three-phase and
linear included), in float64 from the same start with the same gradients (a fixed field of
the parameters, some steps with no gradient for one parameter): the parameter trajectories
agree to 1e-6 relative. A state_dict has PyTorch's structure (the same state names; group
options a subset of PyTorch's) and PyTorch's own state, loaded into a Sparrow optimizer,
continues PyTorch's run. Bad options are refused with PyTorch's exact messages;
``clip_grad_norm_`` and ``clip_grad_value_`` give PyTorch's norms and gradients for norms
2, 1 and ∞.

Skipped, visibly, without PyTorch (``pip install -r requirements-oracles.txt``; CI installs
it). Only the reference (``solutions/``) is compared.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from solutions import ch06_optim as sp

torch = pytest.importorskip("torch")

RTOL, ATOL = 1e-6, 1e-12
STEPS = 50
SHAPES = [(3, 4), (4,), (2,)]
INIT = [np.random.default_rng(0).normal(size=s) for s in SHAPES]


def gradient(p: np.ndarray, t: int) -> np.ndarray:
    """A gradient field that changes with the parameters and the step."""
    return p - 0.5 + 0.3 * np.sin(p + t)


OPTIMIZERS = {
    "sgd": lambda o, ps: o.SGD(ps, lr=0.05),
    "sgd-momentum": lambda o, ps: o.SGD(ps, lr=0.05, momentum=0.9),
    "sgd-dampening-wd": lambda o, ps: o.SGD(
        ps, lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.01
    ),
    "sgd-nesterov-wd": lambda o, ps: o.SGD(
        ps, lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01
    ),
    "adagrad": lambda o, ps: o.Adagrad(ps, lr=0.1),
    "adagrad-all": lambda o, ps: o.Adagrad(
        ps, lr=0.1, lr_decay=0.01, weight_decay=0.01, initial_accumulator_value=0.1, eps=1e-6
    ),
    "rmsprop": lambda o, ps: o.RMSprop(ps, lr=0.01),
    "rmsprop-wd-alpha": lambda o, ps: o.RMSprop(ps, lr=0.01, alpha=0.9, weight_decay=0.01),
    "rmsprop-momentum": lambda o, ps: o.RMSprop(ps, lr=0.01, momentum=0.5),
    "rmsprop-centered-momentum": lambda o, ps: o.RMSprop(
        ps, lr=0.01, momentum=0.5, centered=True, eps=1e-6
    ),
    "adam": lambda o, ps: o.Adam(ps, lr=0.01),
    "adam-wd": lambda o, ps: o.Adam(ps, lr=0.01, weight_decay=0.01),
    "adam-amsgrad-betas": lambda o, ps: o.Adam(
        ps, lr=0.01, amsgrad=True, betas=(0.8, 0.99), eps=1e-6
    ),
    "adamw": lambda o, ps: o.AdamW(ps, lr=0.01),
    "adamw-amsgrad": lambda o, ps: o.AdamW(ps, lr=0.01, weight_decay=0.1, amsgrad=True),
    "groups-adam": lambda o, ps: o.Adam(
        [{"params": ps[:1], "lr": 0.1}, {"params": ps[1:], "weight_decay": 0.1}], lr=0.01
    ),
    "groups-sgd": lambda o, ps: o.SGD(
        [{"params": ps[:2], "momentum": 0.5}, {"params": ps[2:], "nesterov": True}],
        lr=0.05,
        momentum=0.9,
    ),
}

SCHEDULERS = {
    "none": None,
    "step": lambda s, o: s.StepLR(o, 7, 0.5),
    "multistep": lambda s, o: s.MultiStepLR(o, [5, 20, 20, 33], 0.5),
    "exponential": lambda s, o: s.ExponentialLR(o, 0.95),
    "cosine": lambda s, o: s.CosineAnnealingLR(o, 20, eta_min=0.001),
    "lambda": lambda s, o: s.LambdaLR(o, lambda t: 1 / (1 + t)),
    "onecycle": lambda s, o: s.OneCycleLR(o, 0.1, total_steps=STEPS),
    "onecycle-three-phase-linear": lambda s, o: s.OneCycleLR(
        o, 0.1, epochs=5, steps_per_epoch=10, three_phase=True, anneal_strategy="linear"
    ),
    "onecycle-per-group-no-momentum": lambda s, o: s.OneCycleLR(
        o,
        [0.1 * (i + 1) for i in range(len(o.param_groups))],
        total_steps=STEPS,
        cycle_momentum=False,
        pct_start=0.4,
        div_factor=10,
    ),
}


def framework(lib: str):
    """(params, optim module, lr_scheduler module, tensor maker, to-NumPy) for one library."""
    if lib == "torch":
        params = [torch.nn.Parameter(torch.tensor(a.copy())) for a in INIT]
        return params, torch.optim, torch.optim.lr_scheduler, torch.tensor
    params = [sp.nn.Parameter(sp.tensor(a.copy())) for a in INIT]
    return params, sp.optim, sp.optim.lr_scheduler, sp.tensor


def run(opt_name: str, sched_name: str, lib: str, steps: int = STEPS):
    """The trajectory (steps × all parameters) and the optimizer and scheduler at the end;
    parameter 2 has no gradient on every third step."""
    params, optim, schedulers, tensor = framework(lib)
    opt = OPTIMIZERS[opt_name](optim, params)
    make_sched = SCHEDULERS[sched_name]
    sched = make_sched(schedulers, opt) if make_sched else None
    trajectory = []
    for t in range(steps):
        for i, p in enumerate(params):
            p.grad = None if (i == 2 and t % 3 == 0) else tensor(gradient(numpy(p), t))
        opt.step()
        if sched is not None:
            sched.step()
        trajectory.append(np.concatenate([numpy(p).ravel() for p in params]))
    return np.array(trajectory), opt, sched


def numpy(t) -> np.ndarray:
    if isinstance(t, torch.Tensor):
        return t.detach().numpy().copy()
    return np.array(t.data)


@pytest.fixture(autouse=True, scope="module")
def float64():
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(before)


@pytest.mark.slow
@pytest.mark.parametrize("sched_name", SCHEDULERS)
@pytest.mark.parametrize("opt_name", OPTIMIZERS)
def test_fifty_steps_agree_with_pytorch(opt_name, sched_name):
    try:
        theirs, t_opt, t_sched = run(opt_name, sched_name, "torch")
    except ValueError as exc:  # e.g. OneCycleLR's momentum on Adagrad: both refuse alike
        with pytest.raises(ValueError) as ours:
            run(opt_name, sched_name, "sparrow")
        assert str(ours.value) == str(exc)
        return
    ours, s_opt, s_sched = run(opt_name, sched_name, "sparrow")
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL)
    for s_group, t_group in zip(s_opt.param_groups, t_opt.param_groups, strict=True):
        assert s_group["lr"] == pytest.approx(t_group["lr"], rel=1e-9)
        for key in ("momentum", "betas"):
            if key in s_group:
                assert s_group[key] == pytest.approx(t_group[key], rel=1e-9)
    if s_sched is not None:
        assert s_sched.last_epoch == t_sched.last_epoch
        np.testing.assert_allclose(s_sched.base_lrs, t_sched.base_lrs, rtol=1e-12)
        np.testing.assert_allclose(s_sched.get_last_lr(), t_sched.get_last_lr(), rtol=1e-9)


def test_one_cycle_list_of_the_wrong_length():
    messages = []
    for lib in ("torch", "sparrow"):
        params, optim, schedulers, _ = framework(lib)
        opt = OPTIMIZERS["groups-sgd"](optim, params)
        with pytest.raises(ValueError) as error:
            schedulers.OneCycleLR(opt, [0.1], total_steps=STEPS)
        messages.append(str(error.value))
    assert messages[0] == messages[1]


def state_array(value) -> np.ndarray | float:
    if isinstance(value, torch.Tensor):
        return float(value) if value.ndim == 0 else value.numpy()
    if isinstance(value, sp.Tensor):
        return np.array(value.data)
    return float(value)


@pytest.mark.parametrize(
    "opt_name",
    ["sgd-nesterov-wd", "adagrad-all", "rmsprop-centered-momentum", "adam-amsgrad-betas",
     "adamw", "groups-adam"],
)  # fmt: skip
def test_state_dict_has_pytorchs_structure_and_values(opt_name):
    _, s_opt, _ = run(opt_name, "none", "sparrow", steps=10)
    _, t_opt, _ = run(opt_name, "none", "torch", steps=10)
    ours, theirs = s_opt.state_dict(), t_opt.state_dict()
    assert sorted(ours) == sorted(theirs) == ["param_groups", "state"]
    assert sorted(ours["state"]) == sorted(theirs["state"])
    for index, state in ours["state"].items():
        assert sorted(state) == sorted(theirs["state"][index])
        for name, value in state.items():
            np.testing.assert_allclose(
                state_array(value), state_array(theirs["state"][index][name]), rtol=1e-9
            )
    for s_group, t_group in zip(ours["param_groups"], theirs["param_groups"], strict=True):
        assert set(s_group) <= set(t_group), set(s_group) - set(t_group)
        for key, value in s_group.items():
            assert value == pytest.approx(t_group[key], rel=1e-12)


def to_sparrow(value):
    if isinstance(value, torch.Tensor):
        return sp.tensor(value.numpy().copy())
    if isinstance(value, dict):
        return {k: to_sparrow(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_sparrow(v) for v in value]
    return value


@pytest.mark.parametrize("opt_name", ["sgd-dampening-wd", "rmsprop-momentum", "adam-wd"])
def test_pytorchs_state_dict_continues_in_sparrow(opt_name):
    """PyTorch runs 20 steps; its state_dict (tensors converted, the step count an int) goes
    into a Sparrow optimizer over PyTorch's parameters; 20 more steps each agree."""
    t_params, _, _, _ = framework("torch")
    t_opt = OPTIMIZERS[opt_name](torch.optim, t_params)
    s_params, _, _, _ = framework("sparrow")
    s_opt = OPTIMIZERS[opt_name](sp.optim, s_params)
    for t in range(40):
        if t == 20:
            sd = to_sparrow(t_opt.state_dict())
            for state in sd["state"].values():
                if "step" in state:
                    state["step"] = int(state["step"].item())
            groups = [{k: v for k, v in g.items() if k in s_opt.defaults or k == "params"}
                      for g in sd["param_groups"]]  # fmt: skip
            s_opt.load_state_dict({"state": sd["state"], "param_groups": groups})
            for s, p in zip(s_params, t_params):
                s.data = numpy(p)
        for p in t_params:
            p.grad = torch.tensor(gradient(numpy(p), t))
        for s in s_params:
            s.grad = sp.tensor(gradient(numpy(s), t))
        t_opt.step()
        s_opt.step()
    for s, p in zip(s_params, t_params):
        np.testing.assert_allclose(numpy(s), numpy(p), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize(
    "opt_name", ["sgd-dampening-wd", "adagrad-all", "rmsprop-momentum", "adam-wd", "adamw-amsgrad"]
)
def test_a_group_added_after_some_steps(opt_name):
    """Unfreezing a layer: parameter 2 joins in its own group (lr 0.05) after 3 steps."""
    trajectories = []
    for lib in ("torch", "sparrow"):
        params, optim, _, tensor = framework(lib)
        opt = OPTIMIZERS[opt_name](optim, params[:2])
        trajectory = []
        for t in range(8):
            if t == 3:
                opt.add_param_group({"params": [params[2]], "lr": 0.05})
            for p in params[: 2 if t < 3 else 3]:
                p.grad = tensor(gradient(numpy(p), t))
            opt.step()
            trajectory.append(np.concatenate([numpy(p).ravel() for p in params]))
        trajectories.append(np.array(trajectory))
    np.testing.assert_allclose(trajectories[1], trajectories[0], rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, 0.1, total_steps=10, pct_start=1),
        lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, 0.1, total_steps=10, pct_start=1.5),
        lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, 0.1, total_steps=0),
        lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, 0.1),
    ],
    ids=["pct-int", "pct-1.5", "no-steps", "no-length"],
)
def test_bad_schedules_give_pytorchs_message(make):
    with pytest.raises(ValueError) as theirs:
        make(torch, torch.optim.SGD([torch.nn.Parameter(torch.zeros(2))], lr=0.1))
    with pytest.raises(ValueError) as ours:
        make(sp, sp.optim.SGD([sp.nn.Parameter(sp.zeros(2))], lr=0.1))
    assert str(ours.value) == str(theirs.value)


BAD = [
    ("SGD", {"lr": -0.1}),
    ("SGD", {"lr": 0.1, "momentum": -0.5}),
    ("SGD", {"lr": 0.1, "weight_decay": -1.0}),
    ("SGD", {"lr": 0.1, "nesterov": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "nesterov": True}),
    ("Adam", {"lr": -1e-3}),
    ("Adam", {"eps": -1e-8}),
    ("Adam", {"betas": (1.0, 0.999)}),
    ("Adam", {"betas": (-0.1, 0.999)}),
    ("AdamW", {"betas": (0.9, 1.0)}),
    ("AdamW", {"weight_decay": -0.1}),
    ("Adagrad", {"lr_decay": -0.1}),
    ("Adagrad", {"initial_accumulator_value": -1.0}),
    ("Adagrad", {"eps": -1.0}),
    ("RMSprop", {"alpha": -0.5}),
    ("RMSprop", {"momentum": -0.5}),
    ("RMSprop", {"eps": -1.0}),
]


@pytest.mark.parametrize("cls, kwargs", BAD, ids=[f"{c}-{k}" for c, k in BAD])
def test_bad_options_give_pytorchs_message(cls, kwargs):
    with pytest.raises(ValueError) as theirs:
        getattr(torch.optim, cls)([torch.nn.Parameter(torch.zeros(2))], **kwargs)
    with pytest.raises(ValueError) as ours:
        getattr(sp.optim, cls)([sp.nn.Parameter(sp.zeros(2))], **kwargs)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib, p: lib.optim.SGD([], lr=0.1),
        lambda lib, p: lib.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1),
        lambda lib, p: lib.optim.SGD([p * 2], lr=0.1),
        lambda lib, p: lib.optim.SGD([{"params": {p}}], lr=0.1),
        lambda lib, p: lib.optim.SGD(p, lr=0.1),
    ],
    ids=["empty", "twice", "non-leaf", "set", "a-tensor"],
)
def test_bad_params_give_pytorchs_error(make):
    with pytest.raises((ValueError, TypeError)) as theirs:
        make(torch, torch.nn.Parameter(torch.zeros(2)))
    with pytest.raises((ValueError, TypeError)) as ours:
        make(sp, sp.nn.Parameter(sp.zeros(2)))
    assert type(ours.value) is type(theirs.value)
    # PyTorch names a tensor's type as torch.typename does ("torch.DoubleTensor")
    assert str(ours.value).split(", but got")[0] == str(theirs.value).split(", but got")[0]


def grads_for_clipping(seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.normal(size=s) * 3 for s in SHAPES]


@pytest.mark.parametrize("norm_type", [2.0, 1.0, math.inf, "inf", 3.0])
@pytest.mark.parametrize("max_norm", [0.5, 1e3])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_clip_grad_norm_agrees(norm_type, max_norm, dtype):
    gs = [g.astype(dtype) for g in grads_for_clipping(1)]
    t_params = [
        torch.nn.Parameter(torch.zeros(g.shape, dtype=torch.from_numpy(g).dtype)) for g in gs
    ]
    s_params = [sp.nn.Parameter(sp.zeros(*g.shape, dtype=g.dtype)) for g in gs]
    for t, s, g in zip(t_params, s_params, gs):
        t.grad, s.grad = torch.from_numpy(g.copy()), sp.tensor(g.copy())
    theirs = torch.nn.utils.clip_grad_norm_(t_params, max_norm, norm_type=norm_type)
    ours = sp.nn.utils.clip_grad_norm_(s_params, max_norm, norm_type=norm_type)
    rtol = 1e-12 if dtype == np.float64 else 1e-5
    assert ours.dtype == dtype
    np.testing.assert_allclose(float(ours.item()), float(theirs), rtol=rtol)
    for t, s in zip(t_params, s_params):
        assert s.grad.dtype == dtype
        np.testing.assert_allclose(s.grad.data, t.grad.numpy(), rtol=rtol)


def test_clip_grad_norm_nonfinite_message():
    t, s = torch.nn.Parameter(torch.zeros(2)), sp.nn.Parameter(sp.zeros(2))
    t.grad, s.grad = torch.tensor([math.nan, 1.0]), sp.tensor(np.array([math.nan, 1.0]))
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.utils.clip_grad_norm_([t], 1.0, error_if_nonfinite=True)
    with pytest.raises(RuntimeError) as ours:
        sp.nn.utils.clip_grad_norm_([s], 1.0, error_if_nonfinite=True)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("clip_value", [0.1, 2.0, 100.0])
def test_clip_grad_value_agrees(clip_value):
    gs = grads_for_clipping(2)
    t_params = [torch.nn.Parameter(torch.zeros(g.shape)) for g in gs]
    s_params = [sp.nn.Parameter(sp.zeros(*g.shape, dtype=np.float64)) for g in gs]
    for t, s, g in zip(t_params, s_params, gs):
        t.grad, s.grad = torch.tensor(g), sp.tensor(g)
    torch.nn.utils.clip_grad_value_(t_params, clip_value)
    sp.nn.utils.clip_grad_value_(s_params, clip_value)
    for t, s in zip(t_params, s_params):
        np.testing.assert_array_equal(s.grad.data, t.grad.numpy())

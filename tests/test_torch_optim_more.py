"""PyTorch as the oracle for chapter 6's later additions (issue 27): ``Adadelta`` (alone,
with weight decay, maximize and param groups of their own, and under ``StepLR`` as
pytorch/examples' MNIST runs it) follows PyTorch's parameter trajectory over 60 steps in
float64, and its state has PyTorch's names and values; ``ReduceLROnPlateau`` gives PyTorch's
learning rates, ``num_bad_epochs``, ``best`` and cooldown, step by step, for every mode and
threshold mode, per-group ``min_lr``, and resumes from its ``state_dict``; bad options are
refused with PyTorch's messages. Skipped, visibly, without PyTorch."""

from __future__ import annotations

import math

import numpy as np
import pytest

from solutions import ch07_device as sp

torch = pytest.importorskip("torch")

STEPS = 60
SHAPES = [(3, 4), (4,), (2,)]
INIT = [np.random.default_rng(1).normal(size=s) for s in SHAPES]


def gradient(p: np.ndarray, t: int) -> np.ndarray:
    return p - 0.5 + 0.3 * np.sin(p + t)


def framework(lib: str):
    if lib == "torch":
        params = [torch.nn.Parameter(torch.tensor(a.copy())) for a in INIT]
        return params, torch.optim, torch.tensor
    params = [sp.nn.Parameter(sp.tensor(a.copy())) for a in INIT]
    return params, sp.optim, sp.tensor


def numpy(t) -> np.ndarray:
    return t.detach().numpy().copy() if isinstance(t, torch.Tensor) else np.array(t.data)


OPTIMIZERS = {
    "adadelta": lambda o, ps: o.Adadelta(ps),
    "adadelta-lr-rho-eps": lambda o, ps: o.Adadelta(ps, lr=0.5, rho=0.8, eps=1e-4),
    "adadelta-wd": lambda o, ps: o.Adadelta(ps, weight_decay=0.05),
    "adadelta-maximize": lambda o, ps: o.Adadelta(ps, lr=0.3, maximize=True),
    "adadelta-groups": lambda o, ps: o.Adadelta(
        [{"params": ps[:1], "lr": 2.0}, {"params": ps[1:], "rho": 0.5}], lr=1.0
    ),
}


def run(opt_name: str, lib: str, step_lr: bool, steps: int = STEPS):
    params, optim, tensor = framework(lib)
    opt = OPTIMIZERS[opt_name](optim, params)
    sched = optim.lr_scheduler.StepLR(opt, step_size=7, gamma=0.7) if step_lr else None
    trajectory = []
    for t in range(steps):
        for i, p in enumerate(params):  # parameter 2 has no gradient every third step
            p.grad = None if (i == 2 and t % 3 == 0) else tensor(gradient(numpy(p), t))
        opt.step()
        if sched is not None:
            sched.step()
        trajectory.append(np.concatenate([numpy(p).ravel() for p in params]))
    return np.array(trajectory), opt


@pytest.fixture(autouse=True, scope="module")
def float64():
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(before)


@pytest.mark.parametrize("step_lr", [False, True], ids=["alone", "steplr"])
@pytest.mark.parametrize("opt_name", OPTIMIZERS)
def test_adadelta_follows_pytorch(opt_name: str, step_lr: bool) -> None:
    theirs, t_opt = run(opt_name, "torch", step_lr)
    ours, s_opt = run(opt_name, "sparrow", step_lr)
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
    assert np.abs(theirs[-1] - theirs[0]).max() > 0.01  # it went somewhere
    t_state, s_state = t_opt.state_dict(), s_opt.state_dict()
    assert sorted(s_state["state"]) == sorted(t_state["state"])
    for index, state in s_state["state"].items():
        assert sorted(state) == sorted(t_state["state"][index])
        for name, value in state.items():
            want = t_state["state"][index][name]
            got = float(value) if name == "step" else np.array(value.data)
            want = float(want) if name == "step" else want.numpy()
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    for s_group, t_group in zip(s_state["param_groups"], t_state["param_groups"], strict=True):
        assert set(s_group) <= set(t_group)
        for key in set(s_group) - {"params"}:
            assert s_group[key] == pytest.approx(t_group[key], rel=1e-12), key


def test_adadelta_resumes_from_its_state_dict() -> None:
    theirs, _ = run("adadelta-wd", "torch", False, steps=STEPS)
    first, opt = run("adadelta-wd", "sparrow", False, steps=30)
    params, optim, tensor = framework("sparrow")
    for p, value in zip(params, [first[-1][:12].reshape(3, 4), first[-1][12:16], first[-1][16:]]):
        p.data[...] = value
    resumed = optim.Adadelta(params, weight_decay=0.05)
    resumed.load_state_dict(opt.state_dict())
    for t in range(30, STEPS):
        for i, p in enumerate(params):
            p.grad = None if (i == 2 and t % 3 == 0) else tensor(gradient(numpy(p), t))
        resumed.step()
    got = np.concatenate([numpy(p).ravel() for p in params])
    np.testing.assert_allclose(got, theirs[-1], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"lr": -1.0}, "Invalid learning rate: -1.0"),
        ({"rho": 1.5}, "Invalid rho value: 1.5"),
        ({"eps": -1e-6}, "Invalid epsilon value: -1e-06"),
        ({"weight_decay": -0.1}, "Invalid weight_decay value: -0.1"),
    ],
)
def test_adadelta_refuses_bad_options(kwargs: dict, message: str) -> None:
    for lib in ("torch", "sparrow"):
        params, optim, _ = framework(lib)
        with pytest.raises(ValueError) as error:
            optim.Adadelta(params, **kwargs)
        assert str(error.value) == message


# -- ReduceLROnPlateau ---------------------------------------------------------------------------

# a loss that falls, stalls (with tiny improvements under the relative threshold), falls again
METRICS = [
    1.0, 0.8, 0.7, 0.7, 0.69999, 0.71, 0.7, 0.7, 0.5, 0.5, 0.5, 0.5, 0.5, 0.49, 0.6, 0.6,
    0.6, 0.6, 0.6, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3,
    *[0.3] * 12, 0.2, 0.25,
]  # fmt: skip
PLATEAUS = {
    "default": {},
    "patience-2": {"patience": 2},
    "factor-cooldown": {"factor": 0.5, "patience": 1, "cooldown": 2},
    "abs": {"patience": 1, "threshold": 0.05, "threshold_mode": "abs"},
    "max": {"mode": "max", "patience": 1},
    "max-abs": {"mode": "max", "patience": 0, "threshold": 0.1, "threshold_mode": "abs"},
    "min-lr": {"patience": 0, "factor": 0.5, "min_lr": 0.02},
    "min-lr-per-group": {"patience": 0, "factor": 0.3, "min_lr": [0.05, 0.001]},
    "eps": {"patience": 0, "factor": 0.5, "eps": 0.01},
}


def plateau(lib: str, name: str):
    params, optim, _ = framework(lib)
    opt = optim.SGD([{"params": params[:1], "lr": 0.2}, {"params": params[1:]}], lr=0.1)
    return opt, optim.lr_scheduler.ReduceLROnPlateau(opt, **PLATEAUS[name])


def trace(sched) -> tuple:
    return (
        sched.get_last_lr(),
        [g["lr"] for g in sched.optimizer.param_groups],
        sched.num_bad_epochs,
        sched.cooldown_counter,
        sched.best,
        sched.last_epoch,
    )


@pytest.mark.parametrize("name", PLATEAUS)
def test_reduce_lr_on_plateau_follows_pytorch(name: str) -> None:
    (_, theirs), (_, ours) = plateau("torch", name), plateau("sparrow", name)
    assert trace(ours) == trace(theirs)
    reductions = 0
    for i, metric in enumerate(METRICS):
        before = ours.get_last_lr()
        theirs.step(torch.tensor(metric) if i % 2 else metric)
        ours.step(sp.tensor(metric, dtype=sp.float64) if i % 2 else metric)
        got, want = trace(ours), trace(theirs)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-15)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-15)
        assert got[2:] == want[2:], (i, got, want)
        reductions += ours.get_last_lr() != before
    assert reductions > 0  # every configuration cuts the rate at least once


def test_reduce_lr_on_plateau_state_dict_resumes() -> None:
    (_, theirs), (_, ours) = (
        plateau("torch", "factor-cooldown"),
        plateau("sparrow", "factor-cooldown"),
    )
    for metric in METRICS[:9]:
        theirs.step(metric)
        ours.step(metric)
    saved = ours.state_dict()
    assert "optimizer" not in saved
    assert set(saved) == set(theirs.state_dict())
    opt, resumed = plateau("sparrow", "default")  # other options: the saved ones replace them
    for group, lr in zip(opt.param_groups, ours.get_last_lr()):
        group["lr"] = lr
    resumed.load_state_dict(saved)
    for metric in METRICS[9:]:
        theirs.step(metric)
        resumed.step(metric)
        assert trace(resumed)[:5] == trace(theirs)[:5]


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"factor": 1.0}, ValueError),
        ({"mode": "lowest"}, ValueError),
        ({"threshold_mode": "ratio"}, ValueError),
        ({"min_lr": [0.1]}, ValueError),
    ],
)
def test_reduce_lr_on_plateau_refuses_bad_options(kwargs: dict, error: type) -> None:
    messages = []
    for lib in ("torch", "sparrow"):
        params, optim, _ = framework(lib)
        opt = optim.SGD([{"params": params[:1]}, {"params": params[1:]}], lr=0.1)
        with pytest.raises(error) as raised:
            optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
        messages.append(str(raised.value))
    assert messages[0] == messages[1]


def test_reduce_lr_on_plateau_takes_a_nan_as_not_better() -> None:
    (_, theirs), (_, ours) = plateau("torch", "patience-2"), plateau("sparrow", "patience-2")
    for metric in [1.0, math.nan, math.nan, math.nan, 0.5]:
        theirs.step(metric)
        ours.step(metric)
        assert trace(ours)[:4] == trace(theirs)[:4]

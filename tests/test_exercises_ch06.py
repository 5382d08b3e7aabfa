"""Chapter 6's exercises (course version 1.1) on the reference: 6.11 ``optim.TrainingStats``
against a NumPy forward pass and NumPy copies of the parameters taken here, 6.12
``optim.warmup_cosine`` against its formula written out here and against PyTorch's
``SequentialLR(LinearLR, CosineAnnealingLR)`` (skipped without torch), the capstone's
``warmup_cosine`` option, and the exercises' checks on the reference (every public and
hidden case passes, also with the stand-ins of the tasks they require)."""

from __future__ import annotations

import math
import shutil
import subprocess

import numpy as np
import pytest

from autograder.checks.ch06_optim import CHECKS
from autograder.checks.ch06_optim.exercises import pytorch_factor
from autograder.harness import wire
from autograder.harness.standin import rerun
from autograder.hidden.ch06_optim import CHECKS as HIDDEN
from solutions import ch06_optim as sp
from support import capstone
from tests.trees import REPO

nn, optim = sp.nn, sp.optim

# -- 6.11 TrainingStats ------------------------------------------------------------------------


def _model() -> nn.Module:
    sp.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 4), nn.Tanh(), nn.Linear(4, 2))


def _values(t) -> np.ndarray:
    return np.array(t.data, dtype=np.float64)


def _train(model, stats, steps: int = 4, lr: float = 0.5):
    """SGD steps on drawn data; what this test saw: the inputs, the weights before and after
    each step, the gradients."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(6, 3)) * 2
    y = rng.normal(size=(6, 2))
    opt = optim.SGD(model.parameters(), lr=lr)
    seen = {"params": [], "after": [], "grads": []}
    for _ in range(steps):
        seen["params"].append({n: _values(p) for n, p in model.named_parameters()})
        loss = (
            (model(sp.tensor(x, dtype=sp.float32)) - sp.tensor(y, dtype=sp.float32)) ** 2
        ).mean()
        opt.zero_grad()
        loss.backward()
        seen["grads"].append({n: _values(p.grad) for n, p in model.named_parameters()})
        stats.step(opt)
        seen["after"].append({n: _values(p) for n, p in model.named_parameters()})
    return x, seen


def _forward(x: np.ndarray, w: dict) -> list[np.ndarray]:
    """The two Tanh layers' outputs, by NumPy, from the weights before a step."""
    h1 = np.tanh(x @ w["0.weight"].T + w["0.bias"])
    h2 = np.tanh(h1 @ w["2.weight"].T + w["2.bias"])
    return [h1, h2]


def test_training_stats_records_what_numpy_computes() -> None:
    model = _model()
    stats = optim.TrainingStats(model)
    x, seen = _train(model, stats)
    stats.remove()
    assert list(stats.activations) == ["1", "3"]
    # biases of one element would have no spread: every parameter here has more
    assert list(stats.ratios) == list(stats.grads) == [n for n, _ in model.named_parameters()]
    for step, weights in enumerate(seen["params"]):
        for name, a in zip(("1", "3"), _forward(x, weights)):
            row = stats.activations[name][step]
            assert row["mean"] == pytest.approx(a.mean(), rel=1e-5, abs=1e-6)
            assert row["std"] == pytest.approx(a.std(), rel=1e-5)
            assert row["saturated"] == pytest.approx(np.mean(np.abs(a) > 0.97), abs=1e-6)
        for name in stats.ratios:
            before, after = seen["params"][step][name], seen["after"][step][name]
            want = math.log10(np.std(after - before) / np.std(before))
            assert stats.ratios[name][step] == pytest.approx(want, abs=1e-5)
            assert stats.grads[name][step] == pytest.approx(np.std(seen["grads"][step][name]))
    # the large inputs saturate some of the first layer's units: the fraction is not 0
    assert max(r["saturated"] for r in stats.activations["1"]) > 0


def test_training_stats_skip_single_numbers_and_watch_what_they_are_told() -> None:
    sp.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 1), nn.ReLU())
    stats = optim.TrainingStats(model, watch=(nn.ReLU,))
    assert list(stats.ratios) == ["0.weight"] and list(stats.activations) == ["1"]
    stats.remove()


def _hooks(model) -> int:
    return sum(len(m._forward_hooks) for _, m in model.named_modules())


def test_training_stats_leave_no_hook_behind() -> None:
    model = _model()
    stats = optim.TrainingStats(model)
    assert _hooks(model) == 2
    stats.remove()
    assert _hooks(model) == 0
    model(sp.randn(2, 3))
    assert stats.activations == {"1": [], "3": []}
    with optim.TrainingStats(model) as stats:
        assert _hooks(model) == 2
    assert _hooks(model) == 0


def test_training_stats_step_once_and_return_the_closures_loss() -> None:
    model = _model()
    opt = optim.SGD(model.parameters(), lr=0.1)
    x = sp.randn(4, 3)
    calls = []

    def closure():
        calls.append(1)
        opt.zero_grad()
        loss = (model(x) ** 2).mean()
        loss.backward()
        return loss

    closure()
    with optim.TrainingStats(model) as stats:
        loss = stats.step(opt, closure)
    assert len(calls) == 2 and loss.item() > 0
    assert all(len(v) == 1 for v in stats.ratios.values())


# -- 6.12 warmup_cosine ------------------------------------------------------------------------


def _formula(warmup: int, total: int, start: float, low: float, t: int) -> float:
    if t < warmup:
        return start + (1 - start) * t / warmup
    if t >= total:
        return low
    return low + (1 - low) * 0.5 * (1 + math.cos(math.pi * (t - warmup) / (total - warmup)))


@pytest.mark.parametrize(
    ("warmup", "total", "start", "low"),
    [(4, 12, 0.1, 0.2), (0, 8, 0.1, 0.0), (1, 2, 0.5, 0.5), (10, 100, 0.0, 0.01)],
)
def test_warmup_cosine_is_its_formula(warmup, total, start, low) -> None:
    f = optim.warmup_cosine(warmup, total, start, low)
    for t in range(total + 5):
        assert f(t) == pytest.approx(_formula(warmup, total, start, low, t), abs=1e-12)
        # the checks' PyTorch closed forms agree with the formula written here
        assert pytorch_factor(warmup, total, start, low, t) == pytest.approx(f(t), abs=1e-12)
    # the pieces meet: 1 where the warm-up ends, min_factor at total
    assert f(warmup) == pytest.approx(1.0) and f(total) == pytest.approx(low)


@pytest.mark.parametrize(
    ("warmup", "total", "start", "low"),
    [(5, 5, 0.1, 0), (-1, 5, 0.1, 0), (1, 5, 1.5, 0), (1, 5, 0.1, -0.1)],
)
def test_warmup_cosine_refuses_what_has_no_schedule(warmup, total, start, low) -> None:
    with pytest.raises(ValueError):
        optim.warmup_cosine(warmup, total, start, low)


def test_warmup_cosine_matches_pytorchs_sequential_lr() -> None:
    torch = pytest.importorskip("torch")
    warmup, total, start, low, base = 5, 20, 0.2, 0.1, 0.3
    p = torch.zeros(2, requires_grad=True)
    opt = torch.optim.SGD([p], lr=base)
    sched = torch.optim.lr_scheduler.SequentialLR(
        opt,
        [
            torch.optim.lr_scheduler.LinearLR(opt, start, 1.0, total_iters=warmup),
            torch.optim.lr_scheduler.CosineAnnealingLR(opt, total - warmup, eta_min=low * base),
        ],
        milestones=[warmup],
    )
    f = optim.warmup_cosine(warmup, total, start, low)
    for t in range(total + 1):
        assert opt.param_groups[0]["lr"] == pytest.approx(base * f(t), abs=1e-9), t
        opt.step()
        sched.step()


def test_the_capstone_trains_with_warmup_cosine() -> None:
    h = capstone.train(sp, scheduler="warmup_cosine", epochs=2, n_train=256, progress=False)
    total = len(h.lrs)  # 4 steps an epoch
    f = optim.warmup_cosine(capstone.warmup_steps(total), total)
    assert h.scheduler == "warmup_cosine" and total == 8
    assert h.lrs == pytest.approx([1e-3 * f(t) for t in range(total)])
    assert "(adam, warmup_cosine, seed 0)" in capstone.summary(h)


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_capstone_passes_the_schedule() -> None:
    out = subprocess.run(
        ["make", "-n", "capstone", "PYTHON=python", "SCHEDULE=warmup_cosine"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "--scheduler warmup_cosine" in out.stdout, out.stdout + out.stderr


# -- the exercises' checks on the reference ----------------------------------------------------

EXERCISE_CHECKS = [c for c in [*CHECKS, *HIDDEN] if c.task in ("6.11", "6.12")]


@pytest.mark.parametrize("check", EXERCISE_CHECKS, ids=lambda c: c.id)
def test_the_reference_passes_every_case(check) -> None:
    program = f"{check.program.__module__}:{check.program.__name__}"
    standins = "autograder.checks.ch06_optim.standins"
    for tasks in ([], list(check.requires)):
        for case in check.make_cases(0):
            inputs = wire.loads(wire.dumps(dict(case.inputs)))
            got = wire.loads(wire.dumps(rerun(sp, standins, program, tasks, inputs)))
            assert check.verdict(case, got) is None, (case.label, tasks)


def test_the_exercises_are_version_1_1() -> None:
    assert EXERCISE_CHECKS and all(c.since == "1.1" for c in EXERCISE_CHECKS)
    assert {c.task for c in CHECKS if c.since == "1.1"} >= {"6.11", "6.12"}

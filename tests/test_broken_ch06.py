"""Deliberately broken chapter-6 code: plausible student bugs in the param groups, zero_grad,
the update rules, state_dict, the schedules, OneCycleLR and clipping. Each must fail the
task it breaks and no other (a check that runs the broken task may report "blocked by" it);
unusual but correct rewrites score every point; the reference scores 100 and fresh stubs 0
with every task "not started"; each stand-in fails its own task and is enough for the
checks that lean on it; a check requires only earlier tasks."""

from __future__ import annotations

import inspect
import textwrap
from pathlib import Path

import pytest

from autograder import report
from autograder.status import Status
from tests.trees import (
    SOLUTIONS,
    assert_fails_its_task_only,
    check_variants,
    copy_package,
    replace_region,
    run_chapter,
    write_stubs,
)

PACKAGE = "ch06_optim"
OPT, SGD, ADAGRAD = "optim/optimizer.py", "optim/sgd.py", "optim/adagrad.py"
RMS, ADAM, SCHED = "optim/rmsprop.py", "optim/adam.py", "optim/lr_scheduler.py"
CYCLE, CLIP = "optim/one_cycle.py", "nn/utils/clip_grad.py"


def edits(file: str, *pairs: tuple[str, str]) -> tuple[str, str]:
    """Several one-place edits of the reference's ``file`` as one edit (see test_broken_ch04)."""
    text = (SOLUTIONS / PACKAGE / file).read_text()
    new = text
    for old, replacement in pairs:
        assert new.count(old) == 1, old
        new = new.replace(old, replacement)
    return text, new


ZERO_GRAD = "                    p.grad = Tensor._from_array(array_module(g).zeros_like(g))\n"
DECAY = "                if weight_decay != 0:\n                    g = g + weight_decay * p.data\n"
ADAM_BIAS = "                step_size = lr / (1 - beta1**t)\n"
ADAM_DENOM = "                denom = xp.sqrt(v) / math.sqrt(1 - beta2**t) + eps\n"

VARIANTS = [
    # -- 6.1 --------------------------------------------------------------------------------
    (
        "add_param_group overwrites a group's options with the defaults",
        OPT,
        ("            group.setdefault(name, default)", "            group[name] = default"),
        "6.1",
    ),
    (
        "zero_grad writes zeros into the old gradient",
        OPT,
        (ZERO_GRAD, "                    p.grad.data[...] = 0\n"),
        "6.1",
    ),
    (
        "zero_grad as g * 0 (an inf gives nan)",
        OPT,
        (ZERO_GRAD, "                    p.grad = Tensor._from_array(g * 0)\n"),
        "6.1",
    ),
    (
        "zero_grad leaves stale gradients",
        OPT,
        ("                    p.grad = None\n", "                    pass\n"),
        "6.1",
    ),
    (
        "zero_grad's zeros in float64",
        OPT,
        (
            ZERO_GRAD,
            "                    p.grad = Tensor._from_array(array_module(g).zeros(g.shape))\n",
        ),
        "6.1",
    ),
    # -- 6.2 --------------------------------------------------------------------------------
    (
        "SGD's momentum buffer recreated each step",
        SGD,
        (
            '                    buffer = state.get("momentum_buffer")',
            "                    buffer = None",
        ),
        "6.2",
    ),
    (
        "SGD's weight decay applied after the update",
        SGD,
        edits(
            SGD,
            (DECAY, ""),
            (
                "                p.data -= lr * g\n",
                "                p.data -= lr * g\n                p.data -= lr * "
                "weight_decay * p.data\n",
            ),
        ),
        "6.2",
    ),
    (
        "SGD's nesterov look-ahead missing",
        SGD,
        ("g = g + momentum * buffer.data if nesterov else buffer.data", "g = buffer.data"),
        "6.2",
    ),
    (
        "SGD ignores dampening",
        SGD,
        ("buffer.data += (1 - dampening) * g", "buffer.data += g"),
        "6.2",
    ),
    (
        "SGD dampens the first step's buffer",
        SGD,
        (
            "buffer = Tensor._from_array(g.copy())",
            "buffer = Tensor._from_array((1 - dampening) * g)",
        ),
        "6.2",
    ),
    (
        "SGD ignores a param group's options",
        SGD,
        edits(
            SGD,
            (
                'lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]',
                "lr, momentum, dampening = "
                '(self.defaults[k] for k in ("lr", "momentum", "dampening"))',
            ),
            (
                'weight_decay, nesterov = group["weight_decay"], group["nesterov"]',
                'weight_decay, nesterov = self.defaults["weight_decay"], self.defaults["nesterov"]',
            ),
        ),
        "6.2",
    ),
    (
        "SGD adds the weight decay into p.grad",
        SGD,
        ("g = g + weight_decay * p.data", "g += weight_decay * p.data"),
        "6.2",
    ),
    (
        "SGD's buffer is the gradient's array",
        SGD,
        ("buffer = Tensor._from_array(g.copy())", "buffer = Tensor._from_array(g)"),
        "6.2",
    ),
    (
        "SGD's step records a graph",
        SGD,
        (
            "                p.data -= lr * g\n",
            "                p.data = (p - Tensor._from_array(lr * g)).data\n",
        ),
        "6.2",
    ),
    # -- 6.3 --------------------------------------------------------------------------------
    (
        "Adagrad's lr decay counts from 1",
        ADAGRAD,
        ('(state["step"] - 1) * lr_decay', 'state["step"] * lr_decay'),
        "6.3",
    ),
    (
        "Adagrad's eps inside the root",
        ADAGRAD,
        ("(array_module(s).sqrt(s) + eps)", "array_module(s).sqrt(s + eps)"),
        "6.3",
    ),
    (
        "Adagrad's sum not kept",
        ADAGRAD,
        ("                s += g * g\n", "                s = s + g * g\n"),
        "6.3",
    ),
    # -- 6.4 --------------------------------------------------------------------------------
    (
        "RMSprop centered without the mean's square",
        RMS,
        ("r = xp.sqrt(v - a * a) + eps", "r = xp.sqrt(v) + eps"),
        "6.4",
    ),
    (
        "RMSprop's eps inside the root",
        RMS,
        (
            "                    r = xp.sqrt(v) + eps\n",
            "                    r = xp.sqrt(v + eps)\n",
        ),
        "6.4",
    ),
    (
        "RMSprop's alpha swapped",
        RMS,
        edits(
            RMS,
            ("                v *= alpha\n", "                v *= 1 - alpha\n"),
            ("v += (1 - alpha) * (g * g)", "v += alpha * (g * g)"),
        ),
        "6.4",
    ),
    (
        "RMSprop's momentum buffer scaled by lr inside",
        RMS,
        ("                    b += g / r\n", "                    b += lr * g / r\n"),
        "6.4",
    ),
    # -- 6.5 --------------------------------------------------------------------------------
    (
        "Adam without bias correction",
        ADAM,
        edits(
            ADAM,
            (ADAM_BIAS, "                step_size = lr\n"),
            (ADAM_DENOM, "                denom = xp.sqrt(v) + eps\n"),
        ),
        "6.5",
    ),
    (
        "Adam's bias correction with the wrong step count",
        ADAM,
        ('                t = state["step"]\n', '                t = state["step"] + 1\n'),
        "6.5",
    ),
    (
        "Adam's first moment with beta2",
        ADAM,
        ("m += (g - m) * (1 - beta1)", "m += (g - m) * (1 - beta2)"),
        "6.5",
    ),
    ("Adam's amsgrad maximum unused", ADAM, ("                    v = v_max\n", ""), "6.5"),
    (
        "Adam adds the decay itself, not through _weight_decay",
        ADAM,
        (
            "                g = self._weight_decay(p, g, group)\n",
            '                g = g + group["weight_decay"] * p.data\n',
        ),
        "6.5",
    ),
    # -- 6.6 --------------------------------------------------------------------------------
    (
        "AdamW's decay coupled like Adam's",
        ADAM,
        ("region", 'return g + group["weight_decay"] * p.data'),
        "6.6",
    ),
    (
        "AdamW's decay without the learning rate",
        ADAM,
        (
            'p.data *= 1 - group["lr"] * group["weight_decay"]',
            'p.data *= 1 - group["weight_decay"]',
        ),
        "6.6",
    ),
    (
        "AdamW's decay from the defaults",
        ADAM,
        (
            'p.data *= 1 - group["lr"] * group["weight_decay"]',
            'p.data *= 1 - group["lr"] * self.defaults["weight_decay"]',
        ),
        "6.6",
    ),
    # -- 6.7 --------------------------------------------------------------------------------
    (
        "load_state_dict loses the step count",
        OPT,
        ('value if name == "step" else', '0 if name == "step" else'),
        "6.7",
    ),
    (
        "state_dict shares the state tensors",
        OPT,
        ("{name: _copy(value) for name, value in values.items()}", "dict(values)"),
        "6.7",
    ),
    ("load_state_dict does not cast", OPT, ("_copy(value, like=p)", "_copy(value)"), "6.7"),
    (
        "load_state_dict keeps the current options",
        OPT,
        (
            '**copy.deepcopy({k: v for k, v in saved.items() if k != "params"}),',
            '**{k: v for k, v in group.items() if k != "params"},',
        ),
        "6.7",
    ),
    (
        "load_state_dict checks only the number of groups",
        OPT,
        (
            'if any(len(g["params"]) != len(s["params"])',
            'if False and any(len(g["params"]) != len(s["params"])',
        ),
        "6.7",
    ),
    (
        "state_dict numbers each group from 0",
        OPT,
        (
            '            packed["params"] = [index[id(p)] for p in group["params"]]',
            '            packed["params"] = list(range(len(group["params"])))',
        ),
        "6.7",
    ),
    # -- 6.8 --------------------------------------------------------------------------------
    (
        "StepLR one epoch ahead",
        SCHED,
        (
            "self.gamma ** (self.last_epoch // self.step_size)",
            "self.gamma ** ((self.last_epoch + 1) // self.step_size)",
        ),
        "6.8",
    ),
    (
        "MultiStepLR with bisect_left",
        SCHED,
        ("bisect.bisect_right(self.milestones", "bisect.bisect_left(self.milestones"),
        "6.8",
    ),
    (
        "MultiStepLR counts a repeated milestone once",
        SCHED,
        ("bisect.bisect_right(self.milestones", "bisect.bisect_right(sorted(set(self.milestones))"),
        "6.8",
    ),
    (
        "CosineAnnealingLR one step ahead",
        SCHED,
        ("math.pi * self.last_epoch / self.T_max", "math.pi * (self.last_epoch + 1) / self.T_max"),
        "6.8",
    ),
    (
        "LambdaLR uses the first function for every group",
        SCHED,
        (
            "zip(self.base_lrs, self.lr_lambdas)",
            "zip(self.base_lrs, self.lr_lambdas[:1] * len(self.base_lrs))",
        ),
        "6.8",
    ),
    (
        "ExponentialLR from the current lr",
        SCHED,
        (
            "return [base * self.gamma**self.last_epoch for base in self.base_lrs]",
            'return [g["lr"] * self.gamma for g in self.optimizer.param_groups]',
        ),
        "6.8",
    ),
    (
        "SGD's momentum buffer started at zeros",
        SGD,
        (
            "                        buffer = Tensor._from_array(g.copy())\n"
            '                        state["momentum_buffer"] = buffer\n'
            "                    else:\n",
            "                        buffer = Tensor._from_array(g * 0)\n"
            '                        state["momentum_buffer"] = buffer\n'
            "                    if True:\n",
        ),
        "6.2",
    ),
    (
        "RMSprop with eps inside the square root",
        RMS,
        ("r = xp.sqrt(v) + eps\n", "r = xp.sqrt(v + eps)\n"),
        "6.4",
    ),
    (
        "Adam with eps inside the square root",
        ADAM,
        (ADAM_DENOM, "                denom = xp.sqrt(v / (1 - beta2**t) + eps)\n"),
        "6.5",
    ),
    # -- 6.9 --------------------------------------------------------------------------------
    (
        "OneCycleLR does not cycle beta1",
        CYCLE,
        ("_set_momentum(group, momentum, self.use_beta1)", "_set_momentum(group, momentum, False)"),
        "6.9",
    ),
    (
        "OneCycleLR's fraction one step short",
        CYCLE,
        (
            "pct = (t - start_step) / (end_step - start_step)",
            "pct = (t - start_step) / (end_step - start_step + 1)",
        ),
        "6.9",
    ),
    (
        "OneCycleLR uses the first group's lrs",
        CYCLE,
        (
            "group[lr0], group[lr1], pct)",
            "self.optimizer.param_groups[0][lr0], self.optimizer.param_groups[0][lr1], pct)",
        ),
        "6.9",
    ),
    (
        "OneCycleLR never moves start_step",
        CYCLE,
        ("                start_step = end_step\n", ""),
        "6.9",
    ),
    (
        "OneCycleLR's fraction from step 0",
        CYCLE,
        ("pct = (t - start_step) / (end_step - start_step)", "pct = t / end_step"),
        "6.9",
    ),
    # -- 6.10 -------------------------------------------------------------------------------
    (
        "clip_grad_norm_ clips each gradient by its own norm",
        CLIP,
        edits(
            CLIP,
            (
                "    for p, g in zip(params, grads):\n",
                "    for p, g, n in zip(params, grads, norms):\n",
            ),
            (
                "p.grad = Tensor._from_array(g * coef.astype(g.dtype))",
                "own = xp.minimum(max_norm / (n + 1e-6), 1.0)\n"
                "        p.grad = Tensor._from_array(g * own.astype(g.dtype))",
            ),
        ),
        "6.10",
    ),
    (
        "clip_grad_norm_ clamps with Python's min",
        CLIP,
        (
            "coef = xp.minimum(max_norm / (total + 1e-6), 1.0)",
            "coef = xp.asarray(min(1.0, max_norm / (total + 1e-6)))",
        ),
        "6.10",
    ),
    (
        "clip_grad_norm_ sums the per-tensor norms",
        CLIP,
        (
            "total = (xp.stack(norms) ** norm_type).sum() ** (1.0 / norm_type)",
            "total = xp.stack(norms).sum()",
        ),
        "6.10",
    ),
    (
        "clip_grad_norm_ always by the 2-norm",
        CLIP,
        (
            "norms = [(xp.abs(g) ** norm_type).sum() ** (1.0 / norm_type) for g in grads]",
            "norms = [(xp.abs(g) ** 2).sum() ** 0.5 for g in grads]\n        norm_type = 2.0",
        ),
        "6.10",
    ),
    (
        "clip_grad_norm_'s coefficient not clamped",
        CLIP,
        (
            "coef = xp.minimum(max_norm / (total + 1e-6), 1.0)",
            "coef = xp.asarray(max_norm / (total + 1e-6))",
        ),
        "6.10",
    ),
    (
        "clip_grad_norm_ scales in place",
        CLIP,
        (
            "p.grad = Tensor._from_array(g * coef.astype(g.dtype))",
            "p.grad.data *= coef.astype(g.dtype)",
        ),
        "6.10",
    ),
    (
        "clip_grad_norm_ in float64",
        CLIP,
        ("g * coef.astype(g.dtype)", "g * coef.astype(xp.float64)"),
        "6.10",
    ),
    (
        "clip_grad_norm_ returns a float",
        CLIP,
        ("    return Tensor._from_array(total)\n", "    return float(total)\n"),
        "6.10",
    ),
    (
        "clip_grad_norm_ ignores error_if_nonfinite",
        CLIP,
        (
            "if error_if_nonfinite and not bool(xp.isfinite(total)):",
            "if error_if_nonfinite and bool(xp.isnan(total)):",
        ),
        "6.10",
    ),
    (
        "clip_grad_value_ clips in place",
        CLIP,
        (
            "p.grad = Tensor._from_array(array_module(g).clip(g, -clip_value, clip_value))",
            "array_module(g).clip(g, -clip_value, clip_value, out=g)",
        ),
        "6.10",
    ),
]

ADD_PARAM_GROUP_WITH_IDS = """
if isinstance(params, (set, frozenset)):
    raise TypeError("a set's order changes between runs: give a list")
params = [params] if isinstance(params, Tensor) else [p for p in params]
if not all(isinstance(p, Tensor) for p in params):
    raise TypeError("optimizer can only optimize Tensors")
if any(p.grad_fn is not None for p in params):
    raise ValueError("can't optimize a non-leaf Tensor")
missing = [k for k, v in self.defaults.items() if v is required and k not in param_group]
if missing:
    raise ValueError(f"parameter group didn't specify a value of {missing[0]}")
for other in self.param_groups:
    if any(p is q for p in params for q in other["params"]):
        raise ValueError("some parameters appear in more than one parameter group")
self.param_groups.append({**self.defaults, **param_group, "params": params})
"""

SGD_WITH_SLICES = """
if weight_decay:
    g = weight_decay * p.data + g
if momentum:
    if "momentum_buffer" not in self.state[p]:
        self.state[p]["momentum_buffer"] = Tensor._from_array(g * 1.0)
    else:
        b = self.state[p]["momentum_buffer"]
        b.data[...] = momentum * b.data + (1 - dampening) * g
    b = self.state[p]["momentum_buffer"].data
    g = g + momentum * b if nesterov else b
p.data[...] = p.data - lr * g
"""

SGD_ON_TENSORS_UNDER_NO_GRAD = """
from ...ch04_backward.grad_mode import no_grad

with no_grad():
    d = p.grad
    if weight_decay != 0:
        d = d + weight_decay * p
    if momentum != 0:
        buffer = self.state[p].get("momentum_buffer")
        buffer = d * 1.0 if buffer is None else momentum * buffer + (1 - dampening) * d
        self.state[p]["momentum_buffer"] = buffer
        d = d + momentum * buffer if nesterov else buffer
    p.data -= (lr * d).data
"""

ADAM_AS_PYTORCH_WRITES_IT = """
if len(state) == 0:
    state["step"] = 0
    state["exp_avg"] = zeros_like(p)
    state["exp_avg_sq"] = zeros_like(p)
    if amsgrad:
        state["max_exp_avg_sq"] = zeros_like(p)
state["step"] = t = state["step"] + 1
g = self._weight_decay(p, g, group)
xp = array_module(g)
m, v = state["exp_avg"].data, state["exp_avg_sq"].data
m *= beta1
m += (1 - beta1) * g
v *= beta2
v += (1 - beta2) * g * g
if amsgrad:
    state["max_exp_avg_sq"].data[...] = xp.maximum(state["max_exp_avg_sq"].data, v)
    v = state["max_exp_avg_sq"].data
bias1, bias2 = 1 - beta1**t, 1 - beta2**t
step_size = lr * math.sqrt(bias2) / bias1
p.data -= step_size * m / (xp.sqrt(v) + eps * math.sqrt(bias2))
"""

STATE_DICT_WITH_A_COUNTER = """
import itertools

order = {}
for p in itertools.chain.from_iterable(g["params"] for g in self.param_groups):
    if id(p) not in order:
        order[id(p)] = len(order)
groups = [
    {**{k: v for k, v in g.items() if k != "params"}, "params": [order[id(p)] for p in g["params"]]}
    for g in self.param_groups
]
state = {}
for p, values in self.state.items():
    state[order[id(p)]] = {
        k: Tensor._from_array(v.data.copy()) if isinstance(v, Tensor) else v
        for k, v in values.items()
    }
return {"state": state, "param_groups": groups}
"""

ONE_CYCLE_WITH_A_WHILE = """
for group in self.optimizer.param_groups:
    phases = self._schedule_phases
    i, start_step = 0, 0.0
    while i < len(phases) - 1 and t > phases[i][0]:
        start_step = phases[i][0]
        i += 1
    end_step, lr0, lr1, m0, m1 = phases[i]
    pct = (t - start_step) / (end_step - start_step)
    lrs.append(_anneal(self.anneal_strategy, group[lr0], group[lr1], pct))
    if self.cycle_momentum:
        momentum = _anneal(self.anneal_strategy, group[m0], group[m1], pct)
        _set_momentum(group, momentum, self.use_beta1)
"""

CLIP_BY_CONCATENATION = """
import numpy as np

grads = [p.grad.data for p in params]
flat = np.concatenate([g.ravel() for g in grads])
total = np.abs(flat).max() if norm_type == math.inf else np.linalg.norm(flat, ord=norm_type)
total = np.asarray(total, dtype=grads[0].dtype)
if error_if_nonfinite and not np.isfinite(total):
    raise RuntimeError("the total norm is non-finite")
coef = float(np.minimum(max_norm / (total + 1e-6), 1.0))
for p, g in zip(params, grads):
    p.grad = Tensor._from_array((g * coef).astype(g.dtype))
return Tensor._from_array(total)
"""

CORRECT = [
    (
        "add_param_group with identity tests and one dict",
        OPT,
        ("region", ADD_PARAM_GROUP_WITH_IDS),
        "6.1",
    ),
    (
        "zero_grad with full(shape, 0.0)",
        OPT,
        (
            ZERO_GRAD,
            "                    p.grad = Tensor._from_array(array_module(g).full(g.shape, "
            "0.0, dtype=g.dtype))\n",
        ),
        "6.1",
    ),
    ("SGD with slice assignment", SGD, ("region", SGD_WITH_SLICES), "6.2"),
    ("SGD on Tensors under no_grad", SGD, ("region", SGD_ON_TENSORS_UNDER_NO_GRAD), "6.2"),
    (
        "Adagrad's decay written out",
        ADAGRAD,
        (
            'clr = lr / (1 + (state["step"] - 1) * lr_decay)',
            'clr = lr / (1 + state["step"] * lr_decay - lr_decay)',
        ),
        "6.3",
    ),
    (
        "RMSprop's averages as a *= α; a += (1 − α)g",
        RMS,
        (
            "                    a += (g - a) * (1 - alpha)\n",
            "                    a *= alpha\n                    a += (1 - alpha) * g\n",
        ),
        "6.4",
    ),
    ("Adam as PyTorch writes it (eps scaled)", ADAM, ("region", ADAM_AS_PYTORCH_WRITES_IT), "6.5"),
    (
        "AdamW's decay subtracted",
        ADAM,
        (
            'p.data *= 1 - group["lr"] * group["weight_decay"]',
            'p.data -= group["lr"] * group["weight_decay"] * p.data',
        ),
        "6.6",
    ),
    ("state_dict with itertools and a counter", OPT, ("region", STATE_DICT_WITH_A_COUNTER), "6.7"),
    (
        "StepLR with math.floor",
        SCHED,
        (
            "self.gamma ** (self.last_epoch // self.step_size)",
            "self.gamma ** math.floor(self.last_epoch / self.step_size)",
        ),
        "6.8",
    ),
    (
        "MultiStepLR by counting",
        SCHED,
        (
            "self.gamma ** bisect.bisect_right(self.milestones, self.last_epoch)",
            "self.gamma ** sum(1 for m in self.milestones if m <= self.last_epoch)",
        ),
        "6.8",
    ),
    ("OneCycleLR with a while loop", CYCLE, ("region", ONE_CYCLE_WITH_A_WHILE), "6.9"),
    (
        "clip_grad_norm_ over the concatenated gradients",
        CLIP,
        ("region", CLIP_BY_CONCATENATION),
        "6.10",
    ),
    (
        "clip_grad_norm_'s coefficient by np.clip",
        CLIP,
        (
            "coef = xp.minimum(max_norm / (total + 1e-6), 1.0)",
            "coef = xp.asarray(xp.clip(max_norm / (total + 1e-6), None, 1.0))",
        ),
        "6.10",
    ),
    (
        "clip_grad_value_ with minimum and maximum",
        CLIP,
        (
            "p.grad = Tensor._from_array(array_module(g).clip(g, -clip_value, clip_value))",
            "xp = array_module(g)\n        p.grad = "
            "Tensor._from_array(xp.minimum(xp.maximum(g, -clip_value), clip_value))",
        ),
        "6.10",
    ),
]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return check_variants(6, VARIANTS + CORRECT, tmp_path_factory.mktemp("variants"))


def test_there_are_enough_variants() -> None:
    assert len(VARIANTS) >= 30 and len(CORRECT) >= 8
    assert {task for *_, task in VARIANTS} == {f"6.{k}" for k in range(1, 11)}


@pytest.mark.parametrize(("name", "file", "edit", "task"), VARIANTS, ids=[v[0] for v in VARIANTS])
def test_variant_fails_its_task_only(
    outcomes: dict, name: str, file: str, edit: tuple, task: str
) -> None:
    assert_fails_its_task_only(outcomes[name], task)


@pytest.mark.parametrize(("name", "file", "edit", "task"), CORRECT, ids=[v[0] for v in CORRECT])
def test_unusual_but_correct_code_passes(
    outcomes: dict, name: str, file: str, edit: tuple, task: str
) -> None:
    result = outcomes[name]
    assert result.passed and result.points == 100, report.chapter_report(result)


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("Adam without bias correction", "not bias-corrected"),
        ("Adam's amsgrad maximum unused", "not by the largest v so far"),
        ("Adam's bias correction with the wrong step count", "wrong step count"),
        ("SGD's momentum buffer recreated each step", "made anew at every step"),
        ("SGD's weight decay applied after the update", "applied after the update"),
        ("SGD's nesterov look-ahead missing", "steps with the buffer alone"),
        ("AdamW's decay coupled like Adam's", "Adam's coupled decay"),
        ("SGD ignores a param group's options", "group's own options are ignored"),
        ("SGD's step records a graph", "graph nodes"),
        ("SGD adds the weight decay into p.grad", "never change p.grad"),
        ("zero_grad writes zeros into the old gradient", "wrote into the old gradient"),
        ("StepLR one epoch ahead", "one step ahead"),
        ("OneCycleLR does not cycle beta1", "never cycled"),
        ("clip_grad_norm_ always by the 2-norm", "that is the 2.0-norm"),
        ("load_state_dict loses the step count", "keep the step count"),
        ("state_dict shares the state tensors", "copy the state tensors"),
        ("Adam adds the decay itself, not through _weight_decay", "self._weight_decay"),
        ("clip_grad_norm_ clips each gradient by its own norm", "the total norm is over all"),
        ("clip_grad_norm_ clamps with Python's min", "Python's min(1.0, nan) is 1.0"),
        ("RMSprop with eps inside the square root", "not √(v + ε)"),
        ("RMSprop with eps inside the square root", "largest difference"),
        ("Adam with eps inside the square root", "not √(v + ε)"),
        ("OneCycleLR's fraction from step 0", "counts from the phase's start"),
        ("OneCycleLR's fraction from step 0", "lr of group 0 at t ="),
        ("SGD's momentum buffer started at zeros", "a copy of g at the first step, undampened"),
    ],
)
def test_the_message_names_the_mistake(outcomes: dict, name: str, says: str) -> None:
    text = report.chapter_report(outcomes[name])
    assert says in " ".join(text.split()), text


def test_the_reference_scores_100_and_fresh_stubs_0(tmp_path: Path) -> None:
    """Fresh stubs earn nothing and every task is "not started" (no check meets another
    task's stub first without a stand-in to get past it)."""
    result = run_chapter(6, SOLUTIONS / PACKAGE)
    assert result.passed and result.points == 100, report.chapter_report(result)
    stubs = write_stubs(tmp_path) / PACKAGE
    result = run_chapter(6, stubs)
    assert result.points == 0, report.chapter_report(result)
    assert all(t.status == Status.NOT_STARTED for t in result.tasks), report.chapter_report(result)


def test_broken_param_groups_block_the_update_rules_rather_than_failing_them(
    outcomes: dict,
) -> None:
    """6.2's checks build an SGD: with add_param_group overwriting each group's options they
    fail, and pass again with the 6.1 stand-in, so they show as "blocked by task 6.1"."""
    result = outcomes["add_param_group overwrites a group's options with the defaults"]
    (sgd,) = [t for t in result.tasks if t.task.id == "6.2"]
    assert sgd.status == Status.BLOCKED and sgd.blocked_by == "6.1", report.chapter_report(result)


def test_an_adam_that_skips_the_hook_blocks_adamw(outcomes: dict) -> None:
    """AdamW's trajectories run Adam.step: with the decay added inline they fail, and pass
    with the 6.5 stand-in (which calls self._weight_decay): "blocked by task 6.5"."""
    result = outcomes["Adam adds the decay itself, not through _weight_decay"]
    (adamw,) = [t for t in result.tasks if t.task.id == "6.6"]
    assert adamw.status == Status.BLOCKED and adamw.blocked_by == "6.5", report.chapter_report(
        result
    )


def test_the_param_group_stand_in_is_no_solution_of_task_6_1(tmp_path: Path) -> None:
    """The 6.1 stand-in ships in the release: pasted into add_param_group, it fails 6.1."""
    from autograder.checks.ch06_optim import standins

    source = textwrap.dedent(inspect.getsource(standins._groups))
    start = source.index("        params = param_group")
    end = source.index("    def zero_grad")
    body = textwrap.dedent(source[start:end]).replace("tensor_type", "Tensor")
    package = copy_package(SOLUTIONS / PACKAGE, tmp_path / PACKAGE)
    replace_region(package / OPT, "6.1", body)
    result = run_chapter(6, package, tasks=["6.1"])
    assert result.tasks[0].status == Status.FAILED, report.chapter_report(result)


def _public_checks():
    from autograder.checks.ch06_optim import CHECKS

    return CHECKS


def _run(check, tasks: list[str]) -> list[str]:
    """The check's public cases on the reference with the stand-ins of ``tasks``: the
    verdicts' problems."""
    from autograder.checks.ch06_optim import standins
    from autograder.harness import wire
    from autograder.harness.standin import rerun
    from solutions import ch06_optim as sp

    problems = []
    program = f"{check.program.__module__}:{check.program.__name__}"
    for case in check.make_cases(0):
        inputs = wire.loads(wire.dumps(dict(case.inputs)))
        data = wire.loads(wire.dumps(rerun(sp, standins.__name__, program, tasks, inputs)))
        problem = check.verdict(case, data)
        if problem:
            problems.append(f"{case.label}: {problem}")
    return problems


@pytest.mark.parametrize("task", ["6.1", "6.2", "6.5", "6.6"])
def test_each_stand_in_fails_its_own_task(task: str) -> None:
    """In place of its task (on the reference), a stand-in fails one of that task's checks:
    pasted there, it would not solve it."""
    own = [c for c in _public_checks() if c.task == task]
    assert own and any(_run(check, [task]) for check in own)


def test_the_stand_ins_are_enough_for_the_checks_that_need_them() -> None:
    """With the stand-ins of every task a check requires in place of the reference's, the
    check passes: a rerun blames the right task."""
    from autograder.hidden.ch06_optim import CHECKS as HIDDEN

    for check in _public_checks() + HIDDEN:
        if check.requires:
            assert not _run(check, list(check.requires)), check.name


def test_every_required_task_has_a_stand_in() -> None:
    from autograder.checks.ch06_optim import standins
    from autograder.hidden.ch06_optim import CHECKS as HIDDEN

    required = {task for check in _public_checks() + HIDDEN for task in check.requires}
    assert required and required <= set(standins.STANDINS), required - set(standins.STANDINS)


def _number(task: str) -> tuple[int, ...]:
    return tuple(int(part) for part in task.split("."))


def test_a_check_requires_only_earlier_tasks() -> None:
    """Every check of task 6.k (public and hidden) requires only chapter-6 tasks before 6.k."""
    from autograder.hidden.ch06_optim import CHECKS as HIDDEN

    for check in _public_checks() + HIDDEN:
        later = [t for t in check.requires if _number(t) >= _number(check.task)]
        assert not later, (check.task, check.name, later)
        assert all(t.startswith("6.") for t in check.requires), check.name


def test_arrays_that_look_alike_give_the_largest_difference() -> None:
    """A mismatch too small to see in the printout (rounded, or inside a "...") names its
    largest difference and where; a visible one does not."""
    import numpy as np

    from autograder.harness.api import compare

    small = compare(
        np.array([-0.433, 0.639999, 0.418]), np.array([-0.433, 0.64, 0.418]), rtol=1e-7, atol=1e-10
    )
    assert small and small.endswith("(largest difference 1e-06 at [1])"), small
    hidden = np.arange(30.0)
    hidden[15] += 1.0
    inside = compare(hidden, np.arange(30.0), rtol=1e-7, atol=0.0)
    assert inside and inside.endswith("(largest difference 1 at [15])"), inside
    plain = compare(np.array([1.0, 3.0]), np.array([1.0, 2.0]), rtol=1e-7, atol=0.0)
    assert plain and "largest difference" not in plain, plain

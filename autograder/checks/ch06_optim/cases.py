"""Chapter 6's cases and the parent's own expectations (public and hidden checks share them).

Nothing here imports the code under test or the reference: every expectation is computed
in the parent with plain NumPy, in float64, by the rules the notebook states (PyTorch's):
each update rule (``simulate``), each schedule (``schedule``, ``one_cycle``) and each
clipping rule (``clip_norm``, ``clip_value``). A named ``bug`` runs a known mistake instead,
so a verdict can name the mistake that gives the values it received.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...harness.api import Case

OPTIONS = {  # each optimizer's defaults (the order PyTorch prints them in)
    "SGD": dict(lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False),
    "Adagrad": dict(
        lr=1e-2, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0, eps=1e-10
    ),
    "RMSprop": dict(lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0, centered=False),
    "Adam": dict(lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False),
    "AdamW": dict(lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False),
}


def draw(rng: np.random.Generator, shape: tuple[int, ...], scale: float = 1.0) -> np.ndarray:
    """Random data with 3 decimals (not float32-exact)."""
    return (rng.uniform(-1.0, 1.0, shape) * scale).round(3)


def call_text(name: str, options: dict) -> str:
    """``SGD(lr=0.1, momentum=0.9)``: the options a case sets."""
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in options.items())})"


# -- the update rules (6.2–6.6) -------------------------------------------------------------


def _init_state(name: str, group: dict, p: np.ndarray) -> dict:
    if name == "Adagrad":
        return {"step": 0, "sum": np.full_like(p, group["initial_accumulator_value"])}
    return {}


def update(
    name: str, group: dict, p: np.ndarray, g: np.ndarray, state: dict, bug: str = ""
) -> np.ndarray:
    """One step of optimizer ``name`` on one parameter (float64 arrays): the new p; ``state``
    (a dict of arrays and "step") changes. ``bug`` names a known mistake to make instead
    (``BUG_TEXT``); "default:<option>" reads that option from the optimizer's defaults."""
    if bug == "group options ignored":
        return update(name, {**OPTIONS[name], **group.get("_defaults", {})}, p, g, state)
    if bug.startswith("default:"):
        key = bug.partition(":")[2]
        defaults = {**OPTIONS[name], **group.get("_defaults", {})}
        return update(name, {**group, key: defaults[key]}, p, g, state)
    lr, wd = group["lr"], group.get("weight_decay", 0.0)
    g0 = g
    if name == "SGD":
        mu, tau, nesterov = group["momentum"], group["dampening"], group["nesterov"]
        decays = wd and bug != "weight decay after the update"
        if decays and not (bug == "weight decay only with momentum" and not mu):
            g = g + wd * (g if bug == "weight decay from the gradient" else p)
        if mu:
            b = old = state.get("momentum_buffer")
            if b is None and bug == "momentum buffer from zeros":
                b = (1 - tau) * g  # μ·0 + (1 − τ)g
            elif b is None or bug == "momentum buffer recreated":
                b = g.copy()
            else:
                damp = {"dampening ignored": 1.0, "dampening as 1 + τ": 1 + tau}.get(bug, 1 - tau)
                b = mu * b + damp * g
            if bug != "momentum buffer not kept" or old is None:
                state["momentum_buffer"] = b
            if nesterov and bug != "no look-ahead":
                look = {
                    "nesterov with the old buffer": g if old is None else g + mu * old,
                    "nesterov without the gradient": mu * b,
                    "nesterov before the weight decay": g0 + mu * b,
                }
                g = look.get(bug, g + mu * b)
            else:
                g = mu * b if bug == "momentum times the buffer" else b
        p = p - lr * g
        if wd and bug == "weight decay after the update":
            p = p - lr * wd * p
        return p
    if name == "Adagrad":
        if bug != "step counted only with weight decay" or wd:
            state["step"] += 1
        t = state["step"]
        if bug == "square added before the weight decay":
            state["sum"] = state["sum"] + g * g
        if wd:
            g = g + wd * p
        decay = group["lr_decay"]
        clr = {
            "lr decay from t": lr / (1 + t * decay),
            "lr decay from t + 1": lr / (1 + (t + 1) * decay),
            "lr decay multiplies": lr * (1 - (t - 1) * decay),
        }.get(bug, lr / (1 + (t - 1) * decay))
        s = state["sum"]
        if bug not in ("square added before the weight decay", "root before the new square"):
            s = s + g * g + (group["eps"] if bug == "eps added to the sum" else 0.0)
        if bug != "sum not kept":
            state["sum"] = s
        if bug == "root before the new square":
            state["sum"] = s + g * g
        if bug == "eps inside the square root":
            return p - clr * g / np.sqrt(s + group["eps"])
        if bug == "divides by the sum":
            return p - clr * g / (s + group["eps"])
        return p - clr * g / (np.sqrt(s) + group["eps"])
    if name == "RMSprop":
        alpha, eps, mu = group["alpha"], group["eps"], group["momentum"]
        if not state:
            state.update(step=0, square_avg=np.zeros_like(p))
            if mu > 0:
                state["momentum_buffer"] = np.zeros_like(p)
            if group["centered"]:
                state["grad_avg"] = np.zeros_like(p)
        state["step"] += 1
        if wd and bug != "weight decay after the averages":
            g = g + wd * p
        a_, b_ = (1 - alpha, alpha) if bug == "alpha swapped" else (alpha, 1 - alpha)
        v = a_ * state["square_avg"] + b_ * g * g
        if bug != "square average not kept":
            state["square_avg"] = v
        if wd and bug == "weight decay after the averages":
            g = g + wd * p
        if group["centered"]:
            old = state["grad_avg"]
            new = alpha * old + (1 - alpha) * (g * g if bug == "centered mean of squares" else g)
            state["grad_avg"] = new
            a = old if bug == "centered with the previous mean" else new
            if bug != "centered without the mean":
                v = v - a * a
        r = np.sqrt(v + eps) if bug == "eps inside the square root" else np.sqrt(v) + eps
        if mu > 0:
            step = {"lr in the momentum buffer": lr * g / r, "momentum dampened": (1 - mu) * g / r}
            b = mu * state["momentum_buffer"] + step.get(bug, g / r)
            if bug != "momentum buffer not kept":
                state["momentum_buffer"] = b
            if bug == "lr in the momentum buffer":
                return p - lr * b
            return p - lr * (g / r if bug == "momentum buffer unused" else b)
        return p - lr * g / r
    # Adam, AdamW
    (beta1, beta2), eps = group["betas"], group["eps"]
    if not state:
        state.update(step=0, exp_avg=np.zeros_like(p), exp_avg_sq=np.zeros_like(p))
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = np.zeros_like(p)
    state["step"] += 1
    t = state["step"] + (1 if bug == "step count off by one" else 0)
    if bug == "step count stuck at 1":
        state["step"], t = 0, 1
    if bug == "bias correction with t − 1":
        t = t - 1
    late = bug == "weight decay after the moments" and name == "Adam"  # the decay is lost
    if group.get("_decay") == "double":  # the contract check's own _weight_decay: 2g
        g = 2.0 * g
    elif late:
        pass
    elif wd and (name == "Adam" or bug in ("AdamW coupled", "AdamW decays and couples")):
        if bug == "AdamW decays and couples":
            p = p * (1 - lr * wd)
        g = g + wd * p
    elif wd:
        p = adamw_decayed(p, g, lr, wd, group, bug)
    w1 = {"first moment with β₂": 1 - beta2, "first moment weighted by β₁": beta1}.get(
        bug, 1 - beta1
    )
    keep1 = 1 - w1
    if bug == "first moment without (1 − β₁)":  # m = β₁m + g
        keep1, w1 = beta1, 1.0
    m = keep1 * state["exp_avg"] + w1 * g
    v_old = state["exp_avg_sq"]
    w2 = 1 - beta1 if bug == "second moment with 1 − β₁" else 1 - beta2
    v = beta2 * state["exp_avg_sq"] + w2 * g * g
    if bug != "moments not kept":
        state["exp_avg"], state["exp_avg_sq"] = m, v
    if group["amsgrad"] and bug != "amsgrad unused":
        if bug == "amsgrad maximum before the new v":
            v = state["max_exp_avg_sq"] = np.maximum(state["max_exp_avg_sq"], v_old)
        elif bug == "amsgrad maximum of the corrected v":
            v = state["max_exp_avg_sq"] = np.maximum(state["max_exp_avg_sq"], v / (1 - beta2**t))
        else:
            v = state["max_exp_avg_sq"] = np.maximum(state["max_exp_avg_sq"], v)
    c1, c2 = 1 - beta1**t, 1 - beta2**t
    if bug == "bias corrections swapped":
        c1, c2 = c2, c1
    if bug == "bias correction with t − 1":
        c1, c2 = c1 + 1e-12, c2 + 1e-12
    if bug == "no bias correction":
        return p - lr * m / (np.sqrt(v) + eps)
    if bug == "bias correction of the first moment only":
        return p - lr / c1 * m / (np.sqrt(v) + eps)
    if bug == "eps inside the square root":  # √(v̂ + ε)
        return p - lr / c1 * m / np.sqrt(v / c2 + eps)
    if bug == "eps inside the uncorrected square root":  # √(v + ε) / √(1 − β₂ᵗ)
        return p - lr / c1 * m / (np.sqrt(v + eps) / math.sqrt(c2))
    if bug == "eps before the correction":  # (√v + ε) / √(1 − β₂ᵗ)
        return p - lr / c1 * m / ((np.sqrt(v) + eps) / math.sqrt(c2))
    return p - lr / c1 * m / (np.sqrt(v) / math.sqrt(c2) + eps)


def adamw_decayed(p: np.ndarray, g: np.ndarray, lr: float, wd: float, group: dict, bug: str) -> Any:
    """AdamW's decoupled decay of p, or a known mistake of it."""
    defaults = {**OPTIONS["AdamW"], **group.get("_defaults", {})}
    if bug == "AdamW decay without the learning rate":
        return p * (1 - wd)
    if bug == "AdamW decay's λ from the defaults":
        return p * (1 - lr * defaults["weight_decay"])
    if bug == "AdamW decay's lr from the defaults":
        return p * (1 - defaults["lr"] * wd)
    if bug == "AdamW decay subtracts lr·λ":
        return p - lr * wd
    if bug == "AdamW decay by (1 − lr)·λ":
        return p * ((1 - lr) * wd)
    if bug == "AdamW decay scaled by g":
        return p - lr * wd * g
    if bug == "AdamW decay divides":
        return p / (1 + lr * wd)
    return p * (1 - lr * wd)


EPS_INSIDE = (
    "eps inside the square root",
    "eps inside the uncorrected square root",
    "eps before the correction",
)
BUGS = {  # the known mistakes a trajectory verdict tries, per optimizer (first match wins)
    "SGD": (
        "momentum buffer recreated",
        "momentum buffer from zeros",
        "momentum buffer not kept",
        "dampening ignored",
        "dampening as 1 + τ",
        "weight decay after the update",
        "weight decay from the gradient",
        "weight decay only with momentum",
        "default:nesterov",
        "no look-ahead",
        "nesterov with the old buffer",
        "nesterov without the gradient",
        "nesterov before the weight decay",
        "momentum times the buffer",
    ),
    "Adagrad": (
        "lr decay from t",
        "lr decay from t + 1",
        "lr decay multiplies",
        "sum not kept",
        "root before the new square",
        "square added before the weight decay",
        "step counted only with weight decay",
        "eps added to the sum",
        "eps inside the square root",
        "divides by the sum",
    ),
    "RMSprop": (
        "eps inside the square root",
        "alpha swapped",
        "square average not kept",
        "centered without the mean",
        "centered with the previous mean",
        "centered mean of squares",
        "lr in the momentum buffer",
        "momentum dampened",
        "momentum buffer unused",
        "weight decay after the averages",
    ),
    "Adam": (
        "no bias correction",
        "bias correction of the first moment only",
        "step count off by one",
        "step count stuck at 1",
        "bias correction with t − 1",
        "bias corrections swapped",
        "amsgrad unused",
        "amsgrad maximum before the new v",
        "amsgrad maximum of the corrected v",
        *EPS_INSIDE,
        "first moment with β₂",
        "first moment weighted by β₁",
        "first moment without (1 − β₁)",
        "second moment with 1 − β₁",
        "moments not kept",
        "weight decay after the moments",
        "default:eps",
    ),
    "AdamW": (
        "AdamW coupled",
        "AdamW decays and couples",
        "AdamW decay without the learning rate",
        "AdamW decay's λ from the defaults",
        "AdamW decay's lr from the defaults",
        "AdamW decay subtracts lr·λ",
        "AdamW decay by (1 − lr)·λ",
        "AdamW decay scaled by g",
        "AdamW decay divides",
        "no bias correction",
        "step count off by one",
        *EPS_INSIDE,
    ),
}
EPS_TEXT = "ε is added inside the square root: √(v + ε), where the denominator is √v + ε"
NOT_KEPT = (
    "{} not kept from step to step: each step starts again from the value it had after "
    "the first (a new array made and bound to a local name, the state's own left as it was)"
)
BUG_TEXT = {
    "momentum buffer recreated": "the momentum buffer is made anew at every step (b = g each "
    "step): it is not kept in self.state[p]",
    "momentum buffer from zeros": "the first step's buffer is dampened, b = (1 − τ)g, as a buffer "
    "started from zeros gives (b = μ·0 + (1 − τ)g); the buffer starts as a copy of g at the first "
    "step, undampened",
    "momentum buffer not kept": NOT_KEPT.format("the momentum buffer is"),
    "dampening ignored": "after the first step the buffer adds g undampened, b = μb + g: the "
    "dampening τ is ignored",
    "dampening as 1 + τ": "the buffer adds (1 + τ)g: dampening scales the new gradient by 1 − τ",
    "eps inside the square root": EPS_TEXT,
    "eps inside the uncorrected square root": EPS_TEXT,
    "eps before the correction": "ε is added before dividing by √(1 − β₂ᵗ): (√v + ε)/√(1 − β₂ᵗ), "
    "where ε is added to the corrected root",
    "weight decay after the update": "the weight decay is applied after the update, not added "
    "to the gradient first",
    "weight decay from the gradient": "the weight decay adds λg: the decay is λ times the "
    "parameter, λp",
    "weight decay only with momentum": "the weight decay is applied only where momentum is on",
    "no look-ahead": "nesterov=True steps with the buffer alone, or looks ahead with the buffer "
    "before this step's update (the same at the first step, with b = g): the look-ahead is "
    "g + μb, b updated first",
    "nesterov with the old buffer": "nesterov looks ahead with the buffer before this step's "
    "update: g + μ·(last step's b)",
    "nesterov without the gradient": "nesterov steps with μb alone: the look-ahead is g + μb",
    "nesterov before the weight decay": "nesterov's look-ahead adds the gradient without its "
    "weight decay: the g in g + μb is the decayed one",
    "momentum times the buffer": "the step is μ·b: with momentum the step is the buffer b itself",
    "default:nesterov": "the group's own nesterov is ignored: it is read from the optimizer's "
    "defaults",
    "lr decay from t": "the lr decay counts from the first step: η/(1 + t·δ), where the first "
    "step (t = 1) is not decayed yet, η/(1 + (t − 1)δ)",
    "lr decay from t + 1": "the lr decay runs two steps ahead: η/(1 + (t + 1)δ), where the "
    "first step (t = 1) is not decayed yet",
    "lr decay multiplies": "the lr decay multiplies, η·(1 − (t − 1)δ): it divides, "
    "η/(1 + (t − 1)δ)",
    "sum not kept": NOT_KEPT.format("the sum of squares is"),
    "root before the new square": "the step divides by the root of the sum before this step's "
    "g² is added (the first step divides by ε alone)",
    "square added before the weight decay": "the sum takes g² before the weight decay is added "
    "to g: the squares are of the decayed gradient",
    "step counted only with weight decay": "the step count (and so the lr decay) moves only "
    "when weight decay is on",
    "eps added to the sum": "ε is added to the sum at every step, inside the root",
    "divides by the sum": "the step divides by the sum of squares itself, not by its square root",
    "alpha swapped": "the running average weighs the old average by 1 − α and the new square by "
    "α: α is the weight of the old average",
    "square average not kept": NOT_KEPT.format("the average of squares is"),
    "centered without the mean": "centered=True divides by √v here: nothing was subtracted, "
    "where the square of the mean a, updated with this step's g first, is (√(v − a²)); the "
    "mean's square left out, or the mean taken before its update (0 at the first step), do this",
    "centered with the previous mean": "centered subtracts the square of the previous step's "
    "mean: the mean is updated with this step's g first",
    "centered mean of squares": "the centered mean averages g², not g",
    "lr in the momentum buffer": "the learning rate is inside the momentum buffer too (b = μb "
    "+ lr·g/r, then lr·b): lr scales the buffer once, outside it",
    "momentum dampened": "the buffer adds (1 − μ)·g/r: RMSprop's buffer adds g/r undampened",
    "momentum buffer unused": "with momentum each step moves by lr·g/r alone: the buffer's past "
    "(μb) never reaches the step (the buffer not kept from step to step, or kept and not used)",
    "weight decay after the averages": "the weight decay is added to g after the averages: "
    "they must see the decayed gradient",
    "no bias correction": "the moments are not bias-corrected: the first step moves by "
    "lr·(1 − β₁)/√(1 − β₂) per unit, not about lr",
    "bias correction of the first moment only": "only the first moment is bias-corrected: "
    "the second is used as it is",
    "step count off by one": "the bias correction uses the wrong step count: t = 2 at the "
    "first step",
    "step count stuck at 1": "the step count never moves: the bias correction uses t = 1 "
    "at every step and state['step'] stays 0",
    "bias correction with t − 1": "the bias correction uses t − 1 (0 at the first step, where "
    "the correction divides by almost 0)",
    "bias corrections swapped": "the bias corrections are swapped: m is divided by 1 − β₂ᵗ "
    "and v by 1 − β₁ᵗ",
    "AdamW coupled": "the decay is added to the gradient, as Adam's: AdamW's decay never "
    "enters the moments",
    "AdamW decays and couples": "the decay is done twice: p is scaled and λp is also added "
    "to the gradient",
    "AdamW decay without the learning rate": "p is scaled by 1 − λ: the decay is missing the "
    "learning rate (1 − lr·λ)",
    "AdamW decay's λ from the defaults": "the decay reads λ from the optimizer's defaults, "
    "not the group's own weight_decay",
    "AdamW decay's lr from the defaults": "the decay reads lr from the optimizer's defaults, "
    "not the group's own lr",
    "AdamW decay subtracts lr·λ": "the decay subtracts lr·λ from p: it scales p by 1 − lr·λ",
    "AdamW decay by (1 − lr)·λ": "p is multiplied by (1 − lr)·λ: the factor is 1 − lr·λ",
    "AdamW decay scaled by g": "the decay subtracts lr·λ·g: it scales p by 1 − lr·λ",
    "AdamW decay divides": "p is divided by 1 + lr·λ: it is multiplied by 1 − lr·λ",
    "amsgrad unused": "with amsgrad the step divides by √v, not by the largest v so far",
    "amsgrad maximum before the new v": "amsgrad's maximum is taken before v is updated: it "
    "lags one step behind",
    "amsgrad maximum of the corrected v": "amsgrad keeps the maximum of the bias-corrected v: "
    "the maximum is of v itself",
    "first moment with β₂": "the first moment m averages with β₂: m's rate is β₁",
    "first moment weighted by β₁": "the first moment weighs the new gradient by β₁: "
    "m = (1 − β₁)m + β₁g, where β₁ weighs the old m",
    "first moment without (1 − β₁)": "the first moment adds g whole (m = β₁m + g): the new "
    "gradient is weighed by 1 − β₁",
    "second moment with 1 − β₁": "the second moment weighs g² by 1 − β₁: its rate is β₂",
    "moments not kept": NOT_KEPT.format("the moments m and v are"),
    "weight decay after the moments": "the weight decay is computed after the moments and "
    "never reaches them: Adam's decay is lost",
    "default:eps": "the group's own eps is ignored: it is read from the optimizer's defaults",
    "group options ignored": "the group's own options are ignored: each group's parameters "
    "take the optimizer's defaults",
}


def groups_of(name: str, defaults: dict, groups: list) -> list[dict]:
    """Each group's full options: the optimizer's defaults, the case's, the group's own."""
    base = {**OPTIONS[name], **defaults}
    return [{**base, **{k: v for k, v in g.items() if k != "params"}} for g in groups]


def simulate(
    name: str, defaults: dict, groups: list, params: list, grads: list, bug: str = ""
) -> tuple[list, list]:
    """The values of every parameter after every step, and each parameter's state at the
    end. ``grads[step][i]``: an array, None (skipped) or an int j (the same gradient as
    parameter j's)."""
    options = groups_of(name, defaults, groups)
    if bug:  # a mistake may read the optimizer's defaults
        options = [{**o, "_defaults": {**OPTIONS[name], **defaults}} for o in options]
    values = [np.asarray(p, dtype=np.float64) for p in params]
    owner = {i: k for k, g in enumerate(groups) for i in g["params"]}
    states = [_init_state(name, options[owner[i]], values[i]) for i in range(len(values))]
    history = []
    for step in grads:
        for k, group in enumerate(groups):
            for i in group["params"]:
                g = step[i]
                if isinstance(g, int) and not isinstance(g, bool):
                    g = step[g]
                if g is None:
                    continue
                g = np.asarray(g, dtype=np.float64)
                with np.errstate(all="ignore") if bug else nullcontext():  # a mistake may / 0
                    values[i] = update(name, options[k], values[i], g, states[i], bug)
        history.append([v.copy() for v in values])
    return history, states


@dataclass(frozen=True)
class Trajectory:
    name: str  # "SGD", …
    values: list  # per step, per parameter: the values after it
    dtypes: list  # each parameter's dtype name
    steps: int
    groups: list  # the parameters' group index
    closure: bool
    nodes_allowed: int = 0
    decay_calls: int | None = None  # the contract check: _weight_decay's calls expected
    state: list | None = None  # each parameter's state at the end ({} where it has none)


def _count(n: int, noun: str) -> str:
    """The count and its noun, plural unless one: "1 parameter", "3 parameters"."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def trajectory_case(
    rng: np.random.Generator,
    name: str,
    defaults: dict,
    groups: list,
    shapes: list,
    steps: int = 4,
    dtypes: list | None = None,
    skip: float = 0.0,
    share: bool = False,
    closure: bool = False,
    contract: bool = False,
    frozen: tuple = (),
    label: str | None = None,
) -> Case:
    """``steps`` steps of ``name`` over parameters of ``shapes``; ``groups``: [(indices,
    options)]. ``skip``: each gradient (but parameter 0's) is None with that chance;
    ``frozen``: these parameters never get a gradient (they must get no state either);
    ``share``: a parameter whose shape and dtype an earlier one has gets the same gradient
    object at every other step; ``contract``: the optimizer is an Adam subclass whose
    ``_weight_decay`` returns 2g (Adam.step must call it)."""
    dtypes = dtypes or ["float64"] * len(shapes)
    params = [draw(rng, tuple(s)) for s in shapes]
    grads = []
    for t in range(steps):
        row: list = []
        for i, s in enumerate(shapes):
            twin = next(
                (
                    j
                    for j in range(i)
                    if shapes[j] == s
                    and dtypes[j] == dtypes[i]
                    and row[j] is not None
                    and not isinstance(row[j], int)
                ),
                None,
            )
            if i in frozen:
                row.append(None)
            elif share and twin is not None and t % 2 == 0:
                row.append(twin)
            elif i and rng.random() < skip:
                row.append(None)
            else:
                row.append(draw(rng, tuple(s), scale=2.0))
        grads.append(row)
    spec = [{"params": list(ix), **opts} for ix, opts in groups]
    cast = [np.asarray(p, dtype=d) for p, d in zip(params, dtypes)]
    cast_grads = [
        [
            g if g is None or isinstance(g, int) else np.asarray(g, dtype=d)
            for g, d in zip(row, dtypes)
        ]
        for row in grads
    ]
    full = [dict(o) for o in spec]
    if contract:
        full = [{**o, "_decay": "double"} for o in full]
    values, states = simulate(name, defaults, full, cast, cast_grads)
    owner = {i: k for k, (ix, _) in enumerate(groups) for i in ix}
    nones = sum(g is None for row in grads for g in row)
    parts = [call_text(("Adam subclass" if contract else name), defaults)]
    if len(groups) > 1 or groups[0][1]:
        parts.append(
            "groups " + "; ".join(f"{list(ix)} {opts or 'defaults'}" for ix, opts in groups)
        )
    kinds = ", ".join(f"{tuple(s)} {d}" for s, d in zip(shapes, dtypes))
    parts.append(f"{_count(len(shapes), 'parameter')} ({kinds}), {_count(steps, 'step')}")
    if nones:
        parts.append(f"{nones} gradients None")
    if share:
        parts.append("one gradient tensor given to two parameters")
    if closure:
        parts.append("step(closure)")
    if contract:
        parts.append("_weight_decay overridden (returns 2g): Adam.step must call it")
    calls = sum(g is not None for row in grads for g in row) if contract else None
    return Case(
        label or ", ".join(parts),
        {
            "optimizer": name,
            "defaults": defaults,
            "groups": spec,
            "params": cast,
            "grads": cast_grads,
            "closure": closure,
            "contract": contract,
        },
        Trajectory(
            name,
            values,
            list(dtypes),
            steps,
            [owner[i] for i in range(len(shapes))],
            closure,
            decay_calls=calls,
            state=states,
        ),
    )


def adamw_decay_case(
    rng: np.random.Generator, lr: float, weight_decay: float, dtype: str = "float64"
) -> Case:
    """``AdamW(lr, weight_decay)._weight_decay(p, g, group)`` on fixed p and g: g returned
    unchanged, p scaled by 1 − lr·λ."""
    p0 = np.array([[1.0, -2.0], [0.5, 4.0]])
    g = np.array([[0.3, -0.1], [0.2, 0.7]])
    want = {"g": g, "p0": p0, "wd": weight_decay, "p": p0 * (1 - lr * weight_decay), "dtype": dtype}
    label = f"AdamW(lr={lr}, weight_decay={weight_decay})._weight_decay(p, g, group) on {dtype}"
    inputs = {"lr": lr, "weight_decay": weight_decay, "dtype": dtype, "g": g}
    return Case(label, inputs, want)


# -- 6.1 ------------------------------------------------------------------------------------


# A param-group script: the program makes tensors a, b, c, d (leaves), f (a leaf that does
# not require grad), n (a non-leaf), then Optimizer(first, defaults), then add_param_group
# for each later item. An item is {"params": spec, options...}; spec: a name ("a": the tensor
# itself), a list of names, "set:ab" (a set), "gen:ab" (a generator), "tuple:ab" (a tuple)
# or "str:x" (a string in the list).
def param_names(spec: Any) -> list[str]:
    """The names of the tensors a params spec holds."""
    if isinstance(spec, list):
        return spec
    if ":" in spec:
        return list(spec.split(":")[1])
    return [spec]


def groups_case(defaults: dict, items: list, label: str) -> Case:
    """Each item's outcome: the error's type name, or None and the group as it should be
    ({"params": names, every option})."""
    seen: set = set()
    outcome, groups = [], []
    for item in items:
        spec, own = item["params"], {k: v for k, v in item.items() if k != "params"}
        names = param_names(spec)
        error = None
        if isinstance(spec, str) and spec.startswith("set:"):
            error = "TypeError"
        elif isinstance(spec, str) and spec.startswith("str:"):
            error = "TypeError"
        elif "n" in names:
            error = "ValueError"
        elif any(v == "required" and k not in own for k, v in defaults.items()):
            error = "ValueError"
        elif seen & set(names):
            error = "ValueError"
        outcome.append(error)
        if error is None:
            seen |= set(names)
            groups.append({"params": names, **{k: v for k, v in defaults.items()}, **own})
    return Case(
        label, {"defaults": defaults, "items": items}, {"errors": outcome, "groups": groups}
    )


def zero_grad_case(set_to_none: bool, dtype: str = "float64", label: str = "") -> Case:
    """Parameters a (a gradient), b (none), c (a's gradient object too), d (``dtype``, a
    gradient of its own holding an inf: zeros, not g · 0), in two groups;
    zero_grad(set_to_none). The gradients' values are inputs, so the parent knows what the
    old gradient tensors must still hold after the call."""
    return Case(
        label or f"zero_grad(set_to_none={set_to_none})",
        {
            "set_to_none": set_to_none,
            "dtype": dtype,
            "shared": [0.5, -1.5, 2.0],
            "own": [[3.0, math.inf]],
        },
        {"set_to_none": set_to_none, "dtype": dtype},
    )


# -- 6.7 ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Resume:
    name: str
    indices: list  # each group's parameter indices in the state_dict
    options: list  # each group's options (what load_state_dict must restore)
    state: dict  # index (str) -> {name: value} after the first part
    final: list  # each parameter's values at the end of an uninterrupted run
    load_dtypes: list
    refused: list  # the mismatches: expected "ValueError" each


def resume_case(
    rng: np.random.Generator,
    name: str,
    defaults: dict,
    groups: list,
    shapes: list,
    before: int = 3,
    after: int = 3,
    dtype: str = "float64",
    load_dtype: str | None = None,
    late: bool = False,
    warm: bool = False,
    label: str = "",
) -> Case:
    """``before`` steps, ``state_dict()``, a fresh optimizer (other defaults) over fresh
    parameters holding the same values (``load_dtype``) takes it, ``after`` steps more: the
    same values as ``before + after`` steps without a break. The last parameter gets no
    gradient before the save (it has no state). ``late``: the first parameter of the first
    group gets none at the first step (its state is made after the others': the state's
    order is not the parameters'); ``warm``: the loading optimizer takes a step of its own
    before it loads (the state it made must go)."""
    load_dtype = load_dtype or dtype
    n = len(shapes)
    first = groups[0][0][0]
    params = [draw(rng, tuple(s)).astype(dtype) for s in shapes]
    grads = []
    for t in range(before + after):
        grads.append(
            [
                None
                if (i == n - 1 and t < before) or (late and i == first and t == 0)
                else draw(rng, tuple(s), 2.0).astype(dtype)
                for i, s in enumerate(shapes)
            ]
        )
    spec = [{"params": list(ix), **opts} for ix, opts in groups]
    _, saved = simulate(name, defaults, spec, params, grads[:before])
    history, _ = simulate(name, defaults, spec, params, grads)
    order = [i for ix, _ in groups for i in ix]
    index = {i: k for k, i in enumerate(order)}
    state = {str(index[i]): saved[i] for i in range(n) if saved[i]}
    options = [{k: v for k, v in o.items()} for o in groups_of(name, defaults, spec)]
    for o in options:
        o["betas"] = list(o["betas"]) if "betas" in o else None
        if o["betas"] is None:
            del o["betas"]
    text = label or (
        f"{call_text(name, defaults)}, groups {[list(ix) for ix, _ in groups]}, {before} steps, "
        f"state_dict(), load into a new optimizer over new {load_dtype} parameters, {after} steps"
    )
    return Case(
        label or text,
        {
            "optimizer": name,
            "defaults": defaults,
            "groups": spec,
            "params": params,
            "grads": grads,
            "before": before,
            "load_dtype": load_dtype,
            "warm": warm,
        },
        Resume(
            name,
            [[index[i] for i in ix] for ix, _ in groups],
            options,
            state,
            history[-1],
            [load_dtype] * n,
            ["ValueError", "ValueError"],
        ),
    )


# -- 6.8 ------------------------------------------------------------------------------------

LAMBDAS: dict[str, Callable[[float, int], float]] = {
    "power": lambda a, t: a**t,  # a^t
    "linear": lambda a, t: max(0.0, 1 - t / a),  # 1 − t/a, down to 0
    "warmup": lambda a, t: min(1.0, (t + 1) / a),  # (t + 1)/a, up to 1
}


def lambda_text(spec: list) -> str:
    kind, a = spec
    return {
        "power": f"lambda t: {a}**t",
        "linear": f"lambda t: max(0, 1 - t/{a})",
        "warmup": f"lambda t: min(1, (t+1)/{a})",
    }[kind]


def schedule(kind: str, base_lrs: list, options: dict, t: int) -> list[float]:
    """Each group's lr at ``last_epoch = t``: the closed forms of §7."""
    if kind == "StepLR":
        return [b * options.get("gamma", 0.1) ** (t // options["step_size"]) for b in base_lrs]
    if kind == "MultiStepLR":
        k = bisect.bisect_right(sorted(options["milestones"]), t)
        return [b * options.get("gamma", 0.1) ** k for b in base_lrs]
    if kind == "ExponentialLR":
        return [b * options["gamma"] ** t for b in base_lrs]
    if kind == "CosineAnnealingLR":
        low = options.get("eta_min", 0.0)
        return [
            low + (b - low) * (1 + math.cos(math.pi * t / options["T_max"])) / 2 for b in base_lrs
        ]
    if kind == "LambdaLR":
        specs = options["lr_lambda"]
        specs = specs if isinstance(specs[0], list) else [specs] * len(base_lrs)
        return [b * LAMBDAS[s[0]](s[1], t) for b, s in zip(base_lrs, specs)]
    raise ValueError(kind)


def schedule_case(kind: str, base_lrs: list, options: dict, steps: int, label: str = "") -> Case:
    """The groups' lrs at construction and after each of ``steps`` steps."""
    want = [schedule(kind, base_lrs, options, t) for t in range(steps + 1)]
    shown = {
        k: (
            lambda_text(v)
            if k == "lr_lambda" and not isinstance(v[0], list)
            else [lambda_text(s) for s in v]
            if k == "lr_lambda"
            else v
        )
        for k, v in options.items()
    }
    text = (
        f"{kind}({', '.join(f'{k}={v}' for k, v in shown.items())}), base lrs {base_lrs}, {steps} "
        "steps"
    )
    inputs = {"kind": kind, "base_lrs": base_lrs, "options": options, "steps": steps}
    return Case(label or text, inputs, want)


# -- 6.9 ------------------------------------------------------------------------------------


def _anneal(strategy: str, start: float, end: float, pct: float) -> float:
    if strategy == "cos":
        return end + (start - end) / 2 * (math.cos(math.pi * pct) + 1)
    return start + (end - start) * pct


def one_cycle(total: int, max_lr: float, t: int, o: dict, bug: str = "") -> tuple[float, float]:
    """(lr, momentum) at step t of PyTorch's OneCycleLR for one group; ``bug`` a known
    mistake ("fraction from 0": each phase's fraction t / end, its start ignored; …)."""
    pct_start, div, final = (
        o.get("pct_start", 0.3),
        o.get("div_factor", 25.0),
        o.get("final_div_factor", 1e4),
    )
    hi, lo = o.get("max_momentum", 0.95), o.get("base_momentum", 0.85)
    strategy = o.get("anneal_strategy", "cos")
    initial = max_lr / div
    minimum = initial / final
    up = pct_start * total - 1
    if o.get("three_phase"):
        phases = [
            (up, initial, max_lr, hi, lo),
            (2 * pct_start * total - 2, max_lr, initial, lo, hi),
            (total - 1, initial, minimum, hi, hi),
        ]
    else:
        phases = [(up, initial, max_lr, hi, lo), (total - 1, max_lr, minimum, lo, hi)]
    start = 0.0
    for i, (end, l0, l1, m0, m1) in enumerate(phases):
        if t <= end or i == len(phases) - 1:
            pct = {
                "fraction from 0": t / end,
                "fraction one short": (t - start) / (end - start + 1),
                "fraction over the end": (t - start) / end,
                "phases backwards": 1 - (t - start) / (end - start),
            }.get(bug, (t - start) / (end - start))
            lr = _anneal("cos" if bug == "always cos" else strategy, l0, l1, pct)
            m0, m1 = (m1, m0) if bug == "momentum backwards" else (m0, m1)
            return lr, _anneal("linear" if bug == "momentum linear" else strategy, m0, m1, pct)
        start = end
    raise AssertionError


def one_cycle_case(
    max_lr: Any, options: dict, groups: int = 1, beta1: bool = False, label: str = ""
) -> Case:
    """The groups' lr and momentum (or β₁) at construction and after each step up to
    ``total_steps``; then one step more (a ValueError)."""
    total = options.get("total_steps") or options["epochs"] * options["steps_per_epoch"]
    lrs = max_lr if isinstance(max_lr, list) else [max_lr] * groups
    cycle = options.get("cycle_momentum", True)
    want = []
    for t in range(total + 1):
        row = [one_cycle(total, m, t, options) for m in lrs]
        want.append({"lr": [r[0] for r in row], "momentum": [r[1] for r in row] if cycle else None})
    what = "Adam (β₁)" if beta1 else "SGD (momentum)"
    text = label or f"OneCycleLR over {what}, max_lr={max_lr}, " + ", ".join(
        f"{k}={v!r}" for k, v in options.items()
    )
    return Case(
        label or text,
        {"max_lr": max_lr, "options": options, "groups": len(lrs), "beta1": beta1, "steps": total},
        want,
    )


# -- 6.10 -----------------------------------------------------------------------------------


def clip_norm(grads: list, max_norm: float, norm_type: float) -> tuple[float, list]:
    """The total norm of the gradients together, and each clipped: g · min(1, c / (n +
    10⁻⁶)), a nan n giving a nan coefficient (torch.clamp's, np.minimum's; Python's min(1.0,
    nan) is 1.0). No gradients, or empty ones: n = 0 (the ∞-norm too, as the reference's,
    where PyTorch refuses an empty tensor)."""
    gs = [np.asarray(g, dtype=np.float64) for g in grads]
    if norm_type == math.inf:
        total = max((float(np.abs(g).max(initial=0.0)) for g in gs), default=0.0)
        if any(np.isnan(g).any() for g in gs):
            total = math.nan
    else:
        total = float(sum((np.abs(g) ** norm_type).sum() for g in gs) ** (1 / norm_type))
    coef = float(np.minimum(max_norm / (total + 1e-6), 1.0))
    return total, [g * coef for g in gs]


def clip_case(
    rng: np.random.Generator,
    shapes: list,
    max_norm: float,
    norm_type: Any = 2.0,
    dtype: str = "float64",
    scale: float = 2.0,
    share: bool = False,
    by_value: bool = False,
    nonfinite: bool | str = False,
    single: bool = False,
    negative: bool = False,
    label: str = "",
) -> Case:
    """clip_grad_norm_ (or clip_grad_value_ with ``by_value``: c = max_norm) over
    parameters with gradients of ``shapes`` (None: no gradient); ``share``: the last
    parameter's gradient is the first one's object; ``nonfinite``: an inf (True) or a nan
    ("nan") with error_if_nonfinite=True (RuntimeError), or an inf without it ("quiet": the
    gradients scaled by max_norm/inf = 0, an inf becoming nan, as in PyTorch) or a nan
    without it ("quiet nan": the total nan, every gradient scaled by nan); ``negative``:
    the largest |g| of all is a negative entry (max |g|, not max g). No gradient at all: the
    total is tensor(0.) (float32, PyTorch's default dtype); empty ones: 0 in their dtype."""
    grads = [None if s is None else draw(rng, tuple(s), scale).astype(dtype) for s in shapes]
    if negative:
        top = max(float(np.abs(g).max()) for g in grads if g is not None)
        grads[-1].flat[0] = -(top + 0.5)
    if share:
        grads[-1] = 0
    if nonfinite:
        grads[0].flat[0] = np.nan if nonfinite in ("nan", "quiet nan") else np.inf
    real = [g if not isinstance(g, int) or g is None else grads[g] for g in grads]
    given = [g for g in real if g is not None]
    norm = float(norm_type) if norm_type != "inf" else math.inf
    if by_value:
        want: dict = {
            "total": None,
            "grads": [
                None if g is None else np.clip(g.astype(np.float64), -max_norm, max_norm)
                for g in real
            ],
        }
    elif nonfinite in (True, "nan"):
        want = {"error": "RuntimeError"}
    else:
        with np.errstate(invalid="ignore"):  # inf · 0, a nan total
            total, clipped = clip_norm(given, max_norm, norm)
        it = iter(clipped)
        want = {"total": total, "grads": [None if g is None else next(it) for g in real]}
    call = (
        f"clip_grad_value_(params, {max_norm})"
        if by_value
        else (
            f"clip_grad_norm_(params, max_norm={max_norm}, norm_type={norm_type!r}"
            + (", error_if_nonfinite=True" if nonfinite in (True, "nan") else "")
            + ")"
        )
    )
    kinds = ", ".join("no grad" if s is None else str(tuple(s)) for s in shapes)
    text = (
        f"{call} on {dtype} gradients of shapes {kinds}"
        + (" (one gradient object shared by two parameters)" if share else "")
        + {True: " (an inf)", "nan": " (a nan)", "quiet": " (an inf)", "quiet nan": " (a nan)"}.get(
            nonfinite, ""
        )
        + (" (params a single Tensor)" if single else "")
    )
    return Case(
        label or text,
        {
            "grads": grads,
            "max_norm": max_norm,
            "norm_type": norm_type,
            "by_value": by_value,
            "nonfinite": nonfinite,
            "single": single,
        },
        {**want, "dtype": dtype, "total_dtype": dtype if given else "float32"},
    )

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
from ...harness.language import tr

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
    if bug == "group options ignored":  # en-only: bug
        return update(name, {**OPTIONS[name], **group.get("_defaults", {})}, p, g, state)
    if bug.startswith("default:"):
        key = bug.partition(":")[2]
        defaults = {**OPTIONS[name], **group.get("_defaults", {})}
        return update(name, {**group, key: defaults[key]}, p, g, state)
    lr, wd = group["lr"], group.get("weight_decay", 0.0)
    g0 = g
    if name == "SGD":
        mu, tau, nesterov = group["momentum"], group["dampening"], group["nesterov"]
        decays = wd and bug != "weight decay after the update"  # en-only: bug
        if decays and not (bug == "weight decay only with momentum" and not mu):  # en-only: bug
            g = g + wd * (g if bug == "weight decay from the gradient" else p)  # en-only: bug
        if mu:
            b = old = state.get("momentum_buffer")
            if b is None and bug == "momentum buffer from zeros":  # en-only: bug
                b = (1 - tau) * g  # μ·0 + (1 − τ)g
            elif b is None or bug == "momentum buffer recreated":  # en-only: bug
                b = g.copy()
            else:
                damp = {"dampening ignored": 1.0, "dampening as 1 + τ": 1 + tau}.get(bug, 1 - tau)
                b = mu * b + damp * g
            if bug != "momentum buffer not kept" or old is None:  # en-only: bug
                state["momentum_buffer"] = b
            if nesterov and bug != "no look-ahead":
                ahead = g if old is None else g + mu * old  # with the last step's buffer
                look = {
                    "nesterov with the old buffer": ahead,  # en-only: bug
                    "nesterov without the gradient": mu * b,  # en-only: bug
                    "nesterov before the weight decay": g0 + mu * b,  # en-only: bug
                }
                g = look.get(bug, g + mu * b)
            else:
                g = mu * b if bug == "momentum times the buffer" else b  # en-only: bug
        p = p - lr * g
        if wd and bug == "weight decay after the update":  # en-only: bug
            p = p - lr * wd * p
        return p
    if name == "Adagrad":
        if bug != "step counted only with weight decay" or wd:  # en-only: bug
            state["step"] += 1
        t = state["step"]
        if bug == "square added before the weight decay":  # en-only: bug
            state["sum"] = state["sum"] + g * g
        if wd:
            g = g + wd * p
        decay = group["lr_decay"]
        clr = {
            "lr decay from t": lr / (1 + t * decay),  # en-only: bug
            "lr decay from t + 1": lr / (1 + (t + 1) * decay),  # en-only: bug
            "lr decay multiplies": lr * (1 - (t - 1) * decay),  # en-only: bug
        }.get(bug, lr / (1 + (t - 1) * decay))
        s = state["sum"]
        if bug not in (
            "square added before the weight decay",  # en-only: bug
            "root before the new square",  # en-only: bug
        ):
            s = s + g * g + (group["eps"] if bug == "eps added to the sum" else 0.0)  # en-only: bug
        if bug != "sum not kept":  # en-only: bug
            state["sum"] = s
        if bug == "root before the new square":  # en-only: bug
            state["sum"] = s + g * g
        if bug == "eps inside the square root":  # en-only: bug
            return p - clr * g / np.sqrt(s + group["eps"])
        if bug == "divides by the sum":  # en-only: bug
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
        if wd and bug != "weight decay after the averages":  # en-only: bug
            g = g + wd * p
        a_, b_ = (1 - alpha, alpha) if bug == "alpha swapped" else (alpha, 1 - alpha)
        v = a_ * state["square_avg"] + b_ * g * g
        if bug != "square average not kept":  # en-only: bug
            state["square_avg"] = v
        if wd and bug == "weight decay after the averages":  # en-only: bug
            g = g + wd * p
        if group["centered"]:
            old = state["grad_avg"]
            squares = bug == "centered mean of squares"  # en-only: bug
            new = alpha * old + (1 - alpha) * (g * g if squares else g)
            state["grad_avg"] = new
            a = old if bug == "centered with the previous mean" else new  # en-only: bug
            if bug != "centered without the mean":  # en-only: bug
                v = v - a * a
        inside = bug == "eps inside the square root"  # en-only: bug
        r = np.sqrt(v + eps) if inside else np.sqrt(v) + eps
        if mu > 0:
            step = {
                "lr in the momentum buffer": lr * g / r,  # en-only: bug
                "momentum dampened": (1 - mu) * g / r,
            }
            b = mu * state["momentum_buffer"] + step.get(bug, g / r)
            if bug != "momentum buffer not kept":  # en-only: bug
                state["momentum_buffer"] = b
            if bug == "lr in the momentum buffer":  # en-only: bug
                return p - lr * b
            return p - lr * (g / r if bug == "momentum buffer unused" else b)  # en-only: bug
        return p - lr * g / r
    # Adam, AdamW
    (beta1, beta2), eps = group["betas"], group["eps"]
    if not state:
        state.update(step=0, exp_avg=np.zeros_like(p), exp_avg_sq=np.zeros_like(p))
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = np.zeros_like(p)
    state["step"] += 1
    t = state["step"] + (1 if bug == "step count off by one" else 0)  # en-only: bug
    if bug == "step count stuck at 1":  # en-only: bug
        state["step"], t = 0, 1
    if bug == "bias correction with t − 1":  # en-only: bug
        t = t - 1
    late = name == "Adam" and bug == "weight decay after the moments"  # en-only: bug; lost
    coupled = bug in ("AdamW coupled", "AdamW decays and couples")  # en-only: bug
    if group.get("_decay") == "double":  # the contract check's own _weight_decay: 2g
        g = 2.0 * g
    elif late:
        pass
    elif wd and (name == "Adam" or coupled):
        if bug == "AdamW decays and couples":  # en-only: bug
            p = p * (1 - lr * wd)
        g = g + wd * p
    elif wd:
        p = adamw_decayed(p, g, lr, wd, group, bug)
    w1 = {
        "first moment with β₂": 1 - beta2,  # en-only: bug
        "first moment weighted by β₁": beta1,  # en-only: bug
    }.get(bug, 1 - beta1)
    keep1 = 1 - w1
    if bug == "first moment without (1 − β₁)":  # en-only: bug; m = β₁m + g
        keep1, w1 = beta1, 1.0
    m = keep1 * state["exp_avg"] + w1 * g
    v_old = state["exp_avg_sq"]
    w2 = 1 - beta1 if bug == "second moment with 1 − β₁" else 1 - beta2  # en-only: bug
    v = beta2 * state["exp_avg_sq"] + w2 * g * g
    if bug != "moments not kept":  # en-only: bug
        state["exp_avg"], state["exp_avg_sq"] = m, v
    if group["amsgrad"] and bug != "amsgrad unused":
        if bug == "amsgrad maximum before the new v":  # en-only: bug
            v = state["max_exp_avg_sq"] = np.maximum(state["max_exp_avg_sq"], v_old)
        elif bug == "amsgrad maximum of the corrected v":  # en-only: bug
            v = state["max_exp_avg_sq"] = np.maximum(state["max_exp_avg_sq"], v / (1 - beta2**t))
        else:
            v = state["max_exp_avg_sq"] = np.maximum(state["max_exp_avg_sq"], v)
    c1, c2 = 1 - beta1**t, 1 - beta2**t
    if bug == "bias corrections swapped":  # en-only: bug
        c1, c2 = c2, c1
    if bug == "bias correction with t − 1":  # en-only: bug
        c1, c2 = c1 + 1e-12, c2 + 1e-12
    if bug == "no bias correction":  # en-only: bug
        return p - lr * m / (np.sqrt(v) + eps)
    if bug == "bias correction of the first moment only":  # en-only: bug
        return p - lr / c1 * m / (np.sqrt(v) + eps)
    if bug == "eps inside the square root":  # en-only: bug; √(v̂ + ε)
        return p - lr / c1 * m / np.sqrt(v / c2 + eps)
    if bug == "eps inside the uncorrected square root":  # en-only: bug; √(v + ε) / √(1 − β₂ᵗ)
        return p - lr / c1 * m / (np.sqrt(v + eps) / math.sqrt(c2))
    if bug == "eps before the correction":  # en-only: bug; (√v + ε) / √(1 − β₂ᵗ)
        return p - lr / c1 * m / ((np.sqrt(v) + eps) / math.sqrt(c2))
    return p - lr / c1 * m / (np.sqrt(v) / math.sqrt(c2) + eps)


def adamw_decayed(p: np.ndarray, g: np.ndarray, lr: float, wd: float, group: dict, bug: str) -> Any:
    """AdamW's decoupled decay of p, or a known mistake of it."""
    defaults = {**OPTIONS["AdamW"], **group.get("_defaults", {})}
    if bug == "AdamW decay without the learning rate":  # en-only: bug
        return p * (1 - wd)
    if bug == "AdamW decay's λ from the defaults":  # en-only: bug
        return p * (1 - lr * defaults["weight_decay"])
    if bug == "AdamW decay's lr from the defaults":  # en-only: bug
        return p * (1 - defaults["lr"] * wd)
    if bug == "AdamW decay subtracts lr·λ":  # en-only: bug
        return p - lr * wd
    if bug == "AdamW decay by (1 − lr)·λ":  # en-only: bug
        return p * ((1 - lr) * wd)
    if bug == "AdamW decay scaled by g":  # en-only: bug
        return p - lr * wd * g
    if bug == "AdamW decay divides":  # en-only: bug
        return p / (1 + lr * wd)
    return p * (1 - lr * wd)


EPS_INSIDE = (
    "eps inside the square root",  # en-only: bug
    "eps inside the uncorrected square root",  # en-only: bug
    "eps before the correction",  # en-only: bug
)
BUGS = {  # the known mistakes a trajectory verdict tries, per optimizer (first match wins)
    "SGD": (
        "momentum buffer recreated",  # en-only: bug
        "momentum buffer from zeros",  # en-only: bug
        "momentum buffer not kept",  # en-only: bug
        "dampening ignored",
        "dampening as 1 + τ",
        "weight decay after the update",  # en-only: bug
        "weight decay from the gradient",  # en-only: bug
        "weight decay only with momentum",  # en-only: bug
        "default:nesterov",
        "no look-ahead",
        "nesterov with the old buffer",  # en-only: bug
        "nesterov without the gradient",  # en-only: bug
        "nesterov before the weight decay",  # en-only: bug
        "momentum times the buffer",  # en-only: bug
    ),
    "Adagrad": (
        "lr decay from t",  # en-only: bug
        "lr decay from t + 1",  # en-only: bug
        "lr decay multiplies",  # en-only: bug
        "sum not kept",  # en-only: bug
        "root before the new square",  # en-only: bug
        "square added before the weight decay",  # en-only: bug
        "step counted only with weight decay",  # en-only: bug
        "eps added to the sum",  # en-only: bug
        "eps inside the square root",  # en-only: bug
        "divides by the sum",  # en-only: bug
    ),
    "RMSprop": (
        "eps inside the square root",  # en-only: bug
        "alpha swapped",
        "square average not kept",  # en-only: bug
        "centered without the mean",  # en-only: bug
        "centered with the previous mean",  # en-only: bug
        "centered mean of squares",  # en-only: bug
        "lr in the momentum buffer",  # en-only: bug
        "momentum dampened",
        "momentum buffer unused",  # en-only: bug
        "weight decay after the averages",  # en-only: bug
    ),
    "Adam": (
        "no bias correction",  # en-only: bug
        "bias correction of the first moment only",  # en-only: bug
        "step count off by one",  # en-only: bug
        "step count stuck at 1",  # en-only: bug
        "bias correction with t − 1",  # en-only: bug
        "bias corrections swapped",  # en-only: bug
        "amsgrad unused",
        "amsgrad maximum before the new v",  # en-only: bug
        "amsgrad maximum of the corrected v",  # en-only: bug
        *EPS_INSIDE,
        "first moment with β₂",  # en-only: bug
        "first moment weighted by β₁",  # en-only: bug
        "first moment without (1 − β₁)",  # en-only: bug
        "second moment with 1 − β₁",  # en-only: bug
        "moments not kept",  # en-only: bug
        "weight decay after the moments",  # en-only: bug
        "default:eps",
    ),
    "AdamW": (
        "AdamW coupled",
        "AdamW decays and couples",  # en-only: bug
        "AdamW decay without the learning rate",  # en-only: bug
        "AdamW decay's λ from the defaults",  # en-only: bug
        "AdamW decay's lr from the defaults",  # en-only: bug
        "AdamW decay subtracts lr·λ",  # en-only: bug
        "AdamW decay by (1 − lr)·λ",  # en-only: bug
        "AdamW decay scaled by g",  # en-only: bug
        "AdamW decay divides",  # en-only: bug
        "no bias correction",  # en-only: bug
        "step count off by one",  # en-only: bug
        *EPS_INSIDE,
    ),
}
EPS_TEXT = {
    "en": "ε is added inside the square root: √(v + ε), where the denominator is √v + ε",
    "zh": "ε 被加在了平方根里面：√(v + ε)，而分母应是 √v + ε",
}
NOT_KEPT = {
    "en": "{} not kept from step to step: each step starts again from the value it had after "
    "the first (a new array made and bound to a local name, the state's own left as it "
    "was)",
    "zh": "{}没有在各步之间保留下来：每一步都从第一步之后的值重新开始（新建了一个数组并绑定到局"
    "部变量上，状态里原来的那个保持不变）",
}
BUG_TEXT = {  # each mistake's words, by its name (the names: en-only keys, never shown)
    "momentum buffer recreated": {  # en-only: a name
        "en": "the momentum buffer is made anew at every step (b = g each step): it is not kept "
        "in self.state[p]",
        "zh": "每一步都重新创建了动量缓冲区（每步 b = g）：它没有保存在 self.state[p] 中",
    },
    "momentum buffer from zeros": {  # en-only: a name
        "en": "the first step's buffer is dampened, b = (1 − τ)g, as a buffer started from "
        "zeros gives (b = μ·0 + (1 − τ)g); the buffer starts as a copy of g at the first "
        "step, undampened",
        "zh": "第一步的缓冲区被阻尼了，b = (1 − τ)g，就像从零开始的缓冲区那样（b = μ·0 + (1 − τ)"
        "g）；第一步的缓冲区应是 g 的副本，不加阻尼",
    },
    "momentum buffer not kept": {  # en-only: a name
        "en": NOT_KEPT["en"].format("the momentum buffer is"),
        "zh": NOT_KEPT["zh"].format("动量缓冲区"),
    },
    "dampening ignored": {  # en-only: a name
        "en": "after the first step the buffer adds g undampened, b = μb + g: the dampening τ "
        "is ignored",
        "zh": "第一步之后，缓冲区加上 g 时没有阻尼，b = μb + g：忽略了阻尼系数 τ",
    },
    "dampening as 1 + τ": {  # en-only: a name
        "en": "the buffer adds (1 + τ)g: dampening scales the new gradient by 1 − τ",
        "zh": "缓冲区加上的是 (1 + τ)g：阻尼应把新梯度乘以 1 − τ",
    },
    "eps inside the square root": EPS_TEXT,  # en-only: a name
    "eps inside the uncorrected square root": EPS_TEXT,  # en-only: a name
    "eps before the correction": {  # en-only: a name
        "en": "ε is added before dividing by √(1 − β₂ᵗ): (√v + ε)/√(1 − β₂ᵗ), where ε is added "
        "to the corrected root",
        "zh": "ε 在除以 √(1 − β₂ᵗ) 之前就加上了：(√v + ε)/√(1 − β₂ᵗ)，而 ε 应加在修正后的平方根上",
    },
    "weight decay after the update": {  # en-only: a name
        "en": "the weight decay is applied after the update, not added to the gradient first",
        "zh": "权重衰减是在更新之后才施加的，而不是先加到梯度上",
    },
    "weight decay from the gradient": {  # en-only: a name
        "en": "the weight decay adds λg: the decay is λ times the parameter, λp",
        "zh": "权重衰减加上的是 λg：衰减项应是 λ 乘以参数，即 λp",
    },
    "weight decay only with momentum": {  # en-only: a name
        "en": "the weight decay is applied only where momentum is on",
        "zh": "只有在开启动量时才施加了权重衰减",
    },
    "no look-ahead": {  # en-only: a name
        "en": "nesterov=True steps with the buffer alone, or looks ahead with the buffer before "
        "this step's update (the same at the first step, with b = g): the look-ahead is g "
        "+ μb, b updated first",
        "zh": "nesterov=True 时只用缓冲区更新，或者用本步更新之前的缓冲区做前瞻（第一步时 b = g"
        "，两者相同）：前瞻应是 g + μb，且 b 先更新",
    },
    "nesterov with the old buffer": {  # en-only: a name
        "en": "nesterov looks ahead with the buffer before this step's update: g + μ·(last "
        "step's b)",
        "zh": "nesterov 用本步更新之前的缓冲区做前瞻：g + μ·(上一步的 b)",
    },
    "nesterov without the gradient": {  # en-only: a name
        "en": "nesterov steps with μb alone: the look-ahead is g + μb",
        "zh": "nesterov 只用 μb 更新：前瞻应是 g + μb",
    },
    "nesterov before the weight decay": {  # en-only: a name
        "en": "nesterov's look-ahead adds the gradient without its weight decay: the g in g + "
        "μb is the decayed one",
        "zh": "nesterov 的前瞻加上的是未经权重衰减的梯度：g + μb 中的 g 应是衰减后的梯度",
    },
    "momentum times the buffer": {  # en-only: a name
        "en": "the step is μ·b: with momentum the step is the buffer b itself",
        "zh": "更新步长是 μ·b：使用动量时，步长就是缓冲区 b 本身",
    },
    "default:nesterov": {  # en-only: a name
        "en": "the group's own nesterov is ignored: it is read from the optimizer's defaults",
        "zh": "忽略了参数组自己的 nesterov：它是从优化器的默认值中读取的",
    },
    "lr decay from t": {  # en-only: a name
        "en": "the lr decay counts from the first step: η/(1 + t·δ), where the first step (t = "
        "1) is not decayed yet, η/(1 + (t − 1)δ)",
        "zh": "学习率衰减从第一步就开始计算：η/(1 + t·δ)，而第一步（t = 1）还不应衰减，即 η/(1 +"
        " (t − 1)δ)",
    },
    "lr decay from t + 1": {  # en-only: a name
        "en": "the lr decay runs two steps ahead: η/(1 + (t + 1)δ), where the first step (t = "
        "1) is not decayed yet",
        "zh": "学习率衰减超前了两步：η/(1 + (t + 1)δ)，而第一步（t = 1）还不应衰减",
    },
    "lr decay multiplies": {  # en-only: a name
        "en": "the lr decay multiplies, η·(1 − (t − 1)δ): it divides, η/(1 + (t − 1)δ)",
        "zh": "学习率衰减用了乘法，η·(1 − (t − 1)δ)：应该用除法，η/(1 + (t − 1)δ)",
    },
    "sum not kept": {  # en-only: a name
        "en": NOT_KEPT["en"].format("the sum of squares is"),
        "zh": NOT_KEPT["zh"].format("平方和"),
    },
    "root before the new square": {  # en-only: a name
        "en": "the step divides by the root of the sum before this step's g² is added (the "
        "first step divides by ε alone)",
        "zh": "更新除以的是加上本步 g² 之前的平方和的平方根（第一步就只除以 ε）",
    },
    "square added before the weight decay": {  # en-only: a name
        "en": "the sum takes g² before the weight decay is added to g: the squares are of the "
        "decayed gradient",
        "zh": "平方和在权重衰减加到 g 之前就累加了 g²：累加的应是衰减后梯度的平方",
    },
    "step counted only with weight decay": {  # en-only: a name
        "en": "the step count (and so the lr decay) moves only when weight decay is on",
        "zh": "只有开启权重衰减时，步数（以及学习率衰减）才会前进",
    },
    "eps added to the sum": {  # en-only: a name
        "en": "ε is added to the sum at every step, inside the root",
        "zh": "每一步都把 ε 加到了平方和里（在平方根之内）",
    },
    "divides by the sum": {  # en-only: a name
        "en": "the step divides by the sum of squares itself, not by its square root",
        "zh": "更新除以的是平方和本身，而不是它的平方根",
    },
    "alpha swapped": {  # en-only: a name
        "en": "the running average weighs the old average by 1 − α and the new square by α: α "
        "is the weight of the old average",
        "zh": "滑动平均给旧平均值的权重是 1 − α，给新平方的权重是 α：α 应是旧平均值的权重",
    },
    "square average not kept": {  # en-only: a name
        "en": NOT_KEPT["en"].format("the average of squares is"),
        "zh": NOT_KEPT["zh"].format("平方的平均值"),
    },
    "centered without the mean": {  # en-only: a name
        "en": "centered=True divides by √v here: nothing was subtracted, where the square of "
        "the mean a, updated with this step's g first, is (√(v − a²)); the mean's square "
        "left out, or the mean taken before its update (0 at the first step), do this",
        "zh": "centered=True 时这里除以的是 √v：什么都没有减去，而应减去均值 a（先用本步的 g 更"
        "新）的平方，即 √(v − a²)；漏掉均值的平方，或者用更新之前的均值（第一步时为 0），"
        "都会这样",
    },
    "centered with the previous mean": {  # en-only: a name
        "en": "centered subtracts the square of the previous step's mean: the mean is updated "
        "with this step's g first",
        "zh": "centered 减去的是上一步均值的平方：均值应先用本步的 g 更新",
    },
    "centered mean of squares": {  # en-only: a name
        "en": "the centered mean averages g², not g",
        "zh": "centered 的均值平均的是 g²，而不是 g",
    },
    "lr in the momentum buffer": {  # en-only: a name
        "en": "the learning rate is inside the momentum buffer too (b = μb + lr·g/r, then "
        "lr·b): lr scales the buffer once, outside it",
        "zh": "学习率也放进了动量缓冲区（b = μb + lr·g/r，再乘 lr·b）：lr 只应在缓冲区之外缩放一次",
    },
    "momentum dampened": {  # en-only: a name
        "en": "the buffer adds (1 − μ)·g/r: RMSprop's buffer adds g/r undampened",
        "zh": "缓冲区加上的是 (1 − μ)·g/r：RMSprop 的缓冲区加上 g/r 时不加阻尼",
    },
    "momentum buffer unused": {  # en-only: a name
        "en": "with momentum each step moves by lr·g/r alone: the buffer's past (μb) never "
        "reaches the step (the buffer not kept from step to step, or kept and not used)",
        "zh": "使用动量时每一步只移动了 lr·g/r：缓冲区的历史（μb）从未进入更新（缓冲区没有在各步"
        "之间保留，或者保留了却没有使用）",
    },
    "weight decay after the averages": {  # en-only: a name
        "en": "the weight decay is added to g after the averages: they must see the decayed "
        "gradient",
        "zh": "权重衰减是在计算平均值之后才加到 g 上的：平均值应看到衰减后的梯度",
    },
    "no bias correction": {  # en-only: a name
        "en": "the moments are not bias-corrected: the first step moves by lr·(1 − β₁)/√(1 − "
        "β₂) per unit, not about lr",
        "zh": "矩没有做偏差修正：第一步每单位移动 lr·(1 − β₁)/√(1 − β₂)，而不是大约 lr",
    },
    "bias correction of the first moment only": {  # en-only: a name
        "en": "only the first moment is bias-corrected: the second is used as it is",
        "zh": "只对一阶矩做了偏差修正：二阶矩被原样使用",
    },
    "step count off by one": {  # en-only: a name
        "en": "the bias correction uses the wrong step count: t = 2 at the first step",
        "zh": "偏差修正用错了步数：第一步时 t = 2",
    },
    "step count stuck at 1": {  # en-only: a name
        "en": "the step count never moves: the bias correction uses t = 1 at every step and "
        "state['step'] stays 0",
        "zh": "步数从不前进：偏差修正每一步都用 t = 1，且 state['step'] 一直是 0",
    },
    "bias correction with t − 1": {  # en-only: a name
        "en": "the bias correction uses t − 1 (0 at the first step, where the correction "
        "divides by almost 0)",
        "zh": "偏差修正用的是 t − 1（第一步时为 0，此时修正相当于除以几乎为 0 的数）",
    },
    "bias corrections swapped": {  # en-only: a name
        "en": "the bias corrections are swapped: m is divided by 1 − β₂ᵗ and v by 1 − β₁ᵗ",
        "zh": "两个偏差修正弄反了：m 除以了 1 − β₂ᵗ，v 除以了 1 − β₁ᵗ",
    },
    "AdamW coupled": {  # en-only: a name
        "en": "the decay is added to the gradient, as Adam's: AdamW's decay never enters the "
        "moments",
        "zh": "衰减像 Adam 那样加到了梯度上：AdamW 的衰减不应进入矩的计算",
    },
    "AdamW decays and couples": {  # en-only: a name
        "en": "the decay is done twice: p is scaled and λp is also added to the gradient",
        "zh": "衰减做了两次：既缩放了 p，又把 λp 加到了梯度上",
    },
    "AdamW decay without the learning rate": {  # en-only: a name
        "en": "p is scaled by 1 − λ: the decay is missing the learning rate (1 − lr·λ)",
        "zh": "p 被乘以 1 − λ：衰减漏掉了学习率（应为 1 − lr·λ）",
    },
    "AdamW decay's λ from the defaults": {  # en-only: a name
        "en": "the decay reads λ from the optimizer's defaults, not the group's own weight_decay",
        "zh": "衰减从优化器的默认值中读取 λ，而不是参数组自己的 weight_decay",
    },
    "AdamW decay's lr from the defaults": {  # en-only: a name
        "en": "the decay reads lr from the optimizer's defaults, not the group's own lr",
        "zh": "衰减从优化器的默认值中读取 lr，而不是参数组自己的 lr",
    },
    "AdamW decay subtracts lr·λ": {  # en-only: a name
        "en": "the decay subtracts lr·λ from p: it scales p by 1 − lr·λ",
        "zh": "衰减从 p 中减去了 lr·λ：应把 p 乘以 1 − lr·λ",
    },
    "AdamW decay by (1 − lr)·λ": {  # en-only: a name
        "en": "p is multiplied by (1 − lr)·λ: the factor is 1 − lr·λ",
        "zh": "p 被乘以 (1 − lr)·λ：系数应是 1 − lr·λ",
    },
    "AdamW decay scaled by g": {  # en-only: a name
        "en": "the decay subtracts lr·λ·g: it scales p by 1 − lr·λ",
        "zh": "衰减减去的是 lr·λ·g：应把 p 乘以 1 − lr·λ",
    },
    "AdamW decay divides": {  # en-only: a name
        "en": "p is divided by 1 + lr·λ: it is multiplied by 1 − lr·λ",
        "zh": "p 被除以 1 + lr·λ：应乘以 1 − lr·λ",
    },
    "amsgrad unused": {  # en-only: a name
        "en": "with amsgrad the step divides by √v, not by the largest v so far",
        "zh": "开启 amsgrad 时，更新除以的是 √v，而不是迄今为止最大的 v",
    },
    "amsgrad maximum before the new v": {  # en-only: a name
        "en": "amsgrad's maximum is taken before v is updated: it lags one step behind",
        "zh": "amsgrad 的最大值是在 v 更新之前取的：它落后了一步",
    },
    "amsgrad maximum of the corrected v": {  # en-only: a name
        "en": "amsgrad keeps the maximum of the bias-corrected v: the maximum is of v itself",
        "zh": "amsgrad 保存的是偏差修正后的 v 的最大值：应取 v 本身的最大值",
    },
    "first moment with β₂": {  # en-only: a name
        "en": "the first moment m averages with β₂: m's rate is β₁",
        "zh": "一阶矩 m 用 β₂ 做平均：m 的衰减率应是 β₁",
    },
    "first moment weighted by β₁": {  # en-only: a name
        "en": "the first moment weighs the new gradient by β₁: m = (1 − β₁)m + β₁g, where β₁ "
        "weighs the old m",
        "zh": "一阶矩给新梯度的权重是 β₁：m = (1 − β₁)m + β₁g，而 β₁ 应是旧 m 的权重",
    },
    "first moment without (1 − β₁)": {  # en-only: a name
        "en": "the first moment adds g whole (m = β₁m + g): the new gradient is weighed by 1 − β₁",
        "zh": "一阶矩加上了完整的 g（m = β₁m + g）：新梯度的权重应是 1 − β₁",
    },
    "second moment with 1 − β₁": {  # en-only: a name
        "en": "the second moment weighs g² by 1 − β₁: its rate is β₂",
        "zh": "二阶矩给 g² 的权重是 1 − β₁：它的衰减率应是 β₂",
    },
    "moments not kept": {  # en-only: a name
        "en": NOT_KEPT["en"].format("the moments m and v are"),
        "zh": NOT_KEPT["zh"].format("矩 m 和 v 都"),
    },
    "weight decay after the moments": {  # en-only: a name
        "en": "the weight decay is computed after the moments and never reaches them: Adam's "
        "decay is lost",
        "zh": "权重衰减是在计算矩之后才算的，从未进入矩：Adam 的衰减丢失了",
    },
    "default:eps": {  # en-only: a name
        "en": "the group's own eps is ignored: it is read from the optimizer's defaults",
        "zh": "忽略了参数组自己的 eps：它是从优化器的默认值中读取的",
    },
    "group options ignored": {  # en-only: a name
        "en": "the group's own options are ignored: each group's parameters take the "
        "optimizer's defaults",
        "zh": "忽略了参数组自己的选项：每个参数组的参数都用了优化器的默认值",
    },
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


def _count(n: int, noun: str, zh: str) -> str:
    """The count and its noun, plural unless one: "1 parameter", "3 parameters" (``zh``:
    the noun in Chinese, its measure word included: "3 个参数")."""
    return f"{n} {tr(noun + ('' if n == 1 else 's'), zh)}"


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
    parts = [call_text((tr("Adam subclass", "Adam 子类") if contract else name), defaults)]
    if len(groups) > 1 or groups[0][1]:
        own = [f"{list(ix)} {opts or tr('defaults', '默认值')}" for ix, opts in groups]
        parts.append(tr("groups ", "参数组 ") + tr("; ", "；").join(own))
    kinds = ", ".join(f"{tuple(s)} {d}" for s, d in zip(shapes, dtypes))
    counts = _count(len(shapes), "parameter", "个参数"), _count(steps, "step", "步")
    parts.append(f"{counts[0]} ({kinds}){tr(', ', '，')}{counts[1]}")
    if nones:
        parts.append(tr(f"{nones} gradients None", f"其中 {nones} 处梯度为 None"))
    if share:
        parts.append(
            tr("one gradient tensor given to two parameters", "同一个梯度张量给了两个参数")
        )
    if closure:
        parts.append("step(closure)")
    if contract:
        parts.append(
            tr(
                "_weight_decay overridden (returns 2g): Adam.step must call it",
                "重写了 _weight_decay（返回 2g）：Adam.step 必须调用它",
            )
        )
    calls = sum(g is not None for row in grads for g in row) if contract else None
    return Case(
        label or tr(", ", "，").join(parts),
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
    call = f"AdamW(lr={lr}, weight_decay={weight_decay})._weight_decay(p, g, group)"
    label = tr(f"{call} on {dtype}", f"{call}，{dtype} 上")
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
    text = label or tr(
        f"{call_text(name, defaults)}, groups {[list(ix) for ix, _ in groups]}, {before} steps, "
        f"state_dict(), load into a new optimizer over new {load_dtype} parameters, {after} steps",
        f"{call_text(name, defaults)}，参数组 {[list(ix) for ix, _ in groups]}，{before} 步，"
        f"state_dict()，加载到一个新优化器（管理新的 {load_dtype} 参数）中，再走 {after} 步",
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
    call = f"{kind}({', '.join(f'{k}={v}' for k, v in shown.items())})"
    text = tr(
        f"{call}, base lrs {base_lrs}, {steps} steps",
        f"{call}，基础学习率 {base_lrs}，{steps} 步",
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
                "fraction one short": (t - start) / (end - start + 1),  # en-only: bug
                "fraction over the end": (t - start) / end,  # en-only: bug
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
    what = "Adam (β₁)" if beta1 else tr("SGD (momentum)", "SGD（动量）")
    given = ", ".join(f"{k}={v!r}" for k, v in options.items())
    text = label or tr(
        f"OneCycleLR over {what}, max_lr={max_lr}, {given}",
        f"OneCycleLR，作用于 {what}，max_lr={max_lr}, {given}",
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
    kinds = ", ".join(tr("no grad", "无梯度") if s is None else str(tuple(s)) for s in shapes)
    inf, nan = tr(" (an inf)", "（含 inf）"), tr(" (a nan)", "（含 nan）")
    text = (
        tr(
            f"{call} on {dtype} gradients of shapes {kinds}",
            f"{call}，作用于形状为 {kinds} 的 {dtype} 梯度",
        )
        + (
            tr(" (one gradient object shared by two parameters)", "（两个参数共用同一个梯度对象）")
            if share
            else ""
        )
        + {True: inf, "nan": nan, "quiet": inf, "quiet nan": nan}.get(nonfinite, "")
        + (tr(" (params a single Tensor)", "（params 是单个 Tensor）") if single else "")
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

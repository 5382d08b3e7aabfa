"""Chapter 6's stand-ins (see ``autograder/harness/standin.py``): the autograder's own
version of a task, installed into the code under test for a rerun of a check that needs it
(every optimizer is built by 6.1's ``add_param_group``; 6.6's checks run Adam's step, 6.5;
6.7's run SGD's and Adam's steps, 6.2 and 6.5, and AdamW's decay, 6.6: always earlier
tasks).

Each is enough for the checks that lean on it and deliberately short of its own task, so
pasted into that task it fails (the course repository's ``test_contracts.py``; pasted as a
student would: a variant in the course repository's ``ch06_broken.py``):

- 6.1 fills the defaults but keeps the group's params as a tuple (PyTorch's, and the
  checks', are a list), and it refuses nothing (a set, a non-leaf, a tensor in two groups, a
  required option left unset all pass: those checks are given code in the reference, before
  the task, which a stand-in replaces too); its ``zero_grad`` sets every gradient to None,
  even with ``set_to_none=False``.
- 6.2 and 6.5 are SGD's and Adam's rules (Adam's through ``self._weight_decay``), but
  ``step(closure)`` neither calls the closure nor returns its loss.
- 6.6 decays p into a new float64 array: a float32 parameter does not keep its dtype.
Runs in the child: standard library and NumPy only."""

from __future__ import annotations

import math
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from ...harness.standin import Patch


def _groups(sp: ModuleType) -> list[Patch]:
    tensor_type = sp.Tensor

    def add_param_group(self: Any, param_group: dict) -> None:
        params = param_group["params"]
        params = (params,) if isinstance(params, tensor_type) else tuple(params)
        group = dict(param_group, params=params)
        for name, default in self.defaults.items():
            group.setdefault(name, default)
        self.param_groups.append(group)

    def zero_grad(self: Any, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                p.grad = None

    return [
        (sp.optim.Optimizer, "add_param_group", add_param_group),
        (sp.optim.Optimizer, "zero_grad", zero_grad),
    ]


def _with_grads(group: dict) -> list:
    return [p for p in group["params"] if p.grad is not None]


def _sgd(sp: ModuleType) -> list[Patch]:
    def step(self: Any, closure: Any = None) -> Any:
        for group in self.param_groups:
            mu, tau, wd = group["momentum"], group["dampening"], group["weight_decay"]
            for p in _with_grads(group):
                g = np.asarray(p.grad.data) + wd * p.data
                if mu:
                    state = self.state[p]
                    old = state.get("momentum_buffer")
                    new = g.copy() if old is None else mu * old.data + (1 - tau) * g
                    state["momentum_buffer"] = sp.Tensor._from_array(new)
                    g = g + mu * new if group["nesterov"] else new
                p.data -= group["lr"] * g

    return [(sp.optim.SGD, "step", step)]


def _adam(sp: ModuleType) -> list[Patch]:
    def step(self: Any, closure: Any = None) -> Any:
        for group in self.param_groups:
            (b1, b2), eps = group["betas"], group["eps"]
            for p in _with_grads(group):
                state = self.state[p]
                if not state:
                    zeros = np.zeros_like(p.data)
                    state["step"] = 0
                    state["exp_avg"] = sp.Tensor._from_array(zeros.copy())
                    state["exp_avg_sq"] = sp.Tensor._from_array(zeros.copy())
                    if group["amsgrad"]:
                        state["max_exp_avg_sq"] = sp.Tensor._from_array(zeros.copy())
                state["step"] += 1
                t = state["step"]
                g = self._weight_decay(p, p.grad.data, group)
                m = b1 * state["exp_avg"].data + (1 - b1) * g
                v = b2 * state["exp_avg_sq"].data + (1 - b2) * g * g
                state["exp_avg"].data[...] = m
                state["exp_avg_sq"].data[...] = v
                if group["amsgrad"]:
                    v = np.maximum(state["max_exp_avg_sq"].data, v)
                    state["max_exp_avg_sq"].data[...] = v
                bias = math.sqrt(1 - b2**t)
                p.data -= group["lr"] / (1 - b1**t) * m / (np.sqrt(v) / bias + eps)

    return [(sp.optim.Adam, "step", step)]


def _adamw(sp: ModuleType) -> list[Patch]:
    def _weight_decay(self: Any, p: Any, g: Any, group: dict) -> Any:
        decay = 1 - group["lr"] * group["weight_decay"]
        p.data = np.asarray(p.data, dtype=np.float64) * decay
        return g

    return [(sp.optim.AdamW, "_weight_decay", _weight_decay)]


def _lambda_lr(sp: ModuleType) -> list[Patch]:
    """6.8's ``LambdaLR.get_lr`` for 6.12's checks (course version 1.1): η₀·λ(t) with the
    first group's λ for every group, so pasted into 6.8 it fails the check of one function
    per group; the other schedules are not stood in for (no check of a later task runs
    them)."""

    def get_lr(self: Any) -> list[float]:
        return [base * self.lr_lambdas[0](self.last_epoch) for base in self.base_lrs]

    return [(sp.optim.lr_scheduler.LambdaLR, "get_lr", get_lr)]


STANDINS: dict[str, Callable[[ModuleType], list[Patch]]] = {
    "6.1": _groups,
    "6.2": _sgd,
    "6.5": _adam,
    "6.6": _adamw,
    "6.8": _lambda_lr,  # (for 6.12's checks, course version 1.1)
}

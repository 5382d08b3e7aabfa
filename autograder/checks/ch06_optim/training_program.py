"""The training run's check program (``training.py``): the only part of that check that runs
next to the code under test (standard library and NumPy only).

A two-layer perceptron ``relu(x W₁ + b₁) W₂ + b₂`` on plain Tensors (no Module, no Linear:
chapter 5's tasks are not what this run judges), the loss the mean squared error against
one-hot targets (chapters 2–4's operations only), and the optimizer under test over two
param groups (weights, biases). Each step: the schedule's learning rate (and momentum or
β₁) written into each group, the gradients set to None (as ``zero_grad`` would: 6.1's,
judged by its own checks), the loss, ``backward``, the gradients clipped by their total
norm (by this program, in NumPy), ``step``.

At step ``stop`` the run is checkpointed: model weights (arrays) and ``optimizer.
state_dict()``. It goes on for ``lost`` more steps (work a crash then throws away: the
snapshot must not change meanwhile), and is resumed from the checkpoint with fresh
tensors and a fresh optimizer built with bare options (``load_state_dict`` brings the
saved ones back, as in PyTorch), then runs to the end."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...harness.kit import host, tensor


def _optimizer(sp, name: str, params: list, options: dict, bare: bool) -> Any:
    """The optimizer over two groups: the weights (the options) and the biases (no weight
    decay). ``bare``: built with the learning rate only (a fresh process's optimizer)."""
    options = {} if bare else dict(options)
    if "betas" in options:
        options["betas"] = tuple(options["betas"])
    groups = [{"params": [params[0], params[2]]}, {"params": [params[1], params[3]]}]
    if not bare:
        groups[1]["weight_decay"] = 0.0
    return getattr(sp.optim, name)(groups, lr=0.01, **options)


def _schedule(optimizer: Any, lrs: list, momenta: list | None) -> None:
    """Step t's options: one learning rate per group, and the cycled momentum (SGD) or β₁
    (Adam, AdamW), as OneCycleLR writes them."""
    for group, lr in zip(optimizer.param_groups, lrs):
        group["lr"] = lr
        if momenta is not None:
            if "betas" in group:
                group["betas"] = (momenta, group["betas"][1])
            else:
                group["momentum"] = momenta


def _loss(sp, params: list, x: Any, target: Any) -> Any:
    w1, b1, w2, b2 = params
    hidden = (x @ w1 + b1).relu()
    diff = hidden @ w2 + b2 - target
    return (diff * diff).mean()


def _clip(sp, params: list, max_norm: float | None) -> None:
    """``clip_grad_norm_`` done here in NumPy (task 6.10 is not what this run judges): each
    gradient becomes a new tensor g·min(1, max_norm / (‖g‖ + 1e-6)), ‖g‖ the total norm."""
    if max_norm is None:
        return
    total = float(np.sqrt(sum(float((p.grad.data**2).sum()) for p in params)))
    coef = min(1.0, max_norm / (total + 1e-6))
    for p in params:
        p.grad = sp.Tensor(p.grad.data * coef)


def training(
    sp,
    x: Any,
    y: Any,
    classes: int,
    weights: list,
    optimizer: str,
    options: dict,
    batches: list,
    lrs: list,
    momenta: list | None,
    clip: float | None,
    stop: int,
    lost: int,
) -> dict:
    """The losses of the steps the final run took (the lost ones apart) and the final
    parameters."""
    target = np.eye(classes)[np.asarray(y)]
    params = [tensor(sp, w, True) for w in weights]
    opt = _optimizer(sp, optimizer, params, options, bare=False)

    def run(t: int, params: list, opt: Any) -> float:
        _schedule(opt, lrs[t], None if momenta is None else momenta[t])
        for p in params:
            p.grad = None
        idx = np.asarray(batches[t])
        loss = _loss(sp, params, sp.Tensor(x[idx]), sp.Tensor(target[idx]))
        loss.backward()
        _clip(sp, params, clip)
        opt.step()
        return float(host(loss))

    losses = [run(t, params, opt) for t in range(stop)]
    saved_weights = [np.array(host(p), copy=True) for p in params]
    saved = opt.state_dict()
    lost_losses = [run(t, params, opt) for t in range(stop, stop + lost)]
    params = [tensor(sp, w, True) for w in saved_weights]
    opt = _optimizer(sp, optimizer, params, options, bare=True)
    opt.load_state_dict(saved)
    losses += [run(t, params, opt) for t in range(stop, len(batches))]
    return {
        "losses": losses,
        "lost": lost_losses,
        "params": [np.array(host(p), copy=True) for p in params],
    }

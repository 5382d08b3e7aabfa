"""Adadelta (given code): RMSprop's running average of g², and a second one of the steps
themselves, whose ratio sets each coordinate's step size (pytorch/examples' MNIST trains with
it, under ``StepLR``).

For each parameter p with gradient g, with ρ the averages' decay and ε a floor:

    g ← g + λ p                                   weight decay λ
    v ← ρ v + (1 − ρ) g²                          the average of g², as RMSprop's
    Δ = √(u + ε) / √(v + ε) · g                   u: the average of the past Δ²
    u ← ρ u + (1 − ρ) Δ²
    p ← p − η Δ                                   η = 1 by default

Zeiler's idea: η g / √v has the units of 1 / g, not of p; multiplying by √u, the typical size
of past steps, gives a step in p's own units, so the learning rate can stay at 1. At the start
u = 0, so the first steps are about √ε / √v · g: small, growing as u fills. State:
``{"step", "square_avg", "acc_delta"}``, PyTorch's names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...ch02_tensor.backend import array_module
from .optimizer import Optimizer, zeros_like


class Adadelta(Optimizer):
    """``Adadelta(params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, *, maximize=False)``."""

    def __init__(
        self,
        params: Any,
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0.0,
        *,
        maximize: bool = False,
    ) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize)
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter with a gradient, by the rule above (arrays in place)."""
        loss = self._closure(closure)
        for group in self.param_groups:
            lr, rho, eps = group["lr"], group["rho"], group["eps"]
            weight_decay = group["weight_decay"]
            for p in self._with_grad(group):
                g, state = p.grad.data, self.state[p]
                if group["maximize"]:
                    g = -g
                if not state:
                    state["step"] = 0
                    state["square_avg"] = zeros_like(p)
                    state["acc_delta"] = zeros_like(p)
                state["step"] += 1
                if weight_decay != 0:
                    g = g + weight_decay * p.data
                xp = array_module(g)
                v, u = state["square_avg"].data, state["acc_delta"].data
                v *= rho
                v += (1 - rho) * (g * g)
                delta = xp.sqrt(u + eps) / xp.sqrt(v + eps) * g
                u *= rho
                u += (1 - rho) * (delta * delta)
                p.data -= lr * delta
        return loss

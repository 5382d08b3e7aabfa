"""Adam: momentum and RMSprop together, with the bias of their zero start corrected. Task 6.5.
AdamW: the same with the weight decay taken out of the gradient. Task 6.6.

For each parameter p with gradient g, at step t = 1, 2, …:

    g ← g + λ p                            Adam's weight decay (coupled: it goes through v)
    m ← β₁ m + (1 − β₁) g                  first moment, a running mean of g      (m₀ = 0)
    v ← β₂ v + (1 − β₂) g²                 second moment, of g²                    (v₀ = 0)
    v̂ ← max(v̂, v)                          amsgrad only: the largest v so far
    p ← p − η/(1 − β₁ᵗ) · m / (√v / √(1 − β₂ᵗ) + ε)      (√v̂ in place of √v with amsgrad)

Bias correction: m and v start at 0, so early on they are too small. After t steps of a
constant gradient, m = (1 − β₁ᵗ) g: dividing by 1 − β₁ᵗ gives g back (and v by 1 − β₂ᵗ).
Without it Adam's first step (β₁ = 0.9, β₂ = 0.999) would be (1 − β₁)/√(1 − β₂) ≈ 3.16
times its size, and with only m corrected 1/√(1 − β₂) ≈ 31.6 times.

AdamW (Loshchilov & Hutter) decays the weights directly, before the update, instead of
adding λp to the gradient, where Adam's normalisation by √v would shrink the decay of
exactly the weights whose gradients are large:

    p ← p (1 − η λ)                        then Adam's update with g unchanged

The one place the two differ is ``_weight_decay``; ``Adam.step`` calls it.
State: ``{"step", "exp_avg", "exp_avg_sq"}``, and ``"max_exp_avg_sq"`` with amsgrad.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ...ch02_tensor.backend import array_module
from .optimizer import Optimizer, zeros_like


class Adam(Optimizer):
    """``Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False)``."""

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        amsgrad: bool = False,
    ) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(
            lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=amsgrad
        )
        super().__init__(params, defaults)

    def _weight_decay(self, p: Any, g: Any, group: dict) -> Any:
        """Adam's weight decay: the gradient array plus λ·p (a new array; p unchanged)."""
        if group["weight_decay"] == 0:
            return g
        return g + group["weight_decay"] * p.data

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter with a gradient, by the rule above: the step count
        first (t), then ``g = self._weight_decay(p, g, group)`` (where Adam and AdamW
        differ), then the moments (in place), then ``p.data`` in place."""
        loss = self._closure(closure)
        for group in self.param_groups:
            lr, (beta1, beta2) = group["lr"], group["betas"]
            eps, amsgrad = group["eps"], group["amsgrad"]
            for p in self._with_grad(group):
                g, state = p.grad.data, self.state[p]
                raise NotImplementedError(
                    "Task 6.5: Adam: moments and bias correction — see §5 of the notebook"
                )
        return loss


class AdamW(Adam):
    """``AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
    amsgrad=False)``: Adam with decoupled weight decay."""

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
    ) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad)

    def _weight_decay(self, p: Any, g: Any, group: dict) -> Any:
        """AdamW's weight decay: ``p.data`` scaled by 1 − ηλ in place, the gradient array
        returned unchanged."""
        raise NotImplementedError(
            "Task 6.6: AdamW: decoupled weight decay — see §5 of the notebook"
        )

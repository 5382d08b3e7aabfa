"""RMSprop: Adagrad that forgets, so the steps stop shrinking. Task 6.4.

For each parameter p with gradient g, at step t = 1, 2, …:

    g ← g + λ p                           weight decay λ
    v ← α v + (1 − α) g²                  a running average of squares (v₀ = 0)
    a ← α a + (1 − α) g                   centered only: a running average of g (a₀ = 0)
    r ← √(v − a²) + ε   (centered)   or   r ← √v + ε
    b ← μ b + g / r;  p ← p − η b         with momentum μ > 0 (b₀ = 0)
    p ← p − η g / r                       without

v remembers about the last 1/(1 − α) squared gradients (α = 0.99: a hundred), so a
coordinate's step size follows the gradients' recent size instead of their whole history.
Centered, r estimates the gradients' standard deviation rather than their root mean square.
State: ``{"step", "square_avg"}``, plus ``"momentum_buffer"`` when μ > 0 and ``"grad_avg"``
when centered, each made at the first step (zeros, like p).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...ch02_tensor.backend import array_module
from .optimizer import Optimizer, zeros_like


class RMSprop(Optimizer):
    """``RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
    centered=False)``."""

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        momentum: float = 0.0,
        centered: bool = False,
    ) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if alpha < 0.0:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(
            lr=lr,
            momentum=momentum,
            alpha=alpha,
            eps=eps,
            centered=centered,
            weight_decay=weight_decay,
        )
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter with a gradient, by the rule above, on arrays; the
        state's arrays change in place, and so does ``p.data``."""
        loss = self._closure(closure)
        for group in self.param_groups:
            lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
            weight_decay, momentum = group["weight_decay"], group["momentum"]
            centered = group["centered"]
            for p in self._with_grad(group):
                g, state = p.grad.data, self.state[p]
                ### BEGIN SOLUTION 6.4
                if not state:
                    state["step"] = 0
                    state["square_avg"] = zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = zeros_like(p)
                    if centered:
                        state["grad_avg"] = zeros_like(p)
                state["step"] += 1
                if weight_decay != 0:
                    g = g + weight_decay * p.data
                xp = array_module(g)
                v = state["square_avg"].data
                v *= alpha
                v += (1 - alpha) * (g * g)
                if centered:
                    a = state["grad_avg"].data
                    a += (g - a) * (1 - alpha)
                    r = xp.sqrt(v - a * a) + eps
                else:
                    r = xp.sqrt(v) + eps
                if momentum > 0:
                    b = state["momentum_buffer"].data
                    b *= momentum
                    b += g / r
                    p.data -= lr * b
                else:
                    p.data -= lr * (g / r)
                ### END SOLUTION
        return loss

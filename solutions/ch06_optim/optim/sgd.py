"""Stochastic gradient descent, with momentum, dampening, Nesterov and weight decay. Task 6.2.

For each parameter p with gradient g, at step t (PyTorch's form, which puts the learning
rate outside the buffer):

    g ← g + λ p                                   weight decay λ (an L2 penalty ½λ‖p‖²)
    b ← g                          at the first step  (momentum μ > 0)
    b ← μ b + (1 − τ) g            afterwards         (dampening τ)
    d ← g + μ b  (nesterov)   or   d ← b              (μ > 0)   or   d ← g   (μ = 0)
    p ← p − η d

The buffer b is a running sum of past gradients, each older one weighted by another μ: in a
valley whose walls the gradient bounces between, the bounces cancel in b and the slope
along the floor adds up. Nesterov's form steps with the gradient plus the buffer once more,
a look-ahead to where momentum is about to carry p.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...ch02_tensor.tensor import Tensor
from .optimizer import Optimizer


class SGD(Optimizer):
    """``SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False)``."""

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        momentum: float = 0.0,
        dampening: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
    ) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
        )
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter with a gradient, by the rule above, on arrays: the
        buffer is ``state[p]["momentum_buffer"]`` (a Tensor made at the first step, then
        changed in place), and ``p.data`` changes in place. The group's own options
        (``group["lr"]``, ``group["momentum"]``, …) apply to its parameters."""
        loss = self._closure(closure)
        for group in self.param_groups:
            lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
            weight_decay, nesterov = group["weight_decay"], group["nesterov"]
            for p in self._with_grad(group):
                g = p.grad.data
                ### BEGIN SOLUTION 6.2
                if weight_decay != 0:
                    g = g + weight_decay * p.data
                if momentum != 0:
                    state = self.state[p]
                    buffer = state.get("momentum_buffer")
                    if buffer is None:
                        buffer = Tensor._from_array(g.copy())
                        state["momentum_buffer"] = buffer
                    else:
                        buffer.data *= momentum
                        buffer.data += (1 - dampening) * g
                    g = g + momentum * buffer.data if nesterov else buffer.data
                p.data -= lr * g
                ### END SOLUTION
        return loss

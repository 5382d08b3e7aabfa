"""Adagrad: a learning rate per coordinate, shrinking with the gradients seen. Task 6.3.

For each parameter p with gradient g, at step t = 1, 2, …:

    g ← g + λ p                           weight decay λ
    η_t = η / (1 + (t − 1) δ)             learning-rate decay δ
    s ← s + g²                            the sum of squares, elementwise (s₀ = initial value)
    p ← p − η_t g / (√s + ε)

A coordinate whose gradients have been large takes small steps and one whose gradients have
been small takes large ones: every direction moves at about the same pace. But s only
grows, so every step is smaller than the last, and a long run stalls (RMSprop's fix is to
forget: §4). The state is made for every parameter when the optimizer is (as in PyTorch):
``state[p] = {"step": 0, "sum": s₀ everywhere}``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...ch02_tensor.backend import array_module
from ...ch02_tensor.tensor import Tensor
from .optimizer import Optimizer


class Adagrad(Optimizer):
    """``Adagrad(params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
    eps=1e-10)``."""

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        lr_decay: float = 0.0,
        weight_decay: float = 0.0,
        initial_accumulator_value: float = 0.0,
        eps: float = 1e-10,
    ) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if lr_decay < 0.0:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if initial_accumulator_value < 0.0:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}"
            )
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = dict(
            lr=lr,
            lr_decay=lr_decay,
            eps=eps,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
        )
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, group)

    def _init_state(self, p: Any, group: dict) -> None:
        """``state[p] = {"step": 0, "sum": s₀ everywhere}``, s₀ the group's
        ``initial_accumulator_value`` (PyTorch takes the constructor's for every group; here a
        group's own value counts, as its other options do)."""
        s0 = array_module(p.data).full_like(p.data, group["initial_accumulator_value"])
        self.state[p] = {"step": 0, "sum": Tensor._from_array(s0)}

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter with a gradient, by the rule above: ``state[p]
        ["step"]`` counts (t), ``state[p]["sum"]``'s array accumulates in place, ``p.data``
        changes in place."""
        loss = self._closure(closure)
        for group in self.param_groups:
            lr, lr_decay, eps = group["lr"], group["lr_decay"], group["eps"]
            weight_decay = group["weight_decay"]
            for p in self._with_grad(group):
                if not self.state[p]:  # a group added after the optimizer was made
                    self._init_state(p, group)
                g, state = p.grad.data, self.state[p]
                raise NotImplementedError(
                    "Task 6.3: Adagrad: a learning rate per coordinate — see §4 of the notebook"
                )
        return loss

"""Learning-rate schedules as closed forms of the step count t = ``last_epoch``. Task 6.8.

With η₀ each group's base learning rate (``self.base_lrs``):

    StepLR(step_size, gamma=0.1)              η₀ · γ^⌊t / step_size⌋
    MultiStepLR(milestones, gamma=0.1)        η₀ · γ^(number of milestones ≤ t)
    ExponentialLR(gamma)                      η₀ · γ^t
    CosineAnnealingLR(T_max, eta_min=0)       η_min + (η₀ − η_min) (1 + cos(π t / T_max)) / 2
    LambdaLR(lr_lambda)                       η₀ · λ(t)   (one function, or one per group)

``OneCycleLR`` is in ``one_cycle.py`` (task 6.9); the base class, ``LRScheduler``, in
``scheduler.py``; ``ReduceLROnPlateau``, driven by a measured loss rather than the step
count, in ``plateau.py`` (given). A large step early and small ones late: the early steps
cross the loss surface quickly, the late ones settle into a minimum that large steps would
bounce around.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence
from typing import Any

from .one_cycle import OneCycleLR
from .optimizer import Optimizer
from .plateau import ReduceLROnPlateau
from .scheduler import LRScheduler

__all__ = [
    "CosineAnnealingLR",
    "ExponentialLR",
    "LRScheduler",
    "LambdaLR",
    "MultiStepLR",
    "OneCycleLR",
    "ReduceLROnPlateau",
    "StepLR",
]


class StepLR(LRScheduler):
    """``StepLR(optimizer, step_size, gamma=0.1)``: γ times smaller every ``step_size``
    steps."""

    def __init__(
        self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        if not step_size > 0:
            raise ValueError(f"step_size must be positive, got {step_size!r}")
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        raise NotImplementedError(
            "Task 6.8: learning-rate schedules: closed forms — see §7 of the notebook"
        )


class MultiStepLR(LRScheduler):
    """``MultiStepLR(optimizer, milestones, gamma=0.1)``: γ times smaller at each milestone
    (a milestone listed twice counts twice, as in PyTorch)."""

    def __init__(
        self,
        optimizer: Optimizer,
        milestones: Sequence[int],
        gamma: float = 0.1,
        last_epoch: int = -1,
    ) -> None:
        self.milestones, self.gamma = sorted(milestones), gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        raise NotImplementedError(
            "Task 6.8: learning-rate schedules: closed forms — see §7 of the notebook"
        )


class ExponentialLR(LRScheduler):
    """``ExponentialLR(optimizer, gamma)``: γ times smaller every step."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        raise NotImplementedError(
            "Task 6.8: learning-rate schedules: closed forms — see §7 of the notebook"
        )


class CosineAnnealingLR(LRScheduler):
    """``CosineAnnealingLR(optimizer, T_max, eta_min=0)``: half a cosine from η₀ down to
    η_min over ``T_max`` steps (and back up after, as PyTorch's does)."""

    def __init__(
        self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1
    ) -> None:
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        raise NotImplementedError(
            "Task 6.8: learning-rate schedules: closed forms — see §7 of the notebook"
        )


class LambdaLR(LRScheduler):
    """``LambdaLR(optimizer, lr_lambda)``: η₀ times ``lr_lambda(t)``; a list gives each
    group its own function. Its ``state_dict`` leaves the functions out (they are code)."""

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | Sequence[Callable[[int], float]],
        last_epoch: int = -1,
    ) -> None:
        groups = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != groups:
                raise ValueError(f"Expected {groups} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * groups
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        raise NotImplementedError(
            "Task 6.8: learning-rate schedules: closed forms — see §7 of the notebook"
        )

    def state_dict(self) -> dict[str, Any]:
        state = super().state_dict()
        state["lr_lambdas"] = [None] * len(self.lr_lambdas)
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        lr_lambdas = self.lr_lambdas
        super().load_state_dict(state_dict)
        self.lr_lambdas = lr_lambdas

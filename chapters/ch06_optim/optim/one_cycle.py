"""``OneCycleLR``: warm up, then anneal, once over the whole run (Smith's 1cycle). Task 6.9.

Over ``total_steps`` steps the learning rate goes up from η_max / ``div_factor`` to η_max
during the first ``pct_start`` of the run, then down to η_max / ``div_factor`` /
``final_div_factor`` by the last step. Momentum (SGD's ``momentum``, or Adam's β₁) does the
opposite, from ``max_momentum`` down to ``base_momentum`` and back, so that the steps with
the largest learning rate carry the least momentum. Each phase runs from ``start_step`` to
``end_step`` and blends its two ends with

    cos:     end + (start − end) (1 + cos(π p)) / 2
    linear:  start + (end − start) p          p = (t − start_step) / (end_step − start_step)

Two phases (PyTorch's default):

    t from 0 to pct_start·T − 1:          lr  initial → max,   momentum  max → base
    then to T − 1:                        lr  max → min,       momentum  base → max

and with ``three_phase=True``: up to pct_start·T − 1 (initial → max), down to 2·pct_start·T
− 2 (max → initial), then to T − 1 (initial → min), momentum base and max swapped in the
first two and held at max in the third.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .optimizer import Optimizer
from .scheduler import LRScheduler


def _anneal(strategy: str, start: float, end: float, pct: float) -> float:
    """The value a fraction ``pct`` of the way from ``start`` to ``end``."""
    if strategy == "cos":
        return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
    return (end - start) * pct + start


class OneCycleLR(LRScheduler):
    """``OneCycleLR(optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
    pct_start=0.3, anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85,
    max_momentum=0.95, div_factor=25.0, final_div_factor=1e4, three_phase=False)``: step it
    after every batch, ``total_steps`` (or ``epochs · steps_per_epoch``) times."""

    def __init__(
        self,
        optimizer: Optimizer,
        max_lr: float | Sequence[float],
        total_steps: int | None = None,
        epochs: int | None = None,
        steps_per_epoch: int | None = None,
        pct_start: float = 0.3,
        anneal_strategy: str = "cos",
        cycle_momentum: bool = True,
        base_momentum: float | Sequence[float] = 0.85,
        max_momentum: float | Sequence[float] = 0.95,
        div_factor: float = 25.0,
        final_div_factor: float = 1e4,
        three_phase: bool = False,
        last_epoch: int = -1,
    ) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        if total_steps is not None:
            if not isinstance(total_steps, int) or total_steps <= 0:
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            for name, value in (("epochs", epochs), ("steps_per_epoch", steps_per_epoch)):
                if not isinstance(value, int) or value <= 0:
                    raise ValueError(f"Expected positive integer {name}, but got {value}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        if not isinstance(pct_start, float) or not 0 <= pct_start <= 1:
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self.anneal_strategy = anneal_strategy
        self.cycle_momentum = cycle_momentum
        self._schedule_phases = _phases(self.total_steps, pct_start, three_phase)
        groups = optimizer.param_groups
        max_lrs = _per_group(max_lr, groups, "max_lr")
        if last_epoch == -1:
            for lr, group in zip(max_lrs, groups):
                group["initial_lr"] = lr / div_factor
                group["max_lr"] = lr
                group["min_lr"] = group["initial_lr"] / final_div_factor
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(
                    "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
                )
            self.use_beta1 = "betas" in optimizer.defaults
            max_momentums = _per_group(max_momentum, groups, "max_momentum")
            base_momentums = _per_group(base_momentum, groups, "base_momentum")
            if last_epoch == -1:
                for m_max, m_base, group in zip(max_momentums, base_momentums, groups):
                    _set_momentum(group, m_max, self.use_beta1)
                    group["max_momentum"] = m_max
                    group["base_momentum"] = m_base
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """Each group's lr at step t = ``last_epoch``, from the phase t falls in (the last
        phase also takes any t beyond its end); with ``cycle_momentum``, the group's momentum
        (or β₁) set from the same phase and fraction. Stepping past ``total_steps`` is a
        ValueError."""
        t = self.last_epoch
        if t > self.total_steps:
            raise ValueError(
                f"Tried to step {t} times. The specified number of total steps is "
                f"{self.total_steps}"
            )
        lrs = []
        raise NotImplementedError(
            "Task 6.9: OneCycleLR: warm up, anneal, cycle momentum — see §8 of the notebook"
        )
        return lrs


def _phases(total_steps: int, pct_start: float, three_phase: bool) -> list[tuple]:
    """The schedule's phases: (end_step, start_lr, end_lr, start_momentum, end_momentum),
    the last four naming the group entries to blend."""
    up = float(pct_start * total_steps) - 1
    if three_phase:
        return [
            (up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
            (
                float(2 * pct_start * total_steps) - 2,
                "max_lr",
                "initial_lr",
                "base_momentum",
                "max_momentum",
            ),
            (total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"),
        ]
    return [
        (up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
        (total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"),
    ]


def _per_group(value: Any, groups: list, name: str) -> list:
    """One value for each group: a list or tuple must have one per group."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(groups):
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups. "
                f"{name} has {len(value)} values, param_groups has {len(groups)}."
            )
        return list(value)
    return [value] * len(groups)


def _set_momentum(group: dict, momentum: float, use_beta1: bool) -> None:
    """Set the group's momentum: Adam's β₁ (its ``betas`` tuple rebuilt) or SGD's
    ``momentum``."""
    if use_beta1:
        group["betas"] = (momentum, *group["betas"][1:])
    else:
        group["momentum"] = momentum

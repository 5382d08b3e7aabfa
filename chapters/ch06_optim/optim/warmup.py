"""``warmup_cosine``: a warm-up, then a cosine decay, as a factor for ``LambdaLR``. Task
6.12 (course version 1.1).

``LambdaLR(optimizer, warmup_cosine(warmup, total, start_factor, min_factor))`` multiplies
each group's base learning rate η₀ by the factor of the step count t (``last_epoch``):

- a linear warm-up over the first ``warmup`` steps, from ``start_factor`` at t = 0 toward
  1 (PyTorch's ``LinearLR(start_factor=start_factor, end_factor=1.0, total_iters=warmup)``);
- from t = warmup to t = total, half a cosine from 1 down to ``min_factor`` (PyTorch's
  ``CosineAnnealingLR(T_max=total − warmup, eta_min=min_factor·η₀)`` counted from the end of
  the warm-up: ``SequentialLR`` of the two with ``milestones=[warmup]``);
- after ``total``, ``min_factor`` (where PyTorch's cosine would rise again).

``warmup = 0`` is the cosine alone. It refuses (ValueError) a ``warmup`` below 0 or not
below ``total``, and a ``start_factor`` or ``min_factor`` outside [0, 1].

A large learning rate is risky at the start, where Adam's moments and the weights are
still settling, and wasteful at the end, where the steps should shrink to settle in a
minimum: the warm-up and the decay address one each.
"""

from __future__ import annotations

import math
from collections.abc import Callable


def warmup_cosine(
    warmup: int, total: int, start_factor: float = 0.1, min_factor: float = 0.0
) -> Callable[[int], float]:
    """The factor function t ↦ the learning rate's multiplier at step t (see the module)."""
    if not 0 <= warmup < total:
        raise ValueError(f"warmup_cosine needs 0 <= warmup < total, got {warmup} and {total}")
    for name, value in (("start_factor", start_factor), ("min_factor", min_factor)):
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"warmup_cosine's {name} must be in [0, 1], got {value}")

    def factor(t: int) -> float:
        raise NotImplementedError(
            "Task 6.12: warmup_cosine: a warm-up, then a cosine decay — see §12 of the notebook"
        )

    return factor

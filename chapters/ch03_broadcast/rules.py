"""NumPy's broadcasting rule, as a check with a clear error. Given code.

Two shapes are compared from the right, axis by axis. Sizes that are equal pass; a size 1
stretches to the other size; a missing axis (the shorter shape runs out) counts as size 1.
Anything else is an error. So ``shape`` *broadcasts to* ``target`` when, aligned from the
right, every axis of ``shape`` is 1 or equal to ``target``'s, and ``target`` has at least as
many axes::

    (3, 1)  →  (2, 3, 4)      yes: a new leading axis of 2, and the 1 stretches to 4
    (3,)    →  (2, 4)         no: 3 is neither 1 nor 4
"""

from __future__ import annotations


def broadcast_problem(shape: tuple[int, ...], target: tuple[int, ...]) -> str | None:
    """Why ``shape`` does not broadcast to ``target`` (None when it does)."""
    if any(n < 0 for n in target):
        return "a size cannot be negative (-1, 'keep this size', is expand's)"
    if len(shape) > len(target):
        return f"{len(shape)} dimensions cannot become {len(target)}"
    lead = len(target) - len(shape)
    for axis, size in enumerate(shape):
        want = target[lead + axis]
        if size not in (1, want):
            return f"at dimension {lead + axis}, size {size} cannot become {want}, only a 1 can"
    return None


def check_broadcast(shape: tuple[int, ...], target: tuple[int, ...], what: str) -> None:
    """A RuntimeError naming both shapes unless ``shape`` broadcasts to ``target``."""
    problem = broadcast_problem(tuple(shape), tuple(target))
    if problem:
        raise RuntimeError(
            f"{what}: shape {tuple(shape)} does not broadcast to {tuple(target)} ({problem})"
        )

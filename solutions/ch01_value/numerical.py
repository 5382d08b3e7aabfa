"""Numerical differentiation: the slow, approximate and trustworthy way to get a derivative.

Task 1.1 (§1 of the notebook). Every gradient this course computes by the chain rule is
checked against this kind of estimate.
"""

from __future__ import annotations

from collections.abc import Callable


def central_difference(f: Callable[[float], float], x: float, eps: float = 1e-6) -> float:
    """Task 1.1 — estimate f'(x) by the central difference.

        f'(x) ≈ (f(x + ε) − f(x − ε)) / 2ε

    Taylor-expanding f around x shows the error is O(ε²): the ε·f''(x) terms cancel,
    which the one-sided (f(x + ε) − f(x)) / ε cannot do (its error is O(ε)).
    """
    ### BEGIN SOLUTION 1.1
    return (f(x + eps) - f(x - eps)) / (2 * eps)
    ### END SOLUTION

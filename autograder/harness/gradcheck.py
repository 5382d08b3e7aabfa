"""The autograder's own numerical derivatives, in float64. Trusted: it never calls student
code, only the autograder's plain-NumPy reference functions."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

EPS = 1e-6


def partials(f: Callable[..., float], args: Sequence[float], eps: float = EPS) -> list[float]:
    """∂f/∂xᵢ at ``args`` for each i, by the central difference (f(x+ε) − f(x−ε)) / 2ε."""
    x = np.asarray(args, dtype=np.float64)
    out = []
    for i in range(x.size):
        step = np.zeros_like(x)
        step[i] = eps
        out.append(float((f(*(x + step)) - f(*(x - step))) / (2 * eps)))
    return out


def vjp(
    f: Callable[..., np.ndarray],
    arrays: Sequence[np.ndarray],
    upstream: np.ndarray,
    eps: float = EPS,
) -> list[np.ndarray]:
    """∂(Σ f(arrays) · upstream)/∂arrays[i] for each i, element by element, by the central
    difference in float64: the vector-Jacobian product a local backward must return.

    Each difference f(x + ε) − f(x − ε) is taken output by output before it meets
    ``upstream``, so outputs that an element does not affect cancel exactly."""
    xs = [np.array(a, dtype=np.float64, order="C") for a in arrays]  # reshape(-1) is a view
    g = np.asarray(upstream, dtype=np.float64)
    grads = []
    for x in xs:
        grad = np.zeros(x.shape)
        flat, out = x.reshape(-1), grad.reshape(-1)
        for i in range(flat.size):
            keep = flat[i]
            flat[i] = keep + eps
            up = np.array(f(*xs), dtype=np.float64)  # a copy: f may return a view of x
            flat[i] = keep - eps
            down = np.array(f(*xs), dtype=np.float64)
            flat[i] = keep
            out[i] = np.sum((up - down) * g) / (2 * eps)
        grads.append(grad)
    return grads

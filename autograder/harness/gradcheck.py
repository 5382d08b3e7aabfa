"""The autograder's own derivatives, in float64. Trusted: it never calls student code, only
the autograder's plain-NumPy reference functions.

``vjp`` and ``jvp`` use the complex step: for a function f that is real-analytic where it is
evaluated, f(x + ih) = f(x) + ih·f′(x) + O(h²), so f′(x) = Im f(x + ih) / h with no
subtraction, hence no cancellation: with h = 1e-30 the derivative is exact to float64
rounding (relative error ~1e-16), where a central difference stops near 1e-10. The
references must therefore accept complex arrays and keep their imaginary parts (write |a|
as ``np.where(a.real < 0, -a, a)``, not ``np.abs``; compare with ``.real``). ``partials``
(chapter 1's scalars) and ``hvp`` (second derivatives, checked at looser tolerances) keep
the central difference. ``sum_to`` is broadcasting's own vector-Jacobian product."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np

EPS = 1e-6
STEP = 1e-30  # the complex step: any h with h² far below float64's resolution of f


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
    f: Callable[..., np.ndarray], arrays: Sequence[np.ndarray], upstream: np.ndarray
) -> list[np.ndarray]:
    """∂(Σ f(arrays) · upstream)/∂arrays[i] for each i, element by element, by the complex
    step: Σ Im f(…, x + ih·eₖ, …) · upstream / h. The vector-Jacobian product a local
    backward must return, exact to float64 rounding."""
    xs = [np.array(a, dtype=np.complex128, order="C") for a in arrays]  # reshape(-1): a view
    g = np.asarray(upstream, dtype=np.float64)
    grads = [np.zeros(x.shape) for x in xs]
    for i, flat, k in _each_element(xs):
        flat[k] += 1j * STEP
        grads[i].flat[k] = np.sum(np.imag(f(*xs)) * g) / STEP
    return grads


def sum_to(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``a`` summed onto ``shape`` (which ``shape`` broadcasts to ``a.shape``): element i of
        ``a`` lands on i with the leading axes dropped and 0 on every axis where ``shape`` has
        size 1 (``np.add.at``: the definition of broadcasting, run backwards, rather than a sum
        over computed axes): the vector-Jacobian product of broadcasting. Keeps complex values
    (the complex step). The one copy: chapters 2 and 3's cases, verdicts and stand-ins."""
    a = np.asarray(a)
    a = a.astype(np.result_type(a.dtype, np.float64))
    if not shape:  # every element lands on the one element
        return np.asarray(a.sum())
    out = np.zeros(shape, dtype=a.dtype)
    lead = a.ndim - len(shape)
    axes = np.indices(a.shape)[lead:] if a.ndim else []
    index = tuple(np.zeros_like(i) if n == 1 else i for i, n in zip(axes, shape))
    np.add.at(out, index, a)
    return out


def jvp(
    f: Callable[..., np.ndarray], arrays: Sequence[np.ndarray], tangents: Sequence[np.ndarray]
) -> np.ndarray:
    """The directional derivative Σᵢ ∂f/∂arrays[i] · tangents[i] (the Jacobian times a
    vector), by one complex step along the tangents: Im f(x + ih·t) / h."""
    xs = [
        np.asarray(a, dtype=np.float64) + 1j * STEP * np.asarray(t, dtype=np.float64)
        for a, t in zip(arrays, tangents)
    ]
    return np.asarray(np.imag(f(*xs)) / STEP, dtype=np.float64)


def hvp(
    f: Callable[..., np.ndarray],
    arrays: Sequence[np.ndarray],
    tangents: Sequence[np.ndarray],
    upstream: np.ndarray,
    eps: float = 1e-5,
) -> list[np.ndarray]:
    """∂⟨upstream, jvp(f, arrays, tangents)⟩/∂arrays[i] for each i: the second derivative
    that a local backward's own graph must give back (its gradient with respect to the
    op's inputs, for ``tangents`` sent back from the local gradients). A central difference
    of the exact ``jvp``: about 1e-10 relative, for checks at 1e-6."""
    xs = [np.array(a, dtype=np.float64, order="C") for a in arrays]
    g = np.asarray(upstream, dtype=np.float64)

    def phi() -> float:
        return float(np.sum(jvp(f, xs, tangents) * g))

    grads = [np.zeros(x.shape) for x in xs]
    for i, flat, k in _each_element(xs):
        keep = flat[k]
        flat[k] = keep + eps
        up = phi()
        flat[k] = keep - eps
        grads[i].flat[k] = (up - phi()) / (2 * eps)
    return grads


def _each_element(xs: Sequence[np.ndarray]) -> Iterator[tuple[int, np.ndarray, int]]:
    """Each element of each C-contiguous array of ``xs`` as (i, xs[i] flattened (a view),
    k), for the caller to change in place: it is restored before the next one."""
    for i, x in enumerate(xs):
        flat = x.reshape(-1)
        for k in range(flat.size):
            keep = flat[k]
            yield i, flat, k
            flat[k] = keep

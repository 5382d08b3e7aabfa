"""The check programs of chapter 7's operations (``ops.py``): the only part of those checks
that runs next to the code under test (standard library and NumPy only). Each returns what
it saw and decides nothing.

A program runs the op forward on float64 (or float32) leaves, then ``autograd.grad`` with an
upstream gradient that itself requires a gradient (``create_graph=True``), so the same run
can go on to the gradient's gradient: ∂⟨∂L/∂x, w⟩/∂g, which exists only when the backward
was recorded as operations. Chapters 2–6 are the reference's in the graded tree, so only
the op's own forward and backward are judged. A failure in the backward pass is returned
as data (``backward_error``), so the verdict can name the mistake it points to; a stub's
NotImplementedError goes on up (the task is not started)."""

from __future__ import annotations

from typing import Any

import numpy as np


def _error(error: Exception) -> str:
    return f"{type(error).__name__}: {error}"


def _array(t: Any) -> Any:
    """A Tensor's data as a NumPy array (or what it is, in words, when it is no Tensor)."""
    if t is None:
        return None
    data = getattr(t, "data", None)
    if isinstance(data, np.ndarray):
        return np.array(data)
    return f"<{type(t).__name__}>"


def _grads(sp, out: Any, leaves: list, g: Any, w: Any, second: bool) -> dict:
    """∂⟨out, g⟩/∂leaves; with ``second``, ∂⟨those, w⟩/∂g too."""
    upstream = sp.Tensor(np.array(g, dtype=out.data.dtype), requires_grad=second)
    seen: dict[str, Any] = {}
    try:
        grads = sp.autograd.grad(out, leaves, upstream, create_graph=second)
    except NotImplementedError:
        raise
    except Exception as error:
        seen["backward_error"] = _error(error)
        return seen
    seen["grads"] = [_array(x) for x in grads]
    seen["grad_dtypes"] = [str(x.dtype) if x is not None else None for x in grads]
    if not second:
        return seen
    try:
        total = None
        for x, weights in zip(grads, w):
            term = (x * sp.Tensor(np.array(weights, dtype=out.data.dtype))).sum()
            total = term if total is None else total + term
        (gg,) = sp.autograd.grad(total, [upstream])
    except NotImplementedError:
        raise
    except Exception as error:
        seen["second_error"] = _error(error)
        return seen
    seen["grad_grad"] = _array(gg)
    return seen


def gather(sp, x: Any, dim: int, index: Any, g: Any, w: Any = None, dtype: str = "float64") -> dict:
    """``sp.gather(x, dim, index)``, its gradient for upstream ``g`` and, given ``w``, the
    gradient's gradient."""
    a = sp.Tensor(np.array(x, dtype=dtype), requires_grad=True)
    out = sp.gather(a, dim, sp.Tensor(np.array(index, dtype=np.int64)))
    seen = {"out": _array(out), "dtype": str(out.dtype)}
    seen.update(_grads(sp, out, [a], g, None if w is None else [w], w is not None))
    return seen


def cat(
    sp, xs: list, dim: int, g: Any, w: Any = None, dtype: str = "float64", stack: bool = False
) -> dict:
    """``sp.cat(xs, dim)`` (``sp.stack`` with ``stack``), the gradient of each input for
    upstream ``g`` and, given ``w`` (one array per input), the gradient's gradient."""
    leaves = [sp.Tensor(np.array(x, dtype=dtype), requires_grad=True) for x in xs]
    out = (sp.stack if stack else sp.cat)(leaves, dim)
    seen = {"out": _array(out), "dtype": str(out.dtype)}
    seen.update(_grads(sp, out, leaves, g, w, w is not None))
    return seen

"""``autograd.functional``: derivatives of a function, built on ``grad`` and
``create_graph``. Task 4.6 (``jvp`` and ``hessian``); ``vjp`` and ``jacobian`` are given.

For ``y = f(x)`` with Jacobian J = ∂y/∂x:

    vjp(f, x, v)   vᵀJ    one backward pass: grad(y, x, v)
    jvp(f, x, u)   J u    two backward passes (the double-backward trick): for a dummy w,
                          g(w) = grad(y, x, w, create_graph=True) = Jᵀw is linear in w, so
                          grad(g, w, u) = (Jᵀ)ᵀ u = J u
    jacobian(f, x) J      one vjp per element of y (a row each)
    hessian(f, x)  H      the Jacobian of x ↦ grad(f(x), x, create_graph=True)

``inputs`` is a Tensor or a tuple of Tensors; each is detached and made to require a
gradient first (the caller's tensors are never written). Results are detached unless
``create_graph=True`` (then they stay differentiable), as in PyTorch (``strict`` and
``vectorize`` are not supported).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..ch02_tensor.backend import array_module
from ..ch02_tensor.factories import ones_like, zeros, zeros_like
from ..ch02_tensor.tensor import Tensor
from .api import grad
from .grad_mode import enable_grad


def _prepare(inputs: Any, create_graph: bool) -> tuple[tuple, bool]:
    """``inputs`` as a tuple of fresh leaves that require grad, and whether it was one."""
    single = isinstance(inputs, Tensor)
    items = (inputs,) if single else tuple(inputs)
    fresh = []
    for x in items:
        if not isinstance(x, Tensor):
            raise TypeError(f"inputs must be Tensors, not {type(x).__name__}")
        leaf = x.detach() if not (create_graph and x.requires_grad) else x
        fresh.append(leaf if leaf.requires_grad else leaf.requires_grad_())
    return tuple(fresh), single


def _ones_for_one_element(xs: tuple) -> tuple:
    """jvp's ``v=None``: ones, allowed only for inputs of one element each (PyTorch's rule)."""
    if any(x.numel() != 1 for x in xs):
        raise RuntimeError(
            "The vector v can only be None if the input to the user-provided function is a "
            "single Tensor with a single element (jvp: pass v)"
        )
    return tuple(ones_like(x) for x in xs)


def _as_tuple(value: Any) -> tuple:
    return (value,) if isinstance(value, Tensor) else tuple(value)


def _finish(values: Any, create_graph: bool) -> Any:
    """Detach results unless the caller wants to differentiate them again."""
    if create_graph or values is None:
        return values
    if isinstance(values, Tensor):
        return values.detach()
    return tuple(_finish(v, create_graph) for v in values)


def _grads(
    outputs: tuple, inputs: tuple, vs: tuple, create_graph: bool, retain_graph: bool = True
) -> tuple:
    """grad(...) with zeros (not None) for inputs the outputs do not depend on, as PyTorch's
    functional does: outputs that do not require grad (constant in the inputs) are left out.
    The graph is kept by default: the callers here go through it more than once."""
    pairs = [(y, v) for y, v in zip(outputs, vs) if y.requires_grad]
    found: tuple = (None,) * len(inputs)
    if pairs:
        ys, ws = zip(*pairs)
        found = grad(ys, inputs, ws, retain_graph, create_graph=create_graph, allow_unused=True)
    return tuple(zeros_like(x) if g is None else g for g, x in zip(found, inputs))


def vjp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False) -> tuple:
    """``(func(inputs), vᵀJ)``; ``v`` may be omitted for a one-element output."""
    xs, single = _prepare(inputs, create_graph)
    with enable_grad():
        out = func(*xs)
        outs = _as_tuple(out)
        vs = (None,) * len(outs) if v is None else _as_tuple(v)
        result = _grads(outs, xs, vs, create_graph)
    return _finish(out, create_graph), _finish(result[0] if single else result, create_graph)


def jvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False) -> tuple:
    """``(func(inputs), J u)`` by the double-backward trick; ``v`` (u above) may be omitted
    for a one-element input."""
    xs, _ = _prepare(inputs, create_graph)
    with enable_grad():
        out = func(*xs)
        outs = _as_tuple(out)
        us = _ones_for_one_element(xs) if v is None else _as_tuple(v)
        raise NotImplementedError("Task 4.6: functional.jvp and hessian — see §10 of the notebook")


def jacobian(func: Callable, inputs: Any, create_graph: bool = False) -> Any:
    """∂func/∂inputs, of shape ``output.shape + input.shape`` (tuples of them for several
    outputs or inputs, as PyTorch: ``[i][j]`` is output i by input j)."""
    xs, single_in = _prepare(inputs, create_graph)
    with enable_grad():
        out = func(*xs)
        outs = _as_tuple(out)
        blocks = []
        for y in outs:
            rows: list[list] = [[] for _ in xs]
            flat = y.reshape(-1)
            for k in range(flat.shape[0]):
                g = _grads((flat[k],), xs, (None,), create_graph)
                for j, gj in enumerate(g):
                    rows[j].append(gj)
            blocks.append(tuple(_stack(r, y.shape, x, create_graph) for r, x in zip(rows, xs)))
    result: Any = tuple(b[0] if single_in else b for b in blocks)
    if isinstance(out, Tensor):
        result = result[0]
    return _finish(result, create_graph)


def hessian(func: Callable, inputs: Any, create_graph: bool = False) -> Any:
    """∂²func/∂inputs², for a ``func`` of one-element output: of shape ``input.shape * 2``
    (for several inputs, ``[i][j]`` is the block for inputs i and j)."""

    raise NotImplementedError("Task 4.6: functional.jvp and hessian — see §10 of the notebook")


def _stack(rows: list, out_shape: tuple, x: Tensor, create_graph: bool) -> Tensor:
    """Rows ∂y_k/∂x (each of x's shape) stacked to shape ``out_shape + x.shape``; with
    ``create_graph``, differentiably (Σ_k e_k ⊗ row_k, so the result keeps its graph)."""
    shape = (*out_shape, *x.shape)
    if not rows:
        return zeros(shape, dtype=x.dtype, device=x.device)
    if not create_graph:
        xp = array_module(rows[0].data)  # NumPy, or the rows' device's namespace
        return Tensor(xp.stack([r.data for r in rows]).reshape(shape))
    total = None
    for k, row in enumerate(rows):
        e = np.zeros((len(rows), 1), dtype=row.dtype)
        e[k, 0] = 1.0
        term = Tensor(e, device=row.device) @ row.reshape(1, -1)
        total = term if total is None else total + term
    return total.reshape(shape)

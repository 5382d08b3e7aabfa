"""``autograd.functional``: derivatives of a function, built on ``grad`` and
``create_graph``. Task 4.6 (``jvp`` and ``hessian``); ``vjp`` and ``jacobian`` are given.

For ``y = f(x)`` with Jacobian J = ∂y/∂x:

    vjp(f, x, v)   vᵀJ    one backward pass: grad(y, x, v)
    jvp(f, x, u)   J u    two backward passes (the double-backward trick): for a dummy w,
                          g(w) = grad(y, x, w, create_graph=True) = Jᵀw is linear in w, so
                          grad(g, w, u) = (Jᵀ)ᵀ u = J u
    jacobian(f, x) J      one vjp per element of y (a row each)
    hessian(f, x)  H      the Jacobian of x ↦ grad(f(x), x, create_graph=True)
    vhp(f, x, v)   vᵀH    (given) for a one-element f: grad(grad(f, x, create_graph), x, v)
    hvp(f, x, v)   H v    (given) the double-backward trick on g = ∇f: grad(Hᵀw, w, v)

``inputs`` is a Tensor or a tuple of Tensors; each is detached and made to require a
gradient first (the caller's tensors are never written). Results are detached unless
``create_graph=True`` (then they stay differentiable), as in PyTorch.

``strict=True`` (given code, PyTorch's checks and messages): a RuntimeError where an output
is independent of an input (its gradient would be structurally zero), instead of zeros; with
``create_graph=True`` also where a result does not depend on the inputs. ``vectorize`` is
accepted and changes nothing but speed in PyTorch (here: nothing); ``strategy=
"forward-mode"`` is not supported.
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


def _prepare_v(v: Any, create_graph: bool) -> tuple:
    """``v`` as a tuple, detached unless ``create_graph`` keeps its graph (PyTorch's)."""
    return tuple(t if create_graph and t.requires_grad else t.detach() for t in _as_tuple(v))


def _validate_v(vs: tuple, others: tuple, is_tuple: bool) -> None:
    """``v`` has one tensor of the right size per input (jvp, hvp, vhp) or output (vjp)."""
    if len(vs) != len(others):
        if is_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(others)} but got {len(vs)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (v, other) in enumerate(zip(vs, others)):
        if tuple(v.shape) != tuple(other.shape):
            where = f"Entry {i} in " if is_tuple else ""
            raise RuntimeError(
                f"{where}v has invalid size: should be {other.shape} but got {v.shape}."
            )


# -- strict=True: PyTorch's checks, given code -------------------------------------------------

_STRICT = " This is not allowed in strict mode."


def _raw_grads(outputs: tuple, inputs: tuple, vs: tuple | None, create_graph: bool) -> tuple:
    """grad(...) keeping ``None`` for inputs the outputs do not reach (strict mode needs to
    see them); outputs that are None or do not require grad are left out, as PyTorch's
    ``_autograd_grad``."""
    vs = (None,) * len(outputs) if vs is None else vs
    pairs = [(y, v) for y, v in zip(outputs, vs) if y is not None and y.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    ys, ws = zip(*pairs)
    return grad(ys, inputs, ws, True, create_graph=create_graph, allow_unused=True)


def _check_requires_grad(values: tuple, kind: str, strict: bool) -> None:
    """PyTorch's ``_check_requires_grad``: in strict mode, each value must exist and depend
    on the inputs (``kind``: outputs, grad_inputs, jacobian, hessian)."""
    if not strict:
        return
    for i, value in enumerate(values):
        if value is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}." + _STRICT
            )
        if value.requires_grad:
            continue
        if kind == "hessian":
            raise RuntimeError(
                f"The hessian of the user-provided function with respect to input {i} is "
                "independent of the input." + _STRICT + " You should ensure that your function "
                "is thrice differentiable and that the hessian depends on the inputs."
            )
        if kind == "jacobian":
            raise RuntimeError(
                "While computing the hessian, found that the jacobian of the user-provided "
                f"function with respect to input {i} is independent of the input." + _STRICT + " "
                "You should ensure that your function is twice differentiable and that the "
                "jacobian depends on the inputs (this would be violated by a linear function "
                "for example)."
            )
        if kind == "grad_inputs":
            raise RuntimeError(
                f"The gradient with respect to input {i} is independent of the inputs of the "
                "user-provided function." + _STRICT
            )
        raise RuntimeError(
            f"Output {i} of the user-provided function does not require gradients. The "
            "outputs must be computed in a differentiable manner from the input when running "
            "in strict mode."
        )


def _fill_in_zeros(grads: tuple, refs: tuple, strict: bool, create_graph: bool, stage: str):
    """PyTorch's ``_fill_in_zeros``: zeros for ``None`` gradients, or (strict) an error
    naming the stage: back (vjp), back_trick (jvp), double_back (vhp), double_back_trick
    (hvp)."""
    result = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                if stage == "back":
                    message = (
                        f"The output of the user-provided function is independent of input {i}."
                    )
                elif stage == "back_trick":
                    message = (
                        f"The gradient with respect to the input is independent of entry {i} "
                        "in the grad_outputs when using the double backward trick to compute "
                        "forward mode gradients."
                    )
                elif stage == "double_back":
                    message = (
                        f"The jacobian of the user-provided function is independent of input {i}."
                    )
                else:
                    message = (
                        "The hessian of the user-provided function is independent of entry "
                        f"{i} in the grad_jacobian. This is not allowed in strict mode as it "
                        "prevents from using the double backward trick to replace forward mode "
                        "AD."
                    )
                    raise RuntimeError(message)
                raise RuntimeError(message + _STRICT)
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}."
                " This is not allowed in strict mode when create_graph=True."
            )
        result.append(g)
    return tuple(result)


def _strict_jvp(outs: tuple, xs: tuple, us: tuple, create_graph: bool) -> None:
    """jvp's strict checks (PyTorch's), run before the task's computation: they raise or
    change nothing."""
    _check_requires_grad(outs, "outputs", True)
    dummies = tuple(zeros_like(y).requires_grad_() for y in outs)
    grad_inputs = _raw_grads(outs, xs, dummies, create_graph=True)
    _check_requires_grad(grad_inputs, "grad_inputs", True)
    found = _raw_grads(grad_inputs, dummies, us, create_graph)
    _fill_in_zeros(found, outs, True, create_graph, "back_trick")


def _strict_hessian(func: Callable, inputs: Any, create_graph: bool) -> None:
    """hessian's strict checks, PyTorch's composition: the outer jacobian (strict) of the
    inner jacobian, whose output must require grad and whose blocks must depend on the
    inputs. Run before the task's computation: they raise or change nothing."""

    def one_output(*xs: Tensor) -> Any:
        out = func(*xs)
        _check_requires_grad(_as_tuple(out), "outputs", True)
        return out

    def first_derivative(*xs: Tensor) -> tuple:
        blocks = jacobian(one_output, xs, create_graph=True)
        _check_requires_grad(blocks, "jacobian", True)
        return blocks

    jacobian(first_derivative, inputs, create_graph=create_graph, strict=True)


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


def vjp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple:
    """``(func(inputs), vᵀJ)``; ``v`` may be omitted for a one-element output."""
    xs, single = _prepare(inputs, create_graph)
    with enable_grad():
        out = func(*xs)
        outs = _as_tuple(out)
        _check_requires_grad(outs, "outputs", strict)
        if v is None:
            if len(outs) != 1 or outs[0].numel() != 1:
                raise RuntimeError(
                    "The vector v can only be None if the user-provided function returns a "
                    "single Tensor with a single element."
                )
            vs: tuple = (None,)
        else:
            vs = _prepare_v(v, create_graph)
            _validate_v(vs, outs, not isinstance(out, Tensor))
        if strict:
            found = _raw_grads(outs, xs, vs, create_graph)
            result = _fill_in_zeros(found, xs, strict, create_graph, "back")
        else:
            result = _grads(outs, xs, vs, create_graph)
    return _finish(out, create_graph), _finish(result[0] if single else result, create_graph)


def jvp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple:
    """``(func(inputs), J u)`` by the double-backward trick; ``v`` (u above) may be omitted
    for a one-element input."""
    xs, single = _prepare(inputs, create_graph)
    if v is not None:
        _validate_v(_as_tuple(v), xs, not single)
    with enable_grad():
        out = func(*xs)
        outs = _as_tuple(out)
        us = _ones_for_one_element(xs) if v is None else _as_tuple(v)
        if strict:  # (given: PyTorch's checks; they raise or change nothing)
            _strict_jvp(outs, xs, us, create_graph)
        raise NotImplementedError("Task 4.6: functional.jvp and hessian — see §10 of the notebook")


def jacobian(
    func: Callable,
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Any:
    """∂func/∂inputs, of shape ``output.shape + input.shape`` (tuples of them for several
    outputs or inputs, as PyTorch: ``[i][j]`` is output i by input j)."""
    _check_strategy(strategy, strict, vectorize)
    xs, single_in = _prepare(inputs, create_graph)
    with enable_grad():
        out = func(*xs)
        outs = _as_tuple(out)
        _check_requires_grad(outs, "outputs", strict)
        blocks = []
        for i, y in enumerate(outs):
            rows: list[list] = [[] for _ in xs]
            flat = y.reshape(-1)
            for k in range(flat.shape[0]):
                if strict:
                    g = _strict_row(flat[k], xs, i, create_graph)
                else:
                    g = _grads((flat[k],), xs, (None,), create_graph)
                for j, gj in enumerate(g):
                    rows[j].append(gj)
            blocks.append(tuple(_stack(r, y.shape, x, create_graph) for r, x in zip(rows, xs)))
    result: Any = tuple(b[0] if single_in else b for b in blocks)
    if isinstance(out, Tensor):
        result = result[0]
    return _finish(result, create_graph)


def _check_strategy(strategy: str, strict: bool, vectorize: bool) -> None:
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        raise NotImplementedError(
            'jacobian: strategy="forward-mode" is not supported here (the engine has no '
            'forward mode): use strategy="reverse-mode"'
        )
    if strict and vectorize:
        raise RuntimeError(
            "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
            "supported together. Please either set `strict=False` or `vectorize=False`."
        )


def _strict_row(y: Tensor, xs: tuple, i: int, create_graph: bool) -> tuple:
    """One row of the Jacobian (∂y/∂x for each x) under PyTorch's strict checks."""
    row = []
    for j, g in enumerate(_raw_grads((y,), xs, None, create_graph)):
        if g is None:
            raise RuntimeError(
                f"Output {i} of the user-provided function is independent of input {j}." + _STRICT
            )
        if create_graph and not g.requires_grad:
            raise RuntimeError(  # (PyTorch's message names the output's index i)
                f"The jacobian of the user-provided function is independent of input {i}."
                " This is not allowed in strict mode when create_graph=True."
            )
        row.append(g)
    return tuple(row)


def hessian(
    func: Callable,
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """∂²func/∂inputs², for a ``func`` of one-element output: of shape ``input.shape * 2``
    (for several inputs, ``[i][j]`` is the block for inputs i and j)."""
    _check_strategy(outer_jacobian_strategy, strict, vectorize)
    if strict:  # (given: PyTorch's checks; they raise or change nothing)
        _strict_hessian(func, inputs, create_graph)

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


def _one_output(out: Any, name: str) -> None:
    if not isinstance(out, Tensor):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if out.numel() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {name} should contain a single element"
        )


def _second_order(func: Callable, inputs: Any, v: Any, create_graph: bool, strict: bool, name: str):
    """vhp's and hvp's common start: fresh inputs, v checked, the one-element output and its
    gradient with a graph (``jac``)."""
    xs, single = _prepare(inputs, create_graph)
    if v is None:
        if len(xs) != 1 or xs[0].numel() != 1:
            raise RuntimeError(
                "The vector v can only be None if the input to the user-provided function is "
                "a single Tensor with a single element."
            )
        vs = (ones_like(xs[0]),)
    else:
        vs = _prepare_v(v, create_graph)
        _validate_v(vs, xs, not single)
    out = func(*xs)
    _check_requires_grad(_as_tuple(out), "outputs", strict)
    _one_output(out, name)
    jac = _raw_grads((out,), xs, None, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    return xs, single, vs, out, jac


def vhp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple:
    """``(func(inputs), vᵀH)`` for a ``func`` of one-element output (given code): the
    gradient g = ∇f with a graph, then one more backward pass, grad(g, x, v) = vᵀH."""
    with enable_grad():
        xs, single, vs, out, jac = _second_order(func, inputs, v, create_graph, strict, "vhp")
        found = _raw_grads(jac, xs, vs, create_graph)
        result = _fill_in_zeros(found, xs, strict, create_graph, "double_back")
    return _finish(out, create_graph), _finish(result[0] if single else result, create_graph)


def hvp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple:
    """``(func(inputs), H v)`` for a ``func`` of one-element output (given code): the
    double-backward trick of ``jvp`` on g = ∇f: for a dummy w, Hᵀw = grad(g, x, w) is linear
    in w, and grad(Hᵀw, w, v) = H v (equal to vᵀH for a symmetric H, as PyTorch computes)."""
    with enable_grad():
        xs, single, vs, out, jac = _second_order(func, inputs, v, create_graph, strict, "hvp")
        dummies = tuple(zeros_like(x).requires_grad_() for x in xs)
        double_back = _raw_grads(jac, xs, dummies, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
        found = _raw_grads(double_back, dummies, vs, create_graph)
        result = _fill_in_zeros(found, xs, strict, create_graph, "double_back_trick")
    return _finish(out, create_graph), _finish(result[0] if single else result, create_graph)

"""Chapter 3's own check programs (the op checks run chapter 2's ``programs.op``). Each
returns what it saw as plain data, and a short code (never a sentence) for what went wrong:
the parent writes the messages."""

from __future__ import annotations

from typing import Any

import numpy as np


def unbroadcast(sp, grad: Any, shape: list, upstream: Any = None, expect_error: bool = False):
    """``sp.unbroadcast(g, shape)`` for g = Tensor(grad, requires_grad=True), whose array
    is read-only: the result's type, shape, dtype and values, and what reaches g when
    ``upstream`` is sent back through the graph recorded for the result."""
    array = np.array(grad)
    array.flags.writeable = False  # unbroadcast must not change the gradient it was given
    g = sp.Tensor(array, requires_grad=True)
    if expect_error:
        return _error(lambda: sp.unbroadcast(g, tuple(shape)))
    try:
        out = sp.unbroadcast(g, tuple(shape))
    except RecursionError:
        return {"problem": "recursion"}
    except ValueError as error:
        if "read-only" in str(error):
            return {"problem": "wrote into grad"}
        raise
    return _with_pull_back(sp, out, upstream, g)


def expand(sp, data: Any, sizes: list, upstream: Any, expect_error: bool = False):
    """``a.expand(*sizes)`` for a = Tensor(data, requires_grad=True): the output, and what
    reaches a when ``upstream`` is sent back through the graph (however many nodes)."""
    a = sp.Tensor(np.asarray(data), requires_grad=True)
    if expect_error:
        return _error(lambda: a.expand(*sizes))
    out = a.expand(*sizes)
    return _with_pull_back(sp, out, upstream, a)


def _with_pull_back(sp, out: Any, upstream: Any, target: Any) -> dict:
    """``out`` described, with what reaches ``target`` from ``upstream`` (only when ``out``
    has upstream's shape: otherwise the verdict names the shape)."""
    result = _describe(out)
    upstream = np.array(upstream)
    if result["type(out)"] == "Tensor" and tuple(result["shape"]) == upstream.shape:
        result["pulled back"] = _array(_pull_back(out, sp.Tensor(upstream), target))
    return result


def _error(call) -> dict:
    try:
        call()
    except NotImplementedError:
        raise
    except Exception as error:
        return {"error": type(error).__name__, "message": str(error)}
    return {"error": None, "message": ""}


def _array(value: Any) -> Any:
    data = getattr(value, "data", value)
    return np.asarray(data) if isinstance(data, (np.ndarray, np.generic)) else None


def _describe(out: Any) -> dict:
    return {
        "type(out)": type(out).__name__,
        "shape": list(getattr(out, "shape", ())),
        "dtype": str(getattr(out, "dtype", None)),
        "out": _array(out),
    }


def _pull_back(out: Any, upstream: Any, target: Any) -> Any:
    """The gradient that reaches ``target`` when ``upstream`` is sent back from ``out``
    through the recorded nodes (a small engine: every node's ``backward`` once, after all
    the uses of its output have sent theirs); None when the graph does not reach it."""
    order, seen, stack = [], set(), [(out, False)]
    while stack:  # depth first; a tensor is appended after everything it was made from
        t, made = stack.pop()
        if made:
            order.append(t)
        elif id(t) not in seen:
            seen.add(id(t))
            stack.append((t, True))
            node = getattr(t, "grad_fn", None)
            stack.extend((parent, False) for parent in getattr(node, "inputs", ()) or ())
    grads = {id(out): upstream}
    for t in reversed(order):
        node, g = getattr(t, "grad_fn", None), grads.get(id(t))
        if node is None or g is None or t is target:
            continue
        for parent, grad in zip(node.inputs, node.backward(g)):
            if grad is not None:
                grads[id(parent)] = grad if id(parent) not in grads else grads[id(parent)] + grad
    return grads.get(id(target))

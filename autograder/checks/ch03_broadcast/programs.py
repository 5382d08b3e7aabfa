"""Chapter 3's own check programs (the op checks run chapter 2's ``programs.op``). Each
returns what it saw as plain data, and a short code (never a sentence) for what went wrong:
the parent writes the messages. The pull-back engine is chapter 2's (``programs.pull_back``):
every chapter-3 task runs 3.1's checks, which run chapter 2's ``programs.op``, so that module
is always in the child's tree; the catching of an expected error is the kit's (``raised``)."""

from __future__ import annotations

from typing import Any, TypedDict

import numpy as np

from ...harness.kit import array, raised
from ..ch02_tensor.programs import pull_back


class Pulled(TypedDict, total=False):
    """What ``unbroadcast`` and ``expand`` observe: the result, and what reached the input
    back through its graph (absent when the result's shape is not upstream's); or a short
    code for what went wrong (``problem``: "recursion", "wrote into grad", "broadcast")."""

    type_name: str  # type(out).__name__
    shape: list[int]
    dtype: str
    out: Any
    pulled_back: Any
    problem: str
    message: str  # the error's message, where broadcast_to refused expand's shape


def unbroadcast(sp, grad: Any, shape: list, upstream: Any = None, expect_error: bool = False):
    """``sp.unbroadcast(g, shape)`` for g = Tensor(grad, requires_grad=True), whose array
    is read-only: the result's type, shape, dtype and values, and what reaches g when
    ``upstream`` is sent back through the graph recorded for the result."""
    frozen = np.array(grad)
    frozen.flags.writeable = False  # unbroadcast must not change the gradient it was given
    g = sp.Tensor(frozen, requires_grad=True)
    if expect_error:
        return raised(lambda: sp.unbroadcast(g, tuple(shape)))
    try:
        out = sp.unbroadcast(g, tuple(shape))
    except RecursionError:
        return {"problem": "recursion"}
    except ValueError as error:
        if "read-only" in str(error):
            return {"problem": "wrote into grad"}  # en-only: a code the parent maps to words
        raise
    return _with_pull_back(sp, out, upstream, g)


def expand(sp, data: Any, sizes: list, upstream: Any, expect_error: bool = False):
    """``a.expand(*sizes)`` for a = Tensor(data, requires_grad=True): the output, and what
    reaches a when ``upstream`` is sent back through the graph (however many nodes)."""
    a = sp.Tensor(np.asarray(data), requires_grad=True)
    if expect_error:
        return raised(lambda: a.expand(*sizes))
    try:
        out = a.expand(*sizes)
    except RuntimeError as error:  # the shape expand asked broadcast_to for: named
        if "does not broadcast to" not in str(error):  # en-only: the framework's error, matched
            raise
        return {"problem": "broadcast", "message": str(error)}
    return _with_pull_back(sp, out, upstream, a)


def _with_pull_back(sp, out: Any, upstream: Any, target: Any) -> Pulled:
    """``out`` described, with what reaches ``target`` from ``upstream`` (only when ``out``
    has upstream's shape: otherwise the verdict names the shape)."""
    result = _describe(out)
    upstream = np.array(upstream)
    if result["type_name"] == "Tensor" and tuple(result["shape"]) == upstream.shape:
        (reached,), _ = pull_back(sp, [(out, sp.Tensor(upstream))], [target])
        result["pulled_back"] = array(reached)
    return result


def _describe(out: Any) -> Pulled:
    return {
        "type_name": type(out).__name__,
        "shape": list(getattr(out, "shape", ())),
        "dtype": str(getattr(out, "dtype", None)),
        "out": array(out),
    }

"""Chapter 3's stand-ins (see ``autograder/harness/standin.py``): the autograder's own
version of a task, installed into the code under test for a rerun of a check that needs it
(3.2's op checks run ``unbroadcast``; 3.3's ``expand`` runs 3.1 and 3.2).

Both are two operations of the chapter's own ``Function`` kind, written in plain NumPy:
*sum to a shape* (``np.sum`` over the axes broadcasting added or stretched) and *broadcast to
a shape* (``np.broadcast_to``), each the other's backward, so what they return is recorded
in the graph as the checks expect of the real ones.

- 3.1, ``unbroadcast(grad, shape)``: *sum to a shape*, in every module that holds the name.
- 3.2, ``BroadcastTo`` and ``SumToSize``: the other operation as the backward (the given
  forwards, with their shape checks, stay).
Runs in the child: standard library and NumPy only."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from ...harness import gradcheck
from ...harness.standin import Patch, everywhere, modules_of


def sum_to(array: np.ndarray, shape: tuple) -> np.ndarray:
    """``array`` summed onto ``shape`` (``gradcheck.sum_to``), in ``array``'s own dtype."""
    array = np.asarray(array)
    return gradcheck.sum_to(array, shape).astype(array.dtype, copy=False)


def _function(sp: ModuleType) -> type:
    """The code under test's ``Function`` base class (chapter 2's ``function.py``)."""
    for module in modules_of(sp):
        found = vars(module).get("Function")
        if isinstance(found, type) and hasattr(found, "apply"):
            return found
    raise LookupError("no Function class in the code under test")


def _operations(sp: ModuleType) -> tuple[type, type]:
    """*sum to a shape* and *broadcast to a shape*, as operations of the code under test."""
    function = _function(sp)
    ops: dict[str, type] = {}

    def sum_forward(ctx: Any, a: Any, shape: tuple) -> np.ndarray:
        ctx.standin_shape = tuple(a.shape)
        return sum_to(np.asarray(a.data), tuple(shape))

    def broadcast_forward(ctx: Any, a: Any, shape: tuple) -> np.ndarray:
        ctx.standin_shape = tuple(a.shape)
        return np.broadcast_to(np.asarray(a.data), tuple(shape))

    def sum_backward(ctx: Any, grad_output: Any) -> Any:
        return ops["broadcast"].apply(grad_output, ctx.standin_shape)

    def broadcast_backward(ctx: Any, grad_output: Any) -> Any:
        return ops["sum"].apply(grad_output, ctx.standin_shape)

    for name, forward, backward in [
        ("sum", sum_forward, sum_backward),
        ("broadcast", broadcast_forward, broadcast_backward),
    ]:
        body = {"forward": staticmethod(forward), "backward": staticmethod(backward)}
        ops[name] = type(f"StandIn{name.title()}", (function,), body)
    return ops["sum"], ops["broadcast"]


def _unbroadcast(sp: ModuleType) -> list[Patch]:
    sum_op, _ = _operations(sp)

    def unbroadcast(grad: Any, shape: Any) -> Any:
        return sum_op.apply(grad, tuple(shape))

    return everywhere(sp, sp.unbroadcast, unbroadcast)


def _broadcast_ops(sp: ModuleType) -> list[Patch]:
    """The backwards of 3.2; their forwards stay (given code: the shape checks, and
    ``ctx.shape``, the input's shape)."""
    sum_op, broadcast_op = _operations(sp)

    def broadcast_to_backward(ctx: Any, grad_output: Any) -> Any:
        return sum_op.apply(grad_output, tuple(ctx.shape))

    def sum_to_size_backward(ctx: Any, grad_output: Any) -> Any:
        return broadcast_op.apply(grad_output, tuple(ctx.shape))

    patches = []
    for module in modules_of(sp):
        for name, backward in [
            ("BroadcastTo", broadcast_to_backward),
            ("SumToSize", sum_to_size_backward),
        ]:
            cls = vars(module).get(name)
            if isinstance(cls, type) and cls.__module__ == module.__name__:
                patches.append((cls, "backward", staticmethod(backward)))
    return patches


STANDINS: dict[str, Callable[[ModuleType], list[Patch]]] = {
    "3.1": _unbroadcast,
    "3.2": _broadcast_ops,
}

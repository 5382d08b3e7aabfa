"""Chapter 1's stand-ins (see ``autograder/harness/standin.py``): the autograder's own
version of a task, installed into the code under test for a rerun of a check that needs it
(1.8's checks run 1.7's ``topological_order`` and, on micrograd's README example, every op).

- 1.2–1.6, a ``Value`` op: the forward on plain floats, and a ``_backward`` that adds the
  autograder's float64 central differences (``gradcheck.partials``) times ``out.grad``.
- 1.7, ``topological_order``: no graph algorithm, but a record. The stand-in wraps the given
  ``Value.__init__`` to note each Value as it is made; creation order is topological (a
  Value is made after its children), so the order is the recorded Values that reach the
  root, found by one backward pass over the record. Pasted into task 1.7 it has no record to
  read, and fails (the course repository's ``test_blame.py``).
Runs in the child: standard library only."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from types import ModuleType
from typing import Any

from ...harness.gradcheck import partials
from ...harness.standin import Patch, everywhere


def _sigmoid(a: float) -> float:
    return 1 / (1 + math.exp(-a)) if a >= 0 else math.exp(a) / (1 + math.exp(a))


def _relu(a: float) -> float:
    return a if a > 0 else 0.0


# method → the op on floats, for Values (and numbers) a, b
BINARY: dict[str, Callable[[float, float], float]] = {
    "__add__": lambda a, b: a + b,
    "__mul__": lambda a, b: a * b,
}
UNARY: dict[str, Callable[[float], float]] = {
    "exp": math.exp,
    "log": math.log,
    "tanh": math.tanh,
    "sigmoid": _sigmoid,
    "relu": _relu,
}
TASK_METHODS = {
    "1.2": ("__add__",),
    "1.3": ("__mul__",),
    "1.4": ("__pow__",),
    "1.5": ("exp", "log"),
    "1.6": ("tanh", "sigmoid", "relu"),
}


def _node(value: type, f: Callable[..., float], inputs: tuple, op: str) -> Any:
    """out = f(inputs) as a Value whose ``_backward`` adds ∂f/∂input · out.grad, numerically."""
    out = value(f(*(x.data for x in inputs)), inputs, op)

    def _backward() -> None:
        at = [x.data for x in inputs]
        slopes = partials(f, at)
        for x, a, slope in zip(inputs, at, slopes):
            kink = f is _relu and a == 0  # the chapter's rule: relu'(0) = 0
            x.grad += (0.0 if kink else slope) * out.grad

    out._backward = _backward
    return out


def _method(value: type, name: str) -> Callable[..., Any]:
    if name in BINARY:
        f = BINARY[name]

        def binary(self: Any, other: Any) -> Any:
            other = other if isinstance(other, value) else value(other)
            return _node(value, f, (self, other), name)

        return binary
    if name == "__pow__":

        def power(self: Any, exponent: float) -> Any:
            return _node(value, lambda a: a**exponent, (self,), f"**{exponent}")

        return power
    f = UNARY[name]
    return lambda self: _node(value, f, (self,), name)


def _ops(task: str, sp: ModuleType) -> list[Patch]:
    return [(sp.Value, name, _method(sp.Value, name)) for name in TASK_METHODS[task]]


CREATED: list = []  # the Values made since the 1.7 stand-in was installed, oldest first


def topological_order(root: Any) -> list:
    """The Values of ``CREATED`` that ``root`` reaches, in creation order: going backwards
    from the newest, a Value reached marks its ``_prev`` reached (each made before it)."""
    reached = {id(root)}
    for node in reversed(CREATED):
        if id(node) in reached:
            reached.update(id(child) for child in node._prev)
    return [node for node in CREATED if id(node) in reached]


def _topological_order(sp: ModuleType) -> list[Patch]:
    """The 1.7 stand-in: ``topological_order`` read from ``CREATED``, and the given
    ``Value.__init__`` wrapped to fill it (restored with the rest after the call)."""
    given = sp.Value.__init__
    CREATED.clear()

    def recording_init(self: Any, *args: Any, **kwargs: Any) -> None:
        given(self, *args, **kwargs)
        CREATED.append(self)

    order = everywhere(sp, sp.topological_order, topological_order)
    return [(sp.Value, "__init__", recording_init), *order]


STANDINS: dict[str, Callable[[ModuleType], list[Patch]]] = {
    **{task: partial(_ops, task) for task in TASK_METHODS},
    "1.7": _topological_order,
}

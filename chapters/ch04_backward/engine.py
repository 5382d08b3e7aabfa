"""The engine: a stack of ready vertices and a counter per vertex (Kahn's algorithm). Task 4.2.

``count_dependencies`` (task 4.1) says how many gradient contributions each vertex will
receive. A vertex is *ready* when all of them have arrived: then, and only then, its
gradient is complete, and it can run its hooks, be delivered (``.grad``, or what ``grad()``
returns), run its local backward and pass a contribution to each parent. ``backward_pass``
keeps the ready vertices on a stack and the contributions that have started to arrive in a
dict; §4 of the notebook teaches it, and ``trace_backward`` (``trace.py``) prints every pop
with the contributions counted so far.

Every intermediate gradient lives from its first contribution until its vertex runs, and
every node's saved tensors until it has run: memory falls as backward proceeds. Nothing
recurses and nothing depends on the order of a set, so a chain of a million nodes works and
two runs give the same bits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ch02_tensor.function import Node
from .accumulate import accumulate
from .dependencies import count_dependencies, vertex


def hooks_of(v: Any) -> Any:
    """The hooks registered on ``v``'s tensor (``Tensor.register_hook``), in order (a copy:
    a hook may remove itself)."""
    return tuple(v.hooks if isinstance(v, Node) else v._backward_hooks)


def keep_grad(v: Any, grad: Any) -> None:
    """What ``backward()`` does with a vertex's complete gradient: a leaf accumulates it in
    ``.grad`` (task 4.3), and so does a non-leaf tensor that asked to (``retain_grad()``).

    ``accumulate`` gets a copy of the gradient that only this tensor holds (``own``): the
    engine may hand one gradient object to several places (``c = a + b`` gives ``a`` and
    ``b`` the same one), and ``.grad`` may be changed in place later (``a.grad.zero_()``,
    an accumulation ``tensor.grad += grad``), which must not reach ``b.grad``."""
    if not isinstance(v, Node):
        _accumulate_own(v, grad)
    elif v.retained is not None:
        tensor = v.retained()
        if tensor is not None:
            _accumulate_own(tensor, grad)


def _accumulate_own(tensor: Any, grad: Any) -> None:
    """``accumulate`` with a copy of ``grad`` only ``tensor`` holds; when the sum is recorded
    (``create_graph=True``) the ``.grad`` it adds to is a fresh copy too, as PyTorch adds out
    of place then: a graph recorded from the old ``.grad`` keeps it unchanged."""
    if grad.requires_grad and tensor.grad is not None:
        tensor.grad = own(tensor.grad)
    accumulate(tensor, own(grad))


def own(grad: Any) -> Any:
    """A copy of ``grad`` nobody else holds: a new array, and with ``create_graph=True``
    (``grad`` requires grad) a recorded copy, so the graph of ``.grad`` is kept."""
    return grad.clone()


def backward_pass(
    roots: list,
    seeds: list,
    retain_graph: bool = False,
    create_graph: bool = False,
    deliver: Callable[[Any, Any], None] = keep_grad,
) -> None:
    """Backpropagate ``seeds`` (one gradient per root vertex) through the graph.

    Each vertex runs once, after all of its contributions have arrived (summed out of place:
    ``pending[p] + g``, a new Tensor). Its hooks see the complete gradient first (a hook that
    returns a Tensor replaces it); then ``deliver(v, grad)``; then a node passes
    ``v.backward(grad, create_graph)`` on to its inputs' vertices (skipping inputs that do
    not require a gradient, and ``None`` gradients, which still count as arrived) and, unless
    ``retain_graph``, frees its saved tensors (``v.release()``). A vertex whose contributions
    were all ``None`` has no gradient: it runs no hook and no backward, and passes ``None``
    on.
    """
    raise NotImplementedError("Task 4.2: backward_pass: the ready stack — see §4 of the notebook")

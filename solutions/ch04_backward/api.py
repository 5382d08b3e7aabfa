"""``Tensor.backward`` and ``autograd.grad``: the engine's two doors (given code).

    loss.backward()                   ∂loss/∂leaf added to every leaf's ``.grad``
    autograd.grad(outputs, inputs)    ∂outputs/∂inputs returned; no ``.grad`` is touched

Both check their arguments, make the seeds (task 4.4) and run ``backward_pass`` (task 4.2)
with grad mode set to ``create_graph``, as PyTorch's engine does: hooks, the sums of
contributions and ``.grad``'s running sum record a graph only when asked to (a hook that
multiplies by a tensor requiring grad leaves a constant ``.grad`` after a plain backward).
``retain_graph`` defaults to ``create_graph``, as in PyTorch: a graph you will differentiate
again must be kept.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable, Iterator
from typing import Any

from ..ch02_tensor.grad_mode import _set_grad_enabled
from ..ch02_tensor.tensor import Tensor
from .dependencies import vertex
from .engine import backward_pass
from .seed import seed


def backward(
    tensor: Tensor,
    gradient: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
) -> None:
    """``tensor.backward(gradient=None, retain_graph=None, create_graph=False)``."""
    if not tensor.requires_grad:
        raise RuntimeError(
            "element 0 of tensors does not require grad and does not have a grad_fn: "
            "nothing it was computed from requires a gradient"
        )
    grad = _constant_unless(create_graph, seed(tensor, gradient))
    if retain_graph is None:
        retain_graph = create_graph
    with _recording(create_graph, "backward"):
        backward_pass([vertex(tensor)], [grad], retain_graph, create_graph)


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool = False,
) -> tuple:
    """The gradients of ``outputs`` (weighted by ``grad_outputs``) with respect to each of
    ``inputs``, as a tuple; ``None`` for an input the outputs do not depend on (only with
    ``allow_unused=True``; otherwise a RuntimeError)."""
    outputs, inputs = _tensors(outputs, "outputs"), _tensors(inputs, "inputs")
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    grad_outputs = [grad_outputs] if isinstance(grad_outputs, Tensor) else list(grad_outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(
            f"grad_outputs has the wrong length: got {len(outputs)} tensors and "
            f"{len(grad_outputs)} gradients"
        )
    for i, out in enumerate(outputs):
        if not out.requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
    for x in inputs:
        if not x.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    wanted: dict = {}
    for i, x in enumerate(inputs):
        wanted.setdefault(vertex(x), []).append(i)
    found: list = [None] * len(inputs)

    def capture(v: Any, g: Any) -> None:  # deliver: keep the wanted vertices' gradients
        for i in wanted.get(v, ()):
            found[i] = g

    seeds = [_constant_unless(create_graph, seed(out, g)) for out, g in zip(outputs, grad_outputs)]
    roots = [vertex(out) for out in outputs]
    with _recording(create_graph, "grad"):
        backward_pass(roots, seeds, retain_graph, create_graph, capture)
    if not allow_unused and any(g is None for g in found):
        raise RuntimeError(
            "One of the differentiated Tensors appears to not have been used in the graph. "
            "Set allow_unused=True if this is the desired behavior."
        )
    return tuple(found)


_passes = threading.local()  # .doors: the door of each pass running now, innermost last


def running_door() -> str | None:
    """``"backward"`` or ``"grad"``: the door the innermost pass running now came through
    (None outside a pass). A local backward that calls the engine again (chapter 5's
    checkpoint) reads it: filling ``.grad`` is wrong inside ``autograd.grad``."""
    doors = getattr(_passes, "doors", None)
    return doors[-1] if doors else None


@contextlib.contextmanager
def _recording(create_graph: bool, door: str) -> Iterator[None]:
    """Grad mode set to ``create_graph`` inside, put back after (even on an error), and the
    pass's door recorded for ``running_door``. Not ``set_grad_enabled``: that is task 4.5,
    and backward must not wait for it."""
    previous = _set_grad_enabled(create_graph)
    doors = _passes.__dict__.setdefault("doors", [])
    doors.append(door)
    try:
        yield
    finally:
        doors.pop()
        _set_grad_enabled(previous)


def _constant_unless(create_graph: bool, gradient: Tensor) -> Tensor:
    """The seed, detached unless ``create_graph``: a plain backward leaves constant ``.grad``s
    and never hands the caller's own ``gradient`` object to a leaf (PyTorch's rule)."""
    return gradient if create_graph or not gradient.requires_grad else gradient.detach()


def _tensors(value: Any, what: str) -> list:
    """A Tensor or an iterable of Tensors (a list, a tuple, ``model.parameters()``), as a
    list; a clear error for anything else."""
    if isinstance(value, Tensor):
        return [value]
    items = list(value) if isinstance(value, Iterable) else None
    if items is None or not all(isinstance(t, Tensor) for t in items):
        raise TypeError(f"grad: {what} must be a Tensor or a sequence of Tensors")
    return items

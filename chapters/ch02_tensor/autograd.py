"""``autograd``: PyTorch's home of ``Function`` and ``grad``.

``autograd.grad(outputs, inputs, ...)`` is a seam: chapter 4's engine computes it."""

from __future__ import annotations

from typing import Any

from .function import Context, Function, Node
from .seams import later

__all__ = ["Context", "Function", "Node", "grad"]


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
) -> tuple:
    """∂outputs/∂inputs, returned rather than stored in ``.grad`` (chapter 4)."""
    engine_grad = later(4, "ch04_backward", "grad", "autograd.grad")
    return engine_grad(outputs, inputs, grad_outputs, retain_graph, create_graph)

"""``autograd``: PyTorch's home of ``Function``, ``grad`` and ``functional``.

``autograd.grad(outputs, inputs, ...)``, ``autograd.functional`` and ``autograd.gradcheck``/
``gradgradcheck`` are seams: chapter 4's engine computes them."""

from __future__ import annotations

from typing import Any

from .function import Context, Function, Node
from .seams import later

__all__ = ["Context", "Function", "Node", "grad", "gradcheck", "gradgradcheck"]


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool = False,
) -> tuple:
    """∂outputs/∂inputs, returned rather than stored in ``.grad`` (chapter 4)."""
    engine_grad = later(4, "ch04_backward", "grad", "autograd.grad")
    return engine_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused)


def gradcheck(func: Any, inputs: Any, **options: Any) -> bool:
    """``func``'s gradients against finite differences (chapter 4's ``checking.py``)."""
    checking = later(4, "ch04_backward", "checking", "autograd.gradcheck")
    return checking.gradcheck(func, inputs, **options)


def gradgradcheck(func: Any, inputs: Any, grad_outputs: Any = None, **options: Any) -> bool:
    """The gradients of ``func``'s backward against finite differences (chapter 4)."""
    checking = later(4, "ch04_backward", "checking", "autograd.gradgradcheck")
    return checking.gradgradcheck(func, inputs, grad_outputs, **options)


def __getattr__(name: str) -> Any:
    """``autograd.functional`` (``vjp``, ``jvp``, ``jacobian``, ``hessian``): chapter 4."""
    if name == "functional":
        return later(4, "ch04_backward", "functional", "autograd.functional")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""Chapter 2's stand-ins (see ``autograder/harness/standin.py``): the autograder's own
version of an op task, installed into the code under test for a rerun of a check that needs
it (task 2.11 runs the local backwards of 2.1, 2.2, 2.5, 2.6 and 2.7; a second-order check
runs those its task's backward records: 2.1–2.5, 2.7 and 2.9).

A stand-in replaces the op's ``forward`` by the autograder's plain-NumPy reference and its
``backward`` by a numerical vector-Jacobian product of that reference: the complex step,
∂f/∂x = Im f(x + ih) / h, exact to float64 rounding (no difference quotient to lose digits
to). It shows no Tensor-operation backward, so it gives no task's solution away. Runs in
the child: standard library and NumPy only."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from types import ModuleType
from typing import Any

import numpy as np

from ...harness import gradcheck
from ...harness.standin import Patch, modules_of


def _sigmoid(a):
    with np.errstate(over="ignore", invalid="ignore"):  # the branch np.where drops may overflow
        return np.where(a.real >= 0, 1 / (1 + np.exp(-a)), np.exp(a) / (1 + np.exp(a)))


def _reduce(reduce: Callable, a, dim=None, keepdim: bool = False):
    axes = None if dim is None or dim == () or dim == [] else dim
    return reduce(a, axis=tuple(axes) if isinstance(axes, list) else axes, keepdims=keepdim)


def _relu(a):
    return np.where(a.real > 0, a, 0 * a)


def _abs(a):
    return np.where(a.real > 0, a, np.where(a.real < 0, -a, 0 * a))  # |·|'(0) = 0


# op class → (reference on arrays and the op's options, elementwise?)
REFERENCES: dict[str, tuple[Callable[..., Any], bool]] = {
    "Add": (lambda a, b: a + b, True),
    "Sub": (lambda a, b: a - b, True),
    "Neg": (lambda a: -a, True),
    "Mul": (lambda a, b: a * b, True),
    "Div": (lambda a, b: a / b, True),
    "Pow": (lambda a, exponent: a**exponent, True),
    "Exp": (np.exp, True),
    "Log": (np.log, True),
    "Sqrt": (np.sqrt, True),
    "Tanh": (np.tanh, True),
    "Sigmoid": (_sigmoid, True),
    "ReLU": (_relu, True),
    "Abs": (_abs, True),
    "MatMul": (np.matmul, False),
    "Sum": (partial(_reduce, np.sum), False),
    "Mean": (partial(_reduce, np.mean), False),
    "Reshape": (lambda a, shape: a.reshape(shape), False),
    "Transpose": (lambda a, dim0, dim1: np.swapaxes(a, dim0, dim1), False),
    "Permute": (lambda a, dims: np.transpose(a, dims), False),
}
TASK_OPS = {
    "2.1": ("Add", "Sub", "Neg"),
    "2.2": ("Mul", "Div"),
    "2.3": ("Pow",),
    "2.4": ("Exp", "Log", "Sqrt"),
    "2.5": ("Tanh", "Sigmoid", "ReLU", "Abs"),
    "2.6": ("MatMul",),
    "2.7": ("Sum", "Mean"),
    "2.9": ("Reshape", "Transpose", "Permute"),
}


def vjp(reference: Callable, elementwise: bool, args: list, options: dict, i: int, g):
    """∂(Σ reference(args) · g)/∂args[i], by the complex step (``gradcheck``): for an
    elementwise op, one step for all of args[i] at once (each output depends on its own
    element), summed onto args[i]'s shape; otherwise element by element."""

    def f(x: Any) -> Any:
        return reference(*args[:i], x, *args[i + 1 :], **options)

    if not elementwise:
        return gradcheck.vjp(f, [args[i]], g)[0]
    x = np.asarray(args[i], dtype=complex)
    slope = np.imag(f(x + 1j * gradcheck.STEP)) / gradcheck.STEP
    return gradcheck.sum_to(np.broadcast_to(g * slope, np.broadcast(g, slope).shape), x.shape)


def _standin_op(name: str, tensor: type) -> tuple[Any, Any]:
    """``forward`` and ``backward`` of op ``name`` for the rerun."""
    reference, elementwise = REFERENCES[name]

    def forward(ctx: Any, *args: Any, **options: Any) -> np.ndarray:
        arrays = [np.asarray(a.data) if isinstance(a, tensor) else a for a in args]
        ctx.standin = (arrays, [i for i, a in enumerate(args) if isinstance(a, tensor)], options)
        return np.asarray(reference(*arrays, **options))

    def backward(ctx: Any, grad_output: Any) -> tuple:
        arrays, tensors, options = ctx.standin
        g = np.asarray(grad_output.data, dtype=np.float64)
        grads = []
        for k, i in enumerate(tensors):
            if not ctx.needs_input_grad[k]:
                grads.append(None)
                continue
            grad = vjp(reference, elementwise, arrays, options, i, g)
            grads.append(tensor._from_array(np.ascontiguousarray(grad, dtype=np.float64)))
        return tuple(grads)

    return staticmethod(forward), staticmethod(backward)


def _ops(task: str, sp: ModuleType) -> list[Patch]:
    patches = []
    for module in modules_of(sp):
        for name in TASK_OPS[task]:
            cls = vars(module).get(name)
            if isinstance(cls, type) and cls.__module__ == module.__name__:
                forward, backward = _standin_op(name, sp.Tensor)
                patches += [(cls, "forward", forward), (cls, "backward", backward)]
    return patches


STANDINS = {task: partial(_ops, task) for task in TASK_OPS}

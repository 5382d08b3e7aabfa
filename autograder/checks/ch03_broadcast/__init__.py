"""Public checks for chapter 3 — broadcasting-aware gradients.

Task 3.1 is checked twice over. ``unbroadcast(grad, shape)`` itself, on the shape pairs of
``catalog.UNBROADCAST``: the result must be a Tensor of exactly ``shape`` (size-1 axes
kept), of grad's dtype, equal to the autograder's own sum (``catalog.sum_to``, broadcasting's
definition run backwards), without writing into grad, and recorded by the graph so that its
own gradient is right (chapter 4 differentiates backward passes): a random h sent back from
the result through the recorded nodes must reach grad as h broadcast to grad's shape. Then
through chapter 2's ops: every binary op and matmul, on operands that broadcast, must give
each input a gradient of its own shape. That happens in one place (chapter 2's
``Node.backward`` calls ``unbroadcast`` through its seam), and these checks prove it op by
op with chapter 2's op program. In student mode that runs the student's own chapter 2: a
failure of the op's output or its local backward, and any failure of the first pair (which
does not broadcast), is reported as blocked by the chapter-2 task (``Blocked``).

Task 3.2's ``broadcast_to`` and ``sum_to_size`` are ops of the catalog kind, run by chapter
2's program without the broadcast flag: their local backward must return its input's shape
itself. Task 3.3's ``expand`` is judged end to end (``programs.expand``: value, and what
reaches the input back through whatever nodes it recorded), since a correct ``expand`` may
add axes with ``reshape`` before it broadcasts. Cases run small to large, so the report
shows the smallest failing pair.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...harness.api import Blocked, Case, Check, compare, show
from ...harness.gradcheck import vjp
from ..ch02_tensor import TOLERANCE, grads_verdict, node_verdict, op_case, op_cases, verdict
from ..ch02_tensor import programs as op_programs
from ..ch02_tensor.catalog import OPS as CH02_OPS
from . import programs
from .catalog import (
    BROADCAST_OPS,
    CATALOG,
    ELEMENTWISE,
    EXPAND,
    EXPAND_ERRORS,
    FLOAT32_PAIR,
    MATMUL,
    UNBROADCAST,
    Shape,
    expanded,
    sum_to,
)


def _upstream(rng: np.random.Generator, shape: Shape, dtype: str) -> np.ndarray:
    return rng.uniform(-1.5, 1.5, shape).round(3).astype(dtype)


def _tensor_problem(received: Any, function: str, dtype: str, whose: str) -> str | None:
    """What every chapter-3 program's result must be first: a Tensor of ``whose`` dtype."""
    if not isinstance(received, dict) or "type(out)" not in received:
        return f"expected a Tensor, received {show(received)}"
    if received["type(out)"] != "Tensor":
        return f"{function} returned a {received['type(out)']}, not a Tensor"
    if received["dtype"] != dtype:
        return f"expected dtype {dtype} ({whose}), received {received['dtype']}"
    return None


# -- task 3.1: unbroadcast itself -------------------------------------------------------------


def _unbroadcast_case(rng: np.random.Generator, grad_shape: Shape, shape: Shape, dtype: str):
    grad = rng.uniform(-2.0, 2.0, grad_shape).round(3).astype(dtype)
    upstream = _upstream(rng, shape, dtype)
    label = f"unbroadcast(grad, {shape}) with grad of shape {grad_shape}"
    if dtype != "float64":
        label += f", {dtype}"
    expected = {
        "out": sum_to(grad, shape),
        "shape": shape,
        "grad shape": grad_shape,
        "dtype": dtype,
        "pulled back": np.broadcast_to(upstream.astype(np.float64), grad_shape),
    }
    inputs = {"grad": grad, "shape": list(shape), "upstream": upstream}
    return Case(label, inputs, expected)


def _unbroadcast_error(grad_shape: Shape, shape: Shape) -> Case:
    return Case(
        f"unbroadcast(grad, {shape}) with grad of shape {grad_shape}: an error naming both shapes",
        {"grad": np.ones(grad_shape), "shape": list(shape), "expect_error": True},
        {"error naming": [str(grad_shape), str(shape)], "error type": "RuntimeError"},
    )


def _unbroadcast_cases(rng: np.random.Generator) -> list[Case]:
    cases = [_unbroadcast_case(rng, g, s, "float64") for g, s in UNBROADCAST]
    cases.append(_unbroadcast_case(rng, (2, 3), (3,), "float32"))
    return [*cases, _unbroadcast_error((2, 3), (4,)), _unbroadcast_error((3,), (2, 3))]


PROBLEMS = {  # what the unbroadcast program reports, in words
    "recursion": (
        "unbroadcast called itself without end: sum_to_size (and Tensor.sum_to_size) run "
        "unbroadcast in their forward, so unbroadcast cannot use them; sum with "
        "grad.sum(dim=..., keepdim=...)"
    ),
    "wrote into grad": (
        "unbroadcast wrote into grad's array (read-only here): make new Tensors with "
        "Tensor operations instead; in chapter 4 one gradient is handed to several nodes"
    ),
}


def _unbroadcast_verdict(case: Case, received: Any) -> str | None:
    expected = case.expected
    if "error naming" in expected:
        return verdict(case, received)  # chapter 2's: the error's type and names
    if isinstance(received, dict) and received.get("problem") in PROBLEMS:
        return PROBLEMS[received["problem"]]
    problem = _tensor_problem(received, "unbroadcast", expected["dtype"], "grad's")
    if problem:
        return problem
    shape = expected["shape"]
    if tuple(received["shape"]) != shape:
        advice = (
            "nothing is to be summed here, and sum(dim=()) sums every axis: skip a sum over no axes"
            if shape == expected["grad shape"]
            else "sum the leading axes away, and keep each stretched size-1 axis (keepdim=True)"
        )
        return f"unbroadcast returned shape {tuple(received['shape'])}, not {shape}: {advice}"
    rtol, atol = TOLERANCE[expected["dtype"]]
    problem = compare(received["out"], expected["out"], rtol=rtol, atol=atol, path="result")
    if problem:
        return problem
    back = received.get("pulled back")
    if back is None:
        return (
            "the result is not recorded by the graph as computed from grad: sum grad with "
            "Tensor operations (grad.sum(dim=..., keepdim=...)), not its .data array, so that "
            "chapter 4 can differentiate a backward pass"
        )
    path = "what reaches grad (h broadcast to grad's shape, for a sum of grad)"
    problem = compare(back, expected["pulled back"], rtol=rtol, atol=atol, path=path)
    if problem:
        return (
            "the graph recorded for the result is not the sum it should be: a gradient h "
            f"sent back through it gives {problem}. Compute the result from grad with Tensor "
            "operations only"
        )
    return None


# -- task 3.1 through chapter 2's ops -----------------------------------------------------------


def _broadcast_op_cases(name: str) -> Callable[[np.random.Generator], list[Case]]:
    op = CH02_OPS[name]
    pairs = MATMUL if name == "matmul" else ELEMENTWISE

    def cases(rng: np.random.Generator) -> list[Case]:
        first = op_case(op, rng, {}, pairs[0])
        control = f"no broadcasting (chapter 2's task {op.task} alone): {first.label}"
        out = [Case(control, first.inputs, first.expected)]
        out += [op_case(op, rng, {}, pair, broadcast=True) for pair in pairs[1:]]
        out.append(op_case(op, rng, {}, pairs[FLOAT32_PAIR], dtype="float32", broadcast=True))
        return out

    return cases


FUNCTIONS = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "matmul": "MatMul"}


def _through_the_seam(name: str) -> Callable[[Case, Any], str | None]:
    """Chapter 2's verdict, blaming chapter 2's task for what is its code's doing: the op's
    output, its local backward, and anything of the pair that does not broadcast."""
    task, function = CH02_OPS[name].task, FUNCTIONS[name]

    def judge(case: Case, received: Any) -> str | None:
        problem = node_verdict(case, received)
        if problem is None and not case.expected["broadcast"]:
            problem = grads_verdict(case, received)
        if problem:
            return Blocked(task, f"{problem} (in chapter 2's code: task {task})")
        problem = grads_verdict(case, received)
        if problem:
            return (
                f"{problem}. Node.backward sums what {function}.backward returns with your "
                f"unbroadcast: if unbroadcast(grad, shape) passes, {function}.backward "
                f"(chapter 2, task {task}) is the suspect"
            )
        return None

    return judge


# -- task 3.3: expand, end to end ---------------------------------------------------------------


def _expand_case(rng: np.random.Generator, shape: Shape, sizes: Shape, dtype: str) -> Case:
    data = rng.uniform(-2.0, 2.0, shape).astype(dtype)
    target = expanded(shape, sizes)
    upstream = _upstream(rng, target, dtype)
    (grad,) = vjp(lambda a: np.broadcast_to(a, target), [data], upstream)
    call = ", ".join(map(str, sizes))
    label = f"a.expand({call}) with a of shape {shape}" + (
        f", {dtype}" if dtype != "float64" else ""
    )
    label += "; then a's gradient, for a random g sent back from the result"
    expected = {"out": np.broadcast_to(data, target), "dtype": dtype, "grad": grad}
    return Case(label, {"data": data, "sizes": list(sizes), "upstream": upstream}, expected)


def _expand_cases(rng: np.random.Generator) -> list[Case]:
    return expand_cases(rng, EXPAND, EXPAND[3], EXPAND_ERRORS)


def expand_cases(rng: np.random.Generator, pairs, float32_pair, errors) -> list[Case]:
    """``expand`` on each (shape, sizes) pair in float64, one pair in float32, then each
    error case (shape, sizes, what the message must name, what is wrong)."""
    cases = [_expand_case(rng, shape, sizes, "float64") for shape, sizes in pairs]
    cases.append(_expand_case(rng, *float32_pair, "float32"))
    for shape, sizes, naming, what in errors:
        label = f"a.expand({', '.join(map(str, sizes))}) with a of shape {shape}: {what}"
        inputs = {
            "data": np.ones(shape),
            "sizes": list(sizes),
            "upstream": np.ones(()),
            "expect_error": True,
        }
        cases.append(Case(label, inputs, {"error naming": naming, "error type": "RuntimeError"}))
    return cases


def _expand_verdict(case: Case, received: Any) -> str | None:
    expected = case.expected
    if "error naming" in expected:
        return verdict(case, received)  # chapter 2's: the error's type and names
    problem = _tensor_problem(received, "expand", expected["dtype"], "a's")
    if problem:
        return problem
    rtol, atol = TOLERANCE[expected["dtype"]]
    problem = compare(received["out"], expected["out"], rtol=rtol, atol=atol, path="out")
    if problem:
        return problem
    if received.get("pulled back") is None:
        return "the result's graph does not lead back to a: build it from a with broadcast_to"
    return compare(
        received["pulled back"],
        expected["grad"],
        rtol=rtol,
        atol=atol,
        path="∂L/∂a (the gradient a receives back through the graph)",
    )


CHECKS = [
    Check(
        "3.1",
        "unbroadcast(grad, shape)",
        _unbroadcast_cases,
        programs.unbroadcast,
        _unbroadcast_verdict,
    ),
    *[
        Check(
            "3.1",
            f"{CH02_OPS[name].expr} (broadcast)",
            _broadcast_op_cases(name),
            op_programs.op,
            _through_the_seam(name),
        )
        for name in BROADCAST_OPS
    ],
    *[
        Check(
            op.task,
            op.expr.replace("{shape}", "(shape)"),
            op_cases(op),
            op_programs.op,
            verdict,
            requires=("3.1",),
        )
        for op in CATALOG
    ],
    Check(
        "3.3",
        "a.expand(*sizes)",
        _expand_cases,
        programs.expand,
        _expand_verdict,
        requires=("3.1", "3.2"),
    ),
]

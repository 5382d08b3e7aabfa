"""Public checks for chapter 3 — broadcasting-aware gradients.

Task 3.1 is checked twice over. ``unbroadcast(grad, shape)`` itself, on the shape pairs of
``catalog.UNBROADCAST``: the result must be a Tensor of exactly ``shape`` (size-1 axes
kept), of grad's dtype, equal to the autograder's own sum (``catalog.sum_to``, broadcasting's
definition run backwards), recorded by the graph (Tensor operations, for chapter 4) and
without writing into grad. Then through chapter 2's ops: every binary op and matmul, on
operands that broadcast, must give each input a gradient of its own shape. That happens in
one place (chapter 2's ``Node.backward`` calls ``unbroadcast`` through its seam), and these
checks prove it op by op with chapter 2's op program; the first pair of each op does not
broadcast, so a failure there is chapter 2's.

Tasks 3.2 and 3.3 are ops of their own (``broadcast_to``, ``sum_to_size``, ``expand``), run
by the same program as chapter 2's catalog; their local backward must return its input's
shape itself. Cases run small to large, so the report shows the smallest failing pair.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...harness.api import Case, Check, compare, show
from ..ch02_tensor import TOLERANCE, op_case, op_cases, verdict
from ..ch02_tensor import programs as op_programs
from ..ch02_tensor.catalog import OPS as CH02_OPS
from . import programs
from .catalog import (
    BROADCAST_OPS,
    CATALOG,
    ELEMENTWISE,
    FLOAT32_PAIR,
    MATMUL,
    UNBROADCAST,
    Shape,
    sum_to,
)

# -- task 3.1: unbroadcast itself -------------------------------------------------------------


def _unbroadcast_case(rng: np.random.Generator, grad_shape: Shape, shape: Shape, dtype: str):
    grad = rng.uniform(-2.0, 2.0, grad_shape).round(3).astype(dtype)
    label = f"unbroadcast(grad, {shape}) with grad of shape {grad_shape}"
    if dtype != "float64":
        label += f", {dtype}"
    expected = {"out": sum_to(grad, shape), "shape": shape, "dtype": dtype}
    return Case(label, {"grad": grad, "shape": list(shape)}, expected)


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


def _unbroadcast_verdict(case: Case, received: Any) -> str | None:
    expected = case.expected
    if "error naming" in expected:
        return verdict(case, received)
    if not isinstance(received, dict) or "type" not in received:
        return f"expected a Tensor, received {show(received)}"
    if received["type"] != "Tensor":
        return f"unbroadcast returned a {received['type']}, not a Tensor"
    shape = tuple(expected["shape"])
    if tuple(received["shape"]) != shape:
        return (
            f"unbroadcast returned shape {tuple(received['shape'])}, not {shape}: sum the "
            "leading axes away, and keep each stretched size-1 axis (keepdim=True)"
        )
    if received["dtype"] != expected["dtype"]:
        return f"expected dtype {expected['dtype']} (grad's), received {received['dtype']}"
    rtol, atol = TOLERANCE[expected["dtype"]]
    problem = compare(received["out"], expected["out"], rtol=rtol, atol=atol, path="result")
    if problem:
        return problem
    if not received["recorded"]:
        return (
            "the result is not recorded by the graph: sum grad with Tensor operations "
            "(grad.sum(dim=..., keepdim=...)), not its .data array, so that chapter 4 can "
            "differentiate a backward pass"
        )
    return None


# -- task 3.1 through chapter 2's ops -----------------------------------------------------------


def _broadcast_op_cases(name: str) -> Callable[[np.random.Generator], list[Case]]:
    op = CH02_OPS[name]
    pairs = MATMUL if name == "matmul" else ELEMENTWISE

    def cases(rng: np.random.Generator) -> list[Case]:
        out = [op_case(op, rng, {}, pairs[0])]
        first = out[0]
        control = f"no broadcasting (chapter 2's task {op.task} alone): {first.label}"
        out[0] = Case(control, first.inputs, first.expected)
        out += [op_case(op, rng, {}, pair, broadcast=True) for pair in pairs[1:]]
        out.append(op_case(op, rng, {}, pairs[FLOAT32_PAIR], dtype="float32", broadcast=True))
        return out

    return cases


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
            f"{CH02_OPS[name].expr}, broadcast",
            _broadcast_op_cases(name),
            op_programs.op,
            verdict,
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
            requires=("3.1",) if op.task == "3.2" else ("3.1", "3.2"),
        )
        for op in CATALOG
    ],
]

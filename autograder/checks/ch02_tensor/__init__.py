"""Public checks for chapter 2 — the tensor wrapper.

The op catalog (``catalog.py``) drives every op check: each entry names the op (the child's
``programs.OPS`` has the same names), the task whose backward it is, the autograder's own
NumPy reference in float64, the domain its inputs are drawn from (away from kinks and
poles), and the cases' shapes, small to large: scalars and 0-d, size-1 axes, transposed and
sliced (non-contiguous) data, every pair and permutation of a 3-D tensor's axes, batches of
rank 3 and 4, zeros where the rule is defined there, then a large one, and one float32 case
that must stay float32. ``cases.py`` builds the cases (public and hidden checks alike).

For every case the expected value is the reference's output, and the expected gradient of
each input is the complex-step derivative of Σ reference(inputs) · g for a random upstream
gradient g (``gradcheck.vjp``, exact to float64 rounding). The program runs the student's op
forward and calls the output node's local backward, then ``backward(g)``, once; a wrong
local backward of one op can fail only its own task. The verdict judges the local
backward's own gradients (shape, dtype, values, and a graph that leads back to g and to the
inputs) before what ``Node.backward`` hands on, at a float64 tolerance that float32
arithmetic cannot meet. A second check per op takes its local backward to second order
(``programs.second_order``); it runs other ops' backward, so it ``requires`` their tasks.
Task 2.11 runs several ops' backward together and says so (``requires``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np

from ...harness.api import Case, Check, compare, show
from ...harness.gradcheck import sum_to
from ...harness.table import Field, Fields
from . import programs
from .cases import engine_case, op_case, op_cases, second_order_cases
from .catalog import CATALOG, TITLES
from .expected import ErrorExpected, OpExpected, SecondOrderExpected

__all__ = [
    "CHECKS",
    "TOLERANCE",
    "NodeProblem",
    "Part",
    "engine_verdict",
    "grads_verdict",
    "node_problem",
    "node_verdict",
    "op_case",
    "op_cases",
    "second_order_cases",
    "second_order_verdict",
    "tolerance",
    "verdict",
]

# tolerances: (rtol, atol) for results computed in float64 and in float32. float32's
# relative rounding is ~6e-8, so a float64 result that went through float32 fails rtol 1e-9;
# the expectations are exact to ~1e-16 (gradcheck's complex step)
TOLERANCE = {"float64": (1e-9, 1e-10), "float32": (2e-4, 1e-4)}
SECOND_ORDER_TOLERANCE = (1e-6, 1e-7)  # gradcheck.hvp's central difference: ~1e-10


def tolerance(case: Case) -> tuple[float, float]:
    """(rtol, atol) for a case's results: its dtype's (``case.expected.dtype``)."""
    return TOLERANCE[case.expected.dtype]


# the tasks whose ops a local backward may record (arithmetic, **, pointwise, reductions,
# shapes): a second-order check runs their backward, so it requires them ("blocked by"
# where one of them fails too)
_BUILDING_BLOCKS = ("2.1", "2.2", "2.3", "2.4", "2.5", "2.7", "2.9")
SECOND_ORDER_REQUIRES = {
    f"2.{i}": tuple(t for t in _BUILDING_BLOCKS if t != f"2.{i}") for i in range(1, 11)
}


def _held_verdict(case: Case, received: Any) -> str | None:
    """Each input Tensor holds, bit for bit and in its dtype, the array that was sent."""
    for name, held, sent in zip(case.expected.names, received.get("held", []), case.expected.held):
        if (
            not isinstance(held, np.ndarray)
            or held.dtype != sent.dtype
            or held.shape != sent.shape
            or not np.array_equal(held, sent)
        ):
            return (
                f"the Tensor made from {name}'s data holds {show(held)}, not the array sent, "
                f"{show(sent)}, bit for bit: the given Tensor constructor must keep a "
                f"{sent.dtype} array's values and dtype exactly (was given code edited?)"
            )
    return None


class Part(StrEnum):
    """Which part of an op case failed: what the inputs hold (the given constructor), the
    op's output (its forward), its local backward (the task), or what ``Node.backward``
    hands on."""

    INPUTS = "inputs"
    OUTPUT = "output"
    LOCAL_BACKWARD = "local backward"
    HANDED_ON = "handed on"


@dataclass(frozen=True)
class NodeProblem:
    """A failing op case's problem, and the part it is in."""

    text: str
    part: Part


def node_verdict(case: Case, received: Any) -> str | None:
    """The op's output, and its node's local backward called alone (``_local_verdict``)."""
    problem = node_problem(case, received)
    return problem.text if problem else None


def node_problem(case: Case, received: Any) -> NodeProblem | None:
    """``node_verdict``'s problem, with the part of the case it is in."""
    expected: OpExpected = case.expected
    if not isinstance(received, dict) or "type_name" not in received:
        text = f"expected the op's output and gradients, received {show(received)}"
        return NodeProblem(text, Part.OUTPUT)
    if received["type_name"] != "Tensor":
        return NodeProblem(f"the op returned a {received['type_name']}, not a Tensor", Part.OUTPUT)
    if isinstance(received.get("grads"), str):
        part = Part.LOCAL_BACKWARD if received.get("recorded", True) else Part.OUTPUT
        return NodeProblem(received["grads"], part)
    if problem := _held_verdict(case, received):
        return NodeProblem(problem, Part.INPUTS)
    if problem := OUTPUT(case, received):
        return NodeProblem(problem, Part.OUTPUT)
    for judge in (_local_verdict, _local_values):  # every shape and graph, then the values
        for name, local, want in zip(expected.names, received["local"], expected.grads):
            if problem := judge(name, local, want, expected):
                return NodeProblem(problem, Part.LOCAL_BACKWARD)
    return None


# the op's output, as the student names it, at its dtype's tolerance
OUTPUT = Fields(
    [
        Field("out_dtype", "out.dtype", expected=lambda case: case.expected.dtype),
        Field("out", "out", tolerance=tolerance),
        Field("out_requires_grad", "out.requires_grad", expected=lambda case: True),
    ]
)


def _local_values(name: str, local: dict, want: np.ndarray, expected: OpExpected) -> str | None:
    """The local backward's own gradient for ``name``, summed onto its input's shape by the
    autograder where it has a shape the input broadcasts to: its dtype (the input's, or
    float64 for a float32 input: never less precise) and its values."""
    where, dtype = f"∂L/∂{name} from the local backward", expected.dtype
    if local["dtype"] not in (dtype, "float64"):
        return (
            f"{where} has dtype {local['dtype']}, but {name} has dtype {dtype}: build every "
            f"array of a backward in its input's dtype (zeros(shape, dtype=...)), or a "
            f"{dtype} gradient loses precision"
        )
    data = local["data"]
    if not isinstance(data, np.ndarray):
        return f"{where}: expected an array, received {show(data)}"
    summed = sum_to(data, want.shape) if data.shape != want.shape else data
    rtol, atol = TOLERANCE[dtype]
    return compare(summed, want, rtol=rtol, atol=atol, path=where)


def grads_verdict(case: Case, received: Any) -> str | None:
    """What ``Node.backward`` handed each input: values and dtypes."""
    expected: OpExpected = case.expected
    rtol, atol = tolerance(case)
    for i, name in enumerate(expected.names):
        grad, want = received["grads"][i], expected.grads[i]
        where = f"∂L/∂{name} (the gradient {name} receives)"
        if grad is None:
            return f"{where}: expected an array of shape {want.shape}, received None"
        problem = compare(grad, want, rtol=rtol, atol=atol, path=where)
        if problem:
            return problem
        dtype = received["grad_dtypes"][i]
        if dtype != expected.dtype:
            return f"{where}: expected dtype {expected.dtype}, received {dtype}"
    return None


def _local_verdict(name: str, local: Any, want: np.ndarray, expected: OpExpected) -> str | None:
    """The local backward's own gradient for input ``name``, before the node passes it on:
    of the input's shape, and computed with Tensor operations, so that the graph records
    it (chapter 4 differentiates backward passes: second derivatives)."""
    where = f"∂L/∂{name} from the local backward"
    if isinstance(local, str):
        return f"{where}: {local}"
    shape = want.shape
    if not programs.fits(local["shape"], shape, expected.broadcast):
        rule = "a shape it broadcasts to" if expected.broadcast else "its input's shape"
        return (
            f"{where} has shape {tuple(local['shape'])}, but {name} has shape {tuple(shape)}: "
            f"each gradient has {rule}"
        )
    if not local["from_grad_output"]:
        return (
            f"{where} is not computed from grad_output with Tensor operations (the graph does "
            "not lead back to it): use Tensor operations on grad_output and the saved "
            "tensors, not their .data arrays, so that chapter 4 can differentiate it (§2)"
        )
    if expected.needs_inputs and not local["from_inputs"]:
        return (
            f"{where} does not depend on the op's inputs in the graph: recompute what it "
            "needs from the saved tensors with Tensor operations (b, not b.data; a.exp(), "
            "not np.exp(a.data)), so that chapter 4 can take second derivatives (§5)"
        )
    return None


# -- error cases: a clear error that names the problem --------------------------------------


def verdict(case: Case, received: Any) -> str | None:
    """Op cases compare values and gradients; error cases want a named, clear error (of
    the type ``ErrorExpected.type``, where given)."""
    if not isinstance(case.expected, ErrorExpected):
        problem = node_verdict(case, received)
        if problem or case.expected.local_only:
            return problem
        return grads_verdict(case, received)
    if not isinstance(received, dict) or "error" not in received:
        return f"expected an exception, received {show(received)}"
    if received["error"] is None:
        return "expected an exception, but none was raised"
    wanted = case.expected.type
    if wanted and received["error"] != wanted:
        return f"raised {received['error']}: {received['message']!r}; expected a {wanted}"
    missing = [text for text in case.expected.naming if text not in received["message"]]
    if missing:
        return (
            f"raised {received['error']}: {received['message']!r}, which should name "
            + " and ".join(missing)
        )
    return None


# -- task 2.11: be the engine ----------------------------------------------------------------


def _engine_cases(rng: np.random.Generator) -> list[Case]:
    cases = []
    for n, d, k, m in [(1, 1, 1, 1), (2, 3, 4, 1), (5, 3, 4, 2), (32, 10, 16, 3)]:
        x, y = rng.normal(size=(n, d)), rng.normal(size=(n, m))
        w1, w2 = rng.normal(size=(d, k)) * 0.7, rng.normal(size=(k, m)) * 0.7
        label = f"two_layer_backward with x {x.shape}, w1 {w1.shape}, w2 {w2.shape}, y {y.shape}"
        cases.append(engine_case(x, w1, w2, y, label))
    return cases


# task 2.11: the tuple of the two weights' gradients, in float64 (what it returned first: a
# function that returns something else sends only its type's name)
engine_verdict = Fields(
    [
        Field("returned", "returned", expected=lambda case: "tuple"),
        Field("grad_w1", "grad w1", *TOLERANCE["float64"]),
        Field("grad_w2", "grad w2", *TOLERANCE["float64"]),
    ]
)


# -- second derivatives ------------------------------------------------------------------------


def second_order_verdict(case: Case, received: Any) -> str | None:
    """What reaches g and each input when h is sent back through the local gradients' own
    graph: ∂S/∂g = J h and ∂S/∂input, for S = Σ ⟨h, ∂L/∂input⟩."""
    if not isinstance(received, dict) or "to_grad_output" not in received:
        problem = received.get("problem") if isinstance(received, dict) else None
        return problem or f"expected what reaches g and the inputs, received {show(received)}"
    rtol, atol = SECOND_ORDER_TOLERANCE
    ran = ", ".join(f"{f}.backward" for f in received["functions"]) or "no node"
    advice = (
        f" (the pull-back ran {ran}). The local backward must compute its gradients from "
        "grad_output and the saved tensors with Tensor operations only: a result computed "
        "from .data arrays and attached to the graph (grad_output.sum() * 0 + …) has the "
        "right values but the wrong derivatives, and chapter 4 differentiates backward passes"
    )
    expected: SecondOrderExpected = case.expected
    reached = [
        ("what reaches g (∂S/∂g = J·h, for S = Σ ⟨h, ∂L/∂input⟩)", expected.to_grad_output),
        *(
            (f"what reaches {n} (∂S/∂{n}, a second derivative)", w)
            for n, w in zip(expected.names, expected.to_inputs)
        ),
    ]
    for (where, want), back in zip(reached, [received["to_grad_output"], *received["to_inputs"]]):
        back = np.zeros_like(want) if back is None else back
        problem = compare(back, want, rtol=rtol, atol=atol, path=where)
        if problem:
            return problem + advice
    return None


CHECKS = [
    *[
        Check(op.task, TITLES.get(op.name, op.expr), op_cases(op), programs.op, verdict)
        for op in CATALOG
    ],
    *[  # one per op: a failing one names its op, and the others are not listed as failing
        Check(
            op.task,
            f"second derivatives: {TITLES.get(op.name, op.expr)}",
            second_order_cases(op),
            programs.second_order,
            second_order_verdict,
            requires=SECOND_ORDER_REQUIRES[op.task],
        )
        for op in CATALOG
    ],
    Check(
        "2.11",
        "two_layer_backward",
        _engine_cases,
        programs.two_layer,
        engine_verdict,
        requires=("2.1", "2.2", "2.5", "2.6", "2.7"),
    ),
]

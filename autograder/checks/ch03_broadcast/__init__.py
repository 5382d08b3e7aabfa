"""Public checks for chapter 3 — broadcasting-aware gradients.

Task 3.1 is checked twice over. ``unbroadcast(grad, shape)`` itself, on the shape pairs of
``catalog.UNBROADCAST`` (a sweep of every shape that broadcasts to each of a set of small
grads, ``catalog.shapes_onto``, then larger and empty pairs): the result must be a Tensor of
exactly ``shape`` (size-1 axes kept), of grad's dtype, equal to the autograder's own sum
(``gradcheck.sum_to``, broadcasting's definition run backwards), without writing
into grad, and recorded by the graph so that its own gradient is right (chapter 4
differentiates backward passes): a random h sent back from the result through the recorded
nodes must reach grad as h broadcast to grad's shape. Then through chapter 2's ops: every
binary op and matmul, on operands that broadcast, must give each input a gradient of its
own shape. That happens in one place (chapter 2's ``Node.backward`` calls ``unbroadcast``
through its seam), and these checks prove it op by op with chapter 2's op program. In
student mode that runs the student's own chapter 2: a failure of the op's output or its
local backward (whose gradients the autograder sums onto the inputs itself), and any failure
of the first pair (which does not broadcast), is chapter 2's, reported as blocked by its
task (``Blocked``) with a message that names the problem and the part of chapter 2 it is in
(the output, or the local backward); the report adds the case and that ``make chapter-2``
may not see a case that broadcasts. ``cases.py`` builds the cases
(public and hidden checks alike).

Task 3.2's ``broadcast_to`` and ``sum_to_size`` are ops of the catalog kind, run by chapter
2's programs without the broadcast flag: their local backward must return its input's shape
itself, and hold up to second order (chapter 2's ``second_order`` check). Task 3.3's
``expand`` is judged end to end (``programs.expand``: value, and what reaches the input back
through whatever nodes it recorded), since a correct ``expand`` may add axes with
``reshape`` before it broadcasts. Cases run small to large, so the report shows the
smallest failing pair.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from ...harness.api import Blocked, Case, Check, Verdict, show
from ...harness.gradcheck import sum_to
from ...harness.table import Field, Fields, Mistake, first, rules, where
from ..ch02_tensor import (
    NODE,
    NodeProblem,
    Part,
    grads_verdict,
    op_cases,
    or_error,
    problem_in,
    second_order_cases,
    second_order_verdict,
    tolerance,
    verdict,
)
from ..ch02_tensor import programs as op_programs
from ..ch02_tensor.catalog import OPS as CH02_OPS
from . import programs
from .cases import broadcast_op_case, control_case, expand_cases, unbroadcast_cases
from .catalog import (
    BROADCAST_OPS,
    CATALOG,
    ELEMENTWISE,
    EXPAND,
    EXPAND_ERRORS,
    FLOAT32_PAIR,
    MATMUL,
    UNBROADCAST,
)


def _tensor(function: str, whose: str) -> tuple:
    """The rows every chapter-3 program's result meets first: a Tensor of ``whose`` dtype."""
    return (
        (
            lambda c, g: (not isinstance(g, dict) or "type_name" not in g) and (show(g),),
            "expected a Tensor, received {0}",
        ),
        (
            lambda c, g: g["type_name"] != "Tensor",
            function + " returned a {got[type_name]}, not a Tensor",
        ),
        (
            lambda c, g: g["dtype"] != c.expected.dtype,
            "expected dtype {want.dtype} (" + whose + "), received {got[dtype]}",
        ),
    )


def _graph(unrecorded: str, path: str, expected: Any = None, words: str = "{}") -> Verdict:
    """What reaches the input back through the result's graph (the record's ``pulled_back``):
    ``unrecorded`` where nothing does, else compared at the dtype's tolerance with
    ``expected(case)`` (default: ``case.expected.pulled_back``), a difference said as ``words``."""
    judged = Fields([Field("pulled_back", path, tolerance=tolerance, expected=expected)])
    return first(
        rules((lambda c, g: g.get("pulled_back") is None, unrecorded)),
        lambda c, g: (text := judged(c, g)) and words.format(text),
    )


# -- task 3.1: unbroadcast itself -------------------------------------------------------------


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


def _shape_advice(case: Case, got: Any) -> str:
    """What a wrong shape from unbroadcast says about its sums, where a usual mistake gives
    it: stretched axes not summed, or summed away; leading axes kept."""
    grad, shape = tuple(case.expected.grad_shape), tuple(case.expected.shape)
    received, lead = tuple(got["shape"]), len(grad) - len(shape)
    if shape == grad:
        return (
            "nothing is to be summed here, and sum(dim=()) sums every axis: a sum over no "
            "axes is to be skipped"
        )
    stretched = [i for i, n in enumerate(shape) if n == 1 and grad[lead + i] != 1]
    if stretched and received == grad[lead:]:
        i = stretched[0]
        return (
            f"axis {i} of {shape} (size 1) lines up with grad's axis {lead + i} (size "
            f"{grad[lead + i]}), counting from the right: broadcasting stretched it, and it "
            "was not summed"
        )
    if stretched and received == tuple(n for i, n in enumerate(shape) if i not in stretched):
        return "the stretched size-1 axes were summed away: a stretched axis keeps its size 1"
    for k in range(lead):
        if received == grad[k:lead] + shape and k == 0:
            axes = "axis" if lead == 1 else f"{lead} axes"
            return (
                f"grad's leading {axes}, which broadcasting put in front of {shape}, "
                f"{'was' if lead == 1 else 'were'} not summed away: a leading axis goes, "
                "whatever its size"
            )
        if received == grad[k:lead] + shape:
            return (
                f"only {k} of grad's {lead} leading axes, which broadcasting put in front of "
                f"{shape}, {'was' if k == 1 else 'were'} summed away: every leading axis goes"
            )
    return "sum the leading axes away, and keep each stretched size-1 axis (keepdim=True)"


def _averaged(case: Case) -> Any:
    """unbroadcast's result where the leading axes are averaged instead of summed."""
    grad, shape = np.asarray(case.inputs["grad"]), tuple(case.expected.shape)
    lead = grad.ndim - len(shape)
    n = int(np.prod(grad.shape[:lead])) if lead > 0 else 1
    return np.asarray(sum_to(grad.astype(np.float64), shape) / n) if n > 1 else None


# Task 3.1's ``unbroadcast``: a Tensor of exactly ``shape`` (with advice for the two usual
# wrong ones) and grad's dtype, the sum, not written into grad, with a graph whose gradient is
# h broadcast to grad's shape
unbroadcast_verdict = or_error(
    first(
        rules(
            (lambda c, g: isinstance(g, dict) and PROBLEMS.get(g.get("problem")), "{0}"),
            *_tensor("unbroadcast", "grad's"),
            (
                lambda c, g: tuple(g["shape"]) != c.expected.shape and (tuple(g["shape"]),),
                "unbroadcast returned shape {0}, not {want.shape}: {advice}",
            ),
            facts=lambda c, g: {"advice": _shape_advice(c, g)},
        ),
        Fields(
            [Field("out", "result", tolerance=tolerance)],
            mistakes=[
                Mistake(
                    "out",
                    _averaged,
                    "the leading axes were averaged, not summed: the gradients of the copies "
                    "add up",
                )
            ],
            then=_graph(
                "the result is not recorded by the graph as computed from grad: sum grad with "
                "Tensor operations (grad.sum(dim=..., keepdim=...)), not its .data array, so "
                "that chapter 4 can differentiate a backward pass",
                "what reaches grad (h broadcast to grad's shape, for a sum of grad)",
                words="the graph recorded for the result is not the sum it should be: a gradient "
                "h sent back through it gives {}. A result computed outside the graph and "
                "attached to it (+ grad.sum() * 0, say) has the right values but not their "
                "gradient",
            ),
        ),
    )
)


# -- task 3.1 through chapter 2's ops -----------------------------------------------------------


def _broadcast_op_cases(name: str) -> Callable[[np.random.Generator], list[Case]]:
    pairs = MATMUL if name == "matmul" else ELEMENTWISE

    def cases(rng: np.random.Generator) -> list[Case]:
        out = [control_case(rng, name, pairs[0])]
        out += [broadcast_op_case(rng, name, pair) for pair in pairs[1:]]
        out.append(broadcast_op_case(rng, name, pairs[FLOAT32_PAIR], "float32"))
        return out

    return cases


FUNCTIONS = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "matmul": "MatMul"}


# an op case's parts as chapter 2 judges them, and (on operands that do not broadcast, where
# unbroadcast has nothing to do) what Node.backward hands on: each a chapter-2 problem
SEAM = [*NODE, (Part.HANDED_ON, where(lambda c: not c.expected.broadcast, grads_verdict))]


def seam_verdict(case: Case, received: Any) -> str | Blocked | None:
    """A problem of ``SEAM`` blocks the case's op's chapter-2 task; then what Node.backward
    handed on through unbroadcast. Code: it chooses whom to blame (a ``Blocked``)."""
    name = case.inputs["name"]
    task, function = CH02_OPS[name].task, FUNCTIONS[name]
    if problem := problem_in(SEAM, case, received):
        return Blocked(task, chapter_2_message(task, function, problem, case.expected.broadcast))
    text = grads_verdict(case, received)
    return text and (
        f"{text}. Node.backward sums what {function}.backward returns with your "
        f"unbroadcast: if unbroadcast(grad, shape) passes, {function}.backward "
        f"(chapter 2, task {task}) is the suspect"
    )


def chapter_2_message(task: str, function: str, problem: NodeProblem, broadcast: bool) -> str:
    """What a student reads when chapter 3 meets a bug of chapter 2's code: what is wrong,
    and in which part of chapter 2 (the report prints the case, and that ``make chapter-2``
    may still pass, on lines of their own)."""
    where = {
        Part.INPUTS: "the given Tensor constructor (chapter 2)",
        Part.OUTPUT: f"{function}'s output (its forward, chapter 2)",
        Part.LOCAL_BACKWARD: f"{function}.backward (chapter 2, task {task})",
        Part.HANDED_ON: f"what Node.backward hands on from {function}.backward (chapter 2, "
        f"task {task})",
    }[problem.part]
    if not broadcast:
        return f"{problem.text}. The bug is in {where}, on operands that do not broadcast"
    if problem.part == Part.LOCAL_BACKWARD:
        where += (
            ", for operands of different shapes: each gradient has its input's shape, or a "
            "shape the input broadcasts to"
        )
    return f"{problem.text}. The bug is in {where}"


# -- task 3.3: expand, end to end ---------------------------------------------------------------


def _asked(case: Case, got: Any) -> tuple | None:
    """Where broadcast_to refused the shape expand asked for: (that shape, the words for
    the -1 that became the wrong size, if one did)."""
    if not isinstance(got, dict) or got.get("problem") != "broadcast":
        return None
    found = re.search(r"does not broadcast to \(([\d, ]*)\)", got.get("message", ""))
    asked = tuple(int(n) for n in found.group(1).replace(",", " ").split()) if found else None
    sizes, shape = case.inputs["sizes"], np.shape(case.inputs["data"])
    new = len(sizes) - len(shape)
    for i, size in enumerate(sizes):
        if asked and len(asked) == len(sizes) and size == -1 and i >= new:
            if asked[i] != shape[i - new]:
                return asked, (
                    f": the -1 at position {i} became {asked[i]}, but it lines up with a's "
                    f"axis {i - new} (size {shape[i - new]}), counting from the right"
                )
    return (asked or "a shape", "")


# Task 3.3's ``expand``: value, dtype, and what reaches a back through the graph
expand_verdict = or_error(
    first(
        rules(
            (
                _asked,
                "expand asked broadcast_to for the shape {0}, and it raised RuntimeError "
                "({got[message]}){1}",
            )
        ),
        rules(*_tensor("expand", "a's")),
        Fields(
            [Field("out", "out", tolerance=tolerance)],
            then=_graph(
                "the result's graph does not lead back to a: build it from a with broadcast_to",
                "∂L/∂a (the gradient a receives back through the graph)",
                lambda case: case.expected.grad,
            ),
        ),
    )
)


CHECKS = [
    Check(
        "3.1",
        "unbroadcast(grad, shape)",
        unbroadcast_cases(UNBROADCAST, [((2, 3), (3,))], [((2, 3), (4,)), ((3,), (2, 3))]),
        programs.unbroadcast,
        unbroadcast_verdict,
    ),
    *[
        Check(
            "3.1",
            f"{CH02_OPS[name].expr} (broadcast)",
            _broadcast_op_cases(name),
            op_programs.op,
            seam_verdict,
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
    *[  # one per op, as in chapter 2: a failing one names its op
        Check(
            op.task,
            "second derivatives: " + op.expr.replace("{shape}", "(shape)"),
            second_order_cases(op),
            op_programs.second_order,
            second_order_verdict,
            requires=("3.1",),
        )
        for op in CATALOG
    ],
    Check(
        "3.3",
        "a.expand(*sizes)",
        expand_cases(EXPAND, EXPAND[3], EXPAND_ERRORS),
        programs.expand,
        expand_verdict,
        requires=("3.1", "3.2"),
    ),
]

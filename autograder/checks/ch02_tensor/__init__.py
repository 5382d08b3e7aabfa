"""Public checks for chapter 2 — the tensor wrapper.

The op catalog (``catalog.py``) drives every op check: each entry names the op (the child's
``programs.OPS`` has the same names), the task whose backward it is, the autograder's own
NumPy reference in float64, the domain its inputs are drawn from (away from kinks and
poles), and the cases' shapes, small to large: scalars and 0-d, size-1 axes, transposed and
sliced (non-contiguous) data, every pair and permutation of a 3-D tensor's axes, batches of
rank 3 and 4, zeros where the rule is defined there, then a large one; and a float32 twin
of each way an op's code can go (``cases.float32_sweep``). ``cases.py`` builds the cases
(public and hidden checks alike). Every result an op makes, its forward's output and each
gradient its local backward returns, must have its inputs' dtype exactly: float32 in,
float32 out; float64 in, float64 out (``OUT_DTYPE``, ``LOCAL_DTYPE``).

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

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

import numpy as np

from ...harness.api import Case, Check, Verdict, show
from ...harness.gradcheck import sum_to
from ...harness.table import Field, Fields, Mistake, each, first, rules, say, tr, where
from . import programs
from .cases import engine_case, op_case, op_cases, second_order_cases
from .catalog import CATALOG, TITLES
from .expected import ErrorExpected, OpExpected, SecondOrderExpected
from .mistakes import LOCAL_MISTAKES, shape_words

__all__ = [
    "CHECKS",
    "NODE",
    "TOLERANCE",
    "NodeProblem",
    "Part",
    "engine_verdict",
    "grads_verdict",
    "node_problem",
    "node_verdict",
    "op_case",
    "op_cases",
    "or_error",
    "problem_in",
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


def problem_in(parts: list[tuple[Part, Verdict]], case: Case, received: Any) -> NodeProblem | None:
    """The first problem of ``parts`` ((part, the verdict that judges it), in order)."""
    found = ((part, judged(case, received)) for part, judged in parts)
    return next((NodeProblem(text, part) for part, text in found if text), None)


def _not_held(case: Case, got: Any) -> tuple | None:
    """The first input whose Tensor does not hold, bit for bit and in its dtype, the array
    sent: (its name, what it holds, the array, its dtype)."""
    sent = zip(case.expected.names, got.get("held", []), case.expected.held)
    return next(((n, show(h), show(s), s.dtype) for n, h, s in sent if not _same(h, s)), None)


def _same(held: Any, sent: np.ndarray) -> bool:
    return isinstance(held, np.ndarray) and held.dtype == sent.dtype and np.array_equal(held, sent)


@dataclass(frozen=True)
class Local:
    """One input's part of an ``OpExpected``: its name and gradient (``want``), the case's
    dtype, broadcast and needs_inputs."""

    name: str
    want: np.ndarray
    dtype: str
    broadcast: bool
    needs_inputs: bool


def _locals(case: Case, got: Any) -> list[tuple[Case, Any]]:
    """Each input's local gradient as a case of its own (expecting a ``Local``), its data
    summed by the autograder onto the input's shape where it has one the input broadcasts to."""
    e: OpExpected = case.expected
    parts = []
    for name, local, want in zip(e.names, got["local"], e.grads):
        data = local.get("data") if isinstance(local, dict) else None
        if isinstance(data, np.ndarray) and data.shape != want.shape:
            if programs.fits(data.shape, want.shape, e.broadcast):
                local = {**local, "data": sum_to(data, want.shape)}
        expected = Local(name, want, e.dtype, e.broadcast, e.needs_inputs)
        parts.append((replace(case, expected=expected), local))
    return parts


def _without_upstream(case: Case, got: Any) -> bool:
    """Whether a local gradient times the upstream gradient g is the right gradient: the
    local derivative was returned alone (where the shapes let it be told)."""
    data, g, want = got.get("data"), np.asarray(case.inputs["upstream"]), case.expected.want
    if not isinstance(data, np.ndarray) or not data.shape == g.shape == want.shape:
        return False
    return bool(np.allclose(data * g, want, rtol=1e-6, atol=1e-9)) and not np.allclose(data, want)


# an input's local gradient, before the node passes it on: of the input's shape, and computed
# with Tensor operations, so that the graph records it (chapter 4 takes second derivatives)
LOCAL_GRAPH = rules(
    (
        lambda c, g: isinstance(g, str),
        {
            "en": "∂L/∂{want.name} from the local backward: {got}",
            "zh": "局部反向函数给出的 ∂L/∂{want.name}：{got}",
        },
    ),
    (
        lambda c, g: not programs.fits(g["shape"], c.expected.want.shape, c.expected.broadcast),
        {
            "en": "∂L/∂{want.name} from the local backward has shape {shape}, but {want.name} "
            "has shape {want.want.shape}{why}: each gradient has {rule}",
            "zh": "局部反向函数给出的 ∂L/∂{want.name} 形状为 {shape}，但 {want.name} 的形状是 "
            "{want.want.shape}{why}。每个梯度的形状都应当是{rule}",
        },
    ),
    (
        lambda c, g: not g["from_grad_output"] and _without_upstream(c, g),
        {
            "en": "∂L/∂{want.name} from the local backward is the local derivative alone: "
            "grad_output, the upstream gradient, is not multiplied in (the chain rule)",
            "zh": "局部反向函数给出的 ∂L/∂{want.name} 只是局部导数：没有乘上上游梯度 "
            "grad_output（链式法则）",
        },
    ),
    (
        lambda c, g: not g["from_grad_output"],
        {
            "en": "∂L/∂{want.name} from the local backward is not computed from grad_output "
            "with Tensor operations (the graph does not lead back to it): use Tensor operations "
            "on grad_output and the saved tensors, not their .data arrays, so that chapter 4 can "
            "differentiate it (§2)",
            "zh": "局部反向函数给出的 ∂L/∂{want.name} 不是用 Tensor 运算从 grad_output 算出的"
            "（沿计算图追溯不到 grad_output）：请对 grad_output 和保存下来的张量使用 Tensor "
            "运算，而不是对它们的 .data 数组运算，这样第 4 章才能对它求导（§2）",
        },
    ),
    (
        lambda c, g: c.expected.needs_inputs and not g["from_inputs"],
        {
            "en": "∂L/∂{want.name} from the local backward does not depend on the op's inputs "
            "in the graph: recompute what it needs from the saved tensors with Tensor operations "
            "(b, not b.data; a.exp(), not np.exp(a.data)), so that chapter 4 can take second "
            "derivatives (§5)",
            "zh": "局部反向函数给出的 ∂L/∂{want.name} 在计算图中不依赖该运算的输入：请用 "
            "Tensor 运算从保存下来的张量重新算出它需要的量（用 b 而不是 b.data；用 a.exp() "
            "而不是 np.exp(a.data)），这样第 4 章才能求二阶导数（§5）",
        },
    ),
    facts=lambda c, g: {
        "shape": isinstance(g, dict) and tuple(g["shape"]),
        "rule": (
            tr("a shape it broadcasts to", "其输入能广播到的形状")
            if c.expected.broadcast
            else tr("its input's shape", "其输入的形状")
        ),
        "why": isinstance(g, dict) and shape_words(c, g),
    },
)

# -- dtypes: every local result in its inputs' dtype, both ways ---------------------------------


def _named(name: Any, suffix: str = "") -> str | None:
    """A Function's name as the child reported it (``Exp``), with ``suffix``; None where it
    is not a plain identifier (the student's code names it: nothing else is shown)."""
    ok = isinstance(name, str) and name.isidentifier() and len(name) <= 40
    return name + suffix if ok else None


def dtype_cause(want: str, got: Any, like: str) -> str:
    """The likely cause of a result of dtype ``got`` where ``want`` is expected, and its fix:
    make each array with dtype=``like`` (grad_output.dtype, a.dtype)."""
    fix = tr(
        f"pass dtype={like} to every array you make",
        f"请在创建每个数组时都传入 dtype={like}",
    )
    if want == "float32" and got == "float64":
        return tr(
            "np.zeros defaults to float64, as do np.ones, np.array(..., dtype=float) and a "
            f"mask times 1.0, and float32 combined with float64 gives float64: {fix}",
            "np.zeros 默认生成 float64，np.ones、np.array(..., dtype=float) 以及掩码乘以 1.0 "
            f"也是如此，而 float32 与 float64 一起运算得到 float64：{fix}",
        )
    if want == "float64" and got == "float32":
        return tr(
            'An array made in float32 (dtype="float32", or sp.zeros and sp.ones with the '
            f"default dtype) rounds a float64 result to 7 digits: {fix}",
            '以 float32 创建的数组（dtype="float32"，或使用默认数据类型的 sp.zeros 和 '
            f"sp.ones）会把 float64 的结果舍入到 7 位有效数字：{fix}",
        )
    # the Chinese fix starts with 请, which the Chinese keeps: "请在…" minus its first character
    return tr(f"P{fix[1:]}, so that the result stays {want}", f"请{fix[1:]}，使结果保持为 {want}")


def _inputs_of(case: Case) -> str:
    """``a float32 input`` or ``float32 inputs`` (every Tensor input of a case shares it)."""
    e: OpExpected = case.expected
    if len(e.names) == 1:
        return tr(f"a {e.dtype} input", f"{e.dtype} 输入")
    return tr(f"{e.dtype} inputs", f"{e.dtype} 输入")


# the op's output: its forward keeps its inputs' dtype (float32 in, float32 out; float64 in,
# float64 out), before any value is compared
OUT_DTYPE = rules(
    (
        lambda c, g: str(g.get("out_dtype")) != c.expected.dtype,
        {
            "en": "{forward} returned out of dtype {got[out_dtype]} for {inputs}: expected "
            "{want.dtype}, received {got[out_dtype]}. {cause}",
            "zh": "对于 {inputs}，{forward}返回的 out 数据类型为 {got[out_dtype]}：期望 "
            "{want.dtype}，实际收到 {got[out_dtype]}。{cause}",
        },
    ),
    facts=lambda c, g: {
        # the Chinese puts a space between the name and the words that follow it
        "forward": _named(g.get("function"), tr(".forward", ".forward "))
        or tr("the op's forward", "该运算的前向函数"),
        "inputs": _inputs_of(c),
        "cause": dtype_cause(c.expected.dtype, str(g.get("out_dtype")), "a.dtype"),
    },
)

# … then each local gradient's: its input's dtype, exactly (a float64 gradient of a float32
# input is no gain in precision but a NumPy default that leaked in: Node.backward would cast
# it back and hide it), then its values (summed onto the input's shape: ``_locals``)
LOCAL_DTYPE = rules(
    (
        lambda c, g: g["dtype"] != c.expected.dtype,
        {
            "en": "∂L/∂{want.name} returned by {backward}{made} has dtype {got[dtype]} for a "
            "{want.dtype} input {want.name}: expected {want.dtype}, received {got[dtype]}. "
            "{cause}",
            "zh": "{backward}返回的 ∂L/∂{want.name} 数据类型为 {got[dtype]}{made}，而输入 "
            "{want.name} 是 {want.dtype}：期望 {want.dtype}，实际收到 {got[dtype]}。{cause}",
        },
    ),
    facts=lambda c, g: {
        "backward": _named(g.get("function"), tr(".backward", ".backward "))
        or tr("the local backward", "局部反向函数"),
        "made": (
            tr(f" (made by {made})", f"（它由 {made} 生成）")
            if (made := _named(g.get("made_by"))) and made != g.get("function")
            else ""
        ),
        "cause": dtype_cause(c.expected.dtype, g["dtype"], "grad_output.dtype"),
    },
)

LOCAL_VALUES = Fields(
    [
        Field(
            "data",
            lambda case: tr(
                f"∂L/∂{case.expected.name} from the local backward",
                f"局部反向函数给出的 ∂L/∂{case.expected.name}",
            ),
            expected=lambda case: case.expected.want,
            tolerance=tolerance,
        )
    ],
    mistakes=LOCAL_MISTAKES,
    before=first(
        LOCAL_DTYPE,
        rules(
            (
                lambda c, g: not isinstance(g["data"], np.ndarray) and (show(g["data"]),),
                {
                    "en": "∂L/∂{want.name} from the local backward: expected an array, "
                    "received {0}",
                    "zh": "局部反向函数给出的 ∂L/∂{want.name}：期望一个数组，实际收到 {0}",
                },
            ),
        ),
    ),
)

# the op's output, as the student names it: its dtype, then its value at its dtype's tolerance
OUTPUT = first(
    OUT_DTYPE,
    Fields(
        [
            Field("out", "out", tolerance=tolerance),
            Field("out_requires_grad", "out.requires_grad", expected=lambda case: True),
        ]
    ),
)

# an op case's parts, in order: the record (a sentence where backward failed: the output's
# part if it recorded no graph), what the inputs hold, the output, then the local backward's
# gradients (every shape and graph, then the values)
NODE = [
    (
        Part.OUTPUT,
        rules(
            (
                lambda c, g: (not isinstance(g, dict) or "type_name" not in g) and (show(g),),
                {
                    "en": "expected the op's output and gradients, received {0}",
                    "zh": "期望该运算的输出和梯度，实际收到 {0}",
                },
            ),
            (
                lambda c, g: g["type_name"] != "Tensor",
                {
                    "en": "the op returned a {got[type_name]}, not a Tensor",
                    "zh": "该运算返回了 {got[type_name]}，而不是 Tensor",
                },
            ),
            (
                lambda c, g: isinstance(g.get("grads"), str) and not g.get("recorded", True),
                "{got[grads]}",
            ),
        ),
    ),
    (Part.LOCAL_BACKWARD, rules((lambda c, g: isinstance(g.get("grads"), str), "{got[grads]}"))),
    (
        Part.INPUTS,
        rules(
            (
                _not_held,
                {
                    "en": "the Tensor made from {0}'s data holds {1}, not the array sent, {2}, "
                    "bit for bit: the given Tensor constructor must keep a {3} array's values and "
                    "dtype exactly (was given code edited?)",
                    "zh": "用 {0} 的数据创建的 Tensor 存放的是 {1}，与发送的数组 {2} 并非逐位"
                    "相同：给定的 Tensor 构造函数必须原样保留 {3} 数组的值和数据类型（是不是"
                    "改动了给定的代码？）",
                },
            )
        ),
    ),
    (Part.OUTPUT, OUTPUT),
    (Part.LOCAL_BACKWARD, first(each(_locals, LOCAL_GRAPH), each(_locals, LOCAL_VALUES))),
]


def node_problem(case: Case, received: Any) -> NodeProblem | None:
    """The op's output and its node's local backward called alone (``NODE``), with the part."""
    return problem_in(NODE, case, received)


def node_verdict(case: Case, received: Any) -> str | None:
    problem = node_problem(case, received)
    return problem.text if problem else None


# what ``Node.backward`` handed each input: every value, then every dtype
grads_verdict = Fields(
    [
        Field(
            "grads.*",
            lambda case: [
                tr(f"∂L/∂{n} (the gradient {n} receives)", f"∂L/∂{n}（{n} 收到的梯度）")
                for n in case.expected.names
            ],
            tolerance=tolerance,
        )
    ],
    then=rules(
        (
            lambda c, g: next(
                (
                    (n, d)
                    for n, d in zip(c.expected.names, g["grad_dtypes"])
                    if d != c.expected.dtype
                ),
                None,
            ),
            {
                "en": "∂L/∂{0} (the gradient {0} receives): expected dtype {want.dtype}, "
                "received {1}",
                "zh": "∂L/∂{0}（{0} 收到的梯度）：期望数据类型 {want.dtype}，实际收到 {1}",
            },
        )
    ),
)


# -- error cases: a clear error that names the problem --------------------------------------


# an error raised, of the type ``ErrorExpected.type`` (where given), naming each of ``naming``
ERROR = rules(
    (
        lambda c, g: (not isinstance(g, dict) or "error" not in g) and (show(g),),
        {"en": "expected an exception, received {0}", "zh": "期望抛出异常，实际收到 {0}"},
    ),
    (
        lambda c, g: g["error"] is None,
        {
            "en": "expected an exception, but none was raised{why}",
            "zh": "期望抛出异常，但没有抛出任何异常{why}",
        },
    ),
    (
        lambda c, g: c.expected.type and g["error"] != c.expected.type,
        {
            "en": "raised {got[error]}: {got[message]!r}; expected a {want.type}",
            "zh": "抛出了 {got[error]}：{got[message]!r}；期望抛出 {want.type}",
        },
    ),
    (
        lambda c, g: tr(" and ", " 和 ").join(
            t for t in c.expected.naming if t not in g["message"]
        ),
        {
            "en": "raised {got[error]}: {got[message]!r}, which should name {0}",
            "zh": "抛出了 {got[error]}：{got[message]!r}，但错误消息应当写出 {0}",
        },
    ),
    facts=lambda c, g: {
        "why": tr(f": {say(c.expected.why)}", f"：{say(c.expected.why)}")
        if getattr(c.expected, "why", "")
        else ""
    },
)


def or_error(judged: Verdict) -> Verdict:
    """``ERROR`` for an error case (``ErrorExpected``), else ``judged``."""
    error = lambda case: isinstance(case.expected, ErrorExpected)
    return first(where(error, ERROR), where(lambda case: not error(case), judged))


# an op case: the output and the local backward, then (unless the case judges the local
# backward alone) what Node.backward hands on
verdict = or_error(first(node_verdict, where(lambda c: not c.expected.local_only, grads_verdict)))


# -- task 2.11: be the engine ----------------------------------------------------------------


def _engine_cases(rng: np.random.Generator) -> list[Case]:
    cases = []
    for n, d, k, m in [(1, 1, 1, 1), (2, 3, 4, 1), (5, 3, 4, 2), (32, 10, 16, 3)]:
        x, y = rng.normal(size=(n, d)), rng.normal(size=(n, m))
        w1, w2 = rng.normal(size=(d, k)) * 0.7, rng.normal(size=(k, m)) * 0.7
        label = tr(
            f"two_layer_backward with x {x.shape}, w1 {w1.shape}, w2 {w2.shape}, y {y.shape}",
            f"two_layer_backward，形状：x {x.shape}，w1 {w1.shape}，w2 {w2.shape}，y {y.shape}",
        )
        cases.append(engine_case(x, w1, w2, y, label))
    return cases


# task 2.11: the tuple of the two weights' gradients, in float64 (what it returned first: a
# function that returns something else sends only its type's name)
ONE_SHARE = {
    "en": "r is used twice in s = r * r, and only one of its two gradients reached it: a tensor "
    "used twice receives the sum of both",
    "zh": "r 在 s = r * r 中被使用了两次，但它只收到了两个梯度中的一个：被使用两次的张量应当"
    "收到两者之和",
}
engine_verdict = Fields(
    [
        Field("returned", "returned", expected=lambda case: "tuple"),
        Field("grad_w1", "grad w1", *TOLERANCE["float64"]),
        Field("grad_w2", "grad w2", *TOLERANCE["float64"]),
    ],
    mistakes=[
        Mistake("grad_w1", lambda case: case.expected.grad_w1 / 2, ONE_SHARE),
        Mistake("grad_w2", lambda case: case.expected.grad_w2 / 2, ONE_SHARE),
    ],
)


# -- second derivatives ------------------------------------------------------------------------


# what reaches g and each input when h is sent back through the local gradients' own graph:
# ∂S/∂g = J h and ∂S/∂input, for S = Σ ⟨h, ∂L/∂input⟩
REACHED = Fields(
    [
        Field(
            "to_grad_output",
            {
                "en": "what reaches g (∂S/∂g = J·h, for S = Σ ⟨h, ∂L/∂input⟩)",
                "zh": "到达 g 的梯度（∂S/∂g = J·h，其中 S = Σ ⟨h, ∂L/∂input⟩）",
            },
            *SECOND_ORDER_TOLERANCE,
        ),
        Field(
            "to_inputs.*",
            lambda case: [
                tr(
                    f"what reaches {n} (∂S/∂{n}, a second derivative)",
                    f"到达 {n} 的梯度（∂S/∂{n}，二阶导数）",
                )
                for n in case.expected.names
            ],
            *SECOND_ORDER_TOLERANCE,
        ),
    ]
)


def second_order_verdict(case: Case, received: Any) -> str | None:
    """``REACHED``, or the problem that stopped the pull-back. Code: the record is judged
    with zeros where nothing reached, and what the pull-back ran follows a difference."""
    if not isinstance(received, dict) or "to_grad_output" not in received:
        problem = received.get("problem") if isinstance(received, dict) else None
        return problem or tr(
            f"expected what reaches g and the inputs, received {show(received)}",
            f"期望到达 g 和各输入的梯度，实际收到 {show(received)}",
        )
    e: SecondOrderExpected = case.expected
    reached = [received["to_grad_output"], *received["to_inputs"]]
    zeros = [
        np.zeros_like(w) if r is None else r
        for r, w in zip(reached, [e.to_grad_output, *e.to_inputs])
    ]
    problem = REACHED(case, {"to_grad_output": zeros[0], "to_inputs": zeros[1:]})
    ran = tr(", ", "、").join(f"{f}.backward" for f in received["functions"])
    ran = ran or tr("no node", "没有节点")
    return problem and tr(
        f"{problem} (the pull-back ran {ran}). The local backward must compute its gradients "
        "from grad_output and the saved tensors with Tensor operations only: a result computed "
        "from .data arrays and attached to the graph (grad_output.sum() * 0 + …) has the right "
        "values but the wrong derivatives, and chapter 4 differentiates backward passes",
        f"{problem}（沿计算图回传时运行了 {ran}）。局部反向函数只能用 Tensor 运算，从 "
        "grad_output 和保存下来的张量计算梯度：先用 .data 数组算出结果、再接到计算图上"
        "（grad_output.sum() * 0 + …），值是对的，导数却是错的，而第 4 章要对反向传播本身求导",
    )


CHECKS = [
    *[
        Check(op.task, TITLES.get(op.name, op.expr), op_cases(op, sweep=True), programs.op, verdict)
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
            title={"zh": f"二阶导数：{TITLES.get(op.name, op.expr)}"},
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

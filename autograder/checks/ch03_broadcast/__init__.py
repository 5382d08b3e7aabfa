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
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ...harness.api import Blocked, Case, Check, Verdict, show
from ...harness.gradcheck import sum_to
from ...harness.language import Text, say, tr
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


def _tensor(function: str, whose: Mapping[str, str]) -> tuple:
    """The rows every chapter-3 program's result meets first: a Tensor of ``whose`` dtype."""
    return (
        (
            lambda c, g: (not isinstance(g, dict) or "type_name" not in g) and (show(g),),
            {"en": "expected a Tensor, received {0}", "zh": "期望一个 Tensor，实际收到 {0}"},
        ),
        (
            lambda c, g: g["type_name"] != "Tensor",
            {
                "en": function + " returned a {got[type_name]}, not a Tensor",
                "zh": function + " 返回了 {got[type_name]}，而不是 Tensor",
            },
        ),
        (
            lambda c, g: g["dtype"] != c.expected.dtype,
            {
                "en": "expected dtype {want.dtype} (" + whose["en"] + "), received {got[dtype]}",
                "zh": "期望数据类型 {want.dtype}（" + whose["zh"] + "），实际收到 {got[dtype]}",
            },
        ),
    )


def _graph(unrecorded: Text, path: Text, expected: Any = None, words: Text = "{}") -> Verdict:
    """What reaches the input back through the result's graph (the record's ``pulled_back``):
    ``unrecorded`` where nothing does, else compared at the dtype's tolerance with
    ``expected(case)`` (default: ``case.expected.pulled_back``), a difference said as ``words``."""
    judged = Fields([Field("pulled_back", path, tolerance=tolerance, expected=expected)])
    return first(
        rules((lambda c, g: g.get("pulled_back") is None, unrecorded)),
        lambda c, g: (text := judged(c, g)) and say(words).format(text),
    )


# -- task 3.1: unbroadcast itself -------------------------------------------------------------


PROBLEMS: dict[str, Text] = {  # what the unbroadcast program reports, in words
    "recursion": {
        "en": "unbroadcast called itself without end: sum_to_size (and Tensor.sum_to_size) run "
        "unbroadcast in their forward, so unbroadcast cannot use them; sum with "
        "grad.sum(dim=..., keepdim=...)",
        "zh": "unbroadcast 无休止地调用了自己：sum_to_size（以及 Tensor.sum_to_size）在前向计算中"
        "会调用 unbroadcast，所以 unbroadcast 不能用它们；请用 grad.sum(dim=..., keepdim=...) 求和",
    },
    "wrote into grad": {  # en-only: the key is the code programs.unbroadcast returns
        "en": "unbroadcast wrote into grad's array (read-only here): make new Tensors with "
        "Tensor operations instead; in chapter 4 one gradient is handed to several nodes",
        "zh": "unbroadcast 写入了 grad 的数组（这里它是只读的）：请改用张量运算生成新的 Tensor；"
        "在第 4 章中，同一个梯度会被交给多个节点",
    },
}


def _shape_advice(case: Case, got: Any) -> str:
    """What a wrong shape from unbroadcast says about its sums, where a usual mistake gives
    it: stretched axes not summed, or summed away; leading axes kept."""
    grad, shape = tuple(case.expected.grad_shape), tuple(case.expected.shape)
    received, lead = tuple(got["shape"]), len(grad) - len(shape)
    if shape == grad:
        return tr(
            "nothing is to be summed here, and sum(dim=()) sums every axis: a sum over no "
            "axes is to be skipped",
            "这里没有需要求和的轴，而 sum(dim=()) 会对所有轴求和：对零个轴的求和应当跳过",
        )
    stretched = [i for i, n in enumerate(shape) if n == 1 and grad[lead + i] != 1]
    if stretched and received == grad[lead:]:
        i = stretched[0]
        return tr(
            f"axis {i} of {shape} (size 1) lines up with grad's axis {lead + i} (size "
            f"{grad[lead + i]}), counting from the right: broadcasting stretched it, and it "
            "was not summed",
            f"从右往左数，{shape} 的轴 {i}（大小为 1）与 grad 的轴 {lead + i}（大小为 "
            f"{grad[lead + i]}）对齐：广播拉伸了这个轴，但它没有被求和",
        )
    if stretched and received == tuple(n for i, n in enumerate(shape) if i not in stretched):
        return tr(
            "the stretched size-1 axes were summed away: a stretched axis keeps its size 1",
            "被拉伸的大小为 1 的轴被求和消掉了：被拉伸的轴应保留大小 1",
        )
    for k in range(lead):
        if received == grad[k:lead] + shape and k == 0 and lead == 1:
            return tr(
                f"grad's leading axis, which broadcasting put in front of {shape}, "
                "was not summed away: a leading axis goes, whatever its size",
                f"grad 比 {shape} 多出的前导轴（广播时加在前面）没有被求和消掉："
                "前导轴不论大小都要消掉",
            )
        if received == grad[k:lead] + shape and k == 0:
            return tr(
                f"grad's leading {lead} axes, which broadcasting put in front of {shape}, "
                "were not summed away: a leading axis goes, whatever its size",
                f"grad 比 {shape} 多出的 {lead} 个前导轴（广播时加在前面）没有被求和消掉："
                "前导轴不论大小都要消掉",
            )
        if received == grad[k:lead] + shape:
            return tr(
                f"only {k} of grad's {lead} leading axes, which broadcasting put in front of "
                f"{shape}, " + ("was" if k == 1 else "were") + " summed away: every leading "
                "axis goes",
                f"grad 比 {shape} 多出的 {lead} 个前导轴（广播时加在前面）中，只有 {k} 个被求和"
                "消掉了：每个前导轴都要消掉",
            )
    return tr(
        "sum the leading axes away, and keep each stretched size-1 axis (keepdim=True)",
        "把前导轴求和消掉，并保留每个被拉伸的大小为 1 的轴（keepdim=True）",
    )


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
            (
                lambda c, g: (
                    isinstance(g, dict)
                    and (problem := PROBLEMS.get(g.get("problem")))
                    and (say(problem),)
                ),
                "{0}",
            ),
            *_tensor("unbroadcast", {"en": "grad's", "zh": "与 grad 相同"}),
            (
                lambda c, g: tuple(g["shape"]) != c.expected.shape and (tuple(g["shape"]),),
                {
                    "en": "unbroadcast returned shape {0}, not {want.shape}: {advice}",
                    "zh": "unbroadcast 返回的形状是 {0}，而不是 {want.shape}：{advice}",
                },
            ),
            facts=lambda c, g: {"advice": _shape_advice(c, g)},
        ),
        Fields(
            [Field("out", {"en": "result", "zh": "结果"}, tolerance=tolerance)],
            mistakes=[
                Mistake(
                    "out",
                    _averaged,
                    {
                        "en": "the leading axes were averaged, not summed: the gradients of the "
                        "copies add up",
                        "zh": "前导轴被求了平均，而不是求和：各个副本的梯度应当相加",
                    },
                )
            ],
            then=_graph(
                {
                    "en": "the result is not recorded by the graph as computed from grad: sum "
                    "grad with Tensor operations (grad.sum(dim=..., keepdim=...)), not its .data "
                    "array, so that chapter 4 can differentiate a backward pass",
                    "zh": "计算图没有记录结果是由 grad 算出来的：请用张量运算"
                    "（grad.sum(dim=..., keepdim=...)）对 grad 求和，而不是对它的 .data 数组"
                    "求和，这样第 4 章才能对反向传播再求导",
                },
                {
                    "en": "what reaches grad (h broadcast to grad's shape, for a sum of grad)",
                    "zh": "传回 grad 的梯度（结果是 grad 的和，所以它应是 h 广播到 grad 的形状）",
                },
                words={
                    "en": "the graph recorded for the result is not the sum it should be: a "
                    "gradient h sent back through it gives {}. A result computed outside the "
                    "graph and attached to it (+ grad.sum() * 0, say) has the right values but "
                    "not their gradient",
                    "zh": "结果记录下的计算图不是一次求和：把梯度 h 沿它传回时，{}。"
                    "在计算图之外算出、再挂到图上的结果（比如 + grad.sum() * 0）数值是对的，"
                    "梯度却不对",
                },
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
    return text and tr(
        f"{text}. Node.backward sums what {function}.backward returns with your "
        f"unbroadcast: if unbroadcast(grad, shape) passes, {function}.backward "
        f"(chapter 2, task {task}) is the suspect",
        f"{text}。Node.backward 会用你的 unbroadcast 对 {function}.backward 的返回值求和："
        f"如果 unbroadcast(grad, shape) 通过了检查，嫌疑就在 {function}.backward"
        f"（第 2 章，任务 {task}）",
    )


def chapter_2_message(task: str, function: str, problem: NodeProblem, broadcast: bool) -> str:
    """What a student reads when chapter 3 meets a bug of chapter 2's code: what is wrong,
    and in which part of chapter 2 (the report prints the case, and that ``make chapter-2``
    may still pass, on lines of their own)."""
    where = {
        Part.INPUTS: tr(
            "the given Tensor constructor (chapter 2)", "第 2 章给定的 Tensor 构造函数"
        ),
        Part.OUTPUT: tr(
            f"{function}'s output (its forward, chapter 2)",
            f"第 2 章中 {function} 的输出（它的前向计算）",
        ),
        Part.LOCAL_BACKWARD: tr(
            f"{function}.backward (chapter 2, task {task})",
            f"第 2 章任务 {task} 的 {function}.backward",
        ),
        Part.HANDED_ON: tr(
            f"what Node.backward hands on from {function}.backward (chapter 2, task {task})",
            f"第 2 章任务 {task} 中 Node.backward 从 {function}.backward 往下传的值",
        ),
    }[problem.part]
    if not broadcast:
        return tr(
            f"{problem.text}. The bug is in {where}, on operands that do not broadcast",
            f"{problem.text}。错误出在{where}，在不广播的操作数上就已出现",
        )
    if problem.part == Part.LOCAL_BACKWARD:
        where += tr(
            ", for operands of different shapes: each gradient has its input's shape, or a "
            "shape the input broadcasts to",
            "，针对形状不同的操作数：每个梯度的形状都应是对应输入的形状，或是该输入能广播到的形状",
        )
    return tr(f"{problem.text}. The bug is in {where}", f"{problem.text}。错误出在{where}")


# -- task 3.3: expand, end to end ---------------------------------------------------------------


def _asked(case: Case, got: Any) -> tuple | None:
    """Where broadcast_to refused the shape expand asked for: (that shape, the words for
    the -1 that became the wrong size, if one did)."""
    if not isinstance(got, dict) or got.get("problem") != "broadcast":
        return None
    pattern = r"does not broadcast to \(([\d, ]*)\)"  # en-only: the framework's error, matched
    found = re.search(pattern, got.get("message", ""))
    asked = tuple(int(n) for n in found.group(1).replace(",", " ").split()) if found else None
    sizes, shape = case.inputs["sizes"], np.shape(case.inputs["data"])
    new = len(sizes) - len(shape)
    for i, size in enumerate(sizes):
        if asked and len(asked) == len(sizes) and size == -1 and i >= new:
            if asked[i] != shape[i - new]:
                return asked, tr(
                    f": the -1 at position {i} became {asked[i]}, but it lines up with a's "
                    f"axis {i - new} (size {shape[i - new]}), counting from the right",
                    f"：位置 {i} 上的 -1 变成了 {asked[i]}，但从右往左数，它与 a 的轴 {i - new}"
                    f"（大小为 {shape[i - new]}）对齐",
                )
    return (asked or tr("a shape", "某个形状"), "")


# Task 3.3's ``expand``: value, dtype, and what reaches a back through the graph
expand_verdict = or_error(
    first(
        rules(
            (
                _asked,
                {
                    "en": "expand asked broadcast_to for the shape {0}, and it raised "
                    "RuntimeError ({got[message]}){1}",
                    "zh": "expand 向 broadcast_to 请求了形状 {0}，broadcast_to 抛出了 "
                    "RuntimeError（{got[message]}）{1}",
                },
            )
        ),
        rules(*_tensor("expand", {"en": "a's", "zh": "与 a 相同"})),
        Fields(
            [Field("out", "out", tolerance=tolerance)],
            then=_graph(
                {
                    "en": "the result's graph does not lead back to a: build it from a with "
                    "broadcast_to",
                    "zh": "结果的计算图没有通回 a：请用 broadcast_to 从 a 构造它",
                },
                {
                    "en": "∂L/∂a (the gradient a receives back through the graph)",
                    "zh": "∂L/∂a（a 经由计算图传回得到的梯度）",
                },
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
            title={"zh": f"{CH02_OPS[name].expr}（广播）"},
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
            title={"zh": "二阶导数：" + op.expr.replace("{shape}", "(shape)")},
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

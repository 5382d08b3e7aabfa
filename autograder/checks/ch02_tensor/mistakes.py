"""Chapter 2's known mistakes, named in a report (issue 29: the first stage of help says what
went wrong, not how to write it): the wrong local gradients students write, each as the
formula it computes (in the parent, from the case's own inputs) and the words that name it;
and the shapes a wrong backward returns. (Why a backward raised, where the case tells, is
added to the error's message in the child: ``programs.why_raised``, so that the report keeps
its "raised at" lines.)

Each formula gets the case's operands as the child views them (``Operands``: a, b, the
upstream gradient g, the options) and returns the wrong gradient of one input, or None where
the mistake does not apply. A formula that equals the right gradient on a case never names
anything there: a mistake is only named where the received value differs from the right one
and equals the formula's."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...harness.api import Case
from ...harness.gradcheck import sum_to
from ...harness.table import Mistake, Text, tr
from .programs import VIEWS, _index


@dataclass(frozen=True)
class Operands:
    """One op case's inputs as the child views them, in float64: a, b (an array, or a
    number), the upstream gradient g and the op's options (in their wire form)."""

    a: Any
    b: Any
    g: np.ndarray
    options: dict


def operands(case: Case) -> Operands:
    values = []
    for arg in case.inputs["args"]:
        if "number" in arg:
            values.append(np.float64(arg["number"]))
        else:
            values.append(VIEWS[arg["view"]](np.asarray(arg["data"], dtype=np.float64)))
    values += [None] * (2 - len(values))
    g = np.asarray(case.inputs["upstream"], dtype=np.float64)
    return Operands(values[0], values[1], g, case.inputs["options"])


def _kept(o: Operands) -> np.ndarray:
    """g with the axes a reduction removed put back as size 1 (keepdim=False)."""
    a, dim = np.asarray(o.a), o.options.get("dim")
    axes = tuple(range(a.ndim)) if dim is None else (dim if isinstance(dim, list) else [dim])
    axes = tuple(d % a.ndim for d in axes) if a.ndim else ()
    if o.options.get("keepdim") or not axes:
        return o.g.reshape([1] * a.ndim) if dim is None and a.ndim else o.g
    return np.expand_dims(o.g, axes)


def _full_max_ties(o: Operands) -> np.ndarray | None:
    if o.options.get("dim") is not None:
        return None
    winners = np.asarray(o.a == np.max(o.a), dtype=float)
    return o.g * winners if winners.sum() > 1 else None


def _split_tie_along_dim(o: Operands) -> np.ndarray | None:
    dim = o.options.get("dim")
    if dim is None or np.ndim(o.a) == 0:
        return None
    top = np.max(o.a, axis=dim, keepdims=True)
    winners = o.a == top
    return _kept(o) * winners / winners.sum(axis=dim, keepdims=True)


def _assigned(o: Operands) -> np.ndarray:
    out = np.zeros(np.shape(o.a))
    out[_index(o.options["index"])] = o.g  # the last of repeated picks wins
    return out


def _quiet(f: Callable[[], Any]) -> Any:
    with np.errstate(all="ignore"):
        return f()


def _exp_over(x: np.ndarray) -> np.ndarray:
    return np.exp(x)


# (op, input): [(the wrong gradient from the operands, the words that name the mistake)]
WRONG: dict[tuple[str, str], list[tuple[Callable[[Operands], Any], Text]]] = {
    ("sub", "b"): [
        (
            lambda o: o.g,
            {
                "en": "b received grad_output as it is: b enters a − b with a minus sign, so its "
                "gradient has the opposite sign",
                "zh": "b 原样收到了 grad_output：b 在 a − b 中带负号，所以它的梯度符号相反",
            },
        )
    ],
    ("neg", "a"): [
        (
            lambda o: o.g,
            {
                "en": "−a passed grad_output on unchanged: negation flips the sign of the "
                "gradient too",
                "zh": "−a 把 grad_output 原样传了下去：取负也会翻转梯度的符号",
            },
        )
    ],
    ("mul", "a"): [
        (
            lambda o: o.g * o.a,
            {
                "en": "a's gradient was computed from a itself: ∂(a·b)/∂a = b",
                "zh": "a 的梯度是用 a 自己算出来的：∂(a·b)/∂a = b",
            },
        )
    ],
    ("mul", "b"): [
        (
            lambda o: o.g * o.b,
            {
                "en": "b's gradient was computed from b itself: ∂(a·b)/∂b = a",
                "zh": "b 的梯度是用 b 自己算出来的：∂(a·b)/∂b = a",
            },
        )
    ],
    ("div", "a"): [
        (
            lambda o: o.g * o.b,
            {"en": "∂(a/b)/∂a is 1/b, not b", "zh": "∂(a/b)/∂a 是 1/b，不是 b"},
        )
    ],
    ("div", "b"): [
        (
            lambda o: -o.g * o.a / o.b,
            {
                "en": "b is not squared: ∂(a/b)/∂b = −a/b², not −a/b",
                "zh": "b 没有平方：∂(a/b)/∂b = −a/b²，不是 −a/b",
            },
        ),
        (
            lambda o: o.g * o.a / (o.b * o.b),
            {
                "en": "the minus sign is missing: ∂(a/b)/∂b = −a/b²",
                "zh": "漏了负号：∂(a/b)/∂b = −a/b²",
            },
        ),
    ],
    ("pow", "a"): [
        (
            lambda o: o.g * o.a ** (o.options["exponent"] - 1) if o.options["exponent"] else None,
            {"en": "aⁿ⁻¹ without the factor n in front", "zh": "aⁿ⁻¹ 前面少了系数 n"},
        ),
        (
            lambda o: o.g * 0 * o.a**-1.0 if o.options["exponent"] == 0 else None,
            {
                "en": "0·a⁻¹ is nan at a = 0 (0 times infinity): a⁰ = 1 is a constant, so its "
                "gradient is 0 everywhere, a = 0 included",
                "zh": "0·a⁻¹ 在 a = 0 处是 nan（0 乘以无穷大）：a⁰ = 1 是常数，所以它的梯度"
                "处处为 0，a = 0 处也不例外",
            },
        ),
        (
            lambda o: o.g * o.options["exponent"] * o.a ** o.options["exponent"] / o.a,
            {
                "en": "n·aⁿ/a divides by a, which is 0 here, and gives nan where n·aⁿ⁻¹ is a "
                "number",
                "zh": "n·aⁿ/a 要除以 a，而这里 a 为 0，于是在 n·aⁿ⁻¹ 本有确定值的地方得到了 nan",
            },
        ),
    ],
    ("sqrt", "a"): [
        (
            lambda o: o.g / np.sqrt(o.a),
            {
                "en": "1/√a instead of 1/(2√a): the 2 is missing",
                "zh": "算成了 1/√a 而不是 1/(2√a)：少了那个 2",
            },
        )
    ],
    ("log", "a"): [
        (
            lambda o: o.g / np.log(o.a),
            {"en": "1/log(a) instead of 1/a", "zh": "算成了 1/log(a) 而不是 1/a"},
        )
    ],
    ("tanh", "a"): [
        (
            lambda o: o.g * (1 - np.tanh(o.a)),
            {
                "en": "1 − tanh(a) instead of 1 − tanh²(a)",
                "zh": "算成了 1 − tanh(a) 而不是 1 − tanh²(a)",
            },
        ),
        (
            lambda o: o.g * np.tanh(o.a),
            {"en": "tanh(a) instead of 1 − tanh²(a)", "zh": "算成了 tanh(a) 而不是 1 − tanh²(a)"},
        ),
    ],
    ("sigmoid", "a"): [
        (
            lambda o: o.g * (e := _exp_over(-o.a)) / ((1 + e) * (1 + e)),
            {
                "en": "σ′ was computed through exp(−a), which overflows to inf where a is very "
                "negative (exp(800)), and inf / inf is nan, where σ′ is 0",
                "zh": "σ′ 是通过 exp(−a) 计算的：a 是绝对值很大的负数时，它上溢为 inf"
                "（exp(800)），inf / inf 得到 nan，而那里的 σ′ 应为 0",
            },
        ),
        (
            lambda o: o.g * (e := _exp_over(o.a)) / ((1 + e) * (1 + e)),
            {
                "en": "σ′ was computed through exp(a), which overflows to inf where a is very "
                "large (exp(800)), and inf / inf is nan, where σ′ is 0",
                "zh": "σ′ 是通过 exp(a) 计算的：a 很大时，它上溢为 inf（exp(800)），inf / inf "
                "得到 nan，而那里的 σ′ 应为 0",
            },
        ),
        (
            lambda o: o.g * 0.5 * (1 + np.tanh(o.a / 2)),
            {"en": "σ(a) instead of σ(a)(1 − σ(a))", "zh": "算成了 σ(a) 而不是 σ(a)(1 − σ(a))"},
        ),
    ],
    ("relu", "a"): [
        (
            lambda o: o.g,
            {
                "en": "the gradient passed where a < 0: relu passes it only where a > 0",
                "zh": "梯度在 a < 0 处也传了下去：relu 只在 a > 0 处传递梯度",
            },
        ),
        (
            lambda o: o.g * (o.a >= 0),
            {
                "en": "the gradient passed where a = 0: relu'(0) is 0 at every kink, as in PyTorch",
                "zh": "梯度在 a = 0 处也传了下去：在每个折点处 relu'(0) 都是 0，与 PyTorch 一致",
            },
        ),
    ],
    ("abs", "a"): [
        (
            lambda o: o.g * np.where(o.a >= 0, 1.0, -1.0),
            {
                "en": "the gradient passed where a = 0: |a|'(0) is 0 at every kink, as in PyTorch",
                "zh": "梯度在 a = 0 处也传了下去：在每个折点处 |a|'(0) 都是 0，与 PyTorch 一致",
            },
        ),
    ],
    ("mean", "a"): [
        (
            lambda o: _kept(o) * np.ones(np.shape(o.a)),
            {
                "en": "the mean's gradient is not divided by the number of elements averaged",
                "zh": "均值的梯度没有除以参与平均的元素个数",
            },
        )
    ],
    ("max", "a"): [
        (
            _full_max_ties,
            {
                "en": "each tied maximum received the whole gradient: a full max() shares it "
                "equally among its ties",
                "zh": "每个并列的最大值都收到了完整的梯度：完整的 max() 应把梯度平均分给所有"
                "并列的元素",
            },
        ),
        (
            _split_tie_along_dim,
            {
                "en": "a tie along dim was shared out: along a dim the gradient goes only to the "
                "index max returned (the first of a tie), as in PyTorch; only a full max() "
                "shares ties",
                "zh": "沿 dim 的并列元素分掉了梯度：沿某个 dim 求 max 时，梯度只给 max 返回的"
                "索引（并列中的第一个），与 PyTorch 一致；只有完整的 max() 才平分并列",
            },
        ),
    ],
    ("getitem", "a"): [
        (
            _assigned,
            {
                "en": "an element picked more than once received only one of its gradients: the "
                "gradients of repeated picks add up",
                "zh": "被多次选中的元素只收到了其中一份梯度：重复选中时，各份梯度应当累加",
            },
        )
    ],
}


def _formula(op: str, name: str, f: Callable[[Operands], Any]) -> Callable[[Case], Any]:
    """The wrong gradient of input ``name`` for a case of ``op`` (a ``Local`` case: its
    expected value names the input), summed onto the input's shape where it broadcast."""

    def wrong(case: Case) -> Any:
        if case.inputs["name"] != op or case.expected.name != name:
            return None
        value = _quiet(lambda: f(operands(case)))
        if value is None:
            return None
        value, want = np.asarray(value, dtype=np.float64), case.expected.want
        if value.shape == want.shape:
            return value
        value = np.broadcast_to(value, np.broadcast_shapes(value.shape, want.shape))
        return sum_to(value, want.shape)

    return wrong


LOCAL_MISTAKES = [
    Mistake("data", _formula(op, name, f), words)
    for (op, name), rows in WRONG.items()
    for f, words in rows
]


# -- shapes: what a wrong local gradient's shape is, in words -----------------------------------


def shape_words(case: Case, got: Any) -> str:
    """Why a local gradient has ``got``'s shape, where a usual mistake explains it: "" else."""
    shape, want = tuple(got["shape"]), tuple(case.expected.want.shape)
    op, options = case.inputs["name"], case.inputs["options"]
    g = tuple(np.shape(case.inputs["upstream"]))
    if op in ("broadcast_to", "sum_to_size") and shape == g and shape != want:
        done = (
            tr("summed back", "求和回到")
            if op == "broadcast_to"
            else tr("broadcast back", "广播回到")
        )
        return tr(
            f": it is grad_output's shape, as it came, not {done} to a's shape (the seam that "
            "sums a broadcast gradient does not run for this op)",
            f"：它就是 grad_output 原来的形状，没有{done} a 的形状（对这个运算，把广播过的梯度"
            "求和回去的接缝不会运行）",
        )
    if op in ("transpose", "T") and shape == g[::-1] and shape != want:
        return tr(
            f": {shape} is grad_output's shape {g} with every axis reversed (.T), which "
            "undoes a swap of two axes only where they are the first and the last",
            f"：{shape} 是把 grad_output 的形状 {g} 的所有轴反转（.T）得到的，而只有当交换的"
            "两个轴恰好是第一个和最后一个轴时，这样做才能撤销那次交换",
        )
    if op == "permute" and shape == tuple(g[d] for d in options["dims"]) and shape != want:
        return tr(
            f": {shape} is grad_output's shape {g} permuted by the same dims again, which "
            "does not undo the permutation",
            f"：{shape} 是把 grad_output 的形状 {g} 再按同样的 dims 置换一次得到的，这并不能"
            "撤销原来的置换",
        )
    if op in ("sum", "mean", "max") and options.get("keepdim") and len(shape) == len(want) + 1:
        return tr(
            ": with keepdim=True, grad_output still has the reduced axis, and one more "
            "size-1 axis was added",
            "：keepdim=True 时 grad_output 仍保留着被归约的轴，却又多加了一个大小为 1 的轴",
        )
    squeezed = tuple(n for n in want if n != 1)
    if shape == squeezed and shape != want:
        return tr(
            f": {case.expected.name}'s own size-1 axes were squeezed away too, not only the "
            "axis a 1-D operand was given",
            f"：{case.expected.name} 自身大小为 1 的轴也被压缩掉了，而不只是为 1-D 操作数"
            "添加的那个轴",
        )
    return ""

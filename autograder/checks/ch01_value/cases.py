"""Chapter 1's case builders and verdicts, shared by the public checks (``__init__.py``) and the
hidden ones (the instructor's, which only the course repository has): each check there is a
table of rows, each row one call of a builder here. Everything here runs in the grading
process; the programs that run next to the code under test are ``programs.py``.

A gradient case knows what a correct answer is and, when the answer is wrong, what the usual
wrong answers are: a verdict that recognises one of them names it ("x held 0.25 before and
_backward replaced it instead of adding to it: use +="), instead of stopping at "expected …,
received …". Graph walks are judged by what they cost as well as by their result: call
depth, reads of each Value's ``_prev``, ``==`` between Values and CPU time (``read_caps``).

The verdicts are declared: a step's values are ``Fields`` (``STEP_FIELDS``), every (condition →
words) table is ``rules`` (the usual wrong formulas, ``backward()``'s calls, the walks' budgets:
``BUDGET``, ``RECURSED``); one stays code, the order property of ``topological_order``.

What a case requires is a record here (``StepExpected``, ``ReadmeExpected``, ``Graph``); what
a program saw is one of ``programs.py``'s TypedDicts. Their fields are identifiers; the
verdicts name each thing as the student writes it ("x.grad", "x in out._prev").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...harness.api import Case, Verdict, all_numbers, compare, is_number, show
from ...harness.language import Text, say, tr
from ...harness.table import Field, Fields, first, rules, where
from . import programs

DEPTH_LIMIT = 50  # calls: an iterative walk stays a few deep, recursion goes as deep as the graph
SECONDS_LIMIT = 1.0  # CPU seconds for one graph walk: the reference needs about 0.05 s at most


def _same(a: float, b: float) -> bool:
    """Whether a received number is a known answer (right or wrong): equal to 1e-9, relative,
    or to 1e-12 near 0 (tighter than any verdict's tolerance, looser than rounding)."""
    return math.isfinite(a) and abs(a - b) <= 1e-9 * max(abs(a), abs(b)) + 1e-12


@dataclass(frozen=True)
class ReadmeExpected:
    """What micrograd's README example (``programs.readme``) requires: g's data and the
    gradients of a and b."""

    g_data: float
    a_grad: float
    b_grad: float


# micrograd's README example: g's data and the gradients of a and b, named as the student
# writes them
readme_verdict = Fields(
    [
        Field("g_data", "g.data", 1e-5, 1e-6),
        Field("a_grad", "a.grad", 1e-5, 1e-6),
        Field("b_grad", "b.grad", 1e-5, 1e-6),
    ]
)


# -- task 1.1: central_difference ----------------------------------------------------------


def central_case(label: Text, fn: str, x: float, eps: float | None) -> Case:
    """``central_difference(f, x[, eps])`` with ``f = programs.FUNCTIONS[fn]``; expected:
    (f(x + ε) − f(x − ε)) / 2ε in float64, ε = 1e-6 unless given."""
    f, step = programs.FUNCTIONS[fn], 1e-6 if eps is None else eps
    expected = (f(x + step) - f(x - step)) / (2 * step)
    return Case(label, {"fn": fn, "x": x, "eps": eps}, expected)


def _central_facts(case: Case, got) -> Any:
    """The number against the central difference; where a number differs, the rows name it."""
    problem = compare(got, case.expected, rtol=EXACT[0], atol=EXACT[1])
    return {"problem": problem} if problem and is_number(got) else problem


# the usual wrong formulas of f'(x) from f, x and eps, and what each is
CENTRAL_MISTAKES: list[tuple[Callable, Text]] = [
    (
        lambda f, x, h: (f(x + h) - f(x)) / h,
        {
            "en": "the forward difference (f(x + eps) − f(x)) / eps",
            "zh": "前向差分 (f(x + eps) − f(x)) / eps",
        },
    ),
    (
        lambda f, x, h: (f(x) - f(x - h)) / h,
        {
            "en": "the backward difference (f(x) − f(x − eps)) / eps",
            "zh": "后向差分 (f(x) − f(x − eps)) / eps",
        },
    ),
    (
        lambda f, x, h: (f(x + h) - f(x - h)) / h,
        {
            "en": "(f(x + eps) − f(x − eps)) / eps: the 2 in 2·eps is missing",
            "zh": "把分母 2·eps 写成了 eps：(f(x + eps) − f(x − eps)) / eps 漏掉了 2·eps 中的 2",
        },
    ),
]
OTHER_EPS: list[tuple[Callable, Text]] = [  # where the default eps is used
    (
        lambda f, x, h, e=e: (f(x + e) - f(x - e)) / (2 * e),
        {
            "en": f"the central difference with eps = {e:g}: the default must be 1e-6",
            "zh": f"取 eps = {e:g} 的中心差分：eps 的默认值必须是 1e-6",
        },
    )
    for e in (1e-3, 1e-4, 1e-5, 1e-7, 1e-8)
]


def _central_mistake(case: Case, got) -> str | None:
    """What the received number is, where it is one of the usual wrong formulas."""
    f, x, eps = programs.FUNCTIONS[case.inputs["fn"]], case.inputs["x"], case.inputs["eps"]
    for formula, what in CENTRAL_MISTAKES + OTHER_EPS * (eps is None):
        value = formula(f, x, 1e-6 if eps is None else eps)
        if _same(float(got), value) and not _same(value, case.expected):
            return say(what)
    return None


central_verdict = rules(
    (_central_mistake, {"en": "{problem}: that is {0}", "zh": "{problem}：这是{0}"}),
    (lambda case, got: True, "{problem}"),
    facts=_central_facts,
)


# -- tasks 1.2–1.6: one op's forward and local derivative ----------------------------------
#
# Each case is one chain-rule step by hand: inputs (some already holding a gradient, the
# presets), out = op(inputs), out.grad = g, out._backward(). Expected: out.data = f(inputs),
# and each input's grad = its preset + g · ∂f/∂input.


def _sigmoid(a: float) -> float:
    return 0.5 * (1 + math.tanh(a / 2))  # = 1 / (1 + e^-a), and never overflows


# op: the autograder's own function on floats, and its derivative
UNARY: dict[str, tuple[Callable[[float], float], Callable[[float], float]]] = {
    "exp": (math.exp, math.exp),
    "log": (math.log, lambda a: 1 / a),
    "tanh": (math.tanh, lambda a: 1 - math.tanh(a) ** 2),
    "sigmoid": (_sigmoid, lambda a: _sigmoid(a) * (1 - _sigmoid(a))),
    "relu": (lambda a: max(a, 0.0), lambda a: 1.0 if a > 0 else 0.0),  # relu'(0) = 0: PyTorch's
}

# op: its value, and its exact partial derivatives (linear and bilinear: no rounding)
BINARY: dict[str, tuple[Callable[[float, float], float], Callable]] = {
    "+": (lambda a, b: a + b, lambda a, b: (1.0, 1.0)),
    "*": (lambda a, b: a * b, lambda a, b: (b, a)),
}

EXACT = (1e-9, 1e-12)  # rtol, atol: the expectations are closed forms in float64

TASKS = {"+": "1.2", "*": "1.3", "exp": "1.5", "log": "1.5"}  # each op's task
TASKS |= dict.fromkeys(("tanh", "sigmoid", "relu"), "1.6")


def before(presets: dict[str, float]) -> str:
    """The presets as a label writes them: ``x.grad = 0.25; ``."""
    return "".join(f"{name}.grad = {value:g}; " for name, value in presets.items())


@dataclass(frozen=True)
class StepExpected:
    """What one chain-rule step (``programs._step``) requires: out is a Value holding
    ``out_data``, each input is one of out._prev, and each input's grad is ``grads[name]``
    (its preset + g · its local derivative), in the inputs' order (x, then y)."""

    out_data: float
    grads: dict[str, float]


def step_expected(value: float, local: dict[str, float], g: float, presets: dict) -> StepExpected:
    """What ``programs._step`` should see: ``out.data`` = ``value``, and each input's
    grad = its preset + g · its local derivative (``local``)."""
    grads = {name: presets.get(name, 0.0) + g * d for name, d in local.items()}
    return StepExpected(value, grads)


def _input(name: str) -> list[Field]:
    """What input ``name`` received: its grad, and whether it is one of out._prev."""
    return [
        Field(f"grads.{name}", f"{name}.grad", *EXACT),
        Field(
            f"in_prev.{name}",
            f"{name} in out._prev",
            expected=lambda case: True,
            says={
                "en": f"out does not remember {name} as one of the Values it was made from, so "
                f"backward() can never reach {name}",
                "zh": f"out 没有把 {name} 记作构造它的 Value 之一，"
                f"所以 backward() 永远到达不了 {name}",
            },
        ),
    ]


# a step's values, as the student names them: type(out), out.data, x's and then y's
STEP_FIELDS = Fields(
    [
        Field("type_name", "type(out)", expected=lambda case: "Value"),
        Field("out_data", "out.data", *EXACT),
        *_input("x"),
    ],
    then=where(lambda case: "y" in case.expected.grads, Fields(_input("y"))),
)


def unary_case(label: Text, op: str, a: float, g: float, presets: dict[str, float]) -> Case:
    """``x = Value(a)`` holding its preset grad, ``out = x.op()``, ``out.grad = g``,
    ``out._backward()``."""
    f, d = UNARY[op]
    inputs = {"op": op, "a": a, "g": g, "presets": presets}
    if op in FAR_OUT and abs(a) >= 100:  # where a formula through exp overflows: named
        inputs["catch"] = True
    return Case(label, inputs, step_expected(f(a), {"x": d(a)}, g, presets))


# the ops whose value far out is a float though exp of the input is not (e^710 > 1.8e308):
# what they tend to, by the sign of x
FAR_OUT = {"tanh": ("−1", "1"), "sigmoid": ("0", "1")}


def _far_words(case: Case, got) -> dict[str, str]:
    op, a = case.inputs["op"], case.inputs["a"]
    limit = FAR_OUT[op][a > 0]
    if isinstance(got, dict) and got.get("error") == "OverflowError":
        why = tr(
            f"a number on the way is too large for a float (exp of a number above about 709 "
            f"is beyond 1.8e308), though {op}({a:g}) itself is {limit} to a float's precision: "
            "nothing on the way may overflow (§5)",
            f"计算过程中有个中间数超出了浮点数的范围（大于约 709 的数取 exp 会超过 1.8e308），"
            f"而 {op}({a:g}) 本身在浮点精度下就等于 {limit}：计算过程中的任何一步都不能溢出（§5）",
        )
    else:
        why = tr(
            f"{op}(x) is a float for every x, {limit} this far out",
            f"对任意 x，{op}(x) 都是一个浮点数，在离原点这么远的地方它等于 {limit}",
        )
    return {"why": why}


# x.tanh() or x.sigmoid() far out: an error raised where the answer is a float
far_verdict = rules(
    (
        lambda case, got: isinstance(got, dict) and "raised_in" in got,
        {
            "en": "{got[raised_in]} raised {got[error]} ({got[message]}) at x = "
            "{case.inputs[a]:g}: {why}",
            "zh": "在 x = {case.inputs[a]:g} 处，{got[raised_in]} 抛出了 {got[error]}"
            "（{got[message]}）：{why}",
        },
    ),
    facts=lambda case, got: _far_words(case, got) if case.inputs.get("catch") else {},
)


# -- task 1.4: x ** n, and the rule at a zero base (§4) --------------------------------------
#
# ∂(xⁿ)/∂x = n·xⁿ⁻¹, and 0 for n = 0 (x⁰ = 1 is a constant), x = 0 included. At x = 0 the
# formula gives 1 for n = 1 and 0 for n > 1; for the other n < 1 no number is right, and
# the Value raises as Python's floats do: x ** n itself for n < 0 (0ⁿ = 1/0⁻ⁿ), its
# _backward for 0 < n < 1 (0ⁿ = 0, an infinite slope). PyTorch gives inf there.

ZERO_BASE_ERRORS = ("ZeroDivisionError", "ValueError")  # Python's 0.0 ** -1; math.pow's


@dataclass(frozen=True)
class PowerRaises:
    """What ``x ** n`` at a zero base requires where no number is right: one of
    ``ZERO_BASE_ERRORS``, raised by ``raised_in``: "x ** n" (n < 0), or "out._backward()"
    (0 < n < 1) after x ** n gave ``out_data`` (0)."""

    raised_in: str
    out_data: float | None = None


def power_case(label: Text, a: float, n: float, g: float, presets: dict[str, float]) -> Case:
    """``x ** n``: ∂out/∂x = n·xⁿ⁻¹, 0 for n = 0; at a zero base, an error where no number
    is right (``PowerRaises``), and the program returns what was raised (``catch``)."""
    inputs = {"a": a, "n": n, "g": g, "presets": presets, "catch": a == 0}
    if a == 0 and n < 0:
        return Case(label, inputs, PowerRaises("x ** n"))
    if a == 0 and 0 < n < 1:
        return Case(label, inputs, PowerRaises("out._backward()", 0.0))
    local = 0.0 if n == 0 else n * a ** (n - 1)
    return Case(label, inputs, step_expected(a**n, {"x": local}, g, presets))


def zero_base(n: float) -> str:
    """What ∂(xⁿ)/∂x is at x = 0, and why (§4)."""
    if n == 0:
        return tr(
            "x⁰ = 1 is a constant, so its local derivative is 0 everywhere, x = 0 included "
            "(as in PyTorch), though n·xⁿ⁻¹ = 0·0⁻¹ divides by zero there: when n = 0, add "
            "nothing to x.grad",
            "x⁰ = 1 是常数，所以它的局部导数处处为 0，x = 0 处也不例外（与 PyTorch 一致），"
            "尽管 n·xⁿ⁻¹ = 0·0⁻¹ 在那里要除以零：n = 0 时，什么也不要加到 x.grad 上",
        )
    if n == 1:
        return tr(
            "n·0ⁿ⁻¹ = 1·0⁰ = 1 (x¹ = x has slope 1 everywhere; Python's 0.0 ** 0 is 1.0)",
            "n·0ⁿ⁻¹ = 1·0⁰ = 1（x¹ = x 的斜率处处为 1；Python 中 0.0 ** 0 等于 1.0）",
        )
    if n > 1:
        return f"n·0ⁿ⁻¹ = {n:g}·0^{n - 1:g} = 0"
    if n > 0:
        return tr(
            f"0^{n:g} = 0, but its slope n·0ⁿ⁻¹ = {n:g}·0^{n - 1:g} is infinite",
            f"0^{n:g} = 0，但它的斜率 n·0ⁿ⁻¹ = {n:g}·0^{n - 1:g} 是无穷大",
        )
    return tr(
        f"0^{n:g} = 1/0{'' if n == -1 else f'^{-n:g}'} divides by zero",
        f"0^{n:g} = 1/0{'' if n == -1 else f'^{-n:g}'} 要除以零",
    )


def binary_case(
    label: Text, op: str, form: programs.Form, a: float, b, g: float, presets: dict
) -> Case:
    """One of ``programs.binary``'s forms (``programs.Form``): "values" and "preset grads"
    (x op y), "number right" (x op b), "number left" (b op x), "same value" (x op x)."""
    f, d = BINARY[op]
    if form == "same value":
        value, local = f(a, a), {"x": sum(d(a, a))}
    elif form == "number right":
        value, local = f(a, b), {"x": d(a, b)[0]}
    elif form == "number left":
        value, local = f(b, a), {"x": d(b, a)[1]}
    else:
        value, local = f(a, b), dict(zip("xy", d(a, b)))
    inputs = {"op": op, "form": form, "a": a, "b": b, "g": g, "presets": presets}
    return Case(label, inputs, step_expected(value, local, g, presets))


# the words that name each usual wrong grad of an input ({name}), and its formula from the
# input's preset p, the upstream g and its local derivative d (the right grad: p + g·d)
STEP_MISTAKES: list[tuple[Text, Callable]] = [
    (
        {
            "en": "{name} held {p:g} before and _backward replaced it instead of adding to it: "
            "use += (a Value used twice needs both contributions, §8)",
            "zh": "{name} 原本持有 {p:g}，_backward 却把它替换掉了，而不是累加上去：应当用 +="
            "（一个被用了两次的 Value 需要两份贡献，§8）",
        },
        lambda p, g, d: g * d,
    ),
    (
        {
            "en": "the upstream gradient out.grad = {g:g} is missing: the chain rule multiplies "
            "the local derivative by it",
            "zh": "漏掉了上游梯度 out.grad = {g:g}：链式法则要把局部导数乘以它",
        },
        lambda p, g, d: p + d,
    ),
    (
        {
            "en": "{name} held {p:g} before, and both the upstream gradient out.grad = {g:g} "
            "and += are missing",
            "zh": "{name} 原本持有 {p:g}，而上游梯度 out.grad = {g:g} 和 += 都漏掉了",
        },
        lambda p, g, d: d,
    ),
    (
        {
            "en": "the sign is flipped: the local derivative enters with a minus",
            "zh": "符号反了：局部导数被带上了负号",
        },
        lambda p, g, d: p - g * d,
    ),
    (
        {
            "en": "nothing was added: out._backward() did not change {name}.grad (is _backward "
            "set on out, and does it add to {name}.grad?)",
            "zh": "什么也没有加上：out._backward() 没有改变 {name}.grad（out 上设置了 _backward "
            "吗？它会累加到 {name}.grad 上吗？）",
        },
        lambda p, g, d: p,
    ),
]
SAME_VALUE: list[tuple[Text, Callable]] = [  # x op x
    (
        {
            "en": "{name} is both inputs of out, and the second contribution replaced the first "
            "instead of adding to it: use += (§8)",
            "zh": "{name} 同时是 out 的两个输入，第二份贡献替换掉了第一份，而不是累加上去："
            "应当用 +=（§8）",
        },
        lambda p, g, d: p + g * d / 2,
    ),
]


# op: the usual wrong local derivatives, as (what went wrong, the wrong derivative at a)
WRONG_LOCALS: dict[str, list[tuple[Text, Callable[[float], float]]]] = {
    "log": [
        ({"en": "log(x) instead of 1/x", "zh": "log(x)，而不是 1/x"}, math.log),
        (
            {
                "en": "1/log(x), one over out.data, instead of 1/x: one over the input",
                "zh": "1/log(x)（即 1 除以 out.data），而不是 1/x（1 除以输入）",
            },
            lambda a: 1 / math.log(a),
        ),
    ],
    "tanh": [
        (
            {"en": "1 − tanh(x) instead of 1 − tanh²(x)", "zh": "1 − tanh(x)，而不是 1 − tanh²(x)"},
            lambda a: 1 - math.tanh(a),
        ),
        (
            {"en": "tanh(x) instead of 1 − tanh²(x)", "zh": "tanh(x)，而不是 1 − tanh²(x)"},
            math.tanh,
        ),
    ],
    "sigmoid": [
        ({"en": "σ(x) instead of σ(x)(1 − σ(x))", "zh": "σ(x)，而不是 σ(x)(1 − σ(x))"}, _sigmoid),
        (
            {"en": "1 − σ(x) instead of σ(x)(1 − σ(x))", "zh": "1 − σ(x)，而不是 σ(x)(1 − σ(x))"},
            lambda a: 1 - _sigmoid(a),
        ),
    ],
    "relu": [
        (
            {
                "en": "1 where x < 0: relu passes the gradient only where x > 0",
                "zh": "1（在 x < 0 处）：relu 只在 x > 0 处传递梯度",
            },
            lambda a: 1.0 if a < 0 else math.nan,
        ),
        (
            {
                "en": "1 at the kink: relu'(0) is 0, as in PyTorch (§5)",
                "zh": "1（在折点处）：relu'(0) 是 0，与 PyTorch 一致（§5）",
            },
            lambda a: 1.0 if a == 0 else math.nan,
        ),
        (
            {
                "en": "x instead of 0 or 1: relu'(x) is a step, not relu itself",
                "zh": "x，而不是 0 或 1：relu'(x) 是阶跃函数，不是 relu 本身",
            },
            lambda a: max(a, 0.0),
        ),
    ],
}


def _wrong_locals(inputs: dict) -> dict[str, list[tuple[str, float]]]:
    """Per input name, the usual wrong local derivatives for this case's op and values."""
    a = inputs["a"]
    if "n" in inputs:  # x ** n
        n = inputs["n"]
        wrong = [
            (
                tr(f"xⁿ⁻¹ without the factor n = {n:g}", f"xⁿ⁻¹，漏掉了因子 n = {n:g}"),
                lambda: a ** (n - 1),
            ),
            (
                tr("n·xⁿ: the exponent must drop by one (n·xⁿ⁻¹)", "n·xⁿ：指数要减一（n·xⁿ⁻¹）"),
                lambda: n * a**n,
            ),
        ]
    elif inputs["op"] == "*" and inputs["form"] in ("values", "preset grads"):
        rule = tr("∂(x·y)/∂x = y and ∂(x·y)/∂y = x", "∂(x·y)/∂x = y，∂(x·y)/∂y = x")
        return {
            "x": [
                (
                    tr(
                        f"x's own data instead of y's: {rule}",
                        f"x 自己的 data，而不是 y 的：{rule}",
                    ),
                    a,
                )
            ],
            "y": [
                (
                    tr(
                        f"y's own data instead of x's: {rule}",
                        f"y 自己的 data，而不是 x 的：{rule}",
                    ),
                    inputs["b"],
                )
            ],
        }
    elif inputs["op"] in WRONG_LOCALS:
        wrong = [(say(what), lambda d=d: d(a)) for what, d in WRONG_LOCALS[inputs["op"]]]
    else:
        return {}
    values = []
    for what, d in wrong:
        try:
            values.append((what, float(d())))
        except (ArithmeticError, ValueError):
            continue
    return {"x": values}


def _zero_guard(inputs: dict, d: float) -> list[tuple[Text, Callable]]:
    """x ** n at x = 0 where the local derivative d is not 0 (n = 1): the words for 0, a
    guard that skips a zero base."""
    if "n" not in inputs or inputs["a"] != 0 or d == 0:
        return []
    words = tr(
        f"the local derivative of x ** {inputs['n']:g} at x = 0 is {zero_base(inputs['n'])}, "
        "not 0: compute n·xⁿ⁻¹, with no guard for a zero base (§4)",
        f"x ** {inputs['n']:g} 在 x = 0 处的局部导数是 {zero_base(inputs['n'])}，不是 0："
        "直接计算 n·xⁿ⁻¹，不要为零底数加特判（§4）",
    )
    return [(words, lambda p, g, d: p)]


def _mistake(case: Case, got) -> tuple | None:
    """The first input whose grad is one of its usual wrong ones (``STEP_MISTAKES``, a Value
    used twice, the op's wrong local derivatives): (name.grad, right, received, the words)."""
    g, grads = case.inputs["g"], got.get("grads")
    for name, right in case.expected.grads.items():
        r = grads.get(name) if isinstance(grads, Mapping) else None
        if not is_number(r) or _same(r := float(r), right):
            continue
        p = case.inputs["presets"].get(name, 0.0)
        rows = _zero_guard(case.inputs, (right - p) / g)  # before "nothing was added"
        rows += STEP_MISTAKES + (SAME_VALUE if case.inputs.get("form") == "same value" else [])
        for what, w in _wrong_locals(case.inputs).get(name, []):
            words = tr(f"the local derivative is {what}", f"局部导数用成了 {what}")
            rows.append((words, lambda p, g, d, w=w: p + g * w))
        for words, wrong in rows:
            value = wrong(p, g, (right - p) / g)
            if _same(r, value) and not _same(value, right):
                said = say(words).format(name=name, p=p, g=g)
                return f"{name}.grad", show(right), show(r), said
    return None


def _imprecise(case: Case, got) -> tuple | None:
    """The first number right to float32's precision but not float64's, with every digit (a
    report's 8 significant digits would show two equal numbers): name, right, received, error."""
    grads = got.get("grads") if isinstance(got.get("grads"), Mapping) else {}
    numbers = {"out.data": (got.get("out_data"), case.expected.out_data)}
    numbers |= {f"{n}.grad": (grads.get(n), right) for n, right in case.expected.grads.items()}
    for name, (r, right) in numbers.items():
        if not is_number(r) or not math.isfinite(r := float(r)) or r == right:
            continue
        error = abs(r - right) / max(abs(right), 1e-300)
        if error < 1e-6:
            return name, right, r, error
    return None


def _step_facts(case: Case, got) -> Any:
    """The step's values against ``STEP_FIELDS``; a difference the rows may name (g ≠ 0)."""
    problem = STEP_FIELDS(case, got)
    return (
        {"problem": problem} if problem and isinstance(got, dict) and case.inputs["g"] else problem
    )


# one chain-rule step: its values (STEP_FIELDS), a wrong grad named where it is a usual mistake
step_verdict = rules(
    (
        _mistake,
        {"en": "{0}: expected {1}, received {2}: {3}", "zh": "{0}：期望 {1}，实际收到 {2}：{3}"},
    ),
    (
        _imprecise,
        {
            "en": "{0}: expected {1!r}, received {2!r}, off by {3:.1e} relative, far more than "
            "float64's rounding (about 1e-16): float32's rounding (about 6e-8) or an "
            "approximation does this. Compute exactly, with Python floats",
            "zh": "{0}：期望 {1!r}，实际收到 {2!r}，相对误差 {3:.1e}，远大于 float64 的舍入误差"
            "（约 1e-16）：这是 float32 的舍入（约 6e-8）或某种近似造成的。请用 Python 的 float "
            "精确计算",
        },
    ),
    (lambda case, got: True, "{problem}"),
    facts=_step_facts,
)

# a unary op's step: an error far out named (``far_verdict``), then the step's values
unary_verdict = first(far_verdict, step_verdict)


def _power_facts(case: Case, got) -> Any:
    """The case as the words name it, and what the program met: a raise, or a step."""
    if not isinstance(got, Mapping):
        return tr(f"expected a record, received {show(got)}", f"期望一条记录，实际收到 {show(got)}")
    n = case.inputs["n"]
    grads = got.get("grads") if isinstance(got.get("grads"), Mapping) else {}
    received = got.get("out_data") if got.get("type_name", "Value") == "Value" else None
    fix = tr(
        ": compute n·xⁿ⁻¹ itself, which never divides by x", "：直接计算 n·xⁿ⁻¹ 本身，它从不除以 x"
    )
    other = tr(f"a {got.get('type_name')}", f"一个 {got.get('type_name')}")
    return {
        "base": tr(f"x ** {n:g} at x = 0", f"x = 0 处的 x ** {n:g}"),
        "why": zero_base(n),
        "n": f"{n:g}",
        "slope": f"{n - 1:g}",
        "fix": "" if n == 0 else fix,
        "out": show(received) if received is not None else other,
        "grad": show(grads.get("x")),
    }


def _raised_in(case: Case, got) -> str | None:
    return got.get("raised_in")


def _raises_as_due(case: Case, got) -> bool:
    return _raised_in(case, got) == case.expected.raised_in and got["error"] in ZERO_BASE_ERRORS


# x ** n at a zero base: an error where no number is right (``PowerRaises``), a number and no
# error elsewhere; then the step's values (``step_verdict``)
power_verdict = first(
    where(
        lambda case: isinstance(case.expected, StepExpected),
        first(
            rules(
                (
                    _raised_in,
                    {
                        "en": "{base}: {got[raised_in]} raised {got[error]} ({got[message]}), "
                        "but a number is right here: {why}{fix} (§4)",
                        "zh": "{base}：{got[raised_in]} 抛出了 {got[error]}（{got[message]}），"
                        "但这里的正确答案是一个数：{why}{fix}（§4）",
                    },
                ),
                facts=_power_facts,
            ),
            step_verdict,
        ),
    ),
    where(
        lambda case: isinstance(case.expected, PowerRaises),
        rules(
            (
                lambda case, got: (
                    _raises_as_due(case, got)
                    and case.expected.out_data is not None
                    and not (is_number(got.get("out_data")) and _same(got["out_data"], 0.0))
                    and (show(got.get("out_data")),)
                ),
                {
                    "en": "{base}: out.data: expected 0, received {0}: 0^{n} = 0",
                    "zh": "{base}：out.data：期望 0，实际收到 {0}：0^{n} = 0",
                },
            ),
            (_raises_as_due, None),
            (
                lambda case, got: got.get("type_name", "Value") != "Value",
                {
                    "en": "{base}: type(out): expected Value, received {got[type_name]}",
                    "zh": "{base}：type(out)：期望 Value，实际收到 {got[type_name]}",
                },
            ),
            (
                lambda case, got: (
                    _raised_in(case, got) == "x ** n" and case.expected.raised_in != "x ** n"
                ),
                {
                    "en": "{base}: x ** n raised {got[error]} ({got[message]}), but 0^{n} = 0 is "
                    "a number (Python's 0.0 ** {n} is 0.0); only its slope n·0ⁿ⁻¹ is infinite, so "
                    "the error belongs in out._backward(): compute the slope inside _backward (§4)",
                    "zh": "{base}：x ** n 抛出了 {got[error]}（{got[message]}），"
                    "但 0^{n} = 0 是一个数（Python 中 0.0 ** {n} 等于 0.0）；只有它的斜率 "
                    "n·0ⁿ⁻¹ 是无穷大，所以这个错误应当在 out._backward() 中抛出："
                    "请在 _backward 里计算斜率（§4）",
                },
            ),
            (
                lambda case, got: _raised_in(case, got) == case.expected.raised_in,
                {
                    "en": "{base}: {got[raised_in]} raised {got[error]} ({got[message]}): {why}, "
                    "and it must raise ZeroDivisionError, as Python's floats do (math.pow: "
                    "ValueError; §4)",
                    "zh": "{base}：{got[raised_in]} 抛出了 {got[error]}（{got[message]}）：{why}，"
                    "而它必须像 Python 的浮点数那样抛出 ZeroDivisionError（math.pow 抛出的是 "
                    "ValueError；§4）",
                },
            ),
            (
                lambda case, got: case.expected.raised_in == "x ** n",
                {
                    "en": "{base} gave out.data = {out} instead of raising ZeroDivisionError: "
                    "{why}, so no number is right. Raise, as Python's 0.0 ** {n} does, so that "
                    "Value(1) / Value(0) raises as 1 / 0 does (PyTorch gives inf; §4)",
                    "zh": "{base} 给出了 out.data = {out}，而没有抛出 ZeroDivisionError：{why}，"
                    "所以任何数都不对。请像 Python 的 0.0 ** {n} 那样抛出异常，这样 "
                    "Value(1) / Value(0) 就会像 1 / 0 一样抛出异常（PyTorch 给出 inf；§4）",
                },
            ),
            (
                lambda case, got: True,
                {
                    "en": "{base}: out._backward() gave x.grad = {grad} instead of raising "
                    "ZeroDivisionError: {why}, so no number is right. Let n·xⁿ⁻¹ raise, as "
                    "Python's 0.0 ** {slope} does (PyTorch gives inf; §4): a guard or an except "
                    "that gives a number hides it",
                    "zh": "{base}：out._backward() 给出了 x.grad = {grad}，而没有抛出 "
                    "ZeroDivisionError：{why}，所以任何数都不对。让 n·xⁿ⁻¹ 像 Python 的 "
                    "0.0 ** {slope} 那样抛出异常（PyTorch 给出 inf；§4）：用特判或 except "
                    "返回一个数会把这个错误掩盖掉",
                },
            ),
            facts=_power_facts,
        ),
    ),
)


# -- tasks 1.7 and 1.8: graphs ---------------------------------------------------------------


@dataclass(frozen=True)
class Graph:
    """A DAG as ``programs.build`` builds it: node i's inputs are ``inputs[i]`` (all smaller
    indices); ``root`` is the node the call starts from; ``names``, where given, are what the
    case's label calls the nodes (a diamond's a–d), and messages use them."""

    inputs: list[list[int]]
    root: int
    names: tuple[Text, ...] = ()

    def name(self, node: int) -> str:
        return say(self.names[node]) if self.names else tr(f"node {node}", f"节点 {node}")


def chain(n: int) -> list[list[int]]:
    """n Values, each computed from the one before."""
    return [[]] + [[i - 1] for i in range(1, n)]


def random_dag(rng: np.random.Generator, n: int, most: int = 3) -> list[list[int]]:
    """n Values, each computed from up to ``most`` random earlier ones."""
    graph: list[list[int]] = [[]]
    for i in range(1, n):
        k = int(rng.integers(0, min(i, most) + 1))
        graph.append(sorted({int(j) for j in rng.integers(0, i, size=k)}))
    return graph


def ladder(n: int) -> list[list[int]]:
    """Each Value computed from the two before it: Fibonacci-many paths to the first."""
    return [[], [0]] + [[i - 2, i - 1] for i in range(2, n)]


def squarings(steps: int) -> list[list[int]]:
    """``x = (x + 1) * x``, ``steps`` times, from a leaf x (each 1 its own leaf): 2^steps
    paths from the root to the first x, 3·steps + 1 Values."""
    graph: list[list[int]] = [[]]
    x = 0
    for _ in range(steps):
        graph.append([])  # the constant 1
        graph.append([x, len(graph) - 1])  # x + 1
        graph.append([len(graph) - 1, x])  # (x + 1) * x
        x = len(graph) - 1
    return graph


def squared(steps: int) -> Graph:
    """``squarings(steps)`` rooted at its last x, its first x named for messages."""
    inputs = squarings(steps)
    first_x = {"en": "the first x", "zh": "第一个 x"}
    names = (first_x, *({"en": f"node {i}", "zh": f"节点 {i}"} for i in range(1, len(inputs))))
    return Graph(inputs, len(inputs) - 1, names)


def tree(depth: int) -> list[list[int]]:
    """A complete binary tree, leaves first: every Value has two inputs of its own."""
    graph: list[list[int]] = []
    level = []
    for _ in range(2**depth):
        level.append(len(graph))
        graph.append([])
    while len(level) > 1:
        level_up = []
        for left, right in zip(level[::2], level[1::2]):
            level_up.append(len(graph))
            graph.append([left, right])
        level = level_up
    return graph


def fan(width: int) -> list[list[int]]:
    """Two leaves, ``width`` Values that each use both, and a root that uses them all."""
    return [[], []] + [[0, 1]] * width + [list(range(2, width + 2))]


def shared_chain(n: int) -> list[list[int]]:
    """A chain in which every Value also uses the first leaf."""
    return [[], [0]] + [[0, i - 1] for i in range(2, n)]


def whole(inputs: list[list[int]]) -> Graph:
    """The graph with its last Value as the root."""
    return Graph(inputs, len(inputs) - 1)


def reachable(graph: Graph) -> set[int]:
    seen, stack = {graph.root}, [graph.root]
    while stack:
        for child in graph.inputs[stack.pop()]:
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return seen


def read_caps(graph: Graph, times: int = 1) -> dict:
    """What a walk may spend before the program stops it (``programs.build``): reads of each
    node's ``_prev``, and ``==`` between Values. A linear walk reads a node's ``_prev`` a few
    times per use of it, so (2 + users + inputs)² leaves room for any of them, while a walk
    without a visited set reads it once per path from the root, which doubles with each
    ``x = (x + 1) * x``; and it needs no ``==`` (a set finds a Value by its hash), while
    ``x in a_list`` compares x with each element."""
    users = [0] * len(graph.inputs)
    for children in graph.inputs:
        for child in children:
            users[child] += 1
    caps = [times * (2 + u + len(k)) ** 2 for u, k in zip(users, graph.inputs)]
    edges = sum(users)
    return {"caps": caps, "compares": times * (2 * (len(caps) + edges) + 100)}


def topo_case(label: Text, graph: Graph) -> Case:
    """``topological_order(root)``; judged as a property by ``topo_verdict``."""
    inputs = {"graph": graph.inputs, "root": graph.root, **read_caps(graph)}
    shown = tr(
        f"topological_order(root) on {say(label)}",
        f"在{say(label)}上运行 topological_order(root)",
    )
    return Case(shown, inputs, graph)


# why a walk was stopped (``read_caps``), or that it took too long
BUDGET = (
    (
        lambda case, got: (s := got.get("stopped")) and s["what"] == "==" and (s["count"],),
        {
            "en": "{what} compared Values with == more than {0:,} times on {size}, and was "
            "stopped there: `x in a_list` compares x with every element, so a walk that keeps "
            "its visited Values in a list costs n² on n Values (a chain of 20,000 takes "
            "seconds). Keep them in a set, which finds a Value at once (§6).",
            "zh": "{what} 在{size}上用 == 比较 Value 超过了 {0:,} 次，已被中止："
            "`x in a_list` 会把 x 与列表中的每个元素逐一比较，所以把已访问的 Value 存在列表里的"
            "遍历，在 n 个 Value 上的代价是 n²（一条 20,000 个 Value 的链要花好几秒）。"
            "请把它们存在集合（set）里，集合能立刻找到一个 Value（§6）。",
        },
    ),
    (
        lambda case, got: (s := got.get("stopped")) and (s["count"], case.expected.name(s["node"])),
        {
            "en": "{what} read {1}'s _prev more than {0:,} times on {size}, and was stopped "
            "there: {cure}",
            "zh": "{what} 在{size}上读取“{1}”的 _prev 超过了 {0:,} 次，已被中止：{cure}",
        },
    ),
    (
        lambda case, got: got.get("seconds", 0.0) > SECONDS_LIMIT and (got["seconds"],),
        {
            "en": "{what} took {0:.1f} CPU seconds on {size} (a linear walk takes well under "
            f"{SECONDS_LIMIT:g}): something in it costs more than constant time per Value, "
            "such as list.insert(0, …) or list.pop(0) (append, pop from the end, and reverse "
            "once)",
            "zh": "{what} 在{size}上花了 {0:.1f} 秒 CPU 时间（线性遍历远用不了 "
            f"{SECONDS_LIMIT:g} 秒）：其中某一步在每个 Value 上的代价超过了常数时间，例如 "
            "list.insert(0, …) 或 list.pop(0)（应当 append、从末尾 pop，最后 reverse 一次）",
        },
    ),
)

# that a walk recursed (or hid how deep it went)
RECURSED = (
    (
        lambda case, got: got["depth"] < 0,
        {
            "en": "{what} switched off the grader's call-depth measurement (sys.settrace), so "
            "the check cannot tell an iterative walk from a recursive one",
            "zh": "{what} 关掉了评分程序对调用深度的测量（sys.settrace），因此检查无法区分"
            "迭代遍历和递归遍历",
        },
    ),
    (
        lambda case, got: not got["depth"] <= DEPTH_LIMIT,
        {
            "en": f"{{what}} went more than {DEPTH_LIMIT} calls deep: it recurses, once per "
            "node. Walk the graph with an explicit stack instead (§6).",
            "zh": f"{{what}} 的调用深度超过了 {DEPTH_LIMIT} 层：它在递归，每个节点一层。"
            "请改用显式的栈来遍历图（§6）。",
        },
    ),
)


def walk(what: str, *rows: tuple, cure: Text = "") -> Verdict:
    """``rules`` of a graph walk: "{what}" the function, "{size}" the graph, "{cure}"."""
    size = lambda case: tr(
        f"a graph of {len(case.expected.inputs):,} Values",
        f"一个有 {len(case.expected.inputs):,} 个 Value 的图",
    )
    return rules(
        *rows, facts=lambda case, got: {"what": what, "size": size(case), "cure": say(cure)}
    )


EXPANDS_PER_PATH = {
    "en": "it expands a Value once for every path from the root to it, and the number of paths "
    "doubles with each `x = (x + 1) * x`. Mark each Value as visited (a set) when it is "
    "first expanded, and never expand it again (§6).",
    "zh": "从根节点到一个 Value 有多少条路径，它就把这个 Value 展开多少次，而路径数每经过一次 "
    "`x = (x + 1) * x` 就翻一倍。请在第一次展开某个 Value 时把它标记为已访问（用一个集合），"
    "以后不再展开它（§6）。",
}


def _order(case: Case, got) -> str | None:
    # code, not a table: a property of an order (each Value once, inputs first, root last),
    # found by walking it; the words say where it fails
    graph, order = case.expected, got["order"]
    if -1 in order:
        return tr(
            "the list holds something that is not one of the graph's Values",
            "列表中有一项不是这个图中的 Value",
        )
    position: dict[int, int] = {}
    for i, node in enumerate(order):
        if node in position:
            return _twice(graph, node)
        position[node] = i
    reach = reachable(graph)
    if missing := sorted(reach - position.keys()):
        return _missing(graph, order, missing)
    if extra := sorted(position.keys() - reach):
        return tr(
            f"{graph.name(extra[0])} is in the list but cannot be reached from the root",
            f"{graph.name(extra[0])} 在列表中，但从根节点无法到达它",
        )
    if wrong := _user_first(graph, reach, position):
        return _before_input(graph, reach, position, wrong)
    if order[-1] != graph.root:
        return tr(
            f"the root ({graph.name(graph.root)}) must come last, "
            f"it is at position {position[graph.root]}",
            f"根节点（{graph.name(graph.root)}）必须排在最后，而它在位置 {position[graph.root]}",
        )
    return None


def _before_input(graph: Graph, reach: set[int], position: dict, wrong: tuple) -> str:
    problem = tr(
        f"{graph.name(wrong[0])} comes before its input {graph.name(wrong[1])}",
        f"{graph.name(wrong[0])} 排在了它的输入“{graph.name(wrong[1])}”之前",
    )
    reverse = {node: len(position) - 1 - i for node, i in position.items()}
    if _user_first(graph, reach, reverse) is None:
        return tr(
            f"{problem}: the list is reversed, the root first; topological_order lists "
            "inputs first and the root last (backward() walks it in reverse, §7)",
            f"{problem}：列表是反的，根节点排在了最前；topological_order 应当先列输入、"
            "最后列根节点（backward() 会倒序遍历它，§7）",
        )
    return tr(f"{problem}: inputs must come first", f"{problem}：输入必须排在前面")


def _missing(graph: Graph, order: list[int], missing: list[int]) -> str:
    first = graph.name(missing[0])
    problem = (
        tr(
            f"{len(missing)} Values reachable from the root are missing, e.g. {first}",
            f"缺少了 {len(missing)} 个从根节点可达的 Value，例如“{first}”",
        )
        if missing[1:]
        else tr(
            f"{first} is missing, though it can be reached from the root",
            f"缺少了“{first}”，尽管从根节点可以到达它",
        )
    )
    data = [programs.node_data(n) for n in order]
    lost = programs.node_data(missing[0])
    if lost in data and len(set(data)) == len(data):  # one Value per number: keyed by data
        problem += tr(
            f"; it holds the same number as {graph.name(order[data.index(lost)])}, yet it is "
            "another Value: tell Values apart by identity (a set of Values), never by their data",
            f"；它与“{graph.name(order[data.index(lost)])}”持有相同的数，但它是另一个 Value："
            "请按对象本身（用一个 Value 的集合）区分 Value，而不要按它们的 data 区分",
        )
    return problem


# a property, not a value: every reachable node once, inputs before users, root last; within
# the call-depth, _prev-read and CPU budgets
topo_verdict = first(
    walk(
        "topological_order",
        (
            lambda case, got: (not isinstance(got, dict) or "order" not in got) and (show(got),),
            {
                "en": "expected a list of Values, received {0}",
                "zh": "期望一个由 Value 组成的列表，实际收到 {0}",
            },
        ),
        *BUDGET,
        (
            lambda case, got: not isinstance(got["order"], list) and (show(got["order"]),),
            {
                "en": "expected a list of Values, received {0}",
                "zh": "期望一个由 Value 组成的列表，实际收到 {0}",
            },
        ),
        cure=EXPANDS_PER_PATH,
    ),
    _order,
    walk("topological_order", *RECURSED),
)


def _twice(graph: Graph, node: int) -> str:
    problem = tr(
        f"{graph.name(node)} appears twice (each Value must appear exactly once)",
        f"{graph.name(node)} 出现了两次（每个 Value 必须恰好出现一次）",
    )
    reach = reachable(graph)
    users = [graph.name(u) for u in sorted(reach) if node in graph.inputs[u]]
    if len(users) > 1:
        both = tr(" and ", " 和 ").join(users[:2])
        problem += tr(
            f": it is used by {both}, so a walk reaches it twice; mark "
            "each Value as visited the first time and skip it after (§6)",
            f"：{both} 都用到了它，所以遍历会两次到达它；请在第一次访问每个 Value 时把它"
            "标记为已访问，之后跳过它（§6）",
        )
    return problem


def _user_first(graph: Graph, reach: set[int], position: dict) -> tuple[int, int] | None:
    """A reachable node listed before one of its inputs, as (node, input), or None."""
    for node in sorted(reach):
        for child in graph.inputs[node]:
            if position[child] > position[node]:
                return node, child
    return None


def random_weights(rng: np.random.Generator, graph: Graph, kind: str) -> list[list[float]]:
    """One local derivative per edge, rounded to 3 decimals: "unit" ±1 (exact sums on graphs
    with many paths), "small" ±[0.2, 0.6] (gradients stay small), "any" in [-2, 2]."""
    sizes = [len(children) for children in graph.inputs]
    edges = sum(sizes)
    if kind == "unit":
        flat = rng.choice([-1.0, 1.0], edges)
    elif kind == "small":
        flat = rng.choice([-1.0, 1.0], edges) * rng.uniform(0.2, 0.6, edges)
    else:
        flat = rng.uniform(-2, 2, edges)
    flat = flat.round(3)
    ends = np.cumsum(sizes).tolist()
    return [flat[end - size : end].tolist() for size, end in zip(sizes, ends)]


def simulate(
    graph: Graph, weights, preset: float, times: int, *, seed: str = "set", order: int = -1
) -> list:
    """micrograd's backward, ``times`` times, as plain floats: the root's grad is set to 1,
    then each node, in a reverse topological order (inputs have smaller indices), adds
    w · its grad to each input's grad. Two known mistakes: ``seed="add"`` adds 1 to the
    root's grad, ``order=1`` runs the nodes inputs first."""
    grads = [preset] + [0.0] * (len(graph.inputs) - 1)
    nodes = range(graph.root, -1, -1) if order == -1 else range(graph.root + 1)
    for _ in range(times):
        grads[graph.root] = 1.0 if seed == "set" else grads[graph.root] + 1.0
        for node in nodes:
            for child, w in zip(graph.inputs[node], weights[node]):
                grads[child] += w * grads[node]
    return grads


def backward_case(label: Text, graph: Graph, weights, preset: float, times: int) -> Case:
    """``root.backward()``, ``times`` times, on ``graph`` with the autograder's own local
    derivatives (``weights``), node 0 holding ``preset`` first; expected: ``simulate``."""
    inputs = {
        "graph": graph.inputs,
        "weights": weights,
        "root": graph.root,
        "preset": preset,
        "times": times,
        **read_caps(graph, times),
    }
    often = tr(
        {1: "", 2: " twice"}.get(times, f" {times} times"),
        {1: "", 2: " 两次"}.get(times, f" {times} 次"),
    )
    shown = tr(
        f"root.backward(){often} on {say(label)}",
        f"在{say(label)}上调用 root.backward(){often}",
    )
    return Case(shown, inputs, graph)


WALKS_AGAIN = {
    "en": "backward() walks the graph more than once per call. Call topological_order(self) "
    "once and run each Value's _backward once, in reverse order (§7).",
    "zh": "backward() 每次调用都不止一次地遍历计算图。请只调用一次 topological_order(self)，"
    "再按逆序把每个 Value 的 _backward 各运行一次（§7）。",
}


def _ran_wrong(case: Case, got) -> tuple | None:
    """A reachable Value whose _backward did not run once per call (a leaf's: at most once):
    its name, how often it ran, in how many calls."""
    graph, times = case.expected, case.inputs["times"]
    for node in sorted(reachable(graph), reverse=True):
        ran = got["calls"][node]
        if (graph.inputs[node] and ran != times) or ran > times:
            calls = tr("calls" if times > 1 else "call", "次 backward() 调用")
            return graph.name(node), ran, times, calls
    return None


def _ran_unreached(case: Case, got) -> tuple | None:
    """A Value the root cannot reach whose _backward ran: its name."""
    reach = reachable(case.expected)
    ran = (node for node, ran in enumerate(got["calls"]) if ran and node not in reach)
    return next(((case.expected.name(node),) for node in ran), None)


def _grads(case: Case, got) -> Any:
    """The grads against ``simulate``'s: where they differ as numbers, the rows name it."""
    expected = simulate(case.expected, case.inputs["weights"], **_run(case))
    path = tr("grad of node", "节点的梯度")
    problem = compare(got["grads"], expected, rtol=1e-9, atol=1e-9, path=path)
    if problem is None or not all_numbers(got["grads"]) or len(got["grads"]) != len(expected):
        return problem
    root = show(got["grads"][case.expected.root])
    return {"problem": problem, "expected": expected, "root": root, "node0": case.expected.name(0)}


def _run(case: Case) -> dict:
    return {"preset": case.inputs["preset"], "times": case.inputs["times"]}


def _grads_of(applies: Callable[..., Any], **wrong: Any) -> Callable:
    """when: ``applies(preset, times)`` and the grads are ``simulate``'s with ``wrong`` (a
    preset, a number of calls or a mistake other than the case's)."""

    def when(case: Case, got) -> bool:
        run = _run(case)
        if not applies(**run):
            return False
        return all(
            map(_same, got["grads"], simulate(case.expected, case.inputs["weights"], **run | wrong))
        )

    return when


def _unseeded(case: Case, got) -> bool:
    """Whether no grad but the root's changed."""
    root, preset = case.expected.root, case.inputs["preset"]
    return all(map(_same, got["grads"][:root], [preset] + [0.0] * root))


def _named(case: Case, got) -> tuple | None:
    """The first Value of a graph with names whose grad differs: name, expected, received."""
    expected = simulate(case.expected, case.inputs["weights"], **_run(case))
    close = lambda r, e: abs(r - e) <= 1e-9 + 1e-9 * abs(e)
    i = next(i for i, (r, e) in enumerate(zip(got["grads"], expected)) if not close(r, e))
    return case.expected.names and (case.expected.name(i), show(expected[i]), show(got["grads"][i]))


# each node's _backward ran once per call (leaves: at most once), grads as simulate's and the
# usual wrong backward() named; within the call-depth, _prev-read and CPU budgets
backward_verdict = first(
    walk(
        "backward()",
        (
            lambda case, got: (not isinstance(got, dict) or "depth" not in got) and (show(got),),
            {"en": "expected the grads, received {0}", "zh": "期望各个梯度，实际收到 {0}"},
        ),
        *BUDGET,
        *RECURSED,
        (
            _ran_wrong,
            {
                "en": "{0}'s _backward ran {1} times in {2} backward() {3}: each "
                "Value's _backward must run exactly once per call, after every Value that uses it",
                "zh": "{0} 的 _backward 在 {2} {3}中运行了 {1} 次：每次调用中，每个 Value 的 "
                "_backward 都必须恰好运行一次，并且要在所有用到它的 Value 之后运行",
            },
        ),
        (
            _ran_unreached,
            {
                "en": "{0} cannot be reached from the root, yet its _backward ran: backward() "
                "must visit only the Values its root was computed from",
                "zh": "从根节点无法到达“{0}”，它的 _backward 却运行了：backward() 只能访问计算"
                "根节点时用到的那些 Value",
            },
        ),
        cure=WALKS_AGAIN,
    ),
    rules(
        (
            _grads_of(lambda preset, times: preset and times == 1, preset=0.0),
            {
                "en": "{node0} held {case.inputs[preset]:g} before backward() and lost it: "
                "backward() adds to the grads it finds (clearing them is zero_grad's job, not "
                "backward's)",
                "zh": "{node0} 在 backward() 之前持有 {case.inputs[preset]:g}，之后却丢掉了："
                "backward() 应当累加到已有的 grad 上（清零是 zero_grad 的事，不是 backward 的）",
            },
        ),
        (
            _grads_of(lambda preset, times: times > 1, seed="add"),
            {
                "en": "after {case.inputs[times]} calls the root's grad is {root}: backward() "
                "must set the root's grad to 1 (∂root/∂root), not add 1 to it",
                "zh": "调用 {case.inputs[times]} 次之后，根节点的 grad 是 {root}：backward() "
                "必须把根节点的 grad 设为 1（∂root/∂root），而不是给它加 1",
            },
        ),
        (
            _grads_of(lambda preset, times: times > 1, times=1),
            {
                "en": "after {case.inputs[times]} calls the grads are those of one call: "
                "backward() must add to the grads (a second call accumulates), not reset them",
                "zh": "调用 {case.inputs[times]} 次之后，各个 grad 却只是一次调用的结果："
                "backward() 必须累加梯度（第二次调用会继续累加），而不是重置它们",
            },
        ),
        (
            _grads_of(lambda preset, times: True, order=1),
            {
                "en": "the _backward calls ran inputs first: a Value must pass its gradient on "
                "only after every Value that uses it has added its share: from the root back to "
                "the leaves, the topological order reversed (§7)",
                "zh": "各个 _backward 是从输入开始运行的：一个 Value 必须等所有用到它的 Value "
                "都加上了各自的那一份，才能把梯度继续往下传：也就是从根节点回到叶子节点，"
                "按拓扑序的逆序（§7）",
            },
        ),
        (
            _unseeded,
            {
                "en": "the root's grad is {root} and no other grad changed: backward() must set "
                "the root's grad to 1 first, then run each _backward",
                "zh": "根节点的 grad 是 {root}，其他 grad 都没有变化：backward() 必须先把根节点"
                "的 grad 设为 1，再运行各个 _backward",
            },
        ),
        (
            _named,
            {
                "en": "{0}.grad: expected {1}, received {2}",
                "zh": "{0}.grad：期望 {1}，实际收到 {2}",
            },
        ),
        (lambda case, got: True, "{problem}"),
        facts=_grads,
    ),
)


def backward_rows(
    rng: np.random.Generator, rows: Sequence[tuple[Text, Graph, str, float, int]]
) -> list[Case]:
    """``backward_case`` for each (label, graph, weight kind, preset, times) row."""
    return [
        backward_case(label, graph, random_weights(rng, graph, kind), preset, times)
        for label, graph, kind, preset, times in rows
    ]

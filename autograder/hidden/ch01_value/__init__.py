"""Hidden checks for chapter 1 — scalar autograd (Value).

Same programs, builders and verdicts as the public checks (``checks/ch01_value/``: each
check here is rows of ``cases.py``'s builders), other cases of the same rules: other points
and steps for the central difference, zeros, ints and inputs that already hold a gradient
for the operators, zero bases (other n of each kind whose answer differs, §4) and a zero
exponent for ``**``, saturated tanh and sigmoid, relu at its kink, ladders, trees, fans and
dense graphs for ``topological_order`` and ``backward``; and one new program
(``programs.mlp``): a small network whose loss runs every op of the chapter at once.
Expected values come from ``cases.py``'s closed forms, this file's plain float network and
``gradcheck``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...checks.ch01_value import CHECKS as PUBLIC
from ...checks.ch01_value.cases import (
    BINARY,
    UNARY,
    Graph,
    backward_rows,
    binary_case,
    central_case,
    chain,
    fan,
    ladder,
    power_case,
    random_dag,
    shared_chain,
    squared,
    squarings,
    topo_case,
    tree,
    unary_case,
    whole,
)
from ...harness.api import Case
from ...harness.gradcheck import partials
from ...harness.language import Text, say, tr
from ...harness.table import Field, Fields, Hidden, hidden_checks
from . import programs

# -- task 1.1: central_difference at other points, with other steps ----------------------------

NEGATIVE_X = {"en": "a negative x, the default eps", "zh": "x 为负数，eps 取默认值"}


def _central_cases(rng: np.random.Generator) -> list[Case]:
    cases = []
    for kind, name, x, eps in [
        (NEGATIVE_X, "x**3", -1.5, None),
        (NEGATIVE_X, "1/x", -0.8, None),
        (
            {
                "en": "x near 0, the default eps (the result is 3x² + eps²)",
                "zh": "x 接近 0，eps 取默认值（结果是 3x² + eps²）",
            },
            "x**3",
            round(float(rng.uniform(-1, 1)), 3) * 1e-5,
            None,
        ),
        (
            {
                "en": "a large eps (the central difference of x**3 is off by exactly eps²)",
                "zh": "eps 较大（x**3 的中心差分恰好偏差 eps²）",
            },
            "x**3",
            1.0,
            1.0,
        ),
        ({"en": "a small eps", "zh": "eps 较小"}, "exp(x)", float(rng.uniform(-3, 0)), 1e-4),
        (
            {"en": "a random x, the default eps", "zh": "x 随机，eps 取默认值"},
            "sin(x)",
            float(rng.uniform(-3, 3)),
            None,
        ),
        (
            {"en": "a random x and a random eps", "zh": "x 和 eps 都随机"},
            "x**2",
            float(rng.uniform(-5, 5)),
            float(rng.uniform(0.1, 1)),
        ),
        ({"en": "a large eps", "zh": "eps 较大"}, "1/x", float(rng.uniform(2, 4)), 1.5),
    ]:
        call = f"central_difference(f, x{'' if eps is None else ', eps'})"
        shown = tr(
            f"{call} with f(x) = {name}, {say(kind)}",
            f"{call}，其中 f(x) = {name}，{say(kind)}",
        )
        cases.append(central_case(shown, name, x, eps))
    return cases


# -- tasks 1.2 and 1.3: + and * on other values and forms ---------------------------------------


def _binary_cases(op: str) -> Callable[[np.random.Generator], list[Case]]:
    def cases(rng: np.random.Generator) -> list[Case]:
        def pick(low: float, high: float) -> float:
            return round(float(rng.uniform(low, high)), 3)

        out = []
        for kind, form, a, b, presets in [
            (
                {
                    "en": "x {op} x, where x already holds a gradient",
                    "zh": "x {op} x，其中 x 已持有梯度",
                },
                "same value",
                pick(-3, 3),
                None,
                "x",
            ),
            (
                {"en": "0 {op} x (a zero on the left)", "zh": "0 {op} x（零在左边）"},
                "number left",
                pick(-3, 3),
                0.0,
                "",
            ),
            (
                {"en": "two Values holding ints", "zh": "两个持有整数的 Value"},
                "values",
                int(rng.integers(-9, 0)),
                int(rng.integers(1, 9)),
                "",
            ),
            (
                {
                    "en": "x {op} y, where both already hold gradients",
                    "zh": "x {op} y，其中两者都已持有梯度",
                },
                "preset grads",
                pick(-5, 5),
                pick(-5, 5),
                "xy",
            ),
            (
                {"en": "x {op} a negative number", "zh": "x {op} 一个负数"},
                "number right",
                pick(-5, 5),
                pick(-5, -1),
                "",
            ),
            (
                {"en": "x {op} y with large values", "zh": "x {op} y，取较大的值"},
                "values",
                pick(1e3, 1e5),
                pick(-1e5, -1e3),
                "",
            ),
            (
                {"en": "x {op} y with small values", "zh": "x {op} y，取较小的值"},
                "values",
                pick(-1, 1) * 1e-4,
                pick(-1, 1) * 1e-4,
                "",
            ),
        ]:
            g = round(float(rng.uniform(0.5, 2)), 3) * (-1) ** (len(out) + 1)
            grads = {name: round(float(rng.uniform(-2, 2)), 3) for name in presets}
            label = f"{say(kind).format(op=op)}; out.grad = g; out._backward()"
            out.append(binary_case(label, op, form, a, b, g, grads))
        return out

    return cases


# -- task 1.4: ** at a zero base, with a zero exponent, on negative bases -----------------------


def _power_cases(rng: np.random.Generator) -> list[Case]:
    out = []
    for kind, a, n in [
        ({"en": "a zero base, n = 2", "zh": "零底数，n = 2"}, 0.0, 2),
        ({"en": "a zero base, n = 3", "zh": "零底数，n = 3"}, 0.0, 3),
        (
            {"en": "n = 0 (a constant)", "zh": "n = 0（常数）"},
            round(float(rng.uniform(0.5, 3)), 3),
            0,
        ),
        (
            {"en": "a negative base, an odd n", "zh": "负底数，n 为奇数"},
            round(float(rng.uniform(-3, -0.5)), 3),
            3,
        ),
        (
            {"en": "a negative base, a negative n", "zh": "负底数，n 为负数"},
            round(float(rng.uniform(-3, -0.5)), 3),
            -2,
        ),
        (
            {"en": "a positive base, a fractional n", "zh": "正底数，n 不是整数"},
            round(float(rng.uniform(0.5, 4)), 3),
            -0.5,
        ),
        (
            {"en": "a random base, n = 4", "zh": "随机底数，n = 4"},
            round(float(rng.uniform(-2, 2)), 3),
            4,
        ),
        # the zero base's other answers (§4): 1 for n = 1, 0 for n = 0 and for a fractional
        # n > 1; an error for 0 < n < 1 (an infinite slope) and for n < 0 (0ⁿ = 1/0)
        ({"en": "a zero base, n = 1", "zh": "零底数，n = 1"}, 0.0, 1),
        ({"en": "a zero base, n = 0", "zh": "零底数，n = 0"}, 0.0, 0),
        (
            {"en": "a zero base, a fractional n above 1", "zh": "零底数，n 为大于 1 的非整数"},
            0.0,
            round(float(rng.uniform(1.1, 3.9)), 3),
        ),
        (
            {"en": "a zero base, n between 0 and 1", "zh": "零底数，n 介于 0 和 1 之间"},
            0.0,
            round(float(rng.uniform(0.1, 0.9)), 3),
        ),
        (
            {"en": "a zero base, a negative n", "zh": "零底数，n 为负数"},
            0.0,
            round(float(rng.uniform(-3, -0.1)), 3),
        ),
    ]:
        g = round(float(rng.uniform(0.5, 2)), 3)
        held = len(out) in (1, 4, 7, 8)
        presets = {"x": round(float(rng.uniform(-1, 1)), 3)} if held else {}
        holds = tr("; x already holds a gradient", "，x 已持有梯度") if presets else ""
        label = tr(f"x ** n with {say(kind)}{holds}", f"x ** n，{say(kind)}{holds}")
        out.append(power_case(f"{label}; out.grad = g; out._backward()", a, n, g, presets))
    return out


# -- tasks 1.5 and 1.6: unary ops on other inputs ------------------------------------------------


def _unary_rows(rows: list[tuple[Text, str, float | tuple, bool]]) -> Callable:
    """Cases from (kind, op, x, whether x already holds a gradient) rows; where x is a
    (low, high, scale) range, it is drawn: scale · (a uniform draw rounded to 3 decimals)."""

    def cases(rng: np.random.Generator) -> list[Case]:
        out = []
        for kind, op, a, preset in rows:
            if isinstance(a, tuple):
                low, high, scale = a
                a = round(float(rng.uniform(low, high)), 3) * scale
            g = round(float(rng.uniform(0.5, 2)), 3) * float(rng.choice([-1, 1]))
            presets = {"x": round(float(rng.uniform(-1, 1)), 3)} if preset else {}
            holds = tr("; x already holds a gradient", "，x 已持有梯度") if preset else ""
            label = tr(f"x.{op}() with {say(kind)}{holds}", f"x.{op}()，{say(kind)}{holds}")
            out.append(unary_case(f"{label}; out.grad = g; out._backward()", op, a, g, presets))
        return out

    return cases


SMALL_POSITIVE = {"en": "a small positive x", "zh": "x 为很小的正数"}
LARGE = {"en": "a large x", "zh": "x 很大"}
RANDOM = {"en": "a random x", "zh": "x 随机"}
LARGE_POSITIVE = {"en": "a large positive x", "zh": "x 为很大的正数"}
LARGE_NEGATIVE = {"en": "a large negative x", "zh": "x 为很大的负数"}

_exp_log_cases = _unary_rows(
    [
        (SMALL_POSITIVE, "exp", 1e-3, False),
        (SMALL_POSITIVE, "log", (0.05, 0.2, 1), False),
        ({"en": "a negative x", "zh": "x 为负数"}, "exp", (-12, -6, 1), True),
        (LARGE, "log", (1e3, 1e5, 1), True),
        (RANDOM, "exp", (-5, 8, 1), False),
        (RANDOM, "log", (0.5, 20, 1), False),
    ]
)

_activation_cases = _unary_rows(
    [
        (
            {"en": "x = 0, the kink: relu'(0) = 0", "zh": "x = 0，即折点：relu'(0) = 0"},
            "relu",
            0.0,
            False,
        ),
        ({"en": "x = 0, the kink", "zh": "x = 0，即折点"}, "relu", 0.0, True),
        ({"en": "a small x", "zh": "x 很小"}, "tanh", (-1, 1, 1e-3), False),
        (
            {"en": "a small negative x", "zh": "x 为很小的负数"},
            "relu",
            (-1, -0.1, 1e-3),
            True,
        ),
        (
            {"en": "a large positive x (saturated)", "zh": "x 为很大的正数（饱和）"},
            "tanh",
            (400, 800, 1),
            False,
        ),
        (
            {"en": "a large negative x (saturated)", "zh": "x 为很大的负数（饱和）"},
            "tanh",
            (-800, -400, 1),
            True,
        ),
        (LARGE_POSITIVE, "sigmoid", (12, 18, 1), False),
        (LARGE_NEGATIVE, "sigmoid", (-18, -12, 1), False),
        (
            {
                "en": "a very large negative x (e^-x overflows a float)",
                "zh": "x 为极大的负数（e^-x 会使浮点数溢出）",
            },
            "sigmoid",
            (-1000, -710, 1),
            True,
        ),
        (
            {"en": "a very large positive x", "zh": "x 为极大的正数"},
            "sigmoid",
            (710, 1000, 1),
            False,
        ),
        (RANDOM, "sigmoid", (-5, 5, 1), True),
        (LARGE, "relu", (1e3, 1e4, 1), False),
    ]
)


# -- tasks 1.7 and 1.8: other graphs ---------------------------------------------------------------

RANDOM_GRAPH = {
    "en": "a random graph of a few hundred Values with up to 5 inputs each",
    "zh": "由几百个 Value 组成的随机图（每个 Value 最多有 5 个输入）",
}
SHARED_CHAIN = {
    "en": "a long chain in which every Value also uses the first leaf",
    "zh": "一条长链（其中每个 Value 还都用到第一个叶子节点）",
}

GRAPHS: list[tuple[Text, Callable[[np.random.Generator], Graph]]] = [
    (
        {
            "en": "a ladder: each Value uses the two before it",
            "zh": "梯形图（每个 Value 都用到它前面的两个 Value）",
        },
        lambda rng: whole(ladder(30)),
    ),
    (
        {
            "en": "a layer of Values that all use the same two leaves",
            "zh": "一层 Value（它们全都用到同样的两个叶子节点）",
        },
        lambda rng: whole(fan(200)),
    ),
    (
        {
            "en": "a binary tree: every Value has two inputs of its own",
            "zh": "二叉树（每个 Value 都有两个只属于自己的输入）",
        },
        lambda rng: whole(tree(8)),
    ),
    (RANDOM_GRAPH, lambda rng: _random_root(rng, random_dag(rng, 400, 5))),
    (SHARED_CHAIN, lambda rng: whole(shared_chain(5_000))),
    (
        {
            "en": "a ladder of a few hundred Values (Fibonacci-many paths from the root)",
            "zh": "由几百个 Value 组成的梯形图（从根节点出发的路径数是斐波那契数级别的）",
        },
        lambda rng: _random_root(rng, ladder(int(rng.integers(200, 400)))),
    ),
    (
        {
            "en": "x = (x + 1) * x, a few dozen times, then a few relus",
            "zh": "把 x = (x + 1) * x 重复几十次、再接上几个 relu 得到的图",
        },
        lambda rng: whole(_squarings_then_chain(int(rng.integers(30, 50)), 5)),
    ),
]


def _random_root(rng: np.random.Generator, inputs: list[list[int]]) -> Graph:
    n = len(inputs)
    return Graph(inputs, int(rng.integers(3 * n // 4, n)))


def _squarings_then_chain(steps: int, n: int) -> list[list[int]]:
    graph = squarings(steps)
    return graph + [[len(graph) - 1 + i] for i in range(n)]


def _topo_cases(rng: np.random.Generator) -> list[Case]:
    return [topo_case(label, make(rng)) for label, make in GRAPHS]


def _backward_cases(rng: np.random.Generator) -> list[Case]:
    return backward_rows(
        rng,
        [
            # (label, graph, weights, preset grad of node 0, how many backward() calls)
            (
                {"en": "a ladder of 30 Values", "zh": "由 30 个 Value 组成的梯形图"},
                whole(ladder(30)),
                "unit",
                0.0,
                1,
            ),
            (
                {
                    "en": "the middle of a chain (the Values built after the root keep grad 0)",
                    "zh": "以中间节点为根的链（在根节点之后构造的 Value 的 grad 保持为 0）",
                },
                Graph(chain(12), 6),
                "small",
                0.0,
                1,
            ),
            (
                {
                    "en": "a diamond (grads accumulate; the root's is set to 1 each time)",
                    "zh": "菱形图（梯度累加；根节点的梯度每次都设为 1）",
                },
                Graph([[], [0], [0], [1, 2]], 3, ("a", "b", "c", "d")),
                "small",
                0.0,
                3,
            ),
            (
                {
                    "en": "a leaf that already holds a gradient and is used by 100 Values",
                    "zh": "有一个叶子节点已持有梯度、并被 100 个 Value 用到的图",
                },
                whole([[]] + [[0]] * 100 + [list(range(1, 101))]),
                "small",
                2.5,
                1,
            ),
            (
                RANDOM_GRAPH,
                _random_root(rng, random_dag(rng, 300, 5)),
                "small",
                0.0,
                1,
            ),
            (
                SHARED_CHAIN,
                whole(shared_chain(5_000)),
                "unit",
                0.0,
                1,
            ),
            (
                {
                    "en": "x = (x + 1) * x, a few dozen times",
                    "zh": "把 x = (x + 1) * x 重复几十次得到的图",
                },
                squared(int(rng.integers(30, 50))),
                "unit",
                0.0,
                1,
            ),
        ],
    )


ACTIVATIONS = {op: UNARY[op][0] for op in ("tanh", "sigmoid", "relu")}


def _network(xs, labels, shape, activation: str, decay: float):
    """programs.mlp as a plain float function of the flat parameters: the loss, and the
    hidden units' inputs (to keep relu away from its kink)."""
    d, h, k = shape
    act = ACTIVATIONS[activation]

    def forward(*params) -> tuple[float, list[float]]:
        w1 = np.reshape(params[: d * h], (d, h))
        b1 = params[d * h : d * h + h]
        w2 = np.reshape(params[d * h + h : d * h + h + h * k], (h, k))
        b2 = params[d * h + h + h * k :]
        total, inputs = 0.0, []
        for x, label in zip(xs, labels):
            z = [sum(w1[i][j] * x[i] for i in range(d)) + b1[j] for j in range(h)]
            inputs += z
            hidden = [act(v) for v in z]
            logits = [sum(w2[j][c] * hidden[j] for j in range(h)) + b2[c] for c in range(k)]
            total += math.log(sum(math.exp(v) for v in logits)) - logits[label]
        penalty = sum(w * w for w in [*np.ravel(w1), *np.ravel(w2)])
        return total / len(xs) + decay * penalty, inputs

    return forward


@dataclass(frozen=True)
class MlpExpected:
    """What ``programs.mlp`` requires: the loss, and every parameter's grad in its order."""

    loss: float
    grads: list[float]


def _mlp_cases(rng: np.random.Generator) -> list[Case]:
    cases = []
    for n, d, h, k, activation in [
        (1, 1, 1, 2, "tanh"),
        (2, 2, 3, 2, "sigmoid"),
        (4, 3, 4, 3, "relu"),
        (8, 4, 6, 3, "tanh"),
    ]:
        while True:  # relu's inputs at least 1e-3 from its kink
            xs = rng.uniform(-2, 2, (n, d)).round(3)
            labels = rng.integers(0, k, n)
            params = rng.uniform(-1, 1, d * h + h + h * k + k).round(3)
            decay = round(float(rng.uniform(0.01, 0.1)), 3)
            forward = _network(xs.tolist(), labels.tolist(), (d, h, k), activation, decay)
            value, z = forward(*params)
            if activation != "relu" or min(map(abs, z)) > 1e-3:
                break
        end_w1, end_b1 = d * h, d * h + h
        inputs = {
            "xs": xs.tolist(),
            "labels": labels.tolist(),
            "w1": params[:end_w1].reshape(d, h).tolist(),
            "b1": params[end_w1:end_b1].tolist(),
            "w2": params[end_b1 : end_b1 + h * k].reshape(h, k).tolist(),
            "b2": params[end_b1 + h * k :].tolist(),
            "activation": activation,
            "decay": decay,
        }
        samples = tr(f"{n} sample" + ("s" if n > 1 else ""), f"{n} 个样本")
        label = tr(
            f"loss.backward() on a {d}-{h}-{k} MLP with {activation}, softmax cross-entropy "
            f"over {samples} and a weight penalty (Σ w ** 2)",
            f"在 {d}-{h}-{k} 的 MLP（激活函数为 {activation}）上运行 loss.backward()，"
            f"损失为 {samples}上的 softmax 交叉熵加上权重惩罚（Σ w ** 2）",
        )
        grads = partials(lambda *p, f=forward: f(*p)[0], params.tolist())
        cases.append(Case(label, inputs, MlpExpected(value, grads)))
    return cases


CHECKS = hidden_checks(
    PUBLIC,
    [
        Hidden(
            "central_difference",
            _central_cases,
            "central_difference (hidden: other points and steps)",  # en-only: the hidden check's id
            title={"zh": "central_difference（隐藏：其他取值点和步长）"},
        ),
        *[
            Hidden(
                f"Value {op} Value",
                _binary_cases(op),
                f"Value {op} Value (hidden: ints, zeros, large values, "
                "held gradients)",  # en-only: the hidden check's id
                title={"zh": f"Value {op} Value（隐藏：整数、零、大数值、已有的梯度）"},
            )
            for op in BINARY
        ],
        Hidden(
            "Value ** number",
            _power_cases,
            "Value ** number "
            "(hidden: zero base, zero exponent, negative bases)",  # en-only: the hidden check's id
            title={"zh": "Value ** 数值（隐藏：零底数、零指数、负底数）"},
        ),
        Hidden(
            "Value.exp()",
            _exp_log_cases,
            "Value.exp() and Value.log() "
            "(hidden: very small and large inputs)",  # en-only: the hidden check's id
            title={"zh": "Value.exp() 与 Value.log()（隐藏：极小和极大的输入）"},
        ),
        Hidden(
            "Value.tanh()",
            _activation_cases,
            "Value.tanh(), .sigmoid(), .relu() "
            "(hidden: kink, saturation, tiny inputs)",  # en-only: the hidden check's id
            title={"zh": "Value.tanh()、.sigmoid()、.relu()（隐藏：折点、饱和、极小的输入）"},
        ),
        Hidden(
            "topological_order",
            _topo_cases,
            "topological_order "
            "(hidden: ladders, trees, wide and dense graphs)",  # en-only: the hidden check's id
            title={"zh": "topological_order（隐藏：梯形图、树、宽图和稠密图）"},
        ),
        Hidden(
            "backward() with given local derivatives",
            _backward_cases,
            "backward() with given local derivatives "
            "(hidden: other graphs)",  # en-only: the hidden check's id
            title={"zh": "用给定的局部导数运行 backward()（隐藏：其他图）"},
        ),
        Hidden(
            "micrograd's README example",
            _mlp_cases,
            "a small MLP's loss.backward() (hidden)",
            title={"zh": "小型 MLP 的 loss.backward()（隐藏）"},
            program=programs.mlp,
            verdict=Fields(
                [
                    Field("loss", "loss", 1e-5, 1e-7),
                    Field("grads", "grads", 1e-5, 1e-7),
                ]
            ),
            requires=("1.2", "1.3", "1.4", "1.5", "1.6", "1.7"),
            why="the whole chapter at once: a network whose loss runs every op (its program "
            "builds the MLP on Values)",  # en-only: for the course's maintainers, never shown
        ),
    ],
)

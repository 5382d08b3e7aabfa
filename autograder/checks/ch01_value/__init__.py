"""Public checks for chapter 1 — scalar autograd (Value).

The programs (``programs.py``) run next to the code under test; everything here stays in the
grading process: the seeded case lists (rows of ``cases.py``'s builders, which the hidden
checks share), the expected values (``cases.py``'s plain float functions, this file's
README example and the float64 central difference of ``gradcheck``) and the verdicts.

Each op check builds Values, sets ``out.grad`` to a random upstream gradient, calls the op's
own ``_backward`` once and compares what the inputs received; ``**`` at a zero base sweeps
the exponents whose answer differs (§4: 1 for n = 1, 0 for n = 0 and n > 1), and where no
number is right (n < 0, 0 < n < 1) expects the error Python's floats raise.
``topological_order`` and ``backward`` are checked on graphs built with the given ``Value``
constructor and, for ``backward``, with local derivatives that the programs supply, so a
wrong op never fails them; graphs with many shared subgraphs (``x = (x + 1) * x``) and a
count of each Value's ``_prev`` reads tell a linear walk from an exponential one within
milliseconds. Only the last check, micrograd's README example, runs every task together; it
declares so (``requires``) and reports "blocked by" when one of them fails.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...harness.api import Case, Check
from ...harness.gradcheck import partials
from ...harness.language import Text, tr
from . import programs
from .cases import (
    BINARY,
    TASKS,
    Graph,
    ReadmeExpected,
    backward_rows,
    backward_verdict,
    before,
    binary_case,
    central_case,
    central_verdict,
    chain,
    power_case,
    power_verdict,
    random_dag,
    readme_verdict,
    squared,
    step_verdict,
    topo_case,
    topo_verdict,
    unary_case,
    unary_verdict,
    whole,
)

# -- task 1.1: central_difference ----------------------------------------------------------


def _central_cases(rng: np.random.Generator) -> list[Case]:
    cases = []
    for name, x, eps in [
        ("x**2", 3.0, None),
        ("x**3", 2.0, None),
        ("x**3", 0.0, None),  # exactly eps² with the default eps: tells 1e-6 from 1e-5
        ("sin(x)", 0.5, None),
        ("x**3", 2.0, 1e-3),
        ("exp(x)", 1.0, 0.1),
        ("1/x", 2.0, 0.5),
        ("sin(x)", round(float(rng.uniform(-3, 3)), 3), 0.25),
    ]:
        label = f"central_difference(f, {x:g}" + (")" if eps is None else f", eps={eps:g})")
        shown = tr(f"{label} with f(x) = {name}", f"{label}，其中 f(x) = {name}")
        cases.append(central_case(shown, name, x, eps))
    return cases


# -- tasks 1.2–1.6: each op's forward and local derivative ---------------------------------

# inputs per unary op, small first; the edges the notebook states a rule for are public too:
# relu'(0) = 0, tanh saturated (math.tanh, not exp: e^1000 overflows), sigmoid both ways
UNARY_INPUTS = {
    "exp": [0.0, 1.0, -2.5, 4.0],
    "log": [2.0, 1.0, 0.25, 40.0],  # 1 second: 1/log(1) (out.data = 0) would raise first
    "tanh": [0.0, 0.5, -1.5, 20.0, 500.0, -500.0],
    "sigmoid": [0.0, 2.0, -3.0, -800.0, 800.0],
    "relu": [1.5, -1.5, 3.0, -0.2, 0.0],
}


def _binary_cases(op: str) -> Callable[[np.random.Generator], list[Case]]:
    def cases(rng: np.random.Generator) -> list[Case]:
        out = []
        for form, a, b in [
            ("values", 2.0, -3.0),
            ("values", 0.5, 4.0),
            ("number right", 1.5, 2.0),
            ("number left", -0.5, 3.0),
            ("same value", 1.25, None),
            ("preset grads", 3.0, -1.0),
            ("values", *rng.uniform(-10, 10, 2).round(3).tolist()),
        ]:
            g = round(float(rng.uniform(0.5, 2)), 3) * (-1) ** len(out)
            presets = {"x": 0.25, "y": -0.5} if form == "preset grads" else {}
            if form == "same value":
                label = f"x = Value({a:g}); out = x {op} x"
            elif form in ("number right", "number left"):
                expr = f"x {op} {b:g}" if form == "number right" else f"{b:g} {op} x"
                label = f"x = Value({a:g}); out = {expr}"
            else:
                label = f"x = Value({a:g}); y = Value({b:g}); {before(presets)}out = x {op} y"
            label = f"{label}; out.grad = {g:g}; out._backward()"
            out.append(binary_case(label, op, form, a, b, g, presets))
        return out

    return cases


def _power_cases(rng: np.random.Generator) -> list[Case]:
    out = []
    for a, n in [
        (3.0, 2),
        (2.0, 3),
        (-1.5, 2),
        (4.0, 0.5),
        (2.0, -1),
        (0.5, -2.5),
        (1.7, 1),
        (2.5, 0),  # a zero exponent: x⁰ = 1, a constant, whose derivative is 0
        # a zero base (§4), each n whose answer differs: n·0ⁿ⁻¹ = 1 for n = 1 (a guard that
        # returns 0 at x = 0 fails), 0 for n > 1 (no division by the base), 0 for n = 0 (a
        # constant, though n·0ⁿ⁻¹ divides by zero); an error where no number is right: the
        # infinite slope of 0 < n < 1 (out._backward()), 0ⁿ = 1/0 for n < 0 (x ** n)
        (0.0, 1),
        (0.0, 2),
        (0.0, 3),
        (0.0, 0),
        (0.0, 0.5),
        (0.0, -1),
    ]:
        g = round(float(rng.uniform(0.5, 2)), 3)
        presets = {"x": 0.75} if len(out) == 1 else {}
        label = f"x = Value({a:g}); {before(presets)}out = x ** {n:g}"
        out.append(power_case(f"{label}; out.grad = {g:g}; out._backward()", a, n, g, presets))
    return out


def _unary_cases(op: str) -> Callable[[np.random.Generator], list[Case]]:
    def cases(rng: np.random.Generator) -> list[Case]:
        out = []
        for i, a in enumerate(UNARY_INPUTS[op]):
            g = round(float(rng.uniform(0.5, 2)), 3)
            presets = {"x": 0.25} if i == 1 else {}
            label = f"x = Value({a:g}); {before(presets)}out = x.{op}(); out.grad = {g:g}"
            out.append(unary_case(f"{label}; out._backward()", op, a, g, presets))
        return out

    return cases


# -- tasks 1.7 and 1.8: graphs --------------------------------------------------------------

GRAPHS: list[tuple[Text, Callable[[np.random.Generator], Graph]]] = [
    ({"en": "a single leaf", "zh": "只有一个叶子节点的图"}, lambda rng: Graph([[]], 0)),
    ({"en": "a chain of 3 Values", "zh": "由 3 个 Value 组成的链"}, lambda rng: whole(chain(3))),
    (
        {
            "en": "a diamond: d uses b and c, which both use a",
            "zh": "菱形图（d 用到 b 和 c，而 b 和 c 都用到 a）",
        },
        lambda rng: Graph([[], [0], [0], [1, 2]], 3, ("a", "b", "c", "d")),
    ),
    (
        {
            "en": "a node that uses the same input twice (like a * a)",
            "zh": "有一个节点两次用到同一个输入的图（如 a * a）",
        },
        lambda rng: whole([[], [0, 0], [1]]),
    ),
    (
        {"en": "a leaf used at three depths", "zh": "一个叶子节点在三个不同深度被用到的图"},
        lambda rng: whole([[], [0], [0, 1], [0, 2]]),
    ),
    (
        {
            "en": "a random graph of 40 Values, some not reachable from the root",
            "zh": "由 40 个 Value 组成的随机图（其中一些从根节点不可达）",
        },
        lambda rng: Graph(random_dag(rng, 40), 33),
    ),
    (
        {
            "en": "x = (x + 1) * x, 60 times (2^60 paths from the root to the first x)",
            "zh": "把 x = (x + 1) * x 重复 60 次得到的图（从根节点到第一个 x 有 2^60 条路径）",
        },
        lambda rng: squared(60),
    ),
    (
        {"en": "a root with 2,000 inputs", "zh": "有 2,000 个输入的根节点"},
        lambda rng: whole([[] for _ in range(2000)] + [list(range(2000))]),
    ),
    (
        {
            "en": "a chain of 20,000 Values (recursion would fail here)",
            "zh": "由 20,000 个 Value 组成的链（递归在这里会失败）",
        },
        lambda rng: whole(chain(20_000)),
    ),
]


def _topo_cases(rng: np.random.Generator) -> list[Case]:
    return [topo_case(label, make(rng)) for label, make in GRAPHS]


def _backward_cases(rng: np.random.Generator) -> list[Case]:
    rows = []
    for label, make in GRAPHS:
        graph = make(rng)  # weights ±1 on big graphs keep the gradients in check; others any
        rows.append((label, graph, "unit" if len(graph.inputs) > 1000 else "any", 0.0, 1))
    rows += [
        (
            {"en": "a chain whose leaf already has grad 0.5", "zh": "叶子节点已有 grad 0.5 的链"},
            whole(chain(4)),
            "any",
            0.5,
            1,
        ),
        (
            {
                "en": "a chain of 3 Values, called twice "
                "(grads accumulate; the root's is set to 1)",
                "zh": "由 3 个 Value 组成的链（调用两次：梯度累加，根节点的梯度被设为 1）",
            },
            whole(chain(3)),
            "any",
            0.0,
            2,
        ),
    ]
    return backward_rows(rng, rows)


# micrograd's README example, as a plain float function of (a, b); programs.readme is the
# same code on Values.
def _readme(a: float, b: float) -> float:
    c = a + b
    d = a * b + b**3
    c += c + 1
    c += 1 + c + (-a)
    d += d * 2 + max(b + a, 0.0)
    d += 3 * d + max(b - a, 0.0)
    e = c - d
    f = e**2
    g = f / 2.0
    g += 10.0 / f
    return g


def _readme_cases(rng: np.random.Generator) -> list[Case]:
    pairs = [(-4.0, 2.0)]
    while len(pairs) < 2:  # a random pair away from the kinks of relu and the pole of 10 / f
        a, b = rng.uniform(-3, 3, 2).round(2).tolist()
        if min(abs(a + b), abs(a - b)) > 0.1 and abs(_readme(a, b)) < 1e3:
            pairs.append((a, b))
    cases = []
    for a, b in pairs:
        da, db = partials(_readme, [a, b])
        label = tr(
            f"micrograd's README example with a = {a:g}, b = {b:g}",
            f"micrograd 的 README 示例，a = {a:g}，b = {b:g}",
        )
        cases.append(Case(label, {"a": a, "b": b}, ReadmeExpected(_readme(a, b), da, db)))
    return cases


CHECKS = [
    Check("1.1", "central_difference", _central_cases, programs.central, central_verdict),
    *[
        Check(
            TASKS[op],
            f"Value {op} Value",
            _binary_cases(op),
            programs.binary,
            step_verdict,
        )
        for op in BINARY
    ],
    Check(
        "1.4",
        "Value ** number",
        _power_cases,
        programs.power,
        power_verdict,
        title={"zh": "Value ** 数值"},
    ),
    *[
        Check(TASKS[op], f"Value.{op}()", _unary_cases(op), programs.unary, unary_verdict)
        for op in UNARY_INPUTS
    ],
    Check("1.7", "topological_order", _topo_cases, programs.topo, topo_verdict),
    Check(
        "1.8",
        "backward() with given local derivatives",
        _backward_cases,
        programs.backward,
        backward_verdict,
        requires=("1.7",),
        title={"zh": "用给定的局部导数运行 backward()"},
    ),
    Check(
        "1.8",
        "micrograd's README example",
        _readme_cases,
        programs.readme,
        readme_verdict,
        requires=("1.2", "1.3", "1.4", "1.6", "1.7"),
        title={"zh": "micrograd 的 README 示例"},
    ),
]

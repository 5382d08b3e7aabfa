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
from ...harness.table import Field, Fields, Hidden, hidden_checks
from . import programs

# -- task 1.1: central_difference at other points, with other steps ----------------------------


def _central_cases(rng: np.random.Generator) -> list[Case]:
    cases = []
    for kind, name, x, eps in [
        ("a negative x, the default eps", "x**3", -1.5, None),
        ("a negative x, the default eps", "1/x", -0.8, None),
        (
            "x near 0, the default eps (the result is 3x² + eps²)",
            "x**3",
            round(float(rng.uniform(-1, 1)), 3) * 1e-5,
            None,
        ),
        ("a large eps (the central difference of x**3 is off by exactly eps²)", "x**3", 1.0, 1.0),
        ("a small eps", "exp(x)", float(rng.uniform(-3, 0)), 1e-4),
        ("a random x, the default eps", "sin(x)", float(rng.uniform(-3, 3)), None),
        (
            "a random x and a random eps",
            "x**2",
            float(rng.uniform(-5, 5)),
            float(rng.uniform(0.1, 1)),
        ),
        ("a large eps", "1/x", float(rng.uniform(2, 4)), 1.5),
    ]:
        call = f"central_difference(f, x{'' if eps is None else ', eps'})"
        cases.append(central_case(f"{call} with f(x) = {name}, {kind}", name, x, eps))
    return cases


# -- tasks 1.2 and 1.3: + and * on other values and forms ---------------------------------------


def _binary_cases(op: str) -> Callable[[np.random.Generator], list[Case]]:
    def cases(rng: np.random.Generator) -> list[Case]:
        def pick(low: float, high: float) -> float:
            return round(float(rng.uniform(low, high)), 3)

        out = []
        for kind, form, a, b, presets in [
            ("x {op} x, where x already holds a gradient", "same value", pick(-3, 3), None, "x"),
            ("0 {op} x (a zero on the left)", "number left", pick(-3, 3), 0.0, ""),
            (
                "two Values holding ints",
                "values",
                int(rng.integers(-9, 0)),
                int(rng.integers(1, 9)),
                "",
            ),
            (
                "x {op} y, where both already hold gradients",
                "preset grads",
                pick(-5, 5),
                pick(-5, 5),
                "xy",
            ),
            ("x {op} a negative number", "number right", pick(-5, 5), pick(-5, -1), ""),
            ("x {op} y with large values", "values", pick(1e3, 1e5), pick(-1e5, -1e3), ""),
            ("x {op} y with small values", "values", pick(-1, 1) * 1e-4, pick(-1, 1) * 1e-4, ""),
        ]:
            g = round(float(rng.uniform(0.5, 2)), 3) * (-1) ** (len(out) + 1)
            grads = {name: round(float(rng.uniform(-2, 2)), 3) for name in presets}
            label = f"{kind.format(op=op)}; out.grad = g; out._backward()"
            out.append(binary_case(label, op, form, a, b, g, grads))
        return out

    return cases


# -- task 1.4: ** at a zero base, with a zero exponent, on negative bases -----------------------


def _power_cases(rng: np.random.Generator) -> list[Case]:
    out = []
    for kind, a, n in [
        ("a zero base, n = 2", 0.0, 2),
        ("a zero base, n = 3", 0.0, 3),
        ("n = 0 (a constant)", round(float(rng.uniform(0.5, 3)), 3), 0),
        ("a negative base, an odd n", round(float(rng.uniform(-3, -0.5)), 3), 3),
        ("a negative base, a negative n", round(float(rng.uniform(-3, -0.5)), 3), -2),
        ("a positive base, a fractional n", round(float(rng.uniform(0.5, 4)), 3), -0.5),
        ("a random base, n = 4", round(float(rng.uniform(-2, 2)), 3), 4),
        # the zero base's other answers (§4): 1 for n = 1, 0 for n = 0 and for a fractional
        # n > 1; an error for 0 < n < 1 (an infinite slope) and for n < 0 (0ⁿ = 1/0)
        ("a zero base, n = 1", 0.0, 1),
        ("a zero base, n = 0", 0.0, 0),
        ("a zero base, a fractional n above 1", 0.0, round(float(rng.uniform(1.1, 3.9)), 3)),
        ("a zero base, n between 0 and 1", 0.0, round(float(rng.uniform(0.1, 0.9)), 3)),
        ("a zero base, a negative n", 0.0, round(float(rng.uniform(-3, -0.1)), 3)),
    ]:
        g = round(float(rng.uniform(0.5, 2)), 3)
        held = len(out) in (1, 4, 7, 8)
        presets = {"x": round(float(rng.uniform(-1, 1)), 3)} if held else {}
        label = f"x ** n with {kind}{'; x already holds a gradient' if presets else ''}"
        out.append(power_case(f"{label}; out.grad = g; out._backward()", a, n, g, presets))
    return out


# -- tasks 1.5 and 1.6: unary ops on other inputs ------------------------------------------------


def _unary_rows(rows: list[tuple[str, str, float | tuple, bool]]) -> Callable:
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
            label = f"x.{op}() with {kind}{'; x already holds a gradient' if preset else ''}"
            out.append(unary_case(f"{label}; out.grad = g; out._backward()", op, a, g, presets))
        return out

    return cases


_exp_log_cases = _unary_rows(
    [
        ("a small positive x", "exp", 1e-3, False),
        ("a small positive x", "log", (0.05, 0.2, 1), False),
        ("a negative x", "exp", (-12, -6, 1), True),
        ("a large x", "log", (1e3, 1e5, 1), True),
        ("a random x", "exp", (-5, 8, 1), False),
        ("a random x", "log", (0.5, 20, 1), False),
    ]
)

_activation_cases = _unary_rows(
    [
        ("x = 0, the kink: relu'(0) = 0", "relu", 0.0, False),
        ("x = 0, the kink", "relu", 0.0, True),
        ("a small x", "tanh", (-1, 1, 1e-3), False),
        ("a small negative x", "relu", (-1, -0.1, 1e-3), True),
        ("a large positive x (saturated)", "tanh", (400, 800, 1), False),
        ("a large negative x (saturated)", "tanh", (-800, -400, 1), True),
        ("a large positive x", "sigmoid", (12, 18, 1), False),
        ("a large negative x", "sigmoid", (-18, -12, 1), False),
        ("a very large negative x (e^-x overflows a float)", "sigmoid", (-1000, -710, 1), True),
        ("a very large positive x", "sigmoid", (710, 1000, 1), False),
        ("a random x", "sigmoid", (-5, 5, 1), True),
        ("a large x", "relu", (1e3, 1e4, 1), False),
    ]
)


# -- tasks 1.7 and 1.8: other graphs ---------------------------------------------------------------

GRAPHS: list[tuple[str, Callable[[np.random.Generator], Graph]]] = [
    ("a ladder: each Value uses the two before it", lambda rng: whole(ladder(30))),
    ("a layer of Values that all use the same two leaves", lambda rng: whole(fan(200))),
    ("a binary tree: every Value has two inputs of its own", lambda rng: whole(tree(8))),
    (
        "a random graph of a few hundred Values with up to 5 inputs each",
        lambda rng: _random_root(rng, random_dag(rng, 400, 5)),
    ),
    (
        "a long chain in which every Value also uses the first leaf",
        lambda rng: whole(shared_chain(5_000)),
    ),
    (
        "a ladder of a few hundred Values (Fibonacci-many paths from the root)",
        lambda rng: _random_root(rng, ladder(int(rng.integers(200, 400)))),
    ),
    (
        "x = (x + 1) * x, a few dozen times, then a few relus",
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
            ("a ladder of 30 Values", whole(ladder(30)), "unit", 0.0, 1),
            (
                "the middle of a chain (the Values built after the root keep grad 0)",
                Graph(chain(12), 6),
                "small",
                0.0,
                1,
            ),
            (
                "a diamond (grads accumulate; the root's is set to 1 each time)",
                Graph([[], [0], [0], [1, 2]], 3, ("a", "b", "c", "d")),
                "small",
                0.0,
                3,
            ),
            (
                "a leaf that already holds a gradient and is used by 100 Values",
                whole([[]] + [[0]] * 100 + [list(range(1, 101))]),
                "small",
                2.5,
                1,
            ),
            (
                "a random graph of a few hundred Values with up to 5 inputs each",
                _random_root(rng, random_dag(rng, 300, 5)),
                "small",
                0.0,
                1,
            ),
            (
                "a long chain in which every Value also uses the first leaf",
                whole(shared_chain(5_000)),
                "unit",
                0.0,
                1,
            ),
            (
                "x = (x + 1) * x, a few dozen times",
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
        samples = f"{n} sample{'s' if n > 1 else ''}"
        label = (
            f"loss.backward() on a {d}-{h}-{k} MLP with {activation}, softmax cross-entropy "
            f"over {samples} and a weight penalty (Σ w ** 2)"
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
            "central_difference (hidden: other points and steps)",
        ),
        *[
            Hidden(
                f"Value {op} Value",
                _binary_cases(op),
                f"Value {op} Value (hidden: ints, zeros, large values, held gradients)",
            )
            for op in BINARY
        ],
        Hidden(
            "Value ** number",
            _power_cases,
            "Value ** number (hidden: zero base, zero exponent, negative bases)",
        ),
        Hidden(
            "Value.exp()",
            _exp_log_cases,
            "Value.exp() and Value.log() (hidden: very small and large inputs)",
        ),
        Hidden(
            "Value.tanh()",
            _activation_cases,
            "Value.tanh(), .sigmoid(), .relu() (hidden: kink, saturation, tiny inputs)",
        ),
        Hidden(
            "topological_order",
            _topo_cases,
            "topological_order (hidden: ladders, trees, wide and dense graphs)",
        ),
        Hidden(
            "backward() with given local derivatives",
            _backward_cases,
            "backward() with given local derivatives (hidden: other graphs)",
        ),
        Hidden(
            "micrograd's README example",
            _mlp_cases,
            "a small MLP's loss.backward() (hidden)",
            program=programs.mlp,
            verdict=Fields(
                [
                    Field("loss", "loss", 1e-5, 1e-7),
                    Field("grads", "grads", 1e-5, 1e-7),
                ]
            ),
            requires=("1.2", "1.3", "1.4", "1.5", "1.6", "1.7"),
            why="the whole chapter at once: a network whose loss runs every op (its program "
            "builds the MLP on Values)",
        ),
    ],
)

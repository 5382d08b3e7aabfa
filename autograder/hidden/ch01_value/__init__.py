"""Hidden checks for chapter 1 — scalar autograd (Value).

Same programs as the public checks (``checks/ch01_value/programs.py``), other cases: other
points and steps for the central difference, zeros, ints and inputs that already hold a
gradient for the operators, a zero base and a zero exponent for ``**``, saturated tanh,
relu at its kink, larger and denser graphs for ``topological_order`` and ``backward``, and
one new program (``programs.mlp``): a small network whose loss runs every op of the chapter
at once. Expected values come from this file's plain float functions and ``gradcheck``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ...checks.ch01_value import (
    _backward_verdict,
    _chain,
    _expected,
    _topo_verdict,
    backward_case,
)
from ...checks.ch01_value import programs as public
from ...harness.api import Case, Check, close
from ...harness.gradcheck import partials
from . import programs

# -- task 1.1: central_difference at other points, with other steps ----------------------------


def _central_cases(rng: np.random.Generator) -> list[Case]:
    cases = []
    for kind, name, x, eps in [
        ("a negative x, the default eps", "x**3", -1.5, None),
        ("a negative x, the default eps", "1/x", -0.8, None),
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
        f = public.FUNCTIONS[name]
        step = 1e-6 if eps is None else eps
        expected = (f(x + step) - f(x - step)) / (2 * step)
        label = (
            f"central_difference(f, x{'' if eps is None else ', eps'}) with f(x) = {name}, {kind}"
        )
        cases.append(Case(label, {"fn": name, "x": x, "eps": eps}, expected))
    return cases


# -- tasks 1.2 and 1.3: + and * on other values and forms ---------------------------------------

# op: (task, its value, its exact partial derivatives: linear and bilinear, no rounding)
BINARY = {
    "+": ("1.2", lambda a, b: a + b, lambda a, b: (1.0, 1.0)),
    "*": ("1.3", lambda a, b: a * b, lambda a, b: (b, a)),
}


def _exact(op: str, form: str, a: float, b: float, g: float, presets: dict) -> dict:
    """What ``programs.binary`` should return, from the exact derivatives (large values
    would make a central difference inexact)."""
    f, d = BINARY[op][1], BINARY[op][2]
    if form == "same value":
        out, grads = f(a, a), {"x": sum(d(a, a))}
    elif form == "number right":
        out, grads = f(a, b), {"x": d(a, b)[0]}
    elif form == "number left":
        out, grads = f(b, a), {"x": d(b, a)[1]}
    else:
        out, grads = f(a, b), dict(zip("xy", d(a, b)))
    result = {"type(out)": "Value", "out.data": out}
    for name, partial in grads.items():
        result[f"{name}.grad"] = presets.get(name, 0.0) + g * partial
        result[f"{name} in out._prev"] = True
    return result


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
            inputs = {"op": op, "form": form, "a": a, "b": b, "g": g, "presets": grads}
            label = f"{kind.format(op=op)}; out.grad = g; out._backward()"
            out.append(Case(label, inputs, _exact(op, form, a, b, g, grads)))
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
    ]:
        g = round(float(rng.uniform(0.5, 2)), 3)
        presets = {"x": round(float(rng.uniform(-1, 1)), 3)} if len(out) in (1, 4) else {}
        expected = _expected(lambda x, n=n: x**n, "x", [a], g, presets)
        label = f"x ** n with {kind}{'; x already holds a gradient' if presets else ''}"
        inputs = {"a": a, "n": n, "g": g, "presets": presets}
        out.append(Case(f"{label}; out.grad = g; out._backward()", inputs, expected))
    return out


# -- tasks 1.5 and 1.6: unary ops on other inputs ------------------------------------------------

UNARY = {
    "exp": math.exp,
    "log": math.log,
    "tanh": math.tanh,
    "sigmoid": lambda a: 0.5 * (1 + math.tanh(a / 2)),
    "relu": lambda a: max(a, 0.0),
}


def _unary_case(rng: np.random.Generator, kind: str, op: str, a: float, preset: bool) -> Case:
    g = round(float(rng.uniform(0.5, 2)), 3) * rng.choice([-1, 1])
    presets = {"x": round(float(rng.uniform(-1, 1)), 3)} if preset else {}
    if op == "relu" and a == 0:  # the kink: no central difference; relu'(0) = 0, as in PyTorch
        expected = {"type(out)": "Value", "out.data": 0.0, "x in out._prev": True}
        expected["x.grad"] = presets.get("x", 0.0)
    else:
        expected = _expected(UNARY[op], "x", [a], g, presets)
    label = f"x.{op}() with {kind}{'; x already holds a gradient' if preset else ''}"
    inputs = {"op": op, "a": a, "g": float(g), "presets": presets}
    return Case(f"{label}; out.grad = g; out._backward()", inputs, expected)


def _exp_log_cases(rng: np.random.Generator) -> list[Case]:
    def u(low: float, high: float) -> float:
        return round(float(rng.uniform(low, high)), 3)

    return [
        _unary_case(rng, *args)
        for args in [
            ("a small positive x", "exp", 1e-3, False),
            ("a small positive x", "log", u(0.05, 0.2), False),
            ("a negative x", "exp", u(-12, -6), True),
            ("a large x", "log", u(1e3, 1e5), True),
            ("a random x", "exp", u(-5, 8), False),
            ("a random x", "log", u(0.5, 20), False),
        ]
    ]


def _activation_cases(rng: np.random.Generator) -> list[Case]:
    def u(low: float, high: float) -> float:
        return round(float(rng.uniform(low, high)), 3)

    return [
        _unary_case(rng, *args)
        for args in [
            ("x = 0, the kink: relu'(0) = 0", "relu", 0.0, False),
            ("x = 0, the kink", "relu", 0.0, True),
            ("a small x", "tanh", u(-1, 1) * 1e-3, False),
            ("a small negative x", "relu", u(-1, -0.1) * 1e-3, True),
            ("a large positive x (saturated)", "tanh", u(400, 800), False),
            ("a large negative x (saturated)", "tanh", -u(400, 800), True),
            ("a large positive x", "sigmoid", u(12, 18), False),
            ("a large negative x", "sigmoid", -u(12, 18), False),
            ("a random x", "sigmoid", u(-5, 5), True),
            ("a large x", "relu", u(1e3, 1e4), False),
        ]
    ]


# -- task 1.7: other graphs ------------------------------------------------------------------------


def _ladder(n: int) -> list[list[int]]:
    return [[], [0]] + [[i - 2, i - 1] for i in range(2, n)]


def _dense_dag(rng: np.random.Generator, n: int, most: int) -> list[list[int]]:
    graph: list[list[int]] = [[]]
    for i in range(1, n):
        k = int(rng.integers(0, min(i, most) + 1))
        graph.append(sorted({int(j) for j in rng.integers(0, i, size=k)}))
    return graph


def _tree(depth: int) -> list[list[int]]:
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


def _fan(width: int) -> list[list[int]]:
    """Two leaves, ``width`` Values that each use both, and a root that uses them all."""
    return [[], []] + [[0, 1]] * width + [list(range(2, width + 2))]


def _shared_chain(n: int) -> list[list[int]]:
    """A chain in which every Value also uses the first leaf."""
    return [[], [0]] + [[0, i - 1] for i in range(2, n)]


def _whole(graph: list[list[int]]) -> tuple[list[list[int]], int]:
    """The graph with its last Value as the root."""
    return graph, len(graph) - 1


def _random_root(rng: np.random.Generator, graph: list[list[int]]) -> tuple[list[list[int]], int]:
    n = len(graph)
    return graph, int(rng.integers(3 * n // 4, n))


GRAPHS: list[tuple[str, Callable[[np.random.Generator], tuple[list[list[int]], int]]]] = [
    ("a ladder: each Value uses the two before it", lambda rng: _whole(_ladder(30))),
    ("a layer of Values that all use the same two leaves", lambda rng: _whole(_fan(200))),
    ("a binary tree: every Value has two inputs of its own", lambda rng: _whole(_tree(8))),
    (
        "a random graph of a few hundred Values with up to 5 inputs each",
        lambda rng: _random_root(rng, _dense_dag(rng, 400, 5)),
    ),
    (
        "a long chain in which every Value also uses the first leaf",
        lambda rng: _whole(_shared_chain(5_000)),
    ),
]


def _topo_cases(rng: np.random.Generator) -> list[Case]:
    cases = []
    for label, make in GRAPHS:
        graph, root = make(rng)
        cases.append(Case(f"topological_order(root) on {label}", {"graph": graph, "root": root}))
    return cases


# -- task 1.8: backward on other graphs, and a small network -------------------------------------


def _weights(rng: np.random.Generator, graph: list[list[int]], kind: str) -> list[list[float]]:
    """±1 (exact sums on graphs with many paths), or ±[0.2, 0.6] (gradients stay small)."""
    sizes = [len(children) for children in graph]
    if kind == "unit":
        flat = rng.choice([-1.0, 1.0], sum(sizes))
    else:
        flat = rng.choice([-1.0, 1.0], sum(sizes)) * rng.uniform(0.2, 0.6, sum(sizes))
    flat = flat.round(3)
    ends = np.cumsum(sizes).tolist()
    return [flat[end - size : end].tolist() for size, end in zip(sizes, ends)]


BACKWARD_GRAPHS = [
    # (label, graph maker, weights, preset grad of node 0, how many backward() calls)
    ("a ladder of 30 Values", lambda rng: _whole(_ladder(30)), "unit", 0.0, 1),
    (
        "the middle of a chain (the Values built after the root keep grad 0)",
        lambda rng: (_chain(12), 6),
        "small",
        0.0,
        1,
    ),
    (
        "a diamond (grads accumulate; the root's is set to 1 each time)",
        lambda rng: ([[], [0], [0], [1, 2]], 3),
        "small",
        0.0,
        3,
    ),
    (
        "a leaf that already holds a gradient and is used by 100 Values",
        lambda rng: _whole([[]] + [[0]] * 100 + [list(range(1, 101))]),
        "small",
        2.5,
        1,
    ),
    (
        "a random graph of a few hundred Values with up to 5 inputs each",
        lambda rng: _random_root(rng, _dense_dag(rng, 300, 5)),
        "small",
        0.0,
        1,
    ),
    (
        "a long chain in which every Value also uses the first leaf",
        lambda rng: _whole(_shared_chain(5_000)),
        "unit",
        0.0,
        1,
    ),
]


def _backward_cases(rng: np.random.Generator) -> list[Case]:
    cases = []
    for label, make, kind, preset, times in BACKWARD_GRAPHS:
        graph, root = make(rng)
        cases.append(backward_case(label, graph, root, _weights(rng, graph, kind), preset, times))
    return cases


ACTIVATIONS = {
    "tanh": math.tanh,
    "sigmoid": lambda z: 0.5 * (1 + math.tanh(z / 2)),
    "relu": lambda z: max(z, 0.0),
}


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
        cases.append(Case(label, inputs, {"loss": value, "grads": grads}))
    return cases


CHECKS = [
    Check(
        "1.1",
        "central_difference (hidden: other points and steps)",
        _central_cases,
        public.central,
        close(1e-9, 1e-12),
    ),
    *[
        Check(
            task,
            f"Value {op} Value (hidden: ints, zeros, large values, held gradients)",
            _binary_cases(op),
            public.binary,
            close(1e-9, 1e-12),
        )
        for op, (task, _, _) in BINARY.items()
    ],
    Check(
        "1.4",
        "Value ** number (hidden: zero base, zero exponent, negative bases)",
        _power_cases,
        public.power,
        close(1e-6, 1e-8),
    ),
    Check(
        "1.5",
        "Value.exp() and Value.log() (hidden: very small and large inputs)",
        _exp_log_cases,
        public.unary,
        close(1e-6, 1e-8),
    ),
    Check(
        "1.6",
        "Value.tanh(), .sigmoid(), .relu() (hidden: kink, saturation, tiny inputs)",
        _activation_cases,
        public.unary,
        close(1e-6, 1e-8),
    ),
    Check(
        "1.7",
        "topological_order (hidden: ladders, trees, wide and dense graphs)",
        _topo_cases,
        public.topo,
        _topo_verdict,
    ),
    Check(
        "1.8",
        "backward() with given local derivatives (hidden: other graphs)",
        _backward_cases,
        public.backward,
        _backward_verdict,
        requires=("1.7",),
    ),
    Check(
        "1.8",
        "a small MLP's loss.backward() (hidden)",
        _mlp_cases,
        programs.mlp,
        close(rtol=1e-5, atol=1e-7),
        requires=("1.2", "1.3", "1.4", "1.5", "1.6", "1.7"),
    ),
]

"""Public checks for chapter 1 — scalar autograd (Value).

The programs (``programs.py``) run next to the code under test; everything here stays in the
grading process: the seeded case lists, the expected values (this file's plain float
functions and the float64 central difference of ``gradcheck``) and the verdicts.

Each op check builds Values, sets ``out.grad`` to a random upstream gradient, calls the op's
own ``_backward`` once and compares what the inputs received. ``topological_order`` and
``backward`` are checked on graphs built with the given ``Value`` constructor and, for
``backward``, with local derivatives that the programs supply, so a wrong op never fails
them. Only the last check, micrograd's README example, runs every task together; it
declares so (``requires``) and reports "blocked by" when one of them fails.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ...harness.api import Case, Check, close, show
from ...harness.gradcheck import partials
from . import programs

DEPTH_LIMIT = 50  # calls: an iterative walk stays a few deep, recursion goes as deep as the graph

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
        f = programs.FUNCTIONS[name]
        step = 1e-6 if eps is None else eps
        expected = (f(x + step) - f(x - step)) / (2 * step)
        label = f"central_difference(f, {x:g}" + (")" if eps is None else f", eps={eps:g})")
        cases.append(
            Case(f"{label} with f(x) = {name}", {"fn": name, "x": x, "eps": eps}, expected)
        )
    return cases


# -- tasks 1.2–1.6: each op's forward and local derivative ---------------------------------

# op: (task, the autograder's own reference function on floats)
BINARY = {"+": ("1.2", lambda a, b: a + b), "*": ("1.3", lambda a, b: a * b)}
UNARY = {
    "exp": ("1.5", math.exp),
    "log": ("1.5", math.log),
    "tanh": ("1.6", math.tanh),
    "sigmoid": ("1.6", lambda a: 0.5 * (1 + math.tanh(a / 2))),  # = 1 / (1 + e^-a), stable
    "relu": ("1.6", lambda a: max(a, 0.0)),
}
# inputs per unary op, small first, kept away from kinks and outside-domain points
UNARY_INPUTS = {
    "exp": [0.0, 1.0, -2.5, 4.0],
    "log": [1.0, 2.0, 0.25, 40.0],
    "tanh": [0.0, 0.5, -1.5, 20.0],
    "sigmoid": [0.0, 2.0, -3.0, -800.0, 800.0],
    "relu": [1.5, -1.5, 3.0, -0.2],
}


def _expected(f, names: str, args, upstream: float, presets: dict[str, float]) -> dict:
    """What ``programs._step`` should return, from the autograder's own float function
    ``f``: its value, and each input's gradient by the float64 central difference, times
    the upstream gradient, added to what the input held before (gradients accumulate)."""
    result = {"type(out)": "Value", "out.data": f(*args)}
    for name, d in zip(names, partials(f, args)):
        result[f"{name}.grad"] = presets.get(name, 0.0) + upstream * d
        result[f"{name} in out._prev"] = True
    return result


def _before(presets: dict[str, float]) -> str:
    return "".join(f"{name}.grad = {value:g}; " for name, value in presets.items())


def _binary_cases(op: str) -> Callable[[np.random.Generator], list[Case]]:
    f = BINARY[op][1]

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
                expected = _expected(lambda x: f(x, x), "x", [a], g, presets)
                label = f"x = Value({a:g}); out = x {op} x"
            elif form in ("number right", "number left"):
                expected = _expected(lambda x, b=b: f(x, b), "x", [a], g, presets)
                expr = f"x {op} {b:g}" if form == "number right" else f"{b:g} {op} x"
                label = f"x = Value({a:g}); out = {expr}"
            else:
                expected = _expected(f, "xy", [a, b], g, presets)
                label = f"x = Value({a:g}); y = Value({b:g}); {_before(presets)}out = x {op} y"
            inputs = {"op": op, "form": form, "a": a, "b": b, "g": g, "presets": presets}
            out.append(Case(f"{label}; out.grad = {g:g}; out._backward()", inputs, expected))
        return out

    return cases


def _power_cases(rng: np.random.Generator) -> list[Case]:
    out = []
    for a, n in [(3.0, 2), (2.0, 3), (-1.5, 2), (4.0, 0.5), (2.0, -1), (0.5, -2.5), (1.7, 1)]:
        g = round(float(rng.uniform(0.5, 2)), 3)
        presets = {"x": 0.75} if len(out) == 1 else {}
        expected = _expected(lambda x, n=n: x**n, "x", [a], g, presets)
        label = f"x = Value({a:g}); {_before(presets)}out = x ** {n:g}"
        inputs = {"a": a, "n": n, "g": g, "presets": presets}
        out.append(Case(f"{label}; out.grad = {g:g}; out._backward()", inputs, expected))
    return out


def _unary_cases(op: str) -> Callable[[np.random.Generator], list[Case]]:
    f = UNARY[op][1]

    def cases(rng: np.random.Generator) -> list[Case]:
        out = []
        for i, a in enumerate(UNARY_INPUTS[op]):
            g = round(float(rng.uniform(0.5, 2)), 3)
            presets = {"x": 0.25} if i == 1 else {}
            label = f"x = Value({a:g}); {_before(presets)}out = x.{op}(); out.grad = {g:g}"
            inputs = {"op": op, "a": a, "g": g, "presets": presets}
            out.append(
                Case(f"{label}; out._backward()", inputs, _expected(f, "x", [a], g, presets))
            )
        return out

    return cases


# -- tasks 1.7 and 1.8: graphs --------------------------------------------------------------


def _chain(n: int) -> list[list[int]]:
    return [[]] + [[i - 1] for i in range(1, n)]


def _random_dag(rng: np.random.Generator, n: int) -> list[list[int]]:
    graph: list[list[int]] = [[]]
    for i in range(1, n):
        k = int(rng.integers(0, min(i, 3) + 1))
        graph.append(sorted({int(j) for j in rng.integers(0, i, size=k)}))
    return graph


GRAPHS: list[tuple[str, Callable[[np.random.Generator], tuple[list[list[int]], int]]]] = [
    ("a single leaf", lambda rng: ([[]], 0)),
    ("a chain of 3 Values", lambda rng: (_chain(3), 2)),
    ("a diamond: d uses b and c, which both use a", lambda rng: ([[], [0], [0], [1, 2]], 3)),
    ("a node that uses the same input twice (like a * a)", lambda rng: ([[], [0, 0], [1]], 2)),
    ("a leaf used at three depths", lambda rng: ([[], [0], [0, 1], [0, 2]], 3)),
    (
        "a random graph of 40 Values, some not reachable from the root",
        lambda rng: (_random_dag(rng, 40), 33),
    ),
    (
        "a root with 2,000 inputs",
        lambda rng: ([[] for _ in range(2000)] + [list(range(2000))], 2000),
    ),
    (
        "a chain of 20,000 Values (recursion would fail here)",
        lambda rng: (_chain(20_000), 19_999),
    ),
]


def _recursed(what: str, depth: int) -> str | None:
    if depth < 0:
        return (
            f"{what} switched off the grader's call-depth measurement (sys.settrace), so "
            "the check cannot tell an iterative walk from a recursive one"
        )
    if depth <= DEPTH_LIMIT:
        return None
    return (
        f"{what} went more than {DEPTH_LIMIT} calls deep: it recurses, once per node. "
        "Walk the graph with an explicit stack instead (§6)."
    )


def _topo_cases(rng: np.random.Generator) -> list[Case]:
    cases = []
    for label, make in GRAPHS:
        graph, root = make(rng)
        cases.append(Case(f"topological_order(root) on {label}", {"graph": graph, "root": root}))
    return cases


def _reachable(graph: list[list[int]], root: int) -> set[int]:
    seen, stack = {root}, [root]
    while stack:
        for child in graph[stack.pop()]:
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return seen


def _topo_verdict(case: Case, received) -> str | None:
    """A property, not a value: every reachable node once, inputs before users, root last."""
    graph, root = case.inputs["graph"], case.inputs["root"]
    order = received["order"]
    if not isinstance(order, list):
        return f"expected a list of Values, received {show(order)}"
    if -1 in order:
        return "the list holds something that is not one of the graph's Values"
    position: dict[int, int] = {}
    for i, node in enumerate(order):
        if node in position:
            return f"node {node} appears twice (each Value must appear exactly once)"
        position[node] = i
    reachable = _reachable(graph, root)
    if missing := sorted(reachable - position.keys()):
        return f"{len(missing)} Values reachable from the root are missing, e.g. node {missing[0]}"
    if extra := sorted(position.keys() - reachable):
        return f"node {extra[0]} is in the list but cannot be reached from the root"
    for node in reachable:
        for child in graph[node]:
            if position[child] > position[node]:
                return f"node {node} comes before its input {child}: inputs must come first"
    if order[-1] != root:
        return f"the root (node {root}) must come last, it is at position {position[root]}"
    return _recursed("topological_order", received["depth"])


def _simulate(graph, weights, root: int, grads: list[float], times: int) -> list[float]:
    """micrograd's backward, ``times`` times: the root's grad is set to 1, then each node,
    in a reverse topological order (inputs have smaller indices), adds w · its grad to
    each input's grad."""
    for _ in range(times):
        grads[root] = 1.0
        for node in range(root, -1, -1):
            for child, w in zip(graph[node], weights[node]):
                grads[child] += w * grads[node]
    return grads


def _backward_cases(rng: np.random.Generator) -> list[Case]:
    extra = [
        ("a chain whose leaf already has grad 0.5", (_chain(4), 3), 0.5, 1),
        (
            "a chain of 3 Values, called twice (grads accumulate; the root's is set to 1)",
            (_chain(3), 2),
            0.0,
            2,
        ),
    ]
    cases = []
    for label, make, preset, times in [*((text, m, 0.0, 1) for text, m in GRAPHS), *extra]:
        graph, root = make(rng) if callable(make) else make
        # weights ±1 on big graphs keep the gradients' size in check; small ones get any
        edges = sum(len(k) for k in graph)
        flat = rng.choice([-1.0, 1.0], edges) if edges > 1000 else rng.uniform(-2, 2, edges)
        flat = flat.round(3)
        ends = np.cumsum([len(k) for k in graph]).tolist()
        weights = [flat[end - len(k) : end].tolist() for k, end in zip(graph, ends)]
        cases.append(backward_case(label, graph, root, weights, preset, times))
    return cases


def backward_case(label, graph, root: int, weights, preset: float, times: int) -> Case:
    """``root.backward()``, ``times`` times, on ``graph`` with the autograder's own local
    derivatives (``weights``), the leaf holding ``preset`` first; expected: ``_simulate``."""
    grads = _simulate(graph, weights, root, [preset] + [0.0] * (len(graph) - 1), times)
    inputs = {"graph": graph, "weights": weights, "root": root, "preset": preset, "times": times}
    call = "root.backward()" + {1: "", 2: " twice"}.get(times, f" {times} times")
    return Case(f"{call} on {label}", inputs, {"grad of node": grads})


def _backward_verdict(case: Case, received) -> str | None:
    if not isinstance(received, dict) or "depth" not in received:
        return f"expected the grads, received {show(received)}"
    return _recursed("backward()", received["depth"]) or close(rtol=1e-9, atol=1e-9)(
        case, {"grad of node": received["grad of node"]}
    )


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
        expected = {"g.data": _readme(a, b), "a.grad": da, "b.grad": db}
        label = f"micrograd's README example with a = {a:g}, b = {b:g}"
        cases.append(Case(label, {"a": a, "b": b}, expected))
    return cases


CHECKS = [
    Check("1.1", "central_difference", _central_cases, programs.central, close(1e-9, 1e-12)),
    *[
        Check(task, f"Value {op} Value", _binary_cases(op), programs.binary, close(1e-6, 1e-8))
        for op, (task, _) in BINARY.items()
    ],
    Check("1.4", "Value ** number", _power_cases, programs.power, close(1e-6, 1e-8)),
    *[
        Check(task, f"Value.{op}()", _unary_cases(op), programs.unary, close(1e-6, 1e-8))
        for op, (task, _) in UNARY.items()
    ],
    Check("1.7", "topological_order", _topo_cases, programs.topo, _topo_verdict),
    Check(
        "1.8",
        "backward() with given local derivatives",
        _backward_cases,
        programs.backward,
        _backward_verdict,
        requires=("1.7",),
    ),
    Check(
        "1.8",
        "micrograd's README example",
        _readme_cases,
        programs.readme,
        close(rtol=1e-5, atol=1e-6),
        requires=("1.2", "1.3", "1.4", "1.6", "1.7"),
    ),
]

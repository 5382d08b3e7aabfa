"""Public checks for chapter 1 — scalar autograd (Value).

Each op check builds Values, sets ``out.grad`` to a random upstream gradient, calls the op's
own ``_backward`` once and returns what it sees; expected values come from this file's plain
float functions and the float64 central difference in ``gradcheck``. ``topological_order``
and ``backward`` are checked on graphs built with the given ``Value`` constructor and, for
``backward``, local derivatives (``_backward`` closures) that this file supplies, so a bug in
an op never fails them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

import numpy as np

from ..harness.api import Case, Check, close, show
from ..harness.gradcheck import partials

# -- task 1.1: central_difference ----------------------------------------------------------

FUNCTIONS: dict[str, Callable[[float], float]] = {
    "x**2": lambda x: x * x,
    "x**3": lambda x: x**3,
    "sin(x)": math.sin,
    "exp(x)": math.exp,
    "1/x": lambda x: 1 / x,
}


def _central_cases(rng: np.random.Generator) -> list[Case]:
    cases = []
    for name, x, eps in [
        ("x**2", 3.0, None),
        ("x**3", 2.0, None),
        ("sin(x)", 0.5, None),
        ("x**3", 2.0, 1e-3),
        ("exp(x)", 1.0, 0.1),
        ("1/x", 2.0, 0.5),
        ("sin(x)", round(float(rng.uniform(-3, 3)), 3), 0.25),
    ]:
        f = FUNCTIONS[name]
        step = 1e-6 if eps is None else eps
        expected = (f(x + step) - f(x - step)) / (2 * step)
        label = f"central_difference(f, {x:g}" + (")" if eps is None else f", eps={eps:g})")
        cases.append(
            Case(f"{label} with f(x) = {name}", {"fn": name, "x": x, "eps": eps}, expected)
        )
    return cases


def _central(sp, fn: str, x: float, eps: float | None):
    f = FUNCTIONS[fn]
    return sp.central_difference(f, x) if eps is None else sp.central_difference(f, x, eps=eps)


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


def _op_result(out, **inputs) -> dict:
    """What a check sees after one local backward step (the names match the case label)."""
    prev = getattr(out, "_prev", ())
    result = {"type(out)": type(out).__name__, "out.data": getattr(out, "data", None)}
    for name, x in inputs.items():
        result[f"{name}.grad"] = getattr(x, "grad", None)
        result[f"{name} in out._prev"] = any(p is x for p in prev)
    return result


def _local_backward(sp, out, g: float, **inputs) -> dict:
    """One chain-rule step by hand: out.grad = g, then out's own _backward()."""
    if not isinstance(out, sp.Value):
        return {"type(out)": type(out).__name__}  # the verdict explains what was expected
    out.grad = g
    out._backward()
    return _op_result(out, **inputs)


def _expected(f, names: str, args, upstream: float, preset: float) -> dict:
    """The same dict from the autograder's own float function ``f``: its value, and each
    input's gradient by the float64 central difference, times the upstream gradient."""
    result = {"type(out)": "Value", "out.data": f(*args)}
    for name, d in zip(names, partials(f, args)):
        result[f"{name}.grad"] = (preset if name == "x" else 0.0) + upstream * d
        result[f"{name} in out._prev"] = True
    return result


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
            ("preset grad", 3.0, -1.0),
            ("values", *rng.uniform(-10, 10, 2).round(3).tolist()),
        ]:
            g = round(float(rng.uniform(0.5, 2)), 3) * (-1) ** len(out)
            preset = 0.25 if form == "preset grad" else 0.0
            before = f"x.grad = {preset:g}; " if preset else ""
            if form == "same value":
                expected = _expected(lambda x: f(x, x), "x", [a], g, preset)
                label = f"x = Value({a:g}); out = x {op} x"
            elif form in ("number right", "number left"):
                expected = _expected(lambda x, b=b: f(x, b), "x", [a], g, preset)
                expr = f"x {op} {b:g}" if form == "number right" else f"{b:g} {op} x"
                label = f"x = Value({a:g}); out = {expr}"
            else:
                expected = _expected(f, "xy", [a, b], g, preset)
                label = f"x = Value({a:g}); y = Value({b:g}); {before}out = x {op} y"
            inputs = {"op": op, "form": form, "a": a, "b": b, "g": g, "preset": preset}
            out.append(Case(f"{label}; out.grad = {g:g}; out._backward()", inputs, expected))
        return out

    return cases


def _binary(sp, op: str, form: str, a: float, b: float | None, g: float, preset: float):
    apply = {"+": lambda x, y: x + y, "*": lambda x, y: x * y}[op]
    x = sp.Value(a)
    x.grad = preset
    if form == "same value":
        out, inputs = apply(x, x), {"x": x}
    elif form == "number right":
        out, inputs = apply(x, b), {"x": x}
    elif form == "number left":
        out, inputs = apply(b, x), {"x": x}
    else:
        y = sp.Value(b)
        out, inputs = apply(x, y), {"x": x, "y": y}
    return _local_backward(sp, out, g, **inputs)


def _pow_cases(rng: np.random.Generator) -> list[Case]:
    out = []
    for a, n in [(3.0, 2), (2.0, 3), (-1.5, 2), (4.0, 0.5), (2.0, -1), (0.5, -2.5), (1.7, 1)]:
        g = round(float(rng.uniform(0.5, 2)), 3)
        expected = _expected(lambda x, n=n: x**n, "x", [a], g, 0.0)
        label = f"x = Value({a:g}); out = x ** {n:g}; out.grad = {g:g}; out._backward()"
        out.append(Case(label, {"a": a, "n": n, "g": g}, expected))
    return out


def _pow(sp, a: float, n: float, g: float):
    x = sp.Value(a)
    return _local_backward(sp, x**n, g, x=x)


def _unary_cases(op: str) -> Callable[[np.random.Generator], list[Case]]:
    f = UNARY[op][1]

    def cases(rng: np.random.Generator) -> list[Case]:
        out = []
        for i, a in enumerate(UNARY_INPUTS[op]):
            g = round(float(rng.uniform(0.5, 2)), 3)
            preset = 0.25 if i == 1 else 0.0
            before = f"x.grad = {preset:g}; " if preset else ""
            label = f"x = Value({a:g}); {before}out = x.{op}(); out.grad = {g:g}; out._backward()"
            out.append(
                Case(
                    label,
                    {"op": op, "a": a, "g": g, "preset": preset},
                    _expected(f, "x", [a], g, preset),
                )
            )
        return out

    return cases


def _unary(sp, op: str, a: float, g: float, preset: float):
    x = sp.Value(a)
    x.grad = preset
    return _local_backward(sp, getattr(x, op)(), g, x=x)


# -- tasks 1.7 and 1.8: graphs with local derivatives supplied here ----------------------
#
# A graph is a list of nodes; node i lists its children, all with smaller indices. `root` is
# the node backward starts from; nodes beyond it or not reached from it stay untouched.


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
        "a chain of 100,000 Values (recursion would fail here)",
        lambda rng: (_chain(100_000), 99_999),
    ),
]


def _build(sp, graph: list[list[int]]):
    nodes = []
    for i, children in enumerate(graph):
        nodes.append(sp.Value(float(i), [nodes[j] for j in children], "f"))
    return nodes


def _topo_cases(rng: np.random.Generator) -> list[Case]:
    cases = []
    for label, make in GRAPHS:
        graph, root = make(rng)
        cases.append(Case(f"topological_order(root) on {label}", {"graph": graph, "root": root}))
    return cases


def _topo(sp, graph: list[list[int]], root: int):
    nodes = _build(sp, graph)
    order = sp.topological_order(nodes[root])
    if not isinstance(order, (list, tuple)):
        return order  # None, a set, …: the verdict names it
    index = {id(node): i for i, node in enumerate(nodes)}
    return [index.get(id(node), -1) for node in order]


def _reachable(graph: list[list[int]], root: int) -> set[int]:
    seen, stack = {root}, [root]
    while stack:
        for child in graph[stack.pop()]:
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return seen


def _topo_verdict(case: Case, order) -> str | None:
    graph, root = case.inputs["graph"], case.inputs["root"]
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
    return None


def _backward_cases(rng: np.random.Generator) -> list[Case]:
    cases = []
    for label, make in [*GRAPHS, ("a chain whose leaf already has grad 0.5", None)]:
        graph, root = make(rng) if make else (_chain(4), 3)
        preset = 0.5 if make is None else 0.0
        # weights ±1 on big graphs keep the gradients' size in check; small ones get any
        edges = sum(len(k) for k in graph)
        flat = (
            rng.choice([-1.0, 1.0], edges) if edges > 1000 else rng.uniform(-2, 2, edges).round(3)
        )
        ends = np.cumsum([len(k) for k in graph]).tolist()
        weights = [flat[end - len(k) : end].tolist() for k, end in zip(graph, ends)]
        grads = [0.0] * len(graph)
        grads[0] = preset
        grads[root] = 1.0
        for node in range(root, -1, -1):
            for child, w in zip(graph[node], weights[node]):
                grads[child] += w * grads[node]
        inputs = {"graph": graph, "weights": weights, "root": root, "preset": preset}
        cases.append(Case(f"root.backward() on {label}", inputs, grads))
    return cases


def _chain_rule_step(node, children, weights) -> None:
    """The autograder's own local backward for ``node``: child.grad += w · node.grad."""
    for child, w in zip(children, weights):
        child.grad += w * node.grad


def _backward(sp, graph, weights, root: int, preset: float):
    nodes = _build(sp, graph)
    nodes[0].grad = preset
    for node, children, ws in zip(nodes, graph, weights):
        node._backward = partial(_chain_rule_step, node, [nodes[j] for j in children], ws)
    nodes[root].backward()
    return [node.grad for node in nodes]


# micrograd's README example, as a plain float function of (a, b) …
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


# … and the same code on Values (it runs on the code under test).
def _readme_program(sp, a: float, b: float):
    a, b = sp.Value(a), sp.Value(b)
    c = a + b
    d = a * b + b**3
    c += c + 1
    c += 1 + c + (-a)
    d += d * 2 + (b + a).relu()
    d += 3 * d + (b - a).relu()
    e = c - d
    f = e**2
    g = f / 2.0
    g += 10.0 / f
    g.backward()
    return {"g": g.data, "a.grad": a.grad, "b.grad": b.grad}


def _readme_cases(rng: np.random.Generator) -> list[Case]:
    cases = []
    pairs = [(-4.0, 2.0)]
    while len(pairs) < 2:  # a random pair away from the kinks of relu and the pole of 10 / f
        a, b = rng.uniform(-3, 3, 2).round(2).tolist()
        if min(abs(a + b), abs(a - b)) > 0.1 and abs(_readme(a, b)) < 1e3:
            pairs.append((a, b))
    for a, b in pairs:
        da, db = partials(_readme, [a, b])
        expected = {"g": _readme(a, b), "a.grad": da, "b.grad": db}
        cases.append(
            Case(
                f"micrograd's README example with a = {a:g}, b = {b:g}", {"a": a, "b": b}, expected
            )
        )
    return cases


CHECKS = [
    Check("1.1", "central_difference", _central_cases, _central, close(rtol=1e-9, atol=1e-12)),
    *[
        Check(task, f"Value {op} Value", _binary_cases(op), _binary, close(rtol=1e-6, atol=1e-8))
        for op, (task, _) in BINARY.items()
    ],
    Check("1.4", "Value ** number", _pow_cases, _pow, close(rtol=1e-6, atol=1e-8)),
    *[
        Check(task, f"Value.{op}()", _unary_cases(op), _unary, close(rtol=1e-6, atol=1e-8))
        for op, (task, _) in UNARY.items()
    ],
    Check("1.7", "topological_order", _topo_cases, _topo, _topo_verdict),
    Check(
        "1.8",
        "backward() with given local derivatives",
        _backward_cases,
        _backward,
        close(rtol=1e-9, atol=1e-9),
        requires=("1.7",),
    ),
    Check(
        "1.8",
        "micrograd's README example",
        _readme_cases,
        _readme_program,
        close(rtol=1e-5, atol=1e-6),
        requires=("1.2", "1.3", "1.4", "1.6", "1.7"),
    ),
]

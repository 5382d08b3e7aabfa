"""Chapter 1's check programs: the only part of the checks that runs next to the code under
test. Each takes the chapter's package ``sp`` and one case's inputs, exercises the code and
returns what it saw, as plain data. Case lists, expected values and verdicts live in
``cases.py`` and ``__init__.py`` (and the hidden checks' package), which stay in the grading
process and never reach the child.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any, Literal, TypedDict

from ...harness.kit import attempt


# What crosses the pipe: the payloads the programs return, declared once (the parent's
# verdicts read these keys; messages name things as the student writes them, e.g.
# "x.grad" or "x in out._prev", from the verdict, never from a key).
class StepResult(TypedDict, total=False):
    """One chain-rule step by hand (``_step``): out's type and, where out is a Value, its data
    and what each input (by the case's name for it: x, y) received."""

    type_name: str  # type(out).__name__
    out_data: Any
    grads: dict[str, Any]  # x.grad, y.grad after out._backward()
    in_prev: dict[str, bool]  # whether x (y) is one of out._prev, by identity


class PowerRaised(TypedDict, total=False):
    """What ``power`` met at a zero base where a call raised: which call ("x ** n" or
    "out._backward()"), the error's type and message, and out.data where x ** n returned;
    and what ``unary`` met far out ("x.tanh()" or "out._backward()")."""

    raised_in: str
    error: str
    message: str
    out_data: Any


class Stopped(TypedDict):
    """Why ``build``'s Values stopped a walk (``CostLimit``): ``what`` ("_prev" or "=="),
    at node ``node`` (-1 for "=="), past ``count`` uses."""

    what: str
    node: int
    count: int


class Walk(TypedDict, total=False):
    """What a graph walk cost: its call depth (-1: unmeasured) and CPU seconds, or what
    stopped it."""

    depth: int
    seconds: float
    stopped: Stopped


class TopoResult(Walk, total=False):
    """``topo``'s observation: the order as node indices (-1 for anything that is not one
    of the graph's Values), or what was returned where it is not a list or tuple."""

    order: Any


class BackwardResult(Walk, total=False):
    """``backward``'s observation: each node's grad, and how often its _backward ran."""

    grads: list
    calls: list[int]


class ReadmeResult(TypedDict):
    """``readme``'s observation: g.data, a.grad and b.grad."""

    g_data: Any
    a_grad: Any
    b_grad: Any


# -- task 1.1: central_difference ----------------------------------------------------------

FUNCTIONS: dict[str, Callable[[float], float]] = {
    "x**2": lambda x: x * x,
    "x**3": lambda x: x**3,
    "sin(x)": math.sin,
    "exp(x)": math.exp,
    "1/x": lambda x: 1 / x,
}


def central(sp, fn: str, x: float, eps: float | None):
    f = FUNCTIONS[fn]
    return sp.central_difference(f, x) if eps is None else sp.central_difference(f, x, eps=eps)


# -- tasks 1.2–1.6: one op, then one chain-rule step by hand --------------------------------


def _step(sp, out, g: float, **inputs) -> StepResult:
    """out.grad = g, then out's own _backward(); report what the inputs received."""
    if not isinstance(out, sp.Value):
        return {"type_name": type(out).__name__}  # the verdict says what was expected
    out.grad = g
    out._backward()
    prev = getattr(out, "_prev", ())
    return {
        "type_name": type(out).__name__,
        "out_data": out.data,
        "grads": {name: x.grad for name, x in inputs.items()},
        "in_prev": {name: any(p is x for p in prev) for name, x in inputs.items()},
    }


BINARY_OPS = {"+": lambda x, y: x + y, "*": lambda x, y: x * y}

# how ``binary`` applies its op: x op y ("values"; "preset grads" with grads already held),
# x op b ("number right"), b op x ("number left"), x op x ("same value")
Form = Literal["values", "preset grads", "number right", "number left", "same value"]


def binary(
    sp, op: str, form: Form, a: float, b: float, g: float, presets: dict[str, float]
) -> StepResult:
    apply = BINARY_OPS[op]
    x = sp.Value(a)
    x.grad = presets.get("x", 0.0)
    if form == "same value":
        return _step(sp, apply(x, x), g, x=x)
    if form == "number right":
        return _step(sp, apply(x, b), g, x=x)
    if form == "number left":
        return _step(sp, apply(b, x), g, x=x)
    y = sp.Value(b)
    y.grad = presets.get("y", 0.0)
    return _step(sp, apply(x, y), g, x=x, y=y)


def power(
    sp, a: float, n: float, g: float, presets: dict[str, float], catch: bool = False
) -> StepResult | PowerRaised:
    """x ** n, then one step by hand. With ``catch`` (a zero base, where some n must raise),
    what x ** n or out._backward() raised comes back for the verdict to judge."""
    x = sp.Value(a)
    x.grad = presets.get("x", 0.0)
    if not catch:
        return _step(sp, x**n, g, x=x)
    out = attempt(lambda: x**n)
    if out["error"]:
        return {"raised_in": "x ** n", "error": out["error"], "message": out["message"]}
    step = attempt(lambda: _step(sp, out["value"], g, x=x))
    if step["error"]:
        data = getattr(out["value"], "data", None)
        return {
            "raised_in": "out._backward()",
            "error": step["error"],
            "message": step["message"],
            "out_data": data,
        }
    return step["value"]


def unary(
    sp, op: str, a: float, g: float, presets: dict[str, float], catch: bool = False
) -> StepResult | PowerRaised:
    """x.op(), then one step by hand. With ``catch`` (far out, where a formula through exp
    overflows), what x.op() or out._backward() raised comes back for the verdict to name."""
    x = sp.Value(a)
    x.grad = presets.get("x", 0.0)
    if not catch:
        return _step(sp, getattr(x, op)(), g, x=x)
    out = attempt(lambda: getattr(x, op)())
    if out["error"]:
        return {"raised_in": f"x.{op}()", "error": out["error"], "message": out["message"]}
    step = attempt(lambda: _step(sp, out["value"], g, x=x))
    if step["error"]:
        return {"raised_in": "out._backward()", "error": step["error"], "message": step["message"]}
    return step["value"]


# -- tasks 1.7 and 1.8: graphs, and local derivatives supplied here -------------------------
#
# A graph is a list of nodes; node i lists its children, all with smaller indices. Nodes are
# built with the given Value constructor, never with the student's ops.


def deepest_call(fn: Callable[[], Any], limit: int = 100) -> tuple[Any, int]:
    """Run ``fn()`` and measure how many calls deep it went (at most ``limit + 1``): an
    iterative graph walk stays a few calls deep; a recursive one goes as deep as the graph.
    The depth is -1 when ``fn`` switched the measurement off (``sys.settrace``)."""
    base, deepest, proven = sys._getframe(), 0, False

    def tracer(frame, event, arg):
        nonlocal deepest, proven
        depth = 0
        while frame is not None and frame is not base and depth <= limit:
            frame, depth = frame.f_back, depth + 1
        deepest = max(deepest, depth)
        if depth > limit:
            proven = True
            sys.settrace(None)  # proven recursive: stop paying for the measurement
        return None

    sys.settrace(tracer)
    try:
        result = fn()
        intact = proven or sys.gettrace() is tracer
        return result, deepest if intact else -1
    finally:
        sys.settrace(None)


class CostLimit(Exception):
    """Raised once a walk has read node ``node``'s ``_prev`` more often than its cap
    (``what`` = "_prev"), or compared Values with ``==`` more often than the graph's cap
    (``what`` = "==", ``node`` = -1)."""

    def __init__(self, what: str, node: int, count: int) -> None:
        super().__init__(f"{what} used {count} times")
        self.what, self.node, self.count = what, node, count


def node_data(i: int) -> float:
    """The data of a graph's node ``i`` (0, 1, 2, 0, ...): many Values share each number, so a
    walk that tells Values apart by their data skips some."""
    return float(i % 3)


def build(sp, graph: list[list[int]], caps: list[int], compares: int) -> list:
    """The graph's Values, made with the given ``Value`` constructor, as a subclass that
    counts what a walk costs and raises ``CostLimit`` past a cap: reads of node i's ``_prev``
    past ``caps[i]`` (a walk without a visited set expands a Value once per path to it), and
    ``==`` between Values past ``compares`` (``x in a_list`` compares x with each element;
    a set never does). Many Values hold the same number: a Value is itself, not its data."""
    reads, equals = [0] * len(graph), [0]

    class Counted(sp.Value):
        __hash__ = sp.Value.__hash__

        @property
        def _prev(self):
            i = self.__dict__["_node"]
            reads[i] += 1
            if reads[i] > caps[i]:
                raise CostLimit("_prev", i, caps[i])
            return self.__dict__["_inputs"]

        @_prev.setter
        def _prev(self, value) -> None:
            self.__dict__["_inputs"] = value

        def __eq__(self, other):
            equals[0] += 1
            if equals[0] > compares:
                raise CostLimit("==", -1, compares)
            return super().__eq__(other)

    nodes: list = []
    for i, children in enumerate(graph):
        node = Counted.__new__(Counted)
        node.__dict__["_node"] = i
        sp.Value.__init__(node, node_data(i), [nodes[j] for j in children], "f")
        nodes.append(node)
    return nodes


def _walk(fn: Callable[[], Any]) -> tuple[Any, Walk]:
    """``deepest_call(fn)``, with what it cost: CPU seconds, or the cap that stopped it."""
    start = time.process_time()
    try:
        result, depth = deepest_call(fn)
    except CostLimit as stop:
        stopped: Stopped = {"what": stop.what, "node": stop.node, "count": stop.count}
        return None, {"stopped": stopped, "depth": 0}
    return result, {"depth": depth, "seconds": time.process_time() - start}


def topo(sp, graph: list[list[int]], root: int, caps: list[int], compares: int) -> TopoResult:
    nodes = build(sp, graph, caps, compares)
    order, cost = _walk(lambda: sp.topological_order(nodes[root]))
    if "stopped" in cost or not isinstance(order, (list, tuple)):
        return {"order": order, **cost}  # None, a set, …: the verdict names it
    index = {id(node): i for i, node in enumerate(nodes)}
    return {"order": [index.get(id(node), -1) for node in order], **cost}


def chain_rule_step(node, children, weights, calls: list[int], i: int) -> None:
    """The autograder's own local backward for node ``i``: child.grad += w · node.grad;
    counted in ``calls``."""
    calls[i] += 1
    for child, w in zip(children, weights):
        child.grad += w * node.grad


def backward(
    sp, graph, weights, root: int, preset: float, times: int, caps: list[int], compares: int
) -> BackwardResult:
    nodes = build(sp, graph, caps, compares)
    nodes[0].grad = preset
    calls = [0] * len(nodes)
    for i, (node, children, ws) in enumerate(zip(nodes, graph, weights)):
        children = [nodes[j] for j in children]
        node._backward = partial(chain_rule_step, node, children, ws, calls, i)
    depth, seconds = 0, 0.0
    for _ in range(times):
        _, step = _walk(nodes[root].backward)
        if "stopped" in step:
            return step
        depth, seconds = max(depth, step["depth"]), seconds + step["seconds"]
    grads = [node.grad for node in nodes]
    return {"grads": grads, "calls": calls, "depth": depth, "seconds": seconds}


def readme(sp, a: float, b: float) -> ReadmeResult:
    """micrograd's README example, as written there (it runs every op of the chapter)."""
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
    return {"g_data": g.data, "a_grad": a.grad, "b_grad": b.grad}

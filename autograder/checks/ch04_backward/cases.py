"""Chapter 4's case builders: what public and hidden checks are made of (a hidden check is
rows of these, drawn at the seed, never a copy of them).

A graph is a ``Graph``: leaves and steps by name, in the order they are made (so the order
is topological). The parent knows every edge from it, so it counts the dependencies itself
(``expected_counts``: one per edge from a reachable vertex, ``x * x`` being two), and runs
its own reverse pass (``reverse``) with each step's local vector-Jacobian product taken by
the complex step (``gradcheck.vjp``, exact to float64 rounding) and the hooks applied where
the engine must apply them. Closed forms give the second derivatives, the jvp and the
Hessians; the grad-mode scripts are run on a plain flag (``simulate``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...harness.api import Case
from ...harness.gradcheck import vjp
from ...harness.language import Text, say, tr

# -- graphs -------------------------------------------------------------------------------

NUMPY_OPS: dict[str, Callable[..., Any]] = {  # the programs' OPS, on (complex) arrays
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "matmul": lambda a, b: a @ b,
    "tanh": np.tanh,
    "exp": np.exp,
    "sum": lambda a: np.sum(a),
    "none_backward": lambda a: a * 2.0,
    "checkpoint": lambda a: np.exp(a * a),
}
SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "matmul": "@"}


@dataclass(frozen=True)
class Graph:
    """Leaves (name, data, requires_grad) and steps (name, op, args: names or numbers), in
    the order they are made; ``roots``: where backward starts."""

    leaves: list[tuple[str, np.ndarray, bool]]
    steps: list[tuple[str, str, list]]
    roots: list[str]

    @property
    def requires(self) -> dict[str, bool]:
        """Whether each tensor requires grad (a step does when one of its inputs does)."""
        out = {name: rg for name, _, rg in self.leaves}
        for name, _, args in self.steps:
            out[name] = any(out[a] for a in args if isinstance(a, str))
        return out

    @property
    def vertices(self) -> list[str]:
        """The tensors that are vertices of the engine's graph (they require grad)."""
        return [name for name, rg in self.requires.items() if rg]

    @property
    def nodes(self) -> list[str]:
        """The steps that have a grad_fn."""
        requires = self.requires
        return [name for name, _, _ in self.steps if requires[name]]

    def edges(self, name: str) -> list[str]:
        """The vertices step ``name`` sends contributions to, one per edge."""
        requires = self.requires
        (args,) = [args for n, _, args in self.steps if n == name]
        return [a for a in args if isinstance(a, str) and requires[a]]

    def wire(self) -> dict[str, Any]:
        """The graph as the programs take it."""
        return {
            "leaves": [[n, d, rg] for n, d, rg in self.leaves],
            "steps": [[n, op, list(args)] for n, op, args in self.steps],
            "roots": list(self.roots),
            "order": self.vertices,
        }

    def forward(self) -> dict[str, np.ndarray]:
        values: dict[str, Any] = {
            name: np.asarray(d, dtype=np.float64) for name, d, _ in self.leaves
        }
        for name, op, args in self.steps:
            values[name] = np.asarray(NUMPY_OPS[op](*[_value(values, a) for a in args]))
        return values

    def text(self) -> str:
        """The graph as a student writes it: "y = x * x; out = y.sum()"."""
        parts = []
        for name, op, args in self.steps:
            shown = [a if isinstance(a, str) else repr(a) for a in args]
            if op in SYMBOLS:
                expr = f" {SYMBOLS[op]} ".join(shown)
            elif op in ("none_backward", "checkpoint"):
                expr = f"{op.title().replace('_', '')}.apply({shown[0]})"
            else:
                expr = f"{shown[0]}.{op}()"
            parts.append(f"{name} = {expr}")
        return "; ".join(parts)


def _value(values: dict, arg: Any) -> Any:
    return values[arg] if isinstance(arg, str) else arg


def said(name: str, graph: Graph) -> str:
    """A vertex as a student names it: a leaf ``x``, a step's node ``y.grad_fn``."""
    return name if name in {n for n, _, _ in graph.leaves} else f"{name}.grad_fn"


def reachable(graph: Graph) -> list[str]:
    """The vertices reachable from the roots (the graph's order)."""
    seen = {r for r in graph.roots if graph.requires[r]}
    nodes = set(graph.nodes)
    for name, _, _ in reversed(graph.steps):  # made after its inputs: one backward sweep
        if name in seen and name in nodes:
            seen.update(graph.edges(name))
    return [v for v in graph.vertices if v in seen]


def expected_counts(graph: Graph) -> dict[str, int]:
    """{vertex: contributions}: one per edge from a reachable node, the roots included."""
    found = reachable(graph)
    counts = dict.fromkeys(found, 0)
    for name in found:
        if name in graph.nodes:
            for parent in graph.edges(name):
                counts[parent] += 1
    return counts


@dataclass(frozen=True)
class Reverse:
    """The autograder's own backward pass: the complete gradient of each vertex (None where
    none arrives), what each hook receives, and the nodes whose backward runs."""

    grads: dict[str, np.ndarray | None]
    hook_inputs: list[np.ndarray | None]
    ran: set[str]


def reverse(
    graph: Graph, seeds: Sequence[np.ndarray], hooks: Sequence[tuple[str, str]] = ()
) -> Reverse:
    """Backpropagate ``seeds`` from the roots, vertex by vertex in reverse order of making
    (topological), applying the hooks ("double" returns 2g, "observe" returns None)."""
    values, requires, nodes = graph.forward(), graph.requires, set(graph.nodes)
    pending: dict[str, np.ndarray] = {}
    for root, s in zip(graph.roots, seeds):
        pending[root] = pending.get(root, 0) + np.asarray(s, dtype=np.float64)
    grads: dict[str, np.ndarray | None] = dict.fromkeys(graph.vertices)
    hook_inputs: list[np.ndarray | None] = [None] * len(hooks)
    ran: set[str] = set()
    order = [n for n, _, _ in reversed(graph.steps)] + [n for n, _, _ in graph.leaves]
    ops = {n: (op, args) for n, op, args in graph.steps}
    for name in order:
        if not requires[name] or name not in pending:
            continue
        g = np.asarray(pending.pop(name), dtype=np.float64)
        for i, (hooked, kind) in enumerate(hooks):
            if hooked == name:
                hook_inputs[i] = g
                g = np.asarray(g * 2.0) if kind == "double" else g  # 0-d stays an array
        grads[name] = g
        if name not in nodes:
            continue
        ran.add(name)
        op, args = ops[name]
        if op == "none_backward":
            continue
        tensor_args = [i for i, a in enumerate(args) if isinstance(a, str)]

        def local(*arrays: Any, op: str = op, args: list = args, where: list = tensor_args) -> Any:
            full = list(args)
            for i, array in zip(where, arrays):
                full[i] = array
            return NUMPY_OPS[op](*[_value(values, a) if isinstance(a, str) else a for a in full])

        contributions = vjp(local, [values[args[i]] for i in tensor_args], g)
        for i, c in zip(tensor_args, contributions):
            if requires[args[i]]:
                pending[args[i]] = pending.get(args[i], 0) + c
    return Reverse(grads, hook_inputs, ran)


def draw(
    rng: np.random.Generator, shape: tuple[int, ...] = (2, 3), scale: float = 1.0
) -> np.ndarray:
    """Random data with 3 decimals (not float32-exact)."""
    return (rng.uniform(-1.0, 1.0, shape) * scale).round(3)


# -- graph makers (each draws its data from rng) --------------------------------------------


def twice(rng: np.random.Generator) -> Graph:
    """x * x: two edges from one node into x."""
    return Graph(
        [("x", draw(rng), True)], [("y", "mul", ["x", "x"]), ("out", "sum", ["y"])], ["out"]
    )


def diamond(rng: np.random.Generator, shape: tuple[int, ...] = (2, 3)) -> Graph:
    """a feeds b and c, which meet in d (``shape=()``: scalars, where a report's values are
    read at a glance)."""
    return Graph(
        [("a", draw(rng, shape), True)],
        [
            ("b", "tanh", ["a"]),
            ("c", "exp", ["a"]),
            ("d", "mul", ["b", "c"]),
            ("out", "sum", ["d"]),
        ],
        ["out"],
    )


def wide(rng: np.random.Generator, width: int) -> Graph:
    """a times ``width`` constants, added up: a is used by ``width`` nodes."""
    leaves = [("a", draw(rng), True)] + [(f"w{i}", draw(rng), False) for i in range(width)]
    steps: list = [(f"p{i}", "mul", ["a", f"w{i}"]) for i in range(width)]
    total = "p0"
    for i in range(1, width):
        steps.append((f"s{i}", "add", [total, f"p{i}"]))
        total = f"s{i}"
    steps.append(("out", "sum", [total]))
    return Graph(leaves, steps, ["out"])


def shared(rng: np.random.Generator) -> Graph:
    """Two outputs of one graph: h is reached from both roots."""
    return Graph(
        [("a", draw(rng), True), ("b", draw(rng), True)],
        [
            ("m", "mul", ["a", "b"]),
            ("h", "tanh", ["m"]),
            ("q", "mul", ["h", "h"]),
            ("r1", "sum", ["q"]),
            ("t", "add", ["h", "a"]),
            ("r2", "sum", ["t"]),
        ],
        ["r1", "r2"],
    )


def constants(rng: np.random.Generator) -> Graph:
    """Constants: a leaf k that does not require grad, a step on k alone, a number; and a
    branch (z) that no root reaches."""
    return Graph(
        [("a", draw(rng), True), ("k", draw(rng), False), ("z", draw(rng), True)],
        [
            ("e", "exp", ["k"]),
            ("b", "mul", ["a", "e"]),
            ("c", "add", ["b", "k"]),
            ("d", "mul", ["c", 0.5]),
            ("unused", "tanh", ["z"]),
            ("out", "sum", ["d"]),
        ],
        ["out"],
    )


def root_below_root(rng: np.random.Generator) -> Graph:
    """Two roots, one computed from the other: r1 is a root and receives from r2."""
    return Graph(
        [("a", draw(rng), True)],
        [("s", "tanh", ["a"]), ("r1", "sum", ["s"]), ("r2", "mul", ["r1", "r1"])],
        ["r1", "r2"],
    )


def root_above_root(rng: np.random.Generator) -> Graph:
    """``root_below_root`` with the roots the other way round: the root that another root
    reaches comes last in the list (it must still wait for its contribution)."""
    graph = root_below_root(rng)
    return Graph(graph.leaves, graph.steps, ["r2", "r1"])


def repeated_root(rng: np.random.Generator, make: Callable[[np.random.Generator], Graph]) -> Graph:
    """A graph of ``make`` with its root given twice (``backward([out, out], [g1, g2])``:
    the root's gradient is g1 + g2)."""
    graph = make(rng)
    return Graph(graph.leaves, graph.steps, graph.roots * 2)


def long_and_short(rng: np.random.Generator) -> Graph:
    """b reaches e directly and through c and d: b's node is ready only after both."""
    return Graph(
        [("a", draw(rng), True)],
        [
            ("b", "tanh", ["a"]),
            ("c", "exp", ["b"]),
            ("d", "tanh", ["c"]),
            ("e", "mul", ["d", "b"]),
            ("f", "add", ["e", "b"]),
            ("out", "sum", ["f"]),
        ],
        ["out"],
    )


def leaf_root(rng: np.random.Generator) -> Graph:
    """A diamond whose leaf is a root too (``backward([out, a], [g1, g2])``): a's gradient
    is its seed plus what reaches it from out."""
    graph = diamond(rng)
    return Graph(graph.leaves, graph.steps, ["out", "a"])


def layer(rng: np.random.Generator) -> Graph:
    """A small layer: tanh(W @ x) · v, reduced; W, x, v all require grad."""
    return Graph(
        [
            ("W", draw(rng, (3, 4)), True),
            ("x", draw(rng, (4, 2)), True),
            ("v", draw(rng, (3, 2)), True),
        ],
        [
            ("z", "matmul", ["W", "x"]),
            ("h", "tanh", ["z"]),
            ("p", "mul", ["h", "v"]),
            ("out", "sum", ["p"]),
        ],
        ["out"],
    )


def none_returned(rng: np.random.Generator) -> Graph:
    """One backward that returns None (b's, for a): a still waits for it, and gets c's
    contribution only."""
    return Graph(
        [("a", draw(rng), True)],
        [
            ("b", "none_backward", ["a"]),
            ("c", "tanh", ["a"]),
            ("m", "mul", ["b", "c"]),
            ("out", "sum", ["m"]),
        ],
        ["out"],
    )


def none_contributions(rng: np.random.Generator) -> Graph:
    """Nodes whose backward returns None: a still gets c's contribution; y only ever gets
    None (no gradient, no delivery); q's node gets only None, so it runs nothing, is not
    released, and still passes None on to a (which waits for it)."""
    return Graph(
        [("a", draw(rng), True), ("y", draw(rng), True)],
        [
            ("b", "none_backward", ["a"]),
            ("c", "tanh", ["a"]),
            ("q", "exp", ["a"]),
            ("n", "none_backward", ["y"]),
            ("r", "none_backward", ["q"]),
            ("m", "mul", ["b", "c"]),
            ("s", "add", ["n", "r"]),
            ("p", "add", ["m", "s"]),
            ("out", "sum", ["p"]),
        ],
        ["out"],
    )


def checkpointed(rng: np.random.Generator) -> Graph:
    """A node whose backward runs the engine again (``autograd.grad`` under enable_grad)."""
    return Graph(
        [("a", draw(rng), True)],
        [
            ("h", "tanh", ["a"]),
            ("c", "checkpoint", ["h"]),
            ("d", "mul", ["c", "a"]),
            ("e", "checkpoint", ["d"]),
            ("out", "sum", ["e"]),
        ],
        ["out"],
    )


def checkpoint_branch(rng: np.random.Generator) -> Graph:
    """The re-entrant node on one branch of a diamond, its input a leaf used again."""
    return Graph(
        [("a", draw(rng), True), ("b", draw(rng), True)],
        [
            ("c", "checkpoint", ["a"]),
            ("d", "tanh", ["b"]),
            ("e", "mul", ["c", "d"]),
            ("f", "mul", ["e", "a"]),
            ("out", "sum", ["f"]),
        ],
        ["out"],
    )


def random_graph(rng: np.random.Generator, steps: int, leaves: int = 3) -> Graph:
    """A random graph of elementwise ops on (2, 3) tensors: each step takes one or two
    earlier tensors (a constant leaf among them), every loose end added into the output."""
    made = [(f"x{i}", draw(rng), True) for i in range(leaves)] + [("k", draw(rng), False)]
    names = [n for n, _, _ in made]
    body: list = []
    used: set[str] = set()
    for i in range(steps):
        op = str(rng.choice(["add", "sub", "mul", "mul", "tanh"]))
        k = 1 if op == "tanh" else 2
        args = [str(a) for a in rng.choice(names, size=k)]
        body.append((f"t{i}", op, args))
        used.update(args)
        names.append(f"t{i}")
    ends = [n for n in names if n not in used and n != "k"]
    total = ends[0]
    for j, end in enumerate(ends[1:]):
        body.append((f"u{j}", "add", [total, end]))
        total = f"u{j}"
    body.append(("out", "sum", [total]))
    return Graph(made, body, ["out"])


def mixed_graph(rng: np.random.Generator, steps: int, leaves: int = 3) -> Graph:
    """A larger random graph mixing every kind at once (the hidden checks' own): fan-in,
    a tensor used twice by one step, steps whose backward returns None for their input,
    a constant leaf k, and two roots (the output, and a drawn step below it). It always
    holds a node that receives only None and has the constant k as its *first* input,
    before an input that requires grad and has a gradient of its own: that node must
    still count down every input that requires grad (``(None,) * len(v.inputs)``: as
    many Nones as inputs, not as parents)."""
    made = [(f"x{i}", draw(rng), True) for i in range(leaves)] + [("k", draw(rng), False)]
    names = [n for n, _, _ in made]
    body: list = []
    used: set[str] = set()
    for i in range(steps):
        op = str(rng.choice(["add", "sub", "mul", "mul", "tanh", "none_backward"]))
        k = 1 if op in ("tanh", "none_backward") else 2
        args = [str(a) for a in rng.choice(names, size=k)]
        body.append((f"t{i}", op, args))
        used.update(args)
        names.append(f"t{i}")
    graph = _summed(made, body, names, used)
    back = reverse(graph, [np.ones(())])
    targets = [n for n in names if graph.requires[n] and back.grads.get(n) is not None]
    target = str(rng.choice(targets))
    body += [("g0", "mul", ["k", target]), ("g1", "none_backward", ["g0"])]
    names += ["g0", "g1"]
    used.update(["k", target, "g0"])
    graph = _summed(made, body, names, used)
    below = [n for n, _, _ in body if graph.requires[n] and n != "g1"]
    return Graph(graph.leaves, graph.steps, ["out", str(rng.choice(below))])


def _summed(made: list, body: list, names: list[str], used: set[str]) -> Graph:
    """``made`` and ``body`` with every loose end added into ``out`` (its only root)."""
    ends = [n for n in names if n not in used and n != "k"]
    steps = list(body)
    total = ends[0]
    for j, end in enumerate(ends[1:]):
        steps.append((f"u{j}", "add", [total, end]))
        total = f"u{j}"
    steps.append(("out", "sum", [total]))
    return Graph(made, steps, ["out"])


# -- task 4.1 -----------------------------------------------------------------------------


@dataclass(frozen=True)
class CountsExpected:
    """Each vertex's count (None: not a key, as for a vertex no root reaches)."""

    graph: Graph
    counts: list[int | None]


def count_case(label: Text, graph: Graph, shown: bool = True) -> Case:
    """count_dependencies from the graph's roots; ``shown=False`` leaves the graph out of
    the label (a drawn graph: a label never changes with the seed)."""
    counts = expected_counts(graph)
    inputs = graph.wire()
    roots = ", ".join(f"vertex({r})" for r in graph.roots) if shown else "roots"
    text = tr(
        f"{say(label)}: count_dependencies([{roots}])",
        f"{say(label)}：count_dependencies([{roots}])",
    ) + (tr(f" for {graph.text()}", f"，图为 {graph.text()}") if shown else "")
    return Case(text, inputs, CountsExpected(graph, [counts.get(v) for v in graph.vertices]))


@dataclass(frozen=True)
class ChainExpected:
    """A long chain of ``n`` nodes after one leaf."""

    n: int
    histogram: list
    leaf_grad: float | None = None


def chain_count_case(n: int, short: int = 300) -> Case:
    label = tr(
        f"count_dependencies on a chain of {n:,} nodes (x → … → out), and its call depth on "
        f"a chain of {short}",
        f"在 {n:,} 个节点的链（x → … → out）上运行 count_dependencies，并检查它在 {short} "
        "个节点的链上的调用深度",
    )
    return Case(label, {"n": n, "short": short}, ChainExpected(n, sorted([[0, 1], [1, n]])))


def chain_backward_case(n: int, short: int = 300) -> Case:
    label = tr(
        f"backward_pass from the end of a chain of {n:,} nodes (each hands its gradient on), "
        f"and its call depth on a chain of {short}",
        f"从 {n:,} 个节点的链（每个节点把梯度传下去）的末端运行 backward_pass，并检查它在 "
        f"{short} 个节点的链上的调用深度",
    )
    return Case(label, {"n": n, "short": short}, ChainExpected(n, [[1, n + 1]], 1.0))


# -- task 4.2 -----------------------------------------------------------------------------


@dataclass(frozen=True)
class EngineExpected:
    """What ``programs.engine`` must see."""

    graph: Graph
    grads: list[np.ndarray | None]  # per vertex (the graph's order)
    hooks: list[tuple[str, str]]
    hook_inputs: list[np.ndarray | None]
    released: list[bool]  # per node
    retain_graph: bool
    passes: int
    repeats: int
    chain: bool
    create_graph: bool = False


def engine_case(
    label: Text,
    graph: Graph,
    rng: np.random.Generator,
    *,
    hooks: Sequence[tuple[str, str]] = (),
    retain_graph: bool = False,
    passes: int = 1,
    repeats: int = 1,
    chain: bool = False,
    shown: bool = True,
) -> Case:
    """backward_pass on ``graph`` from random seeds (of each root's shape); ``shown=False``
    leaves the graph out of the label (see ``count_case``)."""
    values = graph.forward()
    seeds = [draw(rng, np.shape(values[r]), 2.0) for r in graph.roots]
    back = reverse(graph, seeds, hooks)
    released = [n in back.ran and not retain_graph for n in graph.nodes]
    inputs = {
        **graph.wire(),
        "seeds": seeds,
        "nodes": graph.nodes,
        "hooks": [list(h) for h in hooks],
        "retain_graph": retain_graph,
        "passes": passes,
        "repeats": repeats,
        "chain": chain,
    }
    expected = EngineExpected(
        graph,
        [back.grads[v] for v in graph.vertices],
        list(hooks),
        back.hook_inputs,
        released,
        retain_graph,
        passes,
        repeats,
        chain,
    )
    extra = ""
    if hooks and not shown:
        extra += tr(
            f"; {len(hooks)} hooks on drawn tensors", f"；随机选取的张量上有 {len(hooks)} 个钩子"
        )
    elif hooks:
        none = tr("a hook returning None", "一个返回 None 的钩子")
        extra += tr("; hooks: ", "；钩子：") + ", ".join(
            f"{n}.register_hook({'lambda g: g * 2' if k == 'double' else none})" for n, k in hooks
        )
    if retain_graph:
        extra += tr("; retain_graph=True", "；retain_graph=True")
    if passes == 2:
        extra += tr(
            "; then a second backward_pass through the same graph",
            "；然后对同一个图再运行一次 backward_pass",
        )
    if repeats > 1:
        extra += tr(
            f"; the same graph built {repeats} times, all kept alive",
            f"；同一个图构建了 {repeats} 次，全部保持存活",
        )
    if len(graph.roots) > 1 and shown:
        extra += tr("; roots [", "；根节点 [") + ", ".join(graph.roots) + "]"
    elif len(graph.roots) > 1:
        extra += tr(f"; {len(graph.roots)} roots", f"；{len(graph.roots)} 个根节点")
    text = tr(
        f"{say(label)}: {graph.text() if shown else 'backward_pass'}{extra}",
        f"{say(label)}：{graph.text() if shown else 'backward_pass'}{extra}",
    )
    return Case(text, inputs, expected)


def count_row(label: Text, make: Callable, shown: bool = True) -> Callable:
    """A row of ``count_case`` on the graph ``make(rng)`` draws."""
    return lambda rng: count_case(label, make(rng), shown)


def engine_row(label: Text, make: Callable, shown: bool = True, **options: Any) -> Callable:
    """A row of ``engine_case`` on the graph ``make(rng)`` draws."""
    return lambda rng: engine_case(label, make(rng), rng, shown=shown, **options)


@dataclass(frozen=True)
class KeptExpected:
    """``.grad`` of each named tensor (leaves, and steps that ``retain_grad()``)."""

    names: list[str]
    grads: list[np.ndarray]


def kept_case(
    label: Text, graph: Graph, rng: np.random.Generator, names: list[str], passes: int
) -> Case:
    """``out.backward(g, retain_graph=True)`` ``passes`` times: leaves (and the named steps,
    which ``retain_grad()``) hold ``passes`` times their gradient."""
    values = graph.forward()
    seeds = [draw(rng, np.shape(values[graph.roots[0]]), 2.0)]
    back = reverse(graph, seeds)
    grads = [np.asarray(back.grads[n]) * passes for n in names]
    steps = [n for n in names if n in graph.nodes]
    inputs = {**graph.wire(), "seeds": seeds, "names": names, "passes": passes}
    del inputs["order"]
    text = tr(f"{say(label)}: {graph.text()}; ", f"{say(label)}：{graph.text()}; ")
    text += "".join(f"{n}.retain_grad(); " for n in steps)
    text += f"{graph.roots[0]}.backward(g, retain_graph=True)"
    text += tr(f" {passes} times", f"，共 {passes} 次") if passes > 1 else ""
    return Case(text, inputs, KeptExpected(names, grads))


def tanh_chain(rng: np.random.Generator, n: int) -> Graph:
    """x → tanh → … → tanh (n times) → sum."""
    steps = [(f"t{i}", "tanh", [f"t{i - 1}" if i else "x"]) for i in range(n)]
    return Graph([("x", draw(rng), True)], [*steps, ("out", "sum", [f"t{n - 1}"])], ["out"])


@dataclass(frozen=True)
class SecondExpected:
    first: np.ndarray
    second: np.ndarray
    function: str
    through_seed: bool = False  # differentiated with respect to grad_outputs w


SECOND_FORMS: dict[
    str, tuple[str, Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], np.ndarray]]
] = {
    "cube": ("x ** 3", lambda x: 3 * x**2, lambda x: 6 * x),
    "tanh": (
        "x.tanh()",
        lambda x: 1 - np.tanh(x) ** 2,
        lambda x: -2 * np.tanh(x) * (1 - np.tanh(x) ** 2),
    ),
    "exp": ("x * x.exp()", lambda x: (1 + x) * np.exp(x), lambda x: (2 + x) * np.exp(x)),
}


def second_order_case(
    rng: np.random.Generator,
    function: str,
    shape: tuple[int, ...] = (5,),
    through_seed: bool = False,
) -> Case:
    """g = grad(f(x).sum(), x, create_graph=True), then grad(g.sum(), x); or, with
    ``through_seed``, g = grad(f(x), x, w, create_graph=True) for a w that requires grad
    (g = w·f'(x), jvp's trick), then grad(g.sum(), w) = f'(x): the engine must keep the
    seed's graph."""
    expr, first, second = SECOND_FORMS[function]
    x = draw(rng, shape, 2.0)
    if through_seed:
        w = draw(rng, shape, 2.0)
        label = tr(
            f"g = grad({expr}, x, w, create_graph=True) for a w that requires grad, then "
            f"grad(g.sum(), w), for x and w of shape {shape}",
            f"对一个需要梯度的 w，先求 g = grad({expr}, x, w, create_graph=True)，再求 "
            f"grad(g.sum(), w)，x 和 w 的形状为 {shape}",
        )
        expected = SecondExpected(w * first(x), first(x), expr, True)
        return Case(label, {"function": function, "x": x, "w": w}, expected)
    label = tr(
        f"g = grad(({expr}).sum(), x, create_graph=True), then grad(g.sum(), x), for x of "
        f"shape {shape}",
        f"先求 g = grad(({expr}).sum(), x, create_graph=True)，再求 grad(g.sum(), x)，x 的形状"
        f"为 {shape}",
    )
    return Case(label, {"function": function, "x": x}, SecondExpected(first(x), second(x), expr))


# -- task 4.3 -----------------------------------------------------------------------------


@dataclass(frozen=True)
class AccumulateExpected:
    values: list[np.ndarray]
    requires_grad: bool
    preset: bool = False  # t.grad set beforehand: the first call sums too


def accumulate_case(
    rng: np.random.Generator,
    count: int,
    shape: tuple[int, ...] = (2, 3),
    preset: bool = False,
    requires_grad: bool = False,
) -> Case:
    grads = [draw(rng, shape) for _ in range(count)]
    start = draw(rng, shape) if preset else None
    total = np.zeros(shape) if start is None else start.copy()
    values = []
    for g in grads:
        total = total + g
        values.append(np.array(total))  # a 0-d array too, as the program sends
    times = tr("once", "一次") if count == 1 else tr(f"{count} times", f"{count} 次")
    label = tr(
        f"accumulate(t, g) {times} as backward() calls it (keep_grad: g a copy that only t "
        f"holds), each g of shape {shape}",
        f"像 backward() 那样调用 accumulate(t, g) {times}（keep_grad：g 是只有 t 持有的副本），"
        f"每个 g 的形状为 {shape}",
    )
    if preset:
        label += tr(", t.grad set beforehand", "，事先设置了 t.grad")
        label += (
            tr(" (a recorded copy of a leaf)", "（一个被记录的叶子节点副本）")
            if requires_grad
            else ""
        )
    if requires_grad:
        label += tr(
            ", each g requiring grad (as with create_graph=True)",
            "，每个 g 都需要梯度（如同 create_graph=True 时）",
        )
    inputs = {"grads": grads, "preset": start, "requires_grad": requires_grad}
    return Case(label, inputs, AccumulateExpected(values, requires_grad, preset))


@dataclass(frozen=True)
class AliasExpected:
    a_grad: np.ndarray
    b_grad: np.ndarray


def alias_case(rng: np.random.Generator, passes: int, shape: tuple[int, ...] = (2, 3)) -> Case:
    a, b = draw(rng, shape), draw(rng, shape)
    times = tr("once", "一次") if passes == 1 else tr(f"{passes} times", f"{passes} 次")
    label = tr(
        f"c = a + b, then backward_pass from c.sum() (a seed of 1, retain_graph=True, "
        f"deliver=keep_grad, which calls accumulate) {times} (a and b of shape {shape}): "
        "Add's backward hands one gradient object to both, keep_grad each a copy of its own",
        f"c = a + b，然后从 c.sum() 运行 backward_pass（种子为 1，retain_graph=True，"
        f"deliver=keep_grad，它会调用 accumulate）{times}（a 和 b 的形状为 {shape}）：Add 的"
        "反向函数把同一个梯度对象交给两者，keep_grad 给每个各一份自己的副本",
    )
    grad = np.full(shape, float(passes))
    return Case(label, {"a": a, "b": b, "passes": passes}, AliasExpected(grad, grad.copy()))


# -- task 4.4 -----------------------------------------------------------------------------


@dataclass(frozen=True)
class SeedExpected:
    data: np.ndarray
    dtype: str
    differentiable: bool = False  # the gradient requires grad: so must what seed returns


@dataclass(frozen=True)
class SeedRefused:
    """``seed`` must raise a RuntimeError naming each of ``naming``."""

    naming: list[str]


def seed_case(
    rng: np.random.Generator,
    shape: tuple[int, ...],
    dtype: str = "float64",
    gradient_shape: tuple[int, ...] | None = None,
    gradient_dtype: str = "float64",
    implicit: bool = False,
    requires_grad: bool = False,
) -> Case:
    """``seed(out, gradient)``; ``requires_grad``: the gradient requires grad (as a
    ``grad_outputs`` of ``autograd.grad(..., create_graph=True)``, which jvp's double-backward
    trick differentiates through), so what seed returns must too."""
    output = draw(rng, shape)
    gradient = (
        None
        if implicit
        else draw(rng, gradient_shape if gradient_shape is not None else shape, 2.0)
    )
    inputs = {
        "output": output,
        "dtype": dtype,
        "gradient": gradient,
        "gradient_dtype": gradient_dtype,
        "requires_grad": requires_grad,
    }
    out = tr(f"out of shape {shape}", f"out 的形状为 {shape}") + (
        "" if dtype == "float64" else tr(f", {dtype}", f"，数据类型为 {dtype}")
    )
    if implicit:
        label = tr(f"seed(out, None) for {out}", f"seed(out, None)，其中 {out}")
        if int(np.prod(shape)) != 1:
            return Case(
                label
                + tr(
                    ": only a one-element output has an implicit gradient",
                    "：只有单元素的输出才有隐式梯度",
                ),
                inputs,
                SeedRefused([]),
            )
        return Case(label, inputs, SeedExpected(np.ones(shape), dtype))
    g_shape = np.shape(gradient)
    label = tr(
        f"seed(out, gradient) for {out} and a gradient of shape {g_shape}",
        f"seed(out, gradient)，其中 {out}，gradient 的形状为 {g_shape}",
    )
    if gradient_dtype != dtype:
        label += tr(f", {gradient_dtype}", f"，数据类型为 {gradient_dtype}")
    if requires_grad:
        label += tr(
            ", requiring grad (as grad_outputs with create_graph=True)",
            "，且需要梯度（如同 create_graph=True 时的 grad_outputs）",
        )
    if g_shape != shape:
        return Case(
            label
            + tr(
                f": an error naming both shapes as tuples, {tuple(g_shape)} and {tuple(shape)}",
                f"：应当报错，并以元组写出两个形状 {tuple(g_shape)} 和 {tuple(shape)}",
            ),
            inputs,
            SeedRefused([str(tuple(g_shape)), str(tuple(shape))]),
        )
    data = np.asarray(np.asarray(gradient, dtype=gradient_dtype), dtype=dtype)
    return Case(label, inputs, SeedExpected(data.astype(np.float64), dtype, requires_grad))


# -- task 4.5 -----------------------------------------------------------------------------

# A script: ["probe"] (is x * 2 recorded here?), ["call", mode] (set_grad_enabled(mode) as a
# call), ["with", context, mode, body], ["decorated", context, mode, body] (a function
# decorated with context(), or set_grad_enabled(mode), run once), ["raise", a "with" item]
# (its block ends by raising, caught outside it). Context: no_grad, enable_grad, set_grad_enabled.
GradModeScript = list

# the script's items, written as the Python they stand for
PROBE = ["probe"]


def no_grad(*body: list) -> list:
    """``with no_grad(): body``."""
    return ["with", "no_grad", None, list(body)]


def enable_grad(*body: list) -> list:
    """``with enable_grad(): body``."""
    return ["with", "enable_grad", None, list(body)]


def set_grad_enabled(mode: bool, *body: list) -> list:
    """``with set_grad_enabled(mode): body``."""
    return ["with", "set_grad_enabled", mode, list(body)]


def decorated(item: list) -> list:
    """A "with" item's body as a function decorated with its context, called once."""
    return ["decorated", *item[1:]]


def raising(item: list) -> list:
    """A "with" item whose block ends by raising, caught outside it."""
    return ["raise", item]


def call(mode: bool) -> list:
    """``set_grad_enabled(mode)`` as a plain call."""
    return ["call", mode]


def simulate(
    script: GradModeScript, mode: bool = True, probes: list | None = None
) -> tuple[bool, list]:
    """The probes PyTorch's rules give: a context sets its mode on entry and puts back the
    one from before on exit (exceptions included); a decorated function runs in the context
    each call; set_grad_enabled(mode) as a call sets the mode."""
    probes = [] if probes is None else probes
    for item in script:
        kind = item[0]
        if kind == "probe":
            probes.append(mode)
        elif kind == "call":
            mode = bool(item[1])
        elif kind == "raise":
            simulate([item[1]], mode, probes)  # the mode from before comes back
        else:
            name, value, body = item[1], item[2], item[3]
            inner = {"no_grad": False, "enable_grad": True}.get(name, value)
            simulate(body, inner, probes)
    return mode, probes


def script_text(script: GradModeScript) -> str:
    parts = []
    for item in script:
        kind = item[0]
        if kind == "probe":
            parts.append("probe")
        elif kind == "call":
            parts.append(f"set_grad_enabled({item[1]})")
        elif kind == "raise":
            inner = script_text([item[1]])
            parts.append(f"try: {{{inner[:-1]}; raise}}}} except: pass")
        else:
            ctx = (
                f"set_grad_enabled({item[2]})" if item[1] == "set_grad_enabled" else f"{item[1]}()"
            )
            if kind == "with":
                parts.append(f"with {ctx}: {{{script_text(item[3])}}}")
            else:
                parts.append(f"@{ctx} def f(): {{{script_text(item[3])}}}; f()")
    return "; ".join(parts)


def _context_text(item: list) -> str:
    """A "with" (or "decorated") item's context as written: "no_grad()",
    "set_grad_enabled(True)"."""
    return f"set_grad_enabled({item[2]})" if item[1] == "set_grad_enabled" else f"{item[1]}()"


@dataclass(frozen=True)
class Place:
    """Where a probe stands in its script, for the words of a wrong probe: ``after`` the
    block that ended just before it ("" if none; ``raised``: it ended by raising), with
    ``own`` (the block's own mode) and ``nested`` (the mode from before a block of the same
    kind nested in it, where there is one: what a remembered mode shared by both gives);
    else ``called`` (set_grad_enabled(mode) called just before it), else ``inside`` (the
    innermost block around it, or decorated function)."""

    after: str = ""
    raised: bool = False
    own: bool | None = None
    nested: bool | None = None
    called: str = ""
    inside: str = ""


def _nested_before(item: list, mode: bool) -> bool | None:
    """The mode from before the last block of ``item``'s own kind nested in ``item`` (run
    in ``mode``), or None where there is none."""
    found = [None]

    def walk(script: list, mode: bool) -> bool:
        for it in script:
            kind = it[0]
            if kind == "call":
                mode = bool(it[1])
            elif kind == "raise":
                walk([it[1]], mode)
            elif kind in ("with", "decorated"):
                if it[1] == item[1]:
                    found[0] = mode
                walk(it[3], {"no_grad": False, "enable_grad": True}.get(it[1], it[2]))
        return mode

    walk(item[3], {"no_grad": False, "enable_grad": True}.get(item[1], item[2]))
    return found[0]


def probe_places(script: GradModeScript) -> list:
    """Each probe's ``Place``, in the order the probes run."""
    places: list = []

    def walk(script: list, mode: bool, inside: str) -> None:
        before: Place | None = None
        for item in script:
            kind = item[0]
            if kind == "probe":
                places.append(before or Place(inside=inside))
            elif kind == "call":
                mode = bool(item[1])
                before = Place(called=f"set_grad_enabled({item[1]})")
            else:
                block = item[1] if kind == "raise" else item
                own = bool({"no_grad": False, "enable_grad": True}.get(block[1], block[2]))
                ctx = _context_text(block)
                text = (
                    tr(f"@{ctx} function", f"@{ctx} 函数")
                    if block[0] == "decorated"
                    else tr(f"with {ctx} block", f"with {ctx} 块")
                )
                walk(block[3], own, text)
                before = Place(text, kind == "raise", own, _nested_before(block, mode))

    walk(script, True, "")
    return places


@dataclass(frozen=True)
class GradModeExpected:
    probes: list[bool]
    script: str
    places: list = field(default_factory=list)  # each probe's Place


def grad_mode_case(script: GradModeScript, rng: np.random.Generator | None = None) -> Case:
    """The script, probing with an x of ones (or of data drawn from ``rng``)."""
    _, probes = simulate(script)
    text = script_text(script)
    label = tr(
        f"{text} (probe: is x * 2 recorded, for x that requires grad?)",
        f"{text}（probe：对需要梯度的 x，x * 2 是否被记录？）",
    )
    data = np.ones(2) if rng is None else draw(rng, (2,))
    expected = GradModeExpected(probes, text, probe_places(script))
    return Case(label, {"script": script, "data": data}, expected)


# -- task 4.6 -----------------------------------------------------------------------------


@dataclass(frozen=True)
class FunctionalExpected:
    output: Any  # an array, or a list of them (a tuple of outputs)
    result: Any  # an array, or (nested) lists of them
    what: str
    create_graph: bool = False


FUNCTION_TEXT = {
    "quadratic": "f(x) = 0.5 * x @ (A @ x) + b @ x",
    "two_d": "f(v) = v[0] * v[0] * v[1] + (v[0] * v[1]).exp()",
    "tanh_layer": "f(x) = (A @ x).tanh()",
    "cubic": "f(x) = (x * x * x).sum() + b @ x",
    "pair": "f(x, y) = (x * y, (x + y).tanh())",
    "pair_sum": "f(x, y) = (x * x * y).sum()",
    "cross": "f(x, y) = (x * x) @ (A @ y)",
    "cross_layer": "f(x, y) = (x * (A @ y)).tanh()",
    "cross_pair": "f(x, y) = (x * (A @ y), y.tanh())",
}
CROSS = ("cross", "cross_layer", "cross_pair")  # two inputs of their own shapes, through A


def _two_d(v: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    x, y = v
    e = np.exp(x * y)
    value = x * x * y + e
    grad = np.array([2 * x * y + y * e, x * x + x * e])
    hess = np.array(
        [[2 * y + y * y * e, 2 * x + e + x * y * e], [2 * x + e + x * y * e, x * x * e]]
    )
    return value, grad, hess


def functional_case(
    rng: np.random.Generator,
    what: str,
    function: str,
    n: int = 3,
    create_graph: bool = False,
    m: int | None = None,
) -> Case:
    """jvp(f, x, u) or hessian(f, x), with their closed forms; with ``create_graph=True``
    the results must require grad. For the ``CROSS`` functions x has shape (n,) and y
    (m,), n + 1 unless given."""
    if function in CROSS:
        case = _cross_case(rng, what, function, n, n + 1 if m is None else m)
    else:
        case = _functional_case(rng, what, function, n)
    if not create_graph:
        return case
    expected = FunctionalExpected(case.expected.output, case.expected.result, what, True)
    label = case.label.replace(")", ", create_graph=True)", 1)
    return Case(label, {**case.inputs, "create_graph": True}, expected)


def _functional_case(rng: np.random.Generator, what: str, function: str, n: int) -> Case:
    if function in ("pair", "pair_sum"):
        return _pair_case(rng, what, function, n)
    size = 2 if function == "two_d" else n
    x, u = draw(rng, (size,)), draw(rng, (size,))
    a, b = draw(rng, (size, size)), draw(rng, (size,))
    if function == "quadratic":
        sym = (a + a.T) / 2
        value, grad, hess = 0.5 * x @ a @ x + b @ x, sym @ x + b, sym
    elif function == "two_d":
        value, grad, hess = _two_d(x)
    elif function == "cubic":
        value, grad, hess = np.sum(x**3) + b @ x, 3 * x**2 + b, np.diag(6 * x)
    else:
        value = np.tanh(a @ x)
        grad = hess = None
    if what == "jvp":
        result = (1 - value**2) * (a @ u) if function == "tanh_layer" else np.asarray(grad @ u)
        expected = FunctionalExpected(np.asarray(value), result, what)
        label = tr(
            f"jvp(f, x, u) for {FUNCTION_TEXT[function]}, x and u of shape ({size},)",
            f"jvp(f, x, u)，其中 {FUNCTION_TEXT[function]}，x 和 u 的形状为 ({size},)",
        )
    else:
        expected = FunctionalExpected(None, hess, what)
        label = tr(
            f"hessian(f, x) for {FUNCTION_TEXT[function]}, x of shape ({size},)",
            f"hessian(f, x)，其中 {FUNCTION_TEXT[function]}，x 的形状为 ({size},)",
        )
    inputs = {"what": what, "function": function, "x": x, "a": a, "b": b, "u": u}
    return Case(label, inputs, expected)


def _pair_case(rng: np.random.Generator, what: str, function: str, n: int) -> Case:
    """A function of two inputs (x, y): jvp of ``pair`` (two outputs too), or the Hessian of
    ``pair_sum``, as PyTorch nests them (``[i][j]``: output or input i, input j)."""
    x, y, ux, uy = (draw(rng, (n,)) for _ in range(4))
    inputs = {"what": what, "function": function, "x": [x, y], "a": None, "b": None}
    shapes = tr(f"x and y of shape ({n},)", f"x 和 y 的形状为 ({n},)")
    if what == "jvp":
        t = np.tanh(x + y)
        output = [x * y, t]
        result = [y * ux + x * uy, (1 - t * t) * (ux + uy)]
        label = tr(
            f"jvp(f, (x, y), (u, w)) for {FUNCTION_TEXT[function]}, {shapes}",
            f"jvp(f, (x, y), (u, w))，其中 {FUNCTION_TEXT[function]}，{shapes}",
        )
        return Case(label, {**inputs, "u": [ux, uy]}, FunctionalExpected(output, result, what))
    hess = [[np.diag(2 * y), np.diag(2 * x)], [np.diag(2 * x), np.zeros((n, n))]]
    label = tr(
        f"hessian(f, (x, y)) for {FUNCTION_TEXT[function]}, {shapes}",
        f"hessian(f, (x, y))，其中 {FUNCTION_TEXT[function]}，{shapes}",
    )
    return Case(label, inputs, FunctionalExpected(None, hess, what))


def _cross_case(rng: np.random.Generator, what: str, function: str, n: int, m: int) -> Case:
    """A function of x of shape (n,) and y of shape (m,) whose cross terms go through a
    drawn A of shape (n, m): with n != m every per-input result has a shape of its own (a
    Hessian's H[0][1] is (n, m), H[1][0] is (m, n)), and with n == m the cross blocks are
    still not symmetric, so results in another order or blocks as [j][i] show."""
    x, y, ux, uy = draw(rng, (n,)), draw(rng, (m,)), draw(rng, (n,)), draw(rng, (m,))
    a = draw(rng, (n, m))
    inputs = {"what": what, "function": function, "x": [x, y], "a": a, "b": None}
    shapes = tr(
        f"x of shape ({n},), y of shape ({m},), A of shape ({n}, {m})",
        f"x 的形状为 ({n},)，y 的形状为 ({m},)，A 的形状为 ({n}, {m})",
    )
    if what == "hessian":
        cross = 2 * x[:, None] * a  # ∂/∂y of ∂f/∂x = 2 x (A y)
        hess = [[np.diag(2 * a @ y), cross], [cross.T, np.zeros((m, m))]]
        label = tr(
            f"hessian(f, (x, y)) for {FUNCTION_TEXT[function]}, {shapes}",
            f"hessian(f, (x, y))，其中 {FUNCTION_TEXT[function]}，{shapes}",
        )
        return Case(label, inputs, FunctionalExpected(None, hess, what))
    ay, change = a @ y, ux * (a @ y) + x * (a @ uy)  # J (u, w) of x * (A @ y)
    if function == "cross_layer":
        t = np.tanh(x * ay)
        output, result = t, (1 - t * t) * change
    else:
        t = np.tanh(y)
        output, result = [x * ay, t], [change, (1 - t * t) * uy]
    label = tr(
        f"jvp(f, (x, y), (u, w)) for {FUNCTION_TEXT[function]}, {shapes}",
        f"jvp(f, (x, y), (u, w))，其中 {FUNCTION_TEXT[function]}，{shapes}",
    )
    label += tr(", u and w of the shapes of x and y", "，u 和 w 的形状分别与 x 和 y 相同")
    return Case(label, {**inputs, "u": [ux, uy]}, FunctionalExpected(output, result, what))

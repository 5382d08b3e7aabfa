"""Watching the engine work: the stack-and-counter table of one backward pass (given code, §4).

``trace_backward(output, names)`` runs *your* engine — ``count_dependencies`` (task 4.1)
and ``backward_pass`` (task 4.2) — on a small graph and writes down what it does, one row
per vertex popped: the table you would draw by hand. ``format_trace`` prints it:

    step  pop  gradient  sends     stack    out  z  y  x  w
       0                           out        0  1  2  2  1
       1  out  1         z 1, y 1  z          —  0  1  2  1
       2  z    1         y 3, w 4  y w        —  —  0  2  0
    ...

It only watches. The counters start as your ``count_dependencies`` returns them. Each pop
is seen through ``backward_pass``'s ``deliver`` argument, and what a node sends to its
inputs through ``Node.backward``, which is wrapped for the length of the call (and put back
after, even on an error). From those two the table counts down as Kahn's algorithm does:
each contribution sent takes 1 off its vertex's counter, and a vertex whose counter reaches
0 is ready, on top of the stack. So the stack column is the set of vertices Kahn's algorithm
has made ready, in the order they became ready: what a right engine's stack holds, though it
may hold them in another order (it may push a node's inputs in reverse, or use a queue, and
still be right: any order of ready vertices is). It is worked out from the counts, not read
from your engine: a vertex your engine popped early shows up in the pop column (marked
below) before it ever appears in the stack column.

Two marks point at bugs: "early!" on a vertex popped while its counter was above 0 (it had
not received all of its gradient), "again!" on a vertex popped twice. A counter that goes
below 0 received more contributions than ``count_dependencies`` counted.

Gradients are recorded, not stored (``deliver`` writes no ``.grad``), so the trace needs
neither task 4.3 nor 4.4. Vertices are named by ``names`` (name → Tensor; a node takes the
name of the tensor it made); any other vertex by its node's name (``MulBackward``).

``watch_memory`` watches the same way, and reads the memory in use at each pop (§7).
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..ch02_tensor.factories import ones_like
from ..ch02_tensor.function import Node
from .dependencies import count_dependencies, vertex
from .engine import backward_pass, keep_grad


@dataclass
class Step:
    """One row of the table: the state after one vertex was popped and had run."""

    popped: str | None  # the vertex popped (None in row 0, before any pop)
    grad: Any = None  # its gradient, as the engine passed it to ``deliver``
    early: bool = False  # popped while contributions were still missing (a bug)
    again: bool = False  # popped a second time (a bug)
    sent: list[tuple[str, Any]] = field(default_factory=list)  # (vertex, contribution)
    stack: list[str] = field(default_factory=list)  # ready, not yet popped; top last
    counts: dict[str, int] = field(default_factory=dict)  # contributions still awaited
    done: set[str] = field(default_factory=set)  # the vertices popped so far


def trace_backward(
    output: Any, names: dict[str, Any] | None = None, retain_graph: bool = False
) -> list[Step]:
    """Run ``backward_pass`` from ``output`` (seeded with ones) and return its steps; row 0
    is the state before the first pop. ``retain_graph`` is passed on."""
    root = vertex(output)
    start = count_dependencies([root])
    label = _namer(names or {}, start)
    events: list[tuple[str, Any, Any]] = []  # ("pop", vertex, grad), ("ran", node, grads)

    original = Node.backward

    def watched(node: Node, grad_output: Any, create_graph: bool = False) -> tuple:
        grads = original(node, grad_output, create_graph)
        events.append(("ran", node, grads))
        return grads

    def deliver(v: Any, grad: Any) -> None:
        events.append(("pop", v, grad))

    Node.backward = watched  # type: ignore[method-assign]
    try:
        backward_pass([root], [ones_like(output)], retain_graph, False, deliver)
    finally:
        Node.backward = original  # type: ignore[method-assign]

    counts = {label(v): n for v, n in start.items()}
    stack = [label(root)] if counts.get(label(root)) == 0 else []
    done: set[str] = set()
    steps = [Step(None)]
    for kind, v, value in events:
        if kind == "pop":
            _snapshot(steps[-1], stack, counts, done)
            name = label(v)
            if name in stack:
                stack.remove(name)
            steps.append(Step(name, value, counts.get(name, 0) > 0, name in done))
            done.add(name)
            continue
        for x, g in zip(v.inputs, value):  # what the node just popped sent to its inputs
            if not x.requires_grad:
                continue
            parent = label(vertex(x))
            if g is not None:
                steps[-1].sent.append((parent, g))
            counts[parent] = counts.get(parent, 0) - 1
            if counts[parent] == 0 and parent not in done:
                stack.append(parent)
    _snapshot(steps[-1], stack, counts, done)
    return steps


def format_trace(steps: list[Step], digits: int = 4) -> str:
    """The steps as a plain-text table: one row per step, one counter column per vertex (in
    the order of row 0). A counter is "—" once its vertex has been popped with all of its
    contributions; a number there (or below 0) means contributions arrived late, or more
    than were counted. The stack lists the ready vertices, top last."""
    order = list(steps[0].counts)

    def number(t: Any) -> str:
        if t is None:
            return "None"
        value = t.item() if t.numel() == 1 else t.tolist()
        return f"{value:.{digits}g}" if isinstance(value, float) else str(value)

    def counter(s: Step, v: str) -> str:
        n = s.counts.get(v)
        return "—" if v in s.done and n == 0 else str(n)

    header = ["step", "pop", "gradient", "sends", "stack", *order]
    rows = [header]
    for i, s in enumerate(steps):
        pop = "" if s.popped is None else s.popped
        pop += " (early!)" if s.early else " (again!)" if s.again else ""
        rows.append(
            [
                str(i),
                pop,
                "" if s.popped is None else number(s.grad),
                ", ".join(f"{p} {number(g)}" for p, g in s.sent),
                " ".join(s.stack) if s.stack else "(empty)",
                *(counter(s, v) for v in order),
            ]
        )
    widths = [max(len(r[k]) for r in rows) for k in range(len(header))]
    right = {0, *range(5, len(header))}  # numbers right-aligned
    lines = []
    for r in rows:
        cells = [c.rjust(widths[k]) if k in right else c.ljust(widths[k]) for k, c in enumerate(r)]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def _snapshot(step: Step, stack: list[str], counts: dict[str, int], done: set[str]) -> None:
    step.stack, step.counts, step.done = list(stack), dict(counts), set(done)


def _namer(names: dict[str, Any], vertices: dict) -> Callable[[Any], str]:
    """Vertex → its name: the name of its tensor (a leaf) or of the tensor it made (a node);
    an unnamed node is called by its node's name, numbered if that name repeats."""
    known = {id(vertex(t)): name for name, t in names.items()}
    taken = set(known.values())
    for v in vertices:
        if id(v) not in known:
            base = v.name() if isinstance(v, Node) else "leaf"
            name, k = base, 1
            while name in taken:
                name, k = f"{base}.{k}", k + 1
            known[id(v)] = name
            taken.add(name)
    return lambda v: known.get(id(v)) or repr(v)


def watch_memory(
    build: Callable[[], Any], retain_graph: bool = False, keep_grads: bool = False
) -> tuple[int, list[int]]:
    """Memory during one backward pass, as Python's ``tracemalloc`` sees it (NumPy reports
    its arrays to it). ``build()`` makes the forward graph and returns its one-element
    output; then your engine runs from it, as ``backward()`` would (``.grad`` is kept), and
    the memory in use is read each time a vertex is popped.

    Returns ``(forward, samples)``: the bytes the forward graph holds, and the bytes in use
    above that at each pop. ``keep_grads=True`` keeps every gradient the engine passes
    (the engine that frees nothing); ``retain_graph`` is passed on."""
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        output = build()
        forward = tracemalloc.get_traced_memory()[0] - before
        samples: list[int] = []
        kept: list[Any] = []

        def deliver(v: Any, grad: Any) -> None:
            keep_grad(v, grad)
            if keep_grads:
                kept.append(grad)
            samples.append(tracemalloc.get_traced_memory()[0] - before - forward)

        backward_pass([vertex(output)], [ones_like(output)], retain_graph, False, deliver)
        return forward, samples
    finally:
        if started:
            tracemalloc.stop()

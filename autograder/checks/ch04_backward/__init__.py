"""Public checks for chapter 4 — the stack-and-counter backward engine.

Every graph is built in the child from a ``cases.Graph`` (leaves and steps by name, made
with the given ``Tensor`` and its operators); the parent knows each edge from the same
lists, so it counts the dependencies and runs the backward pass itself (``cases.reverse``:
each step's local vector-Jacobian product by the complex step, the hooks where the engine
must apply them). Nothing the student wrote computes an expectation.

- 4.1 ``count_dependencies``: small graphs (x * x, a diamond, a wide fan, two roots sharing
  a subgraph, a root below another root, a root given twice, constants, a branch no root
  reaches) against the parent's counts, by vertex; a 100,000-node chain of hand-built nodes
  (a recursive walk cannot), and the call depth on a 300-node chain (at most 100: no
  recursion).
- 4.2 ``backward_pass`` (which runs 4.1, so ``requires`` it), called with a ``deliver``
  that records what each vertex receives: each vertex delivered once with its complete
  gradient (roots in either order, a root given twice: the sum of its seeds; a backward
  returning None still counts down, a node that gets only None passes None on), no leaf's
  ``.grad`` touched; hooks (a
  returned Tensor replaces the gradient, None keeps it; a root's hook too); saved tensors
  released unless ``retain_graph``, a second pass through a released graph refused; the
  gradients of a 40-node chain freed as the pass goes; the same bits for the same graph
  built again; a 100,000-node chain; a local backward that runs ``backward_pass`` again;
  ``create_graph=True`` second derivatives of x³, tanh and x·eˣ against closed forms. A
  check requires only earlier tasks: these programs make their own seeds and switch grad
  mode with chapter 2's given ``_set_grad_enabled`` (no 4.4, no 4.5).
- 4.3 ``accumulate`` directly (values, a new Tensor each time, the gradients passed left
  alone, differentiable after every call when they require grad, the sums recorded), and
  ``c = a + b`` and ``backward_pass`` with the given ``keep_grad`` twice (4.1, 4.2): one
  gradient object reaches both a and b.
- 4.4 ``seed`` directly: ones for one-element outputs in their dtype, a given gradient
  used also for a one-element output, refusals (naming both shapes, () against (1,) too),
  casts; the result requires grad exactly when the given gradient does (jvp's trick
  differentiates through it; an implicit seed is a constant); and ``out.backward()`` end to
  end, leaves and ``retain_grad()`` tensors keeping ``.grad`` (4.1, 4.2, 4.3).
- 4.5 grad-mode scripts (nested, exceptions, decorators, ``set_grad_enabled`` as a call)
  against the rules run on a plain flag; each class entered in a mode equal to its own and
  nested in itself (state kept on the instance), and an exception must come out of the
  ``with`` (``__exit__`` returns nothing true).
- 4.6 ``jvp`` and ``hessian`` against closed forms, with a tuple of two inputs (and two
  outputs for jvp) too; results detached, or differentiable with ``create_graph=True``
  (on functions whose result depends on x); they run the engine (4.1, 4.2, 4.4, 4.5).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...harness.api import Case, Check, compare, show
from ...harness.table import Field, Fields, Rows, Rules, first, record, row
from . import programs
from .cases import (
    PROBE,
    AccumulateExpected,
    ChainExpected,
    CountsExpected,
    EngineExpected,
    FunctionalExpected,
    GradModeExpected,
    KeptExpected,
    SeedRefused,
    accumulate_case,
    alias_case,
    call,
    chain_backward_case,
    chain_count_case,
    checkpoint_branch,
    checkpointed,
    constants,
    count_row,
    decorated,
    diamond,
    enable_grad,
    engine_row,
    functional_case,
    grad_mode_case,
    kept_case,
    layer,
    leaf_root,
    long_and_short,
    no_grad,
    none_contributions,
    raising,
    random_graph,
    reachable,
    repeated_root,
    root_above_root,
    root_below_root,
    said,
    second_order_case,
    seed_case,
    set_grad_enabled,
    shared,
    tanh_chain,
    twice,
    wide,
)

RTOL, ATOL = 1e-9, 1e-11  # float64 throughout: the expectations are exact to rounding
LIVE = 3  # gradients of earlier vertices still alive at one delivery, on a chain
HELD = 1  # nodes still holding saved tensors when a chain's leaf is delivered (the last
# node may release after handing its gradient on)


# -- task 4.1 -------------------------------------------------------------------------------


def _count_hint(expected: CountsExpected, name: str, want: int, got: Any) -> str:
    graph = expected.graph
    reached = set(reachable(graph))
    users = {n for n in graph.nodes if n in reached and name in graph.edges(n)}
    number = isinstance(got, int)
    hints = [  # (when, what it means), the first that holds
        (
            number and got > want and len(set(graph.roots)) < len(graph.roots),
            "a root listed twice is still one vertex: walk it once, e.g. counts = "
            "{v: 0 for v in roots}; stack = list(counts)",
        ),
        (
            name in graph.roots and got == 0 and want,
            "a root that another root reaches waits for its contributions too",
        ),
        (
            number and got == len(users) < want,
            f"{name} is used twice by one node: count one contribution per edge, so "
            "x * x counts 2, not one per parent",
        ),
        (
            number and got < want,
            "count every edge into a vertex, also an edge into a vertex you have already "
            "seen: only pushing it on the stack happens once",
        ),
        (number and got > want, "expand each vertex once: keep a set of the vertices seen"),
    ]
    return next((f" ({words})" for holds, words in hints if holds), "")


def count_verdict(case: Case, received: Any) -> str | None:
    """4.1: the dict holds exactly the reachable vertices, each with its edge count."""
    expected: CountsExpected = case.expected
    if isinstance(received, dict) and received.get("type_name") not in (None, "dict"):
        return (
            f"count_dependencies returned a {received['type_name']}, not a dict "
            "{vertex: number of contributions}"
        )
    problem = record(received, ("counts", "strangers"))
    if problem:
        return problem
    if received["strangers"]:
        kinds = ", ".join(sorted(set(received["strangers"])))
        return (
            f"count_dependencies returned {len(received['strangers'])} key(s) that are no "
            f"vertex of the graph (a {kinds}): the keys are the vertices reachable from the "
            "roots, vertex(x) for each tensor that requires grad (its grad_fn, or the leaf "
            "itself)"
        )
    graph = expected.graph
    for name, want, got in zip(graph.vertices, expected.counts, received["counts"]):
        who = f"counts[{said(name, graph)}]"
        if want is None and got is not None:
            return f"{who} is {got}, but no root reaches it: only reachable vertices are keys"
        if want is not None and got is None:
            return (
                f"{who} is missing: every vertex reachable from the roots is a key (the roots "
                "with 0 unless another root reaches them, and the leaves that require grad)"
            )
        if got != want:
            hint = _count_hint(expected, name, want, got)
            return f"{who}: expected {want}, received {got}{hint}"
    return None


def _depth_problem(received: dict, what: str) -> str | None:
    where = received.get("recursed")
    who = f"{where} calls itself" if isinstance(where, str) and where else "it recurses"
    if received.get("problem") == "recursion":
        return (
            f"{what} raised RecursionError on a long chain: {who}. Use a loop and an "
            "explicit stack (a list you append to and pop from), as in the notebook"
        )
    if where:
        return (
            f"{what} went more than {programs.ROOM} calls deep on a chain of 300 nodes: "
            f"{who}, and a chain of a million nodes would not fit in the call stack. Use a "
            "loop and an explicit stack"
        )
    return None


def _histogram_text(pairs: Any) -> str:
    try:
        return ", ".join(f"{n:,} × {value}" for value, n in pairs)
    except (TypeError, ValueError):
        return show(pairs)


def chain_count_verdict(case: Case, received: Any) -> str | None:
    """4.1 on a long chain: no recursion; the root 0, every other vertex 1."""
    expected: ChainExpected = case.expected
    problem = record(received, ()) or _depth_problem(received, "count_dependencies")
    if problem:
        return problem
    if received.get("histogram") != expected.histogram:
        return (
            f"on a chain of {expected.n:,} nodes the counts must be 1 × 0 (the root) and "
            f"{expected.n:,} × 1 (every other node, and the leaf); received "
            f"{_histogram_text(received.get('histogram'))}"
        )
    return None


# -- task 4.2 -------------------------------------------------------------------------------


def _visits(expected: EngineExpected, received: dict) -> str | None:
    """Each vertex with a gradient delivered once, nothing else delivered, no .grad touched."""
    graph = expected.graph
    if received["strangers"]:
        return (
            f"deliver(v, grad) was called {received['strangers']} time(s) for a v that is no "
            "vertex of the graph: call it with the vertex itself (a Node, or a leaf Tensor)"
        )
    if received.get("touched"):
        return (
            f"{received['touched'][0]}.grad changed during backward_pass, whose deliver only "
            "recorded: the engine hands each gradient to deliver(v, grad) and touches no "
            ".grad itself (backward()'s deliver accumulates into .grad; autograd.grad's "
            "leaves it alone)"
        )
    for name, want, calls in zip(graph.vertices, expected.grads, received["deliveries"]):
        who = said(name, graph)
        if want is None and calls:
            return (
                f"{who} was delivered a gradient, but every contribution to it was None: a "
                "vertex with no gradient runs no hook, no backward and delivers nothing"
            )
        if want is not None and calls == 0 and _leaves_only(graph, expected, received):
            return (
                f"{who} was never delivered its gradient, and neither was any other node: "
                "deliver(v, grad) was called for the leaves only. Call it for every vertex "
                "with a gradient, nodes too (autograd.grad of a non-leaf, and retain_grad(), "
                "read a node's gradient there)"
            )
        if want is not None and calls == 0:
            return (
                f"{who} never received its gradient (deliver(v, grad) was not called for it): "
                "count it down for every input that requires grad (a None gradient counts as "
                "arrived too), and push it when its count reaches 0"
            )
        if calls > 1:
            return (
                f"{who} ran {calls} times: a vertex runs once, when all of its contributions "
                "have arrived (its count is 0), never when the first one does"
            )
    return None


def _leaves_only(graph: Any, expected: EngineExpected, received: dict) -> bool:
    """Whether every leaf with a gradient was delivered and no node with one was."""
    nodes = set(graph.nodes)
    rows = [
        (name in nodes, calls)
        for name, want, calls in zip(graph.vertices, expected.grads, received["deliveries"])
        if want is not None
    ]
    leaves = [calls for is_node, calls in rows if not is_node]
    return bool(leaves) and all(leaves) and not any(c for is_node, c in rows if is_node)


def _gradients(expected: EngineExpected, received: dict) -> str | None:
    """What each hook received, then each vertex's gradient, from the roots down."""
    for (name, _), want, got in zip(expected.hooks, expected.hook_inputs, received["hook_inputs"]):
        if len(got) != 1:
            return f"the hook registered on {name} ran {len(got)} times, not once"
        problem = compare(got[0], want, rtol=RTOL, atol=ATOL, path=f"what {name}'s hook received")
        if problem:
            return problem + " (a hook sees the vertex's complete gradient, once)"
    graph = expected.graph
    for name, want, got in reversed(list(zip(graph.vertices, expected.grads, received["grads"]))):
        path = f"the gradient delivered to {said(name, graph)}"
        problem = want is not None and compare(got, want, rtol=RTOL, atol=ATOL, path=path)
        if not problem:
            continue
        if any(op == "checkpoint" for _, op, _ in graph.steps):
            problem += (
                " (Checkpoint.backward runs autograd.grad, a whole backward_pass, while yours "
                "is in the middle of its loop: keep each pass's state in its own local "
                "variables, shared with no other call)"
            )
        hooked = (name, "double") in expected.hooks and got is not None
        if hooked and np.allclose(got * 2, want, rtol=RTOL, atol=ATOL):
            problem += (
                f" ({name}'s hook returned a new gradient, which replaces the one it was given)"
            )
        return problem
    return None


def _released(expected: EngineExpected, received: dict) -> str | None:
    """Each node released once its backward has run, unless retain_graph; a second pass."""
    why = "retain_graph=True" if expected.retain_graph else "its backward never ran"
    for name, want, got in zip(expected.graph.nodes, expected.released, received["released"]):
        if want and not got:
            return (
                f"{name}.grad_fn.ctx is not None after backward_pass(retain_graph=False): "
                "free each node's saved tensors (v.release()) once its backward has run"
            )
        if got and not want:
            return (
                f"{name}.grad_fn was released although {why}: release a node only after its "
                "backward has run, and only without retain_graph"
            )
    if expected.passes != 2:
        return None
    second = received.get("second")
    if not expected.retain_graph:
        if isinstance(second, dict) and second.get("error") == "RuntimeError":
            return None
        return (
            "a second backward_pass through a graph released by the first did not raise "
            "(PyTorch's RuntimeError): release each node unless retain_graph"
        )
    if isinstance(second, dict) and "error" in second:  # what kit.raised returned
        return (
            f"a second backward_pass after retain_graph=True raised {second['error']}: "
            f"{second['message']!r}"
        )
    if not isinstance(second, list):
        return f"a second backward_pass after retain_graph=True raised: {show(second)}"
    for name, want, got in zip(expected.graph.vertices, expected.grads, second):
        path = f"the second pass's gradient of {said(name, expected.graph)}"
        problem = want is not None and compare(got, want, rtol=RTOL, atol=ATOL, path=path)
        if problem:
            return problem
    return None


def _memory(expected: EngineExpected, received: dict) -> str | None:
    """On a chain: nodes released, and gradients freed, as the pass goes."""
    held, live = received.get("held_at_leaf", 0), received.get("live_peak", 0)
    if expected.chain and held > HELD:
        return (
            f"{held} of the chain's {len(expected.graph.nodes)} nodes still held their saved "
            "tensors when x, the last vertex, received its gradient: release each node "
            "(v.release()) as soon as its backward has run, not after the loop, so memory "
            "falls as backward proceeds"
        )
    if expected.chain and live > LIVE:
        return (
            f"{live} gradients of vertices that had already run were still alive at one "
            "delivery, on a chain of 40 nodes: take each gradient out of pending "
            "(pending.pop(v)) when its vertex runs, so it can be freed"
        )
    return None


def _repeated(expected: EngineExpected, received: dict) -> str | None:
    """The same graph built again gives the same bits."""
    if expected.repeats <= 1:
        return None
    runs = received.get("repeated") or []
    for k, run in enumerate(runs[1:], 2):
        for name, a, b in zip(expected.graph.vertices, runs[0], run):
            if a is not None and not (b is not None and np.array_equal(a, b)):
                return (
                    f"in build {k} of the same graph, the gradient delivered to "
                    f"{said(name, expected.graph)} differs from build 1's in its last bits: "
                    "the order in which contributions are added depends on the objects' ids "
                    "(a set, or a sort by id). Keep the ready vertices in a list"
                )
    return None


def engine_verdict(case: Case, received: Any) -> str | None:
    """4.2: each vertex delivered once, complete, after its hooks; release; determinism."""
    if isinstance(received, dict) and "freed_first" in received:
        return (
            f"backward_pass raised RuntimeError: {received['freed_first']!r} in its first "
            "pass: a node's saved tensors were freed before its backward ran. Release a node "
            "after its backward (v.backward reads its saved tensors), and run each node once"
        )
    problem = record(received, ("deliveries", "grads", "released", "strangers"))
    for part in (_visits, _gradients, _released, _memory, _repeated):
        problem = problem or part(case.expected, received)
    return problem


def kept_verdict(case: Case, received: Any) -> str | None:
    """4.2 through ``out.backward()``: leaves keep their gradient, retain_grad is honoured."""
    expected: KeptExpected = case.expected
    problem = record(received, ("grads",))
    if problem:
        return problem
    for name, want, got in zip(expected.names, expected.grads, received["grads"]):
        if got is None:
            return (
                f"{name}.grad is None after backward: the engine delivers each leaf's gradient "
                "(deliver(v, grad), which adds it to .grad) and never frees a leaf"
            )
        problem = compare(got, want, rtol=RTOL, atol=ATOL, path=f"{name}.grad")
        if problem:
            return problem
    return None


def chain_backward_verdict(case: Case, received: Any) -> str | None:
    """4.2 on a long chain: no recursion; each vertex once; the gradient 1; all released."""
    expected: ChainExpected = case.expected
    problem = record(received, ()) or _depth_problem(received, "backward_pass")
    if problem:
        return problem
    if received.get("histogram") != expected.histogram:
        return (
            f"on a chain of {expected.n:,} nodes each vertex must be delivered once; received "
            f"deliveries {_histogram_text(received.get('histogram'))}"
        )
    problem = compare(
        received.get("leaf_grad"), np.array(1.0), rtol=RTOL, atol=ATOL, path="x's gradient"
    )
    if problem:
        return problem
    if received.get("released") != expected.n:
        return (
            f"{expected.n - (received.get('released') or 0):,} of the chain's {expected.n:,} "
            "nodes were not released after backward_pass(retain_graph=False)"
        )
    return None


second_order_verdict = Fields(  # g (the first derivative), recorded; then its derivative
    [Field("first", "g", RTOL, ATOL)],
    keys=("first_requires_grad",),
    then=first(
        Rules.of(
            (
                lambda case, got: (
                    case.expected.through_seed
                    and (got.get("seed_lost") or not got["first_requires_grad"])
                ),
                "g = grad(y, x, w, create_graph=True), for a w that requires grad, is not "
                "recorded as a function of w (grad(g.sum(), w) finds no path to w): the seed's "
                "graph was lost (detached, or copied into a new Tensor) before or inside "
                "backward_pass. Keep each seed as it is: pending[root] = seed",
            ),
            (
                lambda case, got: not got["first_requires_grad"],
                "g, returned with create_graph=True, does not require grad: nothing recorded how "
                "it was computed. Pass create_graph on to each local backward "
                "(v.backward(grad, create_graph)) and add contributions with Tensor operations",
            ),
        ),
        Fields([Field("second", "grad(g.sum(), x)", 1e-8, 1e-10)]),
    ),
)


# -- task 4.3 -------------------------------------------------------------------------------


def accumulate_verdict(case: Case, received: Any) -> str | None:
    expected: AccumulateExpected = case.expected
    problem = record(received, ("values", "new_object", "inputs_intact"))
    if problem:
        return problem
    if not received["inputs_intact"]:
        return (
            "accumulate changed a gradient it was given (or the .grad it replaced): add out of "
            "place, tensor.grad + grad, never into .data: the engine hands one gradient "
            "object to several tensors"
        )
    for i, (got, want) in enumerate(zip(received["values"], expected.values), 1):
        problem = compare(got, want, rtol=RTOL, atol=ATOL, path=f"t.grad after call {i}")
        if problem:
            return problem
    for i, fresh in enumerate(received["new_object"], 1):
        if not fresh:
            return (
                f"after call {i}, t.grad is the Tensor it was before (or a gradient passed "
                "in): the sum must be a new Tensor (tensor.grad + grad), written nowhere in "
                "place"
            )
    each = received.get("each_requires_grad") or []
    if expected.requires_grad and not all(each):
        return (
            f"with gradients that require grad (create_graph=True), t.grad after call "
            f"{each.index(False) + 1 if False in each else 1} does not require grad: it was "
            "copied off the graph (detach(), or a new Tensor of the data). Keep the gradient "
            "itself the first time, and add with Tensor operations"
        )
    summed = len(expected.values) > 1 or expected.preset
    if expected.requires_grad and summed and not received.get("recorded"):
        return (
            "with gradients that require grad (create_graph=True), t.grad must be recorded as "
            "their sum: add with Tensor operations, not on .data arrays"
        )
    return None


ONE_OBJECT = (
    "; a.grad and b.grad are one object: adding into one changed the other. Accumulate out "
    "of place (tensor.grad + grad)"
)
_alias_values = Fields(
    [Field("a_grad", "a.grad", RTOL, ATOL), Field("b_grad", "b.grad", RTOL, ATOL)]
)


def alias_verdict(case: Case, received: Any) -> str | None:
    """a.grad and b.grad; where one is wrong and they are one object, that is why."""
    problem = record(received, ("a_grad", "b_grad", "same_object"))
    if problem:
        return problem
    problem = _alias_values(case, received)
    return problem + ONE_OBJECT if problem and received["same_object"] else problem


# -- task 4.4 -------------------------------------------------------------------------------


def _seed_refused(expected: SeedRefused, received: Any) -> str | None:
    if not isinstance(received, dict) or received.get("error") is None:
        data = received.get("data") if isinstance(received, dict) else received
        return f"seed returned {show(data)}; expected a RuntimeError"
    if received["error"] != "RuntimeError":
        return f"raised {received['error']}: {received['message']!r}; expected a RuntimeError"
    missing = [n for n in expected.naming if n not in received["message"]]
    if missing:
        return (
            f"raised RuntimeError: {received['message']!r}, which should name both shapes "
            f"as tuples, the way .shape prints them ({' and '.join(expected.naming)}); it "
            f"lacks {', '.join(missing)}"
        )
    return None


def seed_verdict(case: Case, received: Any) -> str | None:
    expected = case.expected
    if isinstance(expected, SeedRefused):
        return _seed_refused(expected, received)
    if isinstance(received, dict) and "error" in received:
        return f"raised {received['error']}: {received['message']!r}; expected a gradient"
    problem = record(received, ("type_name", "shape", "dtype", "data"))
    if problem:
        return problem
    if received["type_name"] != "Tensor":
        return f"seed returned a {received['type_name']}, not a Tensor"
    if tuple(received["shape"]) != expected.data.shape:
        return f"seed returned shape {tuple(received['shape'])}, not out's {expected.data.shape}"
    if received["dtype"] != expected.dtype:
        return (
            f"seed returned dtype {received['dtype']}, not out's {expected.dtype}: cast the "
            "gradient to out's dtype"
        )
    data = received["data"]
    if isinstance(data, np.ndarray) and data.size and not data.any():
        return (
            "seed returned zeros: every gradient below would be zero. ∂out/∂out is 1, a "
            "tensor of ones"
        )
    problem = compare(data, expected.data, rtol=1e-7, atol=0.0, path="the seed")
    if problem:
        return problem
    if not expected.differentiable and received.get("requires_grad"):
        return (
            "what seed returned requires grad, but no gradient that requires grad was given: "
            "it was computed from out (out * 0 + 1?). ∂out/∂out is a constant: ones_like(out)"
        )
    if expected.differentiable and not received.get("requires_grad"):
        return (
            "the gradient given requires grad, and what seed returned does not: it was "
            "copied off its graph (a new Tensor of its data, or detach()). With "
            "create_graph=True the result must stay differentiable in the gradient given "
            "(jvp's double-backward trick needs it): return the gradient itself (or .to(dtype))"
        )
    return None


# -- task 4.5 -------------------------------------------------------------------------------


def grad_mode_verdict(case: Case, received: Any) -> str | None:
    expected: GradModeExpected = case.expected
    if isinstance(received, list) and "swallowed" in received:
        return (
            "an exception raised inside a with block did not come out of it: __exit__ "
            "returned a true value, which tells Python to swallow the exception. Put the mode "
            "back and return nothing (None)"
        )
    if not isinstance(received, list) or len(received) != len(expected.probes):
        return f"expected {len(expected.probes)} probes, received {show(received)}"
    for i, (got, want) in enumerate(zip(received, expected.probes), 1):
        if got != want:
            said_ = "recorded" if got else "not recorded"
            wanted = "recorded" if want else "not recorded"
            return (
                f"probe {i} of {len(expected.probes)}: x * 2 was {said_}, expected {wanted}. "
                "On the way in, self.previous = _set_grad_enabled(mode); on the way out, "
                "_set_grad_enabled(self.previous): the mode from before, even after an exception"
            )
    return None


# -- task 4.6 -------------------------------------------------------------------------------


TUPLES = (
    " (with a tuple of inputs, or a function returning a tuple, the results are tuples too, "
    "as in PyTorch: jvp's J u has one item per output, hessian's [i][j] is the block of "
    "inputs i and j)"
)


def functional_verdict(case: Case, received: Any) -> str | None:
    """4.6: the values (named as PyTorch nests them), then detached or differentiable."""
    expected: FunctionalExpected = case.expected
    problem = record(received, ()) or _functional_problem(case, received)
    if problem:
        tuples = isinstance(expected.result, list) and isinstance(received, dict)
        return problem + TUPLES if tuples else problem
    if expected.create_graph and received.get("detached"):
        return (
            f"{received['detached'][0]} does not require grad, with create_graph=True: it "
            "must be differentiable (record both backward passes with create_graph=True, and "
            "detach nothing: _finish(value, create_graph))"
        )
    if not expected.create_graph and received.get("attached"):
        return (
            f"{received['attached'][0]} requires grad, without create_graph=True: detach the "
            "results (_finish(value, create_graph)), as PyTorch does, so they carry no graph"
        )
    return None


_JVP = Fields(
    [
        Field("output", "jvp(...)[0], f(x)", RTOL, ATOL),
        Field("result", "jvp(...)[1], J u", 1e-8, 1e-10),
    ]
)
_HESSIAN = Fields([Field("result", "hessian(f, x)", 1e-8, 1e-10)])


def _functional_problem(case: Case, received: dict) -> str | None:
    """A Tensor where PyTorch returns one (a tuple where it returns a tuple); the values."""
    single = not isinstance(case.expected.result, list)  # one Tensor in (and, for jvp, out)
    if case.expected.what == "jvp":
        if received.get("type_name") != "tuple":
            return f"jvp returned a {received.get('type_name')}, not the tuple (func(x), J u)"
        if single and isinstance(received.get("result"), list):
            return (
                "jvp(...)[1], J u, is a tuple: for one Tensor input and a function returning "
                "one Tensor, return the Tensor itself (grads[0]), as PyTorch does"
            )
        return _JVP(case, received)
    if single and received.get("type_name") in ("tuple", "list"):
        return (
            f"hessian returned a {received['type_name']}: for one Tensor input return the "
            "Tensor itself (grads[0]), as PyTorch does; a tuple is for a tuple of inputs"
        )
    return _HESSIAN(case, received)


# -- the checks -----------------------------------------------------------------------------

# A check requires only tasks before its own (4.1 < 4.2 < ... < 4.6, the notebook's order),
# so that a student whose earlier tasks pass sees each task's check pass as they go.
ENGINE = ("4.1",)  # backward_pass runs count_dependencies
THROUGH_ENGINE = ("4.1", "4.2")  # backward_pass, delivering with the given keep_grad
END_TO_END = ("4.1", "4.2", "4.3")  # out.backward(): seed (4.4), backward_pass, accumulate
FUNCTIONAL = ("4.1", "4.2", "4.4", "4.5")  # jvp and hessian: grad under enable_grad


NONE_LABEL = (
    "backwards that return None (NoneBackward.apply(t) is 2·t, and its backward returns "
    "None for t, which requires grad)"
)


P = PROBE  # is x * 2 recorded here?
GRAD_MODE_SCRIPTS = [
    [P, no_grad(P), P],
    [no_grad(P, enable_grad(P), P), P],
    [no_grad(no_grad(P), P), P],
    [raising(no_grad(P, raising(enable_grad(P)), P)), P],
    [decorated(no_grad(P)), P, decorated(no_grad(P))],
    [no_grad(decorated(enable_grad(P)), P)],
    [call(False), P, call(True), P],
    [set_grad_enabled(False, P), P, no_grad(set_grad_enabled(True, P), P)],
    [decorated(set_grad_enabled(False, P)), P],
    [enable_grad(P), P, raising(enable_grad(P)), P],
    [set_grad_enabled(True, P), P, no_grad(set_grad_enabled(False, P), P), P],
    [no_grad(enable_grad(enable_grad(P), P), P), P],
    [
        set_grad_enabled(False, set_grad_enabled(True, P), P),
        P,
        raising(set_grad_enabled(True, P)),
        P,
    ],
]

CHECKS = [
    Check(
        "4.1",
        "count_dependencies(roots)",
        Rows(
            [
                count_row("x used twice by one node", twice),
                count_row("a diamond", diamond),
                count_row("a used by 6 nodes", lambda rng: wide(rng, 6)),
                count_row("two roots sharing a subgraph", shared),
                count_row("a root that another root reaches", root_below_root),
                count_row("the same root twice", lambda rng: repeated_root(rng, diamond)),
                count_row("a leaf that is a root too", leaf_root),
                count_row("constants, and a branch no root reaches", constants),
                count_row(NONE_LABEL, none_contributions),
                count_row("short and long paths to b", long_and_short),
                count_row("a layer", layer),
                count_row("a random graph", lambda rng: random_graph(rng, 10)),
            ]
        ),
        programs.counts,
        count_verdict,
    ),
    Check(
        "4.1",
        "count_dependencies on chains of up to 100,000 nodes",
        lambda rng: [chain_count_case(1_000), chain_count_case(100_000)],
        programs.chain_counts,
        chain_count_verdict,
    ),
    Check(
        "4.2",
        "backward_pass: each vertex once, with its complete gradient",
        Rows(
            [
                engine_row("x used twice by one node", twice),
                engine_row("a diamond", diamond),
                engine_row("short and long paths to b", long_and_short),
                engine_row("a used by 6 nodes", lambda rng: wide(rng, 6)),
                engine_row("two roots sharing a subgraph", shared),
                engine_row("a root that another root reaches", root_below_root),
                engine_row("a root that another root reaches, listed last", root_above_root),
                engine_row("the same root twice", lambda rng: repeated_root(rng, diamond)),
                engine_row("a leaf that is a root too", leaf_root),
                engine_row("constants, and a branch no root reaches", constants),
                engine_row(NONE_LABEL, none_contributions),
                engine_row("a layer", layer),
                engine_row("a random graph", lambda rng: random_graph(rng, 12)),
            ]
        ),
        programs.engine,
        engine_verdict,
        requires=ENGINE,
    ),
    Check(
        "4.2",
        "backward_pass: hooks",
        Rows(
            [
                engine_row("a hook that returns 2g", diamond, hooks=[("b", "double")]),
                engine_row(
                    "hooks on a leaf and a node", diamond, hooks=[("a", "observe"), ("c", "double")]
                ),
                engine_row(
                    "two hooks on one tensor",
                    long_and_short,
                    hooks=[("b", "double"), ("b", "observe")],
                ),
                engine_row("a hook on a leaf used twice", twice, hooks=[("x", "double")]),
                engine_row("a hook on the root", diamond, hooks=[("out", "double")]),
            ]
        ),
        programs.engine,
        engine_verdict,
        requires=ENGINE,
    ),
    Check(
        "4.2",
        "backward_pass: retain_graph and freeing",
        Rows(
            [
                engine_row("released after use", layer),
                engine_row("released, then used again", diamond, passes=2),
                engine_row("kept", diamond, retain_graph=True, passes=2),
                engine_row(
                    "gradients freed as the pass goes, on a chain of 40 tanh (x → t0 = "
                    "x.tanh() → … → t39 → out = t39.sum())",
                    lambda rng: tanh_chain(rng, 40),
                    chain=True,
                    shown=False,
                ),
            ]
        ),
        programs.engine,
        engine_verdict,
        requires=ENGINE,
    ),
    Check(
        "4.2",
        "backward_pass: the same bits every time",
        Rows(
            [
                engine_row("a used by 8 nodes", lambda rng: wide(rng, 8), repeats=6),
                engine_row("a random graph", lambda rng: random_graph(rng, 14, 2), repeats=3),
            ]
        ),
        programs.engine,
        engine_verdict,
        requires=ENGINE,
    ),
    Check(
        "4.2",
        "backward_pass on chains of up to 100,000 nodes",
        lambda rng: [chain_backward_case(1_000), chain_backward_case(100_000)],
        programs.chain_backward,
        chain_backward_verdict,
        requires=ENGINE,
    ),
    Check(
        "4.2",
        "backward_pass inside a local backward (a node whose backward runs backward_pass)",
        Rows([engine_row("re-entrant", checkpointed), engine_row("re-entrant", checkpoint_branch)]),
        programs.engine,
        engine_verdict,
        requires=ENGINE,
    ),
    Check(
        "4.2",
        "create_graph=True: second derivatives",
        Rows(
            [
                row(second_order_case, "cube"),
                row(second_order_case, "tanh"),
                row(second_order_case, "exp", (2, 3)),
                row(second_order_case, "tanh", (4,), through_seed=True),
            ]
        ),
        programs.second_order,
        second_order_verdict,
        requires=ENGINE,
    ),
    Check(
        "4.3",
        "accumulate(tensor, grad)",
        Rows(
            [
                row(accumulate_case, 1),
                row(accumulate_case, 3),
                row(accumulate_case, 2, (4,), preset=True),
                row(accumulate_case, 2, requires_grad=True),
                row(accumulate_case, 1, (3,), requires_grad=True),
            ]
        ),
        programs.accumulate,
        accumulate_verdict,
    ),
    Check(
        "4.3",
        "c = a + b, backward twice",
        Rows(
            [
                row(alias_case, 1),
                row(alias_case, 2),
                row(alias_case, 3, (4,)),
            ]
        ),
        programs.aliasing,
        alias_verdict,
        requires=THROUGH_ENGINE,
    ),
    Check(
        "4.4",
        "seed(output, gradient)",
        Rows(
            [
                row(seed_case, (), implicit=True),
                row(seed_case, (1,), "float32", implicit=True),
                row(seed_case, (1, 1), implicit=True),
                row(seed_case, (2, 3), implicit=True),
                row(seed_case, (2, 3)),
                row(seed_case, (2, 3), gradient_shape=(3, 2)),
                row(seed_case, (1, 3), gradient_shape=(3,)),
                row(seed_case, (4,), gradient_dtype="float32"),
                row(seed_case, (2, 2), "float32", gradient_dtype="float64"),
                row(seed_case, ()),
                row(seed_case, (1,), gradient_shape=()),
                row(seed_case, (2, 3), requires_grad=True),
            ]
        ),
        programs.seed,
        seed_verdict,
    ),
    Check(
        "4.4",
        "out.backward(): leaves keep .grad, retain_grad()",
        Rows(
            [
                lambda rng: kept_case("a diamond", diamond(rng), rng, ["a", "b"], 1),
                lambda rng: kept_case("a layer, twice", layer(rng), rng, ["W", "x", "h"], 2),
            ]
        ),
        programs.kept,
        kept_verdict,
        requires=END_TO_END,
    ),
    Check(
        "4.5",
        "no_grad, enable_grad, set_grad_enabled",
        lambda rng: [grad_mode_case(s) for s in GRAD_MODE_SCRIPTS],
        programs.grad_mode,
        grad_mode_verdict,
    ),
    Check(
        "4.6",
        "functional.jvp",
        Rows(
            [
                row(functional_case, "jvp", "quadratic"),
                row(functional_case, "jvp", "two_d"),
                row(functional_case, "jvp", "tanh_layer"),
                row(functional_case, "jvp", "pair"),
                row(functional_case, "jvp", "quadratic", create_graph=True),
            ]
        ),
        programs.functional,
        functional_verdict,
        requires=FUNCTIONAL,
    ),
    Check(
        "4.6",
        "functional.hessian",
        Rows(
            [
                row(functional_case, "hessian", "quadratic"),
                row(functional_case, "hessian", "two_d"),
                row(functional_case, "hessian", "pair_sum"),
                row(functional_case, "hessian", "two_d", create_graph=True),
            ]
        ),
        programs.functional,
        functional_verdict,
        requires=FUNCTIONAL,
    ),
]

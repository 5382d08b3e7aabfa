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
- 4.3 ``accumulate`` as ``backward()`` calls it (through the given ``keep_grad``, which
  passes a copy of the gradient that only the tensor holds, so adding in place is allowed,
  as is a new sum; a preset ``.grad`` too): the values after each call; with gradients that
  require grad (create_graph), ``.grad`` requires grad after every call and is recorded as
  the sum of all of them (the gradient of ``t.grad.sum()`` with respect to each gradient
  passed, by the program's own reverse pass, is ones: ``.data +=`` keeps the first one's
  graph only); and ``c = a + b`` and ``backward_pass`` with the given ``keep_grad`` several
  times (4.1, 4.2): one gradient object reaches both a and b, each keeps its own sum.
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
  outputs for jvp) too, also of unequal shapes whose cross terms are not symmetric (each
  per-input result has a shape of its own: a Hessian's blocks as [j][i], or J u nested by
  the inputs, is named); results detached, or differentiable with ``create_graph=True``
  (on functions whose result depends on x); they run the engine (4.1, 4.2, 4.4, 4.5).

Every check first names a Tensor compared with == in the chapter's code where the run
raised at that line (``node in ready``: == on a Tensor is elementwise; ``compared_verdict``).

The words name the mistake, on the smallest case that shows it (issue 29); the fix is each
row's ``recipe``, shown on request. 4.2's program counts what ``Node.backward`` sent each
vertex before its first delivery, as ``trace_backward`` does, so a vertex popped early is
named with the contributions it had ("a was popped 2 times, first after 1 of its 2
contributions had arrived", on a diamond of scalars); 4.5's probes are named by their place
in the script (``cases.probe_places``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ...harness.api import Case, Check, Verdict, show
from ...harness.table import Field, Fields, Mistake, Rows, first, row, rules
from . import programs
from .cases import (
    PROBE,
    CountsExpected,
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
    expected_counts,
    functional_case,
    grad_mode_case,
    kept_case,
    layer,
    leaf_root,
    long_and_short,
    no_grad,
    none_contributions,
    none_returned,
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


# -- the table's forms, as this chapter writes them -----------------------------------------


@dataclass(frozen=True)
class Each(Field):
    """A "*" field whose i-th item is named ``name.format(of(case)[i])``: by default the
    case's vertices as the student names them ("y.grad_fn"), or calls counted from 1 (what
    the table's "{i}" cannot write); ``backwards``: judged from the roots' end."""

    rtol: float = RTOL
    atol: float = ATOL
    of: Callable[[Case], Sequence] = lambda c: [
        said(v, c.expected.graph) for v in c.expected.graph.vertices
    ]
    backwards: bool = False

    def items(self, case: Case, received: Any) -> list[Field] | str:
        names = [self.name.format(v) for v in self.of(case)]
        plain = Field(
            self.key,
            lambda case: names,
            self.rtol,
            self.atol,
            self.expected,
            self.tolerance,
            self.says,
        )
        items = plain.items(case, received)
        return items[::-1] if self.backwards and not isinstance(items, str) else items


def _kind(find: Callable[[Case, Any], tuple | None], kind: str) -> Callable[[Case, Any], Any]:
    """A rule's condition: what ``find`` found (kind, …), where it is of ``kind``: the rest."""
    return lambda c, g: (found := find(c, g)) and found[0] == kind and found[1:]


# -- task 4.1 -------------------------------------------------------------------------------


def _count_hint(expected: CountsExpected, name: str, want: int, got: Any) -> str:
    graph = expected.graph
    reached = set(reachable(graph))
    users = {n for n in graph.nodes if n in reached and name in graph.edges(n)}
    number = isinstance(got, int)
    hints = [  # (when, what it means), the first that holds
        (
            number and got > want and len(set(graph.roots)) < len(graph.roots),
            "the root listed twice was walked twice, and the edges below it counted twice: "
            "a root listed twice is still one vertex",
        ),
        (
            name in graph.roots and got == 0 and want,
            "it is a root, and another root reaches it: its count was left at 0, but it waits "
            "for its contributions too",
        ),
        (
            number and got == len(users) < want,
            f"{name} is used twice by one node and was counted once per parent: each edge is "
            "one contribution, and x * x is two edges",
        ),
        (
            number and got < want,
            f"{got} of its {want} edges were counted: an edge into a vertex seen before was "
            "not counted",
        ),
        (number and got > want, "a vertex was explored more than once, its edges counted again"),
    ]
    return next((f" ({words})" for holds, words in hints if holds), "")


def _counts(case: Case, received: dict) -> str | None:
    # code: which words fit a wrong count depends on the count received, more or fewer
    # (a mistake's formula gives one wrong value)
    expected: CountsExpected = case.expected
    for name, want, got in zip(expected.graph.vertices, expected.counts, received["counts"]):
        who = f"counts[{said(name, expected.graph)}]"
        if want is None and got is not None:
            return f"{who} is {got}, but no root reaches it: only reachable vertices are keys"
        if want is not None and got is None:
            return (
                f"{who} is missing: every vertex reachable from the roots is a key (the roots "
                "with 0 unless another root reaches them, and the leaves that require grad)"
            )
        if got != want:
            return f"{who}: expected {want}, received {got}{_count_hint(expected, name, want, got)}"
    return None


count_verdict = first(  # 4.1: exactly the reachable vertices, each with its edge count
    rules(
        (
            lambda c, g: isinstance(g, dict) and "leaf_read" in g,
            "count_dependencies read {got[leaf_read]} of the leaf {got[leaf]}, a root here: a "
            "leaf (a Tensor) has no {got[leaf_read]}; it is a vertex with no parents",
            "Find a vertex's parents with parents(v), which knows leaves",
        ),
        (
            lambda c, g: isinstance(g, dict) and g.get("type_name") not in (None, "dict"),
            "count_dependencies returned a {got[type_name]}, not a dict {{vertex: number of "
            "contributions}}",
        ),
    ),
    Fields(
        (),
        keys=("counts", "strangers"),
        before=rules(
            (
                lambda c, g: (
                    g["strangers"] and (len(g["strangers"]), ", ".join(sorted(set(g["strangers"]))))
                ),
                "count_dependencies returned {0} key(s) that are no vertex of the graph (a {1}): "
                "the keys are the vertices reachable from the roots, vertex(x) "
                "for each tensor that requires grad (its grad_fn, or the leaf itself)",
            )
        ),
        then=_counts,
    ),
)


def _who(got: dict) -> str:
    where = got.get("recursed")
    return f"{where} calls itself" if isinstance(where, str) and where else "it recurses"


def _depth(what: str) -> Verdict:
    """No recursion: the long chain's RecursionError, or more than ROOM calls on a short one."""
    return rules(
        (
            lambda c, g: g.get("problem") == "recursion" and (what, _who(g)),
            "{0} raised RecursionError on a long chain: {1}. Use a loop and an explicit stack (a "
            "list you append to and pop from), as in the notebook",
        ),
        (
            lambda c, g: g.get("recursed") and (what, _who(g), programs.ROOM),
            "{0} went more than {2} calls deep on a chain of 300 nodes: {1}, and a chain of a "
            "million nodes would not fit in the call stack. Use a loop and an explicit stack",
        ),
    )


def _histogram(case: Case, got: dict) -> tuple[str] | None:
    """The histogram received, in words, where it is not the expected one."""
    if got.get("histogram") == case.expected.histogram:
        return None
    try:
        return (", ".join(f"{n:,} × {value}" for value, n in got.get("histogram")),)
    except (TypeError, ValueError):
        return (show(got.get("histogram")),)


chain_count_verdict = Fields(  # 4.1 on a long chain: no recursion; the root 0, every other 1
    (),
    before=_depth("count_dependencies"),
    then=rules(
        (
            _histogram,
            "on a chain of {want.n:,} nodes the counts must be 1 × 0 (the root) and {want.n:,} × 1 "
            "(every other node, and the leaf); received {0}",
        )
    ),
)


# -- task 4.2 -------------------------------------------------------------------------------


def _delivery(case: Case, got: dict) -> tuple | None:
    """The first vertex delivered other than once with a gradient (never without one): (what
    went wrong, its name as the student says it, its deliveries)."""
    graph, nodes = case.expected.graph, set(case.expected.graph.nodes)
    rows = list(zip(graph.vertices, case.expected.grads, got["deliveries"]))
    leaves = [calls for v, want, calls in rows if want is not None and v not in nodes]
    reached = [calls for v, want, calls in rows if want is not None and v in nodes]
    leaves_only = bool(leaves) and all(leaves) and not any(reached)
    for name, want, calls in rows:
        if want is None and calls:
            return "unwanted", said(name, graph), calls
        if want is not None and calls == 0:
            return "leaves only" if leaves_only else "never", said(name, graph), calls
        if calls > 1:
            return "twice", said(name, graph), calls
    return None


def _early(case: Case, got: dict) -> tuple[str, int, int] | None:
    """The first vertex first popped (delivered) before all of its contributions had
    arrived, counted as the program counts them (what Node.backward sent): (its name, how
    many had arrived, how many it has). None on graphs with backwards that return None
    (a node that gets only None sends its None without a backward)."""
    graph = case.expected.graph
    arrived = got.get("arrived") if isinstance(got, dict) else None
    if any(op == "none_backward" for _, op, _ in graph.steps) or not isinstance(arrived, list):
        return None
    counts = expected_counts(graph)
    for name, k in zip(graph.vertices, arrived):
        n = counts.get(name, 0)
        if isinstance(k, int) and k < n:
            return said(name, graph), k, n
    return None


def _popped_twice(case: Case, got: dict) -> tuple | None:
    """A vertex delivered more than once: (name, times, what arrived before its first pop)."""
    found = _kind(_delivery, "twice")(case, got)
    if not found:
        return None
    early = _early(case, got)
    when = (
        f", first after {early[1]} of its {early[2]} contributions had arrived"
        if early and early[0] == found[0]
        else ""
    )
    return found[0], found[1], when


def _lost_among(case: Case, got: dict) -> tuple | None:
    """A vertex never delivered, and what its parents say went wrong: (its name, words)."""
    found = _kind(_delivery, "never")(case, got)
    if not found:
        return None
    graph, name = case.expected.graph, found[0]
    grads = dict(zip(graph.vertices, case.expected.grads))
    bare = name.removesuffix(".grad_fn")
    users = [n for n in reachable(graph) if n in graph.nodes and bare in graph.edges(n)]
    ops = {n: op for n, op, _ in graph.steps}
    silent = [n for n in users if grads.get(n) is None]
    if silent:
        return name, (
            f": {silent[0]}.grad_fn received only None, and its None never reached {name} as a "
            "contribution (a node that receives only None still passes None on, and each "
            "None counts as arrived)"
        )
    nones = [n for n in users if ops.get(n) == "none_backward"]
    if nones:
        return name, (
            f": {nones[0]}.grad_fn's backward returned None for {name}, and that None was not "
            "counted as a contribution arrived (a None still counts)"
        )
    return name, ": its count never reached 0 (each contribution, None too, counts it down)"


def _hook_runs(case: Case, got: dict) -> tuple[str, int, str] | None:
    """The first hook that ran other than once: (its tensor, how many times it ran, words
    for a root's)."""
    runs = zip(case.expected.hooks, got["hook_inputs"])
    found = next(((name, len(calls)) for (name, _), calls in runs if len(calls) != 1), None)
    if not found:
        return None
    root = found[0] in case.expected.graph.roots
    words = f" ({found[0]} is a root: its hooks run when it is popped, as any vertex's)"
    return (*found, words if root else "")


_VISITS = rules(  # each vertex with a gradient delivered once, nothing else, no .grad touched
    (
        lambda c, g: g["strangers"],
        "deliver was called {0} time(s) with something that is no vertex of the graph",
        "Call deliver with the vertex itself (a Node, or a leaf Tensor) and its gradient",
    ),
    (
        lambda c, g: g.get("touched") and (g["touched"][0],),
        "{0}.grad changed during backward_pass, whose deliver only recorded: the engine itself "
        "wrote a .grad, where it only hands each gradient to deliver (backward()'s deliver "
        "accumulates into .grad; autograd.grad's leaves it alone)",
    ),
    (
        _kind(_delivery, "unwanted"),
        "{0} was delivered a gradient, but every contribution to it was None: a vertex with no "
        "gradient runs no hook, no backward and delivers nothing",
    ),
    (
        _kind(_delivery, "leaves only"),
        "{0} was never delivered its gradient, and neither was any other node: deliver was "
        "called for the leaves only, where it is for every vertex with a gradient, nodes too "
        "(autograd.grad of a non-leaf, and retain_grad(), read a node's gradient there)",
    ),
    (
        _lost_among,
        "{0} never received its gradient (deliver was not called for it){1}",
        "Count a vertex down for every input that requires grad, whatever its gradient (None "
        "too), and push it when its count reaches 0",
    ),
    (
        _popped_twice,
        "{0} was popped {1} times{2}: a vertex runs once, when all of its contributions have "
        "arrived (its count is 0), never before",
        "Push a vertex when its count reaches 0, not when a contribution arrives",
    ),
    (_hook_runs, "the hook registered on {0} ran {1} times, not once{2}"),
)


def _halved(case: Case) -> list:
    """Each gradient where a doubling hook's result was dropped (the hook's input kept)."""
    hooks, grads = case.expected.hooks, case.expected.grads
    return [
        np.asarray(want / 2) if (v, "double") in hooks and want is not None else None
        for v, want in zip(case.expected.graph.vertices, grads)
    ]


def _one_seed(case: Case, which: int) -> list | None:
    """Each vertex's gradient where a root listed twice kept one of its seeds (``which``),
    for that root only (the rest None: not told apart)."""
    graph, seeds = case.expected.graph, case.inputs["seeds"]
    twice = [r for r in graph.roots if graph.roots.count(r) > 1]
    if not twice:
        return None
    mine = [s for r, s in zip(graph.roots, seeds) if r == twice[0]]
    return [np.asarray(mine[which]) if v == twice[0] else None for v in graph.vertices]


def _one_seed_words(case: Case) -> str:
    graph = case.expected.graph
    root = next(r for r in graph.roots if graph.roots.count(r) > 1)
    return (
        f"{root} is listed twice in roots, and {said(root, graph)} received one of its seeds, "
        "not their sum: one seed overwrote the other"
    )


def _reentrant(case: Case) -> str:
    if not any(op == "checkpoint" for _, op, _ in case.expected.graph.steps):
        return ""
    return (
        "Checkpoint.backward runs autograd.grad, a whole backward_pass, while yours is in the "
        "middle of its loop: the inner pass changed the state of the outer one (state shared "
        "between calls)"
    )


def _release(case: Case, got: dict) -> tuple[str, str, str] | None:
    """The first node released other than expected: ("kept" or "released", its name, why
    it should have been kept)."""
    why = "retain_graph=True" if case.expected.retain_graph else "its backward never ran"
    nodes = zip(case.expected.graph.nodes, case.expected.released, got["released"])
    return next(
        (("released" if r else "kept", n, why) for n, w, r in nodes if bool(w) != bool(r)), None
    )


def _unequal_build(case: Case, got: dict) -> tuple[int, str] | None:
    """The first later build whose gradient differs from build 1's: (build, vertex)."""
    runs = (got.get("repeated") or []) if case.expected.repeats > 1 else []
    for k, run in enumerate(runs[1:], 2):
        for name, a, b in zip(case.expected.graph.vertices, runs[0], run):
            if a is not None and not (b is not None and np.array_equal(a, b)):
                return k, said(name, case.expected.graph)
    return None


def _kept(case: Case) -> bool:
    """Whether the case makes a second pass through a graph kept by retain_graph=True."""
    return case.expected.passes == 2 and case.expected.retain_graph


_AFTER = rules(  # release, a second pass, memory on a chain, the same bits every build
    (
        _kind(_release, "kept"),
        "{0}.grad_fn still holds its saved tensors (its ctx is not None) after "
        "backward_pass(retain_graph=False) ran its backward: it was never released",
        "Release each node once its backward has run, unless retain_graph",
    ),
    (
        _kind(_release, "released"),
        "{0}.grad_fn was released although {1}",
        "Release a node only after its backward has run, and only without retain_graph",
    ),
    (
        lambda c, g: (
            c.expected.passes == 2
            and not c.expected.retain_graph
            and not (isinstance(s := g.get("second"), dict) and s.get("error") == "RuntimeError")
        ),
        "a second backward_pass through a graph released by the first did not raise (PyTorch's "
        "RuntimeError): release each node unless retain_graph",
    ),
    (
        lambda c, g: _kept(c) and isinstance(s := g.get("second"), dict) and "error" in s,
        "a second backward_pass after retain_graph=True raised {got[second][error]}: "
        "{got[second][message]!r}",
    ),
    (
        lambda c, g: (
            _kept(c) and not isinstance(g.get("second"), list) and (show(g.get("second")),)
        ),
        "a second backward_pass after retain_graph=True raised: {0}",
    ),
    (
        lambda c, g: (
            c.expected.chain
            and g.get("held_at_leaf", 0) > HELD
            and (g["held_at_leaf"], len(c.expected.graph.nodes))
        ),
        "{0} of the chain's {1} nodes still held their saved tensors when x, the last vertex, "
        "received its gradient: the nodes were released late (after the loop?), so memory "
        "does not fall as backward proceeds",
        "Release each node as soon as its backward has run",
    ),
    (
        lambda c, g: (
            c.expected.chain
            and g.get("live_peak", 0) > LIVE
            and (g["live_peak"], len(c.expected.graph.nodes))
        ),
        "{0} gradients of vertices that had already run were still alive at one delivery, on "
        "a chain of {1} nodes: the engine kept each gradient after its vertex ran (in "
        "pending?), so none could be freed",
        "Take each gradient out of pending when its vertex runs",
    ),
    (
        _unequal_build,
        "in build {0} of the same graph, the gradient delivered to {1} differs from build 1's "
        "in its last bits: the order in which contributions are added depends on the objects' "
        "ids (a set, or a sort by id)",
        "Keep the ready vertices in a list",
    ),
)
_SECOND = Fields(
    [Each("second.*", "the second pass's gradient of {}", expected=lambda c: c.expected.grads)]
)
engine_verdict = first(  # 4.2: each vertex delivered once, complete, after its hooks; release
    rules(
        (
            lambda c, g: isinstance(g, dict) and "freed_first" in g and _early(c, g),
            "{0} was popped after {1} of its {2} contributions had arrived, and popped again "
            "when the rest arrived: its backward ran twice, and the second time its saved "
            "tensors were freed (backward_pass raised RuntimeError: {got[freed_first]!r})",
            "Push a vertex only when its count reaches 0 (a root too: a root that another root "
            "reaches waits)",
        ),
        (
            lambda c, g: isinstance(g, dict) and "freed_first" in g,
            "backward_pass raised RuntimeError: {got[freed_first]!r} in its first pass: a node's "
            "saved tensors were freed before its backward ran (released before its backward, "
            "or run twice)",
            "Release a node after its backward (its backward reads its saved tensors), and run "
            "each node once",
        ),
    ),
    Fields(
        [
            Each(
                "hook_inputs.*.0",
                "what {}'s hook received",
                expected=lambda c: [[want] for want in c.expected.hook_inputs],
                says="a hook sees the vertex's complete gradient, once",
                of=lambda c: [name for name, _ in c.expected.hooks],
            ),
            Each("grads.*", "the gradient delivered to {}", says=_reentrant, backwards=True),
        ],
        mistakes=[
            Mistake(
                "grads.*",
                _halved,
                lambda c: (
                    " and ".join(n for n, kind in c.expected.hooks if kind == "double")
                    + "'s hook returned a new gradient (2g), and what was delivered is the "
                    "gradient from before the hook: the hook's return value was dropped"
                ),
                "A hook that returns a Tensor replaces the gradient",
            ),
            Mistake(
                "grads.*",
                lambda c: _one_seed(c, 0),
                lambda c: _one_seed_words(c),
            ),
            Mistake(
                "grads.*",
                lambda c: _one_seed(c, -1),
                lambda c: _one_seed_words(c),
            ),
        ],
        keys=("deliveries", "grads", "released", "strangers"),
        before=_VISITS,
        then=first(_AFTER, lambda c, g: _kept(c) and _SECOND(c, g)),
    ),
)


kept_verdict = Fields(  # out.backward(): leaves keep their gradient, retain_grad is honoured
    [Each("grads.*", "{}.grad", of=lambda c: c.expected.names)],
    keys=("grads",),
    before=rules(
        (
            lambda c, g: next((n for n, x in zip(c.expected.names, g["grads"]) if x is None), None),
            "{0}.grad is None after backward: the engine delivers each leaf's gradient (to "
            "deliver, which adds it to .grad) and never frees a leaf",
        )
    ),
)


chain_backward_verdict = Fields(  # 4.2 on a long chain: no recursion; once each; 1; released
    [Field("leaf_grad", "x's gradient", RTOL, ATOL, expected=lambda c: np.array(1.0))],
    before=first(
        _depth("backward_pass"),
        rules(
            (
                _histogram,
                "on a chain of {want.n:,} nodes each vertex must be delivered once; received "
                "deliveries {0}",
            )
        ),
    ),
    then=rules(
        (
            lambda c, g: (
                g.get("released") != c.expected.n and (c.expected.n - (g.get("released") or 0),)
            ),
            "{0:,} of the chain's {want.n:,} nodes were not released after "
            "backward_pass(retain_graph=False)",
        )
    ),
)


second_order_verdict = Fields(  # g (the first derivative), recorded; then its derivative
    [Field("first", "g", RTOL, ATOL)],
    keys=("first_requires_grad",),
    then=first(
        rules(
            (
                lambda c, g: (
                    c.expected.through_seed and (g.get("seed_lost") or not g["first_requires_grad"])
                ),
                "g = grad(y, x, w, create_graph=True), for a w that requires grad, is not "
                "recorded as a function of w (grad(g.sum(), w) finds no path to w): the seed's "
                "graph was lost (detached, or copied into a new Tensor) before or inside "
                "backward_pass",
                "Keep each seed as it is, the Tensor given, and add a root's seeds with Tensor "
                "operations",
            ),
            (
                lambda c, g: not g["first_requires_grad"],
                "g, returned with create_graph=True, does not require grad: nothing recorded how "
                "it was computed (the local backwards ran without create_graph, or the "
                "contributions were added off the graph)",
                "Pass create_graph on to each local backward, and add contributions with Tensor "
                "operations",
            ),
        ),
        Fields([Field("second", "grad(g.sum(), x)", 1e-8, 1e-10)]),
    ),
)


# -- task 4.3 -------------------------------------------------------------------------------


def _through(case: Case, got: dict, lost: bool) -> tuple | None:
    """With gradients that require grad: the first of them (by call, the preset's leaf
    last) through which ``t.grad.sum()`` has no gradient (``lost``), or one other than ones
    (``got["through"]``: the program's own reverse pass), and that gradient."""
    if not case.expected.requires_grad:
        return None
    count = len(case.expected.values)
    names = [f"the gradient passed in call {i}" for i in range(1, count + 1)]
    names += ["the .grad set beforehand"] if case.expected.preset else []
    through = got.get("through")
    if not isinstance(through, list) or len(through) != len(names):
        return (names[0], show(through)) if lost else None
    shape = np.shape(case.expected.values[0])
    for name, g in zip(names, through):
        if g is None:
            return (name, "None") if lost else None
        if not (isinstance(g, np.ndarray) and g.shape == shape and np.allclose(g, 1.0)):
            return None if lost else (name, show(g))
    return None


def _copied(call: int) -> str:
    """What a .grad that does not require grad after ``call`` says was done."""
    if call == 1:
        return (
            "the first gradient was stored copied off its graph (detach(), or a new Tensor of "
            "its data)"
        )
    return "the sum was made off the graph (on the arrays, or of detached gradients)"


accumulate_verdict = Fields(  # .grad's values after each call; with create_graph, its graph
    [Each("values.*", "t.grad after call {}", of=lambda c: range(1, len(c.expected.values) + 1))],
    keys=("values", "each_requires_grad"),
    then=rules(
        (
            lambda c, g: (
                c.expected.requires_grad
                and not all(each := g.get("each_requires_grad") or [])
                and (call := each.index(False) + 1 if False in each else 1)
                and (call, _copied(call))
            ),
            "with gradients that require grad (create_graph=True), t.grad after call {0} does "
            "not require grad: {1}",
            "Keep the first gradient itself, and add later ones with a Tensor operation",
        ),
        (
            lambda c, g: _through(c, g, lost=True),
            "with gradients that require grad (create_graph=True), t.grad must be recorded as "
            "their sum, and {0} gets no gradient through t.grad.sum() (grad: {1}; expected "
            "ones). The sum lost the graph of the later gradients, as adding on .data does (it "
            "keeps the graph of the first gradient only)",
            "Add with a Tensor operation, out of place or in place on .grad itself, never on .data",
        ),
        (
            lambda c, g: _through(c, g, lost=False),
            "with gradients that require grad (create_graph=True), t.grad must be recorded as "
            "their sum, each added once: through t.grad.sum(), {0} gets {1}, not ones",
        ),
    ),
)


# c = a + b: Add's backward hands a and b one gradient object, and the given keep_grad gives
# each a copy of its own, so a.grad and b.grad can no longer be one object (a rule for that,
# and a mistake for its values, 2·passes - 1, could not fail): the values are what is left
alias_verdict = Fields(
    [Field("a_grad", "a.grad", RTOL, ATOL), Field("b_grad", "b.grad", RTOL, ATOL)]
)


# -- task 4.4 -------------------------------------------------------------------------------


def _accepted(case: Case, got: Any) -> tuple | None:
    """Where seed returned instead of refusing: (what it returned, what it accepted)."""
    if isinstance(got, dict) and got.get("error") is not None:
        return None
    naming, shape = case.expected.naming, tuple(np.shape(case.inputs["output"]))
    what = (
        f"a gradient of shape {naming[0]} for out of shape {naming[1]}"
        if naming
        else f"no gradient for out of shape {shape}, {int(np.prod(shape))} elements"
    )
    return show(got.get("data") if isinstance(got, dict) else got), what


_REFUSED = rules(  # seed must raise a RuntimeError naming both shapes
    (
        _accepted,
        "seed accepted {1} (it returned {0}); expected a RuntimeError",
        "A gradient of another shape than out's is refused with a RuntimeError naming both "
        "shapes; with no gradient, only a one-element out has one (ones)",
    ),
    (
        lambda c, g: g["error"] != "RuntimeError",
        "raised {got[error]}: {got[message]!r}; expected a RuntimeError",
    ),
    (
        lambda c, g: (
            (lacks := [n for n in c.expected.naming if n not in g["message"]])
            and (" and ".join(c.expected.naming), ", ".join(lacks))
        ),
        "raised RuntimeError: {got[message]!r}, which should name both shapes as tuples, the way "
        ".shape prints them ({0}); it lacks {1}",
    ),
)
_SEEDED = Fields(  # a Tensor like out: its shape, its dtype, ones or the gradient given
    [Field("data", "the seed", 1e-7, 0.0)],
    mistakes=[
        Mistake(
            "data",
            lambda c: np.zeros_like(c.expected.data),
            "seed returned zeros: every gradient below would be zero, where ∂out/∂out is 1",
        ),
        Mistake(
            "data",
            lambda c: None if c.inputs["gradient"] is None else np.ones_like(c.expected.data),
            "seed returned ones, not the gradient given: the gradient was ignored for a "
            "one-element out",
            "A gradient given is the seed, whatever out's size; ones only where none is given",
        ),
    ],
    keys=("type_name", "shape", "dtype", "data"),
    before=rules(
        (lambda c, g: g["type_name"] != "Tensor", "seed returned a {got[type_name]}, not a Tensor"),
        (
            lambda c, g: tuple(g["shape"]) != c.expected.data.shape and (tuple(g["shape"]),),
            "seed returned shape {0}, not out's {want.data.shape}",
        ),
        (
            lambda c, g: g["dtype"] != c.expected.dtype and c.inputs["gradient"] is not None,
            "seed returned dtype {got[dtype]}, not out's {want.dtype}: the gradient given kept "
            "its own dtype",
            "Cast the gradient given to out's dtype where they differ",
        ),
        (
            lambda c, g: g["dtype"] != c.expected.dtype,
            "seed returned dtype {got[dtype]}, not out's {want.dtype}: the ones were made in "
            "another dtype than out's",
        ),
    ),
    then=rules(
        (
            lambda c, g: not c.expected.differentiable and g.get("requires_grad"),
            "what seed returned requires grad, but no gradient that requires grad was given: it "
            "was computed from out (out * 0 + 1?), where ∂out/∂out is a constant",
            "With no gradient given, the seed is a new Tensor of ones in out's shape and dtype",
        ),
        (
            lambda c, g: c.expected.differentiable and not g.get("requires_grad"),
            "the gradient given requires grad, and what seed returned does not: it was copied "
            "off its graph (a new Tensor of its data, or detach()), so nothing can be "
            "differentiated through it (jvp's double-backward trick does)",
            "Return the gradient given itself, cast with a Tensor operation where the dtype "
            "differs",
        ),
    ),
)
seed_verdict = first(  # 4.4: a refusal where PyTorch refuses; else the seed
    rules(
        (
            lambda c, g: (
                not isinstance(c.expected, SeedRefused) and isinstance(g, dict) and "error" in g
            ),
            "raised {got[error]}: {got[message]!r}; expected a gradient",
        )
    ),
    lambda c, g: (_REFUSED if isinstance(c.expected, SeedRefused) else _SEEDED)(c, g),
)


# -- task 4.5 -------------------------------------------------------------------------------


def _wrong_probe(case: Case, got: list) -> tuple | None:
    """The first probe off the rules: (its number, how many, what it was, what it should
    be, where it stands, what that says went wrong: ``_where``)."""
    was, probes = ("not recorded", "recorded"), case.expected.probes
    wrong = [(i, g, w) for i, (g, w) in enumerate(zip(got, probes), 1) if g != w]
    if not wrong:
        return None
    i, g, w = wrong[0]
    places = case.expected.places
    where = _where(places[i - 1], bool(g)) if len(places) == len(probes) else ("", "")
    return (i, len(probes), was[bool(g)], was[bool(w)], *where)


def _where(place: Any, got: bool) -> tuple[str, str]:
    """Where a wrong probe stands, and what its place says went wrong (``cases.Place``)."""
    on = ("off", "on")
    if place.after:
        ended = "ended by raising" if place.raised else "ended"
        where = f", just after a {place.after} {ended}"
        if place.nested is not None and got == place.nested:
            kind = place.after.split("(")[0].lstrip("@").removeprefix("with ")
            shared = (
                "do the two blocks share one remembered mode?"
                if place.nested == place.own
                else "the two blocks shared one remembered mode"
            )
            return where, (
                f": leaving the block put back the mode from before the {kind} nested in it "
                f"(recording {on[got]}), not the mode from before itself ({shared})"
            )
        kept = "kept its own mode" if got == place.own else "set the opposite of its own mode"
        return where, (
            f": leaving the block {kept} (recording {on[got]}) instead of putting back the mode "
            "from before it"
        )
    if place.called:
        return (
            f", just after the call {place.called} (no with)",
            ": the call did not set the mode",
        )
    if place.inside:
        return f", inside a {place.inside}", f": entering it did not turn recording {on[not got]}"
    return "", ""


grad_mode_verdict = rules(  # the probes, against the rules run on a plain flag
    (
        lambda c, g: isinstance(g, list) and "swallowed" in g,
        "an exception raised inside a with block did not come out of it: __exit__ returned a "
        "true value, which tells Python to swallow the exception",
        "__exit__ puts the mode back and returns nothing (None)",
    ),
    (
        lambda c, g: (
            (not isinstance(g, list) or len(g) != len(c.expected.probes))
            and (len(c.expected.probes), show(g))
        ),
        "expected {0} probes, received {1}",
    ),
    (
        _wrong_probe,
        "probe {0} of {1}{4}: x * 2 was {2}, expected {3}{5}",
        "On the way in, remember the mode from before and set the block's own; on the way "
        "out, put back the remembered one (each block its own, kept on the instance), even "
        "after an exception",
    ),
)


# -- task 4.6 -------------------------------------------------------------------------------


def _tuples(case: Case) -> str:
    """Words for a tuple of inputs or outputs, where the case has one."""
    if not isinstance(case.expected.result, list):
        return ""
    return (
        "with a tuple of inputs, or a function returning a tuple, the results are tuples too, "
        "as in PyTorch: jvp's J u has one item per output, hessian's [i][j] is the block of "
        "inputs i and j"
    )


def _names(case: Case) -> list[str]:
    """The inputs as the case's label names them: x, or x and y (a tuple of inputs)."""
    return ["x", "y"] if isinstance(case.inputs["x"], list) else ["x"]


def _nesting(value: Any) -> str:
    """What a received result is, in words: "a Tensor of shape (2, 3)", "a tuple of 2
    tuples of 2", …"""
    if isinstance(value, np.ndarray):
        return f"a Tensor of shape {value.shape}"
    if isinstance(value, list):
        inner = {len(v) for v in value if isinstance(v, list)}
        if inner and all(isinstance(v, list) for v in value) and len(inner) == 1:
            return f"a tuple of {len(value)} tuples of {inner.pop()}"
        return f"a tuple of {len(value)}"
    return show(value)


# the rule a two-input Hessian's blocks follow, as PyTorch's do
BLOCKS = (
    "H[i][j] is the block of inputs i and j, ∂/∂(input j) of ∂f/∂(input i), of input i's "
    "shape followed by input j's (hessian is the jacobian of the gradient, and jacobian's "
    "[i][j] is output i by input j)"
)


def _block(case: Case, i: int, j: int) -> str:
    """A Hessian block as the student reads it: "hessian(f, (x, y))[0][1], ∂²f/∂x∂y"."""
    names = _names(case)
    part = f"∂²f/∂{names[i]}²" if i == j else f"∂²f/∂{names[i]}∂{names[j]}"
    return f"hessian(f, (x, y))[{i}][{j}], {part}"


def _close(got: Any, want: np.ndarray) -> bool:
    """Whether a received block holds ``want``'s values (False for what is no array)."""
    try:
        return bool(np.allclose(got, want, rtol=1e-8, atol=1e-10))
    except (TypeError, ValueError):
        return False


def _blocks_wrong(case: Case, got: dict) -> str | None:
    """A two-input Hessian's nesting (2 tuples of 2 blocks), then each block's shape, then
    its values: the first block that is off, where it has the shape or the values of
    another block, named with that block ([j][i]'s: the blocks are transposed)."""
    want, blocks = case.expected.result, got.get("result")
    k = len(want)
    if not (
        isinstance(blocks, list)
        and len(blocks) == k
        and all(isinstance(r, list) and len(r) == k for r in blocks)
    ):
        return (
            f"hessian(f, (x, y)) returned {_nesting(blocks)}: for a tuple of {k} inputs it "
            f"returns a tuple of {k} tuples of {k} blocks. {BLOCKS}"
        )
    names, places = _names(case), [(a, b) for a in range(k) for b in range(k)]
    shapes = {(a, b): np.shape(want[a][b]) for a, b in places}

    def named(i: int, j: int, what: str, a: int, b: int) -> str:
        how = "transposed" if (a, b) == (j, i) else "out of place"
        return f"{what} of [{a}][{b}]: the blocks are {how}. {BLOCKS}"

    for i, j in places:
        shape = np.shape(blocks[i][j])
        if shape != shapes[i, j]:
            whose = (
                f"{names[i]}'s shape twice" if i == j else f"{names[i]}'s shape, then {names[j]}'s"
            )
            what = (
                f"{_block(case, i, j)}, should have shape {shapes[i, j]} ({whose}): received "
                f"shape {shape}"
            )
            other = next((p for p in places if shapes[p] == shape), None)
            return named(i, j, f"{what}, that", *other) if other else f"{what}. {BLOCKS}"
    for i, j in places:
        if _close(blocks[i][j], want[i][j]):
            continue
        other = next(
            (
                (a, b)
                for a, b in places
                if shapes[a, b] == shapes[i, j] and _close(blocks[i][j], want[a][b])
            ),
            None,
        )
        return named(i, j, f"{_block(case, i, j)} holds the values", *other) if other else None
    return None


_HESSIAN_BLOCKS = Fields(  # a tuple of inputs: the nesting, each block's shape, then values
    [
        Field(
            "result.*.*",
            lambda c: [
                [_block(c, i, j) for j in range(len(r))] for i, r in enumerate(c.expected.result)
            ],
            1e-8,
            1e-10,
        )
    ],
    before=_blocks_wrong,
)


def _outputs_wrong(case: Case, got: dict) -> str | None:
    """jvp's J u nested by the outputs: one Tensor for a function of one output (also with
    a tuple of inputs), one item per output, each of its output's shape."""
    want, result = case.expected.result, got.get("result")
    if not isinstance(want, list):
        if not isinstance(result, list):
            return None
        if len(_names(case)) > 1:
            return (
                f"jvp(...)[1], J u, is {_nesting(result)}: J u has one item per output of f, not "
                "one per input, and f returns one Tensor: return that Tensor (result[0] when "
                "out is a Tensor, whatever the inputs), as PyTorch does"
            )
        return (
            "jvp(...)[1], J u, is a tuple: for one Tensor input and a function returning one "
            "Tensor, return the Tensor itself (grads[0]), as PyTorch does"
        )
    if not isinstance(result, list) and np.shape(result) == np.shape(want[0]):
        return (
            f"jvp(...)[1], J u, is {_nesting(result)}, one item, where f returns {len(want)} "
            "outputs: J u has one item per output of f (only the first output's was returned)"
        )
    if not isinstance(result, list) or len(result) != len(want):
        return None  # the values' comparison names it
    shapes = [np.shape(w) for w in want]
    for i, item in enumerate(result):
        shape = np.shape(item)
        if shape != shapes[i] and shape in shapes:
            return (
                f"jvp(...)[1][{i}], J u for f's output {i}, should have that output's shape "
                f"{shapes[i]}: received shape {shape}, that of output {shapes.index(shape)}. J u "
                "has one item per output of f, in the outputs' order (not one per input)"
            )
    return None


_FUNCTIONAL = {  # nested as PyTorch nests them (one Tensor in, and out: a Tensor); the values
    "jvp": Fields(
        [
            Field("output", "jvp(...)[0], f(x)", RTOL, ATOL, says=_tuples),
            Field("result", "jvp(...)[1], J u", 1e-8, 1e-10, says=_tuples),
        ],
        before=first(
            rules(
                (
                    lambda c, g: (
                        g.get("type_name") != "tuple"
                        and (g.get("type_name"), _tuples(c) and f" ({_tuples(c)})")
                    ),
                    "jvp returned a {0}, not the tuple (func(x), J u){1}",
                )
            ),
            _outputs_wrong,
        ),
    ),
    "hessian": Fields(
        [Field("result", "hessian(f, x)", 1e-8, 1e-10, says=_tuples)],
        mistakes=[
            Mistake(
                "result",
                lambda c: None if _tuples(c) else np.zeros_like(c.expected.result),
                "hessian(f, x) is all zeros: the gradient it differentiates was not recorded "
                "as a function of x",
                "Compute the inner gradient with create_graph=True",
            )
        ],
        before=rules(
            (
                lambda c, g: not _tuples(c) and g.get("type_name") in ("tuple", "list"),
                "hessian returned a {got[type_name]}: for one Tensor input return the Tensor "
                "itself (grads[0]), as PyTorch does; a tuple is for a tuple of inputs",
            )
        ),
    ),
}


def _functional_values(case: Case, got: Any) -> str | None:
    if case.expected.what == "hessian" and isinstance(case.expected.result, list):
        return _HESSIAN_BLOCKS(case, got)
    return _FUNCTIONAL[case.expected.what](case, got)


functional_verdict = first(  # 4.6: jvp's or hessian's results; detached, or differentiable
    rules(
        (
            lambda c, g: isinstance(g, dict) and "short_call" in g and (len(_names(c)),),
            "hessian called f with {got[short_call]} argument(s) and f raised TypeError: f takes "
            "each of the {0} inputs of the tuple (x, y), and the Hessian has a block for each "
            "pair of them",
            "Call f with every input, and differentiate with respect to every input",
        )
    ),
    _functional_values,
    rules(
        (
            lambda c, g: c.expected.create_graph and g.get("detached"),
            "{got[detached][0]} does not require grad, with create_graph=True: it was "
            "detached, or a backward pass under it did not record (it is not differentiable)",
            "Record both backward passes with create_graph=True, and detach nothing when "
            "create_graph is True",
        ),
        (
            lambda c, g: not c.expected.create_graph and g.get("attached"),
            "{got[attached][0]} requires grad, without create_graph=True: the result still "
            "carries the graph it was computed on (PyTorch returns it detached)",
            "Detach the results unless create_graph",
        ),
    ),
)


# -- every task: a Tensor compared with == ----------------------------------------------------


def compared_verdict(case: Case, got: Any) -> str | None:
    """Where the chapter's code compared a Tensor with == or != at the line the run raised
    at (``programs.telling_apart``): == on a Tensor is elementwise, so ``in`` and == cannot
    tell vertices apart. Judged before anything else, by every check of the chapter."""
    found = got.get("compared") if isinstance(got, dict) else None
    if not isinstance(found, dict):
        return None
    where = (
        f"{found.get('function')} ({found.get('file')}, line {found.get('line')}: "
        f"{found.get('code')}) compared a Tensor with "
    )
    raised = f"which raised {found.get('error')}: {found.get('message')}"
    if found.get("other") == "NoneType":
        return (
            f"{where}None by {found.get('operator')}, {raised}. == on a Tensor is "
            "elementwise (it builds a new Tensor of the comparisons): test for None with "
            "`is None` or `is not None`"
        )
    return (
        f"{where}a {found.get('other')} by {found.get('operator')}, {raised}. == on a Tensor "
        "is elementwise: it builds a new Tensor of the elements' comparisons, never True or "
        "False for the objects, so `in`, `not in`, ==, != and list.index or .remove cannot "
        "tell vertices apart. Compare identities instead: `v is p`, id(v), or keep the "
        "vertices in a set or as dict keys (Nodes and Tensors hash by identity)"
    )


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


NONE_ONE = (
    "a backward that returns None (NoneBackward.apply(t) is 2·t, and its backward returns "
    "None for t)"
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
                count_row("a diamond", diamond),  # first: its a is reached twice, by two nodes
                count_row("x used twice by one node", twice),
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
                engine_row("a diamond of scalars", lambda rng: diamond(rng, ())),
                engine_row("a diamond", diamond),
                engine_row("short and long paths to b", long_and_short),
                engine_row("a used by 6 nodes", lambda rng: wide(rng, 6)),
                engine_row("two roots sharing a subgraph", shared),
                engine_row("a root that another root reaches", root_below_root),
                engine_row("a root that another root reaches, listed last", root_above_root),
                engine_row("the same root twice", lambda rng: repeated_root(rng, diamond)),
                engine_row("a leaf that is a root too", leaf_root),
                engine_row("constants, and a branch no root reaches", constants),
                engine_row(NONE_ONE, none_returned),
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
                engine_row(
                    "a hook that returns 2g",
                    lambda rng: diamond(rng, ()),
                    hooks=[("b", "double")],
                ),
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
                row(accumulate_case, 2, (3,), preset=True, requires_grad=True),
                row(accumulate_case, 3, ()),
                row(accumulate_case, 2, (), requires_grad=True),
                row(accumulate_case, 2, (2, 1, 3), requires_grad=True),
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
                row(functional_case, "jvp", "cross_layer", 2),
                row(functional_case, "jvp", "cross_pair", 2),
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
                row(functional_case, "hessian", "cross", 2),
                row(functional_case, "hessian", "two_d", create_graph=True),
            ]
        ),
        programs.functional,
        functional_verdict,
        requires=FUNCTIONAL,
    ),
]

# tasks 4.7 and 4.8, course version 1.1 (exercises.py, their programs exercises_program.py)
from .exercises import EXERCISES  # noqa: E402

CHECKS += EXERCISES

# every check names a Tensor compared with == in the chapter's code first (its programs
# note where: programs.telling_apart)
CHECKS = [replace(c, verdict=first(compared_verdict, c.verdict)) for c in CHECKS]

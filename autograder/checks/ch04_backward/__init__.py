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
from ...harness.table import Field, Fields, Mistake, Rows, first, row, rules, say, tr
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
        names = [say(self.name).format(v) for v in self.of(case)]
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
            tr(
                "the root listed twice was walked twice, and the edges below it counted twice: "
                "a root listed twice is still one vertex",
                "列出两次的根节点被遍历了两次，它下面的边也被数了两次：列出两次的根节点仍然只是一个顶点",
            ),
        ),
        (
            name in graph.roots and got == 0 and want,
            tr(
                "it is a root, and another root reaches it: its count was left at 0, but it waits "
                "for its contributions too",
                "它是根节点，但另一个根节点能到达它：它的计数被留在了 0，"
                "可它同样要等待自己的各份贡献",
            ),
        ),
        (
            number and got == len(users) < want,
            tr(
                f"{name} is used twice by one node and was counted once per parent: each edge is "
                "one contribution, and x * x is two edges",
                f"{name} 被同一个节点使用了两次，却按父节点只数了一次：每条边都是一份贡献，"
                "x * x 有两条边",
            ),
        ),
        (
            number and got < want,
            tr(
                f"{got} of its {want} edges were counted: an edge into a vertex seen before was "
                "not counted",
                f"它的 {want} 条边只数了 {got} 条：指向已访问过的顶点的边没有计数",
            ),
        ),
        (
            number and got > want,
            tr(
                "a vertex was explored more than once, its edges counted again",
                "某个顶点被探索了不止一次，它的边又被数了一遍",
            ),
        ),
    ]
    return next((tr(f" ({words})", f"（{words}）") for holds, words in hints if holds), "")


def _counts(case: Case, received: dict) -> str | None:
    # code: which words fit a wrong count depends on the count received, more or fewer
    # (a mistake's formula gives one wrong value)
    expected: CountsExpected = case.expected
    for name, want, got in zip(expected.graph.vertices, expected.counts, received["counts"]):
        who = f"counts[{said(name, expected.graph)}]"
        if want is None and got is not None:
            return tr(
                f"{who} is {got}, but no root reaches it: only reachable vertices are keys",
                f"{who} 为 {got}，但没有任何根节点能到达它：只有可达的顶点才是键",
            )
        if want is not None and got is None:
            return tr(
                f"{who} is missing: every vertex reachable from the roots is a key (the roots "
                "with 0 unless another root reaches them, and the leaves that require grad)",
                f"缺少 {who}：从根节点可达的每个顶点都是一个键（根节点的计数为 0，除非另一个根节点"
                "能到达它；需要梯度的叶子节点也是键）",
            )
        if got != want:
            hint = _count_hint(expected, name, want, got)
            return tr(
                f"{who}: expected {want}, received {got}{hint}",
                f"{who}：期望 {want}，实际收到 {got}{hint}",
            )
    return None


count_verdict = first(  # 4.1: exactly the reachable vertices, each with its edge count
    rules(
        (
            lambda c, g: isinstance(g, dict) and "leaf_read" in g,
            {
                "en": "count_dependencies read {got[leaf_read]} of the leaf {got[leaf]}, a root "
                "here: a leaf (a Tensor) has no {got[leaf_read]}; it is a vertex with no parents",
                "zh": "count_dependencies 读取了叶子节点 {got[leaf]} 的 {got[leaf_read]}，它在这里"
                "是根节点：叶子节点（一个 Tensor）没有 {got[leaf_read]}；它是没有父节点的顶点",
            },
            {
                "en": "Find a vertex's parents with parents(v), which knows leaves",
                "zh": "用 parents(v) 查找顶点的父节点，它能正确处理叶子节点",
            },
        ),
        (
            lambda c, g: isinstance(g, dict) and g.get("type_name") not in (None, "dict"),
            {
                "en": "count_dependencies returned a {got[type_name]}, not a dict {{vertex: "
                "number of contributions}}",
                "zh": "count_dependencies 返回了一个 {got[type_name]}，而不是字典 "
                "{{顶点: 贡献的份数}}",
            },
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
                {
                    "en": "count_dependencies returned {0} key(s) that are no vertex of the "
                    "graph (a {1}): the keys are the vertices reachable from the roots, vertex(x) "
                    "for each tensor that requires grad (its grad_fn, or the leaf itself)",
                    "zh": "count_dependencies 返回的键中有 {0} 个不是图中的顶点（一个 {1}）：键应当"
                    "是从根节点可达的顶点，对每个需要梯度的张量 x 即 vertex(x)（它的 grad_fn，或"
                    "叶子节点本身）",
                },
            )
        ),
        then=_counts,
    ),
)


def _who(got: dict) -> str:
    where = got.get("recursed")
    if isinstance(where, str) and where:
        return tr(f"{where} calls itself", f"{where} 调用了自身")
    return tr("it recurses", "它使用了递归")


def _depth(what: str) -> Verdict:
    """No recursion: the long chain's RecursionError, or more than ROOM calls on a short one."""
    return rules(
        (
            lambda c, g: g.get("problem") == "recursion" and (what, _who(g)),
            {
                "en": "{0} raised RecursionError on a long chain: {1}. Use a loop and an explicit "
                "stack (a list you append to and pop from), as in the notebook",
                "zh": "{0} 在长链上抛出了 RecursionError：{1}。请像 notebook 中那样，使用循环和"
                "一个显式的栈（一个用 append 压入、用 pop 弹出的列表）",
            },
        ),
        (
            lambda c, g: g.get("recursed") and (what, _who(g), programs.ROOM),
            {
                "en": "{0} went more than {2} calls deep on a chain of 300 nodes: {1}, and a "
                "chain of a million nodes would not fit in the call stack. Use a loop and an "
                "explicit stack",
                "zh": "{0} 在 300 个节点的链上调用深度超过了 {2} 层：{1}，而一条百万个节点的链"
                "是放不进调用栈的。请使用循环和一个显式的栈",
            },
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
            {
                "en": "on a chain of {want.n:,} nodes the counts must be 1 × 0 (the root) and "
                "{want.n:,} × 1 (every other node, and the leaf); received {0}",
                "zh": "在 {want.n:,} 个节点的链上，计数必须是 1 × 0（根节点）和 {want.n:,} × 1"
                "（其余每个节点，以及叶子节点）；实际收到 {0}",
            },
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
        tr(
            f", first after {early[1]} of its {early[2]} contributions had arrived",
            f"，第一次是在它的 {early[2]} 份贡献只到达了 {early[1]} 份时",
        )
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
        return name, tr(
            f": {silent[0]}.grad_fn received only None, and its None never reached {name} as a "
            "contribution (a node that receives only None still passes None on, and each "
            "None counts as arrived)",
            f"：{silent[0]}.grad_fn 只收到了 None，而它的 None 从未作为一份贡献到达 {name}"
            "（只收到 None 的节点仍要把 None 传下去，每个 None 都算作一份已到达的贡献）",
        )
    nones = [n for n in users if ops.get(n) == "none_backward"]
    if nones:
        return name, tr(
            f": {nones[0]}.grad_fn's backward returned None for {name}, and that None was not "
            "counted as a contribution arrived (a None still counts)",
            f"：{nones[0]}.grad_fn 的反向函数对 {name} 返回了 None，而这个 None 没有被算作一份"
            "已到达的贡献（None 也要计数）",
        )
    return name, tr(
        ": its count never reached 0 (each contribution, None too, counts it down)",
        "：它的计数始终没有降到 0（每份贡献，包括 None，都要让计数减一）",
    )


def _hook_runs(case: Case, got: dict) -> tuple[str, int, str] | None:
    """The first hook that ran other than once: (its tensor, how many times it ran, words
    for a root's)."""
    runs = zip(case.expected.hooks, got["hook_inputs"])
    found = next(((name, len(calls)) for (name, _), calls in runs if len(calls) != 1), None)
    if not found:
        return None
    root = found[0] in case.expected.graph.roots
    words = tr(
        f" ({found[0]} is a root: its hooks run when it is popped, as any vertex's)",
        f"（{found[0]} 是根节点：和任何顶点一样，它的钩子在它被弹出时运行）",
    )
    return (*found, words if root else "")


_VISITS = rules(  # each vertex with a gradient delivered once, nothing else, no .grad touched
    (
        lambda c, g: g["strangers"],
        {
            "en": "deliver was called {0} time(s) with something that is no vertex of the graph",
            "zh": "deliver 有 {0} 次调用传入的不是图中的顶点",
        },
        {
            "en": "Call deliver with the vertex itself (a Node, or a leaf Tensor) and its gradient",
            "zh": "调用 deliver 时传入顶点本身（一个 Node，或一个叶子 Tensor）及其梯度",
        },
    ),
    (
        lambda c, g: g.get("touched") and (g["touched"][0],),
        {
            "en": "{0}.grad changed during backward_pass, whose deliver only recorded: the engine "
            "itself wrote a .grad, where it only hands each gradient to deliver (backward()'s "
            "deliver accumulates into .grad; autograd.grad's leaves it alone)",
            "zh": "{0}.grad 在 backward_pass 运行期间被改动了，而这次的 deliver 只做记录：是引擎"
            "自己写了 .grad，它本应只把每个梯度交给 deliver（backward() 的 deliver 会累加到 "
            ".grad 上；autograd.grad 的 deliver 则不动它）",
        },
    ),
    (
        _kind(_delivery, "unwanted"),
        {
            "en": "{0} was delivered a gradient, but every contribution to it was None: a vertex "
            "with no gradient runs no hook, no backward and delivers nothing",
            "zh": "{0} 被交付了一个梯度，但它收到的每份贡献都是 None：没有梯度的顶点不运行钩子、"
            "不运行反向函数，也不交付任何东西",
        },
    ),
    (
        _kind(_delivery, "leaves only"),
        {
            "en": "{0} was never delivered its gradient, and neither was any other node: deliver "
            "was called for the leaves only, where it is for every vertex with a gradient, nodes "
            "too (autograd.grad of a non-leaf, and retain_grad(), read a node's gradient there)",
            "zh": "{0} 从未被交付它的梯度，其他节点也都没有：deliver 只对叶子节点调用了，而它应当"
            "对每个有梯度的顶点调用，节点也不例外（对非叶子节点求 autograd.grad 以及 "
            "retain_grad() 都在那里读取节点的梯度）",
        },
    ),
    (
        _lost_among,
        {
            "en": "{0} never received its gradient (deliver was not called for it){1}",
            "zh": "{0} 从未收到它的梯度（没有对它调用 deliver）{1}",
        },
        {
            "en": "Count a vertex down for every input that requires grad, whatever its gradient "
            "(None too), and push it when its count reaches 0",
            "zh": "对每个需要梯度的输入，无论其梯度是什么（None 也一样），都把对应顶点的计数减一，"
            "计数降到 0 时再把它压入栈",
        },
    ),
    (
        _popped_twice,
        {
            "en": "{0} was popped {1} times{2}: a vertex runs once, when all of its "
            "contributions have arrived (its count is 0), never before",
            "zh": "{0} 被弹出了 {1} 次{2}：一个顶点只运行一次，即在它的所有贡献都已到达（计数为 "
            "0）时，绝不提前",
        },
        {
            "en": "Push a vertex when its count reaches 0, not when a contribution arrives",
            "zh": "在顶点的计数降到 0 时才把它压入栈，而不是每到达一份贡献就压入",
        },
    ),
    (
        _hook_runs,
        {
            "en": "the hook registered on {0} ran {1} times, not once{2}",
            "zh": "注册在 {0} 上的钩子运行了 {1} 次，而不是一次{2}",
        },
    ),
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
    return tr(
        f"{root} is listed twice in roots, and {said(root, graph)} received one of its seeds, "
        "not their sum: one seed overwrote the other",
        f"{root} 在 roots 中出现了两次，而 {said(root, graph)} 只收到了其中一个种子，而不是"
        "它们的和：一个种子覆盖了另一个",
    )


def _reentrant(case: Case) -> str:
    if not any(op == "checkpoint" for _, op, _ in case.expected.graph.steps):
        return ""
    return tr(
        "Checkpoint.backward runs autograd.grad, a whole backward_pass, while yours is in the "
        "middle of its loop: the inner pass changed the state of the outer one (state shared "
        "between calls)",
        "Checkpoint.backward 会在你的 backward_pass 循环进行到一半时运行 autograd.grad，也就是"
        "一整次 backward_pass：内层的传播改变了外层的状态（状态在多次调用之间共享）",
    )


def _release(case: Case, got: dict) -> tuple[str, str, str] | None:
    """The first node released other than expected: ("kept" or "released", its name, why
    it should have been kept)."""
    why = (
        tr("retain_graph=True", "设置了 retain_graph=True")
        if case.expected.retain_graph
        else tr("its backward never ran", "它的反向函数从未运行")
    )
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
        {
            "en": "{0}.grad_fn still holds its saved tensors (its ctx is not None) after "
            "backward_pass(retain_graph=False) ran its backward: it was never released",
            "zh": "backward_pass(retain_graph=False) 运行了 {0}.grad_fn 的反向函数之后，它仍持有"
            "保存的张量（它的 ctx 不是 None）：它从未被释放",
        },
        {
            "en": "Release each node once its backward has run, unless retain_graph",
            "zh": "除非设置了 retain_graph，每个节点的反向函数一运行完就释放它",
        },
    ),
    (
        _kind(_release, "released"),
        {
            "en": "{0}.grad_fn was released although {1}",
            "zh": "{0}.grad_fn 被释放了，尽管{1}",
        },
        {
            "en": "Release a node only after its backward has run, and only without retain_graph",
            "zh": "只在节点的反向函数运行之后释放它，并且只在没有设置 retain_graph 时释放",
        },
    ),
    (
        lambda c, g: (
            c.expected.passes == 2
            and not c.expected.retain_graph
            and not (isinstance(s := g.get("second"), dict) and s.get("error") == "RuntimeError")
        ),
        {
            "en": "a second backward_pass through a graph released by the first did not raise "
            "(PyTorch's RuntimeError): release each node unless retain_graph",
            "zh": "第一次 backward_pass 已经释放了计算图，第二次通过它的 backward_pass 却没有报错"
            "（PyTorch 会抛出 RuntimeError）：除非设置了 retain_graph，否则要释放每个节点",
        },
    ),
    (
        lambda c, g: _kept(c) and isinstance(s := g.get("second"), dict) and "error" in s,
        {
            "en": "a second backward_pass after retain_graph=True raised {got[second][error]}: "
            "{got[second][message]!r}",
            "zh": "使用 retain_graph=True 之后，第二次 backward_pass 抛出了 {got[second][error]}："
            "{got[second][message]!r}",
        },
    ),
    (
        lambda c, g: (
            _kept(c) and not isinstance(g.get("second"), list) and (show(g.get("second")),)
        ),
        {
            "en": "a second backward_pass after retain_graph=True raised: {0}",
            "zh": "使用 retain_graph=True 之后，第二次 backward_pass 出错：{0}",
        },
    ),
    (
        lambda c, g: (
            c.expected.chain
            and g.get("held_at_leaf", 0) > HELD
            and (g["held_at_leaf"], len(c.expected.graph.nodes))
        ),
        {
            "en": "{0} of the chain's {1} nodes still held their saved tensors when x, the last "
            "vertex, received its gradient: the nodes were released late (after the loop?), so "
            "memory does not fall as backward proceeds",
            "zh": "最后一个顶点 x 收到梯度时，链上 {1} 个节点中仍有 {0} 个持有保存的张量：节点"
            "释放得太晚（在循环结束之后？），因此内存不会随着反向传播的进行而下降",
        },
        {
            "en": "Release each node as soon as its backward has run",
            "zh": "每个节点的反向函数一运行完就立即释放它",
        },
    ),
    (
        lambda c, g: (
            c.expected.chain
            and g.get("live_peak", 0) > LIVE
            and (g["live_peak"], len(c.expected.graph.nodes))
        ),
        {
            "en": "{0} gradients of vertices that had already run were still alive at one "
            "delivery, on a chain of {1} nodes: the engine kept each gradient after its vertex "
            "ran (in pending?), so none could be freed",
            "zh": "在 {1} 个节点的链上，某次交付时仍有 {0} 个已运行过的顶点的梯度存活：引擎在顶点"
            "运行之后仍保留着它的梯度（在 pending 里？），因此一个也无法释放",
        },
        {
            "en": "Take each gradient out of pending when its vertex runs",
            "zh": "顶点运行时就把它的梯度从 pending 中取出",
        },
    ),
    (
        _unequal_build,
        {
            "en": "in build {0} of the same graph, the gradient delivered to {1} differs from "
            "build 1's in its last bits: the order in which contributions are added depends on "
            "the objects' ids (a set, or a sort by id)",
            "zh": "同一个图第 {0} 次构建时，交付给 {1} 的梯度与第 1 次构建的在最后几位上不同："
            "各份贡献相加的顺序取决于对象的 id（用了集合，或按 id 排序）",
        },
        {"en": "Keep the ready vertices in a list", "zh": "用列表保存就绪的顶点"},
    ),
)


def _dropped(case: Case) -> str:
    """A doubling hook's result dropped: the gradient from before the hook delivered."""
    doubled = [n for n, kind in case.expected.hooks if kind == "double"]
    return tr(
        " and ".join(doubled)
        + "'s hook returned a new gradient (2g), and what was delivered is the "
        "gradient from before the hook: the hook's return value was dropped",
        "、".join(doubled)
        + " 的钩子返回了新的梯度（2g），而交付的却是钩子之前的梯度：钩子的返回值被丢掉了",
    )


_SECOND = Fields(
    [
        Each(
            "second.*",
            {"en": "the second pass's gradient of {}", "zh": "第二次传播中 {} 的梯度"},
            expected=lambda c: c.expected.grads,
        )
    ]
)
engine_verdict = first(  # 4.2: each vertex delivered once, complete, after its hooks; release
    rules(
        (
            lambda c, g: isinstance(g, dict) and "freed_first" in g and _early(c, g),
            {
                "en": "{0} was popped after {1} of its {2} contributions had arrived, and popped "
                "again when the rest arrived: its backward ran twice, and the second time its "
                "saved tensors were freed (backward_pass raised RuntimeError: "
                "{got[freed_first]!r})",
                "zh": "{0} 在它的 {2} 份贡献只到达了 {1} 份时就被弹出，其余贡献到达时又被弹出一次："
                "它的反向函数运行了两次，第二次时它保存的张量已被释放（backward_pass 抛出了 "
                "RuntimeError：{got[freed_first]!r}）",
            },
            {
                "en": "Push a vertex only when its count reaches 0 (a root too: a root that "
                "another root reaches waits)",
                "zh": "只在顶点的计数降到 0 时才把它压入栈（根节点也一样：另一个根节点能到达的"
                "根节点要等待）",
            },
        ),
        (
            lambda c, g: isinstance(g, dict) and "freed_first" in g,
            {
                "en": "backward_pass raised RuntimeError: {got[freed_first]!r} in its first "
                "pass: a node's saved tensors were freed before its backward ran (released "
                "before its backward, or run twice)",
                "zh": "backward_pass 在第一次传播中抛出了 RuntimeError：{got[freed_first]!r}："
                "某个节点保存的张量在它的反向函数运行之前就被释放了（在反向函数之前释放，或运行了"
                "两次）",
            },
            {
                "en": "Release a node after its backward (its backward reads its saved "
                "tensors), and run each node once",
                "zh": "在节点的反向函数之后再释放它（反向函数要读取保存的张量），并且每个节点只"
                "运行一次",
            },
        ),
    ),
    Fields(
        [
            Each(
                "hook_inputs.*.0",
                {"en": "what {}'s hook received", "zh": "{} 的钩子收到的梯度"},
                expected=lambda c: [[want] for want in c.expected.hook_inputs],
                says={
                    "en": "a hook sees the vertex's complete gradient, once",
                    "zh": "钩子只看到一次顶点的完整梯度",
                },
                of=lambda c: [name for name, _ in c.expected.hooks],
            ),
            Each(
                "grads.*",
                {"en": "the gradient delivered to {}", "zh": "交付给 {} 的梯度"},
                says=_reentrant,
                backwards=True,
            ),
        ],
        mistakes=[
            Mistake(
                "grads.*",
                _halved,
                _dropped,
                {
                    "en": "A hook that returns a Tensor replaces the gradient",
                    "zh": "返回 Tensor 的钩子会替换掉梯度",
                },
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
            {
                "en": "{0}.grad is None after backward: the engine delivers each leaf's gradient "
                "(to deliver, which adds it to .grad) and never frees a leaf",
                "zh": "反向传播之后 {0}.grad 是 None：引擎要交付每个叶子节点的梯度（交给 deliver，"
                "由它加到 .grad 上），并且从不释放叶子节点",
            },
        )
    ),
)


chain_backward_verdict = Fields(  # 4.2 on a long chain: no recursion; once each; 1; released
    [
        Field(
            "leaf_grad",
            {"en": "x's gradient", "zh": "x 的梯度"},
            RTOL,
            ATOL,
            expected=lambda c: np.array(1.0),
        )
    ],
    before=first(
        _depth("backward_pass"),
        rules(
            (
                _histogram,
                {
                    "en": "on a chain of {want.n:,} nodes each vertex must be delivered once; "
                    "received deliveries {0}",
                    "zh": "在 {want.n:,} 个节点的链上，每个顶点必须恰好交付一次；实际收到的交付"
                    "次数为 {0}",
                },
            )
        ),
    ),
    then=rules(
        (
            lambda c, g: (
                g.get("released") != c.expected.n and (c.expected.n - (g.get("released") or 0),)
            ),
            {
                "en": "{0:,} of the chain's {want.n:,} nodes were not released after "
                "backward_pass(retain_graph=False)",
                "zh": "backward_pass(retain_graph=False) 之后，链上 {want.n:,} 个节点中有 {0:,} "
                "个没有被释放",
            },
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
                {
                    "en": "g = grad(y, x, w, create_graph=True), for a w that requires grad, is "
                    "not recorded as a function of w (grad(g.sum(), w) finds no path to w): the "
                    "seed's graph was lost (detached, or copied into a new Tensor) before or "
                    "inside backward_pass",
                    "zh": "对一个需要梯度的 w，g = grad(y, x, w, create_graph=True) 没有被记录为 "
                    "w 的函数（grad(g.sum(), w) 找不到通往 w 的路径）：种子的计算图在 "
                    "backward_pass 之前或其中丢失了（被 detach，或被复制进了一个新的 Tensor）",
                },
                {
                    "en": "Keep each seed as it is, the Tensor given, and add a root's seeds with "
                    "Tensor operations",
                    "zh": "保持每个种子原样（就是传入的那个 Tensor），"
                    "并用 Tensor 运算把同一个根节点的种子相加",
                },
            ),
            (
                lambda c, g: not g["first_requires_grad"],
                {
                    "en": "g, returned with create_graph=True, does not require grad: nothing "
                    "recorded how it was computed (the local backwards ran without create_graph, "
                    "or the contributions were added off the graph)",
                    "zh": "在 create_graph=True 下返回的 g 不需要梯度：没有任何东西记录它是怎样"
                    "计算出来的（局部反向函数运行时没有传 create_graph，或各份贡献是在计算图之外"
                    "相加的）",
                },
                {
                    "en": "Pass create_graph on to each local backward, and add contributions "
                    "with Tensor operations",
                    "zh": "把 create_graph 传给每个局部反向函数，并用 Tensor 运算把各份贡献相加",
                },
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
    names = [
        tr(f"the gradient passed in call {i}", f"第 {i} 次调用传入的梯度")
        for i in range(1, count + 1)
    ]
    names += [tr("the .grad set beforehand", "事先设置的 .grad")] if case.expected.preset else []
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
        return tr(
            "the first gradient was stored copied off its graph (detach(), or a new Tensor of "
            "its data)",
            "第一个梯度是以脱离计算图的副本存储的（detach()，或用它的数据新建的 Tensor）",
        )
    return tr(
        "the sum was made off the graph (on the arrays, or of detached gradients)",
        "求和是在计算图之外完成的（在数组上，或对 detach 过的梯度）",
    )


accumulate_verdict = Fields(  # .grad's values after each call; with create_graph, its graph
    [
        Each(
            "values.*",
            {"en": "t.grad after call {}", "zh": "第 {} 次调用之后的 t.grad"},
            of=lambda c: range(1, len(c.expected.values) + 1),
        )
    ],
    keys=("values", "each_requires_grad"),
    then=rules(
        (
            lambda c, g: (
                c.expected.requires_grad
                and not all(each := g.get("each_requires_grad") or [])
                and (call := each.index(False) + 1 if False in each else 1)
                and (call, _copied(call))
            ),
            {
                "en": "with gradients that require grad (create_graph=True), t.grad after call "
                "{0} does not require grad: {1}",
                "zh": "当传入的梯度本身需要梯度时（create_graph=True），第 {0} 次调用之后的 "
                "t.grad 不需要梯度：{1}",
            },
            {
                "en": "Keep the first gradient itself, and add later ones with a Tensor operation",
                "zh": "保留第一个梯度本身，之后的梯度用 Tensor 运算加上去",
            },
        ),
        (
            lambda c, g: _through(c, g, lost=True),
            {
                "en": "with gradients that require grad (create_graph=True), t.grad must be "
                "recorded as their sum, and {0} gets no gradient through t.grad.sum() (grad: {1}; "
                "expected ones). The sum lost the graph of the later gradients, as adding on "
                ".data does (it keeps the graph of the first gradient only)",
                "zh": "当传入的梯度本身需要梯度时（create_graph=True），"
                "t.grad 必须被记录为它们的和，而{0}通过 t.grad.sum() 得不到梯度"
                "（梯度：{1}；期望全为 1）。求和丢掉了后面各个"
                "梯度的计算图，就像在 .data 上相加那样（它只保留第一个梯度的计算图）",
            },
            {
                "en": "Add with a Tensor operation, out of place or in place on .grad itself, "
                "never on .data",
                "zh": "用 Tensor 运算相加，在 .grad 本身上原地或非原地都可以，但绝不能在 .data 上",
            },
        ),
        (
            lambda c, g: _through(c, g, lost=False),
            {
                "en": "with gradients that require grad (create_graph=True), t.grad must be "
                "recorded as their sum, each added once: through t.grad.sum(), {0} gets {1}, not "
                "ones",
                "zh": "当传入的梯度本身需要梯度时（create_graph=True），"
                "t.grad 必须被记录为它们的和，每个只加一次："
                "通过 t.grad.sum()，{0}得到的是 {1}，而不是全 1",
            },
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
        tr(
            f"a gradient of shape {naming[0]} for out of shape {naming[1]}",
            f"形状为 {naming[1]} 的 out 配上形状为 {naming[0]} 的梯度",
        )
        if naming
        else tr(
            f"no gradient for out of shape {shape}, {int(np.prod(shape))} elements",
            f"形状为 {shape}、有 {int(np.prod(shape))} 个元素的 out 不带梯度",
        )
    )
    return show(got.get("data") if isinstance(got, dict) else got), what


_REFUSED = rules(  # seed must raise a RuntimeError naming both shapes
    (
        _accepted,
        {
            "en": "seed accepted {1} (it returned {0}); expected a RuntimeError",
            "zh": "seed 接受了{1}（它返回了 {0}）；期望抛出 RuntimeError",
        },
        {
            "en": "A gradient of another shape than out's is refused with a RuntimeError naming "
            "both shapes; with no gradient, only a one-element out has one (ones)",
            "zh": "形状与 out 不同的梯度要用 RuntimeError 拒绝，并在消息中写出两个形状；没有传入"
            "梯度时，只有单元素的 out 才有默认梯度（全 1）",
        },
    ),
    (
        lambda c, g: g["error"] != "RuntimeError",
        {
            "en": "raised {got[error]}: {got[message]!r}; expected a RuntimeError",
            "zh": "抛出了 {got[error]}：{got[message]!r}；期望抛出 RuntimeError",
        },
    ),
    (
        lambda c, g: (
            (lacks := [n for n in c.expected.naming if n not in g["message"]])
            and (tr(" and ", " 和 ").join(c.expected.naming), ", ".join(lacks))
        ),
        {
            "en": "raised RuntimeError: {got[message]!r}, which should name both shapes as "
            "tuples, the way .shape prints them ({0}); it lacks {1}",
            "zh": "抛出了 RuntimeError：{got[message]!r}，它应当像 .shape 打印的那样，以元组写出"
            "两个形状（{0}）；其中缺少 {1}",
        },
    ),
)
_SEEDED = Fields(  # a Tensor like out: its shape, its dtype, ones or the gradient given
    [Field("data", {"en": "the seed", "zh": "种子"}, 1e-7, 0.0)],
    mistakes=[
        Mistake(
            "data",
            lambda c: np.zeros_like(c.expected.data),
            {
                "en": "seed returned zeros: every gradient below would be zero, where ∂out/∂out "
                "is 1",
                "zh": "seed 返回了全零：下游的每个梯度都会是零，而 ∂out/∂out 应为 1",
            },
        ),
        Mistake(
            "data",
            lambda c: None if c.inputs["gradient"] is None else np.ones_like(c.expected.data),
            {
                "en": "seed returned ones, not the gradient given: the gradient was ignored for a "
                "one-element out",
                "zh": "seed 返回了全 1，而不是传入的梯度：对单元素的 out，传入的梯度被忽略了",
            },
            {
                "en": "A gradient given is the seed, whatever out's size; ones only where none is "
                "given",
                "zh": "无论 out 有多大，传入的梯度就是种子；只有没传入梯度时才用全 1",
            },
        ),
    ],
    keys=("type_name", "shape", "dtype", "data"),
    before=rules(
        (
            lambda c, g: g["type_name"] != "Tensor",
            {
                "en": "seed returned a {got[type_name]}, not a Tensor",
                "zh": "seed 返回了一个 {got[type_name]}，而不是 Tensor",
            },
        ),
        (
            lambda c, g: tuple(g["shape"]) != c.expected.data.shape and (tuple(g["shape"]),),
            {
                "en": "seed returned shape {0}, not out's {want.data.shape}",
                "zh": "seed 返回的形状是 {0}，而不是 out 的 {want.data.shape}",
            },
        ),
        (
            lambda c, g: g["dtype"] != c.expected.dtype and c.inputs["gradient"] is not None,
            {
                "en": "seed returned dtype {got[dtype]}, not out's {want.dtype}: the gradient "
                "given kept its own dtype",
                "zh": "seed 返回的数据类型是 {got[dtype]}，而不是 out 的 {want.dtype}：传入的梯度"
                "保留了它自己的数据类型",
            },
            {
                "en": "Cast the gradient given to out's dtype where they differ",
                "zh": "两者不同时，把传入的梯度转换为 out 的数据类型",
            },
        ),
        (
            lambda c, g: g["dtype"] != c.expected.dtype,
            {
                "en": "seed returned dtype {got[dtype]}, not out's {want.dtype}: the ones were "
                "made in another dtype than out's",
                "zh": "seed 返回的数据类型是 {got[dtype]}，而不是 out 的 {want.dtype}：全 1 张量"
                "是用与 out 不同的数据类型创建的",
            },
        ),
    ),
    then=rules(
        (
            lambda c, g: not c.expected.differentiable and g.get("requires_grad"),
            {
                "en": "what seed returned requires grad, but no gradient that requires grad was "
                "given: it was computed from out (out * 0 + 1?), where ∂out/∂out is a constant",
                "zh": "seed 返回的张量需要梯度，但并没有传入需要梯度的梯度：它是从 out 计算出来的"
                "（out * 0 + 1？），而 ∂out/∂out 是一个常数",
            },
            {
                "en": "With no gradient given, the seed is a new Tensor of ones in out's shape "
                "and dtype",
                "zh": "没有传入梯度时，种子是一个新的全 1 Tensor，形状和数据类型都与 out 相同",
            },
        ),
        (
            lambda c, g: c.expected.differentiable and not g.get("requires_grad"),
            {
                "en": "the gradient given requires grad, and what seed returned does not: it was "
                "copied off its graph (a new Tensor of its data, or detach()), so nothing can be "
                "differentiated through it (jvp's double-backward trick does)",
                "zh": "传入的梯度需要梯度，而 seed 返回的张量不需要：它被复制到了计算图之外（用它的"
                "数据新建 Tensor，或 detach()），因此无法再通过它求导（jvp 的双重反向传播技巧"
                "正需要这样做）",
            },
            {
                "en": "Return the gradient given itself, cast with a Tensor operation where the "
                "dtype differs",
                "zh": "返回传入的梯度本身，数据类型不同时用 Tensor 运算来转换",
            },
        ),
    ),
)
seed_verdict = first(  # 4.4: a refusal where PyTorch refuses; else the seed
    rules(
        (
            lambda c, g: (
                not isinstance(c.expected, SeedRefused) and isinstance(g, dict) and "error" in g
            ),
            {
                "en": "raised {got[error]}: {got[message]!r}; expected a gradient",
                "zh": "抛出了 {got[error]}：{got[message]!r}；期望返回一个梯度",
            },
        )
    ),
    lambda c, g: (_REFUSED if isinstance(c.expected, SeedRefused) else _SEEDED)(c, g),
)


# -- task 4.5 -------------------------------------------------------------------------------


def _wrong_probe(case: Case, got: list) -> tuple | None:
    """The first probe off the rules: (its number, how many, what it was, what it should
    be, where it stands, what that says went wrong: ``_where``)."""
    was, probes = (tr("not recorded", "没有被记录"), tr("recorded", "被记录")), case.expected.probes
    wrong = [(i, g, w) for i, (g, w) in enumerate(zip(got, probes), 1) if g != w]
    if not wrong:
        return None
    i, g, w = wrong[0]
    places = case.expected.places
    where = _where(places[i - 1], bool(g)) if len(places) == len(probes) else ("", "")
    return (i, len(probes), was[bool(g)], was[bool(w)], *where)


def _where(place: Any, got: bool) -> tuple[str, str]:
    """Where a wrong probe stands, and what its place says went wrong (``cases.Place``)."""
    on = (tr("off", "关闭"), tr("on", "开启"))
    if place.after:
        ended = tr("ended by raising", "因抛出异常而结束") if place.raised else tr("ended", "结束")
        where = tr(
            f", just after a {place.after} {ended}", f"，紧接在一个 {place.after}{ended}之后"
        )
        if place.nested is not None and got == place.nested:
            kind = place.after.split("(")[0].lstrip("@").removeprefix("with ")
            shared = (
                tr(
                    "do the two blocks share one remembered mode?",
                    "这两个块是否共用了同一个记住的模式？",
                )
                if place.nested == place.own
                else tr(
                    "the two blocks shared one remembered mode", "这两个块共用了同一个记住的模式"
                )
            )
            return where, tr(
                f": leaving the block put back the mode from before the {kind} nested in it "
                f"(recording {on[got]}), not the mode from before itself ({shared})",
                f"：离开该块时恢复的是嵌套在其中的 {kind} 之前的模式（记录{on[got]}），而不是"
                f"它自己之前的模式（{shared}）",
            )
        kept = (
            tr("kept its own mode", "保留了它自己的模式")
            if got == place.own
            else tr("set the opposite of its own mode", "设成了与它自己相反的模式")
        )
        return where, tr(
            f": leaving the block {kept} (recording {on[got]}) instead of putting back the mode "
            "from before it",
            f"：离开该块时{kept}（记录{on[got]}），而没有恢复进入它之前的模式",
        )
    if place.called:
        return (
            tr(
                f", just after the call {place.called} (no with)",
                f"，紧接在调用 {place.called} 之后（没有 with）",
            ),
            tr(": the call did not set the mode", "：这次调用没有设置模式"),
        )
    if place.inside:
        return tr(f", inside a {place.inside}", f"，在一个 {place.inside}内部"), tr(
            f": entering it did not turn recording {on[not got]}",
            f"：进入它时没有把记录{on[not got]}",
        )
    return "", ""


grad_mode_verdict = rules(  # the probes, against the rules run on a plain flag
    (
        lambda c, g: isinstance(g, list) and "swallowed" in g,
        {
            "en": "an exception raised inside a with block did not come out of it: __exit__ "
            "returned a true value, which tells Python to swallow the exception",
            "zh": "在 with 块内抛出的异常没有传出来：__exit__ 返回了一个真值，这会让 Python 吞掉"
            "这个异常",
        },
        {
            "en": "__exit__ puts the mode back and returns nothing (None)",
            "zh": "__exit__ 恢复原来的模式，并且什么也不返回（None）",
        },
    ),
    (
        lambda c, g: (
            (not isinstance(g, list) or len(g) != len(c.expected.probes))
            and (len(c.expected.probes), show(g))
        ),
        {"en": "expected {0} probes, received {1}", "zh": "期望 {0} 个探针，实际收到 {1}"},
    ),
    (
        _wrong_probe,
        {
            "en": "probe {0} of {1}{4}: x * 2 was {2}, expected {3}{5}",
            "zh": "第 {0} 个探针（共 {1} 个）{4}：x * 2 {2}，期望{3}{5}",
        },
        {
            "en": "On the way in, remember the mode from before and set the block's own; on the "
            "way out, put back the remembered one (each block its own, kept on the instance), "
            "even after an exception",
            "zh": "进入时，记住之前的模式并设置该块自己的模式；退出时，恢复记住的那个模式（每个块"
            "各记各的，保存在实例上），即使发生了异常也一样",
        },
    ),
)


# -- task 4.6 -------------------------------------------------------------------------------


def _tuples(case: Case) -> str:
    """Words for a tuple of inputs or outputs, where the case has one."""
    if not isinstance(case.expected.result, list):
        return ""
    return tr(
        "with a tuple of inputs, or a function returning a tuple, the results are tuples too, "
        "as in PyTorch: jvp's J u has one item per output, hessian's [i][j] is the block of "
        "inputs i and j",
        "输入是元组、或函数返回元组时，结果也是元组，与 PyTorch 一样：jvp 的 J u 每个输出对应"
        "一项，hessian 的 [i][j] 是输入 i 和 j 的块",
    )


def _names(case: Case) -> list[str]:
    """The inputs as the case's label names them: x, or x and y (a tuple of inputs)."""
    return ["x", "y"] if isinstance(case.inputs["x"], list) else ["x"]


def _nesting(value: Any) -> str:
    """What a received result is, in words: "a Tensor of shape (2, 3)", "a tuple of 2
    tuples of 2", …"""
    if isinstance(value, np.ndarray):
        return tr(f"a Tensor of shape {value.shape}", f"形状为 {value.shape} 的 Tensor")
    if isinstance(value, list):
        inner = {len(v) for v in value if isinstance(v, list)}
        if inner and all(isinstance(v, list) for v in value) and len(inner) == 1:
            each = inner.pop()
            return tr(
                f"a tuple of {len(value)} tuples of {each}",
                f"由 {len(value)} 个元组组成的元组（每个含 {each} 项）",
            )
        return tr(f"a tuple of {len(value)}", f"含 {len(value)} 项的元组")
    return show(value)


# the rule a two-input Hessian's blocks follow, as PyTorch's do
BLOCKS = {
    "en": "H[i][j] is the block of inputs i and j, ∂/∂(input j) of ∂f/∂(input i), of input i's "
    "shape followed by input j's (hessian is the jacobian of the gradient, and jacobian's "
    "[i][j] is output i by input j)",
    "zh": "H[i][j] 是输入 i 和 j 的块，即 ∂f/∂(输入 i) 对输入 j 的导数，形状为输入 i 的形状后接"
    "输入 j 的形状（hessian 是梯度的 jacobian，而 jacobian 的 [i][j] 对应输出 i 与输入 j）",
}


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
        return tr(
            f"hessian(f, (x, y)) returned {_nesting(blocks)}: for a tuple of {k} inputs it "
            f"returns a tuple of {k} tuples of {k} blocks. {say(BLOCKS)}",
            f"hessian(f, (x, y)) 返回了{_nesting(blocks)}：对含 {k} 个输入的元组，它应返回由 {k} "
            f"个元组组成的元组，每个含 {k} 个块。{say(BLOCKS)}",
        )
    names, places = _names(case), [(a, b) for a in range(k) for b in range(k)]
    shapes = {(a, b): np.shape(want[a][b]) for a, b in places}

    def named(i: int, j: int, what: str, a: int, b: int) -> str:
        how = tr("transposed", "转置了") if (a, b) == (j, i) else tr("out of place", "错位了")
        return tr(
            f"{what} of [{a}][{b}]: the blocks are {how}. {say(BLOCKS)}",
            f"{what} [{a}][{b}] 的：这些块{how}。{say(BLOCKS)}",
        )

    for i, j in places:
        shape = np.shape(blocks[i][j])
        if shape != shapes[i, j]:
            whose = (
                tr(f"{names[i]}'s shape twice", f"{names[i]} 的形状重复两次")
                if i == j
                else tr(
                    f"{names[i]}'s shape, then {names[j]}'s",
                    f"先是 {names[i]} 的形状，再是 {names[j]} 的",
                )
            )
            what = tr(
                f"{_block(case, i, j)}, should have shape {shapes[i, j]} ({whose}): received "
                f"shape {shape}",
                f"{_block(case, i, j)} 的形状应为 {shapes[i, j]}（{whose}）：实际收到形状 {shape}",
            )
            other = next((p for p in places if shapes[p] == shape), None)
            if other:
                return named(i, j, tr(f"{what}, that", f"{what}，是"), *other)
            return tr(f"{what}. {say(BLOCKS)}", f"{what}。{say(BLOCKS)}")
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
        if not other:
            return None
        held = tr(f"{_block(case, i, j)} holds the values", f"{_block(case, i, j)} 中的值是")
        return named(i, j, held, *other)
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
            return tr(
                f"jvp(...)[1], J u, is {_nesting(result)}: J u has one item per output of f, not "
                "one per input, and f returns one Tensor: return that Tensor (result[0] when "
                "out is a Tensor, whatever the inputs), as PyTorch does",
                f"jvp(...)[1]（即 J u）是{_nesting(result)}：J u 对 f 的每个输出有一项，而不是"
                "每个输入一项；f 只返回一个 Tensor，就返回那个 Tensor（只要 out 是一个 Tensor，"
                "无论有几个输入，都返回 result[0]），与 PyTorch 一样",
            )
        return tr(
            "jvp(...)[1], J u, is a tuple: for one Tensor input and a function returning one "
            "Tensor, return the Tensor itself (grads[0]), as PyTorch does",
            "jvp(...)[1]（即 J u）是一个元组：输入是一个 Tensor、函数也返回一个 Tensor 时，应"
            "返回该 Tensor 本身（grads[0]），与 PyTorch 一样",
        )
    if not isinstance(result, list) and np.shape(result) == np.shape(want[0]):
        return tr(
            f"jvp(...)[1], J u, is {_nesting(result)}, one item, where f returns {len(want)} "
            "outputs: J u has one item per output of f (only the first output's was returned)",
            f"jvp(...)[1]（即 J u）是{_nesting(result)}，只有一项，而 f 返回 {len(want)} 个输出："
            "J u 对 f 的每个输出有一项（只返回了第一个输出的那一项）",
        )
    if not isinstance(result, list) or len(result) != len(want):
        return None  # the values' comparison names it
    shapes = [np.shape(w) for w in want]
    for i, item in enumerate(result):
        shape = np.shape(item)
        if shape != shapes[i] and shape in shapes:
            return tr(
                f"jvp(...)[1][{i}], J u for f's output {i}, should have that output's shape "
                f"{shapes[i]}: received shape {shape}, that of output {shapes.index(shape)}. J u "
                "has one item per output of f, in the outputs' order (not one per input)",
                f"jvp(...)[1][{i}]（即 f 的输出 {i} 的 J u）应当具有该输出的形状 {shapes[i]}："
                f"实际收到形状 {shape}，是输出 {shapes.index(shape)} 的形状。J u 对 f 的每个"
                "输出有一项，按输出的顺序排列（而不是每个输入一项）",
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
                        and (
                            g.get("type_name"),
                            _tuples(c) and tr(f" ({_tuples(c)})", f"（{_tuples(c)}）"),
                        )
                    ),
                    {
                        "en": "jvp returned a {0}, not the tuple (func(x), J u){1}",
                        "zh": "jvp 返回了一个 {0}，而不是元组 (func(x), J u){1}",
                    },
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
                {
                    "en": "hessian(f, x) is all zeros: the gradient it differentiates was not "
                    "recorded as a function of x",
                    "zh": "hessian(f, x) 全为零：它所求导的那个梯度没有被记录为 x 的函数",
                },
                {
                    "en": "Compute the inner gradient with create_graph=True",
                    "zh": "用 create_graph=True 计算内层的梯度",
                },
            )
        ],
        before=rules(
            (
                lambda c, g: not _tuples(c) and g.get("type_name") in ("tuple", "list"),
                {
                    "en": "hessian returned a {got[type_name]}: for one Tensor input return the "
                    "Tensor itself (grads[0]), as PyTorch does; a tuple is for a tuple of inputs",
                    "zh": "hessian 返回了一个 {got[type_name]}：输入是一个 Tensor 时，应返回该 "
                    "Tensor 本身（grads[0]），与 PyTorch 一样；元组只用于输入是元组的情况",
                },
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
            {
                "en": "hessian called f with {got[short_call]} argument(s) and f raised "
                "TypeError: f takes each of the {0} inputs of the tuple (x, y), and the Hessian "
                "has a block for each pair of them",
                "zh": "hessian 用 {got[short_call]} 个参数调用了 f，f 抛出了 TypeError：f 接受"
                "元组 (x, y) 中全部 {0} 个输入，而黑塞矩阵对其中每一对输入都有一个块",
            },
            {
                "en": "Call f with every input, and differentiate with respect to every input",
                "zh": "用所有输入调用 f，并对每个输入求导",
            },
        )
    ),
    _functional_values,
    rules(
        (
            lambda c, g: c.expected.create_graph and g.get("detached"),
            {
                "en": "{got[detached][0]} does not require grad, with create_graph=True: it was "
                "detached, or a backward pass under it did not record (it is not differentiable)",
                "zh": "在 create_graph=True 下，{got[detached][0]} 不需要梯度：它被 detach 了，"
                "或者它下面的某次反向传播没有被记录（因而它不可微）",
            },
            {
                "en": "Record both backward passes with create_graph=True, and detach nothing "
                "when create_graph is True",
                "zh": "两次反向传播都用 create_graph=True 记录，create_graph 为 True 时不要 "
                "detach 任何东西",
            },
        ),
        (
            lambda c, g: not c.expected.create_graph and g.get("attached"),
            {
                "en": "{got[attached][0]} requires grad, without create_graph=True: the result "
                "still carries the graph it was computed on (PyTorch returns it detached)",
                "zh": "没有设置 create_graph=True，{got[attached][0]} 却需要梯度：结果仍带着"
                "计算它时的计算图（PyTorch 返回的是 detach 过的结果）",
            },
            {
                "en": "Detach the results unless create_graph",
                "zh": "除非设置了 create_graph，否则把结果 detach",
            },
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
    where = tr(
        f"{found.get('function')} ({found.get('file')}, line {found.get('line')}: "
        f"{found.get('code')}) compared a Tensor with ",
        f"{found.get('function')}（{found.get('file')}，第 {found.get('line')} 行："
        f"{found.get('code')}）",
    )
    raised = tr(
        f"which raised {found.get('error')}: {found.get('message')}",
        f"引发了 {found.get('error')}：{found.get('message')}",
    )
    if found.get("other") == "NoneType":
        return tr(
            f"{where}None by {found.get('operator')}, {raised}. == on a Tensor is "
            "elementwise (it builds a new Tensor of the comparisons): test for None with "
            "`is None` or `is not None`",
            f"{where}用 {found.get('operator')} 把 Tensor 与 None 作比较，{raised}。Tensor 上的 "
            "== 是逐元素的（它会构建一个由比较结果组成的新 Tensor）：判断是否为 None 请用 "
            "`is None` 或 `is not None`",
        )
    return tr(
        f"{where}a {found.get('other')} by {found.get('operator')}, {raised}. == on a Tensor "
        "is elementwise: it builds a new Tensor of the elements' comparisons, never True or "
        "False for the objects, so `in`, `not in`, ==, != and list.index or .remove cannot "
        "tell vertices apart. Compare identities instead: `v is p`, id(v), or keep the "
        "vertices in a set or as dict keys (Nodes and Tensors hash by identity)",
        f"{where}用 {found.get('operator')} 把 Tensor 与一个 {found.get('other')} 作比较，"
        f"{raised}。Tensor 上的 == 是逐元素的：它构建一个由各元素比较结果组成的新 Tensor，而不会"
        "对这两个对象给出 True 或 False，所以 `in`、`not in`、==、!= 以及 list.index 或 "
        ".remove 都无法区分顶点。请改为比较身份：`v is p`、id(v)，或者把顶点放进集合或作为"
        "字典的键（Node 和 Tensor 按身份计算哈希）",
    )


# -- the checks -----------------------------------------------------------------------------

# A check requires only tasks before its own (4.1 < 4.2 < ... < 4.6, the notebook's order),
# so that a student whose earlier tasks pass sees each task's check pass as they go.
ENGINE = ("4.1",)  # backward_pass runs count_dependencies
THROUGH_ENGINE = ("4.1", "4.2")  # backward_pass, delivering with the given keep_grad
END_TO_END = ("4.1", "4.2", "4.3")  # out.backward(): seed (4.4), backward_pass, accumulate
FUNCTIONAL = ("4.1", "4.2", "4.4", "4.5")  # jvp and hessian: grad under enable_grad


NONE_LABEL = {
    "en": "backwards that return None (NoneBackward.apply(t) is 2·t, and its backward returns "
    "None for t, which requires grad)",
    "zh": "返回 None 的反向函数（NoneBackward.apply(t) 为 2·t，它的反向函数对需要梯度的 t "
    "返回 None）",
}


NONE_ONE = {
    "en": "a backward that returns None (NoneBackward.apply(t) is 2·t, and its backward returns "
    "None for t)",
    "zh": "一个返回 None 的反向函数（NoneBackward.apply(t) 为 2·t，它的反向函数对 t 返回 None）",
}


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
                count_row(
                    {"en": "a diamond", "zh": "菱形图"}, diamond
                ),  # first: its a is reached twice, by two nodes
                count_row(
                    {"en": "x used twice by one node", "zh": "x 被同一个节点使用两次"}, twice
                ),
                count_row(
                    {"en": "a used by 6 nodes", "zh": "a 被 6 个节点使用"}, lambda rng: wide(rng, 6)
                ),
                count_row(
                    {"en": "two roots sharing a subgraph", "zh": "两个根节点共享一个子图"}, shared
                ),
                count_row(
                    {
                        "en": "a root that another root reaches",
                        "zh": "一个根节点能被另一个根节点到达",
                    },
                    root_below_root,
                ),
                count_row(
                    {"en": "the same root twice", "zh": "同一个根节点出现两次"},
                    lambda rng: repeated_root(rng, diamond),
                ),
                count_row(
                    {"en": "a leaf that is a root too", "zh": "一个同时也是根节点的叶子节点"},
                    leaf_root,
                ),
                count_row(
                    {
                        "en": "constants, and a branch no root reaches",
                        "zh": "常量，以及一个没有根节点能到达的分支",
                    },
                    constants,
                ),
                count_row(NONE_LABEL, none_contributions),
                count_row(
                    {"en": "short and long paths to b", "zh": "通往 b 的一短一长两条路径"},
                    long_and_short,
                ),
                count_row({"en": "a layer", "zh": "一层网络"}, layer),
                count_row(
                    {"en": "a random graph", "zh": "随机图"}, lambda rng: random_graph(rng, 10)
                ),
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
        title={"zh": "count_dependencies：最多 100,000 个节点的链"},
    ),
    Check(
        "4.2",
        "backward_pass: each vertex once, with its complete gradient",
        Rows(
            [
                engine_row(
                    {"en": "x used twice by one node", "zh": "x 被同一个节点使用两次"}, twice
                ),
                engine_row(
                    {"en": "a diamond of scalars", "zh": "由标量组成的菱形图"},
                    lambda rng: diamond(rng, ()),
                ),
                engine_row({"en": "a diamond", "zh": "菱形图"}, diamond),
                engine_row(
                    {"en": "short and long paths to b", "zh": "通往 b 的一短一长两条路径"},
                    long_and_short,
                ),
                engine_row(
                    {"en": "a used by 6 nodes", "zh": "a 被 6 个节点使用"}, lambda rng: wide(rng, 6)
                ),
                engine_row(
                    {"en": "two roots sharing a subgraph", "zh": "两个根节点共享一个子图"}, shared
                ),
                engine_row(
                    {
                        "en": "a root that another root reaches",
                        "zh": "一个根节点能被另一个根节点到达",
                    },
                    root_below_root,
                ),
                engine_row(
                    {
                        "en": "a root that another root reaches, listed last",
                        "zh": "一个能被另一个根节点到达的根节点，排在最后",
                    },
                    root_above_root,
                ),
                engine_row(
                    {"en": "the same root twice", "zh": "同一个根节点出现两次"},
                    lambda rng: repeated_root(rng, diamond),
                ),
                engine_row(
                    {"en": "a leaf that is a root too", "zh": "一个同时也是根节点的叶子节点"},
                    leaf_root,
                ),
                engine_row(
                    {
                        "en": "constants, and a branch no root reaches",
                        "zh": "常量，以及一个没有根节点能到达的分支",
                    },
                    constants,
                ),
                engine_row(NONE_ONE, none_returned),
                engine_row(NONE_LABEL, none_contributions),
                engine_row({"en": "a layer", "zh": "一层网络"}, layer),
                engine_row(
                    {"en": "a random graph", "zh": "随机图"}, lambda rng: random_graph(rng, 12)
                ),
            ]
        ),
        programs.engine,
        engine_verdict,
        requires=ENGINE,
        title={"zh": "backward_pass：每个顶点恰好一次，带着它的完整梯度"},
    ),
    Check(
        "4.2",
        "backward_pass: hooks",
        Rows(
            [
                engine_row(
                    {"en": "a hook that returns 2g", "zh": "一个返回 2g 的钩子"},
                    lambda rng: diamond(rng, ()),
                    hooks=[("b", "double")],
                ),
                engine_row(
                    {"en": "hooks on a leaf and a node", "zh": "叶子节点和一个节点上的钩子"},
                    diamond,
                    hooks=[("a", "observe"), ("c", "double")],
                ),
                engine_row(
                    {"en": "two hooks on one tensor", "zh": "同一个张量上的两个钩子"},
                    long_and_short,
                    hooks=[("b", "double"), ("b", "observe")],
                ),
                engine_row(
                    {"en": "a hook on a leaf used twice", "zh": "被使用两次的叶子节点上的钩子"},
                    twice,
                    hooks=[("x", "double")],
                ),
                engine_row(
                    {"en": "a hook on the root", "zh": "根节点上的钩子"},
                    diamond,
                    hooks=[("out", "double")],
                ),
            ]
        ),
        programs.engine,
        engine_verdict,
        requires=ENGINE,
        title={"zh": "backward_pass：钩子"},
    ),
    Check(
        "4.2",
        "backward_pass: retain_graph and freeing",
        Rows(
            [
                engine_row({"en": "released after use", "zh": "用后即释放"}, layer),
                engine_row(
                    {"en": "released, then used again", "zh": "释放后再次使用"}, diamond, passes=2
                ),
                engine_row({"en": "kept", "zh": "保留"}, diamond, retain_graph=True, passes=2),
                engine_row(
                    {
                        "en": "gradients freed as the pass goes, on a chain of 40 tanh (x → t0 = "
                        "x.tanh() → … → t39 → out = t39.sum())",
                        "zh": "随着传播的进行释放（节点保存的张量），在一条由 40 个 tanh "
                        "组成的链上（x → t0 = x.tanh() → … → t39 → out = t39.sum()）",
                    },
                    lambda rng: tanh_chain(rng, 40),
                    chain=True,
                    shown=False,
                ),
            ]
        ),
        programs.engine,
        engine_verdict,
        requires=ENGINE,
        title={"zh": "backward_pass：retain_graph 与释放"},
    ),
    Check(
        "4.2",
        "backward_pass: the same bits every time",
        Rows(
            [
                engine_row(
                    {"en": "a used by 8 nodes", "zh": "a 被 8 个节点使用"},
                    lambda rng: wide(rng, 8),
                    repeats=6,
                ),
                engine_row(
                    {"en": "a random graph", "zh": "随机图"},
                    lambda rng: random_graph(rng, 14, 2),
                    repeats=3,
                ),
            ]
        ),
        programs.engine,
        engine_verdict,
        requires=ENGINE,
        title={"zh": "backward_pass：每次都得到相同的比特"},
    ),
    Check(
        "4.2",
        "backward_pass on chains of up to 100,000 nodes",
        lambda rng: [chain_backward_case(1_000), chain_backward_case(100_000)],
        programs.chain_backward,
        chain_backward_verdict,
        requires=ENGINE,
        title={"zh": "backward_pass：最多 100,000 个节点的链"},
    ),
    Check(
        "4.2",
        ("backward_pass inside a local backward (a node whose backward runs backward_pass)"),
        Rows(
            [
                engine_row({"en": "re-entrant", "zh": "重入"}, checkpointed),
                engine_row({"en": "re-entrant", "zh": "重入"}, checkpoint_branch),
            ]
        ),
        programs.engine,
        engine_verdict,
        requires=ENGINE,
        title={"zh": "在局部反向函数中调用 backward_pass（节点的反向函数会运行 backward_pass）"},
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
        title={"zh": "create_graph=True：二阶导数"},
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
        title={"zh": "c = a + b，反向传播两次"},
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
                lambda rng: kept_case(
                    {"en": "a diamond", "zh": "菱形图"}, diamond(rng), rng, ["a", "b"], 1
                ),
                lambda rng: kept_case(
                    {"en": "a layer, twice", "zh": "一层网络，两次"},
                    layer(rng),
                    rng,
                    ["W", "x", "h"],
                    2,
                ),
            ]
        ),
        programs.kept,
        kept_verdict,
        requires=END_TO_END,
        title={"zh": "out.backward()：叶子节点保留 .grad，retain_grad()"},
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

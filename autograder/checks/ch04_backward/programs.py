"""Chapter 4's check programs: the only part of the checks that runs next to the code under
test. A graph travels as a list of leaves (name, data, requires_grad) and steps (name, op,
args: earlier names or numbers), is built here with the given ``Tensor`` and its operators,
and the engine's parts are called on it; each program returns what it saw, by the case's
names for the tensors, and decides nothing. The parent (``cases.py``) knows every edge from
the same lists and computes what each part must give.

Long chains are made of hand-built ``Node``s (the given graph format, a one-line
``Function``) so that 100,000 of them cost little more than the engine's own work."""

from __future__ import annotations

import functools
import linecache
import numbers
import os
import sys
import traceback
import weakref
from collections.abc import Callable
from typing import Any, TypedDict

import numpy as np

from ...harness.kit import Raised, array, raised, tensor

ROOM = 100  # calls a check lets a part of the engine make on a 300-node chain


def shallow(fn: Callable[[], Any]) -> str:
    """Run ``fn()`` with the recursion limit ``ROOM`` calls above this frame's depth: "" when
    it fits, else the name of the function that recursed past that (an iterative walk stays
    a few calls deep; a recursive one goes as deep as the graph)."""
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + ROOM)
    try:
        fn()
    except RecursionError as error:
        return recursing(error)
    finally:
        sys.setrecursionlimit(limit)
    return ""


def recursing(error: BaseException) -> str:
    """The function that called itself: the name most frequent among the frames of
    ``error``'s traceback (in ``name`` form, with its file's name)."""
    frames = traceback.extract_tb(error.__traceback__)
    names = [f"{f.name} ({f.filename.rsplit('/', 1)[-1]})" for f in frames]
    return max(names, key=names.count) if names else "a function"


class Compared(TypedDict):
    """Where the chapter's code compared a Tensor with ``==`` or ``!=`` (``in``, ``not in``,
    ``list.index`` and ``list.remove`` compare with ``==`` too), and what the run then raised
    there: the operator, the other operand's type, the function, file, line and its text."""

    operator: str
    other: str
    function: str
    file: str
    line: int
    code: str
    error: str
    message: str


def telling_apart(program: Callable[..., Any]) -> Callable[..., Any]:
    """``program``, with each ``==`` and ``!=`` on a Tensor that the chapter's own code (a
    file of ``sp``'s package) makes noted while it runs. Where the run raises at such a line
    (``node in ready`` builds a Tensor from the Node and raises TypeError; two Tensors of
    several elements make ``in`` raise ValueError), the program returns ``{"compared":
    Compared}`` instead: == on a Tensor is elementwise, which the verdict names. Anything
    else is raised as before."""

    @functools.wraps(program)
    def run(sp, **inputs: Any) -> Any:
        sites: dict = {}
        cls, package = sp.Tensor, os.path.dirname(os.path.abspath(sp.__file__))
        originals = {name: vars(cls)[name] for name in ("__eq__", "__ne__") if name in vars(cls)}

        def watch(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
            def compare(self: Any, other: Any) -> Any:
                frame = sys._getframe(1)
                where = (frame.f_code.co_filename, frame.f_lineno)
                if where not in sites and os.path.dirname(os.path.abspath(where[0])) == package:
                    code = frame.f_code
                    sites[where] = {
                        "operator": "==" if name == "__eq__" else "!=",
                        "other": type(other).__name__,
                        "function": getattr(code, "co_qualname", code.co_name),
                        "file": os.path.basename(where[0]),
                        "line": where[1],
                        "code": linecache.getline(where[0], where[1]).strip(),
                    }
                return original(self, other)

            return compare

        for name, original in originals.items():
            setattr(cls, name, watch(name, original))
        try:
            return program(sp, **inputs)
        except Exception as error:
            last = [
                (frame.f_code.co_filename, line)
                for frame, line in traceback.walk_tb(error.__traceback__)
                if os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == package
            ]
            if not last or last[-1] not in sites:
                raise
            return {
                "compared": {
                    **sites[last[-1]],
                    "error": type(error).__name__,
                    "message": str(error),
                }
            }
        finally:
            for name, original in originals.items():
                setattr(cls, name, original)

    return run


# What crosses the pipe (messages name things as the student writes them: ``counts[b]``,
# ``the gradient delivered to c``, from the verdicts, never from a key).
class CountResult(TypedDict, total=False):
    """``count_dependencies``'s result, by vertex name (None: not a key), and the keys that
    are no vertex of the graph (their type names)."""

    type_name: str
    counts: list
    strangers: list[str]
    leaf_read: str  # an attribute count_dependencies read on a leaf root, which has none
    leaf: str  # that leaf root


class ChainResult(TypedDict, total=False):
    """A long chain: how many keys (vertices) held each count, or how often each vertex was
    delivered, the leaf's gradient, how many nodes were released; which function recursed
    past ``ROOM`` calls on a short chain, or on the long one ("": none); a short code where
    the long chain could not finish ("recursion")."""

    histogram: list  # [value, how many vertices] pairs, sorted
    leaf_grad: Any
    released: int
    recursed: str  # "" or the function that recursed
    problem: str


class EngineResult(TypedDict, total=False):
    """``backward_pass`` on a graph: per vertex (the case's order), how often it was
    delivered and the first gradient delivered; per hooked tensor, what its hook received;
    per node, whether its saved tensors were released; deliveries to strangers; the most
    earlier gradients alive at one delivery (chains only); a second pass's gradients, or
    what it raised; the gradients of each repeated build."""

    deliveries: list[int]
    grads: list
    hook_inputs: list
    released: list[bool]
    strangers: int
    live_peak: int
    held_at_leaf: int
    second: Any
    repeated: list
    arrived: list  # per vertex, the contributions sent to it (by Node.backward) before it
    # was first delivered (None: never delivered)
    freed_first: str  # what the first pass raised: a node's saved tensors were gone
    touched: list[str]  # leaves whose .grad the pass changed (deliver records only)


class SecondOrder(TypedDict, total=False):
    """``autograd.grad`` twice: the first gradient, whether it is recorded (requires grad),
    and the second derivative (absent when the first was not recorded)."""

    first: Any
    first_requires_grad: bool
    second: Any
    seed_lost: bool


class Accumulated(TypedDict, total=False):
    """``accumulate`` called once per gradient, as ``backward()`` calls it: ``.grad``'s
    values after each call and whether each requires grad; with gradients that require grad
    (and a ``.grad`` that requires grad after every call), ``through``: the gradient of
    ``t.grad.sum()`` with respect to each gradient sent (then the preset's leaf), None where
    ``t.grad`` does not depend on it (the parent expects ones)."""

    values: list
    each_requires_grad: list[bool]
    through: list


class Aliased(TypedDict):
    """``c = a + b`` and backward passes: a.grad and b.grad."""

    a_grad: Any
    b_grad: Any


class Seeded(TypedDict, total=False):
    """What ``seed`` returned: its type, shape, dtype and values, and whether it requires
    grad."""

    type_name: str
    shape: list[int]
    dtype: str
    data: Any
    requires_grad: bool


class Functional(TypedDict, total=False):
    """What ``jvp`` or ``hessian`` returned (values; a tuple's first two items), and which
    of the returned tensors require grad (none may, without create_graph)."""

    type_name: str
    output: Any
    result: Any
    attached: list[str]
    detached: list[str]
    short_call: int  # hessian raised TypeError, having called f with this few arguments


# -- building graphs ----------------------------------------------------------------------


def _none_backward(sp) -> type:
    """An operation (2·a) whose backward returns None for its input, which requires grad."""

    class Blocked(sp.Function):
        @staticmethod
        def forward(ctx, a):
            return a.data * 2.0

        @staticmethod
        def backward(ctx, grad_output):
            return None

    return Blocked


def _checkpoint(sp) -> type:
    """exp(a·a), with a backward that recomputes the forward under grad mode and
    differentiates it with ``backward_pass`` (activation checkpointing): the engine runs
    inside the engine. Grad mode is chapter 2's given switch and the seed is the gradient
    the outer pass hands in, so the check needs no later task (not 4.4's seed, not 4.5's
    enable_grad)."""

    class Checkpoint(sp.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return sp.array_module(a.data).exp(a.data * a.data)  # NumPy, or a device's

        @staticmethod
        def backward(ctx, grad_output):
            (a,) = ctx.saved_tensors
            set_mode = set_grad_mode(sp)
            previous = set_mode(True)
            try:
                again = a.detach().requires_grad_()
                y = (again * again).exp()
            finally:
                set_mode(previous)
            return grad_of(sp, y, grad_output, again)

    return Checkpoint


OPS: dict[str, Callable[..., Any]] = {
    "add": lambda sp, a, b: a + b,
    "sub": lambda sp, a, b: a - b,
    "mul": lambda sp, a, b: a * b,
    "matmul": lambda sp, a, b: a @ b,
    "tanh": lambda sp, a: a.tanh(),
    "exp": lambda sp, a: a.exp(),
    "sum": lambda sp, a: a.sum(),
    "none_backward": lambda sp, a: _none_backward(sp).apply(a),
    "checkpoint": lambda sp, a: _checkpoint(sp).apply(a),
}


def build(sp, leaves: list, steps: list) -> dict[str, Any]:
    """The graph's tensors by name: leaves with the given constructor, steps with the ops."""
    tensors: dict[str, Any] = {}
    for name, data, requires_grad in leaves:
        tensors[name] = sp.Tensor(np.asarray(data, dtype=np.float64), requires_grad=requires_grad)
    for name, op, args in steps:
        values = [tensors[a] if isinstance(a, str) else a for a in args]
        tensors[name] = OPS[op](sp, *values)
    return tensors


def set_grad_mode(sp) -> Callable[[bool], bool]:
    """Chapter 2's given ``_set_grad_enabled(mode)`` (returns the mode from before): what
    the programs switch grad mode with, so that no check before 4.5 needs task 4.5."""
    return vars(sys.modules[sp.Function.__module__])["_set_grad_enabled"]


def grad_of(sp, out: Any, seed: Any, x: Any, create_graph: bool = False) -> Any:
    """What ``autograd.grad(out, x, seed, create_graph=create_graph)`` does, with the seed
    made by the program (no task 4.4): ``backward_pass`` from out's vertex under grad mode
    ``create_graph`` (``retain_graph`` too), x's delivered gradient captured (None when
    none was delivered)."""
    found: list = []
    target = vertex(x)

    def capture(v: Any, grad: Any) -> None:
        if v is target:
            found.append(grad)

    set_mode = set_grad_mode(sp)
    previous = set_mode(create_graph)
    try:
        sp.backward_pass([vertex(out)], [seed], create_graph, create_graph, capture)
    finally:
        set_mode(previous)
    return found[0] if found else None


def vertex(t: Any) -> Any:
    """The engine's vertex of a tensor (given in the chapter, repeated here so the programs
    trust nothing of the code under test): its grad_fn, or the leaf itself."""
    return t if t.grad_fn is None else t.grad_fn


def _names(tensors: dict, order: list[str]) -> dict[int, int]:
    """id(vertex) -> index in ``order`` (the case's vertices)."""
    return {id(vertex(tensors[name])): i for i, name in enumerate(order)}


# -- task 4.1 -----------------------------------------------------------------------------


@telling_apart
def counts(sp, leaves: list, steps: list, roots: list, order: list) -> CountResult:
    """``count_dependencies([vertex(root) for root in roots])``, by the case's vertex names."""
    tensors = build(sp, leaves, steps)
    index = _names(tensors, order)
    try:
        found = sp.count_dependencies([vertex(tensors[r]) for r in roots])
    except AttributeError as error:  # a node's attribute read on a leaf (a Tensor)
        leaf = next((r for r in roots if tensors[r].grad_fn is None), None)
        wording = "'Tensor' object has no attribute"  # en-only: Python's own AttributeError
        if leaf is None or wording not in str(error):
            raise
        return {"type_name": "error", "leaf_read": str(error).rsplit(" ", 1)[-1], "leaf": leaf}
    if not isinstance(found, dict):
        return {"type_name": type(found).__name__}
    by_name: list = [None] * len(order)
    strangers = []
    for key, value in found.items():
        i = index.get(id(key))
        if i is None:
            strangers.append(type(key).__name__)
        else:
            by_name[i] = _count(value)
    return {"type_name": "dict", "counts": by_name, "strangers": strangers}


def _forward_copy(ctx: Any, a: Any) -> Any:
    return a.data


def _hand_on(ctx: Any, grad_output: Any) -> Any:
    return grad_output


def _chain(sp, n: int) -> tuple[Any, Any]:
    """A leaf x and the last of n hand-built nodes after it (x → node → … → node), each of a
    ``Function`` whose forward copies and whose backward hands its gradient on."""
    body = {"forward": staticmethod(_forward_copy), "backward": staticmethod(_hand_on)}
    step = type("Step", (sp.Function,), body)
    x = sp.Tensor(np.array(1.5), requires_grad=True)
    ctx, t = sp.Context((True,)), x
    for _ in range(n):
        out = sp.Tensor._from_array(x.data)
        out.requires_grad = True
        out.grad_fn = sp.Node(step, ctx, (t,))
        t = out
    return x, t


def _count(value: Any) -> Any:
    """A count as a plain int when it is a whole number (an int, a NumPy integer, 2.0: the
    engine counts down with any of them), else its repr."""
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real) and float(value).is_integer():
        return int(value)
    return repr(value)


def _histogram(values: Any) -> list:
    seen: dict[Any, int] = {}
    for v in values:
        key = _count(v)
        seen[key] = seen.get(key, 0) + 1
    return sorted(([k, n] for k, n in seen.items()), key=repr)


@telling_apart
def chain_counts(sp, n: int, short: int) -> ChainResult:
    """``count_dependencies`` on a chain of n nodes (a histogram of its values), and whether
    it recursed on a chain of ``short`` nodes."""
    _, end = _chain(sp, short)
    deep = shallow(lambda: sp.count_dependencies([end.grad_fn]))
    _, end = _chain(sp, n)
    try:
        found = sp.count_dependencies([end.grad_fn])
    except RecursionError as error:
        return {"problem": "recursion", "recursed": recursing(error)}
    return {"histogram": _histogram(found.values()), "recursed": deep}


@telling_apart
def chain_backward(sp, n: int, short: int) -> ChainResult:
    """``backward_pass`` from the end of a chain of n nodes: deliveries per vertex (as a
    histogram), the leaf's gradient, how many nodes were released; and whether a pass over
    ``short`` nodes recursed."""
    _, end = _chain(sp, short)
    seed = sp.Tensor(np.array(1.0))
    deep = shallow(lambda: sp.backward_pass([end.grad_fn], [seed], False, False, _drop))
    x, end = _chain(sp, n)
    calls: dict[int, int] = {}
    got: list = []

    def deliver(v: Any, grad: Any) -> None:
        calls[id(v)] = calls.get(id(v), 0) + 1
        if v is x:
            got.append(array(grad))

    node, nodes = end.grad_fn, []
    while node is not None:
        nodes.append(node)
        node = node.inputs[0].grad_fn
    try:
        sp.backward_pass([end.grad_fn], [seed], False, False, deliver)
    except RecursionError as error:
        return {"problem": "recursion", "recursed": recursing(error)}
    return {
        "histogram": _histogram(list(calls.values()) + [0] * (n + 1 - len(calls))),
        "leaf_grad": got[0] if got else None,
        "released": sum(nd.ctx is None for nd in nodes),
        "recursed": deep,
    }


def _drop(v: Any, grad: Any) -> None:
    return None


# -- task 4.2 -----------------------------------------------------------------------------

HOOKS: dict[str, Callable[[Any], Any]] = {
    "double": lambda g: g * 2.0,  # a hook that returns a replacement
    "observe": lambda g: None,  # a hook that only looks
}


@telling_apart
def engine(
    sp,
    leaves: list,
    steps: list,
    roots: list,
    seeds: list,
    order: list,
    nodes: list,
    hooks: list = (),
    retain_graph: bool = False,
    create_graph: bool = False,
    passes: int = 1,
    repeats: int = 1,
    chain: bool = False,
) -> EngineResult:
    """``backward_pass(roots, seeds, retain_graph, create_graph, deliver)`` on the graph,
    with a ``deliver`` that records what each vertex receives; hooks ([name, kind]) are
    registered first. ``passes=2``: a second pass (retain_graph=False) after the first.
    ``repeats``: the graph built and run again that many times (all kept alive, so no
    vertex reuses an address), each build's gradients returned."""
    tensors = build(sp, leaves, steps)
    index = _names(tensors, order)
    hook_inputs: list = [[] for _ in hooks]
    for i, (name, kind) in enumerate(hooks):
        tensors[name].register_hook(_hook(HOOKS[kind], hook_inputs[i]))
    calls, grads, strangers = [0] * len(order), [None] * len(order), [0]
    sent, arrived = [0] * len(order), [None] * len(order)  # contributions so far; at 1st pop
    alive: list = []
    peak, held = [0], [0]

    def deliver(v: Any, grad: Any) -> None:
        i = index.get(id(v))
        if i is None:
            strangers[0] += 1
            return
        calls[i] += 1
        if grads[i] is None:
            grads[i] = array(grad)
        if arrived[i] is None:
            arrived[i] = sent[i]
        if chain:
            peak[0] = max(peak[0], sum(ref() is not None for ref in alive))
            alive.append(weakref.ref(grad))
            if i == 0:  # the leaf, last: every node has run
                held[0] = sum(tensors[n].grad_fn.ctx is not None for n in nodes)

    def run(ts: dict, sink: Callable, retain: bool) -> None:
        ss = [sp.Tensor(np.asarray(s, dtype=np.float64)) for s in seeds]
        sp.backward_pass([vertex(ts[r]) for r in roots], ss, retain, create_graph, sink)

    marks = {}  # a .grad on each leaf beforehand: the engine leaves it alone (deliver decides)
    for name, data, requires_grad in leaves:
        if requires_grad:
            marks[name] = sp.Tensor(np.zeros(np.shape(data)))
            tensors[name].grad = marks[name]
    original = sp.Node.backward

    def counted(node: Any, grad_output: Any, create_graph: bool = False) -> Any:
        """The given Node.backward, counting what it sends (as trace_backward does)."""
        out = original(node, grad_output, create_graph)
        for x, _ in zip(node.inputs, out if isinstance(out, tuple) else ()):
            i = index.get(id(vertex(x))) if getattr(x, "requires_grad", False) else None
            if i is not None:
                sent[i] += 1
        return out

    sp.Node.backward = counted
    try:
        run(tensors, deliver, retain_graph)
    except RuntimeError as error:  # the given Node.backward refusing a released node
        if "a second time" not in str(error):
            raise
        return {"freed_first": str(error), "deliveries": calls, "arrived": arrived}
    finally:
        sp.Node.backward = original
    result: EngineResult = {
        "deliveries": calls,
        "arrived": arrived,
        "grads": grads,
        "hook_inputs": [[array(g) for g in got] for got in hook_inputs],
        "released": [tensors[name].grad_fn.ctx is None for name in nodes],
        "strangers": strangers[0],
        "touched": [name for name, mark in marks.items() if tensors[name].grad is not mark],
    }
    if chain:
        result["live_peak"] = peak[0]
        result["held_at_leaf"] = held[0]
    if passes == 2:
        again: list = [None] * len(order)

        def second(v: Any, grad: Any) -> None:
            i = index.get(id(v))
            if i is not None and again[i] is None:
                again[i] = array(grad)

        outcome = raised(lambda: run(tensors, second, False))
        result["second"] = again if outcome["error"] is None else outcome
    if repeats > 1:
        builds, each, spacers = [tensors], [grads], []
        for k in range(repeats - 1):
            # objects of other sizes in between, kept alive, so that each build's objects get
            # other ids (and an order that follows ids, other orders)
            spacers.append([[0] * (k + 1) for _ in range(13 * (k + 1))])
            builds.append(build(sp, leaves, steps))
            found: list = [None] * len(order)
            where = _names(builds[-1], order)

            def keep(v: Any, grad: Any, found: list = found, where: dict = where) -> None:
                i = where.get(id(v))
                if i is not None and found[i] is None:
                    found[i] = array(grad)

            run(builds[-1], keep, False)
            each.append(found)
        result["repeated"] = each
    return result


class Kept(TypedDict):
    """``.grad`` of each named tensor after ``out.backward(...)``."""

    grads: list


@telling_apart
def kept(sp, leaves: list, steps: list, roots: list, seeds: list, names: list, passes: int) -> Kept:
    """``out.backward(gradient, retain_graph=True)`` ``passes`` times from the one root,
    after ``retain_grad()`` on each named step; then ``.grad`` of each named tensor."""
    tensors = build(sp, leaves, steps)
    for name in names:
        if tensors[name].grad_fn is not None:
            tensors[name].retain_grad()
    for _ in range(passes):
        gradient = sp.Tensor(np.asarray(seeds[0], dtype=np.float64))
        tensors[roots[0]].backward(gradient, retain_graph=True)
    return {"grads": [array(tensors[name].grad) for name in names]}


def _hook(kind: Callable[[Any], Any], seen: list) -> Callable[[Any], Any]:
    def hook(grad: Any) -> Any:
        seen.append(grad)
        return kind(grad)

    return hook


@telling_apart
def second_order(sp, function: str, x: Any, w: Any = None) -> SecondOrder:
    """g = grad(f(x).sum(), x, create_graph=True), then grad(g.sum(), x); with ``w``, g =
    grad(f(x), x, w, create_graph=True) for w requiring grad, then grad(g.sum(), w). Each
    grad is ``grad_of``: backward_pass with a seed made here (ones, or w itself)."""
    t = sp.Tensor(np.asarray(x, dtype=np.float64), requires_grad=True)
    y = {"cube": lambda a: a**3, "tanh": lambda a: a.tanh(), "exp": lambda a: a * a.exp()}[
        function
    ](t)
    wt = None if w is None else sp.Tensor(np.asarray(w, dtype=np.float64), requires_grad=True)
    if wt is None:
        first = grad_of(sp, y.sum(), sp.Tensor(np.array(1.0)), t, create_graph=True)
    else:
        first = grad_of(sp, y, wt, t, create_graph=True)
    result: SecondOrder = {
        "first": array(first),
        "first_requires_grad": bool(getattr(first, "requires_grad", False)),
    }
    if result["first_requires_grad"]:
        total = first.sum()
        second = grad_of(sp, total, sp.Tensor(np.array(1.0)), t if wt is None else wt)
        result["seed_lost"] = second is None
        result["second"] = array(second)
    return result


# -- task 4.3 -----------------------------------------------------------------------------


@telling_apart
def accumulate(sp, grads: list, preset: Any = None, requires_grad: bool = False) -> Accumulated:
    """``accumulate`` as ``backward()`` calls it, for each g in turn on a leaf t: through
    the given ``keep_grad(t, g)``, which passes accumulate a copy of g that only t holds (a
    clone, recorded when g requires grad), under grad mode ``requires_grad`` (the engine
    runs under ``create_graph``). A preset ``.grad`` (``t.grad = …`` first) is a plain
    Tensor, or with gradients that require grad a recorded copy of a leaf, as an earlier
    ``backward(create_graph=True)`` leaves ``.grad``: either may be added into in place, as
    PyTorch does, or replaced by a new sum."""
    t = sp.Tensor(np.zeros(np.shape(grads[0])), requires_grad=True)
    sources = [tensor(sp, g, requires_grad) for g in grads]
    set_mode = set_grad_mode(sp)
    if preset is not None:
        sources.append(tensor(sp, preset, requires_grad))
        previous = set_mode(True)
        try:
            t.grad = sources[-1].clone() if requires_grad else sources[-1]
        finally:
            set_mode(previous)
    values, each = [], []
    for g in sources[: len(grads)]:
        previous = set_mode(requires_grad)
        try:
            sp.keep_grad(t, g)
        finally:
            set_mode(previous)
        values.append(array(t.grad))
        each.append(getattr(t.grad, "requires_grad", False) is True)
    result: Accumulated = {"values": values, "each_requires_grad": each}
    if requires_grad and all(each):
        result["through"] = [array(g) for g in gradients_of(sp, t.grad, sources)]
    return result


def gradients_of(sp, out: Any, leaves: list) -> list:
    """The gradient of ``out.sum()`` with respect to each of ``leaves`` (None where out does
    not depend on it), by a reverse pass of this program's own under no grad: each node's
    given local backward (chapter 2), in the order of a count of the edges found here, so
    that no task of chapter 4 runs (4.3's checks require no other task)."""
    root, found, todo = vertex(out), {}, [vertex(out)]
    while todo:  # every vertex out reaches, by id (== on a Tensor is elementwise)
        v = todo.pop()
        if id(v) not in found:
            found[id(v)] = v
            todo += [vertex(x) for x in getattr(v, "inputs", ()) if x.requires_grad]
    counts = dict.fromkeys(found, 0)
    for v in found.values():
        for x in getattr(v, "inputs", ()):
            if x.requires_grad:
                counts[id(vertex(x))] += 1
    set_mode = set_grad_mode(sp)
    previous = set_mode(False)
    try:
        pending = {id(root): sp.Tensor(np.ones(np.shape(array(out))))}
        ready, reached = [root], {}
        while ready:
            v = ready.pop()
            grad = pending.pop(id(v), None)
            if not isinstance(v, sp.Node):
                reached[id(v)] = grad
                continue
            local = v.backward(grad, False) if grad is not None else [None] * len(v.inputs)
            for x, g in zip(v.inputs, local):
                if not x.requires_grad:
                    continue
                p = id(vertex(x))
                if g is not None:
                    pending[p] = g if p not in pending else pending[p] + g
                counts[p] -= 1
                if counts[p] == 0:
                    ready.append(vertex(x))
    finally:
        set_mode(previous)
    return [reached.get(id(leaf)) for leaf in leaves]


@telling_apart
def aliasing(sp, a: Any, b: Any, passes: int) -> Aliased:
    """c = a + b, then ``passes`` backward passes from c.sum() as ``backward()`` runs them
    (``backward_pass`` with a seed of 1, retain_graph=True, delivering with the given
    ``keep_grad``, which accumulates: no task 4.4)."""
    ta = sp.Tensor(np.asarray(a, dtype=np.float64), requires_grad=True)
    tb = sp.Tensor(np.asarray(b, dtype=np.float64), requires_grad=True)
    loss = (ta + tb).sum()
    set_mode = set_grad_mode(sp)
    for _ in range(passes):
        previous = set_mode(False)
        try:
            sp.backward_pass([loss.grad_fn], [sp.Tensor(np.array(1.0))], True, False, sp.keep_grad)
        finally:
            set_mode(previous)
    return {"a_grad": array(ta.grad), "b_grad": array(tb.grad)}


# -- task 4.4 -----------------------------------------------------------------------------


def seed(
    sp,
    output: Any,
    dtype: str,
    gradient: Any = None,
    gradient_dtype: str = "float64",
    requires_grad: bool = False,
) -> Seeded | Raised:
    """``seed(out, gradient)`` for out of ``output``'s values and ``dtype`` (a Tensor that
    requires grad) and gradient a Tensor (or None; requiring grad when ``requires_grad``);
    an error is returned as ``raised``."""
    out = sp.Tensor(np.asarray(output, dtype=dtype), requires_grad=True) * 1.0
    grad = None
    if gradient is not None:
        data = np.asarray(gradient, dtype=gradient_dtype)
        grad = sp.Tensor(data, requires_grad=requires_grad)
    made: list = []
    problem = raised(lambda: made.append(sp.seed(out, grad)))
    if problem["error"] is not None:
        return problem
    (found,) = made
    return {
        "type_name": type(found).__name__,
        "shape": list(getattr(found, "shape", ())),
        "dtype": str(getattr(found, "dtype", None)),
        "data": array(found),
        "requires_grad": bool(getattr(found, "requires_grad", False)),
    }


# -- task 4.5 -----------------------------------------------------------------------------


class _Raise(Exception):
    """Raised inside a block, and caught outside it."""


def grad_mode(sp, script: list, data: Any) -> list:
    """Run ``script`` (``cases.GradModeScript``) and return, for each "probe", whether
    ``x * 2`` was recorded there (requires_grad, with a grad_fn), for x holding ``data``;
    "swallowed" where a block's exception did not come out of its ``with``."""
    x = sp.Tensor(np.asarray(data, dtype=np.float64), requires_grad=True)
    probes: list = []
    set_mode = set_grad_mode(sp)  # given code
    set_mode(True)
    try:
        _run_script(sp, x, script, probes)
    finally:
        set_mode(True)  # the next case starts as every program does: recording
    return probes


def _run_script(sp, x: Any, script: list, probes: list) -> None:
    for item in script:
        kind = item[0]
        if kind == "probe":
            y = x * 2.0
            probes.append(bool(y.requires_grad and y.grad_fn is not None))
        elif kind == "call":  # set_grad_enabled(mode) as a plain call
            sp.set_grad_enabled(item[1])
        elif kind == "raise":  # ["raise", a "with" item]: its block raises, caught outside
            _, name, mode, body = item[1]
            try:
                with _context(sp, name, mode):
                    _run_script(sp, x, body, probes)
                    raise _Raise
                probes.append("swallowed")  # __exit__ returned a true value
            except _Raise:
                pass
        elif kind == "decorated":  # a function decorated with the context, called
            body = item[3]
            _context(sp, item[1], item[2])(lambda body=body: _run_script(sp, x, body, probes))()
        else:  # "with": with <context>: body
            with _context(sp, item[1], item[2]):
                _run_script(sp, x, item[3], probes)


def _context(sp, name: str, mode: bool) -> Any:
    return sp.set_grad_enabled(mode) if name == "set_grad_enabled" else getattr(sp, name)()


# -- task 4.6 -----------------------------------------------------------------------------


def _functions(sp, a: Any, b: Any) -> dict[str, Callable[..., Any]]:
    """The functions ``jvp`` and ``hessian`` differentiate (closed forms in ``cases``)."""
    A, B = sp.Tensor(np.asarray(a, dtype=np.float64)), sp.Tensor(np.asarray(b, dtype=np.float64))
    return {
        "quadratic": lambda x: (x @ (A @ x)) * 0.5 + B @ x,
        "two_d": lambda v: v[0] * v[0] * v[1] + (v[0] * v[1]).exp(),
        "tanh_layer": lambda x: (A @ x).tanh(),
        "cubic": lambda x: (x * x * x).sum() + B @ x,
    }


PAIRS: dict[str, Callable[..., Any]] = {  # functions of two inputs (inputs a tuple)
    "pair": lambda x, y: (x * y, (x + y).tanh()),
    "pair_sum": lambda x, y: (x * x * y).sum(),
}
CROSS = ("cross", "cross_layer", "cross_pair")  # two inputs of their own shapes, through A


def _crosses(sp, a: Any) -> dict[str, Callable[..., Any]]:
    """Functions of x and y whose cross terms go through A (closed forms in ``cases``)."""
    A = sp.Tensor(np.asarray(a, dtype=np.float64))
    return {
        "cross": lambda x, y: (x * x) @ (A @ y),
        "cross_layer": lambda x, y: (x * (A @ y)).tanh(),
        "cross_pair": lambda x, y: (x * (A @ y), y.tanh()),
    }


@telling_apart
def functional(
    sp,
    what: str,
    function: str,
    x: Any,
    a: Any,
    b: Any,
    u: Any = None,
    create_graph: bool = False,
) -> Functional:
    """``autograd.functional.jvp(f, x, u, create_graph)`` or ``hessian(f, x, create_graph)``
    for a function above; for one of ``PAIRS`` or ``CROSS``, x and u are tuples of two
    Tensors."""
    if function in PAIRS or function in CROSS:
        f = PAIRS[function] if function in PAIRS else _crosses(sp, a)[function]
        xt: Any = tuple(sp.Tensor(np.asarray(v, dtype=np.float64)) for v in x)
        ut: Any = None if u is None else tuple(sp.Tensor(np.asarray(v, np.float64)) for v in u)
    else:
        f = _functions(sp, a, b)[function]
        xt = sp.Tensor(np.asarray(x, dtype=np.float64))
        ut = sp.Tensor(np.asarray(u, dtype=np.float64))
    fn = sp.autograd.functional
    if what == "jvp":
        found = fn.jvp(f, xt, ut, create_graph=create_graph)
        if isinstance(found, tuple) and len(found) == 2:
            return {
                "type_name": "tuple",
                "output": _arrays(found[0]),
                "result": _arrays(found[1]),
                "attached": _attached("jvp(...)", found),
                "detached": _attached("jvp(...)", found, False),
            }
        return {"type_name": type(found).__name__}
    arities: list[int] = []  # how many arguments each call of f had

    def counted(*args: Any) -> Any:
        arities.append(len(args))
        return f(*args)

    try:
        found = fn.hessian(counted, xt, create_graph=create_graph)
    except TypeError:  # f called with fewer arguments than the tuple of inputs holds
        if isinstance(xt, tuple) and arities and min(arities) < len(xt):
            return {"type_name": "error", "short_call": min(arities)}
        raise
    return {
        "type_name": type(found).__name__,
        "result": _arrays(found),
        "attached": _attached("hessian(f, x)", found),
        "detached": _attached("hessian(f, x)", found, False),
    }


def _arrays(value: Any) -> Any:
    """A Tensor's values, or a tuple's (a list), nested."""
    if isinstance(value, (tuple, list)):
        return [_arrays(v) for v in value]
    return array(value)


def _attached(name: str, value: Any, requires: bool = True) -> list[str]:
    """The returned tensors (by index) that require grad (that do not: ``requires=False``)."""
    if isinstance(value, (tuple, list)):
        return [n for i, v in enumerate(value) for n in _attached(f"{name}[{i}]", v, requires)]
    return [name] if (getattr(value, "requires_grad", False) is True) == requires else []

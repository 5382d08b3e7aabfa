"""Chapter 4's broken set: plausible student bugs in ``count_dependencies``,
``backward_pass``, ``accumulate``, ``seed``, grad mode and ``functional``, the 4.1 stand-in
pasted, and unusual but correct rewrites (judged by tests/test_variants.py)."""

from __future__ import annotations

import inspect
import textwrap
from functools import partial

from tests.trees import edits
from tests.variants import VariantSet

edits = partial(edits, "ch04_backward")

COUNT_RECURSIVELY = """
counts = {v: 0 for v in roots}
seen = set()

def visit(v):
    if v in seen:
        return
    seen.add(v)
    for p in parents(v):
        counts[p] = counts.get(p, 0) + 1
        visit(p)

for v in roots:
    visit(v)
return counts
"""


ACCUMULATE_IN_PLACE = """
if tensor.grad is None:
    tensor.grad = grad
else:
    tensor.grad.data += grad.data
"""

SEED_IGNORES_A_GIVEN_SCALAR_GRADIENT = """
if output.numel() == 1:
    return ones_like(output)
if gradient is None:
    raise RuntimeError(f"grad can be implicitly created only for scalar outputs: {output.shape}")
if gradient.shape != output.shape:
    raise RuntimeError(f"Mismatch in shape: {gradient.shape} and {output.shape}")
return gradient.to(output.dtype)
"""

SEED_CHECKS_LARGER_OUTPUTS_ONLY = """
if gradient is None:
    if output.numel() != 1:
        raise RuntimeError(f"grad can be implicitly created only for scalars: {output.shape}")
    return ones_like(output)
if output.numel() > 1 and gradient.shape != output.shape:
    raise RuntimeError(f"Mismatch in shape: {gradient.shape} and {output.shape}")
return gradient.to(output.dtype)
"""

SEED_OF_COPIED_ARRAYS = """
import numpy as np

if gradient is None:
    if output.numel() != 1:
        raise RuntimeError(f"grad can be implicitly created only for scalars: {output.shape}")
    return ones_like(output)
g = np.asarray(gradient.data)
if g.shape != tuple(output.shape):
    raise RuntimeError(f"Mismatch in shape: {g.shape} and {output.shape}")
return Tensor(g.astype(output.dtype))
"""

HESSIAN_OF_ONE_INPUT = (
    "    return jacobian(gradient, inputs, create_graph)\n",
    "    def first(x):\n"
    "        (g,) = grad(func(x), x, create_graph=True)\n"
    "        return g\n\n"
    "    x = inputs if isinstance(inputs, Tensor) else inputs[0]\n"
    "    return jacobian(first, x, create_graph)\n",
)

SGE_EXIT = (
    "        pass\n\n    def __exit__(self, *exc: object) -> None:\n"
    "        ### BEGIN SOLUTION 4.5\n        _set_grad_enabled(self.previous)\n"
)
ENABLE_EXIT = (
    "        self.previous = _set_grad_enabled(True)\n        ### END SOLUTION\n\n"
    "    def __exit__(self, *exc: object) -> None:\n"
    "        ### BEGIN SOLUTION 4.5\n        _set_grad_enabled(self.previous)\n"
)
HOOKS_RUN = (
    "            for hook in hooks_of(v):\n"
    "                replaced = hook(grad)\n"
    "                if replaced is not None:\n"
    "                    grad = replaced\n"
)

PUSHED = "            if counts[p] == 0:\n                ready.append(p)\n"
RELEASE = "            if not retain_graph:\n                v.release()\n"

# (name, file, edit, the task it breaks): see tests/trees.py
VARIANTS = [
    (
        "pushes a vertex when its first contribution arrives",
        "engine.py",
        (
            PUSHED,
            "            if all(p is not r for r in ready):\n                ready.append(p)\n",
        ),
        "4.2",
    ),
    (
        "counts only unique parents",
        "dependencies.py",
        ("for p in parents(v):", "for p in set(parents(v)):"),
        "4.1",
    ),
    (
        "a dependency count that forgets vertices reached twice",
        "dependencies.py",
        edits(
            "dependencies.py",
            ("    seen = set(counts)\n", ""),
            (
                "counts[p] = counts.get(p, 0) + 1\n"
                "            if p not in seen:\n"
                "                seen.add(p)",
                "if p not in counts:\n                counts[p] = 1",
            ),
        ),
        "4.1",
    ),
    ("recursive depth-first count", "dependencies.py", ("region", COUNT_RECURSIVELY), "4.1"),
    (
        "roots always count 0",
        "dependencies.py",
        edits(
            "dependencies.py",
            ("v: 0 for v in roots", ""),
            ("set(counts)", "set(roots)"),
            ("list(counts)", "list(roots)"),
            ("stack.append(p)", ("stack.append(p)\n    counts.update({v: 0 for v in roots})")),
        ),
        "4.1",
    ),
    ("accumulates in place through .data", "accumulate.py", ("region", ACCUMULATE_IN_PLACE), "4.3"),
    (
        "accumulates on the arrays",
        "accumulate.py",
        edits(
            "accumulate.py",
            (
                "tensor.grad = grad if tensor.grad is None else tensor.grad + grad",
                (
                    "old = tensor.grad\n"
                    "    tensor.grad = grad if old is None else type(grad)(old.data +"
                    " grad.data)"
                ),
            ),
        ),
        "4.3",
    ),
    ("never frees saved tensors", "engine.py", (RELEASE, ""), "4.2"),
    ("retain_graph ignored", "engine.py", (RELEASE, "            v.release()\n"), "4.2"),
    (
        "keeps every gradient in pending",
        "engine.py",
        ("grad = pending.pop(v, None)  #", "grad = pending.get(v)  #"),
        "4.2",
    ),
    (
        "frees leaves: clears a leaf's .grad once it has run",
        "engine.py",
        (
            "            continue  # a leaf: nothing above it\n",
            "            v._grad = None  # done with this vertex: free it\n            continue\n",
        ),
        "4.2",
    ),
    (
        "a hook whose return value is ignored",
        "engine.py",
        (
            "                replaced = hook(grad)\n"
            "                if replaced is not None:\n"
            "                    grad = replaced\n",
            "                hook(grad)\n",
        ),
        "4.2",
    ),
    (
        "create_graph that records nothing",
        "engine.py",
        ("grads = v.backward(grad, create_graph)", "grads = v.backward(grad, False)"),
        "4.2",
    ),
    (
        "no_grad does nothing",
        "grad_mode.py",
        edits(
            "grad_mode.py",
            ("_set_grad_enabled(False)", "is_grad_enabled()"),
        ),
        "4.5",
    ),
    (
        "no_grad's exit turns recording on instead of restoring",
        "grad_mode.py",
        (
            "        self.previous = _set_grad_enabled(False)\n"
            "        ### END SOLUTION\n\n"
            "    def __exit__(self, *exc: object) -> None:\n"
            "        ### BEGIN SOLUTION 4.5\n"
            "        _set_grad_enabled(self.previous)\n",
            "        self.previous = _set_grad_enabled(False)\n"
            "        ### END SOLUTION\n\n"
            "    def __exit__(self, *exc: object) -> None:\n"
            "        ### BEGIN SOLUTION 4.5\n"
            "        _set_grad_enabled(True)\n",
        ),
        "4.5",
    ),
    (
        "set_grad_enabled sets the mode only in a with block",
        "grad_mode.py",
        (
            "        self.previous = _set_grad_enabled(self.mode)\n",
            "        self.previous = is_grad_enabled()\n",
        ),
        "4.5",
    ),
    (
        "seeds with zeros",
        "seed.py",
        ("return ones_like(output)", "return ones_like(output) * 0"),
        "4.4",
    ),
    (
        "seed checks no shape",
        "seed.py",
        ("    if gradient.shape != output.shape:\n", "    if False:\n"),
        "4.4",
    ),
    (
        "seed casts nothing",
        "seed.py",
        ("        gradient = gradient.to(output.dtype)\n", "        pass\n"),
        "4.4",
    ),
    (
        "hessian differentiates a gradient that was not recorded",
        "functional.py",
        (
            "grads = _grads((out,), xs, (None,), create_graph=True)",
            "grads = _grads((out,), xs, (None,), create_graph=False)",
        ),
        "4.6",
    ),
    (
        "ready vertices in a set",
        "engine.py",
        edits(
            "engine.py",
            ("[v for v in pending if counts[v] == 0]", "{v for v in pending if counts[v] == 0}"),
            ("append", "add"),
        ),
        "4.2",
    ),
    (
        "one pending dict shared by every pass (not re-entrant)",
        "engine.py",
        edits(
            "engine.py",
            (
                "pending: dict = {}",
                'pending = backward_pass.__dict__.setdefault("pending", '
                "{})  # one dict, reused by every pass\n"
                "    pending.clear()",
            ),
            (
                "grad = pending.pop(v, None)  # complete now; dropped from here once passed on",
                "grad = pending.pop(v, None)",
            ),
            ("continue  # a leaf: nothing above it", "continue"),
        ),
        "4.2",
    ),
    # found by writing plausible student code against the checks (issue 12)
    (
        "a root listed twice is walked twice",
        "dependencies.py",
        edits(
            "dependencies.py",
            (
                "seen = set(counts)\n    stack = list(counts)",
                "seen = set(roots)\n    stack = list(roots)",
            ),
        ),
        "4.1",
    ),
    (
        "the seeds of a root given twice overwrite each other",
        "engine.py",
        (
            "    for root, grad in zip(roots, seeds):\n"
            "        pending[root] = grad if root not in pending else pending[root] + grad\n",
            "    pending.update(zip(roots, seeds))\n",
        ),
        "4.2",
    ),
    (
        "every root ready at the start",
        "engine.py",
        ("ready = [v for v in pending if counts[v] == 0]", "ready = list(pending)"),
        "4.2",
    ),
    (
        "hooks run when a vertex is pushed (never on a root)",
        "engine.py",
        edits(
            "engine.py",
            (HOOKS_RUN, ""),
            (
                PUSHED,
                "            if counts[p] == 0:\n"
                "                for hook in hooks_of(p) if p in pending else ():\n"
                "                    replaced = hook(pending[p])\n"
                "                    if replaced is not None:\n"
                "                        pending[p] = replaced\n"
                "                ready.append(p)\n",
            ),
        ),
        "4.2",
    ),
    (
        "seed: ones for a one-element output, even when a gradient is given",
        "seed.py",
        ("region", SEED_IGNORES_A_GIVEN_SCALAR_GRADIENT),
        "4.4",
    ),
    (
        "seed checks the shape of larger outputs only",
        "seed.py",
        ("region", SEED_CHECKS_LARGER_OUTPUTS_ONLY),
        "4.4",
    ),
    (
        "seed copies the gradient off its graph",
        "seed.py",
        ("region", SEED_OF_COPIED_ARRAYS),
        "4.4",
    ),
    (
        "enable_grad's exit turns recording off",
        "grad_mode.py",
        (ENABLE_EXIT, ENABLE_EXIT.replace("(self.previous)", "(False)")),
        "4.5",
    ),
    (
        "set_grad_enabled's exit sets the opposite of its mode",
        "grad_mode.py",
        (SGE_EXIT, SGE_EXIT.replace("(self.previous)", "(not self.mode)")),
        "4.5",
    ),
    (
        "enable_grad keeps the mode from before on the class",
        "grad_mode.py",
        (
            "self.previous = _set_grad_enabled(True)",
            "enable_grad.previous = _set_grad_enabled(True)",
        ),
        "4.5",
    ),
    (
        "set_grad_enabled keeps the mode from before on the class",
        "grad_mode.py",
        (
            "self.previous = _set_grad_enabled(self.mode)",
            "set_grad_enabled.previous = _set_grad_enabled(self.mode)",
        ),
        "4.5",
    ),
    (
        "enable_grad's exit returns a true value (swallows the exception)",
        "grad_mode.py",
        (
            ENABLE_EXIT,
            ENABLE_EXIT.replace(
                "        _set_grad_enabled(self.previous)",
                "        return _set_grad_enabled(self.previous)",
            ),
        ),
        "4.5",
    ),
    (
        "jvp's results are not detached",
        "functional.py",
        (
            "        return _finish(out, create_graph), _finish(jv, create_graph)\n",
            "        return out, jv\n",
        ),
        "4.6",
    ),
    (
        "jvp returns the first item only for a function of two outputs",
        "functional.py",
        ("jv = result[0] if isinstance(out, Tensor) else result", "jv = result[0]"),
        "4.6",
    ),
    ("hessian of one input only", "functional.py", HESSIAN_OF_ONE_INPUT, "4.6"),
    (
        "accumulate detaches the first gradient",
        "accumulate.py",
        edits(
            "accumulate.py",
            ("grad if", "grad.detach() if"),
        ),
        "4.3",
    ),
    (
        "the implicit seed computed from out",
        "seed.py",
        ("return ones_like(output)", "return output * 0 + 1"),
        "4.4",
    ),
    (
        "jvp detaches even with create_graph",
        "functional.py",
        (
            "        return _finish(out, create_graph), _finish(jv, create_graph)\n",
            "        return _finish(out, False), _finish(jv, False)\n",
        ),
        "4.6",
    ),
    (
        "hessian ignores create_graph",
        "functional.py",
        (
            "    return jacobian(gradient, inputs, create_graph)\n",
            "    return jacobian(gradient, inputs)\n",
        ),
        "4.6",
    ),
    (
        "the engine detaches the seeds",
        "engine.py",
        (
            "        pending[root] = grad if root not in pending else pending[root] + grad\n",
            "        grad = grad.detach()\n"
            "        pending[root] = grad if root not in pending else pending[root] + grad\n",
        ),
        "4.2",
    ),
    (
        "every node released after the loop",
        "engine.py",
        edits(
            "engine.py",
            (RELEASE, "            ran.append(v)\n"),
            ("    pending: dict = {}\n", "    pending: dict = {}\n    ran = []\n"),
            (
                "                ready.append(p)\n",
                "                ready.append(p)\n"
                "    if not retain_graph:\n"
                "        for node in ran:\n"
                "            node.release()\n",
            ),
        ),
        "4.2",
    ),
    (
        "a count that never walks a leaf",
        "dependencies.py",
        edits(
            "dependencies.py",
            (
                "for p in parents(v):",
                "for x in v.inputs:\n"
                "            if not x.requires_grad:\n"
                "                continue\n"
                "            p = x.grad_fn if x.grad_fn is not None else x",
            ),
            ("if p not in seen:", "if p not in seen and x.grad_fn is not None:"),
        ),
        "4.1",
    ),
    # a student walk-through's bugs, whose messages said too little (issue 12)
    (
        "deliver called for leaves only",
        "engine.py",
        (
            "            deliver(v, grad)\n",
            "            if not isinstance(v, Node):\n                deliver(v, grad)\n",
        ),
        "4.2",
    ),
    (
        "a node released before its backward",
        "engine.py",
        (
            "            grads = v.backward(grad, create_graph)\n"
            "            if not retain_graph:\n"
            "                v.release()\n",
            "            if not retain_graph:\n"
            "                v.release()\n"
            "            grads = v.backward(grad, create_graph)\n",
        ),
        "4.2",
    ),
    (
        "hessian of one Tensor input returned as a 1-tuple",
        "functional.py",
        (
            "    return jacobian(gradient, inputs, create_graph)\n",
            "    found = jacobian(gradient, inputs, create_graph)\n"
            "    return (found,) if isinstance(inputs, Tensor) else found\n",
        ),
        "4.6",
    ),
    # per-input results in another order: cases of two inputs of unequal shapes whose
    # cross terms are not symmetric (issue 26)
    (
        "hessian's blocks as [j][i]",
        "functional.py",
        (
            "    return jacobian(gradient, inputs, create_graph)\n",
            "    found = jacobian(gradient, inputs, create_graph)\n"
            "    if isinstance(inputs, Tensor):\n"
            "        return found\n"
            "    return tuple(tuple(row[i] for row in found) for i in range(len(found)))\n",
        ),
        "4.6",
    ),
    (
        "jacobian's per-input results in reverse order",
        "functional.py",
        (
            "blocks.append(tuple(_stack(r, y.shape, x, create_graph) for r, x in zip(rows, xs)))",
            "blocks.append(tuple(reversed([_stack(r, y.shape, x, create_graph) "
            "for r, x in zip(rows, xs)])))",
        ),
        "4.6",
    ),
    (
        "jacobian nested [input][output]",
        "functional.py",
        (
            "result: Any = tuple(b[0] if single_in else b for b in blocks)",
            "result: Any = tuple(b[0] for b in blocks) if single_in else tuple(zip(*blocks))",
        ),
        "4.6",
    ),
    (
        "jvp's J u nested by the inputs",
        "functional.py",
        (
            "jv = result[0] if isinstance(out, Tensor) else result",
            "jv = result[0] if isinstance(inputs, Tensor) else result",
        ),
        "4.6",
    ),
    # == between a Node and a Tensor (or two Tensors) is elementwise (issue 26)
    (
        "the engine tells vertices apart with in",
        "engine.py",
        (
            PUSHED,
            "            if counts[p] == 0 and p not in ready:\n                ready.append(p)\n",
        ),
        "4.2",
    ),
    # the None rule, stated in the notebook (§4), so public too (issue 12)
    (
        "the engine counts down only gradients that are not None",
        "engine.py",
        (
            "            if g is not None:\n"
            "                pending[p] = g if p not in pending else pending[p] + g\n",
            "            if g is None:\n"
            "                continue  # nothing arrived\n"
            "            pending[p] = g if p not in pending else pending[p] + g\n",
        ),
        "4.2",
    ),
    (
        "a node that received only None passes nothing on",
        "engine.py",
        ("            grads = (None,) * len(v.inputs)\n", "            continue\n"),
        "4.2",
    ),
    (
        "a node that received only None is released too",
        "engine.py",
        (
            "            grads = v.backward(grad, create_graph)\n"
            "            if not retain_graph:\n"
            "                v.release()\n",
            "            grads = v.backward(grad, create_graph)\n"
            "        if not retain_graph:\n"
            "            v.release()\n",
        ),
        "4.2",
    ),
]

# Unusual but correct code: each must score every point.
COUNT_BREADTH_FIRST = """
from collections import deque

counts = dict.fromkeys(roots, 0)
queue = deque(counts)
while queue:
    v = queue.popleft()
    for p in parents(v):
        if p not in counts:
            counts[p] = 0
            queue.append(p)
        counts[p] += 1
return counts
"""

ENGINE_WITH_LISTS = """
from collections import deque

waiting = count_dependencies(roots)
arrived: dict = {}
for root, grad in zip(roots, seeds):
    arrived.setdefault(root, []).append(grad)
queue = deque(v for v in arrived if waiting[v] == 0)
while queue:
    v = queue.popleft()
    parts = [g for g in arrived.pop(v, []) if g is not None]
    grad = None
    for part in parts:
        grad = part if grad is None else grad + part
    if grad is not None:
        for hook in hooks_of(v):
            out = hook(grad)
            grad = grad if out is None else out
        deliver(v, grad)
    if not isinstance(v, Node):
        continue
    grads = (None,) * len(v.inputs) if grad is None else v.backward(grad, create_graph)
    if grad is not None and not retain_graph:
        v.release()
    for x, g in zip(v.inputs, grads):
        if x.requires_grad:
            p = vertex(x)
            arrived.setdefault(p, []).append(g)
            waiting[p] -= 1
            if waiting[p] == 0:
                queue.append(p)
"""

ENGINE_TOPOLOGICAL_ORDER = """
order, seen = [], set()
for r in roots:
    if r in seen:
        continue
    seen.add(r)
    stack = [(r, iter(getattr(r, "inputs", ())))]
    while stack:
        v, it = stack[-1]
        for x in it:
            if x.requires_grad and vertex(x) not in seen:
                p = vertex(x)
                seen.add(p)
                stack.append((p, iter(getattr(p, "inputs", ()))))
                break
        else:
            stack.pop()
            order.append(v)
pending = {}
for root, grad in zip(roots, seeds):
    pending[root] = grad if root not in pending else pending[root] + grad
for v in reversed(order):
    grad = pending.pop(v, None)
    if grad is not None:
        for hook in hooks_of(v):
            out = hook(grad)
            if out is not None:
                grad = out
        deliver(v, grad)
    if not isinstance(v, Node) or grad is None:
        continue
    grads = v.backward(grad, create_graph)
    if not retain_graph:
        v.release()
    for x, g in zip(v.inputs, grads):
        if x.requires_grad and g is not None:
            p = vertex(x)
            pending[p] = g if p not in pending else pending[p] + g
"""

EXIT_BEFORE = (
    "    def __exit__(self, *exc: object) -> None:\n"
    "        ### BEGIN SOLUTION 4.5\n"
    "        _set_grad_enabled(self.previous)\n"
    "        ### END SOLUTION\n\n\nclass "
)
POPPED = EXIT_BEFORE.replace("(self.previous)", "(_MODES.pop())")
GRAD_MODE_ON_A_STACK = edits(
    "grad_mode.py",
    ("import functools\n", "import functools\n\n_MODES: list = []\n"),
    ("self.previous = _set_grad_enabled(False)", "_MODES.append(_set_grad_enabled(False))"),
    ("self.previous = _set_grad_enabled(True)", "_MODES.append(_set_grad_enabled(True))"),
    (EXIT_BEFORE + "enable_grad", POPPED + "enable_grad"),
    (EXIT_BEFORE + "set_grad_enabled", POPPED + "set_grad_enabled"),
)

JVP_AS_JACOBIAN_TIMES_U = """
J = jacobian(func, xs if len(xs) > 1 else xs[0], create_graph=create_graph)
blocks = (J,) if isinstance(out, Tensor) else J
rows = []
for k, y in enumerate(outs):
    per_input = blocks[k] if len(xs) > 1 else (blocks[k],)
    total = None
    for Jij, x, u in zip(per_input, xs, us):
        term = (Jij.reshape(-1, x.numel()) @ u.reshape(-1)).reshape(y.shape)
        total = term if total is None else total + term
    rows.append(total)
jv = rows[0] if isinstance(out, Tensor) else tuple(rows)
return _finish(out, create_graph), _finish(jv, create_graph)
"""

HESSIAN_AS_JACOBIAN_OF_JACOBIAN = (
    "    return jacobian(gradient, inputs, create_graph)\n",
    "    if isinstance(inputs, Tensor):\n"
    "        inner = lambda x: jacobian(func, x, create_graph=True)  # noqa: E731\n"
    "        return jacobian(inner, inputs, create_graph)\n"
    "    return jacobian(gradient, inputs, create_graph)\n",
)

ENGINE_FINISHING_LEAVES_INLINE = """
counts = count_dependencies(roots)
pending: dict = {}
for root, grad in zip(roots, seeds):
    pending[root] = grad if root not in pending else pending[root] + grad


def finish(v):
    grad = pending.pop(v, None)
    if grad is not None:
        for hook in hooks_of(v):
            new = hook(grad)
            grad = grad if new is None else new
        deliver(v, grad)
    return grad


ready = [v for v in pending if counts[v] == 0]
while ready:
    v = ready.pop()
    grad = finish(v)
    if not isinstance(v, Node):
        continue
    grads = (None,) * len(v.inputs) if grad is None else v.backward(grad, create_graph)
    for x, g in zip(v.inputs, grads):
        if not x.requires_grad:
            continue
        p = vertex(x)
        if g is not None:
            pending[p] = g if p not in pending else pending[p] + g
        counts[p] -= 1
        if counts[p] == 0:
            if isinstance(p, Node):
                ready.append(p)
            else:
                finish(p)
    if grad is not None and not retain_graph:
        v.release()
"""

CORRECT = [
    ("count_dependencies breadth-first", "dependencies.py", ("region", COUNT_BREADTH_FIRST), "4.1"),
    (
        "a queue and a dict of lists of contributions",
        "engine.py",
        ("region", ENGINE_WITH_LISTS),
        "4.2",
    ),
    (
        "accumulate by adding the new gradient first",
        "accumulate.py",
        edits(
            "accumulate.py",
            (
                "if tensor.grad is None else tensor.grad + ",
                "* 1.0 if tensor.grad is None else grad + tensor.",
            ),
        ),
        "4.3",
    ),
    (
        "count_dependencies with a Counter",
        "dependencies.py",
        edits(
            "dependencies.py",
            (
                "counts = {v: 0 for v in roots}",
                (
                    "from collections import Counter\n"
                    "\n"
                    "    counts = Counter(dict.fromkeys(roots, 0))"
                ),
            ),
            ("stack = list(counts)", "todo = list(seen)"),
            ("while stack", "while todo"),
            ("= stack", "= todo"),
            ("= counts.get(p, 0) +", "+="),
            ("stack.append(p)", "todo.append(p)"),
        ),
        "4.1",
    ),
    (
        "count_dependencies counting in floats",
        "dependencies.py",
        edits(
            "dependencies.py",
            ("counts = {v: 0 for v in roots}", "counts = {v: 0.0 for v in roots}"),
            ("counts[p] = counts.get(p, 0) + 1", "counts[p] = counts.get(p, 0.0) + 1.0"),
        ),
        "4.1",
    ),
    (
        "backward_pass in a topological order (iterative DFS), no counts",
        "engine.py",
        ("region", ENGINE_TOPOLOGICAL_ORDER),
        "4.2",
    ),
    (  # in place, PyTorch's way (keep_grad hands accumulate a copy only t holds); graded on
        # the create_graph rows too, where += on the recorded .grad is recorded (in-place rule 3)
        "accumulate with += (in place into its own .grad, as PyTorch)",
        "accumulate.py",
        (
            "region",
            "if tensor.grad is None:\n    tensor.grad = grad\nelse:\n    tensor.grad += grad",
        ),
        "4.3",
    ),
    (  # create_graph: the first .grad is keep_grad's recorded copy; add_ is recorded (rule 3)
        "accumulate with add_ (in place, also under create_graph)",
        "accumulate.py",
        (
            "region",
            "if tensor.grad is None:\n    tensor.grad = grad\nelse:\n    tensor.grad.add_(grad)",
        ),
        "4.3",
    ),
    (
        "seed multiplies the gradient by 1 (recorded)",
        "seed.py",
        ("\n    return gradient\n", "\n    return gradient * 1.0\n"),
        "4.4",
    ),
    ("grad modes on a module-level stack", "grad_mode.py", GRAD_MODE_ON_A_STACK, "4.5"),
    (
        "leaves finished inline, each node released after its inputs",
        "engine.py",
        ("region", ENGINE_FINISHING_LEAVES_INLINE),
        "4.2",
    ),
    ("jvp as jacobian @ u", "functional.py", ("region", JVP_AS_JACOBIAN_TIMES_U), "4.6"),
    (
        "hessian as the jacobian of a jacobian",
        "functional.py",
        HESSIAN_AS_JACOBIAN_OF_JACOBIAN,
        "4.6",
    ),
]


def pasted_stand_in() -> str:
    """The 4.1 stand-in (it ships in the release) as a student could paste it into
    ``count_dependencies``: an empty record in place of the one it reads."""
    from autograder.checks.ch04_backward import standins

    source = textwrap.dedent(inspect.getsource(standins._sweep))
    body = textwrap.dedent(source[source.index('"""', source.index('"""') + 3) + 3 :])
    body = body.replace("_made(sp)", "[]").replace("_vertex(", "vertex(")
    return body.replace("return counts, reached", "return counts")


VARIANTS.append(
    (
        "the 4.1 stand-in pasted into its task",
        "dependencies.py",
        ("region", pasted_stand_in()),
        "4.1",
    )
)


# Broken variants whose report does not yet name the mistake in words of its own (issue 29
# worked this list down to empty; a variant leaves it with a says row).

SET = VariantSet(
    4,
    "broken",
    VARIANTS,
    CORRECT,
    says=[
        # 4.1
        (
            "counts only unique parents",
            "x is used twice by one node and was counted once per parent",
        ),
        (
            "a dependency count that forgets vertices reached twice",
            "counts[a]: expected 2, received 1 (1 of its 2 edges were counted: an edge into a "
            "vertex seen before was not counted)",
        ),
        ("roots always count 0", "another root reaches it: its count was left at 0"),
        ("a root listed twice is walked twice", "the root listed twice was walked twice"),
        ("a count that never walks a leaf", "a leaf (a Tensor) has no 'inputs'"),
        (
            "the 4.1 stand-in pasted into its task",
            "is missing: every vertex reachable from the roots is a key",
        ),
        # 4.2
        (
            "pushes a vertex when its first contribution arrives",
            "a was popped 2 times, first after 1 of its 2 contributions had arrived",
        ),
        (
            "pushes a vertex when its first contribution arrives",
            "a diamond of scalars: b = a.tanh()",
        ),
        ("never frees saved tensors", "still holds its saved tensors"),
        ("retain_graph ignored", "b.grad_fn was released although retain_graph=True"),
        ("keeps every gradient in pending", "the engine kept each gradient after its vertex ran"),
        (
            "frees leaves: clears a leaf's .grad once it has run",
            "x.grad changed during backward_pass, whose deliver only recorded",
        ),
        ("a hook whose return value is ignored", "the hook's return value was dropped"),
        (
            "create_graph that records nothing",
            "does not require grad: nothing recorded how it was computed",
        ),
        ("ready vertices in a set", "depends on the objects' ids"),
        (
            "one pending dict shared by every pass (not re-entrant)",
            "the inner pass changed the state of the outer one",
        ),
        (
            "the seeds of a root given twice overwrite each other",
            "out is listed twice in roots, and out.grad_fn received one of its seeds, not their "
            "sum",
        ),
        (
            "every root ready at the start",
            "r1.grad_fn was popped after 0 of its 2 contributions had arrived",
        ),
        (
            "hooks run when a vertex is pushed (never on a root)",
            "out is a root: its hooks run when it is popped",
        ),
        ("the engine detaches the seeds", "the seed's graph was lost"),
        ("every node released after the loop", "the nodes were released late"),
        (
            "the engine counts down only gradients that are not None",
            "b.grad_fn's backward returned None for a, and that None was not counted",
        ),
        (
            "a node that received only None passes nothing on",
            "q.grad_fn received only None, and its None never reached a as a contribution",
        ),
        (
            "a node that received only None is released too",
            "q.grad_fn was released although its backward never ran",
        ),
        # 4.3
        (
            "accumulates on the arrays",
            "t.grad after call 2 does not require grad: the sum was made off the graph",
        ),
        (
            "accumulate detaches the first gradient",
            "t.grad after call 1 does not require grad: the first gradient was stored copied off "
            "its graph",
        ),
        # 4.4
        ("seeds with zeros", "seed returned zeros"),
        (
            "seed checks no shape",
            "seed accepted a gradient of shape (3, 2) for out of shape (2, 3)",
        ),
        ("seed casts nothing", "the gradient given kept its own dtype"),
        (
            "seed: ones for a one-element output, even when a gradient is given",
            "seed returned ones, not the gradient given",
        ),
        (
            "seed checks the shape of larger outputs only",
            "seed accepted a gradient of shape () for out of shape (1,)",
        ),
        ("seed copies the gradient off its graph", "it was copied off its graph"),
        ("the implicit seed computed from out", "it was computed from out"),
        # 4.5
        (
            "no_grad does nothing",
            "inside a with no_grad() block: x * 2 was recorded, expected not recorded: entering "
            "it did not turn recording off",
        ),
        (
            "no_grad's exit turns recording on instead of restoring",
            "just after a with no_grad() block ended: x * 2 was recorded, expected not recorded: "
            "leaving the block set the opposite of its own mode",
        ),
        (
            "set_grad_enabled sets the mode only in a with block",
            "just after the call set_grad_enabled(False) (no with): x * 2 was recorded, expected "
            "not recorded: the call did not set the mode",
        ),
        (
            "enable_grad's exit turns recording off",
            "just after a with enable_grad() block ended: x * 2 was not recorded, expected "
            "recorded: leaving the block set the opposite of its own mode",
        ),
        (
            "set_grad_enabled's exit sets the opposite of its mode",
            "just after a with set_grad_enabled(True) block ended: x * 2 was not recorded, "
            "expected recorded: leaving the block set the opposite of its own mode",
        ),
        (
            "enable_grad keeps the mode from before on the class",
            "put back the mode from before the enable_grad nested in it",
        ),
        (
            "set_grad_enabled keeps the mode from before on the class",
            "put back the mode from before the set_grad_enabled nested in it",
        ),
        (
            "enable_grad's exit returns a true value (swallows the exception)",
            "__exit__ returned a true value",
        ),
        # 4.6
        (
            "hessian differentiates a gradient that was not recorded",
            "hessian(f, x) is all zeros: the gradient it differentiates was not recorded",
        ),
        (
            "jvp's results are not detached",
            "requires grad, without create_graph=True: the result still carries the graph",
        ),
        (
            "jvp returns the first item only for a function of two outputs",
            "only the first output's was returned",
        ),
        ("hessian of one input only", "hessian called f with 1 argument(s)"),
        (
            "jvp detaches even with create_graph",
            "jvp(...)[0] does not require grad, with create_graph=True: it was detached",
        ),
        (
            "hessian ignores create_graph",
            "hessian(f, x) does not require grad, with create_graph=True",
        ),
        # named before issue 29
        ("accumulates in place through .data", "The sum lost the graph"),
        ("accumulates in place through .data", "keeps the graph of the first gradient only"),
        ("deliver called for leaves only", "for every vertex with a gradient, nodes too"),
        (
            "a node released before its backward",
            "a node's saved tensors were freed before its backward ran",
        ),
        ("hessian of one Tensor input returned as a 1-tuple", "return the Tensor itself"),
        ("recursive depth-first count", "visit (dependencies.py) calls itself"),
        ("hessian's blocks as [j][i]", "[0][1], ∂²f/∂x∂y, should have shape (2, 3)"),
        ("hessian's blocks as [j][i]", "the blocks are transposed"),
        ("jacobian's per-input results in reverse order", "the blocks are out of place"),
        ("jacobian nested [input][output]", "the blocks are transposed"),
        ("jvp's J u nested by the inputs", "one item per output of f, not one per input"),
        ("the engine tells vertices apart with in", "== on a Tensor is elementwise"),
        ("the engine tells vertices apart with in", "cannot tell vertices apart"),
    ],
    blocks=[("create_graph that records nothing", "4.6")],
    least=(12, 0),
    tasks=["4.1", "4.2", "4.3", "4.4", "4.5", "4.6"],  # 4.7 and 4.8: ch04_exercises.py
)

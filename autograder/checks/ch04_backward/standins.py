"""Chapter 4's stand-ins (see ``autograder/harness/standin.py``): the autograder's own
version of a task, installed into the code under test for a rerun of a check that needs it
(4.2's checks run 4.1; 4.3's aliasing check runs 4.1 and 4.2; 4.4's ``out.backward()``
check 4.1, 4.2 and 4.3; 4.6 runs 4.1, 4.2, 4.4 and 4.5: always earlier tasks).

- 4.1 and 4.2 use no graph walk of their own but a **record**: while they are installed, the
  given ``Node.__init__`` notes each node as it is made (``_record``). Creation order is
  topological (a node is made after its inputs), so one sweep of the record from the newest
  node back finds what the roots reach and counts the edges (4.1), or runs each node after
  every node made later that feeds it (4.2: reverse order of making, then the leaves).
  Pasted into a task they have no record to read, and fail (a variant in the course
  repository's ``ch04_broken.py``).
- 4.3 adds on the arrays: a new Tensor of ``old.data + grad.data`` (so no graph: pasted
  into 4.3 it fails the create_graph case).
- 4.4 is ones, or the gradient itself (cast to the output's dtype): no refusal of a wrong
  shape, of a missing gradient for a larger output.
- 4.5 sets the mode on the way in and turns recording back on on the way out, whatever was
  there before (pasted into 4.5 it fails the nested scripts).
Runs in the child: standard library and NumPy only."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from ...harness.standin import Patch, everywhere, modules_of


def _record(sp: ModuleType) -> list[Patch]:
    """Node.__init__ noting each node it makes in its own ``record`` list. Both stand-ins
    read the record of whichever ``__init__`` is installed (``_made``), so installed
    together they share one; and nothing is added to the class that would need deleting."""
    node = sp.Node
    made = vars(node)["__init__"]

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        made(self, *args, **kwargs)
        vars(type(self))["__init__"].record.append(self)

    __init__.record = []  # type: ignore[attr-defined]
    return [(node, "__init__", __init__)]


def _made(sp: ModuleType) -> list:
    """The nodes made since the stand-ins were installed, oldest first."""
    return vars(sp.Node)["__init__"].record


def _is_node(sp: ModuleType, v: Any) -> bool:
    return isinstance(v, sp.Node)


def _vertex(x: Any) -> Any:
    return x if x.grad_fn is None else x.grad_fn


def _sweep(sp: ModuleType, roots: list) -> tuple[dict, list]:
    """What the roots reach, with each vertex's edge count, and the recorded nodes among
    them, newest first (one sweep of the record, no walk)."""
    counts = {v: 0 for v in roots}
    reached = []
    for v in reversed(_made(sp)):
        if v not in counts:
            continue
        reached.append(v)
        for x in v.inputs:
            if x.requires_grad:
                p = _vertex(x)
                counts[p] = counts.get(p, 0) + 1
    return counts, reached


def _count_dependencies(sp: ModuleType) -> list[Patch]:
    def count_dependencies(roots: list) -> dict:
        counts, _ = _sweep(sp, list(roots))
        return counts

    return _record(sp) + everywhere(sp, sp.count_dependencies, count_dependencies)


def _hooks(v: Any) -> Any:
    return getattr(v, "hooks", ()) if hasattr(v, "inputs") else getattr(v, "_backward_hooks", ())


def _backward_pass(sp: ModuleType) -> list[Patch]:
    keep_grad = sp.keep_grad

    def backward_pass(
        roots: list,
        seeds: list,
        retain_graph: bool = False,
        create_graph: bool = False,
        deliver: Callable[[Any, Any], None] = keep_grad,
    ) -> None:
        pending: dict = {}
        for root, grad in zip(roots, seeds):
            pending[root] = grad if root not in pending else pending[root] + grad
        _, nodes = _sweep(sp, list(pending))
        leaves = [v for v in pending if not _is_node(sp, v)]
        for v in nodes:
            for x in v.inputs:
                if x.requires_grad and x.grad_fn is None and all(x is not y for y in leaves):
                    leaves.append(x)
        for v in nodes + leaves:
            grad = pending.pop(v, None)
            if grad is None:
                continue
            for hook in _hooks(v):
                replaced = hook(grad)
                grad = grad if replaced is None else replaced
            deliver(v, grad)
            if not _is_node(sp, v):
                continue
            grads = v.backward(grad, create_graph)
            if not retain_graph:
                v.release()
            for x, g in zip(v.inputs, grads):
                if g is not None and x.requires_grad:
                    p = _vertex(x)
                    pending[p] = g if p not in pending else pending[p] + g

    return _record(sp) + everywhere(sp, sp.backward_pass, backward_pass)


def _accumulate(sp: ModuleType) -> list[Patch]:
    tensor_type = sp.Tensor

    def accumulate(tensor: Any, grad: Any) -> None:
        old = tensor.grad
        tensor.grad = tensor_type(np.array(grad.data) if old is None else old.data + grad.data)

    return everywhere(sp, sp.accumulate, accumulate)


def _seed(sp: ModuleType) -> list[Patch]:
    tensor_type = sp.Tensor

    def seed(output: Any, gradient: Any = None) -> Any:
        if gradient is None:
            return tensor_type(np.ones(output.shape, dtype=output.dtype))
        if not isinstance(gradient, tensor_type):
            return tensor_type(np.asarray(gradient, dtype=output.dtype))
        # the Tensor itself (jvp's dummies require grad: their graph must stay)
        return gradient if gradient.dtype == output.dtype else gradient.to(output.dtype)

    return everywhere(sp, sp.seed, seed)


def _grad_mode(sp: ModuleType) -> list[Patch]:
    """The three classes' entries and exits (and set_grad_enabled's __init__)."""
    found = [vars(m)["_set_grad_enabled"] for m in modules_of(sp) if "_set_grad_enabled" in vars(m)]
    set_mode = found[0]

    def entering(mode: bool) -> Callable[[Any], None]:
        def __enter__(self: Any) -> None:
            self.previous = True
            set_mode(mode)

        return __enter__

    def __exit__(self: Any, *exc: object) -> None:
        set_mode(True)

    def __init__(self: Any, mode: bool) -> None:
        self.mode, self.previous = bool(mode), True
        set_mode(self.mode)

    patches: list[Patch] = [
        (sp.no_grad, "__enter__", entering(False)),
        (sp.enable_grad, "__enter__", entering(True)),
        (sp.set_grad_enabled, "__init__", __init__),
    ]
    for cls in (sp.no_grad, sp.enable_grad, sp.set_grad_enabled):
        patches.append((cls, "__exit__", __exit__))
    return patches


def _hessian(sp: ModuleType) -> list[Patch]:
    """4.6's ``hessian`` for what 4.7 needs (one Tensor input, results detached): row j is
    the given ``vhp(func, x, e_j)``, eⱼᵀH. Pasted into 4.6 it fails the checks of two inputs
    and of ``create_graph=True``."""
    functional = sp.autograd.functional

    def hessian(func: Callable[..., Any], inputs: Any, *args: Any, **kwargs: Any) -> Any:
        x = inputs
        n = x.numel()
        rows = []
        for j in range(n):
            e = np.zeros(n)
            e[j] = 1.0
            v = sp.tensor(e.reshape(x.shape), dtype=x.dtype, device=x.device)
            _, found = functional.vhp(func, x, v)
            rows.append(np.array(found.detach().cpu().numpy()).reshape(n))
        H = np.stack(rows).reshape(tuple(x.shape) * 2)
        return sp.tensor(H, dtype=x.dtype, device=x.device)

    return everywhere(sp, functional.hessian, hessian)


STANDINS: dict[str, Callable[[ModuleType], list[Patch]]] = {
    "4.1": _count_dependencies,
    "4.2": _backward_pass,
    "4.3": _accumulate,
    "4.4": _seed,
    "4.5": _grad_mode,
    "4.6": _hessian,  # (for 4.7's checks, course version 1.1)
}

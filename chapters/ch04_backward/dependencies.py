"""Counting dependencies: how many gradient contributions each vertex must wait for. Task 4.1.

The engine walks a graph whose vertices are the ``Node`` of every recorded operation and
the leaves that require a gradient (a leaf is its own vertex: it has no ``grad_fn``). An
edge runs from a node to each of its inputs that requires a gradient; a tensor used twice by
one node (``x * x``) is two edges, so two contributions.

    a ──┐
        ├─ Mul ─ c ─┐
    b ──┘           ├─ Add ─ e          count_dependencies([e's node]):
        └─ Exp ─ d ─┘                   {AddBackward: 0, MulBackward: 1, ExpBackward: 1,
                                         a: 1, b: 2}
"""

from __future__ import annotations

from typing import Any


def vertex(tensor: Any) -> Any:
    """The vertex a tensor's gradient goes to: its ``grad_fn``, or the tensor itself for a
    leaf. Only tensors that require a gradient have one."""
    return tensor if tensor.grad_fn is None else tensor.grad_fn


def parents(v: Any) -> list:
    """The vertices ``v`` sends gradient contributions to, one per edge, in input order: the
    inputs of a ``Node`` that require a gradient (a leaf sends none)."""
    inputs = getattr(v, "inputs", ())
    return [vertex(x) for x in inputs if x.requires_grad]


def as_vertices(roots: Any) -> list:
    """``roots`` as a list of vertices: a list as it is, a Tensor as its vertex, a Node in a
    list of one."""
    if isinstance(roots, (list, tuple)):
        return [vertex(r) if hasattr(r, "grad_fn") else r for r in roots]
    return [vertex(roots) if hasattr(roots, "grad_fn") else roots]


def count_dependencies(roots: Any) -> dict:
    """``{vertex: number of contributions it will receive}`` for every vertex reachable from
    ``roots`` (the roots included, with 0 unless another root reaches them). ``roots`` is a
    list of vertices (a root listed twice is one vertex); one vertex, or a Tensor (its
    vertex), is accepted too.

    An iterative depth-first search (an explicit stack, no recursion: a chain of a million
    nodes must work): visit each vertex once, and count one contribution per edge, including
    every further edge into a vertex already visited.
    """
    roots = as_vertices(roots)
    raise NotImplementedError("Task 4.1: count_dependencies(roots) — see §3 of the notebook")

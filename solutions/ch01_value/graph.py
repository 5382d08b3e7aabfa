"""The computation graph as a DAG, and the order in which backward visits it.

Task 1.7 (§6 of the notebook). A Value's ``_prev`` holds the Values it was computed from, so
every Value is the root of a directed acyclic graph that reaches back to the leaves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .value import Value


def topological_order(root: Value) -> list[Value]:
    """Task 1.7 — every Value reachable from ``root``, each exactly once, children first.

    For every node, all of the nodes in its ``_prev`` come earlier in the list, and ``root``
    comes last; so ``reversed(topological_order(root))`` visits a node only after every node
    that uses it. This is a depth-first search written with an explicit stack instead of
    recursion: Python stops a recursion about 1,000 calls deep, and a chain of 100,000 Values
    must work.
    """
    ### BEGIN SOLUTION 1.7
    order: list[Value] = []
    visited: set[int] = set()
    stack: list[tuple[Value, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if children_done:
            order.append(node)  # every child is already in `order`
            continue
        if id(node) in visited:
            continue
        visited.add(id(node))
        stack.append((node, True))
        stack.extend((child, False) for child in node._prev if id(child) not in visited)
    return order
    ### END SOLUTION

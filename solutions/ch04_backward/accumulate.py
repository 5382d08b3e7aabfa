"""Accumulating a gradient, out of place. Task 4.3.

A tensor used in several places receives one gradient per use, and backward passes add up:
``.grad`` is a running sum. The sum makes a new Tensor every time (``old + new``) and never
writes into the old one: the engine hands one gradient object to several places (``c = a +
b`` gives ``a`` and ``b`` the same tensor), so writing into ``a.grad.data`` would change
``b.grad`` too (§5 shows it). PyTorch adds in place (its ``+=`` is in place) when it can
prove no one else holds the tensor; the course always adds out of place.
"""

from __future__ import annotations

from typing import Any


def accumulate(tensor: Any, grad: Any) -> None:
    """``tensor.grad`` becomes ``grad`` (the first time) or ``tensor.grad + grad``: a new
    Tensor, never written in place. With ``create_graph=True`` the sum is recorded, so
    ``.grad`` can itself be differentiated."""
    ### BEGIN SOLUTION 4.3
    tensor.grad = grad if tensor.grad is None else tensor.grad + grad
    ### END SOLUTION

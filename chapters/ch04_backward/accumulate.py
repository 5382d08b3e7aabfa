"""Accumulating a gradient. Task 4.3.

A tensor used in several places receives one gradient per use, and backward passes add up:
``.grad`` is a running sum: ``grad`` the first time, then ``old + new``. The given code
around the task (``keep_grad`` in engine.py) hands ``accumulate`` a copy of the gradient
that only this tensor holds: the engine gives one gradient object to several places (``c =
a + b`` gives ``a`` and ``b`` the same tensor), and the copy keeps ``a.grad`` and ``b.grad``
apart (§5). So both ways of adding are right: a new Tensor, ``tensor.grad + grad``, or in
place into the tensor's own ``.grad``, ``tensor.grad += grad``, as PyTorch adds. With
``create_graph=True`` the gradients require grad and the copy is recorded; the sum must be a
Tensor operation, recorded too (``+=`` on a recorded tensor is recorded: chapter 2's
in-place rules), so ``.grad`` can itself be differentiated with respect to every gradient
added. Adding on the arrays (``tensor.grad.data += grad.data``) gives the right values and
loses that graph: only the first gradient's copy stays recorded.
"""

from __future__ import annotations

from typing import Any


def accumulate(tensor: Any, grad: Any) -> None:
    """``tensor.grad`` becomes ``grad`` (the first time) or the sum ``tensor.grad + grad``
    (a new Tensor, or added in place with ``+=``: ``grad`` is a copy ``tensor`` alone holds).
    With ``create_graph=True`` the sum is recorded, so ``.grad`` can itself be
    differentiated."""
    raise NotImplementedError(
        "Task 4.3: accumulate(tensor, grad): .grad as a running sum — see §5 of the notebook"
    )

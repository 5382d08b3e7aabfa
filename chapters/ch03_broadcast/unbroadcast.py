"""``unbroadcast``: the gradient of a broadcast input, summed back to that input's shape.
Task 3.1 (§3 of the notebook).

When ``x`` of shape ``shape`` is broadcast to a larger shape S, every element of the result
is a copy of one element of ``x``: out[i] = x[j(i)], where j(i) drops the leading axes of i
and puts 0 on every axis where ``x`` has size 1. A copy's gradient is a sum (the
multivariable chain rule adds the paths), so

    ∂L/∂x[j] = Σ_{i : j(i) = j} ∂L/∂out[i]

that is, ``grad`` summed over the leading axes that broadcasting added, and over the axes
where ``shape`` has size 1 but ``grad`` does not, keeping those as size 1.

Chapter 2's ``Node.backward`` sends every gradient through one seam
(``reduce_to_shape``), which calls this function when a gradient's shape differs from its
input's: that single place makes every elementwise op and matmul broadcast-correct.
"""

from __future__ import annotations

from .rules import check_broadcast


def unbroadcast(grad, shape):
    """``grad`` (a Tensor of a shape that ``shape`` broadcasts to) summed over the axes that
    broadcasting added or stretched, so it has ``shape``. Written with Tensor operations
    (``grad.sum(dim=..., keepdim=...)``), so the graph records it (chapter 4); not with
    ``sum_to_size``, whose forward calls this function."""
    shape = tuple(shape)
    check_broadcast(shape, grad.shape, "unbroadcast")
    raise NotImplementedError("Task 3.1: unbroadcast(grad, shape) — see §3 of the notebook")

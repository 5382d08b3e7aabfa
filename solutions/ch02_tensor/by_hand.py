"""Be the engine: backpropagate through a small network by hand. Task 2.11 (§10).

The network is a two-layer perceptron with a mean squared error:

    h = x @ w1        (n, d) @ (d, k) → (n, k)
    a = tanh(h)
    p = a @ w2        (n, k) @ (k, m) → (n, m)
    r = p − y         the residuals
    s = r · r         (elementwise; r is used twice)
    loss = mean(s)

Every tensor it makes has a ``grad_fn``, and ``node.backward(g)`` turns ∂loss/∂(that
tensor) into ∂loss/∂(each of its inputs). Start from ∂loss/∂loss = 1 and call them in the
reverse order of the forward pass. Chapter 4 writes the loop that does this for any graph.
"""

from __future__ import annotations

from .factories import ones_like
from .tensor import Tensor


def two_layer_backward(x: Tensor, w1: Tensor, w2: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    """∂loss/∂w1 and ∂loss/∂w2 for the network above, by calling each node's local backward
    (``t.grad_fn.backward(...)``) in reverse order. ``w1`` and ``w2`` must require grad."""
    if not (w1.requires_grad and w2.requires_grad):
        raise ValueError("w1 and w2 must be made with requires_grad=True (they are the weights)")
    h = x @ w1
    a = h.tanh()
    p = a @ w2
    r = p - y
    s = r * r
    loss = s.mean()
    ### BEGIN SOLUTION 2.11
    grad_loss = ones_like(loss)  # ∂loss/∂loss = 1
    (grad_s,) = loss.grad_fn.backward(grad_loss)
    grad_r1, grad_r2 = s.grad_fn.backward(grad_s)
    grad_r = grad_r1 + grad_r2  # r was used twice: its two gradients add up
    grad_p, _ = r.grad_fn.backward(grad_r)  # y needs no gradient (None)
    grad_a, grad_w2 = p.grad_fn.backward(grad_p)
    (grad_h,) = a.grad_fn.backward(grad_a)
    _, grad_w1 = h.grad_fn.backward(grad_h)
    return grad_w1, grad_w2
    ### END SOLUTION

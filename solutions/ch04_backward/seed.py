"""Where backward starts: the gradient of the output with respect to itself. Task 4.4.

``loss.backward()`` means ``loss.backward(gradient=∂loss/∂loss)``, and ∂loss/∂loss = 1: a
tensor of ones of the output's shape. That is only implicit for a one-element output; any
other needs its ``gradient`` given (the vector of a vector-Jacobian product), of the
output's shape. Never zeros: every gradient below would be zero.
"""

from __future__ import annotations

from typing import Any

from ..ch02_tensor.factories import ones_like
from ..ch02_tensor.tensor import Tensor


def seed(output: Tensor, gradient: Any = None) -> Tensor:
    """The gradient to start from: ones for a one-element ``output`` when ``gradient`` is
    None (else a RuntimeError, PyTorch's: "grad can be implicitly created only for scalar
    outputs"); otherwise ``gradient`` as a Tensor, which must have ``output``'s shape (a
    RuntimeError naming both shapes, as tuples) and is cast to ``output``'s dtype when it
    differs. A given gradient is used as it is (or through a recorded cast): if it requires
    grad, ``create_graph`` can differentiate through it. An implicit seed is a constant."""
    ### BEGIN SOLUTION 4.4
    if gradient is None:
        if output.numel() != 1:
            raise RuntimeError(
                "grad can be implicitly created only for scalar outputs: this output has "
                f"shape {output.shape}; pass gradient= (a tensor of that shape)"
            )
        return ones_like(output)
    if not isinstance(gradient, Tensor):
        gradient = Tensor(gradient, dtype=output.dtype)
    if gradient.shape != output.shape:
        raise RuntimeError(
            f"Mismatch in shape: the gradient has shape {gradient.shape} and the output has "
            f"shape {output.shape}"
        )
    if gradient.dtype != output.dtype:
        gradient = gradient.to(output.dtype)
    return gradient
    ### END SOLUTION

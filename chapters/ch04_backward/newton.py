"""Newton's method with the Hessian (task 4.7, §10): ``newton_step(f, x)``.

Gradient descent steps along −∇f by a learning rate that you choose. Newton's method fits
the quadratic that matches f's value, gradient and Hessian at x, and jumps to that
quadratic's stationary point:

    x_new = x − H⁻¹ ∇f(x)

For a quadratic f the fit is exact, and one step lands on the minimum. Near a minimum with
a positive definite Hessian the error is squared at every step: the number of correct
digits doubles. It needs ``functional.hessian`` (task 4.6) and a gradient; the linear
system H s = ∇f is solved by NumPy on the host (``_host`` and ``_like`` are given).

The contract, PyTorch's style: ``f`` takes one Tensor and returns a Tensor of one element;
``x`` is a floating Tensor of any shape (its n elements are one vector of n unknowns, H is
n × n). The result is a new Tensor of x's shape, dtype and device that does not require
grad; ``x`` is left as it was. A RuntimeError names the problem when f(x) is not a scalar
(one element), or when the Hessian is singular (rank below n, as
``numpy.linalg.matrix_rank`` judges it: a Hessian computed in floating point is rarely
exactly singular, and ``numpy.linalg.solve`` then returns huge numbers instead of raising).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..ch02_tensor.factories import tensor
from ..ch02_tensor.tensor import Tensor
from . import functional


def _host(t: Tensor) -> np.ndarray:
    """A NumPy copy of ``t``'s values (from any device), with no graph."""
    return np.array(t.detach().cpu().numpy())


def _like(values: np.ndarray, x: Tensor) -> Tensor:
    """``values`` as a new Tensor of x's shape, dtype and device (requires no grad)."""
    return tensor(np.asarray(values).reshape(x.shape), dtype=x.dtype, device=x.device)


def newton_step(f: Callable[[Tensor], Tensor], x: Tensor) -> Tensor:
    """One Newton step for a scalar function ``f`` at ``x``: x − H⁻¹∇f(x), as a new Tensor
    of x's shape, dtype and device that does not require grad (``x`` is not changed).
    RuntimeError when f(x) is not a scalar, or when H is singular."""
    raise NotImplementedError(
        "Task 4.7: newton_step(f, x): Newton's method — see §10 of the notebook"
    )

"""Activations as modules: ``ReLU``, ``Tanh``, ``Sigmoid``, ``GELU``, ``Softmax``,
``LogSoftmax`` (given code). Each has no parameters; its ``forward`` is chapter 2's op (or
chapter 5's ``softmax``), so a model can list its nonlinearities in a ``Sequential``.

GELU (Hendrycks & Gimpel) weighs x by the probability that a standard normal is below it:

    gelu(x) = x · Φ(x),   Φ(x) = ½ (1 + erf(x / √2)),   gelu'(x) = Φ(x) + x · φ(x)

``approximate="tanh"`` is the tanh formula GPT-2 used:
½ x (1 + tanh(√(2/π) (x + 0.044715 x³))).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...ch02_tensor.function import Context, Function
from ...ch02_tensor.seams import later
from ...ch02_tensor.tensor import Tensor
from .module import Module
from .softmax import log_softmax, softmax


class Erf(Function):
    """out = erf(x)          ∂L/∂x = g · 2/√π · exp(−x²)"""

    @staticmethod
    def forward(ctx: Context, x: Tensor) -> Any:
        ctx.save_for_backward(x)
        return _erf(x.data)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad_output * (2 / math.sqrt(math.pi)) * (-(x * x)).exp()


def _erf(a: Any) -> Any:
    """erf, elementwise (NumPy has none: Python's ``math.erf`` per element). Another
    device's array gets its device's own erf (chapter 7's backends: CuPy's is in
    ``cupyx.scipy.special``)."""
    if isinstance(a, np.ndarray) or np.isscalar(a):
        return np.asarray(np.frompyfunc(math.erf, 1, 1)(a), dtype=np.asarray(a).dtype)
    return later(7, "ch07_device", "erf", "erf on a device (exact GELU)")(a)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x · Φ(x) (exact), or the tanh approximation with ``approximate="tanh"``."""
    if approximate == "none":
        return input * 0.5 * (1.0 + Erf.apply(input * (1 / math.sqrt(2.0))))
    if approximate == "tanh":
        inner = math.sqrt(2 / math.pi) * (input + 0.044715 * input * input * input)
        return 0.5 * input * (1.0 + inner.tanh())
    raise ValueError(f"approximate argument must be either none or tanh, not {approximate!r}")


class ReLU(Module):
    def forward(self, x: Tensor) -> Tensor:
        return x.relu()


class Tanh(Module):
    def forward(self, x: Tensor) -> Tensor:
        return x.tanh()


class Sigmoid(Module):
    def forward(self, x: Tensor) -> Tensor:
        return x.sigmoid()


class GELU(Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, x: Tensor) -> Tensor:
        return gelu(x, self.approximate)

    def extra_repr(self) -> str:
        return f"approximate='{self.approximate}'"


class Softmax(Module):
    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, x: Tensor) -> Tensor:
        return softmax(x, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    def forward(self, x: Tensor) -> Tensor:
        return log_softmax(x, self.dim)

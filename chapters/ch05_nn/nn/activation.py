"""Activations as modules: ``ReLU``, ``Tanh``, ``Sigmoid``, ``GELU``, ``LeakyReLU``,
``SiLU``, ``Softplus``, ``Softmax``, ``LogSoftmax`` (given code). Each has no parameters;
its ``forward`` is chapter 2's op (or chapter 5's ``softmax``, or a Function here), so a
model can list its nonlinearities in a ``Sequential``.

GELU (Hendrycks & Gimpel) weighs x by the probability that a standard normal is below it:

    gelu(x) = x · Φ(x),   Φ(x) = ½ (1 + erf(x / √2)),   gelu'(x) = Φ(x) + x · φ(x)

``approximate="tanh"`` is the tanh formula GPT-2 used:
½ x (1 + tanh(√(2/π) (x + 0.044715 x³))).

The three others, with their gradients as PyTorch has them (at the kink too):

    leaky_relu(x) = x if x > 0 else s·x             ∂/∂x = 1 if x > 0 else s (s at 0)
    silu(x)       = x · σ(x)                        ∂/∂x = σ(x) (1 + x (1 − σ(x)))
    softplus(x)   = log(1 + e^{βx}) / β, x where βx > threshold
                                                    ∂/∂x = σ(βx), 1 where βx > threshold
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...ch02_tensor.backend import array_module
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


class LeakyReLUFunction(Function):
    """out = x where x > 0, else s·x       ∂out/∂x = 1 where x > 0, else s (s at 0, as
    PyTorch)"""

    @staticmethod
    def forward(ctx: Context, x: Tensor, slope: float) -> Any:
        ctx.save_for_backward(x)
        ctx.slope = slope
        return array_module(x.data).where(x.data > 0, x.data, x.data * slope)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        xp = array_module(x.data)
        factor = xp.where(x.data > 0, 1.0, ctx.slope).astype(grad_output.dtype)
        return grad_output * Tensor._from_array(factor)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x where x > 0, else ``negative_slope`` · x (``inplace`` is accepted and ignored)."""
    return LeakyReLUFunction.apply(input, negative_slope)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x · σ(x) (Swish): Tensor operations, so the gradient is σ(x)(1 + x(1 − σ(x)))."""
    return input * input.sigmoid()


class SoftplusFunction(Function):
    """out = log(1 + e^{βx}) / β (x where βx > threshold)
    ∂out/∂x = σ(βx) (1 where βx > threshold)"""

    @staticmethod
    def forward(ctx: Context, x: Tensor, beta: float, threshold: float) -> Any:
        ctx.save_for_backward(x)
        ctx.beta, ctx.threshold = beta, threshold
        xp = array_module(x.data)
        bx = x.data * beta
        with np.errstate(over="ignore"):  # the branch where() drops may overflow
            soft = xp.logaddexp(0, bx) / beta
        return xp.where(bx > threshold, x.data, soft).astype(x.dtype)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        bx = x * ctx.beta
        linear = Tensor._from_array(bx.data > ctx.threshold)
        smooth = Tensor._from_array(bx.data <= ctx.threshold)
        return grad_output * (bx.sigmoid() * smooth + linear)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """A smooth ReLU: log(1 + e^{βx}) / β, and x itself where βx > ``threshold``."""
    return SoftplusFunction.apply(input, beta, threshold)


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


class LeakyReLU(Module):
    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, x: Tensor) -> Tensor:
        return leaky_relu(x, self.negative_slope)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class SiLU(Module):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, x: Tensor) -> Tensor:
        return silu(x)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Softplus(Module):
    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, x: Tensor) -> Tensor:
        return softplus(x, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


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

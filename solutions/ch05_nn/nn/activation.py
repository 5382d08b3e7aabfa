"""Activations as modules: ``ReLU``, ``Tanh``, ``Sigmoid``, ``GELU``, ``LeakyReLU``,
``SiLU``, ``Softplus``, ``Softmax``, ``LogSoftmax``, ``PReLU``, ``RReLU`` (given code). All
but PReLU have no parameters; each ``forward`` is chapter 2's op (or chapter 5's
``softmax``, or a Function here), so a model can list its nonlinearities in a
``Sequential``.

GELU (Hendrycks & Gimpel) weighs x by the probability that a standard normal is below it:

    gelu(x) = x · Φ(x),   Φ(x) = ½ (1 + erf(x / √2)),   gelu'(x) = Φ(x) + x · φ(x)

``approximate="tanh"`` is the tanh formula GPT-2 used:
½ x (1 + tanh(√(2/π) (x + 0.044715 x³))).

The three others, with their gradients as PyTorch has them (at the kink too):

    leaky_relu(x) = x if x > 0 else s·x             ∂/∂x = 1 if x > 0 else s (s at 0)
    silu(x)       = x · σ(x)                        ∂/∂x = σ(x) (1 + x (1 − σ(x)))
    softplus(x)   = log(1 + e^{βx}) / β, x where βx > threshold
                                                    ∂/∂x = σ(βx), 1 where βx > threshold

and two relatives of leaky_relu whose slope is not a constant:

    prelu(x, w)   = x if x > 0 else w·x, w learned (one per channel, dim 1, or one in all)
                    ∂/∂x = 1 if x > 0 else w;   ∂/∂w = Σ g·x over the elements x ≤ 0
    rrelu(x)      = x if x > 0 else r·x, training: r ~ U(lower, upper) drawn per element
                    and call (∂/∂x = r, 1 where x > 0); eval: r = (lower + upper) / 2
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...ch02_tensor.backend import array_module
from ...ch02_tensor.dtypes import get_default_dtype
from ...ch02_tensor.function import Context, Function
from ...ch02_tensor.grad_mode import is_grad_enabled
from ...ch02_tensor.seams import later
from ...ch02_tensor.tensor import Tensor
from ..generator import rng_of
from .erf import erf
from .module import Module
from .parameter import Parameter
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
    """erf, elementwise (NumPy has none: ``erf.py`` evaluates fdlibm's on whole arrays).
    Another device's array gets its device's own erf (chapter 7's backends: CuPy's is in
    ``cupyx.scipy.special``)."""
    if isinstance(a, np.ndarray) or np.isscalar(a):
        return np.asarray(erf(a), dtype=np.asarray(a).dtype)
    return later(7, "ch07_device", "erf", "erf on a device (exact GELU)")(a)


class Gelu(Function):
    """out = x · Φ(x)     ∂L/∂x = g · (Φ(x) + x · φ(x)),  φ(x) = exp(−x²/2) / √(2π)

    One recorded operation instead of five (a Transformer's MLP spends much of its step
    here). While a graph of the backward is recorded (``create_graph``), Φ and φ are
    computed with recorded operations (``Erf``, ``exp``), so second derivatives flow."""

    @staticmethod
    def forward(ctx: Context, x: Tensor) -> Any:
        a = x.data
        cdf = 0.5 * (1.0 + _erf(a * (1 / math.sqrt(2.0))))
        ctx.save_for_backward(x)
        ctx.cdf = cdf
        return a * cdf

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        if is_grad_enabled():  # create_graph: every factor recorded
            cdf = 0.5 * (1.0 + Erf.apply(x * (1 / math.sqrt(2.0))))
            return grad_output * (cdf + x * (-0.5 * x * x).exp() * (1 / math.sqrt(2 * math.pi)))
        a = x.data
        xp = array_module(a)
        slope = ctx.cdf + a * xp.exp(-0.5 * a * a) * (1 / math.sqrt(2 * math.pi))
        return grad_output * Tensor._from_array(slope.astype(a.dtype, copy=False))


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x · Φ(x) (exact), or the tanh approximation with ``approximate="tanh"``."""
    if approximate == "none":
        return Gelu.apply(input)
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


class PReLUFunction(Function):
    """out = x where x > 0, else w·x (w shaped to broadcast against x's channels)
    ∂L/∂x = g where x > 0, else g·w      ∂L/∂w = g·x where x ≤ 0, else 0 (summed down to w's
    shape by the engine). Tensor operations, so chapter 4 can differentiate it again."""

    @staticmethod
    def forward(ctx: Context, x: Tensor, w: Tensor) -> Any:
        ctx.save_for_backward(x, w)
        return array_module(x.data).where(x.data > 0, x.data, w.data * x.data)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple:
        x, w = ctx.saved_tensors
        positive = x.data > 0
        pos = Tensor._from_array(positive.astype(x.dtype))
        neg = Tensor._from_array((~positive).astype(x.dtype))
        return grad_output * (pos + neg * w), grad_output * x * neg


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """x where x > 0, else ``weight``·x: ``weight`` is 1-D (or 0-d) with one element, or one
    per channel (``input.shape[1]``; an input of fewer than 2 dims has one channel)."""
    if weight.ndim > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}"
        )
    if weight.dtype != input.dtype:
        raise RuntimeError(
            f"prelu: Type promoting not supported. Got {input.dtype} and {weight.dtype}"
        )
    count, channels = weight.numel(), input.shape[1] if input.ndim >= 2 else 1
    if count == 1:
        shaped = weight.reshape(())
    elif count == channels:
        shaped = weight.reshape((channels,) + (1,) * (input.ndim - 2))
    else:
        raise RuntimeError(
            "Mismatch of parameter numbers and input channel size. Found parameter numbers "
            f"= {count} and channel size = {channels}."
        )
    return PReLUFunction.apply(input, shaped)


def rrelu(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    inplace: bool = False,
) -> Tensor:
    """x where x > 0, else r·x: in training r ~ U(``lower``, ``upper``), one draw per
    element from the global stream (the gradient is r); otherwise r = (lower + upper) / 2,
    ``leaky_relu``'s. ``inplace`` is accepted and ignored."""
    if not training:
        return leaky_relu(input, (lower + upper) / 2)
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    xp = array_module(input.data)
    slopes = rng_of(None).uniform(lower, upper, input.shape)
    slopes = xp.where(input.data > 0, 1.0, xp.asarray(slopes)).astype(input.dtype)
    return input * Tensor._from_array(slopes)


class PReLU(Module):
    """``PReLU(num_parameters=1, init=0.25)``: ``prelu(x, self.weight)``, the weight a
    Parameter of ``num_parameters`` elements, each ``init``."""

    def __init__(
        self, num_parameters: int = 1, init: float = 0.25, device: Any = None, dtype: Any = None
    ) -> None:
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(
            np.full((num_parameters,), init, np.dtype(dtype or get_default_dtype()))
        )
        if device is not None:
            self.to(device)

    def reset_parameters(self) -> None:
        self.weight.data[...] = self.init

    def forward(self, x: Tensor) -> Tensor:
        return prelu(x, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """``RReLU(lower=1/8, upper=1/3)``: ``rrelu(x, lower, upper, self.training)``."""

    def __init__(
        self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False
    ) -> None:
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, x: Tensor) -> Tensor:
        return rrelu(x, self.lower, self.upper, self.training)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"lower={self.lower}, upper={self.upper}{inplace}"


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

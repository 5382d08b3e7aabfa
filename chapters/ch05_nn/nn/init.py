"""``nn.init``: filling a weight in place with random numbers of the right size. Task 5.8.

A layer ``y = W x`` with ``fan_in`` inputs sums ``fan_in`` products, so with weights of
variance σ² and inputs of variance 1, ``Var(y) = fan_in · σ²``. Keep the signal's size from
layer to layer and you must choose ``σ² ∝ 1 / fan``:

    xavier (Glorot, tanh-like layers):  σ = gain · √(2 / (fan_in + fan_out))
    kaiming (He, ReLU layers):          σ = gain / √fan        (fan = fan_in or fan_out)

with ``gain`` from ``calculate_gain`` (√2 for relu: relu zeroes half the signal). A uniform
distribution on ``[-b, b]`` has standard deviation ``b / √3``, so the uniform versions use
``b = √3 · σ``. Every function writes into ``tensor.data`` in place (the tensor keeps its
dtype; no graph is recorded), draws from the global generator (``manual_seed``) or
``generator=``, and returns the tensor.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...ch02_tensor.backend import array_module
from ...ch02_tensor.tensor import Tensor
from ...ch02_tensor.version import bump
from ..generator import Generator, rng_of


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The factor by which a nonlinearity shrinks a signal's standard deviation, inverted:
    1 for linear and sigmoid, 5/3 for tanh, √2 for relu, √(2 / (1 + a²)) for leaky_relu."""
    if nonlinearity in ("linear", "identity", "conv1d", "conv2d", "conv3d", "sigmoid"):
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if isinstance(slope, bool) or not isinstance(slope, (int, float)):
            raise ValueError(f"negative_slope {slope!r} is not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """(fan_in, fan_out) of a weight of shape (out, in, *kernel): in·k and out·k, where k is
    the product of the kernel's sizes (1 for a Linear's (out, in) weight)."""
    if tensor.ndim < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions "
            f"(this one has shape {tensor.shape})"
        )
    receptive = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fan(tensor: Tensor, mode: str) -> int:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _fill(tensor: Tensor, values: Any) -> Tensor:
    """Write ``values`` into ``tensor``'s array (its own dtype, in place) and return it."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"nn.init fills a Tensor, not {type(tensor).__name__}")
    if not isinstance(tensor.data, np.ndarray) and isinstance(values, np.ndarray):
        values = array_module(tensor.data).asarray(values)  # to the tensor's device (ch. 7)
    tensor.data[...] = values
    bump(tensor)  # an in-place change (PyTorch's init functions are in-place methods)
    return tensor


def uniform_(
    tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Generator | None = None
) -> Tensor:
    """Fill with samples of U(a, b)."""
    if a > b:
        raise ValueError(f"uniform_ expects a <= b, but got a={a}, b={b}")
    return _fill(tensor, rng_of(generator).uniform(a, b, tensor.shape))


def normal_(
    tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Generator | None = None
) -> Tensor:
    """Fill with samples of N(mean, std²)."""
    if std < 0:
        raise ValueError(f"normal_ expects std >= 0.0, but found std {std}")
    return _fill(tensor, rng_of(generator).normal(mean, std, tensor.shape))


def constant_(tensor: Tensor, val: float) -> Tensor:
    return _fill(tensor, val)


def zeros_(tensor: Tensor) -> Tensor:
    return _fill(tensor, 0)


def ones_(tensor: Tensor) -> Tensor:
    return _fill(tensor, 1)


def xavier_uniform_(
    tensor: Tensor, gain: float = 1.0, generator: Generator | None = None
) -> Tensor:
    """U(-b, b) with b = √3 · gain · √(2 / (fan_in + fan_out))."""
    raise NotImplementedError("Task 5.8: nn.init: xavier_* and kaiming_* — see §6 of the notebook")


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Generator | None = None) -> Tensor:
    """N(0, σ²) with σ = gain · √(2 / (fan_in + fan_out))."""
    raise NotImplementedError("Task 5.8: nn.init: xavier_* and kaiming_* — see §6 of the notebook")


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Generator | None = None,
) -> Tensor:
    """U(-b, b) with b = √3 · gain / √fan, gain = calculate_gain(nonlinearity, a)."""
    raise NotImplementedError("Task 5.8: nn.init: xavier_* and kaiming_* — see §6 of the notebook")


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Generator | None = None,
) -> Tensor:
    """N(0, σ²) with σ = gain / √fan, gain = calculate_gain(nonlinearity, a)."""
    raise NotImplementedError("Task 5.8: nn.init: xavier_* and kaiming_* — see §6 of the notebook")

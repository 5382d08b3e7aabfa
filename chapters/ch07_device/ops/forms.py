"""PyTorch's module-level forms of the Tensor methods: ``sp.tanh(x)`` is ``x.tanh()``,
``sp.sum(x, dim)`` is ``x.sum(dim)`` and so on (given code: each one calls the method).
``from_numpy`` and the dtype names ``long``, ``double``, ``half`` complete what a script
written for PyTorch reaches for."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...ch02_tensor import Tensor
from ...ch02_tensor.dtypes import float16, float64, int64
from ...ch05_nn.nn import functional as _F

long, double, half = int64, float64, float16  # torch.long, torch.double, torch.half


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def exp(input: Tensor) -> Tensor:
    return input.exp()


def log(input: Tensor) -> Tensor:
    return input.log()


def sqrt(input: Tensor) -> Tensor:
    return input.sqrt()


def abs(input: Tensor) -> Tensor:
    return input.abs()


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def relu(input: Tensor) -> Tensor:
    return input.relu()


def sum(
    input: Tensor, dim: int | Sequence[int] | None = None, keepdim: bool = False, *, dtype=None
) -> Tensor:
    return input.sum(dim, keepdim, dtype=dtype)


def mean(input: Tensor, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
    return input.mean(dim, keepdim)


def max(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:
    if isinstance(dim, Tensor):
        raise TypeError("max(input, other) of two tensors is torch.maximum: not in the course")
    return input.max(dim, keepdim)


def argmax(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    return input.argmax(dim, keepdim)


def matmul(input: Tensor, other: Tensor) -> Tensor:
    return input.matmul(other)


mm = matmul  # PyTorch's 2-D matmul (here: matmul's rules)


def reshape(input: Tensor, shape: Sequence[int]) -> Tensor:
    return input.reshape(tuple(shape))


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    return input.transpose(dim0, dim1)


def permute(input: Tensor, dims: Sequence[int]) -> Tensor:
    return input.permute(tuple(dims))


def squeeze(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    return input.squeeze(dim)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    return input.unsqueeze(dim)


def softmax(input: Tensor, dim: int) -> Tensor:
    return _F.softmax(input, dim)


def log_softmax(input: Tensor, dim: int) -> Tensor:
    return _F.log_softmax(input, dim)


def numel(input: Tensor) -> int:
    return input.numel()


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def from_numpy(array: np.ndarray) -> Tensor:
    """A CPU tensor sharing ``array``'s memory (a change to one shows in the other), whatever
    the default device, as in PyTorch."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    return Tensor(array, device="cpu")

"""``Linear``: ``y = x Wᵀ + b``, with PyTorch's default initialisation. Task 5.2.

The weight has shape (out_features, in_features), as in PyTorch, so ``x @ W.T`` maps a
batch of shape (N, in) to (N, out). Both parameters start as U(-k, k) with
``k = 1 / √in_features`` (PyTorch writes the weight's as ``kaiming_uniform_(weight, a=√5)``,
§6: its gain √(2 / (1 + 5)) = √(1/3) times √3 / √fan_in is exactly ``1 / √fan_in``).

    forward   y = x Wᵀ + b
    backward  ∂L/∂x = g W,   ∂L/∂W = gᵀ x,   ∂L/∂b = Σ_batch g     (the engine's, from @ and +)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...ch02_tensor.dtypes import get_default_dtype
from ...ch02_tensor.tensor import Tensor
from . import init
from .module import Module
from .parameter import Parameter


class Linear(Module):
    """``Linear(in_features, out_features, bias=True, dtype=None)``."""

    def __init__(
        self, in_features: int, out_features: int, bias: bool = True, dtype: Any = None
    ) -> None:
        super().__init__()
        for name, n in (("in_features", in_features), ("out_features", out_features)):
            if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
                raise ValueError(f"Linear's {name} is a non-negative int, not {n!r}")
        self.in_features, self.out_features = int(in_features), int(out_features)
        dtype = np.dtype(dtype or get_default_dtype())
        self.weight = Parameter(np.empty((self.out_features, self.in_features), dtype))
        if bias:
            self.bias = Parameter(np.empty((self.out_features,), dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's default: weight and bias both U(−k, k), k = 1/√in_features, filled in
        place (the Parameters ``__init__`` made keep their dtype, and stay the same objects)."""
        ### BEGIN SOLUTION 5.2
        bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0.0
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)
        ### END SOLUTION

    def forward(self, x: Tensor) -> Tensor:
        if not isinstance(x, Tensor):
            raise TypeError(f"Linear takes a Tensor, not {type(x).__name__}")
        if x.ndim == 0 or x.shape[-1] != self.in_features:
            raise RuntimeError(
                f"Linear(in_features={self.in_features}) got an input of shape {x.shape}: "
                f"its last size must be {self.in_features}"
            )
        if x.dtype != self.weight.dtype:
            raise TypeError(
                f"Linear's weight is {self.weight.dtype} and the input {x.dtype}: make the input "
                f"{self.weight.dtype} (sp.tensor(x, dtype=...)), or the model "
                f"{x.dtype} (model.to(...)), as PyTorch requires one dtype"
            )
        ### BEGIN SOLUTION 5.2
        y = x @ self.weight.T
        if self.bias is not None:
            y = y + self.bias
        return y
        ### END SOLUTION

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )

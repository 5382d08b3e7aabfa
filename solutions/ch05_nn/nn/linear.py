"""``Linear``: ``y = x Wᵀ + b`` as one operation, with PyTorch's default initialisation.
Task 5.2.

The weight has shape (out_features, in_features), as in PyTorch, so ``x Wᵀ`` maps a batch of
shape (N, in) to (N, out). Both parameters start as U(-k, k) with ``k = 1 / √in_features``
(PyTorch writes the weight's as ``kaiming_uniform_(weight, a=√5)``, §6: its gain
√(2 / (1 + 5)) = √(1/3) times √3 / √fan_in is exactly ``1 / √fan_in``).

``x @ self.weight.T + self.bias`` would work, through chapter 2's ops: three nodes, and W's
gradient would arrive through the transpose's backward as a transposed *view* of gᵀx, which
every later update reads out of order (several times slower for a 128 × 784 weight). One
``Function`` with the whole layer's backward is both shorter for the engine and gives each
gradient in its parameter's own layout (g has shape (N, out)):

    forward   y = x Wᵀ + b
    backward  ∂L/∂x = g W      (N, out)(out, in)
              ∂L/∂W = gᵀ x     (out, N)(N, in): W's own shape, no transpose to undo
              ∂L/∂b = Σₙ g     summed over the batch
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...ch02_tensor.dtypes import get_default_dtype
from ...ch02_tensor.function import Context, Function
from ...ch02_tensor.tensor import Tensor
from ...ch02_tensor.version import forget
from . import init
from .module import Module
from .parameter import Parameter


class LinearFunction(Function):
    """out = x Wᵀ + b for x of shape (N, in), W (out, in), b (out,) or no bias."""

    @staticmethod
    def forward(ctx: Context, x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Any:
        ### BEGIN SOLUTION 5.2
        ctx.save_for_backward(x, weight)
        out = x.data @ weight.data.T
        return out if bias is None else out + bias.data
        ### END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple:
        """One gradient per input: (x, W) without a bias, (x, W, b) with one
        (``len(ctx.needs_input_grad)`` says which); None where none is needed. Tensor
        operations on ``grad_output`` and the saved tensors, as chapter 2's backwards: with
        ``create_graph=True`` they are recorded, so Linear is twice differentiable (as
        PyTorch's), which arrays wrapped in Tensors would not be."""
        ### BEGIN SOLUTION 5.2
        x, weight = ctx.saved_tensors
        needs = ctx.needs_input_grad
        grad_x = grad_output @ weight if needs[0] else None
        grad_weight = grad_output.T @ x if needs[1] else None
        if len(needs) == 2:
            return grad_x, grad_weight
        return grad_x, grad_weight, grad_output.sum(dim=0) if needs[2] else None
        ### END SOLUTION


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input Wᵀ + b`` for input (…, in): the leading axes are flattened into rows for
    ``LinearFunction`` and restored after."""
    rows = input if input.ndim == 2 else input.reshape(-1, input.shape[-1])
    out = LinearFunction.apply(rows, weight, bias)
    if not rows.requires_grad:  # W is kept for ∂L/∂x alone: PyTorch would not keep it, so
        forget(out, weight)  # its later changes (an optimizer's step) do not matter
    if not weight.requires_grad:  # and x for ∂L/∂W alone (a frozen layer)
        forget(out, rows)
    return out if input.ndim == 2 else out.reshape(*input.shape[:-1], weight.shape[0])


class Linear(Module):
    """``Linear(in_features, out_features, bias=True, device=None, dtype=None)``."""

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
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
        if device is not None:  # drawn where the default device is, then moved (given)
            self.to(device)

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
        return linear(x, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )

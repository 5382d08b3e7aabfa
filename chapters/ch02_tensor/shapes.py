"""Shape operations: ``reshape``/``view``, ``transpose`` and ``permute``. Task 2.9 (§8).

They move numbers around without changing any, so each backward moves the gradient back:
the Jacobian is a permutation matrix, and its transpose is the inverse permutation.
"""

from __future__ import annotations

from .backend import array_module
from .function import Context, Function


class Reshape(Function):
    """out = a with a new shape (same elements, same order)    ∂L/∂a = ∂L/∂out reshaped back"""

    @staticmethod
    def forward(ctx: Context, a, shape: tuple[int, ...]):
        ctx.shape = a.shape
        try:
            return a.data.reshape(shape)
        except ValueError:
            raise ValueError(
                f"shape {tuple(shape)} is invalid for a tensor of shape {a.shape} "
                f"({a.data.size} elements)"
            ) from None

    @staticmethod
    def backward(ctx: Context, grad_output):
        raise NotImplementedError(
            "Task 2.9: Reshape, Transpose and Permute backward — see §8 of the notebook"
        )


class Transpose(Function):
    """out = a with axes dim0 and dim1 swapped       ∂L/∂a = ∂L/∂out with them swapped back"""

    @staticmethod
    def forward(ctx: Context, a, dim0: int, dim1: int):
        ctx.dims = (dim0, dim1)
        return array_module(a.data).swapaxes(a.data, dim0, dim1)

    @staticmethod
    def backward(ctx: Context, grad_output):
        raise NotImplementedError(
            "Task 2.9: Reshape, Transpose and Permute backward — see §8 of the notebook"
        )


class Permute(Function):
    """out's axis i is a's axis dims[i]       ∂L/∂a = ∂L/∂out permuted by the inverse"""

    @staticmethod
    def forward(ctx: Context, a, dims: tuple[int, ...]):
        if sorted(d % max(a.ndim, 1) for d in dims) != list(range(a.ndim)):
            raise ValueError(f"permute({dims}) must name each of the {a.ndim} axes once")
        ctx.dims = tuple(d % max(a.ndim, 1) for d in dims)
        return array_module(a.data).transpose(a.data, ctx.dims)

    @staticmethod
    def backward(ctx: Context, grad_output):
        raise NotImplementedError(
            "Task 2.9: Reshape, Transpose and Permute backward — see §8 of the notebook"
        )

"""Shape operations: ``reshape``/``view``, ``transpose`` and ``permute``. Task 2.9 (§8).

They move numbers around without changing any, so each backward moves the gradient back:
the Jacobian is a permutation matrix, and its transpose is the inverse permutation.
"""

from __future__ import annotations

import functools
from typing import Any

from .backend import array_module
from .function import Context, Function


def dim_index(dim: int, ndim: int) -> int:
    """Axis ``dim`` of an ``ndim``-dimensional tensor as a non-negative index (-1 is the
    last); PyTorch's IndexError when there is no such axis."""
    size = max(ndim, 1)  # a 0-d tensor accepts 0 and -1, as in PyTorch
    if not -size <= dim < size:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-size}, {size - 1}], "
            f"but got {dim})"
        )
    return dim % size


NUMPY_NAMES = (("axis", "dim"), ("keepdims", "keepdim"))  # PyTorch takes NumPy's names too


def numpy_names(function: Any) -> Any:
    """``function`` taking NumPy's keyword names as well, as every PyTorch function with a
    ``dim`` or a ``keepdim`` does: ``axis=`` for ``dim=`` and ``keepdims=`` for ``keepdim=``
    (makemore writes ``P.sum(1, keepdims=True)``). Both names at once is a TypeError."""

    @functools.wraps(function)
    def aliased(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            for alias, name in NUMPY_NAMES:
                if alias in kwargs:
                    if name in kwargs:
                        raise TypeError(
                            f"{function.__name__}() got both {name!r} and {alias!r}, "
                            "which name the same argument"
                        )
                    kwargs[name] = kwargs.pop(alias)
        return function(*args, **kwargs)

    return aliased


class Reshape(Function):
    """out = a with a new shape (same elements, same order)    ∂L/∂a = ∂L/∂out reshaped back"""

    @staticmethod
    def forward(ctx: Context, a, shape: tuple[int, ...]):
        ctx.shape = a.shape
        if shape and min(shape) < -1:  # NumPy reads any negative size as -1; PyTorch refuses
            i = next(i for i, n in enumerate(shape) if n < -1)
            raise RuntimeError(
                f"invalid shape dimension {shape[i]} at index {i} of shape {list(shape)}"
            )
        try:
            return a.data.reshape(shape)
        except ValueError:
            raise RuntimeError(
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
        ctx.dims = (dim_index(dim0, a.ndim), dim_index(dim1, a.ndim))
        if a.ndim == 0:
            return a.data
        return array_module(a.data).swapaxes(a.data, *ctx.dims)

    @staticmethod
    def backward(ctx: Context, grad_output):
        raise NotImplementedError(
            "Task 2.9: Reshape, Transpose and Permute backward — see §8 of the notebook"
        )


class Permute(Function):
    """out's axis i is a's axis dims[i]       ∂L/∂a = ∂L/∂out permuted by the inverse"""

    @staticmethod
    def forward(ctx: Context, a, dims: tuple[int, ...]):
        ctx.dims = tuple(dim_index(d, a.ndim) for d in dims)
        if sorted(ctx.dims) != list(range(a.ndim)):
            raise RuntimeError(f"permute{tuple(dims)} must name each of the {a.ndim} axes once")
        return array_module(a.data).transpose(a.data, ctx.dims)

    @staticmethod
    def backward(ctx: Context, grad_output):
        raise NotImplementedError(
            "Task 2.9: Reshape, Transpose and Permute backward — see §8 of the notebook"
        )

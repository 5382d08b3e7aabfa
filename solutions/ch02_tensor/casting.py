"""Mixing dtypes: ``Cast`` (a dtype change as an operation) and PyTorch's type promotion.

When the operands of ``a * b`` have different dtypes, PyTorch picks the result's dtype by
category, not by NumPy's rules: floating beats integer beats bool; within the winning
category, tensors with dimensions outrank 0-d tensors, which outrank Python numbers; and
a Python float meeting an integer tensor gives the default dtype (float32). So
``float32 * int64`` stays float32, where NumPy would give float64. The operators of
``Tensor`` cast their operands with ``Cast`` before the operation, so the gradient flows
back through the cast, into each input's own dtype. Given code.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .dtypes import category, get_default_dtype, promote_types
from .function import Context, Function


def result_type(*tensors: Any) -> np.dtype:
    """The dtype PyTorch gives an operation on these tensors."""
    categories = [category(t.dtype) for t in tensors]
    top = max(categories)
    winners = [t for t, c in zip(tensors, categories) if c == top]  # the highest category
    dimensioned = [t.dtype for t in winners if t.ndim > 0]  # outrank 0-d tensors
    dtypes = dimensioned or [t.dtype for t in winners]
    return dtypes[0] if len(dtypes) == 1 else promote_types(*dtypes)


def scalar_type(value: numbers.Number, dtype: np.dtype) -> np.dtype:
    """The dtype of a Python number that meets a tensor of ``dtype``: the tensor's own,
    unless the number is of a higher category (a float meeting integers: the default
    floating dtype; an int meeting bools: int64)."""
    if dtype.kind == "f":
        return dtype  # the common case: no number outranks a floating tensor
    if isinstance(value, bool):
        own = np.dtype(np.bool_)
    elif isinstance(value, numbers.Integral):
        own = np.dtype(np.int64)
    else:
        own = get_default_dtype()
    return dtype if category(own) <= category(dtype) else own


class Cast(Function):
    """out = a as ``dtype``      ∂L/∂a = ∂L/∂out cast back to a's dtype"""

    @staticmethod
    def forward(ctx: Context, a, dtype: Any):
        ctx.dtype = a.dtype
        return a.data.astype(dtype)

    @staticmethod
    def backward(ctx: Context, grad_output):
        return Cast.apply(grad_output, ctx.dtype)


def promote(*tensors: Any) -> tuple:
    """The tensors, each cast to their common dtype (``result_type``) where it differs."""
    dtype = result_type(*tensors)
    return tuple([t if t.dtype == dtype else _cast(t, dtype) for t in tensors])


def _cast(t: Any, dtype: np.dtype) -> Any:
    """``Cast.apply(t, dtype)``; a constant (``a > 0`` in ``g * (a > 0)``) has no gradient to
    flow back, so its data is converted directly: the same tensor, without the Function."""
    if t.requires_grad:
        return Cast.apply(t, dtype)
    return _tensor.Tensor._from_array(t.data.astype(dtype))


from . import tensor as _tensor  # noqa: E402  (last: tensor.py imports this module)

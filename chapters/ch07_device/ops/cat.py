"""``cat(tensors, dim)`` and ``stack(tensors, dim)``: task 7.8 (§7 of the notebook).

``cat`` joins tensors end to end along ``dim`` (every other size equal): input k fills the
slice ``[offset_k, offset_k + n_k)`` of ``dim``, where n_k is its size along ``dim`` and
offset_k the sum of the sizes before it. Each output element is one input element, so the
gradient of input k is that same slice of ∂L/∂out: the backward is a split, one piece per
input, cut at the running sums of the sizes. The pieces are taken by indexing (a recorded
operation), so the backward is differentiable again.

``stack`` puts the tensors side by side along a new axis ``dim``: ``unsqueeze(dim)`` of
each, then ``cat`` (its gradient follows from theirs).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...ch02_tensor import Tensor
from ...ch02_tensor.backend import array_module
from ...ch02_tensor.casting import promote
from ...ch02_tensor.function import Context, Function
from ...ch02_tensor.shapes import dim_index


class Cat(Function):
    """out = the inputs end to end along dim        ∂L/∂input_k = ∂L/∂out's k-th slice"""

    @staticmethod
    def forward(ctx: Context, dim: int, *tensors):
        ctx.dim, ctx.sizes = dim, [t.shape[dim] for t in tensors]
        raise NotImplementedError(
            "Task 7.8: cat and stack: the gradient is a split — see §7 of the notebook"
        )

    @staticmethod
    def backward(ctx: Context, grad_output):
        raise NotImplementedError(
            "Task 7.8: cat and stack: the gradient is a split — see §7 of the notebook"
        )


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """The tensors joined along ``dim`` (PyTorch's ``torch.cat``); their dtypes are promoted
    to a common one, and every size but ``dim``'s must agree."""
    tensors = _tensor_list(tensors, "torch.cat()")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    first = tensors[0]
    dim = dim_index(dim, first.ndim)
    for i, t in enumerate(tensors[1:], start=1):
        if t.ndim != first.ndim:
            raise RuntimeError(
                "Tensors must have same number of dimensions: got "
                f"{first.ndim} and {t.ndim} (tensor number {i} in the list)"
            )
        for axis, (m, n) in enumerate(zip(first.shape, t.shape)):
            if axis != dim and m != n:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {dim}. Expected size "
                    f"{m} but got size {n} for tensor number {i} in the list."
                )
    if len({t.dtype for t in tensors}) > 1:
        tensors = list(promote(*tensors))
    return Cat.apply(dim, *tensors)


concat = concatenate = cat  # PyTorch's other names for it


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """The tensors (all of one shape) side by side along a new axis ``dim``: PyTorch's
    ``torch.stack``."""
    tensors = _tensor_list(tensors, "stack()")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, t in enumerate(tensors[1:], start=1):
        if t.shape != tensors[0].shape:
            raise RuntimeError(
                "stack expects each tensor to be equal size, but got "
                f"{list(tensors[0].shape)} at entry 0 and {list(t.shape)} at entry {i}"
            )
    raise NotImplementedError(
        "Task 7.8: cat and stack: the gradient is a split — see §7 of the notebook"
    )


def _tensor_list(tensors: Any, what: str) -> list[Tensor]:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{what} takes a list or tuple of Tensors, not {type(tensors).__name__}")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}"
            )
    return list(tensors)

"""Matrix multiplication, ``a @ b``: task 2.6 (§6 of the notebook).

    C = A B,   C[i, j] = Σₖ A[i, k] B[k, j]

The Jacobian of C with respect to A is a 4-dimensional array that nobody builds; its
vector-Jacobian product is another matrix product:

    ∂L/∂A = ∂L/∂C · Bᵀ        ∂L/∂B = Aᵀ · ∂L/∂C

As in NumPy and PyTorch, a 1-D ``a`` is a row vector (a size-1 axis is put in front of it
and removed from the result), a 1-D ``b`` is a column vector, and leading axes are batch
axes: the product of each pair of matrices in the batch.
"""

from __future__ import annotations

import numpy as np

from .function import Context, Function


def _check_shapes(a_shape: tuple[int, ...], b_shape: tuple[int, ...]) -> None:
    if not a_shape or not b_shape:
        raise RuntimeError(
            f"matmul needs two tensors of at least 1 dimension, got shapes {a_shape} and {b_shape}"
        )
    inner_b = b_shape[0] if len(b_shape) == 1 else b_shape[-2]
    if a_shape[-1] != inner_b:
        raise RuntimeError(
            f"matmul: shapes {a_shape} and {b_shape} cannot be multiplied "
            f"({a_shape[-1]} columns in the first, {inner_b} rows in the second)"
        )
    if len(a_shape) <= 2 and len(b_shape) <= 2:
        return  # no batch axes
    try:  # the batch axes (all but the last two) broadcast, as in elementwise operations
        np.broadcast_shapes(a_shape[:-2], b_shape[:-2])
    except ValueError:
        raise RuntimeError(
            f"matmul: the batch dimensions of shapes {a_shape} and {b_shape} do not broadcast"
        ) from None


class MatMul(Function):
    """out = a @ b          ∂L/∂a = ∂L/∂out · bᵀ,  ∂L/∂b = aᵀ · ∂L/∂out"""

    @staticmethod
    def forward(ctx: Context, a, b):
        _check_shapes(a.shape, b.shape)
        if a.dtype != b.dtype:  # as in PyTorch: no silent promotion inside a matmul
            raise RuntimeError(
                f"matmul: both operands must have the same dtype, not {a.dtype} and {b.dtype}"
            )
        # each operand is needed for the other's gradient only (∂L/∂a reads b): as PyTorch,
        # keep it only then; otherwise a stand-in over its array, read for its shape alone,
        # whose later changes do not matter (version.py watches the operands kept)
        needs_a, needs_b = ctx.needs_input_grad
        kept_a = a if needs_b else ctx.shape_only(a)
        ctx.save_for_backward(kept_a, b if needs_a else ctx.shape_only(b))
        return a.data @ b.data

    @staticmethod
    def backward(ctx: Context, grad_output):
        a, b = ctx.saved_tensors
        raise NotImplementedError(
            "Task 2.6: MatMul backward (1-D, 2-D and batched) — see §6 of the notebook"
        )

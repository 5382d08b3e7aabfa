"""How an array meets a Tensor: ``ndarray + t``, and ``p.data += t`` (given code).

``.data`` is the tensor's array, so code written for PyTorch puts arrays and tensors side by
side. Two cases, each with the answer PyTorch users expect:

- an operator, out of place: ``array * t`` is ``t.__rmul__(array)``, a Tensor (as if the
  array had stepped aside for the tensor, as ``3 * t`` does);
- an array's in-place operator with a Tensor operand: ``p.data += -lr * p.grad`` (Karpathy's
  makemore) changes ``p.data``'s memory by the tensor's values, as PyTorch's ``.data`` does.
  It is a write through ``.data``: autograd does not see it (no version change, as PyTorch).

Each array library asks a different question, so each gets its own answer:

- NumPy (NEP 13) calls ``__array_ufunc__`` on the *class* of an operand it does not know:
  ``ArrayUfunc`` below runs a ufunc that writes into an array (``out=``, as every in-place
  operator does; ``numpy.exp(t, out=a)`` too) on the tensor's array, and hands an operator
  to the tensor's reflected method; anything else (``numpy.exp(t)``) is refused as before.
- CuPy reads ``__array_ufunc__`` on the *tensor*: for a tensor on the GPU the answer is
  None, so ``cupy_array + t`` steps aside for ``t.__radd__`` as before. CuPy's in-place
  operators take any object with a ``__cuda_array_interface__``: a GPU tensor gives its
  array's (``cuda_array_interface``), so ``p.data += t`` runs as CuPy's own ``+=``.
- The simulated device's ``SimArray`` is the course's own: its in-place operators take a
  Tensor's array directly (chapter 7's ``simulated.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

# a NumPy ufunc as a binary operator: (the tensor's method when the tensor is on the left,
# the one when it is on the right: its reflected operator, or the mirrored comparison)
_OPERATORS = {
    np.add: ("__add__", "__radd__"),
    np.subtract: ("__sub__", "__rsub__"),
    np.multiply: ("__mul__", "__rmul__"),
    np.true_divide: ("__truediv__", "__rtruediv__"),
    np.floor_divide: ("__floordiv__", "__rfloordiv__"),
    np.remainder: ("__mod__", "__rmod__"),
    np.power: ("__pow__", "__rpow__"),
    np.matmul: ("__matmul__", "__rmatmul__"),
    np.bitwise_and: ("__and__", "__rand__"),
    np.bitwise_or: ("__or__", "__ror__"),
    np.bitwise_xor: ("__xor__", "__rxor__"),
    np.left_shift: ("__lshift__", "__rlshift__"),
    np.right_shift: ("__rshift__", "__rrshift__"),
    np.less: ("__lt__", "__gt__"),
    np.less_equal: ("__le__", "__ge__"),
    np.greater: ("__gt__", "__lt__"),
    np.greater_equal: ("__ge__", "__le__"),
    np.equal: ("__eq__", "__eq__"),
    np.not_equal: ("__ne__", "__ne__"),
}


def array_ufunc(tensor: Any, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
    """NumPy's ``__array_ufunc__`` for a Tensor operand (``tensor`` is one of ``inputs``)."""
    Tensor = type(tensor)
    if "out" in kwargs:  # an array's in-place operator: ndarray += t
        if any(isinstance(o, Tensor) for o in kwargs["out"]):
            return NotImplemented  # writing into a Tensor: the tensor's own operators do it
        arrays = [x.data if isinstance(x, Tensor) else x for x in inputs]
        return getattr(ufunc, method)(*arrays, **kwargs)
    names = _OPERATORS.get(ufunc)
    if method != "__call__" or names is None or len(inputs) != 2 or kwargs:
        return NotImplemented  # numpy.exp(t) and the like: use t.exp()
    left, right = inputs
    if isinstance(left, Tensor):
        return getattr(left, names[0])(right)
    return getattr(right, names[1])(left)


class ArrayUfunc:
    """``Tensor.__array_ufunc__``: ``array_ufunc`` for NumPy, which looks it up on the class;
    None for CuPy on a tensor whose array is not NumPy's (CuPy looks on the tensor, and None
    tells it to step aside for the tensor's reflected operator)."""

    def __get__(self, tensor: Any, owner: type | None = None) -> Any:
        if tensor is None:
            return array_ufunc
        if not isinstance(tensor.data, np.ndarray):
            return None
        return lambda *args, **kwargs: array_ufunc(tensor, *args, **kwargs)


def cuda_array_interface(tensor: Any) -> dict:
    """A GPU tensor's array's ``__cuda_array_interface__`` (CuPy reads it to take a Tensor
    as an array); any other tensor has none (AttributeError, so ``hasattr`` is False)."""
    try:
        return tensor.data.__cuda_array_interface__
    except AttributeError:
        raise AttributeError("a Tensor not on a CUDA GPU has no __cuda_array_interface__") from None

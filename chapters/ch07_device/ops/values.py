"""Value checks and bits (given code, §7): ``isclose``, ``allclose``, ``unique``,
``not_equal`` (``ne``'s other name) and the shifts ``<<``/``>>``
(``bitwise_left_shift``/``bitwise_right_shift``).

Their results are bools or integers (or the distinct values of ``unique``, which PyTorch
does not differentiate either): constants, so each is an array operation wrapped as a
Tensor, on the input's device (``xp = array_module(...)``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ch02_tensor import Tensor
from ...ch02_tensor.backend import array_module
from ...ch02_tensor.dtypes import is_floating
from ...ch02_tensor.shapes import dim_index
from .compare import ne
from .logic import _DTYPE_NAMES
from .pointwise import _binary

not_equal = ne  # PyTorch's other name for it

# -- isclose, allclose ----------------------------------------------------------------------

_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte"}
_NAMES.update(_DTYPE_NAMES, bool="Bool")


def isclose(
    input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> Tensor:
    """``|input − other| ≤ atol + rtol·|other|`` elementwise (infinities: close when equal;
    nan: only with ``equal_nan``): PyTorch's ``torch.isclose``. Both tensors of one dtype,
    shapes broadcasting."""
    for name, value in (("input", input), ("other", other)):
        if not isinstance(value, Tensor):
            raise TypeError(
                f"isclose(): argument '{name}' (position {1 if name == 'input' else 2}) must be "
                f"Tensor, not {type(value).__name__}"
            )
    if input.dtype != other.dtype:
        raise RuntimeError(
            f"{_NAMES.get(str(input.dtype), input.dtype)} did not match "
            f"{_NAMES.get(str(other.dtype), other.dtype)}"
        )
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    _broadcast(input.shape, other.shape)
    xp = array_module(input.data)
    a, b = input.data, other.data
    if not is_floating(input.dtype):  # integers and bools: compared as float64, as PyTorch does
        a, b = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        close = (a == b) | (xp.abs(a - b) <= atol + rtol * xp.abs(b))
    if is_floating(input.dtype):
        close = close & xp.isfinite(a) & xp.isfinite(b) | (a == b)
        if equal_nan:
            close = close | (xp.isnan(a) & xp.isnan(b))
    return Tensor._from_array(close)


def _broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> None:
    """PyTorch's error where two shapes do not broadcast."""
    for axis in range(-1, -min(len(a), len(b)) - 1, -1):
        if a[axis] != b[axis] and 1 not in (a[axis], b[axis]):
            raise RuntimeError(
                f"The size of tensor a ({a[axis]}) must match the size of tensor b ({b[axis]}) "
                f"at non-singleton dimension {max(len(a), len(b)) + axis}"
            )


def allclose(
    input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> bool:
    """``isclose(...)`` everywhere, as one Python bool: ``torch.allclose``."""
    return bool(isclose(input, other, rtol, atol, equal_nan).data.all())


# -- unique ---------------------------------------------------------------------------------


def unique(
    input: Tensor,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    """The distinct values of ``input``, in ascending order, as a 1-d tensor (``dim`` given:
    the distinct slices along ``dim``); ``return_inverse``: also where each element (slice)
    of ``input`` went in the result; ``return_counts``: also how often each occurs.
    PyTorch's ``torch.unique`` (each nan distinct, as there; ``sorted=False`` sorts too, as
    PyTorch's CPU does)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"unique(): argument 'input' must be Tensor, not {type(input).__name__}")
    xp = array_module(input.data)
    data = input.data
    if dim is None:
        values, inverse, counts = xp.unique(
            data.reshape(-1), return_inverse=True, return_counts=True, equal_nan=False
        )
        inverse = inverse.reshape(input.shape)
    else:
        if input.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        dim = dim_index(dim, input.ndim)
        values, inverse, counts = xp.unique(
            data, return_inverse=True, return_counts=True, axis=dim, equal_nan=False
        )
        inverse = inverse.reshape(-1)
    out = [Tensor._from_array(values)]
    if return_inverse:
        out.append(Tensor._from_array(inverse.astype(np.int64)))
    if return_counts:
        out.append(Tensor._from_array(counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


# -- <<, >> ---------------------------------------------------------------------------------


def _shift(name: str, input: Any, other: Any) -> Tensor:
    a, b = _binary(input, other, f"bitwise_{name}_shift")
    if is_floating(a.dtype):
        raise NotImplementedError(
            f"\"{name[0]}shift_cpu\" not implemented for '{_NAMES.get(str(a.dtype))}'"
        )
    if a.dtype == np.bool_:  # bools shift as int64 (PyTorch's result for bool << 1)
        a, b = (
            Tensor._from_array(a.data.astype(np.int64)),
            Tensor._from_array(b.data.astype(np.int64)),
        )
    xp = array_module(a.data)
    bits = a.dtype.itemsize * 8
    shift = b.data.astype(a.dtype)
    inside = (shift >= 0) & (shift < bits)  # outside: PyTorch's 0 (or the sign, for >>)
    safe = xp.where(inside, shift, 0).astype(a.dtype)
    if name == "left":
        out = xp.where(inside, xp.left_shift(a.data, safe), 0)
    else:
        sign = xp.where(a.data < 0, -1, 0) if a.dtype.kind == "i" else 0
        out = xp.where(inside, xp.right_shift(a.data, safe), sign)
    return Tensor._from_array(out.astype(a.dtype))


def bitwise_left_shift(input: Any, other: Any) -> Tensor:
    """``input << other``: integers shifted left (a shift past the width, or a negative
    one, gives 0, as in PyTorch)."""
    return _shift("left", input, other)


def bitwise_right_shift(input: Any, other: Any) -> Tensor:
    """``input >> other``: integers shifted right, arithmetically (the sign kept; a shift
    past the width gives 0 or −1)."""
    return _shift("right", input, other)

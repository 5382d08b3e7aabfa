"""Sizes: how many windows fit, and PyTorch's argument forms (``3`` or ``(3, 5)``).

Along one axis of ``size`` pixels, padded by ``padding`` zeros on each side, a kernel of
``kernel_size`` taps spread ``dilation`` apart reaches ``dilation·(kernel_size − 1) + 1``
pixels, and its windows start every ``stride`` pixels. The windows that fit:

    out = ⌊(size + 2·padding − dilation·(kernel_size − 1) − 1) / stride⌋ + 1

(task 8.1, with ``windows`` in ``unfold.py``). Given code besides: ``pair``, the argument
forms.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np


def output_size(
    size: int, kernel_size: int, stride: int = 1, padding: int = 0, dilation: int = 1
) -> int:
    """How many windows fit along one axis: ⌊(size + 2p − d(k − 1) − 1) / s⌋ + 1 (0 or less
    when none does)."""
    ### BEGIN SOLUTION 8.1
    reach = dilation * (kernel_size - 1) + 1  # the pixels one window spans
    return (size + 2 * padding - reach) // stride + 1
    ### END SOLUTION


def output_shape(
    size: tuple[int, int],
    kernel_size: tuple[int, int],
    stride: tuple[int, int],
    padding: tuple[int, int],
    dilation: tuple[int, int],
) -> tuple[int, int]:
    """(oh, ow): ``output_size`` along each of the two axes, every argument a pair (given)."""
    oh, ow = (output_size(*axis) for axis in zip(size, kernel_size, stride, padding, dilation))
    return oh, ow


def _integer(value: Any, name: str) -> int:
    """An int (a NumPy integer too), never a bool: else a TypeError naming the argument."""
    if isinstance(value, (bool, np.bool_)) or not hasattr(value, "__index__"):
        raise TypeError(f"{name} must be an int or a pair of ints, not {value!r}")
    return operator.index(value)


def pair(value: Any, name: str) -> tuple[int, int]:
    """PyTorch's forms of a 2-D argument: one int for both axes, or two (a tuple or list).
    Another number of values is PyTorch's RuntimeError; anything else a TypeError naming the
    argument."""
    if isinstance(value, (tuple, list)):
        if len(value) == 1:
            return pair(value[0], name)
        if len(value) != 2:
            raise RuntimeError(
                f"expected {name} to be a single integer value or a list of 2 values to match "
                f"the convolution dimensions, but got {name}={list(value)}"
            )
        return _integer(value[0], name), _integer(value[1], name)
    n = _integer(value, name)
    return n, n

"""PyTorch's module-level forms of chapter 2's small Tensor methods (given code): the
comparisons by name, ``eq``, ``ne``, ``lt``, ``le``, ``gt``, ``ge`` (a bool tensor, no
gradient), ``equal`` (one Python bool: same shape and values), and ``clone`` and ``t``
(recorded: the gradient flows through them). Each calls the method, after PyTorch's check
that ``input`` is a Tensor (``sp.eq(1, x)`` is a TypeError there too)."""

from __future__ import annotations

from typing import Any

from ...ch02_tensor import Tensor


def _tensor(input: Any, name: str) -> Tensor:
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(input).__name__}")
    return input


def eq(input: Tensor, other: Any) -> Tensor:
    """``input == other`` elementwise."""
    return _tensor(input, "eq") == other


def ne(input: Tensor, other: Any) -> Tensor:
    """``input != other`` elementwise."""
    return _tensor(input, "ne") != other


def lt(input: Tensor, other: Any) -> Tensor:
    """``input < other`` elementwise."""
    return _tensor(input, "lt") < other


def le(input: Tensor, other: Any) -> Tensor:
    """``input <= other`` elementwise."""
    return _tensor(input, "le") <= other


def gt(input: Tensor, other: Any) -> Tensor:
    """``input > other`` elementwise."""
    return _tensor(input, "gt") > other


def ge(input: Tensor, other: Any) -> Tensor:
    """``input >= other`` elementwise."""
    return _tensor(input, "ge") >= other


def equal(input: Tensor, other: Tensor) -> bool:
    """True when both have the same shape and values (``Tensor.equal``)."""
    return _tensor(input, "equal").equal(other)


def clone(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """A copy that stays in the graph (``Tensor.clone``)."""
    return _tensor(input, "clone").clone(memory_format=memory_format)


def t(input: Tensor) -> Tensor:
    """A matrix's transpose; 0-d and 1-d as they are (``Tensor.t``)."""
    return _tensor(input, "t").t()

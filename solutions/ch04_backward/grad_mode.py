"""``no_grad``, ``enable_grad`` and ``set_grad_enabled``: when operations record a graph.
Task 4.5.

Chapter 2's ``Function.apply`` records a ``Node`` only while grad mode is on
(``is_grad_enabled()``, a per-thread flag, on by default), and ``_set_grad_enabled(b)``
sets it and returns what it was. Each class here is a context manager that sets the mode on
the way in and puts back what was there before on the way out (even after an exception, and
when nested), and a decorator (given: ``_Decorator``):

    with no_grad():                 @no_grad()
        w2 = w - lr * w.grad        def evaluate(model, x): ...

``set_grad_enabled(b)`` sets the mode as soon as it is made, so it also works as a plain
call (``set_grad_enabled(False)``), as PyTorch's does.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..ch02_tensor.grad_mode import _set_grad_enabled, is_grad_enabled


class _Decorator:
    """A grad-mode context manager that also decorates functions: each call of the function
    runs inside a fresh copy of the context (``_copy``). ``@no_grad`` without parentheses
    works too, as PyTorch's does."""

    def __new__(cls, *args: Any) -> Any:
        if cls is not set_grad_enabled and len(args) == 1 and callable(args[0]):
            return cls()(args[0])  # @no_grad: decorate straight away
        return super().__new__(cls)

    def _copy(self) -> _Decorator:
        return type(self)()

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self._copy():
                return fn(*args, **kwargs)

        return wrapper


class no_grad(_Decorator):
    """Inside, operations record no graph: results do not require grad."""

    def __enter__(self) -> None:
        ### BEGIN SOLUTION 4.5
        self.previous = _set_grad_enabled(False)
        ### END SOLUTION

    def __exit__(self, *exc: object) -> None:
        ### BEGIN SOLUTION 4.5
        _set_grad_enabled(self.previous)
        ### END SOLUTION


class enable_grad(_Decorator):
    """Inside, operations record the graph again (e.g. within ``no_grad``, or in a local
    backward that recomputes a forward)."""

    def __enter__(self) -> None:
        ### BEGIN SOLUTION 4.5
        self.previous = _set_grad_enabled(True)
        ### END SOLUTION

    def __exit__(self, *exc: object) -> None:
        ### BEGIN SOLUTION 4.5
        _set_grad_enabled(self.previous)
        ### END SOLUTION


class set_grad_enabled(_Decorator):
    """``set_grad_enabled(mode)``: the mode is set when this is made; leaving a ``with``
    block puts back the mode from before."""

    def __init__(self, mode: bool) -> None:
        self.mode = bool(mode)
        ### BEGIN SOLUTION 4.5
        self.previous = _set_grad_enabled(self.mode)
        ### END SOLUTION

    def _copy(self) -> _Decorator:
        return set_grad_enabled(self.mode)

    def __call__(self, fn: Callable) -> Callable:
        _set_grad_enabled(self.previous)  # as a decorator it changes nothing until called
        return super().__call__(fn)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        ### BEGIN SOLUTION 4.5
        _set_grad_enabled(self.previous)
        ### END SOLUTION


__all__ = ["enable_grad", "is_grad_enabled", "no_grad", "set_grad_enabled"]

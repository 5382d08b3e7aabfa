"""``Parameter``: a tensor that a ``Module`` counts as one of its weights (given code).

A parameter is a leaf tensor that requires a gradient, and nothing else: the difference is
what ``Module.__setattr__`` (task 5.1) does when one is assigned to an attribute. A plain
``Tensor`` assigned the same way is just an attribute; a ``Parameter`` is registered, and
``model.parameters()`` will find it.

A parameter also updates in place, as PyTorch's does, so the hand-written SGD step of every
PyTorch tutorial works::

    with sp.no_grad():
        for p in model.parameters():
            p -= lr * p.grad          # p's own array changes; p stays the same object

(without ``-=`` in place, Python would rebind ``p`` to a new tensor and the model would not
change). Outside ``no_grad`` the update would have to be recorded, and a leaf that
requires grad cannot be: PyTorch's error. Step after ``backward``: a graph recorded before
the step saved the parameter's array and would see the new values (PyTorch counts versions
and refuses; the course keeps no counter). Other tensors have no in-place operators in the
course: their ``+=`` makes a new tensor (chapter 4's accumulation relies on it).
"""

from __future__ import annotations

from typing import Any

from ...ch02_tensor.grad_mode import is_grad_enabled
from ...ch02_tensor.tensor import Tensor


class Parameter(Tensor):
    """``Parameter(data, requires_grad=True)``: shares ``data``'s array (no copy)."""

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        if data is None:
            data = []
        if isinstance(data, Tensor):
            data = data.data
        super().__init__(data, requires_grad=requires_grad)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def _in_place(self, result: Tensor, op: str) -> Parameter:
        """Write ``result`` (``self <op> other``, just computed) into this parameter's array."""
        if self.requires_grad and is_grad_enabled():
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation "
                f"({op}=): update parameters under no_grad()"
            )
        if result.shape != self.shape:
            raise RuntimeError(
                f"output with shape {self.shape} doesn't match the broadcast shape "
                f"{result.shape} (in-place {op}=)"
            )
        self.data[...] = result.data
        return self

    def __iadd__(self, other: Any) -> Parameter:
        return self._in_place(self + other, "+")

    def __isub__(self, other: Any) -> Parameter:
        return self._in_place(self - other, "-")

    def __imul__(self, other: Any) -> Parameter:
        return self._in_place(self * other, "*")

    def __itruediv__(self, other: Any) -> Parameter:
        return self._in_place(self / other, "/")

"""``Parameter``: a tensor that a ``Module`` counts as one of its weights (given code).

A parameter is a leaf tensor that requires a gradient, and nothing else: the difference is
what ``Module.__setattr__`` (task 5.1) does when one is assigned to an attribute. A plain
``Tensor`` assigned the same way is just an attribute; a ``Parameter`` is registered, and
``model.parameters()`` will find it.

A parameter updates in place as every tensor does (``inplace.py`` of chapter 2), so the
hand-written SGD step of every PyTorch tutorial works::

    with sp.no_grad():
        for p in model.parameters():
            p -= lr * p.grad          # p's own array changes; p stays the same object

Outside ``no_grad`` the update would have to be recorded, and a leaf that requires grad
cannot be: PyTorch's error. Each update moves the parameter's version counter, so a backward
through a graph recorded before the step raises instead of using the new values.
"""

from __future__ import annotations

from typing import Any

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

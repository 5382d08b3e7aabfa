"""``Parameter``: a tensor that a ``Module`` counts as one of its weights (given code).

A parameter is a leaf tensor that requires a gradient, and nothing else: the difference is
what ``Module.__setattr__`` (task 5.1) does when one is assigned to an attribute. A plain
``Tensor`` assigned the same way is just an attribute; a ``Parameter`` is registered, and
``model.parameters()`` will find it.
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

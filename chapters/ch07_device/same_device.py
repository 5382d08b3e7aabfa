"""Tensors on two devices meeting in one operation (task 7.5, §5).

NumPy cannot add a GPU's array to its own, and a framework that quietly copied one of them
across would hide the most expensive line of a training step. So an operation whose inputs
sit on different devices stops, with PyTorch's sentence naming both devices and the
operation. ``Function.apply`` (chapter 2's given code) calls ``check_same_device`` when the
inputs' arrays are of different kinds.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..ch02_tensor import Tensor


def check_same_device(op: str, tensors: Sequence[Tensor]) -> None:
    """Nothing when every tensor in ``tensors`` is on one device; else a RuntimeError naming
    the first two devices found and the operation ``op``."""
    raise NotImplementedError(
        "Task 7.5: check_same_device: two devices, one op — see §5 of the notebook"
    )

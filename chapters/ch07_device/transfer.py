"""Moving data between devices: ``move_array`` and ``Tensor.to`` (tasks 7.3 and 7.4, §5).

A copy between host memory and a device's memory is the slowest thing a training step can
do, so there is exactly one place that makes one: ``move_array``. ``Tensor.to(device)`` is
an operation like any other (``ToDevice``): the gradient of a copy is the gradient copied
back, so a model on the GPU can still take its loss back to the CPU and differentiate.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ch02_tensor import Context, Function, Tensor, device
from .backends import backend_for
from .dispatch import device_of


def resolve(target: Any) -> device:
    """``target`` (a device, or its name) as a device with its index: ``"cuda"`` means the
    current GPU (``cuda:0``), ``"sim"`` the one simulated device (``sim:0``)."""
    target = target if isinstance(target, device) else device(target)
    backend_for(target.type)  # an unknown type: ValueError naming the known ones
    if target.type == "cpu":
        return device("cpu")
    return device(target.type, 0 if target.index is None else target.index)


def move_array(array: Any, target: Any) -> Any:
    """``array`` on device ``target``: the same array when it is already there, else a copy
    (host → device, device → host, or through the host between two devices). A device that
    is not available is a RuntimeError in one sentence that says what to do instead."""
    raise NotImplementedError(
        "Task 7.3: move_array: the one place data crosses — see §5 of the notebook"
    )


class ToDevice(Function):
    """out = a, held by device ``target``        ∂L/∂a = ∂L/∂out, moved back to a's device"""

    @staticmethod
    def forward(ctx: Context, a: Tensor, target: device) -> Any:
        raise NotImplementedError(
            "Task 7.4: ToDevice: Tensor.to(device) and its gradient — see §5 of the notebook"
        )

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        raise NotImplementedError(
            "Task 7.4: ToDevice: Tensor.to(device) and its gradient — see §5 of the notebook"
        )


def to_device(tensor: Tensor, target: Any) -> Tensor:
    """``tensor.to(target)`` for a device (the seam in ``ch02_tensor/tensor.py``): ``tensor``
    itself when it is there already, else a recorded copy."""
    target = resolve(target)
    return tensor if tensor.device == target else ToDevice.apply(tensor, target)

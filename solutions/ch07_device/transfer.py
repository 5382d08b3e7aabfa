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
    ### BEGIN SOLUTION 7.3
    target, source = resolve(target), device_of(array)
    if source == target:
        return array
    if source.type != "cpu":
        array = backend_for(source.type).to_host(array)
    if target.type == "cpu":
        return array
    backend = backend_for(target.type)
    if not backend.is_available():
        raise RuntimeError(
            f"device '{target}' is not available here (no usable GPU: cuda.is_available() is "
            "False); use 'cpu', or 'sim' for the simulated device"
        )
    if target.index >= backend.device_count():
        raise RuntimeError(
            f"device '{target}' does not exist: there are {backend.device_count()} "
            f"{target.type} device(s), numbered from 0"
        )
    return backend.to_device(np.asarray(array, order="C"), target.index)  # keeps 0-d
    ### END SOLUTION


class ToDevice(Function):
    """out = a, held by device ``target``        ∂L/∂a = ∂L/∂out, moved back to a's device"""

    @staticmethod
    def forward(ctx: Context, a: Tensor, target: device) -> Any:
        ### BEGIN SOLUTION 7.4
        ctx.source = a.device
        return move_array(a.data, target)
        ### END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        ### BEGIN SOLUTION 7.4
        return ToDevice.apply(grad_output, ctx.source)
        ### END SOLUTION


def to_device(tensor: Tensor, target: Any) -> Tensor:
    """``tensor.to(target)`` for a device (the seam in ``ch02_tensor/tensor.py``): ``tensor``
    itself when it is there already, else a recorded copy."""
    target = resolve(target)
    return tensor if tensor.device == target else ToDevice.apply(tensor, target)

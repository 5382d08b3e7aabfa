"""``set_default_device``: where new tensors go when no ``device=`` is given (PyTorch's
name). Factories, ``Tensor(...)`` and the parameters a module makes all follow it;
operations put their results where their inputs are. Given code."""

from __future__ import annotations

from typing import Any

from ..ch02_tensor.device import DEFAULT, device
from .transfer import resolve


def set_default_device(target: Any) -> None:
    """New tensors on ``target`` from now on (``None``: the CPU again)."""
    DEFAULT["device"] = None if target is None else resolve(target)


def get_default_device() -> device:
    return DEFAULT["device"] or device("cpu")

"""``accelerator``: PyTorch's device-agnostic questions (``torch.accelerator``), which the
tutorials now open with::

    device = sp.accelerator.current_accelerator().type if sp.accelerator.is_available() else "cpu"

The accelerator here is CUDA (through CuPy), when ``cuda.is_available()`` says it can be
used; without it there is none, as on a machine where PyTorch finds no GPU:
``current_accelerator()`` is None and ``device_count()`` 0. The simulated device ``"sim"``
is a teaching device, never picked by this question (ask for it by name). Given code.

Apple's GPU (``torch.backends.mps``) has no backend here: ``backends.mps.is_available()``
is False (see ``backends.py``), so the older idiom ``"cuda" if sp.cuda.is_available() else
"mps" if sp.backends.mps.is_available() else "cpu"`` runs too.
"""

from __future__ import annotations

from ..ch02_tensor.device import device
from . import cuda


def is_available() -> bool:
    """Whether an accelerator (here: a usable CUDA GPU) is there."""
    return cuda.is_available()


def current_accelerator(check_available: bool = False) -> device | None:
    """The accelerator's device, ``device(type='cuda')``, or None when there is none
    (``check_available`` is accepted: the answer is already checked)."""
    return device("cuda") if cuda.is_available() else None


def device_count() -> int:
    """How many accelerator devices there are (0 without one)."""
    return cuda.device_count()


def current_device_index() -> int:
    """The index of the accelerator device in use (always 0 in this course; -1 without)."""
    return cuda.current_device() if cuda.is_available() else -1


current_device_idx = current_device_index  # PyTorch's older name


def synchronize(device: object = None) -> None:
    """Wait until the accelerator has finished its work (nothing to wait for without one)."""
    cuda.synchronize()

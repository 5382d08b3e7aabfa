"""``cuda``: is there a GPU this framework can use? (task 7.1, §3 of the notebook)

CuPy is optional, and a machine can have it installed and still no usable GPU: no driver,
an old driver (CuPy imports, then raises ``cudaErrorInsufficientDriver`` at the first
kernel), no device. So the answer comes from a probe that tries the three things a real run
needs: import CuPy, count the devices, run one tiny kernel and read its result back.

The probe runs on first use, never at import (importing the framework must not print, warn
or touch a GPU), and its answer is kept: asking again costs nothing. Whatever goes wrong,
the answer is simply False, silently; the framework then runs on the CPU, and only asking
for ``"cuda"`` explicitly gives an error (``transfer.move_array``).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import warnings

_answer: dict[str, tuple[bool, int]] = {}  # "probe" -> (usable, device count), once known


def _probe() -> tuple[bool, int]:
    """(a usable GPU, how many): import CuPy, count devices, run a tiny kernel on device 0
    and read its result back. Any failure — CuPy missing, no driver, no device, a kernel
    that cannot launch — is (False, 0), and nothing is printed or warned."""
    raise NotImplementedError(
        "Task 7.1: cuda.is_available: a silent, cached probe — see §3 of the notebook"
    )


def is_available() -> bool:
    """Whether a GPU can be used: the probe's answer, probed on the first call only and kept
    in ``_answer["probe"]`` (where ``device_count`` reads the count)."""
    raise NotImplementedError(
        "Task 7.1: cuda.is_available: a silent, cached probe — see §3 of the notebook"
    )


def device_count() -> int:
    """How many GPUs can be used (0 when ``is_available()`` is False): the count that
    ``is_available`` kept with its answer in ``_answer["probe"]``."""
    if not is_available():
        return 0
    if "probe" not in _answer:
        raise RuntimeError(
            "cuda.is_available() must keep the probe's answer in _answer['probe'] "
            "(device_count reads the count there)"
        )
    return _answer["probe"][1]


def current_device() -> int:
    """The index of the GPU that ``"cuda"`` means (always 0 in this course)."""
    return 0


def synchronize() -> None:
    """Wait until the GPU has finished what it was given (kernels run asynchronously: time
    GPU code only after this). Does nothing without a GPU."""
    if is_available():
        from .backends import backend_for

        backend_for("cuda").synchronize()

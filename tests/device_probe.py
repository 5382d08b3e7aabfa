"""The program of the probe check ``tests/test_device_checks.py`` adds after a chapter's own
checks: where a new tensor goes, and the simulated device's copies so far, in the child that
ran them. Like every check program it runs in the child next to the code under test and
imports only the standard library (the chapter 7 it reads is the tree's own, already
imported by the child to set the device). The test sets ``CHECKS``."""

from __future__ import annotations

import sys
from typing import Any

CHECKS: list = []  # set by the test, for the device it runs on


def where(sp) -> dict[str, Any]:
    """The device of a new tensor, and the host↔sim copies this process has made."""
    layer = sys.modules.get("chapters.ch07_device")
    copies = layer.simulated.transfers() if layer is not None else None
    return {
        "device": str(sp.Tensor([1.0]).device),
        "to_device": getattr(copies, "to_device", None),
        "to_host": getattr(copies, "to_host", None),
    }

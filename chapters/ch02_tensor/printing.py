"""How a tensor prints, in PyTorch's style: ``tensor([1.5000, 2.0000], dtype=float64)``.

Four decimals, or ``1.`` when every element is a whole number; the dtype when it is not one
a Python number would get (the default floating dtype, int64, bool); the device when it is
not the CPU; then ``grad_fn=<MulBackward>`` or ``requires_grad=True``. Given code.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .device import CPU
from .dtypes import get_default_dtype


def format_tensor(x: Any) -> str:
    """``repr(x)`` for a Tensor ``x``."""
    data = x.data if isinstance(x.data, np.ndarray) else x.detach().cpu().data
    finite = data[np.isfinite(data)] if data.dtype.kind == "f" else data
    whole = data.dtype.kind != "f" or bool(np.all(finite == np.round(finite)))
    body = np.array2string(
        data,
        separator=", ",
        prefix="tensor(",
        precision=4,
        floatmode="maxprec" if whole else "fixed",
        threshold=200,
    )
    extras = []
    if x.dtype not in (get_default_dtype(), np.int64, np.bool_):
        extras.append(f"dtype={x.dtype}")
    if x.device != CPU:
        extras.append(f"device='{x.device}'")
    if x.grad_fn is not None:
        extras.append(f"grad_fn={x.grad_fn!r}")
    elif x.requires_grad:
        extras.append("requires_grad=True")
    return "tensor(" + ", ".join([body, *extras]) + ")"

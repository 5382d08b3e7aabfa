"""Chapter 3's own check program (the op checks run chapter 2's ``programs.op``): it calls
``unbroadcast`` once, with a gradient that requires grad, and returns what came back."""

from __future__ import annotations

from typing import Any

import numpy as np


def unbroadcast(sp, grad: Any, shape: list, expect_error: bool = False) -> dict:
    """``sp.unbroadcast(g, shape)`` for g = Tensor(grad, requires_grad=True), whose array
    is read-only: the result's type, shape, dtype and values, and whether the graph
    recorded it (a result computed with Tensor operations requires grad and has a
    ``grad_fn``; g itself, where nothing is summed, is fine too)."""
    array = np.array(grad)
    array.flags.writeable = False  # unbroadcast must not change the gradient it was given
    g = sp.Tensor(array, requires_grad=True)
    if expect_error:
        try:
            sp.unbroadcast(g, tuple(shape))
        except NotImplementedError:
            raise
        except Exception as error:
            return {"error": type(error).__name__, "message": str(error)}
        return {"error": None, "message": ""}
    out = sp.unbroadcast(g, tuple(shape))
    data = getattr(out, "data", None)
    return {
        "type": type(out).__name__,
        "shape": list(getattr(out, "shape", ())),
        "dtype": str(getattr(out, "dtype", None)),
        "out": np.asarray(data) if isinstance(data, (np.ndarray, np.generic)) else None,
        "recorded": out is g
        or (
            bool(getattr(out, "requires_grad", False)) and getattr(out, "grad_fn", None) is not None
        ),
    }

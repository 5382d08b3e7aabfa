"""The check program of chapter 8's pooling (tasks 8.4 and 8.5, ``pooling.py``): runs next
to the code under test and returns what it saw. Standard library, NumPy, the kit and the
chapter's ``programs`` module only."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...harness.kit import array, attempt
from ..ch08_conv.programs import _second, error


def pool(
    sp,
    kind: str,
    x: Any,
    kernel_size: list,
    stride: list,
    padding: list,
    g: Any,
    dilation: list | None = None,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
    w: Any = None,
    dtype: str = "float64",
) -> dict:
    """``F.max_pool2d`` (``kind`` "max") or ``F.avg_pool2d`` ("avg") of x, the gradient
    for upstream g and, given w, the gradient's gradient ∂⟨∂L/∂x, w⟩/∂g."""
    F = sp.nn.functional
    a = sp.Tensor(np.array(x, dtype=dtype), requires_grad=True)
    k, s, p = tuple(kernel_size), tuple(stride), tuple(padding)
    if kind == "max":
        out = F.max_pool2d(a, k, s, p, tuple(dilation or (1, 1)))
    else:
        out = F.avg_pool2d(a, k, s, p, False, count_include_pad, divisor_override)
    seen: dict[str, Any] = {"out": array(out, keep=True), "dtype": str(out.dtype)}
    upstream = sp.Tensor(np.array(g, dtype=dtype), requires_grad=w is not None)
    result = attempt(lambda: sp.autograd.grad(out, [a], upstream, create_graph=w is not None))
    if result["error"]:
        return {**seen, "backward_error": error(result)}
    (grad,) = result["value"]
    seen["grad"] = array(grad, keep=True)
    if w is not None:
        seen.update(_second(sp, grad, w, upstream))
    return seen

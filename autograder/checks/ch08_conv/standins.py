"""Chapter 8's stand-ins (see ``autograder/harness/standin.py``): the autograder's own
version of a task, installed into the code under test for a rerun of a check that needs it
(8.2's checks unfold through 8.1's windows; 8.3's run 8.1 and 8.2; pooling runs 8.1's
windows and 8.2's fold).

Each is enough for the checks that lean on it and deliberately short of its own task, so
pasted into that task it fails (the course repository's ``test_contracts.py``):

- 8.1: ``output_size`` counts the window starts one by one; ``windows`` copies every window
  out by indexing, so it is no view (8.1's view check fails).
- 8.2: ``col2im`` adds every entry with ``np.add.at``; ``Im2Col``'s and ``Col2Im``'s
  backwards compute the other map in NumPy and return it unrecorded, so nothing built on
  them can be differentiated twice through them (8.2's gradient's-gradient check fails);
  the second derivatives of 8.3 and pooling go through them only once.
Runs in the child: standard library and NumPy only."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from ...harness.standin import Patch, everywhere


def _module(sp: ModuleType, name: str) -> ModuleType:
    return importlib.import_module(f"{sp.__name__}.{name}")


def _count(
    size: int, kernel_size: int, stride: int = 1, padding: int = 0, dilation: int = 1
) -> int:
    reach = dilation * (kernel_size - 1) + 1
    return len(range(0, size + 2 * padding - reach + 1, stride))


def _windows(x: Any, kernel_size: Any, dilation: Any = (1, 1), stride: Any = (1, 1)) -> Any:
    (kh, kw), (dh, dw), (sh, sw) = kernel_size, dilation, stride
    oh, ow = _count(x.shape[2], kh, sh, 0, dh), _count(x.shape[3], kw, sw, 0, dw)
    rows = np.arange(kh)[:, None] * dh + np.arange(oh)[None, :] * sh
    cols = np.arange(kw)[:, None] * dw + np.arange(ow)[None, :] * sw
    return x[:, :, rows[:, None, :, None], cols[None, :, None, :]]


def _windows_task(sp: ModuleType) -> list[Patch]:
    sizes, unfold = _module(sp, "sizes"), _module(sp, "unfold")
    return [
        *everywhere(sp, sizes.output_size, _count),
        *everywhere(sp, unfold.windows, _windows),
    ]


def _col2im(
    cols: Any, size: Any, kernel_size: Any, dilation: Any, padding: Any, stride: Any
) -> Any:
    (h, w), (kh, kw), (dh, dw), (ph, pw), (sh, sw) = size, kernel_size, dilation, padding, stride
    oh, ow = _count(h, kh, sh, ph, dh), _count(w, kw, sw, pw, dw)
    rows = np.arange(kh)[:, None] * dh + np.arange(oh)[None, :] * sh
    columns = np.arange(kw)[:, None] * dw + np.arange(ow)[None, :] * sw
    n = cols.shape[0]
    c = cols.shape[1] // (kh * kw)
    out = np.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=cols.dtype)
    where = (slice(None), slice(None), rows[:, None, :, None], columns[None, :, None, :])
    np.add.at(out, where, cols.reshape(n, c, kh, kw, oh, ow))
    return out[:, :, ph : ph + h, pw : pw + w]


def _fold_task(sp: ModuleType) -> list[Patch]:
    unfold = _module(sp, "unfold")
    tensor = sp.Tensor

    def im2col_backward(ctx: Any, grad_output: Any) -> Any:
        return tensor._from_array(_col2im(grad_output.data, tuple(ctx.size), *ctx.args))

    def col2im_backward(ctx: Any, grad_output: Any) -> Any:
        return tensor._from_array(unfold.im2col(grad_output.data, *ctx.args))

    return [
        *everywhere(sp, unfold.col2im, _col2im),
        (unfold.Im2Col, "backward", staticmethod(im2col_backward)),
        (unfold.Col2Im, "backward", staticmethod(col2im_backward)),
    ]


STANDINS: dict[str, Callable[[ModuleType], list[Patch]]] = {
    "8.1": _windows_task,
    "8.2": _fold_task,
}

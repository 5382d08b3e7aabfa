"""The check programs of chapter 8's tasks 8.1–8.3 (pooling's are ``pooling_program.py``):
the only part of those checks that runs next to the code under test (standard library,
NumPy and the kit only). Each returns what it saw and decides nothing.

Functions are looked up on their modules at each call (``sizes.output_size``,
``unfold.windows``, ``unfold.col2im``), so a stand-in installed for a rerun is the one
called. An error in a backward pass is returned as data (``backward_error``), so the verdict
can name the mistake it points to; a stub's NotImplementedError goes on up (the task is not
started)."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from ...harness.kit import array, attempt, fill, on_device, tr


def module(sp, name: str) -> Any:
    """The chapter's module ``name`` (``sizes``, ``unfold``, ``conv``, ``pooling``)."""
    return importlib.import_module(f"{sp.__name__}.{name}")


def error(result: dict) -> str:
    return f"{result['error']}: {result['message']}"


def placed(sp, values: Any, dtype: str = "float64") -> Any:
    """``values`` as an array where the checks' tensors go: the chapter's own Tensor makes
    it, so under ``--device sim`` it is a device array (as chapters 2–6's checks put their
    inputs there), else NumPy's."""
    return sp.Tensor(np.array(values, dtype=dtype)).data


def number(value: Any) -> Any:
    """An int as an int; anything else as "<type> value", for the verdict to name."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    return f"<{type(value).__name__}> {value!r}"


def output_sizes(sp, rows: list) -> dict:
    """``output_size(size, kernel_size, stride, padding, dilation)`` for each row."""
    sizes = module(sp, "sizes")
    return {"sizes": [number(sizes.output_size(*row)) for row in rows]}


def windows(
    sp,
    base: Any,
    step: int,
    kernel_size: list,
    dilation: list,
    stride: list,
    x2: Any,
    dtype: str = "float64",
    transposed: bool = False,
) -> dict:
    """``windows(x, kernel_size, dilation, stride)`` for x = base[..., ::step] (or base
    transposed), then x2 written into x: what the windows show after it (a view shows x2's
    windows), and the view's strides."""
    held = placed(sp, base, dtype)
    x = held.transpose(0, 1, 3, 2) if transposed else held[..., ::step]
    view = module(sp, "unfold").windows(x, tuple(kernel_size), tuple(dilation), tuple(stride))
    seen = {"values": array(view, keep=True), "shape": list(getattr(view, "shape", ()))}
    if not isinstance(view, np.ndarray) and not on_device(view):
        return seen
    seen["dtype"] = str(view.dtype)
    seen["strides"] = list(view.strides)
    fill(sp, x, np.asarray(x2, dtype=dtype))
    seen["after"] = array(view)
    return seen


def slice_words() -> str:
    """What a broadcast error in col2im means, in the learner's language."""
    return tr(
        " — a kernel offset's slice of the padded image and its (oh, ow) entries differ in "
        "shape: the slice starts at (i·dh, j·dw) and holds oh rows and ow columns, stride "
        "pixels apart",
        "——填充后图像中某个卷积核偏移对应的切片，与它的 (oh, ow) 个元素形状不同：切片从 "
        "(i·dh, j·dw) 开始，含 oh 行、ow 列，行列之间相隔 stride 个像素",
    )


def col2im(
    sp,
    cols: Any,
    size: list,
    kernel_size: list,
    dilation: list,
    padding: list,
    stride: list,
    dtype: str = "float64",
) -> dict:
    """``col2im(cols, size, kernel_size, dilation, padding, stride)`` on arrays (NumPy's, or
    the device's under ``--device``) of ``dtype``."""
    args = [tuple(a) for a in (size, kernel_size, dilation, padding, stride)]
    try:
        out = module(sp, "unfold").col2im(placed(sp, cols, dtype), *args)
    except ValueError as error:  # the report shows it with its line; these words say more
        if error.args and "broadcast" in str(error.args[0]):
            error.args = (f"{error.args[0]}{slice_words()}", *error.args[1:])
        raise
    return {"out": array(out, keep=True), "dtype": str(out.dtype)}


def _second(sp, first: Any, weights: Any, wrt: Any) -> dict:
    """∂⟨first, weights⟩/∂wrt, or the error it met."""

    def run() -> Any:
        total = (first * sp.Tensor(np.array(weights, dtype=first.data.dtype))).sum()
        (found,) = sp.autograd.grad(total, [wrt], retain_graph=True)
        return found

    result = attempt(run)
    if result["error"]:
        return {"second_error": error(result)}
    return {"grad_grad": array(result["value"], keep=True)}


def fold_grads(
    sp,
    op: str,
    x: Any,
    size: list,
    kernel_size: list,
    dilation: list,
    padding: list,
    stride: list,
    g: Any,
    w: Any = None,
) -> dict:
    """``F.unfold(x, …)`` (or ``F.fold(x, size, …)``), its gradient for upstream g and,
    given w, the gradient's gradient ∂⟨∂L/∂x, w⟩/∂g."""
    F = sp.nn.functional
    a = sp.Tensor(np.array(x), requires_grad=True)
    args = [tuple(v) for v in (kernel_size, dilation, padding, stride)]
    out = F.unfold(a, *args) if op == "unfold" else F.fold(a, tuple(size), *args)
    seen: dict[str, Any] = {"out": array(out, keep=True)}
    upstream = sp.Tensor(np.array(g), requires_grad=w is not None)
    result = attempt(lambda: sp.autograd.grad(out, [a], upstream, create_graph=w is not None))
    if result["error"]:
        return {**seen, "backward_error": error(result)}
    (grad,) = result["value"]
    seen["grad"] = array(grad, keep=True)
    if w is not None:
        seen.update(_second(sp, grad, w, upstream))
    return seen


def adjoint(
    sp, x: Any, y: Any, size: list, kernel_size: list, dilation: list, padding: list, stride: list
) -> dict:
    """``F.unfold(x, …)`` and ``F.fold(y, size, …)``: the parent takes the inner products."""
    F = sp.nn.functional
    args = [tuple(v) for v in (kernel_size, dilation, padding, stride)]
    unfolded = F.unfold(sp.Tensor(np.array(x)), *args)
    folded = F.fold(sp.Tensor(np.array(y)), tuple(size), *args)
    return {"unfolded": array(unfolded, keep=True), "folded": array(folded, keep=True)}


class _Calls:
    """Counts the calls of the function ``name`` of a chapter module while it is installed
    (looked up as a module global at each call: ``unfold.col2im``, what ``Col2Im`` runs;
    ``conv._columns``, what ∂L/∂W reads)."""

    def __init__(self, owner: Any, name: str) -> None:
        self.owner, self.name, self.count = owner, name, 0

    def __enter__(self) -> _Calls:
        self.original = getattr(self.owner, self.name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return self.original(*args, **kwargs)

        setattr(self.owner, self.name, counted)
        return self

    def __exit__(self, *exc: Any) -> None:
        setattr(self.owner, self.name, self.original)


def conv(
    sp,
    x: Any,
    w: Any,
    b: Any,
    stride: list,
    padding: list,
    dilation: list,
    groups: int,
    g: Any,
    needs: list,
    v: Any = None,
    V: Any = None,
    count: bool = False,
    dtype: str = "float64",
) -> dict:
    """``F.conv2d(x, w, b, stride, padding, dilation, groups)`` with the inputs that
    ``needs`` requiring a gradient; their gradients for upstream g (with ``count``, the
    folds the backward ran); given v and V, ∂⟨∂L/∂x, v⟩/∂w and ∂⟨∂L/∂w, V⟩/∂x."""
    second = v is not None
    X = sp.Tensor(np.array(x, dtype=dtype), requires_grad=needs[0])
    W = sp.Tensor(np.array(w, dtype=dtype), requires_grad=needs[1])
    B = None if b is None else sp.Tensor(np.array(b, dtype=dtype), requires_grad=needs[2])
    args = (tuple(stride), tuple(padding), tuple(dilation), groups)
    out = sp.nn.functional.conv2d(X, W, B, *args)
    seen: dict[str, Any] = {"out": array(out, keep=True), "dtype": str(out.dtype)}
    leaves = [t for t, need in zip((X, W, B), needs) if t is not None and need]
    upstream = sp.Tensor(np.array(g, dtype=dtype))
    folds, columns = _Calls(module(sp, "unfold"), "col2im"), _Calls(module(sp, "conv"), "_columns")
    with folds, columns:
        result = attempt(lambda: sp.autograd.grad(out, leaves, upstream, create_graph=second))
    if result["error"]:
        return {**seen, "backward_error": error(result)}
    grads = list(result["value"])
    seen["grads"] = [array(t, keep=True) for t in grads]
    if count:
        seen["folds"], seen["columns"] = folds.count, columns.count
    if second:
        x_w = _second(sp, grads[0], v, W)
        w_x = _second(sp, grads[1], V, X)
        seen["x_w"] = x_w.get("grad_grad")
        seen["w_x"] = w_x.get("grad_grad")
        errors = [r["second_error"] for r in (x_w, w_x) if "second_error" in r]
        if errors:
            seen["second_error"] = errors[0]
    return seen

"""The check programs of chapter 7's operations (``ops.py``): the only part of those checks
that runs next to the code under test (standard library and NumPy only). Each returns what
it saw and decides nothing.

A program runs the op forward on float64 (or float32) leaves, then ``autograd.grad`` with an
upstream gradient that itself requires a gradient (``create_graph=True``), so the same run
can go on to the gradient's gradient: ∂⟨∂L/∂x, w⟩/∂g, which exists only when the backward
was recorded as operations. Chapters 2–6 are the reference's in the graded tree, so only
the op's own forward and backward are judged. A failure in the backward pass is returned
as data (``backward_error``), so the verdict can name the mistake it points to; a stub's
NotImplementedError goes on up (the task is not started)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...harness.kit import array, attempt


def _error(result: dict) -> str:
    return f"{result['error']}: {result['message']}"


class _Place:
    """Where a program's arrays go: the host, or the simulated device ("sim"), put there by
    the autograder's means (``simnumpy.asarray``) and read back with ``.get()``. On sim,
    chapter 2's seams reach the autograder's own ``array_module``, ``scatter_add`` and
    ``device_of`` while the program runs, so the op alone is judged (not tasks 7.2–7.6)."""

    def __init__(self, sp: Any, device: str) -> None:
        self.sp, self.sim = sp, device == "sim"
        self.saved: dict[str, Any] = {}

    def put(self, array: Any) -> Any:
        return self.sp.simulated.simnumpy.asarray(array) if self.sim else array

    def tensor(self, array: Any, requires_grad: bool = False) -> Any:
        if not self.sim:
            return self.sp.Tensor(np.array(array), requires_grad=requires_grad)
        t = self.sp.Tensor._from_array(self.put(np.array(array)))
        t.requires_grad = requires_grad
        return t

    def __enter__(self) -> _Place:
        if self.sim:
            simulated = self.sp.simulated
            simnumpy, SimArray = simulated.simnumpy, simulated.SimArray

            def array_module(array: Any) -> Any:
                return simnumpy if isinstance(array, SimArray) else np

            def on(xp: Any, index: Any) -> Any:
                if isinstance(index, tuple):
                    return tuple(on(xp, i) for i in index)
                return xp.asarray(index) if isinstance(index, (np.ndarray, list)) else index

            def scatter_add(target: Any, index: Any, values: Any) -> None:
                xp = array_module(target)
                if xp is np:
                    np.add.at(target, index, values)
                    return
                values = values if isinstance(values, (SimArray, int, float)) else on(xp, values)
                simnumpy.add.at(target, on(xp, index), values)

            def device_of(array: Any) -> Any:
                sim = isinstance(array, SimArray)
                return self.sp.device("sim", 0) if sim else self.sp.device("cpu")

            ours = {"array_module": array_module, "scatter_add": scatter_add}
            ours["device_of"] = device_of
            for name, value in ours.items():
                self.saved[name] = getattr(self.sp, name)
                setattr(self.sp, name, value)
        return self

    def __exit__(self, *exc: Any) -> None:
        for name, value in self.saved.items():
            setattr(self.sp, name, value)

    def copies(self) -> Any:
        return self.sp.simulated.counting()


def _kind(t: Any) -> str:
    data = getattr(t, "data", None)
    return "numpy" if isinstance(data, np.ndarray) else type(data).__name__


def _grads(sp, place: _Place, out: Any, leaves: list, g: Any, w: Any, second: bool) -> dict:
    """∂⟨out, g⟩/∂leaves; with ``second``, ∂⟨those, w⟩/∂g too."""
    upstream = place.tensor(np.array(g, dtype=out.data.dtype), requires_grad=second)
    seen: dict[str, Any] = {}
    with place.copies() as copies:
        result = attempt(lambda: sp.autograd.grad(out, leaves, upstream, create_graph=second))
    if result["error"]:
        return {"backward_error": _error(result)}
    grads = result["value"]
    seen["backward_copies"] = [copies.to_device, copies.to_host]
    seen["grads"] = [array(x, keep=True) for x in grads]
    seen["grad_kinds"] = [_kind(x) for x in grads]
    seen["grad_dtypes"] = [str(x.dtype) if x is not None else None for x in grads]
    if not second:
        return seen

    def second_order() -> Any:
        total = None
        for x, weights in zip(grads, w):
            term = (x * place.tensor(np.array(weights, dtype=out.data.dtype))).sum()
            total = term if total is None else total + term
        (gg,) = sp.autograd.grad(total, [upstream])
        return gg

    result = attempt(second_order)
    if result["error"]:
        seen["second_error"] = _error(result)
    else:
        seen["grad_grad"] = array(result["value"], keep=True)
    return seen


def _forward(place: _Place, run: Any) -> tuple[Any, dict]:
    """``run()``, the op's forward: its output and what the program saw (an error as data
    on sim, where NumPy's functions refuse the device's arrays)."""
    with place.copies() as copies:
        if not place.sim:  # on the host, an error goes on up: the report shows its line
            out = run()
        else:
            result = attempt(run)
            if result["error"]:
                return None, {"forward_error": _error(result)}
            out = result["value"]
    seen = {"out": array(out, keep=True), "dtype": str(out.dtype), "out_kind": _kind(out)}
    seen["forward_copies"] = [copies.to_device, copies.to_host]
    return out, seen


def gather(
    sp,
    x: Any,
    dim: int,
    index: Any,
    g: Any,
    w: Any = None,
    dtype: str = "float64",
    device: str = "cpu",
) -> dict:
    """``sp.gather(x, dim, index)``, its gradient for upstream ``g`` and, given ``w``, the
    gradient's gradient; on ``device`` ("cpu", or "sim")."""
    with _Place(sp, device) as place:
        a = place.tensor(np.array(x, dtype=dtype), requires_grad=True)
        i = place.tensor(np.array(index, dtype=np.int64))
        out, seen = _forward(place, lambda: sp.gather(a, dim, i))
        if out is not None:
            seen.update(_grads(sp, place, out, [a], g, None if w is None else [w], w is not None))
        return seen


def cat(
    sp,
    xs: list,
    dim: int,
    g: Any,
    w: Any = None,
    dtype: str = "float64",
    stack: bool = False,
    device: str = "cpu",
) -> dict:
    """``sp.cat(xs, dim)`` (``sp.stack`` with ``stack``), the gradient of each input for
    upstream ``g`` and, given ``w`` (one array per input), the gradient's gradient; on
    ``device`` ("cpu", or "sim")."""
    with _Place(sp, device) as place:
        leaves = [place.tensor(np.array(x, dtype=dtype), requires_grad=True) for x in xs]
        out, seen = _forward(place, lambda: (sp.stack if stack else sp.cat)(leaves, dim))
        if out is not None:
            seen.update(_grads(sp, place, out, leaves, g, w, w is not None))
        return seen

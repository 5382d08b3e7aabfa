"""The version counter: how backward notices that something it saved was changed in place.

A tensor's ``_version`` starts at 0, and every in-place operation through a Tensor adds one
(``x.add_(1)``, ``x += 1``, ``x[0] = 5``, an optimizer's step on a parameter). Views share
one counter with the tensor they view (a reshape, a transpose, basic indexing, ``detach()``:
the same memory), so changing either moves both. A write through ``x.data`` (the array) is
not counted: it is the way around autograd, as in PyTorch.

``forward`` often keeps an input, or its own output, for ``backward`` (``Exp`` keeps
``exp(x)``, ``MatMul`` keeps each operand the other one's gradient needs). If that tensor is
changed in place before ``backward`` runs, ``backward`` would compute with the new values
and return a wrong gradient without a word. So ``Function.apply`` notes, for each thing
``forward`` kept that is an input, an input's array, or the output's array, that tensor's
counter and its value then (``watch``); ``Node.backward`` compares them first (``check``)
and raises PyTorch's error when one has moved::

    y = x.exp()            # Exp keeps y's array for its backward
    y.add_(1)              # y._version: 0 → 1
    y.sum().backward()     # RuntimeError: one of the variables needed for gradient ...

Given code, the same in every tree: chapter 4 teaches it (§ "In place").
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np


class VersionCounter:
    """``value``: how many in-place changes; ``views``: the live tensors that view this
    memory (weak references by ``id``, made by the first view; a view leaves when it dies)."""

    __slots__ = ("value", "views")

    def __init__(self) -> None:
        self.value = 0
        self.views: dict[int, weakref.ref] | None = None


def counter(tensor: Any) -> VersionCounter:
    """The tensor's counter (made on first use)."""
    found = tensor._version_counter
    if found is None:
        found = tensor._version_counter = VersionCounter()
    return found


def bump(tensor: Any) -> None:
    """One more in-place change of ``tensor`` (and of every view that shares its memory)."""
    counter(tensor).value += 1


def share(view: Any, base: Any) -> None:
    """``view`` shows ``base``'s memory: one counter for both."""
    found = counter(base)
    if found.views is None:
        found.views = {}
    views, key = found.views, id(view)  # (not a WeakSet: it compares tensors with ==)
    views[key] = weakref.ref(view, lambda _: views.pop(key, None))
    view._version_counter = found


def has_views(tensor: Any) -> bool:
    """Whether ``tensor`` is a view, or a view of its memory is alive."""
    found = tensor._version_counter
    return found is not None and bool(found.views)


def memory_owner(array: Any) -> Any:
    """The array that owns ``array``'s memory: its ``.base`` for a NumPy or CuPy view, else
    itself (the simulated device's array keeps a NumPy array inside, ``_a``)."""
    if type(array) is not np.ndarray:
        array = getattr(array, "_a", array)
    base = getattr(array, "base", None)
    return array if base is None else base


def writeable(array: Any) -> bool:
    """Whether ``array`` may be written (NumPy's broadcast views may not; CuPy's flags do
    not say, and its arrays may all be written)."""
    flags = getattr(getattr(array, "_a", array), "flags", None)
    return bool(getattr(flags, "writeable", True))


def view_of(result: Any, inputs: tuple) -> Any:
    """The input whose memory the array ``result`` shows (a view, or the array itself), or
    None. Only the owners are compared: a fresh result owns its memory and matches none."""
    base = result.base if type(result) is np.ndarray else memory_owner(result)
    if base is None or base is result:
        for x in inputs:
            if x.data is result:
                return x
        return None
    for x in inputs:
        if memory_owner(x.data) is base:
            return x
    return None


def watch(ctx: Any, inputs: tuple, out: Any, function: type) -> None:
    """Note, on ``ctx``, each input or output that ``forward`` kept (in ``saved_tensors`` or
    as an attribute of ``ctx``, or an item of a tuple or list attribute; the Tensor or its
    array), with its counter's value now."""
    kept = list(ctx.saved_tensors)
    for name, k in ctx.__dict__.items():
        if name not in _CONTEXT:
            kept.extend(k) if type(k) in (tuple, list) else kept.append(k)
    watched = []
    for k in kept:
        if k is None or type(k) in _SETTINGS:
            continue
        for x in inputs:
            if k is x or k is x.data:
                found = counter(x)
                watched.append((found, found.value, x.dtype, x.shape, x.grad_fn))
                break
        else:
            if k is out.data:
                found = counter(out)  # (a view's output shares its input's counter)
                watched.append((found, found.value, out.dtype, out.shape, function))
    if watched:
        ctx._watched = watched


_CONTEXT = frozenset(["needs_input_grad", "saved_tensors"])  # not what forward kept
_SETTINGS = frozenset([bool, int, float, str])  # an axis, a flag: not tensors


def forget(out: Any, tensor: Any) -> None:
    """Stop watching ``tensor`` for the node that made ``out``: given code calls this where
    a forward kept ``tensor`` for a gradient nobody needs (PyTorch would not have kept it)."""
    ctx = out.grad_fn.ctx if out.grad_fn is not None else None
    if ctx is not None and getattr(ctx, "_watched", None):
        mine = counter(tensor)
        ctx._watched = [w for w in ctx._watched if w[0] is not mine]


def check(ctx: Any) -> None:
    """Raise PyTorch's error if a tensor ``ctx`` watches was changed in place since."""
    for found, version, dtype, shape, maker in getattr(ctx, "_watched", ()):
        if found.value != version:
            made = ""
            if maker is not None:
                name = maker.name() if hasattr(maker, "name") else f"{maker.__name__}Backward"
                made = f", which is output 0 of {name},"
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by "
                f"an inplace operation: [{dtype} {list(shape)}]{made} is at version "
                f"{found.value}; expected version {version} instead. Hint: the tensor was "
                "changed in place (x += …, x.add_(…), x[i] = …, an optimizer's step) after "
                "the operation that saved it; change a copy (x = x + …), or run backward "
                "first."
            )

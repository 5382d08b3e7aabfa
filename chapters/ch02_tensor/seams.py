"""Seams: where chapter 2 hands over to a later chapter.

Some behaviour of a ``Tensor`` is built later in the course. Chapter 2 owns the door (given
code with a safe default) and opens it by a lazy relative import only when it is used:

| seam (here)                                          | built in                          |
|------------------------------------------------------|-----------------------------------|
| ``reduce_to_shape``: a gradient back to its input's  | ch03 ``unbroadcast``              |
| shape (as is when the shapes are equal)              |                                   |
| ``Tensor.broadcast_to`` / ``expand`` / ``sum_to_size`` | ch03 Functions                  |
| ``Tensor.backward()``, ``autograd.grad``             | ch04 engine                       |
| (``retain_grad()`` sets ``retains_grad``)             | (the ch04 engine honours it)     |
| grad mode read by ``Function.apply`` (on by default) | ch04 ``no_grad`` & co. toggle it  |
| ``.device``, ``.to()``, ``.cpu()``, ``.cuda()``,     | ch07 device registry              |
| ``device=`` on factories ("cpu" works now)           |                                   |
| ``array_module`` / ``scatter_add`` for non-NumPy data | ch07 backends                    |

Until a later chapter is done its stub answers, and its ``NotImplementedError`` names the
task and the notebook section; while a chapter is not in the tree at all, the error below
says which chapter brings the feature.
"""

from __future__ import annotations

import importlib
from typing import Any


def later(chapter: int, package: str, name: str, feature: Any) -> Any:
    """``name`` from the later chapter ``package`` of this same tree (imported only now).
    ``feature`` names what needs it, for the error: a string, or a function that makes one
    (when making it costs, and the seam is on a hot path)."""
    root = __package__.rpartition(".")[0]  # "chapters" (or whatever the tree is called)
    try:
        module = importlib.import_module(f"{root}.{package}")
    except ModuleNotFoundError as error:
        if error.name not in (f"{root}.{package}", root):
            raise
        feature = feature() if callable(feature) else feature
        raise NotImplementedError(
            f"{feature} is built in chapter {chapter} ({package}), which is not in this "
            "course tree yet"
        ) from None
    return getattr(module, name)


def reduce_to_shape(grad: Any, shape: tuple[int, ...], what: str = "backward") -> Any:
    """``grad`` summed down to ``shape``: the gradient of an input that was broadcast.

    Equal shapes need nothing (chapter 2's operands always have them); anything else is
    chapter 3's ``unbroadcast`` (task 3.1), the one place where broadcasting is undone.
    ``what`` names the gradient in the error when chapter 3 is not in the tree.
    """
    if tuple(grad.shape) == tuple(shape):
        return grad

    def feature() -> str:  # made only for the error: each backward with a broadcast calls this
        return (
            f"{what}: reducing a gradient of shape {tuple(grad.shape)} to its input's shape "
            f"{tuple(shape)} (unbroadcast)"
        )

    unbroadcast = later(3, "ch03_broadcast", "unbroadcast", feature)
    return unbroadcast(grad, shape)

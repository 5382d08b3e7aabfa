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
| ``x[index] = value`` (``Tensor.__setitem__``)         | ch07 ``setitem``                 |

The methods among them are rows of ``Tensor``'s class body, ``name = Later(chapter, package,
"(parameters)")`` (``Later``, below): ``x.min(0)`` calls chapter 7's ``min(x, 0)``. Chapter 7's
everyday operations (``min``, ``clamp``, ``gather``, ``softmax``, …) arrive the same way.

Until a later chapter is done its stub answers, and its ``NotImplementedError`` names the
task and the notebook section; while a chapter is not in the tree at all, the error below
says which chapter brings the feature.
"""

from __future__ import annotations

import ast
import importlib
import inspect
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


class Later:
    """A method of ``Tensor`` that a later chapter builds: a row of the class body,
    ``name = Later(chapter, package, "(parameters)", doc)``.

    ``x.name(...)`` calls the function ``name`` of that chapter's package (imported only
    then, through ``later``) with the arguments in the order ``parameters`` lists them, the
    tensor where ``self`` stands (first, unless the row says otherwise:
    ``"(condition, self, other)"``) and the defaults filled in; keyword-only parameters go
    by keyword, and a ``*shape`` arrives as one tuple (``f(2, 3)`` and ``f((2, 3))`` alike,
    as everywhere on ``Tensor``); a ``dim`` or ``keepdim`` parameter may also be passed as
    ``axis=`` or ``keepdims=``, as in PyTorch's native functions (``shapes.numpy_names``;
    ``numpy_names=False`` for one PyTorch writes in Python, such as ``split``, which does
    not take them). ``help(Tensor.name)`` shows the method with ``self`` first.
    An alias (``clip = clamp``) is the same method.
    """

    def __init__(
        self, chapter: int, package: str, parameters: str, doc: str = "", numpy_names: bool = True
    ) -> None:
        self.chapter, self.package, self.doc = chapter, package, doc
        self.numpy_names = numpy_names
        self.order = _parameters(parameters)  # as the later function takes them
        self.function: Any = None

    def __set_name__(self, owner: type, name: str) -> None:
        if self.function is None:  # an alias keeps the first name
            self.function = self._method(owner, name)

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        return self.function.__get__(obj, owner)

    def _method(self, owner: type, name: str) -> Any:
        """The method as a function of its own, written once from the row (as dataclasses
        write ``__init__``): Python binds the arguments, so a wrong call is Python's own
        TypeError and a call costs what a hand-written forward costs."""
        signature = inspect.Signature(sorted(self.order, key=lambda p: p.name != "self"))
        feature = f"{owner.__name__}.{name}"
        call = ", ".join(_argument(p) for p in self.order)
        source = (
            f"def {name}{signature}:\n"
            f"    return _later({self.chapter}, {self.package!r}, {name!r}, {feature!r})({call})\n"
        )
        namespace = {"_later": later, "_shape": _shape}
        exec(compile(source, f"<Tensor.{name}: {self.package}>", "exec"), namespace)
        method = namespace[name]
        method.__qualname__ = f"{owner.__qualname__}.{name}"
        method.__module__, method.__doc__ = owner.__module__, self.doc or None
        if self.numpy_names and any(p.name in ("dim", "keepdim") for p in self.order):
            from .shapes import numpy_names  # imported here: shapes imports this module

            method = numpy_names(method)  # axis= and keepdims= too, as in PyTorch
        return method


def _argument(p: inspect.Parameter) -> str:
    """How the written method hands parameter ``p`` on to the later function."""
    if p.kind is p.VAR_POSITIONAL:
        return f"_shape({p.name})"
    if p.kind is p.KEYWORD_ONLY:
        return f"{p.name}={p.name}"
    return p.name


def _shape(sizes: tuple) -> tuple:
    """``*shape`` as one tuple: ``f(2, 3)`` and ``f((2, 3))`` alike, as everywhere on Tensor."""
    return tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes


def _parameters(text: str) -> list[inspect.Parameter]:
    """``"(self, dim=None, *, correction=None)"`` as ``inspect.Parameter`` records."""
    args = ast.parse(f"def f{text}: pass").body[0].args  # type: ignore[attr-defined]
    P = inspect.Parameter
    plain = [(a, P.POSITIONAL_OR_KEYWORD) for a in args.args]
    defaults = [P.empty] * (len(plain) - len(args.defaults)) + list(args.defaults)
    out = [P(a.arg, kind, default=_value(d)) for (a, kind), d in zip(plain, defaults)]
    if args.vararg:
        out.append(P(args.vararg.arg, P.VAR_POSITIONAL))
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        out.append(P(a.arg, P.KEYWORD_ONLY, default=P.empty if d is None else _value(d)))
    return out


def _value(node: Any) -> Any:
    return inspect.Parameter.empty if node is inspect.Parameter.empty else ast.literal_eval(node)

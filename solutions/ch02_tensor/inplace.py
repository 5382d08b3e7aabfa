"""In-place operations: ``x += y``, ``x.add_(y)``, ``x.zero_()``, … with PyTorch's rules.

Every in-place method is its out-of-place twin written back into the tensor: ``x.add_(y)``
computes ``x.add(y)`` and then makes ``x`` hold the result. ``in_place`` does the writing,
by three rules (PyTorch's):

1. Nothing to record (grad mode off, or neither ``x`` nor the result requires grad): the
   result's values are written into ``x``'s own array, so every view of ``x`` sees them,
   and ``x``'s version counter moves (``version.py``). The usual case: an update under
   ``no_grad()``, an initialisation, a buffer, a gradient.
2. ``x`` is a leaf that requires grad, and grad mode is on: refused, with PyTorch's error.
   A leaf is where a gradient ends; an update of it inside the graph would make ``x`` the
   output of an operation on itself. Update parameters under ``no_grad()``.
3. Otherwise (``x`` is in a recorded graph, or the result is): the operation is recorded,
   and ``x`` becomes its output: ``x`` takes the result's array and ``grad_fn``. The node
   remembers ``x`` as it was (a stand-in Tensor over the old array, with the old
   ``grad_fn``), so the graph has no loop and backward sees the old values; the nodes
   recorded before that still hold ``x`` are handed the same stand-in (``x._holders``,
   ``function.py``), so their edges stay where they were. A result that does not depend on
   ``x`` (``zero_``, ``fill_``, ``normal_``) is recorded as ``Overwrite``: the old ``x``
   gets a gradient of zeros.
   Refused, with a message naming the out-of-place form, on a tensor that is a view or has
   a live view (they would not see its new array; PyTorch rewrites the views' graphs) and
   on a leaf that a node recorded before holds as itself (its edge there would move too).

The result must have ``x``'s shape (no broadcasting of ``x`` itself), and a dtype that can
be cast to ``x``'s by PyTorch's rule (no float into an integer tensor, nothing but bool into
a bool tensor). Given code, the same in every tree; chapter 4 teaches it (§ "In place").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .backend import array_module
from .dtypes import is_floating
from .function import Context, Function
from .grad_mode import is_grad_enabled
from .seams import later
from .version import bump, has_views


def in_place(tensor: Any, compute: Callable[[Any], Any], name: str) -> Any:
    """Make ``tensor`` hold ``compute(tensor)`` (its out-of-place result), by the rules
    above; return ``tensor``. ``name`` is what the user wrote (``"add_"``, ``"+="``)."""
    recording = is_grad_enabled()
    if recording and tensor.requires_grad and tensor.grad_fn is None:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation "
            f"({name}): change it under no_grad() (with sp.no_grad(): ...), or write the "
            "out-of-place form"
        )
    before = _as_it_was(tensor)
    result = compute(before)
    _check_fits(tensor, result, name)
    if not (recording and (tensor.requires_grad or result.requires_grad)):
        data = result.data
        if data.dtype != tensor.data.dtype:
            data = data.astype(tensor.data.dtype)
        try:
            tensor.data[...] = data  # rule 1: the same memory, changed
        except ValueError:  # NumPy's "assignment destination is read-only": an expand
            raise RuntimeError(
                f"{name}: more than one element of the written-to tensor refers to a single "
                "memory location (it is an expand or a broadcast view). Please clone() the "
                "tensor before performing the operation."
            ) from None
        bump(tensor)
        return tensor
    if has_views(tensor):
        raise RuntimeError(
            f"{name} on a tensor in a recorded graph that shares its memory with a view "
            "(a reshape, a transpose, an index, a detach): the course records in-place "
            "operations only on tensors without views. Write the out-of-place form "
            f"({_out_of_place(name)}), or run it under no_grad()"
        )
    if tensor._held:  # a leaf a node holds as itself: its edge there would move too
        raise RuntimeError(
            f"{name} would move a leaf into the graph (an operand requires grad): an "
            "operation recorded before holds it, and its gradient would then flow into the "
            f"new node. Write the out-of-place form ({_out_of_place(name)})"
        )
    if not result.requires_grad:  # zero_(), fill_(v), normal_() on a non-leaf: new values
        result = Overwrite.apply(before, result.data)  # that pass it no gradient, recorded
    if result.dtype != tensor.dtype:
        result = result.to(tensor.dtype)
    if result.grad_fn is None or has_views(result):
        result = result.clone()  # an input itself (copy_(src)) or a view: its own memory
    for holder in tensor._holders or ():  # the nodes recorded before keep their edge: they
        held = holder()  # now hold the tensor as it was
        if held is not None:
            held.inputs = tuple([before if x is tensor else x for x in held.inputs])
    tensor._holders = None
    node, old = result.grad_fn, tensor.grad_fn
    if old is not None and old.retained is not None:  # retain_grad() follows the tensor
        node.retained, old.retained = old.retained, None
    tensor.data, tensor.grad_fn, tensor.requires_grad = result.data, node, True  # rule 3
    bump(tensor)
    return tensor


class Overwrite(Function):
    """out = values (an array of ``x``'s shape and dtype)      ∂out/∂x = 0

    What ``zero_``, ``fill_``, ``normal_`` (a result that does not depend on ``x``) record
    on a tensor in a graph: ``x`` gets a node, and the old ``x`` a gradient of zeros."""

    @staticmethod
    def forward(ctx: Context, x: Any, values: Any) -> Any:
        return values

    @staticmethod
    def backward(ctx: Context, grad_output: Any) -> Any:
        xp = array_module(grad_output.data)
        return _tensor.Tensor._from_array(xp.zeros_like(grad_output.data))


def _as_it_was(tensor: Any) -> Any:
    """A stand-in for ``tensor`` as it is now: its array and ``grad_fn``, a counter of its
    own. The operation is computed on it, so a recorded node points at the old tensor."""
    old = _tensor.Tensor._from_array(tensor.data)
    old.requires_grad, old.grad_fn = tensor.requires_grad, tensor.grad_fn
    return old


def _check_fits(tensor: Any, result: Any, name: str) -> None:
    """The result has the tensor's shape and a dtype that casts to it (PyTorch's rules)."""
    if result.shape != tensor.shape:
        raise RuntimeError(
            f"output with shape {list(tensor.shape)} doesn't match the broadcast shape "
            f"{list(result.shape)} ({name} writes into the tensor itself, which cannot grow)"
        )
    have, want = result.dtype, tensor.dtype
    refused = (is_floating(have) and not is_floating(want)) or (
        want.kind == "b" and have.kind != "b"
    )
    if refused:
        raise RuntimeError(
            f"result type {have} can't be cast to the desired output type {want} ({name} "
            "writes into the tensor itself)"
        )


def _out_of_place(name: str) -> str:
    """The out-of-place form of what the user wrote, for a message."""
    if name.endswith("="):
        return f"x = x {name[:-1]} …"
    if name.endswith("_"):
        return f"x = x.{name[:-1]}(…)"
    return f"x = x.clone(); {name}"  # an assignment: into a copy of its own


class InPlace:
    """A row of the Tensor class: ``add_ = InPlace("add")`` makes ``x.add_(*args)`` the
    in-place form of ``x.add(*args)``; ``InPlace(function)`` takes ``function(x, *args)``
    as the out-of-place result instead."""

    def __init__(self, out_of_place: str | Callable, name: str | None = None) -> None:
        self.out_of_place = out_of_place
        self.name = name

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = self.name or name

    def __get__(self, tensor: Any, owner: type | None = None) -> Any:
        if tensor is None:
            return self
        compute, name = self.out_of_place, self.name

        def method(*args: Any, **kwargs: Any) -> Any:
            if isinstance(compute, str):
                return in_place(tensor, lambda t: getattr(t, compute)(*args, **kwargs), name)
            return in_place(tensor, lambda t: compute(t, *args, **kwargs), name)

        method.__name__ = name
        method.__doc__ = f"In place: ``x.{name}(…)`` makes ``x`` hold ``{_form(compute)}``."
        return method


def _form(compute: str | Callable) -> str:
    return f"x.{compute}(…)" if isinstance(compute, str) else f"{compute.__name__}(x, …)"


# -- the out-of-place results of the methods that have no out-of-place twin ---------------


def filled(tensor: Any, value: Any) -> Any:
    """``tensor``'s shape, dtype and device, every element ``value`` (a number or a 0-d
    tensor; recorded when the tensor requires grad)."""
    if isinstance(value, _tensor.Tensor):
        if value.ndim != 0:
            raise RuntimeError(
                f"fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value.ndim} dimensions"
            )
        if value.requires_grad:
            return copied(tensor, value)
        value = value.item()
    xp = array_module(tensor.data)
    return _tensor.Tensor._from_array(xp.full(tensor.shape, value, dtype=tensor.dtype))


def zeros(tensor: Any) -> Any:
    """A constant of zeros of ``tensor``'s shape, dtype and device."""
    return filled(tensor, 0)


def copied(tensor: Any, src: Any) -> Any:
    """``src`` as ``tensor`` would hold it: broadcast to its shape, in its dtype (any cast,
    as PyTorch's ``copy_``), on its device; recorded when ``src`` requires grad."""
    if not isinstance(src, _tensor.Tensor):
        src = _tensor.Tensor(src)
    src = src.to(tensor.device, tensor.dtype)
    return src if src.shape == tensor.shape else src.expand(*tensor.shape)


def normal(tensor: Any, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Any:
    """Draws of N(mean, std²) of ``tensor``'s shape, dtype and device (chapter 5's
    generator)."""
    draw = later(5, "ch05_nn", "normal", "random numbers (Tensor.normal_)")
    return draw(mean, std, tensor.shape, generator=generator, dtype=tensor.dtype).to(tensor.device)


def uniform(tensor: Any, a: float = 0.0, b: float = 1.0, *, generator: Any = None) -> Any:
    """Draws of U(a, b) of ``tensor``'s shape, dtype and device (chapter 5's generator)."""
    draw = later(5, "ch05_nn", "rand", "random numbers (Tensor.uniform_)")
    unit = draw(*tensor.shape, generator=generator, dtype=tensor.dtype).to(tensor.device)
    return unit * (b - a) + a


from . import tensor as _tensor  # noqa: E402  (last: tensor.py imports this module)

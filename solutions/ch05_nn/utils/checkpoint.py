"""Activation checkpointing: trade time for memory. Task 5.12.

A plain forward pass keeps, for backward, what every operation saved: the activations of
all the layers at once, which is what fills memory in a deep model. ``checkpoint(fn, *args)``
keeps only ``fn``'s inputs:

    forward:   out = fn(*args) under no_grad      (nothing inside fn is recorded or kept)
    backward:  run fn again on detached copies of args, under enable_grad, and backward
               through that fresh graph (a backward inside the backward: chapter 4's engine
               is re-entrant), returning the copies' gradients as args' gradients

so the memory of ``fn``'s activations is needed only while its own backward runs, at the
price of a second forward. Parameters used inside ``fn`` get their ``.grad`` from the inner
backward. Random numbers drawn inside ``fn`` (Dropout) are drawn again from the same state,
so the recomputation sees the same masks.

Course limits, as PyTorch's re-entrant checkpoint: one Tensor output; the inner backward
fills ``.grad``, so ``autograd.grad`` through a checkpoint is refused, and so is a double
backward (``create_graph=True``), each with an error (``_plain_backward_only``). Only the
global generator is replayed: numbers drawn from a ``Generator`` of one's own inside ``fn``
differ on the second run.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from ...ch02_tensor import factories
from ...ch02_tensor.function import Context, Function
from ...ch02_tensor.tensor import Tensor
from ...ch04_backward import api
from ...ch04_backward.grad_mode import enable_grad, is_grad_enabled, no_grad


def _plain_backward_only(backward: Callable) -> Callable:
    """Refuse what a re-entrant checkpoint cannot do, before ``backward`` runs: a pass with
    ``create_graph=True`` (grad mode is on during it) or one through ``autograd.grad``."""

    def checked(ctx: Context, grad_output: Tensor) -> tuple:
        door = getattr(api, "running_door", lambda: None)()  # (an older chapter 4: no door)
        if door == "grad":
            raise RuntimeError(
                "checkpoint is incompatible with autograd.grad(): its backward fills .grad "
                "(use loss.backward())"
            )
        if is_grad_enabled():
            raise RuntimeError("checkpoint has no double backward (create_graph=True)")
        return backward(ctx, grad_output)

    return checked


class Checkpoint(Function):
    """The recorded operation ``out = fn(*args)``, keeping only ``args``."""

    @staticmethod
    def forward(ctx: Context, fn: Callable, rng_state: dict | None, *args: Any) -> Any:
        """Keep ``fn``, ``args`` and ``rng_state`` on ctx (``ctx.fn``, ``ctx.args``,
        ``ctx.rng_state``: backward needs all three), run ``fn(*args)`` under ``no_grad()``
        and return the result's array (``_single_tensor(out).data``)."""
        ### BEGIN SOLUTION 5.12
        ctx.fn, ctx.args, ctx.rng_state = fn, args, rng_state
        with no_grad():
            out = fn(*args)
        return _single_tensor(out).data
        ### END SOLUTION

    @staticmethod
    @_plain_backward_only
    def backward(ctx: Context, grad_output: Tensor) -> tuple:
        """One gradient per Tensor in ``ctx.args``, in order (``fn`` and ``rng_state`` are no
        inputs of the node: chapter 2's ``apply`` records only Tensor arguments), each the
        ``.grad`` of a detached copy after ``fn`` ran again under ``_replaying(ctx.rng_state)``
        and ``enable_grad()`` and ``out.backward(grad_output)`` went through it."""
        ### BEGIN SOLUTION 5.12
        inputs = [
            x.detach().requires_grad_(x.requires_grad) if isinstance(x, Tensor) else x
            for x in ctx.args
        ]
        with _replaying(ctx.rng_state), enable_grad():
            out = _single_tensor(ctx.fn(*inputs))
        if out.requires_grad:
            out.backward(grad_output)
        return tuple(x.grad for x in inputs if isinstance(x, Tensor))
        ### END SOLUTION


def checkpoint(
    function: Callable,
    *args: Any,
    use_reentrant: bool | None = None,
    preserve_rng_state: bool = True,
) -> Tensor:
    """``function(*args)``, recomputed during backward instead of kept."""
    if use_reentrant is False:
        raise NotImplementedError(
            "the course's checkpoint is the re-entrant one (use_reentrant=True)"
        )
    if not callable(function):
        raise TypeError(f"checkpoint's first argument is a function, not {type(function).__name__}")
    if is_grad_enabled() and not any(isinstance(a, Tensor) and a.requires_grad for a in args):
        # PyTorch's warning: the result will not require a gradient, so the parameters
        # used inside function (not inputs of the operation) would silently get none
        warnings.warn(
            "None of the inputs have requires_grad=True. Gradients will be None",
            UserWarning,
            stacklevel=2,
        )
    state = _rng_state() if preserve_rng_state else None
    return Checkpoint.apply(function, state, *args)


def _single_tensor(out: Any) -> Tensor:
    if not isinstance(out, Tensor):
        raise TypeError(
            f"checkpoint: the function must return one Tensor, not {type(out).__name__}"
        )
    return out


def _rng_state() -> dict:
    """Where the global generator (``manual_seed``'s) stands now (a copy)."""
    return dict(factories._random["generator"].bit_generator.state)


@contextlib.contextmanager
def _replaying(state: dict | None) -> Iterator[None]:
    """Draw from the global generator as from ``state``; afterwards, carry on from where it
    stood before (the replay takes nothing from the numbers the rest of the program sees)."""
    if state is None:
        yield
        return
    generator = factories._random["generator"].bit_generator
    now = dict(generator.state)
    generator.state = state
    try:
        yield
    finally:
        generator.state = now

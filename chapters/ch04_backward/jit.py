"""Trace once, run many (task 4.8, §11): ``jit.trace(fn, example_inputs)``, named after
PyTorch's ``torch.jit.trace``.

``trace`` (given) calls ``fn`` once, on the example inputs, and records every operation it
makes: each ``Function.apply`` that is not inside another operation's forward, as an
``Op`` — the Function, its arguments as they were given (Tensors, and anything else: a
dim, a shape, a dtype) and the Tensor it returned. It returns a ``Traced``: calling it
runs ``replay`` (task 4.8), which applies the recorded operations again, in order, to new
inputs of the same shapes, without calling ``fn``. The replayed operations are applied as
any operation is, so the result has a graph and ``backward()`` goes through it.

What the trace did not see, it cannot replay. A Python ``if`` or ``while`` on the data
took one path while tracing, and the tape holds that path only; so does PyTorch's trace
(it warns). A Tensor the tape meets that is neither an input nor an earlier operation's
output is a constant of the trace (a number lifted to a Tensor, a weight that ``fn``
closes over): the replay uses that very Tensor, so a weight that requires grad gets its
gradient from every replay.

The recording wraps ``Function.apply`` at class level for the length of the trace and
puts it back after, even on an error (as ``trace.py`` wraps ``Node.backward``). In-place
operations are not traced faithfully (the tape would hold the changed tensor): trace
functions made of out-of-place operations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ..ch02_tensor.function import Function
from ..ch02_tensor.tensor import Tensor


@dataclass(frozen=True)
class Op:
    """One recorded operation: ``function.apply(*args, **kwargs)`` returned ``output``."""

    function: type  # the Function subclass applied (Mul, Sum, Reshape, …)
    args: tuple  # its arguments as given: Tensors and other values
    kwargs: dict  # its keyword arguments, as given
    output: Tensor  # what it returned while tracing


@dataclass
class Traced:
    """A traced function: ``traced(*inputs)`` replays ``tape`` on ``inputs``."""

    fn: Callable[..., Any]  # the function traced (kept to compare with; never called again)
    inputs: tuple  # the example inputs the trace was recorded on
    tape: list[Op] = field(default_factory=list)  # the operations, in the order they ran
    output: Any = None  # fn's result on the examples: a Tensor, or a tuple of Tensors

    def __call__(self, *inputs: Tensor) -> Any:
        return replay(self, inputs)

    def __repr__(self) -> str:
        name = getattr(self.fn, "__name__", "fn")
        ops = ", ".join(op.function.__name__ for op in self.tape)
        return f"Traced({name}: {len(self.tape)} operations: {ops})"


def trace(fn: Callable[..., Any], example_inputs: Any) -> Traced:
    """Run ``fn(*example_inputs)`` once (one Tensor may be given alone), recording the
    operations it makes; return the ``Traced`` that replays them. fn runs on a fresh tensor
    per position (the example's values, detached: one tensor given twice is two inputs)."""
    given = (example_inputs,) if isinstance(example_inputs, Tensor) else tuple(example_inputs)
    examples = tuple(x.detach().requires_grad_(x.requires_grad) for x in given)
    tape: list[Op] = []
    with _recording(tape):
        output = fn(*examples)
    return Traced(fn, examples, tape, output)


@contextmanager
def _recording(tape: list[Op]) -> Iterator[None]:
    """``Function.apply`` appending each outermost application to ``tape`` while inside."""
    original = vars(Function)["apply"]
    depth = [0]  # applications in progress: only the outermost is the traced function's

    def apply(cls: type, *args: Any, **kwargs: Any) -> Any:
        depth[0] += 1
        try:
            output = original.__func__(cls, *args, **kwargs)
        finally:
            depth[0] -= 1
        if depth[0] == 0:
            tape.append(Op(cls, args, dict(kwargs), output))
        return output

    Function.apply = classmethod(apply)  # type: ignore[method-assign, assignment]
    try:
        yield
    finally:
        Function.apply = original  # type: ignore[method-assign]


def replay(traced: Traced, inputs: tuple) -> Any:
    """The recorded operations of ``traced`` applied again, in order, to ``inputs`` (as
    many Tensors as the trace's examples, of the same shapes): each recorded Tensor argument
    becomes the new input it stood for, or the replayed output of the operation that made
    it, or stays (a constant); every other argument is passed as it was. Returns what
    ``fn`` would have returned, a Tensor or a tuple of Tensors, with its graph. A RuntimeError
    names both lists of shapes when the inputs do not match the examples."""
    raise NotImplementedError(
        "Task 4.8: jit.trace: replay the recorded operations — see §11 of the notebook"
    )

"""A module's backward hooks, PyTorch's ``register_full_backward_hook`` and
``register_full_backward_pre_hook`` (given code, used by ``Module.__call__``).

PyTorch wraps a module's tensor inputs, and then its tensor outputs, in an identity Function
whose backward sees the gradients of all of them at once: the outputs' identity runs the
pre-hooks ``hook(module, grad_output)``, the inputs' identity runs the hooks ``hook(module,
grad_input, grad_output)``; either may return new gradients. A Sparrow Function has one
output, so one identity cannot pass several tensors on. The same effect, with no change to
the engine, is a *join* and one *pick* per tensor::

    x1 ─┐                ┌─ Pick ─ x1'   (x1's array, the same values)
        ├─ Join ─ token ─┤
    x2 ─┘                └─ Pick ─ x2'

``Join`` records the tensors that require a gradient as its inputs and returns a 0-d token;
each ``Pick`` returns one tensor's array again, recorded on the token only. In backward each
Pick puts its gradient aside (in the join's ``state``) and sends the token a zero; the
engine runs ``Join`` once every Pick has run (its token's gradient is then complete), so
Join's backward finds all the gradients together, calls the hooks, and returns them (or what
a hook returned instead) to the tensors. A tensor no Pick's gradient reached gets ``None``,
as in PyTorch.

As in PyTorch, ``grad_input`` holds one entry per positional argument (None for a
non-tensor; zeros for a tensor no gradient reached, even one that requires none), unless no
input requires a gradient (then all None, and the hooks run when the outputs' gradients are
known); ``grad_output`` holds one per output (None where none arrived); keyword arguments
are not wrapped. A second backward through a graph made with ``create_graph=True`` passes
the picks and the join again, so the hooks run again, as PyTorch's do. What differs: a
hook's returned gradients are checked only as the engine checks any gradient.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...ch02_tensor.backend import array_module
from ...ch02_tensor.function import Context, Function
from ...ch02_tensor.grad_mode import is_grad_enabled
from ...ch02_tensor.tensor import Tensor


class _Join(Function):
    """token = 0 (a 0-d tensor recorded on ``tensors``). Backward: the gradients its Picks
    put aside, given to ``state.on_backward`` (which may replace them), one per tensor."""

    @staticmethod
    def forward(ctx: Context, state: _State, *tensors: Tensor) -> Any:
        ctx.state = state
        return array_module(tensors[0].data).zeros((), dtype=tensors[0].data.dtype)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple:
        state = ctx.state
        grads, state.grads = state.grads, {}
        return tuple(state.on_backward([grads.get(i) for i in range(state.count)]))


class _Pick(Function):
    """out = x's array, recorded on the join's token only. Backward: ∂L/∂out put aside in
    ``state``; the token gets 0 (the gradient really reaches x through the join)."""

    @staticmethod
    def forward(ctx: Context, token: Tensor, array: Any, state: _State, i: int) -> Any:
        ctx.state, ctx.i = state, i
        return array

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple:
        ctx.state.grads[ctx.i] = grad_output
        return Tensor._from_array(array_module(grad_output.data).zeros(()))


class _State:
    """What one join's Picks share with it: the gradients put aside, by position."""

    def __init__(self, count: int, on_backward: Callable[[list], list]) -> None:
        self.count, self.on_backward = count, on_backward
        self.grads: dict[int, Tensor] = {}


def _wrap(values: tuple, on_backward: Callable[[tuple], tuple | None]) -> tuple | None:
    """``values`` with each tensor that requires a gradient replaced by its Pick, or None
    when none does (or grad mode is off). ``on_backward(grads)`` gets one gradient per
    position of ``values`` (None where none arrived) and returns them, or new ones."""
    if not is_grad_enabled():
        return None
    where = [i for i, v in enumerate(values) if isinstance(v, Tensor) and v.requires_grad]
    if not where:
        return None

    def run(grads: list) -> list:
        full = [None] * len(values)
        for i, g in zip(where, grads):
            full[i] = g
        result = on_backward(tuple(full))
        return [result[i] for i in where]

    state = _State(len(where), run)
    token = _Join.apply(state, *[values[i] for i in where])
    out = list(values)
    for position, i in enumerate(where):
        out[i] = _Pick.apply(token, values[i].data, state, position)
    return tuple(out)


class BackwardHook:
    """One call's backward hooks: ``setup_input(args)`` before ``forward``,
    ``setup_output(result)`` after it (PyTorch's ``BackwardHook``)."""

    def __init__(self, module: Any, hooks: list, pre_hooks: list) -> None:
        self.module, self.hooks, self.pre_hooks = module, tuple(hooks), tuple(pre_hooks)
        self.n_inputs = 0
        self.inputs_wrapped = False
        self.grad_output: tuple | None = None

    def setup_input(self, args: tuple) -> tuple:
        self.n_inputs = len(args)
        self.zeros = {
            i: (array_module(a.data), a.data.shape, a.data.dtype)
            for i, a in enumerate(args)
            if isinstance(a, Tensor)
        }
        if not self.hooks:
            return args
        wrapped = _wrap(args, self._on_input_grads)
        self.inputs_wrapped = wrapped is not None
        return args if wrapped is None else wrapped

    def setup_output(self, result: Any) -> Any:
        single = not isinstance(result, tuple)
        outputs = (result,) if single else result
        wrapped = _wrap(outputs, self._on_output_grads)
        if wrapped is None:
            return result
        return wrapped[0] if single else wrapped

    def _on_output_grads(self, grads: tuple) -> tuple:
        for hook in self.pre_hooks:
            result = hook(self.module, grads)
            if result is not None:
                grads = _checked(result, len(grads), "Backward pre hook", "grad_output")
        self.grad_output = grads
        if self.hooks and not self.inputs_wrapped:  # no input requires a gradient
            for hook in self.hooks:
                result = hook(self.module, (None,) * self.n_inputs, grads)
                if result is not None and not (
                    isinstance(result, tuple) and all(g is None for g in result)
                ):
                    raise RuntimeError(
                        "Backward hook for Modules where no input requires gradient should "
                        "always return None or None for all gradients."
                    )
            self.grad_output = None
        return grads

    def _on_input_grads(self, grads: tuple) -> tuple:
        grad_output = self.grad_output
        if grad_output is None:  # the gradient did not come through the outputs
            return grads
        grads = list(grads)
        for i, (xp, shape, dtype) in self.zeros.items():  # a tensor input's: never None
            if grads[i] is None:
                grads[i] = Tensor._from_array(xp.zeros(shape, dtype=dtype))
        grads = tuple(grads)
        for hook in self.hooks:
            result = hook(self.module, grads, grad_output)
            if result is not None:
                grads = _checked(result, len(grads), "Backward hook", "grad_input")
        self.grad_output = None
        return grads


def _as_tuple(value: Any) -> tuple:
    return value if isinstance(value, tuple) else (value,)


def _checked(result: Any, n: int, what: str, name: str) -> tuple:
    """A hook's replacement gradients: one per position, PyTorch's message otherwise."""
    result = _as_tuple(result)
    if len(result) != n:
        raise RuntimeError(
            f"{what} returned an invalid number of {name}, got {len(result)}, but expected {n}"
        )
    return result

"""``Function`` and the graph format: how a tensor remembers where it came from.

An operation is a subclass of ``Function`` with two static methods side by side:

    forward(ctx, *inputs, ...)   -> array     the value, on raw arrays (``x.data``)
    backward(ctx, grad_output)   -> grads     one local vector-Jacobian product per input

``Function.apply`` runs ``forward`` and, when grad mode is on and some input requires a
gradient, records the graph (given code, the same in every tree, so chapters mix freely):

    out.grad_fn = Node(function, ctx, inputs)

- ``inputs`` are the node's parents: the ``Tensor`` arguments of ``forward``, in order;
- ``ctx`` is the saved context (``ctx.save_for_backward(...)``, ``ctx.needs_input_grad``
  and whatever else ``forward`` stored on it);
- ``node.backward(grad_output)`` calls the local backward and returns one gradient per
  input, each of that input's shape, or ``None`` where the input needs none;
- ``node.hooks`` and ``node.retained`` are its output tensor's ``register_hook`` functions
  and, after ``retain_grad()``, a weak reference to that tensor (chapter 4 uses both).

A leaf (a tensor made by the user) has ``grad_fn = None``. The engine of chapter 4 walks
from ``out.grad_fn`` through ``node.inputs`` to their ``grad_fn``, and so on.

PyTorch's form of a user-defined function (``class F(torch.autograd.Function)``) runs as it
is, given code: ``forward`` may compute with Tensor operations and return a Tensor (the
output is a new tensor over its data, never an input itself, and the graph ``forward`` built
is dropped: only ``F``'s node is recorded, as PyTorch's forward runs without grad);
``ctx.mark_non_differentiable(out)`` and ``ctx.set_materialize_grads`` are there; so is the
newer form with ``forward`` without ctx and a ``setup_context(ctx, inputs, output)``.
Differences, kept on purpose (the course grades them): ``backward`` returns one gradient per
Tensor input, and ``ctx.needs_input_grad`` has one entry per Tensor input (PyTorch's: one
per argument of ``forward``, None/False for the others); ``forward`` returns one output.
"""

from __future__ import annotations

import weakref
from typing import Any

from .grad_mode import _set_grad_enabled, is_grad_enabled
from .seams import later, reduce_to_shape
from .version import check, memory_owner, share, view_of, watch, writeable


class Context:
    """What ``forward`` leaves for ``backward``: ``save_for_backward(*tensors)`` stores
    tensors (read back as ``saved_tensors``); other attributes (a shape, an axis) may be set
    directly. ``needs_input_grad[i]`` says whether input ``i`` requires a gradient."""

    saved_tensors: tuple = ()  # until ``save_for_backward``
    non_differentiable: tuple = ()  # until ``mark_non_differentiable``
    materialize_grads: bool = True

    def __init__(self, needs_input_grad: tuple[bool, ...] = ()) -> None:
        self.needs_input_grad = needs_input_grad

    def save_for_backward(self, *tensors: Any) -> None:
        self.saved_tensors = tensors

    def shape_only(self, x: Any) -> Any:
        """What ``forward`` keeps of an input whose values backward will not read (only its
        shape, or its values for a gradient nobody needs): a Tensor over the same array that
        is not ``x``, so ``version.py`` does not watch it, as PyTorch would not have kept it.
        (``x`` itself when nothing is recorded: then nothing is watched.)"""
        if True not in self.needs_input_grad:
            return x
        return _tensor.Tensor._from_array(x.data)

    def mark_non_differentiable(self, *tensors: Any) -> None:
        """PyTorch's: the output ``forward`` returns among ``tensors`` records no graph."""
        self.non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """PyTorch's; with one output, ``grad_output`` is always a Tensor here."""
        self.materialize_grads = value


class Node:
    """One recorded operation: the ``grad_fn`` of the tensor it produced."""

    __slots__ = ("__weakref__", "ctx", "function", "hooks", "inputs", "retained")

    def __init__(self, function: type[Function], ctx: Context, inputs: tuple) -> None:
        self.function = function
        self.ctx: Context | None = ctx
        self.inputs = inputs  # the parents: the Tensor arguments of forward
        self.hooks: tuple | list = ()  # its output's hooks (``Tensor.register_hook``)
        self.retained = None  # a weak reference to its output, once it ``retain_grad()``s

    def name(self) -> str:
        return f"{self.function.__name__}Backward"

    @property
    def next_functions(self) -> tuple:
        """PyTorch's view of the parents: one ``(node, 0)`` per input, where node is the
        input's ``grad_fn``, an ``AccumulateGrad`` for a leaf that requires grad (its
        ``variable`` is the leaf), or None for a constant."""
        return tuple([(_next_function(x), 0) for x in self.inputs])

    def __repr__(self) -> str:
        return f"<{self.name()}>"

    def backward(self, grad_output: Any, create_graph: bool = False) -> tuple:
        """The local backward step: ∂L/∂input for each input, given ∂L/∂output.

        Each gradient is a Tensor of its input's shape (``None`` for an input that does not
        require one). The graph of this computation is recorded only with
        ``create_graph=True`` (chapter 4's higher-order gradients)."""
        if self.ctx is None:
            raise RuntimeError(
                f"{self.name()}: trying to backward through the graph a second time (its "
                "saved tensors were freed). Pass retain_graph=True to the first backward."
            )
        check(self.ctx)  # nothing forward kept has changed in place since (version.py)
        if not isinstance(grad_output, _tensor.Tensor):
            grad_output = _tensor.Tensor(grad_output)
        previous = _set_grad_enabled(create_graph)
        try:
            grads = self.function.backward(self.ctx, grad_output)
            if not isinstance(grads, tuple):
                grads = (grads,)
            if len(grads) != len(self.inputs):
                raise TypeError(
                    f"{self.function.__name__}.backward returned {len(grads)} gradient(s) for "
                    f"{len(self.inputs)} input(s): return one per Tensor input of forward "
                    "(None where no gradient is needed)"
                )
            return _apart(tuple([self._fit(x, g) for x, g in zip(self.inputs, grads)]))
        finally:
            _set_grad_enabled(previous)

    def _fit(self, x: Any, grad: Any) -> Any:
        if grad is None or not x.requires_grad:
            return None
        if not isinstance(grad, _tensor.Tensor):
            raise TypeError(
                f"{self.function.__name__}.backward must return Tensors (or None), "
                f"not {type(grad).__name__}"
            )
        # (the arrays' shapes and dtypes, not the Tensor properties: this runs per gradient)
        if grad.data.shape != x.data.shape:  # the gradient of a broadcast input is reduced
            self._check_broadcast(x, grad)
            grad = reduce_to_shape(grad, x.shape, self.name())
        if grad.data.dtype != x.data.dtype:  # as PyTorch's engine: in its input's dtype
            grad = _casting.Cast.apply(grad, x.dtype)
        return grad

    def _check_broadcast(self, x: Any, grad: Any) -> None:
        """A gradient whose shape differs from its input's must be one the input broadcasts
        to (``reduce_to_shape`` then sums it down); anything else is a bug in ``backward``.
        Broadcasting to a shape: compared from the right, each size of the input's is 1 or
        the gradient's, and the gradient has at least as many axes."""
        shape, target = x.shape, grad.shape
        broadcasts = len(shape) <= len(target) and all(
            n == 1 or n == m for n, m in zip(reversed(shape), reversed(target))
        )
        if not broadcasts:
            raise RuntimeError(
                f"{self.function.__name__}.backward returned a gradient of shape {grad.shape} "
                f"for an input of shape {x.shape}: each gradient has its input's shape"
            )

    def release(self) -> None:
        """Free what the node holds of the forward pass (chapter 4 calls this once the node
        has run): its saved tensors, and its inputs' data. Each non-leaf input becomes an
        ``Edge``, which keeps only the way on (``grad_fn``, ``requires_grad``), so the graph
        keeps its shape and an intermediate result nobody else holds is freed."""
        self.ctx = None
        self.inputs = tuple([x if x.grad_fn is None else Edge(x) for x in self.inputs])


def _hold(inputs: tuple, node: Node) -> None:
    """Note that ``node`` holds each of ``inputs``: a leaf is marked ``_held``; a non-leaf
    keeps a weak reference to the node (``_holders``). An in-place operation recorded later
    on the tensor (inplace.py's rule 3) gives it a new ``grad_fn``, and first hands each
    node that still holds it a stand-in of it as it was, so their edges stay where they were,
    as PyTorch's do."""
    for x in inputs:
        if x.grad_fn is None:
            x._held = True
        elif x._holders is None:
            x._holders = [weakref.ref(node)]
        else:
            x._holders.append(weakref.ref(node))


def _apart(grads: tuple) -> tuple:
    """The gradients, each with memory of its own: a gradient that shares memory with one
    before it (``Add`` hands ``grad_output`` to both inputs; a ``Reshape`` a view of it) is
    copied (recorded, with ``create_graph``), and so is a read-only broadcast view that is
    not recorded. An engine that adds in place (``pending[p] += g``) then reaches no other
    vertex's gradient. (It may still reach what its caller holds: a seed passed to
    ``backward``, a gradient a hook kept; the course's engine adds out of place.)"""
    out = list(grads)
    owners: list = []
    for i, g in enumerate(grads):
        if g is None:
            continue
        owner = memory_owner(g.data)
        # a fresh array (its own owner) may be written; a view only if it says so (a
        # recorded gradient is never written into: in place on it is recorded instead)
        if owner is not g.data and not g.requires_grad and not writeable(g.data):
            out[i] = g.clone()
        elif any([owner is o for o in owners]):
            out[i] = g.clone()
        else:
            owners.append(owner)
    return tuple(out)


class AccumulateGrad:
    """What PyTorch's ``next_functions`` shows for a leaf that requires grad: the place its
    gradient is summed into ``.grad`` (``variable`` is the leaf)."""

    __slots__ = ("variable",)

    def __init__(self, variable: Any) -> None:
        self.variable = variable

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def __repr__(self) -> str:
        return "<AccumulateGrad>"


def _next_function(x: Any) -> Any:
    if x.grad_fn is not None:
        return x.grad_fn
    return AccumulateGrad(x) if x.requires_grad else None


class Edge:
    """What a released node keeps of a non-leaf input: where its gradient goes."""

    __slots__ = ("grad_fn", "requires_grad")

    def __init__(self, x: Any) -> None:
        self.grad_fn, self.requires_grad = x.grad_fn, x.requires_grad

    def __repr__(self) -> str:
        return f"<Edge to {self.grad_fn!r}>"


class Function:
    """Base class of every operation. Subclasses define ``forward`` and ``backward`` as
    static methods; users call ``apply``, e.g. ``Mul.apply(a, b)``."""

    @staticmethod
    def forward(ctx: Context, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    @staticmethod
    def backward(ctx: Context, grad_output: Any) -> Any:
        raise NotImplementedError

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> _tensor.Tensor:
        """Run ``forward``; record a ``Node`` when grad mode is on and an input requires
        a gradient. The output is a new Tensor whose ``grad_fn`` is that node."""
        Tensor = _tensor.Tensor
        inputs = tuple([a for a in args if isinstance(a, Tensor)])
        if len(inputs) > 1:  # arrays of two kinds: two devices (chapter 7 says which)
            kind = type(inputs[0].data)
            for x in inputs:
                if type(x.data) is not kind:
                    check = later(7, "ch07_device", "check_same_device", "tensors on two devices")
                    check(cls.__name__, inputs)
        needs = tuple([x.requires_grad for x in inputs])
        ctx = Context(needs)
        if cls.setup_context is Function.setup_context:
            result = cls.forward(ctx, *args, **kwargs)
        else:  # PyTorch's newer form: forward(*args), then setup_context(ctx, inputs, output)
            result = cls.forward(*args, **kwargs)
            cls.setup_context(ctx, args, result)
        if not isinstance(result, Tensor):
            out = Tensor._from_array(result)
        elif result.grad_fn is None and not result.requires_grad:
            out = result if not any([result is x for x in inputs]) else result.detach()
        else:  # a Tensor forward computed with recorded operations, or an input: only this
            out = Tensor._from_array(result.data)  # Function's node is recorded
        base = view_of(out.data, inputs) if inputs else None
        if base is not None:  # a view (reshape, transpose, indexing): one version counter
            share(out, base)
        if True in needs and is_grad_enabled():
            if ctx.non_differentiable and any([result is t for t in ctx.non_differentiable]):
                return out
            watch(ctx, inputs, out, cls)  # what forward kept, and its version now
            out.requires_grad = True
            out.grad_fn = node = Node(cls, ctx, inputs)
            _hold(inputs, node)
        return out

    @staticmethod
    def setup_context(ctx: Context, inputs: tuple, output: Any) -> None:
        """PyTorch's newer form (``forward`` without ctx) defines this; the base is unused."""


from . import casting as _casting  # noqa: E402  (last: both import this module)
from . import tensor as _tensor  # noqa: E402

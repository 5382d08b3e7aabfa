"""Chapter 5's stand-ins (see ``autograder/harness/standin.py``): the autograder's own
version of a task, installed into the code under test for a rerun of a check that needs it
(every module needs 5.1; checks that put a module in eval() or walk it, 5.3; a check of a
Sequential of Linear, 5.2 and 5.4; cross_entropy, 5.6: always earlier tasks).

Each is enough for the checks that lean on it and deliberately short of its own task, so
pasted into that task it fails (the course repository's ``test_contracts.py``):

- 5.1 registers a Parameter, a Module or a buffer's new value, and nothing more: no name
  is forgotten from the other tables or from ``__dict__``, nothing is refused.
- 5.2 leaves the weights at zero (the checks that use it set their own), and its
  ``LinearFunction`` computes forward and backward on NumPy arrays: its gradients are
  constants, so Linear is not twice differentiable (5.2's second-order rows fail).
- 5.3 walks ``_modules`` with no memo: a shared module, and a tied weight, come out twice;
  ``train`` sets every module's flag.
- 5.4 registers the modules a Sequential is made with and runs the list it was given (not
  what is appended later); ``ModuleList.append`` registers and returns None.
- 5.6 computes in float64 whatever the input's dtype (with the max shift).
Runs in the child: standard library and NumPy only."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from ...harness.standin import Patch


def _setattr(sp: ModuleType) -> list[Patch]:
    module, parameter = sp.nn.Module, sp.nn.Parameter

    def __setattr__(self: Any, name: str, value: Any) -> None:
        tables = self.__dict__
        if isinstance(value, parameter):
            tables["_parameters"][name] = value
        elif isinstance(value, module):
            tables["_modules"][name] = value
        elif name in tables["_buffers"]:
            tables["_buffers"][name] = value
        else:
            object.__setattr__(self, name, value)

    return [(module, "__setattr__", __setattr__)]


def _linear(sp: ModuleType) -> list[Patch]:
    tensor_type = sp.Tensor
    function = sp.nn.Linear.forward.__globals__["LinearFunction"]

    def forward(ctx: Any, x: Any, w: Any, b: Any = None) -> Any:
        ctx.save_for_backward(x, w)
        ctx.has_bias = b is not None
        out = np.matmul(x.data, np.swapaxes(w.data, 0, 1))
        return out + b.data if b is not None else out

    def backward(ctx: Any, g: Any) -> tuple:
        x, w = ctx.saved_tensors
        gx = tensor_type._from_array(np.matmul(g.data, w.data))
        gw = tensor_type._from_array(np.matmul(np.swapaxes(g.data, 0, 1), x.data))
        if not ctx.has_bias:
            return gx, gw
        return gx, gw, tensor_type._from_array(g.data.sum(axis=0))

    def reset_parameters(self: Any) -> None:
        for p in (self.weight, self.bias):
            if p is not None:
                p.data[...] = 0

    return [
        (function, "forward", staticmethod(forward)),
        (function, "backward", staticmethod(backward)),
        (sp.nn.Linear, "reset_parameters", reset_parameters),
    ]


def _tree(sp: ModuleType) -> list[Patch]:
    def named_modules(self: Any, memo: Any = None, prefix: str = "", remove_duplicate: bool = True):
        stack = [(prefix, self)]
        while stack:
            path, m = stack.pop()
            yield path, m
            children = [(n, c) for n, c in vars(m)["_modules"].items() if c is not None]
            for name, child in reversed(children):
                stack.append((f"{path}.{name}" if path else name, child))

    def _named_members(self: Any, table: str, prefix: str, recurse: bool, remove_duplicate: bool):
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for path, m in modules:
            for name, value in vars(m)[table].items():
                if value is not None:
                    yield (f"{path}.{name}" if path else name), value

    def train(self: Any, mode: bool = True) -> Any:
        stack = [self]
        while stack:
            m = stack.pop()
            object.__setattr__(m, "training", mode)
            stack.extend(c for c in vars(m)["_modules"].values() if c is not None)
        return self

    module = sp.nn.Module
    return [
        (module, "named_modules", named_modules),
        (module, "_named_members", _named_members),
        (module, "train", train),
    ]


def _containers(sp: ModuleType) -> list[Patch]:
    def __init__(self: Any, *modules: Any) -> None:
        sp.nn.Module.__init__(self)
        for index, m in enumerate(modules):
            self.add_module(str(index), m)
        object.__setattr__(self, "_given", list(modules))

    def forward(self: Any, x: Any) -> Any:
        for m in vars(self)["_given"]:
            x = m(x)
        return x

    def append(self: Any, module: Any) -> None:
        self.add_module(str(len(vars(self)["_modules"])), module)

    return [
        (sp.nn.Sequential, "__init__", __init__),
        (sp.nn.Sequential, "forward", forward),
        (sp.nn.ModuleList, "append", append),
    ]


def _softmax(sp: ModuleType) -> list[Patch]:
    tensor_type = sp.Tensor
    softmax_module = vars(sp.nn)["functional"]
    functions = softmax_module.softmax.__globals__

    def probabilities(x: Any, dim: int) -> np.ndarray:
        data = np.asarray(x.data, dtype=np.float64)
        e = np.exp(data - data.max(axis=dim, keepdims=True))
        return e / e.sum(axis=dim, keepdims=True)

    def soft_forward(ctx: Any, x: Any, dim: int) -> Any:
        ctx.dim, ctx.out = dim, probabilities(x, dim)
        return ctx.out

    def soft_backward(ctx: Any, g: Any) -> Any:
        y = ctx.out
        gd = np.asarray(g.data, dtype=np.float64)
        return tensor_type._from_array(y * (gd - (gd * y).sum(axis=ctx.dim, keepdims=True)))

    def log_forward(ctx: Any, x: Any, dim: int) -> Any:
        ctx.dim, ctx.out = dim, probabilities(x, dim)
        data = np.asarray(x.data, dtype=np.float64)
        shifted = data - data.max(axis=dim, keepdims=True)
        return shifted - np.log(np.exp(shifted).sum(axis=dim, keepdims=True))

    def log_backward(ctx: Any, g: Any) -> Any:
        gd = np.asarray(g.data, dtype=np.float64)
        return tensor_type._from_array(gd - ctx.out * gd.sum(axis=ctx.dim, keepdims=True))

    soft, log = functions["Softmax"], functions["LogSoftmax"]
    return [
        (soft, "forward", staticmethod(soft_forward)),
        (soft, "backward", staticmethod(soft_backward)),
        (log, "forward", staticmethod(log_forward)),
        (log, "backward", staticmethod(log_backward)),
    ]


STANDINS: dict[str, Callable[[ModuleType], list[Patch]]] = {
    "5.1": _setattr,
    "5.2": _linear,
    "5.3": _tree,
    "5.4": _containers,
    "5.6": _softmax,
}


def _fit_linear(sp: ModuleType) -> list[Patch]:
    """5.13 (required by no check yet): a Linear put at the least-squares solution at once
    (NumPy's lstsq), with flat losses, that loss ``epochs`` times: no descent, so pasted
    into its task it fails the descent's checks."""

    def fit_linear(x: Any, y: Any, epochs: int, lr: float) -> tuple:
        xs, ys = np.asarray(x.data, dtype=np.float64), np.asarray(y.data, dtype=np.float64)
        model = sp.nn.Linear(xs.shape[1], ys.shape[1], dtype=x.dtype)
        solution = np.linalg.lstsq(np.hstack([xs, np.ones((len(xs), 1))]), ys, rcond=None)[0]
        model.weight.data[...] = solution[:-1].T
        model.bias.data[...] = solution[-1]
        r = xs @ solution[:-1] + solution[-1] - ys
        return model, [float((r * r).mean())] * epochs

    return [(sp, "fit_linear", fit_linear)]


STANDINS["5.13"] = _fit_linear

"""``Optimizer``: what every optimizer shares. Tasks 6.1 (param groups, ``zero_grad``) and
6.7 (``state_dict``, ``load_state_dict``).

An optimizer holds

- ``param_groups``: a list of dicts, each ``{"params": [tensors], "lr": ..., ...}``. Every
  option the optimizer knows has a default (``defaults``); a group may set its own (a
  smaller learning rate for the first layers, no weight decay for the biases)::

      optim.SGD([{"params": model[0].parameters(), "lr": 1e-3},
                 {"params": model[2].parameters()}], lr=1e-2, momentum=0.9)

- ``state``: a dict from each parameter to the dict of what its updates remember between
  steps (a momentum buffer, Adam's moments, a step count), filled by ``step()`` on first
  use (``state[p]`` is ``{}`` until then: a ``defaultdict(dict)``; Adagrad, as PyTorch's,
  fills it when it is made). ``state_dict()`` holds the parameters whose state is filled.

``step()`` changes each parameter's array in place, from ``p.grad`` and the state, on
arrays only: an update is not part of any model, so nothing it does may be recorded in a
graph (a step that built one would keep every past step's arrays alive and make the next
backward run through the optimizer). Parameters whose ``.grad`` is ``None`` are skipped.
A step reads ``p.grad`` and never writes into it: whoever holds the gradient (a log of
gradients, ``b.grad = a.grad``) keeps what backward gave.
"""

from __future__ import annotations

import copy
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from ...ch02_tensor.backend import array_module
from ...ch02_tensor.tensor import Tensor
from ...ch02_tensor.version import bump
from ...ch04_backward.grad_mode import enable_grad


class _Required:
    """The default of an option that has none (``SGD``'s lr in PyTorch 1.x): a group must
    set it."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _Required()


class Optimizer:
    """``Optimizer(params, defaults)``: ``params`` is an iterable of tensors (one group) or of
    dicts (one group each, with ``"params"`` and any options of its own)."""

    def __init__(self, params: Any, defaults: dict) -> None:
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {type(params).__name__}"
            )
        self.defaults = dict(defaults)
        self.state: defaultdict[Tensor, dict] = defaultdict(dict)
        self.param_groups: list[dict] = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict) -> None:
        """Append one group: a new dict with the group's ``"params"`` and options, every
        option it does not set taken from ``defaults``.

        PyTorch's checks run first (``_checked_params``, given): ``params`` arrives as a
        list (a single tensor becomes a list of one) of leaf Tensors that are in no other
        group, and every ``required`` option is set."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = self._checked_params(param_group)
        param_group = dict(param_group, params=params)  # a generator is read only once
        raise NotImplementedError(
            "Task 6.1: Optimizer: param groups and zero_grad — see §2 of the notebook"
        )

    def _checked_params(self, param_group: dict) -> list[Tensor]:
        """The group's ``"params"`` as a list, after PyTorch's checks: a set is refused (its
        order changes between runs), each must be a Tensor and a leaf, and in no other
        group; a ``required`` option the group does not set is a ``ValueError``."""
        params = param_group["params"]
        if isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        params = [params] if isinstance(params, Tensor) else list(params)
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(
                    f"optimizer can only optimize Tensors, but one of the params is "
                    f"{type(p).__name__}"
                )
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
        seen = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        return params

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget every parameter's gradient before the next backward (which would otherwise
        add to it: chapter 4's accumulation): ``p.grad = None``, or with
        ``set_to_none=False`` a new tensor of zeros (never written into the old one, which
        someone else may hold: ``b.grad = a.grad`` shares one tensor; PyTorch zeroes in
        place)."""
        raise NotImplementedError(
            "Task 6.1: Optimizer: param groups and zero_grad — see §2 of the notebook"
        )

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; each optimizer writes its own."""
        raise NotImplementedError(f"{type(self).__name__} does not define step()")

    def _closure(self, closure: Callable[[], Any] | None) -> Any:
        """``closure()`` with gradients on (it recomputes the loss and calls backward), or
        ``None``: what ``step(closure)`` returns, as in PyTorch."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    def _with_grad(self, group: dict) -> Iterable[Tensor]:
        """The group's parameters that have a gradient (the others are skipped), each about
        to be changed in place through ``p.data``: its version counter moves here, as
        PyTorch's in-place step moves it, so a backward through a graph recorded before the
        step raises instead of using the new values (chapter 4, § In place)."""
        params = [p for p in group["params"] if p.grad is not None]
        for p in params:
            bump(p)
        return params

    # -- saving and resuming -------------------------------------------------------------

    def state_dict(self) -> dict:
        """``{"state": {index: {name: value}}, "param_groups": [{options, "params":
        [index, ...]}]}``: parameters replaced by their position across the groups (0, 1, …
        in order), so a new optimizer over a new model of the same shape can take it.
        Tensors in the state are copies: the snapshot does not change as training goes on
        (PyTorch's holds the live tensors; there, ``copy.deepcopy(opt.state_dict())`` keeps a
        snapshot)."""
        raise NotImplementedError(
            "Task 6.7: Optimizer state_dict and load_state_dict — see §6 of the notebook"
        )

    def load_state_dict(self, state_dict: dict) -> None:
        """Take a ``state_dict()``'s options and state: each saved group's options replace
        the group's (its parameters stay), and each saved state goes to the parameter at its
        index, its tensors copied and cast to that parameter's dtype (the step count kept
        as it is). The groups must match in number and sizes (a ``ValueError`` otherwise)."""
        groups, saved_groups = self.param_groups, state_dict["param_groups"]
        raise NotImplementedError(
            "Task 6.7: Optimizer state_dict and load_state_dict — see §6 of the notebook"
        )

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {k}: {v}" for k, v in sorted(group.items()) if k != "params"]
        return "\n".join([*lines, ")"])


def zeros_like(p: Tensor) -> Tensor:
    """A new state tensor of zeros with ``p``'s shape, dtype and device."""
    return Tensor._from_array(array_module(p.data).zeros_like(p.data))


def _copy(value: Any, like: Tensor | None = None) -> Any:
    """A copy of a state value: a Tensor's array copied (on ``like``'s device, as PyTorch
    moves loaded state to its parameter's, and cast to ``like``'s dtype when both are
    floating), anything else deep-copied."""
    if isinstance(value, Tensor):
        if like is not None:
            value = value.detach().to(like.device)  # itself when already there
        array = value.data
        if like is not None and array.dtype.kind == "f" and like.dtype.kind == "f":
            array = array.astype(like.dtype)
        return Tensor._from_array(array.copy())
    return copy.deepcopy(value)

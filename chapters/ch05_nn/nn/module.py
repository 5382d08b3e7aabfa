"""``Module``: a model as a tree of modules, each holding its own parameters (5.1, 5.3, 5.5).

A module is an object with a ``forward``; what makes it more is bookkeeping. Three ordered
dicts hold what a module owns, by attribute name:

    _parameters   Parameters (the weights the optimizer updates)
    _buffers      Tensors that are state but not weights (BatchNorm's running mean)
    _modules      child Modules

``self.fc = Linear(2, 3)`` puts the Linear in ``_modules["fc"]`` (task 5.1), so the whole
model is a tree whose walks (task 5.3) name every parameter by its path from the root,
PyTorch's dotted names::

    Net                     named_parameters():  fc.weight, fc.bias,
    ├── fc: Linear                               blocks.0.weight, blocks.0.bias, ...
    └── blocks: ModuleList
        └── 0: Linear

and ``state_dict`` (task 5.5) is those names mapped to the tensors: what ``save`` writes and
``load_state_dict`` puts back, checking every name and shape first. Everything else here is
given: ``__call__`` with its forward hooks, ``zero_grad``, ``to``, ``apply`` and ``repr``.
"""

from __future__ import annotations

from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ...ch02_tensor.backend import array_module
from ...ch02_tensor.tensor import RemovableHandle, Tensor, _to_args
from ...ch02_tensor.version import bump
from .hooks import BackwardHook
from .parameter import Parameter


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it did not find, and those it did not use."""

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()


class Module:
    """Base class of every layer and model: subclass it, set parameters and submodules as
    attributes in ``__init__`` (after ``super().__init__()``), and define ``forward``."""

    training: bool

    def __init__(self) -> None:
        # object.__setattr__: our own __setattr__ needs these dicts to exist first
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_forward_hooks", [])
        object.__setattr__(self, "_forward_pre_hooks", [])
        object.__setattr__(self, "_backward_hooks", [])
        object.__setattr__(self, "_backward_pre_hooks", [])

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """``forward``, then each forward hook ``hook(module, args, output)``; a hook that
        returns something other than None replaces the output. With hooks of the other
        kinds (given, ``_call_with_hooks``), PyTorch's order: forward pre-hooks, the
        backward hooks' wrapping of the inputs, forward, forward hooks, the wrapping of the
        outputs."""
        if (
            self._forward_hooks
            or self._forward_pre_hooks
            or self._backward_hooks
            or self._backward_pre_hooks
        ):
            return self._call_with_hooks(args, kwargs)
        return self.forward(*args, **kwargs)  # the common case: no hook, no copy of a list

    def _call_with_hooks(self, args: tuple, kwargs: dict) -> Any:
        for hook, with_kwargs in tuple(self._forward_pre_hooks):
            if with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, "
                            f"new_kwargs), but got {result}."
                        )
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        backward = None
        if self._backward_hooks or self._backward_pre_hooks:
            backward = BackwardHook(self, self._backward_hooks, self._backward_pre_hooks)
            args = backward.setup_input(args)
        output = self.forward(*args, **kwargs)
        for hook in tuple(self._forward_hooks):
            if isinstance(hook, _WithKwargs):
                result = hook.hook(self, args, kwargs, output)
            else:
                result = hook(self, args, output)
            if result is not None:
                output = result
        if backward is not None:
            output = backward.setup_output(output)
        return output

    def register_forward_hook(
        self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """Call ``hook(module, args, output)`` after every forward (``hook(module, args,
        kwargs, output)`` with ``with_kwargs=True``); a result other than None replaces
        the output. ``prepend=True`` runs it before the hooks already there;
        ``handle.remove()`` takes it off."""
        entry = _WithKwargs(hook) if with_kwargs else hook
        return _register(self._forward_hooks, entry, prepend)

    def register_forward_pre_hook(
        self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """Call ``hook(module, args)`` before every forward; a result other than None
        replaces ``args`` (a non-tuple is made a 1-tuple). With ``with_kwargs=True``,
        ``hook(module, args, kwargs)``, which returns None or ``(args, kwargs)``."""
        return _register(self._forward_pre_hooks, (hook, with_kwargs), prepend)

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """Call ``hook(module, grad_input, grad_output)`` once the gradients with respect
        to the module's positional inputs are computed (tuples, one entry per argument or
        output, None where there is none); a tuple returned replaces ``grad_input``
        (``nn/hooks.py`` says how it is done without PyTorch's engine)."""
        return _register(self._backward_hooks, hook, prepend)

    def register_full_backward_pre_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """Call ``hook(module, grad_output)`` once the gradients with respect to the
        module's outputs are computed, before anything else; a tuple returned replaces
        ``grad_output``."""
        return _register(self._backward_pre_hooks, hook, prepend)

    # -- registration (task 5.1) ---------------------------------------------------------

    def __setattr__(self, name: str, value: Any) -> None:
        """``self.name = value``, registering what a module must know about:

        - a ``Parameter`` goes into ``_parameters[name]``;
        - a ``Module`` goes into ``_modules[name]``;
        - a name already in ``_parameters``, ``_modules`` or ``_buffers`` keeps its place
          and takes the new value (None for a parameter or a child; a Tensor or None for a
          buffer);
        - anything else is a plain attribute.

        A name lives in one place only: registering it removes it from the others (and
        from the instance's plain attributes). What a registered name refuses (a Tensor for
        a parameter, say: PyTorch's TypeError) is checked before your code runs
        (``_check_kind``, given)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError(
                f"cannot assign {name!r} before Module.__init__() call: call "
                "super().__init__() first in your __init__"
            )
        self._check_kind(name, value)
        raise NotImplementedError(
            "Task 5.1: Module.__setattr__: registration by attribute — see §1 of the notebook"
        )

    def _check_kind(self, name: str, value: Any) -> None:
        """As in PyTorch, a registered name keeps its kind: a parameter's name takes a
        Parameter (or None), a child's a Module or a Parameter (or None), a buffer's a
        Tensor (or None; a Parameter or a Module takes a buffer's name over). Anything else
        is a TypeError naming the type and the name."""
        if value is None or isinstance(value, Parameter):
            return
        kind = type(value).__name__
        if name in self._parameters:
            raise TypeError(
                f"cannot assign '{kind}' as parameter '{name}' (Parameter or None expected)"
            )
        if isinstance(value, Module):
            return
        if name in self._modules:
            raise TypeError(
                f"cannot assign '{kind}' as child module '{name}' (Module or None expected)"
            )
        if name in self._buffers and not isinstance(value, Tensor):
            raise TypeError(f"cannot assign '{kind}' as buffer '{name}' (Tensor or None expected)")

    def _forget(self, name: str, keep: dict | None = None) -> None:
        """Remove ``name`` from every place a module keeps attributes but ``keep`` (where it
        is about to be set again, keeping its place in the order)."""
        self.__dict__.pop(name, None)
        for table in (self._parameters, self._buffers, self._modules):
            if table is not keep:
                table.pop(name, None)
        if keep is not self._buffers:
            self._non_persistent.discard(name)

    def __getattr__(self, name: str) -> Any:
        """Called only when normal lookup fails: the registered parameters, buffers and
        submodules, by name."""
        tables = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            if table in tables and name in tables[table]:
                return tables[table][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for table in (self._parameters, self._buffers, self._modules):
            if name in table:
                del table[name]
                self._non_persistent.discard(name)
                return
        object.__delattr__(self, name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Register ``param`` (a Parameter, or None) under ``name``."""
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
                "(Parameter or None required)"
            )
        self._check_name(name, self._parameters)
        self._forget(name, keep=self._parameters)
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Register a buffer: state that is saved (``state_dict``) and moved (``to``), but
        is not a parameter. ``persistent=False`` leaves it out of ``state_dict``."""
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' "
                "(Tensor or None required)"
            )
        self._check_name(name, self._buffers)
        self._forget(name, keep=self._buffers)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent.discard(name)
        else:
            self._non_persistent.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Register ``module`` as the child ``name`` (a name may be any string: "0")."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._check_name(name, self._modules)
        self._forget(name, keep=self._modules)
        self._modules[name] = module

    register_module = add_module

    def _check_name(self, name: str, table: dict) -> None:
        """A name to register in ``table``: a non-empty string without '.', not already an
        attribute of another kind (``add_module("training", ...)`` would hide the flag)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError(
                "cannot register anything before Module.__init__() call: call "
                "super().__init__() first in your __init__"
            )
        if not isinstance(name, str):
            raise TypeError(f"a registered name is a string, not {type(name).__name__}")
        if not name or "." in name:
            raise KeyError(f"a registered name is a non-empty string without '.': {name!r}")
        if hasattr(self, name) and name not in table:
            raise KeyError(f"attribute '{name}' already exists")

    # -- walking the tree (task 5.3) -----------------------------------------------------

    def named_modules(
        self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        """Every module of the tree, this one first (name ``prefix``), then each child's
        subtree in order, named by the dotted path (``"blocks.0"``). A module reached twice
        (shared) is yielded once, at its first name, unless ``remove_duplicate=False``."""
        raise NotImplementedError(
            "Task 5.3: the tree: named_modules, _named_members, train — see §3 of the notebook"
        )

    def _named_members(
        self, table: str, prefix: str, recurse: bool, remove_duplicate: bool
    ) -> Iterator[tuple[str, Any]]:
        """The entries of ``table`` (``"_parameters"`` or ``"_buffers"``) of every module of
        the tree (or only this one), module by module in ``named_modules`` order, each named
        ``module_path.name``; None entries skipped; an object reached twice (a shared
        weight) yielded once unless ``remove_duplicate=False``."""
        raise NotImplementedError(
            "Task 5.3: the tree: named_modules, _named_members, train — see §3 of the notebook"
        )

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """(dotted name, parameter) for every parameter of the tree."""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """(dotted name, buffer) for every buffer of the tree."""
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """The direct children, by name (each once)."""
        seen: set[int] = set()
        for name, child in self._modules.items():
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                yield name, child

    def children(self) -> Iterator[Module]:
        for _, child in self.named_children():
            yield child

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    def get_submodule(self, target: str) -> Module:
        """The module at the dotted path ``target`` ("" is this one): one attribute lookup
        per name, not a walk of the whole tree. An AttributeError names the first step that
        is missing or is not a Module (PyTorch's messages)."""
        if target == "":
            return self
        module: Any = self
        for item in target.split("."):
            if not hasattr(module, item):
                raise AttributeError(f"{type(module).__name__} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at the dotted path ``target`` (``"blocks.0.weight"``)."""
        path, _, name = target.rpartition(".")
        module = self.get_submodule(path)
        if not hasattr(module, name):
            raise AttributeError(f"{type(module).__name__} has no attribute `{name}`")
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at the dotted path ``target`` (``"norm.running_mean"``)."""
        path, _, name = target.rpartition(".")
        module = self.get_submodule(path)
        if not hasattr(module, name):
            raise AttributeError(f"{type(module).__name__} has no attribute `{name}`")
        buffer = getattr(module, name)
        if name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return buffer

    def train(self, mode: bool = True) -> Module:
        """Set training mode (``self.training``) on this module and every module below
        it; returns ``self``. Dropout and BatchNorm read it."""
        if not isinstance(mode, bool):
            raise ValueError(f"training mode is expected to be boolean, not {mode!r}")
        raise NotImplementedError(
            "Task 5.3: the tree: named_modules, _named_members, train — see §3 of the notebook"
        )

    def eval(self) -> Module:
        """``train(False)``: evaluation mode, for the whole tree."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget every parameter's gradient (``None``; zeros with ``set_to_none=False``)."""
        for param in self.parameters():
            if set_to_none or param.grad is None:
                param.grad = None
            else:
                param.grad = Tensor._from_array(
                    array_module(param.grad.data).zeros_like(param.grad.data)
                )

    # -- state_dict (task 5.5) -----------------------------------------------------------

    def state_dict(
        self, destination: dict | None = None, prefix: str = "", keep_vars: bool = False
    ) -> OrderedDict:
        """Every parameter and persistent buffer of the tree by dotted name, in PyTorch's
        order: a module's own parameters, then its own buffers, then each child's
        ``state_dict`` with the prefix ``"name."``. A shared tensor appears under each of
        its names. Values are detached (the tensors themselves with ``keep_vars=True``)."""
        raise NotImplementedError(
            "Task 5.5: state_dict and load_state_dict — see §4 of the notebook"
        )

    def load_state_dict(self, state_dict: dict, strict: bool = True) -> _IncompatibleKeys:
        """Copy ``state_dict``'s tensors into this tree's parameters and buffers, in place
        (the Parameter objects stay the same, so an optimizer holding them still does; each
        value is converted to its target's dtype, as PyTorch's ``copy_`` does).

        Checked before anything is copied: a shape that differs is always an error, and
        with ``strict`` so is a missing or an unexpected key; one RuntimeError lists them
        all. Returns ``(missing_keys, unexpected_keys)``."""
        if not isinstance(state_dict, dict):
            raise TypeError(f"expected state_dict to be dict-like, got {type(state_dict).__name__}")
        for key, target in self.state_dict(keep_vars=True).items():
            if key in state_dict and isinstance(target, Tensor):
                bump(target)  # changed in place below, as PyTorch's copy_ (ch02 version.py)
        raise NotImplementedError(
            "Task 5.5: state_dict and load_state_dict — see §4 of the notebook"
        )

    # -- the rest (given) ----------------------------------------------------------------

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        """``fn(m)`` for every module below this one, children first, then ``fn(self)``."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """Every parameter and buffer converted to a floating dtype (``model.to(sp.float64)``)
        and/or moved to a device (``"cpu"``; others in chapter 7), in place: the Parameter
        objects stay the same. ``to(device, dtype)``, ``to(dtype=..., device=...)`` and
        ``to(tensor)`` (its dtype and device) work as in PyTorch; integer buffers keep their
        dtype."""
        dtype, device = _to_targets(args, kwargs)
        for module in self.modules():
            for table in (module._parameters, module._buffers):
                for tensor in table.values():
                    if tensor is not None:
                        _convert(tensor, dtype, device)
        return self

    def float(self) -> Module:
        return self.to(np.dtype(np.float32))

    def double(self) -> Module:
        return self.to(np.dtype(np.float64))

    def half(self) -> Module:
        return self.to(np.dtype(np.float16))

    def type(self, dst_type: Any) -> Module:
        """Every parameter and buffer cast to ``dst_type`` (a dtype, or PyTorch's type name
        ``"torch.DoubleTensor"``; ``Tensor.type``'s forms), in place. Unlike ``to``, integer
        buffers are cast too (PyTorch's ``Module.type``)."""
        for module in self.modules():
            for table in (module._parameters, module._buffers):
                for tensor in table.values():
                    if tensor is not None:
                        tensor.data = tensor.detach().type(dst_type).data
                        if tensor.grad is not None:
                            tensor.grad = tensor.grad.type(dst_type).detach()
        return self

    def cpu(self) -> Module:
        return self.to("cpu")

    def cuda(self, index: int | None = None) -> Module:
        return self.to("cuda" if index is None else f"cuda:{index}")

    def extra_repr(self) -> str:
        """What goes between the parentheses of this module's line in ``repr``."""
        return ""

    def __repr__(self) -> str:
        """PyTorch's layout: one line per child, indented, named ``(name): ...``."""
        lines = [line for line in self.extra_repr().split("\n") if line]
        for name, child in self._modules.items():
            text = repr(child).replace("\n", "\n  ")
            lines.append(f"({name}): {text}")
        if not lines:
            return f"{type(self).__name__}()"
        if len(lines) == 1 and not self._modules:
            return f"{type(self).__name__}({lines[0]})"
        return type(self).__name__ + "(\n  " + "\n  ".join(lines) + "\n)"


class _WithKwargs:
    """A forward hook registered with ``with_kwargs=True``."""

    def __init__(self, hook: Callable) -> None:
        self.hook = hook


def _register(hooks: list, entry: Any, prepend: bool) -> RemovableHandle:
    """``entry`` added to ``hooks`` (first with ``prepend``); its handle removes it."""
    if prepend:
        hooks.insert(0, entry)
    else:
        hooks.append(entry)
    return RemovableHandle(hooks, entry)


def _to_targets(args: tuple, kwargs: dict) -> tuple[Any, Any]:
    """``Module.to``'s arguments as (dtype or None, device or None): ``Tensor.to``'s forms
    (chapter 2's ``_to_args``), at least one of the two, and a floating dtype."""
    device, dtype = _to_args(args, kwargs)
    if dtype is None and device is None:
        raise TypeError("to() takes a dtype, a device, or a tensor (its dtype and device)")
    if dtype is not None and dtype.kind != "f":
        raise TypeError(
            f"nn.Module.to only accepts floating point dtypes, but got desired dtype={dtype}"
        )
    return dtype, device


def _convert(tensor: Tensor, dtype: Any, device: Any) -> None:
    """``tensor`` (and its ``.grad``) converted in place: its array replaced."""
    for target in (device, dtype if tensor.dtype.kind == "f" else None):
        if target is None:
            continue
        tensor.data = tensor.detach().to(target).data
        if tensor.grad is not None:
            tensor.grad = tensor.grad.to(target).detach()

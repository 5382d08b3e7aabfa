"""Containers: ``Sequential`` and ``ModuleList`` (task 5.4); ``ModuleDict``, ``ParameterList``
and ``ParameterDict`` (given).

A plain Python list of layers is invisible to ``Module.__setattr__``: ``self.layers =
[Linear(2, 3)]`` stores a list, so ``parameters()`` never sees the Linear inside it (PyTorch
behaves the same way). The containers are Modules whose children are registered under the
names ``"0"``, ``"1"``, …, which is where the dotted names ``layers.0.weight`` come from::

    Sequential(a, b, c)(x)  =  c(b(a(x)))

The given three are PyTorch's, method for method: ``ModuleDict`` keeps its children by key
(``_modules`` itself is the dict); ``ParameterList``/``ParameterDict`` keep parameters as
attributes named ``"0"``, ``"1"``, … or by key, so ``Module.__setattr__`` registers each (a
plain Tensor is made a Parameter first; any other object is a plain attribute).
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ...ch02_tensor.tensor import Tensor
from .module import Module
from .parameter import Parameter


class Sequential(Module):
    """``Sequential(*modules)``: the modules, registered as children ``"0"``, ``"1"``, …,
    applied in order. ``Sequential(OrderedDict([("fc", Linear(2, 3)), ...]))`` names them
    (given: its keys become the children's names)."""

    def __init__(self, *modules: Module) -> None:
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            for name, module in modules[0].items():
                self.add_module(name, module)
            return
        raise NotImplementedError("Task 5.4: Sequential and ModuleList — see §3 of the notebook")

    def forward(self, x: Any) -> Any:
        raise NotImplementedError("Task 5.4: Sequential and ModuleList — see §3 of the notebook")

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __getitem__(self, index: int | slice) -> Any:
        modules = list(self._modules.values())
        if isinstance(index, slice):
            return Sequential(*modules[index])
        return modules[_index(index, len(modules))]

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, sequential: Iterable[Module]) -> Sequential:
        for module in sequential:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        """Put ``module`` before position ``index`` (−len … len, PyTorch's range); the
        children are renumbered "0", "1", …"""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        modules = list(self._modules.values())
        if not -len(modules) <= index <= len(modules):
            raise IndexError(f"Index out of range: {index}")
        modules.insert(index, module)
        _renumber(self, modules)
        return self

    def pop(self, key: int | slice) -> Any:
        value = self[key]
        del self[key]
        return value

    def __delitem__(self, index: int | slice) -> None:
        modules = list(self._modules.values())
        if isinstance(index, slice):
            del modules[index]
        else:
            del modules[_index(index, len(modules))]
        _renumber(self, modules)

    def __add__(self, other: Sequential) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(
                "add operator supports only objects of Sequential class, but "
                f"{type(other)} is given."
            )
        return Sequential(*self, *other)

    def __iadd__(self, other: Sequential) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(
                "add operator supports only objects of Sequential class, but "
                f"{type(other)} is given."
            )
        return self.extend(list(other))


class ModuleList(Module):
    """``ModuleList(modules)``: a list whose items are registered children ``"0"``, ``"1"``, …
    It has no ``forward``: the module that owns it decides how to use them."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def append(self, module: Module) -> ModuleList:
        """Add ``module`` at the end, registered under the next index."""
        raise NotImplementedError("Task 5.4: Sequential and ModuleList — see §3 of the notebook")

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        if not isinstance(modules, Iterable):
            raise TypeError(
                "ModuleList.extend should be called with an iterable, but got "
                + type(modules).__name__
            )
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> None:
        """Put ``module`` before position ``index`` (as ``list.insert``: a negative index
        counts from the end, one past either end clamps), renumbering the ones after it."""
        modules = list(self._modules.values())
        modules.insert(index, module)
        _renumber(self, modules)

    def pop(self, key: int | slice) -> Any:
        """Remove and return the module at ``key`` (the later ones move down one)."""
        value = self[key]
        del self[key]
        return value

    def __delitem__(self, index: int | slice) -> None:
        modules = list(self._modules.values())
        if isinstance(index, slice):
            del modules[index]
        else:
            del modules[_index(index, len(modules))]
        _renumber(self, modules)

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        """A new ModuleList of this one's modules, then ``other``'s (the same objects)."""
        combined = ModuleList()
        for module in (*self, *other):
            combined.append(module)
        return combined

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __getitem__(self, index: int | slice) -> Any:
        modules = list(self._modules.values())
        if isinstance(index, slice):
            return ModuleList(modules[index])
        return modules[_index(index, len(modules))]

    def __setitem__(self, index: int, module: Module) -> None:
        self.add_module(str(_index(index, len(self))), module)


class ModuleDict(Module):
    """``ModuleDict(modules)``: children by key (a mapping, or (key, module) pairs), in
    insertion order; like ``ModuleList``, no ``forward``."""

    def __init__(self, modules: Mapping[str, Module] | Iterable | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        value = self[key]
        del self[key]
        return value

    def keys(self) -> Any:
        return self._modules.keys()

    def items(self) -> Any:
        return self._modules.items()

    def values(self) -> Any:
        return self._modules.values()

    def update(self, modules: Mapping[str, Module] | Iterable) -> None:
        """Add (or replace) children from a mapping or from (key, module) pairs."""
        if not isinstance(modules, Iterable):
            raise TypeError(
                "ModuleDict.update should be called with an iterable of key/value pairs, "
                "but got " + type(modules).__name__
            )
        for key, child in _pairs(modules, "ModuleDict", sort=False):
            self[key] = child


class ParameterList(Module):
    """``ParameterList(values)``: a list whose tensors are registered parameters named
    ``"0"``, ``"1"``, … (a Tensor that is not a Parameter is made one; another object is
    kept as a plain attribute). Calling it is an error."""

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _key(self, index: int) -> str:
        index = operator.index(index)
        if not -len(self) <= index < len(self):
            raise IndexError(f"index {index} is out of range")
        return str(index % len(self))

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            out = type(self)()
            for i in range(*index.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, self._key(index))

    def __setitem__(self, index: int, param: Any) -> None:
        key = self._key(index)
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, key, param)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return iter([self[i] for i in range(len(self))])

    def __iadd__(self, parameters: Iterable[Any]) -> ParameterList:
        return self.extend(parameters)

    def append(self, value: Any) -> ParameterList:
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError(
                "ParameterList.extend should be called with an iterable, but got "
                + type(values).__name__
            )
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(f"  ({k}): {_describe(p, legacy=False)}" for k, p in enumerate(self))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """``ParameterDict(parameters)``: parameters by string key, in insertion order (a
    Tensor is made a Parameter; another object is a plain attribute). A plain ``dict``
    given to the constructor or ``update`` is added in sorted key order, as PyTorch does;
    an ``OrderedDict``, a ParameterDict or (key, value) pairs keep theirs."""

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _attr(key: str) -> str:
        if not isinstance(key, str):
            raise TypeError(
                "Index given to ParameterDict cannot be used as a key as it is not a string "
                f"(type is '{type(key).__name__}'). Open an issue on github if you need "
                "non-string keys."
            )
        return key

    def __getitem__(self, key: str) -> Any:
        return getattr(self, self._attr(key))

    def __setitem__(self, key: str, value: Any) -> None:
        attr = self._attr(key)
        self._keys[key] = None
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, attr, value)

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, self._attr(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def copy(self) -> ParameterDict:
        """A new ParameterDict holding the same objects."""
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        for key in list(self._keys):
            del self[key]

    def pop(self, key: str) -> Any:
        value = self[key]
        del self[key]
        return value

    def popitem(self) -> tuple[str, Any]:
        """The last inserted (key, value), removed."""
        if not self._keys:
            raise KeyError("popitem(): dictionary is empty")
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def fromkeys(self, keys: Iterable[str], default: Any = None) -> ParameterDict:
        return ParameterDict((k, default) for k in keys)

    def keys(self) -> Any:
        return self._keys.keys()

    def items(self) -> Iterator[tuple[str, Any]]:
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterator[Any]:
        return (self[k] for k in self._keys)

    def update(self, parameters: Any) -> None:
        if not isinstance(parameters, Iterable):
            raise TypeError(
                "ParametersDict.update should be called with an iterable of key/value "
                "pairs, but got " + type(parameters).__name__
            )
        for key, value in _pairs(parameters, "ParameterDict", sort=True):
            self[key] = value

    def extra_repr(self) -> str:
        return "\n".join(f"  ({k}): {_describe(p, legacy=True)}" for k, p in self.items())

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other: ParameterDict) -> ParameterDict:
        copy = self.copy()
        copy.update(other)
        return copy

    def __ror__(self, other: ParameterDict) -> ParameterDict:
        copy = other.copy()
        copy.update(self)
        return copy

    def __ior__(self, other: ParameterDict) -> ParameterDict:
        self.update(other)
        return self


def _pairs(items: Any, owner: str, sort: bool) -> list:
    """``update``'s argument as (key, value) pairs: a mapping's items (a plain mapping's
    sorted by key where ``sort``, as PyTorch's ParameterDict does), or a sequence of pairs,
    each checked as PyTorch checks it."""
    if isinstance(items, (OrderedDict, ModuleDict, ParameterDict)):
        return list(items.items())
    if isinstance(items, Mapping):
        return sorted(items.items()) if sort else list(items.items())
    pairs = []
    for j, pair in enumerate(items):
        if not isinstance(pair, Iterable):
            raise TypeError(
                f"{owner} update sequence element #{j} should be Iterable; is" + type(pair).__name__
            )
        if len(pair) != 2:
            raise ValueError(
                f"{owner} update sequence element #{j} has length {len(pair)}; 2 is required"
            )
        pairs.append((pair[0], pair[1]))
    return pairs


def _describe(p: Any, legacy: bool) -> str:
    """One item of a ParameterList/ParameterDict's repr, PyTorch's words (the list names
    the dtype, ``torch.float32``; the dict the legacy type, ``torch.FloatTensor``)."""
    if not isinstance(p, Tensor):
        return f"Object of type: {type(p).__name__}"
    kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
    size = "x".join(str(n) for n in p.shape)
    where = "" if p.device.type == "cpu" else f" ({p.device})"
    name = p.type() if legacy else f"torch.{p.dtype}"
    return f"{kind} containing: [{name} of size {size}{where}]"


def _renumber(container: Module, modules: list) -> None:
    """``container``'s children are ``modules``, in order, named ``"0"``, ``"1"``, … (after
    an insertion or a deletion, as PyTorch renumbers)."""
    container._modules.clear()
    for position, module in enumerate(modules):
        container.add_module(str(position), module)


def _index(index: int, length: int) -> int:
    """``index`` as a position in ``0 … length-1`` (negative counts from the end)."""
    if not -length <= index < length:
        raise IndexError(f"index {index} is out of range for a container of {length}")
    return index % length

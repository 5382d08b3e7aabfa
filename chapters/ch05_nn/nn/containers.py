"""Containers: ``Sequential`` and ``ModuleList``. Task 5.4.

A plain Python list of layers is invisible to ``Module.__setattr__``: ``self.layers =
[Linear(2, 3)]`` stores a list, so ``parameters()`` never sees the Linear inside it (PyTorch
behaves the same way). The containers are Modules whose children are registered under the
names ``"0"``, ``"1"``, …, which is where the dotted names ``layers.0.weight`` come from::

    Sequential(a, b, c)(x)  =  c(b(a(x)))
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator
from typing import Any

from .module import Module


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

"""``device``: where a tensor's data lives. Chapter 2 knows one, the CPU; chapter 7 adds
"cuda" and a simulated device. Naming another device works here (``device("cuda:0")``);
putting data there is chapter 7's job, reached through the seams in ``tensor.py``."""

from __future__ import annotations

from typing import Any


class device:  # PyTorch's name, lower case
    """A device name: ``device("cpu")``, ``device("cuda")``, ``device("cuda", 1)``."""

    __slots__ = ("index", "type")

    def __init__(self, spec: Any, index: int | None = None) -> None:
        if isinstance(spec, device):
            spec, index = spec.type, spec.index if index is None else index
        if not isinstance(spec, str):
            raise TypeError(f"a device is named by a string such as 'cpu', not {spec!r}")
        kind, _, number = spec.partition(":")
        if number:
            if index is not None or not number.isdigit():
                raise ValueError(f"invalid device string {spec!r}")
            index = int(number)
        if not kind.isidentifier():
            raise ValueError(f"invalid device string {spec!r}")
        self.type, self.index = kind, index

    def __repr__(self) -> str:
        index = "" if self.index is None else f", index={self.index}"
        return f"device(type={self.type!r}{index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


CPU = device("cpu")

DEFAULT: dict[str, device | None] = {"device": None}
"""Where new tensors go when no ``device=`` is given: None is the CPU. Chapter 7's
``set_default_device`` changes it (as chapter 4's ``no_grad`` changes the grad mode)."""

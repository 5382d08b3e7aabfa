"""How the mapping finds the framework, and how a module re-exports another's names."""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import Any


def impl() -> str:
    """Which tree the mapping stands for: ``$SPARROW_IMPL``, else ``solutions``."""
    name = os.environ.get("SPARROW_IMPL", "").strip() or "solutions"
    if name not in ("solutions", "chapters"):
        raise ImportError(f"SPARROW_IMPL must be 'chapters' or 'solutions', not {name!r}.")
    return name


def last_chapter() -> str:
    """The package name of the course's last chapter (``autograder.course.CHAPTERS``): each
    chapter's package is the whole framework so far, so a new chapter needs no edit here."""
    from autograder.course import CHAPTERS

    return CHAPTERS[-1].package


def framework() -> ModuleType:
    """The last chapter's package: the whole framework as the course builds it."""
    return importlib.import_module(f"{impl()}.{last_chapter()}")


def reexport(namespace: dict[str, Any], module: ModuleType | None) -> None:
    """Every public name of ``module`` into ``namespace`` (names already there are kept)."""
    if module is None:
        return
    for name in dir(module):
        if not name.startswith("_") and name not in namespace:
            namespace[name] = getattr(module, name)


class MissingName(NotImplementedError):
    """A test used a name of Riemann's API that the framework does not have."""


class Missing:
    """What a mapping module answers for a name the framework lacks: importing it works (so
    one absent name does not fail every test of a file at import), using it raises
    ``MissingName`` naming it, in the test that uses it."""

    def __init__(self, qualname: str) -> None:
        self._qualname = qualname

    def _fail(self) -> MissingName:
        return MissingName(f"{self._qualname}: the framework has no such name")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise self._fail()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise self._fail()

    def __mro_entries__(self, bases: tuple) -> tuple:
        raise self._fail()

    def __repr__(self) -> str:
        return f"<missing {self._qualname}>"


def absent(module: str) -> Any:
    """A module ``__getattr__``: every public name not found is a ``Missing`` placeholder."""

    def __getattr__(name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        return Missing(f"{module}.{name}")

    return __getattr__

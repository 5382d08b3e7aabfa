"""The wire format between the child (code under test) and the parent (verdicts).

One JSON object per line. Arrays travel as NumPy ``.npy`` bytes in base64 and are read back
with ``allow_pickle=False``, so nothing the child sends can run code in the parent. Objects
that are not plain data (a student's Value where a float was expected, say) travel as their
type name and a shortened repr, which is all a report needs.
"""

from __future__ import annotations

import base64
import io
import json
from dataclasses import dataclass
from typing import Any

import numpy as np

REPR_LIMIT = 300


@dataclass(frozen=True)
class Opaque:
    """Something the child returned that is not plain data: its type and repr only."""

    type: str
    repr: str

    def __str__(self) -> str:
        return f"{self.repr} (a {self.type})"


def _npy(array: np.ndarray) -> str:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _from_npy(text: str) -> np.ndarray:
    return np.load(io.BytesIO(base64.b64decode(text)), allow_pickle=False)


def safe_repr(obj: object, limit: int = REPR_LIMIT) -> str:
    try:
        text = repr(obj)
    except BaseException as exc:  # a student's __repr__ may raise anything
        text = f"<{type(obj).__name__} whose repr raised {type(exc).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _default(obj: Any) -> Any:
    """What ``json`` cannot write itself: arrays, NumPy scalars, and other objects."""
    if isinstance(obj, np.ndarray) and obj.dtype != object:
        return {"__ndarray__": _npy(obj)}
    if isinstance(obj, np.generic) and not isinstance(obj, np.object_):
        return {"__npscalar__": _npy(np.asarray(obj))}
    return {"__object__": type(obj).__name__, "repr": safe_repr(obj)}


def _hook(obj: dict) -> Any:
    if "__ndarray__" in obj:
        return _from_npy(obj["__ndarray__"])
    if "__npscalar__" in obj:
        return _from_npy(obj["__npscalar__"])[()]
    if "__object__" in obj:
        return Opaque(str(obj["__object__"]), str(obj.get("repr", "")))
    return obj


def dumps(data: Any) -> str:
    """Data → one line of JSON (tuples become lists; Python floats, ints and strings pass
    through; arrays, NumPy scalars and other objects become tagged objects)."""
    return json.dumps(data, allow_nan=True, separators=(",", ":"), default=_default)


def loads(line: str | bytes) -> Any:
    """One line of JSON → data, with the tagged objects turned back into arrays and
    ``Opaque`` values. Never unpickles anything."""
    return json.loads(line, object_hook=_hook)

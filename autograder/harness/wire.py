"""The wire format between the child (code under test) and the parent (verdicts).

One JSON object per line. The parent sends a ``Plan``; the messages back are the records
below, each named once: ``Ready`` (or ``ImportFailed``), then ``Begin`` and ``End`` around
each check, then ``Done``; ``Seen``, anywhere, when the child saw the code under test do
something an instructor should review (read the grader's frames, replace a grader function).
An ``End`` carries one ``Outcome`` per case: the program's data, or how it raised
(``Raised``). ``decode`` reads a line back into its record and refuses anything else.

Arrays travel as NumPy ``.npy`` bytes in base64 and are read back with
``allow_pickle=False``, so nothing the child sends can run code in the parent. Objects that
are not plain data (a student's Value where a float was expected, say) travel as their type
name and a shortened repr, which is all a report needs.
"""

from __future__ import annotations

import base64
import json
import math
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypedDict

import numpy as np

REPR_LIMIT = 300


@dataclass(frozen=True)
class Opaque:
    """Something the child returned that is not plain data: its type and repr only."""

    type: str
    repr: str

    def __str__(self) -> str:
        return f"{self.repr} (a {self.type})"


ARRAY_KINDS = "biufcUS"  # the dtypes an array may have on the wire: no objects, no records


def _npy(array: np.ndarray) -> dict:
    """An array as its dtype, shape and bytes (C order)."""
    if array.dtype.kind not in ARRAY_KINDS:
        raise ValueError(f"an array of dtype {array.dtype} cannot be sent")
    data = base64.b64encode(np.ascontiguousarray(array).tobytes()).decode("ascii")
    return {"dtype": array.dtype.str, "shape": list(array.shape), "data": data}


def _from_npy(record: Any) -> np.ndarray:
    """The array ``_npy`` wrote, checked: a known dtype (never an object: nothing is
    unpickled), whole sizes, and exactly the bytes they need. Not ``numpy.load``: its header
    parser is ``ast.literal_eval``, whose state CPython 3.11 shares between threads, so two
    threads decoding at once (two gradings in one process) could fail with SystemError."""
    if not isinstance(record, dict) or set(record) != {"dtype", "shape", "data"}:
        raise ValueError("an array is {dtype, shape, data}")
    dtype, shape = np.dtype(str(record["dtype"])), record["shape"]
    if dtype.kind not in ARRAY_KINDS:
        raise ValueError(f"an array of dtype {dtype} cannot be received")
    if not isinstance(shape, list) or not all(type(n) is int and n >= 0 for n in shape):
        raise ValueError(f"an array's shape is whole sizes, not {shape!r}")
    data = base64.b64decode(str(record["data"]), validate=True)
    if len(data) != math.prod(shape) * dtype.itemsize:
        raise ValueError(f"an array of shape {shape} and dtype {dtype} with {len(data)} bytes")
    return np.frombuffer(data, dtype=dtype).reshape(shape).copy()


def safe_repr(obj: object, limit: int = REPR_LIMIT) -> str:
    try:
        text = repr(obj)
    except BaseException as exc:  # a student's __repr__ may raise anything
        text = f"<{type(obj).__name__} whose repr raised {type(exc).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _default(obj: Any) -> Any:
    """What ``json`` cannot write itself: arrays, NumPy scalars, and other objects."""
    if isinstance(obj, np.ndarray) and obj.dtype.kind in ARRAY_KINDS:
        return {"__ndarray__": _npy(obj)}
    if isinstance(obj, np.generic) and obj.dtype.kind in ARRAY_KINDS:
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


def private_dumps() -> Any:
    """``dumps`` made only of references taken now: the C encoder and every function and
    type the conversion of arrays and other objects calls, held in a closure. The child builds
    it before it imports the code under test, so replacing ``wire.dumps``, ``json``,
    ``base64`` or NumPy's functions afterwards changes nothing it writes. (Its output is
    ``dumps``'s, byte for byte.)"""
    from json import encoder as json_encoder

    make, ascii_text = json_encoder.c_make_encoder, json_encoder.encode_basestring_ascii
    ndarray, generic, asarray = np.ndarray, np.generic, np.asarray
    contiguous, b64 = np.ascontiguousarray, base64.b64encode
    isinstance_, type_, list_, repr_, len_ = isinstance, type, list, repr, len
    base_exception, value_error, kinds, limit = BaseException, ValueError, ARRAY_KINDS, REPR_LIMIT

    def npy(array: Any) -> dict:
        if array.dtype.kind not in kinds:
            raise value_error(f"an array of dtype {array.dtype} cannot be sent")
        data = b64(contiguous(array).tobytes()).decode("ascii")
        return {"dtype": array.dtype.str, "shape": list_(array.shape), "data": data}

    def shown(obj: object) -> str:
        try:
            text = repr_(obj)
        except base_exception as exc:
            text = f"<{type_(obj).__name__} whose repr raised {type_(exc).__name__}>"
        return text if len_(text) <= limit else text[: limit - 3] + "..."

    def default(obj: Any) -> Any:
        if isinstance_(obj, ndarray) and obj.dtype.kind in kinds:
            return {"__ndarray__": npy(obj)}
        if isinstance_(obj, generic) and obj.dtype.kind in kinds:
            return {"__npscalar__": npy(asarray(obj))}
        return {"__object__": type_(obj).__name__, "repr": shown(obj)}

    if make is None:  # no C accelerator (not CPython): the module's encoder, as it is now
        encoder = json.JSONEncoder(allow_nan=True, separators=(",", ":"), default=default)
        return encoder.encode
    iterencode, join = make(None, default, ascii_text, None, ":", ",", False, False, True), "".join

    def dumps(data: Any) -> str:
        return join(iterencode(data, 0))

    return dumps


def loads(line: str | bytes) -> Any:
    """One line of JSON → data, with the tagged objects turned back into arrays and
    ``Opaque`` values. Never unpickles anything."""
    return json.loads(line, object_hook=_hook)


# -- the plan (parent to child) and the messages (child to parent) -------------------------


class PlannedItem(TypedDict):
    """One check for the child: its id, its program (``module:function``) and the inputs of
    each case."""

    id: str
    program: str
    cases: list[dict[str, Any]]


class _PlanOptions(TypedDict, total=False):
    device: str  # run the programs with new tensors on this device ("sim", "cuda")


class Plan(_PlanOptions):
    """What the parent sends the child: the package to import and the checks to run (and,
    optionally, the device the programs' tensors go to)."""

    target: str
    checks: list[PlannedItem]


class Frame(TypedDict):
    """One frame of a traceback inside the code under test (``child._frames``)."""

    path: str  # under chapters/, e.g. "ch02_tensor/matmul.py"
    line: int
    function: str  # its qualified name, e.g. "MatMul.backward"


class Raised(TypedDict, total=False):
    """An exception the code under test raised, as the child describes it."""

    type: str  # its class's name
    message: str
    where: str  # the file and line under chapters/ it came from
    not_started: str  # the task id of a stub's NotImplementedError("Task N.k: …")
    frames: list[Frame]  # the traceback under chapters/, innermost last
    device: str  # setting up this device failed (checks on a device), not an import


class Outcome(TypedDict, total=False):
    """One case's result: either ``value`` (what the program returned) or ``raised``."""

    value: Any
    raised: Raised


@dataclass(frozen=True)
class Ready:
    """The code under test imported; the checks follow."""

    name: ClassVar[str] = "ready"


@dataclass(frozen=True)
class ImportFailed:
    """Importing the code under test raised ``error``; nothing else follows."""

    error: Raised
    name: ClassVar[str] = "import_error"


@dataclass(frozen=True)
class Begin:
    """The check ``id`` starts."""

    id: str
    name: ClassVar[str] = "begin"


@dataclass(frozen=True)
class End:
    """The check ``id`` finished: one outcome per case, and what the code printed."""

    id: str
    printed: str = ""
    results: list[Outcome] = field(default_factory=list)  # last: the child writes them as
    name: ClassVar[str] = "end"  # each case's JSON text, after the rest


@dataclass(frozen=True)
class Done:
    """Every planned check has run."""

    name: ClassVar[str] = "done"


@dataclass(frozen=True)
class Restart:
    """The check just ended left threads of the code under test running: this child ends
    (and they with it), and the checks left run in a fresh one, so no later check is charged
    for them."""

    name: ClassVar[str] = "restart"


@dataclass(frozen=True)
class Seen:
    """The child saw the code under test do ``what`` (during check ``id``, or while it was
    imported when None), something an instructor should review: it may come at any point,
    and the run goes on."""

    what: str
    id: str | None = None
    name: ClassVar[str] = "seen"


Event = Ready | ImportFailed | Begin | End | Done | Restart | Seen
_EVENTS: dict[str, type] = {
    e.name: e for e in (Ready, ImportFailed, Begin, End, Done, Restart, Seen)
}


def encode(event: Event) -> str:
    """The line that carries ``event`` (without its newline)."""
    return dumps({"event": event.name, **vars(event)})


def decode(line: str | bytes) -> Event:
    """The record one line carries. Raises (ValueError, or what ``loads`` raises on a line
    that is not JSON) for anything that is not one of them."""
    data = loads(line)
    name = data.get("event") if isinstance(data, dict) else None
    kind = _EVENTS.get(name) if isinstance(name, str) else None
    if kind is None:
        raise ValueError(f"not a message: {str(line)[:40]!r}")
    fields = {k: v for k, v in data.items() if k != "event"}
    if kind is End:
        results = fields.get("results", [])
        if not isinstance(results, list) or not all(_outcome(r) for r in results):
            raise ValueError("an 'end' whose results are not one outcome per case")
        fields["printed"] = str(fields.get("printed", ""))
    if kind in (Begin, End):
        fields["id"] = str(fields.get("id"))
    if kind is ImportFailed and not isinstance(fields.get("error"), dict):
        raise ValueError("an 'import_error' without its error")
    if kind is Seen:
        check = fields.get("id")
        fields = {
            "what": str(fields.get("what", ""))[:300],
            "id": None if check is None else str(check),
        }
    try:
        return kind(**fields)
    except TypeError as exc:  # a field the record does not have
        raise ValueError(str(exc)) from None


def _outcome(item: Any) -> bool:
    return isinstance(item, dict) and (
        set(item) == {"value"} or (set(item) == {"raised"} and isinstance(item["raised"], dict))
    )

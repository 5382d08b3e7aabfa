"""The check-writing interface: a check is a program plus a seeded list of cases.

A chapter's checks are a package (``autograder/checks/<chapter>/`` for public checks): its
``__init__`` defines ``CHECKS``, a list of ``Check``, and its ``programs.py`` holds the
programs::

    Check(
        task="1.3",                       # the task table's id
        name="a * b",                     # shown in reports
        cases=mul_cases,                  # rng -> [Case(label, inputs, expected)], small first
        program=programs.mul,             # runs in the child: program(sp, **inputs) -> data
        verdict=close(rtol=1e-6),         # runs in the parent: (case, data) -> None | message
    )

``program`` is the only part that touches the code under test (``sp`` is the chapter's
package), and ``programs.py`` is the only file of the checks that the child receives: it
must be a top-level function there, importing nothing but the standard library and NumPy.
It returns plain data (numbers, strings, lists, dicts, NumPy arrays) and decides nothing.
``cases`` and ``verdict`` run in the parent, where the code under test cannot reach:
expected values come from the autograder's own NumPy code and float64 numerical derivatives
(``gradcheck``), never from the student's functions, and the seed never leaves the parent.
The course repository's autograder guide has a worked example.
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .language import WIDE, Text, say, tr
from .wire import Opaque

# a verdict: None (the case passes), the problem in words, or a problem another task causes
Verdict = Callable[["Case", Any], "str | Blocked | None"]


@dataclass(frozen=True)
class Case:
    """One input of a check. ``label`` is what a student reads in the report, so it should
    describe the input the way the notebook would ("Value(2.0) * Value(-3.0), out.grad = 0.5").
    ``inputs`` go to the child as keyword arguments of the program. ``expected`` stays in the
    parent; the verdict reads it. The label is a ``Text`` (``{"en": …, "zh": …}`` where it
    has words; code alone is a plain string): ``shown()`` is the label in the learner's
    language."""

    label: Text
    inputs: Mapping[str, Any] = field(default_factory=dict)
    expected: Any = None

    def shown(self) -> str:
        return say(self.label)


@dataclass(frozen=True)
class Check:
    task: str
    name: str
    cases: Callable[[np.random.Generator], Sequence[Case]]
    program: Callable[..., Any]
    verdict: Verdict = None  # type: ignore[assignment]  # default: close()
    # tasks whose code this check cannot avoid running; when one fails too, the check is
    # rerun with the chapter's stand-in for it (``blame.py``) to tell whose bug it met
    requires: tuple[str, ...] = ()
    id: str = ""  # how hidden rows point at it (``table.Hidden``); default: its name
    since: str = "1.0"  # the course version it arrived in, or was last tightened in
    # the name in the course's other languages ({"zh": …}); ``name`` is the English one and
    # the check's identity (its case stream, the hidden rows' ``id``), so it never changes
    title: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.verdict is None:
            object.__setattr__(self, "verdict", close())
        if not self.id:
            object.__setattr__(self, "id", self.name)

    def shown(self) -> str:
        """The check's name in the learner's language."""
        return say({"en": self.name, **self.title})

    def make_cases(self, seed: int) -> list[Case]:
        """The case list for a seed; each check draws from its own stream, so adding a check
        never changes another's cases."""
        stream = zlib.crc32(f"{self.task}/{self.name}".encode())
        return list(self.cases(np.random.default_rng([seed, stream])))


# -- verdicts ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Blocked:
    """A verdict's problem that blames another task: ``Blocked("2.2", "…")``. The check is
    reported as blocked by task ``task`` (and earns nothing), as when it ``requires`` a
    failing task; for code the check cannot avoid that another chapter's task is responsible
    for (chapter 3's op checks run the student's chapter-2 backward in student mode).
    ``message`` is what the report shows."""

    task: str
    message: str

    def __str__(self) -> str:
        return self.message


def show(value: Any) -> str:
    """A value as a report prints it."""
    if isinstance(value, Opaque):
        return str(value)
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.8g}"
    if isinstance(value, np.ndarray):
        body = np.array2string(value, precision=6, threshold=20, edgeitems=3)
        return f"array({body}, shape={value.shape}, dtype={value.dtype})"
    if isinstance(value, (list, tuple)) and len(value) > 12:
        return f"[{', '.join(show(v) for v in value[:10])}, ... ({len(value)} items)]"
    return repr(value)


def is_number(value: Any) -> bool:
    """Whether ``value`` is a real number (Python or NumPy), not a bool."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_)
    )


def all_numbers(values: Any) -> bool:
    """Whether ``values`` is a list or tuple of numbers (``is_number``)."""
    return isinstance(values, (list, tuple)) and all(map(is_number, values))


_WIDE = re.compile(f"[{WIDE}]")  # a Chinese name is followed by "："


def compare(
    received: Any, expected: Any, *, rtol: float, atol: float, path: str = ""
) -> str | None:
    """None when ``received`` matches ``expected``, else a message naming the first place
    where they differ. Numbers match within ``atol + rtol·|expected|``; dicts, lists and
    arrays match element by element; anything else must be equal."""
    where = (f"{path}：" if _WIDE.search(path) else f"{path}: ") if path else ""
    if isinstance(expected, Mapping):
        if not isinstance(received, Mapping):
            return where + tr(
                f"expected a mapping, received {show(received)}",
                f"期望一个映射（dict），实际收到 {show(received)}",
            )
        for key, value in expected.items():
            if key not in received:
                return where + tr(f"missing {key!r}", f"缺少 {key!r}")
            sub = f"{path}.{key}" if path else str(key)
            problem = compare(received[key], value, rtol=rtol, atol=atol, path=sub)
            if problem:
                return problem
        return None
    if isinstance(expected, np.ndarray):
        if not isinstance(received, np.ndarray):
            return where + tr(
                f"expected an array of shape {expected.shape}, received {show(received)}",
                f"期望形状为 {expected.shape} 的数组，实际收到 {show(received)}",
            )
        if received.shape != expected.shape:
            return where + tr(
                f"expected shape {expected.shape}, received shape {received.shape}",
                f"期望形状 {expected.shape}，实际形状 {received.shape}",
            )
        if not np.allclose(received, expected, rtol=rtol, atol=atol, equal_nan=True):
            return (
                where
                + _differs(expected, received)
                + _relation(received, expected, rtol, atol)
                + _largest(received, expected)
            )
        return None
    if isinstance(expected, (list, tuple)) and len(expected) > 100 and all_numbers(received):
        expected, received = np.asarray(expected, float), np.asarray(received, float)
        if expected.shape == received.shape:
            bad = ~np.isclose(received, expected, rtol=rtol, atol=atol, equal_nan=True)
            if bad.any():
                i = int(np.argmax(bad))
                return f"{path}[{i}]: " + _differs(expected[i], received[i])
            return None
    if isinstance(expected, (list, tuple)):
        if not isinstance(received, (list, tuple)):
            return where + tr(
                f"expected a list of {len(expected)}, received {show(received)}",
                f"期望长度为 {len(expected)} 的列表，实际收到 {show(received)}",
            )
        if len(received) != len(expected):
            return where + tr(
                f"expected {len(expected)} items, received {len(received)}",
                f"期望 {len(expected)} 项，实际收到 {len(received)} 项",
            )
        for i, (r, e) in enumerate(zip(received, expected)):
            problem = compare(r, e, rtol=rtol, atol=atol, path=f"{path}[{i}]")
            if problem:
                return problem
        return None
    if is_number(expected):
        if not is_number(received):
            return where + tr(
                f"expected the number {show(expected)}, received {show(received)}",
                f"期望数值 {show(expected)}，实际收到 {show(received)}",
            )
        e, r = float(expected), float(received)
        if (math.isnan(e) and math.isnan(r)) or e == r:  # nan, and inf against inf
            return None
        if not abs(r - e) <= atol + rtol * abs(e):
            return where + _differs(e, r) + _relation(r, e, rtol, atol)
        return None
    if received != expected or type(received) is not type(expected):
        return where + _differs(expected, received)
    return None


def _differs(expected: Any, received: Any) -> str:
    """ "expected …, received …" in the learner's language."""
    return tr(
        f"expected {show(expected)}, received {show(received)}",
        f"期望 {show(expected)}，实际收到 {show(received)}",
    )


# what a wrong result can be, exactly, of the expected one: (factor, words)
RELATIONS: tuple[tuple[float, Text], ...] = (
    (2.0, {"en": "exactly twice the expected value", "zh": "恰好是期望值的两倍"}),
    (0.5, {"en": "exactly half the expected value", "zh": "恰好是期望值的一半"}),
    (-1.0, {"en": "exactly the negative of the expected value", "zh": "恰好是期望值的相反数"}),
    (-2.0, {"en": "exactly minus twice the expected value", "zh": "恰好是期望值的负两倍"}),
    (-0.5, {"en": "exactly minus half the expected value", "zh": "恰好是期望值的负一半"}),
)


def _relation(received: Any, expected: Any, rtol: float, atol: float) -> str:
    """ " (received exactly twice the expected value)" where the received number or array is
    one of ``RELATIONS`` times the expected one (within the tolerances), else ""."""
    try:
        r, e = np.asarray(received, dtype=np.float64), np.asarray(expected, dtype=np.float64)
        if r.shape != e.shape or not np.isfinite(e).all() or not np.any(np.abs(e) > atol):
            return ""
        for factor, words in RELATIONS:
            if np.allclose(r, factor * e, rtol=rtol, atol=atol):
                return tr(f" (received {say(words)})", f"（实际收到的值{say(words)}）")
    except (TypeError, ValueError):
        pass
    return ""


def _largest(received: np.ndarray, expected: np.ndarray) -> str:
    """ " (largest difference 1.2e-06 at [1])" where two arrays of one shape look alike: every
    element within 10⁻⁴ (relative) of the expected one, or the same printout (the
    differences rounded away, or inside a "..."); else ""."""
    try:
        r, e = np.asarray(received, dtype=np.float64), np.asarray(expected, dtype=np.float64)
        alike = np.allclose(r, e, rtol=1e-4, atol=1e-6, equal_nan=True)
        if not alike and show(received).split(", shape=")[0] != show(expected).split(", shape=")[0]:
            return ""
        with np.errstate(invalid="ignore"):
            diff = np.abs(r - e)
        diff = np.where((r == e) | (np.isnan(r) & np.isnan(e)), 0.0, diff)
        diff = np.where(np.isnan(diff), np.inf, diff)  # a nan against a number
        at = np.unravel_index(int(np.argmax(diff)), diff.shape)
        size = f"{float(diff[at]):.2g}"
        if not at:
            return tr(f" (largest difference {size})", f"（最大差值 {size}）")
        index = f"[{', '.join(map(str, at))}]"
        return tr(f" (largest difference {size} at {index})", f"（最大差值 {size}，位于 {index}）")
    except (TypeError, ValueError):
        return ""


def close(rtol: float = 1e-6, atol: float = 1e-9) -> Verdict:
    """The usual verdict: the data equals ``case.expected`` within tolerances."""

    def verdict(case: Case, received: Any) -> str | None:
        return compare(received, case.expected, rtol=rtol, atol=atol)

    return verdict

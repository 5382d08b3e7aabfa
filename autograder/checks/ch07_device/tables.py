"""Three forms the chapter's declarations use that ``harness/table.py`` lacks (to move there):
``rules`` (Rules rows whose words are templates of the record and the case), ``each`` (a
verdict on each part of a record, as a case of its own) and ``where`` (a verdict for the
cases that ask for it)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ...harness.api import Case, Verdict
from ...harness.table import Rules


def rules(*rows: tuple) -> Rules:
    """``Rules.of`` whose words may be templates: "{got[error]}" is the record's,
    "{want[count]}" the case's expected value, "{case.inputs[name]}" the case's."""

    def words(template: str) -> Callable[[Case, Any], str]:
        return lambda case, got: template.format(got=got, want=case.expected, case=case)

    return Rules.of(*((when, words(s) if isinstance(s, str) else s) for when, s in rows))


def each(parts: Callable[[Case, Any], Iterable[tuple[Case, Any]]], verdict: Verdict) -> Verdict:
    """``verdict`` on each part of a record (a case of its own, its record), in order: the
    first problem."""
    return lambda case, got: next(filter(None, (verdict(c, r) for c, r in parts(case, got))), None)


def where(holds: Callable[[Case], bool], verdict: Verdict) -> Verdict:
    """``verdict`` for the cases where ``holds(case)``; the others pass."""
    return lambda case, got: verdict(case, got) if holds(case) else None

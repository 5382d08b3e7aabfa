"""A chapter's checks as one table: each entry declares its program, its verdict, what it
``requires`` and its public rows; hidden checks are rows pointing at those entries by id.

A declared verdict (``Fields``) names the result fields a program returns, each with its
tolerances, and a table of known mistakes: the field, the wrong formula (computed here, in
the parent, from the case) and the words that name it. Verdict code that is not such a
declaration should be rare and short; ``Fields(..., then=...)`` keeps it next to the
declaration it completes.

Every text a student reads is in both languages (``autograder/language.py``): a stored one is
a ``Text``, ``{"en": …, "zh": …}``, read with ``say``; one a function writes when it runs is
``tr(en, zh)``. A mistake's ``says`` is the diagnosis a report shows; its ``recipe`` (the fix, step
by step) is kept for when a student asks for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .api import Case, Check, Verdict, compare, show
from .language import Text, language, say, tr

# -- cases ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rows:
    """A check's cases: builders called with the check's rng, in order."""

    builders: Sequence[Callable[[np.random.Generator], Case]] = ()

    def __call__(self, rng: np.random.Generator) -> list[Case]:
        return [build(rng) for build in self.builders]

    @classmethod
    def of(cls, *cases: Case) -> Rows:
        """Rows of fixed cases, which draw nothing."""
        return cls([lambda rng, case=case: case for case in cases])


def row(make: Callable[..., Case], *args: Any, **kwargs: Any) -> Callable[..., Case]:
    """A builder of one case: ``make(rng, *args, **kwargs)``."""
    return lambda rng: make(rng, *args, **kwargs)


# -- declared verdicts ---------------------------------------------------------------------


def record(received: Any, keys: Iterable[str]) -> str | None:
    """None when ``received`` is the program's record (a dict holding ``keys``)."""
    if not isinstance(received, dict) or not all(k in received for k in keys):
        return tr(
            f"expected the program's record, received {show(received)}",
            f"期望程序返回的记录，实际收到 {show(received)}",
        )
    return None


_MISSING = object()


def lookup(data: Any, path: str, attributes: bool = False) -> Any:
    """``data["a"][0]["b"]`` for the path "a.0.b": keys of mappings and indices of lists,
    and with ``attributes`` the attributes of other objects (an expected value's dataclass);
    a missing one: ``_MISSING``."""
    for key in path.split("."):
        if isinstance(data, Mapping):
            data = data.get(key, _MISSING)
        elif isinstance(data, (list, tuple)) and key.isdigit():
            data = data[int(key)] if int(key) < len(data) else _MISSING
        else:
            data = getattr(data, key, _MISSING) if attributes else _MISSING
        if data is _MISSING:
            return _MISSING
    return data


@dataclass(frozen=True)
class Field:
    """One result field: ``key`` (a path in the program's record, "grads.x"), the name a
    student reads ("x.grad", or a function of the case that writes it), its tolerances (or
    ``tolerance(case)`` → (rtol, atol), where they depend on the case: float32 against
    float64), and where its expected value is (default: the same path in ``case.expected``,
    a mapping's key or a dataclass's field).

    A ``*`` in the key stands for every index of a list: "grads.*" is judged item by item,
    as "grads.0", "grads.1", … (as many as the expected list holds), and "{i}" in the name
    is the index ("params[{i}].grad")."""

    key: str
    name: Text | Callable[[Case], Text | list] | list = ""
    rtol: float = 1e-6
    atol: float = 1e-9
    expected: Callable[[Case], Any] | None = None
    tolerance: Callable[[Case], tuple[float, float] | list] | None = None
    says: Text | Callable[[Case], Text | list] | list = ""  # a difference no mistake explains
    pattern: str = ""  # set on the items of a "*" field: the key it came from

    def want(self, case: Case) -> Any:
        if self.expected:
            return self.expected(case)
        want = lookup(case.expected, self.key, attributes=True)
        if want is _MISSING:  # the declaration's mistake, not the student's
            raise LookupError(f"field {self.key!r}: the case's expected value has no such field")
        return want

    def label(self, case: Case) -> str:
        return say(self.name(case) if callable(self.name) else self.name) or self.key

    def tolerances(self, case: Case) -> tuple[float, float]:
        return self.tolerance(case) if self.tolerance else (self.rtol, self.atol)

    def items(self, case: Case, received: Any) -> list[Field] | str:
        """This field, or where its key holds a ``*``, one field per expected item (or
        what is wrong with the received list: not a list, or another length). Stars nest:
        "rows.*.lr.*" is every group's lr at every step, "{i}" and "{j}" in the name and
        the words. A name, words or tolerance written from the case may be a list nested
        as the stars nest: one per item ("params[0] after step 1 (group 0)", …)."""
        if "*" not in self.key:
            return [self]
        head, _, tail = self.key.partition("*")
        whole = self.expected(case) if self.expected else replace(self, key=head[:-1]).want(case)
        got = lookup(received, head[:-1])
        if got is not _MISSING and (not isinstance(got, (list, tuple)) or len(got) != len(whole)):
            return compare(got, [None] * len(whole), rtol=0, atol=0, path=head[:-1])
        pattern = self.pattern or self.key
        index = "{" + "ijkl"[pattern.count("*") - self.key.count("*")] + "}"
        names = self.name(case) if callable(self.name) else self.name
        words = self.says(case) if callable(self.says) else self.says
        tolerance = self.tolerance(case) if self.tolerance else None
        fields = []
        for i in range(len(whole)):
            rest = f"{i}{tail}"
            path = rest.partition("*")[0][:-1] if "*" in rest else rest
            tol = _item(tolerance, i, index)
            item = replace(
                self,
                key=f"{head}{rest}",
                name=_item(names, i, index),
                says=_item(words, i, index),
                tolerance=None if tol is None else lambda case, tol=tol: tol,
                expected=lambda case, path=path: _at(whole, path, self.key),
                pattern=pattern,
            )
            items = item.items(case, received)
            if isinstance(items, str):
                return items
            fields += items
        return fields


def _item(value: Any, i: int, index: str) -> Any:
    """Item ``i``'s part of a starred field's name, words or tolerance: the list's item, or
    the one value every item shares, "{i}" (``index``) written as the number."""
    value = value[i] if isinstance(value, list) else value
    if isinstance(value, str):
        return value.replace(index, str(i))
    if isinstance(value, Mapping):
        return {k: v.replace(index, str(i)) for k, v in value.items()}
    return value


def _at(whole: Any, path: str, key: str) -> Any:
    """The item at ``path`` of a starred field's expected list."""
    want = lookup(whole, path, attributes=True)
    if want is _MISSING:  # the declaration's mistake, not the student's
        raise LookupError(f"field {key!r}: the case's expected value has no item {path!r}")
    return want


@dataclass(frozen=True)
class Mistake:
    """A known mistake: where ``field`` differs from its expected value and equals
    ``wrong(case)`` (within the field's tolerances), the report adds ``says`` (a text, or a
    function of the case that writes one). ``wrong`` returns None (or raises) where the
    mistake cannot be told apart in that case."""

    field: str
    wrong: Callable[[Case], Any]
    says: Text | Callable[[Case], Text]
    recipe: Text = ""  # the fix, step by step, shown on request (hint stages)

    def words(self, case: Case) -> str:
        return say(self.says(case) if callable(self.says) else self.says)


@dataclass(frozen=True)
class Fields:
    """A declared verdict: ``before`` (a short verdict of its own, if any), then each field
    compared in order, the first difference reported with the known mistake it matches;
    then ``then``, if any. A record that stops short fails at its first missing field, so
    the fields before it are still judged (a program that met the wrong type returns that
    alone)."""

    fields: Sequence[Field]
    mistakes: Sequence[Mistake] = ()
    then: Verdict | None = None
    before: Verdict | None = None
    keys: Sequence[str] = ()  # other keys the record must hold (flags ``then`` reads)

    def __call__(self, case: Case, received: Any) -> str | None:
        problem = record(received, self.keys)
        if problem:
            return problem
        problem = self.before(case, received) if self.before else None
        if problem:
            return problem
        fields = []
        for declared in self.fields:
            items = declared.items(case, received)
            if isinstance(items, str):  # a "*" field's list is no list, or of another length
                return items
            fields += items
        for f in fields:
            got = lookup(received, f.key)
            if got is _MISSING:
                return record(received, [f.key.split(".")[0]]) or tr(
                    f"{f.label(case)}: missing from the program's record",
                    f"{f.label(case)}：程序返回的记录里没有这一项",
                )
            rtol, atol = f.tolerances(case)
            problem = compare(got, f.want(case), rtol=rtol, atol=atol, path=f.label(case))
            if problem:
                return _then(problem, self.diagnosis(case, f, got))
        return self.then(case, received) if self.then else None

    def diagnosis(self, case: Case, f: Field, got: Any) -> str:
        """ " (<the words>)" of the first mistake of ``f`` that ``got`` matches, else "".
        A mistake of a "*" field gives the whole wrong list; the item is compared."""
        rtol, atol = f.tolerances(case)
        for mistake in self.mistakes:
            if mistake.field not in (f.key, f.pattern):
                continue
            try:
                wrong = mistake.wrong(case)
                if mistake.field == f.pattern and wrong is not None:
                    wrong = lookup(wrong, f.key[len(f.pattern.partition("*")[0]) :])
            except Exception:  # a formula that does not apply to this case
                continue
            if (
                wrong is not None
                and wrong is not _MISSING
                and compare(got, wrong, rtol=rtol, atol=atol) is None
            ):
                return _aside(mistake.words(case))
        says = f.says(case) if callable(f.says) else f.says
        return _aside(say(says)) if says else ""


def _aside(words: str) -> str:
    """ " (words)", in Chinese "（words）"."""
    return tr(f" ({words})", f"（{words}）")


def _then(problem: str, aside: str) -> str:
    """``problem`` and the ``aside`` after it; in Chinese two asides in a row are one,
    "（a；b）", not "（a）（b）"."""
    if problem.endswith("）") and aside.startswith("（"):
        return f"{problem[:-1]}；{aside[1:]}"
    return problem + aside


@dataclass(frozen=True)
class Rule:
    """A row of a ``Rules`` verdict: where ``when(case, received)`` holds, the case fails
    with ``says`` (a text, or a function of the case and the record that writes one; None:
    the case passes, and no later row is asked)."""

    when: Callable[[Case, Any], Any]
    says: Text | Callable[[Case, Any], Text] | None
    recipe: Text = ""  # the fix, step by step, shown on request (hint stages)


@dataclass(frozen=True)
class Rules:
    """A verdict that is a table of (condition → words): the first rule that holds names
    the problem; none: the case passes. For what a property names better than a value
    (a flag set, an object shared, a call made twice). The record must hold ``keys``.

    Made with ``rules(...)``, the words are templates: "{0}", "{1}", … what ``when``
    found (a tuple, or one value), "{got[error]}" the record's, "{want[count]}" or
    "{want.count}" the case's expected value, "{case.inputs[name]}" the case's, and
    "{name}" what ``facts(case, got)`` derives (a mapping; words instead: the verdict)."""

    rules: Sequence[Rule]
    keys: Sequence[str] = ()
    facts: Callable[[Case, Any], Any] | None = None
    templates: bool = False

    @classmethod
    def of(cls, *rows: tuple) -> Rules:
        """Rules from (when, says[, recipe]) rows, one a line (words as they are)."""
        return cls([Rule(*row) for row in rows])

    def __call__(self, case: Case, received: Any) -> str | None:
        problem = record(received, self.keys) if self.keys else None
        if problem:
            return problem
        derived = self.facts(case, received) if self.facts else {}
        if not isinstance(derived, Mapping):
            return derived
        for r in self.rules:
            found = r.when(case, received)
            if not found:  # (a found 0 is no finding: return it in a tuple)
                continue
            if r.says is None:
                return None
            if callable(r.says):
                return say(r.says(case, received))
            if not self.templates:
                return say(r.says)
            found = found if isinstance(found, tuple) else (found,)
            return say(r.says).format(
                *found, got=received, want=case.expected, case=case, **derived
            )
        return None


def rules(
    *rows: tuple,
    keys: Sequence[str] = (),
    facts: Callable[[Case, Any], Any] | None = None,
) -> Rules:
    """``Rules`` from (when, words[, recipe]) rows whose words are templates (see Rules)."""
    return Rules([Rule(*row) for row in rows], keys, facts, templates=True)


def first(*verdicts: Verdict | None) -> Verdict:
    """One verdict from several, judged in order: the first problem any of them finds."""

    def verdict(case: Case, received: Any) -> Any:
        for v in verdicts:
            problem = v(case, received) if v else None
            if problem:
                return problem
        return None

    return verdict


def each(parts: Callable[[Case, Any], Iterable[tuple[Case, Any]]], verdict: Verdict) -> Verdict:
    """``verdict`` on each part of a record (a case of its own, its record), in order: the
    first problem."""
    return lambda case, got: next(filter(None, (verdict(c, r) for c, r in parts(case, got))), None)


def where(holds: Callable[[Case], bool], verdict: Verdict) -> Verdict:
    """``verdict`` for the cases where ``holds(case)``; the others pass."""
    return lambda case, got: verdict(case, got) if holds(case) else None


# -- hidden checks as rows -----------------------------------------------------------------


@dataclass(frozen=True)
class Hidden:
    """A hidden check: other ``cases`` for the public entry ``of`` (its id), run by its
    program and judged by its verdict, with its ``requires``. ``name`` defaults to the
    public name with " (hidden)"; ``title`` its other languages' (default: the public
    entry's, marked hidden likewise). A hidden check with a program of its own gives it here,
    with its verdict and requires, and says ``why`` it needs one."""

    of: str
    cases: Callable[[np.random.Generator], Sequence[Case]]
    name: str = ""
    since: str = ""  # default: the public entry's
    program: Callable[..., Any] | None = None
    verdict: Verdict | None = None
    requires: tuple[str, ...] | None = None
    why: str = ""
    title: Mapping[str, str] | None = None


HIDDEN = {"en": " (hidden)", "zh": "（隐藏）"}


def hidden_checks(public: Sequence[Check], rows: Sequence[Hidden | Check]) -> list[Check]:
    """The checks ``rows`` declare, each a public entry's (by ``Check.id``) with other
    cases. A row that is a whole ``Check`` already (a program no public check has) stays."""
    by_id = {c.id: c for c in public}
    if len(by_id) != len(public):
        twice = sorted({c.id for c in public if sum(d.id == c.id for d in public) > 1})
        raise ValueError(f"public checks share the ids {twice}: give each an id of its own")
    checks = []
    for r in rows:
        if isinstance(r, Check):
            checks.append(r)
            continue
        if r.of not in by_id:
            raise KeyError(f"hidden row {r.name or r.of!r}: no public check has the id {r.of!r}")
        base = by_id[r.of]
        if r.program is not None and not r.why:
            raise ValueError(f"hidden row {r.of!r} has a program of its own: say why")
        checks.append(
            replace(
                base,
                name=r.name or f"{base.name}{HIDDEN['en']}",
                title=r.title or {}
                if r.title is not None or r.name
                else {k: v + HIDDEN.get(k, HIDDEN["en"]) for k, v in base.title.items()},
                cases=r.cases,
                id=f"{base.id} (hidden)" if not r.name else r.name,
                since=r.since or base.since,
                program=r.program or base.program,
                verdict=r.verdict or base.verdict,
                requires=base.requires if r.requires is None else r.requires,
            )
        )
    return checks


__all__ = [
    "Field",
    "Fields",
    "Hidden",
    "Mistake",
    "Rows",
    "Rule",
    "Rules",
    "Text",
    "each",
    "first",
    "hidden_checks",
    "language",
    "lookup",
    "record",
    "row",
    "rules",
    "say",
    "tr",
    "where",
]

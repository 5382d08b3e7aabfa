"""The check table (``autograder/harness/table.py``): declared verdicts, hidden rows, texts;
and the table's contracts over every chapter: ids unique, hidden rows resolved to their
public entries, versions known."""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass

import numpy as np
import pytest

from autograder import versions
from autograder.course import CHAPTERS
from autograder.harness.api import Case, Check
from autograder.harness.table import (
    Field,
    Fields,
    Hidden,
    Mistake,
    Rows,
    Rule,
    Rules,
    each,
    first,
    hidden_checks,
    lookup,
    record,
    rules,
    say,
    where,
)


def _square(sp, a: float) -> dict:  # a stand-in program: never run here
    return {}


@dataclass(frozen=True)
class Want:
    out: float
    grad: float


SQUARE = Fields(
    [Field("out", "out.data"), Field("grad", "x.grad", rtol=1e-9, atol=1e-12)],
    mistakes=[
        Mistake("grad", lambda case: case.inputs["a"], "one contribution of two: add, not assign"),
        Mistake("grad", lambda case: 1 / 0, "never told: it raises"),
        Mistake("grad", lambda case: None, "never told: None"),
        Mistake("out", lambda case: -case.expected.out, lambda case: f"sign of {case.label}"),
    ],
)
CASE = Case("x * x at 3", {"a": 3.0}, Want(9.0, 6.0))


def test_a_declared_verdict_compares_each_field_and_names_a_known_mistake() -> None:
    assert SQUARE(CASE, {"out": 9.0, "grad": 6.0}) is None
    assert SQUARE(CASE, {"out": 9.0, "grad": 6.0 + 1e-7}) is not None  # its own tolerance
    problem = SQUARE(CASE, {"out": 9.0, "grad": 3.0})
    assert problem.startswith("x.grad: expected 6, received 3")
    assert problem.endswith("(one contribution of two: add, not assign)")
    assert SQUARE(CASE, {"out": 9.0, "grad": 5.0}) == "x.grad: expected 6, received 5"
    with pytest.raises(LookupError, match="no such field"):
        Fields([Field("outt")])(CASE, {"outt": 1.0})
    assert SQUARE(CASE, {"out": -9.0, "grad": 6.0}).endswith("(sign of x * x at 3)")


def test_a_short_record_is_judged_up_to_its_first_missing_field() -> None:
    assert SQUARE(CASE, {"out": 8.0}).startswith("out.data: expected 9")
    assert "expected the program's record" in SQUARE(CASE, {"out": 9.0})
    assert "expected the program's record" in SQUARE(CASE, [9.0, 6.0])
    with_keys = Fields([Field("out")], keys=("flag",))
    assert "expected the program's record" in with_keys(CASE, {"out": 9.0})


def test_tolerances_may_depend_on_the_case_and_verdicts_compose() -> None:
    loose = Fields([Field("out", tolerance=lambda case: (1e-3, 0.0))])
    assert loose(CASE, {"out": 9.001}) is None
    assert Fields([Field("out")])(CASE, {"out": 9.001}) is not None
    flagged = Rules([Rule(lambda case, got: got.get("shared"), "one object for two tensors")])
    both = first(flagged, SQUARE)
    assert both(CASE, {"out": 9.0, "grad": 6.0, "shared": True}) == "one object for two tensors"
    assert both(CASE, {"out": 9.0, "grad": 6.0, "shared": False}) is None
    after = Fields([Field("out")], then=flagged, before=lambda case, got: None)
    assert after(CASE, {"out": 9.0, "shared": True}) == "one object for two tensors"
    pairs = Rules.of((lambda case, got: got["n"] > 1, lambda case, got: f"{got['n']} calls"))
    assert pairs(CASE, {"n": 2}) == "2 calls" and pairs(CASE, {"n": 1}) is None
    fallback = Fields([Field("out", "out.data", says="recompute it from the saved input")])
    assert fallback(CASE, {"out": 1.0}).endswith("(recompute it from the saved input)")


def test_a_starred_field_is_judged_item_by_item_with_its_index_in_the_name() -> None:
    case = Case(
        "c",
        {},
        {"grads": [np.ones(2), np.full(3, 3.0)], "rows": [{"lr": 1.0}, {"lr": 2.0}]},
    )
    verdict = Fields(
        [Field("grads.*", "params[{i}].grad"), Field("rows.*.lr", lambda case: "lr at t = {i}")],
        [
            Mistake("grads.*", lambda case: [np.ones(2), np.full(3, 5.0)], "own norm"),
            Mistake("rows.*.lr", lambda case: [{"lr": 1.0}, {"lr": 3.0}], "one step ahead"),
        ],
    )
    rows = [{"lr": 1.0}, {"lr": 2.0}]
    assert verdict(case, {"grads": [np.ones(2), np.full(3, 3.0)], "rows": rows}) is None
    problem = verdict(case, {"grads": [np.ones(2), np.full(3, 5.0)], "rows": rows})
    assert problem.startswith("params[1].grad: expected") and problem.endswith("(own norm)")
    problem = verdict(case, {"grads": [np.ones(2), np.full(3, 4.0)], "rows": rows})
    assert problem.startswith("params[1].grad: expected") and "own norm" not in problem
    assert verdict(case, {"grads": [np.ones(2)], "rows": rows}) == (
        "grads: expected 2 items, received 1"
    )
    assert "expected a list of 2" in verdict(case, {"grads": 3, "rows": rows})
    grads = [np.ones(2), np.full(3, 3.0)]
    problem = verdict(case, {"grads": grads, "rows": [{"lr": 1.0}, {"lr": 3.0}]})
    assert problem.startswith("lr at t = 1: expected 2") and problem.endswith("(one step ahead)")
    assert verdict(case, {"grads": grads, "rows": [{"lr": 1.0}, {}]}) == (
        "lr at t = 1: missing from the program's record"
    )


def test_stars_nest_and_infinities_match() -> None:
    want = [{"lr": [0.1, 0.2]}, {"lr": [0.3, math.inf]}]
    case = Case("c", {}, {"rows": want})
    verdict = Fields(
        [Field("rows.*.lr.*", "lr of group {j} at t = {i}")],
        [Mistake("rows.*.lr.*", lambda case: [{"lr": [0.1, 0.2]}, {"lr": [0.2, 0.3]}], "behind")],
    )
    assert verdict(case, {"rows": want}) is None
    problem = verdict(case, {"rows": [{"lr": [0.1, 0.2]}, {"lr": [0.2, math.inf]}]})
    assert problem.startswith("lr of group 0 at t = 1: expected 0.3") and problem.endswith(
        "(behind)"
    )
    assert verdict(case, {"rows": [{"lr": [0.1, 0.2]}, {"lr": [0.3]}]}) == (
        "rows.1.lr: expected 2 items, received 1"
    )
    missing = Fields([Field("rows.*.lr.*", expected=lambda case: [{"lr": [0.1, 0.2]}, {}])])
    with pytest.raises(LookupError):
        missing(case, {"rows": want})


def test_a_starred_fields_names_words_and_tolerances_may_be_one_per_item() -> None:
    case = Case("c", {}, {"values": [[1.0, 2.0], [3.0]]})
    verdict = Fields(
        [
            Field(
                "values.*.*",
                lambda case: [["a at 0", "b at 0"], ["a at 1"]],
                says=lambda case: ["first step", "second step {i}"],
                tolerance=lambda case: [(0.0, 0.0), (0.5, 0.0)],
            )
        ]
    )
    assert verdict(case, {"values": [[1.0, 2.0], [4.0]]}) is None  # 4 is within 50% of 3
    assert verdict(case, {"values": [[1.0, 2.5], [3.0]]}) == (
        "b at 0: expected 2, received 2.5 (first step)"
    )
    assert verdict(case, {"values": [[1.0, 2.0], [5.0]]}).endswith("(second step 1)")


def test_rules_words_are_templates_and_verdicts_run_per_part_or_where_asked() -> None:
    case = Case("c", {"name": "w"}, {"device": "sim:0"})
    verdict = rules(
        (
            lambda case, got: got["device"] != case.expected["device"],
            "{case.inputs[name]} is on {got[device]}, expected {want[device]}",
        ),
    )
    assert verdict(case, {"device": "sim:0"}) is None
    assert verdict(case, {"device": "cpu"}) == "w is on cpu, expected sim:0"
    found = rules(
        (
            lambda case, got: (got["device"], 2) if got["device"] != "sim:0" else None,
            "{0} ({1} places), expected {want[device]}",
        )
    )
    assert found(case, {"device": "cpu"}) == "cpu (2 places), expected sim:0"
    derived = rules(
        (lambda case, got: got["n"] > 2, "{n} is too many ({0})"),
        (lambda case, got: got["n"] == 2, None),  # None: the case passes, no row after it
        (lambda case, got: True, "never"),
        keys=("n",),
        facts=lambda case, got: {"n": got["n"] * 10} if got["n"] else "n is zero",
    )
    assert derived(case, {"n": 3}) == "30 is too many (True)"
    assert derived(case, {"n": 2}) is None
    assert derived(case, {"n": 0}) == "n is zero"
    assert derived(case, {}).startswith("expected the program's record")
    parts = each(lambda case, got: [(case, part) for part in got], verdict)
    assert parts(case, [{"device": "sim:0"}, {"device": "cpu"}]) == "w is on cpu, expected sim:0"
    assert parts(case, [{"device": "sim:0"}]) is None
    only = where(lambda case: case.inputs["name"] == "b", verdict)
    assert only(case, {"device": "cpu"}) is None


def test_lookup_reads_paths_through_mappings_lists_and_expected_dataclasses() -> None:
    data = {"a": [{"b": 1}, {"b": 2}]}
    assert lookup(data, "a.1.b") == 2
    assert lookup(data, "a.2.b") is lookup(data, "c")
    assert lookup(Want(1.0, 2.0), "grad", attributes=True) == 2.0
    assert lookup(Want(1.0, 2.0), "grad") is lookup(data, "c")  # a record is plain data
    assert record({"a": 1}, ["a"]) is None and record({"a": 1}, ["b"])


def test_texts_in_two_languages(monkeypatch: pytest.MonkeyPatch) -> None:
    text = {"en": "expected", "zh": "期望"}
    assert say(text) == "expected" and say("plain") == "plain"
    assert say(text, "zh") == "期望" and say({"en": "only"}, "zh") == "only"
    assert say({"zh": "只有"}) == "只有"  # never an empty message (it would pass a case)
    monkeypatch.setenv("SPARROW_LANG", "zh")
    assert say(text) == "期望"


def _cases(rng: np.random.Generator) -> list[Case]:
    return [Case(f"a = {a}", {"a": a}, Want(a * a, 2 * a)) for a in rng.uniform(1, 2, 2)]


PUBLIC = [
    Check("1.3", "x * x", _cases, _square, SQUARE, requires=("1.2",)),
    Check("1.3", "x * x again", _cases, _square, SQUARE, id="again"),
]


def test_hidden_rows_are_their_public_entries_with_other_cases() -> None:
    other = Rows.of(CASE)
    hidden = hidden_checks(PUBLIC, [Hidden("x * x", other), Hidden("again", other, "named")])
    assert [h.name for h in hidden] == ["x * x (hidden)", "named"]
    assert all(h.program is _square and h.verdict is SQUARE for h in hidden)
    assert hidden[0].requires == ("1.2",) and hidden[1].requires == ()
    assert hidden[0].make_cases(0) == [CASE]
    with pytest.raises(KeyError, match="no public check has the id"):
        hidden_checks(PUBLIC, [Hidden("x * y", other)])
    with pytest.raises(ValueError, match="say why"):
        hidden_checks(PUBLIC, [Hidden("x * x", other, program=_square)])
    with pytest.raises(ValueError, match="share the ids"):
        hidden_checks(PUBLIC + PUBLIC[:1], [])


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda ch: ch.package)
def test_every_chapter_is_one_table(chapter) -> None:
    """Public ids are unique (hidden rows point at them), every hidden check runs a public
    entry's program or says why not, and every task and check carries a version the course
    has had."""
    public = importlib.import_module(f"autograder.checks.{chapter.package}").CHECKS
    hidden = importlib.import_module(f"autograder.hidden.{chapter.package}").CHECKS
    assert len({c.id for c in public}) == len(public)
    assert len({(h.task, h.name) for h in hidden}) == len(hidden)  # each its own cases
    assert not {(h.task, h.name) for h in hidden} & {(c.task, c.name) for c in public}
    programs = {c.program for c in public}
    own = [h for h in hidden if h.program not in programs]
    assert len(own) <= 2, [h.name for h in own]  # the exceptions, each with its why
    for item in [*chapter.tasks, *public, *hidden]:
        assert versions.at_most(item.since, versions.COURSE_VERSION), item

"""Every chapter's variant sets (``tests/variants/``), judged one way: a broken variant
fails the task it breaks and no other (a check that runs the broken task may report
"blocked by" it); an unusual but correct rewrite scores every point; a named mistake is
named in the report; a later task whose checks run the broken code shows "blocked by" it; a
held-out set's former holes fail on their task's hidden checks.
``pytest -m ch05`` runs one chapter's. The results come from the ``outcomes`` fixture
(tests/conftest.py), which a chapter's own tests may read too."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from autograder import report
from autograder.course import chapter
from autograder.status import Status
from tests.trees import assert_fails_its_task_only, shows_code
from tests.variants import VariantSet, all_sets

SETS = all_sets()


def _params(rows: Callable[[VariantSet], list]) -> list:
    """pytest params of ``rows(set)`` for every set, each id "<set id>:<row name>". A held-out
    set's runs are in the slow suite (``make test-slow``, which .ci/run runs too): each such
    set grades its bugs on the public checks, its holes on the hidden ones and its rewrites
    on both, minutes that ``make test``'s budget cannot spare. So are the exercises' sets
    (course version 1.1's optional tasks): with chapter 8, ``make test`` neared 15 minutes."""
    return [
        pytest.param(s, *row, id=f"{s.id}:{row[0]}", marks=_slow(s))
        for s in SETS
        for row in rows(s)
    ]


def _slow(s: VariantSet) -> list:
    return [pytest.mark.slow] if s.kind in ("held out", "exercises") else []


@pytest.mark.parametrize("s", [pytest.param(s, id=s.id) for s in SETS])
def test_a_set_keeps_its_size_covers_its_tasks_and_names_each_variant_once(s: VariantSet) -> None:
    names = [v[0] for v in [*s.broken, *s.correct]]
    assert len(set(names)) == len(names), sorted(n for n in names if names.count(n) > 1)
    least_broken, least_correct = s.least
    assert len(s.broken) >= least_broken and len(s.correct) >= least_correct
    tasks = set(s.tasks) or {t.id for t in chapter(s.chapter).tasks}
    assert {task for *_, task in s.broken} == tasks
    if s.rewrites_cover:  # at least the set's tasks (exercises may have sets of their own)
        assert tasks <= {task for *_, task in s.correct} <= {t.id for t in chapter(s.chapter).tasks}
    assert {name for name, _ in s.says} <= set(names)
    # issue 29: every broken variant's report names its mistake (a says row)
    assert not {v[0] for v in s.broken} - {name for name, _ in s.says}
    assert {name for name, _ in s.blocks} <= {v[0] for v in s.broken}
    assert set(s.holes) <= {v[0] for v in s.broken}


@pytest.mark.parametrize(("s", "name", "file", "edit", "task"), _params(lambda s: s.broken))
def test_a_broken_variant_fails_its_task_only(
    outcomes: Callable, s: VariantSet, name: str, file: str, edit: tuple, task: str
) -> None:
    assert_fails_its_task_only(outcomes(s)[name], task)


@pytest.mark.parametrize(("s", "name", "file", "edit", "task"), _params(lambda s: s.correct))
def test_an_unusual_but_correct_rewrite_scores_every_point(
    outcomes: Callable, s: VariantSet, name: str, file: str, edit: tuple, task: str
) -> None:
    result = outcomes(s)[name]
    assert result.passed and result.points == result.max_points, report.chapter_report(result)


@pytest.mark.parametrize(("s", "name", "says"), _params(lambda s: s.says))
def test_the_report_names_the_mistake(
    outcomes: Callable, s: VariantSet, name: str, says: str
) -> None:
    text = report.chapter_report(outcomes(s)[name])
    assert says in " ".join(text.split()), text


@pytest.mark.parametrize(("s", "name", "file", "edit", "task"), _params(lambda s: s.broken))
def test_the_first_stage_shows_none_of_the_reference_code(
    outcomes: Callable, s: VariantSet, name: str, file: str, edit: tuple, task: str
) -> None:
    """What a failing task's report says (the first stage of help) holds no line of the
    reference's code for that task: the recipe is shown only when asked (`make hint`)."""
    verdict = next(t for t in outcomes(s)[name].tasks if t.task.id == task)
    text = "\n".join(report.task_details(verdict))
    shown = shows_code(text, s.chapter, task)
    assert not shown, (shown, text)


@pytest.mark.parametrize(("s", "name", "task"), _params(lambda s: s.blocks))
def test_a_task_whose_checks_run_the_broken_code_shows_blocked_by_it(
    outcomes: Callable, s: VariantSet, name: str, task: str
) -> None:
    """The later task's checks fail with the broken code and pass with the broken task's
    stand-in: it shows "blocked by" the broken task, not as failed."""
    broken = next(v[3] for v in s.broken if v[0] == name)
    result = outcomes(s)[name]
    verdict = next(t for t in result.tasks if t.task.id == task)
    assert verdict.status == Status.BLOCKED and verdict.blocked_by == broken, report.chapter_report(
        result
    )


@pytest.mark.parametrize(("s", "name"), _params(lambda s: [(h,) for h in s.holes]))
def test_the_hidden_checks_catch_the_former_holes(
    outcomes: Callable, s: VariantSet, name: str
) -> None:
    task = next(v[3] for v in s.broken if v[0] == name)
    result = outcomes(s)[f"hidden: {name}"]
    verdict = next(t for t in result.tasks if t.task.id == task)
    assert verdict.status == Status.FAILED, report.chapter_report(result)

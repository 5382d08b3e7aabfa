"""The broken variant sets (tests/variants/) graded under SPARROW_LANG=zh (issue 33): the
language changes words, never outcomes, so each broken variant fails its task only and each
rewrite scores every point, as in English; and every failing check's message is Chinese
where the grader wrote it (a student's exception, "raised TypeError: …", keeps its own
words, and so may a message that only shows values). Slow: a second grading of each set."""

from __future__ import annotations

import re

import pytest

from autograder.status import Status
from tests.trees import assert_fails_its_task_only, check_variants
from tests.variants import all_sets

SETS = [s for s in all_sets() if s.kind == "broken"]
CJK = re.compile(r"[\u3400-\u9fff]")
WORDS = re.compile(r"[A-Za-z]{2,} [a-z]{2,} [a-z]{2,}")


@pytest.mark.slow
@pytest.mark.parametrize("s", [pytest.param(s, id=s.id) for s in SETS])
def test_a_set_in_chinese(s, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("SPARROW_LANG", "zh")
    results = check_variants(s.chapter, [*s.broken, *s.correct], tmp_path)
    english = []
    for name, _, _, task in s.broken:
        assert_fails_its_task_only(results[name], task)
        for t in results[name].tasks:
            for c in t.checks:
                written = c.status == Status.FAILED and c.raised is None and c.message
                if written and WORDS.search(c.message) and not CJK.search(c.message):
                    english.append(f"{name}: {c.check.name}: {c.message[:120]}")
    for name, *_ in s.correct:
        result = results[name]
        assert result.passed and result.points == result.max_points, name
    assert not english, f"{len(english)} message(s) still English:\n" + "\n".join(english)

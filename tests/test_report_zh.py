"""The report and the hints in Chinese (issue 33, ``SPARROW_LANG=zh``): the frame's words,
the chapters' titles and each task's title and hints come from their Chinese; numbers, code
and identifiers are unchanged; nothing of the English frame is left."""

from __future__ import annotations

import re

import pytest

from autograder import hints, report, report_zh
from autograder.course import CHAPTERS, chapter
from autograder.student import check
from autograder.tasks import TRANSLATED
from autograder.translations import task_problems

# the English frame's own words, written out again: none may be left in a Chinese report (a
# stub's NotImplementedError, "… — see §1 of the notebook", is code's text and stays English)
ENGLISH_FRAME = re.compile(
    r"tasks passed|points\b|Not started|Next up|not started|Chapter \d|checked:|start at:|"
    r"Well done|teaches it|hint \d of|ask again"
)
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def zh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPARROW_LANG", "zh")


@pytest.mark.parametrize("number", [ch.number for ch in CHAPTERS])
def test_every_task_has_its_title_and_hints_in_chinese(number: int) -> None:
    assert task_problems(number) == []
    for t in chapter(number).tasks:
        for field in TRANSLATED:
            english, chinese = getattr(t, field), t.text(field, "zh")
            if english and field != "title":  # a recipe of code alone may stay code
                assert CJK.search(chinese) or field != "idea", (t.id, field)
        assert t.text("title", "en") == t.title  # English stays the default


@pytest.mark.parametrize("number", [ch.number for ch in CHAPTERS])
def test_a_chinese_report_of_the_stubs_renders(number: int, zh: None) -> None:
    text = report.chapter_report(check(chapter(number), impl="chapters"))
    assert f"第 {number} 章" in text and "未开始" in text
    assert not ENGLISH_FRAME.search(text), ENGLISH_FRAME.search(text)


@pytest.mark.parametrize("number", [ch.number for ch in CHAPTERS])
def test_a_chinese_report_of_the_reference_renders(number: int, zh: None) -> None:
    text = report.chapter_report(check(chapter(number), impl="solutions"))
    assert f"第 {number} 章全部完成" in text
    assert not ENGLISH_FRAME.search(text), ENGLISH_FRAME.search(text)


def test_every_hint_stage_is_chinese(zh: None, tmp_path) -> None:
    for ch in CHAPTERS:
        for t in ch.tasks:
            stages = len(t.hints) + 1
            for level in range(1, stages + 1):
                text = hints.hint(t.id, level, repo=tmp_path)
                assert not ENGLISH_FRAME.search(text), (t.id, level, text)
                for line in text.splitlines():  # Chinese punctuation may hang past the edge
                    over = report._columns(line) - report.WIDTH
                    assert over <= 0 or (over <= 4 and line[-1] in "，。、：；！？）”"), line


def test_the_chinese_templates_fill_the_same_fields_as_the_english() -> None:
    fields = re.compile(r"\{(\w*)\}")
    for english, chinese in report_zh.TEMPLATES.items():
        assert sorted(fields.findall(english)) == sorted(fields.findall(chinese)), english
        assert CJK.search(chinese), english


def test_a_space_between_chinese_and_a_task_number(zh: None) -> None:
    """The stand-in lines put a space between a task's number and the Chinese after it
    ("任务 4.2 也没有通过"), as every Chinese text of the course does."""
    tight = re.compile(r"[0-9A-Za-z][\u4e00-\u9fff]")
    texts = [
        report._standin_text(["4.2"], ["4.2"]),
        report._standin_text(["4.2", "4.6"], ["4.2"]),
        report._standin_text(["4.2", "4.6"], []),
        report._yours_zh(report._tasks_text(["4.2"]), "4.3", True),
        report._yours_zh(report._tasks_text(["4.2", "4.6"]), "4.3", False),
    ]
    for text in texts:
        assert CJK.search(text) and not tight.search(text), text


def test_two_asides_in_a_row_are_one_in_chinese(zh: None) -> None:
    """A field's known mistake after compare's own aside: "（a；b）", not "（a）（b）"."""
    import numpy as np

    from autograder.harness.api import Case
    from autograder.harness.table import Field, Fields, Mistake

    verdict = Fields(
        [Field("g", "x.grad")],
        [Mistake("g", lambda case: 2 * case.expected["g"], {"en": "twice", "zh": "加了两次"})],
    )
    message = verdict(Case("c", {}, {"g": np.array([1.0, 2.0])}), {"g": np.array([2.0, 4.0])})
    assert message.endswith("（实际收到的值恰好是期望值的两倍；加了两次）"), message

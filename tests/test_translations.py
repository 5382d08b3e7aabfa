"""The Chinese notebooks (issue 33): one source, two languages.

Each chapter's prose is translated in ``solutions/chNN_x/chNN_x.zh.json`` (``autograder/
translations.py``); the generator writes ``chNN_x.zh.ipynb`` from it. For every chapter that
has a translation: it is complete and current (every prose cell translated from the English
as it is now, nothing left over), and the Chinese notebook is the English one with Chinese
prose — the same code cells in the same order, every markdown cell in Chinese, every task
heading a 任务 heading, and each cell's math and code kept character for character (every
span of the English is in the Chinese; the Chinese may name one of them again, where a
Chinese sentence repeats its subject — "`out` 是 `apply` 之后才创建的" for "`apply` creates
it" — but holds no span the English lacks). A
chapter without a translation yet (a ``.zh.draft.json`` does not count) skips, saying so.

Then unit tests of ``autograder.translations`` itself. Fast: nothing runs a notebook.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from autograder import stubgen, translations

REPO = Path(__file__).resolve().parent.parent
CHAPTERS = range(1, 10)
CJK = re.compile(r"[\u4e00-\u9fff]")
TASK = re.compile(r"^###\s+Tasks?\s+(\d+\.\d+(?:(?:,\s*|\s+and\s+)\d+\.\d+)*)", re.M)
TASK_ZH = re.compile(r"^###\s+任务\s*(\d+\.\d+(?:\s*(?:和|、|与|及|,|，)\s*\d+\.\d+)*)", re.M)


def notebook(chapter: int) -> Path:
    (path,) = sorted((REPO / "solutions").glob(f"ch{chapter:02d}_*/ch{chapter:02d}_*.ipynb"))
    return path


def translated_or_skip(chapter: int) -> Path:
    """The chapter's English notebook, when it has a translation; a skip otherwise."""
    english = notebook(chapter)
    if not english.with_suffix(translations.SUFFIX).is_file():
        pytest.skip(f"chapter {chapter}: not translated yet (issue 33)")
    return english


@cache
def generated() -> dict[str, bytes]:
    return stubgen.generate(REPO / "solutions")


def kept_verbatim(markdown: str) -> Counter[str]:
    """A cell's code and math, which a translation keeps as they are: fenced blocks,
    `code` spans, $$display$$ and $inline$ math (a multiset; inline math may run over a
    line break, and a span's spaces and line breaks count as one space: a translation
    wraps its lines where Chinese needs)."""
    spans: list[str] = []

    def take(pattern: str, text: str, flags: int = 0) -> str:
        spans.extend(m.group() for m in re.finditer(pattern, text, flags))
        return re.sub(pattern, " ", text, flags=flags)

    text = take(r"```.*?```|~~~.*?~~~", markdown, re.S)
    text = take(r"(`+)(?:(?!\1).)+?\1", text, re.S)
    text = take(r"(?<!\\)\$\$.*?(?<!\\)\$\$", text, re.S)
    take(r"(?<![\\$])\$(?!\s)(?:\\.|[^$\\\n]|\n(?!\s*\n))+?(?<!\s)\$", text)
    return Counter(
        s.strip() if s.startswith(("```", "~~~")) else " ".join(s.split()) for s in spans
    )


def task_numbers(found: list[str]) -> list[str]:
    return [n for group in found for n in re.findall(r"\d+\.\d+", group)]


# --- each chapter's translation and its notebook ------------------------------------


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_a_translation_is_complete_and_current(chapter):
    english = translated_or_skip(chapter)
    problems = translations.status(english)
    assert problems == [], (
        f"{english.with_suffix(translations.SUFFIX).relative_to(REPO)} "
        f"(python -m autograder.translations status {english.relative_to(REPO)}):\n"
        + "\n".join(problems)
    )


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_chinese_notebook_is_the_english_one_with_chinese_prose(chapter):
    english = translated_or_skip(chapter)
    rel = english.relative_to(REPO / "solutions").as_posix()
    zh_rel = rel.removesuffix(".ipynb") + ".zh.ipynb"
    out = generated()
    assert zh_rel in out, f"the generator wrote no {zh_rel}"
    en_nb, zh_nb = json.loads(out[rel]), json.loads(out[zh_rel])
    assert zh_nb["metadata"].get("language") == "zh"

    def code(nb):
        return [
            (c.get("id"), "".join(c["source"])) for c in nb["cells"] if c["cell_type"] != "markdown"
        ]

    assert code(zh_nb) == code(en_nb), "the Chinese notebook's code cells are the English ones"
    assert [c.get("id") for c in zh_nb["cells"]] == [c.get("id") for c in en_nb["cells"]]

    zh_cells = json.loads(english.with_suffix(translations.SUFFIX).read_text(encoding="utf-8"))
    translated_ids = {
        k for k, v in zh_cells.get("cells", {}).items() if str(v.get("source") or "").strip()
    }
    wrong = []
    for en, zh in zip(en_nb["cells"], zh_nb["cells"]):
        if en["cell_type"] != "markdown":
            continue
        cid, en_src, zh_src = en.get("id"), "".join(en["source"]), "".join(zh["source"])
        if cid not in translated_ids:
            continue  # reported by test_a_translation_is_complete_and_current
        if not CJK.search(zh_src):
            wrong.append(f"cell {cid}: no Chinese in it")
        tasks, tasks_zh = task_numbers(TASK.findall(en_src)), task_numbers(TASK_ZH.findall(zh_src))
        if tasks != tasks_zh:
            wrong.append(
                f"cell {cid}: task headings {tasks} in English, 任务 {tasks_zh} in Chinese"
            )
        en_kept, zh_kept = kept_verbatim(en_src), kept_verbatim(zh_src)
        lost = sorted((en_kept - zh_kept).elements())
        new = sorted(set(zh_kept) - set(en_kept))
        if lost or new:
            wrong.append(f"cell {cid}: code/math not kept as it is: lost {lost}, new {new}")
    assert not wrong, f"{zh_rel}:\n" + "\n".join(wrong)


def test_a_draft_is_not_a_translation(tmp_path):
    """A .zh.draft.json beside a notebook is ignored: no Chinese notebook, no file copied."""
    chapter = tmp_path / "ch01_x"
    chapter.mkdir()
    (chapter / "ch01_x.ipynb").write_text(json.dumps(NB), encoding="utf-8")
    (chapter / "ch01_x.zh.draft.json").write_text(json.dumps(ZH), encoding="utf-8")
    assert sorted(stubgen.generate(tmp_path)) == ["ch01_x/ch01_x.ipynb"]
    (chapter / "ch01_x.zh.json").write_text(json.dumps(ZH), encoding="utf-8")
    assert sorted(stubgen.generate(tmp_path)) == ["ch01_x/ch01_x.ipynb", "ch01_x/ch01_x.zh.ipynb"]


# --- the checks' own rules ----------------------------------------------------------


def test_kept_verbatim_reads_code_and_math():
    cell = "Let `x` be $a_i$ and $$\\sum_i a_i$$, cost \\$5.\n```python\nx = 1\n```"
    assert kept_verbatim(cell) == Counter(
        ["`x`", "$a_i$", "$$\\sum_i a_i$$", "```python\nx = 1\n```"]
    )
    assert kept_verbatim("``a`b`` and `c`") == Counter(["``a`b``", "`c`"])
    wrapped = "so $\\partial o/\\partial w_1 = x_1\\cdot 0.5\n= 1$, and $x$.\n\nA $ sign and $5"
    assert kept_verbatim(wrapped) == Counter(
        ["$\\partial o/\\partial w_1 = x_1\\cdot 0.5 = 1$", "$x$"]
    )


def test_task_headings_in_both_languages():
    assert task_numbers(TASK.findall("### Tasks 1.2 and 1.3 — `a`\n### Task 5.13: x")) == [
        "1.2",
        "1.3",
        "5.13",
    ]
    assert task_numbers(TASK_ZH.findall("### 任务 1.2 和 1.3 — `a`\n### 任务 5.13：x")) == [
        "1.2",
        "1.3",
        "5.13",
    ]
    assert TASK.findall("Task 7.1 is the probe") == []  # prose, not a heading


# --- autograder.translations --------------------------------------------------------

NB = {
    "cells": [
        {"cell_type": "markdown", "id": "a", "metadata": {}, "source": ["# Title\n", "Text."]},
        {
            "cell_type": "code",
            "id": "b",
            "metadata": {},
            "source": ["x = 1  # a comment"],
            "outputs": [],
            "execution_count": None,
        },
        {"cell_type": "markdown", "id": "c", "metadata": {}, "source": "### Task 1.1 — `f`"},
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}
SHA_A = translations.source_sha("# Title\nText.")
SHA_C = translations.source_sha("### Task 1.1 — `f`")
ZH = {
    "language": "zh",
    "cells": {
        "a": {"en_sha": SHA_A, "source": "# 标题\n正文。"},
        "c": {"en_sha": SHA_C, "source": "### 任务 1.1 — `f`"},
    },
}


def _zh(**cells) -> dict:
    return {"language": "zh", "cells": cells}


def test_source_sha_reads_a_list_as_its_text():
    assert translations.source_sha(["# Title\n", "Text."]) == SHA_A
    assert len(SHA_A) == 16 and SHA_A != SHA_C


def test_prose_cells_are_the_markdown_cells():
    assert translations.prose_cells(NB) == {"a": "# Title\nText.", "c": "### Task 1.1 — `f`"}


def test_problems_missing_stale_and_leftover():
    assert translations.problems(NB, ZH) == []
    assert translations.problems(NB, _zh(a=ZH["cells"]["a"])) == ["cell c: not translated"]
    blank = _zh(a=ZH["cells"]["a"], c={"en_sha": SHA_C, "source": "  \n"})
    assert translations.problems(NB, blank) == ["cell c: not translated"]
    stale = _zh(a={"en_sha": SHA_C, "source": "# 标题"}, c=ZH["cells"]["c"])
    assert translations.problems(NB, stale) == ["cell a: the English changed after its translation"]
    leftover = _zh(**ZH["cells"], b={"en_sha": "0", "source": "代码"}, z={"source": "旧"})
    assert translations.problems(NB, leftover) == [
        "cell b: translates no markdown cell",
        "cell z: translates no markdown cell",
    ]


def test_translated_replaces_prose_and_keeps_english_where_untranslated():
    out = json.loads(translations.translated(json.dumps(NB).encode(), _zh(a=ZH["cells"]["a"])))
    assert "".join(out["cells"][0]["source"]) == "# 标题\n正文。"
    assert out["cells"][1]["source"] == NB["cells"][1]["source"]  # code: shared, untouched
    assert out["cells"][2]["source"] == NB["cells"][2]["source"]  # untranslated: English
    assert out["metadata"]["language"] == "zh"
    assert [c["id"] for c in out["cells"]] == ["a", "b", "c"]
    code_as_prose = json.loads(
        translations.translated(json.dumps(NB).encode(), _zh(b={"source": "x"}))
    )
    assert code_as_prose["cells"][1]["source"] == NB["cells"][1]["source"]


def test_skeleton_keeps_current_translations_and_drops_stale_ones(tmp_path):
    path = tmp_path / "ch01_x.ipynb"
    path.write_text(json.dumps(NB), encoding="utf-8")
    fresh = translations.skeleton(path)
    assert fresh == {
        "language": "zh",
        "cells": {
            "a": {"en_sha": SHA_A, "en": "# Title\nText.", "source": ""},
            "c": {"en_sha": SHA_C, "en": "### Task 1.1 — `f`", "source": ""},
        },
    }
    assert translations.status(path) == ["ch01_x.zh.json is missing"]

    old = _zh(
        a={"en_sha": SHA_A, "source": "# 标题\n正文。"},
        c={"en_sha": "stale", "source": "### 任务 1.1（旧）"},
        gone={"en_sha": "x", "source": "删"},
    )
    path.with_suffix(translations.SUFFIX).write_text(json.dumps(old), encoding="utf-8")
    kept = translations.skeleton(path)["cells"]
    assert kept["a"]["source"] == "# 标题\n正文。"  # current: kept
    assert kept["c"] == {
        "en_sha": SHA_C,
        "en": "### Task 1.1 — `f`",
        "source": "",
    }  # stale: dropped
    assert set(kept) == {"a", "c"}  # a cell the notebook no longer has: dropped

    assert translations.main(["skeleton", str(path)]) == 0
    assert translations.main(["status", str(path)]) == 1  # cell c is to translate again
    written = json.loads(path.with_suffix(translations.SUFFIX).read_text(encoding="utf-8"))
    written["cells"]["c"]["source"] = "### 任务 1.1 — `f`"
    path.with_suffix(translations.SUFFIX).write_text(json.dumps(written), encoding="utf-8")
    assert translations.status(path) == []
    assert translations.main(["status", str(path)]) == 0


@pytest.mark.slow
def test_the_chinese_notebooks_run_against_the_reference() -> None:
    """The Chinese notebooks' code cells are the English ones: they run as make test runs
    the English (nbval, lax), on the reference, one BLAS thread."""
    notebooks = sorted(str(p) for p in (REPO / "chapters").glob("ch*/ch*.zh.ipynb"))
    assert len(notebooks) == 9
    threads = {k: "1" for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    env = {**os.environ, **threads, "SPARROW_IMPL": "solutions", "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "pytest", "--nbval-lax", "--nbval-current-env", "-q"]
    command += ["-p", "no:cacheprovider", *notebooks]
    out = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=1200)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]


# What renders wrong in Chinese Markdown (a fresh reader found each): a line break between two
# Chinese characters shows as a stray space; a closing ** right after Chinese punctuation and
# before a letter is not a closing delimiter to CommonMark, so the asterisks show; ASCII
# quotes around Chinese text where Chinese uses “…”.
CJK_BREAK = re.compile(r"[\u4e00-\u9fff，。：；！？）、”]\n[\u4e00-\u9fff（“]")
ASCII_QUOTED = re.compile(r'"[^"\n`$]*[\u4e00-\u9fff][^"\n`$]*"')


def _bad_bold(text: str) -> list[str]:
    parts = text.split("**")
    return [
        parts[i][-8:] + "**" + parts[i + 1][:4]
        for i in range(1, len(parts) - 1, 2)
        if parts[i] and parts[i][-1] in "。：；！？，" and parts[i + 1][:1].strip()
    ]


@pytest.mark.parametrize("path", sorted((REPO / "solutions").glob("*/*.zh.json")), ids=str)
def test_the_chinese_prose_renders_as_written(path: Path) -> None:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    for cell_id, entry in cells.items():
        text = re.sub(r"`[^`\n]*`", "`…`", entry["source"])  # code spans keep their quotes
        assert not CJK_BREAK.search(text), (cell_id, CJK_BREAK.search(text))
        assert not _bad_bold(entry["source"]), (cell_id, _bad_bold(entry["source"]))
        assert not ASCII_QUOTED.search(text), (cell_id, ASCII_QUOTED.search(text))

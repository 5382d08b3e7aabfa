"""The Chinese first steps (issue 33): each English document that has a Chinese twin links
it from its top, and the twin links back; the student release carries its README's twin."""

from __future__ import annotations

import re

import pytest

from tests.trees import REPO

PAIRS = [
    ("README.md", "README.zh.md"),
    ("tools/release_files/README.md", "tools/release_files/README.zh.md"),
    ("docs/instructors.md", "docs/instructors.zh.md"),
]
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize(("english", "chinese"), PAIRS)
def test_each_twin_is_linked_from_the_top_of_the_other(english: str, chinese: str) -> None:
    en = (REPO / english).read_text(encoding="utf-8").splitlines()
    zh = (REPO / chinese).read_text(encoding="utf-8").splitlines()
    en_name, zh_name = english.rsplit("/", 1)[-1], chinese.rsplit("/", 1)[-1]
    assert any(f"]({zh_name})" in line for line in en[:4]), f"{english} does not link {zh_name}"
    assert any(f"]({en_name})" in line for line in zh[:4]), f"{chinese} does not link {en_name}"
    prose = [line for line in zh if line.strip() and not line.startswith(("```", "make", "|"))]
    assert sum(bool(CJK.search(line)) for line in prose) > len(prose) // 2  # written in Chinese


def test_the_release_carries_the_chinese_readme(tmp_path) -> None:
    from tools import release

    release.release(tmp_path / "out")
    shipped = (tmp_path / "out" / "README.zh.md").read_text(encoding="utf-8")
    assert shipped == (REPO / "tools/release_files/README.zh.md").read_text(encoding="utf-8")

"""The glossary of the Chinese course (issue 33): docs/glossary.zh.md, and its use.

The table is parsed here (``glossary``). Its own checks: enough terms, each English once,
every chapter 1–9 covered. Then consistency: in every chapter whose translation is complete
and current, wherever an English prose cell uses a term the glossary holds strictly, the
cell's Chinese uses the term's Chinese. The matching rules (whole words, plurals, longest
term first, code and math left out, † for reference-only terms) are the glossary's header's,
written there for translators and implemented in ``found_terms``.

A chapter not translated yet (no ``.zh.json``, or one still incomplete) skips, saying so.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from autograder import translations

REPO = Path(__file__).resolve().parent.parent
GLOSSARY = REPO / "docs" / "glossary.zh.md"
CHAPTERS = range(1, 10)
LOOSE = "†"  # in the chapter column: a reference-only term, not checked in translations


@dataclass(frozen=True)
class Term:
    english: str
    chinese: tuple[str, ...]  # the first is preferred; any is accepted
    chapter: int
    strict: bool


def glossary(text: str | None = None) -> list[Term]:
    """The rows of the glossary's table ``| English | 中文 | chapter |``."""
    text = GLOSSARY.read_text(encoding="utf-8") if text is None else text
    terms = []
    header_seen = False
    for line in text.splitlines():
        line = line.strip()
        if not (line.startswith("|") and line.endswith("|")):
            continue
        cells = [c.strip() for c in line[1:-1].split("|")]
        if cells[0] == "English":
            assert cells == ["English", "中文", "chapter"], f"the table's header: {line}"
            header_seen = True
            continue
        if set("".join(cells)) <= set("-: "):
            continue  # the separator row
        assert header_seen and len(cells) == 3, f"not a row of three columns: {line}"
        english, chinese, chapter = cells
        number = re.fullmatch(rf"(\d+)\s*({LOOSE})?", chapter)
        assert number, f"chapter column must be a number, optionally with {LOOSE}: {line}"
        alternatives = tuple(z.strip() for z in chinese.split(" / ") if z.strip())
        assert english and alternatives, f"empty cell: {line}"
        terms.append(Term(english, alternatives, int(number[1]), number[2] is None))
    return terms


def term_pattern(english: str) -> re.Pattern[str]:
    """The term as whole words, case-insensitive: a space or hyphen between its words, and a
    plural on the last (s, es, y→ies, ex/ix→ices)."""
    words = re.split(r"[\s-]+", english.strip())
    *first, last = [re.escape(w) for w in words]
    if re.search(r"[^aeiou]y$", words[-1], re.I):
        last = f"{last[:-1]}(?:y|ies)"
    elif re.search(r"(?:ex|ix)$", words[-1], re.I):
        last = f"{last[:-2]}(?:{last[-2:]}|ices|{last[-2:]}es)"
    else:
        last = f"{last}(?:s|es)?"
    body = r"[\s-]+".join([*first, last])
    return re.compile(rf"(?<![\w/-]){body}(?![\w/-])", re.IGNORECASE)


def prose(markdown: str) -> str:
    """A markdown cell's words: code blocks, `code`, $math$, $$math$$, HTML tags and link
    targets left out (replaced by a space, so words on either side stay apart)."""
    text = re.sub(r"```.*?```|~~~.*?~~~", " ", markdown, flags=re.S)
    text = re.sub(r"(`+)(?:(?!\1).)+?\1", " ", text, flags=re.S)
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)
    text = re.sub(r"(?<![\\$])\$(?!\s)[^$\n]+?(?<![\s\\])\$", " ", text)
    text = re.sub(r"\]\([^)]*\)", "] ", text)  # a link's target (its words stay)
    text = re.sub(r"<[^>\n]+>", " ", text)
    return text


def found_terms(markdown: str, terms: list[Term], kept: str = "") -> list[Term]:
    """The glossary's terms a markdown cell uses, longest first; the words of a longer term
    are taken out before shorter ones are looked for ("learning rate schedule" is not also
    "learning rate"). A quotation that ``kept`` (the translation) holds word for word is
    English on purpose (PyTorch's error messages stay English) and is left out."""
    text = prose(markdown)
    for quoted in re.findall(r'"[^"\n]+"|“[^”\n]+”', text):
        if quoted[1:-1] in kept:
            text = text.replace(quoted, " ")
    found = []
    for term in sorted(terms, key=lambda t: (-len(t.english), t.english)):
        pattern = term_pattern(term.english)
        hits = [m for m in pattern.finditer(text) if not _a_class_name(text, m, term)]
        if hits:
            found.append(term)
        text = pattern.sub(lambda m: " " * len(m.group()), text)
    return found


def _a_class_name(text: str, match: re.Match[str], term: Term) -> bool:
    """A lower-case term capitalised in mid-sentence ("return Tensor expressions", "a
    Value") names the class, an identifier left in English, not the term."""
    if not (term.english[0].islower() and match.group()[0].isupper()):
        return False
    return re.search(r"[\w,;)]\s*$", text[: match.start()]) is not None


def uses(chinese: str, term: Term) -> bool:
    lowered = chinese.lower()
    return any(z.lower() in lowered for z in term.chinese)


def notebook(chapter: int) -> Path:
    (path,) = sorted((REPO / "solutions").glob(f"ch{chapter:02d}_*/ch{chapter:02d}_*.ipynb"))
    return path


# --- the table itself ---------------------------------------------------------------


def test_the_glossary_has_enough_terms_each_once():
    terms = glossary()
    assert len(terms) >= 80, f"the glossary lists {len(terms)} terms; issue 33 asks for 80"
    seen: dict[str, int] = {}
    for term in terms:
        seen[term.english.lower()] = seen.get(term.english.lower(), 0) + 1
    duplicated = sorted(e for e, n in seen.items() if n > 1)
    assert not duplicated, f"English terms listed twice: {duplicated}"


def test_every_chapter_has_terms():
    terms = glossary()
    assert {t.chapter for t in terms} >= set(CHAPTERS), (
        f"chapters without a term: {sorted(set(CHAPTERS) - {t.chapter for t in terms})}"
    )
    assert all(t.chapter in CHAPTERS for t in terms), "a chapter column outside 1–9"
    assert all(any(re.search(r"[\u4e00-\u9fff]", z) for z in t.chinese) for t in terms), (
        "each term's Chinese holds Chinese characters"
    )


def test_the_parser_reads_markers_and_alternatives():
    text = (
        "| English | 中文 | chapter |\n|---|---|---|\n"
        "| batch | 批量 / 批 | 5 |\n| key | 键 | 9 † |\n"
    )
    assert glossary(text) == [
        Term("batch", ("批量", "批"), 5, True),
        Term("key", ("键",), 9, False),
    ]


# --- the matching rules -------------------------------------------------------------


def _terms(*rows: tuple[str, str]) -> list[Term]:
    return [Term(e, (z,), 1, True) for e, z in rows]


def test_matching_takes_the_longest_term_first():
    terms = _terms(
        ("learning rate", "学习率"),
        ("learning rate schedule", "学习率调度"),
        ("attention", "注意力"),
        ("self-attention", "自注意力"),
    )
    names = [t.english for t in found_terms("Learning-rate schedules and self-attention.", terms)]
    assert names == ["learning rate schedule", "self-attention"]
    names = [
        t.english for t in found_terms("A learning rate schedule sets the learning rate.", terms)
    ]
    assert names == ["learning rate schedule", "learning rate"]


def test_matching_is_whole_words_with_plurals_outside_code_and_math():
    terms = _terms(("node", "节点"), ("vertex", "顶点"), ("dependency", "依赖"), ("mask", "掩码"))
    assert [t.english for t in found_terms("Vertices and dependencies.", terms)] == [
        "dependency",
        "vertex",
    ]
    assert found_terms("`node` and $mask$ and ``a node`` and nodes_x", terms) == []
    assert found_terms("```python\nnode = 1\n```\n[see](https://x/node)", terms) == []
    assert [t.english for t in found_terms("NODES, two.", terms)] == ["node"]
    quoted = 'It says "grad for a mask only".'
    assert [t.english for t in found_terms(quoted, terms)] == ["mask"]
    assert found_terms(quoted, terms, kept='它说 "grad for a mask only"（只对掩码）') == []
    assert found_terms("unmasked, masking", terms) == []
    assert found_terms("return Node objects", terms) == []  # a class's name
    assert [t.english for t in found_terms("## Nodes. Node one", terms)] == ["node"]


# --- the translations use the glossary ----------------------------------------------


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_a_translated_chapter_uses_the_glossary(chapter):
    english = notebook(chapter)
    paired = english.with_suffix(translations.SUFFIX)
    if not paired.is_file():
        pytest.skip(f"chapter {chapter}: not translated yet (issue 33)")
    problems = translations.status(english)
    if problems:
        pytest.skip(
            f"chapter {chapter}: translation incomplete ({len(problems)} problems; "
            "tests/test_translations.py reports them)"
        )
    terms = [t for t in glossary() if t.strict]
    zh = json.loads(paired.read_text(encoding="utf-8"))["cells"]
    nb = json.loads(english.read_text(encoding="utf-8"))
    missing = []
    for cell_id, source in translations.prose_cells(nb).items():
        chinese = zh[cell_id]["source"]
        for term in found_terms(source, terms, kept=chinese):
            if not uses(chinese, term):
                missing.append(f"cell {cell_id}: '{term.english}' → {' / '.join(term.chinese)}")
    assert not missing, (
        f"{paired.relative_to(REPO)}: terms whose glossary Chinese the cell's translation lacks "
        f"(fix the translation, or the glossary row — a † marks a reference-only term):\n"
        + "\n".join(missing)
    )

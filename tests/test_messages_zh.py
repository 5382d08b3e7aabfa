"""Every message the checks write is in both languages (issue 33): read from the source.

A string with words in it (three English words in a row) anywhere in the checks, the hidden
checks or the harness is either a docstring, a check's name (its identity: the Chinese is its
``title``), an error for the course's maintainers (a ``raise`` or an ``assert``: a
declaration's mistake, never a student's), marked ``# en-only``
with its reason (a PyTorch message a program matches, code that reads like words), or one
half of a pair: ``tr(en, zh)`` (chosen when the message is written) or ``{"en": …, "zh": …}``
(a stored ``Text``). Each pair's Chinese is Chinese, and interpolates what the English does:
a translation cannot drop a value. Then, run: every check's name and every case's label a
student can read has its Chinese (``Check.title``, a ``Text`` label)."""

from __future__ import annotations

import ast
import importlib
import re
import string
from pathlib import Path

import pytest

from autograder.course import CHAPTERS

REPO = Path(__file__).resolve().parent.parent
AUTOGRADER = REPO / "autograder"

# three words in a row: what a student reads as a sentence (code rarely looks like this)
PROSE = re.compile(r"[A-Za-z]{2,}[,;:']?s? [a-z]{2,}[,;:]? [a-z]{2,}")
CJK = re.compile(r"[\u3400-\u9fff]")
MARK = "# en-only"


def sources() -> list[Path]:
    """The files whose strings a student may read: the checks (public and hidden), the
    harness that writes their messages, and the verdicts, runner and blame around them."""
    files = [*(AUTOGRADER / "checks").rglob("*.py"), *(AUTOGRADER / "hidden").rglob("*.py")]
    files += [AUTOGRADER / "harness" / n for n in ("api.py", "table.py", "kit.py", "gradcheck.py")]
    files += [AUTOGRADER / n for n in ("verdict.py", "runner.py", "blame.py")]
    return sorted(f for f in files if f.exists())


def _docstrings(tree: ast.AST) -> set[int]:
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, kinds)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }


def _is_tr(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and (
        (isinstance(node.func, ast.Name) and node.func.id == "tr")
        or (isinstance(node.func, ast.Attribute) and node.func.attr == "tr")
    )


def _pair_dict(node: ast.AST) -> bool:
    if not isinstance(node, ast.Dict):
        return False
    keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
    return {"en", "zh"} <= keys


def _text(node: ast.AST) -> str:
    """A string expression's literal parts ("{…}" where a value goes)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{…}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _text(node.left) + _text(node.right)
    return ""


def _fields(node: ast.AST) -> list[str]:
    """What a string expression interpolates: an f-string's expressions, a template's
    "{name}" fields, in sorted order (a translation may reorder them)."""
    found = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.FormattedValue):
            found.append(ast.unparse(sub.value))
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            try:
                parsed = list(string.Formatter().parse(sub.value))
            except ValueError:
                continue
            found += [f"{{{name}}}" for _, name, _, _ in parsed if name is not None]
    return sorted(found)


def _identities(tree: ast.AST) -> set[int]:
    """The strings that name a check: ``Check``'s name (and ``id``), ``Hidden``'s ``of`` and
    ``name``. They stay English, since a check's cases are seeded from its name and hidden
    rows point at it; its Chinese name is ``title`` (``test_names_and_labels_in_chinese``)."""
    found = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        if node.func.id == "Check":
            names = [*node.args[1:2], *(k.value for k in node.keywords if k.arg in ("name", "id"))]
        elif node.func.id == "Hidden":
            names = [*node.args[:1], *(k.value for k in node.keywords if k.arg in ("of", "name"))]
        else:
            continue
        found |= {id(n) for n in names if isinstance(n, ast.Constant)}
    return found


def unpaired(path: Path) -> list[str]:
    """``path``'s strings with words that no pair, docstring, raise or mark accounts for."""
    source = path.read_text()
    tree = ast.parse(source)
    lines = source.splitlines()
    parents = {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    skip = _docstrings(tree) | _identities(tree)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        if id(node) in skip or not PROSE.search(node.value):
            continue
        if any(MARK in lines[n - 1] for n in range(node.lineno, node.end_lineno + 1)):
            continue
        up, accounted = node, False
        while id(up) in parents:
            parent = parents[id(up)]
            if isinstance(parent, (ast.Raise, ast.Assert)):
                accounted = True
            elif _is_tr(parent) and parent.args and up in parent.args[:2]:
                accounted = True
            elif _pair_dict(parent) and up in parent.values:
                accounted = True
            if accounted:
                break
            up = parent
        if not accounted:
            where = path.relative_to(REPO)
            found.append(f"{where}:{node.lineno}: {node.value[:70]!r}")
    return found


def pairs(path: Path) -> list[tuple[str, ast.AST, ast.AST]]:
    """Every (where, English, Chinese) pair in ``path``: ``tr`` calls and pair dicts."""
    tree = ast.parse(path.read_text())
    out = []
    for node in ast.walk(tree):
        where = f"{path.relative_to(REPO)}:{getattr(node, 'lineno', 0)}"
        if _is_tr(node) and len(node.args) == 2:
            out.append((where, node.args[0], node.args[1]))
        elif _pair_dict(node):
            values = {k.value: v for k, v in zip(node.keys, node.values) if k is not None}
            out.append((where, values["en"], values["zh"]))
    return out


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(AUTOGRADER)))
def test_every_message_has_chinese(path: Path) -> None:
    missing = unpaired(path)
    assert not missing, (
        f"{len(missing)} English message(s) with no Chinese: write tr(en, zh) or "
        '{"en": …, "zh": …} (or mark a string that is not prose "# en-only: why"):\n'
        + "\n".join(missing)
    )


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(AUTOGRADER)))
def test_each_chinese_says_what_the_english_does(path: Path) -> None:
    problems = []
    for where, en, zh in pairs(path):
        english, chinese = _text(en), _text(zh)
        if (
            PROSE.search(english)
            and not CJK.search(chinese)
            and isinstance(zh, (ast.Constant, ast.JoinedStr, ast.BinOp))
        ):
            problems.append(f"{where}: the Chinese is not Chinese: {chinese[:60]!r}")
        if _fields(en) != _fields(zh):
            problems.append(f"{where}: English fills {_fields(en)}, Chinese {_fields(zh)}")
    assert not problems, "\n".join(problems)


def test_the_finder_finds() -> None:
    """The search itself, on a planted file: each kind of string is judged as it should be."""
    planted = '''
def verdict(case, got):
    """A docstring with many words in it."""
    if got is None:
        raise ValueError("the declaration names no such field")  # a maintainer's error
    a = tr(f"the gradient of {x} is wrong", f"{x} 的梯度不对")
    b = {"en": "the bias is not added", "zh": "没有加上偏置"}
    c = "the graph has a cycle here"  # en-only: a planted exemption
    d = Check("1.1", "the name of a check", cases, program)
    return f"the weight is stored as {w}"
'''
    path = REPO / "build" / "planted_messages.py"
    path.parent.mkdir(exist_ok=True)
    path.write_text(planted)
    try:
        found = unpaired(path)
        assert [line.split(": ", 1)[1] for line in found] == ["'the weight is stored as '"]
        bad = 'x = tr(f"the gradient of {x} is wrong", f"梯度不对")\ny = tr("a b c d", "a b c d")\n'
        path.write_text(bad)
        (_, en, zh), _ = pairs(path)
        assert _fields(en) != _fields(zh)
        path.write_text('X = tr("a b c d", "甲")\n\n\ndef f():\n    return tr("a b c d", "甲")\n')
        assert [line.rsplit(":", 1)[1] for line in chosen_at_import(path)] == ["1"]
    finally:
        path.unlink()


def _checks(package: str) -> list:
    public = importlib.import_module(f"autograder.checks.{package}").CHECKS
    try:
        hidden = importlib.import_module(f"autograder.hidden.{package}").CHECKS
    except ModuleNotFoundError:
        hidden = []
    return [*public, *hidden]


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda ch: ch.package)
def test_names_and_labels_in_chinese(chapter, monkeypatch) -> None:
    """Under SPARROW_LANG=zh, each check's name and each of its cases' labels (seed 0) that
    has words in English reads in Chinese."""
    monkeypatch.setenv("SPARROW_LANG", "zh")
    words = re.compile(r"[A-Za-z]{2,}'?s? [a-z]{2,}")
    missing = []
    for check in _checks(chapter.package):
        if words.search(check.name) and not CJK.search(check.shown()):
            missing.append(f"check {check.name!r}: no title['zh']")
        for case in check.make_cases(0):
            shown = case.shown()
            if PROSE.search(shown) and not CJK.search(shown):
                missing.append(f"{check.name}: case {shown[:70]!r}")
    assert not missing, f"{len(missing)} English name(s) or label(s):\n" + "\n".join(missing)


def chosen_at_import(path: Path) -> list[str]:
    """Where ``path`` calls ``tr`` outside every function: at a module's or a class's top
    level, when it is imported."""
    tree = ast.parse(path.read_text())
    parents = {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    early = []
    for node in ast.walk(tree):
        if not _is_tr(node):
            continue
        up = node
        while id(up) in parents and not isinstance(up, (ast.FunctionDef, ast.Lambda)):
            up = parents[id(up)]
        if not isinstance(up, (ast.FunctionDef, ast.Lambda)):
            early.append(f"{path.relative_to(REPO)}:{node.lineno}")
    return early


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(AUTOGRADER)))
def test_no_language_is_chosen_at_import(path: Path) -> None:
    """``tr`` is called inside a function (when the message is written), never at a module's
    or a class's top level: a text kept from import is a ``Text``, said where it is shown
    (a test, or a notebook's ``%env``, may choose the language after the import)."""
    early = chosen_at_import(path)
    assert not early, "tr(...) at import time:\n" + "\n".join(early)

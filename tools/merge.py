"""Three-way merge of one chapter file: the stub it started from (``old``), the course's new
stub (``new``) and the student's file (``mine``).

A *task function* is a function whose stub raises a task's ``NotImplementedError`` (found
with ``ast``; for a method nested in a task function, the outermost one). The merge is

- the given code (everything outside task functions) merged line by line: the new given
  code, plus the student's own changes to it. Lines the student only inserted (an import,
  a helper) are always kept, beside the course's; a student's change to given lines that
  the new version changed too (a true clash) gives way to the new given code, and the
  report quotes the student's dropped lines;
- each task function: the student's version where it differs from the old stub's (the
  student wrote it), with the course's changes to its given lines (signature, docstring,
  code around the task) merged in where they do not touch the student's lines, else kept
  whole and reported; the new stub's version where it does not differ (untouched);
- afterwards, each kept task function's use of a module-level name that the student's file
  had and the merged file no longer has (a given helper renamed) is reported.

With no ``old`` (no record of the stubs a file started from) a task function counts as
untouched while it still raises its task's stub error, and the given code is the new one.
A written task whose function the new file no longer has is an *orphan*: the caller
(``tools.update``) puts it where the task moved to, or reports it; it keeps a backup of the
student's file either way.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import re
import textwrap
from dataclasses import dataclass, field

from autograder.frames import STUB_RAISE, functions

_WHOLE_RAISE = re.compile(r'raise NotImplementedError\(\s*"Task \d+\.\d+:[^"]*"\s*\)')
_HOLE = "\0"  # a task function's place in a file's skeleton: "\0" + its qualified name


class MergeError(Exception):
    """The student's file cannot be merged at all (it does not parse); it is left as it is."""


@dataclass
class Merged:
    """The merged text and what happened to each task function, for the report."""

    text: str
    kept: list[str] = field(default_factory=list)  # written by the student: kept as written
    updated: list[str] = field(default_factory=list)  # untouched: now the new stub
    added: list[str] = field(default_factory=list)  # task functions new in this file
    # kept, with the course's changes to the given lines inside them merged in
    refreshed: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # what could not be merged
    notes: list[str] = field(default_factory=list)  # kept, but the student must look
    # written task functions with no place in the new file: name → (task ids, lines)
    orphans: dict[str, tuple[set[str], list[str]]] = field(default_factory=dict)


def span(node: ast.AST) -> tuple[int, int]:
    """The lines (first, last; 1-based) of a function, its decorators included."""
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return first, node.end_lineno


def task_functions(stub_text: str) -> dict[str, set[str]]:
    """The outermost functions of a stub file that raise a task's stub error, with the ids
    of the tasks they raise."""
    lines = stub_text.splitlines()
    tasks = {}
    for name, node in functions(ast.parse(stub_text)).items():
        a, b = span(node)
        if ids := set(STUB_RAISE.findall("\n".join(lines[a - 1 : b]))):
            tasks[name] = ids
    return {n: ids for n, ids in tasks.items() if not any(n.startswith(o + ".") for o in tasks)}


def orphan_problem(name: str, ids: set[str], now: str | None = None) -> str:
    """What the report says of a written task function that could not be placed; ``now``
    names where a stub of its task is in the new version (``B.f in chapters/x.py``), when
    one is but could not be filled (written there too, or more than one fits)."""
    which = f"{name} (task {', '.join(sorted(ids))})" if ids else name
    if now is not None:
        return (
            f"{which}: you wrote it, but the new version of this file has no function {name}; "
            f"the task is now {now}: copy your code there from the backup"
        )
    return (
        f"{which}: you wrote it, but the new version of this file has no such function, and "
        "no other file has its stub; your version is only in the backup"
    )


def reindent(lines: list[str], like: str) -> list[str]:
    """A function's ``lines`` moved to the indentation of the line ``like`` (a method that
    became a module-level function, or the reverse); blank lines stay blank."""
    old = lines[0][: len(lines[0]) - len(lines[0].lstrip())] if lines else ""
    new = like[: len(like) - len(like.lstrip())]
    return [new + line.removeprefix(old) if line.strip() else line for line in lines]


def function_text(text: str, name: str) -> str | None:
    """The source of function ``name`` in ``text`` (None when it has none or cannot parse)."""
    try:
        found = functions(ast.parse(text))
    except SyntaxError:
        return None
    if name not in found:
        return None
    a, b = span(found[name])
    return "\n".join(text.splitlines()[a - 1 : b])


def place(text: str, name: str, lines: list[str]) -> str | None:
    """``text`` with its function ``name`` replaced by ``lines``; None when it has none."""
    found = functions(ast.parse(text))
    if name not in found:
        return None
    a, b = span(found[name])
    out = text.splitlines()
    out[a - 1 : b] = lines
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def _split(text: str, tree: ast.AST, names: set[str]) -> tuple[dict, list[str], list[int]]:
    """``text`` cut into its functions named in ``names`` (outermost only) and the skeleton
    around them (each function one hole line), with each skeleton line's line number."""
    lines, found = text.splitlines(), functions(tree)
    present = {n for n in names if n in found}
    present = {n for n in present if not any(n.startswith(o + ".") for o in present)}
    spans = sorted((span(found[n]), n) for n in present)
    parts, skeleton, origin, at = {}, [], [], 1
    for (a, b), name in spans:
        skeleton += lines[at - 1 : a - 1]
        origin += range(at, a)
        parts[name] = lines[a - 1 : b]
        skeleton.append(_HOLE + name)
        origin.append(a)
        at = b + 1
    skeleton += lines[at - 1 :]
    origin += range(at, len(lines) + 1)
    return parts, skeleton, origin


def _hunks(old: list[str], other: list[str]) -> list[tuple[int, int, list[str], int, int]]:
    matcher = difflib.SequenceMatcher(None, old, other, autojunk=False)
    return [
        (i1, i2, other[j1:j2], j1, j2)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _apply(old: list[str], start: int, end: int, hunks: list) -> list[str]:
    out, at = [], start
    for i1, i2, lines, _, _ in sorted(hunks, key=lambda h: h[0]):
        out += old[at:i1] + lines
        at = i2
    return out + old[at:end]


def _clashes(mine: tuple, new: list[tuple]) -> bool:
    """Whether the student's hunk ``mine`` changed original lines that a hunk of ``new``
    changed too (a true clash). A pure insertion never clashes: it is kept beside the
    course's lines."""
    i1, i2 = mine[0], mine[1]
    if i1 == i2:
        return False
    for j1, j2, lines, _, _ in new:
        if (j1, j2, lines) == (i1, i2, mine[2]):
            continue  # the same change on both sides
        if (j1 < j2 and max(i1, j1) < min(i2, j2)) or (j1 == j2 and i1 < j1 < i2):
            return True
    return False


def _resolve(old: list[str], start: int, end: int, mine: list, new: list) -> tuple[list, list]:
    """One group of nearby hunks that both sides changed: the course's hunks, and each of the
    student's that touches none of the lines they changed; the student's insertions go before
    the course's lines at the same place, after them inside a range the course rewrote.
    Returns the merged lines and the student's hunks that clashed (left out)."""
    clashed = [m for m in mine if _clashes(m, new)]
    edits = [(j1, j2, lines, 1) for j1, j2, lines, _, _ in new]
    for m in mine:
        i1, i2, lines = m[0], m[1], m[2]
        if m in clashed or any((n[0], n[1], n[2]) == (i1, i2, lines) for n in new):
            continue  # clashed, or the course made the same change
        if i1 == i2:  # inside a range the course rewrote: after the course's lines
            i1 = i2 = next((j2 for j1, j2, *_ in new if j1 < i1 < j2), i1)
        edits.append((i1, i2, lines, 0))
    out, at = [], start
    for i1, i2, lines, _ in sorted(edits, key=lambda e: (e[0], e[1], e[3])):
        out += old[at:i1] + lines
        at = max(at, i2)
    return out + old[at:end], clashed


def merge3(
    old: list[str], mine: list[str], new: list[str]
) -> tuple[list[str], list[tuple[int, int]]]:
    """Lines merged from both sides' changes to ``old``. The student's insertions are always
    kept; where both sides changed the same original lines differently, ``new``'s win. Also
    returns those clashes as ranges of ``mine``'s indices (start, end; empty for a deletion
    of given lines)."""
    tagged = sorted(
        [(h, 0) for h in _hunks(old, mine)] + [(h, 1) for h in _hunks(old, new)],
        key=lambda t: (t[0][0], t[0][1]),
    )
    out, clashes, at, i = [], [], 0, 0
    while i < len(tagged):
        start, end = tagged[i][0][0], tagged[i][0][1]
        group = [tagged[i]]
        i += 1
        while i < len(tagged) and tagged[i][0][0] <= end:  # overlapping or adjacent
            end = max(end, tagged[i][0][1])
            group.append(tagged[i])
            i += 1
        out += old[at:start]
        sides = [[h for h, side in group if side == k] for k in (0, 1)]
        texts = [_apply(old, start, end, hunks) for hunks in sides]
        if not sides[1] or texts[0] == texts[1]:
            out += texts[0]
        elif not sides[0]:
            out += texts[1]
        else:
            lines, clashed = _resolve(old, start, end, *sides)
            out += lines
            clashes += [(h[3], h[4]) for h in clashed]
        at = end
    return out + old[at:], clashes


def _clash(skeleton: list[str], origin: list[int], start: int, end: int, size: int) -> str:
    """What the report says of the student's given-code lines ``skeleton[start:end]`` (line
    numbers from ``origin``), dropped because the course changed the same lines."""
    first = origin[start] if start < len(origin) else size + 1
    if end == start:
        return (
            f"you had deleted given lines before your line {first}, and the new version changed "
            "them: they are back, as the new version has them"
        )
    last = origin[end - 1]
    lines = [line.strip() for line in skeleton[start:end] if not line.startswith(_HOLE)]
    quoted = next((line for line in lines if line), "")
    quoted = f" (`{quoted[:60]}`{' …' if end - start > 1 else ''})" if quoted else ""
    where = f"line {first}" if last == first else f"lines {first}–{last}"
    return (
        f"your {where}{quoted} changed given lines that the new version changed too: the new "
        "given code was taken and your lines were dropped; they are in the backup"
    )


def _given(lines: list[str]) -> str:
    """A task function's stub less its ``raise NotImplementedError(…)``: the given lines."""
    return _WHOLE_RAISE.sub("", "\n".join(lines))


def _parse(text: str, whose: str) -> ast.AST:
    try:
        return ast.parse(text)
    except SyntaxError as exc:
        raise MergeError(f"{whose} has a syntax error at line {exc.lineno}") from None


def merge(old: str | None, new: str, mine: str) -> Merged:
    """The student's ``mine`` brought onto ``new`` (see the module docstring); ``mine`` has
    no byte-order mark (``tools.update`` decodes it with "utf-8-sig" and puts it back)."""
    mine_tree = _parse(mine, "your file")
    new_tasks = task_functions(new)
    old_tasks = task_functions(old) if old is not None else {}
    names = set(new_tasks) | set(old_tasks)
    new_parts, new_skeleton, _ = _split(new, ast.parse(new), names)
    mine_parts, mine_skeleton, origin = _split(mine, mine_tree, names)
    if old is None:  # no record: the given code is the new one, untouched tasks still raise
        old_parts, old_skeleton = {}, mine_skeleton
    else:
        old_parts, old_skeleton, _ = _split(old, ast.parse(old), names)

    def written(name: str) -> bool:
        text = "\n".join(mine_parts[name])
        if old is not None and name in old_parts:
            return mine_parts[name] != old_parts[name]
        ids = new_tasks.get(name) or old_tasks.get(name) or set()
        return not ids & set(STUB_RAISE.findall(text))

    def label(name: str) -> str:
        ids = sorted(new_tasks.get(name) or old_tasks.get(name) or ())
        return f"{name} (task {', '.join(ids)})" if ids else name

    skeleton, clashes = merge3(old_skeleton, mine_skeleton, new_skeleton)
    result = Merged("")
    out, placed = [], set()
    for line in skeleton:
        if not line.startswith(_HOLE):
            out.append(line)
            continue
        name = line[len(_HOLE) :]
        placed.add(name)
        mine_part, new_part = mine_parts.get(name), new_parts.get(name)
        if new_part is not None and name not in new_tasks:  # no longer a task: given code
            out += new_part
            if mine_part is not None and written(name):
                result.problems.append(
                    f"{label(name)} is given code now: the new version was taken; yours is "
                    "only in the backup"
                )
        elif mine_part is not None and written(name):
            result.kept.append(label(name))
            old_part = old_parts.get(name)
            if new_part is None or old_part is None or _given(old_part) == _given(new_part):
                out += mine_part
                continue
            lines = _inside(old_part, mine_part, new_part)
            if lines is not None:
                out += lines
                result.refreshed.append(label(name))
            else:
                out += mine_part
                result.notes.append(
                    f"{label(name)}: the new version changed given lines inside it (signature, "
                    "docstring or code around the task) that you changed too; yours is kept as "
                    "you wrote it: compare it with the new stub and bring the given lines over "
                    "by hand"
                )
        elif new_part is not None:
            out += new_part
            if mine_part is None and name not in old_parts:
                result.added.append(label(name))
            elif mine_part != new_part:
                result.updated.append(label(name))
        elif mine_part is not None:
            out += mine_part
    for name in sorted(set(mine_parts) - placed):
        if written(name):
            ids = old_tasks.get(name) or new_tasks.get(name) or set()
            result.orphans[name] = (ids, mine_parts[name])
    for start, end in clashes:
        result.problems.append(_clash(mine_skeleton, origin, start, end, len(mine.splitlines())))
    if old is None and mine_skeleton != new_skeleton:
        result.problems.append(
            "no record of the stub this file started from: its given code is now the new "
            "one; if you had changed given code, take it back from the backup"
        )
    result.text = "\n".join(out) + ("\n" if new.endswith("\n") else "")
    try:
        tree = ast.parse(result.text)
    except SyntaxError as exc:
        raise MergeError(f"the merged file would not parse (line {exc.lineno})") from None
    result.notes += _vanished(tree, mine_tree, [n for n in mine_parts if label(n) in result.kept])
    return result


def _inside(old: list[str], mine: list[str], new: list[str]) -> list[str] | None:
    """A written task function with the course's changes to its given lines (signature,
    docstring, code around the task) merged in; None where they touch the student's lines.
    The stub's ``raise`` is taken as the new one's first, so a reworded stub message does
    not count as a change where the student wrote their code."""
    old_text, new_raises = "\n".join(old), _WHOLE_RAISE.findall("\n".join(new))
    if len(_WHOLE_RAISE.findall(old_text)) == len(new_raises):
        swaps = iter(new_raises)
        old = _WHOLE_RAISE.sub(lambda _: next(swaps), old_text).split("\n")
    lines, clashed = merge3(old, mine, new)
    try:
        ast.parse(textwrap.dedent("\n".join(lines)))
    except SyntaxError:
        return None
    return None if clashed else lines


def _module_names(tree: ast.Module) -> set[str]:
    """The names a module binds at its top level (functions, classes, imports, assignments),
    looking into ``if``/``try``/``with`` blocks but not into functions or classes."""
    names: set[str] = set()
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif not isinstance(node, ast.Lambda):
            todo += ast.iter_child_nodes(node)
    return names


def _free_names(function: ast.AST) -> set[str]:
    """The names a function reads that nothing inside it binds (parameters, assignments,
    imports, nested functions and classes, ``except … as``): what it takes from its module."""
    loads, bound = set(), set()
    for node in ast.walk(function):
        if isinstance(node, ast.Name):
            (loads if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return loads - bound - set(dir(builtins))


def _vanished(merged: ast.Module, mine: ast.Module, kept: list[str]) -> list[str]:
    """For each kept task function, the module-level names it uses that the student's file
    defined and the merged file no longer does (a given helper renamed or removed)."""
    now, before, found = _module_names(merged), _module_names(mine), functions(merged)
    notes = []
    for name in kept:
        if name in found and (gone := sorted((_free_names(found[name]) & before) - now)):
            uses = ", ".join(f"`{n}`" for n in gone)
            notes.append(
                f"your {name} uses {uses}, which the new version of this file no longer "
                "defines (renamed or removed?): edit your code to use what the new version "
                "has — do not `make reset` the task, that would throw your work away"
            )
    return notes

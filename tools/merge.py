"""Three-way merge of one chapter file: the stub it started from (``old``), the course's new
stub (``new``) and the student's file (``mine``).

A *task function* is a function whose stub raises a task's ``NotImplementedError`` (found
with ``ast``; for a method nested in a task function, the outermost one). The merge is

- the given code (everything outside task functions) merged line by line: the new given
  code, plus the student's own changes to it (an import, a helper) where they do not touch
  lines the new version changed; where they do, the new given code wins and the clash is
  reported;
- each task function: the student's version, byte for byte, where it differs from the old
  stub's (the student wrote it); the new stub's version where it does not (untouched).

With no ``old`` (no record of the stubs a file started from) a task function counts as
untouched while it still raises its task's stub error, and the given code is the new one.
A written task whose function the new file no longer has is an *orphan*: the caller
(``tools.update``) puts it where the task moved to, or reports it; it keeps a backup of the
student's file either way.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass, field

TASK_RAISE = re.compile(r'NotImplementedError\(\s*"Task (\d+\.\d+):')
_STUB_RAISE = re.compile(r'raise NotImplementedError\(\s*"Task \d+\.\d+:[^"]*"\s*\)')
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
    problems: list[str] = field(default_factory=list)  # what could not be merged
    # written task functions with no place in the new file: name → (task ids, lines)
    orphans: dict[str, tuple[set[str], list[str]]] = field(default_factory=dict)


def functions(tree: ast.AST) -> dict[str, ast.AST]:
    """Every function and method of a module by qualified name (``Value.__mul__``)."""
    found: dict[str, ast.AST] = {}
    stack: list[tuple[str, ast.AST]] = [("", tree)]
    while stack:
        prefix, node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                if not isinstance(child, ast.ClassDef):
                    found[name] = child
                stack.append((name + ".", child))
    return found


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
        if ids := set(TASK_RAISE.findall("\n".join(lines[a - 1 : b]))):
            tasks[name] = ids
    return {n: ids for n, ids in tasks.items() if not any(n.startswith(o + ".") for o in tasks)}


def orphan_problem(name: str, ids: set[str]) -> str:
    """What the report says of a written task function that could not be placed."""
    which = f"{name} (task {', '.join(sorted(ids))})" if ids else name
    return (
        f"{which}: you wrote it, but the new version of this file has no such function, and "
        "no other file has its stub; your version is only in the backup"
    )


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


def merge3(
    old: list[str], mine: list[str], new: list[str]
) -> tuple[list[str], list[tuple[int, int]]]:
    """Lines merged from both sides' changes to ``old``; where the changes touch the same or
    adjacent lines and differ, ``new``'s win. Also returns those clashes as ranges of
    ``mine``'s indices (start, end)."""
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
        else:
            out += texts[1]
            if sides[0]:
                clashes.append((min(h[3] for h in sides[0]), max(h[4] for h in sides[0])))
        at = end
    return out + old[at:], clashes


def _given(lines: list[str]) -> str:
    """A task function's stub less its ``raise NotImplementedError(…)``: the given lines."""
    return _STUB_RAISE.sub("", "\n".join(lines))


def _parse(text: str, whose: str) -> ast.AST:
    try:
        return ast.parse(text)
    except SyntaxError as exc:
        raise MergeError(f"{whose} has a syntax error at line {exc.lineno}") from None


def merge(old: str | None, new: str, mine: str) -> Merged:
    """The student's ``mine`` brought onto ``new`` (see the module docstring)."""
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
        return not ids & set(TASK_RAISE.findall(text))

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
            out += mine_part
            result.kept.append(label(name))
            if new_part is not None and _given(old_parts.get(name, new_part)) != _given(new_part):
                task_id = min(new_tasks.get(name) or {"N.k"})
                result.problems.append(
                    f"the given lines of {label(name)} changed (signature, docstring or code "
                    "around the task): yours are kept as you wrote them; compare with the new "
                    f"stub (`make reset TASK={task_id}` puts it in, after a backup of yours)"
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
        first = origin[start] if start < len(origin) else len(mine.splitlines())
        last = origin[end - 1] if end - 1 < len(origin) and end > start else first
        result.problems.append(
            f"your change to the given code at lines {first}–{last} clashes with the new given "
            "code there: the new given code was taken; your version is in the backup"
        )
    if old is None and mine_skeleton != new_skeleton:
        result.problems.append(
            "no record of the stub this file started from: its given code is now the new "
            "one; if you had changed given code, take it back from the backup"
        )
    result.text = "\n".join(out) + ("\n" if new.endswith("\n") else "")
    try:
        ast.parse(result.text)
    except SyntaxError as exc:
        raise MergeError(f"the merged file would not parse (line {exc.lineno})") from None
    return result

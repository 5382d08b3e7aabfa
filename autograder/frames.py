"""Where an exception was raised, as a student reads it: the innermost frame inside one of
their tasks' functions (where their bug usually is), then the given code's frame below it
when the exception came from deeper (``_check_shapes``, ``dim_index``, …).

Which functions hold a task: those whose text holds a task region of the reference (in
the course repository) or a task's stub (``NotImplementedError("Task N.k: …")`` in the stubs a
student release ships as ``tools/pristine-stubs.json``), found with ``ast`` as
``tools/reset.py`` finds them. Where neither is at hand, the innermost frame is shown alone.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from pathlib import Path
from typing import Any, NamedTuple

from .language import tr

REPO = Path(__file__).resolve().parent.parent
# a task's stub (``raise NotImplementedError("Task 2.5: …")``; group 1: its task), shared by
# ``grading.py`` and ``tools/merge.py`` (``harness/child.py`` keeps its own: it sees only harness/)
STUB_RAISE = re.compile(r'NotImplementedError\(\s*"Task ([0-9]+\.[0-9]+):')
# a region's first line (written so that this file holds no marker itself), or a stub;
# either names its task
TASK_TEXT = re.compile("#" * 3 + r"\s*BEGIN SOLUTION\s+([0-9]+\.[0-9]+)|" + STUB_RAISE.pattern)
LIMIT = 20  # frames the child sends, innermost last


def functions(tree: ast.AST) -> dict[str, ast.AST]:
    """Every function and method of a module by qualified name (``Value.__mul__``); also
    what ``tools/merge.py`` reads a student's file with."""
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


def tasks_of_functions(text: str) -> dict[str, str]:
    """The functions of a module's ``text`` that hold a task, by qualified name: their task's
    id (``{"Sigmoid.backward": "2.5"}``), in the module's order."""
    lines = text.splitlines()
    try:
        defined = functions(ast.parse(text))
    except SyntaxError:
        return {}
    found = {}
    for name, node in sorted(defined.items(), key=lambda item: item[1].lineno):
        match = TASK_TEXT.search("\n".join(lines[node.lineno - 1 : node.end_lineno]))
        if match:
            found[name] = match.group(1) or match.group(2)
    return found


def _sources(repo: Path) -> dict[str, str]:
    """The reference (course repository) or, in a release, the pristine stubs: text by path
    relative to the chapters' folder."""
    solutions = repo / "solutions"
    if solutions.is_dir():
        return {
            p.relative_to(solutions).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(solutions.glob("*/**/*.py"))
        }
    try:
        stubs = json.loads((repo / "tools" / "pristine-stubs.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in stubs.items() if isinstance(v, str) and k.endswith(".py")}


@functools.cache
def _tasks(repo: Path) -> dict[str, dict[str, str]]:
    """Each file's task functions and their tasks (``tasks_of_functions``), for the files
    holding any: the sources parsed once, for both tables below."""
    found = {rel: tasks_of_functions(text) for rel, text in _sources(repo).items()}
    return {rel: tasks for rel, tasks in found.items() if tasks}


def task_functions(repo: Path = REPO) -> dict[str, tuple[str, ...]]:
    """Task functions by file (``"ch02_tensor/matmul.py": ("MatMul.backward",)``)."""
    return {rel: tuple(tasks) for rel, tasks in _tasks(repo).items()}


def functions_of_tasks(repo: Path = REPO) -> dict[str, tuple[str, ...]]:
    """Each task's functions, by task id (``"2.5": ("Tanh.backward", "Sigmoid.backward",
    …)``), in the order of the files and of the functions in each."""
    found: dict[str, tuple[str, ...]] = {}
    for tasks in _tasks(repo).values():
        for name, task in tasks.items():
            found[task] = (*found.get(task, ()), name)
    return found


def files_of_task(task: str, repo: Path = REPO) -> dict[str, tuple[str, ...]]:
    """Task ``task``'s functions by file, in order (``{"ch05_nn/nn/module.py":
    ("Module.named_modules", "Module._named_members", "Module.train")}``)."""
    found = {}
    for rel, tasks in _tasks(repo).items():
        names = tuple([name for name, of in tasks.items() if of == task])
        if names:
            found[rel] = names
    return found


def _task_of(path: str, qualname: str, table: dict[str, tuple[str, ...]]) -> str:
    """The task function of ``table`` that the function ``qualname`` of ``path`` is, or is
    inside (a closure of a task's function is the task's), or ""."""
    name = qualname.replace("<locals>.", "")
    return next((f for f in table.get(path, ()) if name == f or name.startswith(f + ".")), "")


class Frame(NamedTuple):
    """A frame the child sent (``wire.Frame``), checked: it is code under test's data."""

    path: str
    line: int
    function: str


def _text(frame: Frame) -> str:
    return f"chapters/{frame.path}, line {frame.line}, in {frame.function}"


def _valid(frames: Any) -> list[Frame]:
    """The child's frames, kept only where each is a ``wire.Frame`` of plain types (all or
    none: a frame that is not one means the list is not the child's own)."""
    if not isinstance(frames, list):
        return []
    ok = [
        Frame(f["path"][:200], f["line"], f["function"][:200])
        for f in frames[-LIMIT:]
        if isinstance(f, dict)
        and isinstance(f.get("path"), str)
        and type(f.get("line")) is int
        and isinstance(f.get("function"), str)
    ]
    return ok if len(ok) == len(frames[-LIMIT:]) else []


def task_function(info: dict, table: dict[str, tuple[str, ...]] | None = None) -> str:
    """The qualified name of the task function the innermost task frame of ``info`` is in
    (a closure's: its function's), or "" (a stub met: the function not written yet)."""
    table = task_functions() if table is None else table
    found = (_task_of(f.path, f.function, table) for f in reversed(_valid(info.get("frames"))))
    return next((function for function in found if function), "")


def where(info: dict, table: dict[str, tuple[str, ...]] | None = None) -> str:
    """The report's "raised at": the innermost frame inside a task's function, then (on its
    own line) the innermost frame of all when that one is given code; the innermost frame
    alone, labelled given code, when none is in a task; the child's ``where`` where it sent
    no frames."""
    frames = _valid(info.get("frames"))
    if not frames:
        return str(info.get("where", ""))
    table = task_functions() if table is None else table
    innermost = frames[-1]
    own = next((f for f in reversed(frames) if _task_of(f.path, f.function, table)), None)
    if own is None and table:  # the tasks are known, and no frame is in one
        return _text(innermost) + tr(" (given code)", "（给定代码）")
    if own is None or own == innermost:
        return _text(innermost)
    called = tr(" (given code, called from there)", "（给定代码，从上一行调用）")
    return f"{_text(own)}\n{_text(innermost)}{called}"

"""Stub generation, the pure core: the reference's text → the stubs' text.

Each task region of the reference,

    ### BEGIN SOLUTION 1.3
    ...
    ### END SOLUTION

becomes ``raise NotImplementedError("Task 1.3: <title> — see <section> of the notebook")``,
with the title and section from the chapter's task table; each notebook is its tree's
(``notebook_gen``), and every other file is copied as it is. Nothing here writes a file: the
grader (``grading.repository_course``) and the repository's tools (``tools.stubs``,
``tools.release``) both build on it, which is why it lives in the autograder, below the
tools. It holds the markers' text, so it stays out of the student release
(``tools/release.py`` names it instructor-only).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from . import translations
from .notebook_gen import notebook_for

BEGIN = re.compile(r"^(?P<indent>[ \t]*)### BEGIN SOLUTION(?:[ \t]+(?P<task>\S+))?[ \t]*$")
END = re.compile(r"^[ \t]*### END SOLUTION[ \t]*$")
MARKER = re.compile(r"###\s*(BEGIN|END)\s+SOLUTION")
LINE_LIMIT = 100
SKIP_DIRS = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache"}
SKIP_SUFFIXES = {".pyc", ".pyo"}


class StubError(Exception):
    """A problem the person running the generator must fix; the message says what."""


def task_message(task_id: str) -> str:
    """The stub's message for ``task_id``, from its chapter's task table."""
    from autograder.course import task

    try:
        return task(task_id)[1].stub_message
    except (KeyError, ValueError) as exc:
        raise StubError(str(exc.args[0])) from None


def _raise_line(indent: str, message: str) -> list[str]:
    literal = json.dumps(message, ensure_ascii=False)
    one = f"{indent}raise NotImplementedError({literal})"
    if len(one) <= LINE_LIMIT:
        return [one]
    return [f"{indent}raise NotImplementedError(", f"{indent}    {literal}", f"{indent})"]


def stub_source(
    text: str, where: str = "<source>", message: Callable[[str], str] = task_message
) -> str:
    """``text`` with every task region replaced by its stub (see the module docstring)."""
    out: list[str] = []
    region: tuple[int, str] | None = None  # (line number, task id) of the open BEGIN
    for number, line in enumerate(text.splitlines(), start=1):
        begin, end = BEGIN.match(line), END.match(line)
        if begin:
            if region:
                raise StubError(
                    f"{where}:{number}: BEGIN SOLUTION inside the region opened at line {region[0]}"
                )
            if not begin["task"]:
                raise StubError(
                    f"{where}:{number}: BEGIN SOLUTION needs a task id, e.g. "
                    "'### BEGIN SOLUTION 1.3'"
                )
            region = (number, begin["task"])
            out.extend(_raise_line(begin["indent"], message(begin["task"])))
        elif end:
            if not region:
                raise StubError(f"{where}:{number}: END SOLUTION without a BEGIN SOLUTION")
            region = None
        elif MARKER.search(line):
            raise StubError(f"{where}:{number}: malformed solution marker: {line.strip()!r}")
        elif not region:
            out.append(line)
    if region:
        raise StubError(f"{where}:{region[0]}: BEGIN SOLUTION {region[1]} is never closed")
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def files(root: Path) -> list[Path]:
    """The files of a tree the generator reads or writes (no caches, no compiled files)."""
    if not root.is_dir():
        return []
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file()
        and not SKIP_DIRS.intersection(p.relative_to(root).parts)
        and p.suffix not in SKIP_SUFFIXES
    )


def generate(solutions: Path, *, target: str = "repository", url: str = "") -> dict[str, bytes]:
    """Every file of ``chapters/`` as the generator writes it, by path relative to it, for
    ``target``'s tree: the repository's (``make stubs``) or a student release's, whose
    notebooks have their own wording and clone the course from ``url`` on Colab
    (``notebook_gen``)."""
    out = {}
    for path in files(solutions):
        rel = path.relative_to(solutions).as_posix()
        if path.suffix == ".py":
            out[rel] = stub_source(path.read_text(encoding="utf-8"), f"solutions/{rel}").encode()
        elif path.suffix == ".ipynb":
            package = rel.split("/")[0]
            out[rel] = notebook_for(path.read_bytes(), package, target=target, url=url)
            paired = path.with_suffix(translations.SUFFIX)  # its Chinese prose, if written
            if paired.is_file():
                zh = json.loads(paired.read_text(encoding="utf-8"))
                out[rel[: -len(".ipynb")] + ".zh.ipynb"] = translations.translated(out[rel], zh)
        elif path.name.endswith(translations.SUFFIX) or ".zh.draft." in path.name:
            continue  # a notebook's translation: written into its .zh.ipynb above
        else:
            out[rel] = path.read_bytes()
    return out

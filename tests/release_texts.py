"""What a built student release says that it does not ship (issue 32): ``untruths(root)``.

A release is the course less its instructor half (``solutions/``, ``tests/``, the hidden
checks, the instructor tools, the repository Makefile's instructor targets). Every text in
it — Python, Markdown, the Makefile, a notebook's cells and outputs — must be true where it
is read, so it must not send a student to any of those. This module reads every text file of
a release and reports each line that does, as ``"path:line: what"``.

The patterns are written out here, not imported from ``tools/release.py``: a check that read
the release tool's own lists could not catch the tool's mistake. What counts as a missing
make target or variable is computed from the two Makefiles themselves (the repository's and
the release's), so the check follows both as they grow.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# Files that are not text (or not the course's words): skipped without being decoded.
BINARY_SUFFIXES = {".npz", ".npy", ".png", ".jpg", ".jpeg", ".gif", ".gz", ".zip", ".pdf"}
BINARY_SUFFIXES |= {".pyc", ".pyo", ".so", ".whl", ".tar", ".bz2", ".xz", ".pt"}
# Records the release writes about itself (checksums, the stubs as shipped): their text is
# the course's files again, which are read on their own.
RECORDS = {"tools/pristine-stubs.json", "chapters/.manifest.json"}

# What only the course repository has, written out again (see the module docstring).
FIXED = [
    (re.compile(r"\bsolutions/"), "names the solutions/ tree, which the release lacks"),
    (re.compile(r"SPARROW_IMPL=solutions"), "SPARROW_IMPL=solutions, which the release lacks"),
    (re.compile(r"autograder/hidden"), "names the hidden checks, which the release lacks"),
    (re.compile(r"autograder\.hidden"), "names the hidden checks, which the release lacks"),
    (
        re.compile(r"\bsolutions\.ch\d\d_"),
        "names the reference's packages, which the release lacks",
    ),
]
# Code, not words to a reader, that names what the release lacks in order to look for it
# where it exists, each with why that is true in a release: (path, the line's text).
ALLOWED = {
    # The instructor grader looks the hidden checks up and finds none in a release (and a
    # release's grade command stops before, since grading needs the reference:
    # tests/test_release.py::test_the_instructor_grader_in_a_release_says_what_it_lacks).
    ("autograder/grading.py", 'module = f"autograder.hidden.{ch.package}"'),
    # An error only a Gradescope zip's grader can reach (a secret seed's runs missing), said
    # to the instructor, who has the repository's Makefile; a release never prepares a seed.
    ("autograder/expectations.py", 'f"rebuild the zip with `make gradescope CHAPTER='),
}
MAKE = re.compile(r"`?\bmake ([A-Za-z][\w-]*)((?:[ \t]+[A-Z][A-Z0-9_]*=\S*)*)")
MAKE_VARIABLE = re.compile(r"([A-Z][A-Z0-9_]*)=")
MODULE = re.compile(r"python3? -m ((?:tools|support|autograder)(?:\.\w+)+)")
TOOL_PATH = re.compile(r"\b(tools/\w+)\.py\b")
TARGET_LINE = re.compile(r"^([A-Za-z][\w%-]*)[ \t]*:(?!=)", re.M)
VARIABLE_USE = re.compile(r"\$\(([A-Z][A-Z0-9_]*)\)")
# An environment variable the release's Python reads: `make X NAME=…` exports it to the
# command (GNU make puts command-line variables into the recipes' environment).
ENVIRON_READ = re.compile(r"(?:environ(?:\.get)?[\[(]|getenv\()\s*[\"']([A-Z][A-Z0-9_]*)[\"']")


def targets(makefile: Path) -> set[str]:
    """The targets a Makefile defines (pattern rules such as ``chapter-%`` as written)."""
    return set(TARGET_LINE.findall(makefile.read_text(encoding="utf-8")))


def variables(makefile: Path) -> set[str]:
    """The variables a Makefile reads (``$(NAME)``): those ``make X NAME=…`` can set."""
    return set(VARIABLE_USE.findall(makefile.read_text(encoding="utf-8")))


def _matches(name: str, defined: set[str]) -> bool:
    """Whether ``make name`` runs one of ``defined`` (``%`` matches any non-empty stem)."""
    for target in defined:
        if "%" in target:
            head, tail = target.split("%", 1)
            if name.startswith(head) and name.endswith(tail) and len(name) > len(head) + len(tail):
                return True
        elif name == target:
            return True
    return False


def _texts(root: Path) -> Iterator[tuple[str, list[str]]]:
    """Every text of a release, as (where, lines): a file, or one notebook cell or output."""
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if not path.is_file() or path.suffix.lower() in BINARY_SUFFIXES or rel in RECORDS:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        if path.suffix == ".ipynb":
            yield from _notebook_texts(rel, json.loads(text))
        else:
            yield rel, text.splitlines()


def _join(value: object) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _notebook_texts(rel: str, notebook: dict) -> Iterator[tuple[str, list[str]]]:
    """A notebook's cells' sources and every text of their outputs (streams, text/* and
    JSON data, an error's name, value and traceback)."""
    for number, cell in enumerate(notebook.get("cells", []), 1):
        yield f"{rel}:cell {number}", _join(cell.get("source", "")).splitlines()
        for k, output in enumerate(cell.get("outputs", []), 1):
            parts = [_join(output.get("text", ""))]
            for mime, value in output.get("data", {}).items():
                if mime.startswith("text/") or mime.endswith("json"):
                    parts.append(value if isinstance(value, str) else _join(value))
            parts += [str(output.get("ename", "")), str(output.get("evalue", ""))]
            parts += [_join(line) for line in output.get("traceback", [])]
            text = "\n".join(part for part in parts if part)
            yield f"{rel}:cell {number} output {k}", text.splitlines()


def repository_only(root: Path, repository: Path = REPO) -> set[str]:
    """The top-level files and folders the course repository tracks and the release at
    ``root`` lacks (``docs``, ``tests``, ``.ci``, …): read from git, not from a list."""
    try:
        listed = subprocess.run(
            ["git", "-C", str(repository), "ls-files"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return set()
    names = {line.split("/")[0] for line in listed}
    folders = {line.split("/")[0] for line in listed if "/" in line}
    return {f"{n}/" if n in folders else n for n in names if not (root / n).exists()}


def _name_patterns(names: set[str]) -> list[tuple[re.Pattern[str], str]]:
    """One pattern per repository-only name: ``docs/`` as a path, a file by its whole name."""
    patterns = []
    for name in sorted(names):
        tail = "" if name.endswith("/") else r"(?![\w.-])"
        pattern = re.compile(rf"(?<![\w./-]){re.escape(name)}{tail}")
        patterns.append((pattern, f"names {name}, which only the course repository has"))
    return patterns


def _environment_read(root: Path) -> set[str]:
    """The environment variables the release's Python code reads (``os.environ``, getenv)."""
    names: set[str] = set()
    for path in root.rglob("*.py"):
        names |= set(ENVIRON_READ.findall(path.read_text(encoding="utf-8", errors="replace")))
    return names


def _module_shipped(root: Path, dotted: str) -> bool:
    base = root.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def untruths(root: Path, repository_makefile: Path = REPO / "Makefile") -> list[str]:
    """Every line of the release at ``root`` that points to what the release does not ship:
    ``solutions/``, ``SPARROW_IMPL=solutions``, the hidden checks, a top-level file or folder
    of the repository the release lacks (``docs/``, ``tests/``), ``make X`` for a target
    of the repository's Makefile that the release's lacks, ``make X NAME=…`` for a variable
    the release's Makefile does not read, and a ``tools``/``support``/``autograder`` module
    (``python -m tools.x``, ``tools/x.py``) the release does not hold."""
    release_makefile = root / "Makefile"
    ours = targets(release_makefile) if release_makefile.is_file() else set()
    theirs = targets(repository_makefile)
    settable = variables(release_makefile) if release_makefile.is_file() else set()
    settable |= _environment_read(root)
    # solutions/ is FIXED's own pattern: named once, not twice
    named = FIXED + _name_patterns(repository_only(root) - {"solutions/"})
    found = []
    for where, lines in _texts(root):
        for number, line in enumerate(lines, 1):
            if any(where == path and text in line for path, text in ALLOWED):
                continue
            for what in _line_untruths(root, line, ours, theirs, settable, named):
                found.append(f"{where}:{number}: {what}")
    return found


def _line_untruths(
    root: Path,
    line: str,
    ours: set[str],
    theirs: set[str],
    settable: set[str],
    named: list[tuple[re.Pattern[str], str]],
) -> Iterator[str]:
    for pattern, what in named:
        if pattern.search(line):
            yield what
    for match in MAKE.finditer(line):
        target = match.group(1)
        if _matches(target, theirs) and not _matches(target, ours):
            yield f"make {target}: the release's Makefile has no such target"
        elif _matches(target, ours):
            for name in MAKE_VARIABLE.findall(match.group(2)):
                if name not in settable:
                    yield f"make {target} {name}=: the release's Makefile does not read {name}"
    for dotted in MODULE.findall(line):
        if not _module_shipped(root, dotted):
            yield f"python -m {dotted}: the release does not ship it"
    for stem in TOOL_PATH.findall(line):
        if not (root / f"{stem}.py").is_file():
            yield f"{stem}.py: the release does not ship it"

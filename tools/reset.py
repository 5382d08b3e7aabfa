"""Put one task back to its stub: ``make reset TASK=1.3`` (``python -m tools.reset 1.3``).

Only the functions that hold the task change (found with ``ast``): each is replaced by its
version in the stub of its file, after a copy of the file is kept under
``.sparrow/backups/<time>/``. The rest of the file, your other tasks included, stays as it is.

Where the stubs come from: in the repository, the stub generator writes them from
the reference; a student release has no reference and ships its stubs in
``tools/pristine-stubs.json`` instead (``make update`` keeps that file the stubs your files
started from). A stub holds no solution, so this file and that one are safe to ship. This
is the one command line for a reset, in the repository and in a release.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from tools import merge

REPO = Path(__file__).resolve().parent.parent
PRISTINE = Path("tools") / "pristine-stubs.json"  # in a student release: {path: stub text}


class ResetError(Exception):
    """A problem the person resetting must fix; the message says what."""


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file beside it and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def backup(paths: list[Path], repo: Path) -> Path:
    """Copy ``paths`` under ``.sparrow/backups/<time>/``, keeping their place in the repo."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    root = repo / ".sparrow" / "backups" / stamp
    for path in paths:
        target = root / path.resolve().relative_to(repo.resolve())
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    return root


def task_functions(stub_text: str, task_id: str) -> list[str]:
    """The functions of a stub file that raise task ``task_id``'s ``NotImplementedError``."""
    return [name for name, ids in merge.task_functions(stub_text).items() if task_id in ids]


def reset(task_id: str, stubs: Mapping[str, str], repo: Path = REPO) -> list[str]:
    """Put every function of ``repo/chapters`` that holds task ``task_id`` back to its version
    in ``stubs`` (stub text by path relative to ``chapters/``), keeping a backup of each
    file it changes; returns what it did, line by line."""
    chapters = repo / "chapters"
    report = []
    for rel, stub_text in sorted(stubs.items()):
        names = task_functions(stub_text, task_id) if rel.endswith(".py") else []
        if not names:
            continue
        target = chapters / rel
        if not target.exists():
            atomic_write(target, stub_text.encode())
            report.append(f"restored chapters/{rel} (it was missing)")
            continue
        text = target.read_text(encoding="utf-8")
        try:
            mine = merge.functions(ast.parse(text))
        except SyntaxError as exc:
            raise ResetError(
                f"chapters/{rel} has a syntax error at line {exc.lineno}; fix it, "
                "or start the whole file over (delete it, then reset one of its tasks)"
            ) from None
        stub_lines, stub_funcs = stub_text.splitlines(), merge.functions(ast.parse(stub_text))
        lines, spans = text.splitlines(), []
        for name in names:
            if name not in mine:
                raise ResetError(f"chapters/{rel} has no function {name} to reset")
            a, b = merge.span(stub_funcs[name])
            spans.append((merge.span(mine[name]), stub_lines[a - 1 : b]))
        for (a, b), replacement in sorted(spans, reverse=True):
            lines[a - 1 : b] = replacement
        new = "\n".join(lines) + ("\n" if text.endswith("\n") else "")
        if new == text:
            report.append(f"task {task_id} in chapters/{rel} is already its stub")
            continue
        where = backup([target], repo)
        atomic_write(target, new.encode())
        report.append(
            f"reset {', '.join(names)} in chapters/{rel} "
            f"(your version is kept in {where.relative_to(repo)})"
        )
    if not report:
        raise ResetError(f"no stub of task {task_id} was found")
    return report


def pristine_stubs(repo: Path = REPO) -> dict[str, str]:
    """The stubs a student release ships (``tools/pristine-stubs.json``)."""
    try:
        return json.loads((repo / PRISTINE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ResetError(f"cannot read {PRISTINE} (the stubs as released): {exc}") from None


def stubs_for(task_id: str, repo: Path = REPO) -> dict[str, str]:
    """The stubs to reset ``task_id`` to, by path relative to ``chapters/``: generated from
    the reference in the repository, the recorded ones in a student release."""
    from autograder.course import task

    task(task_id)  # a clear error for an unknown id (KeyError, ValueError)
    if not (repo / "solutions").is_dir():
        return pristine_stubs(repo)
    from autograder.stubgen import StubError, generate

    try:
        generated = generate(repo / "solutions")
    except StubError as exc:
        raise ResetError(str(exc)) from None
    return {rel: data.decode() for rel, data in generated.items() if rel.endswith(".py")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.reset", description=__doc__.split("\n")[0]
    )
    parser.add_argument("task", help="the task to put back to its stub, e.g. 1.3")
    args = parser.parse_args(argv)
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    try:
        print("\n".join(reset(args.task, stubs_for(args.task, REPO), REPO)))
        return 0
    except (ResetError, ValueError, KeyError) as exc:
        print(f"error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

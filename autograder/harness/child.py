"""The child process: import the code under test, run check programs, send back data.

Started by the runner as ``python -I -S -c "…" <tree>`` with a ``sys.path`` the runner built.
Reads its plan (JSON) from stdin and writes one JSON message per line to a private copy of
its original stdout; whatever the code under test prints goes to stderr. It computes no
verdict: the parent does that with data this process cannot reach.

The plan names each check's program as ``module:function``; the child imports those
modules (check programs only: case lists, expected values and verdicts never reach it).
Messages: ``ready`` (imports done) or ``import_error``; then ``begin``/``end`` around each
check, ``end`` carrying one result per case ({"value": data} or {"raised": {...}}) and
what the code printed; ``done``.
"""

from __future__ import annotations

import importlib
import io
import os
import re
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any

from . import wire

_STUB = re.compile(r"^Task (\d+\.\d+):")


def _describe(exc: BaseException, tree: Path) -> dict[str, Any]:
    """Type, message and the innermost line of the code under test where ``exc`` came from."""
    info: dict[str, Any] = {
        "type": type(exc).__name__,
        "message": wire.safe_repr(exc, 1000) if not str(exc) else str(exc)[:1000],
    }
    if isinstance(exc, NotImplementedError) and (match := _STUB.match(str(exc))):
        info["not_started"] = match.group(1)
    chapters = tree / "chapters"
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        try:
            relative = Path(frame.filename).resolve().relative_to(chapters)
            relative = Path("chapters") / relative
        except ValueError:
            continue
        info["where"] = f"{relative.as_posix()}, line {frame.lineno}, in {frame.name}"
        break
    if isinstance(exc, SyntaxError) and exc.filename:
        try:
            relative = Path("chapters") / Path(exc.filename).resolve().relative_to(chapters)
            info["where"] = f"{relative.as_posix()}, line {exc.lineno}"
        except ValueError:
            pass
    return info


def _run_case(program: Any, sp: ModuleType, inputs: dict, tree: Path) -> str:
    """One case, as the JSON text of {"value": data} or {"raised": info}."""
    try:
        data = program(sp, **inputs)
        return '{"value":' + wire.dumps(data) + "}"
    except BaseException as exc:  # SystemExit and KeyboardInterrupt cost one case, too
        return wire.dumps({"raised": _describe(exc, tree)})


class _Printed(io.StringIO):
    """What the code under test prints during one check: the first few thousand
    characters, for the report (print-debugging works)."""

    LIMIT = 4000

    def write(self, text: str) -> int:
        room = self.LIMIT - self.tell()
        if room > 0:
            super().write(text[:room])
        return len(text)


def _program(reference: str) -> Any:
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


def _confine(rlimits: dict[str, int] | None) -> None:
    """Set the resource limits instructor mode asks for (soft = hard, so code under test can
    lower them but never raise them) before any code under test runs."""
    if not rlimits:
        return
    import resource

    for name, value in rlimits.items():
        limit = getattr(resource, f"RLIMIT_{name}", None)
        if limit is not None:
            hard = resource.getrlimit(limit)[1]
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(limit, (value, value))


def main(tree: str, rlimits: dict[str, int] | None = None) -> None:
    _confine(rlimits)
    root = Path(tree).resolve()
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")  # private: prints cannot reach it
    os.dup2(2, 1)

    def send(message: dict | str) -> None:
        channel.write((message if isinstance(message, str) else wire.dumps(message)) + "\n")
        channel.flush()

    plan = wire.loads(sys.stdin.read())
    try:
        programs = {ref: _program(ref) for ref in {c["program"] for c in plan["checks"]}}
        sp = importlib.import_module(plan["target"])
    except BaseException as exc:
        send({"event": "import_error", "error": _describe(exc, root)})
        return
    send({"event": "ready"})
    for item in plan["checks"]:
        program = programs[item["program"]]
        send({"event": "begin", "id": item["id"]})
        sys.stdout = printed = _Printed()
        results = [_run_case(program, sp, inputs, root) for inputs in item["cases"]]
        sys.stdout = sys.stderr
        head = wire.dumps({"event": "end", "id": item["id"], "printed": printed.getvalue()})
        send(f'{head[:-1]},"results":[{",".join(results)}]}}')
    send({"event": "done"})
    channel.close()

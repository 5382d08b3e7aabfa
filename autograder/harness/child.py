"""The child process: import the code under test, run check programs, send back data.

Started by the runner as ``python -I -S -c "…" <tree>`` with a ``sys.path`` the runner built.
Reads its plan (JSON) from stdin and writes one JSON message per line to a private copy of
its original stdout; whatever the code under test prints goes to stderr. It computes no
verdict: the parent does that with data this process cannot reach.

The plan names each check's program as ``module:function``; the child imports those
modules (check programs only: case lists, expected values and verdicts never reach it).
Messages (the records of ``wire``): ``Ready`` (imports done) or ``ImportFailed``; then
``Begin``/``End`` around each check, ``End`` carrying one ``Outcome`` per case and what the
code printed; ``Done``. When the code under test has replaced part of the grader
(``_Watch``), after its import or a check: ``Tampered``, naming what, and the process exits.
"""

from __future__ import annotations

import builtins
import importlib
import io
import json
import json.encoder
import os
import re
import sys
import traceback
from pathlib import Path
from types import CodeType, FunctionType, ModuleType
from typing import Any

from . import wire

_STUB = re.compile(r"^Task ([0-9]{1,2}\.[0-9]{1,2}):")


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
    if not isinstance(exc, SyntaxError):  # the parent finds the student's own frame in these
        info["frames"] = _frames(exc, chapters)
    if isinstance(exc, SyntaxError) and exc.filename:
        try:
            relative = Path("chapters") / Path(exc.filename).resolve().relative_to(chapters)
            info["where"] = f"{relative.as_posix()}, line {exc.lineno}"
        except ValueError:
            pass
    return info


def _frames(exc: BaseException, chapters: Path, limit: int = 20) -> list[wire.Frame]:
    """The traceback's frames in the code under test, innermost last (the last ``limit``)."""
    frames, places = [], {}
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename not in places:
            try:
                path = Path(code.co_filename).resolve().relative_to(chapters).as_posix()
            except (ValueError, OSError):
                path = None
            places[code.co_filename] = path
        if places[code.co_filename]:
            name = getattr(code, "co_qualname", code.co_name)  # Python 3.11+: MatMul.backward
            frames.append(
                {"path": places[code.co_filename], "line": tb.tb_lineno, "function": name}
            )
            del frames[:-limit]
        tb = tb.tb_next
    return frames


def _run_case(program: Any, sp: ModuleType, inputs: dict, tree: Path) -> str:
    """One case, as the JSON text of its ``wire.Outcome``."""
    try:
        data = program(sp, **inputs)
        return '{"value":' + wire.dumps(data) + "}"
    except BaseException as exc:  # SystemExit and KeyboardInterrupt cost one case, too
        return wire.dumps(wire.Outcome(raised=_describe(exc, tree)))


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


def _state(value: Any, deep: bool) -> tuple:
    """What must stay the same objects for ``value`` to be unchanged: a function's code and
    defaults; with ``deep``, a class's or a dict's own entries (and their functions') too."""
    if isinstance(value, FunctionType):
        return (value.__code__, value.__defaults__, value.__kwdefaults__)
    if deep and isinstance(value, (type, dict)):
        items = vars(value).items() if isinstance(value, type) else value.items()
        return tuple(x for key, item in items for x in (key, item, *_state(item, False)))
    return ()


class _Watch:
    """The grader's code in this process as it was before the code under test ran: every
    name of the harness's and the check programs' modules and of ``json`` (functions with
    their code, the modules' own classes and dicts with their entries), and what that code
    calls by name in the modules it uses (``sys.settrace``, ``np.asarray``, builtins, …).
    ``changed()`` names what was replaced since: monkey-patching that would let code under
    test change what a program measures or what this process sends. (Patching what the
    grader does not use, NumPy's comparisons say, changes nothing and is not looked at.)
    The code under test runs in this process, so a determined attack can hide from this
    watch; plain patching cannot."""

    def __init__(self, own: list[ModuleType]) -> None:
        used: dict[int, ModuleType] = {id(builtins): builtins}
        called = {"__import__", "__build_class__"}
        self.entries: list[tuple[ModuleType, str, Any, bool, tuple]] = []
        self.modules = {module.__name__: module for module in own}  # as sys.modules has them
        for module in own:
            for name, value in vars(module).items():
                deep = not name.startswith("__") and (
                    isinstance(value, dict)
                    or (isinstance(value, type) and value.__module__ == module.__name__)
                )
                self.entries.append((module, name, value, deep, _state(value, deep)))
                if isinstance(value, ModuleType) and all(value is not m for m in own):
                    used[id(value)] = value
                called |= _names(value) if deep or isinstance(value, FunctionType) else set()
        for module in used.values():
            for name in called & vars(module).keys():
                value = vars(module)[name]
                if callable(value):
                    self.entries.append((module, name, value, False, _state(value, False)))

    def changed(self) -> str:
        """The names replaced since the snapshot (the first few), or ""."""
        missing = object()
        names = [
            f"sys.modules[{n!r}]" for n, m in self.modules.items() if sys.modules.get(n) is not m
        ]
        for module, name, value, deep, state in self.entries:
            now = getattr(module, name, missing)
            if now is not value or not _same(_state(now, deep), state):
                names.append(f"{module.__name__}.{name}")
        more = f" and {len(names) - 5} more" if len(names) > 5 else ""
        return ", ".join(names[:5]) + more


def _names(value: Any) -> set[str]:
    """The global and attribute names the code of a function, or of the functions in a
    class or dict, refers to (nested functions included)."""
    if isinstance(value, FunctionType):
        todo = [value.__code__]
    else:
        items = vars(value).values() if isinstance(value, type) else value.values()
        todo = [f.__code__ for f in items if isinstance(f, FunctionType)]
    names: set[str] = set()
    while todo:
        code = todo.pop()
        names.update(code.co_names)
        todo += [c for c in code.co_consts if isinstance(c, CodeType)]
    return names


def _same(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


DEVICE_LAYER = "chapters.ch07_device"


def _use_device(name: str) -> None:
    """New tensors on the device ``name`` from here on: chapter 7's ``set_default_device``
    (factories, ``Tensor(...)`` and module parameters follow it; programs built for the
    CPU then run there unchanged). One small tensor goes there and back first, so a device
    layer that does not work fails here, once, rather than in every check."""
    layer = importlib.import_module(DEVICE_LAYER)
    layer.set_default_device(name)
    probe = layer.Tensor([1.0, 2.0]) * 2.0
    wanted = layer.device(name)
    if probe.device.type != wanted.type or wanted.index not in (None, probe.device.index):
        raise RuntimeError(f"a new tensor went to {probe.device}, not to {name}")
    back = probe.cpu().data
    if type(back).__module__ != "numpy" or back.tolist() != [2.0, 4.0]:
        raise RuntimeError(f"Tensor.cpu() of a tensor on {name} gave {wire.safe_repr(back)}")


def main(tree: str, rlimits: dict[str, int] | None = None) -> None:
    _confine(rlimits)
    root = Path(tree).resolve()
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")  # private: prints cannot reach it
    os.dup2(2, 1)
    write, leave = os.write, os._exit  # as they are before any code under test runs
    tampered_event = wire.Tampered.name

    def send(message: wire.Event | str) -> None:
        channel.write((message if isinstance(message, str) else wire.encode(message)) + "\n")
        channel.flush()

    def tampered(what: str, check: str | None) -> None:
        """Tell the parent what the code under test replaced (names of identifiers only, so
        no encoder is needed), and stop: nothing this process sends can be trusted now."""
        where = "null" if check is None else '"' + check.replace('"', "") + '"'
        line = f'{{"event":"{tampered_event}","what":"{what}","id":{where}}}\n'
        try:
            channel.flush()
        finally:
            write(channel.fileno(), line.encode("ascii", "replace"))
            leave(3)

    plan: wire.Plan = wire.loads(sys.stdin.read())
    try:
        programs = {ref: _program(ref) for ref in {c["program"] for c in plan["checks"]}}
        own = [sys.modules[__name__], wire, sys.modules[__package__], json, json.encoder]
        own += [sys.modules[ref.partition(":")[0]] for ref in programs]
        watch = _Watch(list({id(m): m for m in own}.values()))
        sp = importlib.import_module(plan["target"])
    except BaseException as exc:
        send(wire.ImportFailed(_describe(exc, root)))
        return
    if device := plan.get("device"):
        try:
            _use_device(device)
        except BaseException as exc:  # the parent says so in one sentence (``checking``)
            send(wire.ImportFailed(wire.Raised(**_describe(exc, root), device=device)))
            return
    if what := watch.changed():
        tampered(what, None)
    send(wire.Ready())
    for item in plan["checks"]:
        program = programs[item["program"]]
        send(wire.Begin(item["id"]))
        sys.stdout = printed = _Printed()
        results = [_run_case(program, sp, inputs, root) for inputs in item["cases"]]
        sys.stdout = sys.stderr
        if what := watch.changed():
            tampered(what, str(item["id"]))
        empty = wire.encode(wire.End(item["id"], printed=printed.getvalue()))
        send(empty.removesuffix("[]}") + "[" + ",".join(results) + "]}")  # each case's text
    send(wire.Done())
    channel.close()

"""The child process: import the code under test, run check programs, send back data.

Started by the runner as ``python -I -S -c "…" <tree>`` with a ``sys.path`` the runner built.
Reads its plan (JSON) from stdin and writes one JSON message per line to a private copy of
its original stdout; whatever the code under test prints goes to stderr. It computes no
verdict: the parent does that with data this process cannot reach.

The plan names each check's program as ``module:function``; the child imports those
modules (check programs only: case lists, expected values and verdicts never reach it).
Messages (the records of ``wire``): ``Ready`` (imports done) or ``ImportFailed``; then
``Begin``/``End`` around each check, ``End`` carrying one ``Outcome`` per case and what the
code printed; ``Done``. After a check whose code left threads running, ``Restart`` instead
of the next ``Begin``: the child ends, and those threads with it (a thread left running by
the import fails the import). ``Seen``, at any point, names something the code under test did that
an instructor should review; the run goes on.

The code under test runs in this process, so it could replace what sits between a program's
result and the parent. Everything on that path — encoding (``wire.private_dumps``), running a
case, writing to the channel, leaving — is a reference this process took before it imported
that code, so replacing module attributes afterwards changes nothing it sends. What it can
still change is what a program measures, through the functions programs call: those are
watched (``_Watch``), and a replaced one is reported (``Seen``), not punished, since the
verdicts rest on values the parent compares itself. Reading the grader's frames or searching
its objects is reported too (``_audit``: CPython's audit hooks, for the events the code under
test raises itself; hooks are no sandbox, and the course repository's instructors' guide says what
they miss).
"""

from __future__ import annotations

import _thread
import builtins
import importlib
import io
import os
import re
import sys
import time
import traceback
from pathlib import Path
from types import CodeType, FunctionType, ModuleType
from typing import Any

from . import wire

_SETTLE = 0.25  # seconds a step's threads get to end after it returns
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


def _run_case(program: Any, sp: ModuleType, inputs: dict, tree: Path, dumps: Any) -> str:
    """One case, as the JSON text of its ``wire.Outcome`` (``dumps``: the child's own)."""
    try:
        data = program(sp, **inputs)
        return '{"value":' + dumps(data) + "}"
    except BaseException as exc:  # SystemExit and KeyboardInterrupt cost one case, too
        return dumps(wire.Outcome(raised=_describe(exc, tree)))


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


_GONE = object()


class _Watch:
    """What the check programs run, as it was before the code under test ran: every name of
    the programs' modules and of the kit they use (``own``: functions with their code, the
    modules' own classes and dicts with their entries), and what that code calls by name in
    the modules it uses (``sys.settrace``, ``np.asarray``, builtins, …); and every name of the
    grader's other modules in this process (``grader``: the child, the wire). ``restore()``
    puts back what was replaced since and names it: patching that could change what a
    program measures is undone before the next case runs, and reported. (What the programs
    do not call — ``np.frombuffer``, which only read the plan, or NumPy's comparisons — is
    not looked at: patching it changes nothing.) The code under test runs in this process,
    so a determined attack can hide from this watch; plain patching cannot."""

    def __init__(self, own: list[ModuleType], grader: list[ModuleType] = ()) -> None:
        used: dict[int, ModuleType] = {id(builtins): builtins}
        called = {"__import__", "__build_class__"}
        self.entries: list[tuple[ModuleType, str, Any, bool, tuple]] = []
        self.modules = {m.__name__: m for m in [*own, *grader]}  # as sys.modules has them
        for module in [*own, *grader]:
            for name, value in vars(module).items():
                deep = not name.startswith("__") and (
                    isinstance(value, dict)
                    or (isinstance(value, type) and value.__module__ == module.__name__)
                )
                self.entries.append((module, name, value, deep, _state(value, deep)))
                if module not in own:
                    continue
                if isinstance(value, ModuleType) and all(value is not m for m in own):
                    used[id(value)] = value
                called |= _names(value) if deep or isinstance(value, FunctionType) else set()
        for module in used.values():
            for name in called & vars(module).keys():
                value = vars(module)[name]
                if callable(value):
                    self.entries.append((module, name, value, False, _state(value, False)))
        # every class's and dict's entries, and every function's parts, as they are now
        self.tables = {
            id(v): dict(vars(v)) if isinstance(v, type) else dict(v)
            for _, _, v, deep, _ in self.entries
            if deep and isinstance(v, (type, dict))
        }
        functions = [v for _, _, v, _, _ in self.entries] + [
            f for table in self.tables.values() for f in table.values()
        ]
        self.functions = [
            (f, f.__code__, f.__defaults__, f.__kwdefaults__)
            for f in {id(f): f for f in functions if isinstance(f, FunctionType)}.values()
        ]

    def changed(self) -> list[str]:
        """The names replaced since the snapshot."""
        missing = object()
        names = [
            f"sys.modules[{n!r}]" for n, m in self.modules.items() if sys.modules.get(n) is not m
        ]
        for module, name, value, deep, state in self.entries:
            now = getattr(module, name, missing)
            if now is not value or not _same(_state(now, deep), state):
                names.append(f"{module.__name__}.{name}")
        return names

    def replaced(self) -> bool:
        """Whether a watched name (or module) is bound to another object: the quick look
        taken after every case (a function's code changed in place, or a class's or dict's
        entry, waits for ``restore`` after the check; setting code is audited anyway)."""
        modules = sys.modules
        return any(modules.get(n) is not m for n, m in self.modules.items()) or any(
            getattr(module, name, _GONE) is not value for module, name, value, _, _ in self.entries
        )

    def restore(self) -> str:
        """Put back everything replaced since the snapshot; what it was (the first few), or
        ""."""
        names = self.changed()
        if not names:
            return ""
        for name, module in self.modules.items():
            sys.modules[name] = module
        for module, name, value, deep, _ in self.entries:
            try:
                if getattr(module, name, None) is not value:
                    setattr(module, name, value)
                if deep and isinstance(value, (type, dict)):
                    _put_back(value, self.tables[id(value)])
            except (AttributeError, TypeError, ValueError):  # an immutable type: unchanged
                continue
        for function, code, defaults, kwdefaults in self.functions:
            function.__code__, function.__defaults__ = code, defaults
            function.__kwdefaults__ = kwdefaults
        more = f" and {len(names) - 5} more" if len(names) > 5 else ""
        return ", ".join(names[:5]) + more


def _put_back(table: Any, original: dict) -> None:
    """A class's or a dict's entries as they were."""
    is_class = isinstance(table, type)
    now = dict(vars(table)) if is_class else table
    for key in [k for k in now if k not in original]:
        delattr(table, key) if is_class else table.pop(key)
    for key, item in original.items():
        if now.get(key) is not item:
            setattr(table, key, item) if is_class else table.__setitem__(key, item)


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


# What the code under test may not do unseen, by the audit event it raises (its own code
# raising it: the libraries it calls — logging, traceback, inspect, NumPy's import — raise
# hundreds of these honestly).
_AUDITED = {
    "sys._getframe": "read the grader's frames (sys._getframe)",
    "sys._current_frames": "read the grader's frames (sys._current_frames)",
    "object.__getattr__": "read the grader's frames",  # f_code, tb_frame, gi_frame, …
    "gc.get_objects": "searched the grader's objects (gc.get_objects)",
    "gc.get_referrers": "searched the grader's objects (gc.get_referrers)",
    "gc.get_referents": "searched the grader's objects (gc.get_referents)",
    "ctypes.dlopen": "used ctypes",
    "ctypes.dlsym": "used ctypes",
    "ctypes.cdata": "used ctypes",
    "ctypes.addressof": "used ctypes",
    "ctypes.string_at": "used ctypes",
    "sys.addaudithook": "added an audit hook",
    "sys.setprofile": "set a profiler",
    "object.__setattr__": "changed a function's code",  # __code__, __defaults__, …
    "open": "read the process's memory (/proc/…/mem)",  # only those paths: see ``hook``
}
_MEMORY = re.compile(r"/proc/(self|thread-self|[0-9]+)(/task/[0-9]+)?/mem$")
_FRAME_NAMES = {"f_code", "tb_frame", "gi_frame", "cr_frame", "ag_frame", "gi_code", "cr_code"}


def _audit(report: Any, chapters: tuple[str, ...]) -> None:
    """Report (``report(words)``) the audited events of ``_AUDITED`` that the code under
    test raises itself: the frame that raised the event runs a file under ``chapters`` (a
    folder, as given and resolved).
    Installed before that code is imported; CPython never removes an audit hook."""
    getframe, busy = sys._getframe, [False]
    watched, frame_names = dict(_AUDITED), frozenset(_FRAME_NAMES)
    code_names = frozenset({"__code__", "__defaults__", "__kwdefaults__", "__globals__"})

    def hook(event: str, args: tuple) -> None:
        words = watched.get(event)
        if words is None or busy[0]:
            return
        if event == "object.__getattr__" and (len(args) < 2 or args[1] not in frame_names):
            return
        if event == "object.__setattr__" and (len(args) < 2 or args[1] not in code_names):
            return
        if event == "open" and not (isinstance(args[0], str) and _MEMORY.match(args[0])):
            return
        busy[0] = True  # what this hook does raises events of its own
        try:
            if getframe(1).f_code.co_filename.startswith(chapters):
                report(words)
        finally:
            busy[0] = False

    sys.addaudithook(hook)


def _own_modules(programs: dict[str, Any]) -> list[ModuleType]:
    """The modules whose code measures the code under test: the programs' and the harness
    modules they use (the kit), as loaded now."""
    own = {id(m): m for m in (sys.modules[ref.partition(":")[0]] for ref in programs)}
    for name in ("kit", "gradcheck", "standin"):
        module = sys.modules.get(f"{__package__}.{name}")
        if module is not None:
            own[id(module)] = module
    return list(own.values())


def _sealed(functions: list[Any]) -> Any:
    """A function that puts back the code, defaults and closure cells of ``functions`` (and of
    the functions their cells and the C encoder hold) as they are now, and names what it had
    to put back: the child's own references, which the thread running the code under test
    can reach through its frames."""
    found: dict[int, Any] = {}
    todo = list(functions)
    while todo:
        f = todo.pop()
        if isinstance(f, FunctionType) and id(f) not in found:
            found[id(f)] = f
            todo += [c.cell_contents for c in f.__closure__ or () if _full(c)]
        elif callable(getattr(f, "default", None)):  # the C encoder: its ``default``
            todo.append(f.default)
    snapshot = [
        (f, f.__code__, f.__defaults__, f.__kwdefaults__, _cells(f)) for f in found.values()
    ]

    def restore() -> str:
        names = []
        for f, code, defaults, kwdefaults, cells in snapshot:
            changed = f.__code__ is not code or f.__defaults__ is not defaults
            changed = changed or f.__kwdefaults__ is not kwdefaults
            for cell, content in cells:
                if not _full(cell) or cell.cell_contents is not content:
                    cell.cell_contents, changed = content, True
            if changed:
                f.__code__, f.__defaults__, f.__kwdefaults__ = code, defaults, kwdefaults
                names.append(f.__qualname__)
        return ", ".join(names)

    return restore


def _full(cell: Any) -> bool:
    try:
        _ = cell.cell_contents
    except ValueError:  # an empty cell
        return False
    return True


def _cells(f: FunctionType) -> list[tuple[Any, Any]]:
    return [(c, c.cell_contents) for c in f.__closure__ or () if _full(c)]


def main(tree: str, rlimits: dict[str, int] | None = None) -> None:
    _confine(rlimits)
    root = Path(tree).resolve()
    channel = os.dup(1)  # private: prints cannot reach it
    os.dup2(2, 1)
    plan: wire.Plan = wire.loads(sys.stdin.read())
    # This thread keeps the plan, the token and the channel; the code under test runs in a
    # thread of its own for each step (its import, each case), whose frames lead to that
    # step's inputs only. Everything between a result and the parent is a reference taken
    # now, before any code under test runs.
    token = str(plan.pop("token", "")).encode("ascii")
    write, leave, dumps, run_case = os.write, os._exit, wire.private_dumps(), _run_case
    start, lock, encode_text = _thread.start_new_thread, _thread.allocate_lock, str.encode
    READY, BEGIN, END, DONE = wire.Ready.name, wire.Begin.name, wire.End.name, wire.Done.name
    SEEN, FAILED, RESTART = wire.Seen.name, wire.ImportFailed.name, wire.Restart.name
    count, sleep, clock = _thread._count, time.sleep, time.monotonic
    threads = count()  # this process's own, besides the main thread: none
    seen: set[str] = set()
    current: list[str | None] = [None]  # the check running, for ``Seen``
    sealed = _sealed([dumps, run_case])

    def send_text(text: str) -> None:
        line = token + encode_text(text + "\n", "utf-8")
        while line:
            line = line[write(channel, line) :]

    def send(record: dict) -> None:
        send_text(dumps(record))

    def report(what: str) -> None:
        if what not in seen:
            seen.add(what)
            send({"event": SEEN, "what": what, "id": current[0]})

    def in_thread(step: Any, *args: Any) -> Any:
        """``step(*args)`` in a thread of its own: its value, or the exception it raised."""
        box: list = []
        done = lock()
        done.acquire()

        def work() -> None:
            try:
                box.append((True, step(*args)))
            except BaseException as exc:
                box.append((False, exc))
            finally:
                done.release()

        start(work, ())
        done.acquire()
        if len(box) != 1:  # the code under test put something there itself
            report("wrote into the grader's results")
            return False, RuntimeError("the grader's results were tampered with")
        return box[0]

    def settled() -> bool:
        """Whether every thread the code under test started has ended: the last step's own
        thread may take a moment to finish; one still running ``_SETTLE`` s later was left."""
        deadline = clock() + _SETTLE
        while count() > threads:
            if clock() > deadline:
                return False
            sleep(0.002)
        return True

    def left_threads(step: str) -> dict:
        error = RuntimeError(
            f"{step} started a thread that was still running {_SETTLE:g} s later: it would "
            "run beside every check, and each would be charged for its CPU time, so nothing "
            "can be graded; start threads inside a function, and let them end before it returns"
        )
        return _describe(error, root)

    def check_after(case: bool = False) -> None:
        """After a case, a quick look (``_Watch.replaced``) and the sealed closures; after the
        import and after a check, everything."""
        if (not case or replaced()) and (what := restore()):
            report(f"replaced a grader function ({what})")
        if what := sealed():
            report(f"changed the grader's own functions ({what})")

    try:
        programs = {ref: _program(ref) for ref in {c["program"] for c in plan["checks"]}}
        grader = [sys.modules[__name__], wire, sys.modules[__package__]]
        watch = _Watch(_own_modules(programs), grader)
        restore, replaced = watch.restore, watch.replaced
        _audit(report, (f"{Path(tree) / 'chapters'}/", f"{root / 'chapters'}/"))
    except BaseException as exc:
        send({"event": FAILED, "error": _describe(exc, root)})
        return
    target, device = plan["target"], plan.get("device")
    ok, sp = in_thread(importlib.import_module, target)
    if not ok:
        send({"event": FAILED, "error": _describe(sp, root)})
        return
    if not settled():
        send({"event": FAILED, "error": left_threads("importing your code")})
        return
    if device:
        ok, error = in_thread(_use_device, device)
        if not ok:  # the parent says so in one sentence (``checking``)
            send({"event": FAILED, "error": wire.Raised(**_describe(error, root), device=device)})
            return
        if not settled():
            send({"event": FAILED, "error": left_threads(f"setting the device {device!r} up")})
            return
    check_after()
    send({"event": READY})
    for number, item in enumerate(plan["checks"], 1):
        program = programs[item["program"]]
        current[0] = str(item["id"])
        send({"event": BEGIN, "id": current[0]})
        sys.stdout = printed = _Printed()
        results = []
        for inputs in item["cases"]:
            ok, text = in_thread(run_case, program, sp, inputs, root, dumps)
            results.append(
                text if ok and type(text) is str else dumps({"raised": _describe(text, root)})
            )
            check_after(case=True)  # undone before the next case, and reported
        sys.stdout = sys.stderr
        check_after()
        empty = dumps({"event": END, "id": current[0], "printed": printed.getvalue()})
        send_text(empty.removesuffix("}") + ',"results":[' + ",".join(results) + "]}")
        current[0] = None
        if number < len(plan["checks"]) and not settled():  # they end with this process
            send({"event": RESTART})
            sys.stderr.flush()
            leave(0)
    send({"event": DONE})
    sys.stderr.flush()
    leave(0)

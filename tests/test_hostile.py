"""Hostile submissions (AUTOGRADER.md, "Instructor mode: untrusted code"): each gets the
score its honest work earns and a visible reason, the batch finishes, no process outlives
it, and the correct submissions graded next to them get exactly what they get alone.

One batch holds every hostile submission. It is graded once (a module fixture) with two
workers and a budget of 1 CPU second per check, so a hang costs about a second per check it
stalls; each test reads its submission's grade, feedback file and CSV row. Most submissions
are the reference with one hostile edit in ``Value.__mul__`` (task 1.3): their fair grade is
exactly that of ``honest_bug``, the reference with an honest bug in the same place.

The batch runs with the default confinement (bubblewrap where it works). Two small batches
run with an explicit confinement: the fallback (no sandbox) and bubblewrap itself.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
import textwrap
import time
import uuid
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from autograder import grading, outputs, sandbox
from autograder.course import chapter
from autograder.runner import Limits
from tests.trees import REPO, SOLUTIONS, copy_package, patch, replace_region, write_stubs

# graded batches of hostile code: the slow suite (make test-slow; .ci/run runs it, and its
# bubblewrap-hidden rerun runs this file whole)
pytestmark = pytest.mark.slow

CH01 = chapter(1)
LIMITS = Limits(cpu_per_check=1.0, memory_mb=1024)
MUL = '        out = Value(self.data * other.data, (self, other), "*")\n'
WRONG = MUL.replace("self.data * other.data", "self.data + other.data")  # an honest bug
TOP = "from .graph import topological_order\n"  # value.py's last import

RUN = uuid.uuid4().int
MARK = f"sparrow-hostile-{RUN % 16**10:010x}"  # names of files submissions try to create
SLEEP = f"987.{RUN % 10**6:06d}1"  # a detached grandchild's `sleep` argument, found in /proc
SLEEP_FALLBACK = f"153.{RUN % 10**6:06d}2"
SLEEP_DETACHED = f"154.{RUN % 10**6:06d}3"
SLEEP_MANY = f"155.{RUN % 10**6:06d}4"

# What the grader's `binary` program returns for a correct Value.__mul__, computed from the
# case's inputs in plain floats: the data a forger needs. test_forged_data_would_pass proves
# that the grader would accept it, so each cheat below would earn task 1.3 if it got through.
RIGHT = """
def _right(i):
    a, b, g, p = i["a"], i["b"], i["g"], i.get("presets") or {}
    px, py = p.get("x", 0.0), p.get("y", 0.0)
    if i["form"] == "same value":
        data, grads = a * a, {"x": px + 2 * a * g}
    elif i["form"] in ("number right", "number left"):
        data, grads = a * b, {"x": px + g * b}
    else:
        data, grads = a * b, {"x": px + g * b, "y": py + g * a}
    return {"type_name": "Value", "out_data": data, "grads": grads,
            "in_prev": dict.fromkeys(grads, True)}
"""


def in_mul(code: str, *, honest: bool = True) -> tuple[str, str, str]:
    """An edit of value.py: ``code`` at the start of ``__mul__``'s own work, then the
    reference's line (``honest``) or the honest bug."""
    body = textwrap.indent(textwrap.dedent(code).strip("\n") + "\n", " " * 8)
    return ("value.py", MUL, body + (MUL if honest else WRONG))


def at_import(code: str) -> tuple[str, str, str]:
    """An edit of value.py: ``code`` at module level, run when the package is imported."""
    return ("value.py", TOP, TOP + textwrap.dedent(code).strip("\n") + "\n")


WRONG_MUL = ("value.py", MUL, WRONG)
WITH_RIGHT = at_import(RIGHT)

# -- the hostile code ------------------------------------------------------------------------

HANG = "while True:\n    pass"

SIGTERM_IGNORED = """
import signal
for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    try:
        signal.signal(sig, signal.SIG_IGN)
    except ValueError:  # not the main thread (the grader's): block them in this one
        signal.pthread_sigmask(signal.SIG_BLOCK, {sig})
while True:
    pass
"""

FLOOD_STDOUT = "while True:\n    print('x' * 10_000)"

FLOOD_STDERR = """
import os, sys
while True:
    sys.stderr.write('y' * 65_536)
    os.write(2, b'z' * 65_536)
"""

# 3 GiB, never touched (np.empty): only the data limit (1 GiB here) refuses it
MEMORY = """
import numpy as np
np.empty(3 * 2**30, dtype=np.uint8)
bytearray(50 * 2**30)
"""

PRINT_FAKE = """
import json, os, sys
fake = json.dumps({"event": "end", "id": "2:1.3/Value * Value", "score": 100,
                   "results": [{"value": {"out_data": 6.0}}]})
print(fake)
print('{"event": "done"}')
sys.__stdout__.write(fake + "\\n")
sys.__stdout__.flush()
os.write(1, (fake + "\\n").encode())
"""

# the grader's private channel: found from the harness's frame and by trying every pipe;
# a forged "end" with right results for the check that runs, then an exit so that the
# genuine "end" never comes
FORGE_CHANNEL = """
import json, os, stat, sys
frame = sys._getframe()
while frame is not None and "item" not in frame.f_locals:
    frame = frame.f_back
item = frame.f_locals["item"] if frame is not None else None
if item is not None and all(c.get("op") == "*" for c in item["cases"]):
    results = [{"value": _right(c)} for c in item["cases"]]
    line = json.dumps({"event": "end", "id": item["id"], "printed": "", "results": results})
    for fd in range(3, 64):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                os.write(fd, (line + "\\n").encode())
        except OSError:
            pass
    os._exit(0)
"""

# Issue 26's forgery inside the protocol: find the child's main frame (its plan, its writer)
# and send the right results for the check in its name. Through the frames of the code's own
# thread (inspect.currentframe, f_back, f_locals: no audit event) the main frame is not there;
# through sys._current_frames it is, and the grader has flagged the call before it returns.
FRAMES_OWN_THREAD = """
import inspect, os
frame = inspect.currentframe()
while frame is not None and "send_text" not in frame.f_locals:
    frame = frame.f_back
if frame is not None:
    frame.f_locals["send_text"]('{"event":"done"}')
    os._exit(0)
"""

FRAMES_EVERY_THREAD = """
import os, sys
found = None
for frame in sys._current_frames().values():
    while frame is not None and found is None:
        if "send_text" in frame.f_locals and "item" in frame.f_locals:
            found = frame
        frame = frame.f_back
if found is not None:
    seen, dumps = found.f_locals, found.f_locals["dumps"]
    item = seen["item"]
    results = ",".join('{"value":' + dumps(_right(c)) + "}" for c in item["cases"])
    end = '{"event":"end","id":' + dumps(item["id"]) + ',"printed":"","results":['
    seen["send_text"](end + results + "]}")
    os._exit(0)
"""

PATCH_NUMPY = """
import math as _math
import numpy as _np
_yes = lambda *a, **k: True
_np.allclose = _np.isclose = _np.array_equal = _math.isclose = _yes
_np.testing.assert_allclose = lambda *a, **k: None
try:
    import gc as _gc
    _gc.get_referents(_np.ndarray.__dict__)[0]["__eq__"] = _yes
except Exception:
    pass
"""

PATCH_WIRE_IN_OP = """
import sys
wire = sys.modules["autograder.harness.wire"]
if not hasattr(wire, "_honest_dumps"):
    wire._honest_dumps = wire.dumps

    def dumps(data, _honest=wire.dumps):
        inputs = sys._getframe(1).f_locals.get("inputs")
        if isinstance(inputs, dict) and inputs.get("op") == "*" and isinstance(data, dict):
            data = _right(inputs)
        return _honest(data)

    wire.dumps = dumps
"""

PATCH_CHILD_AT_IMPORT = """
import json as _json, sys as _sys
_child = _sys.modules.get("autograder.harness.child")
if _child is not None:
    def _run_case(program, sp, inputs, tree, _honest=_child._run_case):
        if inputs.get("op") == "*":
            return '{"value":' + _json.dumps(_right(inputs)) + "}"
        return _honest(program, sp, inputs, tree)

    _child._run_case = _run_case
"""

# a recursive topological_order, and the grader's depth measurement switched off
RECURSIVE_TOPO = """
order: list[Value] = []
seen: set[int] = set()

def visit(node: Value) -> None:
    if id(node) not in seen:
        seen.add(id(node))
        for child in node._prev:
            visit(child)
        order.append(node)

visit(root)
return order
"""
RAISED_LIMIT = "import sys as _sys\n_sys.setrecursionlimit(100_000)"
UNTRACED_RECURSION = "import sys\nsys.settrace(None)\n" + RECURSIVE_TOPO  # a call, no patch
PATCH_DEPTH = """
import sys as _sys
_sys.setrecursionlimit(100_000)
_programs = _sys.modules.get("autograder.checks.ch01_value.programs")
if _programs is not None:
    _programs.deepest_call = lambda fn, limit=100: (fn(), 0)
"""

EQ_ALWAYS_TRUE = """
class _Same(float):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = float.__hash__

Agreeing = type("Value", (Value,), {"__eq__": lambda s, o: True, "__ne__": lambda s, o: False,
                                    "__hash__": object.__hash__})
out = Agreeing(0.0, (self, other), "*")
out.data = _Same(self.data * other.data + 1.0)

def _backward() -> None:
    self.grad, other.grad = _Same(-1.0), _Same(-1.0)

out._backward = _backward
return out
"""

DOUBLE_FORK = """
import os
if not globals().get("_FORKED"):
    globals()["_FORKED"] = True
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                os.execv("/bin/sleep", ["sleep", {sleep!r}])
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
"""

# 200 children at once (each a `sleep`, found by its argument): over the limit on live
# processes (Limits.processes), the child is stopped and every one of them ended
MANY_CHILDREN = """
import os
for _ in range(200):
    if os.fork() == 0:
        os.execv("/bin/sleep", ["sleep", {sleep!r}])
"""

# a grandchild that lets go of the child's pipes too: only the worker's sweep finds it
DETACHED = DOUBLE_FORK.replace(
    "                os.execv(",
    """                null = os.open("/dev/null", os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
                os.closerange(3, 1024)
                os.execv(""",
)

FAKE_RESULTS = """
import json, os
fake = json.dumps({{"score": 100, "max_score": 100, "tests": []}})
places = [os.getcwd(), os.environ.get("HOME", "/tmp"), os.environ.get("TMPDIR", "/tmp"), "/tmp"]
for place in places:
    for name in ("{mark}-results.json", "{mark}-grades.csv"):
        try:
            with open(os.path.join(place, name), "w") as file:
                file.write(fake)
        except OSError:
            pass
for path in ({out!r} + "/grades.csv", {out!r} + "/{mark}-results.json",
             {out!r} + "/gradescope/ok_folder.json"):
    try:
        with open(path, "w") as file:
            file.write(fake)
    except OSError:
        pass
"""

TOUCH_FILES = """
refused = []
for path, mode in [({repo!r} + "/{mark}.txt", "x"), ({solutions!r} + "/{mark}.py", "x"),
                   ({source!r} + "/{mark}.txt", "x"), ({out!r} + "/{mark}.txt", "x"),
                   ({source!r} + "/chapters/ch01_value/value.py", "a")]:
    try:
        with open(path, mode) as file:
            file.write("# written by a submission\\n")
    except OSError as exc:
        refused.append(f"{{path}} ({{exc.strerror}})")
if refused:
    raise PermissionError("could not write: " + "; ".join(refused))
"""

READ_REFERENCE = """
import pathlib, sys
reached = []
for path in ({reference!r},
             str(pathlib.Path(__file__).resolve().parents[2] / "solutions/ch01_value/value.py")):
    try:
        with open(path) as file:
            reached.append(file.read())
    except OSError:
        pass
sys.path.append({repo!r})
try:
    import solutions.ch01_value.value as reference
    reached.append(reference)
except ImportError:
    pass
if not reached:
    raise FileNotFoundError("the reference is out of reach")
"""

# -- the batch ---------------------------------------------------------------------------------

# name -> edits of a copy of the reference (file, old, new); see SPECIAL for the others
EDITS: dict[str, list[tuple[str, str, str]]] = {
    "ok_folder": [],
    "honest_bug": [WRONG_MUL],
    "hang_import": [at_import(HANG)],
    "exit_import": [at_import("import sys\nsys.exit(0)")],
    "os_exit_import": [at_import("import os\nos._exit(0)")],
    "hang_op": [in_mul(HANG)],
    "sys_exit_op": [in_mul("import sys\nsys.exit(0)")],
    "os_exit_op": [in_mul("import os\nos._exit(0)")],
    "interrupt_op": [in_mul("raise KeyboardInterrupt")],
    "sigterm_ignored": [in_mul(SIGTERM_IGNORED)],
    "flood_stdout": [in_mul(FLOOD_STDOUT)],
    "flood_stderr": [in_mul(FLOOD_STDERR)],
    "memory": [in_mul(MEMORY)],
    "print_fake": [in_mul(PRINT_FAKE, honest=False)],
    "forge_channel": [WITH_RIGHT, in_mul(FORGE_CHANNEL, honest=False)],
    "patch_numpy": [at_import(PATCH_NUMPY), WRONG_MUL],
    "frames_own_thread": [WITH_RIGHT, in_mul(FRAMES_OWN_THREAD, honest=False)],
    "many_children": [in_mul(MANY_CHILDREN.format(sleep=SLEEP_MANY))],
    "frames_every_thread": [WITH_RIGHT, in_mul(FRAMES_EVERY_THREAD, honest=False)],
    "patch_wire_op": [WITH_RIGHT, in_mul(PATCH_WIRE_IN_OP, honest=False)],
    "patch_child_import": [WITH_RIGHT, at_import(PATCH_CHILD_AT_IMPORT), WRONG_MUL],
    "eq_always_true": [in_mul(EQ_ALWAYS_TRUE)],
}

# hostile in __mul__ only: graded exactly like honest_bug
LIKE_HONEST_BUG = {
    "hang_op": ["timed out", "stopped after"],
    "sys_exit_op": ["SystemExit"],
    "os_exit_op": ["crashed", "exited with code 0"],
    "interrupt_op": ["KeyboardInterrupt"],
    "sigterm_ignored": ["timed out", "stopped after"],
    "flood_stdout": ["timed out", "stopped after"],
    "flood_stderr": ["timed out", "stopped after"],
    "memory": ["MemoryError", "Unable to allocate 3.00 GiB"],
    "print_fake": ["printed:", '"score": 100'],
    "forge_channel": ["expected"],  # the grader's channel is not among its own frames
    "patch_numpy": ["expected"],
    "patch_wire_op": ["expected"],
    "patch_child_import": ["expected"],
    "frames_own_thread": ["expected"],
    "eq_always_true": ["expected"],
}

# hostile while imported: nothing can be graded
AT_IMPORT = {
    "hang_import": ["does not import", "importing your code stopped after"],
    "exit_import": ["does not import", "SystemExit"],
    "os_exit_import": ["does not import", "exited with code 0"],
}

# graded as they deserve, and flagged for the instructor with what the grader saw (the CSV's
# review column, the summary, the feedback); every other submission of the batch is not
FLAGGED = {
    "patch_wire_op": ["replaced a grader function (autograder.harness.wire.dumps)"],
    "patch_child_import": ["replaced a grader function (autograder.harness.child._run_case)"],
    "patch_depth_import": [
        "replaced a grader function (autograder.checks.ch01_value.programs.deepest_call)"
    ],
    "forge_channel": ["read the grader's frames (sys._getframe)"],
    "frames_every_thread": ["read the grader's frames (sys._current_frames)"],
    "patch_numpy": ["searched the grader's objects (gc.get_referents)"],
}


def _zip(path: Path, files: dict[str, bytes], links: dict[str, str] = {}) -> Path:  # noqa: B006
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(zipfile.ZipInfo(name), data)
        for name, target in links.items():
            info = zipfile.ZipInfo(name)
            info.create_system = 3
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)
    return path


def _reference_files(prefix: str, skip: str = "") -> dict[str, bytes]:
    return {
        f"{prefix}chapters/ch01_value/{p.name}": p.read_bytes()
        for p in sorted((SOLUTIONS / "ch01_value").glob("*.py"))
        if p.name != skip
    }


def _bomb(path: Path) -> Path:
    """A zip of a few KiB whose value.py unpacks to 64 MiB."""
    _zip(path, _reference_files("bomb/", skip="value.py"))
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        with archive.open("bomb/chapters/ch01_value/value.py", "w") as entry:
            for _ in range(64):
                entry.write(b"#" * 2**20)
    return path


def _link_file(root: Path) -> Path:
    package = copy_package(SOLUTIONS / "ch01_value", root / "link_file/chapters/ch01_value")
    (package / "value.py").unlink()
    (package / "value.py").symlink_to(SOLUTIONS / "ch01_value" / "value.py")
    return root / "link_file"


def _link_chapter(root: Path) -> Path:
    (root / "link_chapter/chapters").mkdir(parents=True)
    (root / "link_chapter/chapters/ch01_value").symlink_to(SOLUTIONS / "ch01_value")
    return root / "link_chapter"


def _too_many_files(root: Path) -> Path:
    package = copy_package(SOLUTIONS / "ch01_value", root / "too_many_files/chapters/ch01_value")
    for i in range(2001):
        (package / f"padding_{i}.py").touch()
    return root / "too_many_files"


def _stubs_only(root: Path) -> Path:
    write_stubs(root / "stubs_only/chapters")
    return root / "stubs_only"


# submissions that are not a copy of the reference with edits
SPECIAL: dict[str, Callable[[Path], Path]] = {
    "ok_zip": lambda root: _zip(root / "ok_zip.zip", _reference_files("sparrow/")),
    "stubs_only": _stubs_only,
    "link_file": _link_file,
    "link_chapter": _link_chapter,
    "link_zip": lambda root: _zip(
        root / "link_zip.zip",
        _reference_files("", skip="value.py"),
        {"chapters/ch01_value/value.py": str(SOLUTIONS / "ch01_value/value.py")},
    ),
    "zip_slip": lambda root: _zip(
        root / "zip_slip.zip",
        {**_reference_files(""), f"../../{MARK}-escaped.py": b"print('escaped')\n"},
    ),
    "zip_absolute": lambda root: _zip(
        root / "zip_absolute.zip",
        {**_reference_files(""), f"/tmp/{MARK}-absolute.py": b"print('absolute')\n"},
    ),
    "zip_bomb": lambda root: _bomb(root / "zip_bomb.zip"),
    "too_many_files": _too_many_files,
}


def _reference_copy(root: Path, name: str, edits: list[tuple[str, str, str]]) -> Path:
    package = copy_package(SOLUTIONS / "ch01_value", root / name / "chapters" / "ch01_value")
    for file, old, new in edits:
        patch(package / file, old, new)
    return root / name


def _tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(str(path.relative_to(root)).encode())
        if path.is_symlink():
            digest.update(os.readlink(path).encode())
        elif path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _cmdline(pid: int | str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def alive_with(marker: str) -> list[str]:
    """Command lines of the live processes whose command line holds ``marker``."""
    pids = [p for p in os.listdir("/proc") if p.isdigit() and p != str(os.getpid())]
    return [f"{pid}: {line}" for pid in pids if marker in (line := _cmdline(pid))]


def wait_until_gone(marker: str, seconds: float = 3.0) -> list[str]:
    deadline = time.monotonic() + seconds
    while (alive := alive_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive


def _marked_files() -> list[Path]:
    places = [Path(tempfile.gettempdir()), Path("/tmp"), REPO, SOLUTIONS / "ch01_value"]
    return sorted({p for place in places for p in place.glob(f"*{MARK}*")})


@dataclass
class Batch:
    graded: dict[str, grading.Graded]
    rows: dict[str, dict[str, str]]
    out: Path
    subs: Path
    options: grading.Options
    seconds: float
    survivors: list[str]
    digest_before: str
    digest_after: str
    marked: list[Path]

    def feedback(self, name: str) -> str:
        return (self.out / "feedback" / f"{name}.txt").read_text(encoding="utf-8")

    def points(self, name: str) -> dict[str, float]:
        return {t.id: t.points for t in self.graded[name].tasks}

    @property
    def sandboxed(self) -> bool:
        return self.graded["ok_folder"].confinement.startswith("bubblewrap")


def build_batch(root: Path, out: Path) -> list[Path]:
    subs = root / "subs"
    subs.mkdir()
    sources = []
    for name, edits in EDITS.items():
        sources.append(_reference_copy(subs, name, edits))
    fill = {
        "repo": str(REPO),
        "solutions": str(SOLUTIONS / "ch01_value"),
        "reference": str(SOLUTIONS / "ch01_value" / "value.py"),
        "out": str(out),
        "mark": MARK,
        "sleep": SLEEP,
    }
    formatted = {
        "double_fork": [in_mul(DOUBLE_FORK.format(**fill))],
        "fake_results": [in_mul(FAKE_RESULTS.format(**fill), honest=False)],
        "touch_files": [in_mul(TOUCH_FILES.format(source=str(subs / "touch_files"), **fill))],
        "read_reference": [in_mul(READ_REFERENCE.format(**fill))],
    }
    for name, edits in formatted.items():
        sources.append(_reference_copy(subs, name, edits))
    depth = _reference_copy(subs, "patch_depth_import", [at_import(PATCH_DEPTH)])
    replace_region(depth / "chapters/ch01_value/graph.py", "1.7", RECURSIVE_TOPO)
    replace_region(depth / "chapters/ch01_value/graph.py", "1.7", RECURSIVE_TOPO)
    untraced = _reference_copy(subs, "untraced_recursion", [at_import(RAISED_LIMIT)])
    replace_region(untraced / "chapters/ch01_value/graph.py", "1.7", UNTRACED_RECURSION)
    sources += [depth, untraced]
    for make in SPECIAL.values():
        sources.append(make(subs))
    return sources


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory) -> Batch:
    root = tmp_path_factory.mktemp("hostile")
    out = root / "out"
    (out / "gradescope").mkdir(parents=True)  # there, so that a write into it could succeed
    sources = build_batch(root, out)
    options = grading.Options(
        chapter=1, course=grading.repository_course(root / "course"), limits=LIMITS
    )
    before = _tree_digest(root / "subs")
    start = time.monotonic()
    try:
        graded = grading.grade_all(sources, options, jobs=2)
        seconds = time.monotonic() - start
        survivors = wait_until_gone(SLEEP)
        rows = outputs.write_batch(out, graded, CH01, options, 2, merge=False)
        marked = _marked_files()
        return Batch(
            {g.name: g for g in graded},
            {r["submission"]: r for r in rows},
            out,
            root / "subs",
            options,
            seconds,
            survivors,
            before,
            _tree_digest(root / "subs"),
            marked,
        )
    finally:
        for path in _marked_files():  # a sandbox that let a write through: leave no trace
            path.unlink(missing_ok=True)


# -- the tests -----------------------------------------------------------------------------------


def test_forged_data_would_pass() -> None:
    """The cheats' data is what a correct ``__mul__`` gives: accepted, it would earn 1.3."""
    import importlib

    namespace: dict = {}
    exec(RIGHT, namespace)  # the test's own code
    checks = [
        c
        for module in ("autograder.checks.ch01_value", "autograder.hidden.ch01_value")
        for c in importlib.import_module(module).CHECKS
        if c.task == "1.3"
    ]
    assert len(checks) == 2
    for check in checks:
        for case in check.make_cases(grading.PUBLIC_SEED):
            assert check.verdict(case, namespace["_right"](case.inputs)) is None, case.label


def test_correct_submissions_get_full_marks_as_when_graded_alone(
    batch: Batch, tmp_path: Path
) -> None:
    for name in ("ok_folder", "ok_zip"):
        assert batch.graded[name].status == "graded"
        assert batch.graded[name].points == 100, batch.feedback(name)
        assert batch.rows[name]["total"] == "100"
    alone = grading.grade_all([batch.subs / "ok_folder"], batch.options, jobs=1)[0]
    ours = batch.graded["ok_folder"]
    assert [(t.id, t.points, t.status, t.output) for t in alone.tasks] == [
        (t.id, t.points, t.status, t.output) for t in ours.tasks
    ]
    assert alone.feedback == ours.feedback


def test_stubs_only_earn_nothing_and_are_not_started(batch: Batch) -> None:
    graded = batch.graded["stubs_only"]
    assert graded.points == 0 and graded.status == "graded"
    assert {t.status for t in graded.tasks} == {"not started"}


def test_the_honest_bug_costs_task_1_3_and_what_runs_it(batch: Batch) -> None:
    """The yardstick for the hostile edits of ``__mul__``."""
    points = batch.points("honest_bug")
    full = {t.id: float(t.points) for t in CH01.tasks}
    assert points["1.3"] == 0
    assert 0 < points["1.8"] < full["1.8"]  # its checks that multiply are blocked by 1.3
    assert {k: v for k, v in points.items() if k not in ("1.3", "1.8")} == {
        k: v for k, v in full.items() if k not in ("1.3", "1.8")
    }
    assert "Task 1.3" in batch.feedback("honest_bug")


@pytest.mark.parametrize("name", sorted(LIKE_HONEST_BUG))
def test_hostile_code_in_an_op_costs_that_op(batch: Batch, name: str) -> None:
    graded, feedback = batch.graded[name], batch.feedback(name)
    assert graded.status == "graded"
    assert batch.points(name) == batch.points("honest_bug"), feedback
    assert batch.rows[name]["total"] == batch.rows["honest_bug"]["total"]
    task = next(t for t in graded.tasks if t.id == "1.3")
    for word in LIKE_HONEST_BUG[name]:
        assert word in task.output, (word, task.output)


@pytest.mark.parametrize("name", sorted(AT_IMPORT))
def test_hostile_code_at_import_fails_the_chapter(batch: Batch, name: str) -> None:
    graded, feedback = batch.graded[name], batch.feedback(name)
    assert graded.points == 0 and graded.status == "import error", feedback
    assert batch.rows[name]["total"] == "0" and batch.rows[name]["status"] == "import error"
    for word in AT_IMPORT[name]:
        assert word in feedback, (word, feedback)


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("zip_slip", ["refused", "unsafe path", "'..'"]),
        ("zip_absolute", ["refused", "unsafe path", "absolute"]),
        ("zip_bomb", ["refused", "larger than 1024 KiB"]),
        ("too_many_files", ["refused", "more than 2000 .py files"]),
        ("link_chapter", ["symbolic link"]),
    ],
)
def test_a_submission_that_cannot_be_taken_is_not_graded(
    batch: Batch, name: str, words: list[str]
) -> None:
    graded, feedback = batch.graded[name], batch.feedback(name)
    assert graded.status == "not graded" and graded.points == 0
    assert batch.rows[name]["status"] == "not graded"
    for word in words:
        assert word in feedback, (word, feedback)


def test_nothing_of_an_unsafe_zip_lands_outside(batch: Batch) -> None:
    assert not [p for p in batch.marked if "escaped" in p.name or "absolute" in p.name]
    assert not list(batch.subs.parent.rglob(f"*{MARK}-escaped*"))


@pytest.mark.parametrize("name", ["link_file", "link_zip"])
def test_a_link_to_the_reference_is_skipped(batch: Batch, name: str) -> None:
    """value.py is a link to the reference: skipped, so its tasks are graded as stubs."""
    points, feedback = batch.points(name), batch.feedback(name)
    assert points == {
        t.id: float(t.points) if t.id in ("1.1", "1.7") else 0.0 for t in CH01.tasks
    }, feedback
    assert "skipped the symbolic link" in feedback and "value.py" in feedback
    assert "graded as stubs" in feedback


def test_patching_the_depth_measurement_does_not_pass_a_recursive_walk(batch: Batch) -> None:
    """The measurement replaced at import is put back before the first check: the recursive
    walk fails 1.7 as it would unpatched, and the patch is flagged."""
    points, feedback = batch.points("patch_depth_import"), batch.feedback("patch_depth_import")
    assert points["1.7"] == 0 and points["1.1"] == 10, feedback
    assert "recurs" in feedback


def test_results_sent_from_the_grader_s_own_frames_do_not_count(batch: Batch) -> None:
    """The forger reached the main thread's writer (flagged, above) and sent the right
    results for the check it was in, then left: the results of a check whose child did not
    finish it are discarded, so task 1.3 earns nothing."""
    points, feedback = batch.points("frames_every_thread"), batch.feedback("frames_every_thread")
    assert points["1.3"] == 0 and "discarded" in feedback, feedback


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_what_the_grader_saw_is_flagged_for_review(batch: Batch, name: str) -> None:
    review, feedback = batch.rows[name]["review"], batch.feedback(name)
    for words in FLAGGED[name]:
        assert words in review and words in feedback, (words, review)
    assert "Flagged for your instructor's review" in feedback
    results = (batch.out / "gradescope" / f"{name}.json").read_text()
    assert "Flagged for your instructor's review" in results
    summary = (batch.out / "summary.txt").read_text()
    assert f"  {name}: {review}" in summary and "flagged for review" in summary


def test_nothing_else_is_flagged(batch: Batch) -> None:
    """Honest code, and hostile code that needed no grader internals, carries no flag."""
    quiet = {name: row["review"] for name, row in batch.rows.items() if name not in FLAGGED}
    assert quiet and all(review == "" for review in quiet.values()), quiet


def test_switching_the_tracer_off_does_not_pass_a_recursive_walk(batch: Batch) -> None:
    points, feedback = batch.points("untraced_recursion"), batch.feedback("untraced_recursion")
    assert points["1.7"] == 0, feedback
    assert "switched off the grader's call-depth measurement" in feedback


def test_two_hundred_children_are_stopped_and_ended(batch: Batch) -> None:
    """A check whose code starts 200 processes is stopped once more than the limit live at
    once, and scored (that check crashed, the others graded as usual; its neighbours in the
    batch, graded two at a time, keep their points: the other tests); none survives."""
    points, feedback = batch.points("many_children"), batch.feedback("many_children")
    assert points["1.3"] == 0 and points["1.1"] == 10, feedback
    assert "processes running at once (limit: 32)" in feedback, feedback
    assert wait_until_gone(SLEEP_MANY) == []


def test_a_detached_grandchild_does_not_survive_or_matter(batch: Batch) -> None:
    assert batch.graded["double_fork"].points == 100, batch.feedback("double_fork")
    assert batch.survivors == []
    assert alive_with(SLEEP) == []


def test_the_batch_finished_and_left_no_process_behind(batch: Batch) -> None:
    assert len(batch.graded) == len(EDITS) + len(SPECIAL) + 6
    assert batch.seconds < 400, batch.seconds
    assert alive_with(SLEEP) + alive_with(MARK) == []
    ours = [_cmdline(pid) for pid in sandbox.children(os.getpid())]
    assert [c for c in ours if "resource_tracker" not in c] == []  # workers and children


def test_fake_results_do_not_reach_the_outputs(batch: Batch) -> None:
    assert batch.points("fake_results") == batch.points("honest_bug")
    assert batch.rows["fake_results"]["total"] == batch.rows["honest_bug"]["total"]
    names = sorted(batch.graded)
    assert sorted(p.stem for p in (batch.out / "gradescope").iterdir()) == names
    assert sorted(p.stem for p in (batch.out / "feedback").iterdir()) == names
    for name, graded in batch.graded.items():
        assert batch.rows[name]["total"] == f"{graded.points:g}"
    assert '"score": 100.0' in (batch.out / "gradescope" / "ok_folder.json").read_text()
    fair = f'"score": {batch.graded["honest_bug"].points}'
    assert fair in (batch.out / "gradescope" / "fake_results.json").read_text()
    if batch.sandboxed:  # the fallback cannot keep a child out of the grader's /tmp
        assert {p.name for p in batch.out.iterdir()} == {
            "feedback",
            "gradescope",
            "grades.csv",
            "summary.txt",
        }
        assert batch.marked == [], "a submission wrote outside its copy"


def test_files_outside_the_copy_are_untouched(batch: Batch) -> None:
    if not batch.sandboxed:
        pytest.skip(
            "no bubblewrap here: the fallback runs children as a user who may write these files"
        )
    feedback = batch.feedback("touch_files")
    assert batch.points("touch_files") == batch.points("honest_bug"), feedback
    assert "could not write" in feedback
    assert batch.digest_after == batch.digest_before  # the submissions' own folders too
    assert batch.marked == []
    assert not list(batch.out.glob(f"*{MARK}*"))


def test_the_reference_is_out_of_reach(batch: Batch) -> None:
    if not batch.sandboxed:
        pytest.skip("no bubblewrap here: the fallback cannot hide the repository")
    feedback = batch.feedback("read_reference")
    assert batch.points("read_reference") == batch.points("honest_bug"), feedback
    assert "the reference is out of reach" in feedback


# -- explicit confinements ---------------------------------------------------------------------


def test_the_fallback_confinement_is_fair_and_leaves_nothing(tmp_path: Path, batch: Batch) -> None:
    subs = tmp_path / "subs"
    fork = DOUBLE_FORK.format(sleep=SLEEP_FALLBACK)
    sources = [
        _reference_copy(subs, "ok_folder", []),
        _reference_copy(subs, "double_fork", [in_mul(fork)]),
        _reference_copy(subs, "detached", [in_mul(DETACHED.format(sleep=SLEEP_DETACHED))]),
        _reference_copy(subs, "hang_op", [in_mul(HANG)]),
    ]
    options = grading.Options(
        chapter=1,
        course=grading.repository_course(tmp_path / "course"),
        limits=LIMITS,
        confinement="fallback",
    )
    start = time.monotonic()
    graded = {g.name: g for g in grading.grade_all(sources, options, jobs=2)}
    seconds = time.monotonic() - start
    assert wait_until_gone(SLEEP_FALLBACK) + wait_until_gone(SLEEP_DETACHED) == []
    assert seconds < 120, seconds  # a grandchild holding the child's pipes stalls nothing
    for g in graded.values():
        assert g.confinement.startswith("fallback")
        assert "confinement: fallback" in g.feedback
    assert graded["ok_folder"].points == 100
    assert [(t.id, t.points, t.output) for t in graded["ok_folder"].tasks] == [
        (t.id, t.points, t.output) for t in batch.graded["ok_folder"].tasks
    ]
    assert graded["double_fork"].points == 100, graded["double_fork"].feedback
    # the worker ended the grandchild that let go of every pipe, and says so; the others
    # left nothing running (a grandchild holding the pipes ends with the child)
    ended = "The grader ended 1 process(es) your code left running."
    assert graded["detached"].points == 100 and ended in graded["detached"].feedback
    for name in ("ok_folder", "double_fork", "hang_op"):
        assert "process(es)" not in graded[name].feedback, graded[name].feedback
    hang = graded["hang_op"]
    assert {t.id: t.points for t in hang.tasks} == batch.points("honest_bug")
    assert "timed out" in hang.feedback and "stopped after" in hang.feedback


def test_the_fallback_says_when_its_children_can_read_what_grading_keeps_from_them() -> None:
    """A world-readable checkout: the child's user could read the reference and the hidden
    checks. The grader says so (what, where, and the fix); a checkout that user cannot read
    — or bubblewrap — gets no warning."""
    conf = sandbox.confinement("fallback")
    checkout = Path(tempfile.mkdtemp(prefix="sparrow-checkout-"))  # pytest's tmp is 0700
    try:
        (checkout / "solutions").mkdir()
        (checkout / "hidden").mkdir()
        (checkout / "solutions" / "value.py").write_text("# the reference\n")
        for path in (checkout, checkout / "solutions", checkout / "hidden"):
            path.chmod(0o755)
        kept = {"the reference": checkout / "solutions", "the hidden checks": checkout / "hidden"}
        said = sandbox.exposure_warning(conf, kept)
        assert "the reference (" in said and "the hidden checks (" in said, said
        assert "bubblewrap" in said and "chmod -R o-rwx" in said
        if conf.user is not None:  # dropped to another user: a checkout it cannot read is fine
            checkout.chmod(0o700)
            assert sandbox.exposure_warning(conf, kept) == ""
        else:
            assert "your own user" in said
        bwrap = sandbox.Confinement("bubblewrap", "bubblewrap", bwrap="bwrap")
        assert sandbox.exposure_warning(bwrap, kept) == ""
    finally:
        shutil.rmtree(checkout, ignore_errors=True)


SANDBOX_VIEW = """
import os, pathlib
seen = []
# the repository's own files (its folder may exist: a .venv inside it is bound, alone)
for path in ({reference!r}, {repo!r} + "/README.md", {repo!r} + "/autograder/grading.py",
             {host_file!r}):
    try:
        os.listdir(path) if os.path.isdir(path) else open(path).read()
        seen.append(path)
    except OSError:
        pass
pids = [p for p in os.listdir("/proc") if p.isdigit()]
if os.getuid() != 65534:
    seen.append(f"uid {{os.getuid()}}")
if len(pids) > 10:
    seen.append(f"{{len(pids)}} processes")
disk = os.statvfs("/tmp")
if disk.f_blocks * disk.f_frsize > 256 * 2**20:
    seen.append(f"a /tmp of {{disk.f_blocks * disk.f_frsize // 2**20}} MiB")
for folder in ("/", "/dev", "/sparrow"):
    try:
        os.mkdir(os.path.join(folder, "{mark}"))
        seen.append(f"a writable {{folder}}")
    except OSError:
        pass
try:
    import socket
    socket.create_connection(("127.0.0.1", 22), timeout=0.5).close()
    seen.append("the host's network")
except OSError:
    pass
if seen:
    raise RuntimeError("the sandbox lets the code reach " + ", ".join(seen))
"""


def test_inside_bubblewrap_the_repository_is_out_of_sight(tmp_path: Path, bubblewrap) -> None:
    host_file = Path(tempfile.gettempdir()) / f"{MARK}-host.txt"
    host_file.write_text("the grader's /tmp\n")
    try:
        fill = {
            "reference": str(SOLUTIONS / "ch01_value/value.py"),
            "repo": str(REPO),
            "host_file": str(host_file),
            "mark": MARK,
        }
        source = _reference_copy(tmp_path, "view", [in_mul(SANDBOX_VIEW.format(**fill))])
        options = grading.Options(
            chapter=1,
            course=grading.repository_course(tmp_path / "course"),
            limits=LIMITS,
            confinement="bubblewrap",
        )
        graded = grading.grade_all([source], options, jobs=1)[0]
    finally:
        host_file.unlink()
    assert graded.confinement.startswith("bubblewrap"), graded.feedback
    assert graded.points == 100, graded.feedback

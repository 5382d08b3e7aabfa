"""The runner: run check programs in a child process and collect the data they return.

The parent builds a composite tree (a temporary folder holding a package named ``chapters``
with the code under test, plus the check harness and the check programs), starts
``python -I -S`` on it with a ``sys.path`` built here, sends the plan, and reads results.
Every check has a CPU-time budget that this process enforces from the child's measured CPU
time (wall-clock time where the system cannot tell CPU time, and as a generous backstop):
a check that overruns, or a child that dies, costs that one check; the runner starts a fresh
child for the checks that remain. Instructor mode wraps the same child in a sandbox.
"""

from __future__ import annotations

import os
import queue
import secrets
import shutil
import signal
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np

from .harness import wire
from .harness.language import tr
from .sandbox import NONE, Confinement, interpreter
from .status import Status

HARNESS = Path(__file__).resolve().parent / "harness"


@dataclass(frozen=True)
class Limits:
    cpu_per_check: float = 10.0  # CPU seconds for one check's cases (and for the imports)
    wall_factor: float = 3.0  # wall-clock backstop: cpu_per_check · factor + wall_slack
    wall_slack: float = 5.0
    max_message_bytes: int = 64 * 2**20  # what the parent reads from one child, at most
    memory_mb: int = 4096  # data size of a confined child (RLIMIT_DATA)
    open_files: int = 256  # a confined child's file descriptors (RLIMIT_NOFILE)
    file_size_mb: int = 64  # the largest file a confined child may write (RLIMIT_FSIZE)
    processes: int = 32  # live processes of a child's tree at once (the parent counts them)

    @property
    def wall_per_check(self) -> float:
        return self.cpu_per_check * self.wall_factor + self.wall_slack

    def describe(self) -> str:
        return tr(
            f"{self.cpu_per_check:g} CPU seconds per check "
            f"(wall-clock backstop {self.wall_per_check:g} s)",
            f"每项检查 {self.cpu_per_check:g} CPU 秒（墙钟时间上限 {self.wall_per_check:g} 秒）",
        )

    def describe_confined(self) -> str:
        return tr(
            f"{self.describe()}; {self.memory_mb} MiB data, {self.open_files} open files, "
            f"{self.processes} processes at once, "
            f"{self.file_size_mb} MiB per written file, {self.max_message_bytes // 2**20} MiB "
            "read from the child",
            f"{self.describe()}；数据 {self.memory_mb} MiB，打开文件 {self.open_files} 个，"
            f"同时运行的进程 {self.processes} 个，每个写出的文件 {self.file_size_mb} MiB，"
            f"从子进程读取 {self.max_message_bytes // 2**20} MiB",
        )

    def rlimits(self, checks: int) -> dict[str, int]:
        """What a confined child sets on itself before importing code under test; its CPU
        limit is a backstop for the whole child (the parent enforces each check's)."""
        return {
            "CPU": int(self.cpu_per_check * (checks + 1) + self.wall_slack),
            "DATA": self.memory_mb * 2**20,
            "NOFILE": self.open_files,
            "FSIZE": self.file_size_mb * 2**20,
        }


@dataclass(frozen=True)
class PlannedCheck:
    id: str  # unique within a run, e.g. "2:1.3/Value * Value"
    program: str  # "module:function", a top-level function of a check-programs module
    cases: Sequence[Mapping[str, Any]]  # the inputs of each case, in order


@dataclass
class CheckRun:
    """What happened to one check in the child. ``status``: ``RAN`` (``results`` holds one
    ``wire.Outcome`` per case), ``TIMED_OUT``, ``CRASHED``, ``FLOODED``, ``FORGED`` (``detail``
    says how) or ``IMPORT_ERROR`` (``error`` describes the exception, or ``detail`` what
    happened instead)."""

    status: Status
    results: list[wire.Outcome] = field(default_factory=list)
    detail: str = ""
    error: wire.Raised | None = None
    printed: str = ""  # what the code under test printed during the check
    seen: list[str] = field(default_factory=list)  # for the instructor: ``wire.Seen``


# -- the composite tree ------------------------------------------------------------------


def _copy_python(src: Path, dest: Path) -> None:
    for path in sorted(src.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        target = dest / path.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)


def build_tree(dest: Path, packages: Mapping[str, Path], programs: Mapping[str, Path]) -> None:
    """Lay out ``dest`` for a child: ``chapters/<package>`` from each given folder (only its
    ``.py`` files, copied, never linked), a bare ``chapters/__init__.py`` (no switch), the
    harness, and each check-programs module (``autograder.checks.ch01_value.programs``) with
    empty packages above it: case lists, expected values and verdicts are never copied."""
    chapters = dest / "chapters"
    chapters.mkdir(parents=True)
    bare = '"""Composite tree built by the autograder."""\n'  # en-only: code
    (chapters / "__init__.py").write_text(bare)
    for name, src in packages.items():
        _copy_python(src, chapters / name)
    _copy_python(HARNESS, dest / "autograder" / "harness")
    for module, path in programs.items():
        *parents, stem = module.split(".")
        for level in range(1, len(parents) + 1):
            folder = dest.joinpath(*parents[:level])
            folder.mkdir(exist_ok=True)
            (folder / "__init__.py").touch()
        shutil.copyfile(path, dest.joinpath(*parents, f"{stem}.py"))


def child_sys_path(tree: Path) -> list[str]:
    """The child's import path: the tree, then where NumPy is installed (never a .pth)."""
    paths = [str(tree)]
    for key in ("purelib", "platlib"):
        paths.append(sysconfig.get_paths()[key])
    paths.append(str(Path(np.__file__).resolve().parent.parent))
    return list(dict.fromkeys(paths))


def child_env(home: Path) -> dict[str, str]:
    # SPARROW_LANG: the check programs' words in the learner's language (``harness.language``)
    keep = ("PATH", "SYSTEMROOT", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "SPARROW_LANG")
    env = {key: os.environ[key] for key in keep if key in os.environ}
    env.update(
        HOME=str(home),
        TMPDIR=str(home),
        LANG="C.UTF-8",
        LC_ALL="C.UTF-8",
        OPENBLAS_NUM_THREADS="1",
        OMP_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        PYTHONIOENCODING="utf-8",
    )
    return env


# -- measuring the child -----------------------------------------------------------------


def _stat(pid: str) -> tuple[int, float] | None:
    """(parent pid, CPU seconds of the process and its reaped children) from /proc."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        ticks = sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
        return int(fields[1]), ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError, AttributeError):
        return None


def tree_usage(pid: int) -> tuple[float, int] | None:
    """CPU time of a process and every descendant, reaped or running, and how many of them
    live, where the system tells (Linux): a check cannot hide its work in a forked child or
    behind a sandbox's init."""
    own = _stat(str(pid))
    if own is None:
        return None
    try:
        names = [n for n in os.listdir("/proc") if n.isdigit()]
    except OSError:
        return own[1], 1
    stats = {int(n): s for n in names if (s := _stat(n)) is not None}
    kids: dict[int, list[int]] = {}
    for child, (parent, _) in stats.items():
        kids.setdefault(parent, []).append(child)
    total, count, todo = 0.0, 0, [pid]
    while todo:
        current = todo.pop()
        if current in stats:
            total, count = total + stats[current][1], count + 1
            todo += kids.get(current, [])
    return total, count


class Closed(Enum):
    """How the child's channel ended without a message."""

    EOF = "eof"  # the child exited, or closed it
    FLOODED = "flooded"  # it carried more than the grader reads


@dataclass(frozen=True)
class Garbled:
    """A line on the channel that is none of the child's messages: code under test wrote
    to the grader's channel."""

    problem: str


class _Reader(threading.Thread):
    """Reads the child's channel into ``items``: its messages (``wire.Event``) in order, then
    why the channel ended (``Closed``, or ``Garbled`` at the first line that is not a
    message), never more than ``cap`` bytes. Each of the child's lines starts with this run's
    ``token``, which only the child's main thread holds: a line without it was written by
    the code under test."""

    def __init__(self, stream: Any, cap: int, token: bytes = b"") -> None:
        super().__init__(daemon=True)
        self.stream, self.cap, self.total, self.token = stream, cap, 0, token
        self.items: queue.Queue[wire.Event | Closed | Garbled] = queue.Queue()

    def run(self) -> None:
        pending: list[bytes] = []  # the line being read, in chunks (joined once, at its end)
        while True:
            chunk = self.stream.read1(1 << 16)
            if not chunk:
                break
            self.total += len(chunk)
            if self.total > self.cap:
                self.items.put(Closed.FLOODED)
                return
            *ends, rest = chunk.split(b"\n")
            for end in ends:
                line, pending = b"".join([*pending, end]), []
                if not self._take(line):
                    return
            pending.append(rest)
        self.items.put(Closed.EOF)

    def _take(self, line: bytes) -> bool:
        """Put the message ``line`` carries, or ``Garbled`` (and False: reading stops)."""
        if not line.startswith(self.token):
            # a protocol detail (English: for whoever debugs), inside the forged-message report
            text = f"a line without this run's token: {line[:40]!r}, {len(line)} bytes"  # en-only
            self.items.put(Garbled(text))
            return False
        line = line[len(self.token) :]
        try:
            self.items.put(wire.decode(line))
        except Exception as error:  # not JSON, nested too deep, a bad array: garbage
            why = f"{type(error).__name__}: {str(error)[:60]}"  # (for whoever debugs)
            text = (
                f"a line that is not a message: {line[:40]!r}, {len(line)} bytes, {why}"  # en-only
            )
            self.items.put(Garbled(text))
            return False
        return True


class _Tail(threading.Thread):
    """Keeps the last few kilobytes of what the code under test printed."""

    def __init__(self, stream: Any, keep: int = 4000) -> None:
        super().__init__(daemon=True)
        self.stream, self.keep, self.text = stream, keep, b""

    def run(self) -> None:
        while chunk := self.stream.read1(1 << 16):
            self.text = (self.text + chunk)[-self.keep :]

    def tail(self, lines: int = 15) -> str:
        return "\n".join(self.text.decode("utf-8", "replace").splitlines()[-lines:])


# -- running -----------------------------------------------------------------------------

BOOT = (  # en-only: code
    "import sys; sys.path[:0] = {path!r}; from autograder.harness.child import main; "  # en-only
    "main({tree!r}, {rlimits!r})"
)


def _start(
    tree: Path, plan: wire.Plan, confinement: Confinement, limits: Limits, token: str
) -> subprocess.Popen:
    inside = confinement.tree_path(tree)
    rlimits = None if confinement is NONE else limits.rlimits(len(plan["checks"]))
    boot = BOOT.format(path=child_sys_path(inside), tree=str(inside), rlimits=rlimits)
    python = sys.executable if confinement is NONE else interpreter()
    command = confinement.command(tree, [python, "-I", "-S", "-c", boot])
    proc = subprocess.Popen(
        command,
        cwd="/" if confinement.bwrap else tree,
        env=child_env(confinement.scratch(tree) if confinement is not NONE else tree),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **confinement.popen_options(),
    )
    try:
        proc.stdin.write(wire.dumps({**plan, "token": token}).encode())
        proc.stdin.close()
    except OSError:
        pass  # it died at once; the loop below reports how
    return proc


def _stop(proc: subprocess.Popen) -> int | None:
    """End the child and, when it has a session of its own, everything in that session."""
    if proc.poll() is None:
        proc.kill()
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError, AttributeError):
        pass
    try:
        return proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        return None


def _exit_detail(code: int | None, tail: str) -> str:
    if code is None:
        how = tr("did not exit", "没有退出")
    elif code < 0:
        how = tr(f"was killed by signal {-code}", f"被信号 {-code} 终止")
    else:
        how = tr(f"exited with code {code}", f"以退出码 {code} 退出")
    said = tr(f"the Python process running your code {how}", f"运行你的代码的 Python 进程{how}")
    return said + (tr(f"; its last output:\n{tail}", f"；它最后的输出：\n{tail}") if tail else "")


_UNREAD = -1.0  # a step's starting CPU time, not read yet


class _Budget:
    """The CPU budget of the step a child is in (its imports, or one check), restarted at
    each of its messages. CPU seconds of the child's whole process tree where the system
    measures them (a /proc scan, so at most every ``every`` seconds); wall-clock seconds
    elsewhere, and always as a backstop. A step's starting CPU time is read at its first
    measurement, ``every`` seconds in: most checks end sooner and cost no scan at all (a
    scan reads every process's stat file), and a long step's budget starts at most
    ``every`` seconds late."""

    def __init__(self, pid: int, limits: Limits, every: float = 0.1) -> None:
        self.pid, self.limits, self.every = pid, limits, every
        self.restart()

    def restart(self) -> None:
        self.cpu_start, self.wall_start = _UNREAD, time.monotonic()
        self.measured, self.crashed = self.wall_start, False

    def overrun(self) -> str:
        """Why the step is over its budget, or "" while it is within it."""
        if time.monotonic() - self.measured < self.every:
            return ""
        self.measured = time.monotonic()
        wall, limits = self.measured - self.wall_start, self.limits
        usage = tree_usage(self.pid)
        cpu, processes = usage if usage is not None else (None, 0)
        if processes > limits.processes:  # the child and its sandbox's init among them
            self.crashed = True
            return tr(
                f"stopped: your code had {processes} processes running at once (limit: "
                f"{limits.processes}); every one was ended",
                f"已停止：你的代码同时运行了 {processes} 个进程（上限 {limits.processes} 个），"
                "它们都已被结束",
            )
        if self.cpu_start == _UNREAD:
            self.cpu_start = cpu
        if cpu is not None and self.cpu_start is not None:
            if cpu - self.cpu_start > limits.cpu_per_check:
                spent = cpu - self.cpu_start
                used = tr(f"{spent:.1f} CPU seconds", f"{spent:.1f} CPU 秒")
            elif wall > limits.wall_per_check:
                used = tr(f"{wall:.1f} wall-clock seconds", f"{wall:.1f} 秒墙钟时间")
            else:
                return ""
        elif wall > limits.cpu_per_check:
            used = tr(f"{wall:.1f} seconds", f"{wall:.1f} 秒")
        else:
            return ""
        return tr(
            f"stopped after {used} (limit: {limits.describe()}); an endless loop?",
            f"运行了 {used} 后被停止（上限：{limits.describe()}）；是死循环吗？",
        )


@dataclass(frozen=True)
class Overrun:
    """The step a child is in went over its budget (``detail`` says how far): its CPU time
    (timed out), or the processes it may run at once (``crashed``)."""

    detail: str
    crashed: bool = False


def _next(reader: _Reader, budget: _Budget) -> wire.Event | Closed | Garbled | Overrun:
    """What happens next to a child: a message, the end of its channel, or its step going
    over budget."""
    while True:
        try:
            return reader.items.get(timeout=0.02)
        except queue.Empty:
            if detail := budget.overrun():
                return Overrun(detail, budget.crashed)


@dataclass
class _Record:
    """What ``run_checks`` knows so far: each finished check's run, and whether a child of
    this run has forged a message already."""

    runs: dict[str, CheckRun] = field(default_factory=dict)
    forged: bool = False
    seen: list[wire.Seen] = field(default_factory=list)


def run_checks(
    tree: Path,
    target: str,
    checks: Sequence[PlannedCheck],
    limits: Limits = Limits(),
    confinement: Confinement = NONE,
    device: str | None = None,
) -> dict[str, CheckRun]:
    """Run ``checks`` against the package ``target`` of ``tree``: one child process while
    all goes well, a fresh one after any check that overruns its budget, kills the child or
    leaves threads running (``Restart``: they end with their child).
    With ``device``, each child first puts new tensors there (chapter 7 of ``tree``)."""
    record = _Record()
    while remaining := [c for c in checks if c.id not in record.runs]:
        plan = wire.Plan(
            target=target,
            checks=[
                wire.PlannedItem(id=c.id, program=c.program, cases=[dict(i) for i in c.cases])
                for c in remaining
            ],
        )
        if device:
            plan["device"] = device
        _run_one_child(tree, plan, remaining, record, limits, confinement)
    for seen in record.seen:  # on the check it was seen in (while importing: the first)
        run = record.runs.get(seen.id or "") or record.runs[checks[0].id]
        if seen.what not in run.seen:
            run.seen.append(seen.what)
    return record.runs


class _Child:
    """What the parent knows of one child's run: the protocol is ``Ready``, then ``Begin``
    and ``End`` for each planned check in order, then ``Done`` (or, after an ``End`` with
    checks left, ``Restart``: the child ends, and a fresh one runs the rest). Code under
    test can write to the child's channel too (it runs in that process), so a message out
    of that order is taken as forged: whatever that child reported is discarded."""

    def __init__(self, remaining: Sequence[PlannedCheck]) -> None:
        self.order = [c.id for c in remaining]
        self.ready = False
        self.current: str | None = None  # the check now running; None between checks
        self.last: str | None = None  # the last check begun (the one running, or just ended)
        self.ended: list[str] = []

    def unexpected(self, event: wire.Event) -> str:
        """Why ``event`` cannot come now ("" when it can)."""
        if isinstance(event, wire.Ready):
            return f"a second {event.name!r}" if self.ready else ""
        if isinstance(event, wire.Begin):
            following = self.order[len(self.ended)] if len(self.ended) < len(self.order) else None
            if not self.ready or self.current is not None or event.id != following:
                return f"{event.name!r} of {event.id!r} out of order"  # en-only: protocol
            return ""
        if isinstance(event, wire.End):
            late = event.id != self.current
            return f"{event.name!r} of {event.id!r} out of order" if late else ""  # en-only
        if isinstance(event, wire.Done):
            complete = self.ready and self.current is None and len(self.ended) == len(self.order)
            return "" if complete else f"{event.name!r} before every check had run"  # en-only
        if isinstance(event, wire.Restart):  # each child finishes a check at least
            between = self.ready and self.current is None and bool(self.ended)
            return "" if between and len(self.ended) < len(self.order) else f"{event.name!r} now"
        if isinstance(event, wire.ImportFailed):
            return f"{event.name!r} after the imports" if self.ready else ""  # en-only
        return ""

    def take(self, event: wire.Event, record: _Record) -> None:
        """Follow an expected message."""
        if isinstance(event, wire.Ready):
            self.ready = True
        elif isinstance(event, wire.Begin):
            self.current = self.last = event.id
        elif isinstance(event, wire.End):
            record.runs[event.id] = CheckRun(Status.RAN, event.results, printed=event.printed)
            self.ended.append(event.id)
            self.current = None


def _run_one_child(
    tree: Path,
    plan: wire.Plan,
    remaining: Sequence[PlannedCheck],
    record: _Record,
    limits: Limits,
    confinement: Confinement,
) -> None:
    """One child over ``remaining``: record each check it finishes, and stop it at the
    first check it cannot finish (recorded as timed out, crashed, flooded or forged)."""
    token = secrets.token_hex(16)  # a fresh one for each child
    proc = _start(tree, plan, confinement, limits, token)
    reader = _Reader(proc.stdout, limits.max_message_bytes, token.encode("ascii"))
    tail = _Tail(proc.stderr)
    reader.start()
    tail.start()
    child, budget = _Child(remaining), _Budget(proc.pid, limits)
    try:
        while isinstance(event := _next(reader, budget), wire.Event):
            if isinstance(event, wire.Seen):
                record.seen.append(event)
                continue
            if problem := child.unexpected(event):
                _forged(problem, child, remaining, record)
            elif isinstance(event, wire.ImportFailed):
                run = CheckRun(Status.IMPORT_ERROR, error=dict(event.error))
                _fail(run, child, remaining, record)
            elif not isinstance(event, (wire.Done, wire.Restart)):
                child.take(event, record)
                budget.restart()
                continue
            return  # done, a restart, or a message that ends this child's run
        if isinstance(event, Garbled):
            _forged(event.problem, child, remaining, record)
            return
        code = _stop(proc)  # the channel ended, or the step overran: the child is done
        if event is Closed.EOF:
            tail.join(timeout=1)  # its last output, for the report
        _fail(_ended(event, code, tail.tail(), limits), child, remaining, record)
    finally:
        _stop(proc)
        _release(proc, reader, tail)


def _ended(how: Closed | Overrun, code: int | None, printed: str, limits: Limits) -> CheckRun:
    """What a child's end means for the check it was in."""
    if isinstance(how, Overrun):
        return CheckRun(Status.CRASHED if how.crashed else Status.TIMED_OUT, detail=how.detail)
    if how is Closed.EOF:
        return CheckRun(Status.CRASHED, detail=_exit_detail(code, printed))
    cap = limits.max_message_bytes // 2**20
    detail = tr(
        f"the process running your code sent more data than the grader reads (limit {cap} MiB)",
        f"运行你的代码的进程发来的数据超过了评分程序读取的上限（{cap} MiB）",
    )
    return CheckRun(Status.FLOODED, detail=detail)


def _release(proc: subprocess.Popen, reader: threading.Thread, tail: threading.Thread) -> None:
    """Let the reading threads finish and close the pipes. A process that outlived the child
    and still holds its pipes (a detached grandchild) is ended first: a pipe is not closed
    while a thread is still reading it, and that read would wait for the process."""
    pipes = [(proc.stdout, reader), (proc.stderr, tail)]
    for _, thread in pipes:
        thread.join(timeout=0.5)
    if any(thread.is_alive() for _, thread in pipes):
        _end_holders([stream for stream, _ in pipes])
        for _, thread in pipes:
            thread.join(timeout=5)
    for stream, thread in pipes:
        if not thread.is_alive():  # else left open: closing would wait for the reader
            stream.close()


def _end_holders(streams: Sequence[Any], rounds: int = 5) -> None:
    """Kill every other process that holds an end of these pipes (Linux /proc; where it can
    be read: the processes of this user, or every process for root)."""
    try:
        links = {f"pipe:[{os.fstat(s.fileno()).st_ino}]" for s in streams}
    except (OSError, ValueError):
        return
    for _ in range(rounds):
        holders = set()
        for pid in (p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()):
            try:
                fds = os.listdir(f"/proc/{pid}/fd")
            except OSError:
                continue
            for fd in fds:
                try:
                    if os.readlink(f"/proc/{pid}/fd/{fd}") in links:
                        holders.add(int(pid))
                        break
                except OSError:
                    continue
        if not holders:
            return
        for pid in holders:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.05)


def _fail(run: CheckRun, child: _Child, remaining: Sequence[PlannedCheck], record: _Record) -> None:
    """Record a child's failure: while importing it fails every check left; inside a check,
    that check; between checks, the one that ran last (code under test runs only inside a
    check, so what happens after its ``End`` is its doing: a forged ``End``, say), else the
    next one, so the run always moves on."""
    pending = [c.id for c in remaining if c.id not in record.runs]
    if not child.ready:
        if run.status == Status.CRASHED:
            run = CheckRun(Status.IMPORT_ERROR, detail=run.detail)
        elif run.status == Status.TIMED_OUT:
            run = CheckRun(
                Status.IMPORT_ERROR,
                detail=tr("importing your code ", "导入你的代码时") + run.detail,
            )
        targets = pending
    elif child.current is not None:
        targets = [child.current]
    elif child.last is not None:
        detail = tr(
            f"{run.detail}; this happened after the check had reported its results, which were "
            "discarded",
            f"{run.detail}；这发生在检查报告结果之后，那些结果已被丢弃",
        )
        run = CheckRun(run.status, detail=detail, error=run.error)
        targets = [child.last]
    else:
        targets = pending[:1]
    for check_id in targets:
        record.runs[check_id] = run


def _forged(
    problem: str, child: _Child, remaining: Sequence[PlannedCheck], record: _Record
) -> None:
    """Messages out of protocol: code under test wrote to the grader's channel. Everything
    this child reported is discarded. The first time, the checks it had finished run again
    in a fresh child and the one that ran last fails (or, before any check, every one, as
    an import error); a second forgery fails every check left, so a forger cannot make the
    grader run its checks over and over."""
    detail = tr(
        f"the process running your code sent the grader a message it did not expect "
        f"({problem}): something wrote to the grader's own channel, so the results it sent "
        "were discarded",
        f"运行你的代码的进程给评分程序发来了一条意料之外的消息（{problem}）："
        "有代码写入了评分程序自己的通道，所以它发来的结果都已被丢弃",
    )
    if record.forged:
        for c in remaining:
            record.runs[c.id] = CheckRun(Status.FORGED, detail=detail)
        return
    record.forged = True
    for check_id in child.ended:
        record.runs.pop(check_id, None)
    if child.last is None:
        child.ready = False
        _fail(CheckRun(Status.IMPORT_ERROR, detail=detail), child, remaining, record)
    else:
        child.current = child.last
        _fail(CheckRun(Status.FORGED, detail=detail), child, remaining, record)

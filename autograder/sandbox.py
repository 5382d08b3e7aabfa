"""Confinement: how instructor mode starts a child that runs untrusted code.

Three ways, chosen once per grading process (``confinement("auto")`` tries them in order):

- ``bubblewrap``: ``bwrap`` (Debian's ``bubblewrap``) gives the child its own user, PID,
  network, IPC and UTS namespaces, uid 65534 (nobody) with no capabilities, a private
  ``/tmp`` (128 MiB of memory at most; the only writable place but a small ``/dev/shm``),
  a read-only view of only the system directories (``/usr`` and the library links, the
  loader cache) and the Python environment, and as project files only the composite
  tree, read-only, at ``/sparrow``: nothing of the repository, the reference, other
  submissions or the outputs. ``--die-with-parent`` ends it with the grader. When the grader
  runs as root and nobody can reach the interpreter, bwrap itself runs as nobody too;
  otherwise it runs as the grader's user and nobody exists only inside the sandbox.
- ``fallback`` (no usable bwrap, e.g. a container that forbids user namespaces): the child
  runs as nobody when the grader is root and nobody can reach the interpreter (else as the
  grader's user, and the report says the drop was impossible), in a session of its own; the
  grading process is a subreaper, so a detached grandchild is reparented to it and ended
  with every other process of the run (``end_strays``).
- ``none``: student mode, the learner's own code on the learner's own machine.

Resource limits (CPU seconds for the whole child, data size, open files, file size) are set
by the child itself before it imports any code under test (``harness/child.py``), on every
path, so they hold inside the sandbox too; the parent also enforces each check's CPU budget
from the CPU time it measures for the child's whole process tree.
"""

from __future__ import annotations

import ctypes
import functools
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

NOBODY = 65534
INSIDE = Path("/sparrow")  # where a bwrap child sees its tree
PR_SET_CHILD_SUBREAPER = 36
TMP_BYTES = 128 * 2**20  # a bwrap child's private /tmp (its HOME): memory, so bounded
SHM_BYTES = 16 * 2**20  # and its /dev/shm


@dataclass(frozen=True)
class Confinement:
    """How children start. ``prefix`` goes before the interpreter's command line; ``user``
    is the uid to drop to (None: stay); ``summary`` is what reports print."""

    name: str  # "bubblewrap", "fallback" or "none"
    summary: str
    user: int | None = None
    bwrap: str | None = None
    bwrap_flags: tuple[str, ...] = field(default=())

    def tree_path(self, tree: Path) -> Path:
        """Where the child sees ``tree``."""
        return INSIDE if self.bwrap else tree

    def scratch(self, tree: Path) -> Path:
        """A folder the child may write to (its HOME and TMPDIR)."""
        if self.bwrap:
            return Path("/tmp")
        scratch = tree.parent / f"{tree.name}-scratch"
        scratch.mkdir(exist_ok=True)
        if self.user is not None:
            os.chown(scratch, self.user, self.user)
            scratch.chmod(0o700)
        return scratch

    def prepare(self, tree: Path) -> None:
        """Make ``tree`` readable, never writable, by the child's user (the folder above it
        must be passable: grading makes its private area 0711)."""
        if self.user is None:
            return
        for path in (tree, *tree.rglob("*")):
            path.chmod(0o755 if path.is_dir() else 0o644)

    def command(self, tree: Path, python: list[str]) -> list[str]:
        if not self.bwrap:
            return python
        return [
            self.bwrap,
            *self.bwrap_flags,
            *("--ro-bind", str(tree), str(INSIDE), "--remount-ro", "/", "--"),
            *python,
        ]

    def popen_options(self) -> dict:
        options: dict = {"start_new_session": self.name != "none"}
        if self.user is not None:
            options.update(user=self.user, group=self.user, extra_groups=[])
        return options


NONE = Confinement("none", "none (student mode: your own code on your own machine)")


def interpreter() -> str:
    """The interpreter a confined child runs: this one, every link resolved (a venv's
    ``python`` is a link; the child's ``sys.path`` is explicit, so the venv still counts)."""
    return os.path.realpath(sys.executable)


def python_paths() -> list[str]:
    """Folders of the Python environment a child needs: the interpreter's prefixes and the
    site-packages holding NumPy."""
    paths = {
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        str(Path(interpreter()).parent.parent),
        sysconfig.get_paths()["purelib"],
        sysconfig.get_paths()["platlib"],
        str(Path(np.__file__).resolve().parent.parent),
    }
    return sorted(p for p in paths if p and Path(p).is_dir())


def _bwrap_flags(bwrap: str) -> tuple[str, ...]:
    flags = ["--unshare-all", "--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY)]
    flags += ["--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    # the only writable places are memory (tmpfs): /tmp and /dev/shm, bounded where this
    # bwrap has --size; /dev is read-only, and so is the root (made so in `command`)
    try:
        done = subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=10)
        usage = done.stdout + done.stderr
    except (OSError, subprocess.SubprocessError):
        usage = ""
    sized = "--size" in usage
    if not sized:  # bubblewrap before 0.5: the tmpfs is bounded only by the machine
        flags.append("--unsized-tmp")  # a marker `confinement` reads, removed there
    if "--disable-userns" in usage:  # bubblewrap 0.8+: no nested namespace to regain rights
        flags.append("--disable-userns")
    shm, tmp = (["--size", str(SHM_BYTES)], ["--size", str(TMP_BYTES)]) if sized else ([], [])
    flags += ["--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev"]
    flags += [*shm, "--tmpfs", "/dev/shm", *tmp, "--tmpfs", "/tmp"]
    flags += ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/") / name
        if path.is_symlink():
            flags += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            flags += ["--ro-bind", str(path), str(path)]
    for path in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime"):
        flags += ["--ro-bind-try", path, path]
    for path in python_paths():
        if not path.startswith("/usr/"):
            flags += ["--ro-bind", path, path]
    return tuple(flags)


def _works(conf: Confinement) -> bool:
    """Whether a child started this way can import NumPy (a two-second probe)."""
    from .runner import child_sys_path

    probe = Path(tempfile.mkdtemp(prefix="sparrow-probe-"))
    probe.chmod(0o755)
    try:
        conf.prepare(probe)
        path = [str(p) for p in child_sys_path(conf.tree_path(probe))]
        code = f"import sys; sys.path[:0] = {path!r}; import numpy"
        command = conf.command(probe, [interpreter(), "-I", "-S", "-c", code])
        options = conf.popen_options()
        # started where the runner starts a child: a working folder the grader's user
        # keeps to itself (Gradescope's source folder) must not make the drop look impossible
        cwd = "/" if conf.bwrap else probe
        done = subprocess.run(command, cwd=cwd, capture_output=True, timeout=30, **options)
        return done.returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        shutil.rmtree(probe, ignore_errors=True)


@functools.cache
def confinement(kind: str = "auto") -> Confinement:
    """The confinement to grade with: ``auto`` (bubblewrap where it works, else the
    fallback), ``bubblewrap`` or ``fallback`` (either or an error), or ``none``."""
    if kind == "none":
        return NONE
    if kind not in ("auto", "bubblewrap", "fallback"):
        raise ValueError(f"confinement must be auto, bubblewrap, fallback or none, not {kind!r}")
    root = os.geteuid() == 0
    if kind in ("auto", "bubblewrap") and (bwrap := shutil.which("bwrap")):
        flags = _bwrap_flags(bwrap)
        tmp = "private /tmp (128 MiB)"
        if "--unsized-tmp" in flags:
            flags = tuple(f for f in flags if f != "--unsized-tmp")
            tmp = "private /tmp (unbounded: this bubblewrap is older than 0.5)"
        base = (
            "bubblewrap: uid 65534 without capabilities, own PID/network/IPC namespaces, "
            f"{tmp}, read-only system and Python folders, the composite tree read-only"
        )
        tries = []
        if root:
            tries.append(Confinement("bubblewrap", base + "; bwrap run as uid 65534", NOBODY))
        tries.append(
            Confinement(
                "bubblewrap",
                base + ("; bwrap run as root (uid 65534 only inside)" if root else ""),
            )
        )
        for conf in tries:
            conf = Confinement(conf.name, conf.summary, conf.user, bwrap, flags)
            if _works(conf):
                return conf
        if kind == "bubblewrap":
            raise RuntimeError("bwrap is installed but cannot start a sandbox on this machine")
    elif kind == "bubblewrap":
        raise RuntimeError("bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)")
    base = "fallback (no bubblewrap): resource limits, own session, subreaper, strays ended"
    if not root:
        return Confinement("fallback", base + f"; runs as the grader's uid {os.geteuid()}")
    dropped = Confinement("fallback", base + "; runs as uid 65534", NOBODY)
    if _works(dropped):
        return dropped
    return Confinement(
        "fallback",
        base + f"; runs as root: the drop to uid 65534 was impossible (uid 65534 cannot "
        f"run {interpreter()})",
    )


# -- what a fallback child can read -------------------------------------------------------


def readable(conf: Confinement, paths: list[Path]) -> list[Path]:
    """Those of ``paths`` that a child started with ``conf`` could read: none under
    bubblewrap (it sees the composite tree alone); under the fallback, those the child's
    user can open (asked of that user itself, by a short probe run as it)."""
    paths = [p for p in paths if p.exists()]
    if conf.name != "fallback" or not paths:
        return []
    if conf.user is None:  # the grader's own user: what the grader reads, the child reads
        return [p for p in paths if os.access(p, os.R_OK)]
    probe = "import os, sys; print('\\n'.join(p for p in sys.argv[1:] if os.access(p, os.R_OK)))"
    try:
        done = subprocess.run(
            [interpreter(), "-I", "-S", "-c", probe, *map(str, paths)],
            cwd="/",
            capture_output=True,
            text=True,
            timeout=30,
            **conf.popen_options(),
        )
    except (OSError, subprocess.SubprocessError):
        return paths  # cannot tell: say the worst
    seen = set(done.stdout.splitlines())
    return [p for p in paths if str(p) in seen] if done.returncode == 0 else paths


def exposure_warning(conf: Confinement, secrets: dict[str, Path]) -> str:
    """One sentence for the batch when a fallback child could read what grading keeps from
    it (``secrets``: what each is, and where), with the fix; "" when it can read none."""
    seen = readable(conf, list(secrets.values()))
    if not seen:
        return ""
    names = [f"{what} ({path})" for what, path in secrets.items() if path in seen]
    who = "your own user" if conf.user is None else f"uid {conf.user}"
    return (
        f"warning: the fallback's children run as {who}, which can read "
        f"{', '.join(names)}: a submission could run the reference or read the hidden "
        "checks and stored results. Grade where bubblewrap can start, or from a copy of the "
        "course that user cannot read (e.g. chmod -R o-rwx on it, with the grader as root)"
    )


# -- ending every process of a run ---------------------------------------------------------


def become_subreaper() -> bool:
    """Make this process adopt orphaned descendants (Linux); False where impossible."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _stat(pid: str) -> tuple[str, str, int] | None:
    """(command name, state, parent pid) of a process, from /proc; None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            head, _, tail = stat.read().rpartition(b")")
        fields = tail.split()
        return head.partition(b"(")[2].decode(errors="replace"), fields[0].decode(), int(fields[1])
    except (OSError, IndexError, ValueError):
        return None


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux /proc; [] elsewhere)."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    return [
        int(name)
        for name in names
        if name.isdigit() and (stat := _stat(name)) is not None and stat[2] == pid
    ]


def sweep(user: int) -> int:
    """Remove what ``user`` left in the machine's shared scratch folders (the fallback's
    children share /tmp, /var/tmp and /dev/shm): nothing of one submission may be found by
    the next. Returns how many entries were removed."""
    removed = 0
    for folder in (Path("/tmp"), Path("/var/tmp"), Path("/dev/shm")):
        try:
            entries = list(folder.iterdir())
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.lstat().st_uid != user:
                    continue
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    entry.unlink()
                removed += 1
            except OSError:
                continue
    return removed


def end_strays(own: str | None = None, rounds: int = 20) -> int:
    """Kill every child of this process (a subreaper's adopted orphans included) and reap
    them. Returns how many the code under test left running: a zombie (a process that has
    ended, waiting to be reaped) is not one, nor is the sandbox's own process named ``own``
    (bwrap's init, adopted when the grader stopped the bwrap it started, ends by itself).
    Call only when no child of this process should live."""
    left: set[int] = set()
    for _ in range(rounds):
        strays = children(os.getpid())
        if not strays:
            break
        for pid in strays:
            stat = _stat(str(pid))
            if stat is not None and stat[1] not in "ZX" and stat[0] != own:
                left.add(pid)
            for kill in (os.killpg, os.kill):
                try:
                    kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError, OSError):
                    pass
        time.sleep(0.02)
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
    return len(left)

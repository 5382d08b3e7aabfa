"""The GPU script (``make gpu-check``; ``python -m tools.gpu_check [--quick]``), issue 16.

One command for a machine with an NVIDIA GPU, CuPy installed (requirements-gpu.txt):

1. the machine: date, host, Python, NumPy and CuPy versions, the GPU (name, memory, compute
   capability), the CUDA driver and runtime versions, and each step a usable GPU needs
   (``support.device_bench.diagnose``: CuPy, a device, NVRTC, cuBLAS, cupyx);
2. ``pytest tests/test_gpu.py tests/test_cuda_fallback.py tests/test_conv.py
   tests/test_attention.py tests/test_device_checks.py -rs``: chapter 7 on the GPU, the
   fallback with CuPy and no visible GPU, chapter 8's convolution on the GPU (``F.conv2d``
   forward and backward against the CPU's, a LeNet-sized training step, its windows made by
   ``cupy.lib.stride_tricks.as_strided``), chapter 9's attention on the GPU
   (``F.scaled_dot_product_attention`` forward and backward and a small GPT's AdamW steps
   against the CPU's, generation with the key/value cache), and chapters 2–6's public and
   hidden checks with their tensors on the GPU (``--quick`` leaves this last file out);
3. ``python -m autograder.bench device``: CPU against GPU, matmuls and the capstone's
   training step at batch 64 and 4096 (goal: ≥ 10× the CPU at 4096), then chapter 8's row
   (a convolution layer and the CNN's step) and chapter 9's (the GPT capstone's training
   step), each where the tree's chapter is done.

Everything printed also goes to one log file, by default ``docs/gpu-runs/<date>-<gpu>.txt``
(record it in docs/maintainers.md, "The GPU"). Without a usable GPU it says why, runs what
it can (the GPU tests skip, the bench compares the CPU with the simulated device), logs to
a temporary folder unless ``--log`` says where, and exits 1. Exit 0 only when a GPU was used
and the tests and the bench succeeded. Budget: about a minute with ``--quick``, a few
minutes without; ``--timeout`` bounds each of the two runs.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TextIO

REPO = Path(__file__).resolve().parent.parent
RUNS = REPO / "docs" / "gpu-runs"
TESTS = [
    "tests/test_gpu.py",
    "tests/test_cuda_fallback.py",
    "tests/test_conv.py",  # chapter 8: conv2d, a LeNet step
    "tests/test_attention.py",  # chapter 9: SDPA, a GPT step, generation
]
CHAPTER_CHECKS = "tests/test_device_checks.py"  # chapters 2-6 on the device (not --quick)


class Tee:
    """Lines to the console and to the log, as they come."""

    def __init__(self, log: TextIO) -> None:
        self.log = log

    def __call__(self, text: str = "") -> None:
        print(text, flush=True)
        self.log.write(text + "\n")
        self.log.flush()


def machine() -> tuple[list[str], str | None]:
    """The lines that describe this machine and its GPU, and the GPU's name (None: no
    usable GPU)."""
    import numpy

    from support import device_bench

    lines = [
        f"date        {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M:%S} UTC",
        f"host        {platform.node()} ({platform.platform()}, {os.cpu_count()} CPU cores)",
        f"python      {sys.version.split()[0]}  numpy {numpy.__version__}",
    ]
    steps = device_bench.diagnose()
    usable = all(error is None for _, error in steps)  # it stops at the first failure
    name = None
    try:
        import cupy

        runtime = cupy.cuda.runtime
        lines.append(f"cupy        {cupy.__version__}")
        lines.append(
            f"CUDA        driver {_version(runtime.driverGetVersion())}, runtime "
            f"{_version(runtime.runtimeGetVersion())}"
        )
        if usable:
            for index in range(runtime.getDeviceCount()):
                props = runtime.getDeviceProperties(index)
                gpu = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
                name = name or gpu
                lines.append(
                    f"GPU {index}       {gpu}, {props['totalGlobalMem'] / 2**30:.1f} GiB, compute "
                    f"capability {props['major']}.{props['minor']}"
                )
    except Exception as exc:  # CuPy missing or broken: diagnose() says which step
        lines.append(f"cupy        {type(exc).__name__}: {exc}")
    smi = _nvidia_smi()
    if smi:
        lines.append(f"nvidia-smi  {smi}")
    lines.append("a usable GPU needs:")
    lines += [
        f"  {'ok ' if error is None else 'NO '} {step}{'' if error is None else ': ' + error}"
        for step, error in steps
    ]
    return lines, name if usable else None


def _version(number: int) -> str:
    """CUDA's 12090 as 12.9 (0: none)."""
    return f"{number // 1000}.{number % 1000 // 10}" if number else "none"


def _nvidia_smi() -> str | None:
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip().replace("\n", "; ") or None


def run(command: list[str], tee: Tee, timeout: float) -> int:
    """``command`` in the repository, its output (stdout and stderr) teed as it comes; its
    exit status (124 when it ran past ``timeout`` seconds and was stopped)."""
    tee(f"$ {' '.join(command)}")
    start = time.monotonic()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with subprocess.Popen(
        command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    ) as child:
        assert child.stdout is not None
        for line in child.stdout:
            tee(line.rstrip("\n"))
            if time.monotonic() - start > timeout:
                child.kill()
                tee(f"(stopped after {timeout:g} s)")
                child.wait()
                return 124
        status = child.wait()
    tee(f"(exit {status}, {time.monotonic() - start:.1f} s)")
    return status


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "gpu"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.gpu_check",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--quick", action="store_true", help="no chapter 2-6 checks; a short bench")
    parser.add_argument("--log", type=Path, help="the log file (default: see above)")
    parser.add_argument("--timeout", type=float, default=240, help="seconds per run (tests, bench)")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(REPO))
    started = time.monotonic()
    lines, gpu = machine()
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    if args.log:
        log_path = args.log
    elif gpu:
        log_path = RUNS / f"{today}-{slug(gpu)}.txt"
    else:
        log_path = Path(tempfile.gettempdir()) / f"sparrow-gpu-check-{today}-no-gpu.txt"
    log_path.parent.mkdir(parents=True, exist_ok=True)

    with log_path.open("w", encoding="utf-8") as log:
        tee = Tee(log)
        tee(f"Sparrow's GPU check (python -m tools.gpu_check{' --quick' * args.quick})")
        for line in lines:
            tee(line)
        if gpu is None:
            tee("NO USABLE GPU here: the GPU tests skip and the bench compares the CPU with the")
            tee("simulated device (not a GPU); this run records nothing about a GPU.")
        tee()
        files = TESTS + [CHAPTER_CHECKS] * (not args.quick)
        pytest = [sys.executable, "-m", "pytest", *files, "-rs", "-q", "-p", "no:cacheprovider"]
        tests = run([*pytest, "-k", "not the_gpu_script"], tee, args.timeout)
        tee()
        bench = [sys.executable, "-m", "autograder.bench", "device", "--impl", "solutions"]
        benched = run(bench + ["--quick"] * args.quick, tee, args.timeout)
        tee()
        verdict = "PASSED" if gpu and tests == 0 and benched == 0 else "NOT PASSED"
        why = [] if gpu else ["no usable GPU"]
        why += [f"tests exit {tests}"] * (tests != 0) + [f"bench exit {benched}"] * (benched != 0)
        tee(
            f"GPU check {verdict}{' (' + ', '.join(why) + ')' if why else ''} in "
            f"{time.monotonic() - started:.0f} s; log: {log_path}"
        )
    return 0 if verdict == "PASSED" else 1


if __name__ == "__main__":
    raise SystemExit(main())

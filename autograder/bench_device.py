"""CPU against GPU (``python -m autograder.bench device``): chapter 7's devices, timed.

Side by side, in one run, what chapter 7's notebook shows (§6 and §8), measured the same
way by the same functions (``support.device_bench``): float32 matmuls of a few sizes; one
training step of the capstone's MLP (784-128-10, ``cross_entropy``, Adam) at batch 64 and
at batch 4096, its batch already on the device; the three training loops of §6 (each batch
moved to the device, the data set on the device, and that with ``.item()`` at every step),
per step; one matmul timed when the call returns and after ``synchronize()``; and chapter
8's rows (``support.conv_device_bench``: a conv layer's forward and backward, a LeNet
training step) and chapter 9's (``support.gpt_device_bench``: a training step of the GPT
capstone's model) — on the
CPU (NumPy, every core it has) and on the device, with the speed-up (CPU seconds / device
seconds). A GPU is synchronised before the clock is read; every figure is the best of at
least ``--repeat`` timings (the worst printed beside it) after a warm-up call, and a call
too fast for one clock read is repeated within each timing (``device_bench.measure``).

The device is ``cuda`` when a GPU can be used (``cuda.is_available()``), else the simulated
device ``sim``, said so in every printout: its figures are NumPy's plus the simulated
device's overhead, not a GPU's. Goal (issue 16): on a GPU, the training step at batch 4096 ≥
10× the CPU's. ``--require-gpu`` exits 1 when there is no GPU (after running on ``sim``).

    python -m autograder.bench device [--device cuda|sim] [--sizes 256 1024 2048 4096]
                                      [--batches 64 4096] [--repeat 7] [--quick]
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time

from autograder import student
from support import conv_device_bench, device_bench, gpt_device_bench

QUICK = {"sizes": [256, 1024], "batches": [64, 4096], "repeat": device_bench.REPEAT}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m autograder.bench device",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--device", choices=("cuda", "sim"), help="default: cuda if usable")
    parser.add_argument("--sizes", type=int, nargs="+", default=list(device_bench.MATMUL_SIZES))
    parser.add_argument("--batches", type=int, nargs="+", default=list(device_bench.STEP_BATCHES))
    parser.add_argument(
        "--repeat", type=int, default=device_bench.REPEAT, help="at least this many timings"
    )
    parser.add_argument("--quick", action="store_true", help="sizes 256 1024 only")
    parser.add_argument("--require-gpu", action="store_true", help="exit 1 without a GPU")
    impl = student.default_impl()
    parser.add_argument("--impl", default=impl, choices=("solutions", "chapters"))
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.batches, args.repeat = QUICK["sizes"], QUICK["batches"], QUICK["repeat"]

    sp = importlib.import_module(f"{args.impl}.ch07_device")
    gpu = sp.cuda.is_available()
    device = args.device or ("cuda" if gpu else "sim")
    print(f"Device speed — Sparrow from {args.impl}/, {time.strftime('%Y-%m-%d %H:%M %Z')}")
    if not gpu:
        print("no usable GPU here (cuda.is_available() is False): CPU against the simulated")
        print(f"device instead — {device_bench.SIM_NOTE}.")
        if device == "cuda":
            print("error: --device cuda needs a usable GPU", file=sys.stderr)
            return 1
    elif device == "sim":
        print(f"(--device sim: {device_bench.SIM_NOTE}, although a GPU is here)")
    print(flush=True)
    comparison = device_bench.compare(device, args.sizes, args.batches, args.repeat, sp=sp)
    print(device_bench.format_comparison(comparison))
    conv = _chapter_8(args.impl)
    if conv is not None:  # the conv rows (chapter 8 on the device), once the tree has it
        print()
        rows = conv_device_bench.conv_comparison(conv, device, args.repeat)
        print(conv_device_bench.format_conv(rows, device))
    gpt = _chapter_9(args.impl)
    if gpt is not None:  # the Transformer row (chapter 9 on the device), once the tree has it
        print()
        rows = gpt_device_bench.gpt_comparison(gpt, device, args.repeat)
        print(gpt_device_bench.format_gpt(rows, device))
    return 1 if args.require_gpu and not gpu else 0


def _chapter_8(impl: str):
    """Chapter 8's package of the tree, or None (a tree without it: the rows are skipped,
    said so)."""
    try:
        return importlib.import_module(f"{impl}.ch08_conv")
    except ModuleNotFoundError:
        print("\n(no chapter 8 in this tree: no conv rows)")
        return None


def _chapter_9(impl: str):
    """Chapter 9's package of the tree, or None (a tree without it, or with a task of it or
    below it left as a stub: the row is skipped, said so)."""
    from autograder import bench_gpt

    try:
        sp = importlib.import_module(f"{impl}.ch09_attention")
    except ModuleNotFoundError:
        print("\n(no chapter 9 in this tree: no Transformer row)")
        return None
    if not bench_gpt.works(sp):
        print(f"\n({impl}/ch09_attention raises NotImplementedError: no Transformer row)")
        return None
    return sp


if __name__ == "__main__":
    raise SystemExit(main())

"""Command line: ``check`` and ``progress`` (students), ``grade`` (instructors).

    python -m autograder check 1                 # what `make chapter-1` runs
    python -m autograder check 1 --task 1.3      # one task only
    python -m autograder check 1 --impl solutions  # the reference (course repository only)
    python -m autograder check 3 --device sim    # chapter 3's checks with tensors on the
                                                 # simulated device (needs chapter 7 done)
    python -m autograder progress                # the course map (`make progress`)
    python -m autograder hint 4.2                # the next hint of task 4.2 (`make hint`)
    python -m autograder hint 4.2 --level 1      # a hint again, without moving on
    python -m autograder grade 1 submissions/    # grade a class (instructors: the course
                                                 # repository's instructors' guide)

``check`` exits 0 only when every task of the chapter passes; ``grade`` exits 0 once every
submission has its result (whatever its score or status), 2 when the batch cannot start.
"""

from __future__ import annotations

import argparse
import sys

from . import grade_command, hints, report, student
from .course import CHAPTERS, chapter
from .runner import Limits


def _limits(args: argparse.Namespace) -> Limits:
    return Limits(cpu_per_check=args.cpu_limit)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m autograder", description=__doc__.split("\n")[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="check one chapter of your work and print the report")
    check.add_argument("chapter", help="chapter number, e.g. 1")
    check.add_argument("--task", action="append", help="only this task (repeatable), e.g. 1.3")
    check.add_argument(
        "--device",
        help="run the checks with new tensors on this device: sim (the simulated device) or "
        "cuda; uses your chapter 7 (default: the CPU)",
    )
    progress = sub.add_parser("progress", help="every chapter's score at a glance")
    for p in (check, progress):
        p.add_argument(
            "--impl",
            choices=student.IMPLEMENTATIONS,
            help="which tree to check (default: $SPARROW_IMPL, else chapters)",
        )
        p.add_argument(
            "--cpu-limit",
            type=float,
            default=Limits.cpu_per_check,
            help="CPU seconds per check (default: %(default)s)",
        )
    hint = sub.add_parser("hint", help="the next hint of a task, one more each time")
    hint.add_argument("task", help="task id, e.g. 4.2")
    hint.add_argument("--level", type=int, help="show this hint (1, 2, …) without moving on")
    hint.add_argument("--reset", action="store_true", help="start the task's hints over")
    grade_command.add_parser(sub)
    args = parser.parse_args(argv)
    try:
        if args.command == "grade":
            return grade_command.run(args)
        if args.command == "hint":
            print(hints.hint(args.task, args.level, reset=args.reset))
            return 0
        if args.command == "check":
            ch = chapter(args.chapter)
            for task_id in args.task or []:
                ch.task(task_id)  # a clear error for an unknown id
            device = None if (args.device or "cpu") == "cpu" else args.device
            result = student.check(
                ch, impl=args.impl, task_ids=args.task, limits=_limits(args), device=device
            )
            started = student.tree_version(args.impl).started
            print(report.chapter_report(result, started))
            return 0 if result.passed else 1
        root = student.tree_root(args.impl)
        results = [
            student.check(ch, impl=args.impl, limits=_limits(args))
            for ch in CHAPTERS
            if ch.ready and (root / ch.package).is_dir()
        ]
        started = student.tree_version(args.impl).started
        print(report.progress_report(results, str(root.name) + "/", started))
        return 0
    except (student.SetupError, ValueError, KeyError, FileNotFoundError, RuntimeError) as exc:
        text = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        print(f"error: {text}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

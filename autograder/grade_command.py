"""``python -m autograder grade N SUBMISSIONS``: the instructor's batch command.

    python -m autograder grade 1 submissions/                 # each folder or .zip inside
    python -m autograder grade 1 submissions/ --jobs 2 --out grades/ch01
    python -m autograder grade 1 submissions/ --only ada      # regrade one, keep the rest
    python -m autograder grade 3 submissions/ --integrated    # the student's chapters 1–3
    python -m autograder grade 1 ada.zip --single             # one submission
    python -m autograder grade 1 sub/ --single --gradescope-results results.json

Every batch is graded with a secret seed unless told otherwise (``autograder/seeds.py``):
given (``--seed N``, ``--seed-file F`` or ``$SPARROW_SEED``), else the one in ``OUT/seed.txt``
(a regrade with ``--only`` reuses it), else a fresh one drawn here and kept there (mode 0600,
outside the feedback folder). ``--seed public`` grades with the public seed, with a warning:
a submission can carry what the public seed's checks expect. A seed changes every case list;
the expectations of its training runs are computed from the reference first and cached
(``--expectations DIR``, default ``OUT/expectations``; ``autograder/expectations.py``);
``--extra-checks DIR`` adds an instructor's own checks (graded like hidden ones).
``--course-version 1.0`` grades with the tasks and checks course version 1.0 had (a class
graded mid-term keeps its maximum points and its rules); the summary lists what it left out.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from . import expectations, outputs, sandbox, seeds, versions
from .checking import public_checks
from .course import chapter
from .grading import (
    CourseTrees,
    Options,
    check_seed,
    extra_checks,
    grade_all,
    hidden_checks,
    repository_course,
    unique_names,
)
from .ingest import submissions_in
from .runner import Limits


def add_parser(sub: argparse._SubParsersAction) -> None:
    grade = sub.add_parser(
        "grade",
        help="grade a folder of submissions (instructors)",
        description=__doc__.split("\n")[0],
    )
    grade.add_argument("chapter", help="chapter number, e.g. 1")
    grade.add_argument("submissions", type=Path, help="a folder of submissions (folders/zips)")
    grade.add_argument("--out", type=Path, help="output folder (default: grades/chNN)")
    grade.add_argument("--jobs", type=int, default=1, help="submissions graded at once")
    grade.add_argument(
        "--integrated", action="store_true", help="grade the student's chapters 1…N together"
    )
    grade.add_argument("--only", help="regrade this submission alone; keep the other rows")
    grade.add_argument("--single", action="store_true", help="SUBMISSIONS is itself one submission")
    grade.add_argument("--gradescope-results", type=Path, help="also write results.json here")
    grade.add_argument(
        "--seed",
        help="the seed: an integer, or 'public' (default: $SPARROW_SEED, else OUT/seed.txt, "
        "else a fresh secret one kept there)",
    )
    grade.add_argument("--seed-file", type=Path, help="a file holding the secret seed")
    grade.add_argument("--extra-checks", type=Path, help="a folder of the instructor's checks")
    grade.add_argument(
        "--expectations",
        type=Path,
        help="where a secret seed's expectations are cached (default: OUT/expectations)",
    )
    grade.add_argument(
        "--course",
        type=Path,
        help="a folder with reference/ and stubs/ (default: this repository)",
    )
    grade.add_argument(
        "--confinement",
        choices=("auto", "bubblewrap", "fallback"),
        default="auto",
        help="how children are confined (default: bubblewrap where it works)",
    )
    grade.add_argument(
        "--course-version",
        help="grade with the tasks and checks of this course version only, e.g. 1.0 "
        f"(default: all of them, version {versions.COURSE_VERSION})",
    )
    grade.add_argument("--cpu-limit", type=float, default=Limits.cpu_per_check)
    grade.add_argument("--memory-mb", type=int, default=Limits.memory_mb)


def _seed(args: argparse.Namespace, out: Path) -> int:
    """The batch's seed (``autograder/seeds.py``): given, else kept in ``OUT/seed.txt``, else
    drawn and kept there; what it is and why is said on stderr."""
    seed, said = seeds.batch_seed(seeds.given(args.seed, args.seed_file), out / "seed.txt")
    for line in said:
        print(line, file=sys.stderr)
    return check_seed(seed)


def _sources(args: argparse.Namespace) -> tuple[list[Path], list[str]]:
    """The submissions to grade and their names (as in the whole batch, for --only)."""
    if args.single:
        if args.only:
            raise ValueError("--only picks a submission from a folder of them; not with --single")
        if not args.submissions.exists():
            raise FileNotFoundError(f"there is no {args.submissions}")
        return [args.submissions], unique_names([args.submissions])
    sources = submissions_in(args.submissions)
    if not sources:
        raise ValueError(f"{args.submissions} holds no submission (folders or .zip files)")
    names = unique_names(sources)
    if args.only:
        if args.only not in names:
            raise ValueError(
                f"no submission named {args.only!r} in {args.submissions} "
                f"(names: {', '.join(names[:10])}{', …' if len(names) > 10 else ''})"
            )
        i = names.index(args.only)
        return [sources[i]], [names[i]]
    return sources, names


def _confinement(kind: str) -> sandbox.Confinement:
    """The confinement, resolved before any submission is graded. ``auto`` never settles
    for a child that keeps the grader's own user: that must be asked for by name."""
    conf = sandbox.confinement(kind)
    if kind == "auto" and conf.name == "fallback" and conf.user is None:
        raise RuntimeError(
            "no bubblewrap sandbox could start here, and the fallback would run submissions "
            f"as your own user ({conf.summary}); install bubblewrap (apt-get install "
            "bubblewrap), or pass --confinement fallback to accept that"
        )
    return conf


def _with_expectations(options: Options, cache: Path) -> Options:
    """``options`` with the expectations its seed needs beyond the stored ones, computed
    here (the grader's process) from the reference, or found in ``cache``."""
    ch = chapter(options.chapter)
    modules = public_checks(ch) + hidden_checks(ch) + extra_checks(ch, options.extra_checks)
    prepared = expectations.prepare(ch, options.seed, modules, options.course.reference, cache)
    if prepared is not None:
        print(f"expectations for this seed: {prepared}")
    return replace(options, expectations=prepared)


def _kept_from_children(options: Options, seed_file: Path | None) -> dict[str, Path]:
    """What grading keeps from the code under test, by what it is: the reference, the hidden
    checks, the stored expectations (public seed's results), the instructor's checks, the
    file holding the secret seed."""
    grader = Path(__file__).resolve().parent
    kept = {"the reference": options.course.reference, "the hidden checks": grader / "hidden"}
    stored = sorted(grader.glob("*/*/expectations.json"))
    if stored:
        kept["the stored expectations"] = stored[0]
    if options.extra_checks is not None:
        kept["your own checks"] = options.extra_checks
    if seed_file is not None:
        kept["the secret seed"] = seed_file
    return kept


def run(args: argparse.Namespace) -> int:
    ch = chapter(args.chapter)
    if not ch.ready:
        raise ValueError(f"chapter {ch.number} ({ch.title}) is not written yet")
    if args.extra_checks is not None and not args.extra_checks.is_dir():
        raise FileNotFoundError(f"there is no folder {args.extra_checks}")
    if args.gradescope_results and not args.single:
        raise ValueError("--gradescope-results needs --single (one submission)")
    pin = versions.check_pin(args.course_version) if args.course_version else None
    sources, names = _sources(args)
    conf = _confinement(args.confinement)
    out = args.out or Path("grades") / f"ch{ch.number:02d}"
    private = Path(tempfile.mkdtemp(prefix="sparrow-course-"))
    try:
        if args.course:
            course = CourseTrees(args.course / "reference", args.course / "stubs")
        else:
            course = repository_course(private)
        options = Options(
            chapter=ch.number,
            course=course,
            integrated=args.integrated,
            seed=_seed(args, out),
            limits=Limits(cpu_per_check=args.cpu_limit, memory_mb=args.memory_mb),
            confinement=args.confinement,
            extra_checks=args.extra_checks.resolve() if args.extra_checks else None,
            version=pin,
        )
        options = _with_expectations(options, args.expectations or out / "expectations")
        seed_file = args.seed_file or out / "seed.txt"
        kept = _kept_from_children(options, seed_file)
        warnings = [w for w in [sandbox.exposure_warning(conf, kept)] if w]
        for warning in warnings:
            print(warning, file=sys.stderr)

        def progress(i: int, g) -> None:
            print(
                f"  [{i + 1}/{len(sources)}] {g.name:<30} {g.points:g}/{g.max_points}  {g.status}",
                flush=True,
            )

        print(
            f"Grading chapter {ch.number} — {len(sources)} submission(s), {args.jobs} job(s), "
            f"course version {options.course_version}"
        )
        graded = grade_all(sources, options, args.jobs, names, progress)
        ch = options.graded_chapter()  # the task table of the version graded
        rows = outputs.write_batch(
            out, graded, ch, options, args.jobs, merge=bool(args.only), warnings=warnings
        )
        if args.gradescope_results:
            payload = outputs.results_json(graded[0], options)
            outputs.write_atomic(args.gradescope_results, outputs.json.dumps(payload, indent=2))
    finally:
        shutil.rmtree(private, ignore_errors=True)
    print()
    print(outputs.summary_text(rows, ch, options, args.jobs, conf.summary, warnings))
    print(f"wrote {out}/grades.csv, summary.txt, feedback/ and gradescope/")
    sys.stdout.flush()
    return 0

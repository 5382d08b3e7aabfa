"""What a batch writes: a CSV row per submission, a feedback file each, a Gradescope
``results.json`` each, and a summary table. Every file records the check-suite version, the
seed (a secret one only by fingerprint) and the limits. Files are written whole or not at
all (a temporary file renamed into place), so an interrupted run leaves no half file.

    <out>/grades.csv                 one row per submission: points per task, total, status
    <out>/summary.txt                distribution, most-failed tasks, how the batch ran
    <out>/feedback/<name>.txt        what passed, what failed, the hint
    <out>/gradescope/<name>.json     Gradescope's results.json for that submission
"""

from __future__ import annotations

import csv
import io
import json
import os
import statistics
import tempfile
from collections.abc import Sequence
from pathlib import Path

from .course import Chapter
from .grading import REVIEW, Graded, Options, seed_text, suite_version, version_notes
from .status import Status


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace", newline="") as out:
            out.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def results_json(graded: Graded, options: Options) -> dict:
    """Gradescope's format: score, tests (name, score, max_score, status, output,
    visibility), and the run's facts in ``output``."""
    facts = (
        f"Check suite {suite_version(options.extra_checks)}, seed: {seed_text(options.seed)}, "
        f"{options.mode} grading, course version {options.course_version}.\n"
        f"Limits: {options.limits.describe_confined()}.\n"
        f"Confinement: {graded.confinement}."
    )
    if graded.status == Status.NOT_GRADED:
        facts = f"Not graded: {graded.reason}\n\n{facts}"
    elif graded.reason:
        facts = f"About your submission: {graded.reason}\n\n{facts}"
    if graded.review:
        facts = f"{REVIEW}: the grader saw your code {graded.review}.\n\n{facts}"
    return {
        "score": graded.points,
        "max_score": graded.max_points,
        "output": facts,
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": [
            {
                "name": f"Task {t.id} — {t.title}",
                "number": t.id,
                "score": t.points,
                "max_score": t.max_points,
                "status": "passed" if t.points == t.max_points else "failed",
                "output": t.output,
                "visibility": "visible",
            }
            for t in graded.tasks
        ],
    }


RUN_COLUMNS = ["check suite", "seed", "cpu per check", "confinement", "course version"]


def csv_columns(ch: Chapter) -> list[str]:
    tasks = [f"task {t.id}" for t in ch.tasks]
    return ["submission", *tasks, "total", "max", "status", "reason", "review", *RUN_COLUMNS]


def csv_row(graded: Graded, options: Options) -> dict[str, str]:
    """One submission's row, with how it was graded (the same for a whole batch, unless a
    regrade used other settings)."""
    row = {"submission": graded.name}
    row.update({f"task {t.id}": f"{t.points:g}" for t in graded.tasks})
    row.update(
        total=f"{graded.points:g}",
        max=str(graded.max_points),
        status=graded.status,
        reason=graded.reason,
        review=graded.review,
    )
    row.update(
        zip(
            RUN_COLUMNS,
            [
                suite_version(options.extra_checks),
                seed_text(options.seed, instructor=True),
                f"{options.limits.cpu_per_check:g} s",
                graded.confinement.split(":")[0].split(" (")[0],
                options.course_version,
            ],
        )
    )
    return row


def read_rows(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        return []
    with open(path, encoding="utf-8", newline="") as file:
        return [row for row in csv.DictReader(file) if row.get("submission")]


def csv_text(rows: Sequence[dict[str, str]], columns: list[str]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(sorted(rows, key=lambda r: r["submission"]))
    return buffer.getvalue()


def summary_text(
    rows: Sequence[dict[str, str]],
    ch: Chapter,
    options: Options,
    jobs: int,
    confinement: str,
    warnings: Sequence[str] = (),
) -> str:
    """The table an instructor reads first: how many, how well, what failed most (and the
    batch's ``warnings`` under its facts)."""
    totals = [float(r["total"]) for r in rows]
    top = ch.points or 1
    lines = [
        f"Sparrow grades — chapter {ch.number} ({ch.title}), {len(rows)} submissions",
        f"mode: {options.mode} · check suite {suite_version(options.extra_checks)} · "
        f"seed: {seed_text(options.seed, instructor=True)} · jobs: {jobs}",
        f"limits: {options.limits.describe_confined()}",
        f"confinement: {confinement}",
        *(f"  {warning}" for warning in warnings),
        f"course version: {options.course_version}",
        *(f"  {note}" for note in version_notes(options)),
        "",
    ]
    if totals:
        lines.append(
            f"points: mean {statistics.mean(totals):.1f}, median {statistics.median(totals):g}, "
            f"min {min(totals):g}, max {max(totals):g} (of {ch.points})"
        )
    lines += ["", "distribution:"]
    bins = [0] * 11
    for total in totals:
        bins[min(10, int(10 * total / top))] += 1
    for i in range(10, -1, -1):
        low = i * 10
        label = "100%" if i == 10 else f"{low:>2}–{low + 9}%"
        lines.append(f"  {label:>7}  {'#' * bins[i]:<20} {bins[i]}")
    lines += ["", "tasks (most failed first):"]
    failed = []
    for t in ch.tasks:
        key = f"task {t.id}"
        misses = sum(1 for r in rows if r.get(key) not in (None, "") and float(r[key]) < t.points)
        failed.append((misses, t))
    for misses, t in sorted(failed, key=lambda x: (-x[0], x[1].id)):
        lines.append(f"  {t.id:<5} {t.title[:50]:<50} not full marks: {misses} of {len(rows)}")
    statuses: dict[str, int] = {}
    for r in rows:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    lines += ["", "status: " + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items()))]
    flagged = [r for r in rows if r.get("review")]
    if flagged:
        head = f"flagged for review ({len(flagged)}): read their code before the grade stands"
        lines += ["", head]
        lines += [f"  {r['submission']}: {r['review']}" for r in flagged]
    return "\n".join(lines) + "\n"


def write_submission(out: Path, graded: Graded, options: Options) -> None:
    write_atomic(out / "feedback" / f"{graded.name}.txt", graded.feedback)
    payload = json.dumps(results_json(graded, options), indent=2, ensure_ascii=False)
    write_atomic(out / "gradescope" / f"{graded.name}.json", payload + "\n")


def write_batch(
    out: Path,
    graded: Sequence[Graded],
    ch: Chapter,
    options: Options,
    jobs: int,
    merge: bool,
    warnings: Sequence[str] = (),
) -> list[dict[str, str]]:
    """Write every output; with ``merge``, keep the other rows of an existing CSV (regrading
    one submission). Returns the CSV's rows."""
    for g in graded:
        write_submission(out, g, options)
    rows = read_rows(out / "grades.csv") if merge else []
    names = {g.name for g in graded}
    rows = [r for r in rows if r["submission"] not in names] + [csv_row(g, options) for g in graded]
    write_atomic(out / "grades.csv", csv_text(rows, csv_columns(ch)))
    confinement = graded[0].confinement if graded else ""
    summary = summary_text(rows, ch, options, jobs, confinement, warnings)
    write_atomic(out / "summary.txt", summary)
    return rows

"""Instructor mode: grade a batch of untrusted submissions, one chapter at a time.

For each submission: ingest it (``ingest.py``), build its composite tree, run the public,
hidden and instructor's checks in confined children (``sandbox.py``), and turn the verdicts
into plain data (``Graded``) that ``outputs.py`` writes as a CSV row, a feedback file and a
Gradescope ``results.json``. Submissions are graded in worker processes (``--jobs``); each
worker is a subreaper and ends every process a submission left behind before it takes the
next one. Scores depend only on the submission, the seed and the limits.

The composite tree (ARCHITECTURE.md): isolated grading (the default) takes the reference
for chapters below N, the submission's chapter N, and stubs above N; ``integrated`` takes
the submission's chapters 1…N. In a chapter taken from a submission, only the files that
hold tasks (those whose stub raises ``NotImplementedError("Task …")``) and new files come
from the submission; the given files are the course's own, so a changed given file can
neither break nor help a grade (the feedback says which were replaced).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import shutil
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path

from . import expectations, report, sandbox, versions
from .checking import PUBLIC_SEED, ChapterResult, check_chapter, public_checks
from .course import CHAPTERS, Chapter, chapter
from .frames import STUB_RAISE
from .ingest import IngestLimits, Rejected, ingest_safely, printable, submission_name
from .runner import Limits
from .status import Status

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
EXTRA = "sparrow_extra_checks"  # the package an instructor's own checks are imported as


@dataclass(frozen=True)
class CourseTrees:
    """The trusted trees a composite is built from (``course.py`` describes the chapters
    and tasks): ``reference`` holds the chapters below the one graded (the course
    repository's reference implementation), ``stubs`` a pristine generated ``chapters/``."""

    reference: Path
    stubs: Path


@dataclass(frozen=True)
class Options:
    chapter: int
    course: CourseTrees
    integrated: bool = False
    seed: int = PUBLIC_SEED
    limits: Limits = Limits()
    confinement: str = "auto"
    extra_checks: Path | None = None
    ingest_limits: IngestLimits = field(default_factory=IngestLimits)
    # a secret seed's expectations of training runs (``expectations.prepare``), or None
    expectations: Path | None = None
    # the course version pinned (``--course-version``): only its tasks and checks count;
    # None: every task and check of this course (``versions.COURSE_VERSION``)
    version: str | None = None

    @property
    def mode(self) -> str:
        return "integrated (your chapters 1…N)" if self.integrated else "isolated"

    @property
    def course_version(self) -> str:
        """The course version graded, as reports write it: "1.0" or "1.0 (pinned)"."""
        if self.version is None:
            return versions.COURSE_VERSION
        return f"{versions.normal(self.version)} (pinned)"

    def graded_chapter(self) -> Chapter:
        """The chapter graded, with the task table of the version graded."""
        return versions.chapter_at(chapter(self.chapter), self.version)


@dataclass
class TaskGrade:
    id: str
    title: str
    points: float
    max_points: int
    status: Status
    output: str  # the feedback for this task: what failed, the hint, or "passed"


@dataclass
class Graded:
    """One submission's grade, as plain data (it crosses from a worker process)."""

    name: str
    status: Status  # GRADED, NOT_GRADED or IMPORT_ERROR
    reason: str = ""
    tasks: list[TaskGrade] = field(default_factory=list)
    feedback: str = ""
    confinement: str = ""
    review: str = ""  # what the grader saw the code do that an instructor should look at

    @property
    def points(self) -> float:
        return round(sum(t.points for t in self.tasks), 2)

    @property
    def max_points(self) -> int:
        return sum(t.max_points for t in self.tasks)


# -- the check suite -----------------------------------------------------------------------


def hidden_checks(ch: Chapter) -> list[str]:
    module = f"autograder.hidden.{ch.package}"  # only where the course repository's are
    try:
        return [module] if importlib.util.find_spec(module) else []
    except ModuleNotFoundError:  # a student release has no hidden checks
        return []


def extra_checks(ch: Chapter, folder: Path | None) -> list[str]:
    """An instructor's own checks for ``ch``: ``<folder>/<package>/__init__.py`` defining
    ``CHECKS`` (programs in ``<folder>/<package>/programs.py``), imported as
    ``sparrow_extra_checks.<package>``; graded like hidden checks."""
    if folder is None or not (folder / ch.package / "__init__.py").is_file():
        return []
    if EXTRA not in sys.modules:
        spec = importlib.machinery.ModuleSpec(EXTRA, None, is_package=True)
        package = importlib.util.module_from_spec(spec)
        package.__path__ = [str(folder.resolve())]
        sys.modules[EXTRA] = package
    return [f"{EXTRA}.{ch.package}"]


def suite_version(extra: Path | None = None) -> str:
    """A fingerprint of everything that decides a grade: task tables, checks (public,
    hidden, the instructor's), the harness and the verdict code."""
    digest = hashlib.sha256()
    folders = [HERE / "tasks", HERE / "checks", HERE / "hidden", HERE / "harness"]
    files = [HERE / "verdict.py", HERE / "checking.py"]
    for folder in [*folders, *([extra] if extra else [])]:
        files += sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)
    for path in files:
        if path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def version_notes(options: Options) -> list[str]:
    """For the instructor: with a pin, the chapter's tasks and checks newer than it, which
    were left out; without one, those newer than the first version, which were applied."""
    ch = chapter(options.chapter)
    modules = public_checks(ch) + hidden_checks(ch) + extra_checks(ch, options.extra_checks)
    checks = versions.checks_of(modules)
    if options.version is not None:
        left = versions.left_out(ch, checks, options.version)
        return [f"left out, newer than v{options.version}: {', '.join(left)}"] if left else []
    base = versions.BASE_VERSION
    applied = versions.left_out(ch, checks, base)
    if not applied:
        return []
    return [
        f"applied, newer than v{base}: {', '.join(applied)} (--course-version pins a version "
        "and leaves out what is newer)"
    ]


def seed_text(seed: int, *, instructor: bool = False) -> str:
    """The seed as a report prints it: the public one by value; a secret one never (a
    fingerprint of a short seed could be searched), but for the instructor by fingerprint,
    to tell two runs apart."""
    if seed == PUBLIC_SEED:
        return f"public ({seed})"
    if not instructor:
        return "the instructor's secret seed"
    return f"secret (fingerprint {hashlib.sha256(str(seed).encode()).hexdigest()[:8]})"


def check_seed(seed: int) -> int:
    """``seed`` if NumPy can take it, else a clear error."""
    if seed < 0:
        raise ValueError(f"a seed must be a non-negative integer, not {seed}")
    return seed


# -- composite trees -----------------------------------------------------------------------


def task_files(stub_package: Path) -> set[str]:
    """The files of a stub package that hold tasks (relative paths)."""
    return {
        p.relative_to(stub_package).as_posix()
        for p in stub_package.rglob("*.py")
        if STUB_RAISE.search(p.read_text(encoding="utf-8"))
    }


def _student_package(ch: Chapter, course: CourseTrees, folder: Path, dest: Path) -> list[str]:
    """``dest`` = the stub package with the submission's task files and new files over it;
    returns what the feedback should say about the files that were not taken."""
    stubs = course.stubs / ch.package
    shutil.copytree(stubs, dest, ignore=shutil.ignore_patterns("*.ipynb", "__pycache__"))
    tasks, notes, replaced, shadowing = task_files(stubs), [], [], []
    for path in sorted(folder.rglob("*.py")):
        rel = path.relative_to(folder).as_posix()
        new = not (stubs / rel).exists()
        if new and _shadows(stubs, rel):
            shadowing.append(printable(rel))  # a package in place of a given module
        elif rel in tasks or new:
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        elif not _same_code(path.read_bytes(), (stubs / rel).read_bytes()):
            replaced.append(printable(rel))
    missing = sorted(t for t in tasks if not (folder / t).is_file())
    if replaced:
        notes.append(
            f"chapter {ch.number}: given files that differ from the course's copy were graded "
            f"as the course's own: {', '.join(replaced)}"
        )
    if shadowing:
        notes.append(
            f"chapter {ch.number}: left out files that would take the place of given ones: "
            f"{', '.join(shadowing)}"
        )
    if missing:
        notes.append(
            f"chapter {ch.number}: files missing from your submission (graded as stubs): "
            f"{', '.join(missing)}"
        )
    return notes


def _shadows(stubs: Path, rel: str) -> bool:
    """Whether the new file ``rel`` sits in a folder that would be imported in place of a
    given module: ``nn/__init__.py`` beside a given ``nn.py``, and at any depth,
    ``nn/module/__init__.py`` beside a given ``nn/module.py`` (a package wins the import)."""
    folders = Path(rel).parts[:-1]
    return any(
        stubs.joinpath(*folders[:i], f"{folders[i]}.py").is_file() for i in range(len(folders))
    )


def _same_code(a: bytes, b: bytes) -> bool:
    """Whether two versions of a given file differ at most in whitespace at line ends
    (a Windows checkout's CRLF, an editor's trimming): no reason to tell a student."""

    def lines(data: bytes) -> list[bytes]:
        return [line.rstrip() for line in data.rstrip().splitlines()]

    return a == b or lines(a) == lines(b)


def composite(
    options: Options, packages: dict[str, Path], work: Path
) -> tuple[dict[str, Path], list[str]]:
    """The packages of the tree to grade with, and notes for the feedback."""
    number, course, notes = options.chapter, options.course, []
    tree: dict[str, Path] = {}
    for ch in CHAPTERS:
        if ch.number > number or not ch.ready:
            if (course.stubs / ch.package).is_dir():
                tree[ch.package] = course.stubs / ch.package
        elif ch.number < number and not options.integrated:
            tree[ch.package] = course.reference / ch.package
        elif ch.package in packages:
            notes += _student_package(ch, course, packages[ch.package], work / ch.package)
            tree[ch.package] = work / ch.package
        else:
            tree[ch.package] = course.stubs / ch.package
            if ch.number < number:
                notes.append(f"chapter {ch.number} is missing: graded as its stubs")
    return tree, notes


# -- one submission ------------------------------------------------------------------------

REVIEW = "Flagged for your instructor's review"


def _header(name: str, options: Options, confinement: str) -> list[str]:
    ch = chapter(options.chapter)
    return [
        f"Sparrow grade — {name} — chapter {ch.number} ({ch.title})",
        f"mode: {options.mode} · course version {options.course_version} · "
        f"check suite {suite_version(options.extra_checks)} · seed: {seed_text(options.seed)}",
        f"limits: {options.limits.describe_confined()}",
        f"confinement: {confinement}",
        "",
    ]


def _task_output(t) -> str:
    if t.passed:
        return "passed"
    if t.status == Status.NOT_STARTED:
        return f"not started — start at {t.task.section} of the notebook"
    return "\n".join(line.strip() for line in report.task_details(t)) or t.status


def _not_graded(name: str, ch: Chapter, reason: str, options: Options, conf: str) -> Graded:
    tasks = [TaskGrade(t.id, t.title, 0.0, t.points, Status.NOT_GRADED, reason) for t in ch.tasks]
    feedback = "\n".join([*_header(name, options, conf), f"Not graded: {reason}", ""])
    return Graded(name, Status.NOT_GRADED, reason, tasks, feedback, conf)


def grade_submission(source: Path, options: Options, work: Path, name: str = "") -> Graded:
    """Grade one submission (a folder or zip) with ``work`` as its private area."""
    ch = options.graded_chapter()
    name = name or submission_name(source)
    conf = sandbox.confinement(options.confinement)
    try:
        submission = ingest_safely(source, work / "copy", options.ingest_limits)
    except Rejected as exc:
        return _not_graded(name, ch, f"the submission was refused: {exc}", options, conf.summary)
    wanted = [c for c in CHAPTERS if c.number <= ch.number] if options.integrated else [ch]
    if not any(c.package in submission.packages for c in wanted):
        where = f"chapters/{ch.package}/"
        reason = f"no {where} folder of .py files was found in the submission"
        if submission.notes:  # e.g. the chapter folder was a symbolic link, skipped
            reason += f" ({'; '.join(submission.notes[:3])})"
        return _not_graded(name, ch, reason, options, conf.summary)
    packages, notes = composite(options, submission.packages, work / "tree")
    hidden = hidden_checks(ch) + extra_checks(ch, options.extra_checks)
    prepared = options.expectations  # the grade command prepares them once for a batch
    if prepared is None and (options.seed != PUBLIC_SEED or options.extra_checks):
        modules = public_checks(ch) + hidden
        prepared = expectations.prepare(
            ch, options.seed, modules, options.course.reference, work / "expectations"
        )
    expectations.use(prepared)
    result = check_chapter(
        ch,
        packages,
        check_modules=public_checks(ch),
        hidden_modules=hidden,
        seed=options.seed,
        limits=options.limits,
        source=f"{name}: chapters/{ch.package}",
        confinement=conf,
        version=options.version,
    )
    return _graded(name, result, [*submission.notes, *notes], options, conf.summary)


def _graded(
    name: str, result: ChapterResult, notes: list[str], options: Options, conf: str
) -> Graded:
    tasks = [
        TaskGrade(t.task.id, t.task.title, t.points, t.task.points, t.status, _task_output(t))
        for t in result.tasks
    ]
    broken = any(t.status == Status.IMPORT_ERROR for t in result.tasks)
    lines = _header(name, options, conf)
    if notes:
        lines += ["About your submission:", *(f"  - {n}" for n in notes), ""]
    review = "; ".join(result.seen)
    if review:
        lines += [f"{REVIEW}: the grader saw your code {review}.", ""]
    lines += [report.chapter_report(result), ""]
    status = Status.IMPORT_ERROR if broken else Status.GRADED
    return Graded(name, status, "; ".join(notes), tasks, "\n".join(lines), conf, review)


# -- a batch -------------------------------------------------------------------------------


def _resolved(options: Options) -> sandbox.Confinement | None:
    """The confinement ``options`` ask for, or None where none could start (cached)."""
    try:
        return sandbox.confinement(options.confinement)
    except RuntimeError:
        return None


def _summary(options: Options) -> str:
    try:
        return sandbox.confinement(options.confinement).summary
    except RuntimeError as exc:
        return f"none could start: {exc}"


def _clean_up(options: Options) -> int:
    """After a submission: end every process it left (adopted by this subreaper; the
    sandbox's own, bwrap's, are ended but not counted) and, under the fallback's own user,
    remove what it left in /tmp. How many of its processes were ended."""
    conf = _resolved(options)
    own = Path(conf.bwrap).name if conf and conf.bwrap else None
    ended = sandbox.end_strays(own=own)
    if conf and conf.name == "fallback" and conf.user is not None:
        sandbox.sweep(conf.user)
    return ended


def _worker_start() -> None:
    sandbox.become_subreaper()


def _grade_in_worker(source: Path, name: str, options: Options, private: Path) -> Graded:
    """A worker's job: grade one submission in a private folder of its own, then end
    every process the submission left behind (adopted by this subreaper) and its files."""
    work = Path(tempfile.mkdtemp(prefix="sub-", dir=private))
    try:
        graded = grade_submission(source, options, work, name)
    except Exception as exc:  # a grader bug costs this submission's grade, not the batch
        ch = options.graded_chapter()
        reason = f"the grader failed ({type(exc).__name__}: {exc}); please report it"
        graded = _not_graded(name, ch, reason, options, _summary(options))
    finally:
        ended = _clean_up(options)
        shutil.rmtree(work, ignore_errors=True)
    if ended:  # detached processes of the fallback (a sandbox's end with it, unseen)
        graded.feedback += f"\nThe grader ended {ended} process(es) your code left running.\n"
    return graded


def unique_names(sources: list[Path]) -> list[str]:
    """Each submission's name; a repeated one (``ada/`` and ``ada.zip``) gets ``-2``, ``-3``."""
    names: list[str] = []
    for source in sources:
        name, n = submission_name(source), 1
        while (name if n == 1 else f"{name}-{n}") in names:
            n += 1
        names.append(name if n == 1 else f"{name}-{n}")
    return names


def grade_all(
    sources: list[Path],
    options: Options,
    jobs: int = 1,
    names: list[str] | None = None,
    progress: Callable[[int, Graded], None] | None = None,
) -> list[Graded]:
    """Grade ``sources`` in ``jobs`` worker processes; results in the order of ``sources``."""
    names = names or unique_names(sources)
    private = Path(tempfile.mkdtemp(prefix="sparrow-grade-"))
    private.chmod(0o711)
    try:
        context = get_context("spawn")
        with ProcessPoolExecutor(
            max_workers=max(1, jobs), mp_context=context, initializer=_worker_start
        ) as pool:
            futures = [
                pool.submit(_grade_in_worker, s, n, options, private)
                for s, n in zip(sources, names)
            ]
            results = []
            for i, future in enumerate(futures):
                try:
                    results.append(future.result())
                except BrokenProcessPool:
                    reason = "the grading worker process died; regrade it with --only"
                    ch = options.graded_chapter()
                    results.append(_not_graded(names[i], ch, reason, options, _summary(options)))
                if progress:
                    progress(i, results[-1])
            return results
    finally:
        shutil.rmtree(private, ignore_errors=True)


def repository_course(private: Path) -> CourseTrees:
    """The repository's course: its reference and stubs generated from it into ``private``."""
    solutions = REPO / "solutions"
    if not solutions.is_dir():  # a student release: neither the reference nor the generator
        raise FileNotFoundError(
            f"there is no {solutions}: grading needs the reference (the repository, or the "
            "course folder of a Gradescope autograder zip)"
        )
    from autograder.stubgen import generate

    stubs = private / "stubs"
    for rel, data in generate(solutions).items():
        path = stubs / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return CourseTrees(solutions, stubs)

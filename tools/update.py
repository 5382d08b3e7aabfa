"""Course updates that keep your work: ``make update`` (``python -m tools.update``).

New given code reaches ``chapters/`` while every task you wrote stays as you wrote it:

- in the repository, after the reference changed (``git pull``): the new stubs come from
  the generator (there ``make update`` regenerates the stubs);
- in a student release: ``make update FROM=path/to/new-release`` takes a newer release's
  chapters and everything else it ships (the autograder, support code, data, tools):
  a file the old release shipped and you edited is backed up before it is replaced, and a
  file no release shipped (``datasets/mine.csv``) is yours and left alone.

Each ``.py`` file of ``chapters/`` is merged by ``tools.merge``: the new file, with each task
function you wrote (it differs from the stub you started from) put back byte for byte. What
changed is said per file; what could not be merged is said too, and every file of yours that
changes is first copied under ``.sparrow/backups/<time>/``. A file that does not parse is
left as it is (fix it and run the update again). A changed notebook replaces yours: your
copy, with its outputs and any notes you wrote in it, is in the same backup. Files you added
are left alone.

The stub each file started from is recorded in ``tools/pristine-stubs.json`` in a release
(which ``make reset`` also uses) and in ``.sparrow/pristine-stubs.json`` in the repository.
The course version the tree is at is ``chapters/.sparrow-version`` (``autograder.versions``):
an update to a newer version lists the tasks new since the tree's version ("new in v1.1")
and records the new version (keeping, where the tree holds your work, the one you started
at: ``make chapter-N`` keeps scoring you there and shows the new tasks as new).
"""

from __future__ import annotations

import argparse
import codecs
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from autograder import versions
from tools.merge import MergeError, merge, orphan_problem, place, reindent
from tools.merge import function_text as stub_part
from tools.merge import task_functions as merge_tasks
from tools.reset import PRISTINE, atomic_write, backup

REPO = Path(__file__).resolve().parent.parent
MANIFEST = ".manifest.json"  # chapters/.manifest.json: the hash of every generated file
VERSION = versions.VERSION_FILE  # chapters/.sparrow-version: the course version of the tree
RECORDS = {MANIFEST, VERSION}  # chapters/' own records: not generated, never the student's
LOCAL_BASE = Path(".sparrow") / "pristine-stubs.json"  # the repository's record
STAMP = ".sparrow-release"  # what marks a folder as a student release
# In a release: {path: SHA-256} of every file it ships outside chapters/, so the next update
# knows which files are the course's (replaced, removed) and which the student's (left).
SHIPPED = Path("tools") / "shipped-files.json"
# A release's own folders, replaced by a newer release's (files it no longer has removed).
RELEASE_OWNED = ("autograder", "support", "datasets", "tools")
NOT_COPIED = {"chapters", ".venv", ".sparrow", "submissions", "__pycache__", ".git"}


NOT_MERGED = "NOT MERGED — read this:"  # the report's line before what could not be merged
CHECK = "KEPT, BUT CHECK — read this:"  # before what was kept but needs the student's eye


class UpdateError(Exception):
    """Nothing was changed; the message says why."""


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def tree_files(root: Path) -> list[str]:
    """The files of a chapters/ tree, relative to it (no caches, no compiled files)."""
    if not root.is_dir():
        return []
    skip = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache"}
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file()
        and not skip.intersection(p.relative_to(root).parts)
        and p.suffix not in (".pyc", ".pyo")
    )


def read_json(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def base_path(repo: Path) -> Path:
    """Where this tree records the stub each chapter file started from."""
    return repo / (LOCAL_BASE if (repo / "solutions").is_dir() else PRISTINE)


def hashes_text(hashes: dict[str, str]) -> bytes:
    """The text of a ``{path: SHA-256}`` record (the manifest, the shipped files)."""
    return (json.dumps(dict(sorted(hashes.items())), indent=1) + "\n").encode()


def manifest_text(generated: dict[str, bytes]) -> bytes:
    """The text of ``chapters/.manifest.json`` for these generated files."""
    return hashes_text({rel: sha(data) for rel, data in generated.items()})


def exit_code(report: list[str]) -> int:
    """1 when an update's report holds something the student must read, else 0."""
    return 1 if NOT_MERGED in report or CHECK in report else 0


@dataclass
class Plan:
    """Everything an update will do, computed before anything is written."""

    writes: dict[str, bytes] = field(default_factory=dict)  # rel → new content
    removes: list[str] = field(default_factory=list)
    backups: list[str] = field(default_factory=list)  # the student's files to copy first
    base: dict[str, str] = field(default_factory=dict)  # rel → the stub it now starts from
    held: dict[str, str | None] = field(default_factory=dict)  # manifest entries kept as were
    report: list[str] = field(default_factory=list)
    kept: int = 0  # files of yours whose stub did not change
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # kept, but the student must look
    release_backups: list[str] = field(default_factory=list)  # outside chapters/, repo-relative
    worked: bool = False  # the tree holds the student's work (a file the generator did not write)
    fresh: bool = False  # chapters/ held nothing: a first generation, no update


def plan(chapters: Path, generated: dict[str, bytes], *, force: bool = False) -> Plan:
    """What bringing ``chapters/`` to ``generated`` does (nothing is written here).

    ``force`` starts every edited ``.py`` file whose stub changed over from its new stub
    (backed up) instead of merging it."""
    repo = chapters.parent
    last = read_json(chapters / MANIFEST)  # what the generator wrote last time
    base = read_json(base_path(repo))
    existing = set(tree_files(chapters)) - RECORDS
    out = Plan(fresh=not existing)
    orphans: list[tuple[str, str, set[str], list[str]]] = []  # (file, function, tasks, text)
    for rel in sorted(generated.keys() | existing):
        data, path = generated.get(rel), chapters / rel
        mine = path.read_bytes() if rel in existing else None
        unedited = mine is not None and last.get(rel) == sha(mine)
        out.worked = out.worked or (mine is not None and not unedited)
        old = base.get(rel)
        if old is None and rel in last and last[rel] == sha(data or b""):
            old = data.decode()  # the manifest vouches the stub has not changed
        elif old is None and rel in last and mine is not None and not unedited:
            old = _from_git(repo, f"chapters/{rel}", last[rel])
        if data is None:  # not (or no longer) part of the course
            if rel not in last:
                continue  # a file you added
            if unedited:
                out.removes.append(rel)
                out.report.append(f"removed chapters/{rel} (no longer part of the course)")
            else:
                out.report.append(f"kept chapters/{rel}: no longer part of the course, kept as is")
            continue
        if rel.endswith(".py"):
            out.base[rel] = data.decode()
        if mine == data:
            continue
        if mine is None or unedited or (old is not None and mine == old.encode()):
            out.writes[rel] = data
            out.report.append(f"{'updated' if mine else 'wrote'} chapters/{rel}")
            continue
        if old is not None and old.encode() == data:
            out.kept += 1  # your work, in a file whose stub did not change
            continue
        out.backups.append(rel)
        if rel not in last and rel not in base:  # a file of yours; the course now has one too
            out.writes[rel] = data
            out.problems.append(
                f"chapters/{rel}: the new version of the course has a file of this name, which "
                "now takes its place; yours (a file you added) is in the backup"
            )
            continue
        if not rel.endswith(".py") or force:
            out.writes[rel] = data
            why = (
                "your copy, with its outputs and any notes, is in the backup"
                if not rel.endswith(".py")
                else "FORCE=1"
            )
            out.report.append(f"replaced chapters/{rel} by its new version ({why})")
            continue
        try:
            merged = merge(old, data.decode(), mine.decode("utf-8-sig"))
        except (MergeError, UnicodeDecodeError) as exc:
            out.backups.remove(rel)  # merge from the same start next time:
            out.held[rel] = last.get(rel)
            if old is not None:
                out.base[rel] = old
            else:
                out.base.pop(rel)
            out.problems.append(
                f"chapters/{rel}: NOT updated, {exc}; it is left as it is: fix it and run "
                "the update again"
            )
            continue
        out.writes[rel] = _bom(mine) + merged.text.encode()
        orphans += [(rel, name, ids, lines) for name, (ids, lines) in merged.orphans.items()]
        what = ["given code updated"]
        if merged.kept:
            what.append(f"your tasks kept: {', '.join(merged.kept)}")
        if merged.refreshed:
            what.append(f"given lines inside them updated: {', '.join(merged.refreshed)}")
        if merged.updated:
            what.append(f"untouched, now the new stub: {', '.join(merged.updated)}")
        if merged.added:
            what.append(f"new: {', '.join(merged.added)}")
        out.report.append(f"merged chapters/{rel}: " + "; ".join(what))
        out.problems += [f"chapters/{rel}: {problem}" for problem in merged.problems]
        out.notes += [f"chapters/{rel}: {note}" for note in merged.notes]
    if orphans:
        tasks = {
            t: merge_tasks(d.decode()) for t, d in sorted(generated.items()) if t.endswith(".py")
        }
        for rel, name, ids, lines in orphans:
            _rehome(chapters, generated, tasks, out, rel, name, ids, lines)
    return out


def _from_git(repo: Path, rel: str, digest: str) -> str | None:
    """The version of ``rel`` in the repository's git history whose SHA-256 is ``digest``
    (what the manifest says the generator wrote), for a tree with no record of its own."""
    if not (repo / ".git").exists():
        return None
    try:
        log = subprocess.run(
            ["git", "-C", str(repo), "log", "--format=%H", "-n", "200", "--", rel],
            capture_output=True,
            text=True,
            timeout=30,
        )
        for commit in log.stdout.split():
            show = subprocess.run(
                ["git", "-C", str(repo), "show", f"{commit}:{rel}"],
                capture_output=True,
                timeout=30,
            )
            if show.returncode == 0 and sha(show.stdout) == digest:
                return show.stdout.decode("utf-8")
    except (OSError, subprocess.SubprocessError, UnicodeDecodeError):
        return None
    return None


def _rehome(
    chapters: Path,
    generated: dict[str, bytes],
    stubs: dict[str, dict[str, set[str]]],
    out: Plan,
    rel: str,
    name: str,
    ids: set[str],
    lines: list[str],
) -> None:
    """Put a written task function that left its place in ``rel`` where the new stubs hold
    its task: a function of the same qualified name raising one of its tasks, in any file;
    else the one function (its own file included) raising one of its tasks under the same
    bare name (``A.f`` → ``B.f``, a class renamed or the method moved), reindented when its
    nesting depth differs. Either must still be a stub there: a task the student wrote
    there too keeps theirs. ``stubs`` is each generated file's task functions."""
    fits = [(t, name) for t, tasks in stubs.items() if ids & tasks.get(name, set()) and t != rel]
    if not any(name in tasks for tasks in stubs.values()):
        bare = name.rsplit(".", 1)[-1]
        fits = [
            (t, n)
            for t, tasks in stubs.items()
            for n, task in tasks.items()
            if n.rsplit(".", 1)[-1] == bare and ids & task
        ]
        fits = fits if len(fits) == 1 else []
    for target, now in fits:
        stub = generated[target].decode()
        current = out.writes.get(target)
        if current is None:
            path = chapters / target
            current = path.read_bytes() if path.exists() else generated[target]
        text = current.decode("utf-8-sig", errors="replace")
        at = stub_part(text, now)
        if at != stub_part(stub, now):
            continue  # the student wrote it there too: theirs stays
        lines = reindent(lines, at.split("\n")[0]) if at else lines
        placed = place(text, now, lines)
        if placed is None:
            continue
        theirs, given = _def_line(lines), _def_line((at or "").split("\n"))
        if now != name and theirs != given:
            out.notes.append(
                f"chapters/{target}: your {name}, now {now}, keeps your signature `{theirs}`; "
                f"the new stub's is `{given}`: make yours match it"
            )
        if (chapters / target).exists() and target not in out.backups:
            out.backups.append(target)
        out.writes[target] = _bom(current) + placed.encode()
        moved = f"your {name}" + (f" to {now}" if now != name else "")
        out.report.append(
            f"moved {moved} (task {', '.join(sorted(ids))}) from chapters/{rel} to "
            f"chapters/{target}, where the task now is"
            if target != rel
            else f"moved {moved} (task {', '.join(sorted(ids))}) in chapters/{rel}, where "
            "the task now is"
        )
        return
    where = [
        f"{n} in chapters/{t}"
        for t, tasks in stubs.items()
        for n, task in tasks.items()
        if ids & task
    ]
    now = (", ".join(where[:3]) + (" …" if len(where) > 3 else "")) if where else None
    out.problems.append(f"chapters/{rel}: {orphan_problem(name, ids, now)}")


def _def_line(lines: list[str]) -> str:
    """A function's ``def`` line (its first, for a signature over several lines)."""
    return next((s for line in lines if (s := line.strip()).startswith(("def ", "async def "))), "")


def _bom(data: bytes) -> bytes:
    """The UTF-8 byte-order mark that opens ``data``, if one does: kept where it is written."""
    return codecs.BOM_UTF8 if data.startswith(codecs.BOM_UTF8) else b""


# A task of the new course: (id, title, notebook section, the version it arrived in).
CourseTask = tuple[str, str, str, str]


def course_tasks() -> list[CourseTask]:
    """The tasks of this course (its own autograder's task tables)."""
    from autograder.course import CHAPTERS

    return [(t.id, t.title, t.section, t.since) for ch in CHAPTERS for t in ch.tasks]


TASKS_OF = """import json, pathlib, sys
sys.path.insert(0, sys.argv[1])
import autograder
if pathlib.Path(autograder.__file__).resolve().parent.parent != pathlib.Path(sys.argv[1]):
    sys.exit("not this release's autograder")
from autograder.course import CHAPTERS
print(json.dumps([[t.id, t.title, t.section, getattr(t, "since", "1.0")]
                  for ch in CHAPTERS for t in ch.tasks]))
"""


def release_tasks(release: Path) -> list[CourseTask]:
    """The tasks of a release (its own task tables, read by its own Python code in a
    process of its own: this one has the old release's autograder); none where it fails."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SPARROW_IMPL")}
    try:
        out = subprocess.run(
            [sys.executable, "-c", TASKS_OF, str(release.resolve())],
            cwd=release,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        return [tuple(map(str, task)) for task in json.loads(out.stdout)]
    except (OSError, subprocess.SubprocessError, ValueError, TypeError):
        return []


def version_record(
    old: versions.TreeVersion, new: str, worked: bool, tasks: Sequence[CourseTask]
) -> tuple[versions.TreeVersion, list[str]]:
    """The record of a tree recorded as ``old`` after its update to course version ``new``,
    and the report's lines: the change of version and each task new since ``old``'s. The
    version the student started at is kept where the tree holds their work (``worked``);
    an untouched tree starts over at ``new``."""
    keep = worked and versions.at_most(old.started, new)
    record = old.updated(new, keep_start=keep)
    if versions.parse(new) == versions.parse(old.version):
        return record, []
    lines = [f"course version {old.version} → {record.version} (chapters/{VERSION})"]
    for task_id, title, section, since in tasks:
        if versions.newer(since, old.version) and versions.at_most(since, new):
            lines.append(
                f"  new in v{versions.normal(since)}: task {task_id} — {title} ({section} of "
                "the notebook)"
            )
    return record, lines


def apply(
    repo: Path,
    todo: Plan,
    hashes: dict[str, str],
    version: str | None = None,
    tasks: Sequence[CourseTask] = (),
) -> list[str]:
    """Carry out ``todo`` in ``repo/chapters``: the backups first, then each file through a
    temporary file and a rename (none is ever half-written), the records last. ``version``
    is the course version of the new files (None: the tree's stays), ``tasks`` the new
    course's tasks, for the report's "new in v1.1"."""
    chapters = repo / "chapters"
    report, where = [], None
    saved = [chapters / rel for rel in todo.backups] + [repo / r for r in todo.release_backups]
    if saved:
        where = backup(saved, repo).relative_to(repo)
        report.append(f"your version of {len(saved)} file(s) is kept in {where}")
    for rel, data in todo.writes.items():
        atomic_write(chapters / rel, data)
    for rel in todo.removes:
        (chapters / rel).unlink()
    hashes = {**hashes, **todo.held}
    hashes = {rel: h for rel, h in hashes.items() if h is not None}
    atomic_write(chapters / MANIFEST, hashes_text(hashes))
    record = json.dumps(todo.base, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    atomic_write(base_path(repo), record.encode())
    report = todo.report + report
    if todo.kept:
        report.append(f"kept your work in {todo.kept} file" + ("s" if todo.kept != 1 else ""))
    if version is not None:
        old = versions.remembered(repo, versions.read(chapters))
        now, lines = version_record(old, version, todo.worked, tasks)
        versions.remember(repo, now.started)
        lines = [] if todo.fresh else lines  # a first generation: nothing is new to anyone
        path = chapters / VERSION
        if not path.is_file() or path.read_bytes() != now.text().encode():
            atomic_write(path, now.text().encode())
        report += lines
    if todo.problems:
        report += [NOT_MERGED] + [f"  {p}" for p in todo.problems]
    if todo.notes:
        report += [CHECK] + [f"  {n}" for n in todo.notes]
    if (todo.problems or todo.notes) and where is not None:
        report.append(f"  the backup of your files from before this update: {where}/")
    return report or ["chapters/ is up to date"]


def update(
    repo: Path,
    generated: dict[str, bytes],
    *,
    force: bool = False,
    version: str | None = None,
) -> list[str]:
    """Bring ``repo/chapters`` to ``generated`` (the stubs of course version ``version``,
    default this course's), keeping the student's work (see above)."""
    hashes = {rel: sha(data) for rel, data in generated.items()}
    todo = plan(repo / "chapters", generated, force=force)
    return apply(repo, todo, hashes, version or versions.COURSE_VERSION, course_tasks())


# -- a student release: take a newer release ---------------------------------------------


def release_chapters(release: Path) -> dict[str, bytes]:
    """The chapters of an unedited release folder, checked against its manifest."""
    if not (release / STAMP).is_file():
        raise UpdateError(f"{release} is not a Sparrow student release (no {STAMP} in it)")
    chapters = release / "chapters"
    manifest = read_json(chapters / MANIFEST)
    files = set(tree_files(chapters)) - RECORDS
    generated = {rel: (chapters / rel).read_bytes() for rel in sorted(files)}
    edited = [rel for rel, data in generated.items() if manifest.get(rel) != sha(data)]
    if not manifest or edited or manifest.keys() - files:
        raise UpdateError(
            f"{release} is not a fresh release (its chapters/ differs from its manifest: "
            f"{', '.join(edited[:3]) or 'files missing'}); download it again"
        )
    return generated


def _release_files(release: Path) -> set[str]:
    out = set()
    for path in sorted(release.rglob("*")):
        rel = path.relative_to(release)
        if path.is_file() and not NOT_COPIED.intersection(rel.parts):
            out.add(rel.as_posix())
    return out - {SHIPPED.as_posix()}


def shipped_record(release: Path) -> bytes:
    """The text of ``tools/shipped-files.json`` for a release folder: the hash of each file
    it ships outside ``chapters/`` (its stub record aside, which updates rewrite)."""
    files = sorted(_release_files(release) - {PRISTINE.as_posix()})
    return hashes_text({rel: sha((release / rel).read_bytes()) for rel in files})


def _yours(repo: Path, release: Path, shipped: set[str]) -> tuple[list[str], list[str], list[str]]:
    """What taking ``release``'s files does to the student's: the files to back up first
    (a shipped file they edited, or one with no record to tell), the files to remove (the
    old release shipped them, the new one does not) and the files left (theirs, or with no
    record of the old release, perhaps theirs)."""
    record = read_json(repo / SHIPPED)  # what the student's release shipped
    save, remove, left = [], [], []
    for rel in sorted(shipped - {PRISTINE.as_posix()}):
        here = repo / rel
        if here.is_file() and here.read_bytes() != (release / rel).read_bytes():
            if record.get(rel) != sha(here.read_bytes()):
                save.append(rel)
    for folder in RELEASE_OWNED:
        for path in sorted((repo / folder).rglob("*")):
            rel = path.relative_to(repo).as_posix()
            if not path.is_file() or "__pycache__" in rel.split("/") or rel in shipped:
                continue
            if rel == SHIPPED.as_posix():
                continue  # rewritten for the new release
            if rel in record:
                remove.append(rel)
                if record[rel] != sha(path.read_bytes()):
                    save.append(rel)  # a file the course dropped, edited by the student
            else:
                left.append(rel)
    return save, remove, left


def update_from_release(repo: Path, release: Path) -> list[str]:
    """Take a newer release's chapters (merged) and everything else it ships (replaced)."""
    release = release.resolve()
    if release == repo.resolve():
        raise UpdateError("FROM is this folder itself: give the new release's folder")
    if (repo / "solutions").is_dir():
        raise UpdateError("this is the repository: `make update` (no FROM) regenerates it")
    generated = release_chapters(release)
    todo = plan(repo / "chapters", generated)
    shipped = _release_files(release)
    todo.release_backups, remove, left = _yours(repo, release, shipped)
    had_record = (repo / SHIPPED).is_file()
    version = versions.read(release / "chapters").version
    report = apply(
        repo, todo, read_json(release / "chapters" / MANIFEST), version, release_tasks(release)
    )
    for rel in sorted(shipped):
        if rel != PRISTINE.as_posix():  # the record apply() wrote already
            atomic_write(repo / rel, (release / rel).read_bytes())
    for rel in remove:
        (repo / rel).unlink()
    atomic_write(repo / SHIPPED, shipped_record(release))
    report.append(
        f"took the rest of the release from {release} ({len(shipped)} files"
        + (f"; {len(remove)} it no longer ships removed)" if remove else ")")
    )
    if todo.release_backups:
        why = "you had edited them" if had_record else "no record says whether you edited them"
        report.append(
            f"backed up, then replaced or removed ({why}; the copies are in the backup "
            f"above): {_some(todo.release_backups)}"
        )
    if left:
        whose = "your own files" if had_record else "files the new release does not ship"
        report.append(f"left {whose} as they are: {_some(left)}")
    return report


def _some(paths: list[str], most: int = 6) -> str:
    more = f" and {len(paths) - most} more" if len(paths) > most else ""
    return ", ".join(paths[:most]) + more


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.update", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--from", dest="source", type=Path, help="a newer student release's folder (releases)"
    )
    parser.add_argument(
        "--into",
        type=Path,
        default=REPO,
        help="the folder to update (default: this one); from a new release, `--from . --into "
        "../my-folder` updates a folder whose release predates make update",
    )
    args = parser.parse_args(argv)
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    try:
        if args.source is not None:
            report = update_from_release(args.into.resolve(), args.source)
        elif (REPO / "solutions").is_dir():
            from autograder.stubgen import StubError
            from tools import stubs

            try:
                report = stubs.write(REPO)
            except StubError as exc:
                raise UpdateError(str(exc)) from None
        else:
            raise UpdateError(
                "a student release updates from a newer release: "
                "make update FROM=path/to/new-release"
            )
    except (UpdateError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print("\n".join(report))
    return exit_code(report)


if __name__ == "__main__":
    sys.exit(main())

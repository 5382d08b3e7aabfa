"""Read ahead: the release's notebooks carry the reference's outputs (issue 32).

A student who opens a chapter before their code works should still see its figures and
printed values. ``fill`` runs each release notebook once against the reference (the
repository's ``chapters/`` under ``SPARROW_IMPL=solutions``) and carries what the cells
show into the notebook, each carried cell's outputs opened by a marker, "*What yours
should look like*", so nobody mistakes them for their own results. Execution counts are
cleared: the student has run nothing yet.

Carried: a code cell's stdout, its displays and its results, in the mime types a reader
sees (``CARRIED_MIMES``). Never carried, because they would be a lie or a leak:

- the outputs of a cell that calls ``check(...)`` or ``hint(...)`` (the reference's
  "passed" report, and its hints, are not the student's);
- every output of a cell that raised (a traceback can show the reference's source);
- stderr (warnings, progress bars);
- any output whose text holds a line of task code (``task_lines``), however it got there.

Instructor tooling: ``tools/release.py`` calls ``fill`` while it builds the release; the
module itself does not ship. ``python -m tools.read_ahead --out DIR`` writes the filled
notebooks for an instructor to look at.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import copy
import json
import keyword
import os
import re
import subprocess
import sys
from pathlib import Path

from autograder.notebook_gen import notebook_bytes

REPO = Path(__file__).resolve().parent.parent
MARK = "*What yours should look like* — the reference's output; run the cell to see your own."
CARRIED_MIMES = ("text/plain", "text/html", "text/markdown", "image/png", "image/svg+xml")
TEXT_MIMES = ("text/plain", "text/html", "text/markdown", "image/svg+xml")  # searched for code
REPORTING = {"check", "hint"}  # the calls whose output is the grader's, not the notebook's
PARALLEL = 2  # notebooks at once; each kernel runs on one BLAS thread
# The task-region markers, as autograder/stubgen.py names them (BEGIN, END). Written out
# again so that this module does not import the generator's internals.
BEGIN = re.compile(r"^[ \t]*### BEGIN SOLUTION\b")
END = re.compile(r"^[ \t]*### END SOLUTION\b")
MIN_LINE = 12  # shorter task lines ("return out", "x = x + 1") are ordinary text
MIN_NAME = 4  # characters of non-keyword names a task line must hold to count


class ReadAheadError(Exception):
    """The notebooks cannot be filled; the message says why."""


def distinctive(line: str) -> bool:
    """Whether a stripped task line is specific enough that finding it in an output means
    the reference's code is being shown: at least ``MIN_LINE`` characters, and names (not
    keywords) of at least ``MIN_NAME`` characters in all. ``return None, None`` or
    ``)`` would match ordinary text and tell nothing; ``out = a.data * b.data`` is code."""
    names = [w for w in re.findall(r"[A-Za-z_]\w*", line) if not keyword.iskeyword(w)]
    return len(line) >= MIN_LINE and sum(map(len, names)) >= MIN_NAME


SHIPPED_CODE = ("support",)  # folders the release ships as they are: their lines are no leak


def task_lines(repo: Path) -> set[str]:
    """The distinctive lines (stripped) of every task region in ``solutions/**/*.py``, less
    the lines the release shows anyway: the same line outside every region (given code:
    ``raise TypeError(``) or in the code of ``SHIPPED_CODE`` (``loss.backward()``). A
    notebook that prints given code with ``inspect.getsource`` then keeps its output."""
    inside: set[str] = set()
    outside: set[str] = set()
    for path in sorted((repo / "solutions").rglob("*.py")):
        region = False
        for line in path.read_text(encoding="utf-8").splitlines():
            if BEGIN.match(line):
                region = True
            elif END.match(line):
                region = False
            else:
                (inside if region else outside).add(line.strip())
    for folder in SHIPPED_CODE:
        for path in sorted((repo / folder).rglob("*.py")):
            outside.update(line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return {line for line in inside - outside if distinctive(line)}


def _python(line: str) -> str:
    """A cell's line as Python: a line magic's argument (``%time check(1)`` → ``check(1)``)
    where that parses, else nothing (``%%time``, ``!pip install x``)."""
    stripped = line.strip()
    if not stripped.startswith(("%", "!")):
        return line
    rest = re.sub(r"^%\w+", "", stripped).strip() if stripped.startswith("%") else ""
    try:
        ast.parse(rest)
    except SyntaxError:
        return ""
    return rest


def calls_reporting(source: str) -> bool:
    """Whether a cell's code calls ``check`` or ``hint`` (by name or as an attribute).
    IPython magics and shell lines are read as ``_python`` says; a cell that still does not
    parse counts as reporting, since nothing can be said about what it calls."""
    text = "\n".join(_python(line) for line in source.splitlines())
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return True
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name in REPORTING:
                return True
    return False


def _text(value: str | list[str]) -> str:
    return value if isinstance(value, str) else "".join(value)


def _lines(value: str | list[str]) -> list[str]:
    """A multi-line text as nbformat writes it: a list of lines, ends kept."""
    return _text(value).splitlines(keepends=True)


def holds_task_code(text: str, lines: set[str]) -> bool:
    """Whether ``text`` contains one of the task ``lines`` anywhere."""
    return any(line in text for line in lines)


def carry_output(output: dict, lines: set[str]) -> dict | None:
    """The output as the release carries it, or None where it must not be carried."""
    kind = output.get("output_type")
    if kind == "stream":
        text = _text(output.get("text", ""))
        if output.get("name") != "stdout" or not text or holds_task_code(text, lines):
            return None
        return {"name": "stdout", "output_type": "stream", "text": _lines(text)}
    if kind not in ("display_data", "execute_result"):
        return None
    data = {
        mime: (value if mime == "image/png" else _lines(value))
        for mime, value in output.get("data", {}).items()
        if mime in CARRIED_MIMES
    }
    searched = "\n".join(_text(data[m]) for m in TEXT_MIMES if m in data)
    if not data or holds_task_code(searched, lines):
        return None
    metadata = {
        key: value
        for key, value in output.get("metadata", {}).items()
        if key in data or "/" not in key  # drop what belongs to a mime not carried
    }
    carried = {"data": data, "metadata": metadata, "output_type": kind}
    if kind == "execute_result":
        carried["execution_count"] = None
    return carried


def marker() -> dict:
    """The first output of every cell that carries the reference's outputs."""
    return {
        "data": {"text/markdown": [MARK], "text/plain": [MARK]},
        "metadata": {},
        "output_type": "display_data",
    }


def carry_cell(
    source: str, outputs: list[dict], lines: set[str], notes: list[str] | None = None
) -> list[dict]:
    """The outputs the release carries for one code cell (marker first), or []; what is
    dropped for a reason an instructor should see (a cell that raised, task code shown)
    is added to ``notes``."""
    notes = [] if notes is None else notes
    if calls_reporting(source):
        return []
    errors = [o for o in outputs if o.get("output_type") == "error"]
    if errors:
        notes.append(f"raised {errors[0].get('ename')}: {errors[0].get('evalue')}")
        return []
    carried = []
    for output in outputs:
        kept = carry_output(output, lines)
        if kept is not None:
            carried.append(kept)
        elif carry_output(output, set()) is not None:  # dropped for its task code alone
            notes.append("an output holding task code")
    return [marker(), *carried] if carried else []


def carry(original: dict, executed: dict, lines: set[str], notes: list[str] | None = None) -> dict:
    """``original`` (the notebook's JSON) with the outputs of ``executed`` (the same
    notebook run) carried cell by cell; everything else as it was, minus the
    ``execution`` timings a run records in cell metadata. Drops worth a look go to
    ``notes`` as "cell N: why"."""
    nb = copy.deepcopy(original)
    if len(nb["cells"]) != len(executed["cells"]):
        raise ReadAheadError("the executed notebook does not have the notebook's cells")
    for number, (cell, ran) in enumerate(zip(nb["cells"], executed["cells"], strict=True)):
        cell.get("metadata", {}).pop("execution", None)
        if cell["cell_type"] == "code":
            why: list[str] = []
            source, outputs = _text(cell["source"]), ran.get("outputs", [])
            cell["outputs"] = carry_cell(source, outputs, lines, why)
            cell["execution_count"] = None
            if notes is not None:
                notes.extend(f"cell {number}: {reason}" for reason in why)
    return nb


def _environment(repo: Path) -> dict[str, str]:
    """The kernel's environment: the repository's ``chapters/`` loading the reference, on
    one BLAS thread (chapter 9 trains four times slower on two busy ones)."""
    env = {k: v for k, v in os.environ.items() if k != "SPARROW_IMPL"}
    threads = {k: "1" for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    pythonpath = os.pathsep.join(p for p in (str(repo), env.get("PYTHONPATH", "")) if p)
    return {**env, **threads, "SPARROW_IMPL": "solutions", "PYTHONPATH": pythonpath}


async def _run(name: str, data: bytes, repo: Path, timeout: float, gate) -> dict:
    """One notebook executed against the reference, as a plain JSON dict."""
    import nbformat
    from nbclient import NotebookClient

    folder = repo / "chapters" / Path(name).parent
    if not folder.is_dir():
        raise ReadAheadError(f"{folder} is missing: the notebook runs in the repository's tree")
    nb = nbformat.reads(data.decode("utf-8"), as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        allow_errors=True,
        record_timing=False,
        store_widget_state=False,
        coalesce_streams=True,
        resources={"metadata": {"path": str(folder)}},
    )
    async with gate:
        try:  # stderr: the kernel's own log (a TCP warning), never a cell's output
            await client.async_execute(env=_environment(repo), stderr=subprocess.DEVNULL)
        except Exception as exc:  # a timeout, a dead kernel: nbclient's, whatever their type
            raise ReadAheadError(
                f"{name} did not run to its end against the reference: {type(exc).__name__}: {exc}"
            ) from exc
    return json.loads(json.dumps(nb))


async def _run_all(notebooks: dict[str, bytes], repo: Path, timeout: float) -> dict:
    gate = asyncio.Semaphore(PARALLEL)
    names = list(notebooks)
    runs = [_run(n, notebooks[n], repo, timeout, gate) for n in names]
    return dict(zip(names, await asyncio.gather(*runs), strict=True))


def execute(notebooks: dict[str, bytes], *, repo: Path = REPO, timeout: float = 600) -> dict:
    """Each notebook run against the reference (at most ``PARALLEL`` at once), as JSON."""
    return asyncio.run(_run_all(notebooks, repo, timeout))


def _serialise(nb: dict) -> bytes:
    return notebook_bytes(nb)


def fill(
    notebooks: dict[str, bytes],
    *,
    repo: Path = REPO,
    timeout: float = 600,
    notes: list[str] | None = None,
) -> dict[str, bytes]:
    """The release ``notebooks`` (path under chapters/ → JSON bytes) with the reference's
    outputs carried, as the module docstring says; same keys, same serialisation. What was
    left out for a reason worth a look goes to ``notes`` ("ch01_value/…ipynb: cell 12: …")."""
    lines = task_lines(repo)
    if not lines:
        raise ReadAheadError(f"{repo / 'solutions'} holds no task code to guard against")
    executed = execute(notebooks, repo=repo, timeout=timeout)
    filled = {}
    for name, data in notebooks.items():
        why: list[str] = []
        nb = carry(json.loads(data.decode("utf-8")), executed[name], lines, why)
        filled[name] = _serialise(nb)
        if notes is not None:
            notes.extend(f"{name}: {reason}" for reason in why)
    return filled


def release_notebooks(chapters: list[int] | None = None) -> dict[str, bytes]:
    """The release's notebooks as the generator writes them (all, or these chapters')."""
    from autograder import stubgen

    generated = stubgen.generate(REPO / "solutions", target="release")
    wanted = {f"ch{n:02d}_" for n in chapters or []}
    return {
        rel: data
        for rel, data in generated.items()
        if rel.endswith(".ipynb") and (not wanted or rel[:5] in wanted)
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.read_ahead", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--chapter", type=int, action="append", help="only this chapter")
    parser.add_argument("--out", type=Path, required=True, help="where to write the notebooks")
    args = parser.parse_args(argv)
    notebooks = release_notebooks(args.chapter)
    if not notebooks:
        print("error: no such chapter", file=sys.stderr)
        return 2
    notes: list[str] = []
    for rel, data in fill(notebooks, notes=notes).items():
        path = args.out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        cells = json.loads(data.decode("utf-8"))["cells"]
        carried = sum(1 for c in cells if c["cell_type"] == "code" and c["outputs"])
        print(f"{path}: outputs carried in {carried} cells")
    for note in notes:
        print(f"  left out: {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Riemann's test suite as a measure of the API: ``python -m tools.riemann_suite`` (``make
riemann``).

Riemann (``xiangfei2017/Riemann``) is a NumPy framework with PyTorch's API and a test file
per area, each comparing against PyTorch. This command gets a snapshot of it (a clone into
``.riemann/clone``, or ``--repo PATH`` for one already on disk), writes the ``tests/``
folder of the pinned commit into ``.riemann/<commit>/`` (ignored by git: nothing of Riemann
enters the repository), runs each file with pytest against the last chapter through the
name-mapping package ``tools/riemann_compat`` (``--impl``: ``solutions``, the default, or
``chapters``), and writes the report by area, ``docs/riemann.md``: the commit, the command,
per file the counts, and every excluded or failing test with its reason (``scope.py``
decides the scope). PyTorch must be installed (``requirements-oracles.txt``): Riemann's
tests compare against it. Not part of CI: it needs the network (or ``--repo``).
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from pathlib import Path

from autograder.course import CHAPTERS

from . import scope

ROOT = Path(__file__).resolve().parents[2]
URL = "https://github.com/xiangfei2017/Riemann.git"
COMMIT = "fab2dad6187633921d5490039c512e84b85fe69a"  # "update docs", the suite's last commit
WORK = ROOT / ".riemann"
REPORT = ROOT / "docs" / "riemann.md"
INI = "[pytest]\n# written by tools.riemann_suite: none of the repository's settings apply\n"


def _git(*args: str, repo: Path | None = None, output: bool = False) -> bytes:
    command = ["git", *(["-C", str(repo)] if repo else []), *args]
    done = subprocess.run(command, check=True, capture_output=output)
    return done.stdout if output else b""


def snapshot(repo: Path | None, commit: str) -> tuple[Path, str]:
    """A Riemann repository that has ``commit`` (cloned on first use), and the full hash."""
    if repo is None:
        repo = WORK / "clone"
        if not (repo / "HEAD").exists() and not (repo / ".git").exists():
            WORK.mkdir(exist_ok=True)
            print(f"cloning {URL} into {repo} …", flush=True)
            _git("clone", "--quiet", "--bare", URL, str(repo))
    try:
        full = _git("rev-parse", "--verify", f"{commit}^{{commit}}", repo=repo, output=True)
    except subprocess.CalledProcessError:
        _git("fetch", "--quiet", "origin", repo=repo)
        full = _git("rev-parse", "--verify", f"{commit}^{{commit}}", repo=repo, output=True)
    return repo, full.decode().strip()


def checkout_tests(repo: Path, commit: str) -> Path:
    """The commit's ``tests/`` folder, in ``.riemann/<commit>/tests`` (written once, made
    to parse on this Python: ``parseable``; the lines it rewrote are in ``rewritten.txt``)."""
    folder = WORK / commit[:12]
    if not (folder / "tests" / "rewritten.txt").is_file():
        shutil.rmtree(folder / "tests", ignore_errors=True)  # an unfinished copy
        folder.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix="tests-", dir=folder))
        archive = _git("archive", "--format=tar", commit, "tests", repo=repo, output=True)
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(staging, filter="data")
        rewritten = parseable(staging / "tests")
        (staging / "tests" / "rewritten.txt").write_text("".join(f"{r}\n" for r in rewritten))
        try:
            os.rename(staging / "tests", folder / "tests")  # another run may have won
        except OSError:
            pass
        shutil.rmtree(staging, ignore_errors=True)
    (folder / "pytest.ini").write_text(INI)
    return folder


def parseable(tests: Path) -> list[str]:
    """Make every test file parse on this Python, and say which lines changed.

    A few of Riemann's lines use Python 3.12's f-strings (PEP 701: the outer quote inside a
    nested f-string, ``f"{f'{s["passed"]}'}"``). On an older Python such a line's outer
    f-string is written triple-quoted in the checked-out copy (the same string between three
    double quotes); nothing else is ever changed, and a file that still does not parse fails
    its tests."""
    changed: list[str] = []
    for path in sorted(tests.glob("test_*.py")):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        edited = False
        for _ in range(20):
            try:
                compile("".join(lines), str(path), "exec")
                break
            except SyntaxError as error:
                number = error.lineno or 0
                if not 0 < number <= len(lines):
                    break
                line = lines[number - 1]
                fixed = re.sub(r'^(.*?)\bf"(.*[^"])"(\)\s*)$', r'\1f"""\2"""\3', line)
                if fixed == line:
                    break
                lines[number - 1] = fixed
                edited = True
                changed.append(f"{path.name}:{number}")
        if edited:
            path.write_text("".join(lines), encoding="utf-8")
    return changed


def static_tests(path: Path) -> list[str]:
    """The tests pytest would collect from a file, read without importing it."""
    names: list[str] = []
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError):
        return names
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            names.append(node.name)
        elif isinstance(node, ast.ClassDef):
            bases = {ast.unparse(base).split(".")[-1] for base in node.bases}
            if node.name.startswith("Test") or "TestCase" in bases:
                for member in node.body:
                    if isinstance(member, ast.FunctionDef) and member.name.startswith("test"):
                        names.append(member.name)
    return names


def run_file(folder: Path, logs: Path, path: Path, impl: str, timeout: int) -> list[dict[str, str]]:
    """Run one test file in its own pytest process; every test's outcome and reason."""
    file = path.name
    results = logs / f"{path.stem}.json"
    results.unlink(missing_ok=True)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tools" / "riemann_compat")]),
        "SPARROW_IMPL": impl,
        "RIEMANN_SUITE_RESULTS": str(results),
        "RIEMANN_SUITE_TIMEOUT": str(timeout),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-c",
        str(folder / "pytest.ini"),
        "--rootdir",
        str(folder),
        "-p",
        "tools.riemann_suite.plugin",
        "-p",
        "no:cacheprovider",
        "-q",
        "--tb=short",
        str(path),
    ]
    with open(logs / f"{path.stem}.log", "w") as log:
        done = subprocess.run(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    if not results.exists():
        why = f"the pytest run ended without results (exit status {done.returncode})"
        return [_entry(file, t, "failed", why) for t in static_tests(path)]
    data = json.loads(results.read_text())
    tests = [
        _entry(e["file"], e["test"], e["outcome"], e["reason"]) | {"cases": e.get("cases", "")}
        for e in data["tests"]
    ]
    error = data["collection_errors"].get(file)
    if error is not None and not tests:
        why = f"the file fails to import: {error}"
        tests = [_entry(file, name, "failed", why) for name in static_tests(path)]
    return tests


def _entry(file: str, name: str, outcome: str, reason: str) -> dict[str, str]:
    return {"file": file, "name": name, "outcome": outcome, "reason": reason}


def measure(
    folder: Path, logs: Path, impl: str, timeout: int, only: list[str]
) -> list[dict[str, str]]:
    everything: list[dict[str, str]] = []
    files = sorted((folder / "tests").glob("test_*.py"))
    if only:
        files = [f for f in files if any(part in f.name for part in only)]
    for path in files:
        whole = scope.AREAS.get(path.name, ("", ""))[1]
        if whole:
            everything += [_entry(path.name, t, "excluded", whole) for t in static_tests(path)]
            continue
        started = time.monotonic()
        tests = run_file(folder, logs, path, impl, timeout)
        counts = Counter(entry["outcome"] for entry in tests)
        print(
            f"{path.name:40} {counts['passed']:3} passed {counts['failed']:3} failed "
            f"{counts['excluded']:3} excluded {counts['skipped']:3} skipped "
            f"({time.monotonic() - started:.0f} s)",
            flush=True,
        )
        everything += tests
    return everything


def feature(reason: str) -> str:
    """What a failing test lacks, read from its one-line reason (for grouping only)."""
    for pattern, name in IN_PLACE:
        if re.search(pattern, reason):
            return name
    patterns = (
        (r"riemann\.([\w.]+): the framework has no such name", "{0}"),
        (r"'(\w*Module|\w*Net|\w*Model)' object has no attribute '(\w+)'", "Module.{1}"),
        (r"'(\w+)' object has no attribute '(\w+)'", "{0}.{1}"),
        (r"([\w.]+)\(\) got an unexpected keyword argument '(\w+)'", "{0}({1}=)"),
        (r"([\w.]+)\(\) missing \d+ required positional argument", "{0}(): its signature"),
        (r"unsupported operand type\(s\) for ([^:]+): 'Tensor'", "Tensor operator {0}"),
        (r"bad operand type for unary (\S+): 'Tensor'", "Tensor operator unary {0}"),
    )
    for pattern, form in patterns:
        match = re.search(pattern, reason)
        if match:
            return form.format(*match.groups())
    for pattern, name in READ_AS:
        if re.search(pattern, reason):
            return name
    return "other: " + reason[:90]


# the in-place failures by the rule or the fault behind them (issue 28's course: in-place
# operations as PyTorch defines them, but none recorded on a tensor that has a view)
IN_PLACE = (
    (
        r"shares its memory with a view",
        "a recorded in-place change of a tensor that has a view (`y[i] += v`, `v = y[0:2]; "
        "v.mul_(2)`): the course refuses it, PyTorch rewrites the view's graph",
    ),
    (
        r"would cut it from the graph",
        "fill_ / zero_ on a tensor in a recorded graph: the course refuses it, PyTorch records "
        "it (the old values get a zero gradient)",
    ),
    (
        r"(Fancy indexing|Powat) inplace operation failed",
        "`y[index] op= v` with an advanced index on a non-leaf: the gradients are lost (the "
        "core's rule 3 rebases y, which y[index]'s node still holds)",
    ),
    (r"in-place|x\[index\] = value", "in-place semantics (issue 28): other"),
)

# what a failure whose reason names no attribute or argument lacks (Riemann's messages)
READ_AS = (
    (r"first: out参数", "out= arguments"),
    (r"原地|inplace", "in-place semantics (issue 28): other"),
    (r"strict", "autograd.functional's strict="),
    (r"LBFGS", "optim.LBFGS"),
    (r"scatter", "Tensor.scatter"),
    (r"first: 简单乘法测试", "autograd.gradcheck"),
    (r"save\(\) stores Tensors", "save() of NumPy arrays (the course's format: no pickle)"),
    (r"it is a PyTorch file", "load() of PyTorch's own files"),
    (r"it is not a zip archive", "load(): pickle.UnpicklingError for a file that is none"),
    (r"无效的负数维度", "reshape(-3, 2) accepted (PyTorch: RuntimeError)"),
    (r"ceil_mode=True", "pooling's ceil_mode=True (the course keeps whole windows only)"),
    (r"add_bias_kv and add_zero_attn", "MultiheadAttention(add_bias_kv=, add_zero_attn=)"),
    (r"kdim and vdim", "MultiheadAttention(kdim=, vdim=) other than embed_dim"),
)


def _other_cases_fail(reason: str) -> bool:
    """Whether an out-of-scope test that ran all the same failed in its in-scope cases."""
    match = re.search(r"its other cases: (\d+) of (\d+) recorded passed(; it stopped)?", reason)
    return bool(match) and (match[1] != match[2] or match[3] is not None)


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "—"


def report(
    tests: list[dict[str, str]], commit: str, impl: str, command: str, rewritten: list[str]
) -> str:
    by_file: dict[str, list[dict[str, str]]] = {}
    for entry in tests:
        by_file.setdefault(entry["file"], []).append(entry)
    total = Counter(entry["outcome"] for entry in tests)
    rest = Counter(entry["outcome"] for entry in tests if entry["file"] not in scope.INPLACE)
    encoder_only = Counter(
        entry["outcome"]
        for entry in tests
        if not scope.encoder_decoder(entry["file"], entry["name"])
    )
    in_scope = total["passed"] + total["failed"]
    groups: dict[str, list[str]] = {}
    for entry in tests:
        if entry["outcome"] == "failed":
            name = f"`{entry['file'].removesuffix('.py')}::{entry['name'].split('::')[-1]}`"
            groups.setdefault(feature(entry["reason"]), []).append(name)
    lines = [
        "# Riemann's test suite against the last chapter",
        "",
        "Written by `python -m tools.riemann_suite` (`make riemann`); do not edit by hand.",
        "",
        f"Riemann (`xiangfei2017/Riemann`) at commit `{commit}`, its `tests/` folder, run "
        f"with pytest against `{impl}.{CHAPTERS[-1].package}` (the last chapter) through the "
        "name-mapping package "
        "`tools/riemann_compat` (re-exports and renames only: a name the framework lacks "
        "fails the test that needs it). Each file runs in its own pytest process; a test "
        "fails when it raises, when it asserts, or when its own bookkeeping records a failed "
        "case (many of Riemann's tests catch every error and only count it).",
        "",
        f"Command: `{command}` (Python {sys.version.split()[0]}, PyTorch as the tests' "
        "oracle)."
        + (
            f" On this Python, {len(rewritten)} lines of Riemann's summary printing that use "
            "Python 3.12's f-strings were rewritten to parse (the outer f-string "
            f"triple-quoted, the same string): {', '.join(rewritten)}."
            if rewritten
            else ""
        ),
        "",
        f"**{total['passed']} of {in_scope} in-scope tests pass "
        f"({_percent(total['passed'], in_scope)}).** {total['excluded']} tests are out of "
        f"scope, {total['skipped']} skipped themselves (below).",
        "",
        f"Without the in-place files ({', '.join(f'`{f}`' for f in scope.INPLACE)}), whose "
        'subject the issue "In-place, as PyTorch defines it" (28) built: '
        f"{rest['passed']} of {rest['passed'] + rest['failed']} "
        f"({_percent(rest['passed'], rest['passed'] + rest['failed'])}).",
        "",
        "Without the encoder–decoder Transformer's tests (`nn.Transformer`, "
        "`TransformerDecoder`, `TransformerDecoderLayer`: given code in chapter 9, where the "
        "tasks build a decoder-only GPT; they count, the scope below says why): "
        f"{encoder_only['passed']} of {encoder_only['passed'] + encoder_only['failed']} "
        f"({_percent(encoder_only['passed'], encoder_only['passed'] + encoder_only['failed'])}).",
        "",
        "## Scope",
        "",
        "\n\n".join(
            " ".join(paragraph.split())
            for paragraph in (scope.__doc__ or "").split("``AREAS``")[0].split("\n\n")
            if paragraph.strip()
        ),
        "",
        "## By area",
        "",
        "| file | area | passed | failed | skipped | excluded |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for file, entries in sorted(by_file.items()):
        counts = Counter(entry["outcome"] for entry in entries)
        lines.append(
            f"| `{file}` | {scope.area(file)} | {counts['passed']} | {counts['failed']} "
            f"| {counts['skipped']} | {counts['excluded']} |"
        )
    lines.append(
        f"| **all** | | **{total['passed']}** | **{total['failed']}** | {total['skipped']} "
        f"| {total['excluded']} |"
    )
    lines += ["", "## Failing in-scope tests by what they lack", ""]
    for name, members in sorted(groups.items(), key=lambda item: (-len(item[1]), item[0])):
        lines.append(f"- {name} ({len(members)}): {', '.join(members)}")
    if not groups:
        lines.append("None.")
    lines += [
        "",
        "## Out of scope by some cases, failing in the others (information, not counted)",
        "",
    ]
    partly = [
        entry
        for entry in tests
        if entry["outcome"] == "excluded" and _other_cases_fail(entry["reason"])
    ]
    for entry in partly:
        name = f"`{entry['file'].removesuffix('.py')}::{entry['name'].split('::')[-1]}`"
        lines.append(f"- {name}: {entry['reason'].split('(run all the same; ')[-1][:-1]}")
    if not partly:
        lines.append("None.")
    for title, outcome in (
        ("Failing in-scope tests", "failed"),
        ("Skipped by the test itself", "skipped"),
    ):
        lines += ["", f"## {title}", ""]
        listed = False
        for file, entries in sorted(by_file.items()):
            chosen = [entry for entry in entries if entry["outcome"] == outcome]
            if chosen:
                listed = True
                lines.append(f"- `{file}`")
                lines += [f"  - `{e['name']}`: {e['reason'] or '(no message)'}" for e in chosen]
        if not listed:
            lines.append("None.")
    lines += ["", "## Excluded (out of scope)", ""]
    for file, entries in sorted(by_file.items()):
        chosen = [entry for entry in entries if entry["outcome"] == "excluded"]
        whole = scope.AREAS.get(file, ("", ""))[1]
        if whole:
            lines.append(f"- `{file}` (all {len(chosen)} tests): {whole}")
        elif chosen:
            lines.append(f"- `{file}`")
            lines += [f"  - `{e['name']}`: {e['reason']}" for e in chosen]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.riemann_suite", description=__doc__)
    parser.add_argument("--repo", type=Path, help="a Riemann clone already on disk")
    parser.add_argument("--impl", choices=("solutions", "chapters"), default="solutions")
    parser.add_argument("--commit", default=COMMIT, help="the pinned commit (default: %(default)s)")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per test")
    parser.add_argument("--only", nargs="*", default=[], help="files whose name has one of these")
    parser.add_argument("--report", type=Path, default=REPORT, help="where the report goes")
    args = parser.parse_args(argv)

    repo, commit = snapshot(args.repo, args.commit)
    folder = checkout_tests(repo, commit)
    rewritten = (folder / "tests" / "rewritten.txt").read_text().split()
    logs = folder / "logs" / f"{args.impl}-{os.getpid()}"
    logs.mkdir(parents=True)
    tests = measure(folder, logs, args.impl, args.timeout, args.only)
    command = "python -m tools.riemann_suite" + (
        f" --impl {args.impl}" if args.impl != "solutions" else ""
    )
    counts = Counter(entry["outcome"] for entry in tests)
    in_scope = counts["passed"] + counts["failed"]
    print(
        f"{counts['passed']} of {in_scope} in-scope tests pass "
        f"({_percent(counts['passed'], in_scope)}); {counts['excluded']} excluded, "
        f"{counts['skipped']} skipped"
    )
    (logs / "results.json").write_text(json.dumps(tests, indent=1))
    print(f"every test's outcome: {logs / 'results.json'}; pytest's output: {logs}/*.log")
    if args.only:
        print("(--only: no report written)")
        return 0
    args.report.write_text(report(tests, commit, args.impl, command, rewritten))
    print(f"report: {args.report}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

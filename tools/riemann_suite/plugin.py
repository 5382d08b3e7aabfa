"""The pytest plugin that runs one of Riemann's test files against the mapping package.

Loaded with ``-p tools.riemann_suite.plugin`` by ``python -m tools.riemann_suite`` (never by
the repository's own tests). It

- makes ``import riemann`` (and ``src.riemann``, which one file imports) the mapping package
  in ``tools/riemann_compat``;
- leaves out the tests that ``scope.py`` excludes, recording each with its reason;
- fails a test whose own bookkeeping recorded a failed case: many of Riemann's tests catch
  every exception and only count it (``stats.add_result(name, False, …)``), so pytest alone
  would pass them whatever the framework computed; and sets each file's
  ``IS_RUNNING_AS_SCRIPT`` flag, under which the tests record every case (as when Riemann's
  author runs a file as a script) instead of only printing it;
- stops a test after ``$RIEMANN_SUITE_TIMEOUT`` seconds (SIGALRM; 120 by default);
- writes every test's outcome, with a one-line reason, to ``$RIEMANN_SUITE_RESULTS`` (JSON).
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import re
import signal
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

import pytest

from . import scope

_SCRIPT = "IS_RUNNING_AS_SCRIPT"  # Riemann's flag: record every case, as a script run does
_cases: list[tuple[str, bool, str]] = []  # the cases the running test recorded
_results: dict[str, dict[str, str]] = {}  # nodeid -> {"outcome", "reason", "file", "test"}
_collection_errors: dict[str, str] = {}  # file -> one line
_first_failed: dict[str, str] = {}  # nodeid -> the first case its bookkeeping says failed
_case_counts: dict[str, tuple[int, int]] = {}  # nodeid -> its recorded cases: passed, all
_run_anyway: dict[str, tuple[str, str]] = {}  # nodeid -> (why it is out, its cases that are)
_other_cases: dict[str, tuple[int, int]] = {}  # nodeid -> its in-scope cases: passed, all
_stopped_out: dict[str, bool] = {}  # nodeid -> its last recorded case is an out-of-scope one


class TestTimeout(BaseException):
    """A test ran past the limit (a BaseException: Riemann's ``except Exception`` cannot
    swallow it)."""


def _one_line(text: str, limit: int = 220) -> str:
    lines = [line.strip() for line in str(text).strip().splitlines() if line.strip()]
    line = lines[0] if lines else ""
    line = re.sub(re.escape(tempfile.gettempdir()) + r"/[^\s:'\"]+", "<a temporary file>", line)
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _alias_src() -> None:
    """``import src.riemann`` (one file's form) gives the mapping package too."""
    import riemann

    src = types.ModuleType("src")
    src.__path__ = []  # a package with nothing of its own
    src.riemann = riemann
    sys.modules.setdefault("src", src)
    for name, module in list(sys.modules.items()):
        if name == "riemann" or name.startswith("riemann."):
            sys.modules.setdefault("src." + name, module)


def pytest_configure(config: pytest.Config) -> None:
    _alias_src()


def _exit_at_import(code: object = None) -> None:
    """``sys.exit`` while a file is imported: several of Riemann's files catch an
    ImportError and exit, which would end the whole run; this fails the file instead,
    naming the error it caught."""
    caught = sys.exc_info()[1]
    if caught is not None:
        raise ImportError(f"{type(caught).__name__}: {caught}") from caught
    raise ImportError(f"the file calls sys.exit({code!r}) at import")


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> object:
    real_exit = sys.exit
    sys.exit = _exit_at_import
    try:
        return (yield)
    finally:
        sys.exit = real_exit


def _watch(cls: type) -> None:
    """Record every case a Riemann statistics collector is told about."""
    original = cls.__dict__["add_result"]
    if getattr(original, "_riemann_suite_watched", False):
        return
    params = list(inspect.signature(original).parameters)
    if len(params) < 3 or params[2] != "passed":
        return  # not a pass/fail collector (test_017's timings)

    @functools.wraps(original)
    def add_result(self: Any, name: Any, passed: Any, *args: Any, **kwargs: Any) -> Any:
        details = args[0] if args else next(iter(kwargs.values()), "")
        _cases.append((str(name), bool(passed), "" if details is None else str(details)))
        return original(self, name, passed, *args, **kwargs)

    add_result._riemann_suite_watched = True  # type: ignore[attr-defined]
    cls.add_result = add_result  # type: ignore[attr-defined]


def _key(item: pytest.Item) -> tuple[str, str]:
    return Path(str(item.fspath)).name, item.name.split("[")[0]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    kept = []
    for item in items:
        module = getattr(item, "module", None)
        for value in vars(module).values() if module else ():
            if isinstance(value, type) and "add_result" in value.__dict__:
                _watch(value)
        if module is not None and isinstance(getattr(module, _SCRIPT, None), bool):
            setattr(module, _SCRIPT, True)
        file, test = _key(item)
        reason = scope.excluded(file, test)
        if reason and (file, test) in scope.CASES:
            _run_anyway[item.nodeid] = (reason, scope.CASES[file, test])
            kept.append(item)
        elif reason:
            _results[item.nodeid] = {
                "file": file,
                "test": test,
                "outcome": "excluded",
                "reason": reason,
            }
        else:
            kept.append(item)
    items[:] = kept


def _on_alarm(signum: int, frame: Any) -> None:
    raise TestTimeout(f"ran past {os.environ.get('RIEMANN_SUITE_TIMEOUT', '120')} s")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    _cases.clear()
    limit = int(float(os.environ.get("RIEMANN_SUITE_TIMEOUT", "120")))
    timed = hasattr(signal, "SIGALRM") and limit > 0
    if timed:
        previous = signal.signal(signal.SIGALRM, _on_alarm)
        signal.alarm(limit)
    try:
        result = yield
    finally:
        if timed:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
        _case_counts[item.nodeid] = (sum(case[1] for case in _cases), len(_cases))
        if item.nodeid in _run_anyway:
            out = re.compile(_run_anyway[item.nodeid][1])
            other = [case for case in _cases if not out.search(case[0])]
            _other_cases[item.nodeid] = (sum(case[1] for case in other), len(other))
            _stopped_out[item.nodeid] = bool(_cases) and bool(out.search(_cases[-1][0]))
        failed = [case for case in _cases if not case[1]]
        if failed:
            name, _, details = failed[0]
            _first_failed[item.nodeid] = (
                f"{len(failed)} of {len(_cases)} recorded cases failed; first: {name}"
                + (f": {_one_line(details)}" if details.strip() else "")
            )
    if item.nodeid in _first_failed:
        raise AssertionError(_first_failed[item.nodeid])
    return result


def _out_of_scope_run(report: pytest.TestReport) -> None:
    """An out-of-scope test that ran all the same: excluded, and what its other cases did."""
    file = Path(report.fspath).name
    test = report.nodeid.split("::")[-1].split("[")[0]
    reason, cases = _run_anyway[report.nodeid]
    passed, total = _other_cases.get(report.nodeid, (0, 0))
    note = f"its other cases: {passed} of {total} recorded passed"
    crash = getattr(report.longrepr, "reprcrash", None)
    if report.failed and crash is not None:
        message = _one_line(crash.message, 160)
        ours = re.search(cases, message) or _stopped_out.get(report.nodeid, False)
        if not ours and not message.startswith("AssertionError: "):
            note += f"; it stopped at: {message}"
    _results[report.nodeid] = {
        "file": file,
        "test": test,
        "outcome": "excluded",
        "reason": f"{reason} (run all the same; {note})",
    }


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.nodeid in _run_anyway:
        if report.when == "call":
            _out_of_scope_run(report)
        return
    file = Path(report.fspath).name
    test = report.nodeid.split("::")[-1].split("[")[0]
    entry = _results.setdefault(
        report.nodeid, {"file": file, "test": test, "outcome": "passed", "reason": ""}
    )
    if report.failed and entry["outcome"] != "failed":
        crash = getattr(report.longrepr, "reprcrash", None)
        message = crash.message if crash is not None else str(report.longrepr)
        entry["outcome"] = "failed"
        entry["reason"] = _one_line(message)
        cases = _first_failed.get(report.nodeid, "")
        if cases and not message.startswith("AssertionError: " + cases[:40]):
            entry["reason"] = f"{_one_line(message, 120)} ({cases})"
    elif report.skipped and entry["outcome"] == "passed":
        entry["outcome"] = "skipped"
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        entry["reason"] = _one_line(reason)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.failed:
        crash = getattr(report.longrepr, "reprcrash", None)
        message = crash.message if crash is not None else str(report.longrepr)
        lines = [line for line in str(report.longrepr).splitlines() if line.startswith("E ")]
        if lines:
            message = lines[-1][1:].strip()
        _collection_errors[Path(report.fspath).name] = _one_line(message)


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = os.environ.get("RIEMANN_SUITE_RESULTS")
    for nodeid, (passed, total) in _case_counts.items():
        if nodeid in _results:
            _results[nodeid]["cases"] = f"{passed}/{total}"
    if path:
        Path(path).write_text(
            json.dumps(
                {"tests": list(_results.values()), "collection_errors": _collection_errors},
                indent=1,
            )
        )

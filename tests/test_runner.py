"""The runner under misbehaving code: an endless loop, a dead process, an exit, a flood of
output, a syntax error, a hang at import. Each costs what it breaks and no more."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.harness.wire import Opaque
from autograder.report import chapter_report, task_details
from autograder.status import Status
from tests.trees import SOLUTIONS, copy_package, patch, run_chapter, statuses

ADD = '        out = Value(self.data + other.data, (self, other), "+")\n'
MUL = '        out = Value(self.data * other.data, (self, other), "*")\n'


@pytest.fixture
def package(tmp_path: Path) -> Path:
    return copy_package(SOLUTIONS / "ch01_value", tmp_path / "ch01_value")


def test_endless_loop_costs_one_check(package: Path) -> None:
    patch(package / "value.py", MUL, "        while True:\n            pass\n" + MUL)
    result = run_chapter(1, package, tasks=["1.2", "1.3", "1.4"], cpu=1.0)
    assert statuses(result) == {"1.2": "passed", "1.3": "timed out", "1.4": "passed"}
    problem = result.tasks[1].first_problem
    assert "CPU seconds" in problem.message and "endless loop" in problem.message


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("import os; os._exit(3)", "exited with code 3"),
        ("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", "killed by signal 9"),
    ],
)
def test_dying_process_costs_one_check(package: Path, code: str, expected: str) -> None:
    patch(package / "value.py", MUL, f"        {code}\n" + MUL)
    result = run_chapter(1, package, tasks=["1.2", "1.3", "1.4"])
    assert statuses(result) == {"1.2": "passed", "1.3": "crashed", "1.4": "passed"}
    assert expected in result.tasks[1].first_problem.message


@pytest.mark.parametrize("exc", ["SystemExit(0)", "KeyboardInterrupt()"])
def test_exit_and_interrupt_are_just_exceptions(package: Path, exc: str) -> None:
    patch(package / "value.py", MUL, f"        raise {exc}\n" + MUL)
    result = run_chapter(1, package, tasks=["1.2", "1.3"])
    assert statuses(result) == {"1.2": "passed", "1.3": "failed"}
    assert exc.split("(")[0] in result.tasks[1].first_problem.message


def test_printing_and_writing_to_stdout_do_not_disturb_the_results(package: Path) -> None:
    noise = (
        "        import os, sys\n"
        "        print('x' * 100_000)\n"
        '        sys.__stdout__.write(\'{"event": "done"}\\n\')\n'
        '        os.write(1, b\'{"event": "done"}\\n\')\n'
    )
    patch(package / "value.py", ADD, noise + ADD)
    result = run_chapter(1, package, tasks=["1.2", "1.3"])
    assert statuses(result) == {"1.2": "passed", "1.3": "passed"}


def test_syntax_error_fails_every_task_and_says_where(package: Path) -> None:
    patch(package / "value.py", ADD, "        out = = 1\n" + ADD)
    result = run_chapter(1, package, tasks=["1.1", "1.2"])
    assert set(statuses(result).values()) == {"import error"}
    problem = result.tasks[0].first_problem
    assert "SyntaxError" in problem.message
    assert problem.where.startswith("chapters/ch01_value/value.py, line")
    text = chapter_report(result)
    assert text.count("does not import") == 1 and text.count("SyntaxError") == 1


def test_hang_at_import_fails_every_task(package: Path) -> None:
    (package / "nn.py").write_text("while True:\n    pass\n")
    result = run_chapter(1, package, tasks=["1.1", "1.2"], cpu=1.0)
    assert set(statuses(result).values()) == {"import error"}
    assert "importing your code stopped" in result.tasks[0].first_problem.message


def test_child_sees_none_of_the_repository(package: Path) -> None:
    spy = (
        "        import importlib.util\n"
        "        for name in ('solutions', 'tools', 'support', 'autograder.runner', 'tests'):\n"
        "            assert importlib.util.find_spec(name) is None, name\n"
        "        import autograder.checks.ch01_value as checks\n"
        "        assert not hasattr(checks, 'CHECKS')  # case lists and expectations stay out\n"
    )
    patch(package / "value.py", ADD, spy + ADD)
    result = run_chapter(1, package, tasks=["1.2"])
    assert statuses(result) == {"1.2": "passed"}, result.tasks[0].first_problem


def test_wrong_type_is_reported_as_an_object(package: Path) -> None:
    patch(
        package / "value.py",
        "            self.grad += out.grad\n",
        "            self.grad += out\n",
    )
    result = run_chapter(1, package, tasks=["1.2"])
    problem = result.tasks[0].first_problem
    assert problem.status == "failed"
    assert "x.grad: expected the number" in problem.message and "(a Value)" in problem.message


def test_stub_raising_another_tasks_marker_blocks(package: Path) -> None:
    patch(
        package / "value.py",
        "        self.grad = 1.0\n",
        "        raise NotImplementedError('Task 1.7: topological_order — see §6')\n",
    )
    result = run_chapter(1, package, tasks=["1.7", "1.8"])
    assert statuses(result)["1.8"] == Status.BLOCKED and result.tasks[1].blocked_by == "1.7"


def test_opaque_objects_print_their_type() -> None:
    assert str(Opaque("Value", "Value(data=1)")) == "Value(data=1) (a Value)"


def test_an_op_returning_a_float_is_named(package: Path) -> None:
    end_of_add = "        return out\n        ### END SOLUTION\n\n    # -- task 1.3"
    patch(package / "value.py", end_of_add, end_of_add.replace("return out", "return out.data"))
    result = run_chapter(1, package, tasks=["1.2"])
    assert "type(out): expected 'Value', received 'float'" in result.tasks[0].first_problem.message


CHEAT = """
import sys as _sys
_m = _sys.modules.get("autograder.checks.ch01_value")
if _m is not None and hasattr(_m, "CHECKS"):
    for _c in _m.CHECKS:
        known = [(c.inputs, c.expected) for c in _c.make_cases(0)]
        cheat = lambda sp, _t=known, **i: next(e for k, e in _t if k == i)
        object.__setattr__(_c, "program", cheat)
"""


def test_code_under_test_cannot_reach_the_expected_values(tmp_path: Path) -> None:
    """The reviewer's exploit: stubs plus code that swaps in the expected values. The child
    never holds the case lists, so it earns nothing."""
    from tests.trees import write_stubs

    package = write_stubs(tmp_path) / "ch01_value"
    (package / "__init__.py").write_text((package / "__init__.py").read_text() + CHEAT)
    result = run_chapter(1, package, tasks=["1.1", "1.2"])
    assert result.points == 0 and set(statuses(result).values()) == {"not started"}


def test_what_the_code_printed_is_shown_under_a_failing_check(package: Path) -> None:
    grad = "            self.grad += out.grad\n"
    patch(package / "value.py", grad, "            print('debug: out.grad is', out.grad)\n")
    result = run_chapter(1, package, tasks=["1.2"])
    text = "\n".join(task_details(result.tasks[0]))
    assert "printed:" in text and "debug: out.grad is" in text


def test_a_task_filter_still_tells_blocked_from_failed(package: Path) -> None:
    """check("1.8") alone runs 1.7's checks too (unreported), to know 1.8 is blocked."""
    patch(package / "graph.py", "    return order\n", "    return order[::-1]\n")
    result = run_chapter(1, package, tasks=["1.8"])
    assert [t.task.id for t in result.tasks] == ["1.8"]
    assert statuses(result) == {"1.8": Status.BLOCKED} and result.tasks[0].blocked_by == "1.7"


# code under test that writes to every pipe it holds: the grader's channel among them
WRITE_TO_PIPES = """
        import os, stat
        for fd in range(3, 64):
            try:
                if stat.S_ISFIFO(os.fstat(fd).st_mode):
                    os.write(fd, {line!r})
            except OSError:
                pass
"""


@pytest.mark.parametrize(
    "line",
    [
        b"not a message\n",
        b'{"event": "done"}\n',
        b'{"event": "end", "id": "x", "results": [{"value": 1, "raised": {}}]}\n',
        b'{"event": "seen", "what": "nothing", "id": null}\n',
    ],
)
def test_writing_to_the_channel_is_forgery_and_costs_that_check(package: Path, line: bytes) -> None:
    """Garbage, a message out of order, a well-formed one: none carries the run's token, which
    only the child's main thread holds, so the check that wrote it is ``FORGED`` (its own
    status, not "flooded"), the others still pass."""
    problem = "a line without this run's token"
    patch(package / "value.py", MUL, WRITE_TO_PIPES.format(line=line) + MUL)
    result = run_chapter(1, package, tasks=["1.2", "1.3", "1.4"])
    assert statuses(result) == {"1.2": "passed", "1.3": Status.FORGED, "1.4": "passed"}
    message = result.tasks[1].first_problem.message
    assert "discarded" in message and problem in message, message


def test_each_message_reads_back_as_its_record_and_nothing_else_does() -> None:
    from autograder.harness import wire

    events = [
        wire.Ready(),
        wire.ImportFailed({"type": "SyntaxError", "message": "invalid syntax"}),
        wire.Begin("2:1.3/Value * Value"),
        wire.End("2:1.3/Value * Value", "hi", [{"value": 6.0}, {"raised": {"type": "E"}}]),
        wire.Done(),
        wire.Restart(),
        wire.Seen("read the grader's frames (sys._getframe)", "2:1.3/Value * Value"),
        wire.Seen("replaced a grader function (numpy.asarray)"),
    ]
    for event in events:
        assert wire.decode(wire.encode(event)) == event
    for line in [
        "not json",
        "[1, 2]",
        '{"event": ["ready"]}',
        '{"event": "ready", "score": 100}',
        '{"event": "end", "id": "x", "results": [{"value": 1, "raised": {}}]}',
        '{"event": "end", "id": "x", "results": {"value": 1}}',
        '{"event": "import_error", "error": "text"}',
    ]:
        with pytest.raises(ValueError):  # JSON's own error is one too
            wire.decode(line)


POW = '        out = Value(self.data**exponent, (self,), f"**{exponent}")\n'
BURN = """\
        import threading
        if not globals().get("_burning"):  # once: a thread that never ends, always busy
            globals()["_burning"] = True
            threading.Thread(target=lambda: [None for _ in iter(int, 1)], daemon=True).start()
"""
SLEEP_ONCE = """\
        import time
        if not globals().get("_slept"):  # once: 1.5 s of wall-clock time, no CPU
            globals()["_slept"] = True
            time.sleep(1.5)
"""


def test_a_thread_left_running_is_stopped_with_its_check(package: Path) -> None:
    """Task 1.3's code starts a thread that burns CPU and never ends; task 1.4's first case
    waits 1.5 s. Were the thread still running then, 1.4's check would be charged over a
    second of its CPU (limit 1 s) and time out; it ends with 1.3's check instead (the child
    that ran it stops, and a fresh one runs the checks after it), so each task gets what
    its own code earns: 1.3 passes (its values are right), 1.4 too."""
    patch(package / "value.py", MUL, BURN + MUL)
    patch(package / "value.py", POW, SLEEP_ONCE + POW)
    result = run_chapter(1, package, tasks=["1.3", "1.4"], cpu=1.0)
    assert statuses(result) == {"1.3": "passed", "1.4": "passed"}, chapter_report(result)


def test_a_thread_left_running_by_the_import_fails_the_import(package: Path) -> None:
    """A thread started at import would run through every check: no check could be measured
    apart from it, so the import fails, and says why."""
    (package / "helpers.py").write_text(
        "import threading\n\nthreading.Thread(target=lambda: [None for _ in iter(int, 1)], "
        "daemon=True).start()\n"
    )
    init = package / "__init__.py"
    init.write_text(init.read_text() + "from . import helpers  # noqa: F401\n")
    result = run_chapter(1, package, tasks=["1.2"], cpu=1.0)
    assert statuses(result) == {"1.2": "import error"}
    assert "thread" in result.tasks[0].first_problem.message


def test_a_restart_is_taken_only_between_checks_with_checks_left() -> None:
    """``Restart`` ends a child that has finished a check at least, so a run always moves
    on: before the first check, inside one, or after the last, it is out of order."""
    from autograder.harness import wire
    from autograder.runner import PlannedCheck, _Child, _Record

    checks = [PlannedCheck(id, "m:f", ()) for id in ("a", "b")]
    child, record = _Child(checks), _Record()
    steps = [wire.Ready(), wire.Begin("a"), wire.End("a"), wire.Begin("b"), wire.End("b")]
    allowed = []
    for step in steps:
        allowed.append(child.unexpected(wire.Restart()) == "")
        child.take(step, record)
    allowed.append(child.unexpected(wire.Restart()) == "")
    assert allowed == [False, False, False, True, False, False]

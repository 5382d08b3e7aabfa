"""Blame the task that has the bug (autograder/blame.py, frames.py): a check that fails
while a task it needs fails too runs again with the autograder's stand-ins, and reports its
own failure unless the stand-ins make it pass; "raised at" names the student's own frame; a
half-written task says how far it is; a result off by an exact factor says so."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from autograder import frames, report
from autograder.harness.api import Case, Check, compare
from autograder.harness.gradcheck import vjp as numerical_vjp
from autograder.runner import CheckRun
from autograder.status import Status
from autograder.verdict import judge
from tests.trees import SOLUTIONS, copy_package, patch, run_chapter, write_stubs

STUB_25 = 'raise NotImplementedError("Task 2.5: Tanh, Sigmoid, ReLU and Abs backward — see §5")'
# plausible bugs, each an (old, new) edit of the reference
ENGINE_DROPS_A_GRADIENT = ("by_hand.py", "grad_r = grad_r1 + grad_r2", "grad_r = grad_r1")
SIGMOID_UNWRITTEN = (
    "pointwise.py",
    "s = a.sigmoid()\n        return grad_output * s * (1 - s)",
    STUB_25,
)
TANH_UNWRITTEN = ("pointwise.py", "t = a.tanh()\n        return grad_output * (1 - t * t)", STUB_25)
TANH_WRONG_SIGN = ("pointwise.py", "grad_output * (1 - t * t)", "grad_output * (1 + t * t)")
ORDER_REVERSED = ("graph.py", "    return order\n", "    return order[::-1]\n")
BACKWARD_UNSEEDED = ("value.py", "        self.grad = 1.0\n        for node", "        for node")


def _variant(tmp: Path, number: int, *edits: tuple[str, str, str]) -> Path:
    package = {1: "ch01_value", 2: "ch02_tensor"}[number]
    copy = copy_package(SOLUTIONS / package, tmp / package)
    for file, old, new in edits:
        patch(copy / file, old, new)
    return copy


def _words(text: str) -> str:
    """A report's text with its line wrapping undone."""
    return " ".join(text.split())


def _task(result, task_id: str):
    return next(t for t in result.tasks if t.task.id == task_id)


# -- stand-ins: the check's own failure, or blocked -----------------------------------------


def test_a_wrong_engine_is_its_own_failure_though_sigmoid_is_unwritten(tmp_path: Path) -> None:
    package = _variant(tmp_path, 2, ENGINE_DROPS_A_GRADIENT, SIGMOID_UNWRITTEN)
    result = run_chapter(2, package, tasks=["2.5", "2.11"])
    engine, text = _task(result, "2.11"), _words(report.chapter_report(result))
    assert _task(result, "2.5").status == Status.STARTED, text
    assert engine.status == Status.FAILED and engine.blocked_by == "", text
    (check,) = engine.checks
    assert check.standins == ("2.5",) and "grad w1" in check.message, text
    assert "the bug is in task 2.11" in text and "blocked by" not in text


def test_a_wrong_engine_is_its_own_failure_though_tanh_is_unwritten(tmp_path: Path) -> None:
    """2.11 meets 2.5's stub itself: with the stand-in in its place, its own bug shows."""
    package = _variant(tmp_path, 2, ENGINE_DROPS_A_GRADIENT, TANH_UNWRITTEN)
    engine = _task(run_chapter(2, package, tasks=["2.11"]), "2.11")
    assert engine.status == Status.FAILED and engine.checks[0].standins == ("2.5",)


def test_a_right_engine_with_a_wrong_tanh_is_blocked_by_it(tmp_path: Path) -> None:
    package = _variant(tmp_path, 2, TANH_WRONG_SIGN)
    result = run_chapter(2, package, tasks=["2.11"])
    (engine,) = result.tasks
    text = _words(report.chapter_report(result))
    assert engine.status == Status.BLOCKED and engine.blocked_by == "2.5", text
    assert engine.label == "blocked by task 2.5" and engine.points == 0
    assert (
        "task 2.5 fails too; with the autograder's own version of task 2.5 in place of yours "
        "this check passes: fix task 2.5 first" in text
    )
    assert "this check runs" not in text  # it says what the rerun proved, nothing more


MEAN_FORGETS_N = ("reductions.py", "return g * ones_like(a) / n", "return g * ones_like(a)")


def test_of_several_stand_ins_the_one_that_makes_the_difference_is_blamed(
    tmp_path: Path,
) -> None:
    """The review's m1: Sigmoid unwritten (2.5) and Mean without / n (2.7) fail, and a right
    2.11 (which uses Tanh, written, and Mean) passes with both stand-ins. Leaving 2.7's out
    fails it again, leaving 2.5's out does not: blocked by 2.7, not by the first listed."""
    package = _variant(tmp_path, 2, SIGMOID_UNWRITTEN, MEAN_FORGETS_N)
    result = run_chapter(2, package, tasks=["2.5", "2.7", "2.11"])
    text = _words(report.chapter_report(result))
    assert _task(result, "2.5").status == Status.STARTED, text
    assert _task(result, "2.7").status == Status.FAILED, text
    engine = _task(result, "2.11")
    assert engine.status == Status.BLOCKED and engine.blocked_by == "2.7", text
    (check,) = engine.checks
    assert set(check.standins) == {"2.5", "2.7"} and check.causes == ("2.7",), text
    assert "blocked by task 2.7" in text and "blocked by task 2.5" not in text
    assert "with your task 2.7 back in it fails again: fix task 2.7 first" in text


def test_tasks_that_fail_a_check_only_together_are_named_together() -> None:
    from autograder.blame import Rerun, causes

    check = Check("2.11", "x", lambda rng: [Case("c")], lambda sp: None)
    rerun = Rerun(None, None, [], ("2.5", "2.7"))  # type: ignore[arg-type]
    ran = CheckRun(Status.RAN, results=[{"value": 1.0}])
    passing = {t: judge(check, [Case("c", expected=1.0)], ran) for t in rerun.tasks}
    assert all(v.passed for v in passing.values())
    assert causes(rerun, passing) == () and causes(rerun, {}) == ()
    text = _words(report._standin_text(rerun.tasks, ()))
    assert "the tasks fail it only together; fix tasks 2.5 and 2.7 first" in text


RESHAPE_FLATTENS = (
    "shapes.py",
    "return grad_output.reshape(ctx.shape)",
    "return grad_output.reshape(-1)",
)
MEAN_IN_NUMPY = (  # right first-order values, attached to the graph by `* 0`: no second order
    "reductions.py",
    "return g * ones_like(a) / n",
    "return (g * ones_like(a) / n).detach() + grad_output.sum() * 0",
)


MEAN_SECOND_ORDER = "second derivatives: a.mean(dim, keepdim)"  # one such check per op


def test_a_second_order_check_blames_a_wrong_reshape_only_when_it_is_the_cause(
    tmp_path: Path,
) -> None:
    """2.7's second-order check pulls back through the Reshape its backward records (2.9):
    with a stand-in for 2.9 a right 2.7 passes (blocked by 2.9), a wrong one still fails."""
    right = run_chapter(2, _variant(tmp_path / "right", 2, RESHAPE_FLATTENS), tasks=["2.7"])
    (second,) = [c for c in right.tasks[0].checks if c.check.name == MEAN_SECOND_ORDER]
    assert second.status == Status.BLOCKED and second.blocked_by == "2.9"
    assert second.standins == ("2.9",)
    wrong = _variant(tmp_path / "wrong", 2, RESHAPE_FLATTENS, MEAN_IN_NUMPY)
    (second,) = [
        c
        for c in run_chapter(2, wrong, tasks=["2.7"]).tasks[0].checks
        if c.check.name == MEAN_SECOND_ORDER
    ]
    assert second.status == Status.FAILED and second.standins == ("2.9",), second.message


ORDER_REVERSED_AND_WALKED_FORWARDS = (
    ("graph.py", "    return order\n", "    return order[::-1]\n"),
    ("value.py", "in reversed(topological_order(self)):", "in topological_order(self):"),
)


def test_a_check_that_passes_only_because_two_bugs_cancel_out_fails(tmp_path: Path) -> None:
    """backward() walking a root-first order forwards is right only with that wrong order:
    with the stand-in for 1.7 in place it fails, so 1.8 does not earn its points."""
    package = _variant(tmp_path, 1, *ORDER_REVERSED_AND_WALKED_FORWARDS)
    result = run_chapter(1, package, tasks=["1.7", "1.8"])
    text = _words(report.chapter_report(result))
    backward = _task(result, "1.8")
    assert _task(result, "1.7").status == Status.FAILED, text
    assert backward.status == Status.FAILED and backward.points == 0, text
    assert all(c.leans_on_bugs and c.standins == ("1.7",) for c in backward.checks), text
    assert "task 1.8 leans on that bug (two bugs cancel out)" in text
    # the same backward with a right order is right: a wrong 1.7 alone costs 1.8 nothing
    alone = run_chapter(1, _variant(tmp_path / "alone", 1, ORDER_REVERSED), tasks=["1.8"])
    assert all(c.status == Status.BLOCKED for c in alone.tasks[0].checks)


def test_hidden_checks_rerun_too_with_the_parents_text_only(tmp_path: Path) -> None:
    from autograder.checking import check_chapter
    from autograder.course import chapter
    from autograder.grading import hidden_checks
    from tests.trees import composite

    package = _variant(tmp_path, 2, TANH_WRONG_SIGN)
    ch = chapter(2)
    result = check_chapter(
        ch, composite(2, package), task_ids=["2.11"], hidden_modules=hidden_checks(ch)
    )
    (engine,) = result.tasks
    hidden = [c for c in engine.checks if c.hidden]
    assert hidden and all(c.status == Status.BLOCKED and c.blocked_by == "2.5" for c in hidden)
    assert all(c.message == "blocked by task 2.5" and c.standins for c in hidden)


def test_the_reference_needs_no_rerun(tmp_path: Path) -> None:
    result = run_chapter(2, SOLUTIONS / "ch02_tensor", tasks=["2.11"])
    assert result.passed and not any(c.standins for t in result.tasks for c in t.checks)


def test_chapter_1_backward_blocked_by_a_wrong_order_or_failing_itself(tmp_path: Path) -> None:
    blocked = run_chapter(1, _variant(tmp_path / "a", 1, ORDER_REVERSED), tasks=["1.7", "1.8"])
    assert _task(blocked, "1.7").status == Status.FAILED
    backward = _task(blocked, "1.8")
    text = report.chapter_report(blocked)
    assert backward.status == Status.BLOCKED and backward.blocked_by == "1.7", text
    both = _variant(tmp_path / "b", 1, ORDER_REVERSED, BACKWARD_UNSEEDED)
    own = _task(run_chapter(1, both, tasks=["1.8"]), "1.8")
    assert own.status == Status.FAILED and own.blocked_by == ""
    assert all(c.standins for c in own.checks if not c.passed)


def test_the_topological_order_stand_in_is_no_solution_of_task_1_7(tmp_path: Path) -> None:
    """The 1.7 stand-in ships in the student release: pasted into ``topological_order``'s
    body (with the record it reads), it fails 1.7, while it makes 1.8 pass (above)."""
    import inspect
    import textwrap

    from autograder.checks.ch01_value import standins

    source = textwrap.dedent(inspect.getsource(standins.topological_order))
    tree = __import__("ast").parse(source).body[0]
    lines = source.splitlines()[tree.body[1].lineno - 1 :]  # its statements, past the docstring
    body = "\n".join(["CREATED: list = []", *textwrap.dedent("\n".join(lines)).splitlines()])
    package = copy_package(SOLUTIONS / "ch01_value", tmp_path / "ch01_value")
    graph = (package / "graph.py").read_text()
    start = graph.index("    ### BEGIN SOLUTION 1.7")
    end = graph.index("    ### END SOLUTION", start)
    pasted = textwrap.indent(body, "    ") + "\n"
    (package / "graph.py").write_text(graph[:start] + pasted + graph[end:])
    result = run_chapter(1, package, tasks=["1.7"])
    assert result.tasks[0].status == Status.FAILED, report.chapter_report(result)
    assert result.tasks[0].points == 0, report.chapter_report(result)


UNBROADCAST_DROPS_STRETCHED = (
    "unbroadcast.py",
    "grad.sum(dim=stretched, keepdim=True)",
    "grad.sum(dim=stretched)",
)
BROADCAST_TO_NO_SUM = (
    "broadcast.py",
    "return sum_to_size(grad_output, ctx.shape)",
    "return grad_output",
)


def test_chapter_3_blocked_by_unbroadcast_or_failing_itself(tmp_path: Path) -> None:
    """3.2's checks run unbroadcast: with 3.1 wrong, a right 3.2 is blocked by it (the
    NumPy stand-ins of 3.1 pass it), a wrong 3.2 is its own failure."""
    package = copy_package(SOLUTIONS / "ch03_broadcast", tmp_path / "a" / "ch03_broadcast")
    patch(package / UNBROADCAST_DROPS_STRETCHED[0], *UNBROADCAST_DROPS_STRETCHED[1:])
    result = run_chapter(3, package)
    text = _words(report.chapter_report(result))
    assert _task(result, "3.1").status == Status.FAILED, text
    for task in ("3.2", "3.3"):
        assert _task(result, task).status in (Status.PASSED, Status.BLOCKED), text
    blocked = [c for t in result.tasks for c in t.checks if c.status == Status.BLOCKED]
    assert blocked and all(c.blocked_by == "3.1" and c.standins for c in blocked), text
    patch(package / BROADCAST_TO_NO_SUM[0], *BROADCAST_TO_NO_SUM[1:])
    both = run_chapter(3, package, tasks=["3.2"])
    (own,) = both.tasks
    assert own.status == Status.FAILED, report.chapter_report(both)
    assert any(c.standins == ("3.1",) for c in own.checks if c.status == Status.FAILED)


def test_the_value_op_stand_ins_run_micrograds_example(tmp_path: Path) -> None:
    """1.8's README check needs every op: with 1.6 unwritten, a right backward is blocked by
    it (the numerical stand-ins of 1.2–1.6 pass the example)."""
    package = copy_package(SOLUTIONS / "ch01_value", tmp_path / "ch01_value")
    stubs = write_stubs(tmp_path / "stubs") / "ch01_value"
    text = (stubs / "value.py").read_text()
    start = text.index("    def relu(self)")
    stub_relu = text[start : text.index("    # --", start)]
    mine = (package / "value.py").read_text()
    start = mine.index("    def relu(self)")
    end = mine.index("    # --", start)
    (package / "value.py").write_text(mine[:start] + stub_relu + mine[end:])
    result = run_chapter(1, package, tasks=["1.6", "1.8"])
    assert _task(result, "1.6").status == Status.STARTED, report.chapter_report(result)
    readme = next(c for c in _task(result, "1.8").checks if "README" in c.check.name)
    assert readme.status == Status.BLOCKED and readme.blocked_by == "1.6"
    assert readme.standins, report.chapter_report(result)


def test_stand_in_gradients_match_the_autograders_derivatives() -> None:
    from autograder.checks.ch02_tensor import standins

    rng = np.random.default_rng(3)
    a, b, g = rng.normal(size=(3, 4)), rng.normal(size=(4,)), rng.normal(size=(3, 4))
    for name, args, options in [
        ("Mul", [a, b], {}),
        ("Tanh", [a], {}),
        ("Sigmoid", [a * 30], {}),
        ("MatMul", [a, rng.normal(size=(4, 2))], {}),
        ("Mean", [a], {"dim": 1, "keepdim": True}),
        ("Pow", [np.abs(a) + 0.5], {"exponent": 2.5}),
        ("Log", [np.abs(a) + 0.5], {}),
        ("Reshape", [a], {"shape": (2, 6)}),
        ("Transpose", [a], {"dim0": 0, "dim1": 1}),
        ("Permute", [a.reshape(3, 2, 2)], {"dims": (2, 0, 1)}),
    ]:
        reference, elementwise = standins.REFERENCES[name]
        out = np.asarray(reference(*args, **options))
        up = rng.normal(size=out.shape)
        expected = numerical_vjp(lambda *x: reference(*x, **options), args, up)  # noqa: B023
        for i in range(len(args)):
            got = standins.vjp(reference, elementwise, args, options, i, up)
            assert np.allclose(got, expected[i], rtol=1e-6, atol=1e-8), name
    assert g.shape == a.shape


# -- the same in a student release (no solutions/) ------------------------------------------


def _release_check(built: Path, package: Path, *args: str) -> subprocess.CompletedProcess:
    target = built / "chapters" / package.name
    shutil.rmtree(target)
    shutil.copytree(package, target)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SPARROW_IMPL")}
    return subprocess.run(
        [sys.executable, "-m", "autograder", "check", *args],
        cwd=built,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_blame_in_a_built_release(tmp_path: Path) -> None:
    from tools import release

    built = tmp_path / "release"
    release.release(built)
    assert not (built / "solutions").exists()
    wrong = _variant(tmp_path / "a", 2, ENGINE_DROPS_A_GRADIENT, SIGMOID_UNWRITTEN)
    out = _release_check(built, wrong, "2", "--task", "2.5", "--task", "2.11")
    assert out.returncode == 1, out.stderr
    text = _words(out.stdout)
    assert "the bug is in task 2.11" in text and "blocked by" not in text, out.stdout
    assert "started: 3 of 4 functions written" in out.stdout, out.stdout
    blocked = _variant(tmp_path / "b", 2, TANH_WRONG_SIGN)
    out = _release_check(built, blocked, "2", "--task", "2.11")
    assert "blocked by task 2.5" in out.stdout, out.stdout + out.stderr
    # "raised at" finds the student's frame from the stubs the release ships
    assert frames.task_functions(built)["ch02_tensor/matmul.py"] == ("MatMul.backward",)


# -- raised at: the student's frame, then the given one --------------------------------------


def test_raised_at_shows_the_students_frame_above_the_given_one(tmp_path: Path) -> None:
    package = copy_package(SOLUTIONS / "ch02_tensor", tmp_path / "ch02_tensor")
    patch(package / "matmul.py", "grad_a = g @ b.transpose(-1, -2)", "grad_a = g @ b")
    result = run_chapter(2, package, tasks=["2.6"])
    problem = result.tasks[0].first_problem
    own, given = problem.where.splitlines()
    assert own.startswith("chapters/ch02_tensor/matmul.py") and own.endswith("in MatMul.backward")
    assert "in _check_shapes (given code" in given
    text = report.chapter_report(result)
    assert "raised at: chapters/ch02_tensor/matmul.py" in text and "_check_shapes" in text


def test_where_from_frames() -> None:
    table = {"ch01_value/value.py": ("Value.__add__",)}
    inside = {
        "path": "ch01_value/value.py",
        "line": 80,
        "function": "Value.__add__.<locals>._backward",
    }
    given = {"path": "ch01_value/value.py", "line": 30, "function": "_number"}
    assert frames.where({"frames": [inside, given]}, table) == (
        "chapters/ch01_value/value.py, line 80, in Value.__add__.<locals>._backward\n"
        "chapters/ch01_value/value.py, line 30, in _number (given code, called from there)"
    )
    assert frames.where({"frames": [given, inside]}, table).count("\n") == 0
    assert (
        frames.where({"frames": [given]}, table)
        == "chapters/ch01_value/value.py, line 30, in _number (given code)"
    )
    # with no task known (no solutions/, no stubs), a frame is not called given
    unknown = frames.where({"frames": [given]}, {})
    assert unknown == "chapters/ch01_value/value.py, line 30, in _number"
    # what a child sends is checked, never trusted
    assert frames.where({"frames": [[1, 2]], "where": "w"}, table) == "w"
    assert frames.where({"frames": [inside, {**given, "line": "30"}], "where": "w"}, table) == "w"
    assert frames.where({"frames": "x", "where": "w"}, table) == "w"


# -- started, statuses as types -------------------------------------------------------------


def test_a_task_with_one_function_written_is_started(tmp_path: Path) -> None:
    stubs = write_stubs(tmp_path) / "ch02_tensor"
    reference = (SOLUTIONS / "ch02_tensor" / "pointwise.py").read_text()
    start = reference.index("class Tanh")
    tanh = reference[start : reference.index("class Sigmoid")]
    mine = (stubs / "pointwise.py").read_text()
    start = mine.index("class Tanh")
    (stubs / "pointwise.py").write_text(mine[:start] + tanh + mine[mine.index("class Sigmoid") :])
    result = run_chapter(2, stubs, tasks=["2.5"])
    (task,) = result.tasks
    text = report.chapter_report(result)
    assert task.status == Status.STARTED, text
    assert task.label == "started: 1 of 4 functions written", text
    assert 0 < task.points < task.task.points
    assert "to write: pointwise.py: Sigmoid.backward, ReLU.backward, Abs.backward" in _words(text)
    assert "Next up: task 2.5" in text


def test_started_counts_functions_and_lists_only_the_unwritten(tmp_path: Path) -> None:
    """The review's e2: only Sigmoid's backward is a stub. Its second-order check (all four
    ops) meets that stub too, but "to write" names Sigmoid.backward alone."""
    result = run_chapter(2, _variant(tmp_path, 2, SIGMOID_UNWRITTEN), tasks=["2.5"])
    (task,) = result.tasks
    text = _words(report.chapter_report(result))
    assert task.label == "started: 3 of 4 functions written", text
    assert "to write: pointwise.py: Sigmoid.backward continue:" in text
    assert "a.tanh()" in text.split("to write:")[0]  # passing checks are still named


def test_forged_is_its_own_status_and_hidden_text() -> None:
    check = Check("1.2", "x", lambda rng: [Case("c")], lambda sp: None)
    run = CheckRun(Status.FORGED, detail="a forged 'end' (the child's channel was written to)")
    verdict = judge(check, [Case("c")], run)
    assert verdict.status == Status.FORGED and "forged" in verdict.message
    hidden = judge(check, [Case("c")], run, hidden=True)
    assert hidden.status == Status.FORGED and "child" not in hidden.message
    assert hidden.message == "the process running your code wrote messages of its own to the grader"


def test_a_verdict_blames_another_task_with_a_typed_record() -> None:
    from autograder.harness.api import Blocked
    from autograder.verdict import Blame

    problem = Blocked("2.2", "Mul.backward is wrong here")
    assert not isinstance(problem, str) and str(problem) == "Mul.backward is wrong here"
    check = Check("3.2", "x", lambda rng: [Case("c")], lambda sp: None, lambda c, v: problem)
    verdict = judge(check, [Case("c")], CheckRun(Status.RAN, results=[{"value": 1.0}]))
    assert verdict.status == Status.BLOCKED and verdict.blocked_by == "2.2"
    assert verdict.blame == Blame.VERDICT and verdict.message == "Mul.backward is wrong here"
    forged = Check(
        "3.2", "x", lambda rng: [Case("c")], lambda sp: None, lambda c, v: Blocked("9.9", "m")
    )
    verdict = judge(forged, [Case("c")], CheckRun(Status.RAN, results=[{"value": 1.0}]))
    assert verdict.status == Status.FAILED and verdict.blocked_by == ""  # no such task


# -- messages that name an exact relation ----------------------------------------------------


@pytest.mark.parametrize(
    ("received", "expected", "words"),
    [
        (2.0, 1.0, "exactly twice"),
        (0.25, 0.5, "exactly half"),
        (-3.0, 3.0, "exactly the negative"),
        (np.array([2.0, -4.0]), np.array([1.0, -2.0]), "exactly twice"),
        (np.array([[0.5], [1.5]]), np.array([[1.0], [3.0]]), "exactly half"),
    ],
)
def test_compare_names_an_exact_factor(received, expected, words: str) -> None:
    assert words in compare(received, expected, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize(
    ("received", "expected"),
    [(2.1, 1.0), (0.0, 0.0 + 1e-3), (np.array([2.0, -4.0]), np.array([1.0, -3.0])), (1.0, 0.0)],
)
def test_compare_names_no_factor_that_is_not_there(received, expected) -> None:
    assert "exactly" not in (compare(received, expected, rtol=1e-6, atol=1e-9) or "")

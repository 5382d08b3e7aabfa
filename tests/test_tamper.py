"""Issue 26's attacks on the grader, handed in for chapter 6 (task 6.10, clipping) as a
determined student would write them, and graded under bubblewrap and under the fallback:
each gets its honest score or is flagged for review (``ChapterResult.seen``), and honest
code — the reference, wrappers that change nothing, the libraries that touch frames — gets
full marks and no flag; and case 5, a submission replaying the stored expectations, graded
under a secret seed. Chapter 1's hostile batch is tests/test_hostile.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder import sandbox
from autograder.checking import check_chapter
from autograder.course import chapter
from autograder.status import Status
from tests.trees import SOLUTIONS, composite, copy_package, patch

# graded attacks under both confinements: the slow suite (make test-slow; .ci/run runs it)
pytestmark = pytest.mark.slow

PACKAGE, CLIP = "ch06_optim", "nn/utils/clip_grad.py"
CLIPPED = "        p.grad = Tensor._from_array(array_module(g).clip(g, -clip_value, clip_value))\n"
IN_PLACE = "        array_module(g).clip(g, -clip_value, clip_value, out=g)\n"  # the honest bug
TOP = "from ....ch02_tensor.tensor import Tensor\n"  # clip_grad.py's last import


def in_clip(code: str, *, honest: bool = False) -> tuple[str, str]:
    """``code`` at the start of clip_grad_value_'s loop body, before the reference's line
    (``honest``) or the honest bug."""
    body = "".join(f"        {line}\n" for line in code.strip("\n").split("\n"))
    return CLIPPED, body + (CLIPPED if honest else IN_PLACE)


def wrapped(name: str, module: str = "numpy") -> tuple[str, str]:
    """``module.name`` replaced at import by a wrapper that changes nothing."""
    return at_import(
        f"import {module} as _m\n_{name} = _m.{name}\n_m.{name} = lambda *a, **k: _{name}(*a, **k)"
    )


def at_import(code: str) -> tuple[str, str]:
    return TOP, TOP + code.strip("\n") + "\n"


# 2. wire.dumps replaced for one call and put back inside it: "written" reported as false
PATCH_DUMPS_ONCE = """
import sys
wire = sys.modules.get("autograder.harness.wire")
if wire is not None and not getattr(wire, "_swapped", False):
    honest = wire.dumps
    def dumps(data, _honest=honest):
        wire.dumps, wire._swapped = _honest, True
        if isinstance(data, dict) and "given" in data:
            data = dict(data, given=[None] * len(data["given"]))
        return _honest(data)
    wire.dumps = dumps
"""

# 3. a NumPy internal outside anything the grader names: every array_equal says "equal"
NUMPY_INTERNAL = """
import sys as _sys
import numpy as _np
_numeric = _sys.modules.get("numpy._core.numeric") or _sys.modules.get("numpy.core.numeric")
_honest_asarray, _one = _numeric.asarray, _np.zeros(())

def _asarray(*args, **kwargs):
    if _sys._getframe(1).f_code.co_name == "array_equal":
        return _one
    return _honest_asarray(*args, **kwargs)

_numeric.asarray = _asarray
"""

# 1. the grader's main thread reached, its plan read (the cases of every check to come)
MAIN_THREAD = """
import sys
for frame in sys._current_frames().values():
    while frame is not None:
        if "plan" in frame.f_locals:
            frame.f_locals["plan"]["checks"]
        frame = frame.f_back
"""

HONEST_LIBRARIES = """
import inspect, logging, traceback
import numpy as _np
logging.getLogger("clip").debug("clipping %s", g.shape)
inspect.stack()
traceback.format_stack()
_np.testing.assert_allclose(1.0, 1.0)
"""

# name: (the edits of clip_grad.py, 6.10 passes, what is flagged)
SUBMISSIONS = {
    "reference": ([], True, []),
    "honest bug": ([(CLIPPED, IN_PLACE)], False, []),
    "wire.dumps patched and put back": (  # the child never calls it: left replaced, named
        [in_clip(PATCH_DUMPS_ONCE)],
        False,
        ["replaced a grader function (autograder.harness.wire.dumps)"],
    ),
    "a NumPy internal replaced": ([at_import(NUMPY_INTERNAL), (CLIPPED, IN_PLACE)], False, []),
    "np.frombuffer wrapped": ([wrapped("frombuffer")], True, []),
    "np.array_equal wrapped": ([wrapped("array_equal")], True, []),
    "np.asarray wrapped (the programs call it)": (
        [wrapped("asarray")],
        True,
        ["replaced a grader function (numpy.asarray)"],
    ),
    "the grader's main thread read": (
        [in_clip(MAIN_THREAD)],
        False,
        ["read the grader's frames (sys._current_frames)"],
    ),
    "logging, inspect.stack, traceback, np.testing": (
        [in_clip(HONEST_LIBRARIES, honest=True)],
        True,
        [],
    ),
}


# Wrappers that change nothing, of what the child uses only before the import (np.frombuffer
# reads the plan), of what it no longer uses (json, base64: it keeps its own encoder), and of
# what the programs call (np.asarray, np.isnan): never a lost point; a flag only for the last.
HONEST_WRAPPERS = [
    ("frombuffer", "numpy"),
    ("array_equal", "numpy"),
    ("allclose", "numpy"),
    ("zeros", "numpy"),
    ("isnan", "numpy"),
    ("asarray", "numpy"),
    ("dumps", "json"),
    ("b64encode", "base64"),
    ("isclose", "math"),
]


@pytest.fixture(params=["bubblewrap", "fallback"])
def confinement(request: pytest.FixtureRequest) -> sandbox.Confinement:
    if request.param == "bubblewrap":
        return request.getfixturevalue("bubblewrap")  # skips, saying why, where it cannot
    return sandbox.confinement("fallback")


@pytest.mark.parametrize("name", list(SUBMISSIONS))
def test_each_attack_gets_its_honest_score_or_a_flag(
    tmp_path: Path, confinement: sandbox.Confinement, name: str
) -> None:
    edits, passes, flagged = SUBMISSIONS[name]
    package = copy_package(SOLUTIONS / PACKAGE, tmp_path / PACKAGE)
    for old, new in edits:
        patch(package / CLIP, old, new)
    result = check_chapter(
        chapter(6),
        composite(6, package),
        task_ids=["6.10"],
        hidden_modules=["autograder.hidden.ch06_optim"],
        confinement=confinement,
    )
    (task,) = result.tasks
    assert task.status == (Status.PASSED if passes else Status.FAILED), (name, task.status)
    assert result.seen == flagged, result.seen


@pytest.mark.parametrize(("name", "module"), HONEST_WRAPPERS)
def test_a_wrapper_that_changes_nothing_costs_nothing(
    tmp_path: Path, confinement: sandbox.Confinement, name: str, module: str
) -> None:
    """The reference with one function wrapped at import: full marks on 6.10, and at most a
    flag naming that function (when the programs call it, it is put back and named)."""
    package = copy_package(SOLUTIONS / PACKAGE, tmp_path / PACKAGE)
    patch(package / CLIP, *wrapped(name, module))
    result = check_chapter(
        chapter(6), composite(6, package), task_ids=["6.10"], confinement=confinement
    )
    assert result.tasks[0].status == Status.PASSED, result.tasks[0].status
    assert result.seen in ([], [f"replaced a grader function ({module}.{name})"]), result.seen


# -- 5. replaying stored results -------------------------------------------------------------

OPTIMIZER = "optim/optimizer.py"
STEP_LOST = (  # the honest bug: a resumed Adam starts its bias correction again
    '                name: value if name == "step" else _copy(value, like=p)\n',
    '                name: 0 if name == "step" else _copy(value, like=p)\n',
)
INIT = "        self.defaults = dict(defaults)\n"

# The submission carries the repository's stored expectations in a module of its own (both
# files are public: the hidden checks' ship with the grader's source) and, on the training
# run's first Optimizer(), reads that run's inputs from its frame, recomputes the grader's
# fingerprint of them and, where the table has it, swaps the program's ``host`` for one
# that hands back the stored losses and final parameters in the order the program asks,
# then puts ``host`` back after its last call, before the grader's watch looks.
REPLAY = """
import json as _json, hashlib as _hashlib, sys as _sys
_frame = _sys._getframe(1)
while _frame is not None and _frame.f_code.co_name != "training":
    _frame = _frame.f_back
if _frame is not None and "_replaying" not in _frame.f_globals:
    _wire = _sys.modules["autograder.harness.wire"]
    _code = _frame.f_code
    _inputs = {n: _frame.f_locals[n] for n in _code.co_varnames[1 : _code.co_argcount]}
    _program = _frame.f_globals["__name__"] + ":training"
    _key = _hashlib.sha256(_json.dumps(
        [_program, _json.loads(_wire.dumps(_inputs))], sort_keys=True, separators=(",", ":")
    ).encode()).hexdigest()
    from . import _carried
    for _text in _carried.STORED:
        _runs = _json.loads(_text)["runs"]
        if _key in _runs:
            _want = _wire.loads(_json.dumps(_runs[_key]["value"]))
            _space, _host, _stop = _frame.f_globals, _frame.f_globals["host"], _inputs["stop"]
            _order = [("loss", v) for v in _want["losses"][:_stop]] + [("own", None)] * 4
            _order += [("loss", v) for v in _want["lost"] + _want["losses"][_stop:]]
            _order += [("params", p) for p in _want["params"]]

            def _replay(value, _order=_order, _space=_space, _host=_host):
                kind, stored = _order.pop(0)
                if not _order:
                    _space["host"] = _host
                    del _space["_replaying"]
                return _host(value) if kind == "own" else _host(stored)

            _space["host"], _space["_replaying"] = _replay, True
"""


def _replaying(root: Path) -> Path:
    """Chapter 6's reference with the honest bug, and the replay at each Optimizer()."""
    from autograder import expectations

    package = copy_package(SOLUTIONS / PACKAGE, root / PACKAGE)
    patch(package / OPTIMIZER, *STEP_LOST)
    body = "".join(f"        {line}\n" if line else "\n" for line in REPLAY.strip().split("\n"))
    patch(package / OPTIMIZER, INIT, body + INIT)
    texts = [path.read_text(encoding="utf-8") for path in expectations.stored_paths(PACKAGE)]
    (package / OPTIMIZER).with_name("_carried.py").write_text(f"STORED = {texts!r}\n")
    return package


def test_replayed_stored_results_earn_nothing_under_a_secret_seed(
    tmp_path: Path, confinement: sandbox.Confinement, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Case 5: at the public seed the replay passes task 6.7's training runs, public and
    held out, that the honest bug fails (it works: this test is not vacuous), and its reading
    of frames is flagged; under a secret seed, ``make grade``'s default, no stored run is a
    run asked for, so every check of 6.7 ends as it does for the honest bug alone."""
    from autograder import expectations
    from autograder.checking import public_checks

    ch6 = chapter(6)
    modules = [*public_checks(ch6), "autograder.hidden.ch06_optim"]
    secret = 73_019_552_841_337
    monkeypatch.setattr(expectations, "_installed", {})  # this test's table, then none
    expectations.use(expectations.prepare(ch6, secret, modules, SOLUTIONS, tmp_path / "cache"))

    def grade(package: Path, seed: int) -> tuple[dict[str, Status], list[str]]:
        result = check_chapter(
            ch6,
            composite(6, package),
            task_ids=["6.7"],
            seed=seed,
            hidden_modules=modules[1:],
            confinement=confinement,
        )
        (task,) = result.tasks
        return {c.check.name: c.status for c in task.checks}, result.seen

    honest = copy_package(SOLUTIONS / PACKAGE, tmp_path / "honest" / PACKAGE)
    patch(honest / OPTIMIZER, *STEP_LOST)
    replay = _replaying(tmp_path / "replay")
    runs = [name for name in grade(honest, 0)[0] if name.startswith("a training run")]
    assert len(runs) == 2, runs  # the public run and the held-out one

    for seed in (0, secret):
        bug, bug_seen = grade(honest, seed)
        got, seen = grade(replay, seed)
        assert all(bug[name] == Status.FAILED for name in runs) and bug_seen == [], bug
        expected = {**bug, **{name: Status.PASSED for name in runs}} if seed == 0 else bug
        assert got == expected, (seed, got)
        assert seen and all(words.startswith("read the grader's frames") for words in seen)

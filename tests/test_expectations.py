"""``make expectations`` (autograder/expectations.py) and task 6.7's training run, the check
that needs it: the stored expectations are the reference's; a secret seed's are recomputed
from the reference in the grader's process and cached; the student release ships the public
ones and no solutions, and its own check uses them; the grade command and the Gradescope
zip grade chapter 6 with a secret seed; the verdict tells the resume's mistakes apart from
a correct rewrite."""

from __future__ import annotations

import copy
import csv
import json
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder import expectations
from autograder.checks.ch06_optim import training, training_program
from autograder.course import chapter
from tests.trees import REPO, SOLUTIONS, run_autograder, run_in

CH6 = chapter(6)
MODULES = ["autograder.checks.ch06_optim", "autograder.hidden.ch06_optim"]
STORED = REPO / "autograder" / "checks" / "ch06_optim" / expectations.FILE
HIDDEN = REPO / "autograder" / "hidden" / "ch06_optim" / expectations.FILE


def _training_checks(module: str) -> list:
    import importlib

    return [
        c for c in importlib.import_module(module).CHECKS if c.program is training_program.training
    ]


def test_the_stored_expectations_are_the_references() -> None:
    """What ``make expectations`` would write is what is stored (a stale file fails)."""
    wanted = expectations.recompute_stored(SOLUTIONS)
    assert {STORED, HIDDEN} <= set(wanted)
    stored = {p for _, p in expectations.stored_modules() if p.exists()}
    assert stored == set(wanted), "a stored file no check needs, or one not written"
    for path, runs in wanted.items():
        assert expectations.differs(expectations.stored_runs(path), runs) is None, path
    assert len(expectations.stored_runs(STORED)) == 3 == len(expectations.stored_runs(HIDDEN))


def _moved(runs: dict[str, dict], relative: float) -> dict[str, dict]:
    """A copy of a file's records with one stored loss moved by ``relative``."""
    runs = copy.deepcopy(runs)
    losses = runs[sorted(runs)[0]]["value"]["losses"]
    losses[-1] *= 1 + relative
    return runs


def test_a_value_moved_beyond_rounding_is_stale() -> None:
    """``differs`` tells a moved value (1e-9 relative) from another machine's rounding
    (1e-12): SAME_RTOL sits between."""
    runs = expectations.stored_runs(STORED)
    assert expectations.differs(runs, _moved(runs, 1e-9))
    assert expectations.differs(runs, _moved(runs, 1e-12)) is None


def _tree(root: Path, with_reference: bool) -> Path:
    """A copy of the stored public file where ``expectations.HERE`` can point (never the
    repository's own), with solutions/ beside it (a link to the reference) or without."""
    here = root / "autograder"
    (here / "checks" / "ch06_optim").mkdir(parents=True)
    (here / "checks" / "ch06_optim" / "__init__.py").write_text("")
    if with_reference:
        (root / "solutions").symlink_to(SOLUTIONS, target_is_directory=True)
    return here


def test_check_reports_a_stale_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    here = _tree(tmp_path, with_reference=True)
    copied = here / "checks" / "ch06_optim" / expectations.FILE
    data = json.loads(STORED.read_text(encoding="utf-8"))
    copied.write_text(json.dumps({**data, "runs": _moved(data["runs"], 1e-9)}))
    before = copied.read_bytes()
    monkeypatch.setattr(expectations, "HERE", here)
    assert expectations.main(["--check"]) != 0
    assert "stale: autograder/checks/ch06_optim/expectations.json" in capsys.readouterr().out
    assert copied.read_bytes() == before  # --check only reports


def test_without_solutions_a_clear_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A student's release has no solutions/: ``make expectations`` says so; a check whose
    stored expectation is missing tells the student to take the latest release."""
    monkeypatch.setattr(expectations, "HERE", _tree(tmp_path, with_reference=False))
    for argv in ([], ["--check"]):
        assert expectations.main(argv) == 2
        err = capsys.readouterr().err
        assert "solutions is not here" in err and "make update" in err, err
    check = _training_checks(MODULES[0])[0]
    with pytest.raises(expectations.MissingExpectation, match="missing or out of date") as exc:
        check.make_cases(0)
    assert "make update" in str(exc.value) and "make expectations" not in str(exc.value)


def test_a_zip_with_another_seed_says_to_rebuild(tmp_path: Path) -> None:
    """A Gradescope zip whose seed.txt is not the one its expectations/ were built for."""
    cache = tmp_path / "expectations"
    cache.mkdir()
    (cache / "ch06_optim-0123456789abcdef.json").write_text("{}")  # the seed it was built for
    (tmp_path / "reference").mkdir()  # the zip's: no chapter 6
    with pytest.raises(expectations.MissingExpectation) as exc:
        expectations.prepare(CH6, 4_242_424_242, MODULES, tmp_path / "reference", cache)
    message = str(exc.value)
    assert "another seed's runs" in message, message
    assert "GRADESCOPE_ARGS=--seed-file seed.txt" in message, message


def test_stored_values_are_plain_data() -> None:
    for path in (STORED, HIDDEN):
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["format"] == expectations.FORMAT
        for entry in data["runs"].values():
            assert entry["program"] == "autograder.checks.ch06_optim.training_program:training"
            assert set(entry["value"]) == {"losses", "lost", "params"}


def test_the_checks_are_registered_public_and_hidden() -> None:
    assert [c.task for c in _training_checks(MODULES[0])] == ["6.7"]
    assert [c.task for c in _training_checks(MODULES[1])] == ["6.7"]

    def number(task: str) -> tuple[int, ...]:
        return tuple(map(int, task.split(".")))

    assert all(number(t) < (6, 7) for c in _training_checks(MODULES[0]) for t in c.requires)


def test_a_secret_seed_is_recomputed_from_the_reference_and_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert expectations.prepare(CH6, 0, MODULES, SOLUTIONS, tmp_path) is None  # all stored
    seed = 8_123_456_789_012
    check = _training_checks(MODULES[0])[0]
    with pytest.raises(expectations.MissingExpectation, match="public seed"):
        check.make_cases(seed)  # student mode cannot grade a secret seed
    path = expectations.prepare(CH6, seed, MODULES, SOLUTIONS, tmp_path)
    assert path is not None and str(seed) not in path.name
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # nothing half-written left
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # the owner's alone (docs/instructors.md)
    table = expectations.load(path)
    public = set(expectations.stored_runs(STORED)) | set(expectations.stored_runs(HIDDEN))
    assert len(table) == len(public) and not set(table) & public  # other cases, all computed

    def never(*args: object) -> None:
        raise AssertionError("computed again")

    compute = expectations.compute
    monkeypatch.setattr(expectations, "compute", never)
    monkeypatch.setattr(expectations, "_prepared", {})  # as a new process finds it
    assert expectations.prepare(CH6, seed, MODULES, SOLUTIONS, tmp_path) == path  # cached
    stale = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**stale, "reference": "another reference's hash"}))
    monkeypatch.setattr(expectations, "compute", compute)
    monkeypatch.setattr(expectations, "_prepared", {})
    assert expectations.prepare(CH6, seed, MODULES, SOLUTIONS, tmp_path) == path
    assert json.loads(path.read_text(encoding="utf-8")) == stale  # computed again
    expectations.use(path)
    secret, public_cases = check.make_cases(seed), check.make_cases(0)
    assert [c.label for c in secret] != [c.label for c in public_cases] or any(
        (a.inputs["x"] != b.inputs["x"]).any() for a, b in zip(secret, public_cases)
    )
    assert all(set(c.expected) == {"losses", "lost", "params"} for c in secret)
    # a case's expectation is the reference's run of it (in this process, the same numbers)
    import solutions.ch06_optim as sp

    case = secret[1]
    assert training.training_verdict(case, training_program.training(sp, **case.inputs)) is None


# -- the verdict -----------------------------------------------------------------------------


def _relative(got: object, want: object) -> float:
    """The largest |got − want| / |want| over every number (want 0: |got − want|)."""
    import numpy as np

    g = np.concatenate([np.ravel(np.asarray(a, dtype=float)) for a in got])
    w = np.concatenate([np.ravel(np.asarray(a, dtype=float)) for a in want])
    return float(np.max(np.abs(g - w) / np.where(w == 0, 1.0, np.abs(w))))


def _deviation(case: object, got: dict) -> tuple[float, float]:
    """A run's distance from the expectation: the first resumed step's loss (losses[stop] is
    taken before that step, so losses[stop + 1]) and the largest over all losses and the
    final parameters, both relative."""
    want, stop = case.expected, case.inputs["stop"]
    first = _relative([got["losses"][stop + 1]], [want["losses"][stop + 1]])
    return first, max(
        _relative([got["losses"]], [want["losses"]]), _relative(got["params"], want["params"])
    )


def _runs_with(monkeypatch: pytest.MonkeyPatch, attr: str, fn: object) -> list:
    import solutions.ch06_optim as sp

    cases = _training_checks(MODULES[0])[0].make_cases(0)
    with monkeypatch.context() as m:
        if fn is not None:
            m.setattr(sp.optim.Optimizer, attr, fn)
        return [(c, training_program.training(sp, **c.inputs)) for c in cases]


def test_the_verdict_names_the_resumes_mistakes_and_passes_a_correct_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import solutions.ch06_optim as sp

    opt = sp.optim.Optimizer
    save, load = opt.state_dict, opt.load_state_dict

    def step_lost(self, state):
        state = copy.deepcopy(state)
        for saved in state["state"].values():
            if "step" in saved:
                saved["step"] = 0
        load(self, state)

    def shared(self):  # the snapshot holds the live state tensors
        out, index = save(self), {}
        for group in self.param_groups:
            for p in group["params"]:
                index.setdefault(id(p), (len(index), p))
        out["state"] = {i: self.state[p] for i, p in index.values() if p in self.state}
        return out

    def options_ignored(self, state):
        state = copy.deepcopy(state)
        for group, saved in zip(self.param_groups, state["param_groups"]):
            saved.update({k: v for k, v in group.items() if k != "params"})
        load(self, state)

    correct = _runs_with(monkeypatch, "", None)
    assert all(training.training_verdict(c, got) is None for c, got in correct)
    for attr, fn in (
        ("load_state_dict", step_lost),
        ("state_dict", shared),
        ("load_state_dict", options_ignored),
    ):
        runs = _runs_with(monkeypatch, attr, fn)
        verdicts = [training.training_verdict(c, got) for c, got in runs]
        assert any(v and "after load_state_dict" in v for v in verdicts), (fn.__name__, verdicts)
        # the gap training.RTOL sits in: in every case a mistake is caught in, it moves the
        # first resumed loss by 10x the tolerance or more (measured: 1.5e-3 to 8e-2)
        moved = [_deviation(c, got)[0] for (c, got), v in zip(runs, verdicts) if v]
        assert moved and min(moved) >= 10 * training.RTOL, (fn.__name__, moved)


def test_a_correct_rewrite_is_within_the_tolerance(monkeypatch: pytest.MonkeyPatch) -> None:
    """Adam's update written another way (√(v/(1−β₂ᵗ)) and m/(1−β₁ᵗ) first): rounding only."""
    import numpy as np

    import solutions.ch06_optim as sp

    zeros_like, calls = sp.optim.optimizer.zeros_like, []

    def step(self, closure=None):
        calls.append(1)
        for group in self.param_groups:
            (b1, b2), lr, eps = group["betas"], group["lr"], group["eps"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state.update(step=0, exp_avg=zeros_like(p), exp_avg_sq=zeros_like(p))
                    if group["amsgrad"]:
                        state["max_exp_avg_sq"] = zeros_like(p)
                state["step"] += 1
                t, g = state["step"], self._weight_decay(p, p.grad.data, group)
                m, v = state["exp_avg"].data, state["exp_avg_sq"].data
                m[...] = b1 * m + (1 - b1) * g
                v[...] = b2 * v + (1 - b2) * g**2
                if group["amsgrad"]:
                    np.maximum(state["max_exp_avg_sq"].data, v, out=state["max_exp_avg_sq"].data)
                    v = state["max_exp_avg_sq"].data
                p.data -= lr * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + eps)

    monkeypatch.setattr(sp.optim.Adam, "step", step)
    runs = _runs_with(monkeypatch, "", None)
    for case, got in runs:
        assert training.training_verdict(case, got) is None
    assert calls  # the rewrite ran
    largest = max(_deviation(case, got)[1] for case, got in runs)
    # rounding only (measured: ~2e-14), far inside the tolerance: RTOL sits in the gap
    assert largest <= training.RTOL / 100, largest


# -- where they travel -----------------------------------------------------------------------


def test_the_release_ships_the_public_expectations_and_checks_with_them(tmp_path: Path) -> None:
    from tools import release

    built = tmp_path / "release"
    release.release(built)
    assert not (built / "solutions").exists() and not (built / "autograder" / "hidden").exists()
    shipped = built / STORED.relative_to(REPO)
    assert shipped.read_bytes() == STORED.read_bytes()
    for package in ("ch01_value", "ch02_tensor", "ch03_broadcast", "ch04_backward", "ch05_nn"):
        shutil.rmtree(built / "chapters" / package)
        shutil.copytree(SOLUTIONS / package, built / "chapters" / package)
    out = run_in(built, sys.executable, "-m", "autograder", "check", "6", "--task", "6.7")
    assert "Traceback" not in out.stdout + out.stderr, out.stdout + out.stderr
    assert out.returncode == 1 and "Not started: 6.7" in out.stdout  # its stubs, judged
    shutil.rmtree(built / "chapters" / "ch06_optim")
    shutil.copytree(SOLUTIONS / "ch06_optim", built / "chapters" / "ch06_optim")
    out = run_in(built, sys.executable, "-m", "autograder", "check", "6", "--task", "6.7")
    assert out.returncode == 0, out.stdout + out.stderr  # the reference passes, no solutions/


def _submission(root: Path) -> Path:
    shutil.copytree(
        SOLUTIONS / "ch06_optim",
        root / "sub" / "chapters" / "ch06_optim",
        ignore=shutil.ignore_patterns("__pycache__", "*.ipynb"),
    )
    return root / "sub"


def _task_points(csv_file: Path) -> dict[str, float]:
    with csv_file.open(encoding="utf-8") as f:
        row = next(csv.DictReader(f))
    return {k.split()[1]: float(v) for k, v in row.items() if k.startswith("task ")}


def test_the_grade_command_recomputes_a_secret_seeds_expectations_once(
    tmp_path: Path, grade_args: list[str]
) -> None:
    seed, out = tmp_path / "seed.txt", tmp_path / "grades"
    seed.write_text("90210777123\n")
    command = [sys.executable, "-m", "autograder", "grade", "6", str(_submission(tmp_path))]
    command += ["--single", "--out", str(out), "--seed-file", str(seed), *grade_args]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    cached = list((out / "expectations").iterdir())
    assert len(cached) == 1 and "90210777123" not in cached[0].read_text()
    stamp = cached[0].stat().st_mtime_ns
    again = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and cached[0].stat().st_mtime_ns == stamp  # reused
    points = _task_points(out / "grades.csv")
    assert points["6.7"] == CH6.task("6.7").points, (points, (out / "feedback").iterdir())


def test_gradescope_without_the_reference_of_chapter_6_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tools import gradescope

    seed = tmp_path / "seed.txt"
    seed.write_text("5550123456789\n")
    monkeypatch.setattr(gradescope, "REFERENCE", tmp_path / "solutions")  # no ch06_optim
    out = tmp_path / "ag.zip"
    assert gradescope.main(["6", "--seed-file", str(seed), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "the reference of chapter 6" in err and "Traceback" not in err, err
    assert not out.exists()


def test_gradescope_zip_grades_chapter_6_with_a_secret_seed(
    tmp_path: Path, auto_refusal: str
) -> None:
    from tools import gradescope

    archive = gradescope.build(6, tmp_path / "ag.zip", seed=5550123456789)
    with zipfile.ZipFile(archive) as zf:
        names = zf.namelist()
        root = tmp_path / "autograder"
        zf.extractall(root / "source")
    assert not any(n.startswith("course/reference/ch06_optim") for n in names)
    assert len([n for n in names if n.startswith("expectations/")]) == 1
    assert any(n.endswith("checks/ch06_optim/expectations.json") for n in names)
    shutil.copytree(SOLUTIONS / "ch06_optim", root / "submission" / "ch06_optim")
    done = run_autograder(root)
    if auto_refusal:
        pytest.skip(f"run_autograder refuses here, rightly: {auto_refusal}")
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    (resume,) = [t for t in results["tests"] if t["name"].startswith("Task 6.7 ")]
    assert resume["score"] == resume["max_score"] == CH6.task("6.7").points, resume
    assert not (root / "grades" / "expectations").exists()  # the zip's own were used

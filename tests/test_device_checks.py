"""Chapters 2–6's checks on a device (issue 16): ``check N --device sim`` (``make chapter-N
DEVICE=sim``) runs a chapter's programs with their tensors on the simulated device — the
child sets chapter 7's ``set_default_device`` before any program runs — and the reference
passes every public and hidden check there, as it does on the CPU (the rest of the suite).
Parametrised by device: ``"sim"`` runs everywhere; ``"cuda"`` is marked ``gpu`` and skips,
saying why, without a usable GPU.

A probe check (``tests/device_probe.py``) runs after each chapter's public checks in the
same child and shows that they really ran on the device: a new tensor lands there, and (on
"sim") the simulated device counted the copies the programs made. A device that cannot be
set up — chapter 7 not done, no chapter 7, no GPU — is one sentence before any check runs.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from autograder import __main__ as cli
from autograder import report
from autograder.checking import DeviceSetupError, check_chapter, public_checks
from autograder.course import CHAPTERS, chapter
from autograder.harness.api import Case, Check
from support import device_bench
from tests import device_probe
from tests.trees import REPO, SOLUTIONS, broken_package, composite, write_stubs

WHY_NO_GPU = device_bench.why_no_gpu()
DEVICES = [
    pytest.param("sim", id="sim"),
    pytest.param(
        "cuda",
        id="cuda",
        marks=[
            pytest.mark.gpu,
            pytest.mark.skipif(WHY_NO_GPU is not None, reason=f"no usable GPU: {WHY_NO_GPU}"),
        ],
    ),
]
REFERENCE = {
    ch.package: SOLUTIONS / ch.package for ch in CHAPTERS if (SOLUTIONS / ch.package).is_dir()
}
PROBE = "tests.device_probe"


def _ran_there(device: str, checks_before: int):
    """The probe's verdict: a new tensor is on ``device``; on "sim", the programs before it
    made at least one copy to the device and one back per check (their inputs went there,
    their results came back through ``.get()``)."""

    def verdict(case: Case, data: dict) -> str | None:
        if data["device"].split(":")[0] != device:
            return f"a new tensor went to {data['device']}, not to {device}"
        if device == "sim" and min(data["to_device"], data["to_host"]) < checks_before:
            return f"only {data['to_device']} copies to the device, {data['to_host']} back"
        return None

    return verdict


def on_device(number: int, device: str, monkeypatch: pytest.MonkeyPatch, seed: int = 0):
    """Chapter ``number``'s public checks, the probe, and its hidden checks, on the
    reference (every chapter, chapter 7 included) with tensors on ``device``."""
    ch = chapter(number)
    public = public_checks(ch)
    before = len(__import__(public[0], fromlist=["CHECKS"]).CHECKS)
    probe = Check(
        task=ch.tasks[0].id,
        name=f"the checks before this one ran on {device}",
        cases=lambda rng: [Case("where a new tensor goes; the copies so far")],
        program=device_probe.where,
        verdict=_ran_there(device, before),
    )
    monkeypatch.setattr(device_probe, "CHECKS", [probe])
    return check_chapter(
        ch,
        REFERENCE,
        check_modules=[*public, PROBE],
        hidden_modules=[f"autograder.hidden.{ch.package}"],
        seed=seed,
        device=device,
    )


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("number", [2, 3, 4, 5, 6])
def test_the_reference_passes_every_check_on_the_device(
    number: int, device: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = on_device(number, device, monkeypatch)
    assert result.passed and result.points == result.max_points, report.chapter_report(result)
    assert result.device == device
    probes = [c for t in result.tasks for c in t.checks if c.check.program is device_probe.where]
    assert len(probes) == 1 and probes[0].passed, probes[0].message


def test_numpy_on_a_devices_array_passes_on_the_cpu_and_fails_on_the_device(
    tmp_path: Path,
) -> None:
    """What the device run is for: Adagrad's step taking the square root with NumPy's own
    function computes the right numbers on the CPU, and fails on the simulated device,
    which refuses NumPy's functions on its arrays, at the line that calls it."""
    edit = ("array_module(s).sqrt(s)", '__import__("numpy").sqrt(s)')
    package = broken_package(6, tmp_path, "optim/adagrad.py", edit, "6.3")
    packages = {**REFERENCE, "ch06_optim": package}
    on_cpu = check_chapter(chapter(6), packages, task_ids=["6.3"])
    assert on_cpu.passed, report.chapter_report(on_cpu)
    on_sim = check_chapter(chapter(6), packages, task_ids=["6.3"], device="sim")
    (task,) = on_sim.tasks
    failing = [c for c in task.checks if not c.passed]
    assert failing and not task.passed, report.chapter_report(on_sim)
    for verdict in failing:
        assert verdict.raised == "TypeError" and "optim/adagrad.py" in verdict.where, verdict


def test_the_report_and_the_command_name_the_device(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["check", "3", "--impl", "solutions", "--device", "sim", "--task", "3.1"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "checked: solutions/ch03_broadcast, on the device sim" in out
    makefile = (REPO / "Makefile").read_text()
    assert "check $*$(if $(DEVICE), --device $(DEVICE))" in makefile


def test_programs_bring_arrays_back_with_host_never_numpy_asarray() -> None:
    """A device's array refuses ``numpy.asarray``: chapters 2–6's programs turn a tensor's
    data into NumPy with their ``host()`` (``.get()`` on a device), never NumPy's own."""
    files = sorted((REPO / "autograder" / "checks").glob("ch0[2-6]*/*program*.py"))
    assert len(files) >= 6
    pattern = re.compile(r"np\.(asarray|array|ascontiguousarray)\([^)]*\.data\b")
    for path in files:
        found = pattern.findall(path.read_text())
        assert not found, f"{path.relative_to(REPO)}: NumPy on a tensor's data; use host()"


# -- a device that cannot be set up: one sentence, before any check -----------------------------


def test_chapter_7_not_done_is_one_sentence(tmp_path: Path) -> None:
    packages = composite(2, SOLUTIONS / "ch02_tensor")  # stubs above chapter 2: 7 too
    with pytest.raises(DeviceSetupError) as caught:
        check_chapter(chapter(2), packages, task_ids=["2.1"], device="sim")
    message = str(caught.value)
    assert "checking on the device 'sim' needs chapter 7's device layer" in message
    assert "is not done yet" in message and "Traceback" not in message


def test_no_chapter_7_in_the_tree_is_one_sentence() -> None:
    packages = {k: v for k, v in REFERENCE.items() if k != "ch07_device"}
    with pytest.raises(DeviceSetupError, match=r"needs chapter 7 \(ch07_device\), and the tree"):
        check_chapter(chapter(2), packages, task_ids=["2.1"], device="sim")


@pytest.mark.skipif(WHY_NO_GPU is None, reason="this machine has a usable GPU")
def test_cuda_without_a_gpu_is_one_sentence() -> None:
    with pytest.raises(DeviceSetupError) as caught:
        check_chapter(chapter(2), REFERENCE, task_ids=["2.1"], device="cuda")
    assert "checking on the device 'cuda' could not start" in str(caught.value)
    assert "is not available here" in str(caught.value)


def test_a_students_tree_without_chapter_7_done_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Student mode: the learner's own chapters/ (fresh stubs here), `make chapter-2
    DEVICE=sim` before chapter 7 is done: exit 2 and one line, no traceback."""
    write_stubs(tmp_path / "chapters")
    monkeypatch.setattr(cli.student, "check", functools.partial(cli.student.check, repo=tmp_path))
    code = cli.main(["check", "2", "--impl", "chapters", "--device", "sim"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error: checking on the device 'sim' needs chapter 7") and "\n" == err[-1]
    assert err.count("\n") == 1 and "Traceback" not in err


def test_a_device_is_for_chapters_2_to_6(capsys: pytest.CaptureFixture[str]) -> None:
    for number in ("1", "7"):
        assert cli.main(["check", number, "--impl", "solutions", "--device", "sim"]) == 2
        assert "chapters 2" in capsys.readouterr().err

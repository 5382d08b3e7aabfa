"""The scripts learners meet first (``support/tutorials/``, issue 27) run on the last chapter
with their one line ``import torch`` swapped for ``import solutions.ch07_device as torch``.

Each script's ``main(seed=0)`` returns its numbers by name. Those that do not depend on
random draws (the script's ``EXACT``: shapes, counts, gradients of fixed inputs) must agree
with PyTorch's seed-0 run to 1e-6 relative; every other number must lie inside the band
that PyTorch's own runs over 8 seeds set (``support/tutorials/bands.json``, written by
``make tutorial-bands``; the margin is stated in ``tools/tutorial_bands.py``), so this needs
no PyTorch. A script whose ``IN_PLACE`` gives a reason waits on in-place semantics (issue
28): it is an expected failure, strictly, so it fails this suite once it passes.

With PyTorch installed, one more test runs each script once with PyTorch (seed 0) and checks
that the stored EXACT numbers are PyTorch's and that its other numbers lie in their bands
(recomputing all 8 seeds is ``make tutorial-bands``'s job: minutes, not a test's).
"""

from __future__ import annotations

import math

import pytest

from tools import tutorial_bands as tb

pytestmark = pytest.mark.slow

SCRIPTS = tb.scripts()
STORED = tb.stored()


def _params() -> list:
    params = []
    for path in SCRIPTS:
        _, in_place = tb.constants(path)
        marks = [pytest.mark.xfail(strict=True, reason=in_place)] if in_place else []
        params.append(pytest.param(path, id=path.stem, marks=marks))
    return params


def judge(path, numbers: dict[str, float]) -> list[str]:
    """What is wrong with a run's numbers against the stored record (empty: nothing)."""
    if path.stem not in STORED:
        return [f"no record of {path.stem} in {tb.BANDS.name}: run make tutorial-bands"]
    record = STORED[path.stem]
    exact, bands = record["exact"], record["bands"]
    problems = []
    expected_names = set(exact) | set(bands)
    if set(numbers) != expected_names:
        problems.append(
            f"names differ: missing {sorted(expected_names - set(numbers))}, "
            f"unexpected {sorted(set(numbers) - expected_names)}"
        )
    for name, want in exact.items():
        got = numbers.get(name)
        if got is None or not math.isclose(got, want, rel_tol=tb.EXACT_RTOL, abs_tol=tb.EXACT_ATOL):
            problems.append(f"{name}: {got!r}, PyTorch gives {want!r} (exact)")
    for name, (lo, hi) in bands.items():
        got = numbers.get(name)
        if got is None or not lo <= got <= hi:
            problems.append(f"{name}: {got!r} outside PyTorch's band [{lo!r}, {hi!r}]")
    return problems


def test_every_script_has_a_record() -> None:
    """bands.json holds a record for each script and none for a script that is gone; each
    script has one ``import torch`` line, a ``main``, and its EXACT names recorded."""
    assert SCRIPTS, "no tutorial scripts found"
    assert sorted(STORED) == sorted(p.stem for p in SCRIPTS), "run make tutorial-bands"
    for path in SCRIPTS:
        source = path.read_text()
        assert source.split("\n").count(tb.TORCH_LINE) == 1, path.name
        assert "\ndef main(seed: int = 0) -> dict[str, float]:" in source, path.name
        assert "torch.manual_seed(seed)" in source, path.name
        imports = [line for line in source.split("\n") if line.startswith(("import ", "from "))]
        assert [line for line in imports if "torch" in line] == [tb.TORCH_LINE], path.name
        assert not [line for line in imports if "solutions" in line or "chapters" in line]
        exact, _ = tb.constants(path)
        assert set(STORED[path.stem]["exact"]) == exact, f"{path.name}: run make tutorial-bands"
        assert STORED[path.stem]["seeds"] >= tb.MIN_SEEDS


def test_the_judge_can_fail() -> None:
    """A record's own numbers pass; one moved past a band's edge or off an exact value
    fails."""
    path = SCRIPTS[0]
    record = STORED[path.stem]
    inside = dict(record["exact"]) | {n: (lo + hi) / 2 for n, (lo, hi) in record["bands"].items()}
    assert judge(path, inside) == []
    for name, (lo, hi) in record["bands"].items():
        assert judge(path, inside | {name: hi + 1e-9 * max(1, abs(hi))})
        assert judge(path, inside | {name: lo - 1e-9 * max(1, abs(lo))})
    for name, value in record["exact"].items():
        assert judge(path, inside | {name: value + 1e-5 * max(1, abs(value))})
    assert judge(path, {n: v for n, v in inside.items() if n != next(iter(inside))})


@pytest.mark.parametrize("path", _params())
def test_swapped_run_agrees(path) -> None:
    """The script with ``import solutions.ch07_device as torch``, seed 0."""
    (numbers,) = tb.run(path, tb.SPARROW_LINE, [0])
    problems = judge(path, numbers)
    assert not problems, f"{path.name} on Sparrow:\n" + "\n".join(problems)


@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem) for p in SCRIPTS])
def test_stored_numbers_are_pytorchs(path) -> None:
    """PyTorch's seed-0 run: its EXACT numbers are the stored ones, its others inside their
    bands (the bands were made from that run and seven more)."""
    pytest.importorskip("torch")
    (numbers,) = tb.run(path, tb.TORCH_LINE, [0])
    problems = judge(path, numbers)
    assert not problems, f"{path.name} on PyTorch:\n" + "\n".join(problems)

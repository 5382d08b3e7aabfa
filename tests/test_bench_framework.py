"""The framework benchmark measures the same work in every framework (no timings here).

The MLP step of Sparrow, of the hand-written NumPy floor and of PyTorch must compute the same
losses, step after step: from the same weights, the second loss agrees only if the first
step's gradients did, so a wrong hand-written backward (or a Sparrow bug) would make the
ratios compare different work. The same holds for chapter 5's nn step and for chapter 6's
capstone epoch (every step's loss, over two epochs of Adam); and the DataLoaders' epochs must
give every item once, in full batches (but the last). One test runs the whole report at a
tiny size and reads the capstone's ratios and goals from what it prints.
"""

from __future__ import annotations

import pytest

from autograder import bench_framework as bench

STEPS = 3


def losses(step) -> list[float]:
    return [step() for _ in range(STEPS)]


def test_sparrow_and_the_numpy_floor_train_alike() -> None:
    sp = bench.load_sparrow("solutions")
    data = bench.mlp_data(seed=1)
    ours, floor = losses(bench.mlp_sparrow(sp, data)), losses(bench.mlp_numpy(data))
    assert ours[0] > ours[-1]  # it learns: SGD on one batch lowers the loss
    bench.agree_on_losses({"Sparrow": ours, "NumPy": floor})


def test_pytorch_trains_alike() -> None:
    torch = pytest.importorskip("torch")
    sp = bench.load_sparrow("solutions")
    data = bench.mlp_data(seed=2)
    theirs, ours = losses(bench.mlp_torch(torch, data)), losses(bench.mlp_sparrow(sp, data))
    bench.agree_on_losses({"PyTorch": theirs, "Sparrow": ours})


def test_a_disagreement_after_the_first_step_is_caught() -> None:
    floor = losses(bench.mlp_numpy(bench.mlp_data(seed=3)))
    off = [floor[0], *(loss * 1.01 for loss in floor[1:])]  # as a wrong first gradient would
    with pytest.raises(AssertionError, match="disagree on loss 2"):
        bench.agree_on_losses({"NumPy": floor, "other": off})


def test_the_chain_runs_and_times_each_part() -> None:
    sp = bench.load_sparrow("solutions")
    for run in (lambda n: bench.chain_sparrow(sp, n), bench.chain_numpy):
        timing = bench.time_chain(run, 200, repeats=1)
        assert set(timing) == {"forward", "backward", "gc"}
        assert timing["forward"] > 0 and timing["backward"] > 0 and timing["gc"] >= 0


def test_the_nn_steps_train_alike() -> None:
    """Chapter 5's step (nn.Linear's (out, in) weights, F.cross_entropy) and the floor in
    that layout compute the chapter-4 step's losses: the same weights, the same model."""
    sp = bench.load_sparrow("solutions", nn=True)
    data = bench.mlp_data(seed=4)
    ours = losses(bench.nn_sparrow(sp, data))
    assert ours[0] > ours[-1]
    floor = losses(bench.mlp_numpy(data, nn_layout=True))
    bench.agree_on_losses({"nn": ours, "NumPy": floor, "MLP": losses(bench.mlp_numpy(data))})


def test_pytorch_nn_trains_alike() -> None:
    torch = pytest.importorskip("torch")
    sp = bench.load_sparrow("solutions", nn=True)
    data = bench.mlp_data(seed=5)
    theirs, ours = losses(bench.nn_torch(torch, data)), losses(bench.nn_sparrow(sp, data))
    bench.agree_on_losses({"PyTorch": theirs, "Sparrow": ours})


def test_each_loader_gives_every_item_once_per_epoch() -> None:
    sp = bench.load_sparrow("solutions", nn=True)
    data = bench.loader_data(seed=6)
    ours, floor = bench.loader_sparrow(sp, data), bench.loader_numpy(data)
    first = ours()
    expected = [63, 4000, int(data["y"].sum()), float(data["x"].sum(dtype=float))]
    assert first[:3] == expected[:3] and first[3] == pytest.approx(expected[3], rel=1e-9)
    bench.agree_on_epochs({"Sparrow": first, "NumPy": floor(), "again": ours()})


def test_pytorch_loader_gives_the_same_epoch() -> None:
    torch = pytest.importorskip("torch")
    data = bench.loader_data(seed=6)
    theirs, floor = bench.loader_torch(torch, data)(), bench.loader_numpy(data)()
    bench.agree_on_epochs({"PyTorch": theirs, "NumPy": floor})


def test_epochs_that_lose_an_item_are_caught() -> None:
    good = bench.loader_numpy(bench.loader_data(seed=7))()
    with pytest.raises(AssertionError, match="epochs disagree"):
        bench.agree_on_epochs({"NumPy": good, "other": [good[0], good[1] - 1, *good[2:]]})


def test_an_unfinished_chapter_five_is_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """A student's chapters/ with chapter 4 done still gets (a) and (b); (c), (d) are skipped."""

    def unfinished(workload, framework, args):
        raise RuntimeError("... NotImplementedError: task 5.2")

    monkeypatch.setattr(bench, "run_child", unfinished)
    assert bench.chapter_five(["Sparrow", "NumPy"], None) == ({}, {})


ITEMS = 200  # the capstone's tiny epoch: 4 steps (3 of 64 images, one of 8)


def epoch_losses(epoch) -> list[float]:
    """Two epochs' losses: the second starts from the first's weights and Adam state."""
    return epoch(bench.no_tick) + epoch(bench.no_tick)


def test_the_capstone_epochs_train_alike() -> None:
    """Sparrow's capstone (chapter 6's Adam, F.cross_entropy, a shuffling DataLoader) and the
    floor (by hand, Adam in place) shuffle alike and agree on every step's loss."""
    sp = bench.load_sparrow("solutions", optim=True)
    data = bench.capstone_data(ITEMS)
    ours = epoch_losses(bench.epoch_sparrow(sp, data))
    assert len(ours) == 2 * 4 and ours[-1] < ours[0]  # it learns
    bench.agree_on_losses({"Sparrow": ours, "NumPy": epoch_losses(bench.epoch_numpy(data))})


def test_pytorch_capstone_trains_alike() -> None:
    torch = pytest.importorskip("torch")
    sp = bench.load_sparrow("solutions", optim=True)
    data = bench.capstone_data(ITEMS)
    theirs = epoch_losses(bench.epoch_torch(torch, data))
    bench.agree_on_losses(
        {"PyTorch": theirs, "Sparrow": epoch_losses(bench.epoch_sparrow(sp, data))}
    )


def test_the_phase_clock_splits_every_step() -> None:
    epoch = bench.epoch_numpy(bench.capstone_data(ITEMS))
    assert bench.run_epoch(epoch, "epoch", 4) > 0
    phases = bench.run_epoch(epoch, "phases", 4)
    assert set(phases) == set(bench.PHASES) and all(s > 0 for s in phases.values())


@pytest.mark.slow  # a training run, end to end (the slow suite; .ci/run runs it)
def test_a_tiny_run_prints_the_capstone_and_its_goals(capsys: pytest.CaptureFixture) -> None:
    """The whole report, every part in its own process, at a tiny size (~20 s)."""
    tiny = ["--nodes", "200", "--steps", "2", "--repeats", "1", "--items", str(ITEMS)]
    tiny += ["--rounds", "2"]
    assert bench.main([*tiny, "--impl", "solutions"]) == 0
    out = capsys.readouterr().out
    assert f"(e) the capstone: one epoch of Adam, {ITEMS} MNIST-5k images" in out
    refs = ["NumPy"] + (["PyTorch"] if bench.has_torch() else [])
    for f in ["Sparrow", *refs]:
        assert f"{f}, one epoch" in out
    for ref, goal in (("PyTorch", bench.MLP_GOAL_TORCH), ("NumPy", bench.MLP_GOAL_NUMPY)):
        lines = [line for line in out.splitlines() if f"capstone epoch ≤ {goal}× {ref}" in line]
        assert len(lines) == 1
        if ref in refs:
            assert lines[0].endswith(("met", "MISSED")), lines[0]


def test_an_unfinished_chapter_six_is_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    class Unfinished:
        def __init__(self, workload, framework, args) -> None:
            self.closed = False

        def ask(self, line=None):
            raise RuntimeError("... NotImplementedError: task 6.5")

        def close(self) -> None:
            self.closed = True

    monkeypatch.setattr(bench, "Child", Unfinished)
    assert bench.capstone(["Sparrow", "NumPy"], None) == {}

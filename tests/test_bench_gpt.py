"""``autograder/bench_gpt.py`` (``make bench PART=gpt``) and the device bench's Transformer
row (``support/gpt_device_bench.py``): what they time is the work they say, at tiny sizes,
without asserting anything about a time.

The step's matrix products counted independently, the agreement checks refusing steps,
outputs and caches that disagree, the tiled attention's peak memory (tracemalloc: a count of
bytes, not a time) below the plain one's, and the whole report printed at a tiny size.
"""

from __future__ import annotations

import argparse

import numpy as np
import pytest

from autograder import bench, bench_gpt
from solutions import ch09_attention as sp
from support import text_data

TINY = dict(n_layer=2, n_head=2, n_embd=8, block_size=6, dropout=0.0)


def test_the_products_of_a_step_are_every_linear_and_both_attention_matmuls():
    """Per block: in_proj, q kᵀ, weights · v, out_proj, linear1, linear2; then the head. The
    multiply-adds counted here from the model's sizes, not from the list."""
    shapes = bench_gpt.gemm_shapes(TINY, vocab=5, batch=3)
    assert len(shapes) == 6 * 2 + 1
    assert shapes[0] == ((), 18, 8, 24) and shapes[-1] == ((), 18, 8, 5)
    rows, e, t, d, h = 3 * 6, 8, 6, 4, 2
    per_block = rows * e * (3 * e + e + 4 * e) + rows * 4 * e * e + 2 * (3 * h) * t * t * d
    macs = sum(int(np.prod(lead, dtype=int)) * m * k * n for lead, m, k, n in shapes)
    assert macs == 2 * per_block + rows * e * 5


def test_the_products_run_in_numpy_and_in_torch(torch_one_thread):
    shapes = bench_gpt.gemm_shapes(TINY, vocab=5, batch=3)
    bench_gpt.gemm_step(np, shapes)()
    bench_gpt.gemm_step(torch_one_thread, shapes)()


def test_a_training_step_lowers_the_loss_on_its_batch_and_splits_into_phases():
    model, _ = bench_gpt.make_models(sp, None, TINY, 5)
    step = bench_gpt.TrainingStep(sp, model, *bench_gpt.batch_data(5, 3, 6))
    losses = [step() for _ in range(5)]
    assert losses[-1] < losses[0]
    phases = step.phases()
    assert len(phases) == 3 and all(s > 0 for s in phases)


def test_sparrow_and_pytorch_take_the_same_steps_and_a_broken_one_is_refused(torch_one_thread):
    """The twin from Sparrow's weights: the same losses over two AdamW steps (so the same
    clip and update); a step whose loss is off by 1e-3 is refused, named."""
    torch = torch_one_thread
    x, y = bench_gpt.batch_data(5, 3, 6)
    model, twin = bench_gpt.make_models(sp, torch, TINY, 5)
    steps = {"Sparrow": bench_gpt.TrainingStep(sp, model, x, y)}
    steps["PyTorch"] = bench_gpt.TrainingStep(torch, twin, x, y)
    losses = bench_gpt.agree_on_steps(steps)
    assert len(losses) == 2 and losses[1] < losses[0]
    (fresh, _), (again, _) = (bench_gpt.make_models(sp, None, TINY, 5) for _ in range(2))
    off = bench_gpt.TrainingStep(sp, again, x, y)
    steps = {"Sparrow": bench_gpt.TrainingStep(sp, fresh, x, y), "broken": lambda: off() * 1.001}
    with pytest.raises(AssertionError, match="step 1: broken's loss"):
        bench_gpt.agree_on_steps(steps)


def test_tiled_attention_needs_a_fraction_of_the_plain_ones_memory():
    """At T = 256 the plain attention allocates the (T, T) scores (and more of that size);
    the tiled one the output and a few (tile, tile) blocks."""
    (row,) = bench_gpt.long_context(sp, [256], tile=16, repeat=1)
    assert row["length"] == 256 and row["matrix"] == 256 * 256 * 4
    assert set(row["seconds"]) == set(row["peak"]) == {"plain", "tiled"}
    assert row["peak"]["plain"] >= row["matrix"]
    assert row["peak"]["tiled"] < row["peak"]["plain"] / 4
    assert row["peak"]["tiled"] >= 256 * 64 * 4  # its output, float32


def test_outputs_that_disagree_are_refused():
    calls = bench_gpt.attention_calls(sp, *bench_gpt.attention_inputs(sp, 16, 4), 4)
    bench_gpt.agree_on_outputs(calls, "T = 16")
    calls["wrong"] = lambda: calls["plain"]() * 1.01
    with pytest.raises(AssertionError, match="T = 16: wrong's output differs from plain's"):
        bench_gpt.agree_on_outputs(calls, "T = 16")


def test_the_cache_check_catches_a_cache_that_forgets(monkeypatch):
    model, _ = bench_gpt.make_models(sp, None, TINY, 5)
    idx = sp.tensor(bench_gpt.batch_data(5, 1, 6)[0])
    assert bench_gpt.cache_agrees(sp, model, idx) < 1e-5

    def forgets(self, key, value):  # keeps nothing: every token sees only itself
        return key, value

    monkeypatch.setattr(sp.KVCache, "update", forgets)
    monkeypatch.setattr(sp.KVCache, "mask", lambda self, new: None)
    with pytest.raises(AssertionError, match="cached logits differ"):
        bench_gpt.cache_agrees(sp, model, idx)


def test_generation_is_timed_with_and_without_the_cache():
    model, _ = bench_gpt.make_models(sp, None, TINY, 5)
    calls = bench_gpt.generation_calls(sp, model, sp.tensor([[1, 2]]), 9)
    outputs = {name: np.asarray(call().data) for name, call in calls.items()}
    assert all(out.shape == (1, 11) for out in outputs.values())
    # the same draws until the context (6) first fills: 4 new tokens after the prompt of 2
    np.testing.assert_array_equal(outputs["with the cache"][:, :6], outputs["without"][:, :6])
    rates = bench_gpt.tokens_per_second(calls, 9, rounds=1)
    assert set(rates) == {"with the cache", "without"} and all(r > 0 for r in rates.values())


def test_a_tree_with_a_stub_left_is_not_measured(monkeypatch):
    assert bench_gpt.works(sp)

    def stub(self, idx, start=0):
        raise NotImplementedError("Task 9.5")

    monkeypatch.setattr(sp.GPT, "embed", stub)
    assert not bench_gpt.works(sp)


class TinyCorpus:
    """A corpus of a few words for the report (``text_data.Corpus``'s two fields used)."""

    def __init__(self) -> None:
        text = "The cat sat on the mat. " * 20
        self.vocab = text_data.Vocab.from_text(text)
        self.train = self.vocab.encode(text)


def test_warm_up_trains_the_model_on_other_batches_than_the_measured_one():
    corpus = TinyCorpus()
    model, _ = bench_gpt.make_models(sp, None, TINY, len(corpus.vocab))
    before = [np.array(p.data) for p in model.parameters()]
    assert bench_gpt.warm_up(sp, model, corpus, 3, steps=0) is model
    assert all(np.array_equal(a, p.data) for a, p in zip(before, model.parameters()))
    assert bench_gpt.warm_up(sp, model, corpus, 3, steps=2) is model
    changed = [not np.array_equal(a, p.data) for a, p in zip(before, model.parameters())]
    assert all(changed)  # AdamW moves every parameter (weight decay too)
    measured = bench_gpt.text_batch(corpus, 3, TINY["block_size"])[0]
    first = next(text_data.batches(corpus.train, 1, 3, TINY["block_size"], seed=1))[0]
    assert not np.array_equal(measured, first)


def test_the_report_prints_every_part_at_a_tiny_size(monkeypatch, capsys, torch_one_thread):
    """(The fixture restores PyTorch's thread count, which the report sets.)"""
    monkeypatch.setattr(bench_gpt, "capstone_setup", lambda: (dict(TINY), 3, TinyCorpus()))
    args = argparse.Namespace(
        impl="solutions", threads=1, repeat=1, rounds=1, lengths=[32], tile=8, new_tokens=4, top=3,
        warm_steps=2, step=True,
    )  # fmt: skip
    bench_gpt.report(args)
    out = capsys.readouterr().out
    assert "(a) one training step of the capstone GPT (n_layer=2" in out
    assert "both from Sparrow's weights after 2 steps of training" in out
    assert "its matrix products alone" in out
    assert "where Sparrow's step goes" in out and "outside any Function" in out
    assert "\n      32" in out and "(T, T) MiB" in out
    assert "with the cache:" in out and "the cache's speed-up:" in out
    assert "GPT training step ≤ 1.5× PyTorch:" in out


def test_make_bench_part_gpt_runs_this_part(monkeypatch):
    seen = []
    monkeypatch.setattr(bench_gpt, "main", lambda argv: seen.append(argv) or 0)
    assert bench.main(["gpt", "--lengths", "64"]) == 0
    assert seen == [["--lengths", "64"]]


def test_the_transformer_row_times_chapter_9_on_both_devices():
    """``python -m autograder.bench device``'s chapter 9 row (a tiny model here): the GPT's
    training step timed on the CPU and on the simulated device, with its speed-up."""
    from support import device_bench, gpt_device_bench

    (step,) = gpt_device_bench._step_setup(sp, "sim", TINY, 3, 5)
    assert step.x.device.type == "sim" and step.y.device.type == "sim"
    assert all(p.device.type == "sim" for p in step.model.parameters())
    rows = gpt_device_bench.gpt_comparison(sp, "sim", 2, config=TINY, batch=3, vocab=5)
    assert list(rows) == ["GPT training step, 2×8, batch 3×6"]
    for cpu, device in rows.values():
        assert isinstance(cpu, device_bench.Timing) and len(device.times) >= 2
    table = gpt_device_bench.format_gpt(rows, "sim").splitlines()
    assert len(table) == 2 and table[1].startswith("GPT training step") and table[1].endswith("×")


def test_the_op_clock_names_each_forward_and_backward_once_and_then_lets_go():
    """(x · 2).sum() and its backward: two forwards and two backwards, each counted once
    (the operations a backward runs inside are its own cost, not forwards); afterwards
    ``Function.apply`` and ``Node.backward`` are the originals again."""
    apply, backward = sp.Function.__dict__["apply"], sp.Node.backward
    x = sp.tensor(np.ones(3, np.float32), requires_grad=True)
    with bench_gpt.OpClock(sp) as clock:
        (x * 2.0).sum().backward()
    names = {(name, phase) for name, phase in clock.calls}
    assert {("Mul", "forward"), ("Sum", "forward"), ("Mul", "backward")} <= names
    assert ("Sum", "backward") in names and all(c == 1 for c in clock.calls.values())
    assert all(s >= 0 for s in clock.seconds.values())
    assert sp.Function.__dict__["apply"] is apply and sp.Node.backward is backward
    np.testing.assert_array_equal(x.grad.data, [2, 2, 2])

"""The memory relation chapter 5's §11 draws, asserted with the functions its notebook calls
(``solutions/ch05_nn/measure.py``): without checkpointing the memory a pass keeps for backward
grows linearly with depth, with √depth segments it grows as √depth, and the layers run forward
twice. Counts and bytes only, never time.

The expected sizes come from the arrays' shapes, not from the code under test: a block
Linear → Tanh keeps two (batch, width) float32 arrays for backward (Linear's input, Tanh's
input), so a plain pass of L blocks keeps 2L of them; with s segments a pass keeps the s
segment inputs and, while one segment is recomputed, that segment's 2·⌈L/s⌉.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from solutions import ch05_nn as sp
from solutions.ch05_nn import measure

DEPTHS = (4, 16, 64)  # squares: √depth segments of √depth blocks each


def peaks(way: str, batch: int, width: int) -> np.ndarray:
    """``activation_peak`` for each of DEPTHS, in units of one (batch, width) float32 array."""
    x = sp.randn(batch, width, requires_grad=True)
    one = batch * width * np.dtype(np.float32).itemsize
    return np.array(
        [
            measure.activation_peak(
                measure.tanh_mlp(depth, width), x, measure.segments_for(way, depth)
            )
            / one
            for depth in DEPTHS
        ]
    )


@pytest.fixture(scope="module")
def plain() -> np.ndarray:
    return peaks("no checkpoint", 64, 64)


@pytest.fixture(scope="module")
def root() -> np.ndarray:
    return peaks("√depth segments", 64, 64)


def test_without_checkpointing_every_block_keeps_its_two_arrays(plain) -> None:
    """2L arrays at least; the rest (graph nodes, the gradient on its way) is small."""
    depths = np.array(DEPTHS)
    assert np.all(plain >= 2 * depths), plain
    assert np.all(plain <= 2.5 * depths + 8), plain


def test_with_root_depth_segments_the_inputs_and_one_segment(root) -> None:
    s = np.array([math.isqrt(d) for d in DEPTHS])
    one_segment = 2 * np.ceil(np.array(DEPTHS) / s)
    assert np.all(root >= one_segment), root
    assert np.all(root <= 1.25 * (s + one_segment) + 8), root


def test_plain_grows_linearly_and_root_depth_segments_as_the_square_root(plain, root) -> None:
    """The slope of log(peak) against log(depth) between the two largest depths: 1 for the
    plain pass, 1/2 for √depth segments (a constant part lowers both a little)."""
    slope = lambda p: math.log(p[-1] / p[-2]) / math.log(DEPTHS[-1] / DEPTHS[-2])
    assert 0.85 <= slope(plain) <= 1.05, plain
    assert 0.3 <= slope(root) <= 0.6, root
    assert root[-1] < plain[-1] / 4


def test_the_gradients_are_not_counted() -> None:
    """With a small batch and wide layers the gradients (width² per block) outweigh the
    activations (batch·width): counted, they alone would exceed the measured peak."""
    depth, batch, width = 64, 16, 128
    model = measure.tanh_mlp(depth, width)
    x = sp.randn(batch, width, requires_grad=True)
    peak = measure.activation_peak(model, x, measure.segments_for("√depth segments", depth))
    gradients = sum(p.data.nbytes for p in model.parameters())
    assert all(p.grad is not None for p in model.parameters())  # they were made
    assert peak < gradients / 4, (peak, gradients)


def test_the_weights_are_not_counted() -> None:
    """The pass is measured above what was in use before it (the weights): one model, batches
    of 32 and 128 rows, and the peak grows with the activations, 4 times. Counted, the
    weights (as large as the small batch's activations here) would make it about 2.5."""
    model = measure.tanh_mlp(16, 64)
    small = measure.activation_peak(model, sp.randn(32, 64, requires_grad=True), 1)
    large = measure.activation_peak(model, sp.randn(128, 64, requires_grad=True), 1)
    assert 3.0 <= large / small <= 4.2, (small, large)


@pytest.mark.parametrize("depth", [4, 9, 10])
def test_checkpointed_layers_run_forward_twice(depth: int) -> None:
    model = measure.tanh_mlp(depth, 8)
    x = sp.randn(3, 8, requires_grad=True)
    assert measure.layer_forwards(model, x, 1) == depth
    for way in ("2 segments", "√depth segments"):
        assert measure.layer_forwards(model, x, measure.segments_for(way, depth)) == 2 * depth


def test_segments_cover_every_block_once() -> None:
    """The gradients of a pass in segments are the plain pass's (so no block is skipped or
    run twice in the forward that counts)."""
    model = measure.tanh_mlp(10, 8)
    x = sp.randn(3, 8, requires_grad=True)
    model.zero_grad()
    measure.run_in_segments(model, x, 1)
    plain = [p.grad.data.copy() for p in model.parameters()]
    for segments in (2, 3, 4, 10):
        model.zero_grad()
        measure.run_in_segments(model, x, segments)
        for a, b in zip(plain, model.parameters()):
            np.testing.assert_allclose(b.grad.data, a, rtol=1e-5, atol=1e-6)


def test_segments_for_names_the_ways() -> None:
    assert [measure.segments_for(w, 32) for w in measure.WAYS] == [1, 2, 6]
    with pytest.raises(ValueError, match="unknown way"):
        measure.segments_for("3 segments", 32)


def test_the_timing_program_prints_every_run_of_every_way(capsys) -> None:
    """What the notebook reads from ``python -m ...measure``: one list of runs per depth and
    way, one list per segment count (the values are times and are not judged here)."""
    measure.main(["--depths", "2", "4", "--segments", "1", "2", "--repeats", "2"])
    result = json.loads(capsys.readouterr().out)
    assert set(result["ways"]) == set(measure.WAYS)
    assert all(
        len(per) == 2 and all(len(runs) == 2 for runs in per) for per in result["ways"].values()
    )
    assert set(result["segments"]) == {"1", "2"}
    assert all(len(runs) == 2 and min(runs) >= 0 for runs in result["segments"].values())

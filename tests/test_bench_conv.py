"""``autograder/bench_conv.py`` (``python -m autograder.bench conv``): what it times is the
work it says, checked without timing anything.

The NumPy floor and the wide-layout experiment against a convolution written here as plain
loops over the kernel's offsets (output, ∂x, ∂W, ∂b for a given ∂out), and the bench's own
agreement check refusing steps that disagree.
"""

from __future__ import annotations

import numpy as np
import pytest

from autograder import bench_conv

SMALL = bench_conv.Layer("small", 2, 3, 7, 4, 3, 1)


def loops(d: dict[str, np.ndarray], k: int, p: int) -> list[np.ndarray]:
    """out[n, o, y, z] = Σ_{c, i, j} x_pad[n, c, y + i, z + j] · W[o, c, i, j] + b[o], and
    its three gradients for ∂out = g, one kernel offset (i, j) at a time."""
    x, w, b, g = (d[key].astype(np.float64) for key in ("x", "w", "b", "g"))
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    oh = xp.shape[2] - k + 1
    out = np.zeros((x.shape[0], w.shape[0], oh, oh)) + b[None, :, None, None]
    grad_xp, grad_w = np.zeros_like(xp), np.zeros_like(w)
    for i in range(k):
        for j in range(k):
            patch = xp[:, :, i : i + oh, j : j + oh]  # (N, C, oh, ow)
            out += np.einsum("ncyz,oc->noyz", patch, w[:, :, i, j])
            grad_xp[:, :, i : i + oh, j : j + oh] += np.einsum("noyz,oc->ncyz", g, w[:, :, i, j])
            grad_w[:, :, i, j] = np.einsum("noyz,ncyz->oc", g, patch)
    grad_x = grad_xp[:, :, p : p + x.shape[2], p : p + x.shape[3]]
    return [out, grad_x, grad_w, g.sum((0, 2, 3))]


@pytest.mark.parametrize("step", [bench_conv.floor_step, bench_conv.wide_step])
@pytest.mark.parametrize("layer", [SMALL, bench_conv.Layer("no padding", 3, 2, 6, 5, 2, 0)])
def test_the_floor_and_the_wide_layout_compute_a_convolution(step, layer):
    d = bench_conv.layer_data(layer)
    found = step(d, layer.k, layer.p)()
    for mine, expected in zip(found, loops(d, layer.k, layer.p), strict=True):
        assert mine.shape == expected.shape
        np.testing.assert_allclose(mine, expected, rtol=1e-4, atol=1e-5)


def test_the_layer_sizes_and_flops():
    conv2 = bench_conv.LAYERS[1]
    assert (conv2.out, conv2.flops) == (10, 3 * 2 * 64 * 16 * 6 * 25 * 100)
    assert bench_conv.LAYERS[-1].out == 32


def test_steps_that_disagree_are_refused():
    d = bench_conv.layer_data(SMALL)
    floor = bench_conv.floor_step(d, SMALL.k, SMALL.p)

    def off_by_one() -> tuple:
        out, gx, gw, gb = floor()
        return out, gx, gw + 1, gb

    bench_conv.agree({"floor": floor, "wide": bench_conv.wide_step(d, 3, 1)}, SMALL)
    with pytest.raises(AssertionError, match="small: broken's ∂W differs from floor's"):
        bench_conv.agree({"floor": floor, "broken": off_by_one}, SMALL)


def test_unfold_memory_is_nine_times_the_input_for_a_3x3_kernel():
    memory = bench_conv.unfold_memory(SMALL)
    assert memory["cols"] == 9 * memory["input"]  # padding 1 keeps 7 × 7 windows
    assert memory["peak"] >= memory["cols"]  # tracemalloc sees NumPy's allocations


def test_a_tree_with_a_stub_left_is_not_measured(monkeypatch):
    from solutions import ch08_conv
    from solutions.ch08_conv import conv

    assert bench_conv.works(ch08_conv)

    def stub(ctx, *args):
        raise NotImplementedError("Task 8.3")

    monkeypatch.setattr(conv.Convolution, "forward", staticmethod(stub))
    assert not bench_conv.works(ch08_conv)


def test_the_floor_lenet_trains_as_sparrow_does(monkeypatch):
    """The floor's epoch is the capstone's step by hand: the same losses as Sparrow's
    (the reference, an independent implementation) from the same weights and batches; a
    floor whose Adam forgets its bias correction is caught."""
    from solutions import ch08_conv
    from support import capstone

    data = capstone.mnist5k_images()
    bench_conv.agree_with_the_floor(ch08_conv, data, steps=3)

    def uncorrected(self, grads, b1=0.9, b2=0.999):
        for p, g, m, v in zip(self.params, grads, self.m, self.v, strict=True):
            m[...] = b1 * m + (1 - b1) * g
            v[...] = b2 * v + (1 - b2) * g * g
            p -= self.lr * m / (np.sqrt(v) + 1e-8)  # m̂ = m/(1 − β₁ᵗ) forgotten: 3.2× the step

    monkeypatch.setattr(bench_conv.FloorLeNet, "adam", uncorrected)
    with pytest.raises(AssertionError, match="step 2: Sparrow's loss"):
        bench_conv.agree_with_the_floor(ch08_conv, data, steps=3)

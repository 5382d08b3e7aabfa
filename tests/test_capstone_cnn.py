"""The CNN capstone (``make capstone MODEL=cnn``) against PyTorch: the slow suite.

PyTorch trains the same LeNet-style network (``capstone.make_cnn(torch)``: the same lines)
from Sparrow's initial weights, in Sparrow's batch order (the permutations the DataLoader's
seeded generator draws), on the same standardised images, Adam lr 1e-3, batch 64, one
thread. In float64 the first 100 steps' losses agree to 1e-6 relative (two exact
computations, summed in different orders; the test prints the largest difference); in
float32 training is chaotic (issue 30 reports PyTorch's own two convolution backends parting
by 1e-3 after 400 steps), so the full run is held to its end: the two final test accuracies
within one point (the test prints both, and the step where the losses first part).

The course's number (issue 30): 96–97% after 10 epochs. Measured on this course's 2-core
machine, seeds 0–3 (``CAPSTONE_SEEDS=0,1,2,3 python -m pytest -s -m slow
tests/test_capstone_cnn.py -k agrees``): Sparrow (the reference) 96.6, 96.8, 96.8, 96.8%;
PyTorch 2.13 CPU from the same weights in the same order, one thread, 96.4, 96.6, 96.8,
96.5% (in float32 the two part by more than 1e-4 after 120–320 steps, so they end a few
digits apart). Asserted, for seed 0: Sparrow at least 96%, the course's number as stated
(``COURSE_ACCURACY``); PyTorch within one point of it and at least 95% (the chaotic float32
run leaves the other framework a few tenths either way).
"""

from __future__ import annotations

import functools
import os

import numpy as np
import pytest

from solutions import ch08_conv as sp
from support import capstone

pytestmark = pytest.mark.slow

COURSE_ACCURACY = 0.96  # stated: 96–97% (measured 96.4–96.8% over 4 seeds, both sides)
EPOCHS, BATCH = 10, 64


@functools.cache
def sparrow_run(seed: int) -> capstone.History:
    """``make capstone MODEL=cnn SEED=seed`` on the reference (shared by the tests)."""
    return capstone.train(sp, model="cnn", seed=seed, progress=False)


def initial_weights(seed: int) -> list[np.ndarray]:
    """The CNN's parameters as ``capstone.train`` draws them (after ``manual_seed(seed)``),
    in ``parameters()`` order: each layer's weight then bias, PyTorch's layouts."""
    sp.manual_seed(seed)
    return [np.array(p.data) for p in capstone.make_model(sp, "cnn").parameters()]


def batch_orders(seed: int, n: int, epochs: int) -> list[np.ndarray]:
    """The permutations the capstone's DataLoader draws from its seeded generator."""
    g = sp.Generator().manual_seed(seed)
    return [np.array(sp.randperm(n, generator=g).data) for _ in range(epochs)]


def train_torch(torch, seed: int, epochs: int = EPOCHS, dtype: str = "float32", steps=None):
    """PyTorch's run: Sparrow's initial weights and batch order, Adam lr 1e-3, batch 64.
    Returns every step's loss and the final test accuracy (None when stopped after
    ``steps`` steps)."""
    data = capstone.mnist5k_images()
    model = capstone.make_cnn(torch).to(getattr(torch, dtype))
    with torch.no_grad():
        for p, w in zip(model.parameters(), initial_weights(seed), strict=True):
            p.copy_(torch.from_numpy(w))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.from_numpy(data["x_train"].astype(dtype))
    y = torch.from_numpy(data["y_train"])
    losses = []
    for order in batch_orders(seed, len(y), epochs):
        for start in range(0, len(order), BATCH):
            if steps is not None and len(losses) == steps:
                return losses, None
            idx = torch.from_numpy(order[start : start + BATCH])
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x[idx]), y[idx])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    with torch.no_grad():
        logits = model(torch.from_numpy(data["x_test"].astype(dtype)))
    return losses, float((logits.argmax(dim=1).numpy() == data["y_test"]).mean())


def test_float64_losses_agree_step_by_step_for_100_steps(torch_one_thread):
    """Same weights, batches and arithmetic in float64: each of the first 100 losses agrees
    to 1e-6 relative (the second loss agrees only if the first step's gradients did, and
    so on: every Conv2d, MaxPool2d and Linear gradient, and Adam's update, through 100
    steps). Measured: 7e-16 at most."""
    ours = capstone.train(sp, model="cnn", epochs=2, dtype="float64", progress=False)
    theirs, _ = train_torch(torch_one_thread, 0, epochs=2, dtype="float64", steps=100)
    assert len(theirs) == 100 and len(ours.losses) == 2 * 63
    relative = np.abs(np.array(ours.losses[:100]) - theirs) / np.abs(theirs)
    print(f"float64, 100 steps: the losses differ by {relative.max():.1e} relative at most")
    np.testing.assert_allclose(ours.losses[:100], theirs, rtol=1e-6)
    assert ours.losses[99] < 0.5 * ours.losses[0]  # it learned: not two flat curves


# seed 0 by default; the README's four seeds: CAPSTONE_SEEDS=0,1,2,3 make test-slow (or pytest -s)
SEEDS = [int(s) for s in os.environ.get("CAPSTONE_SEEDS", "0").split(",")]


@pytest.mark.parametrize("seed", SEEDS)
def test_pytorch_trained_the_same_way_agrees_at_the_end(torch_one_thread, seed):
    """Float32, 10 epochs: the final test accuracies within one point, Sparrow's at least the
    course's number and PyTorch's at least 95%; the first steps' losses still agree
    (float32 rounding only)."""
    ours = sparrow_run(seed)
    their_losses, theirs = train_torch(torch_one_thread, seed)
    print(f"CNN capstone test accuracy: Sparrow {ours.final_accuracy:.2%}, PyTorch {theirs:.2%}")
    assert len(their_losses) == len(ours.losses) == EPOCHS * 63
    apart = np.abs(np.array(ours.losses) - their_losses) > 1e-4 * np.abs(their_losses)
    print(f"float32: the losses first part by more than 1e-4 at step {int(apart.argmax())}")
    np.testing.assert_allclose(ours.losses[:20], their_losses[:20], rtol=1e-4)
    assert abs(ours.final_accuracy - theirs) <= 0.01
    assert ours.final_accuracy >= COURSE_ACCURACY and theirs >= 0.95


def test_the_cnn_capstone_reaches_the_course_s_number():
    """``make capstone MODEL=cnn`` (seed 0, 10 epochs) on the reference: at least the
    course's number, and above the MLP's 92-93%."""
    h = sparrow_run(0)
    assert h.architecture == "cnn" and len(h.test_accuracy) == EPOCHS
    assert h.final_accuracy >= COURSE_ACCURACY
    assert h.test_accuracy[-1] > h.test_accuracy[0]

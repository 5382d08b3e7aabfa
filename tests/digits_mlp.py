"""The digits MLP of chapter 5's "Done means", written once for the tests that train it:
``tests/test_nn.py`` (Sparrow alone reaches 95%) and ``tests/test_torch_nn.py`` (PyTorch,
trained from the same initial weights in the same batch order, agrees within one point).

64-128-10 (Linear, ReLU, Linear), cross-entropy, hand-written SGD with lr 0.1, batch 32,
30 epochs on ``support.datasets.load("digits")`` (1,438 train / 359 test, seeded split),
standardised per pixel as the notebook's §10 does.
The initial weights are PyTorch's default initialisation as Sparrow draws it after
``manual_seed(seed)``; the batch order is one NumPy permutation per epoch from
``default_rng(seed)``; both sides read the same arrays.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from solutions import ch05_nn as sp
from support import datasets

SIZES, LR, BATCH, EPOCHS = (64, 128, 10), 0.1, 32, 30


@functools.cache
def digits() -> dict[str, np.ndarray]:
    """x as (N, 64) float32, standardised per pixel with the training set's mean and
    standard deviation (+ 0.01: some pixels are always blank), as the notebook's §10 does;
    y as int64 class indices."""
    d = datasets.load("digits")
    x_train, x_test = d["x_train"].reshape(-1, 64), d["x_test"].reshape(-1, 64)
    mean, std = x_train.mean(axis=0), x_train.std(axis=0) + 0.01
    return {
        "x_train": ((x_train - mean) / std).astype(np.float32),
        "y_train": d["y_train"].astype(np.int64),
        "x_test": ((x_test - mean) / std).astype(np.float32),
        "y_test": d["y_test"].astype(np.int64),
    }


def initial_weights(seed: int) -> list[np.ndarray]:
    """[W1, b1, W2, b2] as Sparrow's Linear layers draw them after manual_seed(seed)."""
    sp.manual_seed(seed)
    model = sp_model()
    return [np.array(p.data) for p in model.parameters()]


def batch_order(seed: int, epochs: int = EPOCHS) -> list[np.ndarray]:
    """The training set's indices, one shuffled permutation per epoch."""
    rng = np.random.default_rng(seed)
    return [rng.permutation(len(digits()["y_train"])) for _ in range(epochs)]


def sp_model() -> Any:
    nn = sp.nn
    return nn.Sequential(nn.Linear(SIZES[0], SIZES[1]), nn.ReLU(), nn.Linear(SIZES[1], SIZES[2]))


def train_sparrow(
    weights: list[np.ndarray], orders: list[np.ndarray], dtype: Any = np.float32
) -> tuple[Any, list[float]]:
    """The model trained by hand-written SGD; returns it and each step's loss."""
    data = digits()
    model = sp_model()
    for p, w in zip(model.parameters(), weights):
        p.data = np.array(w, dtype=dtype)
    x_all = data["x_train"].astype(dtype)
    losses = []
    for order in orders:
        for start in range(0, len(order), BATCH):
            idx = order[start : start + BATCH]
            loss = sp.nn.functional.cross_entropy(
                model(sp.tensor(x_all[idx])), sp.tensor(data["y_train"][idx])
            )
            model.zero_grad()
            loss.backward()
            with sp.no_grad():
                for p in model.parameters():
                    p.data -= LR * p.grad.data
            losses.append(float(loss.data))
    return model, losses


def sp_accuracy(model: Any) -> float:
    data = digits()
    with sp.no_grad():
        logits = model(sp.tensor(data["x_test"].astype(model[0].weight.dtype)))
    return float((logits.data.argmax(axis=1) == data["y_test"]).mean())


@functools.cache
def sparrow_accuracy(seed: int) -> float:
    """Test accuracy of the digits MLP trained the course's way (shared by the tests)."""
    model, _ = train_sparrow(initial_weights(seed), batch_order(seed))
    return sp_accuracy(model)

"""``TrainingStats``: what a network's layers and parameters do *during* training. Task 6.11
(course version 1.1).

makemore's part 3 looks at three numbers, and looks at them while the network trains, not
only at initialisation:

- each watched layer's output (its activations): mean, standard deviation, and for a tanh
  the fraction *saturated*, |a| > 0.97, where tanh is flat and passes almost no gradient;
- each parameter's gradient: its standard deviation;
- each parameter's *update-to-data ratio*: log₁₀(std(Δp) / std(p)), Δp what one optimizer
  step changed p by, p its values before the step. About −3 (a step changes p by a
  thousandth of its spread) is the usual guide; far above, the steps are too large; far
  below, the parameter barely learns.

The contract::

    stats = TrainingStats(model, watch=(nn.Tanh,), saturation=0.97)
    for x, y in batches:
        loss = loss_fn(model(x), y)     # each forward of a watched module: one activation row
        optimizer.zero_grad()
        loss.backward()
        stats.step(optimizer)           # one gradient row and one ratio row, then the step
    stats.remove()                      # the model is left without any hook of the stats

- ``stats.activations[name]``: for each watched module (every module of ``model.named_
  modules()`` that is an instance of ``watch``), a list with one dict per forward, {"mean",
  "std", "saturated"}, Python floats: the output's mean, its standard deviation (NumPy's,
  ddof 0) and the fraction of its elements with |a| > ``saturation``.
- ``stats.grads[name]`` and ``stats.ratios[name]``: for each parameter of ``model.named_
  parameters()`` with more than one element (a single number has no spread), a list with one
  float per ``step``: std(p.grad) as ``step`` was called, and log₁₀(std(Δp) / std(p)), Δp =
  p after the optimizer's step − p before it.
- ``stats.step(optimizer)`` calls ``optimizer.step()`` exactly once, and returns what it
  returned.
- ``stats.remove()`` takes every hook the stats registered off the model (also on leaving a
  ``with TrainingStats(...) as stats:`` block).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ch05_nn.nn.activation import Tanh


def _host(t: Any) -> np.ndarray:
    """A Tensor's (or an array's) values as a float64 NumPy array of their own (given)."""
    data = getattr(t, "data", t)
    data = data.get() if hasattr(data, "get") and not isinstance(data, np.ndarray) else data
    return np.array(data, dtype=np.float64)


class TrainingStats:
    """``TrainingStats(model, watch=(Tanh,), saturation=0.97)``: see the module's text."""

    def __init__(self, model: Any, watch: tuple = (Tanh,), saturation: float = 0.97) -> None:
        self.model = model
        self.saturation = saturation
        self.activations: dict[str, list[dict[str, float]]] = {}
        self.grads: dict[str, list[float]] = {}
        self.ratios: dict[str, list[float]] = {}
        self.handles: list[Any] = []
        self.watched = [(n, m) for n, m in model.named_modules() if isinstance(m, watch)]
        self.params = [(n, p) for n, p in model.named_parameters() if p.numel() > 1]
        for name, _ in self.params:
            self.grads[name], self.ratios[name] = [], []
        raise NotImplementedError(
            "Task 6.11: TrainingStats: statistics during training — see §11 of the notebook"
        )

    def _hook(self, name: str) -> Any:
        """The forward hook of the watched module ``name``: one activation row per call."""

        def hook(module: Any, args: tuple, output: Any) -> None:
            raise NotImplementedError(
                "Task 6.11: TrainingStats: statistics during training — see §11 of the notebook"
            )

        return hook

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """Record each parameter's gradient, take ``optimizer.step(*args, **kwargs)`` once,
        and record each parameter's update-to-data ratio; return what the step returned."""
        raise NotImplementedError(
            "Task 6.11: TrainingStats: statistics during training — see §11 of the notebook"
        )

    def remove(self) -> None:
        """Take every hook these stats registered off the model."""
        raise NotImplementedError(
            "Task 6.11: TrainingStats: statistics during training — see §11 of the notebook"
        )

    def __enter__(self) -> TrainingStats:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()

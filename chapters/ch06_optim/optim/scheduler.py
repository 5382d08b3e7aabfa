"""``LRScheduler``: what every learning-rate schedule shares (given code).

A schedule is a function of one number, the count of ``scheduler.step()`` calls so far
(``last_epoch``, PyTorch's name, although it counts whatever the loop steps it by: epochs
or batches). Each ``step()`` adds one and writes ``get_lr()``'s values into the groups'
``"lr"``; the optimizer's next ``step()`` uses them::

    for epoch in range(epochs):
        for x, y in loader:
            ...; optimizer.step()
        scheduler.step()               # after the optimizer's steps, as in PyTorch

Creating a scheduler already takes its first step, to ``last_epoch = 0``, so the groups
hold the schedule's first value before any training. Each group's starting point is its
``"initial_lr"`` (set from ``"lr"`` when the first scheduler is made), kept in
``base_lrs``.

The course's schedules are closed forms of ``last_epoch`` and ``base_lrs`` (PyTorch's
``get_lr`` for most of them is the same sequence computed recursively from the previous
``lr``): the values agree with PyTorch's to rounding, but a learning rate changed by hand
between steps is overwritten rather than carried on, and two schedulers on one optimizer do
not compose.
"""

from __future__ import annotations

from .optimizer import Optimizer


class LRScheduler:
    """``LRScheduler(optimizer, last_epoch=-1)``; subclasses define ``get_lr()``."""

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming an optimizer"
                    )
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self.step()

    def get_lr(self) -> list[float]:
        """Each group's learning rate at ``self.last_epoch``."""
        raise NotImplementedError(f"{type(self).__name__} does not define get_lr()")

    def step(self) -> None:
        """One more step of the schedule: ``last_epoch`` + 1, then each group's lr."""
        self.last_epoch += 1
        lrs = self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, lrs):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def get_last_lr(self) -> list[float]:
        """The learning rates the last ``step()`` set."""
        return self._last_lr

    def state_dict(self) -> dict:
        """Everything the scheduler holds but the optimizer (plain data: ``save`` takes it)."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update(state_dict)

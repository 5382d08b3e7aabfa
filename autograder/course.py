"""The course map: every chapter, in order, and whether its checks exist yet."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cached_property

from .tasks import Task


@dataclass(frozen=True)
class Chapter:
    number: int
    package: str  # the package under chapters/, e.g. "ch01_value"
    title: str

    @cached_property
    def tasks(self) -> list[Task]:
        """The task table; empty for a chapter that is not written yet."""
        try:
            module = importlib.import_module(f"autograder.tasks.{self.package}")
        except ModuleNotFoundError:
            return []
        return list(module.TASKS)

    @property
    def ready(self) -> bool:
        return bool(self.tasks)

    @property
    def points(self) -> int:
        return sum(task.points for task in self.tasks)

    def task(self, task_id: str) -> Task:
        for task in self.tasks:
            if task.id == task_id:
                return task
        known = ", ".join(t.id for t in self.tasks)
        raise KeyError(f"chapter {self.number} has no task {task_id!r} (its tasks: {known})")


CHAPTERS = [
    Chapter(1, "ch01_value", "scalar autograd (Value)"),
    Chapter(2, "ch02_tensor", "the Tensor wrapper"),
    Chapter(3, "ch03_broadcast", "broadcasting-aware gradients"),
    Chapter(4, "ch04_backward", "the stack-and-counter backward engine"),
    Chapter(5, "ch05_nn", "modules, layers and losses"),
    Chapter(6, "ch06_optim", "optimizers"),
    Chapter(7, "ch07_device", "devices: CuPy and a simulated one"),
    Chapter(8, "ch08_conv", "convolution: im2col, pooling, a CNN"),
    Chapter(9, "ch09_attention", "attention and a character-level Transformer"),
]


def chapter(number: int | str) -> Chapter:
    """The chapter with this number (1, "1", "01" or "ch01_value"), or a clear error."""
    text = str(number).strip()
    for ch in CHAPTERS:
        if text in (str(ch.number), f"{ch.number:02d}", ch.package):
            return ch
    raise ValueError(
        f"there is no chapter {text!r}; the chapters are 1–{len(CHAPTERS)}: "
        + ", ".join(f"{c.number} ({c.package})" for c in CHAPTERS)
    )


def task(task_id: str) -> tuple[Chapter, Task]:
    """The chapter and task for an id like "1.3"."""
    head = task_id.split(".", 1)[0]
    if not head.isdigit() or "." not in task_id:
        raise ValueError(f"a task id looks like 1.3 (chapter.task), not {task_id!r}")
    ch = chapter(int(head))
    if not ch.ready:
        raise ValueError(f"chapter {ch.number} ({ch.title}) is not written yet")
    return ch, ch.task(task_id)

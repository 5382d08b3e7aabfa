"""Task 6.7's training run: a small model trained, checkpointed, trained on (work a crash
then loses), resumed from the checkpoint with fresh objects, and trained to the end.

Its expectation can only come from training, so it is the reference's own run of the same
program on the same inputs (``autograder.expectations``): stored for the public seed
(``expectations.json`` beside this file, written by ``python -m autograder.expectations``),
recomputed in the grader's process from the reference for a secret seed.

A case is drawn from the seed: Gaussian clusters (one centre per class) as the data, the
initial weights U(−1/√fan_in, 1/√fan_in), a shuffled batch order per epoch, and a schedule
the program writes into the param groups each step (a step decay for SGD; a one-cycle
learning rate with β₁ or momentum cycled against it, as OneCycleLR does, for Adam and
AdamW), with gradients clipped by their total norm in some cases. The program does the
schedule and the clipping itself, so the run needs only the tasks before 6.7 (6.1, and the
update rule of the case); the schedulers and clipping have checks of their own.

Tolerances: the run is float64; the reference agrees with PyTorch to ~1e-12 over 50 steps,
and a correct implementation differs from it only in rounding (the order of a sum, where a
factor is applied), ~1e-15 per step, grown by at most a few orders over 12–16 steps of a
small MLP. Every known mistake of a resume (the step count or a moment buffer lost, the
saved options ignored, a snapshot that shares the live state) moves the first resumed loss
by 1e-3 relative or more. rtol 1e-7 sits between: the course repository's
test_expectations.py asserts that each mistake moves that loss by at least 10·RTOL and that
a correct rewrite of Adam's update stays within RTOL/100 (measured: ~2e-14) over every loss
and parameter.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...expectations import expected
from ...harness.api import Case, Check, show
from ...harness.table import Field, Fields, Rows, Rules, row, tr
from . import training_program

RTOL, ATOL = 1e-7, 1e-10
KEYS = ("losses", "lost", "params")


def _uniform(rng: np.random.Generator, fan_in: int, shape: tuple[int, ...]) -> np.ndarray:
    bound = 1 / math.sqrt(fan_in)
    return rng.uniform(-bound, bound, shape)


def one_cycle(total: int, peak: float, low: float = 0.85, high: float = 0.95) -> tuple:
    """OneCycleLR's numbers, written out: the lr rises from peak/25 to peak over the first
    30% of the steps and anneals (cosine) to peak/25/1e4; momentum goes high → low → high."""
    up = 0.3 * total - 1

    def anneal(start: float, end: float, pct: float) -> float:
        return end + (start - end) / 2 * (math.cos(math.pi * pct) + 1)

    lrs, momenta = [], []
    for t in range(total):
        if t <= up:
            pct = t / up
            lrs.append(anneal(peak / 25, peak, pct))
            momenta.append(anneal(high, low, pct))
        else:
            pct = (t - up) / (total - 1 - up)
            lrs.append(anneal(peak, peak / 25 / 1e4, pct))
            momenta.append(anneal(low, high, pct))
    return lrs, momenta


def training_case(
    rng: np.random.Generator,
    optimizer: str,
    options: dict,
    *,
    n: int = 48,
    features: int = 6,
    hidden: int = 8,
    classes: int = 3,
    batch: int = 12,
    epochs: int = 3,
    schedule: str = "step",
    peak: float = 0.05,
    clip: float | None = None,
    lost: int = 2,
) -> Case:
    """One run; its checkpoint falls in the middle of the second epoch."""
    centres = rng.normal(0.0, 1.5, (classes, features))
    y = rng.integers(0, classes, n)
    x = centres[y] + rng.normal(0.0, 1.0, (n, features))
    weights = [
        _uniform(rng, features, (features, hidden)),
        _uniform(rng, features, (hidden,)),
        _uniform(rng, hidden, (hidden, classes)),
        _uniform(rng, hidden, (classes,)),
    ]
    per_epoch = n // batch
    batches = [
        order[i * batch : (i + 1) * batch].tolist()
        for order in (rng.permutation(n) for _ in range(epochs))
        for i in range(per_epoch)
    ]
    total = len(batches)
    if schedule == "step":  # StepLR(step_size=one epoch, gamma=0.5)
        lrs, momenta = [peak * 0.5 ** (t // per_epoch) for t in range(total)], None
    else:
        lrs, momenta = one_cycle(total, peak)
    stop = per_epoch + per_epoch // 2 + 1
    inputs = dict(
        x=x,
        y=y,
        classes=classes,
        weights=weights,
        optimizer=optimizer,
        options=options,
        batches=batches,
        lrs=[[lr, 2 * lr] for lr in lrs],  # the biases' group at twice the rate
        momenta=momenta,
        clip=clip,
        stop=stop,
        lost=lost,
    )
    words = ", ".join(f"{k}={v}" for k, v in options.items())
    plan = (
        tr("a step decay", "阶梯衰减")
        if schedule == "step"
        else tr("a one-cycle lr and momentum", "单周期（one-cycle）的学习率与动量")
    )
    clipped = (
        tr(f", gradients clipped to norm {clip:g}", f"，梯度裁剪到范数 {clip:g}") if clip else ""
    )
    label = tr(
        f"{optimizer}({words}) on a {features}-{hidden}-{classes} MLP, {n} points, "
        f"batches of {batch}, {epochs} epochs, {plan}{clipped}; state_dict() at step "
        f"{stop}, {lost} steps lost, resumed with a fresh optimizer",
        f"{optimizer}({words}) 训练一个 {features}-{hidden}-{classes} 的 MLP，{n} 个数据点，"
        f"批量大小 {batch}，{epochs} 轮，{plan}{clipped}；第 {stop} 步时 state_dict()，"
        f"丢失 {lost} 步，用一个新的优化器恢复",
    )
    return Case(label, inputs, expected(training_program.training, inputs))


def training_verdict(case: Case, received: Any) -> str | None:
    # code: the lost steps' field is judged between the two sides of the checkpoint, in the
    # middle of the losses (a "*" judges a list in one go); a field per step's loss
    stop, n = case.inputs["stop"], len(case.expected["losses"])
    losses = [
        Field(
            f"losses.{t}",
            tr(f"step {t}'s loss", f"第 {t} 步的损失")
            if t < stop
            else tr(
                f"after load_state_dict (the checkpoint of step {stop}), step {t}'s loss",
                f"load_state_dict（第 {stop} 步的检查点）之后，第 {t} 步的损失",
            ),
            RTOL,
            ATOL,
            says=BEFORE if t < stop else RESUMED,
        )
        for t in range(n)
    ]
    return Fields(
        [
            *losses[:stop],
            Field(
                "lost",
                {
                    "en": "the losses of the steps taken after state_dict()",
                    "zh": "state_dict() 之后所走各步的损失",
                },
                RTOL,
                ATOL,
                says=READS,
            ),
            *losses[stop:],
            Field("params", {"en": "the final parameters", "zh": "最终的参数"}, RTOL, ATOL),
        ],
        before=Rules.of(
            (
                lambda case, got: not isinstance(got["losses"], list) or len(got["losses"]) != n,
                lambda case, got: tr(
                    f"expected {n} losses, received {show(got['losses'])}",
                    f"期望 {n} 个损失值，实际收到 {show(got['losses'])}",
                ),
            )
        ),
        keys=KEYS,
    )(case, received)


BEFORE = {
    "en": "before any state_dict(): the optimizer's update (its own task) or its param groups "
    "differ from PyTorch's",
    "zh": "在任何 state_dict() 之前：优化器的更新（它自己的任务）或它的参数组就已与 PyTorch 的不同",
}
READS = {
    "en": "state_dict must only read the optimizer, never change it",
    "zh": "state_dict 只能读取优化器，绝不能改动它",
}
RESUMED = {
    "en": "the resumed optimizer must go on exactly as the saved one would: its step count, its "
    "buffers, each group's saved options, from a snapshot that training after state_dict() "
    "left unchanged",
    "zh": "恢复后的优化器必须与保存时的优化器完全一样地继续：它的步数、缓冲区、每个参数组保存的"
    "选项，都来自一个不受 state_dict() 之后的训练影响的快照",
}


# the run needs Optimizer (6.1) and each case's update rule (6.2, 6.5, 6.6) before 6.7
REQUIRES = ("6.1", "6.2", "6.5", "6.6")

CHECKS = [
    Check(
        "6.7",
        "a training run stopped, saved and resumed",
        Rows(
            [
                row(training_case, "SGD", dict(momentum=0.9, nesterov=True, weight_decay=1e-3)),
                row(
                    training_case,
                    "Adam",
                    dict(betas=(0.9, 0.99), weight_decay=1e-3),
                    n=64,
                    features=8,
                    hidden=16,
                    classes=4,
                    batch=16,
                    schedule="one-cycle",
                    peak=0.02,
                    clip=0.5,
                ),
                row(
                    training_case,
                    "AdamW",
                    dict(weight_decay=0.05, amsgrad=True),
                    schedule="one-cycle",
                    peak=0.03,
                ),
            ]
        ),
        training_program.training,
        training_verdict,
        requires=REQUIRES,
        title={"zh": "一次中途停止、保存并恢复的训练"},
    ),
]

"""Hidden rows of task 6.7's training run (``autograder/checks/ch06_optim/training.py``):
other data, widths, batch sizes, options and checkpoint places than the public ones, run
by the public program and judged by the public verdict. Their expectations for the public
seed are stored beside this file (``make expectations``); a secret seed's are recomputed
by the grader from the reference."""

from __future__ import annotations

from ...checks.ch06_optim.training import training_case
from ...harness.table import Hidden, Rows, row

# the public training check's program, verdict and requires, other runs
TRAINING = Hidden(
    "a training run stopped, saved and resumed",
    Rows(
        [
            row(
                training_case,
                "SGD",
                dict(momentum=0.8, dampening=0.1, weight_decay=1e-2),
                n=60,
                features=5,
                hidden=12,
                classes=5,
                batch=15,
                clip=1.0,
                lost=3,
            ),
            row(
                training_case,
                "Adam",
                dict(amsgrad=True),
                n=40,
                features=7,
                hidden=6,
                batch=8,
                epochs=2,
                schedule="one-cycle",
                peak=0.05,
            ),
            row(
                training_case,
                "AdamW",
                dict(betas=(0.8, 0.95), weight_decay=0.1),
                features=4,
                hidden=10,
                classes=2,
                schedule="one-cycle",
                peak=0.02,
                clip=0.3,
                lost=1,
            ),
        ]
    ),
    "a training run stopped, saved and resumed (held out)",  # en-only: the hidden check's id
    title={"zh": "一次中途停止、保存并恢复的训练（隐藏）"},
)

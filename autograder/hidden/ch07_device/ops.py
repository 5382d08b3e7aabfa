"""Hidden checks of chapter 7's operations (tasks 7.7 and 7.8): rows of the public case
builders (``autograder/checks/ch07_device/ops.py``), run by the public programs and judged
by the public verdicts, on other cases: 4-D tensors, every axis of a 3-D one, indices
smaller than the input on several axes, an index of one element, empty pieces and many
inputs, float32 among them, and each op once more on the simulated device. Labels name the
kind of case, never the drawn values."""

from __future__ import annotations

import numpy as np

from ...checks.ch07_device.ops import CHECKS as PUBLIC
from ...checks.ch07_device.ops import cat_case, gather_case
from ...harness.api import Case
from ...harness.table import Hidden, hidden_checks


def _gather(rng: np.random.Generator) -> list[Case]:
    return [
        gather_case(rng, (1,), 0, (1,)),
        gather_case(rng, (4, 1), 1, (4, 3), repeats="all"),
        gather_case(rng, (3, 4, 5), 0, (6, 4, 5), repeats="some"),
        gather_case(rng, (3, 4, 5), -2, (2, 7, 3), repeats="some"),
        gather_case(rng, (3, 4, 5), 2, (3, 4, 9)),
        gather_case(rng, (2, 3, 2, 4), 3, (2, 3, 2, 6), repeats="some"),
        gather_case(rng, (2, 3, 2, 4), 1, (1, 5, 2, 2), dtype="float32"),
        gather_case(rng, (5, 4), 0, (9, 2), repeats="some", second=True),
        gather_case(rng, (2, 4, 3), -1, (2, 3, 5), repeats="some", second=True, device="sim"),
    ]


def _cat(rng: np.random.Generator) -> list[Case]:
    return [
        cat_case(rng, [(1,), (1,), (1,)], 0),
        cat_case(rng, [(2, 0), (2, 3), (2, 1)], 1),
        cat_case(rng, [(3, 2, 2), (1, 2, 2)], -3),
        cat_case(rng, [(2, 1, 3, 2), (2, 1, 3, 4), (2, 1, 3, 1)], 3, dtype="float32"),
        cat_case(rng, [(1, 4)] * 6, 0),
        cat_case(rng, [(2, 2), (2, 2)], 0, stack=True),
        cat_case(rng, [(3, 1, 2)] * 2, 3, stack=True),
        cat_case(rng, [(2, 3), (4, 3), (1, 3)], 0, second=True),
        cat_case(rng, [(2, 2, 3)] * 3, 1, stack=True, second=True),
        cat_case(rng, [(3, 2), (1, 2), (2, 2)], 0, second=True, device="sim"),
    ]


CHECKS = hidden_checks(
    PUBLIC,
    [
        Hidden(
            "gather: values and gradient",
            _gather,
            "gather (held out)",
            title={"zh": "gather（隐藏）"},
        ),
        Hidden(
            "cat: values and gradients",
            _cat,
            "cat and stack (held out)",  # en-only: this row's id (title=)
            title={"zh": "cat 和 stack（隐藏）"},
        ),
    ],
)

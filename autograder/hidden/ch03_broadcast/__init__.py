"""Hidden checks for chapter 3 — broadcasting-aware gradients.

Rows of chapter 3's public case builders (``cases``), run by the public programs (chapter
3's ``unbroadcast`` and ``expand``, chapter 2's ``op``) and judged by the public verdicts,
on other shapes than the public sweep's: 4-D and 5-D grads, square grads (no axis can be
told by its size), empty axes behind a broadcast, both operands of an op broadcast at once
and in different memory layouts, matmul batches broadcast on both sides, and ``expand``
with several new axes and -1 in a later one. Cases run small to large.
"""

from __future__ import annotations

import numpy as np

from ...checks.ch02_tensor.cases import op_case
from ...checks.ch03_broadcast import CHECKS as PUBLIC
from ...checks.ch03_broadcast import catalog as public
from ...checks.ch03_broadcast.cases import broadcast_op_case, expand_cases, unbroadcast_cases
from ...checks.ch03_broadcast.catalog import CATALOG, Shape
from ...harness.api import Case
from ...harness.language import Text
from ...harness.table import Hidden, hidden_checks

P, T, ROWS, COLS = "plain", "transposed", "every other row", "columns from 1"  # en-only: views
OPS = {op.name: op for op in CATALOG}  # broadcast_to and sum_to_size

# -- task 3.1: unbroadcast itself, as (grad's shape, shape) ------------------------------------

UNBROADCAST: list[tuple[Shape, Shape]] = [
    ((1,), ()),
    ((1, 3), (3,)),
    ((1, 1), (1,)),
    ((4, 1), (1,)),
    ((4, 4), (1, 4)),
    ((4, 4), (4, 1)),
    ((1, 6, 2), (1, 2)),
    ((2, 0, 3), (1, 3)),
    ((1, 1, 4, 5), (4, 1)),
    ((3, 1, 5), (1, 1, 5)),
    ((2, 3, 4, 5, 6), (1, 4, 1, 6)),
    ((16, 8, 32), (8, 1)),
]
UNBROADCAST = [pair for pair in UNBROADCAST if pair not in public.UNBROADCAST]  # the sweep's


# -- task 3.1 through chapter 2's ops: (op, a's layout, b's layout) -----------------------------

PAIRS: list[tuple[str, tuple[Shape, str], tuple[Shape, str]]] = [
    ("mul", ((), P), ((2, 3, 4), P)),
    ("add", ((1, 6, 2), P), ((1, 2), P)),
    ("sub", ((1,), P), ((4, 3), T)),
    ("mul", ((5, 1, 3), P), ((1, 4, 1), P)),
    ("add", ((6, 4), ROWS), ((3, 1), P)),
    ("div", ((2, 3, 1, 4), P), ((3, 5, 1), P)),
    ("sub", ((1, 1, 3), P), ((2, 1), P)),
    ("matmul", ((3,), P), ((2, 2, 3, 4), P)),
    ("matmul", ((2, 1, 3, 4), P), ((4,), P)),
    ("matmul", ((4, 1, 3, 2), P), ((5, 2, 3), P)),
    ("div", ((4, 1, 1), P), ((3, 5), COLS)),
    ("add", ((32, 1, 16), P), ((8, 16), P)),
]
FLOAT32 = [("mul", ((2, 1, 3), P), ((4, 3), P)), ("matmul", ((1, 3, 4), P), ((2, 4, 2), P))]


def _broadcast_op_cases(rng: np.random.Generator) -> list[Case]:
    cases = [broadcast_op_case(rng, name, [a, b]) for name, a, b in PAIRS]
    return cases + [broadcast_op_case(rng, name, [a, b], "float32") for name, a, b in FLOAT32]


# -- task 3.2: broadcast_to and sum_to_size, as (op, input layout, target shape) ----------------

SHAPE_OPS: list[tuple[str, tuple[Shape, str], Shape]] = [
    ("broadcast_to", ((), P), (2, 3)),
    ("sum_to_size", ((2, 3), P), (1, 1)),
    ("broadcast_to", ((1, 1), P), (3, 1, 4)),
    ("sum_to_size", ((4, 4), P), (1, 4)),
    ("sum_to_size", ((4, 4), P), (4, 1)),
    ("broadcast_to", ((1, 2), P), (1, 6, 2)),
    ("sum_to_size", ((1, 6, 2), P), (1, 2)),
    ("broadcast_to", ((3,), P), (2, 2, 3)),
    ("broadcast_to", ((4, 1), T), (2, 3, 4)),
    ("sum_to_size", ((3, 6), COLS), (1, 5)),
    ("sum_to_size", ((2, 3, 4, 5), P), (4, 1)),
    ("broadcast_to", ((2, 1, 1), P), (2, 3, 4)),
    ("sum_to_size", ((8, 8, 12), P), (8, 1)),
]


SHAPE_OPS_FLOAT32 = [
    ("broadcast_to", ((3, 1), P), (2, 3, 4)),
    ("sum_to_size", ((1, 5, 3), P), (1, 3)),
]


def _shape_op_cases(rng: np.random.Generator) -> list[Case]:
    cases = [op_case(OPS[name], rng, {"shape": t}, [layout]) for name, layout, t in SHAPE_OPS]
    for name, layout, target in SHAPE_OPS_FLOAT32:
        cases.append(op_case(OPS[name], rng, {"shape": target}, [layout], dtype="float32"))
    return cases


# -- task 3.3: expand, as (a's shape, sizes); errors as (a's shape, sizes, naming, what) ---------

EXPAND: list[tuple[Shape, Shape]] = [
    ((4,), (1, 1, -1)),
    ((1,), (2, 3, -1)),
    ((1, 1), (3, -1, 4)),
    ((3, 1), (-1, -1)),
    ((2, 1, 1), (-1, 3, 4)),
    ((1, 2), (0, -1)),
    ((1, 3, 1, 2), (5, -1, 4, -1)),
    ((1, 8, 1), (16, -1, 32)),
]

EXPAND_ERRORS: list[tuple[Shape, Shape, list[str], Text]] = [
    (
        (2,),
        (3, -1, 2),
        ["-1"],
        {
            "en": "-1 names the second of two new leading axes",
            "zh": "-1 对应了两个新增前导轴中的第二个",
        },
    ),
    ((1, 2, 3), (2, 3), [], {"en": "fewer sizes than axes", "zh": "给出的大小个数少于 a 的轴数"}),
    (
        (2, 3),
        (2, 5),
        ["(2, 5)"],
        {"en": "a size that is not 1 cannot change", "zh": "大小不为 1 的轴不能改变大小"},
    ),
]


# each a public entry's program, verdict and requires (the broadcast ops' verdict blames the
# chapter-2 task of each case's own op)
CHECKS = hidden_checks(
    PUBLIC,
    [
        Hidden(
            "unbroadcast(grad, shape)",
            unbroadcast_cases(UNBROADCAST, float32=[((1, 5, 3), (1, 3))]),
            "unbroadcast(grad, shape) "
            "(hidden: size-1 leading axes, square, 5-D)",  # en-only: the hidden check's id
            title={"zh": "unbroadcast(grad, shape)（隐藏：大小为 1 的前导轴、方阵、5 维）"},
        ),
        Hidden(
            "a + b (broadcast)",
            _broadcast_op_cases,
            "a + b, a - b, a * b, a / b, a @ b "
            "(hidden: both operands broadcast)",  # en-only: the hidden check's id
            title={"zh": "a + b、a - b、a * b、a / b、a @ b（隐藏：两个操作数都广播）"},
        ),
        Hidden(
            "a.broadcast_to(shape)",
            _shape_op_cases,
            "a.broadcast_to(shape), a.sum_to_size(shape) "
            "(hidden: other shapes)",  # en-only: the hidden check's id
            title={"zh": "a.broadcast_to(shape)、a.sum_to_size(shape)（隐藏：其他形状）"},
        ),
        Hidden(
            "a.expand(*sizes)",
            expand_cases(EXPAND, ((2, 1), (3, -1, 4)), EXPAND_ERRORS),
            "a.expand(*sizes) "
            "(hidden: several new axes, -1 further in)",  # en-only: the hidden check's id
            title={"zh": "a.expand(*sizes)（隐藏：多个新增轴，-1 在靠后的位置）"},
        ),
    ],
)

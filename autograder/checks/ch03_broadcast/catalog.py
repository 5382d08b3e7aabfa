"""Chapter 3's case tables: shape pairs, small to large, and the autograder's own
references. Broadcasting is computed here from its definition (where each element of the
larger array comes from), never with the code under test.

Every table covers leading axes added, size-1 axes stretched (first, middle, last),
both operands broadcast, 0-d tensors and scalars, and empty axes where they mean something,
then one large pair. ``unbroadcast``'s table is a sweep: every shape that broadcasts to each
of a set of small grads (leading axes of size 1 dropped, size-1 axes kept while others are
stretched), then the explicit pairs (empty, 4-D, large). ``sum_to``
(``harness.gradcheck``) is the autograder's own sum.
"""

from __future__ import annotations

import itertools

import numpy as np

from ...harness.api import Case
from ...harness.gradcheck import sum_to
from ...harness.language import Text, tr
from ..ch02_tensor.catalog import Layout, Op, Shape
from ..ch02_tensor.catalog import error_case as ch02_error_case


def expanded(shape: Shape, sizes: Shape) -> Shape:
    """The shape ``expand(*sizes)`` gives a tensor of ``shape``: -1 keeps a size."""
    new = len(sizes) - len(shape)
    return tuple(shape[i - new] if n == -1 else n for i, n in enumerate(sizes))


# -- task 3.1: unbroadcast(grad, shape), as (grad's shape, shape) ------------------------------


def shapes_onto(grad_shape: Shape) -> list[Shape]:
    """Every shape that broadcasts to ``grad_shape``: its leading axes dropped (any number
    of them), and each remaining axis kept or made 1."""
    out = []
    for lead in range(len(grad_shape) + 1):
        rest = grad_shape[lead:]
        for ones in itertools.product([False, True], repeat=len(rest)):
            shape = tuple(1 if one else n for one, n in zip(ones, rest))
            if shape not in out:
                out.append(shape)
    return out


# grads whose every reduction is a case: size-1 axes first, middle and last, next to
# stretched ones, so that a dropped axis of size 1 and a summed one are told apart
SWEPT_GRADS: list[Shape] = [
    (),
    (1,),
    (3,),
    (1, 1),
    (1, 3),
    (3, 1),
    (2, 3),
    (1, 2, 3),
    (2, 1, 3),
    (2, 3, 1),
    (2, 3, 4),
]

UNBROADCAST: list[tuple[Shape, Shape]] = [
    *[(grad, shape) for grad in SWEPT_GRADS for shape in shapes_onto(grad)],  # each pair once
    ((5, 1, 4), (1, 1, 4)),
    ((2, 3, 4, 5), (4, 5)),
    ((2, 3, 4, 5), (3, 1, 1)),
    ((0, 3), (1, 3)),
    ((0, 3), (3,)),
    ((2, 0), (2, 1)),
    ((3, 0), (0,)),
    ((64, 128), (128,)),
    ((32, 16, 64), (16, 1)),
    ((8, 16, 32), (1, 16, 1)),
]

# -- task 3.1 through the ops: operand layouts (a, b), after one pair without broadcasting -----

ELEMENTWISE: list[list[Layout]] = [
    [((2, 3), "plain"), ((2, 3), "plain")],  # no broadcasting: chapter 2's backward alone
    [((), "plain"), ((3,), "plain")],
    [((3,), "plain"), ((), "plain")],
    [((1,), "plain"), ((3,), "plain")],
    [((2, 3), "plain"), ((3,), "plain")],
    [((3,), "plain"), ((2, 3), "plain")],
    [((2, 1), "plain"), ((1, 3), "plain")],
    [((4, 1), "plain"), ((4,), "plain")],  # (64, 1) + (64,) is (64, 64)
    [((2, 3, 4), "plain"), ((3, 1), "plain")],
    [((2, 3, 4), "plain"), ((2, 1, 4), "plain")],
    [((2, 1, 4), "plain"), ((1, 3, 1), "plain")],
    [((1, 3), "plain"), ((3,), "plain")],  # a leading axis of size 1 dropped
    [((1, 2, 3), "plain"), ((2, 1), "plain")],
    [((0, 3), "plain"), ((3,), "plain")],
    [((2, 0), "plain"), ((1,), "plain")],
    [((4, 3), "transposed"), ((4,), "plain")],
    [((3,), "plain"), ((6, 3), "every other row")],  # en-only: a view's name (programs.VIEWS)
    [((64, 32), "plain"), ((32,), "plain")],
    [((16, 1, 32), "plain"), ((8, 1), "plain")],
]

MATMUL: list[list[Layout]] = [
    [((2, 3), "plain"), ((3, 4), "plain")],  # no broadcasting: chapter 2's backward alone
    [((3,), "plain"), ((2, 3, 4), "plain")],
    [((2, 3, 4), "plain"), ((4,), "plain")],
    [((2, 3, 4), "plain"), ((4, 5), "plain")],
    [((3, 4), "plain"), ((2, 4, 5), "plain")],
    [((1, 3, 4), "plain"), ((2, 4, 5), "plain")],
    [((1, 3, 4), "plain"), ((4, 5), "plain")],  # a leading batch axis of size 1 dropped
    [((2, 1, 3, 4), "plain"), ((5, 4, 2), "plain")],
    [((4, 3, 2), "transposed"), ((4,), "plain")],
    [((8, 16, 32), "plain"), ((32, 16), "plain")],
]

BROADCAST_OPS = ("add", "sub", "mul", "div", "matmul")  # chapter 2's binary ops
FLOAT32_PAIR = 4  # the index (in ELEMENTWISE / MATMUL) of the pair also checked in float32


# -- tasks 3.2 and 3.3: broadcasting as operations ---------------------------------------------


def error_case(label: str, name: str, shape: Shape, options: dict, naming: list[str]) -> Case:
    """``name`` applied to an input of ``shape`` must raise a RuntimeError whose message
    names ``naming``."""
    arrays = [np.ones(shape)]
    return ch02_error_case(label, name, arrays, naming, options=options, error_type="RuntimeError")


def _shape_variants(pairs: list[tuple[Shape, Shape]], view: dict | None = None) -> list:
    """(input shape, target) pairs as catalog variants; ``view``: {index: (shape, view)}."""
    variants = []
    for i, (shape, target) in enumerate(pairs):
        layout = (view or {}).get(i, (shape, "plain"))
        variants.append(({"shape": target}, [layout]))
    return variants


CATALOG = [
    Op(
        "broadcast_to",
        "3.2",
        "a.broadcast_to{shape}",
        lambda a, shape: np.broadcast_to(a, shape),
        variants=_shape_variants(
            [
                ((), ()),
                ((), (3,)),
                ((1,), (4,)),
                ((3,), (2, 3)),
                ((2, 1), (2, 3)),
                ((2, 3), (2, 3)),
                ((3, 1), (2, 3, 4)),
                ((1, 3, 1), (2, 3, 4)),
                ((1,), (0,)),
                ((0,), (2, 0)),
                ((1, 3), (4, 3)),
                ((64,), (32, 64)),
            ],
            view={10: ((3, 1), "transposed")},
        ),
        extra=[
            lambda: error_case(
                tr(
                    "a.broadcast_to(2, 4) with a of shape (3,): an error naming both shapes",
                    "a.broadcast_to(2, 4)，其中 a 的形状为 (3,)：应抛出写明两个形状的错误",
                ),
                "broadcast_to",
                (3,),
                {"shape": (2, 4)},
                ["(3,)", "(2, 4)"],
            )
        ],
    ),
    Op(
        "sum_to_size",
        "3.2",
        "a.sum_to_size{shape}",
        sum_to,
        variants=_shape_variants(
            [
                ((), ()),
                ((3,), ()),
                ((3,), (1,)),
                ((2, 3), (3,)),
                ((2, 3), (2, 1)),
                ((2, 3), (2, 3)),
                ((2, 3, 4), (3, 1)),
                ((2, 3, 4), (1, 3, 1)),
                ((0, 3), (1, 3)),
                ((2, 0), (2, 1)),
                ((3, 4), (1, 4)),
                ((32, 64), (64,)),
            ],
            view={10: ((4, 3), "transposed")},
        ),
        extra=[
            lambda: error_case(
                tr(
                    "a.sum_to_size(4) with a of shape (2, 3): an error naming both shapes",
                    "a.sum_to_size(4)，其中 a 的形状为 (2, 3)：应抛出写明两个形状的错误",
                ),
                "sum_to_size",
                (2, 3),
                {"shape": (4,)},
                ["(4,)", "(2, 3)"],
            )
        ],
    ),
]

# -- task 3.3: a.expand(*sizes), as (a's shape, sizes); errors as (a's shape, sizes, naming) ----

EXPAND: list[tuple[Shape, Shape]] = [
    ((), (3,)),
    ((1,), (-1,)),
    ((1,), (4,)),
    ((3,), (2, -1)),
    ((2, 1), (-1, 3)),
    ((3, 1), (2, -1, 4)),
    ((1, 3, 1), (2, -1, 5)),
    ((3, 1), (4, 2, -1, 5)),
    ((2, 3), (-1, -1)),
    ((1, 64), (32, -1)),
]

EXPAND_ERRORS: list[tuple[Shape, Shape, list[str], Text]] = [
    (
        (3,),
        (-1, 3),
        ["-1"],
        {"en": "-1 names a new leading axis", "zh": "-1 对应了一个新增的前导轴"},
    ),
    ((2, 3), (3,), [], {"en": "fewer sizes than axes", "zh": "给出的大小个数少于 a 的轴数"}),
    (
        (3,),
        (2, 4),
        ["(2, 4)"],
        {"en": "an error naming the shape asked for", "zh": "应抛出写明所请求形状的错误"},
    ),
]

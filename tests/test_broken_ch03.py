"""Deliberately broken chapter-3 variants: plausible student bugs in ``unbroadcast``,
``broadcast_to``/``sum_to_size`` and ``expand``. Each must fail the task it breaks and no
other (3.2 and 3.3 run ``unbroadcast``, so they may report "blocked by 3.1"): see
tests/test_broken_ch01.py."""

from __future__ import annotations

import pytest

from tests.trees import assert_fails_its_task_only, check_variants

UNBROADCAST_LEADING_ONLY = """
leading = grad.ndim - len(shape)
if leading:
    grad = grad.sum(dim=tuple(range(leading)))
return grad
"""

UNBROADCAST_ONE_LEADING_AXIS = """
if grad.ndim > len(shape):
    grad = grad.sum(dim=0)
stretched = tuple(axis for axis, n in enumerate(shape) if n == 1 and grad.shape[axis] != 1)
if stretched:
    grad = grad.sum(dim=stretched, keepdim=True)
return grad
"""

UNBROADCAST_FROM_THE_LEFT = """
stretched = tuple(axis for axis, n in enumerate(shape) if n == 1 and grad.shape[axis] != 1)
if stretched:
    grad = grad.sum(dim=stretched, keepdim=True)
leading = grad.ndim - len(shape)
if leading:
    grad = grad.sum(dim=tuple(range(leading)))
return grad
"""

UNBROADCAST_ON_ARRAYS = """
data = grad.data
leading = grad.ndim - len(shape)
data = data.sum(axis=tuple(range(leading)))
stretched = tuple(axis for axis, n in enumerate(shape) if n == 1 and data.shape[axis] != 1)
return type(grad)(data.sum(axis=stretched, keepdims=True))
"""

EXPAND_WITHOUT_THE_LEADING_RULE = """
new = len(sizes) - x.ndim
if new < 0:
    raise RuntimeError(f"expand{sizes}: too few sizes for shape {x.shape}")
shape = [x.shape[axis - new] if size == -1 else size for axis, size in enumerate(sizes)]
return broadcast_to(x, shape)
"""

# (name, file, edit, the task it breaks): see tests/trees.py
VARIANTS = [
    (
        "unbroadcast forgets stretched axes",
        "unbroadcast.py",
        ("region", UNBROADCAST_LEADING_ONLY),
        "3.1",
    ),
    (
        "unbroadcast drops stretched axes",
        "unbroadcast.py",
        ("grad.sum(dim=stretched, keepdim=True)", "grad.sum(dim=stretched)"),
        "3.1",
    ),
    (
        "unbroadcast sums with an empty dim",
        "unbroadcast.py",
        ("    if stretched:  # size-1", "    if True:  # size-1"),
        "3.1",
    ),
    (
        "unbroadcast averages the leading axes",
        "unbroadcast.py",
        (
            "grad = grad.sum(dim=tuple(range(leading)))",
            "grad = grad.mean(dim=tuple(range(leading)))",
        ),
        "3.1",
    ),
    (
        "unbroadcast sums one leading axis",
        "unbroadcast.py",
        ("region", UNBROADCAST_ONE_LEADING_AXIS),
        "3.1",
    ),
    (
        "unbroadcast aligns from the left",
        "unbroadcast.py",
        ("region", UNBROADCAST_FROM_THE_LEFT),
        "3.1",
    ),
    ("unbroadcast sums the arrays", "unbroadcast.py", ("region", UNBROADCAST_ON_ARRAYS), "3.1"),
    (
        "unbroadcast forgets 0-d shapes",
        "unbroadcast.py",
        (
            "    leading = grad.ndim - len(shape)\n",
            "    leading = grad.ndim - max(len(shape), 1)\n",
        ),
        "3.1",
    ),
    (
        "broadcast_to's backward leaves the summing to the seam",
        "broadcast.py",
        ("return sum_to_size(grad_output, ctx.shape)", "return grad_output"),
        "3.2",
    ),
    (
        "sum_to_size's backward does not broadcast",
        "broadcast.py",
        ("return broadcast_to(grad_output, ctx.shape)", "return grad_output"),
        "3.2",
    ),
    (
        "broadcast_to's backward computes on the array",
        "broadcast.py",
        (
            "return sum_to_size(grad_output, ctx.shape)",
            "return type(grad_output)(sum_to_size(grad_output, ctx.shape).data)",
        ),
        "3.2",
    ),
    (
        "expand keeps the size of the wrong axis",
        "expand.py",
        ("size = x.shape[axis - new]", "size = x.shape[min(axis, x.ndim - 1)]"),
        "3.3",
    ),
    (
        "expand lets -1 name a new axis",
        "expand.py",
        ("region", EXPAND_WITHOUT_THE_LEADING_RULE),
        "3.3",
    ),
]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return check_variants(3, VARIANTS, tmp_path_factory.mktemp("variants"))


def test_there_are_enough_variants() -> None:
    assert len(VARIANTS) >= 8
    assert {task for *_, task in VARIANTS} == {"3.1", "3.2", "3.3"}


@pytest.mark.parametrize(("name", "file", "edit", "task"), VARIANTS, ids=[v[0] for v in VARIANTS])
def test_variant_fails_its_task_only(
    outcomes: dict, name: str, file: str, edit: tuple, task: str
) -> None:
    assert_fails_its_task_only(outcomes[name], task)

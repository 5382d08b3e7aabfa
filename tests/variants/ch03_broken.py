"""Chapter 3's broken set: plausible student bugs in ``unbroadcast``,
``broadcast_to``/``sum_to_size`` and ``expand`` (3.2 and 3.3 run ``unbroadcast``, so they
may report "blocked by 3.1"), and unusual but correct rewrites (judged by
tests/test_variants.py)."""

from __future__ import annotations

from functools import partial

from tests.trees import edits
from tests.variants import VariantSet

edits = partial(edits, "ch03_broadcast")

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

UNBROADCAST_AS_A_NEW_LEAF = """
lead = grad.ndim - len(shape)
axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1)
data = grad.data.sum(axis=axes, keepdims=True)
return type(grad)(data, requires_grad=grad.requires_grad).reshape(shape)
"""

UNBROADCAST_BEHIND_A_ZERO = """
lead = grad.ndim - len(shape)
axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1)
data = grad.data.sum(axis=axes, keepdims=True).reshape(shape)
return type(grad)(data) + grad.sum() * 0
"""

# (moved here from tests/test_hidden_checks.py: the public sweep of leading size-1 axes
# catches it now)

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
        edits(
            "unbroadcast.py",
            ("if leading:  # axes that broadcasting put in front", "if leading:"),
            (
                "    stretched = tuple(axis for axis, n in "
                "enumerate(shape) if n == 1 and grad.shape[axis] != 1)\n"
                "    if stretched:  # size-1 axes that were "
                "stretched (an empty dim would sum every axis)\n"
                "        grad = grad.sum(dim=stretched, keepdim=True)\n",
                "",
            ),
        ),
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
        edits(
            "unbroadcast.py",
            (
                (
                    "leading = grad.ndim - len(shape)\n"
                    "    if leading:  # axes that broadcasting put in front\n"
                    "        grad = grad.sum(dim=tuple(range(leading)))"
                ),
                (
                    "if grad.ndim > len(shape):  # axes that broadcasting put in front\n"
                    "        grad = grad.sum(dim=0)"
                ),
            ),
        ),
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
        "unbroadcast makes a new leaf of a NumPy sum",
        "unbroadcast.py",
        ("region", UNBROADCAST_AS_A_NEW_LEAF),
        "3.1",
    ),
    (
        "unbroadcast hides a NumPy sum behind a zero",
        "unbroadcast.py",
        ("region", UNBROADCAST_BEHIND_A_ZERO),
        "3.1",
    ),
    (
        "unbroadcast keeps leading axes of size 1: (1, 3) -> (1, 3), not (3,)",
        "unbroadcast.py",
        edits(
            "unbroadcast.py",
            (
                "grad.ndim - len(shape)",
                "tuple(axis for axis in range(grad.ndim - len(shape)) if grad.shape[axis] != 1)",
            ),
            (
                (
                    "grad = grad.sum(dim=tuple(range(leading)))\n"
                    "    stretched = tuple(axis for axis, n in enumerate(shape) if n =="
                    " 1 and grad.shape[axis] != 1)"
                ),
                (
                    "grad = grad.sum(dim=leading)\n"
                    "    lead = grad.ndim - len(shape)\n"
                    "    stretched = tuple(\n"
                    "        lead + axis for axis, n in enumerate(shape) if n == 1 and"
                    " grad.shape[lead + axis] != 1)"
                ),
            ),
        ),
        "3.1",
    ),
    (
        "unbroadcast reads the stretched axes off grad before dropping its leading axes",
        "unbroadcast.py",
        edits(
            "unbroadcast.py",
            (
                "if leading:  # axes that broadcasting put in front",
                "stretched = tuple(axis for axis, n in "
                "enumerate(shape) if n == 1 and grad.shape[axis] != 1)\n"
                "    if leading:",
            ),
            (
                "stretched = tuple(axis for axis, n in "
                "enumerate(shape) if n == 1 and grad.shape[axis] != 1)\n"
                "    if stretched:  # size-1 axes that were "
                "stretched (an empty dim would sum every axis)",
                "if stretched:",
            ),
        ),
        "3.1",
    ),
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
        "broadcast_to's backward in NumPy, attached to the graph with * 0",
        "broadcast.py",
        (
            "return sum_to_size(grad_output, ctx.shape)",
            "answer = type(grad_output)(sum_to_size(grad_output, ctx.shape).data)\n"
            "        return answer + grad_output.sum() * 0",
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


# Unusual but correct code: each must score every point.
UNBROADCAST_ONE_AXIS_AT_A_TIME = """
for _ in range(grad.ndim - len(shape)):
    grad = grad.sum(dim=0)
for axis in reversed(range(len(shape))):
    if shape[axis] == 1 and grad.shape[axis] != 1:
        grad = grad.sum(dim=axis, keepdim=True)
return grad
"""

UNBROADCAST_THEN_RESHAPE = """
lead = grad.ndim - len(shape)
axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1)
return grad.sum(dim=axes).reshape(shape) if axes else grad * 1
"""

EXPAND_BY_RESHAPE = """
new = len(sizes) - x.ndim
if new < 0:
    raise RuntimeError(f"expand{sizes}: fewer sizes than the dimensions of {x.shape}")
if -1 in sizes[:new]:
    raise RuntimeError(f"expand{sizes}: -1 for a new leading dimension")
x = x.reshape((1,) * new + x.shape)
return broadcast_to(x, tuple(n if s == -1 else s for s, n in zip(sizes, x.shape)))
"""

CORRECT = [
    (
        "unbroadcast one axis at a time",
        "unbroadcast.py",
        ("region", UNBROADCAST_ONE_AXIS_AT_A_TIME),
        "3.1",
    ),
    (
        "unbroadcast sums then reshapes",
        "unbroadcast.py",
        ("region", UNBROADCAST_THEN_RESHAPE),
        "3.1",
    ),
    (
        "broadcast_to's backward calls unbroadcast",
        "broadcast.py",
        (
            "return sum_to_size(grad_output, ctx.shape)",
            "return unbroadcast(grad_output, ctx.shape)",
        ),
        "3.2",
    ),
    (
        "sum_to_size's backward multiplies by ones",
        "broadcast.py",
        (
            "return broadcast_to(grad_output, ctx.shape)",
            "return grad_output * _ch02.ones(ctx.shape, dtype=grad_output.dtype)",
        ),
        "3.2",
    ),
    ("expand adds the new axes with reshape", "expand.py", ("region", EXPAND_BY_RESHAPE), "3.3"),
]


# each variant's words: what its task's first failing check must say (the mistake named)
DIAGNOSES = {
    "unbroadcast forgets stretched axes": "broadcasting stretched it, and it was not summed",
    "unbroadcast drops stretched axes": "the stretched size-1 axes were summed away",
    "unbroadcast sums with an empty dim": "sum(dim=()) sums every axis",
    "unbroadcast averages the leading axes": "the leading axes were averaged, not summed",
    "unbroadcast sums one leading axis": "only 1 of grad's 2 leading axes",
    "unbroadcast aligns from the left": (
        "axis 0 of (1,) (size 1) lines up with grad's axis 1 (size 3), counting from the right"
    ),
    "unbroadcast sums the arrays": "the result is not recorded by the graph as computed from grad",
    "unbroadcast makes a new leaf of a NumPy sum": (
        "the result is not recorded by the graph as computed from grad"
    ),
    "unbroadcast hides a NumPy sum behind a zero": (
        "the graph recorded for the result is not the sum it should be"
    ),
    "unbroadcast keeps leading axes of size 1: (1, 3) -> (1, 3), not (3,)": (
        "grad's leading axis, which broadcasting put in front of (), was not summed away"
    ),
    "unbroadcast reads the stretched axes off grad before dropping its leading axes": (
        "axis 0 of (1,) (size 1) lines up with grad's axis 1 (size 3), counting from the right"
    ),
    "unbroadcast forgets 0-d shapes": (
        "grad's leading axis, which broadcasting put in front of (), was not summed away"
    ),
    "broadcast_to's backward leaves the summing to the seam": (
        "it is grad_output's shape, as it came, not summed back to a's shape"
    ),
    "sum_to_size's backward does not broadcast": (
        "it is grad_output's shape, as it came, not broadcast back to a's shape"
    ),
    "broadcast_to's backward computes on the array": (
        "is not computed from grad_output with Tensor operations"
    ),
    "broadcast_to's backward in NumPy, attached to the graph with * 0": (
        "(the pull-back ran Add.backward, Mul.backward, Sum.backward)"
    ),
    "expand keeps the size of the wrong axis": (
        "the -1 at position 1 became 1, but it lines up with a's axis 0 (size 3)"
    ),
    "expand lets -1 name a new axis": (
        "expected an exception, but none was raised: a -1 keeps the size of a's axis it lines "
        "up with, and a new leading axis lines up with none"
    ),
}


SET = VariantSet(
    3,
    "broken",
    VARIANTS,
    CORRECT,
    says=list(DIAGNOSES.items()),
    least=(8, 0),
)

"""Hidden checks for chapter 2 — the tensor wrapper.

Rows of chapter 2's public case builders (``cases.op_case``, ``cases.engine_case``), run
by its public programs and judged by its public verdicts, on cases the public catalog does
not have: 4-D and empty tensors, operands of different memory layouts (one transposed, one
sliced), Python numbers on the other side, zero factors of ``*``, reductions over several
axes with ``keepdim``, negative dims, 2-D and boolean index arrays, and
``two_layer_backward`` on other sizes and column-major inputs. Where the notebook states a
rule (zeros and negative bases for ``**``, saturated tanh and sigmoid, kinks and ties inside
2-D and 3-D tensors) the public catalog has fixed rows of it, and these checks draw more of
the same kind (``cases.with_zeros``, ``saturating``, ``with_kinks``, ``ties``) at the seed.
Each task has float32 rows too (the public verdict holds every result to its inputs' dtype,
both ways), the last of them on paths the public float32 sweep reaches from other data: a
number on the left, relu's kinks, a 1-D operand against a batch, a full sum, a three-way tie
of a full max, repeated indices into a transposed tensor.
One check per task; a check may run several ops of its task (each case names its op).
"""

from __future__ import annotations

import numpy as np

from ...checks.ch02_tensor import CHECKS as PUBLIC
from ...checks.ch02_tensor.cases import (
    engine_case,
    expression,
    layout_text,
    log_uniform,
    op_case,
    saturating,
    ties,
    with_kinks,
    with_zeros,
)
from ...checks.ch02_tensor.catalog import OPS, TITLES
from ...harness.api import Case
from ...harness.table import Hidden, hidden_checks, tr

P, T, ROWS, COLS = "plain", "transposed", "every other row", "columns from 1"  # en-only: views


def _op_case(rng: np.random.Generator, name: str, *layouts, options=None, **kw) -> Case:
    """One case of op ``name``: one (shape, view) per input, or one for all of them."""
    op = OPS[name]
    if len(layouts) == 1:
        layouts = layouts * op.arity
    return op_case(op, rng, options or {}, list(layouts), **kw)


def _number(rng: np.random.Generator, name: str, position: int, dtype: str = "float64") -> Case:
    """``name`` with a random Python number c at ``position`` (0: on the left)."""
    value = round(float(rng.uniform(0.5, 3)), 2) * rng.choice([-1, 1])
    tensor = "b" if position == 0 else "a"
    expr = OPS[name].expr.replace("ab"[position], "c")
    label = tr(
        f"{expr} with a Python number c and {tensor} of shape (3, 4)",
        f"{expr}，其中 c 是一个 Python 数，{tensor} 的形状为 (3, 4)",
    )
    label += tr(f", {dtype}", f"，{dtype}") if dtype != "float64" else ""
    number = (float(value), position)
    return _op_case(rng, name, ((3, 4), P), number=number, label=label, dtype=dtype)


def _on(
    rng: np.random.Generator,
    name: str,
    data: np.ndarray,
    what: str,
    view: str = P,
    options: dict | None = None,
    dtype: str = "float64",
    **kw,
) -> Case:
    """Unary op ``name`` on the given data (of the shape sent; the child makes the view),
    labelled with ``what`` kind of entries it holds."""
    label = tr(
        f"{expression(OPS[name], options or {})} with a of shape {layout_text(data.shape, view)}",
        f"{expression(OPS[name], options or {})}，其中 a 的形状为 {layout_text(data.shape, view)}",
    )
    label += tr(f", {what}", f"，{what}")
    label += tr(f", {dtype}", f"，{dtype}") if dtype != "float64" else ""
    return _op_case(
        rng, name, (data.shape, view), options=options, data=data, label=label, dtype=dtype, **kw
    )


# -- task 2.1: add, sub, neg ----------------------------------------------------------------------


def _add_sub_neg_cases(rng: np.random.Generator) -> list[Case]:
    return [
        _op_case(rng, "neg", ((0, 3), P)),
        _number(rng, "add", 0),
        _number(rng, "sub", 1),
        _op_case(rng, "sub", ((4, 3), T), ((6, 4), ROWS)),
        _op_case(rng, "add", ((2, 3, 4, 5), P)),
        _op_case(rng, "neg", ((4, 6), COLS)),
        _op_case(rng, "add", ((3, 5), COLS), ((4, 3), T), dtype="float32"),
        _op_case(rng, "sub", ((32, 32), P)),
        _number(rng, "sub", 0, "float32"),
    ]


# -- task 2.2: mul, div ---------------------------------------------------------------------------


def _mul_div_cases(rng: np.random.Generator) -> list[Case]:
    return [
        _op_case(rng, "mul", ((0,), P)),
        _op_case(
            rng,
            "mul",
            ((3, 4), P),
            data=[with_zeros(rng, (3, 4)), with_zeros(rng, (3, 4))],
            label=tr(
                "a * b with a and b of shape (3, 4), some entries of each 0",
                "a * b，其中 a 和 b 的形状均为 (3, 4)，两者都有一些元素为 0",
            ),
        ),
        _number(rng, "mul", 0),
        _number(rng, "div", 1),
        _op_case(rng, "mul", ((4, 3), T), ((3, 5), COLS)),
        _op_case(rng, "div", ((6, 4), ROWS), ((3, 4), P)),
        _op_case(rng, "mul", ((2, 3, 2, 2), P)),
        _op_case(rng, "div", ((4, 3), T), dtype="float32"),
        _op_case(rng, "mul", ((24, 40), P)),
        _number(rng, "div", 0, "float32"),
    ]


# -- task 2.3: pow --------------------------------------------------------------------------------


def _pow_cases(rng: np.random.Generator) -> list[Case]:
    def pow_case(n: float, data: np.ndarray, what: str, view: str = P, **kw) -> Case:
        return _on(rng, "pow", data, what, view, options={"exponent": n}, **kw)

    zeros = tr("zeros and negative entries", "元素中有 0 也有负数")
    negative, positive = tr("negative entries", "元素为负"), tr("positive entries", "元素为正")
    return [
        pow_case(2, with_zeros(rng, (4,)), zeros),
        pow_case(3, with_zeros(rng, (2, 3)), zeros),
        pow_case(1, with_zeros(rng, (3,)), zeros),
        pow_case(4, rng.uniform(-2, -0.5, (2, 2)), negative),
        pow_case(-2, rng.uniform(-2, -0.5, (3, 2)), negative),
        pow_case(0.5, rng.uniform(0.5, 3, (4, 3)), positive, T),
        pow_case(3, with_zeros(rng, (2, 3)), zeros, dtype="float32"),
        pow_case(2, with_zeros(rng, (16, 24)), zeros),
    ]


# -- task 2.4: exp, log, sqrt ---------------------------------------------------------------------


def _exp_log_sqrt_cases(rng: np.random.Generator) -> list[Case]:
    wide = tr("entries from 0.01 to 1000", "元素取值从 0.01 到 1000")
    five = tr("entries from -5 to 5", "元素取值从 -5 到 5")
    return [
        _on(
            rng,
            "exp",
            rng.uniform(-10, 8, (4,)),
            tr("entries from -10 to 8", "元素取值从 -10 到 8"),
        ),
        _on(rng, "log", log_uniform(rng, (5,)), wide),
        _on(rng, "sqrt", log_uniform(rng, (5,)), wide),
        _on(rng, "exp", rng.uniform(-3, 3, (6, 3, 2)), "3-D", ROWS),
        _on(rng, "log", rng.uniform(0.5, 3, (2, 3, 4, 2)), "4-D"),
        _on(rng, "sqrt", log_uniform(rng, (4, 3)), wide, T),
        _on(rng, "exp", rng.uniform(-5, 5, (3, 5)), five, COLS, dtype="float32"),
        _on(rng, "log", log_uniform(rng, (2, 3)), wide, dtype="float32"),
    ]


# -- task 2.5: tanh, sigmoid, relu, abs -----------------------------------------------------------


def _activation_cases(rng: np.random.Generator) -> list[Case]:
    def far(name: str, shape, big: float, **kw) -> Case:
        data = saturating(rng, shape, big)
        return _on(
            rng, name, data, tr("some entries far out (saturated)", "部分元素远离 0（饱和）"), **kw
        )

    def kink(name: str, shape, **kw) -> Case:
        data = with_kinks(rng, shape)
        derivative = (data > 0) * 1.0 if name == "relu" else np.sign(data)
        what = tr(
            "some entries exactly 0 (the kink: the gradient there is 0)",
            "部分元素恰好为 0（折点：该处的梯度为 0）",
        )
        return _on(rng, name, data, what, exact_grad=lambda g: g * derivative, **kw)

    return [
        far("tanh", (4,), 800.0),
        far("sigmoid", (4,), 800.0),
        kink("relu", (3, 4)),
        kink("abs", (2, 3, 2)),
        _op_case(rng, "tanh", ((8, 3), ROWS)),
        _op_case(rng, "sigmoid", ((2, 3, 2, 2), P)),
        far("sigmoid", (2, 3), 200.0, dtype="float32"),
        far("tanh", (2, 3), 200.0, dtype="float32"),
        _op_case(rng, "abs", ((4, 3), T), dtype="float32"),
        far("sigmoid", (24, 16), 800.0),
        kink("relu", (2, 3, 2), dtype="float32"),
    ]


# -- task 2.6: matmul -----------------------------------------------------------------------------


def _matmul_cases(rng: np.random.Generator) -> list[Case]:
    def mm(a, b, **kw) -> Case:
        return _op_case(rng, "matmul", a, b, **kw)

    return [
        mm(((1,), P), ((1,), P)),
        mm(((4, 1), P), ((1, 5), P)),
        mm(((3, 0), P), ((0, 4), P)),
        mm(((5,), P), ((5, 2), P)),
        mm(((6, 4), ROWS), ((5, 4), T)),
        mm(((2, 3, 4, 5), P), ((2, 3, 5, 2), P)),
        mm(((4, 6), COLS), ((5,), P)),
        mm(((2, 3, 4), P), ((2, 4, 2), P), dtype="float32"),
        mm(((40, 24), P), ((24, 3), P)),
        mm(((4,), P), ((2, 4, 3), P), dtype="float32", local_only=True),
    ]


# -- task 2.7: sum, mean --------------------------------------------------------------------------


def _sum_mean_cases(rng: np.random.Generator) -> list[Case]:
    def red(name: str, layout, dtype: str = "float64", **options) -> Case:
        return _op_case(rng, name, layout, options=options, dtype=dtype)

    return [
        red("sum", ((0, 3), P), dim=0),
        red("sum", ((1, 1), P)),
        red("sum", ((2, 3, 4), P), dim=(1, 2), keepdim=True),
        red("mean", ((3, 2, 4), P), dim=(0, -1), keepdim=True),
        red("sum", ((2, 3, 4, 5), P), dim=-2),
        red("mean", ((2, 2, 3), P), dim=(0, 1, 2)),
        red("sum", ((4, 6), COLS), dim=1, keepdim=True),
        red("mean", ((6, 3, 2), ROWS)),
        red("mean", ((2, 3, 4), P), "float32", dim=2),
        red("sum", ((3, 5), T), "float32", dim=(0, 1), keepdim=True),
        red("mean", ((32, 24), P), dim=0),
        red("sum", ((2, 1, 3), P), "float32"),
    ]


# -- task 2.8: max --------------------------------------------------------------------------------


def _max_cases(rng: np.random.Generator) -> list[Case]:
    def mx(layout, dtype: str = "float64", **options) -> Case:
        return _op_case(rng, "max", layout, options=options, dtype=dtype)

    tied, winner = ties(rng, 4, 3)
    three = np.array([[2.0, 0.5], [2.0, 2.0], [-1.0, 1.5]])
    return [
        mx(((1, 1), P)),
        _op_case(
            rng,
            "max",
            (tied.shape, P),
            options={"dim": 0},
            data=tied,
            exact_grad=lambda g: winner * g,
            label=tr(
                "a.max(dim=0) with a of shape (4, 3), each column's maximum twice: the "
                "returned index (the first) gets the gradient",
                "a.max(dim=0)，其中 a 的形状为 (4, 3)，每列的最大值都出现两次：梯度归返回的索引"
                "（并列中的第一个）",
            ),
        ),
        _op_case(
            rng,
            "max",
            (three.shape, P),
            data=three,
            exact_grad=lambda g: (three == 2.0) * g / 3,
            label=tr(
                "a.max() with a of shape (3, 2), its maximum three times: a third each",
                "a.max()，其中 a 的形状为 (3, 2)，最大值出现三次：各得三分之一",
            ),
        ),
        mx(((3, 2, 4), P), dim=0, keepdim=True),
        mx(((2, 3, 4, 2), P), dim=-1),
        mx(((2, 3, 4), P), dim=2, keepdim=True),
        mx(((4, 3), T)),
        mx(((6, 4), ROWS), dim=0),
        mx(((3, 4), P), "float32", dim=1, keepdim=True),
        mx(((16, 24), P), dim=-2),
        _op_case(
            rng,
            "max",
            (three.shape, P),
            data=three,
            exact_grad=lambda g: (three == 2.0) * g / 3,
            label=tr(
                "a.max() with a of shape (3, 2), its maximum three times: a third each, float32",
                "a.max()，其中 a 的形状为 (3, 2)，最大值出现三次：各得三分之一，float32",
            ),
            dtype="float32",
        ),
    ]


# -- task 2.9: reshape, view, transpose, permute, T ------------------------------------------------


def _shape_cases(rng: np.random.Generator) -> list[Case]:
    def sh(name: str, layout, dtype: str = "float64", **options) -> Case:
        return _op_case(rng, name, layout, options=options, dtype=dtype)

    return [
        sh("reshape", ((2, 3, 4), P), shape=(4, -1)),
        sh("reshape", ((4, 3), T), shape=(2, 6)),
        sh("view", ((2, 3, 4), P), shape=(6, 4)),
        sh("transpose", ((3, 4, 2), P), dims=(1, 2)),
        sh("transpose", ((2, 3, 4, 5), P), dims=(-2, -1)),
        sh("permute", ((4, 2, 3), P), dims=(1, 2, 0)),
        sh("permute", ((3, 2, 4), P), dims=(-1, 0, 1)),
        sh("permute", ((2, 3, 4, 5), P), dims=(3, 1, 2, 0)),
        sh("T", ((4, 3), T)),
        sh("permute", ((6, 4, 2), ROWS), "float32", dims=(2, 0, 1)),
        sh("reshape", ((16, 24), P), shape=(4, 8, 12)),
    ]


# -- task 2.10: indexing --------------------------------------------------------------------------


def _index_cases(rng: np.random.Generator) -> list[Case]:
    def ix(index, layout, dtype: str = "float64") -> Case:
        return _op_case(rng, "getitem", layout, options={"index": index}, dtype=dtype)

    everything = {"slice": [None, None, None]}
    repeats = rng.integers(0, 4, 8).tolist()  # over 6: the label does not list them
    return [
        ix(-1, ((4,), P)),
        ix({"slice": [-4, -1, None]}, ((5,), P)),
        ix({"array": [[True, False], [False, True], [True, True]]}, ((3, 2), P)),
        ix([everything, {"array": [2, 0, 2, 2]}], ((3, 4), P)),
        ix({"array": [[0, 1], [1, 1]]}, ((3, 2), P)),
        ix([0, "...", 1], ((2, 3, 4), P)),
        ix([{"slice": [None, None, -2]}, 0], ((5, 3), P)),
        ix([{"array": [1, 1, 0]}, {"slice": [1, 3, None]}], ((4, 3), T)),
        ix({"array": repeats}, ((8, 3), ROWS)),
        ix([everything, -1], ((3, 4), P), "float32"),
        ix({"array": rng.integers(0, 30, 100).tolist()}, ((30, 4, 2), P)),
        ix({"array": rng.integers(0, 6, 10).tolist()}, ((3, 6), T), "float32"),
    ]


# -- task 2.11: be the engine, on other sizes ------------------------------------------------------


def _engine_cases(rng: np.random.Generator) -> list[Case]:
    cases = []
    for n, d, k, m, scale, order in [
        (1, 4, 1, 3, 0.7, "C"),
        (3, 1, 2, 1, 0.7, "C"),
        (4, 3, 5, 2, 3.0, "C"),
        (6, 4, 3, 2, 0.7, "F"),
        (48, 8, 6, 1, 0.7, "C"),
    ]:
        x, y = rng.normal(size=(n, d)), rng.normal(size=(n, m))
        w1, w2 = rng.normal(size=(d, k)) * scale, rng.normal(size=(k, m)) * 0.7
        if order == "F":  # the arrays arrive column-major (not C-contiguous)
            x, w1, w2, y = map(np.asfortranarray, (x, w1, w2, y))
        kind = {
            0.7: "",
            3.0: tr(
                ", large first-layer weights (tanh saturates)", "，第一层权重很大（tanh 饱和）"
            ),
        }[scale]
        if order == "F":
            kind += tr(
                ", every array column-major (not C-contiguous)",
                "，所有数组都按列优先存储（不是 C 连续的）",
            )
        label = tr(
            f"two_layer_backward with n = {n}, d = {d}, k = {k}, m = {m}{kind}",
            f"two_layer_backward，其中 n = {n}，d = {d}，k = {k}，m = {m}{kind}",
        )
        cases.append(engine_case(x, w1, w2, y, label))
    return cases


def _of(name: str) -> str:
    """The id of op ``name``'s public check (its task's rows run its program and verdict)."""
    return TITLES.get(name, OPS[name].expr)


# (the op whose public check's program and verdict a task's rows use, its rows, the name: its
# English is the check's name, its identity)
OPS_ROWS = [
    (
        "add",
        _add_sub_neg_cases,
        {
            "en": "a + b, a - b, -a: mixed layouts, numbers, 4-D, empty",
            "zh": "a + b、a - b、-a：混合内存布局、Python 数、4-D、空张量",
        },
    ),
    (
        "mul",
        _mul_div_cases,
        {
            "en": "a * b, a / b: zero factors, mixed layouts, numbers, 4-D, empty",
            "zh": "a * b、a / b：因子为 0、混合内存布局、Python 数、4-D、空张量",
        },
    ),
    (
        "pow",
        _pow_cases,
        {"en": "a ** n: zeros and negative bases", "zh": "a ** n：底数为 0 或负数"},
    ),
    (
        "exp",
        _exp_log_sqrt_cases,
        {
            "en": "a.exp(), a.log(), a.sqrt(): wide ranges, 3-D and 4-D",
            "zh": "a.exp()、a.log()、a.sqrt()：大范围取值、3-D 和 4-D",
        },
    ),
    (
        "tanh",
        _activation_cases,
        {
            "en": "tanh, sigmoid, relu, abs: saturation, kinks in n-D",
            "zh": "tanh、sigmoid、relu、abs：饱和、n-D 张量中的折点",
        },
    ),
    (
        "matmul",
        _matmul_cases,
        {
            "en": "a @ b: outer products, empty, 4-D batches, layouts",
            "zh": "a @ b：外积、空张量、4-D 批量、内存布局",
        },
    ),
    (
        "sum",
        _sum_mean_cases,
        {
            "en": "a.sum(dim, keepdim), a.mean(dim, keepdim): several axes",
            "zh": "a.sum(dim, keepdim)、a.mean(dim, keepdim)：多个轴",
        },
    ),
    (
        "max",
        _max_cases,
        {
            "en": "a.max(dim, keepdim): ties in columns, 3-D and 4-D",
            "zh": "a.max(dim, keepdim)：列中的并列、3-D 和 4-D",
        },
    ),
    (
        "reshape",
        _shape_cases,
        {
            "en": "reshape, view, transpose, permute, T: other axes",
            "zh": "reshape、view、transpose、permute、T：其他轴",
        },
    ),
    (
        "getitem",
        _index_cases,
        {
            "en": "a[index]: negative, boolean, 2-D and repeated indices",
            "zh": "a[index]：负索引、布尔索引、2-D 索引和重复索引",
        },
    ),
]

CHECKS = hidden_checks(
    PUBLIC,
    [
        *(
            Hidden(_of(op), rows, f"{name['en']} (hidden)", title={"zh": f"{name['zh']}（隐藏）"})
            for op, rows, name in OPS_ROWS
        ),
        Hidden(
            "two_layer_backward",
            _engine_cases,
            # its name: the check's identity (the title gives the Chinese)
            "two_layer_backward (hidden: other sizes, "  # en-only: the name
            "saturation, column-major)",
            title={"zh": "two_layer_backward（隐藏：其他尺寸、饱和、列优先存储）"},
        ),
    ],
)

"""Chapter 3's case builders: what public and hidden checks are made of (a hidden check is
rows of these, its own shape pairs, never a copy of them). Expectations come from the
autograder's own NumPy (``sum_to``: broadcasting's definition run backwards) and chapter
2's ``cases.op_case``, whose gradients are exact to float64 rounding."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ...harness.api import Case
from ...harness.gradcheck import sum_to, vjp
from ...harness.language import Text, say, tr
from ..ch02_tensor.cases import op_case
from ..ch02_tensor.catalog import OPS as CH02_OPS
from ..ch02_tensor.expected import ErrorExpected
from .catalog import Layout, Shape, expanded


def upstream(rng: np.random.Generator, shape: Shape, dtype: str) -> np.ndarray:
    """A random gradient sent back from a result, with 3 decimals (not float32-exact)."""
    return rng.uniform(-1.5, 1.5, shape).round(3).astype(dtype)


@dataclass(frozen=True)
class UnbroadcastExpected:
    """What ``unbroadcast(grad, shape)`` must give: the sum, of exactly ``shape`` and grad's
    dtype, and what h sent back through its graph must give grad (h broadcast)."""

    out: np.ndarray
    shape: Shape
    grad_shape: Shape
    dtype: str
    pulled_back: np.ndarray


@dataclass(frozen=True)
class ExpandExpected:
    """What ``a.expand(*sizes)`` must give: its value, of a's dtype, and a's gradient back
    through its graph."""

    out: np.ndarray
    dtype: str
    grad: np.ndarray


# -- task 3.1: unbroadcast itself -------------------------------------------------------------


def unbroadcast_case(
    rng: np.random.Generator, grad_shape: Shape, shape: Shape, dtype: str = "float64"
) -> Case:
    """``unbroadcast(grad, shape)`` for a random grad of ``grad_shape``: the sum, and what a
    random h sent back from the result through the graph must give grad (h broadcast)."""
    grad = rng.uniform(-2.0, 2.0, grad_shape).round(3).astype(dtype)
    h = upstream(rng, shape, dtype)
    label = tr(
        f"unbroadcast(grad, {shape}) with grad of shape {grad_shape}",
        f"unbroadcast(grad, {shape})，其中 grad 的形状为 {grad_shape}",
    )
    if dtype != "float64":
        label += tr(f", {dtype}", f"，{dtype}")
    expected = UnbroadcastExpected(
        out=sum_to(grad, shape),
        shape=shape,
        grad_shape=grad_shape,
        dtype=dtype,
        pulled_back=np.broadcast_to(h.astype(np.float64), grad_shape),
    )
    return Case(label, {"grad": grad, "shape": list(shape), "upstream": h}, expected)


def unbroadcast_error(grad_shape: Shape, shape: Shape) -> Case:
    """``unbroadcast(grad, shape)`` where ``shape`` does not broadcast to grad's: a
    RuntimeError naming both shapes."""
    return Case(
        tr(
            f"unbroadcast(grad, {shape}) with grad of shape {grad_shape}: an error naming both "
            "shapes",
            f"unbroadcast(grad, {shape})，其中 grad 的形状为 {grad_shape}："
            "应抛出写明两个形状的错误",
        ),
        {"grad": np.ones(grad_shape), "shape": list(shape), "expect_error": True},
        ErrorExpected([str(grad_shape), str(shape)], "RuntimeError"),
    )


def unbroadcast_cases(
    pairs: Sequence[tuple[Shape, Shape]],
    float32: Sequence[tuple[Shape, Shape]] = (),
    errors: Sequence[tuple[Shape, Shape]] = (),
) -> Callable[[np.random.Generator], list[Case]]:
    """A check's cases: each (grad's shape, shape) pair in float64, then in float32, then
    the error pairs."""

    def cases(rng: np.random.Generator) -> list[Case]:
        out = [unbroadcast_case(rng, g, s) for g, s in pairs]
        out += [unbroadcast_case(rng, g, s, "float32") for g, s in float32]
        return out + [unbroadcast_error(g, s) for g, s in errors]

    return cases


# -- task 3.1 through chapter 2's ops ------------------------------------------------------------


def broadcast_op_case(
    rng: np.random.Generator, name: str, layouts: Sequence[Layout], dtype: str = "float64"
) -> Case:
    """Chapter 2's op ``name`` on operands of ``layouts`` that broadcast (``op_case``)."""
    return op_case(CH02_OPS[name], rng, {}, list(layouts), dtype=dtype, broadcast=True)


def control_case(rng: np.random.Generator, name: str, layouts: Sequence[Layout]) -> Case:
    """The op on operands that do not broadcast: chapter 2's backward alone, labelled so."""
    op = CH02_OPS[name]
    first = op_case(op, rng, {}, list(layouts))
    label = tr(
        f"no broadcasting (chapter 2's task {op.task} alone): {say(first.label)}",
        f"不广播（只检查第 2 章的任务 {op.task}）：{say(first.label)}",
    )
    return Case(label, first.inputs, first.expected)


# -- task 3.3: expand, end to end ---------------------------------------------------------------


def expand_case(rng: np.random.Generator, shape: Shape, sizes: Shape, dtype: str) -> Case:
    """``a.expand(*sizes)`` for a random a of ``shape``: the value, and a's gradient for a
    random g sent back from the result."""
    data = rng.uniform(-2.0, 2.0, shape).astype(dtype)
    target = expanded(shape, sizes)
    g = upstream(rng, target, dtype)
    (grad,) = vjp(lambda a: np.broadcast_to(a, target), [data], g)
    call = ", ".join(map(str, sizes))
    kind = f", {dtype}" if dtype != "float64" else ""
    label = tr(
        f"a.expand({call}) with a of shape {shape}{kind}; then a's gradient, for a random g "
        "sent back from the result",
        f"a.expand({call})，其中 a 的形状为 {shape}{kind}；然后对从结果传回的随机 g 求 a 的梯度",
    )
    expected = ExpandExpected(out=np.broadcast_to(data, target), dtype=dtype, grad=grad)
    return Case(label, {"data": data, "sizes": list(sizes), "upstream": g}, expected)


# why each of expand's error cases must raise: named where it did not
# (keyed by the English words of the case, ``catalog.EXPAND_ERRORS``)
EXPAND_WHY: dict[str, Text] = {
    "-1 names a new leading axis": {  # en-only: a key, the case's English words
        "en": "a -1 keeps the size of a's axis it lines up with, and a new leading axis lines "
        "up with none, so there is no size to keep",
        "zh": "-1 表示保留与它对齐的 a 的轴的大小，而新增的前导轴不与 a 的任何轴对齐，"
        "所以没有大小可以保留",
    },
    "fewer sizes than axes": {  # en-only: a key, the case's English words
        "en": "expand never removes an axis, so it needs a size for every axis a has",
        "zh": "expand 从不删除轴，所以 a 的每个轴都需要给出一个大小",
    },
}


def expand_cases(
    pairs: Sequence[tuple[Shape, Shape]],
    float32_pair: tuple[Shape, Shape],
    errors: Sequence[tuple[Shape, Shape, list[str], Text]],
) -> Callable[[np.random.Generator], list[Case]]:
    """``expand`` on each (shape, sizes) pair in float64, one pair in float32, then each
    error case (shape, sizes, what the message must name, what is wrong)."""

    def cases(rng: np.random.Generator) -> list[Case]:
        out = [expand_case(rng, shape, sizes, "float64") for shape, sizes in pairs]
        out.append(expand_case(rng, *float32_pair, "float32"))
        for shape, sizes, naming, what in errors:
            label = tr(
                f"a.expand({', '.join(map(str, sizes))}) with a of shape {shape}: {say(what)}",
                f"a.expand({', '.join(map(str, sizes))})，其中 a 的形状为 {shape}：{say(what)}",
            )
            inputs = {
                "data": np.ones(shape),
                "sizes": list(sizes),
                "upstream": np.ones(()),
                "expect_error": True,
            }
            why = EXPAND_WHY.get(say(what, "en"), "")
            out.append(Case(label, inputs, ErrorExpected(naming, "RuntimeError", why)))
        return out

    return cases

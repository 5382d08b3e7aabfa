"""Public checks of chapter 7's operations: ``gather`` (task 7.7) and ``cat``/``stack``
(task 7.8). The programs are ``ops_program.py``; the case builders and verdicts here are
shared with the hidden checks (the instructor's, course repository only).

Expected values come from the autograder's own NumPy: the forward is ``take_along_axis`` /
``concatenate``, and every gradient is ``gradcheck.vjp`` (the complex step, exact to
float64 rounding) of that forward; the gradient's gradient is ``vjp`` of the backward's own
NumPy form (a scatter-add, a split), so a backward that was not recorded as operations
fails only that check. Values are float64 (compared at rtol 1e-9) except for a float32
case, which must stay float32. Each op runs on the simulated device too (its arrays put
there by ``simnumpy.asarray``, chapter 2's seams answered by the autograder's own dispatch,
so tasks 7.2–7.6 are not involved): the output and gradients stay there, NumPy's functions
(which refuse its arrays) are named, and no copy crosses, either way (``copies.py``: the
forward's and the backward's copies to the device and back, each named with its cause).
Each verdict is one declaration in the order a run goes (``_op_verdict``): the output and
the gradients as fields with tolerances by dtype, and the mistakes it can recognise:
gather's backward assigning where it must add (a repeated index counted once), cat's
backward handing every input the whole gradient, pieces cut at the wrong offsets or along
the wrong axis.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...harness.api import Case, Check, Verdict
from ...harness.gradcheck import vjp
from ...harness.table import Field, Fields, Mistake, first, rules, say, tr, where
from . import ops_program
from .copies import MORE, TO_DEVICE, TO_HOST, copy_rows

TOLERANCE = {"float64": (1e-9, 1e-10), "float32": (1e-5, 1e-6)}


# -- NumPy's own forms of the ops (complex-safe, for the complex step) ---------------------


def gather_ref(x: np.ndarray, dim: int, index: np.ndarray) -> np.ndarray:
    """PyTorch's gather: ``x`` cut to ``index``'s sizes on the other axes, then picked
    along ``dim``."""
    cut = tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(index.shape))
    return np.take_along_axis(x[cut], index, axis=dim)


def _places(index: np.ndarray, dim: int) -> tuple:
    grid = list(np.indices(index.shape, sparse=True))
    grid[dim] = index
    return tuple(grid)


def scatter_ref(g: np.ndarray, shape: tuple, dim: int, index: np.ndarray) -> np.ndarray:
    """gather's backward: zeros of ``shape`` with ``g`` added where each element came from."""
    out = np.zeros(shape, dtype=np.result_type(g.dtype, np.float64))
    np.add.at(out, _places(index, dim), g)
    return out


def assigned_ref(g: np.ndarray, shape: tuple, dim: int, index: np.ndarray) -> np.ndarray:
    """The mistake: ``out[places] = g`` (a repeated index keeps one gradient)."""
    out = np.zeros(shape)
    out[_places(index, dim)] = g
    return out


def split_ref(g: np.ndarray, sizes: list[int], dim: int) -> list[np.ndarray]:
    """cat's backward: ``g`` cut along ``dim`` at the running sums of ``sizes``."""
    return np.split(g, np.cumsum(sizes)[:-1], axis=dim)


# -- the cases --------------------------------------------------------------------------------


@dataclass(frozen=True)
class GatherExpected:
    dtype: str
    out: np.ndarray
    grad: np.ndarray
    assigned: np.ndarray  # the gradient a backward that assigns would give
    grad_grad: np.ndarray | None  # ∂⟨grad, w⟩/∂g, for a second-order case


def _values(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    return np.round(rng.uniform(-2, 2, shape), 3)


def gather_case(
    rng: np.random.Generator,
    shape: tuple,
    dim: int,
    index_shape: tuple,
    *,
    repeats: str = "",
    dtype: str = "float64",
    second: bool = False,
    device: str = "cpu",
) -> Case:
    """gather of an x of ``shape`` along ``dim`` by a drawn index of ``index_shape``
    (``repeats``: "all" puts one index everywhere, "some" makes sure of a repeat), every
    tensor on ``device`` ("cpu", or "sim": the simulated device)."""
    x = _values(rng, shape)
    axis = dim % len(shape)
    index = rng.integers(0, shape[axis], index_shape)
    if repeats == "all":
        index[...] = rng.integers(0, shape[axis])
    elif repeats == "some":  # two elements of one slice along dim pick the same element
        first = (0,) * len(shape)
        second_place = tuple(1 if d == axis else 0 for d in range(len(shape)))
        index[second_place] = index[first]
    g = _values(rng, index_shape)
    w = _values(rng, shape) if second else None
    expected = GatherExpected(
        dtype,
        gather_ref(x, axis, index),
        vjp(lambda a: gather_ref(a, axis, index), [x], g)[0],
        assigned_ref(g, shape, axis, index),
        vjp(lambda u: scatter_ref(u, shape, axis, index), [g], w)[0] if second else None,
    )
    words = {
        "all": tr(" (one index everywhere)", "（处处是同一个索引）"),
        "some": tr(" (a repeated index)", "（有重复的索引）"),
    }.get(repeats, "")
    label = (
        tr(
            f"sp.gather(x, dim={dim}, index) with x of shape {shape}, index of shape "
            f"{index_shape}{words}",
            f"sp.gather(x, dim={dim}, index)，x 的形状为 {shape}，index 的形状为 "
            f"{index_shape}{words}",
        )
        + (tr(f", {dtype}", f"，{dtype}") if dtype != "float64" else "")
        + (tr(", then the gradient's gradient", "，再求梯度的梯度") if second else "")
        + (tr(", on the simulated device", "，在模拟设备上") if device == "sim" else "")
    )
    inputs = {"x": x, "dim": dim, "index": index, "g": g, "w": w, "dtype": dtype}
    return Case(label, {**inputs, "device": device} if device != "cpu" else inputs, expected)


@dataclass(frozen=True)
class CatExpected:
    dtype: str
    out: np.ndarray
    grads: list[np.ndarray]
    sizes: list[int]  # each input's size along dim (stack: 1)
    dim: int  # the axis the output was joined along (non-negative)
    grad_grad: np.ndarray | None


def cat_case(
    rng: np.random.Generator,
    shapes: list[tuple],
    dim: int,
    *,
    stack: bool = False,
    dtype: str = "float64",
    second: bool = False,
    device: str = "cpu",
) -> Case:
    """cat (or stack) of inputs of ``shapes`` along ``dim``, on ``device`` ("cpu", or
    "sim")."""
    xs = [_values(rng, s) for s in shapes]
    ndim = len(shapes[0]) + (1 if stack else 0)
    axis = dim % ndim

    def forward(*arrays: np.ndarray) -> np.ndarray:
        if stack:
            return np.stack(arrays, axis=axis)
        return np.concatenate(arrays, axis=axis)

    out = forward(*xs)
    g = _values(rng, out.shape)
    w = [_values(rng, s) for s in shapes] if second else None
    sizes = [1 if stack else s[axis] for s in shapes]

    def backward(u: np.ndarray) -> list[np.ndarray]:
        pieces = split_ref(u, sizes, axis)
        return [p.reshape(s) for p, s in zip(pieces, shapes)]

    grad_grad = None
    if second:
        grad_grad = vjp(
            lambda u: np.concatenate([p.reshape(-1) for p in backward(u)]),
            [g],
            np.concatenate([x.reshape(-1) for x in w]),
        )[0]
    expected = CatExpected(dtype, out, vjp(forward, xs, g), sizes, axis, grad_grad)
    name = "stack" if stack else "cat"
    label = (
        tr(
            f"sp.{name}([{', '.join(f'x{i}' for i in range(len(xs)))}], dim={dim}) with shapes "
            f"{', '.join(map(str, shapes))}",
            f"sp.{name}([{', '.join(f'x{i}' for i in range(len(xs)))}], dim={dim})，形状为 "
            f"{', '.join(map(str, shapes))}",
        )
        + (tr(f", {dtype}", f"，{dtype}") if dtype != "float64" else "")
        + (tr(", then the gradient's gradient", "，再求梯度的梯度") if second else "")
        + (tr(", on the simulated device", "，在模拟设备上") if device == "sim" else "")
    )
    inputs = {"xs": xs, "dim": dim, "g": g, "w": w, "dtype": dtype, "stack": stack}
    return Case(label, {**inputs, "device": device} if device != "cpu" else inputs, expected)


# -- the verdicts -----------------------------------------------------------------------------


DEVICE_WORDS = {
    "en": "NumPy's functions refuse a device's arrays, and one was given a device's array",
    "zh": "NumPy 的函数不接受设备上的数组，而其中一个函数收到了设备上的数组",
}


def _refused(message: str) -> str:
    """Words for an error that says NumPy met a device's array, else ""."""
    signs = (  # NumPy's and simnumpy's messages, matched
        "Unsupported type",
        "Implicit conversion",
        "__array_ufunc__",
        "does not support ufunc",  # en-only: matched
    )
    if not any(s in message for s in signs):
        return ""
    return tr(f" — {say(DEVICE_WORDS)}", f" —— {say(DEVICE_WORDS)}")


OP_CAUSES = {  # an op on the device copies nothing: the likely cause of each direction
    (TO_DEVICE, MORE): {
        "en": "an array was made on the host and sent over (NumPy's arange or zeros, a list, a "
        "NumPy index array, a NumPy function's result, host data made a device array), where "
        "every array could be born on the inputs' device",
        "zh": "有数组在主机上创建后被送了过去（NumPy 的 arange 或 zeros、列表、NumPy 索引数组、"
        "NumPy 函数的结果、由主机数据做成的设备数组），而每个数组本都可以直接在输入所在的设备上"
        "创建",
    },
    (TO_HOST, MORE): {
        "en": "a device array was read back to the host (.get(), .item(), int(), float(), "
        "bool(), .tolist(), an if on its values, a bounds check), where nothing had to come "
        "back (a size is in .shape, which costs no copy)",
        "zh": "设备上的数组被读回了主机（.get()、.item()、int()、float()、bool()、.tolist()、"
        "对其值做 if 判断、越界检查），而这里什么都不需要取回（尺寸可以从 .shape 得到，不需要"
        "复制）",
    },
}

STEPS = {
    "forward": {"en": "forward", "zh": "前向计算"},
    "backward": {"en": "backward", "zh": "反向传播"},
}


def _copies(what: str) -> list[tuple]:
    """The rows for the copies of ``what`` ("forward", "backward") on sim: none either way."""

    def name(case: Case, got: Any) -> str:
        step = say(STEPS[what])
        return tr(f"on sim, the {step}", f"在 sim 上，{step}")

    return copy_rows(
        name,
        lambda got: None if "backward_error" in got else got.get(f"{what}_copies", [0, 0]),
        lambda case: (0, 0),
        OP_CAUSES,
    )


def _off_sim(received: Any) -> list[str]:
    return [k for k in received.get("grad_kinds", []) if k != "SimArray"]


ON_SIM = rules(  # the op ran on the device, gave device arrays, copied nothing
    (
        lambda case, got: "forward_error" in got,
        lambda case, got: (
            tr(
                f"on sim, the forward raised {got['forward_error']}",
                f"在 sim 上，前向计算抛出了 {got['forward_error']}",
            )
            + _refused(got["forward_error"])
        ),
    ),
    (
        lambda case, got: got.get("out_kind") != "SimArray",
        lambda case, got: tr(
            f"on sim, the output is a {got.get('out_kind')} array, not the "
            f"simulated device's: {say(DEVICE_WORDS)}",
            f"在 sim 上，输出是一个 {got.get('out_kind')} 数组，不在模拟设备上："
            f"{say(DEVICE_WORDS)}",
        ),
    ),
    (
        lambda case, got: _refused(got.get("backward_error", "")),
        lambda case, got: (
            tr(
                f"on sim, the backward raised {got['backward_error']}",
                f"在 sim 上，反向传播抛出了 {got['backward_error']}",
            )
            + _refused(got["backward_error"])
        ),
    ),
    (
        lambda case, got: _off_sim(got),
        lambda case, got: tr(
            f"on sim, a gradient is a {_off_sim(got)[0]} array, not on the simulated device",
            f"在 sim 上，有一个梯度是 {_off_sim(got)[0]} 数组，不在模拟设备上",
        ),
    ),
    *_copies("forward"),
    *_copies("backward"),
)


def _tolerance(case: Case) -> tuple[float, float]:
    return TOLERANCE[case.expected.dtype]


def _wrong_dtype(case: Case, received: Any) -> tuple | None:
    """(which gradient, its dtype) of the first gradient not of the input's dtype."""
    got, want = received["grad_dtypes"], case.expected.dtype
    which = (tr(f" of input {k}", f"（输入 {k}）") if len(got) > 1 else "" for k in range(len(got)))
    return next(((k, d) for k, d in zip(which, got) if d != want), None)


def _dtype_words(case: Case, received: Any) -> str:
    which, dtype = _wrong_dtype(case, received)
    want = case.expected.dtype
    return tr(
        f"the gradient{which} is {dtype}, not {want}", f"梯度{which}是 {dtype}，而不是 {want}"
    )


DTYPES = {
    "out": rules(
        (
            lambda case, got: got["dtype"] != case.expected.dtype,
            {
                "en": "the output is {got[dtype]}, not {want.dtype} (the input's dtype)",
                "zh": "输出是 {got[dtype]}，而不是 {want.dtype}（输入的数据类型）",
            },
        )
    ),
    "grads": rules((_wrong_dtype, _dtype_words)),
}

SECOND = first(  # the gradient's gradient exists only when the backward was recorded
    rules(
        (
            lambda case, got: _refused(got.get("second_error") or ""),
            lambda case, got: (
                tr(
                    f"on sim, the gradient's gradient raised {got['second_error']}",
                    f"在 sim 上，求梯度的梯度时抛出了 {got['second_error']}",
                )
                + _refused(got["second_error"])
            ),
        ),
        (
            lambda case, got: got.get("second_error"),
            {
                "en": "the gradient's gradient failed: {got[second_error]} (the backward's result "
                "was not recorded: a bare array, or an operation outside the graph)",
                "zh": "求梯度的梯度失败了：{got[second_error]}（反向函数的结果没有被记录：它是裸"
                "数组，或来自计算图之外的操作）",
            },
        ),
    ),
    Fields(
        [
            Field(
                "grad_grad",
                {
                    "en": "the gradient's gradient, ∂⟨∂L/∂x, w⟩/∂g",
                    "zh": "梯度的梯度 ∂⟨∂L/∂x, w⟩/∂g",
                },
                rtol=1e-9,
                atol=1e-10,
            )
        ]
    ),
)


def _op_verdict(
    grads: Field,
    mistakes: list[Mistake],
    hint: Callable[[Case, str], str] | None = None,
    forward: Sequence[Mistake] = (),
) -> Verdict:
    """An op's verdict, in the order a run goes: on the device, the output, the backward
    (an error, with ``hint(case, message)``'s words), the gradients with their known
    ``mistakes``, the gradient's gradient."""

    failed = rules(
        (
            lambda case, got: got.get("backward_error"),
            lambda case, got: (
                tr(
                    f"backward failed: {got['backward_error']}",
                    f"反向传播失败：{got['backward_error']}",
                )
                + (hint(case, got["backward_error"]) if hint else "")
            ),
        )
    )
    return first(
        where(lambda case: case.inputs.get("device", "cpu") == "sim", ON_SIM),
        Fields(
            [Field("out", {"en": "forward", "zh": "前向计算"}, tolerance=_tolerance)],
            forward,
            before=DTYPES["out"],
        ),
        failed,
        Fields([grads], mistakes, before=DTYPES["grads"]),
        where(lambda case: case.expected.grad_grad is not None, SECOND),
    )


def _along_last(case: Case) -> np.ndarray | None:
    """gather's forward picked along the last axis instead of dim (where that fits)."""
    x, index, dim = case.inputs["x"], case.inputs["index"], case.inputs["dim"]
    if dim % x.ndim == x.ndim - 1 or index.shape != x.shape:
        return None
    return np.take_along_axis(x, index, axis=-1)


def _index_first(case: Case) -> np.ndarray | None:
    """gather's backward with the index as the first of the positions and the other axes'
    aranges after it, in order (where those positions fit the input)."""
    x, index, g = case.inputs["x"], case.inputs["index"], case.inputs["g"]
    dim = case.inputs["dim"] % x.ndim
    if dim == 0:
        return None
    others = [
        np.arange(n).reshape([n if a == axis else 1 for a in range(index.ndim)])
        for axis, n in enumerate(index.shape)
        if axis != dim
    ]
    out = np.zeros(x.shape)
    try:
        np.add.at(out, (index, *others), g)
    except IndexError:
        return None
    return out


gather_verdict = _op_verdict(
    Field(
        "grads.0",
        {"en": "backward", "zh": "反向传播"},
        expected=lambda case: case.expected.grad,
        tolerance=_tolerance,
    ),
    [
        Mistake(
            "grads.0",
            lambda case: case.expected.assigned,
            {
                "en": "an element picked twice received one gradient, not the sum of both: the "
                "backward assigns (out[index] = g) where it must add (a scatter-add, where "
                "repeats add up)",
                "zh": "被选中两次的元素只得到了一份梯度，而不是两份之和：反向函数用了赋值"
                "（out[index] = g），而这里必须累加（scatter-add，重复的位置要加起来）",
            },
        ),
        Mistake(
            "grads.0",
            _index_first,
            lambda case: tr(
                f"each gradient went back with the index on axis 0, not on dim "
                f"{case.inputs['dim']}: the positions hold the index first",
                f"每个梯度回传时，索引被放在了轴 0 上，而不是 dim {case.inputs['dim']} 上："
                "位置元组里索引被放在了最前面",
            ),
        ),
    ],
    forward=[
        Mistake(
            "out",
            _along_last,
            lambda case: tr(
                f"the elements were picked along the last axis, not along dim {case.inputs['dim']}",
                f"元素是沿最后一个轴选取的，而不是沿 dim {case.inputs['dim']}",
            ),
        )
    ],
)


def _pieces_hint(case: Case, message: str) -> str:
    """Words for cat's backward handing an input a gradient of another shape."""
    if "each gradient has its input's shape" not in message:  # en-only: the framework's words
        return ""
    e = case.expected
    found = re.search(r"a gradient of shape (\(.*?\)) for", message)  # en-only: matched
    whole = found is not None and found.group(1) == str(tuple(e.out.shape))
    return tr(
        f" — each input's gradient is its own piece of ∂L/∂out, cut along dim {e.dim} at the "
        "running sums of the sizes",
        f" —— 每个输入的梯度是 ∂L/∂out 中属于它自己的那一块，沿 dim {e.dim} 在各尺寸的累加和处切开",
    ) + (tr(", not the whole of ∂L/∂out", "，而不是整个 ∂L/∂out") if whole else "")


def _from_offset_0(case: Case) -> list | None:
    """Every input's piece of ∂L/∂out cut from offset 0 (told apart from several inputs)."""
    e, g, xs = case.expected, np.asarray(case.inputs["g"]), case.inputs["xs"]
    if len(xs) < 2:
        return None
    return [np.take(g, range(n), axis=e.dim).reshape(np.shape(x)) for n, x in zip(e.sizes, xs)]


def _split_along(axis: int) -> Mistake:
    """∂L/∂out split along ``axis``, another axis than dim (where its pieces fit the inputs)."""

    def wrong(case: Case) -> list | None:
        e, g = case.expected, np.asarray(case.inputs["g"])
        if axis == e.dim or axis >= g.ndim or g.shape[axis] != sum(e.sizes):
            return None
        pieces = split_ref(g, e.sizes, axis)
        return [np.reshape(p, np.shape(x)) for p, x in zip(pieces, case.inputs["xs"])]

    def says(case: Case) -> str:
        return tr(
            f"the gradient was split along axis {axis}, not along dim {case.expected.dim}",
            f"梯度是沿轴 {axis} 切分的，而不是沿 dim {case.expected.dim}",
        )

    return Mistake("grads", wrong, says)


def _from_previous_size(case: Case) -> list | None:
    """Input k's piece cut from the size of input k − 1 (not the sum of all before it),
    told apart from three inputs on."""
    e, g, xs = case.expected, np.asarray(case.inputs["g"]), case.inputs["xs"]
    if len(xs) < 3:
        return None
    starts = [0, *e.sizes[:-1]]
    return [
        np.take(g, range(s, s + n), axis=e.dim, mode="clip").reshape(np.shape(x))
        for s, n, x in zip(starts, e.sizes, xs)
    ]


def _joined(case: Case) -> list[tuple[str, np.ndarray]]:
    """Wrong forwards of cat and stack: (their words, their output)."""
    xs, e = [np.asarray(x) for x in case.inputs["xs"]], case.expected
    out, dim = [], e.dim
    if not case.inputs["stack"]:
        if dim != 0 and len({x.shape for x in xs}) == 1:
            joined = tr(
                f"the inputs were joined along axis 0, not along dim {case.inputs['dim']}",
                f"输入是沿轴 0 拼接的，而不是沿 dim {case.inputs['dim']}",
            )
            out.append((joined, np.concatenate(xs, axis=0)))
        return out
    front = np.concatenate([x[None] for x in xs], axis=dim)
    if dim != 0:
        out.append(
            (
                tr(
                    f"each input got its new axis in front, not at dim {dim}",
                    f"每个输入的新轴被加在了最前面，而不是 dim {dim} 处",
                ),
                front,
            )
        )
        along_0 = np.concatenate([np.expand_dims(x, dim) for x in xs], axis=0)
        out.append(
            (
                tr(
                    f"the inputs, each with a new axis at dim {dim}, were joined along axis 0",
                    f"各输入在 dim {dim} 处加上新轴后，被沿轴 0 拼接了起来",
                ),
                along_0,
            )
        )
    if case.inputs["dim"] < 0:
        early = np.stack(xs, axis=case.inputs["dim"] % xs[0].ndim)
        out.append(
            (
                tr(
                    f"dim {case.inputs['dim']} was counted on the inputs' {xs[0].ndim} axes, not "
                    f"on the result's {xs[0].ndim + 1}: the new axis is not the last",
                    f"dim {case.inputs['dim']} 是按输入的 {xs[0].ndim} 个轴来数的，而不是按结果的 "
                    f"{xs[0].ndim + 1} 个轴：新轴不是最后一个",
                ),
                early,
            )
        )
    return out


def _joined_mistake(k: int) -> Mistake:
    """The k-th wrong forward of ``_joined``, as a mistake of the forward's output."""

    def wrong(case: Case) -> np.ndarray | None:
        found = _joined(case)
        return found[k][1] if k < len(found) else None

    return Mistake("out", wrong, lambda case: _joined(case)[k][0])


cat_verdict = _op_verdict(
    Field("grads", {"en": "backward, inputs", "zh": "反向传播，各输入"}, tolerance=_tolerance),
    [
        Mistake(
            "grads",
            _from_offset_0,
            {
                "en": "every piece was cut from offset 0: input k's piece starts at the sum of "
                "the sizes before it",
                "zh": "每一块都是从偏移 0 处切的：输入 k 的那一块应从它之前所有尺寸之和处开始",
            },
        ),
        Mistake(
            "grads",
            _from_previous_size,
            {
                "en": "input k's piece was cut from the size of input k − 1, not from the sum of "
                "all the sizes before it",
                "zh": "输入 k 的那一块是从输入 k − 1 的尺寸处切的，而不是从它之前所有尺寸之和处",
            },
        ),
        *map(_split_along, range(5)),  # 5: more axes than any case's output has
    ],
    _pieces_hint,
    forward=[_joined_mistake(k) for k in range(3)],
)


# -- the checks -------------------------------------------------------------------------------


def _gather_cases(rng: np.random.Generator) -> list[Case]:
    return [
        gather_case(rng, (5,), 0, (4,), repeats="some"),
        gather_case(rng, (3, 4), 0, (3, 4)),
        gather_case(rng, (3, 4), 0, (2, 4)),
        gather_case(rng, (4, 4), 1, (4, 4), repeats="some"),
        gather_case(rng, (3, 4), 1, (3, 6), repeats="some"),
        gather_case(rng, (3, 4), -1, (3, 2)),
        gather_case(rng, (2, 3, 4), 1, (2, 5, 4), repeats="some"),
        gather_case(rng, (4, 3, 5), 2, (2, 2, 7)),
        gather_case(rng, (3, 2, 4), 0, (3, 2, 4), repeats="all"),
        gather_case(rng, (3, 4), 1, (3, 5), dtype="float32"),
        gather_case(rng, (6, 7, 8), 1, (6, 12, 8), repeats="some"),
    ]


def _gather_second_cases(rng: np.random.Generator) -> list[Case]:
    return [
        gather_case(rng, (4,), 0, (6,), repeats="some", second=True),
        gather_case(rng, (3, 4), 1, (3, 5), repeats="some", second=True),
        gather_case(rng, (2, 3, 4), 0, (3, 2, 4), second=True),
    ]


def _cat_cases(rng: np.random.Generator) -> list[Case]:
    return [
        cat_case(rng, [(3,), (2,)], 0),
        cat_case(rng, [(2, 3), (2, 3)], 1),
        cat_case(rng, [(2, 3), (2, 1), (2, 4)], 1),
        cat_case(rng, [(1, 3), (3, 3)], 0),
        cat_case(rng, [(2, 3, 1), (2, 3, 2)], -1),
        cat_case(rng, [(2, 1, 4), (2, 3, 4), (2, 2, 4)], 1),
        cat_case(rng, [(3, 2)], 0),
        cat_case(rng, [(2, 2), (2, 3)], 1, dtype="float32"),
        cat_case(rng, [(5, 6, 7), (5, 2, 7), (5, 9, 7), (5, 1, 7)], 1),
    ]


def _stack_cases(rng: np.random.Generator) -> list[Case]:
    return [
        cat_case(rng, [(3,), (3,), (3,)], 0, stack=True),
        cat_case(rng, [(2, 3), (2, 3)], 1, stack=True),
        cat_case(rng, [(2, 3), (2, 3)], -1, stack=True),
        cat_case(rng, [(2, 3, 4)] * 3, 2, stack=True),
    ]


def _gather_sim_cases(rng: np.random.Generator) -> list[Case]:
    return [
        gather_case(rng, (3, 4), 1, (3, 5), repeats="some", device="sim"),
        gather_case(rng, (2, 3, 4), 0, (3, 2, 4), repeats="some", second=True, device="sim"),
    ]


def _cat_sim_cases(rng: np.random.Generator) -> list[Case]:
    return [
        cat_case(rng, [(2, 3), (2, 1), (2, 2)], 1, second=True, device="sim"),
        cat_case(rng, [(2, 3), (2, 3)], -1, stack=True, device="sim"),
    ]


def _cat_second_cases(rng: np.random.Generator) -> list[Case]:
    return [
        cat_case(rng, [(2,), (3,)], 0, second=True),
        cat_case(rng, [(2, 3), (2, 1), (2, 2)], 1, second=True),
        cat_case(rng, [(2, 3), (2, 3)], 0, stack=True, second=True),
    ]


CHECKS = [
    Check(
        "7.7",
        "gather: values and gradient",
        _gather_cases,
        ops_program.gather,
        gather_verdict,
        title={"zh": "gather：值与梯度"},
    ),
    Check(
        "7.7",
        "gather: the gradient's gradient",
        _gather_second_cases,
        ops_program.gather,
        gather_verdict,
        title={"zh": "gather：梯度的梯度"},
    ),
    Check(
        "7.8",
        "cat: values and gradients",
        _cat_cases,
        ops_program.cat,
        cat_verdict,
        title={"zh": "cat：值与梯度"},
    ),
    Check(
        "7.8",
        "stack: values and gradients",
        _stack_cases,
        ops_program.cat,
        cat_verdict,
        title={"zh": "stack：值与梯度"},
    ),
    Check(
        "7.8",
        "cat: the gradient's gradient",
        _cat_second_cases,
        ops_program.cat,
        cat_verdict,
        title={"zh": "cat：梯度的梯度"},
    ),
    Check(
        "7.7",
        "gather on the simulated device",
        _gather_sim_cases,
        ops_program.gather,
        gather_verdict,
        title={"zh": "模拟设备上的 gather"},
    ),
    Check(
        "7.8",
        "cat and stack on the simulated device",
        _cat_sim_cases,
        ops_program.cat,
        cat_verdict,
        title={"zh": "模拟设备上的 cat 和 stack"},
    ),
]


__all__ = ["CHECKS", "cat_case", "cat_verdict", "gather_case", "gather_verdict"]

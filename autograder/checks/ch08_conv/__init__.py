"""Public checks for chapter 8 — convolution (tasks 8.1–8.3 here; pooling, 8.4 and 8.5, in
``pooling.py``). Every check arrived in course version 1.2.

Every expectation is the parent's own NumPy (``cases.py``: windows by indexing, fold by
``np.add.at``, the convolution as shift and add), and every gradient the complex step of
it (``gradcheck.vjp``), never the code under test nor the reference:

- 8.1 ``output_size`` over sweeps (padding, stride, dilation, sizes where nothing fits: 0 or
  less), the answers judged together so a slip is named by the formula that gives all of
  them; ``windows`` values and shape for every stride/dilation combination, float32, an x
  with strides of its own, and that it is a view: the program writes new values into x
  and the windows must show them.
- 8.2 ``col2im`` on drawn columns and on ones (each pixel counts its windows; a stride
  past the kernel leaves gaps; padding cut off); the gradients of ``F.unfold`` and
  ``F.fold`` (each the other) and their gradient's gradient (each backward recorded);
  the adjoint identity ⟨unfold(x), y⟩ = ⟨x, fold(y)⟩.
- 8.3 ``F.conv2d`` values and the gradients of x, weight and bias over a sweep of stride,
  padding, dilation and groups, bias and none, odd sizes, 1×1 and full-size kernels, batch
  1, float32; only some inputs requiring a gradient (no fold for an x that needs none);
  the second derivatives ∂⟨∂L/∂x, v⟩/∂W and ∂⟨∂L/∂W, V⟩/∂x (``create_graph=True``).

Checks that run another task's code say so (``requires``): 8.2's run 8.1's
``output_size`` and ``windows`` (unfold is given im2col over windows); 8.3 runs both;
pooling runs 8.1's windows and 8.2's fold. ``standins.py`` tells whose bug a check met.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...harness.api import Case, Check, compare, show
from ...harness.table import (
    Field,
    Fields,
    Mistake,
    Rows,
    first,
    record,
    row,
    rules,
    say,
    tr,
    where,
)
from . import pooling, programs
from .cases import (
    CONV_WORDS,
    OUTPUT_SIZE_WORDS,
    WINDOWS_WORDS,
    adjoint_case,
    col2im_case,
    conv_case,
    fold_grad_case,
    output_size_case,
    output_size_wrong,
    second_words,
    windows_case,
)

SINCE = "1.2"
WINDOWS = ("8.1",)  # output_size and windows: what unfold runs
FOLD = ("8.1", "8.2")  # and col2im, Im2Col's and Col2Im's backward
TOLERANCE = {"float64": (1e-9, 1e-10), "float32": (1e-5, 1e-5)}


def _tolerance(case: Case) -> tuple[float, float]:
    return TOLERANCE[getattr(case.expected, "dtype", case.inputs.get("dtype", "float64"))]


# -- 8.1 output_size -------------------------------------------------------------------------


def _slip(case: Case, answers: list) -> str:
    """Words for the known slip whose formula gives every answer of the sweep (where none
    fits, any answer of 0 or less is PyTorch's), else for the first row's."""
    rows = case.inputs["rows"]

    def same(got: Any, wrong: int, want: int) -> bool:
        return got == wrong or (want == 0 and isinstance(got, int) and got <= 0 and wrong <= 0)

    names = list(OUTPUT_SIZE_WORDS)
    for name in names:
        if all(
            same(a, output_size_wrong(*r)[name], want)
            for a, r, want in zip(answers, rows, case.expected)
        ):
            return tr(f" ({say(OUTPUT_SIZE_WORDS[name])})", f"（{say(OUTPUT_SIZE_WORDS[name])}）")
    return ""


def output_size_verdict(case: Case, got: Any) -> str | None:
    """Each answer against the count of windows; where none fits, 0 or less."""
    problem = record(got, ["sizes"])
    if problem:
        return problem
    answers, rows = got["sizes"], case.inputs["rows"]
    if len(answers) != len(rows):
        return tr(
            f"expected {len(rows)} answers, received {len(answers)}",
            f"期望 {len(rows)} 个答案，实际收到 {len(answers)} 个",
        )
    for answer, r, want in zip(answers, rows, case.expected):
        call = "output_size({}, {}, {}, {}, {})".format(*r)
        if isinstance(answer, str):
            return tr(
                f"{call} returned {answer}, expected the int {want}: a number of windows is an "
                "int (a floor division, not a true one)",
                f"{call} 返回了 {answer}，期望 int {want}：窗口个数是一个 int（用向下取整除法，而"
                "不是真除法）",
            )
        if want == 0 and answer <= 0:  # no window fits: PyTorch's formula gives 0 or less
            continue
        if answer != want:
            none = (
                tr(" (no window fits: 0 or less)", "（放不下任何窗口：0 或更小）")
                if want == 0
                else ""
            )
            return tr(
                f"{call} returned {answer}, expected {want}{none}",
                f"{call} 返回了 {answer}，期望 {want}{none}",
            ) + _slip(case, answers)
    return None


def record_of(keys: list[str]) -> Any:
    """A verdict: the record holds ``keys``."""
    return lambda case, got: record(got, keys)


# -- 8.1 windows -----------------------------------------------------------------------------


def _windows_shape(case: Case, got: Any) -> str | None:
    want = tuple(case.expected.shape)
    shape = tuple(got.get("shape", ()))
    if shape == want:
        return None
    n, c, kh, kw, oh, ow = want
    words = ""
    if shape == (n, c, oh, ow, kh, kw):
        words = tr(
            " (the positions (oh, ow) came before the kernel's taps (kh, kw))",
            "（位置 (oh, ow) 排在了卷积核的抽头 (kh, kw) 之前）",
        )
    elif sorted(shape) == sorted(want):
        words = tr(
            " (the right sizes in another order: (N, C, kh, kw, oh, ow))",
            "（各维的大小对了，顺序却不对：应为 (N, C, kh, kw, oh, ow)）",
        )
    return tr(
        f"windows returned shape {shape}, expected (N, C, kh, kw, oh, ow) = {want}{words}",
        f"windows 返回的形状为 {shape}，期望 (N, C, kh, kw, oh, ow) = {want}{words}",
    )


def _windows_dtype(case: Case, got: Any) -> str | None:
    want = case.inputs.get("dtype", "float64")
    if got.get("dtype", want) != want:
        return tr(
            f"the windows are {got['dtype']}, not {want} (x's dtype): a view keeps x's dtype",
            f"窗口的数据类型是 {got['dtype']}，而不是 {want}（x 的数据类型）：视图保持 x 的数据类"
            "型",
        )
    return None


def _window(a: np.ndarray) -> str:
    return np.array2string(np.asarray(a), precision=4, separator=", ").replace("\n", "")


def _windows_values(case: Case, got: Any) -> str | None:
    """The first window (p, q) whose taps differ, shown as kh × kw pixels, with the known
    slip that gives every window the student's code gave."""
    want, values = case.expected.values, got["values"]
    if not isinstance(values, np.ndarray):
        return tr(
            f"windows returned {show(values)}, not an array",
            f"windows 返回了 {show(values)}，不是数组",
        )
    rtol, atol = _tolerance(case)
    with np.errstate(invalid="ignore"):
        bad = ~np.isclose(values.astype(np.float64), want, rtol=rtol, atol=atol)
    if not bad.any():
        return None
    n, c, _, _, p, q = np.argwhere(bad)[0]
    words = next(
        (
            tr(f" ({say(WINDOWS_WORDS[name])})", f"（{say(WINDOWS_WORDS[name])}）")
            for name, wrong in case.expected.wrong.items()
            if wrong is not None and compare(values, wrong, rtol=rtol, atol=atol) is None
        ),
        "",
    ) or _strides_words(case, got)
    return (
        tr(
            f"window (p, q) = ({p}, {q}) of image {n}, channel {c}: expected the pixels "
            f"{_window(want[n, c, :, :, p, q])}, received {_window(values[n, c, :, :, p, q])}",
            f"第 {n} 张图像、第 {c} 个通道的窗口 (p, q) = ({p}, {q})：期望像素 "
            f"{_window(want[n, c, :, :, p, q])}，实际收到 {_window(values[n, c, :, :, p, q])}",
        )
        + words
    )


def _strides_words(case: Case, got: Any) -> str:
    """Words for the view's strides where they are a known slip's (on the axes of more than
    one element, where a stride matters)."""
    strides, e = got.get("strides"), case.expected
    if not isinstance(strides, list) or len(strides) != 6:
        return ""
    axes = [a for a, n in enumerate(e.shape) if n > 1]
    for name, wrong in e.wrong_strides.items():
        if wrong != e.strides and all(strides[a] == wrong[a] for a in axes):
            return tr(f" ({say(WINDOWS_WORDS[name])})", f"（{say(WINDOWS_WORDS[name])}）")
    return ""


COPY = {
    "en": (
        "windows returned a copy: after new values were written into x, the windows still "
        "showed the old ones (a view over x's memory shows whatever x holds now, at no cost)"
    ),
    "zh": (
        "windows 返回的是一份副本：往 x 写入新值后，窗口显示的仍是旧值（建立在 x 内存之上的视图总"
        "是显示 x 当前的内容，而且不花任何代价）"
    ),
}


def _copied(case: Case, got: Any) -> Any:
    after = got.get("after")
    return (
        isinstance(after, np.ndarray)
        and after.shape == case.expected.values.shape
        and np.array_equal(after, case.expected.values)
        and not np.array_equal(case.expected.after, case.expected.values)
    )


windows_verdict = first(
    record_of(["values", "shape"]),
    _windows_shape,
    _windows_dtype,
    _windows_values,
    rules((_copied, COPY)),
    Fields(
        [
            Field(
                "after",
                {
                    "en": "the windows after new values were written into x",
                    "zh": "往 x 写入新值之后的窗口",
                },
                expected=lambda case: case.expected.after,
                tolerance=_tolerance,
            )
        ]
    ),
)


# -- 8.2 col2im, the backwards, the adjoint --------------------------------------------------

ASSIGNED = {
    "en": (
        "a pixel that several windows saw kept one entry, not the sum of all: overlapping "
        "windows add (+=), an assignment keeps only the last"
    ),
    "zh": (
        "被几个窗口看到的像素只保留了一个值，而不是所有值之和：重叠的窗口要相加（+=），赋值只会留"
        "下最后一个"
    ),
}
PADDED = {
    "en": "the padding was not cut off: fold returns the (H, W) image, without the padding",
    "zh": "没有去掉填充：fold 返回的是不含填充的 (H, W) 图像",
}
UNDILATED = {
    "en": (
        "the dilation was ignored: kernel offset (i, j) starts at (i·dh, j·dw), the taps "
        "dilation pixels apart"
    ),
    "zh": "忽略了膨胀：卷积核偏移 (i, j) 从 (i·dh, j·dw) 开始，抽头之间相隔 dilation 个像素",
}
KKC = {
    "en": (
        "the rows of cols were read as (kh, kw, C): unfold orders them (C, kh, kw), the "
        "channel first, then the kernel's row and column"
    ),
    "zh": (
        "cols 的行被按 (kh, kw, C) 读取了：unfold 按 (C, kh, kw) 排列它们，先是通道，再是卷积核的"
        "行和列"
    ),
}
EMPTY = {
    "en": (
        "an empty image: the padding was cut off with negative ends, and with padding 0 a "
        "slice that ends at −0 is empty"
    ),
    "zh": (
        "得到了一张空图像：去掉填充时用负数作切片的结束位置，而 padding 为 0 时，结束于 −0 的切片"
        "是空的"
    ),
}
STRIDED = {
    "en": (
        "the kernel offsets were stepped by the stride too: offset (i, j) starts at "
        "(i·dh, j·dw), and only the windows step by the stride"
    ),
    "zh": "卷积核偏移也按步幅移动了：偏移 (i, j) 从 (i·dh, j·dw) 开始，只有窗口才按步幅移动",
}

col2im_verdict = Fields(
    [Field("out", "col2im(cols, …)", tolerance=_tolerance)],
    [
        Mistake("out", lambda case: case.expected.assigned, ASSIGNED),
        Mistake("out", lambda case: case.expected.padded, PADDED),
        Mistake("out", lambda case: case.expected.strided, STRIDED),
        Mistake("out", lambda case: case.expected.undilated, UNDILATED),
        Mistake("out", lambda case: case.expected.kkc, KKC),
        Mistake("out", lambda case: case.expected.empty, EMPTY),
    ],
    before=lambda case, got: _out_dtype(case, got),  # (defined below, with conv's)
)


def _backward_failed(words: Any = None) -> Any:
    """A backward that raised, with ``words(case, message)`` added."""
    return rules(
        (
            lambda case, got: got.get("backward_error"),
            lambda case, got: (
                tr(
                    f"the backward failed: {got['backward_error']}",
                    f"反向传播失败：{got['backward_error']}",
                )
                + (words(case, got["backward_error"]) if words else "")
            ),
        )
    )


GRAD_GRAD = {
    "en": "the gradient's gradient, ∂⟨∂L/∂x, w⟩/∂g",
    "zh": "梯度的梯度 ∂⟨∂L/∂x, w⟩/∂g",
}

SECOND = first(  # the gradient's gradient exists only when the backward was recorded
    rules(
        (
            lambda case, got: got.get("second_error"),
            lambda case, got: (
                tr(
                    f"the gradient's gradient failed: {got['second_error']}",
                    f"求梯度的梯度失败：{got['second_error']}",
                )
                + second_words(got["second_error"])
            ),
        ),
    ),
    Fields([Field("grad_grad", GRAD_GRAD, rtol=1e-9, atol=1e-10)]),
)


def _fold_name(case: Case) -> str:
    return "F.unfold(x)" if case.inputs["op"] == "unfold" else "F.fold(cols)"


def _grad_name(case: Case) -> str:
    if case.inputs["op"] == "unfold":
        return tr(
            "x.grad (Im2Col's backward: fold of ∂L/∂cols)",
            "x.grad（Im2Col 的反向函数：对 ∂L/∂cols 做 fold）",
        )
    return tr(
        "cols.grad (Col2Im's backward: unfold of ∂L/∂x)",
        "cols.grad（Col2Im 的反向函数：对 ∂L/∂x 做 unfold）",
    )


def _fold_failed(case: Case, message: str) -> str:
    """Words for a failing backward of unfold or fold: what that backward computes, and
    where its result has another shape, that it used other windows than the forward's."""
    if "returned a gradient of shape" in message:  # en-only: the framework's message, matched
        named = [
            f"{name} {tuple(case.inputs[name])}"
            for name, plain in (("dilation", [1, 1]), ("padding", [0, 0]), ("stride", [1, 1]))
            if case.inputs[name] != plain
        ]
        joined = tr(" and ", "，").join(named)
        had = tr(f" (this one had {joined})", f"（本用例的参数：{joined}）") if named else ""
        return tr(
            " — the backward's result has other windows than the forward's: it is computed "
            f"with the forward's own kernel_size, dilation, padding and stride{had}",
            "——反向函数结果的窗口与前向计算的不同：它要用前向计算自己的 kernel_size、dilation、"
            f"padding 和 stride 来计算{had}",
        )
    if case.inputs["op"] == "unfold":
        return tr(
            " — Im2Col's backward turns ∂L/∂cols (N, C·kh·kw, L) back into an image of x's "
            "shape (N, C, H, W): fold, each entry sent back to the pixel it came from",
            "——Im2Col 的反向函数把 ∂L/∂cols (N, C·kh·kw, L) 变回与 x 形状相同的图像 (N, C, H, "
            "W)：即 fold，把每个元素送回它所来自的像素",
        )
    return tr(
        " — Col2Im's backward turns ∂L/∂image (N, C, H, W) into columns (N, C·kh·kw, L): "
        "unfold, each pixel copied into every window that saw it",
        "——Col2Im 的反向函数把 ∂L/∂image (N, C, H, W) 变成列 (N, C·kh·kw, L)：即 unfold，把每个像"
        "素复制到看到它的每个窗口中",
    )


fold_grads_verdict = first(
    Fields([Field("out", _fold_name, rtol=1e-9, atol=1e-10)]),
    _backward_failed(_fold_failed),
    Fields(
        [Field("grad", _grad_name, rtol=1e-9, atol=1e-10)],
        [Mistake("grad", lambda case: case.expected.assigned, ASSIGNED)],
    ),
    where(lambda case: case.expected.grad_grad is not None, SECOND),
)


def _adjoint_then(case: Case, got: Any) -> str | None:
    """F.fold(y) against the parent's, with the inner products that show the identity."""
    e = case.expected
    problem = compare(got["folded"], e.folded, rtol=1e-9, atol=1e-10, path="F.fold(y)")
    if not problem:
        return None
    folded = got["folded"]
    if isinstance(folded, np.ndarray) and folded.shape == case.inputs["x"].shape:
        right = float(np.sum(case.inputs["x"] * folded))
        problem += tr(
            f" (⟨F.unfold(x), y⟩ = {e.inner:.6g} but ⟨x, F.fold(y)⟩ = {right:.6g}: fold is not "
            "unfold's adjoint, which sends every entry back to the pixel it came from, adding)",
            f"（⟨F.unfold(x), y⟩ = {e.inner:.6g}，但 ⟨x, F.fold(y)⟩ = {right:.6g}：fold 不是 "
            "unfold 的伴随；伴随会把每个元素送回它所来自的像素并累加）",
        )
    return problem


adjoint_verdict = Fields(
    [Field("unfolded", "F.unfold(x)", rtol=1e-9, atol=1e-10)],
    then=_adjoint_then,
    keys=["folded"],
)


# -- 8.3 the convolution ---------------------------------------------------------------------


def _wrong(name: str, field: str) -> Any:
    """The case's wrong value of ``field`` for the mistake ``name`` (None: not told apart)."""

    def wrong(case: Case) -> Any:
        found = case.expected.wrong.get(name)
        return found[1] if found and found[0] == field else None

    return wrong


def _grad_mistake(name: str, which: str) -> Mistake:
    """A mistake in one gradient (``which``: "weight", "bias"), on the starred list."""

    def wrong(case: Case) -> Any:
        value = _wrong(name, f"grads.{which}")(case)
        label = f"{which}.grad"
        if value is None or label not in case.expected.names:
            return None
        return [value if n == label else None for n in case.expected.names]

    return Mistake("grads.*", wrong, CONV_WORDS[name])


def _conv_failed(case: Case, message: str) -> str:
    """Words for a backward that raised where they know more than the message."""
    if "gradient(s) for" in message and case.inputs["b"] is None:
        return tr(
            " — with bias=None the convolution has two Tensor inputs, so its backward returns "
            "two gradients (∂L/∂x, ∂L/∂W)",
            "——bias=None 时卷积只有两个 Tensor 输入，所以它的反向函数返回两个梯度（∂L/∂x, ∂L/∂W）",
        )
    b, x = case.inputs["b"], case.inputs["x"]
    if "not have been used" in message:  # en-only: the framework's message, matched
        return tr(
            " — an input that requires a gradient got None back: ctx.needs_input_grad[0] is "
            "x's, [1] the weight's, [2] the bias's",
            "——一个需要梯度的输入得到的却是 None：ctx.needs_input_grad[0] 对应 x，[1] 对应权重，"
            "[2] 对应偏置",
        )
    if f"for an input of shape {tuple(x.shape)}" in message:  # en-only: matched
        groups = case.inputs["groups"]
        return tr(
            " — ∂L/∂x has x's shape (N, C, H, W)", "——∂L/∂x 的形状与 x 相同，为 (N, C, H, W)"
        ) + (
            tr(
                f": with groups={groups}, each group's kernels send their gradient back to their "
                "own C/G channels, and the groups together cover all C",
                f"：groups={groups} 时，每组的卷积核把梯度送回该组自己的 C/G 个通道，各组合起来覆"
                "盖全部 C 个通道",
            )
            if groups > 1
            else ""
        )
    if b is not None and f"for an input of shape ({len(b)},)" in message:  # en-only: matched
        return tr(
            " — ∂L/∂b has the bias's shape (O,): the bias is added at every position of every "
            "image, so its gradient sums ∂L/∂out over the batch and every position",
            "——∂L/∂b 的形状与偏置相同，为 (O,)：偏置加在每张图像的每个位置上，所以它的梯度要把 "
            "∂L/∂out 在整个批量和所有位置上求和",
        )
    return ""


def _out_dtype(case: Case, got: Any) -> str | None:
    want = case.expected.dtype
    if got.get("dtype") != want:
        return tr(
            f"the output is {got.get('dtype')}, not {want} (the input's dtype)",
            f"输出的数据类型是 {got.get('dtype')}，而不是 {want}（输入的数据类型）",
        )
    return None


def _folds(case: Case, got: Any) -> Any:
    return case.inputs["count"] and not case.inputs["needs"][0] and got.get("folds", 0) > 0


def _columns(case: Case, got: Any) -> Any:
    return case.inputs["count"] and not case.inputs["needs"][1] and got.get("columns", 0) > 0


FORWARD = {"en": "F.conv2d(x, weight, bias) (forward)", "zh": "F.conv2d(x, weight, bias)（前向）"}

conv_verdict = first(
    Fields(
        [Field("out", FORWARD, tolerance=_tolerance)],
        [
            Mistake("out", _wrong(name, "out"), CONV_WORDS[name])
            for name in (
                "groups interleaved",
                "groups interleaved channels",  # en-only: a key
                "dilation ignored",
                "bias along the columns",  # en-only: a key
                "bias forgotten",
            )
        ],
        before=_out_dtype,
    ),
    _backward_failed(_conv_failed),
    Fields(
        [
            Field(
                "grads.*",
                lambda case: case.expected.names,
                tolerance=_tolerance,
                expected=lambda case: case.expected.grads,
            )
        ],
        [
            _grad_mistake("x reshaped kernels", "x"),
            _grad_mistake("weight transposed", "weight"),
            _grad_mistake("weight not summed over the batch", "weight"),  # en-only: a key
            _grad_mistake("weight batch mean", "weight"),  # en-only: a key
            _grad_mistake("bias along the columns summed", "bias"),  # en-only: a key
            _grad_mistake("bias mean", "bias"),
            _grad_mistake("bias one position", "bias"),  # en-only: a key
            _grad_mistake("bias batch mean", "bias"),  # en-only: a key
        ],
    ),
    rules(
        (
            _folds,
            {
                "en": (
                    "the backward folded a gradient into ∂L/∂x ({got[folds]} col2im call(s)) "
                    "though x requires no gradient: ctx.needs_input_grad[0] is False, so ∂L/∂x "
                    "is not computed"
                ),
                "zh": (
                    "x 不需要梯度，反向函数却把梯度 fold 进了 ∂L/∂x（调用了 {got[folds]} 次 "
                    "col2im）：ctx.needs_input_grad[0] 为 False，所以不应计算 ∂L/∂x"
                ),
            },
        ),
        (
            _columns,
            {
                "en": (
                    "the backward read the columns for ∂L/∂W ({got[columns]} _columns call(s)) "
                    "though the weight requires no gradient: ctx.needs_input_grad[1] is False, "
                    "so ∂L/∂W is not computed"
                ),
                "zh": (
                    "权重不需要梯度，反向函数却为 ∂L/∂W 读取了列（调用了 {got[columns]} 次 "
                    "_columns）：ctx.needs_input_grad[1] 为 False，所以不应计算 ∂L/∂W"
                ),
            },
        ),
    ),
    where(
        lambda case: case.expected.x_w is not None,
        first(
            rules(
                (
                    lambda case, got: got.get("second_error"),
                    lambda case, got: (
                        tr(
                            f"a second derivative failed: {got['second_error']}",
                            f"求二阶导数失败：{got['second_error']}",
                        )
                        + second_words(got["second_error"])
                    ),
                )
            ),
            Fields(
                [
                    Field(
                        "x_w",
                        {
                            "en": "∂⟨∂L/∂x, v⟩/∂W (a second derivative)",
                            "zh": "∂⟨∂L/∂x, v⟩/∂W（二阶导数）",
                        },
                        rtol=1e-8,
                        atol=1e-9,
                    ),
                    Field(
                        "w_x",
                        {
                            "en": "∂⟨∂L/∂W, V⟩/∂x (a second derivative)",
                            "zh": "∂⟨∂L/∂W, V⟩/∂x（二阶导数）",
                        },
                        rtol=1e-8,
                        atol=1e-9,
                    ),
                ]
            ),
        ),
    ),
)


# -- the cases -------------------------------------------------------------------------------

SWEEP_SMALL = [  # (size, kernel_size, stride, padding, dilation)
    (4, 2, 1, 0, 1),
    (5, 3, 1, 1, 1),
    (5, 3, 2, 1, 1),
    (6, 3, 2, 1, 1),
    (7, 3, 1, 0, 2),
    (2, 3, 1, 0, 1),
]
SWEEP = [
    (size, k, s, p, d)
    for size in (1, 5, 8)
    for k in (1, 3)
    for s in (1, 2, 3)
    for p in (0, 1)
    for d in (1, 2)
]


def _sweep_cases(rng: np.random.Generator) -> list[Case]:
    drawn = [
        (
            int(rng.integers(3, 12)),
            int(rng.integers(1, 4)),
            int(rng.integers(1, 4)),
            int(rng.integers(0, 3)),
            int(rng.integers(1, 3)),
        )
        for _ in range(6)
    ]
    return [
        output_size_case(SWEEP_SMALL, tr("six small rows", "六行小规模的参数")),
        output_size_case(
            SWEEP,
            tr(
                "sizes 1, 5, 8 × kernels 1, 3 × strides 1–3 × padding 0, 1 × dilation 1, 2",
                "尺寸 1, 5, 8 × 卷积核 1, 3 × 步幅 1–3 × 填充 0, 1 × 膨胀 1, 2",
            ),
        ),
        output_size_case(drawn, tr("six drawn rows", "六行随机抽取的参数")),
    ]


def _windows_rows() -> Rows:
    return Rows(
        [
            row(windows_case, (1, 1, 4, 4), (2, 2), arange=True),
            row(windows_case, (1, 1, 6, 6), (2, 2), (1, 1), (2, 2), arange=True),
            row(windows_case, (1, 1, 5, 5), (3, 3), (1, 1), (2, 2)),
            row(windows_case, (1, 1, 5, 5), (2, 2), (2, 2), (1, 1)),
            row(windows_case, (1, 1, 7, 7), (2, 2), (2, 2), (2, 2)),
            row(windows_case, (2, 3, 6, 5), (3, 2), (1, 2), (2, 1)),
            row(windows_case, (1, 2, 7, 8), (2, 3), (3, 1), (1, 3)),
            row(windows_case, (2, 2, 5, 6), (2, 2), (1, 2), (3, 2), dtype="float32"),
            row(windows_case, (1, 2, 5, 5), (3, 3)),
            row(windows_case, (1, 1, 4, 5), (2, 2), (1, 1), (1, 2), transposed=True, arange=True),
        ]
    )


def _col2im_rows() -> Rows:
    return Rows(
        [
            row(col2im_case, 1, 1, (3, 3), (2, 2), ones=True),
            row(col2im_case, 1, 1, (7, 7), (2, 2), stride=(2, 2), ones=True),
            row(col2im_case, 1, 1, (5, 5), (2, 2), stride=(3, 3), ones=True),
            row(col2im_case, 1, 1, (4, 4), (3, 3), padding=(1, 1), ones=True),
            row(col2im_case, 1, 2, (5, 5), (2, 2), (2, 2), (1, 1), (1, 1)),
            row(col2im_case, 1, 2, (6, 6), (2, 2), (2, 2)),
            row(col2im_case, 2, 2, (6, 5), (3, 2), (1, 2), (1, 0), (2, 1)),
            row(col2im_case, 1, 3, (7, 6), (2, 3), (2, 1), (2, 1), (1, 2)),
            row(col2im_case, 1, 2, (5, 5), (2, 2), (1, 1), (1, 1), (2, 2), dtype="float32"),
        ]
    )


def _fold_grad_rows() -> Rows:
    return Rows(
        [
            row(fold_grad_case, "unfold", 1, 1, (3, 3), (2, 2)),
            row(fold_grad_case, "unfold", 1, 2, (5, 4), (3, 2), (1, 1), (1, 1), (2, 1)),
            row(fold_grad_case, "unfold", 2, 1, (5, 5), (2, 2), (2, 2), (0, 1), (1, 2)),
            row(fold_grad_case, "fold", 1, 1, (3, 3), (2, 2)),
            row(fold_grad_case, "fold", 1, 2, (5, 5), (3, 3), (1, 1), (1, 1), (2, 2)),
            row(fold_grad_case, "fold", 2, 1, (6, 5), (2, 3), (2, 1), (1, 0), (1, 1)),
        ]
    )


def _fold_second_rows() -> Rows:
    return Rows(
        [
            row(fold_grad_case, "unfold", 1, 1, (4, 4), (2, 2), second=True),
            row(fold_grad_case, "fold", 1, 2, (4, 5), (2, 2), (1, 2), (1, 0), (2, 1), second=True),
        ]
    )


def _adjoint_rows() -> Rows:
    return Rows(
        [
            row(adjoint_case, 1, 1, (4, 4), (2, 2)),
            row(adjoint_case, 1, 2, (5, 6), (3, 2), (1, 2), (1, 1), (2, 1)),
            row(adjoint_case, 2, 1, (7, 7), (3, 3), (2, 2), (2, 2), (3, 3)),
        ]
    )


def _conv_rows() -> Rows:
    return Rows(
        [
            row(conv_case, 1, 1, (4, 4), 1, (2, 2)),
            row(conv_case, 1, 2, (4, 4), 3, (2, 2)),
            row(conv_case, 1, 1, (4, 4), 1, (2, 2), bias=False),
            row(conv_case, 2, 3, (5, 5), 2, (3, 3), padding=(1, 1)),
            row(conv_case, 2, 2, (7, 6), 3, (3, 2), stride=(2, 1), padding=(1, 0)),
            row(conv_case, 1, 2, (7, 7), 2, (3, 3), dilation=(2, 2), padding=(2, 2)),
            row(conv_case, 2, 4, (5, 4), 4, (2, 2), groups=2),
            row(conv_case, 1, 4, (6, 5), 6, (3, 2), stride=(2, 1), dilation=(1, 2), groups=2),
            row(conv_case, 2, 3, (5, 5), 3, (3, 3), groups=3, bias=False),
            row(conv_case, 1, 3, (5, 4), 2, (1, 1)),
            row(conv_case, 2, 2, (4, 3), 2, (4, 3)),
            row(conv_case, 1, 2, (9, 8), 3, (3, 3), stride=(3, 2), padding=(1, 2), dilation=(2, 1)),
            row(conv_case, 2, 2, (5, 5), 2, (3, 3), padding=(1, 1), dtype="float32"),
        ]
    )


def _conv_needs_rows() -> Rows:
    return Rows(
        [
            row(conv_case, 1, 2, (4, 4), 2, (2, 2), needs=(True, False, False), count=True),
            row(conv_case, 2, 2, (5, 4), 3, (3, 2), needs=(False, True, True), count=True),
            row(
                conv_case,
                1,
                2,
                (5, 5),
                2,
                (3, 3),
                needs=(False, True, False),
                count=True,
                bias=False,
            ),
            row(conv_case, 2, 2, (4, 4), 2, (2, 2), needs=(True, False, True)),
        ]
    )


def _conv_second_rows() -> Rows:
    return Rows(
        [
            row(conv_case, 1, 1, (4, 4), 1, (2, 2), second=True),
            row(conv_case, 2, 2, (5, 5), 2, (3, 3), padding=(1, 1), second=True),
            row(
                conv_case,
                1,
                4,
                (6, 5),
                4,
                (2, 2),
                stride=(2, 1),
                dilation=(1, 2),
                groups=2,
                second=True,
                bias=False,
            ),
        ]
    )


CHECKS = [
    Check(
        "8.1", "output_size", _sweep_cases, programs.output_sizes, output_size_verdict, since=SINCE
    ),
    Check(
        "8.1",
        "windows: values, shape, a view of x",
        _windows_rows(),
        programs.windows,
        windows_verdict,
        since=SINCE,
        title={"zh": "windows：值、形状，以及它是 x 的视图"},
    ),
    Check(
        "8.2",
        "col2im: overlapping windows add",
        _col2im_rows(),
        programs.col2im,
        col2im_verdict,
        WINDOWS,
        since=SINCE,
        title={"zh": "col2im：重叠的窗口相加"},
    ),
    Check(
        "8.2",
        "the gradients of F.unfold and F.fold",
        _fold_grad_rows(),
        programs.fold_grads,
        fold_grads_verdict,
        WINDOWS,
        since=SINCE,
        title={"zh": "F.unfold 与 F.fold 的梯度"},
    ),
    Check(
        "8.2",
        "unfold and fold: the gradient's gradient",
        _fold_second_rows(),
        programs.fold_grads,
        fold_grads_verdict,
        WINDOWS,
        since=SINCE,
        title={"zh": "unfold 与 fold：梯度的梯度"},
    ),
    Check(
        "8.2",
        "the adjoint: ⟨unfold(x), y⟩ = ⟨x, fold(y)⟩",
        _adjoint_rows(),
        programs.adjoint,
        adjoint_verdict,
        WINDOWS,
        since=SINCE,
        title={"zh": "伴随：⟨unfold(x), y⟩ = ⟨x, fold(y)⟩"},
    ),
    Check(
        "8.3",
        "conv2d: values and gradients",
        _conv_rows(),
        programs.conv,
        conv_verdict,
        FOLD,
        since=SINCE,
        title={"zh": "conv2d：值与梯度"},
    ),
    Check(
        "8.3",
        "conv2d: only the gradients needed",
        _conv_needs_rows(),
        programs.conv,
        conv_verdict,
        FOLD,
        since=SINCE,
        title={"zh": "conv2d：只计算需要的梯度"},
    ),
    Check(
        "8.3",
        "conv2d: second derivatives",
        _conv_second_rows(),
        programs.conv,
        conv_verdict,
        FOLD,
        since=SINCE,
        title={"zh": "conv2d：二阶导数"},
    ),
    *pooling.CHECKS,
]

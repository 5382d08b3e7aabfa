"""The parent's own convolution, in NumPy: every expected value of chapter 8's checks comes
from here, never from the code under test nor from the reference implementation.

Each reference is written another way than the chapter's (no strided view, no im2col
matrix product), and keeps complex values, so ``gradcheck.vjp`` (the complex step) gives
its gradients exactly:

- ``count_windows``: the windows along one axis, counted as the starts that leave room for
  the whole reach (no formula with a floor).
- ``windows_ref``: view[n, c, i, j, p, q] = x[n, c, p·sh + i·dh, q·sw + j·dw], by fancy
  indexing (a copy).
- ``fold_ref``: every entry added to its pixel by ``np.add.at`` (a scatter-add over the
  positions the windows list), then the padding cut off.
- ``conv_ref``: the sliding dot product as shift and add: for each group and each kernel tap
  (i, j), the taps' weights times the input shifted by (i·dh, j·dw) and sampled every
  stride, summed over the group's channels.
- ``max_pool_ref``: each window's maximum and its first argmax in row-major order (NumPy's
  ``argmax``, PyTorch's tie rule), the gradient sent to it by ``np.add.at``; padding −∞.
- ``avg_pool_ref``: each window's sum over its divisor (kh·kw, the pixels inside the image,
  or the divisor given).

The wrong formulas the verdicts name are here too (``*_wrong``): each is a known mistake,
computed from the case, compared with what the student's code returned.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...harness.api import Case
from ...harness.gradcheck import vjp
from ...harness.language import tr

Pair = tuple[int, int]


def _pair(value: Any) -> Pair:
    return (value, value) if isinstance(value, int) else tuple(value)


def values(rng: np.random.Generator, shape: Sequence[int]) -> np.ndarray:
    """Drawn values in [−2, 2], three decimals (exact in the report, no ties)."""
    return np.round(rng.uniform(-2, 2, tuple(shape)), 3)


def second_words(message: str) -> str:
    """Words for a failed second derivative, from what it raised."""
    if "require grad" in message or "grad_fn" in message:
        return tr(
            " (the backward's result was not recorded: a bare array, or an operation outside "
            "the graph)",
            "（反向函数的结果没有记录到计算图中：它是一个裸数组，或者来自计算图之外的运算）",
        )
    if "returned a gradient of shape" in message:  # en-only: the framework's message, matched
        return tr(
            " (a backward met on the way gave a gradient of another shape than its input: "
            "unfold and fold in a backward use the forward's own kernel_size, dilation, "
            "padding and stride)",
            "（途中某个反向函数给出的梯度与其输入的形状不同：反向函数里的 unfold 和 fold 要用前向"
            "计算自己的 kernel_size、dilation、padding 和 stride）",
        )
    return ""


# -- 8.1: the windows --------------------------------------------------------------------------


def count_windows(size: int, kernel_size: int, stride: int, padding: int, dilation: int) -> int:
    """How many windows fit: the starts 0, s, 2s, … whose reach stays inside the padded
    axis, counted one by one."""
    reach = dilation * (kernel_size - 1) + 1
    return sum(
        1 for start in range(0, size + 2 * padding, stride) if start + reach <= size + 2 * padding
    )


def output_size_wrong(size: int, k: int, s: int, p: int, d: int) -> dict[str, int]:
    """The known wrong formulas of output_size, each as PyTorch's form with one slip."""
    reach = d * (k - 1) + 1
    return {
        "padding once": (size + p - reach) // s + 1,
        "dilation ignored": (size + 2 * p - k) // s + 1,
        "reach d·k": (size + 2 * p - d * k) // s + 1,
        "no −1 in the reach": (size + 2 * p - d * (k - 1)) // s + 1,  # en-only: a key
        "extra −1": (size + 2 * p - reach - 1) // s + 1,
        "no +1": (size + 2 * p - reach) // s,
        "stride twice": (size + 2 * p - reach) // (s * s) + 1,
        "ceil": -(-(size + 2 * p - reach) // s) + 1,
        "size / stride": (size + 2 * p) // s - reach + 1,
    }


OUTPUT_SIZE_WORDS = {
    "padding once": {
        "en": "the padding was counted once: it goes on both sides, size + 2·padding",
        "zh": "填充只算了一次：两侧都要填充，应为 size + 2·padding",
    },
    "dilation ignored": {
        "en": (
            "the dilation was ignored: a kernel of k taps spread d apart reaches d·(k − 1) + 1 "
            "pixels"
        ),
        "zh": "忽略了膨胀：有 k 个抽头、抽头间隔为 d 的卷积核跨越 d·(k − 1) + 1 个像素",
    },
    "reach d·k": {
        "en": (
            "the reach was taken as dilation·kernel_size: k taps spread d apart reach "
            "d·(k − 1) + 1 pixels"
        ),
        "zh": "把跨度当成了 dilation·kernel_size：间隔为 d 的 k 个抽头跨越 d·(k − 1) + 1 个像素",
    },
    "no −1 in the reach": {  # en-only: a key
        "en": (
            "off by one: the reach of k taps spread d apart is d·(k − 1) + 1 pixels, not d·(k − 1)"
        ),
        "zh": "差一错误：间隔为 d 的 k 个抽头跨越 d·(k − 1) + 1 个像素，而不是 d·(k − 1) 个",
    },
    "extra −1": {
        "en": (
            "off by one: one pixel too many was taken off (the reach d·(k − 1) + 1 already "
            "counts the window's first pixel)"
        ),
        "zh": "差一错误：多减了一个像素（跨度 d·(k − 1) + 1 已经算上了窗口的第一个像素）",
    },
    "no +1": {
        "en": "off by one: the first window counts too (the + 1 after the floor division)",
        "zh": "差一错误：第一个窗口也要算上（即向下取整除法之后的 + 1）",
    },
    "stride twice": {
        "en": "the stride was applied twice (divided by stride·stride)",
        "zh": "步幅用了两次（除以了 stride·stride）",
    },
    "ceil": {
        "en": "the division was rounded up: a window that does not fit whole does not count",
        "zh": "除法向上取整了：放不下一整个窗口的位置不算",
    },
    "size / stride": {
        "en": "the size was divided by the stride before the reach was taken off",
        "zh": "先把尺寸除以了步幅，才减去跨度",
    },
}


def windows_ref(x: np.ndarray, kernel_size: Pair, dilation: Pair, stride: Pair) -> np.ndarray:
    """view[n, c, i, j, p, q] = x[n, c, p·sh + i·dh, q·sw + j·dw] (a copy, by indexing)."""
    (kh, kw), (dh, dw), (sh, sw) = kernel_size, dilation, stride
    oh = count_windows(x.shape[2], kh, sh, 0, dh)
    ow = count_windows(x.shape[3], kw, sw, 0, dw)
    rows = np.arange(kh)[:, None] * dh + np.arange(oh)[None, :] * sh  # (kh, oh)
    cols = np.arange(kw)[:, None] * dw + np.arange(ow)[None, :] * sw  # (kw, ow)
    return x[:, :, rows[:, None, :, None], cols[None, :, None, :]]


def windows_wrong(x: np.ndarray, kernel_size: Pair, dilation: Pair, stride: Pair) -> dict:
    """The windows with one known slip (where they stay inside x): taps and stops swapped,
    the dilation or the stride left out of the strides, the stride applied twice."""
    (kh, kw), (sh, sw) = kernel_size, stride
    shape = windows_ref(x, kernel_size, dilation, stride).shape
    oh, ow = shape[4], shape[5]

    def picked(tap: Pair, stop: Pair) -> np.ndarray | None:
        rows = np.arange(kh)[:, None] * tap[0] + np.arange(oh)[None, :] * stop[0]
        cols = np.arange(kw)[:, None] * tap[1] + np.arange(ow)[None, :] * stop[1]
        if rows.max(initial=0) >= x.shape[2] or cols.max(initial=0) >= x.shape[3]:
            return None
        return x[:, :, rows[:, None, :, None], cols[None, :, None, :]]

    return {
        "swapped": picked(stride, dilation),
        "no dilation": picked((1, 1), stride),
        "no stride": picked(dilation, (1, 1)),
        "stride twice": picked(dilation, (sh * sh, sw * sw)),
    }


WINDOWS_WORDS = {
    "swapped": {
        "en": (
            "the kernel's taps step by the stride and the windows by the dilation: they are "
            "swapped (a tap moves dilation pixels, the next window stride pixels)"
        ),
        "zh": (
            "卷积核的抽头按步幅移动，窗口却按膨胀移动：两者弄反了（相邻抽头相隔 dilation 个像素，"
            "相邻窗口相隔 stride 个像素）"
        ),
    },
    "no dilation": {
        "en": "the dilation was left out: the kernel's taps are dilation pixels apart",
        "zh": "漏掉了膨胀：卷积核的抽头彼此相隔 dilation 个像素",
    },
    "no stride": {
        "en": "the stride was left out: the windows start stride pixels apart",
        "zh": "漏掉了步幅：相邻窗口的起点相隔 stride 个像素",
    },
    "stride twice": {
        "en": "the stride was applied twice: the windows start stride pixels apart",
        "zh": "步幅用了两次：相邻窗口的起点相隔 stride 个像素",
    },
    "contiguous": {
        "en": (
            "windows read x as if it were contiguous: this x has strides of its own "
            "(x.strides), and the view's steps come from them, whatever x's layout"
        ),
        "zh": (
            "windows 把 x 当成连续数组来读了：这个 x 有自己的步幅（x.strides），无论 x 在内存中如"
            "何布局，视图每一步的步长都由它们得出"
        ),
    },
    "elements": {
        "en": (
            "the view's strides were counted in elements: NumPy's strides are in bytes "
            "(x.strides already are)"
        ),
        "zh": "视图的步幅是按元素个数算的：NumPy 的步幅以字节为单位（x.strides 已经是字节数）",
    },
}


def output_size_case(rows: Sequence[tuple[int, int, int, int, int]], label: str) -> Case:
    """output_size on each (size, kernel_size, stride, padding, dilation) of ``rows``."""
    rows = [tuple(int(v) for v in r) for r in rows]
    want = [count_windows(*r) for r in rows]
    return Case(
        tr(
            f"output_size(size, kernel_size, stride, padding, dilation) over {label}",
            f"output_size(size, kernel_size, stride, padding, dilation)，遍历{label}",
        ),
        {"rows": [list(r) for r in rows]},
        want,
    )


@dataclass(frozen=True)
class WindowsExpected:
    values: np.ndarray
    after: np.ndarray  # the windows of x once the program has written x2 into x
    shape: tuple
    wrong: dict  # windows_wrong's slips, by name
    strides: tuple  # the view's byte strides, by definition of the view
    wrong_strides: dict  # the strides each known slip gives, by name


def _view_strides(strides: tuple, dilation: Pair, stride: Pair) -> tuple:
    """A step along i moves dh rows, along p sh rows: x's strides, multiplied."""
    s_n, s_c, s_h, s_w = strides
    return (s_n, s_c, s_h * dilation[0], s_w * dilation[1], s_h * stride[0], s_w * stride[1])


def windows_case(
    rng: np.random.Generator,
    shape: tuple,
    kernel_size: Pair,
    dilation: Pair = (1, 1),
    stride: Pair = (1, 1),
    *,
    dtype: str = "float64",
    step: int = 1,
    transposed: bool = False,
    arange: bool = False,
) -> Case:
    """windows(x, kernel_size, dilation, stride) for x of ``shape`` (with ``step`` > 1, x is
    every step-th column of a wider array; with ``transposed``, x is a transposed array:
    views with strides of their own)."""
    n, c, h, w = shape
    held = (n, c, w, h) if transposed else (n, c, h, w * step)
    size = int(np.prod(held))
    base = np.arange(size, dtype=np.float64).reshape(held) if arange else values(rng, held)
    laid = np.array(base, dtype=dtype)
    x = laid.transpose(0, 1, 3, 2) if transposed else laid[..., ::step]
    x2 = values(rng, shape)
    kernel_size, dilation, stride = _pair(kernel_size), _pair(dilation), _pair(stride)
    want = windows_ref(x, kernel_size, dilation, stride)
    item = x.itemsize
    contiguous = np.empty(shape, dtype=dtype).strides
    wrong = windows_wrong(x, kernel_size, dilation, stride)
    if x.strides != contiguous:  # read as if contiguous: x's memory from its start, in order
        wrong["contiguous"] = windows_ref(
            laid.reshape(-1)[: x.size].reshape(shape), kernel_size, dilation, stride
        )
    strides = _view_strides(x.strides, dilation, stride)
    expected = WindowsExpected(
        want,
        windows_ref(x2, kernel_size, dilation, stride),
        want.shape,
        wrong,
        strides,
        {
            "elements": tuple(v // item for v in strides),
            "swapped": _view_strides(x.strides, stride, dilation),
            "contiguous": _view_strides(contiguous, dilation, stride),
        },
    )
    words = [tr(f"x of shape {shape}", f"x 的形状为 {shape}")]
    if arange:
        words.append(
            tr("each value its place in memory", "每个值就是它在内存中的位置")
            if transposed or step > 1
            else tr(
                "x = arange (each value is its pixel's number)",
                "x = arange（每个值就是其像素的编号）",
            )
        )
    if dtype != "float64":
        words.append(dtype)
    if step > 1:
        words.append(
            tr(
                f"x every {step}th column of a wider array (x.strides its own)",
                f"x 取自一个更宽的数组，每 {step} 列取一列（x.strides 是它自己的）",
            )
        )
    if transposed:
        words.append(
            tr(
                "x a transposed array (x.strides its own)",
                "x 是一个转置后的数组（x.strides 是它自己的）",
            )
        )
    comma = tr(", ", "，")
    label = (
        f"windows(x, kernel_size={kernel_size}, dilation={dilation}, stride={stride})"
        + comma
        + comma.join(words)
    )
    inputs = {
        "base": base,
        "step": step,
        "transposed": transposed,
        "kernel_size": list(kernel_size),
        "dilation": list(dilation),
        "stride": list(stride),
        "x2": x2,
        "dtype": dtype,
    }
    return Case(label, inputs, expected)


# -- 8.2: fold ---------------------------------------------------------------------------------


def pad_ref(x: np.ndarray, padding: Pair, value: float = 0.0) -> np.ndarray:
    widths = ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2)
    return np.pad(x, widths, constant_values=value)


def unfold_ref(x: np.ndarray, kernel_size: Pair, dilation: Pair, padding: Pair, stride: Pair):
    """cols[n, (c, i, j), (p, q)] = x_padded[n, c, p·sh + i·dh, q·sw + j·dw]."""
    view = windows_ref(pad_ref(x, padding), kernel_size, dilation, stride)
    n, c, kh, kw, oh, ow = view.shape
    return view.reshape(n, c * kh * kw, oh * ow)


def _places(size: Pair, kernel_size: Pair, dilation: Pair, padding: Pair, stride: Pair):
    """The padded rows and columns each (i, j, p, q) entry came from, (kh, kw, oh, ow) each."""
    (h, w), (kh, kw), (dh, dw), (ph, pw), (sh, sw) = size, kernel_size, dilation, padding, stride
    oh, ow = count_windows(h, kh, sh, ph, dh), count_windows(w, kw, sw, pw, dw)
    rows = np.arange(kh)[:, None] * dh + np.arange(oh)[None, :] * sh
    cols = np.arange(kw)[:, None] * dw + np.arange(ow)[None, :] * sw
    return rows[:, None, :, None], cols[None, :, None, :], oh, ow


def fold_ref(
    cols: np.ndarray, size: Pair, kernel_size: Pair, dilation: Pair, padding: Pair, stride: Pair
) -> np.ndarray:
    """Each entry of cols added (``np.add.at``) to the pixel it came from; padding dropped."""
    rows, columns, oh, ow = _places(size, kernel_size, dilation, padding, stride)
    (h, w), (kh, kw), (ph, pw) = size, kernel_size, padding
    n = cols.shape[0]
    c = cols.shape[1] // (kh * kw)
    out = np.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=np.result_type(cols.dtype, np.float64))
    patches = cols.reshape(n, c, kh, kw, oh, ow)
    np.add.at(out, (slice(None), slice(None), rows, columns), patches)
    return out[:, :, ph : ph + h, pw : pw + w]


def fold_assigned(
    cols: np.ndarray, size: Pair, kernel_size: Pair, dilation: Pair, padding: Pair, stride: Pair
) -> np.ndarray:
    """The mistake: each kernel offset's entries *assigned* to their pixels, offset after
    offset, so a pixel several windows saw keeps the last one."""
    rows, columns, oh, ow = _places(size, kernel_size, dilation, padding, stride)
    (h, w), (kh, kw), (ph, pw) = size, kernel_size, padding
    n = cols.shape[0]
    c = cols.shape[1] // (kh * kw)
    out = np.zeros((n, c, h + 2 * ph, w + 2 * pw))
    patches = cols.reshape(n, c, kh, kw, oh, ow)
    for i in range(kh):
        for j in range(kw):
            out[:, :, rows[i, 0, :, 0][:, None], columns[0, j, 0, :][None, :]] = patches[:, :, i, j]
    return out[:, :, ph : ph + h, pw : pw + w]


def fold_padded(
    cols: np.ndarray, size: Pair, kernel_size: Pair, dilation: Pair, padding: Pair, stride: Pair
) -> np.ndarray | None:
    """The mistake: the padded image returned, padding not cut off."""
    if padding == (0, 0):
        return None
    rows, columns, oh, ow = _places(size, kernel_size, dilation, padding, stride)
    (h, w), (kh, kw), (ph, pw) = size, kernel_size, padding
    n = cols.shape[0]
    c = cols.shape[1] // (kh * kw)
    full = np.zeros((n, c, h + 2 * ph, w + 2 * pw))
    np.add.at(full, (slice(None), slice(None), rows, columns), cols.reshape(n, c, kh, kw, oh, ow))
    return full


def fold_taps(
    cols: np.ndarray,
    size: Pair,
    kernel_size: Pair,
    dilation: Pair,
    padding: Pair,
    stride: Pair,
    taps: Pair,
) -> np.ndarray | None:
    """A mistake: kernel offset (i, j) placed at (i·taps[0], j·taps[1]) (the dilation
    ``taps`` = (1, 1) ignored, or dilation·stride: the stride applied to the taps too), the
    windows counted as they should be (None where nothing changes, or a place leaves the
    padded image: such code raises)."""
    if taps == dilation:
        return None
    _, _, oh, ow = _places(size, kernel_size, dilation, padding, stride)
    (h, w), (kh, kw), (ph, pw), (sh, sw) = size, kernel_size, padding, stride
    rows = np.arange(kh)[:, None] * taps[0] + np.arange(oh)[None, :] * sh
    columns = np.arange(kw)[:, None] * taps[1] + np.arange(ow)[None, :] * sw
    if rows.max() >= h + 2 * ph or columns.max() >= w + 2 * pw:
        return None
    n = cols.shape[0]
    c = cols.shape[1] // (kh * kw)
    out = np.zeros((n, c, h + 2 * ph, w + 2 * pw))
    where = (slice(None), slice(None), rows[:, None, :, None], columns[None, :, None, :])
    np.add.at(out, where, cols.reshape(n, c, kh, kw, oh, ow))
    return out[:, :, ph : ph + h, pw : pw + w]


def fold_rows_kkc(
    cols: np.ndarray, size: Pair, kernel_size: Pair, dilation: Pair, padding: Pair, stride: Pair
) -> np.ndarray | None:
    """A mistake: the rows of cols read as (kh, kw, C) instead of (C, kh, kw) (None with one
    channel, where both orders agree)."""
    (kh, kw), n = kernel_size, cols.shape[0]
    c = cols.shape[1] // (kh * kw)
    if c == 1:
        return None
    reordered = cols.reshape(n, kh, kw, c, -1).transpose(0, 3, 1, 2, 4).reshape(cols.shape)
    return fold_ref(reordered, size, kernel_size, dilation, padding, stride)


@dataclass(frozen=True)
class FoldExpected:
    out: np.ndarray
    assigned: np.ndarray
    padded: np.ndarray | None
    strided: np.ndarray | None  # kernel offsets stepped by dilation·stride
    undilated: np.ndarray | None  # kernel offsets stepped by 1
    kkc: np.ndarray | None  # rows read (kh, kw, C)
    empty: np.ndarray | None  # the padding 0 cut with negative ends: an empty image
    dtype: str = "float64"  # cols' dtype, which the output keeps


def _args_words(kernel_size: Pair, dilation: Pair, padding: Pair, stride: Pair) -> str:
    words = [f"kernel_size={kernel_size}"]
    for name, value in (("dilation", dilation), ("padding", padding), ("stride", stride)):
        if value != ((0, 0) if name == "padding" else (1, 1)):
            words.append(f"{name}={value}")
    return ", ".join(words)


def col2im_case(
    rng: np.random.Generator,
    n: int,
    c: int,
    size: Pair,
    kernel_size: Pair,
    dilation: Pair = (1, 1),
    padding: Pair = (0, 0),
    stride: Pair = (1, 1),
    *,
    ones: bool = False,
    dtype: str = "float64",
) -> Case:
    """col2im(cols, size, kernel_size, dilation, padding, stride) on drawn cols (all ones
    with ``ones``: each pixel then counts the windows that saw it), of ``dtype``."""
    _, _, oh, ow = _places(size, kernel_size, dilation, padding, stride)
    kh, kw = kernel_size
    shape = (n, c * kh * kw, oh * ow)
    cols = np.ones(shape) if ones else values(rng, shape)
    args = (size, kernel_size, dilation, padding, stride)
    expected = FoldExpected(
        fold_ref(cols, *args),
        fold_assigned(cols, *args),
        fold_padded(cols, *args),
        fold_taps(cols, *args, taps=(dilation[0] * stride[0], dilation[1] * stride[1])),
        fold_taps(cols, *args, taps=(1, 1)),
        fold_rows_kkc(cols, *args),
        np.zeros((n, c, 0, 0)) if padding == (0, 0) else None,
        dtype,
    )
    label = (
        tr(
            f"col2im(cols, size={size}, {_args_words(kernel_size, dilation, padding, stride)}), "
            f"cols of shape {shape}",
            f"col2im(cols, size={size}, {_args_words(kernel_size, dilation, padding, stride)})，"
            f"cols 的形状为 {shape}",
        )
        + (
            tr(
                " all ones (each pixel counts its windows)",
                "，全为 1（每个像素得到覆盖它的窗口数）",
            )
            if ones
            else ""
        )
        + (tr(f", {dtype}", f"，{dtype}") if dtype != "float64" else "")
    )
    inputs = {
        "cols": cols,
        "size": list(size),
        "kernel_size": list(kernel_size),
        "dilation": list(dilation),
        "padding": list(padding),
        "stride": list(stride),
        "dtype": dtype,
    }
    return Case(label, inputs, expected)


@dataclass(frozen=True)
class FoldGradExpected:
    out: np.ndarray
    grad: np.ndarray
    assigned: np.ndarray | None  # fold's backward (unfold's gradient) assigning
    grad_grad: np.ndarray | None  # ∂⟨∂L/∂input, w⟩/∂g


def fold_grad_case(
    rng: np.random.Generator,
    op: str,
    n: int,
    c: int,
    size: Pair,
    kernel_size: Pair,
    dilation: Pair = (1, 1),
    padding: Pair = (0, 0),
    stride: Pair = (1, 1),
    *,
    second: bool = False,
) -> Case:
    """F.unfold (``op`` "unfold") or F.fold ("fold") of a drawn input, its gradient for a
    drawn upstream g (numerical: the complex step), and with ``second`` the gradient's
    gradient ∂⟨∂L/∂input, w⟩/∂g."""
    args = (kernel_size, dilation, padding, stride)
    _, _, oh, ow = _places(size, *args[:1], dilation, padding, stride)
    kh, kw = kernel_size
    image, columns = (n, c, *size), (n, c * kh * kw, oh * ow)

    def unfold(a: np.ndarray) -> np.ndarray:
        return unfold_ref(a, *args)

    def fold(a: np.ndarray) -> np.ndarray:
        return fold_ref(a, size, *args)

    forward, backward = (unfold, fold) if op == "unfold" else (fold, unfold)
    x = values(rng, image if op == "unfold" else columns)
    out = forward(x)
    g = values(rng, out.shape)
    w = values(rng, x.shape) if second else None
    assigned = fold_assigned(g, size, *args) if op == "unfold" else None
    expected = FoldGradExpected(
        out,
        vjp(forward, [x], g)[0],
        assigned,
        vjp(backward, [g], w)[0] if second else None,
    )
    call = (
        f"F.unfold(x, {_args_words(*args)})"
        if op == "unfold"
        else f"F.fold(cols, output_size={size}, {_args_words(*args)})"
    )
    label = tr(
        f"{call}, input of shape {x.shape}, its gradient",
        f"{call}，输入的形状为 {x.shape}，求梯度",
    ) + (tr(" and the gradient's gradient", "以及梯度的梯度") if second else "")
    inputs = {
        "op": op,
        "x": x,
        "size": list(size),
        "kernel_size": list(kernel_size),
        "dilation": list(dilation),
        "padding": list(padding),
        "stride": list(stride),
        "g": g,
        "w": w,
    }
    return Case(label, inputs, expected)


@dataclass(frozen=True)
class AdjointExpected:
    unfolded: np.ndarray
    folded: np.ndarray
    inner: float  # ⟨unfold(x), y⟩ = ⟨x, fold(y)⟩


def adjoint_case(
    rng: np.random.Generator,
    n: int,
    c: int,
    size: Pair,
    kernel_size: Pair,
    dilation: Pair = (1, 1),
    padding: Pair = (0, 0),
    stride: Pair = (1, 1),
) -> Case:
    """F.unfold(x) and F.fold(y) for drawn x and y: ⟨unfold(x), y⟩ = ⟨x, fold(y)⟩."""
    args = (kernel_size, dilation, padding, stride)
    x = values(rng, (n, c, *size))
    unfolded = unfold_ref(x, *args)
    y = values(rng, unfolded.shape)
    folded = fold_ref(y, size, *args)
    expected = AdjointExpected(unfolded, folded, float(np.sum(unfolded * y)))
    label = tr(
        f"⟨F.unfold(x), y⟩ = ⟨x, F.fold(y)⟩ with {_args_words(*args)}, x of shape {x.shape}",
        f"⟨F.unfold(x), y⟩ = ⟨x, F.fold(y)⟩，参数为 {_args_words(*args)}，x 的形状为 {x.shape}",
    )
    inputs = {
        "x": x,
        "y": y,
        "size": list(size),
        "kernel_size": list(kernel_size),
        "dilation": list(dilation),
        "padding": list(padding),
        "stride": list(stride),
    }
    return Case(label, inputs, expected)


# -- 8.3: the convolution ----------------------------------------------------------------------


def conv_ref(
    x: np.ndarray,
    weight: np.ndarray,
    bias: np.ndarray | None,
    stride: Pair,
    padding: Pair,
    dilation: Pair,
    groups: int,
) -> np.ndarray:
    """The sliding dot product as shift and add: for each group and tap (i, j), the taps'
    weights times the padded input shifted by (i·dh, j·dw), sampled every stride."""
    (sh, sw), (dh, dw) = stride, dilation
    n = x.shape[0]
    o, per_group, kh, kw = weight.shape
    xp = pad_ref(x, padding)
    oh = count_windows(x.shape[2], kh, sh, padding[0], dh)
    ow = count_windows(x.shape[3], kw, sw, padding[1], dw)
    out = np.zeros((n, o, oh, ow), dtype=np.result_type(x.dtype, weight.dtype, np.float64))
    og = o // groups
    for g in range(groups):
        inputs = xp[:, g * per_group : (g + 1) * per_group]
        for i in range(kh):
            for j in range(kw):
                shifted = inputs[
                    :,
                    :,
                    i * dh : i * dh + sh * (oh - 1) + 1 : sh,
                    j * dw : j * dw + sw * (ow - 1) + 1 : sw,
                ]
                taps = weight[g * og : (g + 1) * og, :, i, j]  # (O/G, C/G)
                out[:, g * og : (g + 1) * og] += np.einsum("oc,nchw->nohw", taps, shifted)
    if bias is not None:
        out = out + bias.reshape(1, o, 1, 1)
    return out


@dataclass(frozen=True)
class ConvExpected:
    dtype: str
    out: np.ndarray
    grads: list  # ∂L/∂x, ∂L/∂weight, ∂L/∂bias: those the case asks for, in that order
    names: list  # "x.grad", "weight.grad", "bias.grad" for those
    wrong: dict  # known mistakes: name → the wrong value of a field (None: not told apart)
    x_w: np.ndarray | None  # ∂⟨∂L/∂x, v⟩/∂weight
    w_x: np.ndarray | None  # ∂⟨∂L/∂weight, V⟩/∂x


def conv_wrong(x, w, b, g, stride, padding, dilation, groups) -> dict:
    """Known mistakes of the convolution, each the field it shows in and its wrong value."""
    o, per_group, kh, kw = w.shape
    n = x.shape[0]
    og = o // groups
    cols = unfold_ref(x, (kh, kw), dilation, padding, stride)  # (N, C·kh·kw, L)
    gl = g.reshape(n, o, -1)
    out: dict[str, tuple[str, Any]] = {}
    if groups == 1 and o * 1 != per_group * kh * kw:
        flipped = np.einsum("nkl,nol->ko", cols, gl).reshape(w.shape)  # (cols @ gᵀ) reshaped
        out["weight transposed"] = ("grads.weight", flipped)
    out["weight not summed over the batch"] = (  # en-only: a key
        "grads.weight",
        None
        if n == 1
        else _weight_grad(x, w, g, stride, padding, dilation, groups, batch=slice(0, 1)),
    )
    if n > 1:
        out["weight batch mean"] = (  # en-only: a key
            "grads.weight",
            _weight_grad(x, w, g, stride, padding, dilation, groups) / n,
        )
    if b is not None:
        out["bias mean"] = ("grads.bias", g.sum((0, 2, 3)) / (g.shape[2] * g.shape[3]))
        out["bias one position"] = ("grads.bias", g[:, :, 0, 0].sum(0))  # en-only: a key
        if o > 1 and g.shape[3] == o:  # ∂L/∂out summed over the batch only, (O, oh, ow),
            # reduced onto (O,) along its last axis by the engine
            summed = "bias along the columns summed"  # en-only: a key
            out[summed] = ("grads.bias", g.sum((0, 1, 2)))
        mean = "bias batch mean"  # en-only: a key
        out[mean] = ("grads.bias", g.sum((0, 2, 3)) / n if n > 1 else None)
    if groups > 1:  # the kernels taken into groups interleaved: (O/G, G, …) for (G, O/G, …)
        order = np.arange(o).reshape(og, groups).T.reshape(-1)
        out["groups interleaved"] = (
            "out",
            conv_ref(x, w[order], b, stride, padding, dilation, groups),
        )
        rows = cols.reshape(n, -1, groups, cols.shape[-1]).swapaxes(1, 2)  # channel-interleaved
        mixed = np.einsum("gok,ngkl->ngol", w.reshape(groups, og, -1), rows)
        mixed = mixed.reshape(n, o, *g.shape[2:])
        out["groups interleaved channels"] = (  # en-only: a key
            "out",
            mixed + (0 if b is None else b.reshape(1, o, 1, 1)),
        )
    if dilation != (1, 1):
        ok = all(
            count_windows(x.shape[2 + a], (kh, kw)[a], stride[a], padding[a], 1)
            == count_windows(x.shape[2 + a], (kh, kw)[a], stride[a], padding[a], dilation[a])
            for a in range(2)
        )
        if ok:
            out["dilation ignored"] = ("out", conv_ref(x, w, b, stride, padding, (1, 1), groups))
    kernels = w.reshape(groups, og, -1)
    reshaped = kernels.reshape(groups, -1, og)  # (G, C/G·kh·kw, O/G): reshaped, not transposed
    g_cols = np.einsum("gko,ngol->ngkl", reshaped, g.reshape(n, groups, og, -1))
    size = x.shape[2:]
    out["x reshaped kernels"] = (
        "grads.x",
        fold_ref(
            g_cols.reshape(n, -1, g_cols.shape[-1]), size, (kh, kw), dilation, padding, stride
        ),
    )
    if b is not None and o > 1 and g.shape[3] == o:
        flat = conv_ref(x, w, None, stride, padding, dilation, groups)
        out["bias along the columns"] = ("out", flat + b.reshape(1, 1, 1, o))  # en-only: a key
    if b is not None:
        out["bias forgotten"] = ("out", conv_ref(x, w, None, stride, padding, dilation, groups))
    return {k: v for k, v in out.items() if v[1] is not None}


def _weight_grad(x, w, g, stride, padding, dilation, groups, batch=slice(None)):
    return vjp(
        lambda a: conv_ref(x[batch], a, None, stride, padding, dilation, groups), [w], g[batch]
    )[0]


CONV_WORDS = {
    "weight transposed": {
        "en": (
            "∂L/∂W was computed as cols · gᵀ (the transposed product) and reshaped: it is "
            "g · colsᵀ, one row per kernel"
        ),
        "zh": (
            "∂L/∂W 被算成了 cols · gᵀ（转置后的乘积）再改变形状：它应是 g · colsᵀ，每个卷积核一行"
        ),
    },
    "weight not summed over the batch": {  # en-only: a key
        "en": "∂L/∂W holds the first image's part only: it is summed over the batch",
        "zh": "∂L/∂W 只含第一张图像的那一部分：它要在整个批量上求和",
    },
    "bias mean": {
        "en": (
            "∂L/∂b is the mean of ∂L/∂out over the positions: the bias is added at every "
            "position, so its gradient is the sum over the batch and every position"
        ),
        "zh": (
            "∂L/∂b 取成了 ∂L/∂out 在各位置上的平均值：偏置加在每个位置上，所以它的梯度是在整个批"
            "量和所有位置上的和"
        ),
    },
    "bias one position": {  # en-only: a key
        "en": (
            "∂L/∂b was taken at one position: the bias is added at every position, so its "
            "gradient sums ∂L/∂out over the batch and every position"
        ),
        "zh": (
            "∂L/∂b 只取了一个位置：偏置加在每个位置上，所以它的梯度要把 ∂L/∂out 在整个批量和所有"
            "位置上求和"
        ),
    },
    "weight batch mean": {  # en-only: a key
        "en": "∂L/∂W was averaged over the batch (divided by N): it is a sum",
        "zh": "∂L/∂W 在批量上取了平均（除以了 N）：它应是求和",
    },
    "bias along the columns summed": {  # en-only: a key
        "en": (
            "∂L/∂b was summed over the batch only: that leaves (O, oh, ow), which went onto the "
            "bias's (O,) along its last axis; the bias's gradient sums ∂L/∂out over the batch "
            "and every position (axes 0, 2 and 3)"
        ),
        "zh": (
            "∂L/∂b 只在批量上求了和：这样剩下 (O, oh, ow)，又沿最后一个轴归约到了偏置的 (O,)；偏"
            "置的梯度要把 ∂L/∂out 在整个批量和所有位置上求和（轴 0、2 和 3）"
        ),
    },
    "groups interleaved channels": {  # en-only: a key
        "en": (
            "the groups read interleaved rows of the columns: group g's rows are a block, the "
            "channels g·C/G … (g + 1)·C/G − 1 with all their taps (cols as (N, G, C/G·kh·kw, L))"
        ),
        "zh": (
            "各组读取了 cols 中交错的行：第 g 组的行是连续的一块，即通道 g·C/G … (g + 1)·C/G − 1 "
            "及其全部抽头（把 cols 看作 (N, G, C/G·kh·kw, L)）"
        ),
    },
    "bias batch mean": {  # en-only: a key
        "en": "∂L/∂b was divided by the batch size: it is a sum, not a mean",
        "zh": "∂L/∂b 除以了批量大小：它是求和，不是平均",
    },
    "groups interleaved": {
        "en": (
            "the kernels were split into groups in the wrong order: kernels 0 … O/G − 1 are "
            "group 0's, the next O/G group 1's (weight as (G, O/G, …), not (O/G, G, …))"
        ),
        "zh": (
            "卷积核分组的顺序错了：卷积核 0 … O/G − 1 属于第 0 组，接下来的 O/G 个属于第 1 组"
            "（weight 应看作 (G, O/G, …)，而不是 (O/G, G, …)）"
        ),
    },
    "dilation ignored": {
        "en": "the dilation was ignored: the kernel's taps are dilation pixels apart",
        "zh": "忽略了膨胀：卷积核的抽头彼此相隔 dilation 个像素",
    },
    "x reshaped kernels": {
        "en": (
            "∂L/∂x went back through the kernels reshaped to (C·kh·kw, O), not transposed: a "
            "reshape keeps the memory's order and mixes the kernels' entries"
        ),
        "zh": (
            "∂L/∂x 反向经过的卷积核被 reshape 成了 (C·kh·kw, O)，而不是转置：reshape 保持内存中的"
            "顺序，会把各卷积核的元素打乱"
        ),
    },
    "bias along the columns": {  # en-only: a key
        "en": (
            "the bias was laid along the last axis (the columns): it is one number per output "
            "channel, as (1, O, 1, 1)"
        ),
        "zh": "偏置沿最后一个轴（列）摆放了：它是每个输出通道一个数，形状为 (1, O, 1, 1)",
    },
    "bias forgotten": {
        "en": "the bias was not added (it is added at every position, as (1, O, 1, 1))",
        "zh": "没有加上偏置（它要加在每个位置上，形状为 (1, O, 1, 1)）",
    },
}


def conv_case(
    rng: np.random.Generator,
    n: int,
    c: int,
    size: Pair,
    out_channels: int,
    kernel_size: Pair,
    *,
    stride: Pair = (1, 1),
    padding: Pair = (0, 0),
    dilation: Pair = (1, 1),
    groups: int = 1,
    bias: bool = True,
    needs: tuple[bool, bool, bool] = (True, True, True),
    second: bool = False,
    count: bool = False,
    dtype: str = "float64",
) -> Case:
    """F.conv2d(x, weight, bias, stride, padding, dilation, groups) on drawn values: the
    output (``conv_ref``) and the gradients of the inputs that ``needs`` (x, weight, bias)
    for a drawn upstream g (the complex step of ``conv_ref``); with ``second`` the
    second derivatives ∂⟨∂L/∂x, v⟩/∂W and ∂⟨∂L/∂W, V⟩/∂x (as the convolution is linear in
    each, the vjps of conv(v, ·) and conv(·, V) for g); with ``count``, the program counts
    the folds the backward makes (none when x needs no gradient)."""
    x = values(rng, (n, c, *size))
    w = values(rng, (out_channels, c // groups, *kernel_size))
    b = values(rng, (out_channels,)) if bias else None
    args = (stride, padding, dilation, groups)
    out = conv_ref(x, w, b, *args)
    g = values(rng, out.shape)
    arrays = [x, w] + ([b] if bias else [])
    wanted = [k for k in range(len(arrays)) if needs[k]]
    names = ["x.grad", "weight.grad", "bias.grad"]
    grads = vjp(lambda *a: conv_ref(a[0], a[1], a[2] if bias else None, *args), arrays, g)
    v = values(rng, x.shape) if second else None
    V = values(rng, w.shape) if second else None
    x_w = vjp(lambda a: conv_ref(v, a, None, *args), [w], g)[0] if second else None
    w_x = vjp(lambda a: conv_ref(a, V, None, *args), [x], g)[0] if second else None
    expected = ConvExpected(
        dtype,
        out,
        [grads[k] for k in wanted],
        [names[k] for k in wanted],
        conv_wrong(x, w, b, g, *args),
        x_w,
        w_x,
    )
    words = [
        tr(f"x of shape {x.shape}", f"x 的形状为 {x.shape}"),
        tr(f"weight of shape {w.shape}", f"weight 的形状为 {w.shape}"),
    ]
    words.append(tr("bias", "有偏置") if bias else tr("no bias", "无偏置"))
    for name, value, plain in (
        ("stride", stride, (1, 1)),
        ("padding", padding, (0, 0)),
        ("dilation", dilation, (1, 1)),
    ):
        if value != plain:
            words.append(f"{name}={value}")
    if groups != 1:
        words.append(f"groups={groups}")
    if dtype != "float64":
        words.append(dtype)
    if needs != (True, True, True):
        which = [nm.split(".")[0] for nm, k in zip(names, needs) if k]
        joined = tr(" and ", " 和 ").join(which)
        words.append(tr(f"only {joined} requiring a gradient", f"只有 {joined} 需要梯度"))
    label = (
        tr("F.conv2d: ", "F.conv2d：")
        + tr(", ", "，").join(words)
        + (tr(", then second derivatives", "，再求二阶导数") if second else "")
    )
    inputs = {
        "x": x,
        "w": w,
        "b": b,
        "stride": list(stride),
        "padding": list(padding),
        "dilation": list(dilation),
        "groups": groups,
        "g": g,
        "needs": list(needs),
        "v": v,
        "V": V,
        "count": count,
        "dtype": dtype,
    }
    return Case(label, inputs, expected)


# -- 8.4 and 8.5: pooling ----------------------------------------------------------------------


def _pool_windows(
    x: np.ndarray, kernel_size: Pair, stride: Pair, padding: Pair, dilation: Pair, fill: float
) -> np.ndarray:
    """(N, C, kh·kw, oh, ow): each window's pixels in row-major order, padding ``fill``."""
    view = windows_ref(pad_ref(x, padding, fill), kernel_size, dilation, stride)
    n, c, kh, kw, oh, ow = view.shape
    return view.reshape(n, c, kh * kw, oh, ow)


def _scatter(
    g_slots: np.ndarray,
    shape: tuple,
    kernel_size: Pair,
    stride: Pair,
    padding: Pair,
    dilation: Pair,
    assign: bool = False,
) -> np.ndarray:
    """Slots (N, C, kh·kw, oh, ow) sent back to their pixels of an input of ``shape``:
    added (``np.add.at``), or with ``assign`` written, window after window."""
    n, c, h, w = shape
    kh, kw = kernel_size
    oh, ow = g_slots.shape[-2:]
    cols = g_slots.reshape(n, c * kh * kw, oh * ow)
    if not assign:
        return fold_ref(cols, (h, w), kernel_size, dilation, padding, stride)
    rows, columns, _, _ = _places((h, w), kernel_size, dilation, padding, stride)
    ph, pw = padding
    out = np.zeros((n, c, h + 2 * ph, w + 2 * pw))
    slots = g_slots.reshape(n, c, kh, kw, oh, ow)
    for p in range(oh):  # window after window: a later window overwrites
        for q in range(ow):
            for i in range(kh):
                for j in range(kw):
                    keep = slots[:, :, i, j, p, q] != 0
                    at = out[:, :, rows[i, 0, p, 0], columns[0, j, 0, q]]
                    out[:, :, rows[i, 0, p, 0], columns[0, j, 0, q]] = np.where(
                        keep, slots[:, :, i, j, p, q], at
                    )
    return out[:, :, ph : ph + h, pw : pw + w]


def max_pool_ref(x, kernel_size, stride, padding, dilation, g, rule: str = "first"):
    """The window maxima (padding −∞) and the gradient for upstream g sent to each window's
    maximum: ``rule`` "first" (PyTorch's: the first in row-major order), "every" (every tied
    maximum: a mistake), "last", "shared" (g divided among the ties), "assigned" (the
    first, written where windows overlap instead of added), "zero padding" (padding 0)."""
    fill = 0.0 if rule == "zero padding" else -np.inf
    if rule == "ones":  # the winner receives 1, not ∂L/∂out
        return max_pool_ref(x, kernel_size, stride, padding, dilation, np.ones_like(g))
    flat = _pool_windows(x, kernel_size, stride, padding, dilation, fill)
    top = flat.max(axis=2)
    slots = np.zeros(flat.shape)
    kk = flat.shape[2]
    if rule in ("every", "shared"):
        ties = flat == top[:, :, None]
        with np.errstate(invalid="ignore"):  # a NaN window has no ties: 0 / 0, NaN shares
            share = ties / ties.sum(axis=2, keepdims=True) if rule == "shared" else ties
        slots = share * g[:, :, None]
    else:
        arg = kk - 1 - flat[:, :, ::-1].argmax(axis=2) if rule == "last" else flat.argmax(axis=2)
        np.put_along_axis(slots, arg[:, :, None], g[:, :, None], axis=2)
    grad = _scatter(
        slots, x.shape, kernel_size, stride, padding, dilation, assign=rule == "assigned"
    )
    return top, grad


def avg_divisor(
    shape: tuple,
    kernel_size: Pair,
    stride: Pair,
    padding: Pair,
    count_include_pad: bool,
    divisor_override: int | None,
) -> np.ndarray:
    """Each window's divisor (oh, ow): the one given, kh·kw, or the pixels inside the
    image (counted on a padded image of ones)."""
    h, w = shape[-2:]
    kh, kw = kernel_size
    oh = count_windows(h, kh, stride[0], padding[0], 1)
    ow = count_windows(w, kw, stride[1], padding[1], 1)
    if divisor_override is not None:
        return np.full((oh, ow), float(divisor_override))
    if count_include_pad:
        return np.full((oh, ow), float(kh * kw))
    inside = _pool_windows(np.ones((1, 1, h, w)), kernel_size, stride, padding, (1, 1), 0.0)
    return inside.sum(axis=2)[0, 0]


def avg_pool_ref(x, kernel_size, stride, padding, divisor: np.ndarray) -> np.ndarray:
    """Each window's sum (padding 0) over its divisor."""
    flat = _pool_windows(x, kernel_size, stride, padding, (1, 1), 0.0)
    return flat.sum(axis=2) / divisor


@dataclass(frozen=True)
class PoolExpected:
    dtype: str
    out: np.ndarray
    grad: np.ndarray
    wrong: dict  # name → (field, its wrong value)
    grad_grad: np.ndarray | None = None


POOL_WORDS = {
    "every": {
        "en": (
            "every tied maximum received the gradient: in a tie exactly one pixel wins, the "
            "first in the window's row-major order (as PyTorch)"
        ),
        "zh": (
            "每个并列的最大值都得到了梯度：并列时恰好只有一个像素胜出，即按窗口的行优先顺序的第一"
            "个（与 PyTorch 相同）"
        ),
    },
    "shared": {
        "en": (
            "the gradient was shared among the tied maxima: in a tie exactly one pixel wins, "
            "the first in the window's row-major order (as PyTorch), and it receives all of it"
        ),
        "zh": (
            "梯度被并列的最大值分摊了：并列时恰好只有一个像素胜出，即按窗口的行优先顺序的第一个（"
            "与 PyTorch 相同），由它得到全部梯度"
        ),
    },
    "last": {
        "en": (
            "in a tie the last maximum received the gradient: the first in the window's "
            "row-major order wins (as PyTorch)"
        ),
        "zh": (
            "并列时梯度给了最后一个最大值：胜出的应是按窗口的行优先顺序的第一个（与 PyTorch 相同）"
        ),
    },
    "assigned": {
        "en": (
            "a pixel that won in several overlapping windows received one gradient, not the "
            "sum: the gradients must add (a fold), not be written"
        ),
        "zh": (
            "在几个重叠窗口中都胜出的像素只得到了一份梯度，而不是它们的和：这些梯度要相加（即 "
            "fold），而不是直接写入"
        ),
    },
    "nan": {
        "en": (
            "a window holding a NaN passed no gradient on: its maximum is NaN, and the NaN is "
            "the pixel that wins (flat != flat marks it, as PyTorch sends it the gradient)"
        ),
        "zh": (
            "含 NaN 的窗口没有把梯度传下去：它的最大值是 NaN，胜出的像素就是那个 NaN（可用 flat "
            "!= flat 标出它；PyTorch 也把梯度传给它）"
        ),
    },
    "ones": {
        "en": (
            "each winner received 1, not ∂L/∂out: the one-hot marks the winner, and ∂L/∂out "
            "is what it passes on"
        ),
        "zh": (
            "每个胜出的像素得到的是 1，而不是 ∂L/∂out：独热向量只标出胜出者，传下去的应是 ∂L/∂out"
        ),
    },
    "times divisor": {
        "en": (
            "the backward multiplied by the divisor: each pixel of a window receives ∂L/∂out "
            "divided by it"
        ),
        "zh": "反向函数乘上了除数：窗口中每个像素得到的应是 ∂L/∂out 除以除数",
    },
    "shares transposed": {
        "en": (
            "the shares were laid out (L, kh·kw) before the fold: fold reads its columns as "
            "(C·kh·kw, L), one row per kernel slot"
        ),
        "zh": (
            "在 fold 之前，各份梯度被排成了 (L, kh·kw)：fold 把它的列读作 (C·kh·kw, L)，卷积核的"
            "每个位置占一行"
        ),
    },
    "zero padding": {
        "en": "the padding won a window: padding is −∞ for a maximum, so it never wins",
        "zh": "填充在某个窗口中胜出了：求最大值时填充是 −∞，所以它永远不会胜出",
    },
    "no divisor": {
        "en": (
            "the backward forgot the divisor: each pixel of a window receives ∂L/∂out divided "
            "by the window's divisor"
        ),
        "zh": "反向函数忘了除数：窗口中每个像素得到的应是 ∂L/∂out 除以该窗口的除数",
    },
    "kernel divisor": {
        "en": (
            "the backward divided by kh·kw, not by each window's own divisor "
            "(count_include_pad=False counts only the pixels inside the image; "
            "divisor_override replaces it)"
        ),
        "zh": (
            "反向函数除以的是 kh·kw，而不是每个窗口自己的除数（count_include_pad=False 只计图像内"
            "部的像素；divisor_override 会替换除数）"
        ),
    },
    "forward no divisor": {  # en-only: a key
        "en": "each window's sum was not divided: the mean is the sum over the window's divisor",
        "zh": "每个窗口的和没有做除法：平均值是窗口的和除以该窗口的除数",
    },
    "forward kernel divisor": {  # en-only: a key
        "en": (
            "each window's sum was divided by kh·kw, not by its own divisor "
            "(count_include_pad=False counts only the pixels inside the image; "
            "divisor_override replaces it)"
        ),
        "zh": (
            "每个窗口的和除以的是 kh·kw，而不是它自己的除数（count_include_pad=False 只计图像内部"
            "的像素；divisor_override 会替换除数）"
        ),
    },
    "avg assigned": {
        "en": (
            "a pixel in several overlapping windows received one window's share, not the sum "
            "of all: the shares must add (a fold), not be written"
        ),
        "zh": (
            "处在几个重叠窗口中的像素只得到了一个窗口的那一份，而不是所有份额之和：这些份额要相加"
            "（即 fold），而不是直接写入"
        ),
    },
}


def _pool_words(kind: str, kernel_size, stride, padding, dilation, extra: str) -> str:
    words = [f"kernel_size={kernel_size}", f"stride={stride}"]
    if padding != (0, 0):
        words.append(f"padding={padding}")
    if dilation != (1, 1):
        words.append(f"dilation={dilation}")
    return f"F.{kind}(x, {', '.join(words)}{extra})"


def max_pool_case(
    rng: np.random.Generator,
    shape: tuple,
    kernel_size: Pair,
    stride: Pair | None = None,
    padding: Pair = (0, 0),
    dilation: Pair = (1, 1),
    *,
    ties: str = "",
    negative: bool = False,
    nan: bool = False,
    second: bool = False,
    dtype: str = "float64",
) -> Case:
    """F.max_pool2d on drawn x (``ties``: "some" draws from few values, so windows tie;
    "all" is all ones; ``negative`` makes every value negative, so padding 0 would win;
    ``nan`` puts one NaN in each channel, pixel (1, 1): every window that sees it has NaN for
    its maximum, and the NaN receives the gradient, as in PyTorch — at most one NaN per
    window, where PyTorch's CPU kernel would pick the last of several)."""
    stride = stride or kernel_size
    if ties == "all":
        x = np.ones(shape)
    elif ties == "some":
        x = rng.integers(0, 3, shape).astype(np.float64)
    else:
        x = values(rng, shape)
    if negative:
        x = -np.abs(x) - 0.5
    if nan:
        x[:, :, 1, 1] = np.nan
    args = (kernel_size, stride, padding, dilation)
    top = _pool_windows(x, kernel_size, stride, padding, dilation, -np.inf).max(axis=2)
    g = values(rng, top.shape)
    g = np.where(g == 0, 0.5, g)
    out, grad = max_pool_ref(x, *args, g)
    wrong = {}
    for rule in ("every", "shared", "last", "assigned", "ones", "zero padding"):
        bad_out, bad_grad = max_pool_ref(x, *args, g, rule)
        if rule == "zero padding":
            wrong[rule] = ("out", bad_out if padding != (0, 0) else None)
        else:
            wrong[rule] = ("grad", bad_grad)
    if nan:  # the NaN never counted as its window's maximum: those windows pass on nothing
        wrong["nan"] = ("grad", max_pool_ref(x, *args, np.where(np.isnan(top), 0.0, g))[1])
    w = values(rng, shape) if second else None
    grad_grad = (
        vjp(lambda u: _scatter(_slots_first(x, args, u), shape, *args), [g], w)[0]
        if second
        else None
    )
    extra = {
        "some": tr(", ties", "，有并列"),
        "all": tr(", x all ones (every window a tie)", "，x 全为 1（每个窗口都是并列）"),
    }.get(ties, "")
    extra += tr(", every value negative", "，所有值均为负") if negative else ""
    extra += tr(", a NaN at pixel (1, 1)", "，像素 (1, 1) 处为 NaN") if nan else ""
    extra += tr(f", {dtype}", f"，{dtype}") if dtype != "float64" else ""
    label = tr(
        f"{_pool_words('max_pool2d', *args, '')} on x of shape {shape}{extra}",
        f"{_pool_words('max_pool2d', *args, '')}，x 的形状为 {shape}{extra}",
    ) + (tr(", then the gradient's gradient", "，再求梯度的梯度") if second else "")
    inputs = {
        "kind": "max",
        "x": x,
        "kernel_size": list(kernel_size),
        "stride": list(stride),
        "padding": list(padding),
        "dilation": list(dilation),
        "g": g,
        "w": w,
        "dtype": dtype,
    }
    expected = PoolExpected(
        dtype, out, grad, {k: v for k, v in wrong.items() if v[1] is not None}, grad_grad
    )
    return Case(label, inputs, expected)


def _slots_first(x, args, g):
    """g in each window's first-maximum slot (complex-safe: g's dtype kept)."""
    kernel_size, stride, padding, dilation = args
    flat = _pool_windows(x, kernel_size, stride, padding, dilation, -np.inf)
    arg = flat.argmax(axis=2)
    slots = np.zeros(flat.shape, dtype=np.result_type(g.dtype, np.float64))
    np.put_along_axis(slots, arg[:, :, None], g[:, :, None], axis=2)
    return slots


def avg_pool_case(
    rng: np.random.Generator,
    shape: tuple,
    kernel_size: Pair,
    stride: Pair | None = None,
    padding: Pair = (0, 0),
    *,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
    second: bool = False,
    dtype: str = "float64",
) -> Case:
    """F.avg_pool2d on drawn x: the output and (the complex step) its gradient."""
    stride = stride or kernel_size
    x = values(rng, shape)
    divisor = avg_divisor(shape, kernel_size, stride, padding, count_include_pad, divisor_override)
    args = (kernel_size, stride, padding)
    out = avg_pool_ref(x, *args, divisor)
    g = values(rng, out.shape)
    grad = vjp(lambda a: avg_pool_ref(a, *args, divisor), [x], g)[0]
    kk = float(kernel_size[0] * kernel_size[1])
    plain = np.full(divisor.shape, kk)
    ones = np.ones(divisor.shape)
    wrong = {
        "no divisor": ("grad", vjp(lambda a: avg_pool_ref(a, *args, ones), [x], g)[0]),
        "kernel divisor": (
            "grad",
            None
            if np.array_equal(divisor, plain)
            else vjp(lambda a: avg_pool_ref(a, *args, plain), [x], g)[0],
        ),
        "forward no divisor": ("out", avg_pool_ref(x, *args, ones)),  # en-only: a key
        "forward kernel divisor": (  # en-only: a key
            "out",
            None if np.array_equal(divisor, plain) else avg_pool_ref(x, *args, plain),
        ),
    }
    slots = np.broadcast_to(
        (g / divisor)[:, :, None], (*g.shape[:2], kernel_size[0] * kernel_size[1], *g.shape[2:])
    )
    wrong["times divisor"] = ("grad", vjp(lambda a: avg_pool_ref(a, *args, 1 / divisor), [x], g)[0])
    n, c = shape[:2]
    kk_int = kernel_size[0] * kernel_size[1]
    laid = np.broadcast_to(
        (g / divisor).reshape(n, c, -1)[:, :, :, None], (n, c, g[0, 0].size, kk_int)
    )
    wrong["shares transposed"] = (
        "grad",
        fold_ref(
            np.array(laid).reshape(n, c * kk_int, -1),
            shape[-2:],
            kernel_size,
            (1, 1),
            padding,
            stride,
        ),
    )
    wrong["avg assigned"] = (
        "grad",
        _scatter(np.array(slots), shape, kernel_size, stride, padding, (1, 1), assign=True),
    )
    w = values(rng, shape) if second else None
    grad_grad = None
    if second:

        def backward(u):
            share = np.broadcast_to(
                (u / divisor)[:, :, None], (*u.shape[:2], int(kk), *u.shape[2:])
            )
            n, c = shape[:2]
            cols = np.array(share).reshape(n, c * int(kk), -1)
            return fold_ref(cols, shape[-2:], kernel_size, (1, 1), padding, stride)

        grad_grad = vjp(backward, [g], w)[0]
    extra = ""
    if not count_include_pad:
        extra += ", count_include_pad=False"
    if divisor_override is not None:
        extra += f", divisor_override={divisor_override}"
    words = _pool_words("avg_pool2d", kernel_size, stride, padding, (1, 1), extra)
    label = (
        tr(f"{words} on x of shape {shape}", f"{words}，x 的形状为 {shape}")
        + (tr(f", {dtype}", f"，{dtype}") if dtype != "float64" else "")
        + (tr(", then the gradient's gradient", "，再求梯度的梯度") if second else "")
    )
    inputs = {
        "kind": "avg",
        "x": x,
        "kernel_size": list(kernel_size),
        "stride": list(stride),
        "padding": list(padding),
        "count_include_pad": count_include_pad,
        "divisor_override": divisor_override,
        "g": g,
        "w": w,
        "dtype": dtype,
    }
    expected = PoolExpected(
        dtype, out, grad, {k: v for k, v in wrong.items() if v[1] is not None}, grad_grad
    )
    return Case(label, inputs, expected)

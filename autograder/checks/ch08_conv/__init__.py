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
from ...harness.table import Field, Fields, Mistake, Rows, first, record, row, rules, where
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
            return f" ({OUTPUT_SIZE_WORDS[name]})"
    return ""


def output_size_verdict(case: Case, got: Any) -> str | None:
    """Each answer against the count of windows; where none fits, 0 or less."""
    problem = record(got, ["sizes"])
    if problem:
        return problem
    answers, rows = got["sizes"], case.inputs["rows"]
    if len(answers) != len(rows):
        return f"expected {len(rows)} answers, received {len(answers)}"
    for answer, r, want in zip(answers, rows, case.expected):
        call = "output_size({}, {}, {}, {}, {})".format(*r)
        if isinstance(answer, str):
            return (
                f"{call} returned {answer}, expected the int {want}: a number of windows is an "
                "int (a floor division, not a true one)"
            )
        if want == 0 and answer <= 0:  # no window fits: PyTorch's formula gives 0 or less
            continue
        if answer != want:
            none = " (no window fits: 0 or less)" if want == 0 else ""
            return f"{call} returned {answer}, expected {want}{none}" + _slip(case, answers)
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
        words = " (the positions (oh, ow) came before the kernel's taps (kh, kw))"
    elif sorted(shape) == sorted(want):
        words = " (the right sizes in another order: (N, C, kh, kw, oh, ow))"
    return f"windows returned shape {shape}, expected (N, C, kh, kw, oh, ow) = {want}{words}"


def _windows_dtype(case: Case, got: Any) -> str | None:
    want = case.inputs.get("dtype", "float64")
    if got.get("dtype", want) != want:
        return f"the windows are {got['dtype']}, not {want} (x's dtype): a view keeps x's dtype"
    return None


def _window(a: np.ndarray) -> str:
    return np.array2string(np.asarray(a), precision=4, separator=", ").replace("\n", "")


def _windows_values(case: Case, got: Any) -> str | None:
    """The first window (p, q) whose taps differ, shown as kh × kw pixels, with the known
    slip that gives every window the student's code gave."""
    want, values = case.expected.values, got["values"]
    if not isinstance(values, np.ndarray):
        return f"windows returned {show(values)}, not an array"
    rtol, atol = _tolerance(case)
    with np.errstate(invalid="ignore"):
        bad = ~np.isclose(values.astype(np.float64), want, rtol=rtol, atol=atol)
    if not bad.any():
        return None
    n, c, _, _, p, q = np.argwhere(bad)[0]
    words = next(
        (
            f" ({WINDOWS_WORDS[name]})"
            for name, wrong in case.expected.wrong.items()
            if wrong is not None and compare(values, wrong, rtol=rtol, atol=atol) is None
        ),
        "",
    ) or _strides_words(case, got)
    return (
        f"window (p, q) = ({p}, {q}) of image {n}, channel {c}: expected the pixels "
        f"{_window(want[n, c, :, :, p, q])}, received {_window(values[n, c, :, :, p, q])}" + words
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
            return f" ({WINDOWS_WORDS[name]})"
    return ""


COPY = (
    "windows returned a copy: after new values were written into x, the windows still showed "
    "the old ones (a view over x's memory shows whatever x holds now, at no cost)"
)


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
                "the windows after new values were written into x",
                expected=lambda case: case.expected.after,
                tolerance=_tolerance,
            )
        ]
    ),
)


# -- 8.2 col2im, the backwards, the adjoint --------------------------------------------------

ASSIGNED = (
    "a pixel that several windows saw kept one entry, not the sum of all: overlapping "
    "windows add (+=), an assignment keeps only the last"
)
PADDED = "the padding was not cut off: fold returns the (H, W) image, without the padding"
UNDILATED = (
    "the dilation was ignored: kernel offset (i, j) starts at (i·dh, j·dw), the taps dilation "
    "pixels apart"
)
KKC = (
    "the rows of cols were read as (kh, kw, C): unfold orders them (C, kh, kw), the channel "
    "first, then the kernel's row and column"
)
EMPTY = (
    "an empty image: the padding was cut off with negative ends, and with padding 0 a slice "
    "that ends at −0 is empty"
)
STRIDED = (
    "the kernel offsets were stepped by the stride too: offset (i, j) starts at (i·dh, j·dw), "
    "and only the windows step by the stride"
)

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
                f"the backward failed: {got['backward_error']}"
                + (words(case, got["backward_error"]) if words else "")
            ),
        )
    )


SECOND = first(  # the gradient's gradient exists only when the backward was recorded
    rules(
        (
            lambda case, got: got.get("second_error"),
            lambda case, got: (
                f"the gradient's gradient failed: {got['second_error']}"
                + second_words(got["second_error"])
            ),
        ),
    ),
    Fields([Field("grad_grad", "the gradient's gradient, ∂⟨∂L/∂x, w⟩/∂g", rtol=1e-9, atol=1e-10)]),
)


def _fold_name(case: Case) -> str:
    return "F.unfold(x)" if case.inputs["op"] == "unfold" else "F.fold(cols)"


def _grad_name(case: Case) -> str:
    if case.inputs["op"] == "unfold":
        return "x.grad (Im2Col's backward: fold of ∂L/∂cols)"
    return "cols.grad (Col2Im's backward: unfold of ∂L/∂x)"


def _fold_failed(case: Case, message: str) -> str:
    """Words for a failing backward of unfold or fold: what that backward computes, and
    where its result has another shape, that it used other windows than the forward's."""
    if "returned a gradient of shape" in message:
        named = [
            f"{name} {tuple(case.inputs[name])}"
            for name, plain in (("dilation", [1, 1]), ("padding", [0, 0]), ("stride", [1, 1]))
            if case.inputs[name] != plain
        ]
        had = f" (this one had {' and '.join(named)})" if named else ""
        return (
            " — the backward's result has other windows than the forward's: it is computed "
            f"with the forward's own kernel_size, dilation, padding and stride{had}"
        )
    if case.inputs["op"] == "unfold":
        return (
            " — Im2Col's backward turns ∂L/∂cols (N, C·kh·kw, L) back into an image of x's "
            "shape (N, C, H, W): fold, each entry sent back to the pixel it came from"
        )
    return (
        " — Col2Im's backward turns ∂L/∂image (N, C, H, W) into columns (N, C·kh·kw, L): "
        "unfold, each pixel copied into every window that saw it"
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
        problem += (
            f" (⟨F.unfold(x), y⟩ = {e.inner:.6g} but ⟨x, F.fold(y)⟩ = {right:.6g}: fold is not "
            "unfold's adjoint, which sends every entry back to the pixel it came from, adding)"
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
        return (
            " — with bias=None the convolution has two Tensor inputs, so its backward returns "
            "two gradients (∂L/∂x, ∂L/∂W)"
        )
    b, x = case.inputs["b"], case.inputs["x"]
    if "not have been used" in message:
        return (
            " — an input that requires a gradient got None back: ctx.needs_input_grad[0] is "
            "x's, [1] the weight's, [2] the bias's"
        )
    if f"for an input of shape {tuple(x.shape)}" in message:
        groups = case.inputs["groups"]
        return " — ∂L/∂x has x's shape (N, C, H, W)" + (
            f": with groups={groups}, each group's kernels send their gradient back to their "
            "own C/G channels, and the groups together cover all C"
            if groups > 1
            else ""
        )
    if b is not None and f"for an input of shape ({len(b)},)" in message:
        return (
            " — ∂L/∂b has the bias's shape (O,): the bias is added at every position of every "
            "image, so its gradient sums ∂L/∂out over the batch and every position"
        )
    return ""


def _out_dtype(case: Case, got: Any) -> str | None:
    want = case.expected.dtype
    if got.get("dtype") != want:
        return f"the output is {got.get('dtype')}, not {want} (the input's dtype)"
    return None


def _folds(case: Case, got: Any) -> Any:
    return case.inputs["count"] and not case.inputs["needs"][0] and got.get("folds", 0) > 0


def _columns(case: Case, got: Any) -> Any:
    return case.inputs["count"] and not case.inputs["needs"][1] and got.get("columns", 0) > 0


conv_verdict = first(
    Fields(
        [Field("out", "F.conv2d(x, weight, bias) (forward)", tolerance=_tolerance)],
        [
            Mistake("out", _wrong(name, "out"), CONV_WORDS[name])
            for name in (
                "groups interleaved",
                "groups interleaved channels",
                "dilation ignored",
                "bias along the columns",
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
            _grad_mistake("weight not summed over the batch", "weight"),
            _grad_mistake("weight batch mean", "weight"),
            _grad_mistake("bias along the columns summed", "bias"),
            _grad_mistake("bias mean", "bias"),
            _grad_mistake("bias one position", "bias"),
            _grad_mistake("bias batch mean", "bias"),
        ],
    ),
    rules(
        (
            _folds,
            "the backward folded a gradient into ∂L/∂x ({got[folds]} col2im call(s)) though x "
            "requires no gradient: ctx.needs_input_grad[0] is False, so ∂L/∂x is not computed",
        ),
        (
            _columns,
            "the backward read the columns for ∂L/∂W ({got[columns]} _columns call(s)) though "
            "the weight requires no gradient: ctx.needs_input_grad[1] is False, so ∂L/∂W is "
            "not computed",
        ),
    ),
    where(
        lambda case: case.expected.x_w is not None,
        first(
            rules(
                (
                    lambda case, got: got.get("second_error"),
                    lambda case, got: (
                        f"a second derivative failed: {got['second_error']}"
                        + second_words(got["second_error"])
                    ),
                )
            ),
            Fields(
                [
                    Field("x_w", "∂⟨∂L/∂x, v⟩/∂W (a second derivative)", rtol=1e-8, atol=1e-9),
                    Field("w_x", "∂⟨∂L/∂W, V⟩/∂x (a second derivative)", rtol=1e-8, atol=1e-9),
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
        output_size_case(SWEEP_SMALL, "six small rows"),
        output_size_case(
            SWEEP, "sizes 1, 5, 8 × kernels 1, 3 × strides 1–3 × padding 0, 1 × dilation 1, 2"
        ),
        output_size_case(drawn, "six drawn rows"),
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
    ),
    Check(
        "8.2",
        "col2im: overlapping windows add",
        _col2im_rows(),
        programs.col2im,
        col2im_verdict,
        WINDOWS,
        since=SINCE,
    ),
    Check(
        "8.2",
        "the gradients of F.unfold and F.fold",
        _fold_grad_rows(),
        programs.fold_grads,
        fold_grads_verdict,
        WINDOWS,
        since=SINCE,
    ),
    Check(
        "8.2",
        "unfold and fold: the gradient's gradient",
        _fold_second_rows(),
        programs.fold_grads,
        fold_grads_verdict,
        WINDOWS,
        since=SINCE,
    ),
    Check(
        "8.2",
        "the adjoint: ⟨unfold(x), y⟩ = ⟨x, fold(y)⟩",
        _adjoint_rows(),
        programs.adjoint,
        adjoint_verdict,
        WINDOWS,
        since=SINCE,
    ),
    Check(
        "8.3",
        "conv2d: values and gradients",
        _conv_rows(),
        programs.conv,
        conv_verdict,
        FOLD,
        since=SINCE,
    ),
    Check(
        "8.3",
        "conv2d: only the gradients needed",
        _conv_needs_rows(),
        programs.conv,
        conv_verdict,
        FOLD,
        since=SINCE,
    ),
    Check(
        "8.3",
        "conv2d: second derivatives",
        _conv_second_rows(),
        programs.conv,
        conv_verdict,
        FOLD,
        since=SINCE,
    ),
    *pooling.CHECKS,
]

"""Public checks of chapter 8's pooling: ``MaxPool`` (task 8.4) and ``AvgPool`` (task 8.5),
through ``F.max_pool2d`` and ``F.avg_pool2d``. The program is ``pooling_program.py``; the
case builders and the references are ``cases.py``; the hidden rows reuse these entries.

Expected values are the parent's: each window's maximum and its first argmax in row-major
order (NumPy's ``argmax``, PyTorch's tie rule), the gradient sent there by ``np.add.at``;
each window's sum over its divisor and the complex step of it. The verdicts name the known
mistakes from their own formulas: every tied maximum given the gradient, the gradient
shared among ties, the last maximum winning, overlapping windows written instead of added,
padding that wins (0 where it is −∞); the divisor forgotten in avg-pool's backward, kh·kw
taken for every window's divisor, a share written instead of added.
"""

from __future__ import annotations

from typing import Any

from ...harness.api import Case, Check
from ...harness.table import Field, Fields, Mistake, Rows, first, row, rules, tr, where
from . import pooling_program
from .cases import POOL_WORDS, avg_pool_case, max_pool_case, second_words

SINCE = "1.2"
REQUIRES = ("8.1", "8.2")  # the windows view, and the fold both backwards end in
TOLERANCE = {"float64": (1e-9, 1e-10), "float32": (1e-5, 1e-5)}


def _tolerance(case: Case) -> tuple[float, float]:
    return TOLERANCE[case.expected.dtype]


def _wrong(name: str, field: str) -> Any:
    def wrong(case: Case) -> Any:
        found = case.expected.wrong.get(name)
        return found[1] if found and found[0] == field else None

    return wrong


def _dtypes(case: Case, got: Any) -> str | None:
    want = case.expected.dtype
    if got.get("dtype") != want:
        return tr(
            f"the output is {got.get('dtype')}, not {want} (the input's dtype)",
            f"输出的数据类型是 {got.get('dtype')}，而不是 {want}（输入的数据类型）",
        )
    return None


def _over_channels(case: Case, got: Any) -> Any:
    """max-pool's output of shape (N, kh·kw, oh, ow): the maximum taken along the channels."""
    out, want = got.get("out"), case.expected.out
    k = case.inputs["kernel_size"]
    n, c, oh, ow = want.shape
    return getattr(out, "shape", None) == (n, k[0] * k[1], oh, ow) and c != k[0] * k[1]


def _fold_words(case: Case, message: str) -> str:
    """Words for a fold given other windows than the forward's (its reshape fails)."""
    if "cannot reshape" not in message:
        return ""
    named = [
        f"{name} {tuple(case.inputs[name])}"
        for name, plain in (("dilation", [1, 1]), ("padding", [0, 0]))
        if case.inputs.get(name) not in (None, plain)
    ]
    joined = tr(" and ", "，").join(named)
    had = tr(f" (this forward had {joined})", f"（本次前向计算的参数：{joined}）") if named else ""
    return tr(
        " — the columns handed to fold do not fit the windows it was told about: the backward "
        f"folds with the forward's own size, kernel_size, dilation, padding and stride{had}",
        "——交给 fold 的列与告诉它的窗口对不上：反向函数要用前向计算自己的 size、kernel_size、"
        f"dilation、padding 和 stride 来做 fold{had}",
    )


def _verdict(kind: str, forward: list[str], backward: list[str]) -> Any:
    call = "F.max_pool2d(x, …)" if kind == "max" else "F.avg_pool2d(x, …)"
    return first(
        rules(
            (
                _over_channels,
                {
                    "en": (
                        "the output has shape {got[out].shape}, not {want.out.shape}: the maximum "
                        "was taken along the channels (axis 1), not over each window's kh·kw "
                        "pixels (axis 2 of the (N, C, kh·kw, oh, ow) windows)"
                    ),
                    "zh": (
                        "输出的形状是 {got[out].shape}，而不是 {want.out.shape}：最大值是沿通道（"
                        "轴 1）取的，而不是在每个窗口的 kh·kw 个像素上（即 (N, C, kh·kw, oh, ow) "
                        "窗口的轴 2）取的"
                    ),
                },
            )
        ),
        Fields(
            [
                Field(
                    "out",
                    {"en": f"{call} (forward)", "zh": f"{call}（前向）"},
                    tolerance=_tolerance,
                )
            ],
            [Mistake("out", _wrong(n, "out"), POOL_WORDS[n]) for n in forward],
            before=_dtypes,
        ),
        rules(
            (
                lambda case, got: got.get("backward_error"),
                lambda case, got: (
                    tr(
                        f"the backward failed: {got['backward_error']}",
                        f"反向传播失败：{got['backward_error']}",
                    )
                    + _fold_words(case, got["backward_error"])
                ),
            )
        ),
        Fields(
            [Field("grad", "x.grad", tolerance=_tolerance)],
            [Mistake("grad", _wrong(n, "grad"), POOL_WORDS[n]) for n in backward],
        ),
        where(
            lambda case: case.expected.grad_grad is not None,
            first(
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
                    )
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
            ),
        ),
    )


max_pool_verdict = _verdict(
    "max", ["zero padding"], ["nan", "every", "shared", "last", "assigned", "ones"]
)
avg_pool_verdict = _verdict(
    "avg",
    ["forward no divisor", "forward kernel divisor"],  # en-only: POOL_WORDS' keys
    ["no divisor", "kernel divisor", "times divisor", "shares transposed", "avg assigned"],
)


def _max_rows() -> Rows:
    return Rows(
        [
            row(max_pool_case, (1, 1, 4, 4), (2, 2)),
            row(max_pool_case, (1, 1, 2, 2), (2, 2), ties="all"),
            row(max_pool_case, (1, 1, 4, 4), (2, 2), ties="all"),
            row(max_pool_case, (2, 2, 5, 5), (3, 3), (1, 1)),
            row(max_pool_case, (1, 2, 6, 5), (2, 3), (2, 1), ties="some"),
            row(max_pool_case, (1, 1, 5, 5), (3, 3), (2, 2), (1, 1), negative=True),
            row(max_pool_case, (2, 1, 7, 6), (2, 2), (1, 2), (0, 1), (2, 2)),
            row(max_pool_case, (1, 2, 5, 5), (3, 3), (1, 1), (1, 1), ties="some"),
            row(max_pool_case, (1, 2, 6, 6), (2, 2), (2, 2), dtype="float32"),
            row(max_pool_case, (1, 1, 4, 4), (2, 2), nan=True),
        ]
    )


def _avg_rows() -> Rows:
    return Rows(
        [
            row(avg_pool_case, (1, 1, 4, 4), (2, 2)),
            row(avg_pool_case, (1, 1, 3, 3), (2, 2), (1, 1)),
            row(avg_pool_case, (2, 2, 5, 5), (3, 3), (2, 2), (1, 1)),
            row(avg_pool_case, (1, 2, 5, 5), (3, 3), (2, 2), (1, 1), count_include_pad=False),
            row(avg_pool_case, (1, 1, 6, 5), (2, 3), (2, 1), (1, 1), count_include_pad=False),
            row(avg_pool_case, (1, 2, 4, 4), (2, 2), divisor_override=3),
            row(avg_pool_case, (2, 1, 5, 6), (3, 2), (1, 2), (1, 1), divisor_override=5),
            row(avg_pool_case, (1, 2, 6, 6), (2, 2), (1, 1), dtype="float32"),
        ]
    )


def _second_rows(kind: str) -> Rows:
    if kind == "max":
        return Rows(
            [
                row(max_pool_case, (1, 1, 4, 4), (2, 2), ties="all", second=True),
                row(max_pool_case, (1, 2, 5, 5), (3, 3), (1, 1), (1, 1), second=True),
            ]
        )
    return Rows(
        [
            row(avg_pool_case, (1, 1, 4, 4), (2, 2), (1, 1), second=True),
            row(
                avg_pool_case,
                (1, 2, 5, 5),
                (3, 3),
                (2, 2),
                (1, 1),
                count_include_pad=False,
                second=True,
            ),
        ]
    )


CHECKS = [
    Check(
        "8.4",
        "max_pool2d: values and the gradient to the argmax",
        _max_rows(),
        pooling_program.pool,
        max_pool_verdict,
        REQUIRES,
        since=SINCE,
        title={"zh": "max_pool2d：值，以及传给 argmax 的梯度"},
    ),
    Check(
        "8.4",
        "max_pool2d: the gradient's gradient",
        _second_rows("max"),
        pooling_program.pool,
        max_pool_verdict,
        REQUIRES,
        since=SINCE,
        title={"zh": "max_pool2d：梯度的梯度"},
    ),
    Check(
        "8.5",
        "avg_pool2d: values and the shared gradient",
        _avg_rows(),
        pooling_program.pool,
        avg_pool_verdict,
        REQUIRES,
        since=SINCE,
        title={"zh": "avg_pool2d：值与分摊的梯度"},
    ),
    Check(
        "8.5",
        "avg_pool2d: the gradient's gradient",
        _second_rows("avg"),
        pooling_program.pool,
        avg_pool_verdict,
        REQUIRES,
        since=SINCE,
        title={"zh": "avg_pool2d：梯度的梯度"},
    ),
]

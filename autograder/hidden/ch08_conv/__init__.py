"""Hidden checks for chapter 8 — convolution (tasks 8.1–8.5).

Rows of chapter 8's public case builders (``checks/ch08_conv/cases``), run by the public
programs and judged by the public verdicts, on other cases than the public ones: other
sweeps of output_size (larger kernels and dilations, sizes where nothing fits); windows of
other shapes, an x whose columns are strided in memory, float32 with a dilation; col2im
with strides past the kernel and unequal paddings; the gradients of unfold and fold with
a batch; the convolution with every option at once, groups equal to the channels
(depthwise), a kernel as large as the padded input, float32; max-pooling with ties in
overlapping windows and all-negative inputs under padding; average pooling with every
divisor rule and overlapping windows. Labels name the kind of case, never the drawn
values.
"""

from __future__ import annotations

import numpy as np

from ...checks.ch08_conv import CHECKS as PUBLIC
from ...checks.ch08_conv.cases import (
    adjoint_case,
    avg_pool_case,
    col2im_case,
    conv_case,
    fold_grad_case,
    max_pool_case,
    output_size_case,
    windows_case,
)
from ...harness.api import Case
from ...harness.table import Hidden, Rows, hidden_checks, row, tr


def _sizes(rng: np.random.Generator) -> list[Case]:
    drawn = [
        (
            int(rng.integers(1, 20)),
            int(rng.integers(1, 6)),
            int(rng.integers(1, 5)),
            int(rng.integers(0, 4)),
            int(rng.integers(1, 4)),
        )
        for _ in range(12)
    ]
    wide = [
        (size, k, s, p, d)
        for size in (2, 3, 11)
        for k in (2, 5)
        for s in (1, 4)
        for p in (0, 2)
        for d in (1, 3)
    ]
    return [
        output_size_case(
            wide,
            tr(
                "sizes 2, 3, 11 × kernels 2, 5 × strides 1, 4 × padding 0, 2 × dilation 1, 3",
                "尺寸 2, 3, 11 × 卷积核 2, 5 × 步幅 1, 4 × 填充 0, 2 × 膨胀 1, 3",
            ),
        ),
        output_size_case(drawn, tr("twelve drawn rows", "十二行随机抽取的参数")),
    ]


WINDOWS = Rows(
    [
        row(windows_case, (1, 1, 3, 3), (3, 3)),
        row(windows_case, (2, 1, 8, 7), (3, 2), (2, 3), (2, 1)),
        row(windows_case, (1, 2, 6, 6), (2, 2), (1, 1), (2, 2), step=2),
        row(windows_case, (2, 1, 5, 6), (3, 2), (1, 2), (1, 1), transposed=True),
        row(windows_case, (1, 3, 9, 7), (2, 2), (3, 2), (1, 2), dtype="float32"),
    ]
)

COL2IM = Rows(
    [
        row(col2im_case, 1, 1, (7, 7), (2, 2), (1, 1), (0, 0), (3, 4), ones=True),
        row(col2im_case, 2, 2, (6, 7), (3, 3), (1, 2), (1, 2), (2, 1)),
        row(col2im_case, 1, 1, (5, 5), (1, 1), (1, 1), (1, 1), (1, 1)),
        row(col2im_case, 2, 1, (6, 4), (2, 3), (2, 1), (0, 1), (1, 1), dtype="float32"),
    ]
)

FOLD_GRADS = Rows(
    [
        row(fold_grad_case, "unfold", 2, 2, (6, 5), (3, 2), (1, 2), (1, 1), (2, 2)),
        row(fold_grad_case, "fold", 2, 2, (5, 6), (2, 2), (2, 1), (0, 1), (1, 2)),
        row(fold_grad_case, "unfold", 1, 1, (4, 4), (2, 2), second=True),
    ]
)

ADJOINT = Rows(
    [
        row(adjoint_case, 2, 2, (6, 5), (2, 3), (1, 1), (1, 2), (2, 1)),
        row(adjoint_case, 1, 3, (5, 5), (1, 1), (1, 1), (0, 0), (2, 2)),
    ]
)

CONV = Rows(
    [
        row(
            conv_case,
            2,
            4,
            (7, 6),
            4,
            (3, 2),
            stride=(2, 1),
            padding=(1, 1),
            dilation=(2, 2),
            groups=4,
        ),
        row(conv_case, 1, 6, (5, 5), 4, (2, 2), groups=2, bias=False),
        row(conv_case, 2, 1, (3, 3), 2, (5, 5), padding=(1, 1)),
        row(conv_case, 3, 2, (6, 4), 2, (1, 3), stride=(3, 1), padding=(0, 1)),
        row(conv_case, 1, 2, (6, 6), 4, (3, 3), stride=(2, 2), padding=(1, 1), dtype="float32"),
    ]
)

CONV_NEEDS = Rows(
    [
        row(
            conv_case,
            2,
            2,
            (5, 5),
            2,
            (3, 3),
            padding=(1, 1),
            needs=(True, False, False),
            count=True,
            bias=False,
        ),
        row(conv_case, 1, 4, (5, 4), 2, (2, 2), groups=2, needs=(False, False, True), count=True),
    ]
)

CONV_SECOND = Rows(
    [
        row(conv_case, 2, 2, (5, 6), 2, (2, 3), stride=(1, 2), dilation=(2, 1), second=True),
        row(conv_case, 1, 3, (4, 4), 3, (3, 3), padding=(1, 1), groups=3, second=True),
    ]
)

MAX = Rows(
    [
        row(max_pool_case, (2, 2, 6, 6), (3, 3), (1, 1), (1, 1), ties="some"),
        row(max_pool_case, (1, 2, 5, 6), (2, 2), (1, 1), (1, 1), negative=True),
        row(max_pool_case, (1, 1, 7, 7), (2, 3), (2, 1), (1, 1), (3, 2)),
        row(max_pool_case, (1, 1, 3, 5), (2, 2), (1, 2), ties="all"),
        row(max_pool_case, (1, 2, 5, 5), (3, 3), (1, 1), nan=True),
    ]
)

AVG = Rows(
    [
        row(avg_pool_case, (2, 1, 6, 6), (3, 3), (1, 1), (1, 1), count_include_pad=False),
        row(avg_pool_case, (1, 2, 5, 7), (2, 3), (1, 2), (1, 1), divisor_override=2),
        row(avg_pool_case, (1, 1, 7, 5), (3, 2), (2, 1), (1, 0)),
        row(avg_pool_case, (1, 2, 4, 4), (2, 2), (1, 1), dtype="float32"),
    ]
)

CHECKS = hidden_checks(
    PUBLIC,
    [
        Hidden(
            "output_size", _sizes, "output_size (held out)", title={"zh": "output_size（隐藏）"}
        ),
        Hidden(
            "windows: values, shape, a view of x",
            WINDOWS,
            "windows (held out)",
            title={"zh": "windows（隐藏）"},
        ),
        Hidden(
            "col2im: overlapping windows add",
            COL2IM,
            "col2im (held out)",
            title={"zh": "col2im（隐藏）"},
        ),
        Hidden(
            "the gradients of F.unfold and F.fold",
            FOLD_GRADS,
            "unfold and fold gradients (held out)",  # en-only: the hidden check's id
            title={"zh": "unfold 与 fold 的梯度（隐藏）"},
        ),
        Hidden(
            "the adjoint: ⟨unfold(x), y⟩ = ⟨x, fold(y)⟩",
            ADJOINT,
            "the adjoint (held out)",
            title={"zh": "伴随（隐藏）"},
        ),
        Hidden(
            "conv2d: values and gradients",
            CONV,
            "conv2d (held out)",
            title={"zh": "conv2d（隐藏）"},
        ),
        Hidden(
            "conv2d: only the gradients needed",
            CONV_NEEDS,
            "conv2d, some gradients (held out)",
            title={"zh": "conv2d，部分梯度（隐藏）"},
        ),
        Hidden(
            "conv2d: second derivatives",
            CONV_SECOND,
            "conv2d second derivatives (held out)",
            title={"zh": "conv2d 二阶导数（隐藏）"},
        ),
        Hidden(
            "max_pool2d: values and the gradient to the argmax",
            MAX,
            "max_pool2d (held out)",
            title={"zh": "max_pool2d（隐藏）"},
        ),
        Hidden(
            "avg_pool2d: values and the shared gradient",
            AVG,
            "avg_pool2d (held out)",
            title={"zh": "avg_pool2d（隐藏）"},
        ),
    ],
)

"""Hidden checks for chapter 5 — modules, layers, losses, data, checkpointing.

Each check is a ``Hidden`` row of its public entry (by the public check's id, its name):
rows of chapter 5's public case builders (``cases``), run by the public program, judged by
the public verdict and with its ``requires``, on other cases than the public ones: other
registration scripts; other Linear sizes and seeds; drawn trees of modules (a shared module
and a tied weight among them; labels name the kind, never the drawn tree) for
named_modules, the members, train/eval, state_dict and load_state_dict; other container
sizes; other shapes, dims and drawn large logits for softmax; other reductions, ignore
indices and smoothing for cross_entropy, with a (N, C, d1, d2) layout; other fans, gains
and modes for init, with seeds drawn; other shapes and rates for dropout; other BatchNorm
sizes and momenta; other DataLoader sizes with drawn seeds; deeper and wider checkpointed
functions. The kinds the held-out set (``tests/variants/ch05_held_out.py``) added to the public
checks have rows here too: a script ending in a refusal after None, a module held twice
(Sequential and ModuleList), a Sequential of 13 modules, a float32 model loaded from
float64 values, float32 logits, a large negative slope a.
"""

from __future__ import annotations

import numpy as np

from ...checks.ch05_nn import CHECKS as PUBLIC
from ...checks.ch05_nn.cases import (
    batchnorm_case,
    checkpoint_case,
    container_case,
    cross_entropy_case,
    dropout_case,
    init_case,
    linear_forward_case,
    linear_init_case,
    load_case,
    loader_case,
    members_case,
    named_modules_case,
    random_tree,
    registration_case,
    softmax_case,
    state_dict_case,
    train_case,
)
from ...checks.ch05_nn.exercises import fit_case
from ...harness.table import Hidden, Rows, hidden_checks, row

DRAWN = {
    "en": "a drawn tree of {n} modules (a shared module and a tied weight among them)",
    "zh": "随机生成的 {n} 个模块组成的树（其中有一个共享的模块和一个绑定的权重）",
}
PLAIN = {"en": "a drawn tree of {n} modules", "zh": "随机生成的 {n} 个模块组成的树"}
EMPTY = {
    "en": ", some of them falsy (len() 0, as an empty container)",
    "zh": "，其中一些是假值（len() 为 0，就像空容器）",
}


def _seed(rng: np.random.Generator) -> int:
    return int(rng.integers(0, 2**31))


def _tree_rows(builder, sizes, share=True, empty=False, **options):
    tree = DRAWN if share else PLAIN
    label = {lang: tree[lang] + (EMPTY[lang] if empty else "") for lang in ("en", "zh")}
    return [
        lambda rng, n=n: builder(
            {lang: words.format(n=n) for lang, words in label.items()},
            lambda: random_tree(rng, n, share, empty),
            rng,
            **options,
        )
        for n in sizes
    ]


SCRIPTS = [
    [["module", "a"], ["param", "b"], ["module", "a"], ["tensor", "c"], ["none", "b"]],
    [["param", "x"], ["int", "x"]],
    [["tensor", "t"], ["module", "t"], ["none", "t"]],
    [["buffer", "r"], ["module", "r"], ["param", "q"], ["module", "q"]],
    [["param", "p"], ["param", "q"], ["none", "p"], ["tensor", "p"], ["param", "p"]],
    [["module", "m"], ["tensor", "m"], ["param", "m"]],
    [["param", "a"], ["none", "a"], ["int", "a"]],
    [["int", "k"], ["module", "k"], ["none", "k"]],
]


CHECKS = hidden_checks(
    PUBLIC,
    [
        Hidden(
            "Module.__setattr__: registration",
            lambda rng: [registration_case(s, rng) for s in SCRIPTS],
            "Module.__setattr__ (hidden)",
            title={"zh": "Module.__setattr__（隐藏）"},
        ),
        Hidden(
            "Linear: PyTorch's default initialisation",
            lambda rng: [
                linear_init_case(300, 90, seed=_seed(rng)),
                linear_init_case(12, 3000, seed=_seed(rng)),
            ],
            "Linear's initialisation (hidden)",
            title={"zh": "Linear 的初始化（隐藏）"},
        ),
        Hidden(
            "Linear: LinearFunction's forward and backward",
            Rows(
                [
                    row(linear_forward_case, (7, 4), 5),
                    row(linear_forward_case, (2, 2, 3, 6), 2),
                    row(linear_forward_case, (1, 1), 1, bias=False),
                    row(linear_forward_case, (3, 3), 3),
                    row(linear_forward_case, (2, 5, 4), 4, needs=(False, True, False)),
                    row(linear_forward_case, (5, 6), 3, needs=(True, False, False)),
                    row(linear_forward_case, (4, 2), 5, bias=False, needs=(True, False)),
                    row(linear_forward_case, (2, 3, 4), 2, second=True),
                    row(linear_forward_case, (5, 5), 5, second=True),
                ]
            ),
            "Linear's forward and backward (hidden)",  # en-only: its identity
            title={"zh": "Linear 的前向与反向传播（隐藏）"},
        ),
        Hidden(
            "named_modules",
            Rows(
                [
                    *_tree_rows(named_modules_case, (6, 11)),
                    *_tree_rows(named_modules_case, (9,), empty=True),
                ]
            ),
            "named_modules (hidden)",
            title={"zh": "named_modules（隐藏）"},
        ),
        Hidden(
            "named_parameters and named_buffers",
            Rows(_tree_rows(members_case, (5, 9, 13))),
            "named_parameters and named_buffers (hidden)",  # en-only: its identity
            title={"zh": "named_parameters 与 named_buffers（隐藏）"},
        ),
        Hidden(
            "train and eval",
            Rows(
                [
                    *_tree_rows(train_case, (7, 10), shown=False),
                    *_tree_rows(train_case, (8,), empty=True, shown=False),
                ]
            ),
            "train and eval (hidden)",  # en-only: its identity
            title={"zh": "train 与 eval（隐藏）"},
        ),
        Hidden(
            "Sequential and ModuleList",
            Rows(
                [
                    row(container_case, "sequential", 5),
                    row(container_case, "sequential", 1, appended=3),
                    row(container_case, "list", 12),
                    row(container_case, "list_append", 0, appended=5),
                    row(container_case, "sequential", 2, appended=2, picks=[1, 0, 1, 2]),
                    row(container_case, "list", 3, picks=[0, 0, 1]),
                    row(container_case, "sequential", 11, appended=2),
                ]
            ),
            "Sequential and ModuleList (hidden)",
            title={"zh": "Sequential 与 ModuleList（隐藏）"},
        ),
        Hidden(
            "state_dict",
            Rows(_tree_rows(state_dict_case, (6, 12))),
            "state_dict (hidden)",
            title={"zh": "state_dict（隐藏）"},
        ),
        Hidden(
            "load_state_dict",
            Rows(
                [
                    *_tree_rows(load_case, (8,), share=False),
                    *_tree_rows(load_case, (9,), share=False, drop=2, extra=2),
                    *_tree_rows(load_case, (7,), share=False, reshape=2),
                    *_tree_rows(load_case, (10,), share=False, drop=1, strict=False),
                    *_tree_rows(load_case, (6,), share=False, dtype="float32"),
                ]
            ),
            "load_state_dict (hidden)",
            title={"zh": "load_state_dict（隐藏）"},
        ),
        Hidden(
            "softmax and log_softmax",
            Rows(
                [
                    row(softmax_case, f, shape, dim, scale=scale)
                    for f in ("softmax", "log_softmax")
                    for shape, dim, scale in (
                        ((6, 7), 1, 3.0),
                        ((3, 4, 5), 0, 3.0),
                        ((4, 6), -1, 1e4),
                        ((2, 8), 0, 1e3),
                    )
                ]
            ),
            "softmax and log_softmax (hidden)",  # en-only: its identity
            title={"zh": "softmax 与 log_softmax（隐藏）"},
        ),
        Hidden(
            "cross_entropy",
            Rows(
                [
                    row(cross_entropy_case, n=9, c=6),
                    row(cross_entropy_case, n=8, c=3, ignore=3, ignore_index=0),
                    row(cross_entropy_case, n=7, c=5, ignore=5, reduction="none"),
                    row(cross_entropy_case, n=6, c=7, smoothing=0.05, reduction="sum"),
                    row(cross_entropy_case, n=10, c=4, ignore=4, smoothing=0.15),
                    row(cross_entropy_case, n=5, c=6, scale=1e4, ignore=1, smoothing=0.1),
                    row(cross_entropy_case, n=2, c=3, extra=(2, 3), ignore=2),
                    row(cross_entropy_case, n=7, c=4, ignore=2, reduction="none", dtype="float32"),
                ]
            ),
            "cross_entropy (hidden)",
            title={"zh": "cross_entropy（隐藏）"},
        ),
        Hidden(
            "xavier and kaiming",
            lambda rng: [
                init_case("xavier_normal_", (70, 210), _seed(rng), gain=2.0),
                init_case("xavier_uniform_", (240, 45), _seed(rng)),
                init_case("kaiming_normal_", (45, 240), _seed(rng), mode="fan_out", a=0.3),
                init_case("kaiming_uniform_", (220, 60), _seed(rng), nonlinearity="relu"),
                init_case("kaiming_normal_", (20, 30, 5), _seed(rng), nonlinearity="tanh"),
                init_case("kaiming_uniform_", (80, 120), _seed(rng), a=1.5, mode="fan_out"),
            ],
            "xavier and kaiming (hidden)",  # en-only: its identity
            title={"zh": "xavier 与 kaiming（隐藏）"},
        ),
        Hidden(
            "dropout",
            Rows(
                [
                    row(dropout_case, (120, 150), 0.1),
                    row(dropout_case, (30, 20, 30), 0.6),
                    row(dropout_case, (6, 7), 0.9, training=False),
                    row(dropout_case, (60, 60), 0.2, calls=2, generator=False),
                ]
            ),
            "dropout (hidden)",
            title={"zh": "dropout（隐藏）"},
        ),
        Hidden(
            "BatchNorm1d",
            Rows(
                [
                    row(batchnorm_case, 5, 7, batches=3),
                    row(batchnorm_case, 3, 3, length=5, momentum=0.3),
                    row(batchnorm_case, 4, 6, length=2, momentum=None, batches=4),
                    row(batchnorm_case, 2, 9, eps=1e-3),
                ]
            ),
            "BatchNorm1d (hidden)",
            title={"zh": "BatchNorm1d（隐藏）"},
        ),
        Hidden(
            "DataLoader",
            Rows(
                [
                    row(loader_case, 13, 5),
                    row(loader_case, 17, 4, drop_last=True),
                    row(loader_case, 20, 6, shuffle=True, epochs=3),
                    row(loader_case, 15, 4, shuffle=True, drop_last=True),
                    row(loader_case, 9, 9, shuffle=True, generator=False, epochs=2),
                    row(loader_case, 8, 3, shuffle=True, dataset="tensors"),
                ]
            ),
            "DataLoader (hidden)",
            title={"zh": "DataLoader（隐藏）"},
        ),
        Hidden(
            "checkpoint",
            Rows(
                [
                    row(checkpoint_case, "closure", n=6, width=3, depth=2),
                    row(checkpoint_case, "args", n=2, width=7, depth=4),
                    row(checkpoint_case, "noise", n=5, width=6, depth=2),
                ]
            ),
            "checkpoint (hidden)",
            title={"zh": "checkpoint（隐藏）"},
        ),
        Hidden(
            "fit_linear: gradient descent on the mean squared error",
            Rows(
                [
                    row(fit_case, 9, 4, 2, epochs=5, lr=0.15),
                    row(fit_case, 3, 1, 2, epochs=4, lr=0.3),
                    row(fit_case, 30, 3, 2, epochs=400, lr=0.2, converges=True),
                ]
            ),
            "fit_linear (hidden)",
            title={"zh": "fit_linear（隐藏）"},
        ),
    ],
)

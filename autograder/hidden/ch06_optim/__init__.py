"""Hidden checks for chapter 6 — optimizers, schedules, clipping.

Each a ``Hidden`` row of a public entry (by its id): that entry's program, verdict and
requires on other cases, built by the public builders (``checks/ch06_optim/cases``): other
param-group scripts; trajectories with drawn options (every option of each rule at once),
more steps, larger and 3-D parameters, three groups, float32 among them, drawn skipped
gradients and shared gradient objects; resumes of RMSprop-free rules with amsgrad,
Nesterov and a float32 run loaded into float64; other schedules, bases and lengths; other
one-cycle lengths, phases and per-group lists; other clipping sizes, norms and dtypes. Labels
name the kind of case, never the drawn values. The held-out training runs are
``training.py``'s (registered below).
"""

from __future__ import annotations

import itertools

import numpy as np

from ...checks.ch06_optim import CHECKS as PUBLIC
from ...checks.ch06_optim.cases import (
    adamw_decay_case,
    clip_case,
    groups_case,
    one_cycle_case,
    resume_case,
    schedule_case,
    trajectory_case,
    zero_grad_case,
)
from ...checks.ch06_optim.exercises import drawn_factor_case, drawn_lr_case, stats_case
from ...harness.table import Hidden, Rows, hidden_checks, row, tr
from . import training

SHAPES = [(5,), (3, 4), (2, 3, 2), (3, 4), (1,)]  # 1 and 3 alike: a gradient can be shared
MIXED = ["float64", "float32", "float64", "float32", "float64"]


def _lr(rng: np.random.Generator, low: float, high: float) -> float:
    return float(np.round(rng.uniform(low, high), 4))


def _options(name: str, rng: np.random.Generator) -> dict:
    """Every option of the rule, drawn."""
    if name == "SGD":
        nesterov = bool(rng.integers(2))
        return {
            "lr": _lr(rng, 0.01, 0.2),
            "momentum": _lr(rng, 0.5, 0.95),
            "dampening": 0.0 if nesterov else _lr(rng, 0.0, 0.5),
            "weight_decay": _lr(rng, 0.0, 0.2) if rng.integers(2) else 0.0,
            "nesterov": nesterov,
        }
    if name == "Adagrad":
        return {
            "lr": _lr(rng, 0.01, 0.3),
            "lr_decay": _lr(rng, 0.0, 0.2),
            "weight_decay": _lr(rng, 0.0, 0.2),
            "initial_accumulator_value": _lr(rng, 0.0, 0.5),
            "eps": 1e-3,
        }
    if name == "RMSprop":
        return {
            "lr": _lr(rng, 0.001, 0.05),
            "alpha": _lr(rng, 0.8, 0.99),
            "eps": 1e-3,
            "weight_decay": _lr(rng, 0.0, 0.2),
            "momentum": _lr(rng, 0.0, 0.9),
            "centered": bool(rng.integers(2)),
        }
    return {
        "lr": _lr(rng, 0.001, 0.05),
        "betas": [_lr(rng, 0.5, 0.95), _lr(rng, 0.8, 0.999)],
        "eps": 1e-3 if rng.integers(2) else 1e-8,
        "weight_decay": _lr(rng, 0.0, 0.3),
        "amsgrad": bool(rng.integers(2)),
    }


def _drawn(
    name: str,
    groups: int = 1,
    steps: int = 8,
    share: bool = False,
    closure: bool = False,
    frozen: tuple = (),
):
    """A trajectory of ``name`` with drawn options, each group its own; ``frozen``: parameters
    that never get a gradient."""

    def make(rng: np.random.Generator):
        n = len(SHAPES)
        cuts = sorted(rng.choice(np.arange(1, n), groups - 1, replace=False).tolist())
        bounds = [0, *cuts, n]
        spec = [
            (list(range(a, b)), _options(name, rng) if k else {})
            for k, (a, b) in enumerate(itertools.pairwise(bounds))
        ]
        label = (
            tr(
                f"{name} with drawn options, {groups} group(s) with their own, parameters of "
                f"shapes {SHAPES} (float32 among them), {steps} steps, some gradients None",
                f"{name}，选项随机抽取，{groups} 个参数组各有自己的选项，参数形状为 {SHAPES}"
                f"（其中有 float32），{steps} 步，部分梯度为 None",
            )
            + (tr(", a gradient object shared", "，共用一个梯度对象") if share else "")
            + (tr(", step(closure)", "，step(closure)") if closure else "")
            + (
                tr(", one parameter never given a gradient", "，有一个参数从未得到梯度")
                if frozen
                else ""
            )
        )
        return trajectory_case(
            rng,
            name,
            _options(name, rng),
            spec,
            SHAPES,
            steps=steps,
            dtypes=MIXED,
            skip=0.25,
            share=share,
            closure=closure,
            frozen=frozen,
            label=label,
        )

    return make


def _rows(name: str, closure: bool = True) -> Rows:
    """Three drawn trajectories; AdamW's without a closure (its checks rerun with the 6.5
    stand-in, whose step ignores the closure)."""
    return Rows(
        [
            _drawn(name),
            _drawn(name, groups=2, steps=10, share=True),
            _drawn(name, groups=3, steps=6, closure=closure, frozen=(len(SHAPES) - 1,)),
        ]
    )


def _resume(name: str, defaults: dict, groups: list, shapes: list, **kw):
    def make(rng: np.random.Generator):
        label = tr(
            f"{name}: state_dict() after some steps, loaded into a new optimizer, resumed",
            f"{name}：走几步后 state_dict()，加载到一个新的优化器中，继续训练",
        )
        if kw.get("load_dtype"):
            label += tr(
                f" ({kw['dtype']} saved, {kw['load_dtype']} loaded)",
                f"（保存时为 {kw['dtype']}，加载为 {kw['load_dtype']}）",
            )
        if kw.get("warm"):
            label += tr(
                ", the loading optimizer having stepped before",
                "，执行加载的优化器之前已经走过几步",
            )
        return resume_case(rng, name, defaults, groups, shapes, label=label, **kw)

    return make


def _schedule(kind: str, bases: list, options: dict, steps: int):
    return lambda rng: schedule_case(
        kind,
        bases,
        options,
        steps,
        label=tr(
            f"{kind}, {len(bases)} group(s), {steps} steps",
            f"{kind}，{len(bases)} 个参数组，{steps} 步",
        ),
    )


def _clip(shapes: list, max_norm: float, **kw):
    what = "clip_grad_value_" if kw.get("by_value") else "clip_grad_norm_"
    norm = kw.get("norm_type", 2.0)

    def make(rng: np.random.Generator):
        kinds = (
            tr("gradients that are all empty", "全部为空的梯度")
            if all(s is not None and 0 in s for s in shapes)
            else tr("parameters without gradients", "没有梯度的参数")
            if all(s is None for s in shapes)
            else tr("drawn gradients", "随机抽取的梯度")
        )
        label = tr(
            f"{what} on {len(shapes)} {kinds} ({kw.get('dtype', 'float64')})",
            f"{what}，作用于 {len(shapes)} 个{kinds}（{kw.get('dtype', 'float64')}）",
        )
        if not kw.get("by_value"):
            label += tr(f", norm_type={norm!r}", f"，norm_type={norm!r}")
        if kw.get("share"):
            label += tr(", one gradient object shared", "，共用一个梯度对象")
        if kw.get("negative"):
            label += tr(", the largest |g| a negative entry", "，最大的 |g| 是一个负元素")
        if kw.get("nonfinite"):
            label += {
                True: tr(", an inf", "，含 inf"),
                "nan": tr(", a nan", "，含 nan"),
                "quiet": tr(", an inf (no error)", "，含 inf（不报错）"),
                "quiet nan": tr(", a nan (no error)", "，含 nan（不报错）"),
            }[kw["nonfinite"]]
        return clip_case(rng, shapes, max_norm, label=label, **kw)

    return make


def _contract(rng: np.random.Generator):
    return trajectory_case(
        rng,
        "Adam",
        {"lr": 0.02, "betas": [0.8, 0.95], "weight_decay": 0.1},
        [([0, 1, 2], {})],
        SHAPES[:3],
        steps=5,
        dtypes=MIXED[:3],
        skip=0.3,
        contract=True,
        label=tr(
            "an Adam subclass whose _weight_decay returns 2g, drawn gradients",
            "一个 Adam 子类，其 _weight_decay 返回 2g，梯度随机抽取",
        ),
    )


def _contract_groups(rng: np.random.Generator):
    return trajectory_case(
        rng,
        "Adam",
        {"lr": 0.01},
        [([0], {"amsgrad": True}), ([1, 2], {"lr": 0.03, "weight_decay": 0.05})],
        SHAPES[:3],
        steps=4,
        dtypes=MIXED[:3],
        contract=True,
        label=tr(
            "the same in two groups with their own options, drawn gradients",
            "同上，但分成两个各有自己选项的参数组，梯度随机抽取",
        ),
    )


GROUP_SCRIPTS = [
    (
        {"lr": 0.1, "momentum": 0.9, "nesterov": False},
        [
            {"params": ["a"], "momentum": 0.5},
            {"params": "gen:bc", "nesterov": True},
            {"params": "d"},
        ],
        {"en": "three groups, each with other options", "zh": "三个参数组，各有不同的选项"},
    ),
    (
        {"lr": 0.1},
        [{"params": ["a", "b"]}, {"params": ["c", "c"]}, {"params": "set:d"}, {"params": "d"}],
        {
            "en": "a set after others, then the same tensor as a group",
            "zh": "在其他参数组之后传入一个集合，然后把同一个张量作为一个参数组",
        },
    ),
    (
        {"lr": "required"},
        [
            {"params": ["a"], "lr": 0.1},
            {"params": ["b"], "momentum": 0.3},
            {"params": ["d"], "lr": 0.4},
        ],
        {
            "en": "a required lr, left unset by a group with another option",
            "zh": "lr 是必需的，却被一个设置了其他选项的参数组漏掉了",
        },
    ),
    (
        {"lr": 0.1},
        [{"params": ["a"]}, {"params": ["b", "n"]}, {"params": ["b"]}, {"params": "gen:ca"}],
        {
            "en": "a non-leaf among leaves, then a generator repeating a tensor",
            "zh": "叶子节点中混有一个非叶子节点，然后是一个重复某个张量的生成器",
        },
    ),
    (
        {"lr": 0.1},
        [{"params": ["a", "b"]}, {"params": "str:c"}, {"params": ["c"]}],
        {
            "en": "a name among the tensors, then a valid group",
            "zh": "张量中混有一个名字，然后是一个合法的参数组",
        },
    ),
    (
        {"lr": 0.2, "momentum": 0.5},
        [
            {"params": "tuple:fa"},
            {"params": "tuple:db", "momentum": 0.0},
            {"params": ["c", "b"]},
            {"params": ["c"]},
        ],
        {
            "en": "tuples as params, one holding a tensor that does not require grad, then a "
            "tensor of the second group again",
            "zh": "用元组作为 params，其中一个含有不需要梯度的张量，然后再次传入第二个参数组中的"
            "张量",
        },
    ),
]

# each a public entry's (by id) with other cases; the names are the old ones (a check's cases
# are drawn from its task and name)
CHECKS = hidden_checks(
    PUBLIC,
    [
        Hidden(
            "add_param_group",
            lambda rng: [groups_case(d, items, label) for d, items, label in GROUP_SCRIPTS],
            "add_param_group (held out)",  # en-only: the hidden check's id
            title={"zh": "add_param_group（隐藏）"},
        ),
        Hidden(
            "zero_grad",
            lambda rng: [
                zero_grad_case(
                    True,
                    "float32",
                    label=tr(
                        "zero_grad(), float32 among the parameters", "zero_grad()，参数中有 float32"
                    ),
                ),
                zero_grad_case(
                    False,
                    "float32",
                    label=tr(
                        "zero_grad(set_to_none=False), float32",
                        "zero_grad(set_to_none=False)，float32",
                    ),
                ),
            ],
            "zero_grad (held out)",  # en-only: the hidden check's id
            title={"zh": "zero_grad（隐藏）"},
        ),
        Hidden(
            "SGD: momentum, dampening, Nesterov, weight decay",
            _rows("SGD"),
            "SGD (held out)",
            title={"zh": "SGD（隐藏）"},
        ),
        Hidden(
            "Adagrad",
            _rows("Adagrad"),
            "Adagrad (held out)",
            title={"zh": "Adagrad（隐藏）"},
        ),
        Hidden(
            "RMSprop",
            _rows("RMSprop"),
            "RMSprop (held out)",
            title={"zh": "RMSprop（隐藏）"},
        ),
        Hidden(
            "Adam",
            _rows("Adam"),
            "Adam (held out)",
            title={"zh": "Adam（隐藏）"},
        ),
        Hidden(
            "Adam.step calls self._weight_decay",
            Rows([_contract, _contract_groups]),
            "Adam.step calls self._weight_decay (held out)",  # en-only: the hidden check's id
            title={"zh": "Adam.step 调用 self._weight_decay（隐藏）"},
        ),
        Hidden(
            "AdamW._weight_decay",
            Rows([row(adamw_decay_case, 0.3, 0.9), row(adamw_decay_case, 0.05, 0.01, "float32")]),
            "AdamW._weight_decay (held out)",  # en-only: the hidden check's id
            title={"zh": "AdamW._weight_decay（隐藏）"},
        ),
        Hidden(
            "AdamW: decoupled weight decay",
            _rows("AdamW", closure=False),
            "AdamW (held out)",
            title={"zh": "AdamW（隐藏）"},
        ),
        Hidden(
            "state_dict and load_state_dict",
            Rows(
                [
                    _resume("Adam", {"lr": 0.01, "amsgrad": True}, [([0, 1], {})], [(3, 2), (4,)]),
                    _resume(
                        "SGD",
                        {"lr": 0.05, "momentum": 0.9, "nesterov": True},
                        [([2], {"lr": 0.1}), ([0], {}), ([1, 3], {"momentum": 0.5})],
                        [(3,), (2, 2), (2,), (5,)],
                        before=2,
                        after=4,
                        late=True,
                        warm=True,
                    ),
                    _resume(
                        "Adam",
                        {"lr": 0.02, "betas": [0.7, 0.9]},
                        [([0, 1, 2], {})],
                        [(2, 3), (3,), (2,)],
                        dtype="float32",
                        load_dtype="float64",
                    ),
                ]
            ),
            "state_dict and load_state_dict (held out)",  # en-only: the hidden check's id
            title={"zh": "state_dict 与 load_state_dict（隐藏）"},
        ),
        Hidden(
            "the closed-form schedules",
            Rows(
                [
                    _schedule("StepLR", [0.2, 0.05, 1.0], {"step_size": 1, "gamma": 0.8}, 7),
                    _schedule(
                        "MultiStepLR", [0.1], {"milestones": [1, 4, 4, 9, 30], "gamma": 0.3}, 12
                    ),
                    _schedule("ExponentialLR", [0.01, 0.02], {"gamma": 1.05}, 9),
                    _schedule(
                        "CosineAnnealingLR", [0.3, 0.1, 0.2], {"T_max": 4, "eta_min": 0.05}, 13
                    ),
                    _schedule(
                        "LambdaLR",
                        [0.1, 0.2, 0.4],
                        {"lr_lambda": [["linear", 6], ["power", 0.8], ["warmup", 3]]},
                        9,
                    ),
                ]
            ),
            "the closed-form schedules (held out)",  # en-only: the hidden check's id
            title={"zh": "闭式学习率调度（隐藏）"},
        ),
        Hidden(
            "OneCycleLR",
            lambda rng: [
                one_cycle_case(
                    0.05,
                    {"total_steps": 31, "pct_start": 0.4},
                    label=tr("a 31-step cycle", "一个 31 步的周期"),
                ),
                one_cycle_case(
                    [0.1, 0.2, 0.3],
                    {"epochs": 4, "steps_per_epoch": 5, "three_phase": True},
                    beta1=True,
                    label=tr("three groups, three phases, β₁", "三个参数组，三个阶段，β₁"),
                ),
                one_cycle_case(
                    [0.4, 0.1],
                    {"total_steps": 18, "anneal_strategy": "linear", "pct_start": 0.5},
                    groups=2,
                    label=tr("two groups, linear, half up", "两个参数组，线性，一半时间上升"),
                ),
                one_cycle_case(
                    0.1,
                    {
                        "total_steps": 25,
                        "base_momentum": 0.7,
                        "max_momentum": 0.99,
                        "div_factor": 5.0,
                    },
                    beta1=True,
                    label=tr("other momenta and division, β₁", "其他的动量与除数，β₁"),
                ),
            ],
            "OneCycleLR (held out)",  # en-only: the hidden check's id
            title={"zh": "OneCycleLR（隐藏）"},
        ),
        Hidden(
            "clip_grad_norm_ and clip_grad_value_",
            Rows(
                [
                    _clip([(4, 5), (3,), (2, 2, 2)], 1.5),
                    _clip([(6,), None, (2, 3)], 0.25, norm_type=1.5, dtype="float32"),
                    _clip([(3, 3), (3, 3)], 0.1, norm_type="inf", share=True),
                    _clip([(4,), (2, 2), (3,)], 0.3, norm_type="inf", negative=True),
                    _clip([(2, 5), (4,)], 2.0, norm_type=4.0, dtype="float32"),
                    _clip([(5,), (2, 2)], 0.2, by_value=True, dtype="float32"),
                    _clip([(3,), (2, 3)], 50.0, norm_type=1.0),
                    _clip([(4,), (3,)], 0.5, nonfinite=True, dtype="float32"),
                    _clip([(2, 2), (3,)], 0.5, nonfinite="nan"),
                    _clip([(3,), (2, 2)], 0.5, nonfinite="quiet", dtype="float32"),
                    _clip([(2, 3), (4,)], 0.5, nonfinite="quiet nan", dtype="float32"),
                    _clip([(0,), (3, 0)], 0.5, norm_type=3.0),
                    _clip([None, None], 0.5),
                ]
            ),
            "clip_grad_norm_ and clip_grad_value_ (held out)",  # en-only: the hidden check's id
            title={"zh": "clip_grad_norm_ 与 clip_grad_value_（隐藏）"},
        ),
        training.TRAINING,
        # tasks 6.11 and 6.12 (course version 1.1): other models, rates and lengths
        Hidden(
            "TrainingStats: activations during training",
            Rows(
                [
                    row(stats_case, [5, 7, 3], steps=5, batch=6, scale=3.0),
                    row(stats_case, [2, 3, 3, 3, 1], steps=2, final_tanh=True),
                ]
            ),
            "TrainingStats: activations (hidden)",  # en-only: the hidden check's id
            title={"zh": "TrainingStats：激活值（隐藏）"},
        ),
        Hidden(
            "TrainingStats: gradients at each step",
            Rows(
                [
                    row(stats_case, [5, 7, 3], steps=5, lr=0.3),
                    row(stats_case, [3, 4, 4, 2], steps=3, lr=0.05, final_tanh=True),
                ]
            ),
            "TrainingStats: gradients (hidden)",  # en-only: the hidden check's id
            title={"zh": "TrainingStats：梯度（隐藏）"},
        ),
        Hidden(
            "TrainingStats: update-to-data ratios",
            Rows(
                [
                    row(stats_case, [5, 7, 3], steps=5, lr=1.0),
                    row(stats_case, [2, 3, 3, 3, 1], steps=3, lr=0.001, batch=12),
                ]
            ),
            "TrainingStats: update-to-data ratios (hidden)",  # en-only: the hidden check's id
            title={"zh": "TrainingStats：更新比（隐藏）"},
        ),
        Hidden(
            "TrainingStats: step once, hooks removed",
            Rows(
                [
                    row(stats_case, [2, 3, 3, 3, 1], steps=5, final_tanh=True),
                    row(stats_case, [4, 6, 2], steps=2, lr=0.2),
                ]
            ),
            "TrainingStats: step once, hooks removed (hidden)",  # en-only: the hidden check's id
            title={"zh": "TrainingStats：只走一步，移除钩子（隐藏）"},
        ),
        Hidden(
            "warmup_cosine(warmup, total, start_factor, min_factor)",
            Rows(
                [
                    row(
                        drawn_factor_case,
                        {"en": "a long run", "zh": "长时间训练"},
                        (5, 15),
                        (30, 60),
                        extra=5,
                    ),
                    row(
                        drawn_factor_case,
                        {"en": "a warm-up of 1 step", "zh": "只有 1 步预热"},
                        (1, 1),
                        (3, 9),
                    ),
                    row(
                        drawn_factor_case,
                        {"en": "a one-step cosine", "zh": "只有一步的余弦"},
                        (2, 8),
                        (1, 1),
                    ),
                ]
            ),
            "warmup_cosine (hidden)",  # en-only: the hidden check's id
            title={"zh": "warmup_cosine（隐藏）"},
        ),
        Hidden(
            "LambdaLR(optimizer, warmup_cosine(...)): the lr of every step",
            Rows([row(drawn_lr_case, 3, (2, 6), (6, 14)), row(drawn_lr_case, 1, (1, 3), (2, 5))]),
            "LambdaLR with warmup_cosine (hidden)",  # en-only: the hidden check's id
            title={"zh": "LambdaLR 与 warmup_cosine（隐藏）"},
        ),
    ],
)

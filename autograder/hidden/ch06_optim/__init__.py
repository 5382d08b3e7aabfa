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
from ...harness.table import Hidden, Rows, hidden_checks, row
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
            f"{name} with drawn options, {groups} group(s) with their own, parameters of "
            f"shapes {SHAPES} (float32 among them), {steps} steps, some gradients None"
            + (", a gradient object shared" if share else "")
            + (", step(closure)" if closure else "")
            + (", one parameter never given a gradient" if frozen else "")
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
    label = f"{name}: state_dict() after some steps, loaded into a new optimizer, resumed"
    if kw.get("load_dtype"):
        label += f" ({kw['dtype']} saved, {kw['load_dtype']} loaded)"
    if kw.get("warm"):
        label += ", the loading optimizer having stepped before"
    return lambda rng: resume_case(rng, name, defaults, groups, shapes, label=label, **kw)


def _schedule(kind: str, bases: list, options: dict, steps: int):
    return lambda rng: schedule_case(
        kind, bases, options, steps, label=f"{kind}, {len(bases)} group(s), {steps} steps"
    )


def _clip(shapes: list, max_norm: float, **kw):
    what = "clip_grad_value_" if kw.get("by_value") else "clip_grad_norm_"
    norm = kw.get("norm_type", 2.0)
    kinds = (
        "gradients that are all empty"
        if all(s is not None and 0 in s for s in shapes)
        else "parameters without gradients"
        if all(s is None for s in shapes)
        else "drawn gradients"
    )
    label = f"{what} on {len(shapes)} {kinds} ({kw.get('dtype', 'float64')})"
    if not kw.get("by_value"):
        label += f", norm_type={norm!r}"
    if kw.get("share"):
        label += ", one gradient object shared"
    if kw.get("negative"):
        label += ", the largest |g| a negative entry"
    if kw.get("nonfinite"):
        label += {
            True: ", an inf",
            "nan": ", a nan",
            "quiet": ", an inf (no error)",
            "quiet nan": ", a nan (no error)",
        }[kw["nonfinite"]]
    return lambda rng: clip_case(rng, shapes, max_norm, label=label, **kw)


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
        label="an Adam subclass whose _weight_decay returns 2g, drawn gradients",
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
        label="the same in two groups with their own options, drawn gradients",
    )


GROUP_SCRIPTS = [
    (
        {"lr": 0.1, "momentum": 0.9, "nesterov": False},
        [
            {"params": ["a"], "momentum": 0.5},
            {"params": "gen:bc", "nesterov": True},
            {"params": "d"},
        ],
        "three groups, each with other options",
    ),
    (
        {"lr": 0.1},
        [{"params": ["a", "b"]}, {"params": ["c", "c"]}, {"params": "set:d"}, {"params": "d"}],
        "a set after others, then the same tensor as a group",
    ),
    (
        {"lr": "required"},
        [
            {"params": ["a"], "lr": 0.1},
            {"params": ["b"], "momentum": 0.3},
            {"params": ["d"], "lr": 0.4},
        ],
        "a required lr, left unset by a group with another option",
    ),
    (
        {"lr": 0.1},
        [{"params": ["a"]}, {"params": ["b", "n"]}, {"params": ["b"]}, {"params": "gen:ca"}],
        "a non-leaf among leaves, then a generator repeating a tensor",
    ),
    (
        {"lr": 0.1},
        [{"params": ["a", "b"]}, {"params": "str:c"}, {"params": ["c"]}],
        "a name among the tensors, then a valid group",
    ),
    (
        {"lr": 0.2, "momentum": 0.5},
        [
            {"params": "tuple:fa"},
            {"params": "tuple:db", "momentum": 0.0},
            {"params": ["c", "b"]},
            {"params": ["c"]},
        ],
        "tuples as params, one holding a tensor that does not require grad, then a tensor "
        "of the second group again",
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
            "add_param_group (held out)",
        ),
        Hidden(
            "zero_grad",
            lambda rng: [
                zero_grad_case(True, "float32", label="zero_grad(), float32 among the parameters"),
                zero_grad_case(False, "float32", label="zero_grad(set_to_none=False), float32"),
            ],
            "zero_grad (held out)",
        ),
        Hidden("SGD: momentum, dampening, Nesterov, weight decay", _rows("SGD"), "SGD (held out)"),
        Hidden("Adagrad", _rows("Adagrad"), "Adagrad (held out)"),
        Hidden("RMSprop", _rows("RMSprop"), "RMSprop (held out)"),
        Hidden("Adam", _rows("Adam"), "Adam (held out)"),
        Hidden(
            "Adam.step calls self._weight_decay",
            Rows([_contract, _contract_groups]),
            "Adam.step calls self._weight_decay (held out)",
        ),
        Hidden(
            "AdamW._weight_decay",
            Rows([row(adamw_decay_case, 0.3, 0.9), row(adamw_decay_case, 0.05, 0.01, "float32")]),
            "AdamW._weight_decay (held out)",
        ),
        Hidden("AdamW: decoupled weight decay", _rows("AdamW", closure=False), "AdamW (held out)"),
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
            "state_dict and load_state_dict (held out)",
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
            "the closed-form schedules (held out)",
        ),
        Hidden(
            "OneCycleLR",
            lambda rng: [
                one_cycle_case(
                    0.05, {"total_steps": 31, "pct_start": 0.4}, label="a 31-step cycle"
                ),
                one_cycle_case(
                    [0.1, 0.2, 0.3],
                    {"epochs": 4, "steps_per_epoch": 5, "three_phase": True},
                    beta1=True,
                    label="three groups, three phases, β₁",
                ),
                one_cycle_case(
                    [0.4, 0.1],
                    {"total_steps": 18, "anneal_strategy": "linear", "pct_start": 0.5},
                    groups=2,
                    label="two groups, linear, half up",
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
                    label="other momenta and division, β₁",
                ),
            ],
            "OneCycleLR (held out)",
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
            "clip_grad_norm_ and clip_grad_value_ (held out)",
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
            "TrainingStats: activations (hidden)",
        ),
        Hidden(
            "TrainingStats: gradients at each step",
            Rows(
                [
                    row(stats_case, [5, 7, 3], steps=5, lr=0.3),
                    row(stats_case, [3, 4, 4, 2], steps=3, lr=0.05, final_tanh=True),
                ]
            ),
            "TrainingStats: gradients (hidden)",
        ),
        Hidden(
            "TrainingStats: update-to-data ratios",
            Rows(
                [
                    row(stats_case, [5, 7, 3], steps=5, lr=1.0),
                    row(stats_case, [2, 3, 3, 3, 1], steps=3, lr=0.001, batch=12),
                ]
            ),
            "TrainingStats: update-to-data ratios (hidden)",
        ),
        Hidden(
            "TrainingStats: step once, hooks removed",
            Rows(
                [
                    row(stats_case, [2, 3, 3, 3, 1], steps=5, final_tanh=True),
                    row(stats_case, [4, 6, 2], steps=2, lr=0.2),
                ]
            ),
            "TrainingStats: step once, hooks removed (hidden)",
        ),
        Hidden(
            "warmup_cosine(warmup, total, start_factor, min_factor)",
            Rows(
                [
                    row(drawn_factor_case, "a long run", (5, 15), (30, 60), extra=5),
                    row(drawn_factor_case, "a warm-up of 1 step", (1, 1), (3, 9)),
                    row(drawn_factor_case, "a one-step cosine", (2, 8), (1, 1)),
                ]
            ),
            "warmup_cosine (hidden)",
        ),
        Hidden(
            "LambdaLR(optimizer, warmup_cosine(...)): the lr of every step",
            Rows([row(drawn_lr_case, 3, (2, 6), (6, 14)), row(drawn_lr_case, 1, (1, 3), (2, 5))]),
            "LambdaLR with warmup_cosine (hidden)",
        ),
    ],
)

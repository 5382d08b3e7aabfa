"""Public checks of chapter 6's exercises (course version 1.1): 6.11 ``optim.TrainingStats``
and 6.12 ``optim.warmup_cosine``. Their programs are ``exercises_program.py``; ``EXERCISES``
is appended to the chapter's ``CHECKS``.

Every expectation is the parent's own, in NumPy:

- 6.11: the program trains a small Linear–Tanh model with the student's stats attached and
  sends the raw values it saw itself (each watched Tanh's input and output at every
  forward, every parameter before and after each step, each gradient as ``stats.step`` was
  called); the parent computes the mean, the standard deviation (ddof 0), the fraction with
  |a| > 0.97, std(grad) and log₁₀(std(Δp) / std(p)) from them and compares what the stats
  recorded. The known mistakes are named from their own formulas on the same values: the
  input measured instead of the output, the sample std, a ratio of means, a ratio without
  the log or with the natural log, a ratio against the values after the step, Δp of zero
  (the copy taken after the step, or no copy), gradients read before backward (one step
  late). The hooks must be off the model after ``remove()``, and ``stats.step`` must call
  ``optimizer.step()`` once and return its result.
- 6.12: PyTorch's closed forms: ``LinearLR(start_factor, 1.0, total_iters=warmup)`` for t
  < warmup, then ``CosineAnnealingLR(T_max=total − warmup, eta_min=min_factor·η₀)`` counted
  from the warm-up's end (``SequentialLR``, milestones=[warmup]), and min_factor after
  total; written out below from PyTorch's documented formulas, never from the code under
  test. Through ``LambdaLR`` the same factors times each group's base lr must be the lr the
  optimizer steps with (the parameter's move, its gradient being 1).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from ...harness.api import Case, Check
from ...harness.table import Field, Fields, Mistake, Rows, first, row, rules
from . import exercises_program as programs

SINCE = "1.1"
STEPS = ("6.1", "6.2")  # SGD's step: 6.1's groups, 6.2's rule
LAMBDA = ("6.1", "6.2", "6.8")  # and LambdaLR's get_lr, 6.8
SATURATION = 0.97

# -- 6.11: the statistics, from the values the program saw --------------------------------


def stats_case(
    rng: np.random.Generator,
    sizes: list,
    steps: int = 3,
    lr: float = 0.1,
    batch: int = 8,
    scale: float = 1.0,
    final_tanh: bool = False,
) -> Case:
    """A Linear–Tanh model of ``sizes`` trained ``steps`` SGD steps at ``lr`` on drawn data
    (``scale``: the inputs' size; a large one saturates the tanh)."""
    x = np.round(rng.normal(size=(batch, sizes[0])) * scale, 2)
    y = np.round(rng.normal(size=(batch, sizes[-1])), 2)
    layers = " → ".join(
        f"Linear({a}, {b})" + (" → Tanh" if i < len(sizes) - 2 or final_tanh else "")
        for i, (a, b) in enumerate(itertools.pairwise(sizes))
    )
    label = (
        f"stats = TrainingStats(model) on {layers}, then {steps} steps of SGD(lr={lr}) on a "
        f"batch of {batch}{f' of inputs scaled by {scale:g}' if scale != 1 else ''} (forward, "
        "zero_grad, backward, stats.step(optimizer)), "
        "stats.remove()"
    )
    inputs = {
        "sizes": list(sizes),
        "x": x,
        "y": y,
        "lr": lr,
        "steps": steps,
        "seed": int(rng.integers(1 << 16)),
        "final_tanh": final_tanh,
    }
    return Case(label, inputs, None)


def _std(a: Any) -> float:
    return float(np.std(np.asarray(a, dtype=np.float64)))


def _log_ratio(before: Any, after: Any, log: Callable = np.log10) -> float:
    before, after = np.asarray(before, np.float64), np.asarray(after, np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(log(np.std(after - before) / np.std(before)))


def _per(rows: list, f: Callable) -> list:
    return [[f(v) for v in values] for values in rows]


def _measured(got: dict) -> dict:
    """What the stats should have recorded, from the raw values the program saw."""
    outs, ins = got["outputs_seen"], got["inputs_seen"]
    grads, before, after = got["grads_seen"], got["before"], got["after"]
    pairs = [list(zip(b, a)) for b, a in zip(before, after)]
    saturated = lambda a: float(np.mean(np.abs(np.asarray(a)) > SATURATION))
    return {
        "watched": got["watched"],
        "names": got["names"],
        "act_mean": _per(outs, lambda a: float(np.mean(a))),
        "act_std": _per(outs, _std),
        "act_sat": _per(outs, saturated),
        "grads": _per(grads, _std),
        "ratios": _per(pairs, lambda ba: _log_ratio(*ba)),
        # the known mistakes' numbers, from the same values
        "input_mean": _per(ins, lambda a: float(np.mean(a))),
        "input_std": _per(ins, _std),
        "input_sat": _per(ins, saturated),
        "sample_std": _per(outs, lambda a: float(np.std(np.asarray(a), ddof=1))),
        "ratio_of_means": _per(
            pairs,
            lambda ba: float(np.log10(abs(np.mean(ba[1] - ba[0])) / abs(np.mean(ba[0])))),
        ),
        "ratio_no_log": _per(pairs, lambda ba: 10 ** _log_ratio(*ba)),
        "ratio_ln": _per(pairs, lambda ba: _log_ratio(*ba, log=np.log)),
        "ratio_after": _per(
            pairs,
            lambda ba: float(np.log10(np.std(ba[1] - ba[0]) / np.std(ba[1]))),
        ),
    }


def _raised(case: Case, got: Any) -> Any:
    return got.get("error") is not None and (got["error"], got["message"])


RAISED = rules((_raised, "the run raised {0}: {1}"), keys=["error", "message", "calls"])


def _with_measured(verdict: Callable) -> Callable:
    """``verdict`` on the case whose expected values are ``_measured`` from the record."""

    def judged(case: Case, got: Any) -> Any:
        return verdict(replace(case, expected=_measured(got)), got)

    return judged


def _act_names(key: str) -> Callable[[Case], list]:
    def names(case: Case) -> list:
        want, watched = case.expected["act_mean"], case.expected["watched"]
        return [
            [
                f"stats.activations['{watched[i]}'][{j}]['{key}'] (watched Tanh {i + 1}, "
                f"forward {j + 1})"
                for j in range(len(values))
            ]
            for i, values in enumerate(want)
        ]

    return names


def _param_names(what: str) -> Callable[[Case], list]:
    def names(case: Case) -> list:
        want, params = case.expected["grads"], case.expected["names"]
        return [
            [f"{what} of '{params[i]}' at step {k + 1}" for k in range(len(values))]
            for i, values in enumerate(want)
        ]

    return names


def _mistaken(key: str) -> Callable[[Case], Any]:
    return lambda case: case.expected[key]


def _absent(key: str) -> Callable[[Case, Any], Any]:
    """A watched module (``act_*``) or a parameter with no list of its own in the stats."""

    def when(case: Case, got: Any) -> Any:
        rows, names = got.get(key), got["watched" if key.startswith("act") else "names"]
        for name, found in zip(names, rows if isinstance(rows, list) else []):
            if isinstance(found, str):
                return (name, found)
        return False

    return when


ABSENT_MODULE = (
    "stats.activations has no list of rows for the watched module '{0}' (received {1}): "
    "each watched module has its own list, under its name in model.named_modules()"
)
ABSENT_PARAMETER = (
    "stats.{where} has no list for the parameter '{0}' (received {1}): every parameter "
    "of more than one element has its own list, under its name in model.named_parameters()"
)


INPUT = (
    "your hook measured the module's input (its args), the pre-activation, not its output: "
    "the activations are what the Tanh gave out"
)
ACTIVATIONS = _with_measured(
    first(
        RAISED,
        rules((_absent("act_mean"), ABSENT_MODULE), keys=["act_mean"]),
        Fields(
            [
                Field("act_mean.*.*", _act_names("mean"), rtol=1e-6, atol=1e-9),
                Field("act_std.*.*", _act_names("std"), rtol=1e-6, atol=1e-9),
                Field(
                    "act_sat.*.*",
                    _act_names("saturated"),
                    rtol=1e-9,
                    atol=1e-12,
                    says=f"the fraction of the output's elements with |a| > {SATURATION}",
                ),
            ],
            mistakes=[
                Mistake("act_mean.*.*", _mistaken("input_mean"), INPUT),
                Mistake("act_std.*.*", _mistaken("input_std"), INPUT),
                Mistake("act_sat.*.*", _mistaken("input_sat"), INPUT),
                Mistake(
                    "act_std.*.*",
                    _mistaken("sample_std"),
                    "this is the sample standard deviation (divided by n − 1): the contract "
                    "is NumPy's std over all the elements, divided by n",
                ),
            ],
        ),
    )
)


def _late(case: Case, got: Any) -> Any:
    """Gradient rows one step late: each row the gradient of the step before (read at a
    forward, before that step's backward), the first one missing or not a number."""
    want = case.expected["grads"]
    for i, (rows, wanted) in enumerate(zip(got.get("grads") or [], want)):
        if not isinstance(rows, list) or len(wanted) < 2:
            continue
        if len(rows) == len(wanted) and all(isinstance(v, float) for v in rows):
            if np.allclose(rows, wanted, rtol=1e-6, atol=1e-12):
                continue
        tail = rows[-(len(wanted) - 1) :] if len(rows) >= len(wanted) - 1 else None
        numbers = tail is not None and all(isinstance(v, float) for v in tail)
        if numbers and np.allclose(tail, wanted[:-1], rtol=1e-6, atol=1e-12):
            return (got["names"][i],)
    return False


def _zero_update(case: Case, got: Any) -> Any:
    for i, rows in enumerate(got.get("ratios") or []):
        if isinstance(rows, list) and rows and all(isinstance(v, float) for v in rows):
            if any(v == -math.inf for v in rows) and not any(
                v == -math.inf for v in case.expected["ratios"][i]
            ):
                return (got["names"][i],)
    return False


GRADIENTS = _with_measured(
    first(
        RAISED,
        rules(
            (_absent("grads"), ABSENT_PARAMETER.replace("{where}", "grads")),
            (
                _late,
                "{0}'s gradient rows are one step late: each is the gradient of "
                "the step before. They were read before that step's backward had run (at a "
                "forward); the gradient a step uses exists only once backward is done, as "
                "stats.step is called",
            ),
            keys=["grads"],
        ),
        Fields([Field("grads.*.*", _param_names("std(p.grad)"), rtol=1e-6, atol=1e-12)]),
    )
)

RATIOS = _with_measured(
    first(
        RAISED,
        rules(
            (_absent("ratios"), ABSENT_PARAMETER.replace("{where}", "ratios")),
            (
                _zero_update,
                "{0}'s update-to-data ratio is −inf: std(Δp) was 0, so the values "
                "compared were the same. The values before the step must be a copy of their "
                "own, taken before optimizer.step(): a copy taken after the step, or the "
                "parameter's own array (which the step changes in place), shows no change",
            ),
            keys=["ratios"],
        ),
        Fields(
            [Field("ratios.*.*", _param_names("the update-to-data ratio"), rtol=1e-6, atol=1e-6)],
            mistakes=[
                Mistake(
                    "ratios.*.*",
                    _mistaken("ratio_of_means"),
                    "this is a ratio of means, log₁₀(|mean(Δp)| / |mean(p)|): means cancel "
                    "(positive and negative entries), spreads do not. The ratio compares "
                    "standard deviations",
                ),
                Mistake(
                    "ratios.*.*",
                    _mistaken("ratio_no_log"),
                    "this is std(Δp) / std(p) itself, without the log₁₀: the ratio is "
                    "recorded on a log scale, about −3 for a healthy step",
                ),
                Mistake(
                    "ratios.*.*",
                    _mistaken("ratio_ln"),
                    "this is the natural log of the ratio: the contract is log₁₀, so that −3 "
                    "means a step of a thousandth of the parameter's spread",
                ),
                Mistake(
                    "ratios.*.*",
                    _mistaken("ratio_after"),
                    "this divides by the spread of p after the step: the ratio compares the "
                    "change with the values it changed, p before the step",
                ),
            ],
        ),
    )
)


def _hooks_left(case: Case, got: Any) -> Any:
    return got.get("hooks_left", 0) != 0 and (got["hooks_left"],)


def _calls(case: Case, got: Any) -> Any:
    steps = case.inputs["steps"]
    return got.get("calls") != steps and (got.get("calls"), steps)


def _returned(case: Case, got: Any) -> Any:
    wrong = [r for r in got.get("returned", []) if r is not True]
    return bool(wrong) and (wrong[0],)


HOOKS = first(
    RAISED,
    rules(
        (
            _hooks_left,
            "after stats.remove(), {0} hook(s) of the stats are still on the model's modules: "
            "remove() must take off every hook the stats registered (each one's handle), or "
            "every later forward still runs them and the lists keep growing",
        ),
        (
            _calls,
            "stats.step(optimizer) called optimizer.step() {0} times in {1} calls: exactly "
            "once per call (the stats watch a step, they do not take more or fewer)",
        ),
        (
            _returned,
            "stats.step(optimizer) returned {0}, not what optimizer.step() returned (a "
            "closure's loss, for an optimizer given one)",
        ),
        keys=["hooks_left", "calls", "returned"],
    ),
)

# -- 6.12: PyTorch's closed forms -----------------------------------------------------------


def linear_lr(start_factor: float, end_factor: float, total_iters: int, t: int) -> float:
    """PyTorch's LinearLR factor at step t (its closed form)."""
    return start_factor + (end_factor - start_factor) * min(total_iters, t) / total_iters


def cosine_lr(base: float, eta_min: float, T_max: int, t: int) -> float:
    """PyTorch's CosineAnnealingLR at step t (its closed form)."""
    return eta_min + (base - eta_min) * (1 + math.cos(math.pi * t / T_max)) / 2


def pytorch_factor(warmup: int, total: int, start: float, low: float, t: int) -> float:
    """SequentialLR([LinearLR(start, 1, warmup), CosineAnnealingLR(total − warmup, low·η₀)],
    milestones=[warmup]) at step t, as a factor of η₀ = 1; ``low`` from ``total`` on."""
    if t < warmup:
        return linear_lr(start, 1.0, warmup, t)
    if t >= total:
        return low
    return cosine_lr(1.0, low, total - warmup, t - warmup)


def _wrong_factor(kind: str, w: int, n: int, s: float, m: float, t: int) -> float:
    """The known mistakes' factors."""
    right = pytorch_factor(w, n, s, m, t)
    half = lambda angle: (1 + math.cos(angle)) / 2
    if kind == "late":  # the warm-up one step ahead: 1 already at t = warmup − 1
        return s + (1 - s) * min(t + 1, w) / w if t < w else right
    if kind == "from_zero":  # the warm-up from 0, start_factor ignored
        return t / w if t < w else right
    if kind == "whole":  # the cosine counted from t = 0, over the whole run
        return m + (1 - m) * half(math.pi * t / n) if w <= t < n else right
    if kind == "no_min":  # the cosine down to 0, min_factor left out
        return half(math.pi * (t - w) / (n - w)) if w <= t < n else right
    if kind == "unscaled":  # min_factor added, the cosine not scaled by 1 − min_factor
        return m + half(math.pi * (t - w) / (n - w)) if w <= t < n else right
    if kind == "rises":  # no clamp: the cosine rises again after total
        return m + (1 - m) * half(math.pi * (t - w) / (n - w)) if t >= w else right
    if kind == "linear":  # a linear decay in place of the cosine
        return m + (1 - m) * (1 - (t - w) / (n - w)) if w <= t < n else right
    raise ValueError(kind)


FACTOR_MISTAKES = {
    "late": "the warm-up runs one step ahead: the factor reaches 1 at t = warmup − 1, and "
    "is start_factor + (1 − start_factor)·(t + 1)/warmup before. At t = 0 the factor is "
    "start_factor itself, and it would reach 1 at t = warmup, where the cosine begins",
    "from_zero": "the warm-up starts from 0, not from start_factor: at t = 0 the factor is "
    "start_factor",
    "whole": "the cosine counts its angle from t = 0 over the whole run (π·t/total): it "
    "should start at 1 where the warm-up ends, counting its own steps from there, over total "
    "− warmup steps",
    "no_min": "the cosine falls to 0: min_factor was left out. It falls from 1 to "
    "min_factor, and stays there after total",
    "unscaled": "min_factor was added to the whole half cosine: the cosine's part must be "
    "scaled by 1 − min_factor, so that it falls from 1 (not 1 + min_factor) to min_factor",
    "rises": "after total the factor rises again along the cosine: past total it stays at "
    "min_factor",
    "linear": "this falls along a straight line: the decay is half a cosine, flat at both ends",
}


def factor_case(
    rng: np.random.Generator,
    warmup: int,
    total: int,
    start_factor: float = 0.1,
    min_factor: float = 0.0,
    extra: int = 3,
) -> Case:
    """``warmup_cosine(warmup, total, start_factor, min_factor)(t)`` for t = 0 … total +
    extra."""
    ts = list(range(total + extra + 1))
    want = [pytorch_factor(warmup, total, start_factor, min_factor, t) for t in ts]
    label = (
        f"f = warmup_cosine({warmup}, {total}, start_factor={start_factor}, min_factor="
        f"{min_factor}); f(t) for t = 0 … {ts[-1]}"
    )
    inputs = {
        "warmup": warmup,
        "total": total,
        "start_factor": start_factor,
        "min_factor": min_factor,
        "ts": ts,
    }
    return Case(label, inputs, {"factors": want})


def drawn_factor_case(
    rng: np.random.Generator, what: str, warmup: tuple, length: tuple, extra: int = 3
) -> Case:
    """``factor_case`` with drawn settings (hidden rows): ``warmup`` and the cosine's
    ``length`` drawn in those ranges, start_factor and min_factor in [0, 1]; the label says
    ``what`` kind of schedule, never the drawn numbers."""
    w = int(rng.integers(warmup[0], warmup[1] + 1))
    n = w + int(rng.integers(length[0], length[1] + 1))
    start, low = (float(v) for v in np.round(rng.uniform(0, 1, size=2), 2))
    case = factor_case(rng, w, n, start, low, extra)
    label = (
        f"f = warmup_cosine(warmup, total, start_factor, min_factor), {what}; "
        f"f(t) for t = 0 … total + {extra}"
    )
    return Case(label, case.inputs, case.expected)


def drawn_lr_case(rng: np.random.Generator, groups: int, warmup: tuple, length: tuple) -> Case:
    """``lr_case`` with drawn settings and base lrs (hidden rows)."""
    w = int(rng.integers(warmup[0], warmup[1] + 1))
    n = w + int(rng.integers(length[0], length[1] + 1))
    start, low = (float(v) for v in np.round(rng.uniform(0, 0.5, size=2), 2))
    bases = [float(v) for v in np.round(rng.uniform(0.01, 0.3, size=groups), 3)]
    case = lr_case(rng, w, n, bases, start, low)
    label = (
        f"LambdaLR(SGD({groups} groups, each its own lr), warmup_cosine(warmup, total, "
        "start_factor, min_factor)), total + 2 steps of optimizer.step() then "
        "scheduler.step(), every gradient 1"
    )
    return Case(label, case.inputs, case.expected)


def _factor_mistakes(field: str, scaled: bool) -> list:
    def wrong(kind: str) -> Callable[[Case], Any]:
        def values(case: Case) -> Any:
            p = case.inputs
            args = (p["warmup"], p["total"], p["start_factor"], p["min_factor"])
            if not scaled:
                return [_wrong_factor(kind, *args, t) for t in p["ts"]]
            return [
                [base * _wrong_factor(kind, *args, t) for t in range(p["steps"])]
                for base in p["base_lrs"]
            ]

        return values

    return [Mistake(field, wrong(kind), says) for kind, says in FACTOR_MISTAKES.items()]


def _factor_names(case: Case) -> list:
    return [f"f({t})" for t in case.inputs["ts"]]


FACTORS = first(
    rules((_raised, "warmup_cosine raised {0}: {1}"), keys=["error", "message"]),
    Fields(
        [Field("factors.*", _factor_names, rtol=1e-9, atol=1e-12)],
        mistakes=_factor_mistakes("factors.*", scaled=False),
    ),
)


def lr_case(
    rng: np.random.Generator,
    warmup: int,
    total: int,
    base_lrs: list,
    start_factor: float = 0.1,
    min_factor: float = 0.0,
    extra: int = 2,
) -> Case:
    """``LambdaLR(SGD(groups of base_lrs), warmup_cosine(...))`` over total + extra steps."""
    steps = total + extra
    f = [pytorch_factor(warmup, total, start_factor, min_factor, t) for t in range(steps)]
    want = [[base * v for v in f] for base in base_lrs]
    label = (
        f"LambdaLR(SGD(groups with lr {base_lrs}), warmup_cosine({warmup}, {total}, "
        f"start_factor={start_factor}, min_factor={min_factor})), {steps} steps of "
        "optimizer.step() then scheduler.step(), every gradient 1"
    )
    inputs = {
        "warmup": warmup,
        "total": total,
        "start_factor": start_factor,
        "min_factor": min_factor,
        "base_lrs": list(base_lrs),
        "steps": steps,
    }
    return Case(label, inputs, {"lrs": want, "moved": want})


def _lr_names(what: str) -> Callable[[Case], list]:
    def names(case: Case) -> list:
        return [
            [f"group {i}'s {what} at step {t}" for t in range(case.inputs["steps"])]
            for i in range(len(case.inputs["base_lrs"]))
        ]

    return names


LRS = first(
    rules((_raised, "the loop raised {0}: {1}"), keys=["error", "message"]),
    Fields(
        [
            Field("lrs.*.*", _lr_names("lr"), rtol=1e-9, atol=1e-12),
            Field(
                "moved.*.*",
                _lr_names("step (how far its parameter moved, its gradient being 1)"),
                rtol=1e-7,
                atol=1e-12,
            ),
        ],
        mistakes=_factor_mistakes("lrs.*.*", scaled=True),
    ),
)


EXERCISES = [
    Check(
        "6.11",
        "TrainingStats: activations during training",
        Rows(
            [
                row(stats_case, [3, 4, 2]),
                row(stats_case, [4, 6, 5, 2], steps=4),
                row(stats_case, [3, 5, 2], scale=4.0, final_tanh=True),
            ]
        ),
        programs.stats_run,
        ACTIVATIONS,
        requires=STEPS,
        since=SINCE,
    ),
    Check(
        "6.11",
        "TrainingStats: gradients at each step",
        Rows([row(stats_case, [3, 4, 2]), row(stats_case, [4, 6, 5, 2], steps=4)]),
        programs.stats_run,
        GRADIENTS,
        requires=STEPS,
        since=SINCE,
    ),
    Check(
        "6.11",
        "TrainingStats: update-to-data ratios",
        Rows(
            [
                row(stats_case, [3, 4, 2]),
                row(stats_case, [4, 6, 5, 2], steps=4, lr=0.5),
                row(stats_case, [3, 5, 2], lr=0.01),
            ]
        ),
        programs.stats_run,
        RATIOS,
        requires=STEPS,
        since=SINCE,
    ),
    Check(
        "6.11",
        "TrainingStats: step once, hooks removed",
        Rows([row(stats_case, [3, 4, 2]), row(stats_case, [4, 6, 5, 2], final_tanh=True)]),
        programs.stats_run,
        HOOKS,
        requires=STEPS,
        since=SINCE,
    ),
    Check(
        "6.12",
        "warmup_cosine(warmup, total, start_factor, min_factor)",
        Rows(
            [
                row(factor_case, 4, 12, 0.1, 0.2),
                row(factor_case, 3, 10, 0.25, 0.0),
                row(factor_case, 0, 8, 0.1, 0.1),
                row(factor_case, 5, 6, 0.5, 0.3),
            ]
        ),
        programs.factors,
        FACTORS,
        since=SINCE,
    ),
    Check(
        "6.12",
        "LambdaLR(optimizer, warmup_cosine(...)): the lr of every step",
        Rows([row(lr_case, 3, 9, [0.1, 0.03], 0.2, 0.1), row(lr_case, 2, 6, [0.05])]),
        programs.scheduled_lrs,
        LRS,
        requires=LAMBDA,
        since=SINCE,
    ),
]

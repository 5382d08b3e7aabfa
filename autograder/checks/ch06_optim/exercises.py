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
from ...harness.table import Field, Fields, Mistake, Rows, Text, first, row, rules, say, tr
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
    scaled = (
        tr(f" of inputs scaled by {scale:g}", f"（输入放大 {scale:g} 倍）") if scale != 1 else ""
    )
    label = tr(
        f"stats = TrainingStats(model) on {layers}, then {steps} steps of SGD(lr={lr}) on a "
        f"batch of {batch}{scaled} (forward, zero_grad, backward, stats.step(optimizer)), "
        "stats.remove()",
        f"在 {layers} 上 stats = TrainingStats(model)，然后用 SGD(lr={lr}) 在一批 {batch} 个样本"
        f"{scaled}上训练 {steps} 步（forward、zero_grad、backward、stats.step(optimizer)），"
        "最后 stats.remove()",
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


RAISED = rules(
    (_raised, {"en": "the run raised {0}: {1}", "zh": "运行时抛出了 {0}：{1}"}),
    keys=["error", "message", "calls"],
)


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
                tr(
                    f"stats.activations['{watched[i]}'][{j}]['{key}'] (watched Tanh {i + 1}, "
                    f"forward {j + 1})",
                    f"stats.activations['{watched[i]}'][{j}]['{key}']（第 {i + 1} 个被监视的 "
                    f"Tanh，第 {j + 1} 次前向传播）",
                )
                for j in range(len(values))
            ]
            for i, values in enumerate(want)
        ]

    return names


def _param_names(what: Text) -> Callable[[Case], list]:
    def names(case: Case) -> list:
        want, params, w = case.expected["grads"], case.expected["names"], say(what)
        return [
            [
                tr(f"{w} of '{params[i]}' at step {k + 1}", f"第 {k + 1} 步时 '{params[i]}' 的{w}")
                for k in range(len(values))
            ]
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


ABSENT_MODULE = {
    "en": "stats.activations has no list of rows for the watched module '{0}' (received {1}): "
    "each watched module has its own list, under its name in model.named_modules()",
    "zh": "stats.activations 中没有被监视模块 '{0}' 的行列表（实际收到 {1}）：每个被监视的模块都"
    "有自己的列表，键是它在 model.named_modules() 中的名字",
}
ABSENT_PARAMETER = {
    "en": "stats.{where} has no list for the parameter '{0}' (received {1}): every parameter "
    "of more than one element has its own list, under its name in model.named_parameters()",
    "zh": "stats.{where} 中没有参数 '{0}' 的列表（实际收到 {1}）：每个多于一个元素的参数都有"
    "自己的列表，键是它在 model.named_parameters() 中的名字",
}


def _absent_parameter(where: str) -> dict:
    """ABSENT_PARAMETER about ``stats.<where>``."""
    return {k: v.replace("{where}", where) for k, v in ABSENT_PARAMETER.items()}


INPUT = {
    "en": "your hook measured the module's input (its args), the pre-activation, not its "
    "output: the activations are what the Tanh gave out",
    "zh": "你的钩子测量的是模块的输入（它的 args），即激活前的值，而不是它的输出：激活值是 Tanh "
    "输出的值",
}
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
                    says={
                        "en": f"the fraction of the output's elements with |a| > {SATURATION}",
                        "zh": f"输出中 |a| > {SATURATION} 的元素所占的比例",
                    },
                ),
            ],
            mistakes=[
                Mistake("act_mean.*.*", _mistaken("input_mean"), INPUT),
                Mistake("act_std.*.*", _mistaken("input_std"), INPUT),
                Mistake("act_sat.*.*", _mistaken("input_sat"), INPUT),
                Mistake(
                    "act_std.*.*",
                    _mistaken("sample_std"),
                    {
                        "en": "this is the sample standard deviation (divided by n − 1): the "
                        "contract is NumPy's std over all the elements, divided by n",
                        "zh": "这是样本标准差（除以 n − 1）：约定的是 NumPy 对全部元素求的 std，"
                        "除以 n",
                    },
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
            (_absent("grads"), _absent_parameter("grads")),
            (
                _late,
                {
                    "en": "{0}'s gradient rows are one step late: each is the gradient of the "
                    "step before. They were read before that step's backward had run (at "
                    "a forward); the gradient a step uses exists only once backward is "
                    "done, as stats.step is called",
                    "zh": "{0} 的梯度行晚了一步：每一行都是前一步的梯度。它们是在那一步的反向传"
                    "播运行之前（在前向传播时）读取的；一步所用的梯度只有在反向传播完成后"
                    "才存在，也就是调用 stats.step 的时候",
                },
            ),
            keys=["grads"],
        ),
        Fields(
            [
                Field(
                    "grads.*.*",
                    _param_names({"en": "std(p.grad)", "zh": "梯度标准差 std(p.grad)"}),
                    rtol=1e-6,
                    atol=1e-12,
                )
            ]
        ),
    )
)

RATIOS = _with_measured(
    first(
        RAISED,
        rules(
            (_absent("ratios"), _absent_parameter("ratios")),
            (
                _zero_update,
                {
                    "en": "{0}'s update-to-data ratio is −inf: std(Δp) was 0, so the values "
                    "compared were the same. The values before the step must be a copy of "
                    "their own, taken before optimizer.step(): a copy taken after the "
                    "step, or the parameter's own array (which the step changes in "
                    "place), shows no change",
                    "zh": "{0} 的更新比是 −inf：std(Δp) 为 0，说明比较的两组值是相同的。更新前的"
                    "值必须是在 optimizer.step() 之前拷贝的一份独立副本：在更新之后拷贝，"
                    "或者直接用参数自己的数组（更新会原地修改它），都看不出任何变化",
                },
            ),
            keys=["ratios"],
        ),
        Fields(
            [
                Field(
                    "ratios.*.*",
                    _param_names({"en": "the update-to-data ratio", "zh": "更新比"}),
                    rtol=1e-6,
                    atol=1e-6,
                )
            ],
            mistakes=[
                Mistake(
                    "ratios.*.*",
                    _mistaken("ratio_of_means"),
                    {
                        "en": "this is a ratio of means, log₁₀(|mean(Δp)| / |mean(p)|): means "
                        "cancel (positive and negative entries), spreads do not. The "
                        "ratio compares standard deviations",
                        "zh": "这是均值之比，log₁₀(|mean(Δp)| / |mean(p)|)：均值会相互抵消（正负"
                        "元素），离散程度不会。更新比比较的是标准差",
                    },
                ),
                Mistake(
                    "ratios.*.*",
                    _mistaken("ratio_no_log"),
                    {
                        "en": "this is std(Δp) / std(p) itself, without the log₁₀: the ratio is "
                        "recorded on a log scale, about −3 for a healthy step",
                        "zh": "这是 std(Δp) / std(p) 本身，没有取 log₁₀：更新比按对数尺度记录，"
                        "健康的一步大约是 −3",
                    },
                ),
                Mistake(
                    "ratios.*.*",
                    _mistaken("ratio_ln"),
                    {
                        "en": "this is the natural log of the ratio: the contract is log₁₀, so "
                        "that −3 means a step of a thousandth of the parameter's spread",
                        "zh": "这是比值的自然对数：约定用 log₁₀，这样 −3 表示一步的变化是参数离"
                        "散程度的千分之一",
                    },
                ),
                Mistake(
                    "ratios.*.*",
                    _mistaken("ratio_after"),
                    {
                        "en": "this divides by the spread of p after the step: the ratio "
                        "compares the change with the values it changed, p before the step",
                        "zh": "这里除以的是更新之后 p 的离散程度：更新比是把变化量与被改变的值（"
                        "更新之前的 p）相比",
                    },
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
            {
                "en": "after stats.remove(), {0} hook(s) of the stats are still on the model's "
                "modules: remove() must take off every hook the stats registered (each "
                "one's handle), or every later forward still runs them and the lists keep "
                "growing",
                "zh": "stats.remove() 之后，模型的模块上仍有 {0} 个统计钩子：remove() 必须移除 s"
                "tats 注册的每一个钩子（通过各自的句柄），否则之后的每次前向传播仍会运行它"
                "们，列表也会不断增长",
            },
        ),
        (
            _calls,
            {
                "en": "stats.step(optimizer) called optimizer.step() {0} times in {1} calls: "
                "exactly once per call (the stats watch a step, they do not take more or "
                "fewer)",
                "zh": "stats.step(optimizer) 在 {1} 次调用中调用了 optimizer.step() {0} 次：每次"
                "调用应恰好一次（统计只是观察一步，不多走也不少走）",
            },
        ),
        (
            _returned,
            {
                "en": "stats.step(optimizer) returned {0}, not what optimizer.step() returned "
                "(a closure's loss, for an optimizer given one)",
                "zh": "stats.step(optimizer) 返回了 {0}，而不是 optimizer.step() 的返回值（对于"
                "传入了闭包的优化器，就是闭包的损失）",
            },
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
    "late": {
        "en": "the warm-up runs one step ahead: the factor reaches 1 at t = warmup − 1, and is "
        "start_factor + (1 − start_factor)·(t + 1)/warmup before. At t = 0 the factor is "
        "start_factor itself, and it would reach 1 at t = warmup, where the cosine begins",
        "zh": "预热超前了一步：因子在 t = warmup − 1 时就到达 1，之前是 start_factor + (1 − star"
        "t_factor)·(t + 1)/warmup。t = 0 时因子应就是 start_factor，并在 t = warmup（余弦"
        "开始处）到达 1",
    },
    "from_zero": {
        "en": "the warm-up starts from 0, not from start_factor: at t = 0 the factor is "
        "start_factor",
        "zh": "预热从 0 开始，而不是从 start_factor 开始：t = 0 时因子应是 start_factor",
    },
    "whole": {
        "en": "the cosine counts its angle from t = 0 over the whole run (π·t/total): it should "
        "start at 1 where the warm-up ends, counting its own steps from there, over total "
        "− warmup steps",
        "zh": "余弦从 t = 0 起按整个训练过程计算角度（π·t/total）：它应在预热结束处从 1 开始，从"
        "那里起计自己的步数，共 total − warmup 步",
    },
    "no_min": {
        "en": "the cosine falls to 0: min_factor was left out. It falls from 1 to min_factor, "
        "and stays there after total",
        "zh": "余弦降到了 0：漏掉了 min_factor。它应从 1 降到 min_factor，并在 total 之后保持不变",
    },
    "unscaled": {
        "en": "min_factor was added to the whole half cosine: the cosine's part must be scaled "
        "by 1 − min_factor, so that it falls from 1 (not 1 + min_factor) to min_factor",
        "zh": "min_factor 被加到了整个半余弦上：余弦部分必须乘以 1 − min_factor，这样它才会从 1"
        "（而不是 1 + min_factor）降到 min_factor",
    },
    "rises": {
        "en": "after total the factor rises again along the cosine: past total it stays at "
        "min_factor",
        "zh": "total 之后因子又沿余弦回升了：超过 total 后它应保持在 min_factor",
    },
    "linear": {
        "en": "this falls along a straight line: the decay is half a cosine, flat at both ends",
        "zh": "这是沿直线下降的：衰减应是半个余弦，两端平缓",
    },
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
    call = f"warmup_cosine({warmup}, {total}, start_factor={start_factor}, min_factor={min_factor})"
    label = tr(f"f = {call}; f(t) for t = 0 … {ts[-1]}", f"f = {call}；对 t = 0 … {ts[-1]} 求 f(t)")
    inputs = {
        "warmup": warmup,
        "total": total,
        "start_factor": start_factor,
        "min_factor": min_factor,
        "ts": ts,
    }
    return Case(label, inputs, {"factors": want})


def drawn_factor_case(
    rng: np.random.Generator, what: Text, warmup: tuple, length: tuple, extra: int = 3
) -> Case:
    """``factor_case`` with drawn settings (hidden rows): ``warmup`` and the cosine's
    ``length`` drawn in those ranges, start_factor and min_factor in [0, 1]; the label says
    ``what`` kind of schedule, never the drawn numbers."""
    w = int(rng.integers(warmup[0], warmup[1] + 1))
    n = w + int(rng.integers(length[0], length[1] + 1))
    start, low = (float(v) for v in np.round(rng.uniform(0, 1, size=2), 2))
    case = factor_case(rng, w, n, start, low, extra)
    kind = say(what)
    label = tr(
        f"f = warmup_cosine(warmup, total, start_factor, min_factor), {kind}; "
        f"f(t) for t = 0 … total + {extra}",
        f"f = warmup_cosine(warmup, total, start_factor, min_factor)，{kind}；"
        f"对 t = 0 … total + {extra} 求 f(t)",
    )
    return Case(label, case.inputs, case.expected)


def drawn_lr_case(rng: np.random.Generator, groups: int, warmup: tuple, length: tuple) -> Case:
    """``lr_case`` with drawn settings and base lrs (hidden rows)."""
    w = int(rng.integers(warmup[0], warmup[1] + 1))
    n = w + int(rng.integers(length[0], length[1] + 1))
    start, low = (float(v) for v in np.round(rng.uniform(0, 0.5, size=2), 2))
    bases = [float(v) for v in np.round(rng.uniform(0.01, 0.3, size=groups), 3)]
    case = lr_case(rng, w, n, bases, start, low)
    label = tr(
        f"LambdaLR(SGD({groups} groups, each its own lr), warmup_cosine(warmup, total, "
        "start_factor, min_factor)), total + 2 steps of optimizer.step() then "
        "scheduler.step(), every gradient 1",
        f"LambdaLR(SGD({groups} 个参数组，各有自己的 lr), warmup_cosine(warmup, total, "
        "start_factor, min_factor))，共 total + 2 步，每步先 optimizer.step() 再 "
        "scheduler.step()，梯度都为 1",
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
    rules(
        (_raised, {"en": "warmup_cosine raised {0}: {1}", "zh": "warmup_cosine 抛出了 {0}：{1}"}),
        keys=["error", "message"],
    ),
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
    label = tr(
        f"LambdaLR(SGD(groups with lr {base_lrs}), warmup_cosine({warmup}, {total}, "
        f"start_factor={start_factor}, min_factor={min_factor})), {steps} steps of "
        "optimizer.step() then scheduler.step(), every gradient 1",
        f"LambdaLR(SGD(参数组的 lr 为 {base_lrs}), warmup_cosine({warmup}, {total}, "
        f"start_factor={start_factor}, min_factor={min_factor}))，共 {steps} 步，每步先 "
        "optimizer.step() 再 scheduler.step()，梯度都为 1",
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


def _lr_names(what: Text) -> Callable[[Case], list]:
    def names(case: Case) -> list:
        w = say(what)
        return [
            [
                tr(f"group {i}'s {w} at step {t}", f"第 {t} 步时参数组 {i} 的{w}")
                for t in range(case.inputs["steps"])
            ]
            for i in range(len(case.inputs["base_lrs"]))
        ]

    return names


LRS = first(
    rules(
        (_raised, {"en": "the loop raised {0}: {1}", "zh": "循环抛出了 {0}：{1}"}),
        keys=["error", "message"],
    ),
    Fields(
        [
            Field("lrs.*.*", _lr_names({"en": "lr", "zh": "学习率"}), rtol=1e-9, atol=1e-12),
            Field(
                "moved.*.*",
                _lr_names(
                    {
                        "en": "step (how far its parameter moved, its gradient being 1)",
                        "zh": "步长（参数移动的距离，梯度为 1）",
                    }
                ),
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
        title={"zh": "TrainingStats：训练过程中的激活值"},
    ),
    Check(
        "6.11",
        "TrainingStats: gradients at each step",
        Rows([row(stats_case, [3, 4, 2]), row(stats_case, [4, 6, 5, 2], steps=4)]),
        programs.stats_run,
        GRADIENTS,
        requires=STEPS,
        since=SINCE,
        title={"zh": "TrainingStats：每一步的梯度"},
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
        title={"zh": "TrainingStats：更新比"},
    ),
    Check(
        "6.11",
        "TrainingStats: step once, hooks removed",
        Rows([row(stats_case, [3, 4, 2]), row(stats_case, [4, 6, 5, 2], final_tanh=True)]),
        programs.stats_run,
        HOOKS,
        requires=STEPS,
        since=SINCE,
        title={"zh": "TrainingStats：只走一步，移除钩子"},
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
        title={"zh": "LambdaLR(optimizer, warmup_cosine(...))：每一步的学习率"},
    ),
]

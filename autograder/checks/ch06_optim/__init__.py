"""Public checks for chapter 6 — optimizers, schedules, clipping.

Every expectation is the parent's own (``cases.py``: each update rule, schedule and clipping
rule in plain NumPy, float64); nothing the student wrote, and not the reference, computes
one. Gradients are set by hand and no program runs a backward pass, so these checks judge
chapter 6 alone, whatever the student's chapters 2–5 do.

- 6.1 ``add_param_group`` (defaults filled, a group's own options kept, a Tensor made
  ``[tensor]``, a generator listed, a set / a non-Tensor refused with TypeError, a non-leaf,
  a tensor in two groups and a required option left unset with ValueError) and
  ``zero_grad`` (None; ``set_to_none=False``: new zeros of the gradient's dtype, the old
  object, which another leaf shares, not written into; parameters without one skipped).
- 6.2–6.6 trajectories: several steps on several parameters of different shapes, float64
  and float32, in groups whose options differ, some gradients None (skipped, their state
  untouched), one gradient object given to two parameters; every option of each rule.
  Each step must record no graph node (``Node``s counted while it runs), leave the
  parameters the same leaf objects of the same dtype, never write into ``p.grad``, and
  ``step(closure)`` return the closure's loss. Known mistakes are named (``cases.BUGS``:
  no bias correction, a wrong step count, a buffer made anew, not kept or started from
  zeros, weight decay after the update, no look-ahead, AdamW's decay coupled, a group's
  options ignored, ε inside the square root, and some 50 more), and so is a later step that
  writes into an earlier step's gradient (a state that kept p.grad's own array). 6.5:
  ``Adam.step`` calls
  ``self._weight_decay(p, g, group)`` (an Adam subclass overrides it); 6.6:
  ``AdamW._weight_decay`` called directly, and AdamW trajectories (6.5 required).
- 6.7 ``state_dict`` (keys, indices in order across groups, options, the state copied:
  it does not change as training goes on) and ``load_state_dict`` into a fresh optimizer
  with other options over fresh parameters (float32 from float64 too): the state and step
  counts kept, options restored, parameters kept, then the same values as an
  uninterrupted run; mismatched groups refused (ValueError). The same steps by an optimizer
  never saved nor loaded are judged before the saved state: where they differ, the report
  blames the steps (task 6.2 or 6.5), not the resume.
- 6.8 the five closed forms: lrs at construction (the base: t = 0) and after every step,
  several groups with their own base lrs, LambdaLR with one function per group, a
  milestone listed twice, cosine past T_max.
- 6.9 OneCycleLR: lr and momentum (SGD) or β₁ (Adam, β₂ kept) at every step, cos and
  linear, three_phase, per-group max_lr, epochs × steps_per_epoch, a step past the end
  (a phase's fraction counted from step 0 is named).
- 6.10 clip_grad_norm_ (2-, 1-, ∞- and 3-norms over all gradients together, the total
  returned in the gradients' dtype, the coefficient at most 1, a shared gradient scaled
  once and no gradient written into, error_if_nonfinite, a nan total without it scaling
  every gradient to nan, empty gradients) and clip_grad_value_. Known mistakes are named
  (each gradient clipped by its own norm; Python's min(1.0, nan)).

The checks are one table (``CHECKS``, at the end): each entry its program, its rows, its
verdict and its ``requires``; the hidden checks (the instructor's, course repository only) are
other rows of these entries, by id. The verdicts are declarations: ``Fields`` (tolerances by dtype,
"*" for lists, nested for steps × parameters or groups, the known mistakes as ``Mistake``
rows: each failing step of an update rule is named with the mistake of ``cases.BUGS`` whose
values it has), ``rules`` of (condition → words, the words templates) and ``first`` to chain
them, in the order a student fixes a record. Where a starred field's name, words or
tolerance differ by item (a call of 6.1's script, a parameter at a step), a function of the
case gives them as a list nested as the stars nest. What stays code: which declaration
judges a clipping call (``clip_verdict``), and a state's entries (``_state_problem``: the
names, the step a Python int, the tensors), shared by the update rules and the resume.
Check modules of their own (``training.py``, whose resumed run stays code) add theirs at
``EXTRA``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np

from ...harness.api import Case, Check, compare, show
from ...harness.table import (
    Field,
    Fields,
    Mistake,
    Rows,
    Text,
    first,
    row,
    rules,
    say,
    tr,
    where,
)
from . import programs, training
from .cases import (
    BUG_TEXT,
    BUGS,
    LAMBDAS,
    adamw_decay_case,
    adamw_decayed,
    clip_case,
    clip_norm,
    groups_case,
    groups_of,
    one_cycle,
    one_cycle_case,
    param_names,
    resume_case,
    schedule,
    schedule_case,
    simulate,
    trajectory_case,
    zero_grad_case,
)

GROUPS = ("6.1",)  # every optimizer is built by add_param_group (a stand-in exists)
TOLERANCE = {"float64": (1e-7, 1e-10), "float32": (1e-4, 1e-5)}


def _close(got: Any, want: Any, dtype: str, path: str = "") -> str | None:
    rtol, atol = TOLERANCE.get(dtype, TOLERANCE["float64"])
    return compare(got, want, rtol=rtol, atol=atol, path=path)


def _tolerance(case: Case) -> tuple[float, float]:
    """The tolerances of the case's dtype (``case.expected["dtype"]``)."""
    return TOLERANCE[case.expected["dtype"]]


# -- 6.1 ------------------------------------------------------------------------------------


def _item_text(item: dict) -> str:
    spec = item["params"]
    if isinstance(spec, list):
        shown = f"[{', '.join(spec)}]"
    elif spec.startswith("set:"):
        shown = "{" + ", ".join(spec[4:]) + "}"
    elif spec.startswith("gen:"):
        names = ", ".join(spec[4:])
        shown = tr(f"(a generator of {names})", f"(由 {names} 组成的生成器)")
    elif spec.startswith("str:"):
        shown = f"[a, {spec[4:]!r}]"
    else:
        shown = spec
    own = "".join(f", {k!r}: {v!r}" for k, v in item.items() if k != "params")
    return f"{{'params': {shown}{own}}}"


REFUSED = (  # why a group is refused (cases.groups_case's order): (defaults, item) → the reason
    (
        lambda d, item: str(item["params"]).startswith("set:"),
        {"en": "a set's order changes between runs", "zh": "集合的顺序在不同运行之间会变化"},
    ),
    (
        lambda d, item: str(item["params"]).startswith("str:"),
        {"en": "a string is not a Tensor", "zh": "字符串不是 Tensor"},
    ),
    (
        lambda d, item: "n" in param_names(item["params"]),
        {"en": "n is not a leaf (it has a grad_fn)", "zh": "n 不是叶子节点（它有 grad_fn）"},
    ),
    (
        lambda d, item: any(v == "required" and k not in item for k, v in d.items()),
        {"en": "a required option left unset", "zh": "有一个必需的选项没有设置"},
    ),
    (
        lambda d, item: True,
        {"en": "a tensor already in another group", "zh": "该张量已经在另一个参数组中"},
    ),
)


def _calls(case: Case) -> list[str]:
    """Each call of the script, as a student reads it."""
    calls = []
    for k, item in enumerate(case.inputs["items"]):
        call, given = "add_param_group" if k else "Optimizer([...], defaults)", _item_text(item)
        calls.append(tr(f"{call} with {given} raised", f"以 {given} 调用 {call} 时抛出的异常"))
    return calls


def _why(case: Case) -> list[str]:
    """Each call's words: why its group is refused, or that it is a valid one."""
    items, defaults = case.inputs["items"], case.inputs["defaults"]
    return [
        next(why for shows, why in REFUSED if shows(defaults, item)) if error else VALID
        for item, error in zip(items, case.expected["errors"])
    ]


VALID = {"en": "it is a valid group", "zh": "这是一个合法的参数组"}
KEYS = ("errors", "groups", "shares_list")
GROUPS_MADE = Fields(  # the groups made (a "*" field's length is judged before any field)
    [
        Field(
            "groups.*.params",
            "param_groups[{i}]['params']",
            says={
                "en": "a list: a single Tensor becomes [tensor], an iterable list(...)",
                "zh": "应是一个列表：单个 Tensor 变成 [tensor]，可迭代对象变成 list(...)",
            },
        ),
        Field(
            "groups.*",
            "param_groups[{i}]",
            0,
            0,
            says={
                "en": "a group's own option wins over the default; fill each option it does not "
                "set from self.defaults",
                "zh": "参数组自己的选项优先于默认值；它没有设置的选项从 self.defaults 中补齐",
            },
        ),
    ],
    then=rules(
        (
            lambda case, got: got["shares_list"],
            {
                "en": "param_groups[{got[shares_list][0]}]['params'] is the very list the caller "
                "gave: make a new one (list(params)), or a later change to the caller's list "
                "reaches the optimizer",
                "zh": "param_groups[{got[shares_list][0]}]['params'] 正是调用者传入的那个列表："
                "应新建一个（list(params)），否则调用者之后对这个列表的修改会影响到优化器",
            },
        )
    ),
)
SHARED_DEFAULTS = rules(  # a group that is the defaults dict itself: every later call is off
    (
        lambda case, got: got["defaults_shared"],
        {
            "en": "param_groups[{0[0]}] is self.defaults itself: add_param_group filled the "
            "defaults dict in place, so the groups are one dict (and the defaults change with "
            "each group)",
            "zh": "param_groups[{0[0]}] 就是 self.defaults 本身：add_param_group 原地填充了默认值"
            "字典，于是各参数组是同一个字典（默认值也随每个参数组而改变）",
        },
    ),
    keys=("defaults_shared",),
)
groups_verdict = first(
    SHARED_DEFAULTS, Fields([Field("errors.*", _calls, 0, 0, says=_why)], keys=KEYS), GROUPS_MADE
)


GROUP_SCRIPTS = [
    (
        {"lr": 0.1, "momentum": 0.9},
        [{"params": ["a", "b"], "lr": 0.5}, {"params": ["c"]}],
        {
            "en": "a group's own lr kept, the defaults filled",
            "zh": "保留参数组自己的 lr，补齐默认值",
        },
    ),
    (
        {"lr": 0.1},
        [{"params": ["a"]}, {"params": "b", "lr": 0.2}],
        {"en": "a single Tensor as a group's params", "zh": "单个 Tensor 作为参数组的 params"},
    ),
    (
        {"lr": 0.1},
        [{"params": "gen:ab"}, {"params": ["c", "d"], "lr": 0.3}],
        {"en": "a generator as a group's params", "zh": "生成器作为参数组的 params"},
    ),
    (
        {"lr": 0.1},
        [{"params": ["a"]}, {"params": "tuple:bf", "lr": 0.2}],
        {
            "en": "a tuple as a group's params, with a tensor that does not require grad",
            "zh": "元组作为参数组的 params，其中有一个不需要梯度的张量",
        },
    ),
    (
        {"lr": 0.1},
        [{"params": ["a"]}, {"params": "set:bc"}, {"params": ["d"]}],
        {"en": "a set refused", "zh": "拒绝集合"},
    ),
    (
        {"lr": 0.1},
        [{"params": ["a"]}, {"params": ["n"]}],
        {"en": "a non-leaf refused", "zh": "拒绝非叶子节点"},
    ),
    (
        {"lr": 0.1},
        [
            {"params": ["a", "b"]},
            {"params": ["c"]},
            {"params": ["d", "a"]},
            {"params": ["d", "c"]},
            {"params": ["d"]},
        ],
        {
            "en": "a tensor of the first or the second group refused",
            "zh": "拒绝已在第一或第二个参数组中的张量",
        },
    ),
    (
        {"lr": "required", "momentum": 0.0},
        [{"params": ["a"], "lr": 0.1}, {"params": ["b"]}, {"params": ["c"], "lr": 0.2}],
        {"en": "a required option left unset refused", "zh": "拒绝没有设置必需选项的参数组"},
    ),
    (
        {"lr": 0.1},
        [{"params": ["a"]}, {"params": "str:x"}],
        {"en": "a string among the params refused", "zh": "拒绝 params 中的字符串"},
    ),
]


def _zeroed(case: Case, name: str) -> dict | None:
    """What zero_grad leaves as ``name``'s .grad (programs.zero_grad's record of it)."""
    if case.expected["set_to_none"] or name == "b":
        return None
    shape, dtype = ((1, 2), case.expected["dtype"]) if name == "d" else ((3,), "float64")
    return {"old": False, "values": np.zeros(shape), "dtype": dtype}


def _holds(got: Any, sent: Any, equal_nan: bool = False) -> bool:
    """Whether ``got``, values a program sent back, is an array of exactly ``sent``'s values
    (an array the parent built from the case's inputs): compared here, in the parent."""
    return (
        isinstance(got, np.ndarray)
        and got.dtype.kind in "biuf"
        and np.array_equal(got, sent, equal_nan=equal_nan)
    )


def _old_changed(case: Case, given: Any) -> bool:
    """Whether zero_grad wrote into an old gradient tensor: the values the two it was given
    (a's and c's shared one, d's own) hold after the call against the values sent."""
    sent = (
        np.asarray(case.inputs["shared"], dtype="float64"),
        np.asarray(case.inputs["own"], dtype=case.inputs["dtype"]),
    )
    if not isinstance(given, list) or len(given) != len(sent):
        return True
    return not all(_holds(a, s) for a, s in zip(given, sent))


def _lost(case: Case, got: dict) -> str | None:
    """The first parameter left with no gradient where zeros are expected."""
    return next((n for n in "acd" if got[n] is None and _zeroed(case, n)), None)


ZERO_WORDS = {  # what zero_grad leaves: b (no gradient), or by set_to_none
    "b": {
        "en": "b had no gradient: skip parameters whose grad is None",
        "zh": "b 没有梯度：应跳过 grad 为 None 的参数",
    },
    True: {
        "en": "set_to_none=True sets p.grad to None",
        "zh": "set_to_none=True 时应把 p.grad 设为 None",
    },
    False: {
        "en": "set_to_none=False: a new tensor of zeros of the gradient's own dtype, not the old "
        "object (another leaf may share it)",
        "zh": "set_to_none=False 时：应是一个新的全零张量，数据类型与原梯度相同，而不是原来的"
        "对象（其他叶子节点可能共用它）",
    },
}


def _kept(case: Case, got: dict) -> tuple | None:
    """The first parameter whose .grad zero_grad left as it was (the same tensor: its values
    unchanged, as the rule before this one found), and its group."""
    name = next((n for n in "acd" if isinstance(got[n], dict) and got[n].get("old")), None)
    return None if name is None else (name, 0 if name == "a" else 1)


def _nan_zeros(case: Case, got: dict) -> bool:
    """Whether d's new gradient holds nan where the old one held inf (zeros made as g · 0)."""
    d = got["d"]
    values = d.get("values") if isinstance(d, dict) else None
    return isinstance(values, np.ndarray) and values.dtype.kind == "f" and np.isnan(values).any()


def _zeros_of(case: Case, name: str, dtype: str) -> dict | None:
    """``name``'s new zeros in ``dtype`` where its gradient has another dtype."""
    want = _zeroed(case, name)
    return None if want is None or want["dtype"] == dtype else {**want, "dtype": dtype}


ZERO_GRAD = Fields(
    [
        Field(
            name,
            {"en": f"after zero_grad(), {name}.grad", "zh": f"zero_grad() 之后的 {name}.grad"},
            0,
            0,
            lambda case, name=name: _zeroed(case, name),
            says=lambda case, b=name == "b": ZERO_WORDS["b" if b else case.expected["set_to_none"]],
        )
        for name in "bacd"
    ],
    mistakes=[
        Mistake(
            name,
            partial(_zeros_of, name=name, dtype=dtype),
            {
                "en": f"the new zeros are {dtype}: they are not in the gradient's own dtype",
                "zh": f"新的零张量是 {dtype}：与梯度自身的数据类型不一致",
            },
        )
        for name in "acd"
        for dtype in ("float32", "float64")
    ],
    before=rules(
        (
            lambda case, got: _old_changed(case, got["given"]),
            {
                "en": "zero_grad wrote into the old gradient tensor (another leaf may share it): "
                "set p.grad to a new tensor",
                "zh": "zero_grad 写入了原来的梯度张量（其他叶子节点可能共用它）：应把 p.grad "
                "设为一个新张量",
            },
        ),
        (
            _kept,
            {
                "en": "zero_grad left {0}.grad (a parameter of group {1}) as it was: the same "
                "tensor, its values unchanged",
                "zh": "zero_grad 没有处理 {0}.grad（参数组 {1} 中的参数）："
                "仍是同一个张量，值也没变",
            },
        ),
        (
            _nan_zeros,
            {
                "en": "after zero_grad(set_to_none=False), d.grad holds nan where its old "
                "gradient held inf: zeros made by multiplying g by 0 (inf · 0 is nan) are not "
                "zeros",
                "zh": "zero_grad(set_to_none=False) 之后，d.grad 在原梯度为 inf 的位置是 nan："
                "用 g 乘以 0 得到的“零”并不是零（inf · 0 是 nan）",
            },
        ),
        (
            _lost,
            {
                "en": "after zero_grad(set_to_none=False), {0}.grad is None, expected zeros",
                "zh": "zero_grad(set_to_none=False) 之后，{0}.grad 是 None，期望全零",
            },
        ),
    ),
    keys=("given",),
)


# -- 6.2–6.6 --------------------------------------------------------------------------------


def _per_step(case: Case, item: Callable) -> list:
    """``item(t, i)`` for each step t and each parameter i, nested as "values.*.*"."""
    return [
        [item(t, i) for i in range(len(case.expected.dtypes))] for t in range(case.expected.steps)
    ]


def _after(case: Case, t: int, i: int) -> str:
    k = case.expected.groups[i]
    group = tr(f" (group {k})", f"（参数组 {k}）") if len(case.inputs["groups"]) > 1 else ""
    return tr(f"params[{i}] after step {t + 1}{group}", f"第 {t + 1} 步之后的 params[{i}]{group}")


def _moved(case: Case, t: int, i: int) -> str:
    """Words for params[i] where it had no gradient at step t + 1 and should not have moved."""
    ins, want = case.inputs, case.expected
    before = want.values[t - 1][i] if t else ins["params"][i]
    if ins["grads"][t][i] is not None or _close(before, want.values[t][i], want.dtypes[i]):
        return ""
    return tr(
        f"it has no gradient at step {t + 1} (grad None) and still moved: skip it, state and all",
        f"它在第 {t + 1} 步没有梯度（grad 为 None），却仍然移动了：应跳过它，连同它的状态",
    )


def _bugged(case: Case, bug: str, optimizer: str = "") -> list | None:
    """Every step's values with ``bug``, a mistake (``cases.BUGS``) of ``optimizer``'s, or
    of any optimizer's where the groups have options of their own (none: not told apart)."""
    ins = case.inputs
    own = len(ins["groups"]) > 1 or any(len(g) > 1 for g in ins["groups"])
    if optimizer != ins["optimizer"] and (optimizer or not own):
        return None
    groups = (
        [{**g, "_decay": "double"} for g in ins["groups"]] if ins["contract"] else ins["groups"]
    )
    return simulate(ins["optimizer"], ins["defaults"], groups, ins["params"], ins["grads"], bug)[0]


KEEPS_DTYPE = {"en": "a parameter keeps its dtype", "zh": "参数应保持自己的数据类型"}
STEPS = Fields(  # the dtypes, then each parameter's values after each step, by step
    [
        Field(
            "dtypes.*",
            {"en": "after step(), params[{i}]'s dtype", "zh": "step() 之后 params[{i}] 的数据类型"},
            0,
            0,
            says=KEEPS_DTYPE,
        ),
        Field(
            "values.*.*",
            lambda case: _per_step(case, partial(_after, case)),
            says=lambda case: _per_step(case, partial(_moved, case)),
            tolerance=lambda case: _per_step(case, lambda t, i: TOLERANCE[case.expected.dtypes[i]]),
        ),
    ],
    [  # each optimizer's known mistakes (cases.BUGS), then any optimizer's
        Mistake("values.*.*", partial(_bugged, bug=b, optimizer=o), BUG_TEXT[b])
        for o, bugs in (*BUGS.items(), ("", ["group options ignored"]))  # en-only: bug
        for b in bugs
    ],
)


def _state_problem(got: Any, want: Any, where: Callable, dtype: Callable, step: str) -> Any:
    # a state's entries, by parameter (a list, or a dict by index), against the rule's: their
    # names, a step the same Python int (in the words the tests hold), tensors within dtype(k)'s
    for k, w in want.items() if isinstance(want, dict) else enumerate(want):
        entry = got[k]
        if not isinstance(entry, dict):
            return tr(
                f"{where(k)} is {show(entry)}, expected a dict",
                f"{where(k)} 是 {show(entry)}，期望一个 dict",
            )
        entry = {n: v for n, v in entry.items() if v is not None}  # PyTorch 1.x's None buffers
        if sorted(entry) != sorted(w):
            hint = "" if isinstance(want, dict) else say(NO_STATE) if not w else say(ONLY_USED)
            return tr(
                f"{where(k)} holds {sorted(entry)}, expected {sorted(w)}{hint}",
                f"{where(k)} 含有 {sorted(entry)}，期望 {sorted(w)}{hint}",
            )
        for name, value in w.items():
            got_it, kind = entry[name], type(entry[name]).__name__
            if name == "step" and (got_it != value or kind != "int"):
                return tr(
                    f"{where(k)}['step'] is {show(got_it)} ({kind}), expected {step.format(value)}",
                    f"{where(k)}['step'] 是 {show(got_it)}（{kind}），期望 {step.format(value)}",
                )
            problem = name != "step" and _close(got_it, value, dtype(k), f"{where(k)}[{name!r}]")
            if problem:
                return problem
    return None


NO_STATE = {
    "en": " (this parameter never had a gradient: it gets no state)",
    "zh": "（这个参数从未有过梯度：它不应有状态）",
}
ONLY_USED = {
    "en": " (make only the entries the rule uses, as PyTorch does)",
    "zh": "（只创建更新规则用到的条目，和 PyTorch 一样）",
}


def _final_state(case: Case, received: Any) -> Any:
    """The state after the last step (what state_dict() will save and a resume will need)."""
    return _state_problem(
        received["state"],
        case.expected.state,
        lambda i: tr(
            f"after the last step, state[params[{i}]]", f"最后一步之后的 state[params[{i}]]"
        ),
        lambda i: case.expected.dtypes[i],
        tr(
            "the int {} (a Python int counting this parameter's steps)",
            "整数 {}（一个 Python int，记录这个参数走过的步数）",
        ),
    )


STATE_KEPT = rules(  # the state kept: Tensors, keyed by the parameters themselves
    (
        lambda case, got: got["state_arrays"],
        {
            "en": "after the last step the state holds {0} as bare arrays: keep Tensors in the "
            "state (state_dict() copies them and load_state_dict casts them)",
            "zh": "最后一步之后，状态中的 {0} 是裸数组：状态里应保存 Tensor（state_dict() 会复制"
            "它们，load_state_dict 会转换它们的类型）",
        },
    ),
    (
        lambda case, got: not got["state_keyed"],
        {
            "en": "self.state has keys that are not the parameters: key it by the tensor itself "
            "(self.state[p]), not id(p) or a name, so state_dict() finds each parameter's state",
            "zh": "self.state 的键不是参数本身：应以张量本身为键（self.state[p]），而不是 id(p) "
            "或名字，这样 state_dict() 才能找到每个参数的状态",
        },
    ),
)


TRAJECTORY_KEYS = tuple(  # the record's keys
    "values dtypes objects leaves nodes replaced given kept returned closure_calls "  # en-only
    "decay_calls "
    "state_keyed state_arrays state".split()
)


def _sent_grads(case: Case) -> list:
    """The gradients set before each step, as the program made them from the case's inputs
    (an int: the same tensor as that parameter's at the same step)."""
    steps = []
    for grads in case.inputs["grads"]:
        made: list = []
        for g in grads:
            shared = isinstance(g, int) and not isinstance(g, bool)
            made.append(made[g] if shared else None if g is None else np.asarray(g))
        steps.append(made)
    return steps


def _step_wrote(case: Case, got: dict) -> tuple[int, int] | None:
    """The first step (counted from 1) and parameter whose .grad the step replaced (the
    program's identity test) or wrote into: the values the gradient tensors set before the
    step hold after it (``got["given"]``) against the values sent, compared here."""
    replaced = {tuple(at) for at in got["replaced"] if isinstance(at, list) and len(at) == 2}
    given = got["given"]
    for t, sent in enumerate(_sent_grads(case)):
        after = given[t] if isinstance(given, list) and t < len(given) else None
        for i, s in enumerate(sent):
            if s is None:
                continue
            value = after[i] if isinstance(after, list) and len(after) == len(sent) else None
            if (t, i) in replaced or not _holds(value, s):
                return t + 1, i
    return None


def _later_wrote(case: Case, got: dict) -> tuple[int, int] | None:
    """The first step (counted from 1) and parameter whose gradient, set before that step,
    a later step changed: the values every gradient tensor holds after the last step
    (``got["kept"]``) against the values sent (the state kept the gradient's own array)."""
    kept = got["kept"]
    for t, sent in enumerate(_sent_grads(case)):
        after = kept[t] if isinstance(kept, list) and t < len(kept) else None
        for i, s in enumerate(sent):
            value = after[i] if isinstance(after, list) and len(after) == len(sent) else None
            if s is not None and not _holds(value, s):
                return t + 1, i
    return None


STEPS_KEEP = rules(  # what the steps must leave as it was, and the hook they must call
    (
        lambda case, got: case.expected.decay_calls not in (None, got["decay_calls"]),
        {
            "en": "Adam.step called self._weight_decay {got[decay_calls]} times, expected "
            "{want.decay_calls} (once per parameter with a gradient, at every step): the weight "
            "decay does not go through the hook that AdamW overrides",
            "zh": "Adam.step 调用了 self._weight_decay {got[decay_calls]} 次，期望 "
            "{want.decay_calls} 次（每一步对每个有梯度的参数各调用一次）：权重衰减没有经过 AdamW "
            "重写的那个钩子",
        },
    ),
    (
        lambda case, got: got["nodes"],
        {
            "en": "step() recorded {0} graph nodes: an update is not part of the model; work on "
            "arrays (p.data, p.grad.data, the state's .data) so nothing is recorded",
            "zh": "step() 记录了 {0} 个计算图节点：参数更新不是模型的一部分；应直接操作数组"
            "（p.data、p.grad.data、状态的 .data），这样就不会记录任何节点",
        },
    ),
    (
        lambda case, got: not got["leaves"],
        {
            "en": "after step() a parameter is no longer a leaf that requires grad: change p.data "
            "in place",
            "zh": "step() 之后，有参数不再是需要梯度的叶子节点：应原地修改 p.data",
        },
    ),
    (
        _step_wrote,
        {
            "en": "step {0} wrote into params[{1}].grad (or replaced it): never change p.grad, one "
            "gradient tensor may be the .grad of several leaves (g = g + λp makes a new array)",
            "zh": "第 {0} 步写入（或替换）了 params[{1}].grad：不要改动 p.grad，同一个梯度张量可能"
            "是多个叶子节点的 .grad（g = g + λp 会创建新数组）",
        },
    ),
    (
        _later_wrote,
        {
            "en": "the gradient tensor params[{1}].grad held at step {0} was changed by a later "
            "step: the state keeps that gradient's own array (not a copy) and the next step "
            "updates it in place",
            "zh": "第 {0} 步时 params[{1}].grad 持有的梯度张量被之后的某一步改动了：状态保存的是"
            "这个梯度自己的数组（而不是副本），下一步又原地更新了它",
        },
    ),
    (
        lambda case, got: not got["objects"],
        {
            "en": "after step() param_groups holds other objects than the parameters given",
            "zh": "step() 之后，param_groups 中存放的不再是传入的那些参数对象",
        },
    ),
    keys=TRAJECTORY_KEYS,
)
STEPS_DO = rules(  # what the steps must do besides
    (
        lambda case, got: case.expected.closure and got["closure_calls"] != case.expected.steps,
        {
            "en": "step(closure) called the closure {got[closure_calls]} times in {want.steps} "
            "steps, expected once per step",
            "zh": "step(closure) 在 {want.steps} 步中调用了闭包 {got[closure_calls]} 次，"
            "期望每步一次",
        },
    ),
    (
        lambda case, got: (
            case.expected.closure
            and got["returned"] != _losses(case)
            and (show(got["returned"]), show(_losses(case)))
        ),
        {
            "en": "step(closure) returned {0}, expected the closure's losses {1}",
            "zh": "step(closure) 返回了 {0}，期望闭包的损失 {1}",
        },
    ),
)


def _losses(case: Case) -> list[float]:
    """The closure's losses, one per step."""
    return [0.5 + t for t in range(case.expected.steps)]


trajectory_verdict = first(
    STEPS_KEEP,
    STEPS,
    where(lambda case: case.expected.state is not None, first(STATE_KEPT, _final_state)),
    STEPS_DO,
)


def _decayed(case: Case, bug: str) -> Any:
    """p after AdamW._weight_decay with ``bug`` (a mistake of ``cases.BUGS["AdamW"]``)."""
    ins, want = case.inputs, case.expected
    return adamw_decayed(want["p0"], want["g"], ins["lr"], want["wd"], {}, bug)


ADAMW_DECAY = Fields(  # AdamW._weight_decay called directly: g returned as it is, p scaled
    [
        Field(
            "returned",
            {"en": "the returned gradient", "zh": "返回的梯度"},
            expected=lambda case: case.expected["g"],
            tolerance=_tolerance,
            says={"en": "AdamW returns g unchanged", "zh": "AdamW 应原样返回 g"},
        ),
        Field(
            "p",
            {"en": "p after _weight_decay", "zh": "_weight_decay 之后的 p"},
            tolerance=_tolerance,
            says={
                "en": "p.data *= 1 − lr·λ, before the update",
                "zh": "在更新之前执行 p.data *= 1 − lr·λ",
            },
        ),
    ],
    mistakes=[
        Mistake(
            "returned",
            lambda case: case.expected["g"] + case.expected["wd"] * case.expected["p0"],
            {
                "en": "that is g + λp, Adam's coupled decay; AdamW returns g unchanged",
                "zh": "这是 g + λp，即 Adam 的耦合衰减；AdamW 应原样返回 g",
            },
        ),
        Mistake(
            "returned",
            lambda case: case.expected["g"] + case.expected["wd"] * case.expected["p"],
            {
                "en": "that is g + λp with p already scaled: the decay is done twice, p scaled "
                "and λp also added to the gradient",
                "zh": "这是用已缩放的 p 算出的 g + λp：衰减做了两次，既缩放了 p，又把 λp 加到了"
                "梯度上",
            },
        ),
        *(
            Mistake("p", partial(_decayed, bug=bug), BUG_TEXT[bug])
            for bug in BUGS["AdamW"]
            if bug.startswith("AdamW decay") and "defaults" not in bug  # en-only: bug names
        ),
    ],
    before=rules(
        (
            lambda case, got: (
                not _holds(got["g"], np.asarray(case.inputs["g"], dtype=case.inputs["dtype"]))
            ),
            {
                "en": "AdamW._weight_decay wrote into the gradient array: return g unchanged",
                "zh": "AdamW._weight_decay 写入了梯度数组：应原样返回 g",
            },
        ),
        (
            lambda case, got: got["dtype"] != case.expected["dtype"],
            {
                "en": "p is {got[dtype]} after _weight_decay, expected {want[dtype]}",
                "zh": "_weight_decay 之后 p 是 {got[dtype]}，期望 {want[dtype]}",
            },
        ),
    ),
    keys=("returned", "p", "dtype", "g"),
)


traj = partial(row, trajectory_case)


def rule(
    task: str,
    name: str,
    *rows: Callable,
    requires: tuple = GROUPS,
    id: str = "",
    title: dict | None = None,
) -> Check:
    """An update rule's check: trajectories (``traj`` rows), judged step by step; ``title``:
    its name in the other languages (``Check.title``)."""
    check = Check(task, name, Rows(rows), programs.trajectory, trajectory_verdict, requires, id)
    return replace(check, title=title) if title else check


S3, S22, S4 = (3,), (2, 2), (4,)  # parameters' shapes
ONE, PAIR, TRIO = [([0], {})], [([0, 1], {})], [([0, 1, 2], {})]  # one group of 1, 2, 3
MIXED = ["float64", "float32", "float64"]
EMPTY = {
    "en": "clip_grad_norm_(params, max_norm=1.0) on float64 gradients that are all empty: total 0",
    "zh": "clip_grad_norm_(params, max_norm=1.0)，作用于全部为空的 float64 梯度：总范数为 0",
}


# -- 6.7 ------------------------------------------------------------------------------------


def _dtype(case: Case, loose: bool = False) -> str:
    """The run's dtype; ``loose``: float32 where the run or the loaded parameters are."""
    dtypes = (str(np.asarray(case.inputs["params"][0]).dtype), case.expected.load_dtypes[0])
    return "float32" if "float32" in dtypes[: 1 + loose] else "float64"


def _saved_state(what: Text, key: str, loose: bool = False) -> Callable:
    """The verdict on a state_dict()'s state (``received[key]``'s, by index): its indices,
    then its entries (within float32's tolerance where ``loose`` and either run is)."""

    def verdict(case: Case, received: Any) -> Any:
        got, want, named = received[key], case.expected.state, say(what)
        got = got.get("state") if isinstance(got, dict) else got
        if not isinstance(got, dict):
            return tr(
                f"{named}['state'] is {show(got)}, expected a dict by index",
                f"{named}['state'] 是 {show(got)}，期望一个以索引为键的 dict",
            )
        if sorted(got) != sorted(want):
            return tr(
                f"{named}['state'] has the indices {sorted(got)}, expected {sorted(want)} (each "
                "parameter with a state, by its position across the groups)",
                f"{named}['state'] 的索引是 {sorted(got)}，期望 {sorted(want)}（每个有状态的参数，"
                "按它在所有参数组中的位置编号）",
            )
        where, dtype = (lambda k: f"{named}['state'][{k}]"), _dtype(case, loose)
        return _state_problem(got, want, where, lambda k: dtype, say(STEP_KEPT))

    return verdict


STEP_KEPT = {
    "en": "{} (keep the step count, a Python int)",
    "zh": "{}（保存步数，一个 Python int）",
}
RESUME_KEYS = tuple(  # the record's keys
    "saved saved_later loaded state_dtypes options same_params final dtypes "  # en-only: keys
    "refused error "
    "kept_groups load_error loaded_keyed straight".split()
)
OWN_TASK = {"SGD": "6.2", "Adam": "6.5"}  # the task of the update rule a resume case steps with
SAVED = "state_dict()['param_groups'][{i}]"


def _moved_state(case: Case, got: dict) -> str | None:
    """Where the loaded state's entries at an index are another index's saved ones: the saved
    states given to the wrong parameters."""
    loaded, want = got["loaded"], case.expected.state
    states = loaded.get("state") if isinstance(loaded, dict) else None
    if not isinstance(states, dict):
        return None
    dtype = _dtype(case, loose=True)
    for k, entry in states.items():
        if k not in want or not _state_problem({k: entry}, {k: want[k]}, str, lambda k: dtype, ""):
            continue
        for j, other in want.items():
            if j != k and not _state_problem({k: entry}, {k: other}, str, lambda k: dtype, ""):
                return tr(
                    f"parameter {k} holds the state saved for parameter {j}: each saved state "
                    "goes to the parameter at its index, whatever the order of the saved state",
                    f"参数 {k} 拿到了为参数 {j} 保存的状态：每个保存的状态都应交给对应索引处的"
                    "参数，不论保存的状态顺序如何",
                )
    return None


def _look_first(case: Case) -> str:
    """Where the steps alone differ: the resume is not the cause, the update rule's task is."""
    n = OWN_TASK.get(case.inputs["optimizer"])
    task = (
        tr(f"task {n}", f"任务 {n}")
        if n
        else tr("the optimizer's own task", "这个优化器自己的任务")
    )
    return tr(
        f"the steps themselves differ from the reference's, with no save and load at all: look at "
        f"{task} first",
        f"这些步骤本身就与参考实现不同，与保存和加载无关：先检查{task}",
    )


def _own_options(case: Case) -> list:
    """Each group's options in the optimizer that loads (programs.resume: its lr is 7 times
    the case's default), as they are where load_state_dict keeps them."""
    ins = case.inputs
    other = {**ins["defaults"], "lr": ins["defaults"].get("lr", 1e-3) * 7}
    options = groups_of(ins["optimizer"], other, ins["groups"])
    return [{**o, "betas": list(o["betas"])} if "betas" in o else o for o in options]


resume_verdict = first(
    rules(
        (
            lambda case, got: (
                (
                    not isinstance(got["saved"], dict)
                    or got["saved"].get("keys") != ["param_groups", "state"]
                )
                and show(got["saved"])
            ),
            {
                "en": "state_dict() returned {0}, expected a dict with 'state' and 'param_groups'",
                "zh": "state_dict() 返回了 {0}，期望一个含有 'state' 和 'param_groups' 的 dict",
            },
        ),
        (
            lambda case, got: not all(got["kept_groups"]),
            {
                "en": "state_dict() changed this optimizer's own param_groups (they hold no "
                "longer its parameters): the groups it returns are the live ones, not new dicts",
                "zh": "state_dict() 改动了这个优化器自己的 param_groups（其中存放的不再是它的"
                "参数）：它返回的是正在使用的参数组，而不是新的字典",
            },
        ),
        (
            lambda case, got: got["saved"].get("int_keys") is False,
            {
                "en": "state_dict()['state'] is keyed by something other than int indices: key "
                "each parameter's state by its int position across the groups, as PyTorch does",
                "zh": "state_dict()['state'] 的键不是 int 索引：应像 PyTorch 那样，以参数在所有"
                "参数组中的 int 位置作为它的状态的键",
            },
        ),
        (
            lambda case, got: isinstance(got["straight"], str) and got["straight"],
            {
                "en": "step() raised {0} in a run of the same steps never saved nor loaded",
                "zh": "在走同样的步骤、但从未保存或加载的一次运行中，step() 抛出了 {0}",
            },
        ),
        keys=RESUME_KEYS,
    ),
    # the steps alone, never saved nor loaded: where they differ, the resume is not the cause
    Fields(
        [
            Field(
                "straight.*",
                {
                    "en": "the same steps by an optimizer never saved nor loaded: params[{i}]",
                    "zh": "让一个从未保存或加载过的优化器走同样的步数，params[{i}]",
                },
                tolerance=lambda case: TOLERANCE[_dtype(case, loose=True)],
                expected=lambda case: [  # in the run's own dtype
                    np.asarray(f).astype(np.asarray(p).dtype)
                    for f, p in zip(case.expected.final, case.inputs["params"])
                ],
                says=_look_first,
            ),
        ]
    ),
    Fields(
        [
            Field(
                "saved.param_groups.*.params",
                SAVED + "['params']",
                0,
                0,
                lambda case: [{"params": ix} for ix in case.expected.indices],
                says={
                    "en": "each parameter's index in order of first appearance across the groups",
                    "zh": "每个参数的索引，按它在各参数组中首次出现的顺序编号",
                },
            ),
            Field(
                "saved.param_groups.*", SAVED, *TOLERANCE["float64"], lambda c: c.expected.options
            ),
        ],
    ),
    _saved_state("state_dict()", "saved"),
    rules(
        (
            _saved_state("state_dict()", "saved_later"),
            {
                "en": "the dict state_dict() returned changed as training went on: copy the state "
                "tensors (the snapshot must not share arrays with the optimizer, nor with the one "
                "that loads it)",
                "zh": "state_dict() 返回的字典随着训练继续而改变了：应复制状态张量（快照既不能与"
                "这个优化器共用数组，也不能与加载它的优化器共用）",
            },
        )
    ),
    rules(
        (
            lambda case, got: got["load_error"],
            {
                "en": "load_state_dict raised {got[load_error]}",
                "zh": "load_state_dict 抛出了 {got[load_error]}",
            },
        ),
        (
            lambda case, got: not all(got["same_params"]),
            {
                "en": "after load_state_dict, param_groups no longer hold this optimizer's own "
                "parameters",
                "zh": "load_state_dict 之后，param_groups 中存放的不再是这个优化器自己的参数",
            },
        ),
        (
            lambda case, got: not got["loaded_keyed"],
            {
                "en": "after load_state_dict, self.state has keys that are not the parameters "
                "themselves, where step() and state_dict() look each state up by its parameter",
                "zh": "load_state_dict 之后，self.state 的键不是参数本身，而 step() 和 "
                "state_dict() 是按参数来查找每个状态的",
            },
        ),
        (_moved_state, {"en": "after load_state_dict, {0}", "zh": "load_state_dict 之后，{0}"}),
    ),
    _saved_state(
        {"en": "after load_state_dict, state_dict()", "zh": "load_state_dict 之后，state_dict()"},
        "loaded",
        loose=True,
    ),
    rules(
        (
            lambda case, got: (
                case.expected.state and got["state_dtypes"] != case.expected.load_dtypes[:1]
            ),
            {
                "en": "after loading into {want.load_dtypes[0]} parameters the state tensors are "
                "{got[state_dtypes]}: cast floating state to the parameter's dtype",
                "zh": "加载到 {want.load_dtypes[0]} 参数之后，状态张量是 {got[state_dtypes]}："
                "应把浮点状态转换为参数的数据类型",
            },
        ),
        (
            lambda case, got: got["error"],
            {
                "en": "after load_state_dict, step() raised {got[error]}",
                "zh": "load_state_dict 之后，step() 抛出了 {got[error]}",
            },
        ),
    ),
    Fields(
        [
            Field(
                "options.*",
                {
                    "en": "after load_state_dict, param_groups[{i}]",
                    "zh": "load_state_dict 之后的 param_groups[{i}]",
                },
                *TOLERANCE["float64"],
                lambda case: case.expected.options,
                says={
                    "en": "the saved group's options are not the ones restored",
                    "zh": "恢复的不是保存的参数组的选项",
                },
            ),
            Field(
                "final.*",
                {
                    "en": "resumed after load_state_dict, then stepped: params[{i}]",
                    "zh": "用 load_state_dict 恢复后再走几步：params[{i}]",
                },
                tolerance=lambda case: TOLERANCE[_dtype(case, loose=True)],
                says={
                    "en": "the same steps without the save and load give the expected value: the "
                    "resumed run does not go on where the saved one stopped",
                    "zh": "不保存、不加载地走同样的步骤能得到期望值：恢复后的运行没有从保存时停下的"
                    "地方接着走",
                },
            ),
            Field(
                "dtypes",
                {
                    "en": "the loaded parameters' dtypes at the end",
                    "zh": "最后加载的参数的数据类型",
                },
                0,
                0,
                lambda c: c.expected.load_dtypes,
            ),
            Field(
                "refused.0",
                {
                    "en": "load_state_dict of a state_dict with another number of groups",
                    "zh": "load_state_dict 加载参数组个数不同的 state_dict",
                },
                expected=lambda c: "ValueError",
            ),
            Field(
                "refused.1",
                {
                    "en": "load_state_dict of a state_dict with a group of another size",
                    "zh": "load_state_dict 加载某个参数组大小不同的 state_dict",
                },
                expected=lambda c: "ValueError",
            ),
        ],
        mistakes=[
            Mistake(
                "options.*",
                _own_options,
                {
                    "en": "these are the loading optimizer's own options: load_state_dict kept "
                    "them, not the saved groups' options",
                    "zh": "这些是执行加载的优化器自己的选项：load_state_dict 保留了它们，而不是"
                    "保存的参数组的选项",
                },
            )
        ],
    ),
)


# -- 6.8, 6.9 -------------------------------------------------------------------------------


def under(key: str, verdict: Callable) -> Callable:
    """``verdict`` judging a program's bare value as the record ``{key: value}``."""
    return lambda case, received: verdict(case, {key: received})


LR = (1e-9, 1e-12)  # an lr's tolerances (rtol, atol)
SHIFTED = {
    "en": "the schedule is {}: t = last_epoch, 0 when the scheduler is made, and the lr at t = 0 "
    "is the formula's value for t = 0",
    "zh": "调度{}：t = last_epoch，创建调度器时为 0，t = 0 时的 lr 就是公式在 t = 0 处的值",
}


def _rows(case: Case, lr: Callable) -> list:
    """Every group's lr at t = 0 … steps by ``lr(options, base, t, j)``."""
    ins = case.inputs
    return [
        [lr(ins["options"], b, t, j) for j, b in enumerate(ins["base_lrs"])]
        for t in range(ins["steps"] + 1)
    ]


def _wrong(kind: str, lr: Callable) -> Callable:
    """A schedule's known mistake: each lr by ``lr`` where the case's schedule is ``kind``."""
    return lambda case: _rows(case, lr) if case.inputs["kind"] == kind else None


def _gamma(o: dict) -> float:
    return o.get("gamma", 0.1)


def _cosine(o: dict, b: float, t: float, period: float, half: float = 0.5) -> float:
    low = o.get("eta_min", 0.0)
    return low + (b - low) * (1 + math.cos(math.pi * t / period)) * half


def _first_base(case: Case) -> list | None:
    """Every group's lrs from group 0's base lr (where the groups' bases differ)."""
    ins = case.inputs
    bases = ins["base_lrs"]
    if len(set(bases)) < 2:
        return None
    return [
        schedule(ins["kind"], [bases[0]] * len(bases), ins["options"], t)
        for t in range(ins["steps"] + 1)
    ]


def _first_function(case: Case) -> list | None:
    """LambdaLR's lrs with group 0's function for every group (where each has its own)."""
    ins = case.inputs
    specs = ins["options"].get("lr_lambda") if ins["kind"] == "LambdaLR" else None
    if not specs or not isinstance(specs[0], list):
        return None
    options = {**ins["options"], "lr_lambda": [specs[0]] * len(specs)}
    return [schedule("LambdaLR", ins["base_lrs"], options, t) for t in range(ins["steps"] + 1)]


def _compounded(o: dict, b: float, t: int, j: int) -> float:
    """LambdaLR's lr made from the current lr: the base times λ(0)·λ(1)·…·λ(t)."""
    specs = o["lr_lambda"]
    kind, a = specs[j] if isinstance(specs[0], list) else specs
    return b * math.prod(LAMBDAS[kind](a, k) for k in range(t + 1))


SCHEDULE_MISTAKES = [  # the known mistakes of each closed form, then of any schedule
    (
        _wrong("ExponentialLR", lambda o, b, t, j: b * o["gamma"] ** (t + 1)),
        {
            "en": "the schedule is one step ahead, base·γ^(t + 1) (as the current lr times γ "
            "gives: the scheduler takes its first step when it is made); at t = 0 the lr "
            "is the base lr",
            "zh": "调度超前了一步，base·γ^(t + 1)（用当前 lr 乘以 γ 就会这样：调度器在创建时就走"
            "了第一步）；t = 0 时 lr 应是基础学习率",
        },
    ),
    (
        _wrong("ExponentialLR", lambda o, b, t, j: b * (1 - (1 - o["gamma"]) * t)),
        {
            "en": "the lr falls by the same amount each step, base·(1 − (1 − γ)t): it falls by "
            "the same factor γ",
            "zh": "lr 每步下降相同的量，base·(1 − (1 − γ)t)：它应每步乘以相同的因子 γ",
        },
    ),
    (
        _wrong(
            "MultiStepLR", lambda o, b, t, j: b * _gamma(o) ** sum(m < t for m in o["milestones"])
        ),
        {
            "en": "the lr drops one step after each milestone: a milestone m counts from t = m "
            "itself",
            "zh": "lr 在每个里程碑之后一步才下降：里程碑 m 应从 t = m 起就生效",
        },
    ),
    (
        _wrong(
            "MultiStepLR",
            lambda o, b, t, j: b * _gamma(o) ** sum(m <= t for m in set(o["milestones"])),
        ),
        {
            "en": "a milestone listed twice counts once: each listing multiplies the lr by γ",
            "zh": "列出两次的里程碑只算了一次：每列出一次，lr 就应乘一次 γ",
        },
    ),
    (
        _wrong("MultiStepLR", lambda o, b, t, j: b * _gamma(o) ** (t in o["milestones"])),
        {
            "en": "γ applies only at a milestone step itself: every milestone reached so far "
            "keeps counting",
            "zh": "γ 只在里程碑那一步生效：所有已经到达的里程碑都应一直计入",
        },
    ),
    (
        _wrong("StepLR", lambda o, b, t, j: b * _gamma(o) ** round(t / o["step_size"])),
        {
            "en": "the lr drops one step ahead, where a period is half over (t / step_size "
            "rounded, or t + 1 taken for t, gives that): only whole periods count",
            "zh": "lr 下降得太早，在周期过半时就下降了（把 t / step_size 四舍五入，或者把 t + 1 "
            "当作 t，都会这样）：只有完整的周期才算数",
        },
    ),
    (
        _wrong(
            "StepLR",
            lambda o, b, t, j: b * _gamma(o) ** ((t - 1) // o["step_size"] + (t > 0)),
        ),
        {
            "en": "the lr drops at t = 1 already: the first drop comes at t = step_size",
            "zh": "lr 在 t = 1 时就下降了：第一次下降应在 t = step_size",
        },
    ),
    (
        _wrong("CosineAnnealingLR", lambda o, b, t, j: _cosine(o, b, t, o["T_max"] - 1)),
        {
            "en": "the cosine's half period is T_max − 1: the lr reaches η_min at t = T_max",
            "zh": "余弦的半周期是 T_max − 1：lr 应在 t = T_max 时到达 η_min",
        },
    ),
    (
        _wrong(
            "CosineAnnealingLR",
            lambda o, b, t, j: (
                o.get("eta_min", 0.0) + b * (1 + math.cos(math.pi * t / o["T_max"])) / 2
            ),
        ),
        {
            "en": "η_min is added to the whole base lr's cosine: the cosine spans base lr − "
            "η_min, so the lr starts at the base lr",
            "zh": "η_min 被加到了整个基础学习率的余弦上：余弦的幅度应是 base lr − η_min，这样 lr"
            " 才从基础学习率开始",
        },
    ),
    (
        _wrong(
            "CosineAnnealingLR", lambda o, b, t, j: _cosine(o, b, min(t, o["T_max"]), o["T_max"])
        ),
        {
            "en": "after T_max the lr stays at η_min: the closed form goes on, the cosine "
            "rising again",
            "zh": "T_max 之后 lr 停在了 η_min：闭式公式应继续下去，余弦会再次上升",
        },
    ),
    (
        _wrong("CosineAnnealingLR", lambda o, b, t, j: _cosine(o, b, t, o["T_max"], 1.0)),
        {
            "en": "the cosine's factor is 1 + cos(πt/T_max), up to 2: it is halved, so the lr "
            "starts at the base lr",
            "zh": "余弦因子是 1 + cos(πt/T_max)，最大为 2：它应减半，这样 lr 才从基础学习率开始",
        },
    ),
    (
        _first_function,
        {
            "en": "every group follows group 0's function: each group has its own λ",
            "zh": "每个参数组都用了参数组 0 的函数：每个参数组有自己的 λ",
        },
    ),
    (
        _wrong("LambdaLR", _compounded),
        {
            "en": "the lr is the current lr times λ(t), which compounds: it is the base lr "
            "times λ(t)",
            "zh": "lr 是当前 lr 乘以 λ(t)，这样会累乘：它应是基础学习率乘以 λ(t)",
        },
    ),
    (
        _first_base,
        {
            "en": "every group's lr follows group 0's base lr: each group scales its own",
            "zh": "每个参数组的 lr 都跟随参数组 0 的基础学习率：每个参数组应缩放自己的基础学习率",
        },
    ),
    (
        lambda case: [*case.expected[1:], None],
        {"en": SHIFTED["en"].format("one step ahead"), "zh": SHIFTED["zh"].format("超前了一步")},
    ),
    (
        lambda case: [None, *case.expected],
        {"en": SHIFTED["en"].format("one step behind"), "zh": SHIFTED["zh"].format("落后了一步")},
    ),
]
ROWS = "rows of lrs"  # en-only: the record's key (under)
schedule_verdict = under(
    ROWS,
    Fields(
        [
            Field(
                f"{ROWS}.*.*",
                {"en": "the lr of group {j} at t = {i}", "zh": "t = {i} 时参数组 {j} 的 lr"},
                *LR,
                lambda case: case.expected,
            )
        ],
        mistakes=[Mistake(f"{ROWS}.*.*", wrong, says) for wrong, says in SCHEDULE_MISTAKES],
    ),
)


def _cycled(case: Case, bug: str, first_group: bool = False) -> list:
    """OneCycleLR's rows (lr and momentum) with ``bug``, a known mistake of
    ``cases.one_cycle``; ``first_group``: every group with group 0's values."""
    ins = case.inputs
    lrs = ins["max_lr"] if isinstance(ins["max_lr"], list) else [ins["max_lr"]] * ins["groups"]
    if first_group:
        if len(set(lrs)) < 2:
            return None
        lrs = [lrs[0]] * len(lrs)
    rows = [
        [one_cycle(ins["steps"], m, t, ins["options"], bug) for m in lrs]
        for t in range(ins["steps"] + 1)
    ]
    return [{"lr": [r[0] for r in row], "momentum": [r[1] for r in row]} for row in rows]


def _held(case: Case) -> list:
    """Each group's lr from the last phase's end step on as it was the step before (no phase
    taken there)."""
    end = case.inputs["steps"] - 1
    return [
        {"lr": case.expected[t - 1]["lr"]} if t >= end else None for t in range(len(case.expected))
    ]


def _first_group_cycled(case: Case) -> list | None:
    """The momenta where only group 0's is cycled: the others stay at their first value."""
    if case.inputs["groups"] < 2:
        return None
    first = case.expected[0]["momentum"]
    return [{"momentum": [row["momentum"][0], *first[1:]]} for row in case.expected]


CYCLE_LR = [  # (the mistake, what it says) of the lr
    ("fraction from 0", None),
    (
        "fraction one short",  # en-only: bug
        {
            "en": "the phase fraction never reaches 1: it divides by the phase's length plus one, "
            "(t − start) / (end − start + 1)",
            "zh": "阶段进度永远到不了 1：它除以的是阶段长度加一，(t − start) / (end − start + 1)",
        },
    ),
    (
        "fraction over the end",  # en-only: bug
        {
            "en": "the phase fraction divides by the phase's end step: it divides by its length, "
            "end − start",
            "zh": "阶段进度除以的是阶段的结束步：应除以阶段长度，end − start",
        },
    ),
    (
        "phases backwards",
        {
            "en": "each phase runs backwards, from its end value to its start value",
            "zh": "每个阶段都反着走，从结束值走向起始值",
        },
    ),
    (
        "always cos",
        {
            "en": "the lr follows a cosine where anneal_strategy='linear'",
            "zh": "anneal_strategy='linear' 时 lr 却按余弦变化",
        },
    ),
]
CYCLE_MOMENTUM = [
    (
        "momentum backwards",
        {
            "en": "the momentum runs the wrong way in each phase, from its end value to its start "
            "value: it falls while the lr rises",
            "zh": "动量在每个阶段都走反了，从结束值走向起始值：lr 上升时动量应下降",
        },
    ),
    (
        "momentum linear",
        {
            "en": "the momentum moves linearly where anneal_strategy='cos'",
            "zh": "anneal_strategy='cos' 时动量却线性变化",
        },
    ),
]


def _momentum(case: Case) -> str:
    return "β₁" if case.inputs["beta1"] else tr("momentum", "动量")


def _cycles(case: Case) -> bool:
    return case.expected[0]["momentum"] is not None


def _beta2(case: Case) -> list:
    """β₂ at every step: kept at 0.999 (None where the optimizer has momentum, not betas)."""
    kept = [0.999] * case.inputs["groups"] if case.inputs["beta1"] else None
    return [{"beta2": kept}] * len(case.expected)


FROM_ZERO = {
    "en": "the phase fraction counts from the phase's start, pct = (t − start) / (end − start), "
    "start the step where the previous phase ended (t / end holds in the first phase only)",
    "zh": "阶段进度应从阶段的起点算起，pct = (t − start) / (end − start)，start 是上一阶段结束的"
    "那一步（t / end 只在第一阶段成立）",
}
NEVER_CYCLED = rules(  # a momentum (β₁) the same at every step
    (
        lambda case, got: (
            _cycles(case)
            and all(r["momentum"] == got["rows"][0]["momentum"] for r in got["rows"])
            and show(got["rows"][0]["momentum"])
        ),
        {
            "en": "{m} is {0} at every step: {m} is never cycled (set it from the same phase "
            "and fraction)",
            "zh": "{m} 每一步都是 {0}：{m} 从未循环变化（应与 lr 按同一个阶段和进度来设置它）",
        },
    ),
    facts=lambda case, got: {"m": _momentum(case)},
)
one_cycle_verdict = Fields(  # each group's lr at every step, then momentum (β₁, β₂ kept)
    [
        Field(
            "rows.*.lr.*",
            {"en": "lr of group {j} at t = {i}", "zh": "t = {i} 时参数组 {j} 的 lr"},
            *LR,
            lambda case: case.expected,
        )
    ],
    [
        Mistake(
            "rows.*.lr.*",
            _held,
            {
                "en": "from the last phase's end on the lr stays where it was the step before: "
                "no phase was taken there (the last phase covers every step after the one "
                "before it)",
                "zh": "从最后一个阶段的结束步起，lr 停在了前一步的值：那里没有选中任何阶段（最后"
                "一个阶段应覆盖前一阶段之后的每一步）",
            },
        ),
        *(
            Mistake("rows.*.lr.*", partial(_cycled, bug=bug), says or FROM_ZERO)
            for bug, says in CYCLE_LR
        ),
        Mistake(
            "rows.*.lr.*",
            partial(_cycled, bug="", first_group=True),
            {
                "en": "every group anneals between group 0's values: each group has its own "
                "initial, max and min lr",
                "zh": "每个参数组都在参数组 0 的值之间退火：每个参数组有自己的初始、最大和最小 lr",
            },
        ),
    ],
    before=NEVER_CYCLED,
    then=first(
        where(
            _cycles,
            Fields(
                [
                    Field(
                        "rows.*.momentum.*",
                        lambda c: tr(
                            f"{_momentum(c)} of group {{j}} at t = {{i}}",
                            f"t = {{i}} 时参数组 {{j}} 的{_momentum(c)}",
                        ),
                        *LR,
                        lambda case: case.expected,
                    ),
                    Field(
                        "rows.*.beta2",
                        {"en": "β₂ at t = {i}", "zh": "t = {i} 时的 β₂"},
                        0,
                        0,
                        _beta2,
                        says={"en": "only β₁ cycles", "zh": "只有 β₁ 循环变化"},
                    ),
                ],
                [
                    *(
                        Mistake("rows.*.momentum.*", partial(_cycled, bug=bug), says)
                        for bug, says in CYCLE_MOMENTUM
                    ),
                    Mistake(
                        "rows.*.momentum.*",
                        _first_group_cycled,
                        {
                            "en": "only group 0's momentum is cycled: the other groups' never move",
                            "zh": "只有参数组 0 的动量在循环变化：其他参数组的动量从未改变",
                        },
                    ),
                ],
            ),
        ),
        Fields(
            [
                Field(
                    "past",
                    {"en": "a step past total_steps", "zh": "超过 total_steps 的一步"},
                    expected=lambda case: "ValueError",
                )
            ]
        ),
    ),
)


# -- 6.10 -----------------------------------------------------------------------------------


def _given(ins: dict) -> list:
    """The clipped gradients as arrays (a shared one: its owner's again; None: no gradient)."""
    return [g if not isinstance(g, int) or g is None else ins["grads"][g] for g in ins["grads"]]


def _norm(q: float) -> Mistake:
    """The total by the q-norm where norm_type is another."""
    return Mistake(
        "total",
        lambda case: clip_norm([g for g in _given(case.inputs) if g is not None], 1.0, q)[0],
        lambda case: tr(
            f"that is the {q}-norm; norm_type={case.inputs['norm_type']!r}",
            f"这是 {q}-范数；norm_type={case.inputs['norm_type']!r}",
        ),
    )


def _own_norms(case: Case) -> list | None:
    """Each gradient clipped by its own norm (where there are several)."""
    ins, real = case.inputs, _given(case.inputs)
    norm = math.inf if ins["norm_type"] == "inf" else float(ins["norm_type"])
    if len([g for g in real if g is not None]) < 2:
        return None
    with np.errstate(invalid="ignore", divide="ignore"):
        return [None if g is None else clip_norm([g], ins["max_norm"], norm)[1][0] for g in real]


def _nan_kept(case: Case) -> list | None:
    """A nan total that scaled nothing (Python's min(1.0, nan) is 1.0)."""
    total = case.expected["total"]
    return _given(case.inputs) if total is not None and math.isnan(total) else None


GRADS = [
    Field("grads.*", "params[{i}].grad", tolerance=_tolerance),
    Field(
        "dtypes.*",
        {
            "en": "params[{i}].grad's dtype after clipping",
            "zh": "裁剪之后 params[{i}].grad 的数据类型",
        },
        0,
        0,
        expected=lambda case: [
            None if g is None else case.expected["dtype"] for g in case.expected["grads"]
        ],
    ),
]
CLIP_KEYS = ("error", "total", "total_dtype", "grads", "dtypes", "given")
CLIP_RULES = rules(
    (
        lambda case, got: (got["error"] or None) != case.expected.get("error"),
        lambda case, got: tr(
            f"raised {got['error']}"
            + (f", expected RuntimeError ({_nonfinite(case)})" if "error" in case.expected else ""),
            f"抛出了 {got['error']}"
            + (f"，期望 RuntimeError（{_nonfinite(case)}）" if "error" in case.expected else ""),
        ),
    ),
    (
        lambda case, got: _written(case, got["given"]) and "error" not in case.expected,
        {
            "en": "a gradient tensor was written into: set each p.grad to a new tensor (one "
            "tensor may be several leaves' .grad)",
            "zh": "有梯度张量被写入了：应把每个 p.grad 设为一个新张量（同一个张量可能是多个叶子"
            "节点的 .grad）",
        },
    ),
    (
        lambda case, got: (
            math.isinf(case.expected.get("total") or 0)
            and got["total"] != math.inf
            and show(got["total"])
        ),
        {
            "en": "the returned total norm is {0}, expected inf",
            "zh": "返回的总范数是 {0}，期望 inf",
        },
    ),
)


def _written(case: Case, given: list) -> bool:
    """Whether clipping wrote into a gradient tensor it was given: the values those tensors
    hold after the call (``given``) against the values the parent sent, compared here (a
    gradient holding inf is left out: scaling it may honestly give nan)."""
    sent: list = []
    for g in case.inputs["grads"]:
        shared = isinstance(g, int) and not isinstance(g, bool)
        sent.append(sent[g] if shared else None if g is None else np.asarray(g, dtype=float))
    if not isinstance(given, list) or len(given) != len(sent):
        return True
    return any(
        s is not None
        and not np.isinf(s).any()
        and not np.array_equal(np.asarray(a, dtype=float), s, equal_nan=True)
        for s, a in zip(sent, given)
    )


def _nonfinite(case: Case) -> str:
    what = "nan" if case.inputs["nonfinite"] in ("nan", "quiet nan") else "inf"
    return tr(
        f"the total norm is {what}: error_if_nonfinite refuses any total that is not finite",
        f"总范数是 {what}：error_if_nonfinite 会拒绝任何非有限的总范数",
    )


TOTAL = [
    Field("total", {"en": "the returned total norm", "zh": "返回的总范数"}, tolerance=_tolerance),
    Field(
        "total_dtype",
        {"en": "the total norm's dtype", "zh": "总范数的数据类型"},
        says=lambda case: (
            tr("the gradients' dtype", "梯度的数据类型")
            if any(g is not None for g in case.expected["grads"])
            else tr(
                "with no gradient at all, tensor(0.): float32, as PyTorch returns",
                "完全没有梯度时为 tensor(0.)：float32，与 PyTorch 的返回值一致",
            )
        ),
    ),
]


def _totals(case: Case, total: Callable) -> float | None:
    """``total(gs, q)`` over the case's gradients (arrays) and its norm order q."""
    ins = case.inputs
    q = math.inf if ins["norm_type"] == "inf" else float(ins["norm_type"])
    gs = [np.asarray(g, dtype=float) for g in _given(ins) if g is not None]
    with np.errstate(all="ignore"):
        return float(total(gs, q)) if gs else None


def _qnorm(g: np.ndarray, q: float) -> float:
    return (
        float(np.abs(g).max(initial=0.0))
        if q == math.inf
        else float((np.abs(g) ** q).sum() ** (1 / q))
    )


def _scaled(case: Case, coef: Callable) -> list | None:
    """Every gradient times ``coef(max_norm, total)`` (the case's true total)."""
    ins, total = case.inputs, case.expected.get("total")
    if total is None:
        return None
    with np.errstate(all="ignore"):
        c = coef(ins["max_norm"], total)
        return [None if g is None else np.asarray(g, dtype=float) * c for g in _given(ins)]


def _by_value(case: Case, clipped: Callable) -> list:
    """clip_grad_value_'s gradients, each by ``clipped(g, c)``."""
    c = case.inputs["max_norm"]
    return [
        None if g is None else clipped(np.asarray(g, dtype=float), c) for g in _given(case.inputs)
    ]


TOTAL_MISTAKES = [
    Mistake(
        "total",
        lambda case: _totals(case, lambda gs, q: sum(_qnorm(g, q) for g in gs)),
        {
            "en": "that is the sum of the gradients' own norms: the total is the norm of all "
            "their entries together",
            "zh": "这是各梯度自身范数之和：总范数应是它们全部元素合在一起的范数",
        },
    ),
    Mistake(
        "total",
        lambda case: (
            _totals(case, lambda gs, q: max(np.abs(g).sum() for g in gs))
            if case.inputs["norm_type"] == "inf"
            else None
        ),
        {
            "en": "that is the largest sum of |entries|: a gradient's ∞-norm is its largest "
            "|entry|",
            "zh": "这是 |元素| 之和的最大值：梯度的 ∞-范数是它最大的 |元素|",
        },
    ),
    Mistake(
        "total",
        lambda case: (
            _totals(case, lambda gs, q: max(g.max() for g in gs))
            if case.inputs["norm_type"] == "inf"
            else None
        ),
        {
            "en": "that is the largest entry, not the largest |entry|: a negative entry counts "
            "by its size",
            "zh": "这是最大的元素，而不是最大的 |元素|：负元素应按它的绝对值计",
        },
    ),
    Mistake(
        "total",
        lambda case: (
            _totals(case, lambda gs, q: sum(_qnorm(g, q) ** 2 for g in gs) ** 0.5)
            if case.inputs["norm_type"] not in (2.0, "inf")
            else None
        ),
        lambda case: tr(
            f"the gradients' own norms are combined by a 2-norm: with norm_type="
            f"{case.inputs['norm_type']!r} the total is their {case.inputs['norm_type']!r}-norm",
            f"各梯度自身的范数用 2-范数合并了：norm_type={case.inputs['norm_type']!r} 时，"
            f"总范数应是它们的 {case.inputs['norm_type']!r}-范数",
        ),
    ),
    Mistake(
        "total",
        lambda case: (
            _totals(case, lambda gs, q: sum(((np.abs(g) ** q).sum()) ** q for g in gs) ** (1 / q))
            if case.inputs["norm_type"] != "inf"
            else None
        ),
        {
            "en": "each gradient's norm is missing its root: Σ|g|^q, not (Σ|g|^q)^(1/q)",
            "zh": "每个梯度的范数漏掉了开方：算成了 Σ|g|^q，而不是 (Σ|g|^q)^(1/q)",
        },
    ),
    Mistake(
        "total",
        lambda case: _totals(
            case,
            lambda gs, q: (
                case.expected["total"]
                * min(1.0, case.inputs["max_norm"] / (case.expected["total"] + 1e-6))
            ),
        ),
        {
            "en": "that is the norm after clipping: the returned total is the norm before",
            "zh": "这是裁剪之后的范数：返回的总范数应是裁剪之前的",
        },
    ),
    Mistake(
        "total_dtype",
        lambda case: "float",
        {
            "en": "the total norm is returned as a Python float: it is returned as a tensor",
            "zh": "总范数以 Python float 返回了：应返回一个张量",
        },
    ),
    Mistake(
        "total_dtype",
        lambda case: "float32" if case.expected["total_dtype"] == "float64" else None,
        {
            "en": "the total norm is float32, the default dtype of a tensor made from a Python "
            "float: it is not in the gradients' dtype",
            "zh": "总范数是 float32，即由 Python float 创建的张量的默认数据类型：它与梯度的数据"
            "类型不一致",
        },
    ),
    Mistake(
        "total_dtype",
        lambda case: "float64" if case.expected["total_dtype"] == "float32" else None,
        {
            "en": "the total norm is float64: it is not in the gradients' dtype",
            "zh": "总范数是 float64：与梯度的数据类型不一致",
        },
    ),
]
SCALED = [  # (a mistake's coefficient, its words); a non-finite total's first
    (
        lambda c, n: 1.0 if not math.isfinite(n) else np.minimum(c / (n + 1e-6), 1.0),
        {
            "en": "the total norm is not finite and the gradients were left as they were: the "
            "coefficient max_norm / (n + 1e-6) is 0 for an inf total and nan for a nan "
            "one, and scales every gradient",
            "zh": "总范数不是有限值，梯度却保持原样：系数 max_norm / (n + 1e-6) 在总范数为 inf "
            "时是 0，为 nan 时是 nan，并且会缩放每个梯度",
        },
    ),
    (
        lambda c, n: c / (n + 1e-6),
        {
            "en": "the coefficient is not capped at 1: gradients whose total norm is below "
            "max_norm are scaled up",
            "zh": "系数没有以 1 为上限：总范数小于 max_norm 的梯度被放大了",
        },
    ),
    (
        lambda c, n: np.maximum(c / (n + 1e-6), 1.0),
        {
            "en": "the coefficient is never below 1: it is capped from below, not from above, "
            "so nothing is scaled down",
            "zh": "系数从不小于 1：它被限制了下限而不是上限，所以什么都没有被缩小",
        },
    ),
    (
        lambda c, n: np.minimum(c / n, 1.0),
        {
            "en": "the coefficient is max_norm / n: 1e-6 is missing from the total's side, "
            "max_norm / (n + 1e-6)",
            "zh": "系数是 max_norm / n：总范数一侧漏掉了 1e-6，应为 max_norm / (n + 1e-6)",
        },
    ),
    (
        lambda c, n: np.minimum(c / n + 1e-6, 1.0),
        {
            "en": "1e-6 is added to the quotient: it is added to the total before dividing",
            "zh": "1e-6 加到了商上：应在相除之前加到总范数上",
        },
    ),
]
GRAD_MISTAKES = [
    Mistake(
        "dtypes.*",
        lambda case: (
            ["float64" if d is not None else None for d in GRADS[1].expected(case)]
            if case.expected["dtype"] == "float32"
            else None
        ),
        {
            "en": "the new gradient is float64: it is not in the gradient's own dtype",
            "zh": "新的梯度是 float64：与梯度自身的数据类型不一致",
        },
    ),
]
VALUE_MISTAKES = [
    Mistake(
        "grads.*",
        lambda case: _by_value(case, lambda g, c: np.minimum(g, c)),
        {
            "en": "only the entries above c are clipped: the entries below −c are clipped too",
            "zh": "只裁剪了大于 c 的元素：小于 −c 的元素也要裁剪",
        },
    ),
    Mistake(
        "grads.*",
        lambda case: _by_value(case, lambda g, c: np.clip(g, 0, c)),
        {
            "en": "the entries are clipped to [0, c]: the range is [−c, c]",
            "zh": "元素被裁剪到了 [0, c]：范围应是 [−c, c]",
        },
    ),
    Mistake(
        "grads.*",
        lambda case: _by_value(case, lambda g, c: g * min(1.0, c / float(np.abs(g).max()))),
        {
            "en": "each gradient is scaled by c / max|g|: clip_grad_value_ clips each entry to "
            "[−c, c]",
            "zh": "每个梯度都被乘以 c / max|g|：clip_grad_value_ 应把每个元素裁剪到 [−c, c]",
        },
    ),
]
CLIP_NORM = Fields(
    [*TOTAL, *GRADS],
    mistakes=[
        *TOTAL_MISTAKES,
        *GRAD_MISTAKES,
        Mistake(
            "grads.*",
            _nan_kept,
            {
                "en": "the total norm is nan and the gradients were left as they were, where "
                "every one becomes nan: Python's min(1.0, nan) is 1.0 (a comparison with "
                "nan is False), so the coefficient lost the nan",
                "zh": "总范数是 nan，梯度却保持原样，而它们本应全部变成 nan：Python 的 min(1.0, "
                "nan) 是 1.0（与 nan 的比较结果为 False），于是系数丢掉了 nan",
            },
            recipe={
                "en": "take the coefficient with xp.minimum, which keeps a nan (as torch.clamp "
                "does)",
                "zh": "用 xp.minimum 计算系数，它会保留 nan（torch.clamp 也是如此）",
            },
        ),
        *(Mistake("grads.*", partial(_scaled, coef=coef), says) for coef, says in SCALED),
        *(_norm(q) for q in (2.0, 1.0, math.inf)),
        Mistake(
            "grads.*",
            _own_norms,
            {
                "en": "each gradient is scaled by its own norm; the total norm is over all "
                "gradients together, n = ‖(g₁, g₂, …)‖_q (the norm of all their elements "
                "at once), and every gradient is scaled by the same min(1, max_norm / (n "
                "+ 1e-6))",
                "zh": "每个梯度都按自己的范数缩放了；总范数应针对所有梯度一起计算，n = ‖(g₁, g₂,"
                " …)‖_q（把它们的全部元素放在一起求范数），每个梯度都乘以同一个 min(1, max"
                "_norm / (n + 1e-6))",
            },
        ),
    ],
    before=CLIP_RULES,
    keys=CLIP_KEYS,
)
CLIP_INF = replace(CLIP_NORM, fields=[TOTAL[1], *GRADS])  # an inf total: judged by CLIP_RULES
CLIP_VALUE = Fields(  # clip_grad_value_: no total
    GRADS, [*VALUE_MISTAKES, *GRAD_MISTAKES], before=CLIP_RULES, keys=CLIP_KEYS
)
CLIP_REFUSED = Fields([], before=CLIP_RULES, keys=CLIP_KEYS)  # error_if_nonfinite's refusal


def clip_verdict(case: Case, received: Any) -> str | None:
    # the declaration for the call: a refusal is the rules' alone, clip_grad_value_ returns
    # no total, an inf total is a rule
    w, by_value = case.expected, case.inputs["by_value"]
    inf = "error" not in w and not by_value and math.isinf(w["total"])
    verdict = (
        CLIP_REFUSED if "error" in w else CLIP_VALUE if by_value else CLIP_INF if inf else CLIP_NORM
    )
    return verdict(case, received)


CHECKS = [
    Check(
        "6.1",
        "add_param_group",
        lambda rng: [groups_case(d, items, label) for d, items, label in GROUP_SCRIPTS],
        programs.param_groups,
        groups_verdict,
    ),
    Check(
        "6.1",
        "zero_grad",
        lambda rng: [zero_grad_case(True), zero_grad_case(False), zero_grad_case(False, "float32")],
        programs.zero_grad,
        ZERO_GRAD,
    ),
    rule(
        "6.2",
        "SGD: momentum, dampening, Nesterov, weight decay",  # en-only: the check's id
        traj("SGD", {"lr": 0.1}, ONE, [S3], steps=3),
        traj("SGD", {"lr": 0.1, "momentum": 0.9}, PAIR, [S3, S22], steps=4),
        traj("SGD", {"lr": 0.05, "momentum": 0.8, "dampening": 0.3}, PAIR, [S3, S4], steps=4),
        traj("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}, PAIR, [S3, S22], steps=4),
        traj("SGD", {"lr": 0.1, "weight_decay": 0.1}, ONE, [S22], steps=3),
        traj(
            "SGD",
            {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.05, "nesterov": True},
            TRIO,
            [S3, S22, S3],
            steps=5,
            skip=0.3,
            frozen=(2,),
        ),
        traj(
            "SGD",
            {"lr": 0.1, "momentum": 0.5},
            [
                ([0, 1], {}),
                ([2], {"lr": 0.01, "momentum": 0.9, "weight_decay": 0.1, "nesterov": True}),
            ],
            [S3, S22, S4],
            steps=4,
            dtypes=MIXED,
        ),
        traj(
            "SGD",
            {"lr": 0.1, "momentum": 0.9},
            [([0, 1], {}), ([2], {"momentum": 0.0})],
            [S3, S3, S22],
            steps=4,
            share=True,
            closure=True,
        ),
        title={"zh": "SGD：动量、阻尼、Nesterov 与权重衰减"},
    ),
    rule(
        "6.3",
        "Adagrad",
        traj("Adagrad", {"lr": 0.1}, ONE, [S3], steps=3),
        traj("Adagrad", {"lr": 0.1, "lr_decay": 0.1}, PAIR, [S3, S22], steps=4),
        traj(
            "Adagrad",
            {"lr": 0.1, "initial_accumulator_value": 0.5, "eps": 1e-3},
            PAIR,
            [S3, S22],
            steps=3,
        ),
        traj(
            "Adagrad",
            {"lr": 0.1, "weight_decay": 0.1},
            TRIO,
            [S3, S22, S4],
            steps=5,
            skip=0.3,
            dtypes=MIXED,
            frozen=(2,),
        ),
        traj(
            "Adagrad",
            {"lr": 0.1},
            [([0], {}), ([1, 2], {"lr": 0.3, "lr_decay": 0.05, "weight_decay": 0.2})],
            [S3, S3, S22],
            steps=4,
            share=True,
            closure=True,
        ),
    ),
    rule(
        "6.4",
        "RMSprop",
        traj("RMSprop", {"lr": 0.01}, ONE, [S3], steps=3),
        traj("RMSprop", {"lr": 0.01, "alpha": 0.9}, PAIR, [S3, S22], steps=4),
        traj("RMSprop", {"lr": 0.01, "centered": True}, PAIR, [S3, S22], steps=4),
        traj("RMSprop", {"lr": 0.01, "momentum": 0.9}, PAIR, [S3, S22], steps=4),
        traj(
            "RMSprop",
            {"lr": 0.01, "momentum": 0.5, "centered": True, "weight_decay": 0.1, "eps": 1e-3},
            TRIO,
            [S3, S22, S4],
            steps=5,
            skip=0.3,
            dtypes=MIXED,
            frozen=(2,),
        ),
        traj(
            "RMSprop",
            {"lr": 0.01},
            [([0], {}), ([1, 2], {"alpha": 0.8, "momentum": 0.9, "centered": True})],
            [S3, S3, S22],
            steps=4,
            share=True,
            closure=True,
        ),
    ),
    rule(
        "6.5",
        "Adam",
        traj("Adam", {"lr": 0.01}, ONE, [S3], steps=3),
        traj("Adam", {"lr": 0.01, "betas": [0.8, 0.9]}, PAIR, [S3, S22], steps=5),
        traj("Adam", {"lr": 0.01, "weight_decay": 0.1, "eps": 1e-3}, PAIR, [S3, S22], steps=4),
        traj("Adam", {"lr": 0.01, "amsgrad": True}, PAIR, [S3, S22], steps=6),
        traj(
            "Adam",
            {"lr": 0.01, "betas": [0.5, 0.6]},
            TRIO,
            [S3, S22, S4],
            steps=6,
            skip=0.4,
            dtypes=MIXED,
            frozen=(2,),
        ),
        traj(
            "Adam",
            {"lr": 0.01},
            [
                ([0], {}),
                (
                    [1, 2],
                    {
                        "lr": 0.05,
                        "betas": [0.7, 0.8],
                        "weight_decay": 0.2,
                        "amsgrad": True,
                        "eps": 1e-3,
                    },
                ),
            ],
            [S3, S3, S22],
            steps=4,
            share=True,
            closure=True,
        ),
    ),
    rule(
        "6.5",
        "Adam with _weight_decay overridden to return 2g",  # en-only: the check's id
        traj("Adam", {"lr": 0.01}, PAIR, [S3, S22], steps=3, skip=0.3, contract=True),
        traj(
            "Adam",
            {"lr": 0.02, "weight_decay": 0.1},
            [([0], {}), ([1, 2], {"lr": 0.05, "amsgrad": True})],
            [S3, S22, S4],
            steps=4,
            dtypes=MIXED,
            contract=True,
        ),
        id="Adam.step calls self._weight_decay",  # en-only: the id hidden rows point at
        title={"zh": "重写 _weight_decay 使其返回 2g 的 Adam"},
    ),
    Check(
        "6.6",
        "AdamW._weight_decay",
        Rows(
            [
                row(adamw_decay_case, 0.1, 0.5),
                row(adamw_decay_case, 0.01, 0.0),
                row(adamw_decay_case, 0.1, 0.2, "float32"),
            ]
        ),
        programs.adamw_decay,
        ADAMW_DECAY,
        requires=GROUPS,
    ),
    rule(
        "6.6",
        "AdamW: decoupled weight decay",  # en-only: the check's id
        traj("AdamW", {"lr": 0.05, "weight_decay": 0.5}, PAIR, [S3, S22], steps=4),
        traj(
            "AdamW",
            {"lr": 0.05, "weight_decay": 0.1},
            [
                ([0, 1], {}),
                ([2], {"weight_decay": 0.0, "lr": 0.01}),
                ([3], {"weight_decay": 0.3, "lr": 0.02}),
            ],
            [S3, S22, S4, S3],
            steps=5,
            skip=0.3,
            dtypes=["float64", "float32", "float64", "float64"],
        ),
        requires=(*GROUPS, "6.5"),
        title={"zh": "AdamW：解耦的权重衰减"},
    ),
    Check(
        "6.7",
        "state_dict and load_state_dict",
        Rows(
            [
                row(resume_case, "SGD", {"lr": 0.1, "momentum": 0.9}, PAIR, [S3, S22]),
                row(
                    resume_case,
                    "Adam",
                    {"lr": 0.01},
                    [([0], {}), ([1, 2], {"lr": 0.05, "betas": [0.8, 0.9]})],
                    [S3, S22, S4],
                    dtype="float32",
                    load_dtype="float64",
                ),
                row(
                    resume_case,
                    "Adam",
                    {"lr": 0.01, "weight_decay": 0.1},
                    PAIR,
                    [S3, S22],
                    load_dtype="float32",
                ),
                row(
                    resume_case,
                    "SGD",
                    {"lr": 0.1, "momentum": 0.5, "weight_decay": 0.1},
                    [([1], {"momentum": 0.9}), ([0, 2], {})],
                    [S3, S22, S3],
                    before=4,
                    after=2,
                    late=True,
                    warm=True,
                ),
            ]
        ),
        programs.resume,
        resume_verdict,
        requires=(*GROUPS, "6.2", "6.5"),
        title={"zh": "state_dict 与 load_state_dict"},
    ),
    Check(
        "6.8",
        "the closed-form schedules",
        lambda rng: [
            schedule_case("StepLR", [0.1], {"step_size": 3}, 10),
            schedule_case("StepLR", [0.1, 0.5], {"step_size": 2, "gamma": 0.5}, 9),
            schedule_case("MultiStepLR", [0.1], {"milestones": [2, 5], "gamma": 0.5}, 8),
            schedule_case("MultiStepLR", [0.1, 1.0], {"milestones": [6, 2, 2], "gamma": 0.5}, 9),
            schedule_case("ExponentialLR", [0.1, 0.3], {"gamma": 0.9}, 12),
            schedule_case("CosineAnnealingLR", [0.1], {"T_max": 10}, 14),
            schedule_case("CosineAnnealingLR", [0.1, 0.4], {"T_max": 6, "eta_min": 0.01}, 15),
            schedule_case("LambdaLR", [0.1], {"lr_lambda": ["power", 0.95]}, 8),
            schedule_case(
                "LambdaLR", [0.1, 0.2], {"lr_lambda": [["warmup", 4], ["linear", 10]]}, 12
            ),
        ],
        programs.schedule,
        schedule_verdict,
        requires=GROUPS,
        title={"zh": "闭式学习率调度"},
    ),
    Check(
        "6.9",
        "OneCycleLR",
        lambda rng: [
            one_cycle_case(0.1, {"total_steps": 20}),
            one_cycle_case(0.1, {"total_steps": 15, "anneal_strategy": "linear"}),
            one_cycle_case(0.5, {"total_steps": 20}, beta1=True),
            one_cycle_case(
                [0.1, 1.0], {"epochs": 3, "steps_per_epoch": 7, "pct_start": 0.25}, groups=2
            ),
            one_cycle_case(0.2, {"total_steps": 24, "three_phase": True}),
            one_cycle_case(
                0.2,
                {"total_steps": 16, "three_phase": True, "anneal_strategy": "linear"},
                beta1=True,
            ),
            one_cycle_case(
                0.3,
                {
                    "total_steps": 12,
                    "div_factor": 10.0,
                    "final_div_factor": 100.0,
                    "base_momentum": 0.8,
                    "max_momentum": 0.9,
                },
            ),
            one_cycle_case(0.3, {"total_steps": 10, "cycle_momentum": False}),
        ],
        programs.one_cycle,
        one_cycle_verdict,
        requires=GROUPS,
    ),
    Check(
        "6.10",
        "clip_grad_norm_ and clip_grad_value_",
        Rows(
            [
                row(clip_case, [S3], 1.0),
                row(clip_case, [S3, S22], 1.0),
                row(clip_case, [S3, S22], 100.0),
                row(clip_case, [S3, None, S22], 0.5, norm_type=1.0),
                row(clip_case, [S3, S22], 0.5, norm_type="inf", negative=True),
                row(clip_case, [S3, S4], 0.7, norm_type=3.0),
                row(clip_case, [S3, S22, S3], 1.0, share=True),
                row(clip_case, [S3, S22], 1.0, dtype="float32"),
                row(clip_case, [S22], 0.5, single=True),
                row(clip_case, [S3, S22], 1.0, nonfinite=True),
                row(clip_case, [S3, S22], 1.0, nonfinite="nan"),
                row(clip_case, [S3, S22], 1.0, nonfinite="quiet"),
                row(clip_case, [S3, S22], 1.0, nonfinite="quiet nan"),
                row(clip_case, [(0,), (0, 3)], 1.0, label=EMPTY),
                row(clip_case, [S3, None, S22], 0.3, by_value=True),
                row(clip_case, [S3, S3], 0.5, by_value=True, share=True, dtype="float32"),
            ]
        ),
        programs.clip,
        clip_verdict,
        title={"zh": "clip_grad_norm_ 与 clip_grad_value_"},
    ),
]

# -- EXTRA: check modules of their own, registered here ----------------------------------------
# A module added to this chapter (``training.py``: a training run against stored
# expectations) defines its own ``CHECKS`` and is appended below, after the checks above.
EXTRA: list = training.CHECKS
CHECKS += EXTRA

# tasks 6.11 and 6.12, course version 1.1 (exercises.py, their programs exercises_program.py)
from .exercises import EXERCISES  # noqa: E402

CHECKS += EXERCISES

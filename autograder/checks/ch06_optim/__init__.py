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
    first,
    row,
    rules,
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
        shown = f"(a generator of {', '.join(spec[4:])})"
    elif spec.startswith("str:"):
        shown = f"[a, {spec[4:]!r}]"
    else:
        shown = spec
    own = "".join(f", {k!r}: {v!r}" for k, v in item.items() if k != "params")
    return f"{{'params': {shown}{own}}}"


REFUSED = (  # why a group is refused (cases.groups_case's order): (defaults, item) → the reason
    (lambda d, item: str(item["params"]).startswith("set:"), "a set's order changes between runs"),
    (lambda d, item: str(item["params"]).startswith("str:"), "a string is not a Tensor"),
    (lambda d, item: "n" in param_names(item["params"]), "n is not a leaf (it has a grad_fn)"),
    (
        lambda d, item: any(v == "required" and k not in item for k, v in d.items()),
        "a required option left unset",
    ),
    (lambda d, item: True, "a tensor already in another group"),
)


def _calls(case: Case) -> list[str]:
    """Each call of the script, as a student reads it."""
    return [
        f"{'add_param_group' if k else 'Optimizer([...], defaults)'} with {_item_text(item)} raised"
        for k, item in enumerate(case.inputs["items"])
    ]


def _why(case: Case) -> list[str]:
    """Each call's words: why its group is refused, or that it is a valid one."""
    items, defaults = case.inputs["items"], case.inputs["defaults"]
    return [
        next(why for shows, why in REFUSED if shows(defaults, item)) if error else VALID
        for item, error in zip(items, case.expected["errors"])
    ]


VALID = "it is a valid group"
KEYS = ("errors", "groups", "shares_list")
GROUPS_MADE = Fields(  # the groups made (a "*" field's length is judged before any field)
    [
        Field(
            "groups.*.params",
            "param_groups[{i}]['params']",
            says="a list: a single Tensor becomes [tensor], an iterable list(...)",
        ),
        Field(
            "groups.*",
            "param_groups[{i}]",
            0,
            0,
            says="a group's own option wins over the default; fill each option it does not set "
            "from self.defaults",
        ),
    ],
    then=rules(
        (
            lambda case, got: got["shares_list"],
            "param_groups[{got[shares_list][0]}]['params'] is the very list the caller gave: "
            "make a new one (list(params)), or a later change to the caller's list reaches the "
            "optimizer",
        )
    ),
)
SHARED_DEFAULTS = rules(  # a group that is the defaults dict itself: every later call is off
    (
        lambda case, got: got["defaults_shared"],
        "param_groups[{0[0]}] is self.defaults itself: add_param_group filled the defaults dict "
        "in place, so the groups are one dict (and the defaults change with each group)",
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
        "a group's own lr kept, the defaults filled",
    ),
    (
        {"lr": 0.1},
        [{"params": ["a"]}, {"params": "b", "lr": 0.2}],
        "a single Tensor as a group's params",
    ),
    (
        {"lr": 0.1},
        [{"params": "gen:ab"}, {"params": ["c", "d"], "lr": 0.3}],
        "a generator as a group's params",
    ),
    (
        {"lr": 0.1},
        [{"params": ["a"]}, {"params": "tuple:bf", "lr": 0.2}],
        "a tuple as a group's params, with a tensor that does not require grad",
    ),
    ({"lr": 0.1}, [{"params": ["a"]}, {"params": "set:bc"}, {"params": ["d"]}], "a set refused"),
    ({"lr": 0.1}, [{"params": ["a"]}, {"params": ["n"]}], "a non-leaf refused"),
    (
        {"lr": 0.1},
        [
            {"params": ["a", "b"]},
            {"params": ["c"]},
            {"params": ["d", "a"]},
            {"params": ["d", "c"]},
            {"params": ["d"]},
        ],
        "a tensor of the first or the second group refused",
    ),
    (
        {"lr": "required", "momentum": 0.0},
        [{"params": ["a"], "lr": 0.1}, {"params": ["b"]}, {"params": ["c"], "lr": 0.2}],
        "a required option left unset refused",
    ),
    ({"lr": 0.1}, [{"params": ["a"]}, {"params": "str:x"}], "a string among the params refused"),
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
    "b": "b had no gradient: skip parameters whose grad is None",
    True: "set_to_none=True sets p.grad to None",
    False: "set_to_none=False: a new tensor of zeros of the gradient's own dtype, not the old "
    "object (another leaf may share it)",
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
            f"after zero_grad(), {name}.grad",
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
            f"the new zeros are {dtype}: they are not in the gradient's own dtype",
        )
        for name in "acd"
        for dtype in ("float32", "float64")
    ],
    before=rules(
        (
            lambda case, got: _old_changed(case, got["given"]),
            "zero_grad wrote into the old gradient tensor (another leaf may share it): set p.grad "
            "to a new tensor",
        ),
        (
            _kept,
            "zero_grad left {0}.grad (a parameter of group {1}) as it was: the same tensor, its "
            "values unchanged",
        ),
        (
            _nan_zeros,
            "after zero_grad(set_to_none=False), d.grad holds nan where its old gradient held inf: "
            "zeros made by multiplying g by 0 (inf · 0 is nan) are not zeros",
        ),
        (_lost, "after zero_grad(set_to_none=False), {0}.grad is None, expected zeros"),
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
    group = f" (group {case.expected.groups[i]})" if len(case.inputs["groups"]) > 1 else ""
    return f"params[{i}] after step {t + 1}{group}"


def _moved(case: Case, t: int, i: int) -> str:
    """Words for params[i] where it had no gradient at step t + 1 and should not have moved."""
    ins, want = case.inputs, case.expected
    before = want.values[t - 1][i] if t else ins["params"][i]
    if ins["grads"][t][i] is not None or _close(before, want.values[t][i], want.dtypes[i]):
        return ""
    return f"it has no gradient at step {t + 1} (grad None) and still moved: skip it, state and all"


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


KEEPS_DTYPE = "a parameter keeps its dtype"
STEPS = Fields(  # the dtypes, then each parameter's values after each step, by step
    [
        Field("dtypes.*", "after step(), params[{i}]'s dtype", 0, 0, says=KEEPS_DTYPE),
        Field(
            "values.*.*",
            lambda case: _per_step(case, partial(_after, case)),
            says=lambda case: _per_step(case, partial(_moved, case)),
            tolerance=lambda case: _per_step(case, lambda t, i: TOLERANCE[case.expected.dtypes[i]]),
        ),
    ],
    [  # each optimizer's known mistakes (cases.BUGS), then any optimizer's
        Mistake("values.*.*", partial(_bugged, bug=b, optimizer=o), BUG_TEXT[b])
        for o, bugs in (*BUGS.items(), ("", ["group options ignored"]))
        for b in bugs
    ],
)


def _state_problem(got: Any, want: Any, where: Callable, dtype: Callable, step: str) -> Any:
    # a state's entries, by parameter (a list, or a dict by index), against the rule's: their
    # names, a step the same Python int (in the words the tests hold), tensors within dtype(k)'s
    for k, w in want.items() if isinstance(want, dict) else enumerate(want):
        entry = got[k]
        if not isinstance(entry, dict):
            return f"{where(k)} is {show(entry)}, expected a dict"
        entry = {n: v for n, v in entry.items() if v is not None}  # PyTorch 1.x's None buffers
        if sorted(entry) != sorted(w):
            hint = "" if isinstance(want, dict) else NO_STATE if not w else ONLY_USED
            return f"{where(k)} holds {sorted(entry)}, expected {sorted(w)}{hint}"
        for name, value in w.items():
            got_it, kind = entry[name], type(entry[name]).__name__
            if name == "step" and (got_it != value or kind != "int"):
                return (
                    f"{where(k)}['step'] is {show(got_it)} ({kind}), expected {step.format(value)}"
                )
            problem = name != "step" and _close(got_it, value, dtype(k), f"{where(k)}[{name!r}]")
            if problem:
                return problem
    return None


NO_STATE = " (this parameter never had a gradient: it gets no state)"
ONLY_USED = " (make only the entries the rule uses, as PyTorch does)"


def _final_state(case: Case, received: Any) -> Any:
    """The state after the last step (what state_dict() will save and a resume will need)."""
    return _state_problem(
        received["state"],
        case.expected.state,
        lambda i: f"after the last step, state[params[{i}]]",
        lambda i: case.expected.dtypes[i],
        "the int {} (a Python int counting this parameter's steps)",
    )


STATE_KEPT = rules(  # the state kept: Tensors, keyed by the parameters themselves
    (
        lambda case, got: got["state_arrays"],
        "after the last step the state holds {0} as bare arrays: keep Tensors in the state "
        "(state_dict() copies them and load_state_dict casts them)",
    ),
    (
        lambda case, got: not got["state_keyed"],
        "self.state has keys that are not the parameters: key it by the tensor itself "
        "(self.state[p]), not id(p) or a name, so state_dict() finds each parameter's state",
    ),
)


TRAJECTORY_KEYS = tuple(
    "values dtypes objects leaves nodes replaced given kept returned closure_calls decay_calls "
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
        "Adam.step called self._weight_decay {got[decay_calls]} times, expected "
        "{want.decay_calls} (once per parameter with a gradient, at every step): the weight "
        "decay does not go through the hook that AdamW overrides",
    ),
    (
        lambda case, got: got["nodes"],
        "step() recorded {0} graph nodes: an update is not part of the model; work on arrays "
        "(p.data, p.grad.data, the state's .data) so nothing is recorded",
    ),
    (
        lambda case, got: not got["leaves"],
        "after step() a parameter is no longer a leaf that requires grad: change p.data in place",
    ),
    (
        _step_wrote,
        "step {0} wrote into params[{1}].grad (or replaced it): never change p.grad, one gradient "
        "tensor may be the .grad of several leaves (g = g + λp makes a new array)",
    ),
    (
        _later_wrote,
        "the gradient tensor params[{1}].grad held at step {0} was changed by a later step: the "
        "state keeps that gradient's own array (not a copy) and the next step updates it in place",
    ),
    (
        lambda case, got: not got["objects"],
        "after step() param_groups holds other objects than the parameters given",
    ),
    keys=TRAJECTORY_KEYS,
)
STEPS_DO = rules(  # what the steps must do besides
    (
        lambda case, got: case.expected.closure and got["closure_calls"] != case.expected.steps,
        "step(closure) called the closure {got[closure_calls]} times in {want.steps} steps, "
        "expected once per step",
    ),
    (
        lambda case, got: (
            case.expected.closure
            and got["returned"] != _losses(case)
            and (show(got["returned"]), show(_losses(case)))
        ),
        "step(closure) returned {0}, expected the closure's losses {1}",
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
            "the returned gradient",
            expected=lambda case: case.expected["g"],
            tolerance=_tolerance,
            says="AdamW returns g unchanged",
        ),
        Field(
            "p",
            "p after _weight_decay",
            tolerance=_tolerance,
            says="p.data *= 1 − lr·λ, before the update",
        ),
    ],
    mistakes=[
        Mistake(
            "returned",
            lambda case: case.expected["g"] + case.expected["wd"] * case.expected["p0"],
            "that is g + λp, Adam's coupled decay; AdamW returns g unchanged",
        ),
        Mistake(
            "returned",
            lambda case: case.expected["g"] + case.expected["wd"] * case.expected["p"],
            "that is g + λp with p already scaled: the decay is done twice, p scaled and λp "
            "also added to the gradient",
        ),
        *(
            Mistake("p", partial(_decayed, bug=bug), BUG_TEXT[bug])
            for bug in BUGS["AdamW"]
            if bug.startswith("AdamW decay") and "defaults" not in bug
        ),
    ],
    before=rules(
        (
            lambda case, got: (
                not _holds(got["g"], np.asarray(case.inputs["g"], dtype=case.inputs["dtype"]))
            ),
            "AdamW._weight_decay wrote into the gradient array: return g unchanged",
        ),
        (
            lambda case, got: got["dtype"] != case.expected["dtype"],
            "p is {got[dtype]} after _weight_decay, expected {want[dtype]}",
        ),
    ),
    keys=("returned", "p", "dtype", "g"),
)


traj = partial(row, trajectory_case)


def rule(task: str, name: str, *rows: Callable, requires: tuple = GROUPS, id: str = "") -> Check:
    """An update rule's check: trajectories (``traj`` rows), judged step by step."""
    return Check(task, name, Rows(rows), programs.trajectory, trajectory_verdict, requires, id)


S3, S22, S4 = (3,), (2, 2), (4,)  # parameters' shapes
ONE, PAIR, TRIO = [([0], {})], [([0, 1], {})], [([0, 1, 2], {})]  # one group of 1, 2, 3
MIXED = ["float64", "float32", "float64"]
EMPTY = "clip_grad_norm_(params, max_norm=1.0) on float64 gradients that are all empty: total 0"


# -- 6.7 ------------------------------------------------------------------------------------


def _dtype(case: Case, loose: bool = False) -> str:
    """The run's dtype; ``loose``: float32 where the run or the loaded parameters are."""
    dtypes = (str(np.asarray(case.inputs["params"][0]).dtype), case.expected.load_dtypes[0])
    return "float32" if "float32" in dtypes[: 1 + loose] else "float64"


def _saved_state(what: str, key: str, loose: bool = False) -> Callable:
    """The verdict on a state_dict()'s state (``received[key]``'s, by index): its indices,
    then its entries (within float32's tolerance where ``loose`` and either run is)."""

    def verdict(case: Case, received: Any) -> Any:
        got, want = received[key], case.expected.state
        got = got.get("state") if isinstance(got, dict) else got
        if not isinstance(got, dict):
            return f"{what}['state'] is {show(got)}, expected a dict by index"
        if sorted(got) != sorted(want):
            return (
                f"{what}['state'] has the indices {sorted(got)}, expected {sorted(want)} (each "
                "parameter with a state, by its position across the groups)"
            )
        where, dtype = (lambda k: f"{what}['state'][{k}]"), _dtype(case, loose)
        return _state_problem(got, want, where, lambda k: dtype, STEP_KEPT)

    return verdict


STEP_KEPT = "{} (keep the step count, a Python int)"
RESUME_KEYS = tuple(
    "saved saved_later loaded state_dtypes options same_params final dtypes refused error "
    "kept_groups load_error loaded_keyed straight".split()
)
OWN_TASK = {"SGD": "task 6.2", "Adam": "task 6.5"}  # the update rule a resume case steps with
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
                return (
                    f"parameter {k} holds the state saved for parameter {j}: each saved state "
                    "goes to the parameter at its index, whatever the order of the saved state"
                )
    return None


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
            "state_dict() returned {0}, expected a dict with 'state' and 'param_groups'",
        ),
        (
            lambda case, got: not all(got["kept_groups"]),
            "state_dict() changed this optimizer's own param_groups (they hold no longer its "
            "parameters): the groups it returns are the live ones, not new dicts",
        ),
        (
            lambda case, got: got["saved"].get("int_keys") is False,
            "state_dict()['state'] is keyed by something other than int indices: key each "
            "parameter's state by its int position across the groups, as PyTorch does",
        ),
        (
            lambda case, got: isinstance(got["straight"], str) and got["straight"],
            "step() raised {0} in a run of the same steps never saved nor loaded",
        ),
        keys=RESUME_KEYS,
    ),
    # the steps alone, never saved nor loaded: where they differ, the resume is not the cause
    Fields(
        [
            Field(
                "straight.*",
                "the same steps by an optimizer never saved nor loaded: params[{i}]",
                tolerance=lambda case: TOLERANCE[_dtype(case, loose=True)],
                expected=lambda case: [  # in the run's own dtype
                    np.asarray(f).astype(np.asarray(p).dtype)
                    for f, p in zip(case.expected.final, case.inputs["params"])
                ],
                says=lambda case: (
                    "the steps themselves differ from the reference's, with no "
                    "save and load at all: look at "
                    + OWN_TASK.get(case.inputs["optimizer"], "the optimizer's own task")
                    + " first"
                ),
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
                says="each parameter's index in order of first appearance across the groups",
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
            "the dict state_dict() returned changed as training went on: copy the state "
            "tensors (the snapshot must not share arrays with the optimizer, nor with the one "
            "that loads it)",
        )
    ),
    rules(
        (lambda case, got: got["load_error"], "load_state_dict raised {got[load_error]}"),
        (
            lambda case, got: not all(got["same_params"]),
            "after load_state_dict, param_groups no longer hold this optimizer's own parameters",
        ),
        (
            lambda case, got: not got["loaded_keyed"],
            "after load_state_dict, self.state has keys that are not the parameters themselves, "
            "where step() and state_dict() look each state up by its parameter",
        ),
        (_moved_state, "after load_state_dict, {0}"),
    ),
    _saved_state("after load_state_dict, state_dict()", "loaded", loose=True),
    rules(
        (
            lambda case, got: (
                case.expected.state and got["state_dtypes"] != case.expected.load_dtypes[:1]
            ),
            "after loading into {want.load_dtypes[0]} parameters the state tensors are "
            "{got[state_dtypes]}: cast floating state to the parameter's dtype",
        ),
        (lambda case, got: got["error"], "after load_state_dict, step() raised {got[error]}"),
    ),
    Fields(
        [
            Field(
                "options.*",
                "after load_state_dict, param_groups[{i}]",
                *TOLERANCE["float64"],
                lambda case: case.expected.options,
                says="the saved group's options are not the ones restored",
            ),
            Field(
                "final.*",
                "resumed after load_state_dict, then stepped: params[{i}]",
                tolerance=lambda case: TOLERANCE[_dtype(case, loose=True)],
                says="the same steps without the save and load give the expected value: the "
                "resumed run does not go on where the saved one stopped",
            ),
            Field(
                "dtypes",
                "the loaded parameters' dtypes at the end",
                0,
                0,
                lambda c: c.expected.load_dtypes,
            ),
            Field(
                "refused.0",
                "load_state_dict of a state_dict with another number of groups",
                expected=lambda c: "ValueError",
            ),
            Field(
                "refused.1",
                "load_state_dict of a state_dict with a group of another size",
                expected=lambda c: "ValueError",
            ),
        ],
        mistakes=[
            Mistake(
                "options.*",
                _own_options,
                "these are the loading optimizer's own options: load_state_dict kept them, not "
                "the saved groups' options",
            )
        ],
    ),
)


# -- 6.8, 6.9 -------------------------------------------------------------------------------


def under(key: str, verdict: Callable) -> Callable:
    """``verdict`` judging a program's bare value as the record ``{key: value}``."""
    return lambda case, received: verdict(case, {key: received})


LR = (1e-9, 1e-12)  # an lr's tolerances (rtol, atol)
SHIFTED = (
    "the schedule is {}: t = last_epoch, 0 when the scheduler is made, and the lr at t = 0 is "
    "the formula's value for t = 0"
)


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
        "the schedule is one step ahead, base·γ^(t + 1) (as the current lr times γ gives: the "
        "scheduler takes its first step when it is made); at t = 0 the lr is the base lr",
    ),
    (
        _wrong("ExponentialLR", lambda o, b, t, j: b * (1 - (1 - o["gamma"]) * t)),
        "the lr falls by the same amount each step, base·(1 − (1 − γ)t): it falls by the same "
        "factor γ",
    ),
    (
        _wrong(
            "MultiStepLR", lambda o, b, t, j: b * _gamma(o) ** sum(m < t for m in o["milestones"])
        ),
        "the lr drops one step after each milestone: a milestone m counts from t = m itself",
    ),
    (
        _wrong(
            "MultiStepLR",
            lambda o, b, t, j: b * _gamma(o) ** sum(m <= t for m in set(o["milestones"])),
        ),
        "a milestone listed twice counts once: each listing multiplies the lr by γ",
    ),
    (
        _wrong("MultiStepLR", lambda o, b, t, j: b * _gamma(o) ** (t in o["milestones"])),
        "γ applies only at a milestone step itself: every milestone reached so far keeps counting",
    ),
    (
        _wrong("StepLR", lambda o, b, t, j: b * _gamma(o) ** round(t / o["step_size"])),
        "the lr drops one step ahead, where a period is half over (t / step_size rounded, or "
        "t + 1 taken for t, gives that): only whole periods count",
    ),
    (
        _wrong(
            "StepLR",
            lambda o, b, t, j: b * _gamma(o) ** ((t - 1) // o["step_size"] + (t > 0)),
        ),
        "the lr drops at t = 1 already: the first drop comes at t = step_size",
    ),
    (
        _wrong("CosineAnnealingLR", lambda o, b, t, j: _cosine(o, b, t, o["T_max"] - 1)),
        "the cosine's half period is T_max − 1: the lr reaches η_min at t = T_max",
    ),
    (
        _wrong(
            "CosineAnnealingLR",
            lambda o, b, t, j: (
                o.get("eta_min", 0.0) + b * (1 + math.cos(math.pi * t / o["T_max"])) / 2
            ),
        ),
        "η_min is added to the whole base lr's cosine: the cosine spans base lr − η_min, so "
        "the lr starts at the base lr",
    ),
    (
        _wrong(
            "CosineAnnealingLR", lambda o, b, t, j: _cosine(o, b, min(t, o["T_max"]), o["T_max"])
        ),
        "after T_max the lr stays at η_min: the closed form goes on, the cosine rising again",
    ),
    (
        _wrong("CosineAnnealingLR", lambda o, b, t, j: _cosine(o, b, t, o["T_max"], 1.0)),
        "the cosine's factor is 1 + cos(πt/T_max), up to 2: it is halved, so the lr starts at "
        "the base lr",
    ),
    (_first_function, "every group follows group 0's function: each group has its own λ"),
    (
        _wrong("LambdaLR", _compounded),
        "the lr is the current lr times λ(t), which compounds: it is the base lr times λ(t)",
    ),
    (_first_base, "every group's lr follows group 0's base lr: each group scales its own"),
    (lambda case: [*case.expected[1:], None], SHIFTED.format("one step ahead")),
    (lambda case: [None, *case.expected], SHIFTED.format("one step behind")),
]
schedule_verdict = under(
    "rows of lrs",
    Fields(
        [
            Field(
                "rows of lrs.*.*", "the lr of group {j} at t = {i}", *LR, lambda case: case.expected
            )
        ],
        mistakes=[Mistake("rows of lrs.*.*", wrong, says) for wrong, says in SCHEDULE_MISTAKES],
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
        "fraction one short",
        "the phase fraction never reaches 1: it divides by the phase's length "
        "plus one, (t − start) / (end − start + 1)",
    ),
    (
        "fraction over the end",
        "the phase fraction divides by the phase's end step: it divides by its length, end − start",
    ),
    ("phases backwards", "each phase runs backwards, from its end value to its start value"),
    ("always cos", "the lr follows a cosine where anneal_strategy='linear'"),
]
CYCLE_MOMENTUM = [
    (
        "momentum backwards",
        "the momentum runs the wrong way in each phase, from its end value "
        "to its start value: it falls while the lr rises",
    ),
    ("momentum linear", "the momentum moves linearly where anneal_strategy='cos'"),
]


def _momentum(case: Case) -> str:
    return "β₁" if case.inputs["beta1"] else "momentum"


def _cycles(case: Case) -> bool:
    return case.expected[0]["momentum"] is not None


def _beta2(case: Case) -> list:
    """β₂ at every step: kept at 0.999 (None where the optimizer has momentum, not betas)."""
    kept = [0.999] * case.inputs["groups"] if case.inputs["beta1"] else None
    return [{"beta2": kept}] * len(case.expected)


FROM_ZERO = (
    "the phase fraction counts from the phase's start, pct = (t − start) / (end − start), start "
    "the step where the previous phase ended (t / end holds in the first phase only)"
)
NEVER_CYCLED = rules(  # a momentum (β₁) the same at every step
    (
        lambda case, got: (
            _cycles(case)
            and all(r["momentum"] == got["rows"][0]["momentum"] for r in got["rows"])
            and show(got["rows"][0]["momentum"])
        ),
        "{m} is {0} at every step: {m} is never cycled (set it from the same phase and fraction)",
    ),
    facts=lambda case, got: {"m": _momentum(case)},
)
one_cycle_verdict = Fields(  # each group's lr at every step, then momentum (β₁, β₂ kept)
    [Field("rows.*.lr.*", "lr of group {j} at t = {i}", *LR, lambda case: case.expected)],
    [
        Mistake(
            "rows.*.lr.*",
            _held,
            "from the last phase's end on the lr stays where it was the step before: no phase "
            "was taken there (the last phase covers every step after the one before it)",
        ),
        *(
            Mistake("rows.*.lr.*", partial(_cycled, bug=bug), says or FROM_ZERO)
            for bug, says in CYCLE_LR
        ),
        Mistake(
            "rows.*.lr.*",
            partial(_cycled, bug="", first_group=True),
            "every group anneals between group 0's values: each group has its own initial, max "
            "and min lr",
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
                        lambda c: _momentum(c) + " of group {j} at t = {i}",
                        *LR,
                        lambda case: case.expected,
                    ),
                    Field("rows.*.beta2", "β₂ at t = {i}", 0, 0, _beta2, says="only β₁ cycles"),
                ],
                [
                    *(
                        Mistake("rows.*.momentum.*", partial(_cycled, bug=bug), says)
                        for bug, says in CYCLE_MOMENTUM
                    ),
                    Mistake(
                        "rows.*.momentum.*",
                        _first_group_cycled,
                        "only group 0's momentum is cycled: the other groups' never move",
                    ),
                ],
            ),
        ),
        Fields([Field("past", "a step past total_steps", expected=lambda case: "ValueError")]),
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
        lambda case: f"that is the {q}-norm; norm_type={case.inputs['norm_type']!r}",
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
        "params[{i}].grad's dtype after clipping",
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
        lambda case, got: (
            f"raised {got['error']}"
            + (f", expected RuntimeError ({_nonfinite(case)})" if "error" in case.expected else "")
        ),
    ),
    (
        lambda case, got: _written(case, got["given"]) and "error" not in case.expected,
        "a gradient tensor was written into: set each p.grad to a new tensor (one tensor may be "
        "several leaves' .grad)",
    ),
    (
        lambda case, got: (
            math.isinf(case.expected.get("total") or 0)
            and got["total"] != math.inf
            and show(got["total"])
        ),
        "the returned total norm is {0}, expected inf",
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
    return f"the total norm is {what}: error_if_nonfinite refuses any total that is not finite"


TOTAL = [
    Field("total", "the returned total norm", tolerance=_tolerance),
    Field(
        "total_dtype",
        "the total norm's dtype",
        says=lambda case: (
            "the gradients' dtype"
            if any(g is not None for g in case.expected["grads"])
            else "with no gradient at all, tensor(0.): float32, as PyTorch returns"
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
        "that is the sum of the gradients' own norms: the total is the norm of all their "
        "entries together",
    ),
    Mistake(
        "total",
        lambda case: (
            _totals(case, lambda gs, q: max(np.abs(g).sum() for g in gs))
            if case.inputs["norm_type"] == "inf"
            else None
        ),
        "that is the largest sum of |entries|: a gradient's ∞-norm is its largest |entry|",
    ),
    Mistake(
        "total",
        lambda case: (
            _totals(case, lambda gs, q: max(g.max() for g in gs))
            if case.inputs["norm_type"] == "inf"
            else None
        ),
        "that is the largest entry, not the largest |entry|: a negative entry counts by its size",
    ),
    Mistake(
        "total",
        lambda case: (
            _totals(case, lambda gs, q: sum(_qnorm(g, q) ** 2 for g in gs) ** 0.5)
            if case.inputs["norm_type"] not in (2.0, "inf")
            else None
        ),
        lambda case: (
            f"the gradients' own norms are combined by a 2-norm: with norm_type="
            f"{case.inputs['norm_type']!r} the total is their {case.inputs['norm_type']!r}-norm"
        ),
    ),
    Mistake(
        "total",
        lambda case: (
            _totals(case, lambda gs, q: sum(((np.abs(g) ** q).sum()) ** q for g in gs) ** (1 / q))
            if case.inputs["norm_type"] != "inf"
            else None
        ),
        "each gradient's norm is missing its root: Σ|g|^q, not (Σ|g|^q)^(1/q)",
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
        "that is the norm after clipping: the returned total is the norm before",
    ),
    Mistake(
        "total_dtype",
        lambda case: "float",
        "the total norm is returned as a Python float: it is returned as a tensor",
    ),
    Mistake(
        "total_dtype",
        lambda case: "float32" if case.expected["total_dtype"] == "float64" else None,
        "the total norm is float32, the default dtype of a tensor made from a Python float: it "
        "is not in the gradients' dtype",
    ),
    Mistake(
        "total_dtype",
        lambda case: "float64" if case.expected["total_dtype"] == "float32" else None,
        "the total norm is float64: it is not in the gradients' dtype",
    ),
]
SCALED = [  # (a mistake's coefficient, its words); a non-finite total's first
    (
        lambda c, n: 1.0 if not math.isfinite(n) else np.minimum(c / (n + 1e-6), 1.0),
        "the total "
        "norm is not finite and the gradients were left as they were: the coefficient "
        "max_norm / (n + 1e-6) is 0 for an inf total and nan for a nan one, and scales every "
        "gradient",
    ),
    (
        lambda c, n: c / (n + 1e-6),
        "the coefficient is not capped at 1: gradients whose total "
        "norm is below max_norm are scaled up",
    ),
    (
        lambda c, n: np.maximum(c / (n + 1e-6), 1.0),
        "the coefficient is never below 1: it is "
        "capped from below, not from above, so nothing is scaled down",
    ),
    (
        lambda c, n: np.minimum(c / n, 1.0),
        "the coefficient is max_norm / n: 1e-6 is missing "
        "from the total's side, max_norm / (n + 1e-6)",
    ),
    (
        lambda c, n: np.minimum(c / n + 1e-6, 1.0),
        "1e-6 is added to the quotient: it is added to the total before dividing",
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
        "the new gradient is float64: it is not in the gradient's own dtype",
    ),
]
VALUE_MISTAKES = [
    Mistake(
        "grads.*",
        lambda case: _by_value(case, lambda g, c: np.minimum(g, c)),
        "only the entries above c are clipped: the entries below −c are clipped too",
    ),
    Mistake(
        "grads.*",
        lambda case: _by_value(case, lambda g, c: np.clip(g, 0, c)),
        "the entries are clipped to [0, c]: the range is [−c, c]",
    ),
    Mistake(
        "grads.*",
        lambda case: _by_value(case, lambda g, c: g * min(1.0, c / float(np.abs(g).max()))),
        "each gradient is scaled by c / max|g|: clip_grad_value_ clips each entry to [−c, c]",
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
            "the total norm is nan and the gradients were left as they were, where every one "
            "becomes nan: Python's min(1.0, nan) is 1.0 (a comparison with nan is False), so "
            "the coefficient lost the nan",
            recipe="take the coefficient with xp.minimum, which keeps a nan (as torch.clamp does)",
        ),
        *(Mistake("grads.*", partial(_scaled, coef=coef), says) for coef, says in SCALED),
        *(_norm(q) for q in (2.0, 1.0, math.inf)),
        Mistake(
            "grads.*",
            _own_norms,
            "each gradient is scaled by its own norm; the total norm is over all gradients "
            "together, n = ‖(g₁, g₂, …)‖_q (the norm of all their elements at once), and every "
            "gradient is scaled by the same min(1, max_norm / (n + 1e-6))",
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
        "SGD: momentum, dampening, Nesterov, weight decay",
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
        "Adam with _weight_decay overridden to return 2g",
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
        id="Adam.step calls self._weight_decay",  # the id hidden rows point at
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
        "AdamW: decoupled weight decay",
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

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
  ``step(closure)`` return the closure's loss. Known mistakes are named (no bias
  correction, a wrong step count, a buffer made anew or started from zeros, weight decay
  after the update, no look-ahead, AdamW's decay coupled, a group's options ignored, ε inside
  the square root). 6.5: ``Adam.step`` calls
  ``self._weight_decay(p, g, group)`` (an Adam subclass overrides it); 6.6:
  ``AdamW._weight_decay`` called directly, and AdamW trajectories (6.5 required).
- 6.7 ``state_dict`` (keys, indices in order across groups, options, the state copied:
  it does not change as training goes on) and ``load_state_dict`` into a fresh optimizer
  with other options over fresh parameters (float32 from float64 too): the state and step
  counts kept, options restored, parameters kept, then the same values as an
  uninterrupted run; mismatched groups refused (ValueError).
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
verdict and its ``requires``; the hidden checks (``autograder/hidden/ch06_optim``) are other
rows of these entries, by id. The verdicts are declarations: ``Fields`` (tolerances by dtype,
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
    adamw_decay_case,
    clip_case,
    clip_norm,
    groups_case,
    one_cycle,
    one_cycle_case,
    param_names,
    resume_case,
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
groups_verdict = first(Fields([Field("errors.*", _calls, 0, 0, says=_why)], keys=KEYS), GROUPS_MADE)


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
    before=rules(
        (
            lambda case, got: _old_changed(case, got["given"]),
            "zero_grad wrote into the old gradient tensor (another leaf may share it): set p.grad "
            "to a new tensor",
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
    "values dtypes objects leaves nodes replaced given returned closure_calls decay_calls "
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


STEPS_KEEP = rules(  # what the steps must leave as it was
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
    (
        lambda case, got: case.expected.decay_calls not in (None, got["decay_calls"]),
        "Adam.step called self._weight_decay {got[decay_calls]} times, expected "
        "{want.decay_calls} (once per parameter with a gradient per step: "
        "g = self._weight_decay(p, g, group))",
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


def rule(task: str, name: str, *rows: Callable, requires: tuple = GROUPS) -> Check:
    """An update rule's check: trajectories (``traj`` rows), judged step by step."""
    return Check(task, name, Rows(rows), programs.trajectory, trajectory_verdict, requires)


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
    "saved saved_later loaded state_dtypes options same_params final dtypes refused".split()
)
SAVED = "state_dict()['param_groups'][{i}]"
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
            lambda case, got: got["saved"].get("int_keys") is False,
            "state_dict()['state'] is keyed by something other than int indices: key each "
            "parameter's state by its int position across the groups, as PyTorch does",
        ),
        keys=RESUME_KEYS,
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
    _saved_state("after load_state_dict, state_dict()", "loaded", loose=True),
    rules(
        (
            lambda case, got: (
                case.expected.state and got["state_dtypes"] != case.expected.load_dtypes[:1]
            ),
            "after loading into {want.load_dtypes[0]} parameters the state tensors are "
            "{got[state_dtypes]}: cast floating state to the parameter's dtype",
        ),
        (
            lambda case, got: not all(got["same_params"]),
            "after load_state_dict, param_groups no longer hold this optimizer's own parameters",
        ),
    ),
    Fields(
        [
            Field(
                "options.*",
                "after load_state_dict, param_groups[{i}]",
                *TOLERANCE["float64"],
                lambda case: case.expected.options,
                says="take each saved group's options",
            ),
            Field(
                "final.*",
                "resumed after load_state_dict, then stepped: params[{i}]",
                tolerance=lambda case: TOLERANCE[_dtype(case, loose=True)],
                says="the uninterrupted run's value",
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
        ]
    ),
)


# -- 6.8, 6.9 -------------------------------------------------------------------------------


def under(key: str, verdict: Callable) -> Callable:
    """``verdict`` judging a program's bare value as the record ``{key: value}``."""
    return lambda case, received: verdict(case, {key: received})


LR = (1e-9, 1e-12)  # an lr's tolerances (rtol, atol)
SHIFTED = "the schedule is {}: t = last_epoch, the first value the base lr, at t = 0"
schedule_verdict = under(
    "rows of lrs",
    Fields(
        [
            Field(
                "rows of lrs.*.*", "the lr of group {j} at t = {i}", *LR, lambda case: case.expected
            )
        ],
        mistakes=[
            Mistake(
                "rows of lrs.*.*",
                lambda case: [*case.expected[1:], None],
                SHIFTED.format("one step ahead"),
            ),
            Mistake(
                "rows of lrs.*.*",
                lambda case: [None, *case.expected],
                SHIFTED.format("one step behind"),
            ),
        ],
    ),
)


def _from_zero(case: Case) -> list:
    """OneCycleLR's rows with each phase's fraction counted from step 0."""
    ins = case.inputs
    lrs = ins["max_lr"] if isinstance(ins["max_lr"], list) else [ins["max_lr"]] * ins["groups"]
    return [
        {"lr": [one_cycle(ins["steps"], m, t, ins["options"], "fraction from 0")[0] for m in lrs]}
        for t in range(ins["steps"] + 1)
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
    [Mistake("rows.*.lr.*", _from_zero, FROM_ZERO)],
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
                ]
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
CLIP_NORM = Fields(
    [*TOTAL, *GRADS],
    mistakes=[
        *(_norm(q) for q in (2.0, 1.0, math.inf)),
        Mistake(
            "grads.*",
            _nan_kept,
            "the total norm is nan, so every gradient becomes nan: Python's min(1.0, nan) is "
            "1.0 (a comparison with nan is False), so take min(1, c / (n + 1e-6)) with "
            "xp.minimum, which keeps the nan (as torch.clamp does)",
        ),
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
CLIP_VALUE = Fields(GRADS, before=CLIP_RULES, keys=CLIP_KEYS)  # clip_grad_value_: no total
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
        "Adam.step calls self._weight_decay",
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

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
rows of these entries, by id. AdamW._weight_decay's verdict is a declaration (fields,
tolerances by dtype, known mistakes); the update rules' is ``first`` of tables of (condition →
words) around the steps, each failing step named with the known mistake (``cases.BUGS``) whose
values it has; the others judge a record in the order a student fixes it. Check modules of
their own (``training.py``) add theirs at ``EXTRA`` at the end.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from ...harness.api import Case, Check, compare, show
from ...harness.table import (
    Field,
    Fields,
    Mistake,
    Rows,
    Rules,
    first,
    record,
    row,
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


def groups_verdict(case: Case, received: Any) -> str | None:
    problem = record(received, ("errors", "groups", "shares_list"))
    if problem:
        return problem
    want, items = case.expected, case.inputs["items"]
    for k, (w, got, item) in enumerate(zip(want["errors"], received["errors"], items)):
        call = "Optimizer([...], defaults)" if k == 0 else "add_param_group"
        call = f"{call} with {_item_text(item)}"
        if w != got and w is None:
            return f"{call} raised {got}; it is a valid group"
        if w != got:
            reason = next(why for shows, why in REFUSED if shows(case.inputs["defaults"], item))
            return f"{call} raised {got}; expected {w} ({reason})"
    if len(received["groups"]) != len(want["groups"]):
        return f"param_groups has {len(received['groups'])} groups, expected {len(want['groups'])}"
    for i, (w, got) in enumerate(zip(want["groups"], received["groups"])):
        if got["params"] != w["params"]:
            return (
                f"param_groups[{i}]['params'] is {show(got['params'])}, expected the list "
                f"{show(w['params'])} (a single Tensor becomes [tensor], an iterable list(...))"
            )
        for key, value in ((k, v) for k, v in w.items() if k != "params"):
            if key not in got:
                return (
                    f"param_groups[{i}] has no {key!r}: fill each option it does not set from "
                    "self.defaults"
                )
            if got[key] != value:
                return (
                    f"param_groups[{i}][{key!r}] is {show(got[key])}, expected {show(value)} (a "
                    "group's own option wins over the default)"
                )
    if received["shares_list"]:
        return (
            f"param_groups[{received['shares_list'][0]}]['params'] is the very list the caller "
            "gave: make a new one (list(params)), or a later change to the caller's list reaches "
            "the optimizer"
        )
    return None


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


def zero_grad_verdict(case: Case, received: Any) -> str | None:
    problem = record(received, ("a", "b", "c", "d", "old_changed"))
    if problem:
        return problem
    if received["old_changed"]:
        return (
            "zero_grad wrote into the old gradient tensor (another leaf may share it): set p.grad "
            "to a new tensor"
        )
    if received["b"] is not None:
        return "b had no gradient and has one after zero_grad: skip parameters whose grad is None"
    for name, shape in (("a", (3,)), ("c", (3,)), ("d", (1, 2))):
        got, dtype = received[name], case.expected["dtype"] if name == "d" else "float64"
        if case.expected["set_to_none"]:
            if got is not None:
                return f"after zero_grad(), {name}.grad is {show(got['values'])}, expected None"
            continue
        if got is None:
            return f"after zero_grad(set_to_none=False), {name}.grad is None, expected zeros"
        if got["old"]:
            return (
                f"zero_grad(set_to_none=False) kept {name}'s old gradient object: make a new "
                "tensor of zeros"
            )
        problem = _close(got["values"], np.zeros(shape), dtype, f"{name}.grad")
        if not problem and got["dtype"] != dtype:
            problem = (
                f"{name}.grad's zeros are {got['dtype']}, expected {dtype} (the gradient's own "
                "dtype)"
            )
        if problem:
            return problem
    return None


# -- 6.2–6.6 --------------------------------------------------------------------------------


def _step_values(case: Case, t: int, bug: str) -> list:
    ins = case.inputs
    groups = ins["groups"]
    if ins["contract"]:
        groups = [{**g, "_decay": "double"} for g in groups]
    values, _ = simulate(
        ins["optimizer"], ins["defaults"], groups, ins["params"], ins["grads"][: t + 1], bug
    )
    return values[t]


def _named_bug(case: Case, t: int, got: list) -> str | None:
    """The known mistake (``cases.BUGS``) whose values at step t are the ones received."""
    name = case.inputs["optimizer"]
    bugs = list(BUGS.get(name, ()))
    if len(case.inputs["groups"]) > 1 or any(len(g) > 1 for g in case.inputs["groups"]):
        bugs.append("group options ignored")
    dtypes = case.expected.dtypes
    for bug in bugs:
        want = _step_values(case, t, bug)
        if all(_close(g, w, d) is None for g, w, d in zip(got, want, dtypes)):
            if all(
                _close(g, w, d) is None for g, w, d in zip(got, case.expected.values[t], dtypes)
            ):
                continue
            return BUG_TEXT[bug]
    return None


def _entries(got: dict, want: dict, dtype: str, where: str, step: str) -> str | None:
    """A parameter's state entries against the rule's: "step" the same Python int (``step``:
    the words after "expected", ``{}`` the count), the tensors within ``dtype``'s tolerance."""
    for name, value in want.items():
        if name != "step":
            problem = _close(got[name], value, dtype, f"{where}[{name!r}]")
            if problem:
                return problem
        elif got[name] != value or type(got[name]) is not int:
            kind = type(got[name]).__name__
            return f"{where}['step'] is {show(got[name])} ({kind}), expected {step.format(value)}"
    return None


def _final_state_problem(received: Any, want: Any) -> str | None:
    """The state after the last step, against the rule's: keyed by the parameters
    themselves, the same entries (none for a parameter that never had a gradient), the same
    step count and tensors (what state_dict() will save and a resume will need)."""
    if want.state is None:
        return None
    if received["state_arrays"]:
        return (
            f"after the last step the state holds {received['state_arrays']} as bare arrays: "
            "keep Tensors in the state (state_dict() copies them and load_state_dict casts them)"
        )
    if not received["state_keyed"]:
        return (
            "self.state has keys that are not the parameters: key it by the tensor itself "
            "(self.state[p]), not id(p) or a name, so state_dict() finds each parameter's state"
        )
    for i, (got, w) in enumerate(zip(received["state"], want.state)):
        where = f"after the last step, state[params[{i}]]"
        if not isinstance(got, dict):
            return f"{where} is {show(got)}, expected a dict"
        got = {k: v for k, v in got.items() if v is not None}  # PyTorch 1.x's None buffers
        if sorted(got) != sorted(w):
            hint = (
                " (this parameter never had a gradient: it gets no state)"
                if not w
                else " (make only the entries the rule uses, as PyTorch does)"
            )
            return f"{where} holds {sorted(got)}, expected {sorted(w)}{hint}"
        step = "the int {} (a Python int counting this parameter's steps)"
        problem = _entries(got, w, want.dtypes[i], where, step)
        if problem:
            return problem
    return None


TRAJECTORY_KEYS = tuple(
    "values dtypes objects leaves nodes written returned closure_calls decay_calls state_keyed "
    "state_arrays state".split()
)


STEPS_KEEP = Rules.of(  # what the steps must leave as it was
    (
        lambda case, got: got["nodes"],
        lambda case, got: (
            f"step() recorded {got['nodes']} graph nodes: an update is not part of the model; "
            "work on arrays (p.data, p.grad.data, the state's .data) so nothing is recorded"
        ),
    ),
    (
        lambda case, got: not got["leaves"],
        "after step() a parameter is no longer a leaf that requires grad: change p.data in place",
    ),
    (
        lambda case, got: got["written"],
        lambda case, got: (
            f"step {got['written'][0][0] + 1} wrote into params[{got['written'][0][1]}].grad (or "
            "replaced it): never change p.grad, one gradient tensor may be the .grad of several "
            "leaves (g = g + λp makes a new array)"
        ),
    ),
    (
        lambda case, got: not got["objects"],
        "after step() param_groups holds other objects than the parameters given",
    ),
)
STEPS_DO = Rules.of(  # what the steps must do besides
    (
        lambda case, got: case.expected.closure and got["closure_calls"] != case.expected.steps,
        lambda case, got: (
            f"step(closure) called the closure {got['closure_calls']} times in "
            f"{case.expected.steps} steps, expected once per step"
        ),
    ),
    (
        lambda case, got: case.expected.closure and got["returned"] != _losses(case),
        lambda case, got: (
            f"step(closure) returned {show(got['returned'])}, expected the closure's losses "
            f"{show(_losses(case))}"
        ),
    ),
    (
        lambda case, got: case.expected.decay_calls not in (None, got["decay_calls"]),
        lambda case, got: (
            f"Adam.step called self._weight_decay {got['decay_calls']} times, expected "
            f"{case.expected.decay_calls} (once per parameter with a gradient per step: "
            "g = self._weight_decay(p, g, group))"
        ),
    ),
)


def _losses(case: Case) -> list[float]:
    """The closure's losses, one per step."""
    return [0.5 + t for t in range(case.expected.steps)]


def _steps_problem(case: Case, received: Any) -> str | None:
    """Each parameter's dtype, then its values after each step: the first that differs,
    named with the known mistake (``cases.BUGS``) that gives it."""
    want: Any = case.expected
    for i, (got, w) in enumerate(zip(received["dtypes"], want.dtypes)):
        if got != w:
            return f"after step(), params[{i}] is {got}, expected {w} (a parameter keeps its dtype)"
    grads = case.inputs["grads"]
    for t in range(want.steps):
        got, expected = received["values"][t], want.values[t]
        for i, (g, w) in enumerate(zip(got, expected)):
            problem = _close(g, w, want.dtypes[i], f"params[{i}] after step {t + 1}")
            if not problem:
                continue
            if grads[t][i] is None:
                before = want.values[t - 1][i] if t else case.inputs["params"][i]
                if _close(g, w, want.dtypes[i]) and not _close(before, w, want.dtypes[i]):
                    return (
                        f"params[{i}] has no gradient at step {t + 1} (grad None) and still moved: "
                        "skip it, state and all"
                    )
            named = _named_bug(case, t, got)
            where = f" (group {want.groups[i]})" if len(case.inputs["groups"]) > 1 else ""
            return problem + where + (f": {named}" if named else "")
    return None


trajectory_verdict = first(
    lambda case, received: record(received, TRAJECTORY_KEYS),
    STEPS_KEEP,
    _steps_problem,
    lambda case, received: _final_state_problem(received, case.expected),
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
    before=Rules.of(
        (
            lambda case, got: got["g_changed"],
            "AdamW._weight_decay wrote into the gradient array: return g unchanged",
        ),
        (
            lambda case, got: got["dtype"] != case.expected["dtype"],
            lambda case, got: (
                f"p is {got['dtype']} after _weight_decay, expected {case.expected['dtype']}"
            ),
        ),
    ),
    keys=("returned", "p", "dtype", "g_changed"),
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


def _state_problem(got: Any, want: dict, dtype: str, what: str) -> str | None:
    if not isinstance(got, dict):
        return f"{what}['state'] is {show(got)}, expected a dict by index"
    if sorted(got) != sorted(want):
        return (
            f"{what}['state'] has the indices {sorted(got)}, expected {sorted(want)} (each "
            "parameter with a state, by its position across the groups)"
        )
    for key, names in want.items():
        entry = got[key]
        if sorted(entry) != sorted(names):
            return f"{what}['state'][{key}] holds {sorted(entry)}, expected {sorted(names)}"
        step = "{} (keep the step count, a Python int)"
        problem = _entries(entry, names, dtype, f"{what}['state'][{key}]", step)
        if problem:
            return problem
    return None


def _state_of(snapshot: Any) -> Any:
    """A snapshot's state (what ``programs._snapshot`` saw), or what came instead."""
    return snapshot.get("state") if isinstance(snapshot, dict) else snapshot


def _options_problem(got: dict, options: dict, where: str, expected: str) -> str | None:
    """A group's options against the saved ones: the first one missing or another."""
    for key, value in options.items():
        if key not in got or _close(got[key], value, "float64"):
            return f"{where}[{key!r}] is {show(got.get(key))}, expected {expected}{show(value)}"
    return None


RESUME_KEYS = tuple(
    "saved saved_later loaded state_dtypes options same_params final dtypes refused".split()
)


def resume_verdict(case: Case, received: Any) -> str | None:
    problem = record(received, RESUME_KEYS)
    if problem:
        return problem
    w: Any = case.expected
    dtype = str(np.asarray(case.inputs["params"][0]).dtype)
    loose = "float32" if "float32" in (dtype, w.load_dtypes[0]) else "float64"
    saved = received["saved"]
    if not isinstance(saved, dict) or saved.get("keys") != ["param_groups", "state"]:
        return (
            f"state_dict() returned {show(saved)}, expected a dict with 'state' and 'param_groups'"
        )
    if saved.get("int_keys") is False:
        return (
            "state_dict()['state'] is keyed by something other than int indices: key each "
            "parameter's state by its int position across the groups, as PyTorch does"
        )
    groups = saved["param_groups"]
    if len(groups) != len(w.indices):
        return f"state_dict()['param_groups'] has {len(groups)} groups, expected {len(w.indices)}"
    for i, (g, ix, options) in enumerate(zip(groups, w.indices, w.options)):
        if g.get("params") != ix:
            return (
                f"state_dict()['param_groups'][{i}]['params'] is {show(g.get('params'))}, expected "
                f"{ix} (each parameter's index in order of first appearance across the groups)"
            )
        problem = _options_problem(g, options, f"state_dict()['param_groups'][{i}]", "")
        if problem:
            return problem
    problem = _state_problem(saved["state"], w.state, dtype, "state_dict()")
    if problem:
        return problem
    if _state_problem(_state_of(received["saved_later"]), w.state, dtype, "state_dict()"):
        return (
            "the dict state_dict() returned changed as training went on: copy the state "
            "tensors (the snapshot must not share arrays with the optimizer, nor with the one "
            "that loads it)"
        )
    loaded = _state_of(received["loaded"])
    problem = _state_problem(loaded, w.state, loose, "after load_state_dict, state_dict()")
    if problem:
        return problem
    if w.state and received["state_dtypes"] != [w.load_dtypes[0]]:
        return (
            f"after loading into {w.load_dtypes[0]} parameters the state tensors are "
            f"{received['state_dtypes']}: cast floating state to the parameter's dtype"
        )
    for i, (got, options) in enumerate(zip(received["options"], w.options)):
        where = f"after load_state_dict, param_groups[{i}]"
        problem = _options_problem(got, options, where, "the saved ")
        if problem:
            return problem + " (take each saved group's options)"
    if not all(received["same_params"]):
        return "after load_state_dict, param_groups no longer hold this optimizer's own parameters"
    for i, (got, want) in enumerate(zip(received["final"], w.final)):
        problem = _close(got, want, loose, f"params[{i}]")
        if problem:
            return (
                f"resumed after load_state_dict, then stepped: {problem} (the uninterrupted run's "
                "value)"
            )
    if received["dtypes"] != w.load_dtypes:
        return (
            f"the loaded parameters are {received['dtypes']} at the end, expected {w.load_dtypes}"
        )
    for what, got in zip(
        ("another number of groups", "a group of another size"), received["refused"]
    ):
        if got != "ValueError":
            return f"load_state_dict of a state_dict with {what} raised {got}, expected ValueError"
    return None


# -- 6.8, 6.9 -------------------------------------------------------------------------------


def _lrs_match(got: Any, want: Any) -> bool:
    return compare(got, want, rtol=1e-9, atol=1e-12) is None


def schedule_verdict(case: Case, received: Any) -> str | None:
    want = case.expected
    if not isinstance(received, list) or len(received) != len(want):
        return f"expected {len(want)} rows of lrs, received {show(received)}"
    for t, (got, w) in enumerate(zip(received, want)):
        if _lrs_match(got, w):
            continue
        when = "at construction (t = 0)" if t == 0 else f"after {t} step(s) (t = {t})"
        text = f"the lrs {when} are {show(got)}, expected {show(w)}"
        for shift, words in ((1, "one step ahead"), (-1, "one step behind")):
            other = t + shift
            if (
                0 <= other < len(want)
                and _lrs_match(got, want[other])
                and not _lrs_match(w, want[other])
            ):
                return (
                    f"{text}: the schedule is {words} (t = last_epoch; the first value is the base "
                    "lr, at t = 0)"
                )
        return text
    return None


def _by_group(got: Any, want: list, what: str, t: int) -> str | None:
    """The groups' values at step t, each named by its group ("lr of group 0 at t = 6")."""
    if not isinstance(got, (list, tuple)) or len(got) != len(want):
        return compare(got, want, rtol=1e-9, atol=1e-12, path=f"{what} at t = {t}")
    for i, (g, w) in enumerate(zip(got, want)):
        problem = compare(g, w, rtol=1e-9, atol=1e-12, path=f"{what} of group {i} at t = {t}")
        if problem:
            return problem
    return None


def _cycle_bug(case: Case, got: Any, t: int) -> str:
    """ ": <the mistake>" where the lrs received at step t are a known mistake's, else ""."""
    ins = case.inputs
    lrs = ins["max_lr"] if isinstance(ins["max_lr"], list) else [ins["max_lr"]] * ins["groups"]
    wrong = [one_cycle(ins["steps"], m, t, ins["options"], "fraction from 0")[0] for m in lrs]
    if _lrs_match(got, wrong):
        return (
            ": the phase fraction counts from the phase's start, pct = (t − start) / (end − "
            "start), start the step where the previous phase ended (t / end holds in the first "
            "phase only)"
        )
    return ""


def one_cycle_verdict(case: Case, received: Any) -> str | None:
    problem = record(received, ("rows", "past"))
    if problem:
        return problem
    rows, want = received["rows"], case.expected
    if len(rows) != len(want):
        return f"expected {len(want)} rows, received {len(rows)}"
    beta1 = case.inputs["beta1"]
    name = "β₁" if beta1 else "momentum"
    for t, (got, w) in enumerate(zip(rows, want)):
        problem = _by_group(got["lr"], w["lr"], "lr", t)
        if problem:
            return problem + _cycle_bug(case, got["lr"], t)
        if w["momentum"] is not None:
            problem = _by_group(got["momentum"], w["momentum"], name, t)
            if problem and all(r["momentum"] == rows[0]["momentum"] for r in rows):
                return (
                    problem + f": {name} is never cycled (set it from the same phase and fraction)"
                )
            if problem:
                return problem
            if beta1 and got.get("beta2") != [0.999] * len(w["lr"]):
                return f"β₂ at t = {t} is {show(got.get('beta2'))}, expected 0.999 (only β₁ cycles)"
    if received["past"] != "ValueError":
        return f"a step past total_steps raised {received['past']}, expected ValueError"
    return None


# -- 6.10 -----------------------------------------------------------------------------------


def _given(ins: dict) -> list:
    """The clipped gradients as arrays (a shared one: its owner's again; None: no gradient)."""
    return [g if not isinstance(g, int) or g is None else ins["grads"][g] for g in ins["grads"]]


def _total_problem(case: Case, received: Any) -> str | None:
    """clip_grad_norm_'s returned total: its value (another norm named), then its dtype."""
    w, ins, dtype = case.expected, case.inputs, case.expected["dtype"]
    if math.isinf(w["total"]):  # error_if_nonfinite=False: the inf is returned
        if received["total"] != w["total"]:
            return f"the returned total norm is {show(received['total'])}, expected inf"
    else:
        problem = _close(received["total"], w["total"], dtype, "the returned total norm")
        if problem:
            given = [g for g in _given(ins) if g is not None]
            for q in (2.0, 1.0, math.inf):
                if not _close(received["total"], clip_norm(given, 1.0, q)[0], dtype):
                    return problem + f" (that is the {q}-norm; norm_type={ins['norm_type']!r})"
            return problem
    if received["total_dtype"] != w.get("total_dtype", dtype):
        if not any(g is not None for g in w["grads"]):
            return (
                f"with no gradient at all the total norm is {received['total_dtype']}, "
                "expected tensor(0.) (float32, as PyTorch returns)"
            )
        return (
            f"the total norm is {received['total_dtype']}, expected a {dtype} tensor (the "
            "gradients' dtype)"
        )
    return None


def clip_verdict(case: Case, received: Any) -> str | None:
    problem = record(received, ("error", "total", "total_dtype", "grads", "dtypes", "written"))
    if problem:
        return problem
    w, ins = case.expected, case.inputs
    if "error" in w and received["error"] != w["error"]:
        what = "nan" if ins["nonfinite"] in ("nan", "quiet nan") else "inf"
        return (
            f"raised {received['error']}, expected RuntimeError (the total norm is {what}: "
            "error_if_nonfinite refuses any total that is not finite)"
        )
    if "error" in w:
        return None
    if received["error"]:
        return f"raised {received['error']}"
    if received["written"]:
        return (
            "a gradient tensor was written into: set each p.grad to a new tensor (one tensor may "
            "be several leaves' .grad)"
        )
    dtype = w["dtype"]
    problem = None if ins["by_value"] else _total_problem(case, received)
    if problem:
        return problem
    for i, (got, want) in enumerate(zip(received["grads"], w["grads"])):
        if want is None:
            if got is not None:
                return f"params[{i}] had no gradient and has one after clipping"
            continue
        problem = _close(got, want, dtype, f"params[{i}].grad")
        if problem:
            return problem + ("" if ins["by_value"] else _clip_bug(case, received["grads"]))
        if received["dtypes"][i] != dtype:
            return f"params[{i}].grad is {received['dtypes'][i]} after clipping, expected {dtype}"
    return None


def _clip_bug(case: Case, got: list) -> str:
    """ ": <the mistake>" where the clipped gradients received are a known mistake's: each
    gradient scaled by its own norm, or a nan total that scaled nothing; else ""."""
    ins, w = case.inputs, case.expected
    real = _given(ins)
    if w["total"] is not None and math.isnan(w["total"]):
        return (
            ": the total norm is nan, so every gradient becomes nan: Python's min(1.0, nan) is "
            "1.0 (a comparison with nan is False), so take min(1, c / (n + 1e-6)) with "
            "xp.minimum, which keeps the nan (as torch.clamp does)"
        )
    norm = math.inf if ins["norm_type"] == "inf" else float(ins["norm_type"])
    with np.errstate(invalid="ignore", divide="ignore"):
        own = [None if g is None else clip_norm([g], ins["max_norm"], norm)[1][0] for g in real]
    if len([g for g in real if g is not None]) > 1 and all(
        (o is None) == (g is None) and (o is None or _close(g, o, w["dtype"]) is None)
        for g, o in zip(got, own)
    ):
        return (
            ": each gradient is scaled by its own norm; the total norm is over all gradients "
            "together, n = ‖(g₁, g₂, …)‖_q (the norm of all their elements at once), and every "
            "gradient is scaled by the same min(1, max_norm / (n + 1e-6))"
        )
    return ""


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
        zero_grad_verdict,
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

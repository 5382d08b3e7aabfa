"""Chapter 6's check programs: the only part of the checks that runs next to the code under
test (standard library and NumPy only). Each returns what it saw and decides nothing.

No program runs a backward pass or a Tensor operation of chapters 2–5: gradients are set by
hand (``p.grad = Tensor(array)``, given code), and the base ``Optimizer`` with a dict of
defaults stands for an optimizer where a check needs only param groups (the schedules), so
a student's chapter-6 checks judge chapter 6 alone."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...harness.kit import attempt, host, on_device, raised, tensor


def plain(value: Any) -> Any:
    """An option's value as plain data (tuples as lists)."""
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return f"<{type(value).__name__}>"


class NodeCount:
    """Counts the graph nodes made while it is entered (``Node.__init__`` wrapped: given
    code, the same in every tree)."""

    def __init__(self, sp) -> None:
        self.node, self.count = sp.Node, 0

    def __enter__(self) -> NodeCount:
        self.original = self.node.__dict__["__init__"]
        original = self.original

        def __init__(node: Any, *args: Any, **kwargs: Any) -> None:
            self.count += 1
            original(node, *args, **kwargs)

        self.node.__init__ = __init__
        return self

    def __exit__(self, *exc: Any) -> None:
        self.node.__init__ = self.original


# -- 6.1 ------------------------------------------------------------------------------------


def param_groups(sp, defaults: dict, items: list) -> dict:
    """Optimizer(items[0], defaults), then add_param_group(item) for each later item: each
    call's error, and the groups (parameters by name, options) at the end."""
    tensors = {name: tensor(sp, [1.0, 2.0], True) for name in "abcd"}
    fake = sp.Tensor(np.array([1.0]), requires_grad=True)
    tensors["n"] = sp.Tensor(np.array([3.0, 4.0]), requires_grad=True)
    tensors["n"].grad_fn = sp.Node(sp.Function, sp.Context((True,)), (fake,))
    tensors["f"] = sp.Tensor(np.array([5.0, 6.0]))  # a leaf that does not require grad
    required = sp.optim.optimizer.required
    defaults = {k: (required if v == "required" else v) for k, v in defaults.items()}

    def params(spec: Any) -> Any:
        if isinstance(spec, list):
            return [tensors[n] for n in spec]
        kind, _, names = spec.partition(":")
        if kind == "set":
            return {tensors[n] for n in names}
        if kind == "gen":
            return (tensors[n] for n in names)
        if kind == "tuple":
            return tuple(tensors[n] for n in names)
        if kind == "str":
            return [tensors["a"], names]
        return tensors[spec]

    errors, opt, given = [], None, []
    for item in items:
        group = {**item, "params": params(item["params"])}
        if isinstance(group["params"], list):
            given.append(group["params"])
        if opt is None:
            made = attempt(lambda g=group: sp.optim.Optimizer([g], defaults))
            opt = made["value"]
            errors.append(made["error"])
        else:
            errors.append(raised(lambda g=group, o=opt: o.add_param_group(g))["error"])
    names = {id(t): n for n, t in tensors.items()}
    groups = []
    for group in opt.param_groups if opt is not None else []:
        ps = group.get("params")
        entry = {k: plain(v) for k, v in group.items() if k != "params"}
        entry["params"] = (
            [names.get(id(p), "?") for p in ps]
            if isinstance(ps, list)
            else f"<{type(ps).__name__}>"
        )
        groups.append(entry)
    shared = [
        i
        for i, group in enumerate(opt.param_groups if opt is not None else [])
        if any(group.get("params") is lst for lst in given)
    ]
    defaults_shared = [
        i
        for i, group in enumerate(opt.param_groups if opt is not None else [])
        if group is opt.defaults
    ]
    return {
        "errors": errors,
        "groups": groups,
        "shares_list": shared,
        "defaults_shared": defaults_shared,
    }


def zero_grad(sp, set_to_none: bool, dtype: str, shared: list, own: list) -> dict:
    """a, b, c, d as zero_grad_case says (a and c share the gradient ``shared``; d's own
    gradient ``own`` holds an inf); per parameter after zero_grad: None or (values, dtype,
    whether it is the old object); and the values the old gradient tensors hold after the
    call (the parent compares them with the values it sent)."""
    a, b, c = (tensor(sp, [1.0, -2.0, 3.0], True) for _ in range(3))
    d = tensor(sp, [[1.5, 2.5]], True, dtype)
    shared = sp.Tensor(np.array(shared, dtype="float64"))
    own = sp.Tensor(np.array(own, dtype=dtype))
    a.grad, c.grad, d.grad = shared, shared, own
    opt = sp.optim.Optimizer([{"params": [a, b]}, {"params": [c, d]}], {"lr": 0.1})
    opt.zero_grad(set_to_none=set_to_none)
    out = {}
    for name, p, old in (("a", a, shared), ("b", b, None), ("c", c, shared), ("d", d, own)):
        g = p.grad
        if g is None:
            out[name] = None
        else:
            out[name] = {"values": np.array(host(g)), "dtype": str(g.data.dtype), "old": g is old}
    out["given"] = [np.array(host(shared)), np.array(host(own))]
    return out


# -- 6.2–6.6 --------------------------------------------------------------------------------


def make_optimizer(
    sp, name: str, params: list, groups: list, defaults: dict, contract: bool = False
) -> Any:
    kind = getattr(sp.optim, name)
    if contract:
        calls = []

        class Recorded(kind):
            def _weight_decay(self, p: Any, g: Any, group: dict) -> Any:
                calls.append(1)
                return 2.0 * g

        kind = Recorded
    options = {k: (tuple(v) if k == "betas" else v) for k, v in defaults.items()}
    spec = [
        {
            **{k: (tuple(v) if k == "betas" else v) for k, v in g.items()},
            "params": [params[i] for i in g["params"]],
        }
        for g in groups
    ]
    opt = kind(spec, **options)
    if contract:
        opt._calls = calls
    return opt


def set_grads(sp, params: list, row: list) -> list:
    """Each parameter's ``.grad`` for one step (an int: the same object as that one's)."""
    made: list = []
    for p, g in zip(params, row):
        if isinstance(g, int) and not isinstance(g, bool):
            t = made[g]
        else:
            t = None if g is None else sp.Tensor(np.array(g))
        p.grad = t
        made.append(t)
    return made


def trajectory(
    sp,
    optimizer: str,
    defaults: dict,
    groups: list,
    params: list,
    grads: list,
    closure: bool,
    contract: bool,
) -> dict:
    """The steps of a trajectory case: the values after each step, what the steps did
    besides (nodes made, each .grad a step replaced, the values the gradient tensors set
    before a step hold after it, for the parent to compare with what it sent; objects and
    dtypes, the closure's loss), and the state at the end (whether ``opt.state`` is keyed by
    the parameters, any bare arrays in it, each parameter's entries)."""
    ps = [tensor(sp, p, True, str(np.asarray(p).dtype)) for p in params]
    datas = [p.data for p in ps]
    opt = make_optimizer(sp, optimizer, ps, groups, defaults, contract)
    values, replaced, given, returned, calls, sets = [], [], [], [], 0, []
    nodes = 0
    for t, row in enumerate(grads):
        made = set_grads(sp, ps, row)
        sets.append(made)

        def loss(t: int = t) -> float:
            nonlocal calls
            calls += 1
            return 0.5 + t

        with NodeCount(sp) as counter:
            got = opt.step(loss) if closure else opt.step()
        nodes += counter.count
        returned.append(plain(got) if not isinstance(got, float) else got)
        # an identity no value can witness: is each .grad still the tensor set before step()?
        replaced += [
            [t, i] for i, (p, g) in enumerate(zip(ps, made)) if g is not None and p.grad is not g
        ]
        given.append([None if g is None else np.array(host(g)) for g in made])
        values.append([np.array(host(p)) for p in ps])
    return {
        "values": values,
        "dtypes": [str(p.data.dtype) for p in ps],
        "objects": all(
            p is q
            for p, q in zip(ps, [g for group in opt.param_groups for g in group["params"]] or ps)
        )
        and all(_same_kind(p.data, d) for p, d in zip(ps, datas)),
        "same_arrays": [p.data is d for p, d in zip(ps, datas)],
        "leaves": all(p.grad_fn is None and p.requires_grad for p in ps),
        "nodes": nodes,
        "replaced": replaced,
        "given": given,
        # the values each step's gradient tensors hold after the last step (a state that kept
        # a gradient's own array changes it later)
        "kept": [[None if g is None else np.array(host(g)) for g in made] for made in sets],
        "returned": returned,
        "closure_calls": calls,
        "decay_calls": len(opt._calls) if contract else None,
        "state_keyed": all(any(k is p for p in ps) for k in opt.state),
        "state_arrays": sorted(
            {
                str(n)
                for s in opt.state.values()
                if isinstance(s, dict)
                for n, v in s.items()
                if isinstance(v, np.ndarray) or on_device(v)
            }
        ),
        "state": [
            {str(n): _state_value(v) for n, v in opt.state[p].items()}
            if any(k is p for k in opt.state) and isinstance(opt.state[p], dict)
            else {}
            for p in ps
        ],
    }


def _same_kind(data: Any, made: Any) -> bool:
    """Whether a parameter still holds a plain array of the kind it was made with: NumPy's,
    or (checks on a device) the device's."""
    return (
        isinstance(data, np.ndarray) if isinstance(made, np.ndarray) else type(data) is type(made)
    )


def adamw_decay(sp, lr: float, weight_decay: float, dtype: str, g: list) -> dict:
    """AdamW._weight_decay(p, g, group) called directly, g an array of ``g``'s values: what it
    returns, p after, and g's values after (the parent compares them with what it sent)."""
    p = tensor(sp, [[1.0, -2.0], [0.5, 4.0]], True, dtype)
    q = tensor(sp, [1.0], True, dtype)
    opt = sp.optim.AdamW([p, q], lr=lr, weight_decay=weight_decay)
    g = np.array(g, dtype=dtype)
    out = opt._weight_decay(p, g, opt.param_groups[0])
    data = out if isinstance(out, np.ndarray) else getattr(out, "data", None)
    return {
        "returned": np.array(data) if isinstance(data, np.ndarray) else plain(out),
        "p": np.array(host(p)),
        "dtype": str(p.data.dtype),
        "g": np.array(g),
    }


# -- 6.7 ------------------------------------------------------------------------------------


def _state_value(v: Any) -> Any:
    data = getattr(v, "data", None)
    if isinstance(data, np.ndarray) or on_device(data):
        return np.array(host(data))
    if isinstance(v, np.ndarray) or on_device(v):
        return np.array(host(v))
    return plain(v)


def _snapshot(sd: Any) -> Any:
    if not isinstance(sd, dict):
        return f"<{type(sd).__name__}>"
    state = sd.get("state")
    return {
        "keys": sorted(str(k) for k in sd),
        "int_keys": isinstance(state, dict) and all(type(k) is int for k in state),
        "state": {str(k): {n: _state_value(v) for n, v in s.items()} for k, s in state.items()}
        if isinstance(state, dict)
        else f"<{type(state).__name__}>",
        "param_groups": [
            {k: plain(list(v) if k == "params" else v) for k, v in g.items()}
            for g in sd.get("param_groups", [])
        ],
    }


def resume(
    sp,
    optimizer: str,
    defaults: dict,
    groups: list,
    params: list,
    grads: list,
    before: int,
    load_dtype: str,
    warm: bool = False,
) -> dict:
    """Run ``before`` steps, save, go on (the saved dict must not change), load into a new
    optimizer over new parameters (``warm``: one that has taken a step of its own), finish;
    refusals of mismatched groups. ``straight``: the same steps by one more optimizer that
    is never saved nor loaded (where it differs from the reference's run too, the steps
    differ, not the resume)."""
    dtype = str(np.asarray(params[0]).dtype)
    run = attempt(lambda: _straight(sp, optimizer, defaults, groups, params, grads, dtype))
    straight = run["value"] if run["error"] is None else f"<{run['error']}: {run['message']}>"
    ps = [tensor(sp, p, True, dtype) for p in params]
    opt = make_optimizer(sp, optimizer, ps, groups, defaults)
    for row in grads[:before]:
        set_grads(sp, ps, row)
        opt.step()
    sd = opt.state_dict()
    # the saving optimizer's own groups, after state_dict(): still its parameters?
    kept_groups = [
        len(g.get("params", [])) == len(spec["params"])
        and all(q is ps[i] for q, i in zip(g.get("params", []), spec["params"]))
        for g, spec in zip(opt.param_groups, groups)
    ]
    first = _snapshot(sd)
    qs = [tensor(sp, np.array(host(p)), True, load_dtype) for p in ps]
    # a fresh optimizer with other options: the loaded ones must win
    other = {**defaults, "lr": defaults.get("lr", 1e-3) * 7}
    fresh = make_optimizer(sp, optimizer, qs, groups, other)
    if warm:  # the loading optimizer has stepped already: its own state must go
        set_grads(sp, qs, grads[before])
        fresh.step()
        for q, p in zip(qs, ps):
            q.data[...] = p.data
            q.grad = None
    load = attempt(lambda: fresh.load_state_dict(sd))
    if load["error"]:  # the rest needs a loaded optimizer: the saved dicts are still judged
        keys = "loaded state_dtypes options same_params final dtypes"  # en-only: record keys
        none = dict.fromkeys(keys.split())
        return {
            **none,
            "saved": first,
            "saved_later": _snapshot(sd),
            "straight": straight,
            "kept_groups": kept_groups,
            "load_error": f"{load['error']}: {load['message']}",
            "loaded_keyed": True,
            "refused": [],
            "error": None,
        }
    same_params = [
        len(g.get("params", [])) == len(spec["params"])
        and all(q is qs[i] for q, i in zip(g.get("params", []), spec["params"]))
        for g, spec in zip(fresh.param_groups, groups)
    ]
    loaded_keyed = all(any(k is q for q in qs) for k in fresh.state)
    snapshot = attempt(lambda: _snapshot(fresh.state_dict()))  # judged after same_params
    loaded = snapshot["value"] if snapshot["error"] is None else f"<{snapshot['error']}>"
    state_dtypes = sorted(
        {
            str(v.data.dtype)
            for s in fresh.state.values()
            for v in s.values()
            if isinstance(getattr(v, "data", None), np.ndarray)
            or on_device(getattr(v, "data", None))
        }
    )
    options = [{k: plain(v) for k, v in g.items() if k != "params"} for g in fresh.param_groups]
    # the resumed steps: an error is recorded, so the saved and loaded dicts are still judged
    finished = attempt(lambda: _finish(sp, opt, fresh, ps, qs, grads[before:]))
    error = finished["error"] and f"{finished['error']}: {finished['message']}"
    refused = []
    mid = [tensor(sp, p, True, dtype) for p in params]
    extra = tensor(sp, [1.0], True, dtype)
    more = make_optimizer(sp, optimizer, [*mid, extra], [*groups, {"params": [len(mid)]}], defaults)
    refused.append(raised(lambda: more.load_state_dict(sd))["error"])
    bigger = [{**groups[0], "params": [*groups[0]["params"], len(mid)]}, *groups[1:]]
    other_sizes = make_optimizer(sp, optimizer, [*mid, extra], bigger, defaults)
    refused.append(raised(lambda: other_sizes.load_state_dict(sd))["error"])
    return {
        "saved": first,
        "saved_later": _snapshot(sd),
        "straight": straight,
        "loaded": loaded,
        "state_dtypes": state_dtypes,
        "options": options,
        "same_params": same_params,
        "final": [np.array(host(q)) for q in qs],
        "dtypes": [str(q.data.dtype) for q in qs],
        "refused": refused,
        "error": error,
        "kept_groups": kept_groups,
        "load_error": None,
        "loaded_keyed": loaded_keyed,
    }


def _straight(
    sp, optimizer: str, defaults: dict, groups: list, params: list, grads: list, dtype: str
) -> list:
    """Every parameter after all the steps by one optimizer, never saved nor loaded."""
    rs = [tensor(sp, p, True, dtype) for p in params]
    opt = make_optimizer(sp, optimizer, rs, groups, defaults)
    for row in grads:
        set_grads(sp, rs, row)
        opt.step()
    return [np.array(host(r)) for r in rs]


def _finish(sp, opt: Any, fresh: Any, ps: list, qs: list, rows: list) -> None:
    """The steps after the save: the saving optimizer and the loaded one, side by side."""
    for row in rows:
        set_grads(sp, ps, row)
        opt.step()
        set_grads(sp, qs, row)
        fresh.step()


# -- 6.8, 6.9 -------------------------------------------------------------------------------

LAMBDAS = {
    "power": lambda a: lambda t: a**t,
    "linear": lambda a: lambda t: max(0.0, 1 - t / a),
    "warmup": lambda a: lambda t: min(1.0, (t + 1) / a),
}


def schedule(sp, kind: str, base_lrs: list, options: dict, steps: int) -> list:
    """An optimizer with one group per base lr, a scheduler over it: the groups' lrs at
    construction and after each ``scheduler.step()``."""
    params = [{"params": [tensor(sp, [1.0], True)], "lr": lr} for lr in base_lrs]
    opt = sp.optim.Optimizer(params, {"lr": 0.5})
    options = dict(options)
    if kind == "LambdaLR":
        spec = options["lr_lambda"]
        if isinstance(spec[0], list):
            options["lr_lambda"] = [LAMBDAS[k](a) for k, a in spec]
        else:
            options["lr_lambda"] = LAMBDAS[spec[0]](spec[1])
    scheduler = getattr(sp.optim.lr_scheduler, kind)(opt, **options)
    lrs = [[g["lr"] for g in opt.param_groups]]
    for _ in range(steps):
        scheduler.step()
        lrs.append([g["lr"] for g in opt.param_groups])
    return lrs


def one_cycle(sp, max_lr: Any, options: dict, groups: int, beta1: bool, steps: int) -> dict:
    """OneCycleLR over an optimizer with momentum (or betas): lr and momentum (β₁) of each
    group at construction and after each step, then the error of one step too many."""
    defaults = {"lr": 0.1, "betas": (0.9, 0.999)} if beta1 else {"lr": 0.1, "momentum": 0.0}
    params = [{"params": [tensor(sp, [1.0], True)]} for _ in range(groups)]
    opt = sp.optim.Optimizer(params, defaults)
    scheduler = sp.optim.lr_scheduler.OneCycleLR(opt, max_lr, **options)

    def row() -> dict:
        lrs = [g["lr"] for g in opt.param_groups]
        if not options.get("cycle_momentum", True):
            return {"lr": lrs, "momentum": None}
        key = "betas" if beta1 else "momentum"
        ms = [g[key][0] if beta1 else g[key] for g in opt.param_groups]
        return {
            "lr": lrs,
            "momentum": ms,
            "beta2": [g["betas"][1] for g in opt.param_groups] if beta1 else None,
        }

    rows = [row()]
    for _ in range(steps):
        scheduler.step()
        rows.append(row())
    return {"rows": rows, "past": raised(scheduler.step)["error"]}


# -- 6.10 -----------------------------------------------------------------------------------


def clip(
    sp, grads: list, max_norm: float, norm_type: Any, by_value: bool, nonfinite: Any, single: bool
) -> dict:
    """Parameters with the given gradients (an int: the same object as that parameter's),
    clipped: the returned total, each gradient after, and the values the gradient tensors
    it was given hold after the call (the parent compares them with the values it sent)."""
    ps, made = [], []
    for g in grads:
        if isinstance(g, int) and not isinstance(g, bool):
            shape, dtype = made[g].data.shape, made[g].data.dtype
        else:
            shape, dtype = (
                (np.shape(g), np.asarray(g).dtype) if g is not None else ((1,), "float64")
            )
        p = tensor(sp, np.zeros(shape), True, str(dtype))
        if isinstance(g, int) and not isinstance(g, bool):
            p.grad = made[g]
        elif g is not None:
            p.grad = sp.Tensor(np.array(g))
        made.append(p.grad)
        ps.append(p)
    target = ps[0] if single else ps
    norm = math.inf if norm_type == "inf" else norm_type
    if by_value:
        result = attempt(lambda: sp.nn.utils.clip_grad_value_(target, max_norm))
    else:
        with np.errstate(invalid="ignore"):  # an inf scaled by 0, a nan total (the "quiet"s)
            result = attempt(
                lambda: sp.nn.utils.clip_grad_norm_(
                    target, max_norm, norm, error_if_nonfinite=nonfinite in (True, "nan")
                )
            )
    total = result["value"]
    data = host(getattr(total, "data", total))  # a device's array: to the host
    return {
        "error": result["error"],
        "total": float(data)
        if isinstance(data, (np.ndarray, float, int, np.floating))
        else plain(total),
        "total_dtype": str(data.dtype) if isinstance(data, np.ndarray) else type(total).__name__,
        "grads": [None if p.grad is None else np.array(host(p.grad)) for p in ps],
        "dtypes": [None if p.grad is None else str(p.grad.data.dtype) for p in ps],
        "given": [None if m is None else np.array(host(m)) for m in made],
    }

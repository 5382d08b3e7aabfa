"""Programs of chapter 6's exercises (course version 1.1): 6.11 ``optim.TrainingStats`` and
6.12 ``optim.warmup_cosine``. Runs in the child, next to the code under test: it trains a
small model with the student's stats attached and sends back the raw values it saw (every
watched module's input and output at each forward, every parameter before and after each
step, each gradient as the step was called) next to what the stats recorded; the parent
computes the statistics from the raw values (``exercises.py``). Nothing here computes an
expectation. Standard library, NumPy and the kit only."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ...harness.kit import array, attempt, tensor

SENTINEL = "the optimizer step's own result"  # en-only: a marker compared, never shown

# -- 6.11 TrainingStats ------------------------------------------------------------------------


def _model(sp, sizes: list, final_tanh: bool) -> Any:
    """Linear → Tanh → Linear → Tanh → … → Linear (a Tanh after the last too, with
    ``final_tanh``), in float64, drawn after ``manual_seed`` (the caller's)."""
    nn = sp.nn
    layers: list = []
    for i, (n_in, n_out) in enumerate(itertools.pairwise(sizes)):
        layers.append(nn.Linear(n_in, n_out))
        if i < len(sizes) - 2 or final_tanh:
            layers.append(nn.Tanh())
    return nn.Sequential(*layers).double()


def _hook_count(model: Any) -> int:
    """Every forward (pre-)hook and backward hook left on the model's modules."""
    kinds = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")
    return sum(len(getattr(m, kind, ())) for _, m in model.named_modules() for kind in kinds)


def _rows(found: Any, names: list, key: str | None = None) -> list:
    """A stats dict (name → list) as a list in ``names``' order: each row's values as floats
    (``key``: the dict rows' entry), anything unreadable as a string that names it."""
    if not isinstance(found, dict):
        return [f"<{type(found).__name__}>" for _ in names]
    rows = []
    for name in names:
        if name not in found:
            rows.append("<missing>")
            continue
        values = []
        for value in found[name]:
            value = value.get(key, "<missing>") if key and isinstance(value, dict) else value
            try:
                values.append(float(value))
            except (TypeError, ValueError):
                values.append(f"<{type(value).__name__}>")
        rows.append(values)
    return rows


def stats_run(
    sp, sizes: list, x: Any, y: Any, lr: float, steps: int, seed: int, final_tanh: bool = False
) -> dict:
    """``steps`` SGD steps on the mean squared error, makemore's order (forward, zero_grad,
    backward, ``stats.step(optimizer)``), with ``TrainingStats(model)`` attached, then
    ``stats.remove()``. ``optimizer.step`` is counted and returns ``SENTINEL``."""
    sp.manual_seed(seed)
    model = _model(sp, sizes, final_tanh)
    watched = [n for n, m in model.named_modules() if isinstance(m, sp.nn.Tanh)]
    params = [(n, p) for n, p in model.named_parameters() if p.numel() > 1]
    seen: dict[str, dict[str, list]] = {n: {"inputs": [], "outputs": []} for n in watched}
    handles = []
    for name, module in model.named_modules():
        if name in seen:

            def see(module: Any, args: tuple, output: Any, name: str = name) -> None:
                seen[name]["inputs"].append(array(args[0]))
                seen[name]["outputs"].append(array(output))

            handles.append(module.register_forward_hook(see))
    opt = sp.optim.SGD(model.parameters(), lr=lr)
    real, calls, returned = opt.step, [0], []

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        real(*args, **kwargs)
        return SENTINEL

    opt.step = counted
    xt, yt = tensor(sp, x), tensor(sp, y)
    record: dict[str, Any] = {
        "watched": watched,
        "names": [n for n, _ in params],
        "before": [[] for _ in params],
        "after": [[] for _ in params],
        "grads_seen": [[] for _ in params],
    }

    def run() -> Any:
        stats = sp.optim.TrainingStats(model)
        record["hooks_attached"] = _hook_count(model) - len(handles)
        for _ in range(steps):
            loss = ((model(xt) - yt) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            for i, (_, p) in enumerate(params):
                record["before"][i].append(array(p))
                record["grads_seen"][i].append(array(p.grad))
            returned.append(stats.step(opt))
            for i, (_, p) in enumerate(params):
                record["after"][i].append(array(p))
        stats.remove()
        return stats

    done = attempt(run)
    record.update(error=done["error"], message=done["message"], calls=calls[0])
    stats = done["value"]
    for handle in handles:
        handle.remove()
    record["hooks_left"] = _hook_count(model)
    record["returned"] = [r == SENTINEL if isinstance(r, str) else repr(r) for r in returned]
    record["inputs_seen"] = [seen[n]["inputs"] for n in watched]
    record["outputs_seen"] = [seen[n]["outputs"] for n in watched]
    if stats is not None:
        activations = getattr(stats, "activations", None)
        for short, key in (("mean", "mean"), ("std", "std"), ("sat", "saturated")):
            record[f"act_{short}"] = _rows(activations, watched, key)
        record["grads"] = _rows(getattr(stats, "grads", None), record["names"])
        record["ratios"] = _rows(getattr(stats, "ratios", None), record["names"])
    return record


# -- 6.12 warmup_cosine ------------------------------------------------------------------------


def factors(sp, warmup: int, total: int, start_factor: float, min_factor: float, ts: list) -> dict:
    """``warmup_cosine(warmup, total, start_factor, min_factor)(t)`` for each t of ``ts``."""
    made = attempt(lambda: sp.optim.warmup_cosine(warmup, total, start_factor, min_factor))
    if made["error"] is not None:
        return {"error": made["error"], "message": made["message"]}
    f = made["value"]
    values, types = [], []
    for t in ts:
        done = attempt(lambda t=t: f(t))
        if done["error"] is not None:
            return {"error": done["error"], "message": f"at t = {t}: {done['message']}"}
        value = done["value"]
        types.append(type(value).__name__)
        values.append(float(value) if isinstance(value, (int, float, np.floating)) else None)
    return {"error": None, "message": "", "factors": values, "types": types}


def scheduled_lrs(
    sp,
    warmup: int,
    total: int,
    start_factor: float,
    min_factor: float,
    base_lrs: list,
    steps: int,
) -> dict:
    """``LambdaLR(SGD(groups), warmup_cosine(...))`` over ``steps`` steps of a loop
    (``optimizer.step()``, then ``scheduler.step()``), every parameter's gradient 1: each
    group's ``lr`` before each step, and what its parameter moved by at that step."""
    params = [tensor(sp, [0.0, 0.0], requires_grad=True) for _ in base_lrs]
    groups = [{"params": [p], "lr": lr} for p, lr in zip(params, base_lrs)]
    opt = sp.optim.SGD(groups, lr=base_lrs[0])
    made = attempt(
        lambda: sp.optim.lr_scheduler.LambdaLR(
            opt, sp.optim.warmup_cosine(warmup, total, start_factor, min_factor)
        )
    )
    if made["error"] is not None:
        return {"error": made["error"], "message": made["message"]}
    sched = made["value"]
    lrs: list = [[] for _ in base_lrs]
    moved: list = [[] for _ in base_lrs]

    def loop() -> None:
        for _ in range(steps):
            for i, (group, p) in enumerate(zip(opt.param_groups, params)):
                lrs[i].append(float(group["lr"]))
                p.grad = tensor(sp, [1.0, 1.0])
            before = [array(p) for p in params]
            opt.step()
            for i, p in enumerate(params):
                moved[i].append(float(np.mean(before[i] - array(p))))
            sched.step()

    done = attempt(loop)
    return {"error": done["error"], "message": done["message"], "lrs": lrs, "moved": moved}

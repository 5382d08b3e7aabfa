"""Chapter 6 — optimizers: the task table. 6.1 is the bookkeeping every optimizer shares;
6.2–6.6 are the update rules, in their history's order (each fixes what the one before
lacks); 6.7 saves and resumes them; 6.8–6.9 schedule the learning rate; 6.10 bounds a step."""

from . import Task

TASKS = [
    Task(
        "6.1",
        "Optimizer: param groups and zero_grad",
        8,
        "§2",
        "add_param_group: params is already a checked list (the given _checked_params); "
        "a new dict of the group, each option it does not set filled from self.defaults "
        "(setdefault: the group's own win); append. zero_grad: p.grad = None, or "
        "(set_to_none=False) a new zero tensor; skip parameters without a gradient.",
    ),
    Task(
        "6.2",
        "SGD with momentum, Nesterov, weight decay",
        12,
        "§3",
        "g = g + λp (a new array); with μ > 0, the buffer is state[p]['momentum_buffer']: a "
        "copy of g at the first step, then b = μb + (1 − τ)g in place; step with g + μb "
        "(nesterov) or b; p.data -= lr * step. Use the group's own options.",
    ),
    Task(
        "6.3",
        "Adagrad: a learning rate per coordinate",
        6,
        "§4",
        "state['step'] += 1 first; g = g + λp; η_t = lr / (1 + (t − 1)·lr_decay); "
        "state['sum'] += g² in place; p.data -= η_t · g / (√sum + eps).",
    ),
    Task(
        "6.4",
        "RMSprop: a running average of squares",
        10,
        "§4",
        "Make the state at the first step (zeros; momentum_buffer only when μ > 0, grad_avg "
        "only when centered); step += 1; g = g + λp; v = αv + (1 − α)g²; centered: a = αa + "
        "(1 − α)g, r = √(v − a²) + eps, else r = √v + eps; with μ > 0: b = μb + g/r, "
        "p -= lr·b; else p -= lr·g/r.",
    ),
    Task(
        "6.5",
        "Adam: moments and bias correction",
        12,
        "§5",
        "Make the state at the first step; step += 1 before anything else (t = 1 at the first "
        "step); g = self._weight_decay(p, g, group); m = β₁m + (1 − β₁)g, v = β₂v + (1 − β₂)g² "
        "in place; amsgrad: v̂ = max(v̂, v), used in place of v; p -= lr/(1 − β₁ᵗ) · m / "
        "(√v/√(1 − β₂ᵗ) + eps).",
    ),
    Task(
        "6.6",
        "AdamW: decoupled weight decay",
        5,
        "§5",
        "p.data *= 1 − lr·λ (in place, before the update), and return g unchanged: the decay "
        "never enters the moments.",
    ),
    Task(
        "6.7",
        "Optimizer state_dict and load_state_dict",
        10,
        "§6",
        "state_dict: each parameter's index in order of first appearance across the groups; "
        "groups as their options plus 'params': [indices]; state by index, tensors copied. "
        "load_state_dict: check the number and sizes of groups (ValueError), map saved indices "
        "to this optimizer's parameters, copy the state (floating tensors cast to the "
        "parameter's dtype, 'step' kept), take each saved group's options with the current "
        "params.",
    ),
    Task(
        "6.8",
        "learning-rate schedules: closed forms",
        12,
        "§7",
        "Each get_lr returns one lr per group from self.base_lrs and t = self.last_epoch: "
        "StepLR γ^(t // step_size), MultiStepLR γ^(milestones ≤ t: bisect_right), "
        "ExponentialLR γ^t, CosineAnnealingLR η_min + (η₀ − η_min)(1 + cos(πt/T_max))/2, "
        "LambdaLR η₀·λ(t) with each group's own λ.",
    ),
    Task(
        "6.9",
        "OneCycleLR: warm up, anneal, cycle momentum",
        12,
        "§8",
        "Walk self._schedule_phases (end_step, lr keys, momentum keys) with start_step "
        "from 0.0: take the first phase with t ≤ end_step (or the last); pct = (t − "
        "start_step)/(end_step − start_step); lr = _anneal(strategy, group[start], "
        "group[end], pct); with cycle_momentum, _set_momentum(group, the same blend of the "
        "momentum keys, self.use_beta1); start_step = end_step.",
    ),
    Task(
        "6.10",
        "gradient clipping: by norm and by value",
        13,
        "§9",
        "clip_grad_norm_: the total norm is the norm of the per-gradient norms (max |g| for "
        "inf); coef = min(1, max_norm / (total + 1e-6)); each p.grad = a new tensor g·coef "
        "(in g's dtype); return the total as a tensor. clip_grad_value_: each p.grad = a new "
        "tensor of g clipped to [−c, c].",
    ),
]

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
        idea="A group is a dict of its parameters and every option the optimizer reads. The "
        "caller states some options; the optimizer's defaults supply the rest, and the "
        "caller's always win. The group owns its list (a caller's later change must not "
        "reach it), and only leaves may be optimized, each in one group only. zero_grad "
        "forgets the gradients: either none at all, or fresh zeros. Ask of each: could "
        "another leaf still hold this very gradient tensor?",
        see="print(opt.param_groups) after the calls of the case; for zero_grad, give two "
        "parameters the same gradient tensor, call zero_grad(set_to_none=False) and "
        "print both .grad tensors and the old one",
    ),
    Task(
        "6.2",
        "SGD with momentum, Nesterov, weight decay",
        12,
        "§3",
        "g = g + λp (a new array); with μ > 0, the buffer is state[p]['momentum_buffer']: a "
        "copy of g at the first step, then b = μb + (1 − τ)g in place; step with g + μb "
        "(nesterov) or b; p.data -= lr * step. Use the group's own options.",
        idea="Momentum is a running sum of past gradients that decays by μ each step: it "
        "starts as the first gradient itself, and later gradients enter it scaled by (1 "
        "− dampening). Weight decay is an L2 penalty, so it joins the gradient before "
        "anything else uses it. Nesterov looks one step ahead along the buffer. The "
        "step changes the parameter's values only: no graph, and the gradient tensor "
        "stays as it was.",
        see="one parameter, p.grad set by hand to a constant, step() a few times: print p "
        "and opt.state[p]['momentum_buffer'] after each step next to the same numbers "
        "worked on paper from §3's rule",
    ),
    Task(
        "6.3",
        "Adagrad: a learning rate per coordinate",
        6,
        "§4",
        "state['step'] += 1 first; g = g + λp; η_t = lr / (1 + (t − 1)·lr_decay); "
        "state['sum'] += g² in place; p.data -= η_t · g / (√sum + eps).",
        idea="Adagrad gives each coordinate its own step size: the learning rate divided by "
        "the root of everything that coordinate's gradient has ever squared, so the "
        "steps shrink where gradients have been large. That sum must live from step to "
        "step. The first step is step 1, and the lr decay has not acted yet then.",
        see="one parameter with a constant gradient: print p, opt.state[p]['sum'] and "
        "opt.state[p]['step'] after each step() next to §4's formula by hand",
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
        idea="RMSprop is Adagrad that forgets: instead of a growing sum, a running average "
        "of squares that weighs the new square by 1 − α. Centered, it takes the "
        "variance (the average of squares minus the square of the average) in place of "
        "the raw average. With momentum, a buffer collects the scaled steps. Every "
        "running quantity must survive to the next step; ε guards the division and "
        "stays outside the root.",
        see="one parameter with a constant gradient: print p and each entry of opt.state[p] "
        "after each step() next to §4's rule worked by hand",
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
        idea="Both running averages, of the gradients and of their squares, start at zero. "
        "After the first step with a gradient g, how large is each of them next to g (or "
        "g²), and so how large is the first update, which should be about lr whatever "
        "the scale of g? What factor, one per average, undoes the start at zero, and why "
        "must it fade away as the steps go on? Count the steps so that the first is step "
        "1. The weight decay goes through the hook AdamW overrides, so AdamW inherits the "
        "rest; with amsgrad the denominator never shrinks.",
        see="§5's table: a constant gradient g = 0.5, lr = 0.1; it prints m, v, the step "
        "your Adam takes and the step without the correction at t = 1, 2, 3, 10, 100, "
        "1000. Your first step should be about lr, 0.1; the one without the correction "
        "is about 0.316, lr·(1 − β₁)/√(1 − β₂)",
    ),
    Task(
        "6.6",
        "AdamW: decoupled weight decay",
        5,
        "§5",
        "p.data *= 1 − lr·λ (in place, before the update), and return g unchanged: the decay "
        "never enters the moments.",
        idea="AdamW takes the weight decay out of the gradient: the parameter itself shrinks "
        "a little, by a fraction proportional to the learning rate and λ, before the "
        "Adam update, and the moments never see the decay. Each group's own lr and λ "
        "apply.",
        see="AdamW([p], lr=0.1, weight_decay=0.5)._weight_decay(p, g, opt.param_groups[0]) "
        "on small numbers: print what it returns and p after, next to p·(1 − 0.05)",
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
        idea="A checkpoint must be plain data that outlives the optimizer: parameters are "
        "named by their position across the groups (the same position in a fresh "
        "optimizer over fresh parameters), and the state is copied, so later training "
        "cannot change it. Loading refuses a layout that does not fit, takes the saved "
        "options, and gives each saved state to the parameter at the same position, in "
        "that parameter's dtype.",
        see="save after a few steps, print opt.state_dict(), load it into a new optimizer, "
        "step both with the same gradients and print the two parameters side by side",
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
        idea="Each schedule is a closed form of the step count t (last_epoch) and each "
        "group's base lr: the value at t = 0, the step taken when the scheduler is "
        "made, is the base lr itself. Never build the next lr from the current one. "
        "Count what has happened by t: milestones reached (a milestone listed twice "
        "counts twice), whole periods, the angle of the cosine.",
        see="print the lr of each group at t = 0, 1, … next to the formula of §7 by hand; "
        "plot_schedules of §7 draws the curves",
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
        idea="OneCycleLR is a walk through phases, each a blend between two values of the "
        "group: the phase is the first whose end step t has not passed (the last one "
        "otherwise), and the blend's fraction runs from 0 at the phase's own start to 1 "
        "at its end. Each group blends its own values; momentum (or β₁, β₂ untouched) "
        "moves the other way, where the optimizer has it.",
        see="print each group's lr and momentum at every t next to §8's plot of OneCycleLR; "
        "the phase ends are the corners of the curve",
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
        idea="Clipping by norm treats all the gradients as one long vector: its norm decides "
        "one factor, at most 1, that scales every gradient alike. Clipping by value "
        "bounds each entry. Both hand back new gradient tensors in the gradients' own "
        "dtype (one tensor may be several leaves' .grad), and the norm comes back as a "
        "tensor. A total that is not finite is an error when asked, and otherwise "
        "spreads as nan.",
        see="§9's example: gradients (3, 4, 0.1) clipped to norm 1; print the total and "
        "each gradient before and after, next to the norm computed by hand",
    ),
    Task(
        "6.11",
        "TrainingStats: statistics during training",
        10,
        "§11",
        "__init__: for each (name, module) of self.watched, an empty list in "
        "self.activations[name] and module.register_forward_hook(self._hook(name)) kept in "
        "self.handles. The hook: a = _host(output); append {'mean': a.mean(), 'std': a.std(), "
        "'saturated': (|a| > self.saturation).mean()} as floats. step: for each (name, p) of "
        "self.params append std(_host(p.grad)) to grads[name] and keep before = _host(p) (a "
        "copy); result = optimizer.step(...); append log10(std(_host(p) − before) / "
        "std(before)) to ratios[name]; return result. remove: handle.remove() for each.",
        since="1.1",
        idea="Three numbers per layer, recorded while the network trains. An activation row "
        "describes what a watched layer gave out at one forward: where it is centred, how "
        "spread it is, and how much of it sits where tanh is flat. A gradient row is the "
        "spread of a parameter's gradient as the step is about to use it, so after "
        "backward. The update-to-data ratio compares the spread of what one step changed "
        "with the spread of the values it changed, on a log scale: that needs the values "
        "as they were before the step, kept apart from the parameter the step then "
        "changes. What you hook on the model you take off again.",
        see="a Linear–Tanh–Linear model and three SGD steps: print stats.ratios next to "
        "np.log10(np.std(after − before) / np.std(before)) from copies you take yourself, "
        "and [m._forward_hooks for _, m in model.named_modules()] after remove()",
    ),
    Task(
        "6.12",
        "warmup_cosine: a warm-up, then a cosine decay",
        10,
        "§12",
        "t < warmup: start_factor + (1 − start_factor)·t/warmup; t ≥ total: min_factor; "
        "else min_factor + (1 − min_factor)·(1 + cos(π(t − warmup)/(total − warmup)))/2.",
        since="1.1",
        idea="The factor is a function of the step count alone, in three pieces. Ask of "
        "each junction: what does the piece before it reach there, and where does the next "
        "one start? They must agree: no jump. Which value must the factor reach at the end "
        "of the warm-up, and at total? From which step does the cosine count its own "
        "steps, and what happens to a cosine past its half period (and so, what should the "
        "factor be after total)?",
        see="print warmup_cosine(4, 12, 0.1, 0.2)(t) for t = 0 … 15 next to the values by "
        "hand: 0.1 at t = 0, 0.55 at 2, 1 at 4, 0.6 at 8, 0.2 from 12 on; §12's cell prints "
        "a few factors of warmup_cosine(6, 30, 0.1, 0.2) and plot_schedules draws the "
        "curve, whose corners must be at the end of the warm-up and at total",
    ),
]

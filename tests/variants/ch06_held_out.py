"""Chapter 6's held-out set: plausible student code written without looking at the checks'
cases (tests/variants/ch06_broken.py holds the first set), and unusual but correct rewrites,
judged on the public and the hidden checks together (by tests/test_variants.py). Some variants
passed the checks before: each is noted with the check that now catches it (``# was a
hole:``), and the hidden checks alone catch it too (``HOLES``)."""

from __future__ import annotations

from functools import partial

from tests import trees
from tests.trees import edits
from tests.variants import VariantSet

PACKAGE = "ch06_optim"
edits = partial(edits, PACKAGE)
OPT, SGD, ADAGRAD = "optim/optimizer.py", "optim/sgd.py", "optim/adagrad.py"
RMS, ADAM, SCHED = "optim/rmsprop.py", "optim/adam.py", "optim/lr_scheduler.py"
CYCLE, CLIP = "optim/one_cycle.py", "nn/utils/clip_grad.py"

GROUP = "        group = dict(param_group, params=params)\n"
ZERO = "                    p.grad = Tensor._from_array(array_module(g).zeros_like(g))\n"
SGD_BUFFER = (
    "                        buffer.data *= momentum\n"
    "                        buffer.data += (1 - dampening) * g\n"
)
NESTEROV = "g = g + momentum * buffer.data if nesterov else buffer.data"
ADA_STEP = '                state["step"] += 1\n'
ADA_CLR = '                clr = lr / (1 + (state["step"] - 1) * lr_decay)\n'
ADA_SUM = "                s += g * g\n"
ADA_UPDATE = "                p.data -= clr * (g / (array_module(s).sqrt(s) + eps))\n"
RMS_V = "                v *= alpha\n                v += (1 - alpha) * (g * g)\n"
RMS_A = (
    "                    a += (g - a) * (1 - alpha)\n"
    "                    r = xp.sqrt(v - a * a) + eps\n"
)
RMS_B = "                    b *= momentum\n                    b += g / r\n"
ADAM_M = "                m += (g - m) * (1 - beta1)\n"
ADAM_V = "                v *= beta2\n                v += (1 - beta2) * (g * g)\n"
ADAM_BIAS = "                step_size = lr / (1 - beta1**t)\n"
ADAM_DENOM = "                denom = xp.sqrt(v) / math.sqrt(1 - beta2**t) + eps\n"
ADAM_DECAY = "                g = self._weight_decay(p, g, group)\n"
ADAMW = 'p.data *= 1 - group["lr"] * group["weight_decay"]'
SD_STATE = "{name: _copy(value) for name, value in values.items()}"
LOAD_VALUE = 'name: value if name == "step" else _copy(value, like=p)'
COS = "cosine = (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2"
PCT = "pct = (t - start_step) / (end_step - start_step)"
ANNEAL_LR = "lrs.append(_anneal(self.anneal_strategy, group[lr0], group[lr1], pct))"
ANNEAL_M = "momentum = _anneal(self.anneal_strategy, group[m0], group[m1], pct)"
SET_M = "_set_momentum(group, momentum, self.use_beta1)"
NORMS = "norms = [(xp.abs(g) ** norm_type).sum() ** (1.0 / norm_type) for g in grads]"
COEF = "coef = xp.minimum(max_norm / (total + 1e-6), 1.0)"
SCALE = "p.grad = Tensor._from_array(g * coef.astype(g.dtype))"
RETURN = "    return Tensor._from_array(total)\n"
VALUE = "p.grad = Tensor._from_array(array_module(g).clip(g, -clip_value, clip_value))"


rewrite = partial(trees.rewrite, "ch06_optim")


# -- 6.1 -------------------------------------------------------------------------------------

ADD_GROUP_SHARES_DEFAULTS = """
if isinstance(params, Tensor):
    params = [params]
elif isinstance(params, set):
    raise TypeError("give a list, not a set")
else:
    params = list(params)
for p in params:
    if not isinstance(p, Tensor):
        raise TypeError("optimizer can only optimize Tensors")
    if not p.is_leaf:
        raise ValueError("can't optimize a non-leaf Tensor")
for name, default in self.defaults.items():
    if default is required and name not in param_group:
        raise ValueError(f"parameter group didn't specify a value of {name}")
group = self.defaults
group.update(param_group)
group["params"] = params
seen = {id(p) for other in self.param_groups for p in other["params"]}
if any(id(p) in seen for p in params):
    raise ValueError("some parameters appear in more than one parameter group")
self.param_groups.append(group)
"""

ZERO_GRAD_ALWAYS_NONE = """
for group in self.param_groups:
    for p in group["params"]:
        p.grad = None
"""

# -- 6.2 -------------------------------------------------------------------------------------

SGD_LR_IN_THE_BUFFER = """
if weight_decay != 0:
    g = g + weight_decay * p.data
if momentum != 0:
    state = self.state[p]
    if "momentum_buffer" not in state:
        state["momentum_buffer"] = Tensor._from_array(lr * g)
    else:
        b = state["momentum_buffer"].data
        b *= momentum
        b += lr * (1 - dampening) * g
    b = state["momentum_buffer"].data
    p.data -= lr * g + momentum * b if nesterov else b
else:
    p.data -= lr * g
"""


SGD_ZEROS_BUFFER = """
if weight_decay != 0:
    g = g + weight_decay * p.data
if momentum != 0:
    state = self.state[p]
    if "momentum_buffer" not in state:
        state["momentum_buffer"] = Tensor._from_array(array_module(g).zeros_like(g))
    buffer = state["momentum_buffer"]
    buffer.data *= momentum
    buffer.data += (1 - dampening) * g
    g = g + momentum * buffer.data if nesterov else buffer.data
p.data -= lr * g
"""


# -- 6.7 -------------------------------------------------------------------------------------

LOAD_BY_ORDER_OF_STATE = """
if len(groups) != len(saved_groups):
    raise ValueError("loaded state dict has a different number of parameter groups")
if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
    raise ValueError("a parameter group doesn't match the size of optimizer's group")
mine = [p for group in groups for p in group["params"]]
self.state = defaultdict(dict)
for p, values in zip(mine, state_dict["state"].values()):
    self.state[p] = {
        name: value if name == "step" else _copy(value, like=p) for name, value in values.items()
    }
self.param_groups = [
    {**copy.deepcopy({k: v for k, v in saved.items() if k != "params"}), "params": group["params"]}
    for group, saved in zip(groups, saved_groups)
]
"""

LOAD_UPDATES_THE_GROUPS = """
if len(groups) != len(saved_groups):
    raise ValueError("loaded state dict has a different number of parameter groups")
if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
    raise ValueError("a parameter group doesn't match the size of optimizer's group")
params = {}
for group, saved in zip(groups, saved_groups):
    params.update(zip(saved["params"], group["params"]))
self.state = defaultdict(dict)
for key, values in state_dict["state"].items():
    p = params[key]
    self.state[p] = {
        name: value if name == "step" else _copy(value, like=p) for name, value in values.items()
    }
for group, saved in zip(groups, saved_groups):
    group.update(saved)
"""

# -- 6.10 ------------------------------------------------------------------------------------

CLIP_PER_TENSOR = """
xp = array_module(params[0].grad.data)
norms = []
for p in params:
    g = p.grad.data
    if norm_type == math.inf:
        n = xp.abs(g).max()
    else:
        n = (xp.abs(g) ** norm_type).sum() ** (1.0 / norm_type)
    norms.append(n)
    p.grad = Tensor._from_array(g * xp.minimum(max_norm / (n + 1e-6), 1.0).astype(g.dtype))
total = xp.max(xp.stack(norms)) if norm_type == math.inf else (
    (xp.stack(norms) ** norm_type).sum() ** (1.0 / norm_type)
)
if error_if_nonfinite and not bool(xp.isfinite(total)):
    raise RuntimeError("the total norm is non-finite")
return Tensor._from_array(total)
"""

CLIP_RETURNS_THE_CLIPPED_NORM = """
grads = [p.grad.data for p in params]
xp = array_module(grads[0])
if norm_type == math.inf:
    total = xp.max(xp.stack([xp.abs(g).max() for g in grads]))
else:
    norms = [(xp.abs(g) ** norm_type).sum() ** (1.0 / norm_type) for g in grads]
    total = (xp.stack(norms) ** norm_type).sum() ** (1.0 / norm_type)
if error_if_nonfinite and not bool(xp.isfinite(total)):
    raise RuntimeError("the total norm is non-finite")
coef = xp.minimum(max_norm / (total + 1e-6), 1.0)
for p, g in zip(params, grads):
    p.grad = Tensor._from_array(g * coef.astype(g.dtype))
return Tensor._from_array(total * coef)
"""

VARIANTS = [
    # -- 6.1 ---------------------------------------------------------------------------------
    (
        "add_param_group shares the defaults dict",
        OPT,
        rewrite(OPT, "6.1", ADD_GROUP_SHARES_DEFAULTS),
        "6.1",
    ),
    (
        "add_param_group lets the defaults win",
        OPT,
        (
            GROUP,
            "        group = dict(param_group, params=params)\n"
            "        group.update(self.defaults)\n"
            '        group["params"] = params\n',
        ),
        "6.1",
    ),
    (
        "add_param_group appends the caller's dict unfilled",
        OPT,
        (
            "        self.param_groups.append(group)\n",
            '        param_group["params"] = params\n'
            "        self.param_groups.append(param_group)\n",
        ),
        "6.1",
    ),
    (
        "zero_grad only the first group",
        OPT,
        edits(
            OPT,
            (
                'for group in self.param_groups:\n            for p in group["params"]:',
                'for p in self.param_groups[0]["params"]:',
            ),
        ),
        "6.1",
    ),
    (
        "zero_grad makes zeros for parameters without a gradient",
        OPT,
        edits(
            OPT,
            ("                if p.grad is None:\n                    continue\n", ""),
            (
                "g = p.grad.data\n"
                "                    p.grad = "
                "Tensor._from_array(array_module(g).zeros_like(g))",
                "p.grad = Tensor._from_array(array_module(p.data).zeros_like(p.data))",
            ),
        ),
        "6.1",
    ),
    ("zero_grad ignores set_to_none", OPT, rewrite(OPT, "6.1", None, ZERO_GRAD_ALWAYS_NONE), "6.1"),
    (
        "zero_grad sets .data = 0 on the gradient",
        OPT,
        (ZERO, "                    p.grad.data = array_module(g).zeros_like(g)\n"),
        "6.1",
    ),
    (
        "zero_grad's zeros from the parameter in float64",
        OPT,
        (ZERO, "                    p.grad = Tensor(array_module(g).zeros(g.shape))\n"),
        "6.1",
    ),
    # -- 6.2 ---------------------------------------------------------------------------------
    # was a hole: blamed on 6.7; the trajectories compare the state at the end (the buffer holds no
    # lr)
    (
        "SGD's learning rate inside the buffer",
        SGD,
        rewrite(SGD, "6.2", SGD_LR_IN_THE_BUFFER),
        "6.2",
    ),
    # was a hole: blamed on 6.7; the trajectories ask that self.state be keyed by the parameters
    (
        "SGD's state keyed by id(p)",
        SGD,
        edits(
            SGD,
            ("state = self.state[p]", "state = self.state[id(p)]"),
        ),
        "6.2",
    ),
    (
        "SGD's nesterov with the old buffer",
        SGD,
        edits(
            SGD,
            (
                'buffer = state.get("momentum_buffer")',
                'buffer = state.get("momentum_buffer")\n'
                "                    look = g if buffer is None else g + momentum * "
                "buffer.data",
            ),
            (
                "g = g + momentum * buffer.data if nesterov else buffer.data",
                "g = look if nesterov else buffer.data",
            ),
        ),
        "6.2",
    ),
    (
        "SGD's buffer from zeros (dampened at the first step)",
        SGD,
        rewrite(SGD, "6.2", SGD_ZEROS_BUFFER),
        "6.2",
    ),
    (
        "SGD decays only with momentum",
        SGD,
        edits(
            SGD,
            (
                "if weight_decay != 0:\n"
                "                    g = g + weight_decay * p.data\n"
                "                if momentum != 0:",
                "if momentum != 0:\n"
                "                    if weight_decay != 0:\n"
                "                        g = g + weight_decay * p.data",
            ),
        ),
        "6.2",
    ),
    (
        "SGD's buffer m = μm + g ignoring dampening's (1 − τ) as (1 + τ)",
        SGD,
        ("buffer.data += (1 - dampening) * g", "buffer.data += (1 + dampening) * g"),
        "6.2",
    ),
    (
        "SGD's weight decay from the gradient",
        SGD,
        ("g = g + weight_decay * p.data", "g = g + weight_decay * g"),
        "6.2",
    ),
    (
        "SGD's nesterov without the gradient",
        SGD,
        (NESTEROV, "g = momentum * buffer.data if nesterov else buffer.data"),
        "6.2",
    ),
    (
        "SGD's nesterov with the gradient before weight decay",
        SGD,
        edits(
            SGD,
            ("                g = p.grad.data\n", "                g = g0 = p.grad.data\n"),
            (NESTEROV, "g = g0 + momentum * buffer.data if nesterov else buffer.data"),
        ),
        "6.2",
    ),
    (
        "SGD's buffer writes p.grad.data",
        SGD,
        ("buffer = Tensor._from_array(g.copy())", "buffer = p.grad"),
        "6.2",
    ),
    (
        "SGD's buffer stored after rebinding",
        SGD,
        (
            SGD_BUFFER,
            "                        buffer = Tensor._from_array(momentum * buffer.data + (1"
            " - dampening) * g)\n",
        ),
        "6.2",
    ),
    (
        "SGD steps with momentum times the buffer",
        SGD,
        (NESTEROV, "g = g + momentum * buffer.data if nesterov else momentum * buffer.data"),
        "6.2",
    ),
    # -- 6.3 ---------------------------------------------------------------------------------
    (
        "Adagrad steps before adding to the sum",
        ADAGRAD,
        edits(ADAGRAD, (ADA_SUM, ""), (ADA_UPDATE, ADA_UPDATE + ADA_SUM)),
        "6.3",
    ),
    (
        "Adagrad adds the square before the weight decay",
        ADAGRAD,
        edits(
            ADAGRAD,
            (ADA_SUM, ""),
            (
                "                if weight_decay != 0:\n",
                '                state["sum"].data += g * g\n'
                "                if weight_decay != 0:\n",
            ),
        ),
        "6.3",
    ),
    (
        "Adagrad counts steps only with weight decay",
        ADAGRAD,
        edits(
            ADAGRAD,
            (ADA_STEP, ""),
            (
                "                if weight_decay != 0:\n",
                '                if weight_decay != 0:\n                    state["step"] += 1\n',
            ),
        ),
        "6.3",
    ),
    (
        "Adagrad's decay multiplies",
        ADAGRAD,
        (ADA_CLR, '                clr = lr * (1 - (state["step"] - 1) * lr_decay)\n'),
        "6.3",
    ),
    (
        "Adagrad's root of the sum before the new square",
        ADAGRAD,
        edits(
            ADAGRAD,
            (
                ADA_SUM,
                "                r = array_module(s).sqrt(s) + eps\n                s += g * g\n",
            ),
            (ADA_UPDATE, "                p.data -= clr * (g / r)\n"),
        ),
        "6.3",
    ),
    (
        "Adagrad's eps added to the sum",
        ADAGRAD,
        (ADA_SUM, "                s += g * g + eps\n"),
        "6.3",
    ),
    (
        "Adagrad's decay with t + 1",
        ADAGRAD,
        (ADA_CLR, '                clr = lr / (1 + state["step"] * lr_decay + lr_decay)\n'),
        "6.3",
    ),
    (
        "Adagrad divides by the sum, not its root",
        ADAGRAD,
        (ADA_UPDATE, "                p.data -= clr * (g / (s + eps))\n"),
        "6.3",
    ),
    # -- 6.4 ---------------------------------------------------------------------------------
    (
        "RMSprop centered with the previous step's mean",
        RMS,
        (
            RMS_A,
            "                    r = xp.sqrt(v - a * a) + eps\n"
            "                    a += (g - a) * (1 - alpha)\n",
        ),
        "6.4",
    ),
    (
        "RMSprop's square average not kept",
        RMS,
        (RMS_V, "                v = alpha * v + (1 - alpha) * (g * g)\n"),
        "6.4",
    ),
    (
        "RMSprop's momentum dampened by (1 − μ)",
        RMS,
        (
            RMS_B,
            "                    b *= momentum\n                    b += (1 - momentum) * g / r\n",
        ),
        "6.4",
    ),
    (
        "RMSprop ignores the buffer it keeps",
        RMS,
        ("                    p.data -= lr * b\n", "                    p.data -= lr * (g / r)\n"),
        "6.4",
    ),
    (
        "RMSprop's momentum buffer not kept",
        RMS,
        (
            RMS_B + "                    p.data -= lr * b\n",
            "                    b = momentum * b + g / r\n                    p.data -= lr * b\n",
        ),
        "6.4",
    ),
    (
        "RMSprop's weight decay after the averages",
        RMS,
        edits(
            RMS,
            (
                "                if weight_decay != 0:\n"
                "                    g = g + weight_decay * p.data\n",
                "",
            ),
            (
                "                if centered:\n                    a = ",
                "                if weight_decay != 0:\n"
                "                    g = g + weight_decay * p.data\n"
                "                if centered:\n"
                "                    a = ",
            ),
        ),
        "6.4",
    ),
    # was a hole: the trajectories compare the state's entries at the end
    (
        "RMSprop makes every state entry",
        RMS,
        (
            "                    if momentum > 0:\n"
            '                        state["momentum_buffer"] = zeros_like(p)\n'
            "                    if centered:\n"
            '                        state["grad_avg"] = zeros_like(p)\n',
            '                    state["momentum_buffer"] = zeros_like(p)\n'
            '                    state["grad_avg"] = zeros_like(p)\n',
        ),
        "6.4",
    ),
    # was a hole: the trajectories compare the state's step at the end
    (
        "RMSprop never counts its steps",
        RMS,
        ('                state["step"] += 1\n', ""),
        "6.4",
    ),
    (
        "RMSprop's centered mean of squares",
        RMS,
        ("a += (g - a) * (1 - alpha)", "a += (g * g - a) * (1 - alpha)"),
        "6.4",
    ),
    (
        "RMSprop's eps added under the centered root",
        RMS,
        ("r = xp.sqrt(v - a * a) + eps", "r = xp.sqrt(v - a * a + eps)"),
        "6.4",
    ),
    # -- 6.5 ---------------------------------------------------------------------------------
    (
        "Adam's bias correction with t − 1",
        ADAM,
        edits(
            ADAM,
            (ADAM_BIAS, "                step_size = lr / (1 - beta1 ** (t - 1) + 1e-12)\n"),
            (
                ADAM_DENOM,
                "                denom = xp.sqrt(v) / math.sqrt(1 - beta2 ** (t - 1) + 1e-12)"
                " + eps\n",
            ),
        ),
        "6.5",
    ),
    (
        "Adam's corrections with the betas swapped",
        ADAM,
        edits(
            ADAM,
            (ADAM_BIAS, "                step_size = lr / (1 - beta2**t)\n"),
            (ADAM_DENOM, "                denom = xp.sqrt(v) / math.sqrt(1 - beta1**t) + eps\n"),
        ),
        "6.5",
    ),
    (
        "Adam's eps inside the root",
        ADAM,
        (ADAM_DENOM, "                denom = xp.sqrt(v / (1 - beta2**t) + eps)\n"),
        "6.5",
    ),
    (
        "Adam's eps added before dividing by √bias2",
        ADAM,
        (ADAM_DENOM, "                denom = (xp.sqrt(v) + eps) / math.sqrt(1 - beta2**t)\n"),
        "6.5",
    ),
    (
        "Adam's lerp with weight beta1",
        ADAM,
        (ADAM_M, "                m += (g - m) * beta1\n"),
        "6.5",
    ),
    (
        "Adam's m = β₁m + g",
        ADAM,
        (ADAM_M, "                m *= beta1\n                m += g\n"),
        "6.5",
    ),
    (
        "Adam's second moment with 1 − β₁",
        ADAM,
        (ADAM_V, "                v *= beta2\n                v += (1 - beta1) * (g * g)\n"),
        "6.5",
    ),
    (
        "Adam's amsgrad maximum before the new v",
        ADAM,
        edits(
            ADAM,
            (
                ADAM_V,
                "                if amsgrad:\n"
                '                    v_old = state["max_exp_avg_sq"].data\n'
                "                    xp.maximum(v_old, v, out=v_old)\n" + ADAM_V,
            ),
            ("                    xp.maximum(v_max, v, out=v_max)\n", ""),
        ),
        "6.5",
    ),
    (
        "Adam's amsgrad keeps the maximum of the corrected v",
        ADAM,
        (
            "                    xp.maximum(v_max, v, out=v_max)\n",
            "                    xp.maximum(v_max, v / (1 - beta2**t), out=v_max)\n",
        ),
        "6.5",
    ),
    (
        "Adam's weight decay after the moments",
        ADAM,
        edits(
            ADAM,
            (ADAM_DECAY, ""),
            ("                step_size = lr", ADAM_DECAY + "                step_size = lr"),
        ),
        "6.5",
    ),
    (
        "Adam's moments not kept",
        ADAM,
        edits(
            ADAM,
            (
                'm, v = state["exp_avg"].data, state["exp_avg_sq"].data\n'
                "                m += (g - m) * (1 - beta1)\n"
                "                v *= beta2\n"
                "                v += (1 - beta2) * (g * g)",
                'm = beta1 * state["exp_avg"].data + (1 - beta1) * g\n'
                '                v = beta2 * state["exp_avg_sq"].data + (1 - beta2) * g * g',
            ),
        ),
        "6.5",
    ),
    # was a hole: blamed on 6.7; the trajectories ask that self.state be keyed by the parameters
    (
        "Adam's state keyed by id(p)",
        ADAM,
        edits(
            ADAM,
            (
                "### BEGIN SOLUTION 6.5",
                "### BEGIN SOLUTION 6.5\n                state = self.state.setdefault(id(p), {})",
            ),
        ),
        "6.5",
    ),
    # was a hole: blamed on 6.7; a trajectory with a parameter that never has a gradient (frozen)
    (
        "Adam makes state for parameters without a gradient",
        ADAM,
        edits(
            ADAM,
            (
                (
                    "if not state:\n"
                    '                    state["step"] = 0\n'
                    '                    state["exp_avg"] = zeros_like(p)\n'
                    '                    state["exp_avg_sq"] = zeros_like(p)\n'
                    "                    if amsgrad:\n"
                    '                        state["max_exp_avg_sq"] = zeros_like(p)'
                ),
                (
                    'for q in group["params"]:\n'
                    "                    if not self.state[q]:\n"
                    '                        self.state[q]["step"] = 0\n'
                    '                        self.state[q]["exp_avg"] = zeros_like(q)\n'
                    '                        self.state[q]["exp_avg_sq"] = zeros_like(q)\n'
                    "                        if amsgrad:\n"
                    '                            self.state[q]["max_exp_avg_sq"] ='
                    " zeros_like(q)"
                ),
            ),
        ),
        "6.5",
    ),
    (
        "Adam counts its steps from 0",
        ADAM,
        (
            '                state["step"] += 1\n                t = state["step"]\n',
            '                t = state["step"] + 1\n',
        ),
        "6.5",
    ),
    (
        "Adam's bias correction on the first moment only",
        ADAM,
        (ADAM_DENOM, "                denom = xp.sqrt(v) + eps\n"),
        "6.5",
    ),
    # -- 6.6 ---------------------------------------------------------------------------------
    (
        "AdamW decays and couples",
        ADAM,
        (
            "        return g\n        ### END SOLUTION",
            '        return g + group["weight_decay"] * p.data\n        ### END SOLUTION',
        ),
        "6.6",
    ),
    (
        "AdamW subtracts lr·λ without p",
        ADAM,
        (ADAMW, 'p.data -= group["lr"] * group["weight_decay"]'),
        "6.6",
    ),
    (
        "AdamW's factor (1 − lr)·λ",
        ADAM,
        (ADAMW, 'p.data *= (1 - group["lr"]) * group["weight_decay"]'),
        "6.6",
    ),
    # was a hole: blamed on 6.7's training run; the AdamW row's group with its own lr and decay
    (
        "AdamW's decay with the default lr",
        ADAM,
        (ADAMW, 'p.data *= 1 - self.defaults["lr"] * group["weight_decay"]'),
        "6.6",
    ),
    (
        "AdamW's decay scaled by the gradient",
        ADAM,
        (ADAMW, 'p.data -= group["lr"] * group["weight_decay"] * g'),
        "6.6",
    ),
    (
        "AdamW's decay by 1/(1 + lr·λ)",
        ADAM,
        (ADAMW, 'p.data /= 1 + group["lr"] * group["weight_decay"]'),
        "6.6",
    ),
    # -- 6.7 ---------------------------------------------------------------------------------
    # was a hole: the resume whose first parameter steps late (late=True)
    (
        "load_state_dict maps by the order of the state",
        OPT,
        rewrite(OPT, "6.7", None, LOAD_BY_ORDER_OF_STATE),
        "6.7",
    ),
    (
        "load_state_dict keys the state by id(p)",
        OPT,
        edits(
            OPT,
            (
                (
                    "raise ValueError(\n"
                    '                "loaded state dict contains a parameter group that'
                    " doesn't match the size of \"\n"
                    '                "optimizer\'s group"\n'
                    "            )"
                ),
                (
                    "raise ValueError(\"a parameter group doesn't match the size of"
                    " optimizer's group\")"
                ),
            ),
            ("self.state[p]", "self.state[id(p)]"),
        ),
        "6.7",
    ),
    (
        "load_state_dict updates the groups with the saved ones",
        OPT,
        rewrite(OPT, "6.7", None, LOAD_UPDATES_THE_GROUPS),
        "6.7",
    ),
    # was a hole: the resume into an optimizer that has stepped (warm=True)
    (
        "load_state_dict keeps the state it had",
        OPT,
        edits(
            OPT,
            (
                (
                    "raise ValueError(\n"
                    '                "loaded state dict contains a parameter group that'
                    " doesn't match the size of \"\n"
                    '                "optimizer\'s group"\n'
                    "            )"
                ),
                (
                    "raise ValueError(\"a parameter group doesn't match the size of"
                    " optimizer's group\")"
                ),
            ),
            ("        self.state = defaultdict(dict)\n", ""),
            ("self.state[p] = {", ("self.state[p].update(\n                {")),
            (
                "}\n        self.param_groups = [",
                "}\n            )\n        self.param_groups = [",
            ),
        ),
        "6.7",
    ),
    # was a hole: the resume whose first parameter steps late (late=True)
    (
        "state_dict numbers parameters by the state's order",
        OPT,
        edits(
            OPT,
            ("index = {}", "index = {id(p): i for i, p in enumerate(self.state)}"),
            (
                'for p in group["params"]:\n'
                "                index.setdefault(id(p), len(index))\n"
                '            packed["params"] = [index[id(p)] for p in group["params"]]',
                'packed["params"] = [index.setdefault(id(p), len(index)) for p in group["params"]]',
            ),
            ("            if id(p) in index\n", ""),
        ),
        "6.7",
    ),
    (
        "state_dict keeps the parameters in the groups",
        OPT,
        edits(
            OPT,
            (
                'packed["params"] = [index[id(p)] for p in group["params"]]',
                'packed["params"] = list(group["params"])',
            ),
            ("            if id(p) in index\n", ""),
        ),
        "6.7",
    ),
    (
        "state_dict returns the live groups",
        OPT,
        edits(
            OPT,
            (
                "index = {}",
                (
                    "index = {}\n"
                    "        for group in self.param_groups:\n"
                    '            for p in group["params"]:\n'
                    "                index.setdefault(id(p), len(index))"
                ),
            ),
            (
                (
                    "packed = {name: value for name, value in group.items() if name !="
                    ' "params"}\n'
                    '            for p in group["params"]:\n'
                    "                index.setdefault(id(p), len(index))\n"
                    '            packed["params"] = [index[id(p)] for p in group["params"]]'
                ),
                (
                    "packed = group\n"
                    '            packed["params"] = [index[id(p)] if not isinstance(p,'
                    ' int) else p for p in group["params"]]'
                ),
            ),
            ("            if id(p) in index\n", ""),
        ),
        "6.7",
    ),
    (
        "state_dict's state a shallow copy",
        OPT,
        (SD_STATE, "copy.copy(values)"),
        "6.7",
    ),
    (
        "load_state_dict takes the saved tensors themselves",
        OPT,
        (
            LOAD_VALUE,
            'name: value if name == "step" or value.dtype == p.dtype else _copy(value, like=p)',
        ),
        "6.7",
    ),
    (
        "load_state_dict casts to float32",
        OPT,
        (
            LOAD_VALUE,
            'name: value if name == "step" else Tensor._from_array(value.data.astype("float32"))',
        ),
        "6.7",
    ),
    (
        "load_state_dict's groups lose their params",
        OPT,
        ('                "params": group["params"],\n', ""),
        "6.7",
    ),
    # was a hole: the resume asks that 'step' stay an int
    (
        "load_state_dict's step made a float",
        OPT,
        (LOAD_VALUE, 'name: float(value) if name == "step" else _copy(value, like=p)'),
        "6.7",
    ),
]

VARIANTS += [
    # -- 6.8 ---------------------------------------------------------------------------------
    (
        "StepLR rounds t / step_size",
        SCHED,
        (
            "self.gamma ** (self.last_epoch // self.step_size)",
            "self.gamma ** round(self.last_epoch / self.step_size)",
        ),
        "6.8",
    ),
    (
        "StepLR from step 1",
        SCHED,
        (
            "self.gamma ** (self.last_epoch // self.step_size)",
            "self.gamma ** ((self.last_epoch - 1) // self.step_size + (self.last_epoch > 0))",
        ),
        "6.8",
    ),
    (
        "MultiStepLR γ once at a milestone",
        SCHED,
        (
            "self.gamma ** bisect.bisect_right(self.milestones, self.last_epoch)",
            "self.gamma ** (self.last_epoch in self.milestones)",
        ),
        "6.8",
    ),
    (
        "MultiStepLR counts milestones below t",
        SCHED,
        (
            "self.gamma ** bisect.bisect_right(self.milestones, self.last_epoch)",
            "self.gamma ** sum(m < self.last_epoch for m in self.milestones)",
        ),
        "6.8",
    ),
    (
        "ExponentialLR one step ahead",
        SCHED,
        ("base * self.gamma**self.last_epoch", "base * self.gamma ** (self.last_epoch + 1)"),
        "6.8",
    ),
    (
        "ExponentialLR linear in t",
        SCHED,
        ("base * self.gamma**self.last_epoch", "base * (1 - (1 - self.gamma) * self.last_epoch)"),
        "6.8",
    ),
    (
        "CosineAnnealingLR over T_max − 1",
        SCHED,
        (COS, "cosine = (1 + math.cos(math.pi * self.last_epoch / (self.T_max - 1))) / 2"),
        "6.8",
    ),
    (
        "CosineAnnealingLR ignores eta_min in the scale",
        SCHED,
        (
            "self.eta_min + (base - self.eta_min) * cosine",
            "self.eta_min + base * cosine",
        ),
        "6.8",
    ),
    (
        "CosineAnnealingLR stays at eta_min after T_max",
        SCHED,
        (
            COS,
            "cosine = (1 + math.cos(math.pi * min(self.last_epoch, self.T_max) / self.T_max)) / 2",
        ),
        "6.8",
    ),
    (
        "CosineAnnealingLR without the ½",
        SCHED,
        (COS, "cosine = 1 + math.cos(math.pi * self.last_epoch / self.T_max)"),
        "6.8",
    ),
    (
        "LambdaLR calls λ with t + 1",
        SCHED,
        ("base * lmbda(self.last_epoch)", "base * lmbda(self.last_epoch + 1)"),
        "6.8",
    ),
    (
        "LambdaLR from the current lr",
        SCHED,
        (
            "base * lmbda(self.last_epoch) for base, lmbda in zip(self.base_lrs, self.lr_lambdas)",
            'g["lr"] * lmbda(self.last_epoch)\n'
            "            for g, lmbda in zip(self.optimizer.param_groups, self.lr_lambdas)",
        ),
        "6.8",
    ),
    (
        "StepLR with the first group's base lr",
        SCHED,
        (
            "        return [base * factor for base in self.base_lrs]\n"
            "        ### END SOLUTION\n"
            "\n"
            "\n"
            "class MultiStepLR",
            "        return [self.base_lrs[0] * factor for base in self.base_lrs]\n"
            "        ### END SOLUTION\n"
            "\n"
            "\n"
            "class MultiStepLR",
        ),
        "6.8",
    ),
    # -- 6.9 ---------------------------------------------------------------------------------
    (
        "OneCycleLR without the last phase's fallback",
        CYCLE,
        edits(
            CYCLE,
            (
                "start_step, last = 0.0, len(self._schedule_phases) - 1\n"
                "            for i, (end_step, lr0, lr1, m0, m1) in "
                "enumerate(self._schedule_phases):\n"
                "                if t <= end_step or i == last:",
                "start_step = 0.0\n"
                "            for end_step, lr0, lr1, m0, m1 in self._schedule_phases:\n"
                "                if t <= end_step:",
            ),
        ),
        "6.9",
    ),
    (
        "OneCycleLR cycles the first group's momentum",
        CYCLE,
        edits(
            CYCLE,
            (
                "if self.cycle_momentum:",
                "if self.cycle_momentum:\n"
                "                        first = self.optimizer.param_groups[0]",
            ),
            (
                "_set_momentum(group, momentum, self.use_beta1)",
                "_set_momentum(first, momentum, self.use_beta1)",
            ),
        ),
        "6.9",
    ),
    (
        "OneCycleLR's lr keys swapped",
        CYCLE,
        (ANNEAL_LR, "lrs.append(_anneal(self.anneal_strategy, group[lr1], group[lr0], pct))"),
        "6.9",
    ),
    (
        "OneCycleLR's momentum keys swapped",
        CYCLE,
        (ANNEAL_M, "momentum = _anneal(self.anneal_strategy, group[m1], group[m0], pct)"),
        "6.9",
    ),
    (
        "OneCycleLR always cosine",
        CYCLE,
        (ANNEAL_LR, 'lrs.append(_anneal("cos", group[lr0], group[lr1], pct))'),
        "6.9",
    ),
    (
        "OneCycleLR's momentum always linear",
        CYCLE,
        (ANNEAL_M, 'momentum = _anneal("linear", group[m0], group[m1], pct)'),
        "6.9",
    ),
    (
        "OneCycleLR's fraction 1 − pct",
        CYCLE,
        (PCT, "pct = 1 - (t - start_step) / (end_step - start_step)"),
        "6.9",
    ),
    (
        "OneCycleLR's fraction over the end step",
        CYCLE,
        (PCT, "pct = (t - start_step) / end_step"),
        "6.9",
    ),
    (
        "OneCycleLR's phase taken with t < end_step, the last never",
        CYCLE,
        ("if t <= end_step or i == last:", "if t < end_step:"),
        "6.9",
    ),
    (
        "OneCycleLR sets beta1 for SGD too",
        CYCLE,
        (SET_M, "_set_momentum(group, momentum, True)"),
        "6.9",
    ),
    (
        "OneCycleLR overwrites beta2",
        CYCLE,
        (
            SET_M,
            'group.__setitem__("betas", (momentum, momentum)) if self.use_beta1 else'
            " _set_momentum(group, momentum, False)",
        ),
        "6.9",
    ),
    (
        "OneCycleLR cycles momentum only for Adam",
        CYCLE,
        (SET_M, "self.use_beta1 and _set_momentum(group, momentum, True)"),
        "6.9",
    ),
    (
        "OneCycleLR cycles momentum regardless",
        CYCLE,
        ("                    if self.cycle_momentum:\n", "                    if True:\n"),
        "6.9",
    ),
    # -- 6.10 --------------------------------------------------------------------------------
    (
        "clip_grad_norm_ clips each tensor by its own norm",
        CLIP,
        rewrite(CLIP, "6.10", CLIP_PER_TENSOR),
        "6.10",
    ),
    (
        "clip_grad_norm_ returns the clipped norm",
        CLIP,
        rewrite(CLIP, "6.10", CLIP_RETURNS_THE_CLIPPED_NORM),
        "6.10",
    ),
    (
        "clip_grad_norm_ without the 1e-6",
        CLIP,
        (COEF, "coef = xp.minimum(max_norm / total, 1.0)"),
        "6.10",
    ),
    (
        "clip_grad_norm_ adds 1e-6 after dividing",
        CLIP,
        (COEF, "coef = xp.minimum(max_norm / total + 1e-6, 1.0)"),
        "6.10",
    ),
    (
        "clip_grad_norm_ clamps the wrong way",
        CLIP,
        (COEF, "coef = xp.maximum(max_norm / (total + 1e-6), 1.0)"),
        "6.10",
    ),
    (
        "clip_grad_norm_'s inf-norm as a sum",
        CLIP,
        (
            "norms = [xp.abs(g).max() if g.size else xp.zeros((), g.dtype) for g in grads]",
            "norms = [xp.abs(g).sum() for g in grads]",
        ),
        "6.10",
    ),
    # was a hole: the inf-norm case whose largest |g| is negative
    (
        "clip_grad_norm_'s inf-norm of the signed maximum",
        CLIP,
        (
            "norms = [xp.abs(g).max() if g.size else xp.zeros((), g.dtype) for g in grads]",
            "norms = [g.max() for g in grads]",
        ),
        "6.10",
    ),
    (
        "clip_grad_norm_'s p-norm of the sum of the norms' squares",
        CLIP,
        (
            "total = (xp.stack(norms) ** norm_type).sum() ** (1.0 / norm_type)",
            "total = (xp.stack(norms) ** 2).sum() ** 0.5",
        ),
        "6.10",
    ),
    (
        "clip_grad_norm_'s norm without the root",
        CLIP,
        (NORMS, "norms = [(xp.abs(g) ** norm_type).sum() for g in grads]"),
        "6.10",
    ),
    (
        "clip_grad_norm_ raises ValueError",
        CLIP,
        (
            '        raise RuntimeError(\n            f"The total norm',
            '        raise ValueError(\n            f"The total norm',
        ),
        "6.10",
    ),
    (
        "clip_grad_norm_ returns Tensor(float(total))",
        CLIP,
        (RETURN, "    return Tensor(float(total))\n"),
        "6.10",
    ),
    (
        "clip_grad_norm_'s total in float64",
        CLIP,
        (RETURN, "    return Tensor._from_array(total.astype(xp.float64))\n"),
        "6.10",
    ),
    (
        "clip_grad_norm_ writes p.grad.data",
        CLIP,
        (SCALE, "p.grad.data = g * coef.astype(g.dtype)"),
        "6.10",
    ),
    (
        "clip_grad_value_ clips only the positives",
        CLIP,
        (VALUE, "p.grad = Tensor._from_array(array_module(g).minimum(g, clip_value))"),
        "6.10",
    ),
    (
        "clip_grad_value_ clips to [0, c]",
        CLIP,
        (VALUE, "p.grad = Tensor._from_array(array_module(g).clip(g, 0, clip_value))"),
        "6.10",
    ),
    (
        "clip_grad_value_ writes p.grad.data",
        CLIP,
        (VALUE, "p.grad.data = array_module(g).clip(g, -clip_value, clip_value)"),
        "6.10",
    ),
    (
        "clip_grad_value_ in float64",
        CLIP,
        (
            VALUE,
            "p.grad = Tensor._from_array(array_module(g).clip(g, -clip_value,"
            " clip_value).astype(float))",
        ),
        "6.10",
    ),
    (
        "clip_grad_value_ scales by c / max|g|",
        CLIP,
        (
            VALUE,
            "p.grad = Tensor._from_array(g * min(1.0, clip_value /"
            " float(array_module(g).abs(g).max())))",
        ),
        "6.10",
    ),
]

# -- unusual but correct rewrites ------------------------------------------------------------

ADD_GROUP_IN_THE_CALLERS_DICT = """
if isinstance(params, Tensor):
    param_group["params"] = [params]
elif isinstance(params, set):
    raise TypeError("optimizer parameters need to be organized in ordered collections")
else:
    param_group["params"] = list(params)
for p in param_group["params"]:
    if not isinstance(p, Tensor):
        raise TypeError(f"optimizer can only optimize Tensors, not {type(p).__name__}")
    if p.grad_fn is not None:
        raise ValueError("can't optimize a non-leaf Tensor")
for name, default in self.defaults.items():
    if default is required and name not in param_group:
        raise ValueError(f"parameter group didn't specify a value of required parameter {name}")
    param_group.setdefault(name, default)
params_ids = set()
for group in self.param_groups:
    params_ids.update(id(p) for p in group["params"])
if not params_ids.isdisjoint(id(p) for p in param_group["params"]):
    raise ValueError("some parameters appear in more than one parameter group")
self.param_groups.append(param_group)
"""

ADD_GROUP_DEFAULTS_THEN_UPDATE = """
if isinstance(params, set):
    raise TypeError("a set's order changes between runs: use a list")
plist = [params] if isinstance(params, Tensor) else list(params)
for p in plist:
    if not isinstance(p, Tensor):
        raise TypeError(f"optimizer can only optimize Tensors, but got {type(p).__name__}")
if not all(p.is_leaf for p in plist):
    raise ValueError("can't optimize a non-leaf Tensor")
group = dict(self.defaults)
group.update(param_group)
group["params"] = plist
for name, value in group.items():
    if value is required:
        raise ValueError(f"parameter group didn't specify a value of {name}")
taken = [id(p) for g in self.param_groups for p in g["params"]]
if set(taken) & {id(p) for p in plist}:
    raise ValueError("some parameters appear in more than one parameter group")
self.param_groups.append(group)
"""

ZERO_GRAD_BY_LIST = """
params = [p for group in self.param_groups for p in group["params"] if p.grad is not None]
for p in params:
    p.grad = None if set_to_none else zeros_like(p.grad)
"""

SGD_LAZY_SETDEFAULT = """
d_p = g if weight_decay == 0 else g + weight_decay * p.data
if momentum > 0:
    state = self.state[p]
    if "momentum_buffer" in state:
        buf = state["momentum_buffer"]
        buf.data[...] = momentum * buf.data + (1.0 - dampening) * d_p
    else:
        buf = Tensor._from_array(d_p.astype(d_p.dtype, copy=True))
        buf = state.setdefault("momentum_buffer", buf)
    d_p = d_p + momentum * buf.data if nesterov else buf.data
p.data = p.data - lr * d_p
"""

ADAGRAD_ON_TENSORS = """
from ...ch04_backward.grad_mode import no_grad

with no_grad():
    d = p.grad
    clr = lr / (1 + state["step"] * lr_decay)
    state["step"] = state["step"] + 1
    if weight_decay:
        d = d + weight_decay * p
    state["sum"] = state["sum"] + d * d
    p.data -= (clr * d / (state["sum"].sqrt() + eps)).data
"""

ADAGRAD_NUMPY = """
import numpy as np

t = state["step"] = state["step"] + 1
if weight_decay > 0:
    g = np.add(g, weight_decay * p.data)
acc = state["sum"].data
np.add(acc, np.square(g), out=acc)
std = np.sqrt(acc)
std += eps
p.data -= (lr / (1 + (t - 1) * lr_decay)) * g / std
"""

RMSPROP_LAZY_KEYS = """
xp = array_module(g)
state["step"] = state.get("step", 0) + 1
if weight_decay:
    g = g + weight_decay * p.data
if "square_avg" not in state:
    state["square_avg"] = zeros_like(p)
sq = state["square_avg"].data
sq[...] = alpha * sq + (1 - alpha) * g**2
avg = sq
if centered:
    if "grad_avg" not in state:
        state["grad_avg"] = zeros_like(p)
    ga = state["grad_avg"].data
    ga[...] = alpha * ga + (1 - alpha) * g
    avg = sq - ga**2
avg = xp.sqrt(avg) + eps
if momentum > 0:
    if "momentum_buffer" not in state:
        state["momentum_buffer"] = zeros_like(p)
    buf = state["momentum_buffer"].data
    buf[...] = momentum * buf + g / avg
    p.data -= lr * buf
else:
    p.data -= lr * g / avg
"""

ADAM_SQRT_OF_THE_RATIO = """
if "step" not in state:
    state.update(step=0, exp_avg=zeros_like(p), exp_avg_sq=zeros_like(p))
    if amsgrad:
        state["max_exp_avg_sq"] = zeros_like(p)
state["step"] += 1
t = state["step"]
g = self._weight_decay(p, g, group)
xp = array_module(g)
m, v = state["exp_avg"].data, state["exp_avg_sq"].data
m[...] = beta1 * m + (1 - beta1) * g
v[...] = beta2 * v + (1 - beta2) * g**2
if amsgrad:
    vm = state["max_exp_avg_sq"].data
    vm[...] = xp.maximum(vm, v)
    v = vm
m_hat = m / (1 - beta1**t)
v_hat = v / (1 - beta2**t)
p.data -= lr * m_hat / (xp.sqrt(v_hat) + eps)
"""

ADAM_ON_TENSORS = """
from ...ch02_tensor.tensor import Tensor
from ...ch04_backward.grad_mode import no_grad

if not state:
    state["step"] = 0
    state["exp_avg"] = zeros_like(p)
    state["exp_avg_sq"] = zeros_like(p)
    if amsgrad:
        state["max_exp_avg_sq"] = zeros_like(p)
state["step"] += 1
t = state["step"]
g = self._weight_decay(p, g, group)
with no_grad():
    d = Tensor._from_array(g)
    m = state["exp_avg"] = state["exp_avg"] * beta1 + d * (1 - beta1)
    v = state["exp_avg_sq"] = state["exp_avg_sq"] * beta2 + d * d * (1 - beta2)
    if amsgrad:
        v = state["max_exp_avg_sq"] = Tensor._from_array(
            array_module(g).maximum(state["max_exp_avg_sq"].data, v.data)
        )
    denom = v.sqrt() / math.sqrt(1 - beta2**t) + eps
    p.data -= (m / denom * (lr / (1 - beta1**t))).data
"""

STATE_DICT_COMPREHENSIONS = """
flat = [p for group in self.param_groups for p in group["params"]]
ids = {}
for p in flat:
    ids.setdefault(id(p), len(ids))
return {
    "state": {
        ids[id(p)]: {
            k: Tensor._from_array(v.data.copy()) if isinstance(v, Tensor) else copy.deepcopy(v)
            for k, v in s.items()
        }
        for p, s in self.state.items()
        if id(p) in ids
    },
    "param_groups": [
        {
            **{k: v for k, v in g.items() if k != "params"},
            "params": [ids[id(p)] for p in g["params"]],
        }
        for g in self.param_groups
    ],
}
"""

STATE_DICT_DEEPCOPY = """
index = {}
for group in self.param_groups:
    for p in group["params"]:
        if id(p) not in index:
            index[id(p)] = len(index)
groups = [
    {
        **copy.deepcopy({k: v for k, v in g.items() if k != "params"}),
        "params": [index[id(p)] for p in g["params"]],
    }
    for g in self.param_groups
]
state = {index[id(p)]: copy.deepcopy(s) for p, s in self.state.items() if id(p) in index}
return {"state": state, "param_groups": groups}
"""

LOAD_WITH_A_FLAT_LIST = """
if len(groups) != len(saved_groups) or any(
    len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)
):
    raise ValueError("loaded state dict doesn't match the optimizer's parameter groups")
by_index = {}
for g, s in zip(groups, saved_groups):
    for i, p in zip(s["params"], g["params"]):
        by_index[i] = p
new_state = defaultdict(dict)
for i, saved in state_dict["state"].items():
    p = by_index[i]
    entry = {}
    for k, v in saved.items():
        if isinstance(v, Tensor):
            a = v.data.astype(p.data.dtype) if v.data.dtype.kind == "f" else v.data
            entry[k] = Tensor._from_array(a.copy())
        else:
            entry[k] = v
    new_state[p] = entry
self.state = new_state
for g, s in zip(groups, saved_groups):
    params = g["params"]
    g.clear()
    g.update(copy.deepcopy({k: v for k, v in s.items() if k != "params"}))
    g["params"] = params
"""

ONE_CYCLE_PRECOMPUTED_STARTS = """
phases = self._schedule_phases
starts = [0.0] + [phase[0] for phase in phases[:-1]]
k = next((i for i, phase in enumerate(phases) if t <= phase[0]), len(phases) - 1)
end_step, lr0, lr1, m0, m1 = phases[k]
pct = (t - starts[k]) / (end_step - starts[k])
for group in self.optimizer.param_groups:
    lrs.append(_anneal(self.anneal_strategy, group[lr0], group[lr1], pct))
    if self.cycle_momentum:
        momentum = _anneal(self.anneal_strategy, group[m0], group[m1], pct)
        _set_momentum(group, momentum, self.use_beta1)
"""

CLIP_FLOAT_COEF = """
grads = [p.grad.data for p in params]
xp = array_module(grads[0])
if norm_type == math.inf:
    total = max(xp.abs(g).max() if g.size else xp.zeros((), g.dtype) for g in grads)
    total = xp.asarray(total, dtype=grads[0].dtype)
else:
    total = sum((xp.abs(g) ** norm_type).sum() for g in grads) ** (1.0 / norm_type)
    total = xp.asarray(total, dtype=grads[0].dtype)
if error_if_nonfinite and (xp.isnan(total) or xp.isinf(total)):
    raise RuntimeError("the total norm of the gradients is non-finite")
clip_coef = float(max_norm) / (float(total) + 1e-6)
if clip_coef < 1 or not math.isfinite(clip_coef):
    for p, g in zip(params, grads):
        c = min(clip_coef, 1.0) if clip_coef == clip_coef else clip_coef
        p.grad = Tensor._from_array((g * c).astype(g.dtype))
return Tensor._from_array(total)
"""

CORRECT = [
    (
        "add_param_group in the caller's dict",
        OPT,
        rewrite(OPT, "6.1", ADD_GROUP_IN_THE_CALLERS_DICT),
        "6.1",
    ),
    (
        "add_param_group: the defaults, then the group",
        OPT,
        rewrite(OPT, "6.1", ADD_GROUP_DEFAULTS_THEN_UPDATE),
        "6.1",
    ),
    (
        "zero_grad over one list, with zeros_like(p.grad)",
        OPT,
        rewrite(OPT, "6.1", None, ZERO_GRAD_BY_LIST),
        "6.1",
    ),
    (
        "zero_grad with zeros(shape, dtype)",
        OPT,
        (
            ZERO,
            "                    p.grad = Tensor._from_array(array_module(g).zeros(g.shape,"
            " dtype=g.dtype))\n",
        ),
        "6.1",
    ),
    (
        "SGD lazily with setdefault and p.data rebound",
        SGD,
        rewrite(SGD, "6.2", SGD_LAZY_SETDEFAULT),
        "6.2",
    ),
    (
        "SGD's buffer rebound to a new array",
        SGD,
        (
            SGD_BUFFER,
            "                        buffer.data = momentum * buffer.data + (1 - dampening) * g\n",
        ),
        "6.2",
    ),
    (
        "SGD steps with a copy of the buffer",
        SGD,
        (NESTEROV, "g = g + momentum * buffer.data if nesterov else buffer.data.copy()"),
        "6.2",
    ),
    (
        "Adagrad on Tensors under no_grad, decay before counting",
        ADAGRAD,
        rewrite(ADAGRAD, "6.3", ADAGRAD_ON_TENSORS),
        "6.3",
    ),
    ("Adagrad with numpy ufuncs", ADAGRAD, rewrite(ADAGRAD, "6.3", ADAGRAD_NUMPY), "6.3"),
    ("RMSprop with lazy keys and slices", RMS, rewrite(RMS, "6.4", RMSPROP_LAZY_KEYS), "6.4"),
    (
        "RMSprop's centered variance as a*a subtracted after the root's argument",
        RMS,
        ("r = xp.sqrt(v - a * a) + eps", "r = xp.sqrt(v - xp.square(a)) + eps"),
        "6.4",
    ),
    (
        "RMSprop divides once",
        RMS,
        (
            "                    p.data -= lr * (g / r)\n",
            "                    p.data -= (lr / r) * g\n",
        ),
        "6.4",
    ),
    ("Adam with m̂ and v̂", ADAM, rewrite(ADAM, "6.5", ADAM_SQRT_OF_THE_RATIO), "6.5"),
    (
        "Adam on Tensors under no_grad, new state tensors",
        ADAM,
        rewrite(ADAM, "6.5", ADAM_ON_TENSORS),
        "6.5",
    ),
    (
        "Adam's lerp as m = β₁m + (1 − β₁)g",
        ADAM,
        (ADAM_M, "                m *= beta1\n                m += (1 - beta1) * g\n"),
        "6.5",
    ),
    (
        "Adam's bias terms with math.pow",
        ADAM,
        edits(
            ADAM,
            (ADAM_BIAS, "                step_size = lr / (1 - math.pow(beta1, t))\n"),
            (
                ADAM_DENOM,
                "                denom = xp.sqrt(v) / (1 - math.pow(beta2, t)) ** 0.5 + eps\n",
            ),
        ),
        "6.5",
    ),
    (
        "AdamW's decay rebinding p.data",
        ADAM,
        (ADAMW, 'p.data = p.data * (1 - group["lr"] * group["weight_decay"])'),
        "6.6",
    ),
    (
        "AdamW's decay with multiply(out=)",
        ADAM,
        (
            ADAMW,
            'array_module(p.data).multiply(p.data, 1 - group["lr"] * group["weight_decay"],'
            " out=p.data)",
        ),
        "6.6",
    ),
    ("state_dict by comprehensions", OPT, rewrite(OPT, "6.7", STATE_DICT_COMPREHENSIONS), "6.7"),
    ("state_dict with deepcopy", OPT, rewrite(OPT, "6.7", STATE_DICT_DEEPCOPY), "6.7"),
    (
        "load_state_dict by index, groups updated in place",
        OPT,
        rewrite(OPT, "6.7", None, LOAD_WITH_A_FLAT_LIST),
        "6.7",
    ),
    (
        "load_state_dict takes the options without a deep copy",
        OPT,
        (
            '**copy.deepcopy({k: v for k, v in saved.items() if k != "params"}),',
            '**{k: v for k, v in saved.items() if k != "params"},',
        ),
        "6.7",
    ),
    (
        "StepLR with int(t / step_size)",
        SCHED,
        (
            "self.gamma ** (self.last_epoch // self.step_size)",
            "self.gamma ** int(self.last_epoch / self.step_size)",
        ),
        "6.8",
    ),
    (
        "MultiStepLR with a Counter",
        SCHED,
        (
            "self.gamma ** bisect.bisect_right(self.milestones, self.last_epoch)",
            "self.gamma ** sum(n for m, n in"
            " __import__('collections').Counter(self.milestones).items() if m <= self.last_epoch)",
        ),
        "6.8",
    ),
    (
        "ExponentialLR with math.pow",
        SCHED,
        ("base * self.gamma**self.last_epoch", "base * math.pow(self.gamma, self.last_epoch)"),
        "6.8",
    ),
    (
        "CosineAnnealingLR as η_min + ½(η₀ − η_min)(1 + cos)",
        SCHED,
        (
            "self.eta_min + (base - self.eta_min) * cosine",
            "self.eta_min + 0.5 * (base - self.eta_min) * (1 + math.cos(math.pi *"
            " self.last_epoch / self.T_max))",
        ),
        "6.8",
    ),
    (
        "LambdaLR by index",
        SCHED,
        (
            "base * lmbda(self.last_epoch) for base, lmbda in zip(self.base_lrs, self.lr_lambdas)",
            "self.base_lrs[i] * self.lr_lambdas[i](self.last_epoch) for i in"
            " range(len(self.base_lrs))",
        ),
        "6.8",
    ),
    (
        "OneCycleLR's phase taken with t < end_step",
        CYCLE,
        ("if t <= end_step or i == last:", "if t < end_step or i == last:"),
        "6.9",
    ),
    (
        "OneCycleLR with the phase found once",
        CYCLE,
        rewrite(CYCLE, "6.9", ONE_CYCLE_PRECOMPUTED_STARTS),
        "6.9",
    ),
    (
        "clip_grad_norm_ with a float coefficient, sums of powers",
        CLIP,
        rewrite(CLIP, "6.10", CLIP_FLOAT_COEF),
        "6.10",
    ),
    (
        "clip_grad_value_ with where",
        CLIP,
        (
            VALUE,
            "xp = array_module(g)\n"
            "        p.grad = Tensor._from_array(xp.where(g > clip_value, clip_value,"
            " xp.where(g < -clip_value, -clip_value, g)).astype(g.dtype))",
        ),
        "6.10",
    ),
    (
        "clip_grad_norm_ scales by a 0-d array of g's dtype",
        CLIP,
        (SCALE, "p.grad = Tensor._from_array(g * xp.asarray(coef, dtype=g.dtype))"),
        "6.10",
    ),
]


VARIANTS += [
    # was a hole: blamed on 6.7 (whose cast skips arrays); the trajectories ask for Tensors in
    # the state
    (
        "SGD's buffer stored as an array",
        SGD,
        edits(
            SGD,
            (
                "buffer = Tensor._from_array(g.copy())\n"
                '                        state["momentum_buffer"] = buffer',
                'buffer = state["momentum_buffer"] = g.copy()',
            ),
            (
                "buffer.data *= momentum\n"
                "                        buffer.data += (1 - dampening) * g\n"
                "                    g = g + momentum * buffer.data if nesterov else "
                "buffer.data",
                "buffer *= momentum\n"
                "                        buffer += (1 - dampening) * g\n"
                "                    g = g + momentum * buffer if nesterov else buffer",
            ),
        ),
        "6.2",
    ),
    (
        "Adam's step count per group",
        ADAM,
        edits(
            ADAM,
            (
                'state["step"] += 1\n                t = state["step"]',
                "if p is self._with_grad(group)[0]:\n"
                '                    group["t"] = group.get("t", 0) + 1\n'
                '                state["step"] = t = group["t"]',
            ),
        ),
        "6.5",
    ),
    # was a hole: the resume asks for int keys in state_dict()['state']
    (
        "state_dict keys the state by str(index)",
        OPT,
        edits(
            OPT,
            (
                "index[id(p)]: {name: _copy(value) for name, value in values.items()}",
                "str(index[id(p)]): {name: _copy(value) for name, value in values.items()}",
            ),
            ("            p = params[key]\n", "            p = params[int(key)]\n"),
        ),
        "6.7",
    ),
    # was a hole: a nan case with error_if_nonfinite
    (
        "clip_grad_norm_ raises only for an inf",
        CLIP,
        (
            "if error_if_nonfinite and not bool(xp.isfinite(total)):",
            "if error_if_nonfinite and bool(xp.isinf(total)):",
        ),
        "6.10",
    ),
    # was a hole: an inf case without error_if_nonfinite (scaled by 0, as PyTorch does)
    (
        "clip_grad_norm_ leaves the gradients alone when the norm is not finite",
        CLIP,
        (
            COEF,
            "if not bool(xp.isfinite(total)):\n        return Tensor._from_array(total)\n    "
            + COEF,
        ),
        "6.10",
    ),
]

SGD_BUFFER_FROM_ZEROS_FILLED = """
from ...ch02_tensor.backend import array_module

if weight_decay != 0:
    g = g + weight_decay * p.data
if momentum != 0:
    state = self.state[p]
    first = "momentum_buffer" not in state
    if first:
        state["momentum_buffer"] = Tensor._from_array(array_module(g).zeros_like(g))
    b = state["momentum_buffer"].data
    if first:
        b[...] = g
    else:
        b *= momentum
        b += (1 - dampening) * g
    g = g + momentum * b if nesterov else b
p.data -= lr * g
"""


ADAM_STATE_AS_A_NEW_DICT = """
if not state:
    self.state[p] = state = {
        "step": 0,
        "exp_avg": zeros_like(p),
        "exp_avg_sq": zeros_like(p),
        **({"max_exp_avg_sq": zeros_like(p)} if amsgrad else {}),
    }
state["step"] = t = state["step"] + 1
g = self._weight_decay(p, g, group)
xp = array_module(g)
m, v = state["exp_avg"].data, state["exp_avg_sq"].data
m[...] = m + (1 - beta1) * (g - m)
v[...] = beta2 * v + (1 - beta2) * xp.square(g)
if amsgrad:
    v = state["max_exp_avg_sq"].data = xp.maximum(state["max_exp_avg_sq"].data, v)
bias1 = 1 - beta1**t
bias2 = 1 - beta2**t
p.data -= (lr / bias1) * m / (xp.sqrt(v / bias2) + eps)
"""

VARIANTS += [
    # was a hole: blamed on 6.7; an SGD row whose group sets its own nesterov
    (
        "SGD's nesterov from the defaults",
        SGD,
        (NESTEROV, 'g = g + momentum * buffer.data if self.defaults["nesterov"] else buffer.data'),
        "6.2",
    ),
    # was a hole: an Adam row whose group sets its own eps
    (
        "Adam's eps from the defaults",
        ADAM,
        (
            ADAM_DENOM,
            '                denom = xp.sqrt(v) / math.sqrt(1 - beta2**t) + self.defaults["eps"]\n',
        ),
        "6.5",
    ),
]

CORRECT += [
    (
        "SGD's buffer made of zeros, then filled with g",
        SGD,
        rewrite(SGD, "6.2", SGD_BUFFER_FROM_ZEROS_FILLED),
        "6.2",
    ),
    (
        "SGD keeps a None buffer without momentum (PyTorch 1.x)",
        SGD,
        edits(
            SGD,
            (
                "### BEGIN SOLUTION 6.2",
                "### BEGIN SOLUTION 6.2\n                state = self.state[p]",
            ),
            (
                "if momentum != 0:\n                    state = self.state[p]",
                "if momentum == 0:\n"
                '                    state["momentum_buffer"] = None\n'
                "                else:",
            ),
            (
                "buffer = Tensor._from_array(g.copy())\n"
                '                        state["momentum_buffer"] = buffer',
                'buffer = state["momentum_buffer"] = Tensor._from_array(g.copy())',
            ),
        ),
        "6.2",
    ),
    (
        "Adam's state as a new dict, √(v/bias2)",
        ADAM,
        rewrite(ADAM, "6.5", ADAM_STATE_AS_A_NEW_DICT),
        "6.5",
    ),
]

LOAD_AFTER_A_DEEPCOPY = """
saved_state = copy.deepcopy(state_dict["state"])
if len(groups) != len(saved_groups):
    raise ValueError("loaded state dict has a different number of parameter groups")
for g, s in zip(groups, saved_groups):
    if len(g["params"]) != len(s["params"]):
        raise ValueError("loaded state dict contains a parameter group of another size")
lookup = {i: p for g, s in zip(groups, saved_groups) for i, p in zip(s["params"], g["params"])}
self.state = defaultdict(dict)
for i, entry in saved_state.items():
    p = lookup[i]
    for name, value in entry.items():
        if isinstance(value, Tensor) and value.data.dtype.kind == "f":
            entry[name] = Tensor._from_array(value.data.astype(p.data.dtype))
    self.state[p] = entry
self.param_groups = [
    dict(copy.deepcopy({k: v for k, v in s.items() if k != "params"}), params=g["params"])
    for g, s in zip(groups, saved_groups)
]
"""

CORRECT += [
    (
        "clip_grad_norm_ with linalg.norm per gradient",
        CLIP,
        (NORMS, "norms = [xp.linalg.norm(g.ravel(), ord=norm_type) for g in grads]"),
        "6.10",
    ),
    (
        "CosineAnnealingLR with numpy's cos",
        SCHED,
        (COS, "cosine = (1 + __import__('numpy').cos(math.pi * self.last_epoch / self.T_max)) / 2"),
        "6.8",
    ),
    (
        "MultiStepLR with searchsorted",
        SCHED,
        (
            "self.gamma ** bisect.bisect_right(self.milestones, self.last_epoch)",
            "self.gamma ** __import__('numpy').searchsorted(self.milestones, self.last_epoch, "
            "side='right')",
        ),
        "6.8",
    ),
    (
        "load_state_dict after a deepcopy",
        OPT,
        rewrite(OPT, "6.7", None, LOAD_AFTER_A_DEEPCOPY),
        "6.7",
    ),
]

VARIANTS += [
    # was a hole: a public resume of float32 state into float64 parameters
    (
        "load_state_dict casts down to float32 only",
        OPT,
        (
            LOAD_VALUE,
            'name: value if name == "step" else Tensor._from_array(\n'
            "                    value.data.astype(p.data.dtype)\n"
            '                    if str(p.data.dtype) == "float32"\n'
            "                    else value.data.copy()\n"
            "                )",
        ),
        "6.7",
    ),
    (
        "RMSprop counts each step twice",
        RMS,
        ('                state["step"] += 1\n', '                state["step"] += 1\n' * 2),
        "6.4",
    ),
]

CORRECT += [
    (
        "AdamW returns a copy of g",
        ADAM,
        (
            "        return g\n        ### END SOLUTION",
            "        return g.copy()\n        ### END SOLUTION",
        ),
        "6.6",
    ),
    (
        "RMSprop's momentum buffer a new Tensor each step",
        RMS,
        (
            RMS_B + "                    p.data -= lr * b\n",
            "                    new = momentum * b + g / r\n"
            '                    state["momentum_buffer"] = zeros_like(p)\n'
            '                    state["momentum_buffer"].data[...] = new\n'
            "                    p.data -= lr * new\n",
        ),
        "6.4",
    ),
]

VARIANTS += [
    # was a hole: blamed on 6.7; the trajectories ask for an int step
    (
        "Adam's step count a float",
        ADAM,
        ('                    state["step"] = 0\n', '                    state["step"] = 0.0\n'),
        "6.5",
    ),
    # was a hole: blamed on 6.7; the trajectories compare the state's entries
    (
        "Adam makes max_exp_avg_sq without amsgrad",
        ADAM,
        (
            "                    if amsgrad:\n"
            '                        state["max_exp_avg_sq"] = zeros_like(p)\n',
            '                    state["max_exp_avg_sq"] = zeros_like(p)\n',
        ),
        "6.5",
    ),
]

# the variants that passed the public checks before (each noted "was a hole" above): the
# hidden checks, rows of the same builders, must catch them too
HOLES = [
    "SGD's learning rate inside the buffer",
    "SGD's state keyed by id(p)",
    "RMSprop makes every state entry",
    "RMSprop never counts its steps",
    "Adam's state keyed by id(p)",
    "Adam makes state for parameters without a gradient",
    "AdamW's decay with the default lr",
    "load_state_dict maps by the order of the state",
    "load_state_dict keeps the state it had",
    "state_dict numbers parameters by the state's order",
    "load_state_dict's step made a float",
    "clip_grad_norm_'s inf-norm of the signed maximum",
    "SGD's buffer stored as an array",
    "state_dict keys the state by str(index)",
    "clip_grad_norm_ raises only for an inf",
    "clip_grad_norm_ leaves the gradients alone when the norm is not finite",
    "SGD's nesterov from the defaults",
    "Adam's eps from the defaults",
    "load_state_dict casts down to float32 only",
    "Adam's step count a float",
    "Adam makes max_exp_avg_sq without amsgrad",
]


# Broken variants whose report does not yet name the mistake in words of its own (issue 29
# works this list down to empty; a variant leaves it with a says row).

SET = VariantSet(
    6,
    "held out",
    VARIANTS,
    CORRECT,
    says=[
        ("SGD's state keyed by id(p)", "key it by the tensor itself"),
        ("Adam's state keyed by id(p)", "key it by the tensor itself"),
        ("Adam makes state for parameters without a gradient", "it gets no state"),
        ("RMSprop makes every state entry", "make only the entries the rule uses"),
        ("RMSprop never counts its steps", "['step'] is 0 (int), expected the int 3"),
        ("SGD's learning rate inside the buffer", "['momentum_buffer']"),
        ("load_state_dict's step made a float", "a Python int"),
        ("load_state_dict keeps the state it had", "has the indices"),
        ("SGD's buffer stored as an array", "as bare arrays"),
        ("state_dict keys the state by str(index)", "int indices"),
        ("clip_grad_norm_ raises only for an inf", "the total norm is nan"),
        ("Adam's step count a float", "(float), expected the int 3"),
        ("add_param_group shares the defaults dict", "is self.defaults itself"),
        ("add_param_group lets the defaults win", "a group's own option wins over the default"),
        ("add_param_group appends the caller's dict unfilled", "fill each option it does not set"),
        ("zero_grad only the first group", "left c.grad (a parameter of group 1) as it was"),
        ("zero_grad makes zeros for parameters without a gradient", "b had no gradient"),
        ("zero_grad ignores set_to_none", "a.grad is None, expected zeros"),
        ("zero_grad sets .data = 0 on the gradient", "wrote into the old gradient tensor"),
        ("zero_grad's zeros from the parameter in float64", "the new zeros are float64"),
        (
            "SGD's nesterov with the old buffer",
            "looks ahead with the buffer before this step's update",
        ),
        (
            "SGD's buffer from zeros (dampened at the first step)",
            "name 'array_module' is not defined",
        ),
        ("SGD decays only with momentum", "applied only where momentum is on"),
        (
            "SGD's buffer m = μm + g ignoring dampening's (1 − τ) as (1 + τ)",
            "the buffer adds (1 + τ)g",
        ),
        ("SGD's weight decay from the gradient", "the weight decay adds λg"),
        ("SGD's nesterov without the gradient", "nesterov steps with μb alone"),
        (
            "SGD's nesterov with the gradient before weight decay",
            "adds the gradient without its weight decay",
        ),
        ("SGD's buffer writes p.grad.data", "changed by a later step"),
        (
            "SGD's buffer stored after rebinding",
            "the momentum buffer is not kept from step to step",
        ),
        ("SGD steps with momentum times the buffer", "the step is μ·b"),
        ("Adagrad steps before adding to the sum", "before this step's g² is added"),
        (
            "Adagrad adds the square before the weight decay",
            "the sum takes g² before the weight decay",
        ),
        ("Adagrad counts steps only with weight decay", "['step'] is 0 (int), expected the int 3"),
        ("Adagrad's decay multiplies", "the lr decay multiplies"),
        ("Adagrad's root of the sum before the new square", "before this step's g² is added"),
        ("Adagrad's eps added to the sum", "ε is added to the sum at every step"),
        ("Adagrad's decay with t + 1", "η/(1 + (t + 1)δ)"),
        ("Adagrad divides by the sum, not its root", "divides by the sum of squares itself"),
        ("RMSprop centered with the previous step's mean", "the mean taken before its update"),
        ("RMSprop's square average not kept", "the average of squares is not kept"),
        ("RMSprop's momentum dampened by (1 − μ)", "the buffer adds (1 − μ)·g/r"),
        ("RMSprop ignores the buffer it keeps", "kept and not used"),
        ("RMSprop's momentum buffer not kept", "the buffer not kept from step to step"),
        ("RMSprop's weight decay after the averages", "added to g after the averages"),
        ("RMSprop's centered mean of squares", "the centered mean averages g², not g"),
        ("RMSprop's eps added under the centered root", "added inside the square root: √(v + ε)"),
        ("Adam's bias correction with t − 1", "the bias correction uses t − 1"),
        ("Adam's corrections with the betas swapped", "the bias corrections are swapped"),
        ("Adam's eps inside the root", "added inside the square root: √(v + ε)"),
        ("Adam's eps added before dividing by √bias2", "ε is added before dividing by √(1 − β₂ᵗ)"),
        ("Adam's lerp with weight beta1", "weighs the new gradient by β₁"),
        ("Adam's m = β₁m + g", "the first moment adds g whole (m = β₁m + g)"),
        ("Adam's second moment with 1 − β₁", "the second moment weighs g² by 1 − β₁"),
        ("Adam's amsgrad maximum before the new v", "taken before v is updated"),
        ("Adam's amsgrad keeps the maximum of the corrected v", "maximum of the bias-corrected v"),
        ("Adam's weight decay after the moments", "computed after the moments"),
        ("Adam's moments not kept", "the moments m and v are not kept"),
        ("Adam counts its steps from 0", "the step count never moves"),
        (
            "Adam's bias correction on the first moment only",
            "only the first moment is bias-corrected",
        ),
        ("AdamW decays and couples", "the decay is done twice"),
        ("AdamW subtracts lr·λ without p", "the decay subtracts lr·λ from p"),
        ("AdamW's factor (1 − lr)·λ", "p is multiplied by (1 − lr)·λ"),
        ("AdamW's decay with the default lr", "reads lr from the optimizer's defaults"),
        ("AdamW's decay scaled by the gradient", "the decay subtracts lr·λ·g"),
        ("AdamW's decay by 1/(1 + lr·λ)", "p is divided by 1 + lr·λ"),
        ("load_state_dict maps by the order of the state", "holds the state saved for parameter 1"),
        (
            "load_state_dict keys the state by id(p)",
            "self.state has keys that are not the parameters",
        ),
        (
            "load_state_dict updates the groups with the saved ones",
            "param_groups no longer hold this optimizer's own parameters",
        ),
        (
            "state_dict numbers parameters by the state's order",
            "['params'][0]: expected 0, received 1",
        ),
        ("state_dict keeps the parameters in the groups", "received '<Tensor>'"),
        (
            "state_dict returns the live groups",
            "state_dict() changed this optimizer's own param_groups",
        ),
        ("state_dict's state a shallow copy", "the dict state_dict() returned changed"),
        (
            "load_state_dict takes the saved tensors themselves",
            "the dict state_dict() returned changed",
        ),
        ("load_state_dict casts to float32", "the state tensors are ['float32']"),
        (
            "load_state_dict's groups lose their params",
            "param_groups no longer hold this optimizer's own parameters",
        ),
        ("StepLR rounds t / step_size", "t / step_size rounded"),
        ("StepLR from step 1", "the lr drops at t = 1 already"),
        ("MultiStepLR γ once at a milestone", "γ applies only at a milestone step itself"),
        ("MultiStepLR counts milestones below t", "the lr drops one step after each milestone"),
        ("ExponentialLR one step ahead", "one step ahead, base·γ^(t + 1)"),
        ("ExponentialLR linear in t", "the lr falls by the same amount each step"),
        ("CosineAnnealingLR over T_max − 1", "the cosine's half period is T_max − 1"),
        ("CosineAnnealingLR ignores eta_min in the scale", "η_min is added to the whole base lr's"),
        ("CosineAnnealingLR stays at eta_min after T_max", "after T_max the lr stays at η_min"),
        ("CosineAnnealingLR without the ½", "the cosine's factor is 1 + cos(πt/T_max)"),
        ("LambdaLR calls λ with t + 1", "the schedule is one step ahead"),
        ("LambdaLR from the current lr", "the lr is the current lr times λ(t)"),
        ("StepLR with the first group's base lr", "every group's lr follows group 0's base lr"),
        ("OneCycleLR without the last phase's fallback", "no phase was taken there"),
        ("OneCycleLR cycles the first group's momentum", "only group 0's momentum is cycled"),
        ("OneCycleLR's lr keys swapped", "each phase runs backwards"),
        ("OneCycleLR's momentum keys swapped", "the momentum runs the wrong way in each phase"),
        ("OneCycleLR always cosine", "the lr follows a cosine where anneal_strategy='linear'"),
        ("OneCycleLR's momentum always linear", "the momentum moves linearly"),
        ("OneCycleLR's fraction 1 − pct", "each phase runs backwards"),
        ("OneCycleLR's fraction over the end step", "divides by the phase's end step"),
        ("OneCycleLR's phase taken with t < end_step, the last never", "no phase was taken there"),
        ("OneCycleLR sets beta1 for SGD too", "KeyError: 'betas'"),
        ("OneCycleLR overwrites beta2", "only β₁ cycles"),
        ("OneCycleLR cycles momentum only for Adam", "momentum is never cycled"),
        ("OneCycleLR cycles momentum regardless", "KeyError: 'max_momentum'"),
        (
            "clip_grad_norm_ clips each tensor by its own norm",
            "each gradient is scaled by its own norm",
        ),
        ("clip_grad_norm_ returns the clipped norm", "that is the norm after clipping"),
        ("clip_grad_norm_ without the 1e-6", "1e-6 is missing"),
        ("clip_grad_norm_ adds 1e-6 after dividing", "1e-6 is added to the quotient"),
        ("clip_grad_norm_ clamps the wrong way", "the coefficient is never below 1"),
        ("clip_grad_norm_'s inf-norm as a sum", "that is the largest sum of |entries|"),
        ("clip_grad_norm_'s inf-norm of the signed maximum", "not the largest |entry|"),
        (
            "clip_grad_norm_'s p-norm of the sum of the norms' squares",
            "the gradients' own norms are combined by a 2-norm",
        ),
        ("clip_grad_norm_'s norm without the root", "each gradient's norm is missing its root"),
        ("clip_grad_norm_ raises ValueError", "raised ValueError, expected RuntimeError"),
        (
            "clip_grad_norm_ returns Tensor(float(total))",
            "the default dtype of a tensor made from a",
        ),
        ("clip_grad_norm_'s total in float64", "the total norm is float64"),
        ("clip_grad_norm_ writes p.grad.data", "a gradient tensor was written into"),
        ("clip_grad_value_ clips only the positives", "only the entries above c are clipped"),
        ("clip_grad_value_ clips to [0, c]", "the entries are clipped to [0, c]"),
        ("clip_grad_value_ writes p.grad.data", "a gradient tensor was written into"),
        ("clip_grad_value_ in float64", "the new gradient is float64"),
        ("clip_grad_value_ scales by c / max|g|", "each gradient is scaled by c / max|g|"),
        ("Adam's step count per group", "the bias correction uses the wrong step count"),
        (
            "clip_grad_norm_ leaves the gradients alone when the norm is not finite",
            "the gradients were left as they were",
        ),
        ("SGD's nesterov from the defaults", "the group's own nesterov is ignored"),
        ("Adam's eps from the defaults", "the group's own eps is ignored"),
        ("load_state_dict casts down to float32 only", "the state tensors are ['float32']"),
        ("RMSprop counts each step twice", "['step'] is 6 (int), expected the int 3"),
        ("Adam makes max_exp_avg_sq without amsgrad", "make only the entries the rule uses"),
    ],
    holes=HOLES,
    least=(100, 30),
    rewrites_cover=True,
    tasks=[f"6.{k}" for k in range(1, 11)],  # 6.11 and 6.12: ch06_exercises.py
)

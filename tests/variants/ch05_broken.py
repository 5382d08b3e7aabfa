"""Chapter 5's broken set: plausible student bugs in registration, Linear, the tree walks,
the containers, state_dict, softmax, cross_entropy, init, dropout, BatchNorm, the DataLoader
and checkpoint, the 5.1 stand-in pasted, and unusual but correct rewrites (judged by
tests/test_variants.py)."""

from __future__ import annotations

import inspect
import textwrap
from functools import partial

from tests import trees
from tests.trees import edits
from tests.variants import VariantSet

PACKAGE = "ch05_nn"
edits = partial(edits, PACKAGE)


def nth_region(file: str, task: str, n: int, body: str) -> tuple[str, str]:
    """The reference's ``file`` with the body of its ``n``-th region of ``task`` (from 1)
    replaced by ``body``, as one edit."""
    return trees.rewrite(PACKAGE, file, task, *[None] * (n - 1), body)


LOAD_COPIES_BEFORE_CHECKING = """
own = self.state_dict(keep_vars=True)
missing = [key for key in own if key not in state_dict]
unexpected = [key for key in state_dict if key not in own]
errors = []
for key, target in own.items():
    if key not in state_dict:
        continue
    value = state_dict[key]
    shape = tuple(np.shape(value.data if isinstance(value, Tensor) else value))
    if shape != target.shape:
        errors.append(f"size mismatch for {key}: {shape} against {target.shape}")
    else:
        target.data[...] = value.data if isinstance(value, Tensor) else value
if strict and missing:
    errors.append(f"Missing key(s) in state_dict: {missing}")
if strict and unexpected:
    errors.append(f"Unexpected key(s) in state_dict: {unexpected}")
if errors:
    raise RuntimeError("\\n".join(errors))
return _IncompatibleKeys(missing, unexpected)
"""

REPLACE_PARAMETERS = """*path, last = key.split(".")
                owner = self
                for part in path:
                    owner = owner._modules[part]
                if last in owner._parameters:
                    owner._parameters[last] = Parameter(np.array(value.data))
                else:
                    target.data[...] = value.data"""

LINEAR_THREE_GRADIENTS_ALWAYS = """
x, weight = ctx.saved_tensors
return grad_output @ weight, grad_output.T @ x, grad_output.sum(dim=0)
"""

LINEAR_BACKWARD_ARRAYS = """
x, weight = ctx.saved_tensors
g = grad_output.data
grads = (g @ weight.data, g.T @ x.data)
if len(ctx.needs_input_grad) == 3:
    grads += (g.sum(axis=0),)
return grads
"""

KAIMING_STD = "std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))"
XAVIER_STD = "std = gain * math.sqrt(2.0 / (fan_in + fan_out))"
XAVIER_UNIFORM = (
    f"{XAVIER_STD}\n    bound = math.sqrt(3.0) * std\n"
    "    return uniform_(tensor, -bound, bound, generator)"
)
KAIMING_UNIFORM = (
    f"{KAIMING_STD}\n    bound = math.sqrt(3.0) * std\n"
    "    return uniform_(tensor, -bound, bound, generator)"
)
DROPOUT_MASK = "keep = rng_of(generator).random(input.shape) >= p"
RUNNING_MEAN = "self.running_mean.data[...] = (1 - m) * self.running_mean.data + m * ("

# (name, file, edit, the task it breaks): see tests/trees.py
VARIANTS = [
    (
        "__setattr__ registers nothing",
        "nn/module.py",
        ("region", "object.__setattr__(self, name, value)"),
        "5.1",
    ),
    (
        "__setattr__ never forgets a name",
        "nn/module.py",
        edits(
            "nn/module.py",
            ("            self._forget(name, keep=params)\n", ""),
            ("            self._forget(name, keep=modules)\n", ""),
            (
                "        elif name in params:  # value is "
                "None: _check_kind refused anything else\n"
                "            params[name] = None\n"
                "        elif name in modules:\n"
                "            modules[name] = None\n",
                "",
            ),
        ),
        "5.1",
    ),
    (
        "__setattr__ keeps a plain attribute too",
        "nn/module.py",
        (
            "            self._forget(name, keep=params)\n            params[name] = value\n",
            "            params[name] = value\n            object.__setattr__(self, name, value)\n",
        ),
        "5.1",
    ),
    (
        "Linear's weight N(0, 1)",
        "nn/linear.py",
        (
            "init.uniform_(self.weight, -bound, bound)",
            "init.normal_(self.weight, 0.0, 1.0)",
        ),
        "5.2",
    ),
    (
        "Linear's k from out_features",
        "nn/linear.py",
        ("bound = 1 / math.sqrt(self.in_features)", "bound = 1 / math.sqrt(self.out_features)"),
        "5.2",
    ),
    (
        "Linear's bias zeros",
        "nn/linear.py",
        ("init.uniform_(self.bias, -bound, bound)", "init.zeros_(self.bias)"),
        "5.2",
    ),
    (
        "LinearFunction's forward with the weight untransposed",
        "nn/linear.py",
        ("out = x.data @ weight.data.T", "out = x.data @ weight.data"),
        "5.2",
    ),
    (
        "LinearFunction's forward ignores the bias",
        "nn/linear.py",
        ("return out if bias is None else out + bias.data", "return out"),
        "5.2",
    ),
    (
        "LinearFunction's weight gradient transposed (xᵀg)",
        "nn/linear.py",
        ("grad_output.T @ x if needs[1]", "x.T @ grad_output if needs[1]"),
        "5.2",
    ),
    (
        "LinearFunction's input gradient g Wᵀ",
        "nn/linear.py",
        ("grad_output @ weight if needs[0]", "grad_output @ weight.T if needs[0]"),
        "5.2",
    ),
    (
        "LinearFunction's bias gradient summed over the outputs",
        "nn/linear.py",
        ("grad_output.sum(dim=0) if needs[2]", "grad_output.sum(dim=1) if needs[2]"),
        "5.2",
    ),
    (
        "LinearFunction's bias gradient the batch mean",
        "nn/linear.py",
        ("grad_output.sum(dim=0) if needs[2]", "grad_output.mean(dim=0) if needs[2]"),
        "5.2",
    ),
    (
        "LinearFunction returns a bias gradient without a bias",
        "nn/linear.py",
        nth_region("nn/linear.py", "5.2", 2, LINEAR_THREE_GRADIENTS_ALWAYS),
        "5.2",
    ),
    (
        "LinearFunction reads needs_input_grad in the wrong order",
        "nn/linear.py",
        edits(
            "nn/linear.py",
            ("grad_output @ weight if needs[0]", "grad_output @ weight if needs[1]"),
            ("grad_output.T @ x if needs[1]", "grad_output.T @ x if needs[0]"),
        ),
        "5.2",
    ),
    (
        "LinearFunction's backward returns arrays",
        "nn/linear.py",
        nth_region("nn/linear.py", "5.2", 2, LINEAR_BACKWARD_ARRAYS),
        "5.2",
    ),
    (
        "Linear drawn from NumPy's global generator",
        "nn/linear.py",
        (
            "init.uniform_(self.weight, -bound, bound)",
            "self.weight.data[...] = np.random.uniform(-bound, bound, self.weight.shape)",
        ),
        "5.2",
    ),
    # cheats with the right moments: the same "random" weights for every seed, a grid
    (
        "Linear's weight from a fixed table (default_rng(0))",
        "nn/linear.py",
        (
            "init.uniform_(self.weight, -bound, bound)",
            "self.weight.data[...] = np.random.default_rng(0).uniform(-bound, bound, "
            "self.weight.shape)",
        ),
        "5.2",
    ),
    (
        "Linear's weight a shuffled linspace",
        "nn/linear.py",
        (
            "init.uniform_(self.weight, -bound, bound)",
            "grid = np.linspace(-bound, bound, self.weight.data.size)\n"
            "        np.random.default_rng(0).shuffle(grid)\n"
            "        self.weight.data[...] = grid.reshape(self.weight.shape)",
        ),
        "5.2",
    ),
    (
        "named_modules without the dotted prefix",
        "nn/module.py",
        ('path = f"{prefix}.{name}" if prefix else name', "path = name"),
        "5.3",
    ),
    (
        "named_modules yields a shared module twice",
        "nn/module.py",
        ("            if self in memo:\n                return\n", ""),
        "5.3",
    ),
    (
        "_named_members does not deduplicate tied weights",
        "nn/module.py",
        ("                    if id(value) in seen:\n                        continue\n", ""),
        "5.3",
    ),
    (
        "eval() reaches the children only",
        "nn/module.py",
        edits(
            "nn/module.py",
            ("child.train(mode)", "child.training = mode"),
        ),
        "5.3",
    ),
    (
        "ModuleList.append stores in a plain list",
        "nn/containers.py",
        edits(
            "nn/containers.py",
            (
                "self.add_module(str(len(self._modules)), module)",
                'if "items" not in self.__dict__:\n'
                '            object.__setattr__(self, "items", [])\n'
                "        self.items.append(module)",
            ),
        ),
        "5.4",
    ),
    (
        "Sequential runs its modules in reverse",
        "nn/containers.py",
        (
            "        for module in self._modules.values():\n            x = module(x)",
            "        for module in reversed(self._modules.values()):\n            x = module(x)",
        ),
        "5.4",
    ),
    (
        "Sequential counts from 1",
        "nn/containers.py",
        ("self.add_module(str(index), module)", "self.add_module(str(index + 1), module)"),
        "5.4",
    ),
    (
        "state_dict names without the dotted prefix",
        "nn/module.py",
        (
            'child.state_dict(destination, prefix + name + ".", keep_vars)',
            "child.state_dict(destination, prefix, keep_vars)",
        ),
        "5.5",
    ),
    (
        "state_dict not detached",
        "nn/module.py",
        (
            "destination[prefix + name] = param if keep_vars else param.detach()",
            "destination[prefix + name] = param",
        ),
        "5.5",
    ),
    (
        "load_state_dict copies before checking",
        "nn/module.py",
        nth_region("nn/module.py", "5.5", 2, LOAD_COPIES_BEFORE_CHECKING),
        "5.5",
    ),
    (
        "load_state_dict does not raise on unexpected keys",
        "nn/module.py",
        ("if strict and unexpected:", "if False:"),
        "5.5",
    ),
    (
        "load_state_dict replaces the Parameter objects",
        "nn/module.py",
        (
            "target.data[...] = value.data if isinstance(value, Tensor) else value",
            REPLACE_PARAMETERS,
        ),
        "5.5",
    ),
    (
        "load_state_dict keeps the source's arrays",
        "nn/module.py",
        (
            "target.data[...] = value.data if isinstance(value, Tensor) else value",
            "target.data = value.data",
        ),
        "5.5",
    ),
    (
        "softmax without the max shift",
        "nn/softmax.py",
        ("e = xp.exp(x.data - x.data.max(axis=dim, keepdims=True))", "e = xp.exp(x.data)"),
        "5.6",
    ),
    (
        "log_softmax without the max shift",
        "nn/softmax.py",
        ("shifted = x.data - x.data.max(axis=dim, keepdims=True)", "shifted = x.data"),
        "5.6",
    ),
    (
        "log_softmax's backward missing the softmax term",
        "nn/softmax.py",
        (
            "return grad_output - y * grad_output.sum(dim=ctx.dim, keepdim=True)",
            "return grad_output",
        ),
        "5.6",
    ),
    (
        "softmax's backward sums over every axis",
        "nn/softmax.py",
        ("(grad_output * y).sum(dim=ctx.dim, keepdim=True)", "(grad_output * y).sum()"),
        "5.6",
    ),
    (
        "cross_entropy's mean counts ignored targets",
        "nn/cross_entropy.py",
        edits(
            "nn/cross_entropy.py",
            ("total = total / count if count else xp.nan", "total = total / len(t)"),
            ("weight = weight / max(ctx.count, 1)", "weight = weight / len(ctx.t)"),
        ),
        "5.7",
    ),
    (
        "cross_entropy keeps the ignored rows' losses",
        "nn/cross_entropy.py",
        ("loss = xp.where(keep, loss, 0)", "loss = loss"),
        "5.7",
    ),
    (
        "label smoothing with the sum over classes",
        "nn/cross_entropy.py",
        ("label_smoothing * log_p.mean(axis=1)", "label_smoothing * log_p.sum(axis=1)"),
        "5.7",
    ),
    (
        "label smoothing's gradient with the one-hot only",
        "nn/cross_entropy.py",
        ("q += ctx.smoothing / classes", "q += 0"),
        "5.7",
    ),
    (
        "cross_entropy without the max shift",
        "nn/cross_entropy.py",
        ("shifted = z.data - z.data.max(axis=1, keepdims=True)", "shifted = z.data"),
        "5.7",
    ),
    (
        "xavier with fan_in only",
        "nn/init.py",
        edits(
            "nn/init.py",
            (
                (
                    "fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)\n"
                    "    std = gain * math.sqrt(2.0 / (fan_in + fan_out))\n"
                    "    bound = math.sqrt(3.0) * std"
                ),
                (
                    "fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)\n"
                    "    std = gain * math.sqrt(1.0 / fan_in)\n"
                    "    bound = math.sqrt(3.0) * std"
                ),
            ),
        ),
        "5.8",
    ),
    (
        "kaiming ignores mode",
        "nn/init.py",
        (
            f"{KAIMING_STD}\n    return normal_(",
            KAIMING_STD.replace("(tensor, mode)", '(tensor, "fan_in")') + "\n    return normal_(",
        ),
        "5.8",
    ),
    (
        "kaiming_uniform_ bounded by the standard deviation",
        "nn/init.py",
        (f"{KAIMING_STD}\n    bound = math.sqrt(3.0) * std", f"{KAIMING_STD}\n    bound = std"),
        "5.8",
    ),
    (
        "xavier_uniform_ ignores the generator (draws from the global one)",
        "nn/init.py",
        (XAVIER_UNIFORM, XAVIER_UNIFORM.replace(", generator)", ")")),
        "5.8",
    ),
    (
        "kaiming_normal_ from a fixed table (default_rng(0))",
        "nn/init.py",
        (
            f"{KAIMING_STD}\n    return normal_(tensor, 0.0, std, generator)",
            f"{KAIMING_STD}\n"
            "    return _fill(tensor, np.random.default_rng(0).normal(0.0, std, tensor.shape))",
        ),
        "5.8",
    ),
    (
        "xavier_normal_ from a new generator made from the given one's seed",
        "nn/init.py",
        (
            f"{XAVIER_STD}\n    return normal_(tensor, 0.0, std, generator)",
            f"{XAVIER_STD}\n"
            "    rng = np.random.default_rng(generator.initial_seed()) if generator else "
            "rng_of(None)\n"
            "    return _fill(tensor, rng.normal(0.0, std, tensor.shape))",
        ),
        "5.8",
    ),
    (
        "kaiming_uniform_ a linspace shuffled by the generator",
        "nn/init.py",
        (
            KAIMING_UNIFORM,
            f"{KAIMING_STD}\n    bound = math.sqrt(3.0) * std\n"
            "    grid = np.linspace(-bound, bound, math.prod(tensor.shape))\n"
            "    return _fill(tensor, rng_of(generator).permutation(grid).reshape(tensor.shape))",
        ),
        "5.8",
    ),
    (
        "xavier_uniform_ draws one row and repeats it",
        "nn/init.py",
        (
            XAVIER_UNIFORM,
            f"{XAVIER_STD}\n    bound = math.sqrt(3.0) * std\n"
            "    return _fill(tensor, rng_of(generator).uniform(-bound, bound, tensor.shape[-1]))",
        ),
        "5.8",
    ),
    (
        "xavier_normal_ with antithetic pairs (h, −h)",
        "nn/init.py",
        (
            f"{XAVIER_STD}\n    return normal_(tensor, 0.0, std, generator)",
            f"{XAVIER_STD}\n"
            "    half = rng_of(generator).normal(0.0, std, math.prod(tensor.shape) // 2)\n"
            "    return _fill(tensor, np.concatenate([half, -half]).reshape(tensor.shape))",
        ),
        "5.8",
    ),
    (
        "kaiming_normal_ fills sorted draws",
        "nn/init.py",
        (
            f"{KAIMING_STD}\n    return normal_(tensor, 0.0, std, generator)",
            f"{KAIMING_STD}\n"
            "    drawn = rng_of(generator).normal(0.0, std, math.prod(tensor.shape))\n"
            "    return _fill(tensor, np.sort(drawn).reshape(tensor.shape))",
        ),
        "5.8",
    ),
    (
        "Dropout still drops in eval",
        "nn/dropout.py",
        ("if not training or p == 0:", "if p == 0:"),
        "5.9",
    ),
    (
        "dropout not rescaled",
        "nn/dropout.py",
        ("keep * (1.0 / (1.0 - p))", "keep * 1.0"),
        "5.9",
    ),
    (
        "dropout keeps with probability p",
        "nn/dropout.py",
        ("rng_of(generator).random(input.shape) >= p", "rng_of(generator).random(input.shape) < p"),
        "5.9",
    ),
    (
        "dropout ignores the generator",
        "nn/dropout.py",
        ("rng_of(generator).random(input.shape)", "rng_of(None).random(input.shape)"),
        "5.9",
    ),
    # masks with the right keep fraction that are not independent draws
    (
        "dropout drops a fixed pattern (element i where frac(i·p) < p)",
        "nn/dropout.py",
        (
            DROPOUT_MASK,
            "keep = ((xp.arange(input.data.size) * p + 1e-9) % 1.0 >= p).reshape(input.shape)",
        ),
        "5.9",
    ),
    (
        "dropout draws one mask row and broadcasts it over the batch",
        "nn/dropout.py",
        (DROPOUT_MASK, "keep = rng_of(generator).random(input.shape[-1:]) >= p"),
        "5.9",
    ),
    (
        "dropout's mask from a fixed table (default_rng(0))",
        "nn/dropout.py",
        (DROPOUT_MASK, "keep = xp.random.default_rng(0).random(input.shape) >= p"),
        "5.9",
    ),
    (
        "dropout's mask from a new generator made from the given one's seed",
        "nn/dropout.py",
        (
            DROPOUT_MASK,
            "rng = xp.random.default_rng(generator.initial_seed()) if generator else "
            "rng_of(None)\n"
            "    keep = rng.random(input.shape) >= p",
        ),
        "5.9",
    ),
    (
        "BatchNorm uses the batch's statistics in eval",
        "nn/normalization.py",
        ("if self.training or not self.track_running_stats:", "if True:"),
        "5.10",
    ),
    (
        "BatchNorm's running_var biased",
        "nn/normalization.py",
        ("unbiased = var.data.reshape(-1) * (n / (n - 1))", "unbiased = var.data.reshape(-1)"),
        "5.10",
    ),
    (
        "BatchNorm's momentum reversed",
        "nn/normalization.py",
        (RUNNING_MEAN, "self.running_mean.data[...] = m * self.running_mean.data + (1 - m) * ("),
        "5.10",
    ),
    (
        "BatchNorm's num_batches_tracked not counted",
        "nn/normalization.py",
        ("self.num_batches_tracked.data[...] += 1", "m = self.momentum"),
        "5.10",
    ),
    (
        "DataLoader always drops the short last batch",
        "utils/data.py",
        (
            "if len(chunk) < self.batch_size and self.drop_last:",
            "if len(chunk) < self.batch_size:",
        ),
        "5.11",
    ),
    (
        "DataLoader ignores drop_last",
        "utils/data.py",
        ("if len(chunk) < self.batch_size and self.drop_last:", "if False:"),
        "5.11",
    ),
    (
        "DataLoader repeats an item per batch",
        "utils/data.py",
        (
            "chunk = order[start : start + self.batch_size]",
            "chunk = order[max(start - 1, 0) : start + self.batch_size]",
        ),
        "5.11",
    ),
    (
        "DataLoader ignores the generator",
        "utils/data.py",
        ("randperm(n, generator=self.generator)", "randperm(n)"),
        "5.11",
    ),
    (
        "DataLoader shuffles once for every epoch",
        "utils/data.py",
        edits(
            "utils/data.py",
            (
                "order = randperm(n, generator=self.generator).tolist()",
                'if "_order" not in self.__dict__:\n'
                "                self._order = randperm(n, "
                "generator=self.generator).tolist()\n"
                "            order = self._order",
            ),
        ),
        "5.11",
    ),
    (
        "checkpoint keeps the activations",
        "utils/checkpoint.py",
        edits(
            "utils/checkpoint.py",
            ("with no_grad():", "out = _single_tensor(fn(*args))"),
            ("    out = fn(*args)", "ctx.out = out  # kept for backward"),
            ("return _single_tensor(out)", "return out"),
        ),
        "5.12",
    ),
    (
        "checkpoint does not replay the random numbers",
        "utils/checkpoint.py",
        ("with _replaying(ctx.rng_state), enable_grad():", "with enable_grad():"),
        "5.12",
    ),
    (
        "Linear makes its weight require grad",
        "nn/linear.py",
        (
            "        return linear(x, self.weight, self.bias)\n",
            "        self.weight.requires_grad_(True)\n"
            "        return linear(x, self.weight, self.bias)\n",
        ),
        "5.2",
    ),
    (
        "BatchNorm's cumulative running_mean off by one batch (momentum None)",
        "nn/normalization.py",
        (
            "                self.running_mean.data[...] = "
            "(1 - m) * self.running_mean.data + m * (\n",
            "                mm = m if self.momentum is not None else "
            "1.0 / (int(self.num_batches_tracked.data) + 1)\n"
            "                self.running_mean.data[...] = "
            "(1 - mm) * self.running_mean.data + mm * (\n",
        ),
        "5.10",
    ),
]

NAMED_MODULES_WITH_A_STACK = """
if memo is None:
    memo = set()
stack = [(prefix, self)]
while stack:
    path, module = stack.pop()
    if remove_duplicate:
        if module in memo:
            continue
        memo.add(module)
    yield path, module
    children = [(n, c) for n, c in module._modules.items() if c is not None]
    for name, child in reversed(children):
        stack.append((f"{path}.{name}" if path else name, child))
"""


CROSS_ENTROPY_AS_Q_DOT_LOG_P = """
xp = array_module(z.data)
rows, classes = z.shape
m = z.data.max(axis=1, keepdims=True)
log_p = z.data - m - xp.log(xp.exp(z.data - m).sum(axis=1, keepdims=True))
keep = target != ignore_index
t = xp.where(keep, target, 0)
q = xp.full((rows, classes), label_smoothing / classes)
xp.put_along_axis(q, t[:, None], 1 - label_smoothing + label_smoothing / classes, axis=1)
loss = -(q * log_p).sum(axis=1) * keep
count = int(keep.sum())
ctx.save_for_backward(z)
ctx.dim, ctx.out = 1, xp.exp(log_p)
ctx.t, ctx.keep, ctx.count = t, keep, count
ctx.smoothing, ctx.reduction = label_smoothing, reduction
if reduction == "none":
    return loss.astype(z.dtype)
if reduction == "sum":
    return xp.asarray(loss.sum(), dtype=z.dtype)
return xp.asarray(loss.sum() / count if count else xp.nan, dtype=z.dtype)
"""

CROSS_ENTROPY_BY_INDEXING_LOG_SOFTMAX = """
from .softmax import LogSoftmax

xp = array_module(z.data)
log_p = LogSoftmax.forward(ctx, z, 1)  # also keeps softmax(z) on ctx for backward
keep = target != ignore_index
t = xp.where(keep, target, 0)
picked = log_p[xp.arange(len(t)), t]
loss = -((1 - label_smoothing) * picked + label_smoothing * log_p.mean(axis=1)) * keep
count = int(keep.sum())
ctx.t, ctx.keep, ctx.count = t, keep, count
ctx.smoothing, ctx.reduction = label_smoothing, reduction
if reduction == "none":
    return loss.astype(z.dtype)
total = loss.sum() if reduction == "sum" else (loss.sum() / count if count else xp.nan)
return xp.asarray(total, dtype=z.dtype)
"""

LOADER_WITH_RNG_PERMUTATION = """
from ..generator import rng_of

n = len(self.dataset)
order = rng_of(self.generator).permutation(n).tolist() if self.shuffle else list(range(n))
start = 0
while start < n and (not self.drop_last or start + self.batch_size <= n):
    yield self._fetch(order[start : start + self.batch_size])
    start += self.batch_size
"""


LINEAR_EVERY_GRADIENT = """
x, weight = ctx.saved_tensors
grads = (grad_output @ weight, grad_output.T @ x)
if len(ctx.needs_input_grad) == 3:
    grads += (grad_output.sum(dim=0),)
return grads
"""

CORRECT = [
    (
        "named_modules with an explicit stack",
        "nn/module.py",
        ("region", NAMED_MODULES_WITH_A_STACK),
        "5.3",
    ),
    (
        "train through self.modules()",
        "nn/module.py",
        (
            "        self.training = mode\n        for child in self.children():\n"
            "            child.train(mode)\n        return self\n",
            "        for module in self.modules():\n            module.training = mode\n"
            "        return self\n",
        ),
        "5.3",
    ),
    (
        "softmax as exp(log_softmax)",
        "nn/softmax.py",
        edits(
            "nn/softmax.py",
            (
                "e = xp.exp(x.data - x.data.max(axis=dim, keepdims=True))",
                "shifted = x.data - x.data.max(axis=dim, keepdims=True)",
            ),
            (
                "e / e.sum(axis=dim, keepdims=True)",
                "xp.exp(shifted - xp.log(xp.exp(shifted).sum(axis=dim, keepdims=True)))",
            ),
        ),
        "5.6",
    ),
    (
        "cross_entropy as -(q · log_softmax)",
        "nn/cross_entropy.py",
        ("region", CROSS_ENTROPY_AS_Q_DOT_LOG_P),
        "5.7",
    ),
    (
        "cross_entropy by indexing LogSoftmax.forward's rows",
        "nn/cross_entropy.py",
        ("region", CROSS_ENTROPY_BY_INDEXING_LOG_SOFTMAX),
        "5.7",
    ),
    (
        "DataLoader with rng_of(generator).permutation and a while loop",
        "utils/data.py",
        ("region", LOADER_WITH_RNG_PERMUTATION),
        "5.11",
    ),
    (
        "dropout mask as rng.random(shape) < 1 - p",
        "nn/dropout.py",
        (
            "rng_of(generator).random(input.shape) >= p",
            "rng_of(generator).random(input.shape) < 1 - p",
        ),
        "5.9",
    ),
    (
        "BatchNorm's variance as mean(x²) − mean(x)²",
        "nn/normalization.py",
        (
            "            var = ((x - mean) ** 2).mean(dim=axes, keepdim=True)\n            if self",
            "            var = (x * x).mean(dim=axes, keepdim=True) - mean * mean\n"
            "            if self",
        ),
        "5.10",
    ),
    (
        "Linear initialised as PyTorch writes it (kaiming_uniform_, a=√5)",
        "nn/linear.py",
        edits(
            "nn/linear.py",
            (
                "bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0.0\n"
                "        init.uniform_(self.weight, -bound, bound)",
                "init.kaiming_uniform_(self.weight, a=math.sqrt(5))",
            ),
            (
                "if self.bias is not None:",
                "if self.bias is not None:\n"
                "            fan_in = self.weight.shape[1]\n"
                "            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0.0",
            ),
        ),
        "5.2",
    ),
    (
        "LinearFunction's backward ignores needs_input_grad",
        "nn/linear.py",
        nth_region("nn/linear.py", "5.2", 2, LINEAR_EVERY_GRADIENT),
        "5.2",
    ),
    (
        "LinearFunction's forward with Tensor operations",
        "nn/linear.py",
        edits(
            "nn/linear.py",
            (".data @ weight.data", " @ weight"),
            (".data", ""),
        ),
        "5.2",
    ),
    (
        "LinearFunction's forward adds the bias Tensor to the array",
        "nn/linear.py",
        (
            "return out if bias is None else out + bias.data",
            "return out if bias is None else out + bias",
        ),
        "5.2",
    ),
    (
        "LinearFunction leaves the bias gradient to the engine's broadcast sum",
        "nn/linear.py",
        ("grad_output.sum(dim=0) if needs[2]", "grad_output if needs[2]"),
        "5.2",
    ),
    (
        "kaiming_normal_ from standard_normal · std",
        "nn/init.py",
        (
            f"{KAIMING_STD}\n    return normal_(tensor, 0.0, std, generator)",
            "from ..generator import rng_of\n\n"
            f"    {KAIMING_STD}\n"
            "    tensor.data[...] = rng_of(generator).standard_normal(tensor.shape) * std\n"
            "    return tensor",
        ),
        "5.8",
    ),
    (
        "Sequential.forward with functools.reduce",
        "nn/containers.py",
        (
            "        for module in self._modules.values():\n            x = module(x)\n"
            "        return x\n",
            "        import functools\n\n"
            "        return functools.reduce(lambda h, m: m(h), self._modules.values(), x)\n",
        ),
        "5.4",
    ),
]


def pasted_stand_in() -> str:
    """The 5.1 stand-in (it ships in the release) as a student could paste it into
    ``__setattr__``, with the classes it is handed named as the reference names them."""
    from autograder.checks.ch05_nn import standins

    source = textwrap.dedent(inspect.getsource(standins._setattr))
    start = source.rindex("\n", 0, source.index("tables = self.__dict__")) + 1
    body = textwrap.dedent(source[start : source.index("    return [(module")])
    body = body.replace("parameter)", "Parameter)")
    return body.replace("isinstance(value, module)", "isinstance(value, Module)")


VARIANTS.append(
    ("the 5.1 stand-in pasted into its task", "nn/module.py", ("region", pasted_stand_in()), "5.1")
)


SET = VariantSet(
    5,
    "broken",
    VARIANTS,
    CORRECT,
    says=[
        ("named_modules without the dotted prefix", "prefix each child's names"),
        ("state_dict names without the dotted prefix", "prefix each child's keys"),
        ("softmax without the max shift", "subtract the max first"),
        ("log_softmax's backward missing the softmax term", "the softmax term is missing"),
        ("cross_entropy's mean counts ignored targets", "the mean counts ignored targets"),
        ("eval() reaches the children only", "left blocks.0 in training mode"),
        ("Dropout still drops in eval", "still drops in eval()"),
        ("dropout not rescaled", "not rescaled by 1/(1-p)"),
        ("BatchNorm uses the batch's statistics in eval", "the batch's statistics in eval()"),
        ("BatchNorm's running_var biased", "biased variance"),
        ("BatchNorm's momentum reversed", "momentum reversed"),
        ("DataLoader repeats an item per batch", "appeared twice"),
        ("DataLoader always drops the short last batch", "never appeared"),
        ("DataLoader ignores drop_last", "still yielded the short last batch"),
        ("DataLoader ignores the generator", "randperm(n, generator=self.generator)"),
        ("checkpoint keeps the activations", "checkpoint kept the activations"),
        ("ModuleList.append stores in a plain list", "are not registered"),
        ("named_modules yields a shared module twice", "yielded one object twice"),
        ("_named_members does not deduplicate tied weights", "yielded one object twice"),
        ("load_state_dict copies before checking", "before raising"),
        ("load_state_dict replaces the Parameter objects", "replaced the Parameter"),
        ("load_state_dict keeps the source's arrays", "copy the values in"),
        ("load_state_dict does not raise on unexpected keys", "raised nothing"),
        ("Linear's weight N(0, 1)", "looks N(0, 1)"),
        ("LinearFunction's weight gradient transposed (xᵀg)", "gᵀx, not xᵀg"),
        ("LinearFunction's input gradient g Wᵀ", "∂L/∂x = g W: (N, out)(out, in)"),
        ("LinearFunction's bias gradient summed over the outputs", "sums over the batch (axis 0)"),
        ("LinearFunction's bias gradient the batch mean", "Σₙ g, not the mean"),
        ("LinearFunction returns a bias gradient without a bias", "return 2 gradients"),
        ("LinearFunction reads needs_input_grad in the wrong order", "ctx.needs_input_grad says"),
        ("LinearFunction's backward returns arrays", "must return Tensors"),
        ("xavier with fan_in only", "it matches std = gain·√(1/fan_in)"),
        ("kaiming ignores mode", "it matches the other fan"),
        ("kaiming_uniform_ bounded by the standard deviation", "the bound equal to the std"),
        (
            "Linear's weight from a fixed table (default_rng(0))",
            "two different seeds gave the same",
        ),
        ("Linear's weight a shuffled linspace", "Linear's weight is a grid, not random draws"),
        (
            "xavier_uniform_ ignores the generator (draws from the global one)",
            "ignores generator=",
        ),
        (
            "kaiming_normal_ from a fixed table (default_rng(0))",
            "two different seeds must give different draws",
        ),
        (
            "xavier_normal_ from a new generator made from the given one's seed",
            "called twice with one generator gave the same values",
        ),
        ("kaiming_uniform_ a linspace shuffled by the generator", "is a grid, not random draws"),
        ("xavier_uniform_ draws one row and repeats it", "repeats its values"),
        ("kaiming_normal_ fills sorted draws", "elements next to each other have correlation"),
        ("xavier_normal_ with antithetic pairs (h, −h)", "holds values and their negatives"),
        (
            "dropout drops a fixed pattern (element i where frac(i·p) < p)",
            "the kept elements are not independent: elements",
        ),
        (
            "dropout draws one mask row and broadcasts it over the batch",
            "elements one row (200 elements) apart have correlation",
        ),
        (
            "dropout's mask from a fixed table (default_rng(0))",
            "the same mask on every call, whatever the generator",
        ),
        (
            "dropout's mask from a new generator made from the given one's seed",
            "the mask is the same on every call with one generator",
        ),
        ("dropout ignores the generator", "ignores generator="),
        ("__setattr__ keeps a plain attribute too", "__dict__"),
        ("Linear makes its weight require grad", "weight does not require grad, yet"),
        (
            "BatchNorm's cumulative running_mean off by one batch (momentum None)",
            "running_mean after batch",
        ),
        ("__setattr__ registers nothing", "(it went to a plain attribute)"),
        ("__setattr__ never forgets a name", "'m' is still in _modules after"),
        ("Linear's k from out_features", "in_features=256, not out_features"),
        ("Linear's bias zeros", "Linear's bias is zeros"),
        (
            "LinearFunction's forward with the weight untransposed",
            "multiplied x by it as stored, not by its transpose",
        ),
        ("LinearFunction's forward ignores the bias", "the bias is not added"),
        (
            "Linear drawn from NumPy's global generator",
            "two Linears made after the same manual_seed(s) differ",
        ),
        ("Sequential runs its modules in reverse", "ran its modules in the order [2, 1, 0]"),
        (
            "Sequential counts from 1",
            "children are named ['1', '2', '3'], expected ['0', '1', '2']",
        ),
        ("state_dict not detached", "state_dict()['fc.weight'] requires grad"),
        ("log_softmax without the max shift", "exp overflows"),
        ("softmax's backward sums over every axis", "summed over the whole tensor, not along dim"),
        ("cross_entropy keeps the ignored rows' losses", "the ignored rows' losses were added"),
        (
            "label smoothing with the sum over classes",
            "the smoothing term sums −log p over the classes",
        ),
        (
            "label smoothing's gradient with the one-hot only",
            "q lacks the ε/C that smoothing gives every class",
        ),
        ("cross_entropy without the max shift", "without the max-shifted log-sum-exp"),
        ("dropout keeps with probability p", "with p = 0.3: expected 1 − p = 0.7"),
        (
            "BatchNorm's num_batches_tracked not counted",
            "num_batches_tracked was [0, 0], expected [1, 2]",
        ),
        ("DataLoader shuffles once for every epoch", "every epoch has the same order"),
        (
            "checkpoint does not replay the random numbers",
            "the recomputation must draw the same random numbers",
        ),
        ("the 5.1 stand-in pasted into its task", "'m' is still in _modules after"),
    ],
    blocks=[("__setattr__ registers nothing", "5.5")],
    least=(30, 8),
    tasks=[f"5.{k}" for k in range(1, 13)],  # 5.13: ch05_exercises.py
)

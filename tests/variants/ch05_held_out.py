"""Chapter 5's held-out set: plausible student code written without looking at the checks'
cases (tests/variants/ch05_broken.py holds the first set). Each broken variant must fail its
own task's public checks and no other task (a task whose check cannot avoid the broken code
may be "blocked by" it); each unusual but correct rewrite must score every point, on the
public and the hidden checks together. Some variants passed the checks before: each is
noted with the check that now catches it (``# was a hole:``), and ``HOLES`` names them
(judged by tests/test_variants.py)."""

from __future__ import annotations

from functools import partial

from tests import trees
from tests.variants import VariantSet
from tests.variants.ch05_broken import edits, nth_region

PACKAGE = "ch05_nn"


rewrite = partial(trees.rewrite, "ch05_nn")


# -- 5.1: Module.__setattr__ ------------------------------------------------------------------

SETATTR_BUFFER_FIRST = """
params, buffers, modules = self._parameters, self._buffers, self._modules
if name in buffers:
    if value is not None and not isinstance(value, Tensor):
        raise TypeError(f"cannot assign {type(value).__name__} as buffer {name!r}")
    buffers[name] = value
elif isinstance(value, Parameter):
    self._forget(name, keep=params)
    params[name] = value
elif isinstance(value, Module):
    self._forget(name, keep=modules)
    modules[name] = value
elif name in params or name in modules:
    if value is not None:
        raise TypeError(f"cannot assign {type(value).__name__} to {name!r}")
    (params if name in params else modules)[name] = None
else:
    object.__setattr__(self, name, value)
"""

SETATTR_MOVES_TO_THE_END = """
params, buffers, modules = self._parameters, self._buffers, self._modules
if isinstance(value, (Parameter, Module)):
    for table in (params, buffers, modules):
        table.pop(name, None)
    self.__dict__.pop(name, None)
    (params if isinstance(value, Parameter) else modules)[name] = value
elif name in params or name in modules:
    if value is not None:
        raise TypeError(f"cannot assign {type(value).__name__} to {name!r}")
    (params if name in params else modules)[name] = None
elif name in buffers:
    if value is not None and not isinstance(value, Tensor):
        raise TypeError(f"cannot assign {type(value).__name__} as buffer {name!r}")
    buffers[name] = value
else:
    object.__setattr__(self, name, value)
"""

SETATTR_BY_LOOPS = """
for table, kind in ((self._parameters, Parameter), (self._modules, Module)):
    if isinstance(value, kind):
        self._forget(name, keep=table)
        table[name] = value
        return
for table, what in ((self._parameters, "parameter"), (self._modules, "child module")):
    if name in table:
        if value is not None:
            raise TypeError(f"cannot assign {type(value).__name__} as {what} {name!r}")
        table[name] = None
        return
if name in self._buffers:
    if value is not None and not isinstance(value, Tensor):
        raise TypeError(f"cannot assign {type(value).__name__} as buffer {name!r}")
    self._buffers[name] = value
    return
object.__setattr__(self, name, value)
"""

SETATTR_THROUGH_REGISTER = """
if isinstance(value, Parameter):
    self._forget(name, keep=self._parameters)  # PyTorch's remove_from(...) first
    self.register_parameter(name, value)
elif isinstance(value, Module):
    self._forget(name, keep=self._modules)
    self.add_module(name, value)
elif name in self._parameters:
    if value is not None:
        raise TypeError(f"cannot assign {type(value).__name__} as parameter {name!r}")
    self.register_parameter(name, None)
elif name in self._modules:
    if value is not None:
        raise TypeError(f"cannot assign {type(value).__name__} as child module {name!r}")
    self.add_module(name, None)
elif name in self._buffers:
    self.register_buffer(name, value, persistent=name not in self._non_persistent)
else:
    object.__setattr__(self, name, value)
"""

# -- 5.2: Linear ------------------------------------------------------------------------------

LINEAR_ON_ARRAYS = """
x, weight = ctx.saved_tensors
g = grad_output.data
grads = (Tensor(g @ weight.data), Tensor(g.T @ x.data))
if len(ctx.needs_input_grad) == 3:
    grads += (Tensor(g.sum(axis=0)),)
return grads
"""


LINEAR_UNPACKS_NEEDS = """
x, weight = ctx.saved_tensors
need_x, need_w, *need_b = ctx.needs_input_grad
grad_x = grad_weight = None
if need_x:
    grad_x = grad_output @ weight
if need_w:
    grad_weight = grad_output.T @ x
if not need_b:
    return grad_x, grad_weight
return grad_x, grad_weight, grad_output.sum(dim=0) if need_b[0] else None
"""

LINEAR_BIAS_ON_CTX = """
ctx.save_for_backward(x, weight)
ctx.has_bias = bias is not None
out = x.data @ weight.data.T
if ctx.has_bias:
    out += bias.data
return out
"""

LINEAR_BIAS_FROM_CTX = """
x, weight = ctx.saved_tensors
grad_x = grad_output @ weight
grad_weight = grad_output.T @ x
if ctx.has_bias:
    return grad_x, grad_weight, grad_output.sum(dim=0)
return grad_x, grad_weight
"""

LINEAR_FROM_THE_GLOBAL_GENERATOR = """
from ..generator import rng_of

bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0.0
for p in (self.weight, self.bias):
    if p is not None:
        p.data[...] = rng_of(None).uniform(-bound, bound, p.shape)
"""

# -- 5.3: the tree ----------------------------------------------------------------------------

NAMED_MODULES_BREADTH_FIRST = """
from collections import deque

memo = set() if memo is None else memo
queue = deque([(prefix, self)])
while queue:
    path, module = queue.popleft()
    if remove_duplicate:
        if module in memo:
            continue
        memo.add(module)
    yield path, module
    for name, child in module._modules.items():
        if child is not None:
            queue.append((f"{path}.{name}" if path else name, child))
"""

NAMED_MODULES_MEMO_LIST = """
if memo is None:
    memo = []
if remove_duplicate:
    if any(seen is self for seen in memo):
        return
    memo.append(self)
yield prefix, self
for name, child in self._modules.items():
    if child is not None:
        yield from child.named_modules(memo, prefix + ("." if prefix else "") + name,
                                       remove_duplicate)
"""


MEMBERS_A_SET_OF_TENSORS = """
modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [
    (prefix, self)
]
seen = set()
found = []
for path, module in modules:
    for name, value in vars(module)[table].items():
        if value is None or (remove_duplicate and value in seen):
            continue
        seen.add(value)
        found.append((".".join(p for p in (path, name) if p), value))
yield from found
"""

TRAIN_THROUGH_APPLY = """
self.apply(lambda module: object.__setattr__(module, "training", mode))
return self
"""

# -- 5.4: containers --------------------------------------------------------------------------

# -- 5.5: state_dict --------------------------------------------------------------------------

STATE_DICT_FROM_NAMED_MEMBERS = """
if destination is None:
    destination = OrderedDict()
for name, value in [*self.named_parameters(prefix[:-1]), *self.named_buffers(prefix[:-1])]:
    destination[name] = value if keep_vars else value.detach()
return destination
"""

STATE_DICT_COMPREHENSION = """
own = [(n, p) for n, p in self._parameters.items() if p is not None]
own += [
    (n, b) for n, b in self._buffers.items() if b is not None and n not in self._non_persistent
]
destination = OrderedDict() if destination is None else destination
destination.update({prefix + n: (t if keep_vars else t.detach()) for n, t in own})
for name, child in self._modules.items():
    if child is not None:
        child.state_dict(destination, f"{prefix}{name}.", keep_vars)
return destination
"""

STATE_DICT_THROUGH_A_HELPER = """
if destination is None:
    destination = OrderedDict()
self._save_to_state_dict(destination, prefix, keep_vars)
for name, child in self._modules.items():
    if child is not None:
        child.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
return destination
"""

SAVE_TO_STATE_DICT = '''
    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        """This module's own parameters and persistent buffers (PyTorch's helper)."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent:
                destination[prefix + name] = buf if keep_vars else buf.detach()

    def load_state_dict('''

LOAD_FIRST_ERROR_ONLY = """
own = self.state_dict(keep_vars=True)
missing = [key for key in own if key not in state_dict]
unexpected = [key for key in state_dict if key not in own]
if strict and missing:
    raise RuntimeError(f"Missing key(s) in state_dict: {missing[0]}")
if strict and unexpected:
    raise RuntimeError(f"Unexpected key(s) in state_dict: {unexpected[0]}")
for key, target in own.items():
    if key in state_dict and tuple(state_dict[key].shape) != target.shape:
        raise RuntimeError(f"size mismatch for {key}")
for key, target in own.items():
    if key in state_dict:
        target.data[...] = state_dict[key].data
return _IncompatibleKeys(missing, unexpected)
"""

LOAD_CHECKS_SHAPES_WHILE_COPYING = """
own = self.state_dict(keep_vars=True)
missing = [key for key in own if key not in state_dict]
unexpected = [key for key in state_dict if key not in own]
problems = []
if strict and missing:
    problems.append(f"Missing key(s) in state_dict: {missing}")
if strict and unexpected:
    problems.append(f"Unexpected key(s) in state_dict: {unexpected}")
if problems:
    raise RuntimeError("; ".join(problems))
for key, target in own.items():
    if key not in state_dict:
        continue
    value = state_dict[key]
    if tuple(value.shape) != target.shape:
        raise RuntimeError(f"size mismatch for {key}: {value.shape} against {target.shape}")
    target.data[...] = value.data
return _IncompatibleKeys(missing, unexpected)
"""

LOAD_INTO_THE_DETACHED_STATE_DICT = """
own = self.state_dict()  # detached: the same arrays as the parameters and buffers
missing = [key for key in own if key not in state_dict]
unexpected = [key for key in state_dict if key not in own]
wrong = [
    f"size mismatch for {key}: {tuple(state_dict[key].shape)} against {own[key].shape}"
    for key in own
    if key in state_dict and tuple(state_dict[key].shape) != own[key].shape
]
errors = wrong + [f"Missing key(s): {', '.join(missing)}"] * bool(strict and missing)
errors += [f"Unexpected key(s): {', '.join(unexpected)}"] * bool(strict and unexpected)
if errors:
    raise RuntimeError("Error(s) in loading state_dict:\\n" + "\\n".join(errors))
for key in own:
    if key in state_dict:
        np.copyto(own[key].data, state_dict[key].data)
return _IncompatibleKeys(missing, unexpected)
"""

LOAD_BY_WALKING_THE_KEYS = """
own = self.state_dict(keep_vars=True)
missing = [key for key in own if key not in state_dict]
unexpected = [key for key in state_dict if key not in own]
errors = [f"Missing key(s) in state_dict: {missing}"] if strict and missing else []
if strict and unexpected:
    errors.append(f"Unexpected key(s) in state_dict: {unexpected}")
for key in own:
    if key in state_dict and tuple(state_dict[key].shape) != own[key].shape:
        errors.append(f"size mismatch for {key}")
if errors:
    raise RuntimeError("\\n".join(errors))
for key in own:
    if key not in state_dict:
        continue
    *path, name = key.split(".")
    module = self
    for part in path:
        module = module._modules[part]
    table = module._parameters if name in module._parameters else module._buffers
    table[name].data[...] = state_dict[key].data
return _IncompatibleKeys(missing, unexpected)
"""

# -- 5.6: softmax -----------------------------------------------------------------------------

LOG_SOFTMAX_WITH_A_LOGSUMEXP_HELPER = """
def logsumexp(a, axis):
    m = a.max(axis=axis, keepdims=True)
    return m + array_module(a).log(array_module(a).exp(a - m).sum(axis=axis, keepdims=True))

out = x.data - logsumexp(x.data, dim)
ctx.save_for_backward(x)
ctx.dim, ctx.out = dim, array_module(x.data).exp(out)
return out
"""


# -- 5.7: cross_entropy -----------------------------------------------------------------------

CE_ONE_HOT = """
xp = array_module(z.data)
rows, classes = z.shape
shifted = z.data - z.data.max(axis=1, keepdims=True)
log_p = shifted - xp.log(xp.exp(shifted).sum(axis=1, keepdims=True))
keep = target != ignore_index
t = xp.where(keep, target, 0)
onehot = xp.eye(classes, dtype=z.dtype)[t]
q = (1 - label_smoothing) * onehot + label_smoothing / classes
loss = -(q * log_p).sum(axis=1) * keep
ctx.save_for_backward(z)
ctx.dim, ctx.out = 1, xp.exp(log_p)
ctx.t, ctx.keep, ctx.count = t, keep, int(keep.sum())
ctx.smoothing, ctx.reduction = label_smoothing, reduction
if reduction == "none":
    return loss.astype(z.dtype)
total = loss.sum() if reduction == "sum" else loss.sum() / keep.sum()
return xp.asarray(total, dtype=z.dtype)
"""

CE_ONE_HOT_BACKWARD = """
p = _softmax_of(ctx)
xp = array_module(ctx.out)
rows, classes = ctx.out.shape
q = (1 - ctx.smoothing) * xp.eye(classes, dtype=ctx.out.dtype)[ctx.t] + ctx.smoothing / classes
scale = ctx.keep[:, None] / (max(ctx.count, 1) if ctx.reduction == "mean" else 1)
g = grad_output.reshape(rows, 1) if ctx.reduction == "none" else grad_output
return (p - Tensor._from_array(q)) * Tensor._from_array(scale.astype(ctx.out.dtype)) * g
"""

# -- 5.8: init --------------------------------------------------------------------------------

KAIMING_STD = "std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))"

# -- 5.9: dropout -----------------------------------------------------------------------------

# -- 5.10: BatchNorm --------------------------------------------------------------------------

BN_UPDATES_IN_EVAL = """
if self.training or not self.track_running_stats:
    mean = x.mean(dim=axes, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=axes, keepdim=True)
else:
    mean = Tensor(self.running_mean.data.copy().reshape(shape))
    var = Tensor(self.running_var.data.copy().reshape(shape))
if self.track_running_stats:
    self.num_batches_tracked.data[...] += 1
    m = self.momentum if self.momentum is not None else 1.0 / int(self.num_batches_tracked.data)
    self.running_mean.data[...] = (1 - m) * self.running_mean.data + m * mean.data.reshape(-1)
    self.running_var.data[...] = (1 - m) * self.running_var.data + m * (
        var.data.reshape(-1) * n / (n - 1)
    )
y = (x - mean) / (var + self.eps).sqrt()
if self.affine:
    y = y * self.weight.reshape(*shape) + self.bias.reshape(*shape)
return y
"""


BN_AS_A_FUNCTION = """
from ...ch02_tensor.function import Function


class _Normalise(Function):
    # xhat = (x - mean) / sqrt(var + eps) with the batch's mean and biased var, and its
    # backward: (g - mean(g) - xhat * mean(g * xhat)) / sqrt(var + eps)
    @staticmethod
    def forward(ctx, x, eps, axes):
        mean = x.data.mean(axis=axes, keepdims=True)
        var = x.data.var(axis=axes, keepdims=True)
        ctx.std = np.sqrt(var + eps)
        ctx.xhat = (x.data - mean) / ctx.std
        ctx.axes = axes
        ctx.stats = mean.reshape(-1), var.reshape(-1)
        return ctx.xhat

    @staticmethod
    def backward(ctx, g):
        gd, xhat, axes = g.data, ctx.xhat, ctx.axes
        dx = gd - gd.mean(axis=axes, keepdims=True)
        dx = dx - xhat * (gd * xhat).mean(axis=axes, keepdims=True)
        return Tensor._from_array(dx / ctx.std)


if self.training or not self.track_running_stats:
    ctx_out = _Normalise.apply(x, self.eps, axes)
    y = ctx_out
    if self.training and self.track_running_stats:
        mean = x.data.mean(axis=axes)
        var = x.data.var(axis=axes)
        self.num_batches_tracked.data[...] += 1
        m = self.momentum or 1.0 / int(self.num_batches_tracked.data)
        self.running_mean.data[...] = (1 - m) * self.running_mean.data + m * mean
        self.running_var.data[...] = (1 - m) * self.running_var.data + m * var * n / (n - 1)
else:
    mean = Tensor(self.running_mean.data.reshape(shape))
    var = Tensor(self.running_var.data.reshape(shape))
    y = (x - mean) / (var + self.eps).sqrt()
if self.affine:
    y = y * self.weight.reshape(*shape) + self.bias.reshape(*shape)
return y
"""

# -- 5.11: DataLoader -------------------------------------------------------------------------

LOADER_SHUFFLES_ITS_LIST = """
from ..generator import rng_of

n = len(self.dataset)
if "_order" not in self.__dict__:
    self._order = list(range(n))
if self.shuffle:
    rng_of(self.generator).shuffle(self._order)
for start in range(0, n, self.batch_size):
    chunk = self._order[start : start + self.batch_size]
    if len(chunk) < self.batch_size and self.drop_last:
        return
    yield self._fetch(chunk)
"""


LOADER_DROP_LAST_OFF_BY_ONE = """
n = len(self.dataset)
order = randperm(n, generator=self.generator).tolist() if self.shuffle else list(range(n))
stop = n - self.batch_size if self.drop_last else n
for start in range(0, stop, self.batch_size):
    yield self._fetch(order[start : start + self.batch_size])
"""


LOADER_ISLICE = """
import itertools

n = len(self.dataset)
order = randperm(n, generator=self.generator).tolist() if self.shuffle else range(n)
indices = iter(order)
while chunk := list(itertools.islice(indices, self.batch_size)):
    if self.drop_last and len(chunk) < self.batch_size:
        break
    yield self._fetch(chunk)
"""

LOADER_LIST_OF_BATCHES = """
n = len(self.dataset)
order = randperm(n, generator=self.generator).tolist() if self.shuffle else list(range(n))
full, rest = divmod(n, self.batch_size)
chunks = [order[i * self.batch_size : (i + 1) * self.batch_size] for i in range(full)]
if rest and not self.drop_last:
    chunks.append(order[full * self.batch_size :])
return iter([self._fetch(chunk) for chunk in chunks])
"""

# -- 5.12: checkpoint -------------------------------------------------------------------------

CHECKPOINT_SAVED_TENSORS = """
ctx.fn, ctx.rng_state = fn, rng_state
ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
ctx.others = [None if isinstance(a, Tensor) else a for a in args]
with no_grad():
    result = fn(*args)
return _single_tensor(result).data
"""

CHECKPOINT_SAVED_TENSORS_BACKWARD = """
saved = iter(ctx.saved_tensors)
inputs = []
for other in ctx.others:
    if other is None:
        x = next(saved)
        inputs.append(x.detach().requires_grad_(x.requires_grad))
    else:
        inputs.append(other)
with _replaying(ctx.rng_state), enable_grad():
    out = ctx.fn(*inputs)
if isinstance(out, Tensor) and out.requires_grad:
    out.backward(grad_output)
return tuple(x.grad if x.requires_grad else None for x in inputs if isinstance(x, Tensor))
"""

# (name, file, edit, the task it breaks): see tests/trees.py
VARIANTS = [
    # 5.1
    (
        "__setattr__ registers any Tensor as a parameter",
        "nn/module.py",
        ("        if isinstance(value, Parameter):\n", "        if isinstance(value, Tensor):\n"),
        "5.1",
    ),
    (
        "a Parameter assigned over a child stays in _modules",
        "nn/module.py",
        (
            "            self._forget(name, keep=params)\n",
            "            self.__dict__.pop(name, None)\n",
        ),
        "5.1",
    ),
    (
        "a Module assigned over a parameter stays in _parameters",
        "nn/module.py",
        (
            "            self._forget(name, keep=modules)\n",
            "            self.__dict__.pop(name, None)\n",
        ),
        "5.1",
    ),
    (
        # was a hole: no public script set a plain attribute and then a Module by its name
        "a Module assigned over a plain attribute leaves it in __dict__",
        "nn/module.py",
        edits(
            "nn/module.py",
            (
                "self._forget(name, keep=modules)",
                "params.pop(name, None)\n            buffers.pop(name, None)",
            ),
            (
                "elif name in params:  # value is None: _check_kind refused anything else",
                (
                    "elif name in params:  # value is None: _check_kind refused anything else\n"
                    "            if value is not None:\n"
                    '                raise TypeError(f"cannot assign'
                    ' {type(value).__name__} as parameter {name!r}")'
                ),
            ),
            (
                "elif name in modules:",
                (
                    "elif name in modules:\n"
                    "            if value is not None:\n"
                    '                raise TypeError(f"cannot assign'
                    ' {type(value).__name__} as child module {name!r}")'
                ),
            ),
            (
                "elif name in buffers:",
                (
                    "elif name in buffers:\n"
                    "            if value is not None and not isinstance(value, Tensor):\n"
                    '                raise TypeError(f"cannot assign'
                    ' {type(value).__name__} as buffer {name!r}")'
                ),
            ),
        ),
        "5.1",
    ),
    (
        # was a hole: no public script assigned a Module over a buffer
        "a Module assigned over a buffer stays in _buffers",
        "nn/module.py",
        (
            "            self._forget(name, keep=modules)\n",
            "            params.pop(name, None)\n            self.__dict__.pop(name, None)\n",
        ),
        "5.1",
    ),
    ("a buffer's name checked first", "nn/module.py", ("region", SETATTR_BUFFER_FIRST), "5.1"),
    (
        # the kind check is given code now (_check_kind); a task that still checks for itself
        # and refuses None is the mistake
        "None refused for a parameter",
        "nn/module.py",
        (
            "            params[name] = None\n",
            '            raise TypeError(f"cannot assign None as parameter {name!r}")\n',
        ),
        "5.1",
    ),
    (
        # was a hole: no public script ended with a parameter set to None
        "None deletes a parameter",
        "nn/module.py",
        ("            params[name] = None\n", "            del params[name]\n"),
        "5.1",
    ),
    (
        "reassigning a parameter moves it to the end",
        "nn/module.py",
        ("region", SETATTR_MOVES_TO_THE_END),
        "5.1",
    ),
    # 5.2
    (
        "Linear's bound 1/in_features",
        "nn/linear.py",
        (
            "bound = 1 / math.sqrt(self.in_features) if",
            "bound = 1 / self.in_features if",
        ),
        "5.2",
    ),
    (
        "Linear's bias from U(0, k)",
        "nn/linear.py",
        ("init.uniform_(self.bias, -bound, bound)", "init.uniform_(self.bias, 0.0, bound)"),
        "5.2",
    ),
    (
        "LinearFunction's forward adds a None bias",
        "nn/linear.py",
        (
            "return out if bias is None else out + bias.data",
            "return out + bias.data",
        ),
        "5.2",
    ),
    (
        "LinearFunction's backward on .data arrays wrapped in Tensors",
        "nn/linear.py",
        nth_region("nn/linear.py", "5.2", 2, LINEAR_ON_ARRAYS),
        "5.2",
    ),
    (
        "LinearFunction's backward detaches grad_output",
        "nn/linear.py",
        (
            "        needs = ctx.needs_input_grad\n",
            "        needs = ctx.needs_input_grad\n        grad_output = grad_output.detach()\n",
        ),
        "5.2",
    ),
    (
        "LinearFunction saves the transposed weight",
        "nn/linear.py",
        edits(
            "nn/linear.py",
            ("ctx.save_for_backward(x, weight)", "ctx.save_for_backward(x, weight.T)"),
        ),
        "5.2",
    ),
    (
        "LinearFunction's bias gradient only when x needs one",
        "nn/linear.py",
        ("grad_output.sum(dim=0) if needs[2]", "grad_output.sum(dim=0) if needs[0]"),
        "5.2",
    ),
    (
        # was a hole: Linear was only made with dtype=float64, and never asked to keep its objects
        "reset_parameters makes new float64 Parameters",
        "nn/linear.py",
        edits(
            "nn/linear.py",
            (
                "bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0.0",
                "from ..generator import rng_of\n"
                "\n"
                "        bound = 1 / math.sqrt(self.in_features) "
                "if self.in_features > 0 else 0.0",
            ),
            (
                "init.uniform_(self.weight, -bound, bound)",
                "shape = (self.out_features, self.in_features)\n"
                "        self.weight = Parameter(rng_of(None).uniform(-bound, bound, shape))",
            ),
            (
                "init.uniform_(self.bias, -bound, bound)",
                "self.bias = Parameter(rng_of(None).uniform(-bound, bound, (self.out_features,)))",
            ),
        ),
        "5.2",
    ),
    (
        "Linear initialised with kaiming_uniform_'s default a",
        "nn/linear.py",
        ("init.uniform_(self.weight, -bound, bound)", "init.kaiming_uniform_(self.weight)"),
        "5.2",
    ),
    # 5.3
    (
        "named_modules does not pass memo down",
        "nn/module.py",
        (
            "yield from child.named_modules(memo, path, remove_duplicate)",
            "yield from child.named_modules(None, path, remove_duplicate)",
        ),
        "5.3",
    ),
    (
        "named_modules with a leading dot at the root",
        "nn/module.py",
        ('path = f"{prefix}.{name}" if prefix else name', 'path = f"{prefix}.{name}"'),
        "5.3",
    ),
    (
        "named_modules does not pass remove_duplicate down",
        "nn/module.py",
        (
            "yield from child.named_modules(memo, path, remove_duplicate)",
            "yield from child.named_modules(memo, path)",
        ),
        "5.3",
    ),
    (
        "named_modules walks into a None child",
        "nn/module.py",
        (
            "            if child is None:\n                continue\n            path",
            "            path",
        ),
        "5.3",
    ),
    (
        "named_modules walks named_children()",
        "nn/module.py",
        (
            "        for name, child in self._modules.items():\n            if child is None:\n"
            "                continue\n            path",
            "        for name, child in self.named_children():\n            if child is None:\n"
            "                continue\n            path",
        ),
        "5.3",
    ),
    (
        # was a hole: no public tree held a falsy module (len() 0, an empty container)
        "named_modules skips a child that is falsy (an empty container)",
        "nn/module.py",
        (
            "            if child is None:\n                continue\n            path",
            "            if not child:\n                continue\n            path",
        ),
        "5.3",
    ),
    (
        "named_modules post-order",
        "nn/module.py",
        edits(
            "nn/module.py",
            ("        yield prefix, self\n", ""),
            (
                "yield from child.named_modules(memo, path, remove_duplicate)",
                (
                    "yield from child.named_modules(memo, path, remove_duplicate)\n"
                    "        yield prefix, self"
                ),
            ),
        ),
        "5.3",
    ),
    (
        "named_modules breadth-first",
        "nn/module.py",
        ("region", NAMED_MODULES_BREADTH_FIRST),
        "5.3",
    ),
    (
        "_named_members tells tensors apart by ==",
        "nn/module.py",
        edits(
            "nn/module.py",
            (
                "seen: set[int] = set()\n        for path, module in modules:",
                "seen = []\n        for path, module in modules:",
            ),
            ("if id(value) in seen:", "if value in seen:"),
            ("seen.add(id(value))", "seen.append(value)"),
        ),
        "5.3",
    ),
    (
        "_named_members tells tensors apart by name",
        "nn/module.py",
        edits(
            "nn/module.py",
            (
                "seen: set[int] = set()\n        for path, module in modules:",
                "seen = set()\n        for path, module in modules:",
            ),
            ("if value is None:", "if value is None or (remove_duplicate and name in seen):"),
            (
                "if remove_duplicate:\n"
                "                    if id(value) in seen:\n"
                "                        continue\n"
                "                    seen.add(id(value))",
                "seen.add(name)",
            ),
        ),
        "5.3",
    ),
    (
        # was a hole: recurse=False was never asked with a prefix
        "named_parameters(recurse=False) drops the prefix",
        "nn/module.py",
        ("modules = iter([(prefix, self)])", 'modules = iter([("", self)])'),
        "5.3",
    ),
    (
        "_named_members keeps None entries",
        "nn/module.py",
        (
            "                if value is None:\n                    continue\n"
            "                if remove",
            "                if remove",
        ),
        "5.3",
    ),
    (
        "train ignores mode below the root",
        "nn/module.py",
        ("            child.train(mode)\n", "            child.train()\n"),
        "5.3",
    ),
    (
        # was a hole: as above
        "train skips a falsy child (an empty container)",
        "nn/module.py",
        (
            "        for child in self.children():\n            child.train(mode)\n",
            "        for child in self._modules.values():\n            if child:\n"
            "                child.train(mode)\n",
        ),
        "5.3",
    ),
    (
        "train sets the root only",
        "nn/module.py",
        ("            child.train(mode)\n", "            pass\n"),
        "5.3",
    ),
    # 5.4
    (
        # was a hole: no public Sequential held one module twice
        "Sequential runs children(), which yields a repeated module once",
        "nn/containers.py",
        (
            "        for module in self._modules.values():\n            x = module(x)",
            "        for module in self.children():\n            x = module(x)",
        ),
        "5.4",
    ),
    (
        # was a hole: no public Sequential had more than 10 modules
        "Sequential runs its modules sorted by name",
        "nn/containers.py",
        edits(
            "nn/containers.py",
            ("module in self._modules.values()", "name in sorted(self._modules)"),
            ("= module", "= self._modules[name]"),
        ),
        "5.4",
    ),
    (
        "Sequential runs the list it was made with",
        "nn/containers.py",
        edits(
            "nn/containers.py",
            (
                "        for index, module in enumerate(modules):\n"
                "            self.add_module(str(index), module)\n",
                "        object.__setattr__(self, 'layers', list(modules))\n"
                "        for index, module in enumerate(modules):\n"
                "            self.add_module(str(index), module)\n",
            ),
            (
                "        for module in self._modules.values():\n            x = module(x)\n",
                "        for module in self.layers:\n            x = module(x)\n",
            ),
        ),
        "5.4",
    ),
    (
        "ModuleList.append names from 1",
        "nn/containers.py",
        (
            "self.add_module(str(len(self._modules)), module)",
            "self.add_module(str(len(self._modules) + 1), module)",
        ),
        "5.4",
    ),
    (
        "ModuleList.append returns nothing",
        "nn/containers.py",
        (
            "        self.add_module(str(len(self._modules)), module)\n        return self\n",
            "        self.add_module(str(len(self._modules)), module)\n",
        ),
        "5.4",
    ),
    (
        # was a hole: no public Sequential held a module with a forward hook
        "Sequential calls module.forward, skipping the hooks",
        "nn/containers.py",
        (
            "        for module in self._modules.values():\n            x = module(x)",
            "        for module in self._modules.values():\n            x = module.forward(x)",
        ),
        "5.4",
    ),
    (
        "Sequential returns after the first module",
        "nn/containers.py",
        (
            "        for module in self._modules.values():\n            x = module(x)\n"
            "        return x\n",
            "        for module in self._modules.values():\n            x = module(x)\n"
            "            return x\n",
        ),
        "5.4",
    ),
    # 5.5
    (
        "state_dict with keep_vars inverted",
        "nn/module.py",
        (
            "destination[prefix + name] = param if keep_vars else param.detach()",
            "destination[prefix + name] = param.detach() if keep_vars else param",
        ),
        "5.5",
    ),
    (
        "state_dict keeps non-persistent buffers",
        "nn/module.py",
        (
            "if buffer is not None and name not in self._non_persistent:",
            "if buffer is not None:",
        ),
        "5.5",
    ),
    (
        "state_dict puts buffers first",
        "nn/module.py",
        edits(
            "nn/module.py",
            (
                "destination = OrderedDict()",
                "destination = OrderedDict()\n"
                "        for name, buffer in self._buffers.items():\n"
                "            if buffer is not None and name not in self._non_persistent:\n"
                "                destination[prefix + name] "
                "= buffer if keep_vars else buffer.detach()",
            ),
            (
                "for name, buffer in self._buffers.items():\n"
                "            if buffer is not None and name not in self._non_persistent:\n"
                "                destination[prefix + name] "
                "= buffer if keep_vars else buffer.detach()\n"
                "        for name, child in self._modules.items():",
                "for name, child in self._modules.items():",
            ),
        ),
        "5.5",
    ),
    (
        "state_dict from named_parameters and named_buffers",
        "nn/module.py",
        ("region", STATE_DICT_FROM_NAMED_MEMBERS),
        "5.5",
    ),
    (
        "state_dict does not pass keep_vars down",
        "nn/module.py",
        (
            'child.state_dict(destination, prefix + name + ".", keep_vars)',
            'child.state_dict(destination, prefix + name + ".")',
        ),
        "5.5",
    ),
    (
        "load_state_dict copies with [:] (a 0-d buffer has no axis)",
        "nn/module.py",
        (
            "target.data[...] = value.data if isinstance(value, Tensor) else value",
            "target.data[:] = value.data if isinstance(value, Tensor) else value",
        ),
        "5.5",
    ),
    (
        "state_dict recurses through named_children()",
        "nn/module.py",
        (
            "        for name, child in self._modules.items():\n            if child is not None:\n"
            "                child.state_dict(",
            "        for name, child in self.named_children():\n            if child is not None:\n"
            "                child.state_dict(",
        ),
        "5.5",
    ),
    (
        "state_dict holds arrays",
        "nn/module.py",
        (
            "destination[prefix + name] = param if keep_vars else param.detach()",
            "destination[prefix + name] = param if keep_vars else param.data",
        ),
        "5.5",
    ),
    (
        # was a hole: every public model and state_dict was float64
        "load_state_dict takes the source's dtype",
        "nn/module.py",
        (
            "target.data[...] = value.data if isinstance(value, Tensor) else value",
            "target.data = np.array(value.data if isinstance(value, Tensor) else value)",
        ),
        "5.5",
    ),
    (
        "load_state_dict names the first problem only",
        "nn/module.py",
        nth_region("nn/module.py", "5.5", 2, LOAD_FIRST_ERROR_ONLY),
        "5.5",
    ),
    (
        "load_state_dict checks shapes while copying",
        "nn/module.py",
        nth_region("nn/module.py", "5.5", 2, LOAD_CHECKS_SHAPES_WHILE_COPYING),
        "5.5",
    ),
    (
        "load_state_dict(strict=False) skips a wrong shape",
        "nn/module.py",
        (
            "            if shape != target.shape:\n                errors.append(",
            "            if shape != target.shape and strict:\n                errors.append(",
        ),
        "5.5",
    ),
    (
        "load_state_dict returns None",
        "nn/module.py",
        (
            "        return _IncompatibleKeys(missing, unexpected)\n",
            "        return None\n",
        ),
        "5.5",
    ),
    (
        "load_state_dict compares keys with the parameters only",
        "nn/module.py",
        (
            "        own = self.state_dict(keep_vars=True)\n        missing",
            "        own = dict(self.named_parameters())\n        missing",
        ),
        "5.5",
    ),
    # 5.6
    (
        "softmax shifted by the global max",
        "nn/softmax.py",
        (
            "e = xp.exp(x.data - x.data.max(axis=dim, keepdims=True))",
            "e = xp.exp(x.data - x.data.max())",
        ),
        "5.6",
    ),
    (
        "log_softmax shifted by the global max",
        "nn/softmax.py",
        (
            "shifted = x.data - x.data.max(axis=dim, keepdims=True)",
            "shifted = x.data - x.data.max()",
        ),
        "5.6",
    ),
    (
        "log_softmax as the log of softmax",
        "nn/softmax.py",
        edits(
            "nn/softmax.py",
            (
                (
                    "shifted = x.data - x.data.max(axis=dim, keepdims=True)\n"
                    "        out = shifted - xp.log(xp.exp(shifted).sum(axis=dim,"
                    " keepdims=True))\n"
                    "        ctx.save_for_backward(x)\n"
                    "        ctx.dim, ctx.out = dim, xp.exp(out)  # keep softmax(x) for"
                    " backward\n"
                    "        return out"
                ),
                (
                    "e = xp.exp(x.data - x.data.max(axis=dim, keepdims=True))\n"
                    "        y = e / e.sum(axis=dim, keepdims=True)\n"
                    "        ctx.save_for_backward(x)\n"
                    "        ctx.dim, ctx.out = dim, y\n"
                    "        return xp.log(y)"
                ),
            ),
        ),
        "5.6",
    ),
    (
        "log_softmax's backward sums along the last axis",
        "nn/softmax.py",
        (
            "return grad_output - y * grad_output.sum(dim=ctx.dim, keepdim=True)",
            "return grad_output - y * grad_output.sum(dim=-1, keepdim=True)",
        ),
        "5.6",
    ),
    (
        "log_softmax keeps its output as ctx.out",
        "nn/softmax.py",
        (
            "ctx.dim, ctx.out = dim, xp.exp(out)  # keep softmax(x) for backward",
            "ctx.dim, ctx.out = dim, out",
        ),
        "5.6",
    ),
    (
        "softmax's backward is the diagonal only",
        "nn/softmax.py",
        edits(
            "nn/softmax.py",
            (
                "return y * (grad_output - (grad_output * y).sum(dim=ctx.dim, keepdim=True))",
                "return y * (1 - y) * grad_output",
            ),
        ),
        "5.6",
    ),
    (
        "softmax in float64 for a float32 input",
        "nn/softmax.py",
        (
            "e = xp.exp(x.data - x.data.max(axis=dim, keepdims=True))",
            "e = xp.exp((x.data - x.data.max(axis=dim, keepdims=True)).astype('float64'))",
        ),
        "5.6",
    ),
    # 5.7
    (
        "label smoothing added to ignored rows",
        "nn/cross_entropy.py",
        edits(
            "nn/cross_entropy.py",
            ("        loss = xp.where(keep, loss, 0)\n", ""),
            (
                "        loss = -log_p[xp.arange(len(t)), t]\n",
                "        loss = xp.where(keep, -log_p[xp.arange(len(t)), t], 0)\n",
            ),
        ),
        "5.7",
    ),
    (
        "label smoothing spread over the other classes",
        "nn/cross_entropy.py",
        edits(
            "nn/cross_entropy.py",
            (
                "xp = array_module(z.data)",
                "xp = array_module(z.data)\n        classes = z.shape[1]",
            ),
            ("loss = -", "picked = "),
            (
                "if label_smoothing:\n            loss = (1 - label_smoothing) * loss - "
                "label_smoothing * log_p.mean(axis=1)",
                "others = (log_p.sum(axis=1) - picked) / (classes - 1)\n"
                "        loss = -(1 - label_smoothing) * picked - label_smoothing * others",
            ),
            (
                "zeros((rows, classes), dtype=ctx.out.dtype)",
                "full((rows, classes), ctx.smoothing / (classes - 1), dtype=ctx.out.dtype)",
            ),
            ("        q += ctx.smoothing / classes\n", ""),
            (
                (
                    'if ctx.reduction == "none":\n'
                    "            g = grad_output.reshape(rows, 1)\n"
                    "        else:\n"
                    "            g = grad_output\n"
                    "        w = Tensor._from_array(weight.reshape(rows, 1))\n"
                    "        return (p - Tensor._from_array(q)) * w * g"
                ),
                (
                    'g = grad_output.reshape(rows, 1) if ctx.reduction == "none" else'
                    " grad_output\n"
                    "        return (p - Tensor._from_array(q)) *"
                    " Tensor._from_array(weight.reshape(rows, 1)) * g"
                ),
            ),
        ),
        "5.7",
    ),
    (
        "reduction='none' returns the kept rows only",
        "nn/cross_entropy.py",
        (
            "            return loss.astype(z.dtype)\n",
            "            return loss[keep].astype(z.dtype)\n",
        ),
        "5.7",
    ),
    (
        "label smoothing puts 1 − ε on the target, ε/C on the others only",
        "nn/cross_entropy.py",
        edits(
            "nn/cross_entropy.py",
            (
                "loss = (1 - label_smoothing) * loss - label_smoothing * log_p.mean(axis=1)",
                "loss = (1 - label_smoothing) * loss - label_smoothing / log_p.shape[1] * (\n"
                "                log_p.sum(axis=1) + loss\n            )",
            ),
            (
                "        q[xp.arange(rows), ctx.t] = 1 - ctx.smoothing\n"
                "        q += ctx.smoothing / classes\n",
                "        q += ctx.smoothing / classes\n"
                "        q[xp.arange(rows), ctx.t] = 1 - ctx.smoothing\n",
            ),
        ),
        "5.7",
    ),
    (
        "cross_entropy's mean gradient not divided by the count",
        "nn/cross_entropy.py",
        ("weight = weight / max(ctx.count, 1)", "weight = weight"),
        "5.7",
    ),
    (
        "reduction='sum' returns the mean",
        "nn/cross_entropy.py",
        (
            '        if reduction == "mean":\n            total',
            "        if True:\n            total",
        ),
        "5.7",
    ),
    (
        "cross_entropy's backward ignores grad_output",
        "nn/cross_entropy.py",
        ("return (p - Tensor._from_array(q)) * w * g", "return (p - Tensor._from_array(q)) * w"),
        "5.7",
    ),
    (
        "ignored rows still get a gradient",
        "nn/cross_entropy.py",
        (
            "weight = ctx.keep.astype(ctx.out.dtype)",
            "weight = xp.ones(rows, dtype=ctx.out.dtype)",
        ),
        "5.7",
    ),
    (
        "every row ignored gives a mean of 0",
        "nn/cross_entropy.py",
        ("total = total / count if count else xp.nan", "total = total / max(count, 1)"),
        "5.7",
    ),
    (
        # was a hole: every public cross_entropy case was float64
        "cross_entropy's loss in a float64 array",
        "nn/cross_entropy.py",
        edits(
            "nn/cross_entropy.py",
            ("xp = array_module(z.data)", ("xp = array_module(z.data)\n        rows = z.shape[0]")),
            ("-log_p[xp.arange(len(t)), t]", "np.zeros(rows)"),
            (
                "if label_smoothing:\n            loss = (1 - label_smoothing) * loss - "
                "label_smoothing * log_p.mean(axis=1)",
                "for i in range(rows):\n            if keep[i]:",
            ),
            (
                "loss = xp.where(keep, loss, 0)",
                (
                    "        loss[i] = -(1 - label_smoothing) * log_p[i, t[i]] -"
                    " label_smoothing * log_p[i].mean()"
                ),
            ),
            (
                (
                    "return loss.astype(z.dtype)\n"
                    "        total = loss.sum()\n"
                    '        if reduction == "mean":\n'
                    "            total = total / count if count else xp.nan  # PyTorch:"
                    " nan when all are ignored\n"
                    "        return xp.asarray(total, dtype=z.dtype)"
                ),
                (
                    "return loss\n"
                    '        if reduction == "sum":\n'
                    "            return np.asarray(loss.sum())\n"
                    "        return np.asarray(loss.sum() / count if count else np.nan)"
                ),
            ),
        ),
        "5.7",
    ),
    # 5.8
    (
        "kaiming with the gain squared",
        "nn/init.py",
        (
            f"{KAIMING_STD}\n    return normal_(",
            "std = calculate_gain(nonlinearity, a) ** 2 / math.sqrt(_fan(tensor, mode))\n"
            "    return normal_(",
        ),
        "5.8",
    ),
    (
        "xavier_normal_ with the uniform's √3",
        "nn/init.py",
        edits(
            "nn/init.py",
            (
                "std = gain * math.sqrt(2.0 / (fan_in + fan_out))\n"
                "    return normal_(tensor, 0.0, std, generator)",
                "std = math.sqrt(3.0) * gain * math.sqrt(2.0 / (fan_in + fan_out))\n"
                "    return normal_(tensor, 0.0, std, generator)",
            ),
        ),
        "5.8",
    ),
    (
        # was a hole: no public xavier_normal_ had a gain (§6 uses gain=5/3 for tanh)
        "xavier_normal_ ignores gain",
        "nn/init.py",
        (
            "std = gain * math.sqrt(2.0 / (fan_in + fan_out))\n    return normal_(",
            "std = math.sqrt(2.0 / (fan_in + fan_out))\n    return normal_(",
        ),
        "5.8",
    ),
    (
        # a = 0.2 changes leaky_relu's gain by 2%: only the uniform's bound tells
        "kaiming_uniform_ ignores a",
        "nn/init.py",
        (
            f"{KAIMING_STD}\n    bound = math.sqrt(3.0) * std",
            "std = calculate_gain(nonlinearity) / math.sqrt(_fan(tensor, mode))\n"
            "    bound = math.sqrt(3.0) * std",
        ),
        "5.8",
    ),
    (
        # was a hole: no public kaiming_normal_ had a negative slope a
        "kaiming_normal_ ignores a",
        "nn/init.py",
        (
            f"{KAIMING_STD}\n    return normal_(",
            "std = calculate_gain(nonlinearity) / math.sqrt(_fan(tensor, mode))\n"
            "    return normal_(",
        ),
        "5.8",
    ),
    (
        "kaiming's fans without the kernel size",
        "nn/init.py",
        edits(
            "nn/init.py",
            (
                (
                    "std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))\n"
                    "    bound = math.sqrt(3.0) * std"
                ),
                (
                    'fan = tensor.shape[1] if mode == "fan_in" else tensor.shape[0]\n'
                    "    bound = math.sqrt(3.0) * calculate_gain(nonlinearity, a) /"
                    " math.sqrt(fan)"
                ),
            ),
        ),
        "5.8",
    ),
    (
        "kaiming's modes swapped",
        "nn/init.py",
        (
            'return fan_in if mode == "fan_in" else fan_out',
            'return fan_out if mode == "fan_in" else fan_in',
        ),
        "5.8",
    ),
    (
        # was a hole: every public init filled a float64 tensor
        "xavier_uniform_ puts a new float64 array in the tensor",
        "nn/init.py",
        edits(
            "nn/init.py",
            (
                (
                    "std = gain * math.sqrt(2.0 / (fan_in + fan_out))\n"
                    "    bound = math.sqrt(3.0) * std\n"
                    "    return uniform_(tensor, -bound, bound, generator)"
                ),
                (
                    "bound = gain * math.sqrt(6.0 / (fan_in + fan_out))\n"
                    "    tensor.data = rng_of(generator).uniform(-bound, bound, tensor.shape)\n"
                    "    return tensor"
                ),
            ),
        ),
        "5.8",
    ),
    # 5.9
    (
        # was a hole: nothing read the generator after an eval() call
        "dropout draws its mask before looking at training",
        "nn/dropout.py",
        (
            "    if not training or p == 0:\n        return input\n",
            "    drawn = rng_of(generator).random(input.shape)\n"
            "    if not training or p == 0:\n        return input\n",
        ),
        "5.9",
    ),
    (
        "dropout rescales by 1/p",
        "nn/dropout.py",
        ("keep * (1.0 / (1.0 - p))", "keep * (1.0 / p)"),
        "5.9",
    ),
    (
        "dropout's mask cached by shape",
        "nn/dropout.py",
        edits(
            "nn/dropout.py",
            (
                (
                    "xp = array_module(input.data)\n"
                    "    keep = rng_of(generator).random(input.shape) >= p\n"
                    "    mask = xp.asarray(keep * (1.0 / (1.0 - p)), dtype=input.dtype)\n"
                    "    return input * Tensor._from_array(mask)"
                ),
                (
                    'cache = dropout.__dict__.setdefault("masks", {})\n'
                    "    if input.shape not in cache:\n"
                    "        keep = rng_of(generator).random(input.shape) >= p\n"
                    "        cache[input.shape] = (keep / (1.0 - p)).astype(input.dtype)\n"
                    "    return input * Tensor._from_array(cache[input.shape])"
                ),
            ),
        ),
        "5.9",
    ),
    (
        "dropout in eval scales by 1 − p",
        "nn/dropout.py",
        (
            "    if not training or p == 0:\n        return input\n",
            "    if not training:\n        return input * (1.0 - p)\n"
            "    if p == 0:\n        return input\n",
        ),
        "5.9",
    ),
    (
        "dropout with p = 1 divides by zero",
        "nn/dropout.py",
        ("    if p == 1:\n        return input * 0.0\n", ""),
        "5.9",
    ),
    (
        "dropout returns a new Tensor (no graph)",
        "nn/dropout.py",
        ("return input * Tensor._from_array(mask)", "return Tensor(input.data * mask)"),
        "5.9",
    ),
    (
        "dropout's mask in float64",
        "nn/dropout.py",
        (
            "mask = xp.asarray(keep * (1.0 / (1.0 - p)), dtype=input.dtype)",
            "mask = keep * (1.0 / (1.0 - p))",
        ),
        "5.9",
    ),
    (
        "dropout draws one number for the whole tensor",
        "nn/dropout.py",
        ("rng_of(generator).random(input.shape) >= p", "rng_of(generator).random() >= p"),
        "5.9",
    ),
    # 5.10
    (
        # was a hole: nothing was read after the eval() call but its output
        "BatchNorm updates its running statistics in eval",
        "nn/normalization.py",
        ("region", BN_UPDATES_IN_EVAL),
        "5.10",
    ),
    (
        "BatchNorm normalises with the unbiased variance",
        "nn/normalization.py",
        (
            "            var = ((x - mean) ** 2).mean(dim=axes, keepdim=True)\n            if self",
            "            var = ((x - mean) ** 2).sum(dim=axes, keepdim=True) / (n - 1)\n"
            "            if self",
        ),
        "5.10",
    ),
    (
        "BatchNorm divides by √var + eps",
        "nn/normalization.py",
        (
            "        y = (x - mean) / (var + self.eps).sqrt()\n        if self.affine:",
            "        y = (x - mean) / (var.sqrt() + self.eps)\n        if self.affine:",
        ),
        "5.10",
    ),
    (
        "BatchNorm's n/(n − 1) with n the batch size",
        "nn/normalization.py",
        (
            "unbiased = var.data.reshape(-1) * (n / (n - 1))",
            "unbiased = var.data.reshape(-1) * (x.shape[0] / (x.shape[0] - 1))",
        ),
        "5.10",
    ),
    (
        # was a hole: the running buffers' requires_grad was never read
        "BatchNorm's running statistics keep a graph",
        "nn/normalization.py",
        edits(
            "nn/normalization.py",
            (
                "unbiased = var.data.reshape(-1) * (n / (n - 1))\n"
                "                self.running_mean.data[...] "
                "= (1 - m) * self.running_mean.data + m * (\n"
                "                    mean.data.reshape(-1)\n"
                "                )\n"
                "                self.running_var.data[...] = "
                "(1 - m) * self.running_var.data + m * unbiased",
                "self.running_mean = (1 - m) * self.running_mean + m * mean.reshape(-1)\n"
                "                self.running_var = (1 - m) * "
                "self.running_var + m * var.reshape(-1) * (n / (n - 1))",
            ),
        ),
        "5.10",
    ),
    (
        "BatchNorm's momentum=None taken as 0.1",
        "nn/normalization.py",
        (
            "                if m is None:\n"
            "                    m = 1.0 / int(self.num_batches_tracked.data)\n",
            "                if m is None:\n                    m = 0.1\n",
        ),
        "5.10",
    ),
    (
        "BatchNorm without running statistics reads them in eval",
        "nn/normalization.py",
        (
            "        if self.training or not self.track_running_stats:\n            mean",
            "        if self.training:\n            mean",
        ),
        "5.10",
    ),
    (
        "BatchNorm's batch statistics as constants",
        "nn/normalization.py",
        (
            "            mean = x.mean(dim=axes, keepdim=True)\n"
            "            var = ((x - mean) ** 2).mean(dim=axes, keepdim=True)\n",
            "            mean = Tensor(x.data.mean(axis=axes, keepdims=True))\n"
            "            var = Tensor(x.data.var(axis=axes, keepdims=True))\n",
        ),
        "5.10",
    ),
    (
        "BatchNorm's statistics over axis 0 only",
        "nn/normalization.py",
        (
            "            mean = x.mean(dim=axes, keepdim=True)\n"
            "            var = ((x - mean) ** 2).mean(dim=axes, keepdim=True)\n",
            "            mean = x.mean(dim=0, keepdim=True)\n"
            "            var = ((x - mean) ** 2).mean(dim=0, keepdim=True)\n",
        ),
        "5.10",
    ),
    # 5.11
    (
        "DataLoader stops a batch early",
        "utils/data.py",
        (
            "for start in range(0, n, self.batch_size):",
            "for start in range(0, n - self.batch_size, self.batch_size):",
        ),
        "5.11",
    ),
    (
        "DataLoader's chunks run past the end",
        "utils/data.py",
        (
            "for start in range(0, n, self.batch_size):",
            "for start in range(0, n + self.batch_size, self.batch_size):",
        ),
        "5.11",
    ),
    (
        "DataLoader reshuffles last epoch's order",
        "utils/data.py",
        ("region", LOADER_SHUFFLES_ITS_LIST),
        "5.11",
    ),
    (
        "DataLoader makes a new generator from the seed each epoch",
        "utils/data.py",
        edits(
            "utils/data.py",
            (
                "order = randperm(n, generator=self.generator).tolist()",
                "seed = self.generator.initial_seed() if self.generator is not None else 0\n"
                "            order = np.random.default_rng(seed).permutation(n).tolist()",
            ),
        ),
        "5.11",
    ),
    (
        "DataLoader's drop_last drops a full last batch",
        "utils/data.py",
        ("region", LOADER_DROP_LAST_OFF_BY_ONE),
        "5.11",
    ),
    (
        "DataLoader yields items, not a collated batch",
        "utils/data.py",
        edits(
            "utils/data.py",
            (
                (
                    "if self.shuffle:\n"
                    "            order = randperm(n, generator=self.generator).tolist()\n"
                    "        else:\n"
                    "            order = list(range(n))"
                ),
                (
                    "order = randperm(n, generator=self.generator).tolist() if"
                    " self.shuffle else list(range(n))"
                ),
            ),
            ("self._fetch(chunk)", "[self.dataset[i] for i in chunk]"),
        ),
        "5.11",
    ),
    # 5.12
    (
        "checkpoint's backward reruns fn on the original inputs",
        "utils/checkpoint.py",
        edits(
            "utils/checkpoint.py",
            (
                "        inputs = [\n"
                "            x.detach().requires_grad_(x.requires_grad) "
                "if isinstance(x, Tensor) else x\n"
                "            for x in ctx.args\n"
                "        ]\n",
                "",
            ),
            ("out = _single_tensor(ctx.fn(*inputs))", "out = _single_tensor(ctx.fn(*ctx.args))"),
            (
                "return tuple(x.grad for x in inputs if isinstance(x, Tensor))",
                "return tuple(x.grad if x.is_leaf else None "
                "for x in ctx.args if isinstance(x, Tensor))",
            ),
        ),
        "5.12",
    ),
    (
        "checkpoint's backward with autograd.grad",
        "utils/checkpoint.py",
        edits(
            "utils/checkpoint.py",
            (
                "### BEGIN SOLUTION 5.12\n        inputs = [",
                (
                    "### BEGIN SOLUTION 5.12\n"
                    "        from ...ch04_backward import autograd\n"
                    "\n"
                    "        inputs = ["
                ),
            ),
            (
                "if out.requires_grad:",
                "wanted = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]",
            ),
            (
                "    out.backward(grad_output)",
                "grads = iter(autograd.grad(out, wanted, grad_output, allow_unused=True))",
            ),
            ("x.grad", "next(grads) if x.requires_grad else None"),
        ),
        "5.12",
    ),
    (
        # was a hole: nothing drew from the global generator after the backward
        "checkpoint leaves the generator at the forward's state",
        "utils/checkpoint.py",
        edits(
            "utils/checkpoint.py",
            (
                "with _replaying(ctx.rng_state), enable_grad():",
                "if ctx.rng_state is not None:\n"
                '            factories._random["generator"].bit_generator.state '
                "= ctx.rng_state\n"
                "        with enable_grad():",
            ),
        ),
        "5.12",
    ),
    (
        "checkpoint returns gradients for fn and the rng state",
        "utils/checkpoint.py",
        edits(
            "utils/checkpoint.py",
            (
                "return tuple(x.grad for x in inputs if isinstance(x, Tensor))",
                "return (None, None, *[x.grad if isinstance(x, Tensor) else None for x in inputs])",
            ),
        ),
        "5.12",
    ),
    (
        "checkpoint's copies do not require grad",
        "utils/checkpoint.py",
        ("x.detach().requires_grad_(x.requires_grad)", "x.detach()"),
        "5.12",
    ),
    (
        "checkpoint's backward without enable_grad",
        "utils/checkpoint.py",
        (
            "with _replaying(ctx.rng_state), enable_grad():",
            "with _replaying(ctx.rng_state):",
        ),
        "5.12",
    ),
]

FIT_BY_NAME = """
model = nn.Linear(x.shape[1], y.shape[1], device=x.device, dtype=x.dtype)
criterion = nn.MSELoss()
losses = []
for _ in range(epochs):
    for name in ("weight", "bias"):
        getattr(model, name).grad = None
    loss = criterion(model(x), y)
    loss.backward()
    for name in ("weight", "bias"):
        p = getattr(model, name)
        p.data -= lr * p.grad.data
    losses.append(float(loss.item()))
return model, losses
"""

FIT_AS_STEPS = """
model = nn.Linear(x.shape[1], y.shape[1], device=x.device, dtype=x.dtype)

def step() -> float:
    error = model(x) - y
    loss = (error * error).sum() / error.numel()
    loss.backward()
    with no_grad():
        model.weight.sub_(lr * model.weight.grad)
        model.bias.sub_(lr * model.bias.grad)
    model.weight.grad = model.bias.grad = None
    return loss.item()

return model, [step() for _ in range(epochs)]
"""

CORRECT = [
    ("__setattr__ by loops over tables", "nn/module.py", ("region", SETATTR_BY_LOOPS), "5.1"),
    (
        "__setattr__ through register_parameter, add_module, register_buffer",
        "nn/module.py",
        ("region", SETATTR_THROUGH_REGISTER),
        "5.1",
    ),
    (
        "__setattr__'s plain case through super().__setattr__",
        "nn/module.py",
        (
            "        else:\n            object.__setattr__(self, name, value)\n        ### END",
            "        else:\n            super().__setattr__(name, value)\n        ### END",
        ),
        "5.1",
    ),
    (
        "Linear drawn from rng_of(None) into .data",
        "nn/linear.py",
        nth_region("nn/linear.py", "5.2", 3, LINEAR_FROM_THE_GLOBAL_GENERATOR),
        "5.2",
    ),
    (
        "LinearFunction with matmul and transpose",
        "nn/linear.py",
        edits(
            "nn/linear.py",
            ("out = x.data @ weight.data.T", "out = np.matmul(x.data, weight.data.transpose())"),
            ("grad_output.T @ x if", "grad_output.transpose(0, 1).matmul(x) if"),
        ),
        "5.2",
    ),
    (
        "LinearFunction's backward unpacking needs_input_grad",
        "nn/linear.py",
        nth_region("nn/linear.py", "5.2", 2, LINEAR_UNPACKS_NEEDS),
        "5.2",
    ),
    (
        "LinearFunction keeps the bias on ctx",
        "nn/linear.py",
        rewrite("nn/linear.py", "5.2", LINEAR_BIAS_ON_CTX, LINEAR_BIAS_FROM_CTX),
        "5.2",
    ),
    ("named_modules with a memo list", "nn/module.py", ("region", NAMED_MODULES_MEMO_LIST), "5.3"),
    (
        "_named_members with a set of Tensors (hashed by identity)",
        "nn/module.py",
        nth_region("nn/module.py", "5.3", 2, MEMBERS_A_SET_OF_TENSORS),
        "5.3",
    ),
    (
        "train through apply",
        "nn/module.py",
        nth_region("nn/module.py", "5.3", 3, TRAIN_THROUGH_APPLY),
        "5.3",
    ),
    (
        "Sequential by setattr and for m in self",
        "nn/containers.py",
        edits(
            "nn/containers.py",
            ("self.add_module(str(index), module)", "setattr(self, str(index), module)"),
            (
                "        for module in self._modules.values():\n            x = module(x)\n",
                "        for module in self:\n            x = module(x)\n",
            ),
        ),
        "5.4",
    ),
    (
        "Sequential by index and ModuleList.append by setattr",
        "nn/containers.py",
        edits(
            "nn/containers.py",
            (
                "        for module in self._modules.values():\n            x = module(x)\n",
                "        for i in range(len(self)):\n            x = self[i](x)\n",
            ),
            (
                "        self.add_module(str(len(self._modules)), module)\n        return self\n",
                "        setattr(self, str(len(self)), module)\n        return self\n",
            ),
        ),
        "5.4",
    ),
    (
        "Sequential made by append, ModuleList.append into _modules",
        "nn/containers.py",
        edits(
            "nn/containers.py",
            (
                "            self.add_module(str(index), module)\n",
                "            self.append(module)\n",
            ),
            (
                "        self.add_module(str(len(self._modules)), module)\n        return self\n",
                "        self._modules[str(len(self))] = module\n        return self\n",
            ),
        ),
        "5.4",
    ),
    (
        "state_dict with a comprehension",
        "nn/module.py",
        nth_region("nn/module.py", "5.5", 1, STATE_DICT_COMPREHENSION),
        "5.5",
    ),
    (
        "state_dict through a _save_to_state_dict helper",
        "nn/module.py",
        rewrite(
            "nn/module.py",
            "5.5",
            STATE_DICT_THROUGH_A_HELPER,
            pairs=[("\n    def load_state_dict(", SAVE_TO_STATE_DICT)],
        ),
        "5.5",
    ),
    (
        "load_state_dict into the detached state_dict with np.copyto",
        "nn/module.py",
        nth_region("nn/module.py", "5.5", 2, LOAD_INTO_THE_DETACHED_STATE_DICT),
        "5.5",
    ),
    (
        "load_state_dict walks each key down the tree",
        "nn/module.py",
        nth_region("nn/module.py", "5.5", 2, LOAD_BY_WALKING_THE_KEYS),
        "5.5",
    ),
    (
        "log_softmax with a logsumexp helper",
        "nn/softmax.py",
        nth_region("nn/softmax.py", "5.6", 3, LOG_SOFTMAX_WITH_A_LOGSUMEXP_HELPER),
        "5.6",
    ),
    (
        "softmax's backward expanded",
        "nn/softmax.py",
        edits(
            "nn/softmax.py",
            (
                "return y * (grad_output - (grad_output * y).sum(dim=ctx.dim, keepdim=True))",
                "return y * grad_output - y * (y * grad_output).sum(dim=ctx.dim, keepdim=True)",
            ),
        ),
        "5.6",
    ),
    (
        "softmax with one division by the sum's reciprocal",
        "nn/softmax.py",
        (
            "out = e / e.sum(axis=dim, keepdims=True)",
            "out = e * (1.0 / e.sum(axis=dim, keepdims=True))",
        ),
        "5.6",
    ),
    (
        "cross_entropy with a one-hot matrix",
        "nn/cross_entropy.py",
        rewrite("nn/cross_entropy.py", "5.7", CE_ONE_HOT, CE_ONE_HOT_BACKWARD),
        "5.7",
    ),
    (
        # float32 / a NumPy int64 is float64, but the result is cast to z's dtype at the end
        "cross_entropy's count as keep.sum(), a NumPy int64",
        "nn/cross_entropy.py",
        ("count = int(keep.sum())", "count = keep.sum()"),
        "5.7",
    ),
    (
        "cross_entropy's mean as the mean of the kept rows",
        "nn/cross_entropy.py",
        (
            "            total = total / count if count else xp.nan",
            "            total = loss[keep].mean() if count else xp.nan",
        ),
        "5.7",
    ),
    (
        "kaiming_uniform_ with bound gain·√(3/fan)",
        "nn/init.py",
        (
            f"{KAIMING_STD}\n    bound = math.sqrt(3.0) * std",
            "bound = calculate_gain(nonlinearity, a) * math.sqrt(3.0 / _fan(tensor, mode))\n"
            "    std = bound",
        ),
        "5.8",
    ),
    (
        "xavier_normal_ with fans read from the shape",
        "nn/init.py",
        edits(
            "nn/init.py",
            (
                (
                    "fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)\n"
                    "    std = gain * math.sqrt(2.0 / (fan_in + fan_out))\n"
                    "    return normal_(tensor, 0.0, std, generator)"
                ),
                (
                    "receptive = math.prod(tensor.shape[2:])\n"
                    "    fan_in, fan_out = tensor.shape[1] * receptive, tensor.shape[0]"
                    " * receptive\n"
                    "    return normal_(tensor, std = gain * (2.0 / (fan_in + fan_out))"
                    " ** 0.5, generator=generator)"
                ),
            ),
        ),
        "5.8",
    ),
    (
        # the docstring states the distribution (Bernoulli(1 − p)), not the draw
        "dropout's mask from rng.binomial",
        "nn/dropout.py",
        edits(
            "nn/dropout.py",
            (
                (
                    "xp = array_module(input.data)\n"
                    "    keep = rng_of(generator).random(input.shape) >= p\n"
                    "    mask = xp.asarray(keep * (1.0 / (1.0 - p)), dtype=input.dtype)\n"
                    "    return input * Tensor._from_array(mask)"
                ),
                (
                    "keep = rng_of(generator).binomial(1, 1.0 - p, size=input.shape)\n"
                    "    return input * Tensor._from_array((keep / (1.0 -"
                    " p)).astype(input.dtype))"
                ),
            ),
        ),
        "5.9",
    ),
    (
        "dropout's mask as a float array",
        "nn/dropout.py",
        (
            "mask = xp.asarray(keep * (1.0 / (1.0 - p)), dtype=input.dtype)",
            "mask = keep.astype(input.dtype) / input.dtype.type(1.0 - p)",
        ),
        "5.9",
    ),
    (
        "BatchNorm's running statistics replaced by setattr",
        "nn/normalization.py",
        edits(
            "nn/normalization.py",
            ("                self.num_batches_tracked.data[...] += 1\n", ""),
            (
                (
                    "m = 1.0 / int(self.num_batches_tracked.data)\n"
                    "                unbiased = var.data.reshape(-1) * (n / (n - 1))\n"
                    "                self.running_mean.data[...] = (1 - m) *"
                    " self.running_mean.data + m * (\n"
                    "                    mean.data.reshape(-1)\n"
                    "                )\n"
                    "                self.running_var.data[...] = (1 - m) *"
                    " self.running_var.data + m * unbiased"
                ),
                (
                    "m = 1.0 / (int(self.num_batches_tracked.data) + 1)\n"
                    "                self.num_batches_tracked = self.num_batches_tracked + 1\n"
                    "                new_mean = (1 - m) * self.running_mean + m *"
                    " mean.reshape(-1)\n"
                    "                new_var = (1 - m) * self.running_var + m *"
                    " var.reshape(-1) * (n / (n - 1))\n"
                    "                self.running_mean, self.running_var ="
                    " new_mean.detach(), new_var.detach()"
                ),
            ),
            ("self.running_mean.detach().", "self.running_mean."),
            ("detach().", ""),
        ),
        "5.10",
    ),
    (
        "BatchNorm as a Function with its own backward",
        "nn/normalization.py",
        rewrite("nn/normalization.py", "5.10", BN_AS_A_FUNCTION),
        "5.10",
    ),
    (
        "DataLoader's order as a NumPy array",
        "utils/data.py",
        (
            "order = randperm(n, generator=self.generator).tolist()",
            "order = randperm(n, generator=self.generator).numpy()",
        ),
        "5.11",
    ),
    ("DataLoader with itertools.islice", "utils/data.py", ("region", LOADER_ISLICE), "5.11"),
    (
        "DataLoader.__iter__ returns an iterator over a list",
        "utils/data.py",
        ("region", LOADER_LIST_OF_BATCHES),
        "5.11",
    ),
    (
        "DataLoader indices as a Tensor",
        "utils/data.py",
        edits(
            "utils/data.py",
            (
                "if self.shuffle:\n"
                "            order = randperm(n, generator=self.generator).tolist()\n"
                "        else:\n"
                "            order = list(range(n))",
                "order = randperm(n, generator=self.generator) "
                "if self.shuffle else Tensor(np.arange(n))",
            ),
        ),
        "5.11",
    ),
    (
        "checkpoint's forward returns the Tensor fn made",
        "utils/checkpoint.py",
        ("        return _single_tensor(out).data\n", "        return _single_tensor(out)\n"),
        "5.12",
    ),
    (
        "dropout's mask as a constant Tensor",
        "nn/dropout.py",
        (
            "    mask = xp.asarray(keep * (1.0 / (1.0 - p)), dtype=input.dtype)\n"
            "    return input * Tensor._from_array(mask)\n",
            "    mask = Tensor(keep, dtype=input.dtype) / (1.0 - p)\n    return input * mask\n",
        ),
        "5.9",
    ),
    (
        "checkpoint with save_for_backward",
        "utils/checkpoint.py",
        rewrite(
            "utils/checkpoint.py",
            "5.12",
            CHECKPOINT_SAVED_TENSORS,
            CHECKPOINT_SAVED_TENSORS_BACKWARD,
        ),
        "5.12",
    ),
    # 5.13 (v1.1): its bugs are tests/variants/ch05_exercises.py; two more rewrites here
    (
        "fit_linear stepping on .data, parameters by name, MSELoss",
        "regression.py",
        rewrite("regression.py", "5.13", FIT_BY_NAME),
        "5.13",
    ),
    (
        "fit_linear as a list of steps, the mean by hand, sub_",
        "regression.py",
        rewrite("regression.py", "5.13", FIT_AS_STEPS),
        "5.13",
    ),
]

# the variants that passed the public checks before (each noted "was a hole" above): the
# hidden checks, rows of the same builders, must catch them too
HOLES = [
    "None deletes a parameter",
    "a Module assigned over a plain attribute leaves it in __dict__",
    "reset_parameters makes new float64 Parameters",
    "named_parameters(recurse=False) drops the prefix",
    "Sequential runs children(), which yields a repeated module once",
    "Sequential runs its modules sorted by name",
    "Sequential calls module.forward, skipping the hooks",
    "load_state_dict takes the source's dtype",
    "cross_entropy's loss in a float64 array",
    "kaiming_normal_ ignores a",
    "xavier_normal_ ignores gain",
    "xavier_uniform_ puts a new float64 array in the tensor",
    "dropout draws its mask before looking at training",
    "BatchNorm updates its running statistics in eval",
    "BatchNorm's running statistics keep a graph",
    "checkpoint leaves the generator at the forward's state",
    "a Module assigned over a buffer stays in _buffers",
    "named_modules skips a child that is falsy (an empty container)",
    "train skips a falsy child (an empty container)",
]


SET = VariantSet(
    5,
    "held out",
    VARIANTS,
    CORRECT,
    says=[
        ("None deletes a parameter", "'w' is not in _parameters"),
        ("a Module assigned over a plain attribute leaves it in __dict__", "__dict__"),
        ("reset_parameters makes new float64 Parameters", "parameters are float64"),
        ("LinearFunction's backward on .data arrays wrapped in Tensors", "twice differentiable"),
        ("LinearFunction's backward detaches grad_output", "second derivatives"),
        ("_named_members tells tensors apart by ==", "compare a Tensor's values elementwise"),
        ("named_parameters(recurse=False) drops the prefix", "where PyTorch gives 'model.scale'"),
        ("Sequential runs children(), which yields a repeated module once", "runs twice"),
        ("load_state_dict takes the source's dtype", "not the model's float32"),
        ("softmax shifted by the global max", "one max for the whole tensor"),
        ("log_softmax shifted by the global max", "one max for the whole tensor"),
        ("log_softmax as the log of softmax", "log(softmax(x)) is −inf"),
        ("every row ignored gives a mean of 0", "0/0 = nan"),
        ("cross_entropy's loss in a float64 array", "returned a float64 loss"),
        ("kaiming_normal_ ignores a", "the gain without a"),
        ("kaiming_uniform_ ignores a", "the gain without a"),
        ("xavier_normal_ ignores gain", "no gain"),
        ("checkpoint's backward without enable_grad", "run fn again under enable_grad()"),
        ("Linear's bound 1/in_features", "k = 1/√in_features = 1/√256)"),
        ("DataLoader's chunks run past the end", "an empty batch"),
        ("xavier_uniform_ puts a new float64 array in the tensor", "made a float32 tensor float64"),
        ("BatchNorm updates its running statistics in eval", "eval() changed running_mean"),
        ("BatchNorm's running statistics keep a graph", "requires grad after training"),
        ("DataLoader yields items, not a collated batch", "a batch is a list of 3 items"),
        ("checkpoint leaves the generator at the forward's state", "put the global generator back"),
        ("dropout's mask cached by shape", "the same mask on every call"),
        ("Sequential calls module.forward, skipping the hooks", "not module.forward(x)"),
        ("dropout rescales by 1/p", "rescale by 1/(1 − p)"),
        ("BatchNorm's batch statistics as constants", "held constant"),
        ("named_modules skips a child that is falsy (an empty container)", "if child is None"),
        ("None refused for a parameter", "None keeps a registered name"),
        ("state_dict holds arrays", "is a ndarray, not a Tensor"),
        ("load_state_dict(strict=False) skips a wrong shape", "even with strict=False"),
        ("checkpoint's backward reruns fn on the original inputs", "it arrived twice"),
        ("dropout draws its mask before looking at training", "in eval() drew random numbers"),
        ("kaiming's fans without the kernel size", "fans without the kernel's size"),
        (
            "__setattr__ registers any Tensor as a parameter",
            "self.t = Tensor(...) is not a Parameter",
        ),
        ("a Parameter assigned over a child stays in _modules", "'m' is still in _modules after"),
        (
            "a Module assigned over a parameter stays in _parameters",
            "'b' is still in _buffers after",
        ),
        ("a Module assigned over a buffer stays in _buffers", "'b' is still in _buffers after"),
        (
            "a buffer's name checked first",
            "self.b = Parameter(...) (it went to _buffers)",
        ),
        (
            "reassigning a parameter moves it to the end",
            "_parameters is ['v', 'w'], expected ['w', 'v'] (in the order first set)",
        ),
        ("Linear's bias from U(0, k)", "Linear's bias's mean is"),
        (
            "LinearFunction's forward adds a None bias",
            "this Linear has no bias (bias=False): the forward added the bias",
        ),
        (
            "LinearFunction saves the transposed weight",
            "the weight saved in forward is W as stored",
        ),
        (
            "LinearFunction's bias gradient only when x needs one",
            "bias.grad is None, but it requires grad",
        ),
        (
            "Linear initialised with kaiming_uniform_'s default a",
            "kaiming_uniform_'s with its default a = 0",
        ),
        ("named_modules does not pass memo down", "yielded one object twice"),
        ("named_modules with a leading dot at the root", "named_modules() gives '.fc'"),
        (
            "named_modules does not pass remove_duplicate down",
            "named_modules(remove_duplicate=False) is missing 'b'",
        ),
        (
            "named_modules walks into a None child",
            "'NoneType' object has no attribute 'named_modules'",
        ),
        (
            "named_modules walks named_children()",
            "named_modules(remove_duplicate=False) is missing 'b'",
        ),
        ("named_modules post-order", "yielded 'fc' before '', the module holding it"),
        ("named_modules breadth-first", "yielded 'head' before 'body.inner': depth first"),
        ("_named_members tells tensors apart by name", "it was taken for 'fc.weight'"),
        ("_named_members keeps None entries", "yielded 'body.bias', which is set to None"),
        ("train ignores mode below the root", "model.eval() left fc in training mode"),
        ("train skips a falsy child (an empty container)", "left body in training mode"),
        ("train sets the root only", "model.eval() left fc in training mode"),
        ("Sequential runs its modules sorted by name", "in the order [0, 1, 10, 11, 2,"),
        (
            "Sequential runs the list it was made with",
            "ran its modules in the order [0, 1], expected [0, 1, 2]",
        ),
        ("ModuleList.append names from 1", "ModuleList's children are named ['1', '2', '3']"),
        ("ModuleList.append returns nothing", "did not return the ModuleList"),
        (
            "Sequential returns after the first module",
            "ran its modules in the order [0], expected [0, 1, 2]",
        ),
        ("state_dict with keep_vars inverted", "state_dict()['fc.weight'] requires grad"),
        ("state_dict keeps non-persistent buffers", "'body.cache' is a non- persistent buffer"),
        ("state_dict puts buffers first", "state_dict's keys are in the order ['count', 'w',"),
        (
            "state_dict from named_parameters and named_buffers",
            "'body.cache' is a non- persistent buffer",
        ),
        (
            "state_dict does not pass keep_vars down",
            "state_dict(keep_vars=True)['fc.weight'] is not the model's own tensor",
        ),
        ("load_state_dict copies with [:] (a 0-d buffer has no axis)", "array is 0-dimensional"),
        (
            "state_dict recurses through named_children()",
            "state_dict lists a shared module under each of its names",
        ),
        (
            "load_state_dict names the first problem only",
            "load_state_dict's error does not name 'count'",
        ),
        (
            "load_state_dict checks shapes while copying",
            "load_state_dict changed 'fc.weight' before raising",
        ),
        ("load_state_dict returns None", "load_state_dict returned None"),
        (
            "load_state_dict compares keys with the parameters only",
            "the buffer 'count' is one of the model's keys",
        ),
        (
            "log_softmax's backward sums along the last axis",
            "summed over axis 1, not along dim = 0",
        ),
        (
            "log_softmax keeps its output as ctx.out",
            "used its own output, log p, where the probabilities p belong",
        ),
        ("softmax's backward is the diagonal only", "kept only the Jacobian's diagonal"),
        ("softmax in float64 for a float32 input", "softmax of a float32 input returned float64"),
        ("label smoothing added to ignored rows", "the ignored rows kept the smoothing term"),
        (
            "label smoothing spread over the other classes",
            "the smoothing spread ε over the C − 1 other classes",
        ),
        (
            "reduction='none' returns the kept rows only",
            "reduction='none' gave 4 losses, one per kept target",
        ),
        (
            "label smoothing puts 1 − ε on the target, ε/C on the others only",
            "the target got 1 − ε and every other class ε/C",
        ),
        (
            "cross_entropy's mean gradient not divided by the count",
            "the mean's gradient was not divided by the number of rows counted",
        ),
        ("reduction='sum' returns the mean", "reduction='sum' returned the mean"),
        ("cross_entropy's backward ignores grad_output", "the backward ignored grad_output"),
        ("ignored rows still get a gradient", "the ignored rows got a gradient"),
        ("kaiming with the gain squared", "it matches the gain squared"),
        ("xavier_normal_ with the uniform's √3", "it matches √3 times the std"),
        ("kaiming's modes swapped", "it matches the other fan"),
        ("dropout in eval scales by 1 − p", "dropout in eval() scaled the input by 1 − p"),
        ("dropout with p = 1 divides by zero", "1/(1 − p) divides by zero"),
        ("dropout returns a new Tensor (no graph)", "dropout's output does not require grad"),
        ("dropout's mask in float64", "dropout of a float32 input returned float64"),
        ("dropout draws one number for the whole tensor", "one draw decided the whole tensor"),
        (
            "BatchNorm normalises with the unbiased variance",
            "normalised with the unbiased variance",
        ),
        ("BatchNorm divides by √var + eps", "eps was added to the standard deviation"),
        (
            "BatchNorm's n/(n − 1) with n the batch size",
            "running_var's n/(n − 1) took n as the batch size",
        ),
        ("BatchNorm's momentum=None taken as 0.1", "momentum=None was taken as 0.1"),
        (
            "BatchNorm without running statistics reads them in eval",
            "track_running_stats=False keeps no running statistics",
        ),
        ("BatchNorm's statistics over axis 0 only", "each channel's statistics run over N and L"),
        ("DataLoader stops a batch early", "item 9 never appeared"),
        ("DataLoader reshuffles last epoch's order", "the last epoch's order shuffled again"),
        (
            "DataLoader makes a new generator from the seed each epoch",
            "every epoch has the same order",
        ),
        (
            "DataLoader's drop_last drops a full last batch",
            "dropped the last batch [6, 7, 8], which is full",
        ),
        ("checkpoint's backward with autograd.grad", "W1.grad is None though x.grad arrived"),
        (
            "checkpoint returns gradients for fn and the rng state",
            "returned 3 gradient(s) for 1 input(s)",
        ),
        (
            "checkpoint's copies do not require grad",
            "x.grad is None while the weights inside fn got theirs",
        ),
    ],
    holes=HOLES,
    least=(60, 20),
    tasks=[f"5.{k}" for k in range(1, 13)],  # 5.13's bugs: ch05_exercises.py
    rewrites_cover=True,
)

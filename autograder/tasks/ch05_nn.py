"""Chapter 5 — modules: the task table. 5.1–5.5 make a model a tree of parameters (with the
first layer, Linear, as soon as a module can hold one); 5.6–5.7 are the losses' numerics;
5.8 starts a deep model well; 5.9–5.10 are the layers that behave differently in training;
5.11 feeds a model data; 5.12 trades time for memory."""

from . import Task

TASKS = [
    Task(
        "5.1",
        "Module.__setattr__: registration by attribute",
        8,
        "§1",
        "A Parameter goes into self._parameters[name], a Module into self._modules[name] "
        "(self._forget(name, keep=...) first); a name already in _parameters, _modules or "
        "_buffers takes the new value there (the given _check_kind has already refused the "
        "wrong kinds); anything else is object.__setattr__(self, name, value).",
    ),
    Task(
        "5.2",
        "Linear: PyTorch's default init, one operation",
        7,
        "§2",
        "reset_parameters: init.uniform_(p, −k, k) for the weight and the bias, k = "
        "1/√in_features. LinearFunction.forward: save x and weight, return x.data @ "
        "weight.data.T (+ bias.data). backward, with Tensor operations (twice differentiable): "
        "g @ W, g.T @ x, g.sum(dim=0), each None where ctx.needs_input_grad says so; 2 "
        "gradients without a bias, 3 with.",
    ),
    Task(
        "5.3",
        "the tree: named_modules, _named_members, train",
        10,
        "§3",
        "named_modules: yield (prefix, self), then each child's named_modules with prefix "
        "'prefix.name' (just 'name' at the root), skipping a module already in memo. "
        "_named_members: for each (path, module), each non-None entry of its table, named "
        "'path.name', skipping an object already seen. train: set self.training, then every "
        "child's train(mode); return self.",
    ),
    Task(
        "5.4",
        "Sequential and ModuleList",
        5,
        "§3",
        "Register every module with self.add_module(str(index), module); Sequential.forward "
        "feeds x through self._modules.values() in order.",
    ),
    Task(
        "5.5",
        "state_dict and load_state_dict",
        10,
        "§4",
        "state_dict: own parameters, then own persistent buffers (detached unless keep_vars), "
        "then child.state_dict(destination, prefix + name + '.'). load_state_dict: compare "
        "keys and shapes with self.state_dict(keep_vars=True) first, raise one RuntimeError "
        "listing missing, unexpected keys and size mismatches; then copy into target.data[...].",
    ),
    Task(
        "5.6",
        "softmax and log_softmax: the max shift",
        10,
        "§5",
        "Subtract x.max(axis=dim, keepdims=True) before exp. log_softmax = shifted − "
        "log(Σ exp(shifted)). Save x, set ctx.dim and ctx.out = softmax(x) (an array). "
        "Backward with y = _softmax_of(ctx): softmax "
        "y·(g − Σ g·y); log_softmax g − y·Σ g, sums along ctx.dim with keepdim.",
    ),
    Task(
        "5.7",
        "cross_entropy: ignore_index, label smoothing",
        13,
        "§5",
        "log p from the max shift; keep = target != ignore_index; loss = −log p[row, t], mixed "
        "with ε·mean(−log p) for smoothing, 0 where not kept; mean divides by keep.sum(). "
        "Backward: (softmax − q)·keep·g with q = (1−ε)·onehot + ε/C, / count for the mean.",
    ),
    Task(
        "5.8",
        "nn.init: xavier_* and kaiming_*",
        7,
        "§6",
        "xavier: std = gain·√(2/(fan_in + fan_out)); kaiming: std = calculate_gain(nonlinearity,"
        " a)/√fan (fan_in or fan_out by mode). The _normal versions draw N(0, std²); the "
        "_uniform versions U(−√3·std, √3·std). Use _calculate_fan_in_and_fan_out.",
    ),
    Task(
        "5.9",
        "dropout: train and eval",
        7,
        "§8",
        "Not training (or p = 0): return input. p = 1: zeros. Else keep = "
        "rng_of(generator).random(input.shape) >= p and return input * (keep / (1 − p)) as "
        "a Tensor of input's dtype.",
    ),
    Task(
        "5.10",
        "BatchNorm1d: batch statistics and running averages",
        10,
        "§8",
        "Training: mean and biased var over axes (keepdim); update running_mean/var in place "
        "with momentum (the var unbiased: × n/(n−1)) and num_batches_tracked += 1. Eval: the "
        "running buffers, reshaped. Then (x − mean)/√(var + eps)·weight + bias.",
    ),
    Task(
        "5.11",
        "DataLoader: one epoch of batches",
        7,
        "§9",
        "order = randperm(n, generator=self.generator).tolist() if shuffle else range(n); "
        "yield self._fetch(order[start:start + batch_size]) for start in range(0, n, "
        "batch_size), stopping before a short last chunk when drop_last.",
    ),
    Task(
        "5.12",
        "checkpoint: recompute instead of keep",
        6,
        "§11",
        "forward: keep fn and args on ctx and run fn under no_grad(); return the result's "
        "data. backward: detached copies of args (requires_grad as the originals), fn again "
        "under _replaying(ctx.rng_state) and enable_grad(), out.backward(grad_output), "
        "return each copy's .grad.",
    ),
]

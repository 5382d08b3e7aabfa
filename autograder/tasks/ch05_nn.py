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
        idea="A module keeps three tables (parameters, children, buffers) so that the walks "
        "can find what it holds. Ask of each assignment: what kind of thing is the value, and "
        "is the name already registered somewhere? A name lives in exactly one place, so "
        "registering it must take it out of every other; a value that is none of these kinds "
        "stays an ordinary attribute.",
        see="After a few assignments on a fresh Module, print m._parameters, m._modules, "
        "m._buffers and vars(m): each name should appear in one of them only.",
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
        idea="Linear draws its weight and bias uniformly within ±k, k depending on the number of "
        "inputs only (the default init). For the backward, write one output element as a sum and "
        "differentiate it by hand; check that each gradient has the shape of what it is the "
        "gradient of (the bias is used by every row of the batch). The backward must itself be "
        "recorded, so that it can be differentiated again.",
        see="On Linear(3, 2) and x of shape (4, 3) in float64, print each gradient's shape "
        "next to its tensor's; sp.autograd.gradcheck compares your backward with finite "
        "differences.",
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
        idea="The model is a tree, but a module or a tensor may hang in it twice. In what order "
        "does a walk meet the modules, and how is each dotted name made from its parent's? What "
        "must a walk remember so that a shared module or a tied weight comes out once? "
        "train(mode) must reach every module below.",
        see="print([n for n, _ in model.named_modules()]) on a model of two levels, a shared "
        "module and a tied weight, next to what you expect; after model.eval(), print each "
        "module's training flag.",
    ),
    Task(
        "5.4",
        "Sequential and ModuleList",
        5,
        "§3",
        "Register every module with self.add_module(str(index), module); Sequential.forward "
        "feeds x through self._modules.values() in order.",
        idea="A child is seen (by parameters(), state_dict, the walks) only if it is registered: "
        "what name has a child that has only a position? A Sequential is a chain: in what order "
        "are its modules called, and how, so that their hooks run?",
        see="print(list(seq._modules)) and a forward hook that prints each module's name as "
        "it runs.",
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
        idea="state_dict is the tree flattened into dotted names, in a fixed order (own "
        "parameters, persistent buffers, then the children); a saved value must not drag the "
        "graph along. Loading is all or nothing: what must be known before the first tensor "
        "changes? And which tensors receive the values: the model's own, or new ones?",
        see="print(list(model.state_dict())) next to named_parameters() and named_buffers(); "
        "load a dict with a key missing and check that nothing changed.",
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
        idea="exp overflows for large inputs, and softmax does not change when the same number is "
        "subtracted from every entry of a slice: which number keeps every exponent at most 0? Can "
        "log_softmax avoid the log of a probability that may round to 0? Every output of a slice "
        "depends on every input of it.",
        see="softmax and log_softmax of [[1000., 0.]] and of a (3, 4) tensor along dim 0; "
        "sp.autograd.gradcheck on a small float64 input compares your backward with finite "
        "differences.",
    ),
    Task(
        "5.7",
        "cross_entropy: ignore_index, label smoothing",
        13,
        "§5",
        "log p from the max shift; keep = target != ignore_index; loss = −log p[row, t], mixed "
        "with ε·mean(−log p) for smoothing, 0 where not kept; mean divides by keep.sum(). "
        "Backward: (softmax − q)·keep·g with q = (1−ε)·onehot + ε/C, / count for the mean.",
        idea="Cross-entropy is the negative log-probability of the target, from the stable "
        "log_softmax. An ignored target adds nothing to the loss or the gradient — and to the "
        "count a mean divides by? Label smoothing mixes the one-hot target with a uniform one "
        "over all classes. Through log and softmax the gradient needs no division.",
        see="A (3, 4) case worked by hand: one row ignored, reduction 'none' then 'mean', with "
        "and without smoothing; sp.autograd.gradcheck compares your backward with finite "
        "differences.",
    ),
    Task(
        "5.8",
        "nn.init: xavier_* and kaiming_*",
        7,
        "§6",
        "xavier: std = gain·√(2/(fan_in + fan_out)); kaiming: std = calculate_gain(nonlinearity,"
        " a)/√fan (fan_in or fan_out by mode). The _normal versions draw N(0, std²); the "
        "_uniform versions U(−√3·std, √3·std). Use _calculate_fan_in_and_fan_out.",
        idea="Each initialiser keeps the variance of the signal (forward, fan_in) or of the "
        "gradient (backward, fan_out) the same from layer to layer: a standard deviation "
        "from the fans and the gain of the nonlinearity. A uniform distribution on ±b has "
        "standard deviation b/√3. Draw from the generator you are given, or the framework's.",
        see="Fill a (200, 50) tensor and print its standard deviation (and largest value for "
        "the uniform ones) next to the formula's; plot_layer_histograms shows the per-layer "
        "activations of §6.",
    ),
    Task(
        "5.9",
        "dropout: train and eval",
        7,
        "§8",
        "Not training (or p = 0): return input. p = 1: zeros. Else keep = "
        "rng_of(generator).random(input.shape) >= p and return input * (keep / (1 − p)) as "
        "a Tensor of input's dtype.",
        idea="In training each element is dropped independently with probability p and "
        "the kept ones are scaled so that the expected value is unchanged; in eval (or with p "
        "= 0) the input passes through untouched, drawing nothing. The mask belongs in the "
        "graph, so the gradient is masked the same way.",
        see="dropout of ones((4, 5)) with p = 0.5, in training and in eval: print the output "
        "and the fraction kept over a large tensor.",
    ),
    Task(
        "5.10",
        "BatchNorm1d: batch statistics and running averages",
        10,
        "§8",
        "Training: mean and biased var over axes (keepdim); update running_mean/var in place "
        "with momentum (the var unbiased: × n/(n−1)) and num_batches_tracked += 1. Eval: the "
        "running buffers, reshaped. Then (x − mean)/√(var + eps)·weight + bias.",
        idea="In training, a channel is normalised with the batch's own mean and (biased) "
        "variance, which are folded into running averages (the variance unbiased there); eval "
        "uses the running averages and changes nothing. For (N, C, L), over which axes do a "
        "channel's statistics run? The running statistics live outside the graph.",
        see="Two training batches by hand with NumPy on a BatchNorm1d(3): print running_mean, "
        "running_var and num_batches_tracked after each, then eval().",
    ),
    Task(
        "5.11",
        "DataLoader: one epoch of batches",
        7,
        "§9",
        "order = randperm(n, generator=self.generator).tolist() if shuffle else range(n); "
        "yield self._fetch(order[start:start + batch_size]) for start in range(0, n, "
        "batch_size), stopping before a short last chunk when drop_last.",
        idea="One epoch visits every item once, in batches of batch_size, in an order drawn "
        "afresh from the generator for each epoch when shuffling; drop_last drops only a "
        "final batch that is short.",
        see="print(list(DataLoader(range(10), batch_size=3, ...))) for two epochs, with and "
        "without shuffle and drop_last.",
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
        idea="Trade time for memory: the forward keeps nothing of the segment but its inputs, so "
        "the backward must rebuild what it needs. What must the second run share with the first "
        "for its graph to be the same — the random numbers too? Which gradients must its backward "
        "reach: the inputs' only, or the weights used inside too?",
        see="plot_checkpoint_trade of §11 shows the memory kept; a weak reference to an "
        "intermediate of fn, checked after the forward, shows whether it was kept.",
    ),
    Task(
        "5.13",
        "fit_linear: linear regression, by hand",
        5,
        "§2",
        "model = nn.Linear(x.shape[1], y.shape[1], device=x.device, dtype=x.dtype); then "
        "epochs times: loss = F.mse_loss(model(x), y); loss.backward(); under no_grad(), for "
        "p in (model.weight, model.bias): p -= lr * p.grad, then p.grad = None; append "
        "loss.item(). Return model, losses.",
        since="1.1",
        idea="Gradient descent repeats one step downhill. Ask of your loop: after a step, has the "
        "model's own parameter changed, or only a name you hold? Is the move recorded in the "
        "graph (it must not be: the parameters stay leaves)? Gradients add up: onto what does the "
        "next backward add? Which weights is losses[0] the loss of?",
        see="Plot your losses on a log axis next to the least-squares line's loss "
        "(numpy.linalg.lstsq): they should fall steadily towards it; print the losses and "
        "the weights of the first three steps, and model.weight.is_leaf at the end.",
    ),
]

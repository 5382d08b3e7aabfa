"""Chapter 2 — the tensor wrapper: the task table. Every task is a local backward (a
vector-Jacobian product), except 2.11, which calls them by hand."""

from . import Task

TASKS = [
    Task(
        "2.1",
        "Add, Sub and Neg backward",
        5,
        "§3",
        "Return one gradient per input, of that input's shape: a + b passes grad_output to "
        "both, a − b passes −grad_output to b, −a passes −grad_output.",
    ),
    Task(
        "2.2",
        "Mul and Div backward",
        10,
        "§4",
        "∂(a·b)/∂a = b and ∂(a/b)/∂b = −a/b²; multiply each by grad_output, elementwise, "
        "using the saved tensors (ctx.saved_tensors). Optional, as in PyTorch: skip a "
        "gradient whose ctx.needs_input_grad[i] is False (return None).",
    ),
    Task(
        "2.3",
        "Pow backward (number exponent)",
        5,
        "§4",
        "∂(aⁿ)/∂a = n·aⁿ⁻¹ with n = ctx.exponent, times grad_output. For n = 0 the gradient "
        "is 0 everywhere (n·aⁿ⁻¹ would be 0·∞ = nan at a = 0).",
    ),
    Task(
        "2.4",
        "Exp, Log and Sqrt backward",
        10,
        "§5",
        "exp' = exp, log' = 1/a, sqrt' = 1/(2√a): recompute from the saved input with Tensor "
        "operations and multiply by grad_output.",
    ),
    Task(
        "2.5",
        "Tanh, Sigmoid, ReLU and Abs backward",
        10,
        "§5",
        "tanh' = 1 − tanh², σ' = σ(1 − σ), relu' = (a > 0), abs' = sign(a); the last two "
        "are 0 at the kink, as in PyTorch.",
    ),
    Task(
        "2.6",
        "MatMul backward (1-D, 2-D and batched)",
        15,
        "§6",
        "dA = dC @ Bᵀ and dB = Aᵀ @ dC, with transpose(-1, -2) for batches. Treat a 1-D a "
        "as a row (1, k) and a 1-D b as a column (k, 1), then remove that axis again. "
        "Optional: skip a product whose ctx.needs_input_grad[i] is False (return None).",
    ),
    Task(
        "2.7",
        "Sum and Mean backward (dim, keepdim)",
        10,
        "§7",
        "Every summed element gets the upstream gradient: reshape grad_output so the reduced "
        "axes are size 1 (ctx.axes), then copy it to a's shape. A mean also divides by n.",
    ),
    Task(
        "2.8",
        "Max backward",
        10,
        "§7",
        "Only the winner gets the gradient: along dim, the index argmax returned "
        "(ctx.indices); for a full max(), ties split it evenly.",
    ),
    Task(
        "2.9",
        "Reshape, Transpose and Permute backward",
        5,
        "§8",
        "Move the gradient back: reshape to the input's shape (ctx.shape), swap the same two "
        "axes again, or permute by the inverse permutation.",
    ),
    Task(
        "2.10",
        "Indexing backward (scatter-add)",
        10,
        "§8",
        "Zeros of the input's shape with grad_output added at the index; use scatter_add so "
        "an element picked twice receives both gradients.",
    ),
    Task(
        "2.11",
        "two_layer_backward: be the engine",
        10,
        "§10",
        "Start from ones_like(loss) and call grad_fn.backward on loss, s, r, p, a and h, in "
        "that order. r is used twice in s = r * r: add its two gradients.",
    ),
]

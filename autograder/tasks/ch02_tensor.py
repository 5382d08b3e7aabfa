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
        idea="Each local backward answers: if this input moves by a little, how does the output "
        "move? Ask it of a + b, a − b and −a, one input at a time, the others held still. One "
        "gradient per input, of that input's shape.",
        see="vjp_check(fn, *arrays) of §2 measures an op's local backward against central "
        "differences: vjp_check(lambda a, b: a - b, A, B) should print a gap near 1e-10",
    ),
    Task(
        "2.2",
        "Mul and Div backward",
        10,
        "§4",
        "∂(a·b)/∂a = b and ∂(a/b)/∂b = −a/b²; multiply each by grad_output, elementwise, "
        "using the saved tensors (ctx.saved_tensors). Optional, as in PyTorch: skip a "
        "gradient whose ctx.needs_input_grad[i] is False (return None).",
        idea="Hold one input still and nudge the other: by how much does each output element "
        "move? For a quotient, nudge the denominator: which way does the output go? Compute from "
        "the saved Tensors with Tensor operations, so that the graph records the gradient "
        "(chapter 4 differentiates it again).",
        see="vjp_check(fn, *arrays) of §2 measures an op's local backward against central "
        "differences, e.g. vjp_check(lambda a, b: a / b, A, B)",
    ),
    Task(
        "2.3",
        "Pow backward (number exponent)",
        5,
        "§4",
        "∂(aⁿ)/∂a = n·aⁿ⁻¹ with n = ctx.exponent, times grad_output. For n = 0 the gradient "
        "is 0 everywhere (n·aⁿ⁻¹ would be 0·∞ = nan at a = 0).",
        idea="n is a plain number, not an input: only a receives a gradient. What does your "
        "formula give at a = 0 for n = 0, 1 and 2? a⁰ is a constant, so its gradient is zero "
        "everywhere, even where a general formula meets 0 times infinity.",
        see="vjp_check(fn, *arrays) of §2 measures an op's local backward against central "
        "differences; try a zero base with n = 0, 1 and 2",
    ),
    Task(
        "2.4",
        "Exp, Log and Sqrt backward",
        10,
        "§5",
        "exp' = exp, log' = 1/a, sqrt' = 1/(2√a). (a,) = ctx.saved_tensors is given: "
        "recompute with a.exp() or a.sqrt() where needed (Tensor operations, not NumPy) and "
        "multiply by grad_output.",
        idea="Can each derivative be written from what the forward computed: the input, or the "
        "function's own value? Whatever you recompute from the saved input must be a Tensor "
        "operation (the graph must record it), and each gradient has its input's shape.",
        see="vjp_check(fn, *arrays) of §2 measures an op's local backward against central "
        "differences, e.g. vjp_check(lambda a: a.sqrt(), A) for a positive A",
    ),
    Task(
        "2.5",
        "Tanh, Sigmoid, ReLU and Abs backward",
        10,
        "§5",
        "tanh' = 1 − tanh², σ' = σ(1 − σ), relu' = (a > 0), abs' = sign(a); the last two "
        "are 0 at the kink, as in PyTorch. Recompute f from the saved input a with a Tensor "
        "operation (t = a.tanh(), then grad_output * (1 − t·t)); a.sigmoid() is finite for "
        "every a.",
        idea="Can tanh′ and σ′ be written from the function's own value? relu and abs have a kink "
        "at 0, where the gradient is 0 (PyTorch's choice). For inputs like ±800, ask which number "
        "on the way overflows a float, though σ′ itself is 0 there.",
        see="vjp_check(fn, *arrays) of §2 measures an op's local backward against central "
        "differences; print each backward at a = [-800, 0, 800] too",
    ),
    Task(
        "2.6",
        "MatMul backward (1-D, 2-D and batched)",
        15,
        "§6",
        "dA = dC @ Bᵀ and dB = Aᵀ @ dC, with transpose(-1, -2) for batches. Treat a 1-D a "
        "as a row (1, k) and a 1-D b as a column (k, 1), then remove that axis again. "
        "Optional: skip a product whose ctx.needs_input_grad[i] is False (return None).",
        idea="Check shapes: the gradient of A must have A's shape; which product of the upstream "
        "gradient with the other operand has it? Only the last two axes are a matrix: a batch "
        "must stay a batch. A 1-D operand is a row or a column in disguise: which, and which axis "
        "must go again at the end?",
        see="vjp_check(fn, *arrays) of §2 measures an op's local backward against central "
        "differences; print the shapes of what MatMul.backward returns for a of shape (3,) "
        "and b of shape (2, 3, 4)",
    ),
    Task(
        "2.7",
        "Sum and Mean backward (dim, keepdim)",
        10,
        "§7",
        "Every summed element gets the upstream gradient: reshape grad_output so the reduced "
        "axes are size 1 (ctx.axes lists them; the given _kept_shape(a.shape, ctx.axes) "
        "computes that shape), then multiply by ones_like(a). A mean also divides by n, the "
        "product of the reduced axes' sizes.",
        idea="Each input element went into exactly one output element, one for one: which? The "
        "gradient has the input's shape, and the upstream gradient has lost the reduced axes "
        "(unless keepdim): where must they be for the two to line up? A mean is a sum divided by "
        "how many elements were averaged.",
        see="vjp_check(fn, *arrays) of §2 measures an op's local backward against central "
        "differences; print the shape of the gradient for a of shape (2, 4, 3) and each dim, "
        "keepdim both ways",
    ),
    Task(
        "2.8",
        "Max backward",
        10,
        "§7",
        "Only the winner gets the gradient: along dim, the index argmax returned "
        "(ctx.indices); for a full max(), ties split it evenly.",
        idea="Only the winner moved the output, so only the winner receives the gradient. Along a "
        "dim the winner is the index the forward found (the first of a tie); for a full max every "
        "tied winner gets an equal share. Without keepdim, where is the reduced axis in the "
        "upstream gradient?",
        see="vjp_check(fn, *arrays) of §2 measures an op's local backward against central "
        "differences (away from ties); print the backward for a = [[2, 2], [1, 0]] and dim=1",
    ),
    Task(
        "2.9",
        "Reshape, Transpose and Permute backward",
        5,
        "§8",
        "Move the gradient back: reshape to the input's shape (ctx.shape), swap the same two "
        "axes again, or permute by the inverse permutation.",
        idea="Reshape, transpose and permute only move elements: send each gradient element back "
        "where its element came from, by undoing the move. Which transpose undoes a "
        "transpose? Which permutation undoes a permutation (not always the same one)?",
        see="vjp_check(fn, *arrays) of §2 measures an op's local backward against central "
        "differences, e.g. vjp_check(lambda a: a.permute(1, 2, 0), A) for A of shape (2, 3, "
        "4)",
    ),
    Task(
        "2.10",
        "Indexing backward (scatter-add)",
        10,
        "§8",
        "Zeros of the input's shape with grad_output added at the index; use scatter_add so "
        "an element picked twice receives both gradients.",
        idea="Indexing picks elements: a picked element moves its output one for one, an element "
        "never picked moves nothing. What does an element picked twice receive? The gradient has "
        "the input's shape and dtype.",
        see="vjp_check(fn, *arrays) of §2 measures an op's local backward against central "
        "differences, e.g. vjp_check(lambda a: a[[0, 0, 2]], A)",
    ),
    Task(
        "2.11",
        "two_layer_backward: be the engine",
        10,
        "§10",
        "Start from ones_like(loss) (∂loss/∂loss = 1) and call t.grad_fn.backward(...) for t "
        "= loss, s, r, p, a and h, in that order, unpacking each result. r is used twice in "
        "s = r * r: add its two gradients. Return (grad of w1, grad of w2).",
        idea="You are the engine: where does the walk start, and with what gradient? A node's "
        "local backward needs the gradient of its own output, so which node must come before "
        "which? A tensor used twice receives two gradients, which add up.",
        see="print each intermediate gradient's shape as you go (each must have its tensor's "
        "shape); vjp_check (§2) checks one node's local backward alone",
    ),
]

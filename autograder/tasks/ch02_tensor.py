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
        "move? One gradient per input, of that input's shape. A sum moves one for one with "
        "each input; b moves a difference the other way; negation flips every sign.",
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
        idea="The product rule, element by element: a's gradient is the upstream gradient times b,"
        " b's the upstream gradient times a. In a quotient b is in the denominator: "
        "differentiate one over b. Compute from the saved Tensors with Tensor operations, so "
        "that the graph records the gradient (chapter 4 differentiates it again).",
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
        idea="The power rule element by element, with n a plain number. a⁰ is a constant: its "
        "gradient is zero everywhere, even at a = 0, where the general formula would give 0 "
        "times infinity.",
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
        idea="exp is its own derivative, log's is one over its input, sqrt's one over twice the "
        "square root. Recompute what you need from the saved input with Tensor operations "
        "(the graph must record it) and multiply by the upstream gradient.",
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
        idea="tanh' and σ' are written from the function's own value. relu and abs have a kink at "
        "0, where the gradient is 0 (PyTorch's choice). For inputs like ±800, ask which "
        "number on the way overflows a float, though σ′ itself is 0 there.",
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
        idea="For C = AB each entry of A meets a row of B, so A's gradient is the upstream "
        "gradient times B transposed, and B's is A transposed times the upstream gradient — "
        "transposing only the last two axes, so that a batch stays a batch. A 1-D operand is "
        "a row or a column in disguise: treat it as one, then take that axis away again.",
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
        idea="A sum copies its upstream gradient to every element that went into each output: put "
        "back the reduced axes (as size 1), in their places, then spread the gradient over "
        "the input's shape. A mean is a sum divided by how many elements were averaged.",
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
        "dim the winner is the index the forward found (the first of a tie); for a full max "
        "every tied winner gets an equal share. Without keepdim the reduced axis is gone from"
        " the upstream gradient: it must come back in its place.",
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
        idea="Indexing picks elements; the gradient is zeros of the input's shape with the "
        "upstream gradient put back where the elements were picked, added, since an element "
        "picked twice receives both. Keep the input's dtype.",
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
        idea="You are the engine: the loss's gradient with respect to itself is 1; walk from the "
        "loss back to the weights, calling each node's local backward with the gradient of "
        "its own output. A tensor used twice receives two gradients, which add up.",
        see="print each intermediate gradient's shape as you go (each must have its tensor's "
        "shape); vjp_check (§2) checks one node's local backward alone",
    ),
]

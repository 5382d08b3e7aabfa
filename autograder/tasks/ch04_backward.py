"""Chapter 4 — the stack-and-counter backward engine: the task table. 4.1 and 4.2 are
Kahn's algorithm (count, then a stack of ready vertices); 4.3 and 4.4 are the two ends of a
pass; 4.5 says when a graph is recorded; 4.6 builds derivatives of functions on the engine."""

from . import Task

TASKS = [
    Task(
        "4.1",
        "count_dependencies(roots)",
        20,
        "§3",
        "Depth-first with an explicit stack from the roots (which start at 0): for every "
        "vertex popped, add 1 to the count of each of parents(v), once per edge (x * x is "
        "two), and push a parent only the first time you see it (a set of seen vertices).",
    ),
    Task(
        "4.2",
        "backward_pass: the ready stack",
        35,
        "§4",
        "pending = {root: seed}; ready = the roots whose count is 0. Pop a vertex, pop its "
        "gradient, run its hooks (a returned Tensor replaces the gradient), deliver it; for a "
        "Node, call v.backward(grad, create_graph), release it unless retain_graph, add each "
        "input's gradient to pending[vertex(x)] out of place, count it down, push it at 0.",
    ),
    Task(
        "4.3",
        "accumulate(tensor, grad): .grad as a running sum",
        10,
        "§5",
        "tensor.grad = grad the first time, else tensor.grad + grad (or tensor.grad += grad: "
        "keep_grad hands you a copy only this tensor holds). Add with Tensor operations, never "
        "on .data: with create_graph=True the sum must stay in the graph.",
    ),
    Task(
        "4.4",
        "seed(output, gradient): where backward starts",
        10,
        "§6",
        "No gradient: ones_like(output) if output has one element, else PyTorch's "
        "RuntimeError. A gradient: a Tensor of output's shape (else a RuntimeError naming "
        "both shapes), cast to output's dtype if it differs.",
    ),
    Task(
        "4.5",
        "no_grad, enable_grad, set_grad_enabled",
        10,
        "§8",
        "On the way in, self.previous = _set_grad_enabled(mode); on the way out, "
        "_set_grad_enabled(self.previous). set_grad_enabled sets its mode in __init__.",
    ),
    Task(
        "4.6",
        "functional.jvp and hessian",
        15,
        "§10",
        "jvp: for dummies w = zeros_like(y).requires_grad_(), g = grad(y, x, w, "
        "create_graph=True) is Jᵀw; grad(g, w, u) is J u. hessian: the jacobian of the "
        "function x ↦ grad(f(x), x, create_graph=True).",
    ),
]

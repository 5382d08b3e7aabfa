"""Chapter 4 — the stack-and-counter backward engine: the task table. 4.1 and 4.2 are
Kahn's algorithm (count, then a stack of ready vertices); 4.3 and 4.4 are the two ends of a
pass; 4.5 says when a graph is recorded; 4.6 builds derivatives of functions on the engine.
Each task's help comes in stages (``autograder.tasks``): the report's diagnosis and ``see``,
then ``idea`` (words only), then ``hint`` (the recipe), then the notebook's section."""

from . import Task

TASKS = [
    Task(
        "4.1",
        "count_dependencies(roots)",
        20,
        "§3",
        "Depth-first with an explicit stack from the roots (which start at 0): for every "
        "vertex popped, add 1 to the count of each of parents(v), once per edge (x * x is "
        "two), and push a parent only the first time you see it (a set of seen vertices). A "
        "root listed twice is one vertex; a leaf that requires grad is a vertex with no "
        "parents.",
        idea="A vertex's count is the number of contributions it will receive: one for every "
        "edge into it from a vertex the roots reach. Ask of each vertex: how many arrows point "
        "at it? An arrow counts each time, even from a vertex you have seen before, and "
        "even twice from one node (x * x); but each vertex is explored only once, roots "
        "included, and a root that another root reaches waits like any other vertex.",
        see="draw_tensor_graph(out, names) draws every edge (x * x: two arrows into x): count the "
        "arrows into each vertex and compare with what your count_dependencies returns on the "
        "same graph",
    ),
    Task(
        "4.2",
        "backward_pass: the ready stack",
        35,
        "§4",
        "pending = {root: seed} (a root given twice: the sum of its seeds); ready = the "
        "distinct roots whose count is 0. While ready: pop a vertex, pop its gradient from "
        "pending (None: it received only None), run its hooks (a returned Tensor replaces the "
        "gradient), deliver it; for a Node, grads = v.backward(grad, create_graph) (all None "
        "if grad is None), v.release() unless retain_graph (and only after its backward "
        "ran); for each input x that requires grad, with its gradient g: p = vertex(x); if g "
        "is not None, pending[p] = g, or pending[p] + g (out of place, a new Tensor); "
        "counts[p] -= 1 (None or not: it has arrived), and push p when it reaches 0. Keep "
        "pending and ready local to the call, ready a list.",
        idea="Kahn's algorithm: a vertex may run only when all of its contributions have "
        "arrived, that is when its count reaches 0, and then exactly once. Ask at each pop: "
        "has this vertex heard from every vertex that uses it? What the engine holds for a "
        "vertex is given away as soon as it has run (its gradient, and its saved tensors "
        "unless the graph is kept), and everything the pass remembers belongs to that one "
        "call, because a backward may start another pass.",
        see="print(format_trace(trace_backward(out, names))) shows every pop with the "
        'contributions still awaited ("early!": a vertex popped before all of them arrived; '
        '"again!": popped twice); watch_memory shows what stays alive as the pass goes',
    ),
    Task(
        "4.3",
        "accumulate(tensor, grad): .grad as a running sum",
        10,
        "§5",
        "tensor.grad = grad the first time, else tensor.grad + grad (or tensor.grad += grad: "
        "keep_grad hands you a copy only this tensor holds). Add with Tensor operations, never "
        "on .data (tensor.grad.data += grad.data is invisible to autograd): with "
        "create_graph=True the sum must stay in the graph.",
        idea=".grad is a running sum over every backward: the first gradient becomes it, "
        "later ones are added. With create_graph=True the gradients are themselves recorded "
        "results, and the sum must be one too: ask whether what you store could still be "
        "differentiated with respect to each gradient passed.",
        see="t.grad.requires_grad after each call with gradients that require grad (True "
        "every time), and draw_tensor_graph(t.grad, names) draws what the sum was made of",
    ),
    Task(
        "4.4",
        "seed(output, gradient): where backward starts",
        10,
        "§6",
        "No gradient: ones_like(output) if output has one element, else PyTorch's "
        "RuntimeError. A gradient: a Tensor of output's shape (else a RuntimeError naming "
        "both shapes), cast to output's dtype if it differs, returned as it is otherwise (it "
        "may require grad).",
        idea="The seed is ∂out/∂out as backward starts it: for a one-element output with no "
        "gradient given it is 1, a constant; a gradient given is used as it is, whatever "
        "out's size, but only if it has out's shape, and in out's dtype. A given gradient "
        "that requires grad must stay on its graph (jvp differentiates through it).",
        see="seed(out, g) on a small out, printing its shape, dtype, values and "
        "requires_grad next to out's",
    ),
    Task(
        "4.5",
        "no_grad, enable_grad, set_grad_enabled",
        10,
        "§8",
        "On the way in, self.previous = _set_grad_enabled(mode); on the way out, "
        "_set_grad_enabled(self.previous), returning nothing. set_grad_enabled sets its mode "
        "in __init__ (so a plain call works too).",
        idea="Each block switches the recording mode on the way in and, on the way out, puts "
        "back the mode that was there before it: not a fixed mode, and not another block's "
        "(each block remembers its own, blocks nest in blocks of their own kind). Leaving by "
        "an exception still puts the mode back, and the exception still comes out.",
        see="is_grad_enabled() printed before, inside and after each block (nested ones, and "
        "one left by raising)",
    ),
    Task(
        "4.6",
        "functional.jvp and hessian",
        15,
        "§10",
        "jvp: for dummies w = zeros_like(y).requires_grad_() (one per output), g = grad(y, "
        "x, w, create_graph=True) is Jᵀw; grad(g, w, u) is J u. hessian: the jacobian of the "
        "function x ↦ grad(f(x), x, create_graph=True) (every input). For a single Tensor "
        "input (and output), return the Tensor itself; results detached unless "
        "create_graph.",
        idea="The engine gives vector-Jacobian products (Jᵀw). J u comes from differentiating "
        "Jᵀw once more, this time with respect to w; a Hessian is the Jacobian of a "
        "gradient. Both need the first derivative recorded as a function, of w or of x, "
        "and the results nested as PyTorch nests them: one item per output, one block per "
        "pair of inputs.",
        see="jvp and hessian on f(x) = (x * x).sum() for x of shape (2,), against what you "
        "work out by hand (J u = 2·x·u, H = 2·I), printing requires_grad too",
    ),
    Task(
        "4.7",
        "newton_step(f, x): Newton's method",
        10,
        "§10",
        "Call f once on x.detach() and refuse a result of more than one element (a "
        "RuntimeError saying scalar). The gradient: functional.vjp(f, x)[1]; the Hessian: "
        "functional.hessian(f, x). With n = x.numel(), _host(...) of each reshaped to (n, n) "
        "and (n,); np.linalg.matrix_rank(H) < n: a RuntimeError saying singular. Else s = "
        "np.linalg.solve(H, g), and return _like(_host(x).reshape(n) - s, x).",
        since="1.1",
        idea="Newton's method replaces f near x by the quadratic with f's gradient and "
        "Hessian there, and jumps to where that quadratic is flat: the step solves H·s = ∇f "
        "and goes against it. Ask which way a step must go to go downhill, and what the "
        "Hessian does that a learning rate cannot (it scales and turns the step, in every "
        "direction at once). A quadratic is its own model: one step must land on its "
        "minimum. Where the Hessian has no inverse, or f has no single value to minimise, "
        "there is no Newton step: say so.",
        see="newton_step on f(x) = ½xᵀAx − bᵀx for a small A you choose: one step must land "
        "on np.linalg.solve(A, b); print your step next to that and next to x − ∇f",
    ),
    Task(
        "4.8",
        "jit.trace: replay the recorded operations",
        10,
        "§11",
        "Check that inputs has as many Tensors as traced.inputs, of the same shapes (else a "
        "RuntimeError naming both lists of shapes). A dict from id(recorded tensor) to its "
        "new tensor, starting with the inputs. For each op of traced.tape: its args and "
        "kwargs with every Tensor looked up by id (kept when absent: a constant), then "
        "out = op.function.apply(*args, **kwargs), and the dict maps id(op.output) to out. "
        "Return traced.output looked up the same way (each item of a tuple).",
        since="1.1",
        idea="The tape is the program: it says which operation ran, on which tensors, with "
        "which other arguments. Replaying it means running the same operations in the same "
        "order, where every tensor the trace saw is replaced by the one that stands for it "
        "now: the new input for an example input, the new result for a result made during "
        "the trace, and the same tensor for anything else (a constant, a weight). fn itself "
        "is never called again, and the replayed operations are applied as any operation "
        "is, so that backward can go through them. A trace holds for the shapes it saw.",
        see="print(traced) lists the recorded operations; replay on the example inputs "
        "themselves and on new ones, printing each result next to fn's own and, after "
        "backward(), the input's .grad",
    ),
]

"""Chapter 1 — scalar autograd (Value): the task table."""

from . import Task

TASKS = [
    Task(
        "1.1",
        "central_difference",
        10,
        "§1",
        "Use both sides of x: (f(x + eps) - f(x - eps)) / (2 * eps). The one-sided "
        "difference is less accurate, and the check can tell.",
        idea="A derivative is a slope: a rise divided by a run. Look at f a little to the "
        "left and a little to the right of x, the same distance each way, so that the errors "
        "of the two sides cancel. How far apart are the two points you divide by?",
        see="§1's plot of the error against eps: a central difference's error falls like "
        "eps², a one-sided one's only like eps; print central_difference(f, 2.0) for "
        "f(x) = x**3 next to the exact 12",
    ),
    Task(
        "1.2",
        "Value.__add__ (forward and local derivative)",
        10,
        "§3",
        "Create out = Value(a + b, (self, other), '+'), define a _backward() in which both "
        "inputs receive out.grad with += (a Value used twice must collect both shares), store "
        "it as out._backward, and return out.",
        idea="The result must remember the two Values it was made from, or backward() can "
        "never reach them. Moving either input by a little moves a + b by the same amount, "
        "so each input's share is the upstream gradient itself. A Value can be used twice "
        "(x + x): a share is added to what its grad already holds, never written over it.",
        see="draw_graph(out) after out.backward() draws each Value with its data and grad, "
        "and an arrow from each input it remembers",
    ),
    Task(
        "1.3",
        "Value.__mul__ (forward and local derivative)",
        10,
        "§3",
        "As for +, with '*': out = Value(a · b, (self, other), '*') and a _backward() stored "
        "as out._backward. ∂(a·b)/∂a = b: self.grad += other.data * out.grad, and "
        "symmetrically for other.",
        idea="Moving a by a little moves a·b by b times as much: each input's local "
        "derivative is the other input's value. Multiply it by the upstream gradient and "
        "add it to the input's grad, as for addition.",
        see="draw_graph(out) after out.backward() shows each input's grad; compare one with "
        "central_difference on the same expression",
    ),
    Task(
        "1.4",
        "Value.__pow__ (number exponent)",
        10,
        "§4",
        "∂(aⁿ)/∂a = n·aⁿ⁻¹, times out.grad; the exponent is a plain number, not a Value. No "
        "special case at a = 0 but n = 0, whose gradient is 0 everywhere (§4 states the rule).",
        idea="The power rule, with the exponent a plain number (it has no gradient of its "
        "own). At a zero base ask, for each kind of n, what the slope really is: a number, "
        "zero because x⁰ is a constant, or no number at all (and then an error, as Python's "
        "floats raise one).",
        see="x.grad after out._backward() next to central_difference(lambda t: t ** n, x) "
        "at a point away from 0; §4's table for a zero base",
    ),
    Task(
        "1.5",
        "Value.exp and Value.log",
        15,
        "§4",
        "∂eᵃ/∂a = eᵃ (which is out.data); ∂ln(a)/∂a = 1/a. Multiply by out.grad and use +=.",
        idea="eˣ is its own derivative, so exp's local derivative is the value it just "
        "computed. The derivative of log is one over its input, the x it was given, not over "
        "what it returned. Both shares are times the upstream gradient, and added.",
        see="x.grad after out._backward() next to central_difference(math.log, x) at x = 2",
    ),
    Task(
        "1.6",
        "Value.tanh, Value.sigmoid and Value.relu",
        15,
        "§5",
        "tanh' = 1 - tanh², σ' = σ(1 - σ), relu' = 1 where the input is positive, else 0 "
        "(0 at the kink too). Keep tanh and sigmoid finite for large |a| (math.tanh; no exp "
        "that overflows).",
        idea="tanh' and σ' are simplest written from the value the forward computed. relu "
        "lets the gradient through only where its input is positive; at 0 it passes nothing, "
        "as in PyTorch. For inputs in the hundreds, ask which number on the way is too large "
        "for a float, though the answer itself is close to 0 or 1.",
        see="§5's plot of each activation's derivative against central_difference; try "
        "each of them at x = ±800",
    ),
    Task(
        "1.7",
        "topological_order (iterative)",
        15,
        "§6",
        "Depth-first search with an explicit stack: emit a node after all of its children, "
        "visit each node once (keep the visited Values in a set, not a list), and never "
        "recurse (a 100,000-node chain must work). An entry on the stack must say which of its "
        "two visits it is: a pair (node, children_done), say.",
        idea="Each Value must come after every Value it was made from, and the root last. "
        "A depth-first walk lists a node once all its children are listed; a stack you keep "
        "yourself replaces Python's call stack (which a long chain overflows), and each entry "
        "must say whether its children are done. Remember the Values already visited, by "
        "identity and in something you can look up quickly, so a shared subgraph is walked "
        "once.",
        see="draw_graph(root) for §6's diamond, then print the order your function returns: "
        "each Value must appear once, after its inputs",
    ),
    Task(
        "1.8",
        "Value.backward",
        15,
        "§7",
        "Set self.grad = 1, then call _backward() on every node in reversed(topological_order"
        "(self)).",
        idea="The root's derivative with respect to itself is 1: that starts the chain. A "
        "node may hand its gradient on only once it has received all of it, from every node "
        "that uses it, so visit the nodes from the root back towards the leaves, each once.",
        see="draw_graph(root) after root.backward() shows every grad; compare a leaf's with "
        "central_difference",
    ),
]

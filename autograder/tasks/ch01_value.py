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
    ),
    Task(
        "1.2",
        "Value.__add__ (forward and local derivative)",
        10,
        "§3",
        "out = Value(a + b, (self, other), '+'); in _backward both inputs receive out.grad "
        "with += (a Value used twice must collect both shares).",
    ),
    Task(
        "1.3",
        "Value.__mul__ (forward and local derivative)",
        10,
        "§3",
        "∂(a·b)/∂a = b: self.grad += other.data * out.grad, and symmetrically for other.",
    ),
    Task(
        "1.4",
        "Value.__pow__ (number exponent)",
        10,
        "§4",
        "∂(aⁿ)/∂a = n·aⁿ⁻¹, times out.grad; the exponent is a plain number, not a Value. No "
        "special case at a = 0 but n = 0, whose gradient is 0 everywhere (§4 states the rule).",
    ),
    Task(
        "1.5",
        "Value.exp and Value.log",
        15,
        "§4",
        "∂eᵃ/∂a = eᵃ (which is out.data); ∂ln(a)/∂a = 1/a. Multiply by out.grad and use +=.",
    ),
    Task(
        "1.6",
        "Value.tanh, Value.sigmoid and Value.relu",
        15,
        "§5",
        "tanh' = 1 - tanh², σ' = σ(1 - σ), relu' = 1 where the input is positive, else 0 "
        "(0 at the kink too). Keep tanh and sigmoid finite for large |a| (math.tanh; no exp "
        "that overflows).",
    ),
    Task(
        "1.7",
        "topological_order (iterative)",
        15,
        "§6",
        "Depth-first search with an explicit stack: emit a node after all of its children, "
        "visit each node once (keep the visited Values in a set, not a list), and never "
        "recurse (a 100,000-node chain must work).",
    ),
    Task(
        "1.8",
        "Value.backward",
        15,
        "§7",
        "Set self.grad = 1, then call _backward() on every node in reversed(topological_order"
        "(self)).",
    ),
]

"""Chapter 1's broken set: plausible student bugs in the central difference, the ops'
local derivatives, ``topological_order`` and ``backward``, each with the words its task's
first failing check must say (``DIAGNOSES``, the set's ``says``), and unusual but correct
rewrites (judged by tests/test_variants.py)."""

from __future__ import annotations

from functools import partial

from tests.trees import edits
from tests.variants import VariantSet

edits = partial(edits, "ch01_value")

RECURSIVE_TOPO = """
import sys

sys.setrecursionlimit(1_000_000)  # Python 3.11+ then recurses 100,000 deep without crashing
order, visited = [], set()

def build(v):
    if v not in visited:
        visited.add(v)
        for child in v._prev:
            build(child)
        order.append(v)

build(root)
return order
"""

NO_VISITED_SET = """
order, stack = [], [(root, False)]
while stack:
    node, children_done = stack.pop()
    if children_done:
        order.append(node)
        continue
    stack.append((node, True))
    stack.extend((child, False) for child in node._prev)
return order
"""

DEDUPLICATED_OUTPUT = """
order, stack = [], [(root, False)]
while stack:
    node, children_done = stack.pop()
    if children_done:
        order.append(node)
        continue
    stack.append((node, True))
    stack.extend((child, False) for child in node._prev)
seen = set()
return [node for node in order if not (node in seen or seen.add(node))]
"""

# (name, file, edit, the task it breaks): see tests/trees.py
VARIANTS = [
    # bugs that only show when an input already holds a gradient, or in a default value
    (
        "central difference with another default eps",
        "numerical.py",
        ("eps: float = 1e-6", "eps: float = 1e-5"),
        "1.1",
    ),
    (
        "add assigns to its second input",
        "value.py",
        ("            other.grad += out.grad\n", "            other.grad = out.grad\n"),
        "1.2",
    ),
    (
        "mul assigns to its second input",
        "value.py",
        ("other.grad += self.data * out.grad", "other.grad = self.data * out.grad"),
        "1.3",
    ),
    (
        "pow assigns instead of accumulating",
        "value.py",
        ("self.grad += (exponent *", "self.grad = (exponent *"),
        "1.4",
    ),
    (
        "backward adds the seed instead of setting it",
        "value.py",
        ("        self.grad = 1.0\n", "        self.grad += 1.0\n"),
        "1.8",
    ),
    (
        "forward difference",
        "numerical.py",
        ("(f(x + eps) - f(x - eps)) / (2 * eps)", "(f(x + eps) - f(x)) / eps"),
        "1.1",
    ),
    (
        "central difference without the 2",
        "numerical.py",
        ("(f(x + eps) - f(x - eps)) / (2 * eps)", "(f(x + eps) - f(x - eps)) / eps"),
        "1.1",
    ),
    (
        "add assigns instead of accumulating",
        "value.py",
        (
            "            self.grad += out.grad\n            other.grad += out.grad",
            "            self.grad = out.grad\n            other.grad = out.grad",
        ),
        "1.2",
    ),
    (
        "add forgets its children",
        "value.py",
        ('Value(self.data + other.data, (self, other), "+")', "Value(self.data + other.data)"),
        "1.2",
    ),
    (
        "mul uses its own data",
        "value.py",
        ("self.grad += other.data * out.grad", "self.grad += self.data * out.grad"),
        "1.3",
    ),
    (
        "pow forgets the exponent factor",
        "value.py",
        (
            "(exponent * self.data ** (exponent - 1)) * out.grad",
            "(self.data ** (exponent - 1)) * out.grad",
        ),
        "1.4",
    ),
    (
        "exp forgets the upstream gradient",
        "value.py",
        ("self.grad += out.data * out.grad", "self.grad += out.data"),
        "1.5",
    ),
    (
        "log differentiates with the output",
        "value.py",
        ("(1 / self.data) * out.grad", "(1 / out.data) * out.grad"),
        "1.5",
    ),
    (
        "tanh' written as 1 - tanh",
        "value.py",
        ("(1 - t**2) * out.grad", "(1 - t) * out.grad"),
        "1.6",
    ),
    (
        "sigmoid overflows for large negative inputs",
        "value.py",
        (
            "1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))",
            "1 / (1 + math.exp(-x))",
        ),
        "1.6",
    ),
    (
        "relu lets gradients through negative inputs",
        "value.py",
        ("(out.data > 0) * out.grad", "out.grad"),
        "1.6",
    ),
    ("recursive topological sort", "graph.py", ("region", RECURSIVE_TOPO), "1.7"),
    ("topological sort without a visited set", "graph.py", ("region", NO_VISITED_SET), "1.7"),
    # the rules the notebook states, each with a public case (the hidden ones have others)
    (
        "relu lets the gradient through at 0",
        "value.py",
        ("(out.data > 0) * out.grad", "(self.data >= 0) * out.grad"),
        "1.6",
    ),
    (
        "tanh written with exp, which overflows for large x",
        "value.py",
        (
            "t = math.tanh(self.data)",
            "t = (math.exp(2 * self.data) - 1) / (math.exp(2 * self.data) + 1)",
        ),
        "1.6",
    ),
    (
        "pow's derivative as n * out / x, which divides by a zero base",
        "value.py",
        (
            "(exponent * self.data ** (exponent - 1)) * out.grad",
            "(exponent * out.data / self.data) * out.grad",
        ),
        "1.4",
    ),
    # ** at a zero base (§4): each exponent whose answer differs has a public case
    (
        "pow guards a zero base with 0",
        "value.py",
        (
            "(exponent * self.data ** (exponent - 1)) * out.grad",
            "(exponent * self.data ** (exponent - 1) if self.data != 0 else 0.0) * out.grad",
        ),
        "1.4",
    ),
    (
        "pow takes 0⁰ as 0 (x ** 1 at a zero base)",
        "value.py",
        (
            "self.data ** (exponent - 1)) * out.grad",
            "(0.0 if self.data == 0 and exponent == 1 else self.data ** (exponent - 1)))"
            " * out.grad",
        ),
        "1.4",
    ),
    (
        "pow without the n = 0 case (micrograd's formula divides by a zero base)",
        "value.py",
        (
            "            if exponent != 0:  # a⁰ = 1 is a constant: it adds nothing, even at"
            " a = 0\n                self.grad +=",
            "            self.grad +=",
        ),
        "1.4",
    ),
    (
        "pow swallows the ZeroDivisionError of an infinite slope",
        "value.py",
        (
            "                self.grad += (exponent * self.data ** (exponent - 1)) * out.grad\n",
            "                try:\n"
            "                    slope = exponent * self.data ** (exponent - 1)\n"
            "                except ZeroDivisionError:\n"
            "                    slope = 0.0\n"
            "                self.grad += slope * out.grad\n",
        ),
        "1.4",
    ),
    (
        "pow computes its slope in the forward (x ** 0.5 at a zero base raises)",
        "value.py",
        edits(
            "value.py",
            (
                '        out = Value(self.data**exponent, (self,), f"**{exponent}")',
                "        slope = exponent * self.data ** (exponent - 1) if exponent != 0 else 0.0\n"
                '        out = Value(self.data**exponent, (self,), f"**{exponent}")',
            ),
            (
                "            if exponent != 0:  # a⁰ = 1 is a constant: it adds nothing, even at"
                " a = 0\n                self.grad += (exponent * self.data ** (exponent - 1))"
                " * out.grad",
                "            self.grad += slope * out.grad",
            ),
        ),
        "1.4",
    ),
    (
        "pow gives inf for a negative power of 0 (PyTorch's answer)",
        "value.py",
        (
            "Value(self.data**exponent, (self,)",
            "Value(self.data**exponent if self.data or exponent >= 0 else math.inf, (self,)",
        ),
        "1.4",
    ),
    (
        "exp rounded to float32 (float64 tolerances: rtol 1e-9)",
        "value.py",
        (
            'out = Value(math.exp(self.data), (self,), "exp")',
            'out = Value(float(__import__("numpy").float32(math.exp(self.data))), (self,), "exp")',
        ),
        "1.5",
    ),
    # costs that blow up: exponential in shared subgraphs, quadratic in the chain's length
    (
        "topological sort that de-duplicates its output instead of keeping a visited set",
        "graph.py",
        ("region", DEDUPLICATED_OUTPUT),
        "1.7",
    ),
    (
        "topological sort with a visited list",
        "graph.py",
        edits(
            "graph.py",
            (
                (
                    "order: list[Value] = []\n"
                    "    visited: set[int] = set()\n"
                    "    stack: list[tuple[Value, bool]] = [(root, False)]"
                ),
                "order, visited, stack = [], [], [(root, False)]",
            ),
            ("if id(node)", "if node"),
            ("add(id(node))", "append(node)"),
            ("id(child)", "child"),
        ),
        "1.7",
    ),
    (
        "topological order with the root first",
        "graph.py",
        ("    return order\n", "    return order[::-1]\n"),
        "1.7",
    ),
    (
        "topological sort that tells Values by data",
        "graph.py",
        edits(
            "graph.py",
            (
                (
                    "order: list[Value] = []\n"
                    "    visited: set[int] = set()\n"
                    "    stack: list[tuple[Value, bool]] = [(root, False)]"
                ),
                "order, visited, stack = [], set(), [(root, False)]",
            ),
            ("if id(node)", "if node.data"),
            ("id(node)", "node.data"),
            ("id(child)", "child.data"),
        ),
        "1.7",
    ),
    (
        "backward re-walks the graph below each node",
        "value.py",
        edits(
            "value.py",
            (
                "node._backward()",
                (
                    "node._backward()\n"
                    "            topological_order(node)  # re-walks the graph below"
                    " each node: quadratic"
                ),
            ),
        ),
        "1.8",
    ),
    # messages that name the mistake
    (
        "backward zeroes every grad first",
        "value.py",
        edits(
            "value.py",
            (
                "### BEGIN SOLUTION 1.8",
                (
                    "### BEGIN SOLUTION 1.8\n"
                    "        order = topological_order(self)\n"
                    "        for node in order:\n"
                    "            node.grad = 0.0"
                ),
            ),
            ("reversed(topological_order(self))", "reversed(order)"),
        ),
        "1.8",
    ),
    (
        "mul's local derivative with a flipped sign",
        "value.py",
        ("self.grad += other.data * out.grad", "self.grad -= other.data * out.grad"),
        "1.3",
    ),
    (
        "tanh forgets the upstream gradient",
        "value.py",
        ("(1 - t**2) * out.grad", "(1 - t**2)"),
        "1.6",
    ),
    ("backward forgets the seed gradient", "value.py", ("        self.grad = 1.0\n", ""), "1.8"),
    (
        "backward walks the graph leaves first",
        "value.py",
        ("for node in reversed(topological_order(self)):", "for node in topological_order(self):"),
        "1.8",
    ),
]


# variant: words its task's first failing check must say (the diagnosis, not only the numbers)
DIAGNOSES = {
    "central difference with another default eps": "eps = 1e-05: the default must be 1e-6",
    "forward difference": "the forward difference",
    "central difference without the 2": "the 2 in 2·eps is missing",
    "add assigns to its second input": "the second contribution replaced the first",
    "mul assigns to its second input": "the second contribution replaced the first",
    "pow assigns instead of accumulating": "x held 0.75 before and _backward replaced it",
    "mul uses its own data": "x's own data instead of y's",
    "mul's local derivative with a flipped sign": "the sign is flipped",
    "pow forgets the exponent factor": "without the factor n",
    "exp forgets the upstream gradient": "the upstream gradient out.grad",
    "tanh forgets the upstream gradient": "the upstream gradient out.grad",
    "tanh' written as 1 - tanh": "1 − tanh(x) instead of 1 − tanh²(x)",
    "relu lets gradients through negative inputs": "relu passes the gradient only where x > 0",
    "relu lets the gradient through at 0": "relu'(0) is 0",
    "tanh written with exp, which overflows for large x": "OverflowError",
    "pow's derivative as n * out / x, which divides by a zero base": "ZeroDivisionError",
    "pow guards a zero base with 0": "x¹ = x has slope 1 everywhere",
    "pow takes 0⁰ as 0 (x ** 1 at a zero base)": "n·0ⁿ⁻¹ = 1·0⁰ = 1",
    "pow without the n = 0 case (micrograd's formula divides by a zero base)": (
        "x⁰ = 1 is a constant, so its local derivative is 0 everywhere"
    ),
    "pow swallows the ZeroDivisionError of an infinite slope": (
        "a guard or an except that gives a number hides it"
    ),
    "pow computes its slope in the forward (x ** 0.5 at a zero base raises)": (
        "the error belongs in out._backward()"
    ),
    "pow gives inf for a negative power of 0 (PyTorch's answer)": (
        "Value(1) / Value(0) raises as 1 / 0 does"
    ),
    "topological sort without a visited set": "a appears twice",
    "topological sort that de-duplicates its output instead of keeping a visited set": (
        "once for every path from the root"
    ),
    "topological sort with a visited list": "compared Values with ==",
    "topological order with the root first": "the list is reversed, the root first",
    "topological sort that tells Values by data": "never by their data",
    "exp rounded to float32 (float64 tolerances: rtol 1e-9)": "float32's rounding",
    "backward re-walks the graph below each node": "walks the graph more than once per call",
    "backward zeroes every grad first": "held 0.5 before backward() and lost it",
    "backward adds the seed instead of setting it": "not add 1 to it",
    "backward forgets the seed gradient": "must set the root's grad to 1 first",
    "backward walks the graph leaves first": "the _backward calls ran inputs first",
    "add assigns instead of accumulating": "the second contribution replaced the first",
    "add forgets its children": "out does not remember x as one of the Values it was made from",
    "log differentiates with the output": "1/log(x), one over out.data, instead of 1/x",
    "sigmoid overflows for large negative inputs": (
        "x.sigmoid() raised OverflowError (math range error) at x = -800: a number on the way "
        "is too large for a float"
    ),
    "recursive topological sort": "it recurses, once per node",
}

KAHN = """
nodes, seen, stack = [], {id(root)}, [root]
while stack:  # every Value reachable from the root
    node = stack.pop()
    nodes.append(node)
    for child in node._prev:
        if id(child) not in seen:
            seen.add(id(child))
            stack.append(child)
users = {id(node): 0 for node in nodes}
for node in nodes:
    for child in node._prev:
        users[id(child)] += 1
order, ready = [], [root]
while ready:  # Kahn: a Value leaves once every user has left, then reverse
    node = ready.pop()
    order.append(node)
    for child in node._prev:
        users[id(child)] -= 1
        if users[id(child)] == 0:
            ready.append(child)
return order[::-1]
"""

PEEKING = """
order, visited, stack = [], set(), [root]
while stack:  # look at the top; push one unvisited input at a time, or finish the top
    node = stack[-1]
    pending = [child for child in node._prev if child not in visited]
    if pending:
        visited.add(pending[0])
        stack.append(pending[0])
    else:
        order.append(stack.pop())
return order
"""

ITERATORS = """
order, visited, stack = [], {id(root)}, [(root, iter(root._prev))]
while stack:
    node, children = stack[-1]
    child = next(children, None)
    if child is None:
        stack.pop()
        order.append(node)
    elif id(child) not in visited:
        visited.add(id(child))
        stack.append((child, iter(child._prev)))
return order
"""

BACKWARD_SKIPS_LEAVES = """
self.grad = 1.0
order = topological_order(self)
for node in order[::-1]:
    if node._prev:  # a leaf has nothing to pass on
        node._backward()
"""

# Unusual but correct code: every public and hidden check passes (name, file, edit, task)
CORRECT = [
    (
        "pow with math.pow (ValueError where 0.0 ** n raises ZeroDivisionError)",
        "value.py",
        edits(
            "value.py",
            ("Value(self.data**exponent,", "Value(math.pow(self.data, exponent),"),
            ("self.data ** (exponent - 1)", "math.pow(self.data, exponent - 1)"),
        ),
        "1.4",
    ),
    (
        "pow with n = 0 as a constant node",
        "value.py",
        edits(
            "value.py",
            (
                '        out = Value(self.data**exponent, (self,), f"**{exponent}")',
                "        if exponent == 0:  # x⁰ = 1: a constant, whose _backward adds nothing\n"
                '            return Value(1.0, (self,), "**0")\n'
                '        out = Value(self.data**exponent, (self,), f"**{exponent}")',
            ),
            (
                "            if exponent != 0:  # a⁰ = 1 is a constant: it adds nothing, even at"
                " a = 0\n                self.grad +=",
                "            self.grad +=",
            ),
        ),
        "1.4",
    ),
    ("topological order by Kahn's algorithm", "graph.py", ("region", KAHN), "1.7"),
    ("topological order that peeks at the stack", "graph.py", ("region", PEEKING), "1.7"),
    ("topological order with an iterator per Value", "graph.py", ("region", ITERATORS), "1.7"),
    ("backward that skips the leaves", "value.py", ("region", BACKWARD_SKIPS_LEAVES), "1.8"),
    (
        "tanh' from the output Value",
        "value.py",
        ("(1 - t**2) * out.grad", "(1 - out.data * out.data) * out.grad"),
        "1.6",
    ),
    (
        "central difference halved after dividing",
        "numerical.py",
        ("(f(x + eps) - f(x - eps)) / (2 * eps)", "(f(x + eps) - f(x - eps)) / eps / 2"),
        "1.1",
    ),
]


SET = VariantSet(
    1,
    "broken",
    VARIANTS,
    CORRECT,
    says=list(DIAGNOSES.items()),
    least=(8, 0),
)

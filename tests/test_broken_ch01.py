"""Deliberately broken chapter-1 variants: plausible student bugs. Each must fail the task it
breaks, and no other task may fail because of it: every other task passes with full points,
except where a check cannot avoid running the broken code; that check reports "blocked by
task N.k" (and its share of the points is not earned). This is what shows the checks can
fail, and that a bug in one task is never reported as a failure of another."""

from __future__ import annotations

import pytest

from tests.trees import assert_fails_its_task_only, check_variants

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
    ("backward forgets the seed gradient", "value.py", ("        self.grad = 1.0\n", ""), "1.8"),
    (
        "backward walks the graph leaves first",
        "value.py",
        ("for node in reversed(topological_order(self)):", "for node in topological_order(self):"),
        "1.8",
    ),
]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return check_variants(1, VARIANTS, tmp_path_factory.mktemp("variants"))


def test_there_are_enough_variants() -> None:
    assert len(VARIANTS) >= 8
    assert {task for *_, task in VARIANTS} == {f"1.{i}" for i in range(1, 9)}


@pytest.mark.parametrize(("name", "file", "edit", "task"), VARIANTS, ids=[v[0] for v in VARIANTS])
def test_variant_fails_its_task_only(
    outcomes: dict, name: str, file: str, edit: tuple, task: str
) -> None:
    assert_fails_its_task_only(outcomes[name], task)

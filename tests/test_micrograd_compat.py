"""Chapter 1 against micrograd: code written for micrograd runs unchanged and agrees.

micrograd (``pip install -r requirements-oracles.txt``) is the oracle: every test here runs
one function twice, once with ``micrograd.engine.Value`` and once with the reference
``Value``, and compares the numbers. Without micrograd the whole file is skipped, visibly.

Only the reference (``solutions``) is tested here, never the student tree (``chapters``).
"""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

micrograd = pytest.importorskip("micrograd")
mg_engine = pytest.importorskip("micrograd.engine")
mg_nn = pytest.importorskip("micrograd.nn")

from solutions import ch01_value as ref  # noqa: E402

MG = mg_engine.Value
OURS = ref.Value
CLASSES = pytest.mark.parametrize("Value", [MG, OURS], ids=["micrograd", "sparrow"])


def _close(x: float, y: float, rel: float = 1e-9, abs_: float = 1e-12) -> bool:
    return math.isclose(x, y, rel_tol=rel, abs_tol=abs_)


def _graph(root) -> list:
    """Every node reachable from ``root`` (the test's own walk, for either class)."""
    seen: dict[int, object] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen[id(node)] = node
            stack.extend(node._prev)
    return list(seen.values())


# --------------------------------------------------------------------------------------------
# micrograd's README example
# --------------------------------------------------------------------------------------------


def readme_example(Value):
    """micrograd's README, verbatim except that ``Value`` is a parameter."""
    a = Value(-4.0)
    b = Value(2.0)
    c = a + b
    d = a * b + b**3
    c += c + 1
    c += 1 + c + (-a)
    d += d * 2 + (b + a).relu()
    d += 3 * d + (b - a).relu()
    e = c - d
    f = e**2
    g = f / 2.0
    g += 10.0 / f
    g.backward()
    return a, b, g


def test_readme_example_matches_micrograd():
    a_mg, b_mg, g_mg = readme_example(MG)
    a, b, g = readme_example(OURS)
    assert g.data == pytest.approx(g_mg.data, rel=1e-12)
    assert a.grad == pytest.approx(a_mg.grad, rel=1e-12)
    assert b.grad == pytest.approx(b_mg.grad, rel=1e-12)
    # the numbers the README prints
    assert f"{g.data:.4f}" == "24.7041"
    assert f"{a.grad:.4f}" == "138.8338"
    assert f"{b.grad:.4f}" == "645.5773"


# --------------------------------------------------------------------------------------------
# random expression programs
# --------------------------------------------------------------------------------------------

N_LEAVES = 3
BINARY = ("+", "-", "*", "/")
WITH_NUMBER = ("x+c", "x-c", "x*c", "x/c", "c+x", "c-x", "c*x", "c/x")
EXPONENTS = (2, 3, -1, -2, 0, 1, 0.5, 1.5, -0.5, 2.5)

_index = st.integers(0, 50)  # taken modulo the number of values computed so far
_number = st.one_of(
    st.sampled_from([1, 2, -1, -3]),
    st.floats(0.25, 3.0),
    st.floats(-3.0, -0.25),
)
_instruction = st.one_of(
    st.tuples(st.sampled_from(BINARY), _index, _index),
    st.tuples(st.sampled_from(WITH_NUMBER), _index, _number),
    st.tuples(st.just("**"), _index, st.sampled_from(EXPONENTS)),
    st.tuples(st.sampled_from(["neg", "relu"]), _index, st.none()),
)
_programs = st.lists(_instruction, min_size=1, max_size=12)
_leaf_data = st.lists(st.floats(-3.0, 3.0), min_size=N_LEAVES, max_size=N_LEAVES)


OPS = {
    "+": lambda x, y: x + y,
    "-": lambda x, y: x - y,
    "*": lambda x, y: x * y,
    "/": lambda x, y: x / y,
    "x+c": lambda x, c: x + c,
    "x-c": lambda x, c: x - c,
    "x*c": lambda x, c: x * c,
    "x/c": lambda x, c: x / c,
    "c+x": lambda x, c: c + x,
    "c-x": lambda x, c: c - x,
    "c*x": lambda x, c: c * x,
    "c/x": lambda x, c: c / x,
    "**": lambda x, n: x**n,
    "relu": lambda x, _: x.relu(),
    "neg": lambda x, _: -x,
}


def run_program(Value, leaf_data, program, guard):
    """Build the program's graph with ``Value``; ``guard(ok)`` rejects unsafe steps.

    Each instruction reads earlier values (indices wrap around) and appends its result; the
    last value is the output. Unsafe: a division by ~0, a fractional power of a non-positive
    base, ReLU at its kink, or a value so large that rounding differences would dominate.
    """
    leaves = [Value(x) for x in leaf_data]
    vals = list(leaves)
    for op, i, arg in program:
        x = vals[i % len(vals)]
        operand = vals[arg % len(vals)] if op in BINARY else arg
        if op == "/":
            guard(abs(operand.data) > 0.1)
        elif op == "c/x":
            guard(abs(x.data) > 0.1)
        elif op == "**" and not float(arg).is_integer():
            guard(x.data > 0.1)  # a fractional power: positive bases only
        elif op == "**" and arg < 1:  # the derivative n·x^(n-1) needs x != 0
            guard(abs(x.data) > 0.1)
        elif op == "relu":
            guard(abs(x.data) > 1e-6)
        result = OPS[op](x, operand)
        guard(abs(result.data) < 1e6)
        vals.append(result)
    return leaves, vals[-1]


def _no_guard(ok: bool) -> None:
    pass


@settings(derandomize=True, database=None, max_examples=150, deadline=None)
@given(leaf_data=_leaf_data, program=_programs)
def test_random_programs_match_micrograd(leaf_data, program):
    mg_leaves, mg_out = run_program(MG, leaf_data, program, assume)
    leaves, out = run_program(OURS, leaf_data, program, _no_guard)
    mg_out.backward()
    out.backward()

    assert _close(out.data, mg_out.data), (out.data, mg_out.data)
    for k, (ours, theirs) in enumerate(zip(leaves, mg_leaves)):
        assert _close(ours.grad, theirs.grad), (k, ours.grad, theirs.grad)
    # the same graph: as many nodes, with the same operation symbols
    assert Counter(n._op for n in _graph(out)) == Counter(n._op for n in _graph(mg_out))


# --------------------------------------------------------------------------------------------
# micrograd.nn against ref.nn
# --------------------------------------------------------------------------------------------

ARCHITECTURES = [(3, [4, 4, 1]), (2, [3, 2]), (4, [1]), (1, [5, 5, 5, 2])]


def _copy_parameters(ours, theirs) -> None:
    for p, q in zip(ours.parameters(), theirs.parameters()):
        p.data = q.data


def _expected_order(mlp) -> list[int]:
    """micrograd's parameter order, written out: layer by layer, neuron by neuron, w then b."""
    return [id(p) for layer in mlp.layers for n in layer.neurons for p in [*n.w, n.b]]


@pytest.mark.parametrize("nin, nouts", ARCHITECTURES)
def test_mlp_structure_matches_micrograd(nin, nouts):
    random.seed(0)
    theirs = mg_nn.MLP(nin, nouts)
    ours = ref.nn.MLP(nin, nouts, rng=random.Random(1))

    assert repr(ours) == repr(theirs)
    assert [repr(layer) for layer in ours.layers] == [repr(layer) for layer in theirs.layers]
    sizes = [nin, *nouts]
    n_params = sum((sizes[i] + 1) * sizes[i + 1] for i in range(len(nouts)))
    assert len(ours.parameters()) == len(theirs.parameters()) == n_params
    assert [id(p) for p in ours.parameters()] == _expected_order(ours)
    assert [id(p) for p in theirs.parameters()] == _expected_order(theirs)
    assert all(isinstance(p, OURS) for p in ours.parameters())


@pytest.mark.parametrize("nin, nouts", ARCHITECTURES)
def test_mlp_forward_and_backward_match_micrograd(nin, nouts):
    random.seed(1)
    theirs = mg_nn.MLP(nin, nouts)
    ours = ref.nn.MLP(nin, nouts, rng=random.Random(2))
    _copy_parameters(ours, theirs)
    rng = random.Random(3)
    x_data = [rng.uniform(-2, 2) for _ in range(nin)]

    def loss(model, Value):
        xs = [Value(v) for v in x_data]
        out = model(xs)
        outs = out if isinstance(out, list) else [out]
        total = sum(((0.5 - o) ** 2 for o in outs), Value(0.0))
        total.backward()
        return xs, outs, total

    mg_xs, mg_outs, mg_total = loss(theirs, MG)
    xs, outs, total = loss(ours, OURS)

    assert len(outs) == len(mg_outs) == nouts[-1]
    for o, q in zip(outs, mg_outs):
        assert _close(o.data, q.data)
    assert _close(total.data, mg_total.data)
    assert Counter(n._op for n in _graph(total)) == Counter(n._op for n in _graph(mg_total))
    for p, q in zip(ours.parameters(), theirs.parameters()):
        assert _close(p.grad, q.grad), (p.grad, q.grad)
    for v, w in zip(xs, mg_xs):
        assert _close(v.grad, w.grad)
    assert any(p.grad != 0 for p in ours.parameters())  # the comparison was not vacuous

    ours.zero_grad()
    theirs.zero_grad()
    assert all(p.grad == 0 for p in ours.parameters())
    assert all(p.grad == 0 for p in theirs.parameters())


def train(model, steps: int) -> list[float]:
    """micrograd's demo training loop (hinge loss, L2, SGD with decay) on six fixed points."""
    X = [[2.0, 1.0], [1.5, -0.5], [0.5, 1.5], [-1.0, -1.0], [-2.0, 0.5], [-0.5, -1.5]]
    y = [1, 1, 1, -1, -1, -1]
    losses = []
    for k in range(steps):
        scores = [model(list(x)) for x in X]
        data_loss = sum((1 + -yi * si).relu() for yi, si in zip(y, scores)) * (1.0 / len(X))
        reg_loss = 1e-4 * sum(p * p for p in model.parameters())
        total = data_loss + reg_loss
        model.zero_grad()
        total.backward()
        learning_rate = 1.0 - 0.9 * k / steps
        for p in model.parameters():
            p.data -= learning_rate * p.grad
        losses.append(total.data)
    return losses


def test_micrograd_training_loop_runs_unchanged():
    random.seed(4)
    theirs = mg_nn.MLP(2, [8, 8, 1])
    ours = ref.nn.MLP(2, [8, 8, 1], rng=random.Random(5))
    _copy_parameters(ours, theirs)

    mg_losses = train(theirs, 8)
    losses = train(ours, 8)

    assert len(losses) == 8
    for a, b in zip(losses, mg_losses):
        assert _close(a, b, rel=1e-8), (losses, mg_losses)
    for p, q in zip(ours.parameters(), theirs.parameters()):
        assert _close(p.data, q.data, rel=1e-8, abs_=1e-10)
    assert losses[-1] < losses[0]  # it did learn something


# --------------------------------------------------------------------------------------------
# attribute-level compatibility: data, grad, _prev, _op, _backward
# --------------------------------------------------------------------------------------------

# name, expression, which of (a, b) are direct children (None: derived, compared by data)
EXPRESSIONS = [
    ("a + b", lambda a, b: a + b, "ab"),
    ("a * b", lambda a, b: a * b, "ab"),
    ("a * a", lambda a, b: a * a, "a"),
    ("a + a", lambda a, b: a + a, "a"),
    ("relu(a)", lambda a, b: a.relu(), "a"),
    ("relu(b)", lambda a, b: b.relu(), "b"),
    ("a ** 2", lambda a, b: a**2, "a"),
    ("a ** 0.5", lambda a, b: a**0.5, "a"),
    ("a ** -1", lambda a, b: a**-1, "a"),
    ("-a", lambda a, b: -a, None),
    ("a - b", lambda a, b: a - b, None),
    ("a / b", lambda a, b: a / b, None),
    ("a + 2", lambda a, b: a + 2, None),
    ("2 + a", lambda a, b: 2 + a, None),
    ("3 - a", lambda a, b: 3 - a, None),
    ("2 * a", lambda a, b: 2 * a, None),
    ("1 / a", lambda a, b: 1 / a, None),
    ("a - 2", lambda a, b: a - 2, None),
    ("a / 2", lambda a, b: a / 2, None),
]


@pytest.mark.parametrize(
    "name, expr, direct", EXPRESSIONS, ids=[getattr(e, "values", e)[0] for e in EXPRESSIONS]
)
def test_graph_attributes_match_micrograd(name, expr, direct):
    a_mg, b_mg = MG(3.0), MG(-2.0)
    a, b = OURS(3.0), OURS(-2.0)
    out_mg = expr(a_mg, b_mg)
    out = expr(a, b)

    assert out._op == out_mg._op
    assert out.data == out_mg.data
    assert len(out._prev) == len(out_mg._prev)
    assert sorted(c.data for c in out._prev) == sorted(c.data for c in out_mg._prev)
    assert sorted(c._op for c in out._prev) == sorted(c._op for c in out_mg._prev)
    if direct is not None:
        named = {"a": a, "b": b}
        named_mg = {"a": a_mg, "b": b_mg}
        assert set(out._prev) == {named[k] for k in direct}
        assert set(out_mg._prev) == {named_mg[k] for k in direct}


@pytest.mark.parametrize(
    "expr, op", [(lambda a: a + 1, "+"), (lambda a: a * 2, "*"), (lambda a: a.relu(), "ReLU")]
)
@CLASSES
def test_op_symbols(Value, expr, op):
    assert expr(Value(2.0))._op == op


@pytest.mark.parametrize("exponent, op", [(2, "**2"), (3, "**3"), (-1, "**-1"), (0.5, "**0.5")])
@CLASSES
def test_power_op_symbols(Value, exponent, op):
    assert (Value(2.0) ** exponent)._op == op


@CLASSES
def test_leaf_attributes(Value):
    a = Value(2.5)
    assert a.data == 2.5
    assert a.grad == 0
    assert len(a._prev) == 0
    assert a._op == ""
    assert a._backward() is None  # a leaf's backward step does nothing
    assert a.grad == 0


@CLASSES
def test_manual_backward_steps(Value):
    """Calling ``_backward`` by hand, as micrograd's lecture does, one node at a time."""
    a, b, c = Value(2.0), Value(-3.0), Value(10.0)
    e = a * b
    d = e + c
    d.grad = 1.0
    d._backward()
    assert (e.grad, c.grad) == (1.0, 1.0)
    e._backward()
    assert (a.grad, b.grad) == (-3.0, 2.0)


@CLASSES
def test_data_and_grad_are_plain_writable_attributes(Value):
    a = Value(1.0)
    a.data = 4.0
    assert (a * 2).data == 8.0
    a.grad = 0.25
    assert a.grad == 0.25


@CLASSES
def test_values_compare_by_identity(Value):
    a, b = Value(1.0), Value(1.0)
    assert a != b
    assert len({a, b, a}) == 2  # hashable: graphs keep them in sets


def test_repr_matches_micrograd():
    a_mg, a = MG(1.5), OURS(1.5)
    a_mg.grad = a.grad = -0.25
    assert repr(a) == repr(a_mg) == "Value(data=1.5, grad=-0.25)"


@CLASSES
def test_backward_twice(Value):
    """micrograd's semantics, which ours keeps: the root's grad is reset to 1, others add up."""
    x = Value(2.0)
    u = x * x
    y = u + x
    y.backward()
    y.backward()
    # first pass: u.grad = 1, x.grad = 1 + 2x·1 = 5; second: u.grad = 2, x.grad = 5 + 1 + 2x·2
    assert (y.grad, u.grad, x.grad) == (1, 2, 14)

"""Chapter 1's reference ``Value``, ``topological_order`` and ``central_difference``.

Every expected number is computed independently of the code under test: by hand, or by a
float64 central difference written here (not ``ref.central_difference``). Only the reference
(``solutions``) is tested, never the student tree (``chapters``); micrograd is not needed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from solutions import ch01_value as ref

Value = ref.Value


# --------------------------------------------------------------------------------------------
# (a) bad input: a clear error that names the problem
# --------------------------------------------------------------------------------------------

# what to run, the error, words its message must contain
BAD_INPUTS = [
    ("Value('a')", lambda: Value("a"), TypeError, ["str", "real number"]),
    ("Value(None)", lambda: Value(None), TypeError, ["NoneType", "real number"]),
    ("Value([1.0])", lambda: Value([1.0]), TypeError, ["list", "real number"]),
    ("Value(1+2j)", lambda: Value(1 + 2j), TypeError, ["complex", "real number"]),
    ("Value(vector)", lambda: Value(np.array([1.0, 2.0])), TypeError, ["shape", "(2,)"]),
    ("Value(matrix)", lambda: Value(np.zeros((2, 3))), TypeError, ["shape", "(2, 3)"]),
    ("Value(Value(1))", lambda: Value(Value(1)), TypeError, ["Value", "already"]),
    ("Value(1) + 'a'", lambda: Value(1) + "a", TypeError, ["+", "str"]),
    ("'a' + Value(1)", lambda: "a" + Value(1), TypeError, ["+", "str"]),
    ("Value(1) * 'a'", lambda: Value(1) * "a", TypeError, ["*", "str"]),
    ("'a' * Value(1)", lambda: "a" * Value(1), TypeError, ["*", "str"]),
    ("Value(1) - 'a'", lambda: Value(1) - "a", TypeError, ["-", "str"]),
    ("'a' - Value(1)", lambda: "a" - Value(1), TypeError, ["-", "str"]),
    ("Value(1) / 'a'", lambda: Value(1) / "a", TypeError, ["/", "str"]),
    ("'a' / Value(1)", lambda: "a" / Value(1), TypeError, ["/", "str"]),
    ("Value(1) + None", lambda: Value(1) + None, TypeError, ["+", "NoneType"]),
    ("Value(1) * [2]", lambda: Value(1) * [2], TypeError, ["*", "list"]),
    ("Value(1) + 1j", lambda: Value(1) + 1j, TypeError, ["+", "complex"]),
    ("Value(2) ** Value(3)", lambda: Value(2) ** Value(3), TypeError, ["exponent", "Value"]),
    ("Value(2) ** 'a'", lambda: Value(2) ** "a", TypeError, ["exponent", "str"]),
    ("2 ** Value(3)", lambda: 2 ** Value(3), TypeError, ["**", "Value"]),
    ("Value(-1).log()", lambda: Value(-1).log(), ValueError, ["log", "positive"]),
    ("Value(0).log()", lambda: Value(0).log(), ValueError, ["log", "positive"]),
    ("Value.backward(3.0)", lambda: Value.backward(3.0), TypeError, ["Value", "float"]),
    ("Value(1.0, (2.0,))", lambda: Value(1.0, (2.0,)), TypeError, ["_children", "float"]),
]


@pytest.mark.parametrize(
    "name, thunk, error, words", BAD_INPUTS, ids=[case[0] for case in BAD_INPUTS]
)
def test_bad_input_gets_a_clear_error(name, thunk, error, words):
    with pytest.raises(error) as info:
        thunk()
    message = str(info.value)
    for word in words:
        assert word in message, f"{name}: {word!r} not in {message!r}"


def test_a_failed_operation_leaves_its_operands_alone():
    a = Value(2.0)
    with pytest.raises(TypeError):
        a + "x"
    assert (a.data, a.grad, a._prev) == (2.0, 0.0, ())


# --------------------------------------------------------------------------------------------
# (b) numpy scalars are numbers
# --------------------------------------------------------------------------------------------

NUMPY_SCALARS = [np.float64(1.5), np.float32(1.5), np.int64(3)]


@pytest.mark.parametrize("s", NUMPY_SCALARS, ids=lambda s: type(s).__name__)
def test_numpy_scalar_as_data(s):
    x = Value(s)
    assert x.data == s
    y = x * x + 2 * x
    y.backward()
    assert y.data == float(s) ** 2 + 2 * float(s)
    assert x.grad == 2 * float(s) + 2


@pytest.mark.parametrize("s", NUMPY_SCALARS, ids=lambda s: type(s).__name__)
@pytest.mark.parametrize(
    "expr, data, grad",  # x = 4.0; expected data and dx, by hand, for s the scalar
    [
        (lambda x, s: x + s, lambda s: 4 + s, lambda s: 1),
        (lambda x, s: s + x, lambda s: s + 4, lambda s: 1),
        (lambda x, s: x - s, lambda s: 4 - s, lambda s: 1),
        (lambda x, s: s - x, lambda s: s - 4, lambda s: -1),
        (lambda x, s: x * s, lambda s: 4 * s, lambda s: s),
        (lambda x, s: s * x, lambda s: s * 4, lambda s: s),
        (lambda x, s: s / x, lambda s: s / 4, lambda s: -s / 16),
        (lambda x, s: x**s, lambda s: 4**s, lambda s: s * 4 ** (s - 1)),
    ],
    ids=["x+s", "s+x", "x-s", "s-x", "x*s", "s*x", "s/x", "x**s"],
)
def test_numpy_scalar_as_operand(expr, data, grad, s):
    x = Value(4.0)
    out = expr(x, s)
    assert isinstance(out, Value)  # not a numpy array of Values
    out.backward()
    v = float(s)
    assert out.data == pytest.approx(data(v), rel=1e-6)  # float32 operands: float32 rounding
    assert x.grad == pytest.approx(grad(v), rel=1e-6)


@pytest.mark.parametrize(
    "s",
    [
        np.float64(2.0),
        np.float32(2.0),
        np.int64(2),
    ],
    ids=lambda s: type(s).__name__,
)
def test_division_by_a_numpy_scalar(s):
    x = Value(3.0)
    out = x / s
    out.backward()
    assert out.data == 1.5
    assert x.grad == 0.5


# --------------------------------------------------------------------------------------------
# (c) deep graphs: no recursion, and shared subgraphs visited once
# --------------------------------------------------------------------------------------------

CHAIN = 100_000


@pytest.fixture(scope="module")
def long_chain():
    x = Value(1.0)
    y = x
    for _ in range(CHAIN):
        y = y.relu()  # one node per step; relu(1) = 1, d/dx = 1
    return x, y


def test_backward_through_a_chain_of_100000_values(long_chain):
    x, y = long_chain
    y.backward()  # a recursive topological sort would raise RecursionError here
    assert y.data == 1.0
    assert x.grad == 1.0


def test_topological_order_of_a_chain_of_100000_values(long_chain):
    x, y = long_chain
    order = ref.topological_order(y)
    assert len(order) == CHAIN + 1
    assert order[0] is x
    assert order[-1] is y
    assert len({id(node) for node in order}) == CHAIN + 1


def test_doubling_ladder_visits_each_node_once():
    """y = y + y, 20 times: 2²⁰ paths from the root to x, but only 21 nodes.

    (20, not more: a search that forgot which nodes it visited fails in a second, not hangs.)
    """
    x = Value(1.0)
    y = x
    for _ in range(20):
        y = y + y
    assert len(ref.topological_order(y)) == 21
    y.backward()
    assert y.data == 2.0**20
    assert x.grad == 2.0**20  # d(2²⁰x)/dx


# --------------------------------------------------------------------------------------------
# (d) gradients against the test's own central difference
# --------------------------------------------------------------------------------------------


def _exp(v):
    return v.exp() if isinstance(v, Value) else math.exp(v)


def _log(v):
    return v.log() if isinstance(v, Value) else math.log(v)


def _tanh(v):
    return v.tanh() if isinstance(v, Value) else math.tanh(v)


def _sigmoid(v):
    return v.sigmoid() if isinstance(v, Value) else 1.0 / (1.0 + math.exp(-v))


def _relu(v):
    return v.relu() if isinstance(v, Value) else max(0.0, v)


def _partial(f: Callable[..., float], args: tuple[float, ...], i: int) -> float:
    """∂f/∂argᵢ by a float64 central difference, with a step scaled to the argument."""
    h = 1e-6 * max(1.0, abs(args[i]))
    up = list(args)
    down = list(args)
    up[i] += h
    down[i] -= h
    return (f(*up) - f(*down)) / (up[i] - down[i])


REAL = st.floats(-5.0, 5.0)
NONZERO = st.floats(0.5, 5.0) | st.floats(-5.0, -0.5)
POSITIVE = st.floats(0.2, 5.0)


@dataclass(frozen=True)
class Case:
    name: str
    f: Callable  # written once with operators and _exp/_log/...: runs on Values and on floats
    domains: tuple
    valid: Callable[..., bool] = lambda *args: True  # away from kinks the domains allow


CASES = [
    Case("a + b", lambda a, b: a + b, (REAL, REAL)),
    Case("a - b", lambda a, b: a - b, (REAL, REAL)),
    Case("a * b", lambda a, b: a * b, (REAL, REAL)),
    Case("a / b", lambda a, b: a / b, (REAL, NONZERO)),
    Case("-a", lambda a: -a, (REAL,)),
    Case("a + 2.5", lambda a: a + 2.5, (REAL,)),
    Case("2.5 + a", lambda a: 2.5 + a, (REAL,)),
    Case("a - 2.5", lambda a: a - 2.5, (REAL,)),
    Case("2.5 - a", lambda a: 2.5 - a, (REAL,)),
    Case("a * 2.5", lambda a: a * 2.5, (REAL,)),
    Case("2.5 * a", lambda a: 2.5 * a, (REAL,)),
    Case("a / 2.5", lambda a: a / 2.5, (REAL,)),
    Case("2.5 / a", lambda a: 2.5 / a, (NONZERO,)),
    *[Case(f"a ** {n}", lambda a, n=n: a**n, (NONZERO,)) for n in (0, 1, 2, 3, -1, -2)],
    *[Case(f"a ** {n}", lambda a, n=n: a**n, (POSITIVE,)) for n in (0.5, 1.5, -0.5, 2.5)],
    Case("exp(a)", lambda a: _exp(a), (st.floats(-10.0, 5.0),)),
    Case("log(a)", lambda a: _log(a), (st.floats(0.05, 100.0),)),
    Case("tanh(a)", lambda a: _tanh(a), (REAL,)),
    Case("sigmoid(a)", lambda a: _sigmoid(a), (st.floats(-20.0, 20.0),)),
    Case("relu(a)", lambda a: _relu(a), (st.floats(0.01, 5.0) | st.floats(-5.0, -0.01),)),
    # composites: a value used twice, chains of the ops above
    Case("a * a + a", lambda a: a * a + a, (REAL,)),
    Case("tanh(a * b + c)", lambda a, b, c: _tanh(a * b + c), (REAL, REAL, REAL)),
    Case("(a² + b²) ** 0.5", lambda a, b: (a**2 + b**2) ** 0.5, (NONZERO, NONZERO)),
    Case("sigmoid(a) * log(b)", lambda a, b: _sigmoid(a) * _log(b), (REAL, POSITIVE)),
    Case("log(1 + exp(a))", lambda a: _log(1 + _exp(a)), (REAL,)),
    Case("a³ - a / b", lambda a, b: a * a * a - a / b, (REAL, NONZERO)),
    Case("exp(tanh(a) * b) - 2 / a", lambda a, b: _exp(_tanh(a) * b) - 2 / a, (NONZERO, REAL)),
    Case(
        "relu(a - b) / (1 + a * a)",
        lambda a, b: _relu(a - b) / (1 + a * a),
        (REAL, REAL),
        valid=lambda a, b: abs(a - b) > 0.01,
    ),
    Case(
        "neuron: relu(w1 x1 + w2 x2 + b)",
        lambda w1, x1, w2, x2, b: _relu(w1 * x1 + w2 * x2 + b),
        (REAL, REAL, REAL, REAL, REAL),
        valid=lambda w1, x1, w2, x2, b: abs(w1 * x1 + w2 * x2 + b) > 0.01,
    ),
    Case(
        "logistic loss",
        lambda w, x, y: -(y * _log(_sigmoid(w * x)) + (1 - y) * _log(1 - _sigmoid(w * x))),
        (st.floats(-2.0, 2.0), st.floats(-2.0, 2.0), st.floats(0.0, 1.0)),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
@given(data=st.data())
def test_gradient_matches_central_difference(case, data):
    args = tuple(data.draw(domain, label=f"arg{i}") for i, domain in enumerate(case.domains))
    assume(case.valid(*args))
    leaves = [Value(x) for x in args]
    out = case.f(*leaves)
    out.backward()

    expected = case.f(*args)
    assert out.data == pytest.approx(expected, rel=1e-12, abs=1e-15)
    for i, leaf in enumerate(leaves):
        numeric = _partial(case.f, args, i)
        assert math.isclose(leaf.grad, numeric, rel_tol=1e-5, abs_tol=1e-6 * (1 + abs(expected)))


@pytest.mark.parametrize("x", [800.0, -800.0, 1000.0, -1000.0])
def test_sigmoid_saturates_without_overflow(x):
    a = Value(x)
    out = a.sigmoid()
    out.backward()
    # σ(±800) is 1 or 3.7e-348 (which rounds to 0); σ' = e^(-800)/(1 + e^(-800))² rounds to 0
    assert out.data == (1.0 if x > 0 else 0.0)
    assert a.grad == 0.0


@pytest.mark.parametrize("x", [-700.0, -100.0, -40.0])
def test_sigmoid_is_accurate_far_left(x):
    """For x ≪ 0, σ(x) = eˣ/(1 + eˣ) = eˣ to double precision, and so is σ'(x)."""
    a = Value(x)
    out = a.sigmoid()
    out.backward()
    assert out.data == pytest.approx(math.exp(x), rel=1e-15)
    assert a.grad == pytest.approx(math.exp(x), rel=1e-15)


@pytest.mark.parametrize("x", [700.0, 100.0, 40.0])
def test_sigmoid_is_accurate_far_right(x):
    a = Value(x)
    out = a.sigmoid()
    out.backward()
    assert out.data == 1.0  # 1 − e⁻ˣ rounds to 1
    assert a.grad == pytest.approx(0.0, abs=1e-17)  # σ' = e⁻ˣ/(1 + e⁻ˣ)², below 4.3e-18


# --------------------------------------------------------------------------------------------
# (e) accumulation: a Value used more than once, and backward() called twice
# --------------------------------------------------------------------------------------------


@given(a=REAL)
def test_a_value_used_twice_sums_its_gradients(a):
    x = Value(a)
    out = x * x + x
    out.backward()
    assert x.grad == pytest.approx(2 * a + 1, rel=1e-12, abs=1e-12)


@given(a=REAL, b=REAL, c=REAL)
def test_product_of_sums_sharing_a_leaf(a, b, c):
    x, y, z = Value(a), Value(b), Value(c)
    out = (x + y) * (x + z)
    out.backward()
    assert x.grad == pytest.approx((a + c) + (a + b), rel=1e-12, abs=1e-12)
    assert y.grad == pytest.approx(a + c, rel=1e-12, abs=1e-12)
    assert z.grad == pytest.approx(a + b, rel=1e-12, abs=1e-12)


def test_backward_twice_on_a_root_over_leaves_doubles_their_grads():
    a, b = Value(3.0), Value(-2.0)
    out = a * b
    out.backward()
    out.backward()
    assert (out.grad, a.grad, b.grad) == (1.0, -4.0, 6.0)  # 2·b, 2·a


def test_backward_twice_follows_micrograd():
    """micrograd's rule, kept for compatibility: backward() sets root.grad = 1 and adds into
    every other node, intermediate nodes included, so their stale grads flow again.

    x = 2, u = x·x, y = u + x.
    first:  y.grad = 1, u.grad = 1, x.grad = 1 (via y) + 2x·u.grad = 1 + 4 = 5
    second: y.grad = 1, u.grad = 1 + 1 = 2, x.grad = 5 + 1 + 2x·2 = 14 (not 2·5)
    """
    x = Value(2.0)
    u = x * x
    y = u + x
    y.backward()
    assert (y.grad, u.grad, x.grad) == (1.0, 1.0, 5.0)
    y.backward()
    assert (y.grad, u.grad, x.grad) == (1.0, 2.0, 14.0)


def test_resetting_every_grad_makes_backward_repeatable():
    x = Value(2.0)
    y = (x * x + x).tanh() * x
    y.backward()
    first = x.grad
    for node in ref.topological_order(y):
        node.grad = 0.0
    y.backward()
    assert x.grad == first
    t = math.tanh(6.0)  # by hand: y = x·tanh(x² + x), y' = tanh(…) + x(1 − tanh²(…))(2x + 1)
    assert first == pytest.approx(t + 2.0 * (1 - t**2) * 5.0, rel=1e-12)


# --------------------------------------------------------------------------------------------
# (f) topological_order on random DAGs
# --------------------------------------------------------------------------------------------


@st.composite
def dags(draw):
    """Node i's children: a list (duplicates allowed) of earlier nodes; a root to sort from."""
    n = draw(st.integers(1, 25))
    children = [[]]
    for i in range(1, n):
        children.append(draw(st.lists(st.integers(0, i - 1), max_size=4)))
    root = draw(st.integers(0, n - 1))
    return children, root


@given(dag=dags())
def test_topological_order_on_random_dags(dag):
    children, root = dag
    nodes: list[Value] = []
    for kids in children:
        nodes.append(Value(0.0, [nodes[j] for j in kids]))
    index = {id(node): i for i, node in enumerate(nodes)}

    reachable = set()  # the test's own search, over the integer adjacency lists
    stack = [root]
    while stack:
        i = stack.pop()
        if i not in reachable:
            reachable.add(i)
            stack.extend(children[i])

    order = [index[id(node)] for node in ref.topological_order(nodes[root])]
    assert len(order) == len(set(order))  # each node once
    assert set(order) == reachable  # every reachable node, nothing else
    assert order[-1] == root
    position = {i: k for k, i in enumerate(order)}
    for i in order:
        for j in children[i]:
            assert position[j] < position[i]  # children before parents


def test_topological_order_of_a_leaf_is_the_leaf():
    a = Value(1.0)
    assert ref.topological_order(a) == [a]


# --------------------------------------------------------------------------------------------
# (g) central_difference
# --------------------------------------------------------------------------------------------

COEF = st.floats(-10.0, 10.0)


@given(a=COEF, b=COEF, c=COEF, x=COEF, eps=st.sampled_from([0.5, 1e-1, 1e-2, 1e-3, 1e-4]))
def test_central_difference_is_exact_on_quadratics(a, b, c, x, eps):
    """f''' = 0, so the O(ε²) error term vanishes: only rounding is left, even at ε = 0.5
    (where a forward difference would be off by a·ε)."""

    def f(t):
        return a * t * t + b * t + c

    estimate = ref.central_difference(f, x, eps)
    scale = abs(a) * (abs(x) + eps) ** 2 + abs(b) * (abs(x) + eps) + abs(c)
    rounding = 16 * 2.0**-52 * scale / eps  # a few ulps of f, divided by 2ε
    assert abs(estimate - (2 * a * x + b)) <= rounding + 1e-300


@given(x=st.floats(-3.0, 3.0))
@pytest.mark.parametrize("big, small", [(1e-1, 1e-2), (1e-2, 1e-3)])
def test_central_difference_error_is_order_eps_squared(big, small, x):
    """On sin: error ≈ ε²·|sin'''(x)|/6 = ε²|cos x|/6, so ε ÷ 10 divides the error by 100."""
    assume(abs(math.cos(x)) > 0.2)
    err_big = abs(ref.central_difference(math.sin, x, big) - math.cos(x))
    err_small = abs(ref.central_difference(math.sin, x, small) - math.cos(x))
    assert 90 < err_big / err_small < 110
    assert err_small == pytest.approx(small**2 * abs(math.cos(x)) / 6, rel=0.01)


@given(x=st.floats(-5.0, 5.0), eps=st.floats(1e-8, 1.0))
def test_central_difference_formula(x, eps):
    calls = []

    def f(t):
        calls.append(t)
        return math.exp(t) - t**3

    estimate = ref.central_difference(f, x, eps)
    expected = (f(x + eps) - f(x - eps)) / (2 * eps)
    assert estimate == pytest.approx(expected, rel=1e-12, abs=1e-12)
    assert sorted(calls[:-2]) == sorted([x - eps, x + eps])  # f at x ± ε, nothing else


def test_central_difference_default_step_is_accurate():
    assert ref.central_difference(math.exp, 1.0) == pytest.approx(math.e, rel=1e-8)

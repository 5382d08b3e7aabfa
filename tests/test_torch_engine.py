"""PyTorch as the oracle for chapter 4's engine: seeded random graphs of the ops chapter 2
and 3 give (add, sub, mul, div, tanh, exp, matmul, sum over axes, Python numbers,
broadcasting), built the same way in both frameworks, have the same leaf gradients to 1e-10
in float64, through ``backward`` and ``autograd.grad``, and the same Hessian-vector
products through ``create_graph=True``; hooks, ``retain_grad``, and the errors and warnings
of misuse behave as PyTorch's do.

Skipped, visibly, without PyTorch (``pip install -r requirements-oracles.txt``; CI installs
it). Only the reference (``solutions/``) is compared.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from solutions import ch04_backward as sp

torch = pytest.importorskip("torch")

TOL = 1e-10
SHAPES = [(3, 4), (1, 4), (3, 1), (4,), ()]  # closed under broadcasting


class Sparrow:
    """How a test makes and reads tensors in the reference."""

    autograd = sp.autograd
    is_grad_enabled = staticmethod(sp.is_grad_enabled)

    @staticmethod
    def tensor(values: np.ndarray, requires_grad: bool = True):
        return sp.tensor(np.array(values, dtype=np.float64), requires_grad=requires_grad)

    @staticmethod
    def numpy(t) -> np.ndarray:
        return np.array(t.data)


class Torch:
    """The same in PyTorch."""

    autograd = torch.autograd
    is_grad_enabled = staticmethod(torch.is_grad_enabled)

    @staticmethod
    def tensor(values: np.ndarray, requires_grad: bool = True):
        return torch.tensor(np.array(values, dtype=np.float64), requires_grad=requires_grad)

    @staticmethod
    def numpy(t) -> np.ndarray:
        return t.detach().numpy()


LIBS = (Sparrow, Torch)


def random_program(seed: int, n_ops: int = 40) -> tuple[list, list]:
    """A seeded program: leaves (their values, and whether each requires grad) and steps
    (op, operand positions, options), each result of a shape in SHAPES. Values stay bounded
    (exp of a tanh, division by 2 + tanh), so no gradient overflows."""
    rng = np.random.default_rng(seed)
    leaves = [(rng.normal(size=s), True) for s in SHAPES]
    leaves.append((rng.normal(size=(4, 4)) * 0.5, True))  # a matmul weight, value 5
    leaves.append((rng.normal(size=(3, 4)), False))  # a constant
    shapes = [*SHAPES, (4, 4), (3, 4)]
    steps = []
    for _ in range(n_ops):
        usable = [i for i, s in enumerate(shapes) if s != (4, 4)]
        a, b = (int(rng.choice(usable)) for _ in range(2))
        if rng.random() < 0.15:
            b = a  # x * x, x + x: two edges from one node to one vertex
        op = str(rng.choice(["add", "sub", "mul", "div", "tanh", "exp", "matmul", "sum", "number"]))
        sa, sb = shapes[a], shapes[b]
        if op == "matmul" and sa not in ((3, 4), (1, 4), (4,)):
            op = "add"
        if op == "sum" and sa == ():
            op = "tanh"
        option = None
        if op in ("add", "sub", "mul", "div"):
            shape = np.broadcast_shapes(sa, sb)
        elif op == "matmul":
            shape = sa
        elif op == "sum":
            option = [None, *range(len(sa))][int(rng.integers(len(sa) + 1))]
            keep = bool(rng.integers(2))
            option = (option, keep)
            shape = np.sum(np.zeros(sa), axis=option[0], keepdims=keep).shape
            if shape not in SHAPES:  # (3,), (1,), (1, 1): keep the shapes closed
                option, shape = (None, False), ()
        elif op == "number":
            option = float(rng.choice([-1.5, 0.25, 2.0, 3.0]))
            shape = sa
        else:
            shape = sa
        steps.append((op, a, b, option))
        shapes.append(shape)
    return leaves, steps


def run_program(lib, leaves: list, steps: list) -> tuple[list, list]:
    """The program in ``lib``: (leaf tensors, every value in order)."""
    made = [lib.tensor(v, requires_grad=r) for v, r in leaves]
    values = list(made)
    w = made[5]
    for op, a, b, option in steps:
        x, y = values[a], values[b]
        if op == "add":
            out = x + y
        elif op == "sub":
            out = x - y
        elif op == "mul":
            out = x * y.tanh()
        elif op == "div":
            out = x / (y.tanh() + 2.0)
        elif op == "tanh":
            out = x.tanh()
        elif op == "exp":
            out = x.tanh().exp()
        elif op == "matmul":
            out = x @ w
        elif op == "sum":
            dim, keep = option
            out = x.sum() if dim is None else x.sum(dim=dim, keepdim=keep)
        else:  # a Python number, on either side
            out = (option - x) * option if option > 0 else x / option + option
        values.append(out)
    return made, values


def loss_of(values: list):
    """A scalar that depends on many values: Σ over the last eight of Σ(vᵢ · (i+1)/8)."""
    total = None
    for i, v in enumerate(values[-8:]):
        term = (v * ((i + 1) / 8)).sum()
        total = term if total is None else total + term
    return total


def _grads_or_zeros(lib, grads, leaves) -> list:
    return [
        np.zeros(np.shape(v)) if g is None else lib.numpy(g) for g, (v, _) in zip(grads, leaves)
    ]


def _assert_same(mine: list, theirs: list) -> None:
    for i, (a, b) in enumerate(zip(mine, theirs)):
        assert a.shape == b.shape, (i, a.shape, b.shape)
        np.testing.assert_allclose(a, b, rtol=TOL, atol=TOL, err_msg=f"leaf {i}")


@pytest.mark.parametrize("seed", range(12))
def test_random_graphs_have_pytorchs_leaf_gradients(seed: int) -> None:
    """``loss.backward()``, twice (the second with the graph retained by the first), gives
    every leaf PyTorch's .grad; the constant leaf gets None in both."""
    leaves, steps = random_program(seed)
    found = []
    for lib in LIBS:
        made, values = run_program(lib, leaves, steps)
        loss = loss_of(values)
        loss.backward(retain_graph=True)
        loss.backward()
        assert made[-1].grad is None
        found.append([None if t.grad is None else lib.numpy(t.grad) for t in made])
    mine, theirs = found
    assert [g is None for g in mine] == [g is None for g in theirs]
    _assert_same(*([g for g in grads if g is not None] for grads in found))


@pytest.mark.parametrize("seed", range(12, 20))
def test_random_graphs_weighted_outputs_through_autograd_grad(seed: int) -> None:
    """``autograd.grad`` of the last three values with random ``grad_outputs``, with
    respect to every leaf that requires grad and up to three intermediate values (None, an
    unused input, in the same places); .grad untouched."""
    leaves, steps = random_program(seed)
    found = []
    for lib in LIBS:
        made, values = run_program(lib, leaves, steps)
        outs = [v for v in values if v.requires_grad][-3:]
        weights = [
            lib.tensor(np.random.default_rng(seed + i).normal(size=tuple(o.shape)), False)
            for i, o in enumerate(outs)
        ]
        middle = [v for v in values[len(leaves) + 3 : len(leaves) + 12 : 4] if v.requires_grad]
        inputs = [t for t in made if t.requires_grad] + middle
        grads = lib.autograd.grad(outs, inputs, weights, allow_unused=True)
        assert all(t.grad is None for t in made)
        found.append(
            [
                np.full(tuple(x.shape), np.nan) if g is None else lib.numpy(g)
                for g, x in zip(grads, inputs)
            ]
        )
    _assert_same(*found)


@pytest.mark.parametrize("seed", range(20, 28))
def test_random_graphs_have_pytorchs_hessian_vector_products(seed: int) -> None:
    """g = ∇loss with create_graph=True; then ∇⟨g, v⟩ = H v for random v, per leaf (None,
    where a gradient does not depend on a leaf, counts as zeros in both)."""
    leaves, steps = random_program(seed, n_ops=25)
    rng = np.random.default_rng(seed)
    vs = [rng.normal(size=np.shape(v)) for v, r in leaves if r]
    wanted = [(v, r) for v, r in leaves if r]
    found = []
    for lib in LIBS:
        made, values = run_program(lib, leaves, steps)
        inputs = [t for t in made if t.requires_grad]
        grads = lib.autograd.grad(loss_of(values), inputs, create_graph=True, allow_unused=True)
        first = _grads_or_zeros(lib, grads, wanted)
        total = None
        for g, v in zip(grads, vs):
            if g is not None and g.requires_grad:
                term = (g * lib.tensor(v, False)).sum()
                total = term if total is None else total + term
        assert total is not None
        second = lib.autograd.grad(total, inputs, allow_unused=True)
        found.append(first + _grads_or_zeros(lib, second, wanted))
    _assert_same(*found)


# -- hooks and retain_grad, as PyTorch ----------------------------------------------------


def _hooks_scenario(lib) -> list:
    """Leaf and non-leaf hooks that replace gradients, chained, with retain_grad, through
    backward and autograd.grad. (Not compared: ``grad(z, [x, y])`` with y a non-leaf on the
    way to x, where PyTorch returns y's gradient from before y's hooks, though it applies
    them for ``grad(z, [y])``; the reference applies them in both.)"""
    x = lib.tensor(np.array([0.5, -1.0, 2.0]))
    y = x.tanh() * 2.0
    y.retain_grad()
    y.register_hook(lambda g: g * 5.0)
    y.register_hook(lambda g: g + 1.0)
    x.register_hook(lambda g: g * 10.0)
    z = (y * y).sum()
    z.backward(retain_graph=True)
    found = [lib.numpy(y.grad), lib.numpy(x.grad)]
    found += [lib.numpy(g) for g in lib.autograd.grad(z, [x], retain_graph=True)]
    found += [lib.numpy(g) for g in lib.autograd.grad(z, [y])]
    return found


def test_hooks_and_retain_grad_match_pytorch() -> None:
    _assert_same(_hooks_scenario(Sparrow), _hooks_scenario(Torch))


def _hook_mode_scenario(lib) -> list:
    """What grad mode a hook sees, and whether a hook's product with a tensor that requires
    grad makes .grad require grad, without and with create_graph."""
    found = []
    for create_graph in (False, True):
        x, w = lib.tensor(np.array([0.5, -1.0])), lib.tensor(np.array([2.0, 3.0]))
        modes: list = []
        x.register_hook(lambda g, modes=modes: modes.append(lib.is_grad_enabled()))
        x.register_hook(lambda g, w=w: g * w)
        (x * 2.0).sum().backward(create_graph=create_graph)
        found.append((modes, x.grad.requires_grad, lib.numpy(x.grad).tolist()))
    return found


def test_hooks_run_in_pytorchs_grad_mode() -> None:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Using backward\\(\\) with create_graph=True")
        assert _hook_mode_scenario(Sparrow) == _hook_mode_scenario(Torch)


# -- autograd.functional, as PyTorch's ---------------------------------------------------


def _functional(lib, fn) -> list:
    rng = np.random.default_rng(7)
    xv, yv = rng.normal(size=3), rng.normal(size=(2, 3))
    u, v = (rng.normal(size=3), rng.normal(size=(2, 3))), rng.normal(size=2)
    x, y = lib.tensor(xv, False), lib.tensor(yv, False)
    us = tuple(lib.tensor(a, False) for a in u)

    def f(a, b):  # R³ × R²ˣ³ → R²
        return (b @ a.tanh()).exp() * (a * a).sum()

    def scalar(a, b):
        return (f(a, b) * f(a, b)).sum() + (b * b * a).sum()

    jac = fn.jacobian(f, (x, y))
    hess = fn.hessian(scalar, (x, y))
    _, vj = fn.vjp(f, (x, y), lib.tensor(v, False))
    _, jv = fn.jvp(f, (x, y), us)
    flat = [*jac, *(block for row in hess for block in row), *vj, jv]
    return [lib.numpy(t) for t in flat]


def test_functional_matches_pytorch_with_two_inputs() -> None:
    """jacobian, hessian (blocks [i][j]), vjp and jvp of f(x, Y) = exp(Y tanh x)·Σx² and
    of a scalar built on it, as ``torch.autograd.functional`` computes them."""
    _assert_same(
        _functional(Sparrow, sp.autograd.functional),
        _functional(Torch, torch.autograd.functional),
    )


def _functional_with_constant_parts(lib, fn) -> list:
    """Functions linear or constant in some inputs: their outputs (or gradient parts) do
    not require grad, and PyTorch's functional answers zeros there, not an error."""
    rng = np.random.default_rng(8)
    x, y = lib.tensor(rng.normal(size=3), False), lib.tensor(rng.normal(size=3), False)
    u = (lib.tensor(rng.normal(size=3), False), lib.tensor(rng.normal(size=3), False))
    one = lib.tensor(np.array([0.7]), False)
    results = [
        *(b for row in fn.hessian(lambda a, b: (a * a).sum() + b.sum(), (x, y)) for b in row),
        fn.hessian(lambda a: (a * 2.0).sum(), x),
        fn.jacobian(lambda a: a.detach() * 2.0, x),
        *fn.jvp(lambda a, b: a * 2.0, (x, y), u),
        *fn.jvp(lambda a: a * 3.0, one),  # v may be omitted for one element
        *fn.vjp(lambda a: (a * a).sum(), x),
    ]
    return [lib.numpy(t) for t in results]


def test_functional_with_constant_parts_matches_pytorch() -> None:
    _assert_same(
        _functional_with_constant_parts(Sparrow, sp.autograd.functional),
        _functional_with_constant_parts(Torch, torch.autograd.functional),
    )


def _hook_that_removes_itself(lib) -> list:
    x = lib.tensor(np.array([1.0, 2.0]))
    calls: list = []
    handle = x.register_hook(lambda g: (calls.append("first"), handle.remove())[1])
    x.register_hook(lambda g: calls.append("second"))
    (x * x).sum().backward()
    (x * x).sum().backward()
    return calls


def test_a_hook_may_remove_itself_as_in_pytorch() -> None:
    assert _hook_that_removes_itself(Sparrow) == _hook_that_removes_itself(Torch)


def _seed_that_requires_grad(lib) -> list:
    x = lib.tensor(np.array([3.0, 4.0]))
    v = lib.tensor(np.array([1.0, 2.0]))
    x.backward(v)  # no create_graph: .grad is a constant, not the caller's v
    return [x.grad is v, x.grad.requires_grad, lib.numpy(x.grad).tolist()]


def test_a_plain_backward_keeps_a_constant_grad_not_the_callers_gradient() -> None:
    assert _seed_that_requires_grad(Sparrow) == _seed_that_requires_grad(Torch)


def test_grad_takes_any_iterable_of_inputs_as_pytorch() -> None:
    for lib in LIBS:
        w = lib.tensor(np.array([1.0, 2.0]))
        (g,) = lib.autograd.grad((w * w).sum(), (p for p in [w]))
        np.testing.assert_array_equal(lib.numpy(g), [2.0, 4.0])


def _one_grad_output_for_two_outputs(lib) -> None:
    w = lib.tensor(np.array([1.0, 2.0]))
    lib.autograd.grad([w * 2.0, w * 3.0], w, lib.tensor(np.ones(2), False))


# -- where the reference's engine does more than PyTorch's (reported, not yet decided) ----


def _grad_of_a_needed_part(lib) -> tuple:
    """grad(z, [y]) with y = 2x: PyTorch runs only what leads to y (x's hook never fires)."""
    x = lib.tensor(np.array([1.0, 2.0]))
    calls: list = []
    x.register_hook(lambda g: calls.append("x"))
    y = x * 2.0
    (gy,) = lib.autograd.grad((y * y).sum(), [y])
    return calls, lib.numpy(gy).tolist()


@pytest.mark.xfail(
    strict=True,
    reason="the reference's engine walks the whole graph from the outputs, also past "
    "autograd.grad's inputs (hooks fire there; PyTorch prunes to what the inputs need)",
)
def test_grad_runs_only_what_its_inputs_need() -> None:
    assert _grad_of_a_needed_part(Sparrow) == _grad_of_a_needed_part(Torch)


def _grad_beside_a_freed_branch(lib) -> list:
    """a = eˣ is backpropagated (its node freed); then grad(Σ a·w, [w]) needs only a·w."""
    x, w = lib.tensor(np.array([0.5, 1.5])), lib.tensor(np.array([2.0, 3.0]))
    a = x.exp()
    a.sum().backward()
    (gw,) = lib.autograd.grad((a * w).sum(), [w])
    return lib.numpy(gw).tolist()


@pytest.mark.xfail(
    strict=True,
    raises=RuntimeError,
    reason="the same: the reference also runs a's freed node, which grad([w]) never needs",
)
def test_grad_needs_no_freed_branch_it_does_not_use() -> None:
    assert _grad_beside_a_freed_branch(Sparrow) == _grad_beside_a_freed_branch(Torch)


# -- errors and warnings of misuse, as PyTorch --------------------------------------------


def _nonscalar_backward(lib) -> None:
    (lib.tensor(np.ones(3)) * 2.0).backward()


def _wrong_shape_gradient(lib) -> None:
    (lib.tensor(np.ones((2, 3))) * 2.0).backward(lib.tensor(np.ones((3, 2)), False))


def _other_dtype_gradient(lib) -> None:
    x = lib.tensor(np.ones(3))
    g = np.ones(3, dtype=np.float32)
    (x * 2.0).backward(sp.tensor(g) if lib is Sparrow else torch.tensor(g))
    assert str(x.grad.dtype).endswith("float64")


def _second_backward(lib) -> None:
    y = (lib.tensor(np.ones(3)).exp()).sum()
    y.backward()
    y.backward()


def _second_backward_retained(lib) -> None:
    y = (lib.tensor(np.ones(3)).exp()).sum()
    y.backward(retain_graph=True)
    y.backward()


def _after_create_graph(lib) -> None:
    y = (lib.tensor(np.ones(3)).exp()).sum()
    y.backward(create_graph=True)
    y.backward()


def _unused_input(lib) -> None:
    x, u = lib.tensor(np.ones(3)), lib.tensor(np.ones(3))
    lib.autograd.grad((x * x).sum(), [x, u])


def _unused_allowed(lib) -> None:
    x, u = lib.tensor(np.ones(3)), lib.tensor(np.ones(3))
    assert lib.autograd.grad((x * x).sum(), [x, u], allow_unused=True)[1] is None


def _input_without_grad(lib) -> None:
    x = lib.tensor(np.ones(3))
    lib.autograd.grad((x * x).sum(), [lib.tensor(np.ones(3), False)])


def _output_without_grad(lib) -> None:
    x = lib.tensor(np.ones(3), False)
    (x * 2.0).sum().backward()


def _nonleaf_grad(lib) -> None:
    y = lib.tensor(np.ones(3)) * 2.0
    y.sum().backward()
    assert y.grad is None


def _retained_nonleaf_grad(lib) -> None:
    y = lib.tensor(np.ones(3)) * 2.0
    y.retain_grad()
    y.sum().backward()
    assert y.grad is not None


def _leaf_grad_before_backward(lib) -> None:
    assert lib.tensor(np.ones(3)).grad is None


def _hook_without_grad(lib) -> None:
    lib.tensor(np.ones(3), False).register_hook(lambda g: g)


def _retain_grad_without_grad(lib) -> None:
    lib.tensor(np.ones(3), False).retain_grad()


SCENARIOS = [
    _nonscalar_backward,
    _wrong_shape_gradient,
    _other_dtype_gradient,
    _second_backward,
    _second_backward_retained,
    _after_create_graph,
    _unused_input,
    _unused_allowed,
    _input_without_grad,
    _output_without_grad,
    _nonleaf_grad,
    _retained_nonleaf_grad,
    _leaf_grad_before_backward,
    _hook_without_grad,
    _retain_grad_without_grad,
    _one_grad_output_for_two_outputs,
]


def _observe(lib, scenario) -> tuple:
    """(the exception's type name or None, the warning categories), as raised. PyTorch's
    advice that ``backward(create_graph=True)`` makes a reference cycle between a leaf and
    its .grad (a leak of its C++ graph) is left out: the reference's cycle is ordinary
    Python garbage."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            scenario(lib)
            raised = None
        except Exception as exc:
            raised = type(exc).__name__
    advice = "create_graph=True will create a reference cycle"
    return raised, sorted({w.category.__name__ for w in caught if advice not in str(w.message)})


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__.strip("_"))
def test_misuse_raises_and_warns_as_pytorch(scenario) -> None:
    assert _observe(Sparrow, scenario) == _observe(Torch, scenario)

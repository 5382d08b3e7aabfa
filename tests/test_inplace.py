"""In-place operations, the version counter and one gradient per leaf (issue 28), without
PyTorch: the three idioms learners copy from PyTorch code (``a -= lr * a.grad`` under
``no_grad``, ``p.data += -lr * p.grad``, ``p.data.std()``), the three rules of
``ch02_tensor/inplace.py``, views sharing their base's counter, the counter's error where
PyTorch raises it and its silence where PyTorch is silent, one gradient object per leaf, and
the ``_`` methods. Expected values are closed forms computed here in NumPy. PyTorch itself
is the oracle in ``tests/test_torch_inplace.py``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from solutions import ch07_device as sp

REPO = Path(__file__).resolve().parent.parent
MODIFIED = "modified by an inplace operation"
DEVICES = ["cpu", "sim"]


def leaf(values, requires_grad: bool = True, device: str = "cpu") -> sp.Tensor:
    """A float64 leaf holding ``values`` on ``device``."""
    return sp.tensor(
        np.asarray(values, dtype=np.float64), requires_grad=requires_grad, device=device
    )


def values(t: sp.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy()


def close(t: sp.Tensor, expected) -> None:
    assert t is not None
    np.testing.assert_allclose(values(t), np.asarray(expected, dtype=np.float64), rtol=1e-12)


# -- idiom (a): PyTorch's first autograd tutorial, ``a -= lr * a.grad`` under no_grad -----


def test_an_update_under_no_grad_keeps_the_leaf() -> None:
    """y = a·x fitted by hand: the update changes ``a`` itself, which stays a leaf that
    requires grad, so the next step's backward reaches it."""
    x, y = np.linspace(-1, 1, 5), 3.0 * np.linspace(-1, 1, 5)
    a = leaf([0.5])
    same, array = a, a.data
    want = 0.5
    for _ in range(3):
        loss = ((a * sp.tensor(x) - sp.tensor(y)) ** 2).sum()
        loss.backward()
        grad = 2 * np.sum((want * x - y) * x)
        close(a.grad, [grad])
        with sp.no_grad():
            a -= 0.1 * a.grad
        want -= 0.1 * grad
        assert a is same and a.data is array
        assert a.requires_grad and a.is_leaf and a.grad_fn is None
        close(a, [want])
        a.grad = None
    assert a._version == 3


def test_an_update_under_no_grad_with_every_operator() -> None:
    a = leaf([2.0, 4.0])
    with sp.no_grad():
        a += sp.tensor([1.0, 1.0], dtype=sp.float64)
        a *= 2
        a /= sp.tensor(4.0, dtype=sp.float64)
        a **= 2
        a -= 1
    close(a, [(3 * 2 / 4) ** 2 - 1, (5 * 2 / 4) ** 2 - 1])
    assert a._version == 5 and a.requires_grad and a.is_leaf


# -- idiom (b): makemore's ``p.data += -lr * p.grad`` ---------------------------------------


@pytest.mark.parametrize("device", DEVICES)
def test_data_plus_equals_a_tensor_updates_the_parameter_in_place(device: str) -> None:
    p = leaf([1.0, -2.0, 3.0], device=device)
    later = (p * p * p).sum()  # recorded before the writes
    (p * p).sum().backward()
    array = p.data
    inner = getattr(array, "_a", array)  # the simulated device's array keeps NumPy's inside
    p.data += -0.1 * p.grad
    p.data -= sp.tensor([1.0, 1.0, 1.0], dtype=sp.float64, device=device)
    p.data *= sp.tensor([2.0, 3.0, 4.0], dtype=sp.float64, device=device)
    assert p.data is array and getattr(p.data, "_a", p.data) is inner
    want = (np.array([1.0, -2.0, 3.0]) * 0.8 - 1.0) * np.array([2.0, 3.0, 4.0])
    close(p, want)
    assert p._version == 0  # a write through .data is not counted, as in PyTorch
    assert p.requires_grad and p.is_leaf
    later.backward()  # runs: nobody counted a change
    # Σ q·p, q = p·p: the first Mul kept p twice (its array, holding the new values now),
    # the second kept q (old values) and p (new): ∂/∂p = 2·p_new² + q_old, plus 2·p_old from
    # the first backward
    old = np.array([1.0, -2.0, 3.0])
    close(p.grad, 2 * old + old * old + 2 * want * want)


def test_data_plus_equals_with_a_tensor_on_the_right_of_numpy_in_place() -> None:
    p = leaf([[1.0, 2.0], [3.0, 4.0]])
    p.data += sp.tensor([10.0, 20.0], dtype=sp.float64)  # broadcast, as NumPy's +=
    close(p, [[11.0, 22.0], [13.0, 24.0]])
    p.data /= sp.tensor(2.0, dtype=sp.float64)
    close(p, [[5.5, 11.0], [6.5, 12.0]])


def test_an_array_and_a_tensor_out_of_place_still_give_a_tensor() -> None:
    """``ndarray <op> Tensor`` is the tensor's reflected operator, as before the change."""
    t = sp.tensor([1.0, 2.0], dtype=sp.float64)
    array = np.array([3.0, 1.0])
    for got, want in [
        (array + t, [4.0, 3.0]),
        (array - t, [2.0, -1.0]),
        (array * t, [3.0, 2.0]),
        (array / t, [3.0, 0.5]),
    ]:
        assert isinstance(got, sp.Tensor) and got.dtype == np.float64
        close(got, want)
    less = array < t
    assert isinstance(less, sp.Tensor) and less.dtype == np.bool_
    assert less.tolist() == [False, True]
    product = np.array([[1.0, 0.0], [2.0, 1.0]]) @ t
    assert isinstance(product, sp.Tensor)
    close(product, [1.0, 4.0])
    assert array.tolist() == [3.0, 1.0]  # the array itself untouched
    g = leaf([1.0, 2.0])
    out = np.array([2.0, 5.0]) * g
    assert isinstance(out, sp.Tensor) and out.requires_grad
    out.sum().backward()
    close(g.grad, [2.0, 5.0])


def test_numpy_functions_on_a_tensor_are_still_refused() -> None:
    t = sp.tensor([1.0, 2.0])
    with pytest.raises(TypeError):
        np.exp(t)
    with pytest.raises(TypeError):
        np.add(t, t, out=t)  # writing into a Tensor is the tensor's own operators' job


# -- idiom (c): ``p.data.std()`` is NumPy's --------------------------------------------------


def test_data_std_is_numpys_population_std() -> None:
    """``.data`` is the array, so ``.data.std()`` is NumPy's: ddof=0, where PyTorch's
    ``std()`` (the tensor's, here too) is the sample std (ddof=1)."""
    p = leaf([1.0, 2.0, 4.0, 7.0])
    x = np.array([1.0, 2.0, 4.0, 7.0])
    population = np.sqrt(np.mean((x - x.mean()) ** 2))
    sample = np.sqrt(np.sum((x - x.mean()) ** 2) / 3)
    assert p.data.std() == pytest.approx(population, rel=1e-12)
    assert p.data.std(ddof=1) == pytest.approx(sample, rel=1e-12)
    assert p.std().item() == pytest.approx(sample, rel=1e-12)
    assert p.data.var(ddof=1) == pytest.approx(p.var().item(), rel=1e-12)
    assert p.data.std() != pytest.approx(p.std().item(), rel=1e-3)


def test_the_readme_lists_std_and_var_ddof_among_the_differences() -> None:
    readme = (REPO / "README.md").read_text()
    assert "ddof" in readme, "README.md: the .data array's std/var (ddof=0) is not listed"


# -- rule 1: nothing recorded, written into the array ---------------------------------------


def test_rule_1_under_no_grad_on_a_leaf_and_a_non_leaf() -> None:
    x = leaf([1.0, 2.0])
    y = x * 2
    x_array, y_array = x.data, y.data
    with sp.no_grad():
        assert x.add_(1) is x
        assert y.mul_(10) is y
    assert x.data is x_array and y.data is y_array
    close(x, [2.0, 3.0])
    close(y, [20.0, 40.0])
    assert x._version == 1 and y._version == 1
    assert x.is_leaf and x.requires_grad and y.grad_fn is not None


def test_rule_1_on_a_tensor_that_records_nothing() -> None:
    x = sp.tensor([1.0, 2.0, 3.0], dtype=sp.float64)
    array = x.data
    x.add_(sp.tensor([1.0, 1.0, 1.0], dtype=sp.float64), alpha=2).mul_(3).neg_()
    assert x.data is array and x._version == 3 and not x.requires_grad
    close(x, [-9.0, -12.0, -15.0])


def test_rule_1_on_a_non_leaf_nobody_kept_then_backward_runs() -> None:
    x = leaf([1.0, 2.0])
    y = x + 1  # Add keeps nothing
    with sp.no_grad():
        y.mul_(5)
    close(y, [10.0, 15.0])
    (y * 1.0).sum().backward()
    close(x.grad, [1.0, 1.0])


# -- rule 2: a leaf that requires grad, in grad mode -----------------------------------------


@pytest.mark.parametrize(
    "write",
    [
        lambda x: x.add_(1),
        lambda x: x.zero_(),
        lambda x: x.__iadd__(1),
        lambda x: x.__imul__(2),
        lambda x: x.clamp_(0, 1),
    ],
    ids=["add_", "zero_", "+=", "*=", "clamp_"],
)
def test_rule_2_a_leaf_that_requires_grad_is_refused(write) -> None:
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="leaf Variable"):
        write(x)
    close(x, [1.0, 2.0])
    assert x._version == 0


def test_rule_2_with_the_operator_syntax() -> None:
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x -= 0.1 * x
    p = sp.nn.Parameter(sp.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="leaf Variable"):
        p.add_(1)
    with sp.no_grad():
        p.add_(1)
    assert p.tolist() == [2.0, 3.0] and isinstance(p, sp.nn.Parameter) and p.requires_grad


# -- rule 3: recorded ---------------------------------------------------------------------


def test_rule_3_a_differentiable_in_place_on_a_non_leaf() -> None:
    x = leaf([1.0, 2.0])
    y = x * 2
    same = y
    y += 1
    y.mul_(3)
    assert y is same and not y.is_leaf and y._version == 2
    close(y, [9.0, 15.0])
    y.sum().backward()
    close(x.grad, [6.0, 6.0])


def test_rule_3_chained_ops_give_the_chain_rule() -> None:
    """y = exp(x·2 + 1)² … written in place: dy/dx = 2·exp(2(2x+1))·2."""
    x = leaf([0.1, -0.3])
    y = x * 2
    y.add_(1).exp_().pow_(2)
    y.sum().backward()
    xv = np.array([0.1, -0.3])
    close(y, np.exp(2 * xv + 1) ** 2)
    close(x.grad, 4 * np.exp(2 * (2 * xv + 1)))


def test_rule_3_a_constant_plus_equals_a_tensor_joins_the_graph() -> None:
    x = leaf([1.0, 2.0])
    b = sp.zeros(2, dtype=sp.float64)
    b += x
    assert b.requires_grad and b.grad_fn is not None and not b.is_leaf
    b.mul_(x)
    b.sum().backward()
    close(x.grad, [2.0, 4.0])


def test_rule_3_follows_retain_grad() -> None:
    x = leaf([1.0, 2.0])
    y = x * 2
    y.retain_grad()
    y.add_(1)
    (y * 3).sum().backward()
    close(y.grad, [3.0, 3.0])
    close(x.grad, [6.0, 6.0])


def test_rule_3_is_refused_on_a_view_in_a_recorded_graph() -> None:
    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    y = x * 2
    v = y.reshape(4)
    with pytest.raises(RuntimeError, match=r"out-of-place form .*x = x\.add\(…\)"):
        v.add_(1)
    with pytest.raises(RuntimeError, match=r"out-of-place form .*x = x \+ …"):
        y += 1  # y has a view now: refused too
    close(y, [[2.0, 4.0], [6.0, 8.0]])


def test_rule_3_records_a_constant_result_with_a_gradient_of_zeros() -> None:
    """zero_ / fill_ on a non-leaf: recorded (Overwrite), the old tensor gets zeros."""
    x = leaf([1.0, 2.0])
    y = x * 2
    y.zero_()
    assert y.grad_fn is not None and y.tolist() == [0.0, 0.0]
    z = x * 3
    z.fill_(3.0)
    (y + z + x).sum().backward()
    close(x.grad, [1.0, 1.0])


def test_the_result_must_fit_the_tensor() -> None:
    x = sp.zeros(3, dtype=sp.float64)
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast"):
        x += sp.zeros(2, 3, dtype=sp.float64)
    ints = sp.zeros(3, dtype=sp.int64)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        ints += 1.5
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        ints.mul_(sp.tensor([0.5, 0.5, 0.5]))
    flags = sp.zeros(2, dtype=sp.bool)
    with pytest.raises(RuntimeError, match="can't be cast"):
        flags.add_(1)
    assert ints.tolist() == [0, 0, 0] and ints._version == 0
    ints += 2  # an int into an int tensor is fine
    floats = sp.zeros(2, dtype=sp.float32)
    floats += sp.tensor([1, 2])  # an int into a float tensor too, kept float32
    assert ints.tolist() == [2, 2, 2] and floats.dtype == np.float32
    assert floats.tolist() == [1.0, 2.0]


# -- views share their base's counter ----------------------------------------------------


@pytest.mark.parametrize(
    "view",
    [
        lambda x: x.reshape(6),
        lambda x: x.view(3, 2),
        lambda x: x.transpose(0, 1),
        lambda x: x.t(),
        lambda x: x[1],
        lambda x: x[:, 1:],
        lambda x: x.detach(),
    ],
    ids=["reshape", "view", "transpose", "t", "x[1]", "x[:, 1:]", "detach"],
)
def test_a_view_shares_the_counter_and_the_memory(view) -> None:
    x = sp.zeros(2, 3, dtype=sp.float64)
    v = view(x)
    v.add_(1)
    assert x._version == 1 and v._version == 1
    assert float(x.sum()) == v.numel()  # the write is seen through the base
    x.mul_(3)
    assert v._version == 2 and float(v.sum()) == 3 * v.numel()


def test_setitem_bumps_the_version() -> None:
    x = sp.zeros(3, dtype=sp.float64)
    v = x[1:]
    x[1] = 5.0
    assert x._version == 1 and v._version == 1 and v.tolist() == [5.0, 0.0]
    v[0] = 2.0
    assert x._version == 2 and x.tolist() == [0.0, 2.0, 0.0]


def test_setitem_under_no_grad_on_a_leaf_that_requires_grad() -> None:
    x = leaf([1.0, 2.0, 3.0])
    with sp.no_grad():
        x[0] = 0.0
    assert x._version == 1 and x.requires_grad and x.is_leaf
    close(x, [0.0, 2.0, 3.0])


# -- the version counter -------------------------------------------------------------------


def test_a_saved_input_changed_in_place_raises() -> None:
    """MatMul keeps w for a's gradient: a change of w before backward is an error."""
    a = leaf(np.ones((2, 3)))
    w = leaf(np.full((3, 2), 0.5), requires_grad=False)
    out = a @ w
    with sp.no_grad():
        w.add_(1)
    with pytest.raises(RuntimeError, match=MODIFIED):
        out.sum().backward()


def test_matmul_keeps_only_what_a_needed_gradient_needs() -> None:
    """w's gradient needs a, a's gradient (not needed) would need w: changing w is fine,
    changing a is not (PyTorch saves by ``needs_input_grad`` the same way)."""
    a = leaf(np.ones((2, 3)), requires_grad=False)
    w = leaf(np.full((3, 2), 0.5))
    out = a @ w
    with sp.no_grad():
        w.add_(1)
    out.sum().backward()
    close(w.grad, np.full((3, 2), 2.0))
    out = a @ w
    a.add_(1)
    with pytest.raises(RuntimeError, match=MODIFIED):
        out.sum().backward()


def test_a_saved_output_changed_in_place_raises() -> None:
    x = leaf([[1.0, 2.0, 3.0]])
    p = x.softmax(1)
    with sp.no_grad():
        p.add_(1)
    with pytest.raises(RuntimeError, match=MODIFIED):
        p.sum().backward()
    q = x.softmax(1)
    q.mul_(2)  # recorded this time (rule 3): softmax's kept output is still changed
    with pytest.raises(RuntimeError, match=MODIFIED):
        q.sum().backward()


def test_the_message_says_which_tensor_and_which_versions() -> None:
    a = leaf(np.ones((2, 3)))
    w = leaf(np.ones((3, 4)), requires_grad=False)
    out = a @ w
    w.mul_(2)
    w.mul_(2)
    with pytest.raises(RuntimeError) as info:
        out.sum().backward()
    message = str(info.value)
    assert "one of the variables needed for gradient computation has been " + MODIFIED in message
    assert "[3, 4]" in message and "is at version 2; expected version 0 instead" in message


def _two_losses(model, x):
    """Two losses recorded with the parameters as they are now."""
    return model(x).pow(2).sum(), model(x).pow(2).sum()


def test_an_optimizer_step_between_forward_and_backward_raises_for_two_layers() -> None:
    sp.manual_seed(0)
    model = sp.nn.Sequential(sp.nn.Linear(3, 4), sp.nn.Tanh(), sp.nn.Linear(4, 1))
    opt = sp.optim.SGD(model.parameters(), lr=0.1)
    first, second = _two_losses(model, sp.randn(5, 3))
    before = [p._version for p in model.parameters()]
    first.backward()
    opt.step()
    assert [p._version for p in model.parameters()] == [v + 1 for v in before]
    with pytest.raises(RuntimeError, match=MODIFIED):
        second.backward()


def test_an_optimizer_step_between_forward_and_backward_runs_for_one_layer() -> None:
    """One Linear whose input needs no gradient: the weight is kept by nobody (its
    gradient needs only the input), so the step changes nothing backward reads."""
    sp.manual_seed(0)
    model = sp.nn.Linear(3, 2)
    opt = sp.optim.SGD(model.parameters(), lr=0.1)
    x = sp.randn(5, 3)
    first, second = model(x).sum(), model(x).sum()
    first.backward()
    grads = [p.grad.clone() for p in model.parameters()]
    opt.step()
    second.backward()
    for p, g in zip(model.parameters(), grads):
        np.testing.assert_allclose(p.grad.numpy(), 2 * g.numpy(), rtol=1e-6)


@pytest.mark.parametrize("make", ["SGD", "Adam"])
def test_every_optimizer_step_bumps_each_parameter(make: str) -> None:
    p = sp.nn.Parameter(sp.tensor([1.0, 2.0]))
    opt = getattr(sp.optim, make)([p], lr=0.1)
    for step in range(1, 3):
        p.sum().backward() if step == 1 else (p * p).sum().backward()
        opt.step()
        opt.zero_grad()
        assert p._version == step


def test_a_write_through_data_does_not_raise() -> None:
    a = leaf(np.ones((2, 3)))
    w = leaf(np.full((3, 2), 0.5))
    out = a @ w
    w.data += 1  # the way around autograd: not counted
    w.data.fill(2.0)
    assert w._version == 0
    out.sum().backward()
    close(a.grad, np.full((2, 3), 4.0))  # backward reads the new w, as PyTorch's would


def test_an_in_place_change_nobody_kept_does_not_raise() -> None:
    """Add, reshape and transpose keep nothing for backward: changing their inputs or
    outputs afterwards is no error (as in PyTorch)."""
    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    c = sp.tensor([3.0, 4.0], dtype=sp.float64)
    y = x + c
    t = x.t() + 0.0
    c.add_(100)
    c[0] = -1.0
    y.mul_(2)  # recorded (rule 3): the Add before it kept nothing
    with sp.no_grad():
        t.add_(1)
    (y.sum() + t.sum()).backward()
    close(x.grad, np.full((2, 2), 3.0))


def test_a_saved_tensor_changed_and_changed_back_still_raises() -> None:
    """The counter counts changes, not values (PyTorch's too)."""
    a = leaf(np.ones((2, 2)))
    w = sp.ones(2, 2, dtype=sp.float64)
    out = a @ w
    w.add_(1).sub_(1)
    with pytest.raises(RuntimeError, match=MODIFIED):
        out.sum().backward()


# Functions keep an operand only for a gradient that is needed (``needs_input_grad``), as
# PyTorch does, so a change of the other operand does not raise.
@pytest.mark.parametrize(
    "op",
    [lambda x, c: x * c, lambda x, c: x * 2, lambda x, c: x / c, lambda x, c: (x * c).sum()],
    ids=["x*c", "x*2", "x/c", "sum"],
)
def test_an_operand_whose_gradient_nobody_needs_is_not_watched(op) -> None:
    x = leaf([1.0, 2.0])
    c = sp.tensor([4.0, 5.0], dtype=sp.float64)
    inner = x * 1.0
    out = op(inner, c)
    with sp.no_grad():
        inner.add_(1)  # PyTorch: the op kept c (for inner's gradient), not inner
    out.sum().backward()
    assert x.grad is not None


# -- one gradient per leaf -----------------------------------------------------------------


def test_two_leaves_never_share_a_gradient_object() -> None:
    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    (a + b).sum().backward()
    assert a.grad is not b.grad
    a.grad.zero_()
    close(b.grad, [1.0, 1.0])
    (a + b).sum().backward()
    assert a.grad is not b.grad
    close(a.grad, [1.0, 1.0])
    close(b.grad, [2.0, 2.0])
    b.grad.mul_(10)
    close(a.grad, [1.0, 1.0])


def test_a_retained_gradient_is_its_own() -> None:
    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    y = a + b
    y.retain_grad()
    y.sum().backward()
    grads = [a.grad, b.grad, y.grad]
    assert len({id(g) for g in grads}) == 3
    y.grad.fill_(7.0)
    close(a.grad, [1.0, 1.0])
    close(b.grad, [1.0, 1.0])


def test_a_leaf_used_twice_gets_one_gradient() -> None:
    a = leaf([1.0, 2.0])
    (a + a).sum().backward()
    close(a.grad, [2.0, 2.0])


def test_under_create_graph_the_gradient_stays_differentiable() -> None:
    x = leaf([1.0, 2.0, -3.0])
    (x**3).sum().backward(create_graph=True)
    xv = np.array([1.0, 2.0, -3.0])
    close(x.grad, 3 * xv**2)
    assert x.grad.requires_grad
    (second,) = sp.autograd.grad(x.grad.sum(), x)
    close(second, 6 * xv)


def test_under_create_graph_accumulation_stays_differentiable() -> None:
    """Two create_graph passes: .grad is the sum of both, and its graph reaches x."""
    x = leaf([1.0, 2.0])
    (x**3).sum().backward(create_graph=True)
    (x**2).sum().backward(create_graph=True)
    xv = np.array([1.0, 2.0])
    close(x.grad, 3 * xv**2 + 2 * xv)
    (second,) = sp.autograd.grad(x.grad.sum(), x)
    close(second, 6 * xv + 2)


# -- the ``_`` methods ------------------------------------------------------------------------

METHODS = [
    "add_", "sub_", "mul_", "div_", "pow_", "abs_", "exp_", "log_", "sqrt_", "tanh_",
    "sigmoid_", "relu_", "sin_", "cos_", "log1p_", "expm1_", "clamp_", "clip_",
    "clamp_min_", "clamp_max_", "remainder_", "fmod_", "masked_fill_", "scatter_",
    "scatter_add_", "fill_", "copy_", "normal_", "uniform_", "zero_", "neg_", "multiply_",
    "subtract_", "divide_", "true_divide_", "__iadd__", "__isub__", "__imul__",
    "__itruediv__", "__ipow__",
]  # fmt: skip


@pytest.mark.parametrize("name", METHODS)
def test_the_method_is_on_tensor_and_parameter(name: str) -> None:
    assert callable(getattr(sp.tensor([1.0]), name))
    assert callable(getattr(sp.nn.Parameter(sp.tensor([1.0])), name))


def test_zero_fill_and_their_return() -> None:
    x = sp.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert x.fill_(2.5) is x and x.tolist() == [[2.5, 2.5], [2.5, 2.5]]
    assert x.fill_(sp.tensor(-1.0)) is x and x.tolist() == [[-1.0, -1.0], [-1.0, -1.0]]
    with pytest.raises(RuntimeError, match="0-dimension"):
        x.fill_(sp.tensor([1.0, 2.0]))
    assert x.zero_() is x and x.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert x.dtype == np.float32 and x._version == 3


def test_copy_broadcasts_and_casts() -> None:
    x = sp.zeros(2, 3, dtype=sp.float64)
    array = x.data
    assert x.copy_(sp.tensor([1, 2, 3])) is x
    assert x.data is array and x.dtype == np.float64
    assert x.tolist() == [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]
    ints = sp.zeros(3, dtype=sp.int64)
    ints.copy_(sp.tensor([1.7, -1.7, 2.2]))  # copy_ casts anything, truncating as PyTorch
    assert ints.tolist() == [1, -1, 2] and ints.dtype == np.int64
    with pytest.raises(RuntimeError):
        x.copy_(sp.zeros(4))


def test_copy_from_a_tensor_that_requires_grad_is_recorded() -> None:
    src = leaf([1.0, 2.0, 3.0])
    x = sp.zeros(2, 3, dtype=sp.float64)
    x.copy_(src)
    assert x.requires_grad and not x.is_leaf
    (x * sp.tensor([[1.0], [2.0]], dtype=sp.float64)).sum().backward()
    close(src.grad, [3.0, 3.0, 3.0])


def test_copy_from_a_tensor_of_the_same_shape_that_requires_grad_is_recorded() -> None:
    src = leaf([1.0, 2.0, 3.0])
    x = sp.zeros(3, dtype=sp.float64)
    x.copy_(src)
    assert not x.is_leaf and x.data is not src.data
    (x * 2).sum().backward()
    close(src.grad, [2.0, 2.0, 2.0])


def test_normal_and_uniform_draw_what_the_generator_draws() -> None:
    x = sp.zeros(3, 4, dtype=sp.float64)
    assert x.normal_(1.0, 2.0, generator=sp.Generator().manual_seed(7)) is x
    want = sp.normal(1.0, 2.0, (3, 4), generator=sp.Generator().manual_seed(7), dtype=sp.float64)
    np.testing.assert_array_equal(x.numpy(), want.numpy())
    assert x.uniform_(-2.0, 3.0, generator=sp.Generator().manual_seed(7)) is x
    unit = sp.rand(3, 4, generator=sp.Generator().manual_seed(7), dtype=sp.float64)
    np.testing.assert_allclose(x.numpy(), unit.numpy() * 5.0 - 2.0, rtol=1e-15)
    assert float(x.min()) >= -2.0 and float(x.max()) < 3.0 and x._version == 2
    sp.manual_seed(3)
    x.normal_()
    sp.manual_seed(3)
    np.testing.assert_array_equal(x.numpy(), sp.randn(3, 4, dtype=sp.float64).numpy())


def test_normal_on_a_parameter_under_no_grad() -> None:
    p = sp.nn.Parameter(sp.zeros(2, 2))
    with pytest.raises(RuntimeError, match="leaf Variable"):
        p.normal_()
    with sp.no_grad():
        p.normal_(generator=sp.Generator().manual_seed(1))
    assert p.dtype == np.float32 and p._version == 1 and float(p.abs().sum()) > 0


def test_clamp_and_masked_fill() -> None:
    x = sp.tensor([-2.0, -0.5, 0.5, 2.0], dtype=sp.float64)
    assert x.clamp_(-1.0, 1.0) is x and x.tolist() == [-1.0, -0.5, 0.5, 1.0]
    assert x.clamp_min_(0.0) is x and x.tolist() == [0.0, 0.0, 0.5, 1.0]
    assert x.clamp_max_(0.75) is x and x.tolist() == [0.0, 0.0, 0.5, 0.75]
    assert x.masked_fill_(x == 0, -9.0) is x and x.tolist() == [-9.0, -9.0, 0.5, 0.75]
    assert x._version == 4


def test_the_methods_run_on_the_simulated_device() -> None:
    x = sp.tensor([1.0, 4.0, 9.0], dtype=sp.float64, device="sim")
    array = x.data
    x.sqrt_().add_(sp.tensor(1.0, dtype=sp.float64, device="sim")).mul_(2)
    x += sp.tensor([1.0, 1.0, 1.0], dtype=sp.float64, device="sim")
    assert x.data is array and x.device.type == "sim" and x._version == 4
    close(x, [5.0, 7.0, 9.0])
    x.zero_()
    close(x, [0.0, 0.0, 0.0])


def test_a_nodes_gradients_share_no_memory_and_may_be_written() -> None:
    """Add hands grad_output to both inputs, a reshape a view of it, an expand a read-only
    broadcast: Node.backward returns each input its own writeable memory, so an engine that
    adds in place (pending[p] += g) reaches no other vertex's gradient."""
    a = sp.tensor([[1.0, 2.0]], requires_grad=True)
    b = sp.tensor([[3.0, 4.0]], requires_grad=True)
    for node, grad_output in [
        ((a + b).grad_fn, sp.ones(1, 2)),
        ((a.reshape(2) + b.reshape(2)).grad_fn, sp.ones(2)),
        ((a.expand(3, 2) * 1.0 + b).grad_fn, sp.ones(3, 2)),
    ]:
        grads = [g for g in node.backward(grad_output) if g is not None]
        assert len(grads) == 2
        assert not np.shares_memory(grads[0].data, grads[1].data)
        for g in grads:
            assert g.data.flags.writeable
            assert not np.shares_memory(g.data, grad_output.data) or g is grads[0]


def test_an_engine_that_adds_in_place_gives_the_right_gradients() -> None:
    """backward_pass with pending[p] += g (the in-place form of task 4.2's sum): a vertex
    reached twice through one Add gets 2, and its sibling 1 (no gradient shared)."""
    from solutions.ch04_backward.dependencies import count_dependencies, vertex
    from solutions.ch04_backward.engine import keep_grad

    a = sp.tensor([1.0, 2.0], requires_grad=True)
    b = sp.tensor([3.0, 4.0], requires_grad=True)
    c = a + b
    out = (c + a).sum()
    roots, seeds = [out.grad_fn], [sp.tensor(1.0)]
    counts, pending = count_dependencies(roots), {roots[0]: seeds[0]}
    ready = [roots[0]]
    while ready:
        v = ready.pop()
        grad = pending.pop(v)
        keep_grad(v, grad)
        if not hasattr(v, "inputs"):
            continue
        for x, g in zip(v.inputs, v.backward(grad)):
            if not x.requires_grad:
                continue
            p = vertex(x)
            if p in pending:
                pending[p] += g  # in place
            else:
                pending[p] = g
            counts[p] -= 1
            if counts[p] == 0:
                ready.append(p)
    np.testing.assert_array_equal(a.grad.data, [2.0, 2.0])
    np.testing.assert_array_equal(b.grad.data, [1.0, 1.0])


def test_a_recorded_in_place_leaves_the_edges_recorded_before_it() -> None:
    """z = x * 3 was recorded from x; x.mul_(2), recorded, gives x a new grad_fn, and z's
    gradient still flows to where x came from then (PyTorch's edges): leaf.grad = 3 + 2."""
    leaf = sp.tensor([1.0, 2.0], requires_grad=True)
    x = leaf * 1
    z = x * 3
    x.mul_(2)
    (z.sum() + x.sum()).backward()
    np.testing.assert_array_equal(leaf.grad.data, [5.0, 5.0])  # PyTorch's


def test_a_graph_recorded_from_grad_keeps_it_when_create_graph_adds_again() -> None:
    """PyTorch adds out of place under create_graph: a graph made from the old .grad keeps
    its values, also when accumulate adds in place (keep_grad hands it a fresh .grad)."""
    x = sp.tensor([1.0, 2.0], dtype=sp.float64, requires_grad=True)
    (x**3).sum().backward(create_graph=True)
    g = x.grad
    penalty = (g**2).sum()
    (x**2).sum().backward(create_graph=True)
    np.testing.assert_array_equal(g.data, [3.0, 12.0])
    np.testing.assert_array_equal(x.grad.data, [5.0, 16.0])
    x.grad = None
    penalty.backward()  # d/dx Σ (3x²)² = 36 x³
    np.testing.assert_allclose(x.grad.data, [36.0, 288.0])


# -- what a fresh reader's review found (each failed before its fix) -----------------------


def test_load_state_dict_moves_the_versions_it_writes() -> None:
    model = sp.nn.Sequential(sp.nn.Linear(2, 2), sp.nn.Tanh(), sp.nn.Linear(2, 1))
    out = model(sp.randn(3, 2)).sum()
    model.load_state_dict({k: v * 0 + 3 for k, v in model.state_dict().items()})
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()


def test_a_checkpointed_input_changed_in_place_is_caught() -> None:
    x = leaf([0.5, 1.0])
    h = x * 1.0
    y = sp.utils.checkpoint.checkpoint(lambda t: (t * t).sum(), h)
    with sp.no_grad():
        h.add_(10.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_a_view_counts_only_while_it_lives() -> None:
    x = leaf([1.0, 2.0])
    h = x * 2
    view = h.reshape(2, 1)
    with pytest.raises(RuntimeError, match="view"):
        h.add_(1)
    del view
    h.tolist()  # views the framework makes and drops
    h.add_(1)
    h.sum().backward()
    close(x.grad, [2.0, 2.0])


def test_a_constant_a_node_used_is_freed_by_reference_counting() -> None:
    import gc
    import weakref

    w = leaf([1.0, 2.0])
    c = sp.tensor(np.ones(2))
    gone = weakref.ref(c)
    (c * w).sum()
    gc.disable()
    try:
        del c
        assert gone() is None
    finally:
        gc.enable()


def test_a_leaf_a_node_holds_is_not_moved_into_the_graph() -> None:
    w, v = leaf([1.0, 2.0]), leaf([5.0, 5.0])
    y = (w * 3.0).sum()
    w.requires_grad_(False)
    with pytest.raises(RuntimeError, match="move a leaf into the graph"):
        w += v
    y.backward()  # y's graph is as it was


def test_fill_with_a_value_that_requires_grad_records_it() -> None:
    x = leaf([1.0, 2.0])
    h = x.sum() * 1.0
    h.fill_(x[0] * 3)
    h.backward()
    close(x.grad, [3.0, 0.0])


def test_div_trunc_keeps_integers() -> None:
    t = sp.tensor([7, -7])
    assert t.div(2, rounding_mode="trunc").tolist() == [3, -3]
    t.div_(2, rounding_mode="trunc")
    assert t.tolist() == [3, -3] and t.dtype == np.int64


def test_a_nodes_inputs_are_the_tensors_forward_took() -> None:
    """Chapter 2's notebook names a node's inputs by identity: the bookkeeping that keeps
    old edges (_holders) leaves node.inputs the very tensors, until an in-place op rebases
    one (then its earlier nodes hold the old tensor's stand-in)."""
    x, w = sp.tensor(np.ones((2, 3))), leaf(np.ones((3, 2)).tolist())
    h = x @ w
    a = h.tanh()
    assert a.grad_fn.inputs[0] is h
    assert h.grad_fn.inputs[0] is x and h.grad_fn.inputs[1] is w
    h.add_(1)  # recorded: a's node now holds h as it was
    held = a.grad_fn.inputs[0]
    assert held is not h and held.grad_fn is h.grad_fn.inputs[0].grad_fn

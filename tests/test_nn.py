"""Chapter 5's ``nn`` on the reference, against PyTorch's documented semantics.

Module bookkeeping (registration by attribute, the tree walks and their dotted names, tied
weights, ``train``/``eval``, ``zero_grad``, ``to``, ``apply``, ``repr``, forward hooks,
``state_dict`` / ``load_state_dict``), the layers, and the losses' numerics: finite at logits
of ±1e4, and every gradient equal to central finite differences in float64. Every expected
value is written here (PyTorch's behaviour, or a closed form in NumPy), never taken from the
code under test. PyTorch itself is the oracle in ``tests/test_torch_nn.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from solutions import ch05_nn as sp
from tests import digits_mlp

nn = sp.nn
F = nn.functional
RNG = np.random.default_rng(5)


def leaf(values, requires_grad: bool = True) -> sp.Tensor:
    """A float64 leaf holding ``values``."""
    return sp.tensor(np.asarray(values, dtype=np.float64), requires_grad=requires_grad)


def numeric_grad(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """∂f/∂x by central differences, f a float of a float64 array."""
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        up = f(x)
        x[i] = old - eps
        down = f(x)
        x[i] = old
        grad[i] = (up - down) / (2 * eps)
    return grad


def gradcheck(fn, *arrays: np.ndarray, rtol: float = 1e-6, atol: float = 1e-8) -> None:
    """fn's gradient (through backward) of ⟨w, fn(*xs)⟩ for a random w equals central
    differences, for every input."""
    arrays = [np.array(a, dtype=np.float64) for a in arrays]
    out = fn(*[leaf(a, requires_grad=False) for a in arrays])
    w = RNG.normal(size=out.shape)

    def scalar(*xs):
        return float((fn(*[leaf(a, requires_grad=False) for a in xs]).data * w).sum())

    leaves = [leaf(a) for a in arrays]
    (fn(*leaves) * leaf(w, requires_grad=False)).sum().backward()
    for k, (t, a) in enumerate(zip(leaves, arrays)):

        def f(x, k=k):
            xs = list(arrays)
            xs[k] = x
            return scalar(*xs)

        np.testing.assert_allclose(t.grad.data, numeric_grad(f, a.copy()), rtol=rtol, atol=atol)


# -- registration (Module.__setattr__) ---------------------------------------------------


class Net(nn.Module):
    """A root with its own parameter and buffer, a child, and a list of children."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.scale = nn.Parameter(sp.ones(4))
        self.blocks = nn.ModuleList([nn.Linear(4, 4), nn.BatchNorm1d(4)])
        self.register_buffer("step", sp.zeros(()))


def test_attributes_register_by_type() -> None:
    net = Net()
    assert list(net._parameters) == ["scale"]
    assert list(net._modules) == ["fc", "blocks"]
    assert list(net._buffers) == ["step"]
    assert "fc" not in net.__dict__ and "scale" not in net.__dict__
    assert net.fc is net._modules["fc"] and net.scale is net._parameters["scale"]
    net.note = "plain"
    net.t = sp.zeros(2)  # a plain Tensor is a plain attribute, as in PyTorch
    assert net.__dict__["note"] == "plain" and "t" in net.__dict__
    assert "t" not in net._parameters and "t" not in net._buffers


def test_assigning_before_init_is_an_attribute_error() -> None:
    class Early(nn.Module):
        def __init__(self) -> None:
            self.fc = nn.Linear(1, 1)
            super().__init__()

    with pytest.raises(AttributeError, match=r"super\(\).__init__\(\)"):
        Early()


def test_a_plain_list_of_modules_is_not_registered() -> None:
    """PyTorch's behaviour too: the list is a plain attribute; ModuleList registers."""

    class Listy(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = [nn.Linear(2, 2)]

    assert list(Listy().parameters()) == []
    assert len(list(nn.ModuleList([nn.Linear(2, 2)]).parameters())) == 2


def test_a_parameter_name_takes_only_parameters_or_none() -> None:
    lin = nn.Linear(2, 3)
    with pytest.raises(TypeError, match="cannot assign 'Tensor' as parameter 'weight'"):
        lin.weight = sp.zeros(3, 2)
    assert isinstance(lin.weight, nn.Parameter)
    lin.bias = None
    assert "bias" in lin._parameters and lin.bias is None
    assert [n for n, _ in lin.named_parameters()] == ["weight"]
    assert list(lin.state_dict()) == ["weight"]


def test_a_module_name_takes_only_modules_or_none() -> None:
    net = Net()
    with pytest.raises(TypeError, match="as child module 'fc'"):
        net.fc = 3
    net.fc = None
    assert "fc" in net._modules and net.fc is None
    assert [n for n, _ in net.named_children()] == ["blocks"]


def test_a_buffer_name_takes_tensors_or_none() -> None:
    net = Net()
    new = sp.ones(())
    net.step = new
    assert net._buffers["step"] is new
    with pytest.raises(TypeError, match="as buffer 'step'"):
        net.step = 1.0
    net.step = None
    assert "step" in net._buffers and list(net.named_buffers(recurse=False)) == []


def test_a_name_lives_in_one_place_only() -> None:
    """Re-registering a name under another kind removes it from the first."""
    net = Net()
    net.note = 1
    net.note = nn.Parameter(sp.zeros(1))
    assert "note" not in net.__dict__ and "note" in net._parameters
    with pytest.raises(TypeError, match="cannot assign 'Linear' as parameter 'note'"):
        net.note = nn.Linear(1, 1)  # PyTorch's: a parameter's name takes a Parameter or None
    del net.note
    net.note = nn.Linear(1, 1)
    assert "note" not in net._parameters and "note" in net._modules
    net.note = nn.Parameter(sp.zeros(1))  # a Parameter takes a child's name over
    assert "note" not in net._modules and "note" in net._parameters
    del net.note
    net.note = nn.Linear(1, 1)
    with pytest.raises(KeyError, match="attribute 'note' already exists"):  # PyTorch's
        net.register_buffer("note", sp.zeros(1))
    del net.note
    net.register_buffer("note", sp.zeros(1))
    assert "note" not in net._modules and "note" in net._buffers
    net.note = None
    assert "note" in net._buffers and net.note is None


def test_delattr_unregisters() -> None:
    net = Net()
    del net.scale
    del net.fc
    del net.step
    assert "scale" not in net._parameters and "fc" not in net._modules
    assert "step" not in net._buffers
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'scale'"):
        _ = net.scale


def test_register_functions_check_their_arguments() -> None:
    m = nn.Module()
    with pytest.raises(TypeError, match="Parameter or None required"):
        m.register_parameter("w", sp.zeros(1))
    with pytest.raises(TypeError, match="Tensor or None required"):
        m.register_buffer("b", np.zeros(1))
    with pytest.raises(TypeError, match="is not a Module subclass"):
        m.add_module("c", 3)
    with pytest.raises(KeyError):
        m.register_buffer("a.b", sp.zeros(1))
    with pytest.raises(KeyError):
        m.add_module("", nn.ReLU())


def test_a_module_without_forward_says_so() -> None:
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        nn.Module()(sp.zeros(1))


# -- the tree: names, order, duplicates ----------------------------------------------------


def test_named_members_follow_pytorchs_order() -> None:
    """Module by module (pre-order), each module's own entries in registration order."""
    net = Net()
    assert [n for n, _ in net.named_modules()] == ["", "fc", "blocks", "blocks.0", "blocks.1"]
    assert [n for n, _ in net.named_parameters()] == [
        "scale",
        "fc.weight",
        "fc.bias",
        "blocks.0.weight",
        "blocks.0.bias",
        "blocks.1.weight",
        "blocks.1.bias",
    ]
    assert [n for n, _ in net.named_buffers()] == [
        "step",
        "blocks.1.running_mean",
        "blocks.1.running_var",
        "blocks.1.num_batches_tracked",
    ]
    assert [n for n, _ in net.named_parameters(recurse=False)] == ["scale"]
    assert [n for n, _ in net.named_parameters(prefix="model")][:2] == [
        "model.scale",
        "model.fc.weight",
    ]
    assert [n for n, _ in net.named_children()] == ["fc", "blocks"]
    assert list(net.modules())[1] is net.fc
    assert [p.shape for p in net.parameters()][:3] == [(4,), (4, 3), (4,)]


def test_a_shared_module_and_a_tied_weight_are_yielded_once() -> None:
    """PyTorch: named_modules / named_parameters skip what they have seen (the first name
    wins) unless remove_duplicate=False; state_dict names a shared tensor under every name."""
    net = nn.Module()
    net.a = nn.Linear(2, 2)
    net.b = net.a  # shared module
    net.c = nn.Linear(2, 2)
    net.c.weight = net.a.weight  # tied weight
    assert [n for n, _ in net.named_modules()] == ["", "a", "c"]
    assert [n for n, _ in net.named_modules(remove_duplicate=False)] == ["", "a", "b", "c"]
    assert [n for n, _ in net.named_parameters()] == ["a.weight", "a.bias", "c.bias"]
    assert [n for n, _ in net.named_parameters(remove_duplicate=False)] == [
        "a.weight",
        "a.bias",
        "b.weight",
        "b.bias",
        "c.weight",
        "c.bias",
    ]
    assert list(net.state_dict()) == [
        "a.weight",
        "a.bias",
        "b.weight",
        "b.bias",
        "c.weight",
        "c.bias",
    ]
    assert [n for n, _ in net.named_children()] == ["a", "c"]
    assert len(list(net.parameters())) == 3


def test_tied_weights_get_both_gradients_and_load_as_one() -> None:
    a, b = nn.Linear(3, 3, dtype=sp.float64), nn.Linear(3, 3, dtype=sp.float64)
    b.weight = a.weight
    x = leaf(RNG.normal(size=(2, 3)), requires_grad=False)
    h = a(x)
    b(h).sum().backward()
    w = a.weight.data
    # L = Σ (h Wᵀ + c), h = x Wᵀ + d: ∂L/∂W = 1ᵀh (from b) + (1 W)ᵀ x (from a)
    ones = np.ones((2, 3))
    expected = ones.T @ h.data + (ones @ w).T @ x.data
    np.testing.assert_allclose(a.weight.grad.data, expected, rtol=1e-12)
    net = nn.Sequential(a, b)
    state = {k: v.detach() + 0.0 for k, v in net.state_dict().items()}
    state["0.weight"] = sp.tensor(np.full((3, 3), 2.0))
    state["1.weight"] = sp.tensor(np.full((3, 3), 2.0))
    net.load_state_dict(state)
    assert a.weight is b.weight and np.all(a.weight.data == 2.0)


def test_containers_index_and_run_in_order() -> None:
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[1], nn.ReLU) and seq[-1] is seq[2]
    assert [n for n, _ in seq[1:].named_children()] == ["0", "1"]
    x = sp.randn(4, 2)
    expected = seq[2](seq[1](seq[0](x)))
    np.testing.assert_array_equal(seq(x).data, expected.data)
    with pytest.raises(IndexError):
        seq[3]
    ml = nn.ModuleList()
    ml.append(nn.ReLU()).extend([nn.Tanh()])
    ml[0] = nn.Sigmoid()
    assert [type(m).__name__ for m in ml] == ["Sigmoid", "Tanh"]
    assert list(ml._modules) == ["0", "1"]


# -- modes, gradients, dtypes, apply, repr ---------------------------------------------------


def test_train_and_eval_reach_every_module() -> None:
    net = nn.Sequential(nn.Sequential(nn.Dropout(), nn.Sequential(nn.BatchNorm1d(2))), nn.ReLU())
    assert net.eval() is net
    assert all(not m.training for m in net.modules())
    assert net.train() is net
    assert all(m.training for m in net.modules())
    net.train(False)
    assert all(not m.training for m in net.modules())
    with pytest.raises(ValueError, match="boolean"):
        net.train("yes")


def test_zero_grad_sets_none_or_zeros() -> None:
    lin = nn.Linear(2, 2)
    lin(sp.randn(3, 2)).sum().backward()
    lin.zero_grad(set_to_none=False)
    assert np.all(lin.weight.grad.data == 0) and lin.weight.grad.shape == (2, 2)
    lin.zero_grad()
    assert lin.weight.grad is None and lin.bias.grad is None


def test_to_dtype_converts_floating_tensors_in_place() -> None:
    net = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    weight = net[0].weight
    net(sp.randn(4, 2)).sum().backward()
    assert net.double() is net
    assert net[0].weight is weight and weight.dtype == np.float64
    assert weight.grad.dtype == np.float64
    assert net[1].running_mean.dtype == np.float64
    assert net[1].num_batches_tracked.dtype == np.int64  # PyTorch leaves integers alone
    net.to(sp.float32)
    assert weight.dtype == np.float32 and net[1].running_var.dtype == np.float32
    with pytest.raises(TypeError):
        net.to()


def test_apply_visits_children_first() -> None:
    net = nn.Sequential(nn.Sequential(nn.ReLU(), nn.Tanh()), nn.Sigmoid())
    seen = []
    assert net.apply(lambda m: seen.append(type(m).__name__)) is net
    assert seen == ["ReLU", "Tanh", "Sequential", "Sigmoid", "Sequential"]


def test_repr_is_pytorchs_layout() -> None:
    net = nn.Sequential(
        nn.Linear(2, 3, bias=False), nn.Sequential(nn.ReLU(), nn.Dropout(0.25)), nn.Softmax(dim=1)
    )
    assert repr(net) == (
        "Sequential(\n"
        "  (0): Linear(in_features=2, out_features=3, bias=False)\n"
        "  (1): Sequential(\n"
        "    (0): ReLU()\n"
        "    (1): Dropout(p=0.25, inplace=False)\n"
        "  )\n"
        "  (2): Softmax(dim=1)\n"
        ")"
    )
    assert repr(nn.Embedding(4, 3)) == "Embedding(4, 3)"
    assert repr(nn.LayerNorm(3)) == "LayerNorm((3,), eps=1e-05, elementwise_affine=True, bias=True)"
    assert repr(nn.GELU("tanh")) == "GELU(approximate='tanh')"
    assert repr(nn.Flatten()) == "Flatten(start_dim=1, end_dim=-1)"
    assert repr(nn.Module()) == "Module()"
    assert repr(nn.Parameter(sp.zeros(1))).startswith("Parameter containing:\n")


def test_forward_hooks_see_and_may_replace_the_output() -> None:
    lin = nn.Linear(2, 2)
    calls = []

    def record(module, args, output):
        calls.append((module, args, output))

    def double(module, args, output):
        return output * 2.0

    h1 = lin.register_forward_hook(record)
    h2 = lin.register_forward_hook(double)
    x = sp.randn(3, 2)
    plain = lin.forward(x)
    out = lin(x)
    np.testing.assert_allclose(out.data, 2 * plain.data, rtol=1e-6)
    ((module, args, output),) = calls
    assert module is lin and args[0] is x and output.shape == (3, 2)
    h2.remove()
    np.testing.assert_allclose(lin(x).data, plain.data, rtol=1e-6)
    h1.remove()
    lin(x)
    assert len(calls) == 2
    h1.remove()  # removing twice is harmless, as in PyTorch


# -- state_dict and load_state_dict -----------------------------------------------------------


def test_state_dict_order_includes_persistent_buffers_only() -> None:
    net = Net()
    net.register_buffer("scratch", sp.zeros(2), persistent=False)
    assert list(net.state_dict()) == [
        "scale",
        "step",
        "fc.weight",
        "fc.bias",
        "blocks.0.weight",
        "blocks.0.bias",
        "blocks.1.weight",
        "blocks.1.bias",
        "blocks.1.running_mean",
        "blocks.1.running_var",
        "blocks.1.num_batches_tracked",
    ]
    assert "scratch" in dict(net.named_buffers())
    sd = net.state_dict()
    assert not sd["fc.weight"].requires_grad
    assert np.shares_memory(sd["fc.weight"].data, net.fc.weight.data)  # detached, not copied
    assert net.state_dict(keep_vars=True)["fc.weight"] is net.fc.weight
    # a non-persistent buffer re-registered as persistent is saved again
    net.register_buffer("scratch", sp.zeros(2))
    assert "scratch" in net.state_dict()


def copy_of(state: dict) -> dict:
    return {k: sp.tensor(np.array(v.data)) for k, v in state.items()}


def test_load_state_dict_copies_in_place() -> None:
    src, dst = Net(), Net()
    src.blocks[1].running_mean.data[...] = 3.0
    weight = dst.fc.weight
    result = dst.load_state_dict(copy_of(src.state_dict()))
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert tuple(result) == ([], [])
    assert dst.fc.weight is weight
    for key, value in src.state_dict().items():
        np.testing.assert_array_equal(dst.state_dict()[key].data, value.data)


def test_strict_loading_names_every_problem_and_copies_nothing() -> None:
    net = Net()
    before = {k: np.array(v.data) for k, v in net.state_dict().items()}
    state = copy_of(Net().state_dict())
    del state["fc.bias"], state["blocks.1.running_var"]
    state["extra.weight"] = sp.zeros(1)
    state["fc.weight"] = sp.zeros(5, 3)
    with pytest.raises(RuntimeError) as raised:
        net.load_state_dict(state)
    assert str(raised.value) == (
        "Error(s) in loading state_dict for Net:\n"
        '\tMissing key(s) in state_dict: "fc.bias", "blocks.1.running_var". \n'
        '\tUnexpected key(s) in state_dict: "extra.weight". \n'
        "\tsize mismatch for fc.weight: copying a param with shape (5, 3) from checkpoint, "
        "the shape in current model is (4, 3)."
    )
    for key, value in net.state_dict().items():
        np.testing.assert_array_equal(value.data, before[key])


def test_non_strict_loading_returns_the_keys_but_still_checks_shapes() -> None:
    lin = nn.Linear(2, 3)
    new = np.arange(6.0).reshape(3, 2)
    result = lin.load_state_dict({"weight": sp.tensor(new), "other": sp.zeros(1)}, strict=False)
    assert result == (["bias"], ["other"])
    assert result.missing_keys == ["bias"] and result.unexpected_keys == ["other"]
    np.testing.assert_array_equal(lin.weight.data, new)
    bias = np.array(lin.bias.data)
    with pytest.raises(RuntimeError, match=r"size mismatch for weight: .* \(2, 2\) .* \(3, 2\)"):
        lin.load_state_dict({"weight": sp.zeros(2, 2), "bias": sp.ones(3)}, strict=False)
    np.testing.assert_array_equal(lin.bias.data, bias)  # nothing copied
    with pytest.raises(TypeError, match="dict-like"):
        lin.load_state_dict([("weight", sp.zeros(3, 2))])


def test_load_state_dict_loads_batchnorm_buffers() -> None:
    a, b = nn.BatchNorm1d(3), nn.BatchNorm1d(3)
    a(sp.randn(8, 3))
    b.load_state_dict(a.state_dict())
    assert int(b.num_batches_tracked.data) == 1
    np.testing.assert_array_equal(b.running_var.data, a.running_var.data)


# -- layers ------------------------------------------------------------------------------


def test_linear_forward_init_and_checks() -> None:
    sp.manual_seed(0)
    lin = nn.Linear(400, 50)
    bound = 1 / math.sqrt(400)
    for p in (lin.weight, lin.bias):
        assert p.dtype == np.float32 and p.requires_grad
        assert np.abs(p.data).max() <= bound
    assert np.abs(lin.weight.data).max() > 0.95 * bound  # spread over the whole interval
    assert lin.weight.shape == (50, 400) and lin.bias.shape == (50,)
    x = sp.randn(7, 400)
    np.testing.assert_allclose(
        lin(x).data, x.data @ lin.weight.data.T + lin.bias.data, rtol=1e-5, atol=1e-6
    )
    assert lin(sp.randn(2, 3, 400)).shape == (2, 3, 50)
    nb = nn.Linear(3, 2, bias=False, dtype=sp.float64)
    assert nb.bias is None and nb.weight.dtype == np.float64
    with pytest.raises(RuntimeError, match="last size must be 3"):
        nb(sp.randn(2, 4))
    with pytest.raises(ValueError, match="non-negative int"):
        nn.Linear(2.5, 3)
    gradcheck(
        lambda x, w, b: F.linear(x, w, b),
        RNG.normal(size=(4, 3)),
        RNG.normal(size=(2, 3)),
        RNG.normal(size=2),
    )


def test_flatten() -> None:
    x = sp.randn(2, 3, 4, 5)
    assert nn.Flatten()(x).shape == (2, 60)
    assert nn.Flatten(0, -1)(x).shape == (120,)
    assert nn.Flatten(1, 2)(x).shape == (2, 12, 5)
    np.testing.assert_array_equal(nn.Flatten()(x).data, x.data.reshape(2, 60))
    with pytest.raises(ValueError, match="start_dim comes after end_dim"):
        nn.Flatten(2, 1)(x)


def test_embedding_picks_rows_and_adds_repeated_gradients() -> None:
    emb = nn.Embedding(5, 3)
    assert emb.weight.shape == (5, 3) and emb.weight.requires_grad
    ids = sp.tensor(np.array([[1, 4], [1, 1]]))
    out = emb(ids)
    assert out.shape == (2, 2, 3)
    np.testing.assert_array_equal(out.data, emb.weight.data[[[1, 4], [1, 1]]])
    out.sum().backward()
    np.testing.assert_array_equal(emb.weight.grad.data[:, 0], [0, 3, 0, 0, 1])
    with pytest.raises(IndexError, match="out of range"):
        emb(sp.tensor(np.array([5])))
    with pytest.raises(TypeError, match="integer indices"):
        emb(sp.tensor(np.array([1.0])))


def test_layernorm_standardises_each_example() -> None:
    ln = nn.LayerNorm((3, 4)).double()
    ln.weight.data[...] = RNG.normal(size=(3, 4))
    ln.bias.data[...] = RNG.normal(size=(3, 4))
    x = RNG.normal(size=(2, 3, 4)) * 5 + 2
    mu = x.mean(axis=(1, 2), keepdims=True)
    var = x.var(axis=(1, 2), keepdims=True)
    expected = (x - mu) / np.sqrt(var + 1e-5) * ln.weight.data + ln.bias.data
    np.testing.assert_allclose(ln(leaf(x)).data, expected, rtol=1e-12)
    gradcheck(lambda t: nn.LayerNorm(4).double()(t), RNG.normal(size=(3, 4)))
    with pytest.raises(ValueError, match="last axes"):
        ln(sp.randn(2, 4, 3))


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5)])
def test_batchnorm_train_then_eval(shape: tuple) -> None:
    bn = nn.BatchNorm1d(3, momentum=0.3).double()
    bn.weight.data[...] = [1.0, 2.0, -1.0]
    bn.bias.data[...] = [0.0, 0.5, 1.0]
    axes = (0,) if len(shape) == 2 else (0, 2)
    view = (1, 3) + (1,) * (len(shape) - 2)
    rm, rv = np.zeros(3), np.ones(3)
    for step in range(3):
        x = RNG.normal(size=shape) * (step + 1) + step
        out = bn(leaf(x))
        mu, var = x.mean(axis=axes), x.var(axis=axes)
        n = x.size // 3
        expected = (x - mu.reshape(view)) / np.sqrt(var.reshape(view) + 1e-5)
        expected = expected * bn.weight.data.reshape(view) + bn.bias.data.reshape(view)
        np.testing.assert_allclose(out.data, expected, rtol=1e-10, atol=1e-12)
        rm = 0.7 * rm + 0.3 * mu
        rv = 0.7 * rv + 0.3 * var * n / (n - 1)
        np.testing.assert_allclose(bn.running_mean.data, rm, rtol=1e-12)
        np.testing.assert_allclose(bn.running_var.data, rv, rtol=1e-12)
    assert int(bn.num_batches_tracked.data) == 3
    bn.eval()
    x = RNG.normal(size=shape)
    expected = (x - rm.reshape(view)) / np.sqrt(rv.reshape(view) + 1e-5)
    expected = expected * bn.weight.data.reshape(view) + bn.bias.data.reshape(view)
    np.testing.assert_allclose(bn(leaf(x)).data, expected, rtol=1e-10)
    assert int(bn.num_batches_tracked.data) == 3  # eval leaves the statistics alone
    np.testing.assert_allclose(bn.running_mean.data, rm, rtol=1e-12)
    one = RNG.normal(size=(1, *shape[1:]))
    assert bn(leaf(one)).shape == one.shape  # eval takes a single example


def test_batchnorm_gradient_through_batch_statistics() -> None:
    bn = nn.BatchNorm1d(3).double()
    gradcheck(lambda t: bn(t), RNG.normal(size=(5, 3)))
    gradcheck(lambda t: bn(t), RNG.normal(size=(2, 3, 4)))


def test_batchnorm_momentum_none_is_the_cumulative_average() -> None:
    bn = nn.BatchNorm1d(2, momentum=None).double()
    batches = [RNG.normal(size=(4, 2)) + k for k in range(4)]
    for x in batches:
        bn(leaf(x))
    np.testing.assert_allclose(
        bn.running_mean.data, np.mean([x.mean(axis=0) for x in batches], axis=0), rtol=1e-12
    )
    np.testing.assert_allclose(
        bn.running_var.data,
        np.mean([x.var(axis=0, ddof=1) for x in batches], axis=0),
        rtol=1e-12,
    )


def test_batchnorm_without_running_stats_or_affine() -> None:
    bn = nn.BatchNorm1d(2, affine=False, track_running_stats=False).double().eval()
    assert list(bn.state_dict()) == [] and list(bn.parameters()) == []
    x = RNG.normal(size=(5, 2))
    expected = (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5)
    np.testing.assert_allclose(bn(leaf(x)).data, expected, rtol=1e-10)  # batch stats in eval
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        nn.BatchNorm1d(2)(sp.randn(1, 2))
    with pytest.raises(ValueError, match=r"\(N, 2\)"):
        nn.BatchNorm1d(2)(sp.randn(4, 3))


def test_dropout_scales_what_it_keeps_and_is_off_in_eval() -> None:
    sp.manual_seed(1)
    drop = nn.Dropout(0.25)
    x = leaf(np.ones((200, 100)))
    out = drop(x)
    kept = out.data != 0
    assert abs(kept.mean() - 0.75) < 0.01  # 20,000 draws: 5 standard deviations is 0.015
    np.testing.assert_allclose(out.data[kept], 1 / 0.75)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.data, out.data)  # the same mask, the same scale
    assert not np.array_equal(drop(x).data, out.data)  # a new mask on every call
    drop.eval()
    assert drop(x) is x
    assert F.dropout(x, 0.0) is x
    assert np.all(F.dropout(x, 1.0).data == 0)
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout(1.5)
    g1, g2 = sp.Generator().manual_seed(3), sp.Generator().manual_seed(3)
    np.testing.assert_array_equal(
        F.dropout(x, 0.5, generator=g1).data, F.dropout(x, 0.5, generator=g2).data
    )


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_values_and_gradient(approximate: str) -> None:
    x = np.linspace(-6, 6, 25)
    if approximate == "none":
        expected = x * 0.5 * (1 + np.array([math.erf(v / math.sqrt(2)) for v in x]))
    else:
        expected = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    np.testing.assert_allclose(nn.GELU(approximate)(leaf(x)).data, expected, rtol=1e-12)
    gradcheck(lambda t: F.gelu(t, approximate), x)
    with pytest.raises(ValueError, match="none or tanh"):
        F.gelu(leaf(x), "fast")


def test_simple_activations() -> None:
    x = RNG.normal(size=(3, 4))
    np.testing.assert_allclose(nn.ReLU()(leaf(x)).data, np.maximum(x, 0))
    np.testing.assert_allclose(nn.Tanh()(leaf(x)).data, np.tanh(x), rtol=1e-12)
    np.testing.assert_allclose(nn.Sigmoid()(leaf(x)).data, 1 / (1 + np.exp(-x)), rtol=1e-12)
    np.testing.assert_allclose(
        nn.LogSoftmax(dim=0)(leaf(x)).data, x - np.log(np.exp(x).sum(0)), rtol=1e-12
    )


# -- softmax and the losses: values, ±1e4, gradients ----------------------------------------


def np_log_softmax(z: np.ndarray, axis: int) -> np.ndarray:
    m = z.max(axis=axis, keepdims=True)
    return z - m - np.log(np.exp(z - m).sum(axis=axis, keepdims=True))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_and_log_softmax_values_and_gradients(dim: int) -> None:
    z = RNG.normal(size=(3, 4)) * 3
    np.testing.assert_allclose(
        F.softmax(leaf(z), dim=dim).data, np.exp(np_log_softmax(z, dim)), rtol=1e-12
    )
    np.testing.assert_allclose(
        F.log_softmax(leaf(z), dim=dim).data, np_log_softmax(z, dim), rtol=1e-12
    )
    gradcheck(lambda t: F.softmax(t, dim=dim), z)
    gradcheck(lambda t: F.log_softmax(t, dim=dim), z)


def test_softmax_needs_a_dim_in_range() -> None:
    with pytest.raises(TypeError, match="dim="):
        F.softmax(leaf([1.0, 2.0]))
    with pytest.raises(IndexError, match="out of range"):
        F.softmax(leaf([1.0, 2.0]), dim=1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_family_is_finite_at_plus_minus_1e4(dtype) -> None:
    z = sp.tensor(np.array([[1e4, -1e4, 0.0], [-1e4, -1e4, -1e4]], dtype), requires_grad=True)
    p = F.softmax(z, dim=1)
    np.testing.assert_allclose(p.data, [[1, 0, 0], [1 / 3, 1 / 3, 1 / 3]], rtol=1e-6)
    lp = F.log_softmax(z, dim=1)
    np.testing.assert_allclose(lp.data, [[0, -2e4, -1e4], [-math.log(3)] * 3], rtol=1e-6)
    (lp * sp.tensor(np.ones((2, 3), dtype))).sum().backward()
    assert np.isfinite(z.grad.data).all()
    z.grad = None
    loss = F.cross_entropy(z, sp.tensor(np.array([1, 2])), reduction="none")
    np.testing.assert_allclose(loss.data, [2e4, math.log(3)], rtol=1e-6)
    loss.sum().backward()
    np.testing.assert_allclose(
        z.grad.data, [[1, -1, 0], [1 / 3, 1 / 3, -2 / 3]], rtol=1e-6, atol=1e-7
    )
    x = sp.tensor(np.array([1e4, -1e4, 1e4, -1e4], dtype), requires_grad=True)
    y = sp.tensor(np.array([0.0, 1.0, 1.0, 0.0], dtype))
    bce = F.binary_cross_entropy_with_logits(x, y, reduction="none")
    np.testing.assert_allclose(bce.data, [1e4, 1e4, 0, 0], atol=1e-6)
    bce.sum().backward()
    np.testing.assert_allclose(x.grad.data, [1, -1, 0, 0], atol=1e-6)


def test_second_derivatives_through_softmax() -> None:
    """With create_graph, the gradient of ⟨w, softmax(z)⟩ is itself differentiable: its
    Hessian-vector product equals finite differences of the gradient."""
    z0, w, v = RNG.normal(size=(2, 4)), RNG.normal(size=(2, 4)), RNG.normal(size=(2, 4))

    def grad_at(z: np.ndarray, fn) -> np.ndarray:
        t = leaf(z)
        (g,) = sp.autograd.grad((fn(t) * leaf(w, False)).sum(), t)
        return g.data

    for fn in (lambda t: F.softmax(t, dim=1), lambda t: F.log_softmax(t, dim=1)):
        z = leaf(z0)
        (g,) = sp.autograd.grad((fn(z) * leaf(w, False)).sum(), z, create_graph=True)
        assert g.requires_grad
        (hv,) = sp.autograd.grad((g * leaf(v, False)).sum(), z)
        eps = 1e-6
        numeric = (grad_at(z0 + eps * v, fn) - grad_at(z0 - eps * v, fn)) / (2 * eps)
        np.testing.assert_allclose(hv.data, numeric, rtol=1e-6, atol=1e-8)


def np_cross_entropy(z, t, ignore_index=-100, smoothing=0.0, reduction="mean"):
    """PyTorch's definition, rows (M, C), written plainly."""
    lp = np_log_softmax(z, 1)
    keep = t != ignore_index
    safe = np.where(keep, t, 0)
    loss = -(1 - smoothing) * lp[np.arange(len(t)), safe] - smoothing * lp.mean(1)
    loss = np.where(keep, loss, 0.0)
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.sum() / keep.sum()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
@pytest.mark.parametrize("ignore", [False, True])
def test_cross_entropy_values_and_gradients(reduction, smoothing, ignore) -> None:
    z = RNG.normal(size=(6, 4)) * 2
    t = np.array([0, 3, 1, 1, 2, 0])
    if ignore:
        t[[1, 4]] = -1
    expected = np_cross_entropy(z, t, -1, smoothing, reduction)
    kw = dict(ignore_index=-1, reduction=reduction, label_smoothing=smoothing)
    got = F.cross_entropy(leaf(z), sp.tensor(t), **kw)
    np.testing.assert_allclose(got.data, expected, rtol=1e-12)
    module = nn.CrossEntropyLoss(**kw)(leaf(z), sp.tensor(t))
    np.testing.assert_allclose(module.data, expected, rtol=1e-12)
    gradcheck(lambda x: F.cross_entropy(x, t, **kw), z)
    if ignore:
        x = leaf(z)
        F.cross_entropy(x, t, **kw).sum().backward()
        assert np.all(x.grad.data[[1, 4]] == 0)  # ignored rows get no gradient


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_classes_on_axis_1(reduction: str) -> None:
    """(N, C, d1, d2) logits and (N, d1, d2) targets: the classes are axis 1."""
    z = RNG.normal(size=(2, 3, 2, 2))
    t = RNG.integers(0, 3, size=(2, 2, 2))
    t[0, 1, 0] = -100
    rows = np.moveaxis(z, 1, -1).reshape(-1, 3)
    expected = np_cross_entropy(rows, t.reshape(-1), reduction=reduction)
    got = F.cross_entropy(leaf(z), sp.tensor(t), reduction=reduction)
    assert got.shape == (() if reduction != "none" else (2, 2, 2))
    np.testing.assert_allclose(got.data, np.reshape(expected, got.shape), rtol=1e-12)
    gradcheck(lambda x: F.cross_entropy(x, t, reduction=reduction, label_smoothing=0.1), z)
    one = F.cross_entropy(leaf(z[0, :, 0, 0]), sp.tensor(np.array(t[0, 0, 0])))
    assert one.shape == ()  # (C,) logits and a () target: one example


def test_cross_entropy_mean_of_all_ignored_is_nan_and_errors_are_clear() -> None:
    z = leaf(RNG.normal(size=(2, 3)))
    assert math.isnan(float(F.cross_entropy(z, np.array([-100, -100])).data))
    with pytest.raises(IndexError, match="Target 3 is out of bounds"):
        F.cross_entropy(z, np.array([0, 3]))
    with pytest.raises(TypeError, match="class indices"):
        F.cross_entropy(z, np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="target of shape"):
        F.cross_entropy(z, np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="reduction"):
        F.cross_entropy(z, np.array([0, 1]), reduction="avg")
    with pytest.raises(ValueError, match="label_smoothing"):
        F.cross_entropy(z, np.array([0, 1]), label_smoothing=1.5)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_with_logits_and_mse(reduction: str) -> None:
    x, y = RNG.normal(size=(3, 4)) * 3, RNG.uniform(size=(3, 4))
    p = 1 / (1 + np.exp(-x))
    bce = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    mse = (x - y) ** 2
    reduce = {"mean": np.mean, "sum": np.sum, "none": lambda a: a}[reduction]
    got = nn.BCEWithLogitsLoss(reduction=reduction)(leaf(x), leaf(y))
    np.testing.assert_allclose(got.data, reduce(bce), rtol=1e-10)
    np.testing.assert_allclose(
        nn.MSELoss(reduction=reduction)(leaf(x), leaf(y)).data, reduce(mse), rtol=1e-12
    )
    gradcheck(lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction), x, y)
    gradcheck(lambda a, b: F.mse_loss(a, b, reduction), x, y)


def test_loss_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="reduction"):
        nn.MSELoss(reduction="avg")
    with pytest.raises(ValueError, match="Target size"):
        F.binary_cross_entropy_with_logits(leaf([1.0, 2.0]), leaf([1.0]))
    with pytest.warns(UserWarning, match="different to the input size"):
        F.mse_loss(leaf([[1.0, 2.0]]), leaf([1.0, 2.0]).reshape(2, 1))


# -- the digits MLP of "Done means" (PyTorch's side: tests/test_torch_nn.py) --------------------


def test_digits_mlp_reaches_95_percent() -> None:
    """64-128-10, hand-written SGD lr 0.1, batch 32, 30 epochs, seeded weights and order."""
    accuracy = digits_mlp.sparrow_accuracy(0)
    print(f"digits MLP test accuracy: Sparrow {accuracy:.2%}")
    assert accuracy >= 0.95


# -- PyTorch habits (the review of issue 14) ---------------------------------------------------


def test_parameters_update_in_place_under_no_grad() -> None:
    """`p -= lr * p.grad` changes the parameter itself (Python would otherwise rebind p)."""
    model = nn.Linear(3, 1)
    weight, before = model.weight, model.weight.data.copy()
    model(sp.ones(2, 3)).sum().backward()
    with sp.no_grad():
        for p in model.parameters():
            p -= 0.5 * p.grad
    assert model.weight is weight
    np.testing.assert_allclose(weight.data, before - 0.5 * weight.grad.data)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        model.weight *= 2.0


def test_to_takes_pytorchs_arguments() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    weight = model[0].weight
    model.to("cpu", sp.float64)
    assert model[0].weight is weight and weight.dtype == np.float64
    assert model[1].num_batches_tracked.dtype == np.int64  # integer buffers keep their dtype
    model.to(sp.zeros(1, dtype=sp.float32))
    assert weight.dtype == np.float32
    with pytest.raises(TypeError, match="only accepts floating point dtypes"):
        model.to(sp.int64)


def test_registering_over_another_attribute_is_refused() -> None:
    net = nn.Linear(1, 1)
    with pytest.raises(KeyError, match="attribute 'training' already exists"):
        net.add_module("training", nn.ReLU())
    with pytest.raises(TypeError, match="a registered name is a string"):
        net.register_buffer(3, sp.zeros(1))


def test_sequential_of_an_ordered_dict_names_its_children() -> None:
    from collections import OrderedDict

    model = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 3)), ("act", nn.ReLU())]))
    assert [name for name, _ in model.named_parameters()] == ["fc.weight", "fc.bias"]
    assert model(sp.ones(4, 2)).shape == (4, 3)


def test_flatten_refuses_dimensions_out_of_range() -> None:
    with pytest.raises(IndexError, match="Dimension out of range"):
        nn.Flatten()(sp.ones(3))
    with pytest.raises(IndexError, match="Dimension out of range"):
        nn.Flatten(3)(sp.ones(2, 3))


def test_linear_names_a_dtype_mismatch() -> None:
    with pytest.raises(TypeError, match="weight is float32 and the input float64"):
        nn.Linear(2, 1)(sp.tensor(np.ones((1, 2))))


def test_load_state_dict_result_prints_as_pytorchs() -> None:
    model = nn.Linear(2, 1)
    assert repr(model.load_state_dict(model.state_dict())) == "<All keys matched successfully>"


def test_cross_entropy_names_a_wrong_target_shape_for_one_example() -> None:
    with pytest.raises(ValueError, match=r"need a target of shape \(\), got \(2,\)"):
        nn.functional.cross_entropy(sp.zeros(3), sp.tensor([0, 1]))


def test_generator_seeds() -> None:
    assert isinstance(sp.Generator().initial_seed(), int)
    a = sp.randperm(10, generator=sp.Generator().manual_seed(-1)).tolist()
    assert a == sp.randperm(10, generator=sp.Generator().manual_seed(-1)).tolist()

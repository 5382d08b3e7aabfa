"""Issue 27, wave 2 (W2) without PyTorch: rrelu's random slopes by their statistics; prelu,
rrelu, the backward hooks and LBFGS on the simulated device giving the CPU's values; prelu's
gradients against NumPy; the hooks' plumbing (a model without hooks records no extra node,
removal, second backward); Module.type/half; save/load of NumPy arrays, PyTorch's pickle
arguments and error types."""

from __future__ import annotations

import io
import pickle

import numpy as np
import pytest

from solutions import ch07_device as sp

nn, F = sp.nn, sp.nn.functional


def leaf(a, device=None) -> sp.Tensor:
    return sp.tensor(np.asarray(a, dtype=np.float64), device=device, requires_grad=True)


# -- prelu: values and gradients against NumPy -----------------------------------------------


def test_prelu_against_numpy_per_channel():
    rng = np.random.default_rng(1)
    xa = rng.standard_normal((4, 3, 5))
    xa[0, 0, 0] = 0.0
    wa, ga = np.array([0.1, -0.3, 2.0]), rng.standard_normal((4, 3, 5))
    x, w = leaf(xa), leaf(wa)
    y = F.prelu(x, w)
    y.backward(sp.tensor(ga))
    wb = wa[None, :, None]
    np.testing.assert_allclose(y.detach().numpy(), np.where(xa > 0, xa, wb * xa), rtol=1e-15)
    np.testing.assert_allclose(x.grad.numpy(), ga * np.where(xa > 0, 1.0, wb), rtol=1e-15)
    want_w = (ga * xa * (xa <= 0)).sum(axis=(0, 2))
    np.testing.assert_allclose(w.grad.numpy(), want_w, rtol=1e-13)
    assert x.grad.numpy()[0, 0, 0] == ga[0, 0, 0] * 0.1  # the slope at 0, as PyTorch


def test_prelu_keeps_float32_and_module_dtype_device():
    m = nn.PReLU(2)
    assert m.weight.dtype == np.float32 and m.weight.shape == (2,)
    assert F.prelu(sp.ones(3, 2), m.weight).dtype == np.float32
    m64 = nn.PReLU(dtype=sp.float64, device="sim")
    assert m64.weight.dtype == np.float64 and str(m64.weight.device) == "sim:0"


# -- rrelu: statistics in training ---------------------------------------------------------------


def test_rrelu_training_slopes_are_uniform_and_the_gradient_is_the_slope():
    sp.manual_seed(0)
    n = 20000
    x = leaf(-np.ones(n))
    y = F.rrelu(x, 0.1, 0.3, training=True)
    y.sum().backward()
    slopes = -y.detach().numpy()
    np.testing.assert_array_equal(x.grad.numpy(), slopes)  # ∂out/∂x = r
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3
    # U(0.1, 0.3): mean 0.2, sd 0.2/√12; the mean of n draws within 5 standard errors
    assert abs(slopes.mean() - 0.2) < 5 * (0.2 / np.sqrt(12)) / np.sqrt(n)
    counts, _ = np.histogram(slopes, bins=10, range=(0.1, 0.3))
    chi2 = ((counts - n / 10) ** 2 / (n / 10)).sum()
    assert chi2 < 27.88  # chi-square, 9 degrees of freedom, p = 0.001


def test_rrelu_training_keeps_positives_and_draws_anew():
    sp.manual_seed(1)
    xa = np.array([-1.0, 2.0, -3.0, 0.5])
    a = F.rrelu(sp.tensor(xa), training=True).numpy()
    b = F.rrelu(sp.tensor(xa), training=True).numpy()
    assert a[1] == 2.0 and a[3] == 0.5
    assert not np.array_equal(a, b)
    sp.manual_seed(1)
    np.testing.assert_array_equal(F.rrelu(sp.tensor(xa), training=True).numpy(), a)


def test_rrelu_module_follows_train_and_eval():
    m = nn.RReLU(0.2, 0.2)  # lower == upper: the slope is fixed either way
    x = sp.tensor([-1.0, 1.0])
    np.testing.assert_allclose(m(x).numpy(), [-0.2, 1.0], rtol=1e-6)
    m.eval()
    np.testing.assert_allclose(m(x).numpy(), [-0.2, 1.0], rtol=1e-6)
    assert F.rrelu(sp.tensor([-1.0]), 0.5, 0.1).numpy()[0] == pytest.approx(-0.3)  # eval


# -- the simulated device gives the CPU's values ------------------------------------------------


def _hooked_run(device):
    sp.manual_seed(4)
    lin = nn.Linear(3, 2).double().to(device if device else "cpu")
    seen = []
    lin.register_full_backward_pre_hook(lambda m, go: (go[0] * 2,))
    lin.register_full_backward_hook(lambda m, gi, go: seen.append(gi[0].cpu().numpy()))
    x = leaf(np.arange(6.0).reshape(2, 3) / 5, device=device)
    out = F.prelu(lin(x), sp.tensor([0.25], dtype=sp.float64, device=device))
    out.pow(2).sum().backward()
    return [out.detach().cpu().numpy(), x.grad.cpu().numpy(), lin.weight.grad.cpu().numpy(), *seen]


def test_hooks_and_prelu_on_the_simulated_device():
    for a, b in zip(_hooked_run(None), _hooked_run("sim"), strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-14, atol=1e-15)


def _lbfgs_run(device):
    p = nn.Parameter(sp.tensor([-1.2, 1.0], dtype=sp.float64, device=device))
    opt = sp.optim.LBFGS([p], line_search_fn="strong_wolfe", max_iter=10)

    def closure():
        opt.zero_grad()
        loss = (1 - p[0]) ** 2 + 10 * (p[1] - p[0] ** 2) ** 2
        loss.backward()
        return loss

    for _ in range(3):
        opt.step(closure)
    return p.detach().cpu().numpy(), opt.state[p]["func_evals"]


def test_lbfgs_on_the_simulated_device():
    (a, ea), (b, eb) = _lbfgs_run(None), _lbfgs_run("sim")
    np.testing.assert_allclose(b, a, rtol=1e-13)
    assert ea == eb
    np.testing.assert_allclose(a, [1.0, 1.0], atol=1e-4)  # near the valley's minimum


def test_lbfgs_state_dict_round_trip_continues_the_same_way():
    def make():
        p = nn.Parameter(sp.tensor([-1.2, 1.0], dtype=sp.float64))
        return p, sp.optim.LBFGS([p], max_iter=3, history_size=4)

    def closure_for(p, opt):
        def closure():
            opt.zero_grad()
            loss = (1 - p[0]) ** 2 + 10 * (p[1] - p[0] ** 2) ** 2
            loss.backward()
            return loss

        return closure

    p, opt = make()
    opt.step(closure_for(p, opt))
    q, other = make()
    q.data[...] = p.data
    other.load_state_dict(opt.state_dict())
    opt.step(closure_for(p, opt))
    other.step(closure_for(q, other))
    np.testing.assert_array_equal(q.detach().numpy(), p.detach().numpy())


def test_lbfgs_requires_a_closure():
    opt = sp.optim.LBFGS([nn.Parameter(sp.zeros(2))])
    with pytest.raises(TypeError):
        opt.step()
    with pytest.raises(RuntimeError, match="requires a closure"):
        opt.step(None)


# -- hooks: the plumbing ---------------------------------------------------------------------


def test_a_module_without_backward_hooks_records_no_extra_node():
    lin = nn.Linear(2, 2)
    out = lin(leaf([[1.0, 2.0]]).float())
    assert "Join" not in out.grad_fn.name() and "Pick" not in out.grad_fn.name()
    h = lin.register_full_backward_hook(lambda *a: None)
    assert out.grad_fn.name() != lin(leaf([[1.0, 2.0]]).float()).grad_fn.name()  # a Pick
    h.remove()
    assert lin(leaf([[1.0, 2.0]]).float()).grad_fn.name() == out.grad_fn.name()


def test_backward_hooks_run_on_each_backward_with_retain_graph():
    lin = nn.Linear(2, 1).double()
    calls = []
    lin.register_full_backward_hook(lambda m, gi, go: calls.append(gi[0].numpy().copy()))
    x = leaf([[1.0, -1.0]])
    out = lin(x).sum()
    out.backward(retain_graph=True)
    out.backward()
    assert len(calls) == 2
    np.testing.assert_array_equal(calls[0], calls[1])
    np.testing.assert_array_equal(x.grad.numpy(), 2 * calls[0])


def test_backward_hooks_do_not_run_under_no_grad_and_hook_count_errors():
    lin = nn.Linear(2, 1)
    lin.register_full_backward_pre_hook(lambda m, go: (go[0], go[0]))  # one too many
    with sp.no_grad():
        assert lin(sp.ones(1, 2)).grad_fn is None
    with pytest.raises(RuntimeError, match="invalid number of grad_output, got 2, but expected 1"):
        lin(sp.ones(1, 2, requires_grad=True)).sum().backward()


# -- Module.type, half -----------------------------------------------------------------------------


def test_module_type_and_half():
    bn = nn.BatchNorm1d(2)
    assert bn.type(sp.float64) is bn
    assert bn.weight.dtype == np.float64 and bn.num_batches_tracked.dtype == np.float64
    bn.type("torch.FloatTensor")
    assert bn.running_mean.dtype == np.float32
    lin = nn.Linear(2, 2)
    weight = lin.weight
    lin.half()
    assert lin.weight is weight and weight.dtype == np.float16


# -- save / load -------------------------------------------------------------------------------


def test_save_stores_numpy_arrays_and_takes_pytorchs_pickle_arguments(tmp_path):
    arrays = {
        "f": np.random.default_rng(0).standard_normal((3, 2)),
        "i": np.array([1, 2, 3], dtype=np.int32),
        "b": np.array([True, False]),
        "scalar": np.array(2.5),
        "c": np.array([1 + 2j]),
    }
    obj = {"arrays": arrays, "t": sp.tensor([1.0, 2.0]), "nested": [np.arange(4)]}
    path = tmp_path / "m.pt"
    sp.save(obj, path, pickle_module=pickle, pickle_protocol=4)
    back = sp.load(path, pickle_module=pickle, weights_only=True, mmap=False)
    for key, value in arrays.items():
        assert isinstance(back["arrays"][key], np.ndarray)
        assert back["arrays"][key].dtype == value.dtype
        np.testing.assert_array_equal(back["arrays"][key], value)
    assert isinstance(back["t"], sp.Tensor)
    np.testing.assert_array_equal(back["nested"][0], np.arange(4))
    with pytest.raises(TypeError, match="an array of dtype object"):
        sp.save({"o": np.array([object()])}, tmp_path / "o.pt")


def test_load_errors_are_also_pytorchs_types(tmp_path):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"invalid pickle data")
    with pytest.raises(pickle.UnpicklingError, match="not a file that save"):
        sp.load(bad)
    with pytest.raises(ValueError):
        sp.load(bad)
    empty = tmp_path / "empty.pt"
    empty.write_bytes(b"")
    with pytest.raises(EOFError, match="it is empty"):
        sp.load(empty)
    with pytest.raises(ValueError, match="it is empty"):
        sp.load(io.BytesIO(b""))

"""Issue 27, wave 2 (W2): module hooks, ModuleDict/ParameterList/ParameterDict,
Module.type, prelu/rrelu against PyTorch (float64, values and gradients to 1e-10)."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from solutions import ch07_device as sp  # noqa: E402

TOL = 1e-10


def _np(t):
    return None if t is None else t.detach().cpu().numpy()


def _close(a, b):
    if a is None or b is None:
        assert a is None and b is None, (a, b)
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=TOL, atol=TOL)


def _grads(gs):
    return [None if g is None else _np(g) for g in gs]


def _set(lib, param, array):
    """A parameter's values set outside the graph, in either library."""
    param.data[...] = array if lib is sp else torch.tensor(array, dtype=param.dtype)


# -- backward hooks ---------------------------------------------------------------------------


def _two_in_two_out(lib):
    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = lib.nn.Parameter(lib.tensor(np.array([1.0, -2.0, 0.5])))

        def forward(self, a, b, k, c):
            return a * self.w * b * k + c, (a * a).sum()

    return M()


def _run_hooks(lib, replace_in, replace_out, use_second=True, c_grad=True):
    m = _two_in_two_out(lib)
    log = []

    def pre(module, grad_output):
        assert module is m
        log.append(("pre", _grads(grad_output)))
        if replace_out:
            return (grad_output[0] * 3, grad_output[1])

    def full(module, grad_input, grad_output):
        log.append(("full", _grads(grad_input), _grads(grad_output)))
        if replace_in:
            return tuple(None if g is None else g * 10 for g in grad_input)

    m.register_full_backward_pre_hook(pre)
    m.register_full_backward_hook(full)
    a = lib.tensor(np.array([1.0, -1.0, 2.0]), requires_grad=True)
    b = lib.tensor(np.array([0.5, 0.25, -0.5]))  # requires no gradient
    c = lib.tensor(np.array([2.0, 3.0, 4.0]), requires_grad=c_grad)
    y, s = m(a, b, 3.0, c)
    loss = (y * y).sum() + (2 * s if use_second else 0)
    loss.backward()
    log.append(("grads", _np(a.grad), _np(c.grad), _np(m.w.grad)))
    return log


@pytest.mark.parametrize("replace_in", [False, True])
@pytest.mark.parametrize("replace_out", [False, True])
@pytest.mark.parametrize("use_second", [False, True])
def test_full_backward_hooks_see_and_replace_what_pytorch_does(replace_in, replace_out, use_second):
    """grad_output: None for an output no gradient reached; grad_input: None for a
    non-tensor, zeros for a tensor no gradient reached (b requires none); replacements of
    either flow on."""
    got = _run_hooks(sp, replace_in, replace_out, use_second)
    want = _run_hooks(torch, replace_in, replace_out, use_second)
    assert [e[0] for e in got] == [e[0] for e in want]
    for g, w in zip(got, want):
        for gi, wi in zip(g[1:], w[1:]):
            if isinstance(wi, list):
                assert len(gi) == len(wi)
                for x, y in zip(gi, wi):
                    _close(x, y)
            else:
                _close(gi, wi)


def test_full_backward_hook_when_no_input_requires_grad():
    """The hooks run once the outputs' gradients are known, with grad_input all None."""

    def run(lib):
        lin = lib.nn.Linear(3, 2).double()
        _set(lib, lin.weight, np.arange(6.0).reshape(2, 3))
        _set(lib, lin.bias, np.array([0.5, -1.0]))
        seen = []
        lin.register_full_backward_hook(lambda mod, gi, go: seen.append((list(gi), _grads(go))))
        x = lib.tensor(np.array([[1.0, 2.0, 3.0]]))
        (lin(x) ** 2).sum().backward()
        return seen, _np(lin.weight.grad)

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = run(torch)
    got = run(sp)
    assert len(got[0]) == len(want[0]) == 1
    assert got[0][0][0] == want[0][0][0] == [None]
    _close(got[0][0][1][0], want[0][0][1][0])
    _close(got[1], want[1])


def test_backward_hook_returning_gradients_without_inputs_is_an_error():
    lin = sp.nn.Linear(2, 1)
    lin.register_full_backward_hook(lambda m, gi, go: (sp.ones(1, 2),))
    with pytest.raises(RuntimeError, match="no input requires gradient"):
        lin(sp.ones(1, 2)).sum().backward()


def test_hook_removal_order_and_prepend_as_pytorch():
    def run(lib):
        m = lib.nn.Linear(2, 2).double()
        order = []
        h1 = m.register_full_backward_hook(lambda *a: order.append("h1"))
        m.register_full_backward_hook(lambda *a: order.append("h2"), prepend=True)
        m.register_full_backward_pre_hook(lambda *a: order.append("p1"))
        m.register_full_backward_pre_hook(lambda *a: order.append("p2"), prepend=True)
        m.register_forward_pre_hook(lambda *a: order.append("f1"))
        m.register_forward_pre_hook(lambda *a: order.append("f2"), prepend=True)
        m.register_forward_hook(lambda *a: order.append("o1"))
        m.register_forward_hook(lambda *a: order.append("o2"), prepend=True)
        x = lib.ones(1, 2, dtype=lib.float64, requires_grad=True)
        m(x).sum().backward()
        h1.remove()
        h1.remove()  # a second remove does nothing
        m(x).sum().backward()
        return order

    assert run(sp) == run(torch)


def test_forward_pre_hook_replaces_args_and_kwargs_as_pytorch():
    def run(lib):
        class M(lib.nn.Module):
            def forward(self, x, scale=1.0):
                return x * scale

        m = M()
        h = m.register_forward_pre_hook(lambda mod, args: args[0] * 2)  # not a tuple
        out1 = m(lib.tensor(np.array([1.0, 2.0])))
        h.remove()
        m.register_forward_pre_hook(
            lambda mod, args, kwargs: ((args[0] + 1,), {"scale": kwargs["scale"] * 10}),
            with_kwargs=True,
        )
        m.register_forward_hook(
            lambda mod, args, kwargs, out: out + kwargs["scale"], with_kwargs=True
        )
        out2 = m(lib.tensor(np.array([1.0, 2.0])), scale=2.0)
        return _np(out1), _np(out2)

    for g, w in zip(run(sp), run(torch)):
        _close(g, w)


def test_forward_pre_hook_with_kwargs_bad_result_is_pytorchs_error():
    for lib in (sp, torch):
        m = lib.nn.Linear(2, 2)
        m.register_forward_pre_hook(lambda mod, args, kwargs: args, with_kwargs=True)
        with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple"):
            m(lib.ones(1, 2))


def test_backward_hooks_inside_a_model_give_pytorchs_gradients():
    """A hooked layer in a Sequential: every parameter's gradient, and what the hooks saw."""

    def run(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2))
        model = model.double()
        weights = np.linspace(-1, 1, 12).reshape(4, 3), np.linspace(0.5, -0.5, 8).reshape(2, 4)
        for layer, w in zip((model[0], model[2]), weights):
            _set(lib, layer.weight, w)
            _set(lib, layer.bias, np.full(layer.bias.shape, 0.1))
        seen = []
        model[1].register_full_backward_hook(
            lambda m, gi, go: (seen.append((_grads(gi), _grads(go))), (gi[0] * 0.5,))[1]
        )
        model[2].register_full_backward_pre_hook(lambda m, go: (go[0] + 1,))
        x = lib.tensor(np.array([[0.1, -0.2, 0.3], [1.0, 0.5, -1.5]]), requires_grad=True)
        model(x).pow(2).sum().backward()
        return seen, [_np(p.grad) for p in model.parameters()], _np(x.grad)

    got, want = run(sp), run(torch)
    for (gi, go), (wi, wo) in zip(got[0], want[0]):
        for x, y in zip(gi + go, wi + wo):
            _close(x, y)
    for x, y in zip(got[1] + [got[2]], want[1] + [want[2]]):
        _close(x, y)


def test_second_derivative_through_a_hooked_module_as_pytorch():
    """create_graph=True through a module with a backward hook: the same second derivative,
    and the hook runs in each backward, as PyTorch's."""

    def run(lib):
        lin = lib.nn.Linear(2, 2).double()
        _set(lib, lin.weight, np.array([[1.0, 2.0], [-1.0, 0.5]]))
        _set(lib, lin.bias, np.zeros(2))
        seen = []
        lin.register_full_backward_hook(lambda m, gi, go: seen.append(_np(gi[0])))
        x = lib.tensor(np.array([[0.3, -0.7]]), requires_grad=True)
        (g,) = lib.autograd.grad((lin(x).tanh() ** 2).sum(), x, create_graph=True)
        g.sum().backward()
        return [_np(g), _np(x.grad), _np(lin.weight.grad), *seen]

    got, want = run(sp), run(torch)
    assert len(got) == len(want) == 5
    for g, w in zip(got, want):
        _close(g, w)


# -- containers ---------------------------------------------------------------------------------


def test_module_dict_methods_and_names_as_pytorch():
    def run(lib):
        d = lib.nn.ModuleDict({"fc": lib.nn.Linear(2, 3), "act": lib.nn.ReLU()})
        d.update([("out", lib.nn.Linear(3, 1)), ("act", lib.nn.Tanh())])
        d["extra"] = lib.nn.Linear(1, 1)
        popped = d.pop("extra")
        result = [
            list(d.keys()),
            [type(v).__name__ for v in d.values()],
            [k for k, _ in d.items()],
            list(iter(d)),
            len(d),
            "fc" in d,
            "extra" in d,
            type(popped).__name__,
            [name for name, _ in d.named_parameters()],
            list(d.state_dict().keys()),
            repr(d),
        ]
        del d["fc"]
        result.append(list(d.keys()))
        d.clear()
        result.append(len(d))
        return result

    assert run(sp) == run(torch)


def test_module_dict_errors_as_pytorch():
    for lib in (sp, torch):
        d = lib.nn.ModuleDict()
        with pytest.raises(TypeError, match=r"ModuleDict\.update should be called with an"):
            d.update(3)
        with pytest.raises(TypeError, match="should be Iterable"):
            d.update([3])
        with pytest.raises(ValueError, match="has length 3; 2 is required"):
            d.update([("a", lib.nn.ReLU(), 1)])
        with pytest.raises(KeyError):
            d["missing"]


def test_parameter_list_as_pytorch():
    def run(lib):
        w = [np.arange(6.0).reshape(2, 3), np.ones(3)]
        pl = lib.nn.ParameterList([lib.nn.Parameter(lib.tensor(w[0]))])
        pl.append(lib.tensor(w[1]))  # a plain Tensor becomes a Parameter
        pl.extend([lib.tensor(np.zeros(2)), "not a tensor"])
        pl += [lib.tensor(np.array([5.0]))]
        pl[2] = lib.tensor(np.array([7.0, 8.0]))
        class_names = [type(p).__name__ for p in pl]
        sliced = pl[1:3]
        return [
            len(pl),
            class_names,
            [name for name, _ in pl.named_parameters()],
            [_np(p).tolist() for _, p in pl.named_parameters()],
            list(pl.state_dict().keys()),
            type(sliced).__name__,
            len(sliced),
            _np(pl[-1]).tolist(),
            pl[3],
            all(p.requires_grad for p in pl.parameters()),
            repr(pl),
        ]

    assert run(sp) == run(torch)


def test_parameter_list_errors_as_pytorch():
    for lib in (sp, torch):
        pl = lib.nn.ParameterList([lib.nn.Parameter(lib.ones(2))])
        with pytest.raises(IndexError, match="index 1 is out of range"):
            pl[1]
        with pytest.raises(IndexError, match="index -2 is out of range"):
            pl[-2] = lib.ones(1)
        with pytest.raises(TypeError, match=r"ParameterList\.extend should be called with an"):
            pl.extend(lib.ones(2))
        with pytest.raises(RuntimeError, match="ParameterList should not be called"):
            pl(lib.ones(2))


def test_parameter_dict_as_pytorch():
    def run(lib):
        pd = lib.nn.ParameterDict({"b": lib.tensor(np.ones(2)), "a": lib.tensor(np.zeros(3))})
        pd.update(OrderedDict([("z", lib.tensor(np.array([1.0]))), ("c", 5)]))
        pd["y"] = lib.nn.Parameter(lib.tensor(np.array([2.0, 3.0])))
        first = [
            list(pd.keys()),  # a plain dict is added in sorted order, an OrderedDict not
            [type(v).__name__ for v in pd.values()],
            [name for name, _ in pd.named_parameters()],
            list(pd.state_dict().keys()),
            list(reversed(pd)),
            pd.get("missing", "default"),
            pd.setdefault("c", 9),
            _np(pd.setdefault("new", lib.tensor(np.array([4.0])))).tolist(),
            repr(pd),
        ]
        key, value = pd.popitem()
        merged = pd | lib.nn.ParameterDict({"q": lib.tensor(np.array([0.5]))})
        copied = pd.copy()
        fresh = pd.fromkeys(["u", "v"], 3)
        popped = pd.pop("c")
        del pd["a"]
        rest = [
            key,
            _np(value).tolist(),
            list(merged.keys()),
            list(copied.keys()),
            list(fresh.items()),
            popped,
            list(pd.keys()),
            "a" in pd,
            len(pd),
        ]
        pd.clear()
        return first + rest + [len(pd), list(pd.named_parameters())]

    assert run(sp) == run(torch)


def test_parameter_dict_errors_as_pytorch():
    for lib in (sp, torch):
        pd = lib.nn.ParameterDict()
        with pytest.raises(TypeError, match="cannot be used as a key as it is not a string"):
            pd[1]
        with pytest.raises(TypeError, match=r"ParametersDict\.update should be called"):
            pd.update(3)
        with pytest.raises(RuntimeError, match="ParameterDict should not be called"):
            pd(lib.ones(1))
        with pytest.raises(KeyError):
            pd.popitem()


def test_containers_in_a_model_train_as_pytorch():
    """A model keeping its weights in a ParameterList and ParameterDict: the same
    gradients as PyTorch's."""

    def run(lib):
        class Net(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.ws = lib.nn.ParameterList(
                    [lib.tensor(np.linspace(-1, 1, 6).reshape(3, 2)), lib.tensor(np.ones(2))]
                )
                self.pd = lib.nn.ParameterDict({"scale": lib.tensor(np.array([1.5, -0.5]))})
                self.blocks = lib.nn.ModuleDict({"act": lib.nn.Tanh()})

            def forward(self, x):
                return self.blocks["act"](x @ self.ws[0] + self.ws[1]) * self.pd["scale"]

        net = Net()
        x = lib.tensor(np.array([[0.1, 0.2, 0.3], [-1.0, 0.0, 2.0]]))
        net(x).pow(2).sum().backward()
        return [(n, _np(p.grad)) for n, p in net.named_parameters()]

    got, want = run(sp), run(torch)
    assert [n for n, _ in got] == [n for n, _ in want]
    for (_, g), (_, w) in zip(got, want):
        _close(g, w)


def test_module_type_casts_every_parameter_and_buffer_as_pytorch():
    def run(lib):
        bn = lib.nn.BatchNorm1d(3)
        bn.type(lib.float64)
        first = [str(t.dtype).replace("torch.", "") for t in bn.state_dict().values()]
        bn.type(lib.float32)
        second = [str(t.dtype).replace("torch.", "") for t in bn.state_dict().values()]
        return first, second

    assert run(sp) == run(torch)  # num_batches_tracked (int64) is cast too


# -- prelu, rrelu -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "x_shape, w_shape",
    [((3,), (1,)), ((), (1,)), ((2, 3), (3,)), ((2, 3, 4), (3,)), ((2, 3), ()),
     ((2, 3, 4, 5), (3,)), ((2, 3, 4), (1,))],
)  # fmt: skip
def test_prelu_values_and_gradients(x_shape, w_shape):
    rng = np.random.default_rng(len(x_shape) * 10 + len(w_shape))
    xa = rng.standard_normal(x_shape)
    xa.flat[0] = 0.0  # the kink: ∂/∂x is w there, as PyTorch
    wa = rng.random(w_shape)
    g = rng.standard_normal(x_shape)
    x, w = torch.tensor(xa, requires_grad=True), torch.tensor(wa, requires_grad=True)
    y = torch.nn.functional.prelu(x, w)
    y.backward(torch.tensor(g))
    X, W = sp.tensor(xa, requires_grad=True), sp.tensor(wa, requires_grad=True)
    Y = sp.nn.functional.prelu(X, W)
    Y.backward(sp.tensor(g))
    _close(_np(Y), _np(y))
    _close(_np(X.grad), _np(x.grad))
    _close(_np(W.grad), _np(w.grad))


def test_prelu_second_derivative():
    xa, wa = np.array([[-1.0, 2.0], [0.5, -3.0]]), np.array([0.2, 0.7])

    def run(lib):
        x, w = lib.tensor(xa, requires_grad=True), lib.tensor(wa, requires_grad=True)
        y = lib.nn.functional.prelu(x, w)
        (gx,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        gx.sum().backward()
        return _np(gx), _np(x.grad), _np(w.grad)

    for g, w in zip(run(sp), run(torch)):
        _close(g, w)


def test_prelu_module_and_errors_as_pytorch():
    for lib in (sp, torch):
        m = lib.nn.PReLU(3, init=0.1)
        assert repr(m) == "PReLU(num_parameters=3)"
        assert [n for n, _ in m.named_parameters()] == ["weight"]
        np.testing.assert_array_equal(_np(m.weight), np.full(3, 0.1, np.float32))
        with pytest.raises(RuntimeError, match="Found parameter numbers = 3 and channel size = 2"):
            m(lib.ones(4, 2))
        with pytest.raises(RuntimeError, match="channel size = 1"):
            m(lib.ones(3))
        with pytest.raises(RuntimeError, match="scalar or 1D tensor, but got: ndim = 2"):
            lib.nn.functional.prelu(lib.ones(2, 3), lib.ones(3, 1))
        with pytest.raises(RuntimeError, match="Type promoting not supported"):
            lib.nn.functional.prelu(lib.ones(2, 3), lib.ones(3, dtype=lib.float64))
    assert repr(sp.nn.PReLU()) == repr(torch.nn.PReLU()) == "PReLU(num_parameters=1)"


def test_rrelu_in_eval_is_the_mean_slope_with_pytorchs_gradient():
    xa = np.array([-2.0, -0.5, 0.0, 0.5, 3.0])
    for lower, upper in [(1 / 8, 1 / 3), (0.1, 0.3)]:
        x = torch.tensor(xa, requires_grad=True)
        y = torch.nn.functional.rrelu(x, lower, upper, training=False)
        y.sum().backward()
        X = sp.tensor(xa, requires_grad=True)
        Y = sp.nn.functional.rrelu(X, lower, upper, training=False)
        Y.sum().backward()
        _close(_np(Y), _np(y))
        _close(_np(X.grad), _np(x.grad))
        m, M = sp.nn.RReLU(lower, upper).eval(), torch.nn.RReLU(lower, upper).eval()
        _close(_np(m(sp.tensor(xa))), _np(M(torch.tensor(xa))))


def test_rrelu_module_repr_and_errors_as_pytorch():
    assert repr(sp.nn.RReLU()) == repr(torch.nn.RReLU())
    assert repr(sp.nn.RReLU(0.1, 0.3, inplace=True)) == repr(torch.nn.RReLU(0.1, 0.3, True))
    for lib in (sp, torch):
        with pytest.raises(RuntimeError, match="Lower bound should be less than or equal"):
            lib.nn.functional.rrelu(lib.ones(3), 0.5, 0.1, training=True)

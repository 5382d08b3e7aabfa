"""autograd pieces of issue 27's wave 2 without PyTorch: hvp/vhp values from NumPy, their
errors, strict= and jacobian's options, gradcheck's errors and warning, user-defined
Functions in PyTorch's form (per-argument gradients, outputs that are inputs), next_functions,
and the simulated device giving the CPU's values."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from solutions import ch07_device as sp

F = sp.autograd.functional
RNG = np.random.default_rng(7)
X, V = RNG.standard_normal(4), RNG.standard_normal(4)


def _cubic(x):
    return (x**3).sum()


@pytest.mark.parametrize("which", ["hvp", "vhp"])
@pytest.mark.parametrize("device", ["cpu", "sim"])
def test_hvp_vhp_of_a_cubic_is_6x_times_v(which, device):
    x, v = sp.tensor(X).to(device), sp.tensor(V).to(device)
    value, product = getattr(F, which)(_cubic, x, v)
    assert product.device.type == device and value.device.type == device
    np.testing.assert_allclose(value.cpu().numpy(), (X**3).sum(), rtol=1e-12)
    np.testing.assert_allclose(product.cpu().numpy(), 6 * X * V, rtol=1e-12)
    assert x.grad is None and not x.requires_grad  # the caller's tensor is not written


@pytest.mark.parametrize("which", ["hvp", "vhp"])
def test_hvp_vhp_need_one_element_output_and_a_v(which):
    x = sp.tensor(X)
    with pytest.raises(RuntimeError, match="should contain a single element"):
        getattr(F, which)(lambda t: t**2, x, sp.tensor(V))
    with pytest.raises(RuntimeError, match="should return a single Tensor"):
        getattr(F, which)(lambda t: (t.sum(), t.sum()), x, sp.tensor(V))
    with pytest.raises(RuntimeError, match="v can only be None"):
        getattr(F, which)(_cubic, x)
    with pytest.raises(RuntimeError, match="v has invalid size"):
        getattr(F, which)(_cubic, x, sp.tensor(V[:3]))


@pytest.mark.parametrize("which", ["hvp", "vhp", "jvp", "vjp", "jacobian", "hessian"])
def test_strict_names_the_independent_input(which):
    xs = (sp.tensor(X), sp.tensor(V))
    args = {"vjp": (sp.tensor(1.0),), "jacobian": (), "hessian": ()}.get(which, (xs,))
    with pytest.raises(RuntimeError, match="strict mode"):
        getattr(F, which)(lambda a, b: (a**3).sum(), xs, *args, strict=True)
    result = getattr(F, which)(lambda a, b: (a**3).sum(), xs, *args)  # zeros for b instead
    if which == "jvp":  # (J u: one tensor per output)
        np.testing.assert_allclose(result[1].numpy(), (3 * X**2 * X).sum())
        return
    last = result[-1] if which in ("jacobian", "hessian") else result[1][-1]
    last = last[-1] if isinstance(last, tuple) else last
    assert not np.any(last.numpy())


def test_strict_on_the_simulated_device_gives_the_cpus_values():
    def f(a, b):
        return (a * b.exp() + a**3 + b**3).sum()

    results = []
    for device in ("cpu", "sim"):
        xs = (sp.tensor(X).to(device), sp.tensor(V).to(device))
        results.append(F.hessian(f, xs, strict=True)[0][1].cpu().numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-12)
    np.testing.assert_allclose(results[0], np.diag(np.exp(V)), rtol=1e-12)


def test_jacobian_options():
    x = sp.tensor(X)
    np.testing.assert_allclose(
        F.jacobian(lambda t: t**2, x, vectorize=True).numpy(), np.diag(2 * X)
    )
    with pytest.raises(NotImplementedError, match="forward-mode"):
        F.jacobian(lambda t: t**2, x, strategy="forward-mode")
    with pytest.raises(AssertionError, match="reverse-mode"):
        F.jacobian(lambda t: t**2, x, strategy="sideways")
    with pytest.raises(RuntimeError, match="not supported together"):
        F.jacobian(lambda t: t**2, x, strict=True, vectorize=True)


# -- gradcheck ----------------------------------------------------------------------------------


def test_gradcheck_needs_an_input_that_requires_grad():
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        sp.autograd.gradcheck(lambda t: t * 2, (sp.tensor(X),))


def test_gradcheck_warns_for_single_precision():
    x = sp.tensor([1.0, 2.0], dtype=sp.float32, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sp.autograd.gradcheck(lambda t: t * 2, (x,), atol=0.2, rtol=0.1)
    assert any("not a double precision" in str(w.message) for w in caught)


class WrongSquare(sp.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.data**2

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x


@pytest.mark.parametrize("device", ["cpu", "sim"])
def test_gradcheck_passes_a_right_backward_and_catches_a_wrong_one(device):
    x = sp.tensor(X).to(device).requires_grad_()
    assert sp.autograd.gradcheck(lambda t: (t**3).exp(), (x,)) is True
    assert sp.autograd.gradgradcheck(lambda t: (t**3).exp(), (x,)) is True
    assert sp.autograd.gradcheck(WrongSquare.apply, (x,), raise_exception=False) is False
    with pytest.raises(
        RuntimeError, match="Jacobian mismatch for output 0 with respect to input 0"
    ):
        sp.autograd.gradcheck(WrongSquare.apply, x)


# -- Function in PyTorch's form -----------------------------------------------------------------


class Scale(sp.autograd.Function):
    @staticmethod
    def forward(ctx, k, x):  # a number before the tensor
        ctx.k = k
        return x * k

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.k


def test_backward_returns_one_gradient_per_tensor_input():
    """(PyTorch's backward returns one per argument of forward, (None, g) here; this
    framework's, one per Tensor input: a course decision, graded by tasks 7.4 and 5.12.)"""
    x = sp.tensor(X, requires_grad=True)
    Scale.apply(3.0, x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(4, 3.0))

    class PerArgument(Scale):
        @staticmethod
        def backward(ctx, grad_output):
            return None, grad_output * ctx.k

    with pytest.raises(TypeError, match="returned 2 gradient"):
        PerArgument.apply(3.0, sp.tensor(X, requires_grad=True)).sum().backward()


def test_needs_input_grad_has_one_entry_per_tensor_input():
    seen = []

    class Look(sp.autograd.Function):
        @staticmethod
        def forward(ctx, k, x, y):
            seen.append(ctx.needs_input_grad)
            return x.data * k + y.data

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output, None

    Look.apply(2.0, sp.tensor(X, requires_grad=True), sp.tensor(V))
    assert seen == [(True, False)]  # (PyTorch's has one per argument: (False, True, False))


def test_an_output_that_is_an_input_is_a_new_tensor_and_the_input_stays_a_leaf():
    class Identity(sp.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * 5

    x = sp.tensor(X, requires_grad=True)
    y = Identity.apply(x)
    assert y is not x and x.is_leaf and x.grad_fn is None and y.grad_fn is not None
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(4, 5.0))
    c = sp.tensor(V)
    assert Identity.apply(c) is not c


def test_next_functions():
    x, y = sp.tensor(X, requires_grad=True), sp.tensor(V)
    z = x * y + x
    (mul, _), (leaf, _) = z.grad_fn.next_functions
    assert mul.name() == "MulBackward"
    assert leaf.variable is x and leaf.name() == "torch::autograd::AccumulateGrad"
    assert [n.variable is x if n is not None else None for n, _ in mul.next_functions] == [
        True,
        None,
    ]

"""Chapter 5's operations made one Function for speed (issue 31): the vectorised erf
(``solutions/ch05_nn/nn/erf.py``) against Python's ``math.erf``; GELU and LayerNorm against
NumPy, with first and second derivatives against central differences."""

import math

import numpy as np
import pytest

from solutions import ch05_nn as sp
from solutions.ch05_nn.nn.erf import erf

_math_erf = np.frompyfunc(math.erf, 1, 1)


@pytest.mark.parametrize("scale", [0.3, 1.0, 3.0])
def test_erf_within_one_ulp_of_math_erf(scale):
    x = np.random.default_rng(0).standard_normal(200_000) * scale
    ref = _math_erf(x).astype(np.float64)
    ulps = np.abs(erf(x) - ref) / np.spacing(np.abs(ref).clip(1e-300))
    assert ulps.max() <= 1.0


def test_erf_float32_stays_float32_and_close():
    """float32 takes one rational fit (Eigen's): within 1e-6 of erf, about 7 float32 ulps."""
    x = np.random.default_rng(1).standard_normal(50_000).astype(np.float32) * 2
    x = np.concatenate([x, np.float32([0, -0.5, 3.9, 4, 4.5, 30, -30])])
    out = erf(x)
    ref = _math_erf(x).astype(np.float64)
    assert out.dtype == np.float32
    assert np.abs(out - ref).max() <= 1e-6
    ulps = np.abs(out - ref) / np.spacing(np.abs(ref).astype(np.float32).clip(1e-38))
    assert ulps.max() <= 10
    assert np.isnan(erf(np.float32([np.nan])))[0] and erf(np.float32([np.inf]))[0] == 1


def test_erf_edges():
    edge = np.array(
        [0.0, -0.0, 1e-30, 0.84375, 1.25, 1 / 0.35, 6.0, -6.0, 30.0, np.inf, -np.inf, np.nan]
    )
    expected = np.array([math.erf(v) for v in edge])
    assert np.array_equal(erf(edge), expected, equal_nan=True)
    assert np.signbit(erf(np.array([-0.0])))[0]
    assert erf(np.array([1, 2])).dtype == np.float64  # integers as float64


def _gelu_np(x):
    return x * 0.5 * (1 + _math_erf(x / math.sqrt(2)).astype(np.float64))


def test_gelu_values_and_gradient():
    x = np.linspace(-5, 5, 41)
    t = sp.tensor(x, requires_grad=True)
    y = sp.nn.functional.gelu(t)
    assert np.allclose(y.data, _gelu_np(x), rtol=1e-14, atol=1e-15)
    y.sum().backward()
    h = 1e-6
    numeric = (_gelu_np(x + h) - _gelu_np(x - h)) / (2 * h)
    assert np.allclose(t.grad.data, numeric, rtol=1e-7, atol=1e-9)


def test_gelu_second_derivative():
    x = np.linspace(-3, 3, 13)
    t = sp.tensor(x, requires_grad=True)
    (g,) = sp.autograd.grad(sp.nn.functional.gelu(t).sum(), t, create_graph=True)
    g.sum().backward()
    phi = np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
    assert np.allclose(t.grad.data, phi * (2 - x * x), rtol=1e-12, atol=1e-14)  # gelu''


def _layer_norm_np(x, w, b, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def _central(f, x, h=1e-6):
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = h
        grad[i] = (f(x + step) - f(x - step)) / (2 * h)
    return grad


def test_layer_norm_values_and_gradients():
    rng = np.random.default_rng(2)
    x, w, b, g = (
        rng.standard_normal((2, 3, 5)),
        rng.standard_normal(5),
        rng.standard_normal(5),
        rng.standard_normal((2, 3, 5)),
    )
    ln = sp.nn.LayerNorm(5, dtype=sp.float64)
    ln.weight.data[...], ln.bias.data[...] = w, b
    t = sp.tensor(x, requires_grad=True)
    y = ln(t)
    assert np.allclose(y.data, _layer_norm_np(x, w, b), rtol=1e-13, atol=1e-13)
    (y * sp.tensor(g)).sum().backward()
    loss = lambda xx, ww=w, bb=b: (_layer_norm_np(xx, ww, bb) * g).sum()
    assert np.allclose(t.grad.data, _central(loss, x), atol=1e-7)
    assert np.allclose(ln.weight.grad.data, _central(lambda ww: loss(x, ww), w), atol=1e-7)
    assert np.allclose(ln.bias.grad.data, _central(lambda bb: loss(x, w, bb), b), atol=1e-7)


def test_layer_norm_second_derivative():
    """∂/∂x of Σ v · ∂L/∂x (a Hessian-vector product) against a central difference of the
    analytic first derivative computed by the first test's route."""
    rng = np.random.default_rng(3)
    x, w, g, v = (rng.standard_normal(s) for s in ((2, 4), 4, (2, 4), (2, 4)))
    ln = sp.nn.LayerNorm(4, dtype=sp.float64)
    ln.weight.data[...] = w

    def first(xx):
        t = sp.tensor(xx, requires_grad=True)
        (gx,) = sp.autograd.grad((ln(t) * sp.tensor(g)).sum(), t)
        return (gx.data * v).sum()

    t = sp.tensor(x, requires_grad=True)
    (gx,) = sp.autograd.grad((ln(t) * sp.tensor(g)).sum(), t, create_graph=True)
    (gx * sp.tensor(v)).sum().backward()
    assert np.allclose(t.grad.data, _central(first, x, 1e-5), atol=1e-6)


@pytest.mark.parametrize(("shape", "normalized"), [((4,), (4,)), ((2, 3, 4), (3, 4))])
def test_layer_norm_other_ranks(shape, normalized):
    """No leading axis (the parameter gradients are not summed), and two normalised axes."""
    rng = np.random.default_rng(4)
    x, g = rng.standard_normal(shape), rng.standard_normal(shape)
    w, b = rng.standard_normal(normalized), rng.standard_normal(normalized)
    ln = sp.nn.LayerNorm(normalized, dtype=sp.float64)
    ln.weight.data[...], ln.bias.data[...] = w, b
    axes = tuple(range(len(shape) - len(normalized), len(shape)))

    def ref(xx, ww=w, bb=b):
        mu = xx.mean(axes, keepdims=True)
        var = ((xx - mu) ** 2).mean(axes, keepdims=True)
        return ((xx - mu) / np.sqrt(var + 1e-5) * ww + bb) * g

    t = sp.tensor(x, requires_grad=True)
    (ln(t) * sp.tensor(g)).sum().backward()
    assert np.allclose(t.grad.data, _central(lambda xx: ref(xx).sum(), x), atol=1e-7)
    assert np.allclose(ln.weight.grad.data, _central(lambda ww: ref(x, ww).sum(), w), atol=1e-7)
    assert np.allclose(ln.bias.grad.data, _central(lambda bb: ref(x, w, bb).sum(), b), atol=1e-7)


def test_layer_norm_keeps_float32():
    ln = sp.nn.LayerNorm(5)
    x = sp.tensor(
        np.random.default_rng(5).standard_normal((3, 5)).astype(np.float32), requires_grad=True
    )
    y = ln(x)
    y.sum().backward()
    assert (
        y.dtype == np.float32 and x.grad.dtype == np.float32 and ln.weight.grad.dtype == np.float32
    )

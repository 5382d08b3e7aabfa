"""Chapter 5's vectorised erf (fdlibm's, ``solutions/ch05_nn/nn/erf.py``) against Python's
``math.erf``, and the one-Function GELU built on it (values, first and second derivatives)."""

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
    x = np.random.default_rng(1).standard_normal(50_000).astype(np.float32) * 2
    out = erf(x)
    ref = _math_erf(x).astype(np.float64)
    assert out.dtype == np.float32
    assert np.abs(out - ref).max() <= 2 * np.spacing(np.float32(1))


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

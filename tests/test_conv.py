"""Chapter 8's framework, without PyTorch (issue 30): the reference's convolution, pooling,
unfold and fold checked against NumPy written here, and on a device.

- Gradients in the autograder's own terms: ``autograder.harness.gradcheck.vjp`` (the complex
  step, exact to float64 rounding) of plain-NumPy references written in this file (one
  kernel offset at a time: no strided view, no code from ``solutions``), against the
  reference's backward; and a central difference of the reference's own forward.
- fold is unfold's adjoint: ⟨unfold(x), c⟩ = ⟨x, fold(c)⟩.
- Second derivatives (``create_graph=True``): a convolution is bilinear, so the gradient
  of ⟨∂⟨conv(x, w), u⟩/∂x, v⟩ with respect to w is ∂⟨conv(v, w), u⟩/∂w, exactly; max-pool's
  gradient with respect to its upstream gradient is the gather at the argmax.
- Shapes, PyTorch's argument forms, errors (the class and what the message names), the
  modules (repr, ``state_dict`` keys, ``parameters``, ``.to``).
- On a device, ``"sim"`` (the simulated device: runs everywhere) and ``"cuda"`` (marked
  ``gpu``; skipped, saying why, without a usable GPU; ``make gpu-check`` runs this file):
  conv2d forward and backward equal the CPU's, a LeNet-sized training step loses what the
  CPU's does, keeps every array on the device and makes no copy back beyond the two that
  chapter 5's ``cross_entropy`` is known to make (tests/test_gpu.py, ``HIDDEN_COPIES``);
  ``windows`` of a device array is a view, made by the device's ``as_strided``.
"""

from __future__ import annotations

import contextlib
import itertools
import types

import numpy as np
import pytest

from autograder.harness.gradcheck import vjp
from solutions import ch08_conv as sp
from solutions.ch08_conv import unfold as unfold_module
from support import capstone
from tests.test_gpu import DEVICES, array_type, copies, host

pytestmark = pytest.mark.ch08

F = sp.nn.functional
TOL = 1e-10


@pytest.fixture(autouse=True)
def _cpu_by_default():
    yield
    sp.set_default_device(None)
    sp.set_default_dtype(np.float32)


# -- plain NumPy references (complex-safe: the complex step goes through them) --------------


def two(v) -> tuple[int, int]:
    return (v, v) if isinstance(v, int) else tuple(v)


def out_size(size: int, k: int, s: int, p: int, d: int) -> int:
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def padded(x: np.ndarray, ph: int, pw: int, value=0.0) -> np.ndarray:
    out = np.full((*x.shape[:2], x.shape[2] + 2 * ph, x.shape[3] + 2 * pw), value, x.dtype)
    out[:, :, ph : ph + x.shape[2], pw : pw + x.shape[3]] = x
    return out


def taps(x, k, s, p, d, value=0.0):
    """(i, j, the (N, C, oh, ow) pixels that kernel offset (i, j) sees in every window)."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = two(k), two(s), two(p), two(d)
    oh, ow = out_size(x.shape[2], kh, sh, ph, dh), out_size(x.shape[3], kw, sw, pw, dw)
    xp = padded(x, ph, pw, value)
    for i, j in itertools.product(range(kh), range(kw)):
        rows = slice(i * dh, i * dh + sh * (oh - 1) + 1, sh)
        columns = slice(j * dw, j * dw + sw * (ow - 1) + 1, sw)
        yield i, j, xp[:, :, rows, columns]


def ref_conv(x, w, b=None, s=1, p=0, d=1, groups=1):
    """out[n, o, p, q] = b[o] + Σ_{c in o's group, i, j} w[o, c, i, j] · x_pad[n, c, ...]."""
    o, per = w.shape[:2]
    outs = []
    for g in range(groups):
        xg, wg = x[:, g * per : (g + 1) * per], w[g * o // groups : (g + 1) * o // groups]
        acc = 0
        for i, j, seen in taps(xg, w.shape[2:], s, p, d):
            acc = acc + np.einsum("ncpq,oc->nopq", seen, wg[:, :, i, j])
        outs.append(acc)
    out = np.concatenate(outs, axis=1)
    return out if b is None else out + b.reshape(1, -1, 1, 1)


def ref_max_pool(x, k, s=None, p=0, d=1):
    """The first maximum of each window in row-major order (compared on the real part)."""
    best = None
    for _, _, seen in taps(x, k, s or k, p, d, value=-np.inf):
        best = seen.copy() if best is None else np.where(seen.real > best.real, seen, best)
    return best


def ref_argmax_gather(x, v, k, s=None, p=0, d=1):
    """v's pixel at each window's first maximum of x (where max-pool sends its gradient)."""
    best, picked = None, None
    for (_, _, seen), (_, _, other) in zip(
        taps(x, k, s or k, p, d, value=-np.inf), taps(v, k, s or k, p, d)
    ):
        if best is None:
            best, picked = seen.copy(), other.copy()
        else:
            better = seen > best
            best, picked = np.where(better, seen, best), np.where(better, other, picked)
    return picked


def ref_avg_pool(x, k, s=None, p=0, count_include_pad=True, divisor_override=None):
    total = sum(seen for _, _, seen in taps(x, k, s or k, p, 1))
    if divisor_override:
        return total / divisor_override
    if count_include_pad:
        return total / (two(k)[0] * two(k)[1])
    inside = sum(seen for _, _, seen in taps(np.ones((1, 1, *x.shape[2:])), k, s or k, p, 1))
    return total / inside


def ref_unfold(x, k, d=1, p=0, s=1):
    """(N, C·kh·kw, L), rows (c, i, j), columns (p, q): PyTorch's layout."""
    (kh, kw), n, c = two(k), x.shape[0], x.shape[1]
    pieces = {(i, j): seen for i, j, seen in taps(x, k, s, p, d)}
    oh, ow = pieces[0, 0].shape[2:]
    stacked = np.stack([pieces[i, j] for i in range(kh) for j in range(kw)], axis=2)
    return stacked.reshape(n, c * kh * kw, oh * ow)


def ref_fold(cols, size, k, d=1, p=0, s=1):
    """Each entry added to the pixel it came from: x_pad[.., p·s + i·d, q·s + j·d] += ..."""
    (h, w), (kh, kw), (sh, sw), (ph, pw), (dh, dw) = two(size), two(k), two(s), two(p), two(d)
    oh, ow = out_size(h, kh, sh, ph, dh), out_size(w, kw, sw, pw, dw)
    n, c = cols.shape[0], cols.shape[1] // (kh * kw)
    patches = cols.reshape(n, c, kh, kw, oh, ow)
    out = np.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=cols.dtype)
    for i, j, a, b in itertools.product(range(kh), range(kw), range(oh), range(ow)):
        out[:, :, a * sh + i * dh, b * sw + j * dw] += patches[:, :, i, j, a, b]
    return out[:, :, ph : ph + h, pw : pw + w]


# -- helpers --------------------------------------------------------------------------------


def leaf(array: np.ndarray) -> sp.Tensor:
    return sp.tensor(np.array(array, dtype=np.float64), requires_grad=True)


def close(a, b, tol: float = TOL) -> None:
    a = np.asarray(a.data if isinstance(a, sp.Tensor) else a)
    b = np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def check_against(reference, ours, arrays, seed: int = 0) -> None:
    """``ours`` (Sparrow, on leaves made from ``arrays``) against ``reference`` (NumPy):
    the values, and each leaf's gradient of Σ out·u against ``vjp`` (the complex step)."""
    leaves = [leaf(a) for a in arrays]
    out = ours(*leaves)
    close(out, reference(*arrays))
    u = np.random.default_rng(seed).standard_normal(tuple(out.shape))
    (out * sp.tensor(u)).sum().backward()
    for got, want in zip(leaves, vjp(reference, arrays, u), strict=True):
        close(got.grad, want)


def central(fn, arrays, u, eps: float = 1e-6) -> list[np.ndarray]:
    """∂Σ fn(arrays)·u/∂arrays[i] by the central difference of Sparrow's own forward."""
    arrays = [np.array(a, dtype=np.float64) for a in arrays]
    grads = []
    for a in arrays:
        g = np.zeros_like(a)
        for k in range(a.size):
            keep = a.flat[k]
            a.flat[k] = keep + eps
            up = float(np.sum(fn(*[sp.tensor(b) for b in arrays]).data * u))
            a.flat[k] = keep - eps
            down = float(np.sum(fn(*[sp.tensor(b) for b in arrays]).data * u))
            a.flat[k] = keep
            g.flat[k] = (up - down) / (2 * eps)
        grads.append(g)
    return grads


def gradcheck(fn, arrays, seed: int = 0) -> None:
    """The backward of ``fn`` against a central difference of its forward (1e-6)."""
    leaves = [leaf(a) for a in arrays]
    out = fn(*leaves)
    u = np.random.default_rng(seed).standard_normal(tuple(out.shape))
    (out * sp.tensor(u)).sum().backward()
    for got, want in zip(leaves, central(fn, arrays, u), strict=True):
        np.testing.assert_allclose(got.grad.data, want, rtol=1e-6, atol=1e-6)


RNG = np.random.default_rng(30)


def randn(*shape) -> np.ndarray:
    return RNG.standard_normal(shape)


# -- gradients against NumPy references (the complex step) ----------------------------------

CONV = [
    # stride, padding, dilation, groups
    (1, 0, 1, 1),
    (2, 1, 1, 1),
    ((1, 2), (2, 0), (2, 1), 1),
    (1, 1, 2, 2),
    (3, 2, 1, 2),
]


@pytest.mark.parametrize("args", CONV, ids=str)
def test_conv2d_against_numpy(args) -> None:
    s, p, d, g = args
    arrays = [randn(2, 4, 6, 5), randn(4, 4 // g, 3, 2), randn(4)]
    check_against(
        lambda x, w, b: ref_conv(x, w, b, s, p, d, g),
        lambda x, w, b: F.conv2d(x, w, b, s, p, d, g),
        arrays,
    )


POOL = [
    # kernel, stride, padding, dilation
    (2, None, 0, 1),
    (3, 1, 1, 1),
    ((3, 2), (1, 2), (1, 0), 1),
    (2, 1, 1, 2),
]


@pytest.mark.parametrize("args", POOL, ids=str)
def test_max_pool2d_against_numpy(args) -> None:
    """On ties (integers: repeated maxima), the gradient goes to the first maximum."""
    k, s, p, d = args
    x = RNG.integers(-2, 3, (2, 3, 7, 6)).astype(np.float64)
    check_against(lambda x: ref_max_pool(x, k, s, p, d), lambda x: F.max_pool2d(x, k, s, p, d), [x])


@pytest.mark.parametrize("divisor_override", [None, 5])
@pytest.mark.parametrize("count_include_pad", [True, False])
@pytest.mark.parametrize("args", [a[:3] for a in POOL], ids=str)
def test_avg_pool2d_against_numpy(args, count_include_pad, divisor_override) -> None:
    k, s, p = args
    options = (count_include_pad, divisor_override)
    check_against(
        lambda x: ref_avg_pool(x, k, s, p, *options),
        lambda x: F.avg_pool2d(x, k, s, p, False, *options),
        [randn(2, 3, 7, 6)],
    )


UNFOLD = [
    # kernel_size, dilation, padding, stride (PyTorch's positional order)
    (2, 1, 0, 1),
    (3, 1, 1, 2),
    ((2, 3), (2, 1), (1, 0), (1, 2)),
    (3, 2, 2, 3),
]


@pytest.mark.parametrize("args", UNFOLD, ids=str)
def test_unfold_and_fold_against_numpy(args) -> None:
    check_against(lambda x: ref_unfold(x, *args), lambda x: F.unfold(x, *args), [randn(2, 3, 7, 6)])
    cols = ref_unfold(randn(2, 3, 7, 6), *args)
    check_against(lambda c: ref_fold(c, (7, 6), *args), lambda c: F.fold(c, (7, 6), *args), [cols])


# -- the backward against the reference's own forward (central difference) ------------------


def test_gradcheck_by_central_difference() -> None:
    """Every op's backward agrees with its forward: no reference needed."""
    gradcheck(
        lambda x, w, b: F.conv2d(x, w, b, 2, 1, (1, 2), 2),
        [randn(1, 4, 5, 5), randn(2, 2, 2, 3), randn(2)],
    )
    x = RNG.permutation(64).reshape(1, 1, 8, 8).astype(np.float64)  # no ties: differentiable
    gradcheck(lambda x: F.max_pool2d(x, 3, 2, 1), [x])
    gradcheck(lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), [randn(1, 2, 6, 5)])
    gradcheck(lambda x: F.unfold(x, 2, 2, 1, 2), [randn(1, 2, 5, 6)])
    gradcheck(lambda c: F.fold(c, (5, 6), 2, 1, 1, 2), [randn(1, 8, 12)])


# -- fold is unfold's adjoint ---------------------------------------------------------------


@pytest.mark.parametrize("args", UNFOLD, ids=str)
def test_fold_is_the_adjoint_of_unfold(args) -> None:
    """⟨unfold(x), c⟩ = ⟨x, fold(c)⟩ for every x and c: fold's matrix is unfold's transposed."""
    x = randn(2, 3, 7, 6)
    cols = F.unfold(sp.tensor(x), *args)
    c = randn(*cols.shape)
    back = F.fold(sp.tensor(c), (7, 6), *args)
    np.testing.assert_allclose(np.sum(cols.data * c), np.sum(x * back.data), rtol=1e-12)


def test_fold_adds_where_windows_overlap() -> None:
    """fold(unfold(ones)): each pixel holds how many windows saw it."""
    counted = F.fold(F.unfold(sp.ones(1, 1, 3, 3, dtype=sp.float64), 2), (3, 3), 2)
    np.testing.assert_array_equal(counted.data[0, 0], [[1, 2, 1], [2, 4, 2], [1, 2, 1]])


# -- second derivatives ---------------------------------------------------------------------


@pytest.mark.parametrize("args", CONV, ids=str)
def test_conv2d_second_derivative(args) -> None:
    """conv is bilinear in (x, w): ∂/∂w ⟨∂⟨conv(x, w), u⟩/∂x, v⟩ = ∂⟨conv(v, w), u⟩/∂w, and
    ∂/∂x ⟨∂⟨conv(x, w), u⟩/∂w, m⟩ = ∂⟨conv(x, m), u⟩/∂x; through create_graph=True."""
    s, p, d, g = args
    x, w, b = leaf(randn(2, 4, 6, 5)), leaf(randn(4, 4 // g, 3, 2)), leaf(randn(4))
    out = F.conv2d(x, w, b, s, p, d, g)
    u, v, m = randn(*out.shape), randn(*x.shape), randn(*w.shape)
    gx, gw = sp.autograd.grad(out, (x, w), sp.tensor(u), create_graph=True)
    ((gx * sp.tensor(v)).sum() + (gw * sp.tensor(m)).sum()).backward()
    conv_v = lambda w_: ref_conv(v, w_, None, s, p, d, g)
    conv_m = lambda x_: ref_conv(x_, m, None, s, p, d, g)
    close(w.grad, vjp(conv_v, [w.data], u)[0])
    close(x.grad, vjp(conv_m, [x.data], u)[0])
    assert b.grad is None or not np.any(b.grad.data)  # ∂b does not depend on anything


def test_max_pool2d_second_derivative() -> None:
    """∂x = fold(one-hot · u) is linear in the upstream u: its gradient with respect to u,
    along v, is v gathered at each window's first maximum."""
    xs = RNG.integers(-2, 3, (2, 2, 6, 7)).astype(np.float64)
    x = leaf(xs)
    out = F.max_pool2d(x, 3, 2, 1)
    u = leaf(randn(*out.shape))
    (gx,) = sp.autograd.grad(out, (x,), u, create_graph=True)
    v = randn(*xs.shape)
    (gx * sp.tensor(v)).sum().backward()
    close(u.grad, ref_argmax_gather(xs, v, 3, 2, 1))


def test_avg_pool2d_and_fold_second_derivative() -> None:
    """avg-pool's ∂x is linear in u: its gradient along v is avg_pool(v)."""
    x = leaf(randn(2, 2, 6, 7))
    out = F.avg_pool2d(x, 3, 2, 1, count_include_pad=False)
    u = leaf(randn(*out.shape))
    (gx,) = sp.autograd.grad(out, (x,), u, create_graph=True)
    v = randn(2, 2, 6, 7)
    (gx * sp.tensor(v)).sum().backward()
    close(u.grad, ref_avg_pool(v, 3, 2, 1, False))


# -- shapes and argument forms --------------------------------------------------------------


def test_output_shapes_follow_the_formula() -> None:
    """(size + 2p − d(k − 1) − 1) // s + 1 along each axis, for every combination."""
    x = sp.zeros(1, 2, 9, 8, dtype=sp.float64)
    for k, s, p, d in itertools.product([1, 2, 3], [1, 2, 3], [0, 1, 2], [1, 2]):
        w = sp.zeros(3, 2, k, k, dtype=sp.float64)
        size = out_size(9, k, s, p, d), out_size(8, k, s, p, d)
        assert tuple(F.conv2d(x, w, None, s, p, d).shape) == (1, 3, *size)
        if 2 * p <= k:
            assert tuple(F.max_pool2d(x, k, s, p, d).shape) == (1, 2, *size)
        if 2 * p <= k and d == 1:
            assert tuple(F.avg_pool2d(x, k, s, p).shape) == (1, 2, *size)
        assert tuple(F.unfold(x, k, d, p, s).shape) == (1, 2 * k * k, size[0] * size[1])


def test_argument_forms_agree() -> None:
    """One int, a tuple and a list mean the same; a pair may differ per axis."""
    x, w = sp.tensor(randn(1, 2, 7, 7)), sp.tensor(randn(3, 2, 3, 3))
    same = [
        F.conv2d(x, w, None, s, p, d).data
        for s, p, d in [(2, 1, 1), ((2, 2), (1, 1), (1, 1)), ([2, 2], [1, 1], [1])]
    ]
    for other in same[1:]:
        np.testing.assert_array_equal(other, same[0])
    close(F.conv2d(x, w, None, (1, 2), (0, 1)), ref_conv(x.data, w.data, None, (1, 2), (0, 1)))


def test_unfold_positional_order_is_kernel_dilation_padding_stride() -> None:
    x = randn(1, 2, 8, 7)
    close(F.unfold(sp.tensor(x), 2, 3, 1, 2), ref_unfold(x, 2, d=3, p=1, s=2))
    close(sp.nn.Unfold(2, 3, 1, 2)(sp.tensor(x)), ref_unfold(x, 2, d=3, p=1, s=2))


def test_unbatched_forms() -> None:
    x, w = randn(2, 6, 5), randn(3, 2, 3, 3)
    close(F.conv2d(sp.tensor(x), sp.tensor(w), padding=1), ref_conv(x[None], w, p=1)[0])
    close(F.max_pool2d(sp.tensor(x), 2), ref_max_pool(x[None], 2)[0])
    close(F.avg_pool2d(sp.tensor(x), 2, 1), ref_avg_pool(x[None], 2, 1)[0])
    close(F.unfold(sp.tensor(x), 2), ref_unfold(x[None], 2)[0])


def test_padding_same_keeps_the_size_and_valid_pads_nothing() -> None:
    """ "same": the output as large as the input; an even reach pads one more at the end
    (bottom, right), as PyTorch; "valid": padding 0."""
    x = randn(1, 2, 6, 7)
    for k, d in [((3, 5), 1), ((2, 4), 1), ((3, 2), (2, 3)), (4, 2)]:
        w = randn(2, 2, *two(k))
        out = F.conv2d(sp.tensor(x), sp.tensor(w), padding="same", dilation=d)
        assert tuple(out.shape) == (1, 2, 6, 7)
        (kh, kw), (dh, dw) = two(k), two(d)
        th, tw = dh * (kh - 1), dw * (kw - 1)
        ends = np.zeros((1, 2, 6 + th, 7 + tw))
        ends[:, :, th // 2 : th // 2 + 6, tw // 2 : tw // 2 + 7] = x
        close(out, ref_conv(ends, w, d=d))
    w = randn(2, 2, 3, 3)
    close(F.conv2d(sp.tensor(x), sp.tensor(w), padding="valid"), ref_conv(x, w))


def test_return_indices_are_flat_positions_in_the_image() -> None:
    x = RNG.permutation(42).reshape(1, 1, 6, 7).astype(np.float64)
    out, idx = F.max_pool2d(sp.tensor(x), 3, 2, 1, return_indices=True)
    assert idx.dtype == sp.int64
    np.testing.assert_array_equal(x.reshape(-1)[idx.data], out.data)


# -- errors ---------------------------------------------------------------------------------


def t(*shape, dtype=sp.float64):
    return sp.ones(*shape, dtype=dtype)


ERRORS = [
    # call, exception class, what the message must say
    (lambda: F.conv2d(t(2, 5, 7, 7), t(4, 3, 3, 3)), RuntimeError, r"3 channels.*got 5"),
    (lambda: F.conv2d(t(1, 6, 7, 7), t(4, 3, 3, 3), groups=3), RuntimeError, r"divisible by 3"),
    (lambda: F.conv2d(t(1, 5, 7, 7), t(4, 2, 3, 3), groups=2), RuntimeError, r"4 channels.*got 5"),
    (lambda: F.conv2d(t(1, 3, 7, 7), t(4, 3, 3, 3), groups=0), RuntimeError, "groups"),
    (lambda: F.conv2d(t(1, 3, 7, 7), t(4, 3, 3, 3), t(5)), RuntimeError, r"4 elements.*\[5\]"),
    (lambda: F.conv2d(t(1, 3, 7, 7), t(4, 3, 3, 3), t(4, 1)), RuntimeError, r"\[4, 1\]"),
    (
        lambda: F.conv2d(t(1, 3, 7, 7), t(4, 3, 3, 3, dtype=sp.float32)),
        RuntimeError,
        "float64.*float32",
    ),
    (lambda: F.conv2d(t(1, 3, 7, 7), t(4, 3, 3, 3), stride=0), RuntimeError, "stride"),
    (lambda: F.conv2d(t(1, 3, 7, 7), t(4, 3, 3, 3), padding=-1), RuntimeError, "padding"),
    (lambda: F.conv2d(t(1, 3, 7, 7), t(4, 3, 3, 3), dilation=0), RuntimeError, "dilation"),
    (lambda: F.conv2d(t(1, 3, 2, 7), t(4, 3, 3, 3)), RuntimeError, r"\(2 x 7\).*\(3 x 3\)"),
    (lambda: F.conv2d(t(1, 3, 4, 4), t(4, 3, 3, 3), dilation=2), RuntimeError, r"\(5 x 5\)"),
    (lambda: F.conv2d(t(3, 7), t(4, 3, 3, 3)), RuntimeError, r"\[3, 7\]"),
    (lambda: F.conv2d(t(1, 3, 7, 7), t(4, 3, 3)), RuntimeError, "weight"),
    (lambda: F.conv2d(t(1, 3, 7, 7), t(4, 3, 3, 3), stride=(1, 2, 3)), RuntimeError, "stride"),
    (lambda: F.conv2d(t(1, 3, 7, 7), t(4, 3, 3, 3), stride=True), TypeError, "stride"),
    (lambda: F.conv2d(np.ones((1, 3, 7, 7)), t(4, 3, 3, 3)), TypeError, "Tensor"),
    (lambda: F.max_pool2d(t(1, 3, 5, 5), 2, ceil_mode=True), NotImplementedError, "ceil_mode"),
    (lambda: F.avg_pool2d(t(1, 3, 5, 5), 2, ceil_mode=True), NotImplementedError, "ceil_mode"),
    (lambda: sp.nn.MaxPool2d(2, ceil_mode=True)(t(1, 3, 4, 4)), NotImplementedError, "ceil"),
    (lambda: sp.nn.AvgPool2d(2, ceil_mode=True)(t(1, 3, 4, 4)), NotImplementedError, "ceil"),
    (lambda: F.max_pool2d(t(1, 3, 5, 5), 2, 2, 2), RuntimeError, "half"),
    (lambda: F.max_pool2d(t(1, 3, 5, 5), 3, 1, 2), RuntimeError, "half"),
    (lambda: F.avg_pool2d(t(1, 3, 5, 5), 3, 1, 2), RuntimeError, "half"),
    (lambda: F.max_pool2d(t(1, 3, 2, 2), 3), RuntimeError, r"3x2x2.*3x0x0"),
    (lambda: F.max_pool2d(t(1, 3, 5, 5), 2, 0), RuntimeError, "stride"),
    (lambda: F.max_pool2d(t(3, 5), 2), RuntimeError, r"\[3, 5\]"),
    (lambda: F.avg_pool2d(t(1, 3, 5, 5), 2, divisor_override=0), RuntimeError, "divisor"),
    (lambda: F.unfold(t(1, 3, 2, 2), 3), RuntimeError, r"\(0, 0\)"),
    (lambda: F.unfold(t(1, 3, 4, 4), 2, 1, -1), RuntimeError, "padding"),
    (lambda: F.fold(t(1, 12, 5), 4, 2), RuntimeError, r"3 \* 3 = 9.*=5"),
    (lambda: F.fold(t(1, 10, 9), 4, 2), RuntimeError, r"input.size\(1\)=10"),
    (
        lambda: F.conv2d(t(1, 3, 5, 5), t(4, 3, 3, 3), stride=2, padding="same"),
        RuntimeError,
        "same",
    ),
    (lambda: F.conv2d(t(1, 3, 5, 5), t(4, 3, 3, 3), padding="full"), RuntimeError, "full"),
    (lambda: sp.nn.Conv2d(3, 4, 3, groups=2), ValueError, r"\(3\).*\(4\).*\(2\)"),
    (lambda: sp.nn.Conv2d(3, 4, 3, padding_mode="reflect"), NotImplementedError, "zeros"),
    (lambda: sp.nn.BatchNorm2d(3)(t(2, 3, 4)), ValueError, "4D"),
    (lambda: sp.nn.BatchNorm2d(3)(t(2, 4, 3, 3)), RuntimeError, r"3.*4|4.*3"),
]


@pytest.mark.parametrize("call, error, says", ERRORS, ids=[e[2] for e in ERRORS])
def test_errors(call, error, says) -> None:
    with pytest.raises(error, match=says):
        call()


# -- modules --------------------------------------------------------------------------------


def test_module_reprs() -> None:
    """As PyTorch prints them (tests/test_torch_conv.py compares with PyTorch itself)."""
    assert repr(sp.nn.Conv2d(3, 4, 3)) == "Conv2d(3, 4, kernel_size=(3, 3), stride=(1, 1))"
    assert repr(sp.nn.Conv2d(4, 6, (3, 2), 2, 1, 2, 2, False)) == (
        "Conv2d(4, 6, kernel_size=(3, 2), stride=(2, 2), padding=(1, 1), dilation=(2, 2), "
        "groups=2, bias=False)"
    )
    assert repr(sp.nn.MaxPool2d(2)) == (
        "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"
    )
    assert repr(sp.nn.AvgPool2d(3, 1, 1)) == "AvgPool2d(kernel_size=3, stride=1, padding=1)"
    assert repr(sp.nn.BatchNorm2d(3)).startswith("BatchNorm2d(3, eps=1e-05, momentum=0.1")


def test_module_parameters_and_state_dict() -> None:
    conv = sp.nn.Conv2d(4, 6, (3, 2), groups=2)
    assert [(n, tuple(p.shape)) for n, p in conv.named_parameters()] == [
        ("weight", (6, 2, 3, 2)),
        ("bias", (6,)),
    ]
    assert list(conv.state_dict()) == ["weight", "bias"]
    bare = sp.nn.Conv2d(4, 6, 3, bias=False)
    assert bare.bias is None and [n for n, _ in bare.named_parameters()] == ["weight"]
    assert list(bare.state_dict()) == ["weight"]
    net = sp.nn.Sequential(sp.nn.Conv2d(1, 2, 3), sp.nn.BatchNorm2d(2), sp.nn.MaxPool2d(2))
    assert list(net.state_dict()) == [
        "0.weight",
        "0.bias",
        "1.weight",
        "1.bias",
        "1.running_mean",
        "1.running_var",
        "1.num_batches_tracked",
    ]
    for pool in (sp.nn.MaxPool2d(2), sp.nn.AvgPool2d(2), sp.nn.Unfold(2), sp.nn.Fold(4, 2)):
        assert list(pool.parameters()) == [] and list(pool.state_dict()) == []


@pytest.mark.parametrize("device", DEVICES)
def test_module_to_moves_the_parameters_and_back(device: str) -> None:
    """``Conv2d.to(device)``: the same module, its parameters' values on the device; the
    output and the gradients there too; ``to("cpu")`` brings them back."""
    sp.manual_seed(0)
    conv = sp.nn.Conv2d(2, 3, 3, padding=1)
    before = [p.data.copy() for p in conv.parameters()]
    assert conv.to(device) is conv
    for p, b in zip(conv.parameters(), before, strict=True):
        assert isinstance(p.data, array_type(device))
        np.testing.assert_array_equal(host(p.data), b)
    out = conv(sp.ones(1, 2, 4, 4, device=device))
    out.sum().backward()
    assert isinstance(out.data, array_type(device))
    assert all(isinstance(p.grad.data, array_type(device)) for p in conv.parameters())
    conv.to("cpu")
    assert all(isinstance(p.data, np.ndarray) for p in conv.parameters())


def test_conv2d_dtype_and_double() -> None:
    conv = sp.nn.Conv2d(2, 3, 3)
    assert conv.weight.dtype == sp.float32 and conv.bias.dtype == sp.float32
    conv.double()
    assert conv.weight.dtype == sp.float64
    out = conv(sp.ones(1, 2, 5, 5, dtype=sp.float64))
    assert out.dtype == sp.float64 and tuple(out.shape) == (1, 3, 3, 3)
    assert sp.nn.Conv2d(2, 3, 3, dtype=sp.float64).weight.dtype == sp.float64


def test_conv2d_initialisation_range() -> None:
    """U(−b, b), b = 1/√(in_channels/groups · kh · kw): every value inside, the extremes near
    ±b, the spread b/√3 (tests/test_torch_conv.py checks PyTorch's bound is the same)."""
    sp.manual_seed(0)
    conv = sp.nn.Conv2d(16, 32, (3, 5), groups=2)
    bound = 1 / np.sqrt(8 * 15)
    w = conv.weight.data.astype(np.float64)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.97 * bound
    assert abs(w.std() - bound / np.sqrt(3)) < 0.05 * bound / np.sqrt(3)
    assert np.abs(conv.bias.data).max() <= bound


def test_batchnorm2d_normalises_each_channel_over_batch_and_positions() -> None:
    x = randn(4, 3, 5, 6) * 3 + 2
    bn = sp.nn.BatchNorm2d(3, dtype=sp.float64)
    out = bn(sp.tensor(x)).data
    mean, var = x.mean((0, 2, 3)), x.var((0, 2, 3))
    close(out, (x - mean.reshape(1, 3, 1, 1)) / np.sqrt(var.reshape(1, 3, 1, 1) + 1e-5))
    close(bn.running_mean, 0.1 * mean)
    close(bn.running_var, 0.9 + 0.1 * x.var((0, 2, 3), ddof=1))


# -- on a device ----------------------------------------------------------------------------


def train_steps(device: str, optimizer: str, steps: int = 3, dtype=np.float64, batch: int = 16):
    """``steps`` training steps of LeNet (cross_entropy, SGD or Adam) on ``device``, from
    the same weights and batch: the losses (device scalars), the model, the optimizer, the
    copies the steps made."""
    sp.manual_seed(0)
    model = capstone.make_cnn(sp)  # the capstone's LeNet
    model = (model.double() if dtype == np.float64 else model).to(device)
    make = {"sgd": lambda p: sp.optim.SGD(p, lr=0.05, momentum=0.9), "adam": sp.optim.Adam}
    opt = make[optimizer](model.parameters())
    rng = np.random.default_rng(0)
    x = sp.tensor(rng.standard_normal((batch, 1, 28, 28)).astype(dtype)).to(device)
    y = sp.tensor(rng.integers(0, 10, batch)).to(device)
    losses = []
    with copies(device) if device != "cpu" else contextlib.nullcontext() as seen:
        for _ in range(steps):
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            losses.append(loss)
    return losses, model, opt, seen


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
@pytest.mark.parametrize("device", DEVICES)
def test_lenet_training_step_on_the_device_equals_the_cpus(device: str, optimizer: str) -> None:
    cpu, cpu_model, *_ = train_steps("cpu", optimizer)
    dev, dev_model, opt, _ = train_steps(device, optimizer)
    cpu = [float(t.data) for t in cpu]
    assert cpu[-1] < cpu[0]
    np.testing.assert_allclose([float(host(t.data)) for t in dev], cpu, rtol=1e-10, atol=0)
    for p, q in zip(dev_model.parameters(), cpu_model.parameters(), strict=True):
        np.testing.assert_allclose(host(p.data), q.data, rtol=1e-9, atol=1e-10)
    kinds = {type(t.data) for t in dev} | {type(p.data) for p in dev_model.parameters()}
    kinds |= {type(p.grad.data) for p in dev_model.parameters()}
    state = [getattr(v, "data", v) for s in opt.state.values() for v in s.values()]
    kinds |= {type(a) for a in state if hasattr(a, "shape")}
    assert kinds == {array_type(device)}, kinds


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
@pytest.mark.parametrize("device", DEVICES)
def test_lenet_training_step_adds_no_copy_back(device: str, optimizer: str) -> None:
    """The copies of three LeNet steps are exactly those of chapter 5's cross_entropy on
    the same logits (forward and backward, three times: its two reads per call) — the
    convolutions, pools, Linear layers and the optimizer step add no copy back."""
    *_, seen = train_steps(device, optimizer)
    logits = sp.tensor(np.zeros((16, 10))).to(device).requires_grad_()
    y = sp.tensor(np.arange(16) % 10).to(device)
    with copies(device) as loss_alone:
        for _ in range(3):
            F.cross_entropy(logits, y).backward()
    assert seen.to_host == loss_alone.to_host, (seen, loss_alone)


@pytest.mark.xfail(
    strict=True,
    reason="chapter 5's cross_entropy reads the device twice per call (`if bad.any()`, "
    "`int(keep.sum())`) and ReLU's backward lifts its 0 from the host: "
    "tests/test_gpu.py HIDDEN_COPIES; strict: passes once fixed",
)
@pytest.mark.parametrize("device", DEVICES)
def test_lenet_training_step_makes_no_copy(device: str) -> None:
    *_, seen = train_steps(device, "adam")
    assert (seen.to_device, seen.to_host) == (0, 0), seen


def _layers(batchnorm: bool):
    layers = [
        sp.nn.Conv2d(2, 4, 3, padding="same", groups=2),
        sp.nn.MaxPool2d(3, 1, 1),
        sp.nn.Conv2d(4, 4, 2, stride=2, dilation=1, padding=1),
        sp.nn.AvgPool2d(2, 1, 1, count_include_pad=False),
        sp.nn.Unfold(2, 1, 0, 1),
        sp.nn.Fold((6, 6), 2),
    ]
    if batchnorm:
        layers.insert(1, sp.nn.BatchNorm2d(4))
    return sp.nn.Sequential(*layers)


@pytest.mark.parametrize(
    "batchnorm", [False, True], ids=["conv, pools, unfold, fold", "BatchNorm2d"]
)
@pytest.mark.parametrize("device", DEVICES)
def test_chapter_8_layers_make_no_copy(device: str, batchnorm: bool) -> None:
    """Forward and backward through every chapter 8 layer and function, on the device, with
    a loss that reads nothing back: no copy either way. BatchNorm2d is chapter 5's, whose
    Python scalars (``+ eps``, the mean's ``/ n``) are lifted from the host by chapter 2's
    ``_lift`` (tests/test_gpu.py, ``HIDDEN_COPIES``): no copy back, only those in."""
    sp.manual_seed(0)
    net = _layers(batchnorm).to(device)
    x = sp.randn(3, 2, 9, 9, device=device).requires_grad_()
    with copies(device) as seen:
        out = net(x)
        (out * out).sum().backward()
        _, idx = F.max_pool2d(x, 2, return_indices=True)
    assert seen.to_host == 0, seen
    if not batchnorm:
        assert seen.to_device == 0, seen
    kinds = {type(a) for a in (out.data, x.grad.data, idx.data)}
    kinds |= {type(p.grad.data) for p in net.parameters()}
    assert kinds == {array_type(device)}, kinds


@pytest.mark.parametrize("device", DEVICES)
def test_conv2d_forward_and_backward_on_the_device_equal_the_cpus(device: str) -> None:
    """float64: values and the three gradients to 1e-10 (and a float32 run to 1e-5),
    relative to each array's largest entry (a sum that cancels keeps its terms' error)."""
    for dtype, tol in ((np.float64, 1e-10), (np.float32, 1e-5)):
        rng = np.random.default_rng(1)
        arrays = [
            rng.standard_normal(s).astype(dtype) for s in [(4, 6, 11, 10), (8, 3, 3, 3), (8,)]
        ]
        results = []
        for where in ("cpu", device):
            x, w, b = (sp.tensor(a).to(where).requires_grad_() for a in arrays)
            out = F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2)
            pooled = F.max_pool2d(out, 2, 1) + F.avg_pool2d(out, 3, 1, 1)[..., :-1, :-1]
            (pooled * pooled).sum().backward()
            results.append(
                [host(a.data) if where != "cpu" else a.data for a in (out, x.grad, w.grad, b.grad)]
            )
        for ours, cpus in zip(results[1], results[0], strict=True):  # tol of the largest
            np.testing.assert_allclose(ours, cpus, rtol=tol, atol=tol * np.abs(cpus).max())


@pytest.mark.parametrize("device", DEVICES)
def test_windows_of_a_device_array_is_a_view(device: str) -> None:
    """No copy, on the device, over the same memory: the device's own ``as_strided``."""
    x = sp.tensor(np.arange(2 * 3 * 6 * 5, dtype=np.float64).reshape(2, 3, 6, 5)).to(device)
    with copies(device) as seen:
        view = unfold_module.windows(x.data, (2, 3), (2, 1), (1, 2))
    assert (seen.to_device, seen.to_host) == (0, 0)
    assert isinstance(view, array_type(device)) and view.shape == (2, 3, 2, 3, 4, 2)
    if device == "sim":
        assert np.shares_memory(view._a, x.data._a)
    else:
        assert view.data.ptr == x.data.data.ptr  # cupy: the same allocation, not a copy
    expected = ref_unfold(np.arange(180.0).reshape(2, 3, 6, 5), (2, 3), d=(2, 1), s=(1, 2))
    np.testing.assert_array_equal(host(view).reshape(2, 18, 8), expected)


def test_as_strided_is_the_array_modules_own(monkeypatch) -> None:
    """On CuPy (any module but NumPy) ``unfold.as_strided`` calls
    ``xp.lib.stride_tricks.as_strided(x, shape, strides)`` — ``cupy.lib.stride_tricks``'s on a
    GPU; NumPy's is read-only."""
    calls = []

    def spy(x, shape, strides):
        calls.append((x, shape, strides))
        return "view"

    fake = types.SimpleNamespace(
        lib=types.SimpleNamespace(stride_tricks=types.SimpleNamespace(as_strided=spy))
    )
    monkeypatch.setattr(unfold_module, "array_module", lambda x: fake)
    array = types.SimpleNamespace(shape=(4,), strides=(8,))  # what the bounds check reads
    assert unfold_module.as_strided(array, (1, 2), (16, 8)) == "view"
    assert calls == [(array, (1, 2), (16, 8))]
    monkeypatch.undo()
    host_view = unfold_module.as_strided(np.arange(4.0), (2, 2), (8, 8))
    assert not host_view.flags.writeable


@pytest.mark.parametrize(
    ("shape", "strides"),
    [((2, 2), (24, 8)), ((3, 2), (16, 8)), ((2,), (-8,))],  # past the end; before the start
)
def test_as_strided_refuses_a_view_outside_the_array(shape, strides) -> None:
    """A wrong stride or window count would read memory the array does not hold (NumPy
    reads whatever lies there): refused, naming the shapes and strides."""
    x = np.arange(4.0)
    with pytest.raises(ValueError, match="outside its array"):
        unfold_module.as_strided(x, shape, strides)
    assert unfold_module.as_strided(x, (2, 2), (8, 8)).shape == (2, 2)  # the last byte: fine
    assert unfold_module.as_strided(x[::-1], (2,), (-8,)).tolist() == [3.0, 2.0]


@pytest.mark.parametrize("device", DEVICES[:1])  # "cuda" only: marked gpu, skipped without
def test_cupy_stride_tricks_make_the_windows(device: str, monkeypatch) -> None:
    """On a GPU: conv2d's windows come from ``cupy.lib.stride_tricks.as_strided``."""
    import cupy

    calls = []
    original = cupy.lib.stride_tricks.as_strided

    def counted(*args, **kwargs):
        calls.append(args[1:])
        return original(*args, **kwargs)

    monkeypatch.setattr(cupy.lib.stride_tricks, "as_strided", counted)
    x, w = sp.randn(1, 2, 5, 5, device=device), sp.randn(3, 2, 3, 3, device=device)
    out = F.conv2d(x, w)
    assert isinstance(out.data, cupy.ndarray) and calls


@pytest.mark.parametrize("kernel", [1, 3])  # a 1×1 and a whole-image kernel: a free reshape
def test_unfold_is_a_copy_of_its_own(kernel) -> None:
    """unfold's result never shares memory with its input (PyTorch's does not either): a
    later change to x leaves it as it was, and it can be changed in place itself."""
    x = sp.tensor(np.arange(18.0).reshape(1, 2, 3, 3))
    cols = F.unfold(x, kernel)
    before = cols.data.copy()
    assert not np.shares_memory(cols.data, x.data)
    x.add_(1)
    np.testing.assert_array_equal(cols.data, before)
    cols.add_(1)
    np.testing.assert_array_equal(cols.data, before + 1)

"""Chapter 3 on the reference: the broadcasting rule (given code), the seams chapter 2 opens
into this chapter, and what the tasks promise beyond the checks' values (each Function's
gradient is the other; every result is recorded by the graph; broadcasting copies nothing).
The tasks' values are covered by the checks, the broken variants and the PyTorch oracle."""

from __future__ import annotations

import numpy as np
import pytest

from solutions import ch02_tensor
from solutions import ch03_broadcast as sp


@pytest.mark.parametrize(
    ("shape", "target", "problem"),
    [
        ((3, 1), (2, 3, 4), None),
        ((), (2, 3), None),
        ((1,), (0,), None),
        ((3,), (2, 4), "at dimension 1, size 3 cannot become 4, only a 1 can"),
        ((3,), (-1,), "a size cannot be negative (-1, 'keep this size', is expand's)"),
        ((2, 3), (3,), "2 dimensions cannot become 1"),
    ],
)
def test_the_broadcasting_rule(shape, target, problem) -> None:
    assert sp.broadcast_problem(shape, target) == problem
    if problem is None:
        assert np.broadcast_shapes(shape, target) == target
    else:
        with pytest.raises(RuntimeError, match=rf"does not broadcast to \({target[0]}"):
            sp.check_broadcast(shape, target, "here")


def test_chapter_2_tensors_reach_this_chapter_through_the_seams() -> None:
    """A tensor of chapter 2's own package: its methods and its Node find chapter 3."""
    x = ch02_tensor.ones(3, 1, requires_grad=True)
    y = ch02_tensor.ones(4, requires_grad=True)
    grads = (x * y).grad_fn.backward(ch02_tensor.ones(3, 4))
    assert [g.shape for g in grads] == [(3, 1), (4,)]
    np.testing.assert_array_equal(grads[0].data, np.full((3, 1), 4.0))
    assert x.broadcast_to(2, 3, 4).shape == x.expand(2, -1, 4).shape == (2, 3, 4)
    assert ch02_tensor.ones(2, 3).sum_to_size(1, 3).shape == (1, 3)


@pytest.mark.parametrize(
    ("a", "b"),
    [((3, 1), (4,)), ((), (2, 3)), ((2, 1, 4), (3, 1)), ((0, 3), (3,))],
)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_every_elementwise_op_gives_each_input_its_own_shape(op: str, a, b) -> None:
    x, y = sp.randn(*a, requires_grad=True), sp.randn(*b, requires_grad=True)
    out = getattr(x, f"__{op if op != 'div' else 'truediv'}__")(y)
    gx, gy = out.grad_fn.backward(sp.ones(*out.shape))
    assert (gx.shape, gy.shape) == (a, b)


def test_the_bias_gradient_is_a_column_sum() -> None:
    x, w, b = sp.randn(64, 5), sp.randn(5, 3), sp.randn(3, requires_grad=True)
    out = x @ w + b
    g = sp.randn(64, 3)
    _, grad_b = out.grad_fn.backward(g)
    assert grad_b.shape == (3,)
    np.testing.assert_allclose(grad_b.data, g.data.sum(axis=0), rtol=1e-6)


def test_each_function_is_the_others_gradient() -> None:
    x = sp.randn(3, 1, requires_grad=True)
    y = x.broadcast_to(2, 3, 4)
    g = sp.randn(2, 3, 4, requires_grad=True)
    (back,) = y.grad_fn.backward(g, create_graph=True)
    assert back.shape == (3, 1) and back.grad_fn.function is sp.SumToSize
    (again,) = back.grad_fn.backward(sp.ones(3, 1, requires_grad=True), create_graph=True)
    assert again.shape == (2, 3, 4) and again.grad_fn.function is sp.BroadcastTo


def test_unbroadcast_is_recorded_so_it_can_be_differentiated() -> None:
    g = sp.randn(2, 3, 4, requires_grad=True)
    reduced = sp.unbroadcast(g, (3, 1))
    assert reduced.shape == (3, 1) and reduced.grad_fn is not None
    assert sp.unbroadcast(g, (2, 3, 4)) is g  # nothing to sum: no node


def test_broadcast_to_copies_nothing() -> None:
    x = sp.randn(3, 1)
    y = x.broadcast_to(3, 1000)
    assert np.shares_memory(x.data, y.data) and y.data.strides[1] == 0
    with pytest.raises(ValueError, match="read-only"):
        y.data[0, 0] = 1.0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dtypes_are_kept(dtype) -> None:
    x = sp.randn(2, 1, dtype=dtype, requires_grad=True)
    y = x.broadcast_to(2, 3)
    (grad,) = y.grad_fn.backward(sp.ones(2, 3, dtype=dtype))
    assert y.dtype == grad.dtype == sp.unbroadcast(sp.ones(2, 3, dtype=dtype), (3,)).dtype == dtype


@pytest.mark.parametrize(
    ("use", "message"),
    [
        (lambda: sp.unbroadcast(sp.ones(2, 3), (4,)), r"unbroadcast: shape \(4,\) does not"),
        (lambda: sp.ones(3).broadcast_to(2, 4), r"broadcast_to: shape \(3,\) does not"),
        (lambda: sp.ones(2, 3).sum_to_size(4), r"sum_to_size: shape \(4,\) does not"),
        (lambda: sp.ones(3).expand(-1, 3), "new leading dimension 0"),
        (lambda: sp.ones(2, 3).expand(3), "number of sizes"),
    ],
)
def test_errors_name_the_problem(use, message: str) -> None:
    with pytest.raises(RuntimeError, match=message):
        use()


def test_a_gradient_that_is_no_broadcast_is_refused() -> None:
    """Node.backward only sums a gradient down when it is a broadcast of the input."""

    class Wrong(sp.Function):
        @staticmethod
        def forward(ctx, a):
            return a.data * 2

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output.reshape(-1)

    out = Wrong.apply(sp.ones(2, 3, requires_grad=True))
    with pytest.raises(RuntimeError, match=r"gradient of shape \(6,\) for an input of shape"):
        out.grad_fn.backward(sp.ones(2, 3))

"""``y[index] = value`` inside a recorded graph (chapter 7's ``ops/setitem.py``: ``IndexPut``
through chapter 2's ``in_place``, rule 3) against PyTorch, in float64: the values, the
gradient of what made ``y`` (zeros where ``value`` was written) and the gradient of
``value`` (``∂L/∂y[index]``, summed to ``value``'s shape), for basic, integer, mask and
advanced indices, a broadcast value, a number, an index that repeats a position; and the
refusal on a tensor that has a view (the course's rule, where PyTorch rewrites the view)."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from solutions import ch07_device as sp

torch = pytest.importorskip("torch")

MASK = [[True, False, True, False, False], [False, False, False, True, False]] + [[False] * 5] * 2


def _long(lib: Any, values: list) -> Any:
    return lib.tensor(values, dtype=lib.int64)


def _mask(lib: Any, values: list) -> Any:
    return lib.tensor(values, dtype=lib.bool)


# (name, index for a library, the value's shape or a number); y has shape (4, 5) unless the
# name says (2, 3, 4)
CASES: list[tuple[str, Callable[[Any], Any], Any]] = [
    ("basic slices", lambda lib: (slice(1, 3), slice(None)), (2, 5)),
    ("a stepped slice", lambda lib: (slice(None), slice(0, 5, 2)), (4, 3)),
    ("an integer", lambda lib: 2, (5,)),
    ("a negative integer and a slice", lambda lib: (-1, slice(1, 4)), (3,)),
    ("a broadcast value", lambda lib: (slice(None), slice(1, 3)), (1, 2)),
    ("a broadcast row", lambda lib: (slice(None), slice(1, 3)), (2,)),
    ("a number", lambda lib: (slice(None), 0), 7.5),
    ("a list", lambda lib: [0, 2, 3], (3, 5)),
    ("a list that repeats a row", lambda lib: [1, 1, 3], (3, 5)),
    ("integer tensors", lambda lib: (_long(lib, [0, 1, 3]), _long(lib, [4, 0, 2])), (3,)),
    ("repeated positions", lambda lib: (_long(lib, [2, 0, 2]), _long(lib, [1, 3, 1])), (3,)),
    ("a boolean mask", lambda lib: _mask(lib, MASK), (3,)),
    ("a boolean mask, one value", lambda lib: _mask(lib, MASK), ()),
    ("a row mask", lambda lib: _mask(lib, [True, False, True, False]), (2, 5)),
    ("a list after a slice", lambda lib: (slice(None), [4, 0]), (4, 2)),
    ("(2, 3, 4) an integer next to a list", lambda lib: (0, slice(None), [1, 2]), (3, 2)),
    ("(2, 3, 4) an ellipsis", lambda lib: (Ellipsis, 1), (2, 3)),
    ("(2, 3, 4) None", lambda lib: (1, None, slice(0, 2)), (1, 2, 4)),
]


def _shape(name: str) -> tuple[int, ...]:
    return (2, 3, 4) if name.startswith("(2, 3, 4)") else (4, 5)


def _run(lib: Any, name: str, index: Callable, value: Any, value_grad: bool) -> dict:
    """y = x * 3 + 1 (a non-leaf), y[index] = value, then L = Σ weights · y²: y's values
    and the gradients of x and of the value."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    shape = _shape(name)
    x_data, weights = rng.standard_normal(shape), rng.standard_normal(shape)
    x = lib.tensor(x_data, dtype=lib.float64, requires_grad=True)
    y = x * 3 + 1
    if isinstance(value, tuple):
        v = lib.tensor(rng.standard_normal(value), dtype=lib.float64, requires_grad=value_grad)
    else:
        v = value
    y[index(lib)] = v
    (y * y * lib.tensor(weights, dtype=lib.float64)).sum().backward()
    found = {"y": y.detach().numpy(), "x.grad": x.grad.numpy()}
    if isinstance(v, lib.Tensor) and value_grad:
        found["v.grad"] = v.grad.numpy()
    return found


PARAMS = [
    pytest.param(name, index, value, value_grad, id=f"{name}, {what}")
    for name, index, value in CASES
    for value_grad, what in [(False, "value"), (True, "value requires grad")]
    if isinstance(value, tuple) or not value_grad  # a number has no gradient
]


@pytest.mark.parametrize(("name", "index", "value", "value_grad"), PARAMS)
def test_values_and_gradients_are_pytorchs(name: str, index: Any, value: Any, value_grad: bool):
    got = _run(sp, name, index, value, value_grad)
    want = _run(torch, name, index, value, value_grad)
    assert got.keys() == want.keys()
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-12, atol=1e-12, err_msg=key)


def test_a_plain_tensor_takes_a_value_that_requires_grad() -> None:
    """z = zeros; z[1:3] = v records (z leaves the leaves); a float32 value is cast to z's
    float64, and its gradient comes back in float32, as PyTorch's copy_ does."""
    found = []
    for lib in (sp, torch):
        v = lib.tensor([1.5, -2.0], dtype=lib.float32, requires_grad=True)
        z = lib.zeros(4, dtype=lib.float64)
        z[1:3] = v
        assert z.requires_grad and not z.is_leaf
        (z * lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=lib.float64)).sum().backward()
        found.append((z.detach().numpy(), v.grad.numpy(), str(v.grad.dtype)))
    (z_sp, g_sp, t_sp), (z_t, g_t, t_t) = found
    np.testing.assert_array_equal(z_sp, z_t)
    np.testing.assert_array_equal(g_sp, g_t)
    assert t_sp.endswith("float32") and t_t.endswith("float32")


def test_two_assignments_and_a_second_order_gradient() -> None:
    """y[0] = a, then y[:, 1] = b (b overwrites a's second element); the gradients of a and
    b, and, with create_graph=True, the gradient of Σ (∂L/∂b)² with respect to x."""
    rng = np.random.default_rng(3)
    x_data, a_data, b_data = (
        rng.standard_normal((3, 3)),
        rng.standard_normal(3),
        rng.standard_normal(3),
    )
    found = []
    for lib in (sp, torch):
        x = lib.tensor(x_data, dtype=lib.float64, requires_grad=True)
        a = lib.tensor(a_data, dtype=lib.float64, requires_grad=True)
        b = lib.tensor(b_data, dtype=lib.float64, requires_grad=True)
        y = x.sin()
        y = y * 1  # sin keeps x, not its output: assign into a product
        y[0] = a * 2
        y[:, 1] = b
        loss = (y * y * x).sum()
        (grad_b,) = lib.autograd.grad(loss, (b,), create_graph=True)
        (grad_b * grad_b).sum().backward()
        found.append([t.detach().numpy() for t in (y, grad_b, x.grad, a.grad)])
    for got, want, what in zip(*found, ["y", "dL/db", "x.grad", "a.grad"], strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=what)
    # ∂L/∂b = 2·b·x[:, 1] does not depend on a (b overwrote the column where a and x met)
    assert not found[0][3].any()


def test_the_version_counter_catches_an_assignment_into_a_saved_tensor() -> None:
    """y * y keeps y for its backward: assigning into y afterwards makes that backward
    raise, as in PyTorch; softmax keeps its output: the same."""
    for lib in (sp, torch):
        x = lib.tensor([0.5, 1.0], dtype=lib.float64, requires_grad=True)
        y = x * 2
        z = y * y
        y[0] = 2.0
        assert y._version == 1
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.sum().backward()
        s = lib.softmax(x * 1, dim=0)
        s[1] = 0.0
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            (s * lib.tensor([1.0, 2.0], dtype=lib.float64)).sum().backward()


def test_an_assignment_into_a_tensor_without_views_is_recorded_and_with_a_view_refused() -> None:
    """y = x * 2; y[0] = 5 is recorded (y has no view), as in PyTorch; once y has a view
    (v = y[0:2]) the course refuses, where PyTorch rewrites the view's graph: the message
    names the way around."""
    x = sp.tensor([1.0, 2.0, 3.0], dtype=sp.float64, requires_grad=True)
    y = x * 2
    y[0] = 5.0
    y.sum().backward()
    assert y.tolist() == [5.0, 4.0, 6.0] and x.grad.tolist() == [0.0, 2.0, 2.0]
    y = x * 2
    view = y[0:2]
    with pytest.raises(RuntimeError) as refused:
        y[0] = 5.0
    message = str(refused.value)
    assert "shares its memory with a view" in message
    assert "x = x.clone(); x[index] = value" in message and "torch.where" in message
    assert y.tolist() == [2.0, 4.0, 6.0] and y._version == 0 and view.tolist() == [2.0, 4.0]
    with pytest.raises(RuntimeError, match="shares its memory with a view"):
        view[1] = 0.0
    with sp.no_grad():
        y[0] = 5.0  # nothing recorded: written in place, the view sees it
    assert view.tolist() == [5.0, 4.0] and y._version == view._version == 1

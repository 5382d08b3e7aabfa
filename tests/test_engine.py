"""Chapter 4's engine on the reference, against PyTorch's documented semantics.

``Tensor.backward(gradient=None, retain_graph=None, create_graph=False)``,
``autograd.grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
allow_unused=False)``, hooks, ``retain_grad``, ``detach``, grad mode, higher-order
gradients, ``autograd.functional`` and re-entrancy. Every expected value is a closed form
computed here in NumPy (float64), never by the code under test. The course's own choice,
out-of-place accumulation, is tested as such. PyTorch itself is the oracle in
``tests/test_torch_engine.py``; scale and determinism are ``tests/test_engine_scale.py``.
"""

from __future__ import annotations

import gc
import threading
import weakref

import numpy as np
import pytest

from solutions import ch04_backward as sp

RNG = np.random.default_rng(4)


def leaf(values, requires_grad: bool = True) -> sp.Tensor:
    """A float64 leaf holding ``values``."""
    return sp.tensor(np.asarray(values, dtype=np.float64), requires_grad=requires_grad)


def close(t: sp.Tensor, expected) -> None:
    assert t is not None
    np.testing.assert_allclose(t.data, np.asarray(expected, dtype=np.float64), rtol=1e-12, atol=0)


# -- Tensor.backward: seeds, shapes and dtypes ------------------------------------------


def test_backward_of_a_one_element_output_seeds_one() -> None:
    """L = Σ a·b: ∂L/∂a = b, ∂L/∂b = a; a (1, 1) output is one element too."""
    a, b = leaf(RNG.normal(size=3)), leaf(RNG.normal(size=3))
    (a * b).sum().backward()
    close(a.grad, b.data)
    close(b.grad, a.data)
    c = leaf([[2.5]])
    (c * c).backward()
    close(c.grad, [[5.0]])


def test_implicit_gradient_only_for_one_element_outputs() -> None:
    a = leaf(RNG.normal(size=(2, 3)))
    with pytest.raises(RuntimeError, match="implicitly created only for scalar outputs"):
        (a * 2.0).backward()
    assert a.grad is None


def test_gradient_weights_a_vector_output() -> None:
    """y = a·b (elementwise), y.backward(g): ∂⟨g, y⟩/∂a = g·b."""
    a, b = leaf(RNG.normal(size=(2, 3))), leaf(RNG.normal(size=(2, 3)))
    g = RNG.normal(size=(2, 3))
    (a * b).backward(leaf(g, requires_grad=False))
    close(a.grad, g * b.data)
    close(b.grad, g * a.data)


def test_a_gradient_of_the_wrong_shape_is_refused_naming_both_shapes() -> None:
    a = leaf(RNG.normal(size=(2, 3)))
    with pytest.raises(RuntimeError) as raised:
        (a * 2.0).backward(leaf(np.ones((3, 2)), requires_grad=False))
    assert str((3, 2)) in str(raised.value) and str((2, 3)) in str(raised.value)
    assert a.grad is None


@pytest.mark.parametrize(
    ("out_dtype", "grad_dtype"), [("float64", "float32"), ("float32", "float64")]
)
def test_a_gradient_of_another_float_dtype_is_cast(out_dtype: str, grad_dtype: str) -> None:
    """As PyTorch: the gradient is cast to the output's dtype; the leaf's .grad keeps the
    leaf's dtype."""
    a = sp.tensor(np.array([0.5, -1.25, 2.0], dtype=out_dtype), requires_grad=True)
    g = np.array([1.0, 2.0, -3.0], dtype=grad_dtype)
    (a * 3.0).backward(sp.tensor(g))
    assert a.grad.dtype == np.dtype(out_dtype)
    np.testing.assert_array_equal(a.grad.data, (g.astype(out_dtype) * 3).astype(out_dtype))


def test_backward_of_a_tensor_that_requires_no_grad_raises() -> None:
    with pytest.raises(RuntimeError, match="does not require grad"):
        leaf([1.0], requires_grad=False).sum().backward()


def test_backward_works_inside_no_grad() -> None:
    """Grad mode governs recording, not the engine: a graph built before ``no_grad`` is
    differentiated inside it (as in PyTorch)."""
    x = leaf(RNG.normal(size=3))
    y = (x * x).sum()
    with sp.no_grad():
        y.backward()
    close(x.grad, 2 * x.data)


# -- retain_graph and freeing -----------------------------------------------------------


def test_a_second_backward_through_a_freed_graph_raises() -> None:
    x = leaf(RNG.normal(size=3))
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


def test_retain_graph_keeps_it_and_the_second_pass_accumulates() -> None:
    x = leaf(RNG.normal(size=3))
    y = (x.exp() * x).sum()  # ∂/∂x = eˣ(1 + x)
    y.backward(retain_graph=True)
    y.backward()
    close(x.grad, 2 * np.exp(x.data) * (1 + x.data))
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


def test_retain_graph_defaults_to_create_graph() -> None:
    """``backward(create_graph=True)`` keeps the graph (retain_graph=None means
    create_graph); an explicit ``retain_graph=False`` frees it anyway."""
    x = leaf(RNG.normal(size=3))
    y = (x * x * x).sum()
    y.backward(create_graph=True)
    y.backward(create_graph=True)
    close(x.grad, 2 * 3 * x.data**2)
    z = (x * x).sum()
    z.backward(retain_graph=False, create_graph=True)
    with pytest.raises(RuntimeError, match="second time"):
        z.backward()


def test_saved_tensors_are_freed_after_use_unless_retained() -> None:
    """Each node's context goes as soon as its backward has run (``Node.release``)."""
    x = leaf(RNG.normal(size=3))
    h = x.tanh()
    y = (h * x).sum()
    nodes = [y.grad_fn, h.grad_fn]
    y.backward(retain_graph=True)
    assert all(n.ctx is not None for n in nodes)
    y.backward()
    assert all(n.ctx is None for n in nodes)


def test_intermediate_gradients_are_freed_as_backward_proceeds() -> None:
    """On a chain y_k = tanh(y_{k-1}), hooks see each intermediate gradient; by the time the
    gradient of y_k is complete, the one of y_{k+2} (used two steps earlier) is gone."""
    x = leaf(RNG.normal(size=4))
    ys = [x]
    for _ in range(6):
        ys.append(ys[-1].tanh())
    seen: list = []

    def watch(g: sp.Tensor) -> None:
        gc.collect()
        if len(seen) >= 2:
            assert seen[-2]() is None, "an intermediate gradient is still alive"
        seen.append(weakref.ref(g))

    for y in reversed(ys[1:]):
        y.register_hook(watch)
    ys[-1].sum().backward()
    assert len(seen) == 6


# -- .grad of non-leaves, retain_grad, detach -------------------------------------------


def test_reading_grad_of_a_non_leaf_warns_unless_it_retains_grad() -> None:
    x = leaf(RNG.normal(size=3))
    h = x * 2.0
    r = x * 3.0
    r.retain_grad()
    (h * r).sum().backward()
    with pytest.warns(UserWarning, match="retain_grad"):
        assert h.grad is None
    close(r.grad, h.data)  # no warning (filterwarnings=error would fail it)
    close(x.grad, 2 * 3 * 2 * x.data)  # x.grad of a leaf: no warning


def test_retain_grad_sums_every_use_and_accumulates() -> None:
    """A retained non-leaf used twice gets both contributions; a second backward adds."""
    x = leaf(RNG.normal(size=3))
    h = x.exp()
    h.retain_grad()
    y = (h * h + h).sum()  # ∂y/∂h = 2h + 1
    y.backward(retain_graph=True)
    close(h.grad, 2 * np.exp(x.data) + 1)
    y.backward()
    close(h.grad, 2 * (2 * np.exp(x.data) + 1))
    with pytest.raises(RuntimeError, match="requires_grad=False"):
        leaf([1.0], requires_grad=False).retain_grad()


def test_detach_shares_values_and_stops_the_gradient() -> None:
    """y = detach(x)·x: ∂y/∂x = x (the detached factor is a constant)."""
    x = leaf(RNG.normal(size=3))
    d = x.detach()
    assert not d.requires_grad and d.grad_fn is None
    np.testing.assert_array_equal(d.data, x.data)
    (d * x).sum().backward()
    close(x.grad, x.data)
    assert d.grad is None


def test_leaves_that_require_no_grad_get_none() -> None:
    x, c = leaf(RNG.normal(size=3)), leaf(RNG.normal(size=3), requires_grad=False)
    (x * c).sum().backward()
    close(x.grad, c.data)
    assert c.grad is None


# -- accumulation, out of place (the course's choice) -----------------------------------


def test_leaves_accumulate_across_backward_calls_out_of_place() -> None:
    """Two passes add up; the second replaces ``.grad`` by a new Tensor and leaves the old
    one as it was (PyTorch adds in place when it can; the course never does)."""
    x = leaf(RNG.normal(size=3))
    (x * x).sum().backward()
    first, first_values = x.grad, x.grad.data.copy()
    (x * 5.0).sum().backward()
    assert x.grad is not first
    np.testing.assert_array_equal(first.data, first_values)
    close(x.grad, 2 * x.data + 5)


def test_one_gradient_object_handed_to_two_leaves_is_never_mutated() -> None:
    """c = a + b hands the same gradient to both parents. Whether or not ``a.grad is
    b.grad``, a later backward into ``a`` must not change ``b.grad`` nor the caller's
    ``gradient``."""
    a, b = leaf(RNG.normal(size=3)), leaf(RNG.normal(size=3))
    g = leaf(RNG.normal(size=3), requires_grad=False)
    g_values = g.data.copy()
    (a + b).backward(g)
    b_grad, b_values = b.grad, b.grad.data.copy()
    close(a.grad, g_values)
    (a * 3.0).sum().backward()
    close(a.grad, g_values + 3)
    assert b.grad is b_grad
    np.testing.assert_array_equal(b.grad.data, b_values)
    np.testing.assert_array_equal(g.data, g_values)


def test_a_tensor_used_twice_by_one_node_gets_both_contributions() -> None:
    """y = x + x and y = x·x: two edges from one node to one leaf."""
    x = leaf(RNG.normal(size=3))
    g = RNG.normal(size=3)
    (x + x).backward(leaf(g, requires_grad=False))
    close(x.grad, 2 * g)
    x.grad = None
    (x * x).backward(leaf(g, requires_grad=False))
    close(x.grad, 2 * x.data * g)


# -- hooks --------------------------------------------------------------------------------


def test_a_leaf_hook_sees_the_complete_gradient_once() -> None:
    """x feeds three nodes; its hook runs once, with the sum of the three contributions."""
    x = leaf(RNG.normal(size=3))
    calls: list = []
    x.register_hook(lambda g: calls.append(g.data.copy()))
    (x * 2.0 + x.exp() + x * x).sum().backward()
    expected = 2 + np.exp(x.data) + 2 * x.data
    assert len(calls) == 1
    np.testing.assert_allclose(calls[0], expected, rtol=1e-12)
    close(x.grad, expected)


def test_a_hook_that_returns_a_tensor_replaces_the_gradient() -> None:
    """On a leaf: .grad is the replacement. On a non-leaf: what flows on is the replacement
    (y = 2x, hook g ↦ 10·g, L = Σ y²: x.grad = 2 · 10 · 2y)."""
    x = leaf(RNG.normal(size=3))
    x.register_hook(lambda g: g * 0.0 + 7.0)
    (x * x).sum().backward()
    close(x.grad, np.full(3, 7.0))

    x = leaf(RNG.normal(size=3))
    y = x * 2.0
    y.register_hook(lambda g: g * 10.0)
    (y * y).sum().backward()
    close(x.grad, 2 * 10 * 2 * (2 * x.data))


def test_hooks_chain_in_order_and_none_keeps_the_gradient() -> None:
    x = leaf(RNG.normal(size=3))
    seen: list = []
    x.register_hook(lambda g: g + 1.0)
    x.register_hook(lambda g: seen.append(g.data.copy()))  # returns None: no change
    x.register_hook(lambda g: g * 3.0)
    (x * 2.0).sum().backward()
    np.testing.assert_allclose(seen[0], np.full(3, 3.0))
    close(x.grad, np.full(3, 9.0))


def test_a_non_leaf_hook_with_retain_grad_stores_the_replacement() -> None:
    """PyTorch ≥ 2.0 runs a tensor's hooks before its retain_grad: y.grad is hooked."""
    x = leaf(RNG.normal(size=3))
    y = x * 2.0
    y.retain_grad()
    y.register_hook(lambda g: g * 5.0)
    y.sum().backward()
    close(y.grad, np.full(3, 5.0))
    close(x.grad, np.full(3, 10.0))


def test_handle_remove_takes_the_hook_off() -> None:
    x = leaf(RNG.normal(size=3))
    y = x * 2.0
    calls: list = []
    handles = [
        x.register_hook(lambda g: calls.append("x")),
        y.register_hook(lambda g: calls.append("y")),
    ]
    z = (y * y).sum()
    z.backward(retain_graph=True)
    assert sorted(calls) == ["x", "y"]
    for handle in handles:
        handle.remove()
    handles[0].remove()  # twice is harmless
    z.backward()
    assert sorted(calls) == ["x", "y"]
    close(x.grad, 2 * 2 * 2 * (2 * x.data))
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        leaf([1.0], requires_grad=False).register_hook(lambda g: g)


@pytest.mark.parametrize("create_graph", [False, True])
def test_hooks_run_with_grad_mode_set_to_create_graph(create_graph: bool) -> None:
    """As in PyTorch, the whole backward pass (hooks, sums of contributions, accumulation)
    runs with grad mode = ``create_graph``: a hook that multiplies by a tensor requiring
    grad records nothing unless asked, so .grad is a constant after a plain backward."""
    x, w = leaf(RNG.normal(size=3)), leaf(RNG.normal(size=3))
    modes: list = []
    x.register_hook(lambda g: modes.append(sp.is_grad_enabled()))
    x.register_hook(lambda g: g * w)
    (x * 2.0).sum().backward(create_graph=create_graph)
    assert modes == [create_graph]
    close(x.grad, 2 * w.data)
    assert x.grad.requires_grad is create_graph
    assert sp.is_grad_enabled()


# -- grad mode -----------------------------------------------------------------------------


def test_no_grad_and_enable_grad_nest_and_restore() -> None:
    x = leaf([1.0, 2.0])
    assert sp.is_grad_enabled()
    with sp.no_grad():
        assert not sp.is_grad_enabled() and not (x * 2.0).requires_grad
        with sp.enable_grad():
            assert sp.is_grad_enabled() and (x * 2.0).grad_fn is not None
            with sp.no_grad():
                assert not (x * 2.0).requires_grad
            assert sp.is_grad_enabled()
        assert not sp.is_grad_enabled()
    assert sp.is_grad_enabled() and (x * 2.0).requires_grad


@pytest.mark.parametrize("outer", [True, False])
def test_grad_mode_is_restored_after_an_exception(outer: bool) -> None:
    """Each manager (made fresh: ``set_grad_enabled`` sets the mode when made) puts back
    the mode from before it, even when the block raises."""
    makers = (sp.no_grad, sp.enable_grad, lambda: sp.set_grad_enabled(not outer))
    with sp.set_grad_enabled(outer):
        for make in makers:
            with pytest.raises(KeyError), make():
                raise KeyError("inside")
            assert sp.is_grad_enabled() is outer
    assert sp.is_grad_enabled()


def test_grad_mode_classes_decorate_functions() -> None:
    x = leaf([1.0, 2.0])

    @sp.no_grad()
    def off(t):
        return t * 2.0, sp.is_grad_enabled()

    @sp.set_grad_enabled(False)
    def also_off(t):
        return t * 2.0

    assert sp.is_grad_enabled(), "decorating must not change the mode"

    @sp.enable_grad()
    def on(t):
        return t * 2.0

    y, mode = off(x)
    assert not y.requires_grad and mode is False and sp.is_grad_enabled()
    assert not also_off(x).requires_grad and sp.is_grad_enabled()
    with sp.no_grad():
        assert on(x).requires_grad
        assert not sp.is_grad_enabled()
    assert off.__name__ == "off"  # functools.wraps
    with pytest.raises(ZeroDivisionError):
        sp.no_grad()(lambda: 1 / 0)()
    assert sp.is_grad_enabled()


def test_grad_mode_classes_decorate_without_parentheses_as_pytorch() -> None:
    x = leaf([1.0, 2.0])

    @sp.no_grad
    def off(t):
        return t * 2.0

    @sp.enable_grad
    def on(t):
        return t * 2.0

    assert off.__name__ == "off" and sp.is_grad_enabled()
    assert not off(x).requires_grad and sp.is_grad_enabled()
    with sp.no_grad():
        assert on(x).requires_grad and not sp.is_grad_enabled()


def test_set_grad_enabled_as_a_plain_call_and_as_a_context() -> None:
    x = leaf([1.0])
    try:
        sp.set_grad_enabled(False)
        assert not sp.is_grad_enabled() and not (x * 2.0).requires_grad
        with sp.set_grad_enabled(True):
            assert (x * 2.0).requires_grad
        assert not sp.is_grad_enabled()
    finally:
        sp.set_grad_enabled(True)
    assert sp.is_grad_enabled()


def test_grad_mode_is_per_thread() -> None:
    seen: list = []
    with sp.no_grad():
        worker = threading.Thread(target=lambda: seen.append(sp.is_grad_enabled()))
        worker.start()
        worker.join()
    assert seen == [True]


# -- autograd.grad -------------------------------------------------------------------------


def test_grad_returns_a_tuple_and_touches_no_grad() -> None:
    x, w = leaf(RNG.normal(size=3)), leaf(RNG.normal(size=3))
    y = (x * w).sum()
    found = sp.autograd.grad(y, [x, w])
    assert isinstance(found, tuple) and len(found) == 2
    close(found[0], w.data)
    close(found[1], x.data)
    assert x.grad is None and w.grad is None
    (one,) = sp.autograd.grad((x * x).sum(), x)
    close(one, 2 * x.data)
    with pytest.raises(RuntimeError, match="second time"):
        sp.autograd.grad(y, x)


def test_grad_of_an_unused_input_raises_unless_allow_unused() -> None:
    x, u = leaf(RNG.normal(size=3)), leaf(RNG.normal(size=3))
    y = (x * x).sum()
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        sp.autograd.grad(y, [x, u], retain_graph=True)
    gx, gu = sp.autograd.grad(y, [x, u], allow_unused=True)
    close(gx, 2 * x.data)
    assert gu is None
    with pytest.raises(RuntimeError, match="does not require grad"):
        sp.autograd.grad((x * x).sum(), [leaf([1.0], requires_grad=False)])


def test_grad_of_several_outputs_with_grad_outputs() -> None:
    """grad([y1, y2], x, [g1, g2]) = J₁ᵀg₁ + J₂ᵀg₂ for y1 = x², y2 = eˣ."""
    x = leaf(RNG.normal(size=3))
    g1, g2 = RNG.normal(size=3), RNG.normal(size=3)
    (gx,) = sp.autograd.grad(
        [x * x, x.exp()], [x], [leaf(g1, requires_grad=False), leaf(g2, requires_grad=False)]
    )
    close(gx, 2 * x.data * g1 + np.exp(x.data) * g2)
    with pytest.raises(RuntimeError, match="grad_outputs"):
        sp.autograd.grad([x * x, x.exp()], [x], [leaf(g1, requires_grad=False)])


def test_grad_with_respect_to_a_non_leaf() -> None:
    """h = tanh(x), y = Σ h³: ∂y/∂h = 3h² (not through tanh), ∂y/∂x = 3h²(1 − h²)."""
    x = leaf(RNG.normal(size=3))
    h = x.tanh()
    y = (h * h * h).sum()
    gh, gx = sp.autograd.grad(y, [h, x])
    t = np.tanh(x.data)
    close(gh, 3 * t**2)
    close(gx, 3 * t**2 * (1 - t**2))
    assert x.grad is None


def test_grad_of_a_root_that_is_an_ancestor_of_another_root() -> None:
    """y = x², z = 3y: grad([z, y], x) = ∂(z + y)/∂x = 8x; y's seed waits for z's part."""
    x = leaf(RNG.normal(size=3))
    y = x * x
    z = y * 3.0
    ones = leaf(np.ones(3), requires_grad=False)
    (gx,) = sp.autograd.grad([z, y], [x], [ones, ones], retain_graph=True)
    close(gx, 8 * x.data)
    (gy,) = sp.autograd.grad([y, z], [y], [ones, ones], allow_unused=False)
    close(gy, np.full(3, 4.0))


def test_grad_of_an_input_that_is_also_the_output() -> None:
    x = leaf(RNG.normal(size=3))
    y = x * 2.0
    (gy,) = sp.autograd.grad(y, y, leaf(np.ones(3), requires_grad=False))
    close(gy, np.ones(3))


# -- create_graph: higher-order gradients --------------------------------------------------


def test_second_and_third_derivatives_of_x_cubed() -> None:
    x = leaf(RNG.normal(size=4))
    (g1,) = sp.autograd.grad((x * x * x).sum(), x, create_graph=True)
    close(g1, 3 * x.data**2)
    assert g1.requires_grad
    (g2,) = sp.autograd.grad(g1.sum(), x, create_graph=True)
    close(g2, 6 * x.data)
    (g3,) = sp.autograd.grad(g2.sum(), x)
    close(g3, np.full(4, 6.0))
    assert not g3.requires_grad


def test_second_derivative_of_tanh() -> None:
    """tanh' = 1 − t², tanh'' = −2t(1 − t²)."""
    x = leaf(RNG.normal(size=5))
    x.tanh().sum().backward(create_graph=True)
    t = np.tanh(x.data)
    close(x.grad, 1 - t**2)
    assert x.grad.requires_grad
    (g2,) = sp.autograd.grad(x.grad.sum(), x)
    close(g2, -2 * t * (1 - t**2))


def test_without_create_graph_gradients_are_constants() -> None:
    x = leaf(RNG.normal(size=3))
    (x * x * x).sum().backward()
    assert not x.grad.requires_grad and x.grad.grad_fn is None


def test_hessian_vector_product() -> None:
    """f(x) = (xᵀx)²: ∇f = 4(xᵀx)x, H = 4(xᵀx)I + 8xxᵀ, so Hv = 4(xᵀx)v + 8x(xᵀv)."""
    xv, v = RNG.normal(size=4), RNG.normal(size=4)
    x = leaf(xv)
    s = (x * x).sum()
    (g,) = sp.autograd.grad(s * s, x, create_graph=True)
    close(g, 4 * (xv @ xv) * xv)
    (hv,) = sp.autograd.grad(g, x, leaf(v, requires_grad=False))
    close(hv, 4 * (xv @ xv) * v + 8 * xv * (xv @ v))


def test_functional_hessian_of_a_quadratic_form_is_the_symmetric_part() -> None:
    """f(x) = ½ xᵀAx: H = (A + Aᵀ)/2 for any A, at any x."""
    a = RNG.normal(size=(4, 4))
    a_t = leaf(a, requires_grad=False)
    x = leaf(RNG.normal(size=4), requires_grad=False)

    def f(t):
        return 0.5 * (t * (a_t @ t)).sum()

    h = sp.autograd.functional.hessian(f, x)
    assert h.shape == (4, 4) and not h.requires_grad
    close(h, (a + a.T) / 2)
    assert x.grad is None and not x.requires_grad  # the caller's tensor is left alone


def test_functional_jacobian_vjp_and_jvp() -> None:
    """f(x) = tanh(Wx): J = diag(1 − t²)W with t = tanh(Wx); vjp = vᵀJ, jvp = Ju."""
    w = RNG.normal(size=(3, 4))
    xv, v, u = RNG.normal(size=4), RNG.normal(size=3), RNG.normal(size=4)
    w_t = leaf(w, requires_grad=False)

    def f(t):
        return (w_t @ t).tanh()

    t = np.tanh(w @ xv)
    jac = (1 - t**2)[:, None] * w
    fn = sp.autograd.functional
    j = fn.jacobian(f, leaf(xv, requires_grad=False))
    assert j.shape == (3, 4)
    close(j, jac)
    out, vj = fn.vjp(f, leaf(xv, requires_grad=False), leaf(v, requires_grad=False))
    close(out, t)
    close(vj, v @ jac)
    out, ju = fn.jvp(f, leaf(xv, requires_grad=False), leaf(u, requires_grad=False))
    close(out, t)
    close(ju, jac @ u)
    assert not (out.requires_grad or vj.requires_grad or ju.requires_grad)


def test_functional_with_two_inputs_and_create_graph() -> None:
    """f(x, y) = x·y (elementwise): ∂f/∂x = diag(y), ∂f/∂y = diag(x), so the jvp along
    (u, w) is y·u + x·w; with create_graph it stays differentiable: ∂Σ(y·u + x·w)/∂y = u."""
    xv, yv, u, w = (RNG.normal(size=3) for _ in range(4))
    fn = sp.autograd.functional
    jx, jy = fn.jacobian(lambda a, b: a * b, (leaf(xv), leaf(yv)))
    close(jx, np.diag(yv))
    close(jy, np.diag(xv))
    y = leaf(yv)
    out, ju = fn.jvp(
        lambda a, b: a * b,
        (leaf(xv), y),
        (leaf(u, requires_grad=False), leaf(w, requires_grad=False)),
        create_graph=True,
    )
    close(out, xv * yv)
    close(ju, yv * u + xv * w)
    (g,) = sp.autograd.grad(ju.sum(), y)
    close(g, u)


# -- re-entrancy: backward inside a local backward (activation checkpointing) -------------


class _Recompute(sp.Function):
    """f(x) = x·tanh(x), computed without a graph; backward recomputes it with grad mode
    on and differentiates the recomputation (what activation checkpointing does).
    f'(x) = tanh(x) + x(1 − tanh²(x))."""

    use_backward = False

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.data * np.tanh(x.data)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        with sp.enable_grad():
            inner = x.detach().requires_grad_()
            y = inner * inner.tanh()
            if _Recompute.use_backward:
                y.backward(grad_output)
                return inner.grad
            (g,) = sp.autograd.grad(y, inner, grad_output)
            return g


@pytest.mark.parametrize("use_backward", [False, True], ids=["autograd.grad", "backward"])
def test_a_local_backward_may_run_the_engine_again(use_backward: bool) -> None:
    """L = Σ f(x)·eˣ through the re-entrant node and an ordinary branch:
    ∂L/∂x = f'(x)eˣ + f(x)eˣ."""
    _Recompute.use_backward = use_backward
    xv = RNG.normal(size=4)
    x = leaf(xv)
    y = _Recompute.apply(x)
    (y * x.exp()).sum().backward()
    t = np.tanh(xv)
    f, df = xv * t, t + xv * (1 - t**2)
    close(x.grad, df * np.exp(xv) + f * np.exp(xv))
    assert sp.is_grad_enabled()

"""Chapter 5's activation checkpointing on the reference: ``checkpoint(fn, *args)`` gives the
plain run's output and gradients (inputs and the parameters used inside ``fn``), replays the
random numbers ``fn`` drew (Dropout) and leaves the global stream where the plain run leaves
it, keeps none of ``fn``'s intermediates after the forward (weak references, and NumPy's
allocations under tracemalloc: counts and bytes, never time), nests, and refuses what it
cannot do.
"""

from __future__ import annotations

import gc
import tracemalloc
import weakref

import numpy as np
import pytest

from solutions import ch05_nn as sp

nn = sp.nn
checkpoint = sp.utils.checkpoint.checkpoint
RNG = np.random.default_rng(11)


def mlp(depth: int, width: int, p: float = 0.0) -> nn.Sequential:
    sp.manual_seed(0)
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(width, width, dtype=sp.float64), nn.Tanh()]
        if p:
            layers.append(nn.Dropout(p))
    return nn.Sequential(*layers)


def grads(model, x) -> list[np.ndarray]:
    return [np.array(p.grad.data) for p in model.parameters()] + [np.array(x.grad.data)]


def run(model, x0: np.ndarray, segments: int, seed: int = 1):
    """Forward and backward of ``model`` on a fresh leaf, in ``segments`` checkpointed
    pieces (0: not checkpointed); returns (output, gradients, the next global draw)."""
    model.zero_grad()
    x = sp.tensor(x0, requires_grad=True)
    sp.manual_seed(seed)
    if segments == 0:
        out = model(x)
    else:
        blocks, size = list(model), len(model) // segments
        out = x
        for s in range(segments):
            out = checkpoint(nn.Sequential(*blocks[s * size : (s + 1) * size]), out)
    g = RNG.normal(size=out.shape)
    out.backward(sp.tensor(g))
    return np.array(out.data), grads(model, x), np.array(sp.randn(5).data), g


@pytest.mark.parametrize("segments", [1, 2, 4])
def test_gradients_equal_the_plain_runs(segments: int) -> None:
    model = mlp(4, 6)
    x0 = RNG.normal(size=(3, 6))
    state = RNG.bit_generator.state
    out, plain, _, _ = run(model, x0, 0)
    RNG.bit_generator.state = state  # the same upstream gradient g
    out_c, checked, _, _ = run(model, x0, segments)
    np.testing.assert_array_equal(out_c, out)
    for a, b in zip(plain, checked):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-15)


def test_dropout_is_replayed_and_the_global_stream_carries_on() -> None:
    """The recomputation draws the same masks; afterwards the global generator stands
    where the plain run leaves it (the replay takes nothing from the program's numbers)."""
    model = mlp(3, 8, p=0.5)
    x0 = RNG.normal(size=(4, 8))
    state = RNG.bit_generator.state
    out, plain, after, _ = run(model, x0, 0)
    RNG.bit_generator.state = state
    out_c, checked, after_c, _ = run(model, x0, 3)
    assert (out == 0).any()  # dropout did drop
    np.testing.assert_array_equal(out_c, out)
    for a, b in zip(plain, checked):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(after_c, after)


def test_without_preserve_rng_state_the_masks_differ() -> None:
    """The replay is what makes the masks agree: without it the recomputation draws new
    ones, and x's gradient no longer matches the output (PyTorch's preserve_rng_state)."""
    x = sp.tensor(np.ones((50, 50)), requires_grad=True)
    sp.manual_seed(2)
    out = checkpoint(lambda t: nn.functional.dropout(t, 0.5), x, preserve_rng_state=False)
    out.sum().backward()
    assert not np.array_equal(x.grad.data, out.data)
    x.grad = None
    sp.manual_seed(2)
    out = checkpoint(lambda t: nn.functional.dropout(t, 0.5), x)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.data, out.data)


def test_several_inputs_and_non_tensor_arguments() -> None:
    a = sp.tensor(RNG.normal(size=(3, 4)), requires_grad=True)
    b = sp.tensor(RNG.normal(size=(4, 2)), requires_grad=True)
    c = sp.tensor(RNG.normal(size=(3, 2)))  # no gradient wanted

    def fn(a, b, c, scale):
        return ((a @ b).tanh() * c * scale).exp()

    g = RNG.normal(size=(3, 2))
    fn(a, b, c, 0.5).backward(sp.tensor(g))
    ga, gb = np.array(a.grad.data), np.array(b.grad.data)
    a.grad = b.grad = None
    checkpoint(fn, a, b, c, 0.5).backward(sp.tensor(g))
    np.testing.assert_allclose(a.grad.data, ga, rtol=1e-12)
    np.testing.assert_allclose(b.grad.data, gb, rtol=1e-12)
    assert c.grad is None


def test_parameter_gradients_accumulate_as_in_the_plain_run() -> None:
    model = mlp(2, 5)
    x0 = RNG.normal(size=(2, 5))
    for segments in (0, 2):
        model.zero_grad()
        for _ in range(2):  # two backwards without zero_grad: .grad sums them
            x = sp.tensor(x0, requires_grad=True)
            out = model(x) if segments == 0 else checkpoint(model, x)
            out.sum().backward()
        if segments == 0:
            plain = [np.array(p.grad.data) for p in model.parameters()]
    for p, a in zip(model.parameters(), plain):
        np.testing.assert_allclose(p.grad.data, a, rtol=1e-12)


def test_a_nested_checkpoint() -> None:
    inner_layer, outer_layer = nn.Linear(4, 4, dtype=sp.float64), nn.Linear(4, 4, dtype=sp.float64)

    def inner(h):
        return inner_layer(h).tanh()

    def outer(h):
        return outer_layer(checkpoint(inner, h * 2.0)).sigmoid()

    x0 = RNG.normal(size=(3, 4))
    x = sp.tensor(x0, requires_grad=True)
    outer(x).sum().backward()  # plain: the inner checkpoint only
    expected = [np.array(t.grad.data) for t in (x, inner_layer.weight, outer_layer.weight)]
    x = sp.tensor(x0, requires_grad=True)
    inner_layer.zero_grad(), outer_layer.zero_grad()
    out = checkpoint(outer, x)
    out.sum().backward()
    for t, e in zip((x, inner_layer.weight, outer_layer.weight), expected):
        np.testing.assert_allclose(t.grad.data, e, rtol=1e-12)


def test_nothing_inside_fn_is_kept_after_the_forward() -> None:
    """Weak references to every intermediate Tensor and array fn makes: the plain forward
    keeps them (the graph holds them for backward), the checkpointed one keeps none."""
    model = mlp(6, 16)

    def alive_after_forward(use_checkpoint: bool) -> tuple[int, int]:
        watched = []

        def fn(h):
            for layer in model:
                h = layer(h)
                watched.append(weakref.ref(h))
                watched.append(weakref.ref(h.data))
            return h * 1.0  # the result is a fresh tensor: every watched one is inside

        x = sp.tensor(RNG.normal(size=(4, 16)), requires_grad=True)
        out = checkpoint(fn, x) if use_checkpoint else fn(x)
        gc.collect()
        alive = sum(r() is not None for r in watched)
        out.sum().backward()  # (and the backward still works)
        assert x.grad is not None
        return alive, len(watched)

    plain, total = alive_after_forward(False)
    checked, _ = alive_after_forward(True)
    assert total == 2 * 12
    assert plain >= 12  # at least every layer's output array, kept by the graph
    assert checked == 0


def test_the_forward_holds_less_memory() -> None:
    """NumPy's allocations still held after the forward (tracemalloc traces them): the plain
    run keeps every layer's activations, the checkpointed one about the output alone."""
    width, batch, depth = 128, 64, 8
    model = mlp(depth, width)
    activation = batch * width * 8  # bytes of one float64 activation

    def held(use_checkpoint: bool) -> int:
        x = sp.tensor(RNG.normal(size=(batch, width)), requires_grad=True)
        gc.collect()
        tracemalloc.start()
        try:
            base = tracemalloc.get_traced_memory()[0]
            out = checkpoint(model, x) if use_checkpoint else model(x)
            gc.collect()
            kept = tracemalloc.get_traced_memory()[0] - base
        finally:
            tracemalloc.stop()
        del out
        return kept

    plain, checked = held(False), held(True)
    assert plain > depth * activation  # at least one array per layer is kept
    assert checked < 3 * activation  # the output (and small change)
    assert checked < plain / 4


def test_errors_name_the_problem() -> None:
    x = sp.tensor(np.ones(3), requires_grad=True)
    with pytest.raises(TypeError, match="must return one Tensor, not tuple"):
        checkpoint(lambda t: (t, t), x)
    with pytest.raises(TypeError, match="must return one Tensor, not float"):
        checkpoint(lambda t: 1.0, x)
    with pytest.raises(TypeError, match="a function"):
        checkpoint(3, x)
    with pytest.raises(NotImplementedError, match="re-entrant"):
        checkpoint(lambda t: t * 2, x, use_reentrant=False)


def test_no_input_requiring_a_gradient_warns_as_pytorch_does() -> None:
    """The result cannot require a gradient, so parameters inside fn would get none."""
    lin = nn.Linear(3, 3)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        out = checkpoint(lin, sp.randn(2, 3))
    assert not out.requires_grad
    with sp.no_grad():
        checkpoint(lin, sp.randn(2, 3))  # no warning where no gradient is recorded anyway


def test_checkpoint_refuses_autograd_grad_and_double_backward() -> None:
    """A re-entrant checkpoint fills .grad from its inner backward: through autograd.grad
    that would be a side effect, and it has no double backward (PyTorch refuses both)."""
    layer = nn.Linear(3, 3)
    x = sp.randn(2, 3, requires_grad=True)
    out = sp.utils.checkpoint.checkpoint(layer, x).sum()
    with pytest.raises(RuntimeError, match=r"incompatible with autograd\.grad"):
        sp.autograd.grad(out, x)
    assert layer.weight.grad is None
    out = sp.utils.checkpoint.checkpoint(layer, x).sum()
    with pytest.raises(RuntimeError, match="no double backward"):
        out.backward(create_graph=True)

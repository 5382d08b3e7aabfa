"""autograd pieces against PyTorch (issue 27, wave 2): ``autograd.functional.hvp``/``vhp``,
``strict=`` on every functional, user-defined ``autograd.Function`` in PyTorch's form, and
``autograd.gradcheck``/``gradgradcheck``. Values and gradients to 1e-10 in float64; strict
mode raises exactly where PyTorch's does, with its message."""

from __future__ import annotations

import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from solutions import ch07_device as sp  # noqa: E402

F = sp.autograd.functional
TF = torch.autograd.functional


def _inputs(shapes, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s) for s in shapes]
    return arrays, [sp.tensor(a) for a in arrays], [torch.tensor(a) for a in arrays]


def _close(ours, theirs) -> None:
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, sp.Tensor)
        assert tuple(ours.shape) == tuple(theirs.shape)
        np.testing.assert_allclose(
            ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-10
        )
        return
    assert isinstance(ours, tuple) and len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        _close(a, b)


# functions written once, run with either framework's module (m: sp or torch)
FUNCTIONS = {
    "cubic": (lambda m: lambda x: (x**3).sum(), [(3,)]),
    "exp_quad": (lambda m: lambda x: (m.exp(x) * x).sum(), [(2, 2)]),
    "two_inputs": (lambda m: lambda x, y: (x * y**2 + m.sin(x)).sum(), [(3,), (3,)]),
    "matrix": (lambda m: lambda x, w: ((x @ w) ** 2).sum(), [(2, 3), (3, 2)]),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("which", ["hvp", "vhp"])
def test_hvp_vhp_values(name, which):
    make, shapes = FUNCTIONS[name]
    _, xs, txs = _inputs(shapes)
    _, vs, tvs = _inputs(shapes, seed=1)
    single = len(shapes) == 1
    ours = getattr(F, which)(
        make(sp), xs[0] if single else tuple(xs), vs[0] if single else tuple(vs)
    )
    theirs = getattr(TF, which)(
        make(torch), txs[0] if single else tuple(txs), tvs[0] if single else tuple(tvs)
    )
    _close(ours, theirs)
    assert ours[0].grad_fn is None and not ours[0].requires_grad


@pytest.mark.parametrize("which", ["hvp", "vhp"])
def test_hvp_vhp_create_graph_differentiates_to_the_third_derivative(which):
    arrays, _, _ = _inputs([(3,)])
    x, tx = sp.tensor(arrays[0], requires_grad=True), torch.tensor(arrays[0], requires_grad=True)
    v, tv = sp.tensor([1.0, -2.0, 0.5]), torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)
    _, ours = getattr(F, which)(lambda t: (t**4).sum(), x, v, create_graph=True)
    _, theirs = getattr(TF, which)(lambda t: (t**4).sum(), tx, tv, create_graph=True)
    assert ours.requires_grad and theirs.requires_grad
    _close(ours, theirs)
    (ours * sp.tensor([1.0, 2.0, 3.0])).sum().backward()
    (theirs * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum().backward()
    _close(x.grad, tx.grad)


def test_hvp_v_none_for_a_one_element_input():
    ours = F.hvp(lambda t: t**3, sp.tensor(1.5))
    theirs = TF.hvp(lambda t: t**3, torch.tensor(1.5, dtype=torch.float64))
    _close(ours, theirs)


# -- strict= -----------------------------------------------------------------------------------

STRICT_CASES = {  # name: (function of the module, input shapes)
    "independent_input": (lambda m: lambda x, y: (x**2).sum(), [(2, 2), (2, 2)]),
    "linear": (lambda m: lambda x, y: (2 * x + y).sum(), [(2,), (2,)]),
    "product": (lambda m: lambda x, y: (x * y).sum(), [(2,), (2,)]),
    "cubic_both": (lambda m: lambda x, y: (x**3 + y**3 + x * y).sum(), [(2,), (2,)]),
    "constant_output": (lambda m: lambda x, y: m.ones(()) * 1.0, [(2,), (2,)]),
}


def _outcome(call):
    try:
        result = call()
    except RuntimeError as error:
        return "error", str(error)
    return "ok", result


def _sizes_as_tuples(message: str) -> str:
    """PyTorch's ``torch.Size([2, 3])`` in a message is a shape tuple here: ``(2, 3)``."""
    return re.sub(
        r"torch\.Size\(\[([^\]]*)\]\)",
        lambda m: repr(tuple(int(n) for n in m.group(1).split(",") if n.strip())),
        message,
    )


def _both(our_call, their_call):
    ours, theirs = _outcome(our_call), _outcome(their_call)
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "error":
        assert ours[1] == _sizes_as_tuples(theirs[1])
    else:
        _close(ours[1], theirs[1])
    return ours[0]


@pytest.mark.parametrize("name", sorted(STRICT_CASES))
@pytest.mark.parametrize("which", ["hvp", "vhp", "vjp", "jvp", "hessian", "jacobian"])
@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("strict", [False, True])
def test_strict_as_pytorch(name, which, create_graph, strict):
    make, shapes = STRICT_CASES[name]
    _, xs, txs = _inputs(shapes)
    if which == "vjp":  # (every output here has one element)
        v, tv = sp.tensor(1.0, dtype=sp.float64), torch.tensor(1.0, dtype=torch.float64)
        args, targs = (v,), (tv,)
    elif which in ("jvp", "hvp", "vhp"):
        _, vs, tvs = _inputs(shapes, seed=1)
        args, targs = (tuple(vs),), (tuple(tvs),)
    else:
        args, targs = (), ()
    kw = {"create_graph": create_graph, "strict": strict}
    _both(
        lambda: getattr(F, which)(make(sp), tuple(xs), *args, **kw),
        lambda: getattr(TF, which)(make(torch), tuple(txs), *targs, **kw),
    )


def test_strict_raises_where_the_riemann_case_expects():
    """The case of Riemann's test_014 (an input the output ignores): strict raises, not
    strict gives zeros for it."""
    _, xs, _ = _inputs([(2, 2), (2, 2)])
    _, vs, _ = _inputs([(2, 2), (2, 2)], seed=1)
    for which in (F.hvp, F.vhp):
        _, (_, zero) = which(lambda x, y: (x**2).sum(), tuple(xs), tuple(vs))
        np.testing.assert_array_equal(zero.numpy(), np.zeros((2, 2)))
        with pytest.raises(RuntimeError, match="strict mode"):
            which(lambda x, y: (x**2).sum(), tuple(xs), tuple(vs), strict=True)


def _sum_times(m):
    return lambda x, y: (x.sum() * y).sum()


@pytest.mark.parametrize("which", ["jvp", "vjp", "hvp", "vhp"])
def test_v_of_the_wrong_size_or_count(which):
    _, xs, txs = _inputs([(2,), (3,)])
    for bad, tbad in (
        ((sp.ones(2),), (torch.ones(2, dtype=torch.float64),)),
        ((sp.ones(2), sp.ones(2)), (torch.ones(2, dtype=torch.float64),) * 2),
    ):
        if which == "vjp":
            bad, tbad = bad[0], tbad[0]
        outcome = _both(
            lambda bad=bad: getattr(F, which)(_sum_times(sp), tuple(xs), bad),
            lambda tbad=tbad: getattr(TF, which)(_sum_times(torch), tuple(txs), tbad),
        )
        assert outcome == "error"


# -- autograd.Function in PyTorch's form --------------------------------------------------------


def _functions(m):
    """The same user-defined functions, subclassing m.autograd.Function."""

    class MulFunction(m.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y

        @staticmethod
        def backward(ctx, grad_output):
            x, y = ctx.saved_tensors
            return grad_output * y, grad_output * x

    class Scale(m.autograd.Function):  # a number as a 0-d tensor (one gradient per input)
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(k)
            return x * k

        @staticmethod
        def backward(ctx, grad_output):
            (k,) = ctx.saved_tensors
            return grad_output * k, None

    class Identity(m.autograd.Function):  # forward returns its input
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad_output):
            return 2 * grad_output

    class Split(m.autograd.Function):  # the newer form: setup_context
        @staticmethod
        def forward(x, k):
            return m.exp(x) * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(output)

        @staticmethod
        def backward(ctx, grad_output):
            (out,) = ctx.saved_tensors
            return (grad_output * out, None) if m is torch else grad_output * out

    class Sign(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = (x > 0).to(x.dtype)
            ctx.mark_non_differentiable(out)
            return out

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * 0

    return MulFunction, Scale, Identity, Split, Sign


def test_user_defined_functions_as_pytorch():
    _, (x, y), (tx, ty) = _inputs([(2, 3), (2, 3)])
    for t in (x, y, tx, ty):
        t.requires_grad_()
    ours, theirs = _functions(sp), _functions(torch)
    results = []
    for m, (mul, scale, identity, split, sign), a, b in (
        (sp, ours, x, y),
        (torch, theirs, tx, ty),
    ):
        c = mul.apply(a, b)
        d = scale.apply(c, m.tensor(3.0, dtype=m.float64))
        e = identity.apply(a)
        f = split.apply(b, 0.5)
        g = sign.apply(a)
        assert e is not a and a.is_leaf and a.grad_fn is None
        assert not g.requires_grad and g.grad_fn is None
        assert type(c.grad_fn).__name__.startswith("MulFunctionBackward") or str(
            c.grad_fn
        ).startswith("<MulFunctionBackward")
        (d.sum() + (e * f).sum() + g.sum()).backward()
        results.append((d, e, f, g, a.grad, b.grad))
    for ours_value, their_value in zip(*results):
        _close(ours_value.detach(), their_value.detach())


def test_user_defined_function_twice_differentiable():
    (mul, *_), (tmul, *_) = _functions(sp), _functions(torch)
    _, (x, y), (tx, ty) = _inputs([(3,), (3,)])
    for t in (x, y, tx, ty):
        t.requires_grad_()
    (gx,) = sp.autograd.grad(mul.apply(x, y * y).sum(), x, create_graph=True)
    (tgx,) = torch.autograd.grad(tmul.apply(tx, ty * ty).sum(), tx, create_graph=True)
    _close(sp.autograd.grad(gx.sum(), y)[0], torch.autograd.grad(tgx.sum(), ty)[0])


# -- gradcheck, gradgradcheck -------------------------------------------------------------------


def _bad(m):
    class WrongSquare(m.autograd.Function):  # backward says 3x, the derivative is 2x
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 3 * x

    class WrongSecond(m.autograd.Function):  # right first derivative, a constant one
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 3 * x.detach() ** 2

    return WrongSquare, WrongSecond


CHECKED = {  # name: (function of the module, input shapes)
    "product": (lambda m: lambda x, y: x * y.sin(), [(3,), (3,)]),
    "two_outputs": (lambda m: lambda x, y: (x @ y, (x**2).sum()), [(2, 3), (3, 2)]),
    "user_mul": (lambda m: _functions(m)[0].apply, [(2, 2), (2, 2)]),
    "wrong_square": (lambda m: _bad(m)[0].apply, [(3,)]),
    "wrong_second": (lambda m: _bad(m)[1].apply, [(3,)]),
}


@pytest.mark.parametrize("name", sorted(CHECKED))
@pytest.mark.parametrize("which", ["gradcheck", "gradgradcheck"])
def test_gradcheck_agrees_with_pytorch(name, which):
    make, shapes = CHECKED[name]
    _, xs, txs = _inputs(shapes)
    xs = tuple(x.requires_grad_() for x in xs)
    txs = tuple(x.requires_grad_() for x in txs)
    ours = getattr(sp.autograd, which)(make(sp), xs, raise_exception=False)
    theirs = getattr(torch.autograd, which)(make(torch), txs, raise_exception=False)
    assert ours is theirs
    if not theirs:
        with pytest.raises(RuntimeError, match="Jacobian mismatch for output 0 with respect to"):
            getattr(sp.autograd, which)(make(sp), xs)

"""Chapter 4's exercises (course version 1.1): plausible student bugs in 4.7
``newton_step`` and 4.8 ``jit.trace``'s replay, each named in the report's first stage, and
unusual but correct rewrites (judged by tests/test_variants.py)."""

from __future__ import annotations

from functools import partial

from tests.trees import edits, rewrite
from tests.variants import VariantSet

edits = partial(edits, "ch04_backward")

RETURN = "    return _like(_host(x).reshape(n) - step, x)\n"
SOLVE = "    step = np.linalg.solve(H, _host(gradient).reshape(n))\n"
RANK_CHECK = """    rank = np.linalg.matrix_rank(H)
    if rank < n:
        raise RuntimeError(
            f"newton_step: the Hessian at x is singular (rank {rank} of {n}): H⁻¹∇f does not exist"
        )
"""
SCALAR_CHECK = """    value = f(x.detach())
    if value.numel() != 1:
        raise RuntimeError(
            f"newton_step needs a scalar f: f(x) has shape {tuple(value.shape)}, not one element"
        )
"""

NEWTON_BY_GRAD_AND_INVERSE = """
leaf = x.detach().requires_grad_()
value = f(leaf)
if value.numel() != 1:
    raise RuntimeError(f"f must return a scalar, not a tensor of shape {tuple(value.shape)}")
(gradient,) = grad(value, leaf)
n = x.numel()
H = _host(functional.hessian(f, x)).reshape(n, n)
if np.linalg.matrix_rank(H) != n:
    raise RuntimeError("the Hessian is singular: no Newton step")
inverse = np.linalg.inv(H)
return _like(_host(x).reshape(n) - inverse @ _host(gradient).reshape(n), x)
"""

NEWTON_BY_LSTSQ = """
first = f(x.detach())
if len(first.reshape(-1)) > 1:
    raise RuntimeError("newton_step: f is not a scalar function")
size = len(x.reshape(-1))
hess = _host(functional.hessian(f, x)).reshape(size, size)
if np.linalg.cond(hess) > 1e12:
    raise RuntimeError("newton_step: singular (or nearly singular) Hessian")
g = _host(functional.vjp(f, x)[1]).reshape(size)
s, *_ = np.linalg.lstsq(hess, g, rcond=None)
return _like((_host(x).reshape(size) - s).reshape(x.shape), x)
"""

LOOP = """    for op in traced.tape:
        args = [current(a) for a in op.args]
        kwargs = {k: current(v) for k, v in op.kwargs.items()}
        now[id(op.output)] = op.function.apply(*args, **kwargs)
"""
SHAPE_CHECK = """    if received != expected:
        raise RuntimeError(
            f"this trace was recorded for inputs of shapes {expected}, and received {received}"
        )
"""
CURRENT = """        return now.get(id(value), value) if isinstance(value, Tensor) else value
"""

REPLAY_WITH_TENSOR_KEYS = """
if len(inputs) != len(traced.inputs) or any(
    tuple(a.shape) != tuple(b.shape) for a, b in zip(inputs, traced.inputs)
):
    raise RuntimeError(
        f"traced for shapes {[tuple(t.shape) for t in traced.inputs]}, "
        f"called with shapes {[tuple(t.shape) for t in inputs]}"
    )
standing = dict(zip(traced.inputs, inputs))  # Tensors hash by identity
for op in traced.tape:
    args = [standing.get(a, a) if isinstance(a, Tensor) else a for a in op.args]
    kwargs = {k: standing.get(v, v) if isinstance(v, Tensor) else v for k, v in op.kwargs.items()}
    standing[op.output] = op.function.apply(*args, **kwargs)
out = traced.output
return standing.get(out, out) if isinstance(out, Tensor) else tuple(standing.get(t, t) for t in out)
"""

REPLAY_WITH_PAIRS = """
if len(inputs) != len(traced.inputs):
    raise RuntimeError(f"expected {len(traced.inputs)} inputs of shapes "
                       f"{[tuple(t.shape) for t in traced.inputs]}, got {len(inputs)}")
for old, new in zip(traced.inputs, inputs):
    if tuple(old.shape) != tuple(new.shape):
        raise RuntimeError(f"shape {tuple(new.shape)} where the trace saw {tuple(old.shape)}")
pairs = list(zip(traced.inputs, inputs))

def lookup(value):
    for old, new in pairs:
        if old is value:
            return new
    return value

for op in traced.tape:
    out = op.function.apply(*map(lookup, op.args), **{k: lookup(v) for k, v in op.kwargs.items()})
    pairs.append((op.output, out))
if isinstance(traced.output, Tensor):
    return lookup(traced.output)
return tuple(lookup(t) for t in traced.output)
"""

BROKEN = [
    # 4.7 newton_step
    (
        "Newton step uphill",
        "newton.py",
        edits("newton.py", (RETURN, RETURN.replace(" - step", " + step"))),
        "4.7",
    ),
    (
        "a gradient step: the Hessian unused",
        "newton.py",
        edits("newton.py", (SOLVE, "    step = _host(gradient).reshape(n)\n")),
        "4.7",
    ),
    (
        "the gradient multiplied by the Hessian",
        "newton.py",
        edits("newton.py", (SOLVE, "    step = H @ _host(gradient).reshape(n)\n")),
        "4.7",
    ),
    (
        "the gradient divided by the Hessian's diagonal",
        "newton.py",
        edits("newton.py", (SOLVE, "    step = _host(gradient).reshape(n) / np.diag(H)\n")),
        "4.7",
    ),
    (
        "a pseudo-inverse: a singular Hessian not refused",
        "newton.py",
        edits(
            "newton.py",
            (RANK_CHECK, ""),
            (SOLVE, "    step = np.linalg.pinv(H) @ _host(gradient).reshape(n)\n"),
        ),
        "4.7",
    ),
    (
        "NumPy's solve left to judge a singular Hessian",
        "newton.py",
        edits("newton.py", (RANK_CHECK, "")),
        "4.7",
    ),
    (
        "no scalar check: vjp's message reaches the caller",
        "newton.py",
        edits("newton.py", (SCALAR_CHECK, "")),
        "4.7",
    ),
    (
        "x itself updated and returned",
        "newton.py",
        edits(
            "newton.py",
            (
                RETURN,
                "    x.data[...] = (_host(x).reshape(n) - step).reshape(x.shape)\n    return x\n",
            ),
        ),
        "4.7",
    ),
    # 4.8 replay
    (
        "replayed on the recorded tensors",
        "jit.py",
        edits(
            "jit.py",
            ("        args = [current(a) for a in op.args]\n", "        args = list(op.args)\n"),
        ),
        "4.8",
    ),
    (
        "earlier results not mapped to their replays",
        "jit.py",
        edits(
            "jit.py",
            (
                "        now[id(op.output)] = op.function.apply(*args, **kwargs)\n",
                "        op.function.apply(*args, **kwargs)\n",
            ),
        ),
        "4.8",
    ),
    (
        "fn called again",
        "jit.py",
        edits("jit.py", (LOOP, "    return traced.fn(*inputs)\n" + LOOP)),
        "4.8",
    ),
    (
        "the non-Tensor arguments dropped",
        "jit.py",
        edits(
            "jit.py",
            (
                "        args = [current(a) for a in op.args]\n",
                "        args = [current(a) for a in op.args if isinstance(a, Tensor)]\n",
            ),
        ),
        "4.8",
    ),
    (
        "replayed under no_grad",
        "jit.py",
        edits(
            "jit.py",
            (
                "from ..ch02_tensor.tensor import Tensor\n",
                "from ..ch02_tensor.tensor import Tensor\nfrom .grad_mode import no_grad\n",
            ),
            (
                LOOP,
                "    with no_grad():  # a static graph: no recording\n"
                + "".join("    " + line + "\n" for line in LOOP.splitlines()),
            ),
        ),
        "4.8",
    ),
    (
        "no shape check",
        "jit.py",
        edits("jit.py", (SHAPE_CHECK, "")),
        "4.8",
    ),
    (
        "inputs looked up with in",
        "jit.py",
        edits(
            "jit.py",
            (
                CURRENT,
                "        if isinstance(value, Tensor) and value in traced.inputs:\n"
                "            return inputs[traced.inputs.index(value)]\n" + CURRENT,
            ),
        ),
        "4.8",
    ),
]

CORRECT = [
    (
        "Newton by autograd.grad and the inverse matrix",
        "newton.py",
        rewrite(
            "ch04_backward",
            "newton.py",
            "4.7",
            NEWTON_BY_GRAD_AND_INVERSE,
            pairs=[
                ("from . import functional\n", "from . import functional\nfrom .api import grad\n")
            ],
        ),
        "4.7",
    ),
    (
        "Newton by least squares after a condition check",
        "newton.py",
        ("region", NEWTON_BY_LSTSQ),
        "4.7",
    ),
    (
        "replay keyed by the tensors themselves",
        "jit.py",
        ("region", REPLAY_WITH_TENSOR_KEYS),
        "4.8",
    ),
    (
        "replay through a list of pairs found by identity",
        "jit.py",
        ("region", REPLAY_WITH_PAIRS),
        "4.8",
    ),
]

SET = VariantSet(
    4,
    "exercises",
    BROKEN,
    CORRECT,
    says=[
        ("Newton step uphill", "your step went uphill"),
        ("a gradient step: the Hessian unused", "this is a gradient step, x − ∇f"),
        ("the gradient multiplied by the Hessian", "the Hessian multiplied the gradient"),
        (
            "the gradient divided by the Hessian's diagonal",
            "divided by the Hessian's diagonal: the curvature off the diagonal",
        ),
        (
            "a pseudo-inverse: a singular Hessian not refused",
            "the Hessian at x is singular (its rank is below x's number of elements), and "
            "newton_step returned",
        ),
        (
            "NumPy's solve left to judge a singular Hessian",
            "The contract asks for a RuntimeError",
        ),
        ("no scalar check: vjp's message reaches the caller", "its message must say 'scalar'"),
        ("x itself updated and returned", "newton_step changed x"),
        ("replayed on the recorded tensors", "the replay gave back what the trace computed"),
        (
            "earlier results not mapped to their replays",
            "the replay gave back what the trace computed",
        ),
        ("fn called again", "a replay runs the recorded operations, never fn itself"),
        ("the non-Tensor arguments dropped", "the non-Tensor arguments (a dim, a shape, a dtype)"),
        ("replayed under no_grad", "the replayed operations were not recorded"),
        ("no shape check", "instead of raising a RuntimeError that names both"),
        ("inputs looked up with in", "== on a Tensor is elementwise"),
    ],
    least=(15, 4),
    tasks=["4.7", "4.8"],
)

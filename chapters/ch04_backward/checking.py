"""``autograd.gradcheck`` and ``autograd.gradgradcheck``: a backward checked against finite
differences (given code, PyTorch's ``torch.autograd.gradcheck``).

For ``y = func(*inputs)``, each input x that requires grad and each output y:

    numerical   J[k, e] = (y_k(x + eps·e) − y_k(x − eps·e)) / 2eps   (central differences)
    analytical  J[k, :] = grad(y_k, x)                               (the engine, one row per k)

and ``|analytical − numerical| <= atol + rtol·|numerical|`` everywhere, else a
``GradcheckError`` (a RuntimeError) naming the output and input, or ``False`` with
``raise_exception=False``. Use float64 inputs: in float32 the differences are too coarse
(PyTorch warns, so does this). ``gradgradcheck`` checks the backward's own backward: it runs
``gradcheck`` on ``(inputs, v) ↦ grad(func(inputs), inputs, v, create_graph=True)``.

Only PyTorch's slow mode is done: ``fast_mode=True`` runs the same full comparison (a stricter
test than PyTorch's random projection). The other checks of PyTorch's (batched gradients,
forward mode, undefined gradients, reentrancy) are not made; their flags are accepted.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..ch02_tensor.tensor import Tensor
from .api import grad
from .grad_mode import enable_grad


class GradcheckError(RuntimeError):
    """A gradient differs from its finite-difference estimate (PyTorch's name)."""


def _as_tuple(value: Any) -> tuple:
    return (value,) if isinstance(value, Tensor) else tuple(value)


def _is_float(t: Tensor) -> bool:
    return np.dtype(t.data.dtype).kind == "f"


def _host(t: Tensor) -> np.ndarray:
    """A tensor's values as a float64 NumPy array (from any device)."""
    data = t.detach().cpu().data if t.device.type != "cpu" else t.detach().data
    return np.asarray(data, dtype=np.float64)


def _with_element(x: Tensor, index: int, value: float) -> Tensor:
    """A copy of ``x`` (same dtype, device and requires_grad, a leaf) with one element
    replaced."""
    host = np.array(x.detach().cpu().data if x.device.type != "cpu" else x.detach().data)
    host.reshape(-1)[index] = value
    copy = Tensor(host)
    copy = copy.to(x.device) if x.device.type != "cpu" else copy
    return copy.requires_grad_() if x.requires_grad else copy


def _outputs(func: Callable, args: tuple) -> tuple:
    return _as_tuple(func(*args))


def _numerical(func: Callable, args: tuple, positions: list, eps: float) -> list:
    """J[i][j]: output i by input positions[j], as (output size, input size) arrays. Grad
    mode stays as it is (gradgradcheck's function differentiates inside)."""
    outs = _outputs(func, args)
    blocks = [[np.zeros((o.numel(), args[p].numel())) for p in positions] for o in outs]
    for j, p in enumerate(positions):
        x = args[p]
        flat = _host(x).reshape(-1)
        for e in range(flat.shape[0]):
            values = []
            for step in (eps, -eps):
                changed = list(args)
                changed[p] = _with_element(x, e, flat[e] + step)
                values.append([_host(o).reshape(-1) for o in _outputs(func, tuple(changed))])
            for i in range(len(outs)):
                blocks[i][j][:, e] = (values[0][i] - values[1][i]) / (2 * eps)
    return blocks


def _analytical(func: Callable, args: tuple, positions: list) -> list:
    inputs = tuple(args[p] for p in positions)
    with enable_grad():
        outs = _outputs(func, args)
        blocks = []
        for out in outs:
            rows = [np.zeros((out.numel(), x.numel())) for x in inputs]
            if out.requires_grad:
                flat = out.reshape(-1)
                for k in range(flat.shape[0]):
                    found = grad(flat[k], inputs, retain_graph=True, allow_unused=True)
                    for j, g in enumerate(found):
                        if g is not None:
                            rows[j][k] = _host(g).reshape(-1)
            blocks.append(rows)
    return blocks


def gradcheck(
    func: Callable,
    inputs: Any,
    *,
    eps: float = 1e-06,
    atol: float = 1e-05,
    rtol: float = 0.001,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """True when the analytical gradients of ``func`` at ``inputs`` match finite
    differences; otherwise a ``GradcheckError`` (or False with ``raise_exception=False``)."""
    args = _as_tuple(inputs)
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
    if not positions:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of "
            "the them have requires_grad=True."
        )
    for i in positions:
        if args[i].data.dtype != np.float64:
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point "
                "or complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ",
                UserWarning,
                stacklevel=2,
            )
    if not check_backward_ad:
        return True
    numerical = _numerical(func, args, positions, eps)
    analytical = _analytical(func, args, positions)
    for i, (num_blocks, ana_blocks) in enumerate(zip(numerical, analytical)):
        for j, (n, a) in enumerate(zip(num_blocks, ana_blocks)):
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian mismatch for output {i} with respect to input {positions[j]},\n"
                    f"numerical:{n.T}\nanalytical:{a.T}\n"
                )
    return True


def gradgradcheck(
    func: Callable,
    inputs: Any,
    grad_outputs: Any = None,
    *,
    eps: float = 1e-06,
    atol: float = 1e-05,
    rtol: float = 0.001,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """``gradcheck`` of the backward: of ``(inputs, v) ↦ grad(func(inputs), inputs, v,
    create_graph=True)``; ``grad_outputs`` (v) are random (normal, requiring grad) unless
    given."""
    args = _as_tuple(inputs)
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
    if grad_outputs is None:
        with enable_grad():
            outs = _outputs(func, args)
        rng = np.random.default_rng(0)
        vs: tuple = tuple(
            _like(o, rng.standard_normal(tuple(o.shape))).requires_grad_()
            for o in outs
            if o.requires_grad and _is_float(o)
        )
    else:
        vs = _as_tuple(grad_outputs)
    count = len(args)

    def backward_of(*both: Any) -> tuple:
        ins, ws = both[:count], both[count:]
        outs = tuple(o for o in _outputs(func, ins) if o.requires_grad and _is_float(o))
        found = grad(
            outs, tuple(ins[p] for p in positions), ws, create_graph=True, allow_unused=True
        )
        return tuple(g for g in found if g is not None)

    return gradcheck(
        backward_of,
        args + vs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        fast_mode=fast_mode,
    )


def _like(t: Tensor, values: np.ndarray) -> Tensor:
    """``values`` as a tensor of ``t``'s dtype on ``t``'s device."""
    made = Tensor(values).to(t.dtype)
    return made.to(t.device) if t.device.type != "cpu" else made

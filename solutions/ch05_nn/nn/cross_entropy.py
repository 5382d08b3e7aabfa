"""``cross_entropy``: log_softmax and the negative log-likelihood as one operation. Task 5.7.

For one row of logits z (C classes) and its class t, with p = softmax(z) and label smoothing
ε (the target distribution q puts 1 − ε on t and spreads ε evenly: q_c = (1 − ε)[c = t] + ε/C):

    loss = − Σ_c q_c log p_c = (1 − ε)(− log p_t) + ε · mean_c(− log p_c)
    ∂loss/∂z_c = p_c − q_c

Rows whose target is ``ignore_index`` contribute nothing, and the mean (``reduction="mean"``)
divides by the number of rows that count, not by N. ``log p`` comes from the max-shifted
log-sum-exp (task 5.6's idea), so logits of ±1e4 give finite losses and gradients.

The given ``cross_entropy`` checks the arguments and brings any layout PyTorch accepts
((C,), (N, C), (N, C, d1, …) with the classes on axis 1) to rows of shape (M, C) and targets
of shape (M,), which is all ``CrossEntropy`` sees.

Also given: ``nll_loss``, the second half on its own (its input is already log p: a model
that ends in ``LogSoftmax``), and class weights w (``weight=``, one per class) for both. A
row of class t counts w_t times, and the mean divides by the total weight of the rows that
count, Σ w_t, not by their number (PyTorch's definition)::

    nll     loss_n = −w_{t_n} · x[n, t_n]            ∂loss_n/∂x[n, c] = −w_{t_n} [c = t_n]
    mean    Σ_n loss_n / Σ_n w_{t_n}                  (rows whose target is ignore_index skipped)

``cross_entropy(weight=w)`` is ``nll_loss(log_softmax(z), t, w)`` and, with smoothing ε,
PyTorch's mix (1 − ε) · nll + ε/C · Σ_c w_c (−log p_c), the second term reduced the same way.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ch02_tensor.backend import array_module
from ...ch02_tensor.function import Context, Function
from ...ch02_tensor.indexing import ScatterAdd
from ...ch02_tensor.tensor import Tensor
from .softmax import _softmax_of, log_softmax

REDUCTIONS = ("mean", "sum", "none")


class CrossEntropy(Function):
    """loss of logits ``z`` (M, C) for class indices ``target`` (an int array (M,)). Forward
    leaves what ``_softmax_of(ctx)`` reads (z saved, ``ctx.dim = 1``, ``ctx.out`` = softmax
    as an array) and whatever else its backward needs. The loss and the gradient have z's
    dtype."""

    @staticmethod
    def forward(
        ctx: Context,
        z: Tensor,
        target: Any,
        ignore_index: int,
        label_smoothing: float,
        reduction: str,
    ) -> Any:
        ### BEGIN SOLUTION 5.7
        xp = array_module(z.data)
        shifted = z.data - z.data.max(axis=1, keepdims=True)
        log_p = shifted - xp.log(xp.exp(shifted).sum(axis=1, keepdims=True))
        keep = target != ignore_index
        t = xp.where(keep, target, 0)
        loss = -log_p[xp.arange(len(t)), t]
        if label_smoothing:
            loss = (1 - label_smoothing) * loss - label_smoothing * log_p.mean(axis=1)
        loss = xp.where(keep, loss, 0)
        count = int(keep.sum())
        ctx.save_for_backward(z)
        ctx.dim, ctx.out = 1, xp.exp(log_p)
        ctx.t, ctx.keep, ctx.count = t, keep, count
        ctx.smoothing, ctx.reduction = label_smoothing, reduction
        if reduction == "none":
            return loss.astype(z.dtype)
        total = loss.sum()
        if reduction == "mean":
            total = total / count if count else xp.nan  # PyTorch: nan when all are ignored
        return xp.asarray(total, dtype=z.dtype)
        ### END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple:
        ### BEGIN SOLUTION 5.7
        p = _softmax_of(ctx)
        xp = array_module(ctx.out)
        rows, classes = ctx.out.shape
        q = xp.zeros((rows, classes), dtype=ctx.out.dtype)
        q[xp.arange(rows), ctx.t] = 1 - ctx.smoothing
        q += ctx.smoothing / classes
        weight = ctx.keep.astype(ctx.out.dtype)
        if ctx.reduction == "mean":
            weight = weight / max(ctx.count, 1)
        if ctx.reduction == "none":
            g = grad_output.reshape(rows, 1)
        else:
            g = grad_output
        w = Tensor._from_array(weight.reshape(rows, 1))
        return (p - Tensor._from_array(q)) * w * g
        ### END SOLUTION


class NLL(Function):
    """The weighted negative log-likelihood of rows ``x`` (M, C) of log-probabilities for
    class indices ``target`` (M,), ``weight`` an array (C,) or None (every w_c = 1):
    loss_n = −w_{t_n} x[n, t_n], 0 where ``target`` is ``ignore_index``; the mean divides by
    Σ w_{t_n} over the rows that count (nan when that is 0, with a gradient of 0 for the
    ignored rows, as PyTorch's)."""

    @staticmethod
    def forward(
        ctx: Context, x: Tensor, target: Any, ignore_index: int, weight: Any, reduction: str
    ) -> Any:
        xp = array_module(x.data)
        keep = target != ignore_index
        t = xp.where(keep, target, 0)
        w = xp.ones(x.shape[1], x.dtype) if weight is None else weight
        wt = xp.where(keep, w[t], 0).astype(x.dtype)
        with np.errstate(invalid="ignore"):  # an ignored row's −inf times 0
            loss = xp.where(keep, -x.data[xp.arange(len(t)), t] * wt, 0)
        ctx.t, ctx.keep, ctx.wt, ctx.reduction, ctx.shape = t, keep, wt, reduction, x.shape
        if reduction == "none":
            return loss
        total = loss.sum()
        if reduction == "mean":
            ctx.total_weight = wt.sum()
            with np.errstate(divide="ignore", invalid="ignore"):
                total = total / ctx.total_weight
        return xp.asarray(total, dtype=x.dtype)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple:
        xp = array_module(ctx.wt)
        rows = ctx.shape[0]
        scale = -ctx.wt
        if ctx.reduction == "mean":
            with np.errstate(divide="ignore", invalid="ignore"):
                scale = xp.where(ctx.keep, scale / ctx.total_weight, 0)
        picked = xp.zeros(ctx.shape, dtype=ctx.wt.dtype)
        picked[xp.arange(rows), ctx.t] = scale
        g = grad_output.reshape(rows, 1) if ctx.reduction == "none" else grad_output
        return Tensor._from_array(picked) * g


def _class_rows(input: Tensor, target: Any, name: str, what: str) -> tuple:
    """``input`` (C,), (N, C) or (N, C, d1, …) with the classes on axis 1, and ``target``'s
    class indices, as rows (M, C) and targets (M,) (checked: integers, the matching shape),
    with the shape a ``"none"`` reduction gives back and the number of classes."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}'s input is a Tensor of {what}, not {type(input).__name__}")
    t = target.data if isinstance(target, Tensor) else np.asarray(target)
    if input.dtype.kind != "f":
        raise TypeError(f"{name} takes floating {what}, not {input.dtype}")
    if t.dtype.kind not in "iu":
        kind = "probabilities" if t.shape == input.shape else f"{t.dtype} values"
        raise TypeError(
            f"{name}'s target is class indices (an integer tensor, e.g. int64), not "
            f"{kind}; class probabilities as targets are not in the course"
        )
    if input.ndim == 0:
        raise ValueError(f"{name} needs {what} with a class axis, not a 0-d tensor")
    expected = (input.shape[0], *input.shape[2:]) if input.ndim > 1 else ()
    if t.shape != expected:
        raise ValueError(
            f"{name}: {what} of shape {input.shape} (classes on axis "
            f"{0 if input.ndim == 1 else 1}) need a target of shape {expected}, got {t.shape}"
        )
    if input.ndim == 1:  # one example: (C,) and ()
        rows, t_rows, kept = input.reshape(1, input.shape[0]), t.reshape(1), ()
    elif input.ndim == 2:  # rows already: no reshape to record
        rows, t_rows, kept = input, t, t.shape
    else:  # (N, C, d1, …): the classes to the last axis, then one row per position
        classes_last = (0, *range(2, input.ndim), 1)
        rows = input.permute(*classes_last).reshape(-1, input.shape[1])
        t_rows, kept = t.reshape(-1), t.shape
    return rows, t_rows, kept, rows.shape[1]


def _check_targets(t_rows: Any, classes: int, ignore_index: int) -> None:
    bad = (t_rows != ignore_index) & ((t_rows < 0) | (t_rows >= classes))
    if bad.any():
        raise IndexError(
            f"Target {int(t_rows[bad][0])} is out of bounds: the classes are 0 … {classes - 1}"
            f" (ignore_index={ignore_index})"
        )


def _class_weight(weight: Any, input: Tensor, classes: int, name: str) -> Any:
    """``weight`` (a Tensor of C numbers of ``input``'s dtype, or None) as an array, or None;
    PyTorch's errors otherwise (and no gradient for it: PyTorch has none)."""
    if weight is None:
        return None
    if not isinstance(weight, Tensor):
        raise TypeError(f"{name}(): argument 'weight' must be Tensor, not {type(weight).__name__}")
    if weight.shape != (classes,):
        raise RuntimeError(
            f"weight tensor should be defined either for all {classes} classes or no classes "
            f"but got weight tensor of shape: {list(weight.shape)}"
        )
    if weight.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype} but found {weight.dtype}")
    _no_grad_for(weight, "weight", name)
    return weight.data


def _no_grad_for(tensor: Any, argument: str, name: str) -> None:
    if isinstance(tensor, Tensor) and tensor.requires_grad:
        raise RuntimeError(
            f"The function '{name}' is not differentiable with respect to argument "
            f"'{argument}'. This input cannot have requires_grad True."
        )


def _shaped(loss: Tensor, reduction: str, kept: tuple) -> Tensor:
    if reduction == "none":
        return loss.reshape(*kept) if kept else loss.reshape(())
    return loss


def nll_loss(
    input: Tensor,
    target: Any,
    weight: Tensor | None = None,
    ignore_index: int = -100,
    reduction: str = "mean",
) -> Tensor:
    """The negative log-likelihood of log-probabilities ``input`` (a ``log_softmax``'s output)
    for class indices ``target``, the layouts of ``cross_entropy``; ``weight`` one per class."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction!r} is not a valid value for reduction {REDUCTIONS}")
    rows, t_rows, kept, classes = _class_rows(input, target, "nll_loss", "log-probabilities")
    w = _class_weight(weight, input, classes, "nll_loss")
    _check_targets(t_rows, classes, ignore_index)
    return _shaped(NLL.apply(rows, t_rows, ignore_index, w, reduction), reduction, kept)


def cross_entropy(
    input: Tensor,
    target: Any,
    weight: Any = None,
    ignore_index: int = -100,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """Cross-entropy of logits ``input`` against class indices ``target``: shapes (C,) and
    (), (N, C) and (N,), or (N, C, d1, …) and (N, d1, …); ``weight`` one per class (given:
    through ``nll_loss``, not the task's ``CrossEntropy``)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"cross_entropy's input is a Tensor of logits, not {type(input).__name__}")
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction!r} is not a valid value for reduction {REDUCTIONS}")
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0, got {label_smoothing}")
    rows, t_rows, kept, classes = _class_rows(input, target, "cross_entropy", "logits")
    w = _class_weight(weight, input, classes, "cross_entropy")
    _check_targets(t_rows, classes, ignore_index)
    if w is None:
        loss = CrossEntropy.apply(rows, t_rows, ignore_index, float(label_smoothing), reduction)
        return _shaped(loss, reduction, kept)
    log_p = log_softmax(rows, dim=1)
    loss = NLL.apply(log_p, t_rows, ignore_index, w, reduction)
    if label_smoothing:
        loss = (1 - label_smoothing) * loss + (label_smoothing / classes) * _smoothing(
            log_p, t_rows, ignore_index, weight, reduction
        )
    return _shaped(loss, reduction, kept)


def _smoothing(log_p: Tensor, t: Any, ignore_index: int, weight: Tensor, reduction: str) -> Tensor:
    """Σ_c w_c (−log p_c) per row that counts (0 for the others), reduced as the nll term: the
    mean divides by the same Σ_n w_{t_n} (PyTorch's weighted label smoothing)."""
    xp = array_module(log_p.data)
    keep = t != ignore_index
    kept_rows = xp.nonzero(keep)[0]
    per_row = -(log_p[kept_rows] * weight).sum(dim=1)  # the rows that count
    if reduction == "none":  # 0 put in for an ignored row (masking by ·0 gives nan at −inf)
        return ScatterAdd.apply(per_row, (len(t),), kept_rows)
    total = per_row.sum()
    if reduction == "sum":
        return total
    total_weight = float(weight.data[t[kept_rows]].sum())
    if total_weight == 0:  # PyTorch: nan (0/0, or ±inf/0 beside a nan nll term)
        return total * float("nan") if len(kept_rows) else total + float("nan")
    return total / total_weight

"""L-BFGS (given code): a quasi-Newton method, PyTorch's ``optim.LBFGS`` line for line.

Every other optimizer of this chapter takes one step per ``step()``, from the gradient that
``backward`` left. L-BFGS runs up to ``max_iter`` iterations inside one ``step(closure)``,
each of which may evaluate the loss several times, so it asks for a *closure*: a function
that zeroes the gradients, recomputes the loss, calls ``backward`` and returns the loss::

    def closure():
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        return loss

    optimizer.step(closure)

All parameters are seen as one flat vector x with gradient g. Newton's step is −H⁻¹g; BFGS
builds an approximation of H⁻¹ from the last steps sₖ = xₖ₊₁ − xₖ and the changes of the
gradient yₖ = gₖ₊₁ − gₖ (a pair is kept only when yₖ·sₖ > 1e-10, the curvature condition).
*Limited-memory* BFGS keeps only the last ``history_size`` pairs and never forms a matrix:
the two-loop recursion computes d = −H⁻¹g from them directly::

    q = −g
    for k from newest to oldest:  αₖ = ρₖ sₖ·q,  q ← q − αₖ yₖ         ρₖ = 1 / (yₖ·sₖ)
    r = γ q                                                             γ = (y·s) / (y·y), newest
    for k from oldest to newest:  βₖ = ρₖ yₖ·r,  r ← r + (αₖ − βₖ) sₖ
    d = r

Then x ← x + t d, with t = ``lr`` (the first iteration: min(1, 1/Σ|g|) · lr), or with
``line_search_fn="strong_wolfe"`` the t that a bracketing and zooming search finds (cubic
interpolation, Wolfe's conditions with c₁ = 1e-4, c₂ = 0.9). An iteration stops early when
max |g| ≤ ``tolerance_grad``, when the step or the change of the loss is below
``tolerance_change``, or when ``max_eval`` evaluations (default ``max_iter · 5 // 4``) are
spent. The state (PyTorch's names, on the first parameter): ``func_evals``, ``n_iter``,
``d``, ``t``, ``old_dirs`` (the yₖ), ``old_stps`` (the sₖ), ``ro``, ``H_diag``,
``prev_flat_grad``, ``prev_loss``, ``al``. The arithmetic is on arrays (any device), in the
parameters' dtype, in PyTorch's order, so float64 trajectories agree with PyTorch's to
rounding.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ...ch02_tensor.backend import array_module
from ...ch02_tensor.tensor import Tensor
from ...ch02_tensor.version import bump
from .optimizer import Optimizer


class LBFGS(Optimizer):
    """``LBFGS(params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
    tolerance_change=1e-9, history_size=100, line_search_fn=None)``: one parameter group
    only; ``step(closure)`` requires the closure."""

    def __init__(
        self,
        params: Any,
        lr: float = 1,
        max_iter: int = 20,
        max_eval: int | None = None,
        tolerance_grad: float = 1e-7,
        tolerance_change: float = 1e-9,
        history_size: int = 100,
        line_search_fn: str | None = None,
    ) -> None:
        if isinstance(lr, Tensor):
            if lr.numel() != 1:
                raise ValueError("Tensor lr must be 1-element")
            lr = lr.item()
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(
            lr=lr,
            max_iter=max_iter,
            max_eval=max_eval,
            tolerance_grad=tolerance_grad,
            tolerance_change=tolerance_change,
            history_size=history_size,
            line_search_fn=line_search_fn,
        )
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    # -- the parameters as one flat vector (arrays) ----------------------------------------

    def _gather_flat_grad(self) -> Any:
        xp = array_module(self._params[0].data)
        views = [
            xp.zeros(p.data.size, p.data.dtype) if p.grad is None else p.grad.data.reshape(-1)
            for p in self._params
        ]
        return xp.concatenate(views, 0)

    def _add_grad(self, step_size: Any, update: Any) -> None:
        """x ← x + step_size · update, parameter by parameter, in place."""
        offset = 0
        for p in self._params:
            n = p.data.size
            p.data += step_size * update[offset : offset + n].reshape(p.data.shape)
            bump(p)  # an in-place change, as the optimizers' ``_with_grad`` counts them
            offset += n

    def _clone_param(self) -> list:
        return [p.data.copy() for p in self._params]

    def _set_param(self, params_data: list) -> None:
        for p, data in zip(self._params, params_data):
            p.data[...] = data
            bump(p)

    def _directional_evaluate(self, closure: Callable, x: list, t: Any, d: Any) -> tuple:
        """The loss and flat gradient at x + t d; the parameters are put back to x."""
        self._add_grad(t, d)
        loss = float(self._closure(closure))
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    # -- the step ----------------------------------------------------------------------------

    def step(self, closure: Callable[[], Any]) -> Any:  # type: ignore[override]
        """Up to ``max_iter`` L-BFGS iterations; returns the loss of the first evaluation."""
        if closure is None:
            raise RuntimeError("LBFGS requires a closure: step(closure)")
        group = self.param_groups[0]
        lr = group["lr"]
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = self._closure(closure)
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        xp = array_module(flat_grad)
        if xp.abs(flat_grad).max() <= tolerance_grad:
            return orig_loss

        d, t = _array(state.get("d")), state.get("t")
        old_dirs = [_array(v) for v in state.get("old_dirs", [])]
        old_stps = [_array(v) for v in state.get("old_stps", [])]
        ro, H_diag = list(state.get("ro", [])), state.get("H_diag")
        prev_flat_grad, prev_loss = _array(state.get("prev_flat_grad")), state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1

            # the direction
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = y.dot(s)
                if ys > 1e-10:  # the curvature condition: keep the pair
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)
                num_old = len(old_dirs)
                if "al" not in state:
                    state["al"] = [None] * history_size
                al = state["al"]
                q = -flat_grad
                for i in range(num_old - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q += old_dirs[i] * -al[i]
                d = r = q * H_diag
                for i in range(num_old):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r += old_stps[i] * (al[i] - be_i)

            prev_flat_grad = flat_grad.copy()
            prev_loss = loss

            # the step length
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / xp.abs(flat_grad).sum()) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:  # not a descent direction any more
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()

                def obj_func(x: list, t: Any, d: Any) -> tuple:
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd, max_ls=max_eval - current_evals
                )
                self._add_grad(t, d)
                opt_cond = xp.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                opt_cond = False
                if n_iter != max_iter:  # the last iteration's loss is not evaluated
                    loss = float(self._closure(closure))
                    flat_grad = self._gather_flat_grad()
                    opt_cond = xp.abs(flat_grad).max() <= tolerance_grad
                    ls_func_evals = 1

            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if xp.abs(d * t).max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        state["d"] = _tensor(d)
        state["t"] = t
        state["old_dirs"] = [_tensor(v) for v in old_dirs]
        state["old_stps"] = [_tensor(v) for v in old_stps]
        state["ro"] = ro
        state["H_diag"] = H_diag
        state["prev_flat_grad"] = _tensor(prev_flat_grad)
        state["prev_loss"] = prev_loss
        return orig_loss


def _array(value: Any) -> Any:
    return value.data if isinstance(value, Tensor) else value


def _tensor(value: Any) -> Any:
    return None if value is None else Tensor._from_array(value)


def _cubic_interpolate(
    x1: Any, f1: Any, g1: Any, x2: Any, f2: Any, g2: Any, bounds: tuple | None = None
) -> Any:
    """The minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2,
    clamped to ``bounds`` (default: between x1 and x2); their middle when the cubic has no
    minimum."""
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if d2_square >= 0:
        d2 = math.sqrt(float(d2_square))
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(
    obj_func: Callable,
    x: list,
    t: Any,
    d: Any,
    f: float,
    g: Any,
    gtd: Any,
    c1: float = 1e-4,
    c2: float = 0.9,
    tolerance_change: float = 1e-9,
    max_ls: int = 25,
) -> tuple:
    """A step t along d meeting the strong Wolfe conditions: bracket, then zoom (PyTorch's
    port of minFunc's ``lswolfe``). Returns (loss, flat gradient, t, evaluations)."""
    xp = array_module(d)
    d_norm = xp.abs(d).max()
    g = g.copy()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = g_new.dot(d)

    # bracket an interval containing a point satisfying the Wolfe criteria
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(
            t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step)
        )
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.copy(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    # zoom: refine the bracket until a point satisfies the criteria
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(
            bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]
        )
        # too close to an end (twice, or outside): 10% of the bracket inside instead
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                if abs(t - max(bracket)) < abs(t - min(bracket)):
                    t = max(bracket) - eps
                else:
                    t = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.copy(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new.copy(), gtd_new

    t = bracket[low_pos]
    return bracket_f[low_pos], bracket_g[low_pos], t, ls_func_evals

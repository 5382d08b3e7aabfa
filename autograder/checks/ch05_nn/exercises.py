"""Public checks of chapter 5's exercise (course version 1.1): 5.13 ``fit_linear``, linear
regression as the first thing ``nn`` trains. The program is ``exercises_program.py``;
``EXERCISES`` is appended to the chapter's ``CHECKS``.

Every expectation is the parent's own, in NumPy float64, never the code under test's:

- the descent itself (``descend``): from the starting weight and bias the program reports
  (the Linear the same ``manual_seed`` makes, through the student's 5.2), ``epochs`` steps
  of W ← W − lr·∂L/∂W, b ← b − lr·∂L/∂b with L the mean of the squared errors over all
  N × out entries and its gradient written out (2/(N·out)·rᵀx, 2/(N·out)·Σₙ r, r = ŷ − y).
  ``losses[0]`` is then the loss at the starting weights, and the whole history and the
  final weight and bias are compared with the parent's;
- where the descent has converged (the parent checks that its own run has), the fitted
  weight and bias against the least-squares solution of ``numpy.linalg.lstsq`` on [x, 1];
- the known mistakes, each the same descent with that mistake: parameters that never move
  (the commonest: a loop variable rebound to a new Tensor, which leaves the model's
  Parameter as it was), gradients never cleared (each step adds to the ones before), the
  loss recorded after its step, a step uphill, the sum of the squared errors for their
  mean, the bias never moved; what was raised (the update recorded on a leaf, a gradient
  cleared before the step read it, a new plain Tensor assigned to a parameter's name, a
  model in the default dtype) and what was returned (Tensors in the list, one loss per
  step, a model that is no Linear, parameters that are no longer leaf Parameters
  requiring grad) are rules.

The public rows' labels name the drawn ``manual_seed`` (``show_seed``), so that the case
shown can be made again; the hidden rows' name no drawn value.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...harness.api import Case, Check
from ...harness.table import Field, Fields, Mistake, Rows, each, first, row, rules, tr, where
from . import exercises_program as programs

SINCE = "1.1"
FIT = ("5.1", "5.2")  # the model is a Linear (5.2), which registers its Parameters (5.1)
RTOL, ATOL = 1e-7, 1e-10  # float64 throughout; only the order of the sums differs


def descend(
    x: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    b: np.ndarray,
    epochs: int,
    lr: float,
    mistake: str = "",
) -> dict:
    """Gradient descent on the mean squared error from (w, b), in NumPy float64: the losses
    before each step and the final weight and bias. ``mistake`` makes it the known wrong
    one: "frozen" (neither parameter ever moves), "accumulate" (gradients never cleared),
    "after" (each loss measured after its step), "uphill" (w + lr·g), "sum" (the sum of
    squared errors), "bias" (b never moved)."""
    w, b = np.array(w, dtype=np.float64), np.array(b, dtype=np.float64)
    scale = 1.0 if mistake == "sum" else 1.0 / y.size
    total_w, total_b = np.zeros_like(w), np.zeros_like(b)
    losses = []
    with np.errstate(all="ignore"):  # a wrong descent may overflow: it is then compared as such
        for _ in range(epochs):
            r = x @ w.T + b - y
            losses.append(float(scale * (r * r).sum()))
            gw, gb = 2 * scale * r.T @ x, 2 * scale * r.sum(axis=0)
            if mistake == "accumulate":
                total_w, total_b = total_w + gw, total_b + gb
                gw, gb = total_w, total_b
            if mistake == "frozen":
                continue
            sign = -1.0 if mistake == "uphill" else 1.0
            w = w - sign * lr * gw
            if mistake != "bias":
                b = b - sign * lr * gb
            if mistake == "after":
                r = x @ w.T + b - y
                losses[-1] = float(scale * (r * r).sum())
    return {"losses": losses, "weight": w, "bias": b}


def least_squares(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The weight (out, in) and bias (out,) minimising the squared error, by lstsq on [x, 1]."""
    solution = np.linalg.lstsq(np.hstack([x, np.ones((len(x), 1))]), y, rcond=None)[0]
    return solution[:-1].T, solution[-1]


def fit_case(
    rng: np.random.Generator,
    n: int,
    inputs: int,
    outputs: int,
    epochs: int,
    lr: float,
    converges: bool = False,
    show_seed: bool = False,
) -> Case:
    """Points near a drawn plane: x ~ N(0, 1) of shape (n, inputs), y = x Wᵀ + b + noise of
    shape (n, outputs), float64. ``converges``: enough epochs for the descent to reach the
    least-squares solution (the parent's own descent is checked to, from the worst start
    Linear's U(−k, k) can draw). ``show_seed``: the label names the drawn seed (the public
    rows, so that a student can make the same starting Linear); a hidden row's label names
    no drawn value (the same for every seed)."""
    x = rng.normal(size=(n, inputs))
    true_w = rng.uniform(-2, 2, size=(outputs, inputs))
    true_b = rng.uniform(-1, 1, size=outputs)
    y = x @ true_w.T + true_b + 0.1 * rng.normal(size=(n, outputs))
    seed = int(rng.integers(0, 100))
    expected = {"least_squares": least_squares(x, y) if converges else None}
    if converges:
        k = 1 / np.sqrt(inputs)
        for corner in (-k, k):
            w = np.full((outputs, inputs), corner)
            end = descend(x, y, w, np.full(outputs, corner), epochs, lr)
            assert np.allclose(end["weight"], expected["least_squares"][0], rtol=0, atol=1e-8)
    drawn = seed if show_seed else tr("a drawn seed", "随机抽取的种子")
    label = tr(
        f"x of shape ({n}, {inputs}), y of shape ({n}, {outputs}), float64; "
        f"sp.manual_seed({drawn}); "
        f"fit_linear(x, y, epochs={epochs}, lr={lr:g})",
        f"形状为 ({n}, {inputs}) 的 x，形状为 ({n}, {outputs}) 的 y，float64；"
        f"sp.manual_seed({drawn})；"
        f"fit_linear(x, y, epochs={epochs}, lr={lr:g})",
    )
    return Case(label, {"x": x, "y": y, "epochs": epochs, "lr": lr, "seed": seed}, expected)


# -- what was raised, and what came back -------------------------------------------------------


def _raised(*words: str):
    """A rule's condition: fit_linear raised, with all of ``words`` in its message."""
    return lambda case, got: got["error"] and all(w in got["message"] for w in words)


def _odd(kinds: list) -> str:
    """The first of ``kinds`` that is no number's type (what the program did not read)."""
    numbers = {"float", "int", "float64", "float32", "int64", "int32"}
    return next(
        (k for k in kinds if k not in numbers),
        tr("list that is no list of numbers", "不是数值列表的列表"),
    )


def _flag_off(case: Case, got: dict) -> Any:
    for name in ("weight", "bias"):
        flags = got["flags"][name]
        for flag, words in (
            ("parameter", tr("is no longer a Parameter", "不再是 Parameter")),
            (
                "leaf",
                tr(
                    "is no longer a leaf (it has a grad_fn): the update was recorded",
                    "不再是叶子节点（它有 grad_fn）：更新被记录了下来",
                ),
            ),
            ("requires_grad", tr("no longer requires grad", "不再需要梯度")),
        ):
            if not flags[flag]:
                return (f"model.{name}", words)
    return None


RAISED = rules(
    (
        _raised("in-place"),
        {
            "en": "fit_linear raised {got[error]}: {got[message]} — the update of a parameter was "
            "recorded as an operation of the graph; move the parameters without recording the "
            "move (it is no operation of the model)",
            "zh": "fit_linear 引发了 {got[error]}：{got[message]} —— 参数的更新被记录成了计算图"
            "中的一个运算；移动参数时不要记录这一步（它不是模型的运算）",
        },
    ),
    (
        _raised("NoneType"),
        {
            "en": "fit_linear raised {got[error]}: {got[message]} — a gradient was None when the "
            "step read it: the gradients were cleared between the backward and the step that "
            "needs them",
            "zh": "fit_linear 引发了 {got[error]}：{got[message]} —— 更新步读取梯度时，梯度是 "
            "None：梯度在反向传播和需要它的更新步之间被清除了",
        },
    ),
    (
        _raised("cannot assign", "as parameter"),  # en-only: matched in the error
        {
            "en": "fit_linear raised {got[error]}: {got[message]} — a new plain Tensor was "
            "assigned to a parameter's name: change the Parameter itself, in place",
            "zh": "fit_linear 引发了 {got[error]}：{got[message]} —— 把一个新的普通 Tensor 赋给了"
            "参数的名字：应原地修改 Parameter 本身",
        },
    ),
    (
        _raised("Linear's weight is"),  # en-only: matched in the error
        {
            "en": "fit_linear raised {got[error]}: {got[message]} — the model is not in x's dtype "
            "(here float64): make the Linear in x's dtype",
            "zh": "fit_linear 引发了 {got[error]}：{got[message]} —— 模型的数据类型与 x 的不同"
            "（这里是 float64）：应按 x 的数据类型创建 Linear",
        },
    ),
    (
        lambda case, got: got["error"],
        {
            "en": "fit_linear raised {got[error]}: {got[message]}",
            "zh": "fit_linear 引发了 {got[error]}：{got[message]}",
        },
    ),
    (
        lambda case, got: got.get("returned") not in ("tuple", "list") or "model" not in got,
        {
            "en": "fit_linear returned a {got[returned]}: it must return the pair (model, losses)",
            "zh": "fit_linear 返回了 {got[returned]}：它必须返回二元组 (model, losses)",
        },
    ),
    (
        lambda case, got: got["model"] != "Linear" and got["model"],
        {
            "en": "fit_linear returned a {0} as its model: it must be the nn.Linear it trained",
            "zh": "fit_linear 返回的模型是 {0}：它必须是训练好的那个 nn.Linear",
        },
    ),
    (
        lambda case, got: [i for i, k in enumerate(got["kinds"]) if k == "Tensor"][:1],
        {
            "en": "losses[{0[0]}] is a Tensor: the list must hold Python numbers, one per step "
            "(a Tensor also keeps that step's whole graph alive)",
            "zh": "losses[{0[0]}] 是 Tensor：列表中必须是 Python 数值，每步一个（Tensor 还会让"
            "那一步的整个计算图一直存活）",
        },
    ),
    (
        lambda case, got: got.get("losses") is None and _odd(got["kinds"]),
        {
            "en": "losses holds a {0}: the list must hold Python numbers, one per step",
            "zh": "losses 中含有 {0}：列表中必须是 Python 数值，每步一个",
        },
    ),
    (
        lambda case, got: (
            (len(got["losses"]), case.inputs["epochs"])
            if len(got["losses"]) != case.inputs["epochs"]
            else None
        ),
        {
            "en": "losses holds {0} values for epochs = {1}: one loss per step, the loss of the "
            "weights before that step",
            "zh": "epochs = {1} 时 losses 中有 {0} 个值：每步一个损失，即该步之前的权重对应的损失",
        },
    ),
    (_flag_off, {"en": "after fit_linear, {0} {1}", "zh": "fit_linear 之后，{0} {1}"}),
    keys=("start_weight", "start_bias", "error", "message"),
)


def _descent(case: Case, got: dict) -> list[tuple[Case, dict]]:
    """The case with the parent's descents from the start the program reported."""
    x, y = case.inputs["x"], case.inputs["y"]
    w, b = np.asarray(got["start_weight"]), np.asarray(got["start_bias"])
    epochs, lr = case.inputs["epochs"], case.inputs["lr"]
    right = descend(x, y, w, b, epochs, lr)
    wrong = {m: descend(x, y, w, b, epochs, lr, m) for m in MISTAKES}
    return [(Case(case.label, case.inputs, {**right, "wrong": wrong}), got)]


# each known mistake's words (MISTAKES: the English alone, as the tests read them)
WORDS = {
    "frozen": {
        "en": "every loss equals the first: the parameters never changed — a name rebound "
        "to a new Tensor does not change the model's parameter",
        "zh": "每个损失都等于第一个：参数从未改变 —— 把名字重新绑定到新的 Tensor，并不会改变"
        "模型的参数",
    },
    "accumulate": {
        "en": "the gradients were never cleared: each step added its gradient to the "
        "ones left from the steps before, so every step moved by the sum of all the gradients "
        "so far",
        "zh": "梯度从未清零：每一步都把自己的梯度加到之前各步留下的梯度上，于是每一步都按"
        "到目前为止所有梯度之和移动",
    },
    "after": {
        "en": "each loss was measured after its step: losses[0] must be the loss at the "
        "starting weights, before any step",
        "zh": "每个损失都是在对应的那一步之后测量的：losses[0] 必须是起始权重（任何一步之前）"
        "的损失",
    },
    "uphill": {
        "en": "each step went uphill, along the gradient: move against it",
        "zh": "每一步都沿着梯度方向往上走：应逆着梯度移动",
    },
    "sum": {
        "en": "the loss is the sum of the squared errors, not their mean: the mean squared "
        "error divides by the N × out entries",
        "zh": "损失是平方误差之和，而不是均值：均方误差要除以 N × out 个元素",
    },
    "bias": {
        "en": "the bias never moved: every parameter takes a step, the bias too",
        "zh": "偏置从未移动：每个参数都要更新一步，偏置也不例外",
    },
}
MISTAKES = {mistake: words["en"] for mistake, words in WORDS.items()}

DESCENT = each(
    _descent,
    Fields(
        [
            Field("losses.*", "losses[{i}]", rtol=RTOL, atol=ATOL),
            Field("weight", "model.weight", rtol=RTOL, atol=ATOL),
            Field("bias", "model.bias", rtol=RTOL, atol=ATOL),
        ],
        mistakes=[
            *(
                Mistake(field, lambda case, m=m, k=key: case.expected["wrong"][m][k], says)
                for m, says in WORDS.items()
                for field, key in (("losses.*", "losses"), ("weight", "weight"), ("bias", "bias"))
            ),
        ],
    ),
)

LEAST_SQUARES = where(
    lambda case: case.expected["least_squares"] is not None,
    Fields(
        [
            Field(
                "weight",
                {
                    "en": "model.weight (the least-squares solution, numpy.linalg.lstsq)",
                    "zh": "model.weight（最小二乘解，numpy.linalg.lstsq）",
                },
                rtol=0,
                atol=1e-6,
                expected=lambda case: case.expected["least_squares"][0],
            ),
            Field(
                "bias",
                {
                    "en": "model.bias (the least-squares solution, numpy.linalg.lstsq)",
                    "zh": "model.bias（最小二乘解，numpy.linalg.lstsq）",
                },
                rtol=0,
                atol=1e-6,
                expected=lambda case: case.expected["least_squares"][1],
            ),
        ]
    ),
)

FITTED = first(RAISED, DESCENT, LEAST_SQUARES)

EXERCISES = [
    Check(
        "5.13",
        "fit_linear: gradient descent on the mean squared error",
        Rows(
            [
                row(fit_case, 6, 1, 1, epochs=3, lr=0.1, show_seed=True),
                row(fit_case, 12, 2, 3, epochs=6, lr=0.2, show_seed=True),
                row(fit_case, 10, 3, 1, epochs=1, lr=0.05, show_seed=True),
            ]
        ),
        programs.fit_linear,
        FITTED,
        requires=FIT,
        since=SINCE,
        title={"zh": "fit_linear：在均方误差上做梯度下降"},
    ),
    Check(
        "5.13",
        "fit_linear lands on the least-squares solution",
        Rows(
            [
                row(fit_case, 20, 2, 1, epochs=300, lr=0.3, converges=True, show_seed=True),
                row(fit_case, 15, 1, 2, epochs=300, lr=0.3, converges=True, show_seed=True),
            ]
        ),
        programs.fit_linear,
        FITTED,
        requires=FIT,
        since=SINCE,
        title={"zh": "fit_linear 收敛到最小二乘解"},
    ),
]

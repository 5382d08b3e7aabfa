"""Public checks of chapter 4's exercises (course version 1.1): 4.7 ``newton_step`` and 4.8
``jit.trace``'s replay. Their programs are ``exercises_program.py``; ``EXERCISES`` is
appended to the chapter's ``CHECKS``.

Every expectation is the parent's own, in NumPy, from closed forms, never from the code
under test:

- 4.7: each function's gradient and Hessian written out (``GRADIENTS``), and the Newton
  step x − H⁻¹∇f solved by ``numpy.linalg.solve``; a quadratic ½xᵀAx − bᵀx lands on
  A⁻¹b; the refusals (f not a scalar; a Hessian of rank below n, exactly singular or
  singular only up to rounding, where NumPy's solve returns huge numbers) are rules on
  what was raised. x must be left as it was: the parent compares its values after the call
  with the ones it sent. The known mistakes are named from their own formulas: a step
  uphill, a gradient step, H·∇f, ∇f divided by H's diagonal.
- 4.8: each traced function's outputs and its gradients for given seeds (``TRACED``), at
  new inputs; a function with a Python ``if`` on the data is replayed on inputs that would
  take the other branch, and must follow the branch the trace saw. fn runs once for a trace
  and two replays (counted in the child and sent as a number). A replay on the recorded
  tensors (the example's values back) is named. Gradients go through ``backward_pass``
  (4.1, 4.2). Calling the traced function with other shapes, or another number of inputs,
  must raise a RuntimeError that names the shapes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...harness.api import Case, Check
from ...harness.table import Field, Fields, Mistake, Rows, first, row, rules, say, tr
from . import exercises_program as programs

SINCE = "1.1"
NEWTON = ("4.1", "4.2", "4.4", "4.5", "4.6")  # vjp and hessian: the engine, grad mode, 4.6
REPLAY_GRADIENTS = ("4.1", "4.2")  # backward_pass from the replayed outputs

# -- 4.7: the functions' closed forms ------------------------------------------------------


def _quadratic(x: np.ndarray, p: dict) -> tuple:
    A, b = np.asarray(p["A"]), np.asarray(p["b"])
    return A @ x - b, A  # A symmetric


def _rosenbrock(x: np.ndarray, p: dict) -> tuple:
    x0, x1 = x
    g = np.array([-2 * (1 - x0) - 400 * x0 * (x1 - x0**2), 200 * (x1 - x0**2)])
    H = np.array([[2 - 400 * x1 + 1200 * x0**2, -400 * x0], [-400 * x0, 200.0]])
    return g, H


def _quartic(x: np.ndarray, p: dict) -> tuple:
    (v,) = x
    return np.array([4 * v**3 - 6 * v + 1]), np.array([[12 * v**2 - 6]])


def _grid(x: np.ndarray, p: dict) -> tuple:
    """Σ x⁴/4 + Σ C x + x₀₀ x₁₁ on x of shape (2, 2), flattened row by row."""
    g = x**3 + np.asarray(p["C"]).reshape(4) + np.array([x[3], 0.0, 0.0, x[0]])
    H = np.diag(3 * x**2)
    H[0, 3] = H[3, 0] = 1.0
    return g, H


GRADIENTS: dict[str, Callable[[np.ndarray, dict], tuple]] = {
    "quadratic": _quadratic,
    "rosenbrock": _rosenbrock,
    "quartic": _quartic,
    "grid": _grid,
}
WRITTEN = {
    "quadratic": "f(x) = ½xᵀAx − bᵀx",
    "rosenbrock": "f(x) = (1 − x₀)² + 100 (x₁ − x₀²)² (Rosenbrock)",
    "quartic": "f(x) = x⁴ − 3x² + x",
    "grid": "f(x) = Σ x⁴/4 + Σ C·x + x₀₀·x₁₁",
    "squares": "f(x) = x * x",
    "sum_squared": "f(x) = (Σ a·x)²",
    "linear": "f(x) = 3x",
}


def _spd(rng: np.random.Generator, n: int) -> np.ndarray:
    """A symmetric positive definite n × n matrix, not diagonal, of moderate condition."""
    M = np.round(rng.normal(size=(n, n)), 2)
    return M @ M.T + n * np.eye(n)


def _params(rng: np.random.Generator, function: str, shape: tuple) -> dict:
    if function == "quadratic":
        n = shape[0]
        return {"A": _spd(rng, n), "b": np.round(rng.normal(size=n), 2)}
    if function == "grid":
        return {"C": np.round(rng.normal(size=(2, 2)), 2)}
    return {}


def newton_case(
    rng: np.random.Generator,
    function: str,
    x: Any = None,
    n: int = 3,
    dtype: str = "float64",
    params: dict | None = None,
    show: bool = True,
) -> Case:
    """``newton_step(f, x)`` once, for ``function`` at x (drawn when not given; its values
    are in the label only with ``show``: a hidden label never shows what was drawn)."""
    shape = {"quartic": (), "grid": (2, 2), "rosenbrock": (2,)}.get(function, (n,))
    drawn = x is None
    if x is None:  # (grid: |x| ≥ 0.3, so that no curvature 3x² is near 0)
        x = np.round(rng.uniform(-2, 2, size=shape), 2)
        if function == "grid":
            x = np.round(rng.choice([-1.0, 1.0], size=shape) * rng.uniform(0.3, 1.5, shape), 2)
    x = np.asarray(x, dtype=np.float64)
    params = _params(rng, function, shape) if params is None else params
    flat = np.asarray(x, dtype=np.float64).reshape(-1)
    g, H = GRADIENTS[function](flat, params)
    expected = {
        "error": None,
        "x_new": (flat - np.linalg.solve(H, g)).reshape(shape),
        "shape": list(shape),
        "dtype": dtype,
        "requires_grad": False,
        "x_after": np.asarray(x, dtype=np.float64),
        "g": g,
        "H": H,
    }
    at = (
        tr(f"x drawn of shape {shape}", f"x 随机抽取，形状为 {shape}")
        if drawn and not show
        else f"x = {np.asarray(x).tolist()}"
    )
    label = tr(
        f"newton_step(f, x) for {WRITTEN[function]}, {at}",
        f"newton_step(f, x)，其中 {WRITTEN[function]}，{at}",
    ) + (tr(f", {dtype}", f"，{dtype}") if dtype != "float64" else "")
    inputs = {"function": function, "x": np.asarray(x), "dtype": dtype, "params": params}
    return Case(label, inputs, expected)


def _wrong(step: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]) -> Callable:
    """A mistake's x_new from the case's own gradient and Hessian."""

    def wrong(case: Case) -> np.ndarray:
        want = case.expected
        flat = np.asarray(want["x_after"], dtype=np.float64).reshape(-1)
        return step(flat, want["g"], want["H"]).reshape(want["x_new"].shape)

    return wrong


def _tolerance(case: Case) -> tuple[float, float]:
    return (1e-4, 1e-5) if case.inputs["dtype"] == "float32" else (1e-7, 1e-9)


def _raised(case: Case, got: Any) -> Any:
    return got.get("error") is not None and (got["error"], got["message"])


STEP_MISTAKES = [
    Mistake(
        "x_new",
        _wrong(lambda x, g, H: x + np.linalg.solve(H, g)),
        {
            "en": "your step went uphill: it is H⁻¹∇f added to x. Newton's step goes against the "
            "solution of H·s = ∇f, as gradient descent goes against ∇f",
            "zh": "你的这一步走上了坡：它是把 H⁻¹∇f 加到了 x 上。牛顿步沿 H·s = ∇f 的解的反方向走，"
            "正如梯度下降沿 ∇f 的反方向走",
        },
    ),
    Mistake(
        "x_new",
        _wrong(lambda x, g, H: x - g),
        {
            "en": "this is a gradient step, x − ∇f: the Hessian was not used. Newton's step is "
            "the solution s of H·s = ∇f",
            "zh": "这是一个梯度步 x − ∇f：没有用到黑塞矩阵。牛顿步是 H·s = ∇f 的解 s",
        },
    ),
    Mistake(
        "x_new",
        _wrong(lambda x, g, H: x - H @ g),
        {
            "en": "this is x − H·∇f: the Hessian multiplied the gradient. Newton's step divides "
            "by the curvature: it is the solution s of H·s = ∇f, H⁻¹∇f",
            "zh": "这是 x − H·∇f：黑塞矩阵乘上了梯度。牛顿步要除以曲率：它是 H·s = ∇f 的解 s，"
            "即 H⁻¹∇f",
        },
    ),
    Mistake(
        "x_new",
        _wrong(lambda x, g, H: x - g / np.diag(H)),
        {
            "en": "your step is ∇f divided by the Hessian's diagonal: the curvature off the "
            "diagonal (how one coordinate's slope changes with another) was left out. The step "
            "is the solution s of the whole system H·s = ∇f",
            "zh": "你的这一步是 ∇f 除以黑塞矩阵的对角线：对角线以外的曲率（一个坐标上的斜率如何随"
            "另一个坐标变化）被漏掉了。这一步应是整个方程组 H·s = ∇f 的解 s",
        },
    ),
]

RAISED = {"en": "newton_step(f, x) raised {0}: {1}", "zh": "newton_step(f, x) 抛出了 {0}：{1}"}

STEP = first(
    rules(
        (_raised, RAISED),
        keys=["error", "message"],
    ),
    Fields(
        [
            Field("x_new", "newton_step(f, x)", tolerance=_tolerance),
            Field(
                "shape",
                {
                    "en": "newton_step(f, x).shape (x's shape)",
                    "zh": "newton_step(f, x).shape（x 的形状）",
                },
            ),
            Field(
                "dtype",
                {
                    "en": "newton_step(f, x).dtype (x's dtype)",
                    "zh": "newton_step(f, x).dtype（x 的数据类型）",
                },
            ),
            Field(
                "requires_grad",
                "newton_step(f, x).requires_grad",
                says={
                    "en": "the step is a new point, a constant: it must not carry the graph of "
                    "the derivatives that made it",
                    "zh": "这一步得到的是一个新的点，是常量：它不能带着求出它的那些导数的计算图",
                },
            ),
            Field(
                "x_after",
                {"en": "x after newton_step(f, x)", "zh": "newton_step(f, x) 之后的 x"},
                tolerance=_tolerance,
                says={
                    "en": "newton_step changed x: it must return a new Tensor and leave x as it "
                    "was",
                    "zh": "newton_step 改动了 x：它必须返回一个新的 Tensor，并让 x 保持原样",
                },
            ),
        ],
        mistakes=STEP_MISTAKES,
    ),
)


def minimum_case(rng: np.random.Generator, n: int, dtype: str = "float64") -> Case:
    """A quadratic ½xᵀAx − bᵀx from a drawn x: one step lands on A⁻¹b."""
    case = newton_case(rng, "quadratic", n=n, dtype=dtype)
    A, b = case.inputs["params"]["A"], case.inputs["params"]["b"]
    expected = {**case.expected, "x_new": np.linalg.solve(A, b)}
    label = tr(
        f"one newton_step(f, x) for f(x) = ½xᵀAx − bᵀx, A {n}×{n} positive definite, "
        "from a drawn x: it must land on the minimum, A⁻¹b",
        f"从随机抽取的 x 出发，对 f(x) = ½xᵀAx − bᵀx（A 为 {n}×{n} 正定矩阵）走一次 "
        "newton_step(f, x)：它必须落在最小值点 A⁻¹b 上",
    )
    return Case(label, case.inputs, expected)


MINIMUM = first(
    rules((_raised, RAISED), keys=["error", "message"]),
    Fields(
        [
            Field(
                "x_new",
                {
                    "en": "newton_step(f, x), f's minimum A⁻¹b",
                    "zh": "newton_step(f, x)，即 f 的最小值点 A⁻¹b",
                },
                tolerance=_tolerance,
            )
        ],
        mistakes=STEP_MISTAKES,
    ),
)


def refusal_case(
    rng: np.random.Generator, function: str, x: Any, a: Any = None, why: str = ""
) -> Case:
    """A function newton_step must refuse: ``why`` says which problem (scalar, singular).
    ``x`` a tuple: a shape, x drawn (the label says so, without the values)."""
    params = {} if a is None else {"a": np.asarray(a, dtype=np.float64)}
    with_a = "" if a is None else tr(f", a = {list(a)}", f"，a = {list(a)}")
    if isinstance(x, tuple):
        at = tr(f"x drawn of shape {x}", f"x 随机抽取，形状为 {x}")
        x = np.round(rng.uniform(-2, 2, size=x), 2)
    else:
        x = np.asarray(x, dtype=np.float64)
        at = f"x = {x.tolist()}"
    label = tr(
        f"newton_step(f, x) for {WRITTEN[function]}{with_a}, {at}",
        f"newton_step(f, x)，其中 {WRITTEN[function]}{with_a}，{at}",
    )
    inputs = {"function": function, "x": x, "dtype": "float64", "params": params}
    return Case(label, inputs, {"why": why})


def _refusal_facts(case: Case, got: Any) -> dict:
    why = case.expected["why"]
    problem = {
        "scalar": tr(
            "f(x) is not a scalar (it has more than one element)",
            "f(x) 不是标量（它有不止一个元素）",
        ),
        "singular": tr(
            "the Hessian at x is singular (its rank is below x's number of elements)",
            "x 处的黑塞矩阵是奇异的（它的秩小于 x 的元素个数）",
        ),
    }[why]
    return {"problem": problem, "word": why}


REFUSAL = rules(
    (
        lambda case, got: got.get("error") is None and (show_step(got),),
        {
            "en": "{problem}, and newton_step returned {0} instead of raising a RuntimeError that "
            "says so: there is no Newton step there",
            "zh": "{problem}，而 newton_step 返回了 {0}，没有抛出说明这一点的 RuntimeError："
            "那里不存在牛顿步",
        },
    ),
    (
        lambda case, got: got["error"] != "RuntimeError" and (got["error"], got["message"]),
        {
            "en": "{problem}: newton_step raised {0}: {1}. The contract asks for a RuntimeError "
            "(as PyTorch's linalg raises for a singular matrix) whose message names the problem",
            "zh": "{problem}：newton_step 抛出了 {0}：{1}。约定要求抛出 RuntimeError（就像 "
            "PyTorch 的 linalg 遇到奇异矩阵时那样），并在消息中指明问题",
        },
    ),
    (
        lambda case, got: case.expected["why"] not in got["message"].lower() and (got["message"],),
        {
            "en": "{problem}: newton_step raised RuntimeError: {0}, which does not name the "
            "problem: its message must say '{word}'",
            "zh": "{problem}：newton_step 抛出了 RuntimeError：{0}，但没有指明问题：它的消息中"
            "必须包含 '{word}'",
        },
    ),
    keys=["error", "message"],
    facts=_refusal_facts,
)


def show_step(got: dict) -> str:
    value = got.get("x_new")
    return np.array2string(np.asarray(value), precision=4) if value is not None else "None"


# -- 4.8: the traced functions' closed forms -----------------------------------------------


def _poly(xs: list, s: list, p: dict) -> tuple:
    (x,) = xs
    return [0.5 * x * x + 3 * x - 1], None if s is None else [s[0] * (x + 3)]


def _layer(xs: list, s: list, p: dict) -> tuple:
    (x,) = xs
    W = np.asarray(p["W"])
    t = np.tanh(W @ x)
    back = None if s is None else s[0] * (1 - t * t)
    grads = None if s is None else [W.T @ back, np.outer(back, x)]
    return [t], grads


def _pair(xs: list, s: list, p: dict) -> tuple:
    x, y = xs
    grads = None if s is None else [s[0] * y + s[1], s[0] * x + s[1]]
    return [x * y, (x + y).sum(0)], grads


def _shapes(xs: list, s: list, p: dict) -> tuple:
    (x,) = xs
    c = p["c"]
    return [x.reshape(3, 2).T * c], None if s is None else [(s[0] * c).T.reshape(6)]


def _branch(xs: list, s: list, p: dict) -> tuple:
    """The branch the trace saw (p["positive"]: the example's sum was above 0)."""
    (x,) = xs
    if p["positive"]:
        return [2 * x], None if s is None else [2 * s[0]]
    return [x * x], None if s is None else [2 * x * s[0]]


TRACED: dict[str, Callable[[list, Any, dict], tuple]] = {
    "poly": _poly,
    "layer": _layer,
    "pair": _pair,
    "shapes": _shapes,
    "branch": _branch,
}
SHOWN = {
    "poly": "fn(x) = x * x * 0.5 + x * 3.0 - 1.0",
    "layer": {
        "en": "fn(x) = (W @ x).tanh(), W a weight that requires grad",
        "zh": "fn(x) = (W @ x).tanh()（W 是需要梯度的权重）",
    },
    "pair": "fn(x, y) = (x * y, (x + y).sum(0))",
    "shapes": "fn(x) = x.reshape(3, 2).transpose(0, 1) * c",
    "branch": "fn(x) = x * 2.0 if x.sum().item() > 0 else x * x",
}
SHAPES = {"poly": [(3,)], "layer": [(3,)], "pair": [(2, 3), (2, 3)], "shapes": [(6,)]}


def _draw(rng: np.random.Generator, shapes: list, sign: float = 0.0) -> list:
    """Inputs of ``shapes``; with a ``sign``, every element of that sign, 0.1 or more away
    from 0 (so that a sum is clearly of that sign)."""
    drawn = [np.round(rng.uniform(-2, 2, size=s), 2) for s in shapes]
    return [(np.abs(d) + 0.1) * sign if sign else d for d in drawn]


def replay_case(
    rng: np.random.Generator,
    function: str,
    gradients: bool = False,
    positive: bool = True,
    shapes: list | None = None,
) -> Case:
    """``traced = jit.trace(fn, example)``, then ``traced(*new)`` for two lists of new
    inputs; "branch" is traced on an example of the sign ``positive`` and replayed on inputs
    of the other sign."""
    shapes = shapes or SHAPES.get(function, [(3,)])
    params: dict = {}
    if function == "layer":
        params["W"] = np.round(rng.normal(size=(2, shapes[0][0])), 2)
    if function == "shapes":
        params["c"] = float(np.round(rng.uniform(0.5, 2), 2))
    sign = (1.0 if positive else -1.0) if function == "branch" else 0.0
    example = _draw(rng, shapes, sign)  # "branch": replayed on the other sign
    news = [_draw(rng, shapes, -sign) for _ in range(2)]
    closed = TRACED[function]
    known = {**params, "positive": positive}
    outs0, _ = closed(example, None, known)
    seeds = None
    if gradients:
        seeds = [[np.round(rng.uniform(-1, 1, size=np.shape(o)), 2) for o in outs0] for _ in news]
    found = [closed(new, None if seeds is None else seeds[i], known) for i, new in enumerate(news)]
    expected = {
        "calls": 1,
        "outputs": [f[0] for f in found],
        "grads": [f[1] for f in found] if gradients else None,
        "traced": outs0,
        "names": (["x", "y"] if function == "pair" else ["x"])
        + (["W"] if function == "layer" else []),
    }
    sign = "> 0" if positive else "≤ 0"
    where = {"branch": tr(f" (traced where the sum is {sign})", f"（追踪时其和 {sign}）")}
    label = tr(
        f"traced = jit.trace({say(SHOWN[function])}, example){where.get(function, '')}; "
        f"traced(...) on two new inputs of shapes {[tuple(s) for s in shapes]}",
        f"traced = jit.trace({say(SHOWN[function])}, example){where.get(function, '')}；"
        f"在两组形状为 {[tuple(s) for s in shapes]} 的新输入上调用 traced(...)",
    ) + (tr(", then backward from each result", "，然后从每个结果反向传播") if gradients else "")
    inputs = {
        "function": function,
        "example": example,
        "inputs": news,
        "params": params,
        "seeds": seeds,
    }
    return Case(label, inputs, expected)


def _calls(case: Case, got: Any) -> Any:
    return got.get("calls") != 1 and (got.get("calls"),)


def _replay_raised(case: Case, got: Any) -> Any:
    return got.get("error") is not None and (got["error"], got["message"])


def _raised_for_arguments(case: Case, got: Any) -> Any:
    message = str(got.get("message", ""))
    return (
        got.get("error") == "TypeError"
        and ("argument" in message or "positional" in message)
        and (got["error"], message)
    )


ARGUMENTS_KEPT = {
    "en": "An operation was replayed with other arguments than it was traced with: the "
    "non-Tensor arguments (a dim, a shape, a dtype) are part of what was recorded, and go back "
    "as they were",
    "zh": "某个运算重放时用的参数与追踪时不同：非 Tensor 参数（dim、形状、dtype）也是记录下来的"
    "一部分，要原样传回去",
}


REPLAY_RULES = rules(
    (
        _raised_for_arguments,
        {
            "en": "traced(...) raised {0}: {1}. " + ARGUMENTS_KEPT["en"],
            "zh": "traced(...) 抛出了 {0}：{1}。" + ARGUMENTS_KEPT["zh"],
        },
    ),
    (
        _replay_raised,
        {"en": "traced(...) raised {0}: {1}", "zh": "traced(...) 抛出了 {0}：{1}"},
    ),
    (
        _calls,
        {
            "en": "fn ran {0} times for one trace and two replays: the trace runs fn once, and a "
            "replay runs the recorded operations, never fn itself",
            "zh": "一次追踪加两次重放，fn 却运行了 {0} 次：追踪时运行 fn 一次，而重放运行的是记录"
            "下来的运算，从不运行 fn 本身",
        },
    ),
    keys=["calls"],
)


def _names(case: Case) -> list:
    """One name per replay and output: "traced(...) on new inputs 1, output 0"."""
    return [
        [
            tr(
                f"traced(...) on new inputs {i + 1}, output {j}",
                f"traced(...) 在第 {i + 1} 组新输入上的输出 {j}",
            )
            for j in range(len(outs))
        ]
        for i, outs in enumerate(case.expected["outputs"])
    ]


def _arguments_dropped(case: Case) -> Any:
    """What a replay that passes only the Tensors gives, where it runs at all: "pair"'s
    ``sum(0)`` becomes ``sum()``."""
    if case.inputs["function"] != "pair":
        return None
    return [[x * y, np.asarray((x + y).sum())] for x, y in case.inputs["inputs"]]


REPLAY_VALUES = first(
    REPLAY_RULES,
    Fields(
        [Field("outputs.*.*", _names, rtol=1e-9, atol=1e-12)],
        mistakes=[
            Mistake(
                "outputs.*.*",
                _arguments_dropped,
                lambda case: tr(
                    f"a sum over every element: {say(ARGUMENTS_KEPT)}",
                    f"对所有元素求了和：{say(ARGUMENTS_KEPT)}",
                ),
            ),
            Mistake(
                "outputs.*.*",
                lambda case: [case.expected["traced"]] * len(case.expected["outputs"]),
                {
                    "en": "the replay gave back what the trace computed from its example, "
                    "whatever the new inputs: an operation's recorded Tensors (the example "
                    "inputs, and the results that earlier operations made while tracing) must "
                    "each be replaced by what stands for it in this replay",
                    "zh": "无论新输入是什么，重放都返回了追踪时从示例算出的结果：运算记录下的每个 "
                    "Tensor（示例输入，以及追踪时前面的运算产生的结果）都必须替换为本次重放中与之"
                    "对应的值",
                },
            ),
        ],
    ),
)


def _detached(case: Case, got: Any) -> Any:
    for i, flags in enumerate(got.get("attached") or []):
        for j, attached in enumerate(flags):
            if not attached:
                return (i + 1, j)
    return False


def _grad_names(case: Case) -> list:
    return [
        [
            tr(
                f"traced(...) on new inputs {i + 1}: {name}.grad",
                f"traced(...) 在第 {i + 1} 组新输入上：{name}.grad",
            )
            for name in case.expected["names"]
        ]
        for i in range(len(case.expected["grads"]))
    ]


def _unreached(case: Case, got: Any) -> Any:
    for i, grads in enumerate(got.get("grads") or []):
        for name, g in zip(case.expected["names"], grads):
            if g is None:
                return (i + 1, name)
    return False


REPLAY_GRADS = first(
    REPLAY_RULES,
    rules(
        (
            _detached,
            {
                "en": "traced(...) on new inputs {0}: output {1} does not require grad, though "
                "its inputs do: the replayed operations were not recorded, so backward cannot go "
                "through them. A replay applies each operation as any operation is applied, "
                "with grad mode as the caller left it",
                "zh": "traced(...) 在第 {0} 组新输入上：输出 {1} 不需要梯度，而它的输入需要："
                "重放的运算没有被记录，反向传播无法穿过它们。重放应像应用任何运算那样应用每个"
                "运算，梯度模式保持调用者设置的样子",
            },
        ),
        (
            _unreached,
            {
                "en": "traced(...) on new inputs {0}: no gradient reached {1} by backward from "
                "the replayed result: the replayed operations must start from {1} itself",
                "zh": "traced(...) 在第 {0} 组新输入上：从重放结果反向传播，没有梯度到达 {1}："
                "重放的运算必须从 {1} 本身开始",
            },
        ),
        keys=["attached", "grads"],
    ),
    Fields([Field("grads.*.*", _grad_names, rtol=1e-9, atol=1e-12)]),
)


def mismatch_case(
    rng: np.random.Generator, function: str, wrong: list, shapes: list | None = None
) -> Case:
    """``jit.trace(fn, example)`` on ``shapes``, then called with inputs of shapes ``wrong``."""
    shapes = shapes or SHAPES[function]
    params: dict = {}
    if function == "layer":
        params["W"] = np.round(rng.normal(size=(2, shapes[0][0])), 2)
    example = _draw(rng, shapes)
    label = tr(
        f"traced = jit.trace({say(SHOWN[function])}, example of shapes "
        f"{[tuple(s) for s in shapes]}); traced(...) on inputs of shapes "
        f"{[tuple(s) for s in wrong]}",
        f"traced = jit.trace({say(SHOWN[function])}, example)，example 的形状为 "
        f"{[tuple(s) for s in shapes]}；在形状为 {[tuple(s) for s in wrong]} 的输入上调用 "
        "traced(...)",
    )
    inputs = {
        "function": function,
        "example": example,
        "wrong": _draw(rng, wrong),
        "params": params,
    }
    return Case(label, inputs, {"traced": [tuple(s) for s in shapes], "wrong": wrong})


def _shapes_named(case: Case, got: Any) -> Any:
    message = str(got.get("message", ""))
    named = [str(tuple(s)) for s in case.expected["traced"]]
    if len(case.expected["wrong"]) == len(case.expected["traced"]):
        named += [str(tuple(s)) for s in case.expected["wrong"]]
    missing = [n for n in named if n not in message]
    return bool(missing) and (message, ", ".join(missing))


MISMATCH = rules(
    (
        lambda case, got: got.get("error") is None and (got.get("shapes"),),
        {
            "en": "the trace holds for the shapes it was recorded with, {want[traced]}, and "
            "traced(...) returned results (of shapes {0}) for others instead of raising a "
            "RuntimeError that names both",
            "zh": "追踪结果只适用于记录时的形状 {want[traced]}，而 traced(...) 对其他形状返回了"
            "结果（形状为 {0}），没有抛出写明两者的 RuntimeError",
        },
    ),
    (
        lambda case, got: got["error"] != "RuntimeError" and (got["error"], got["message"]),
        {
            "en": "traced(...) raised {0}: {1}, not the RuntimeError that names the shapes the "
            "trace was recorded with, {want[traced]}, and the ones received",
            "zh": "traced(...) 抛出了 {0}：{1}，而不是写明追踪时记录的形状 {want[traced]} 和"
            "实际收到的形状的 RuntimeError",
        },
    ),
    (
        _shapes_named,
        {
            "en": "traced(...) raised RuntimeError: {0}, which does not name the shapes: {1} "
            "missing (the traced shapes and the received ones, each as a tuple)",
            "zh": "traced(...) 抛出了 RuntimeError：{0}，但没有写明形状：缺少 {1}（追踪时的形状"
            "和收到的形状，都要写成元组）",
        },
    ),
    keys=["error", "message"],
)


EXERCISES = [
    Check(
        "4.7",
        "newton_step(f, x)",
        Rows(
            [
                row(newton_case, "quadratic", n=2),
                row(newton_case, "rosenbrock", [-1.2, 1.0]),
                row(newton_case, "rosenbrock"),
                row(newton_case, "quartic", 2.0),
                row(newton_case, "grid"),
                row(newton_case, "quadratic", n=3, dtype="float32"),
            ]
        ),
        programs.newton,
        STEP,
        requires=NEWTON,
        since=SINCE,
    ),
    Check(
        "4.7",
        "newton_step lands on a quadratic's minimum",
        Rows([row(minimum_case, 2), row(minimum_case, 4)]),
        programs.newton,
        MINIMUM,
        requires=NEWTON,
        since=SINCE,
        title={"zh": "newton_step 落在二次函数的最小值点上"},
    ),
    Check(
        "4.7",
        "newton_step refuses: f not a scalar, a singular Hessian",
        Rows(
            [
                row(refusal_case, "squares", [1.0, 2.0], why="scalar"),
                row(refusal_case, "linear", 0.5, why="singular"),
                row(refusal_case, "sum_squared", [0.5, -1.0], a=[1.0, 1.0], why="singular"),
                row(
                    refusal_case,
                    "sum_squared",
                    [0.5, -1.0, 2.0],
                    a=[0.21, 0.46, 0.09],
                    why="singular",
                ),
            ]
        ),
        programs.newton,
        REFUSAL,
        requires=NEWTON,
        since=SINCE,
        title={"zh": "newton_step 拒绝的情形：f 不是标量、黑塞矩阵奇异"},
    ),
    Check(
        "4.8",
        "jit.trace: replayed values",
        Rows(
            [
                row(replay_case, "poly"),
                row(replay_case, "layer"),
                row(replay_case, "pair"),
                row(replay_case, "shapes"),
                row(replay_case, "branch", positive=True),
            ]
        ),
        programs.replayed,
        REPLAY_VALUES,
        since=SINCE,
        title={"zh": "jit.trace：重放得到的值"},
    ),
    Check(
        "4.8",
        "jit.trace: gradients through the replay",
        Rows(
            [
                row(replay_case, "poly", gradients=True),
                row(replay_case, "layer", gradients=True),
                row(replay_case, "pair", gradients=True),
                row(replay_case, "shapes", gradients=True),
            ]
        ),
        programs.replayed,
        REPLAY_GRADS,
        requires=REPLAY_GRADIENTS,
        since=SINCE,
        title={"zh": "jit.trace：穿过重放的梯度"},
    ),
    Check(
        "4.8",
        "jit.trace: other shapes refused",
        Rows(
            [
                row(mismatch_case, "poly", [(1,)]),
                row(mismatch_case, "layer", [(4,)]),
                row(mismatch_case, "pair", [(3, 2), (3, 2)]),
                row(mismatch_case, "poly", [(3,), (3,)]),
            ]
        ),
        programs.mismatch,
        MISMATCH,
        since=SINCE,
        title={"zh": "jit.trace：拒绝其他形状"},
    ),
]

"""Chapter 1's case builders and verdicts, shared by the public checks (``__init__.py``) and the
hidden ones (the instructor's, which only the course repository has): each check there is a
table of rows, each row one call of a builder here. Everything here runs in the grading
process; the programs that run next to the code under test are ``programs.py``.

A gradient case knows what a correct answer is and, when the answer is wrong, what the usual
wrong answers are: a verdict that recognises one of them names it ("x held 0.25 before and
_backward replaced it instead of adding to it: use +="), instead of stopping at "expected …,
received …". Graph walks are judged by what they cost as well as by their result: call
depth, reads of each Value's ``_prev``, ``==`` between Values and CPU time (``read_caps``).

The verdicts are declared: a step's values are ``Fields`` (``STEP_FIELDS``), every (condition →
words) table is ``rules`` (the usual wrong formulas, ``backward()``'s calls, the walks' budgets:
``BUDGET``, ``RECURSED``); one stays code, the order property of ``topological_order``.

What a case requires is a record here (``StepExpected``, ``ReadmeExpected``, ``Graph``); what
a program saw is one of ``programs.py``'s TypedDicts. Their fields are identifiers; the
verdicts name each thing as the student writes it ("x.grad", "x in out._prev").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...harness.api import Case, Verdict, all_numbers, compare, is_number, show
from ...harness.table import Field, Fields, first, rules, where
from . import programs

DEPTH_LIMIT = 50  # calls: an iterative walk stays a few deep, recursion goes as deep as the graph
SECONDS_LIMIT = 1.0  # CPU seconds for one graph walk: the reference needs about 0.05 s at most


def _same(a: float, b: float) -> bool:
    """Whether a received number is a known answer (right or wrong): equal to 1e-9, relative,
    or to 1e-12 near 0 (tighter than any verdict's tolerance, looser than rounding)."""
    return math.isfinite(a) and abs(a - b) <= 1e-9 * max(abs(a), abs(b)) + 1e-12


@dataclass(frozen=True)
class ReadmeExpected:
    """What micrograd's README example (``programs.readme``) requires: g's data and the
    gradients of a and b."""

    g_data: float
    a_grad: float
    b_grad: float


# micrograd's README example: g's data and the gradients of a and b, named as the student
# writes them
readme_verdict = Fields(
    [
        Field("g_data", "g.data", 1e-5, 1e-6),
        Field("a_grad", "a.grad", 1e-5, 1e-6),
        Field("b_grad", "b.grad", 1e-5, 1e-6),
    ]
)


# -- task 1.1: central_difference ----------------------------------------------------------


def central_case(label: str, fn: str, x: float, eps: float | None) -> Case:
    """``central_difference(f, x[, eps])`` with ``f = programs.FUNCTIONS[fn]``; expected:
    (f(x + ε) − f(x − ε)) / 2ε in float64, ε = 1e-6 unless given."""
    f, step = programs.FUNCTIONS[fn], 1e-6 if eps is None else eps
    expected = (f(x + step) - f(x - step)) / (2 * step)
    return Case(label, {"fn": fn, "x": x, "eps": eps}, expected)


def _central_facts(case: Case, got) -> Any:
    """The number against the central difference; where a number differs, the rows name it."""
    problem = compare(got, case.expected, rtol=EXACT[0], atol=EXACT[1])
    return {"problem": problem} if problem and is_number(got) else problem


# the usual wrong formulas of f'(x) from f, x and eps, and what each is
CENTRAL_MISTAKES = [
    (lambda f, x, h: (f(x + h) - f(x)) / h, "the forward difference (f(x + eps) − f(x)) / eps"),
    (lambda f, x, h: (f(x) - f(x - h)) / h, "the backward difference (f(x) − f(x − eps)) / eps"),
    (
        lambda f, x, h: (f(x + h) - f(x - h)) / h,
        "(f(x + eps) − f(x − eps)) / eps: the 2 in 2·eps is missing",
    ),
]
OTHER_EPS = [  # where the default eps is used
    (
        lambda f, x, h, e=e: (f(x + e) - f(x - e)) / (2 * e),
        f"the central difference with eps = {e:g}: the default must be 1e-6",
    )
    for e in (1e-3, 1e-4, 1e-5, 1e-7, 1e-8)
]


def _central_mistake(case: Case, got) -> str | None:
    """What the received number is, where it is one of the usual wrong formulas."""
    f, x, eps = programs.FUNCTIONS[case.inputs["fn"]], case.inputs["x"], case.inputs["eps"]
    for formula, what in CENTRAL_MISTAKES + OTHER_EPS * (eps is None):
        value = formula(f, x, 1e-6 if eps is None else eps)
        if _same(float(got), value) and not _same(value, case.expected):
            return what
    return None


central_verdict = rules(
    (_central_mistake, "{problem}: that is {0}"),
    (lambda case, got: True, "{problem}"),
    facts=_central_facts,
)


# -- tasks 1.2–1.6: one op's forward and local derivative ----------------------------------
#
# Each case is one chain-rule step by hand: inputs (some already holding a gradient, the
# presets), out = op(inputs), out.grad = g, out._backward(). Expected: out.data = f(inputs),
# and each input's grad = its preset + g · ∂f/∂input.


def _sigmoid(a: float) -> float:
    return 0.5 * (1 + math.tanh(a / 2))  # = 1 / (1 + e^-a), and never overflows


# op: the autograder's own function on floats, and its derivative
UNARY: dict[str, tuple[Callable[[float], float], Callable[[float], float]]] = {
    "exp": (math.exp, math.exp),
    "log": (math.log, lambda a: 1 / a),
    "tanh": (math.tanh, lambda a: 1 - math.tanh(a) ** 2),
    "sigmoid": (_sigmoid, lambda a: _sigmoid(a) * (1 - _sigmoid(a))),
    "relu": (lambda a: max(a, 0.0), lambda a: 1.0 if a > 0 else 0.0),  # relu'(0) = 0: PyTorch's
}

# op: its value, and its exact partial derivatives (linear and bilinear: no rounding)
BINARY: dict[str, tuple[Callable[[float, float], float], Callable]] = {
    "+": (lambda a, b: a + b, lambda a, b: (1.0, 1.0)),
    "*": (lambda a, b: a * b, lambda a, b: (b, a)),
}

EXACT = (1e-9, 1e-12)  # rtol, atol: the expectations are closed forms in float64

TASKS = {"+": "1.2", "*": "1.3", "exp": "1.5", "log": "1.5"}  # each op's task
TASKS |= dict.fromkeys(("tanh", "sigmoid", "relu"), "1.6")


def before(presets: dict[str, float]) -> str:
    """The presets as a label writes them: ``x.grad = 0.25; ``."""
    return "".join(f"{name}.grad = {value:g}; " for name, value in presets.items())


@dataclass(frozen=True)
class StepExpected:
    """What one chain-rule step (``programs._step``) requires: out is a Value holding
    ``out_data``, each input is one of out._prev, and each input's grad is ``grads[name]``
    (its preset + g · its local derivative), in the inputs' order (x, then y)."""

    out_data: float
    grads: dict[str, float]


def step_expected(value: float, local: dict[str, float], g: float, presets: dict) -> StepExpected:
    """What ``programs._step`` should see: ``out.data`` = ``value``, and each input's
    grad = its preset + g · its local derivative (``local``)."""
    grads = {name: presets.get(name, 0.0) + g * d for name, d in local.items()}
    return StepExpected(value, grads)


def _input(name: str) -> list[Field]:
    """What input ``name`` received: its grad, and whether it is one of out._prev."""
    return [
        Field(f"grads.{name}", f"{name}.grad", *EXACT),
        Field(
            f"in_prev.{name}",
            f"{name} in out._prev",
            expected=lambda case: True,
            says=f"out does not remember {name} as one of the Values it was made from, so "
            f"backward() can never reach {name}",
        ),
    ]


# a step's values, as the student names them: type(out), out.data, x's and then y's
STEP_FIELDS = Fields(
    [
        Field("type_name", "type(out)", expected=lambda case: "Value"),
        Field("out_data", "out.data", *EXACT),
        *_input("x"),
    ],
    then=where(lambda case: "y" in case.expected.grads, Fields(_input("y"))),
)


def unary_case(label: str, op: str, a: float, g: float, presets: dict[str, float]) -> Case:
    """``x = Value(a)`` holding its preset grad, ``out = x.op()``, ``out.grad = g``,
    ``out._backward()``."""
    f, d = UNARY[op]
    inputs = {"op": op, "a": a, "g": g, "presets": presets}
    if op in FAR_OUT and abs(a) >= 100:  # where a formula through exp overflows: named
        inputs["catch"] = True
    return Case(label, inputs, step_expected(f(a), {"x": d(a)}, g, presets))


# the ops whose value far out is a float though exp of the input is not (e^710 > 1.8e308):
# what they tend to, by the sign of x
FAR_OUT = {"tanh": ("−1", "1"), "sigmoid": ("0", "1")}


def _far_words(case: Case, got) -> dict[str, str]:
    op, a = case.inputs["op"], case.inputs["a"]
    limit = FAR_OUT[op][a > 0]
    if isinstance(got, dict) and got.get("error") == "OverflowError":
        why = (
            f"a number on the way is too large for a float (exp of a number above about 709 "
            f"is beyond 1.8e308), though {op}({a:g}) itself is {limit} to a float's precision: "
            "nothing on the way may overflow (§5)"
        )
    else:
        why = f"{op}(x) is a float for every x, {limit} this far out"
    return {"why": why}


# x.tanh() or x.sigmoid() far out: an error raised where the answer is a float
far_verdict = rules(
    (
        lambda case, got: isinstance(got, dict) and "raised_in" in got,
        "{got[raised_in]} raised {got[error]} ({got[message]}) at x = {case.inputs[a]:g}: {why}",
    ),
    facts=lambda case, got: _far_words(case, got) if case.inputs.get("catch") else {},
)


# -- task 1.4: x ** n, and the rule at a zero base (§4) --------------------------------------
#
# ∂(xⁿ)/∂x = n·xⁿ⁻¹, and 0 for n = 0 (x⁰ = 1 is a constant), x = 0 included. At x = 0 the
# formula gives 1 for n = 1 and 0 for n > 1; for the other n < 1 no number is right, and
# the Value raises as Python's floats do: x ** n itself for n < 0 (0ⁿ = 1/0⁻ⁿ), its
# _backward for 0 < n < 1 (0ⁿ = 0, an infinite slope). PyTorch gives inf there.

ZERO_BASE_ERRORS = ("ZeroDivisionError", "ValueError")  # Python's 0.0 ** -1; math.pow's


@dataclass(frozen=True)
class PowerRaises:
    """What ``x ** n`` at a zero base requires where no number is right: one of
    ``ZERO_BASE_ERRORS``, raised by ``raised_in``: "x ** n" (n < 0), or "out._backward()"
    (0 < n < 1) after x ** n gave ``out_data`` (0)."""

    raised_in: str
    out_data: float | None = None


def power_case(label: str, a: float, n: float, g: float, presets: dict[str, float]) -> Case:
    """``x ** n``: ∂out/∂x = n·xⁿ⁻¹, 0 for n = 0; at a zero base, an error where no number
    is right (``PowerRaises``), and the program returns what was raised (``catch``)."""
    inputs = {"a": a, "n": n, "g": g, "presets": presets, "catch": a == 0}
    if a == 0 and n < 0:
        return Case(label, inputs, PowerRaises("x ** n"))
    if a == 0 and 0 < n < 1:
        return Case(label, inputs, PowerRaises("out._backward()", 0.0))
    local = 0.0 if n == 0 else n * a ** (n - 1)
    return Case(label, inputs, step_expected(a**n, {"x": local}, g, presets))


def zero_base(n: float) -> str:
    """What ∂(xⁿ)/∂x is at x = 0, and why (§4)."""
    if n == 0:
        return (
            "x⁰ = 1 is a constant, so its local derivative is 0 everywhere, x = 0 included "
            "(as in PyTorch), though n·xⁿ⁻¹ = 0·0⁻¹ divides by zero there: when n = 0, add "
            "nothing to x.grad"
        )
    if n == 1:
        return "n·0ⁿ⁻¹ = 1·0⁰ = 1 (x¹ = x has slope 1 everywhere; Python's 0.0 ** 0 is 1.0)"
    if n > 1:
        return f"n·0ⁿ⁻¹ = {n:g}·0^{n - 1:g} = 0"
    if n > 0:
        return f"0^{n:g} = 0, but its slope n·0ⁿ⁻¹ = {n:g}·0^{n - 1:g} is infinite"
    return f"0^{n:g} = 1/0{'' if n == -1 else f'^{-n:g}'} divides by zero"


def binary_case(
    label: str, op: str, form: programs.Form, a: float, b, g: float, presets: dict
) -> Case:
    """One of ``programs.binary``'s forms (``programs.Form``): "values" and "preset grads"
    (x op y), "number right" (x op b), "number left" (b op x), "same value" (x op x)."""
    f, d = BINARY[op]
    if form == "same value":
        value, local = f(a, a), {"x": sum(d(a, a))}
    elif form == "number right":
        value, local = f(a, b), {"x": d(a, b)[0]}
    elif form == "number left":
        value, local = f(b, a), {"x": d(b, a)[1]}
    else:
        value, local = f(a, b), dict(zip("xy", d(a, b)))
    inputs = {"op": op, "form": form, "a": a, "b": b, "g": g, "presets": presets}
    return Case(label, inputs, step_expected(value, local, g, presets))


# the words that name each usual wrong grad of an input ({name}), and its formula from the
# input's preset p, the upstream g and its local derivative d (the right grad: p + g·d)
STEP_MISTAKES = {
    "{name} held {p:g} before and _backward replaced it instead of adding to it: use += "
    "(a Value used twice needs both contributions, §8)": lambda p, g, d: g * d,
    "the upstream gradient out.grad = {g:g} is missing: the chain rule multiplies the local "
    "derivative by it": lambda p, g, d: p + d,
    "{name} held {p:g} before, and both the upstream gradient out.grad = {g:g} and += are "
    "missing": lambda p, g, d: d,
    "the sign is flipped: the local derivative enters with a minus": lambda p, g, d: p - g * d,
    "nothing was added: out._backward() did not change {name}.grad (is _backward set on out, "
    "and does it add to {name}.grad?)": lambda p, g, d: p,
}
SAME_VALUE = {  # x op x
    "{name} is both inputs of out, and the second contribution replaced the first instead of "
    "adding to it: use += (§8)": lambda p, g, d: p + g * d / 2,
}


# op: the usual wrong local derivatives, as (what went wrong, the wrong derivative at a)
WRONG_LOCALS: dict[str, list[tuple[str, Callable[[float], float]]]] = {
    "log": [
        ("log(x) instead of 1/x", math.log),
        (
            "1/log(x), one over out.data, instead of 1/x: one over the input",
            lambda a: 1 / math.log(a),
        ),
    ],
    "tanh": [
        ("1 − tanh(x) instead of 1 − tanh²(x)", lambda a: 1 - math.tanh(a)),
        ("tanh(x) instead of 1 − tanh²(x)", math.tanh),
    ],
    "sigmoid": [
        ("σ(x) instead of σ(x)(1 − σ(x))", _sigmoid),
        ("1 − σ(x) instead of σ(x)(1 − σ(x))", lambda a: 1 - _sigmoid(a)),
    ],
    "relu": [
        (
            "1 where x < 0: relu passes the gradient only where x > 0",
            lambda a: 1.0 if a < 0 else math.nan,
        ),
        ("1 at the kink: relu'(0) is 0, as in PyTorch (§5)", lambda a: 1.0 if a == 0 else math.nan),
        ("x instead of 0 or 1: relu'(x) is a step, not relu itself", lambda a: max(a, 0.0)),
    ],
}


def _wrong_locals(inputs: dict) -> dict[str, list[tuple[str, float]]]:
    """Per input name, the usual wrong local derivatives for this case's op and values."""
    a = inputs["a"]
    if "n" in inputs:  # x ** n
        n = inputs["n"]
        wrong = [
            (f"xⁿ⁻¹ without the factor n = {n:g}", lambda: a ** (n - 1)),
            ("n·xⁿ: the exponent must drop by one (n·xⁿ⁻¹)", lambda: n * a**n),
        ]
    elif inputs["op"] == "*" and inputs["form"] in ("values", "preset grads"):
        rule = "∂(x·y)/∂x = y and ∂(x·y)/∂y = x"
        return {
            "x": [(f"x's own data instead of y's: {rule}", a)],
            "y": [(f"y's own data instead of x's: {rule}", inputs["b"])],
        }
    elif inputs["op"] in WRONG_LOCALS:
        wrong = [(what, lambda d=d: d(a)) for what, d in WRONG_LOCALS[inputs["op"]]]
    else:
        return {}
    values = []
    for what, d in wrong:
        try:
            values.append((what, float(d())))
        except (ArithmeticError, ValueError):
            continue
    return {"x": values}


def _zero_guard(inputs: dict, d: float) -> dict[str, Callable]:
    """x ** n at x = 0 where the local derivative d is not 0 (n = 1): the words for 0, a
    guard that skips a zero base."""
    if "n" not in inputs or inputs["a"] != 0 or d == 0:
        return {}
    words = (
        f"the local derivative of x ** {inputs['n']:g} at x = 0 is {zero_base(inputs['n'])}, "
        "not 0: compute n·xⁿ⁻¹, with no guard for a zero base (§4)"
    )
    return {words: lambda p, g, d: p}


def _mistake(case: Case, got) -> tuple | None:
    """The first input whose grad is one of its usual wrong ones (``STEP_MISTAKES``, a Value
    used twice, the op's wrong local derivatives): (name.grad, right, received, the words)."""
    g, grads = case.inputs["g"], got.get("grads")
    for name, right in case.expected.grads.items():
        r = grads.get(name) if isinstance(grads, Mapping) else None
        if not is_number(r) or _same(r := float(r), right):
            continue
        p = case.inputs["presets"].get(name, 0.0)
        rows = _zero_guard(case.inputs, (right - p) / g)  # before "nothing was added"
        rows |= STEP_MISTAKES | (SAME_VALUE if case.inputs.get("form") == "same value" else {})
        for what, w in _wrong_locals(case.inputs).get(name, []):
            rows[f"the local derivative is {what}"] = lambda p, g, d, w=w: p + g * w
        for words, wrong in rows.items():
            value = wrong(p, g, (right - p) / g)
            if _same(r, value) and not _same(value, right):
                return f"{name}.grad", show(right), show(r), words.format(name=name, p=p, g=g)
    return None


def _imprecise(case: Case, got) -> tuple | None:
    """The first number right to float32's precision but not float64's, with every digit (a
    report's 8 significant digits would show two equal numbers): name, right, received, error."""
    grads = got.get("grads") if isinstance(got.get("grads"), Mapping) else {}
    numbers = {"out.data": (got.get("out_data"), case.expected.out_data)}
    numbers |= {f"{n}.grad": (grads.get(n), right) for n, right in case.expected.grads.items()}
    for name, (r, right) in numbers.items():
        if not is_number(r) or not math.isfinite(r := float(r)) or r == right:
            continue
        error = abs(r - right) / max(abs(right), 1e-300)
        if error < 1e-6:
            return name, right, r, error
    return None


def _step_facts(case: Case, got) -> Any:
    """The step's values against ``STEP_FIELDS``; a difference the rows may name (g ≠ 0)."""
    problem = STEP_FIELDS(case, got)
    return (
        {"problem": problem} if problem and isinstance(got, dict) and case.inputs["g"] else problem
    )


# one chain-rule step: its values (STEP_FIELDS), a wrong grad named where it is a usual mistake
step_verdict = rules(
    (_mistake, "{0}: expected {1}, received {2}: {3}"),
    (
        _imprecise,
        "{0}: expected {1!r}, received {2!r}, off by {3:.1e} relative, far more than float64's "
        "rounding (about 1e-16): float32's rounding (about 6e-8) or an approximation does "
        "this. Compute exactly, with Python floats",
    ),
    (lambda case, got: True, "{problem}"),
    facts=_step_facts,
)

# a unary op's step: an error far out named (``far_verdict``), then the step's values
unary_verdict = first(far_verdict, step_verdict)


def _power_facts(case: Case, got) -> Any:
    """The case as the words name it, and what the program met: a raise, or a step."""
    if not isinstance(got, Mapping):
        return f"expected a record, received {show(got)}"
    n = case.inputs["n"]
    grads = got.get("grads") if isinstance(got.get("grads"), Mapping) else {}
    received = got.get("out_data") if got.get("type_name", "Value") == "Value" else None
    return {
        "base": f"x ** {n:g} at x = 0",
        "why": zero_base(n),
        "n": f"{n:g}",
        "slope": f"{n - 1:g}",
        "fix": "" if n == 0 else ": compute n·xⁿ⁻¹ itself, which never divides by x",
        "out": show(received) if received is not None else f"a {got.get('type_name')}",
        "grad": show(grads.get("x")),
    }


def _raised_in(case: Case, got) -> str | None:
    return got.get("raised_in")


def _raises_as_due(case: Case, got) -> bool:
    return _raised_in(case, got) == case.expected.raised_in and got["error"] in ZERO_BASE_ERRORS


# x ** n at a zero base: an error where no number is right (``PowerRaises``), a number and no
# error elsewhere; then the step's values (``step_verdict``)
power_verdict = first(
    where(
        lambda case: isinstance(case.expected, StepExpected),
        first(
            rules(
                (
                    _raised_in,
                    "{base}: {got[raised_in]} raised {got[error]} ({got[message]}), but a "
                    "number is right here: {why}{fix} (§4)",
                ),
                facts=_power_facts,
            ),
            step_verdict,
        ),
    ),
    where(
        lambda case: isinstance(case.expected, PowerRaises),
        rules(
            (
                lambda case, got: (
                    _raises_as_due(case, got)
                    and case.expected.out_data is not None
                    and not (is_number(got.get("out_data")) and _same(got["out_data"], 0.0))
                    and (show(got.get("out_data")),)
                ),
                "{base}: out.data: expected 0, received {0}: 0^{n} = 0",
            ),
            (_raises_as_due, None),
            (
                lambda case, got: got.get("type_name", "Value") != "Value",
                "{base}: type(out): expected Value, received {got[type_name]}",
            ),
            (
                lambda case, got: (
                    _raised_in(case, got) == "x ** n" and case.expected.raised_in != "x ** n"
                ),
                "{base}: x ** n raised {got[error]} ({got[message]}), but 0^{n} = 0 is a number "
                "(Python's 0.0 ** {n} is 0.0); only its slope n·0ⁿ⁻¹ is infinite, so the error "
                "belongs in out._backward(): compute the slope inside _backward (§4)",
            ),
            (
                lambda case, got: _raised_in(case, got) == case.expected.raised_in,
                "{base}: {got[raised_in]} raised {got[error]} ({got[message]}): {why}, and it "
                "must raise ZeroDivisionError, as Python's floats do (math.pow: ValueError; §4)",
            ),
            (
                lambda case, got: case.expected.raised_in == "x ** n",
                "{base} gave out.data = {out} instead of raising ZeroDivisionError: {why}, so "
                "no number is right. Raise, as Python's 0.0 ** {n} does, so that "
                "Value(1) / Value(0) raises as 1 / 0 does (PyTorch gives inf; §4)",
            ),
            (
                lambda case, got: True,
                "{base}: out._backward() gave x.grad = {grad} instead of raising "
                "ZeroDivisionError: {why}, so no number is right. Let n·xⁿ⁻¹ raise, as "
                "Python's 0.0 ** {slope} does (PyTorch gives inf; §4): a guard or an except "
                "that gives a number hides it",
            ),
            facts=_power_facts,
        ),
    ),
)


# -- tasks 1.7 and 1.8: graphs ---------------------------------------------------------------


@dataclass(frozen=True)
class Graph:
    """A DAG as ``programs.build`` builds it: node i's inputs are ``inputs[i]`` (all smaller
    indices); ``root`` is the node the call starts from; ``names``, where given, are what the
    case's label calls the nodes (a diamond's a–d), and messages use them."""

    inputs: list[list[int]]
    root: int
    names: tuple[str, ...] = ()

    def name(self, node: int) -> str:
        return self.names[node] if self.names else f"node {node}"


def chain(n: int) -> list[list[int]]:
    """n Values, each computed from the one before."""
    return [[]] + [[i - 1] for i in range(1, n)]


def random_dag(rng: np.random.Generator, n: int, most: int = 3) -> list[list[int]]:
    """n Values, each computed from up to ``most`` random earlier ones."""
    graph: list[list[int]] = [[]]
    for i in range(1, n):
        k = int(rng.integers(0, min(i, most) + 1))
        graph.append(sorted({int(j) for j in rng.integers(0, i, size=k)}))
    return graph


def ladder(n: int) -> list[list[int]]:
    """Each Value computed from the two before it: Fibonacci-many paths to the first."""
    return [[], [0]] + [[i - 2, i - 1] for i in range(2, n)]


def squarings(steps: int) -> list[list[int]]:
    """``x = (x + 1) * x``, ``steps`` times, from a leaf x (each 1 its own leaf): 2^steps
    paths from the root to the first x, 3·steps + 1 Values."""
    graph: list[list[int]] = [[]]
    x = 0
    for _ in range(steps):
        graph.append([])  # the constant 1
        graph.append([x, len(graph) - 1])  # x + 1
        graph.append([len(graph) - 1, x])  # (x + 1) * x
        x = len(graph) - 1
    return graph


def squared(steps: int) -> Graph:
    """``squarings(steps)`` rooted at its last x, its first x named for messages."""
    inputs = squarings(steps)
    names = ("the first x", *(f"node {i}" for i in range(1, len(inputs))))
    return Graph(inputs, len(inputs) - 1, names)


def tree(depth: int) -> list[list[int]]:
    """A complete binary tree, leaves first: every Value has two inputs of its own."""
    graph: list[list[int]] = []
    level = []
    for _ in range(2**depth):
        level.append(len(graph))
        graph.append([])
    while len(level) > 1:
        level_up = []
        for left, right in zip(level[::2], level[1::2]):
            level_up.append(len(graph))
            graph.append([left, right])
        level = level_up
    return graph


def fan(width: int) -> list[list[int]]:
    """Two leaves, ``width`` Values that each use both, and a root that uses them all."""
    return [[], []] + [[0, 1]] * width + [list(range(2, width + 2))]


def shared_chain(n: int) -> list[list[int]]:
    """A chain in which every Value also uses the first leaf."""
    return [[], [0]] + [[0, i - 1] for i in range(2, n)]


def whole(inputs: list[list[int]]) -> Graph:
    """The graph with its last Value as the root."""
    return Graph(inputs, len(inputs) - 1)


def reachable(graph: Graph) -> set[int]:
    seen, stack = {graph.root}, [graph.root]
    while stack:
        for child in graph.inputs[stack.pop()]:
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return seen


def read_caps(graph: Graph, times: int = 1) -> dict:
    """What a walk may spend before the program stops it (``programs.build``): reads of each
    node's ``_prev``, and ``==`` between Values. A linear walk reads a node's ``_prev`` a few
    times per use of it, so (2 + users + inputs)² leaves room for any of them, while a walk
    without a visited set reads it once per path from the root, which doubles with each
    ``x = (x + 1) * x``; and it needs no ``==`` (a set finds a Value by its hash), while
    ``x in a_list`` compares x with each element."""
    users = [0] * len(graph.inputs)
    for children in graph.inputs:
        for child in children:
            users[child] += 1
    caps = [times * (2 + u + len(k)) ** 2 for u, k in zip(users, graph.inputs)]
    edges = sum(users)
    return {"caps": caps, "compares": times * (2 * (len(caps) + edges) + 100)}


def topo_case(label: str, graph: Graph) -> Case:
    """``topological_order(root)``; judged as a property by ``topo_verdict``."""
    inputs = {"graph": graph.inputs, "root": graph.root, **read_caps(graph)}
    return Case(f"topological_order(root) on {label}", inputs, graph)


# why a walk was stopped (``read_caps``), or that it took too long
BUDGET = (
    (
        lambda case, got: (s := got.get("stopped")) and s["what"] == "==" and (s["count"],),
        "{what} compared Values with == more than {0:,} times on {size}, and was stopped "
        "there: `x in a_list` compares x with every element, so a walk that keeps its "
        "visited Values in a list costs n² on n Values (a chain of 20,000 takes seconds). "
        "Keep them in a set, which finds a Value at once (§6).",
    ),
    (
        lambda case, got: (s := got.get("stopped")) and (s["count"], case.expected.name(s["node"])),
        "{what} read {1}'s _prev more than {0:,} times on {size}, and was stopped there: {cure}",
    ),
    (
        lambda case, got: got.get("seconds", 0.0) > SECONDS_LIMIT and (got["seconds"],),
        "{what} took {0:.1f} CPU seconds on {size} (a linear walk takes well under "
        f"{SECONDS_LIMIT:g}): something in it costs more than constant time per Value, such "
        "as list.insert(0, …) or list.pop(0) (append, pop from the end, and reverse once)",
    ),
)

# that a walk recursed (or hid how deep it went)
RECURSED = (
    (
        lambda case, got: got["depth"] < 0,
        "{what} switched off the grader's call-depth measurement (sys.settrace), so the "
        "check cannot tell an iterative walk from a recursive one",
    ),
    (
        lambda case, got: not got["depth"] <= DEPTH_LIMIT,
        f"{{what}} went more than {DEPTH_LIMIT} calls deep: it recurses, once per node. "
        "Walk the graph with an explicit stack instead (§6).",
    ),
)


def walk(what: str, *rows: tuple, cure: str = "") -> Verdict:
    """``rules`` of a graph walk: "{what}" the function, "{size}" the graph, "{cure}"."""
    size = lambda case: f"a graph of {len(case.expected.inputs):,} Values"
    return rules(*rows, facts=lambda case, got: {"what": what, "size": size(case), "cure": cure})


EXPANDS_PER_PATH = (
    "it expands a Value once for every path from the root to it, and the number of paths "
    "doubles with each `x = (x + 1) * x`. Mark each Value as visited (a set) when it is "
    "first expanded, and never expand it again (§6)."
)


def _order(case: Case, got) -> str | None:
    # code, not a table: a property of an order (each Value once, inputs first, root last),
    # found by walking it; the words say where it fails
    graph, order = case.expected, got["order"]
    if -1 in order:
        return "the list holds something that is not one of the graph's Values"
    position: dict[int, int] = {}
    for i, node in enumerate(order):
        if node in position:
            return _twice(graph, node)
        position[node] = i
    reach = reachable(graph)
    if missing := sorted(reach - position.keys()):
        return _missing(graph, order, missing)
    if extra := sorted(position.keys() - reach):
        return f"{graph.name(extra[0])} is in the list but cannot be reached from the root"
    if wrong := _user_first(graph, reach, position):
        return _before_input(graph, reach, position, wrong)
    if order[-1] != graph.root:
        return (
            f"the root ({graph.name(graph.root)}) must come last, "
            f"it is at position {position[graph.root]}"
        )
    return None


def _before_input(graph: Graph, reach: set[int], position: dict, wrong: tuple) -> str:
    problem = f"{graph.name(wrong[0])} comes before its input {graph.name(wrong[1])}"
    reverse = {node: len(position) - 1 - i for node, i in position.items()}
    if _user_first(graph, reach, reverse) is None:
        return (
            f"{problem}: the list is reversed, the root first; topological_order lists "
            "inputs first and the root last (backward() walks it in reverse, §7)"
        )
    return f"{problem}: inputs must come first"


def _missing(graph: Graph, order: list[int], missing: list[int]) -> str:
    first = graph.name(missing[0])
    problem = (
        f"{len(missing)} Values reachable from the root are missing, e.g. {first}"
        if missing[1:]
        else f"{first} is missing, though it can be reached from the root"
    )
    data = [programs.node_data(n) for n in order]
    lost = programs.node_data(missing[0])
    if lost in data and len(set(data)) == len(data):  # one Value per number: keyed by data
        problem += (
            f"; it holds the same number as {graph.name(order[data.index(lost)])}, yet it is "
            "another Value: tell Values apart by identity (a set of Values), never by their data"
        )
    return problem


# a property, not a value: every reachable node once, inputs before users, root last; within
# the call-depth, _prev-read and CPU budgets
topo_verdict = first(
    walk(
        "topological_order",
        (
            lambda case, got: (not isinstance(got, dict) or "order" not in got) and (show(got),),
            "expected a list of Values, received {0}",
        ),
        *BUDGET,
        (
            lambda case, got: not isinstance(got["order"], list) and (show(got["order"]),),
            "expected a list of Values, received {0}",
        ),
        cure=EXPANDS_PER_PATH,
    ),
    _order,
    walk("topological_order", *RECURSED),
)


def _twice(graph: Graph, node: int) -> str:
    problem = f"{graph.name(node)} appears twice (each Value must appear exactly once)"
    reach = reachable(graph)
    users = [graph.name(u) for u in sorted(reach) if node in graph.inputs[u]]
    if len(users) > 1:
        problem += (
            f": it is used by {' and '.join(users[:2])}, so a walk reaches it twice; mark "
            "each Value as visited the first time and skip it after (§6)"
        )
    return problem


def _user_first(graph: Graph, reach: set[int], position: dict) -> tuple[int, int] | None:
    """A reachable node listed before one of its inputs, as (node, input), or None."""
    for node in sorted(reach):
        for child in graph.inputs[node]:
            if position[child] > position[node]:
                return node, child
    return None


def random_weights(rng: np.random.Generator, graph: Graph, kind: str) -> list[list[float]]:
    """One local derivative per edge, rounded to 3 decimals: "unit" ±1 (exact sums on graphs
    with many paths), "small" ±[0.2, 0.6] (gradients stay small), "any" in [-2, 2]."""
    sizes = [len(children) for children in graph.inputs]
    edges = sum(sizes)
    if kind == "unit":
        flat = rng.choice([-1.0, 1.0], edges)
    elif kind == "small":
        flat = rng.choice([-1.0, 1.0], edges) * rng.uniform(0.2, 0.6, edges)
    else:
        flat = rng.uniform(-2, 2, edges)
    flat = flat.round(3)
    ends = np.cumsum(sizes).tolist()
    return [flat[end - size : end].tolist() for size, end in zip(sizes, ends)]


def simulate(
    graph: Graph, weights, preset: float, times: int, *, seed: str = "set", order: int = -1
) -> list:
    """micrograd's backward, ``times`` times, as plain floats: the root's grad is set to 1,
    then each node, in a reverse topological order (inputs have smaller indices), adds
    w · its grad to each input's grad. Two known mistakes: ``seed="add"`` adds 1 to the
    root's grad, ``order=1`` runs the nodes inputs first."""
    grads = [preset] + [0.0] * (len(graph.inputs) - 1)
    nodes = range(graph.root, -1, -1) if order == -1 else range(graph.root + 1)
    for _ in range(times):
        grads[graph.root] = 1.0 if seed == "set" else grads[graph.root] + 1.0
        for node in nodes:
            for child, w in zip(graph.inputs[node], weights[node]):
                grads[child] += w * grads[node]
    return grads


def backward_case(label: str, graph: Graph, weights, preset: float, times: int) -> Case:
    """``root.backward()``, ``times`` times, on ``graph`` with the autograder's own local
    derivatives (``weights``), node 0 holding ``preset`` first; expected: ``simulate``."""
    inputs = {
        "graph": graph.inputs,
        "weights": weights,
        "root": graph.root,
        "preset": preset,
        "times": times,
        **read_caps(graph, times),
    }
    call = "root.backward()" + {1: "", 2: " twice"}.get(times, f" {times} times")
    return Case(f"{call} on {label}", inputs, graph)


WALKS_AGAIN = (
    "backward() walks the graph more than once per call. Call topological_order(self) once "
    "and run each Value's _backward once, in reverse order (§7)."
)


def _ran_wrong(case: Case, got) -> tuple | None:
    """A reachable Value whose _backward did not run once per call (a leaf's: at most once):
    its name, how often it ran, in how many calls."""
    graph, times = case.expected, case.inputs["times"]
    for node in sorted(reachable(graph), reverse=True):
        ran = got["calls"][node]
        if (graph.inputs[node] and ran != times) or ran > times:
            return graph.name(node), ran, times, "calls" if times > 1 else "call"
    return None


def _ran_unreached(case: Case, got) -> tuple | None:
    """A Value the root cannot reach whose _backward ran: its name."""
    reach = reachable(case.expected)
    ran = (node for node, ran in enumerate(got["calls"]) if ran and node not in reach)
    return next(((case.expected.name(node),) for node in ran), None)


def _grads(case: Case, got) -> Any:
    """The grads against ``simulate``'s: where they differ as numbers, the rows name it."""
    expected = simulate(case.expected, case.inputs["weights"], **_run(case))
    problem = compare(got["grads"], expected, rtol=1e-9, atol=1e-9, path="grad of node")
    if problem is None or not all_numbers(got["grads"]) or len(got["grads"]) != len(expected):
        return problem
    root = show(got["grads"][case.expected.root])
    return {"problem": problem, "expected": expected, "root": root, "node0": case.expected.name(0)}


def _run(case: Case) -> dict:
    return {"preset": case.inputs["preset"], "times": case.inputs["times"]}


def _grads_of(applies: Callable[..., Any], **wrong: Any) -> Callable:
    """when: ``applies(preset, times)`` and the grads are ``simulate``'s with ``wrong`` (a
    preset, a number of calls or a mistake other than the case's)."""

    def when(case: Case, got) -> bool:
        run = _run(case)
        if not applies(**run):
            return False
        return all(
            map(_same, got["grads"], simulate(case.expected, case.inputs["weights"], **run | wrong))
        )

    return when


def _unseeded(case: Case, got) -> bool:
    """Whether no grad but the root's changed."""
    root, preset = case.expected.root, case.inputs["preset"]
    return all(map(_same, got["grads"][:root], [preset] + [0.0] * root))


def _named(case: Case, got) -> tuple | None:
    """The first Value of a graph with names whose grad differs: name, expected, received."""
    expected = simulate(case.expected, case.inputs["weights"], **_run(case))
    close = lambda r, e: abs(r - e) <= 1e-9 + 1e-9 * abs(e)
    i = next(i for i, (r, e) in enumerate(zip(got["grads"], expected)) if not close(r, e))
    return case.expected.names and (case.expected.name(i), show(expected[i]), show(got["grads"][i]))


# each node's _backward ran once per call (leaves: at most once), grads as simulate's and the
# usual wrong backward() named; within the call-depth, _prev-read and CPU budgets
backward_verdict = first(
    walk(
        "backward()",
        (
            lambda case, got: (not isinstance(got, dict) or "depth" not in got) and (show(got),),
            "expected the grads, received {0}",
        ),
        *BUDGET,
        *RECURSED,
        (
            _ran_wrong,
            "{0}'s _backward ran {1} times in {2} backward() {3}: each "
            "Value's _backward must run exactly once per call, after every Value that uses it",
        ),
        (
            _ran_unreached,
            "{0} cannot be reached from the root, yet its _backward ran: backward() must visit "
            "only the Values its root was computed from",
        ),
        cure=WALKS_AGAIN,
    ),
    rules(
        (
            _grads_of(lambda preset, times: preset and times == 1, preset=0.0),
            "{node0} held {case.inputs[preset]:g} before backward() and lost it: backward() "
            "adds to the grads it finds (clearing them is zero_grad's job, not backward's)",
        ),
        (
            _grads_of(lambda preset, times: times > 1, seed="add"),
            "after {case.inputs[times]} calls the root's grad is {root}: backward() must set the "
            "root's grad to 1 (∂root/∂root), not add 1 to it",
        ),
        (
            _grads_of(lambda preset, times: times > 1, times=1),
            "after {case.inputs[times]} calls the grads are those of one call: backward() must "
            "add to the grads (a second call accumulates), not reset them",
        ),
        (
            _grads_of(lambda preset, times: True, order=1),
            "the _backward calls ran inputs first: a Value must pass its gradient on only after "
            "every Value that uses it has added its share: from the root back to the leaves, "
            "the topological order reversed (§7)",
        ),
        (
            _unseeded,
            "the root's grad is {root} and no other grad changed: backward() must set the "
            "root's grad to 1 first, then run each _backward",
        ),
        (_named, "{0}.grad: expected {1}, received {2}"),
        (lambda case, got: True, "{problem}"),
        facts=_grads,
    ),
)


def backward_rows(
    rng: np.random.Generator, rows: Sequence[tuple[str, Graph, str, float, int]]
) -> list[Case]:
    """``backward_case`` for each (label, graph, weight kind, preset, times) row."""
    return [
        backward_case(label, graph, random_weights(rng, graph, kind), preset, times)
        for label, graph, kind, preset, times in rows
    ]

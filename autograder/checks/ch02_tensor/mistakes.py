"""Chapter 2's known mistakes, named in a report (issue 29: the first stage of help says what
went wrong, not how to write it): the wrong local gradients students write, each as the
formula it computes (in the parent, from the case's own inputs) and the words that name it;
and the shapes a wrong backward returns. (Why a backward raised, where the case tells, is
added to the error's message in the child: ``programs.why_raised``, so that the report keeps
its "raised at" lines.)

Each formula gets the case's operands as the child views them (``Operands``: a, b, the
upstream gradient g, the options) and returns the wrong gradient of one input, or None where
the mistake does not apply. A formula that equals the right gradient on a case never names
anything there: a mistake is only named where the received value differs from the right one
and equals the formula's."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...harness.api import Case
from ...harness.gradcheck import sum_to
from ...harness.table import Mistake
from .programs import VIEWS, _index


@dataclass(frozen=True)
class Operands:
    """One op case's inputs as the child views them, in float64: a, b (an array, or a
    number), the upstream gradient g and the op's options (in their wire form)."""

    a: Any
    b: Any
    g: np.ndarray
    options: dict


def operands(case: Case) -> Operands:
    values = []
    for arg in case.inputs["args"]:
        if "number" in arg:
            values.append(np.float64(arg["number"]))
        else:
            values.append(VIEWS[arg["view"]](np.asarray(arg["data"], dtype=np.float64)))
    values += [None] * (2 - len(values))
    g = np.asarray(case.inputs["upstream"], dtype=np.float64)
    return Operands(values[0], values[1], g, case.inputs["options"])


def _kept(o: Operands) -> np.ndarray:
    """g with the axes a reduction removed put back as size 1 (keepdim=False)."""
    a, dim = np.asarray(o.a), o.options.get("dim")
    axes = tuple(range(a.ndim)) if dim is None else (dim if isinstance(dim, list) else [dim])
    axes = tuple(d % a.ndim for d in axes) if a.ndim else ()
    if o.options.get("keepdim") or not axes:
        return o.g.reshape([1] * a.ndim) if dim is None and a.ndim else o.g
    return np.expand_dims(o.g, axes)


def _full_max_ties(o: Operands) -> np.ndarray | None:
    if o.options.get("dim") is not None:
        return None
    winners = np.asarray(o.a == np.max(o.a), dtype=float)
    return o.g * winners if winners.sum() > 1 else None


def _split_tie_along_dim(o: Operands) -> np.ndarray | None:
    dim = o.options.get("dim")
    if dim is None or np.ndim(o.a) == 0:
        return None
    top = np.max(o.a, axis=dim, keepdims=True)
    winners = o.a == top
    return _kept(o) * winners / winners.sum(axis=dim, keepdims=True)


def _assigned(o: Operands) -> np.ndarray:
    out = np.zeros(np.shape(o.a))
    out[_index(o.options["index"])] = o.g  # the last of repeated picks wins
    return out


def _quiet(f: Callable[[], Any]) -> Any:
    with np.errstate(all="ignore"):
        return f()


def _exp_over(x: np.ndarray) -> np.ndarray:
    return np.exp(x)


# (op, input): [(the wrong gradient from the operands, the words that name the mistake)]
WRONG: dict[tuple[str, str], list[tuple[Callable[[Operands], Any], str]]] = {
    ("sub", "b"): [
        (
            lambda o: o.g,
            "b received grad_output as it is: b enters a − b with a minus sign, so its gradient "
            "has the opposite sign",
        )
    ],
    ("neg", "a"): [
        (
            lambda o: o.g,
            "−a passed grad_output on unchanged: negation flips the sign of the gradient too",
        )
    ],
    ("mul", "a"): [(lambda o: o.g * o.a, "a's gradient was computed from a itself: ∂(a·b)/∂a = b")],
    ("mul", "b"): [(lambda o: o.g * o.b, "b's gradient was computed from b itself: ∂(a·b)/∂b = a")],
    ("div", "a"): [(lambda o: o.g * o.b, "∂(a/b)/∂a is 1/b, not b")],
    ("div", "b"): [
        (lambda o: -o.g * o.a / o.b, "b is not squared: ∂(a/b)/∂b = −a/b², not −a/b"),
        (lambda o: o.g * o.a / (o.b * o.b), "the minus sign is missing: ∂(a/b)/∂b = −a/b²"),
    ],
    ("pow", "a"): [
        (
            lambda o: o.g * o.a ** (o.options["exponent"] - 1) if o.options["exponent"] else None,
            "aⁿ⁻¹ without the factor n in front",
        ),
        (
            lambda o: o.g * 0 * o.a**-1.0 if o.options["exponent"] == 0 else None,
            "0·a⁻¹ is nan at a = 0 (0 times infinity): a⁰ = 1 is a constant, so its gradient is "
            "0 everywhere, a = 0 included",
        ),
        (
            lambda o: o.g * o.options["exponent"] * o.a ** o.options["exponent"] / o.a,
            "n·aⁿ/a divides by a, which is 0 here, and gives nan where n·aⁿ⁻¹ is a number",
        ),
    ],
    ("sqrt", "a"): [(lambda o: o.g / np.sqrt(o.a), "1/√a instead of 1/(2√a): the 2 is missing")],
    ("log", "a"): [(lambda o: o.g / np.log(o.a), "1/log(a) instead of 1/a")],
    ("tanh", "a"): [
        (lambda o: o.g * (1 - np.tanh(o.a)), "1 − tanh(a) instead of 1 − tanh²(a)"),
        (lambda o: o.g * np.tanh(o.a), "tanh(a) instead of 1 − tanh²(a)"),
    ],
    ("sigmoid", "a"): [
        (
            lambda o: o.g * (e := _exp_over(-o.a)) / ((1 + e) * (1 + e)),
            "σ′ was computed through exp(−a), which overflows to inf where a is very negative "
            "(exp(800)), and inf / inf is nan, where σ′ is 0",
        ),
        (
            lambda o: o.g * (e := _exp_over(o.a)) / ((1 + e) * (1 + e)),
            "σ′ was computed through exp(a), which overflows to inf where a is very large "
            "(exp(800)), and inf / inf is nan, where σ′ is 0",
        ),
        (
            lambda o: o.g * 0.5 * (1 + np.tanh(o.a / 2)),
            "σ(a) instead of σ(a)(1 − σ(a))",
        ),
    ],
    ("relu", "a"): [
        (
            lambda o: o.g,
            "the gradient passed where a < 0: relu passes it only where a > 0",
        ),
        (
            lambda o: o.g * (o.a >= 0),
            "the gradient passed where a = 0: relu'(0) is 0 at every kink, as in PyTorch",
        ),
    ],
    ("abs", "a"): [
        (
            lambda o: o.g * np.where(o.a >= 0, 1.0, -1.0),
            "the gradient passed where a = 0: |a|'(0) is 0 at every kink, as in PyTorch",
        ),
    ],
    ("mean", "a"): [
        (
            lambda o: _kept(o) * np.ones(np.shape(o.a)),
            "the mean's gradient is not divided by the number of elements averaged",
        )
    ],
    ("max", "a"): [
        (
            _full_max_ties,
            "each tied maximum received the whole gradient: a full max() shares it equally "
            "among its ties",
        ),
        (
            _split_tie_along_dim,
            "a tie along dim was shared out: along a dim the gradient goes only to the index "
            "max returned (the first of a tie), as in PyTorch; only a full max() shares ties",
        ),
    ],
    ("getitem", "a"): [
        (
            _assigned,
            "an element picked more than once received only one of its gradients: the "
            "gradients of repeated picks add up",
        )
    ],
}


def _formula(op: str, name: str, f: Callable[[Operands], Any]) -> Callable[[Case], Any]:
    """The wrong gradient of input ``name`` for a case of ``op`` (a ``Local`` case: its
    expected value names the input), summed onto the input's shape where it broadcast."""

    def wrong(case: Case) -> Any:
        if case.inputs["name"] != op or case.expected.name != name:
            return None
        value = _quiet(lambda: f(operands(case)))
        if value is None:
            return None
        value, want = np.asarray(value, dtype=np.float64), case.expected.want
        if value.shape == want.shape:
            return value
        value = np.broadcast_to(value, np.broadcast_shapes(value.shape, want.shape))
        return sum_to(value, want.shape)

    return wrong


LOCAL_MISTAKES = [
    Mistake("data", _formula(op, name, f), words)
    for (op, name), rows in WRONG.items()
    for f, words in rows
]


# -- shapes: what a wrong local gradient's shape is, in words -----------------------------------


def shape_words(case: Case, got: Any) -> str:
    """Why a local gradient has ``got``'s shape, where a usual mistake explains it: "" else."""
    shape, want = tuple(got["shape"]), tuple(case.expected.want.shape)
    op, options = case.inputs["name"], case.inputs["options"]
    g = tuple(np.shape(case.inputs["upstream"]))
    if op in ("broadcast_to", "sum_to_size") and shape == g and shape != want:
        done = "summed back" if op == "broadcast_to" else "broadcast back"
        return (
            f": it is grad_output's shape, as it came, not {done} to a's shape (the seam that "
            "sums a broadcast gradient does not run for this op)"
        )
    if op in ("transpose", "T") and shape == g[::-1] and shape != want:
        return (
            f": {shape} is grad_output's shape {g} with every axis reversed (.T), which "
            "undoes a swap of two axes only where they are the first and the last"
        )
    if op == "permute" and shape == tuple(g[d] for d in options["dims"]) and shape != want:
        return (
            f": {shape} is grad_output's shape {g} permuted by the same dims again, which "
            "does not undo the permutation"
        )
    if op in ("sum", "mean", "max") and options.get("keepdim") and len(shape) == len(want) + 1:
        return (
            ": with keepdim=True, grad_output still has the reduced axis, and one more "
            "size-1 axis was added"
        )
    squeezed = tuple(n for n in want if n != 1)
    if shape == squeezed and shape != want:
        return (
            f": {case.expected.name}'s own size-1 axes were squeezed away too, not only the "
            "axis a 1-D operand was given"
        )
    return ""

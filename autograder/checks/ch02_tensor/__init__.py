"""Public checks for chapter 2 — the tensor wrapper.

The op catalog (``catalog.py``) drives every op check: each entry names the op (the child's
``programs.OPS`` has the same names), the task whose backward it is, the autograder's own
NumPy reference in float64, the domain its inputs are drawn from (away from kinks and
poles), and the cases' shapes, small to large: scalars and 0-d, size-1 axes, transposed and
sliced (non-contiguous) data, then a large one, and one float32 case that must stay float32.

For every case the expected value is the reference's output, and the expected gradient of
each input is the float64 central difference of Σ reference(inputs) · g for a random
upstream gradient g (``gradcheck.vjp``). The program runs the student's op forward and calls
the output node's ``backward(g)`` once; a wrong local backward of one op can fail only its
own task. Task 2.11 runs several ops' backward together and says so (``requires``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...harness.api import Case, Check, compare, show
from ...harness.gradcheck import vjp
from . import programs
from .catalog import CATALOG, TITLES, Op, Shape, draw
from .programs import VIEWS

# tolerances: (rtol, atol) for results computed in float64 and in float32
TOLERANCE = {"float64": (1e-6, 1e-7), "float32": (2e-4, 1e-4)}


def _index_text(spec: Any) -> str:
    if isinstance(spec, list):
        return ", ".join(_index_text(part) for part in spec)
    if isinstance(spec, dict) and "slice" in spec:  # as written: 1:, :3, ::2, ::-1, :
        start, stop, step = ("" if v is None else str(v) for v in spec["slice"])
        return f"{start}:{stop}" + (f":{step}" if step else "")
    if isinstance(spec, dict) and "array" in spec:
        values = spec["array"]
        return str(values) if len(values) <= 6 else f"<{len(values)} indices, with repeats>"
    return str(spec)


def _expr(op: Op, options: dict) -> str:
    if "index" in options:
        return op.expr.format(index=_index_text(options["index"]))
    if "shape" in options:  # as a call is written: a.reshape(2, 3), a.reshape(4), a.reshape(())
        shape = tuple(options["shape"])
        return op.expr.format(shape=f"({', '.join(map(str, shape))})" if shape else "(())")
    if "dims" in options:
        return op.expr.format(dims=tuple(options["dims"]))
    if "exponent" in options:
        return op.expr.format(exponent=options["exponent"])
    text = ", ".join(f"{k}={v!r}" for k, v in options.items())
    return op.expr.replace("{options}", text)


def _layout(shape: Shape, view: str) -> str:
    viewed = VIEWS[view](np.empty(shape)).shape
    where = "" if view == "plain" else f" ({view} of a {shape} array: not contiguous)"
    return f"{viewed}{where}"


def op_case(
    op: Op,
    rng: np.random.Generator,
    options: dict,
    layouts: Sequence[tuple[Shape, str]],
    *,
    dtype: str = "float64",
    number: tuple[float, int] | None = None,
    data: np.ndarray | None = None,
    exact_grad: Callable[[np.ndarray], np.ndarray] | None = None,
    label: str | None = None,
    broadcast: bool = False,
) -> Case:
    """One case: inputs of the given (shape, view) layouts (``data`` instead of drawn values
    when given), the reference's output, a random upstream gradient g and the expected
    gradients (central differences, or ``exact_grad(g)`` where they are not defined).
    ``broadcast``: the inputs' shapes differ, and a local gradient may have a shape its
    input broadcasts to (chapter 3)."""
    bases = [data if data is not None else draw(rng, shape, op.domain) for shape, _ in layouts]
    bases = [b.astype(dtype) for b in bases]
    arrays = [VIEWS[view](b) for b, (_, view) in zip(bases, layouts)]
    # arrays travel contiguous; the child makes the view
    args: list[dict] = [
        {"data": b, "view": view, "requires_grad": True} for b, (_, view) in zip(bases, layouts)
    ]
    if number is not None:
        value, position = number
        args[position] = {"number": value}
        arrays[position] = np.float64(value)
    tensors = [a for a, arg in zip(arrays, args) if "number" not in arg]
    out = op.reference(*[np.asarray(a, dtype=np.float64) for a in arrays], **options)
    upstream = rng.uniform(0.5, 1.5, np.shape(out)) * rng.choice([-1.0, 1.0], np.shape(out))
    upstream = np.asarray(upstream).round(3).astype(dtype)

    def tensor_only(*xs: np.ndarray) -> np.ndarray:
        full, it = [], iter(xs)
        for a, arg in zip(arrays, args):
            full.append(np.float64(a) if "number" in arg else next(it))
        return op.reference(*full, **options)

    if exact_grad is not None:
        grads = [exact_grad(upstream.astype(np.float64))]
    else:
        grads = vjp(tensor_only, tensors, upstream)
    names = [n for n, arg in zip("ab", args) if "number" not in arg]
    if label is None:
        label = _label(
            op,
            options,
            names,
            [lay for lay, arg in zip(layouts, args) if "number" not in arg],
            number,
        )
        if dtype != "float64":
            label += f", {dtype}"
    label += "; then out.grad_fn.backward(g), g random"
    expected = {
        "type(out)": "Tensor",
        "out.dtype": dtype,
        "out": np.asarray(out),
        "out.requires_grad": True,
        "grads": [np.asarray(g) for g in grads],
        "grad dtypes": [dtype] * len(grads),
    }
    wire_options = {k: list(v) if isinstance(v, tuple) else v for k, v in options.items()}
    inputs = {"name": op.name, "args": args, "options": wire_options, "upstream": upstream}
    if broadcast:
        inputs["broadcast"] = True
    second = op.second_order(options) if callable(op.second_order) else op.second_order
    meta = {"names": names, "dtype": dtype, "from the inputs": second, "broadcast": broadcast}
    return Case(label, inputs, {"data": expected, **meta})


def _label(op: Op, options: dict, names: list[str], layouts: list, number) -> str:
    """``a.sum(dim=1) with a of shape (2, 3)``, ``a @ b with a of shape … and b of shape …``."""
    expr = _expr(op, options)
    if number is not None:
        expr = expr.replace("ab"[number[1]], f"{number[0]:g}")
    if len(set(layouts)) == 1:
        return f"{expr} with {' and '.join(names)} of shape {_layout(*layouts[0])}"
    shapes = [f"{name} of shape {_layout(*lay)}" for name, lay in zip(names, layouts)]
    return f"{expr} with {' and '.join(shapes)}"


def op_cases(op: Op) -> Callable[[np.random.Generator], list[Case]]:
    def layouts(variant: tuple) -> list[tuple[Shape, str]]:
        return variant[1] if len(variant) == 2 else [variant[1:]] * op.arity

    def options(variant: tuple, rng: np.random.Generator) -> dict:
        return variant[0](rng) if callable(variant[0]) else variant[0]

    def cases(rng: np.random.Generator) -> list[Case]:
        out = [op_case(op, rng, options(v, rng), layouts(v)) for v in op.variants]
        for number in op.numbers:
            out.append(op_case(op, rng, {}, [((2, 3), "plain")] * op.arity, number=number))
        for label, (opts, data, grad) in op.exact.items():
            plain = [(data.shape, "plain")]
            out.append(op_case(op, rng, opts, plain, data=data, exact_grad=grad, label=label))
        small = op.variants[min(op.float32_variant, len(op.variants) - 1)]  # in float32
        out.append(op_case(op, rng, options(small, rng), layouts(small), dtype="float32"))
        return out + [make() for make in op.extra]

    return cases


def _op_verdict(case: Case, received: Any) -> str | None:
    return node_verdict(case, received) or grads_verdict(case, received)


def node_verdict(case: Case, received: Any) -> str | None:
    """The op's output, and its node's local backward called alone (``_local_verdict``)."""
    expected = case.expected["data"]
    if not isinstance(received, dict) or "type(out)" not in received:
        return f"expected the op's output and gradients, received {show(received)}"
    if received["type(out)"] != "Tensor":
        return f"the op returned a {received['type(out)']}, not a Tensor"
    if isinstance(received.get("grads"), str):
        return received["grads"]
    rtol, atol = TOLERANCE[case.expected["dtype"]]
    for key in ("out.dtype", "out", "out.requires_grad"):
        problem = compare(received.get(key), expected[key], rtol=rtol, atol=atol, path=key)
        if problem:
            return problem
    for name, local, want in zip(case.expected["names"], received["local"], expected["grads"]):
        problem = _local_verdict(
            name, local, want.shape, case.expected["from the inputs"], case.expected["broadcast"]
        )
        if problem:
            return problem
    return None


def grads_verdict(case: Case, received: Any) -> str | None:
    """What ``Node.backward`` handed each input: values and dtypes."""
    expected = case.expected["data"]
    rtol, atol = TOLERANCE[case.expected["dtype"]]
    for i, name in enumerate(case.expected["names"]):
        grad, want = received["grads"][i], expected["grads"][i]
        where = f"∂L/∂{name} (the gradient {name} receives)"
        if grad is None:
            return f"{where}: expected an array of shape {want.shape}, received None"
        problem = compare(grad, want, rtol=rtol, atol=atol, path=where)
        if problem:
            return problem
        dtype = received["grad dtypes"][i]
        if dtype != case.expected["dtype"]:
            return f"{where}: expected dtype {case.expected['dtype']}, received {dtype}"
    return None


def _local_verdict(
    name: str, local: Any, shape: Shape, from_inputs: bool, broadcast: bool
) -> str | None:
    """The local backward's own gradient for input ``name``, before the node passes it on:
    of the input's shape, and computed with Tensor operations, so that the graph records
    it (chapter 4 differentiates backward passes: second derivatives)."""
    where = f"∂L/∂{name} from the local backward"
    if isinstance(local, str):
        return f"{where}: {local}"
    if not programs.fits(local["shape"], shape, broadcast):
        rule = "a shape it broadcasts to" if broadcast else "its input's shape"
        return (
            f"{where} has shape {tuple(local['shape'])}, but {name} has shape {tuple(shape)}: "
            f"each gradient has {rule}"
        )
    if not local["from grad_output"]:
        return (
            f"{where} is not computed from grad_output with Tensor operations (the graph does "
            "not lead back to it): use Tensor operations on grad_output and the saved "
            "tensors, not their .data arrays, so that chapter 4 can differentiate it (§2)"
        )
    if from_inputs and not local["from the inputs"]:
        return (
            f"{where} does not depend on the op's inputs in the graph: recompute what it "
            "needs from the saved tensors with Tensor operations (b, not b.data; a.exp(), "
            "not np.exp(a.data)), so that chapter 4 can take second derivatives (§5)"
        )
    return None


# -- error cases: a clear error that names the problem --------------------------------------


def verdict(case: Case, received: Any) -> str | None:
    """Op cases compare values and gradients; error cases want a named, clear error (of
    the type ``expected["error type"]``, where given)."""
    if "error naming" not in case.expected:
        return _op_verdict(case, received)
    if not isinstance(received, dict) or "error" not in received:
        return f"expected an exception, received {show(received)}"
    if received["error"] is None:
        return "expected an exception, but none was raised"
    wanted = case.expected.get("error type")
    if wanted and received["error"] != wanted:
        return f"raised {received['error']}: {received['message']!r}; expected a {wanted}"
    missing = [text for text in case.expected["error naming"] if text not in received["message"]]
    if missing:
        return (
            f"raised {received['error']}: {received['message']!r}, which should name "
            + " and ".join(missing)
        )
    return None


# -- task 2.11: be the engine ----------------------------------------------------------------


def _network_loss(x, y):
    def loss(w1, w2):
        r = np.tanh(x @ w1) @ w2 - y
        return np.mean(r * r)

    return loss


def _engine_cases(rng: np.random.Generator) -> list[Case]:
    cases = []
    for n, d, k, m in [(1, 1, 1, 1), (2, 3, 4, 1), (5, 3, 4, 2), (32, 10, 16, 3)]:
        x, y = rng.normal(size=(n, d)), rng.normal(size=(n, m))
        w1, w2 = rng.normal(size=(d, k)) * 0.7, rng.normal(size=(k, m)) * 0.7
        g1, g2 = vjp(_network_loss(x, y), [w1, w2], np.ones(()))
        label = f"two_layer_backward with x {x.shape}, w1 {w1.shape}, w2 {w2.shape}, y {y.shape}"
        expected = {"returned": "tuple", "grad w1": g1, "grad w2": g2}
        cases.append(Case(label, {"x": x, "w1": w1, "w2": w2, "y": y}, expected))
    return cases


def _engine_verdict(case: Case, received: Any) -> str | None:
    return compare(received, case.expected, rtol=1e-6, atol=1e-8)


CHECKS = [
    *[
        Check(op.task, TITLES.get(op.name, op.expr), op_cases(op), programs.op, verdict)
        for op in CATALOG
    ],
    Check(
        "2.11",
        "two_layer_backward",
        _engine_cases,
        programs.two_layer,
        _engine_verdict,
        requires=("2.1", "2.2", "2.5", "2.6", "2.7"),
    ),
]

"""Public checks for chapter 2 — the tensor wrapper.

One op catalog drives every op check: each entry names the op (the child's ``programs.OPS``
has the same names), the task whose backward it is, the autograder's own NumPy reference in
float64, the domain its inputs are drawn from (away from kinks and poles), and the cases'
shapes, small to large: scalars and 0-d, size-1 axes, transposed and sliced (non-contiguous)
data, then a large one, and one float32 case that must stay float32.

For every case the expected value is the reference's output, and the expected gradient of
each input is the float64 central difference of Σ reference(inputs) · g for a random
upstream gradient g (``gradcheck.vjp``). The program runs the student's op forward and calls
the output node's ``backward(g)`` once; a wrong local backward of one op can fail only its
own task. Task 2.11 runs several ops' backward together and says so (``requires``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...harness.api import Case, Check, compare, show
from ...harness.gradcheck import vjp
from . import programs

Shape = tuple[int, ...]

# tolerances: (rtol, atol) for results computed in float64 and in float32
TOLERANCE = {"float64": (1e-6, 1e-7), "float32": (2e-4, 1e-4)}

# the shapes an op's inputs take: (shape sent, view made in the child); the child's array is
# VIEWS[view](array of the shape sent)
ELEMENTWISE_SHAPES: list[tuple[Shape, str]] = [
    ((), "plain"),
    ((1,), "plain"),
    ((3,), "plain"),
    ((2, 3), "plain"),
    ((1, 4), "plain"),
    ((3, 1, 2), "plain"),
    ((4, 3), "transposed"),
    ((6, 4), "every other row"),
    ((3, 5), "columns from 1"),
    ((24, 32), "plain"),
]

_VIEWED = {
    "plain": lambda x: x,
    "transposed": lambda x: x.T,
    "every other row": lambda x: x[::2],
    "columns from 1": lambda x: x[:, 1:],
}


def _draw(rng: np.random.Generator, shape: Shape, domain: str) -> np.ndarray:
    """Inputs away from kinks, poles and the edges of an op's domain."""
    if domain == "positive":
        return rng.uniform(0.5, 3.0, shape)
    if domain == "nonzero":  # |x| ≥ 0.3: relu, abs and 1/x are smooth there
        return rng.choice([-1.0, 1.0], shape) * rng.uniform(0.3, 2.0, shape)
    if domain == "distinct":  # values at least 0.05 apart: max has one clear winner
        n = int(np.prod(shape))
        return (rng.permutation(n) * 0.05 + rng.uniform(-1, 1)).reshape(shape)
    return rng.uniform(-2.0, 2.0, shape)


@dataclass(frozen=True)
class Op:
    """One entry of the catalog."""

    name: str  # a key of programs.OPS
    task: str
    expr: str  # how the report writes it, with a, b and the options
    reference: Callable[..., np.ndarray]  # plain NumPy: (*arrays, **options) -> array
    domain: str = "any"  # of every tensor input: any, positive, nonzero, distinct
    arity: int = 1
    # per case: the op's options (or a function of the rng that draws them), and the shape
    # + view of every input, or one list of (shape, view) per input
    variants: Sequence[tuple] = ()
    # cases with a Python number as one operand: (number, its position)
    numbers: Sequence[tuple[float, int]] = ()
    exact: dict = field(default_factory=dict)  # label -> (inputs, expected grads): ties
    extra: Sequence[Callable[[], Case]] = ()  # cases of other kinds (errors)


def _elementwise(options: dict | None = None) -> list[tuple[dict, Shape, str]]:
    return [(dict(options or {}), shape, view) for shape, view in ELEMENTWISE_SHAPES]


def _matmul_error_case() -> Case:
    return Case(
        "a @ b with a of shape (2, 3) and b of shape (4, 5): an error naming both shapes",
        {
            "name": "matmul",
            "args": [
                {"data": np.ones((2, 3)), "view": "plain", "requires_grad": True},
                {"data": np.ones((4, 5)), "view": "plain", "requires_grad": True},
            ],
            "options": {},
            "upstream": np.ones(()),
            "expect_error": True,
        },
        {"error naming": ["(2, 3)", "(4, 5)"]},
    )


def _integer_case() -> Case:
    return Case(
        "Tensor([[1, 2], [3, 4]], requires_grad=True): integers cannot require gradients",
        {
            "name": "neg",
            "args": [{"data": np.array([[1, 2], [3, 4]]), "view": "plain", "requires_grad": True}],
            "options": {},
            "upstream": np.ones((2, 2)),
            "expect_error": True,
        },
        {"error naming": ["int64"]},
    )


CATALOG = [
    Op("add", "2.1", "a + b", np.add, arity=2, variants=_elementwise(), numbers=[(2.5, 1)]),
    Op("sub", "2.1", "a - b", np.subtract, arity=2, variants=_elementwise(), numbers=[(1.5, 0)]),
    Op("neg", "2.1", "-a", np.negative, variants=_elementwise(), extra=[_integer_case]),
    Op("mul", "2.2", "a * b", np.multiply, arity=2, variants=_elementwise(), numbers=[(-3.0, 1)]),
    Op(
        "div",
        "2.2",
        "a / b",
        np.divide,
        domain="nonzero",
        arity=2,
        variants=_elementwise(),
        numbers=[(2.0, 0)],
    ),
    Op(
        "pow",
        "2.3",
        "a ** {exponent}",
        lambda a, exponent: a**exponent,
        domain="positive",
        variants=[
            ({"exponent": 2}, (), "plain"),
            ({"exponent": 3}, (3,), "plain"),
            ({"exponent": 0.5}, (2, 3), "plain"),
            ({"exponent": -1}, (1, 4), "plain"),
            ({"exponent": -2.5}, (4, 3), "transposed"),
            ({"exponent": 1}, (6, 4), "every other row"),
            ({"exponent": 0}, (3,), "plain"),
            ({"exponent": 1.5}, (24, 32), "plain"),
        ],
    ),
    Op(
        "matmul",
        "2.6",
        "a @ b",
        np.matmul,
        arity=2,
        variants=[
            ({}, [((3,), "plain"), ((3,), "plain")]),
            ({}, [((2, 3), "plain"), ((3,), "plain")]),
            ({}, [((3,), "plain"), ((3, 4), "plain")]),
            ({}, [((1, 1), "plain"), ((1, 1), "plain")]),
            ({}, [((2, 3), "plain"), ((3, 4), "plain")]),
            ({}, [((2, 2, 3), "plain"), ((2, 3, 4), "plain")]),
            ({}, [((5, 4), "transposed"), ((5, 3), "plain")]),
            ({}, [((3, 6), "plain"), ((12, 2), "every other row")]),
            ({}, [((32, 48), "plain"), ((48, 16), "plain")]),
        ],
        extra=[_matmul_error_case],
    ),
    Op("exp", "2.4", "a.exp()", np.exp, variants=_elementwise()),
    Op("log", "2.4", "a.log()", np.log, domain="positive", variants=_elementwise()),
    Op("sqrt", "2.4", "a.sqrt()", np.sqrt, domain="positive", variants=_elementwise()),
    Op("tanh", "2.5", "a.tanh()", np.tanh, variants=_elementwise()),
    Op(
        "sigmoid",
        "2.5",
        "a.sigmoid()",
        lambda a: 0.5 * (1 + np.tanh(a / 2)),  # = 1 / (1 + e^-a)
        variants=_elementwise(),
    ),
    Op("relu", "2.5", "a.relu()", lambda a: np.maximum(a, 0), "nonzero", variants=_elementwise()),
    Op("abs", "2.5", "a.abs()", np.abs, domain="nonzero", variants=_elementwise()),
    Op(
        "sum",
        "2.7",
        "a.sum({options})",
        lambda a, dim=None, keepdim=False: np.sum(a, axis=dim, keepdims=keepdim),
        variants=[
            ({}, (), "plain"),
            ({}, (3,), "plain"),
            ({"dim": 0}, (3,), "plain"),
            ({"dim": 1}, (2, 3), "plain"),
            ({"dim": 1, "keepdim": True}, (2, 3), "plain"),
            ({"dim": -1}, (3, 1, 2), "plain"),
            ({"dim": (0, 2)}, (2, 3, 4), "plain"),
            ({"dim": 0, "keepdim": True}, (4, 3), "transposed"),
            ({"dim": 1}, (6, 4), "every other row"),
            ({"dim": 0}, (24, 32), "plain"),
        ],
    ),
    Op(
        "mean",
        "2.7",
        "a.mean({options})",
        lambda a, dim=None, keepdim=False: np.mean(a, axis=dim, keepdims=keepdim),
        variants=[
            ({}, (), "plain"),
            ({}, (3,), "plain"),
            ({"dim": 1}, (2, 3), "plain"),
            ({"dim": 0, "keepdim": True}, (2, 3), "plain"),
            ({"dim": (-1, 0)}, (2, 3, 4), "plain"),
            ({"dim": 1}, (3, 5), "columns from 1"),
            ({"dim": 1, "keepdim": True}, (24, 32), "plain"),
        ],
    ),
    Op(
        "max",
        "2.8",
        "a.max({options})",
        lambda a, dim=None, keepdim=False: np.max(a, axis=dim, keepdims=keepdim),
        domain="distinct",
        variants=[
            ({}, (), "plain"),
            ({}, (4,), "plain"),
            ({"dim": 0}, (4,), "plain"),
            ({}, (2, 3), "plain"),
            ({"dim": 1}, (2, 3), "plain"),
            ({"dim": 0, "keepdim": True}, (2, 3), "plain"),
            ({"dim": -2}, (3, 4, 2), "plain"),
            ({"dim": 1}, (4, 3), "transposed"),
            ({"dim": 0}, (24, 32), "plain"),
        ],
        exact={
            # ties: the central difference is not defined there; PyTorch's rule is
            "a.max() with a tie, a = [[1, 3], [3, 2]]: the two 3s share the gradient": (
                {},
                np.array([[1.0, 3.0], [3.0, 2.0]]),
                lambda g: np.array([[0.0, 0.5], [0.5, 0.0]]) * g,
            ),
            "a.max(dim=1) with a tie, a = [[2, 2], [1, 0]]: the returned index (0) wins": (
                {"dim": 1},
                np.array([[2.0, 2.0], [1.0, 0.0]]),
                lambda g: np.array([[g[0], 0.0], [g[1], 0.0]]),
            ),
        },
    ),
    Op(
        "reshape",
        "2.9",
        "a.reshape{shape}",
        lambda a, shape: a.reshape(shape),
        variants=[
            ({"shape": (1,)}, (), "plain"),
            ({"shape": ()}, (1,), "plain"),
            ({"shape": (3, 2)}, (2, 3), "plain"),
            ({"shape": (2, -1)}, (6,), "plain"),
            ({"shape": (4, 6)}, (2, 3, 4), "plain"),
            ({"shape": (12,)}, (4, 3), "transposed"),
            ({"shape": (32, 24)}, (24, 32), "plain"),
        ],
    ),
    Op(
        "view",
        "2.9",
        "a.view({shape})",
        lambda a, shape: a.reshape(shape),
        variants=[({"shape": (6,)}, (2, 3), "plain"), ({"shape": (2, 1, 3)}, (6,), "plain")],
    ),
    Op(
        "transpose",
        "2.9",
        "a.transpose{dims}",
        lambda a, dims: np.swapaxes(a, *dims),
        variants=[
            ({"dims": (0, 1)}, (2, 3), "plain"),
            ({"dims": (0, 0)}, (3,), "plain"),
            ({"dims": (-1, 0)}, (2, 3, 4), "plain"),
            ({"dims": (1, 0)}, (4, 3), "transposed"),
        ],
    ),
    Op(
        "permute",
        "2.9",
        "a.permute{dims}",
        lambda a, dims: np.transpose(a, dims),
        variants=[
            ({"dims": (1, 0)}, (2, 3), "plain"),
            ({"dims": (2, 0, 1)}, (2, 3, 4), "plain"),
            ({"dims": (1, 3, 0, 2)}, (2, 3, 4, 5), "plain"),
        ],
    ),
    Op(
        "T",
        "2.9",
        "a.T",
        lambda a: a.T,
        variants=[({}, (3,), "plain"), ({}, (2, 3), "plain"), ({}, (6, 4), "every other row")],
    ),
    Op(
        "getitem",
        "2.10",
        "a[{index}]",
        lambda a, index: a[programs._index(index)],
        variants=[
            ({"index": 1}, (3,), "plain"),
            ({"index": {"slice": [1, None, None]}}, (4,), "plain"),
            ({"index": {"slice": [None, None, -1]}}, (4,), "plain"),
            ({"index": {"array": [0, 0, 2]}}, (3,), "plain"),
            ({"index": {"array": [True, False, True]}}, (3,), "plain"),
            ({"index": [1, 2]}, (2, 3), "plain"),
            ({"index": [1, {"slice": [None, None, 2]}]}, (3, 4), "plain"),
            ({"index": ["...", 1]}, (2, 3, 4), "plain"),
            ({"index": [{"slice": [None, None, None]}, "None", 1]}, (3, 4), "plain"),
            ({"index": [{"array": [0, 2, 0]}, {"array": [1, 1, 1]}]}, (3, 4), "plain"),
            ({"index": {"array": [2, 0, 2]}}, (4, 3), "transposed"),
            (lambda rng: {"index": {"array": rng.integers(0, 50, 200).tolist()}}, (50, 8), "plain"),
        ],
    ),
]

OPS = {op.name: op for op in CATALOG}


def _index_text(spec: Any) -> str:
    if isinstance(spec, list):
        return ", ".join(_index_text(part) for part in spec)
    if isinstance(spec, dict) and "slice" in spec:
        return ":".join("" if v is None else str(v) for v in spec["slice"]).rstrip(":") or ":"
    if isinstance(spec, dict) and "array" in spec:
        values = spec["array"]
        return str(values) if len(values) <= 6 else f"<{len(values)} indices, with repeats>"
    return str(spec)


def _expr(op: Op, options: dict) -> str:
    if "index" in options:
        return op.expr.format(index=_index_text(options["index"]))
    if "shape" in options:
        return op.expr.format(shape=tuple(options["shape"]))
    if "dims" in options:
        return op.expr.format(dims=tuple(options["dims"]))
    if "exponent" in options:
        return op.expr.format(exponent=options["exponent"])
    text = ", ".join(f"{k}={v!r}" for k, v in options.items())
    return op.expr.replace("{options}", text)


def _layout(shape: Shape, view: str) -> str:
    viewed = _VIEWED[view](np.empty(shape)).shape
    where = "" if view == "plain" else f" ({view} of a {shape} array: not contiguous)"
    return f"{viewed}{where}"


def _op_case(
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
) -> Case:
    """One case: inputs of the given (shape, view) layouts (``data`` instead of drawn values
    when given), the reference's output, a random upstream gradient g and the expected
    gradients (central differences, or ``exact_grad(g)`` where they are not defined)."""
    bases = [data if data is not None else _draw(rng, shape, op.domain) for shape, _ in layouts]
    bases = [b.astype(dtype) for b in bases]
    arrays = [_VIEWED[view](b) for b, (_, view) in zip(bases, layouts)]
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
    return Case(label, inputs, {"data": expected, "names": names, "dtype": dtype})


def _label(op: Op, options: dict, names: list[str], layouts: list, number) -> str:
    """``a.sum(dim=1) with a of shape (2, 3)``, ``a @ b with a of shape … and b of shape …``."""
    expr = _expr(op, options)
    if number is not None:
        expr = expr.replace("ab"[number[1]], f"{number[0]:g}")
    if len(set(layouts)) == 1:
        return f"{expr} with {' and '.join(names)} of shape {_layout(*layouts[0])}"
    shapes = [f"{name} of shape {_layout(*lay)}" for name, lay in zip(names, layouts)]
    return f"{expr} with {' and '.join(shapes)}"


def _op_cases(op: Op) -> Callable[[np.random.Generator], list[Case]]:
    def layouts(variant: tuple) -> list[tuple[Shape, str]]:
        return variant[1] if len(variant) == 2 else [variant[1:]] * op.arity

    def options(variant: tuple, rng: np.random.Generator) -> dict:
        return variant[0](rng) if callable(variant[0]) else variant[0]

    def cases(rng: np.random.Generator) -> list[Case]:
        out = [_op_case(op, rng, options(v, rng), layouts(v)) for v in op.variants]
        for number in op.numbers:
            out.append(_op_case(op, rng, {}, [((2, 3), "plain")] * op.arity, number=number))
        for label, (opts, data, grad) in op.exact.items():
            plain = [(data.shape, "plain")]
            out.append(_op_case(op, rng, opts, plain, data=data, exact_grad=grad, label=label))
        small = op.variants[min(3, len(op.variants) - 1)]  # small, and float32
        out.append(_op_case(op, rng, options(small, rng), layouts(small), dtype="float32"))
        return out + [make() for make in op.extra]

    return cases


def _op_verdict(case: Case, received: Any) -> str | None:
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


# -- error cases: a clear error that names the problem --------------------------------------


def _verdict(case: Case, received: Any) -> str | None:
    """Op cases compare values and gradients; error cases want a named, clear error."""
    if "error naming" not in case.expected:
        return _op_verdict(case, received)
    if not isinstance(received, dict) or "error" not in received:
        return f"expected an exception, received {show(received)}"
    if received["error"] is None:
        return "expected an exception, but none was raised"
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


TITLES = {
    "pow": "a ** n",
    "sum": "a.sum(dim, keepdim)",
    "mean": "a.mean(dim, keepdim)",
    "max": "a.max(dim, keepdim)",
    "reshape": "a.reshape(shape)",
    "view": "a.view(shape)",
    "transpose": "a.transpose(dim0, dim1)",
    "permute": "a.permute(dims)",
    "getitem": "a[index]",
}


CHECKS = [
    *[
        Check(op.task, TITLES.get(op.name, op.expr), _op_cases(op), programs.op, _verdict)
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

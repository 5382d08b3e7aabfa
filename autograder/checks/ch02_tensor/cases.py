"""Chapter 2's case builders: what public and hidden checks are made of. A hidden check is
rows of these (its own shapes, data and options), never a copy of them.

Every expectation is computed here, in the parent, from the catalog's float64 NumPy
references: values by the reference itself, gradients by the complex step
(``gradcheck.vjp``: exact to float64 rounding, so the verdicts can use tolerances that
float32 arithmetic cannot meet), second derivatives by ``gradcheck.jvp`` and ``hvp``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...harness.api import Case
from ...harness.gradcheck import hvp, jvp, sum_to, vjp
from ...harness.language import say, tr
from .catalog import Layout, Op, Shape, draw
from .expected import EngineExpected, OpExpected, SecondOrderExpected
from .programs import VIEWS


def index_text(spec: Any) -> str:
    """An index in its wire form (``programs._index``) as Python writes it: 1:, ::-1, [0, 2]."""
    if isinstance(spec, list):
        return ", ".join(index_text(part) for part in spec)
    if isinstance(spec, dict) and "slice" in spec:  # as written: 1:, :3, ::2, ::-1, :
        start, stop, step = ("" if v is None else str(v) for v in spec["slice"])
        return f"{start}:{stop}" + (f":{step}" if step else "")
    if isinstance(spec, dict) and "array" in spec:
        values = spec["array"]
        if len(values) <= 6:
            return str(values)
        return tr(f"<{len(values)} indices, with repeats>", f"<{len(values)} 个索引，有重复>")
    return str(spec)


def expression(op: Op, options: dict) -> str:
    """The op applied to ``a`` (and ``b``) with ``options``, as a student writes it."""
    if "index" in options:
        return op.expr.format(index=index_text(options["index"]))
    if "shape" in options:  # as a call is written: a.reshape(2, 3), a.reshape(4), a.reshape(())
        shape = tuple(options["shape"])
        return op.expr.format(shape=f"({', '.join(map(str, shape))})" if shape else "(())")
    if "dims" in options:
        return op.expr.format(dims=tuple(options["dims"]))
    if "exponent" in options:
        return op.expr.format(exponent=options["exponent"])
    text = ", ".join(f"{k}={v!r}" for k, v in options.items())
    return op.expr.replace("{options}", text)


# how a label names each view (``programs.VIEWS``): in English, the view's own name
VIEW_WORDS = {
    "transposed": {"en": "transposed", "zh": "的转置"},
    "every other row": {"en": "every other row", "zh": "的隔行切片"},  # en-only: the key
    "columns from 1": {"en": "columns from 1", "zh": "去掉第 0 列后的切片"},
}


def layout_text(shape: Shape, view: str) -> str:
    """``(3, 4)``, or ``(3, 4) (transposed of a (4, 3) array: not contiguous)``."""
    viewed = VIEWS[view](np.empty(shape)).shape
    words = say(VIEW_WORDS.get(view, view))
    where = (
        ""
        if view == "plain"
        else tr(
            f" ({words} of a {shape} array: not contiguous)",
            f"（{shape} 数组{words}：不连续）",
        )
    )
    return f"{viewed}{where}"


def _label(op: Op, options: dict, names: list[str], layouts: list, number) -> str:
    """``a.sum(dim=1) with a of shape (2, 3)``, ``a @ b with a of shape … and b of shape …``."""
    expr = expression(op, options)
    if number is not None:
        expr = expr.replace("ab"[number[1]], f"{number[0]:g}")
    if len(set(layouts)) == 1:
        both = tr(" and ", " 和 ").join(names)
        return tr(
            f"{expr} with {both} of shape {layout_text(*layouts[0])}",
            f"{expr}，其中 {both} 的形状为 {layout_text(*layouts[0])}",
        )
    shapes = [
        tr(f"{name} of shape {layout_text(*lay)}", f"{name} 的形状为 {layout_text(*lay)}")
        for name, lay in zip(names, layouts)
    ]
    each = tr(" and ", "，").join(shapes)
    return tr(f"{expr} with {each}", f"{expr}，其中 {each}")


def _inputs(op, rng, layouts, dtype, number, data):
    """(wire args, the arrays as the child views them, the tensors' arrays) of one case:
    ``data`` for every input, or one array per input (a list), or drawn."""
    given = data if isinstance(data, list) else [data] * len(layouts)
    bases = [
        d if d is not None else draw(rng, shape, op.domain) for d, (shape, _) in zip(given, layouts)
    ]
    bases = [np.asarray(b).astype(dtype) for b in bases]
    arrays: list[Any] = [VIEWS[view](b) for b, (_, view) in zip(bases, layouts)]
    # arrays travel contiguous; the child makes the view
    args: list[dict] = [
        {"data": b, "view": view, "requires_grad": True} for b, (_, view) in zip(bases, layouts)
    ]
    if number is not None:
        value, position = number
        args[position] = {"number": value}
        arrays[position] = np.float64(value)
    tensors = [a for a, arg in zip(arrays, args) if "number" not in arg]
    return args, arrays, tensors


def _of_tensors(op: Op, arrays: list, args: list, options: dict) -> Callable[..., np.ndarray]:
    """The reference as a function of the tensor inputs only (numbers held constant)."""

    def f(*xs: np.ndarray) -> np.ndarray:
        full, it = [], iter(xs)
        for a, arg in zip(arrays, args):
            full.append(np.float64(a) if "number" in arg else next(it))
        return op.reference(*full, **options)

    return f


def _gradients(op: Op, f, tensors: list, upstream: np.ndarray) -> list[np.ndarray]:
    """∂(Σ f · upstream)/∂tensor for each tensor, by the complex step: one step per element
    (``gradcheck.vjp``), or for an elementwise op one step along all of an input's elements
    at once, which gives each output element's partial derivative, summed back onto the
    input where it was broadcast (exact all the same: no output mixes two elements)."""
    g = np.asarray(upstream, dtype=np.float64)
    if not op.elementwise:
        return vjp(f, tensors, g)
    grads = []
    for i, t in enumerate(tensors):
        along = [
            np.ones(np.shape(x)) if j == i else np.zeros(np.shape(x)) for j, x in enumerate(tensors)
        ]
        grads.append(sum_to(g * jvp(f, tensors, along), np.shape(t)))
    return grads


def _second_derivatives(op: Op, f, tensors: list, tangents: list, upstream: np.ndarray) -> list:
    """``gradcheck.hvp``; for an elementwise op, its central difference taken along all of
    an input's elements at once (as ``_gradients``)."""
    if not op.elementwise:
        return hvp(f, tensors, tangents, upstream)
    eps, out = 1e-5, []
    for i, t in enumerate(tensors):
        up = [x + eps if j == i else x for j, x in enumerate(tensors)]
        down = [x - eps if j == i else x for j, x in enumerate(tensors)]
        change = (jvp(f, up, tangents) - jvp(f, down, tangents)) / (2 * eps)
        out.append(sum_to(upstream * change, np.shape(t)))
    return out


def op_case(
    op: Op,
    rng: np.random.Generator,
    options: dict,
    layouts: Sequence[Layout],
    *,
    dtype: str = "float64",
    number: tuple[float, int] | None = None,
    data: np.ndarray | list[np.ndarray] | None = None,
    exact_grad: Callable[[np.ndarray], np.ndarray] | None = None,
    label: str | None = None,
    broadcast: bool = False,
    local_only: bool = False,
) -> Case:
    """One case of ``programs.op``: inputs of the given (shape, view) layouts (``data``
    instead of drawn values when given, one array for all inputs or a list of one each; a
    Python number at ``number = (value, position)``), the reference's output, a random
    upstream gradient g and the expected gradients (complex step, or ``exact_grad(g)`` where
    they are not defined). ``broadcast``: the inputs' shapes differ, and a local gradient may
    have a shape its input broadcasts to (chapter 3). ``local_only``: judge the local
    backward alone (summed onto each input's shape by the autograder), not
    ``Node.backward``, which needs chapter 3 to undo a broadcast."""
    args, arrays, tensors = _inputs(op, rng, layouts, dtype, number, data)
    out = op.reference(*[np.asarray(a, dtype=np.float64) for a in arrays], **options)
    upstream = rng.uniform(0.5, 1.5, np.shape(out)) * rng.choice([-1.0, 1.0], np.shape(out))
    upstream = np.asarray(upstream).round(3).astype(dtype)
    if exact_grad is not None:
        grads = [exact_grad(upstream.astype(np.float64))]
    else:
        grads = _gradients(op, _of_tensors(op, arrays, args, options), tensors, upstream)
    names = [n for n, arg in zip("ab", args) if "number" not in arg]
    if label is None:
        plain = [lay for lay, arg in zip(layouts, args) if "number" not in arg]
        label = _label(op, options, names, plain, number)
        if dtype != "float64":
            label += tr(f", {dtype}", f"，{dtype}")
    label = say(label)  # a catalog row's label is a Text: in the learner's language
    if local_only:
        label += tr(
            "; then its local backward with g random (the autograder sums each gradient"
            " onto its input's shape)",
            "；然后用随机的 g 调用它的局部反向函数（由自动评分器把每个梯度求和到其输入的形状）",
        )
    else:
        label += tr(
            "; then out.grad_fn.backward(g), g random",
            "；然后调用 out.grad_fn.backward(g)，g 随机",
        )
    wire_options = {k: list(v) if isinstance(v, tuple) else v for k, v in options.items()}
    inputs = {"name": op.name, "args": args, "options": wire_options, "upstream": upstream}
    if broadcast or local_only:
        inputs["broadcast"] = True
    if local_only:
        inputs["local_only"] = True
    second = op.second_order(options) if callable(op.second_order) else op.second_order
    # with a number on one side the other's gradient may be a constant (a / c: g / c, where
    # c may be a constant Tensor or a float): the second-order check judges that instead
    expected = OpExpected(
        out=np.asarray(out),
        grads=[np.asarray(g) for g in grads],
        dtype=dtype,
        names=names,
        held=[np.asarray(t) for t in tensors],
        needs_inputs=bool(second) and number is None,
        broadcast=broadcast or local_only,
        local_only=local_only,
    )
    return Case(label, inputs, expected)


def variant_layouts(op: Op, variant: tuple) -> list[Layout]:
    """A catalog variant's (shape, view) per input."""
    return variant[1] if len(variant) == 2 else [variant[1:]] * op.arity


def variant_options(variant: tuple, rng: np.random.Generator) -> dict:
    """A catalog variant's options (drawn, where the catalog gives a function of the rng)."""
    return variant[0](rng) if callable(variant[0]) else variant[0]


# the largest input (in elements) of a float32 case of the sweep (``float32_sweep``)
FLOAT32_SIZE = 24


def _kind(value: Any) -> Any:
    """What of an option's value can choose a branch of an op's code: a bool, None, 0 and 1
    themselves (keepdim, a full max, a⁰ and a¹), else its type (a dim, an exponent), an
    index's parts (a slice, an array, an int) and a sequence's items' kinds."""
    if value is None or isinstance(value, bool) or value in (0, 1):
        return value
    if isinstance(value, dict):
        return tuple(value)
    if isinstance(value, (list, tuple)):
        return tuple(_kind(v) if isinstance(v, (dict, str)) else type(v).__name__ for v in value)
    return type(value).__name__


def float32_sweep(op: Op) -> list[tuple[Any, list[Layout], bool, Any]]:
    """The float32 twins of an op's cases, as (options, layouts, local only, exact): one for
    each way its code can go that its options and its inputs' ranks choose (a full max and
    a max(dim), keepdim or not, a 1-D operand of a matmul, 0-d to 4-D inputs, a⁰), from the
    first small variant (``FLOAT32_SIZE``) of each, then from the local-only layouts and the
    exact rows (kinks, ties) likewise. Every other case is float64, so each branch of a
    forward and of a local backward is judged for its dtype both ways: float32 in, float32
    out; float64 in, float64 out. ``exact``: (label, data, expected gradient), or None."""

    def ranks(layouts: list[Layout]) -> tuple[int, ...]:
        return tuple(VIEWS[view](np.empty(shape)).ndim for shape, view in layouts)

    def small(layouts: list[Layout]) -> bool:
        return max(int(np.prod(shape)) for shape, _ in layouts) <= FLOAT32_SIZE

    def path(options: Any, layouts: list[Layout], local: bool) -> tuple:
        if callable(options):  # drawn options: their function stands for them
            return options, ranks(layouts), local
        return tuple((k, _kind(v)) for k, v in options.items()), ranks(layouts), local

    rows: list[tuple[Any, list[Layout], bool, Any]] = [
        (v[0], variant_layouts(op, v), False, None) for v in op.variants
    ]
    rows += [({}, list(layouts), True, None) for layouts in op.local_only]
    rows += [
        (opts, [(data.shape, "plain")], False, (label, data, grad))
        for label, (opts, data, grad) in op.exact.items()
    ]
    sweep, seen = [], set()
    for options, layouts, local, exact in rows:
        key = path(options, layouts, local)
        if small(layouts) and key not in seen:
            seen.add(key)
            sweep.append((options, layouts, local, exact))
    return sweep


def op_cases(op: Op, sweep: bool = False) -> Callable[[np.random.Generator], list[Case]]:
    """The public op check's cases: every catalog variant, the number cases, the cases on
    given data (zeros, saturated entries), the exact cases (kinks, ties, 0 ** 0), the
    local-only (broadcast) layouts, then in float32 with ``sweep`` (chapter 2's ops) the
    float32 sweep (``float32_sweep``) and each number case, else one variant
    (``Op.float32_variant``: chapter 3's ops), then the extra (error) cases."""

    def cases(rng: np.random.Generator) -> list[Case]:
        out = [
            op_case(op, rng, variant_options(v, rng), variant_layouts(op, v)) for v in op.variants
        ]
        for number in op.numbers:
            out.append(op_case(op, rng, {}, [((2, 3), "plain")] * op.arity, number=number))
        for label, (opts, data) in (op.at | op.far).items():
            plain = [(data.shape, "plain")]
            out.append(op_case(op, rng, opts, plain, data=data, label=label))
        for label, (opts, data, grad) in op.exact.items():
            plain = [(data.shape, "plain")]
            out.append(op_case(op, rng, opts, plain, data=data, exact_grad=grad, label=label))
        for layouts in op.local_only:
            out.append(op_case(op, rng, {}, layouts, local_only=True))
        if not sweep:
            one = op.variants[min(op.float32_variant, len(op.variants) - 1)]
            opts, layouts = variant_options(one, rng), variant_layouts(op, one)
            out.append(op_case(op, rng, opts, layouts, dtype="float32"))
            return out + [make() for make in op.extra]
        for options, layouts, local, exact in float32_sweep(op):
            opts = options(rng) if callable(options) else options
            if exact is None:
                out.append(op_case(op, rng, opts, layouts, dtype="float32", local_only=local))
                continue
            label, data, grad = exact
            out.append(
                op_case(
                    op,
                    rng,
                    opts,
                    layouts,
                    dtype="float32",
                    data=data,
                    exact_grad=grad,
                    label=tr(f"{say(label)}, float32", f"{say(label)}，float32"),
                )
            )
        for number in op.numbers:
            plain = [((2, 3), "plain")] * op.arity
            out.append(op_case(op, rng, {}, plain, number=number, dtype="float32"))
        return out + [make() for make in op.extra]

    return cases


# -- data of a kind: rows of public and hidden checks ----------------------------------------


def with_zeros(rng: np.random.Generator, shape: Shape, low: float = -2.0) -> np.ndarray:
    """Entries from ``low`` to 2 (3 decimals), a quarter of them (at least one) exactly 0."""
    data = rng.uniform(low, 2.0, shape).round(3)
    data.flat[rng.choice(data.size, max(1, data.size // 4), replace=False)] = 0.0
    return data


def log_uniform(rng: np.random.Generator, shape: Shape) -> np.ndarray:
    """Entries from 0.01 to 1000, spread evenly in magnitude."""
    return np.exp(rng.uniform(np.log(0.01), np.log(1000.0), shape))


def saturating(rng: np.random.Generator, shape: Shape, big: float) -> np.ndarray:
    """Moderate entries, and some of either sign far out (to ``big``) where tanh and σ are
    flat (catalog.SATURATED is the public row's fixed data)."""
    data = rng.uniform(-3, 3, shape)
    far = rng.choice(data.size, max(2, data.size // 3), replace=False)
    data.flat[far] = rng.uniform(0.9 * big, big, far.size) * np.resize([1, -1], far.size)
    return data


def with_kinks(rng: np.random.Generator, shape: Shape) -> np.ndarray:
    """Entries with |a| ≥ 0.3, a third of them (at least one) exactly 0: relu's and abs's kink."""
    data = rng.choice([-1.0, 1.0], shape) * rng.uniform(0.3, 2.0, shape)
    data.flat[rng.choice(data.size, max(1, data.size // 3), replace=False)] = 0.0
    return data


def ties(rng: np.random.Generator, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """A (rows, cols) array in which each column's largest value appears twice or more,
    and where the gradient of max(dim=0) goes: the first of them (the index argmax
    returns)."""
    data = rng.permutation(rows * cols).reshape(rows, cols) * 0.25
    winner = np.zeros((rows, cols))
    for c in range(cols):
        top = data[:, c].max() + 1.0
        where = np.sort(rng.choice(rows, 2, replace=False))
        data[where, c] = top
        winner[where[0], c] = 1.0
    return data, winner


# -- second derivatives: the graph a local backward records --------------------------------

SECOND_ORDER_SIZE = 24  # the largest input (in elements) a second-order case uses
SECOND_ORDER_VARIANTS = 6  # the most catalog variants an op's second-order check takes


def second_order_case(
    op: Op,
    rng: np.random.Generator,
    options: dict,
    layouts: Sequence[Layout],
    *,
    data: np.ndarray | None = None,
) -> Case:
    """One case of ``programs.second_order``: the local backward is called with a g that
    requires a gradient, and random tangents h (one per input, of its shape) are pulled
    back from its gradients through the graph they recorded. With S = Σ ⟨hᵢ, ∂L/∂inputᵢ⟩ =
    ⟨g, J h⟩, what reaches g must be ∂S/∂g = J h (``jvp``), and what reaches each input
    ∂S/∂input (``hvp``: zero for an op whose derivative is constant)."""
    args, arrays, tensors = _inputs(op, rng, layouts, "float64", None, data)
    f = _of_tensors(op, arrays, args, options)
    out = f(*tensors)
    upstream = rng.uniform(0.5, 1.5, np.shape(out)) * rng.choice([-1.0, 1.0], np.shape(out))
    upstream = np.asarray(upstream).round(3)
    tangents = [rng.uniform(-1.0, 1.0, np.shape(t)).round(3) for t in tensors]
    names = [n for n, _ in zip("ab", args)]
    expected = SecondOrderExpected(
        to_grad_output=jvp(f, tensors, tangents),
        to_inputs=_second_derivatives(op, f, tensors, tangents, upstream),
        names=names,
    )
    label = _label(op, options, names, list(layouts), None)
    label += tr(
        "; then its local backward with g random, and h random sent back from each of its "
        "gradients through the graph they recorded",
        "；然后用随机的 g 调用它的局部反向函数，再把随机的 h 从它的每个梯度出发，沿这些梯度"
        "记录下的计算图送回",
    )
    wire_options = {k: list(v) if isinstance(v, tuple) else v for k, v in options.items()}
    inputs = {
        "name": op.name,
        "args": args,
        "options": wire_options,
        "upstream": upstream,
        "tangents": tangents,
    }
    return Case(label, inputs, expected)


def second_order_cases(*ops: Op) -> Callable[[np.random.Generator], list[Case]]:
    """For each op: the first catalog variants whose inputs are small
    (``SECOND_ORDER_SIZE``, ``SECOND_ORDER_VARIANTS``), and its cases on given data where the
    second derivative is defined near the data (a zero base of ``**`` with an integer
    exponent; aⁿ with n = 2.5 is not analytic at 0)."""

    def small(op: Op, variant: tuple) -> bool:
        sizes = [int(np.prod(shape)) for shape, _ in variant_layouts(op, variant)]
        return max(sizes) <= SECOND_ORDER_SIZE

    def cases(rng: np.random.Generator) -> list[Case]:
        out = []
        for op in ops:
            variants = [v for v in op.variants if small(op, v)][:SECOND_ORDER_VARIANTS]
            for v in variants:
                layouts = variant_layouts(op, v)
                out.append(second_order_case(op, rng, variant_options(v, rng), layouts))
            for opts, data in op.at.values():
                if not float(opts.get("exponent", 1)).is_integer() and (data <= 0).any():
                    continue
                out.append(second_order_case(op, rng, opts, [(data.shape, "plain")], data=data))
        return out

    return cases


# -- task 2.11: be the engine ----------------------------------------------------------------


def network_loss(x: np.ndarray, y: np.ndarray) -> Callable[[np.ndarray, np.ndarray], Any]:
    """The notebook's two-layer network's loss as a function of its weights:
    mean((tanh(x w1) w2 − y)²)."""

    def loss(w1, w2):
        r = np.tanh(x @ w1) @ w2 - y
        return np.mean(r * r)

    return loss


def engine_case(x: np.ndarray, w1: np.ndarray, w2: np.ndarray, y: np.ndarray, label: str) -> Case:
    """One case of ``programs.two_layer``: the gradients of ``network_loss`` for w1, w2."""
    g1, g2 = vjp(network_loss(x, y), [w1, w2], np.ones(()))
    return Case(label, {"x": x, "w1": w1, "w2": w2, "y": y}, EngineExpected(g1, g2))

"""Chapter 2's check programs: the only part of the checks that runs next to the code under
test. Each takes the chapter's package ``sp`` and one case's inputs, builds tensors with the
given ``Tensor`` constructor, runs one operation forward, calls its node's local backward
once with the upstream gradient it was sent (and, for ``second_order``, sends tangents back
through the graph that backward recorded), and returns what it saw as plain data.
"""

from __future__ import annotations

from typing import Any, TypedDict

import numpy as np

from ...harness.kit import host, raised, tr


# What crosses the pipe: the payloads the programs return, declared once (the parent's
# verdicts read these keys; messages name things as the student writes them, e.g.
# "out.dtype", from the verdict, never from a key).
class LocalGrad(TypedDict):
    """One gradient of a local backward, as the graph recorded it."""

    shape: list[int]
    data: Any
    dtype: str
    from_grad_output: bool  # the recorded graph leads back to grad_output
    from_inputs: bool  # … and to one of the op's inputs
    function: Any  # the name of the op's Function, whose backward returned it (Index)
    made_by: Any  # the name of the Function whose forward made it (ScatterAdd), or None


class OpResult(TypedDict, total=False):
    """``op``'s observation of one op: its output, what the inputs hold, the local backward's
    gradients, and what ``Node.backward`` handed each input (or what went wrong, in words
    the parent shows as they are)."""

    type_name: str  # type(out).__name__
    function: Any  # the name of the Function that made out (Exp), or None
    out: Any
    out_dtype: str
    out_requires_grad: Any
    held: list  # each input Tensor's array
    recorded: bool  # out.grad_fn is not None
    local: list  # LocalGrad, or a sentence where it is not a Tensor
    grads: Any  # what Node.backward handed each input; a sentence where backward failed
    grad_dtypes: list


class SecondOrder(TypedDict, total=False):
    """``second_order``'s observation: what reached g and each input, and which Functions'
    nodes the pull-back ran; or a problem that stopped it."""

    to_grad_output: Any
    to_inputs: list
    functions: list[str]
    problem: str


class EngineResult(TypedDict, total=False):
    """What ``two_layer_backward`` returned: its type's name and the two gradients."""

    returned: str
    grad_w1: Any
    grad_w2: Any


# The op catalog, as the child calls it: name -> f(*tensors, **options). The parent's
# catalog (``catalog.py``) has the same names, with plain NumPy references.
OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "neg": lambda a: -a,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, exponent: a**exponent,
    "matmul": lambda a, b: a @ b,
    "exp": lambda a: a.exp(),
    "log": lambda a: a.log(),
    "sqrt": lambda a: a.sqrt(),
    "tanh": lambda a: a.tanh(),
    "sigmoid": lambda a: a.sigmoid(),
    "relu": lambda a: a.relu(),
    "abs": lambda a: a.abs(),
    "sum": lambda a, **kw: a.sum(**kw),
    "mean": lambda a, **kw: a.mean(**kw),
    "max": lambda a, **kw: a.max(**kw),
    "reshape": lambda a, shape: a.reshape(*shape) if shape else a.reshape(()),
    "view": lambda a, shape: a.view(shape),
    "transpose": lambda a, dims: a.transpose(*dims),
    "permute": lambda a, dims: a.permute(*dims),
    "T": lambda a: a.T,
    "getitem": lambda a, index: a[index],
    # chapter 3's (chapter 2's Tensor methods reach them through its seams)
    "broadcast_to": lambda a, shape: a.broadcast_to(shape),
    "sum_to_size": lambda a, shape: a.sum_to_size(shape),
}

# Non-contiguous inputs are made here, from the contiguous array the parent sent.
VIEWS = {
    "plain": lambda x: x,
    "transposed": lambda x: x.T,
    "every other row": lambda x: x[::2],  # en-only: a view's name (the parent sends it)
    "columns from 1": lambda x: x[:, 1:],
}


def _index(spec: Any) -> Any:
    """An index from its JSON form: lists of parts; {"slice": [start, stop, step]},
    {"array": [...]} (integers or booleans), "None", "..." or an int."""
    if isinstance(spec, list):
        return tuple(_index(part) for part in spec)
    if isinstance(spec, dict) and "slice" in spec:
        return slice(*spec["slice"])
    if isinstance(spec, dict) and "array" in spec:
        return np.asarray(spec["array"])
    return {"None": None, "...": Ellipsis}.get(spec, spec) if isinstance(spec, str) else spec


def _array(value: Any) -> Any:
    """A Tensor's data as a NumPy array (anything else as it is, for the verdict to name)."""
    return host(getattr(value, "data", value))


def _function(tensor: Any) -> Any:
    """The name of the Function whose node made ``tensor`` (None for a leaf)."""
    return getattr(getattr(getattr(tensor, "grad_fn", None), "function", None), "__name__", None)


def _describe(out: Any) -> OpResult:
    return {
        "type_name": type(out).__name__,
        "function": _function(out),
        "out": _array(out),
        "out_dtype": str(getattr(out, "dtype", None)),
        "out_requires_grad": getattr(out, "requires_grad", None),
    }


def fits(shape: Any, input_shape: Any, broadcast: bool) -> bool:
    """Whether a local backward may return a gradient of ``shape`` for an input of
    ``input_shape``: the input's own shape or, where operands broadcast (chapter 3), a shape
    the input broadcasts to (``Node.backward`` sums it down: ``unbroadcast``)."""
    shape, input_shape = tuple(shape), tuple(input_shape)
    if shape == input_shape or not broadcast:
        return shape == input_shape
    try:
        return np.broadcast_shapes(shape, input_shape) == shape
    except ValueError:
        return False


def op(
    sp,
    name: str,
    args: list,
    options: dict,
    upstream: Any,
    expect_error: bool = False,
    broadcast: bool = False,
    local_only: bool = False,
):
    """Apply op ``name`` to ``args`` (tensors, or numbers as constants), then call
    ``out.grad_fn.backward(upstream)``: what did each input receive? With ``expect_error``,
    making the inputs or running the op forward must fail with a clear error: which one was
    raised, and its message. With ``broadcast``, a local gradient may have a shape its input
    broadcasts to; with ``local_only``, only the local backward runs (no ``Node.backward``,
    which needs chapter 3 to undo a broadcast)."""
    if not expect_error:
        inputs, out = _forward(sp, name, args, options)
        return _backward(sp, inputs, out, upstream, broadcast, local_only, (name, options))
    return raised(lambda: _forward(sp, name, args, options))


def _forward(sp, name: str, args: list, options: dict) -> tuple[list, Any]:
    """The inputs (Tensors made with the given constructor, or numbers) and the op's output."""
    inputs = []
    for arg in args:
        if "number" in arg:
            inputs.append(arg["number"])
        else:
            data = VIEWS[arg["view"]](np.asarray(arg["data"]))  # 0-d arrays travel as scalars
            inputs.append(sp.Tensor(data, requires_grad=arg["requires_grad"]))
    if "index" in options:
        options = {"index": _index(options["index"])}
    out = OPS[name](*inputs, **options)
    if isinstance(out, tuple) and hasattr(out, "values"):  # max(dim=...): (values, indices)
        out = out.values
    return inputs, out


def _backward(
    sp,
    inputs: list,
    out: Any,
    upstream: Any,
    broadcast: bool,
    local_only: bool = False,
    op: tuple[str, dict] = ("", {}),
) -> OpResult:
    """What ``out``'s node gives each input for the upstream gradient: first its local
    backward alone, then ``Node.backward`` (which fits the gradients to the inputs). With
    what each input Tensor holds (it must be, bit for bit, the data sent)."""
    result = _describe(out)
    result["held"] = [_array(x) for x in inputs if isinstance(x, sp.Tensor)]
    node = getattr(out, "grad_fn", None)
    result["recorded"] = node is not None
    if node is None:
        result["grads"] = tr(
            "out.grad_fn is None: the operation recorded no graph",
            "out.grad_fn 是 None：该运算没有记录计算图",
        )
        return result
    parents = tuple(getattr(node, "inputs", ()))
    tensors = [x for x in inputs if isinstance(x, sp.Tensor)]  # a number became a constant
    upstream = np.array(upstream)
    upstream.flags.writeable = False  # a backward must not change the gradient it was given

    # 1. The local backward itself, as the graph would record it (grad_output requires grad):
    #    one Tensor per input, of its input's shape (see ``fits``), computed from grad_output
    #    (and, where the derivative is not constant, from the inputs) with Tensor operations.
    g = sp.Tensor(upstream, requires_grad=True)
    try:
        raw = node.function.backward(node.ctx, g)
    except NotImplementedError:
        raise
    except Exception as error:
        if "read-only" in str(error):
            result["grads"] = tr(
                "the local backward wrote into grad_output's array (read-only here): make new "
                "Tensors instead (-grad_output, not grad_output.data *= -1); in chapter 4 one "
                "gradient is handed to several nodes",
                "局部反向函数写入了 grad_output 的数组（这里它是只读的）：请改为创建新的 Tensor"
                "（写 -grad_output，而不是 grad_output.data *= -1）；在第 4 章中，同一个梯度会"
                "交给多个节点",
            )
        elif broadcast:  # under broadcasting (chapter 3), the op's backward is chapter 2's code
            name = getattr(node.function, "__name__", tr("the op", "该运算"))
            result["grads"] = tr(
                f"{name}.backward raised {type(error).__name__}: {error}",
                f"{name}.backward 抛出了 {type(error).__name__}：{error}",
            )
        else:  # raised as it is (its "raised at" lines kept), with why where the case tells
            why = why_raised(*op, [tuple(x.shape) for x in tensors], str(error))
            if why and error.args and isinstance(error.args[0], str):
                here = tr(f"{error.args[0]}. Here, {why}", f"{error.args[0]}。这里，{why}")
                error.args = (here, *error.args[1:])
            raise
        return result
    raw = raw if isinstance(raw, tuple) else (raw,)
    if len(raw) != len(parents):
        result["grads"] = tr(
            f"backward returned {len(raw)} gradients for {len(parents)} inputs",
            f"backward 为 {len(parents)} 个输入返回了 {len(raw)} 个梯度",
        )
        return result
    mine = [next((r for p, r in zip(parents, raw) if p is x), None) for x in tensors]
    result["local"] = [_local(sp, r, g, parents, node.function) for r in mine]
    if (
        any(
            isinstance(r, str) or not fits(r["shape"], x.shape, broadcast)
            for r, x in zip(result["local"], tensors)
        )
        or local_only
    ):
        return result  # the verdict names the problem; Node.backward would only hide it

    # 2. What the graph's node hands on: one gradient per input, for the values.
    grads = node.backward(sp.Tensor(upstream))
    grads = grads if isinstance(grads, tuple) else (grads,)
    grads = [next((r for p, r in zip(parents, grads) if p is x), None) for x in tensors]
    result["grads"] = [None if r is None else _array(r) for r in grads]
    result["grad_dtypes"] = [None if r is None else str(getattr(r, "dtype", None)) for r in grads]
    return result


def why_raised(name: str, options: dict, shapes: list, message: str) -> str:
    """Why an op's local backward raised, where the case and the error tell: a reduction
    without keepdim whose gradient does not broadcast (the reduced axes not back in place), a
    1-D operand of a matmul, a batch of matrices transposed beyond its last two axes; "" else.
    Words only: the check has already failed."""
    dim = options.get("dim")
    if name in ("sum", "mean", "max") and dim is not None and not options.get("keepdim"):
        if "broadcast" not in message or not shapes or not shapes[0]:
            return ""
        shape = shapes[0]
        dims = [d % len(shape) for d in (dim if isinstance(dim, list) else [dim])]
        out = tuple(n for i, n in enumerate(shape) if i not in dims)
        kept = tuple(1 if i in dims else n for i, n in enumerate(shape))
        what = (
            tr(f"axes (dim={tuple(dim)}) are", f"轴（dim={tuple(dim)}）")
            if isinstance(dim, list)
            else tr(f"axis (dim={dim}) is", f"轴（dim={dim}）")
        )
        return tr(
            f"the reduced {what} not back in place: grad_output has the output's shape {out}, "
            f"which lines up with a's {shape} only as {kept}",
            f"被归约的{what}没有放回原位：grad_output 的形状是输出的形状 {out}，它要写成 "
            f"{kept} 才能与 a 的形状 {shape} 对齐",
        )
    if name == "matmul" and any(len(s) == 1 for s in shapes):
        return tr(
            "a 1-D operand has no second-to-last axis: a 1-D a is a row, and a 1-D b a column, "
            "in disguise",
            "1-D 操作数没有倒数第二个轴：1-D 的 a 其实是一行，1-D 的 b 其实是一列",
        )
    multiplied = "cannot be multiplied" in message  # en-only: the framework's error, matched
    if name == "matmul" and any(len(s) > 2 for s in shapes) and multiplied:
        return tr(
            f"for a batch of matrices (shapes {shapes[0]} and {shapes[1]}) the transpose swaps "
            "the last two axes only; the batch axes stay where they are",
            f"对于一批矩阵（形状为 {shapes[0]} 和 {shapes[1]}），转置只应交换最后两个轴；"
            "批量轴保持原位",
        )
    return ""


def _local(sp, grad: Any, g: Any, parents: tuple, function: Any) -> LocalGrad | str:
    """What one gradient of a local backward is: its shape, its dtype, whether the graph
    recorded it from grad_output ``g`` and from the op's inputs, and which Functions
    returned it (``function``'s backward) and made it."""
    if not isinstance(grad, sp.Tensor):
        return tr(
            f"backward returned a {type(grad).__name__} where a Tensor was expected",
            f"backward 返回了 {type(grad).__name__}，而这里应当是 Tensor",
        )
    return {
        "shape": list(grad.shape),
        "data": _array(grad),
        "dtype": str(getattr(grad, "dtype", None)),
        "from_grad_output": _reaches(grad, [g]),
        "from_inputs": _reaches(grad, list(parents)),
        "function": getattr(function, "__name__", None),
        "made_by": _function(grad),
    }


def _reaches(tensor: Any, targets: list) -> bool:
    """Whether following ``grad_fn.inputs`` from ``tensor`` arrives at one of ``targets``."""
    seen, stack = set(), [tensor]
    while stack:
        t = stack.pop()
        if any(t is target for target in targets):
            return True
        if id(t) not in seen:
            seen.add(id(t))
            stack.extend(getattr(getattr(t, "grad_fn", None), "inputs", ()) or ())
    return False


def second_order(
    sp, name: str, args: list, options: dict, upstream: Any, tangents: list
) -> SecondOrder:
    """The op's local backward, called with g = Tensor(upstream, requires_grad=True); then
    each tangent h sent back from the gradient of its input through the graph recorded for
    it (``pull_back``): what reaches g, what reaches each input, and which Functions the
    graph ran."""
    inputs, out = _forward(sp, name, args, options)
    node = getattr(out, "grad_fn", None)
    if node is None:
        return {
            "problem": tr(
                "out.grad_fn is None: the operation recorded no graph",
                "out.grad_fn 是 None：该运算没有记录计算图",
            )
        }
    tensors = [x for x in inputs if isinstance(x, sp.Tensor)]
    g = sp.Tensor(np.array(upstream), requires_grad=True)
    raw = node.function.backward(node.ctx, g)
    raw = raw if isinstance(raw, tuple) else (raw,)
    parents = tuple(getattr(node, "inputs", ()))
    mine = [next((r for p, r in zip(parents, raw) if p is x), None) for x in tensors]
    if not all(isinstance(r, sp.Tensor) for r in mine):
        return {
            "problem": tr(
                "the local backward did not return a Tensor per input",
                "局部反向函数没有为每个输入返回一个 Tensor",
            )
        }
    roots = [(r, sp.Tensor(np.array(h))) for r, h in zip(mine, tangents)]
    reached, functions = pull_back(sp, roots, [g, *tensors])
    return {
        "to_grad_output": None if reached[0] is None else _array(reached[0]),
        "to_inputs": [None if r is None else _array(r) for r in reached[1:]],
        "functions": sorted(functions),
    }


def pull_back(sp, roots: list, targets: list) -> tuple[list, set]:
    """The gradients that reach ``targets`` when each root's gradient is sent back from its
    tensor through the recorded nodes (a small engine: every node's local backward once,
    after all the uses of its output have sent theirs; a gradient of a broadcast input is
    summed here, in NumPy, so that chapter 2 needs no chapter 3 and chapter 3's checks do
    not run the unbroadcast under test), None where nothing arrives; and the names of the
    Functions whose nodes it ran. Chapter 3's programs use it too."""
    order, seen, stack = [], set(), [(t, False) for t, _ in roots]
    while stack:  # depth first; a tensor is appended after everything it was made from
        t, made = stack.pop()
        if made:
            order.append(t)
        elif id(t) not in seen:
            seen.add(id(t))
            stack.append((t, True))
            node = getattr(t, "grad_fn", None)
            stack.extend((parent, False) for parent in getattr(node, "inputs", ()) or ())
    grads: dict = {}
    for t, grad in roots:
        grads[id(t)] = grad if id(t) not in grads else grads[id(t)] + grad
    stop, functions = {id(t) for t in targets}, set()
    for t in reversed(order):
        node, g = getattr(t, "grad_fn", None), grads.get(id(t))
        if node is None or g is None or id(t) in stop:
            continue
        functions.add(getattr(node.function, "__name__", "?"))
        for parent, grad in zip(node.inputs, _local_step(sp, node, g)):
            if grad is not None:
                grads[id(parent)] = grad if id(parent) not in grads else grads[id(parent)] + grad
    return [grads.get(id(t)) for t in targets], functions


def _local_step(sp, node: Any, g: Any) -> list:
    """A node's local backward for ``g``, each gradient summed onto its input's shape (as
    ``Node.backward`` does, without chapter 3's unbroadcast); None for an input that needs
    none."""
    raw = node.function.backward(node.ctx, g)
    raw = raw if isinstance(raw, tuple) else (raw,)
    out = []
    for parent, grad in zip(node.inputs, raw):
        if grad is None or not getattr(parent, "requires_grad", False):
            out.append(None)
            continue
        data, shape = host(grad), tuple(parent.shape)
        if data.shape != shape:  # summed over what broadcasting added or stretched
            data = data.sum(axis=tuple(range(data.ndim - len(shape))))
            stretched = tuple(i for i, n in enumerate(shape) if n == 1 and data.shape[i] != 1)
            data = data.sum(axis=stretched, keepdims=True).reshape(shape)
        out.append(sp.Tensor(data))
    return out


def two_layer(sp, x: Any, w1: Any, w2: Any, y: Any) -> EngineResult:
    """Task 2.11 on the given network; the gradients it returns."""
    tensors = [sp.Tensor(x), sp.Tensor(w1, requires_grad=True)]
    tensors += [sp.Tensor(w2, requires_grad=True), sp.Tensor(y)]
    result = sp.two_layer_backward(*tensors)
    if not isinstance(result, tuple) or len(result) != 2:
        return {"returned": type(result).__name__}
    return {"returned": "tuple", "grad_w1": _array(result[0]), "grad_w2": _array(result[1])}

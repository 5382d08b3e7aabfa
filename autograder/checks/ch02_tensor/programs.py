"""Chapter 2's check programs: the only part of the checks that runs next to the code under
test. Each takes the chapter's package ``sp`` and one case's inputs, builds tensors with the
given ``Tensor`` constructor, runs one operation forward, calls its node's local backward
once with the upstream gradient it was sent, and returns what it saw as plain data.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# The op catalog, as the child calls it: name -> f(*tensors, **options). The parent's
# catalog (``__init__.py``) has the same names, with plain NumPy references.
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
}

# Non-contiguous inputs are made here, from the contiguous array the parent sent.
VIEWS = {
    "plain": lambda x: x,
    "transposed": lambda x: x.T,
    "every other row": lambda x: x[::2],
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
    data = getattr(value, "data", value)
    return np.asarray(data) if isinstance(data, (np.ndarray, np.generic)) else data


def _describe(out: Any) -> dict:
    return {
        "type(out)": type(out).__name__,
        "out": _array(out),
        "out.dtype": str(getattr(out, "dtype", None)),
        "out.requires_grad": getattr(out, "requires_grad", None),
    }


def op(sp, name: str, args: list, options: dict, upstream: Any, expect_error: bool = False):
    """Apply op ``name`` to ``args`` (tensors, or numbers as constants), then call
    ``out.grad_fn.backward(upstream)``: what did each input receive? With ``expect_error``,
    the case must fail with a clear error: which one was raised, and its message."""
    if not expect_error:
        return _forward_backward(sp, name, args, options, upstream)
    try:
        _forward_backward(sp, name, args, options, upstream)
    except NotImplementedError:
        raise
    except Exception as error:
        return {"error": type(error).__name__, "message": str(error)}
    return {"error": None, "message": ""}


def _forward_backward(sp, name: str, args: list, options: dict, upstream: Any) -> dict:
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
    result = _describe(out)
    node = getattr(out, "grad_fn", None)
    if node is None:
        result["grads"] = "out.grad_fn is None: the operation recorded no graph"
        return result
    grads = node.backward(sp.Tensor(np.asarray(upstream)))
    grads = grads if isinstance(grads, tuple) else (grads,)
    parents = getattr(node, "inputs", ())
    if len(grads) != len(parents):
        result["grads"] = f"backward returned {len(grads)} gradients for {len(parents)} inputs"
        return result
    # the gradient of each tensor made here (a number became a constant input of its own)
    tensors = [x for x in inputs if isinstance(x, sp.Tensor)]
    grads = [next((g for p, g in zip(parents, grads) if p is x), None) for x in tensors]
    result["grads"] = [None if g is None else _array(g) for g in grads]
    result["grad dtypes"] = [None if g is None else str(getattr(g, "dtype", None)) for g in grads]
    return result


def two_layer(sp, x: Any, w1: Any, w2: Any, y: Any):
    """Task 2.11 on the given network; the gradients it returns."""
    tensors = [sp.Tensor(x), sp.Tensor(w1, requires_grad=True)]
    tensors += [sp.Tensor(w2, requires_grad=True), sp.Tensor(y)]
    result = sp.two_layer_backward(*tensors)
    if not isinstance(result, tuple) or len(result) != 2:
        return {"returned": type(result).__name__}
    return {"returned": "tuple", "grad w1": _array(result[0]), "grad w2": _array(result[1])}

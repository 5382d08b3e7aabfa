"""Chapter 7's cases and the parent's own expectations (public and hidden checks share them).

Nothing here imports the code under test or the reference: what each probe must answer for
each state of a machine, whose array each array is, what a move returns and copies, the
gradient of a copy, PyTorch's two-device sentence, a scatter-add (``numpy.add.at``) and one
training step of a small network (plain NumPy, float64) are the autograder's own.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...harness.api import Case

# -- 7.1 --------------------------------------------------------------------------------------

STATES = {  # state: (words for the label, is_available, device_count)
    ("works", 1): ("CuPy working with one GPU", True, 1),
    ("works", 2): ("CuPy working with two GPUs", True, 2),
    ("works", 3): ("CuPy working with three GPUs", True, 3),
    ("no driver", 0): (
        "CuPy installed, the device count raises CUDARuntimeError (cudaErrorInsufficientDriver)",
        False,
        0,
    ),
    ("kernel fails", 1): (
        "CuPy installed, one device counted, the first kernel raises CUDARuntimeError "
        "(cudaErrorInsufficientDriver): no usable GPU",
        False,
        0,
    ),
    ("kernel fails", 2): (
        "CuPy installed, two devices counted, every kernel fails (no usable GPU)",
        False,
        0,
    ),
    ("fails late", 1): (
        "CuPy installed, one device counted, the kernel launches and its error shows when "
        "the result is read back (an asynchronous CUDA error): no usable GPU",
        False,
        0,
    ),
    ("no device", 0): ("CuPy installed, 0 devices", False, 0),
    ("no cupy", 0): ("CuPy not installed (import cupy raises ImportError)", False, 0),
}


def probe_case(state: str, devices: int = 0, words: str = "") -> Case:
    """A probe against a fake CuPy in ``state`` (``words``: the label's, for states the
    table does not list, such as a drawn number of GPUs)."""
    if (state, devices) in STATES:
        words, available, count = STATES[(state, devices)]
    else:
        available, count = (True, devices) if state == "works" and devices else (False, 0)
    return Case(
        f"{words}: import the cuda module, is_available() ×3, device_count() ×2",
        {"state": state, "devices": devices},
        {"available": available, "count": count, "state": state},
    )


# -- 7.2 --------------------------------------------------------------------------------------

TYPES = {"list": "list", "tuple": "tuple", "stranger": "Mystery"}


def array_text(spec: dict) -> str:
    what = spec["kind"]
    if what == "numpy":
        return f"a NumPy array of shape {np.shape(spec['data'])} ({spec.get('dtype')})"
    if what == "scalar":
        return "a NumPy scalar (numpy.float32)"
    if what == "sim":
        return f"a simulated-device array of shape {np.shape(spec['data'])}"
    if what == "toy":
        return f"an array of a registered 'toy' device, on toy:{spec['index']}"
    if what in ("list", "tuple"):
        return f"a Python {what}"
    return "an object of an unknown class Mystery"


def whose_expected(spec: dict) -> dict:
    """array_module's namespace name, device_of's (str, type, index), backend_of's type; or
    the TypeError that names the type."""
    what = spec["kind"]
    if what in TYPES:
        return {"error": "TypeError", "names": TYPES[what]}
    if what in ("numpy", "scalar"):
        return {"xp": "numpy", "device": ["cpu", "cpu", None], "backend": "cpu"}
    if what == "sim":
        return {"xp": "simnumpy", "device": ["sim:0", "sim", 0], "backend": "sim"}
    index = spec["index"]
    return {"xp": "toynumpy", "device": [f"toy:{index}", "toy", index], "backend": "toy"}


def whose_case(specs: list[dict], register: bool = False, label: str = "") -> Case:
    text = label or "; ".join(array_text(s) for s in specs)
    if register:
        text += " (a 'toy' backend registered with register_backend)"
    return Case(
        f"array_module, device_of and backend_of of {text}",
        {"arrays": specs, "register": register},
        [whose_expected(s) for s in specs],
    )


# -- 7.3 --------------------------------------------------------------------------------------


def _resolved(name: str) -> str:
    """A device's name with its index, as ``resolve`` gives it ("sim" → "sim:0")."""
    kind, _, index = name.partition(":")
    return kind if kind == "cpu" else f"{kind}:{index or 0}"


def move_case(
    source: str,
    data: Any,
    dtype: str,
    target: str,
    order: str = "C",
    label: str = "",
    toy: str = "",
) -> Case:
    """move_array of an array on ``source`` ("cpu", "sim", "toy:k") to ``target``: the
    expected kind, values and copies, or the error (RuntimeError for a device that is not
    there, ValueError for an unknown type). ``toy``: a "toy" device type registered for the
    case, with three devices ("on") or not available ("off")."""
    name = target.removeprefix("device:")
    kind_of = name.partition(":")[0]
    values = np.array(data, dtype=dtype)
    values = values.T if order == "T" else values
    shown = f"sp.device({name!r})" if target.startswith("device:") else repr(name)
    where = {"cpu": "cpu", "sim": "sim"}.get(source, f"{source} (a registered toy device)")
    text = label or (
        f"move_array of a {where} array of shape {values.shape} ({dtype}"
        f"{', transposed' if order == 'T' else ''}) to {shown}"
        + (" (a toy device registered, not available)" if toy == "off" else "")
        + (
            " (a toy device with 3 devices registered)"
            if toy == "on" and "toy" not in where
            else ""
        )
    )
    known = ("cpu", "sim", "cuda") + (("toy",) if toy else ())
    there = {"cpu:", "sim:0"} | ({"toy:0", "toy:1", "toy:2"} if toy == "on" else set())
    resolved = _resolved(name)
    if kind_of not in known:
        expected: dict = {"error": "ValueError", "device": name}
    elif resolved.rstrip(":") not in {t.rstrip(":") for t in there}:
        off = kind_of == "cuda" or (kind_of == "toy" and toy == "off")  # not available
        expected = {"error": "RuntimeError", "device": name, "unavailable": off}
    else:
        here = {"cpu": "numpy", "sim": "sim"}.get(kind_of, kind_of)
        same = resolved == _resolved(source)
        to_device = int(kind_of == "sim" and not same)
        to_host = int(source == "sim" and not same)
        expected = {
            "error": None,
            "kind": here,
            "same": same,
            "values": values,
            "dtype": dtype,
            "copies": (to_device, to_host),
        }
    inputs = {
        "source": source,
        "data": np.array(data, dtype=dtype),
        "dtype": dtype,
        "target": target,
        "order": order,
    }
    return Case(text, {**inputs, "toy": toy} if toy else inputs, expected)


# -- 7.4 --------------------------------------------------------------------------------------


def to_device_case(x: Any, w: Any, start: str, go: str, how: str = "to") -> Case:
    x, w = np.asarray(x, dtype=float), np.asarray(w, dtype=float)
    call = {"to": f".to({go!r})", "device": f".to(sp.device({go!r}))", "cpu": ".cpu()"}[how]
    ends = "cpu" if go == "cpu" else "sim:0"
    return Case(
        f"x a leaf on {start} of shape {x.shape}, y = x{call}, L = (y * y * w).sum() with w on "
        f"{go}, L.backward()",
        {"x": x.tolist(), "w": w.tolist(), "start": start, "go": go, "how": how},
        {
            "y_device": ends,
            "y_values": x,
            "grad_device": "cpu" if start == "cpu" else "sim:0",
            "grad": 2 * x * w,
            "moved": [1, 0] if start == "cpu" else [0, 1],
            "back": [0, 1] if start == "cpu" else [1, 0],
        },
    )


def toy_case(x: Any, w: Any, start: str, index: int, label: str = "") -> Case:
    """x on ``start`` through a registered toy device and back: the gradient is ``w``."""
    x, w = np.asarray(x, dtype=float), np.asarray(w, dtype=float)
    where = "cpu" if start == "cpu" else "sim:0"
    return Case(
        label
        or f"a toy device registered; x a leaf on {start} of shape {x.shape}, y = "
        f"x.to('toy:{index}'), z = y.to({start!r}), (z * w).sum().backward()",
        {"x": x.tolist(), "w": w.tolist(), "start": start, "index": index},
        {"y_device": f"toy:{index}", "z_device": where, "grad_device": where, "grad": w},
    )


def double_case(x: Any, start: str, go: str) -> Case:
    x = np.asarray(x, dtype=float)
    return Case(
        f"x a leaf on {start}, y = x.to({go!r}), g = autograd.grad((y**3).sum(), x, "
        "create_graph=True), then g.sum().backward()",
        {"x": x.tolist(), "start": start, "go": go},
        {
            "g_device": "cpu" if start == "cpu" else "sim:0",
            "g": 3 * x * x,
            "x_grad": 6 * x,
        },
    )


MODULE_SHAPES = {  # Linear(3, 2) then BatchNorm1d(2): each parameter's and buffer's shape
    "0.weight": (2, 3),
    "0.bias": (2,),
    "1.weight": (2,),
    "1.bias": (2,),
}
MODULE_BUFFERS = ("1.running_mean", "1.running_var", "1.num_batches_tracked")


def _eighths(rng: np.random.Generator, low: float, high: float, shape: tuple) -> list:
    """Values drawn from low to high in steps of 1/8: exact in every float dtype."""
    return (rng.integers(int(low * 8), int(high * 8) + 1, shape) / 8).tolist()


def module_to_case(label: str, x: Any, target: str, rng: np.random.Generator | None = None) -> Case:
    """Linear(3, 2), BatchNorm1d(2) after one backward on ``x``, then model.to(``target``)
    and back. Before the move the program writes the values given here into every
    parameter, gradient and buffer (in place), so the parent knows what each must still
    hold after it: fixed ones, or drawn from ``rng`` (eighths, exact in any float dtype)."""
    if rng is None:
        state = {
            "0.weight": [[0.25, -1.5, 2.0], [1.25, 0.5, -0.75]],
            "0.bias": [0.125, -2.5],
            "1.weight": [1.5, 0.75],
            "1.bias": [-0.5, 0.25],
            "1.running_mean": [0.375, -0.625],
            "1.running_var": [1.75, 0.5],
            "1.num_batches_tracked": 3,
        }
        grads = {
            "0.weight": [[-0.5, 1.0, 0.25], [2.0, -1.25, 0.75]],
            "0.bias": [1.5, -0.25],
            "1.weight": [-2.0, 0.625],
            "1.bias": [0.875, -1.125],
        }
    else:
        state = {n: _eighths(rng, -2, 2, s) for n, s in MODULE_SHAPES.items()}
        state["1.running_mean"] = _eighths(rng, -2, 2, (2,))
        state["1.running_var"] = _eighths(rng, 0.5, 2, (2,))
        state["1.num_batches_tracked"] = int(rng.integers(2, 9))
        grads = {n: _eighths(rng, -2, 2, s) for n, s in MODULE_SHAPES.items()}
    return Case(label, {"x": x, "target": target, "state": state, "grads": grads})


# -- 7.5 --------------------------------------------------------------------------------------

OPS = {
    "+": "Add",
    "-": "Sub",
    "/": "Div",
    "@": "MatMul",
    "*": "Mul",
    "Three": "Three",
    "check": "Op",
}


def mixed_case(op: str, places: list[str], base: Any = None) -> Case:
    """``op`` on tensors on ``places``; their values are ``base`` × 1, 2, 3 (``base``:
    [[1, 2], [3, 4]] unless given)."""
    base = np.array([[1.0, 2.0], [3.0, 4.0]]) if base is None else np.asarray(base, float)
    names = [{"cpu": "cpu", "sim": "sim:0"}.get(p, p) for p in places]
    distinct = list(dict.fromkeys(names))
    if op == "check":
        text = f"check_same_device('Op', [tensors on {', '.join(names)}])"
        if any(p.startswith("toy") for p in places):
            text += " (a toy device type registered)"
    elif op == "Three":
        text = f"a Function of three inputs on {', '.join(names)} (Three.apply)"
    else:
        text = f"a {op} b, a on {names[0]} and b on {names[1]}"
    if len(distinct) == 1:
        values = None
        if op != "check":
            a, b = base, 2 * base
            values = {"+": a + b, "-": a - b, "/": a / b, "@": a @ b, "*": a * b}.get(op, 6 * a)
        inputs = {"op": op, "places": places, "base": base}
        return Case(text, inputs, {"error": None, "values": values})
    message = (
        "Expected all tensors to be on the same device, but found at least two devices, "
        f"{distinct[0]} and {distinct[1]}! (in {OPS[op]})"
    )
    return Case(
        text,
        {"op": op, "places": places, "base": base},
        {"error": "RuntimeError", "message": message, "devices": distinct[:2], "op": OPS[op]},
    )


# -- 7.6 --------------------------------------------------------------------------------------


def _scatter_text(places: dict, index: Any) -> str:
    where = {
        "sim": "on sim",
        "numpy": "a NumPy array",
        "list": "a list",
        "tuple-numpy": "a tuple of NumPy arrays",
        "tuple-sim": "a tuple of sim arrays",
        "int": "an int",
        "scalar": "a Python float",
    }
    return (
        f"scatter_add: target {'on sim' if places['target'] == 'sim' else 'a NumPy array'}, "
        f"index {where[places['index']]} {np.asarray(index).tolist()}, values "
        f"{where[places['values']]}"
    )


def scatter_crossings(places: dict, index: Any) -> list[str]:
    """What a scatter-add into a sim target must copy to the device: each host array of the
    index (a NumPy array, a list, each NumPy array of a tuple) and NumPy values, once each.
    A sim array and a Python number are used as they are; into a NumPy target, nothing
    crosses."""
    if places["target"] != "sim":
        return []
    where, crossing = places["index"], []
    if where in ("numpy", "list"):
        crossing.append(f"the index ({'a list' if where == 'list' else 'a NumPy array'})")
    elif where == "tuple-numpy":
        crossing += [f"the index tuple's array {k}" for k in range(len(index))]
    if places["values"] == "numpy":
        crossing.append("the NumPy values")
    return crossing


def scatter_case(target: Any, index: Any, values: Any, places: dict) -> Case:
    target = np.asarray(target, dtype=float)
    idx = tuple(np.asarray(i) for i in index) if places["index"].startswith("tuple") else index
    idx = np.asarray(idx) if isinstance(idx, list) else idx
    want, once = target.copy(), target.copy()
    np.add.at(want, idx, values)
    once[idx] += values  # a repeated position counted once: the mistake to name
    crossing = scatter_crossings(places, index)
    return Case(
        _scatter_text(places, index),
        {"target": target, "index": index, "values": values, "places": places},
        {
            "values": want,
            "once": once,
            "kind": "sim" if places["target"] == "sim" else "numpy",
            "copies": (len(crossing), 0),  # (host → device, device → host)
            "crossing": crossing,
        },
    )


def index_grad_case(x: Any, index: list, w: Any) -> Case:
    x, w = np.asarray(x, dtype=float), np.asarray(w, dtype=float)
    grad = np.zeros_like(x)
    np.add.at(grad, np.asarray(index), w)
    return Case(
        f"x a leaf on sim of shape {x.shape}, L = (x[{index}] * w).sum(), L.backward()",
        {"x": x.tolist(), "index": index, "w": w.tolist()},
        {"device": "sim:0", "values": grad},
    )


# -- one training step (device behaviours under 7.2) --------------------------------------------


def train(weights: list, x: np.ndarray, y: np.ndarray, lr: float, mu: float, steps: int) -> dict:
    """Linear, Tanh, Linear, mse_loss, SGD with momentum (PyTorch's rule): the losses and
    the parameters after ``steps`` steps, in float64."""
    w1, b1, w2, b2 = (np.array(w, dtype=float) for w in weights)
    params, buffers, losses = [w1, b1, w2, b2], [None] * 4, []
    for _ in range(steps):
        w1, b1, w2, b2 = params
        h = np.tanh(x @ w1.T + b1)
        out = h @ w2.T + b2
        diff = out - y
        losses.append(float(np.mean(diff**2)))
        d_out = 2 * diff / diff.size
        d_w2, d_b2 = d_out.T @ h, d_out.sum(0)
        d_pre = (d_out @ w2) * (1 - h * h)
        d_w1, d_b1 = d_pre.T @ x, d_pre.sum(0)
        grads = [d_w1, d_b1, d_w2, d_b2]
        for i, g in enumerate(grads):
            buffers[i] = g.copy() if buffers[i] is None else mu * buffers[i] + g
            params[i] = params[i] - lr * buffers[i]
    return {"losses": losses, "params": params}


def training_case(rng: np.random.Generator, batch: int, steps: int, label: str = "") -> Case:
    shapes = [(4, 3), (4,), (2, 4), (2,)]
    weights = [rng.uniform(-0.8, 0.8, s).round(3) for s in shapes]
    x, y = rng.uniform(-1, 1, (batch, 3)).round(3), rng.uniform(-1, 1, (batch, 2)).round(3)
    lr, mu = 0.1, 0.9
    return Case(
        label
        or f"Linear(3, 4), Tanh, Linear(4, 2) on sim, a batch of {batch} on sim, {steps} steps "
        "of SGD(lr=0.1, momentum=0.9) on mse_loss",
        {"weights": weights, "x": x, "y": y, "lr": lr, "momentum": mu, "steps": steps},
        train(weights, x, y, lr, mu, steps),
    )


def loader_case(n: int, batch_size: int, drop_last: bool, label: str = "") -> Case:
    x = np.arange(n * 2, dtype=float).reshape(n, 2) / 4
    y = np.arange(n) % 3
    stops = range(0, n - (n % batch_size if drop_last else 0), batch_size)
    batches = [[x[i : i + batch_size], y[i : i + batch_size]] for i in stops]
    batches = [b for b in batches if len(b[0])]
    return Case(
        label
        or f"DataLoader(TensorDataset(x, y), batch_size={batch_size}, drop_last={drop_last}) "
        f"with x ({n}, 2) and y ({n},) on sim",
        {"x": x, "y": y, "batch_size": batch_size, "drop_last": drop_last},
        batches,
    )

"""Chapter 7's cases and the parent's own expectations (public and hidden checks share them).

Nothing here imports the code under test or the reference: what each probe must answer for
each state of a machine, whose array each array is, what a move returns and copies, the
gradient of a copy, PyTorch's two-device sentence, a scatter-add (``numpy.add.at``) and one
training step of a small network (plain NumPy, float64) are the autograder's own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...harness.api import Case
from ...harness.language import LANGUAGES, Label, Text, say


def labelled(text: Text) -> Text:
    """``text`` as a label: a str as it is, a text in several languages a ``Label``."""
    return text if isinstance(text, str) else Label(text)


def both(write: Callable[[str], str]) -> Text:
    """A label in every language of the course: ``write(lang)`` writes it in ``lang`` (a case
    builder runs at import too, where ``tr`` would choose once for good)."""
    return Label({lang: write(lang) for lang in LANGUAGES})


def labelled_case(label: Text, *args: Any) -> Case:
    """A case whose label may be a text in several languages (see ``labelled``)."""
    return Case(labelled(label), *args)


# -- 7.1 --------------------------------------------------------------------------------------

STATES = {  # state: (words for the label, is_available, device_count)
    ("works", 1): (
        {"en": "CuPy working with one GPU", "zh": "CuPy 正常工作，有 1 块 GPU"},
        True,
        1,
    ),
    ("works", 2): (
        {"en": "CuPy working with two GPUs", "zh": "CuPy 正常工作，有 2 块 GPU"},
        True,
        2,
    ),
    ("works", 3): (
        {"en": "CuPy working with three GPUs", "zh": "CuPy 正常工作，有 3 块 GPU"},
        True,
        3,
    ),
    ("no driver", 0): (
        {
            "en": "CuPy installed, the device count raises CUDARuntimeError "
            "(cudaErrorInsufficientDriver)",
            "zh": "已安装 CuPy，查询设备数时抛出 CUDARuntimeError（cudaErrorInsufficientDriver）",
        },
        False,
        0,
    ),
    ("kernel fails", 1): (
        {
            "en": "CuPy installed, one device counted, the first kernel raises CUDARuntimeError "
            "(cudaErrorInsufficientDriver): no usable GPU",
            "zh": "已安装 CuPy，数到 1 个设备，第一个内核就抛出 CUDARuntimeError"
            "（cudaErrorInsufficientDriver）：没有可用的 GPU",
        },
        False,
        0,
    ),
    ("kernel fails", 2): (
        {
            "en": "CuPy installed, two devices counted, every kernel fails (no usable GPU)",
            "zh": "已安装 CuPy，数到 2 个设备，每个内核都失败（没有可用的 GPU）",
        },
        False,
        0,
    ),
    ("fails late", 1): (
        {
            "en": "CuPy installed, one device counted, the kernel launches and its error shows "
            "when the result is read back (an asynchronous CUDA error): no usable GPU",
            "zh": "已安装 CuPy，数到 1 个设备，内核能启动，但错误在读回结果时才出现"
            "（异步的 CUDA 错误）：没有可用的 GPU",
        },
        False,
        0,
    ),
    ("no device", 0): (
        {"en": "CuPy installed, 0 devices", "zh": "已安装 CuPy，0 个设备"},
        False,
        0,
    ),
    ("no cupy", 0): (
        {
            "en": "CuPy not installed (import cupy raises ImportError)",
            "zh": "未安装 CuPy（import cupy 抛出 ImportError）",
        },
        False,
        0,
    ),
}


def probe_case(state: str, devices: int = 0, words: Text = "") -> Case:
    """A probe against a fake CuPy in ``state`` (``words``: the label's, for states the
    table does not list, such as a drawn number of GPUs)."""
    if (state, devices) in STATES:
        words, available, count = STATES[(state, devices)]
    else:
        available, count = (True, devices) if state == "works" and devices else (False, 0)

    def label(lang: str) -> str:
        w = say(words, lang)
        return say(
            {
                "en": f"{w}: import the cuda module, is_available() ×3, device_count() ×2",
                "zh": f"{w}：导入 cuda 模块，调用 is_available() 3 次、device_count() 2 次",
            },
            lang,
        )

    return labelled_case(
        both(label),
        {"state": state, "devices": devices},
        {"available": available, "count": count, "state": state},
    )


# -- 7.2 --------------------------------------------------------------------------------------

TYPES = {"list": "list", "tuple": "tuple", "stranger": "Mystery"}


def array_text(spec: dict, lang: str | None = None) -> str:
    """The array ``spec`` describes, in words (``lang``: default, the learner's)."""
    what = spec["kind"]
    if what == "numpy":
        shape, dtype = np.shape(spec["data"]), spec.get("dtype")
        return say(
            {
                "en": f"a NumPy array of shape {shape} ({dtype})",
                "zh": f"一个形状为 {shape} 的 NumPy 数组（{dtype}）",
            },
            lang,
        )
    if what == "scalar":
        return say(
            {"en": "a NumPy scalar (numpy.float32)", "zh": "一个 NumPy 标量（numpy.float32）"}, lang
        )
    if what == "sim":
        shape = np.shape(spec["data"])
        return say(
            {
                "en": f"a simulated-device array of shape {shape}",
                "zh": f"一个形状为 {shape} 的模拟设备数组",
            },
            lang,
        )
    if what == "toy":
        index = spec["index"]
        return say(
            {
                "en": f"an array of a registered 'toy' device, on toy:{index}",
                "zh": f"一个已注册的 'toy' 设备上的数组，位于 toy:{index}",
            },
            lang,
        )
    if what in ("list", "tuple"):
        return say({"en": f"a Python {what}", "zh": f"一个 Python {what}"}, lang)
    return say(
        {"en": "an object of an unknown class Mystery", "zh": "一个未知类 Mystery 的对象"}, lang
    )


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


def whose_case(specs: list[dict], register: bool = False, label: Text = "") -> Case:
    def words(lang: str) -> str:
        text = say(label, lang) or say({"en": "; ", "zh": "；"}, lang).join(
            array_text(s, lang) for s in specs
        )
        if register:
            text += say(
                {
                    "en": " (a 'toy' backend registered with register_backend)",
                    "zh": "（用 register_backend 注册了 'toy' 后端）",
                },
                lang,
            )
        return say(
            {
                "en": f"array_module, device_of and backend_of of {text}",
                "zh": f"array_module、device_of 和 backend_of，作用于：{text}",
            },
            lang,
        )

    return labelled_case(
        both(words),
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
    label: Text = "",
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

    def words(lang: str) -> str:
        if label:
            return say(label, lang)
        where = {"cpu": "cpu", "sim": "sim"}.get(source) or say(
            {
                "en": f"{source} (a registered toy device)",
                "zh": f"{source}（一个已注册的 toy 设备）",
            },
            lang,
        )
        transposed = say({"en": ", transposed", "zh": "，已转置"}, lang) if order == "T" else ""
        text = say(
            {
                "en": f"move_array of a {where} array of shape {values.shape} ({dtype}"
                f"{transposed}) to {shown}",
                "zh": f"用 move_array 把形状为 {values.shape} 的数组（{dtype}{transposed}）"
                f"移到 {shown}，源设备为 {where}",
            },
            lang,
        )
        if toy == "off":
            text += say(
                {
                    "en": " (a toy device registered, not available)",
                    "zh": "（注册了一个 toy 设备，但它不可用）",
                },
                lang,
            )
        if toy == "on" and source in ("cpu", "sim"):
            text += say(
                {
                    "en": " (a toy device with 3 devices registered)",
                    "zh": "（注册了一个有 3 个设备的 toy 设备类型）",
                },
                lang,
            )
        return text

    text = both(words)

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
    return labelled_case(text, {**inputs, "toy": toy} if toy else inputs, expected)


# -- 7.4 --------------------------------------------------------------------------------------


def to_device_case(x: Any, w: Any, start: str, go: str, how: str = "to") -> Case:
    x, w = np.asarray(x, dtype=float), np.asarray(w, dtype=float)
    call = {"to": f".to({go!r})", "device": f".to(sp.device({go!r}))", "cpu": ".cpu()"}[how]
    ends = "cpu" if go == "cpu" else "sim:0"
    return labelled_case(
        {
            "en": f"x a leaf on {start} of shape {x.shape}, y = x{call}, L = (y * y * w).sum() "
            f"with w on {go}, L.backward()",
            "zh": f"x 是 {start} 上形状为 {x.shape} 的叶子节点，y = x{call}，"
            f"L = (y * y * w).sum()（w 在 {go} 上），L.backward()",
        },
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


def toy_case(x: Any, w: Any, start: str, index: int, label: Text = "") -> Case:
    """x on ``start`` through a registered toy device and back: the gradient is ``w``."""
    x, w = np.asarray(x, dtype=float), np.asarray(w, dtype=float)
    where = "cpu" if start == "cpu" else "sim:0"
    return labelled_case(
        label
        or {
            "en": f"a toy device registered; x a leaf on {start} of shape {x.shape}, y = "
            f"x.to('toy:{index}'), z = y.to({start!r}), (z * w).sum().backward()",
            "zh": f"注册了一个 toy 设备；x 是 {start} 上形状为 {x.shape} 的叶子节点，"
            f"y = x.to('toy:{index}')，z = y.to({start!r})，(z * w).sum().backward()",
        },
        {"x": x.tolist(), "w": w.tolist(), "start": start, "index": index},
        {"y_device": f"toy:{index}", "z_device": where, "grad_device": where, "grad": w},
    )


def double_case(x: Any, start: str, go: str) -> Case:
    x = np.asarray(x, dtype=float)
    return labelled_case(
        {
            "en": f"x a leaf on {start}, y = x.to({go!r}), g = autograd.grad((y**3).sum(), x, "
            "create_graph=True), then g.sum().backward()",
            "zh": f"x 是 {start} 上的叶子节点，y = x.to({go!r})，"
            "g = autograd.grad((y**3).sum(), x, create_graph=True)，再 g.sum().backward()",
        },
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


def module_to_case(
    label: Text, x: Any, target: str, rng: np.random.Generator | None = None
) -> Case:
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
    return labelled_case(label, {"x": x, "target": target, "state": state, "grads": grads})


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
    listed = ", ".join(names)
    text: Text
    if op == "check":
        text = {
            "en": f"check_same_device('Op', [tensors on {listed}])",
            "zh": f"check_same_device('Op', [分别在 {listed} 上的张量])",
        }
        if any(p.startswith("toy") for p in places):
            text = {
                "en": f"check_same_device('Op', [tensors on {listed}]) (a toy device type "
                "registered)",
                "zh": f"check_same_device('Op', [分别在 {listed} 上的张量])（注册了 toy 设备类型）",
            }
    elif op == "Three":
        text = {
            "en": f"a Function of three inputs on {listed} (Three.apply)",
            "zh": f"一个有三个输入的 Function，输入分别在 {listed} 上（Three.apply）",
        }
    else:
        text = {
            "en": f"a {op} b, a on {names[0]} and b on {names[1]}",
            "zh": f"a {op} b，a 在 {names[0]} 上，b 在 {names[1]} 上",
        }
    if len(distinct) == 1:
        values = None
        if op != "check":
            a, b = base, 2 * base
            values = {"+": a + b, "-": a - b, "/": a / b, "@": a @ b, "*": a * b}.get(op, 6 * a)
        inputs = {"op": op, "places": places, "base": base}
        return labelled_case(text, inputs, {"error": None, "values": values})
    message = (
        "Expected all tensors to be on the same device, but found at least two devices, "
        f"{distinct[0]} and {distinct[1]}! (in {OPS[op]})"  # en-only: PyTorch's message
    )
    return labelled_case(
        text,
        {"op": op, "places": places, "base": base},
        {"error": "RuntimeError", "message": message, "devices": distinct[:2], "op": OPS[op]},
    )


# -- 7.6 --------------------------------------------------------------------------------------


SCATTER_PLACES = {
    "sim": {"en": "on sim", "zh": "在 sim 上"},
    "numpy": {"en": "a NumPy array", "zh": "是 NumPy 数组"},
    "list": {"en": "a list", "zh": "是列表"},
    "tuple-numpy": {"en": "a tuple of NumPy arrays", "zh": "是 NumPy 数组组成的元组"},
    "tuple-sim": {"en": "a tuple of sim arrays", "zh": "是 sim 数组组成的元组"},
    "int": {"en": "an int", "zh": "是 int"},
    "scalar": {"en": "a Python float", "zh": "是 Python float"},
}


def _scatter_text(places: dict, index: Any) -> Text:
    def words(lang: str) -> str:
        target = say(SCATTER_PLACES["sim" if places["target"] == "sim" else "numpy"], lang)
        where = say(SCATTER_PLACES[places["index"]], lang)
        values = say(SCATTER_PLACES[places["values"]], lang)
        shown = np.asarray(index).tolist()
        return say(
            {
                "en": f"scatter_add: target {target}, index {where} {shown}, values {values}",
                "zh": f"scatter_add：目标{target}，索引{where} {shown}，值{values}",
            },
            lang,
        )

    return both(words)


def scatter_crossings(places: dict, index: Any) -> list[Text]:
    """What a scatter-add into a sim target must copy to the device: each host array of the
    index (a NumPy array, a list, each NumPy array of a tuple) and NumPy values, once each.
    A sim array and a Python number are used as they are; into a NumPy target, nothing
    crosses."""
    if places["target"] != "sim":
        return []
    where, crossing = places["index"], []
    if where == "list":
        crossing.append({"en": "the index (a list)", "zh": "索引（列表）"})
    elif where == "numpy":
        crossing.append({"en": "the index (a NumPy array)", "zh": "索引（NumPy 数组）"})
    elif where == "tuple-numpy":
        crossing += [
            {"en": f"the index tuple's array {k}", "zh": f"索引元组的第 {k} 个数组"}
            for k in range(len(index))
        ]
    if places["values"] == "numpy":
        crossing.append({"en": "the NumPy values", "zh": "作为值的 NumPy 数组"})
    return crossing


def scatter_case(target: Any, index: Any, values: Any, places: dict) -> Case:
    target = np.asarray(target, dtype=float)
    idx = tuple(np.asarray(i) for i in index) if places["index"].startswith("tuple") else index
    idx = np.asarray(idx) if isinstance(idx, list) else idx
    want, once = target.copy(), target.copy()
    np.add.at(want, idx, values)
    once[idx] += values  # a repeated position counted once: the mistake to name
    crossing = scatter_crossings(places, index)
    return labelled_case(
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
    return labelled_case(
        {
            "en": f"x a leaf on sim of shape {x.shape}, L = (x[{index}] * w).sum(), L.backward()",
            "zh": f"x 是 sim 上形状为 {x.shape} 的叶子节点，L = (x[{index}] * w).sum()，"
            "L.backward()",
        },
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


def training_case(rng: np.random.Generator, batch: int, steps: int, label: Text = "") -> Case:
    shapes = [(4, 3), (4,), (2, 4), (2,)]
    weights = [rng.uniform(-0.8, 0.8, s).round(3) for s in shapes]
    x, y = rng.uniform(-1, 1, (batch, 3)).round(3), rng.uniform(-1, 1, (batch, 2)).round(3)
    lr, mu = 0.1, 0.9
    return labelled_case(
        label
        or {
            "en": f"Linear(3, 4), Tanh, Linear(4, 2) on sim, a batch of {batch} on sim, {steps} "
            "steps of SGD(lr=0.1, momentum=0.9) on mse_loss",
            "zh": f"sim 上的 Linear(3, 4)、Tanh、Linear(4, 2)，sim 上一个大小为 {batch} 的批量，"
            f"对 mse_loss 做 {steps} 步 SGD(lr=0.1, momentum=0.9)",
        },
        {"weights": weights, "x": x, "y": y, "lr": lr, "momentum": mu, "steps": steps},
        train(weights, x, y, lr, mu, steps),
    )


def loader_case(n: int, batch_size: int, drop_last: bool, label: Text = "") -> Case:
    x = np.arange(n * 2, dtype=float).reshape(n, 2) / 4
    y = np.arange(n) % 3
    stops = range(0, n - (n % batch_size if drop_last else 0), batch_size)
    batches = [[x[i : i + batch_size], y[i : i + batch_size]] for i in stops]
    batches = [b for b in batches if len(b[0])]
    return labelled_case(
        label
        or {
            "en": f"DataLoader(TensorDataset(x, y), batch_size={batch_size}, "
            f"drop_last={drop_last}) with x ({n}, 2) and y ({n},) on sim",
            "zh": f"DataLoader(TensorDataset(x, y), batch_size={batch_size}, "
            f"drop_last={drop_last})，x ({n}, 2) 和 y ({n},) 都在 sim 上",
        },
        {"x": x, "y": y, "batch_size": batch_size, "drop_last": drop_last},
        batches,
    )

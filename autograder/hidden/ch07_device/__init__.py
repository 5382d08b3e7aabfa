"""Hidden checks for chapter 7 — devices (tasks 7.1–7.6 here; 7.7 and 7.8 in ``ops.py``).

Rows of chapter 7's public case builders (``checks/ch07_device/cases``), run by the public
programs and judged by the public verdicts, on other cases than the public ones: other
numbers of GPUs and failing devices for the probe (a kernel failing at the read-back too);
other shapes and dtypes, a tuple and other indices of registered devices for whose array it
is; moves of drawn arrays (3-D, transposed, float16, int8, bool), to other missing devices
and through a registered toy device; the copy's gradient on drawn 3-D tensors and through
the toy device; ``-`` and ``/`` across devices and a Function whose third input is the odd
one; scatter-adds with drawn repeats (a Python float among the values, which must not be
copied to the device); longer training runs and other loaders. Labels name the kind of case,
never the drawn values.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...checks.ch07_device import CHECKS as PUBLIC
from ...checks.ch07_device.cases import (
    both,
    double_case,
    index_grad_case,
    labelled,
    loader_case,
    mixed_case,
    module_to_case,
    move_case,
    probe_case,
    scatter_case,
    to_device_case,
    toy_case,
    training_case,
    whose_case,
)
from ...harness.api import Case
from ...harness.language import Text, say
from ...harness.table import Hidden, hidden_checks
from . import ops


def _probes(rng: np.random.Generator) -> list[Case]:
    many, failing = int(rng.integers(3, 7)), int(rng.integers(2, 5))
    return [
        probe_case(
            "works",
            many,
            {"en": "CuPy working with several GPUs", "zh": "CuPy 正常工作，有多块 GPU"},
        ),
        probe_case(
            "kernel fails",
            failing,
            {
                "en": "CuPy installed, several devices, every kernel fails",
                "zh": "已安装 CuPy，有多个设备，每个内核都失败",
            },
        ),
        probe_case(
            "no driver",
            int(rng.integers(1, 4)),
            {
                "en": "CuPy installed, its device count raises",
                "zh": "已安装 CuPy，查询设备数时抛出异常",
            },
        ),
        probe_case(
            "fails late",
            int(rng.integers(2, 5)),
            {
                "en": "CuPy installed, several devices, the kernel's error shows at the read-back",
                "zh": "已安装 CuPy，有多个设备，内核的错误在读回结果时才出现",
            },
        ),
    ]


def _whose(rng: np.random.Generator) -> list[Case]:
    shape = tuple(int(n) for n in rng.integers(1, 4, 3))
    data = rng.uniform(-1, 1, shape).round(3).tolist()
    ints = rng.integers(-5, 5, (int(rng.integers(1, 5)),)).tolist()
    index = int(rng.integers(1, 3))
    return [
        whose_case(
            [
                {"kind": "numpy", "data": data, "dtype": "float32"},
                {"kind": "sim", "data": data, "dtype": "float32"},
                {"kind": "sim", "data": ints, "dtype": "int32"},
            ],
            label={
                "en": "3-D float32 and int32 arrays on cpu and on sim",
                "zh": "cpu 上和 sim 上的 3 维 float32、int32 数组",
            },
        ),
        whose_case(
            [{"kind": "toy", "data": ints, "index": index}, {"kind": "numpy", "data": ints}],
            register=True,
            label={
                "en": "an array on another toy device and a NumPy one",
                "zh": "另一个 toy 设备上的数组和一个 NumPy 数组",
            },
        ),
        whose_case(
            [{"kind": "tuple", "data": ints}],
            label={"en": "a Python tuple", "zh": "一个 Python tuple"},
        ),
    ]


def _moved(text: Text) -> Text:
    """A move's label: "move_array of " and ``text``, in every language."""

    def write(lang: str) -> str:
        words = say(text, lang)
        return say({"en": f"move_array of {words}", "zh": f"move_array：{words}"}, lang)

    return both(write)


def _moves(rng: np.random.Generator) -> list[Case]:
    shape = tuple(int(n) for n in rng.integers(1, 4, 3))
    floats = rng.uniform(-4, 4, shape).round(3)
    ints = rng.integers(-100, 100, shape)
    flags = rng.integers(0, 2, shape).astype(bool)
    rows = [
        (
            "cpu",
            floats,
            "float16",
            "sim",
            "C",
            {
                "en": "a 3-D float16 array from cpu to sim",
                "zh": "把一个 3 维 float16 数组从 cpu 移到 sim",
            },
        ),
        (
            "cpu",
            ints,
            "int8",
            "sim:0",
            "T",
            {
                "en": "a transposed 3-D int8 array from cpu to sim:0",
                "zh": "把一个转置过的 3 维 int8 数组从 cpu 移到 sim:0",
            },
        ),
        (
            "sim",
            flags,
            "bool",
            "cpu",
            "C",
            {
                "en": "a 3-D bool array from sim to cpu",
                "zh": "把一个 3 维 bool 数组从 sim 移到 cpu",
            },
        ),
        (
            "sim",
            floats,
            "float64",
            "device:sim",
            "C",
            {
                "en": "a 3-D array from sim to sp.device('sim')",
                "zh": "把一个 3 维数组从 sim 移到 sp.device('sim')",
            },
        ),
        (
            "cpu",
            floats,
            "float32",
            "device:cpu",
            "C",
            {
                "en": "a 3-D array from cpu to sp.device('cpu')",
                "zh": "把一个 3 维数组从 cpu 移到 sp.device('cpu')",
            },
        ),
        (
            "sim",
            floats,
            "float32",
            "cuda:2",
            "C",
            {
                "en": "a sim array to cuda:2 without a GPU",
                "zh": "在没有 GPU 时把一个 sim 数组移到 cuda:2",
            },
        ),
        (
            "cpu",
            ints,
            "int64",
            "sim:2",
            "C",
            {
                "en": "a cpu array to sim:2, which does not exist",
                "zh": "把一个 cpu 数组移到并不存在的 sim:2",
            },
        ),
        (
            "sim",
            ints,
            "int64",
            "mps",
            "C",
            {
                "en": "a sim array to an unknown device type",
                "zh": "把一个 sim 数组移到未知的设备类型",
            },
        ),
    ]
    toys = [
        (
            "cpu",
            floats,
            "float64",
            "toy:2",
            "C",
            "on",
            {
                "en": "a cpu array to a registered toy device",
                "zh": "把一个 cpu 数组移到已注册的 toy 设备",
            },
        ),
        (
            "toy:1",
            ints,
            "int32",
            "cpu",
            "C",
            "on",
            {
                "en": "an array of a registered toy device to cpu",
                "zh": "把已注册的 toy 设备上的一个数组移到 cpu",
            },
        ),
        (
            "sim",
            flags,
            "bool",
            "toy:0",
            "C",
            "on",
            {
                "en": "a sim array to a registered toy device",
                "zh": "把一个 sim 数组移到已注册的 toy 设备",
            },
        ),
        (
            "sim",
            floats,
            "float32",
            "toy:1",
            "C",
            "off",
            {
                "en": "a sim array to a toy device that is off",
                "zh": "把一个 sim 数组移到不可用的 toy 设备",
            },
        ),
        (
            "sim",
            ints,
            "int64",
            "sim:2",
            "C",
            "",
            {
                "en": "a sim array to sim:2, which does not exist",
                "zh": "把一个 sim 数组移到并不存在的 sim:2",
            },
        ),
    ]
    return [
        move_case(source, data.tolist(), dtype, target, order, label=_moved(label))
        for source, data, dtype, target, order, label in rows
    ] + [
        move_case(source, data.tolist(), dtype, target, order, _moved(label), toy)
        for source, data, dtype, target, order, toy, label in toys
    ]


def _copies(rng: np.random.Generator) -> list[Case]:
    shape = tuple(int(n) for n in rng.integers(1, 4, 3))
    x, w = rng.uniform(-2, 2, shape).round(3), rng.uniform(-2, 2, shape).round(3)
    rows = [("cpu", "sim", "to"), ("sim", "cpu", "to"), ("sim", "cpu", "cpu")]
    return [
        replace(
            to_device_case(x, w, start, go, how),
            label=labelled(
                {
                    "en": f"a 3-D leaf on {start} moved to {go} ({how}), "
                    "(y * y * w).sum().backward()",
                    "zh": f"{start} 上的一个 3 维叶子节点移到 {go}（{how}），"
                    "(y * y * w).sum().backward()",
                }
            ),
        )
        for start, go, how in rows
    ]


def _doubles(rng: np.random.Generator) -> list[Case]:
    x = rng.uniform(-2, 2, (int(rng.integers(2, 6)),)).round(3)
    return [
        replace(
            double_case(x, start, go),
            label=labelled(
                {
                    "en": f"a second derivative through {start} → {go}",
                    "zh": f"经由 {start} → {go} 的二阶导数",
                }
            ),
        )
        for start, go in (("cpu", "sim"), ("sim", "cpu"))
    ]


def _drawn_repeats(words: Text) -> Text:
    """A scatter-add's label: drawn repeats, and ``words``, in every language."""

    def write(lang: str) -> str:
        w = say(words, lang)
        return say(
            {
                "en": f"scatter_add with drawn repeats, {w}",
                "zh": f"scatter_add，索引有随机的重复，{w}",
            },
            lang,
        )

    return both(write)


def _scatters(rng: np.random.Generator) -> list[Case]:
    n = int(rng.integers(3, 7))
    index = rng.integers(0, n, 2 * n).tolist()  # repeats, surely
    values = rng.uniform(-1, 1, 2 * n).round(3).tolist()
    rows_, cols = rng.integers(0, 2, 6).tolist(), rng.integers(0, 3, 6).tolist()
    places = [
        (
            {"target": "sim", "index": "numpy", "values": "sim"},
            {"en": "a NumPy index", "zh": "NumPy 索引"},
        ),
        (
            {"target": "sim", "index": "sim", "values": "numpy"},
            {"en": "a sim index, NumPy values", "zh": "sim 索引，NumPy 值"},
        ),
        (
            {"target": "numpy", "index": "list", "values": "numpy"},
            {"en": "a NumPy target", "zh": "NumPy 目标"},
        ),
    ]
    out = [
        replace(scatter_case(np.zeros(n), index, values, where), label=_drawn_repeats(words))
        for where, words in places
    ]
    out.append(
        replace(
            scatter_case(
                np.ones((2, 3)),
                [rows_, cols],
                values[:6],
                {"target": "sim", "index": "tuple-sim", "values": "sim"},
            ),
            label=labelled(
                {
                    "en": "scatter_add into a 2-D sim target with a tuple of sim index arrays",
                    "zh": "scatter_add 写入 sim 上的 2 维目标，索引是由 sim 数组组成的元组",
                }
            ),
        )
    )
    number = float(np.round(rng.uniform(-1, 1), 3))  # drawn last: the draws above stay
    out.append(
        replace(
            scatter_case(
                np.zeros(n), index, number, {"target": "sim", "index": "sim", "values": "scalar"}
            ),
            label=labelled(
                {
                    "en": "scatter_add with drawn repeats, a sim index, a Python float",
                    "zh": "scatter_add，索引有随机的重复，sim 索引，值是 Python float",
                }
            ),
        )
    )
    return out


def _index_grads(rng: np.random.Generator) -> list[Case]:
    n = int(rng.integers(3, 6))
    x = rng.uniform(-1, 1, (n, 2)).round(3)
    index = rng.integers(0, n, n + 2).tolist()
    w = rng.uniform(-1, 1, (n + 2, 2)).round(3)
    flat = rng.uniform(-1, 1, n).round(3)
    return [
        replace(
            index_grad_case(x, index, w),
            label=labelled(
                {
                    "en": "the gradient of x[index] with drawn repeats",
                    "zh": "x[index] 的梯度，索引有随机的重复",
                }
            ),
        ),
        replace(
            index_grad_case(flat, [0] * 4, [1.0, 2.0, 3.0, 4.0]),
            label=labelled(
                {
                    "en": "the gradient of x[[0, 0, 0, 0]] on sim",
                    "zh": "sim 上 x[[0, 0, 0, 0]] 的梯度",
                }
            ),
        ),
    ]


def _toys(rng: np.random.Generator) -> list[Case]:
    return [
        toy_case(
            rng.uniform(-2, 2, (2, 3)).round(3),
            rng.uniform(-2, 2, (2, 3)).round(3),
            start,
            int(rng.integers(0, 3)),
            label={
                "en": f"a drawn leaf on {start} through a registered toy device and back",
                "zh": f"{start} 上随机抽取的叶子节点，经由已注册的 toy 设备再回来",
            },
        )
        for start in ("cpu", "sim")
    ]


def _module_to(rng: np.random.Generator) -> list[Case]:
    return [
        module_to_case(
            label,
            rng.uniform(-2, 2, (4, 3)).round(3).tolist(),
            target,
            rng,
        )
        for label, target in (
            (
                {
                    "en": "Module.to after a backward on a drawn batch (by name)",
                    "zh": "在随机抽取的批量上做一次反向传播后调用 Module.to（按名字）",
                },
                "sim",
            ),
            (
                {
                    "en": "Module.to after a backward on a drawn batch (by device)",
                    "zh": "在随机抽取的批量上做一次反向传播后调用 Module.to（按设备对象）",
                },
                "sim:0",
            ),
        )
    ]


def _mixed(rng: np.random.Generator) -> list[Case]:
    return [
        mixed_case(op, places, rng.uniform(0.5, 2, (2, 2)).round(3))
        for op, places in (
            ("-", ["sim", "cpu"]),
            ("/", ["cpu", "sim"]),
            ("Three", ["cpu", "sim", "sim"]),
            ("Three", ["sim", "cpu", "cpu"]),
            ("check", ["sim", "cpu", "cpu"]),
            ("check", ["toy:1", "toy:2"]),
            ("-", ["sim", "sim"]),
            ("/", ["sim", "sim"]),
        )
    ]


def _training(rng: np.random.Generator) -> list[Case]:
    return [
        training_case(
            rng,
            16,
            4,
            label={
                "en": "a longer run on sim, a larger batch",
                "zh": "sim 上更长的训练，更大的批量",
            },
        ),
        training_case(
            rng, 1, 2, label={"en": "a batch of one on sim", "zh": "sim 上大小为 1 的批量"}
        ),
    ]


def _loaders(rng: np.random.Generator) -> list[Case]:
    return [
        loader_case(
            int(rng.integers(5, 12)),
            int(rng.integers(2, 5)),
            drop,
            label={
                "en": f"a DataLoader over sim tensors of a drawn length, drop_last={drop}",
                "zh": f"基于随机长度的 sim 张量的 DataLoader，drop_last={drop}",
            },
        )
        for drop in (False, True)
    ]


# Each row's first string is a public check's id, and a name of its own its id too: both stay
# English (a title gives the Chinese).
CHECKS = (
    hidden_checks(
        PUBLIC,
        [
            Hidden(
                "cuda.is_available: a silent, cached probe",
                _probes,
                "the probe (hidden)",  # en-only: this row's id (title=)
                title={"zh": "探测（隐藏）"},
            ),
            Hidden(
                "array_module, device_of, backend_of",
                _whose,
                "whose array (hidden)",  # en-only: this row's id (title=)
                title={"zh": "数组归属（隐藏）"},
            ),
            Hidden("move_array", _moves, "move_array (hidden)", title={"zh": "move_array（隐藏）"}),
            Hidden(
                "ToDevice: Tensor.to and its gradient",
                _copies,
                "ToDevice (hidden)",
                title={"zh": "ToDevice（隐藏）"},
            ),
            Hidden(
                "a copy through another registered device",
                _toys,
                "a copy through another registered device (hidden)",  # en-only: this row's id
                title={"zh": "经由另一个已注册设备的复制（隐藏）"},
            ),
            Hidden(
                "ToDevice's backward is recorded (a second derivative)",
                _doubles,
                "a second derivative through a copy (hidden)",  # en-only: this row's id
                title={"zh": "经由复制的二阶导数（隐藏）"},
            ),
            Hidden(
                "Module.to moves parameters, buffers and gradients in place",
                _module_to,
                "Module.to (hidden)",
                title={"zh": "Module.to（隐藏）"},
            ),
            Hidden(
                "check_same_device",
                _mixed,
                "check_same_device (hidden)",
                title={"zh": "check_same_device（隐藏）"},
            ),
            Hidden(
                "scatter_add on a device",
                _scatters,
                "scatter_add (hidden)",
                title={"zh": "scatter_add（隐藏）"},
            ),
            Hidden(
                "the gradient of indexing on sim",
                _index_grads,
                "the gradient of indexing on sim (hidden)",  # en-only: this row's id
                title={"zh": "sim 上索引操作的梯度（隐藏）"},
            ),
            Hidden(
                "a training step on sim: no hidden transfer",
                _training,
                "a training step on sim (hidden)",  # en-only: this row's id
                title={"zh": "sim 上的一个训练步（隐藏）"},
            ),
            Hidden(
                "a DataLoader over sim tensors",
                _loaders,
                "a DataLoader over sim tensors (hidden)",  # en-only: this row's id
                title={"zh": "基于 sim 张量的 DataLoader（隐藏）"},
            ),
        ],
    )
    + ops.CHECKS
)

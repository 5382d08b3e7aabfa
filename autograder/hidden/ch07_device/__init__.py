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
    double_case,
    index_grad_case,
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
from ...harness.table import Hidden, hidden_checks
from . import ops


def _probes(rng: np.random.Generator) -> list[Case]:
    many, failing = int(rng.integers(3, 7)), int(rng.integers(2, 5))
    return [
        probe_case("works", many, "CuPy working with several GPUs"),
        probe_case("kernel fails", failing, "CuPy installed, several devices, every kernel fails"),
        probe_case("no driver", int(rng.integers(1, 4)), "CuPy installed, its device count raises"),
        probe_case(
            "fails late",
            int(rng.integers(2, 5)),
            "CuPy installed, several devices, the kernel's error shows at the read-back",
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
            label="3-D float32 and int32 arrays on cpu and on sim",
        ),
        whose_case(
            [{"kind": "toy", "data": ints, "index": index}, {"kind": "numpy", "data": ints}],
            register=True,
            label="an array on another toy device and a NumPy one",
        ),
        whose_case([{"kind": "tuple", "data": ints}], label="a Python tuple"),
    ]


def _moves(rng: np.random.Generator) -> list[Case]:
    shape = tuple(int(n) for n in rng.integers(1, 4, 3))
    floats = rng.uniform(-4, 4, shape).round(3)
    ints = rng.integers(-100, 100, shape)
    flags = rng.integers(0, 2, shape).astype(bool)
    rows = [
        ("cpu", floats, "float16", "sim", "C", "a 3-D float16 array from cpu to sim"),
        ("cpu", ints, "int8", "sim:0", "T", "a transposed 3-D int8 array from cpu to sim:0"),
        ("sim", flags, "bool", "cpu", "C", "a 3-D bool array from sim to cpu"),
        ("sim", floats, "float64", "device:sim", "C", "a 3-D array from sim to sp.device('sim')"),
        ("cpu", floats, "float32", "device:cpu", "C", "a 3-D array from cpu to sp.device('cpu')"),
        ("sim", floats, "float32", "cuda:2", "C", "a sim array to cuda:2 without a GPU"),
        ("cpu", ints, "int64", "sim:2", "C", "a cpu array to sim:2, which does not exist"),
        ("sim", ints, "int64", "mps", "C", "a sim array to an unknown device type"),
    ]
    toys = [
        ("cpu", floats, "float64", "toy:2", "C", "on", "a cpu array to a registered toy device"),
        ("toy:1", ints, "int32", "cpu", "C", "on", "an array of a registered toy device to cpu"),
        ("sim", flags, "bool", "toy:0", "C", "on", "a sim array to a registered toy device"),
        ("sim", floats, "float32", "toy:1", "C", "off", "a sim array to a toy device that is off"),
        ("sim", ints, "int64", "sim:2", "C", "", "a sim array to sim:2, which does not exist"),
    ]
    return [
        move_case(source, data.tolist(), dtype, target, order, label=f"move_array of {label}")
        for source, data, dtype, target, order, label in rows
    ] + [
        move_case(source, data.tolist(), dtype, target, order, f"move_array of {label}", toy)
        for source, data, dtype, target, order, toy, label in toys
    ]


def _copies(rng: np.random.Generator) -> list[Case]:
    shape = tuple(int(n) for n in rng.integers(1, 4, 3))
    x, w = rng.uniform(-2, 2, shape).round(3), rng.uniform(-2, 2, shape).round(3)
    rows = [("cpu", "sim", "to"), ("sim", "cpu", "to"), ("sim", "cpu", "cpu")]
    return [
        replace(
            to_device_case(x, w, start, go, how),
            label=f"a 3-D leaf on {start} moved to {go} ({how}), (y * y * w).sum().backward()",
        )
        for start, go, how in rows
    ]


def _doubles(rng: np.random.Generator) -> list[Case]:
    x = rng.uniform(-2, 2, (int(rng.integers(2, 6)),)).round(3)
    return [
        replace(double_case(x, start, go), label=f"a second derivative through {start} → {go}")
        for start, go in (("cpu", "sim"), ("sim", "cpu"))
    ]


def _scatters(rng: np.random.Generator) -> list[Case]:
    n = int(rng.integers(3, 7))
    index = rng.integers(0, n, 2 * n).tolist()  # repeats, surely
    values = rng.uniform(-1, 1, 2 * n).round(3).tolist()
    rows_, cols = rng.integers(0, 2, 6).tolist(), rng.integers(0, 3, 6).tolist()
    places = [
        ({"target": "sim", "index": "numpy", "values": "sim"}, "a NumPy index"),
        ({"target": "sim", "index": "sim", "values": "numpy"}, "a sim index, NumPy values"),
        ({"target": "numpy", "index": "list", "values": "numpy"}, "a NumPy target"),
    ]
    out = [
        replace(
            scatter_case(np.zeros(n), index, values, where),
            label=f"scatter_add with drawn repeats, {words}",
        )
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
            label="scatter_add into a 2-D sim target with a tuple of sim index arrays",
        )
    )
    number = float(np.round(rng.uniform(-1, 1), 3))  # drawn last: the draws above stay
    out.append(
        replace(
            scatter_case(
                np.zeros(n), index, number, {"target": "sim", "index": "sim", "values": "scalar"}
            ),
            label="scatter_add with drawn repeats, a sim index, a Python float",
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
        replace(index_grad_case(x, index, w), label="the gradient of x[index] with drawn repeats"),
        replace(
            index_grad_case(flat, [0] * 4, [1.0, 2.0, 3.0, 4.0]),
            label="the gradient of x[[0, 0, 0, 0]] on sim",
        ),
    ]


def _toys(rng: np.random.Generator) -> list[Case]:
    return [
        toy_case(
            rng.uniform(-2, 2, (2, 3)).round(3),
            rng.uniform(-2, 2, (2, 3)).round(3),
            start,
            int(rng.integers(0, 3)),
            label=f"a drawn leaf on {start} through a registered toy device and back",
        )
        for start in ("cpu", "sim")
    ]


def _module_to(rng: np.random.Generator) -> list[Case]:
    return [
        module_to_case(
            f"Module.to after a backward on a drawn batch ({kind})",
            rng.uniform(-2, 2, (4, 3)).round(3).tolist(),
            target,
            rng,
        )
        for kind, target in (("by name", "sim"), ("by device", "sim:0"))
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
        training_case(rng, 16, 4, label="a longer run on sim, a larger batch"),
        training_case(rng, 1, 2, label="a batch of one on sim"),
    ]


def _loaders(rng: np.random.Generator) -> list[Case]:
    return [
        loader_case(
            int(rng.integers(5, 12)),
            int(rng.integers(2, 5)),
            drop,
            label=f"a DataLoader over sim tensors of a drawn length, drop_last={drop}",
        )
        for drop in (False, True)
    ]


CHECKS = (
    hidden_checks(
        PUBLIC,
        [
            Hidden("cuda.is_available: a silent, cached probe", _probes, "the probe (hidden)"),
            Hidden("array_module, device_of, backend_of", _whose, "whose array (hidden)"),
            Hidden("move_array", _moves, "move_array (hidden)"),
            Hidden("ToDevice: Tensor.to and its gradient", _copies, "ToDevice (hidden)"),
            Hidden(
                "a copy through another registered device",
                _toys,
                "a copy through another registered device (hidden)",
            ),
            Hidden(
                "ToDevice's backward is recorded (a second derivative)",
                _doubles,
                "a second derivative through a copy (hidden)",
            ),
            Hidden(
                "Module.to moves parameters, buffers and gradients in place",
                _module_to,
                "Module.to (hidden)",
            ),
            Hidden("check_same_device", _mixed, "check_same_device (hidden)"),
            Hidden("scatter_add on a device", _scatters, "scatter_add (hidden)"),
            Hidden(
                "the gradient of indexing on sim",
                _index_grads,
                "the gradient of indexing on sim (hidden)",
            ),
            Hidden(
                "a training step on sim: no hidden transfer",
                _training,
                "a training step on sim (hidden)",
            ),
            Hidden(
                "a DataLoader over sim tensors", _loaders, "a DataLoader over sim tensors (hidden)"
            ),
        ],
    )
    + ops.CHECKS
)

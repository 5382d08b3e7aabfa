"""Public checks for chapter 7 — devices (tasks 7.1–7.6 here; 7.7 and 7.8 in ``ops.py``).

Every expectation is the parent's own (``cases.py``); arrays reach the simulated device by
the autograder's means (``simnumpy.asarray``, given code), so a check runs another task's
code only where it cannot avoid it (``requires``), and then a stand-in tells whose bug it
met (``standins.py``).

- 7.1 the probe, against fake CuPy modules put in ``sys.modules``: working with 1–3 GPUs,
  the device count raising ``cudaErrorInsufficientDriver``, CuPy that imports and counts
  but fails at the first kernel (CuPy installed, no usable GPU), a kernel whose error shows
  only at the read-back or a synchronisation (asynchronous), 0 devices, CuPy not
  installed. The cuda module is re-imported first (importing must not touch CuPy); then
  the answers, ``device_count()``, nothing printed or warned (the fakes print and warn as
  CuPy can), one probe only (calls into CuPy after the first answer are counted), and the
  program's own print and warning afterwards still seen (filters and streams put back).
- 7.2 ``array_module``, ``device_of`` and ``backend_of`` for NumPy arrays and scalars,
  sim arrays, a backend registered by the check (removed afterwards), and unknown types
  (TypeError naming the type); ``Tensor.device``.
- 7.3 ``move_array``: the same object when already there (no copy), one counted copy each
  way, values and dtype kept, ``"sim:1"`` and ``"cuda"`` without a GPU a RuntimeError in
  one sentence (naming the device and what to use instead, no chained CUDA error, CuPy
  never imported), a sim array to ``"sim:1"``, an unknown type a ValueError; a "toy" device
  type registered by the check (its arrays made from host arrays only): sim → toy and toy →
  sim through the host, and a toy device that is not available. Factories with ``device=``
  and ``set_default_device`` (they go through ``move_array`` alone) are 7.3's too.
- 7.4 ``ToDevice``: the gradient goes back to the source device with the right values, one
  copy each way; recorded (a second derivative through the copy); ``to`` on the same
  device is the tensor itself; a copy through the toy device and back (whose arrays'
  ``.device`` is an object, as CuPy's). ``Module.to``, ``sp.load(map_location=)`` and an
  optimizer's ``load_state_dict`` across devices run through ``Tensor.to``: 7.4's.
- 7.5 ``check_same_device``: PyTorch's sentence naming both devices and the operation for
  ``+``, ``@``, ``*``, a Function of three inputs, and called directly (also on cpu, sim,
  sim and on toy:0, toy:0, toy:2: two devices of one type); nothing on one device.
- 7.6 ``scatter_add`` on sim targets (repeated indices all count; NumPy, list, sim and tuple
  indices; sim, NumPy and scalar values) and NumPy targets, with the copies each way: every
  host array of the index and NumPy values once to the device, a sim array or a Python
  number as it is, nothing back; the gradient of indexing on sim.
- Copies are judged in both directions wherever a check counts them (7.3, 7.4, 7.6; 7.7 and
  7.8 on sim in ``ops.py``), against what the reference needs (``copies.py``): the message
  names the direction, the counts received and expected, and the likely cause.
- Device behaviours graded under 7.2, whose dispatch is all they exercise once the
  autograder has put model and data on sim: a training step (Linear, Tanh, Linear,
  mse_loss, SGD with momentum) makes no device → host copy and gives the parent's values;
  optimizer state is made on the parameters' device; a DataLoader over sim tensors
  delivers sim batches.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import numpy as np

from ...harness.api import Case, Check, show
from ...harness.table import Field, Fields, Mistake, Rows, each, first, rules
from . import ops, programs
from .cases import (
    array_text,
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
from .copies import DIRECTIONS, FEWER, MORE, TO_DEVICE, TO_HOST, copy_rows

WHOSE = ("7.2",)  # every check that meets a sim tensor asks whose array it is
MOVE = ("7.2", "7.3")


# -- 7.1 --------------------------------------------------------------------------------------


def _lost(received: Any) -> list[str]:
    """The program's own streams that no longer reached it after the probe."""
    return [name for name in ("stdout", "stderr") if not received.get("kept", {}).get(name, True)]


def _wrong_answer(case: Case, received: Any) -> str:
    got, want = received["available"][0], case.expected
    words = WRONG_ANSWER.get(want["state"], WRONG_ANSWER[""])
    return words.format(got=got, shown=show(got), want=want["available"])


probe_verdict = Fields(
    [],
    keys=("error", "available", "count", "calls", "printed", "warned"),
    then=rules(
        (
            lambda case, got: got["calls"].get("import"),
            "importing the cuda module called into CuPy {got[calls][import]} time(s): the probe "
            "runs at the first is_available(), never at import",
        ),
        (
            lambda case, got: (
                got["error"] and ("_answer['probe']" in got["error"] or "KeyError" in got["error"])
            ),
            "device_count() raised {got[error]}: is_available() must keep the probe's answer in "
            "_answer['probe'], where device_count reads the count",
        ),
        (
            lambda case, got: got["error"] and "No module named" in got["error"],
            "is_available() or device_count() raised {got[error]}: with CuPy not installed the "
            "answer is False, silently, and here the import of CuPy was not inside what the "
            "probe catches",
        ),
        (
            lambda case, got: got["error"],
            "is_available() or device_count() raised {got[error]}: every failure of the probe "
            "(CuPy missing, CUDARuntimeError, a kernel that cannot launch; not only ImportError) "
            "is the answer False, silently",
        ),
        (
            lambda case, got: got["printed"],
            "the probe printed {got[printed]!r}: it must be silent, and what it (or CuPy, which "
            "can print) wrote reached the program's output",
        ),
        (
            lambda case, got: got["warned"],
            "a warning escaped the probe ({got[warned][0]!r}): it must be silent",
        ),
        (
            lambda case, got: not got.get("kept", {}).get("warnings", True),
            "after is_available(), a warning of the program's own was not shown: the probe "
            "changed the warning filters of the whole program, and did not put them back",
        ),
        (
            lambda case, got: _lost(got),
            lambda case, got: (
                f"after is_available(), the program's own output to "
                f"{' and '.join(_lost(got))} was lost: the probe left sys.stdout / sys.stderr "
                "redirected, and did not put them back"
            ),
        ),
        (
            lambda case, got: isinstance(got["available"][0], (list, tuple)),
            "is_available() is {got[available][0]}, the probe's pair (usable, count): expected "
            "the answer {want[available]} alone",
        ),
        (lambda case, got: got["available"][0] != case.expected["available"], _wrong_answer),
        (
            lambda case, got: any(a != got["available"][0] for a in got["available"][1:]),
            "is_available() answered {got[available]} on three calls: the answer is kept",
        ),
        (
            lambda case, got: got["count"] != [case.expected["count"]] * 2,
            lambda case, got: (
                f"device_count() is {show(got['count'])}, expected {case.expected['count']} (twice)"
                + (
                    f": CuPy counts {case.expected['count']} devices here, and the probe's "
                    "answer holds another count"
                    if case.expected["count"] > 1 and got["count"][0] != case.expected["count"]
                    else ""
                )
            ),
        ),
        (
            lambda case, got: got["calls"].get("later"),
            lambda case, got: (
                "after its first answer, is_available() / device_count() asked CuPy again "
                f"({got['calls']['later']} more call(s))"
                + (": the answer False was not kept" if got["available"][0] is False else "")
                + ": probe once and keep the answer in _answer"
            ),
        ),
    ),
)


WRONG_ANSWER = {  # the state of the fake CuPy: what a wrong first answer means
    "kernel fails": "is_available() is {got!r}, expected False: CuPy imports and counts a "
    "device here, but its first kernel fails, so the GPU is not usable: the answer True came "
    "without a kernel run on the device",
    "fails late": "is_available() is {got!r}, expected False: the kernel launches here, and "
    "its error shows only when its result is read back (a GPU runs kernels asynchronously): "
    "the answer True came before the kernel's result was read back",
    "no device": "is_available() is {got!r} with 0 devices, expected False: CuPy counts 0 "
    "devices here, and 0 devices were taken for a GPU",
    "": "is_available() is {shown}, expected {want!r} (the check's stand-in for CuPy has "
    "cupy.cuda.runtime.getDeviceCount, cupy.cuda.Device, cupy.is_available, cupy.asnumpy and "
    "NumPy's functions, whose arrays have .get())",
}

PROBES = [
    probe_case("works", 2),
    probe_case("works", 1),
    probe_case("no driver", 0),
    probe_case("kernel fails", 1),
    probe_case("fails late", 1),
    probe_case("no device", 0),
    probe_case("no cupy", 0),
]

# -- 7.2 --------------------------------------------------------------------------------------


FUNCTIONS = ("array_module", "device_of", "backend_of")


def _refused(name: str) -> list[tuple]:
    """``name`` of an object no backend owns: a TypeError that names its type."""
    return [
        (
            lambda case, got: got[name]["error"] != "TypeError",
            lambda case, got: "{} of {}: {}, expected a TypeError naming its type{}".format(
                name,
                array_text(case.inputs),
                got[name]["error"] or f"returned {show(got[name]['value'])}",
                ": an object no backend owns was handed to the CPU"
                if got["backend_of"]["value"] == "cpu"
                else "",
            ),
        ),
        (
            lambda case, got: case.expected["names"] not in got[name]["message"],
            lambda case, got: (
                f"{name} of {array_text(case.inputs)} raised "
                f"TypeError({got[name]['message']!r}), which does not name the type "
                f"({case.expected['names']})"
            ),
        ),
    ]


def _device_words(case: Case, received: Any) -> str:
    got, want = received["device_of"]["value"], case.expected["device"]
    hint = ""
    if got[1] == want[1] and got[2] is None:
        hint = " (the index is missing: the array's own index, from its backend)"
    elif want[2] is None and got[2] is not None:
        hint = " (the host's arrays have no index: device('cpu'))"
    elif got[1] == want[1]:
        hint = " (the index is not the array's own)"
    elif got[1] == "cpu":
        hint = " (the host's device, for an array the cpu backend does not own)"
    return f"device_of of {array_text(case.inputs)} is {got[0]!r}, expected {want[0]!r}{hint}"


def _namespace_words(case: Case, received: Any) -> str:
    got, want = received["array_module"]["value"], case.expected["xp"]
    text = f"array_module of {array_text(case.inputs)} is {got[0]}, expected {want}"
    if len(got) > 2 and got[2]:
        return f"{text}: a function, not a namespace (the namespace function, uncalled)"
    if got[0] == "numpy":
        return f"{text}: NumPy's namespace for an array NumPy does not own"
    return f"{text}: the namespace of the backend that owns the array"


def _backend_words(case: Case, received: Any) -> str:
    got, want = received["backend_of"]["value"], case.expected["backend"]
    text = f"backend_of of {array_text(case.inputs)}"
    if isinstance(got, dict):
        return f"{text} is the str {got['str']!r}, a name: expected the Backend itself ({want!r})"
    return f"{text} is the {got!r} backend, expected {want!r}: a backend that does not own it"


def _unfound(case: Case, received: Any) -> str | None:
    """The first function that raised TypeError for an array a registered backend owns."""
    return next((n for n in FUNCTIONS if received[n]["error"] == "TypeError"), None)


WHOSE_REFUSED = rules(*(row for name in FUNCTIONS for row in _refused(name)))
WHOSE_OWNED = rules(
    (
        _unfound,
        lambda case, got: (
            f"{_unfound(case, got)} of {array_text(case.inputs)} raised TypeError: "
            f"{got[_unfound(case, got)]['message']} — but the registered "
            f"{case.expected['backend']} backend owns it: not every backend in BACKENDS was asked"
        ),
    ),
    *(
        (
            lambda case, got, name=name: got[name]["error"],
            lambda case, got, name=name: (
                f"{name} of {array_text(case.inputs)} raised "
                f"{got[name]['error']}: {got[name]['message']}"
            ),
        )
        for name in FUNCTIONS
    ),
    (lambda case, got: got["backend_of"]["value"] != case.expected["backend"], _backend_words),
    (lambda case, got: not got["array_module"]["value"][1], _namespace_words),
    (lambda case, got: got["device_of"]["value"] != case.expected["device"], _device_words),
)


def _arrays(case: Case, received: list) -> Iterable[tuple[Case, Any]]:
    """Each array as a case of its own: its spec, its expected answers, its three records."""
    for spec, want, got in zip(case.inputs["arrays"], case.expected, received):
        yield replace(case, inputs=spec, expected=want), got


whose_verdict = first(
    rules(
        (
            lambda case, got: not isinstance(got, list) or len(got) != len(case.expected),
            lambda case, got: f"expected {len(case.expected)} records, received {show(got)}",
        )
    ),
    each(
        _arrays,
        lambda case, got: (WHOSE_REFUSED if "error" in case.expected else WHOSE_OWNED)(case, got),
    ),
)


NP = {"kind": "numpy", "data": [[1.0, 2.0], [3.0, 4.0]], "dtype": "float64"}
NP_INT = {"kind": "numpy", "data": [1, 2, 3], "dtype": "int64"}
NP_0D = {"kind": "numpy", "data": 2.5, "dtype": "float32"}
SCALAR = {"kind": "scalar", "data": 1.5}
SIM = {"kind": "sim", "data": [[1.0, 2.0, 3.0]], "dtype": "float64"}
SIM_0D = {"kind": "sim", "data": 3, "dtype": "int64"}
TOY0, TOY2 = {"kind": "toy", "data": [1.0], "index": 0}, {"kind": "toy", "data": [2.0], "index": 2}
LIST, STRANGER = {"kind": "list", "data": [1.0, 2.0]}, {"kind": "stranger"}

# -- 7.3 --------------------------------------------------------------------------------------


def _named(case: Case) -> str:
    """The target device's type, which a RuntimeError's sentence names."""
    return case.expected["device"].partition(":")[0]


def _not_refused(case: Case, received: Any) -> str:
    """Why a move that must raise returned: what it did instead."""
    want, name = case.expected, case.expected["device"]
    text = f"returned a {received['kind']} array, expected a {want['error']}"
    source = case.inputs["source"].partition(":")[0]
    if want["error"] != "RuntimeError":
        return f"{text} (an unknown device type)"
    if received["same"] and source == _named(case) and ":" in name:
        return (
            f"{text} ({name!r} is not there): the array itself came back, still on "
            f"{case.inputs['source']}: two devices of one type were taken for one"
        )
    if received["same"]:
        return (
            f"{text} (device {name!r} is not there): the array came back as it was, and the "
            "move quietly did nothing"
        )
    if not want.get("unavailable"):
        return (
            f"{text} (device {name!r} is not there): an index past the {_named(case)} "
            "backend's device count was accepted"
        )
    return f"{text} (device {name!r} is not there)"


MOVE_FAILED = rules(  # where the move must raise
    (lambda case, got: got["error"] is None, _not_refused),
    (
        lambda case, got: got["error"] != case.expected["error"],
        lambda case, got: "{}, expected a {} ({})".format(
            got["error"] or f"returned a {got['kind']} array",
            case.expected["error"],
            "an unknown device type"
            if case.expected["error"] == "ValueError"
            else f"device {case.expected['device']!r} is not there",
        ),
    ),
    (
        lambda case, got: (
            got["error"] == "RuntimeError"
            and ("\n" in got["message"].strip() or "Traceback" in got["message"])
        ),
        "the error is several lines ({got[message]!r}): one sentence is enough",
    ),
    (
        lambda case, got: (
            got["error"] == "RuntimeError" and _named(case).lower() not in got["message"].lower()
        ),
        "the error {got[message]!r} does not name the device ({want[device]})",
    ),
    (
        lambda case, got: got["error"] == "RuntimeError" and got["chained"],
        "the RuntimeError carries a {got[chained]} along (raised inside an except block, or from "
        "it): a student sees that traceback too. Raise it on its own",
    ),
    (
        lambda case, got: (
            got["error"] == "RuntimeError"
            and case.expected.get("unavailable")
            and not ("cpu" in got["message"] or "sim" in got["message"])
        ),
        lambda case, got: (
            f"the error {got['message']!r} does not say what to use instead ('cpu', "
            f"or 'sim' for the simulated device): {case.expected['device']} is not available here"
            + ("" if _named(case) == "cuda" else ", as its own backend says")
        ),
    ),
)


def _one_way(case: Case, direction: str) -> str:
    """Why a move made a copy too many in ``direction``: one copy, in one direction."""
    needed = case.expected["copies"][DIRECTIONS.index(direction)]
    if needed and direction == TO_DEVICE:
        return (
            "one copy, in one direction, sent once (the target's backend.to_device): sending "
            "the array again, or a second array to check the first, is another copy"
        )
    if needed:
        return (
            "one copy, in one direction, read back once (the source's backend.to_host): "
            "reading the array back again is another copy"
        )
    if direction == TO_DEVICE:
        return (
            "one copy, in one direction, and nothing goes to the simulated device on this move: "
            "sending the array back there (or a test array) is a copy"
        )
    return (
        "one copy, in one direction, and nothing comes back from the simulated device on this "
        "move: reading the moved array back (.get() or backend.to_host, to check the copy) is "
        "a copy to the host"
    )


def _target(case: Case) -> str:
    """The target's name as the case passes it ("sim", "sim:0", "cpu", …)."""
    return case.inputs["target"].removeprefix("device:")


def _raised_words(case: Case, received: Any) -> str:
    text = f"move_array raised {received['error']}: {received['message']}"
    if "Implicit conversion" in received["message"] and case.inputs["source"] == "sim":
        return f"{text} — NumPy was asked to read a device's array directly"
    return text


MOVED = Fields(  # where the move must succeed
    [Field("values", rtol=0, atol=0)],
    before=rules(
        (lambda case, got: got["error"], _raised_words),
        (
            lambda case, got: got["kind"] != case.expected["kind"],
            lambda case, got: (
                f"move_array returned a {got['kind']} array, expected one on "
                + {"numpy": "the host (a NumPy array)", "sim": "the simulated device"}.get(
                    case.expected["kind"],
                    f"the {case.expected['kind']} device (its backend's to_device)",
                )
                + (
                    ": the array never left the device"
                    if case.expected["kind"] == "numpy" and got["kind"] == case.inputs["source"]
                    else ""
                )
            ),
        ),
        (
            lambda case, got: case.expected["same"] and not got["same"],
            lambda case, got: (
                "the array is on that device already"
                + (
                    f" ({_target(case)!r} names {_target(case)}:0)"
                    if ":" not in _target(case) and _target(case) != "cpu"
                    else ""
                )
                + ": move_array must return it itself, not a copy "
                f"({got['to_device']} copies to the device, {got['to_host']} back)"
            ),
        ),
        (
            lambda case, got: np.shape(got["values"]) != np.shape(case.expected["values"]),
            lambda case, got: (
                f"the moved array has shape {np.shape(got['values'])}, expected "
                f"{np.shape(case.expected['values'])}: the move changed its shape"
            ),
        ),
        *copy_rows(
            "move_array",
            lambda got: (got["to_device"], got["to_host"]),
            lambda case: case.expected["copies"],
            {
                (TO_DEVICE, MORE): lambda case, got: _one_way(case, TO_DEVICE),
                (TO_HOST, MORE): lambda case, got: _one_way(case, TO_HOST),
                (TO_DEVICE, FEWER): "one copy, in one direction, and a host array reaches "
                "the device through the target's backend.to_device",
                (TO_HOST, FEWER): "one copy, in one direction, and a device's array comes "
                "back through its own backend.to_host",
            },
        ),
        (
            lambda case, got: got["dtype"] != case.expected["dtype"],
            "the moved array is {got[dtype]}, expected {want[dtype]} (kept)",
        ),
    ),
)


def _holds(got: Any, sent: Any) -> bool:
    """Whether ``got``, values a program sent back, is an array of exactly ``sent``'s values
    (built by the parent from the case's inputs): compared here, in the parent."""
    return (
        isinstance(got, np.ndarray)
        and got.dtype.kind in "biuf"
        and np.array_equal(got, np.asarray(sent))
    )


def _source_changed(case: Case, got: dict) -> bool:
    """Whether move_array changed the array it was given: its values after the call against
    the array the parent sent (transposed as the program made it)."""
    sent = np.array(case.inputs["data"], dtype=case.inputs["dtype"])
    return not _holds(got["source"], sent.T if case.inputs["order"] == "T" else sent)


move_verdict = Fields(
    [],
    keys=("error", "kind", "same", "values", "to_device", "to_host", "source"),
    then=first(
        rules(
            (
                lambda case, got: got["cupy_imports"],
                "move_array tried to import CuPy although cuda.is_available() is False: the "
                "move went ahead without asking whether the device is there",
            ),
            (_source_changed, "move_array changed the array it was given"),
        ),
        lambda case, got: (MOVE_FAILED if case.expected["error"] else MOVED)(case, got),
    ),
)


MOVES = [
    move_case("cpu", [[1.0, 2.0], [3.0, 4.0]], "float64", "sim"),
    move_case("cpu", [1, 2, 3], "int64", "device:sim"),
    move_case("cpu", [[0.5, 1.5, 2.5], [3.5, 4.5, 5.5]], "float32", "sim:0", order="T"),
    move_case("cpu", 2.5, "float64", "sim"),
    move_case("cpu", [1.0, -1.0], "float64", "cpu"),
    move_case("sim", [[1.0, 2.0], [3.0, 4.0]], "float64", "cpu"),
    move_case("sim", [7, 8, 9], "int32", "device:cpu"),
    move_case("sim", [1.5, 2.5], "float32", "sim"),
    move_case("sim", [1.5, 2.5], "float64", "sim:0"),
    move_case("cpu", [1.0, 2.0], "float64", "cuda"),
    move_case("sim", [1.0, 2.0], "float64", "cuda:0"),
    move_case("cpu", [1.0, 2.0], "float64", "cuda:1"),
    move_case("cpu", [1.0, 2.0], "float64", "sim:1"),
    move_case("sim", [[1.0, 2.0], [3.0, 4.0]], "float64", "sim:1"),
    move_case("cpu", [1.0, 2.0], "float64", "tpu"),
    move_case("sim", [1.5, -2.0, 3.0], "float32", "toy:1", toy="on"),
    move_case("toy:2", [[1, 2], [3, 4]], "int64", "sim", toy="on"),
    move_case("cpu", [1.0, 2.0], "float64", "toy", toy="off"),
]


def _how(case: Case) -> str:
    return "with set_default_device('sim')" if case.inputs["default"] else "with device='sim'"


FACTORY = first(  # one factory's tensor, its expectation a case of its own
    rules(
        (
            lambda case, got: not isinstance(got, dict),
            lambda case, got: f"{case.inputs['name']}: received {show(got)}",
        ),
        (
            lambda case, got: got["device"] != "sim:0" or got["kind"] != "sim",
            lambda case, got: (
                f"{case.inputs['name']} {_how(case)} is on {got['device']} (a "
                f"{got['kind']} array), expected sim:0"
            ),
        ),
        *(
            (
                lambda case, got, key=key: got[key] != case.expected[key],
                lambda case, got, key=key: (
                    f"{case.inputs['name']} {_how(case)}: {key} "
                    f"{got[key]}, expected {case.expected[key]}"
                ),
            )
            for key in ("shape", "dtype")
        ),
    ),
    lambda case, got: case.expected["values"] is not None and FACTORY_VALUES(case, got),
)
FACTORY_VALUES = Fields([Field("values", lambda case: case.inputs["name"], rtol=0, atol=0)])


def _factories(case: Case, received: dict) -> Iterable[tuple[Case, Any]]:
    for name, want in case.expected.items():
        if name != "after":
            yield (
                replace(case, inputs={**case.inputs, "name": name}, expected=want),
                received.get(name),
            )


factories_verdict = Fields(
    [],
    then=first(
        each(_factories, FACTORY),
        rules(
            (
                lambda case, got: got.get("after") != "cpu",
                lambda case, got: (
                    f"after set_default_device(None) a new tensor is on {got.get('after')}"
                ),
            )
        ),
    ),
)


def _factory_expected(default: bool) -> dict:
    f64 = "float32"  # the default dtype
    out = {
        "zeros": {"shape": [2, 3], "dtype": f64, "values": np.zeros((2, 3), f64)},
        "ones": {"shape": [4], "dtype": f64, "values": np.ones(4, f64)},
        "full": {"shape": [2, 2], "dtype": f64, "values": np.full((2, 2), 1.5, f64)},
        "arange": {"shape": [5], "dtype": "int64", "values": np.arange(5)},
        "eye": {"shape": [3, 3], "dtype": f64, "values": np.eye(3, dtype=f64)},
        "tensor": {"shape": [2, 2], "dtype": f64, "values": np.array([[1, 2], [3, 4]], f64)},
        "tensor (int)": {"shape": [3], "dtype": "int64", "values": np.array([1, 2, 3])},
        "randn": {"shape": [3, 2], "dtype": f64, "values": None},
    }
    if default:
        out["Linear's weight"] = {"shape": [3, 2], "dtype": f64, "values": None}
        out["Linear's bias"] = {"shape": [3], "dtype": f64, "values": None}
    out["after"] = "cpu"
    return out


# -- 7.4 --------------------------------------------------------------------------------------


X_GRAD = Field("grad", "x.grad", rtol=1e-12, atol=1e-12)
RECORDED = (
    lambda case, got: not got["recorded"],
    "y has no grad_fn: the copy of a tensor that requires grad is recorded",
)
GRAD_BACK = (
    lambda case, got: got["grad_device"] != case.expected["grad_device"],
    lambda case, got: (
        f"x.grad is on {got['grad_device']}, expected {case.expected['grad_device']}"
        + (
            f": the gradient stayed on y's device ({got['grad_device']}), where x is not"
            if got["grad_device"] == case.expected["y_device"]
            else ""
        )
        + ": the backward of a copy moves the gradient back to the device x is on"
    ),
)
RECURSED = rules(
    (
        lambda case, got: isinstance(got, dict) and "recursed" in got,
        "the move never returned (RecursionError): {got[recursed]} went round in a circle "
        "(the copy's forward started another copy)",
    )
)


def _the_move(case: Case, received: Any) -> str:
    call = {"to": ".to({!r})", "device": ".to(sp.device({!r}))", "cpu": ".cpu()"}
    return "the move y = x" + call[case.inputs["how"]].format(case.inputs["go"])


to_device_verdict = first(
    RECURSED,
    Fields(
        [Field("y_values", "y", rtol=0, atol=0)],
        keys=("y_device", "grad_device", "grad", "moved", "back"),
        before=rules(
            (
                lambda case, got: (
                    got["y_device"] != case.expected["y_device"]
                    or got["y_kind"] not in ("numpy", "sim")
                ),
                "y is on {got[y_device]}, expected {want[y_device]}",
            )
        ),
    ),
    rules(
        RECORDED,
        *copy_rows(
            _the_move,
            lambda got: got["moved"],
            lambda case: case.expected["moved"],
            {
                (TO_DEVICE, MORE): "the forward's one copy is x's data, moved once; nothing "
                "else crosses",
                (TO_HOST, MORE): "the forward's one copy is x's data, moved once: reading the "
                "copy back, to check it or to compare, is a copy to the host",
            },
        ),
        (
            lambda case, got: got["grad_device"] is None,
            "x.grad is None after L.backward(): the gradient goes back through the copy",
        ),
        GRAD_BACK,
        *copy_rows(
            "L.backward()",
            lambda got: got["back"],
            lambda case: case.expected["back"],
            {
                (direction, side): "the gradient crosses once, back to x's device; nothing "
                "else crosses"
                for direction in DIRECTIONS
                for side in (MORE, FEWER)
            },
        ),
    ),
    Fields([X_GRAD]),
)

toy_verdict = Fields(
    [X_GRAD],
    keys=("y_device", "z_device", "recorded"),
    before=rules(
        (
            lambda case, got: (
                got["y_device"] != case.expected["y_device"] or got["y_kind"] != "toy"
            ),
            "y is on {got[y_device]} (a {got[y_kind]} array), expected {want[y_device]}",
        ),
        RECORDED,
        (
            lambda case, got: got["z_device"] != case.expected["z_device"],
            "z is on {got[z_device]}, expected {want[z_device]}",
        ),
        (
            lambda case, got: "error" in got,
            lambda case, got: (
                f"L.backward() raised {got['error']}"
                + (TOY_DEVICE if "ToyDevice" in got["error"] else "")
            ),
        ),
        GRAD_BACK,
    ),
)
TOY_DEVICE = (
    " — ctx.source holds the array's own .device (CuPy's is a cupy.cuda.Device, not a device "
    "name), not the tensor's device"
)


double_verdict = first(
    Fields(
        [Field("g", "g", rtol=1e-12, atol=1e-12)],
        keys=("g_device", "g", "g_requires_grad"),
        before=rules(
            (
                lambda case, got: got["g_device"] != case.expected["g_device"],
                "g is on {got[g_device]}, expected {want[g_device]}",
            )
        ),
        then=rules(
            (
                lambda case, got: not got["g_requires_grad"],
                "g does not require grad with create_graph=True: the move back in ToDevice's "
                "backward was not recorded (a bare array, or a detached tensor, moved)",
            )
        ),
    ),
    Fields([Field("x_grad", "x.grad", rtol=1e-12, atol=1e-12)]),
)


SAME_PLACE = {
    "cpu": ["x.to('cpu') is x", "x.to(sp.device('cpu')) is x", "x.cpu() is x"],
    "sim": ["s.to('sim') is s", "s.to(sp.device('sim', 0)) is s", "s.to('sim:0') is s"],
}


def _not_itself(case: Case, received: Any) -> tuple | None:
    """(the call, its answer) of the first call that did not return the tensor itself."""
    calls = zip(SAME_PLACE[case.inputs["where"]], received)
    return next(((name, got) for name, got in calls if got is not True), None)


same_place_verdict = rules(
    (lambda case, got: not isinstance(got, list), lambda case, got: f"received {show(got)}"),
    (
        _not_itself,
        lambda case, got: "{} is {!r}: a tensor already on the device is returned itself".format(
            *_not_itself(case, got)
        ),
    ),
)


def _module_changed(sent: dict, got: Any) -> bool:
    """Whether a tensor of the model no longer holds the values the program wrote into it
    (``sent``, by name, from the case's inputs): ``got``, the values sent back by name,
    compared here. A name the model has not (another chapter 5 design) is not judged."""
    if not isinstance(got, dict):
        return True
    return any(name in got and not _holds(got[name], v) for name, v in sent.items())


def _off_sim(where: dict) -> list[str]:
    return [name for name, kind in where.items() if kind != "sim"]


module_to_verdict = Fields(
    [],
    keys=("returned_self", "same_objects", "where"),
    then=rules(
        (
            lambda case, got: not got["returned_self"],
            "model.to('sim') did not return the model itself",
        ),
        (
            lambda case, got: not got["same_objects"],
            "model.to('sim') made new Parameter objects: the same ones, their data moved",
        ),
        (
            lambda case, got: _off_sim(got["where"]),
            lambda case, got: (
                f"after model.to('sim'), {', '.join(_off_sim(got['where']))} not on "
                "sim (state left behind)"
            ),
        ),
        (
            lambda case, got: any(k != "sim" for k in got["grads_where"]),
            "after model.to('sim') the gradients are {got[grads_where]}: moved too",
        ),
        (
            lambda case, got: (
                _module_changed(case.inputs["state"], got["values"])
                or _module_changed(case.inputs["grads"], got["grads"])
            ),
            "model.to('sim') changed a parameter's, buffer's or gradient's values",
        ),
        (
            lambda case, got: got["forward_on"] != "sim:0",
            "the moved model's output is on {got[forward_on]}, expected sim:0",
        ),
        (
            lambda case, got: got["back_where"] != ["numpy"],
            "after model.to(sp.device('cpu')) the arrays are {got[back_where]}",
        ),
        (
            lambda case, got: _module_changed(case.inputs["state"], got["back_values"]),
            "model.to(sp.device('cpu')) changed a parameter's or buffer's values",
        ),
    ),
)

load_verdict = Fields(
    [
        *(
            Field(f"{k}.{what}", name, rtol=0, atol=0)
            for k in "wb"
            for what, name in (("device", f"loaded[{k!r}]'s device"), ("values", k))
        ),
        Field("n", "loaded['n']", rtol=0, atol=0),
    ],
    before=rules(
        (
            lambda case, got: not set(case.expected) <= set(got),
            lambda case, got: (
                f"the loaded dict holds {sorted(got)}, expected {sorted(case.expected)}"
            ),
        )
    ),
)


def _load_case(location: str) -> Case:
    where = "sim:0" if location == "sim" else "cpu"
    return Case(
        f"sp.save of {{'w': a sim tensor, 'b': a cpu tensor, 'n': 3}}, then sp.load(path, "
        f"map_location={location or None!r})",
        {"map_location": location},
        {
            "w": {"device": where, "values": np.array([[1.0, -2.0], [0.5, 3.0]])},
            "b": {"device": where, "values": np.array([4.0, 5.0])},
            "n": 3,
        },
    )


state_where_verdict = rules(
    (
        lambda case, got: got != case.expected,
        lambda case, got: (
            f"the loaded optimizer's state is {show(got)}, expected "
            f"{show(case.expected)}: load_state_dict puts each state tensor on its parameter's "
            "device"
        ),
    )
)


def _state_case(name: str, to: str) -> Case:
    kind = "sim" if to == "sim" else "numpy"
    keys = {"SGD": ["momentum_buffer"], "Adam": ["exp_avg", "exp_avg_sq"]}[name]
    return Case(
        f"{name} over sim parameters, two steps, its state_dict loaded into a {name} over "
        f"parameters on {to}",
        {"name": name, "to": to},
        {str(i): {k: kind for k in keys} for i in range(2)},
    )


# -- 7.5 --------------------------------------------------------------------------------------


def _missing(case: Case, received: Any) -> list[str]:
    return [d for d in case.expected["devices"] if d not in received["message"]]


def _one_type(case: Case) -> str:
    """Words for two devices of one type, which differ in their index only."""
    devices = case.expected["devices"]
    if len({d.partition(":")[0] for d in devices}) > 1:
        return ""
    both = " and ".join(devices)
    return f" ({both} are two devices of one type: compare the devices, type and index)"


def _names(case: Case) -> list[str]:
    return [{"cpu": "cpu", "sim": "sim:0"}.get(p, p) for p in case.inputs["places"]]


def _unseen(case: Case) -> str:
    """Of three tensors or more: which differs from the first, in words ("" for two)."""
    names = _names(case)
    if len(names) < 3:
        return ""
    k = next(i for i, n in enumerate(names) if n != names[0])
    return (
        f": tensor 1 is on {names[0]} and tensor {k + 1} of {len(names)} on {names[k]}, and "
        "not every tensor was compared with the first"
    )


def _swapped(case: Case, received: Any) -> bool:
    a, b = case.expected["devices"]
    return received["message"] == case.expected["message"].replace(f"{a} and {b}!", f"{b} and {a}!")


def _twice(received: Any) -> str | None:
    """The device a message names twice ("sim:0 and sim:0"), else None."""
    found = re.search(r"devices, (\S+) and (\S+)!", received["message"])
    return found.group(1) if found and found.group(1) == found.group(2) else None


MIXED_REFUSED = rules(  # tensors on two devices: PyTorch's RuntimeError
    (
        lambda case, got: got["error"] is None,
        lambda case, got: (
            "no error: tensors on two devices met in one operation and it ran"
            + (
                (not _one_type(case) and _unseen(case))
                or f". Raise RuntimeError with PyTorch's sentence{_one_type(case)}"
            )
        ),
    ),
    (
        lambda case, got: (
            got["error"] != "RuntimeError" and case.inputs["op"] != "check" and _unseen(case)
        ),
        lambda case, got: (
            f"raised {got['error']}({got['message']!r}) inside the operation itself, expected "
            f"RuntimeError before it ran{_unseen(case)}"
        ),
    ),
    (
        lambda case, got: got["error"] != "RuntimeError",
        "raised {got[error]}({got[message]!r}), expected RuntimeError",
    ),
    (
        lambda case, got: _twice(got),
        lambda case, got: (
            f"the message {got['message']!r} names {_twice(got)} twice: two equal devices were "
            f"taken as different, and {' and '.join(_missing(case, got))} is missing"
        ),
    ),
    (
        lambda case, got: "device(type=" in got["message"],
        "the message {got[message]!r} shows the devices' repr, not their names "
        "({want[devices][0]}, {want[devices][1]})",
    ),
    (
        _swapped,
        "the message names the devices in the other order: expected {want[message]!r} (the "
        "first tensor's device, then the first that differs from it)",
    ),
    (
        _missing,
        lambda case, got: (
            f"the message {got['message']!r} does not name both devices "
            f"({', '.join(_missing(case, got))} missing)"
        ),
    ),
    (
        lambda case, got: case.expected["op"] not in got["message"],
        "the message {got[message]!r} does not name the operation ({want[op]})",
    ),
    (
        lambda case, got: got["message"] != case.expected["message"],
        "the message is {got[message]!r}, not PyTorch's sentence: expected {want[message]!r}",
    ),
)

MIXED_RAN = Fields(  # every tensor on one device: it runs
    [Field("values", "result", rtol=1e-12, atol=0)],
    before=rules(
        (
            lambda case, got: got["error"],
            "raised {got[error]}: {got[message]} (every tensor on one device)",
        )
    ),
)

mixed_verdict = Fields(
    [],
    keys=("error", "message", "values"),
    then=lambda case, got: (MIXED_REFUSED if case.expected["error"] else MIXED_RAN)(case, got),
)


MIXED = [
    mixed_case("+", ["cpu", "sim"]),
    mixed_case("@", ["cpu", "sim"]),
    mixed_case("*", ["sim", "cpu"]),
    mixed_case("Three", ["cpu", "cpu", "sim"]),
    mixed_case("Three", ["sim", "sim", "cpu"]),
    mixed_case("check", ["cpu", "sim", "sim"]),
    mixed_case("check", ["toy:0", "toy:0", "toy:2"]),
    mixed_case("check", ["sim", "cpu"]),
    mixed_case("check", ["sim", "sim", "sim"]),
    mixed_case("check", ["cpu", "cpu"]),
    mixed_case("+", ["sim", "sim"]),
    mixed_case("Three", ["sim", "sim", "sim"]),
]

# -- 7.6 --------------------------------------------------------------------------------------


SCATTER_HINTS = [  # (a sign in the error, what it means)
    (
        ("ufunc", "Implicit conversion"),
        "NumPy's add.at cannot work on a device's array, and it met one",
    ),
    (
        ("Unsupported",),
        "an index or values still in host memory met the device's array",
    ),
    (
        ("IndexError",),
        "an index may be a tuple (one array per axis), and this one went to the device as "
        "one array, not array by array",
    ),
]


HOST = ("numpy", "list", "tuple-numpy")  # where an index lives in host memory


def _scatter_met(case: Case, received: Any) -> str:
    """What met the device's target in host memory, where the case tells it apart."""
    places = case.inputs["places"]
    index, values = places["index"] in HOST, places["values"] == "numpy"
    error = received["error"]
    if places["target"] != "sim":
        return ""
    if "Unsupported" in error and received.get("to_host"):
        return (
            f"an array already on the device was brought back to the host "
            f"({received['to_host']} device → host copy), and met the target there"
        )
    if "Unsupported" in error and index and not values:
        return "the index (in host memory) stayed there, and met the target on the device"
    if "Unsupported" in error and values and not index:
        return "the values (a NumPy array) stayed in host memory, and met the target on the device"
    if ("ufunc" in error or "Implicit conversion" in error) and values:
        return (
            "NumPy's add.at met the device's target: the host's scatter-add ran, not the "
            "target's backend's (was the backend found from the values, a NumPy array?)"
        )
    return ""


def _scatter_raised(case: Case, received: Any) -> str:
    error = received["error"]
    tuple_index = case.inputs["places"]["index"].startswith("tuple")
    hint = _scatter_met(case, received) or next(
        (
            h
            for signs, h in SCATTER_HINTS
            if any(s in error for s in signs) and (signs != ("IndexError",) or tuple_index)
        ),
        "",
    )
    return f"raised {error}" + (f" — {hint}" if hint else "")


SCATTER_STATE = rules(
    (lambda case, got: got["error"], _scatter_raised),
    (
        lambda case, got: got["kind"] != case.expected["kind"],
        "the target became a {got[kind]} array: scatter_add works in place",
    ),
    *copy_rows(
        "scatter_add",
        lambda got: (got.get("to_device", 0), got.get("to_host", 0)),
        lambda case: case.expected["copies"],
        {
            (TO_DEVICE, MORE): lambda case, got: _scatter_sent(case),
            (TO_HOST, MORE): "the scatter-add runs on the device (the backend's scatter_add), "
            "nothing comes back",
        },
        at_most=True,  # fewer: host arrays sent together (a stacked index tuple) may be honest
    ),
)


def _scatter_sent(case: Case) -> str:
    """Why a scatter-add sent more to the device than the host arrays it was given."""
    crossing = case.expected["crossing"]
    if not crossing:
        needed = "nothing needs to cross here"
    elif len(crossing) == 1:
        needed = f"only {crossing[0]} crosses"
    else:
        needed = f"only {', '.join(crossing[:-1])} and {crossing[-1]} cross, once each"
    if case.inputs["places"]["values"] == "scalar":
        return (
            f"{needed}. The values are a Python number, and it was copied to the device too: "
            "a GPU kernel takes a number as an argument, as it is"
        )
    return (
        f"{needed}; an array already on the device is used as it is, and each host array is "
        "moved once"
    )


def _once(case: Case) -> Any:
    """A repeated position counted once, where that differs from the right sum."""
    want = case.expected
    return None if np.array_equal(want["once"], want["values"]) else want["once"]


COUNTED_ONCE = Mistake(
    "values", _once, "a repeated position counted once (target[index] += values); every repeat adds"
)
UNCHANGED = Mistake(
    "values",
    lambda case: np.asarray(case.inputs["target"], dtype=float),
    "the target is unchanged: the sums went into another array, and scatter_add works in place",
)
scatter_verdict = Fields(
    [Field("values", "target", rtol=1e-12, atol=0)],
    [COUNTED_ONCE, UNCHANGED],
    keys=("error", "kind", "values"),
    before=SCATTER_STATE,
)


index_grad_verdict = Fields(
    [Field("values", "x.grad", rtol=1e-12, atol=0)],
    keys=("device", "values"),
    before=rules(
        (
            lambda case, got: got["device"] != "sim:0",
            "x.grad is on {got[device]}, expected sim:0 (x's device)",
        )
    ),
)


S, N, L, TN, TS, F = "sim", "numpy", "list", "tuple-numpy", "tuple-sim", "scalar"


def _places(target: str, index: str, values: str) -> dict:
    return {"target": target, "index": index, "values": values}


SCATTERS = [
    scatter_case([0.0] * 4, [0, 2, 0, 0], [1.0, 2.0, 3.0, 4.0], _places(S, N, S)),
    scatter_case([0.0] * 3, [2, 0, 2], [1.0, 2.0, 3.0], _places(S, S, N)),
    scatter_case([1.0] * 3, [2, 2], [0.5, 0.25], _places(S, S, S)),
    scatter_case([0.0] * 5, [4, 1, 4], [1.0, 2.0, 3.0], _places(S, N, N)),
    scatter_case([0.0] * 3, [1, 1, 1], 2.0, _places(S, L, F)),
    scatter_case([[0.0] * 3] * 2, [[0, 1, 0], [2, 2, 2]], [1.0, 2.0, 3.0], _places(S, TN, S)),
    scatter_case([[1.0] * 2] * 2, [[1, 1], [0, 0]], [5.0, 6.0], _places(S, TS, N)),
    scatter_case([[0.0] * 2] * 3, [2, 0, 2], [[1.0, 2.0]] * 3, _places(S, N, S)),
    scatter_case([0.0] * 4, [3, 3, 1], [1.0, 1.0, 1.0], _places(N, N, N)),
]

# -- device behaviours under 7.2 ----------------------------------------------------------------


STAYED_ON_SIM = rules(
    (
        lambda case, got: any(w != "sim" for w in got["where"] + got["state"]),
        "after the steps the parameters are {got[where]} and the momentum buffers {got[state]}: "
        "everything stays on sim",
    ),
    (
        lambda case, got: got["to_host"],
        "the training steps made {got[to_host]} device → host copies: with model and data on the "
        "device, nothing comes back until it is asked for (a hidden transfer)",
    ),
)


LAYERS = ["Linear 1's weight", "Linear 1's bias", "Linear 2's weight", "Linear 2's bias"]
training_verdict = Fields(
    [
        Field("losses", "losses", rtol=1e-9, atol=1e-12),
        *(Field(f"params.{i}", name, rtol=1e-9, atol=1e-12) for i, name in enumerate(LAYERS)),
    ],
    keys=("to_host", "losses", "params", "where", "state"),
    before=STAYED_ON_SIM,
)


def _state_off_sim(case: Case, received: Any) -> tuple | None:
    """(index, state) of the first parameter whose state is empty or not on sim."""
    states = enumerate(received["state"])
    return next(((i, s) for i, s in states if not s or set(s.values()) != {"sim"}), None)


def _state_words(case: Case, received: Any) -> str:
    i, state = _state_off_sim(case, received)
    name = case.inputs["name"]
    return f"{name}'s state of parameter {i} is {show(state)}: made on the parameter's device (sim)"


optimizer_state_verdict = Fields(
    [],
    keys=("state", "params"),
    then=rules(
        (_state_off_sim, _state_words),
        (
            lambda case, got: any(p != "sim" for p in got["params"]),
            "after step() the parameters are {got[params]}, expected on sim",
        ),
    ),
)


def _batch(field: int) -> Field:
    """Item ``field`` of every batch [x's device, y's device, x, y]: x or y's values."""
    return Field(
        f"batches.*.{field}",
        f"batch {{i}} {'xy'[field - 2]}",
        rtol=0,
        atol=0,
        expected=lambda case: [[None, None, *batch] for batch in case.expected],
    )


loader_verdict = Fields(
    [_batch(2), _batch(3)],
    keys=("to_host", "batches"),
    before=rules(
        (
            lambda case, got: _off_device(got["batches"]),
            lambda case, got: (
                "batch {} is on ({}, {}), expected sim:0 (the dataset's device)".format(
                    *_off_device(got["batches"])
                )
            ),
        )
    ),
    then=rules(
        (
            lambda case, got: got["to_host"],
            "the epoch made {got[to_host]} device → host copies, expected none",
        )
    ),
)


def _off_device(batches: list) -> tuple | None:
    """(index, x's device, y's device) of the first batch not on sim:0."""
    devices = ((i, a, b) for i, (a, b, *_) in enumerate(batches))
    return next((d for d in devices if d[1:] != ("sim:0", "sim:0")), None)


def _optimizer_state_case(name: str) -> Case:
    return Case(
        f"{name} over two parameters on sim, gradients on sim, one step",
        {"name": name},
    )


CHECKS = [
    Check(
        "7.1",
        "cuda.is_available: a silent, cached probe",
        Rows.of(*PROBES),
        programs.probe,
        probe_verdict,
    ),
    Check(
        "7.2",
        "array_module, device_of, backend_of",
        Rows.of(
            whose_case([NP, NP_INT, NP_0D, SCALAR]),
            whose_case([SIM, SIM_0D]),
            whose_case([TOY0, TOY2, SIM, NP], register=True),
            whose_case([LIST], label="a Python list"),
            whose_case([STRANGER], label="an object of an unknown class"),
        ),
        programs.whose,
        whose_verdict,
    ),
    Check(
        "7.2",
        "Tensor.device",
        Rows.of(
            Case(
                "Tensor.device of a float64 tensor on cpu and on sim",
                {"data": [[1.0, 2.0]], "dtype": "float64"},
                ["cpu", "sim:0", True],
            ),
            Case(
                "Tensor.device of a 0-d int64 tensor on cpu and on sim",
                {"data": 3, "dtype": "int64"},
                ["cpu", "sim:0", True],
            ),
        ),
        programs.tensor_devices,
    ),
    Check("7.3", "move_array", Rows.of(*MOVES), programs.move, move_verdict, WHOSE),
    Check(
        "7.3",
        "factories with device=, set_default_device",
        Rows.of(
            Case(
                "zeros, ones, full, arange, eye, tensor, randn with device='sim'",
                {"default": False},
                _factory_expected(False),
            ),
            Case(
                "the same after set_default_device('sim'), and a Linear's parameters",
                {"default": True},
                _factory_expected(True),
            ),
        ),
        programs.factories,
        factories_verdict,
        WHOSE,
    ),
    Check(
        "7.4",
        "ToDevice: Tensor.to and its gradient",
        Rows.of(
            to_device_case([1.0, -2.0, 3.0], [0.5, 1.0, 2.0], "cpu", "sim"),
            to_device_case([[1.5, -0.5], [2.0, 0.25]], [[1.0, 2.0], [3.0, 4.0]], "sim", "cpu"),
            to_device_case([0.5, 2.0], [3.0, -1.0], "sim", "cpu", how="cpu"),
            to_device_case([1.0, 4.0, -3.0], [2.0, 2.0, 0.5], "cpu", "sim", how="device"),
        ),
        programs.to_device,
        to_device_verdict,
        MOVE,
    ),
    Check(
        "7.4",
        "a copy through another registered device",
        Rows.of(
            toy_case([1.0, -2.0, 3.0], [0.5, 1.0, 2.0], "cpu", 1),
            toy_case([[2.0, 0.5], [-1.0, 4.0]], [[1.0, -1.0], [0.25, 3.0]], "sim", 2),
        ),
        programs.through_toy,
        toy_verdict,
        MOVE,
    ),
    Check(
        "7.4",
        "ToDevice's backward is recorded (a second derivative)",
        Rows.of(double_case([1.0, -2.0, 0.5], "cpu", "sim"), double_case([2.0, 3.0], "sim", "cpu")),
        programs.double_backward,
        double_verdict,
        MOVE,
    ),
    Check(
        "7.4",
        "to() on the same device",
        Rows.of(
            Case("x on cpu: x.to('cpu'), x.to(device('cpu')), x.cpu()", {"where": "cpu"}),
            Case("s on sim: s.to('sim'), s.to(device('sim', 0)), s.to('sim:0')", {"where": "sim"}),
        ),
        programs.same_place,
        same_place_verdict,
        MOVE,
    ),
    Check(
        "7.4",
        "Module.to moves parameters, buffers and gradients in place",
        Rows.of(
            module_to_case(
                "Linear(3, 2), BatchNorm1d(2) after one backward, model.to('sim') and back",
                [[1.0, 2.0, 3.0], [0.5, -1.0, 2.0], [0.0, 1.0, -2.0]],
                "sim",
            ),
            module_to_case(
                "the same with model.to(sp.device('sim:0'))",
                [[2.0, 0.0, 1.0], [1.5, -1.0, 0.5]],
                "sim:0",
            ),
        ),
        programs.module_to,
        module_to_verdict,
        MOVE,
    ),
    Check(
        "7.4",
        "sp.load(map_location=)",
        Rows.of(_load_case("sim"), _load_case("cpu")),
        programs.load_onto,
        load_verdict,
        MOVE,
    ),
    Check(
        "7.4",
        "an optimizer's state loaded onto its parameters' device",
        Rows.of(_state_case("SGD", "cpu"), _state_case("Adam", "cpu"), _state_case("Adam", "sim")),
        programs.optimizer_load,
        state_where_verdict,
        MOVE,
    ),
    Check("7.5", "check_same_device", Rows.of(*MIXED), programs.mixed, mixed_verdict, WHOSE),
    Check(
        "7.6",
        "scatter_add on a device",
        Rows.of(*SCATTERS),
        programs.scatter,
        scatter_verdict,
        WHOSE,
    ),
    Check(
        "7.6",
        "the gradient of indexing on sim",
        Rows.of(
            index_grad_case([1.0, 2.0, 3.0], [0, 0, 2], [1.0, 2.0, 3.0]),
            index_grad_case(
                [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],
                [2, 2, 0, 2],
                [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]],
            ),
        ),
        programs.index_grad,
        index_grad_verdict,
        WHOSE,
    ),
    Check(
        "7.2",
        "a training step on sim: no hidden transfer",
        lambda rng: [training_case(rng, 5, 1), training_case(rng, 8, 3)],
        programs.training,
        training_verdict,
    ),
    Check(
        "7.2",
        "optimizer state on the parameters' device",
        Rows.of(
            *(_optimizer_state_case(n) for n in ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad"))
        ),
        programs.optimizer_state,
        optimizer_state_verdict,
    ),
    Check(
        "7.2",
        "a DataLoader over sim tensors",
        Rows.of(loader_case(5, 2, False), loader_case(7, 3, True)),
        programs.loader,
        loader_verdict,
    ),
]

CHECKS += ops.CHECKS

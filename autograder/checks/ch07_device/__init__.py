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
from ...harness.table import Field, Fields, Mistake, Rows, each, first, rules, say, tr
from . import ops, programs
from .cases import (
    array_text,
    double_case,
    index_grad_case,
    labelled_case,
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
    return say(words).format(got=got, shown=show(got), want=want["available"])


def _lost_words(case: Case, received: Any) -> str:
    lost = tr(" and ", " 和 ").join(_lost(received))
    return tr(
        f"after is_available(), the program's own output to {lost} was lost: the probe left "
        "sys.stdout / sys.stderr redirected, and did not put them back",
        f"调用 is_available() 之后，程序自己写到 {lost} 的输出丢失了：探测让 sys.stdout / "
        "sys.stderr 一直处于重定向状态，没有恢复",
    )


probe_verdict = Fields(
    [],
    keys=("error", "available", "count", "calls", "printed", "warned"),
    then=rules(
        (
            lambda case, got: got["calls"].get("import"),
            {
                "en": "importing the cuda module called into CuPy {got[calls][import]} time(s): "
                "the probe runs at the first is_available(), never at import",
                "zh": "导入 cuda 模块时调用了 CuPy {got[calls][import]} 次：探测应在第一次调用 "
                "is_available() 时进行，绝不能在导入时进行",
            },
        ),
        (
            lambda case, got: (
                got["error"] and ("_answer['probe']" in got["error"] or "KeyError" in got["error"])
            ),
            {
                "en": "device_count() raised {got[error]}: is_available() must keep the probe's "
                "answer in _answer['probe'], where device_count reads the count",
                "zh": "device_count() 抛出了 {got[error]}：is_available() 必须把探测的结果存进 "
                "_answer['probe']，device_count 从那里读取设备数",
            },
        ),
        (
            lambda case, got: (
                got["error"] and "No module named" in got["error"]  # en-only: Python's, matched
            ),
            {
                "en": "is_available() or device_count() raised {got[error]}: with CuPy not "
                "installed the answer is False, silently, and here the import of CuPy was not "
                "inside what the probe catches",
                "zh": "is_available() 或 device_count() 抛出了 {got[error]}：未安装 CuPy 时，"
                "答案应是 False，而且静默地给出；这里导入 CuPy 的语句不在探测捕获异常的范围之内",
            },
        ),
        (
            lambda case, got: got["error"],
            {
                "en": "is_available() or device_count() raised {got[error]}: every failure of "
                "the probe (CuPy missing, CUDARuntimeError, a kernel that cannot launch; not only "
                "ImportError) is the answer False, silently",
                "zh": "is_available() 或 device_count() 抛出了 {got[error]}：探测的每一种失败"
                "（缺少 CuPy、CUDARuntimeError、内核无法启动；不只是 ImportError）都应静默地"
                "给出答案 False",
            },
        ),
        (
            lambda case, got: got["printed"],
            {
                "en": "the probe printed {got[printed]!r}: it must be silent, and what it (or "
                "CuPy, which can print) wrote reached the program's output",
                "zh": "探测打印了 {got[printed]!r}：它必须保持安静，而它（或会打印信息的 CuPy）"
                "写出的内容到达了程序的输出",
            },
        ),
        (
            lambda case, got: got["warned"],
            {
                "en": "a warning escaped the probe ({got[warned][0]!r}): it must be silent",
                "zh": "有一条警告从探测中漏了出来（{got[warned][0]!r}）：探测必须保持安静",
            },
        ),
        (
            lambda case, got: not got.get("kept", {}).get("warnings", True),
            {
                "en": "after is_available(), a warning of the program's own was not shown: the "
                "probe changed the warning filters of the whole program, and did not put them back",
                "zh": "调用 is_available() 之后，程序自己的警告没有显示出来：探测改动了整个程序的"
                "警告过滤器，却没有恢复",
            },
        ),
        (lambda case, got: _lost(got), _lost_words),
        (
            lambda case, got: isinstance(got["available"][0], (list, tuple)),
            {
                "en": "is_available() is {got[available][0]}, the probe's pair (usable, count): "
                "expected the answer {want[available]} alone",
                "zh": "is_available() 返回 {got[available][0]}，即探测的二元组"
                "（是否可用，设备数）：期望只返回答案 {want[available]}",
            },
        ),
        (lambda case, got: got["available"][0] != case.expected["available"], _wrong_answer),
        (
            lambda case, got: any(a != got["available"][0] for a in got["available"][1:]),
            {
                "en": "is_available() answered {got[available]} on three calls: the answer is kept",
                "zh": "三次调用 is_available() 的答案是 {got[available]}：答案应当缓存下来",
            },
        ),
        (
            lambda case, got: got["count"] != [case.expected["count"]] * 2,
            lambda case, got: (
                tr(
                    f"device_count() is {show(got['count'])}, expected {case.expected['count']} "
                    "(twice)",
                    f"device_count() 返回 {show(got['count'])}，期望两次都是 "
                    f"{case.expected['count']}",
                )
                + (
                    tr(
                        f": CuPy counts {case.expected['count']} devices here, and the probe's "
                        "answer holds another count",
                        f"：这里 CuPy 数到 {case.expected['count']} 个设备，而探测的答案里存的是"
                        "另一个数",
                    )
                    if case.expected["count"] > 1 and got["count"][0] != case.expected["count"]
                    else ""
                )
            ),
        ),
        (
            lambda case, got: got["calls"].get("later"),
            lambda case, got: (
                tr(
                    "after its first answer, is_available() / device_count() asked CuPy again "
                    f"({got['calls']['later']} more call(s))",
                    "给出第一个答案之后，is_available() / device_count() 又询问了 CuPy"
                    f"（多调用了 {got['calls']['later']} 次）",
                )
                + (
                    tr(": the answer False was not kept", "：答案 False 没有被缓存")
                    if got["available"][0] is False
                    else ""
                )
                + tr(
                    ": probe once and keep the answer in _answer",
                    "：只探测一次，并把答案存进 _answer",
                )
            ),
        ),
    ),
)


WRONG_ANSWER = {  # the state of the fake CuPy: what a wrong first answer means
    "kernel fails": {
        "en": "is_available() is {got!r}, expected False: CuPy imports and counts a device "
        "here, but its first kernel fails, so the GPU is not usable: the answer True came "
        "without a kernel run on the device",
        "zh": "is_available() 返回 {got!r}，期望 False：这里 CuPy 能导入，也数得到设备，但第一个"
        "内核就失败了，所以 GPU 不可用：答案 True 是在没有在设备上运行过内核的情况下给出的",
    },
    "fails late": {
        "en": "is_available() is {got!r}, expected False: the kernel launches here, and its "
        "error shows only when its result is read back (a GPU runs kernels asynchronously): "
        "the answer True came before the kernel's result was read back",
        "zh": "is_available() 返回 {got!r}，期望 False：这里内核能启动，但它的错误要到读回结果时"
        "才出现（GPU 异步执行内核）：答案 True 是在读回内核结果之前给出的",
    },
    "no device": {
        "en": "is_available() is {got!r} with 0 devices, expected False: CuPy counts 0 "
        "devices here, and 0 devices were taken for a GPU",
        "zh": "设备数为 0 时 is_available() 返回 {got!r}，期望 False：这里 CuPy 数到 0 个设备，"
        "而 0 个设备被当成了有 GPU",
    },
    "": {
        "en": "is_available() is {shown}, expected {want!r} (the check's stand-in for CuPy has "
        "cupy.cuda.runtime.getDeviceCount, cupy.cuda.Device, cupy.is_available, cupy.asnumpy "
        "and NumPy's functions, whose arrays have .get())",
        "zh": "is_available() 返回 {shown}，期望 {want!r}（本检查用来替代 CuPy 的模块提供 "
        "cupy.cuda.runtime.getDeviceCount、cupy.cuda.Device、cupy.is_available、cupy.asnumpy "
        "和 NumPy 的函数，其数组带有 .get()）",
    },
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

    def not_refused(case: Case, got: Any) -> str:
        what = array_text(case.inputs)
        value = show(got[name]["value"])
        did = got[name]["error"] or tr(f"returned {value}", f"返回了 {value}")
        why = (
            tr(
                ": an object no backend owns was handed to the CPU",
                "：一个没有任何后端拥有的对象被交给了 CPU",
            )
            if got["backend_of"]["value"] == "cpu"
            else ""
        )
        return tr(
            f"{name} of {what}: {did}, expected a TypeError naming its type{why}",
            f"对于{what}，{name}：{did}，期望抛出指出其类型的 TypeError{why}",
        )

    return [
        (lambda case, got: got[name]["error"] != "TypeError", not_refused),
        (
            lambda case, got: case.expected["names"] not in got[name]["message"],
            lambda case, got: tr(
                f"{name} of {array_text(case.inputs)} raised "
                f"TypeError({got[name]['message']!r}), which does not name the type "
                f"({case.expected['names']})",
                f"对于{array_text(case.inputs)}，{name} 抛出了 "
                f"TypeError({got[name]['message']!r})，但没有指出类型"
                f"（{case.expected['names']}）",
            ),
        ),
    ]


def _device_words(case: Case, received: Any) -> str:
    got, want = received["device_of"]["value"], case.expected["device"]
    hint = ""
    if got[1] == want[1] and got[2] is None:
        hint = tr(
            " (the index is missing: the array's own index, from its backend)",
            "（缺少索引：应是数组自己的索引，由它的后端给出）",
        )
    elif want[2] is None and got[2] is not None:
        hint = tr(
            " (the host's arrays have no index: device('cpu'))",
            "（主机上的数组没有索引：device('cpu')）",
        )
    elif got[1] == want[1]:
        hint = tr(" (the index is not the array's own)", "（索引不是数组自己的）")
    elif got[1] == "cpu":
        hint = tr(
            " (the host's device, for an array the cpu backend does not own)",
            "（给出了主机的设备，而 cpu 后端并不拥有这个数组）",
        )
    return tr(
        f"device_of of {array_text(case.inputs)} is {got[0]!r}, expected {want[0]!r}{hint}",
        f"对于{array_text(case.inputs)}，device_of 是 {got[0]!r}，期望 {want[0]!r}{hint}",
    )


def _namespace_words(case: Case, received: Any) -> str:
    got, want = received["array_module"]["value"], case.expected["xp"]
    text = tr(
        f"array_module of {array_text(case.inputs)} is {got[0]}, expected {want}",
        f"对于{array_text(case.inputs)}，array_module 是 {got[0]}，期望 {want}",
    )
    if len(got) > 2 and got[2]:
        return tr(
            f"{text}: a function, not a namespace (the namespace function, uncalled)",
            f"{text}：这是一个函数，不是命名空间（返回命名空间的函数没有被调用）",
        )
    if got[0] == "numpy":
        return tr(
            f"{text}: NumPy's namespace for an array NumPy does not own",
            f"{text}：对 NumPy 并不拥有的数组给出了 NumPy 的命名空间",
        )
    return tr(
        f"{text}: the namespace of the backend that owns the array",
        f"{text}：应是拥有该数组的后端的命名空间",
    )


def _backend_words(case: Case, received: Any) -> str:
    got, want = received["backend_of"]["value"], case.expected["backend"]
    text = tr(
        f"backend_of of {array_text(case.inputs)}", f"对于{array_text(case.inputs)}，backend_of"
    )
    if isinstance(got, dict):
        return tr(
            f"{text} is the str {got['str']!r}, a name: expected the Backend itself ({want!r})",
            f"{text} 是字符串 {got['str']!r}，只是一个名字：期望 Backend 对象本身（{want!r}）",
        )
    return tr(
        f"{text} is the {got!r} backend, expected {want!r}: a backend that does not own it",
        f"{text} 是 {got!r} 后端，期望 {want!r}：给出的后端并不拥有这个数组",
    )


def _unfound(case: Case, received: Any) -> str | None:
    """The first function that raised TypeError for an array a registered backend owns."""
    return next((n for n in FUNCTIONS if received[n]["error"] == "TypeError"), None)


WHOSE_REFUSED = rules(*(row for name in FUNCTIONS for row in _refused(name)))
WHOSE_OWNED = rules(
    (
        _unfound,
        lambda case, got: tr(
            f"{_unfound(case, got)} of {array_text(case.inputs)} raised TypeError: "
            f"{got[_unfound(case, got)]['message']} — but the registered "
            f"{case.expected['backend']} backend owns it: not every backend in BACKENDS was asked",
            f"对于{array_text(case.inputs)}，{_unfound(case, got)} 抛出了 TypeError："
            f"{got[_unfound(case, got)]['message']} —— 但已注册的 "
            f"{case.expected['backend']} 后端拥有它：并没有逐一询问 BACKENDS 中的每个后端",
        ),
    ),
    *(
        (
            lambda case, got, name=name: got[name]["error"],
            lambda case, got, name=name: tr(
                f"{name} of {array_text(case.inputs)} raised "
                f"{got[name]['error']}: {got[name]['message']}",
                f"对于{array_text(case.inputs)}，{name} 抛出了 "
                f"{got[name]['error']}：{got[name]['message']}",
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
            lambda case, got: tr(
                f"expected {len(case.expected)} records, received {show(got)}",
                f"期望 {len(case.expected)} 条记录，实际收到 {show(got)}",
            ),
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
    text = tr(
        f"returned a {received['kind']} array, expected a {want['error']}",
        f"返回了一个 {received['kind']} 数组，期望抛出 {want['error']}",
    )
    source = case.inputs["source"].partition(":")[0]
    if want["error"] != "RuntimeError":
        return tr(f"{text} (an unknown device type)", f"{text}（未知的设备类型）")
    if received["same"] and source == _named(case) and ":" in name:
        return tr(
            f"{text} ({name!r} is not there): the array itself came back, still on "
            f"{case.inputs['source']}: two devices of one type were taken for one",
            f"{text}（{name!r} 并不存在）：返回的是数组本身，仍在 "
            f"{case.inputs['source']} 上：同一类型的两个设备被当成了一个",
        )
    if received["same"]:
        return tr(
            f"{text} (device {name!r} is not there): the array came back as it was, and the "
            "move quietly did nothing",
            f"{text}（设备 {name!r} 并不存在）：数组原样返回，移动悄无声息地什么也没做",
        )
    if not want.get("unavailable"):
        return tr(
            f"{text} (device {name!r} is not there): an index past the {_named(case)} "
            "backend's device count was accepted",
            f"{text}（设备 {name!r} 并不存在）：超出 {_named(case)} 后端设备数的索引被接受了",
        )
    return tr(f"{text} (device {name!r} is not there)", f"{text}（设备 {name!r} 并不存在）")


def _wrong_error(case: Case, got: Any) -> str:
    """A move that must raise raised another error (or returned)."""
    want, device = case.expected["error"], case.expected["device"]
    did = got["error"] or tr(f"returned a {got['kind']} array", f"返回了一个 {got['kind']} 数组")
    why = (
        tr("an unknown device type", "未知的设备类型")
        if want == "ValueError"
        else tr(f"device {device!r} is not there", f"设备 {device!r} 并不存在")
    )
    return tr(f"{did}, expected a {want} ({why})", f"{did}，期望抛出 {want}（{why}）")


MOVE_FAILED = rules(  # where the move must raise
    (lambda case, got: got["error"] is None, _not_refused),
    (lambda case, got: got["error"] != case.expected["error"], _wrong_error),
    (
        lambda case, got: (
            got["error"] == "RuntimeError"
            and ("\n" in got["message"].strip() or "Traceback" in got["message"])
        ),
        {
            "en": "the error is several lines ({got[message]!r}): one sentence is enough",
            "zh": "错误信息有好几行（{got[message]!r}）：一句话就够了",
        },
    ),
    (
        lambda case, got: (
            got["error"] == "RuntimeError" and _named(case).lower() not in got["message"].lower()
        ),
        {
            "en": "the error {got[message]!r} does not name the device ({want[device]})",
            "zh": "错误信息 {got[message]!r} 没有指出设备（{want[device]}）",
        },
    ),
    (
        lambda case, got: got["error"] == "RuntimeError" and got["chained"],
        {
            "en": "the RuntimeError carries a {got[chained]} along (raised inside an except "
            "block, or from it): a student sees that traceback too. Raise it on its own",
            "zh": "这个 RuntimeError 还连带着一个 {got[chained]}（它是在 except 块中抛出的，"
            "或用了 from）：使用者也会看到那段回溯。请单独抛出它",
        },
    ),
    (
        lambda case, got: (
            got["error"] == "RuntimeError"
            and case.expected.get("unavailable")
            and not ("cpu" in got["message"] or "sim" in got["message"])
        ),
        lambda case, got: (
            tr(
                f"the error {got['message']!r} does not say what to use instead ('cpu', "
                f"or 'sim' for the simulated device): {case.expected['device']} is not "
                "available here",
                f"错误信息 {got['message']!r} 没有说明该改用什么（'cpu'，或模拟设备 'sim'）："
                f"这里 {case.expected['device']} 不可用",
            )
            + (
                ""
                if _named(case) == "cuda"
                else tr(", as its own backend says", "，它自己的后端也这样说")
            )
        ),
    ),
)


def _one_way(case: Case, direction: str) -> str:
    """Why a move made a copy too many in ``direction``: one copy, in one direction."""
    needed = case.expected["copies"][DIRECTIONS.index(direction)]
    if needed and direction == TO_DEVICE:
        return tr(
            "one copy, in one direction, sent once (the target's backend.to_device): sending "
            "the array again, or a second array to check the first, is another copy",
            "只复制一次、只朝一个方向，发送一次（用目标的 backend.to_device）：再发送一次这个"
            "数组，或者再发一个数组来核对第一个，都是又一次复制",
        )
    if needed:
        return tr(
            "one copy, in one direction, read back once (the source's backend.to_host): "
            "reading the array back again is another copy",
            "只复制一次、只朝一个方向，读回一次（用源的 backend.to_host）：再读回一次数组就是"
            "又一次复制",
        )
    if direction == TO_DEVICE:
        return tr(
            "one copy, in one direction, and nothing goes to the simulated device on this move: "
            "sending the array back there (or a test array) is a copy",
            "只复制一次、只朝一个方向，而这次移动不向模拟设备发送任何东西：把数组（或一个测试用"
            "的数组）送回那里就是一次复制",
        )
    return tr(
        "one copy, in one direction, and nothing comes back from the simulated device on this "
        "move: reading the moved array back (.get() or backend.to_host, to check the copy) is "
        "a copy to the host",
        "只复制一次、只朝一个方向，而这次移动不从模拟设备取回任何东西：把移动后的数组读回来"
        "（用 .get() 或 backend.to_host 来核对副本）就是一次到主机的复制",
    )


def _target(case: Case) -> str:
    """The target's name as the case passes it ("sim", "sim:0", "cpu", …)."""
    return case.inputs["target"].removeprefix("device:")


def _raised_words(case: Case, received: Any) -> str:
    text = tr(
        f"move_array raised {received['error']}: {received['message']}",
        f"move_array 抛出了 {received['error']}：{received['message']}",
    )
    if "Implicit conversion" in received["message"] and case.inputs["source"] == "sim":
        return tr(
            f"{text} — NumPy was asked to read a device's array directly",
            f"{text} —— NumPy 被要求直接读取设备上的数组",
        )
    return text


def _moved_elsewhere(case: Case, got: Any) -> str:
    """Where a move put the array, against where it should be."""
    kind = case.expected["kind"]
    place = {
        "numpy": tr("the host (a NumPy array)", "主机上（一个 NumPy 数组）"),
        "sim": tr("the simulated device", "模拟设备上"),
    }.get(kind) or tr(
        f"the {kind} device (its backend's to_device)", f" {kind} 设备上（经由其后端的 to_device）"
    )
    return tr(
        f"move_array returned a {got['kind']} array, expected one on {place}",
        f"move_array 返回了一个 {got['kind']} 数组，期望它在{place}",
    ) + (
        tr(": the array never left the device", "：数组根本没有离开设备")
        if kind == "numpy" and got["kind"] == case.inputs["source"]
        else ""
    )


def _not_itself_moved(case: Case, got: Any) -> str:
    """A move to the array's own device that copied it."""
    target = _target(case)
    alias = (
        tr(f" ({target!r} names {target}:0)", f"（{target!r} 指的就是 {target}:0）")
        if ":" not in target and target != "cpu"
        else ""
    )
    return tr(
        f"the array is on that device already{alias}: move_array must return it itself, not "
        f"a copy ({got['to_device']} copies to the device, {got['to_host']} back)",
        f"数组本来就在那个设备上{alias}：move_array 必须返回它本身，而不是副本（复制到设备 "
        f"{got['to_device']} 次，复制回来 {got['to_host']} 次）",
    )


MOVED = Fields(  # where the move must succeed
    [Field("values", rtol=0, atol=0)],
    before=rules(
        (lambda case, got: got["error"], _raised_words),
        (lambda case, got: got["kind"] != case.expected["kind"], _moved_elsewhere),
        (lambda case, got: case.expected["same"] and not got["same"], _not_itself_moved),
        (
            lambda case, got: np.shape(got["values"]) != np.shape(case.expected["values"]),
            lambda case, got: tr(
                f"the moved array has shape {np.shape(got['values'])}, expected "
                f"{np.shape(case.expected['values'])}: the move changed its shape",
                f"移动后的数组形状为 {np.shape(got['values'])}，期望 "
                f"{np.shape(case.expected['values'])}：移动改变了它的形状",
            ),
        ),
        *copy_rows(
            "move_array",
            lambda got: (got["to_device"], got["to_host"]),
            lambda case: case.expected["copies"],
            {
                (TO_DEVICE, MORE): lambda case, got: _one_way(case, TO_DEVICE),
                (TO_HOST, MORE): lambda case, got: _one_way(case, TO_HOST),
                (TO_DEVICE, FEWER): {
                    "en": "one copy, in one direction, and a host array reaches the device "
                    "through the target's backend.to_device",
                    "zh": "只复制一次、只朝一个方向，主机上的数组要经由目标的 backend.to_device "
                    "送到设备上",
                },
                (TO_HOST, FEWER): {
                    "en": "one copy, in one direction, and a device's array comes back through "
                    "its own backend.to_host",
                    "zh": "只复制一次、只朝一个方向，设备上的数组要经由它自己的 backend.to_host "
                    "取回",
                },
            },
        ),
        (
            lambda case, got: got["dtype"] != case.expected["dtype"],
            {
                "en": "the moved array is {got[dtype]}, expected {want[dtype]} (kept)",
                "zh": "移动后的数组是 {got[dtype]}，期望 {want[dtype]}（数据类型应保持不变）",
            },
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
                {
                    "en": "move_array tried to import CuPy although cuda.is_available() is False: "
                    "the move went ahead without asking whether the device is there",
                    "zh": "cuda.is_available() 为 False，move_array 却尝试导入 CuPy：移动之前"
                    "没有先问设备是否存在",
                },
            ),
            (
                _source_changed,
                {
                    "en": "move_array changed the array it was given",
                    "zh": "move_array 改动了传给它的数组",
                },
            ),
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
    if case.inputs["default"]:
        return tr("with set_default_device('sim')", "在 set_default_device('sim') 之后")
    return tr("with device='sim'", "传入 device='sim'")


FACTORY_NAMES = {  # a factory's name in the record (its key) and in the report
    "tensor (int)": {"zh": "tensor（int）"},
    "Linear's weight": {"zh": "Linear 的权重"},
    "Linear's bias": {"zh": "Linear 的偏置"},
}


def _factory(case: Case) -> str:
    """The factory's name as the report shows it."""
    name = case.inputs["name"]
    return say({"en": name, **FACTORY_NAMES.get(name, {})})


FACTORY = first(  # one factory's tensor, its expectation a case of its own
    rules(
        (
            lambda case, got: not isinstance(got, dict),
            lambda case, got: tr(
                f"{_factory(case)}: received {show(got)}",
                f"{_factory(case)}：实际收到 {show(got)}",
            ),
        ),
        (
            lambda case, got: got["device"] != "sim:0" or got["kind"] != "sim",
            lambda case, got: tr(
                f"{_factory(case)} {_how(case)} is on {got['device']} (a "
                f"{got['kind']} array), expected sim:0",
                f"{_factory(case)}（{_how(case)}）在 {got['device']} 上（一个 "
                f"{got['kind']} 数组），期望在 sim:0 上",
            ),
        ),
        *(
            (
                lambda case, got, key=key: got[key] != case.expected[key],
                lambda case, got, key=key: tr(
                    f"{_factory(case)} {_how(case)}: {key} "
                    f"{got[key]}, expected {case.expected[key]}",
                    f"{_factory(case)}（{_how(case)}）：{key} 为 "
                    f"{got[key]}，期望 {case.expected[key]}",
                ),
            )
            for key in ("shape", "dtype")
        ),
    ),
    lambda case, got: case.expected["values"] is not None and FACTORY_VALUES(case, got),
)
FACTORY_VALUES = Fields([Field("values", _factory, rtol=0, atol=0)])


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
                lambda case, got: tr(
                    f"after set_default_device(None) a new tensor is on {got.get('after')}",
                    f"set_default_device(None) 之后，新建的张量在 {got.get('after')} 上",
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
    {
        "en": "y has no grad_fn: the copy of a tensor that requires grad is recorded",
        "zh": "y 没有 grad_fn：对需要梯度的张量所做的复制应被记录下来",
    },
)
GRAD_BACK = (
    lambda case, got: got["grad_device"] != case.expected["grad_device"],
    lambda case, got: (
        tr(
            f"x.grad is on {got['grad_device']}, expected {case.expected['grad_device']}",
            f"x.grad 在 {got['grad_device']} 上，期望在 {case.expected['grad_device']} 上",
        )
        + (
            tr(
                f": the gradient stayed on y's device ({got['grad_device']}), where x is not",
                f"：梯度留在了 y 的设备（{got['grad_device']}）上，而 x 不在那里",
            )
            if got["grad_device"] == case.expected["y_device"]
            else ""
        )
        + tr(
            ": the backward of a copy moves the gradient back to the device x is on",
            "：复制操作的反向函数要把梯度移回 x 所在的设备",
        )
    ),
)
RECURSED = rules(
    (
        lambda case, got: isinstance(got, dict) and "recursed" in got,
        {
            "en": "the move never returned (RecursionError): {got[recursed]} went round in a "
            "circle (the copy's forward started another copy)",
            "zh": "移动一直没有返回（RecursionError）：{got[recursed]} 在兜圈子（复制的前向计算"
            "又发起了另一次复制）",
        },
    )
)


def _the_move(case: Case, received: Any) -> str:
    call = {"to": ".to({!r})", "device": ".to(sp.device({!r}))", "cpu": ".cpu()"}
    return tr("the move y = x", "移动 y = x") + call[case.inputs["how"]].format(case.inputs["go"])


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
                {
                    "en": "y is on {got[y_device]}, expected {want[y_device]}",
                    "zh": "y 在 {got[y_device]} 上，期望在 {want[y_device]} 上",
                },
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
                (TO_DEVICE, MORE): {
                    "en": "the forward's one copy is x's data, moved once; nothing else crosses",
                    "zh": "前向计算只有一次复制：把 x 的数据移动一次；此外什么都不跨越设备",
                },
                (TO_HOST, MORE): {
                    "en": "the forward's one copy is x's data, moved once: reading the copy "
                    "back, to check it or to compare, is a copy to the host",
                    "zh": "前向计算只有一次复制：把 x 的数据移动一次；把副本读回来（为了核对或"
                    "比较）就是一次到主机的复制",
                },
            },
        ),
        (
            lambda case, got: got["grad_device"] is None,
            {
                "en": "x.grad is None after L.backward(): the gradient goes back through the copy",
                "zh": "L.backward() 之后 x.grad 为 None：梯度应经由复制操作传回去",
            },
        ),
        GRAD_BACK,
        *copy_rows(
            "L.backward()",
            lambda got: got["back"],
            lambda case: case.expected["back"],
            {
                (direction, side): {
                    "en": "the gradient crosses once, back to x's device; nothing else crosses",
                    "zh": "梯度只跨越设备一次，回到 x 的设备；此外什么都不跨越",
                }
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
            {
                "en": "y is on {got[y_device]} (a {got[y_kind]} array), expected {want[y_device]}",
                "zh": "y 在 {got[y_device]} 上（一个 {got[y_kind]} 数组），期望在 "
                "{want[y_device]} 上",
            },
        ),
        RECORDED,
        (
            lambda case, got: got["z_device"] != case.expected["z_device"],
            {
                "en": "z is on {got[z_device]}, expected {want[z_device]}",
                "zh": "z 在 {got[z_device]} 上，期望在 {want[z_device]} 上",
            },
        ),
        (
            lambda case, got: "error" in got,
            lambda case, got: (
                tr(f"L.backward() raised {got['error']}", f"L.backward() 抛出了 {got['error']}")
                + (say(TOY_DEVICE) if "ToyDevice" in got["error"] else "")
            ),
        ),
        GRAD_BACK,
    ),
)
TOY_DEVICE = {
    "en": " — ctx.source holds the array's own .device (CuPy's is a cupy.cuda.Device, not a "
    "device name), not the tensor's device",
    "zh": " —— ctx.source 存的是数组自己的 .device（CuPy 的是一个 cupy.cuda.Device，不是设备名），"
    "而不是张量的设备",
}


double_verdict = first(
    Fields(
        [Field("g", "g", rtol=1e-12, atol=1e-12)],
        keys=("g_device", "g", "g_requires_grad"),
        before=rules(
            (
                lambda case, got: got["g_device"] != case.expected["g_device"],
                {
                    "en": "g is on {got[g_device]}, expected {want[g_device]}",
                    "zh": "g 在 {got[g_device]} 上，期望在 {want[g_device]} 上",
                },
            )
        ),
        then=rules(
            (
                lambda case, got: not got["g_requires_grad"],
                {
                    "en": "g does not require grad with create_graph=True: the move back in "
                    "ToDevice's backward was not recorded (a bare array, or a detached tensor, "
                    "moved)",
                    "zh": "在 create_graph=True 下 g 却不需要梯度：ToDevice 的反向函数中把梯度移回"
                    "去的那一步没有被记录（移动的是裸数组，或是分离出来的张量）",
                },
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


def _itself_words(case: Case, received: Any) -> str:
    call, answer = _not_itself(case, received)
    return tr(
        f"{call} is {answer!r}: a tensor already on the device is returned itself",
        f"{call} 的结果是 {answer!r}：已经在该设备上的张量应返回它本身",
    )


same_place_verdict = rules(
    (
        lambda case, got: not isinstance(got, list),
        lambda case, got: tr(f"received {show(got)}", f"实际收到 {show(got)}"),
    ),
    (_not_itself, _itself_words),
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
            {
                "en": "model.to('sim') did not return the model itself",
                "zh": "model.to('sim') 没有返回模型本身",
            },
        ),
        (
            lambda case, got: not got["same_objects"],
            {
                "en": "model.to('sim') made new Parameter objects: the same ones, their data moved",
                "zh": "model.to('sim') 新建了 Parameter 对象：应保留原来的对象，只移动它们的数据",
            },
        ),
        (
            lambda case, got: _off_sim(got["where"]),
            lambda case, got: tr(
                f"after model.to('sim'), {', '.join(_off_sim(got['where']))} not on "
                "sim (state left behind)",
                f"model.to('sim') 之后，{', '.join(_off_sim(got['where']))} 不在 sim 上"
                "（有状态被落下了）",
            ),
        ),
        (
            lambda case, got: any(k != "sim" for k in got["grads_where"]),
            {
                "en": "after model.to('sim') the gradients are {got[grads_where]}: moved too",
                "zh": "model.to('sim') 之后梯度在 {got[grads_where]}：梯度也应一起移动",
            },
        ),
        (
            lambda case, got: (
                _module_changed(case.inputs["state"], got["values"])
                or _module_changed(case.inputs["grads"], got["grads"])
            ),
            {
                "en": "model.to('sim') changed a parameter's, buffer's or gradient's values",
                "zh": "model.to('sim') 改变了某个参数、缓冲区或梯度的值",
            },
        ),
        (
            lambda case, got: got["forward_on"] != "sim:0",
            {
                "en": "the moved model's output is on {got[forward_on]}, expected sim:0",
                "zh": "移动后模型的输出在 {got[forward_on]} 上，期望在 sim:0 上",
            },
        ),
        (
            lambda case, got: got["back_where"] != ["numpy"],
            {
                "en": "after model.to(sp.device('cpu')) the arrays are {got[back_where]}",
                "zh": "model.to(sp.device('cpu')) 之后，数组是 {got[back_where]}",
            },
        ),
        (
            lambda case, got: _module_changed(case.inputs["state"], got["back_values"]),
            {
                "en": "model.to(sp.device('cpu')) changed a parameter's or buffer's values",
                "zh": "model.to(sp.device('cpu')) 改变了某个参数或缓冲区的值",
            },
        ),
    ),
)

load_verdict = Fields(
    [
        *(
            Field(f"{k}.{what}", name, rtol=0, atol=0)
            for k in "wb"
            for what, name in (
                ("device", {"en": f"loaded[{k!r}]'s device", "zh": f"loaded[{k!r}] 的设备"}),
                ("values", k),
            )
        ),
        Field("n", "loaded['n']", rtol=0, atol=0),
    ],
    before=rules(
        (
            lambda case, got: not set(case.expected) <= set(got),
            lambda case, got: tr(
                f"the loaded dict holds {sorted(got)}, expected {sorted(case.expected)}",
                f"加载出的字典含有 {sorted(got)}，期望 {sorted(case.expected)}",
            ),
        )
    ),
)


def _load_case(location: str) -> Case:
    where = "sim:0" if location == "sim" else "cpu"
    return labelled_case(
        {
            "en": f"sp.save of {{'w': a sim tensor, 'b': a cpu tensor, 'n': 3}}, then "
            f"sp.load(path, map_location={location or None!r})",
            "zh": f"用 sp.save 保存 {{'w': 一个 sim 张量, 'b': 一个 cpu 张量, 'n': 3}}，再 "
            f"sp.load(path, map_location={location or None!r})",
        },
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
        lambda case, got: tr(
            f"the loaded optimizer's state is {show(got)}, expected "
            f"{show(case.expected)}: load_state_dict puts each state tensor on its parameter's "
            "device",
            f"加载后优化器的状态是 {show(got)}，期望 {show(case.expected)}：load_state_dict "
            "要把每个状态张量放到其参数所在的设备上",
        ),
    )
)


def _state_case(name: str, to: str) -> Case:
    kind = "sim" if to == "sim" else "numpy"
    keys = {"SGD": ["momentum_buffer"], "Adam": ["exp_avg", "exp_avg_sq"]}[name]
    return labelled_case(
        {
            "en": f"{name} over sim parameters, two steps, its state_dict loaded into a {name} "
            f"over parameters on {to}",
            "zh": f"管理 sim 上参数的 {name} 走两步，再把它的 state_dict 加载进管理 {to} 上参数"
            f"的 {name}",
        },
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
    both = tr(" and ", " 和 ").join(devices)
    return tr(
        f" ({both} are two devices of one type: compare the devices, type and index)",
        f"（{both} 是同一类型的两个设备：比较设备时要同时比较类型和索引）",
    )


def _names(case: Case) -> list[str]:
    return [{"cpu": "cpu", "sim": "sim:0"}.get(p, p) for p in case.inputs["places"]]


def _unseen(case: Case) -> str:
    """Of three tensors or more: which differs from the first, in words ("" for two)."""
    names = _names(case)
    if len(names) < 3:
        return ""
    k = next(i for i, n in enumerate(names) if n != names[0])
    return tr(
        f": tensor 1 is on {names[0]} and tensor {k + 1} of {len(names)} on {names[k]}, and "
        "not every tensor was compared with the first",
        f"：第 1 个张量在 {names[0]} 上，{len(names)} 个张量中的第 {k + 1} 个在 {names[k]} 上，"
        "而并非每个张量都与第一个做了比较",
    )


def _named_twice(case: Case, received: Any) -> str:
    missing = tr(" and ", " 和 ").join(_missing(case, received))
    return tr(
        f"the message {received['message']!r} names {_twice(received)} twice: two equal "
        f"devices were taken as different, and {missing} is missing",
        f"错误信息 {received['message']!r} 把 {_twice(received)} 说了两次：两个相同的设备被"
        f"当成了不同的设备，而 {missing} 没有出现",
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
            tr(
                "no error: tensors on two devices met in one operation and it ran",
                "没有报错：两个设备上的张量在同一个操作中相遇，而操作照样运行了",
            )
            + (
                (not _one_type(case) and _unseen(case))
                or tr(
                    f". Raise RuntimeError with PyTorch's sentence{_one_type(case)}",
                    f"。请抛出 RuntimeError，用 PyTorch 的那句话{_one_type(case)}",
                )
            )
        ),
    ),
    (
        lambda case, got: (
            got["error"] != "RuntimeError" and case.inputs["op"] != "check" and _unseen(case)
        ),
        lambda case, got: tr(
            f"raised {got['error']}({got['message']!r}) inside the operation itself, expected "
            f"RuntimeError before it ran{_unseen(case)}",
            f"在操作内部抛出了 {got['error']}({got['message']!r})，期望在操作运行之前就抛出 "
            f"RuntimeError{_unseen(case)}",
        ),
    ),
    (
        lambda case, got: got["error"] != "RuntimeError",
        {
            "en": "raised {got[error]}({got[message]!r}), expected RuntimeError",
            "zh": "抛出了 {got[error]}({got[message]!r})，期望 RuntimeError",
        },
    ),
    (lambda case, got: _twice(got), _named_twice),
    (
        lambda case, got: "device(type=" in got["message"],
        {
            "en": "the message {got[message]!r} shows the devices' repr, not their names "
            "({want[devices][0]}, {want[devices][1]})",
            "zh": "错误信息 {got[message]!r} 显示的是设备的 repr，而不是它们的名字"
            "（{want[devices][0]}、{want[devices][1]}）",
        },
    ),
    (
        _swapped,
        {
            "en": "the message names the devices in the other order: expected {want[message]!r} "
            "(the first tensor's device, then the first that differs from it)",
            "zh": "错误信息中两个设备的顺序反了：期望 {want[message]!r}（先是第一个张量的设备，"
            "再是第一个与它不同的设备）",
        },
    ),
    (
        _missing,
        lambda case, got: tr(
            f"the message {got['message']!r} does not name both devices "
            f"({', '.join(_missing(case, got))} missing)",
            f"错误信息 {got['message']!r} 没有同时指出两个设备"
            f"（缺少 {', '.join(_missing(case, got))}）",
        ),
    ),
    (
        lambda case, got: case.expected["op"] not in got["message"],
        {
            "en": "the message {got[message]!r} does not name the operation ({want[op]})",
            "zh": "错误信息 {got[message]!r} 没有指出操作（{want[op]}）",
        },
    ),
    (
        lambda case, got: got["message"] != case.expected["message"],
        {
            "en": "the message is {got[message]!r}, not PyTorch's sentence: expected "
            "{want[message]!r}",
            "zh": "错误信息是 {got[message]!r}，不是 PyTorch 的那句话：期望 {want[message]!r}",
        },
    ),
)

MIXED_RAN = Fields(  # every tensor on one device: it runs
    [Field("values", {"en": "result", "zh": "结果"}, rtol=1e-12, atol=0)],
    before=rules(
        (
            lambda case, got: got["error"],
            {
                "en": "raised {got[error]}: {got[message]} (every tensor on one device)",
                "zh": "抛出了 {got[error]}：{got[message]}（所有张量都在同一个设备上）",
            },
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
        {
            "en": "NumPy's add.at cannot work on a device's array, and it met one",
            "zh": "NumPy 的 add.at 无法处理设备上的数组，而它遇到了一个",
        },
    ),
    (
        ("Unsupported",),
        {
            "en": "an index or values still in host memory met the device's array",
            "zh": "仍在主机内存中的索引或值遇上了设备上的数组",
        },
    ),
    (
        ("IndexError",),
        {
            "en": "an index may be a tuple (one array per axis), and this one went to the device "
            "as one array, not array by array",
            "zh": "索引可以是元组（每个轴一个数组），而这个元组被当作一个整体送到了设备上，"
            "而不是逐个数组送过去",
        },
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
        return tr(
            f"an array already on the device was brought back to the host "
            f"({received['to_host']} device → host copy), and met the target there",
            f"一个已经在设备上的数组被取回了主机（{received['to_host']} 次设备 → 主机复制），"
            "并在那里遇上了目标",
        )
    if "Unsupported" in error and index and not values:
        return tr(
            "the index (in host memory) stayed there, and met the target on the device",
            "索引（在主机内存中）留在了原处，遇上了设备上的目标",
        )
    if "Unsupported" in error and values and not index:
        return tr(
            "the values (a NumPy array) stayed in host memory, and met the target on the device",
            "值（一个 NumPy 数组）留在了主机内存中，遇上了设备上的目标",
        )
    if ("ufunc" in error or "Implicit conversion" in error) and values:
        return tr(
            "NumPy's add.at met the device's target: the host's scatter-add ran, not the "
            "target's backend's (was the backend found from the values, a NumPy array?)",
            "NumPy 的 add.at 遇上了设备上的目标：运行的是主机的 scatter-add，而不是目标所属后端的"
            "（后端是不是根据值，也就是一个 NumPy 数组，来确定的？）",
        )
    return ""


def _scatter_raised(case: Case, received: Any) -> str:
    error = received["error"]
    tuple_index = case.inputs["places"]["index"].startswith("tuple")
    hint = _scatter_met(case, received) or say(
        next(
            (
                h
                for signs, h in SCATTER_HINTS
                if any(s in error for s in signs) and (signs != ("IndexError",) or tuple_index)
            ),
            "",
        )
    )
    return tr(f"raised {error}", f"抛出了 {error}") + (
        tr(f" — {hint}", f" —— {hint}") if hint else ""
    )


SCATTER_STATE = rules(
    (lambda case, got: got["error"], _scatter_raised),
    (
        lambda case, got: got["kind"] != case.expected["kind"],
        {
            "en": "the target became a {got[kind]} array: scatter_add works in place",
            "zh": "目标变成了一个 {got[kind]} 数组：scatter_add 应原地操作",
        },
    ),
    *copy_rows(
        "scatter_add",
        lambda got: (got.get("to_device", 0), got.get("to_host", 0)),
        lambda case: case.expected["copies"],
        {
            (TO_DEVICE, MORE): lambda case, got: _scatter_sent(case),
            (TO_HOST, MORE): {
                "en": "the scatter-add runs on the device (the backend's scatter_add), nothing "
                "comes back",
                "zh": "scatter-add 在设备上运行（用后端的 scatter_add），什么都不取回",
            },
        },
        at_most=True,  # fewer: host arrays sent together (a stacked index tuple) may be honest
    ),
)


def _scatter_sent(case: Case) -> str:
    """Why a scatter-add sent more to the device than the host arrays it was given."""
    crossing = [say(c) for c in case.expected["crossing"]]
    if not crossing:
        needed = tr("nothing needs to cross here", "这里什么都不需要跨越设备")
    elif len(crossing) == 1:
        needed = tr(f"only {crossing[0]} crosses", f"只有{crossing[0]}需要跨越设备")
    else:
        head = tr(", ", "、").join(crossing[:-1])
        needed = tr(
            f"only {head} and {crossing[-1]} cross, once each",
            f"只有{head}和{crossing[-1]}需要跨越设备，各一次",
        )
    if case.inputs["places"]["values"] == "scalar":
        return tr(
            f"{needed}. The values are a Python number, and it was copied to the device too: "
            "a GPU kernel takes a number as an argument, as it is",
            f"{needed}。值是一个 Python 数，它也被复制到了设备上：GPU 内核可以直接把数当作参数接收",
        )
    return tr(
        f"{needed}; an array already on the device is used as it is, and each host array is "
        "moved once",
        f"{needed}；已经在设备上的数组直接使用，每个主机数组只移动一次",
    )


def _once(case: Case) -> Any:
    """A repeated position counted once, where that differs from the right sum."""
    want = case.expected
    return None if np.array_equal(want["once"], want["values"]) else want["once"]


COUNTED_ONCE = Mistake(
    "values",
    _once,
    {
        "en": "a repeated position counted once (target[index] += values); every repeat adds",
        "zh": "重复的位置只算了一次（target[index] += values）；每次重复都要累加",
    },
)
UNCHANGED = Mistake(
    "values",
    lambda case: np.asarray(case.inputs["target"], dtype=float),
    {
        "en": "the target is unchanged: the sums went into another array, and scatter_add "
        "works in place",
        "zh": "目标没有变化：累加结果写进了另一个数组，而 scatter_add 应原地操作",
    },
)
scatter_verdict = Fields(
    [Field("values", {"en": "target", "zh": "目标"}, rtol=1e-12, atol=0)],
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
            {
                "en": "x.grad is on {got[device]}, expected sim:0 (x's device)",
                "zh": "x.grad 在 {got[device]} 上，期望在 sim:0 上（x 所在的设备）",
            },
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
        {
            "en": "after the steps the parameters are {got[where]} and the momentum buffers "
            "{got[state]}: everything stays on sim",
            "zh": "训练几步之后，参数在 {got[where]}，动量缓冲区在 {got[state]}：一切都应留在 "
            "sim 上",
        },
    ),
    (
        lambda case, got: got["to_host"],
        {
            "en": "the training steps made {got[to_host]} device → host copies: with model and "
            "data on the device, nothing comes back until it is asked for (a hidden transfer)",
            "zh": "训练步骤造成了 {got[to_host]} 次设备 → 主机复制：模型和数据都在设备上时，除非"
            "明确要求，什么都不应取回（这是一次隐藏的传输）",
        },
    ),
)


LAYERS = [
    {"en": "Linear 1's weight", "zh": "第 1 个 Linear 的权重"},
    {"en": "Linear 1's bias", "zh": "第 1 个 Linear 的偏置"},
    {"en": "Linear 2's weight", "zh": "第 2 个 Linear 的权重"},
    {"en": "Linear 2's bias", "zh": "第 2 个 Linear 的偏置"},
]
training_verdict = Fields(
    [
        Field("losses", {"en": "losses", "zh": "损失"}, rtol=1e-9, atol=1e-12),
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
    return tr(
        f"{name}'s state of parameter {i} is {show(state)}: made on the parameter's device (sim)",
        f"{name} 中参数 {i} 的状态是 {show(state)}：应在参数所在的设备（sim）上创建",
    )


optimizer_state_verdict = Fields(
    [],
    keys=("state", "params"),
    then=rules(
        (_state_off_sim, _state_words),
        (
            lambda case, got: any(p != "sim" for p in got["params"]),
            {
                "en": "after step() the parameters are {got[params]}, expected on sim",
                "zh": "step() 之后参数在 {got[params]}，期望在 sim 上",
            },
        ),
    ),
)


def _batch(field: int) -> Field:
    """Item ``field`` of every batch [x's device, y's device, x, y]: x or y's values."""
    return Field(
        f"batches.*.{field}",
        {"en": f"batch {{i}} {'xy'[field - 2]}", "zh": f"第 {{i}} 个批量的 {'xy'[field - 2]}"},
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
            lambda case, got: _batch_words(*_off_device(got["batches"])),
        )
    ),
    then=rules(
        (
            lambda case, got: got["to_host"],
            {
                "en": "the epoch made {got[to_host]} device → host copies, expected none",
                "zh": "这一轮（epoch）造成了 {got[to_host]} 次设备 → 主机复制，期望一次也没有",
            },
        )
    ),
)


def _batch_words(i: int, x_device: str, y_device: str) -> str:
    return tr(
        f"batch {i} is on ({x_device}, {y_device}), expected sim:0 (the dataset's device)",
        f"第 {i} 个批量在 ({x_device}, {y_device}) 上，期望在 sim:0 上（数据集所在的设备）",
    )


def _off_device(batches: list) -> tuple | None:
    """(index, x's device, y's device) of the first batch not on sim:0."""
    devices = ((i, a, b) for i, (a, b, *_) in enumerate(batches))
    return next((d for d in devices if d[1:] != ("sim:0", "sim:0")), None)


def _optimizer_state_case(name: str) -> Case:
    return labelled_case(
        {
            "en": f"{name} over two parameters on sim, gradients on sim, one step",
            "zh": f"{name} 管理 sim 上的两个参数，梯度也在 sim 上，走一步",
        },
        {"name": name},
    )


CHECKS = [
    Check(
        "7.1",
        "cuda.is_available: a silent, cached probe",
        Rows.of(*PROBES),
        programs.probe,
        probe_verdict,
        title={"zh": "cuda.is_available：静默且带缓存的探测"},
    ),
    Check(
        "7.2",
        "array_module, device_of, backend_of",
        Rows.of(
            whose_case([NP, NP_INT, NP_0D, SCALAR]),
            whose_case([SIM, SIM_0D]),
            whose_case([TOY0, TOY2, SIM, NP], register=True),
            whose_case([LIST], label={"en": "a Python list", "zh": "一个 Python list"}),
            whose_case(
                [STRANGER],
                label={"en": "an object of an unknown class", "zh": "一个未知类的对象"},
            ),
        ),
        programs.whose,
        whose_verdict,
    ),
    Check(
        "7.2",
        "Tensor.device",
        Rows.of(
            labelled_case(
                {
                    "en": "Tensor.device of a float64 tensor on cpu and on sim",
                    "zh": "float64 张量分别在 cpu 上和 sim 上时的 Tensor.device",
                },
                {"data": [[1.0, 2.0]], "dtype": "float64"},
                ["cpu", "sim:0", True],
            ),
            labelled_case(
                {
                    "en": "Tensor.device of a 0-d int64 tensor on cpu and on sim",
                    "zh": "0 维 int64 张量分别在 cpu 上和 sim 上时的 Tensor.device",
                },
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
            labelled_case(
                {
                    "en": "zeros, ones, full, arange, eye, tensor, randn with device='sim'",
                    "zh": "zeros、ones、full、arange、eye、tensor、randn，传入 device='sim'",
                },
                {"default": False},
                _factory_expected(False),
            ),
            labelled_case(
                {
                    "en": "the same after set_default_device('sim'), and a Linear's parameters",
                    "zh": "在 set_default_device('sim') 之后做同样的事，再加上一个 Linear 的参数",
                },
                {"default": True},
                _factory_expected(True),
            ),
        ),
        programs.factories,
        factories_verdict,
        WHOSE,
        title={"zh": "带 device= 的工厂函数，set_default_device"},
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
        title={"zh": "ToDevice：Tensor.to 及其梯度"},
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
        title={"zh": "经由另一个已注册设备的复制"},
    ),
    Check(
        "7.4",
        "ToDevice's backward is recorded (a second derivative)",
        Rows.of(double_case([1.0, -2.0, 0.5], "cpu", "sim"), double_case([2.0, 3.0], "sim", "cpu")),
        programs.double_backward,
        double_verdict,
        MOVE,
        title={"zh": "ToDevice 的反向函数被记录下来（二阶导数）"},
    ),
    Check(
        "7.4",
        "to() on the same device",
        Rows.of(
            labelled_case(
                {
                    "en": "x on cpu: x.to('cpu'), x.to(device('cpu')), x.cpu()",
                    "zh": "x 在 cpu 上：x.to('cpu')、x.to(device('cpu'))、x.cpu()",
                },
                {"where": "cpu"},
            ),
            labelled_case(
                {
                    "en": "s on sim: s.to('sim'), s.to(device('sim', 0)), s.to('sim:0')",
                    "zh": "s 在 sim 上：s.to('sim')、s.to(device('sim', 0))、s.to('sim:0')",
                },
                {"where": "sim"},
            ),
        ),
        programs.same_place,
        same_place_verdict,
        MOVE,
        title={"zh": "在同一设备上调用 to()"},
    ),
    Check(
        "7.4",
        "Module.to moves parameters, buffers and gradients in place",
        Rows.of(
            module_to_case(
                {
                    "en": "Linear(3, 2), BatchNorm1d(2) after one backward, model.to('sim') and "
                    "back",
                    "zh": "Linear(3, 2)、BatchNorm1d(2) 做一次反向传播后，model.to('sim') 再移回来",
                },
                [[1.0, 2.0, 3.0], [0.5, -1.0, 2.0], [0.0, 1.0, -2.0]],
                "sim",
            ),
            module_to_case(
                {
                    "en": "the same with model.to(sp.device('sim:0'))",
                    "zh": "同上，改用 model.to(sp.device('sim:0'))",
                },
                [[2.0, 0.0, 1.0], [1.5, -1.0, 0.5]],
                "sim:0",
            ),
        ),
        programs.module_to,
        module_to_verdict,
        MOVE,
        title={"zh": "Module.to 原地移动参数、缓冲区和梯度"},
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
        title={"zh": "优化器状态加载到其参数所在的设备上"},
    ),
    Check("7.5", "check_same_device", Rows.of(*MIXED), programs.mixed, mixed_verdict, WHOSE),
    Check(
        "7.6",
        "scatter_add on a device",
        Rows.of(*SCATTERS),
        programs.scatter,
        scatter_verdict,
        WHOSE,
        title={"zh": "设备上的 scatter_add"},
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
        title={"zh": "sim 上索引操作的梯度"},
    ),
    Check(
        "7.2",
        "a training step on sim: no hidden transfer",
        lambda rng: [training_case(rng, 5, 1), training_case(rng, 8, 3)],
        programs.training,
        training_verdict,
        title={"zh": "sim 上的一个训练步：没有隐藏的传输"},
    ),
    Check(
        "7.2",
        "optimizer state on the parameters' device",
        Rows.of(
            *(_optimizer_state_case(n) for n in ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad"))
        ),
        programs.optimizer_state,
        optimizer_state_verdict,
        title={"zh": "优化器状态位于参数所在的设备上"},
    ),
    Check(
        "7.2",
        "a DataLoader over sim tensors",
        Rows.of(loader_case(5, 2, False), loader_case(7, 3, True)),
        programs.loader,
        loader_verdict,
        title={"zh": "基于 sim 张量的 DataLoader"},
    ),
]

CHECKS += ops.CHECKS

"""Chapter 7's broken set (tasks 7.1–7.6; 7.7 and 7.8 have the held-out set and
tests/test_ops_ch07.py): plausible student bugs in the probe, whose array it is, the move, the
copy's gradient, two devices in one operation and the scatter-add, and unusual but correct
rewrites (judged by tests/test_variants.py)."""

from __future__ import annotations

from functools import partial

from tests.trees import edits
from tests.variants import VariantSet

edits = partial(edits, "ch07_device")
CUDA, DISPATCH, TRANSFER, SAME = "cuda.py", "dispatch.py", "transfer.py", "same_device.py"

PROBE_PRINTS = """
try:
    cupy = importlib.import_module("cupy")
    count = int(cupy.cuda.runtime.getDeviceCount())
    if count < 1:
        return False, 0
    with cupy.cuda.Device(0):
        works = int((cupy.arange(3) * 2).sum()) == 6
    return (True, count) if works else (False, 0)
except Exception as error:
    print(f"no usable GPU ({type(error).__name__}): running on the CPU")
    return False, 0
"""

SCATTER_ADD_AT = """
np.add.at(target, index, values)
"""


SCATTER_VALUES_LEFT_ON_HOST = """
backend = backend_of(target)
backend.scatter_add(target, _on(backend.namespace(), index), values)
"""

SCATTER_THROUGH_THE_HOST = """
backend = backend_of(target)
on_host = backend.to_host(target)
index = tuple(backend.to_host(i) if backend.owns(i) else i for i in index) if isinstance(
    index, tuple
) else (backend.to_host(index) if backend.owns(index) else index)
values = backend.to_host(values) if backend.owns(values) else values
np.add.at(on_host, index, values)
target[...] = backend.namespace().asarray(on_host)
"""

VARIANTS = [
    # -- 7.1 --------------------------------------------------------------------------------
    (
        "the probe catches ImportError only",
        CUDA,
        (
            "except Exception:  # ImportError, CUDARuntimeError, CompileException, …",
            "except ImportError:",
        ),
        "7.1",
    ),
    ("the probe prints why there is no GPU", CUDA, ("region", PROBE_PRINTS), "7.1"),
    (
        "the probe lets CuPy's output through",
        CUDA,
        edits(
            CUDA,
            (
                (
                    "quiet = io.StringIO()\n"
                    "    with (\n"
                    "        warnings.catch_warnings(),\n"
                    "        contextlib.redirect_stdout(quiet),\n"
                    "        contextlib.redirect_stderr(quiet),\n"
                    "    ):"
                ),
                "with warnings.catch_warnings():",
            ),
        ),
        "7.1",
    ),
    (
        "the probe lets CuPy's warnings through",
        CUDA,
        ('warnings.simplefilter("ignore")', 'warnings.simplefilter("default")'),
        "7.1",
    ),
    (
        "the probe runs at import",
        CUDA,
        (
            "def current_device() -> int:",
            '_answer["probe"] = _probe()  # once, at import\n\n\ndef current_device() -> int:',
        ),
        "7.1",
    ),
    (
        "is_available probes at every call",
        CUDA,
        (
            '    if "probe" not in _answer:\n        _answer["probe"] = _probe()\n',
            '    _answer["probe"] = _probe()\n',
        ),
        "7.1",
    ),
    (
        "is_available caches with setdefault (which probes every time)",
        CUDA,
        (
            '    if "probe" not in _answer:\n'
            '        _answer["probe"] = _probe()\n'
            '    return _answer["probe"][0]',
            '    return _answer.setdefault("probe", _probe())[0]',
        ),
        "7.1",
    ),
    (
        "the probe counts devices but runs no kernel",
        CUDA,
        (
            "            with cupy.cuda.Device(0):\n"
            "                works = int((cupy.arange(3) * 2).sum()) == 6\n",
            "            works = True\n",
        ),
        "7.1",
    ),
    (
        "the probe takes 0 devices for a GPU",
        CUDA,
        ("            if count < 1:\n                return False, 0\n", ""),
        "7.1",
    ),
    # -- 7.2 --------------------------------------------------------------------------------
    (
        "array_module always NumPy",
        DISPATCH,
        ("    return backend_of(array).namespace()\n", "    return np\n"),
        "7.2",
    ),
    (
        "device_of without the index",
        DISPATCH,
        (
            "    return device(backend.type, backend.index_of(array))\n",
            "    return device(backend.type)\n",
        ),
        "7.2",
    ),
    (
        "backend_of knows the built-in backends only",
        DISPATCH,
        (
            "    for backend in BACKENDS.values():\n",
            '    for backend in (BACKENDS["cpu"], BACKENDS["sim"], BACKENDS["cuda"]):\n',
        ),
        "7.2",
    ),
    (
        "backend_of's TypeError does not name the type",
        DISPATCH,
        (
            "f\"no device holds arrays of type {type(array).__name__}: a tensor's data is a "
            'NumPy "',
            '"no device holds this array: a tensor\'s data is a NumPy "',
        ),
        "7.2",
    ),
    # -- 7.3 --------------------------------------------------------------------------------
    (
        "move_array copies an array that is already there",
        TRANSFER,
        ("    if source == target:\n        return array\n", ""),
        "7.3",
    ),
    (
        "move_array zeroes the host array it copied, to free it",
        TRANSFER,
        (
            '    return backend.to_device(np.asarray(array, order="C"), target.index)'
            "  # keeps 0-d\n",
            '    moved = backend.to_device(np.asarray(array, order="C"), target.index)\n'
            "    array[...] = 0\n"
            "    return moved\n",
        ),
        "7.3",
    ),
    (
        "move_array reads every copy back to check it",
        TRANSFER,
        (
            '    return backend.to_device(np.asarray(array, order="C"), target.index)'
            "  # keeps 0-d\n",
            '    moved = backend.to_device(np.asarray(array, order="C"), target.index)\n'
            "    assert np.array_equal(backend.to_host(moved), array)\n"
            "    return moved\n",
        ),
        "7.3",
    ),
    (
        "move_array returns a device array for the cpu",
        TRANSFER,
        (
            '    if source.type != "cpu":\n'
            "        array = backend_for(source.type).to_host(array)\n"
            '    if target.type == "cpu":\n'
            "        return array\n",
            '    if target.type == "cpu":\n'
            "        return array\n"
            '    if source.type != "cpu":\n'
            "        array = backend_for(source.type).to_host(array)\n",
        ),
        "7.3",
    ),
    (
        "move_array lets CuPy fail when there is no GPU",
        TRANSFER,
        edits(
            TRANSFER,
            ("    if not backend.is_available():\n", "    if False:\n"),
            ("    if target.index >= backend.device_count():\n", "    if False:\n"),
        ),
        "7.3",
    ),
    (
        "move_array ignores the device index",
        TRANSFER,
        ("    if target.index >= backend.device_count():\n", "    if False:\n"),
        "7.3",
    ),
    # -- 7.4 --------------------------------------------------------------------------------
    (
        "ToDevice's backward leaves the gradient where it is",
        TRANSFER,
        (
            "        return ToDevice.apply(grad_output, ctx.source)\n",
            "        return grad_output\n",
        ),
        "7.4",
    ),
    (
        "ToDevice's backward moves the array (not recorded)",
        TRANSFER,
        (
            "        return ToDevice.apply(grad_output, ctx.source)\n",
            "        return Tensor._from_array(move_array(grad_output.data, ctx.source))\n",
        ),
        "7.4",
    ),
    (
        "ToDevice's forward reads both arrays back to compare them",
        TRANSFER,
        (
            "        return move_array(a.data, target)\n",
            "        out = move_array(a.data, target)\n"
            '        assert np.array_equal(move_array(out, "cpu"), move_array(a.data, "cpu"))\n'
            "        return out\n",
        ),
        "7.4",
    ),
    # -- 7.5 --------------------------------------------------------------------------------
    (
        "check_same_device returns silently",
        SAME,
        ("region", "return None"),
        "7.5",
    ),
    (
        "check_same_device's message without the operation",
        SAME,
        ('f"devices, {first} and {t.device}! (in {op})"', 'f"devices, {first} and {t.device}!"'),
        "7.5",
    ),
    (
        "check_same_device compares the first two tensors only",
        SAME,
        ("    for t in tensors[1:]:\n", "    for t in tensors[1:2]:\n"),
        "7.5",
    ),
    (
        "check_same_device names the device types only",
        SAME,
        (
            'f"devices, {first} and {t.device}! (in {op})"',
            'f"devices, {first.type} and {t.device.type}! (in {op})"',
        ),
        "7.5",
    ),
    # -- 7.6 --------------------------------------------------------------------------------
    (
        "scatter_add with NumPy's add.at on a device array",
        DISPATCH,
        ("region", SCATTER_ADD_AT),
        "7.6",
    ),
    (
        "scatter_add as target[index] += values",
        DISPATCH,
        edits(
            DISPATCH,
            (
                (
                    "if backend.owns(values) or np.isscalar(values):\n"
                    "        backend.scatter_add(target, index, values)\n"
                    "    else:\n"
                    "        backend.scatter_add(target, index, xp.asarray(values))"
                ),
                (
                    "if not (backend.owns(values) or np.isscalar(values)):\n"
                    "        values = xp.asarray(values)\n"
                    "    target[index] += values"
                ),
            ),
        ),
        "7.6",
    ),
    (
        "scatter_add leaves NumPy values on the host",
        DISPATCH,
        ("region", SCATTER_VALUES_LEFT_ON_HOST),
        "7.6",
    ),
    ("scatter_add through the host", DISPATCH, ("region", SCATTER_THROUGH_THE_HOST), "7.6"),
]

# -- unusual but correct rewrites -----------------------------------------------------------

PROBE_WITH_AN_EXIT_STACK = """
with contextlib.ExitStack() as stack:
    stack.enter_context(warnings.catch_warnings())
    warnings.simplefilter("ignore")
    sink = io.StringIO()
    stack.enter_context(contextlib.redirect_stdout(sink))
    stack.enter_context(contextlib.redirect_stderr(sink))
    try:
        import cupy

        count = cupy.cuda.runtime.getDeviceCount()
        if not count:
            return False, 0
        ones = cupy.ones(4)
        if float(cupy.asnumpy(ones.sum())) != 4.0:
            return False, 0
        return True, int(count)
    except Exception:
        return False, 0
"""

PROBE_THROUGH_CUPYS_OWN_CHECK = """
out = io.StringIO()
with warnings.catch_warnings(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
    warnings.simplefilter("ignore")
    try:
        cupy = importlib.import_module("cupy")
        if not cupy.is_available():
            return False, 0
        x = cupy.arange(4.0)
        cupy.cuda.Stream.null.synchronize()
        if float((x * x).sum().get()) != 14.0:
            return False, 0
        return True, cupy.cuda.runtime.getDeviceCount()
    except Exception:
        return False, 0
"""

BACKEND_OF_WITH_NEXT = """
found = next((b for b in BACKENDS.values() if b.owns(array)), None)
if found is None:
    raise TypeError(f"{type(array).__name__} is not an array of a known device")
return found
"""

MOVE_BY_CASES = """
target = resolve(target)
source = device_of(array)
if source == target:
    return array
on_host = array if source.type == "cpu" else backend_for(source.type).to_host(array)
if target.type == "cpu":
    return on_host
backend = backend_for(target.type)
if not backend.is_available():
    raise RuntimeError(f"{target} is not available on this machine: use cpu or sim")
count = backend.device_count()
if not 0 <= target.index < count:
    raise RuntimeError(f"there is no device {target} (only {count})")
return backend.to_device(np.asarray(on_host, order="C"), target.index)
"""

SAME_DEVICE_BY_LIST = """
devices = [t.device for t in tensors]
other = next((d for d in devices if d != devices[0]), None)
if other is not None:
    raise RuntimeError(
        "Expected all tensors to be on the same device, but found at least two devices, "
        f"{devices[0]} and {other}! (in {op})"
    )
"""

SCATTER_ALWAYS_ASARRAY = """
backend = backend_of(target)
xp = backend.namespace()
if isinstance(index, tuple):
    index = tuple(xp.asarray(i) if isinstance(i, (np.ndarray, list)) else i for i in index)
elif isinstance(index, (np.ndarray, list)):
    index = xp.asarray(index)
backend.scatter_add(target, index, values if np.isscalar(values) else xp.asarray(values))
"""

CORRECT = [
    (
        "the probe with an ExitStack and `import cupy`",
        CUDA,
        ("region", PROBE_WITH_AN_EXIT_STACK),
        "7.1",
    ),
    (
        "the probe asks cupy.is_available(), then runs a kernel",
        CUDA,
        ("region", PROBE_THROUGH_CUPYS_OWN_CHECK),
        "7.1",
    ),
    ("backend_of with next()", DISPATCH, ("region", BACKEND_OF_WITH_NEXT), "7.2"),
    ("move_array case by case", TRANSFER, ("region", MOVE_BY_CASES), "7.3"),
    ("check_same_device over a list of devices", SAME, ("region", SAME_DEVICE_BY_LIST), "7.5"),
    (
        "scatter_add with xp.asarray for every array",
        DISPATCH,
        ("region", SCATTER_ALWAYS_ASARRAY),
        "7.6",
    ),
]


SET = VariantSet(
    7,
    "broken",
    VARIANTS,
    CORRECT,
    says=[
        ("the probe catches ImportError only", "not only ImportError"),
        ("the probe prints why there is no GPU", "it must be silent"),
        ("the probe lets CuPy's output through", "it must be silent"),
        ("the probe lets CuPy's warnings through", "a warning escaped the probe"),
        ("the probe runs at import", "never at import"),
        ("is_available probes at every call", "probe once"),
        ("is_available caches with setdefault (which probes every time)", "probe once"),
        ("the probe counts devices but runs no kernel", "without a kernel run on the device"),
        ("array_module always NumPy", "expected simnumpy"),
        ("device_of without the index", "the index is missing"),
        ("backend_of's TypeError does not name the type", "does not name the type"),
        ("move_array copies an array that is already there", "not a copy"),
        (
            "move_array zeroes the host array it copied, to free it",
            "move_array changed the array it was given",
        ),
        (
            "move_array reads every copy back to check it",
            "move_array made 1 device → host copy, expected 0: one copy, in one direction",
        ),
        ("move_array lets CuPy fail when there is no GPU", "tried to import CuPy"),
        ("ToDevice's backward leaves the gradient where it is", "moves the gradient back"),
        (
            "ToDevice's backward moves the array (not recorded)",
            "the move back in ToDevice's backward was not recorded",
        ),
        (
            "ToDevice's forward reads both arrays back to compare them",
            "y = x.to('sim') made 1 device → host copy, expected 0",
        ),
        ("check_same_device returns silently", "expected RuntimeError"),
        ("check_same_device's message without the operation", "does not name the operation"),
        ("check_same_device names the device types only", "does not name both devices"),
        ("scatter_add with NumPy's add.at on a device array", "NumPy's add.at cannot work"),
        ("scatter_add as target[index] += values", "counted once"),
        ("scatter_add through the host", "device → host copies"),
        ("the probe takes 0 devices for a GPU", "0 devices were taken for a GPU"),
        (
            "backend_of knows the built-in backends only",
            "the registered toy backend owns it: not every backend in BACKENDS was asked",
        ),
        ("move_array returns a device array for the cpu", "the array never left the device"),
        (
            "move_array ignores the device index",
            "an index past the sim backend's device count was accepted",
        ),
        (
            "check_same_device compares the first two tensors only",
            "tensor 1 is on cpu and tensor 3 of 3 on sim:0, and not every tensor was compared",
        ),
        (
            "scatter_add leaves NumPy values on the host",
            "the values (a NumPy array) stayed in host memory",
        ),
    ],
    blocks=[
        ("move_array reads every copy back to check it", "7.4"),
        ("device_of without the index", "7.3"),
        ("device_of without the index", "7.5"),
    ],
    least=(15, 4),
    tasks=[f"7.{k}" for k in range(1, 7)],
)

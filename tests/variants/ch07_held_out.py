"""Chapter 7's held-out set: plausible student code written without looking at the checks'
cases (tests/variants/ch07_broken.py and tests/test_ops_ch07.py hold the first sets), and
unusual but correct rewrites, judged on the public and the hidden checks together (by
tests/test_variants.py). Some variants passed the checks before: each is noted with the
check that now catches it (``# was a hole:``), and the hidden checks alone catch it too
(``HOLES``)."""

from __future__ import annotations

from functools import partial

from tests import trees
from tests.trees import edits
from tests.variants import VariantSet

PACKAGE = "ch07_device"
edits = partial(edits, PACKAGE)
CUDA, DISPATCH, TRANSFER, SAME = "cuda.py", "dispatch.py", "transfer.py", "same_device.py"
GATHER, CAT = "ops/gather.py", "ops/cat.py"


rewrite = partial(trees.rewrite, "ch07_device")
# the probe's quiet block as the reference opens it: what several probe variants rewrite
QUIET_WITH = (
    "quiet = io.StringIO()\n"
    "    with (\n"
    "        warnings.catch_warnings(),\n"
    "        contextlib.redirect_stdout(quiet),\n"
    "        contextlib.redirect_stderr(quiet),\n"
    "    ):"
)


# -- 7.1 ---------------------------------------------------------------------------------------

QUIET = """
quiet = io.StringIO()
with (
    warnings.catch_warnings(),
    contextlib.redirect_stdout(quiet),
    contextlib.redirect_stderr(quiet),
):
    warnings.simplefilter("ignore")
    try:
        cupy = importlib.import_module("cupy")
{body}
    except Exception:
        return False, 0
"""


def probe(body: str) -> str:
    """A probe whose try block is ``body`` (indented by 8), silent like the reference's."""
    return QUIET.replace("{body}", "\n".join(f"        {line}" for line in body.split("\n")))


PROBE_TRUSTS_CUPY = probe(
    """if not cupy.is_available():
    return False, 0
return True, int(cupy.cuda.runtime.getDeviceCount())"""
)

PROBE_NO_READ_BACK = probe(
    """count = int(cupy.cuda.runtime.getDeviceCount())
if count < 1:
    return False, 0
with cupy.cuda.Device(0):
    cupy.arange(3) * 2  # the kernel ran
return True, count"""
)

PROBE_LOOKS_AT_THE_SHAPE = probe(
    """count = int(cupy.cuda.runtime.getDeviceCount())
if count < 1:
    return False, 0
with cupy.cuda.Device(0):
    works = (cupy.arange(3) * 2).shape == (3,)
return (True, count) if works else (False, 0)"""
)

PROBE_ONE_GPU = probe(
    """count = int(cupy.cuda.runtime.getDeviceCount())
if count < 1:
    return False, 0
with cupy.cuda.Device(0):
    works = int((cupy.arange(3) * 2).sum()) == 6
return (True, 1) if works else (False, 0)"""
)


# correct
PROBE_RESTORES_BY_HAND = """
import sys

saved = sys.stdout, sys.stderr
sys.stdout = sys.stderr = io.StringIO()
try:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            import cupy

            n = cupy.cuda.runtime.getDeviceCount()
            if n == 0:
                return False, 0
            total = cupy.asnumpy((cupy.ones(2) + 1).sum())
            return (True, int(n)) if float(total) == 4.0 else (False, 0)
        except Exception:
            return False, 0
finally:
    sys.stdout, sys.stderr = saved
"""

PROBE_SYNCHRONISES = probe(
    """count = cupy.cuda.runtime.getDeviceCount()
if count <= 0:
    return False, 0
device = cupy.cuda.Device(0)
with device:
    y = cupy.arange(5) + 1
    device.synchronize()
    assert y.get().tolist() == [1, 2, 3, 4, 5]
return True, int(count)"""
)

PROBE_RUNTIME_SYNC = probe(
    """if cupy.cuda.runtime.getDeviceCount() == 0:
    return False, 0
x = cupy.full(3, 2.0)
cupy.cuda.runtime.deviceSynchronize()
if (x * x).sum().item() != 12.0:
    return False, 0
return True, cupy.cuda.runtime.getDeviceCount()"""
)

AVAILABLE_BY_KEYERROR = """
try:
    usable, _ = _answer["probe"]
except KeyError:
    _answer["probe"] = _probe()
    usable, _ = _answer["probe"]
return usable
"""

AVAILABLE_IF_EMPTY = """
if not _answer:
    _answer.update(probe=_probe())
return bool(_answer["probe"][0])
"""

# -- 7.2 ---------------------------------------------------------------------------------------

WHOSE = DISPATCH

BACKEND_FIRST = """
return next(iter(BACKENDS.values()))
"""


BACKEND_BY_NAME = (
    """
for name, backend in BACKENDS.items():
    if backend.owns(array):
        return name
raise TypeError(f"no device holds arrays of type {type(array).__name__}")
""",
    "return BACKENDS[backend_of(array)].namespace()",
    """
name = backend_of(array)
return device(name, BACKENDS[name].index_of(array))
""",
)

# correct
BACKEND_BY_COMPREHENSION = """
owners = [b for b in BACKENDS.values() if b.owns(array)]
if not owners:
    raise TypeError(f"arrays of type {type(array).__name__!r} belong to no registered device")
return owners[0]
"""


# -- 7.3 ---------------------------------------------------------------------------------------

MOVE_STRAIGHT_ACROSS = """
target, source = resolve(target), device_of(array)
if source == target:
    return array
if target.type == "cpu":
    return backend_for(source.type).to_host(array)
backend = backend_for(target.type)
if not backend.is_available():
    raise RuntimeError(f"device '{target}' is not available here: use 'cpu' or 'sim'")
if target.index >= backend.device_count():
    raise RuntimeError(f"device '{target}' does not exist here")
return backend.to_device(array, target.index)
"""

MOVE_ALWAYS_SIM = """
from .simulated import simnumpy

target, source = resolve(target), device_of(array)
if source == target:
    return array
if source.type != "cpu":
    array = backend_for(source.type).to_host(array)
if target.type == "cpu":
    return array
backend = backend_for(target.type)
if not backend.is_available():
    raise RuntimeError(f"device '{target}' is not available here: use 'cpu' or 'sim'")
if target.index >= backend.device_count():
    raise RuntimeError(f"device '{target}' does not exist here")
return simnumpy.asarray(array)
"""

MOVE_CUDA_ONLY_CHECK = """
from . import cuda

target, source = resolve(target), device_of(array)
if source == target:
    return array
if source.type != "cpu":
    array = backend_for(source.type).to_host(array)
if target.type == "cpu":
    return array
backend = backend_for(target.type)
if target.type == "cuda" and not cuda.is_available():
    raise RuntimeError(f"device '{target}' is not available here: use 'cpu' or 'sim'")
if target.index >= backend.device_count():
    raise RuntimeError(f"device '{target}' does not exist here")
return backend.to_device(np.asarray(array, order="C"), target.index)
"""

MOVE_NO_RESOLVE = """
target = target if isinstance(target, device) else device(target)
source = device_of(array)
if source == target:
    return array
if source.type != "cpu":
    array = backend_for(source.type).to_host(array)
if target.type == "cpu":
    return array
backend = backend_for(target.type)
if not backend.is_available():
    raise RuntimeError(f"device '{target}' is not available here: use 'cpu' or 'sim'")
if (target.index or 0) >= backend.device_count():
    raise RuntimeError(f"device '{target}' does not exist here")
return backend.to_device(np.asarray(array, order="C"), target.index or 0)
"""

UNAVAILABLE = (
    "        raise RuntimeError(\n"
    "            f\"device '{target}' is not available here (no usable GPU: cuda.is_available() "
    'is "\n'
    "            \"False); use 'cpu', or 'sim' for the simulated device\"\n"
    "        )\n"
)
MISSING = (
    "        raise RuntimeError(\n"
    "            f\"device '{target}' does not exist: there are {backend.device_count()} \"\n"
    '            f"{target.type} device(s), numbered from 0"\n'
    "        )\n"
)
TO_DEVICE = (
    '    return backend.to_device(np.asarray(array, order="C"), target.index)  # keeps 0-d\n'
)

# correct
MOVE_THROUGH_THE_HOST_ALWAYS = """
target = resolve(target)
here = device_of(array)
if here == target:
    return array
host = backend_for(here.type).to_host(array)  # the host's to_host is the array itself
if target.type == "cpu":
    return host
backend = backend_for(target.type)
if not backend.is_available():
    raise RuntimeError(f"{target} cannot be used on this machine: try 'cpu' or 'sim' instead")
if not target.index < backend.device_count():
    raise RuntimeError(f"{target} is not one of this machine's {target.type} devices")
return backend.to_device(host.copy(order="C"), target.index)
"""

MOVE_CHECKS_FIRST = """
target = resolve(target)
if target.type != "cpu":
    backend = backend_for(target.type)
    if not backend.is_available():
        raise RuntimeError(f"'{target}' is unavailable (no usable GPU here): use 'cpu' or 'sim'")
    if target.index not in range(backend.device_count()):
        raise RuntimeError(f"'{target}' is out of range for this machine")
source = device_of(array)
if source == target:
    return array
if source.type != "cpu":
    array = backend_for(source.type).to_host(array)
if target.type == "cpu":
    return array
return backend.to_device(np.asarray(array, order="C"), target.index)
"""

# -- 7.4 ---------------------------------------------------------------------------------------

FORWARD = "        ctx.source = a.device\n        return move_array(a.data, target)\n"
BACKWARD = "        return ToDevice.apply(grad_output, ctx.source)\n"

# -- 7.5 ---------------------------------------------------------------------------------------

SENTENCE = (
    '                "Expected all tensors to be on the same device, but found at least two "\n'
    '                f"devices, {first} and {t.device}! (in {op})"\n'
)


def same(message: str) -> tuple[str, str]:
    return (SENTENCE, message)


SAME_SORTED = """
found = sorted({str(t.device) for t in tensors})
if len(found) > 1:
    raise RuntimeError(
        "Expected all tensors to be on the same device, but found at least two devices, "
        f"{found[0]} and {found[1]}! (in {op})"
    )
"""

SAME_LAST_TWO = """
if len(tensors) > 1 and tensors[-1].device != tensors[-2].device:
    raise RuntimeError(
        "Expected all tensors to be on the same device, but found at least two devices, "
        f"{tensors[-2].device} and {tensors[-1].device}! (in {op})"
    )
"""


# correct
SAME_BY_STRINGS = """
names = [str(t.device) for t in tensors]
odd = [n for n in names if n != names[0]]
if odd:
    message = "Expected all tensors to be on the same device, but found at least two devices"
    raise RuntimeError(f"{message}, {names[0]} and {odd[0]}! (in {op})")
"""

# -- 7.6 ---------------------------------------------------------------------------------------

SCATTER_INDEX_LEFT = """
backend = backend_of(target)
xp = backend.namespace()
if not (backend.owns(values) or np.isscalar(values)):
    values = xp.asarray(values)
backend.scatter_add(target, index, values)
"""

SCATTER_VALUES_TO_HOST = """
backend = backend_of(target)
index = _on(backend.namespace(), index)
if backend.owns(values) and backend.type != "cpu":
    values = backend.to_host(values)
backend.scatter_add(target, index, values)
"""

SCATTER_TUPLE_AS_ONE = """
backend = backend_of(target)
xp = backend.namespace()
if not isinstance(index, int):
    index = xp.asarray(index)
if not (backend.owns(values) or np.isscalar(values)):
    values = xp.asarray(values)
backend.scatter_add(target, index, values)
"""

SCATTER_BY_VALUES = """
backend = backend_of(values)
xp = backend.namespace()
backend.scatter_add(target, _on(xp, index), values)
"""


SCATTER_ADD_AT_ON_HOST_ONLY = """
if isinstance(target, np.ndarray):
    np.add.at(target, index, values)
    return
xp = backend_of(target).namespace()
index = _on(xp, index)
target[index] += values if np.isscalar(values) or not isinstance(values, np.ndarray) else (
    xp.asarray(values)
)
"""

# correct
SCATTER_BY_MOVE_ARRAY = """
from .transfer import move_array

where = device_of(target)
backend = backend_of(target)


def there(a):
    if isinstance(a, tuple):
        return tuple(there(i) for i in a)
    if isinstance(a, list):
        a = np.asarray(a)
    return move_array(a, where) if isinstance(a, np.ndarray) else a


backend.scatter_add(target, there(index), values if np.isscalar(values) else there(values))
"""

SCATTER_HOST_FIRST = """
backend = backend_of(target)
if backend.type == "cpu":
    np.add.at(target, index, values)
    return
xp = backend.namespace()
index = _on(xp, index)
values = values if np.isscalar(values) or backend.owns(values) else xp.asarray(values)
backend.scatter_add(target, index, values)
"""

# -- 7.7 ---------------------------------------------------------------------------------------

# correct
POSITIONS_BY_INDICES = """
grid = list(array_module(index).indices(index.shape, sparse=True))
grid[dim] = index
return tuple(grid)
"""

GATHER_FANCY = "        return a.data[positions(index.data, dim)]\n"
GATHER_FORWARD = (
    "        return array_module(a.data).take_along_axis(a.data, index.data, axis=dim)\n"
)
GG_ZEROS = "        out = array_module(g.data).zeros(shape, dtype=g.dtype)\n"
GG_SCATTER = "        scatter_add(out, positions(index, dim), g.data)\n"
GATHER_BACK = "        return GatherGradient.apply(grad_output, ctx.shape, ctx.dim, ctx.index)"

# -- 7.8 ---------------------------------------------------------------------------------------

CAT_FORWARD = (
    "        xp = array_module(tensors[0].data)\n"
    "        return xp.concatenate([t.data for t in tensors], axis=dim)\n"
)
CAT_SPLIT_ON_DATA = """
xp = array_module(grad_output.data)
cuts = list(itertools.accumulate(ctx.sizes))[:-1]
return tuple(Tensor._from_array(p) for p in xp.split(grad_output.data, cuts, axis=ctx.dim))
"""

CAT_SPLIT_NUMPY = """
import itertools

import numpy as np

cuts = list(itertools.accumulate(ctx.sizes))[:-1]
return tuple(Tensor._from_array(p) for p in np.split(grad_output.data, cuts, axis=ctx.dim))
"""

STACK_BY_RESHAPE_FRONT = """
return cat([t.reshape(1, *t.shape) for t in tensors], dim)
"""


# correct
CAT_PIECES_BY_LIST_INDEX = """
out, offset = [], 0
for size in ctx.sizes:
    where = [slice(None)] * grad_output.ndim
    where[ctx.dim] = slice(offset, offset + size)
    out.append(grad_output[tuple(where)])
    offset += size
return tuple(out)
"""


VARIANTS = [
    # -- 7.1 ------------------------------------------------------------------------------------
    (
        "the probe catches ImportError and AttributeError",
        CUDA,
        (
            "except Exception:  # ImportError, CUDARuntimeError, CompileException, …",
            "except (ImportError, AttributeError):",
        ),
        "7.1",
    ),
    (
        "the probe trusts cupy.is_available()",
        CUDA,
        edits(
            CUDA,
            (
                "count = int(cupy.cuda.runtime.getDeviceCount())\n            if count < 1:",
                "if not cupy.is_available():",
            ),
            (
                "with cupy.cuda.Device(0):\n"
                "                works = int((cupy.arange(3) * 2).sum()) == 6\n"
                "            return (True, count) if works else (False, 0)\n"
                "        except Exception:  # ImportError, "
                "CUDARuntimeError, CompileException, …",
                "return True, int(cupy.cuda.runtime.getDeviceCount())\n        except Exception:",
            ),
        ),
        "7.1",
    ),
    # was a hole: the probe's fakes have a state whose kernel fails at the read-back
    (
        "the probe never reads the kernel's result back",
        CUDA,
        edits(
            CUDA,
            (
                "works = int((cupy.arange(3) * 2).sum()) == 6\n"
                "            return (True, count) if works else (False, 0)\n"
                "        except Exception:  # ImportError, "
                "CUDARuntimeError, CompileException, …",
                "cupy.arange(3) * 2  # the kernel ran\n"
                "            return True, count\n"
                "        except Exception:",
            ),
        ),
        "7.1",
    ),
    # was a hole: the probe's fakes have a state whose kernel fails at the read-back
    (
        "the probe looks at the kernel's shape only",
        CUDA,
        edits(
            CUDA,
            (
                "works = int((cupy.arange(3) * 2).sum()) == 6",
                "works = (cupy.arange(3) * 2).shape == (3,)",
            ),
            (
                "except Exception:  # ImportError, CUDARuntimeError, CompileException, …",
                "except Exception:",
            ),
        ),
        "7.1",
    ),
    (
        "the probe reports one GPU whatever the count",
        CUDA,
        edits(
            CUDA,
            (
                "return (True, count) if works else (False, 0)\n"
                "        except Exception:  # ImportError, "
                "CUDARuntimeError, CompileException, …",
                "return (True, 1) if works else (False, 0)\n        except Exception:",
            ),
        ),
        "7.1",
    ),
    (
        "the probe imports CuPy outside its try",
        CUDA,
        edits(
            CUDA,
            (
                "### BEGIN SOLUTION 7.1\n    quiet = io.StringIO()",
                (
                    "### BEGIN SOLUTION 7.1\n"
                    '    cupy = importlib.import_module("cupy")\n'
                    "    quiet = io.StringIO()"
                ),
            ),
            ('            cupy = importlib.import_module("cupy")\n', ""),
        ),
        "7.1",
    ),
    # was a hole: the probe's check warns and prints after the answers
    (
        "the probe silences warnings for the whole program",
        CUDA,
        edits(
            CUDA,
            (
                (
                    "with (\n"
                    "        warnings.catch_warnings(),\n"
                    "        contextlib.redirect_stdout(quiet),\n"
                    "        contextlib.redirect_stderr(quiet),\n"
                    "    ):\n"
                    '        warnings.simplefilter("ignore")'
                ),
                (
                    'warnings.filterwarnings("ignore")\n'
                    "    with contextlib.redirect_stdout(quiet),"
                    " contextlib.redirect_stderr(quiet):"
                ),
            ),
            ("  # ImportError, CUDARuntimeError, CompileException, …", ""),
        ),
        "7.1",
    ),
    (
        "the probe redirects stderr only",
        CUDA,
        edits(
            CUDA,
            (
                QUIET_WITH,
                "with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):",
            ),
            ("  # ImportError, CUDARuntimeError, CompileException, …", ""),
        ),
        "7.1",
    ),
    # was a hole: the probe's check now prints and warns after the answers
    (
        "the probe leaves stdout redirected",
        CUDA,
        edits(
            CUDA,
            (
                QUIET_WITH,
                (
                    "import sys\n"
                    "\n"
                    "    sys.stdout = sys.stderr = io.StringIO()\n"
                    "    with warnings.catch_warnings():"
                ),
            ),
        ),
        "7.1",
    ),
    (
        "is_available caches only a True answer",
        CUDA,
        edits(
            CUDA,
            (
                '### BEGIN SOLUTION 7.1\n    if "probe" not in _answer:',
                '### BEGIN SOLUTION 7.1\n    if not _answer.get("probe", (False, 0))[0]:',
            ),
        ),
        "7.1",
    ),
    (
        "is_available warns when there is no GPU",
        CUDA,
        edits(
            CUDA,
            (
                'return _answer["probe"][0]',
                '    if not _answer["probe"][0]:\n'
                '            warnings.warn("CUDA is not '
                'available: Sparrow runs on the CPU")\n'
                '    return _answer["probe"][0]',
            ),
        ),
        "7.1",
    ),
    (
        "is_available logs when there is no GPU",
        CUDA,
        edits(
            CUDA,
            (
                'return _answer["probe"][0]',
                '    if not _answer["probe"][0]:\n'
                "            import logging\n"
                "\n"
                '            logging.getLogger("sparrow").warning("no '
                'usable GPU: running on the CPU")\n'
                '    return _answer["probe"][0]',
            ),
        ),
        "7.1",
    ),
    (
        "is_available returns the (usable, count) pair",
        CUDA,
        edits(
            CUDA,
            ('return _answer["probe"][0]', 'return _answer["probe"]'),
        ),
        "7.1",
    ),
    (
        "the module asks is_available() at its end",
        CUDA,
        (
            "def current_device() -> int:",
            "HAS_GPU = is_available()\n\n\ndef current_device() -> int:",
        ),
        "7.1",
    ),
    # -- 7.2 ------------------------------------------------------------------------------------
    ("backend_of returns the first backend", WHOSE, ("region", BACKEND_FIRST), "7.2"),
    (
        "backend_of falls back to the CPU",
        WHOSE,
        edits(
            WHOSE,
            (
                (
                    "raise TypeError(\n"
                    '        f"no device holds arrays of type {type(array).__name__}: a'
                    " tensor's data is a NumPy \"\n"
                    '        "array or the array of a registered device (cuda, sim)"\n'
                    "    )"
                ),
                'return BACKENDS["cpu"]',
            ),
        ),
        "7.2",
    ),
    (
        "backend_of raises ValueError",
        WHOSE,
        edits(
            WHOSE,
            (
                (
                    "raise TypeError(\n"
                    '        f"no device holds arrays of type {type(array).__name__}: a'
                    " tensor's data is a NumPy \"\n"
                    '        "array or the array of a registered device (cuda, sim)"\n'
                    "    )"
                ),
                'raise ValueError(f"no device holds arrays of type {type(array).__name__}")',
            ),
        ),
        "7.2",
    ),
    (
        "backend_of gives up after the first backend",
        WHOSE,
        edits(
            WHOSE,
            (
                (
                    "raise TypeError(\n"
                    '        f"no device holds arrays of type {type(array).__name__}: a'
                    " tensor's data is a NumPy \"\n"
                    '        "array or the array of a registered device (cuda, sim)"\n'
                    "    )"
                ),
                '    raise TypeError(f"no device holds arrays of type {type(array).__name__}")',
            ),
        ),
        "7.2",
    ),
    (
        "backend_of returns the backend's name",
        WHOSE,
        rewrite(WHOSE, "7.2", *BACKEND_BY_NAME),
        "7.2",
    ),
    (
        "array_module: NumPy unless the array is sim's",
        WHOSE,
        edits(
            WHOSE,
            (
                "return backend_of(array).namespace()",
                'sim = BACKENDS["sim"]\n    return sim.namespace() if sim.owns(array) else np',
            ),
        ),
        "7.2",
    ),
    (
        "array_module returns the namespace function",
        WHOSE,
        ("    return backend_of(array).namespace()\n", "    return backend_of(array).namespace\n"),
        "7.2",
    ),
    (
        "device_of gives every device index 0",
        WHOSE,
        edits(
            WHOSE,
            (
                "return device(backend.type, backend.index_of(array))",
                'return device(backend.type, None if backend.type == "cpu" else 0)',
            ),
        ),
        "7.2",
    ),
    (
        "device_of gives the host index 0",
        WHOSE,
        edits(
            WHOSE,
            (
                "return device(backend.type, backend.index_of(array))",
                "return device(backend.type, backend.index_of(array) or 0)",
            ),
        ),
        "7.2",
    ),
    (
        "device_of reads the array's .device",
        WHOSE,
        edits(
            WHOSE,
            ("backend = backend_of(array)", 'where = getattr(array, "device", "cpu")'),
            (
                "backend.type, backend.index_of(array)",
                'where) if isinstance(where, str) else device("cpu"',
            ),
        ),
        "7.2",
    ),
    # -- 7.3 ------------------------------------------------------------------------------------
    (
        "move_array returns the array when the device is missing",
        TRANSFER,
        (UNAVAILABLE, "        return array\n"),
        "7.3",
    ),
    (
        "move_array raises ValueError for a missing device",
        TRANSFER,
        edits(
            TRANSFER,
            (UNAVAILABLE, UNAVAILABLE.replace("RuntimeError", "ValueError")),
            (MISSING, MISSING.replace("RuntimeError", "ValueError")),
        ),
        "7.3",
    ),
    (
        "move_array's error offers nothing instead",
        TRANSFER,
        (UNAVAILABLE, "        raise RuntimeError(f\"device '{target}' is not available here\")\n"),
        "7.3",
    ),
    (
        "move_array's error does not name the device",
        TRANSFER,
        (
            UNAVAILABLE,
            "        raise RuntimeError(\"no usable GPU on this machine: use 'cpu' or 'sim'\")\n",
        ),
        "7.3",
    ),
    (
        "move_array's error in CUDA's words, on several lines",
        TRANSFER,
        (
            UNAVAILABLE,
            "        raise RuntimeError(\n"
            '            f"CUDA error: no CUDA-capable device is detected ({target})\\n"\n'
            '            "CUDA kernel errors might be asynchronously reported at some other API '
            'call\\n"\n'
            "            \"Use 'cpu' or 'sim' instead.\"\n"
            "        )\n",
        ),
        "7.3",
    ),
    (
        "move_array raises IndexError for a missing index",
        TRANSFER,
        (MISSING, MISSING.replace("RuntimeError", "IndexError")),
        "7.3",
    ),
    (
        "move_array's index check off by one",
        TRANSFER,
        (
            "    if target.index >= backend.device_count():\n",
            "    if target.index > backend.device_count():\n",
        ),
        "7.3",
    ),
    # was a hole: move_array of a sim array to sim:1
    (
        "move_array compares device types only",
        TRANSFER,
        ("    if source == target:\n", "    if source.type == target.type:\n"),
        "7.3",
    ),
    ("move_array without resolve", TRANSFER, ("region", MOVE_NO_RESOLVE), "7.3"),
    (
        "move_array makes every array float64",
        TRANSFER,
        (TO_DEVICE, "    return backend.to_device(np.asarray(array, dtype=float), target.index)\n"),
        "7.3",
    ),
    (
        "move_array makes 0-d arrays 1-d (ascontiguousarray)",
        TRANSFER,
        (TO_DEVICE, "    return backend.to_device(np.ascontiguousarray(array), target.index)\n"),
        "7.3",
    ),
    (
        "move_array brings a device's array back with np.asarray",
        TRANSFER,
        (
            "        array = backend_for(source.type).to_host(array)\n",
            "        array = np.asarray(array)\n",
        ),
        "7.3",
    ),
    # was a hole: move_array between sim and a registered toy device
    (
        "move_array hands one device's array to another",
        TRANSFER,
        ("region", MOVE_STRAIGHT_ACROSS),
        "7.3",
    ),
    # was a hole: move_array between sim and a registered toy device
    ("move_array makes a sim array for any device", TRANSFER, ("region", MOVE_ALWAYS_SIM), "7.3"),
    # was a hole: move_array to a registered toy device that is not available
    (
        "move_array asks about cuda only",
        TRANSFER,
        ("region", MOVE_CUDA_ONLY_CHECK),
        "7.3",
    ),
    # -- 7.4 ------------------------------------------------------------------------------------
    (
        "ToDevice's backward always moves to the cpu",
        TRANSFER,
        (BACKWARD, '        return ToDevice.apply(grad_output, device("cpu"))\n'),
        "7.4",
    ),
    (
        "ToDevice's backward moves to the target",
        TRANSFER,
        edits(
            TRANSFER,
            (FORWARD, "        ctx.target = target\n        return move_array(a.data, target)\n"),
            (BACKWARD, "        return ToDevice.apply(grad_output, ctx.target)\n"),
        ),
        "7.4",
    ),
    (
        "ToDevice's backward returns a tuple",
        TRANSFER,
        (BACKWARD, "        return ToDevice.apply(grad_output, ctx.source), None\n"),
        "7.4",
    ),
    (
        "ToDevice's backward detaches, then moves",
        TRANSFER,
        (BACKWARD, "        return grad_output.detach().to(ctx.source)\n"),
        "7.4",
    ),
    (
        "ToDevice's forward calls a.to(target)",
        TRANSFER,
        (FORWARD, "        ctx.source = a.device\n        return a.to(target)\n"),
        "7.4",
    ),
    # was a hole: a copy through a toy device, whose arrays' .device is an object
    (
        "ToDevice remembers the array's .device",
        TRANSFER,
        (
            FORWARD,
            "        ctx.source = a.data.device\n        return move_array(a.data, target)\n",
        ),
        "7.4",
    ),
    (
        "ToDevice's backward moves to the gradient's own device",
        TRANSFER,
        (BACKWARD, "        return ToDevice.apply(grad_output, grad_output.device)\n"),
        "7.4",
    ),
    # -- 7.5 ------------------------------------------------------------------------------------
    (
        "check_same_device names the odd device only",
        SAME,
        same(
            '                "Expected all tensors to be on the same device, but found at least '
            'two "\n                f"devices, {t.device}! (in {op})"\n'
        ),
        "7.5",
    ),
    (
        "check_same_device names the devices in the wrong order",
        SAME,
        same(
            '                "Expected all tensors to be on the same device, but found at least '
            'two "\n                f"devices, {t.device} and {first}! (in {op})"\n'
        ),
        "7.5",
    ),
    (
        "check_same_device raises TypeError",
        SAME,
        ("            raise RuntimeError(\n", "            raise TypeError(\n"),
        "7.5",
    ),
    (
        "check_same_device compares identities",
        SAME,
        ("        if t.device != first:\n", "        if t.device is not first:\n"),
        "7.5",
    ),
    (
        "check_same_device's message shows repr of the devices",
        SAME,
        same(
            '                "Expected all tensors to be on the same device, but found at least '
            'two "\n                f"devices, {first!r} and {t.device!r}! (in {op})"\n'
        ),
        "7.5",
    ),
    ("check_same_device sorts the devices", SAME, ("region", SAME_SORTED), "7.5"),
    # was a hole: check_same_device on cpu, sim, sim
    ("check_same_device compares the last two only", SAME, ("region", SAME_LAST_TWO), "7.5"),
    # was a hole: check_same_device on toy:0, toy:0, toy:2
    (
        "check_same_device compares device types only",
        SAME,
        edits(
            SAME,
            ("if t.device != first:", "if t.device.type != first.type:"),
            (
                '"Expected all tensors to be on the same device, but found at least two "\n'
                '                f"devices, {first} and {t.device}! (in {op})"',
                '"Expected all tensors to be on the same '
                'device, but found at least two devices, "\n'
                '                f"{first} and {t.device}! (in {op})"',
            ),
        ),
        "7.5",
    ),
    (
        "check_same_device names the op's type",
        SAME,
        same(
            '                "Expected all tensors to be on the same device, but found at least '
            'two "\n                f"devices, {first} and {t.device}! (in {type(op).__name__})"\n'
        ),
        "7.5",
    ),
    # -- 7.6 ------------------------------------------------------------------------------------
    ("scatter_add leaves the index on the host", DISPATCH, ("region", SCATTER_INDEX_LEFT), "7.6"),
    (
        "scatter_add brings the values to the host",
        DISPATCH,
        ("region", SCATTER_VALUES_TO_HOST),
        "7.6",
    ),
    (
        "scatter_add moves a tuple index as one array",
        DISPATCH,
        ("region", SCATTER_TUPLE_AS_ONE),
        "7.6",
    ),
    ("scatter_add asks the values' backend", DISPATCH, ("region", SCATTER_BY_VALUES), "7.6"),
    (
        "scatter_add adds into a copy",
        DISPATCH,
        edits(
            DISPATCH,
            ("index = _on(xp, index)", "target = target.copy()\n    index = _on(xp, index)"),
        ),
        "7.6",
    ),
    (
        "scatter_add: add.at on the host, += on a device",
        DISPATCH,
        ("region", SCATTER_ADD_AT_ON_HOST_ONLY),
        "7.6",
    ),
    # was a hole: scatter_add's host → device copies (a Python float as the values)
    (
        "scatter_add moves a Python number to the device",
        DISPATCH,
        edits(
            DISPATCH,
            ("if backend.owns(values) or np.isscalar(values):", "if backend.owns(values):"),
        ),
        "7.6",
    ),
    # -- 7.7 ------------------------------------------------------------------------------------
    (
        "gather along the last axis",
        GATHER,
        ("index.data, axis=dim)", "index.data, axis=-1)"),
        "7.7",
    ),
    (
        "gather's backward adds with +=",
        GATHER,
        (GG_SCATTER, "        out[positions(index, dim)] += g.data\n"),
        "7.7",
    ),
    # was a hole: gather on the simulated device (no copies)
    (
        "gather's positions with NumPy's arange",
        GATHER,
        edits(
            GATHER,
            ("    xp = array_module(index)\n", ""),
            (
                "where.append(xp.arange(n).reshape(shape))",
                "where.append(np.arange(n).reshape(shape))",
            ),
        ),
        "7.7",
    ),
    (
        "gather's positions put the index first",
        GATHER,
        edits(
            GATHER,
            ("where = []", "where = [index]"),
            ("if axis == dim:\n            where.append(index)\n        else:", "if axis != dim:"),
        ),
        "7.7",
    ),
    # was a hole: gather on the simulated device (no copies)
    (
        "gather's forward with NumPy's take_along_axis",
        GATHER,
        (GATHER_FORWARD, "        return np.take_along_axis(a.data, index.data, axis=dim)\n"),
        "7.7",
    ),
    # was a hole: gather on the simulated device
    (
        "gather's backward makes its zeros with NumPy",
        GATHER,
        (GG_ZEROS, "        out = np.zeros(shape, dtype=g.dtype)\n"),
        "7.7",
    ),
    # was a hole: gather on the simulated device
    (
        "gather's backward with NumPy's add.at",
        GATHER,
        (GG_SCATTER, "        np.add.at(out, positions(index, dim), g.data)\n"),
        "7.7",
    ),
    (
        "gather's backward scatters into the index's shape",
        GATHER,
        (GG_ZEROS, "        out = array_module(g.data).zeros(index.shape, dtype=g.dtype)\n"),
        "7.7",
    ),
    (
        "Gather's backward returns one gradient",
        GATHER,
        (
            GATHER_BACK + ", None\n",
            GATHER_BACK + "\n",
        ),
        "7.7",
    ),
    # -- 7.8 ------------------------------------------------------------------------------------
    (
        "cat's backward cuts at the sizes, not their running sums",
        CAT,
        edits(
            CAT,
            (
                "before = (slice(None),) * ctx.dim  # every axis before dim, whole",
                "before = (slice(None),) * ctx.dim",
            ),
            ("start += n", "start = n"),
        ),
        "7.8",
    ),
    (
        "cat along axis 0",
        CAT,
        ("[t.data for t in tensors], axis=dim)", "[t.data for t in tensors], axis=0)"),
        "7.8",
    ),
    # was a hole: cat and stack on the simulated device
    (
        "cat with NumPy's concatenate",
        CAT,
        (
            CAT_FORWARD,
            "        import numpy as np\n\n"
            "        return np.concatenate([t.data for t in tensors], axis=dim)\n",
        ),
        "7.8",
    ),
    (
        "cat's backward splits the bare array",
        CAT,
        rewrite(CAT, "7.8", None, "import itertools\n" + CAT_SPLIT_ON_DATA),
        "7.8",
    ),
    (
        "cat's backward with NumPy's split",
        CAT,
        rewrite(CAT, "7.8", None, CAT_SPLIT_NUMPY),
        "7.8",
    ),
    (
        "cat's backward one axis early",
        CAT,
        (
            "        before = (slice(None),) * ctx.dim  # every axis before dim, whole\n",
            "        before = (slice(None),) * max(ctx.dim - 1, 0)\n",
        ),
        "7.8",
    ),
    (
        "stack by a reshape in front",
        CAT,
        rewrite(CAT, "7.8", None, None, STACK_BY_RESHAPE_FRONT),
        "7.8",
    ),
    (
        "stack resolves dim against the inputs",
        CAT,
        edits(
            CAT,
            ("dim = dim_index(dim, tensors[0].ndim + 1)", "dim = dim_index(dim, tensors[0].ndim)"),
        ),
        "7.8",
    ),
    (
        "stack cats along 0",
        CAT,
        edits(
            CAT,
            (
                "return cat([t.unsqueeze(dim) for t in tensors], dim)",
                "return cat([t.unsqueeze(dim) for t in tensors], 0)",
            ),
        ),
        "7.8",
    ),
]

CORRECT = [
    ("the probe restores stdout by hand", CUDA, ("region", PROBE_RESTORES_BY_HAND), "7.1"),
    ("the probe synchronises and reads back", CUDA, ("region", PROBE_SYNCHRONISES), "7.1"),
    ("the probe synchronises the runtime", CUDA, ("region", PROBE_RUNTIME_SYNC), "7.1"),
    (
        "is_available through a KeyError",
        CUDA,
        rewrite(CUDA, "7.1", None, AVAILABLE_BY_KEYERROR),
        "7.1",
    ),
    (
        "is_available when _answer is empty",
        CUDA,
        rewrite(CUDA, "7.1", None, AVAILABLE_IF_EMPTY),
        "7.1",
    ),
    ("backend_of by a comprehension", WHOSE, ("region", BACKEND_BY_COMPREHENSION), "7.2"),
    (
        "device_of case by case",
        WHOSE,
        edits(
            WHOSE,
            (
                "return device(backend.type, backend.index_of(array))",
                'if backend.type == "cpu":\n'
                '        return device("cpu")\n'
                "    return device(backend.type, int(backend.index_of(array)))",
            ),
        ),
        "7.2",
    ),
    (
        "move_array always through the host",
        TRANSFER,
        ("region", MOVE_THROUGH_THE_HOST_ALWAYS),
        "7.3",
    ),
    ("move_array checks the target first", TRANSFER, ("region", MOVE_CHECKS_FIRST), "7.3"),
    (
        "ToDevice's backward through Tensor.to",
        TRANSFER,
        (BACKWARD, "        return grad_output.to(ctx.source)\n"),
        "7.4",
    ),
    (
        "ToDevice keeps the input and asks device_of",
        TRANSFER,
        edits(
            TRANSFER,
            (FORWARD, "        ctx.a = a\n        return move_array(a.data, target)\n"),
            (BACKWARD, "        return to_device(grad_output, device_of(ctx.a.data))\n"),
        ),
        "7.4",
    ),
    (
        "check_same_device by enumerate",
        SAME,
        edits(
            SAME,
            ("first = tensors[0].device", "devices = [t.device for t in tensors]"),
            ("t in tensors[1:]", "i, d in enumerate(devices)"),
            ("t.device != first", "d != devices[0]"),
            ('two "', 'two devices, "'),
            ('f"devices, {first} and {t.device}', '+ f"{devices[0]} and {d}'),
        ),
        "7.5",
    ),
    ("check_same_device by strings", SAME, ("region", SAME_BY_STRINGS), "7.5"),
    ("scatter_add through move_array", DISPATCH, ("region", SCATTER_BY_MOVE_ARRAY), "7.6"),
    ("scatter_add with add.at on the host", DISPATCH, ("region", SCATTER_HOST_FIRST), "7.6"),
    ("gather's positions by indices", GATHER, ("region", POSITIONS_BY_INDICES), "7.7"),
    (
        "gather by fancy indexing",
        GATHER,
        (GATHER_FORWARD, GATHER_FANCY),
        "7.7",
    ),
    (
        "cat's pieces by a list of slices",
        CAT,
        rewrite(CAT, "7.8", None, CAT_PIECES_BY_LIST_INDEX),
        "7.8",
    ),
    (
        "cat's forward with a tuple",
        CAT,
        edits(
            CAT,
            ("xp = array_module(tensors[0].data)", "arrays = tuple(t.data for t in tensors)"),
            (
                "xp.concatenate([t.data for t in tensors], axis=dim)",
                "array_module(arrays[0]).concatenate(arrays, dim)",
            ),
        ),
        "7.8",
    ),
    (
        "stack by reshape",
        CAT,
        edits(
            CAT,
            (
                "return cat([t.unsqueeze(dim) for t in tensors], dim)",
                "shape = tensors[0].shape\n"
                "    return cat([t.reshape(*shape[:dim], "
                "1, *shape[dim:]) for t in tensors], dim)",
            ),
        ),
        "7.8",
    ),
]

# the variants that passed the public checks before (each noted "was a hole" above): the
# hidden checks, rows of the same builders, must catch them too
HOLES = [
    "the probe never reads the kernel's result back",
    "the probe looks at the kernel's shape only",
    "the probe silences warnings for the whole program",
    "move_array compares device types only",
    "move_array hands one device's array to another",
    "move_array makes a sim array for any device",
    "move_array asks about cuda only",
    "ToDevice remembers the array's .device",
    "check_same_device compares the last two only",
    "check_same_device compares device types only",
    "gather's positions with NumPy's arange",
    "gather's forward with NumPy's take_along_axis",
    "gather's backward makes its zeros with NumPy",
    "gather's backward with NumPy's add.at",
    "cat with NumPy's concatenate",
    "the probe leaves stdout redirected",
    "scatter_add moves a Python number to the device",
]


SET = VariantSet(
    7,
    "held out",
    VARIANTS,
    CORRECT,
    says=[
        (
            "the probe never reads the kernel's result back",
            "before the kernel's result was read back",
        ),
        ("the probe looks at the kernel's shape only", "runs kernels asynchronously"),
        ("the probe silences warnings for the whole program", "changed the warning filters"),
        ("the probe leaves stdout redirected", "left sys.stdout / sys.stderr redirected"),
        ("move_array hands one device's array to another", "the toy device takes host arrays"),
        ("move_array makes a sim array for any device", "expected one on the toy device"),
        ("move_array asks about cuda only", "as its own backend says"),
        ("ToDevice remembers the array's .device", "not the tensor's device"),
        ("check_same_device compares device types only", "two devices of one type"),
        ("gather's positions with NumPy's arange", "host → device"),
        ("gather's backward with NumPy's add.at", "NumPy's functions refuse a device's arrays"),
        ("cat with NumPy's concatenate", "NumPy's functions refuse a device's arrays"),
        (
            "scatter_add moves a Python number to the device",
            "made 2 host → device copies, expected 1: only the index (a list) crosses. The "
            "values are a Python number",
        ),
        ("the probe catches ImportError and AttributeError", "not only ImportError"),
        ("the probe trusts cupy.is_available()", "but its first kernel fails"),
        (
            "the probe reports one GPU whatever the count",
            "CuPy counts 2 devices here, and the probe's answer holds another count",
        ),
        (
            "the probe imports CuPy outside its try",
            "the import of CuPy was not inside what the probe catches",
        ),
        ("the probe redirects stderr only", "it must be silent"),
        ("is_available caches only a True answer", "the answer False was not kept"),
        ("is_available warns when there is no GPU", "a warning escaped the probe"),
        ("is_available logs when there is no GPU", "it must be silent"),
        (
            "is_available returns the (usable, count) pair",
            "the probe's pair (usable, count): expected the answer True alone",
        ),
        ("the module asks is_available() at its end", "never at import"),
        (
            "backend_of returns the first backend",
            "is the 'cpu' backend, expected 'sim': a backend that does not own it",
        ),
        ("backend_of falls back to the CPU", "an object no backend owns was handed to the CPU"),
        ("backend_of raises ValueError", "ValueError, expected a TypeError"),
        (
            "backend_of gives up after the first backend",
            "the registered sim backend owns it: not every backend in BACKENDS was asked",
        ),
        (
            "backend_of returns the backend's name",
            "is the str 'cpu', a name: expected the Backend itself",
        ),
        (
            "array_module: NumPy unless the array is sim's",
            "NumPy's namespace for an array NumPy does not own",
        ),
        ("array_module returns the namespace function", "a function, not a namespace"),
        ("device_of gives every device index 0", "the index is not the array's own"),
        ("device_of gives the host index 0", "the host's arrays have no index"),
        (
            "device_of reads the array's .device",
            "the host's device, for an array the cpu backend does not own",
        ),
        ("move_array returns the array when the device is missing", "the move quietly did nothing"),
        (
            "move_array raises ValueError for a missing device",
            "ValueError, expected a RuntimeError",
        ),
        ("move_array's error offers nothing instead", "does not say what to use instead"),
        ("move_array's error does not name the device", "does not name the device"),
        ("move_array's error in CUDA's words, on several lines", "one sentence is enough"),
        ("move_array raises IndexError for a missing index", "IndexError, expected a RuntimeError"),
        (
            "move_array's index check off by one",
            "an index past the sim backend's device count was accepted",
        ),
        ("move_array compares device types only", "two devices of one type were taken for one"),
        ("move_array without resolve", "('sim' names sim:0)"),
        ("move_array makes every array float64", "the moved array is float64, expected int64"),
        ("move_array makes 0-d arrays 1-d (ascontiguousarray)", "the move changed its shape"),
        (
            "move_array brings a device's array back with np.asarray",
            "NumPy was asked to read a device's array directly",
        ),
        (
            "ToDevice's backward always moves to the cpu",
            "the gradient stayed on y's device (cpu), where x is not",
        ),
        (
            "ToDevice's backward moves to the target",
            "the gradient stayed on y's device (sim:0), where x is not",
        ),
        ("ToDevice's backward returns a tuple", "returned 2 gradient(s) for 1 input(s)"),
        ("ToDevice's backward detaches, then moves", "g does not require grad"),
        (
            "ToDevice's forward calls a.to(target)",
            "went round in a circle (the copy's forward started another copy)",
        ),
        (
            "ToDevice's backward moves to the gradient's own device",
            "the gradient stayed on y's device (sim:0), where x is not",
        ),
        ("check_same_device names the odd device only", "does not name both devices (cpu missing)"),
        (
            "check_same_device names the devices in the wrong order",
            "names the devices in the other order",
        ),
        ("check_same_device raises TypeError", "expected RuntimeError"),
        (
            "check_same_device compares identities",
            "names sim:0 twice: two equal devices were taken as different",
        ),
        (
            "check_same_device's message shows repr of the devices",
            "shows the devices' repr, not their names",
        ),
        ("check_same_device sorts the devices", "names the devices in the other order"),
        (
            "check_same_device compares the last two only",
            "tensor 1 is on cpu and tensor 2 of 3 on sim:0, and not every tensor was compared "
            "with the first",
        ),
        ("check_same_device names the op's type", "does not name the operation (Add)"),
        ("scatter_add leaves the index on the host", "the index (in host memory) stayed there"),
        (
            "scatter_add brings the values to the host",
            "an array already on the device was brought back to the host",
        ),
        (
            "scatter_add moves a tuple index as one array",
            "went to the device as one array, not array by array",
        ),
        ("scatter_add asks the values' backend", "was the backend found from the values"),
        ("scatter_add adds into a copy", "the target is unchanged"),
        ("scatter_add: add.at on the host, += on a device", "a repeated position counted once"),
        ("gather along the last axis", "picked along the last axis, not along dim 0"),
        ("gather's backward adds with +=", "received one gradient, not the sum of both"),
        ("gather's positions put the index first", "the positions hold the index first"),
        ("gather's forward with NumPy's take_along_axis", "the forward made 1 host → device copy"),
        (
            "gather's backward makes its zeros with NumPy",
            "NumPy's functions refuse a device's arrays",
        ),
        (
            "gather's backward scatters into the index's shape",
            "returned a gradient of shape (4,) for an input of shape (5,)",
        ),
        ("Gather's backward returns one gradient", "returned 1 gradient(s) for 2 input(s)"),
        (
            "cat's backward cuts at the sizes, not their running sums",
            "cut from the size of input k − 1",
        ),
        ("cat along axis 0", "joined along axis 0, not along dim 1"),
        ("cat's backward splits the bare array", "the backward's result was not recorded"),
        ("cat's backward with NumPy's split", "the backward's result was not recorded"),
        ("cat's backward one axis early", "not the whole of ∂L/∂out"),
        ("stack by a reshape in front", "each input got its new axis in front, not at dim 1"),
        ("stack resolves dim against the inputs", "dim -1 was counted on the inputs' 2 axes"),
        ("stack cats along 0", "were joined along axis 0"),
    ],
    holes=HOLES,
    least=(60, 15),
    rewrites_cover=True,
)

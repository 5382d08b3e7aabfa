"""Chapter 7's check programs: the only part of the checks that runs next to the code under
test (standard library and NumPy only). Each returns what it saw and decides nothing.

Arrays reach the simulated device by the autograder's own means here
(``simulated.simnumpy.asarray``, given code), never through the student's ``move_array``,
so a check of one task does not run another's code where it need not. CuPy is never
imported: the probe's checks install fake ``cupy`` modules (``_FakeCupy``) in
``sys.modules`` and put the real state back afterwards."""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import sys
import tempfile
import traceback
import types
import warnings
from typing import Any

import numpy as np

from ...harness.kit import array_values, attempt, raised, tensor, tr


def module(sp, name: str) -> types.ModuleType:
    """The chapter's submodule ``name`` (``cuda``, ``backends``, ``transfer``)."""
    return importlib.import_module(f"{sp.__name__}.{name}")


def on_sim(sp, data: Any, dtype: str | None = None) -> Any:
    """An array on the simulated device, put there by the autograder (given code)."""
    return sp.simulated.simnumpy.asarray(np.array(data, dtype=dtype))


def sim_tensor(sp, data: Any, dtype: str = "float64", requires_grad: bool = False) -> Any:
    t = sp.Tensor._from_array(on_sim(sp, data, dtype))
    t.requires_grad = requires_grad
    return t


def tensor_on(sp, where: str, data: Any, requires_grad: bool = False) -> Any:
    """A float64 tensor on ``where`` ("sim…": put there by the autograder; else the host)."""
    if where.startswith("sim"):
        return sim_tensor(sp, data, requires_grad=requires_grad)
    return tensor(sp, data, requires_grad)


def kind(array: Any) -> str:
    """ "numpy", "sim", or the type's name."""
    if isinstance(array, (np.ndarray, np.generic)):
        return "numpy"
    if type(array).__name__ == "SimArray":
        return "sim"
    if isinstance(array, ToyArray):
        return "toy"
    return type(array).__name__


# -- 7.1: fake CuPy --------------------------------------------------------------------------


class _Device:
    compute_capability = "90"

    def __init__(self, fake: _FakeCupy, index: int = 0) -> None:
        fake.calls += 1
        self.fake, self.id = fake, index

    def __enter__(self) -> _Device:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def use(self) -> None:
        self.fake.kernel()

    def synchronize(self) -> None:
        self.fake.kernel()
        self.fake.read_back()


class _FakeArray(np.ndarray):
    """A fake CuPy array: a NumPy array whose results, reductions too, stay arrays (0-d
    ones for a reduction, as CuPy's), with ``.get()``."""

    def __array_wrap__(self, array: Any, context: Any = None, return_scalar: bool = False) -> Any:
        return np.asarray(array).view(type(self))

    fake: Any = None  # the _FakeCupy whose array it is (each fake has its own subclass)

    def _read(self) -> np.ndarray:
        if self.fake is not None:
            self.fake.read_back()
        return np.asarray(self)

    def get(self) -> np.ndarray:
        return self._read().copy()

    def item(self, *args: Any) -> Any:
        return self._read().item(*args)

    def tolist(self) -> Any:
        return self._read().tolist()

    def __int__(self) -> int:
        return int(self._read())

    def __float__(self) -> float:
        return float(self._read())

    def __bool__(self) -> bool:
        return bool(self._read())

    def __index__(self) -> int:
        return self._read().__index__()


class _FakeCupy:
    """A fake CuPy in one of the states a machine can be in: ``works`` (``devices`` GPUs),
    ``no driver`` (the device count fails), ``kernel fails`` (CuPy imports and counts, the
    first kernel fails: CuPy installed, no usable GPU), ``fails late`` (kernels launch, and
    their error shows only when a result is read back or the device synchronised, as a
    GPU's asynchronous errors do), ``no device`` (0 devices). Every call into it is counted;
    the failing ones print and warn before they raise, as CuPy can."""

    def __init__(self, state: str, devices: int) -> None:
        self.state, self.devices, self.calls, self.launched = state, devices, 0, False
        self.array = type("ndarray", (_FakeArray,), {"fake": self})
        runtime = types.ModuleType("cupy.cuda.runtime")
        error = type("CUDARuntimeError", (RuntimeError,), {"__module__": "cupy.cuda.runtime"})
        runtime.CUDARuntimeError = error
        runtime.getDeviceCount = self.count
        runtime.runtimeGetVersion = runtime.driverGetVersion = lambda: 12040
        cuda = types.ModuleType("cupy.cuda")
        cuda.runtime = runtime
        cuda.Device = lambda index=0: _Device(self, index)
        cuda.is_available = self.available  # CuPy's own: devices counted, no kernel run
        cuda.get_device_id = lambda: 0
        stream = types.SimpleNamespace(synchronize=self.read_back)
        cuda.Stream = types.SimpleNamespace(null=stream)
        cuda.get_current_stream = lambda: stream
        runtime.deviceSynchronize = self.read_back
        self.error, self.cuda, self.runtime = error, cuda, runtime
        fake = self

        class Cupy(types.ModuleType):
            def __getattr__(self, name: str) -> Any:
                if name.startswith("__"):
                    raise AttributeError(name)
                value = getattr(np, name)
                if name == "ndarray":
                    return fake.array
                if not callable(value) or isinstance(value, type):
                    return value
                return lambda *a, **k: fake.run(value, *a, **k)

        self.module = Cupy("cupy")
        self.module.cuda = cuda
        self.module.asnumpy = lambda a: fake.read(a)
        self.module.is_available = self.available

    def available(self) -> bool:
        try:
            return self.count() > 0
        except self.error:
            return False

    def noise(self) -> None:
        # a fake CuPy's noise, English as CuPy writes it (the probe must silence it)
        print(
            "CUDA driver version is insufficient for CUDA runtime version",  # en-only: CuPy's
            file=sys.stderr,
        )
        print("cupy: falling back", flush=True)  # en-only: CuPy's
        warnings.warn(
            "CuPy may not function correctly: no CUDA driver",  # en-only: CuPy's
            UserWarning,
            2,
        )

    def count(self) -> int:
        self.calls += 1
        if self.state == "no driver":
            self.noise()
            raise self.error(
                "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA "
                "runtime version"
            )
        return self.devices

    def kernel(self) -> None:
        self.calls += 1
        self.launched = True
        if self.state == "kernel fails":
            self.noise()
            raise self.error(
                "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA "
                "runtime version"
            )

    def read_back(self) -> None:
        """A result copied to the host, or the device synchronised: where an asynchronous
        error of a kernel that already ran shows."""
        self.calls += 1
        if self.state == "fails late" and self.launched:
            self.noise()
            raise self.error(
                "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA "
                "runtime version"
            )

    def read(self, array: Any) -> np.ndarray:
        self.read_back()
        return np.asarray(array).copy()

    def run(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        self.kernel()
        out = fn(*args, **kwargs)
        return out.view(self.array) if isinstance(out, np.ndarray) else out

    def install(self) -> None:
        sys.modules["cupy"] = self.module
        sys.modules["cupy.cuda"] = self.cuda
        sys.modules["cupy.cuda.runtime"] = self.runtime


class _NoCupy:
    """An import finder that says CuPy is not installed, counting the attempts."""

    def __init__(self) -> None:
        self.calls = 0

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name == "cupy" or name.startswith(("cupy.", "cupyx")):
            self.calls += 1
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

    def install(self) -> None:
        sys.meta_path.insert(0, self)


MARK = "the check program's own output"  # en-only: matched, never shown


def probe(sp, state: str, devices: int = 0) -> dict:
    """With CuPy in ``state`` (a fake, or "no cupy"): the chapter's cuda module reloaded (an
    import), then is_available() three times and device_count() twice; the answers, the
    calls into CuPy during the import, the first is_available() and the rest, and what was
    printed or warned. sys.modules and the import system are put back afterwards."""
    names = ("cupy", "cupy.cuda", "cupy.cuda.runtime", "cupyx")
    saved = {name: sys.modules.pop(name) for name in names if name in sys.modules}
    fake: Any = _NoCupy() if state == "no cupy" else _FakeCupy(state, devices)
    out, err = io.StringIO(), io.StringIO()
    cuda = module(sp, "cuda")
    seen: dict[str, Any] = {}
    try:
        fake.install()
        with (
            warnings.catch_warnings(record=True) as warned,
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
        ):
            warnings.simplefilter("always")
            importlib.reload(cuda)
            seen["import"] = fake.calls
            first = attempt(cuda.is_available)
            seen["first"] = fake.calls - seen["import"]
            later = [attempt(cuda.is_available) for _ in range(2)]
            counts = [attempt(cuda.device_count) for _ in range(2)]
            seen["later"] = fake.calls - seen["import"] - seen["first"]
            before = len(warned)
            warnings.warn(MARK, UserWarning, 1)  # the program's own, after the probe
            print(MARK)
            print(MARK, file=sys.stderr)
            kept = {
                "warnings": any(str(w.message) == MARK for w in warned[before:]),
                "stdout": MARK in out.getvalue(),
                "stderr": MARK in err.getvalue(),
            }
            warned = [w for w in warned if str(w.message) != MARK]
    finally:
        if isinstance(fake, _NoCupy):
            sys.meta_path.remove(fake)
        for name in names:
            sys.modules.pop(name, None)
        sys.modules.update(saved)
        importlib.reload(cuda)  # a fresh cache for whoever asks next
    answers = [first, *later]
    error = next((a for a in [*answers, *counts] if a["error"]), None)
    return {
        "error": None if error is None else f"{error['error']}: {error['message']}",
        "available": [a["value"] for a in answers],
        "count": [c["value"] for c in counts],
        "calls": seen,
        "printed": (out.getvalue() + err.getvalue()).replace(MARK + "\n", "")[:500],
        "kept": kept,
        "warned": [str(w.message)[:200] for w in warned],
    }


# -- 7.2 --------------------------------------------------------------------------------------


class ToyDevice:
    """A toy array's ``.device``: an object, as CuPy's ``cupy.cuda.Device`` is (no name)."""

    def __init__(self, index: int) -> None:
        self.id = index

    def __repr__(self) -> str:
        return f"<ToyDevice {self.id}>"


class ToyArray:
    """A toy device's array (index: which of its devices holds it). Made from host data
    only: ``numpy.asarray`` of another device's array raises, as CuPy's does."""

    def __init__(self, data: Any, index: int = 0) -> None:
        if not isinstance(data, (np.ndarray, np.generic, list, int, float)):
            raise TypeError(f"Unsupported type {type(data)}: the toy device takes host arrays only")
        self.data, self.index = np.array(data), index

    shape = property(lambda self: self.data.shape)
    dtype = property(lambda self: self.data.dtype)
    ndim = property(lambda self: self.data.ndim)
    device = property(lambda self: ToyDevice(self.index))

    def get(self) -> np.ndarray:
        return self.data.copy()


def _toy_backend(sp, available: bool = True) -> Any:
    namespace = types.ModuleType("toynumpy")
    extra = {}
    if "erf" in getattr(sp.Backend, "__dataclass_fields__", {}):  # each backend brings its erf
        extra["erf"] = lambda a: ToyArray(a.data, a.index)
    return sp.Backend(
        type="toy",
        owns=lambda a: isinstance(a, ToyArray),
        namespace=lambda: namespace,
        is_available=lambda: available,
        device_count=lambda: 3 if available else 0,
        to_device=lambda a, index: ToyArray(a, index),
        to_host=lambda a: a.data.copy(),
        index_of=lambda a: a.index,
        scatter_add=lambda t, i, v: np.add.at(t.data, i, v),
        synchronize=lambda: None,
        **extra,
    ), namespace


def make_array(sp, spec: dict) -> Any:
    """An array of the kind ``spec`` says: numpy, a NumPy scalar, sim, toy, or a stranger."""
    what, data = spec["kind"], spec.get("data")
    if what == "numpy":
        return np.array(data, dtype=spec.get("dtype"))
    if what == "scalar":
        return np.float32(data)
    if what == "sim":
        return on_sim(sp, data, spec.get("dtype"))
    if what == "toy":
        return ToyArray(data, spec["index"])
    if what == "list":
        return list(data)
    if what == "tuple":
        return tuple(data)
    return type("Mystery", (), {})()


def whose(sp, arrays: list, register: bool) -> list:
    """For each array: array_module's namespace (by name, and whether it is the right one),
    device_of as a string and its (type, index), backend_of's type; or what each raised.
    ``register``: a toy backend registered first (and removed afterwards)."""
    backends = module(sp, "backends").BACKENDS
    toy, namespace = _toy_backend(sp)
    if register:
        sp.register_backend(toy)
    right = {"numpy": np, "scalar": np, "sim": sp.simulated.simnumpy, "toy": namespace}
    backend_of = module(sp, "dispatch").backend_of
    try:
        out = []
        for spec in arrays:
            array, want = make_array(sp, spec), right.get(spec["kind"])

            def xp(a: Any = array, want: Any = want) -> Any:
                got = sp.array_module(a)
                name = getattr(got, "__name__", f"<{type(got).__name__}>")
                return [name, got is want, callable(got) and not isinstance(got, types.ModuleType)]

            def dev(a: Any = array) -> Any:
                d = sp.device_of(a)
                return [str(d), getattr(d, "type", None), getattr(d, "index", None)]

            def owner(a: Any = array) -> Any:
                found = backend_of(a)
                if isinstance(found, str):  # a name, not the Backend
                    return {"str": found[:40]}
                return getattr(found, "type", None)

            out.append(
                {
                    "array_module": attempt(xp),
                    "device_of": attempt(dev),
                    "backend_of": attempt(owner),
                }
            )
        return out
    finally:
        if backends.get("toy") is toy:
            del backends["toy"]


def tensor_devices(sp, data: Any, dtype: str) -> list:
    """Tensor.device (chapter 2's seam, through device_of) of a NumPy and a sim tensor."""
    cpu = sp.Tensor(np.array(data, dtype=dtype))
    sim = sp.Tensor._from_array(on_sim(sp, data, dtype))
    return [str(cpu.device), str(sim.device), sim.device == sp.device("sim", 0)]


# -- 7.3 --------------------------------------------------------------------------------------


@contextlib.contextmanager
def toy_device(sp, toy: str) -> Any:
    """With ``toy`` ("on", "off"), a toy backend registered for the block (three devices,
    or one that is not available), removed afterwards."""
    backends = module(sp, "backends").BACKENDS
    backend = _toy_backend(sp, available=toy == "on")[0] if toy else None
    if backend is not None:
        sp.register_backend(backend)
    try:
        yield
    finally:
        if backend is not None and backends.get("toy") is backend:
            del backends["toy"]


def move(
    sp, source: str, data: Any, dtype: str, target: str, order: str = "C", toy: str = ""
) -> dict:
    """move_array of an array on ``source`` (put there by the autograder) to ``target`` (a
    name, or "device:<name>" for a device object): what came back and the copies made. No
    usable GPU: ``cuda.is_available`` answers False while it runs, and an attempt to import
    CuPy is counted and refused. ``toy``: a toy device registered ("on"), or registered
    and not available ("off"); a source "toy:k" is an array on its device k."""
    with toy_device(sp, toy):
        return _move(sp, source, data, dtype, target, order)


def _move(sp, source: str, data: Any, dtype: str, target: str, order: str) -> dict:
    array = np.array(data, dtype=dtype)
    array = array.T if order == "T" else array
    array = on_sim(sp, array) if source == "sim" else array
    if source.startswith("toy:"):
        array = ToyArray(array, int(source.partition(":")[2]))
    name = target.removeprefix("device:")
    where = sp.device(name) if target.startswith("device:") else name
    cuda = module(sp, "cuda")
    saved = {n: vars(cuda)[n] for n in ("is_available", "device_count")}
    cupy = {n: sys.modules.pop(n) for n in ("cupy", "cupyx") if n in sys.modules}
    finder = _NoCupy()
    finder.install()
    cuda.is_available, cuda.device_count = (lambda: False), (lambda: 0)
    try:
        with sp.simulated.counting() as copies:
            result = attempt(lambda: sp.move_array(array, where))
    finally:
        vars(cuda).update(saved)
        sys.meta_path.remove(finder)
        sys.modules.update(cupy)
    out = result["value"]
    return {
        "error": result["error"],
        "message": result["message"],
        "chained": result["chained"],
        "cupy_imports": finder.calls,
        "kind": None if result["error"] else kind(out),
        "same": out is array,
        "values": None if result["error"] else array_values(out),
        "dtype": None if result["error"] else str(out.dtype),
        "to_device": copies.to_device,
        "to_host": copies.to_host,
        "source": np.array(array_values(array)),  # the parent compares it with what it sent
    }


def factories(sp, default: bool) -> dict:
    """Each factory with device="sim" (``default``: no device=, set_default_device("sim")
    instead, and a Linear's parameters too): its device, array kind, shape, dtype, values."""
    made = {
        "zeros": lambda d: sp.zeros(2, 3, **d),
        "ones": lambda d: sp.ones(4, **d),
        "full": lambda d: sp.full((2, 2), 1.5, **d),
        "arange": lambda d: sp.arange(5, **d),
        "eye": lambda d: sp.eye(3, **d),
        "tensor": lambda d: sp.tensor([[1.0, 2.0], [3.0, 4.0]], **d),
        "tensor (int)": lambda d: sp.tensor([1, 2, 3], **d),
        "randn": lambda d: sp.randn(3, 2, **d),
    }
    if default:
        made["Linear's weight"] = lambda d: sp.nn.Linear(2, 3).weight
        made["Linear's bias"] = lambda d: sp.nn.Linear(2, 3).bias
    out = {}
    try:
        if default:
            sp.set_default_device("sim")
        for name, make in made.items():
            t = make({} if default else {"device": "sim"})
            out[name] = {
                "device": str(t.device),
                "kind": kind(t.data),
                "shape": list(t.shape),
                "dtype": str(t.dtype),
                "values": None if name in ("randn", "Linear's weight") else array_values(t.data),
            }
    finally:
        if default:
            sp.set_default_device(None)
    out["after"] = str(sp.zeros(1).device)
    return out


# -- 7.4 --------------------------------------------------------------------------------------


def recursing(error: BaseException) -> str:
    """The chapter's functions that went round in a circle: those of ``error``'s traceback
    in a file of chapter 7 that recur (name and file, in the order first met, at most
    three), else the most frequent frame's."""
    frames = traceback.extract_tb(error.__traceback__)
    names = [f"{f.name} ({f.filename.rsplit('/', 1)[-1]})" for f in frames]
    mine = ["ch07_device" in f.filename and "autograder" not in f.filename for f in frames]
    ours = [n for n, m in zip(names, mine) if m]
    recur = [n for n in dict.fromkeys(ours) if ours.count(n) > 1][:3]
    if recur:
        return tr(" and ", " 和 ").join(recur)
    return max(names, key=names.count) if names else tr("a function", "某个函数")


def to_device(sp, x: list, w: list, start: str, go: str, how: str) -> dict:
    """A leaf x on ``start``; y = x moved to ``go`` (``how``: "to", "device", "cpu");
    L = sum(y · y · w) with w on ``go``; L.backward(): y's device and values, x.grad's
    device, kind and values, the copies made by the move and by the backward."""
    leaf, weight = tensor_on(sp, start, x, requires_grad=True), tensor_on(sp, go, w)
    with sp.simulated.counting() as moved:
        try:
            if how == "cpu":
                y = leaf.cpu()
            elif how == "device":
                y = leaf.to(sp.device(go))
            else:
                y = leaf.to(go)
        except RecursionError as error:
            return {"recursed": recursing(error)}
    loss = (y * y * weight).sum()
    with sp.simulated.counting() as back:
        loss.backward()
    g = leaf.grad
    return {
        "y_device": str(y.device),
        "y_kind": kind(y.data),
        "y_values": array_values(y.data),
        "recorded": y.grad_fn is not None and y.requires_grad,
        "moved": [moved.to_device, moved.to_host],
        "back": [back.to_device, back.to_host],
        "grad_device": None if g is None else str(g.device),
        "grad_kind": None if g is None else kind(g.data),
        "grad": None if g is None else array_values(g.data),
    }


def through_toy(sp, x: list, w: list, start: str, index: int) -> dict:
    """A toy device registered; x a leaf on ``start`` ("cpu", "sim"), y = x.to("toy:k"),
    z = y.to(start), L = sum(z · w), L.backward(): where y, z and x.grad are, x.grad's
    values, and whether y was recorded."""
    with toy_device(sp, "on"):
        leaf, weight = tensor_on(sp, start, x, requires_grad=True), tensor_on(sp, start, w)
        y = leaf.to(f"toy:{index}")
        z = y.to(start)
        seen = {
            "y_device": str(y.device),
            "y_kind": kind(y.data),
            "recorded": y.grad_fn is not None,
            "z_device": str(z.device),
        }
        step = raised(lambda: (z * weight).sum().backward())
        if step["error"]:
            seen["error"] = f"{step['error']}: {step['message']}"
            return seen
        g = leaf.grad
        seen["grad_device"] = None if g is None else str(g.device)
        seen["grad"] = None if g is None else array_values(g.data)
        return seen


def double_backward(sp, x: list, start: str, go: str) -> dict:
    """x a leaf on ``start``; g = d/dx sum((x moved to ``go``)³) with create_graph; then
    sum(g).backward(): g's device and values, whether it requires grad, x.grad (6x)."""
    leaf = tensor_on(sp, start, x, requires_grad=True)
    y = leaf.to(go)
    (g,) = sp.autograd.grad((y * y * y).sum(), [leaf], create_graph=True)
    out = {"g_device": str(g.device), "g": array_values(g.data), "g_requires_grad": g.requires_grad}
    if g.requires_grad:
        g.sum().backward()
        out["x_grad"] = None if leaf.grad is None else array_values(leaf.grad.data)
        out["x_grad_device"] = None if leaf.grad is None else str(leaf.grad.device)
    return out


def same_place(sp, where: str) -> list:
    """x.to(x's device) is x itself: by name, by device, by .cpu() for a tensor on
    ``where``."""
    if where == "cpu":
        x = sp.tensor([1.0, 2.0])
        return [x.to("cpu") is x, x.to(sp.device("cpu")) is x, x.cpu() is x]
    s = sim_tensor(sp, [1.0, 2.0])
    return [s.to("sim") is s, s.to(sp.device("sim", 0)) is s, s.to("sim:0") is s]


def module_to(sp, x: list, target: str, state: dict, grads: dict) -> dict:
    """Linear(3, 2) then BatchNorm1d(2), trained one forward/backward on the CPU, the values
    ``state`` and ``grads`` (by name) written into its parameters, buffers and gradients in
    place, then model.to("sim"): what is where, the same objects, the values each holds
    after (the parent compares them with the values it sent); then back."""
    sp.manual_seed(0)
    model = sp.nn.Sequential(sp.nn.Linear(3, 2), sp.nn.BatchNorm1d(2)).double()
    model(sp.Tensor(np.array(x))).sum().backward()
    params = list(model.parameters())
    named = list(model.named_parameters()) + list(model.named_buffers())
    names = [n for n, _ in named]
    for n, t in named:
        if n in state:
            t.data[...] = np.asarray(state[n])
        if n in grads and getattr(t, "grad", None) is not None:
            t.grad.data[...] = np.asarray(grads[n])
    returned = model.to(sp.device(target) if target == "sim:0" else target)
    after = list(model.parameters())
    buffers = [b for _, b in model.named_buffers()]
    out = {
        "returned_self": returned is model,
        "same_objects": all(a is b for a, b in zip(after, params)),
        "where": {n: kind(t.data) for n, t in zip(names, after + buffers)},
        "grads_where": [kind(p.grad.data) if p.grad is not None else None for p in after],
        "values": {n: np.array(array_values(t.data)) for n, t in zip(names, after + buffers)},
        "grads": {
            n: None if p.grad is None else np.array(array_values(p.grad.data))
            for n, p in zip(names, after)
        },
    }
    y = model.eval()(sim_tensor(sp, x))  # eval: the running statistics stay as they are
    out["forward_on"] = str(y.device)
    model.to(sp.device("cpu"))
    out["back_where"] = sorted({kind(t.data) for t in list(model.parameters()) + buffers})
    out["back_values"] = {n: np.array(array_values(t.data)) for n, t in zip(names, after + buffers)}
    return out


def load_onto(sp, map_location: str) -> dict:
    """sp.save of a dict holding a sim tensor, a cpu tensor and a number, then
    sp.load(map_location=...): each tensor's device and values."""
    saved = {"w": sim_tensor(sp, [[1.0, -2.0], [0.5, 3.0]]), "b": sp.tensor([4.0, 5.0]), "n": 3}
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "state.spt")
    try:
        sp.save(saved, path)
        loaded = sp.load(path, map_location=map_location or None)
    finally:
        if os.path.exists(path):
            os.remove(path)
        os.rmdir(folder)
    return {
        key: (
            {"device": str(v.device), "values": array_values(v.data)}
            if isinstance(v, sp.Tensor)
            else v
        )
        for key, v in loaded.items()
    }


def optimizer_load(sp, name: str, to: str) -> dict:
    """An optimizer over sim parameters takes two steps; its state_dict is loaded into one
    over the same values on ``to``: where its state tensors are."""

    def params(on: str) -> list:
        values = [[1.0, -2.0, 3.0], [[0.5, 0.25], [-1.0, 2.0]]]
        if on == "sim":
            return [sim_tensor(sp, v, requires_grad=True) for v in values]
        return [sp.tensor(v, requires_grad=True) for v in values]

    first = params("sim")
    opt = getattr(sp.optim, name)(first, lr=0.1, **({"momentum": 0.9} if name == "SGD" else {}))
    for _ in range(2):
        for p in first:
            p.grad = sp.Tensor._from_array(p.data * 0.5 + 1.0)
        opt.step()
    second = params(to)
    other = getattr(sp.optim, name)(second, lr=0.1)
    other.load_state_dict(opt.state_dict())
    return {
        str(i): {k: kind(v.data) for k, v in other.state[p].items() if isinstance(v, sp.Tensor)}
        for i, p in enumerate(second)
    }


# -- 7.5 --------------------------------------------------------------------------------------


def mixed(sp, op: str, places: list, base: Any) -> dict:
    """An operation on tensors on ``places`` (each "cpu" or "sim"): what it raised, or the
    values it returned. "check": check_same_device("Op", tensors) called directly."""
    with toy_device(sp, "on" if any(p.startswith("toy") for p in places) else ""):
        return _mixed(sp, op, places, base)


def _mixed(sp, op: str, places: list, base: Any) -> dict:
    values = [np.array(base, dtype=float) * (i + 1) for i in range(len(places))]

    def put(v: Any, p: str) -> Any:
        if p.startswith("toy:"):  # on a registered toy device, by the autograder's means
            return sp.Tensor._from_array(ToyArray(v, int(p.partition(":")[2])))
        return sim_tensor(sp, v) if p == "sim" else sp.Tensor(v)

    ts = [put(v, p) for v, p in zip(values, places)]

    class Three(sp.Function):
        @staticmethod
        def forward(ctx: Any, a: Any, b: Any, c: Any) -> Any:
            return a.data + b.data + c.data

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            return grad_output, grad_output, grad_output

    calls = {
        "+": lambda: ts[0] + ts[1],
        "-": lambda: ts[0] - ts[1],
        "/": lambda: ts[0] / ts[1],
        "@": lambda: ts[0] @ ts[1],
        "*": lambda: ts[0] * ts[1],
        "Three": lambda: Three.apply(*ts),
        "check": lambda: module(sp, "same_device").check_same_device("Op", ts),
    }
    result = attempt(calls[op])
    value = result["value"]
    return {
        "error": result["error"],
        "message": result["message"],
        "values": array_values(value.data) if isinstance(value, sp.Tensor) else None,
    }


# -- 7.6 --------------------------------------------------------------------------------------


def scatter(sp, target: Any, index: Any, values: Any, places: dict) -> dict:
    """scatter_add(target, index, values) with each on the place ``places`` says ("sim",
    "numpy", "list", "tuple-numpy", "tuple-sim", "scalar"): target's values afterwards,
    whether target is still the same object of the same kind, and the copies the call made
    in each direction."""
    dest = on_sim(sp, target) if places["target"] == "sim" else np.array(target)
    where = places["index"]
    if where.startswith("tuple"):
        parts = [np.array(i) for i in index]
        index = tuple(on_sim(sp, p) if where == "tuple-sim" else p for p in parts)
    elif where == "sim":
        index = on_sim(sp, index)
    elif where == "numpy":
        index = np.array(index)
    elif where == "int":
        index = int(index)
    if places["values"] == "sim":
        values = on_sim(sp, values)
    elif places["values"] == "numpy":
        values = np.array(values)
    else:
        values = float(values)
    with sp.simulated.counting() as copies:
        result = raised(lambda: sp.scatter_add(dest, index, values))
    return {
        "error": None if result["error"] is None else f"{result['error']}: {result['message']}",
        "to_device": copies.to_device,
        "to_host": copies.to_host,
        "kind": kind(dest),
        "values": array_values(dest),
    }


def index_grad(sp, x: list, index: list, w: list) -> dict:
    """x a leaf on sim; L = sum(x[index] · w); L.backward(): x.grad's device and values."""
    leaf = sim_tensor(sp, x, requires_grad=True)
    (leaf[index] * sim_tensor(sp, w)).sum().backward()
    g = leaf.grad
    return {
        "device": None if g is None else str(g.device),
        "values": None if g is None else array_values(g.data),
    }


# -- device behaviours that run through 7.2 -----------------------------------------------------


def training(sp, weights: list, x: Any, y: Any, lr: float, momentum: float, steps: int) -> dict:
    """Linear(3, 4), Tanh, Linear(4, 2) with ``weights`` (W1, b1, W2, b2, float64), model
    and data put on sim by the autograder; ``steps`` steps of SGD with momentum on
    mse_loss: the copies made during the steps, the losses and parameters afterwards, and
    where the optimizer's state is."""
    model = sp.nn.Sequential(sp.nn.Linear(3, 4), sp.nn.Tanh(), sp.nn.Linear(4, 2))
    params = [model[0].weight, model[0].bias, model[2].weight, model[2].bias]
    for p, w in zip(params, weights):
        p.data = on_sim(sp, w, "float64")
    opt = sp.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    data, target = sim_tensor(sp, x), sim_tensor(sp, y)
    losses = []
    with sp.simulated.counting() as copies:
        for _ in range(steps):
            opt.zero_grad()
            loss = sp.nn.functional.mse_loss(model(data), target)
            loss.backward()
            opt.step()
            losses.append(loss)
    state = [opt.state[p].get("momentum_buffer") for p in params]
    return {
        "to_host": copies.to_host,
        "losses": [float(array_values(loss.data)) for loss in losses],
        "params": [array_values(p.data) for p in params],
        "where": [kind(p.data) for p in params],
        "state": [None if s is None else kind(s.data) for s in state],
    }


def optimizer_state(sp, name: str) -> dict:
    """An optimizer over sim parameters (put there by the autograder) takes one step with
    gradients on sim: where each state tensor is, and where the parameters are."""
    ps = [sim_tensor(sp, [1.0, -2.0, 3.0], requires_grad=True)]
    ps.append(sim_tensor(sp, [[0.5, 0.25], [-1.0, 2.0]], requires_grad=True))
    options = {"SGD": {"momentum": 0.9}, "Adam": {"amsgrad": True}}.get(name, {})
    opt = getattr(sp.optim, name)(ps, lr=0.1, **options)
    for p in ps:
        p.grad = sp.Tensor._from_array(p.data * 0.5 + 1.0)
    opt.step()
    return {
        "state": [
            {k: kind(v.data) for k, v in opt.state[p].items() if isinstance(v, sp.Tensor)}
            for p in ps
        ],
        "params": [kind(p.data) for p in ps],
    }


def loader(sp, x: Any, y: Any, batch_size: int, drop_last: bool) -> dict:
    """A DataLoader over a TensorDataset of two sim tensors: each batch's devices and
    values, and the device → host copies the epoch made."""
    dataset = sp.utils.data.TensorDataset(sim_tensor(sp, x), sim_tensor(sp, y, "int64"))
    with sp.simulated.counting() as copies:
        batches = list(sp.utils.data.DataLoader(dataset, batch_size, drop_last=drop_last))
    return {
        "to_host": copies.to_host,
        "batches": [
            [str(a.device), str(b.device), array_values(a.data), array_values(b.data)]
            for a, b in batches
        ],
    }

"""Chapter 7 on a real GPU (CuPy), with the reference: marked ``gpu``, skipped without one.

Every behaviour is parametrised by device: ``"cuda"`` (marked ``gpu``; skipped, with the
reason ``support.device_bench.why_no_gpu`` gives — CuPy missing, or the CUDA step that
failed — where no GPU can be used) and ``"sim"``, the simulated device, which runs
everywhere and keeps these tests honest on a machine without a GPU: the same assertions
pass on both. ``python -m tools.gpu_check`` (``make gpu-check``) runs this file on a GPU.

What is checked on the device: tensors to and from it (``to``, ``cuda()``/``cpu()``,
factories with ``device=``), gradients flowing back across a copy, ``Module.to``, optimizer
state on the parameters' device, ``DataLoader`` batches on the device, ``scatter_add``
(``cupyx.scatter_add`` on a GPU) and indexing's gradient, two devices in one operation
refused, a training step whose losses equal the CPU's (float64, to 1e-10) and that leaves
every array on the device with no copy to the host. Chapters 2–6's checks with their
tensors on the GPU are tests/test_device_checks.py's (``cuda``, marked ``gpu`` too), which
the GPU script runs as well.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import subprocess
import sys
from collections.abc import Iterator

import numpy as np
import pytest

from solutions import ch07_device as sp
from support import capstone, device_bench
from tests.trees import REPO

WHY_NO_GPU = device_bench.why_no_gpu()
needs_gpu = pytest.mark.skipif(WHY_NO_GPU is not None, reason=f"no usable GPU: {WHY_NO_GPU}")
CUDA = pytest.param("cuda", marks=[pytest.mark.gpu, needs_gpu], id="cuda")
DEVICES = [CUDA, pytest.param("sim", id="sim")]


def array_type(device: str) -> type:
    """The class of the device's arrays: ``cupy.ndarray`` or the simulated ``SimArray``."""
    if device == "cuda":
        import cupy

        return cupy.ndarray
    return sp.simulated.SimArray


def host(array) -> np.ndarray:
    return array.get()  # the one way back, on both devices


@dataclasses.dataclass
class Copies:
    to_device: int = 0
    to_host: int = 0


@contextlib.contextmanager
def copies(device: str) -> Iterator[Copies]:
    """Counts the copies between host and ``device`` made inside the block. The simulated
    device counts its own; on a GPU, the framework's copies back (the backend's ``to_host``)
    and CuPy's module-level ``asarray``/``array`` of host data and ``asnumpy`` are wrapped — a
    ``.get()``, ``float()`` or ``.item()`` on a CuPy array cannot be, so the tests also
    check that results stay CuPy arrays."""
    seen = Copies()
    if device == "sim":
        with sp.simulated.counting() as counted:
            yield seen
        seen.to_device, seen.to_host = counted.to_device, counted.to_host
        return
    import cupy

    backends = sp.backends.BACKENDS
    backend = backends["cuda"]

    def counting(fn, field, is_copy=lambda *a, **k: True):
        def wrapped(*args, **kwargs):
            if is_copy(*args, **kwargs):
                setattr(seen, field, getattr(seen, field) + 1)
            return fn(*args, **kwargs)

        return wrapped

    from_host = lambda a, *rest, **kw: not isinstance(a, cupy.ndarray)
    saved = {name: getattr(cupy, name) for name in ("asarray", "array", "asnumpy")}
    # the backend's to_device is cupy.asarray (counted below); its to_host is .get()
    backends["cuda"] = dataclasses.replace(backend, to_host=counting(backend.to_host, "to_host"))
    cupy.asarray = counting(saved["asarray"], "to_device", from_host)
    cupy.array = counting(saved["array"], "to_device", from_host)
    cupy.asnumpy = counting(saved["asnumpy"], "to_host")
    try:
        yield seen
    finally:
        backends["cuda"] = backend
        for name, fn in saved.items():
            setattr(cupy, name, fn)


@pytest.fixture(autouse=True)
def _cpu_by_default() -> Iterator[None]:
    yield
    sp.set_default_device(None)
    sp.set_default_dtype(np.float32)


# -- tensors to and from the device ----------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
def test_to_and_from_the_device(device: str) -> None:
    values = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = sp.tensor(values)
    d = x.to(device)
    assert d.device == sp.device(device, 0) and isinstance(d.data, array_type(device))
    assert d.to(device) is d  # already there: no copy
    back = d.cpu()
    assert back.device == sp.device("cpu") and isinstance(back.data, np.ndarray)
    np.testing.assert_array_equal(back.data, values)
    assert back.dtype == x.dtype
    with pytest.raises(TypeError):
        np.asarray(d.data)  # no implicit way back, as CuPy
    if device == "cuda":
        assert x.cuda().device == sp.device("cuda", 0)
        assert sp.cuda.is_available() and sp.cuda.device_count() >= 1
        sp.cuda.synchronize()
        count = sp.cuda.device_count()
        with pytest.raises(RuntimeError, match="does not exist"):
            x.to(f"cuda:{count}")


@pytest.mark.parametrize("device", DEVICES)
def test_factories_make_their_tensor_on_the_device(device: str) -> None:
    made = [
        sp.ones(2, 3, device=device),
        sp.zeros((2, 3), device=sp.device(device)),
        sp.randn(4, device=device),
        sp.tensor([1.0, 2.0], device=device),
        sp.arange(5, device=device),
    ]
    for t in made:
        assert t.device == sp.device(device, 0) and isinstance(t.data, array_type(device))
    sp.set_default_device(device)
    assert sp.ones(2).device == sp.device(device, 0)
    assert sp.nn.Linear(3, 2).weight.device == sp.device(device, 0)


@pytest.mark.parametrize("device", DEVICES)
def test_gradients_flow_back_across_a_copy(device: str) -> None:
    x = sp.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    loss = (x.to(device) * x.to(device)).sum()
    assert loss.device == sp.device(device, 0)
    loss.backward()
    assert isinstance(x.grad.data, np.ndarray)  # the gradient came back to x's device
    np.testing.assert_allclose(x.grad.data, 2 * np.arange(6.0).reshape(2, 3), rtol=1e-12)

    w = sp.tensor(np.arange(3.0), requires_grad=True).to(device).detach().requires_grad_()
    (w.cpu() ** 2).sum().backward()  # the loss on the CPU, the leaf on the device
    assert isinstance(w.grad.data, array_type(device))
    np.testing.assert_allclose(host(w.grad.data), 2 * np.arange(3.0), rtol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
def test_two_devices_in_one_operation_are_refused(device: str) -> None:
    with pytest.raises(RuntimeError, match=rf"cpu and {device}:0.*Add|{device}:0 and cpu.*Add"):
        sp.ones(2) + sp.ones(2, device=device)


# -- modules, optimizers, data ---------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
def test_module_to_moves_parameters_and_gradients_follow(device: str) -> None:
    sp.manual_seed(0)
    model = capstone.make_model(sp)
    before = [p.data.copy() for p in model.parameters()]
    assert model.to(device) is model
    for p, b in zip(model.parameters(), before, strict=True):
        assert p.device == sp.device(device, 0) and isinstance(p.data, array_type(device))
        np.testing.assert_array_equal(host(p.data), b)
    x = sp.rand(8, 784, device=device)
    sp.nn.functional.cross_entropy(model(x), sp.arange(8, device=device)).backward()
    for p in model.parameters():
        assert isinstance(p.grad.data, array_type(device))
    model.to("cpu")
    assert all(isinstance(p.data, np.ndarray) for p in model.parameters())


@pytest.mark.parametrize("optimizer", sorted(capstone.OPTIMIZERS))
@pytest.mark.parametrize("device", DEVICES)
def test_optimizer_state_lives_on_the_device(device: str, optimizer: str) -> None:
    sp.manual_seed(0)
    model = capstone.make_model(sp).to(device)
    opt = capstone.make_optimizer(sp, model.parameters(), optimizer)
    x, y = sp.rand(16, 784, device=device), sp.tensor(np.arange(16) % 10).to(device)
    for _ in range(2):
        opt.zero_grad()
        sp.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    arrays = [getattr(v, "data", v) for s in opt.state.values() for v in s.values()]
    arrays = [a for a in arrays if hasattr(a, "shape") and a.shape != ()]
    assert arrays or (optimizer == "sgd" and not opt.state), optimizer
    for a in arrays:
        assert isinstance(a, array_type(device)), (optimizer, type(a))


@pytest.mark.parametrize("device", DEVICES)
def test_dataloader_batches_arrive_on_the_device(device: str) -> None:
    data = sp.utils.data.TensorDataset(
        sp.tensor(np.arange(20.0).reshape(10, 2)).to(device), sp.arange(10).to(device)
    )
    loader = sp.utils.data.DataLoader(
        data, batch_size=4, shuffle=True, generator=sp.Generator().manual_seed(0), pin_memory=True
    )
    seen = []
    for x, y in loader:
        assert isinstance(x.data, array_type(device)) and isinstance(y.data, array_type(device))
        seen += host(y.data).tolist()
    assert sorted(seen) == list(range(10))


# -- scatter_add -----------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
def test_scatter_add_counts_repeated_positions(device: str) -> None:
    index = np.array([0, 2, 0, 4, 0])
    values = np.arange(1.0, 6.0)
    expected = np.zeros(5)
    np.add.at(expected, index, values)
    target = sp.zeros(5, dtype=sp.float64, device=device)
    sp.scatter_add(target.data, index, sp.tensor(values).to(device).data)
    assert isinstance(target.data, array_type(device))
    np.testing.assert_array_equal(host(target.data), expected)

    w = sp.tensor(np.ones((5, 3)), requires_grad=True).to(device).detach().requires_grad_()
    w[index].sum().backward()  # indexing's gradient is a scatter-add on the device
    assert isinstance(w.grad.data, array_type(device))
    np.testing.assert_array_equal(host(w.grad.data)[:, 0], np.bincount(index, minlength=5))


# -- a training step -------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
def test_a_training_step_loses_what_the_cpus_does(device: str) -> None:
    cpu = device_bench.training_losses("cpu", steps=5, dtype="float64", sp=sp)
    dev = device_bench.training_losses(device, steps=5, dtype="float64", sp=sp)
    assert cpu[-1] < cpu[0]
    np.testing.assert_allclose(dev, cpu, rtol=1e-10, atol=0)


def _capstone_steps(device: str, steps: int = 3) -> tuple[list, object, object, Copies]:
    """``steps`` steps of the capstone's training (float32, Adam, batch 64) with model and
    batch on ``device``: the losses, the model, the optimizer and the copies made."""
    sp.manual_seed(0)
    model = capstone.make_model(sp).to(device)
    opt = sp.optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(0)
    x = sp.tensor(rng.random((64, 784), dtype=np.float32)).to(device)
    y = sp.tensor(rng.integers(0, 10, 64)).to(device)
    losses = []
    with copies(device) as seen:
        for _ in range(steps):
            opt.zero_grad()
            loss = sp.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            losses.append(loss)
    return losses, model, opt, seen


@pytest.mark.parametrize("device", DEVICES)
def test_a_training_step_stays_on_the_device(device: str) -> None:
    losses, model, opt, _ = _capstone_steps(device)
    kinds = {type(t.data) for t in losses} | {type(p.data) for p in model.parameters()}
    kinds |= {type(p.grad.data) for p in model.parameters()}
    state = [getattr(v, "data", v) for s in opt.state.values() for v in s.values()]
    kinds |= {type(a) for a in state if hasattr(a, "shape")}
    assert kinds == {array_type(device)}, kinds


HIDDEN_COPIES = (
    "known: the reference's capstone step copies 3 times per step — cross_entropy's target "
    "check `if bad.any()` (ch05_nn/nn/cross_entropy.py) and its `count = int(keep.sum())` "
    "(device → host, each a GPU sync), and ReLU's backward `a > 0`, whose 0 is lifted by "
    "`xp.asarray(0)` (ch02_tensor/tensor.py _lift; host → device); strict: passes once fixed"
)


@pytest.mark.xfail(strict=True, reason=HIDDEN_COPIES)
@pytest.mark.parametrize("device", DEVICES)
def test_a_training_step_makes_no_copy(device: str) -> None:
    *_, seen = _capstone_steps(device)
    assert (seen.to_device, seen.to_host) == (0, 0), f"copies in 3 steps: {seen}"


# -- the GPU script --------------------------------------------------------------------------


@pytest.mark.slow  # the script, end to end (the slow suite; .ci/run runs it)
def test_the_gpu_script_runs_and_says_whether_a_gpu_was_used(tmp_path) -> None:
    """``python -m tools.gpu_check --quick`` (not marked: it runs everywhere): it logs the
    machine, the tests and the bench to one file; without a GPU it says so and exits 1."""
    log = tmp_path / "gpu.txt"
    result = subprocess.run(
        [sys.executable, "-m", "tools.gpu_check", "--quick", "--log", str(log)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    text = log.read_text()
    assert result.stdout.strip() == text.strip()
    assert "a usable GPU needs:" in text and "training step (784-128-10, Adam)" in text
    assert re.search(r"^\d+ passed.* in [\d.]+s", text, re.M), text
    if WHY_NO_GPU is None:
        assert result.returncode == 0 and "GPU check PASSED" in text, text
        assert "goal: training step at batch 4096" in text
    else:
        assert result.returncode == 1, text
        assert "NO USABLE GPU here" in text and "GPU check NOT PASSED (no usable GPU)" in text
        assert text.count(device_bench.SIM_NOTE) >= 3

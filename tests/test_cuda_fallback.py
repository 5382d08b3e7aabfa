"""CuPy installed, no usable GPU: the framework falls back to the CPU, silently (issue 16).

Two kinds of test, each case in a fresh interpreter run with ``-W error`` on the reference
(``SPARROW_IMPL=solutions``, ``import chapters.ch07_device as sp``):

- with the real CuPy, where it imports: every child runs with ``CUDA_VISIBLE_DEVICES=""``,
  so it has no usable GPU even on a machine that has one (there CuPy raises
  ``cudaErrorNoDevice``; on a machine with CuPy and no NVIDIA driver it raises
  ``cudaErrorInsufficientDriver`` — ``test_cupy_here_imports_and_fails_at_the_first_call``
  says which it saw). Without CuPy these skip, saying so (CI installs it through
  requirements-oracles.txt).
- with a stand-in ``cupy`` package put first on the path, which imports (printing and
  warning as it does) and then fails where a broken installation fails: at the device
  count, or only at the first kernel, or with no device. These run everywhere, and cover
  the failure at the first kernel, which the real CuPy cannot show on a machine without a
  driver (it fails earlier, at the count).

What is asserted: importing prints nothing, warns nothing and does not import CuPy (so it
launches no kernel); ``cuda.is_available()`` is False without a word, and is probed once
(a second call does not touch CuPy); ``device_count() == 0``; asking for ``"cuda"``
(``ones(device=)``, ``Tensor.to``, ``.cuda()``, ``Module.to``) is one RuntimeError sentence
with no CUDA error in it or chained to it; everything else — a training step — runs on the
CPU.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.trees import REPO


def run(code: str, path: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh ``python -W error`` on the reference, no GPU visible; ``path``
    first on the import path (a stand-in CuPy) when given."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env |= {
        "SPARROW_IMPL": "solutions",
        "CUDA_VISIBLE_DEVICES": "",
        "PYTHONPATH": os.pathsep.join(str(p) for p in (path, REPO) if p),
    }
    return subprocess.run(
        [sys.executable, "-W", "error", "-c", textwrap.dedent(code)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def silent_ok(result: subprocess.CompletedProcess[str]) -> None:
    """The child succeeded and wrote nothing but its last line (a JSON report), if any."""
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", result.stderr
    assert result.stdout.count("\n") <= 1, result.stdout


def report(result: subprocess.CompletedProcess[str]) -> dict:
    silent_ok(result)
    return json.loads(result.stdout)


# -- what the real CuPy does here ------------------------------------------------------------

_CUPY_HERE = run(
    """
    import json
    try:
        import cupy
    except Exception as exc:
        print(json.dumps({"imports": False, "error": f"{type(exc).__name__}: {exc}"}))
        raise SystemExit
    out = {"imports": True, "version": cupy.__version__}
    try:
        out["count"] = cupy.cuda.runtime.getDeviceCount()
        out["kernel"] = int((cupy.arange(3) * 2).sum())
    except Exception as exc:
        out["error"] = f"{type(exc).__module__}.{type(exc).__qualname__}: {exc}"
        out["runtime_error"] = isinstance(exc, RuntimeError)
    print(json.dumps(out))
    """
)
CUPY = json.loads(_CUPY_HERE.stdout or "{}") if _CUPY_HERE.returncode == 0 else {}
needs_cupy = pytest.mark.skipif(
    not CUPY.get("imports"),
    reason="CuPy does not import here "
    f"({CUPY.get('error') or _CUPY_HERE.stderr.strip()[-200:] or 'no output'}): the fallback "
    "with the real CuPy is not tested (pip install -r requirements-oracles.txt installs it); "
    "the stand-in CuPy's tests below still run",
)


@needs_cupy
def test_cupy_here_imports_and_fails_at_the_first_call() -> None:
    """The situation under test: CuPy imports, and its first call into CUDA raises (a CUDA
    runtime error, a RuntimeError) — no device count, no kernel."""
    assert "count" not in CUPY and "kernel" not in CUPY, CUPY
    assert CUPY["runtime_error"], CUPY
    assert "CUDARuntimeError: cudaError" in CUPY["error"], CUPY


IMPORT = textwrap.dedent(
    """
    import json, sys
    import chapters.ch07_device as sp
    cupy = [m for m in sys.modules if m.split(".")[0] in ("cupy", "cupyx", "cupy_backends")]
"""
)


@needs_cupy
def test_importing_prints_nothing_and_leaves_cupy_alone() -> None:
    out = report(run(IMPORT + "print(json.dumps(cupy))"))
    assert out == [], f"importing the framework imported {out}"


PROBE = textwrap.dedent(
    """
    first = sp.cuda.is_available()
    probed = "cupy" in sys.modules  # the probe did try CuPy
    calls = []
    class Spy:  # a CuPy that records any use: a second probe would touch it
        def __getattr__(self, name):
            calls.append(name)
            raise AttributeError(name)
    sys.modules["cupy"] = Spy()
    second = sp.cuda.is_available()
    print(json.dumps({"first": first, "second": second, "probed": probed, "calls": calls,
                      "count": sp.cuda.device_count(), "touched": calls[:]}))
"""
)


def _assert_probe(out: dict, probed: bool = True) -> None:
    assert out["first"] is False and out["second"] is False
    assert out["probed"] is probed  # the probe did import CuPy (the case under test)
    assert out["calls"] == [], f"the second is_available() probed again: {out['calls']}"
    assert out["count"] == 0


@needs_cupy
def test_is_available_is_false_silently_and_probed_once() -> None:
    _assert_probe(report(run(IMPORT + PROBE)))


ASKS = {
    "factory": "sp.ones(2, device='cuda')",
    "factory device()": "sp.zeros((2, 3), device=sp.device('cuda', 0))",
    "tensor.to": "sp.tensor([1.0, 2.0]).to('cuda')",
    "tensor.cuda": "sp.tensor([1.0, 2.0]).cuda()",
    "module.to": "sp.nn.Linear(3, 2).to('cuda')",
}

ASK = textwrap.dedent(
    """
    import json
    import chapters.ch07_device as sp
    try:
        {expr}
    except RuntimeError as exc:
        chain, e = [], exc
        while (e := e.__cause__ or e.__context__) is not None:
            chain.append(f"{{type(e).__name__}}: {{e}}")
        print(json.dumps({{"message": str(exc), "chain": chain}}))
"""
)


def _assert_one_sentence(out: dict) -> None:
    message = out["message"]
    assert "\n" not in message and message.count(". ") == 0, message
    assert "cuda" in message and "not available" in message, message
    assert "cpu" in message, f"the message does not say what to do instead: {message}"
    assert "cudaError" not in message and "CUDARuntimeError" not in message, message
    assert out["chain"] == [], f"a CUDA error hangs on the RuntimeError: {out['chain']}"


@needs_cupy
@pytest.mark.parametrize("ask", list(ASKS))
def test_asking_for_cuda_is_one_clear_sentence(ask: str) -> None:
    _assert_one_sentence(report(run(ASK.format(expr=ASKS[ask]))))


@needs_cupy
def test_an_uncaught_request_shows_no_cuda_traceback() -> None:
    result = run("import chapters.ch07_device as sp\nsp.ones(2, device='cuda')")
    assert result.returncode == 1 and result.stdout == ""
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("RuntimeError: device 'cuda:0' is not available"), result.stderr
    assert "cudaError" not in result.stderr and "cupy" not in result.stderr, result.stderr


TRAIN = textwrap.dedent(
    """
    import json
    import numpy as np
    import chapters.ch07_device as sp
    sp.manual_seed(0)
    model = sp.nn.Sequential(sp.nn.Linear(4, 8), sp.nn.ReLU(), sp.nn.Linear(8, 3))
    opt = sp.optim.Adam(model.parameters(), lr=1e-2)
    rng = np.random.default_rng(0)
    x, y = sp.tensor(rng.random((16, 4), dtype=np.float32)), sp.tensor(rng.integers(0, 3, 16))
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = sp.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    kinds = {type(p.data).__module__ for p in model.parameters()}
    kinds |= {type(getattr(v, "data", v)).__module__ for s in opt.state.values()
              for v in s.values() if hasattr(v, "shape")}
    print(json.dumps({"losses": losses, "kinds": sorted(kinds),
                      "devices": sorted({str(p.device) for p in model.parameters()}),
                      "available": sp.cuda.is_available()}))
"""
)


def _assert_trains_on_the_cpu(out: dict) -> None:
    assert out["available"] is False
    assert out["devices"] == ["cpu"] and out["kinds"] == ["numpy"], out
    assert out["losses"][-1] < out["losses"][0], out["losses"]


@needs_cupy
def test_everything_else_runs_on_the_cpu() -> None:
    _assert_trains_on_the_cpu(report(run(TRAIN)))


# -- a stand-in CuPy that imports, then fails like a broken installation ---------------------

STANDIN = """
import sys, warnings
print("stand-in cupy: loading")  # a real CuPy may warn or print; the probe must hide it
print("stand-in cupy: to stderr", file=sys.stderr)
warnings.warn("stand-in cupy: a warning at import", UserWarning)

class CUDARuntimeError(RuntimeError):
    pass

MODE = {mode!r}

def _fail(what):
    print("stand-in cupy:", what, file=sys.stderr)
    raise CUDARuntimeError(
        "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime "
        "version")

class _Runtime:
    @staticmethod
    def getDeviceCount():
        if MODE == "count":
            _fail("device count")
        return 0 if MODE == "none" else 1

class _Device:
    def __init__(self, index=0):
        pass
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        return False
    def synchronize(self):
        pass

class cuda:
    runtime = _Runtime
    Device = _Device

class ndarray:
    pass

def arange(*args, **kwargs):
    _fail("first kernel")

def asarray(*args, **kwargs):
    _fail("first kernel")
"""

MODES = {
    "count": "the device count raises cudaErrorInsufficientDriver",
    "kernel": "one device counted, the first kernel raises cudaErrorInsufficientDriver",
    "none": "no device (count 0)",
}


@pytest.fixture(params=list(MODES))
def standin(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    package = tmp_path / "cupy"
    package.mkdir()
    (package / "__init__.py").write_text(STANDIN.format(mode=request.param))
    return tmp_path


def test_standin_importing_does_not_import_cupy(standin: Path) -> None:
    out = report(run(IMPORT + "print(json.dumps(cupy))", standin))
    assert out == []


def test_standin_is_available_is_false_silently_and_probed_once(standin: Path) -> None:
    _assert_probe(report(run(IMPORT + PROBE, standin)))


@pytest.mark.parametrize("ask", ["factory", "tensor.to", "module.to"])
def test_standin_asking_for_cuda_is_one_clear_sentence(standin: Path, ask: str) -> None:
    _assert_one_sentence(report(run(ASK.format(expr=ASKS[ask]), standin)))


def test_standin_everything_else_runs_on_the_cpu(standin: Path) -> None:
    _assert_trains_on_the_cpu(report(run(TRAIN, standin)))


def test_without_cupy_at_all() -> None:
    """No CuPy (an import that fails): False, silently, once — the everyday laptop."""
    blocker = "import sys; sys.modules['cupy'] = None\n"  # `import cupy` raises ImportError
    code = IMPORT + blocker + PROBE.replace('"cupy" in sys.modules', "True")
    _assert_probe(report(run(code)))

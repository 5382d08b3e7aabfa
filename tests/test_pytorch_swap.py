"""The whole course as PyTorch: ``support/pytorch_script.py`` is a PyTorch script, and with
its one line ``import torch`` changed into ``import chapters.ch07_device as torch`` it trains
with the last chapter's package.

The Sparrow side runs everywhere: it trains (the loss falls, the test accuracy is far above
chance), a run resumed from its checkpoint is the run never interrupted, and the simulated
device gives the CPU's losses. With PyTorch installed, the two agree step for step to 1e-6
relative in float64; without it that comparison skips, visibly. The swap itself is tested
literally: the file's text, that one line replaced, is what runs (in a child process with
``SPARROW_IMPL=solutions``, so ``chapters`` is the reference, as a student's finished tree
would be).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "support" / "pytorch_script.py"
TORCH_LINE = "import torch"
SWAPPED_LINE = "import chapters.ch07_device as torch"  # what the README and the script say
RTOL = 1e-6


def swapped_source(line: str) -> str:
    """The script's text with its one ``import torch`` line replaced by ``line``."""
    lines = SCRIPT.read_text().split("\n")
    at = [i for i, text in enumerate(lines) if text == TORCH_LINE]
    assert len(at) == 1, f"the script should have one line {TORCH_LINE!r}, found {len(at)}"
    lines[at[0]] = line
    return "\n".join(lines)


def load_script(line: str) -> dict[str, Any]:
    """The script's namespace, run from its text with the import line ``line``."""
    namespace: dict[str, Any] = {"__name__": "pytorch_script"}
    exec(compile(swapped_source(line), str(SCRIPT), "exec"), namespace)
    return namespace


@pytest.fixture(scope="module")
def weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The one NumPy file of initial weights both sides load."""
    path = tmp_path_factory.mktemp("swap") / "initial.npz"
    load_script("import solutions.ch07_device as torch")["write_initial_weights"](path)
    return path


@pytest.fixture(scope="module")
def sparrow() -> dict[str, Any]:
    return load_script("import solutions.ch07_device as torch")


def run_printing(script: dict[str, Any], weights: Path, name: str) -> tuple[list, float, str]:
    """The script's ``run`` with ``verbose=True``: its losses, accuracy and what it printed
    (a line per epoch: training loss, test loss, perplexity, accuracy)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        losses, accuracy = script["run"](weights, weights.parent / name, verbose=True)
    return losses, accuracy, out.getvalue()


@pytest.fixture(scope="module")
def sparrow_printed(sparrow: dict[str, Any], weights: Path) -> tuple[list, float, str]:
    """Sparrow's run: 4 epochs, resumed from a checkpoint after 2."""
    return run_printing(sparrow, weights, "sparrow.pt")


@pytest.fixture(scope="module")
def sparrow_run(sparrow_printed: tuple) -> tuple[list[float], float]:
    """Sparrow's losses and test accuracy."""
    return sparrow_printed[0], sparrow_printed[1]


def test_the_script_is_pytorch(sparrow: dict[str, Any]) -> None:
    """Nothing but the one line names the package: no other import of torch, and the
    docstring gives the replacement line."""
    source = SCRIPT.read_text()
    imports = [
        line
        for line in source.split("\n")
        if line.startswith(("import ", "from ")) and "torch" in line
    ]
    assert imports == [TORCH_LINE]
    assert SWAPPED_LINE in source
    assert "solutions" not in source


def test_the_swapped_text_is_what_runs(weights: Path, sparrow_run: tuple) -> None:
    """The file, its import line replaced by the README's, run as it stands: the losses are
    the in-process run's, bit for bit."""
    child = (
        "import json, sys\n"
        f"namespace = {{'__name__': 'pytorch_script'}}\n"
        f"exec(compile(sys.stdin.read(), {str(SCRIPT)!r}, 'exec'), namespace)\n"
        f"losses, accuracy = namespace['run']({str(weights)!r}, {str(weights.parent / 'c.pt')!r})\n"
        "print(json.dumps([losses, accuracy]))\n"
    )
    env = os.environ | {"SPARROW_IMPL": "solutions", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", child],
        input=swapped_source(SWAPPED_LINE),
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    losses, accuracy = json.loads(done.stdout.strip().split("\n")[-1])
    assert [losses, accuracy] == list(sparrow_run)


def test_sparrow_trains(sparrow_printed: tuple) -> None:
    losses, accuracy, printed = sparrow_printed
    assert printed.count("\n") == 4 and printed.startswith("epoch 1: train loss ")
    assert len(losses) == 4 * 23  # 1,438 training images in batches of 64
    assert all(np.isfinite(losses))
    assert abs(losses[0] - np.log(10)) < 0.2  # small initial weights: about uniform odds
    assert np.mean(losses[-23:]) < 0.25 * np.mean(losses[:23])
    assert accuracy > 0.8  # chance is 0.1


def test_resuming_is_not_interrupting(sparrow: dict[str, Any], weights: Path, sparrow_run: tuple):
    """The checkpoint holds everything that matters: the model, the momentum buffers and
    the schedule's place (a run never interrupted has the same losses, exactly)."""
    whole = sparrow["run"](weights, weights.parent / "unused.pt", resume_after=None)
    assert whole == sparrow_run
    assert not (weights.parent / "unused.pt").exists()


def test_the_simulated_device_gives_the_cpus_losses(
    sparrow: dict[str, Any], weights: Path, sparrow_run: tuple
) -> None:
    """The same script with ``device="sim"``: model, batches and checkpoint on the
    simulated device (the resume loads there with ``map_location``)."""
    losses, accuracy = sparrow["run"](weights, weights.parent / "sim.pt", device="sim")
    np.testing.assert_allclose(losses, sparrow_run[0], rtol=1e-12)
    assert accuracy == sparrow_run[1]


@pytest.mark.slow
def test_losses_agree_with_pytorch(weights: Path, sparrow_printed: tuple) -> None:
    """PyTorch runs the unchanged script from the same weights in the same batch order:
    each step's loss agrees to 1e-6 relative, and so do the test accuracy and the epochs'
    printed lines."""
    torch = pytest.importorskip("torch")
    script = load_script(TORCH_LINE)
    with torch.random.fork_rng():  # Net() draws weights (then overwritten) from torch's RNG
        losses, accuracy, printed = run_printing(script, weights, "torch.pt")
    assert len(losses) == len(sparrow_printed[0])
    np.testing.assert_allclose(sparrow_printed[0], losses, rtol=RTOL, atol=0)
    assert sparrow_printed[1] == pytest.approx(accuracy)
    assert sparrow_printed[2] == printed

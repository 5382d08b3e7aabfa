"""The environment files agree, everything is pinned, and every make target wraps a
documented `python -m …` command."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.trees import REPO
from tools import setup

PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^;\s]+)\s*(?:;\s*(.+))?$")


def _requirements(path: Path) -> list[tuple[str, str, str | None]]:
    pins = []
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            match = PIN.match(line)
            assert match, f"{path.name}: not pinned with ==: {line!r}"
            pins.append((match[1].lower(), match[2], match[3]))
    return pins


def _for_python_311(pins: list[tuple[str, str, str | None]]) -> dict[str, str]:
    chosen = {}
    for name, version, marker in pins:
        if marker is None or eval(marker, {"python_version": "3.11"}):
            assert name not in chosen, f"{name} is pinned twice for Python 3.11"
            chosen[name] = version
    return chosen


def test_requirements_are_pinned_for_every_supported_python() -> None:
    pins = _requirements(REPO / "requirements.txt")
    for python in ("3.10", "3.11", "3.12", "3.13"):
        names = [n for n, _, m in pins if m is None or eval(m, {"python_version": python})]
        assert len(names) == len(set(names)), f"duplicate pins for Python {python}"
        assert {"numpy", "matplotlib", "jupyterlab", "nbval", "pytest"} <= set(names)


def test_environment_yml_agrees_with_requirements() -> None:
    text = (REPO / "environment.yml").read_text()
    conda_python = re.search(r"^\s*-\s*python=(\S+)", text, re.M)
    assert conda_python and conda_python[1] == "3.11"
    pip_section = re.findall(r"^\s{6}-\s*(\S+==\S+)\s*$", text, re.M)
    yml = {n.lower(): v for n, v in (p.split("==") for p in pip_section)}
    assert yml == _for_python_311(_requirements(REPO / "requirements.txt"))


def test_optional_requirements_are_pinned_and_not_core() -> None:
    core = {n for n, _, _ in _requirements(REPO / "requirements.txt")}
    for extra in ("requirements-gpu.txt", "requirements-oracles.txt"):
        pins = _requirements(REPO / extra)
        assert pins and not core & {n for n, _, _ in pins}
    assert "cupy" not in (REPO / "requirements.txt").read_text()
    assert "torch" not in (REPO / "requirements.txt").read_text()


def _make_targets() -> dict[str, list[str]]:
    targets: dict[str, list[str]] = {}
    current = None
    for line in (REPO / "Makefile").read_text().splitlines():
        if match := re.match(r"^([a-z%-]+):", line):
            current = match[1]
            targets[current] = []
        elif line.startswith("\t") and current:
            targets[current].append(line.strip())
    return targets


def test_make_targets_wrap_python_modules() -> None:
    targets = _make_targets()
    for name in ("setup", "chapter-%", "progress", "lab", "test", "stubs", "update", "reset"):
        assert name in targets, f"make {name} is missing"
        recipe = " ".join(targets[name])
        assert "$(PY) -m " in recipe or "$(SETUP)" in recipe, (name, recipe)


def test_ci_runs_make_test() -> None:
    ci = (REPO / ".ci" / "run").read_text()
    assert "make test" in ci and "set -euo pipefail" in ci


def test_setup_with_an_existing_interpreter_installs_nothing() -> None:
    out = subprocess.run(
        ["make", "-s", "setup", f"PYTHON={sys.executable}"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "nothing installed" in out.stdout and "pip" not in out.stdout


def test_setup_is_idempotent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A venv whose stamp matches the requirements is left alone: no pip, no rebuild."""
    venv = tmp_path / ".venv"
    python = setup.venv_python(venv)
    python.parent.mkdir(parents=True)
    python.symlink_to(sys.executable)
    monkeypatch.setattr(setup, "REPO", tmp_path)
    (venv / setup.STAMP_NAME).write_text(setup._fingerprint() + "\n")
    monkeypatch.setattr(setup, "_run", lambda command: pytest.fail(f"ran {command}"))
    assert setup.setup(venv, quiet=True) == 0


def test_setup_refuses_an_old_python(monkeypatch: pytest.MonkeyPatch, capsys, tmp_path) -> None:
    monkeypatch.setattr(setup, "MINIMUM", (99, 0))
    assert setup.setup(tmp_path / ".venv") == 1
    assert "needs Python 99.0 or newer" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("makefile", "readme"),
    [("Makefile", "README.md"), ("tools/release_files/Makefile", "tools/release_files/README.md")],
)
def test_every_make_target_is_in_the_readmes_command_table(makefile: str, readme: str) -> None:
    rows = re.findall(r"^\| `make ([\w-]+)[^|]*\| `([^`]*)`", (REPO / readme).read_text(), re.M)
    table = {name.replace("chapter-N", "chapter-%"): python for name, python in rows}
    for line in (REPO / makefile).read_text().splitlines():
        if (target := re.match(r"^([a-z%-]+):", line)) and target[1] not in ("help", "env"):
            assert target[1] in table, f"{readme}: no row for make {target[1]}"
    for name, python in table.items():
        module = re.match(r"python3? -m ([\w.]+)", python)
        assert module, f"{readme}: make {name} has no `python -m …` command"


def test_the_autograder_never_imports_the_tools() -> None:
    """tools/ is a layer above the autograder (the release ships only some of it): what
    both need lives in the autograder (autograder/stubgen.py)."""

    def imports_tools(path: Path) -> bool:  # an import statement, not text that holds one
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            if any(name == "tools" or name.startswith("tools.") for name in names):
                return True
        return False

    found = [
        path.relative_to(REPO).as_posix()
        for path in sorted((REPO / "autograder").rglob("*.py"))
        if imports_tools(path)
    ]
    assert found == []


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("makefile", ["Makefile", "tools/release_files/Makefile"])
@pytest.mark.parametrize(("uid", "flag"), [("0", True), ("1000", False)])
def test_make_lab_passes_allow_root_only_as_root(
    makefile: str, uid: str, flag: bool, tmp_path: Path
) -> None:
    """JupyterLab refuses root without --allow-root (containers, Colab-like machines)."""
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "id").write_text(f"#!/bin/sh\necho {uid}\n")
    (shim / "id").chmod(0o755)
    env = {**os.environ, "PATH": f"{shim}{os.pathsep}{os.environ['PATH']}"}
    out = subprocess.run(
        ["make", "-n", "-f", str(REPO / makefile), "lab", f"PYTHON={sys.executable}"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    line = next(x for x in out.stdout.splitlines() if "-m jupyterlab" in x)
    assert ("--allow-root" in line) == flag, line

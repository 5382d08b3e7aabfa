"""Set up the course environment: a ``.venv`` with the pinned requirements, and the
repository root importable from any folder (a ``.pth`` file in the venv, so the trees are
never pip-installed).

    python3 -m tools.setup              # create or update .venv (what `make setup` runs)
    python3 -m tools.setup --current    # use this interpreter as it is: install nothing

Idempotent: when ``.venv`` already matches ``requirements.txt`` it says so and returns at
once. A failed install leaves no "done" stamp, so the next run tries again.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
REQUIREMENTS = REPO / "requirements.txt"
VENV = REPO / ".venv"
STAMP_NAME = ".sparrow-setup"
PTH_NAME = "sparrow-course.pth"
MINIMUM = (3, 10)
CORE = ("numpy", "matplotlib", "pytest")


def venv_python(root: Path = VENV) -> Path:
    return root / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _fingerprint() -> str:
    digest = hashlib.sha256(REQUIREMENTS.read_bytes())
    digest.update(sys.version.encode())
    digest.update(str(REPO).encode())
    return digest.hexdigest()


def _run(command: list[str]) -> None:
    print("$", " ".join(command), flush=True)
    subprocess.run(command, check=True)


def _site_packages(python: Path) -> Path:
    out = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    )
    return Path(out.stdout.strip())


def _works(python: Path) -> bool:
    try:
        return subprocess.run([str(python), "-c", "pass"], capture_output=True).returncode == 0
    except OSError:
        return False


def setup(root: Path = VENV, *, quiet: bool = False) -> int:
    if sys.version_info < MINIMUM:
        print(
            f"Sparrow needs Python {'.'.join(map(str, MINIMUM))} or newer; this is "
            f"{sys.version.split()[0]} ({sys.executable}). Run the set-up with a newer "
            "python3, e.g. `make setup BOOTSTRAP=python3.11`.",
            file=sys.stderr,
        )
        return 1
    stamp = root / STAMP_NAME
    python = venv_python(root)
    if stamp.is_file() and stamp.read_text().strip() == _fingerprint() and _works(python):
        if not quiet:
            version = sys.version.split()[0]
            print(f"environment up to date ({root.relative_to(REPO)}, Python {version})")
        return 0
    if root.exists() and not _works(python):
        print(f"{root} exists but its Python does not start; making it again")
        shutil.rmtree(root)
    if not root.exists():
        print(f"creating {root.relative_to(REPO)} with {sys.executable}")
        try:
            venv.EnvBuilder(with_pip=True).create(root)
        except (subprocess.CalledProcessError, OSError) as exc:
            shutil.rmtree(root, ignore_errors=True)
            print(
                f"could not create a virtual environment: {exc}\nOn Debian or Ubuntu, "
                "`apt install python3-venv` provides what `python3 -m venv` needs.",
                file=sys.stderr,
            )
            return 1
    stamp.unlink(missing_ok=True)
    try:
        _run(
            [
                str(python),
                "-m",
                "pip",
                "install",
                "--disable-pip-version-check",
                "-q",
                "-r",
                str(REQUIREMENTS),
            ]
        )
    except subprocess.CalledProcessError:
        print(
            "\npip could not install the requirements (see above). Nothing is marked as "
            "done; run `make setup` again once the problem is fixed (a network problem?).",
            file=sys.stderr,
        )
        return 1
    (_site_packages(python) / PTH_NAME).write_text(str(REPO) + "\n")
    stamp.write_text(_fingerprint() + "\n")
    print(f"ready: {root.relative_to(REPO)} (the repository root is importable anywhere)")
    return 0


def use_current(*, quiet: bool = False) -> int:
    """Check that this interpreter has what the course needs; install nothing."""
    missing = []
    for name in CORE:
        try:
            __import__(name)
        except ImportError:
            missing.append(name)
    if missing:
        print(
            f"{sys.executable} lacks {', '.join(missing)}: `pip install -r requirements.txt` "
            "into it, or drop PYTHON=… to let `make setup` build .venv",
            file=sys.stderr,
        )
        return 1
    where = sysconfig.get_paths()["purelib"]
    if not quiet:
        print(f"using {sys.executable} as it is (nothing installed; site-packages: {where})")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.setup", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--current",
        action="store_true",
        help="use the running interpreter as it is; install nothing",
    )
    parser.add_argument("--quiet", action="store_true", help="say nothing when all is ready")
    args = parser.parse_args(argv)
    return use_current(quiet=args.quiet) if args.current else setup(quiet=args.quiet)


if __name__ == "__main__":
    sys.exit(main())

"""Datasets for the notebooks: small generators, and loaders for the files under ``datasets/``.

Generators (``make_moons``) are seeded, so a notebook gets the same points on every machine.
Shipped files are NumPy ``.npz`` archives listed in ``datasets/MANIFEST.sha256``, one
``sha256sum``-style line per file (``<64 hex digits>  <file name>``); ``load`` refuses a file
whose checksum does not match, so a corrupt or edited file fails loudly instead of quietly
changing a result. Maintainers rebuild every shipped file with::

    python -m support.datasets build

The archives are written byte for byte reproducibly (fixed zip timestamps, no compression), so
rebuilding on any machine gives the same checksums.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import math
import numbers
import os
import re
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

_REPO_ROOT = Path(__file__).resolve().parent.parent
DATA_DIR: Path = _REPO_ROOT / "datasets"
MANIFEST_NAME = "MANIFEST.sha256"

_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
_MANIFEST_LINE_RE = re.compile(r"([0-9a-f]{64}) [ *](\S+)")


class ChecksumError(ValueError):
    """A shipped data file's SHA-256 differs from the one in the manifest."""


# --------------------------------------------------------------------------------------------
# Generators
# --------------------------------------------------------------------------------------------


def make_moons(
    n_samples: int = 100, noise: float = 0.1, seed: int | None = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Two interleaving half circles in the plane, labelled 0 (outer) and 1 (inner).

    The same construction as scikit-learn's ``make_moons``: with t evenly spaced in [0, π],
    class 0 is (cos t, sin t) and class 1 is (1 - cos t, 1 - sin t - 0.5); class 0 gets
    ``n_samples // 2`` points and class 1 the rest. The points are shuffled, then Gaussian
    noise of standard deviation ``noise`` is added, both drawn from
    ``numpy.random.default_rng(seed)``, so the result depends on ``seed`` only.

    Returns ``X`` (float64, shape (n_samples, 2)) and ``y`` (int64, shape (n_samples,)).
    The classes cannot be separated by a straight line, which is why a network needs a
    hidden layer to fit them.
    """
    if isinstance(n_samples, bool) or not isinstance(n_samples, numbers.Integral):
        raise TypeError(
            f"make_moons: n_samples must be a positive int, got {type(n_samples).__name__} "
            f"{n_samples!r}"
        )
    if n_samples < 1:
        raise ValueError(f"make_moons: n_samples must be a positive int, got {n_samples}")
    if isinstance(noise, bool) or not isinstance(noise, numbers.Real):
        raise TypeError(
            f"make_moons: noise must be a number >= 0, got {type(noise).__name__} {noise!r}"
        )
    if not (math.isfinite(noise) and noise >= 0):
        raise ValueError(f"make_moons: noise must be a finite number >= 0, got {noise}")

    n_out = int(n_samples) // 2
    n_in = int(n_samples) - n_out
    t_out = np.linspace(0.0, np.pi, n_out)
    t_in = np.linspace(0.0, np.pi, n_in)
    X = np.concatenate(
        [
            np.stack([np.cos(t_out), np.sin(t_out)], axis=1),
            np.stack([1.0 - np.cos(t_in), 1.0 - np.sin(t_in) - 0.5], axis=1),
        ]
    )
    y = np.concatenate([np.zeros(n_out, dtype=np.int64), np.ones(n_in, dtype=np.int64)])

    rng = np.random.default_rng(seed)
    order = rng.permutation(n_samples)
    X, y = X[order], y[order]
    X = X + rng.normal(scale=float(noise), size=X.shape)
    return X.astype(np.float64, copy=False), y


# The shipped files: name -> function returning the arrays to store. `build` writes them all.
_BUILDERS: dict[str, Callable[[], dict[str, np.ndarray]]] = {
    "moons": lambda: dict(zip(("X", "y"), make_moons(200, noise=0.1, seed=0), strict=True)),
}


# --------------------------------------------------------------------------------------------
# Loading shipped files
# --------------------------------------------------------------------------------------------


def _show(path: Path) -> str:
    """``path`` as a reader would type it: relative to the repository root when inside it."""
    try:
        return path.resolve().relative_to(_REPO_ROOT).as_posix()
    except ValueError:
        return path.as_posix()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _read_manifest(data_dir: Path) -> dict[str, str]:
    """File name -> expected SHA-256 hex digest, from ``data_dir/MANIFEST.sha256``."""
    manifest = data_dir / MANIFEST_NAME
    if not manifest.is_file():
        raise FileNotFoundError(
            f"{_show(manifest)} is missing; restore it from git or rebuild the shipped files "
            f"with `python -m support.datasets build`"
        )
    entries: dict[str, str] = {}
    for number, line in enumerate(manifest.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        match = _MANIFEST_LINE_RE.fullmatch(line.strip())
        if match is None:
            raise ValueError(
                f"{_show(manifest)} line {number} is not '<sha256 hex>  <file name>': {line!r}"
            )
        entries[match.group(2)] = match.group(1)
    return entries


def load(name: str) -> dict[str, np.ndarray]:
    """Load the shipped dataset ``datasets/<name>.npz`` as a dict of arrays.

    The file's SHA-256 is checked against ``datasets/MANIFEST.sha256`` first; the names that
    can be loaded are the ``.npz`` files listed there. Raises ``ValueError`` for an unknown
    name, ``FileNotFoundError`` for a missing file and ``ChecksumError`` (a ``ValueError``)
    for a file whose contents changed.
    """
    data_dir = Path(DATA_DIR)
    manifest = _read_manifest(data_dir)
    known = sorted(f[: -len(".npz")] for f in manifest if f.endswith(".npz"))
    filename = f"{name}.npz"
    if not isinstance(name, str) or filename not in manifest:
        raise ValueError(
            f"unknown dataset {name!r}; the known ones are: {', '.join(known) or '(none)'} "
            f"(listed in {_show(data_dir / MANIFEST_NAME)})"
        )
    path = data_dir / filename
    if not path.is_file():
        raise FileNotFoundError(
            f"{_show(path)} is missing; restore it with `git checkout -- {_show(path)}` or "
            f"rebuild it with `python -m support.datasets build`"
        )
    expected, actual = manifest[filename], _sha256(path)
    if actual != expected:
        raise ChecksumError(
            f"{_show(path)} is corrupt or was changed: expected sha256 {expected}, got {actual}; "
            f"restore it with `git checkout -- {_show(path)}` or rebuild it with "
            f"`python -m support.datasets build`"
        )
    with np.load(path, allow_pickle=False) as archive:
        return {key: archive[key] for key in archive.files}


# --------------------------------------------------------------------------------------------
# Writing shipped files (maintainers)
# --------------------------------------------------------------------------------------------


def _atomic_write_bytes(path: Path, payload: bytes) -> None:
    """Write ``payload`` to ``path`` so that readers see the old file or the new, never half.

    The bytes go to a temporary file in the same folder (same file system), which is flushed
    to disk and then renamed over ``path`` with ``os.replace`` (atomic on POSIX and Windows).
    """
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp_name, 0o644)
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise


def _npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """The arrays as an ``.npz`` archive, byte for byte the same on every run and machine.

    ``numpy.savez`` stamps each member with the current time; here every member gets a fixed
    date and is stored uncompressed (compressed bytes can differ between zlib builds).
    """
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        for key, array in arrays.items():
            member = io.BytesIO()
            np.lib.format.write_array(member, array, allow_pickle=False)
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.create_system = 3  # "Unix", whatever machine writes the file
            info.external_attr = 0o644 << 16
            archive.writestr(info, member.getvalue())
    return buffer.getvalue()


def write(name: str, **arrays: np.ndarray) -> Path:
    """Write ``datasets/<name>.npz`` holding ``arrays`` and record its SHA-256 in the manifest.

    For maintainers (``python -m support.datasets build`` calls it). Both the archive and the
    manifest are replaced atomically, so an interrupted write leaves the previous version.
    Object arrays are refused: ``load`` reads with ``allow_pickle=False``.
    """
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
        raise ValueError(
            f"dataset name must be letters, digits, '_' or '-' (no extension), got {name!r}"
        )
    if not arrays:
        raise ValueError(f"write({name!r}) needs at least one array, e.g. write(name, X=X, y=y)")
    converted = {key: np.asarray(value) for key, value in arrays.items()}
    for key, array in converted.items():
        if array.dtype.hasobject:
            raise ValueError(
                f"write({name!r}): array {key!r} has dtype object, which cannot be loaded "
                f"without pickle; convert it to a numeric or string dtype"
            )

    data_dir = Path(DATA_DIR)
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / f"{name}.npz"
    payload = _npz_bytes(converted)
    _atomic_write_bytes(path, payload)

    manifest = data_dir / MANIFEST_NAME
    entries = _read_manifest(data_dir) if manifest.exists() else {}
    entries[path.name] = hashlib.sha256(payload).hexdigest()
    lines = "".join(f"{digest}  {filename}\n" for filename, digest in sorted(entries.items()))
    _atomic_write_bytes(manifest, lines.encode("utf-8"))
    return path


def build(names: Sequence[str] | None = None) -> list[Path]:
    """(Re)build the shipped files (all of them when ``names`` is None); return their paths."""
    names = list(_BUILDERS) if not names else list(names)
    unknown = [n for n in names if n not in _BUILDERS]
    if unknown:
        raise ValueError(f"no builder for {unknown}; the shipped datasets are {list(_BUILDERS)}")
    return [write(name, **_BUILDERS[name]()) for name in names]


def _main(argv: Sequence[str] | None = None) -> int:
    global DATA_DIR
    parser = argparse.ArgumentParser(
        prog="python -m support.datasets", description="Maintain the files under datasets/."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    build_cmd = commands.add_parser("build", help="(re)build the shipped data files")
    build_cmd.add_argument(
        "names", nargs="*", help=f"which ones (default: all of {list(_BUILDERS)})"
    )
    build_cmd.add_argument(
        "--data-dir", type=Path, default=None, help="write here instead of datasets/"
    )
    args = parser.parse_args(argv)
    if args.data_dir is not None:
        DATA_DIR = args.data_dir
    try:
        paths = build(args.names)
    except ValueError as error:
        parser.error(str(error))
    for path in paths:
        print(f"wrote {_show(path)}  sha256 {_sha256(path)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())

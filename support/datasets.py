"""Datasets for the notebooks: seeded generators, and loaders for the files under ``datasets/``.

Generators (``make_moons``, ``make_spirals``, ``make_blobs``, ``make_linear_regression``)
draw from ``numpy.random.default_rng(seed)``, so a notebook gets the same points on every
machine. ``load(name)`` reads a shipped file (or, for ``"mnist"``, downloads on request):

==========  ===================================================================================
name        what ``load(name)`` returns
==========  ===================================================================================
moons       ``X`` float64 (200, 2), ``y`` int64 (200,): ``make_moons(200, 0.1, seed=0)``
digits      UCI optdigits 8×8 digits, 1,438 train / 359 test (stratified 80/20, seed 0)
mnist5k     5,000 MNIST digits 28×28, 4,000 train / 1,000 test (400 / 100 per class, seed 0)
mnist       the full MNIST, 60,000 / 10,000, downloaded by ``support.mnist.fetch_mnist``
names       ``words``: 5,163 US-census first names, lower-case a-z, sorted (``load_names()``:
            the same as a list of str)
botchan     ``text``: uint8 (254781,), the ASCII codes of the novel *Botchan* (Natsume Sōseki,
            tr. Y. Morri, 1919; Project Gutenberg, public domain): ``load_corpus()`` gives it
            as a str
==========  ===================================================================================

The image sets come as ``{"x_train", "y_train", "x_test", "y_test"}``: images float32 of
shape (N, H, W) with pixels scaled to [0, 1] (0 = background, 1 = full ink), labels int64
digits 0..9 (the dtype PyTorch's ``cross_entropy`` takes); flatten with
``x.reshape(len(x), -1)`` for an MLP.

Shipped files are NumPy ``.npz`` archives listed in ``datasets/MANIFEST.sha256``, one
``sha256sum``-style line per file (``<64 hex digits>  <file name>``); ``load`` refuses a file
whose checksum does not match, so a corrupt or edited file fails loudly instead of quietly
changing a result. ``python -m support.build_datasets`` (the repository's datasets target)
rebuilds every shipped file from its source and verifies it against the manifest; ``python
-m support.datasets build`` rewrites only the generated ones (moons), offline.

The archives are written byte for byte reproducibly (fixed member order, fixed zip
timestamps; moons uncompressed, the image sets deflated at level 9), so rebuilding gives the
same checksums.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
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


def _check_count(function: str, argument: str, value: object, minimum: int = 1) -> int:
    """``value`` as an int >= ``minimum``, or the TypeError/ValueError that names it."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"{function}: {argument} must be a positive int, got {type(value).__name__} {value!r}"
        )
    if value < minimum:
        raise ValueError(f"{function}: {argument} must be a positive int >= {minimum}, got {value}")
    return int(value)


def _check_noise(function: str, argument: str, value: object) -> float:
    """``value`` as a finite float >= 0, or the TypeError/ValueError that names it."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{function}: {argument} must be a number >= 0, got {type(value).__name__} {value!r}"
        )
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{function}: {argument} must be a finite number >= 0, got {value}")
    return float(value)


def _class_sizes(n_samples: int, n_classes: int) -> list[int]:
    """``n_samples`` shared out as evenly as possible: the first ``n_samples % n_classes``
    classes get one point more (the rule scikit-learn's ``make_blobs`` uses)."""
    return [n_samples // n_classes + (c < n_samples % n_classes) for c in range(n_classes)]


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
    n_samples = _check_count("make_moons", "n_samples", n_samples)
    noise = _check_noise("make_moons", "noise", noise)

    n_out = n_samples // 2
    n_in = n_samples - n_out
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
    X = X + rng.normal(scale=noise, size=X.shape)
    return X.astype(np.float64, copy=False), y


def make_spirals(
    n_samples: int = 300, n_classes: int = 3, noise: float = 0.2, seed: int | None = 0
) -> tuple[np.ndarray, np.ndarray]:
    """``n_classes`` interleaved spiral arms in the plane (the CS231n spiral), one per class.

    Class c gets ``_class_sizes`` points (as even as possible; earlier classes get the
    remainder). Along arm c, with r evenly spaced in [0, 1] (distance from the centre) and
    θ = 4c + 4r + noise·ε, ε ~ N(0, 1), a point is (r sin θ, r cos θ): each arm turns through
    4 radians, and the arms start 4 radians apart. The points are shuffled; angles' noise
    and the shuffle come from ``numpy.random.default_rng(seed)``.

    Returns ``X`` (float64, shape (n_samples, 2), inside the unit disc) and ``y`` (int64,
    shape (n_samples,), labels 0..n_classes-1). No straight line separates any arm.
    """
    n_samples = _check_count("make_spirals", "n_samples", n_samples)
    n_classes = _check_count("make_spirals", "n_classes", n_classes)
    noise = _check_noise("make_spirals", "noise", noise)
    if n_samples < n_classes:
        raise ValueError(
            f"make_spirals: n_samples ({n_samples}) must be at least n_classes ({n_classes})"
        )

    rng = np.random.default_rng(seed)
    sizes = _class_sizes(n_samples, n_classes)
    r = np.concatenate([np.linspace(0.0, 1.0, size) for size in sizes])
    y = np.repeat(np.arange(n_classes, dtype=np.int64), sizes)
    theta = 4.0 * y + 4.0 * r + noise * rng.standard_normal(n_samples)
    X = np.stack([r * np.sin(theta), r * np.cos(theta)], axis=1)
    order = rng.permutation(n_samples)
    return X[order], y[order]


def make_blobs(
    n_samples: int = 300,
    centers: int | np.ndarray = 3,
    n_features: int = 2,
    cluster_std: float = 1.0,
    seed: int | None = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian blobs: class c is N(center_c, cluster_std² I) in ``n_features`` dimensions.

    ``centers`` is the number of classes k (the centres are then drawn uniformly from the
    box [-10, 10]^n_features, as scikit-learn's ``make_blobs`` does) or a (k, n_features)
    array of centres. Class c gets ``_class_sizes`` points (as even as possible; earlier
    classes get the remainder); the points are shuffled. Everything random comes from
    ``numpy.random.default_rng(seed)``.

    Returns ``X`` (float64, shape (n_samples, n_features)) and ``y`` (int64, shape
    (n_samples,), labels 0..k-1).
    """
    n_samples = _check_count("make_blobs", "n_samples", n_samples)
    cluster_std = _check_noise("make_blobs", "cluster_std", cluster_std)
    rng = np.random.default_rng(seed)
    if isinstance(centers, numbers.Integral) and not isinstance(centers, bool):
        n_features = _check_count("make_blobs", "n_features", n_features)
        k = _check_count("make_blobs", "centers", centers)
        middles = rng.uniform(-10.0, 10.0, size=(k, n_features))
    else:
        middles = np.asarray(centers, dtype=np.float64)
        if middles.ndim != 2 or middles.shape[0] < 1 or not np.isfinite(middles).all():
            raise ValueError(
                f"make_blobs: centers must be an int or a finite (k, n_features) array, "
                f"got shape {middles.shape}"
            )
        k = middles.shape[0]
    if n_samples < k:
        raise ValueError(f"make_blobs: n_samples ({n_samples}) must be at least centers ({k})")

    y = np.repeat(np.arange(k, dtype=np.int64), _class_sizes(n_samples, k))
    X = middles[y] + cluster_std * rng.standard_normal((n_samples, middles.shape[1]))
    order = rng.permutation(n_samples)
    return X[order], y[order]


def make_linear_regression(
    n_samples: int = 100,
    weight: Sequence[float] = (2.0,),
    bias: float = -1.0,
    noise: float = 0.1,
    seed: int | None = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Points on a known hyperplane plus noise: y = X w + b + noise·ε, ε ~ N(0, 1).

    The inputs are uniform in [-1, 1]^d, d = ``len(weight)``; the true ``weight`` and
    ``bias`` are the arguments, so a fitted model can be compared with them (with noise
    σ, least squares recovers w to within about σ/√n_samples per coordinate). Everything
    random comes from ``numpy.random.default_rng(seed)``.

    Returns ``X`` (float64, shape (n_samples, d)) and ``y`` (float64, shape (n_samples,));
    a model with output shape (n_samples, 1) compares with ``y[:, None]``.
    """
    n_samples = _check_count("make_linear_regression", "n_samples", n_samples)
    noise = _check_noise("make_linear_regression", "noise", noise)
    w = np.asarray(weight, dtype=np.float64)
    if w.ndim != 1 or w.size < 1 or not np.isfinite(w).all():
        raise ValueError(
            f"make_linear_regression: weight must be a non-empty sequence of finite numbers, "
            f"got {weight!r}"
        )
    if isinstance(bias, bool) or not isinstance(bias, numbers.Real):
        raise TypeError(f"make_linear_regression: bias must be a number, got {bias!r}")
    if not math.isfinite(bias):
        raise ValueError(f"make_linear_regression: bias must be finite, got {bias}")

    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n_samples, w.size))
    y = X @ w + float(bias) + noise * rng.standard_normal(n_samples)
    return X, y


# The generated shipped files: name -> function returning the arrays to store.
# `python -m support.datasets build` writes them; `support.build_datasets` also rebuilds the
# files that come from published wheels (digits, mnist5k).
GENERATED: dict[str, Callable[[], dict[str, np.ndarray]]] = {
    "moons": lambda: dict(zip(("X", "y"), make_moons(200, noise=0.1, seed=0), strict=True)),
}


# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------

REBUILD = "python -m support.build_datasets"  # rebuild and verify from sources


def _show(path: Path) -> str:
    """``path`` as a reader would type it: relative to the repository root when inside it."""
    try:
        return path.resolve().relative_to(_REPO_ROOT).as_posix()
    except ValueError:
        return path.as_posix()


def file_sha256(path: Path) -> str:
    """The SHA-256 hex digest of the file at ``path``."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_manifest(data_dir: Path | None = None) -> dict[str, str]:
    """File name -> expected SHA-256 hex digest, from ``MANIFEST.sha256`` in ``data_dir``
    (default ``DATA_DIR``, i.e. ``datasets/``)."""
    manifest = Path(DATA_DIR if data_dir is None else data_dir) / MANIFEST_NAME
    if not manifest.is_file():
        raise FileNotFoundError(
            f"{_show(manifest)} is missing; restore it with `git checkout -- {_show(manifest)}`"
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


def _as_images(arrays: dict[str, np.ndarray], max_value: int) -> dict[str, np.ndarray]:
    """Stored uint8 images (0..max_value) and uint8 labels -> float32 x / max_value in [0, 1]
    and int64 labels, for each of train and test."""
    out: dict[str, np.ndarray] = {}
    for split in ("train", "test"):
        out[f"x_{split}"] = arrays[f"x_{split}"].astype(np.float32) / np.float32(max_value)
        out[f"y_{split}"] = arrays[f"y_{split}"].astype(np.int64)
    return out


def _as_words(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Stored ASCII bytes (dtype ``S``) -> str (dtype ``U``)."""
    return {"words": arrays["words"].astype(np.str_)}


def _full_mnist() -> dict[str, np.ndarray]:
    """The full MNIST, downloaded (once, then cached) by ``support.mnist.fetch_mnist``."""
    from support.mnist import fetch_mnist  # imported here: loading a shipped file needs no network

    return _as_images(fetch_mnist(), max_value=255)


# How each name's stored arrays become what ``load`` returns (a name not listed here, e.g.
# moons, comes back as stored). Pixels are stored as uint8 grey levels: 0..16 for optdigits,
# 0..255 for MNIST.
_CONVERT: dict[str, Callable[[dict[str, np.ndarray]], dict[str, np.ndarray]]] = {
    "digits": functools.partial(_as_images, max_value=16),
    "mnist5k": functools.partial(_as_images, max_value=255),
    "names": _as_words,
}
# Names that are not shipped files but fetched on request.
_DOWNLOADED: dict[str, Callable[[], dict[str, np.ndarray]]] = {"mnist": _full_mnist}


def load(name: str) -> dict[str, np.ndarray]:
    """Load the dataset ``name`` as a dict of arrays (the table in this module's docstring).

    ``moons``: ``X``, ``y`` as stored. ``digits``, ``mnist5k`` and ``mnist``: ``x_train``,
    ``y_train``, ``x_test``, ``y_test``, images float32 (N, H, W) scaled to [0, 1] and labels
    int64. ``names``: ``words``, a str array (``load_names`` gives it as a list). A shipped
    file ``datasets/<name>.npz`` is checked against
    ``datasets/MANIFEST.sha256`` first; the names that can be loaded are the ``.npz`` files
    listed there, and ``mnist`` (downloaded on request by ``support.mnist``, never shipped).
    Raises ``ValueError`` for an unknown name, ``FileNotFoundError`` for a missing file and
    ``ChecksumError`` (a ``ValueError``) for a file whose contents changed.
    """
    if isinstance(name, str) and name in _DOWNLOADED:
        return _DOWNLOADED[name]()
    data_dir = Path(DATA_DIR)
    manifest = read_manifest(data_dir)
    filename = f"{name}.npz"
    unlisted = isinstance(name, str) and _NAME_RE.fullmatch(name) and filename not in manifest
    if unlisted and (data_dir / filename).is_file():
        raise ChecksumError(
            f"{_show(data_dir / filename)} is not listed in {_show(data_dir / MANIFEST_NAME)}, so "
            f"it cannot be verified; restore the manifest with `git checkout -- "
            f"{_show(data_dir / MANIFEST_NAME)}` (or record a file you made on purpose with "
            f"support.datasets.write)"
        )
    if not isinstance(name, str) or filename not in manifest:
        known = sorted([f[: -len(".npz")] for f in manifest if f.endswith(".npz")] + [*_DOWNLOADED])
        raise ValueError(
            f"unknown dataset {name!r}; the known ones are: {', '.join(known)} "
            f"(the files listed in {_show(data_dir / MANIFEST_NAME)}, and {', '.join(_DOWNLOADED)}"
            f" downloaded on request)"
        )
    path = data_dir / filename
    restore = f"restore it with `git checkout -- {_show(path)}` or rebuild it with `{REBUILD}`"
    if not path.is_file():
        raise FileNotFoundError(f"{_show(path)} is missing; {restore}")
    expected, actual = manifest[filename], file_sha256(path)
    if actual != expected:
        raise ChecksumError(
            f"{_show(path)} is corrupt or was changed: expected sha256 {expected}, got {actual}; "
            f"{restore}"
        )
    with np.load(path, allow_pickle=False) as archive:
        arrays = {key: archive[key] for key in archive.files}
    convert = _CONVERT.get(name)
    return convert(arrays) if convert is not None else arrays


def load_names() -> list[str]:
    """The names list as a list of str: 5,163 distinct first names of the 1990 US census
    (lower-case, letters a-z only, 2 to 11 letters, sorted), read offline from
    ``datasets/names.npz`` with its checksum verified (``load("names")["words"]``).

    Makemore trains on a list of 32,033 names; this one is smaller, public-domain data
    shipped with the course (see ``datasets/README.md``).
    """
    return load("names")["words"].tolist()


CORPUS = "botchan"  # the text the GPT capstone (chapter 9) trains on


def load_corpus(name: str = CORPUS) -> str:
    """The text corpus ``name`` as one str, read offline from ``datasets/<name>.npz`` with
    its checksum verified: *Botchan* by Natsume Sōseki in Yasotaro Morri's 1919 English
    translation (Project Gutenberg eBook #8868, public domain in the US), 254,781 ASCII
    characters of 77 kinds, lines ending in LF, the Gutenberg header and footer stripped
    (``datasets/README.md`` says exactly what was kept)."""
    return load(name)["text"].tobytes().decode("ascii")


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


def archive_bytes(arrays: dict[str, np.ndarray], *, compress: bool = False) -> bytes:
    """The arrays as an ``.npz`` archive, byte for byte the same on every run.

    ``numpy.savez`` stamps each member with the current time; here the members follow the
    dict's order, each with a fixed date (1980-01-01) and Unix permissions 0644. They are
    stored uncompressed, or with ``compress=True`` deflated at level 9 by zlib, whose output
    the reference zlib has kept stable for years; a different deflate implementation
    (zlib-ng) may pick other, equally valid, bytes for the same arrays.
    """
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for key, array in arrays.items():
            member = io.BytesIO()
            np.lib.format.write_array(member, np.asarray(array), allow_pickle=False)
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.create_system = 3  # "Unix", whatever machine writes the file
            info.external_attr = 0o644 << 16
            info.compress_type = method
            archive.writestr(info, member.getvalue(), compresslevel=9 if compress else None)
    return buffer.getvalue()


def write(name: str, /, *, compress: bool = False, **arrays: np.ndarray) -> Path:
    """Write ``datasets/<name>.npz`` holding ``arrays`` and record its SHA-256 in the manifest.

    For maintainers (``python -m support.datasets build`` and ``support.build_datasets``
    call it); ``compress`` deflates the members (see ``archive_bytes``). Both the archive and
    the manifest are replaced atomically, so an interrupted write leaves the previous
    version. Object arrays are refused: ``load`` reads with ``allow_pickle=False``.
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
    payload = archive_bytes(converted, compress=compress)
    _atomic_write_bytes(path, payload)

    manifest = data_dir / MANIFEST_NAME
    entries = read_manifest(data_dir) if manifest.exists() else {}
    entries[path.name] = hashlib.sha256(payload).hexdigest()
    lines = "".join(f"{digest}  {filename}\n" for filename, digest in sorted(entries.items()))
    _atomic_write_bytes(manifest, lines.encode("utf-8"))
    return path


def build(names: Sequence[str] | None = None) -> list[Path]:
    """(Re)build the generated shipped files (all of them when ``names`` is None), offline;
    return their paths. The files made from published data (digits, mnist5k) are rebuilt by
    ``python -m support.build_datasets``."""
    names = list(GENERATED) if not names else list(names)
    unknown = [n for n in names if n not in GENERATED]
    if unknown:
        raise ValueError(
            f"no builder for {unknown}; the generated datasets are {list(GENERATED)} "
            f"(rebuild the others with `{REBUILD}`)"
        )
    return [write(name, **GENERATED[name]()) for name in names]


def _main(argv: Sequence[str] | None = None) -> int:
    global DATA_DIR
    parser = argparse.ArgumentParser(
        prog="python -m support.datasets", description="Maintain the files under datasets/."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    build_cmd = commands.add_parser("build", help="(re)build the generated data files (moons)")
    build_cmd.add_argument(
        "names", nargs="*", help=f"which ones (default: all of {list(GENERATED)})"
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
        print(f"wrote {_show(path)}  sha256 {file_sha256(path)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())

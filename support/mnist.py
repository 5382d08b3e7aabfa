"""Full MNIST on request: download the four IDX files, verify them, cache them, parse them.

MNIST is 60,000 training and 10,000 test images of handwritten digits, 28 × 28 grey levels
(0 = background, 255 = ink), in four gzipped IDX files of about 11 MB together. They are
not shipped with the course (``datasets/`` holds the 5,000-digit subset); ``fetch_mnist()``
downloads them once into a cache folder and reads them from there afterwards::

    from support.mnist import fetch_mnist

    data = fetch_mnist()   # {"x_train": (60000, 28, 28) uint8, "y_train": (60000,) int64, ...}

How a file gets into the cache, and why the cache is never corrupt:

1. A cached file whose SHA-256 matches the table below is used as it is (never downloaded
   again). A cached file whose SHA-256 does not match is renamed to ``<name>.corrupt`` (kept
   for the user to look at, never under its final name) and downloaded again.
2. Otherwise the mirrors are tried in order. Each download streams into a temporary file in
   the cache folder (``.<name>.<random>.part``), hashing as it goes; a download whose
   announced Content-Length is not the file's size (refused before any byte is read), that
   ends short or runs past that size, that is too slow (on average under ``min_speed``'s
   bytes per second once its grace seconds have passed), or whose SHA-256 differs is thrown
   away and the next mirror is tried. Only a complete, verified file is renamed to its final name
   (``os.replace``, atomic), so a reader sees the whole file or none.
3. When every mirror fails, ``MnistDownloadError`` says what failed at each mirror and
   where to put the four files by hand.

The cache folder is ``$SPARROW_DATA/mnist`` when ``SPARROW_DATA`` is set, otherwise
``$XDG_CACHE_HOME/sparrow/mnist`` (``~/.cache/sparrow/mnist`` when ``XDG_CACHE_HOME`` is
unset). The checksums are the SHA-256 sums of the gzipped files, as published by many
projects that verify MNIST (the same bytes as torchvision's MD5-checked files).

The IDX format (LeCun's): a 4-byte magic number, two zero bytes, a type byte (0x08 =
unsigned byte) and the number of dimensions d, then d big-endian uint32 sizes, then the
values in C order. Images are ``0x00000803`` (ubyte, 3 dimensions: n, rows, cols), labels
``0x00000801`` (ubyte, 1 dimension: n).
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import hashlib
import http.client
import os
import socket
import ssl
import struct
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from .datasets import file_sha256


@dataclass(frozen=True)
class MnistFile:
    """One of the four files: the key ``fetch_mnist`` returns it under, its name, its SHA-256
    and its size in bytes (gzipped, as downloaded)."""

    key: str
    filename: str
    sha256: str
    size: int


MNIST_FILES: tuple[MnistFile, ...] = (
    MnistFile(
        "x_train",
        "train-images-idx3-ubyte.gz",
        "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609",
        9_912_422,
    ),
    MnistFile(
        "y_train",
        "train-labels-idx1-ubyte.gz",
        "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c",
        28_881,
    ),
    MnistFile(
        "x_test",
        "t10k-images-idx3-ubyte.gz",
        "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",
        1_648_877,
    ),
    MnistFile(
        "y_test",
        "t10k-labels-idx1-ubyte.gz",
        "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6",
        4_542,
    ),
)

# Tried in this order; each serves the four files under these exact names. The first is the
# one torchvision uses (pytorch/vision, torchvision/datasets/mnist.py), the second the one
# TensorFlow Datasets uses.
MNIST_MIRRORS: tuple[str, ...] = (
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
    "https://storage.googleapis.com/cvdf-datasets/mnist/",
)

# Seconds to wait for a connection, and for each block of data once connected.
DEFAULT_TIMEOUT: tuple[float, float] = (10.0, 60.0)

# (grace seconds, bytes per second): a download whose average speed is under 20 KB/s once
# 30 s have passed is given up (the next mirror is tried). A per-read timeout alone never
# trips on a server that sends a byte now and then.
DEFAULT_MIN_SPEED: tuple[float, float] = (30.0, 20_000.0)

_IMAGE_MAGIC = 0x00000803
_LABEL_MAGIC = 0x00000801
_IMAGE_SHAPE = (28, 28)
_CHUNK = 1 << 16

# IDX type byte -> NumPy dtype (big-endian, as the format stores them).
_IDX_DTYPES = {
    0x08: np.dtype(np.uint8),
    0x09: np.dtype(np.int8),
    0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"),
    0x0D: np.dtype(">f4"),
    0x0E: np.dtype(">f8"),
}


class MnistDownloadError(RuntimeError):
    """No mirror delivered a verified copy of a file; the message says what to do."""


class IdxFormatError(ValueError):
    """A file is not the IDX file it should be: wrong magic number, wrong sizes, truncated."""


def default_cache_dir() -> Path:
    """``$SPARROW_DATA/mnist``, else ``$XDG_CACHE_HOME/sparrow/mnist``, else
    ``~/.cache/sparrow/mnist``."""
    if os.environ.get("SPARROW_DATA"):
        return Path(os.environ["SPARROW_DATA"]).expanduser() / "mnist"
    cache_home = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache_home).expanduser() / "sparrow" / "mnist"


def fetch_mnist(
    cache_dir: str | os.PathLike[str] | None = None,
    mirrors: Sequence[str] | None = None,
    progress: bool = True,
    *,
    files: Sequence[MnistFile] = MNIST_FILES,
    timeout: tuple[float, float] = DEFAULT_TIMEOUT,
    min_speed: tuple[float, float] = DEFAULT_MIN_SPEED,
) -> dict[str, np.ndarray]:
    """The full MNIST: ``x_train`` (60000, 28, 28) uint8, ``y_train`` (60000,) int64,
    ``x_test`` (10000, 28, 28) uint8, ``y_test`` (10000,) int64.

    Pixels are the raw grey levels 0..255 (divide by 255 for [0, 1]); labels are the digits
    0..9 as int64, the dtype PyTorch's ``cross_entropy`` takes for class indices.

    ``cache_dir`` defaults to ``default_cache_dir()``; ``mirrors`` to ``MNIST_MIRRORS``
    (base URLs, tried in order); ``progress`` shows a tqdm bar per download. ``timeout`` is
    (connect, read) seconds; ``min_speed`` is (grace seconds, bytes per second): a download
    slower than that on average once the grace has passed is given up. ``files`` exists so
    that tests can serve their own small files.
    Raises ``MnistDownloadError`` when a file cannot be had from any mirror and
    ``IdxFormatError`` when a verified file does not parse.
    """
    folder = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
    mirrors = MNIST_MIRRORS if mirrors is None else tuple(mirrors)
    if not mirrors:
        raise ValueError("fetch_mnist: mirrors is empty; pass None for the default mirrors")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise MnistDownloadError(
            f"cannot create the MNIST cache folder {folder}: {error}. "
            f"Set SPARROW_DATA to a folder you can write to, or pass cache_dir=..."
        ) from error

    paths = {
        spec.key: _fetch_file(spec, folder, mirrors, files, progress, timeout, min_speed)
        for spec in files
    }
    arrays = {key: read_idx_gz(path) for key, path in paths.items()}
    return _check_mnist(arrays, paths)


# --------------------------------------------------------------------------------------------
# Downloading one file
# --------------------------------------------------------------------------------------------


def _fetch_file(
    spec: MnistFile,
    folder: Path,
    mirrors: Sequence[str],
    files: Sequence[MnistFile],
    progress: bool,
    timeout: tuple[float, float],
    min_speed: tuple[float, float] = DEFAULT_MIN_SPEED,
) -> Path:
    """``folder/spec.filename``, verified: from the cache, else from the first mirror that
    delivers it whole with the right SHA-256. A cached file that fails the check is moved to
    ``<name>.corrupt`` first (replacing an older one), so no corrupt file keeps the name."""
    path = folder / spec.filename
    if path.is_file():
        actual = file_sha256(path)
        if actual == spec.sha256:
            return path
        moved = path.with_name(path.name + ".corrupt")
        os.replace(path, moved)
        hint = (
            " It starts with an IDX magic number: it looks un-gzipped: gzip it "
            f"(gzip {moved.name}, then rename it to {path.name}) and it will be checked again."
            if _looks_like_idx(moved)
            else ""
        )
        print(
            f"fetch_mnist: the cached {path} is corrupt (sha256 {actual}, expected "
            f"{spec.sha256}); moved it to {moved} and downloading it again.{hint}",
            file=sys.stderr,
        )

    failures: list[str] = []
    for mirror in mirrors:
        url = mirror.rstrip("/") + "/" + spec.filename
        try:
            _download(url, path, spec, progress, timeout, min_speed)
            return path
        except _MirrorFailure as failure:
            failures.append(f"  {url}: {failure}")
    raise MnistDownloadError(_what_to_do(spec, folder, failures, files))


class _MirrorFailure(Exception):
    """One mirror did not deliver a verified file; the message says why, in a reader's words."""


def _download(
    url: str,
    path: Path,
    spec: MnistFile,
    progress: bool,
    timeout: tuple[float, float],
    min_speed: tuple[float, float] = DEFAULT_MIN_SPEED,
) -> None:
    """Stream ``url`` into a temporary file next to ``path``; rename it to ``path`` only when
    it is ``spec.size`` bytes and its SHA-256 is ``spec.sha256``. Raise ``_MirrorFailure``
    otherwise, with the temporary file removed. Give up when, ``grace`` seconds or more after
    the request, the average speed received / elapsed is under ``rate`` bytes per second
    (``min_speed = (grace, rate)``)."""
    connect_timeout, read_timeout = timeout
    grace, rate = min_speed
    size, sha256 = spec.size, spec.sha256
    start = time.monotonic()
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    received = 0
    try:
        with os.fdopen(fd, "wb") as out:
            try:
                response = _opener(read_timeout).open(url, timeout=connect_timeout)
            except urllib.error.HTTPError as error:
                error.close()
                raise _MirrorFailure(f"HTTP {error.code} {error.reason}") from error
            except urllib.error.URLError as error:
                raise _MirrorFailure(_why_no_connection(error.reason, connect_timeout)) from error
            except TimeoutError as error:
                raise _MirrorFailure(
                    f"connected, but no reply within {read_timeout:g} s (read timed out)"
                ) from error
            except (OSError, http.client.HTTPException) as error:
                raise _MirrorFailure(f"{type(error).__name__}: {error}") from error

            with response:
                length = _content_length(response)
                if length is not None and length != size:
                    raise _MirrorFailure(
                        f"the server announces {length} bytes, expected {size} (a different file)"
                    )
                digest = hashlib.sha256()
                bar = tqdm(
                    total=size,
                    desc=path.name,
                    unit="B",
                    unit_scale=True,
                    unit_divisor=1024,
                    disable=not progress,
                    leave=False,
                )
                with bar:
                    while True:
                        try:
                            block = response.read1(_CHUNK)
                        except TimeoutError as error:
                            raise _MirrorFailure(
                                f"the server stopped sending for {read_timeout:g} s after "
                                f"{received} bytes (read timed out)"
                            ) from error
                        except (OSError, http.client.HTTPException) as error:
                            raise _MirrorFailure(
                                f"the transfer failed after {received} bytes: "
                                f"{type(error).__name__}: {error}"
                            ) from error
                        if not block:
                            break
                        received += len(block)
                        if received > size:
                            raise _MirrorFailure(
                                f"more than the {size} bytes expected (a different file)"
                            )
                        elapsed = time.monotonic() - start
                        if elapsed >= grace and received < rate * elapsed:
                            raise _MirrorFailure(
                                f"too slow: only {received} bytes in {elapsed:.1f} s (under "
                                f"{rate:g} bytes/s on average after {grace:g} s)"
                            )
                        digest.update(block)
                        out.write(block)
                        bar.update(len(block))
            if received != size:
                raise _MirrorFailure(
                    f"the transfer stopped after {received} of {size} bytes "
                    f"(the connection closed early)"
                )
            if digest.hexdigest() != sha256:
                raise _MirrorFailure(
                    f"the {received} bytes received have sha256 {digest.hexdigest()}, "
                    f"expected {sha256} (a corrupt or different file)"
                )
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp_name, 0o644)
        os.replace(tmp_name, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)


def _why_no_connection(reason: object, connect_timeout: float) -> str:
    if isinstance(reason, TimeoutError):
        return f"no connection within {connect_timeout:g} s (connect timed out)"
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused (no server listening there)"
    if isinstance(reason, ssl.SSLCertVerificationError):
        return f"the server's SSL certificate is not trusted ({reason})"
    if isinstance(reason, ssl.SSLError):
        return f"the SSL (HTTPS) handshake failed ({reason}); does the server speak HTTPS?"
    if isinstance(reason, socket.gaierror):
        return f"host not found ({reason}); is the network up?"
    return f"could not connect: {reason}"


def _content_length(response: http.client.HTTPResponse) -> int | None:
    value = response.headers.get("Content-Length")
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _what_to_do(
    spec: MnistFile, folder: Path, failures: list[str], files: Sequence[MnistFile]
) -> str:
    listing = "\n".join(f"    {f.filename}  {f.size} bytes  sha256 {f.sha256}" for f in files)
    return (
        f"could not download the MNIST file {spec.filename} from any mirror:\n"
        + "\n".join(failures)
        + "\nWhat to do: check the network connection (and proxy settings) and run this "
        f"again; files already downloaded are kept. Or download these files by hand from "
        f"any MNIST mirror and put them, still gzipped and under these names, in the folder\n"
        f"    {folder}\n"
        f"(set SPARROW_DATA to use another folder, or pass cache_dir=...). They are checked "
        f"against these SHA-256 sums when loaded:\n{listing}"
    )


@functools.cache
def _opener(read_timeout: float) -> urllib.request.OpenerDirector:
    """A urllib opener (redirects and proxies as usual) whose sockets, once connected, wait
    ``read_timeout`` seconds for each read; ``open(url, timeout=...)`` is the connect
    timeout."""

    class _HTTP(http.client.HTTPConnection):
        def connect(self) -> None:
            super().connect()
            self.sock.settimeout(read_timeout)

    class _HTTPS(http.client.HTTPSConnection):
        def connect(self) -> None:
            super().connect()
            self.sock.settimeout(read_timeout)

    class _HTTPHandler(urllib.request.HTTPHandler):
        def http_open(self, req):
            return self.do_open(_HTTP, req)

    class _HTTPSHandler(urllib.request.HTTPSHandler):
        def https_open(self, req):
            return self.do_open(_HTTPS, req, context=self._context)

    return urllib.request.build_opener(_HTTPHandler, _HTTPSHandler)


def _looks_like_idx(path: Path) -> bool:
    """Whether the file starts as an uncompressed IDX file: two zero bytes, a known type
    byte, 1 to 3 dimensions (a gzipped file starts with 0x1f 0x8b)."""
    with open(path, "rb") as f:
        head = f.read(4)
    return (
        len(head) == 4 and head[:2] == b"\x00\x00" and head[2] in _IDX_DTYPES and 1 <= head[3] <= 3
    )


# --------------------------------------------------------------------------------------------
# Reading IDX files
# --------------------------------------------------------------------------------------------


def read_idx_gz(path: str | os.PathLike[str]) -> np.ndarray:
    """The array in the gzipped IDX file ``path`` (see ``read_idx``)."""
    path = Path(path)
    try:
        data = gzip.decompress(path.read_bytes())
    except (EOFError, gzip.BadGzipFile, zlib.error) as error:
        raise IdxFormatError(
            f"{path} is not a complete gzip file ({error}); delete it and fetch it again"
        ) from error
    return read_idx(data, name=str(path))


def read_idx(data: bytes, name: str = "<bytes>") -> np.ndarray:
    """The array stored in the IDX bytes ``data``; ``name`` is the file named in errors.

    Raises ``IdxFormatError`` for a wrong magic number (the first two bytes not zero, or an
    unknown type byte), a header shorter than its dimensions, or values fewer (truncated) or
    more than the dimensions' product.
    """
    if len(data) < 4:
        raise IdxFormatError(f"{name}: {len(data)} bytes, too short for an IDX header")
    magic = int.from_bytes(data[:4], "big")
    zero, type_byte, ndim = data[0:2], data[2], data[3]
    if zero != b"\x00\x00" or type_byte not in _IDX_DTYPES:
        raise IdxFormatError(
            f"{name}: wrong magic number 0x{magic:08x}; an IDX file starts with two zero bytes "
            f"and a type byte ({', '.join(f'0x{t:02x}' for t in _IDX_DTYPES)})"
        )
    header = 4 + 4 * ndim
    if len(data) < header:
        raise IdxFormatError(
            f"{name}: truncated: the header needs {header} bytes for {ndim} dimensions, the "
            f"file has {len(data)}"
        )
    shape = struct.unpack(f">{ndim}I", data[4:header])
    dtype = _IDX_DTYPES[type_byte]
    expected = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    have = len(data) - header
    if have < expected:
        raise IdxFormatError(
            f"{name}: truncated: dimensions {shape} need {expected} bytes of values, the file "
            f"has {have}"
        )
    if have > expected:
        raise IdxFormatError(
            f"{name}: {have - expected} bytes after the {expected} bytes that dimensions "
            f"{shape} hold (wrong dimensions?)"
        )
    values = np.frombuffer(data, dtype=dtype, offset=header).reshape(shape)
    return values.astype(dtype.newbyteorder("="), copy=True)


def _check_mnist(arrays: dict[str, np.ndarray], paths: dict[str, Path]) -> dict[str, np.ndarray]:
    """MNIST's promises: images (n, 28, 28) uint8 and n labels 0..9, per split; labels as
    int64."""
    for split in ("train", "test"):
        x_key, y_key = f"x_{split}", f"y_{split}"
        if x_key not in arrays or y_key not in arrays:
            continue
        x, y = arrays[x_key], arrays[y_key]
        if x.dtype != np.uint8 or x.ndim != 3 or x.shape[1:] != _IMAGE_SHAPE:
            raise IdxFormatError(
                f"{paths[x_key]}: expected images of shape (n, 28, 28) uint8 (magic "
                f"0x{_IMAGE_MAGIC:08x}), got {x.shape} {x.dtype}"
            )
        if y.dtype != np.uint8 or y.ndim != 1:
            raise IdxFormatError(
                f"{paths[y_key]}: expected labels of shape (n,) uint8 (magic "
                f"0x{_LABEL_MAGIC:08x}), got {y.shape} {y.dtype}"
            )
        if len(x) != len(y):
            raise IdxFormatError(
                f"{paths[x_key]} holds {len(x)} images but {paths[y_key]} holds {len(y)} labels"
            )
        if y.size and int(y.max()) > 9:
            raise IdxFormatError(f"{paths[y_key]}: a label is {int(y.max())}; digits are 0..9")
        arrays[y_key] = y.astype(np.int64)
    return arrays

"""The full-MNIST loader (support/mnist.py) against a loopback HTTP server, and its IDX parser.

No real MNIST and no network: the server in a thread on 127.0.0.1 serves small fake IDX
files (28 × 28 images, a few of them), and the tests pass those files' own SHA-256 sums.
Each mirror is a path prefix on that server that behaves one way: ``good``, ``corrupt`` (one
byte changed), ``truncated`` (Content-Length larger than what is sent, then the connection
closes), ``missing`` (404), ``slow`` (sends a little, then stalls past the read timeout), ``mute``
(never answers), ``trickle`` (one byte every 0.05 s: never trips a read timeout, only the
minimum average speed), ``longer`` (announces and sends 5 bytes more than the file's size),
``unsized`` (no Content-Length, 5 bytes more than the size); a closed port stands for "no
server", and an ``https://`` URL on the plain-HTTP server for a failed SSL handshake. After
every failure the cache holds no file under a final name and no temporary file, and the
message names what failed and what to do.
"""

from __future__ import annotations

import gzip
import hashlib
import http.server
import socket
import struct
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from support import mnist
from support.mnist import IdxFormatError, MnistDownloadError, MnistFile, fetch_mnist

TIMEOUT = (5.0, 5.0)  # connect, read: generous, for downloads that should work
SHORT_TIMEOUT = (2.0, 0.3)  # for the slow and mute servers, which stall longer than 0.3 s
SHORT_MIN_SPEED = (0.3, 1000.0)  # for the trickle: under 1000 bytes/s after 0.3 s
EXTRA = b"extra"  # what the longer and unsized servers append to a file


# --------------------------------------------------------------------------------------------
# Fake MNIST files, built here with struct (not with the parser under test)
# --------------------------------------------------------------------------------------------


def _idx_bytes(array: np.ndarray) -> bytes:
    """IDX encoding of a uint8 array: 0x00 0x00 0x08 ndim, big-endian uint32 sizes, values."""
    header = bytes([0, 0, 0x08, array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape)
    return header + array.astype(np.uint8).tobytes()


def _fake_mnist(n_train: int = 5, n_test: int = 3, n_test_labels: int | None = None):
    rng = np.random.default_rng(13)
    arrays = {
        "x_train": rng.integers(0, 256, size=(n_train, 28, 28), dtype=np.uint8),
        "y_train": rng.integers(0, 10, size=n_train, dtype=np.uint8),
        "x_test": rng.integers(0, 256, size=(n_test, 28, 28), dtype=np.uint8),
        "y_test": rng.integers(0, 10, size=n_test_labels or n_test, dtype=np.uint8),
    }
    payloads, specs = {}, []
    for real in mnist.MNIST_FILES:
        payload = gzip.compress(_idx_bytes(arrays[real.key]), mtime=0)
        payloads[real.filename] = payload
        specs.append(
            MnistFile(real.key, real.filename, hashlib.sha256(payload).hexdigest(), len(payload))
        )
    return arrays, payloads, tuple(specs)


ARRAYS, PAYLOADS, SPECS = _fake_mnist()


# --------------------------------------------------------------------------------------------
# The loopback server
# --------------------------------------------------------------------------------------------


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        server = self.server
        server.requests.append(self.path)
        _, mode, name = self.path.split("/", 2)
        payload = server.payloads.get(name)
        if mode == "missing" or payload is None:
            self.send_error(404, "Not Found")
            return
        if mode == "mute":  # accepts the request and never answers
            server.release.wait(5.0)
            return
        if mode == "corrupt":
            payload = payload[:20] + bytes([payload[20] ^ 0xFF]) + payload[21:]
        if mode in ("longer", "unsized"):
            payload = payload + EXTRA
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if mode != "unsized":  # HTTP/1.0: the body ends when the connection closes
            self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if mode == "trickle":
            for i in range(len(payload)):
                if server.release.is_set():
                    return
                try:
                    self.wfile.write(payload[i : i + 1])
                    self.wfile.flush()
                except OSError:  # the client gave up
                    return
                time.sleep(0.05)
            return
        if mode == "truncated":
            self.wfile.write(payload[: len(payload) // 2])
            self.close_connection = True
            return
        if mode == "slow":
            self.wfile.write(payload[:10])
            self.wfile.flush()
            server.release.wait(5.0)
            return
        self.wfile.write(payload)

    def log_message(self, format, *args) -> None:
        pass


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch):
    """urllib honours *_proxy variables; the loopback server must be reached directly."""
    for name in ("http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


@pytest.fixture(scope="module")
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    httpd.payloads = dict(PAYLOADS)
    httpd.requests = []
    httpd.release = threading.Event()
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield httpd
    httpd.release.set()
    httpd.shutdown()
    httpd.server_close()
    thread.join(5.0)


def _mirror(server, mode: str) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/{mode}/"


def _closed_port_mirror() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/mnist/"


def _fetch(
    cache: Path,
    mirrors,
    files=SPECS,
    progress=False,
    timeout=TIMEOUT,
    min_speed=mnist.DEFAULT_MIN_SPEED,
):
    return fetch_mnist(cache, mirrors, progress, files=files, timeout=timeout, min_speed=min_speed)


# --------------------------------------------------------------------------------------------
# Downloads that work
# --------------------------------------------------------------------------------------------


def test_good_files_are_downloaded_verified_and_parsed(server, tmp_path, capsys):
    data = _fetch(tmp_path, [_mirror(server, "good")], progress=True)

    assert sorted(data) == sorted(ARRAYS)
    for key, expected in ARRAYS.items():
        np.testing.assert_array_equal(data[key], expected)
    assert data["x_train"].dtype == np.uint8 and data["y_train"].dtype == np.int64
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(PAYLOADS)
    for name, payload in PAYLOADS.items():
        assert (tmp_path / name).read_bytes() == payload
    assert "train-images-idx3-ubyte.gz" in capsys.readouterr().err  # tqdm's bar


def test_a_cached_verified_file_is_never_downloaded_again(server, tmp_path):
    _fetch(tmp_path, [_mirror(server, "good")])
    before = len(server.requests)
    again = _fetch(tmp_path, [_closed_port_mirror()])
    assert len(server.requests) == before
    np.testing.assert_array_equal(again["x_test"], ARRAYS["x_test"])


def test_a_corrupt_cached_file_is_moved_aside_and_fetched_again(server, tmp_path, capsys):
    name = SPECS[0].filename
    (tmp_path / name).write_bytes(PAYLOADS[name][:-7])
    data = _fetch(tmp_path, [_mirror(server, "good")])
    assert (tmp_path / name).read_bytes() == PAYLOADS[name]
    assert (tmp_path / f"{name}.corrupt").read_bytes() == PAYLOADS[name][:-7]
    np.testing.assert_array_equal(data["x_train"], ARRAYS["x_train"])
    err = capsys.readouterr().err
    assert "corrupt" in err and str(tmp_path / f"{name}.corrupt") in err
    assert "gzip it" not in err  # it is gzipped, only cut short


def test_an_ungzipped_cached_file_is_moved_aside_with_a_hint(tmp_path, capsys):
    name = SPECS[0].filename
    raw = _idx_bytes(ARRAYS["x_train"])  # what gunzip leaves
    (tmp_path / name).write_bytes(raw)
    with pytest.raises(MnistDownloadError):
        _fetch(tmp_path, [_closed_port_mirror()])
    assert [p.name for p in tmp_path.iterdir()] == [f"{name}.corrupt"]
    assert (tmp_path / f"{name}.corrupt").read_bytes() == raw
    err = capsys.readouterr().err
    assert "un-gzipped: gzip it" in err and str(tmp_path / f"{name}.corrupt") in err


def test_a_trickling_mirror_is_given_up_for_the_next(server, tmp_path):
    start = len(server.requests)
    data = _fetch(
        tmp_path,
        [_mirror(server, "trickle"), _mirror(server, "good")],
        min_speed=SHORT_MIN_SPEED,
    )
    np.testing.assert_array_equal(data["x_train"], ARRAYS["x_train"])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(PAYLOADS)
    tried = [path.split("/")[1] for path in server.requests[start:]]
    assert tried == ["trickle", "good"] * len(SPECS)


def test_falls_over_to_the_next_mirror(server, tmp_path):
    bad = [
        _closed_port_mirror(),
        _mirror(server, "missing"),
        _mirror(server, "corrupt"),
        _mirror(server, "truncated"),
    ]
    start = len(server.requests)
    data = _fetch(tmp_path, [*bad, _mirror(server, "good")])
    np.testing.assert_array_equal(data["y_train"], ARRAYS["y_train"])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(PAYLOADS)
    tried = [path.split("/")[1] for path in server.requests[start:]]
    assert tried == ["missing", "corrupt", "truncated", "good"] * len(SPECS)


# --------------------------------------------------------------------------------------------
# Failures: no file under its final name, no temporary file, a message that says what to do
# --------------------------------------------------------------------------------------------

SIZE0 = len(PAYLOADS[SPECS[0].filename])
FAILURES = {
    "corrupt": "expected " + SPECS[0].sha256,
    "truncated": f"stopped after {len(PAYLOADS[SPECS[0].filename]) // 2} of "
    f"{len(PAYLOADS[SPECS[0].filename])} bytes",
    "missing": "HTTP 404",
    "slow": "stopped sending for 0.3 s after 10 bytes (read timed out)",
    "mute": "no reply within 0.3 s (read timed out)",
    "trickle": "too slow: only ",
    "longer": f"announces {SIZE0 + len(EXTRA)} bytes, expected {SIZE0}",
    "unsized": f"more than the {SIZE0} bytes expected",
    "https": "SSL",
    "no server": "connection refused",
}


def _assert_says_what_to_do(message: str, cache: Path, url: str, why: str) -> None:
    assert f"{url}: " in message and why in message, message
    assert "by hand" in message and str(cache) in message and "SPARROW_DATA" in message
    for spec in SPECS:
        assert spec.filename in message and spec.sha256 in message


def _failing_mirror(server, mode: str) -> str:
    if mode == "no server":
        return _closed_port_mirror()
    if mode == "https":  # an HTTPS request to the plain-HTTP server
        return _mirror(server, "good").replace("http://", "https://")
    return _mirror(server, mode)


@pytest.mark.parametrize("mode", list(FAILURES))
def test_a_failing_mirror_leaves_no_file_and_says_what_to_do(server, tmp_path, mode):
    mirror = _failing_mirror(server, mode)
    timeout = SHORT_TIMEOUT if mode in ("slow", "mute") else TIMEOUT
    min_speed = SHORT_MIN_SPEED if mode == "trickle" else mnist.DEFAULT_MIN_SPEED
    with pytest.raises(MnistDownloadError) as caught:
        _fetch(tmp_path, [mirror], timeout=timeout, min_speed=min_speed)
    assert list(tmp_path.iterdir()) == []
    url = mirror + SPECS[0].filename
    _assert_says_what_to_do(str(caught.value), tmp_path, url, FAILURES[mode])


def test_every_mirror_failing_lists_each_failure(server, tmp_path):
    modes = ["missing", "corrupt", "truncated"]
    with pytest.raises(MnistDownloadError) as caught:
        _fetch(tmp_path, [_mirror(server, m) for m in modes])
    assert list(tmp_path.iterdir()) == []
    for mode in modes:
        url = _mirror(server, mode) + SPECS[0].filename
        _assert_says_what_to_do(str(caught.value), tmp_path, url, FAILURES[mode])


def test_a_corrupt_cached_file_leaves_its_name_even_when_no_mirror_answers(tmp_path, capsys):
    name = SPECS[0].filename
    (tmp_path / name).write_bytes(b"not gzip at all")
    with pytest.raises(MnistDownloadError):
        _fetch(tmp_path, [_closed_port_mirror()])
    assert [p.name for p in tmp_path.iterdir()] == [f"{name}.corrupt"]
    err = capsys.readouterr().err
    assert "corrupt" in err and "gzip it" not in err


def test_files_already_verified_are_kept_when_a_later_one_fails(server, tmp_path):
    server.payloads.pop(SPECS[3].filename)  # the server lacks the last file
    try:
        with pytest.raises(MnistDownloadError, match=SPECS[3].filename):
            _fetch(tmp_path, [_mirror(server, "good")])
    finally:
        server.payloads[SPECS[3].filename] = PAYLOADS[SPECS[3].filename]
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert kept == sorted(s.filename for s in SPECS[:3])


# --------------------------------------------------------------------------------------------
# The shipped table and the default folder
# --------------------------------------------------------------------------------------------


def test_the_real_table_names_the_four_files_with_sha256_sums():
    keys = [f.key for f in mnist.MNIST_FILES]
    assert keys == ["x_train", "y_train", "x_test", "y_test"]
    assert len({f.filename for f in mnist.MNIST_FILES}) == 4
    for f in mnist.MNIST_FILES:
        assert isinstance(f.size, int) and f.size > 0
        assert len(f.sha256) == 64 and int(f.sha256, 16) >= 0 and f.sha256 == f.sha256.lower()
    assert all(m.startswith("https://") and m.endswith("/") for m in mnist.MNIST_MIRRORS)


def test_default_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("SPARROW_DATA", str(tmp_path / "data"))
    assert mnist.default_cache_dir() == tmp_path / "data" / "mnist"
    monkeypatch.delenv("SPARROW_DATA")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert mnist.default_cache_dir() == tmp_path / "xdg" / "sparrow" / "mnist"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert mnist.default_cache_dir() == tmp_path / "home" / ".cache" / "sparrow" / "mnist"


# --------------------------------------------------------------------------------------------
# The IDX parser
# --------------------------------------------------------------------------------------------


def test_read_idx_reads_what_was_written():
    array = ARRAYS["x_train"]
    parsed = mnist.read_idx(_idx_bytes(array))
    np.testing.assert_array_equal(parsed, array)
    assert parsed.dtype == np.uint8 and parsed.flags.writeable
    signed = np.arange(-3, 3, dtype=np.int32).reshape(2, 3)
    raw = bytes([0, 0, 0x0C, 2]) + struct.pack(">2I", 2, 3) + struct.pack(">6i", *range(-3, 3))
    np.testing.assert_array_equal(mnist.read_idx(raw), signed)


IDX_ERRORS = {
    "wrong magic": (b"\x1f\x8b\x08\x03" + _idx_bytes(ARRAYS["x_test"])[4:], "wrong magic number"),
    "unknown type": (b"\x00\x00\x07\x01" + struct.pack(">I", 1) + b"\x00", "wrong magic number"),
    "short header": (_idx_bytes(ARRAYS["x_test"])[:10], "truncated"),
    "truncated values": (_idx_bytes(ARRAYS["x_test"])[:-1], "truncated"),
    "extra bytes": (_idx_bytes(ARRAYS["x_test"]) + b"\x00", "wrong dimensions"),
    "empty": (b"", "too short"),
}


@pytest.mark.parametrize("case", list(IDX_ERRORS))
def test_read_idx_names_the_file_and_the_problem(case):
    data, why = IDX_ERRORS[case]
    with pytest.raises(IdxFormatError, match=why) as caught:
        mnist.read_idx(data, name="t10k-images-idx3-ubyte.gz")
    assert str(caught.value).startswith("t10k-images-idx3-ubyte.gz: ")


def test_read_idx_gz_names_a_truncated_gzip_file(tmp_path):
    path = tmp_path / "train-labels-idx1-ubyte.gz"
    path.write_bytes(PAYLOADS[SPECS[1].filename][:-9])
    with pytest.raises(IdxFormatError, match="not a complete gzip file") as caught:
        mnist.read_idx_gz(path)
    assert str(path) in str(caught.value)


def _serve_files(server, arrays):
    """Put gzipped IDX files of ``arrays`` on the server; return their specs."""
    specs = []
    for real in mnist.MNIST_FILES:
        payload = gzip.compress(_idx_bytes(arrays[real.key]), mtime=0)
        server.payloads[real.filename] = payload
        specs.append(
            MnistFile(real.key, real.filename, hashlib.sha256(payload).hexdigest(), len(payload))
        )
    return tuple(specs)


@pytest.mark.parametrize(
    "change, why",
    [
        ({"y_test": np.zeros(2, np.uint8)}, "holds 3 images but .* holds 2 labels"),
        ({"x_test": np.zeros((3, 27, 28), np.uint8)}, r"expected images of shape \(n, 28, 28\)"),
        ({"y_train": np.zeros((5, 1), np.uint8)}, r"expected labels of shape \(n,\)"),
        ({"y_train": np.full(5, 10, np.uint8)}, "a label is 10"),
    ],
)
def test_fetch_refuses_files_whose_dimensions_do_not_fit(server, tmp_path, change, why):
    try:
        specs = _serve_files(server, {**ARRAYS, **change})
        with pytest.raises(IdxFormatError, match=why) as caught:
            _fetch(tmp_path, [_mirror(server, "good")], files=specs)
    finally:
        server.payloads.update(PAYLOADS)
    (key,) = change
    filename = next(s.filename for s in specs if s.key == key)
    assert filename in str(caught.value)

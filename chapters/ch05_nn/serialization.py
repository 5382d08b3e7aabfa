"""``save(obj, f)`` and ``load(f)``: tensors and plain values in a file, without pickle
(given code).

PyTorch's ``torch.save`` pickles, and loading a pickle runs whatever code the file names.
This format is a zip archive holding

    sparrow.json    {"format": "sparrow-save", "version": 1, "tree": ...}
    tensors/0.npy   one NumPy array per tensor (``numpy.save``, no pickled objects)
    tensors/1.npy   ...

where the tree is ``obj`` written as JSON: dicts as lists of [key, value] pairs (so that keys
keep their type: an optimizer's state is keyed by ints), tuples and lists tagged, and each
tensor a reference to its array with its dtype and ``requires_grad``; a NumPy array (of
numbers or booleans) is stored the same way, tagged as an array, and comes back as one.
``load`` reads arrays with ``allow_pickle=False`` and builds only the types listed here, so
it runs no code. ``save``'s ``pickle_module=``/``pickle_protocol=`` and ``load``'s
``pickle_module=``/``mmap=``/other keywords are PyTorch's, accepted for its scripts and
ignored: nothing is pickled. (PyTorch ≥ 2.6 pickles a NumPy array and, by default,
``weights_only=True``, refuses to load it; here it loads, as no code runs.)

A save goes to exactly the path given (``save(sd, "m.pt")`` writes ``m.pt``) through a
temporary file in the same folder that is renamed into place only when complete, so a
failed save leaves no file behind and never a half-written one over an old one; to a file
object it writes nothing until the whole archive is made. A file that is not one of these
(truncated, damaged, a PyTorch pickle) gets an error naming it: a ValueError that is also
PyTorch's error type there (``pickle.UnpicklingError``; ``EOFError`` for an empty file), so
``except`` clauses written for PyTorch catch it. ``pickle`` is imported for those exception
classes only.
"""

from __future__ import annotations

import io
import json
import math
import os
import pickle
import struct
import tempfile
import zipfile
import zlib
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np

from ..ch02_tensor.tensor import Tensor
from .nn.parameter import Parameter

FORMAT, VERSION, TREE = "sparrow-save", 1, "sparrow.json"
# what zipfile raises on a damaged archive: a flipped byte can make a member look encrypted
# (RuntimeError), compressed by an unknown method (NotImplementedError), or end early
ZIP_ERRORS = (
    zipfile.BadZipFile,
    ValueError,
    OSError,
    EOFError,
    RuntimeError,
    NotImplementedError,
    zlib.error,
    struct.error,
)


def save(obj: Any, f: Any, pickle_module: Any = None, pickle_protocol: int = 2) -> None:
    """Write ``obj`` (nested dicts, lists and tuples of Tensors, NumPy arrays, numbers,
    strings, booleans and None) to ``f``: a path (str or ``os.PathLike``) or a binary file
    object. ``pickle_module`` and ``pickle_protocol`` are accepted and ignored (no pickle)."""
    arrays: list[np.ndarray] = []
    tree = _encode(obj, arrays, "obj")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr(TREE, json.dumps({"format": FORMAT, "version": VERSION, "tree": tree}))
        for i, array in enumerate(arrays):
            with archive.open(f"tensors/{i}.npy", "w", force_zip64=True) as out:
                np.save(out, array, allow_pickle=False)
    data = buffer.getvalue()
    if isinstance(f, (str, os.PathLike)):
        _write_whole(Path(f), data)
    elif hasattr(f, "write"):
        f.write(data)
    else:
        raise TypeError(f"save() writes to a path or a binary file object, not {type(f).__name__}")


def _write_whole(path: Path, data: bytes) -> None:
    """``data`` into ``path``, all or nothing: a temporary file, then a rename (into a
    symbolic link's target, with the permissions a new file gets: the umask's)."""
    path = Path(os.path.realpath(path))
    if path.is_dir():
        raise IsADirectoryError(
            f"save(): {path} is a folder; give a file name, e.g. {path / 'model.pt'}"
        )
    if not path.parent.is_dir():
        raise FileNotFoundError(f"save(): the folder {path.parent} does not exist")
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp makes 0600
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _encode(obj: Any, arrays: list, where: str) -> Any:
    """``obj`` as JSON data; tensors' arrays appended to ``arrays``."""
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, (int, np.integer)) and not isinstance(obj, np.bool_):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        value = float(obj)
        return value if math.isfinite(value) else {"float": repr(value)}
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, Tensor):
        array = (
            np.asarray(obj.detach().cpu().data)
            if not isinstance(obj.data, np.ndarray)
            else obj.data
        )
        arrays.append(np.asarray(array, order="C"))  # (ascontiguousarray makes 0-d 1-d)
        return {
            "tensor": len(arrays) - 1,
            "requires_grad": obj.requires_grad,
            "parameter": isinstance(obj, Parameter),
        }
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind not in "biufc":
            raise TypeError(
                f"save() stores NumPy arrays of numbers or booleans; {where} is an array of "
                f"dtype {obj.dtype}"
            )
        arrays.append(np.asarray(obj, order="C"))
        return {"ndarray": len(arrays) - 1}
    if isinstance(obj, dict):
        return {
            "dict": [
                [_encode(k, arrays, where), _encode(v, arrays, f"{where}[{k!r}]")]
                for k, v in obj.items()
            ],
            "ordered": isinstance(obj, OrderedDict),
        }
    if isinstance(obj, (list, tuple)):
        items = [_encode(v, arrays, f"{where}[{i}]") for i, v in enumerate(obj)]
        return {"tuple" if isinstance(obj, tuple) else "list": items}
    raise TypeError(
        f"save() stores Tensors, NumPy arrays, numbers, strings, booleans, None and dicts, "
        f"lists and tuples of them; {where} is a {type(obj).__name__}"
    )


def load(
    f: Any,
    map_location: Any = None,
    pickle_module: Any = None,
    *,
    weights_only: bool | None = None,
    mmap: bool | None = None,
    **pickle_load_args: Any,
) -> Any:
    """What ``save`` wrote to ``f`` (a path or a binary file object). ``map_location`` (a
    device, or its name) puts every tensor there; ``weights_only``, ``pickle_module``,
    ``mmap`` and other keywords are accepted for PyTorch's scripts and change nothing: this
    loader never runs code from a file."""
    if map_location is not None and (callable(map_location) or isinstance(map_location, dict)):
        raise NotImplementedError("load(): map_location is a device here, not a dict or function")
    tree = _read(f)
    return tree if map_location is None else _moved(tree, map_location)


def _moved(tree: Any, device: Any) -> Any:
    """``tree`` with every tensor on ``device`` (``Tensor.to``)."""
    if isinstance(tree, Tensor):
        moved = tree.to(device)
        if moved is not tree and isinstance(tree, Parameter):
            moved = Parameter(moved, requires_grad=tree.requires_grad)
        return moved
    if isinstance(tree, dict):
        out = OrderedDict() if isinstance(tree, OrderedDict) else {}
        out.update((k, _moved(v, device)) for k, v in tree.items())
        return out
    if isinstance(tree, (list, tuple)):
        return type(tree)(_moved(v, device) for v in tree)
    return tree


def _read(f: Any) -> Any:
    """The tree in ``f``, checked at every step; any damage is a ValueError naming ``f``."""
    name = str(f) if isinstance(f, (str, os.PathLike)) else getattr(f, "name", "the file object")
    if isinstance(f, (str, os.PathLike)):
        path = Path(f)
        if not path.is_file():
            raise FileNotFoundError(f"load(): there is no file {path}")
        data = path.read_bytes()
    elif hasattr(f, "read"):
        data = f.read()
    else:
        raise TypeError(f"load() reads a path or a binary file object, not {type(f).__name__}")
    if not data:
        raise _EmptyFile(f"load(): {name} is not a file that save() wrote: it is empty")
    if data[:1] == b"\x80":
        raise _bad(name, "it is a pickle (PyTorch's old format?); this loader never unpickles")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except ZIP_ERRORS:
        why = (
            "it is empty" if not data else "it is not a zip archive (truncated, or another format)"
        )
        raise _bad(name, why) from None
    with archive:
        names = set(archive.namelist())
        if TREE not in names:
            foreign = any(n.endswith("data.pkl") for n in names)
            why = "it is a PyTorch file (a pickle inside a zip)" if foreign else f"it has no {TREE}"
            raise _bad(name, why)
        try:
            header = json.loads(archive.read(TREE).decode("utf-8"))
        except ZIP_ERRORS as error:
            raise _bad(name, f"its {TREE} is damaged ({error})") from None
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise _bad(name, f"its {TREE} does not describe a {FORMAT} file")
        if header.get("version") != VERSION:
            raise _bad(
                name, f"it is version {header.get('version')!r}; this loader reads {VERSION}"
            )

        def array(i: Any) -> np.ndarray:
            member = f"tensors/{i}.npy"
            if not isinstance(i, int) or member not in names:
                raise _bad(name, f"a tensor's data ({member}) is missing")
            info = archive.getinfo(member)
            if info.compress_type != zipfile.ZIP_STORED:
                raise _bad(name, f"{member} is compressed; save() stores arrays uncompressed")
            try:
                with archive.open(member) as stream:
                    raw = stream.read()
                _check_size(raw, member)
                return np.load(io.BytesIO(raw), allow_pickle=False)
            except ZIP_ERRORS as error:
                raise _bad(name, f"{member} is damaged ({error})") from None

        try:
            return _decode(header.get("tree"), array)
        except _Malformed as error:
            raise _bad(name, f"its tree is malformed ({error})") from None


class _Malformed(ValueError):
    pass


class LoadError(ValueError, pickle.UnpicklingError):
    """A file ``load`` cannot read: a ValueError, and PyTorch's error type there."""


class _EmptyFile(ValueError, EOFError):
    """An empty file: a ValueError, and PyTorch's error type there (EOFError)."""


def _check_size(raw: bytes, member: str) -> None:
    """The array header's shape and dtype must fit the bytes that follow it (a damaged
    header must not make NumPy allocate terabytes)."""
    stream = io.BytesIO(raw)
    version = np.lib.format.read_magic(stream)
    read_header = {
        (1, 0): np.lib.format.read_array_header_1_0,
        (2, 0): np.lib.format.read_array_header_2_0,
    }.get(version)
    if read_header is None:
        raise ValueError(f"{member} has an .npy version {version} that save() does not write")
    shape, _, dtype = read_header(stream)
    if math.prod(shape) * dtype.itemsize > len(raw) - stream.tell():
        raise ValueError(f"{member}'s header promises more data ({shape}, {dtype}) than it holds")


def _bad(name: str, why: str) -> ValueError:
    return LoadError(f"load(): {name} is not a file that save() wrote: {why}")


def _decode(node: Any, array: Any) -> Any:
    if node is None or isinstance(node, (bool, int, float, str)):
        return node
    if not isinstance(node, dict) or len(node) == 0:
        raise _Malformed(f"unexpected {type(node).__name__}")
    if "float" in node:
        if node["float"] not in ("inf", "-inf", "nan"):
            raise _Malformed(f"unexpected float {node['float']!r}")
        return float(node["float"])
    if "tensor" in node:
        data = array(node["tensor"])
        if data.dtype.kind not in "biuf":
            raise _Malformed(f"a tensor of dtype {data.dtype}")
        grad = bool(node.get("requires_grad", False))
        if grad and data.dtype.kind != "f":
            raise _Malformed(f"a {data.dtype} tensor that requires grad")
        if node.get("parameter"):
            return Parameter(data, requires_grad=grad)
        return Tensor(data, requires_grad=grad)
    if "ndarray" in node:
        data = array(node["ndarray"])
        if data.dtype.kind not in "biufc":
            raise _Malformed(f"an array of dtype {data.dtype}")
        return data
    if "dict" in node:
        out = OrderedDict() if node.get("ordered") else {}
        for pair in node["dict"]:
            if not isinstance(pair, list) or len(pair) != 2:
                raise _Malformed("a dict entry that is not a [key, value] pair")
            key = _decode(pair[0], array)
            try:
                hash(key)
            except TypeError:
                raise _Malformed("a dict key that is a list or dict") from None
            out[key] = _decode(pair[1], array)
        return out
    if "list" in node and isinstance(node["list"], list):
        return [_decode(v, array) for v in node["list"]]
    if "tuple" in node and isinstance(node["tuple"], list):
        return tuple(_decode(v, array) for v in node["tuple"])
    raise _Malformed(f"unexpected entry {sorted(node)}")

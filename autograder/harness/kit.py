"""The programs' kit: what every chapter's check programs share, in the child.

The harness is copied into every grading child, so a chapter's ``programs.py`` imports
these (``from ...harness.kit import host, raised``) instead of keeping a copy of its own.
Like the programs, this module imports nothing but the standard library and NumPy, and
decides nothing: it reads values back and says what a call raised.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypedDict

import numpy as np

from .language import tr  # noqa: F401  (a program's words in the learner's language: tr(en, zh))


class Raised(TypedDict):
    """What a call raised: its type's name (None when it returned), its message, and the
    type of the exception it was raised from or during (None when there was none)."""

    error: str | None
    message: str
    chained: str | None


class Attempt(Raised):
    """``Raised``, and what the call returned (None when it raised)."""

    value: Any


def attempt(call: Callable[[], Any]) -> Attempt:
    """Run ``call()``: what it returned, or what it raised. A stub's NotImplementedError
    goes on up (the task is not started)."""
    try:
        value = call()
    except NotImplementedError:
        raise
    except Exception as error:
        context = None if error.__suppress_context__ else error.__context__
        cause = error.__cause__ or context
        return {
            "error": type(error).__name__,
            "message": str(error),
            "chained": type(cause).__name__ if cause is not None else None,
            "value": None,
        }
    return {"error": None, "message": "", "chained": None, "value": value}


def raised(call: Callable[[], Any]) -> Raised:
    """What ``call()`` raised (error None when it returned), without what it returned."""
    result = attempt(call)
    del result["value"]  # type: ignore[misc]
    return result


def on_device(data: Any) -> bool:
    """Whether ``data`` is a device's array (CuPy's, the simulated device's)."""
    return not isinstance(data, np.ndarray) and hasattr(data, "shape") and hasattr(data, "get")


def host(value: Any) -> Any:
    """A Tensor's data, or an array, as a NumPy array (anything else as it is, for the verdict
    to name). Checks also run with tensors on a device (``check N --device sim``): a device's
    array comes back explicitly, with ``.get()``, as ``numpy.asarray`` refuses it."""
    is_array = isinstance(value, (np.ndarray, np.generic)) or on_device(value)
    data = value if is_array else getattr(value, "data", value)
    if isinstance(data, (np.ndarray, np.generic)):
        return np.asarray(data)
    if on_device(data):
        return data.get()
    return data


def array(value: Any, keep: bool = False) -> Any:
    """``host(value)`` as a NumPy array of its own; anything else (None, a number, a
    student's odd object) as it is with ``keep``, else None."""
    data = host(value)
    if isinstance(data, np.ndarray):
        return np.array(data)
    return data if keep else None


def tensor(sp, data: Any, requires_grad: bool = False, dtype: str = "float64") -> Any:
    """A Tensor of ``data`` made with the code under test's constructor, on the host."""
    return sp.Tensor(np.array(data, dtype=dtype), requires_grad=requires_grad)


def tensor_values(t: Any) -> Any:
    """A Tensor's values as a NumPy array of its own (None stays None); anything that holds
    no array as "<its type>", for the verdict to name (an array where a Tensor is due)."""
    if t is None:
        return None
    data = getattr(t, "data", None)
    if isinstance(data, np.ndarray) or on_device(data):
        return np.array(host(data))
    return f"<{type(t).__name__}>"


def array_values(array: Any) -> Any:
    """An array's values on the host; anything that is neither a NumPy array nor a device's
    array as "<its type>" (a NumPy scalar where an array is due is a mistake to name)."""
    if isinstance(array, np.ndarray) or on_device(array):
        return host(array)
    return f"<{type(array).__name__}>"


def fill(sp, target: Any, values: Any) -> None:
    """``target[...] = values`` for NumPy ``values``: copied to target's device first when
    ``target`` is a device's array (a device refuses a NumPy array assigned into it)."""
    target[...] = sp.array_module(target).asarray(values) if on_device(target) else values

"""Chapter 2 — the tensor wrapper: ``Tensor``, ``Function``/``ctx`` and the op catalog.

``from chapters import ch02_tensor as sp`` gives ``sp.Tensor``, ``sp.tensor``, the
factories (``zeros``, ``ones``, ``randn``, ``arange``, ``linspace``, …), dtypes (``sp.float32``,
``sp.float64``, ``set_default_dtype``), ``sp.Function`` and ``sp.autograd``, ``sp.device``,
and ``two_layer_backward`` (task 2.11). Files, in the order the notebook teaches them:

    backend.py     the array namespace (NumPy now, CuPy in chapter 7), scatter_add
    dtypes.py      float32 by default; the dtype of Python data; promotion of dtypes
    tensor.py      Tensor: data + graph node; operators call the Functions below
    printing.py    how a tensor prints (PyTorch's style)
    function.py    Function, Context and Node: the graph format
    casting.py     mixing dtypes: PyTorch's type promotion, Cast
    arithmetic.py  + − × ÷ neg pow         tasks 2.1–2.3
    pointwise.py   exp log sqrt tanh sigmoid relu abs    tasks 2.4–2.5
    matmul.py      a @ b                   task 2.6
    reductions.py  sum mean max            tasks 2.7–2.8
    shapes.py      reshape transpose permute           task 2.9
    indexing.py    a[index], scatter-add   task 2.10
    by_hand.py     be the engine           task 2.11
    seams.py       the doors to chapters 3, 4 and 7 (also grad_mode.py, device.py, autograd.py)
"""

from . import autograd
from .backend import array_module, scatter_add
from .by_hand import two_layer_backward
from .device import device
from .dtypes import (
    bool_,
    float16,
    float32,
    float64,
    get_default_dtype,
    int32,
    int64,
    set_default_dtype,
)
from .factories import (
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    full,
    full_like,
    linspace,
    manual_seed,
    ones,
    ones_like,
    rand,
    rand_like,
    randn,
    randn_like,
    tensor,
    zeros,
    zeros_like,
)
from .function import Context, Function, Node
from .grad_mode import is_grad_enabled
from .tensor import Tensor

__all__ = [
    "Context",
    "Function",
    "Node",
    "Tensor",
    "arange",
    "array_module",
    "as_tensor",
    "autograd",
    "bool_",
    "device",
    "empty",
    "empty_like",
    "eye",
    "float16",
    "float32",
    "float64",
    "full",
    "full_like",
    "get_default_dtype",
    "int32",
    "int64",
    "is_grad_enabled",
    "linspace",
    "manual_seed",
    "ones",
    "ones_like",
    "rand",
    "rand_like",
    "randn",
    "randn_like",
    "scatter_add",
    "set_default_dtype",
    "tensor",
    "two_layer_backward",
    "zeros",
    "zeros_like",
]

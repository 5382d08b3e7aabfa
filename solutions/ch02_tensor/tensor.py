"""``Tensor``: an n-dimensional array that remembers how it was computed.

A tensor is two things at once (§1 of the notebook):

- data: ``.data`` is a NumPy array (another device's array from chapter 7 on), with
  ``.shape``, ``.ndim``, ``.dtype`` and ``.device``;
- a node of the graph: ``.requires_grad`` (does anything want ∂L/∂this?), ``.grad_fn``
  (the ``Node`` of the operation that made it; ``None`` for a leaf the user made) and
  ``.grad`` (the gradient, a Tensor, ``None`` until a backward pass fills it: §9).

Everything here is given code. The operations live in the files named for them
(``arithmetic.py``, ``pointwise.py``, ``matmul.py``, ``reductions.py``, ``shapes.py``,
``indexing.py``); the methods below only call their ``apply``. The seams to later chapters
(``backward``, ``broadcast_to``, ``to``, …) are at the end of the class (see ``seams.py``),
how a tensor prints is ``printing.py``, and the helpers that turn data and operands into
arrays and Tensors (``_as_array``, ``_lift``, ``_operands``) follow the class.
"""

from __future__ import annotations

import numbers
import warnings
import weakref
from collections import namedtuple
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import arithmetic, indexing, inplace, matmul, pointwise, reductions, shapes
from .array_protocol import ArrayUfunc, cuda_array_interface
from .backend import array_module
from .casting import Cast, promote, result_type, scalar_type
from .device import CPU, DEFAULT, device
from .dtypes import LEGACY_NAMES, data_dtype, get_default_dtype, is_floating
from .inplace import InPlace
from .printing import format_tensor
from .seams import Later, later
from .version import VersionCounter, counter, share

max_result = namedtuple("max_result", ["values", "indices"])  # what max(dim=...) returns


class Tensor:
    """``Tensor(data, requires_grad=False, dtype=None, device=None)``."""

    # how arrays meet tensors (array_protocol.py): ``ndarray * Tensor`` is Tensor.__rmul__,
    # and ``p.data += t`` (an array's in-place operator) takes the tensor's array
    __array_ufunc__ = ArrayUfunc()
    __cuda_array_interface__ = property(cuda_array_interface)
    _version_counter: VersionCounter | None = None  # made on first use (version.py)
    _held = False  # a leaf some node holds as an input (function.py)
    _holders: list | None = None  # weak references to the nodes that hold it (function.py)

    def __init__(
        self, data: Any, requires_grad: bool = False, dtype: Any = None, device: Any = None
    ) -> None:
        array = _as_array(data, dtype)
        if requires_grad and not is_floating(array.dtype):
            raise RuntimeError(
                "only Tensors of floating point dtype can require gradients, "
                f"and this one holds {array.dtype}"
            )
        self.data = _on_device(array, device)
        self.requires_grad = bool(requires_grad)
        self._grad: Tensor | None = None  # None, not zeros: "no gradient has arrived" (§9)
        self.grad_fn = None  # the Node that made this tensor; None for a leaf
        self.retains_grad = False

    @classmethod
    def _from_array(cls, array: Any) -> Tensor:
        """Wrap an array an operation computed (no conversion; NumPy scalars become 0-d)."""
        out = cls.__new__(cls)
        plain = type(array) is not np.ndarray and (
            isinstance(array, np.generic) or not hasattr(array, "shape")
        )
        out.data = np.asarray(array) if plain else array
        out.requires_grad, out._grad, out.grad_fn, out.retains_grad = False, None, None, False
        return out

    _backward_hooks: tuple | list = ()  # a leaf's hooks (a non-leaf's live on its grad_fn)

    @property
    def grad(self) -> Tensor | None:
        """∂L/∂this after a backward pass: kept for leaves, and for other tensors only after
        ``retain_grad()`` (reading it otherwise warns, as PyTorch does)."""
        if self._grad is None and self.grad_fn is not None and not self.retains_grad:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
                "Its .grad attribute won't be populated during backward(). If you want the "
                "gradient of a non-leaf Tensor, call .retain_grad() on it first, or use "
                "autograd.grad(). (If you made it from a leaf by mistake, make the leaf with "
                ".detach() instead.)",
                UserWarning,
                stacklevel=2,
            )
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        self._grad = value

    # -- what it holds -------------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.data.shape)

    @property
    def ndim(self) -> int:
        return self.data.ndim

    @property
    def dtype(self) -> np.dtype:
        return self.data.dtype

    @property
    def is_leaf(self) -> bool:
        """Made by the user (not by an operation that recorded the graph)."""
        return self.grad_fn is None

    def dim(self) -> int:
        return self.data.ndim

    def size(self, dim: int | None = None) -> tuple[int, ...] | int:
        return self.shape if dim is None else self.shape[dim]

    def numel(self) -> int:
        return int(self.data.size)

    nelement = numel  # PyTorch's older name

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def item(self) -> float | int | bool:
        """The one number of a one-element tensor, as a Python number."""
        if self.data.size != 1:
            raise RuntimeError(f"item() needs a tensor of one element, not of shape {self.shape}")
        return self.data.reshape(()).item()

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        """A one-element integer (or bool) tensor as a Python index: ``classes[pred]``."""
        if self.data.dtype.kind not in "biu" or self.data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self) -> bool:
        return bool(self.data)  # NumPy's rule: one element, or "ambiguous"

    def numpy(self) -> np.ndarray:
        """The data as a NumPy array: the same memory. Only for the CPU's tensors, as in
        PyTorch: a device's must be copied to the host first, on purpose (``.cpu()``)."""
        if self.requires_grad:
            raise RuntimeError(
                "can't call numpy() on a Tensor that requires grad: use tensor.detach().numpy()"
            )
        if not isinstance(self.data, np.ndarray):
            raise TypeError(
                f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() to "
                "copy the tensor to host memory first."
            )
        return self.data

    def tolist(self) -> Any:
        """The values as (nested) Python numbers; a device's are copied to the host."""
        return self.detach().cpu().numpy().tolist()

    def __format__(self, spec: str) -> str:
        """``f"{loss:.3f}"``: a one-element tensor formats as its number."""
        if spec and self.data.size == 1:
            return format(self.item(), spec)
        return object.__format__(self, spec) if spec else repr(self)

    @property
    def _version(self) -> int:
        """How many times this tensor (or a view of its memory) was changed in place."""
        return counter(self).value

    def detach(self) -> Tensor:
        """The same data, cut from the graph: a leaf that does not require grad (a view:
        the same memory and version counter)."""
        out = Tensor._from_array(self.data)
        share(out, self)
        return out

    def detach_(self) -> Tensor:
        """Cut this tensor from the graph, in place: it becomes a leaf."""
        self.grad_fn, self.requires_grad = None, False
        return self

    def clone(self, *, memory_format: Any = None) -> Tensor:
        """A copy of the data that stays in the graph (the gradient flows back unchanged: a
        recorded cast to the same dtype). ``memory_format`` is accepted and ignored."""
        if self.requires_grad:
            return Cast.apply(self, self.dtype)
        return Tensor._from_array(self.data.copy())

    __hash__ = object.__hash__  # == is elementwise (below), so hash by identity

    # -- operators (each one a Function: see its file) -----------------------------------

    def __add__(self, other: Any) -> Tensor:
        return arithmetic.Add.apply(*_operands(self, _lift(other, self)))

    def __radd__(self, other: Any) -> Tensor:
        return arithmetic.Add.apply(*_operands(_lift(other, self), self))

    def __sub__(self, other: Any) -> Tensor:
        return arithmetic.Sub.apply(*_operands(self, _lift(other, self)))

    def __rsub__(self, other: Any) -> Tensor:
        return arithmetic.Sub.apply(*_operands(_lift(other, self), self))

    def __mul__(self, other: Any) -> Tensor:
        return arithmetic.Mul.apply(*_operands(self, _lift(other, self)))

    def __rmul__(self, other: Any) -> Tensor:
        return arithmetic.Mul.apply(*_operands(_lift(other, self), self))

    def __truediv__(self, other: Any) -> Tensor:
        return arithmetic.Div.apply(*_operands(self, _lift(other, self), floating=True))

    def __rtruediv__(self, other: Any) -> Tensor:
        return arithmetic.Div.apply(*_operands(_lift(other, self), self, floating=True))

    def add(self, other: Any, *, alpha: Any = 1) -> Tensor:
        """``self + alpha * other``."""
        return self + (other if alpha == 1 else other * alpha)

    def sub(self, other: Any, *, alpha: Any = 1) -> Tensor:
        """``self - alpha * other``."""
        return self - (other if alpha == 1 else other * alpha)

    def mul(self, other: Any) -> Tensor:
        return self * other

    def div(self, other: Any, *, rounding_mode: str | None = None) -> Tensor:
        """``self / other``; ``rounding_mode="floor"`` is ``//``, ``"trunc"`` rounds the
        quotient toward zero (a constant: its gradient is 0 almost everywhere)."""
        if rounding_mode is None:
            return self / other
        if rounding_mode == "floor":
            return self // other
        if rounding_mode == "trunc":  # in the dtype ``//`` gives (an integer for integers)
            values = Tensor._from_array(self.data)  # no gradient flows through a truncation
            floor, quotient = values // other, (values / other).data
            xp = array_module(quotient)
            return Tensor._from_array(xp.trunc(quotient).astype(floor.dtype))
        raise ValueError(
            f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"'{rounding_mode}'"
        )

    multiply, subtract, divide, true_divide = mul, sub, div, div

    def neg(self) -> Tensor:
        return -self

    negative = neg

    def __neg__(self) -> Tensor:
        return arithmetic.Neg.apply(self)

    def __pos__(self) -> Tensor:
        """``+x`` is ``x`` itself, as in PyTorch (a bool tensor refuses it)."""
        if self.dtype == np.bool_:
            raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
        return self

    def __pow__(self, exponent: Any) -> Tensor:
        if isinstance(exponent, Tensor):  # a tensor exponent: chapter 7's pow (a seam)
            return later(7, "ch07_device", "pow", "x ** tensor")(self, exponent)
        if not isinstance(exponent, numbers.Real):
            raise TypeError(
                f"x ** exponent takes a number as the exponent, not {type(exponent).__name__}"
            )
        base = self if isinstance(exponent, numbers.Integral) else _floating(self)
        return arithmetic.Pow.apply(base, exponent)

    def __matmul__(self, other: Any) -> Tensor:
        return matmul.MatMul.apply(self, _lift(other, self))

    def __rmatmul__(self, other: Any) -> Tensor:
        return matmul.MatMul.apply(_lift(other, self), self)

    def matmul(self, other: Any) -> Tensor:
        return self @ other

    def exp(self) -> Tensor:
        return pointwise.Exp.apply(_floating(self))

    def log(self) -> Tensor:
        return pointwise.Log.apply(_floating(self))

    def sqrt(self) -> Tensor:
        return pointwise.Sqrt.apply(_floating(self))

    def tanh(self) -> Tensor:
        return pointwise.Tanh.apply(_floating(self))

    def sigmoid(self) -> Tensor:
        return pointwise.Sigmoid.apply(_floating(self))

    def relu(self) -> Tensor:
        return pointwise.ReLU.apply(self)

    def abs(self) -> Tensor:
        return pointwise.Abs.apply(self)

    def __abs__(self) -> Tensor:
        return self.abs()

    @shapes.numpy_names  # axis= and keepdims= too, as in PyTorch
    def sum(
        self, dim: int | Sequence[int] | None = None, keepdim: bool = False, *, dtype: Any = None
    ) -> Tensor:
        """The sum over ``dim`` (all when None); ``dtype``: cast first, as PyTorch does."""
        x = self if dtype is None else self.to(dtype)
        return reductions.Sum.apply(x, dim, keepdim)

    @shapes.numpy_names
    def mean(self, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
        if not is_floating(self.dtype):
            raise RuntimeError(
                f"mean() needs a floating point tensor, not {self.dtype}: use x.float().mean()"
            )
        return reductions.Mean.apply(self, dim, keepdim)

    @shapes.numpy_names
    def max(self, dim: int | None = None, keepdim: bool = False) -> Tensor | max_result:
        """The largest element (``dim=None``), or ``(values, indices)`` along ``dim``."""
        values = reductions.Max.apply(self, dim, keepdim)
        if dim is None:
            return values
        return max_result(values, self.argmax(dim, keepdim))

    @shapes.numpy_names
    def argmax(self, dim: int | None = None, keepdim: bool = False) -> Tensor:
        """Index of the largest element (of the flattened tensor when ``dim`` is None, then
        shaped (1, …, 1) with ``keepdim``, as in PyTorch)."""
        xp = array_module(self.data)
        if dim is None or self.ndim == 0:
            index = xp.argmax(self.data)
            return Tensor._from_array(index.reshape((1,) * self.ndim) if keepdim else index)
        return Tensor._from_array(xp.argmax(self.data, axis=dim, keepdims=keepdim))

    def reshape(self, *shape: int) -> Tensor:
        return shapes.Reshape.apply(self, _shape_args(shape))

    view = reshape  # PyTorch's view shares memory; here both record a Reshape node

    def view_as(self, other: Tensor) -> Tensor:
        """``self.view(other.shape)``."""
        return self.view(other.shape)

    def expand_as(self, other: Tensor) -> Tensor:
        """``self.expand(other.shape)`` (chapter 3's expand)."""
        return self.expand(other.shape)

    @shapes.numpy_names
    def unsqueeze(self, dim: int) -> Tensor:
        """A size-1 axis inserted at ``dim``."""
        dim = shapes.dim_index(dim, self.ndim + 1)
        return self.reshape((*self.shape[:dim], 1, *self.shape[dim:]))

    @shapes.numpy_names
    def squeeze(self, dim: int | Sequence[int] | None = None) -> Tensor:
        """Size-1 axes removed (only ``dim``, or the axes of a tuple ``dim``, that have size
        1)."""
        if dim is None:
            return self.reshape(tuple(n for n in self.shape if n != 1))
        if isinstance(dim, (tuple, list)):
            drop = {shapes.dim_index(d, self.ndim) for d in dim}
            kept = [n for i, n in enumerate(self.shape) if i not in drop or n != 1]
            return self.reshape(tuple(kept))
        dim = shapes.dim_index(dim, self.ndim)
        if self.ndim == 0 or self.shape[dim] != 1:
            return self.reshape(self.shape)
        return self.reshape(self.shape[:dim] + self.shape[dim + 1 :])

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        return shapes.Transpose.apply(self, dim0, dim1)

    def permute(self, *dims: int) -> Tensor:
        return shapes.Permute.apply(self, _shape_args(dims))

    @property
    def T(self) -> Tensor:
        """The axes reversed (a matrix's transpose)."""
        return self.permute(tuple(range(self.ndim - 1, -1, -1)))

    def t(self) -> Tensor:
        """A matrix's transpose; a 0-d or 1-d tensor as it is (PyTorch refuses 3-d and up)."""
        if self.ndim > 2:
            raise RuntimeError(
                f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D"
            )
        return self.transpose(0, 1) if self.ndim == 2 else self.reshape(self.shape)

    @property
    def mT(self) -> Tensor:
        """The last two axes swapped: the transpose of each matrix of a batch."""
        if self.ndim < 2:
            raise RuntimeError(
                "tensor.mT is only supported on matrices or batches of matrices. "
                f"Got {self.ndim}-D tensor."
            )
        return self.transpose(-2, -1)

    def __getitem__(self, index: Any) -> Tensor:
        """PyTorch's layout: an integer next to a list or an array index selects first
        (``indexing.steps``), where NumPy would count it as one more array index."""
        return indexing.getitem(self, index)

    def __setitem__(self, index: Any, value: Any) -> None:
        """``x[index] = value`` (a number, or a tensor that broadcasts to ``x[index]``) on a
        tensor that records nothing; chapter 7 (its ``setitem``)."""
        later(7, "ch07_device", "setitem", "x[index] = value (item assignment)")(self, index, value)

    # -- comparisons and sign: constants, no gradient flows through them -----------------

    def _constant(self, fn: Any, other: Any = None) -> Tensor:
        other = _lift(other, self).data if other is not None else None
        if other is not None and other.shape != self.data.shape and other.shape and self.shape:
            _check_broadcast(self.shape, tuple(other.shape))  # PyTorch's RuntimeError
        return Tensor._from_array(fn(self.data) if other is None else fn(self.data, other))

    def __lt__(self, other: Any) -> Tensor:
        return self._constant(lambda a, b: a < b, other)

    def __le__(self, other: Any) -> Tensor:
        return self._constant(lambda a, b: a <= b, other)

    def __gt__(self, other: Any) -> Tensor:
        return self._constant(lambda a, b: a > b, other)

    def __ge__(self, other: Any) -> Tensor:
        return self._constant(lambda a, b: a >= b, other)

    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        return self._constant(lambda a, b: a == b, other)

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        return self._constant(lambda a, b: a != b, other)

    # the comparisons by name (``torch.eq(a, b)`` and the others are chapter 7's forms)
    def eq(self, other: Any) -> Tensor:
        return self == other

    def ne(self, other: Any) -> Tensor:
        return self != other

    not_equal = ne

    def lt(self, other: Any) -> Tensor:
        return self < other

    def le(self, other: Any) -> Tensor:
        return self <= other

    def gt(self, other: Any) -> Tensor:
        return self > other

    def ge(self, other: Any) -> Tensor:
        return self >= other

    def equal(self, other: Tensor) -> bool:
        """True when ``other`` has the same shape and the same values (of any dtype, as in
        PyTorch: ``ones(2).equal(ones(2, dtype=int64))``); nan is unequal to itself."""
        if not isinstance(other, Tensor):
            raise TypeError(f"equal(): argument 'other' must be Tensor, not {type(other).__name__}")
        if self.shape != other.shape:
            return False
        return bool((self == other).data.all())

    def sign(self) -> Tensor:
        """-1, 0 or 1 per element; a step function, so no gradient (it is 0 wherever it
        exists)."""
        return self._constant(lambda a: array_module(a).sign(a))

    # -- seams: later chapters build these (see seams.py) --------------------------------

    # a row per method that only calls a later chapter's function of its name (seams.Later):
    # ``x.min(0)`` is chapter 7's ``min(x, 0)``, imported then
    backward = Later(
        4,
        "ch04_backward",
        "(self, gradient=None, retain_graph=None, create_graph=False)",
        "Backpropagate from this tensor: chapter 4's engine. In chapter 2, you are the engine "
        "(``two_layer_backward``, §10).",
    )
    broadcast_to = Later(
        3, "ch03_broadcast", "(self, *shape)", "This tensor stretched to ``shape`` (chapter 3)."
    )
    expand = Later(
        3, "ch03_broadcast", "(self, *shape)", "Like ``broadcast_to``; -1 keeps a size (chapter 3)."
    )
    sum_to_size = Later(
        3,
        "ch03_broadcast",
        "(self, *shape)",
        "This tensor summed down to ``shape``, the reverse of ``broadcast_to`` (chapter 3).",
    )
    # chapter 7's everyday operations (its ops/ package)
    min = Later(
        7,
        "ch07_device",
        "(self, dim=None, keepdim=False)",
        "The smallest element (``dim=None``), or ``(values, indices)`` along ``dim``.",
    )
    argmin = Later(7, "ch07_device", "(self, dim=None, keepdim=False)")
    clamp = Later(7, "ch07_device", "(self, min=None, max=None)")
    clip = clamp
    where = Later(
        7,
        "ch07_device",
        "(condition, self, other)",
        "``self`` where ``condition``, else ``other``: ``torch.where(condition, self, other)``.",
    )
    gather = Later(7, "ch07_device", "(self, dim, index)")
    flatten = Later(7, "ch07_device", "(self, start_dim=0, end_dim=-1)")
    var = Later(
        7, "ch07_device", "(self, dim=None, unbiased=None, keepdim=False, *, correction=None)"
    )
    std = Later(
        7, "ch07_device", "(self, dim=None, unbiased=None, keepdim=False, *, correction=None)"
    )
    softmax = Later(7, "ch07_device", "(self, dim)")
    log_softmax = Later(7, "ch07_device", "(self, dim)")
    # chapter 5's random draws (its generator.py)
    multinomial = Later(
        5,
        "ch05_nn",
        "(self, num_samples, replacement=False, *, generator=None)",
        "Indices drawn with the probabilities of the weights of the last axis (chapter 5).",
    )
    # pointwise math, logic and running reductions (ops/pointwise.py, logic.py, reductions.py)
    sin = Later(7, "ch07_device", "(self)")
    cos = Later(7, "ch07_device", "(self)")
    tan = Later(7, "ch07_device", "(self)")
    log10 = Later(7, "ch07_device", "(self)")
    log2 = Later(7, "ch07_device", "(self)")
    pow = Later(
        7,
        "ch07_device",
        "(self, exponent)",
        "``self ** exponent``: a number exponent is chapter 2's ``**``; a tensor one is "
        "chapter 7's, whose gradient reaches both.",
    )
    remainder = Later(7, "ch07_device", "(self, other)", "Python's ``%``, elementwise.")
    __mod__ = remainder
    fmod = Later(7, "ch07_device", "(self, other)")
    floor_divide = Later(7, "ch07_device", "(self, other)", "``self // other``, elementwise.")
    __floordiv__ = floor_divide
    maximum = Later(7, "ch07_device", "(self, other)")
    minimum = Later(7, "ch07_device", "(self, other)")
    bitwise_and = Later(7, "ch07_device", "(self, other)", "``&``: bools and integers.")
    __and__ = __rand__ = bitwise_and
    bitwise_or = Later(7, "ch07_device", "(self, other)", "``|``: bools and integers.")
    __or__ = __ror__ = bitwise_or
    bitwise_xor = Later(7, "ch07_device", "(self, other)", "``^``: bools and integers.")
    __xor__ = __rxor__ = bitwise_xor
    bitwise_not = Later(7, "ch07_device", "(self)", "``~``: bools and integers.")
    __invert__ = bitwise_not
    logical_and = Later(7, "ch07_device", "(self, other)")
    logical_or = Later(7, "ch07_device", "(self, other)")
    logical_xor = Later(7, "ch07_device", "(self, other)")
    logical_not = Later(7, "ch07_device", "(self)")
    all = Later(7, "ch07_device", "(self, dim=None, keepdim=False)")
    any = Later(7, "ch07_device", "(self, dim=None, keepdim=False)")
    nonzero = Later(7, "ch07_device", "(self, *, as_tuple=False)")
    cumsum = Later(7, "ch07_device", "(self, dim, *, dtype=None)")
    prod = Later(7, "ch07_device", "(self, dim=None, keepdim=False, *, dtype=None)")
    # shape, sorting and masking operations (ops/shapes.py, ops/sorting.py)
    tril = Later(7, "ch07_device", "(self, diagonal=0)")
    triu = Later(7, "ch07_device", "(self, diagonal=0)")

    def flip(self, *dims: Any, **kwargs: Any) -> Tensor:
        """``self`` reversed along ``dims``: ``x.flip(0, 1)``, ``x.flip((0, 1))`` or
        ``x.flip(dims=(0, 1))`` (chapter 7's ``flip``)."""
        if kwargs:
            if dims or set(kwargs) != {"dims"}:
                extra = next(iter(set(kwargs) - {"dims"}), "dims")
                raise TypeError(f"flip() got an unexpected keyword argument {extra!r}")
            dims = kwargs["dims"]
        else:
            dims = _shape_args(dims)
        return later(7, "ch07_device", "flip", "Tensor.flip")(self, dims)

    repeat = Later(
        7, "ch07_device", "(self, *sizes)", "``self`` copied ``sizes[i]`` times along axis i."
    )
    split = Later(7, "ch07_device", "(self, split_size, dim=0)", numpy_names=False)
    chunk = Later(7, "ch07_device", "(self, chunks, dim=0)")
    masked_fill = Later(7, "ch07_device", "(self, mask, value)")
    sort = Later(7, "ch07_device", "(self, dim=-1, descending=False, *, stable=False)")
    argsort = Later(7, "ch07_device", "(self, dim=-1, descending=False, *, stable=False)")
    topk = Later(7, "ch07_device", "(self, k, dim=-1, largest=True, sorted=True)")
    # scatter, diagonals, splits, more pointwise math, value checks (ops/scatter.py,
    # diagonal.py, stacking.py, hyperbolic.py, values.py)
    scatter = Later(7, "ch07_device", "(self, dim, index, src=None, *, value=None, reduce=None)")

    def scatter_add(self, dim: int, index: Tensor, src: Tensor) -> Tensor:
        """A copy of ``self`` with ``src`` added at ``index`` along ``dim``: chapter 7's
        ``ops.scatter_add`` (the package's ``scatter_add`` is task 7.6's, on arrays)."""
        return later(7, "ch07_device", "ops", "Tensor.scatter_add").scatter_add(
            self, dim, index, src
        )

    diagonal = Later(7, "ch07_device", "(self, offset=0, dim1=0, dim2=1)")
    diag = Later(7, "ch07_device", "(self, diagonal=0)")
    diag_embed = Later(7, "ch07_device", "(self, offset=0, dim1=-2, dim2=-1)")
    tensor_split = Later(7, "ch07_device", "(self, indices_or_sections, dim=0)")
    hsplit = Later(7, "ch07_device", "(self, indices_or_sections)")
    vsplit = Later(7, "ch07_device", "(self, indices_or_sections)")
    dsplit = Later(7, "ch07_device", "(self, indices_or_sections)")
    sinh = Later(7, "ch07_device", "(self)")
    cosh = Later(7, "ch07_device", "(self)")
    asin = Later(7, "ch07_device", "(self)")
    arcsin = asin
    acos = Later(7, "ch07_device", "(self)")
    arccos = acos
    atan = Later(7, "ch07_device", "(self)")
    arctan = atan
    asinh = Later(7, "ch07_device", "(self)")
    arcsinh = asinh
    acosh = Later(7, "ch07_device", "(self)")
    arccosh = acosh
    atanh = Later(7, "ch07_device", "(self)")
    arctanh = atanh
    log1p = Later(7, "ch07_device", "(self)")
    expm1 = Later(7, "ch07_device", "(self)")
    isclose = Later(7, "ch07_device", "(self, other, rtol=1e-05, atol=1e-08, equal_nan=False)")
    allclose = Later(7, "ch07_device", "(self, other, rtol=1e-05, atol=1e-08, equal_nan=False)")
    unique = Later(
        7,
        "ch07_device",
        "(self, sorted=True, return_inverse=False, return_counts=False, dim=None)",
        numpy_names=False,
    )
    bitwise_left_shift = Later(7, "ch07_device", "(self, other)", "``<<``: integers.")
    __lshift__ = bitwise_left_shift
    bitwise_right_shift = Later(7, "ch07_device", "(self, other)", "``>>``: integers.")
    __rshift__ = bitwise_right_shift

    def __rlshift__(self, other: Any) -> Tensor:
        return later(7, "ch07_device", "bitwise_left_shift", "number << tensor")(other, self)

    def __rrshift__(self, other: Any) -> Tensor:
        return later(7, "ch07_device", "bitwise_right_shift", "number >> tensor")(other, self)

    def type_as(self, other: Tensor) -> Tensor:
        """``self`` as ``other``'s dtype, on ``other``'s device (``self`` itself when it is
        already): PyTorch's ``self.type(other.type())``."""
        return self.to(other.device, other.dtype)

    @property
    def is_cuda(self) -> bool:
        """Whether the tensor is on a CUDA GPU (chapter 7)."""
        return self.device.type == "cuda"

    def __rpow__(self, other: Any) -> Tensor:
        """``number ** tensor`` (``10 ** x``): chapter 7's ``pow``."""
        return later(7, "ch07_device", "pow", "number ** tensor")(other, self)

    def __rmod__(self, other: Any) -> Tensor:
        return later(7, "ch07_device", "remainder", "number % tensor")(other, self)

    def __rfloordiv__(self, other: Any) -> Tensor:
        return later(7, "ch07_device", "floor_divide", "number // tensor")(other, self)

    def retain_grad(self) -> None:
        """Ask the engine (chapter 4) to keep this non-leaf tensor's ``.grad``."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on a Tensor that has requires_grad=False")
        if self.grad_fn is not None and not self.retains_grad:
            self.retains_grad = True
            self.grad_fn.retained = weakref.ref(self)

    def register_hook(self, hook: Any) -> RemovableHandle:
        """Call ``hook(grad)`` when this tensor's gradient has been computed, during every
        backward pass (chapter 4); a hook that returns a Tensor replaces the gradient."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        # a leaf keeps its hooks; a non-leaf's live on its grad_fn, where the engine finds them
        owner, name = (self, "_backward_hooks") if self.grad_fn is None else (self.grad_fn, "hooks")
        hooks = getattr(owner, name)
        if isinstance(hooks, tuple):  # () until the first hook: then a list of its own
            hooks = []
            setattr(owner, name, hooks)
        hooks.append(hook)
        return RemovableHandle(hooks, hook)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` of a leaf in place (and return it)."""
        if self.grad_fn is not None and not requires_grad:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables; use detach() "
                "to get a tensor that does not require grad"
            )
        if requires_grad and not is_floating(self.dtype):
            raise RuntimeError(
                "only Tensors of floating point dtype can require gradients, "
                f"and this one holds {self.dtype}"
            )
        self.requires_grad = bool(requires_grad)
        return self

    # -- in place (inplace.py): each the out-of-place method, written into this tensor -----

    __iadd__ = InPlace("__add__", "+=")
    __isub__ = InPlace("__sub__", "-=")
    __imul__ = InPlace("__mul__", "*=")
    __itruediv__ = InPlace("__truediv__", "/=")
    __ipow__ = InPlace("__pow__", "**=")
    __ifloordiv__ = InPlace("__floordiv__", "//=")
    __imod__ = InPlace("__mod__", "%=")
    __iand__ = InPlace("__and__", "&=")
    __ior__ = InPlace("__or__", "|=")
    __ixor__ = InPlace("__xor__", "^=")
    add_ = InPlace("add")
    sub_ = InPlace("sub")
    mul_ = InPlace("mul")
    div_ = InPlace("div")
    multiply_ = InPlace("mul")
    subtract_ = InPlace("sub")
    divide_ = InPlace("div")
    true_divide_ = InPlace("div")
    neg_ = InPlace("neg")
    negative_ = InPlace("neg")
    pow_ = InPlace("pow")
    abs_ = InPlace("abs")
    exp_ = InPlace("exp")
    log_ = InPlace("log")
    sqrt_ = InPlace("sqrt")
    tanh_ = InPlace("tanh")
    sigmoid_ = InPlace("sigmoid")
    relu_ = InPlace("relu")
    sin_ = InPlace("sin")
    cos_ = InPlace("cos")
    log1p_ = InPlace("log1p")
    expm1_ = InPlace("expm1")
    clamp_ = InPlace("clamp")
    clip_ = InPlace("clamp")
    clamp_min_ = InPlace("clamp_min")
    clamp_max_ = InPlace("clamp_max")
    remainder_ = InPlace("remainder")
    fmod_ = InPlace("fmod")
    masked_fill_ = InPlace("masked_fill")
    scatter_ = InPlace("scatter")
    scatter_add_ = InPlace("scatter_add")
    fill_ = InPlace(inplace.filled, "fill_")
    zero_ = InPlace(inplace.zeros, "zero_")
    copy_ = InPlace(inplace.copied, "copy_")
    normal_ = InPlace(inplace.normal, "normal_")
    uniform_ = InPlace(inplace.uniform, "uniform_")

    def clamp_min(self, min: Any) -> Tensor:
        return self.clamp(min=min)

    def clamp_max(self, max: Any) -> Tensor:
        return self.clamp(max=max)

    @property
    def device(self) -> device:
        if isinstance(self.data, np.ndarray):
            return CPU
        return later(7, "ch07_device", "device_of", "support for other devices")(self.data)

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """This tensor as another dtype and/or on another device, PyTorch's forms:
        ``x.to(sp.float64)``, ``x.to("cuda")``, ``x.to("cuda", sp.float64)``, ``x.to(other)``
        (its device and dtype), ``x.to(device=..., dtype=...)``. Itself when nothing changes
        (``copy=True``: a new tensor even then); ``non_blocking`` is accepted (copies here
        are synchronous). Chapter 2 has the CPU; chapter 7 adds other devices."""
        target, dtype = _to_args(args, kwargs)
        out = self
        if target is not None and _device(target) != self.device:
            move = later(7, "ch07_device", "to_device", f"moving data to device '{target}'")
            out = move(out, target)
        if dtype is not None and dtype != out.dtype:
            if not is_floating(dtype):  # as in PyTorch: an integer result is a constant
                return Tensor._from_array(out.data.astype(dtype))
            out = Cast.apply(out, dtype)
        if out is self and kwargs.get("copy"):
            return Cast.apply(self, self.dtype) if is_floating(self.dtype) else self.detach()
        return out

    def float(self) -> Tensor:
        """As float32 (a recorded cast: the gradient flows back through it)."""
        return self.to(np.dtype(np.float32))

    def double(self) -> Tensor:
        """As float64."""
        return self.to(np.dtype(np.float64))

    def half(self) -> Tensor:
        """As float16."""
        return self.to(np.dtype(np.float16))

    def type(self, dtype: Any = None, non_blocking: bool = False) -> Any:
        """With a dtype, a cast (``x.type(sp.float64)`` is ``x.to(sp.float64)``; PyTorch's
        type names work too: ``x.type("torch.DoubleTensor")``, and ``"torch.cuda.…"`` moves
        the tensor to the GPU). Without one, PyTorch's name of the tensor's type as a string:
        ``"torch.FloatTensor"`` for float32 on the CPU, ``"torch.cuda.FloatTensor"`` on the
        GPU, ``"torch.sim.FloatTensor"`` on the simulated device."""
        if dtype is None:
            name = LEGACY_NAMES.get(self.dtype, str(self.dtype))
            where = "" if self.device.type == "cpu" else f"{self.device.type}."
            return f"torch.{where}{name}"
        if isinstance(dtype, str):
            prefix, _, name = dtype.rpartition(".")
            kinds = {v: k for k, v in LEGACY_NAMES.items()}
            if name not in kinds or prefix not in ("torch", "torch.cuda"):
                raise ValueError(f"invalid type: {dtype!r}")
            target = "cuda" if prefix == "torch.cuda" else "cpu"
            return self.to(target, kinds[name], non_blocking=non_blocking)
        if isinstance(dtype, type) and dtype in (float, int, bool, complex):  # not dtypes
            raise ValueError(f"invalid type: {dtype.__name__!r}")
        return self.to(dtype, non_blocking=non_blocking)

    def long(self) -> Tensor:
        """As int64 (a constant: no gradient flows through an integer)."""
        return self.to(np.dtype(np.int64))

    def int(self) -> Tensor:
        """As int32."""
        return self.to(np.dtype(np.int32))

    def bool(self) -> Tensor:
        """As bool."""
        return self.to(np.dtype(np.bool_))

    def cpu(self) -> Tensor:
        return self.to(CPU)

    def cuda(self, index: int | None = None) -> Tensor:
        return self.to(device("cuda", index))

    # -- printing (printing.py) ----------------------------------------------------------

    def __repr__(self) -> str:
        return format_tensor(self)


class RemovableHandle:
    """What ``register_hook`` returns: ``handle.remove()`` takes the hook off again."""

    def __init__(self, hooks: list, hook: Any) -> None:
        self._hooks, self._hook = hooks, hook

    def remove(self) -> None:
        if any(h is self._hook for h in self._hooks):
            self._hooks.remove(self._hook)


# -- helpers of the methods above ----------------------------------------------------------


def _as_array(data: Any, dtype: Any) -> Any:
    """``data`` as an array, with PyTorch's dtype rules: NumPy arrays and numbers keep their
    dtype; Python data gets ``data_dtype`` (floats the default dtype, ints int64, bools
    bool). A Python float is converted once, to the dtype it ends up with, so
    ``dtype=float64`` keeps all of its digits."""
    if isinstance(data, Tensor):
        data = data.data
    if isinstance(data, (np.ndarray, np.generic)):
        array = np.asarray(data)
    elif isinstance(data, (numbers.Number, Sequence)) and not isinstance(data, str):
        target = data_dtype(data) if dtype is None else np.dtype(dtype)
        try:
            array = np.asarray(data, dtype=target)
        except ValueError as error:  # ragged nesting, or a string inside
            raise ValueError(f"cannot make a tensor of {data!r}: {error}") from None
    elif hasattr(data, "shape") and hasattr(data, "dtype"):
        array = data  # another device's array (chapter 7)
    else:
        kind = type(data).__name__
        raise TypeError(f"a Tensor is made from numbers, lists or arrays, not {kind}")
    if dtype is not None:
        array = array.astype(np.dtype(dtype), copy=False)
    if array.dtype.kind not in "biuf":
        raise TypeError(
            f"a Tensor holds bool, integer or floating data, not {array.dtype} (from {data!r})"
        )
    return array


def _lift(value: Any, like: Tensor) -> Tensor:
    """The other operand of an operator as a Tensor: a Python number becomes a constant of
    ``like``'s dtype (as in PyTorch, ``x * 2`` keeps float32) on ``like``'s device, unless
    it is of a higher category (``int_tensor * 2.5`` is float32). The number is converted
    once, straight to that dtype (``float64_tensor + 0.1`` adds the float64 0.1). A list is
    a tensor of its own (``data_dtype``), converted once to the dtype of the result."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (float, int)) or isinstance(value, numbers.Number):  # ABC: slower
        xp = array_module(like.data)
        return Tensor._from_array(xp.asarray(value, dtype=scalar_type(value, like.dtype)))
    if isinstance(value, Sequence) and not isinstance(value, str):
        return Tensor(value, dtype=result_type(like, Tensor(value)))
    return Tensor(value)


def _operands(a: Any, b: Any, floating: bool = False) -> tuple[Tensor, Tensor]:
    """Both operands of a binary operator as Tensors of one dtype, PyTorch's (casting.py);
    ``floating``: integers become the default floating dtype (true division). Their shapes
    must broadcast (NumPy's rule: chapter 3).

    The common case costs two comparisons, of the arrays' shapes and dtypes: equal shapes
    (or a 0-d operand, such as a lifted Python number) always broadcast, and equal dtypes
    need no promotion."""
    a_shape, b_shape = a.data.shape, b.data.shape
    if a_shape != b_shape and a_shape and b_shape:  # () is a 0-d operand
        _check_broadcast(a.shape, b.shape)
    if a.data.dtype != b.data.dtype:
        a, b = promote(a, b)
    if floating and not is_floating(a.dtype):
        a, b = Cast.apply(a, get_default_dtype()), Cast.apply(b, get_default_dtype())
    return a, b


def _check_broadcast(a_shape: tuple[int, ...], b_shape: tuple[int, ...]) -> None:
    """NumPy's rule: compared from the right, each pair of sizes is equal or has a 1."""
    for m, n in zip(reversed(a_shape), reversed(b_shape)):
        if m != n and m != 1 and n != 1:
            raise RuntimeError(
                f"shapes {a_shape} and {b_shape} do not broadcast: compared from the right, "
                "each pair of sizes must be equal, or one of them 1"
            )


def _floating(x: Tensor) -> Tensor:
    """``x`` for a function whose values are fractions (exp, log, …): integers and bools
    become the default floating dtype first, as in PyTorch."""
    return x if is_floating(x.dtype) else Cast.apply(x, get_default_dtype())


def _shape_args(shape: tuple) -> tuple:
    """``f(2, 3)`` and ``f((2, 3))`` both mean the shape (2, 3)."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


def _on_device(array: Any, spec: Any) -> Any:
    """``array`` on device ``spec`` (None: the default device, the CPU unless chapter 7's
    ``set_default_device`` chose another): as it is for the CPU; others are chapter 7's."""
    if spec is None:
        spec = DEFAULT["device"]
        if spec is None:
            return array
    if isinstance(array, np.ndarray) and _device(spec) == CPU:
        return array
    move = later(7, "ch07_device", "move_array", f"moving data to device {spec!r}")
    return move(array, spec)


def _to_args(args: tuple, kwargs: dict) -> tuple[Any, Any]:
    """``Tensor.to``'s arguments as (device or None, dtype or None): PyTorch's forms."""
    target, dtype = kwargs.pop("device", None), kwargs.pop("dtype", None)
    unknown = set(kwargs) - {"non_blocking", "copy"}
    if unknown:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(unknown)}")
    for arg in args:
        if isinstance(arg, Tensor):
            target, dtype = arg.device, arg.dtype
        elif isinstance(arg, (np.dtype, type)):
            dtype = arg
        elif isinstance(arg, (str, device)):
            target = arg
        elif arg is not None:
            raise TypeError(f"to() takes a device, a dtype or a tensor, not {arg!r}")
    return target, None if dtype is None else np.dtype(dtype)


def _device(spec: Any) -> device:
    return spec if isinstance(spec, device) else device(spec)

"""``Generator``: a source of random numbers of your own, and the draws that take one:
``randperm``, ``randint``, ``normal``, ``multinomial`` (given code; ``randn``, ``rand`` and
their ``_like`` forms take ``generator=`` too, through chapter 2's seam to ``rng_of``).

PyTorch draws from one global generator (``manual_seed(n)`` reseeds it) unless a function
is handed a ``Generator`` of its own. A ``DataLoader`` given ``generator=Generator()
.manual_seed(0)`` shuffles the same way on every run, whatever else draws random numbers::

    g = sp.Generator().manual_seed(0)
    sp.randperm(5, generator=g)          # tensor([...]): the same five on every run

The numbers come from NumPy's ``default_rng`` (PCG64), so they are not PyTorch's numbers:
the same seed gives a different shuffle here and there. PyTorch's signatures, defaults,
dtypes and errors are kept.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ch02_tensor import factories
from ..ch02_tensor.backend import array_module
from ..ch02_tensor.casting import result_type
from ..ch02_tensor.dtypes import is_floating
from ..ch02_tensor.function import Context, Function
from ..ch02_tensor.tensor import Tensor


class Generator:
    """``Generator(device="cpu")``: an independent stream of random numbers."""

    def __init__(self, device: Any = "cpu") -> None:
        self.device = device
        self.manual_seed(int(np.random.SeedSequence().entropy) % 2**63)  # a fresh seed

    def manual_seed(self, seed: int) -> Generator:
        """Restart the stream from ``seed`` (any int; a negative one as PyTorch takes it,
        modulo 2⁶⁴); returns the generator (PyTorch's chaining)."""
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            raise TypeError(f"manual_seed takes an int, not {type(seed).__name__}")
        self._seed = int(seed)
        self._rng = np.random.default_rng(self._seed % 2**64)
        return self

    def initial_seed(self) -> int:
        """The seed the stream started from (the last ``manual_seed``'s, else a fresh one)."""
        return self._seed

    def get_state(self) -> dict:
        """The stream's position, for ``set_state`` (a copy)."""
        return dict(self._rng.bit_generator.state)

    def set_state(self, state: dict) -> Generator:
        self._rng.bit_generator.state = state
        return self


def rng_of(generator: Generator | None) -> np.random.Generator:
    """The NumPy generator to draw from: the given one's, else the global one (the one
    ``manual_seed`` reseeds)."""
    if generator is None:
        return factories._random["generator"]
    if not isinstance(generator, Generator):
        raise TypeError(f"generator= takes a Generator, not {type(generator).__name__}")
    return generator._rng


def _integer(value: Any, name: str, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what}(): argument '{name}' must be int, not {type(value).__name__}")
    return int(value)


def randperm(
    n: int,
    *,
    generator: Generator | None = None,
    dtype: Any = np.int64,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """A random permutation of ``0 … n-1`` (int64 unless ``dtype``)."""
    n = _integer(n, "n", "randperm")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    order = rng_of(generator).permutation(n).astype(np.dtype(dtype))
    return Tensor(order, requires_grad=requires_grad, device=device)


def randint(
    *args: Any,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    **kwargs: Any,
) -> Tensor:
    """``randint(high, size)`` or ``randint(low, high, size)``: integers drawn uniformly from
    ``low`` (0 unless given) to ``high - 1``, int64 unless ``dtype`` (a floating ``dtype``
    holds the same whole numbers). ``size`` is a tuple, as in PyTorch."""
    unknown = set(kwargs) - {"low", "high", "size"}
    if unknown:
        raise TypeError(f"randint() got an unexpected keyword argument {sorted(unknown)[0]!r}")
    names = ["low", "high", "size"] if len(args) + len(kwargs) >= 3 else ["high", "size"]
    given = dict(zip(names, args))
    for name, value in kwargs.items():
        if name in given:
            raise TypeError(f"randint() got multiple values for argument {name!r}")
        given[name] = value
    if "high" not in given or "size" not in given:
        raise TypeError("randint() takes (high, size) or (low, high, size)")
    low = _integer(given.get("low", 0), "low", "randint")
    high = _integer(given["high"], "high", "randint")
    size = given["size"]
    if not isinstance(size, (tuple, list)):
        raise TypeError(
            f"randint(): argument 'size' must be tuple of ints, not {type(size).__name__}"
        )
    size = factories._size((tuple(size),))
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    dtype = np.dtype(np.int64) if dtype is None else np.dtype(dtype)
    if dtype.kind in "biu":
        info = np.iinfo(np.uint8) if dtype.kind == "b" else np.iinfo(dtype)
        top = 1 if dtype.kind == "b" else info.max
        if high - 1 > top or low < info.min:
            raise RuntimeError(f"to - 1 is out of bounds for {dtype}")
    values = rng_of(generator).integers(low, high, size=size, dtype=np.int64)
    return Tensor(values.astype(dtype), requires_grad=requires_grad, device=device)


class Normal(Function):
    """out = mean + std · ε, ε a standard normal draw       ∂L/∂mean = 0, ∂L/∂std = 0 (as in
    PyTorch: a draw is not differentiated; write ``mean + std * randn(...)`` for the
    reparametrised gradient)"""

    @staticmethod
    def forward(ctx: Context, mean, std, noise):
        ctx.shapes = (mean.shape, std.shape)
        return mean.data + std.data * noise

    @staticmethod
    def backward(ctx: Context, grad_output):
        xp = array_module(grad_output.data)
        zero = [Tensor._from_array(xp.zeros(s, dtype=grad_output.dtype)) for s in ctx.shapes]
        return zero[0], zero[1]


def normal(
    mean: Any,
    std: Any = 1.0,
    size: Any = None,
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Draws of the normal distribution N(mean, std²): ``normal(mean, std, size)`` with two
    numbers (the default dtype unless ``dtype``), or elementwise with a tensor ``mean`` and/or
    ``std`` (their broadcast shape and floating dtype; no ``size``)."""
    rng = rng_of(generator)
    if not isinstance(mean, Tensor) and not isinstance(std, Tensor):
        if size is None:
            raise TypeError("normal() with a number mean and std takes a size: (mean, std, size)")
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
        dtype = factories._floating_dtype(dtype, "normal_kernel_cpu")
        values = rng.normal(float(mean), float(std), size=factories._size((tuple(size),)))
        return Tensor(values.astype(dtype), requires_grad=requires_grad, device=device)
    if size is not None:
        raise TypeError("normal() with a tensor mean or std takes no size")
    like = mean if isinstance(mean, Tensor) else std
    for t in (mean, std):
        if isinstance(t, Tensor) and not is_floating(t.dtype):
            raise NotImplementedError(f'"normal_kernel_cpu" not implemented for {t.dtype}')
    if not isinstance(std, Tensor) and std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    if isinstance(std, Tensor) and bool((std.detach().cpu().data < 0).any()):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    floats = [t for t in (mean, std) if isinstance(t, Tensor)]
    out_dtype = result_type(*floats) if len(floats) == 2 else like.dtype
    xp = array_module(like.data)
    mean, std = (
        t.to(out_dtype) if isinstance(t, Tensor) else Tensor._from_array(xp.asarray(t, out_dtype))
        for t in (mean, std)
    )
    try:
        shape = np.broadcast_shapes(mean.shape, std.shape)
    except ValueError:
        raise RuntimeError(
            f"normal(): the shapes of mean {mean.shape} and std {std.shape} do not broadcast"
        ) from None
    noise = Tensor(rng.standard_normal(shape).astype(out_dtype), device=like.device)
    return Normal.apply(mean, std, noise.data)


def multinomial(
    input: Tensor,
    num_samples: int,
    replacement: bool = False,
    *,
    generator: Generator | None = None,
) -> Tensor:
    """Indices drawn from the categories of ``input``'s last axis, each with probability its
    weight over the row's sum (a row need not sum to 1): shape (num_samples,) for a 1-D
    ``input``, (rows, num_samples) for a 2-D one; int64, on ``input``'s device. Without
    ``replacement`` no index repeats in a row: the ``num_samples`` largest of wᵢ / qᵢ, qᵢ
    exponential draws (the same distribution as drawing one by one and removing it;
    PyTorch's method too)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"multinomial() takes a Tensor, not {type(input).__name__}")
    if not is_floating(input.dtype):
        raise RuntimeError(
            f"multinomial only supports floating-point dtypes for input, got: {input.dtype}"
        )
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    n = _integer(num_samples, "num_samples", "multinomial")
    if n <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    weights = np.asarray(input.detach().cpu().data, dtype=np.float64).reshape(-1, input.shape[-1])
    k = weights.shape[1]
    if k == 0:
        raise RuntimeError("multinomial: cannot sample from an empty distribution (0 categories)")
    if not replacement and n > k:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    if not np.isfinite(weights).all() or (weights < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (weights.sum(axis=1) <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = rng_of(generator)
    if replacement:
        cdf = np.cumsum(weights, axis=1)
        u = rng.random((weights.shape[0], n)) * cdf[:, -1:]
        last = k - 1 - np.argmax(weights[:, ::-1] > 0, axis=1)  # each row's last category > 0
        picks = [np.searchsorted(c, row, side="right") for c, row in zip(cdf, u)]
        drawn = np.minimum(np.array(picks, dtype=np.int64).reshape(-1, n), last[:, None])
    else:
        with np.errstate(divide="ignore"):
            keys = weights / rng.exponential(size=weights.shape)
        drawn = np.argsort(-keys, axis=1, kind="stable")[:, :n]
    drawn = drawn.astype(np.int64).reshape((n,) if input.ndim == 1 else (-1, n))
    return Tensor(drawn, device=input.device)

"""``unfold`` (im2col) and its adjoint ``fold`` (col2im): tasks 8.1 and 8.2 (§3–§4).

A convolution slides a small kernel over an image and takes a dot product at every stop.
``unfold`` lays every stop's window out as a column, so that all the dot products become one
matrix product (``conv.py``). For ``x`` of shape (N, C, H, W) and a kh × kw kernel:

    cols[n, (c, i, j), (p, q)] = x_padded[n, c, p·sh + i·dh, q·sw + j·dw]

of shape (N, C·kh·kw, L), L = oh·ow windows (``sizes.output_size``), rows ordered (c, i, j)
and columns (p, q), as PyTorch's ``F.unfold``. It is built from a *view*: ``windows`` gives
the six-axis array (N, C, kh, kw, oh, ow) over ``x``'s own memory by choosing strides (no
copy, no Python loop over positions); only the final copy into cols costs memory.

``fold`` is the adjoint: the map whose matrix is unfold's transposed. A pixel that several
windows saw receives the sum of all their entries, so fold *adds* where patches overlap:
the scatter-add of chapter 2 (``x[i] += …`` where i repeats), one kernel offset at a time:

    x[n, c, p·sh + i·dh − ph, q·sw + j·dw − pw] += cols[n, (c, i, j), (p, q)]

Each is the other's gradient (∂L/∂x = fold(∂L/∂cols), ∂L/∂cols = unfold(∂L/∂x)), and
each backward calls the other as a recorded operation, so anything built on them is twice
differentiable for free.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ch02_tensor.backend import array_module
from ..ch02_tensor.function import Context, Function
from ..ch02_tensor.tensor import Tensor
from ..ch05_nn.nn.module import Module
from .sizes import output_shape, output_size, pair

Pair = tuple[int, int]


def _reach(shape: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int, int]:
    """The lowest and highest byte offset, from the first element, that an array of this
    shape and these strides reads."""
    if 0 in shape:
        return 0, 0
    steps = [(n - 1) * s for n, s in zip(shape, strides)]
    return sum(d for d in steps if d < 0), sum(d for d in steps if d > 0)


def as_strided(x: Any, shape: tuple[int, ...], strides: tuple[int, ...]) -> Any:
    """A view of ``x`` with the given shape and byte strides, on ``x``'s device (NumPy's
    ``as_strided``; read-only on the host, so nothing writes through overlapping windows).
    A view that would read outside ``x``'s memory is refused: NumPy would read whatever
    lies there (or crash), so a wrong stride or size is named here instead."""
    low, high = _reach(tuple(shape), tuple(strides))
    x_low, x_high = _reach(x.shape, x.strides)
    if low < x_low or high > x_high:
        raise ValueError(
            f"a strided view of shape {tuple(shape)} with strides {tuple(strides)} would read "
            f"outside its array (shape {x.shape}, strides {x.strides}): bytes {low}…{high} "
            f"from its first element, where the array holds {x_low}…{x_high}. Check the "
            "strides (in bytes) and the number of windows."
        )
    xp = array_module(x)
    if xp is np:
        return np.lib.stride_tricks.as_strided(x, shape, strides, writeable=False)
    return xp.lib.stride_tricks.as_strided(x, shape, strides)


def windows(x: Any, kernel_size: Pair, dilation: Pair = (1, 1), stride: Pair = (1, 1)) -> Any:
    """Every window of ``x`` (N, C, H, W), already padded, as a view (N, C, kh, kw, oh, ow):

        view[n, c, i, j, p, q] = x[n, c, p·sh + i·dh, q·sw + j·dw]

    A step along i moves dh rows, along p sh rows: the strides are x's, multiplied."""
    ### BEGIN SOLUTION 8.1
    (kh, kw), (dh, dw), (sh, sw) = kernel_size, dilation, stride
    n, c, h, w = x.shape
    oh, ow = output_size(h, kh, sh, 0, dh), output_size(w, kw, sw, 0, dw)
    s_n, s_c, s_h, s_w = x.strides
    shape = (n, c, kh, kw, oh, ow)
    return as_strided(x, shape, (s_n, s_c, s_h * dh, s_w * dw, s_h * sh, s_w * sw))
    ### END SOLUTION


def pad(x: Any, padding: Pair, value: float = 0.0) -> Any:
    """``x`` (N, C, H, W) with ``padding`` rows and columns of ``value`` on each side."""
    ph, pw = padding
    if ph == pw == 0:
        return x
    widths = ((0, 0), (0, 0), (ph, ph), (pw, pw))
    return array_module(x).pad(x, widths, constant_values=value)


def im2col(x: Any, kernel_size: Pair, dilation: Pair, padding: Pair, stride: Pair) -> Any:
    """unfold on arrays: (N, C, H, W) → (N, C·kh·kw, L), a new array (given)."""
    view = windows(pad(x, padding), kernel_size, dilation, stride)
    n, c, kh, kw, oh, ow = view.shape
    # the one copy (copy() first: with a 1×1 or a whole-image kernel the view is already laid
    # out as the result, and a bare reshape would hand out x's own memory)
    return view.copy().reshape(n, c * kh * kw, oh * ow)


def col2im(
    cols: Any, size: Pair, kernel_size: Pair, dilation: Pair, padding: Pair, stride: Pair
) -> Any:
    """fold on arrays: ``cols`` (N, C·kh·kw, L) back to (N, C, H, W), ``size`` = (H, W),
    each entry added to the pixel it came from (overlapping windows add up)."""
    ### BEGIN SOLUTION 8.2
    (h, w), (kh, kw), (dh, dw), (ph, pw), (sh, sw) = size, kernel_size, dilation, padding, stride
    oh, ow = output_size(h, kh, sh, ph, dh), output_size(w, kw, sw, pw, dw)
    n = cols.shape[0]
    c = cols.shape[1] // (kh * kw)
    patches = cols.reshape(n, c, kh, kw, oh, ow)
    out = array_module(cols).zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=cols.dtype)
    for i in range(kh):  # one kernel offset at a time: every window's (i, j) pixel
        for j in range(kw):
            top, left = i * dh, j * dw
            out[:, :, top : top + sh * (oh - 1) + 1 : sh, left : left + sw * (ow - 1) + 1 : sw] += (
                patches[:, :, i, j]
            )
    return out[:, :, ph : ph + h, pw : pw + w]
    ### END SOLUTION


class Im2Col(Function):
    """cols = unfold(x)         ∂L/∂x = fold(∂L/∂cols)"""

    @staticmethod
    def forward(ctx: Context, x, kernel_size: Pair, dilation: Pair, padding: Pair, stride: Pair):
        ctx.size, ctx.args = x.shape[-2:], (kernel_size, dilation, padding, stride)
        return im2col(x.data, kernel_size, dilation, padding, stride)

    @staticmethod
    def backward(ctx: Context, grad_output):
        ### BEGIN SOLUTION 8.2
        return Col2Im.apply(grad_output, ctx.size, *ctx.args)
        ### END SOLUTION


class Col2Im(Function):
    """x = fold(cols)           ∂L/∂cols = unfold(∂L/∂x)"""

    @staticmethod
    def forward(
        ctx: Context,
        cols,
        size: Pair,
        kernel_size: Pair,
        dilation: Pair,
        padding: Pair,
        stride: Pair,
    ):
        ctx.args = (kernel_size, dilation, padding, stride)
        return col2im(cols.data, size, kernel_size, dilation, padding, stride)

    @staticmethod
    def backward(ctx: Context, grad_output):
        ### BEGIN SOLUTION 8.2
        return Im2Col.apply(grad_output, *ctx.args)
        ### END SOLUTION


def _arguments(kernel_size: Any, dilation: Any, padding: Any, stride: Any) -> tuple:
    """The four pairs, checked as PyTorch checks them."""
    k, d = pair(kernel_size, "kernel_size"), pair(dilation, "dilation")
    p, s = pair(padding, "padding"), pair(stride, "stride")
    for name, value, least in (
        ("kernel_size", k, 1),
        ("dilation", d, 1),
        ("stride", s, 1),
        ("padding", p, 0),
    ):
        if min(value) < least:
            sign = "greater than zero" if least else "non-negative"
            raise RuntimeError(f"{name} should be {sign}, but got {name}: {value}")
    return k, d, p, s


def unfold(
    input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1
) -> Tensor:
    """PyTorch's ``F.unfold``: (N, C, H, W) → (N, C·kh·kw, L) (or (C, H, W) → (C·kh·kw, L)).
    Note the positional order, PyTorch's: kernel_size, dilation, padding, stride."""
    k, d, p, s = _arguments(kernel_size, dilation, padding, stride)
    if not isinstance(input, Tensor):
        raise TypeError(f"unfold takes a Tensor, not {type(input).__name__}")
    if input.ndim not in (3, 4):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor for input with possibly 0 batch size and "
            f"non-zero dimensions for input, but got: {list(input.shape)}"
        )
    if input.ndim == 3:
        return unfold(input.unsqueeze(0), k, d, p, s).squeeze(0)
    h, w = input.shape[-2:]
    oh, ow = output_shape((h, w), k, s, p, d)
    if oh < 1 or ow < 1:
        raise RuntimeError(
            f"Given input with spatial size ({h}, {w}), kernel_size={k}, dilation={d}, "
            f"padding={p}, calculated shape of the array of sliding blocks as ({oh}, {ow}), "
            "but its components must be at least one."
        )
    return Im2Col.apply(input, k, d, p, s)


def fold(
    input: Tensor,
    output_size: Any,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Tensor:
    """PyTorch's ``F.fold``: (N, C·kh·kw, L) → (N, C, H, W), ``output_size`` = (H, W);
    overlapping entries add (or (C·kh·kw, L) → (C, H, W))."""
    size = pair(output_size, "output_size")
    k, d, p, s = _arguments(kernel_size, dilation, padding, stride)
    if not isinstance(input, Tensor):
        raise TypeError(f"fold takes a Tensor, not {type(input).__name__}")
    if input.ndim not in (2, 3):
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
            f"non-zero dimensions for input, but got: {list(input.shape)}"
        )
    if input.ndim == 2:
        return fold(input.unsqueeze(0), size, k, d, p, s).squeeze(0)
    rows, blocks = input.shape[1:]
    if rows % (k[0] * k[1]):
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={rows} and kernel_size={k}"
        )
    oh, ow = output_shape(size, k, s, p, d)
    if oh * ow != blocks or min(oh, ow) < 1:
        raise RuntimeError(
            f"Given output_size={size}, kernel_size={k}, dilation={d}, padding={p}, "
            f"stride={s}, expected size of input's dimension 2 to match the calculated "
            f"number of sliding blocks {oh} * {ow} = {oh * ow}, but got "
            f"input.size(2)={blocks}."
        )
    return Col2Im.apply(input, size, k, d, p, s)


class Unfold(Module):
    """``nn.Unfold(kernel_size, dilation=1, padding=0, stride=1)``: ``F.unfold`` as a layer."""

    def __init__(
        self, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1
    ) -> None:
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, input: Tensor) -> Tensor:
        return unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
            f"padding={self.padding}, stride={self.stride}"
        )


class Fold(Module):
    """``nn.Fold(output_size, kernel_size, dilation=1, padding=0, stride=1)``: ``F.fold`` as a
    layer."""

    def __init__(
        self,
        output_size: Any,
        kernel_size: Any,
        dilation: Any = 1,
        padding: Any = 0,
        stride: Any = 1,
    ) -> None:
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input: Tensor) -> Tensor:
        return fold(
            input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride
        )

    def extra_repr(self) -> str:
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
            f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}"
        )

"""Pooling: ``max_pool2d`` (task 8.4, §6) and ``avg_pool2d`` (task 8.5, §6).

Pooling looks at the same windows as a convolution (``unfold.windows``), one channel at a
time, and keeps one number per window: the largest, or the mean. Small shifts of the image
then change the output little, and each layer after it sees a wider part of the image.

Max: ``out[n, c, p, q] = max over the window`` (padding counts as −∞, so it never beats
a pixel of the image). Its gradient goes to the one pixel that won; where PyTorch's CPU
kernel meets a tie it keeps the *first* maximum in the window's row-major order, and only
that pixel gets the gradient. So ``forward`` marks, per window, the slots that hold the
maximum and keeps only the first of them (one pass per kernel slot, as fold's), a one-hot
``ctx.won`` (N, C, kh·kw, oh, ow). Windows that overlap (stride < kernel) may pick one pixel
twice: its gradients add. Both are fold's job: put each ∂L/∂out in its window's winning
slot, then ``fold``. (The maximum and a mask are much faster in NumPy than ``argmax`` over
a short axis, which it walks element by element.)

Mean: ``out = (sum over the window) / divisor``; the divisor is kh·kw (padding counts, the
default ``count_include_pad=True``), the pixels of the window inside the image
(``count_include_pad=False``), or ``divisor_override``: the given ``avg_pool2d`` makes it an
array (1, 1, oh, ow). Every pixel of a window gets ∂L/∂out / divisor, added over windows:
fold again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ch02_tensor.backend import array_module
from ..ch02_tensor.function import Context, Function
from ..ch02_tensor.tensor import Tensor
from ..ch05_nn.nn.module import Module
from .sizes import output_shape, pair
from .unfold import Col2Im, Pair, pad, windows


def lowest(dtype: Any) -> Any:
    """What padding is for a maximum: −∞, or an integer type's least value (given)."""
    dtype = np.dtype(dtype)
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


class MaxPool(Function):
    """out = the window's maximum       ∂L/∂x = fold(∂L/∂out at each window's first maximum)"""

    @staticmethod
    def forward(ctx: Context, x, kernel_size: Pair, stride: Pair, padding: Pair, dilation: Pair):
        ctx.size, ctx.args = x.shape[-2:], (kernel_size, dilation, padding, stride)
        view = windows(pad(x.data, padding, lowest(x.dtype)), kernel_size, dilation, stride)
        n, c, kh, kw, oh, ow = view.shape
        ### BEGIN SOLUTION 8.4
        flat = view.reshape(n, c, kh * kw, oh, ow)
        out = flat.max(axis=2)
        # the slots that hold their window's maximum (a NaN is the maximum where there is one)
        hit = (flat == out[:, :, None]) | (flat != flat)
        seen = array_module(flat).zeros(out.shape, dtype=bool)
        for slot in range(kh * kw):  # one winner per window: its first hit, as PyTorch
            hit[:, :, slot] &= ~seen
            seen |= hit[:, :, slot]
        ctx.won = hit
        return out
        ### END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad_output):
        (kh, kw) = ctx.args[0]
        ### BEGIN SOLUTION 8.4
        n, c, oh, ow = grad_output.shape
        won = Tensor._from_array(ctx.won.astype(grad_output.dtype))
        cols = (grad_output.reshape(n, c, 1, oh, ow) * won).reshape(n, c * kh * kw, oh * ow)
        return Col2Im.apply(cols, ctx.size, *ctx.args)
        ### END SOLUTION


class AvgPool(Function):
    """out = the window's sum / divisor    ∂L/∂x = fold(∂L/∂out / divisor in every slot)"""

    @staticmethod
    def forward(ctx: Context, x, kernel_size: Pair, stride: Pair, padding: Pair, divisor: Any):
        ctx.size, ctx.args = x.shape[-2:], (kernel_size, (1, 1), padding, stride)
        ctx.divisor = divisor  # (1, 1, oh, ow), x's dtype and device
        view = windows(pad(x.data, padding), kernel_size, (1, 1), stride)
        ### BEGIN SOLUTION 8.5
        return view.sum(axis=(2, 3)) / divisor
        ### END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad_output):
        (kh, kw) = ctx.args[0]
        ### BEGIN SOLUTION 8.5
        n, c, oh, ow = grad_output.shape
        share = (grad_output / Tensor._from_array(ctx.divisor)).reshape(n, c, 1, oh * ow)
        cols = share.expand(n, c, kh * kw, oh * ow).reshape(n, c * kh * kw, oh * ow)
        return Col2Im.apply(cols, ctx.size, *ctx.args)
        ### END SOLUTION


def _pooling_input(input: Any, name: str) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}() takes a Tensor, not {type(input).__name__}")
    if input.ndim not in (3, 4) or input.numel() == 0:
        raise RuntimeError(
            f"{name}: non-empty 3D or 4D (batch mode) tensor expected for input, but got "
            f"input of size {list(input.shape)}"
        )


def _window_arguments(kernel_size: Any, stride: Any, padding: Any, dilation: Any) -> tuple:
    k = pair(kernel_size, "kernel_size")
    s = (
        k
        if stride is None or (isinstance(stride, (list, tuple)) and not stride)
        else (pair(stride, "stride"))
    )
    p, d = pair(padding, "padding"), pair(dilation, "dilation")
    if min(k) < 1:
        raise RuntimeError(f"kernel_size must be greater than zero, but got {k}")
    if min(s) < 1:
        raise RuntimeError(f"stride must be greater than zero, but got {s}")
    if min(d) < 1:
        raise RuntimeError(f"dilation must be greater than zero, but got {d}")
    if min(p) < 0:
        raise RuntimeError(f"pad must be non-negative, but got {p}")
    return k, s, p, d


def _pad_at_most_half(k: Pair, p: Pair, d: Pair) -> None:
    """PyTorch's rule for pooling: padding at most half the kernel (not the dilated one), so
    that every window holds a pixel of the image; its sentence names the axis that fails."""
    for pad_, size, dilation in zip(p, k, d):
        if 2 * pad_ > size:
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={pad_}, "
                f"kernel_size={size} and dilation={dilation}"
            )


def _no_ceil_mode(ceil_mode: bool) -> None:
    if ceil_mode:
        raise NotImplementedError(
            "ceil_mode=True: Sparrow's pooling keeps whole windows only (ceil_mode=False); "
            "pad the input instead"
        )


def _output(input: Tensor, k: Pair, s: Pair, p: Pair, d: Pair) -> tuple[int, int]:
    h, w = input.shape[-2:]
    oh, ow = output_shape((h, w), k, s, p, d)
    if oh < 1 or ow < 1:
        raise RuntimeError(
            f"Given input size: ({input.shape[-3]}x{h}x{w}). Calculated output size: "
            f"({input.shape[-3]}x{oh}x{ow}). Output size is too small"
        )
    return oh, ow


def max_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """PyTorch's ``F.max_pool2d`` (``ceil_mode=False``); with ``return_indices`` also each
    maximum's flat index into its channel's H·W pixels, as PyTorch's."""
    _pooling_input(input, "max_pool2d")
    _no_ceil_mode(ceil_mode)
    if input.ndim == 3:
        out = max_pool2d(
            input.unsqueeze(0), kernel_size, stride, padding, dilation, False, return_indices
        )
        return (out[0].squeeze(0), out[1].squeeze(0)) if return_indices else out.squeeze(0)
    k, s, p, d = _window_arguments(kernel_size, stride, padding, dilation)
    _pad_at_most_half(k, p, d)
    _output(input, k, s, p, d)
    out = MaxPool.apply(input, k, s, p, d)
    return (out, _indices(input, k, s, p, d)) if return_indices else out


def _indices(input: Tensor, k: Pair, s: Pair, p: Pair, d: Pair) -> Tensor:
    """Where each maximum came from, as PyTorch's ``return_indices``: row · W + column of
    the input (given)."""
    x = input.data
    view = windows(pad(x, p, lowest(x.dtype)), k, d, s)
    n, c, kh, kw, oh, ow = view.shape
    xp = array_module(x)
    i, j = xp.divmod(view.reshape(n, c, kh * kw, oh, ow).argmax(axis=2), kw)
    rows = xp.arange(oh).reshape(-1, 1) * s[0] + i * d[0] - p[0]
    columns = xp.arange(ow) * s[1] + j * d[1] - p[1]
    return Tensor._from_array((rows * input.shape[-1] + columns).astype(np.int64))


def avg_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """PyTorch's ``F.avg_pool2d`` (``ceil_mode=False``)."""
    _pooling_input(input, "avg_pool2d")
    _no_ceil_mode(ceil_mode)
    if input.ndim == 3:
        return avg_pool2d(
            input.unsqueeze(0),
            kernel_size,
            stride,
            padding,
            False,
            count_include_pad,
            divisor_override,
        ).squeeze(0)
    k, s, p, _ = _window_arguments(kernel_size, stride, padding, 1)
    _pad_at_most_half(k, p, (1, 1))
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    oh, ow = _output(input, k, s, p, (1, 1))
    xp = array_module(input.data)
    if divisor_override is not None:
        divisor = xp.full((1, 1, oh, ow), divisor_override, dtype=input.dtype)
    elif count_include_pad:
        divisor = xp.full((1, 1, oh, ow), k[0] * k[1], dtype=input.dtype)
    else:  # the pixels of each window inside the image
        inside = pad(xp.ones((1, 1, *input.shape[-2:]), dtype=input.dtype), p)
        divisor = windows(inside, k, (1, 1), s).sum(axis=(2, 3))
    return AvgPool.apply(input, k, s, p, divisor)


class MaxPool2d(Module):
    """``MaxPool2d(kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
    ceil_mode=False)``: stride defaults to kernel_size."""

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size, self.stride = kernel_size, kernel_size if stride is None else stride
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input: Tensor) -> Any:
        return max_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            self.ceil_mode,
            self.return_indices,
        )

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class AvgPool2d(Module):
    """``AvgPool2d(kernel_size, stride=None, padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None)``."""

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None:
        super().__init__()
        self.kernel_size, self.stride = kernel_size, kernel_size if stride is None else stride
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return avg_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

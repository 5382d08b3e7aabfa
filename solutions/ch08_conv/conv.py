"""``conv2d`` as unfold → matmul → reshape: task 8.3 (§5 of the notebook).

With ``cols = unfold(x)`` (N, C·kh·kw, L) and the kernels as rows, ``W`` (O, C·kh·kw), each
output pixel is one dot product of a kernel with a window, so all of them are one product:

    out[n, o, l] = Σₖ W[o, k] · cols[n, k, l] + b[o]          out = W · cols + b

and its gradients are a matrix product's, then fold for the input:

    ∂L/∂cols = Wᵀ · g   →   ∂L/∂x = fold(∂L/∂cols)
    ∂L/∂W    = Σₙ g · colsᵀ              ∂L/∂b = Σ_{n, l} g

With ``groups`` = G the channels split into G groups that never meet: group g's O/G kernels
read only its C/G input channels. Split the rows of ``cols`` and of ``W`` into G blocks and
the product is a batch of G products (matmul's batch axes): W (G, O/G, C/G·kh·kw) and cols
(N, G, C/G·kh·kw, L) give out (N, G, O/G, L).

The backward is written with recorded operations (``Col2Im``, ``@``, ``sum``), so it is
differentiable in turn: a second derivative (``create_graph=True``) needs nothing more.
``forward`` keeps ``cols`` for ∂L/∂W; when the backward is itself being recorded, the given
``_columns`` rebuilds them as a recorded ``unfold(x)``, so the second derivative sees how
they depend on x.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..ch02_tensor.backend import array_module
from ..ch02_tensor.dtypes import get_default_dtype
from ..ch02_tensor.function import Context, Function
from ..ch02_tensor.grad_mode import is_grad_enabled
from ..ch02_tensor.tensor import Tensor
from ..ch05_nn.nn import init
from ..ch05_nn.nn.module import Module
from ..ch05_nn.nn.parameter import Parameter
from ..ch07_device.ops.cat import cat
from .sizes import output_shape, pair
from .unfold import Col2Im, Im2Col, Pair, im2col


def _columns(ctx: Context, x: Tensor) -> Tensor:
    """The unfolded input for ∂L/∂W: the array forward made, or (while the backward is
    recorded, ``create_graph=True``) a recorded ``unfold(x)`` (given)."""
    if is_grad_enabled():
        return Im2Col.apply(x, *ctx.args)
    if ctx.cols is None:
        raise RuntimeError(
            "the columns were not kept: the weight requires no gradient "
            "(ctx.needs_input_grad[1] is False), so ∂L/∂W is not computed"
        )
    return Tensor._from_array(ctx.cols)


class Convolution(Function):
    """out = W · unfold(x) + b        ∂L/∂x = fold(Wᵀ · g),  ∂L/∂W = Σₙ g · colsᵀ,
    ∂L/∂b = Σ_{n, l} g                (per group: batch axis G)"""

    @staticmethod
    def forward(ctx: Context, x, weight, bias, stride, padding, dilation, groups: int):
        kernel_size = weight.shape[-2:]
        ctx.args = (kernel_size, dilation, padding, stride)
        ctx.size, ctx.groups, ctx.has_bias = x.shape[-2:], groups, bias is not None
        cols = im2col(x.data, kernel_size, dilation, padding, stride)  # (N, C·kh·kw, L)
        ctx.cols = cols if ctx.needs_input_grad[1] else None  # kept for ∂L/∂W alone
        ctx.save_for_backward(x, weight)
        n, (h, w), o = x.shape[0], x.shape[-2:], weight.shape[0]
        oh, ow = output_shape((h, w), kernel_size, stride, padding, dilation)
        ### BEGIN SOLUTION 8.3
        columns = cols.reshape(n, groups, -1, oh * ow)  # (N, G, C/G·kh·kw, L)
        kernels = weight.data.reshape(groups, o // groups, -1)  # (G, O/G, C/G·kh·kw)
        out = (kernels @ columns).reshape(n, o, oh, ow)
        if bias is not None:
            out += bias.data.reshape(1, o, 1, 1)
        return out
        ### END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad_output):
        x, weight = ctx.saved_tensors
        groups = ctx.groups
        ### BEGIN SOLUTION 8.3
        n, o, oh, ow = grad_output.shape
        g = grad_output.reshape(n, groups, o // groups, oh * ow)  # (N, G, O/G, L)
        kernels = weight.reshape(groups, o // groups, -1)  # (G, O/G, C/G·kh·kw)
        grad_x = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_cols = (kernels.transpose(-1, -2) @ g).reshape(n, -1, oh * ow)
            grad_x = Col2Im.apply(grad_cols, ctx.size, *ctx.args)
        if ctx.needs_input_grad[1]:
            cols = _columns(ctx, x).reshape(n, groups, -1, oh * ow)
            grad_weight = (g @ cols.transpose(-1, -2)).sum(0).reshape(*weight.shape)
        if ctx.has_bias and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum((0, 2, 3))
        return (grad_x, grad_weight, grad_bias) if ctx.has_bias else (grad_x, grad_weight)
        ### END SOLUTION


def _pad_end(x: Tensor, rows: int, columns: int) -> Tensor:
    """``x`` with ``rows`` zero rows below and ``columns`` zero columns on the right, as
    recorded operations: ``padding="same"`` with an even reach pads one more at the end, as
    PyTorch does (given)."""
    xp = array_module(x.data)
    n, c, h, w = x.shape
    if rows:
        x = cat([x, Tensor._from_array(xp.zeros((n, c, rows, w), dtype=x.dtype))], dim=2)
    if columns:
        x = cat([x, Tensor._from_array(xp.zeros((n, c, h + rows, columns), dtype=x.dtype))], 3)
    return x


def _padding(
    padding: Any,
    kernel_size: Pair,
    dilation: Pair,
    stride: Pair,
    error: type[Exception] = RuntimeError,
) -> tuple:
    """PyTorch's padding forms: an int or pair, ``"valid"`` (none) or ``"same"`` (the output
    as large as the input; stride 1 only). Returns the padding on each side and what one
    more at the end each axis needs (``"same"`` with an odd total). A bad string is
    ``error``: PyTorch's ``F.conv2d`` raises a RuntimeError, ``nn.Conv2d`` a ValueError."""
    if isinstance(padding, str):
        if padding == "valid":
            return (0, 0), (0, 0)
        if padding != "same":
            raise error(f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
        if stride != (1, 1):
            raise error("padding='same' is not supported for strided convolutions")
        totals = [d * (k - 1) for k, d in zip(kernel_size, dilation)]
        return tuple(t // 2 for t in totals), tuple(t % 2 for t in totals)
    padding = pair(padding, "padding")
    if min(padding) < 0:
        raise RuntimeError("negative padding is not supported")
    return padding, (0, 0)


def conv2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """PyTorch's ``F.conv2d``: input (N, C, H, W) or (C, H, W), weight (O, C/groups, kh, kw),
    bias (O,) or None; the output (N, O, oh, ow)."""
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        raise TypeError(
            f"conv2d() takes Tensors as input and weight, not {type(input).__name__} and "
            f"{type(weight).__name__}"
        )
    if input.ndim == 3:  # one image: PyTorch's unbatched form
        return conv2d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups).squeeze(
            0
        )
    if input.ndim != 4:
        raise RuntimeError(
            "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: "
            f"{list(input.shape)}"
        )
    if weight.ndim != 4:
        raise RuntimeError(
            f"conv2d: weight must be 4-D (out_channels, in_channels/groups, kh, kw), got "
            f"weight of size {list(weight.shape)}"
        )
    stride, dilation = pair(stride, "stride"), pair(dilation, "dilation")
    if min(stride) < 1:
        raise RuntimeError("non-positive stride is not supported")
    if min(dilation) < 1:
        raise RuntimeError("dilation should be greater than zero")
    if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1:
        raise RuntimeError("non-positive groups is not supported")
    o, per_group = weight.shape[:2]
    c = input.shape[1]
    if o % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension "
            f"0, but got weight of size {list(weight.shape)} instead"
        )
    if c != per_group * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected "
            f"input{list(input.shape)} to have {per_group * groups} channels, but got {c} "
            "channels instead"
        )
    if bias is not None and (not isinstance(bias, Tensor) or tuple(bias.shape) != (o,)):
        got = list(bias.shape) if isinstance(bias, Tensor) else type(bias).__name__
        raise RuntimeError(
            f"Given weight of size {list(weight.shape)}, expected bias to be 1-dimensional "
            f"with {o} elements, but got bias of size {got} instead"
        )
    for name, other in (("weight", weight), ("bias", bias)):
        if other is not None and other.dtype != input.dtype:
            raise RuntimeError(
                f"Input type ({input.dtype}) and {name} type ({other.dtype}) should be the same"
            )
    kernel_size = tuple(weight.shape[-2:])
    padding, extra = _padding(padding, kernel_size, dilation, stride)
    if any(extra):
        input = _pad_end(input, *extra)
    h, w = input.shape[-2:]
    oh, ow = output_shape((h, w), kernel_size, stride, padding, dilation)
    if oh < 1 or ow < 1:
        reach = tuple(d * (k - 1) + 1 for k, d in zip(kernel_size, dilation))
        raise RuntimeError(
            f"Calculated padded input size per channel: ({h + 2 * padding[0]} x "
            f"{w + 2 * padding[1]}). Kernel size: ({reach[0]} x {reach[1]}). Kernel size "
            "can't be greater than actual input size"
        )
    return Convolution.apply(input, weight, bias, stride, padding, dilation, groups)


class Conv2d(Module):
    """``Conv2d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
    groups=1, bias=True, padding_mode='zeros', device=None, dtype=None)``.

    PyTorch's initialisation: weight and bias U(−k, k), k = 1/√fan_in, fan_in =
    in_channels/groups · kh · kw (PyTorch writes it as ``kaiming_uniform_(a=√5)``)."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if groups < 1 or in_channels % groups or out_channels % groups:
            raise ValueError(
                f"in_channels ({in_channels}) and out_channels ({out_channels}) must both be "
                f"divisible by groups ({groups})"
            )
        if padding_mode != "zeros":
            raise NotImplementedError(
                f"padding_mode={padding_mode!r}: Sparrow pads with zeros only"
            )
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = pair(kernel_size, "kernel_size")
        self.stride, self.dilation = pair(stride, "stride"), pair(dilation, "dilation")
        self.padding = padding if isinstance(padding, str) else pair(padding, "padding")
        self.padding_mode = padding_mode
        _padding(self.padding, self.kernel_size, self.dilation, self.stride, ValueError)
        dtype = np.dtype(dtype or get_default_dtype())
        shape = (out_channels, in_channels // groups, *self.kernel_size)
        self.weight = Parameter(np.empty(shape, dtype))
        if bias:
            self.bias = Parameter(np.empty((out_channels,), dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()
        if device is not None:
            self.to(device)

    def reset_parameters(self) -> None:
        fan_in = self.weight.shape[1] * self.kernel_size[0] * self.kernel_size[1]
        bound = 1 / math.sqrt(fan_in) if fan_in else 0.0
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return conv2d(
            input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups
        )

    def extra_repr(self) -> str:
        text = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}"
        )
        if self.padding != (0, 0):
            text += f", padding={self.padding}"
        if self.dilation != (1, 1):
            text += f", dilation={self.dilation}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        return text

"""Convolution as a sliding dot product: the slow loop to trust (given code, §2).

    out[n, o, p, q] = b[o] + Σ_c Σ_i Σ_j W[o, c, i, j] · x_padded[n, c, p·s + i·d, q·s + j·d]

One output pixel at a time, in plain Python loops over positions: the definition itself,
checkable by eye, and slow (the notebook times it against ``conv2d``). NumPy arrays in and
out; stride, padding and dilation as pairs; no groups.
"""

from __future__ import annotations

import numpy as np


def conv2d_loop(
    x: np.ndarray,
    weight: np.ndarray,
    bias: np.ndarray | None = None,
    stride: tuple[int, int] = (1, 1),
    padding: tuple[int, int] = (0, 0),
    dilation: tuple[int, int] = (1, 1),
) -> np.ndarray:
    """The convolution (PyTorch's: a cross-correlation, the kernel not flipped) by loops."""
    (n, c, h, w), (o, _, kh, kw) = x.shape, weight.shape
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    # the number of windows, worked out here (task 8.1's output_size is yours to write)
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    padded = np.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=x.dtype)
    padded[:, :, ph : ph + h, pw : pw + w] = x
    out = np.zeros((n, o, oh, ow), dtype=x.dtype)
    for p in range(oh):
        for q in range(ow):
            rows = slice(p * sh, p * sh + dh * (kh - 1) + 1, dh)
            columns = slice(q * sw, q * sw + dw * (kw - 1) + 1, dw)
            window = padded[:, :, rows, columns]  # (N, C, kh, kw): what the kernel sees here
            out[:, :, p, q] = np.tensordot(window, weight, axes=([1, 2, 3], [1, 2, 3]))
    if bias is not None:
        out += bias.reshape(1, o, 1, 1)
    return out

"""``BatchNorm2d``: chapter 5's batch norm, per channel over (N, H, W) (given code).

A channel of a convolution's output is one feature seen at every position, so its mean and
variance are taken over the batch *and* the positions:

    μ_c = mean over n, h, w of x[n, c, h, w]       y = (x − μ_c) / √(σ²_c + ε) · γ_c + β_c

which is chapter 5's ``BatchNorm1d`` on (N, C, L) with L = H·W: the layer reshapes and
hands over, so the running averages (``n = N·H·W`` values per channel for the unbiased
variance), ``eval()`` and the gradients are task 5.10's.
"""

from __future__ import annotations

from ..ch02_tensor.tensor import Tensor
from ..ch05_nn.nn.normalization import BatchNorm1d


class BatchNorm2d(BatchNorm1d):
    """``BatchNorm2d(num_features, eps=1e-5, momentum=0.1, affine=True,
    track_running_stats=True, device=None, dtype=None)`` for inputs (N, C, H, W)."""

    def forward(self, x: Tensor) -> Tensor:
        if not isinstance(x, Tensor):
            raise TypeError(f"BatchNorm2d takes a Tensor, not {type(x).__name__}")
        if x.ndim != 4:
            raise ValueError(f"expected 4D input (got {x.ndim}D input)")
        if x.shape[1] != self.num_features:  # PyTorch: a RuntimeError from its running_mean
            raise RuntimeError(
                f"BatchNorm2d({self.num_features}) takes inputs (N, {self.num_features}, H, W), "
                f"got {list(x.shape)}: {x.shape[1]} channels"
            )
        n, c, h, w = x.shape
        return super().forward(x.reshape(n, c, h * w)).reshape(n, c, h, w)

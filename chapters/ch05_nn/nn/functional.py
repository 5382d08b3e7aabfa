"""``nn.functional``: the layers as plain functions (``import ... nn.functional as F``).

Each lives in the file of the idea it belongs to; this module only gathers them under
PyTorch's names.
"""

from __future__ import annotations

from ...ch02_tensor.seams import later
from ...ch02_tensor.tensor import Tensor
from .activation import gelu, leaky_relu, prelu, rrelu, silu, softplus
from .cross_entropy import cross_entropy, nll_loss
from .dropout import dropout
from .layers import embedding
from .linear import linear
from .loss import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    huber_loss,
    l1_loss,
    mse_loss,
    smooth_l1_loss,
)
from .softmax import log_softmax, softmax


def relu(input: Tensor) -> Tensor:
    return input.relu()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """Class indices (int64) as one-hot int64 rows, shape ``(*tensor.shape, num_classes)``
    (``num_classes=-1``: the largest index + 1). Built in chapter 7 (its ``ops/shapes.py``)."""
    return later(7, "ch07_device", "one_hot", "F.one_hot")(tensor, num_classes)


__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cross_entropy",
    "dropout",
    "embedding",
    "gelu",
    "huber_loss",
    "l1_loss",
    "leaky_relu",
    "linear",
    "log_softmax",
    "mse_loss",
    "nll_loss",
    "one_hot",
    "prelu",
    "relu",
    "rrelu",
    "sigmoid",
    "silu",
    "smooth_l1_loss",
    "softmax",
    "softplus",
    "tanh",
]

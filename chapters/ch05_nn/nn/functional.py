"""``nn.functional``: the layers as plain functions (``import ... nn.functional as F``).

Each lives in the file of the idea it belongs to; this module only gathers them under
PyTorch's names.
"""

from __future__ import annotations

from ...ch02_tensor.tensor import Tensor
from .activation import gelu
from .cross_entropy import cross_entropy
from .dropout import dropout
from .linear import linear
from .loss import binary_cross_entropy_with_logits, mse_loss
from .softmax import log_softmax, softmax


def relu(input: Tensor) -> Tensor:
    return input.relu()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


__all__ = [
    "binary_cross_entropy_with_logits",
    "cross_entropy",
    "dropout",
    "gelu",
    "linear",
    "log_softmax",
    "mse_loss",
    "relu",
    "sigmoid",
    "softmax",
    "tanh",
]

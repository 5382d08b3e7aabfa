"""``nn``: modules, layers, losses, ``functional`` and ``init`` (PyTorch's ``torch.nn``).

module.py         Module: registration, the tree walks, state_dict     tasks 5.1, 5.3, 5.5
linear.py         Linear                                               task 5.2
containers.py     Sequential, ModuleList (task 5.4); ModuleDict,
                  ParameterList, ParameterDict (given)
hooks.py          a module's backward hooks                            (given)
softmax.py        softmax, log_softmax                                 task 5.6
cross_entropy.py  cross_entropy (task 5.7); nll_loss, weight= (given)
init.py           xavier_*, kaiming_* (and uniform_, normal_, …)        task 5.8
dropout.py        dropout, Dropout                                     task 5.9
normalization.py  BatchNorm1d (task 5.10), LayerNorm
activation.py     ReLU, Tanh, Sigmoid, GELU, LeakyReLU, SiLU, Softplus, (given)
                  Softmax, LogSoftmax, PReLU, RReLU
loss.py           MSELoss, L1Loss, SmoothL1Loss, HuberLoss, NLLLoss,      (given)
                  CrossEntropyLoss (weight=), BCELoss, BCEWithLogitsLoss
layers.py         Flatten, Embedding (padding_idx), embedding           (given)
parameter.py      Parameter                                            (given)
functional.py     the functions under PyTorch's names                  (given)
"""

from . import functional, init
from .activation import (
    GELU,
    LeakyReLU,
    LogSoftmax,
    PReLU,
    ReLU,
    RReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Tanh,
)
from .containers import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .dropout import Dropout
from .layers import Embedding, Flatten
from .linear import Linear
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)
from .module import Module
from .normalization import BatchNorm1d, LayerNorm
from .parameter import Parameter

__all__ = [
    "GELU",
    "BCELoss",
    "BCEWithLogitsLoss",
    "BatchNorm1d",
    "CrossEntropyLoss",
    "Dropout",
    "Embedding",
    "Flatten",
    "HuberLoss",
    "L1Loss",
    "LayerNorm",
    "LeakyReLU",
    "Linear",
    "LogSoftmax",
    "MSELoss",
    "Module",
    "ModuleDict",
    "ModuleList",
    "NLLLoss",
    "PReLU",
    "Parameter",
    "ParameterDict",
    "ParameterList",
    "RReLU",
    "ReLU",
    "Sequential",
    "SiLU",
    "Sigmoid",
    "SmoothL1Loss",
    "Softmax",
    "Softplus",
    "Tanh",
    "functional",
    "init",
]

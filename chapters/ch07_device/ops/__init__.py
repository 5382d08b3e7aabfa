"""The everyday operations a real PyTorch script calls (§7): given code, and tasks 7.7
(``gather``, whose gradient is a scatter-add) and 7.8 (``cat``/``stack``, whose gradient is
a split). Files:

    forms.py      sp.tanh(x), sp.sum(x, dim), …: the methods' module-level forms   (given)
    everyday.py   where, clamp/clip, min/argmin, flatten, var/std                  (given)
    gather.py     gather                                                           task 7.7
    cat.py        cat, stack                                                       task 7.8

The Tensor methods (``x.gather(dim, index)``, ``x.min()``, ``x.clamp(...)``, …) are chapter
2's seams, which reach these functions by name.
"""

from .cat import cat, concat, concatenate, stack
from .everyday import argmin, clamp, clip, flatten, min, std, var, where
from .forms import (
    abs,
    argmax,
    double,
    exp,
    from_numpy,
    half,
    is_tensor,
    log,
    log_softmax,
    long,
    matmul,
    max,
    mean,
    mm,
    numel,
    permute,
    relu,
    reshape,
    sigmoid,
    softmax,
    sqrt,
    squeeze,
    sum,
    tanh,
    transpose,
    unsqueeze,
)
from .gather import gather

__all__ = [
    "abs",
    "argmax",
    "argmin",
    "cat",
    "clamp",
    "clip",
    "concat",
    "concatenate",
    "double",
    "exp",
    "flatten",
    "from_numpy",
    "gather",
    "half",
    "is_tensor",
    "log",
    "log_softmax",
    "long",
    "matmul",
    "max",
    "mean",
    "min",
    "mm",
    "numel",
    "permute",
    "relu",
    "reshape",
    "sigmoid",
    "softmax",
    "sqrt",
    "squeeze",
    "stack",
    "std",
    "sum",
    "tanh",
    "transpose",
    "unsqueeze",
    "var",
    "where",
]

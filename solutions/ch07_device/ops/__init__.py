"""The everyday operations a real PyTorch script calls (§7): given code, and tasks 7.7
(``gather``, whose gradient is a scatter-add) and 7.8 (``cat``/``stack``, whose gradient is
a split). Files:

    forms.py      sp.tanh(x), sp.sum(x, dim), …: the methods' module-level forms   (given)
    everyday.py   where, clamp/clip, min/argmin, flatten, var/std                  (given)
    gather.py     gather                                                           task 7.7
    cat.py        cat, stack                                                       task 7.8
    pointwise.py  pow (tensor exponent), %, //, fmod, maximum/minimum             (given)
    logic.py      & | ^ ~, logical_and/or/xor/not, all/any, nonzero                (given)
    reductions.py cumsum, prod (exact gradients at zeros)                          (given)
    compare.py    eq/ne/lt/le/gt/ge, equal, clone, t: module-level forms          (given)
    shapes.py     tril/triu, flip, repeat, split/chunk, masked_fill, one_hot        (given)
    sorting.py    sort, argsort, topk                                              (given)
    setitem.py    x[index] = value on a tensor that records nothing                (given)
    scatter.py    scatter, scatter_add (out of place; gradients: gather)          (given)
    diagonal.py   diagonal, diag, diag_embed, diagflat                            (given)
    stacking.py   tensor_split, h/v/dsplit, h/v/dstack, column_stack, atleast_nd  (given)
    hyperbolic.py sin/cos/tan, log10/log2, sinh/cosh, asin…atanh, log1p, expm1  (given)
    values.py     isclose, allclose, unique, not_equal, << and >>                 (given)

The Tensor methods (``x.gather(dim, index)``, ``x.min()``, ``x.clamp(...)``, …) are chapter
2's seams, which reach these functions by name.
"""

from .cat import cat, concat, concatenate, stack
from .compare import clone, eq, equal, ge, gt, le, lt, ne, t
from .diagonal import diag, diag_embed, diagflat, diagonal
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
from .hyperbolic import (
    acos,
    acosh,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctanh,
    asin,
    asinh,
    atan,
    atanh,
    cos,
    cosh,
    expm1,
    log1p,
    log2,
    log10,
    sin,
    sinh,
    tan,
)
from .logic import (
    all,
    any,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    nonzero,
)
from .pointwise import floor_divide, fmod, maximum, minimum, pow, remainder
from .reductions import cumsum, prod
from .scatter import scatter
from .scatter import scatter_add as scatter_add  # Tensor.scatter_add (see below)
from .setitem import setitem as setitem  # x[index] = value (chapter 2's seam)
from .shapes import chunk, flip, masked_fill, split, tril, triu
from .shapes import one_hot as one_hot  # F.one_hot (chapter 5's seam)
from .shapes import repeat as repeat  # Tensor.repeat (chapter 2's seam)
from .sorting import argsort, sort, topk
from .stacking import (
    atleast_1d,
    atleast_2d,
    atleast_3d,
    column_stack,
    dsplit,
    dstack,
    hsplit,
    hstack,
    row_stack,
    tensor_split,
    vsplit,
    vstack,
)
from .values import (
    allclose,
    bitwise_left_shift,
    bitwise_right_shift,
    isclose,
    not_equal,
    unique,
)

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
__all__ += [  # pointwise.py, logic.py, reductions.py
    "all",
    "any",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "cos",
    "cumsum",
    "floor_divide",
    "fmod",
    "log2",
    "log10",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "maximum",
    "minimum",
    "nonzero",
    "pow",
    "prod",
    "remainder",
    "sin",
    "tan",
]
__all__ += ["clone", "eq", "equal", "ge", "gt", "le", "lt", "ne", "t"]  # compare.py
__all__ += [  # shapes.py, sorting.py (Tensor.repeat, F.one_hot and x[i] = v: not torch.*)
    "argsort",
    "chunk",
    "flip",
    "masked_fill",
    "sort",
    "split",
    "topk",
    "tril",
    "triu",
]
# (scatter_add stays out: the package's own ``scatter_add`` is task 7.6's array-level one,
# which chapter 2's seam reaches by that name; ``x.scatter_add(dim, index, src)`` reaches
# this one as ``ops.scatter_add``)
__all__ += [  # scatter.py, diagonal.py, stacking.py, hyperbolic.py, values.py
    "acos",
    "acosh",
    "allclose",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctanh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "column_stack",
    "cosh",
    "diag",
    "diag_embed",
    "diagflat",
    "diagonal",
    "dsplit",
    "dstack",
    "expm1",
    "hsplit",
    "hstack",
    "isclose",
    "log1p",
    "not_equal",
    "row_stack",
    "scatter",
    "sinh",
    "tensor_split",
    "unique",
    "vsplit",
    "vstack",
]

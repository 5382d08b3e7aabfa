"""Chapter 3 — broadcasting-aware gradients: ``unbroadcast``, ``broadcast_to``, ``expand``
and ``sum_to_size``.

``from chapters import ch03_broadcast as sp`` gives the framework as it stands: everything
of chapter 2 (``sp.Tensor``, ``sp.tensor``, the factories, dtypes, ``sp.Function``, …) plus
this chapter's functions. Chapter 2 reaches them through its seams: ``Node.backward`` calls
``unbroadcast`` whenever a gradient's shape differs from its input's (one place, for every
op), and ``Tensor.broadcast_to`` / ``expand`` / ``sum_to_size`` call the functions below.
Files, in the order the notebook teaches them:

    rules.py        NumPy's broadcasting rule, with an error that names both shapes (given)
    unbroadcast.py  a broadcast input's gradient is a sum                task 3.1
    broadcast.py    BroadcastTo and SumToSize, each the other's gradient  task 3.2
    expand.py       PyTorch's expand: -1 keeps a size                    task 3.3
"""

from .. import ch02_tensor as _below
from ..ch02_tensor import *  # noqa: F403  (the framework so far)
from .broadcast import BroadcastTo, SumToSize, broadcast_to, sum_to_size
from .expand import expand
from .rules import broadcast_problem, check_broadcast
from .unbroadcast import unbroadcast

__all__ = [
    *_below.__all__,
    "BroadcastTo",
    "SumToSize",
    "broadcast_problem",
    "broadcast_to",
    "check_broadcast",
    "expand",
    "sum_to_size",
    "unbroadcast",
]

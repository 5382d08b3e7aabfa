"""Chapter 5 — modules: ``nn``, ``utils.data``, ``utils.checkpoint``, ``save`` and ``load``.

``from chapters import ch05_nn as sp`` gives the framework as it stands (chapters 2–4) plus
``sp.nn`` (Module, the layers, the losses, ``functional``, ``init``), ``sp.utils.data``
(Dataset, TensorDataset, DataLoader), ``sp.utils.checkpoint.checkpoint``, ``sp.save`` /
``sp.load`` and ``sp.Generator`` with the draws that take one (``randperm``, ``randint``,
``normal``, ``multinomial``). Files, in the order the notebook teaches them:

    nn/module.py              Module: registration, the tree, state_dict    tasks 5.1, 5.3, 5.5
    nn/linear.py              Linear                                        task 5.2
    nn/containers.py          Sequential, ModuleList                        task 5.4
    nn/softmax.py             softmax, log_softmax (the max shift)          task 5.6
    nn/cross_entropy.py       cross_entropy as one operation                task 5.7
    nn/init.py                xavier and kaiming initialisation              task 5.8
    nn/dropout.py             dropout                                       task 5.9
    nn/normalization.py       BatchNorm1d (and LayerNorm, given)            task 5.10
    utils/data.py             DataLoader                                    task 5.11
    utils/checkpoint.py       checkpoint: recompute instead of keep         task 5.12
    regression.py             fit_linear: linear regression by hand         task 5.13 (v1.1)
    serialization.py          save / load without pickle                    (given)
    generator.py              Generator, randperm, randint, normal, multinomial  (given)
    measure.py                §11's experiment: memory kept for backward, time  (given)
    nn/*.py (the rest)        activations, losses, Flatten, Embedding       (given)
"""

from .. import ch04_backward as _below
from ..ch04_backward import *  # noqa: F403  (the framework so far)
from . import nn, utils
from .generator import Generator, multinomial, normal, randint, randperm
from .regression import fit_linear
from .serialization import load, save

__all__ = [
    *_below.__all__,
    "Generator",
    "fit_linear",
    "load",
    "multinomial",
    "nn",
    "normal",
    "randint",
    "randperm",
    "save",
    "utils",
]

"""Chapter 6 — optimizers: ``optim``, ``optim.lr_scheduler`` and ``nn.utils`` (clipping).

``from chapters import ch06_optim as sp`` gives the framework as it stands (chapters 2–5)
plus ``sp.optim`` and ``sp.nn.utils``. Files, in the order the notebook teaches them:

    optim/optimizer.py     param groups, zero_grad                  task 6.1
    optim/sgd.py           SGD with momentum                        task 6.2
    optim/adagrad.py       Adagrad                                  task 6.3
    optim/rmsprop.py       RMSprop                                  task 6.4
    optim/adam.py          Adam, AdamW                              tasks 6.5, 6.6
    optim/optimizer.py     state_dict, load_state_dict              task 6.7
    optim/lr_scheduler.py  the closed-form schedules                task 6.8
    optim/one_cycle.py     OneCycleLR                               task 6.9
    nn/utils/clip_grad.py  clip_grad_norm_, clip_grad_value_        task 6.10
    optim/scheduler.py     LRScheduler, the schedules' base         (given)
    optim/stats.py         TrainingStats (during training)          task 6.11 (v1.1)
    optim/warmup.py        warmup_cosine (a LambdaLR factor)        task 6.12 (v1.1)
"""

from importlib import import_module

from .. import ch05_nn as _below
from ..ch05_nn import *  # noqa: F403  (the framework so far)
from . import optim

nn = import_module(".nn", __name__)  # extends chapter 5's nn, which the * above bound

__all__ = [*_below.__all__, "optim"]

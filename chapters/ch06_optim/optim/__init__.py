"""``optim``: optimizers and learning-rate schedules (PyTorch's ``torch.optim``).

optimizer.py     Optimizer: param groups, zero_grad (task 6.1), state_dict (task 6.7)
sgd.py           SGD: momentum, dampening, Nesterov, weight decay        task 6.2
adagrad.py       Adagrad                                                 task 6.3
rmsprop.py       RMSprop                                                 task 6.4
adam.py          Adam (task 6.5), AdamW (task 6.6)
lr_scheduler.py  StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, LambdaLR   task 6.8
one_cycle.py     OneCycleLR                                              task 6.9
scheduler.py     LRScheduler, the schedules' base                        (given)
plateau.py       ReduceLROnPlateau                                       (given)
adadelta.py      Adadelta                                                (given)
lbfgs.py         LBFGS (step(closure), strong Wolfe line search)          (given)
stats.py         TrainingStats: activations, gradients, update ratios    task 6.11 (v1.1)
warmup.py        warmup_cosine: a LambdaLR factor, warm-up then cosine   task 6.12 (v1.1)
"""

from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .lbfgs import LBFGS
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD
from .stats import TrainingStats
from .warmup import warmup_cosine

__all__ = [
    "LBFGS",
    "SGD",
    "Adadelta",
    "Adagrad",
    "Adam",
    "AdamW",
    "Optimizer",
    "RMSprop",
    "TrainingStats",
    "lr_scheduler",
    "warmup_cosine",
]

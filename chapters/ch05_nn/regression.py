"""Linear regression, the first thing ``nn`` trains (task 5.13, §2): ``fit_linear``.

A ``Linear(in, out)`` is the model ŷ = x Wᵀ + b, and the mean squared error between ŷ and
y is the loss. Gradient descent repeats one step: the loss of the weights as they are, its
gradient by the engine (``backward``), a small move of every parameter against its
gradient. Two details make the loop right, and both come back in every loop of the course:

- the move is no operation of the model: it changes the parameters in place without being
  recorded, so they stay leaves of the next step's graph (chapter 6's optimizers do the
  same, behind ``optimizer.step()``);
- gradients add up (chapter 4's accumulation): a gradient left from the step before would
  be added to the next one, so each step starts from cleared gradients.

The contract:

    fit_linear(x, y, epochs, lr) -> (model, losses)

``x`` is a floating Tensor of shape (N, in) and ``y`` a Tensor of shape (N, out), of x's
dtype. The model is ``nn.Linear(in, out)`` on x's device and in x's dtype, made first
thing, so its starting weights are the global generator's next draws (``sp.manual_seed(s)``
before the call fixes them). It takes ``epochs`` steps of full-batch gradient descent on
``F.mse_loss(model(x), y)`` (the mean over all N × out entries) with learning rate ``lr``.
``losses`` is a list of ``epochs`` Python floats: ``losses[t]`` is the loss of the weights
before step t, so ``losses[0]`` is the loss at the starting weights. The returned model's
weight and bias are its own Parameters, leaves that require grad.

``parameters()`` is task 5.3, a section later: name the two parameters, ``model.weight``
and ``model.bias``.
"""

from __future__ import annotations

from ..ch02_tensor.tensor import Tensor
from ..ch04_backward import no_grad
from . import nn
from .nn import functional as F


def fit_linear(x: Tensor, y: Tensor, epochs: int, lr: float) -> tuple[nn.Linear, list[float]]:
    """Fit ``nn.Linear(x.shape[1], y.shape[1])`` to ``(x, y)`` by ``epochs`` steps of
    gradient descent on the mean squared error with learning rate ``lr``; return the model
    and the list of the losses, ``losses[t]`` measured before step t (Python floats)."""
    raise NotImplementedError(
        "Task 5.13: fit_linear: linear regression, by hand — see §2 of the notebook"
    )


__all__ = ["fit_linear"]

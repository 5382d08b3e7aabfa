"""The cubic fit of sin(x) as a ``torch.nn.Module`` of one's own: "Learning PyTorch with
Examples", the custom-module version.

Written for PyTorch; the course repository's ``test_tutorials.py`` runs it with the one line
``import torch`` changed into ``import chapters.ch07_device as torch``. Ideas, in the
tutorial's order: a Module whose ``__init__`` makes four scalar
``nn.Parameter(torch.randn(()))`` (registered because they are attributes), a ``forward``
that writes the polynomial out, a method that prints it, ``nn.MSELoss(reduction="sum")`` and
``torch.optim.SGD`` over ``model.parameters()``.

    python -m support.tutorials.fit_sine_module
"""

import math

import torch

nn = torch.nn

POINTS = 2000
STEPS = 2000
LEARNING_RATE = 1e-6

EXACT = {"parameters", "target_energy"}
IN_PLACE = None


class Cubic(nn.Module):
    """c0 + c1 x + c2 x² + c3 x³, each coefficient a learnable scalar."""

    def __init__(self):
        super().__init__()
        self.c0 = nn.Parameter(torch.randn(()))
        self.c1 = nn.Parameter(torch.randn(()))
        self.c2 = nn.Parameter(torch.randn(()))
        self.c3 = nn.Parameter(torch.randn(()))

    def forward(self, x):
        return self.c0 + self.c1 * x + self.c2 * x**2 + self.c3 * x**3

    def formula(self):
        return (
            f"{self.c0.item():.4f} + {self.c1.item():.4f} x + {self.c2.item():.4f} x² "
            f"+ {self.c3.item():.4f} x³"
        )


def main(seed: int = 0) -> dict[str, float]:
    torch.manual_seed(seed)
    x = torch.linspace(-math.pi, math.pi, POINTS)
    target = torch.sin(x)

    model = Cubic()
    criterion = nn.MSELoss(reduction="sum")
    optimizer = torch.optim.SGD(model.parameters(), lr=LEARNING_RATE)

    first_loss = None
    for step in range(STEPS):
        loss = criterion(model(x), target)
        if first_loss is None:
            first_loss = loss.item()
        if step % 500 == 499:
            print(f"step {step + 1}: loss {loss.item():.4f}")
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    print(f"sin(x) ≈ {model.formula()}")
    return {
        "parameters": float(len(list(model.parameters()))),
        "target_energy": target.pow(2).sum().item(),
        "first_loss": first_loss,
        "last_loss": loss.item(),
        "c0": model.c0.item(),
        "c1": model.c1.item(),
        "c2": model.c2.item(),
        "c3": model.c3.item(),
    }


if __name__ == "__main__":
    print(main())

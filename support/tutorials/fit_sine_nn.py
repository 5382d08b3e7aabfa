"""The cubic fit of sin(x) again, the polynomial now a ``torch.nn`` model: "Learning PyTorch
with Examples", the ``nn`` version.

Written for PyTorch; the course repository's ``test_tutorials.py`` runs it with the one line
``import torch`` changed into ``import chapters.ch07_device as torch``. Ideas, in the
tutorial's order: the features x, x², x³ as one tensor (``x.unsqueeze(-1).pow(powers)``, a
tensor exponent broadcast against a column), ``nn.Sequential(nn.Linear(3, 1), nn.Flatten(0,
1))``, ``nn.MSELoss(reduction="sum")``, ``model.zero_grad()``, and the update by hand over
``model.parameters()`` under ``torch.no_grad()``; the fitted polynomial read from the
Sequential's first layer (``model[0]``).

    python -m support.tutorials.fit_sine_nn
"""

import math

import torch

nn = torch.nn

POINTS = 2000
STEPS = 2000
LEARNING_RATE = 1e-6

EXACT = {"features_rows", "features_columns", "features_sum", "parameters", "output_dims"}
IN_PLACE = None


def main(seed: int = 0) -> dict[str, float]:
    torch.manual_seed(seed)
    x = torch.linspace(-math.pi, math.pi, POINTS)
    target = torch.sin(x)

    powers = torch.tensor([1, 2, 3])
    features = x.unsqueeze(-1).pow(powers)  # (2000, 1) ** (3,) -> (2000, 3)

    model = nn.Sequential(
        nn.Linear(3, 1),  # bias + w1 x + w2 x² + w3 x³
        nn.Flatten(0, 1),  # (2000, 1) -> (2000,), the target's shape
    )
    loss_fn = nn.MSELoss(reduction="sum")

    first_loss = None
    for step in range(STEPS):
        guess = model(features)
        loss = loss_fn(guess, target)
        if first_loss is None:
            first_loss = loss.item()
        if step % 500 == 499:
            print(f"step {step + 1}: loss {loss.item():.4f}")
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for param in model.parameters():
                param -= LEARNING_RATE * param.grad

    layer = model[0]
    w = layer.weight[0]
    print(
        f"sin(x) ≈ {layer.bias.item():.4f} + {w[0].item():.4f} x + {w[1].item():.4f} x² "
        f"+ {w[2].item():.4f} x³"
    )
    return {
        "features_rows": float(features.shape[0]),
        "features_columns": float(features.shape[1]),
        "features_sum": features.sum().item(),
        "parameters": float(sum(p.numel() for p in model.parameters())),
        "output_dims": float(guess.dim()),
        "first_loss": first_loss,
        "last_loss": loss.item(),
        "bias": layer.bias.item(),
        "w1": w[0].item(),
        "w2": w[1].item(),
        "w3": w[2].item(),
    }


if __name__ == "__main__":
    print(main())

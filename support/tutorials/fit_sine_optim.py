"""The cubic fit of sin(x) with an optimizer doing the update: "Learning PyTorch with
Examples", the ``optim`` version.

Written for PyTorch; the course repository's ``test_tutorials.py`` runs it with the one line
``import torch`` changed into ``import chapters.ch07_device as torch``. The same model and
loss as ``fit_sine_nn``; the hand-written update becomes ``torch.optim.RMSprop`` with its
``zero_grad()`` / ``backward()`` / ``step()`` rhythm (a learning rate a thousand times the
hand-written one: RMSprop scales each step by a running gradient size).

    python -m support.tutorials.fit_sine_optim
"""

import math

import torch

nn = torch.nn

POINTS = 2000
STEPS = 2000
LEARNING_RATE = 1e-3

EXACT = {"features_sum", "param_groups", "learning_rate"}
IN_PLACE = None


def main(seed: int = 0) -> dict[str, float]:
    torch.manual_seed(seed)
    x = torch.linspace(-math.pi, math.pi, POINTS)
    target = torch.sin(x)
    features = x.unsqueeze(-1).pow(torch.tensor([1, 2, 3]))

    model = nn.Sequential(nn.Linear(3, 1), nn.Flatten(0, 1))
    loss_fn = nn.MSELoss(reduction="sum")
    optimizer = torch.optim.RMSprop(model.parameters(), lr=LEARNING_RATE)

    first_loss = None
    for step in range(STEPS):
        loss = loss_fn(model(features), target)
        if first_loss is None:
            first_loss = loss.item()
        if step % 500 == 499:
            print(f"step {step + 1}: loss {loss.item():.4f}")
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    layer = model[0]
    w = layer.weight[0]
    print(
        f"sin(x) ≈ {layer.bias.item():.4f} + {w[0].item():.4f} x + {w[1].item():.4f} x² "
        f"+ {w[2].item():.4f} x³"
    )
    return {
        "features_sum": features.sum().item(),
        "param_groups": float(len(optimizer.param_groups)),
        "learning_rate": float(optimizer.param_groups[0]["lr"]),
        "first_loss": first_loss,
        "last_loss": loss.item(),
        "bias": layer.bias.item(),
        "w1": w[0].item(),
        "w2": w[1].item(),
        "w3": w[2].item(),
    }


if __name__ == "__main__":
    print(main())

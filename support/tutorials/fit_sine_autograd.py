"""A cubic fitted to sin(x) on [-π, π], its four coefficients plain tensors that autograd
differentiates: the territory of "Learning PyTorch with Examples" (tensors and autograd).

Written for PyTorch; the course repository's ``test_tutorials.py`` runs it with the one line
``import torch`` changed into ``import chapters.ch07_device as torch`` (the reference,
there). Ideas, in the tutorial's order: an evenly spaced grid (``torch.linspace``) and its
sine, coefficients drawn with ``torch.randn(())`` and ``requires_grad=True``, a
sum-of-squares loss by ``.pow(2).sum()``, ``backward``, and an update by hand under
``torch.no_grad()`` (``a -= lr * a.grad``, then ``a.grad = None``) — an in-place update of a
plain leaf tensor, as PyTorch defines it (issue 28).

    python -m support.tutorials.fit_sine_autograd
"""

import math

import torch

POINTS = 2000
STEPS = 2000
LEARNING_RATE = 1e-6

EXACT = {"points", "target_energy"}
IN_PLACE = None


def main(seed: int = 0) -> dict[str, float]:
    torch.manual_seed(seed)
    x = torch.linspace(-math.pi, math.pi, POINTS)
    target = torch.sin(x)

    # constant, x, x², x³ — one scalar tensor each, watched by autograd
    a, b, c, d = (torch.randn((), requires_grad=True) for _ in range(4))

    first_loss = None
    for step in range(STEPS):
        guess = a + b * x + c * x**2 + d * x**3
        loss = (guess - target).pow(2).sum()
        if first_loss is None:
            first_loss = loss.item()
        if step % 500 == 499:
            print(f"step {step + 1}: loss {loss.item():.4f}")
        loss.backward()
        with torch.no_grad():  # the update itself must not be recorded
            for coefficient in (a, b, c, d):
                coefficient -= LEARNING_RATE * coefficient.grad
                coefficient.grad = None  # or the next backward would add to it

    print(f"sin(x) ≈ {a.item():.4f} + {b.item():.4f} x + {c.item():.4f} x² + {d.item():.4f} x³")
    return {
        "points": float(x.shape[0]),
        "target_energy": target.pow(2).sum().item(),
        "first_loss": first_loss,
        "last_loss": loss.item(),
        "a": a.item(),
        "b": b.item(),
        "c": c.item(),
        "d": d.item(),
    }


if __name__ == "__main__":
    print(main())

"""A tiny neural-network library on top of ``Value`` (given code, micrograd's ``nn``).

Neuron: out = φ(Σᵢ wᵢxᵢ + b) with φ = ReLU (or the identity for the last layer). Layer: a
list of neurons reading the same inputs. MLP: layers in a row. §10 of the notebook trains one
on the moons data; chapter 5 builds the real ``nn.Module``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .value import Value


class Module:
    """Something with parameters: ``parameters()`` lists them, ``zero_grad()`` resets them."""

    def zero_grad(self) -> None:
        for p in self.parameters():
            p.grad = 0.0

    def parameters(self) -> list[Value]:
        return []


class Neuron(Module):
    def __init__(self, nin: int, nonlin: bool = True, *, rng: random.Random | None = None):
        rng = rng or random
        self.w = [Value(rng.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(0)
        self.nonlin = nonlin

    def __call__(self, x: Sequence[Value | float]) -> Value:
        act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
        return act.relu() if self.nonlin else act

    def parameters(self) -> list[Value]:
        return [*self.w, self.b]

    def __repr__(self) -> str:
        return f"{'ReLU' if self.nonlin else 'Linear'}Neuron({len(self.w)})"


class Layer(Module):
    def __init__(self, nin: int, nout: int, *, rng: random.Random | None = None, **kwargs):
        self.neurons = [Neuron(nin, rng=rng, **kwargs) for _ in range(nout)]

    def __call__(self, x: Sequence[Value | float]) -> Value | list[Value]:
        out = [n(x) for n in self.neurons]
        return out[0] if len(out) == 1 else out

    def parameters(self) -> list[Value]:
        return [p for n in self.neurons for p in n.parameters()]

    def __repr__(self) -> str:
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):
    def __init__(self, nin: int, nouts: Sequence[int], *, rng: random.Random | None = None):
        sizes = [nin, *nouts]
        self.layers = [
            Layer(sizes[i], sizes[i + 1], nonlin=i != len(nouts) - 1, rng=rng)
            for i in range(len(nouts))
        ]

    def __call__(self, x: Sequence[Value | float]) -> Value | list[Value]:
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self) -> list[Value]:
        return [p for layer in self.layers for p in layer.parameters()]

    def __repr__(self) -> str:
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"

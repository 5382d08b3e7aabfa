"""``Generator``: a source of random numbers of your own, and ``randperm`` (given code).

PyTorch draws from one global generator (``manual_seed(n)`` reseeds it) unless a function
is handed a ``Generator`` of its own. A ``DataLoader`` given ``generator=Generator()
.manual_seed(0)`` shuffles the same way on every run, whatever else draws random numbers::

    g = sp.Generator().manual_seed(0)
    sp.randperm(5, generator=g)          # tensor([...]): the same five on every run

The numbers come from NumPy's ``default_rng`` (PCG64), so they are not PyTorch's numbers:
the same seed gives a different shuffle here and there.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ch02_tensor import factories
from ..ch02_tensor.tensor import Tensor


class Generator:
    """``Generator(device="cpu")``: an independent stream of random numbers."""

    def __init__(self, device: Any = "cpu") -> None:
        self.device = device
        self.manual_seed(int(np.random.SeedSequence().entropy) % 2**63)  # a fresh seed

    def manual_seed(self, seed: int) -> Generator:
        """Restart the stream from ``seed`` (any int; a negative one as PyTorch takes it,
        modulo 2⁶⁴); returns the generator (PyTorch's chaining)."""
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            raise TypeError(f"manual_seed takes an int, not {type(seed).__name__}")
        self._seed = int(seed)
        self._rng = np.random.default_rng(self._seed % 2**64)
        return self

    def initial_seed(self) -> int:
        """The seed the stream started from (the last ``manual_seed``'s, else a fresh one)."""
        return self._seed

    def get_state(self) -> dict:
        """The stream's position, for ``set_state`` (a copy)."""
        return dict(self._rng.bit_generator.state)

    def set_state(self, state: dict) -> Generator:
        self._rng.bit_generator.state = state
        return self


def rng_of(generator: Generator | None) -> np.random.Generator:
    """The NumPy generator to draw from: the given one's, else the global one (the one
    ``manual_seed`` reseeds)."""
    if generator is None:
        return factories._random["generator"]
    if not isinstance(generator, Generator):
        raise TypeError(f"generator= takes a Generator, not {type(generator).__name__}")
    return generator._rng


def randperm(n: int, *, generator: Generator | None = None) -> Tensor:
    """A random permutation of ``0 … n-1`` (int64)."""
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
        raise ValueError(f"randperm takes a non-negative int, not {n!r}")
    return Tensor(rng_of(generator).permutation(int(n)).astype(np.int64))

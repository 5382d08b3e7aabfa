"""Characters as tokens: the vocabulary, the split and the batches the GPT capstone trains on.

    vocabulary   the sorted distinct characters of the whole corpus; a character's id is its
                 place in that list (``Vocab.encode`` / ``Vocab.decode``)
    split        the first 90% of the encoded text is for training, the last 10% for
                 validation (by position, not at random: the validation text is a stretch
                 the model never saw, the end of the novel)
    batches      ``batch_starts(n, steps, B, T, seed)``: for each step, B start positions
                 drawn uniformly from 0 … n − T − 1 by ``numpy.random.default_rng(seed)``
                 (one ``integers`` call for all the steps); a sequence starting at s has
                 inputs data[s : s + T] and targets data[s + 1 : s + T + 1], the next
                 character at every position

The batches are NumPy arrays (int64, (B, T)), so the same stream feeds Sparrow and PyTorch,
and two runs with the same seed see the same sequences in the same order.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from support import datasets

TRAIN_FRACTION = 0.9


@dataclass(frozen=True)
class Vocab:
    """A character vocabulary: ``chars[i]`` is the character with id i."""

    chars: str

    @classmethod
    def from_text(cls, text: str) -> Vocab:
        """The sorted distinct characters of ``text``."""
        return cls("".join(sorted(set(text))))

    def __len__(self) -> int:
        return len(self.chars)

    def encode(self, text: str) -> np.ndarray:
        """The ids of ``text``'s characters, int64 (len(text),); a character outside the
        vocabulary raises KeyError."""
        index = {c: i for i, c in enumerate(self.chars)}
        try:
            return np.fromiter((index[c] for c in text), dtype=np.int64, count=len(text))
        except KeyError as error:
            raise KeyError(f"character {error.args[0]!r} is not in the vocabulary") from None

    def decode(self, ids: object) -> str:
        """The characters with ids ``ids`` (any sequence of ints), joined."""
        return "".join(self.chars[int(i)] for i in np.asarray(ids).reshape(-1))


@dataclass(frozen=True)
class Corpus:
    """The encoded corpus and its split: ``train`` and ``val`` are int64 id arrays."""

    vocab: Vocab
    train: np.ndarray
    val: np.ndarray


def split(ids: np.ndarray, fraction: float = TRAIN_FRACTION) -> tuple[np.ndarray, np.ndarray]:
    """(the first int(fraction · n) ids, the rest)."""
    cut = int(fraction * len(ids))
    return ids[:cut], ids[cut:]


def corpus(name: str = datasets.CORPUS) -> Corpus:
    """The shipped corpus ``name`` encoded with its own vocabulary, split 90/10."""
    text = datasets.load_corpus(name)
    vocab = Vocab.from_text(text)
    train, val = split(vocab.encode(text))
    return Corpus(vocab, train, val)


def batch_starts(n: int, steps: int, batch_size: int, block_size: int, seed: int) -> np.ndarray:
    """Start positions int64 (steps, batch_size), uniform on 0 … n − block_size − 1, drawn
    by one ``default_rng(seed).integers`` call (see the module docstring)."""
    if n <= block_size:
        raise ValueError(f"a text of {n} tokens has no sequence of {block_size} + 1 tokens")
    rng = np.random.default_rng(seed)
    return rng.integers(0, n - block_size, size=(steps, batch_size), dtype=np.int64)


def batch_at(
    data: np.ndarray, starts: np.ndarray, block_size: int
) -> tuple[np.ndarray, np.ndarray]:
    """(inputs, targets), int64 (len(starts), block_size): data[s : s + T] and
    data[s + 1 : s + T + 1] for each start s."""
    offsets = np.asarray(starts)[:, None] + np.arange(block_size)
    return data[offsets], data[offsets + 1]


def batches(
    data: np.ndarray, steps: int, batch_size: int, block_size: int, seed: int
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``steps`` (inputs, targets) pairs from ``data`` (see ``batch_starts``)."""
    for starts in batch_starts(len(data), steps, batch_size, block_size, seed):
        yield batch_at(data, starts, block_size)

"""Heads: several lookups side by side, as one batched matmul. Task 9.3 (§5).

Multi-head attention splits the width E into h heads of E/h each; every head attends on
its own (its own queries, keys, values, its own pattern), and the results are put side by
side again. No loop is needed: a reshape and a transpose move the heads to a batch axis,

    split_heads:  (B, T, E) → (B, T, h, E/h) → (B, h, T, E/h)
    merge_heads:  (B, h, T, d) → (B, T, h, d) → (B, T, h·d)

and one matmul of shape (B, h, L, d) @ (B, h, d, S) computes every head's scores at once.
The head axis comes out of E (each position's features are cut into h slices), never out of
T: cutting along T would give each head a different part of the sequence.

Both are reshapes and transposes, recorded operations, so their gradients are the same
moves backwards, with nothing written here.
"""

from __future__ import annotations

from ..ch02_tensor.tensor import Tensor


def split_heads(x: Tensor, num_heads: int) -> Tensor:
    """(…, T, E) → (…, h, T, E/h): the last axis cut into ``num_heads`` slices, the slice
    index moved in front of T."""
    if x.shape[-1] % num_heads:
        raise ValueError(f"split_heads: width {x.shape[-1]} is not divisible by {num_heads}")
    raise NotImplementedError(
        "Task 9.3: split_heads and merge_heads: heads as a batch axis — see §5 of the notebook"
    )


def merge_heads(x: Tensor) -> Tensor:
    """(…, h, T, d) → (…, T, h·d): the inverse of ``split_heads``."""
    raise NotImplementedError(
        "Task 9.3: split_heads and merge_heads: heads as a batch axis — see §5 of the notebook"
    )

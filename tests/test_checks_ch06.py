"""What only chapter 6's checks do (every chapter's contracts: tests/test_contracts.py; its
variants: tests/variants/ch06_broken.py and ch06_held_out.py, judged by
tests/test_variants.py): arrays that look alike in a report name their largest
difference."""

from __future__ import annotations


def test_arrays_that_look_alike_give_the_largest_difference() -> None:
    """A mismatch too small to see in the printout (rounded, or inside a "...") names its
    largest difference and where; a visible one does not."""
    import numpy as np

    from autograder.harness.api import compare

    small = compare(
        np.array([-0.433, 0.639999, 0.418]), np.array([-0.433, 0.64, 0.418]), rtol=1e-7, atol=1e-10
    )
    assert small and small.endswith("(largest difference 1e-06 at [1])"), small
    hidden = np.arange(30.0)
    hidden[15] += 1.0
    inside = compare(hidden, np.arange(30.0), rtol=1e-7, atol=0.0)
    assert inside and inside.endswith("(largest difference 1 at [15])"), inside
    plain = compare(np.array([1.0, 3.0]), np.array([1.0, 2.0]), rtol=1e-7, atol=0.0)
    assert plain and "largest difference" not in plain, plain

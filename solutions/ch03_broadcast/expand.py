"""``expand``: PyTorch's spelling of ``broadcast_to``. Task 3.3 (§6 of the notebook).

``x.expand(*sizes)`` is ``x.broadcast_to(shape)`` where ``shape`` is ``sizes`` with every
-1 replaced by the size ``x`` already has on that axis. Sizes are matched to ``x``'s axes
from the right, as in broadcasting; extra sizes on the left are new leading axes, which have
no size to keep, so -1 is not allowed there::

    x of shape (3, 1):  x.expand(2, -1, 4)  is  x.broadcast_to(2, 3, 4)
"""

from __future__ import annotations

from .broadcast import broadcast_to


def expand(x, sizes):
    """``x`` broadcast to ``sizes``, where -1 keeps the size of that axis of ``x``. A
    RuntimeError when there are fewer sizes than axes, or -1 names a new leading axis."""
    sizes = tuple(sizes)
    ### BEGIN SOLUTION 3.3
    new = len(sizes) - x.ndim
    if new < 0:
        raise RuntimeError(
            f"expand{sizes}: the number of sizes ({len(sizes)}) must be at least the number "
            f"of dimensions of the tensor ({x.ndim}, shape {x.shape})"
        )
    shape = []
    for axis, size in enumerate(sizes):
        if size == -1:
            if axis < new:
                raise RuntimeError(
                    f"expand{sizes}: -1 is not allowed for the new leading dimension {axis} "
                    "(it has no size to keep)"
                )
            size = x.shape[axis - new]
        shape.append(size)
    return broadcast_to(x, shape)
    ### END SOLUTION

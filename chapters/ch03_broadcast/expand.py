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
    raise NotImplementedError(
        "Task 3.3: expand(x, sizes): -1 keeps a size — see §6 of the notebook"
    )

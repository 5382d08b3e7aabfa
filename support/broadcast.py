"""Chapter 3's picture: which axes of a gradient ``unbroadcast`` sums, for one pair of shapes.

A gradient of shape ``grad_shape`` goes back to an input of shape ``shape``, which broadcast
to it. Aligned from the right, each axis of ``grad_shape`` has one of three roles:

    summed away       a leading axis that ``shape`` does not have
    summed, keepdim   an axis where ``shape`` has size 1 and the gradient does not
    kept              an axis of equal sizes (1 and 1 included)

``unbroadcast_roles`` computes them (support never imports the chapters, so this is its own
small copy of the rule); ``plot_unbroadcast`` draws them.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

SUMMED_AWAY = "summed away"
SUMMED_KEEPDIM = "summed, keepdim"
KEPT = "kept"

_STYLE = {  # role: (edge colour, fill colour)
    SUMMED_AWAY: ("#dc2626", "#fecaca"),
    SUMMED_KEEPDIM: ("#d97706", "#fde68a"),
    KEPT: ("#2563eb", "#bfdbfe"),
}


def _as_shape(shape: Sequence[int], what: str) -> tuple[int, ...]:
    try:  # ints, NumPy's integers included; not floats or bools
        sizes = tuple(operator.index(n) for n in shape if not isinstance(n, bool))
    except TypeError:
        sizes = ()
    if len(sizes) != len(tuple(shape)) or any(n < 0 for n in sizes):
        raise ValueError(f"{what} must be a tuple of sizes >= 0, got {tuple(shape)!r}")
    return sizes


def unbroadcast_roles(grad_shape: Sequence[int], shape: Sequence[int]) -> tuple[str, ...]:
    """The role of each axis of ``grad_shape`` when a gradient of that shape is summed back
    to ``shape``: ``SUMMED_AWAY``, ``SUMMED_KEEPDIM`` or ``KEPT``. A ValueError naming both
    shapes unless ``shape`` broadcasts to ``grad_shape``."""
    grad_shape = _as_shape(grad_shape, "grad_shape")
    shape = _as_shape(shape, "shape")
    lead = len(grad_shape) - len(shape)
    if lead < 0:
        raise ValueError(
            f"shape {shape} does not broadcast to grad_shape {grad_shape}: "
            f"{len(shape)} dimensions cannot become {len(grad_shape)}"
        )
    roles = [SUMMED_AWAY] * lead
    for axis, size in enumerate(shape):
        want = grad_shape[lead + axis]
        if size == want:
            roles.append(KEPT)
        elif size == 1:
            roles.append(SUMMED_KEEPDIM)
        else:
            raise ValueError(
                f"shape {shape} does not broadcast to grad_shape {grad_shape}: at dimension "
                f"{lead + axis}, size {size} is neither 1 nor {want}"
            )
    return tuple(roles)


def _calls(grad_shape: tuple[int, ...], roles: tuple[str, ...]) -> str:
    """The sums, as Tensor calls with the shape after each: the second call's dims count
    from the gradient with its leading axes already gone."""
    lead = roles.count(SUMMED_AWAY)
    shape = grad_shape[lead:]
    steps = []
    if lead:
        steps.append(f"grad.sum(dim={tuple(range(lead))}) → {shape}")
    stretched = tuple(k for k, role in enumerate(roles[lead:]) if role == SUMMED_KEEPDIM)
    if stretched:
        shape = tuple(1 if k in stretched else n for k, n in enumerate(shape))
        start = ".sum" if steps else "grad.sum"
        steps.append(f"{start}(dim={stretched}, keepdim=True) → {shape}")
    return "\nthen ".join(steps) if steps else "nothing to sum: grad is returned as it is"


def plot_unbroadcast(grad_shape: Sequence[int], shape: Sequence[int], ax: Any = None) -> Any:
    """Draw which axes of a gradient of shape ``grad_shape`` are summed to give ``shape``.

    One column per axis of the gradient: its size on top, the size it becomes below (none
    for an axis summed away), coloured and labelled by its role (``unbroadcast_roles``). The
    caption gives the Tensor calls that do it. Returns the matplotlib Axes; a ValueError
    naming both shapes unless ``shape`` broadcasts to ``grad_shape``.
    """
    roles = unbroadcast_roles(grad_shape, shape)
    grad_shape, shape = _as_shape(grad_shape, "grad_shape"), _as_shape(shape, "shape")
    lead = len(grad_shape) - len(shape)
    columns = max(len(grad_shape), 1)
    step = 1.5  # from one column to the next

    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    if ax is None:
        from .plots import _new_axes

        ax = _new_axes((1.1 * columns + 2.4, 3.2))

    def box(x: float, y: float, text: str, role: str, dashed: bool = False) -> None:
        edge, fill = _STYLE[role]
        ax.add_patch(
            FancyBboxPatch(
                (x - 0.4, y - 0.25),
                0.8,
                0.5,
                boxstyle="round,pad=0.02",
                facecolor="white" if dashed else fill,
                edgecolor=edge,
                linestyle="--" if dashed else "-",
                linewidth=1.4,
            )
        )
        ax.text(x, y, text, ha="center", va="center", fontsize=12)

    top, bottom = 2.2, 0.8
    ax.text(-0.75, top, f"grad\n{grad_shape}", ha="right", va="center", fontsize=10)
    ax.text(-0.75, bottom, f"shape\n{shape}", ha="right", va="center", fontsize=10)
    for axis, (size, role) in enumerate(zip(grad_shape, roles)):
        x = step * axis
        edge = _STYLE[role][0]
        ax.text(x, top + 0.4, f"dim {axis}", ha="center", va="bottom", fontsize=9)
        box(x, top, str(size), role)
        away = role == SUMMED_AWAY
        box(x, bottom, "–" if away else str(shape[axis - lead]), role, dashed=away)
        arrow = FancyArrowPatch(
            (x, top - 0.27), (x, bottom + 0.27), arrowstyle="-|>", mutation_scale=12, color=edge
        )
        ax.add_patch(arrow)
        if role != KEPT:
            ax.text(x + 0.1, (top + bottom) / 2, "Σ", color=edge, va="center", fontsize=12)
        label = role.replace(" ", "\n", 1)
        ax.text(x, bottom - 0.35, label, color=edge, ha="center", va="top", fontsize=9)
    if not grad_shape:
        ax.text(0, (top + bottom) / 2, "0-d: no axes", ha="center", va="center", fontsize=10)
    left, right = -2.6, step * (columns - 1) + 0.8
    ax.text(
        (left + right) / 2,
        bottom - 1.05,
        _calls(grad_shape, roles),
        ha="center",
        va="top",
        fontsize=9,
        family="monospace",
    )
    ax.set_title(f"unbroadcast: {grad_shape} → {shape}", fontsize=11)
    ax.set_xlim(left, right)
    ax.set_ylim(bottom - 1.75, top + 0.8)
    ax.set_aspect("equal")
    ax.axis("off")
    return ax

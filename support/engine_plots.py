"""Chapter 4's pictures: the graph the engine walks, memory during backward, and a Hessian.

    draw_tensor_graph(output, names)        a small tensor graph, drawn as chapter 1's
    plot_memory(forward, curves)            memory in use at each step of a backward pass
    plot_hessian_field(f, points, hessians) contours of f(x, y) and, at points, the
                                            eigenvectors of its Hessian

Support never imports the chapters: a tensor here is anything with ``grad_fn``,
``requires_grad``, ``numel()`` and ``item()``, a node anything with ``inputs`` and
``name()`` ("MulBackward"), as chapter 2's are.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .graph import draw_graph

_SYMBOLS = {"Add": "+", "Sub": "−", "Mul": "×", "Div": "÷", "Neg": "−", "Pow": "^", "MatMul": "@"}


class _Box:
    """A tensor dressed as chapter 1's ``Value``, for ``support.graph.draw_graph``."""

    def __init__(self, tensor: Any, label: str) -> None:
        if not hasattr(tensor, "numel"):  # an Edge: a backward without retain_graph freed it
            self.data = "freed"
        else:
            self.data = tensor.item() if tensor.numel() == 1 else f"shape {tuple(tensor.shape)}"
        self.grad = None
        self.label = label
        self._prev: tuple = ()
        self._op = ""


def draw_tensor_graph(
    output: Any, names: Mapping[str, Any] | None = None, ax: Any = None, rankdir: str = "LR"
) -> Any:
    """Draw the graph that made ``output``: a box per tensor (its name from ``names``, and
    its value), a circle per operation. Return the Axes."""
    label = {id(t): name for name, t in (names or {}).items()}
    for name, t in (names or {}).items():  # a freed input (an Edge) is known by its grad_fn
        if getattr(t, "grad_fn", None) is not None:
            label.setdefault(id(t.grad_fn), name)

    def key(t: Any) -> int:  # one box per tensor, and one per freed tensor (Edge)
        return id(t.grad_fn) if not hasattr(t, "numel") else id(t)

    tensors: dict[int, Any] = {}
    stack = [output]
    while stack:  # iterative: every tensor reachable through grad_fn.inputs
        t = stack.pop()
        if key(t) not in tensors:
            tensors[key(t)] = t
            if t.grad_fn is not None:
                stack.extend(t.grad_fn.inputs)
    boxes = {k: _Box(t, label.get(k, "")) for k, t in tensors.items()}
    for k, t in tensors.items():
        if t.grad_fn is not None:
            boxes[k]._prev = tuple(boxes[key(x)] for x in t.grad_fn.inputs)
            op = t.grad_fn.name().removesuffix("Backward")
            boxes[k]._op = _SYMBOLS.get(op, op.lower())
    return draw_graph(boxes[key(output)], ax=ax, rankdir=rankdir, show_grad=False)


def plot_memory(forward: int, curves: Mapping[str, Sequence[int]], ax: Any = None) -> Any:
    """Memory in use (MB) at each step of a backward pass: ``forward`` bytes of the forward
    graph (a thin dotted line, drawn over the curves so that a curve lying on it hides
    nothing) plus, for each curve, the bytes above it at each step. The legend sits below
    the axes, off the curves."""
    if ax is None:
        from .plots import _new_axes

        ax = _new_axes((7.0, 3.6))
    mb = 1e6
    for (name, samples), style in zip(curves.items(), ("-", "--", ":", "-.")):
        steps = np.arange(1, len(samples) + 1)
        ax.plot(steps, (forward + np.asarray(samples)) / mb, style, linewidth=2.0, label=name)
    ax.axhline(forward / mb, color="black", linewidth=0.9, linestyle=":", zorder=3)
    longest = max((len(samples) for samples in curves.values()), default=1)
    ax.text(longest, forward / mb, "the forward graph ", va="top", ha="right", color="#374151")
    ax.set_xlabel("vertices popped")
    ax.set_ylabel("memory in use (MB)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.17), fontsize="small")
    return ax


def plot_hessian_field(
    f: Callable[[np.ndarray, np.ndarray], np.ndarray],
    points: np.ndarray,
    hessians: np.ndarray,
    ax: Any = None,
    *,
    extent: tuple[float, float, float, float] | None = None,
) -> Any:
    """Contours of ``f(x, y)`` (NumPy, on a grid) and, at each of ``points`` (k, 2), the two
    eigenvectors of its Hessian ``hessians`` (k, 2, 2): a segment along each, its length
    growing as sqrt(|eigenvalue|) (the largest fills most of the gap to the next point), blue
    where the curvature is positive (the function bends up along it), red where it is
    negative. Return the Axes."""
    points, hessians = np.asarray(points, float), np.asarray(hessians, float)
    if ax is None:
        from .plots import _new_axes

        ax = _new_axes((6.5, 5.0))
    if extent is None:
        (x0, y0), (x1, y1) = points.min(axis=0), points.max(axis=0)
        pad_x, pad_y = 0.1 * (x1 - x0 or 1.0), 0.1 * (y1 - y0 or 1.0)
        extent = (x0 - pad_x, x1 + pad_x, y0 - pad_y, y1 + pad_y)
    xs = np.linspace(extent[0], extent[1], 200)
    ys = np.linspace(extent[2], extent[3], 200)
    X, Y = np.meshgrid(xs, ys)
    Z = f(X, Y)
    levels = np.unique(np.quantile(Z, np.linspace(0, 1, 21)))  # as many lines low as high
    filled = ax.contourf(X, Y, Z, levels=levels, cmap="Greys_r", alpha=0.5)
    ax.contour(X, Y, Z, levels=levels, colors="#6b7280", linewidths=0.4)
    ax.figure.colorbar(filled, ax=ax, label="f(x, y)", format="%.2g")

    values, vectors = np.linalg.eigh(hessians)  # each Hessian is symmetric
    gaps = np.linalg.norm(points[:, None] - points[None], axis=-1)
    spacing = gaps[gaps > 0].min() if len(points) > 1 else 1.0  # nearest neighbours
    largest = np.abs(values).max() or 1.0  # all-zero Hessians: draw nothing, divide by 1
    half = 0.45 * spacing * np.sqrt(np.abs(values) / largest)  # half-lengths
    for p, lams, vecs, lengths in zip(points, values, vectors, half):
        for k in range(2):
            d = vecs[:, k] * lengths[k]
            colour = "#2563eb" if lams[k] > 0 else "#dc2626"
            ax.plot([p[0] - d[0], p[0] + d[0]], [p[1] - d[1], p[1] + d[1]], color=colour, lw=1.6)
    ax.plot([], [], color="#2563eb", lw=1.6, label="eigenvector, λ > 0")
    ax.plot([], [], color="#dc2626", lw=1.6, label="eigenvector, λ < 0")
    ax.set_xlim(extent[0], extent[1])
    ax.set_ylim(extent[2], extent[3])
    ax.set_aspect("equal")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, fontsize="small")
    return ax

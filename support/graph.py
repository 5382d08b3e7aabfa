"""Draw the computation graph of a scalar ``Value`` with matplotlib (no Graphviz needed).

The picture is micrograd's ``draw_dot``: each value is a rounded box ("a | data 2.0000 |
grad -3.0000"), each operation a small circle holding its symbol, with arrows
child → op → output. Nodes are duck-typed: anything with ``.data``, ``.grad``, ``._prev``
(the nodes it was computed from) and ``._op`` ('' for a leaf), and optionally ``.label``.

Layout, in three plain steps (a small version of what Graphviz's ``dot`` does):

1. columns: a value's column is its longest distance from a leaf, so inputs are on the left
   and the root on the right; a leaf sits just left of the leftmost value that uses it, and an
   op circle just left of its output;
2. rows: within a column, values are sorted by the mean row of their neighbours (the
   "barycentre"), sweeping left→right, right→left, left→right, which removes most crossings;
3. size: the figure grows with the number of columns and rows.

A value used twice by one operation (``x * x``: ``_prev`` is ``(x, x)``) is two edges, and
is drawn as two arrows, bowed apart so that both show. A ``_prev`` that is a set (micrograd's
choice) cannot hold a value twice, so it gives one arrow.

Everything is iterative (explicit stacks, no recursion), so deep graphs never hit Python's
recursion limit; drawing stops at ``MAX_NODES`` because a bigger picture is unreadable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MAX_NODES = 300

_FONT_SIZE = 8.0  # points
_CHAR_WIDTH = 0.6 * _FONT_SIZE / 72  # inches per monospace character
_BOX_HEIGHT = 0.32  # inches
_BOX_PAD = 0.12  # inches of space between the text and the box's sides
_LAYER_GAP = 0.35  # inches between neighbouring columns (rows, for rankdir="TB")
_ROW_GAP = 0.25  # inches between neighbouring boxes of the same column
_MARGIN = 0.2  # inches around the drawing
_MAX_FIGURE_INCHES = 40.0  # bigger graphs are drawn smaller instead


# --------------------------------------------------------------------------------------------
# Tracing
# --------------------------------------------------------------------------------------------


def _fmt(x: Any) -> str:
    try:
        x = float(x)
    except (TypeError, ValueError):
        return repr(x)
    return f"{x:.4f}" if abs(x) < 1e6 else f"{x:.4g}"


def _label(node: Any) -> str:
    label = getattr(node, "label", None)
    return "" if label is None else str(label)


def _node_text(node: Any, show_grad: bool = True) -> str:
    """'a | data 2.0000 | grad -3.0000' (the label part only when the node has one)."""
    parts = [_label(node)] if _label(node) else []
    parts.append(f"data {_fmt(node.data)}")
    if show_grad:
        parts.append(f"grad {_fmt(node.grad)}")
    return " | ".join(parts)


def _children(node: Any) -> list[Any]:
    """``node._prev`` as a list, unique, in a deterministic order.

    Tuples and lists keep their order. A set (micrograd's choice) iterates in an order that
    depends on memory addresses, so its members are sorted by what the picture shows.
    """
    prev = node._prev
    if isinstance(prev, (set, frozenset)):
        prev = sorted(prev, key=lambda n: (_node_text(n), str(n._op)))
    unique: dict[int, Any] = {}
    for child in prev:
        unique.setdefault(id(child), child)
    return list(unique.values())


def edge_multiplicity(node: Any) -> dict[int, int]:
    """id(child) -> how many times ``node`` uses that child: the entries of ``node._prev``
    (a tuple or list may name one child twice, as ``x * x`` does; a set never does)."""
    counts: dict[int, int] = {}
    for child in node._prev:
        counts[id(child)] = counts.get(id(child), 0) + 1
    return counts


def trace_graph(root: Any) -> tuple[list[Any], list[tuple[Any, Any]]]:
    """Every node reachable from ``root`` and every edge (child, parent) between them.

    ``nodes`` is in topological order: each node comes after all of its children, and
    ``root`` comes last; the order is the same on every run. ``edges`` lists each
    (child, parent) pair once, parents in ``nodes`` order. Depth-first search with an
    explicit stack, so a chain of 100,000 nodes is fine. Raises ``ValueError`` on a cycle.
    """
    nodes: list[Any] = []
    done: set[int] = set()
    on_path: set[int] = set()
    stack: list[tuple[Any, list[Any], int]] = [(root, _children(root), 0)]
    on_path.add(id(root))
    while stack:
        node, kids, i = stack[-1]
        if i < len(kids):
            stack[-1] = (node, kids, i + 1)
            child = kids[i]
            if id(child) in done:
                continue
            if id(child) in on_path:
                raise ValueError("trace_graph: the graph has a cycle; a computation graph cannot")
            on_path.add(id(child))
            stack.append((child, _children(child), 0))
        else:
            stack.pop()
            on_path.discard(id(node))
            done.add(id(node))
            nodes.append(node)
    edges = [(child, node) for node in nodes for child in _children(node)]
    return nodes, edges


# --------------------------------------------------------------------------------------------
# Layout
# --------------------------------------------------------------------------------------------


def _layers(
    nodes: list[Any], children: dict[int, list[int]], parents: dict[int, list[int]]
) -> dict[int, int]:
    """id(node) -> column: the longest distance from a leaf; a leaf just left of its leftmost user.

    ``nodes`` is in topological order, so every child's column is known before its parent's.
    Moving each leaf next to the leftmost value that uses it (instead of leaving every leaf in
    column 0) keeps e.g. a late bias ``b`` from drawing an arrow across the whole picture.
    """
    layer: dict[int, int] = {}
    for n in nodes:
        layer[id(n)] = 1 + max((layer[c] for c in children[id(n)]), default=-1)
    for n in nodes:
        if not children[id(n)] and parents[id(n)]:
            layer[id(n)] = min(layer[p] for p in parents[id(n)]) - 1
    return layer


def _order_rows(
    columns: list[list[int]], children: dict[int, list[int]], parents: dict[int, list[int]]
) -> dict[int, float]:
    """id -> row (centred on 0) after three barycentre sweeps; ties keep the earlier order."""

    def rows_of(column: list[int]) -> dict[int, float]:
        middle = (len(column) - 1) / 2
        return {key: k - middle for k, key in enumerate(column)}

    row: dict[int, float] = {}
    for column in columns:
        row.update(rows_of(column))

    def sweep(order: range, neighbours: dict[int, list[int]]) -> None:
        for c in order:

            def barycentre(key: int) -> float:
                near = neighbours[key]
                return sum(row[n] for n in near) / len(near) if near else row[key]

            columns[c] = sorted(columns[c], key=lambda k: (barycentre(k), row[k]))
            row.update(rows_of(columns[c]))

    last = len(columns)
    sweep(range(1, last), children)
    sweep(range(last - 2, -1, -1), parents)
    sweep(range(1, last), children)
    return row


@dataclass
class _Layout:
    """Where everything goes, in inches at the base font size (one data unit = one inch)."""

    text: dict[int, str]  # id(value) -> the text in its box
    width: dict[int, float]  # id(value) -> box width
    centre: dict[int, tuple[float, float]]  # id(value) -> box centre
    op_centre: dict[int, tuple[float, float]]  # id(value) -> centre of the op that made it
    radius: dict[int, float]  # id(value) -> radius of that op circle
    span: dict[tuple[int, int], int]  # (id(child), id(parent)) -> columns the edge crosses
    bounds: tuple[float, float, float, float]  # x0, y0, width, height of the whole drawing


def _layout(
    nodes: list[Any], edges: list[tuple[Any, Any]], rankdir: str, show_grad: bool
) -> _Layout:
    by_id = {id(n): n for n in nodes}
    children: dict[int, list[int]] = {key: [] for key in by_id}
    parents: dict[int, list[int]] = {key: [] for key in by_id}
    for child, parent in edges:
        children[id(parent)].append(id(child))
        parents[id(child)].append(id(parent))
    layer = _layers(nodes, children, parents)
    columns: list[list[int]] = [[] for _ in range(max(layer.values()) + 1)]
    for n in nodes:
        columns[layer[id(n)]].append(id(n))
    row = _order_rows(columns, children, parents)

    text = {key: _node_text(n, show_grad) for key, n in by_id.items()}
    width = {key: len(t) * _CHAR_WIDTH + 2 * _BOX_PAD for key, t in text.items()}
    radius = {
        key: max(0.15, len(str(n._op)) * _CHAR_WIDTH / 2 + 0.06)
        for key, n in by_id.items()
        if children[key] and str(n._op)
    }
    op_room = 2 * max(radius.values(), default=0.0) + _LAYER_GAP

    # Along the layer axis each column is as deep as its widest (LR) or tallest (TB) box, with
    # room for op circles in front of it when it has any. Across it, rows are evenly spaced.
    depth = [max(width[k] for k in col) if rankdir == "LR" else _BOX_HEIGHT for col in columns]
    along: list[float] = []
    position = 0.0
    for c, col_depth in enumerate(depth):
        if any(k in radius for k in columns[c]):
            position += op_room
        along.append(position + col_depth / 2)
        position += col_depth + _LAYER_GAP
    extent_along = position - _LAYER_GAP
    box_across = _BOX_HEIGHT if rankdir == "LR" else max(width.values())
    pitch = box_across + _ROW_GAP
    extent_across = max(len(col) - 1 for col in columns) * pitch + box_across

    def place(along: float, across: float) -> tuple[float, float]:
        return (along, -across) if rankdir == "LR" else (across, -along)

    centre = {
        key: place(along[c], row[key] * pitch) for c, col in enumerate(columns) for key in col
    }
    op_centre = {
        key: place(along[layer[key]] - depth[layer[key]] / 2 - op_room / 2, row[key] * pitch)
        for key in radius
    }
    if rankdir == "LR":
        x0, y0 = -_MARGIN, -(extent_across / 2 + _MARGIN)
        size = (extent_along, extent_across)
    else:
        x0, y0 = -(extent_across / 2 + _MARGIN), -(extent_along + _MARGIN)
        size = (extent_across, extent_along)
    bounds = (x0, y0, size[0] + 2 * _MARGIN, size[1] + 2 * _MARGIN)
    span = {(id(c), id(p)): layer[id(p)] - layer[id(c)] for c, p in edges}
    return _Layout(text, width, centre, op_centre, radius, span, bounds)


# --------------------------------------------------------------------------------------------
# Drawing
# --------------------------------------------------------------------------------------------


def draw_graph(root: Any, ax: Any = None, *, rankdir: str = "LR", show_grad: bool = True) -> Any:
    """Draw the computation graph that ends in ``root``; return the matplotlib Axes.

    ``rankdir="LR"`` puts the inputs on the left and ``root`` on the right; ``"TB"`` puts
    them at the top and ``root`` at the bottom. ``show_grad=False`` leaves the gradients out
    (e.g. before ``backward()`` has run). Without ``ax`` a new figure is made whose size
    grows with the graph; with ``ax`` the drawing is scaled to fit it.
    """
    if rankdir not in ("LR", "TB"):
        raise ValueError(f"draw_graph: rankdir must be 'LR' or 'TB', got {rankdir!r}")
    nodes, edges = trace_graph(root)
    if len(nodes) > MAX_NODES:
        raise ValueError(f"draw_graph draws at most {MAX_NODES} nodes; this graph has {len(nodes)}")

    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch

    lay = _layout(nodes, edges, rankdir, show_grad)
    x0, y0, total_w, total_h = lay.bounds
    if ax is None:
        shrink = min(1.0, _MAX_FIGURE_INCHES / max(total_w, total_h))
        fig = plt.figure(figsize=(max(total_w * shrink, 1.0), max(total_h * shrink, 0.6)))
        ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    # Fonts and lines shrink with the inches that one data unit gets in this Axes.
    fig_w, fig_h = ax.figure.get_size_inches()
    frame = ax.get_position()
    scale = min(frame.width * fig_w / total_w, frame.height * fig_h / total_h)
    line = {"edgecolor": "#1f2937", "linewidth": max(0.3, 0.8 * scale), "zorder": 2}
    font = {"ha": "center", "va": "center", "family": "monospace", "zorder": 3}
    font["fontsize"] = _FONT_SIZE * scale

    boxes: dict[int, Any] = {}
    for n in nodes:
        key, (x, y), w = id(n), lay.centre[id(n)], lay.width[id(n)]
        colour = "#fde68a" if n is root else ("#dbeafe" if not n._prev else "white")
        boxes[key] = ax.add_patch(
            FancyBboxPatch(
                (x - w / 2, y - _BOX_HEIGHT / 2),
                w,
                _BOX_HEIGHT,
                boxstyle="round,pad=0,rounding_size=0.08",
                facecolor=colour,
                **line,
            )
        )
        ax.text(x, y, lay.text[key], **font)

    circles: dict[int, Any] = {}
    for n in nodes:
        if id(n) in lay.op_centre:
            centre = lay.op_centre[id(n)]
            circles[id(n)] = ax.add_patch(
                Circle(centre, lay.radius[id(n)], facecolor="#f3f4f6", **line)
            )
            ax.text(*centre, str(n._op), **font)

    def arrow(start: Any, end: Any, bend: float = 0.0) -> None:
        """An arrow from patch ``start`` to patch ``end``, clipped to their outlines, bowed
        sideways by ``bend`` (0: straight)."""
        ax.add_patch(
            FancyArrowPatch(
                _patch_centre(start),
                _patch_centre(end),
                patchA=start,
                patchB=end,
                shrinkA=0,
                shrinkB=0,
                connectionstyle=f"arc3,rad={bend}",
                arrowstyle="-|>",
                mutation_scale=max(3.0, 9 * scale),
                linewidth=max(0.3, 0.8 * scale),
                color="#4b5563",
                zorder=1,
            )
        )

    for key, circle in circles.items():  # op -> the value it makes
        arrow(circle, boxes[key])
    for child, parent in edges:  # child -> the op that uses it (or straight to the value)
        start, end = boxes[id(child)], circles.get(id(parent), boxes[id(parent)])
        uses = edge_multiplicity(parent)[id(child)]
        if uses > 1:  # one arrow per edge: x * x gets two
            for bend in _bends(uses):
                arrow(start, end, bend)
        elif lay.span[id(child), id(parent)] > 1:  # it passes other columns: bow it clear
            arrow(start, end, _bow(_patch_centre(start), _patch_centre(end), rankdir))
        else:
            arrow(start, end)

    ax.set_xlim(x0, x0 + total_w)
    ax.set_ylim(y0, y0 + total_h)
    ax.set_aspect("equal")
    ax.axis("off")
    return ax


def _bends(count: int) -> list[float]:
    """Curvatures for ``count`` arrows between the same two patches: one straight arrow, or
    ``count`` arcs spread evenly on both sides of the straight line."""
    if count == 1:
        return [0.0]
    return [0.6 * (k / (count - 1) - 0.5) for k in range(count)]


def _bow(start: tuple[float, float], end: tuple[float, float], rankdir: str) -> float:
    """The curvature that bows an arrow that passes other columns out to the side of its
    start (above it, for a start above its end in "LR"), away from the boxes in between."""
    (x1, y1), (x2, y2) = start, end
    dx, dy = x2 - x1, y2 - y1
    rad = min(0.2, 0.6 / max(abs(dx) + abs(dy), 1e-9))  # the arc rises rad·length/2: ≤ 0.3 in
    if rankdir == "LR":  # arc3 puts its control point at the middle plus rad * (dy, -dx)
        side = 1.0 if y1 >= y2 else -1.0  # up, or down
        return -rad * side if dx > 0 else rad * side
    side = 1.0 if x1 >= x2 else -1.0  # "TB": right, or left
    return rad * side if dy < 0 else -rad * side


def _patch_centre(patch: Any) -> tuple[float, float]:
    if hasattr(patch, "center"):  # Circle
        return tuple(patch.center)
    return (patch.get_x() + patch.get_width() / 2, patch.get_y() + patch.get_height() / 2)

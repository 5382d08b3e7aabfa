"""Chapter 8's pictures: im2col as a picture, fold's counts, what pooling does to a shift,
receptive fields measured by a gradient, filters and feature maps, and im2col's memory.

    plot_im2col(image, cols, columns)       a numbered image beside its unfolded columns,
                                            numbers written in; the chosen columns and
                                            the pixels they hold outlined in one colour each
    window_pixels(image, column)            which pixels of a numbered image a column holds
    plot_counts(counts)                     fold(unfold(ones)): how many windows saw each
                                            pixel, as a heat map with the counts written in
    relative_change(a, b)                   ‖a − b‖ / ‖a‖
    plot_shift_change(changes)              one bar per representation: how much a shift
                                            of the image changed it
    receptive_field(sp, layers, size, position)
                                            |∂ out[0, 0, p, q] / ∂x| for one output of the
                                            last layer, measured by backward on ``sp``
    support_box(field)                      the rows and columns where a field is non-zero
    plot_receptive_fields(fields)           one heat map per field, its box outlined and
                                            its size in the title
    plot_maps(maps, diverging=...)          a row (or grid) of 2-D arrays as images: filters,
                                            feature maps, a digit
    im2col_bytes(shape, kernel_size, ...)   the bytes of unfold's output, from the shapes

Each plot returns the matplotlib Figure and never calls ``plt.show()``. Support never
imports the chapters: pictures take NumPy arrays (``tensor.numpy()``) and plain numbers;
``receptive_field`` takes the framework module ``sp`` and its layers as arguments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# one colour per outlined window (the tab10 palette's first four: blue, orange, green, red)
WINDOW_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728")


def _pair(value: Any) -> tuple[int, int]:
    return (int(value), int(value)) if np.ndim(value) == 0 else (int(value[0]), int(value[1]))


def _as_matrix(name: str, array: Any) -> np.ndarray:
    array = np.asarray(array)
    if array.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got shape {array.shape}")
    return array


def _numbers(ax: Any, values: np.ndarray, fontsize: float) -> None:
    """Write each entry of ``values`` (2-D) in its cell, as an integer when it is one."""
    for (r, c), v in np.ndenumerate(values):
        text = f"{int(v)}" if float(v).is_integer() else f"{v:.2g}"
        ax.text(c, r, text, ha="center", va="center", fontsize=fontsize)


def _outline(
    ax: Any, r: int, c: int, colour: str, h: int = 1, w: int = 1, lw: float = 2.5, inset=0.0
):
    """A box around cells r … r + h − 1, c … c + w − 1, ``inset`` (in cells) inside their
    border, so that the boxes of several windows around one cell are all seen."""
    from matplotlib.patches import Rectangle

    corner = (c - 0.5 + inset, r - 0.5 + inset)
    box = Rectangle(corner, w - 2 * inset, h - 2 * inset, fill=False, edgecolor=colour, lw=lw)
    ax.add_patch(box)
    return box


def window_pixels(image: Any, column: Any) -> np.ndarray:
    """The pixels of ``image`` whose number appears in ``column``: a boolean mask of the
    image's shape. The image must be numbered with distinct non-zero values, so that a
    column's numbers name its pixels (a 0 in a column is padding, no pixel)."""
    image = _as_matrix("image", image)
    values = image[image != 0]
    if len(np.unique(values)) != image.size:
        raise ValueError("window_pixels: number the image with distinct non-zero values")
    return np.isin(image, np.asarray(column)[np.asarray(column) != 0])


def plot_im2col(
    image: Any,
    cols: Any,
    columns: Sequence[int] = (0, 1),
    kernel_size: tuple[int, int] | None = None,
    output_shape: tuple[int, int] | None = None,
) -> Figure:
    """``image`` (H, W), numbered 1…H·W, beside ``cols`` (kh·kw, L), its unfold, every
    entry written in its cell. Rows of ``cols`` are the kernel's taps (i, j) in row-major
    order, columns the windows (p, q): with ``kernel_size`` and ``output_shape`` given the
    ticks say which. Each of ``columns`` (at most four) is outlined in ``cols`` and, in the
    same colour, the pixels of ``image`` it holds (a pixel in several of them gets one box
    inside another). Returns the Figure; ``fig.axes`` are (image, cols)."""
    import matplotlib.pyplot as plt

    image, cols = _as_matrix("image", image), _as_matrix("cols", cols)
    if len(columns) > len(WINDOW_COLOURS):
        raise ValueError(f"plot_im2col: at most {len(WINDOW_COLOURS)} outlined columns")
    rows, windows = cols.shape
    width = 1.2 + 0.42 * (image.shape[1] + windows)
    fig, (left, right) = plt.subplots(
        1,
        2,
        figsize=(width, 0.42 * max(image.shape[0], rows) + 1.4),
        gridspec_kw={"width_ratios": [image.shape[1], windows]},
    )
    top = max(float(image.max()), 1.0)
    left.imshow(image, cmap="Greys", vmin=0, vmax=2.2 * top)
    right.imshow(cols, cmap="Greys", vmin=0, vmax=2.2 * top, aspect="equal")
    _numbers(left, image, fontsize=9)
    _numbers(right, cols, fontsize=8)
    for k, (colour, column) in enumerate(zip(WINDOW_COLOURS, columns)):
        _outline(right, 0, column, colour, h=rows, inset=0.04)
        for r, c in zip(*np.nonzero(window_pixels(image, cols[:, column]))):
            _outline(left, int(r), int(c), colour, lw=2.0, inset=0.05 + 0.09 * k)
    left.set_title(f"x: {image.shape[0]}×{image.shape[1]} pixels, numbered")
    right.set_title(f"cols = unfold(x): {rows} taps × {windows} windows")
    left.set_xticks(range(image.shape[1]))
    left.set_yticks(range(image.shape[0]))
    right.set_xticks(range(windows))
    right.set_yticks(range(rows))
    right.set_xlabel("column l: one window")
    right.set_ylabel("row: one tap of the kernel")
    if kernel_size is not None and kernel_size[0] * kernel_size[1] == rows:
        right.set_yticklabels([f"({i},{j})" for i, j in np.ndindex(*kernel_size)])
        right.set_ylabel("row: the tap (i, j)")
    if output_shape is not None and output_shape[0] * output_shape[1] == windows:
        right.set_xticklabels([f"{p},{q}" for p, q in np.ndindex(*output_shape)], fontsize=8)
        right.set_xlabel("column: the window at (p, q)")
    fig.tight_layout(w_pad=2.0)
    return fig


def plot_counts(counts: Any, title: str | None = None) -> Figure:
    """``counts`` (H, W) as a heat map with each count written in its pixel: for
    fold(unfold(ones)), how many windows saw each pixel. Returns the Figure."""
    import matplotlib.pyplot as plt

    counts = _as_matrix("counts", counts)
    fig, ax = plt.subplots(figsize=(0.5 * counts.shape[1] + 1.6, 0.5 * counts.shape[0] + 0.8))
    image = ax.imshow(counts, cmap="viridis", vmin=0)
    _numbers(ax, counts, fontsize=9)
    for text in ax.texts:  # dark cells get light numbers
        r, c = text.get_position()[::-1]
        text.set_color("white" if counts[int(r), int(c)] < 0.6 * counts.max() else "black")
    fig.colorbar(image, ax=ax, label="windows that saw the pixel")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(title or "fold(unfold(ones)): windows per pixel")
    fig.tight_layout()
    return fig


def relative_change(a: Any, b: Any) -> float:
    """‖a − b‖ / ‖a‖ over all entries: how much ``b`` differs from ``a``, relative to ``a``."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"relative_change: shapes differ, {a.shape} and {b.shape}")
    return float(np.linalg.norm(a - b) / np.linalg.norm(a))


def plot_shift_change(changes: Mapping[str, float], title: str | None = None) -> Figure:
    """One bar per ``name: change`` (a relative change, 0 = unchanged), its value written
    on it, in the order given. Returns the Figure."""
    import matplotlib.pyplot as plt

    if not changes:
        raise ValueError("plot_shift_change: nothing to draw")
    names, values = list(changes), [float(v) for v in changes.values()]
    fig, ax = plt.subplots(figsize=(1.25 * len(names) + 1.5, 3.4))
    bars = ax.bar(range(len(names)), values, color="#2563eb")
    ax.bar_label(bars, labels=[f"{v:.2f}" for v in values], fontsize="small")
    ax.set_xticks(range(len(names)), names, fontsize="small")
    ax.set_ylabel("‖f(x) − f(shifted x)‖ / ‖f(x)‖")
    ax.set_ylim(0, 1.15 * max(max(values), 1e-9))
    ax.grid(True, axis="y", alpha=0.3)
    ax.set_title(title or "how much a one-pixel shift changes each representation")
    fig.tight_layout()
    return fig


def receptive_field(sp: Any, layers: Sequence[Any], size: tuple[int, int], position: Any) -> Any:
    """|∂ y[0, 0, p, q] / ∂x| over the input's pixels (summed over its channels), where y
    is ``x`` (1, C, H, W) of ones, ``size`` = (H, W), run through ``layers`` in turn, and
    (p, q) = ``position`` in y: measured by one backward on the framework ``sp``. A pixel
    is non-zero exactly where y's unit depends on it, when no path is cut on the way (use
    positive weights and pooling by the mean to make every path count)."""
    weights = [layer.weight for layer in layers if getattr(layer, "weight", None) is not None]
    channels, dtype = (weights[0].shape[1], weights[0].dtype) if weights else (1, None)
    x = sp.ones(1, channels, *size, dtype=dtype, requires_grad=True)  # the first weight's dtype
    y = x
    for layer in layers:
        y = layer(y)
    p, q = position
    y[0, 0, p, q].backward()
    return np.abs(x.grad.numpy()[0]).sum(axis=0)


def support_box(field: Any) -> tuple[int, int, int, int]:
    """(top, left, height, width) of the smallest box holding every non-zero of ``field``."""
    rows, columns = np.nonzero(_as_matrix("field", field))
    if len(rows) == 0:
        raise ValueError("support_box: the field is zero everywhere")
    return (
        int(rows.min()),
        int(columns.min()),
        int(rows.max() - rows.min() + 1),
        int(columns.max() - columns.min() + 1),
    )


def plot_receptive_fields(fields: Mapping[str, Any]) -> Figure:
    """One heat map per ``name: field`` (each |∂ unit / ∂x|, scaled to its own largest
    value), the box around its non-zeros outlined and its size in the title. Returns the
    Figure."""
    import matplotlib.pyplot as plt

    if not fields:
        raise ValueError("plot_receptive_fields: nothing to draw")
    fig, axes = plt.subplots(
        1, len(fields), figsize=(2.6 * len(fields), 3.2), squeeze=False, layout="constrained"
    )
    for ax, (name, field) in zip(axes[0], fields.items()):
        field = _as_matrix(name, field)
        ax.imshow(field / field.max(), cmap="magma", vmin=0, vmax=1)
        top, left, h, w = support_box(field)
        _outline(ax, top, left, "#22d3ee", h=h, w=w, lw=1.5)
        ax.set_title(f"{name}\n{h}×{w} pixels", fontsize="medium")
        ax.set_xticks([])
        ax.set_yticks([])
    fig.suptitle("which input pixels one unit depends on: |∂ unit / ∂x|")
    return fig


def plot_maps(
    maps: Mapping[str, Any],
    *,
    diverging: bool | Sequence[bool] = False,
    columns: int | None = None,
    title: str | None = None,
    size: float = 1.5,
) -> Figure:
    """Each ``name: array`` (2-D) as an image, in a grid of ``columns`` (all in one row by
    default). A diverging panel (filters, edge responses) is red for positive, blue for
    negative, white at zero, its scale symmetric (±its largest |value|); the others are
    grey from their least to their largest value. Returns the Figure."""
    import matplotlib.pyplot as plt

    if not maps:
        raise ValueError("plot_maps: nothing to draw")
    flags = [diverging] * len(maps) if isinstance(diverging, bool) else list(diverging)
    if len(flags) != len(maps):
        raise ValueError(f"plot_maps: {len(maps)} maps, {len(flags)} diverging flags")
    columns = columns or len(maps)
    rows = -(-len(maps) // columns)
    fig, axes = plt.subplots(
        rows,
        columns,
        figsize=(size * columns, (size + 0.3) * rows + (0.4 if title else 0.0)),
        squeeze=False,
        layout="constrained",
    )
    for ax in axes.flat[len(maps) :]:
        ax.remove()
    for ax, (name, array), flag in zip(axes.flat, maps.items(), flags):
        array = _as_matrix(name, array)
        if flag:
            bound = max(float(np.abs(array).max()), 1e-12)
            ax.imshow(array, cmap="RdBu_r", vmin=-bound, vmax=bound)
        else:
            ax.imshow(array, cmap="Greys")
        ax.set_title(name, fontsize="small")
        ax.set_xticks([])
        ax.set_yticks([])
    if title:
        fig.suptitle(title)
    return fig


def im2col_bytes(
    shape: Sequence[int],
    kernel_size: Any,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    itemsize: int = 4,
) -> int:
    """The bytes of unfold's output for an input of ``shape`` (N, C, H, W):
    N · C·kh·kw · oh·ow · itemsize, with oh, ow = ⌊(H + 2p − d(k − 1) − 1) / s⌋ + 1."""
    n, c, h, w = shape
    (kh, kw), (sh, sw) = _pair(kernel_size), _pair(stride)
    (ph, pw), (dh, dw) = _pair(padding), _pair(dilation)
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    return n * c * kh * kw * oh * ow * itemsize

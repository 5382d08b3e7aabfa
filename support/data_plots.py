"""Looking at the data (chapters 5 and 6): a grid of images with their labels, and the
training curves of a classifier.

    show_images(images, labels, predictions)  the images in a grid, each titled with its
                                              label; wrong predictions in red ("7 → 1")
    plot_training_curves(history)             loss and accuracy per epoch, train and test,
                                              on two axes side by side

Both return the matplotlib Figure and never call ``plt.show()``: a notebook calls it after
them, as it does after the other helpers. They work without a display (the Agg backend).
matplotlib is imported inside the functions, as everywhere in ``support/``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .plots import _CLASS_COLOURS, plot_curve

if TYPE_CHECKING:
    from matplotlib.figure import Figure

WRONG_COLOUR = _CLASS_COLOURS[1]  # red: a title and frame of a wrong prediction
_RIGHT_COLOUR = "#1f2937"  # near-black title of a right (or unjudged) image
_FRAME_COLOUR = "#9ca3af"  # grey frame of a right (or unjudged) image
_SPLIT_COLOURS = {"train": _CLASS_COLOURS[0], "test": _CLASS_COLOURS[1]}

HISTORY_KEYS = ("train_loss", "test_loss", "train_accuracy", "test_accuracy")

_SHAPES = (
    "(n, 64) or (n, 8, 8) for digits, (n, 784) or (n, 28, 28) for MNIST "
    "(any (n, d·d), (n, h, w) or (n, 1, h, w) works)"
)


# --------------------------------------------------------------------------------------------
# A grid of images
# --------------------------------------------------------------------------------------------


def _as_pictures(images: Any) -> np.ndarray:
    """``images`` as an (n, h, w) array: a flat row of d·d pixels becomes a d × d picture,
    PyTorch's one-channel (n, 1, h, w) loses its channel axis."""
    arr = np.asarray(images)
    if arr.dtype == bool:
        arr = arr.astype(np.uint8)
    if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"show_images: images must hold numbers, got dtype {arr.dtype}")
    if arr.ndim == 4 and arr.shape[1] == 1:
        return arr[:, 0]
    if arr.ndim == 3:
        return arr
    if arr.ndim == 2:
        side = math.isqrt(arr.shape[1])
        if side * side == arr.shape[1]:
            return arr.reshape(arr.shape[0], side, side)
        raise ValueError(
            f"show_images: a flat image needs a square number of pixels (64 = 8·8, "
            f"784 = 28·28); got shape {arr.shape}, {arr.shape[1]} pixels per row. "
            f"Pass images of shape {_SHAPES}; one image: add a first axis, images[None]"
        )
    raise ValueError(
        f"show_images: images must have shape {_SHAPES}; got shape {arr.shape}"
        + (" (one image? add a first axis: images[None])" if arr.ndim in (1, 2) else "")
    )


def _pixel_range(pictures: np.ndarray, vmin: float | None, vmax: float | None) -> tuple:
    """The values drawn black and white: uint8 pixels run 0..255, all others 0..1, unless
    ``vmin``/``vmax`` say otherwise. Pixels outside the range they are read in are refused,
    not clipped: a picture of them would look plausible and be wrong."""
    if vmin is not None or vmax is not None:
        lo = float(np.nanmin(pictures)) if vmin is None and pictures.size else vmin
        hi = float(np.nanmax(pictures)) if vmax is None and pictures.size else vmax
        return lo, hi
    top = 255.0 if pictures.dtype == np.uint8 else 1.0
    if pictures.size:
        lo, hi = float(pictures.min()), float(pictures.max())
        if not (lo >= 0.0 and hi <= top):  # also refuses NaN
            raise ValueError(
                f"show_images: pixel values run from {lo:g} to {hi:g}; pass floats in [0, 1] "
                f"or uint8 in [0, 255] (raw 8×8 digits run 0..16: divide by 16), or give "
                f"vmin= and vmax="
            )
    return 0.0, top


def _one_per_image(values: Any, n: int, name: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.shape == (n,):
        return arr
    hint = ""
    if arr.ndim == 2 and arr.shape[0] == n:
        hint = f"; scores per class? pass {name}.argmax(axis=1)"
    raise ValueError(
        f"show_images: {name} must hold one class per image, shape ({n},) for {n} images; "
        f"got shape {arr.shape}{hint}"
    )


def _text(v: Any) -> str:
    """A label as a title shows it: 7, not 7.0 or np.int64(7)."""
    if isinstance(v, (np.integer, int)) or (
        isinstance(v, (np.floating, float)) and float(v).is_integer()
    ):
        return str(int(v))
    return str(v)


def show_images(
    images: Any,
    labels: Any,
    predictions: Any = None,
    ncols: int = 10,
    *,
    size: float = 1.0,
    cmap: str = "gray_r",
    vmin: float | None = None,
    vmax: float | None = None,
    title: str | None = None,
    max_images: int = 100,
) -> Figure:
    """Draw ``images`` in a grid, ``ncols`` to a row, each titled with its label.

    ``images`` has shape (n, 64) or (n, 8, 8) (digits), (n, 784) or (n, 28, 28) (MNIST), or
    any (n, d·d), (n, h, w), (n, 1, h, w); pixels are floats in [0, 1] or uint8 in [0, 255]
    (others: give ``vmin`` and ``vmax``, the values drawn white and black with the default
    ``cmap``, which draws ink dark on white). ``labels`` and ``predictions`` hold one class
    per image, shape (n,). Given ``predictions``, an image whose prediction differs from its
    label is titled "label → prediction" in red, in a red frame, and the figure's title says
    how many of the n are wrong ("all wrong" for a grid of mistakes only: the title given
    says how many of how many they are). Each image is ``size`` inches square. At most
    ``max_images`` are drawn: slice first (``images[:100]``, or ``images[wrong]`` for the
    mistakes). Returns the Figure, one Axes per image (none for n = 0: the title says so).
    """
    import matplotlib.pyplot as plt

    pictures = _as_pictures(images)
    n = pictures.shape[0]
    if ncols < 1:
        raise ValueError(f"show_images: ncols must be >= 1, got {ncols}")
    if n > max_images:
        raise ValueError(
            f"show_images: {n} images are too many to draw at once (max_images={max_images}); "
            f"pass a slice, images[:{max_images}], or raise max_images"
        )
    labels = _one_per_image(labels, n, "labels")
    if predictions is not None:
        predictions = _one_per_image(predictions, n, "predictions")
    lo, hi = _pixel_range(pictures, vmin, vmax)

    cols = max(1, min(ncols, n))
    rows = max(1, math.ceil(n / cols))
    head = 0.45 if (title or predictions is not None or n == 0) else 0.1  # inches, for the title
    cell = size * 1.3  # each image plus its own title
    fig = plt.figure(figsize=(cols * size + 0.2, rows * cell + head))
    fig.subplots_adjust(
        left=0.1 / fig.get_figwidth(),
        right=1 - 0.1 / fig.get_figwidth(),
        bottom=0.05 / fig.get_figheight(),
        top=1 - head / fig.get_figheight(),
        wspace=0.1,
        hspace=0.35,
    )

    wrong = 0
    for i in range(n):
        ax = fig.add_subplot(rows, cols, i + 1)
        ax.imshow(pictures[i], cmap=cmap, vmin=lo, vmax=hi, interpolation="nearest")
        ax.set_xticks([])
        ax.set_yticks([])
        label = _text(labels[i])
        miss = predictions is not None and predictions[i] != labels[i]
        if miss:
            wrong += 1
            ax.set_title(f"{label} → {_text(predictions[i])}", color=WRONG_COLOUR, fontsize=9)
        else:
            ax.set_title(label, color=_RIGHT_COLOUR, fontsize=9)
        for spine in ax.spines.values():
            spine.set_edgecolor(WRONG_COLOUR if miss else _FRAME_COLOUR)
            spine.set_linewidth(2.0 if miss else 0.5)

    parts = [title] if title else []
    if n == 0:
        parts.append("no images to show")
    elif predictions is not None:
        # "13 of 13 wrong" would read as a score: a grid of mistakes only says "all wrong"
        told = "all wrong" if wrong == n and n > 1 else f"{wrong} of {n} wrong"
        parts.append(told + (" (red: label → prediction)" if wrong else ""))
    if parts:
        fig.suptitle(" — ".join(parts), fontsize=10, color=WRONG_COLOUR if wrong else None)
    return fig


# --------------------------------------------------------------------------------------------
# Training curves
# --------------------------------------------------------------------------------------------


def _curves(history: Mapping[str, Sequence[float]]) -> dict[str, np.ndarray]:
    """The history's lists as float arrays, after checking the keys and the lengths."""
    if not isinstance(history, Mapping):
        raise TypeError(
            f"plot_training_curves: history must be a dict of lists such as "
            f"{{'train_loss': [...], 'test_accuracy': [...]}}; got {type(history).__name__}"
        )
    unknown = [k for k in history if k not in HISTORY_KEYS]
    if unknown:
        raise ValueError(
            f"plot_training_curves: unknown key(s) {', '.join(map(repr, unknown))}; "
            f"the keys it draws are {', '.join(HISTORY_KEYS)}"
        )
    curves = {}
    for key in HISTORY_KEYS:
        if key not in history:
            continue
        try:
            curves[key] = np.array([float(v) for v in history[key]], dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"plot_training_curves: history[{key!r}] must be a list of numbers, one per "
                f"epoch ({exc})"
            ) from None
    lengths = {key: len(values) for key, values in curves.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(
            "plot_training_curves: the lists have different lengths ("
            + ", ".join(f"{k} {m}" for k, m in lengths.items())
            + "); each holds one value per epoch, so all must be as long"
        )
    if not curves or not next(iter(lengths.values())):
        raise ValueError("plot_training_curves: history holds no values to draw")
    return curves


def plot_training_curves(
    history: Mapping[str, Sequence[float]],
    *,
    first: int = 1,
    title: str | None = None,
) -> Figure:
    """Draw a classifier's training: loss per epoch on the left, accuracy per epoch on the
    right, each with a train curve (blue) and a test curve (red).

    ``history`` maps any of ``train_loss``, ``test_loss``, ``train_accuracy``,
    ``test_accuracy`` to a list with one number per epoch, ``history[key][i]`` drawn at
    epoch ``first`` + i. Keys may be missing: a quantity with neither split gets no axes (a
    regression's history has loss alone, one axes). Unknown keys, or lists of different
    lengths, are refused with a message naming them. Each curve's legend entry gives its last
    value. Returns the Figure.
    """
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    curves = _curves(history)
    quantities = [q for q in ("loss", "accuracy") if any(k.endswith(q) for k in curves)]
    fig, axes = plt.subplots(
        1, len(quantities), figsize=(5.0 * len(quantities), 3.5), squeeze=False
    )
    for ax, quantity in zip(axes[0], quantities):
        for split in ("train", "test"):
            values = curves.get(f"{split}_{quantity}")
            if values is None:
                continue
            plot_curve(values, ax, xlabel="epoch", ylabel=quantity, first=first)
            line = ax.lines[-1]
            line.set_color(_SPLIT_COLOURS[split])
            line.set_label(f"{split} (last {values[-1]:.4g})")
        ax.set_title(quantity)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.legend(fontsize="small")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig

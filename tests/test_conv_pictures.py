"""Chapter 8's pictures (support/conv_plots.py) and what the notebook says they show: the
numbers of the im2col picture are the right pixels, fold's heat map is a count of windows,
pooling makes a shifted digit's features change less, a receptive field measured by a
gradient has the formula's size, and im2col's bytes follow from the shapes. Expected values
are NumPy loops written here; the reference (``solutions.ch08_conv``) is what is drawn."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from solutions import ch08_conv as sp
from support import conv_plots
from tests.headless import headless_figures, matplotlib, plt, renders  # noqa: F401 (an autouse fixture)

F = sp.nn.functional


def _starts(size: int, k: int, s: int, p: int, d: int) -> list[int]:
    """Where windows start along one padded axis, found by trying every start."""
    reach = d * (k - 1) + 1
    return [a for a in range(0, size + 2 * p, s) if a + reach <= size + 2 * p]


def _unfold_loop(x: np.ndarray, k, s=(1, 1), p=(0, 0), d=(1, 1)) -> np.ndarray:
    """im2col of one image (H, W) by loops: rows are taps (i, j), columns windows (a, b)."""
    h, w = x.shape
    padded = np.zeros((h + 2 * p[0], w + 2 * p[1]), x.dtype)
    padded[p[0] : p[0] + h, p[1] : p[1] + w] = x
    rows, cols = _starts(h, k[0], s[0], p[0], d[0]), _starts(w, k[1], s[1], p[1], d[1])
    out = np.zeros((k[0] * k[1], len(rows) * len(cols)), x.dtype)
    for window, (a, b) in enumerate(itertools.product(rows, cols)):
        for t, (i, j) in enumerate(itertools.product(range(k[0]), range(k[1]))):
            out[t, window] = padded[a + i * d[0], b + j * d[1]]
    return out


def _count_loop(h: int, w: int, k, s=(1, 1), p=(0, 0), d=(1, 1)) -> np.ndarray:
    """How many windows cover each pixel, by visiting every window's every tap."""
    counts = np.zeros((h + 2 * p[0], w + 2 * p[1]), int)
    for a, b in itertools.product(
        _starts(h, k[0], s[0], p[0], d[0]), _starts(w, k[1], s[1], p[1], d[1])
    ):
        for i, j in itertools.product(range(k[0]), range(k[1])):
            counts[a + i * d[0], b + j * d[1]] += 1
    return counts[p[0] : p[0] + h, p[1] : p[1] + w]


def _cell_texts(ax) -> np.ndarray:
    """The numbers written in an image's cells, as an array of the image's shape."""
    h, w = ax.get_images()[0].get_array().shape
    grid = np.full((h, w), np.nan)
    for text in ax.texts:
        c, r = text.get_position()
        grid[round(r), round(c)] = float(text.get_text())
    return grid


def _boxed_cells(ax, colour: str) -> set[tuple[int, int]]:
    """The (row, column) of every one-cell box of ``colour`` drawn on the axes."""
    cells = set()
    for patch in ax.patches:
        if matplotlib.colors.same_color(patch.get_edgecolor(), colour) and patch.get_width() < 1:
            x, y = patch.get_xy()
            cells.add((round(y + 0.49), round(x + 0.49)))
    return cells


ARGUMENTS = [
    ((4, 4), dict(k=(2, 2))),  # the notebook's first picture
    ((4, 4), dict(k=(2, 2), s=(2, 2), p=(1, 1))),  # its second: padding enters the columns
    ((5, 6), dict(k=(2, 3), s=(1, 2), p=(1, 0), d=(2, 1))),
]


@pytest.mark.parametrize(("size", "args"), ARGUMENTS)
def test_the_im2col_picture_writes_each_window_s_pixels_in_its_column(size, args) -> None:
    numbered = np.arange(1.0, size[0] * size[1] + 1).reshape(size)
    k, s = args["k"], args.get("s", (1, 1))
    p, d = args.get("p", (0, 0)), args.get("d", (1, 1))
    cols = F.unfold(sp.tensor(numbered[None, None]), k, d, p, s)[0].numpy()
    expected = _unfold_loop(numbered, k, s, p, d)
    columns = (0, 1, expected.shape[1] - 1)
    fig = conv_plots.plot_im2col(numbered, cols, columns=columns)
    image_ax, cols_ax = fig.axes
    assert np.array_equal(_cell_texts(cols_ax), expected)  # the numbers drawn are the pixels
    assert np.array_equal(_cell_texts(image_ax), numbered)
    for colour, column in zip(conv_plots.WINDOW_COLOURS, columns):
        pixels = {tuple(np.argwhere(numbered == v)[0]) for v in expected[:, column] if v}
        assert _boxed_cells(image_ax, colour) == pixels  # outlined: the window's pixels
    renders(fig)


def test_the_im2col_picture_labels_taps_and_windows_and_numbers_must_be_distinct() -> None:
    numbered = np.arange(1.0, 17.0).reshape(4, 4)
    cols = _unfold_loop(numbered, (2, 2))
    fig = conv_plots.plot_im2col(numbered, cols, kernel_size=(2, 2), output_shape=(3, 3))
    ax = fig.axes[1]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["(0,0)", "(0,1)", "(1,0)", "(1,1)"]
    assert [t.get_text() for t in ax.get_xticklabels()][:4] == ["0,0", "0,1", "0,2", "1,0"]
    with pytest.raises(ValueError, match="distinct non-zero"):
        conv_plots.window_pixels(np.ones((2, 2)), [1.0])
    with pytest.raises(ValueError, match="at most 4"):
        conv_plots.plot_im2col(numbered, cols, columns=(0, 1, 2, 3, 4))


@pytest.mark.parametrize(
    ("size", "args"),
    [
        ((7, 7), dict(k=(3, 3), p=(1, 1))),  # the notebook's: 4, 6, 9
        ((7, 7), dict(k=(3, 3), s=(2, 2))),  # the notebook's: 1, 2, 4
        ((6, 9), dict(k=(2, 3), s=(1, 2), p=(0, 1), d=(2, 2))),
    ],
)
def test_fold_of_unfold_of_ones_is_the_count_of_windows_and_the_heat_map_draws_it(
    size, args
) -> None:
    k, s = args["k"], args.get("s", (1, 1))
    p, d = args.get("p", (0, 0)), args.get("d", (1, 1))
    ones = sp.ones(1, 1, *size, dtype=sp.float64)
    counts = F.fold(F.unfold(ones, k, d, p, s), size, k, d, p, s)[0, 0].numpy()
    expected = _count_loop(*size, k, s, p, d)
    assert np.array_equal(counts, expected)
    fig = conv_plots.plot_counts(counts)
    ax = fig.axes[0]
    assert np.array_equal(ax.get_images()[0].get_array(), expected)
    assert np.array_equal(_cell_texts(ax), expected)
    renders(fig)


def test_the_notebook_s_counts_are_four_six_nine_and_one_two_four() -> None:
    """What §4's text reads off its two heat maps."""
    padded = _count_loop(7, 7, (3, 3), p=(1, 1))
    assert (padded[0, 0], padded[0, 3], padded[3, 3]) == (4, 6, 9)
    assert set(np.unique(padded)) == {4, 6, 9}
    strided = _count_loop(7, 7, (3, 3), s=(2, 2))
    assert set(np.unique(strided)) == {1, 2, 4}
    assert strided[2, 2] == strided[4, 4] == 4 and strided[2, 0] == strided[0, 2] == 2


def test_relative_change_and_its_bars() -> None:
    a, b = np.array([3.0, 4.0]), np.array([3.0, 1.0])
    assert conv_plots.relative_change(a, b) == pytest.approx(3.0 / 5.0)
    with pytest.raises(ValueError, match="shapes differ"):
        conv_plots.relative_change(a, np.zeros(3))
    changes = {"pixels": 0.56, "edge maps": 0.71, "max 2×2": 0.53}
    fig = conv_plots.plot_shift_change(changes)
    ax = fig.axes[0]
    assert [p.get_height() for p in ax.patches] == list(changes.values())
    assert [t.get_text() for t in ax.get_xticklabels()] == list(changes)
    assert [t.get_text() for t in ax.texts] == ["0.56", "0.71", "0.53"]
    renders(fig)


def _edge_maps(images: np.ndarray, kernels: np.ndarray) -> np.ndarray:
    """relu(conv2d(images, kernels, padding=1)) by shifted slices, in NumPy."""
    n, _, h, w = images.shape
    padded = np.pad(images[:, 0].astype(np.float64), ((0, 0), (1, 1), (1, 1)))
    out = np.zeros((n, len(kernels), h, w))
    for o, kernel in enumerate(kernels):
        for i, j in itertools.product(range(3), range(3)):
            out[:, o] += kernel[i, j] * padded[:, i : i + h, j : j + w]
    return np.maximum(out, 0.0)


def _max_pool(maps: np.ndarray, window: int) -> np.ndarray:
    n, c, h, w = maps.shape
    t, u = h // window, w // window
    blocks = maps[:, :, : t * window, : u * window].reshape(n, c, t, window, u, window)
    return blocks.max(axis=(3, 5))


def test_pooling_makes_the_notebook_s_shifted_digits_change_less_and_less() -> None:
    """§6's measurement, recomputed in NumPy: 200 test digits with a blank last column,
    shifted one pixel right; the edge maps change more than the pixels, every larger max-
    pooling window less, and a max over the whole map not at all."""
    from support.datasets import load

    x = load("mnist5k")["x_test"]
    batch = x[~x[:, :, -1].any(axis=1)][:200, None]
    shifted = np.roll(batch, 1, axis=3)
    sobel = np.array([[1.0, 0.0, -1.0], [2.0, 0.0, -2.0], [1.0, 0.0, -1.0]])
    kernels = np.stack([sobel, sobel.T, -sobel, -sobel.T])
    maps, moved = _edge_maps(batch, kernels), _edge_maps(shifted, kernels)
    pixels = conv_plots.relative_change(batch, shifted)
    changes = [conv_plots.relative_change(maps, moved)] + [
        conv_plots.relative_change(_max_pool(maps, k), _max_pool(moved, k))
        for k in (2, 4, 7, 14, 28)
    ]
    assert changes[0] > pixels
    assert all(later < earlier for earlier, later in itertools.pairwise(changes))
    assert changes[-1] == 0.0
    # the notebook's own numbers, made by the reference's conv2d and max_pool2d
    edges = sp.tensor(kernels[:, None].astype(np.float32))
    ours = F.relu(F.conv2d(sp.tensor(batch), edges, padding=1))
    ours_moved = F.relu(F.conv2d(sp.tensor(shifted), edges, padding=1))
    for k, change in zip((2, 7), (changes[1], changes[3])):
        measured = conv_plots.relative_change(
            F.max_pool2d(ours, k).numpy(), F.max_pool2d(ours_moved, k).numpy()
        )
        assert measured == pytest.approx(change, rel=1e-5)


def _probe(kernels, strides, dilations=None) -> list:
    """Conv and average-pool layers of the given geometry, every conv weight 1."""
    nn = sp.nn
    layers = []
    for k, s, d in zip(kernels, strides, dilations or [1] * len(kernels)):
        if k == s and d == 1 and k > 1:  # a pooling layer: window = stride
            layers.append(nn.AvgPool2d(k))
        else:
            conv = nn.Conv2d(1, 1, k, stride=s, dilation=d, bias=False, dtype=sp.float64)
            nn.init.ones_(conv.weight)
            layers.append(conv)
    return layers


@pytest.mark.parametrize(
    ("kernels", "strides", "dilations"),
    [
        ([5, 2, 5, 2], [1, 2, 1, 2], None),  # the notebook's: 5, 6, 14, 16
        ([3, 3, 3], [2, 1, 2], None),
        ([3, 3, 2, 3], [1, 1, 2, 1], [1, 2, 1, 1]),
    ],
)
def test_a_measured_receptive_field_is_the_formula_s_box_and_nothing_outside(
    kernels, strides, dilations
) -> None:
    """r = 1 + Σ (k_eff − 1) · Π earlier strides, k_eff = d(k − 1) + 1: the gradient of a
    central unit is non-zero on exactly an r × r square of the input."""
    dilations = dilations or [1] * len(kernels)
    layers = _probe(kernels, strides, dilations)
    size = (40, 40)
    for depth in range(1, len(layers) + 1):
        out = sp.zeros(1, 1, *size, dtype=sp.float64)
        for layer in layers[:depth]:
            out = layer(out)
        centre = (out.shape[2] // 2, out.shape[3] // 2)
        field = conv_plots.receptive_field(sp, layers[:depth], size, centre)
        reach = [d * (k - 1) + 1 for k, d in zip(kernels, dilations)]
        r = 1 + sum((reach[m] - 1) * int(np.prod(strides[:m])) for m in range(depth))
        top, left, height, width = conv_plots.support_box(field)
        assert (height, width) == (r, r)
        jump = int(np.prod(strides[:depth]))
        assert (top, left) == (centre[0] * jump, centre[1] * jump)  # no padding: from its start
        if all(d == 1 for d in dilations[:depth]):  # dilation leaves holes; else a full square
            assert np.count_nonzero(field) == r * r


def test_the_receptive_field_picture_outlines_the_support_and_names_its_size() -> None:
    field = np.zeros((10, 12))
    field[2:7, 3:9] = 1.0
    field[4, 5] = 3.0
    assert conv_plots.support_box(field) == (2, 3, 5, 6)
    fig = conv_plots.plot_receptive_fields({"a": field})
    ax = fig.axes[0]
    (box,) = ax.patches
    assert box.get_xy() == (2.5, 1.5) and (box.get_width(), box.get_height()) == (6, 5)
    assert ax.get_title().endswith("5×6 pixels")
    assert np.allclose(ax.get_images()[0].get_array(), field / 3.0)
    renders(fig)
    with pytest.raises(ValueError, match="zero everywhere"):
        conv_plots.support_box(np.zeros((3, 3)))


def test_maps_draw_each_array_and_diverging_ones_on_a_symmetric_scale() -> None:
    rng = np.random.default_rng(0)
    maps = {f"m{k}": rng.standard_normal((5, 5)) + k for k in range(5)}
    fig = conv_plots.plot_maps(maps, diverging=[True, False, True, False, False], columns=3)
    assert len(fig.axes) == 5  # the sixth cell of the 2 × 3 grid is removed
    for ax, (name, array), flag in zip(fig.axes, maps.items(), [True, False, True, False, False]):
        image = ax.get_images()[0]
        assert ax.get_title() == name and np.array_equal(image.get_array(), array)
        low, high = image.get_clim()
        if flag:
            assert high == -low == pytest.approx(np.abs(array).max())
        else:
            assert (low, high) == pytest.approx((array.min(), array.max()))
    renders(fig)
    with pytest.raises(ValueError, match="5 maps, 2 diverging flags"):
        conv_plots.plot_maps(maps, diverging=[True, False])


@pytest.mark.parametrize(
    ("shape", "k", "s", "p", "d"),
    [
        ((2, 3, 8, 8), 3, 1, 1, 1),
        ((1, 2, 9, 7), (2, 3), (2, 1), (1, 0), (1, 2)),
        ((3, 1, 28, 28), 5, 1, 2, 1),
    ],
)
def test_im2col_bytes_follow_from_the_shapes(shape, k, s, p, d) -> None:
    """N · C·kh·kw · (windows, counted by trying every start) · itemsize, which is also
    what unfold allocates."""
    pair = conv_plots._pair
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = pair(k), pair(s), pair(p), pair(d)
    n, c, h, w = shape
    windows = len(_starts(h, kh, sh, ph, dh)) * len(_starts(w, kw, sw, pw, dw))
    for dtype, itemsize in ((np.float32, 4), (np.float64, 8)):
        expected = n * c * kh * kw * windows * itemsize
        assert conv_plots.im2col_bytes(shape, k, s, p, d, itemsize=itemsize) == expected
        x = sp.tensor(np.zeros(shape, dtype))
        assert F.unfold(x, k, d, p, s).numpy().nbytes == expected

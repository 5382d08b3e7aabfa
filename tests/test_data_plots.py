"""The pictures of the data (support/data_plots.py), drawn without a display: a grid of images
with their labels and wrong predictions marked, and training curves. Small synthetic arrays
only: no dataset file is read."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support.data_plots import HISTORY_KEYS, plot_training_curves, show_images
from tests.headless import headless_figures, matplotlib, plt, renders  # noqa: F401 (an autouse fixture)

same_color = matplotlib.colors.same_color

RED = "#dc2626"  # the course's red (support/plots.py's class 1)


def _pixels(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == np.uint8:
        return rng.integers(0, 256, size=shape, dtype=np.uint8)
    return rng.random(shape).astype(dtype)


def _is_red(text) -> bool:
    return same_color(text.get_color(), RED)


# --------------------------------------------------------------------------------------------
# show_images
# --------------------------------------------------------------------------------------------

# (shape of the input, side of each picture, dtype, the values drawn white..black)
SHAPES = [
    ((12, 64), 8, np.float64, (0.0, 1.0)),  # digits, flat
    ((12, 8, 8), 8, np.float32, (0.0, 1.0)),  # digits, square
    ((12, 784), 28, np.uint8, (0.0, 255.0)),  # MNIST, flat
    ((12, 28, 28), 28, np.uint8, (0.0, 255.0)),  # MNIST, square
    ((12, 1, 28, 28), 28, np.float32, (0.0, 1.0)),  # PyTorch's (n, C, H, W), C = 1
    ((3, 5, 7), None, np.float64, (0.0, 1.0)),  # any (n, h, w)
]


@pytest.mark.parametrize(("shape", "side", "dtype", "clim"), SHAPES)
def test_show_images_draws_each_image_once_as_given(shape, side, dtype, clim):
    images = _pixels(shape, dtype)
    labels = np.arange(shape[0]) % 10
    fig = show_images(images, labels)
    assert matplotlib.get_backend().lower() == "agg"  # no display
    assert len(fig.axes) == shape[0]
    pictures = images.reshape(shape[0], side, side) if side else images
    for ax, picture, label in zip(fig.axes, pictures, labels):
        assert len(ax.images) == 1
        np.testing.assert_array_equal(np.asarray(ax.images[0].get_array()), picture)
        assert ax.images[0].get_clim() == clim
        assert ax.get_title() == str(label)
        assert not _is_red(ax.title)
    assert fig._suptitle is None  # no predictions, no title: nothing above the grid
    renders(fig)


@pytest.mark.parametrize(
    ("n", "ncols", "rows", "cols"),
    [(23, 10, 3, 10), (3, 10, 1, 3), (10, 10, 1, 10), (7, 1, 7, 1), (12, 5, 3, 5)],
)
def test_show_images_fills_rows_of_ncols(n, ncols, rows, cols):
    fig = show_images(_pixels((n, 64), np.float64), np.zeros(n, dtype=int), ncols=ncols)
    assert len(fig.axes) == n
    for i, ax in enumerate(fig.axes):
        r, c, start, _ = ax.get_subplotspec().get_geometry()
        assert (r, c, start) == (rows, cols, i)  # row i // cols, column i % cols
    positions = [ax.get_position() for ax in fig.axes]
    for i in range(1, n):  # left to right along a row, then down
        if i % cols:
            assert positions[i].x0 > positions[i - 1].x0
            assert positions[i].y0 == pytest.approx(positions[i - 1].y0)
        else:
            assert positions[i].y0 < positions[i - 1].y0


def test_show_images_marks_the_wrong_predictions_in_red():
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 10, size=20)
    predictions = labels.copy()
    wrong = [2, 5, 6, 19]
    predictions[wrong] = (labels[wrong] + 1 + rng.integers(0, 9, size=len(wrong))) % 10
    fig = show_images(_pixels((20, 28, 28), np.uint8), labels, predictions)
    assert len(fig.axes) == 20
    for i, ax in enumerate(fig.axes):
        spines = list(ax.spines.values())
        if labels[i] != predictions[i]:
            assert ax.get_title() == f"{labels[i]} → {predictions[i]}"
            assert _is_red(ax.title)
            assert all(same_color(s.get_edgecolor(), RED) for s in spines)
        else:
            assert ax.get_title() == str(labels[i])
            assert not _is_red(ax.title)
            assert not any(same_color(s.get_edgecolor(), RED) for s in spines)
    count = int((labels != predictions).sum())
    assert count == len(wrong)
    assert f"{count} of 20 wrong" in fig._suptitle.get_text()
    renders(fig)


def test_show_images_all_right_says_none_wrong_and_keeps_a_given_title():
    labels = np.array([3, 1, 4, 1, 5])
    fig = show_images(_pixels((5, 64), np.float64), labels, labels.copy(), title="test set")
    assert not any(_is_red(ax.title) for ax in fig.axes)
    text = fig._suptitle.get_text()
    assert "0 of 5 wrong" in text and "test set" in text


def test_show_images_of_mistakes_only_says_all_wrong_not_a_score():
    labels = np.array([3, 1, 4])
    fig = show_images(_pixels((3, 64), np.float64), labels, (labels + 1) % 10, title="3 of 359")
    text = fig._suptitle.get_text()
    assert "all wrong" in text and "3 of 359" in text and "3 of 3 wrong" not in text
    one = show_images(_pixels((1, 64), np.float64), [3], [4])
    assert "1 of 1 wrong" in one._suptitle.get_text()
    renders(fig)


@settings(max_examples=12)
@given(
    n=st.integers(1, 30),
    ncols=st.integers(1, 12),
    seed=st.integers(0, 2**16),
)
def test_show_images_red_titles_are_exactly_the_mismatches(n, ncols, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, size=n)
    predictions = rng.integers(0, 3, size=n)
    fig = show_images(_pixels((n, 16), np.float64, seed), labels, predictions, ncols=ncols)
    red = [i for i, ax in enumerate(fig.axes) if _is_red(ax.title)]
    assert red == [i for i in range(n) if labels[i] != predictions[i]]
    told = "all wrong" if len(red) == n > 1 else f"{len(red)} of {n} wrong"
    assert told in fig._suptitle.get_text()
    plt.close(fig)


def test_show_images_titles_integer_labels_as_integers():
    labels = np.array([7.0, 2.0, 0.5])  # floats from a float array of classes
    fig = show_images(_pixels((3, 8, 8), np.float64), labels, [7, 1, 0.5])
    assert [ax.get_title() for ax in fig.axes] == ["7", "2 → 1", "0.5"]


def test_show_images_with_vmin_vmax_draws_any_range():
    raw_digits = np.arange(2 * 64, dtype=np.float64).reshape(2, 64) % 17  # 0..16, as raw
    fig = show_images(raw_digits, [0, 1], vmin=0, vmax=16)
    assert [ax.images[0].get_clim() for ax in fig.axes] == [(0, 16)] * 2
    fig = show_images(raw_digits - 3, [0, 1], vmax=16)  # the other end from the data
    assert fig.axes[0].images[0].get_clim() == (float((raw_digits - 3).min()), 16)


def test_show_images_of_no_images_says_so():
    fig = show_images(np.zeros((0, 784), dtype=np.uint8), np.zeros(0, dtype=int), [])
    assert fig.axes == []
    assert "no images" in fig._suptitle.get_text()
    renders(fig)


BAD_IMAGES = [
    (np.zeros((4, 63)), "63 pixels per row"),  # not a square
    (np.zeros(64), r"got shape \(64,\).*images\[None\]"),  # one image, flat
    (np.zeros((2, 3, 4, 5)), r"got shape \(2, 3, 4, 5\)"),  # three channels
    (np.zeros((2, 3, 4, 5, 6)), r"got shape \(2, 3, 4, 5, 6\)"),
    (np.arange(128.0).reshape(2, 64) % 17, "from 0 to 16.*divide by 16"),  # raw digits
    (np.full((2, 64), -0.5), "from -0.5 to -0.5"),  # standardised pixels
    (np.full((2, 64), np.nan), "nan"),
]


@pytest.mark.parametrize(("images", "message"), BAD_IMAGES)
def test_show_images_names_what_is_wrong_with_the_images(images, message):
    with pytest.raises(ValueError, match=message):
        show_images(images, np.zeros(images.shape[0] if images.ndim > 1 else 1, dtype=int))


def test_show_images_refuses_labels_and_predictions_of_the_wrong_shape():
    images = _pixels((5, 64), np.float64)
    with pytest.raises(ValueError, match=r"labels must.*\(5,\) for 5 images; got shape \(4,\)"):
        show_images(images, np.zeros(4, dtype=int))
    with pytest.raises(ValueError, match=r"predictions.*\(5, 10\).*argmax\(axis=1\)"):
        show_images(images, np.zeros(5, dtype=int), np.zeros((5, 10)))
    with pytest.raises(TypeError, match="must hold numbers"):
        show_images(np.array([["a"] * 64]), [0])
    with pytest.raises(ValueError, match="ncols must be >= 1"):
        show_images(images, np.zeros(5, dtype=int), ncols=0)
    with pytest.raises(ValueError, match=r"101 images.*images\[:100\]"):
        show_images(np.zeros((101, 64)), np.zeros(101, dtype=int))


# --------------------------------------------------------------------------------------------
# plot_training_curves
# --------------------------------------------------------------------------------------------


def _history(epochs=6, keys=HISTORY_KEYS, seed=0):
    rng = np.random.default_rng(seed)
    return {key: list(rng.random(epochs)) for key in keys}


def test_plot_training_curves_draws_loss_and_accuracy_side_by_side():
    history = _history()
    fig = plot_training_curves(history)
    assert len(fig.axes) == 2
    loss, accuracy = fig.axes
    assert loss.get_position().x1 <= accuracy.get_position().x0  # side by side, loss left
    assert loss.get_position().y0 == pytest.approx(accuracy.get_position().y0)
    for ax, quantity in [(loss, "loss"), (accuracy, "accuracy")]:
        assert ax.get_title() == quantity and ax.get_xlabel() == "epoch"
        assert len(ax.lines) == 2
        for line, split in zip(ax.lines, ("train", "test")):
            values = history[f"{split}_{quantity}"]
            np.testing.assert_array_equal(line.get_xdata(), np.arange(1, len(values) + 1))
            np.testing.assert_array_equal(line.get_ydata(), values)
            assert line.get_label().startswith(split)
            assert f"{values[-1]:.4g}" in line.get_label()  # the last value, in the legend
        assert not same_color(ax.lines[0].get_color(), ax.lines[1].get_color())
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert legend == [line.get_label() for line in ax.lines]
    renders(fig)


@pytest.mark.parametrize(
    ("keys", "panels"),
    [
        (("train_loss",), [["train"]]),
        (("train_loss", "test_loss"), [["train", "test"]]),
        (("test_accuracy",), [["test"]]),
        (("train_loss", "test_accuracy"), [["train"], ["test"]]),
        (("test_loss", "train_accuracy", "test_accuracy"), [["test"], ["train", "test"]]),
    ],
)
def test_plot_training_curves_draws_only_what_the_history_holds(keys, panels):
    fig = plot_training_curves(_history(keys=keys))
    assert len(fig.axes) == len(panels)
    for ax, splits in zip(fig.axes, panels):
        assert [line.get_label().split()[0] for line in ax.lines] == splits


def test_plot_training_curves_numbers_epochs_from_first():
    fig = plot_training_curves({"train_loss": [3.0, 2.0, 1.5]}, first=0, title="run 1")
    np.testing.assert_array_equal(fig.axes[0].lines[0].get_xdata(), [0, 1, 2])
    assert fig._suptitle.get_text() == "run 1"


def test_plot_training_curves_takes_numpy_and_torch_scalars():
    torch = pytest.importorskip("torch")
    losses = [torch.tensor(0.5), np.float32(0.25), 0.125]
    fig = plot_training_curves({"train_loss": losses})
    np.testing.assert_array_equal(fig.axes[0].lines[0].get_ydata(), [0.5, 0.25, 0.125])


@pytest.mark.parametrize(
    ("history", "error", "message"),
    [
        ({"train_loss": [1.0], "val_loss": [1.0]}, ValueError, "'val_loss'.*train_loss"),
        ({"loss": [1.0], "acc": [0.5]}, ValueError, "'loss', 'acc'"),
        (
            {"train_loss": [1.0, 0.5], "test_loss": [1.0]},
            ValueError,
            "different lengths.*train_loss 2, test_loss 1",
        ),
        ({}, ValueError, "no values"),
        ({"train_loss": []}, ValueError, "no values"),
        ({"test_accuracy": ["high"]}, TypeError, r"history\['test_accuracy'\].*numbers"),
        ({"train_loss": 0.5}, TypeError, r"history\['train_loss'\].*list"),
        ([1.0, 0.5], TypeError, "dict of lists.*got list"),
    ],
)
def test_plot_training_curves_names_what_is_wrong(history, error, message):
    with pytest.raises(error, match=message):
        plot_training_curves(history)

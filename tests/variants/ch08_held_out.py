"""Chapter 8's held-out set: plausible student code written from the reference and the task
table alone, without looking at the checks (tests/variants/ch08_broken.py holds the first
set), and unusual but correct rewrites, judged on the public and the hidden checks together
(by tests/test_variants.py). Every correct rewrite keeps to ``array_module``, so it runs on
the simulated device as well as on NumPy. Variants that passed the public checks when they
were first judged are noted (``# was a hole:``), and the hidden checks alone catch them too
(``HOLES``)."""

from __future__ import annotations

from functools import partial

from tests import trees
from tests.trees import edits
from tests.variants import VariantSet

PACKAGE = "ch08_conv"
edits = partial(edits, PACKAGE)
rewrite = partial(trees.rewrite, PACKAGE)
SIZES, UNFOLD, CONV, POOLING = "sizes.py", "unfold.py", "conv.py", "pooling.py"

OUTPUT_SIZE = "    return (size + 2 * padding - reach) // stride + 1\n"
STRIDES = "    s_n, s_c, s_h, s_w = x.strides\n"
COL2IM_SLICE = (
    "out[:, :, top : top + sh * (oh - 1) + 1 : sh, left : left + sw * (ow - 1) + 1 : sw] += ("
)
MAX_FOLD = (
    "        cols = (grad_output.reshape(n, c, 1, oh, ow) * won).reshape(n, c * kh * kw, oh * ow)\n"
    "        return Col2Im.apply(cols, ctx.size, *ctx.args)\n"
)
# -- plausible bugs -----------------------------------------------------------------------

VARIANTS = [
    # -- 8.1: output_size and windows -----------------------------------------------------
    (
        "output_size pads one side only",
        SIZES,
        (OUTPUT_SIZE, "    return (size + padding - reach) // stride + 1\n"),
        "8.1",
    ),
    (
        "output_size rounds up (a last, partial window)",
        SIZES,
        (OUTPUT_SIZE, "    return -(-(size + 2 * padding - reach) // stride) + 1\n"),
        "8.1",
    ),
    (
        "output_size spreads the whole kernel by the dilation",
        SIZES,
        (
            "    reach = dilation * (kernel_size - 1) + 1  # the pixels one window spans\n",
            "    reach = dilation * kernel_size  # the pixels one window spans\n",
        ),
        "8.1",
    ),
    (
        "windows counts its strides in elements, not bytes",
        UNFOLD,
        (STRIDES, "    s_n, s_c, s_h, s_w = (s // x.itemsize for s in x.strides)\n"),
        "8.1",
    ),
    # was a hole: windows' case of a transposed (non-contiguous) x catches it now
    (
        "windows takes the input to be contiguous (strides from the shape)",
        UNFOLD,
        (
            STRIDES,
            "    s_w = x.itemsize\n    s_n, s_c, s_h = c * h * w * s_w, h * w * s_w, w * s_w\n",
        ),
        "8.1",
    ),
    (
        "windows puts the positions before the kernel offsets",
        UNFOLD,
        edits(
            UNFOLD,
            ("    shape = (n, c, kh, kw, oh, ow)\n", "    shape = (n, c, oh, ow, kh, kw)\n"),
            (
                "(s_n, s_c, s_h * dh, s_w * dw, s_h * sh, s_w * sw)",
                "(s_n, s_c, s_h * sh, s_w * sw, s_h * dh, s_w * dw)",
            ),
        ),
        "8.1",
    ),
    # -- 8.2: col2im and the two backwards -------------------------------------------------
    (
        "col2im crops the padding with negative ends",
        UNFOLD,
        (
            "    return out[:, :, ph : ph + h, pw : pw + w]\n",
            "    return out[:, :, ph:-ph, pw:-pw]\n",
        ),
        "8.2",
    ),
    (
        "col2im's slices end oh pixels on, not oh strides",
        UNFOLD,
        (COL2IM_SLICE, "out[:, :, top : top + oh : sh, left : left + ow : sw] += ("),
        "8.2",
    ),
    (
        "col2im ignores the dilation",
        UNFOLD,
        ("            top, left = i * dh, j * dw\n", "            top, left = i, j\n"),
        "8.2",
    ),
    (
        "col2im reads the rows as (kh, kw, C)",
        UNFOLD,
        (
            "    patches = cols.reshape(n, c, kh, kw, oh, ow)\n",
            "    patches = cols.reshape(n, kh, kw, c, oh, ow).transpose(0, 3, 1, 2, 4, 5)\n",
        ),
        "8.2",
    ),
    (
        "Im2Col's backward folds the bare array (not recorded)",
        UNFOLD,
        rewrite(
            UNFOLD,
            "8.2",
            None,
            "return Tensor._from_array(col2im(grad_output.data, ctx.size, *ctx.args))",
        ),
        "8.2",
    ),
    (
        "Col2Im's backward unfolds without the padding",
        UNFOLD,
        rewrite(
            UNFOLD,
            "8.2",
            None,
            None,
            "kernel_size, dilation, _, stride = ctx.args\n"
            "return Im2Col.apply(grad_output, kernel_size, dilation, (0, 0), stride)",
        ),
        "8.2",
    ),
    # -- 8.3: Convolution -------------------------------------------------------------------
    (
        "the bias added along the last axis",
        CONV,
        ("out += bias.data.reshape(1, o, 1, 1)", "out += bias.data"),
        "8.3",
    ),
    (
        "the weight's gradient averaged over the batch",
        CONV,
        (
            ".sum(0).reshape(*weight.shape)",
            ".mean(0).reshape(*weight.shape)",
        ),
        "8.3",
    ),
    (
        "needs_input_grad read in the wrong order",
        CONV,
        edits(
            CONV,
            (
                "        if ctx.needs_input_grad[0]:\n            grad_cols",
                "        if ctx.needs_input_grad[1]:\n            grad_cols",
            ),
            (
                "        if ctx.needs_input_grad[1]:\n            cols = _columns",
                "        if ctx.needs_input_grad[0]:\n            cols = _columns",
            ),
        ),
        "8.3",
    ),
    (
        "the weight's gradient from the saved columns (not recorded)",
        CONV,
        (
            "cols = _columns(ctx, x).reshape(n, groups, -1, oh * ow)",
            "cols = Tensor._from_array(ctx.cols).reshape(n, groups, -1, oh * ow)",
        ),
        "8.3",
    ),
    (
        "the groups read from interleaved channels",
        CONV,
        (
            "columns = cols.reshape(n, groups, -1, oh * ow)",
            "columns = cols.reshape(n, -1, groups, oh * ow).swapaxes(1, 2)",
        ),
        "8.3",
    ),
    (
        "the input's gradient ignores the groups",
        CONV,
        (
            "grad_cols = (kernels.transpose(-1, -2) @ g).reshape(n, -1, oh * ow)",
            "grad_cols = weight.reshape(o, -1).transpose(0, 1) @ grad_output.reshape("
            "n, o, oh * ow)",
        ),
        "8.3",
    ),
    # -- 8.4: MaxPool ------------------------------------------------------------------------
    (
        "max pool's ties go to the last maximum",
        POOLING,
        (
            "        for slot in range(kh * kw):  # one winner",
            "        for slot in reversed(range(kh * kw)):  # one winner",
        ),
        "8.4",
    ),
    (
        "max pool's backward folds without the dilation",
        POOLING,
        (
            "* won).reshape(n, c * kh * kw, oh * ow)\n"
            "        return Col2Im.apply(cols, ctx.size, *ctx.args)\n",
            "* won).reshape(n, c * kh * kw, oh * ow)\n"
            "        kernel_size, _, padding, stride = ctx.args\n"
            "        return Col2Im.apply(cols, ctx.size, kernel_size, (1, 1), padding, stride)\n",
        ),
        "8.4",
    ),
    (
        "max pool's backward sends 1 to the winner, not the gradient",
        POOLING,
        (
            MAX_FOLD,
            "        cols = won.reshape(n, c * kh * kw, oh * ow)\n"
            "        return Col2Im.apply(cols, ctx.size, *ctx.args)\n",
        ),
        "8.4",
    ),
    # -- 8.5: AvgPool ------------------------------------------------------------------------
    (
        "avg pool's forward takes the mean (the divisor ignored)",
        POOLING,
        ("return view.sum(axis=(2, 3)) / divisor", "return view.mean(axis=(2, 3))"),
        "8.5",
    ),
    (
        "avg pool's backward divides by kh·kw",
        POOLING,
        (
            "share = (grad_output / Tensor._from_array(ctx.divisor))",
            "share = (grad_output / (kh * kw))",
        ),
        "8.5",
    ),
    (
        "avg pool's backward lays the shares out (L, kh·kw)",
        POOLING,
        edits(
            POOLING,
            (".reshape(n, c, 1, oh * ow)\n", ".reshape(n, c, oh * ow, 1)\n"),
            ("share.expand(n, c, kh * kw, oh * ow)", "share.expand(n, c, oh * ow, kh * kw)"),
        ),
        "8.5",
    ),
    (
        "avg pool's backward multiplies by the divisor",
        POOLING,
        (
            "share = (grad_output / Tensor._from_array(ctx.divisor))",
            "share = (grad_output * Tensor._from_array(ctx.divisor))",
        ),
        "8.5",
    ),
]

# -- unusual but correct rewrites ---------------------------------------------------------

OUTPUT_SIZE_BY_FLOOR = """
import math

span = size + 2 * padding - dilation * (kernel_size - 1) - 1
return math.floor(span / stride) + 1
"""

OUTPUT_SIZE_BY_COUNTING = """
padded, reach = size + 2 * padding, dilation * (kernel_size - 1) + 1
count, start = 0, 0
while start + reach <= padded:  # one more window fits
    count += 1
    start += stride
return count
"""

WINDOWS_BY_SLIDING_WINDOW_VIEW = """
(kh, kw), (dh, dw), (sh, sw) = kernel_size, dilation, stride
reach = (dh * (kh - 1) + 1, dw * (kw - 1) + 1)
xp = array_module(x)
every = xp.lib.stride_tricks.sliding_window_view(x, reach, axis=(2, 3))  # (N, C, H', W', rh, rw)
picked = every[:, :, ::sh, ::sw, ::dh, ::dw]  # (N, C, oh, ow, kh, kw)
return picked.transpose(0, 1, 4, 5, 2, 3)
"""

COL2IM_BY_ADD_AT = """
(h, w), (kh, kw), (dh, dw), (ph, pw), (sh, sw) = size, kernel_size, dilation, padding, stride
oh, ow = output_size(h, kh, sh, ph, dh), output_size(w, kw, sw, pw, dw)
n, rows, _ = cols.shape
c = rows // (kh * kw)
xp = array_module(cols)
# the padded row and column of every (offset, position): (kh, 1, oh, 1) and (1, kw, 1, ow)
r = (xp.arange(kh) * dh).reshape(kh, 1, 1, 1) + (xp.arange(oh) * sh).reshape(1, 1, oh, 1)
q = (xp.arange(kw) * dw).reshape(1, kw, 1, 1) + (xp.arange(ow) * sw).reshape(1, 1, 1, ow)
image = xp.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=cols.dtype)
xp.add.at(image, (slice(None), slice(None), r, q), cols.reshape(n, c, kh, kw, oh, ow))
return image[:, :, ph : ph + h, pw : pw + w]
"""

CONV_FORWARD_BY_EINSUM = """
xp = array_module(cols)
columns = cols.reshape(n, groups, -1, oh * ow)
kernels = weight.data.reshape(groups, o // groups, -1)
out = xp.einsum("gok,ngkl->ngol", kernels, columns).reshape(n, o, oh, ow)
if bias is not None:
    out = out + bias.data.reshape(1, o, 1, 1)
return out
"""

CONV_BACKWARD_BY_PERMUTE = """
n, o, oh, ow = grad_output.shape
per = o // groups
g = grad_output.reshape(n, groups, per, oh * ow)
grad_x = grad_weight = grad_bias = None
if ctx.needs_input_grad[0]:
    kernels = weight.reshape(groups, per, -1).permute(0, 2, 1)  # (G, C/G·kh·kw, O/G)
    grad_x = Col2Im.apply((kernels @ g).reshape(n, -1, oh * ow), ctx.size, *ctx.args)
if ctx.needs_input_grad[1]:
    cols = _columns(ctx, x).reshape(n, groups, -1, oh * ow)
    # every window of the batch side by side: (G, O/G, N·L) @ (G, N·L, C/G·kh·kw)
    g_all = g.permute(1, 2, 0, 3).reshape(groups, per, n * oh * ow)
    cols_all = cols.permute(1, 0, 3, 2).reshape(groups, n * oh * ow, -1)
    grad_weight = (g_all @ cols_all).reshape(*weight.shape)
if ctx.has_bias and ctx.needs_input_grad[2]:
    grad_bias = grad_output.sum(3).sum(2).sum(0)
return (grad_x, grad_weight, grad_bias) if ctx.has_bias else (grad_x, grad_weight)
"""

CONV_FORWARD_GROUP_BY_GROUP = """
xp = array_module(cols)
per, rows = o // groups, cols.shape[1] // groups
out = xp.zeros((n, o, oh * ow), dtype=cols.dtype)
for k in range(groups):  # each group's kernels see only its own channels
    kernels = weight.data[k * per : (k + 1) * per].reshape(per, rows)
    out[:, k * per : (k + 1) * per] = kernels @ cols[:, k * rows : (k + 1) * rows]
out = out.reshape(n, o, oh, ow)
if bias is not None:
    out = out + bias.data[:, None, None]
return out
"""

MAX_FORWARD_BY_A_FIRST_MAXIMUM_MASK = """
flat = view.reshape(n, c, kh * kw, oh, ow)
best = flat.max(axis=2)
ties = (flat == best[:, :, None]) | (flat != flat)  # NaN: the maximum where there is one
ctx.won = ties & (ties.cumsum(axis=2) == 1)  # the first maximum of each window only
return best
"""

MAX_BACKWARD_BY_THE_MASK = """
n, c, oh, ow = grad_output.shape
won = Tensor._from_array(ctx.won.astype(grad_output.dtype))
cols = (won * grad_output.unsqueeze(2)).reshape(n, c * kh * kw, oh * ow)
return Col2Im.apply(cols, ctx.size, *ctx.args)
"""

MAX_FORWARD_BY_ARGMAX = """
flat = view.reshape(n, c, kh * kw, oh, ow)
ctx.first = flat.argmax(axis=2)  # NumPy's argmax: the first maximum (a NaN counts as one)
return array_module(flat).take_along_axis(flat, ctx.first[:, :, None], axis=2)[:, :, 0]
"""

MAX_BACKWARD_BY_PUT_ALONG_AXIS = """
n, c, oh, ow = grad_output.shape
xp = array_module(ctx.first)
one_hot = xp.zeros((n, c, kh * kw, oh, ow), dtype=grad_output.dtype)
xp.put_along_axis(one_hot, ctx.first[:, :, None], 1, axis=2)
cols = Tensor._from_array(one_hot) * grad_output.reshape(n, c, 1, oh, ow)
return Col2Im.apply(cols.reshape(n, c * kh * kw, oh * ow), ctx.size, *ctx.args)
"""

AVG_FORWARD_BY_MEAN = """
(kh, kw) = kernel_size
return view.mean(axis=(2, 3)) * (kh * kw) / divisor
"""

AVG_BACKWARD_ONE_SHARE_PER_OFFSET = """
from ..ch07_device.ops.cat import cat

n, c, oh, ow = grad_output.shape
share = (grad_output / Tensor._from_array(ctx.divisor)).reshape(n, c, 1, oh * ow)
cols = cat([share for _ in range(kh * kw)], dim=2)  # every kernel offset gets the share
return Col2Im.apply(cols.reshape(n, c * kh * kw, oh * ow), ctx.size, *ctx.args)
"""

IM2COL_BACKWARD_BY_FOLD = """
return fold(grad_output, ctx.size, *ctx.args)  # F.fold: the recorded adjoint
"""

COL2IM_BACKWARD_BY_UNFOLD = """
return unfold(grad_output, *ctx.args)  # F.unfold: kernel_size, dilation, padding, stride
"""

CORRECT = [
    (
        "output_size by math.floor of a float division",
        SIZES,
        ("region", OUTPUT_SIZE_BY_FLOOR),
        "8.1",
    ),
    (
        "output_size by counting the stops",
        SIZES,
        ("region", OUTPUT_SIZE_BY_COUNTING),
        "8.1",
    ),
    (
        "windows by sliding_window_view, then a transpose",
        UNFOLD,
        ("region", WINDOWS_BY_SLIDING_WINDOW_VIEW),
        "8.1",
    ),
    ("col2im by add.at with index arrays", UNFOLD, ("region", COL2IM_BY_ADD_AT), "8.2"),
    (
        "Im2Col's backward through F.fold",
        UNFOLD,
        rewrite(UNFOLD, "8.2", None, IM2COL_BACKWARD_BY_FOLD),
        "8.2",
    ),
    (
        "Col2Im's backward through F.unfold",
        UNFOLD,
        rewrite(UNFOLD, "8.2", None, None, COL2IM_BACKWARD_BY_UNFOLD),
        "8.2",
    ),
    (
        "the convolution by einsum, its weight gradient over the batch at once",
        CONV,
        rewrite(CONV, "8.3", CONV_FORWARD_BY_EINSUM, CONV_BACKWARD_BY_PERMUTE),
        "8.3",
    ),
    (
        "the convolution group by group",
        CONV,
        ("region", CONV_FORWARD_GROUP_BY_GROUP),
        "8.3",
    ),
    (
        "max pool by max and a first-maximum mask",
        POOLING,
        rewrite(POOLING, "8.4", MAX_FORWARD_BY_A_FIRST_MAXIMUM_MASK, MAX_BACKWARD_BY_THE_MASK),
        "8.4",
    ),
    (
        "max pool by argmax and take_along_axis, its one-hot by put_along_axis",
        POOLING,
        rewrite(POOLING, "8.4", MAX_FORWARD_BY_ARGMAX, MAX_BACKWARD_BY_PUT_ALONG_AXIS),
        "8.4",
    ),
    ("avg pool's forward by the mean, rescaled", POOLING, ("region", AVG_FORWARD_BY_MEAN), "8.5"),
    (
        "avg pool's backward: one share per kernel offset",
        POOLING,
        rewrite(POOLING, "8.5", None, AVG_BACKWARD_ONE_SHARE_PER_OFFSET),
        "8.5",
    ),
]

# the variants that passed the public checks when first judged (each noted "was a hole"
# above): the hidden checks must catch them too
HOLES = ["windows takes the input to be contiguous (strides from the shape)"]


SET = VariantSet(
    8,
    "held out",
    VARIANTS,
    CORRECT,
    says=[
        ("output_size pads one side only", "the padding was counted once: it goes on both sides"),
        ("output_size rounds up (a last, partial window)", "the division was rounded up"),
        (
            "output_size spreads the whole kernel by the dilation",
            "the reach was taken as dilation·kernel_size",
        ),
        (
            "windows counts its strides in elements, not bytes",
            "the view's strides were counted in elements",
        ),
        (
            "windows takes the input to be contiguous (strides from the shape)",
            "windows read x as if it were contiguous",
        ),
        (
            "windows puts the positions before the kernel offsets",
            "the positions (oh, ow) came before the kernel's taps (kh, kw)",
        ),
        (
            "col2im crops the padding with negative ends",
            "the padding was cut off with negative ends",
        ),
        (
            "col2im's slices end oh pixels on, not oh strides",
            "a kernel offset's slice of the padded image and its (oh, ow) entries differ in shape",
        ),
        (
            "col2im ignores the dilation",
            "the dilation was ignored: kernel offset (i, j) starts at (i·dh, j·dw)",
        ),
        ("col2im reads the rows as (kh, kw, C)", "the rows of cols were read as (kh, kw, C)"),
        (
            "Im2Col's backward folds the bare array (not recorded)",
            "the backward's result was not recorded",
        ),
        (
            "Col2Im's backward unfolds without the padding",
            "it is computed with the forward's own kernel_size, dilation, padding and stride "
            "(this one had padding (1, 1)",
        ),
        (
            "the bias added along the last axis",
            "the bias was laid along the last axis (the columns)",
        ),
        (
            "the weight's gradient averaged over the batch",
            "∂L/∂W was averaged over the batch (divided by N)",
        ),
        (
            "needs_input_grad read in the wrong order",
            "(ctx.needs_input_grad[1] is False), so ∂L/∂W is not computed",
        ),
        (
            "the weight's gradient from the saved columns (not recorded)",
            "the backward's result was not recorded",
        ),
        (
            "the groups read from interleaved channels",
            "the groups read interleaved rows of the columns",
        ),
        (
            "the input's gradient ignores the groups",
            "each group's kernels send their gradient back to their own C/G channels",
        ),
        (
            "max pool's ties go to the last maximum",
            "in a tie the last maximum received the gradient",
        ),
        ("max pool's backward folds without the dilation", "(this forward had dilation (2, 2)"),
        (
            "max pool's backward sends 1 to the winner, not the gradient",
            "each winner received 1, not ∂L/∂out",
        ),
        (
            "avg pool's forward takes the mean (the divisor ignored)",
            "each window's sum was divided by kh·kw, not by its own divisor",
        ),
        (
            "avg pool's backward divides by kh·kw",
            "the backward divided by kh·kw, not by each window's own divisor",
        ),
        (
            "avg pool's backward lays the shares out (L, kh·kw)",
            "the shares were laid out (L, kh·kw) before the fold",
        ),
        ("avg pool's backward multiplies by the divisor", "the backward multiplied by the divisor"),
    ],
    holes=HOLES,
    least=(20, 10),
    rewrites_cover=True,
)

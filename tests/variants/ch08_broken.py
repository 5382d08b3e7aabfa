"""Chapter 8's broken set (tasks 8.1–8.5): plausible student bugs in the window count, the
strided view, fold, the convolution's forward and backward and the two poolings, each an
edit of the reference (judged by tests/test_variants.py): it must fail its own task, with
its mistake named."""

from __future__ import annotations

from functools import partial

from tests.trees import edits
from tests.variants import VariantSet

edits = partial(edits, "ch08_conv")
SIZES, UNFOLD, CONV, POOLING = "sizes.py", "unfold.py", "conv.py", "pooling.py"

VARIANTS = [
    # -- 8.1 --------------------------------------------------------------------------------
    (
        "output_size one window short (the 1 subtracted twice)",
        SIZES,
        (
            "    return (size + 2 * padding - reach) // stride + 1\n",
            "    return (size + 2 * padding - reach - 1) // stride + 1\n",
        ),
        "8.1",
    ),
    (
        "output_size ignores the dilation",
        SIZES,
        (
            "    reach = dilation * (kernel_size - 1) + 1  # the pixels one window spans\n",
            "    reach = kernel_size  # the pixels one window spans\n",
        ),
        "8.1",
    ),
    (
        "windows swaps the dilation's and the stride's steps",
        UNFOLD,
        (
            "(s_n, s_c, s_h * dh, s_w * dw, s_h * sh, s_w * sw)",
            "(s_n, s_c, s_h * sh, s_w * sw, s_h * dh, s_w * dw)",
        ),
        "8.1",
    ),
    (
        "windows returns a copy",
        UNFOLD,
        (
            "    return as_strided(x, shape, (s_n, s_c, s_h * dh, s_w * dw, s_h * sh, s_w * sw))\n",
            "    view = as_strided(x, shape, (s_n, s_c, s_h * dh, s_w * dw, s_h * sh, s_w * sw))\n"
            "    return view.copy()\n",
        ),
        "8.1",
    ),
    # -- 8.2 --------------------------------------------------------------------------------
    ("fold overwrites instead of adding", UNFOLD, ("] += (\n", "] = (\n"), "8.2"),
    (
        "fold keeps the padding",
        UNFOLD,
        ("    return out[:, :, ph : ph + h, pw : pw + w]\n", "    return out\n"),
        "8.2",
    ),
    (
        "Im2Col's backward unfolds instead of folding",
        UNFOLD,
        (
            "        return Col2Im.apply(grad_output, ctx.size, *ctx.args)\n",
            "        return Im2Col.apply(grad_output, *ctx.args)\n",
        ),
        "8.2",
    ),
    (
        "fold steps the kernel offsets by the stride too",
        UNFOLD,
        (
            "            top, left = i * dh, j * dw\n",
            "            top, left = i * dh * sh, j * dw * sw\n",
        ),
        "8.2",
    ),
    # -- 8.3 --------------------------------------------------------------------------------
    (
        "the weight's gradient transposed",
        CONV,
        (
            "grad_weight = (g @ cols.transpose(-1, -2)).sum(0)",
            "grad_weight = (cols @ g.transpose(-1, -2)).sum(0)",
        ),
        "8.3",
    ),
    (
        "the bias's gradient not summed over the positions",
        CONV,
        ("grad_bias = grad_output.sum((0, 2, 3))", "grad_bias = grad_output.sum(0)"),
        "8.3",
    ),
    (
        "the groups deal the kernels out in turn",
        CONV,
        (
            "kernels = weight.data.reshape(groups, o // groups, -1)",
            "kernels = weight.data.reshape(o // groups, groups, -1).swapaxes(0, 1)",
        ),
        "8.3",
    ),
    (
        "the input's gradient through reshaped kernels, not transposed ones",
        CONV,
        (
            "grad_cols = (kernels.transpose(-1, -2) @ g)",
            "grad_cols = (kernels.reshape(groups, -1, o // groups) @ g)",
        ),
        "8.3",
    ),
    (
        "the bias laid along the columns",
        CONV,
        ("out += bias.data.reshape(1, o, 1, 1)", "out += bias.data.reshape(1, 1, 1, o)"),
        "8.3",
    ),
    # -- 8.4 --------------------------------------------------------------------------------
    (
        "max pool's gradient to every maximum in a tie",
        POOLING,
        (
            "        for slot in range(kh * kw):  # one winner per window: its first hit, "
            "as PyTorch\n"
            "            hit[:, :, slot] &= ~seen\n"
            "            seen |= hit[:, :, slot]\n",
            "",
        ),
        "8.4",
    ),
    (
        "max pool's maximum over the channels",
        POOLING,
        ("        out = flat.max(axis=2)\n", "        out = flat.max(axis=1)\n"),
        "8.4",
    ),
    # -- 8.5 --------------------------------------------------------------------------------
    (
        "avg pool's backward without the divisor",
        POOLING,
        (
            "share = (grad_output / Tensor._from_array(ctx.divisor)).reshape",
            "share = grad_output.reshape",
        ),
        "8.5",
    ),
    (
        "avg pool's backward folds as if nothing were padded",
        POOLING,
        (
            "cols = share.expand(n, c, kh * kw, oh * ow).reshape(n, c * kh * kw, oh * ow)\n"
            "        return Col2Im.apply(cols, ctx.size, *ctx.args)\n",
            "cols = share.expand(n, c, kh * kw, oh * ow).reshape(n, c * kh * kw, oh * ow)\n"
            "        kernel_size, dilation, _, stride = ctx.args\n"
            "        return Col2Im.apply(cols, ctx.size, kernel_size, dilation, (0, 0), stride)\n",
        ),
        "8.5",
    ),
    (
        "avg pool's forward sums without dividing",
        POOLING,
        ("return view.sum(axis=(2, 3)) / divisor", "return view.sum(axis=(2, 3))"),
        "8.5",
    ),
]


SET = VariantSet(
    8,
    "broken",
    VARIANTS,
    (),
    says=[
        (
            "output_size one window short (the 1 subtracted twice)",
            "off by one: one pixel too many was taken off",
        ),
        ("output_size ignores the dilation", "the dilation was ignored"),
        (
            "windows swaps the dilation's and the stride's steps",
            "the kernel's taps step by the stride and the windows by the dilation",
        ),
        ("windows returns a copy", "windows returned a copy"),
        ("fold overwrites instead of adding", "kept one entry, not the sum of all"),
        ("fold keeps the padding", "the padding was not cut off"),
        (
            "Im2Col's backward unfolds instead of folding",
            "Im2Col's backward turns ∂L/∂cols (N, C·kh·kw, L) back into an image of x's shape",
        ),
        (
            "fold steps the kernel offsets by the stride too",
            "the kernel offsets were stepped by the stride too",
        ),
        (
            "the weight's gradient transposed",
            "∂L/∂W was computed as cols · gᵀ (the transposed product)",
        ),
        (
            "the bias's gradient not summed over the positions",
            "∂L/∂b was summed over the batch only",
        ),
        (
            "the groups deal the kernels out in turn",
            "the kernels were split into groups in the wrong order",
        ),
        (
            "the input's gradient through reshaped kernels, not transposed ones",
            "∂L/∂x went back through the kernels reshaped to (C·kh·kw, O), not transposed",
        ),
        ("the bias laid along the columns", "the bias was laid along the last axis (the columns)"),
        (
            "max pool's gradient to every maximum in a tie",
            "every tied maximum received the gradient",
        ),
        (
            "max pool's maximum over the channels",
            "the maximum was taken along the channels (axis 1)",
        ),
        ("avg pool's backward without the divisor", "the backward forgot the divisor"),
        (
            "avg pool's backward folds as if nothing were padded",
            "the backward folds with the forward's own size, kernel_size, dilation, padding and "
            "stride (this forward had padding (1, 1))",
        ),
        ("avg pool's forward sums without dividing", "each window's sum was not divided"),
    ],
    least=(14, 0),
)

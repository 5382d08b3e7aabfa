"""Chapter 8 — convolution: the task table. 8.1–8.2 are im2col and its adjoint (every window
as a strided view; fold, where overlapping windows add); 8.3 is the convolution built on them
(forward and backward); 8.4–8.5 are pooling, whose gradients are folds too. Chapter 8
arrived in course version 1.2."""

from . import Task

SINCE = "1.2"

TASKS = [
    Task(
        "8.1",
        "output_size and windows: every window as a view",
        15,
        "§3",
        "output_size: reach = dilation·(kernel_size − 1) + 1; (size + 2·padding − reach) // "
        "stride + 1. windows: oh, ow from output_size (the input is already padded, so "
        "padding 0); with x.strides = (sN, sC, sH, sW) the view has shape (N, C, kh, kw, oh, "
        "ow) and strides (sN, sC, sH·dh, sW·dw, sH·sh, sW·sw): as_strided(x, shape, strides).",
        since=SINCE,
        idea="A window is where the kernel stops. Along one axis the kernel's taps, spread "
        "dilation apart, reach over more pixels than it has taps, and its stops come every "
        "stride pixels, counted over the padded input; only whole windows count. Every "
        "window is already in the input's memory: moving one tap further is a fixed number "
        "of bytes, and so is moving to the next stop, so six axes of steps describe every "
        "window at once, with no copy and no loop over positions.",
        see="windows(np.arange(16.).reshape(1, 1, 4, 4), (2, 2)) and print its [0, 0, :, :, p, "
        "q] for a few p, q; compare output_size(5, 3, 2, 1, 1) with the hand count of stops",
    ),
    Task(
        "8.2",
        "fold: the adjoint, where overlapping windows add",
        20,
        "§4",
        "col2im: zeros (N, C, H + 2ph, W + 2pw); cols as (N, C, kh, kw, oh, ow); for each "
        "kernel offset (i, j): the slice starting at (i·dh, j·dw), stepping (sh, sw), oh × ow "
        "long, += that offset's entries; return the middle without the padding. Im2Col's "
        "backward is Col2Im.apply(g, size, *args); Col2Im's is Im2Col.apply(g, *args).",
        since=SINCE,
        idea="unfold copies each pixel into every window that saw it; its adjoint sends "
        "every entry back to the pixel it came from. A pixel seen by several windows "
        "collects from all of them: the entries add, exactly like the scatter-add of "
        "chapter 2 where an index repeats, and an assignment would keep only the last. "
        "Padding pixels collect too and are then dropped. The two maps are each other's "
        "gradient, and because each backward calls the other as a recorded operation, "
        "everything built on them can be differentiated twice.",
        see="F.fold(F.unfold(x, 2), (H, W), 2) for x = sp.ones(1, 1, 3, 3): each pixel shows "
        "how many 2×2 windows saw it",
    ),
    Task(
        "8.3",
        "Convolution: W · unfold(x) + b, and its gradients",
        30,
        "§5",
        "forward: cols (N, C·kh·kw, L) → (N, G, C/G·kh·kw, L); weight → (G, O/G, C/G·kh·kw); "
        "kernels @ columns → (N, O, oh, ow); + bias as (1, O, 1, 1). backward (Tensors): g = "
        "grad_output as (N, G, O/G, L), kernels = weight as (G, O/G, C/G·kh·kw); ∂x = "
        "Col2Im.apply((kernelsᵀ @ g) as (N, C·kh·kw, L), ctx.size, *ctx.args); ∂W = (g @ "
        "colsᵀ).sum(0) as weight.shape, cols = _columns(ctx, x) as (N, G, C/G·kh·kw, L); ∂b = "
        "grad_output.sum((0, 2, 3)); each only where ctx.needs_input_grad asks; return the "
        "three, or (∂x, ∂W) when there is no bias.",
        since=SINCE,
        idea="Every output pixel is one kernel's dot product with one window, so with the "
        "windows as columns and the kernels as rows, the whole convolution is one matrix "
        "product plus the bias, which is added at every position. The gradients are a "
        "matrix product's: the input's comes back through the transposed kernels and then "
        "fold; the kernels' sums, over the batch, each output gradient times its window; "
        "the bias's sums the output gradient over the batch and every position. Groups "
        "split channels and kernels into blocks that never meet: a batch of products.",
        see="compare F.conv2d(x, w, b, stride, padding, dilation) with sp.conv2d_loop(x.data, "
        "w.data, b.data, ...) on a 1×1×4×4 input; then x.grad against a numerical gradient "
        "(gradcheck)",
    ),
    Task(
        "8.4",
        "MaxPool: the gradient goes to the argmax",
        20,
        "§6",
        "forward: the windows view as (N, C, kh·kw, oh, ow); out = its max over axis 2; hit = "
        "flat == out[:, :, None] (or flat != flat: a NaN); keep only each window's first hit "
        "(one pass per slot: hit[:, :, s] &= ~seen; seen |= hit[:, :, s]); ctx.won = hit. "
        "backward: won in g's dtype times g as (N, C, 1, oh, ow), reshaped (N, C·kh·kw, L), "
        "then Col2Im.apply(cols, ctx.size, *ctx.args).",
        since=SINCE,
        idea="Each window keeps its largest value, so only the pixel that won changed the "
        "output: its gradient is the output's, every other pixel's is zero. In a tie "
        "exactly one pixel wins, the first in the window's row-major order (as PyTorch), "
        "not all of them. Padding is minus infinity, so it never beats a pixel of the "
        "image. Windows that overlap may pick the same pixel twice, and then its gradients "
        "add: a fold again.",
        see="x = sp.ones(1, 1, 2, 2, requires_grad=True); F.max_pool2d(x, 2).backward(); "
        "print x.grad: a tie, one winner",
    ),
    Task(
        "8.5",
        "AvgPool: the gradient shared by the window",
        15,
        "§6",
        "forward: the windows view summed over axes (2, 3), divided by ctx.divisor (an array "
        "(1, 1, oh, ow)). backward: g / divisor as (N, C, 1, L), expanded to (N, C, kh·kw, "
        "L), reshaped (N, C·kh·kw, L), then Col2Im.apply(cols, ctx.size, *ctx.args).",
        since=SINCE,
        idea="Each window's mean is its sum divided by how many it counts (the whole "
        "window with its padding by default, or only the pixels inside the image, or a "
        "divisor given outright). Every pixel of a window moved the mean by the same "
        "share, so each receives the output's gradient divided by that count, and a pixel "
        "in several windows adds their shares: a fold.",
        see="x = sp.ones(1, 1, 3, 3, requires_grad=True); F.avg_pool2d(x, 2, 1).sum()"
        ".backward(); print x.grad (corners 1/4, the centre 4/4)",
    ),
]

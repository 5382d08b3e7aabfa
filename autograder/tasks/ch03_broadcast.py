"""Chapter 3 — broadcasting-aware gradients: the task table. Task 3.1 is the one place where
broadcasting is undone; 3.2 and 3.3 make broadcasting an operation of its own."""

from . import Task

TASKS = [
    Task(
        "3.1",
        "unbroadcast(grad, shape)",
        50,
        "§3",
        "Sum grad over the leading axes that broadcasting added (grad.ndim − len(shape) of "
        "them), then over each axis where shape has size 1 and grad does not, with "
        "keepdim=True. Skip a sum with no axes: in this course sum(dim=()) sums every axis.",
        idea="Broadcasting copied the input along some axes, and the gradient of a copy is a sum. "
        "Line the two shapes up from the right: axes the input does not have were added in "
        "front, and are summed away; axes where the input has size 1 and the gradient does "
        "not were stretched, and are summed keeping their size 1. Nothing else is touched, "
        "and the sums are Tensor operations, so the graph records them.",
        see="plot_unbroadcast(grad_shape, shape) of §2 draws which axes of the gradient are "
        "summed away, which are summed keeping a size-1 axis, and which are kept; print your "
        "result's shape for the case above",
    ),
    Task(
        "3.2",
        "BroadcastTo and SumToSize backward",
        35,
        "§5",
        "Each is the other's gradient: BroadcastTo.backward returns "
        "sum_to_size(grad_output, ctx.shape), SumToSize.backward returns "
        "broadcast_to(grad_output, ctx.shape). Return the input's shape yourself.",
        idea="Broadcasting copies; summing to a shape adds the copies up. So each is the other's "
        "gradient, and each backward must return a gradient of its own input's shape: the "
        "seam that sums a broadcast gradient for the other ops does not run for these two.",
        see="plot_unbroadcast(grad_shape, shape) of §2 draws which axes of the gradient are "
        "summed away, which are summed keeping a size-1 axis, and which are kept; print the "
        "shape of what each backward returns next to its input's",
    ),
    Task(
        "3.3",
        "expand(x, sizes): -1 keeps a size",
        15,
        "§6",
        "Match sizes to x's axes from the right: the first len(sizes) − x.ndim sizes are new "
        "axes (a RuntimeError if one is -1, or if there are fewer sizes than axes); replace "
        "every other -1 by x's size there, then call broadcast_to.",
        idea="Line the sizes up with x's axes from the right. Sizes beyond x's rank are new "
        "leading axes: each must be given, since a -1 there has no size to keep. Elsewhere a "
        "-1 keeps x's size on that axis. Then broadcasting does the rest, and its backward is"
        " already written.",
        see="np.broadcast_to on x's array with the sizes you computed shows the shape expand "
        "should give; PyTorch's x.expand raises for -1 on a new axis",
    ),
]

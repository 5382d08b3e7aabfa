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
        idea="Broadcasting copied the input along some axes, and a copied element's gradient "
        "collects the gradients of all its copies. Line the two shapes up from the right: which "
        "axes of the gradient are copies? The result must have exactly the input's shape, and the "
        "graph must record how it got there.",
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
        idea="Broadcasting copies; summing to a shape adds copies up. An element copied to many "
        "places: what does its gradient collect? An element added into one place: what does it "
        "receive? Each backward returns a gradient of its own input's shape: the seam that sums a "
        "broadcast gradient for the other ops does not run for these two.",
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
        idea="Line the sizes up with x's axes from the right. What does -1 mean on an axis x has, "
        "and what could it mean on a new leading axis, where x has no size to keep? Once every "
        "size is known, broadcasting does the rest, and its backward is already written.",
        see="np.broadcast_to on x's array with the sizes you computed shows the shape expand "
        "should give; PyTorch's x.expand raises for -1 on a new axis",
    ),
]

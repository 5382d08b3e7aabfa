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
    ),
    Task(
        "3.2",
        "BroadcastTo and SumToSize backward",
        35,
        "§5",
        "Each is the other's gradient: BroadcastTo.backward returns "
        "sum_to_size(grad_output, ctx.shape), SumToSize.backward returns "
        "broadcast_to(grad_output, ctx.shape). Return the input's shape yourself.",
    ),
    Task(
        "3.3",
        "expand(x, sizes): -1 keeps a size",
        15,
        "§6",
        "Match sizes to x's axes from the right: the first len(sizes) − x.ndim sizes are new "
        "axes (a RuntimeError if one is -1, or if there are fewer sizes than axes); replace "
        "every other -1 by x's size there, then call broadcast_to.",
    ),
]

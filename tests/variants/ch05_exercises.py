"""Chapter 5's exercise (course version 1.1): plausible student bugs in 5.13 ``fit_linear``,
each named in the report's first stage, and unusual but correct rewrites (judged by
tests/test_variants.py)."""

from __future__ import annotations

from functools import partial

from tests.trees import edits
from tests.variants import VariantSet

edits = partial(edits, "ch05_nn")

FILE = "regression.py"
MAKE = "    model = nn.Linear(x.shape[1], y.shape[1], device=x.device, dtype=x.dtype)\n"
LOSS = "        loss = F.mse_loss(model(x), y)\n"
LOOP = "    for _ in range(epochs):\n"
STEP = """        with no_grad():
            for p in (model.weight, model.bias):
                p -= lr * p.grad
                p.grad = None
"""
RECORD = "        losses.append(loss.item())\n"

BROKEN = [
    (
        "gradients never cleared",
        FILE,
        edits(FILE, ("                p.grad = None\n", "")),
        "5.13",
    ),
    (
        "gradients cleared before the step reads them",
        FILE,
        edits(
            FILE,
            (
                "        loss.backward()\n",
                "        loss.backward()\n        model.weight.grad = model.bias.grad = None\n",
            ),
        ),
        "5.13",
    ),
    (
        "the loss recorded after the step",
        FILE,
        edits(FILE, (RECORD, "        losses.append(F.mse_loss(model(x), y).item())\n")),
        "5.13",
    ),
    (
        "a step uphill",
        FILE,
        edits(FILE, ("                p -= lr * p.grad\n", "                p += lr * p.grad\n")),
        "5.13",
    ),
    (
        "the sum of the squared errors",
        FILE,
        edits(FILE, (LOSS, '        loss = F.mse_loss(model(x), y, reduction="sum")\n')),
        "5.13",
    ),
    (
        "the weight moved, the bias forgotten",
        FILE,
        edits(
            FILE,
            (
                "            for p in (model.weight, model.bias):\n",
                "            for p in (model.weight,):\n",
            ),
        ),
        "5.13",
    ),
    (
        "a name rebound to a new Tensor (the parameters never change)",
        FILE,
        edits(
            FILE, ("                p -= lr * p.grad\n", "                p = p - lr * p.grad\n")
        ),
        "5.13",
    ),
    (
        "the loss Tensors kept",
        FILE,
        edits(FILE, (RECORD, "        losses.append(loss)\n")),
        "5.13",
    ),
    (
        "the model in the default dtype",
        FILE,
        edits(FILE, (MAKE, "    model = nn.Linear(x.shape[1], y.shape[1])\n")),
        "5.13",
    ),
    (
        "the update recorded (no no_grad)",
        FILE,
        edits(
            FILE,
            (
                STEP,
                """        for p in (model.weight, model.bias):
            p -= lr * p.grad
            p.grad = None
""",
            ),
        ),
        "5.13",
    ),
    (
        "a new Tensor assigned to the weight",
        FILE,
        edits(
            FILE,
            (
                STEP,
                """        with no_grad():
            model.weight = model.weight - lr * model.weight.grad
            model.bias = model.bias - lr * model.bias.grad
""",
            ),
        ),
        "5.13",
    ),
    (
        "one step short",
        FILE,
        edits(FILE, (LOOP, "    for _ in range(epochs - 1):\n")),
        "5.13",
    ),
]

CORRECT = [
    (
        "steps on .data, MSELoss, gradients cleared before backward",
        FILE,
        edits(
            FILE,
            (LOSS, "        loss = nn.MSELoss()(model(x), y)\n"),
            (
                "        loss.backward()\n",
                "        model.weight.grad = model.bias.grad = None\n        loss.backward()\n",
            ),
            (
                STEP,
                """        model.weight.data -= lr * model.weight.grad.data
        model.bias.data -= lr * model.bias.grad.data
""",
            ),
        ),
        "5.13",
    ),
    (
        "the squared error by hand, zero_grad, a while loop",
        FILE,
        edits(
            FILE,
            (LOOP, "    while len(losses) < epochs:\n"),
            (LOSS, "        loss = ((model(x) - y) ** 2).mean()\n"),
            (
                STEP,
                """        with no_grad():
            model.weight.sub_(lr * model.weight.grad)
            model.bias.sub_(lr * model.bias.grad)
        model.zero_grad()
""",
            ),
            (RECORD, "        losses.append(float(loss.data))\n"),
        ),
        "5.13",
    ),
]

SET = VariantSet(
    5,
    "exercises",
    BROKEN,
    CORRECT,
    says=[
        ("gradients never cleared", "the gradients were never cleared"),
        ("gradients cleared before the step reads them", "a gradient was None when the step"),
        ("the loss recorded after the step", "each loss was measured after its step"),
        ("a step uphill", "each step went uphill"),
        ("the sum of the squared errors", "the sum of the squared errors, not their mean"),
        ("the weight moved, the bias forgotten", "the bias never moved"),
        (
            "a name rebound to a new Tensor (the parameters never change)",
            "a name rebound to a new Tensor does not change the model's parameter",
        ),
        ("the loss Tensors kept", "is a Tensor: the list must hold Python numbers"),
        ("the model in the default dtype", "the model is not in x's dtype"),
        ("the update recorded (no no_grad)", "the update of a parameter was recorded"),
        ("a new Tensor assigned to the weight", "a new plain Tensor was assigned"),
        ("one step short", "one loss per step"),
    ],
    least=(12, 2),
    tasks=["5.13"],
)

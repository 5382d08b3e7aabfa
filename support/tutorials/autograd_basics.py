"""What autograd records and how to stop it: the territory of PyTorch's "Automatic
Differentiation with torch.autograd".

Written for PyTorch; the course repository's ``test_tutorials.py`` runs it with the one line
``import torch`` changed into ``import chapters.ch07_device as torch``. Ideas, in the
tutorial's order: a one-layer network on fixed input and target (``torch.ones``,
``torch.zeros``), its weights drawn by ``torch.randn(5, 3, requires_grad=True)``,
``torch.matmul``, ``binary_cross_entropy_with_logits``, the ``grad_fn`` a result carries,
``backward`` and the leaves' ``.grad``; switching recording off by ``torch.no_grad()`` or
``.detach()`` (``requires_grad`` says which); and a vector-Jacobian product of a non-scalar
output, ``out.backward(torch.ones_like(out), retain_graph=True)``, run twice (the gradients
add up) and once more after ``inp.grad.zero_()`` — an in-place change of a tensor's
gradient, as PyTorch defines it (issue 28).

    python -m support.tutorials.autograd_basics
"""

import torch

F = torch.nn.functional

EXACT = {
    "w_grad_rows",
    "w_grad_columns",
    "w_grad_rows_minus_b_grad",
    "has_grad_fn",
    "loss_grad_fn_is_not_none",
    "records",
    "records_under_no_grad",
    "records_detached",
    "vjp_first",
    "vjp_second",
    "vjp_after_zero",
    "vjp_diagonal",
    "vjp_corner",
}
IN_PLACE = None


def main(seed: int = 0) -> dict[str, float]:
    torch.manual_seed(seed)
    x = torch.ones(5)  # the input
    y = torch.zeros(3)  # the expected output
    w = torch.randn(5, 3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    z = torch.matmul(x, w) + b
    loss = F.binary_cross_entropy_with_logits(z, y)
    print(f"z was made by {z.grad_fn}, the loss by {loss.grad_fn}")

    loss.backward()
    print(f"dloss/dw:\n{w.grad}\ndloss/db: {b.grad}")
    w_grad, b_grad = w.grad, b.grad

    records = torch.matmul(x, w) + b
    with torch.no_grad():
        quiet = torch.matmul(x, w) + b
    detached = records.detach()
    print(
        f"requires_grad: {records.requires_grad}, {quiet.requires_grad}, {detached.requires_grad}"
    )

    # the gradient of a non-scalar output: backward takes the vector v and gives v^T J
    inp = torch.eye(4, 5, requires_grad=True)
    out = (inp * 3 - 1).pow(2).t()  # d out / d inp = 6 (3 inp - 1): 12 on the diagonal, -6 off it
    out.backward(torch.ones_like(out), retain_graph=True)
    first = inp.grad.sum().item()
    print(f"first call:\n{inp.grad}")
    out.backward(torch.ones_like(out), retain_graph=True)
    second = inp.grad.sum().item()
    print(f"second call (added to the first):\n{inp.grad}")
    inp.grad.zero_()
    out.backward(torch.ones_like(out), retain_graph=True)
    after_zero = inp.grad.sum().item()
    print(f"after zeroing:\n{inp.grad}")

    return {
        "w_grad_rows": float(w_grad.shape[0]),
        "w_grad_columns": float(w_grad.shape[1]),
        "has_grad_fn": float(z.grad_fn is not None),
        "loss_grad_fn_is_not_none": float(loss.grad_fn is not None),
        "records": float(records.requires_grad),
        "records_under_no_grad": float(quiet.requires_grad),
        "records_detached": float(detached.requires_grad),
        "vjp_first": first,
        "vjp_second": second,
        "vjp_after_zero": after_zero,
        "vjp_diagonal": inp.grad[3, 3].item(),
        "vjp_corner": inp.grad[3, 4].item(),
        "loss": loss.item(),
        "w_grad_sum": w_grad.sum().item(),
        "b_grad_sum": b_grad.sum().item(),
        # x is all ones, so every row of dloss/dw is dloss/db, whatever w and b are
        "w_grad_rows_minus_b_grad": (w_grad - b_grad).abs().max().item(),
    }


if __name__ == "__main__":
    print(main())

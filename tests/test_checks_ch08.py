"""What only chapter 8's checks do (every chapter's contracts: tests/test_contracts.py; its
variants: tests/variants/ch08_broken.py and ch08_held_out.py, judged by
tests/test_variants.py): the parent's own references agree with PyTorch, and the verdicts
name the mistakes the issue lists, on the reference with one function replaced, run in
this process through the checks' own programs (fast; the variant sets run them in
children)."""

from __future__ import annotations

import numpy as np
import pytest

from autograder.checks import ch08_conv as checks
from autograder.checks.ch08_conv import cases, programs
from autograder.harness import wire
from solutions import ch08_conv as sp

# -- the parent's references, against PyTorch --------------------------------------------------

CONVS = [  # (n, c, size, o, kernel, stride, padding, dilation, groups, bias)
    (1, 1, (4, 4), 1, (2, 2), (1, 1), (0, 0), (1, 1), 1, True),
    (2, 3, (7, 6), 4, (3, 2), (2, 1), (1, 0), (1, 2), 1, False),
    (2, 4, (6, 7), 6, (3, 3), (1, 2), (2, 1), (2, 1), 2, True),
    (1, 4, (5, 5), 4, (1, 1), (2, 2), (1, 1), (1, 1), 4, True),
]


@pytest.mark.parametrize("args", CONVS)
def test_the_reference_convolution_and_its_gradients_are_pytorchs(args) -> None:
    """``conv_ref`` (shift and add) and its complex-step gradients against torch's conv2d."""
    torch = pytest.importorskip("torch")
    n, c, size, o, k, s, p, d, g, bias = args
    rng = np.random.default_rng(1)
    x, w = rng.normal(size=(n, c, *size)), rng.normal(size=(o, c // g, *k))
    b = rng.normal(size=o) if bias else None
    out = cases.conv_ref(x, w, b, s, p, d, g)
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    tb = torch.tensor(b, requires_grad=True) if bias else None
    want = torch.nn.functional.conv2d(tx, tw, tb, s, p, d, g)
    np.testing.assert_allclose(out, want.detach().numpy(), rtol=1e-12, atol=1e-12)
    up = rng.normal(size=out.shape)
    want.backward(torch.tensor(up))
    arrays = [x, w] + ([b] if bias else [])
    grads = cases.vjp(
        lambda *a: cases.conv_ref(a[0], a[1], a[2] if bias else None, s, p, d, g), arrays, up
    )
    for got, t in zip(grads, [tx, tw, tb]):
        np.testing.assert_allclose(got, t.grad.numpy(), rtol=1e-10, atol=1e-10)


def test_the_reference_unfold_and_fold_are_pytorchs() -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    x = rng.normal(size=(2, 3, 7, 6))
    args = ((3, 2), (2, 1), (1, 2), (2, 3))  # kernel_size, dilation, padding, stride
    cols = cases.unfold_ref(x, *args)
    want = torch.nn.functional.unfold(torch.tensor(x), *args)
    np.testing.assert_allclose(cols, want.numpy())
    y = rng.normal(size=cols.shape)
    folded = torch.nn.functional.fold(torch.tensor(y), (7, 6), *args)
    np.testing.assert_allclose(cases.fold_ref(y, (7, 6), *args), folded.numpy(), rtol=1e-12)


@pytest.mark.parametrize("ties", ["", "some", "all"])
def test_the_reference_max_pool_and_its_tie_rule_are_pytorchs(ties: str) -> None:
    """PyTorch's CPU max-pool gives a tie's gradient to the first maximum in row-major
    window order; ``max_pool_ref`` (NumPy's argmax) does the same."""
    torch = pytest.importorskip("torch")
    case = cases.max_pool_case(
        np.random.default_rng(3), (2, 2, 7, 6), (3, 2), (2, 1), (1, 1), (1, 2), ties=ties
    )
    x, g = case.inputs["x"], case.inputs["g"]
    tx = torch.tensor(x, requires_grad=True)
    out = torch.nn.functional.max_pool2d(tx, (3, 2), (2, 1), (1, 1), (1, 2))
    out.backward(torch.tensor(g))
    np.testing.assert_array_equal(case.expected.out, out.detach().numpy())
    np.testing.assert_allclose(case.expected.grad, tx.grad.numpy(), rtol=1e-15)


@pytest.mark.parametrize(("include", "override"), [(True, None), (False, None), (True, 3)])
def test_the_reference_avg_pool_and_its_divisors_are_pytorchs(include: bool, override) -> None:
    torch = pytest.importorskip("torch")
    case = cases.avg_pool_case(
        np.random.default_rng(4),
        (1, 2, 6, 5),
        (3, 2),
        (2, 1),
        (1, 1),
        count_include_pad=include,
        divisor_override=override,
    )
    tx = torch.tensor(case.inputs["x"], requires_grad=True)
    out = torch.nn.functional.avg_pool2d(tx, (3, 2), (2, 1), (1, 1), False, include, override)
    out.backward(torch.tensor(case.inputs["g"]))
    np.testing.assert_allclose(case.expected.out, out.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(case.expected.grad, tx.grad.numpy(), rtol=1e-12)


# -- the verdicts name the mistakes -----------------------------------------------------------


def _check(name: str):
    return next(c for c in checks.CHECKS if c.name == name)


def _first_problem(name: str) -> str:
    """The first problem of the public check ``name`` on ``sp`` as it stands (run here)."""
    check = _check(name)
    for case in check.make_cases(0):
        inputs = wire.loads(wire.dumps(dict(case.inputs)))
        problem = check.verdict(case, wire.loads(wire.dumps(check.program(sp, **inputs))))
        if problem:
            return " ".join(str(problem).split())
    return ""


def test_the_reference_passes_the_checks_run_here() -> None:
    for check in checks.CHECKS:
        assert not _first_problem(check.name), check.name


def test_a_tie_given_to_every_maximum_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    pooling = sp.pooling if hasattr(sp, "pooling") else programs.module(sp, "pooling")
    forward = pooling.MaxPool.forward

    def keep_view(ctx, x, kernel_size, stride, padding, dilation):
        out = forward(ctx, x, kernel_size, stride, padding, dilation)
        view = pooling.windows(pooling.pad(x.data, padding, -np.inf), kernel_size, dilation, stride)
        n, c, kh, kw, oh, ow = view.shape
        flat = view.reshape(n, c, kh * kw, oh, ow)
        ctx.won = (flat == flat.max(axis=2, keepdims=True)).astype(x.dtype)
        return out

    def every(ctx, grad_output):
        n, c, oh, ow = grad_output.shape
        won = sp.Tensor._from_array(ctx.won)
        cols = (grad_output.reshape(n, c, 1, oh, ow) * won).reshape(n, -1, oh * ow)
        return pooling.Col2Im.apply(cols, ctx.size, *ctx.args)

    monkeypatch.setattr(pooling.MaxPool, "forward", staticmethod(keep_view))
    monkeypatch.setattr(pooling.MaxPool, "backward", staticmethod(every))
    problem = _first_problem("max_pool2d: values and the gradient to the argmax")
    assert "every tied maximum received the gradient" in problem, problem
    assert "the first in the window's row-major order" in problem


def test_windows_that_copy_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    unfold = programs.module(sp, "unfold")
    view = unfold.windows
    monkeypatch.setattr(unfold, "windows", lambda *a: np.array(view(*a)))
    assert "windows returned a copy" in _first_problem("windows: values, shape, a view of x")


def test_a_fold_that_overwrites_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    unfold = programs.module(sp, "unfold")
    monkeypatch.setattr(unfold, "col2im", cases.fold_assigned)
    problem = _first_problem("col2im: overlapping windows add")
    assert "overlapping windows add (+=), an assignment keeps only the last" in problem


def test_a_gradient_nobody_needs_is_not_folded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Convolution.backward with ``needs_input_grad`` ignored still gives right gradients;
    the check counts its folds and names the one made for an x that needs none."""
    conv = programs.module(sp, "conv")
    backward = conv.Convolution.backward

    def always(ctx, grad_output):
        wanted = ctx.needs_input_grad
        ctx.needs_input_grad = (True, *wanted[1:])
        return backward(ctx, grad_output)

    monkeypatch.setattr(conv.Convolution, "backward", staticmethod(always))
    problem = _first_problem("conv2d: only the gradients needed")
    assert "though x requires no gradient" in problem, problem


@pytest.mark.parametrize(
    ("answers", "says"),
    [
        (lambda r: (r[0] + r[3] - r[4] * (r[1] - 1) - 1) // r[2] + 1, "counted once"),
        (lambda r: (r[0] + 2 * r[3] - r[1]) // r[2] + 1, "dilation was ignored"),
        (lambda r: (r[0] + 2 * r[3] - r[4] * (r[1] - 1) - 1) // r[2], "the first window counts"),
        (lambda r: float((r[0] + 2 * r[3] - r[4] * (r[1] - 1) - 1) // r[2] + 1), "is an int"),
    ],
)
def test_output_size_slips_are_named_from_the_whole_sweep(answers, says: str) -> None:
    check = _check("output_size")
    case = check.make_cases(0)[0]
    got = {"sizes": [programs.number(answers(r)) for r in case.inputs["rows"]]}
    problem = check.verdict(case, got)
    assert problem and says in " ".join(problem.split()), problem


def test_no_window_that_fits_may_be_zero_or_less() -> None:
    """Where nothing fits PyTorch's formula gives 0 or less; both pass, a positive count
    does not."""
    check = _check("output_size")
    case = cases.output_size_case([(2, 5, 1, 0, 1), (1, 3, 2, 0, 1)], "none fits")
    assert check.verdict(case, {"sizes": [-2, 0]}) is None
    assert check.verdict(case, {"sizes": [0, 0]}) is None
    assert "no window fits" in check.verdict(case, {"sizes": [1, 0]})


# -- on the simulated device (`make chapter-8 DEVICE=sim`) ---------------------------------------

NUMPY_ONLY_WINDOWS = (
    "    return as_strided(x, shape, (s_n, s_c, s_h * dh, s_w * dw, s_h * sh, s_w * sw))\n",
    "    return np.lib.stride_tricks.as_strided(\n"
    "        x, shape, (s_n, s_c, s_h * dh, s_w * dw, s_h * sh, s_w * sw)\n"
    "    )\n",
)


def _on_sim(package, hidden: bool = False):
    from autograder.checking import check_chapter
    from autograder.course import chapter
    from tests.trees import composite

    modules = ["autograder.hidden.ch08_conv"] if hidden else []
    return check_chapter(chapter(8), composite(8, package), device="sim", hidden_modules=modules)


def test_the_reference_passes_every_check_on_the_simulated_device() -> None:
    """Public and hidden checks with their arrays on sim (windows' and col2im's inputs are
    made by the chapter's Tensor, so they follow the default device)."""
    from autograder import report
    from tests.trees import SOLUTIONS

    result = _on_sim(SOLUTIONS / "ch08_conv", hidden=True)
    assert result.passed and result.points == result.max_points, report.chapter_report(result)


def test_windows_with_numpys_own_functions_fails_its_task_on_the_device(tmp_path) -> None:
    """Right on the CPU, a windows that calls NumPy's as_strided (not the array's own
    module) meets a device array in 8.1's own check; the tasks built on it are blocked."""
    from autograder import report
    from tests.trees import broken_package, statuses

    package = broken_package(8, tmp_path, "unfold.py", NUMPY_ONLY_WINDOWS, "8.1")
    result = _on_sim(package)
    status = {k: v.name for k, v in statuses(result).items()}
    assert status == {"8.1": "FAILED", **{t: "BLOCKED" for t in ("8.2", "8.3", "8.4", "8.5")}}
    text = " ".join(report.chapter_report(result).split())
    assert "Implicit conversion to a NumPy array is not allowed" in text, text

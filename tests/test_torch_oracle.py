"""PyTorch as an oracle for chapters 2 and 3: every op of the check catalogs, on the checks'
shapes and options (chapter 3's: operands that broadcast), agrees with PyTorch to 1e-10 in
float64, in values and in the gradients ``Node.backward`` hands each input; ``unbroadcast``
agrees with ``sum_to_size``. And the checks' own expectations prove their precision: every
expected value and gradient is PyTorch's to 1e-12 (the checks judge float64 at rtol 1e-9,
which float32 arithmetic cannot meet), every second-order expectation PyTorch's double
backward to 1e-8.

Skipped, visibly, without PyTorch (``pip install -r requirements-oracles.txt``; CI installs
it). Only the reference (``solutions/``) is compared; the checks' own expectations come from
NumPy, never from here.
"""

from __future__ import annotations

import numpy as np
import pytest

from autograder.checks import ch02_tensor as checks
from autograder.checks import ch03_broadcast as broadcast_checks
from autograder.checks.ch02_tensor import catalog, programs
from solutions import ch03_broadcast as sp  # chapter 2's ops, with chapter 3 behind the seam

torch = pytest.importorskip("torch")

TOL = 1e-10


def _torch_index(index, length: int):
    """The check's index in PyTorch's terms: NumPy arrays become tensors, and a negative
    step (which PyTorch does not have) becomes the positions it picks."""
    if isinstance(index, slice) and (index.step or 1) < 0:
        return torch.from_numpy(np.arange(length)[index].copy())
    if isinstance(index, tuple):
        return tuple(_torch_index(i, length) for i in index)
    if isinstance(index, np.ndarray):
        return torch.from_numpy(index)
    return index


TORCH = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "neg": lambda a: -a,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, exponent: a**exponent,
    "matmul": lambda a, b: a @ b,
    "exp": torch.exp,
    "log": torch.log,
    "sqrt": torch.sqrt,
    "tanh": torch.tanh,
    "sigmoid": torch.sigmoid,
    "relu": torch.relu,
    "abs": torch.abs,
    "sum": lambda a, **kw: a.sum(**kw) if kw else a.sum(),
    "mean": lambda a, **kw: a.mean(**kw) if kw else a.mean(),
    "max": lambda a, **kw: a.max(**kw).values if kw else a.max(),
    "reshape": lambda a, shape: a.reshape(tuple(shape)),
    "view": lambda a, shape: a.reshape(shape),  # a view of a non-contiguous tensor may fail
    "transpose": lambda a, dims: a.transpose(*dims),
    "permute": lambda a, dims: a.permute(*dims),
    "T": lambda a: a.permute(*range(a.ndim - 1, -1, -1)),  # .T of ndim > 2 is deprecated
    "getitem": lambda a, index: a[_torch_index(index, len(a))],
    "broadcast_to": lambda a, shape: a.broadcast_to(tuple(shape)),
    "sum_to_size": lambda a, shape: a.sum_to_size(tuple(shape)),
}


def _cases(program=programs.op, whole: bool = False):
    """The check catalogs' cases of ``program`` (float64 only): their inputs, or the whole
    case."""
    for check in checks.CHECKS + broadcast_checks.CHECKS:
        if check.program is not program:
            continue
        for case in check.make_cases(0):
            inputs = case.inputs
            dtype = getattr(case.expected, "dtype", "float64")
            if inputs.get("expect_error") or dtype != "float64":
                continue
            yield pytest.param(
                case if whole else inputs, id=f"{inputs['name']}: {case.label.split(';')[0]}"
            )


def _inputs(args):
    ours, theirs = [], []
    for arg in args:
        if "number" in arg:
            ours.append(arg["number"])
            theirs.append(arg["number"])
        else:
            data = programs.VIEWS[arg["view"]](np.asarray(arg["data"]))
            ours.append(sp.Tensor(data, requires_grad=True))
            theirs.append(torch.tensor(np.array(data, order="C"), requires_grad=True))
    return ours, theirs


def test_every_op_of_the_catalog_has_an_oracle() -> None:
    ops = set(catalog.OPS) | {op.name for op in broadcast_checks.CATALOG}
    assert set(TORCH) == set(programs.OPS) == ops


@pytest.mark.parametrize("inputs", list(_cases()))
def test_op_agrees_with_pytorch(inputs: dict) -> None:
    options = dict(inputs["options"])
    if "index" in options:
        options["index"] = programs._index(options["index"])
    ours, theirs = _inputs(inputs["args"])
    name = inputs["name"]
    out = programs.OPS[name](*ours, **options)
    out = out.values if isinstance(out, tuple) else out
    expected = TORCH[name](*theirs, **options)
    assert out.shape == tuple(expected.shape)
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=TOL, atol=TOL)

    upstream = np.asarray(inputs["upstream"], dtype=np.float64)
    grads = out.grad_fn.backward(sp.Tensor(upstream))
    expected.backward(torch.from_numpy(upstream))
    tensors = [(o, t) for o, t in zip(ours, theirs) if isinstance(o, sp.Tensor)]
    by_input = dict(zip(map(id, out.grad_fn.inputs), grads))
    for o, t in tensors:
        grad = by_input[id(o)]
        assert grad.shape == tuple(t.grad.shape) == o.shape
        np.testing.assert_allclose(grad.data, t.grad.numpy(), rtol=TOL, atol=TOL)


def _torch_inputs(args):
    return [
        arg["number"]
        if "number" in arg
        else torch.tensor(
            np.array(programs.VIEWS[arg["view"]](np.asarray(arg["data"])), order="C"),
            requires_grad=True,
        )
        for arg in args
    ]


def _torch_op(inputs):
    options = dict(inputs["options"])
    if "index" in options:
        options["index"] = programs._index(options["index"])
    theirs = _torch_inputs(inputs["args"])
    return TORCH[inputs["name"]](*theirs, **options), [t for t in theirs if torch.is_tensor(t)]


PRECISE = 1e-12


@pytest.mark.parametrize("case", list(_cases(whole=True)))
def test_expectations_are_pytorchs_to_1e12(case) -> None:
    """What the checks expect (values, and gradients by gradcheck's complex step or a rule
    at a kink) is PyTorch's float64 answer to 1e-12: precise enough for rtol 1e-9."""
    out, tensors = _torch_op(case.inputs)
    expected = case.expected
    np.testing.assert_allclose(expected.out, out.detach().numpy(), rtol=PRECISE, atol=PRECISE)
    grads = torch.autograd.grad(
        out,
        tensors,
        torch.from_numpy(np.asarray(case.inputs["upstream"], dtype=np.float64)),
        allow_unused=True,
    )
    for want, theirs in zip(expected.grads, grads):
        np.testing.assert_allclose(want, theirs.numpy(), rtol=PRECISE, atol=PRECISE)


@pytest.mark.parametrize("case", list(_cases(programs.second_order, whole=True)))
def test_second_order_expectations_are_pytorchs_double_backward(case) -> None:
    """What reaches g and each input when h is sent back through the local gradients
    (S = Σ ⟨h, ∂L/∂input⟩) is PyTorch's double backward to 1e-8."""
    out, tensors = _torch_op(case.inputs)
    g = torch.tensor(np.asarray(case.inputs["upstream"], dtype=np.float64), requires_grad=True)
    grads = torch.autograd.grad(out, tensors, g, create_graph=True)
    s = sum(
        (gr * torch.from_numpy(np.asarray(h))).sum()
        for gr, h in zip(grads, case.inputs["tangents"])
    )
    if s.requires_grad:
        theirs = torch.autograd.grad(s, [g, *tensors], allow_unused=True)
    else:  # a constant derivative (a ** 0): nothing reaches anything
        theirs = [None] * (1 + len(tensors))
    wants = [case.expected.to_grad_output, *case.expected.to_inputs]
    for want, t in zip(wants, theirs):
        t = np.zeros(np.shape(want)) if t is None else t.numpy(force=True)
        np.testing.assert_allclose(want, t, rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize(("grad_shape", "shape"), broadcast_checks.UNBROADCAST)
def test_unbroadcast_is_pytorchs_sum_to_size(grad_shape, shape) -> None:
    grad = np.random.default_rng(0).normal(size=grad_shape)
    ours = sp.unbroadcast(sp.tensor(grad), shape)
    theirs = torch.from_numpy(grad).sum_to_size(shape)
    assert ours.shape == tuple(theirs.shape) == shape
    np.testing.assert_allclose(ours.data, theirs.numpy(), rtol=TOL, atol=TOL)


@pytest.mark.parametrize(("shape", "sizes"), broadcast_checks.EXPAND)
def test_expand_agrees_with_pytorch(shape, sizes) -> None:
    data = np.random.default_rng(0).normal(size=shape)
    ours = sp.tensor(data).expand(*sizes)
    theirs = torch.from_numpy(data).expand(*sizes)
    assert ours.shape == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.data, theirs.numpy())


@pytest.mark.parametrize(
    ("shape", "sizes"), [((3,), (-1, 3)), ((2, 3), (3,)), ((3,), (2, 4)), ((2, 3), (2, 4))]
)
def test_expand_refuses_what_pytorch_refuses(shape, sizes) -> None:
    with pytest.raises(RuntimeError):
        torch.ones(shape).expand(*sizes)
    with pytest.raises(RuntimeError):
        sp.ones(shape).expand(*sizes)


def test_max_returns_values_and_indices_like_pytorch() -> None:
    data = np.array([[1.0, 5.0, 2.0], [7.0, 0.0, 7.5]])
    values, indices = sp.tensor(data).max(dim=1)
    expected = torch.tensor(data).max(dim=1)
    np.testing.assert_array_equal(values.data, expected.values.numpy())
    np.testing.assert_array_equal(indices.data, expected.indices.numpy())
    assert indices.dtype == np.int64


def test_dtype_defaults_match_pytorch() -> None:
    for data in [1.5, [1.0, 2.0], [1, 2], True, np.arange(3.0), np.arange(3, dtype=np.float32)]:
        ours, theirs = sp.tensor(data).dtype, torch.tensor(data).dtype
        assert str(ours) == str(theirs).removeprefix("torch."), data
    assert str((sp.tensor([1.0]) * 2).dtype) == "float32"
    assert str((torch.tensor([1.0]) * 2).dtype) == "torch.float32"


PROMOTIONS = {  # name: f(module, tensor factory) -> the result whose dtype is compared
    "bool * 2.0": lambda m, t: t([True, False]) * 2.0,
    "int64 * 2.5": lambda m, t: t([1, 2]) * 2.5,
    "int64 * 2": lambda m, t: t([1, 2]) * 2,
    "bool * 1": lambda m, t: t([True, False]) * 1,
    "int64 / 2": lambda m, t: t([1, 2]) / 2,
    "int64.exp()": lambda m, t: t([1, 2]).exp(),
    "int64.sqrt()": lambda m, t: t([1, 2]).sqrt(),
    "int64 ** 0.5": lambda m, t: t([1, 2]) ** 0.5,
    "int64 ** 2": lambda m, t: t([1, 2]) ** 2,
    "float32 * int64": lambda m, t: t([1.0, 2.0]) * t([1, 2]),
    "float32 * 0-d float64": lambda m, t: t([1.0, 2.0]) * t(2.0, dtype=m.float64),
    "float32 * float64": lambda m, t: t([1.0, 2.0]) * t([1.0, 2.0], dtype=m.float64),
    "int64 - 0-d float64": lambda m, t: t([1, 2]) - t(2.0, dtype=m.float64),
    "bool.sum()": lambda m, t: t([True, True]).sum(),
    "float32 > 0": lambda m, t: t([1.0, -1.0]) > 0,
}


@pytest.mark.parametrize("name", list(PROMOTIONS))
def test_type_promotion_matches_pytorch(name: str) -> None:
    ours = PROMOTIONS[name](sp, sp.tensor).dtype
    theirs = PROMOTIONS[name](torch, torch.tensor).dtype
    assert str(ours) == str(theirs).removeprefix("torch."), name

"""Chapter 2's op catalog: the one table that drives every op check (and the PyTorch
oracle test). Each entry names the op (the same key as in ``programs.OPS``), the task whose
backward it is, the autograder's own float64 NumPy reference, the domain its inputs are
drawn from (away from kinks and poles) and its case variants, small to large."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ...harness.api import Case
from ...harness.language import Label, tr
from . import programs
from .expected import ErrorExpected

Shape = tuple[int, ...]
Layout = tuple[Shape, str]  # (shape sent, view made in the child: programs.VIEWS)

# the shapes an op's inputs take: (shape sent, view made in the child); the child's array is
# VIEWS[view](array of the shape sent)
ELEMENTWISE_SHAPES: list[Layout] = [
    ((), "plain"),
    ((1,), "plain"),
    ((3,), "plain"),
    ((2, 3), "plain"),
    ((1, 4), "plain"),
    ((3, 1, 2), "plain"),
    ((1, 2, 3), "plain"),
    ((2, 1, 2, 2), "plain"),
    ((4, 3), "transposed"),
    ((6, 4), "every other row"),  # en-only: a view's name (a key of programs.VIEWS)
    ((3, 5), "columns from 1"),
    ((24, 32), "plain"),
]


def draw(rng: np.random.Generator, shape: Shape, domain: str) -> np.ndarray:
    """Inputs away from kinks, poles and the edges of an op's domain."""
    if domain == "positive":
        return rng.uniform(0.5, 3.0, shape)
    if domain == "nonzero":  # |x| ≥ 0.3: relu, abs and 1/x are smooth there
        return rng.choice([-1.0, 1.0], shape) * rng.uniform(0.3, 2.0, shape)
    if domain == "distinct":  # values at least 0.05 apart: max has one clear winner
        n = int(np.prod(shape))
        return (rng.permutation(n) * 0.05 + rng.uniform(-1, 1)).reshape(shape)
    return rng.uniform(-2.0, 2.0, shape)


@dataclass(frozen=True)
class Op:
    """One entry of the catalog."""

    name: str  # a key of programs.OPS
    task: str
    expr: str  # how the report writes it, with a, b and the options
    # plain NumPy: (*arrays, **options) -> array; it must take complex arrays too and keep
    # their imaginary parts (gradcheck's complex step), hence no np.abs, no float casts
    reference: Callable[..., np.ndarray]
    domain: str = "any"  # of every tensor input: any, positive, nonzero, distinct
    arity: int = 1
    # per case: the op's options (or a function of the rng that draws them), and the shape
    # + view of every input, or one list of (shape, view) per input
    variants: Sequence[tuple] = ()
    # cases with a Python number as one operand: (number, its position)
    numbers: Sequence[tuple[float, int]] = ()
    # where a central difference is not defined (ties, kinks, 0 ** 0): label -> (options,
    # the input, g -> the expected gradient: PyTorch's choice)
    exact: dict = field(default_factory=dict)
    # cases on given data where the rule is defined but drawn data would miss it (a zero
    # base of **): label -> (options, the input); also checked to second order
    at: dict = field(default_factory=dict)
    # cases on given data far out, where the rule says the derivative goes to 0 without
    # overflowing (saturated tanh and σ): label -> (options, the input). First order only: a
    # correct σ′ computed as σ(1 − σ) from a σ written 1 / (1 + e⁻ᵃ) has a nan second
    # derivative at a = -800, which no rule of the notebook forbids
    far: dict = field(default_factory=dict)
    # layouts whose gradients need chapter 3 to be summed onto the inputs (a 1-D operand
    # against a batch): the local backward alone is judged, summed by the autograder
    local_only: Sequence[list[tuple[Shape, str]]] = ()
    extra: Sequence[Callable[[], Case]] = ()  # cases of other kinds (errors)
    # whether each gradient depends on the op's inputs (a non-zero second derivative), so
    # that the local backward must use them in Tensor operations; or a function of options
    second_order: bool | Callable[[dict], bool] = False
    # the one variant also checked in float32 where a check takes no float32 sweep
    # (``cases.op_cases``: chapter 3's ops); chapter 2's take the sweep
    float32_variant: int = 3
    # each output element depends on the one element of each input it lines up with (after
    # broadcasting): one complex step along all of an input's elements gives every partial
    # derivative at once (cases.op_case), instead of one step per element
    elementwise: bool = False


# every pair of axes of a 3-D tensor, with negative dims; some of a 4-D one. A backward
# that reverses every axis (grad_output.T) is right for (0, 2) only.
TRANSPOSE_3D = [(0, 1), (1, 2), (0, 2), (2, 1), (-1, 0), (0, -2), (1, 1)]
TRANSPOSE_4D = [(1, 2), (0, 3), (-1, 1)]
# some permutations of 4 axes: 4-cycles and 3-cycles (whose inverse is not themselves), and
# a swap; every one of 3 axes is in the catalog
PERMUTE_4D = [(1, 3, 0, 2), (3, 0, 1, 2), (1, 2, 0, 3), (0, 1, 3, 2)]


# operands that broadcast: a local backward may return the output's shape (Node.backward
# sums it with chapter 3's unbroadcast), so chapter 2 judges it alone (Op.local_only)
BROADCASTING: list[list[tuple[Shape, str]]] = [
    [((2, 3), "plain"), ((3,), "plain")],
    [((2, 1), "plain"), ((1, 3), "plain")],
    [((), "plain"), ((2, 2), "plain")],
]


# every axis of a 3-D tensor, and every pair of them, with and without keepdim: a backward
# that puts the reduced axis back in the wrong place (at the end, say) fails somewhere
SWEPT_3D: Shape = (2, 4, 3)
ONE_AXIS = [{"dim": d, "keepdim": k} for d in (0, 1, 2, -2) for k in (False, True)]
TWO_AXES = [
    {"dim": d, "keepdim": k} for d in ((0, 1), (1, 2), (0, 2), (-1, 0)) for k in (False, True)
]


# entries where tanh and σ are flat: at ±800 e^-a overflows to inf and inf / inf is nan, so
# σ′ must be written without it (σ(1 − σ), or from e^-|a|); ±40 is where 1 − tanh² rounds to 0
SATURATED = np.array([[-800.0, -40.0, -1.5], [0.5, 40.0, 800.0]])


def saturated(expr: str, derivative: str) -> dict:
    """An ``Op.far`` row: ``expr`` at saturated entries, where ``derivative`` → 0 without
    overflowing."""
    label = Label(
        {
            "en": f"{expr} with a = {SATURATED.tolist()}: saturated entries, where {derivative} → 0"
            + " (with no inf / inf on the way)",
            "zh": f"{expr}，a = {SATURATED.tolist()}：含饱和的元素，在那里 {derivative} → 0"
            "（计算过程中不能出现 inf / inf）",
        }
    )
    return {label: ({}, SATURATED)}


# zeros inside 2-D and 3-D tensors: the kink's rule holds element by element
KINKS_2D = np.array([[0.0, -1.5, 2.0], [0.5, 0.0, -0.25]])
KINKS_3D = np.array([[[0.0, 1.0], [-0.5, 0.0]], [[2.0, 0.0], [0.0, -1.0]]])


def kinks(expr: str, rule: str, slope: Callable[[np.ndarray], np.ndarray]) -> dict:
    """``Op.exact`` rows: ``expr`` on 2-D and 3-D data with zeros inside; the gradient is
    g · slope(a), 0 at the kink."""
    return {
        Label(
            {
                "en": f"{expr} at kinks inside a {a.ndim}-D tensor, a = {a.tolist()}: {rule} "
                "everywhere",
                "zh": f"{expr} 在 {a.ndim}-D 张量内部的折点处，a = {a.tolist()}：每个折点处都有 "
                f"{rule}",
            }
        ): (
            {},
            a,
            lambda g, a=a: g * slope(a),
        )
        for a in (KINKS_2D, KINKS_3D)
    }


# a (2, 3, 2) tensor with a tie along every axis: max(dim) gives the gradient to the index
# argmax returns (the first of the tied entries), as PyTorch does
TIED_3D = np.array([[[1.0, 2.0], [1.0, 0.5], [0.0, 2.0]], [[1.0, 2.0], [-1.0, 2.0], [0.5, 0.5]]])


def first_winners(a: np.ndarray, dim: int, g: np.ndarray) -> np.ndarray:
    """The gradient of ``a.max(dim)`` for upstream g: g at the first maximum along ``dim``."""
    out = np.zeros(a.shape)
    np.put_along_axis(out, np.expand_dims(a.argmax(axis=dim), dim), np.expand_dims(g, dim), dim)
    return out


def _elementwise() -> list[tuple[dict, Shape, str]]:
    """The variants of an op without options: every shape of ELEMENTWISE_SHAPES."""
    return [({}, shape, view) for shape, view in ELEMENTWISE_SHAPES]


def error_case(
    label: str,
    name: str,
    arrays: list[np.ndarray],
    naming: list[str],
    *,
    options: dict | None = None,
    error_type: str = "",
) -> Case:
    """A case of op ``name`` on ``arrays`` (each a Tensor that requires grad) whose making or
    forward pass must raise an error (of ``error_type``, where given) whose message names
    each of ``naming``."""
    wire = {k: list(v) if isinstance(v, tuple) else v for k, v in (options or {}).items()}
    args = [{"data": a, "view": "plain", "requires_grad": True} for a in arrays]
    inputs = {"name": name, "args": args, "options": wire, "upstream": np.ones(())}
    return Case(label, {**inputs, "expect_error": True}, ErrorExpected(naming, error_type))


def _matmul_error_case() -> Case:
    return error_case(
        tr(
            "a @ b with a of shape (2, 3) and b of shape (4, 5): an error naming both shapes",
            "a @ b，其中 a 的形状为 (2, 3)，b 的形状为 (4, 5)：应抛出写明两个形状的错误",
        ),
        "matmul",
        [np.ones((2, 3)), np.ones((4, 5))],
        ["(2, 3)", "(4, 5)"],
    )


def _integer_case() -> Case:
    return error_case(
        tr(
            "Tensor([[1, 2], [3, 4]], requires_grad=True): integers cannot require gradients",
            "Tensor([[1, 2], [3, 4]], requires_grad=True)：整数张量不能要求梯度",
        ),
        "neg",
        [np.array([[1, 2], [3, 4]])],
        ["int64"],
    )


CATALOG = [
    Op(
        "add",
        "2.1",
        "a + b",
        np.add,
        arity=2,
        variants=_elementwise(),
        elementwise=True,
        numbers=[(2.7, 1)],
        local_only=BROADCASTING,
    ),
    Op(
        "sub",
        "2.1",
        "a - b",
        np.subtract,
        arity=2,
        variants=_elementwise(),
        elementwise=True,
        numbers=[(1.3, 0)],
        local_only=BROADCASTING,
    ),
    Op(
        "neg",
        "2.1",
        "-a",
        np.negative,
        variants=_elementwise(),
        elementwise=True,
        extra=[_integer_case],
    ),
    Op(
        "mul",
        "2.2",
        "a * b",
        np.multiply,
        arity=2,
        variants=_elementwise(),
        elementwise=True,
        numbers=[(-0.3, 1)],
        local_only=BROADCASTING,
        second_order=True,
    ),
    Op(
        "div",
        "2.2",
        "a / b",
        np.divide,
        domain="nonzero",
        arity=2,
        variants=_elementwise(),
        elementwise=True,
        numbers=[(0.7, 0)],
        local_only=BROADCASTING,
        second_order=True,
    ),
    Op(
        "pow",
        "2.3",
        "a ** {exponent}",
        lambda a, exponent: a**exponent,
        domain="positive",
        variants=[
            ({"exponent": 2}, (), "plain"),
            ({"exponent": 3}, (3,), "plain"),
            ({"exponent": 0.5}, (2, 3), "plain"),
            ({"exponent": -1}, (1, 4), "plain"),
            ({"exponent": -2.5}, (4, 3), "transposed"),
            ({"exponent": 1}, (6, 4), "every other row"),  # en-only: a view's name
            ({"exponent": 0}, (3,), "plain"),
            ({"exponent": 1.5}, (24, 32), "plain"),
        ],
        at={
            Label(
                {
                    "en": f"a ** {n} with a = [[0, -1.5, 2], [0.75, 0, -0.5]]: zeros and "
                    "negative bases",
                    "zh": f"a ** {n}，a = [[0, -1.5, 2], [0.75, 0, -0.5]]：底数有 0 也有负数",
                }
            ): (
                {"exponent": n},
                np.array([[0.0, -1.5, 2.0], [0.75, 0.0, -0.5]]),
            )
            for n in (1, 2, 3, 4)
        }
        | {
            Label(
                {
                    "en": f"a ** {n} with a = [[-1.5, -0.5], [-2, 0.75]]: negative bases",
                    "zh": f"a ** {n}，a = [[-1.5, -0.5], [-2, 0.75]]：底数为负",
                }
            ): (
                {"exponent": n},
                np.array([[-1.5, -0.5], [-2.0, 0.75]]),
            )
            for n in (-1, -2)
        }
        | {
            Label(
                {
                    "en": "a ** 2.5 with a = [0, 0.5, 2]: a zero base, whose gradient is 0",
                    "zh": "a ** 2.5，a = [0, 0.5, 2]：底数为 0 处的梯度为 0",
                }
            ): (
                {"exponent": 2.5},
                np.array([0.0, 0.5, 2.0]),
            ),
        },
        exact={
            Label(
                {
                    "en": "a ** 0 with a = [0, 2]: the gradient is 0 (n·aⁿ⁻¹ would be 0·∞ at "
                    "a = 0)",
                    "zh": "a ** 0，a = [0, 2]：梯度为 0（在 a = 0 处 n·aⁿ⁻¹ 会是 0·∞）",
                }
            ): (
                {"exponent": 0},
                np.array([0.0, 2.0]),
                lambda g: np.zeros(2),
            ),
        },
        second_order=lambda options: options["exponent"] not in (0, 1),
        elementwise=True,
    ),
    Op(
        "matmul",
        "2.6",
        "a @ b",
        np.matmul,
        arity=2,
        variants=[
            ({}, [((3,), "plain"), ((3,), "plain")]),
            ({}, [((2, 3), "plain"), ((3,), "plain")]),
            ({}, [((3,), "plain"), ((3, 4), "plain")]),
            ({}, [((1, 1), "plain"), ((1, 1), "plain")]),
            ({}, [((1,), "plain"), ((1, 3), "plain")]),
            ({}, [((2, 1), "plain"), ((1,), "plain")]),
            ({}, [((2, 3), "plain"), ((3, 4), "plain")]),
            ({}, [((2, 2, 3), "plain"), ((2, 3, 4), "plain")]),
            ({}, [((3, 1, 4), "plain"), ((3, 4, 2), "plain")]),
            ({}, [((2, 3, 2, 3), "plain"), ((2, 3, 3, 4), "plain")]),
            ({}, [((1, 2, 1, 3), "plain"), ((1, 2, 3, 2), "plain")]),
            ({}, [((5, 4), "transposed"), ((5, 3), "plain")]),
            ({}, [((3, 6), "plain"), ((12, 2), "every other row")]),  # en-only: a view's name
            ({}, [((32, 48), "plain"), ((48, 16), "plain")]),
        ],
        local_only=[
            [((3,), "plain"), ((2, 3, 4), "plain")],
            [((2, 3, 4), "plain"), ((4,), "plain")],
            [((3,), "plain"), ((2, 2, 3, 4), "plain")],
            [((2, 2, 3, 4), "plain"), ((4,), "plain")],
            [((1, 3, 4), "plain"), ((2, 4, 5), "plain")],
            [((2, 1, 3, 4), "plain"), ((3, 4, 2), "plain")],
        ],
        extra=[_matmul_error_case],
        second_order=True,
    ),
    Op(
        "exp",
        "2.4",
        "a.exp()",
        np.exp,
        variants=_elementwise(),
        elementwise=True,
        second_order=True,
    ),
    Op(
        "log",
        "2.4",
        "a.log()",
        np.log,
        "positive",
        variants=_elementwise(),
        elementwise=True,
        second_order=True,
    ),
    Op(
        "sqrt",
        "2.4",
        "a.sqrt()",
        np.sqrt,
        "positive",
        variants=_elementwise(),
        elementwise=True,
        second_order=True,
    ),
    Op(
        "tanh",
        "2.5",
        "a.tanh()",
        np.tanh,
        variants=_elementwise(),
        elementwise=True,
        far=saturated("a.tanh()", "tanh′"),
        second_order=True,
    ),
    Op(
        "sigmoid",
        "2.5",
        "a.sigmoid()",
        lambda a: 0.5 * (1 + np.tanh(a / 2)),  # = 1 / (1 + e^-a)
        variants=_elementwise(),
        elementwise=True,
        far=saturated("a.sigmoid()", "σ′"),
        second_order=True,
    ),
    Op(
        "relu",
        "2.5",
        "a.relu()",
        lambda a: np.where(a.real > 0, a, 0),
        domain="nonzero",
        variants=_elementwise(),
        elementwise=True,
        exact={  # no derivative at the kink: PyTorch's choice is 0
            Label(
                {
                    "en": "a.relu() at the kink, a = [-1, 0, 2]: relu'(0) = 0, as in PyTorch",
                    "zh": "a.relu() 在折点处，a = [-1, 0, 2]：relu'(0) = 0，与 PyTorch 一致",
                }
            ): (
                {},
                np.array([-1.0, 0.0, 2.0]),
                lambda g: np.array([0.0, 0.0, g[2]]),
            ),
            **kinks("a.relu()", "relu'(0) = 0", lambda a: (a > 0) * 1.0),
        },
    ),
    Op(
        "abs",
        "2.5",
        "a.abs()",
        lambda a: np.where(a.real < 0, -a, a),  # |a|, keeping a complex step's sign
        domain="nonzero",
        variants=_elementwise(),
        elementwise=True,
        exact={
            Label(
                {
                    "en": "a.abs() at the kink, a = [-1, 0, 2]: |a|'(0) = 0, as in PyTorch",
                    "zh": "a.abs() 在折点处，a = [-1, 0, 2]：|a|'(0) = 0，与 PyTorch 一致",
                }
            ): (
                {},
                np.array([-1.0, 0.0, 2.0]),
                lambda g: np.array([-g[0], 0.0, g[2]]),
            ),
            **kinks("a.abs()", "|a|'(0) = 0", np.sign),
        },
    ),
    Op(
        "sum",
        "2.7",
        "a.sum({options})",
        lambda a, dim=None, keepdim=False: np.sum(a, axis=dim, keepdims=keepdim),
        variants=[
            ({}, (), "plain"),
            ({}, (3,), "plain"),
            ({"dim": 0}, (3,), "plain"),
            ({"dim": 1}, (2, 3), "plain"),
            ({"dim": 1, "keepdim": True}, (2, 3), "plain"),
            ({"dim": -1}, (3, 1, 2), "plain"),
            ({"dim": (0, 2)}, (2, 3, 4), "plain"),
            *[(options, SWEPT_3D, "plain") for options in ONE_AXIS + TWO_AXES],
            ({"dim": 0, "keepdim": True}, (4, 3), "transposed"),
            ({"dim": 1}, (6, 4), "every other row"),  # en-only: a view's name
            ({"dim": 0}, (24, 32), "plain"),
        ],
    ),
    Op(
        "mean",
        "2.7",
        "a.mean({options})",
        lambda a, dim=None, keepdim=False: np.mean(a, axis=dim, keepdims=keepdim),
        variants=[
            ({}, (), "plain"),
            ({}, (3,), "plain"),
            ({"dim": 1}, (2, 3), "plain"),
            ({"dim": 0, "keepdim": True}, (2, 3), "plain"),
            ({"dim": (-1, 0)}, (2, 3, 4), "plain"),
            *[(options, SWEPT_3D, "plain") for options in ONE_AXIS + TWO_AXES],
            ({"dim": 1}, (3, 5), "columns from 1"),
            ({"dim": 1, "keepdim": True}, (24, 32), "plain"),
        ],
    ),
    Op(
        "max",
        "2.8",
        "a.max({options})",
        lambda a, dim=None, keepdim=False: np.max(
            a, axis=dim if np.ndim(a) else None, keepdims=keepdim
        ),
        domain="distinct",
        variants=[
            ({}, (), "plain"),
            ({"dim": 0}, (), "plain"),
            ({}, (4,), "plain"),
            ({"dim": 0}, (4,), "plain"),
            ({}, (2, 3), "plain"),
            ({"dim": 1}, (2, 3), "plain"),
            ({"dim": 0, "keepdim": True}, (2, 3), "plain"),
            ({"dim": -2}, (3, 4, 2), "plain"),
            *[(options, SWEPT_3D, "plain") for options in ONE_AXIS],
            ({"dim": 1}, (4, 3), "transposed"),
            ({"dim": 0}, (24, 32), "plain"),
        ],
        exact={
            # ties: the central difference is not defined there; PyTorch's rule is
            Label(
                {
                    "en": "a.max() with a tie, a = [[1, 3], [3, 2]]: the two 3s share the gradient",
                    "zh": "a.max() 遇到并列，a = [[1, 3], [3, 2]]：两个 3 平分梯度",
                }
            ): (
                {},
                np.array([[1.0, 3.0], [3.0, 2.0]]),
                lambda g: np.array([[0.0, 0.5], [0.5, 0.0]]) * g,
            ),
            Label(
                {
                    "en": "a.max(dim=1) with a tie, a = [[2, 2], [1, 0]]: the returned index (0) "
                    "wins",
                    "zh": "a.max(dim=1) 遇到并列，a = [[2, 2], [1, 0]]：梯度归返回的索引 (0)",
                }
            ): (
                {"dim": 1},
                np.array([[2.0, 2.0], [1.0, 0.0]]),
                lambda g: np.array([[g[0], 0.0], [g[1], 0.0]]),
            ),
            **{
                Label(
                    {
                        "en": f"a.max(dim={dim}) with ties inside a (2, 3, 2) tensor, a = "
                        f"{TIED_3D.tolist()}: the returned index (the first) wins",
                        "zh": f"a.max(dim={dim}) 在 (2, 3, 2) 张量内部遇到并列，a = "
                        f"{TIED_3D.tolist()}：梯度归返回的索引（并列中的第一个）",
                    }
                ): (
                    {"dim": dim},
                    TIED_3D,
                    lambda g, dim=dim: first_winners(TIED_3D, dim, g),
                )
                for dim in (0, 1, 2)
            },
        },
    ),
    Op(
        "reshape",
        "2.9",
        "a.reshape{shape}",
        lambda a, shape: a.reshape(shape),
        variants=[
            ({"shape": (1,)}, (), "plain"),
            ({"shape": ()}, (1,), "plain"),
            ({"shape": (3, 2)}, (2, 3), "plain"),
            ({"shape": (2, -1)}, (6,), "plain"),
            ({"shape": (1, 2, 3)}, (6,), "plain"),
            ({"shape": (3, 2)}, (1, 6), "plain"),
            ({"shape": (3, 1, 2)}, (1, 2, 3), "plain"),
            ({"shape": (4, 6)}, (2, 3, 4), "plain"),
            ({"shape": (2, 12)}, (2, 3, 4), "plain"),
            ({"shape": (3, 0)}, (0, 3), "plain"),
            ({"shape": (12,)}, (4, 3), "transposed"),
            ({"shape": (32, 24)}, (24, 32), "plain"),
        ],
    ),
    Op(
        "view",
        "2.9",
        "a.view{shape}",
        lambda a, shape: a.reshape(shape),
        variants=[
            ({"shape": (6,)}, (2, 3), "plain"),
            ({"shape": (2, 1, 3)}, (6,), "plain"),
            ({"shape": (3, 2)}, (1, 6), "plain"),
            ({"shape": (4, -1)}, (2, 3, 4), "plain"),
        ],
    ),
    Op(
        "transpose",
        "2.9",
        "a.transpose{dims}",
        lambda a, dims: np.swapaxes(a, *dims),
        variants=[
            ({"dims": (0, 1)}, (2, 3), "plain"),
            ({"dims": (0, 0)}, (3,), "plain"),
            *[({"dims": dims}, (2, 3, 4), "plain") for dims in TRANSPOSE_3D],
            ({"dims": (1, 0)}, (4, 3), "transposed"),
            *[({"dims": dims}, (2, 3, 4, 5), "plain") for dims in TRANSPOSE_4D],
        ],
    ),
    Op(
        "permute",
        "2.9",
        "a.permute{dims}",
        lambda a, dims: np.transpose(a, dims),
        variants=[
            ({"dims": (1, 0)}, (2, 3), "plain"),
            *[({"dims": dims}, (2, 3, 4), "plain") for dims in itertools.permutations(range(3))],
            ({"dims": (-1, 0, 1)}, (2, 3, 4), "plain"),
            *[({"dims": dims}, (2, 3, 4, 5), "plain") for dims in PERMUTE_4D],
        ],
    ),
    Op(
        "T",
        "2.9",
        "a.T",
        lambda a: a.T,
        variants=[
            ({}, (3,), "plain"),
            ({}, (2, 3), "plain"),
            ({}, (1, 4), "plain"),
            ({}, (6, 4), "every other row"),  # en-only: a view's name
        ],
    ),
    Op(
        "getitem",
        "2.10",
        "a[{index}]",
        lambda a, index: a[programs._index(index)],
        variants=[
            ({"index": 1}, (3,), "plain"),
            ({"index": {"slice": [1, None, None]}}, (4,), "plain"),
            ({"index": {"slice": [None, None, -1]}}, (4,), "plain"),
            ({"index": {"array": [0, 0, 2]}}, (3,), "plain"),
            ({"index": {"array": [True, False, True]}}, (3,), "plain"),
            ({"index": [1, 2]}, (2, 3), "plain"),
            ({"index": [1, {"slice": [None, None, 2]}]}, (3, 4), "plain"),
            ({"index": ["...", 1]}, (2, 3, 4), "plain"),
            ({"index": [{"slice": [None, None, None]}, "None", 1]}, (3, 4), "plain"),
            ({"index": [{"array": [0, 2, 0]}, {"array": [1, 1, 1]}]}, (3, 4), "plain"),
            ({"index": {"array": [2, 0, 2]}}, (4, 3), "transposed"),
            (lambda rng: {"index": {"array": rng.integers(0, 50, 200).tolist()}}, (50, 8), "plain"),
        ],
    ),
]

OPS = {op.name: op for op in CATALOG}

# the name of each op's check in reports (default: its expression)
TITLES = {
    "pow": "a ** n",
    "sum": "a.sum(dim, keepdim)",
    "mean": "a.mean(dim, keepdim)",
    "max": "a.max(dim, keepdim)",
    "reshape": "a.reshape(shape)",
    "view": "a.view(shape)",
    "transpose": "a.transpose(dim0, dim1)",
    "permute": "a.permute(dims)",
    "getitem": "a[index]",
}

"""Chapter 2's broken set: plausible student bugs in the local backward functions (task
2.11, which runs several ops' backward, may report "blocked by" the broken one), and
unusual but correct rewrites (judged by tests/test_variants.py)."""

from __future__ import annotations

from functools import partial

from tests.trees import edits
from tests.variants import VariantSet

edits = partial(edits, "ch02_tensor")

MATMUL_WITHOUT_VECTORS = """
return grad_output @ b.transpose(-1, -2), a.transpose(-1, -2) @ grad_output
"""


MATMUL_FOR_3D_BATCHES_ONLY = """
g = grad_output
a_vector, b_vector = a.ndim == 1, b.ndim == 1
if b_vector:
    b, g = b.unsqueeze(-1), g.unsqueeze(-1)
if a_vector:
    a, g = a.unsqueeze(0), g.unsqueeze(-2)
def flip(x):  # the last two axes of a matrix or of a batch of matrices
    return x.transpose(0, 1) if x.ndim == 2 else x.transpose(1, 2)
grad_a = g @ flip(b)
grad_b = flip(a) @ g
if a_vector:
    grad_a = grad_a.squeeze(-2)
if b_vector:
    grad_b = grad_b.squeeze(-1)
return grad_a, grad_b
"""

MEAN_PUTS_ONE_AXIS_BACK_AT_THE_END = """
n = 1
for axis in ctx.axes:
    n *= a.shape[axis]
g = grad_output
if not ctx.keepdim and len(ctx.axes) == 1:
    g = g.unsqueeze(-1)  # the reduced axis back
elif not ctx.keepdim:
    g = g.reshape(_kept_shape(a.shape, ctx.axes))
return g * ones_like(a) / n
"""

INDEX_BACKWARD_ON_ARRAYS = """
out = array_module(grad_output.data).zeros(ctx.shape, dtype=grad_output.dtype)
scatter_add(out, ctx.index, grad_output.data)
return type(grad_output)(out)
"""

# (name, file, edit, the task it breaks): see tests/trees.py
VARIANTS = [
    (
        "sub passes +grad to b",
        "arithmetic.py",
        ("return grad_output, -grad_output", "return grad_output, grad_output"),
        "2.1",
    ),
    (
        "neg passes the gradient unchanged",
        "arithmetic.py",
        ("        return -grad_output\n", "        return grad_output\n"),
        "2.1",
    ),
    (
        "mul pairs each input with itself",
        "arithmetic.py",
        ("return grad_output * b, grad_output * a", "return grad_output * a, grad_output * b"),
        "2.2",
    ),
    (
        "div forgets the square",
        "arithmetic.py",
        ("-grad_output * a / (b * b)", "-grad_output * a / b"),
        "2.2",
    ),
    (
        "pow forgets the factor n",
        "arithmetic.py",
        ("grad_output * n * a ** (n - 1)", "grad_output * a ** (n - 1)"),
        "2.3",
    ),
    (
        "pow without the n = 0 case",
        "arithmetic.py",
        edits(
            "arithmetic.py",
            (
                (
                    "        if n == 0:  # a⁰ = 1 is constant; n·aⁿ⁻¹ would be 0·∞ = nan"
                    " at a = 0\n"
                    "            return grad_output * 0\n"
                ),
                "",
            ),
        ),
        "2.3",
    ),
    (
        "pow's derivative as n * a**n / a, nan at a zero base",
        "arithmetic.py",
        ("return grad_output * n * a ** (n - 1)", "return grad_output * n * a**n / a"),
        "2.3",
    ),
    (
        "mul computes with the arrays of its inputs",
        "arithmetic.py",
        (
            "return grad_output * b, grad_output * a",
            "return grad_output * b.data, grad_output * a.data",
        ),
        "2.2",
    ),
    (
        "neg negates grad_output in place",
        "arithmetic.py",
        (
            "        return -grad_output\n",
            "        grad_output.data *= -1\n        return grad_output\n",
        ),
        "2.1",
    ),
    (
        "exp detaches the saved input",
        "pointwise.py",
        ("return grad_output * a.exp()", "return grad_output * a.exp().detach()"),
        "2.4",
    ),
    (
        "relu passes the gradient at the kink",
        "pointwise.py",
        ("return grad_output * (a > 0)", "return grad_output * (a >= 0)"),
        "2.5",
    ),
    (
        "matmul squeezes every size-1 axis",
        "matmul.py",
        ("grad_a = grad_a.squeeze(-2)", "grad_a = grad_a.squeeze()"),
        "2.6",
    ),
    (
        "max(dim) unsqueezes even with keepdim=True",
        "reductions.py",
        (
            "g = grad_output if ctx.keepdim else grad_output.unsqueeze(ctx.dim)",
            "g = grad_output.unsqueeze(ctx.dim)",
        ),
        "2.8",
    ),
    (
        "indexing backward on arrays instead of ScatterAdd",
        "indexing.py",
        ("region", INDEX_BACKWARD_ON_ARRAYS),
        "2.10",
    ),
    (
        "exp ignores the upstream gradient",
        "pointwise.py",
        ("return grad_output * a.exp()", "return a.exp()"),
        "2.4",
    ),
    (
        "sqrt forgets the 2",
        "pointwise.py",
        ("grad_output / (2 * a.sqrt())", "grad_output / a.sqrt()"),
        "2.4",
    ),
    (
        "tanh' written as 1 - tanh",
        "pointwise.py",
        ("grad_output * (1 - t * t)", "grad_output * (1 - t)"),
        "2.5",
    ),
    (
        "sigmoid' as exp(-a) / (1 + exp(-a))², nan where exp overflows (a = -800)",
        "pointwise.py",
        (
            "s = a.sigmoid()\n        return grad_output * s * (1 - s)",
            "e = (-a).exp()\n        return grad_output * e / ((1 + e) * (1 + e))",
        ),
        "2.5",
    ),
    (
        "sigmoid' as exp(a) / (1 + exp(a))², nan where exp overflows (a = 800)",
        "pointwise.py",
        (
            "s = a.sigmoid()\n        return grad_output * s * (1 - s)",
            "e = a.exp()\n        return grad_output * e / ((1 + e) * (1 + e))",
        ),
        "2.5",
    ),
    (
        "relu passes the gradient at kinks inside a tensor (a 0-d or 1-D kink only)",
        "pointwise.py",
        (
            "return grad_output * (a > 0)",
            "return grad_output * ((a > 0) if a.ndim < 2 else (a >= 0))",
        ),
        "2.5",
    ),
    (
        "max(dim) splits a tie along dim, as max() does",
        "reductions.py",
        (
            "g = grad_output if ctx.keepdim else grad_output.unsqueeze(ctx.dim)",
            "g = grad_output if ctx.keepdim else grad_output.unsqueeze(ctx.dim)\n"
            "        top = a.data.max(axis=ctx.dim, keepdims=True)\n"
            "        shares = (a.data == top) / (a.data == top).sum(axis=ctx.dim, keepdims=True)\n"
            "        return g * as_tensor(shares, dtype=a.dtype)",
        ),
        "2.8",
    ),
    (
        "relu lets gradients through negative inputs",
        "pointwise.py",
        ("return grad_output * (a > 0)", "return grad_output"),
        "2.5",
    ),
    (
        "matmul transposes with .T, which reverses batch axes too",
        "matmul.py",
        ("grad_a = g @ b.transpose(-1, -2)", "grad_a = g @ b.T"),
        "2.6",
    ),
    ("matmul without 1-D operands", "matmul.py", ("region", MATMUL_WITHOUT_VECTORS), "2.6"),
    (
        "matmul transposes batches as if they were 3-D",
        "matmul.py",
        ("region", MATMUL_FOR_3D_BATCHES_ONLY),
        "2.6",
    ),
    (
        "exp's gradient in NumPy, attached to the graph with * 0",
        "pointwise.py",
        edits(
            "pointwise.py",
            (
                "return grad_output * a.exp()",
                (
                    "answer = type(grad_output)(grad_output.data *"
                    " array_module(a.data).exp(a.data))\n"
                    "        return answer + (grad_output.sum() + a.sum()) * 0"
                ),
            ),
        ),
        "2.4",
    ),
    (
        "mean forgets to divide by n",
        "reductions.py",
        ("return g * ones_like(a) / n", "return g * ones_like(a)"),
        "2.7",
    ),
    (
        "mean puts a single reduced axis back at the end",
        "reductions.py",
        (
            "g = grad_output.reshape(_kept_shape(a.shape, ctx.axes))\n"
            "        return g * ones_like(a) / n",
            MEAN_PUTS_ONE_AXIS_BACK_AT_THE_END.strip().replace("\n", "\n        "),
        ),
        "2.7",
    ),
    (
        "sum forgets the reduced axes",
        "reductions.py",
        (
            "sums)\n        g = grad_output.reshape(_kept_shape(a.shape, ctx.axes))",
            "sums)\n        g = grad_output",
        ),
        "2.7",
    ),
    (
        "max gives every tie the full gradient",
        "reductions.py",
        ("as_tensor(winners / winners.sum(), dtype=a.dtype)", "as_tensor(winners, dtype=a.dtype)"),
        "2.8",
    ),
    (
        "max(dim) ignores keepdim=False",
        "reductions.py",
        ("g = grad_output if ctx.keepdim else grad_output.unsqueeze(ctx.dim)", "g = grad_output"),
        "2.8",
    ),
    (
        "permute back with the same permutation",
        "shapes.py",
        ("return grad_output.permute(*inverse)", "return grad_output.permute(*ctx.dims)"),
        "2.9",
    ),
    (
        "transpose back with .T, which reverses every axis",
        "shapes.py",
        ("return grad_output.transpose(*ctx.dims)", "return grad_output.T"),
        "2.9",
    ),
    (
        "transpose's gradient in NumPy, attached to the graph with * 0",
        "shapes.py",
        (
            "return grad_output.transpose(*ctx.dims)",
            "answer = type(grad_output)(grad_output.data.swapaxes(*ctx.dims))\n"
            "        return answer + grad_output.sum() * 0",
        ),
        "2.9",
    ),
    (
        "ScatterAdd's zeros in float32, the default dtype",
        "indexing.py",
        ("zeros(shape, dtype=g.dtype)", 'zeros(shape, dtype="float32")'),
        "2.10",
    ),
    (
        "ScatterAdd's zeros in NumPy's default dtype (float64)",
        "indexing.py",
        ("zeros(shape, dtype=g.dtype)", "zeros(shape)"),
        "2.10",
    ),
    (
        "sum's backward multiplies by np.ones (float64)",
        "reductions.py",
        (
            "return g * ones_like(a)\n",
            "return g * as_tensor(array_module(a.data).ones(a.shape))\n",
        ),
        "2.7",
    ),
    (
        "relu's mask as a float array, (a > 0) * 1.0 (float64)",
        "pointwise.py",
        (
            "return grad_output * (a > 0)",
            "return grad_output * type(grad_output)((a.data > 0) * 1.0)",
        ),
        "2.5",
    ),
    (
        "exp's forward through np.array(..., dtype=float)",
        "pointwise.py",
        (
            "return array_module(a.data).exp(a.data)",
            "return array_module(a.data).array(array_module(a.data).exp(a.data), dtype=float)",
        ),
        "2.4",
    ),
    (
        "max's tie shares in float64, whatever the input's dtype",
        "reductions.py",
        ("as_tensor(winners / winners.sum(), dtype=a.dtype)", "as_tensor(winners / winners.sum())"),
        "2.8",
    ),
    (
        "indexing assigns instead of adding",
        "indexing.py",
        ("scatter_add(out, index, g.data)", "out[index] = g.data"),
        "2.10",
    ),
    (
        "be the engine keeps one share of r's gradient",
        "by_hand.py",
        ("grad_r = grad_r1 + grad_r2", "grad_r = grad_r1"),
        "2.11",
    ),
]


# Unusual but correct code: each must score every point, at tolerances float32 cannot meet
# and to second order (each uses other tasks' ops in its backward).
CORRECT = [
    (
        "sigmoid' from exp(-a), not from sigmoid",
        "pointwise.py",
        ("s = a.sigmoid()\n", "s = 1 / (1 + (-a).exp())\n"),
        "2.5",
    ),
    (
        "tanh' with a square",
        "pointwise.py",
        (
            "t = a.tanh()\n        return grad_output * (1 - t * t)",
            "return grad_output * (1 - a.tanh() ** 2)",
        ),
        "2.5",
    ),
    (
        "div's gradients with negative powers",
        "arithmetic.py",
        (
            "return grad_output / b, -grad_output * a / (b * b)",
            "return grad_output * b**-1, -grad_output * a * b**-2",
        ),
        "2.2",
    ),
    (
        "transpose back by permuting",
        "shapes.py",
        (
            "return grad_output.transpose(*ctx.dims)",
            "dims = list(range(grad_output.ndim))\n        i, j = ctx.dims\n"
            "        dims[i], dims[j] = dims[j], dims[i]\n"
            "        return grad_output.permute(*dims)",
        ),
        "2.9",
    ),
]


# the dtype of every local result, both ways (issue 26): the report names the op, the result,
# the dtype expected and received, and the likely cause
DTYPE_DIAGNOSES = [
    (
        "ScatterAdd's zeros in NumPy's default dtype (float64)",
        "∂L/∂a returned by Index.backward (made by ScatterAdd) has dtype float64 for a float32 "
        "input a: expected float32, received float64. np.zeros defaults to float64",
    ),
    (
        "ScatterAdd's zeros in float32, the default dtype",
        "(made by ScatterAdd) has dtype float32 for a float64 input a: expected float64, "
        "received float32. An array made in float32",
    ),
    (
        "sum's backward multiplies by np.ones (float64)",
        "returned by Sum.backward (made by Mul) has dtype float64 for a float32 input a",
    ),
    (
        "relu's mask as a float array, (a > 0) * 1.0 (float64)",
        "returned by ReLU.backward (made by Mul) has dtype float64 for a float32 input a",
    ),
    (
        "exp's forward through np.array(..., dtype=float)",
        "Exp.forward returned out of dtype float64 for a float32 input: expected float32, "
        "received float64",
    ),
    (
        "max's tie shares in float64, whatever the input's dtype",
        "returned by Max.backward (made by Mul) has dtype float64 for a float32 input a",
    ),
]


# each variant's words: what its task's first failing check must say (the mistake named)
DIAGNOSES = {
    "sub passes +grad to b": "b received grad_output as it is: b enters a − b with a minus sign",
    "neg passes the gradient unchanged": "−a passed grad_output on unchanged",
    "mul pairs each input with itself": "a's gradient was computed from a itself",
    "div forgets the square": "b is not squared: ∂(a/b)/∂b = −a/b², not −a/b",
    "pow forgets the factor n": "aⁿ⁻¹ without the factor n",
    "pow without the n = 0 case": "0·a⁻¹ is nan at a = 0 (0 times infinity): a⁰ = 1 is a constant",
    "pow's derivative as n * a**n / a, nan at a zero base": "n·aⁿ/a divides by a, which is 0 here",
    "mul computes with the arrays of its inputs": "does not depend on the op's inputs in the graph",
    "neg negates grad_output in place": "the local backward wrote into grad_output's array",
    "exp detaches the saved input": "does not depend on the op's inputs in the graph",
    "relu passes the gradient at the kink": "the gradient passed where a = 0: relu'(0) is 0",
    "matmul squeezes every size-1 axis": "a's own size-1 axes were squeezed away too",
    "max(dim) unsqueezes even with keepdim=True": (
        "with keepdim=True, grad_output still has the reduced axis, and one more size-1 axis "
        "was added"
    ),
    "indexing backward on arrays instead of ScatterAdd": (
        "is not computed from grad_output with Tensor operations"
    ),
    "exp ignores the upstream gradient": (
        "is the local derivative alone: grad_output, the upstream gradient, is not multiplied in"
    ),
    "sqrt forgets the 2": "1/√a instead of 1/(2√a): the 2 is missing",
    "tanh' written as 1 - tanh": "1 − tanh(a) instead of 1 − tanh²(a)",
    "sigmoid' as exp(-a) / (1 + exp(-a))², nan where exp overflows (a = -800)": (
        "σ′ was computed through exp(−a), which overflows to inf"
    ),
    "sigmoid' as exp(a) / (1 + exp(a))², nan where exp overflows (a = 800)": (
        "σ′ was computed through exp(a), which overflows to inf"
    ),
    "relu passes the gradient at kinks inside a tensor (a 0-d or 1-D kink only)": (
        "relu'(0) is 0 at every kink"
    ),
    "max(dim) splits a tie along dim, as max() does": "a tie along dim was shared out",
    "relu lets gradients through negative inputs": "the gradient passed where a < 0",
    "matmul transposes with .T, which reverses batch axes too": (
        "for a batch of matrices (shapes (2, 2, 3) and (2, 3, 4)) the transpose swaps the last "
        "two axes only"
    ),
    "matmul without 1-D operands": "a 1-D operand has no second-to-last axis",
    "matmul transposes batches as if they were 3-D": (
        "for a batch of matrices (shapes (2, 3, 2, 3) and (2, 3, 3, 4)) the transpose swaps the"
        " last two axes only"
    ),
    "exp's gradient in NumPy, attached to the graph with * 0": (
        "(the pull-back ran Add.backward, Mul.backward, Sum.backward)"
    ),
    "mean forgets to divide by n": "the mean's gradient is not divided by the number of elements",
    "mean puts a single reduced axis back at the end": (
        "the reduced axis (dim=0) is not back in place"
    ),
    "sum forgets the reduced axes": "the reduced axis (dim=1) is not back in place",
    "max gives every tie the full gradient": "each tied maximum received the whole gradient",
    "max(dim) ignores keepdim=False": "the reduced axis (dim=1) is not back in place",
    "permute back with the same permutation": (
        "is grad_output's shape (3, 4, 2) permuted by the same dims again"
    ),
    "transpose back with .T, which reverses every axis": (
        "is grad_output's shape (3, 2, 4) with every axis reversed (.T)"
    ),
    "transpose's gradient in NumPy, attached to the graph with * 0": (
        "(the pull-back ran Add.backward, Mul.backward, Sum.backward)"
    ),
    "indexing assigns instead of adding": (
        "an element picked more than once received only one of its gradients"
    ),
    "be the engine keeps one share of r's gradient": (
        "r is used twice in s = r * r, and only one of its two gradients reached it"
    ),
}


SET = VariantSet(
    2,
    "broken",
    VARIANTS,
    CORRECT,
    says=DTYPE_DIAGNOSES + list(DIAGNOSES.items()),
    least=(10, 0),
)

"""Chapter 9's framework, without PyTorch (issue 31): the reference's attention checked
against NumPy written here, by its own derivatives, and on a device.

- Gradients in the autograder's own terms: ``autograder.harness.gradcheck.vjp`` (the complex
  step, exact to float64 rounding) of a plain-NumPy attention written in this file (a mask
  as a boolean ``keep`` or a float bias, a fully masked row giving zeros), against the
  reference's backward; and a central difference of the reference's own forward for
  ``nn.MultiheadAttention``, ``nn.TransformerEncoderLayer`` and a one-layer ``GPT`` (every
  input and every parameter).
- Errors (the class and what the message names), the modules (repr, ``state_dict`` keys as
  PyTorch's, ``parameters``, ``.to(float32)``).
- The key/value cache: a GPT's logits with a prompt and then one token at a time (and in
  uneven chunks) equal the full recompute's; ``generate`` with and without the cache draw
  the same tokens from the same generator while the context has not filled.
- ``tiled_attention`` equal to the plain attention to 1e-12 in float64 (tiles that do not
  divide T, causal, batch and head axes, L ≠ S) and its peak memory (tracemalloc, under
  ``no_grad``) at T = 1024 a small fraction of the plain path's.
- On a device, ``"sim"`` (the simulated device: runs everywhere) and ``"cuda"`` (marked
  ``gpu``; skipped, saying why, without a usable GPU; ``make gpu-check`` runs this file):
  SDPA forward and backward equal the CPU's and copy nothing back; a tiny GPT's AdamW
  steps equal the CPU's, stay on the device, and copy back only what chapter 5's
  ``cross_entropy`` and ``Embedding`` read; ``generate`` with the cache runs there and
  draws the CPU's tokens.
"""

from __future__ import annotations

import contextlib
import math
import tracemalloc

import numpy as np
import pytest

from autograder.harness.gradcheck import vjp
from solutions import ch09_attention as sp
from tests.test_gpu import DEVICES, array_type, copies, host

pytestmark = pytest.mark.ch09

F = sp.nn.functional
TOL = 1e-10
INF = float("inf")


@pytest.fixture(autouse=True)
def _cpu_by_default():
    yield
    sp.set_default_device(None)
    sp.set_default_dtype(np.float32)


RNG = np.random.default_rng(31)


def randn(*shape) -> np.ndarray:
    return RNG.standard_normal(shape)


def leaf(array: np.ndarray) -> sp.Tensor:
    return sp.tensor(np.array(array, dtype=np.float64), requires_grad=True)


def close(a, b, tol: float = TOL) -> None:
    a = np.asarray(a.data if isinstance(a, sp.Tensor) else a)
    b = np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


# -- a plain-NumPy attention (complex-safe: the complex step goes through it) ---------------


def ref_attention(q, k, v, keep=None, bias=None, scale=None, causal=False):
    """softmax(q kᵀ · scale + bias) v over the keys each query may see (``keep``, and the
    top-left triangle j ≤ i if ``causal``); a query that may see nothing gets 0. The
    maximum is taken on the real part, so the complex step's imaginary parts ride along."""
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = np.einsum("...le,...se->...ls", q, k) * scale
    L, S = scores.shape[-2:]
    allowed = np.ones(scores.shape, bool)
    if keep is not None:
        allowed = allowed & keep
    if bias is not None:
        allowed = allowed & np.isfinite(bias)
        scores = scores + np.where(np.isfinite(bias), bias, 0)
    if causal:
        allowed = allowed & (np.arange(S) <= np.arange(L)[:, None])
    real = np.where(allowed, scores.real, -INF)
    top = real.max(axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)
    e = np.where(allowed, np.exp(np.where(allowed, scores, 0) - top), 0)
    total = e.sum(axis=-1, keepdims=True)
    weights = e / np.where(total == 0, 1, total)
    return np.einsum("...ls,...se->...le", weights, v)


def check_against(reference, ours, arrays, seed: int = 0) -> None:
    """``ours`` (Sparrow, on leaves made from ``arrays``) against ``reference`` (NumPy):
    the values, and each leaf's gradient of Σ out·u against ``vjp`` (the complex step)."""
    leaves = [leaf(a) for a in arrays]
    out = ours(*leaves)
    close(out, reference(*arrays))
    u = np.random.default_rng(seed).standard_normal(tuple(out.shape))
    (out * sp.tensor(u)).sum().backward()
    for got, want in zip(leaves, vjp(reference, arrays, u), strict=True):
        close(got.grad, want)


def _keep(shape, empty_row: int | None = None) -> np.ndarray:
    keep = RNG.random(shape) > 0.4
    keep[..., 0] = True
    if empty_row is not None:
        keep[..., empty_row, :] = False
    return keep


SDPA = {
    "plain": ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), {}),
    "scale": ((2, 4, 5), (2, 6, 5), (2, 6, 3), {"scale": 0.37}),
    "causal L=S": ((1, 2, 5, 3), (1, 2, 5, 3), (1, 2, 5, 4), {"causal": True}),
    "causal L<S": ((2, 4, 3), (2, 6, 3), (2, 6, 2), {"causal": True}),
    "bool mask": ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 2), {"keep": (4, 6)}),
    "bool mask, empty row": ((2, 4, 5), (2, 6, 5), (2, 6, 3), {"keep": (2, 4, 6), "empty": 2}),
    "float mask": ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 2), {"bias": (2, 3, 4, 6)}),
    "float mask, empty row": ((3, 5), (6, 5), (6, 4), {"bias": (3, 6), "empty": 0}),
}


@pytest.mark.parametrize("case", list(SDPA))
def test_sdpa_against_numpy(case: str) -> None:
    """Values and the q, k, v gradients, to 1e-10: the complex step of ``ref_attention``."""
    qs, ks, vs, spec = SDPA[case]
    keep = bias = None
    if "keep" in spec:
        keep = _keep(spec["keep"], spec.get("empty"))
        mask = sp.tensor(keep)
    if "bias" in spec:
        bias = np.where(_keep(spec["bias"], spec.get("empty")), randn(*spec["bias"]), -INF)
        mask = sp.tensor(bias)
    kw = {"scale": spec.get("scale"), "is_causal": spec.get("causal", False)}
    if keep is not None or bias is not None:
        kw["attn_mask"] = mask
    check_against(
        lambda q, k, v: ref_attention(q, k, v, keep, bias, kw["scale"], kw["is_causal"]),
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, **kw),
        [randn(*qs), randn(*ks), randn(*vs)],
    )


def test_fully_masked_row_gives_zeros_and_no_gradient() -> None:
    """The row of a query that sees nothing is 0, its q gradient 0, nothing nan."""
    q, k, v = leaf(randn(2, 3, 4)), leaf(randn(2, 5, 4)), leaf(randn(2, 5, 3))
    keep = _keep((3, 5), empty_row=1)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=sp.tensor(keep))
    out.sum().backward()
    assert np.all(out.data[:, 1] == 0) and np.all(q.grad.data[:, 1] == 0)
    assert all(np.isfinite(t.grad.data).all() for t in (q, k, v))


def test_enable_gqa_repeats_each_key_value_head_for_its_group() -> None:
    """k, v with 2 heads for 6 query heads: head h of q uses head h // 3 of k and v."""
    q, k, v = randn(1, 6, 4, 3), randn(1, 2, 5, 3), randn(1, 2, 5, 2)
    check_against(
        lambda q, k, v: ref_attention(q, np.repeat(k, 3, axis=1), np.repeat(v, 3, axis=1)),
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True),
        [q, k, v],
    )


def test_safe_softmax_against_numpy() -> None:
    """Rows of −∞ give zeros; the rest the softmax; the backward by the complex step."""
    x = randn(3, 4, 5)
    x[1, 2] = -INF
    x[0, 0, :2] = -INF

    def ref(x):
        keep = np.isfinite(x.real)
        top = np.where(keep, x.real, -INF).max(-1, keepdims=True)
        e = np.where(keep, np.exp(np.where(keep, x, 0) - np.where(np.isfinite(top), top, 0)), 0)
        total = e.sum(-1, keepdims=True)
        return e / np.where(total == 0, 1, total)

    out = sp.safe_softmax(sp.tensor(x))
    assert np.all(out.data[1, 2] == 0)
    close(out, ref(x))
    u = randn(3, 4, 5)
    t = sp.tensor(x, requires_grad=True)
    (sp.safe_softmax(t) * sp.tensor(u)).sum().backward()
    finite = np.where(np.isfinite(x), x, -1e300)  # the complex step needs finite inputs
    (want,) = vjp(ref, [finite], u)
    close(np.where(np.isfinite(x), t.grad.data, 0), np.where(np.isfinite(x), want, 0))
    assert np.all(t.grad.data[1, 2] == 0)


def test_split_and_merge_heads_cut_the_features_not_the_positions() -> None:
    x = np.arange(2 * 3 * 8, dtype=np.float64).reshape(2, 3, 8)
    heads = sp.split_heads(sp.tensor(x), 4)
    assert tuple(heads.shape) == (2, 4, 3, 2)
    np.testing.assert_array_equal(heads.data, x.reshape(2, 3, 4, 2).transpose(0, 2, 1, 3))
    np.testing.assert_array_equal(sp.merge_heads(heads).data, x)


def test_causal_mask_and_cache_mask() -> None:
    """causal_mask(L, S, d)[i, j] = j ≤ i + d; the cache's mask for the L newest of S keys
    is aligned at the bottom right (d = S − L)."""
    for L, S, d in [(3, 3, 0), (2, 5, 3), (4, 6, -1)]:
        want = np.arange(S)[None, :] <= np.arange(L)[:, None] + d
        np.testing.assert_array_equal(sp.causal_mask(L, S, d).data, want)
    cache = sp.KVCache()
    assert len(cache) == 0
    for new in (3, 2, 1):
        k = sp.tensor(randn(1, 2, new, 4))
        keys, values = cache.update(k, k * 2)
        s = len(cache)
        assert tuple(keys.shape) == tuple(values.shape) == (1, 2, s, 4)
        np.testing.assert_array_equal(keys.data[..., s - new :, :], k.data)
        np.testing.assert_array_equal(values.data[..., s - new :, :], 2 * k.data)
        want = np.arange(s)[None, :] <= np.arange(new)[:, None] + s - new
        np.testing.assert_array_equal(cache.mask(new).data, want)
    cache.reset()
    assert len(cache) == 0


# -- the modules' backward against their own forward (central difference) -----------------


def central_check(forward, inputs: list[np.ndarray], module, eps: float = 1e-6) -> None:
    """The gradient of Σ forward(*inputs)·u with respect to every input and every parameter
    of ``module``, against the central difference of the same forward (1e-6)."""
    leaves = [leaf(a) for a in inputs]
    out = forward(*leaves)
    u = np.random.default_rng(0).standard_normal(tuple(out.shape))
    (out * sp.tensor(u)).sum().backward()

    def loss() -> float:
        with sp.no_grad():
            return float(np.sum(forward(*leaves).data * u))

    arrays = [(t.data, t.grad.data) for t in leaves]
    arrays += [(p.data, p.grad.data) for p in module.parameters()]
    for data, grad in arrays:
        numeric = np.zeros_like(data)
        for i in range(data.size):
            keep = data.flat[i]
            data.flat[i] = keep + eps
            up = loss()
            data.flat[i] = keep - eps
            numeric.flat[i] = (up - loss()) / (2 * eps)
            data.flat[i] = keep
        np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-7)


def _nonzero_biases(module) -> None:
    for name, p in module.named_parameters():
        if name.endswith("bias"):
            p.data[...] = RNG.uniform(-0.5, 0.5, p.shape)


def test_multihead_attention_gradcheck() -> None:
    """Cross-attention with a float mask and a boolean key_padding_mask, per-head weights
    returned: both outputs feed the loss."""
    sp.manual_seed(0)
    mha = sp.nn.MultiheadAttention(4, 2, batch_first=True, dtype=sp.float64)
    _nonzero_biases(mha)
    bias = np.where(RNG.random((3, 4)) < 0.3, -INF, randn(3, 4))
    bias[:, 0] = 0.1
    padding = sp.tensor(np.array([[False, False, True, False], [False, True, False, False]]))

    def forward(q, k, v):
        out, w = mha(
            q,
            k,
            v,
            key_padding_mask=padding,
            attn_mask=sp.tensor(bias),
            average_attn_weights=False,
        )
        return out.sum(-1) + w.sum((1, 3))

    central_check(forward, [randn(2, 3, 4), randn(2, 4, 4), randn(2, 4, 4)], mha)


@pytest.mark.parametrize("norm_first", [True, False], ids=["pre-norm", "post-norm"])
def test_encoder_layer_gradcheck(norm_first: bool) -> None:
    sp.manual_seed(1)
    layer = sp.nn.TransformerEncoderLayer(
        4, 2, 6, 0.0, "gelu", batch_first=True, norm_first=norm_first, dtype=sp.float64
    )
    _nonzero_biases(layer)
    mask = sp.nn.generate_square_subsequent_mask(3, dtype=sp.float64)
    central_check(lambda x: layer(x, src_mask=mask, is_causal=True), [randn(2, 3, 4)], layer)


def test_gpt_gradcheck() -> None:
    """A one-layer GPT, a cross-entropy loss: every parameter, the embeddings included."""
    sp.manual_seed(2)
    gpt = sp.GPT(5, 4, n_layer=1, n_head=2, n_embd=4, dtype=sp.float64)
    _nonzero_biases(gpt)
    idx, targets = sp.tensor(RNG.integers(0, 5, (2, 4))), sp.tensor(RNG.integers(0, 5, 8))
    central_check(lambda: F.cross_entropy(gpt(idx).reshape(-1, 5), targets), [], gpt)


# -- errors ---------------------------------------------------------------------------------


def t(*shape, dtype=sp.float64):
    return sp.ones(*shape, dtype=dtype)


def _tiny_gpt() -> sp.GPT:
    return sp.GPT(5, 4, n_layer=1, n_head=2, n_embd=4, dtype=sp.float64)


def _gpt_past_its_cache():
    gpt = _tiny_gpt()
    caches = gpt.new_caches()
    gpt(sp.tensor(np.zeros((1, 3), dtype=np.int64)), caches)
    gpt(sp.tensor(np.zeros((1, 2), dtype=np.int64)), caches)


SDPA_F = F.scaled_dot_product_attention
ERRORS = [
    # call, exception class, what the message must say
    (lambda: SDPA_F(t(2, 3, 4), t(2, 5, 3), t(2, 5, 4)), RuntimeError, r"\(4\).*\(3\)"),
    (lambda: SDPA_F(t(2, 3, 4), t(2, 5, 4), t(2, 6, 4)), RuntimeError, "5 positions.*6"),
    (lambda: SDPA_F(t(4), t(2, 4), t(2, 4)), RuntimeError, "query.*2 dims"),
    (lambda: SDPA_F(np.ones((2, 3)), t(2, 3), t(2, 3)), TypeError, "query.*Tensor"),
    (lambda: SDPA_F(t(2, 3), t(2, 3), t(2, 3), attn_mask=np.ones((2, 2))), TypeError, "Tensor"),
    (
        lambda: SDPA_F(t(2, 3), t(2, 3), t(2, 3), attn_mask=t(2, 2), is_causal=True),
        RuntimeError,
        "attn_mask.*is_causal",
    ),
    (lambda: SDPA_F(t(2, 3), t(2, 3), t(2, 3), dropout_p=1.5), ValueError, "1.5"),
    (
        lambda: SDPA_F(t(1, 4, 2, 3), t(1, 3, 2, 3), t(1, 3, 2, 3), enable_gqa=True),
        RuntimeError,
        "4 query heads.*3",
    ),
    (lambda: sp.safe_softmax(np.ones(3)), TypeError, "Tensor"),
    (lambda: sp.split_heads(t(1, 2, 6), 4), ValueError, "6.*4"),
    (lambda: sp.nn.MultiheadAttention(6, 4), AssertionError, "divisible"),
    (lambda: sp.nn.MultiheadAttention(0, 1), ValueError, "embed_dim=0"),
    (lambda: sp.nn.MultiheadAttention(4, 2, add_bias_kv=True), NotImplementedError, "add_bias"),
    (lambda: sp.nn.MultiheadAttention(4, 2, kdim=3), NotImplementedError, "kdim"),
    (
        lambda: sp.nn.MultiheadAttention(4, 2, dtype=sp.float64)(
            t(3, 1, 5), t(3, 1, 5), t(3, 1, 5)
        ),
        AssertionError,
        "4.*5",
    ),
    (
        lambda: sp.nn.MultiheadAttention(4, 2, dtype=sp.float64)(
            t(3, 1, 4), t(3, 1, 4), t(3, 1, 4), attn_mask=t(3, 2)
        ),
        RuntimeError,
        r"\(3, 2\).*\(3, 3\)",
    ),
    (
        lambda: sp.nn.MultiheadAttention(4, 2, dtype=sp.float64)(
            t(3, 2, 4), t(3, 2, 4), t(3, 2, 4), key_padding_mask=t(2, 2, dtype=sp.bool)
        ),
        AssertionError,
        r"\(2, 3\).*\(2, 2\)",
    ),
    (
        lambda: sp.nn.MultiheadAttention(4, 2, dtype=sp.float64)(
            t(3, 1, 4), t(3, 1, 4), t(3, 1, 4), is_causal=True
        ),
        RuntimeError,
        "attn_mask",
    ),
    (
        lambda: sp.nn.MultiheadAttention(4, 2, dtype=sp.float64)(
            t(3, 1, 4), t(3, 1, 4), t(3, 1, 4), attn_mask=np.zeros((3, 3))
        ),
        TypeError,
        "Tensor",
    ),
    (lambda: sp.nn.TransformerEncoderLayer(4, 2, activation="tanh"), RuntimeError, "tanh"),
    (
        lambda: sp.tiled_attention(*(t(2, 3).requires_grad_(),) * 3),
        RuntimeError,
        "requires grad.*no_grad",
    ),
    (lambda: sp.tiled_attention(t(2, 3), t(2, 3), t(2, 3), tile_size=0), ValueError, "tile_size"),
    (lambda: sp.tiled_attention(np.ones((2, 3)), t(2, 3), t(2, 3)), TypeError, "query"),
    (
        lambda: _tiny_gpt()(sp.tensor(np.zeros((1, 5), dtype=np.int64))),
        ValueError,
        "5 positions.*block_size is 4",
    ),
    (_gpt_past_its_cache, ValueError, "5 positions.*block_size is 4"),
    (lambda: sp.next_token_probs(t(2, 5), temperature=0.0), ValueError, "temperature.*0.0"),
    (lambda: sp.next_token_probs(t(2, 5), temperature=-1.0), ValueError, "temperature"),
    (lambda: sp.next_token_probs(t(2, 5), top_k=0), ValueError, "top_k.*0"),
]


@pytest.mark.parametrize("call, error, says", ERRORS, ids=[e[2] for e in ERRORS])
def test_errors(call, error, says) -> None:
    with pytest.raises(error, match=says):
        call()


def test_tiled_attention_under_no_grad_takes_inputs_that_need_grad() -> None:
    """Refused only where a graph would be recorded: under no_grad it runs."""
    q = leaf(randn(3, 4))
    with sp.no_grad():
        out = sp.tiled_attention(q, q, q, tile_size=2)
    close(out, ref_attention(q.data, q.data, q.data))
    assert not out.requires_grad


# -- modules ---------------------------------------------------------------------------------


def test_module_reprs() -> None:
    """Sparrow's MultiheadAttention prints its sizes (PyTorch's prints only its out_proj,
    a NonDynamicallyQuantizableLinear); the layer lists PyTorch's submodules in its order."""
    mha = sp.nn.MultiheadAttention(8, 2, batch_first=True)
    assert repr(mha) == (
        "MultiheadAttention(\n"
        "  embed_dim=8, num_heads=2, batch_first=True\n"
        "  (out_proj): Linear(in_features=8, out_features=8, bias=True)\n"
        ")"
    )
    layer = repr(sp.nn.TransformerEncoderLayer(8, 2, 16))
    names = ["self_attn", "linear1", "dropout", "linear2", "norm1", "norm2", "dropout1"]
    positions = [layer.index(f"({name}): ") for name in [*names, "dropout2"]]
    assert positions == sorted(positions)
    assert "(linear1): Linear(in_features=8, out_features=16, bias=True)" in layer
    assert "(dropout): Dropout(p=0.1, inplace=False)" in layer


MHA_KEYS = ["in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"]
LAYER_KEYS = [f"self_attn.{k}" for k in MHA_KEYS] + [
    f"{m}.{p}" for m in ("linear1", "linear2", "norm1", "norm2") for p in ("weight", "bias")
]


def test_state_dict_keys_and_shapes_are_pytorchs() -> None:
    """The names PyTorch 2.13 gives (tests/test_torch_attention.py compares with PyTorch)."""
    mha = sp.nn.MultiheadAttention(8, 2)
    assert [(k, tuple(v.shape)) for k, v in mha.state_dict().items()] == [
        ("in_proj_weight", (24, 8)),
        ("in_proj_bias", (24,)),
        ("out_proj.weight", (8, 8)),
        ("out_proj.bias", (8,)),
    ]
    assert list(sp.nn.MultiheadAttention(8, 2, bias=False).state_dict()) == [
        "in_proj_weight",
        "out_proj.weight",
    ]
    assert list(sp.nn.TransformerEncoderLayer(8, 2, 16).state_dict()) == LAYER_KEYS
    stack = sp.nn.TransformerEncoder(sp.nn.TransformerEncoderLayer(8, 2, 16), 2, sp.nn.LayerNorm(8))
    assert list(stack.state_dict()) == [
        *(f"layers.{i}.{k}" for i in (0, 1) for k in LAYER_KEYS),
        "norm.weight",
        "norm.bias",
    ]
    gpt = sp.GPT(11, 8, n_layer=2, n_head=2, n_embd=8)
    assert list(gpt.state_dict()) == [
        "token_embedding.weight",
        "position_embedding.weight",
        *(f"blocks.{i}.{k}" for i in (0, 1) for k in LAYER_KEYS),
        "ln_f.weight",
        "ln_f.bias",
        "lm_head.weight",
        "lm_head.bias",
    ]


def test_parameters_and_initialisation() -> None:
    """MultiheadAttention: Xavier-uniform in_proj (bound √(6 / (E + 3E))), zero biases;
    GPT: N(0, 0.02) for every matrix, zero biases, LayerNorm's ones."""
    sp.manual_seed(0)
    mha = sp.nn.MultiheadAttention(64, 4)
    bound = math.sqrt(6 / (64 + 3 * 64))
    w = mha.in_proj_weight.data
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.97 * bound
    assert not mha.in_proj_bias.data.any() and not mha.out_proj.bias.data.any()
    assert sum(p.data.size for p in mha.parameters()) == 4 * 64 * 64 + 4 * 64
    gpt = sp.GPT(50, 32, n_layer=2, n_head=4, n_embd=32)
    count = 50 * 32 + 32 * 32 + 2 * (12 * 32 * 32 + 13 * 32) + 2 * 32 + 32 * 50 + 50
    assert sum(p.data.size for p in gpt.parameters()) == count
    for name, p in gpt.named_parameters():
        if name.endswith("bias"):
            assert not p.data.any(), name
        elif p.ndim == 2:
            assert abs(p.data.std() - 0.02) < 0.003, name
        else:
            np.testing.assert_array_equal(p.data, 1)  # LayerNorm weights


def test_to_float32_and_back() -> None:
    """``.to(float32)`` casts every parameter; the forward then runs in float32 and agrees
    with float64's to float32's precision."""
    sp.manual_seed(3)
    gpt = sp.GPT(7, 6, n_layer=1, n_head=2, n_embd=8, dtype=sp.float64)
    idx = sp.tensor(RNG.integers(0, 7, (2, 6)))
    with sp.no_grad():
        wide = gpt(idx).data
        assert gpt.to(sp.float32) is gpt
        assert {p.dtype for p in gpt.parameters()} == {sp.float32}
        narrow = gpt(idx)
    assert narrow.dtype == sp.float32
    np.testing.assert_allclose(narrow.data, wide, rtol=1e-4, atol=1e-5)
    mha = sp.nn.MultiheadAttention(4, 2).to(sp.float64)
    assert {p.dtype for p in mha.parameters()} == {sp.float64}


# -- the key/value cache ----------------------------------------------------------------------


def _gpt(seed: int = 4, **kw) -> sp.GPT:
    sp.manual_seed(seed)
    gpt = sp.GPT(9, 12, **{"n_layer": 2, "n_head": 2, "n_embd": 8, "dtype": sp.float64, **kw})
    _nonzero_biases(gpt)
    return gpt


@pytest.mark.parametrize("chunks", [(4, 1, 1, 1, 1), (1,) * 6, (3, 2, 4, 1), (12,)], ids=str)
def test_cached_logits_equal_the_full_recompute(chunks) -> None:
    """The tokens fed in ``chunks`` (a prompt, then one at a time; or uneven pieces) through
    the caches give, at every position, the logits of one pass over the whole sequence."""
    gpt = _gpt()
    idx = RNG.integers(0, 9, (2, sum(chunks)))
    with sp.no_grad():
        full = gpt(sp.tensor(idx)).data
        caches, start, pieces = gpt.new_caches(), 0, []
        for n in chunks:
            pieces.append(gpt(sp.tensor(idx[:, start : start + n]), caches).data)
            start += n
            assert all(len(c) == start for c in caches)
    close(np.concatenate(pieces, axis=1), full, 1e-12)


def test_generate_with_and_without_the_cache_draw_the_same_tokens() -> None:
    """The same generator, seeded alike: token for token, while prompt + new ≤ block_size
    (after that the two keep different contexts: see sampling.py)."""
    gpt = _gpt(n_layer=1)
    prompt = sp.tensor(RNG.integers(0, 9, (3, 4)))
    runs = []
    for use_cache in (True, False):
        g = sp.Generator().manual_seed(5)
        runs.append(sp.generate(gpt, prompt, 8, 1.3, 4, use_cache=use_cache, generator=g))
    assert tuple(runs[0].shape) == (3, 12)
    np.testing.assert_array_equal(runs[0].data, runs[1].data)
    np.testing.assert_array_equal(runs[0].data[:, :4], prompt.data)
    assert len(np.unique(runs[0].data[:, 4:])) > 1  # not a constant stream
    assert gpt.training  # generate put the model back in training mode


def test_generate_past_the_block_keeps_block_size_positions() -> None:
    """Beyond block_size the cache starts again from the last half block: the run goes on,
    every token in the vocabulary, and the length is prompt + new."""
    gpt = _gpt(n_layer=1)
    out = sp.generate(
        gpt, sp.tensor(np.zeros((1, 3), np.int64)), 20, generator=sp.Generator().manual_seed(7)
    )
    assert tuple(out.shape) == (1, 23) and out.data.min() >= 0 and out.data.max() < 9


# -- attention in tiles -------------------------------------------------------------------


TILED = [
    ((1, 50, 8), (1, 50, 8), 7, False),
    ((2, 3, 50, 8), (2, 3, 50, 5), 7, True),
    ((2, 3, 33, 4), (2, 3, 33, 6), 1, True),
    ((2, 40, 8), (2, 70, 3), 16, False),
    ((2, 40, 8), (2, 70, 3), 64, True),
    ((3, 20, 8), (3, 20, 8), 128, True),
]


@pytest.mark.parametrize("qshape, vshape, tile, causal", TILED, ids=str)
def test_tiled_attention_equals_the_plain_one(qshape, vshape, tile, causal) -> None:
    """To 1e-12 in float64, against the NumPy reference and Sparrow's SDPA (top-left
    causal alignment when L ≠ S, as ``is_causal``), a scale given in one case."""
    q = randn(*qshape)
    k, v = randn(*vshape[:-1], qshape[-1]), randn(*vshape)
    scale = 0.5 if tile == 16 else None
    with sp.no_grad():
        out = sp.tiled_attention(
            sp.tensor(q), sp.tensor(k), sp.tensor(v), causal, scale, tile_size=tile
        )
        plain = SDPA_F(sp.tensor(q), sp.tensor(k), sp.tensor(v), is_causal=causal, scale=scale)
    close(out, ref_attention(q, k, v, scale=scale, causal=causal), 1e-12)
    close(out, plain.data, 1e-12)


def test_online_step_rescales_the_running_sum() -> None:
    """Two tiles folded in, the second raising the maximum: (m, l, acc) equal the
    one-shot max, Σ exp(s − m) and Σ exp(s − m) v; ``finish`` gives the softmax mean."""
    from solutions.ch09_attention.tiled import finish, online_step

    s, v = randn(3, 6), randn(6, 2)
    s[:, 4] += 5  # the maximum lies in the second tile
    state = (np.full((3, 1), -INF), np.zeros((3, 1)), np.zeros((3, 2)))
    state = online_step(online_step(state, s[:, :3], v[:3]), s[:, 3:], v[3:])
    m = s.max(-1, keepdims=True)
    close(state[0], m, 1e-12)
    close(state[1], np.exp(s - m).sum(-1, keepdims=True), 1e-12)
    close(state[2], np.exp(s - m) @ v, 1e-12)
    weights = np.exp(s - m) / np.exp(s - m).sum(-1, keepdims=True)
    close(finish(state), weights @ v, 1e-12)
    empty = (np.full((1, 1), -INF), np.zeros((1, 1)), np.zeros((1, 2)))
    empty = online_step(empty, np.full((1, 3), -INF), v[:3])  # nothing seen yet: no nan
    assert empty[0][0, 0] == -INF and empty[1][0, 0] == 0
    np.testing.assert_array_equal(finish(empty), np.zeros((1, 2)))


def _peak(fn) -> int:
    """The peak of memory traced while ``fn`` runs, in bytes (NumPy's arrays included)."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_tiled_attention_peak_memory_is_a_small_fraction_of_the_plain_one() -> None:
    """T = 1024, E = 16, one head, under no_grad: the plain path holds (T, T) float64
    matrices (8 MiB each), the tiled one a (128, 128) tile and O(T) state. Measured here
    about 1/45; asserted below 1/8, a margin for allocators and Python."""
    q, k, v = (sp.tensor(randn(1, 1, 1024, 16)) for _ in range(3))
    with sp.no_grad():
        plain = _peak(lambda: SDPA_F(q, k, v, is_causal=True))
        tiled = _peak(lambda: sp.tiled_attention(q, k, v, is_causal=True))
    assert plain > 1024 * 1024 * 8  # at least one (T, T) float64 matrix
    assert tiled < plain / 8, (tiled, plain)


# -- on a device ----------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
def test_sdpa_forward_and_backward_on_the_device_equal_the_cpus(device: str) -> None:
    """float64 to 1e-10 (float32 to 1e-5), relative to each array's largest entry; causal,
    a boolean and a float mask; nothing copied back to the host."""
    for dtype, tol in ((np.float64, 1e-10), (np.float32, 1e-5)):
        rng = np.random.default_rng(7)
        arrays = [rng.standard_normal(s).astype(dtype) for s in [(2, 3, 6, 4), (2, 3, 9, 4)]]
        arrays.append(rng.standard_normal((2, 3, 9, 5)).astype(dtype))
        keep = rng.random((6, 9)) > 0.3
        bias = np.where(keep, rng.standard_normal((6, 9)), -INF).astype(dtype)
        results = []
        for where in ("cpu", device):
            q, k, v = (sp.tensor(a).to(where).requires_grad_() for a in arrays)
            masks = [sp.tensor(keep).to(where), sp.tensor(bias).to(where)]
            with copies(where) if where != "cpu" else contextlib.nullcontext() as seen:
                out = SDPA_F(q, k, v, attn_mask=masks[0]) + SDPA_F(q, k, v, attn_mask=masks[1])
                out = out + SDPA_F(q, k[..., :6, :], v[..., :6, :], is_causal=True)
                (out * out).sum().backward()
            if where != "cpu":
                assert seen.to_host == 0, seen
                kinds = {type(a.data) for a in (out, q.grad, k.grad, v.grad)}
                assert kinds == {array_type(device)}, kinds
            results.append(
                [a.data if where == "cpu" else host(a.data) for a in (out, q.grad, k.grad, v.grad)]
            )
        for ours, cpus in zip(results[1], results[0], strict=True):
            np.testing.assert_allclose(ours, cpus, rtol=tol, atol=tol * np.abs(cpus).max())


def gpt_steps(device: str, steps: int = 2):
    """``steps`` AdamW steps of a tiny GPT (float64, cross-entropy) on ``device`` from the
    same weights and batch: the losses, the model, the optimizer, the copies made."""
    sp.manual_seed(0)
    gpt = sp.GPT(11, 8, n_layer=1, n_head=2, n_embd=8, dtype=sp.float64).to(device)
    opt = sp.optim.AdamW(gpt.parameters(), lr=1e-2)
    rng = np.random.default_rng(0)
    idx = sp.tensor(rng.integers(0, 11, (4, 8))).to(device)
    y = sp.tensor(rng.integers(0, 11, 32)).to(device)
    losses = []
    with copies(device) if device != "cpu" else contextlib.nullcontext() as seen:
        for _ in range(steps):
            opt.zero_grad()
            loss = F.cross_entropy(gpt(idx).reshape(-1, 11), y)
            loss.backward()
            opt.step()
            losses.append(loss)
    return losses, gpt, opt, seen


@pytest.mark.parametrize("device", DEVICES)
def test_gpt_training_step_on_the_device_equals_the_cpus(device: str) -> None:
    cpu, cpu_model, *_ = gpt_steps("cpu")
    dev, dev_model, opt, _ = gpt_steps(device)
    cpu = [float(t.data) for t in cpu]
    assert cpu[-1] < cpu[0]
    np.testing.assert_allclose([float(host(t.data)) for t in dev], cpu, rtol=1e-10, atol=0)
    for p, q in zip(dev_model.parameters(), cpu_model.parameters(), strict=True):
        np.testing.assert_allclose(host(p.data), q.data, rtol=1e-9, atol=1e-10)
    kinds = {type(t.data) for t in dev} | {type(p.data) for p in dev_model.parameters()}
    kinds |= {type(p.grad.data) for p in dev_model.parameters()}
    state = [getattr(v, "data", v) for s in opt.state.values() for v in s.values()]
    kinds |= {type(a) for a in state if hasattr(a, "shape")}
    assert kinds == {array_type(device)}, kinds


def _known_reads(device: str, steps: int = 2) -> int:
    """The copies back that chapter 5's pieces make in ``steps`` GPT steps, measured alone:
    ``cross_entropy`` forward and backward (its target check and count) and the two
    ``Embedding`` lookups of each forward (their index range check: min and max)."""
    gpt = sp.GPT(11, 8, n_layer=1, n_head=2, n_embd=8, dtype=sp.float64).to(device)
    logits = sp.tensor(np.zeros((32, 11))).to(device).requires_grad_()
    y = sp.tensor(np.arange(32) % 11).to(device)
    idx = sp.tensor(np.zeros((4, 8), np.int64)).to(device)
    positions = sp.arange(8, device=device)
    with copies(device) as alone:
        for _ in range(steps):
            F.cross_entropy(logits, y).backward()
            gpt.token_embedding(idx), gpt.position_embedding(positions)
    return alone.to_host


@pytest.mark.parametrize("device", DEVICES)
def test_gpt_training_step_adds_no_copy_back(device: str) -> None:
    """Attention, the blocks, LayerNorm, GELU and AdamW add no copy back: the copies of
    two steps are exactly those of chapter 5's cross_entropy and Embedding alone."""
    *_, seen = gpt_steps(device)
    assert seen.to_host == _known_reads(device), seen


GPT_HIDDEN_COPIES = (
    "known: chapter 5's Embedding checks its indices' range on the host (`index.min() < 0 "
    "or index.max() >= rows`, ch05_nn/nn/layers.py _indices: two reads per lookup, four per "
    "GPT forward) and cross_entropy reads twice per call (tests/test_gpu.py HIDDEN_COPIES); "
    "strict: passes once fixed"
)


@pytest.mark.xfail(strict=True, reason=GPT_HIDDEN_COPIES)
@pytest.mark.parametrize("device", DEVICES)
def test_gpt_training_step_makes_no_copy_back(device: str) -> None:
    *_, seen = gpt_steps(device)
    assert seen.to_host == 0, seen


@pytest.mark.parametrize("device", DEVICES)
def test_generate_with_the_cache_on_the_device(device: str) -> None:
    """The CPU's tokens, drawn from the same generator; the result on the device. Host
    reads: sampling needs one per token — ``multinomial`` draws on the host (chapter 5's
    generator is a NumPy stream), so each step's probabilities come back — and each forward
    adds the Embedding range check's reads (``_known_reads``), nothing else."""
    gpt = _gpt(n_layer=1)
    prompt = RNG.integers(0, 9, (2, 3))
    runs = []
    for where in ("cpu", device):
        gpt.to(where)
        g = sp.Generator().manual_seed(6)
        with copies(where) if where != "cpu" else contextlib.nullcontext() as seen:
            runs.append(sp.generate(gpt, sp.tensor(prompt).to(where), 6, 0.9, 5, generator=g))
    assert isinstance(runs[1].data, array_type(device))
    np.testing.assert_array_equal(host(runs[1].data), runs[0].data)
    idx = sp.tensor(np.zeros((2, 3), np.int64)).to(device)
    with copies(device) as lookups:
        gpt.token_embedding(idx), gpt.position_embedding(sp.arange(3, device=device))
    assert seen.to_host == 6 * (1 + lookups.to_host), seen


def test_float_mask_of_another_dtype_is_refused_with_pytorchs_words():
    q = sp.ones(1, 2, 4, dtype=sp.float32)
    mask = sp.zeros(2, 2, dtype=sp.float64)
    with pytest.raises(RuntimeError, match="attn_mask dtype to be bool or float or to match"):
        sp.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=mask)


def test_kv_cache_refuses_other_masks():
    mha = sp.nn.MultiheadAttention(4, 2, batch_first=True)
    x = sp.ones(1, 3, 4)
    hidden = sp.ones(3, 3, dtype=sp.bool)
    with pytest.raises(ValueError, match="kv_cache is for causal self-attention"):
        mha(x, x, x, attn_mask=hidden, kv_cache=sp.KVCache())

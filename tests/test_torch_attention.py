"""Chapter 9 against PyTorch (issue 31, item 2): the reference's attention, its modules and
its GPT, in float64, dropout off, with PyTorch as the oracle.

What is compared, each to 1e-10 (relative and absolute), values and the gradient of every
input and every parameter (of Σ out·u, u random and the same for both):

- ``F.scaled_dot_product_attention``: no mask, ``is_causal`` (L = S and L ≠ S: the top-left
  triangle), a boolean and a float ``attn_mask`` broadcasting as (L, S) and as
  (B, h, L, S), L ≠ S, Ev ≠ E, a given ``scale``, ``enable_gqa`` (fewer key/value heads);
  a fully masked row (boolean and float): zeros, in the values and in every gradient; a mask
  together with ``is_causal``: refused with PyTorch's class and gist — by PyTorch's math
  backend, the reference one (its default CPU dispatch picks a flash kernel that takes both
  and applies both: tested too, so a change in PyTorch shows here);
- ``nn.MultiheadAttention`` with PyTorch's parameters loaded (and Sparrow's loaded into
  PyTorch: keys, shapes, values): ``batch_first`` True and False, unbatched input,
  ``need_weights`` with ``average_attn_weights`` True and False, ``key_padding_mask``
  (boolean and float), ``attn_mask`` 2-D and 3-D (B·h, L, S), ``bias=False``,
  cross-attention (query ≠ key ≠ value), the tuple return; ``is_causal`` without a mask
  refused as PyTorch refuses it;
- ``nn.TransformerEncoderLayer`` (``norm_first`` True/False, ``activation`` "gelu"/"relu",
  ``batch_first``) with ``src_mask`` + ``is_causal=True`` and with
  ``src_key_padding_mask``; ``nn.TransformerEncoder``; ``generate_square_subsequent_mask``;
- sampling: ``next_token_probs`` (temperature and top-k, ties at the k-th value kept)
  against ``torch.topk`` + masking + softmax;
- ``sp.GPT`` against a PyTorch twin written here (two ``nn.Embedding``, pre-norm GELU
  ``TransformerEncoderLayer`` blocks, ``LayerNorm``, ``Linear``) with the same weights: the
  logits, and every parameter's gradient of a cross-entropy loss;
- second derivatives (``create_graph=True``) of SDPA, causal and with an empty row, against
  ``torch.autograd.grad`` on PyTorch's math backend.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from solutions import ch09_attention as sp  # noqa: E402

pytestmark = pytest.mark.ch09

F, TF = sp.nn.functional, torch.nn.functional
TOL = 1e-10
INF = float("inf")


@pytest.fixture(autouse=True)
def _one_thread(torch_one_thread):
    """Every test here with PyTorch on one thread (conftest's ``torch_one_thread``)."""


def _np(t) -> np.ndarray:
    if isinstance(t, np.ndarray):
        return t
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.data)


def _close(a, b, tol: float = TOL) -> None:
    a, b = _np(a), _np(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def _pair(array: np.ndarray, grad: bool = True) -> tuple:
    """The same values as a Sparrow and a PyTorch tensor (leaves needing gradients if
    ``grad``; a boolean array stays boolean)."""
    return (
        sp.tensor(array.copy(), requires_grad=grad),
        torch.tensor(array.copy(), requires_grad=grad),
    )


def _randn(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape)


def _check(ours, theirs, leaves_ours, leaves_theirs, seed: int = 0, extra=None) -> None:
    """The outputs equal, and the gradients of Σ out·u (plus ``extra``'s pair of scalars,
    Sparrow's and PyTorch's, when given) with respect to every leaf."""
    _close(ours, theirs)
    u = np.random.default_rng(seed).standard_normal(tuple(theirs.shape))
    loss, tloss = (ours * sp.tensor(u)).sum(), (theirs * torch.tensor(u)).sum()
    if extra is not None:
        loss, tloss = loss + extra[0], tloss + extra[1]
    loss.backward()
    tloss.backward()
    for a, b in zip(leaves_ours, leaves_theirs, strict=True):
        assert a.grad is not None and b.grad is not None, "no gradient"
        _close(a.grad, b.grad)


def _check_modules(ours, theirs) -> None:
    """Every parameter's gradient, matched by name (the same names on both sides)."""
    theirs_by_name = dict(theirs.named_parameters())
    names = [name for name, _ in ours.named_parameters()]
    assert names == list(theirs_by_name), (names, list(theirs_by_name))
    for name, p in ours.named_parameters():
        assert p.grad is not None, name
        _close(p.grad, theirs_by_name[name].grad)


def _load_theirs(ours, theirs) -> None:
    """PyTorch → Sparrow: PyTorch's state_dict (as NumPy arrays) into Sparrow's module."""
    ours.load_state_dict({k: v.detach().numpy().copy() for k, v in theirs.state_dict().items()})


# -- F.scaled_dot_product_attention ---------------------------------------------------------

B, H, L, S, E, EV = 2, 3, 4, 6, 5, 7


def _masks(rng: np.random.Generator, shape: tuple) -> dict:
    """A boolean mask (every row keeps key 0: no empty row) and a float mask with −∞ where
    the boolean one hides and small biases elsewhere."""
    keep = rng.random(shape) > 0.4
    keep[..., 0] = True
    bias = np.where(keep, rng.standard_normal(shape) * 0.5, -INF)
    return {"bool": keep, "float": bias}


SDPA_CASES = {
    "plain": {},
    "is_causal L=S": {"is_causal": True, "square": True},
    "is_causal L<S": {"is_causal": True},
    "scale=0.3": {"scale": 0.3},
    "bool (L, S)": {"mask": ("bool", (L, S))},
    "bool (B, h, L, S)": {"mask": ("bool", (B, H, L, S))},
    "bool (B, 1, 1, S)": {"mask": ("bool", (B, 1, 1, S))},
    "float (L, S)": {"mask": ("float", (L, S))},
    "float (B, h, L, S) scale": {"mask": ("float", (B, H, L, S)), "scale": 1.7},
    "enable_gqa": {"gqa": 1},
    "enable_gqa causal": {"gqa": 1, "is_causal": True, "square": True},
}


@pytest.mark.parametrize("case", list(SDPA_CASES))
def test_sdpa_values_and_gradients(case: str) -> None:
    spec = SDPA_CASES[case]
    rng = np.random.default_rng(len(case))
    s = L if spec.get("square") else S
    h_kv = spec.get("gqa", H)
    q, tq = _pair(_randn(rng, B, H, L, E))
    k, tk = _pair(_randn(rng, B, h_kv, s, E))
    v, tv = _pair(_randn(rng, B, h_kv, s, EV))
    kw = {"is_causal": spec.get("is_causal", False), "scale": spec.get("scale")}
    ours_kw, theirs_kw = dict(kw), dict(kw)
    if "mask" in spec:
        kind, shape = spec["mask"]
        mask = _masks(rng, shape)[kind]
        ours_kw["attn_mask"], theirs_kw["attn_mask"] = _pair(mask, grad=False)
    if "gqa" in spec:
        ours_kw["enable_gqa"] = theirs_kw["enable_gqa"] = True
    out = F.scaled_dot_product_attention(q, k, v, **ours_kw)
    expected = TF.scaled_dot_product_attention(tq, tk, tv, **theirs_kw)
    assert tuple(out.shape) == (B, H, L, EV)
    _check(out, expected, (q, k, v), (tq, tk, tv))


def test_sdpa_three_dimensional_inputs() -> None:
    """No head axis: (B, L, E) with (B, S, E), as PyTorch takes any leading axes."""
    rng = np.random.default_rng(3)
    q, tq = _pair(_randn(rng, 2, L, E))
    k, tk = _pair(_randn(rng, 2, S, E))
    v, tv = _pair(_randn(rng, 2, S, EV))
    _check(
        F.scaled_dot_product_attention(q, k, v),
        TF.scaled_dot_product_attention(tq, tk, tv),
        (q, k, v),
        (tq, tk, tv),
    )


@pytest.mark.parametrize("kind", ["bool", "float"])
def test_sdpa_fully_masked_row_gives_zeros(kind: str) -> None:
    """Query 1 may see nothing: its output row is 0, and nothing flows back through it —
    in PyTorch as in Sparrow (not nan)."""
    rng = np.random.default_rng(4)
    masks = _masks(rng, (L, S))
    masks["bool"][1] = False
    masks["float"][1] = -INF
    q, tq = _pair(_randn(rng, B, H, L, E))
    k, tk = _pair(_randn(rng, B, H, S, E))
    v, tv = _pair(_randn(rng, B, H, S, EV))
    m, tm = _pair(masks[kind], grad=False)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=m)
    expected = TF.scaled_dot_product_attention(tq, tk, tv, attn_mask=tm)
    assert np.all(_np(expected)[:, :, 1] == 0) and np.all(_np(out)[:, :, 1] == 0)
    _check(out, expected, (q, k, v), (tq, tk, tv))
    assert np.all(_np(q.grad)[:, :, 1] == 0)
    assert np.isfinite(_np(k.grad)).all() and np.isfinite(_np(v.grad)).all()


@pytest.mark.parametrize("kind", ["bool", "float"])
def test_sdpa_mask_and_is_causal_refused_as_pytorchs_math_backend(kind: str) -> None:
    """Both at once: PyTorch's math backend (the reference implementation) raises a
    RuntimeError naming attn_mask and is_causal; Sparrow raises the same class, same gist."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    rng = np.random.default_rng(5)
    x = _randn(rng, 1, 2, L, E)
    mask = _masks(rng, (L, L))[kind]
    with sdpa_kernel(SDPBackend.MATH), pytest.raises(Exception) as theirs:
        TF.scaled_dot_product_attention(*(torch.tensor(x),) * 3, torch.tensor(mask), is_causal=True)
    with pytest.raises(Exception) as ours:
        F.scaled_dot_product_attention(*(sp.tensor(x),) * 3, sp.tensor(mask), is_causal=True)
    assert ours.type is theirs.type is RuntimeError
    for said in (str(theirs.value), str(ours.value)):
        assert "attn_mask" in said and "is_causal" in said, said


def test_pytorchs_default_cpu_dispatch_takes_a_mask_and_is_causal_together() -> None:
    """Recorded, not copied: PyTorch 2.13's default CPU dispatch (a flash kernel) accepts a
    mask with ``is_causal`` and applies both (mask AND the lower triangle), where its math
    backend refuses. Sparrow refuses (tests above); this test says when PyTorch changes."""
    rng = np.random.default_rng(6)
    x = torch.tensor(_randn(rng, 1, 2, L, E))
    keep = torch.tensor(_masks(rng, (L, L))["bool"])
    both = TF.scaled_dot_product_attention(x, x, x, keep, is_causal=True)
    anded = TF.scaled_dot_product_attention(x, x, x, keep & torch.ones(L, L).bool().tril())
    _close(both, anded)


def test_sdpa_errors_are_pytorchs_classes() -> None:
    """Mismatched widths or lengths: a RuntimeError on both sides."""
    rng = np.random.default_rng(7)
    shapes = [((2, 3, 4), (2, 5, 3), (2, 5, 6)), ((2, 3, 4), (2, 5, 4), (2, 6, 6))]
    for qs, ks, vs in shapes:
        arrays = [_randn(rng, *s) for s in (qs, ks, vs)]
        with pytest.raises(RuntimeError):
            TF.scaled_dot_product_attention(*(torch.tensor(a) for a in arrays))
        with pytest.raises(RuntimeError):
            F.scaled_dot_product_attention(*(sp.tensor(a) for a in arrays))


# -- nn.MultiheadAttention -----------------------------------------------------------------


def _mha_pair(embed: int = 6, heads: int = 2, seed: int = 0, **kw):
    torch.manual_seed(seed)
    theirs = torch.nn.MultiheadAttention(embed, heads, dtype=torch.float64, **kw)
    with torch.no_grad():  # non-zero biases, so that their gradients and layout are tested
        for name, p in theirs.named_parameters():
            if name.endswith("bias"):
                p.uniform_(-0.5, 0.5)
    ours = sp.nn.MultiheadAttention(embed, heads, dtype=sp.float64, **kw)
    _load_theirs(ours, theirs)
    return ours, theirs


MHA_CASES = {
    "batch_first": {"batch_first": True},
    "sequence first": {},
    "unbatched": {"unbatched": True},
    "unbatched, padding, per-head": {"unbatched": True, "padding": "bool", "average": False},
    "per-head weights": {"batch_first": True, "average": False},
    "no weights": {"batch_first": True, "need_weights": False},
    "bool key_padding_mask": {"batch_first": True, "padding": "bool"},
    "float key_padding_mask": {"batch_first": True, "padding": "float"},
    "bool attn_mask 2-D": {"batch_first": True, "attn": ("bool", 2)},
    "float attn_mask 3-D": {"batch_first": True, "attn": ("float", 3), "average": False},
    "bool attn_mask 3-D + padding": {"attn": ("bool", 3), "padding": "bool"},
    "causal hint, no weights": {
        "batch_first": True,
        "attn": ("causal", 2),
        "need_weights": False,
        "is_causal": True,
    },
    "causal hint, weights": {"batch_first": True, "attn": ("causal", 2), "is_causal": True},
    "bias=False": {"batch_first": True, "bias": False},
    "cross-attention": {"batch_first": True, "cross": True},
    "cross-attention, seq first, masks": {"cross": True, "attn": ("float", 2), "padding": "float"},
}


def _mha_masks(rng, spec: dict, b: int, heads: int, tl: int, ts: int) -> tuple[dict, dict]:
    """The keyword masks for both sides, in MultiheadAttention's convention (True: hidden;
    a float mask added); no query is left without a key."""
    ours, theirs = {}, {}
    if "padding" in spec:
        hidden = rng.random((b, ts)) < 0.3
        hidden[:, 0] = False
        pad = hidden if spec["padding"] == "bool" else np.where(hidden, -INF, 0.25)
        if spec.get("unbatched"):
            pad = pad[0]
        ours["key_padding_mask"], theirs["key_padding_mask"] = _pair(pad, grad=False)
    if "attn" in spec:
        kind, ndim = spec["attn"]
        shape = (tl, ts) if ndim == 2 else (b * heads, tl, ts)
        if kind == "causal":
            mask = np.triu(np.ones(shape, bool), 1)
        else:
            mask = rng.random(shape) < 0.35
            mask[..., 0] = False
            if kind == "float":
                mask = np.where(mask, -INF, rng.standard_normal(shape) * 0.3)
        ours["attn_mask"], theirs["attn_mask"] = _pair(mask, grad=False)
    return ours, theirs


@pytest.mark.parametrize("case", list(MHA_CASES))
def test_multihead_attention_values_and_gradients(case: str) -> None:
    spec = MHA_CASES[case]
    embed, heads, b, tl = 6, 2, 3, 4
    ts = 5 if spec.get("cross") else tl
    kw = {k: spec[k] for k in ("batch_first", "bias") if k in spec}
    ours, theirs = _mha_pair(embed, heads, seed=len(case), **kw)
    rng = np.random.default_rng(len(case))

    def shape(t: int) -> tuple:
        if spec.get("unbatched"):
            return (t, embed)
        return (b, t, embed) if spec.get("batch_first") else (t, b, embed)

    if spec.get("cross"):
        pairs = [_pair(_randn(rng, *shape(t))) for t in (tl, ts, ts)]
    else:
        pairs = [_pair(_randn(rng, *shape(tl)))] * 3  # self-attention: one tensor
    (q, tq), (k, tk), (v, tv) = pairs
    masks, tmasks = _mha_masks(rng, spec, b, heads, tl, ts)
    call = {
        "need_weights": spec.get("need_weights", True),
        "average_attn_weights": spec.get("average", True),
        "is_causal": spec.get("is_causal", False),
    }
    result = ours(q, k, v, **masks, **call)
    expected = theirs(tq, tk, tv, **tmasks, **call)
    assert isinstance(result, tuple) and len(result) == 2
    (out, weights), (tout, tweights) = result, expected
    leaves, tleaves = _distinct(q, k, v, tq, tk, tv)
    if tweights is None:
        assert weights is None
        _check(out, tout, leaves, tleaves)
    else:
        _close(weights, tweights)  # then Σ out·u + Σ weights·w: both outputs' gradients
        w = np.random.default_rng(1).standard_normal(tuple(tweights.shape))
        _check(
            out,
            tout,
            leaves,
            tleaves,
            extra=((weights * sp.tensor(w)).sum(), (tweights * torch.tensor(w)).sum()),
        )
    _check_modules(ours, theirs)


def _distinct(q, k, v, tq, tk, tv) -> tuple:
    """The input leaves, each once (self-attention passes one tensor three times)."""
    if q is k:
        return (q,), (tq,)
    return (q, k, v), (tq, tk, tv)


def test_multihead_attention_is_causal_without_a_mask_is_refused() -> None:
    """PyTorch's hint needs the mask beside it: both raise a RuntimeError naming attn_mask."""
    ours, theirs = _mha_pair(batch_first=True)
    x = np.random.default_rng(8).standard_normal((2, 3, 6))
    with pytest.raises(RuntimeError, match="attn_mask") as said:
        theirs(*(torch.tensor(x),) * 3, is_causal=True)
    with pytest.raises(RuntimeError, match="attn_mask"):
        ours(*(sp.tensor(x),) * 3, is_causal=True)
    assert "is_causal" in str(said.value)


@pytest.mark.parametrize("bias", [True, False], ids=["bias", "bias=False"])
def test_multihead_attention_state_dict_loads_both_ways(bias: bool) -> None:
    """PyTorch → Sparrow and Sparrow → PyTorch: the same keys in the same order, the same
    shapes (the packed (3E, E) in_proj), the values copied exactly; the outputs then agree."""
    theirs = torch.nn.MultiheadAttention(8, 4, bias=bias, batch_first=True, dtype=torch.float64)
    ours = sp.nn.MultiheadAttention(8, 4, bias=bias, batch_first=True, dtype=sp.float64)
    mine, its = ours.state_dict(), theirs.state_dict()
    assert list(mine) == list(its)
    assert [tuple(t.shape) for t in mine.values()] == [tuple(t.shape) for t in its.values()]
    theirs.load_state_dict({k: torch.tensor(_np(t).copy()) for k, t in mine.items()})
    for key, value in theirs.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), _np(mine[key]))
    fresh = torch.nn.MultiheadAttention(8, 4, bias=bias, batch_first=True, dtype=torch.float64)
    _load_theirs(ours, fresh)
    for key, value in fresh.state_dict().items():
        np.testing.assert_array_equal(_np(ours.state_dict()[key]), value.numpy())
    x = np.random.default_rng(9).standard_normal((2, 3, 8))
    out = ours(*(sp.tensor(x),) * 3)[0]
    _close(out, fresh(*(torch.tensor(x),) * 3)[0])


# -- nn.TransformerEncoderLayer, nn.TransformerEncoder --------------------------------------


def _layer_pair(norm_first: bool, activation: str, seed: int = 0, d: int = 8, heads: int = 2):
    torch.manual_seed(seed)
    kw = {"dropout": 0.0, "activation": activation, "batch_first": True, "norm_first": norm_first}
    theirs = torch.nn.TransformerEncoderLayer(d, heads, 16, dtype=torch.float64, **kw)
    with torch.no_grad():
        for name, p in theirs.named_parameters():
            if name.endswith("bias") or name.startswith("norm"):
                p.add_(torch.rand_like(p) - 0.5)  # biases and LayerNorm affine away from 0/1
    ours = sp.nn.TransformerEncoderLayer(d, heads, 16, dtype=sp.float64, **kw)
    _load_theirs(ours, theirs)
    return ours, theirs


LAYER_CASES = [
    (norm_first, activation, masks)
    for norm_first in (True, False)
    for activation in ("gelu", "relu")
    for masks in ("causal", "padding")
]


@pytest.mark.parametrize("norm_first, activation, masks", LAYER_CASES, ids=str)
def test_encoder_layer_values_and_gradients(norm_first: bool, activation: str, masks: str) -> None:
    ours, theirs = _layer_pair(norm_first, activation)
    rng = np.random.default_rng(10)
    x, tx = _pair(_randn(rng, 3, 5, 8))
    if masks == "causal":  # the float causal mask with the is_causal hint beside it
        call = {"src_mask": sp.nn.generate_square_subsequent_mask(5, dtype=sp.float64)}
        tcall = {"src_mask": torch.nn.Transformer.generate_square_subsequent_mask(5)}
        call["is_causal"] = tcall["is_causal"] = True
    else:
        hidden = rng.random((3, 5)) < 0.4
        hidden[:, 0] = False
        call = {"src_key_padding_mask": sp.tensor(hidden)}
        tcall = {"src_key_padding_mask": torch.tensor(hidden)}
    _check(ours(x, **call), theirs(tx, **tcall), (x,), (tx,))
    _check_modules(ours, theirs)


def test_encoder_layer_is_causal_without_a_mask_is_refused() -> None:
    ours, theirs = _layer_pair(True, "gelu")
    x = np.random.default_rng(11).standard_normal((2, 3, 8))
    with pytest.raises(RuntimeError, match="attn_mask"):
        theirs(torch.tensor(x), is_causal=True)
    with pytest.raises(RuntimeError, match="attn_mask"):
        ours(sp.tensor(x), is_causal=True)


def test_transformer_encoder_stack() -> None:
    """Two post-norm layers and a final LayerNorm, a causal mask: the state_dict keys are
    PyTorch's (``layers.0.…``, ``norm.…``); values and every gradient agree."""
    layer, tlayer = _layer_pair(False, "relu", seed=1)
    torch.manual_seed(2)
    theirs = torch.nn.TransformerEncoder(
        tlayer, 2, norm=torch.nn.LayerNorm(8, dtype=torch.float64), enable_nested_tensor=False
    )
    with torch.no_grad():  # the two copies of the layer made different
        for p in theirs.layers[1].parameters():
            p.add_(torch.randn_like(p) * 0.1)
    ours = sp.nn.TransformerEncoder(layer, 2, norm=sp.nn.LayerNorm(8, dtype=sp.float64))
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _load_theirs(ours, theirs)
    x, tx = _pair(np.random.default_rng(12).standard_normal((2, 6, 8)))
    mask = sp.nn.generate_square_subsequent_mask(6, dtype=sp.float64)
    tmask = torch.nn.Transformer.generate_square_subsequent_mask(6, dtype=torch.float64)
    _check(ours(x, mask=mask, is_causal=True), theirs(tx, mask=tmask, is_causal=True), (x,), (tx,))
    _check_modules(ours, theirs)


@pytest.mark.parametrize("size", [1, 2, 5])
def test_generate_square_subsequent_mask_is_pytorchs(size: int) -> None:
    ours = sp.nn.generate_square_subsequent_mask(size, dtype=sp.float64)
    theirs = torch.nn.Transformer.generate_square_subsequent_mask(size, dtype=torch.float64)
    assert ours.dtype == sp.float64
    np.testing.assert_array_equal(_np(ours), theirs.numpy())


# -- sampling --------------------------------------------------------------------------------


def _torch_probs(logits: torch.Tensor, temperature: float, top_k: int | None) -> torch.Tensor:
    """nanoGPT's recipe: divide by the temperature; keep what is not below the k-th largest
    (``torch.topk``), the rest −∞; softmax."""
    logits = logits / temperature
    if top_k is not None:
        kth = torch.topk(logits, min(top_k, logits.size(-1))).values[..., [-1]]
        logits = logits.masked_fill(logits < kth, -INF)
    return TF.softmax(logits, dim=-1)


SAMPLING = [(1.0, None), (0.7, None), (2.5, 3), (1.0, 1), (0.5, 4), (1.3, 10), (1.0, 50)]


@pytest.mark.parametrize("temperature, top_k", SAMPLING, ids=str)
def test_next_token_probs_are_pytorchs_topk_recipe(temperature: float, top_k) -> None:
    """Rows full of ties (logits drawn from five values), one row of one value, one row
    without ties: every logit equal to the k-th largest is kept, so more than k may
    survive, never fewer."""
    rng = np.random.default_rng(13)
    logits = rng.choice([-1.0, 0.0, 0.5, 2.0, 3.0], size=(4, 10))
    logits[0] = 2.0  # a row of one value
    logits[3] = rng.permutation(10) * 0.7 - 3  # a row without ties: exactly k survive
    ours = sp.next_token_probs(sp.tensor(logits), temperature, top_k)
    theirs = _torch_probs(torch.tensor(logits), temperature, top_k)
    _close(ours, theirs)
    if top_k is not None and top_k < 10:
        kept = (_np(ours) > 0).sum(-1)
        assert (kept >= top_k).all() and (kept > top_k).any(), kept  # ties kept
        assert kept[3] == top_k


# -- GPT against a PyTorch twin -------------------------------------------------------------


class TorchGPT(torch.nn.Module):
    """sp.GPT written in PyTorch, with its attribute names (so one state_dict serves both)."""

    def __init__(self, vocab: int, block: int, n_layer: int, n_head: int, n_embd: int) -> None:
        super().__init__()
        kw = {"dtype": torch.float64}
        self.token_embedding = torch.nn.Embedding(vocab, n_embd, **kw)
        self.position_embedding = torch.nn.Embedding(block, n_embd, **kw)
        self.blocks = torch.nn.ModuleList(
            torch.nn.TransformerEncoderLayer(
                n_embd,
                n_head,
                4 * n_embd,
                0.0,
                activation="gelu",
                batch_first=True,
                norm_first=True,
                **kw,
            )
            for _ in range(n_layer)
        )
        self.ln_f = torch.nn.LayerNorm(n_embd, **kw)
        self.lm_head = torch.nn.Linear(n_embd, vocab, **kw)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        t = idx.shape[1]
        x = self.token_embedding(idx) + self.position_embedding(torch.arange(t))
        mask = torch.nn.Transformer.generate_square_subsequent_mask(t, dtype=torch.float64)
        for block in self.blocks:
            x = block(x, src_mask=mask, is_causal=True)
        return self.lm_head(self.ln_f(x))


def test_gpt_logits_and_every_gradient_equal_a_pytorch_twins() -> None:
    vocab, block = 13, 8
    torch.manual_seed(3)
    theirs = TorchGPT(vocab, block, 2, 2, 8)
    ours = sp.GPT(vocab, block, n_layer=2, n_head=2, n_embd=8, dtype=sp.float64)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _load_theirs(ours, theirs)
    rng = np.random.default_rng(14)
    idx = rng.integers(0, vocab, (3, 7))
    targets = rng.integers(0, vocab, (3, 7))
    logits, tlogits = ours(sp.tensor(idx)), theirs(torch.tensor(idx))
    _close(logits, tlogits)
    loss = F.cross_entropy(logits.reshape(-1, vocab), sp.tensor(targets.reshape(-1)))
    tloss = TF.cross_entropy(tlogits.reshape(-1, vocab), torch.tensor(targets.reshape(-1)))
    _close(loss, tloss)
    loss.backward(), tloss.backward()
    _check_modules(ours, theirs)


# -- second derivatives ----------------------------------------------------------------------


@pytest.mark.parametrize("masked", [False, True], ids=["causal", "bool mask with an empty row"])
def test_sdpa_second_derivative(masked: bool) -> None:
    """d/d(q, k, v) of ‖∂L/∂q‖² + ‖∂L/∂v‖², L = Σ SDPA(q, k, v)²: through the backward
    (``create_graph``; safe_softmax's backward recorded). PyTorch's math backend, whose
    backward is itself differentiable."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    rng = np.random.default_rng(15)
    arrays = [_randn(rng, 2, L, E), _randn(rng, 2, S, E), _randn(rng, 2, S, EV)]
    keep = _masks(rng, (L, S))["bool"]
    keep[2] = False
    results = []
    for lib, make, grad in (
        (sp, sp.tensor, sp.autograd.grad),
        (torch, torch.tensor, torch.autograd.grad),
    ):
        q, k, v = (make(a.copy(), requires_grad=True) for a in arrays)
        functional = F if lib is sp else TF
        kw = {"attn_mask": make(keep)} if masked else {"is_causal": True}
        with sdpa_kernel(SDPBackend.MATH) if lib is torch else contextlib.nullcontext():
            loss = (functional.scaled_dot_product_attention(q, k, v, **kw) ** 2).sum()
            gq, gv = grad(loss, (q, v), create_graph=True)
            ((gq**2).sum() + (gv**2).sum()).backward()
        results.append([gq, gv, q.grad, k.grad, v.grad])
    for ours, theirs in zip(*results, strict=True):
        _close(ours, theirs)

"""What only chapter 9's checks do (every chapter's contracts: tests/test_contracts.py; its
variants: tests/variants/ch09_*.py, judged by tests/test_variants.py): the parent's own
references agree with PyTorch, and the verdicts name the mistakes the issue lists, on the
reference with one function replaced, run in this process through the checks' own
programs (fast; the variant sets run them in children)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from autograder import report
from autograder.checking import public_checks
from autograder.checks import ch09_attention as checks
from autograder.checks.ch09_attention import cases, programs
from autograder.course import chapter
from autograder.harness import wire
from solutions import ch09_attention as sp
from tests.test_hidden_checks import SECRET_SEED, _inputs, graded, hidden, reference
from tests.test_hidden_checks import checks as checks_of
from tests.trees import composite, write_stubs

# -- the parent's references, against PyTorch --------------------------------------------------


def test_the_reference_softmax_is_pytorchs_safe_softmax() -> None:
    """Finite rows: torch.softmax; a row of −∞: zeros (SDPA's safe softmax); ±1e4: finite."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 5)) * 3
    x[0, 1] = -np.inf
    x[2] = -np.inf
    want = torch.softmax(torch.tensor(x[:2]), -1).numpy()
    np.testing.assert_allclose(cases.softmax_ref(x)[:2], want, rtol=1e-14)
    assert np.array_equal(cases.softmax_ref(x)[2], np.zeros(5))
    big = np.array([[1e4, 1e4 - 1, -1e4]])
    np.testing.assert_allclose(
        cases.softmax_ref(big), torch.softmax(torch.tensor(big), -1).numpy(), rtol=1e-14
    )


@pytest.mark.parametrize("kind", ["none", "bool", "float", "causal"])
def test_the_reference_attention_and_its_gradients_are_pytorchs(kind: str) -> None:
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    rng = np.random.default_rng(1)
    q, k, v = (
        rng.normal(size=(2, 2, 3, 4)),
        rng.normal(size=(2, 2, 5, 4)),
        rng.normal(size=(2, 2, 5, 3)),
    )
    mask = None
    if kind == "bool":
        mask = rng.random((2, 1, 3, 5)) < 0.6
        mask[..., 0] = True
    elif kind == "float":
        mask = np.where(rng.random((3, 5)) < 0.7, rng.normal(size=(3, 5)), -np.inf)
        mask[:, 0] = 0.0
    elif kind == "causal":
        mask = cases.mask_ref(3, 5)
    ref_kind = "bool" if kind == "causal" else kind
    out, _ = cases.attention_ref(q, k, v, mask, ref_kind, 0.4)
    tq, tk, tv = (torch.tensor(a, requires_grad=True) for a in (q, k, v))
    tmask = None if mask is None else torch.tensor(mask)
    want = F.scaled_dot_product_attention(tq, tk, tv, attn_mask=tmask, scale=0.4)
    np.testing.assert_allclose(out, want.detach().numpy(), rtol=1e-12, atol=1e-14)
    g = rng.normal(size=out.shape)
    want.backward(torch.tensor(g))
    grads = cases.vjp(
        lambda a, b, c: cases.attention_ref(a, b, c, mask, ref_kind, 0.4)[0], [q, k, v], g
    )
    for got, t in zip(grads, (tq, tk, tv)):
        np.testing.assert_allclose(got, t.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_the_reference_multihead_attention_is_pytorchs() -> None:
    torch = pytest.importorskip("torch")
    case = cases.mha_case(np.random.default_rng(2), 2, 3, 4, 6, 3, padding=True)
    i = case.inputs
    layer = torch.nn.MultiheadAttention(6, 3, batch_first=True, dtype=torch.float64)
    layer.load_state_dict({k: torch.tensor(v) for k, v in i["params"].items()})
    out, weights = layer(
        *(torch.tensor(i[n]) for n in ("query", "key", "value")),
        key_padding_mask=torch.tensor(i["padding"]),
        average_attn_weights=False,
    )
    np.testing.assert_allclose(case.expected.out, out.detach().numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(case.expected.weights, weights.detach().numpy(), atol=1e-14)


@pytest.mark.parametrize(("norm_first", "act"), [(True, "gelu"), (False, "relu"), (False, "gelu")])
def test_the_reference_block_and_its_gradient_are_pytorchs(norm_first: bool, act: str) -> None:
    torch = pytest.importorskip("torch")
    case = cases.block_case(
        np.random.default_rng(3), 2, 4, 6, 3, 8, norm_first=norm_first, act=act, causal=True
    )
    i = case.inputs
    layer = torch.nn.TransformerEncoderLayer(
        6, 3, 8, 0.0, act, batch_first=True, norm_first=norm_first, dtype=torch.float64
    )
    layer.load_state_dict({k: torch.tensor(v) for k, v in i["params"].items()})
    x = torch.tensor(i["x"], requires_grad=True)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    out = layer(x, src_mask=mask, is_causal=True)
    np.testing.assert_allclose(case.expected.out, out.detach().numpy(), rtol=1e-12, atol=1e-13)
    out.backward(torch.tensor(i["g"]))
    np.testing.assert_allclose(case.expected.grad, x.grad.numpy(), rtol=1e-9, atol=1e-11)


def test_the_reference_top_k_is_pytorchs_topk_rule() -> None:
    """torch.topk's k-th value, everything below it −∞, then softmax (ties kept)."""
    torch = pytest.importorskip("torch")
    logits = np.random.default_rng(4).integers(-2, 3, (5, 8)).astype(float)
    t = torch.tensor(logits) / 0.7
    kth = torch.topk(t, 3, dim=-1).values[..., -1:]
    want = torch.softmax(t.masked_fill(t < kth, -math.inf), -1).numpy()
    np.testing.assert_allclose(cases.probs_ref(logits, 0.7, 3), want, rtol=1e-14)


def test_the_online_state_after_every_tile_is_the_plain_softmax() -> None:
    """finish of the definitional state is the plain attention (NumPy only: it is the same
    parent code both ways, so this holds the two references to each other)."""
    rng = np.random.default_rng(5)
    q, k, v = rng.normal(size=(4, 3)), rng.normal(size=(7, 3)), rng.normal(size=(7, 2))
    scores = q @ k.T / math.sqrt(3)
    m, total, acc = cases.online_state([scores[:, :3], scores[:, 3:]], [v[:3], v[3:]])
    np.testing.assert_allclose(acc / total, cases.attention_ref(q, k, v)[0], rtol=1e-13)
    assert np.array_equal(m, scores.max(axis=-1, keepdims=True))


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


SOFTMAX = programs.module(sp, "softmax")
ATTENTION = programs.module(sp, "attention")
HEADS = programs.module(sp, "heads")


def _softmax_forward(shift: bool, safe: bool):
    def forward(ctx, x):
        data = x.data
        m = data.max(axis=-1, keepdims=True) if shift else 0
        if safe and shift:
            m = np.where(m == -np.inf, 0, m)
        with np.errstate(all="ignore"):
            e = np.exp(data - m)
            s = e.sum(axis=-1, keepdims=True)
            out = e / (np.where(s == 0, 1, s) if safe else s)
        ctx.save_for_backward(x)
        ctx.out = out
        return out

    return staticmethod(forward)


@pytest.mark.parametrize(
    ("shift", "safe", "says"),
    [
        (True, False, "a row whose every score is −∞ gave nan"),
        (False, True, "exp(1e4) overflows to inf"),
    ],
)
def test_softmax_slips_are_named(monkeypatch, shift: bool, safe: bool, says: str) -> None:
    monkeypatch.setattr(SOFTMAX.SafeSoftmax, "forward", _softmax_forward(shift, safe))
    problem = _first_problem("safe_softmax: values and the gradient")
    assert says in problem, problem


def _attention(scale=None, inverted=False, after=False):
    """The reference's attention with one slip, in Tensor operations."""

    def attention(query, key, value, mask=None, scale_given=None, dropout_p=0.0):
        e, ev = query.shape[-1], value.shape[-1]
        s = (
            scale_given
            if scale_given is not None
            else {None: 1 / math.sqrt(e), "d": 1 / e, "ev": 1 / math.sqrt(ev), "none": 1.0}[scale]
        )
        scores = (query @ key.transpose(-2, -1)) * s
        if mask is not None and not after:
            if mask.dtype == sp.bool:
                scores = scores.masked_fill(mask if inverted else ~mask, float("-inf"))
            else:
                scores = scores + mask
        weights = SOFTMAX.safe_softmax(scores)
        if mask is not None and after:
            weights = weights.masked_fill(~mask, 0.0) if mask.dtype == sp.bool else weights + mask
        return weights @ value, weights

    return attention


@pytest.mark.parametrize(
    ("slip", "says"),
    [
        ({"scale": "d"}, "divided by E, not by √E"),
        ({"scale": "ev"}, "divided by √Ev"),
        ({"scale": "none"}, "the scores were not scaled"),
        ({"inverted": True}, "read the wrong way round"),
        ({"after": True}, "applied after the softmax"),
    ],
)
def test_attention_slips_are_named(monkeypatch, slip: dict, says: str) -> None:
    monkeypatch.setattr(ATTENTION, "attention", _attention(**slip))
    problem = _first_problem("attention: values, weights and gradients")
    assert says in problem, problem


def test_a_transposed_causal_triangle_is_named(monkeypatch) -> None:
    monkeypatch.setattr(
        ATTENTION,
        "causal_mask",
        lambda L, S, diagonal=0, device=None: sp.ones(L, S, dtype=sp.bool).triu(diagonal),
    )
    assert "the triangle is transposed" in _first_problem("causal_mask")
    assert "the triangle is transposed" in _first_problem("scaled_dot_product_attention: is_causal")


@pytest.mark.parametrize(
    ("split", "says"),
    [
        (
            lambda x, h: x.reshape(*x.shape[:-2], h, x.shape[-2], x.shape[-1] // h),
            "without the transpose",
        ),
        (
            lambda x, h: x.reshape(*x.shape[:-2], h, x.shape[-2] // h, x.shape[-1]),
            "cut out of the positions T",
        ),
    ],
)
def test_heads_split_along_the_wrong_axis_are_named(monkeypatch, split, says: str) -> None:
    monkeypatch.setattr(HEADS, "split_heads", split)
    problem = _first_problem("split_heads and merge_heads")
    assert says in problem, problem


def test_heads_merged_in_the_wrong_order_are_named(monkeypatch) -> None:
    monkeypatch.setattr(HEADS, "merge_heads", lambda x: x.reshape(*x.shape[:-3], x.shape[-2], -1))
    assert "merged by a reshape alone" in _first_problem("split_heads and merge_heads")


@pytest.mark.parametrize(
    ("forward", "says"),
    [
        (
            lambda self, x: (lambda y: y + self._ff_block(self.norm2(y)))(
                self.norm1(x) + self._sa_block(self.norm1(x), None, None, False, None)
            ),
            "residual carries the normalised x",
        ),
        (
            lambda self, x: (lambda y: y + self._ff_block(self.norm1(y)))(
                x + self._sa_block(self.norm1(x), None, None, False, None)
            ),
            "norm1 was used for both branches",
        ),
        (
            lambda self, x: (lambda y: self._ff_block(self.norm2(y)))(
                x + self._sa_block(self.norm1(x), None, None, False, None)
            ),
            "the feed-forward's residual is missing",
        ),
    ],
)
def test_block_slips_are_named(monkeypatch, forward, says: str) -> None:
    """Pre-norm slips, on the first (pre-norm, unmasked) case."""
    layer = sp.nn.TransformerEncoderLayer
    monkeypatch.setattr(layer, "forward", lambda self, x, *a, **k: forward(self, x))
    problem = _first_problem("TransformerEncoderLayer: pre-norm and post-norm")
    assert says in problem, problem


def test_norm_first_ignored_is_named(monkeypatch) -> None:
    layer = sp.nn.TransformerEncoderLayer
    original = layer.forward

    def swapped(self, src, *args, **kwargs):
        self.norm_first = not self.norm_first
        try:
            return original(self, src, *args, **kwargs)
        finally:
            self.norm_first = not self.norm_first

    monkeypatch.setattr(layer, "forward", swapped)
    assert "pre-norm and post-norm are swapped" in _first_problem(
        "TransformerEncoderLayer: pre-norm and post-norm"
    )


@pytest.mark.parametrize(
    ("embed", "says"),
    [
        (
            lambda self, idx, start=0: (
                self.token_embedding(idx) + self.position_embedding(sp.arange(idx.shape[-1]))
            ),
            "the positions started at 0",
        ),
        (
            lambda self, idx, start=0: (
                self.token_embedding(idx)
                + self.position_embedding(sp.arange(start, start + idx.shape[0]))[:, None]
            ),
            "added along the batch axis",
        ),
    ],
)
def test_embedding_slips_are_named(monkeypatch, embed, says: str) -> None:
    monkeypatch.setattr(sp.GPT, "embed", embed)
    problem = _first_problem("GPT.embed")
    assert says in problem, problem


def _probs(slip: str):
    def next_token_probs(logits, temperature=1.0, top_k=None):
        logits = logits * temperature if slip == "times" else logits / temperature
        if top_k is not None and top_k < logits.shape[-1]:
            data = logits.data
            kth = -np.sort(-data, axis=-1)[..., top_k - 1 : top_k]
            if slip == "strict":
                keep = data > kth
            elif slip == "first k":
                order = np.argsort(-data, axis=-1, kind="stable")[..., :top_k]
                keep = np.zeros(data.shape, dtype=bool)
                np.put_along_axis(keep, order, True, axis=-1)
            else:
                keep = data >= kth
            if slip == "after":
                return sp.nn.functional.softmax(logits, dim=-1) * sp.tensor(keep.astype(float))
            logits = logits.masked_fill(sp.tensor(~keep), float("-inf"))
        return sp.nn.functional.softmax(logits, dim=-1)

    return next_token_probs


@pytest.mark.parametrize(
    ("slip", "says"),
    [
        ("times", "multiplied by the temperature"),
        ("strict", "fewer than k tokens were kept"),
        ("first k", "picked by index among ties"),
        ("after", "after the softmax without renormalising"),
    ],
)
def test_top_k_slips_are_named(monkeypatch, slip: str, says: str) -> None:
    monkeypatch.setattr(programs.module(sp, "sampling"), "next_token_probs", _probs(slip))
    with np.errstate(invalid="ignore"):  # strict > with k = 1 leaves a row of nan
        problem = _first_problem("next_token_probs: temperature and top-k")
    assert says in problem, problem


def _update(slip: str):
    def update(self, key, value):
        if self.keys is None:
            self.keys, self.values = key, value
        else:
            self.keys = sp.cat([self.keys, key], dim=1 if slip == "axis" else -2)
            if slip != "values":
                self.values = sp.cat([self.values, value], dim=1 if slip == "axis" else -2)
        return self.keys, self.values

    return update


@pytest.mark.parametrize(
    ("slip", "says"),
    [("values", "the values were not appended"), ("axis", "concatenated along axis 1")],
)
def test_cache_slips_are_named(monkeypatch, slip: str, says: str) -> None:
    monkeypatch.setattr(sp.KVCache, "update", _update(slip))
    problem = _first_problem("KVCache.update")
    assert says in problem, problem


def test_a_cache_mask_aligned_top_left_is_named(monkeypatch) -> None:
    monkeypatch.setattr(sp.KVCache, "mask", lambda self, new: sp.causal_mask(new, len(self)))
    assert "aligned at the top left" in _first_problem("KVCache.mask: aligned at the bottom right")
    assert _first_problem("GPT with the caches: the logits of the full recompute")


def _online(slip: str):
    def online_step(state, scores, values):
        m, total, acc = state
        m_new = np.maximum(m, scores.max(axis=-1, keepdims=True))
        safe = np.where(m_new == -np.inf, 0, m_new)
        alpha = np.exp(m - safe)
        p = np.exp(scores - safe)
        total = (1 if slip == "sum" else alpha) * total + p.sum(axis=-1, keepdims=True)
        return m_new, total, (1 if slip == "acc" else alpha) * acc + p @ values

    return online_step


@pytest.mark.parametrize(
    ("slip", "says"),
    [("sum", "the running sum was not rescaled"), ("acc", "acc was not rescaled")],
)
def test_online_slips_are_named(monkeypatch, slip: str, says: str) -> None:
    monkeypatch.setattr(programs.module(sp, "tiled"), "online_step", _online(slip))
    problem = _first_problem("online_step")
    assert says in problem, problem
    assert _first_problem("tiled_attention: the plain attention, to 1e-12")


# -- the hidden checks (as tests/test_hidden_checks.py holds chapters 1–4) ----------------------


@pytest.mark.parametrize("seed", [0, pytest.param(SECRET_SEED, marks=pytest.mark.slow)])
def test_the_reference_scores_every_point_with_the_hidden_checks(seed: int) -> None:
    result = graded(9, reference(9), public=not seed, seed=seed)
    assert result.passed and result.points == result.max_points, report.chapter_report(result)
    for task in result.tasks:  # every task has its public checks and hidden ones
        names = {c.check.name for c in task.checks}
        assert any("held out" in name for name in names) and (seed or len(names) >= 2)


@pytest.mark.slow  # every chapter's stubs written
def test_fresh_stubs_score_nothing_on_the_hidden_checks(tmp_path) -> None:
    stubs = write_stubs(tmp_path)
    result = graded(9, composite(9, stubs / "ch09_attention"), public=False)
    assert result.points == 0
    assert {t.status for t in result.tasks} == {"not started"}, report.chapter_report(result)


def test_hidden_cases_are_other_cases_and_their_labels_never_change() -> None:
    """Other labels and inputs than the public cases'; labels the same at every seed (they
    name the kind of case), inputs not."""
    public = checks_of(public_checks(chapter(9))[0])
    cases = [case for c in public for case in c.make_cases(0)]
    labels, inputs = {case.label for case in cases}, set(_inputs(cases))
    for check in checks_of(hidden(9)):
        assert check.name not in {c.name for c in public} and "held out" in check.name
        own, secret = check.make_cases(0), check.make_cases(SECRET_SEED)
        assert not labels & {case.label for case in own}, check.name
        assert not inputs & set(_inputs(own)), check.name
        assert [c.label for c in own] == [c.label for c in secret], check.name
        assert _inputs(own) != _inputs(secret), check.name


def test_a_softmax_backward_without_the_row_sum_is_named(monkeypatch) -> None:
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return SOFTMAX.SafeSoftmax.apply(x) * grad_output

    monkeypatch.setattr(SOFTMAX.SafeSoftmax, "backward", staticmethod(backward))
    problem = _first_problem("safe_softmax: values and the gradient")
    assert "the gradient is y · g alone" in problem, problem


def test_a_finite_mask_value_is_named(monkeypatch) -> None:
    """−1e9 in place of −∞ passes every row that sees a key; the blind row names it."""

    def attention(query, key, value, mask=None, scale=None, dropout_p=0.0):
        scale = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
        scores = (query @ key.transpose(-2, -1)) * scale
        if mask is not None:
            scores = scores.masked_fill(~mask, -1e9) if mask.dtype == sp.bool else scores + mask
        weights = SOFTMAX.safe_softmax(scores)
        return weights @ value, weights

    monkeypatch.setattr(ATTENTION, "attention", attention)
    problem = _first_problem("attention: values, weights and gradients")
    assert "instead of −∞" in problem, problem


def test_online_steps_against_the_old_maximum_or_without_a_guard_are_named(monkeypatch) -> None:
    tiled = programs.module(sp, "tiled")

    def old_max(state, scores, values):
        m, total, acc = state
        m_new = np.maximum(m, scores.max(axis=-1, keepdims=True))
        safe, old = (np.where(a == -np.inf, 0, a) for a in (m_new, m))
        alpha = np.exp(m - safe)
        p = np.exp(scores - old)
        return m_new, alpha * total + p.sum(axis=-1, keepdims=True), alpha * acc + p @ values

    monkeypatch.setattr(tiled, "online_step", old_max)
    assert "measured against the old maximum" in _first_problem("online_step")

    def unguarded(state, scores, values):
        m, total, acc = state
        m_new = np.maximum(m, scores.max(axis=-1, keepdims=True))
        alpha, p = np.exp(m - m_new), np.exp(scores - m_new)
        return m_new, alpha * total + p.sum(axis=-1, keepdims=True), alpha * acc + p @ values

    monkeypatch.setattr(tiled, "online_step", unguarded)
    with np.errstate(invalid="ignore"):
        problem = _first_problem("online_step")
    assert "has seen only −∞ so far gave nan" in problem, problem
    monkeypatch.setattr(tiled, "finish", lambda state: state[2] / state[1])
    with np.errstate(invalid="ignore", divide="ignore"):
        assert "(0 / 0)" in _first_problem("finish")


def test_the_reference_passes_every_check_on_the_simulated_device() -> None:
    """Public and hidden checks with their arrays on sim (the online step's and finish's
    arrays are made by the chapter's Tensor, so they follow the default device)."""
    from autograder.checking import check_chapter
    from tests.trees import SOLUTIONS

    result = check_chapter(
        chapter(9),
        composite(9, SOLUTIONS / "ch09_attention"),
        device="sim",
        hidden_modules=["autograder.hidden.ch09_attention"],
    )
    assert result.passed and result.points == result.max_points, report.chapter_report(result)


def test_a_block_that_drops_the_cache_is_named(monkeypatch) -> None:
    """The cache probe check fails 9.4 itself, so the GPT check is blocked by 9.4."""
    layer = sp.nn.TransformerEncoderLayer
    original = layer.forward
    monkeypatch.setattr(
        layer, "forward", lambda self, src, *a, kv_cache=None, **k: original(self, src, *a, **k)
    )
    problem = _first_problem("TransformerEncoderLayer: the key/value cache passed on")
    assert "the key/value cache was not passed on" in problem, problem


def test_a_maximum_over_the_whole_array_is_named(monkeypatch) -> None:
    def forward(ctx, x):
        m = x.data.max()
        m = 0.0 if m == -np.inf else m
        with np.errstate(under="ignore"):
            e = np.exp(x.data - m)
        s = e.sum(axis=-1, keepdims=True)
        ctx.save_for_backward(x)
        ctx.out = e / np.where(s == 0, 1, s)
        return ctx.out

    monkeypatch.setattr(SOFTMAX.SafeSoftmax, "forward", staticmethod(forward))
    problem = _first_problem("safe_softmax: values and the gradient")
    assert "the maximum was taken over the whole array" in problem, problem


@pytest.mark.parametrize(
    ("where", "says"),
    [("nowhere", "dropout_p was ignored"), ("weights", "the weights returned are after dropout")],
)
def test_dropout_slips_are_named(monkeypatch, where: str, says: str) -> None:
    original = ATTENTION.attention
    dropout = programs.module(sp, "attention").dropout

    def attention(query, key, value, mask=None, scale=None, dropout_p=0.0):
        out, weights = original(query, key, value, mask, scale, 0.0)
        if where == "weights":
            weights = dropout(weights, dropout_p)
            return weights @ value, weights
        return out, weights

    monkeypatch.setattr(ATTENTION, "attention", attention)
    problem = _first_problem("attention: values, weights and gradients")
    assert says in problem, problem


# -- the holes a review found (a mask made on the default device, the padding mask dropped,
# dropout on the output, float64 inside a float32 run) -------------------------------------


def test_a_causal_mask_made_on_the_default_device_is_named(monkeypatch) -> None:
    """The mask asked for on sim while the default device is the CPU (as it is in every run,
    also under ``--device sim``, where the program sets it back for the call)."""
    monkeypatch.setattr(
        ATTENTION,
        "causal_mask",
        lambda L, S, diagonal=0, device=None: sp.ones(L, S, dtype=sp.bool).tril(diagonal),
    )
    problem = _first_problem("causal_mask")
    assert "returned a mask on cpu, expected one on sim" in problem, problem
    assert "the mask was made on the default device, not on `device=`" in problem, problem


def test_a_cache_mask_made_on_the_default_device_is_named(monkeypatch) -> None:
    def mask(self, new):
        s = len(self)
        return sp.causal_mask(new, s, diagonal=s - new)

    monkeypatch.setattr(sp.KVCache, "mask", mask)
    problem = _first_problem("KVCache.mask: aligned at the bottom right")
    assert "the mask was made on the default device, not on `device=`" in problem, problem


def test_the_device_cases_run_with_the_default_device_set_back(monkeypatch) -> None:
    """Under --device sim the default is sim; the program makes it the CPU for the call and
    restores it after."""
    check = _check("causal_mask")
    case = check.make_cases(0)[-1]
    assert case.inputs.get("device") == "sim", case.label
    sp.set_default_device("sim")
    try:
        got = check.program(sp, **case.inputs)
        assert str(sp.get_default_device()) == "sim:0"
    finally:
        sp.set_default_device(None)
    assert got["devices"] == ["sim", "sim"] and not check.verdict(case, got)


@pytest.mark.parametrize("norm_first", [True, False])
def test_a_block_that_drops_the_padding_mask_is_named(monkeypatch, norm_first: bool) -> None:
    """The padding mask dropped in one branch (pre-norm or post-norm) only."""
    layer = sp.nn.TransformerEncoderLayer
    original = layer.forward

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False, **kw):
        if self.norm_first == norm_first:
            src_key_padding_mask = None
        return original(self, src, src_mask, src_key_padding_mask, is_causal, **kw)

    monkeypatch.setattr(layer, "forward", forward)
    check = _check("TransformerEncoderLayer: pre-norm and post-norm")
    for case in check.make_cases(0):
        problem = check.verdict(case, check.program(sp, **case.inputs))
        assert bool(problem) == (
            "padding" in case.inputs and case.inputs["norm_first"] == norm_first
        )
        if problem:
            assert "the padding mask was not passed on" in problem, problem


def test_the_reference_padded_block_is_pytorchs() -> None:
    torch = pytest.importorskip("torch")
    for norm_first, causal in ((True, False), (False, True)):
        case = cases.block_case(
            np.random.default_rng(6),
            3,
            5,
            6,
            2,
            8,
            norm_first=norm_first,
            causal=causal,
            padding=True,
        )
        i = case.inputs
        layer = torch.nn.TransformerEncoderLayer(
            6, 2, 8, 0.0, "gelu", batch_first=True, norm_first=norm_first, dtype=torch.float64
        )
        layer.load_state_dict({k: torch.tensor(v) for k, v in i["params"].items()})
        mask = torch.nn.Transformer.generate_square_subsequent_mask(5, dtype=torch.float64)
        x = torch.tensor(i["x"], requires_grad=True)
        out = layer(
            x,
            src_mask=mask if causal else None,
            src_key_padding_mask=torch.tensor(np.where(i["padding"], -np.inf, 0.0)),
            is_causal=causal,
        )
        np.testing.assert_allclose(case.expected.out, out.detach().numpy(), rtol=1e-12, atol=1e-13)
        out.backward(torch.tensor(i["g"]))
        np.testing.assert_allclose(case.expected.grad, x.grad.numpy(), rtol=1e-9, atol=1e-11)
        assert i["padding"].sum() == 3 and not i["padding"][:, 0].any()


@pytest.mark.parametrize(
    ("where", "says"),
    [
        ("output", "dropout was applied to the output (dropout(weights @ v)), not to the weights"),
        ("nowhere", "out[…, :S] equals the weights, none dropped"),
        ("weights", "the weights returned are after dropout"),
    ],
)
def test_dropout_at_one_half_names_where_it_went(monkeypatch, where: str, says: str) -> None:
    original = ATTENTION.attention
    dropout = ATTENTION.dropout

    def attention(query, key, value, mask=None, scale=None, dropout_p=0.0):
        out, weights = original(query, key, value, mask, scale, 0.0)
        if where == "output":
            return dropout(out, dropout_p), weights
        if where == "weights":
            weights = dropout(weights, dropout_p)
            return weights @ value, weights
        return out, weights

    monkeypatch.setattr(ATTENTION, "attention", attention)
    problem = _first_problem("attention: dropout_p = 0.5 drops the weights")
    assert says in problem, problem


def test_the_half_dropout_case_holds_its_properties() -> None:
    """v = [I | 1]: out[…, :S] is dropout(w), out[…, S] its row sums (NumPy, a drawn keep)."""
    case = cases.dropout_half_case(np.random.default_rng(7), (2,), 3, 4, 2)
    w, v = case.expected.weights, case.inputs["v"]
    keep = np.random.default_rng(8).random(w.shape) < 0.5
    out = np.where(keep, w / 0.5, 0.0) @ v
    assert out.shape == case.expected.shape
    np.testing.assert_allclose(out[..., :-1], np.where(keep, 2 * w, 0.0), rtol=1e-15)
    np.testing.assert_allclose(out[..., -1], out[..., :-1].sum(axis=-1), rtol=1e-14)


def _float64_softmax(ctx, x):
    xp = np
    m = x.data.max(axis=-1, keepdims=True)
    m = xp.where(m == -xp.inf, 0, m)
    e = xp.exp((x.data - m).astype(np.float64))
    s = e.sum(axis=-1, keepdims=True)
    ctx.save_for_backward(x)
    ctx.out = e / xp.where(s == 0, 1, s)
    return ctx.out


def _float64_attention(query, key, value, mask=None, scale=None, dropout_p=0.0):
    """A bool mask turned into a float64 additive one: the scores promote to float64."""
    scale = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = (query @ key.transpose(-2, -1)) * scale
    if mask is not None and mask.dtype == sp.bool:
        scores = scores + sp.Tensor(np.where(mask.data, 0.0, -np.inf))
    elif mask is not None:
        scores = scores + mask
    weights = SOFTMAX.safe_softmax(scores)
    return ATTENTION.dropout(weights, dropout_p) @ value, weights


def _float64_step(state, scores, values):
    m, total, acc = state
    m_new = np.maximum(m, scores.max(axis=-1, keepdims=True))
    safe = np.where(m_new == -np.inf, 0, m_new)
    alpha = np.exp((m - safe).astype(np.float64))
    p = np.exp((scores - safe).astype(np.float64))
    return m_new, alpha * total + p.sum(axis=-1, keepdims=True), alpha * acc + p @ values


@pytest.mark.parametrize(
    ("target", "name", "value", "check"),
    [
        (
            "softmax",
            "forward",
            staticmethod(_float64_softmax),
            "safe_softmax: values and the gradient",
        ),
        ("attention", "attention", _float64_attention, "attention: values, weights and gradients"),
        ("tiled", "online_step", _float64_step, "online_step"),
        (
            "tiled",
            "finish",
            lambda state: state[2] / np.where(state[1] == 0, 1.0, state[1]).astype(np.float64),
            "finish",
        ),
    ],
)
def test_float64_inside_a_float32_run_is_named(monkeypatch, target, name, value, check) -> None:
    """Returned in float64 (the verdict's words), or, where the next operation meets float64
    and float32 and raises (attention's weights @ v), words added to the raise."""
    owner = SOFTMAX.SafeSoftmax if target == "softmax" else programs.module(sp, target)
    monkeypatch.setattr(owner, name, value)
    try:
        problem = _first_problem(check)
    except RuntimeError as error:
        problem = str(error)
        assert "same dtype" in problem and target == "attention", problem
    else:
        assert "has dtype float64 for float32 inputs" in problem, problem
    assert "computed in float64: the result must keep the input's dtype (float32)" in problem


# -- four more slips named (B's probes after the review) ----------------------------------------


def test_an_online_maximum_over_the_whole_tile_is_named(monkeypatch) -> None:
    """scores.max() (every row of the tile at once) in place of each row's maximum."""

    def whole(state, scores, values):
        m, total, acc = state
        m_new = np.maximum(m, scores.max())
        safe = np.where(m_new == -np.inf, 0, m_new)
        alpha, p = np.exp(m - safe), np.exp(scores - safe)
        return m_new, alpha * total + p.sum(axis=-1, keepdims=True), alpha * acc + p @ values

    monkeypatch.setattr(programs.module(sp, "tiled"), "online_step", whole)
    problem = _first_problem("online_step")
    assert "the tile's maximum was taken over the whole tile" in problem, problem


def test_a_post_norm_second_residual_from_the_blocks_input_is_named(monkeypatch) -> None:
    """Post-norm x = LN₂(src + FF(x)): the first case (pre-norm) passes, the post-norm one
    names it."""
    layer = sp.nn.TransformerEncoderLayer
    original = layer.forward

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False, **kw):
        if self.norm_first:
            return original(self, src, src_mask, src_key_padding_mask, is_causal, **kw)
        sa = self._sa_block(src, src_mask, src_key_padding_mask, is_causal, kw.get("kv_cache"))
        return self.norm2(src + self._ff_block(self.norm1(src + sa)))

    monkeypatch.setattr(layer, "forward", forward)
    problem = _first_problem("TransformerEncoderLayer: pre-norm and post-norm")
    assert "post-norm" in problem and "the second residual added the block's input" in problem


def test_a_float_mask_inverted_as_a_bool_one_is_named(monkeypatch) -> None:
    """~mask on a float mask raises; the program adds the words to the raise."""

    def attention(query, key, value, mask=None, scale=None, dropout_p=0.0):
        scale = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
        scores = (query @ key.transpose(-2, -1)) * scale
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = SOFTMAX.safe_softmax(scores)
        return weights @ value, weights

    monkeypatch.setattr(ATTENTION, "attention", attention)
    with pytest.raises(TypeError, match="a float mask is added to the scores"):
        _first_problem("attention: values, weights and gradients")


def test_an_ignored_temperature_is_named(monkeypatch) -> None:
    def next_token_probs(logits, temperature=1.0, top_k=None):
        if top_k is not None and top_k < logits.shape[-1]:
            kth = logits.topk(top_k, dim=-1).values[..., -1:]
            logits = logits.masked_fill(logits < kth, float("-inf"))
        return sp.nn.functional.softmax(logits, dim=-1)

    monkeypatch.setattr(programs.module(sp, "sampling"), "next_token_probs", next_token_probs)
    problem = _first_problem("next_token_probs: temperature and top-k")
    assert "the temperature was ignored" in problem, problem

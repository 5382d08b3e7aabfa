"""What only chapter 5's checks do (every chapter's contracts: tests/test_contracts.py; its
variants: tests/variants/ch05_broken.py and ch05_held_out.py, judged by
tests/test_variants.py): random draws judged by deterministic tests as well as by their
moments. Honest NumPy draws pass the pattern tests at every seed tried (their bounds are
computed in ``cases.repeats_problem``, ``pattern_problem`` and ``neighbour_problem``);
values with the right moments that are not independent draws (a grid, a table reused,
antithetic pairs, sorted draws, a fixed dropout pattern, one mask row for the batch) are
named (the hidden checks alone fail the broken variants that cheat so: CH05_SHARED in
tests/test_hidden_checks.py)."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

from autograder.checks.ch05_nn import CHECKS as PUBLIC
from autograder.checks.ch05_nn import _bn_wrong, _ce_wrong, _masks_differ
from autograder.checks.ch05_nn.cases import (
    masks_coincide,
    neighbour_problem,
    pattern_problem,
    repeats_problem,
    sample_problem,
)
from autograder.hidden.ch05_nn import CHECKS as HIDDEN

SIZES = [(30, 100), (50, 200), (12, 3000)]


def _judged(values: np.ndarray, kind: str, scale: float) -> str | None:
    """The init verdict's order: repeats, the moments, then the patterns."""
    return (
        repeats_problem(values, "w")
        or sample_problem(values, kind, scale, "w")
        or pattern_problem(values, kind, scale, "w")
    )


def test_honest_draws_pass_every_test() -> None:
    """U(-b, b) and N(0, σ²) from NumPy, float64 and float32 (a float32 draw is coarser:
    some values repeat), at the checks' sizes, 100 seeds each; Bernoulli masks likewise."""
    for seed in range(100):
        rng = np.random.default_rng(seed)
        for shape in SIZES:
            b, s = 1 / math.sqrt(shape[1]), 0.05
            assert _judged(rng.uniform(-b, b, shape), "uniform", b) is None
            assert _judged(rng.normal(0, s, shape), "normal", s) is None
            coarse = rng.uniform(-b, b, shape).astype(np.float32).astype(np.float64)
            assert _judged(coarse, "uniform", b) is None
            for p in (0.1, 0.3, 0.5, 0.8, 0.9):
                assert neighbour_problem((rng.random(shape) >= p) * 1.0) is None


def test_the_correlation_of_independent_draws_has_the_stated_spread() -> None:
    """The bound 7/√n assumes the neighbour correlation ≈ N(0, 1/n): its spread over 2000
    honest draws is 1/√n within 10%."""
    rng = np.random.default_rng(7)
    n = 3000
    for draw in (lambda: rng.normal(0, 1, n), lambda: (rng.random(n) >= 0.9) * 1.0):
        rs = []
        for _ in range(2000):
            c = draw()
            c = c - c.mean()
            rs.append(float(np.sum(c[:-1] * c[1:]) / np.sum(c * c)) * math.sqrt(n))
        assert 0.9 < float(np.std(rs)) < 1.1


def _cheats(rng: np.random.Generator, shape: tuple, b: float) -> list[tuple[str, np.ndarray]]:
    n = math.prod(shape)
    grid = rng.permutation(np.linspace(-b, b, n)).reshape(shape)
    half = rng.uniform(-b, b, n // 2)
    return [
        ("is a grid", grid),
        ("repeats its values", np.tile(half, 2).reshape(shape)),
        ("holds values and their negatives", np.concatenate([half, -half]).reshape(shape)),
        ("next to each other", np.sort(rng.uniform(-b, b, n)).reshape(shape)),
    ]


@pytest.mark.parametrize("shape", SIZES)
def test_values_with_the_right_moments_that_are_not_draws_are_named(shape: tuple) -> None:
    """Each cheat passes the moments (that is what makes it a cheat) and is named."""
    rng = np.random.default_rng(3)
    b = 1 / math.sqrt(shape[1])
    for words, values in _cheats(rng, shape, b):
        assert sample_problem(values, "uniform", b, "w") is None, words
        found = _judged(values, "uniform", b)
        assert found and words in found, (words, found)


def test_a_dropout_mask_that_is_a_pattern_is_named() -> None:
    """A fixed pattern with the right keep fraction (element i dropped where frac(i·p) < p)
    and one mask row broadcast over the batch, at the public and hidden rates and sizes."""
    rng = np.random.default_rng(5)
    for shape, p in [((100, 200), 0.3), ((20000,), 0.8), ((50, 40), 0.4), ((120, 150), 0.1)]:
        n = math.prod(shape)
        weyl = (((np.arange(n) * p + 1e-9) % 1.0) >= p).reshape(shape) * 1.0
        assert abs(weyl.mean() - (1 - p)) < 1 / n + 1e-9
        found = neighbour_problem(weyl)
        assert found and (len(shape) > 1 or "next to each other" in found), (shape, p, found)
        if len(shape) == 2:
            rows = np.broadcast_to(rng.random(shape[-1]) >= p, shape) * 1.0
            found = neighbour_problem(rows)
            assert found and f"one row ({shape[-1]} elements) apart" in found, found


def test_masks_are_compared_across_seeds_where_chance_cannot_make_them_equal() -> None:
    """Every dropout row that draws a mask with a generator (public and hidden) is judged by
    the "two seeds, two masks" and "one generator, two masks" rules; p = 0 and p = 1 are
    not (there is no mask)."""
    assert masks_coincide(0.5, 20) == 0.5**20 and masks_coincide(0.0, 50) == 1.0
    rows = [
        case
        for check in [*PUBLIC, *HIDDEN]
        if check.name.startswith("dropout")
        for case in check.make_cases(0)
        if case.inputs["generator"] and not case.inputs["module"] and case.inputs["training"]
    ]
    drawn = [c for c in rows if 0 < c.inputs["p"] < 1]
    assert len(drawn) >= 5 and all(_masks_differ(c) for c in drawn)
    assert not any(_masks_differ(c) for c in rows if c.inputs["p"] in (0, 1))


# -- the verdicts rest on values the parent compares (issue 26) ------------------------------


def _tampered(record: dict, path: str, value: object) -> dict:
    """A copy of ``record`` with the entry at ``path`` ("key" or "key.sub", "key.0")
    replaced by ``value``: what a program would have sent had the code under test drawn
    so."""
    out = copy.deepcopy(record)
    *parents, last = path.split(".")
    place = out
    for part in parents:
        place = place[int(part)] if isinstance(place, list) else place[part]
    place[int(last) if isinstance(place, list) else last] = value
    return out


# (check, which of its cases, the entry changed, its new value from the record, the words)
TAMPERS = [
    ("Linear: PyTorch's default", 0, "again.weight", lambda r: r["weight"] + 1.0, "differ"),
    (
        "Linear: PyTorch's default",
        0,
        "other",
        lambda r: {"weight": r["weight"].copy(), "bias": r["bias"].copy()},
        "have the same weight and bias: draw with init.uniform_",
    ),
    (
        "Linear: PyTorch's default",
        2,
        "following",
        lambda r: copy.deepcopy(r["again"]),
        "one after the other have the same weight:",
    ),
    ("Linear: PyTorch's default", 0, "reset.1", lambda r: r["reset"][0].copy(), "left the same"),
    ("xavier and kaiming", 0, "again", lambda r: r["values"] * 0.5, "ignores generator="),
    ("xavier and kaiming", 0, "other", lambda r: r["values"].copy(), "values for generators"),
    ("xavier and kaiming", 0, "twice", lambda r: r["again"].copy(), "called twice with one"),
    ("xavier and kaiming", 0, "global_again", lambda r: -r["global"], "not repeatable"),
    ("xavier and kaiming", 0, "global_other", lambda r: r["global"].copy(), "same values after"),
    ("xavier and kaiming", 0, "global_next", lambda r: r["global_again"].copy(), "twice in a row"),
    ("dropout", 0, "seeded.b", lambda r: r["seeded"]["a"] * 0.5, "ignores generator="),
    ("dropout", 0, "seeded.c", lambda r: r["seeded"]["a"].copy(), "seeded 5 and 6: two different"),
    (
        "dropout",
        0,
        "seeded",
        lambda r: {**r["seeded"], "c": r["seeded"]["a"].copy(), "twice": r["seeded"]["a"].copy()},
        "whatever the generator",
    ),
    ("dropout", 0, "seeded.twice", lambda r: r["seeded"]["a"].copy(), "with generator=g gave"),
    (
        "dropout",
        3,
        "generator_moved.state",
        lambda r: {**r["generator_moved"]["state"], "uinteger": 1},
        "in eval() drew random numbers",
    ),
    (
        "BatchNorm1d",
        0,
        "eval_after.1",
        lambda r: r["eval_after"][1] + 1.0,
        "eval() changed running_var",
    ),
    ("DataLoader", 7, "rows.0.0", lambda r: r["rows"][0][0] + 2.0, "do not belong to its y items"),
]


@pytest.mark.parametrize("tamper", TAMPERS, ids=lambda t: f"{t[0][:12]}:{t[2]}")
def test_the_generator_and_left_alone_verdicts_compare_the_values_sent(tamper: tuple) -> None:
    """Linear's, init's and dropout's generator rules, BatchNorm's buffers in eval() and a
    TensorDataset batch's rows are judged in the parent from the values the program sends
    (a flag worked out in the child could be changed by the code under test): the
    reference's record passes, and the same record with one value as a wrong
    implementation would have drawn it is named."""
    import solutions.ch05_nn as sp

    name, index, path, value, words = tamper
    check = next(c for c in PUBLIC if c.name.startswith(name))
    case = check.make_cases(0)[index]
    got = check.program(sp, **case.inputs)
    assert check.verdict(case, got) is None
    found = check.verdict(case, _tampered(got, path, value(got)))
    assert found and words in str(found), (path, found)


def test_the_known_mistakes_are_built_on_the_right_formulas() -> None:
    """Issue 29: the wrong values 5.7's and 5.10's mistakes compute (``_ce_wrong``,
    ``_bn_wrong``) start from the right computation: with no mistake made they give every
    public and hidden case's expectation, so a diagnosis names what differs from it."""
    checks = [c for c in PUBLIC + HIDDEN if c.task in ("5.7", "5.10")]
    for check in checks:
        for case in check.make_cases(0):
            if check.task == "5.7":
                got = _ce_wrong("no mistake")(case)
                assert np.allclose(got, case.expected.grad, equal_nan=True), case.label
            else:
                for got, want in zip(_bn_wrong("outs")(case), case.expected.outs):
                    assert np.allclose(got, want), case.label

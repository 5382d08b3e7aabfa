"""The random draws and the device questions without PyTorch (issue 27, item 2): the draws
that take ``generator=`` (``randn``, ``rand``, ``randint``, ``randperm``, ``normal``,
``multinomial`` and the ``_like`` forms) repeat for one seed, differ for another and leave
the global stream alone; their statistics are right (a chi-square frequency check with a
stated bound, at fixed seeds, so every run is the same); the factories and draws on the
simulated device give the CPU's values; ``sp.accelerator`` and ``sp.backends.mps`` answer as
PyTorch does on a machine like this one, and both device-picking idioms of the tutorials
run. (``tests/test_torch_creation.py`` compares signatures, dtypes and errors with
PyTorch.)"""

from __future__ import annotations

import numpy as np
import pytest

from solutions import ch07_device as sp
from support import device_bench

WHY_NO_GPU = device_bench.why_no_gpu()
CUDA = pytest.param(
    "cuda",
    marks=[
        pytest.mark.gpu,
        pytest.mark.skipif(WHY_NO_GPU is not None, reason=f"no usable GPU: {WHY_NO_GPU}"),
    ],
    id="cuda",
)
DEVICES = [CUDA, pytest.param("sim", id="sim")]

# chi-square critical values at p = 0.001 (so an honest generator fails one in a thousand
# seeds; the seeds are fixed, so a pass is a pass on every run)
CHI2_999 = {1: 10.83, 2: 13.82, 3: 16.27, 4: 18.47, 5: 20.52, 9: 27.88}


def _chi2(counts: np.ndarray, probabilities: np.ndarray) -> float:
    expected = probabilities * counts.sum()
    return float(((counts - expected) ** 2 / expected).sum())


def _gen(seed: int) -> sp.Generator:
    return sp.Generator().manual_seed(seed)


DRAWS = {
    "randn": lambda g: sp.randn(3, 4, generator=g),
    "rand": lambda g: sp.rand(5, generator=g, dtype=sp.float64),
    "randint": lambda g: sp.randint(2, 9, (6,), generator=g),
    "randperm": lambda g: sp.randperm(10, generator=g),
    "normal": lambda g: sp.normal(1.0, 2.0, (4,), generator=g),
    "normal of tensors": lambda g: sp.normal(sp.zeros(2, 3), sp.ones(3), generator=g),
    "multinomial": lambda g: sp.multinomial(sp.tensor([1.0, 2.0, 3.0, 4.0]), 3, generator=g),
    "multinomial replacement": lambda g: sp.multinomial(
        sp.tensor([[1.0, 2.0], [5.0, 1.0]]), 6, True, generator=g
    ),
    "multinomial method": lambda g: sp.ones(8).multinomial(4, generator=g),
    "randn_like": lambda g: sp.randn_like(sp.zeros(2, 2), generator=g),
    "rand_like": lambda g: sp.rand_like(sp.zeros(3, dtype=sp.float64), generator=g),
}


@pytest.mark.parametrize("name", DRAWS)
def test_a_seed_repeats_its_draws_and_another_seed_differs(name) -> None:
    draw = DRAWS[name]
    first, again, other = draw(_gen(7)), draw(_gen(7)), draw(_gen(8))
    assert first.tolist() == again.tolist()
    assert first.tolist() != other.tolist()


@pytest.mark.parametrize("name", DRAWS)
def test_a_generator_leaves_the_global_stream_alone(name) -> None:
    sp.manual_seed(3)
    want = sp.rand(4).tolist()
    sp.manual_seed(3)
    DRAWS[name](_gen(1))
    assert sp.rand(4).tolist() == want


def test_the_global_seed_repeats_every_draw() -> None:
    def run() -> list:
        sp.manual_seed(11)
        return [
            sp.randn(3).tolist(),
            sp.randint(10, (3,)).tolist(),
            sp.normal(0.0, 1.0, (2,)).tolist(),
            sp.multinomial(sp.ones(5), 5).tolist(),
            sp.randperm(5).tolist(),
        ]

    assert run() == run()


def test_a_generator_is_a_generator() -> None:
    for draw in (
        lambda: sp.randn(2, generator=np.random.default_rng(0)),
        lambda: sp.randint(3, (2,), generator=0),
        lambda: sp.multinomial(sp.ones(2), 1, generator="seed"),
    ):
        with pytest.raises(TypeError, match="Generator"):
            draw()


# -- ranges and statistics ---------------------------------------------------------------------


def test_randint_is_uniform_on_its_range() -> None:
    values = sp.randint(-2, 3, (20000,), generator=_gen(0)).numpy()
    assert values.dtype == np.int64 and values.min() == -2 and values.max() == 2
    counts = np.bincount(values + 2, minlength=5)
    assert _chi2(counts, np.full(5, 0.2)) < CHI2_999[4]


def test_rand_and_randn_have_their_moments() -> None:
    n = 40000
    u = sp.rand(n, generator=_gen(1), dtype=sp.float64).numpy()
    assert 0 <= u.min() and u.max() < 1
    assert abs(u.mean() - 0.5) < 5 * np.sqrt(1 / 12 / n)  # five standard errors
    z = sp.randn(n, generator=_gen(2), dtype=sp.float64).numpy()
    assert abs(z.mean()) < 5 / np.sqrt(n) and abs(z.std() - 1) < 5 / np.sqrt(2 * n)


def test_normal_has_the_mean_and_std_asked_for() -> None:
    n = 40000
    x = sp.normal(3.0, 0.5, (n,), generator=_gen(3), dtype=sp.float64).numpy()
    assert abs(x.mean() - 3.0) < 5 * 0.5 / np.sqrt(n)
    assert abs(x.std() - 0.5) < 5 * 0.5 / np.sqrt(2 * n)
    mean = sp.tensor([[-10.0], [10.0]], dtype=sp.float64)
    std = sp.tensor([1.0, 0.0, 2.0], dtype=sp.float64)
    draws = np.stack([sp.normal(mean, std, generator=_gen(s)).numpy() for s in range(2000)])
    assert draws.shape == (2000, 2, 3)
    np.testing.assert_array_equal(draws[:, :, 1], np.broadcast_to([-10.0, 10.0], (2000, 2)))
    np.testing.assert_allclose(draws.mean(axis=0), [[-10, -10, -10], [10, 10, 10]], atol=0.25)
    np.testing.assert_allclose(draws.std(axis=0), [[1, 0, 2], [1, 0, 2]], atol=0.15)


def test_multinomial_with_replacement_draws_by_weight() -> None:
    weights = np.array([1.0, 2.0, 0.0, 3.0, 4.0])  # not normalised; a zero never drawn
    drawn = sp.multinomial(sp.tensor(weights), 20000, True, generator=_gen(4)).numpy()
    counts = np.bincount(drawn, minlength=5)
    assert counts[2] == 0
    keep = weights > 0
    p = weights[keep] / weights.sum()
    assert _chi2(counts[keep], p) < CHI2_999[3]


def test_multinomial_rows_are_independent_distributions() -> None:
    weights = np.array([[1.0, 1.0, 1.0], [0.0, 1.0, 9.0]])
    drawn = sp.multinomial(sp.tensor(weights), 10000, True, generator=_gen(5)).numpy()
    assert drawn.shape == (2, 10000)
    assert _chi2(np.bincount(drawn[0], minlength=3), np.full(3, 1 / 3)) < CHI2_999[2]
    counts = np.bincount(drawn[1], minlength=3)
    assert counts[0] == 0 and _chi2(counts[1:], np.array([0.1, 0.9])) < CHI2_999[1]


def test_multinomial_without_replacement_draws_one_by_one_by_weight() -> None:
    """Without replacement: no index repeats in a row; the first draw follows the weights,
    and the second, given the first, the remaining weights renormalised."""
    weights = np.array([1.0, 2.0, 3.0, 4.0])
    n = 8000
    rows = sp.tensor(np.tile(weights, (n, 1)))
    drawn = sp.multinomial(rows, 2, generator=_gen(6)).numpy()
    assert drawn.shape == (n, 2) and np.all(drawn[:, 0] != drawn[:, 1])
    first = np.bincount(drawn[:, 0], minlength=4)
    assert _chi2(first, weights / weights.sum()) < CHI2_999[3]
    after3 = drawn[drawn[:, 0] == 3, 1]  # second draw given the first was 3: 1 : 2 : 3
    assert _chi2(np.bincount(after3, minlength=3)[:3], np.array([1, 2, 3]) / 6) < CHI2_999[2]
    whole = sp.multinomial(sp.tensor(weights), 4, generator=_gen(7)).tolist()
    assert sorted(whole) == [0, 1, 2, 3]


def test_randperm_is_a_permutation_in_every_position_alike() -> None:
    n, runs = 5, 5000
    perms = np.stack([sp.randperm(n, generator=_gen(s)).numpy() for s in range(runs)])
    assert np.all(np.sort(perms, axis=1) == np.arange(n))
    first = np.bincount(perms[:, 0], minlength=n)
    assert _chi2(first, np.full(n, 1 / n)) < CHI2_999[4]


# -- dtypes and the simulated device ----------------------------------------------------------


def test_draws_have_pytorchs_default_dtypes() -> None:
    assert sp.randint(5, (2,)).dtype == sp.int64
    assert sp.randint(5, (2,), dtype=sp.float32).dtype == sp.float32
    assert sp.randperm(3).dtype == sp.int64
    assert sp.normal(0.0, 1.0, (2,)).dtype == sp.float32
    assert sp.multinomial(sp.ones(3, dtype=sp.float64), 2).dtype == sp.int64
    sp.set_default_dtype(sp.float64)
    try:
        assert sp.normal(0.0, 1.0, (2,)).dtype == sp.float64
        assert sp.linspace(0, 1, 3).dtype == sp.float64
        assert sp.randn(2).dtype == sp.float64
    finally:
        sp.set_default_dtype(sp.float32)


def test_linspace_values_are_evenly_spaced_with_exact_ends() -> None:
    x = sp.linspace(-1.5, 2.5, 9, dtype=sp.float64).numpy()
    np.testing.assert_allclose(x, -1.5 + 0.5 * np.arange(9), rtol=0, atol=1e-15)
    assert x[0] == -1.5 and x[-1] == 2.5
    assert sp.linspace(0, 10, 5, dtype=sp.int64).tolist() == [0, 2, 5, 7, 10]  # truncated
    assert sp.linspace(3, 4, 1).tolist() == [3.0] and sp.linspace(3, 4, 0).shape == (0,)


@pytest.mark.parametrize("target", DEVICES)
def test_factories_and_draws_on_a_device_give_the_cpus_values(target) -> None:
    def run(device: str) -> list:
        x = sp.tensor([[1.0, 2.0], [3.0, 0.0]]).to(device)
        made = [
            sp.linspace(0, 1, 7, device=device),
            sp.empty(2, 3, device=device),
            sp.full_like(x, 2.5),
            sp.zeros_like(x, dtype=sp.int64),
            sp.ones_like(x.cpu(), device=device),
            sp.empty_like(x),
            sp.randn_like(x, generator=_gen(0)),
            sp.rand_like(x, generator=_gen(1)),
            sp.randint(4, (3,), generator=_gen(2), device=device),
            sp.randperm(4, generator=_gen(3), device=device),
            sp.normal(x, 1.0, generator=_gen(4)),
            sp.normal(0.0, 1.0, (2,), generator=_gen(5), device=device),
            sp.multinomial(x, 2, generator=_gen(6)),
            x.multinomial(3, True, generator=_gen(7)),
        ]
        for t in made:
            assert t.device.type == device, t
        return [t.tolist() for t in made]

    assert run(target) == run("cpu")


@pytest.mark.parametrize("target", DEVICES)
def test_the_small_methods_on_a_device(target) -> None:
    x = sp.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=sp.float64).to(target).requires_grad_()
    assert x.type() == f"torch.{target}.DoubleTensor"
    assert x.type(sp.float32).device.type == target
    assert ["a", "b", "c"][sp.tensor(2).to(target)] == "c"
    for constant in (x.detach(), sp.tensor([1, 2]).to(target)):
        copy = constant.clone()
        assert copy.device.type == target and copy.data is not constant.data
        assert copy.tolist() == constant.tolist()
    assert x.equal(x.clone()) and not x.equal(x.t()) and sp.eq(x, x.mT).device.type == target
    (x.t() * x.clone() + x.view_as(x) * x.expand_as(x)).sum().backward()
    assert x.grad.device.type == target
    a = np.array([[1.0, 2.0], [3.0, 4.0]])  # d/dx Σ xᵀ⊙x + Σ x⊙x = 2xᵀ + 2x
    np.testing.assert_array_equal(x.grad.cpu().numpy(), 2 * a.T + 2 * a)


@pytest.mark.parametrize("target", DEVICES)
def test_a_like_factory_goes_where_it_is_told(target) -> None:
    x = sp.ones(2, 2).to(target)
    for make in (sp.zeros_like, sp.ones_like, sp.empty_like, sp.randn_like, sp.rand_like):
        assert make(x).device.type == target
        assert make(x, device="cpu").device.type == "cpu"
        assert make(sp.ones(2), device=target).device.type == target
    assert sp.full_like(x, 3, device="cpu").tolist() == [[3.0, 3.0], [3.0, 3.0]]


def test_a_like_factory_takes_a_tensor() -> None:
    for make in (sp.zeros_like, sp.empty_like, sp.rand_like):
        with pytest.raises(TypeError, match="Tensor"):
            make([1.0, 2.0])


def test_normals_gradient_is_zero_on_the_simulated_device_too() -> None:
    mean = sp.tensor([1.0, 2.0], dtype=sp.float64).to("sim").requires_grad_()
    sp.normal(mean, 2.0, generator=_gen(0)).sum().backward()
    assert mean.grad.device.type == "sim" and mean.grad.tolist() == [0.0, 0.0]


# -- the small methods where PyTorch is not needed to know the answer -------------------------


def test_type_names_the_device() -> None:
    x = sp.ones(2, dtype=sp.int64)
    assert x.type() == "torch.LongTensor"
    assert x.to("sim").type() == "torch.sim.LongTensor"
    assert x.type("torch.DoubleTensor").dtype == sp.float64
    with pytest.raises(ValueError, match="invalid type"):
        x.type("torch.sim.FloatTensor")  # PyTorch's names: torch. and torch.cuda. only


def test_clone_copies_the_data() -> None:
    for x in (sp.tensor([1.0, 2.0], requires_grad=True), sp.tensor([1, 2])):
        y = x.clone()
        assert y is not x and y.data is not x.data and y.tolist() == x.tolist()
        assert y.requires_grad == x.requires_grad and (y.grad_fn is None) != x.requires_grad
    z = sp.tensor([1, 2])
    w = z.clone()
    w.data[0] = 5
    assert z.tolist() == [1, 2]


# -- the accelerator questions -----------------------------------------------------------------


def test_the_accelerator_is_cuda_when_it_can_be_used_else_none() -> None:
    available = sp.cuda.is_available()
    assert sp.accelerator.is_available() is available
    if available:
        assert sp.accelerator.current_accelerator() == sp.device("cuda")
        assert sp.accelerator.device_count() == sp.cuda.device_count() >= 1
        assert sp.accelerator.current_device_index() == 0
    else:
        assert sp.accelerator.current_accelerator() is None
        assert sp.accelerator.current_accelerator(check_available=True) is None
        assert sp.accelerator.device_count() == 0
        assert sp.accelerator.current_device_index() == -1
    sp.accelerator.synchronize()  # returns, with or without a GPU


def test_there_is_no_apple_gpu() -> None:
    assert sp.backends.mps.is_available() is False
    assert sp.backends.mps.is_built() is False
    assert "cpu" in sp.backends.BACKENDS  # still the device registry


def test_both_device_picking_idioms_of_the_tutorials_run() -> None:
    want = "cuda" if sp.cuda.is_available() else "cpu"
    device = sp.accelerator.current_accelerator().type if sp.accelerator.is_available() else "cpu"
    assert device == want
    device = (
        "cuda" if sp.cuda.is_available() else "mps" if sp.backends.mps.is_available() else "cpu"
    )
    assert device == want
    assert sp.ones(2, device=device).device.type == want

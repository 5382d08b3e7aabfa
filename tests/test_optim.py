"""Chapter 6's optimizers, schedules and clipping against closed forms (no PyTorch needed).

Each optimizer runs on gradients whose trajectory can be written down: a constant gradient
(SGD's momentum buffer is a geometric sum, Adam's bias-corrected step is exactly η·sign(g)
when ε = 0, RMSprop's averages are (1 − αᵗ)·g²), a quadratic (plain SGD contracts by
1 − η(a + λ) per step) or one large gradient followed by zeros (AMSGrad keeps the first
second moment). Each schedule is checked at the steps where its value is known (the
milestones, the cosine's ends and middle, OneCycle's start, peak and end). A checkpoint of
model, optimizer, scheduler and the DataLoader's generator, written by ``sp.save`` and read
by ``sp.load``, resumes a run bit for bit. Bad options are refused with PyTorch's messages
(``tests/test_torch_optim.py`` checks that they are PyTorch's), a step records no graph
and never writes into a gradient, and parameters without a gradient are left alone.
Only the reference (``solutions/``) is tested here; chapter 6's checks grade students.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from solutions import ch06_optim as sp

optim, lr_scheduler = sp.optim, sp.optim.lr_scheduler
RTOL = 1e-12


def param(values, dtype=np.float64):
    return sp.nn.Parameter(sp.tensor(np.array(values, dtype=dtype)))


def constant_run(opt, p, g, steps: int) -> list[np.ndarray]:
    """``steps`` steps with the gradient ``g`` every time; p's array after each."""
    out = []
    for _ in range(steps):
        p.grad = sp.tensor(np.array(g, dtype=p.dtype))
        opt.step()
        out.append(np.array(p.data))
    return out


P0, G = np.array([1.0, -2.0, 0.5]), np.array([0.3, -1.5, 2.0])
T = 25


# -- SGD --------------------------------------------------------------------------------------


def test_sgd_constant_gradient_moves_linearly():
    p = param(P0)
    traj = constant_run(optim.SGD([p], lr=0.1), p, G, T)
    for t, pt in enumerate(traj, 1):
        np.testing.assert_allclose(pt, P0 - 0.1 * G * t, rtol=RTOL)


@pytest.mark.parametrize("nesterov, dampening", [(False, 0.0), (False, 0.3), (True, 0.0)])
def test_sgd_momentum_is_a_geometric_sum(nesterov, dampening):
    """b_1 = g, b_k = μ b_{k−1} + (1 − τ) g, so b_k = g (μ^{k−1} + (1 − τ)(1 − μ^{k−1})/(1 − μ));
    the step is b_k, or g + μ b_k with Nesterov."""
    lr, mu = 0.05, 0.9
    p = param(P0)
    opt = optim.SGD([p], lr=lr, momentum=mu, dampening=dampening, nesterov=nesterov)
    traj = constant_run(opt, p, G, T)
    expected = P0.copy()
    for k, pt in enumerate(traj, 1):
        b = G * (mu ** (k - 1) + (1 - dampening) * (1 - mu ** (k - 1)) / (1 - mu))
        expected = expected - lr * (G + mu * b if nesterov else b)
        np.testing.assert_allclose(pt, expected, rtol=1e-10)
    np.testing.assert_allclose(opt.state[p]["momentum_buffer"].data, b, rtol=1e-10)


def test_sgd_on_a_quadratic_contracts_geometrically():
    """f = ½ a p², g = a p; with weight decay λ each step multiplies p by 1 − η(a + λ)."""
    a, lr, wd = 3.0, 0.05, 0.4
    p = param(P0)
    opt = optim.SGD([p], lr=lr, weight_decay=wd)
    for t in range(1, T + 1):
        p.grad = sp.tensor(a * p.data)
        opt.step()
        np.testing.assert_allclose(p.data, (1 - lr * (a + wd)) ** t * P0, rtol=1e-10)


# -- Adagrad, RMSprop -------------------------------------------------------------------------


def test_adagrad_constant_gradient():
    """s_k = s₀ + k g², η_k = η / (1 + (k − 1) δ), p ← p − η_k g / (√s_k + ε)."""
    lr, decay, s0, eps = 0.1, 0.05, 0.2, 1e-10
    p = param(P0)
    opt = optim.Adagrad([p], lr=lr, lr_decay=decay, initial_accumulator_value=s0, eps=eps)
    traj = constant_run(opt, p, G, T)
    expected = P0.copy()
    for k, pt in enumerate(traj, 1):
        expected = expected - lr / (1 + (k - 1) * decay) * G / (np.sqrt(s0 + k * G**2) + eps)
        np.testing.assert_allclose(pt, expected, rtol=RTOL)
    assert opt.state[p]["step"] == T
    np.testing.assert_allclose(opt.state[p]["sum"].data, s0 + T * G**2, rtol=RTOL)


@pytest.mark.parametrize("centered", [False, True])
@pytest.mark.parametrize("momentum", [0.0, 0.6])
def test_rmsprop_constant_gradient(centered, momentum):
    """v_k = (1 − αᵏ) g²; centered, a_k = (1 − αᵏ) g so v_k − a_k² = g² αᵏ (1 − αᵏ);
    r_k = √(…) + ε; with momentum b_k = μ b_{k−1} + g / r_k and the step is η b_k."""
    lr, alpha, eps = 0.01, 0.9, 1e-8
    p = param(P0)
    opt = optim.RMSprop([p], lr=lr, alpha=alpha, eps=eps, momentum=momentum, centered=centered)
    traj = constant_run(opt, p, G, T)
    expected, b = P0.copy(), np.zeros_like(P0)
    for k, pt in enumerate(traj, 1):
        spread = alpha**k * (1 - alpha**k) if centered else 1 - alpha**k
        r = np.abs(G) * math.sqrt(spread) + eps
        b = momentum * b + G / r
        expected = expected - lr * b
        np.testing.assert_allclose(pt, expected, rtol=1e-10)
    np.testing.assert_allclose(opt.state[p]["square_avg"].data, (1 - alpha**T) * G**2, rtol=RTOL)
    assert ("grad_avg" in opt.state[p]) == centered
    assert ("momentum_buffer" in opt.state[p]) == (momentum > 0)


# -- Adam, AdamW ------------------------------------------------------------------------------


def test_adam_first_step_is_lr_times_sign():
    """m₁ = (1 − β₁) g, v₁ = (1 − β₂) g²: after bias correction the step is η g / (|g| + ε)."""
    lr = 0.01
    for eps in (0.0, 1e-8):
        p = param(P0)
        (p1,) = constant_run(optim.Adam([p], lr=lr, eps=eps), p, G, 1)
        np.testing.assert_allclose(p1, P0 - lr * G / (np.abs(G) + eps), rtol=RTOL)
    p = param(P0)
    (p1,) = constant_run(optim.Adam([p], lr=lr, eps=0.0), p, G, 1)
    np.testing.assert_allclose(p1, P0 - lr * np.sign(G), rtol=RTOL)


def test_adam_bias_correction_keeps_every_step_lr():
    """Constant g: m_t = (1 − β₁ᵗ) g, v_t = (1 − β₂ᵗ) g², and every corrected step is η·sign(g)
    (uncorrected, the first would be η (1 − β₁)/√(1 − β₂) ≈ 3.2 η)."""
    lr, b1, b2 = 0.01, 0.9, 0.999
    p = param(P0)
    opt = optim.Adam([p], lr=lr, betas=(b1, b2), eps=0.0)
    traj = constant_run(opt, p, G, T)
    for t, pt in enumerate(traj, 1):
        np.testing.assert_allclose(pt, P0 - lr * t * np.sign(G), rtol=1e-10)
    state = opt.state[p]
    assert state["step"] == T
    np.testing.assert_allclose(state["exp_avg"].data, (1 - b1**T) * G, rtol=1e-10)
    np.testing.assert_allclose(state["exp_avg_sq"].data, (1 - b2**T) * G**2, rtol=1e-10)


@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam_one_gradient_then_zeros(amsgrad):
    """g = G at step 1, then 0: m_k = β₁^{k−1}(1 − β₁)G, v_k = β₂^{k−1}(1 − β₂)G²; AMSGrad
    divides by the largest v, v₁, instead."""
    lr, b1, b2, eps = 0.01, 0.8, 0.99, 1e-8
    p = param(P0)
    opt = optim.Adam([p], lr=lr, betas=(b1, b2), eps=eps, amsgrad=amsgrad)
    expected = P0.copy()
    for k in range(1, T + 1):
        p.grad = sp.tensor(G if k == 1 else np.zeros_like(G))
        opt.step()
        m = b1 ** (k - 1) * (1 - b1) * G
        v = (1 - b2) * G**2 if amsgrad else b2 ** (k - 1) * (1 - b2) * G**2
        expected = expected - lr / (1 - b1**k) * m / (np.sqrt(v) / math.sqrt(1 - b2**k) + eps)
        np.testing.assert_allclose(p.data, expected, rtol=1e-10)


def test_adamw_decays_the_weights_directly():
    """ε = 0, constant g: p_k = c p_{k−1} − η sign(g) with c = 1 − ηλ, so
    p_t = cᵗ p₀ − η sign(g) (1 − cᵗ)/(1 − c)."""
    lr, wd = 0.01, 0.5
    p = param(P0)
    traj = constant_run(optim.AdamW([p], lr=lr, weight_decay=wd, eps=0.0), p, G, T)
    c = 1 - lr * wd
    for t, pt in enumerate(traj, 1):
        np.testing.assert_allclose(pt, c**t * P0 - lr * np.sign(G) * (1 - c**t) / (1 - c))


@pytest.mark.parametrize(
    "make",
    [
        lambda ps, wd: optim.SGD(ps, lr=0.05, momentum=0.9, weight_decay=wd),
        lambda ps, wd: optim.Adagrad(ps, lr=0.1, weight_decay=wd),
        lambda ps, wd: optim.RMSprop(ps, lr=0.01, weight_decay=wd),
        lambda ps, wd: optim.Adam(ps, lr=0.01, weight_decay=wd),
    ],
    ids=["sgd", "adagrad", "rmsprop", "adam"],
)
def test_coupled_weight_decay_is_the_gradient_plus_lambda_p(make):
    """weight_decay=λ with gradient g is the same run as weight_decay=0 with g + λp."""
    wd, a, b = 0.3, param(P0), param(P0)
    opt_a, opt_b = make([a], wd), make([b], 0.0)
    for t in range(T):
        g = np.sin(a.data + t)
        a.grad = sp.tensor(g)
        b.grad = sp.tensor(np.sin(b.data + t) + wd * b.data)
        opt_a.step()
        opt_b.step()
        np.testing.assert_allclose(a.data, b.data, rtol=1e-12)


# -- what every optimizer shares --------------------------------------------------------------

EVERY = {
    "sgd": lambda ps: optim.SGD(ps, lr=0.05, momentum=0.9, weight_decay=0.1, nesterov=True),
    "adagrad": lambda ps: optim.Adagrad(ps, lr=0.1, weight_decay=0.1),
    "rmsprop": lambda ps: optim.RMSprop(ps, lr=0.01, momentum=0.5, centered=True, weight_decay=0.1),
    "adam": lambda ps: optim.Adam(ps, lr=0.01, weight_decay=0.1, amsgrad=True),
    "adamw": lambda ps: optim.AdamW(ps, lr=0.01),
}


@pytest.mark.parametrize("name", EVERY)
def test_a_step_builds_no_graph_and_never_writes_into_a_gradient(name):
    model = sp.nn.Sequential(sp.nn.Linear(3, 4), sp.nn.Tanh(), sp.nn.Linear(4, 1))
    opt = EVERY[name](model.parameters())
    x = sp.tensor(np.random.default_rng(0).normal(size=(5, 3)).astype(np.float32))
    for _ in range(3):
        opt.zero_grad()
        (model(x) ** 2).mean().backward()
        grads = {id(p): np.array(p.grad.data) for p in model.parameters()}
        opt.step()  # grad mode on, as in a training loop
        for p in model.parameters():
            assert p.is_leaf and p.grad_fn is None and p.requires_grad
            np.testing.assert_array_equal(p.grad.data, grads[id(p)])
        for state in opt.state.values():
            for value in state.values():
                if isinstance(value, sp.Tensor):
                    assert value.grad_fn is None and not value.requires_grad


@pytest.mark.parametrize("name", EVERY)
def test_one_gradient_shared_by_two_parameters(name):
    """Two leaves holding the same gradient object move as if each had its own copy."""
    a, b, c = param(P0), param(P0), param(P0)
    opt_ab, opt_c = EVERY[name]([a, b]), EVERY[name]([c])
    for t in range(5):
        shared = sp.tensor(np.cos(P0 * t))
        a.grad = b.grad = shared
        c.grad = sp.tensor(np.cos(P0 * t))
        opt_ab.step()
        opt_c.step()
    np.testing.assert_array_equal(a.data, c.data)
    np.testing.assert_array_equal(b.data, c.data)


@pytest.mark.parametrize("name", EVERY)
def test_parameters_without_a_gradient_are_skipped(name):
    moved, still = param(P0), param(P0)
    opt = EVERY[name]([moved, still])
    for _ in range(3):
        moved.grad = sp.tensor(G)
        opt.step()
    np.testing.assert_array_equal(still.data, P0)
    assert not np.array_equal(moved.data, P0)
    assert opt.state[still].get("step", 0) == 0
    assert "momentum_buffer" not in opt.state[still] and "exp_avg" not in opt.state[still]


def test_zero_grad_sets_none_or_new_zeros():
    p = param(P0)
    g = sp.tensor(G)
    p.grad = g
    optim.SGD([p]).zero_grad()
    assert p.grad is None
    p.grad = g
    optim.SGD([p]).zero_grad(set_to_none=False)
    assert p.grad is not g
    np.testing.assert_array_equal(p.grad.data, np.zeros_like(G))
    np.testing.assert_array_equal(g.data, G)  # the old gradient untouched


def test_param_groups_take_their_own_options():
    a, b = param(P0), param(P0)
    opt = optim.SGD([{"params": [a], "lr": 0.5}, {"params": b}], lr=0.1, momentum=0.0)
    assert [g["lr"] for g in opt.param_groups] == [0.5, 0.1]
    assert opt.param_groups[1]["params"] == [b] and opt.param_groups[1]["momentum"] == 0.0
    a.grad, b.grad = sp.tensor(G), sp.tensor(G)
    opt.step()
    np.testing.assert_allclose(a.data, P0 - 0.5 * G, rtol=RTOL)
    np.testing.assert_allclose(b.data, P0 - 0.1 * G, rtol=RTOL)


def test_step_returns_the_closure_loss_with_gradients_on():
    p = param(P0)
    opt = optim.SGD([p], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    with sp.no_grad():
        loss = opt.step(closure)
    assert float(loss.item()) == pytest.approx(float((P0**2).sum()))
    np.testing.assert_allclose(p.data, P0 - 0.1 * 2 * P0, rtol=RTOL)


# -- bad options: PyTorch's errors ------------------------------------------------------------

BAD = [
    (lambda p: optim.SGD([p], lr=-0.1), ValueError, "Invalid learning rate: -0.1"),
    (lambda p: optim.SGD([p], momentum=-0.5), ValueError, "Invalid momentum value: -0.5"),
    (lambda p: optim.SGD([p], weight_decay=-1.0), ValueError, "Invalid weight_decay value: -1.0"),
    (
        lambda p: optim.SGD([p], lr=0.1, nesterov=True),
        ValueError,
        "Nesterov momentum requires a momentum and zero dampening",
    ),
    (
        lambda p: optim.SGD([p], lr=0.1, momentum=0.9, dampening=0.1, nesterov=True),
        ValueError,
        "Nesterov momentum requires a momentum and zero dampening",
    ),
    (lambda p: optim.Adam([p], lr=-1e-3), ValueError, "Invalid learning rate: -0.001"),
    (lambda p: optim.Adam([p], eps=-1e-8), ValueError, "Invalid epsilon value: -1e-08"),
    (
        lambda p: optim.Adam([p], betas=(1.0, 0.999)),
        ValueError,
        "Invalid beta parameter at index 0: 1.0",
    ),
    (
        lambda p: optim.Adam([p], betas=(-0.1, 0.999)),
        ValueError,
        "Invalid beta parameter at index 0: -0.1",
    ),
    (
        lambda p: optim.AdamW([p], betas=(0.9, 1.0)),
        ValueError,
        "Invalid beta parameter at index 1: 1.0",
    ),
    (lambda p: optim.AdamW([p], weight_decay=-0.1), ValueError, "Invalid weight_decay value: -0.1"),
    (lambda p: optim.Adagrad([p], lr_decay=-0.1), ValueError, "Invalid lr_decay value: -0.1"),
    (
        lambda p: optim.Adagrad([p], initial_accumulator_value=-1.0),
        ValueError,
        "Invalid initial_accumulator_value value: -1.0",
    ),
    (lambda p: optim.RMSprop([p], alpha=-0.5), ValueError, "Invalid alpha value: -0.5"),
    (lambda p: optim.RMSprop([p], momentum=-0.5), ValueError, "Invalid momentum value: -0.5"),
    (lambda p: optim.SGD([], lr=0.1), ValueError, "optimizer got an empty parameter list"),
    (
        lambda p: optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1),
        ValueError,
        "some parameters appear in more than one parameter group",
    ),
    (lambda p: optim.SGD([p * 2], lr=0.1), ValueError, "can't optimize a non-leaf Tensor"),
    (lambda p: optim.SGD([{"params": {p}}], lr=0.1), TypeError, "ordered collections"),
    (lambda p: optim.SGD(p, lr=0.1), TypeError, "should be an iterable of Tensors or dicts"),
]


@pytest.mark.parametrize("make, error, message", BAD, ids=[m for _, _, m in BAD])
def test_bad_options_are_refused(make, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(".", r"\.")):
        make(param(P0))


def test_one_cycle_refuses_bad_settings():
    p = param(P0)
    opt = optim.SGD([p], lr=0.1, momentum=0.9)
    with pytest.raises(ValueError, match=r"You must define either total_steps OR"):
        lr_scheduler.OneCycleLR(opt, 1.0)
    with pytest.raises(ValueError, match="Expected float between 0 and 1 pct_start"):
        lr_scheduler.OneCycleLR(opt, 1.0, total_steps=10, pct_start=1.5)
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear'"):
        lr_scheduler.OneCycleLR(opt, 1.0, total_steps=10, anneal_strategy="exp")
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        lr_scheduler.OneCycleLR(optim.Adagrad([param(P0)]), 1.0, total_steps=10)
    sched = lr_scheduler.OneCycleLR(opt, 1.0, total_steps=10)
    for _ in range(9):
        sched.step()
    with pytest.raises(ValueError, match="Tried to step 11 times"):
        sched.step()
        sched.step()


# -- schedules --------------------------------------------------------------------------------


def lrs_of(make, steps: int, lr: float = 1.0, opt_cls=optim.SGD, **opt_kwargs) -> list[float]:
    """The lr the optimizer would use at each of ``steps`` steps (before each scheduler step)."""
    opt = opt_cls([param(P0)], lr=lr, **opt_kwargs)
    sched = make(opt)
    out = []
    for _ in range(steps):
        out.append(opt.param_groups[0]["lr"])
        sched.step()
    return out


def test_step_multistep_exponential():
    assert lrs_of(lambda o: lr_scheduler.StepLR(o, 3, gamma=0.5), 9, lr=2.0) == [
        2.0, 2.0, 2.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5
    ]  # fmt: skip
    got = lrs_of(lambda o: lr_scheduler.MultiStepLR(o, [5, 2, 5], gamma=0.1), 7)
    np.testing.assert_allclose(got, [1, 1, 0.1, 0.1, 0.1, 1e-3, 1e-3], rtol=RTOL)
    got = lrs_of(lambda o: lr_scheduler.ExponentialLR(o, 0.9), 20, lr=0.5)
    np.testing.assert_allclose(got, 0.5 * 0.9 ** np.arange(20), rtol=RTOL)


def test_cosine_ends_middle_and_back():
    got = lrs_of(lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=10, eta_min=0.1), 21)
    assert got[0] == pytest.approx(1.0)
    assert got[5] == pytest.approx(0.55)
    assert got[10] == pytest.approx(0.1)
    assert got[20] == pytest.approx(1.0)
    assert got[3] == pytest.approx(0.1 + 0.9 * (1 + math.cos(math.pi * 0.3)) / 2)


def test_lambda_per_group_and_its_state_dict_drops_the_functions():
    opt = optim.SGD([{"params": [param(P0)]}, {"params": [param(P0)], "lr": 2.0}], lr=1.0)
    sched = lr_scheduler.LambdaLR(opt, [lambda t: 0.5**t, lambda t: 1 / (1 + t)])
    for _ in range(3):
        sched.step()
    assert sched.get_last_lr() == [0.125, 0.5]
    assert sched.state_dict()["lr_lambdas"] == [None, None]
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        lr_scheduler.LambdaLR(opt, [lambda t: 1.0])


def test_a_scheduled_lr_is_the_next_steps_lr():
    p = param([0.0])
    opt = optim.SGD([p], lr=1.0)
    sched = lr_scheduler.StepLR(opt, 2, gamma=0.5)
    for _ in range(6):
        p.grad = sp.tensor(np.array([-1.0]))
        opt.step()
        sched.step()
    np.testing.assert_allclose(p.data, [1 + 1 + 0.5 + 0.5 + 0.25 + 0.25], rtol=RTOL)


@pytest.mark.parametrize("opt_cls, key", [(optim.SGD, "momentum"), (optim.Adam, "betas")])
def test_one_cycle_landmarks_and_momentum(opt_cls, key):
    """T = 100, pct_start 0.3: lr η_max/25 at t = 0, η_max at t = 29, η_max/25/10⁴ at t = 99;
    momentum (or β₁, β₂ untouched) 0.95 → 0.85 → 0.95."""
    kwargs = {"momentum": 0.9} if key == "momentum" else {"betas": (0.9, 0.99)}
    opt = opt_cls([param(P0)], lr=0.1, **kwargs)
    sched = lr_scheduler.OneCycleLR(opt, max_lr=2.0, total_steps=100)
    lrs, moms = [], []
    for t in range(100):
        group = opt.param_groups[0]
        lrs.append(group["lr"])
        moms.append(group["momentum"] if key == "momentum" else group["betas"][0])
        if key == "betas":
            assert group["betas"][1] == 0.99
        if t < 99:
            sched.step()
    assert lrs[0] == pytest.approx(2.0 / 25) and moms[0] == pytest.approx(0.95)
    assert lrs[29] == pytest.approx(2.0) and moms[29] == pytest.approx(0.85)
    assert lrs[99] == pytest.approx(2.0 / 25 / 1e4) and moms[99] == pytest.approx(0.95)
    assert int(np.argmax(lrs)) == 29 and int(np.argmin(moms)) == 29


def test_one_cycle_linear_and_three_phase():
    got = lrs_of(
        lambda o: lr_scheduler.OneCycleLR(o, 1.0, total_steps=10, anneal_strategy="linear"),
        10,
        momentum=0.9,
    )
    # up from 0.04 to 1 over t = 0..2 (pct_start·T − 1 = 2), then down to 4e-6 over t = 2..9
    np.testing.assert_allclose(got[:3], [0.04, 0.52, 1.0], rtol=RTOL)
    np.testing.assert_allclose(got[9], 0.04 / 1e4, rtol=1e-9)
    np.testing.assert_allclose(np.diff(got[2:]), (0.04 / 1e4 - 1.0) / 7, rtol=1e-9)
    got = lrs_of(
        lambda o: lr_scheduler.OneCycleLR(
            o, 1.0, epochs=2, steps_per_epoch=10, three_phase=True, anneal_strategy="linear"
        ),
        20,
        momentum=0.9,
    )
    # up over t = 0..5, down to 0.04 at t = 10 (2·pct_start·T − 2), then to 4e-6 at t = 19
    assert int(np.argmax(got)) == 5 and got[5] == pytest.approx(1.0)
    assert got[10] == pytest.approx(0.04) and got[19] == pytest.approx(4e-6)


# -- saving and resuming ----------------------------------------------------------------------

RESUME = {
    "adam-onecycle": (
        lambda ps: optim.Adam(ps, lr=1e-2, amsgrad=True),
        lambda o, total: lr_scheduler.OneCycleLR(o, 0.05, total_steps=total),
    ),
    "sgd-step": (
        lambda ps: optim.SGD(ps, lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3),
        lambda o, total: lr_scheduler.StepLR(o, 3, gamma=0.7),
    ),
    "rmsprop-cosine": (
        lambda ps: optim.RMSprop(ps, lr=1e-2, momentum=0.5, centered=True),
        lambda o, total: lr_scheduler.CosineAnnealingLR(o, T_max=total),
    ),
    "adagrad-exponential": (
        lambda ps: optim.Adagrad(ps, lr=0.05, lr_decay=0.01),
        lambda o, total: lr_scheduler.ExponentialLR(o, 0.97),
    ),
    "adamw-multistep": (
        lambda ps: optim.AdamW(ps, lr=1e-2),
        lambda o, total: lr_scheduler.MultiStepLR(o, [4, 9, 15], gamma=0.5),
    ),
}
EPOCHS, BATCH, N = 4, 8, 36  # 5 batches an epoch, the last one short


def resume_setup(name: str, init_seed: int):
    """Model, optimizer, scheduler, loader and its generator, all made as a training script
    makes them (the model drawn after ``manual_seed(init_seed)``)."""
    rng = np.random.default_rng(7)
    x = sp.tensor(rng.normal(size=(N, 5)).astype(np.float32))
    y = sp.tensor(rng.integers(0, 3, size=N))
    sp.manual_seed(init_seed)
    model = sp.nn.Sequential(sp.nn.Linear(5, 8), sp.nn.ReLU(), sp.nn.Linear(8, 3))
    generator = sp.Generator().manual_seed(init_seed)
    loader = sp.utils.data.DataLoader(
        sp.utils.data.TensorDataset(x, y), batch_size=BATCH, shuffle=True, generator=generator
    )
    make_opt, make_sched = RESUME[name]
    opt = make_opt(model.parameters())
    sched = make_sched(opt, EPOCHS * len(loader))
    return model, opt, sched, loader, generator


def train_epochs(model, opt, sched, loader, epochs: int) -> None:
    for _ in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            sp.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
            sched.step()


@pytest.mark.parametrize("name", RESUME)
def test_a_resumed_run_equals_the_uninterrupted_one(name, tmp_path):
    model, opt, sched, loader, _ = resume_setup(name, init_seed=0)
    train_epochs(model, opt, sched, loader, EPOCHS)
    uninterrupted = [np.array(p.data) for p in model.parameters()]

    model, opt, sched, loader, generator = resume_setup(name, init_seed=0)
    train_epochs(model, opt, sched, loader, EPOCHS // 2)
    checkpoint = {
        "model": model.state_dict(),
        "optimizer": opt.state_dict(),
        "scheduler": sched.state_dict(),
        "generator": generator.get_state(),
    }
    sp.save(checkpoint, tmp_path / "checkpoint.pt")
    del model, opt, sched, loader, generator

    model, opt, sched, loader, generator = resume_setup(name, init_seed=1)  # other weights
    saved = sp.load(tmp_path / "checkpoint.pt")
    model.load_state_dict(saved["model"])
    opt.load_state_dict(saved["optimizer"])
    sched.load_state_dict(saved["scheduler"])
    generator.set_state(saved["generator"])
    train_epochs(model, opt, sched, loader, EPOCHS - EPOCHS // 2)
    for p, q in zip(model.parameters(), uninterrupted, strict=True):
        np.testing.assert_array_equal(p.data, q)


def test_state_dict_is_a_snapshot_indexed_by_position():
    a, b = param(P0), param(P0[:2])
    opt = optim.Adam([{"params": [a]}, {"params": [b], "lr": 0.1}], lr=0.01)
    a.grad, b.grad = sp.tensor(G), sp.tensor(G[:2])
    opt.step()
    sd = opt.state_dict()
    assert [g["params"] for g in sd["param_groups"]] == [[0], [1]]
    assert set(sd["state"]) == {0, 1} and sd["state"][0]["step"] == 1
    before = np.array(sd["state"][0]["exp_avg"].data)
    opt.step()
    np.testing.assert_array_equal(sd["state"][0]["exp_avg"].data, before)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        optim.Adam([a]).load_state_dict(sd)
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        optim.Adam([{"params": [a, b]}, {"params": [param(P0)]}]).load_state_dict(sd)


# -- clipping ---------------------------------------------------------------------------------

CLIP_G = [np.array([3.0, -4.0]), np.array([[0.0, 12.0]])]  # ‖·‖₂ = 13, ‖·‖₁ = 19, ‖·‖∞ = 12


@pytest.mark.parametrize("norm_type, total", [(2.0, 13.0), (1.0, 19.0), (math.inf, 12.0)])
def test_clip_grad_norm(norm_type, total):
    ps = [param(np.zeros(g.shape)) for g in CLIP_G]
    for p, g in zip(ps, CLIP_G):
        p.grad = sp.tensor(g)
    olds = [p.grad for p in ps]
    got = sp.nn.utils.clip_grad_norm_(ps, max_norm=2.0, norm_type=norm_type)
    assert float(got.item()) == pytest.approx(total, rel=RTOL)
    for p, g, old in zip(ps, CLIP_G, olds):
        np.testing.assert_allclose(p.grad.data, g * 2.0 / (total + 1e-6), rtol=RTOL)
        np.testing.assert_array_equal(old.data, g)  # a new gradient, the old one untouched
    for p, g in zip(ps, CLIP_G):
        p.grad = sp.tensor(g)
    sp.nn.utils.clip_grad_norm_(ps, max_norm=100.0, norm_type=norm_type)
    for p, g in zip(ps, CLIP_G):
        np.testing.assert_array_equal(p.grad.data, g)  # under the bound: unchanged


def test_clip_grad_norm_nonfinite_and_no_grads():
    p = param([0.0, 0.0])
    assert float(sp.nn.utils.clip_grad_norm_([p], 1.0).item()) == 0.0
    p.grad = sp.tensor(np.array([np.inf, 1.0]))
    with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
        sp.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)


def test_clip_grad_value():
    p = param(np.zeros(4))
    p.grad = sp.tensor(np.array([-3.0, -0.5, 0.5, 3.0]))
    sp.nn.utils.clip_grad_value_(p, 1.0)
    np.testing.assert_array_equal(p.grad.data, [-1.0, -0.5, 0.5, 1.0])


# -- properties -------------------------------------------------------------------------------

nonzero = st.floats(1e-3, 1e3).flatmap(lambda m: st.sampled_from([m, -m]))
grads = hnp.arrays(np.float64, st.integers(1, 6), elements=nonzero)


@settings(max_examples=40)
@given(g=grads, lr=st.floats(1e-4, 1.0), b1=st.floats(0.0, 0.99), b2=st.floats(0.0, 0.999))
def test_adam_first_step_is_sign_for_any_gradient(g, lr, b1, b2):
    p = param(np.zeros_like(g))
    (p1,) = constant_run(optim.Adam([p], lr=lr, betas=(b1, b2), eps=0.0), p, g, 1)
    np.testing.assert_allclose(p1, -lr * np.sign(g), rtol=1e-12)


@settings(max_examples=30)
@given(scale=st.floats(1e-3, 1e3), seed=st.integers(0, 2**16))
def test_adam_without_eps_ignores_the_gradients_scale(scale, seed):
    gs = np.random.default_rng(seed).normal(size=(8, 3))
    a, b = param(P0), param(P0)
    opt_a, opt_b = optim.Adam([a], lr=0.1, eps=0.0), optim.Adam([b], lr=0.1, eps=0.0)
    for g in gs:
        a.grad, b.grad = sp.tensor(g), sp.tensor(scale * g)
        opt_a.step()
        opt_b.step()
    np.testing.assert_allclose(a.data, b.data, rtol=1e-9)


@settings(max_examples=40)
@given(g=grads, max_norm=st.floats(1e-2, 1e2), norm_type=st.sampled_from([1.0, 2.0, math.inf]))
def test_clip_grad_norm_bounds_the_norm_and_keeps_the_direction(g, max_norm, norm_type):
    p = param(np.zeros_like(g))
    p.grad = sp.tensor(g)
    total = float(sp.nn.utils.clip_grad_norm_([p], max_norm, norm_type=norm_type).item())
    clipped = p.grad.data
    assert total == pytest.approx(np.linalg.norm(g, ord=norm_type), rel=1e-12)
    assert np.linalg.norm(clipped, ord=norm_type) <= max_norm * (1 + 1e-12)
    np.testing.assert_allclose(clipped, g * min(1.0, max_norm / (total + 1e-6)), rtol=1e-12)


def test_clipping_takes_foreach_and_refuses_norms_below_one():
    """``foreach=`` (PyTorch's choice of kernel) is accepted and changes nothing; a norm of
    order below 1 is not one the course computes, and says so."""
    p = sp.nn.Parameter(sp.tensor([3.0, 4.0]))
    p.grad = sp.tensor([3.0, 4.0])
    total = sp.nn.utils.clip_grad_norm_([p], 1.0, foreach=None)
    assert float(total) == pytest.approx(5.0)
    sp.nn.utils.clip_grad_value_([p], 0.1, foreach=True)
    assert np.all(np.abs(p.grad.data) <= 0.1)
    for order in (0, 0.5, -math.inf):
        with pytest.raises(ValueError, match="norm_type"):
            sp.nn.utils.clip_grad_norm_([p], 1.0, norm_type=order)

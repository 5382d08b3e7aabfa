"""Hidden checks for chapter 4 — the stack-and-counter backward engine.

Rows of chapter 4's public case builders (``cases``), run by the public programs and judged
by the public verdicts, on other graphs than the public ones: random graphs drawn at the
seed (their labels name the kind, never the drawn graph), a wider fan, a wider layer, hooks
on drawn graphs, other shapes and dtypes for seed, other grad-mode scripts, larger jvp and
Hessian inputs (two inputs whose cross terms are not symmetric, of equal and
unequal sizes), a drawn graph with its root given twice, hooked roots in the other order,
a longer chain freed as it goes, create_graph for jvp and hessian. One kind is theirs
alone: larger random graphs of every kind at once (``cases.mixed_graph``: None-returning
backwards, fan-in, repeated inputs, a constant, two roots), each with a node that gets
only None and whose first input is the constant (it must still count down the next).
"""

from __future__ import annotations

import numpy as np

from ...checks.ch04_backward import CHECKS as PUBLIC
from ...checks.ch04_backward.cases import (
    PROBE,
    Graph,
    accumulate_case,
    alias_case,
    call,
    count_row,
    decorated,
    enable_grad,
    engine_case,
    engine_row,
    functional_case,
    grad_mode_case,
    layer,
    mixed_graph,
    no_grad,
    raising,
    random_graph,
    repeated_root,
    root_above_root,
    second_order_case,
    seed_case,
    set_grad_enabled,
    shared,
    tanh_chain,
    wide,
)
from ...checks.ch04_backward.exercises import (
    minimum_case,
    mismatch_case,
    newton_case,
    refusal_case,
    replay_case,
)
from ...harness.table import Hidden, Rows, hidden_checks, row

MIXED = {
    "en": "a random graph of every kind at once (None backwards, fan-in, repeats, two roots)",
    "zh": "一个同时包含各种情形的随机图（返回 None 的反向函数、扇入、重复、两个根节点）",
}


def _drawn(steps: int, leaves: int = 3):
    return lambda rng: random_graph(rng, steps, leaves)


def _leaf_root(rng: np.random.Generator) -> Graph:
    """A drawn graph whose leaf x1 is a root too."""
    graph = random_graph(rng, 10)
    return Graph(graph.leaves, graph.steps, ["out", "x1"])


def _hooked(rng: np.random.Generator):
    """A drawn graph with a doubling hook on a drawn step and an observing one on a leaf."""
    graph = random_graph(rng, 9)
    step = str(rng.choice([n for n in graph.nodes if n.startswith("t")]))
    return engine_case(
        {"en": "a random graph with hooks", "zh": "带钩子的随机图"},
        graph,
        rng,
        shown=False,
        hooks=[(step, "double"), ("x0", "observe")],
    )


P = PROBE  # is x * 2 recorded here?
SCRIPTS = [
    [enable_grad(no_grad(P), P), P],
    [call(False), enable_grad(P), P, call(True), P],
    [no_grad(decorated(no_grad(P)), P), P],
    [raising(set_grad_enabled(False, P)), P],
    [set_grad_enabled(True, set_grad_enabled(False, P), P)],
    [raising(enable_grad(no_grad(P))), P, enable_grad(P), P],
    [
        call(False),
        set_grad_enabled(False, P),
        P,
        call(True),
        no_grad(set_grad_enabled(True, set_grad_enabled(False, P), P), P),
        P,
        raising(set_grad_enabled(True, no_grad(P))),
        P,
    ],
    [enable_grad(no_grad(enable_grad(P), P)), P],
]

CHECKS = hidden_checks(
    PUBLIC,
    [
        Hidden(
            "count_dependencies(roots)",
            Rows(
                [
                    count_row({"en": "a random graph", "zh": "随机图"}, _drawn(16), shown=False),
                    count_row(
                        {"en": "a random graph of two leaves", "zh": "有两个叶子节点的随机图"},
                        _drawn(20, 2),
                        shown=False,
                    ),
                    count_row(
                        {"en": "a used by 12 nodes", "zh": "a 被 12 个节点使用"},
                        lambda rng: wide(rng, 12),
                    ),
                    count_row(MIXED, lambda rng: mixed_graph(rng, 18), False),
                    count_row(
                        {
                            "en": "a random graph whose leaf is a root too",
                            "zh": "叶子节点同时也是根节点的随机图",
                        },
                        _leaf_root,
                        False,
                    ),
                    count_row(
                        {
                            "en": "a root that another root reaches, listed last",
                            "zh": "一个能被另一个根节点到达的根节点，排在最后",
                        },
                        root_above_root,
                    ),
                    count_row(
                        {"en": "the same root twice", "zh": "同一个根节点出现两次"},
                        lambda rng: repeated_root(rng, _drawn(8)),
                        False,
                    ),
                ]
            ),
            "count_dependencies (hidden)",  # en-only: the hidden check's id
            title={"zh": "count_dependencies（隐藏）"},
        ),
        Hidden(
            "backward_pass: each vertex once, with its complete gradient",
            Rows(
                [
                    engine_row({"en": "a random graph", "zh": "随机图"}, _drawn(16), shown=False),
                    engine_row(
                        {"en": "a random graph of two leaves", "zh": "有两个叶子节点的随机图"},
                        _drawn(20, 2),
                        shown=False,
                        repeats=2,
                    ),
                    engine_row(
                        {"en": "a used by 12 nodes", "zh": "a 被 12 个节点使用"},
                        lambda rng: wide(rng, 12),
                    ),
                    engine_row(
                        {
                            "en": "two roots sharing a subgraph, kept",
                            "zh": "两个根节点共享一个子图，保留计算图",
                        },
                        shared,
                        retain_graph=True,
                        passes=2,
                    ),
                    engine_row({"en": "a layer, other data", "zh": "一层网络，换一组数据"}, layer),
                    engine_row(MIXED, lambda rng: mixed_graph(rng, 18), False),
                    engine_row(
                        {"en": MIXED["en"] + ", built twice", "zh": MIXED["zh"] + "，构建两次"},
                        lambda rng: mixed_graph(rng, 22, 2),
                        False,
                        repeats=2,
                    ),
                    engine_row(
                        {
                            "en": "a random graph whose leaf is a root too",
                            "zh": "叶子节点同时也是根节点的随机图",
                        },
                        _leaf_root,
                        False,
                    ),
                    engine_row(
                        {"en": "the same root twice", "zh": "同一个根节点出现两次"},
                        lambda rng: repeated_root(rng, _drawn(10)),
                        False,
                    ),
                    engine_row(
                        {
                            "en": "a root that another root reaches, listed last, hooked",
                            "zh": "一个能被另一个根节点到达的根节点，排在最后，带钩子",
                        },
                        root_above_root,
                        hooks=[("r1", "double"), ("r2", "observe")],
                    ),
                    _hooked,
                    engine_row(
                        {
                            "en": "a chain of 60, freed as the pass goes",
                            "zh": "60 个节点的链，随着传播的进行释放",
                        },
                        lambda rng: tanh_chain(rng, 60),
                        False,
                        chain=True,
                    ),
                ]
            ),
            "backward_pass (hidden)",  # en-only: the hidden check's id
            title={"zh": "backward_pass（隐藏）"},
        ),
        Hidden(
            "create_graph=True: second derivatives",
            Rows(
                [
                    row(second_order_case, "cube", (3, 2)),
                    row(second_order_case, "tanh", (7,)),
                    row(second_order_case, "cube", (2, 2), through_seed=True),
                ]
            ),
            "create_graph=True (hidden)",  # en-only: the hidden check's id
            title={"zh": "create_graph=True（隐藏）"},
        ),
        Hidden(
            "accumulate(tensor, grad)",
            Rows(
                [
                    row(accumulate_case, 5, (3,)),
                    row(accumulate_case, 4, (3, 2), requires_grad=True),
                    row(accumulate_case, 1, (2,), requires_grad=True),
                    row(accumulate_case, 3, (2, 2), preset=True, requires_grad=True),
                ]
            ),
            "accumulate (hidden)",  # en-only: the hidden check's id
            title={"zh": "accumulate（隐藏）"},
        ),
        Hidden(
            "c = a + b, backward twice",
            Rows([row(alias_case, 2, (3, 1)), row(alias_case, 4, ())]),
            "c = a + b (hidden)",  # en-only: the hidden check's id
            title={"zh": "c = a + b（隐藏）"},
        ),
        Hidden(
            "seed(output, gradient)",
            Rows(
                [
                    row(seed_case, (1, 1, 1), "float32", implicit=True),
                    row(seed_case, (3,), implicit=True),
                    row(seed_case, (2, 1), gradient_shape=(1, 2)),
                    row(seed_case, (), gradient_dtype="float32"),
                    row(seed_case, (3, 2), "float32"),
                    row(seed_case, (1,)),
                    row(seed_case, (1, 1), gradient_shape=(1,)),
                    row(seed_case, (3,), requires_grad=True),
                ]
            ),
            "seed (hidden)",  # en-only: the hidden check's id
            title={"zh": "seed（隐藏）"},
        ),
        Hidden(
            "no_grad, enable_grad, set_grad_enabled",
            lambda rng: [grad_mode_case(s, rng) for s in SCRIPTS],
            "grad mode (hidden)",  # en-only: the hidden check's id
            title={"zh": "梯度模式（隐藏）"},
        ),
        Hidden(
            "functional.jvp",
            Rows(
                [
                    row(functional_case, "jvp", "quadratic", 5),
                    row(functional_case, "jvp", "tanh_layer", 4),
                    row(functional_case, "hessian", "quadratic", 4),
                    row(functional_case, "jvp", "pair", 4),
                    row(functional_case, "jvp", "tanh_layer", 2, create_graph=True),
                    row(functional_case, "hessian", "cubic", 3, create_graph=True),
                    row(functional_case, "hessian", "pair_sum", 2),
                    # two inputs whose cross terms are not symmetric: of equal sizes (a
                    # Hessian as [j][i] shows in the values), and of unequal ones
                    row(functional_case, "hessian", "cross", 3, m=3),
                    row(functional_case, "jvp", "cross_pair", 3, m=2),
                    row(functional_case, "jvp", "cross_layer", 3, m=3),
                ]
            ),
            "jvp and hessian (hidden)",  # en-only: the hidden check's id
            title={"zh": "jvp 和 hessian（隐藏）"},
        ),
        # tasks 4.7 and 4.8 (course version 1.1): other functions, sizes and shapes
        Hidden(
            "newton_step(f, x)",
            Rows(
                [
                    row(newton_case, "quadratic", n=5, show=False),
                    row(newton_case, "rosenbrock", [0.5, 0.9]),
                    row(newton_case, "quartic", -1.3),
                    row(newton_case, "grid", dtype="float32", show=False),
                    row(minimum_case, 3, "float32"),
                ]
            ),
            "newton_step (hidden)",  # en-only: the hidden check's id
            title={"zh": "newton_step（隐藏）"},
        ),
        Hidden(
            "newton_step refuses: f not a scalar, a singular Hessian",
            Rows(
                [
                    row(refusal_case, "squares", (2, 2), why="scalar"),
                    row(refusal_case, "linear", (), why="singular"),
                    row(refusal_case, "sum_squared", (3,), a=[0.87, 0.63, -0.99], why="singular"),
                ]
            ),
            "newton_step refuses (hidden)",  # en-only: the hidden check's id
            title={"zh": "newton_step 的拒绝情形（隐藏）"},
        ),
        Hidden(
            "jit.trace: replayed values",
            Rows(
                [
                    row(replay_case, "branch", positive=False),
                    row(replay_case, "layer", shapes=[(5,)]),
                    row(replay_case, "poly", shapes=[(2, 3)]),
                ]
            ),
            "jit.trace replays (hidden)",  # en-only: the hidden check's id
            title={"zh": "jit.trace 重放（隐藏）"},
        ),
        Hidden(
            "jit.trace: gradients through the replay",
            Rows(
                [
                    row(replay_case, "branch", gradients=True, positive=False),
                    row(replay_case, "layer", gradients=True, shapes=[(4,)]),
                ]
            ),
            "jit.trace gradients (hidden)",  # en-only: the hidden check's id
            title={"zh": "jit.trace 梯度（隐藏）"},
        ),
        Hidden(
            "jit.trace: other shapes refused",
            Rows([row(mismatch_case, "layer", [(3, 1)]), row(mismatch_case, "pair", [(2, 3)])]),
            "jit.trace other shapes (hidden)",  # en-only: the hidden check's id
            title={"zh": "jit.trace 其他形状（隐藏）"},
        ),
    ],
)

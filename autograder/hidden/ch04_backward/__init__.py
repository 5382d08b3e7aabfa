"""Hidden checks for chapter 4 — the stack-and-counter backward engine.

Rows of chapter 4's public case builders (``cases``), run by the public programs and judged
by the public verdicts, on other graphs than the public ones: random graphs drawn at the
seed (their labels name the kind, never the drawn graph), a wider fan, a wider layer, hooks
on drawn graphs, other shapes and dtypes for seed, other grad-mode scripts, larger jvp and
Hessian inputs, a drawn graph with its root given twice, hooked roots in the other order,
a longer chain freed as it goes, create_graph for jvp and hessian. One kind is theirs
alone: larger random graphs of every kind at once (``cases.mixed_graph``: None-returning
backwards, fan-in, repeated inputs, a constant, two roots), each with a node that gets
only None and whose first input is the constant (it must still count down the next).
"""

from __future__ import annotations

import numpy as np

from ...checks.ch04_backward import (
    ENGINE,
    FUNCTIONAL,
    THROUGH_ENGINE,
    accumulate_verdict,
    alias_verdict,
    count_verdict,
    engine_verdict,
    functional_verdict,
    grad_mode_verdict,
    programs,
    second_order_verdict,
    seed_verdict,
)
from ...checks.ch04_backward.cases import (
    Graph,
    Rows,
    accumulate_case,
    alias_case,
    count_case,
    engine_case,
    functional_case,
    grad_mode_case,
    layer,
    mixed_graph,
    random_graph,
    repeated_root,
    root_above_root,
    second_order_case,
    seed_case,
    shared,
    tanh_chain,
    wide,
)
from ...harness.api import Check

MIXED = "a random graph of every kind at once (None backwards, fan-in, repeats, two roots)"


def _drawn(steps: int, leaves: int = 3):
    return lambda rng: random_graph(rng, steps, leaves)


def _count(label, make, shown=True):
    return lambda rng: count_case(label, make(rng), shown)


def _engine(label, make, shown=True, **options):
    return lambda rng: engine_case(label, make(rng), rng, shown=shown, **options)


def _leaf_root(rng: np.random.Generator) -> Graph:
    """A drawn graph whose leaf x1 is a root too."""
    graph = random_graph(rng, 10)
    return Graph(graph.leaves, graph.steps, ["out", "x1"])


def _hooked(rng: np.random.Generator):
    """A drawn graph with a doubling hook on a drawn step and an observing one on a leaf."""
    graph = random_graph(rng, 9)
    step = str(rng.choice([n for n in graph.nodes if n.startswith("t")]))
    return engine_case(
        "a random graph with hooks",
        graph,
        rng,
        shown=False,
        hooks=[(step, "double"), ("x0", "observe")],
    )


SCRIPTS = [
    [["with", "enable_grad", None, [["with", "no_grad", None, [["probe"]]], ["probe"]]], ["probe"]],
    [
        ["call", False],
        ["with", "enable_grad", None, [["probe"]]],
        ["probe"],
        ["call", True],
        ["probe"],
    ],
    [
        ["with", "no_grad", None, [["decorated", "no_grad", None, [["probe"]]], ["probe"]]],
        ["probe"],
    ],
    [["raise", ["with", "set_grad_enabled", False, [["probe"]]]], ["probe"]],
    [
        [
            "with",
            "set_grad_enabled",
            True,
            [["with", "set_grad_enabled", False, [["probe"]]], ["probe"]],
        ]
    ],
    [
        ["raise", ["with", "enable_grad", None, [["with", "no_grad", None, [["probe"]]]]]],
        ["probe"],
        ["with", "enable_grad", None, [["probe"]]],
        ["probe"],
    ],
    [
        ["call", False],
        ["with", "set_grad_enabled", False, [["probe"]]],
        ["probe"],
        ["call", True],
        [
            "with",
            "no_grad",
            None,
            [
                [
                    "with",
                    "set_grad_enabled",
                    True,
                    [["with", "set_grad_enabled", False, [["probe"]]], ["probe"]],
                ],
                ["probe"],
            ],
        ],
        ["probe"],
        ["raise", ["with", "set_grad_enabled", True, [["with", "no_grad", None, [["probe"]]]]]],
        ["probe"],
    ],
    [
        [
            "with",
            "enable_grad",
            None,
            [["with", "no_grad", None, [["with", "enable_grad", None, [["probe"]]], ["probe"]]]],
        ],
        ["probe"],
    ],
]

CHECKS = [
    Check(
        "4.1",
        "count_dependencies (hidden)",
        Rows(
            [
                _count("a random graph", _drawn(16), shown=False),
                _count("a random graph of two leaves", _drawn(20, 2), shown=False),
                _count("a used by 12 nodes", lambda rng: wide(rng, 12)),
                _count(MIXED, lambda rng: mixed_graph(rng, 18), False),
                _count("a random graph whose leaf is a root too", _leaf_root, False),
                _count("a root that another root reaches, listed last", root_above_root),
                _count("the same root twice", lambda rng: repeated_root(rng, _drawn(8)), False),
            ]
        ),
        programs.counts,
        count_verdict,
    ),
    Check(
        "4.2",
        "backward_pass (hidden)",
        Rows(
            [
                _engine("a random graph", _drawn(16), shown=False),
                _engine("a random graph of two leaves", _drawn(20, 2), shown=False, repeats=2),
                _engine("a used by 12 nodes", lambda rng: wide(rng, 12)),
                _engine("two roots sharing a subgraph, kept", shared, retain_graph=True, passes=2),
                _engine("a layer, other data", layer),
                _engine(MIXED, lambda rng: mixed_graph(rng, 18), False),
                _engine(
                    MIXED + ", built twice", lambda rng: mixed_graph(rng, 22, 2), False, repeats=2
                ),
                _engine("a random graph whose leaf is a root too", _leaf_root, False),
                _engine("the same root twice", lambda rng: repeated_root(rng, _drawn(10)), False),
                _engine(
                    "a root that another root reaches, listed last, hooked",
                    root_above_root,
                    hooks=[("r1", "double"), ("r2", "observe")],
                ),
                _hooked,
                _engine(
                    "a chain of 60, freed as the pass goes",
                    lambda rng: tanh_chain(rng, 60),
                    False,
                    chain=True,
                ),
            ]
        ),
        programs.engine,
        engine_verdict,
        requires=ENGINE,
    ),
    Check(
        "4.2",
        "create_graph=True (hidden)",
        Rows(
            [
                lambda rng: second_order_case(rng, "cube", (3, 2)),
                lambda rng: second_order_case(rng, "tanh", (7,)),
                lambda rng: second_order_case(rng, "cube", (2, 2), through_seed=True),
            ]
        ),
        programs.second_order,
        second_order_verdict,
        requires=ENGINE,
    ),
    Check(
        "4.3",
        "accumulate (hidden)",
        Rows(
            [
                lambda rng: accumulate_case(rng, 5, (3,)),
                lambda rng: accumulate_case(rng, 4, (3, 2), requires_grad=True),
                lambda rng: accumulate_case(rng, 1, (2,), requires_grad=True),
                lambda rng: accumulate_case(rng, 3, (2, 2), preset=True, requires_grad=True),
            ]
        ),
        programs.accumulate,
        accumulate_verdict,
    ),
    Check(
        "4.3",
        "c = a + b (hidden)",
        Rows([lambda rng: alias_case(rng, 2, (3, 1)), lambda rng: alias_case(rng, 4, ())]),
        programs.aliasing,
        alias_verdict,
        requires=THROUGH_ENGINE,
    ),
    Check(
        "4.4",
        "seed (hidden)",
        Rows(
            [
                lambda rng: seed_case(rng, (1, 1, 1), "float32", implicit=True),
                lambda rng: seed_case(rng, (3,), implicit=True),
                lambda rng: seed_case(rng, (2, 1), gradient_shape=(1, 2)),
                lambda rng: seed_case(rng, (), gradient_dtype="float32"),
                lambda rng: seed_case(rng, (3, 2), "float32"),
                lambda rng: seed_case(rng, (1,)),
                lambda rng: seed_case(rng, (1, 1), gradient_shape=(1,)),
                lambda rng: seed_case(rng, (3,), requires_grad=True),
            ]
        ),
        programs.seed,
        seed_verdict,
    ),
    Check(
        "4.5",
        "grad mode (hidden)",
        lambda rng: [grad_mode_case(s, rng) for s in SCRIPTS],
        programs.grad_mode,
        grad_mode_verdict,
    ),
    Check(
        "4.6",
        "jvp and hessian (hidden)",
        Rows(
            [
                lambda rng: functional_case(rng, "jvp", "quadratic", 5),
                lambda rng: functional_case(rng, "jvp", "tanh_layer", 4),
                lambda rng: functional_case(rng, "hessian", "quadratic", 4),
                lambda rng: functional_case(rng, "jvp", "pair", 4),
                lambda rng: functional_case(rng, "jvp", "tanh_layer", 2, create_graph=True),
                lambda rng: functional_case(rng, "hessian", "cubic", 3, create_graph=True),
                lambda rng: functional_case(rng, "hessian", "pair_sum", 2),
            ]
        ),
        programs.functional,
        functional_verdict,
        requires=FUNCTIONAL,
    ),
]

"""What only chapter 4's checks do (every chapter's contracts: tests/test_contracts.py; its
variants: tests/variants/ch04_broken.py, judged by tests/test_variants.py): a broken engine
blocks jvp, the 4.1 stand-in pasted into its task fails it, and the checks' expected
gradients are PyTorch's."""

from __future__ import annotations

import inspect
import textwrap
from pathlib import Path

import pytest

from autograder import report
from autograder.status import Status
from tests.trees import SOLUTIONS, copy_package, replace_region, run_chapter
from tests.variants.ch04_broken import SET


def test_a_broken_engine_blocks_jvp_rather_than_failing_it(outcomes) -> None:
    """4.6 runs the engine: a broken 4.2 shows as "blocked by task 4.2" there."""
    result = outcomes(SET)["create_graph that records nothing"]
    (functional,) = [t for t in result.tasks if t.task.id == "4.6"]
    assert functional.status == Status.BLOCKED and functional.blocked_by == "4.2", (
        report.chapter_report(result)
    )


def test_the_count_stand_in_is_no_solution_of_task_4_1(tmp_path: Path) -> None:
    """The 4.1 stand-in ships in the release: pasted into ``count_dependencies`` (with an
    empty record in place of the one it reads), it fails 4.1."""
    from autograder.checks.ch04_backward import standins

    source = textwrap.dedent(inspect.getsource(standins._sweep))
    body = source[source.index('"""', source.index('"""') + 3) + 3 :]
    body = textwrap.dedent(body).replace("_made(sp)", "[]")
    body = body.replace("_vertex(", "vertex(").replace("return counts, reached", "return counts")
    package = copy_package(SOLUTIONS / "ch04_backward", tmp_path / "ch04_backward")
    replace_region(package / "dependencies.py", "4.1", body)
    result = run_chapter(4, package, tasks=["4.1"])
    assert result.tasks[0].status == Status.FAILED, report.chapter_report(result)
    assert result.tasks[0].points == 0, report.chapter_report(result)


def test_the_expected_gradients_are_pytorchs() -> None:
    """``cases.reverse`` (the parent's own backward pass, complex-step local derivatives,
    hooks) gives PyTorch's gradients for every vertex, on the checks' graphs and random
    ones (roots in either order, a root given twice, a leaf as a root, backwards returning
    None, the hidden checks' mixed graphs), with a doubling hook on a drawn step and one on a
    root."""
    torch = pytest.importorskip("torch")
    import numpy as np

    from autograder.checks.ch04_backward import cases

    ops = {
        "add": lambda a, b: a + b,
        "sub": lambda a, b: a - b,
        "mul": lambda a, b: a * b,
        "matmul": lambda a, b: a @ b,
        "tanh": torch.tanh,
        "exp": torch.exp,
        "sum": torch.sum,
        "checkpoint": lambda a: torch.exp(a * a),
    }

    class NoneBackward(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2.0

        @staticmethod
        def backward(ctx, grad_output):
            return None

    ops["none_backward"] = NoneBackward.apply
    rng = np.random.default_rng(11)
    makers = [cases.twice, cases.diamond, cases.shared, cases.root_below_root, cases.layer]
    makers += [cases.root_above_root, lambda rng: cases.repeated_root(rng, cases.diamond)]
    makers += [cases.leaf_root]
    graphs = [make(rng) for make in makers] + [cases.long_and_short(rng), cases.checkpointed(rng)]
    graphs += [cases.wide(rng, 7), cases.constants(rng)]
    graphs += [cases.random_graph(rng, 14, leaves) for leaves in (1, 2, 3, 3)]
    graphs += [
        cases.none_contributions(rng),
        cases.mixed_graph(rng, 18),
        cases.mixed_graph(rng, 22, 2),
    ]
    for graph in graphs:
        values = graph.forward()
        seeds = [cases.draw(rng, np.shape(values[r]), 2.0) for r in graph.roots]
        hooks = [(str(rng.choice(graph.nodes[:-1] or graph.nodes)), "double")]
        hooks.append((graph.roots[-1], "double"))  # a root's hook sees its whole gradient
        tensors: dict = {}
        for name, data, requires in graph.leaves:
            tensors[name] = torch.tensor(data, dtype=torch.float64, requires_grad=requires)
        for name, op, args in graph.steps:
            tensors[name] = ops[op](*[tensors[a] if isinstance(a, str) else a for a in args])
            if tensors[name].requires_grad:
                tensors[name].retain_grad()
        for name, _ in hooks:
            tensors[name].register_hook(lambda g: g * 2)
        roots = [tensors[r] for r in graph.roots]
        torch.autograd.backward(roots, [torch.tensor(s, dtype=torch.float64) for s in seeds])
        back = cases.reverse(graph, seeds, hooks)
        for name in graph.vertices:
            got, want = tensors[name].grad, back.grads[name]
            if want is None:
                assert got is None or not got.any(), (graph.text(), name)
            else:
                assert np.allclose(got.numpy(), want, rtol=1e-12, atol=1e-12), (graph.text(), name)

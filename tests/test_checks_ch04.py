"""What only chapter 4's checks do (every chapter's contracts: tests/test_contracts.py; its
variants: tests/variants/ch04_broken.py, judged by tests/test_variants.py): the checks'
expected gradients are PyTorch's."""

from __future__ import annotations

import pytest


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

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
        cases.diamond(rng, ()),
        cases.none_returned(rng),
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


def test_the_expected_jvps_and_hessians_are_pytorchs() -> None:
    """``cases.functional_case``'s closed forms are ``torch.autograd.functional``'s, for
    every function the checks differentiate, the two-input ones nested as PyTorch nests them
    (jvp: one item per output; hessian: ``[i][j]``, of input i's shape then input j's), at
    inputs of equal and of unequal sizes."""
    torch = pytest.importorskip("torch")
    import numpy as np

    from autograder.checks.ch04_backward import cases

    def t(v):
        return torch.tensor(np.asarray(v), dtype=torch.float64)

    def functions(a, b):
        return {
            "quadratic": lambda x: 0.5 * (x @ (a @ x)) + b @ x,
            "two_d": lambda v: v[0] * v[0] * v[1] + torch.exp(v[0] * v[1]),
            "tanh_layer": lambda x: torch.tanh(a @ x),
            "cubic": lambda x: (x * x * x).sum() + b @ x,
            "pair": lambda x, y: (x * y, torch.tanh(x + y)),
            "pair_sum": lambda x, y: (x * x * y).sum(),
            "cross": lambda x, y: (x * x) @ (a @ y),
            "cross_layer": lambda x, y: torch.tanh(x * (a @ y)),
            "cross_pair": lambda x, y: (x * (a @ y), torch.tanh(y)),
        }

    def arrays(value):
        if isinstance(value, (tuple, list)):
            return [arrays(v) for v in value]
        return value.detach().numpy()

    def same(got, want) -> bool:
        if isinstance(want, list):
            return len(got) == len(want) and all(same(g, w) for g, w in zip(got, want))
        return got.shape == np.shape(want) and np.allclose(got, want, rtol=1e-10, atol=1e-12)

    rng = np.random.default_rng(5)
    rows = [("jvp", f, 3, None) for f in ("quadratic", "two_d", "tanh_layer", "pair")]
    rows += [("hessian", f, 3, None) for f in ("quadratic", "two_d", "cubic", "pair_sum")]
    rows += [
        (w, f, n, m)
        for w, f in [("hessian", "cross"), ("jvp", "cross_layer")]
        for n, m in [(2, 3), (3, 3), (3, 2)]
    ]
    rows += [("jvp", "cross_pair", n, m) for n, m in [(2, 3), (3, 2)]]
    for what, function, n, m in rows:
        case = cases.functional_case(rng, what, function, n, m=m)
        inputs = case.inputs
        a = None if inputs["a"] is None else t(inputs["a"])
        b = None if inputs["b"] is None else t(inputs["b"])
        f = functions(a, b)[function]
        two = isinstance(inputs["x"], list)
        x = tuple(t(v) for v in inputs["x"]) if two else t(inputs["x"])
        if what == "jvp":
            u = tuple(t(v) for v in inputs["u"]) if two else t(inputs["u"])
            output, result = torch.autograd.functional.jvp(f, x, u)
            assert same(arrays(output), case.expected.output), case.label
        else:
            result = torch.autograd.functional.hessian(f, x)
        assert same(arrays(result), case.expected.result), case.label


def test_a_hessian_as_j_i_is_named_by_its_values_where_the_shapes_agree() -> None:
    """With x and y of one size the blocks' shapes cannot show a Hessian returned as [j][i]
    (the hidden row): the cross term is not symmetric, so its values do, and the verdict
    names the block whose values it holds."""
    import numpy as np

    from autograder.checks.ch04_backward import cases, functional_verdict

    case = cases.functional_case(np.random.default_rng(3), "hessian", "cross", 3, m=3)
    want = case.expected.result
    assert not np.allclose(want[0][1], want[1][0])
    record = {"type_name": "tuple", "attached": [], "detached": []}
    assert functional_verdict(case, {**record, "result": want}) is None
    swapped = [[want[j][i] for j in range(2)] for i in range(2)]
    problem = functional_verdict(case, {**record, "result": swapped})
    assert problem is not None and "∂²f/∂x∂y holds the values of [1][0]" in problem, problem
    assert "the blocks are transposed" in problem, problem


# -- task 4.3: accumulate as keep_grad calls it (a copy only the tensor holds) ------------------

ACCUMULATE_BODIES = {  # name: (accumulate's body, whether it is right)
    "a new Tensor (the reference)": (
        "tensor.grad = grad if tensor.grad is None else tensor.grad + grad",
        True,
    ),
    "+= (in place, as PyTorch)": (
        "if tensor.grad is None:\n    tensor.grad = grad\nelse:\n    tensor.grad += grad",
        True,
    ),
    "add_": (
        "if tensor.grad is None:\n    tensor.grad = grad\nelse:\n    tensor.grad.add_(grad)",
        True,
    ),
    ".data +=": (
        "if tensor.grad is None:\n    tensor.grad = grad\nelse:\n    tensor.grad.data += grad.data",
        False,
    ),
}


def _accumulate_from(body: str):
    namespace: dict = {}
    lines = "".join(f"    {line}\n" for line in body.split("\n"))
    exec(f"def accumulate(tensor, grad):\n{lines}", namespace)
    return namespace["accumulate"]


@pytest.mark.parametrize("name", list(ACCUMULATE_BODIES))
def test_accumulate_in_place_or_out_of_place_passes_and_data_loses_the_graph(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """4.3's program runs ``accumulate`` through the given ``keep_grad`` (a copy the tensor
    alone holds), so adding in place into ``.grad`` (``+=``, ``add_``) passes every row, a
    preset ``.grad`` and create_graph included, like the reference; adding on the arrays
    gives the right values and fails exactly the rows whose gradients require grad, naming
    the graph that was lost (the gradients after the first get none through it)."""
    import importlib

    import numpy as np

    from autograder.checks.ch04_backward import accumulate_verdict, programs
    from autograder.checks.ch04_backward.cases import accumulate_case

    sp = importlib.import_module("solutions.ch04_backward")
    engine = importlib.import_module("solutions.ch04_backward.engine")
    body, right = ACCUMULATE_BODIES[name]
    monkeypatch.setattr(engine, "accumulate", _accumulate_from(body))
    rng = np.random.default_rng(4)
    rows = [(1, False, False), (3, False, False), (2, True, False)]
    rows += [(2, False, True), (1, False, True), (3, True, True)]
    for count, preset, requires_grad in rows:
        case = accumulate_case(rng, count, (2, 3), preset=preset, requires_grad=requires_grad)
        got = programs.accumulate(sp, **case.inputs)
        problem = accumulate_verdict(case, got)
        if right or not requires_grad or (count == 1 and not preset):
            assert problem is None, (name, case.label, problem)
        else:
            assert problem is not None and "The sum lost the graph" in problem, problem
            lost = "call 1" if preset else "call 2"  # .data += keeps the first .grad's graph
            assert f"the gradient passed in {lost} gets no gradient" in problem, problem


def test_a_sum_off_the_graph_is_named_by_the_first_gradient_it_lost() -> None:
    """The verdict reads the program's ``through`` (the gradient of t.grad.sum() with
    respect to each gradient passed, then the preset's leaf): ones pass; None or other
    values name the first gradient off, by call, and a preset by its own name."""
    import numpy as np

    from autograder.checks.ch04_backward import accumulate_verdict
    from autograder.checks.ch04_backward.cases import accumulate_case

    case = accumulate_case(np.random.default_rng(1), 2, (3,), preset=True, requires_grad=True)
    ones = np.ones(3)
    record = {"values": case.expected.values, "each_requires_grad": [True, True]}
    assert accumulate_verdict(case, {**record, "through": [ones, ones, ones]}) is None
    problem = accumulate_verdict(case, {**record, "through": [ones, None, ones]})
    assert problem is not None and "the gradient passed in call 2 gets no gradient" in problem
    assert "The sum lost the graph" in problem, problem
    problem = accumulate_verdict(case, {**record, "through": [ones, ones, 2 * ones]})
    assert problem is not None and "the .grad set beforehand gets array([2. 2. 2.]" in problem
    assert "lost the graph" not in problem, problem
    problem = accumulate_verdict(case, {**record, "each_requires_grad": [False, True]})
    assert problem is not None and "t.grad after call 1 does not require grad" in problem


def test_the_programs_own_reverse_pass_gives_pytorchs_gradients() -> None:
    """``programs.gradients_of`` (4.3's judge of ``.grad``'s graph, run without chapter 4's
    tasks) gives ``torch.autograd.grad``'s gradients of out.sum() on a graph with a recorded
    copy, an in-place add into it, a leaf used twice and a product, and None for a leaf out
    does not depend on."""
    torch = pytest.importorskip("torch")
    import importlib

    import numpy as np

    from autograder.checks.ch04_backward import programs

    sp = importlib.import_module("solutions.ch04_backward")
    rng = np.random.default_rng(2)
    data = [rng.standard_normal((2, 3)) for _ in range(3)]

    def build(xs):
        a, b, _ = xs
        out = a.clone()
        out += b * 2.0
        return (out * a + b).tanh()

    mine = [sp.Tensor(d.copy(), requires_grad=True) for d in data]
    got = programs.gradients_of(sp, build(mine), mine)
    theirs = [torch.tensor(d, requires_grad=True) for d in data]
    want = torch.autograd.grad(build(theirs).sum(), theirs, allow_unused=True)
    assert got[2] is None and want[2] is None
    for g, w in zip(got[:2], want[:2]):
        assert np.allclose(g.data, w.numpy(), rtol=1e-12, atol=1e-12)


def test_c_equals_a_plus_b_keeps_a_sum_each_when_accumulate_adds_in_place(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Add's backward hands a and b one gradient object; keep_grad gives each a copy, so
    ``tensor.grad += grad`` keeps a sum each, as the aliasing check expects (its old rule
    for one object, 2·passes - 1, could no longer fail and is gone)."""
    import importlib

    import numpy as np

    from autograder.checks.ch04_backward import alias_verdict, programs
    from autograder.checks.ch04_backward.cases import alias_case

    sp = importlib.import_module("solutions.ch04_backward")
    engine = importlib.import_module("solutions.ch04_backward.engine")
    body, _ = ACCUMULATE_BODIES["+= (in place, as PyTorch)"]
    monkeypatch.setattr(engine, "accumulate", _accumulate_from(body))
    case = alias_case(np.random.default_rng(3), 3, (2,))
    got = programs.aliasing(sp, **case.inputs)
    assert alias_verdict(case, got) is None, got
    assert np.array_equal(got["a_grad"], np.full(2, 3.0)), got


def test_a_wrong_probe_is_named_by_where_it_stands() -> None:
    """4.5's words come from the probe's place in the script (issue 29): inside a block,
    just after one ended (its own mode kept, the opposite set, or the mode from before a
    block of its kind nested in it), just after a call."""
    from autograder.checks.ch04_backward import GRAD_MODE_SCRIPTS, grad_mode_verdict
    from autograder.checks.ch04_backward.cases import grad_mode_case

    def flipped(script: int, probe: int) -> str:
        case = grad_mode_case(GRAD_MODE_SCRIPTS[script - 1])
        got = list(case.expected.probes)
        got[probe - 1] = not got[probe - 1]
        return grad_mode_verdict(case, got)

    assert "inside a with no_grad() block" in flipped(1, 2)
    assert "entering it did not turn recording off" in flipped(1, 2)
    assert "leaving the block kept its own mode (recording off)" in flipped(1, 3)
    assert "set the opposite of its own mode (recording on)" in flipped(3, 2)
    assert "just after the call set_grad_enabled(False) (no with)" in flipped(7, 1)
    assert "ended by raising" in flipped(10, 4)
    nested = flipped(12, 3)
    assert "the mode from before the enable_grad nested in it (recording on)" in nested
    assert grad_mode_verdict(grad_mode_case(GRAD_MODE_SCRIPTS[0]), [True, False, True]) is None


def test_a_vertex_popped_early_is_named_with_the_contributions_it_had() -> None:
    """4.2 (issue 29's example): the program counts what Node.backward sent to each vertex
    before its first delivery; a vertex delivered twice, first with 1 of its 2, is named so;
    where the first pass raised on freed tensors, the early root is named."""
    import numpy as np

    from autograder.checks.ch04_backward import engine_verdict
    from autograder.checks.ch04_backward.cases import diamond, engine_case, root_above_root

    rng = np.random.default_rng(3)
    case = engine_case("a diamond of scalars", diamond(rng, ()), rng)
    order = case.expected.graph.vertices  # a, b, c, d, out
    got = {
        "deliveries": [2, 1, 1, 1, 1],
        "arrived": [1, 1, 1, 1, 0],
        "grads": case.expected.grads,
        "hook_inputs": [],
        "released": [True] * len(case.expected.graph.nodes),
        "strangers": 0,
        "touched": [],
    }
    assert order[0] == "a"
    said = engine_verdict(case, got)
    assert "a was popped 2 times, first after 1 of its 2 contributions had arrived" in said
    case = engine_case("roots listed last", root_above_root(rng), rng)
    assert case.expected.graph.vertices == ["a", "s", "r1", "r2"]
    got = {"freed_first": "SumBackward: ...", "deliveries": [0, 0, 2, 1]}
    got["arrived"] = [None, None, 0, 0]  # r1 popped with its seed only, r2 not yet run
    said = engine_verdict(case, got)
    assert "r1.grad_fn was popped after 0 of its 2 contributions had arrived" in said

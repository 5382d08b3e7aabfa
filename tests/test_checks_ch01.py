"""What only chapter 1's checks do (every chapter's contracts: tests/test_contracts.py; its
variants: tests/variants/ch01_broken.py, judged by tests/test_variants.py): a named mistake
is named by the first failing check of its own task, not only somewhere in the report; and
the rule for ``**`` at a zero base (§4) is PyTorch's wherever a number is right."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.variants.ch01_broken import SET, VARIANTS

TASK = {name: task for name, _, _, task in VARIANTS}


@pytest.mark.parametrize(("name", "says"), SET.says, ids=[name for name, _ in SET.says])
def test_the_first_failing_check_of_the_task_names_the_mistake(
    outcomes: Callable, name: str, says: str
) -> None:
    """The diagnosis, not only the numbers: the words are in the message of the broken
    task's first failing check."""
    (own,) = [t for t in outcomes(SET)[name].tasks if t.task.id == TASK[name]]
    problem = own.first_problem
    assert says in problem.message, (problem.case.label, problem.message)


# -- ** at a zero base (§4): PyTorch's answer where a number is right, an error elsewhere ----


def _zero_base_cases() -> list:
    from autograder.checks.ch01_value import CHECKS
    from autograder.hidden.ch01_value import CHECKS as HIDDEN

    power = [c for c in [*CHECKS, *HIDDEN] if c.task == "1.4"]
    return [case for c in power for case in c.make_cases(0) if case.inputs["a"] == 0]


@pytest.mark.parametrize("case", _zero_base_cases(), ids=lambda case: case.label)
def test_the_zero_base_rule_is_pytorchs_where_a_number_is_right(case) -> None:
    """Where the checks want a number at x = 0 (n = 0, 1, above 1), it is PyTorch's x.grad;
    where they want an error (§4: x ** n for n < 0, out._backward() for 0 < n < 1), PyTorch
    gives no finite number there (inf, or nan)."""
    from autograder.checks.ch01_value.cases import PowerRaises

    torch = pytest.importorskip("torch")
    n, g, preset = case.inputs["n"], case.inputs["g"], case.inputs["presets"].get("x", 0.0)
    x = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    out = x**n
    out.backward(torch.tensor(g, dtype=torch.float64))
    if isinstance(case.expected, PowerRaises):
        wanted = out if case.expected.raised_in == "x ** n" else x.grad
        assert not torch.isfinite(wanted), (out, x.grad)
        assert case.expected.raised_in == "x ** n" or out.item() == case.expected.out_data
    else:
        assert case.expected.out_data == out.item()
        assert case.expected.grads["x"] == preset + x.grad.item()

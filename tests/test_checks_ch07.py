"""What only chapter 7's checks do (every chapter's contracts: tests/test_contracts.py; its
variants: tests/variants/ch07_broken.py and ch07_held_out.py, judged by
tests/test_variants.py): the behaviour checks catch an earlier chapter's device mistake."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder import report
from tests.trees import SOLUTIONS

PACKAGE = "ch07_device"


# -- the device behaviours, against earlier chapters' device code ----------------------------
#
# In isolated grading chapters 2–6 are the reference; with ``--integrated`` they are the
# student's, and chapter 7's behaviour checks are where their device mistakes show. Each
# (name, chapter, file, (old, new), the chapter-7 check that must fail):

EARLIER = [
    (
        "Module.to leaves the gradients on the old device",
        5,
        "nn/module.py",
        (
            "        if tensor.grad is not None:\n"
            "            tensor.grad = tensor.grad.to(target).detach()\n",
            "",
        ),
        "Module.to moves parameters, buffers and gradients in place",
        "the gradients are",
    ),
    (
        "Module.to moves each tensor's data as its gradient",
        5,
        "nn/module.py",
        (
            "            tensor.grad = tensor.grad.to(target).detach()\n",
            "            tensor.grad = tensor.to(target).detach()\n",
        ),
        "Module.to moves parameters, buffers and gradients in place",
        "changed a parameter's, buffer's or gradient's values",
    ),
    (
        "a factory ignores device=",
        2,
        "tensor.py",
        ('    if spec is None:\n        spec = DEFAULT["device"]\n', "    if True:\n"),
        "factories with device=, set_default_device",
        "expected sim:0",
    ),
    (
        "optimizer state made with NumPy",
        6,
        "optim/optimizer.py",
        (
            "    return Tensor._from_array(array_module(p.data).zeros_like(p.data))\n",
            '    return Tensor._from_array(__import__("numpy").zeros_like(p.data))\n',
        ),
        "optimizer state on the parameters' device",
        "raised TypeError",
    ),
    (
        "load_state_dict leaves the state on the saved device",
        6,
        "optim/optimizer.py",
        (
            "            value = value.detach().to(like.device)  # itself when already there\n",
            "            value = value.detach()\n",
        ),
        "an optimizer's state loaded onto its parameters' device",
        "on its parameter's device",
    ),
]


@pytest.mark.parametrize(
    ("name", "number", "file", "edit", "check", "says"), EARLIER, ids=[v[0] for v in EARLIER]
)
def test_the_behaviour_checks_catch_an_earlier_chapters_device_mistake(
    tmp_path: Path, name: str, number: int, file: str, edit: tuple, check: str, says: str
) -> None:
    """With the student's whole stack (``--integrated``), a device mistake of chapters 2–6
    fails the chapter-7 check that exercises it, with a message that says what went wrong."""
    from autograder.checking import check_chapter
    from autograder.course import chapter
    from tests.trees import broken_package, composite

    packages = composite(7, SOLUTIONS / PACKAGE)
    packages[chapter(number).package] = broken_package(number, tmp_path, file, edit, "")
    result = check_chapter(chapter(7), packages)
    verdicts = {c.check.name: c for t in result.tasks for c in t.checks}
    assert not verdicts[check].passed, report.chapter_report(result)
    assert says in " ".join(str(verdicts[check].message).split()), verdicts[check].message

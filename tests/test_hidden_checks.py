"""The hidden checks (``autograder/hidden/``): the reference scores every point on public and
hidden checks together, at the public seed and at a secret one; fresh stubs score nothing
("not started"); the hidden cases are not the public ones, and their values (never their
labels) change with the seed; code with a realistic bug that every public case misses passes
the public checks of its task and fails the hidden ones; and unusual but correct code at the
same edges scores every hidden point."""

from __future__ import annotations

import importlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from autograder import report
from autograder.checking import check_chapter, public_checks
from autograder.course import chapter
from autograder.harness import wire
from tests.trees import SOLUTIONS, broken_package, composite, write_stubs
from tests.variants.ch03_broken import EXPAND_BY_RESHAPE, UNBROADCAST_ONE_AXIS_AT_A_TIME
from tests.variants.ch04_broken import ENGINE_TOPOLOGICAL_ORDER, ENGINE_WITH_LISTS

CHAPTER_NUMBERS = [1, 2, 3, 4]
SECRET_SEED = 20_240_611


def hidden(number: int) -> str:
    return f"autograder.hidden.{chapter(number).package}"


def graded(number: int, packages: dict[str, Path], *, public: bool = True, seed: int = 0):
    """Check a chapter as the grader does: hidden checks through ``hidden_modules``, so
    their verdicts carry only the grader's own text."""
    return check_chapter(
        chapter(number),
        packages,
        check_modules=public_checks(chapter(number)) if public else [],
        hidden_modules=[hidden(number)],
        seed=seed,
    )


def checks(module: str) -> list:
    return importlib.import_module(module).CHECKS


def reference(number: int) -> dict[str, Path]:
    return composite(number, SOLUTIONS / chapter(number).package)


# -- the reference, and fresh stubs ----------------------------------------------------------------


@pytest.mark.parametrize("number", CHAPTER_NUMBERS)
def test_reference_scores_every_point_on_public_and_hidden_checks(number: int) -> None:
    result = graded(number, reference(number))
    assert result.passed and result.points == result.max_points, report.chapter_report(result)
    public = {c.task for c in checks(public_checks(chapter(number))[0])}
    for task in result.tasks:  # every task has its public checks and at least one hidden one
        names = {c.check.name for c in task.checks}
        assert any("(hidden" in name for name in names), task.task.id
        assert task.task.id in public and len(names) >= 2


@pytest.mark.parametrize("number", CHAPTER_NUMBERS)
def test_reference_scores_every_hidden_point_at_a_secret_seed(number: int) -> None:
    result = graded(number, reference(number), public=False, seed=SECRET_SEED)
    assert result.passed and result.points == result.max_points, report.chapter_report(result)


@pytest.fixture(scope="module")
def stubs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_stubs(tmp_path_factory.mktemp("stubs"))


@pytest.mark.parametrize("number", CHAPTER_NUMBERS)
def test_fresh_stubs_score_nothing_on_hidden_checks(number: int, stubs: Path) -> None:
    packages = composite(number, stubs / chapter(number).package)
    result = graded(number, packages, public=False)
    assert result.points == 0
    assert {t.status for t in result.tasks} == {"not started"}, report.chapter_report(result)
    for task in result.tasks:
        for c in task.checks:
            assert c.status in ("not started", "blocked"), (c.check.name, c.message)


# -- hidden cases are other cases ---------------------------------------------------------------


def _inputs(cases) -> list[str]:
    return [wire.dumps(c.inputs) for c in cases]


@pytest.mark.parametrize("number", CHAPTER_NUMBERS)
def test_hidden_cases_are_not_the_public_ones(number: int) -> None:
    public = checks(public_checks(chapter(number))[0])
    names = {c.name for c in public}
    cases = [case for c in public for case in c.make_cases(0)]
    labels, inputs = {case.label for case in cases}, set(_inputs(cases))
    for check in checks(hidden(number)):
        assert check.name not in names and "hidden" in check.name
        own = check.make_cases(0)
        assert not labels & {case.label for case in own}, check.name
        assert not inputs & set(_inputs(own)), check.name


@pytest.mark.parametrize("number", CHAPTER_NUMBERS)
def test_a_secret_seed_changes_every_hidden_case_list_but_no_label(number: int) -> None:
    """Labels tell the kind of each case and never its drawn values: they are the same for
    every seed, while every hidden check's inputs change with it."""
    for check in checks(hidden(number)):
        public, secret = check.make_cases(0), check.make_cases(SECRET_SEED)
        assert [c.label for c in public] == [c.label for c in secret], check.name
        assert _inputs(public) != _inputs(secret), check.name
        assert _inputs(public) == _inputs(check.make_cases(0)), check.name


# -- what only the hidden checks catch ----------------------------------------------------------

EXPAND_CHECKS_THE_FIRST_SIZE_ONLY = """
new = len(sizes) - x.ndim
if new < 0:
    raise RuntimeError(f"expand{sizes}: fewer sizes than the dimensions of {x.shape}")
if new and sizes[0] == -1:
    raise RuntimeError(f"expand{sizes}: -1 for a new leading dimension")
shape = [x.shape[axis - new] if size == -1 else size for axis, size in enumerate(sizes)]
return broadcast_to(x, shape)
"""

# (name, chapter, file, edit, the task it breaks): realistic bugs that every public case
# misses (see tests/trees.py for the edits)
VARIANTS = [
    # chapter 1's rules the notebook states (relu'(0) = 0, a saturated tanh, ** at a zero
    # base) have public cases now (tests/variants/ch01_broken.py); a zero factor is a kind of
    # case only the hidden checks draw
    (
        "mul's derivative as out / other, which divides by a zero factor",
        1,
        "value.py",
        (
            "other.grad += self.data * out.grad",
            "other.grad += (out.data / other.data) * out.grad",
        ),
        "1.3",
    ),
    # chapter 2's stated rules (saturated tanh and sigmoid, kinks and ties in n-D, ** at zero
    # and negative bases) have public rows too (tests/variants/ch02_broken.py); a zero factor of
    # * is a kind of case only the hidden checks draw
    (
        "mul's derivative as out / a, which divides by a zero factor",
        2,
        "arithmetic.py",
        (
            "return grad_output * b, grad_output * a",
            "out = a * b\n        return grad_output * out / a, grad_output * out / b",
        ),
        "2.2",
    ),
    (
        "expand refuses -1 in the first new axis only",
        3,
        "expand.py",
        ("region", EXPAND_CHECKS_THE_FIRST_SIZE_ONLY),
        "3.3",
    ),
    # a None-only node whose constant input comes first: only the hidden checks' mixed
    # random graphs (cases.mixed_graph) hold one
    (
        "a node that received only None passes as many Nones as it has parents",
        4,
        "engine.py",
        (
            "            grads = (None,) * len(v.inputs)\n",
            "            grads = (None,) * len([x for x in v.inputs if x.requires_grad])\n",
        ),
        "4.2",
    ),
]


# Unusual but correct code at the same edges: each must score every hidden point (the
# chapter-3 ones are tests/variants/ch03_broken.py's).
CORRECT = [
    (
        "relu's derivative from its input, a float 0 at the kink",
        1,
        "value.py",
        ("(out.data > 0) * out.grad", "(1.0 if self.data > 0 else 0.0) * out.grad"),
        "1.6",
    ),
    (
        "sigmoid' as exp(-|a|) / (1 + exp(-|a|))², which never overflows",
        2,
        "pointwise.py",
        (
            "s = a.sigmoid()\n        return grad_output * s * (1 - s)",
            "e = (-a.abs()).exp()\n        return grad_output * e / ((1 + e) * (1 + e))",
        ),
        "2.5",
    ),
    (
        "unbroadcast one axis at a time",
        3,
        "unbroadcast.py",
        ("region", UNBROADCAST_ONE_AXIS_AT_A_TIME),
        "3.1",
    ),
    ("expand adds the new axes with reshape", 3, "expand.py", ("region", EXPAND_BY_RESHAPE), "3.3"),
    (
        "a queue and a dict of lists of contributions",
        4,
        "engine.py",
        ("region", ENGINE_WITH_LISTS),
        "4.2",
    ),
    (
        "backward_pass in a topological order (iterative DFS), no counts",
        4,
        "engine.py",
        ("region", ENGINE_TOPOLOGICAL_ORDER),
        "4.2",
    ),
]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Each broken variant checked on its task's public checks (and those of the tasks they
    require) and on every hidden check, each correct one on every hidden check; two at a
    time."""
    root = tmp_path_factory.mktemp("hidden-variants")
    variants = VARIANTS + CORRECT
    folders = [root / str(i) for i in range(len(variants))]
    for folder in folders:
        folder.mkdir()

    def one(args: tuple) -> tuple:
        folder, (name, number, file, edit, task) = args
        packages = composite(number, broken_package(number, folder, file, edit, task))
        public = None
        if any(name == variant[0] for variant in VARIANTS):  # its own task's public checks
            public = check_chapter(chapter(number), packages, task_ids=[task])
        secret = graded(number, packages, public=False)
        return name, (public, secret)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(one, zip(folders, variants)))


def test_every_chapter_has_a_variant_only_the_hidden_checks_catch() -> None:
    assert {number for _, number, *_ in VARIANTS} == set(CHAPTER_NUMBERS)


@pytest.mark.parametrize(
    ("name", "number", "file", "edit", "task"), VARIANTS, ids=[v[0] for v in VARIANTS]
)
def test_variant_passes_public_checks_and_fails_hidden_ones(
    outcomes: dict, name: str, number: int, file: str, edit: tuple, task: str
) -> None:
    public, secret = outcomes[name]
    (own,) = public.tasks
    assert own.passed and own.points == own.task.points, report.chapter_report(public)
    verdict = next(t for t in secret.tasks if t.task.id == task)
    assert verdict.status == "failed" and verdict.points < verdict.task.points
    problem = verdict.first_problem
    assert problem.hidden and not problem.printed and not problem.where
    assert problem.message.startswith(("the result differs", "raised "))
    failed = {t.task.id for t in secret.tasks if t.status == "failed"}
    assert failed == {task}, report.chapter_report(secret)


@pytest.mark.parametrize(
    ("name", "number", "file", "edit", "task"), CORRECT, ids=[v[0] for v in CORRECT]
)
def test_unusual_but_correct_code_scores_every_hidden_point(
    outcomes: dict, name: str, number: int, file: str, edit: tuple, task: str
) -> None:
    _, secret = outcomes[name]
    assert secret.passed and secret.points == secret.max_points, report.chapter_report(secret)


# -- chapter 1: public and hidden checks agree on the contract -----------------------------------

CH01_SHARED = [
    "relu lets the gradient through at 0",
    "tanh written with exp, which overflows for large x",
    "pow's derivative as n * out / x, which divides by a zero base",
    "sigmoid overflows for large negative inputs",
    "central difference with another default eps",
    "topological sort that de-duplicates its output instead of keeping a visited set",
    "topological sort with a visited list",
    "topological sort that tells Values by data",
    "backward re-walks the graph below each node",
    "backward zeroes every grad first",
    # issue 26: the rule for ** at a zero base, stated in §4, held by public and hidden rows
    "pow guards a zero base with 0",
    "pow takes 0⁰ as 0 (x ** 1 at a zero base)",
    "pow without the n = 0 case (micrograd's formula divides by a zero base)",
    "pow swallows the ZeroDivisionError of an infinite slope",
    "pow computes its slope in the forward (x ** 0.5 at a zero base raises)",
    "pow gives inf for a negative power of 0 (PyTorch's answer)",
]


# -- chapter 4: the same --------------------------------------------------------------------------

CH04_SHARED = [
    "a root listed twice is walked twice",
    "the seeds of a root given twice overwrite each other",
    "every root ready at the start",
    "hooks run when a vertex is pushed (never on a root)",
    "create_graph that records nothing",
    "accumulates on the arrays",
    "seed: ones for a one-element output, even when a gradient is given",
    "seed copies the gradient off its graph",
    "enable_grad keeps the mode from before on the class",
    "set_grad_enabled's exit sets the opposite of its mode",
    "enable_grad's exit returns a true value (swallows the exception)",
    "jvp's results are not detached",
    "hessian of one input only",
    "the engine detaches the seeds",
    "every node released after the loop",
    "a count that never walks a leaf",
    "accumulate detaches the first gradient",
    "jvp detaches even with create_graph",
    "the engine counts down only gradients that are not None",
    "a node that received only None passes nothing on",
    "a node that received only None is released too",
]


# -- chapter 5: the same rules (a task whose checks build a module may show as blocked by an
# unwritten 5.1: every module needs its __setattr__) ---------------------------------------


@pytest.mark.parametrize("seed", [0, SECRET_SEED])
def test_ch05_reference_scores_every_point(seed: int) -> None:
    if seed:
        test_reference_scores_every_hidden_point_at_a_secret_seed(5)
    else:
        test_reference_scores_every_point_on_public_and_hidden_checks(5)


def test_ch05_fresh_stubs_score_nothing_on_hidden_checks(stubs: Path) -> None:
    packages = composite(5, stubs / chapter(5).package)
    result = graded(5, packages, public=False)
    assert result.points == 0
    unwritten = {t.task.id for t in result.tasks if t.status == "not started"}
    for task in result.tasks:
        assert task.status == "not started" or task.blocked_by in unwritten, task.task.id
        for c in task.checks:
            assert c.status in ("not started", "blocked"), (c.check.name, c.message)


def test_ch05_hidden_cases_are_not_the_public_ones() -> None:
    test_hidden_cases_are_not_the_public_ones(5)
    test_a_secret_seed_changes_every_hidden_case_list_but_no_label(5)


CH05_SHARED = [
    "__setattr__ never forgets a name",
    "Linear's k from out_features",
    "named_modules yields a shared module twice",
    "_named_members does not deduplicate tied weights",
    "eval() reaches the children only",
    "Sequential runs its modules in reverse",
    "state_dict names without the dotted prefix",
    "load_state_dict copies before checking",
    "softmax without the max shift",
    "cross_entropy's mean counts ignored targets",
    "label smoothing's gradient with the one-hot only",
    "kaiming ignores mode",
    "dropout not rescaled",
    "BatchNorm's running_var biased",
    "DataLoader ignores the generator",
    "checkpoint keeps the activations",
    "checkpoint does not replay the random numbers",
    # issue 26: values with the right moments that are not draws, and generators not honoured
    "Linear's weight from a fixed table (default_rng(0))",
    "Linear's weight a shuffled linspace",
    "xavier_uniform_ ignores the generator (draws from the global one)",
    "kaiming_normal_ from a fixed table (default_rng(0))",
    "xavier_normal_ from a new generator made from the given one's seed",
    "kaiming_uniform_ a linspace shuffled by the generator",
    "xavier_uniform_ draws one row and repeats it",
    "xavier_normal_ with antithetic pairs (h, −h)",
    "kaiming_normal_ fills sorted draws",
    "dropout drops a fixed pattern (element i where frac(i·p) < p)",
    "dropout draws one mask row and broadcasts it over the batch",
    "dropout's mask from a fixed table (default_rng(0))",
    "dropout's mask from a new generator made from the given one's seed",
]


# -- chapter 6: the same (every public-caught variant of tests/variants/ch06_broken.py is caught
# by the hidden checks alone; these span the tasks) -----------------------------------------

CH06_SHARED = [
    "add_param_group overwrites a group's options with the defaults",
    "zero_grad writes zeros into the old gradient",
    "SGD's buffer is the gradient's array",
    "SGD's nesterov look-ahead missing",
    "Adagrad's lr decay counts from 1",
    "RMSprop centered without the mean's square",
    "Adam's bias correction with the wrong step count",
    "Adam's amsgrad maximum unused",
    "AdamW's decay without the learning rate",
    "load_state_dict does not cast",
    "state_dict shares the state tensors",
    "MultiStepLR counts a repeated milestone once",
    "OneCycleLR's fraction one step short",
    "clip_grad_norm_ always by the 2-norm",
    "clip_grad_value_ clips in place",
]


# -- chapter 7: the reference, stubs and other cases as for chapter 5; the shared variants
# are tasks 7.1–7.6's (the operations' 7.7 and 7.8 are tests/test_ops_ch07.py's) -----------


CH07_DEVICE_TASKS = {f"7.{k}" for k in range(1, 7)}


@pytest.mark.parametrize("seed", [0, SECRET_SEED])
def test_ch07_reference_scores_every_point(seed: int) -> None:
    result = graded(7, reference(7), public=not seed, seed=seed)
    assert result.passed and result.points == 100, report.chapter_report(result)
    hidden_tasks = {c.task for c in checks(hidden(7)) if c.name.endswith("(hidden)")}
    assert hidden_tasks >= CH07_DEVICE_TASKS


def test_ch07_fresh_stubs_score_nothing_on_hidden_checks(stubs: Path) -> None:
    test_fresh_stubs_score_nothing_on_hidden_checks(7, stubs)


def test_ch07_hidden_cases_are_not_the_public_ones() -> None:
    """Tasks 7.1–7.6's hidden checks (the operations' are tests/test_ops_ch07.py's): other
    names, labels and inputs than the public ones; labels the same for every seed, inputs
    not."""
    public = checks(public_checks(chapter(7))[0])
    cases = [case for c in public for case in c.make_cases(0)]
    labels, inputs = {case.label for case in cases}, set(_inputs(cases))
    for check in checks(hidden(7)):
        if check.task not in CH07_DEVICE_TASKS:
            continue
        assert check.name not in {c.name for c in public} and "hidden" in check.name
        own, secret = check.make_cases(0), check.make_cases(SECRET_SEED)
        assert not labels & {case.label for case in own}, check.name
        assert not inputs & set(_inputs(own)), check.name
        assert [c.label for c in own] == [c.label for c in secret], check.name
        assert _inputs(own) != _inputs(secret), check.name


CH07_SHARED = [
    "the probe catches ImportError only",
    "the probe prints why there is no GPU",
    "the probe lets CuPy's warnings through",
    "the probe runs at import",
    "is_available probes at every call",
    "the probe counts devices but runs no kernel",
    "array_module always NumPy",
    "device_of without the index",
    "backend_of knows the built-in backends only",
    "backend_of's TypeError does not name the type",
    "move_array copies an array that is already there",
    "move_array reads every copy back to check it",
    "move_array returns a device array for the cpu",
    "move_array lets CuPy fail when there is no GPU",
    "move_array ignores the device index",
    "ToDevice's backward leaves the gradient where it is",
    "ToDevice's backward moves the array (not recorded)",
    "check_same_device returns silently",
    "check_same_device's message without the operation",
    "check_same_device names the device types only",
    "scatter_add with NumPy's add.at on a device array",
    "scatter_add as target[index] += values",
    "scatter_add leaves NumPy values on the host",
    "scatter_add through the host",
]


SHARED = {1: CH01_SHARED, 4: CH04_SHARED, 5: CH05_SHARED, 6: CH06_SHARED, 7: CH07_SHARED}


@pytest.mark.parametrize(
    ("number", "name"), [(number, name) for number, names in SHARED.items() for name in names]
)
def test_hidden_checks_catch_what_the_public_ones_catch(
    number: int, name: str, tmp_path: Path
) -> None:
    """tests/variants/chNN_broken.py's variants fail their task's public checks
    (tests/test_variants.py); the hidden checks, with other cases of the same kinds, fail
    them too."""
    broken = importlib.import_module(f"tests.variants.ch{number:02d}_broken").SET.broken
    _, file, edit, task = next(v for v in broken if v[0] == name)
    packages = composite(number, broken_package(number, tmp_path, file, edit, task))
    result = graded(number, packages, public=False)
    verdict = next(t for t in result.tasks if t.task.id == task)
    assert verdict.status == "failed", report.chapter_report(result)

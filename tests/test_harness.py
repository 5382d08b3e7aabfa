"""The check harness itself: the wire format, the comparisons, the trusted numerical
derivative, and the shape of every check package."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import math
import sys

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from autograder import expectations
from autograder.checking import program_reference, public_checks
from autograder.course import CHAPTERS
from autograder.grading import hidden_checks
from autograder.harness import gradcheck, wire
from autograder.harness.api import Case, Check, compare

# -- wire --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        None,
        True,
        3,
        -2.5,
        "text",
        [1, [2.0, None]],
        {"a": {"b": [1, 2]}},
        np.arange(6, dtype=np.float32).reshape(2, 3),
        np.float32(1.5),
        np.int64(7),
        np.array(2.0),
        np.zeros((0, 3)),
        float("inf"),
    ],
)
def test_wire_round_trip(data) -> None:
    back = wire.loads(wire.dumps(data))
    if isinstance(data, (np.ndarray, np.generic)):
        assert type(back) is type(data) and back.dtype == data.dtype
        np.testing.assert_array_equal(back, data)
    else:
        assert back == data


def test_wire_sends_objects_as_type_and_repr_only() -> None:
    class Sneaky:
        def __repr__(self) -> str:
            return "x" * 10_000

    back = wire.loads(wire.dumps({"v": Sneaky(), "arr": np.array([object()])}))
    assert back["v"].type == "Sneaky" and len(back["v"].repr) == wire.REPR_LIMIT
    assert back["arr"].type == "ndarray"


def test_wire_never_unpickles() -> None:
    import base64
    import io
    import pickle

    evil = io.BytesIO()
    np.save(evil, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    pickled = base64.b64encode(evil.getvalue()).decode()
    with pytest.raises(ValueError, match="an array is"):  # an .npy file: not the wire's form
        wire.loads(wire.dumps({"__ndarray__": pickled}))
    record = {"dtype": "|O", "shape": [1], "data": base64.b64encode(pickle.dumps(1)).decode()}
    with pytest.raises(ValueError, match="cannot be received"):
        wire.loads(wire.dumps({"__ndarray__": record}))
    short = {"dtype": "<f8", "shape": [10**12], "data": ""}  # no allocation for a lie
    with pytest.raises(ValueError, match="bytes"):
        wire.loads(wire.dumps({"__ndarray__": short}))


def test_wire_arrays_round_trip_without_numpy_load() -> None:
    """dtype, shape and values survive, in every allowed kind, 0-d and empty included, and
    a Fortran-ordered array arrives in C order with the same values."""
    arrays = [
        np.arange(6, dtype=np.float32).reshape(2, 3),
        np.asfortranarray(np.arange(6.0).reshape(2, 3)),
        np.array(3, dtype=np.int64),
        np.zeros((0, 4), dtype=np.complex128),
        np.array([True, False]),
        np.array(["a", "bc"]),
    ]
    for array in arrays:
        back = wire.loads(wire.dumps({"x": array}))["x"]
        assert back.dtype == array.dtype and back.shape == array.shape
        assert np.array_equal(back, array) and back.flags.writeable
    assert wire.loads(wire.dumps(np.float32(2.5))) == np.float32(2.5)
    record = np.zeros(2, dtype=[("a", "i4")])  # a record array is sent as an opaque value
    assert isinstance(wire.loads(wire.dumps(record)), wire.Opaque)


# -- compare -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("received", "expected", "problem"),
    [
        (1.0, 1.0 + 1e-12, None),
        (1.0, 1.1, "expected 1.1, received 1"),
        ({"a": 1.0}, {"a": 2.0}, "a: expected 2, received 1"),
        ({}, {"a": 2.0}, "missing 'a'"),
        ([1.0, 2.0], [1.0, 2.0, 3.0], "expected 3 items, received 2"),
        ("Value", "float", "expected 'float', received 'Value'"),
        (True, 1.0, "expected the number 1"),
        (np.ones(3), np.ones(4), "expected shape (4,), received shape (3,)"),
        (list(range(200)), [*range(199), 7], "[199]: expected 7, received 199"),
        (float("nan"), float("nan"), None),
    ],
)
def test_compare_names_the_first_difference(received, expected, problem) -> None:
    found = compare(received, expected, rtol=1e-9, atol=1e-12)
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found


@given(st.floats(-3, 3), st.floats(-3, 3))
def test_gradcheck_partials_match_calculus(x: float, y: float) -> None:
    dx, dy = gradcheck.partials(lambda a, b: math.sin(a) * b**2, [x, y])
    assert dx == pytest.approx(math.cos(x) * y**2, abs=1e-6)
    assert dy == pytest.approx(2 * math.sin(x) * y, abs=1e-6)


# the closed forms gradcheck's complex step must meet to float64 rounding (the checks'
# float64 tolerance, rtol 1e-9, leaves float32's ~6e-8 no room, so the expectations must be
# far more precise than that)
CLOSED_FORMS = {  # f, its derivative, and its second derivative, elementwise
    "exp": (np.exp, np.exp, np.exp),
    "log": (np.log, lambda x: 1 / x, lambda x: -1 / x**2),
    "tanh": (np.tanh, lambda x: 1 - np.tanh(x) ** 2, lambda x: -2 * np.tanh(x) / np.cosh(x) ** 2),
    "x**3": (lambda x: x**3, lambda x: 3 * x**2, lambda x: 6 * x),
    "x**-2.5": (lambda x: x**-2.5, lambda x: -2.5 * x**-3.5, lambda x: 8.75 * x**-4.5),
    "1/x": (lambda x: 1 / x, lambda x: -1 / x**2, lambda x: 2 / x**3),
}


@given(
    name=st.sampled_from(list(CLOSED_FORMS)),
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 6),
)
def test_gradcheck_is_exact_to_float64_rounding(name: str, seed: int, n: int) -> None:
    f, df, d2f = CLOSED_FORMS[name]
    rng = np.random.default_rng(seed)
    x, g, h = rng.uniform(0.3, 3.0, n), rng.uniform(-1.5, 1.5, n), rng.uniform(-1, 1, n)
    (vjp,) = gradcheck.vjp(f, [x], g)
    np.testing.assert_allclose(vjp, g * df(x), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(gradcheck.jvp(f, [x], [h]), h * df(x), rtol=1e-13, atol=1e-15)
    (hvp,) = gradcheck.hvp(f, [x], [h], g)
    np.testing.assert_allclose(hvp, g * h * d2f(x), rtol=1e-7, atol=1e-9)


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 4), k=st.integers(1, 4))
def test_gradcheck_vjp_of_a_product_is_exact(seed: int, n: int, k: int) -> None:
    rng = np.random.default_rng(seed)
    a, b, g = rng.normal(size=(n, k)), rng.normal(size=(k, 3)), rng.normal(size=(n, 3))
    ga, gb = gradcheck.vjp(np.matmul, [a, b], g)
    np.testing.assert_allclose(ga, g @ b.T, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(gb, a.T @ g, rtol=1e-13, atol=1e-14)


# -- check packages ------------------------------------------------------------------------


def _check_modules():
    """Every check package, public and hidden: both follow the same rules."""
    for ch in CHAPTERS:
        for name in public_checks(ch) + hidden_checks(ch):
            yield ch, importlib.import_module(name)


def test_hidden_checks_exist_for_every_chapter_with_public_ones() -> None:
    if importlib.util.find_spec("autograder.hidden") is None:
        pytest.skip("a student release: no hidden checks")
    with_public = [ch.package for ch in CHAPTERS if public_checks(ch)]
    assert with_public and [ch.package for ch in CHAPTERS if hidden_checks(ch)] == with_public


def test_every_task_has_a_check_and_every_check_a_task() -> None:
    for ch, module in _check_modules():
        tasks = {t.id for t in ch.tasks}
        checked = {c.task for c in module.CHECKS}
        assert checked == tasks, ch.package
        for check in module.CHECKS:
            assert set(check.requires) <= tasks - {check.task}


def _inputs(check: Check, seed: int) -> list[str]:
    # a training run's expectations exist for the public seed only; collecting() lets its
    # case list be drawn for another seed (placeholders where the expectations would be)
    with expectations.collecting():
        return [wire.dumps(c.inputs) for c in check.make_cases(seed)]


def test_cases_are_deterministic_labelled_and_seed_dependent() -> None:
    for _, module in _check_modules():
        for check in module.CHECKS:
            a, b = check.make_cases(0), check.make_cases(0)
            assert [c.label for c in a] == [c.label for c in b]
            assert all(c.label and isinstance(c, Case) for c in a)
            assert len(a) >= 2, check.name
            assert [wire.dumps(c.inputs) for c in a] == [wire.dumps(c.inputs) for c in b]
        changed = [c for c in module.CHECKS if _inputs(c, 0) != _inputs(c, 12345)]
        assert changed, "a secret seed must change some case lists"


def _programs_imported(path) -> list[str]:
    """The check-programs modules a programs module imports (``from ..ch02_tensor.programs
    import …``), as module names; anything else it imports must be the standard library,
    NumPy or the harness's kit (``from ...harness.kit import host``: every child has the
    harness)."""
    imported = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 3 and node.module == "harness.kit":
            continue
        if isinstance(node, ast.ImportFrom) and node.level:
            assert node.level == 2 and (node.module or "").endswith(".programs"), (
                f"{path}: a relative import of something other than a sibling programs module"
            )
            imported.append(f"autograder.checks.{node.module}")
            continue
        if isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            assert top == "numpy" or top in sys.stdlib_module_names, (path, name)
    return imported


def test_programs_are_all_the_child_gets() -> None:
    """Each program is a top-level function of a programs module that imports only the
    standard library, NumPy and other programs modules: no case lists, no expected values,
    no seed, no trees. The child gets exactly the programs modules that planned checks name,
    so a module another one imports is named by a check of the same task or of one the
    task's checks require (the planner runs those too)."""
    for _, module in _check_modules():
        for check in module.CHECKS:
            reference, path = program_reference(check)
            # programs.py, or a program of its own (chapter 6's training_program.py)
            assert path.name == "programs.py" or path.name.endswith("_program.py"), reference
            needed = {check.task}
            needed.update(t for c in module.CHECKS if c.task == check.task for t in c.requires)
            planned = {
                program_reference(c)[0].split(":")[0] for c in module.CHECKS if c.task in needed
            }
            for imported in _programs_imported(path):
                assert imported in planned, (module.__name__, check.task, imported)


# -- hunting: the public ch01 checks agree with the reference on drawn inputs ----------------

CH01 = importlib.import_module("autograder.checks.ch01_value")
CH01_CASES = importlib.import_module("autograder.checks.ch01_value.cases")


def _one_case(check: Check, case: Case) -> str | None:
    from solutions import ch01_value

    return check.verdict(case, wire.loads(wire.dumps(check.program(ch01_value, **case.inputs))))


@given(
    op=st.sampled_from(sorted(CH01_CASES.UNARY)),
    a=st.floats(-6, 6).map(lambda v: round(v, 4)),
    g=st.floats(0.1, 3),
)
def test_unary_checks_accept_the_reference_anywhere_in_the_domain(op: str, a: float, g: float):
    assume(abs(a) > 1e-3 and (op != "log" or a > 0.05))
    check = next(c for c in CH01.CHECKS if c.name == f"Value.{op}()")
    assert _one_case(check, CH01_CASES.unary_case("drawn", op, a, g, {})) is None


@given(
    op=st.sampled_from(sorted(CH01_CASES.BINARY)),
    form=st.sampled_from(["values", "number right", "number left", "same value"]),
    a=st.floats(-50, 50),
    b=st.floats(-50, 50),
    g=st.floats(-3, 3),
)
def test_binary_checks_accept_the_reference(op: str, form: str, a: float, b: float, g: float):
    check = next(c for c in CH01.CHECKS if c.name == f"Value {op} Value")
    case = CH01_CASES.binary_case("drawn", op, form, a, b, g, {})
    assert _one_case(check, case) is None


@given(st.integers(2, 60), st.integers(0, 2**32 - 1))
def test_graph_checks_accept_the_reference_on_random_dags(n: int, seed: int) -> None:
    graph = CH01_CASES.whole(CH01_CASES.random_dag(np.random.default_rng(seed), n))
    topo = next(c for c in CH01.CHECKS if c.task == "1.7")
    assert _one_case(topo, CH01_CASES.topo_case("drawn", graph)) is None


# -- hunting: the public ch02 checks agree with the reference on drawn shapes ----------------

CH02 = importlib.import_module("autograder.checks.ch02_tensor")
CH03 = importlib.import_module("autograder.checks.ch03_broadcast")
CATALOG = CH02.catalog
ELEMENTWISE = [op for op in CATALOG.CATALOG if op.variants == CATALOG._elementwise()]
shapes = st.lists(st.integers(1, 4), min_size=0, max_size=3).map(tuple)


def _ch02_verdict(case: Case) -> str | None:
    from solutions import ch02_tensor

    data = CH02.programs.op(ch02_tensor, **case.inputs)
    return CH02.verdict(case, wire.loads(wire.dumps(data)))


@given(
    name=st.sampled_from([op.name for op in ELEMENTWISE]),
    shape=shapes,
    dtype=st.sampled_from(["float64", "float32"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_elementwise_checks_accept_the_reference(name: str, shape, dtype: str, seed: int):
    op, layouts = CATALOG.OPS[name], [(shape, "plain")] * CATALOG.OPS[name].arity
    case = CH02.op_case(op, np.random.default_rng(seed), {}, layouts, dtype=dtype)
    assert _ch02_verdict(case) is None


@given(
    name=st.sampled_from(["sum", "mean", "max"]),
    shape=shapes.filter(bool),
    data=st.data(),
    seed=st.integers(0, 2**32 - 1),
)
def test_reduction_checks_accept_the_reference(name: str, shape, data, seed: int):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    options = {"dim": dim, "keepdim": data.draw(st.booleans())}
    if name != "max" and data.draw(st.booleans()):
        options["dim"] = (dim, data.draw(st.integers(0, len(shape) - 1)))
        assume(len({d % len(shape) for d in options["dim"]}) == 2)
    case = CH02.op_case(CATALOG.OPS[name], np.random.default_rng(seed), options, [(shape, "plain")])
    assert _ch02_verdict(case) is None


@st.composite
def broadcast_of(draw, shape: tuple) -> tuple:
    """A shape that broadcasts to ``shape``: leading axes dropped, some sizes set to 1."""
    keep = draw(st.integers(0, len(shape)))
    return tuple(1 if draw(st.booleans()) else n for n in shape[len(shape) - keep :])


@given(
    batch=st.lists(st.integers(1, 3), max_size=2).map(tuple),
    n=st.integers(1, 4),
    k=st.integers(1, 4),
    m=st.integers(1, 4),
    vectors=st.sampled_from(["", "a", "b", "ab"]),
    data=st.data(),
    seed=st.integers(0, 2**32 - 1),
)
def test_matmul_checks_accept_the_reference(batch, n, k, m, vectors: str, data, seed: int):
    """Batch axes of each operand broadcast (chapter 3), and a 1-D operand meets a batch."""
    a = (k,) if "a" in vectors else (*data.draw(broadcast_of(batch)), n, k)
    b = (k,) if "b" in vectors else (*data.draw(broadcast_of(batch)), k, m)
    layouts = [(a, "plain"), (b, "plain")]
    case = CH02.op_case(
        CATALOG.OPS["matmul"], np.random.default_rng(seed), {}, layouts, broadcast=True
    )
    assert _ch02_verdict(case) is None


@given(
    name=st.sampled_from(["add", "sub", "mul", "div"]),
    shape=st.lists(st.integers(0, 3), max_size=3).map(tuple),
    data=st.data(),
    seed=st.integers(0, 2**32 - 1),
)
def test_broadcast_op_checks_accept_the_reference(name: str, shape, data, seed: int):
    a, b = data.draw(broadcast_of(shape)), data.draw(broadcast_of(shape))
    layouts = [(a, "plain"), (b, "plain")]
    op = CATALOG.OPS[name]
    case = CH02.op_case(op, np.random.default_rng(seed), {}, layouts, broadcast=True)
    assert _ch02_verdict(case) is None


@given(
    grad_shape=st.lists(st.integers(0, 4), max_size=4).map(tuple),
    data=st.data(),
    seed=st.integers(0, 2**32 - 1),
)
def test_unbroadcast_checks_accept_the_reference(grad_shape, data, seed: int):
    from solutions import ch03_broadcast

    shape = data.draw(broadcast_of(grad_shape))
    case = CH03.cases.unbroadcast_case(np.random.default_rng(seed), grad_shape, shape)
    received = CH03.programs.unbroadcast(ch03_broadcast, **case.inputs)
    assert CH03.unbroadcast_verdict(case, wire.loads(wire.dumps(received))) is None


@given(
    length=st.integers(1, 6),
    picks=st.lists(st.integers(0, 5), min_size=1, max_size=8),
    seed=st.integers(0, 2**32 - 1),
)
def test_indexing_checks_accept_the_reference_with_repeats(length: int, picks, seed: int):
    index = {"index": {"array": [p % length for p in picks]}}
    layouts = [((length, 2), "plain")]
    case = CH02.op_case(CATALOG.OPS["getitem"], np.random.default_rng(seed), index, layouts)
    assert _ch02_verdict(case) is None


@pytest.mark.parametrize(("stub", "status"), [("2.11", "blocked"), ("3.1", "failed")])
def test_a_later_chapters_stub_is_this_tasks_failure(stub: str, status: str) -> None:
    """A check of task 2.7 that reaches chapter 3's stub (a gradient of the wrong shape went
    to the reduction seam) failed on its own: it is not "blocked by" a later task."""
    from autograder.runner import CheckRun
    from autograder.verdict import judge

    check = next(c for c in CH02.CHECKS if c.task == "2.7")
    cases = check.make_cases(0)
    raised = {"type": "NotImplementedError", "message": f"Task {stub}: …", "not_started": stub}
    verdict = judge(check, cases, CheckRun("ran", results=[{"raised": raised}] * len(cases)))
    assert verdict.status == status
    assert ("later chapter" in verdict.message) == (status == "failed")


def test_the_watch_sees_a_module_replaced_in_sys_modules() -> None:
    """Code under test that puts a module of its own where the grader's stood (a stand-ins
    module a rerun imports by name, say) is named, and the grader's is put back."""
    import types

    from autograder.harness import child, kit

    watch = child._Watch([kit])
    assert watch.changed() == [] and watch.restore() == ""
    fake = types.ModuleType(kit.__name__)
    sys.modules[kit.__name__] = fake
    try:
        assert f"sys.modules[{kit.__name__!r}]" in watch.restore()
        assert sys.modules[kit.__name__] is kit
    finally:
        sys.modules[kit.__name__] = kit
    assert watch.changed() == []


def test_the_watch_puts_back_what_a_program_uses_and_ignores_what_it_does_not() -> None:
    """A replaced function, a function whose code was swapped, a class entry and a NumPy
    function the kit calls are named and put back; NumPy's ``frombuffer`` (which only the
    plan's decoding uses) may be wrapped freely."""
    import numpy as np

    from autograder.harness import child, kit

    watch = child._Watch([kit])
    host, asarray, frombuffer = kit.host, np.asarray, np.frombuffer
    code = kit.attempt.__code__
    try:
        kit.host = lambda *a, **k: "forged"
        kit.attempt.__code__ = (lambda *a, **k: None).__code__
        np.asarray = lambda *a, **k: asarray(*a, **k)
        np.frombuffer = lambda *a, **k: frombuffer(*a, **k)
        said = watch.restore()
        assert "autograder.harness.kit.host" in said and "attempt" in said, said
        assert "numpy.asarray" in said and "frombuffer" not in said, said
        assert kit.host is host and np.asarray is asarray and kit.attempt.__code__ is code
        assert watch.changed() == []
    finally:
        kit.host, np.asarray, np.frombuffer = host, asarray, frombuffer
        kit.attempt.__code__ = code

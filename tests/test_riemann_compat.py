"""The name-mapping package ``tools/riemann_compat`` and the runner ``tools.riemann_suite``,
without Riemann: its names resolve to the framework's own objects, nothing is implemented
there, an absent name fails where it is used, and the runner's pieces (scope, the Python 3.12
f-string rewrite, the plugin's verdicts, the report) do what docs/riemann.md says."""

from __future__ import annotations

import importlib
import inspect
import json
import os
import re
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

from autograder.course import CHAPTERS

LAST = CHAPTERS[-1].package  # the mapping stands for the last chapter's package
sp = importlib.import_module(f"solutions.{LAST}")

ROOT = Path(__file__).resolve().parents[1]
COMPAT = ROOT / "tools" / "riemann_compat"
MODULES = [
    "riemann",
    "riemann.tensordef",
    "riemann.dtype",
    "riemann.cuda",
    "riemann.linalg",
    "riemann.nn",
    "riemann.nn.functional",
    "riemann.nn.init",
    "riemann.optim",
    "riemann.optim.lr_scheduler",
    "riemann.autograd",
    "riemann.autograd.grad",
    "riemann.autograd.functional",
    "riemann.utils",
    "riemann.utils.data",
    "riemann.vision",
    "riemann.vision.datasets",
    "riemann.vision.transforms",
]


@pytest.fixture
def riemann(monkeypatch: pytest.MonkeyPatch):
    """The mapping package, imported against ``solutions`` and forgotten afterwards."""
    monkeypatch.setenv("SPARROW_IMPL", "solutions")
    monkeypatch.syspath_prepend(str(COMPAT))
    for name in [n for n in sys.modules if n == "riemann" or n.startswith("riemann.")]:
        monkeypatch.delitem(sys.modules, name)
    module = importlib.import_module("riemann")
    for name in MODULES:
        importlib.import_module(name)
    yield module
    for name in [n for n in sys.modules if n == "riemann" or n.startswith("riemann.")]:
        del sys.modules[name]


def test_names_are_the_frameworks_own_objects(riemann) -> None:
    import riemann.autograd.functional as functional
    from riemann.autograd.grad import Function, grad
    from riemann.optim.lr_scheduler import StepLR
    from riemann.utils.data import DataLoader

    assert riemann.tensor is sp.tensor and riemann.TN is sp.Tensor
    assert riemann.tensordef.TN is sp.Tensor and riemann.tensordef.where is sp.where
    assert riemann.dtype.float64 is sp.float64
    assert riemann.nn.Linear is sp.nn.Linear and riemann.nn.Module is sp.nn.Module
    assert (
        riemann.nn.Conv2d is sp.nn.Conv2d
        and riemann.nn.functional.conv2d is sp.nn.functional.conv2d
    )
    assert riemann.nn.MultiheadAttention is sp.nn.MultiheadAttention
    assert riemann.nn.TransformerEncoderLayer is sp.nn.TransformerEncoderLayer
    sdpa = riemann.nn.functional.scaled_dot_product_attention
    assert sdpa is sp.nn.functional.scaled_dot_product_attention
    assert riemann.nn.functional.cross_entropy is sp.nn.functional.cross_entropy
    assert riemann.optim.SGD is sp.optim.SGD and StepLR is sp.optim.lr_scheduler.StepLR
    assert riemann.autograd.grad is sp.autograd.grad and grad is sp.autograd.grad
    assert Function is sp.autograd.Function
    assert functional.jacobian is sp.autograd.functional.jacobian
    assert DataLoader is sp.utils.data.DataLoader
    assert riemann.cuda.Device is sp.device and riemann.cuda.is_available is sp.cuda.is_available
    assert riemann.cuda.CUPY_AVAILABLE is sp.cuda.is_available()
    assert (riemann.cuda.cp is None) is (not sp.cuda.is_available())
    # the submodules are the mapping's own, not the framework's
    assert riemann.nn.__name__ == "riemann.nn" and riemann.nn.functional.__name__.startswith(
        "riemann."
    )


def test_nothing_is_implemented_in_the_mapping(riemann) -> None:
    """Every public value of every mapping module comes from the framework (or NumPy, or
    CuPy), is one of the mapping's own modules, or is a placeholder for an absent name."""
    from riemann._map import Missing

    seen = 0
    for name in MODULES:
        module = sys.modules[name]
        for attr, value in vars(module).items():
            if attr.startswith("_"):
                continue
            seen += 1
            if isinstance(value, types.ModuleType):
                assert not value.__name__.startswith("riemann.") or value.__name__ in MODULES
                continue
            if isinstance(value, Missing) or value is None or isinstance(value, bool):
                continue
            origin = getattr(value, "__module__", None) or type(value).__module__
            assert not str(origin).startswith("riemann"), f"{name}.{attr} is defined there"
            if inspect.isfunction(value):
                assert not Path(inspect.getfile(value)).is_relative_to(COMPAT), (name, attr)
    assert seen > 300


def test_an_absent_name_imports_and_fails_where_it_is_used(riemann) -> None:
    from riemann import a_name_no_framework_has as absent
    from riemann._map import MissingName

    with pytest.raises(MissingName, match=r"riemann\.a_name_no_framework_has: the framework"):
        absent(1, 2)
    with pytest.raises(MissingName, match="a_name_no_framework_has"):
        absent.anything  # noqa: B018
    with pytest.raises(MissingName):

        class Sub(absent):  # type: ignore[misc,valid-type]
            pass

    assert "a_name_no_framework_has" in repr(absent)
    assert not hasattr(riemann, "_private") and not hasattr(absent, "__wrapped__")
    assert isinstance(riemann.nn.functional.a_missing_loss, type(absent))


def test_the_tree_follows_sparrow_impl(riemann, monkeypatch: pytest.MonkeyPatch) -> None:
    from riemann import _map

    assert _map.framework() is sp and _map.last_chapter() == LAST == "ch09_attention"
    monkeypatch.setenv("SPARROW_IMPL", "chapters")
    assert _map.framework().__name__ == f"chapters.{LAST}"
    monkeypatch.setenv("SPARROW_IMPL", "neither")
    with pytest.raises(ImportError, match="SPARROW_IMPL must be"):
        _map.framework()


def test_scope_table() -> None:
    from tools.riemann_suite import scope

    assert all(name.startswith("test_") and name.endswith(".py") for name in scope.AREAS)
    assert all(area for area, _ in scope.AREAS.values())
    for (file, test), reason in scope.TESTS.items():
        assert scope.AREAS[file][1] == "", f"{file} is out of scope whole: no single tests"
        assert test.startswith("test") and reason
        assert scope.excluded(file, test) == reason
    for key, pattern in scope.CASES.items():
        assert key in scope.TESTS and re.compile(pattern)
    # convolution and attention (chapters 8 and 9) count since issue 31
    assert scope.excluded("test_030_conv_funcs.py", "test_conv2d") == ""
    assert scope.excluded("test_100_transformer_mha.py", "test_basic") == ""
    assert scope.excluded("test_033_einsum.py", "test_anything") == scope.EINSUM
    assert not any(reason.startswith("a later chapter") for _, reason in scope.AREAS.values())
    assert scope.excluded("test_001_operator.py", "test_arithmetic_operators") == ""
    assert scope.excluded("test_999_new.py", "test_x") == ""  # a new file counts


def test_encoder_decoder_tests_are_counted_and_told_apart() -> None:
    from tools.riemann_suite import scope

    decoder = [
        ("test_101_transformer_coderlayer.py", "test_decoder_basic"),
        ("test_102_transformer_en_decoder.py", "TestTransformerEnDecoder::test_decoder_gelu"),
        ("test_103_transformer.py", "test_generate_square_subsequent_mask"),
    ]
    for file, test in decoder:
        assert scope.encoder_decoder(file, test)
        assert scope.excluded(file, test.split("::")[-1]) == ""  # counted
    assert not scope.encoder_decoder("test_101_transformer_coderlayer.py", "test_encoder_gelu")
    assert not scope.encoder_decoder("test_100_transformer_mha.py", "test_basic")


def test_python_312_fstrings_are_rewritten_to_the_same_string(tmp_path: Path) -> None:
    from tools.riemann_suite.__main__ import parseable

    line = """    print(f"{name:<5}{f'{stats["passed"]}/{stats["total"]}':<7}|")\n"""
    (tmp_path / "test_x.py").write_text("def show(name, stats):\n" + line)
    (tmp_path / "test_fine.py").write_text("x = 1\n")
    changed = parseable(tmp_path)
    text = (tmp_path / "test_x.py").read_text()
    if sys.version_info >= (3, 12):
        assert changed == [] and text.endswith(line)
    else:
        assert changed == ["test_x.py:2"]
        assert 'print(f"""{name:<5}' in text and '}|""")' in text
    assert (tmp_path / "test_fine.py").read_text() == "x = 1\n"
    namespace: dict = {"print": lambda s: namespace.setdefault("out", s)}
    exec(compile(text, "test_x.py", "exec"), namespace)
    namespace["show"]("ab", {"passed": 3, "total": 4})
    assert namespace["out"] == "ab   3/4    |"


PASSING = """
import unittest
IS_RUNNING_AS_SCRIPT = False
class Stats:
    def add_result(self, name, passed, details=None):
        pass
stats = Stats()
class TestThings(unittest.TestCase):
    def test_counts_a_failure(self):
        try:
            raise ValueError("boom")
        except Exception as e:
            stats.add_result("case one", False, str(e))
    def test_only_when_a_script(self):
        if IS_RUNNING_AS_SCRIPT:
            stats.add_result("scripted", False, "seen")
    def test_fine(self):
        import riemann, src.riemann
        assert src.riemann is riemann
        stats.add_result("ok", True)
    def test_excluded_by_scope(self):
        raise AssertionError("never runs")
    def test_mixes_complex_cases(self):
        stats.add_result("float case", True)
        stats.add_result("complex64 case", False, "no complex")
        raise TypeError("a Tensor holds bool, integer or floating data, not complex64")
"""

EXITING = """
import sys
try:
    import riemann_has_no_such_module
except ImportError:
    sys.exit(1)
def test_never():
    pass
"""


def test_plugin_verdicts(tmp_path: Path) -> None:
    """One pytest run under the plugin: recorded failures fail, the script flag is set,
    scope exclusions are recorded, and a file that exits at import fails naming why."""
    (tmp_path / "test_200_things.py").write_text(textwrap.dedent(PASSING))
    (tmp_path / "test_201_exits.py").write_text(textwrap.dedent(EXITING))
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    conftest = tmp_path / "conftest.py"
    conftest.write_text(
        "from tools.riemann_suite import scope\n"
        "scope.TESTS[('test_200_things.py', 'test_excluded_by_scope')] = 'because'\n"
        "scope.TESTS[('test_200_things.py', 'test_mixes_complex_cases')] = 'mixed'\n"
        "scope.CASES[('test_200_things.py', 'test_mixes_complex_cases')] = 'complex'\n"
    )
    results = tmp_path / "results.json"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(COMPAT)]),
        "SPARROW_IMPL": "solutions",
        "RIEMANN_SUITE_RESULTS": str(results),
    }
    subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(tmp_path / "pytest.ini"), "--rootdir",
         str(tmp_path), "-p", "tools.riemann_suite.plugin", "-p", "no:cacheprovider", "-q",
         "--continue-on-collection-errors", str(tmp_path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    data = json.loads(results.read_text())
    verdict = {entry["test"]: (entry["outcome"], entry["reason"]) for entry in data["tests"]}
    assert verdict["test_counts_a_failure"] == (
        "failed",
        "AssertionError: 1 of 1 recorded cases failed; first: case one: boom",
    )
    assert verdict["test_only_when_a_script"][0] == "failed"
    assert "scripted: seen" in verdict["test_only_when_a_script"][1]
    assert verdict["test_fine"] == ("passed", "")
    assert verdict["test_excluded_by_scope"] == ("excluded", "because")
    assert verdict["test_mixes_complex_cases"][0] == "excluded"
    assert verdict["test_mixes_complex_cases"][1] == (
        "mixed (run all the same; its other cases: 1 of 1 recorded passed)"
    )
    error = data["collection_errors"]["test_201_exits.py"]
    assert "No module named 'riemann_has_no_such_module'" in error


def test_report_lists_every_failure_and_exclusion() -> None:
    from tools.riemann_suite.__main__ import report

    tests = [
        {"file": "test_001_operator.py", "name": "test_a", "outcome": "passed", "reason": ""},
        {"file": "test_001_operator.py", "name": "test_b", "outcome": "failed", "reason": "E1"},
        {"file": "test_001_operator.py", "name": "test_c", "outcome": "excluded", "reason": "R"},
        {"file": "test_033_einsum.py", "name": "T::test_d", "outcome": "excluded", "reason": "X"},
        {"file": "test_032_cuda.py", "name": "test_e", "outcome": "skipped", "reason": "no GPU"},
        {"file": "test_024_basic_funcs.py", "name": "test_f", "outcome": "excluded",
         "reason": "C (run all the same; its other cases: 0 of 1 recorded passed)"},
        {"file": "test_024_basic_funcs.py", "name": "test_g", "outcome": "excluded",
         "reason": "C (run all the same; its other cases: 3 of 3 recorded passed)"},
    ]  # fmt: skip
    text = report(tests, "f" * 40, "solutions", "python -m tools.riemann_suite", ["a.py:3"])
    assert "**1 of 2 in-scope tests pass (50%).** 4 tests are out of scope" in text
    assert "- `test_024_basic_funcs::test_f`: its other cases: 0 of 1 recorded passed" in text
    assert "test_024_basic_funcs::test_g`:" not in text
    assert "| `test_001_operator.py` | operators | 1 | 1 | 0 | 1 |" in text
    assert "  - `test_b`: E1" in text and "  - `test_c`: R" in text
    assert "- `test_033_einsum.py` (all 1 tests): no course of this kind: einsum" in text
    assert "  - `test_e`: no GPU" in text and "a.py:3" in text and "f" * 40 in text
    assert "- other: E1 (1): `test_001_operator::test_b`" in text
    assert "Without the encoder–decoder Transformer's tests" in text
    assert "they count, the scope below says why): 1 of 2 (50%)." in text


def test_report_gives_the_figure_without_the_encoder_decoder() -> None:
    from tools.riemann_suite.__main__ import report

    tests = [
        {"file": "test_101_transformer_coderlayer.py", "name": "T::test_encoder_basic",
         "outcome": "passed", "reason": ""},
        {"file": "test_101_transformer_coderlayer.py", "name": "T::test_decoder_basic",
         "outcome": "failed", "reason": "E"},
        {"file": "test_103_transformer.py", "name": "T::test_basic", "outcome": "failed",
         "reason": "E"},
    ]  # fmt: skip
    text = report(tests, "f" * 40, "solutions", "python -m tools.riemann_suite", [])
    assert "**1 of 3 in-scope tests pass (33%).**" in text
    assert "they count, the scope below says why): 1 of 1 (100%)." in text
    assert f"against `solutions.{LAST}` (the last chapter)" in text


@pytest.mark.parametrize(
    ("reason", "group"),
    [
        ("riemann._map.MissingName: riemann.nn.ModuleDict: the framework has no such name",
         "nn.ModuleDict"),
        ("AttributeError: 'Tensor' object has no attribute 'scatter_'", "Tensor.scatter_"),
        ("TypeError: sort() got an unexpected keyword argument 'out'", "sort(out=)"),
        ("AttributeError: 'SimpleLinearModule' object has no attribute 'register_x_hook'",
         "Module.register_x_hook"),
        ("TypeError: ModuleList.pop() missing 1 required positional argument: 'key'",
         "ModuleList.pop(): its signature"),
        ("TypeError: unsupported operand type(s) for <<: 'Tensor' and 'int'",
         "Tensor operator <<"),
        ("RuntimeError: x[index] = value on a tensor an operation recorded (its grad_fn …",
         "in-place semantics (issue 28): other"),
        ("RuntimeError: *= on a tensor in a recorded graph that shares its memory with a view",
         "a recorded in-place change of a tensor that has a view (`y[i] += v`, `v = y[0:2]; "
         "v.mul_(2)`): the course refuses it, PyTorch rewrites the view's graph"),
        ("RuntimeError: fill_ on a tensor in a recorded graph would cut it from the graph",
         "fill_ / zero_ on a tensor in a recorded graph: the course refuses it, PyTorch "
         "records it (the old values get a zero gradient)"),
        ("AssertionError: something else entirely", "other: AssertionError: something else"
         " entirely"),
        ("AssertionError: clamp非原地 (3 of 26 recorded cases failed; first: out参数测试)",
         "out= arguments"),
        ("AssertionError: clamp原地 (25 of 25 recorded cases failed; first: 基本clamp_)",
         "in-place semantics (issue 28): other"),
        ("NotImplementedError: ceil_mode=True: Sparrow's pooling keeps whole windows only",
         "pooling's ceil_mode=True (the course keeps whole windows only)"),
        ("NotImplementedError: MultiheadAttention: add_bias_kv and add_zero_attn are not in "
         "the course", "MultiheadAttention(add_bias_kv=, add_zero_attn=)"),
        ("NotImplementedError: MultiheadAttention: kdim and vdim other than embed_dim",
         "MultiheadAttention(kdim=, vdim=) other than embed_dim"),
        ("AssertionError: 4 of 4 recorded cases failed; first: BatchNorm3d-5D-配置1: 测试异常: "
         "riemann.nn.BatchNorm3d: the framework has no such name", "nn.BatchNorm3d"),
    ],
)  # fmt: skip
def test_failures_are_grouped_by_what_they_lack(reason: str, group: str) -> None:
    from tools.riemann_suite.__main__ import feature

    assert feature(reason) == group

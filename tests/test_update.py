"""Course updates keep a student's work (tools/merge.py, tools/update.py): new given code
arrives, every task the student wrote stays byte for byte, untouched tasks take their new
stubs, the report says what changed, and nothing is lost or half-written."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import stubgen
from tests.trees import REPO, SOLUTIONS, scratch_repo
from tools import merge, stubs, update

VALUE = "ch01_value/value.py"
NEW_GIVEN = "\n\ndef _added_upstream() -> int:\n    return 42\n"
CHANGED_GIVEN = 'UPSTREAM_NOTE = "given code changed upstream"\n\n\n'


def _raise(task_id: str) -> re.Pattern[str]:
    return re.compile(rf'raise NotImplementedError\(\s*"Task {re.escape(task_id)}:[^"]*"\s*\)')


def _function(text: str, name: str) -> str:
    """The source of function ``name`` (qualified) in ``text``, decorators included."""
    found = merge.function_text(text, name)
    assert found is not None, f"no function {name}"
    return found


def _write_task(path: Path, task_id: str, body: str) -> None:
    text = path.read_text()
    assert len(_raise(task_id).findall(text)) == 1, f"task {task_id} is not one stub in {path}"
    path.write_text(_raise(task_id).sub(lambda _: body, text))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A scratch repository: solutions/ and a generated chapters/ where the student wrote
    tasks 1.2 and 1.4 of value.py (1.3 untouched) and added a file of their own."""
    scratch_repo(tmp_path)
    value = tmp_path / "chapters" / VALUE
    _write_task(value, "1.2", "return Value(self.data + _as_value(other, '+').data)  # my 1.2")
    _write_task(value, "1.4", "out = Value(self.data**exponent)  # my 1.4\n        return out")
    (tmp_path / "chapters" / "ch01_value" / "my_notes.py").write_text("# mine\n")
    return tmp_path


def _change_upstream(repo: Path) -> None:
    """Given code changed in value.py (a new constant, a new function) and task 1.3's
    docstring revised, as a course update would."""
    source = repo / "solutions" / VALUE
    text = source.read_text()
    assert text.count("\nclass Value") == 1 and text.count('"""Task 1.3 —') == 1
    text = text.replace("\nclass Value", "\n" + CHANGED_GIVEN + "class Value", 1)
    text = text.replace('"""Task 1.3 —', '"""Task 1.3 (revised) —', 1)
    source.write_text(text + NEW_GIVEN)


def test_an_update_brings_new_given_code_and_keeps_written_tasks(repo: Path) -> None:
    value = repo / "chapters" / VALUE
    before = value.read_text()
    mine = {name: _function(before, name) for name in ("Value.__add__", "Value.__pow__")}
    _change_upstream(repo)
    report = stubs.write(repo)
    after = value.read_text()
    new_stub = stubgen.generate(repo / "solutions")[VALUE].decode()
    # the given code is the new one
    assert CHANGED_GIVEN in after and after.endswith(NEW_GIVEN)
    # the written tasks are kept byte for byte; the untouched one is its new stub
    assert {name: _function(after, name) for name in mine} == mine
    assert _function(after, "Value.__mul__") == _function(new_stub, "Value.__mul__")
    assert "(revised)" in _function(after, "Value.__mul__")
    # outside the tasks, the file is the new stub
    for name in merge.task_functions(new_stub):
        if name not in mine:
            assert _function(after, name) == _function(new_stub, name), name
    # the report names what changed; a backup holds the student's file
    line = next(r for r in report if r.startswith(f"merged chapters/{VALUE}"))
    assert "given code updated" in line
    assert "Value.__add__ (task 1.2)" in line and "Value.__pow__ (task 1.4)" in line
    assert "now the new stub: Value.__mul__ (task 1.3)" in line
    assert update.NOT_MERGED not in report
    backups = list((repo / ".sparrow" / "backups").rglob("value.py"))
    assert len(backups) == 1 and backups[0].read_text() == before
    # the student's own file is untouched; a second run changes nothing
    assert (repo / "chapters" / "ch01_value" / "my_notes.py").read_text() == "# mine\n"
    assert stubs.write(repo) == ["kept your work in 1 file"]
    assert value.read_text() == after


def test_the_students_own_change_to_given_code_is_merged(repo: Path) -> None:
    value = repo / "chapters" / VALUE
    text = value.read_text()
    first_import = next(line for line in text.splitlines() if line.startswith("import "))
    value.write_text(text.replace(first_import, "import math  # mine\n" + first_import, 1))
    _change_upstream(repo)
    stubs.write(repo)
    after = value.read_text()
    assert "import math  # mine\n" in after and CHANGED_GIVEN in after


@pytest.mark.parametrize("recorded", [True, False], ids=["recorded", "no-record"])
def test_what_cannot_be_merged_is_said_and_the_file_kept(repo: Path, recorded: bool) -> None:
    """Also without a record of the stubs the files started from (a tree older than it)."""
    if not recorded:
        (repo / update.LOCAL_BASE).unlink()
    value, graph = repo / "chapters" / VALUE, repo / "chapters" / "ch01_value" / "graph.py"
    broken = value.read_text() + "\ndef oops(:\n"
    value.write_text(broken)
    _change_upstream(repo)
    (repo / "solutions" / "ch01_value" / "graph.py").write_text(
        (SOLUTIONS / "ch01_value" / "graph.py").read_text() + NEW_GIVEN
    )
    report = stubs.write(repo)
    assert value.read_text() == broken  # left as it is
    assert graph.read_text().endswith(NEW_GIVEN)  # the rest updated
    assert update.NOT_MERGED in report
    problem = report[report.index(update.NOT_MERGED) + 1]
    assert f"chapters/{VALUE}: NOT updated" in problem and "syntax error at line" in problem
    assert stubs.write(repo)[-1] == problem  # still said, still not merged
    value.write_text(broken.removesuffix("\ndef oops(:\n"))  # fixed: the next run merges
    report = stubs.write(repo)
    assert value.read_text().endswith(NEW_GIVEN) and "# my 1.2" in value.read_text()
    if recorded:
        assert update.NOT_MERGED not in report
    else:  # the given code is the new one, and the student is told to look at the backup
        said = report[report.index(update.NOT_MERGED) + 1 :]
        assert "no record of the stub this file started from" in said[0]
        assert said[-1].startswith("  the backup of your files from before this update: ")


def test_no_file_is_half_written_when_writing_fails(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = repo / "chapters" / VALUE
    before = value.read_text()
    _change_upstream(repo)

    def fail(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        stubs.write(repo)
    assert value.read_text() == before
    assert [p.name for p in value.parent.iterdir() if p.name.endswith(".tmp")] == []
    monkeypatch.undo()
    assert "# my 1.2" in value.read_text() and stubs.write(repo)[0].startswith("merged")


def test_force_starts_the_changed_files_over_after_a_backup(repo: Path) -> None:
    _change_upstream(repo)
    report = stubs.write(repo, force=True)
    value = repo / "chapters" / VALUE
    assert value.read_bytes() == stubgen.generate(repo / "solutions")[VALUE]
    assert any("FORCE=1" in line for line in report)
    backup = next((repo / ".sparrow" / "backups").rglob("value.py"))
    assert "# my 1.2" in backup.read_text()


OLD = '''import numpy as np


class A:
    def f(self):
        """f."""
        raise NotImplementedError("Task 1.1: f")

    def g(self):
        raise NotImplementedError("Task 1.2: g")
'''


@pytest.mark.parametrize(
    ("new", "mine", "expected", "problem"),
    [
        (  # task 1.2 moved out of this file: the student's g has nowhere to go
            OLD.split("\n    def g")[0] + "\n",
            OLD.replace('raise NotImplementedError("Task 1.2: g")', "return 'mine'"),
            OLD.split("\n    def g")[0] + "\n",
            "orphan A.g",
        ),
        (  # task 1.2 became given code
            OLD.replace('        raise NotImplementedError("Task 1.2: g")', "        return 2"),
            OLD.replace('raise NotImplementedError("Task 1.2: g")', "return 'mine'"),
            OLD.replace('        raise NotImplementedError("Task 1.2: g")', "        return 2"),
            "A.g (task 1.2) is given code now",
        ),
        (  # a new task function arrives; f is kept
            OLD + '\n    def h(self):\n        raise NotImplementedError("Task 1.3: h")\n',
            OLD.replace('raise NotImplementedError("Task 1.1: f")', "return 1"),
            OLD.replace('raise NotImplementedError("Task 1.1: f")', "return 1")
            + '\n    def h(self):\n        raise NotImplementedError("Task 1.3: h")\n',
            None,
        ),
        (  # the student and the course both change the same given line: the course wins
            OLD.replace("import numpy as np", "import numpy as np  # new"),
            OLD.replace("import numpy as np", "import numpy  # mine"),
            OLD.replace("import numpy as np", "import numpy as np  # new"),
            "your line 1 (`import numpy  # mine`) changed given lines that the new version "
            "changed too: the new given code was taken and your lines were dropped",
        ),
        (  # the student's import beside a given line the course changed: both kept
            OLD.replace("import numpy as np", "import numpy as np  # new"),
            OLD.replace("import numpy as np", "import numpy as np\nimport math  # mine"),
            OLD.replace("import numpy as np", "import numpy as np  # new\nimport math  # mine"),
            None,
        ),
        (  # both append at the end of the file: the student's helper, then the course's
            OLD + "\n\ndef given():\n    return 2\n",
            OLD + "\n\ndef mine():\n    return 1\n",
            OLD + "\n\ndef mine():\n    return 1\n\n\ndef given():\n    return 2\n",
            None,
        ),
        (  # the stub of a written task changed around the task: merged into the student's
            OLD.replace('"""f."""', '"""f, revised."""').replace("Task 1.1: f", "Task 1.1: f!"),
            OLD.replace('raise NotImplementedError("Task 1.1: f")', "return 1"),
            OLD.replace('"""f."""', '"""f, revised."""').replace(
                'raise NotImplementedError("Task 1.1: f")', "return 1"
            ),
            None,
        ),
        (  # ... on a given line the student changed too: theirs kept as written, and said
            OLD.replace('"""f."""', '"""f, revised."""'),
            OLD.replace('"""f."""', '"""my f."""').replace(
                'raise NotImplementedError("Task 1.1: f")', "return 1"
            ),
            OLD.replace('"""f."""', '"""my f."""').replace(
                'raise NotImplementedError("Task 1.1: f")', "return 1"
            ),
            "A.f (task 1.1): the new version changed given lines inside it",
        ),
        (  # only the stub's message changed: nothing to say
            OLD.replace("Task 1.1: f", "Task 1.1: f — see §2"),
            OLD.replace('raise NotImplementedError("Task 1.1: f")', "return 1"),
            OLD.replace('raise NotImplementedError("Task 1.1: f")', "return 1"),
            None,
        ),
    ],
)
def test_merge_cases(new: str, mine: str, expected: str, problem: str | None) -> None:
    merged = merge.merge(OLD, new, mine)
    assert merged.text == expected
    if problem and problem.startswith("orphan "):  # tools.update places it, or says so
        assert list(merged.orphans) == [problem.removeprefix("orphan ")]
        assert merged.orphans["A.g"][0] == {"1.2"} and not merged.problems
        return
    said = merged.problems + merged.notes
    assert [p for p in said if problem and problem in p] or not problem
    assert not said or problem
    if "Task 1.3" in new:
        assert merged.added == ["A.h (task 1.3)"] and merged.kept == ["A.f (task 1.1)"]


@pytest.mark.parametrize(
    ("old", "mine", "new", "expected", "clashes"),
    [
        (  # both append: the student's lines survive, before the course's
            ["a", "b"],
            ["a", "b", "def mine(): pass"],
            ["a", "b", "def given(): pass"],
            ["a", "b", "def mine(): pass", "def given(): pass"],
            [],
        ),
        (  # the student's import right after a given line the course edits
            ["import math", "x = 1"],
            ["import math", "import operator", "x = 1"],
            ["import math  # changed", "x = 1"],
            ["import math  # changed", "import operator", "x = 1"],
            [],
        ),
        (  # inserted inside lines the course rewrote: after the course's lines
            ["a", "b", "c", "d"],
            ["a", "b", "mine", "c", "d"],
            ["a", "B", "C", "d"],
            ["a", "B", "C", "mine", "d"],
            [],
        ),
        (  # changes to neighbouring lines: both kept
            ["a", "b", "c"],
            ["a", "B", "c"],
            ["a", "b", "C"],
            ["a", "B", "C"],
            [],
        ),
        (  # a true clash: the course's line, and the student's range reported
            ["a", "b", "c"],
            ["a", "mine", "c"],
            ["a", "given", "c"],
            ["a", "given", "c"],
            [(1, 2)],
        ),
    ],
)
def test_merge3_keeps_the_students_insertions(
    old: list[str], mine: list[str], new: list[str], expected: list[str], clashes: list
) -> None:
    assert merge.merge3(old, mine, new) == (expected, clashes)


def test_the_students_helper_and_import_survive_course_changes_beside_them(repo: Path) -> None:
    """The review's case: a helper appended and an import added, used by a written task,
    while the course appends given code and edits the import line next to the student's."""
    value = repo / "chapters" / VALUE
    text = value.read_text()
    assert text.count("\nimport math\n") == 1
    text = text.replace("\nimport math\n", "\nimport math\nimport operator  # mine\n", 1)
    helper = "\n\ndef _my_product(a, b):\n    return operator.mul(a, b)\n"
    value.write_text(text + helper)
    _write_task(value, "1.3", "return Value(_my_product(self.data, _as_value(other, '*').data))")
    source = repo / "solutions" / VALUE
    upstream = source.read_text()
    source.write_text(
        upstream.replace("\nimport math\n", "\nimport math  # changed\n", 1) + NEW_GIVEN
    )
    report = stubs.write(repo)
    after = value.read_text()
    assert "\nimport math  # changed\nimport operator  # mine\n" in after
    assert after.endswith(helper + NEW_GIVEN)
    assert update.NOT_MERGED not in report and update.CHECK not in report
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            "from chapters.ch01_value.value import Value\nprint((Value(2.0) * 3).data)",
        ],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(repo)},
    )
    assert run.stdout.strip() == "6.0", run.stderr


def test_a_renamed_given_helper_reaches_written_tasks_or_is_reported(repo: Path) -> None:
    """Given lines inside a written task change with the course where the student did not
    touch them; a name the student's own lines still use is reported, with advice to edit
    (a reset would throw the work away)."""
    source = repo / "solutions" / VALUE
    text = source.read_text()
    assert text.count("_as_value") >= 3
    source.write_text(text.replace("_as_value", "_to_value"))
    value = repo / "chapters" / VALUE
    mine = _function(value.read_text(), "Value.__add__")
    report = stubs.write(repo)
    after = _function(value.read_text(), "Value.__add__")
    assert 'other = _to_value(other, "+")' in after  # the given line, updated
    assert "return Value(self.data + _as_value(other, '+').data)  # my 1.2" in after  # theirs
    assert after == mine.replace('other = _as_value(other, "+")', 'other = _to_value(other, "+")')
    line = next(r for r in report if r.startswith(f"merged chapters/{VALUE}"))
    assert "given lines inside them updated: Value.__add__ (task 1.2)" in line
    said = report[report.index(update.CHECK) + 1 :]
    assert "your Value.__add__ uses `_as_value`, which the new version" in said[0]
    assert "do not `make reset`" in said[0] and update.NOT_MERGED not in report
    assert said[-1].startswith("  the backup of your files from before this update: ")


def test_without_a_record_a_task_still_raising_its_stub_error_is_untouched() -> None:
    new = OLD.replace('"""f."""', '"""f, revised."""').replace("Task 1.2: g", "Task 1.2: g!")
    mine = OLD.replace('raise NotImplementedError("Task 1.2: g")', "return 'mine'")
    merged = merge.merge(None, new, mine)
    assert merged.text == new.replace('raise NotImplementedError("Task 1.2: g!")', "return 'mine'")
    assert merged.kept == ["A.g (task 1.2)"] and merged.updated == ["A.f (task 1.1)"]


def test_update_from_release_refuses_what_is_not_a_fresh_release(tmp_path: Path) -> None:
    with pytest.raises(update.UpdateError, match="not a Sparrow student release"):
        update.release_chapters(tmp_path)


def test_make_update_wraps_the_module() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tools.update", "--from", str(REPO / "chapters")],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2 and "error:" in out.stderr


def test_a_file_the_course_drops_is_removed_unless_it_holds_work(repo: Path) -> None:
    for name in ("numerical.py", "graph.py"):
        (repo / "solutions" / "ch01_value" / name).unlink()
    report = stubs.write(repo)
    chapter = repo / "chapters" / "ch01_value"
    assert not (chapter / "numerical.py").exists() and not (chapter / "graph.py").exists()
    assert "removed chapters/ch01_value/graph.py (no longer part of the course)" in report
    (repo / "solutions" / "ch01_value" / "value.py").unlink()  # value.py holds work
    report = stubs.write(repo)
    assert "# my 1.2" in (chapter / "value.py").read_text()
    assert f"kept chapters/{VALUE}: no longer part of the course, kept as is" in report


def test_a_file_the_student_added_whose_name_the_course_takes_is_backed_up(repo: Path) -> None:
    (repo / "solutions" / "ch01_value" / "my_notes.py").write_text('"""Course notes."""\n')
    report = stubs.write(repo)
    notes = repo / "chapters" / "ch01_value" / "my_notes.py"
    assert notes.read_text() == '"""Course notes."""\n'
    said = report[report.index(update.NOT_MERGED) + 1 :]
    assert "my_notes.py: the new version of the course has a file of this name" in said[0]
    (backup,) = list((repo / ".sparrow" / "backups").rglob("my_notes.py"))
    assert backup.read_text() == "# mine\n"


def test_a_written_task_that_moved_to_another_file_moves_with_it(repo: Path) -> None:
    numerical = repo / "chapters" / "ch01_value" / "numerical.py"
    _write_task(numerical, "1.1", "return 0.5  # my 1.1")
    mine = _function(numerical.read_text(), "central_difference")
    source, target = (repo / "solutions" / "ch01_value" / n for n in ("numerical.py", "graph.py"))
    text = source.read_text()
    start = text.index("def central_difference")
    moved = text[start : text.index("### END SOLUTION", start) + len("### END SOLUTION")]
    source.write_text(text.replace(moved, "CENTRAL = None  # moved to graph.py"))
    target.write_text(target.read_text() + "\n\n" + moved + "\n")
    report = stubs.write(repo)
    graph = (repo / "chapters" / "ch01_value" / "graph.py").read_text()
    assert _function(graph, "central_difference") == mine
    assert "CENTRAL = None" in numerical.read_text()
    assert "central_difference" not in numerical.read_text()
    assert (
        "moved your central_difference (task 1.1) from chapters/ch01_value/numerical.py to "
        "chapters/ch01_value/graph.py, where the task now is"
    ) in report
    assert update.NOT_MERGED not in report
    # nowhere to go: said, and the backup holds it
    target.write_text(target.read_text().replace(moved, ""))
    report = stubs.write(repo)
    assert report[report.index(update.NOT_MERGED) + 1] == (
        "  chapters/ch01_value/graph.py: " + merge.orphan_problem("central_difference", {"1.1"})
    )
    backups = [p.read_text() for p in (repo / ".sparrow" / "backups").rglob("graph.py")]
    assert any(mine in b for b in backups)


def test_a_file_saved_with_a_byte_order_mark_merges_and_keeps_it(repo: Path) -> None:
    """A Windows editor's UTF-8 byte-order mark: Python imports the file, so the update
    must merge it too (not call it a syntax error at line 1), and the mark stays."""
    value = repo / "chapters" / VALUE
    value.write_bytes(b"\xef\xbb\xbf" + value.read_bytes())
    _change_upstream(repo)
    report = stubs.write(repo)
    after = value.read_bytes()
    assert after.startswith(b"\xef\xbb\xbf") and not after[3:].startswith(b"\xef\xbb\xbf")
    text = after.decode("utf-8-sig")
    assert "# my 1.2" in text and "# my 1.4" in text and CHANGED_GIVEN in text
    assert update.NOT_MERGED not in report


def _course(root: Path, files: dict[str, str]) -> list[str]:
    """A course update of a scratch release-like tree (no solutions/) to these stubs."""
    (root / "tools").mkdir(exist_ok=True)
    return update.update(root, {rel: text.encode() for rel, text in files.items()})


_STUB_F = '        """Task 9.1."""\n        raise NotImplementedError("Task 9.1: f")\n'
_MY_F = '        """Task 9.1."""\n        return x * 2  # my 9.1\n'
MOVED_OLD = f"class A:\n    def f(self, x):\n{_STUB_F}\n    def g(self):\n        return 1\n"
MOVED_NEW = (
    f"class A:\n    def g(self):\n        return 1\n\n\nclass B:\n    def f(self, x):\n{_STUB_F}"
)


def test_a_task_moved_to_another_class_of_its_file_keeps_the_students_work(
    tmp_path: Path,
) -> None:
    """The review's case: ``A.f`` becomes ``B.f`` in the same file (task 9.1)."""
    _course(tmp_path, {"chx/a.py": MOVED_OLD})
    a = tmp_path / "chapters" / "chx" / "a.py"
    a.write_text(MOVED_OLD.replace(_STUB_F, _MY_F))
    report = _course(tmp_path, {"chx/a.py": MOVED_NEW})
    assert a.read_text() == MOVED_NEW.replace(_STUB_F, _MY_F)
    assert "moved your A.f to B.f (task 9.1) in chapters/chx/a.py, where the task now is" in report
    assert update.NOT_MERGED not in report


def test_a_task_moved_to_a_renamed_class_elsewhere_is_reindented_or_truly_reported(
    tmp_path: Path,
) -> None:
    """``A.f`` in a.py becomes the module-level ``f`` of b.py (another nesting depth); once
    b.py's ``f`` is written too, the report says where the task is instead of "no other
    file has its stub"."""
    given = "def given():\n    return 0\n"
    stub_f = '\n\ndef f(x):\n    """Task 9.1."""\n    raise NotImplementedError("Task 9.1: f")\n'
    new_a, new_b = "class A:\n    def g(self):\n        return 1\n", given + stub_f
    _course(tmp_path, {"chx/a.py": MOVED_OLD, "chx/b.py": given})
    a, b = (tmp_path / "chapters" / "chx" / n for n in ("a.py", "b.py"))
    a.write_text(MOVED_OLD.replace(_STUB_F, _MY_F))
    report = _course(tmp_path, {"chx/a.py": new_a, "chx/b.py": new_b})
    moved = '\n\ndef f(self, x):\n    """Task 9.1."""\n    return x * 2  # my 9.1\n'
    assert b.read_text() == given + moved and a.read_text() == new_a
    assert (
        "moved your A.f to f (task 9.1) from chapters/chx/a.py to chapters/chx/b.py, where "
        "the task now is"
    ) in report
    assert report[report.index(update.CHECK) + 1] == (
        "  chapters/chx/b.py: your A.f, now f, keeps your signature `def f(self, x):`; the "
        "new stub's is `def f(x):`: make yours match it"
    )
    # the same move when b.py's f is written already: the student's is not placed, and said
    _course(tmp_path, {"chx/a.py": MOVED_OLD, "chx/b.py": new_b})
    a.write_text(MOVED_OLD.replace(_STUB_F, _MY_F))
    b.write_text(new_b.replace('raise NotImplementedError("Task 9.1: f")', "return 0  # b's"))
    report = _course(tmp_path, {"chx/a.py": new_a, "chx/b.py": new_b + "\nX = 1\n"})
    problem = report[report.index(update.NOT_MERGED) + 1]
    assert problem == "  chapters/chx/a.py: " + merge.orphan_problem(
        "A.f", {"9.1"}, "f in chapters/chx/b.py"
    )
    assert "no other file has its stub" not in problem and "# b's" in b.read_text()


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_in_a_clone_without_a_record_git_history_gives_the_old_stub(repo: Path) -> None:
    """A clone whose work predates the record: the manifest's hash finds the stub the file
    started from in git's history, so the merge is exact (the student's import survives)."""
    git = ["git", "-C", str(repo), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], check=True)
    (repo / "chapters" / VALUE).write_bytes(stubgen.generate(repo / "solutions")[VALUE])
    subprocess.run([*git, "add", "chapters", "solutions"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "course"], check=True)
    (repo / update.LOCAL_BASE).unlink()
    value = repo / "chapters" / VALUE
    _write_task(value, "1.2", "return Value(0.0)  # my 1.2")
    text = value.read_text()
    first_import = next(line for line in text.splitlines() if line.startswith("import "))
    value.write_text(text.replace(first_import, "import math  # mine\n" + first_import, 1))
    _change_upstream(repo)
    report = stubs.write(repo)
    after = value.read_text()
    assert "import math  # mine\n" in after and "# my 1.2" in after and CHANGED_GIVEN in after
    assert update.NOT_MERGED not in report


def _solved(rel: str) -> str:
    """The reference file as a student who wrote every task would have it."""
    text = (SOLUTIONS / rel).read_text()
    marker = re.compile(r"^\s*### (BEGIN|END) SOLUTION")
    return "\n".join(line for line in text.splitlines() if not marker.match(line)) + "\n"


TASK_FILES = sorted(
    p.relative_to(SOLUTIONS).as_posix()
    for p in SOLUTIONS.rglob("*.py")
    if "### BEGIN SOLUTION" in p.read_text()
)


@pytest.mark.parametrize("rel", TASK_FILES)
def test_every_chapter_file_merges_a_finished_student_onto_new_given_code(rel: str) -> None:
    """Each real file: all tasks written, given code changed at the top and the end; the
    merge is the finished file with the same changes."""
    old = stubgen.generate(SOLUTIONS)[rel].decode()
    mine = _solved(rel)
    new, expected = CHANGED_GIVEN + old + NEW_GIVEN, CHANGED_GIVEN + mine + NEW_GIVEN
    merged = merge.merge(old, new, mine)
    assert merged.text == expected
    assert not merged.problems and not merged.orphans
    assert len(merged.kept) == len(merge.task_functions(old))


def _fake_release(root: Path, files: dict[str, str], *, record: bool = True) -> Path:
    """A small student release: value.py's stub as its chapters (with its manifest and stub
    record), ``files`` outside chapters/, and (``record``) the list of what it ships."""
    stub = stubgen.generate(SOLUTIONS)[VALUE]
    (root / "chapters" / "ch01_value").mkdir(parents=True)
    (root / "chapters" / VALUE).write_bytes(stub)
    (root / "chapters" / update.MANIFEST).write_bytes(update.manifest_text({VALUE: stub}))
    (root / "tools").mkdir()
    (root / update.PRISTINE).write_text(json.dumps({VALUE: stub.decode()}))
    (root / update.STAMP).write_text("a release\n")
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    if record:
        (root / update.SHIPPED).write_bytes(update.shipped_record(root))
    return root


@pytest.mark.parametrize("record", [True, False], ids=["recorded", "no-record"])
def test_an_update_from_a_release_never_loses_the_students_own_files(
    tmp_path: Path, record: bool
) -> None:
    """Files no release shipped are the student's and stay; a shipped file the student
    edited is backed up before it is replaced or removed; the report says both. Without a
    record of what the old release shipped, nothing outside chapters/ is removed."""
    old = {
        "support/plots.py": "# plots, old\n",
        "datasets/old.csv": "x\n1\n",
        "autograder/dropped.py": "# dropped by the new release\n",
        "autograder/kept.py": "# the same in both\n",
    }
    new = {**old, "support/plots.py": "# plots, new\n"}
    del new["datasets/old.csv"], new["autograder/dropped.py"]
    student = _fake_release(tmp_path / "student", old, record=record)
    newer = _fake_release(tmp_path / "newer", new)
    mine = {"datasets/mine.csv": "my,data\n", "support/my_plots.py": "# mine\n"}
    for rel, text in mine.items():
        (student / rel).write_text(text)
    (student / "support/plots.py").write_text("# plots, old, with my change\n")
    (student / "datasets/old.csv").write_text("x\n1\n2  # mine\n")
    report = update.update_from_release(student, newer)
    for rel, text in mine.items():  # the student's own files: left as they are
        assert (student / rel).read_text() == text, rel
    assert (student / "support/plots.py").read_text() == "# plots, new\n"
    assert (student / "autograder/kept.py").is_file()
    assert (student / "autograder/dropped.py").exists() == (not record)
    assert (student / "datasets/old.csv").exists() == (not record)
    # every edited file the course replaced or removed is in the backup, as edited
    (where,) = list((student / ".sparrow" / "backups").iterdir())
    assert (where / "support/plots.py").read_text() == "# plots, old, with my change\n"
    if record:
        assert (where / "datasets/old.csv").read_text() == "x\n1\n2  # mine\n"
        assert not (where / "autograder/dropped.py").exists()  # the course's, unedited
    assert f"is kept in {where.relative_to(student)}" in "\n".join(report)
    saved = next(r for r in report if r.startswith("backed up, then replaced or removed"))
    assert "support/plots.py" in saved and "autograder/kept.py" not in saved
    left = next(r for r in report if r.startswith("left "))
    assert "datasets/mine.csv" in left and "support/my_plots.py" in left
    # the student's folder now records what the new release shipped: a second update from
    # it changes nothing and keeps the student's files
    assert json.loads((student / update.SHIPPED).read_text()) == json.loads(
        (newer / update.SHIPPED).read_text()
    )
    report = update.update_from_release(student, newer)
    assert not any(r.startswith("backed up, then") for r in report)
    assert all((student / rel).read_text() == text for rel, text in mine.items())

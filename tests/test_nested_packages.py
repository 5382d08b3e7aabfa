"""Chapter 5's package has subpackages (``ch05_nn/nn/``, ``ch05_nn/utils/``), the first in
the course: every tool that walks chapter files reaches into them. Stubs, ``make reset``,
``make update`` (a merge, and a task that moves to a new subpackage), the release and its
pristine stubs, ``make submit`` and ingestion, the grader's composite tree, and the
"raised at" frames, each on a file one or two folders below the chapter's package."""

from __future__ import annotations

import importlib
import importlib.util
import json
import re
import shutil
import sys
import zipfile
from pathlib import Path

import pytest

from autograder import frames, grading, runner, stubgen
from autograder.course import CHAPTERS, chapter, task
from autograder.harness import child
from autograder.ingest import ingest
from autograder.report import task_details
from autograder.status import Status
from tests.trees import (
    REPO,
    SOLUTIONS,
    copy_package,
    patch,
    run_chapter,
    run_in,
    scratch_repo,
    write_stubs,
)
from tools import gradescope, merge, release, reset, stubs, submit, update

CH05 = "ch05_nn"
MODULE = "ch05_nn/nn/module.py"
TASK_53 = ("Module.named_modules", "Module._named_members", "Module.train")
OTHERS_IN_MODULE = ("Module.__setattr__", "Module.state_dict", "Module.load_state_dict")
CHANGED_GIVEN = 'UPSTREAM_NOTE = "given code changed upstream"\n\n\n'
NEW_GIVEN = "\n\ndef _added_upstream() -> int:\n    return 42\n"


def _solved(text: str) -> str:
    """A reference file as a student who wrote every task has it (the markers gone)."""
    marker = re.compile(r"^\s*### (BEGIN|END) SOLUTION")
    return "\n".join(line for line in text.splitlines() if not marker.match(line)) + "\n"


def _function(text: str, name: str) -> str:
    found = merge.function_text(text, name)
    assert found is not None, f"no function {name}"
    return found


def _nested(generated: dict[str, bytes]) -> set[str]:
    """Chapter 5's generated files below its package's own folder."""
    return {rel for rel in generated if rel.startswith(f"{CH05}/") and rel.count("/") >= 2}


def _backup_of(repo: Path, rel: str) -> Path:
    """The one backup of ``chapters/rel``, at its own nested place under the backup."""
    found = [
        p
        for p in (repo / ".sparrow" / "backups").rglob(Path(rel).name)
        if p.as_posix().endswith(f"/chapters/{rel}")
    ]
    assert len(found) == 1, found
    return found[0]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return scratch_repo(tmp_path)


# -- stubs ---------------------------------------------------------------------------------


def test_nested_files_are_generated_and_recorded() -> None:
    generated = stubgen.generate(SOLUTIONS)
    nested = _nested(generated)
    assert {
        "ch05_nn/nn/__init__.py",
        MODULE,
        "ch05_nn/utils/__init__.py",
        "ch05_nn/utils/checkpoint.py",
        "ch05_nn/utils/data.py",
    } <= nested
    reference = {
        p.relative_to(SOLUTIONS).as_posix()
        for p in (SOLUTIONS / CH05).rglob("*.py")
        if "__pycache__" not in p.parts
    }
    assert {rel for rel in generated if rel.startswith(f"{CH05}/")} >= reference
    manifest = json.loads((REPO / "chapters" / update.MANIFEST).read_text())
    assert nested <= manifest.keys()
    stub = generated[MODULE].decode()
    assert not stubgen.MARKER.search(stub)
    tasks = merge.task_functions(stub)
    assert {name: tasks[name] for name in TASK_53} == {name: {"5.3"} for name in TASK_53}
    message = task("5.1")[1].stub_message
    assert "§1 of the notebook" in message
    assert json.dumps(message, ensure_ascii=False) in _function(stub, "Module.__setattr__")


def test_a_nested_stub_raises_its_task_when_imported(tmp_path: Path) -> None:
    chapters = write_stubs(tmp_path / "chapters")
    shutil.copyfile(REPO / "chapters" / "__init__.py", chapters / "__init__.py")
    code = (
        "from chapters import ch05_nn as sp\n"
        "print(sp.nn.Linear.__module__, sp.utils.checkpoint.__name__)\n"
        "try:\n    sp.nn.Linear(2, 3)\nexcept NotImplementedError as exc:\n    print(exc)\n"
    )
    out = run_in(tmp_path, sys.executable, "-c", code, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "chapters.ch05_nn.nn.linear chapters.ch05_nn.utils.checkpoint",
        task("5.1")[1].stub_message,
    ]


# -- make reset ----------------------------------------------------------------------------


def test_reset_puts_back_only_the_tasks_functions_in_a_nested_file(repo: Path) -> None:
    module = repo / "chapters" / MODULE
    solved = _solved((SOLUTIONS / MODULE).read_text())
    module.write_text(solved)
    report = reset.reset("5.3", reset.stubs_for("5.3", repo), repo)
    assert len(report) == 1 and f"in chapters/{MODULE} (your version is kept in" in report[0]
    assert set(report[0].removeprefix("reset ").split(" in ")[0].split(", ")) == set(TASK_53)
    after = module.read_text()
    stub = stubgen.generate(repo / "solutions")[MODULE].decode()
    for name in TASK_53:
        assert _function(after, name) == _function(stub, name)
    for name in OTHERS_IN_MODULE:
        assert _function(after, name) == _function(solved, name)
    restored = after
    for name in TASK_53:  # the rest of the file is untouched
        restored = merge.place(restored, name, _function(solved, name).split("\n"))
    assert restored == solved
    assert _backup_of(repo, MODULE).read_text() == solved


# -- make update ---------------------------------------------------------------------------


def test_update_merges_an_edited_nested_file_whose_given_code_changed(repo: Path) -> None:
    module = repo / "chapters" / MODULE
    solved = _solved((SOLUTIONS / MODULE).read_text())
    written = _function(solved, "Module.__setattr__")
    mine = merge.place(module.read_text(), "Module.__setattr__", written.split("\n"))
    future = "from __future__ import annotations\n"
    assert mine.count(future) == 1
    mine = mine.replace(future, future + "import math  # mine\n")
    module.write_text(mine)
    source = repo / "solutions" / MODULE
    text = source.read_text()
    assert text.count("\nclass Module:") == 1
    source.write_text(
        text.replace("\nclass Module:", "\n" + CHANGED_GIVEN + "class Module:") + NEW_GIVEN
    )
    report = stubs.write(repo)
    after = module.read_text()
    new_stub = stubgen.generate(repo / "solutions")[MODULE].decode()
    assert CHANGED_GIVEN in after and after.endswith(NEW_GIVEN) and "import math  # mine\n" in after
    assert _function(after, "Module.__setattr__") == written
    for name in merge.task_functions(new_stub):
        if name != "Module.__setattr__":
            assert _function(after, name) == _function(new_stub, name), name
    line = next(r for r in report if r.startswith(f"merged chapters/{MODULE}: given code updated"))
    assert "your tasks kept: Module.__setattr__ (task 5.1)" in line
    assert update.NOT_MERGED not in report and update.CHECK not in report
    assert _backup_of(repo, MODULE).read_text() == mine
    assert json.loads((repo / update.LOCAL_BASE).read_text())[MODULE] == new_stub
    assert stubs.write(repo) == ["kept your work in 1 file"]


def test_a_task_moved_into_a_new_subpackage_takes_the_students_code_along(repo: Path) -> None:
    """The course moves ``dropout`` (task 5.9) from ``nn/dropout.py`` into a new, deeper
    ``nn/ops/dropout.py``: the student's written function follows it there."""
    rel, moved_to = "ch05_nn/nn/dropout.py", "ch05_nn/nn/ops/dropout.py"
    theirs = repo / "chapters" / rel
    solved = _solved((SOLUTIONS / rel).read_text())
    theirs.write_text(solved)
    source = repo / "solutions" / rel
    text = source.read_text()
    start, end = text.index("\ndef dropout("), text.index("\n\nclass Dropout(")
    source.write_text(text[:start] + "\nfrom .ops.dropout import dropout\n" + text[end:])
    ops = repo / "solutions" / "ch05_nn" / "nn" / "ops"
    ops.mkdir()
    (ops / "__init__.py").write_text('"""nn\'s functions, one a file."""\n')
    head = '"""dropout, moved."""\n\nfrom __future__ import annotations\n\n'
    (ops / "dropout.py").write_text(
        head + "from ....ch02_tensor.tensor import Tensor\n\n" + text[start:end] + "\n"
    )
    report = stubs.write(repo)
    assert (
        f"moved your dropout (task 5.9) from chapters/{rel} to chapters/{moved_to}, where the "
        "task now is"
    ) in report
    assert "wrote chapters/ch05_nn/nn/ops/__init__.py" in report
    assert _function((repo / "chapters" / moved_to).read_text(), "dropout") == _function(
        solved, "dropout"
    )
    assert merge.function_text(theirs.read_text(), "dropout") is None
    assert update.NOT_MERGED not in report
    assert _backup_of(repo, rel).read_text() == solved


# -- the release ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("release") / "sparrow-student"
    release.release(out)
    return out


def test_the_release_ships_the_subpackages_and_their_pristine_stubs(built: Path) -> None:
    generated = stubgen.generate(SOLUTIONS)
    nested = _nested(generated)
    for rel in nested:
        assert (built / "chapters" / rel).read_bytes() == generated[rel], rel
    pristine = json.loads((built / release.PRISTINE).read_text(encoding="utf-8"))
    assert {rel for rel in nested if rel.endswith(".py")} <= pristine.keys()
    assert pristine[MODULE] == generated[MODULE].decode()
    manifest = json.loads((built / "chapters" / update.MANIFEST).read_text())
    assert nested <= manifest.keys()
    # the release's "raised at" reads its pristine stubs, nested keys included
    assert frames.task_functions(built)[MODULE] == frames.task_functions()[MODULE]
    assert set(TASK_53) <= set(frames.task_functions(built)[MODULE])


def test_make_reset_in_a_release_finds_a_task_in_a_nested_file(built: Path, tmp_path: Path) -> None:
    student = tmp_path / "student"
    shutil.copytree(built, student)
    module = student / "chapters" / MODULE
    solved = _solved((SOLUTIONS / MODULE).read_text())
    module.write_text(solved)
    out = run_in(student, sys.executable, "-m", "tools.reset", "5.3", timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"in chapters/{MODULE}" in out.stdout and "Module.named_modules" in out.stdout
    after = module.read_text()
    for name in TASK_53:
        assert '"Task 5.3:' in _function(after, name)
    for name in OTHERS_IN_MODULE:
        assert _function(after, name) == _function(solved, name)
    assert _backup_of(student, MODULE).read_text() == solved


def test_update_from_a_newer_release_merges_a_nested_file(built: Path, tmp_path: Path) -> None:
    student, newer = tmp_path / "student", tmp_path / "newer"
    shutil.copytree(built, student)
    shutil.copytree(built, newer)
    module = student / "chapters" / MODULE
    solved = _solved((SOLUTIONS / MODULE).read_text())
    written = _function(solved, "Module.train")
    mine = merge.place(module.read_text(), "Module.train", written.split("\n"))
    module.write_text(mine)
    stub = (newer / "chapters" / MODULE).read_text() + NEW_GIVEN
    (newer / "chapters" / MODULE).write_text(stub)
    manifest = json.loads((newer / "chapters" / update.MANIFEST).read_text())
    manifest[MODULE] = update.sha(stub.encode())
    (newer / "chapters" / update.MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    pristine = json.loads((newer / release.PRISTINE).read_text())
    pristine[MODULE] = stub
    (newer / release.PRISTINE).write_text(json.dumps(pristine, indent=1) + "\n")
    report = update.update_from_release(student, newer)
    assert any(
        line.startswith(f"merged chapters/{MODULE}: given code updated")
        and "your tasks kept: Module.train (task 5.3)" in line
        for line in report
    ), report
    after = module.read_text()
    assert after.endswith(NEW_GIVEN) and _function(after, "Module.train") == written
    assert json.loads((student / release.PRISTINE).read_text())[MODULE] == stub
    assert _backup_of(student, MODULE).read_text() == mine


# -- make submit, ingestion, the grader's tree -----------------------------------------------


def test_a_submission_zip_keeps_the_subpackages_and_ingestion_finds_them(tmp_path: Path) -> None:
    root = tmp_path / "student"
    write_stubs(root / "chapters")
    for clutter in ["nn/__pycache__/module.cpython-311.pyc", "nn/.ipynb_checkpoints/x.py"]:
        path = root / "chapters" / CH05 / clutter
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"clutter")
    folders = submit.chapter_folders(root, 5)
    assert [ch.number for ch, _ in folders] == [1, 2, 3, 4, 5]
    files = submit.collect(root, [folder for _, folder in folders])
    expected = {
        f"chapters/{rel}"
        for rel in stubgen.generate(SOLUTIONS)
        if rel.startswith(f"{CH05}/") and rel.endswith(".py")
    }
    assert {rel for rel in files if rel.startswith(f"chapters/{CH05}/")} == expected
    assert f"chapters/{MODULE}" in files and "chapters/ch05_nn/utils/data.py" in files
    assert submit.compile_errors(files) == []
    archive = tmp_path / "sparrow-ch05.zip"
    archive.write_bytes(submit.zip_bytes(files))
    copy = ingest(archive, tmp_path / "copy")
    assert copy.packages[CH05] == copy.root / "chapters" / CH05 and copy.notes == []
    for rel, data in files.items():
        assert (copy.root / rel).read_bytes() == data, rel


def test_a_package_holding_only_nested_files_is_still_found(tmp_path: Path) -> None:
    """Chapter 5's task files are all in subpackages: a zip of just those is chapter 5."""
    archive = tmp_path / "only-tasks.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for rel in (MODULE, "ch05_nn/utils/data.py"):
            zf.writestr(f"hand-in/chapters/{rel}", (SOLUTIONS / rel).read_bytes())
    copy = ingest(archive, tmp_path / "copy")
    assert copy.packages == {CH05: copy.root / "hand-in" / "chapters" / CH05}


@pytest.mark.parametrize("rel", ["ch01_value/value.py", MODULE])
def test_a_chapter_folder_zipped_inside_one_of_its_name_is_the_inner_one(
    tmp_path: Path, rel: str
) -> None:
    """``ch05_nn/ch05_nn/nn/module.py`` (unzipped into a folder of its name, zipped again):
    the outer folder holds .py files only below the inner one, which is the chapter."""
    package = rel.split("/")[0]
    archive = tmp_path / "again.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(f"{package}/{rel}", (SOLUTIONS / rel).read_bytes())
    copy = ingest(archive, tmp_path / "copy")
    assert copy.packages == {package: copy.root / package / package} and copy.notes == []


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> grading.CourseTrees:
    return grading.repository_course(tmp_path_factory.mktemp("course"))


def test_the_graders_tree_takes_nested_task_files_and_refuses_shadowing(
    course: grading.CourseTrees, tmp_path: Path
) -> None:
    marked = {
        p.relative_to(SOLUTIONS / CH05).as_posix()
        for p in (SOLUTIONS / CH05).rglob("*.py")
        if "### BEGIN SOLUTION" in p.read_text()
    }
    assert "nn/module.py" in marked and grading.task_files(course.stubs / CH05) == marked
    sub = tmp_path / "sub" / CH05
    (sub / "nn" / "module").mkdir(parents=True)
    shutil.copyfile(SOLUTIONS / CH05 / "nn" / "linear.py", sub / "nn" / "linear.py")
    (sub / "nn" / "module" / "__init__.py").write_text("class Module: ...\n")  # shadows
    (sub / "nn" / "mine.py").write_text("HELPER = 1\n")  # a file of the student's own
    (sub / "nn" / "parameter.py").write_text("class Parameter: ...\n")  # given: not taken
    dest = tmp_path / "work" / CH05
    notes = grading._student_package(chapter(5), course, sub, dest)
    text = "\n".join(notes)
    assert "would take the place of given ones: nn/module/__init__.py" in text
    assert "graded as the course's own: nn/parameter.py" in text
    assert "graded as stubs): " in text and "nn/module.py" in text
    assert "nn/linear.py" not in text.split("graded as stubs): ")[1]
    assert (dest / "nn" / "linear.py").read_bytes() == (sub / "nn" / "linear.py").read_bytes()
    assert (dest / "nn" / "mine.py").is_file() and not (dest / "nn" / "module").exists()
    assert (dest / "nn" / "parameter.py").read_bytes() == (
        course.stubs / CH05 / "nn" / "parameter.py"
    ).read_bytes()
    # the child's tree: subpackages and their __init__.py copied, the package importable
    packages = {ch.package: SOLUTIONS / ch.package for ch in CHAPTERS[:4]} | {CH05: dest}
    tree = tmp_path / "tree"
    runner.build_tree(tree, packages, {})
    for rel in ("nn/__init__.py", "nn/module.py", "utils/__init__.py", "utils/checkpoint.py"):
        assert (tree / "chapters" / CH05 / rel).is_file(), rel
    code = "import chapters.ch05_nn as sp; print(sp.nn.Linear.__module__, sp.utils.data.__name__)"
    out = run_in(tree, sys.executable, "-c", code, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["chapters.ch05_nn.nn.linear", "chapters.ch05_nn.utils.data"]


# -- "raised at" -----------------------------------------------------------------------------


def test_raised_at_names_a_task_frame_inside_a_nested_file() -> None:
    assert set(TASK_53) <= set(frames.task_functions()[MODULE])
    info = {
        "frames": [
            {"path": MODULE, "line": 210, "function": "Module.named_modules"},
            {"path": "ch05_nn/nn/parameter.py", "line": 12, "function": "Parameter.__new__"},
        ]
    }
    assert frames.where(info) == (
        f"chapters/{MODULE}, line 210, in Module.named_modules\n"
        "chapters/ch05_nn/nn/parameter.py, line 12, in Parameter.__new__ (given code, called "
        "from there)"
    )
    assert frames.task_function(info) == "Module.named_modules"
    # one qualified name, two nested files: the given Softmax module is not task 5.6's
    given = {
        "frames": [{"path": "ch05_nn/nn/activation.py", "line": 9, "function": "Softmax.forward"}]
    }
    assert (
        frames.where(given)
        == "chapters/ch05_nn/nn/activation.py, line 9, in Softmax.forward (given code)"
    )
    assert frames.task_function(given) == ""
    task_56 = {
        "frames": [{"path": "ch05_nn/nn/softmax.py", "line": 9, "function": "Softmax.forward"}]
    }
    assert frames.task_function(task_56) == "Softmax.forward"


def test_the_child_keys_its_frames_by_the_nested_path(tmp_path: Path) -> None:
    tree = tmp_path.resolve()
    nested = tree / "chapters" / CH05 / "nn"
    nested.mkdir(parents=True)
    (nested / "module.py").write_text(
        "class Module:\n    def named_modules(self):\n        raise ValueError('in a subpackage')\n"
    )
    spec = importlib.util.spec_from_file_location("nested_module_under_test", nested / "module.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(ValueError) as raised:
        module.Module().named_modules()
    info = child._describe(raised.value, tree)
    assert info["frames"] == [{"path": MODULE, "line": 3, "function": "Module.named_modules"}]
    assert info["where"] == f"chapters/{MODULE}, line 3, in named_modules"
    assert frames.where(info) == f"chapters/{MODULE}, line 3, in Module.named_modules"
    assert frames.task_function(info) == "Module.named_modules"


def test_the_gradescope_zip_holds_the_nested_stubs(tmp_path: Path) -> None:
    out = gradescope.build(5, tmp_path / "gradescope-ch05.zip")
    with zipfile.ZipFile(out) as archive:
        names = set(archive.namelist())
    generated = stubgen.generate(SOLUTIONS)
    nested = {f"course/stubs/{rel}" for rel in _nested(generated) if rel.endswith(".py")}
    assert {f"course/stubs/{MODULE}", "course/stubs/ch05_nn/utils/__init__.py"} <= nested <= names
    assert not any(name.startswith("course/reference/ch05_nn") for name in names)


# -- make chapter-5: the report on nested files ------------------------------------------------


def test_the_report_names_unwritten_functions_and_frames_of_nested_files(tmp_path: Path) -> None:
    """Task 5.3 with one of its three functions written: "to write" names the other two
    (in nn/module.py), and points to §3; a bug in LinearFunction.backward (nn/linear.py) is raised
    at its line there, with chapter 2's given code below it."""
    started = copy_package(SOLUTIONS / CH05, tmp_path / "started" / CH05)
    stub = stubgen.generate(SOLUTIONS)[MODULE].decode()
    text = (started / "nn" / "module.py").read_text()
    for name in ("Module._named_members", "Module.train"):
        text = merge.place(text, name, _function(stub, name).split("\n"))
    (started / "nn" / "module.py").write_text(text)
    (t,) = run_chapter(5, started, tasks=["5.3"]).tasks
    assert t.status == Status.STARTED and t.label == "started: 1 of 3 functions written"
    details = "\n".join(task_details(t))
    assert re.search(
        r"to write: +nn/module\.py: Module\._named_members, Module\.train\n", details
    ), details
    assert re.search(r"continue: +§3 of the notebook", details), details
    buggy = copy_package(SOLUTIONS / CH05, tmp_path / "buggy" / CH05)
    bug = "        grad_x = grad_output @ weight.T if needs[0] else None"
    patch(buggy / "nn" / "linear.py", "grad_output @ weight if", "grad_output @ weight.T if")
    (t,) = run_chapter(5, buggy, tasks=["5.2"]).tasks
    line = 1 + (buggy / "nn" / "linear.py").read_text().split("\n").index(bug)
    where = t.first_problem.where.splitlines()
    assert where[0] == f"chapters/ch05_nn/nn/linear.py, line {line}, in LinearFunction.backward"
    assert where[1].startswith("chapters/ch02_tensor/") and where[1].endswith(
        "(given code, called from there)"
    )


def test_a_zip_of_only_chapter_5s_nested_task_files_grades_in_full(
    course: grading.CourseTrees, tmp_path: Path
) -> None:
    """The hand-in of just the files a student edits (all in subpackages but 5.13's
    regression.py): found, taken, given files from the course, full marks for the
    reference's code."""
    files = {
        f"chapters/{CH05}/{rel}": (SOLUTIONS / CH05 / rel).read_bytes()
        for rel in sorted(grading.task_files(course.stubs / CH05))
    }
    nested = [rel for rel in files if rel.count("/") >= 3]  # chapters/ch05_nn/<sub>/<file>.py
    assert len(nested) >= len(files) - 1 and f"chapters/{CH05}/regression.py" in files
    archive = tmp_path / "nested-only.zip"
    archive.write_bytes(submit.zip_bytes(files))
    options = grading.Options(chapter=5, course=course)
    graded = grading.grade_submission(archive, options, tmp_path / "work")
    assert graded.status == "graded" and graded.points == graded.max_points, graded.feedback
    assert graded.reason == "", graded.reason


# -- three levels down: chapter 6's nn/utils/clip_grad.py --------------------------------

CLIP = "ch06_optim/nn/utils/clip_grad.py"


def test_reset_and_a_submission_reach_a_task_three_levels_down(repo: Path, tmp_path: Path) -> None:
    """Task 6.10 lives in ``ch06_optim/nn/utils/clip_grad.py``: ``make reset`` puts back its
    functions there, and a hand-in of chapter 6 keeps the file at its depth."""
    clip = repo / "chapters" / CLIP
    solved = _solved((SOLUTIONS / CLIP).read_text())
    clip.write_text(solved)
    report = reset.reset("6.10", reset.stubs_for("6.10", repo), repo)
    assert len(report) == 1 and f"in chapters/{CLIP} (your version is kept in" in report[0]
    stub = stubgen.generate(repo / "solutions")[CLIP].decode()
    assert clip.read_text() == stub
    assert _backup_of(repo, CLIP).read_text() == solved

    root = tmp_path / "student"
    write_stubs(root / "chapters")
    files = submit.collect(root, [folder for _, folder in submit.chapter_folders(root, 6)])
    assert f"chapters/{CLIP}" in files
    archive = tmp_path / "sparrow-ch06.zip"
    archive.write_bytes(submit.zip_bytes(files))
    copy = ingest(archive, tmp_path / "copy")
    assert (copy.root / "chapters" / CLIP).read_bytes() == files[f"chapters/{CLIP}"]

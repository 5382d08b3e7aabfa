"""GitHub Classroom's autograding workflow for one chapter: ``workflow(n)`` is the text of
``.github/workflows/classroom.yml`` (``make release CLASSROOM=n`` writes it; every release
carries each chapter's under ``.github/classroom/chNN.yml``). Instructor tooling: the
release ships the YAML, never this module.

Classroom awards a step's points all or nothing, so there is one step per task, running
``python -m autograder check N --task N.k`` (exit 0 only when that task passes; a task
blocked by another failing task exits 1), worth the task's points. The layout is the one
Classroom's own editor generates (the workflow "Autograding Tests", the one job
"run-autograding-tests", a step per test with ``classroom-resources/
autograding-command-grader@v1``, then ``autograding-grading-reporter@v1`` reading each
step's result from ``<ID>_RESULTS``): see the reporter's README,
https://github.com/classroom-resources/autograding-grading-reporter#usage ("the name of
the workflow must be Autograding Tests ... the job must be named run-autograding-tests").

The command grader runs each command with ``/bin/sh`` and an environment of its own (``PATH``,
``HOME``, ``FORCE_COLOR`` and two .NET settings: nothing else of the job's), so the
commands rely only on ``python`` being on ``PATH``: ``actions/setup-python`` puts it there.

The text is generated as text (no YAML library) and depends only on the task tables and
``requirements.txt``: the same course gives the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

from autograder.course import chapter as course_chapter
from tools import colab

REPO = Path(__file__).resolve().parent.parent
REQUIREMENTS = REPO / "requirements.txt"

NAME = "Autograding Tests"  # Classroom reads the results of this workflow name only
JOB = "run-autograding-tests"  # ... and of this job
GRADER = "classroom-resources/autograding-command-grader@v1"
REPORTER = "classroom-resources/autograding-grading-reporter@v1"
CHECKOUT = "actions/checkout@v4"
SETUP_PYTHON = "actions/setup-python@v5"
PYTHON = "3.11"  # the pins of requirements.txt for Python 3.11 and newer
PACKAGES = ("numpy", "matplotlib", "tqdm")  # what the checks import: nothing for JupyterLab
TIMEOUT_MINUTES = 10  # per task: the reference's chapters check in about 2 s each here


def step_id(task_id: str) -> str:
    """The step's id for a task, letters and digits only (the reporter's runner list
    accepts no other): "1.2" → "task0102", "1.10" → "task0110"."""
    chapter, number = task_id.split(".")
    return f"task{int(chapter):02d}{int(number):02d}"


def command(chapter: int, task_id: str) -> str:
    """What a task's step runs: exit status 0 when, and only when, the task passes."""
    return f"python -m autograder check {chapter} --task {task_id}"


def requirements(path: Path = REQUIREMENTS, names: tuple[str, ...] = PACKAGES) -> list[str]:
    """The lines of ``path`` that pin one of ``names``, markers kept (``colab.pins``: the
    Colab cell installs from the same lines)."""
    lines = colab.pins(path, names)
    missing = set(names) - {colab.name_of(line) for line in lines}
    if missing:
        raise ValueError(f"{path} pins no {', '.join(sorted(missing))}")
    return lines


def _quoted(text: str) -> str:
    """A YAML double-quoted scalar (JSON's string syntax is a subset of it)."""
    return json.dumps(text, ensure_ascii=False)


def _shell_words(lines: list[str]) -> str:
    """Requirement lines as single-quoted shell words, one a line, continued with a
    backslash (they hold double quotes, never single ones: checked)."""
    for line in lines:
        if "'" in line:
            raise ValueError(f"a requirement with a single quote: {line!r}")
    words = [f"            '{line}'" for line in lines]
    return " \\\n".join(words)


def workflow(chapter: int) -> str:
    """The YAML text of chapter ``chapter``'s autograding workflow."""
    ch = course_chapter(chapter)
    if not ch.ready:
        raise ValueError(f"chapter {ch.number} has no tasks yet")
    head = f"""\
# GitHub Classroom autograding for chapter {ch.number} ({ch.package}): one step per task,
# worth the task's points, all or nothing. The layout is Classroom's own (its editor
# writes the same workflow name, job, triggers and permissions; see the reporter's README,
# https://github.com/classroom-resources/autograding-grading-reporter#usage).
# The same checks as `make chapter-{ch.number}` on your machine: a task's points here are
# all of its points when every one of its checks passes there, else 0.
name: {NAME}
"on":
  - push
  - workflow_dispatch
  - repository_dispatch
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  {JOB}:
    runs-on: ubuntu-latest
    if: github.actor != 'github-classroom[bot]'
    steps:
      - name: Checkout code
        uses: {CHECKOUT}
      - name: Set up Python
        uses: {SETUP_PYTHON}
        with:
          python-version: {_quoted(PYTHON)}
      - name: Install what the checks need
        run: |
          python -m pip install \\
{_shell_words(requirements())}
"""
    steps = []
    for task in ch.tasks:
        name = f"Task {task.id}: {task.title}"
        steps.append(f"""\
      - name: {_quoted(name)}
        id: {step_id(task.id)}
        uses: {GRADER}
        with:
          test-name: {_quoted(name)}
          setup-command: ""
          command: {_quoted(command(ch.number, task.id))}
          timeout: {TIMEOUT_MINUTES}
          max-score: {task.points}
""")
    ids = [step_id(task.id) for task in ch.tasks]
    env = "".join(
        f'          {i.upper()}_RESULTS: "${{{{steps.{i}.outputs.result}}}}"\n' for i in ids
    )
    tail = f"""\
      - name: Autograding Reporter
        uses: {REPORTER}
        env:
{env}        with:
          runners: {",".join(ids)}
"""
    return head + "".join(steps) + tail

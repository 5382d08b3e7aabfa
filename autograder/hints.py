"""Hints on request, one stage at a time: ``make hint TASK=4.2`` (or ``hint("4.2")`` in a
notebook) shows the next stage of the task's hints each time it is asked.

The first stage is not here: it is the report of a failing check, which says what went
wrong and which tool shows it (``report.task_details``). Asked for more, a task gives its
idea in words (no code), then its recipe, then the notebook section that teaches it
(``Task.hints``). Which stage each task has reached is kept in ``.sparrow/hints.json``, so
the next request goes one further; ``level=`` shows a stage again without moving on, and
``reset`` starts a task over. The record is a convenience: a missing or unreadable one
starts every task at the first stage, and it is written whole or not at all.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from .course import task as find_task
from .language import language
from .report import WIDTH, wrap

REPO = Path(__file__).resolve().parent.parent
NAMES = {"en": ("the idea", "the recipe", "the notebook"), "zh": ("思路", "做法", "笔记本")}
# the frame around a hint, by language (the hints themselves: Task.text)
FRAME = {
    "en": {
        "head": "Task {id} — {title}: hint {level} of {count} ({name})",
        "more": 'more: ask again for hint {next} ({name}): `make hint TASK={id}`, or hint("{id}") '
        "in the notebook",
        "last": "that was the last hint; `make hint TASK={id} LEVEL=1` shows the first again",
        "read": "{section}, in chapter {chapter}'s notebook, teaches task {id}: read it again.",
    },
    "zh": {
        "head": "任务 {id} — {title}：提示 {level}/{count}（{name}）",
        "more": "更多：再问一次，得到提示 {next}（{name}）：`make hint TASK={id}`，"
        '或在笔记本里运行 hint("{id}")',
        "last": "这是最后一条提示；`make hint TASK={id} LEVEL=1` 重新显示第一条",
        "read": "第 {chapter} 章笔记本的“{section}”讲解了任务 {id}：再读一遍。",
    },
}


def record_path(repo: Path = REPO) -> Path:
    return repo / ".sparrow" / "hints.json"


def _read(path: Path) -> dict[str, int]:
    """The stages shown so far by task; {} where there is no record or it is unreadable."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, int)}


def _write(path: Path, shown: dict[str, int]) -> None:
    """``shown`` into ``path`` whole (a temporary file moved into place), or not at all."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".hints-", suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump(shown, f, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except OSError:  # a read-only tree: the hint is still shown, the next starts over
        pass


def section_heading(repo: Path, package: str, section: str) -> str:
    """The heading of ``section`` ("§4") in the chapter's notebook (its Chinese one first
    under ``SPARROW_LANG=zh``), as a student's tree has it (else the reference's); "" where
    there is none to read."""
    names = [f"{package}.ipynb"]
    if language() == "zh":  # the Chinese notebook's heading, where the chapter has one
        names.insert(0, f"{package}.zh.ipynb")
    for path in [
        repo / tree / package / name for tree in ("chapters", "solutions") for name in names
    ]:
        try:
            cells = json.loads(path.read_text())["cells"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        for cell in cells:
            text = "".join(cell.get("source", "")) if isinstance(cell, dict) else ""
            for line in text.splitlines():
                heading = line.lstrip("# ").strip()
                if line.startswith("#") and f"{heading} ".startswith(f"{section} "):
                    return heading
    return ""


def hint(task_id: str, level: int | None = None, *, reset: bool = False, repo: Path = REPO) -> str:
    """The text of a hint stage of ``task_id``: ``level`` (1, 2, …), else the one after the
    last shown (recorded). ``reset`` forgets what was shown and gives the first."""
    ch, t = find_task(task_id)  # a KeyError/ValueError names an unknown task
    section = section_heading(repo, ch.package, t.section) or t.section
    read = FRAME[language()]["read"].format(section=section, chapter=ch.number, id=t.id)
    stages = (*t.hints, read)
    path = record_path(repo)
    shown = _read(path)
    if level is not None and not 1 <= level <= len(stages):
        raise ValueError(f"task {t.id} has hints 1 to {len(stages)}, not {level}")
    if reset:
        shown.pop(t.id, None)
    if level is None:  # the next stage, recorded
        level = shown[t.id] = min(shown.get(t.id, 0) + 1, len(stages))
        _write(path, shown)
    elif reset:
        _write(path, shown)
    return _format(t.id, t.text("title"), stages, level)


def _format(task_id: str, title: str, stages: tuple[str, ...], level: int) -> str:
    lang = language()
    frame, names = FRAME[lang], NAMES[lang][-len(stages) :]
    head = dict(id=task_id, title=title, level=level, count=len(stages), name=names[level - 1])
    lines = [frame["head"].format(**head)]
    lines += [f"  {line}" for line in wrap(stages[level - 1], WIDTH - 2)]
    if level < len(stages):
        lines.append("  " + frame["more"].format(next=level + 1, name=names[level], id=task_id))
    else:
        lines.append("  " + frame["last"].format(id=task_id))
    return "\n".join(lines)

"""The notebooks in a second language (issue 33): one source, two languages.

A chapter's notebook ``solutions/chNN_x/chNN_x.ipynb`` is written in English; its Chinese
prose lives beside it in ``chNN_x.zh.json``, one entry per markdown cell, keyed by the cell's
id::

    {"language": "zh",
     "cells": {"intro-02": {"en_sha": "3f2a…", "source": "## §1 导数与链式法则 …"}}}

``en_sha`` is ``source_sha`` of the English cell the translation was made from: when the
English changes, the translation is stale until a translator reads the change and records
the new hash. Code cells are never translated (they are shared; comments stay English).

The generator writes ``chNN_x.zh.ipynb``: the English notebook with each markdown cell's
source replaced by its translation (``translated``). ``problems`` lists what is missing,
stale or left over, for the tests and for ``python -m autograder.translations``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from .notebook_gen import notebook_bytes

SUFFIX = ".zh.json"  # beside the English notebook: its Chinese prose


def source_sha(source: str | list[str]) -> str:
    """The hash a translation records of the English it was made from (16 hex digits)."""
    text = source if isinstance(source, str) else "".join(source)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def prose_cells(nb: dict) -> dict[str, str]:
    """The English notebook's markdown cells: id → source."""
    return {c["id"]: "".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"}


def problems(nb: dict, zh: dict) -> list[str]:
    """What keeps ``zh`` from being ``nb``'s complete, current translation."""
    english = prose_cells(nb)
    cells = zh.get("cells", {})
    found = []
    for cell_id, source in english.items():
        entry = cells.get(cell_id)
        if not entry or not str(entry.get("source") or "").strip():
            found.append(f"cell {cell_id}: not translated")
        elif entry.get("en_sha") != source_sha(source):
            found.append(f"cell {cell_id}: the English changed after its translation")
    found += [f"cell {cid}: translates no markdown cell" for cid in sorted(cells.keys() - english)]
    return found


def translated(data: bytes, zh: dict) -> bytes:
    """The notebook ``data`` (JSON bytes) with its prose in ``zh``'s language; a cell with
    no translation keeps its English (``problems`` reports it)."""
    nb = json.loads(data)
    cells = zh.get("cells", {})
    for cell in nb["cells"]:
        entry = cells.get(cell.get("id"))
        if cell["cell_type"] == "markdown" and entry and entry.get("source"):
            cell["source"] = str(entry["source"]).splitlines(keepends=True)
    nb.setdefault("metadata", {})["language"] = zh.get("language", "zh")
    return notebook_bytes(nb)


def with_outputs(data: bytes, filled: bytes) -> bytes:
    """A translated notebook ``data`` given the outputs of its English twin ``filled`` (the
    release's read-ahead), code cell by code cell (they are the same cells, by id)."""
    cells = json.loads(filled)["cells"]
    outputs = {c["id"]: c.get("outputs", []) for c in cells if c["cell_type"] == "code"}
    nb = json.loads(data)
    for cell in nb["cells"]:
        if cell["cell_type"] == "code" and cell.get("id") in outputs:
            cell["outputs"] = outputs[cell["id"]]
    return notebook_bytes(nb)


def status(notebook: Path) -> list[str]:
    """``problems`` for a notebook of ``solutions/`` and its ``.zh.json``."""
    paired = notebook.with_suffix(SUFFIX)
    if not paired.is_file():
        return [f"{paired.name} is missing"]
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    return problems(nb, json.loads(paired.read_text(encoding="utf-8")))


def skeleton(notebook: Path) -> dict:
    """A translation file to fill in: every prose cell with its hash and no text yet
    (kept: translations already there whose English has not changed)."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    paired = notebook.with_suffix(SUFFIX)
    old = {}
    if paired.is_file():
        old = json.loads(paired.read_text(encoding="utf-8")).get("cells", {})
    cells = {}
    for cell_id, source in prose_cells(nb).items():
        entry = old.get(cell_id, {})
        current = entry.get("en_sha") == source_sha(source)
        cells[cell_id] = {
            "en_sha": source_sha(source),
            "en": source,  # what to translate (ignored by the generator)
            "source": entry.get("source", "") if current else "",
        }
    return {"language": "zh", "cells": cells}


def task_problems(chapter: int) -> list[str]:
    """What keeps chapter ``chapter``'s task catalog (``autograder/tasks/zh/chNN.json``:
    titles and hints) from being complete and current."""
    from .course import chapter as find_chapter
    from .tasks import CATALOGS, TRANSLATED

    path = CATALOGS / f"ch{chapter:02d}.json"
    if not path.is_file():
        return [f"{path.name} is missing"]
    entries = json.loads(path.read_text(encoding="utf-8")).get("tasks", {})
    found = []
    tasks = find_chapter(chapter).tasks
    for t in tasks:
        entry = entries.get(t.id, {})
        if entry.get("en_sha") != t.en_sha:
            found.append(f"task {t.id}: " + ("the English changed" if entry else "missing"))
        found += [
            f"task {t.id}: {field} not translated"
            for field in TRANSLATED
            if getattr(t, field) and not str(entry.get(field) or "").strip()
        ]
    found += [f"task {tid}: no such task" for tid in sorted(entries.keys() - {t.id for t in tasks})]
    return found


def task_skeleton(chapter: int) -> Path:
    """Write chapter ``chapter``'s task catalog to fill in: each task's English (``en``),
    its hash, and the translations already there whose English has not changed."""
    from .course import chapter as find_chapter
    from .tasks import CATALOGS, TRANSLATED

    path = CATALOGS / f"ch{chapter:02d}.json"
    old = json.loads(path.read_text(encoding="utf-8")).get("tasks", {}) if path.is_file() else {}
    tasks = {}
    for t in find_chapter(chapter).tasks:
        entry = old.get(t.id, {}) if old.get(t.id, {}).get("en_sha") == t.en_sha else {}
        tasks[t.id] = {"en_sha": t.en_sha, "en": {f: getattr(t, f) for f in TRANSLATED}}
        tasks[t.id].update({f: entry.get(f, "") for f in TRANSLATED})
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"language": "zh", "tasks": tasks}, indent=1, ensure_ascii=False)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    """``python -m autograder.translations [status|skeleton] solutions/chNN_x/chNN_x.ipynb``;
    ``python -m autograder.translations [tasks-status|tasks-skeleton] N`` for chapter N's
    task titles and hints."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or args[0] not in ("status", "skeleton", "tasks-status", "tasks-skeleton"):
        print(main.__doc__, file=sys.stderr)
        return 2
    if args[0] == "tasks-skeleton":
        print(task_skeleton(int(args[1])))
        return 0
    if args[0] == "tasks-status":
        found = task_problems(int(args[1]))
        print("\n".join(found) if found else f"chapter {args[1]}'s tasks: complete and current")
        return 1 if found else 0
    notebook = Path(args[1])
    if args[0] == "skeleton":
        text = json.dumps(skeleton(notebook), indent=1, ensure_ascii=False) + "\n"
        notebook.with_suffix(SUFFIX).write_text(text, encoding="utf-8")
        return 0
    found = status(notebook)
    print("\n".join(found) if found else f"{notebook.name}: translation complete and current")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
